/* windowjoin--0.1.sql */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION windowjoin" to load this file. \quit

--------------------------------------------------------------------------
-- Building blocks (C).  Not meant to be called directly: the window
-- functions below are SQL functions over them, which PostgreSQL inlines
-- into the calling query.  Timestamps and timestamptz share one C symbol.
--------------------------------------------------------------------------

CREATE FUNCTION wj_tumble_start(timestamp, interval, interval) RETURNS timestamp
AS 'MODULE_PATHNAME', 'wj_tumble_start' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION wj_tumble_start(timestamptz, interval, interval) RETURNS timestamptz
AS 'MODULE_PATHNAME', 'wj_tumble_start' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION wj_tumble_end(timestamp, interval, interval) RETURNS timestamp
AS 'MODULE_PATHNAME', 'wj_tumble_end' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION wj_tumble_end(timestamptz, interval, interval) RETURNS timestamptz
AS 'MODULE_PATHNAME', 'wj_tumble_end' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION wj_tumble_time(timestamp, interval, interval) RETURNS timestamp
AS 'MODULE_PATHNAME', 'wj_tumble_time' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION wj_tumble_time(timestamptz, interval, interval) RETURNS timestamptz
AS 'MODULE_PATHNAME', 'wj_tumble_time' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION wj_window_end(timestamp, interval) RETURNS timestamp
AS 'MODULE_PATHNAME', 'wj_window_end' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION wj_window_end(timestamptz, interval) RETURNS timestamptz
AS 'MODULE_PATHNAME', 'wj_window_end' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION wj_window_time(timestamp, interval) RETURNS timestamp
AS 'MODULE_PATHNAME', 'wj_window_time' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION wj_window_time(timestamptz, interval) RETURNS timestamptz
AS 'MODULE_PATHNAME', 'wj_window_time' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION wj_end_to_time(timestamp) RETURNS timestamp
AS 'MODULE_PATHNAME', 'wj_end_to_time' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION wj_end_to_time(timestamptz) RETURNS timestamptz
AS 'MODULE_PATHNAME', 'wj_end_to_time' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION wj_hop_support(internal) RETURNS internal
AS 'MODULE_PATHNAME', 'wj_hop_support' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION wj_cumulate_support(internal) RETURNS internal
AS 'MODULE_PATHNAME', 'wj_cumulate_support' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION wj_hop_starts(timestamp, interval, interval, interval) RETURNS SETOF timestamp
AS 'MODULE_PATHNAME', 'wj_hop_starts' LANGUAGE C IMMUTABLE PARALLEL SAFE
SUPPORT wj_hop_support;
CREATE FUNCTION wj_hop_starts(timestamptz, interval, interval, interval) RETURNS SETOF timestamptz
AS 'MODULE_PATHNAME', 'wj_hop_starts' LANGUAGE C IMMUTABLE PARALLEL SAFE
SUPPORT wj_hop_support;
CREATE FUNCTION wj_cumulate_ends(timestamp, interval, interval, interval) RETURNS SETOF timestamp
AS 'MODULE_PATHNAME', 'wj_cumulate_ends' LANGUAGE C IMMUTABLE PARALLEL SAFE
SUPPORT wj_cumulate_support;
CREATE FUNCTION wj_cumulate_ends(timestamptz, interval, interval, interval) RETURNS SETOF timestamptz
AS 'MODULE_PATHNAME', 'wj_cumulate_ends' LANGUAGE C IMMUTABLE PARALLEL SAFE
SUPPORT wj_cumulate_support;

--------------------------------------------------------------------------
-- Window assignment functions (Flink's windowing TVFs).  Use them in FROM
-- after the table, where they are implicitly LATERAL:
--   SELECT * FROM bid, tumble(bidtime, interval '10 minutes');
-- Each is a single-SELECT SQL function so that the planner inlines it.
--------------------------------------------------------------------------

CREATE FUNCTION tumble(ts timestamp, size interval, "offset" interval DEFAULT '0')
RETURNS TABLE (window_start timestamp, window_end timestamp, window_time timestamp)
LANGUAGE sql IMMUTABLE PARALLEL SAFE ROWS 1
AS $$
  SELECT wj_tumble_start($1, $2, $3), wj_tumble_end($1, $2, $3), wj_tumble_time($1, $2, $3)
  WHERE $1 IS NOT NULL
$$;
CREATE FUNCTION tumble(ts timestamptz, size interval, "offset" interval DEFAULT '0')
RETURNS TABLE (window_start timestamptz, window_end timestamptz, window_time timestamptz)
LANGUAGE sql IMMUTABLE PARALLEL SAFE ROWS 1
AS $$
  SELECT wj_tumble_start($1, $2, $3), wj_tumble_end($1, $2, $3), wj_tumble_time($1, $2, $3)
  WHERE $1 IS NOT NULL
$$;

CREATE FUNCTION hop(ts timestamp, slide interval, size interval, "offset" interval DEFAULT '0')
RETURNS TABLE (window_start timestamp, window_end timestamp, window_time timestamp)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT s, wj_window_end(s, $3), wj_window_time(s, $3)
  FROM wj_hop_starts($1, $2, $3, $4) AS s
$$;
CREATE FUNCTION hop(ts timestamptz, slide interval, size interval, "offset" interval DEFAULT '0')
RETURNS TABLE (window_start timestamptz, window_end timestamptz, window_time timestamptz)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT s, wj_window_end(s, $3), wj_window_time(s, $3)
  FROM wj_hop_starts($1, $2, $3, $4) AS s
$$;

CREATE FUNCTION cumulate(ts timestamp, step interval, size interval, "offset" interval DEFAULT '0')
RETURNS TABLE (window_start timestamp, window_end timestamp, window_time timestamp)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT wj_tumble_start($1, $3, $4), e, wj_end_to_time(e)
  FROM wj_cumulate_ends($1, $2, $3, $4) AS e
$$;
CREATE FUNCTION cumulate(ts timestamptz, step interval, size interval, "offset" interval DEFAULT '0')
RETURNS TABLE (window_start timestamptz, window_end timestamptz, window_time timestamptz)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT wj_tumble_start($1, $3, $4), e, wj_end_to_time(e)
  FROM wj_cumulate_ends($1, $2, $3, $4) AS e
$$;

--------------------------------------------------------------------------
-- Session windows: a window function over the partition, ordered by time.
--   SELECT *, session(bidtime, interval '5 minutes')
--             OVER (PARTITION BY item ORDER BY bidtime) AS w FROM bid;
-- returns (window_start, window_end, window_time), read as (w).window_start.
--------------------------------------------------------------------------

CREATE TYPE session_window AS
  (window_start timestamp, window_end timestamp, window_time timestamp);
CREATE TYPE session_window_tz AS
  (window_start timestamptz, window_end timestamptz, window_time timestamptz);

CREATE FUNCTION session(ts timestamp, gap interval) RETURNS session_window
AS 'MODULE_PATHNAME', 'wj_session' LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION session(ts timestamptz, gap interval) RETURNS session_window_tz
AS 'MODULE_PATHNAME', 'wj_session' LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
