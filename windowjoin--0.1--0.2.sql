/* windowjoin--0.1--0.2.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION windowjoin UPDATE TO '0.2'" to load this file. \quit

--------------------------------------------------------------------------
-- 0.2: windowjoin_status() reports whether the library is preloaded (the
-- setup under which every session plans joins with the custom scans) and
-- which accelerations are active in this session, and how to enable them:
--   SELECT * FROM windowjoin_status();
-- CREATE EXTENSION (which runs 0.1 then this script) and ALTER EXTENSION
-- ... UPDATE say the same with a WARNING when the library is not preloaded
-- (PostgreSQL raises client_min_messages to WARNING while an extension
-- script runs, so a NOTICE would never be seen).
--------------------------------------------------------------------------

--------------------------------------------------------------------------
-- 0.2: tumble, hop and cumulate name their building blocks with the
-- extension's schema.  PostgreSQL inlines these SQL functions, parsing
-- their bodies with the caller's search_path: in 0.1 a caller whose
-- search_path lacked the extension's schema (pg_restore's REFRESH
-- MATERIALIZED VIEW runs with an empty one, and so may any application)
-- got "function wj_hop_starts(...) does not exist" even when it called
-- public.hop(...).  Qualified names keep the functions inlinable (a SET
-- search_path clause would not).
--------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION tumble(ts timestamp, size interval, "offset" interval DEFAULT '0')
RETURNS TABLE (window_start timestamp, window_end timestamp, window_time timestamp)
LANGUAGE sql IMMUTABLE PARALLEL SAFE ROWS 1
AS $$
  SELECT @extschema@.wj_tumble_start($1, $2, $3), @extschema@.wj_tumble_end($1, $2, $3), @extschema@.wj_tumble_time($1, $2, $3)
  WHERE $1 IS NOT NULL
$$;
CREATE OR REPLACE FUNCTION tumble(ts timestamptz, size interval, "offset" interval DEFAULT '0')
RETURNS TABLE (window_start timestamptz, window_end timestamptz, window_time timestamptz)
LANGUAGE sql IMMUTABLE PARALLEL SAFE ROWS 1
AS $$
  SELECT @extschema@.wj_tumble_start($1, $2, $3), @extschema@.wj_tumble_end($1, $2, $3), @extschema@.wj_tumble_time($1, $2, $3)
  WHERE $1 IS NOT NULL
$$;

CREATE OR REPLACE FUNCTION hop(ts timestamp, slide interval, size interval, "offset" interval DEFAULT '0')
RETURNS TABLE (window_start timestamp, window_end timestamp, window_time timestamp)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT s, @extschema@.wj_window_end(s, $3), @extschema@.wj_window_time(s, $3)
  FROM @extschema@.wj_hop_starts($1, $2, $3, $4) AS s
$$;
CREATE OR REPLACE FUNCTION hop(ts timestamptz, slide interval, size interval, "offset" interval DEFAULT '0')
RETURNS TABLE (window_start timestamptz, window_end timestamptz, window_time timestamptz)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT s, @extschema@.wj_window_end(s, $3), @extschema@.wj_window_time(s, $3)
  FROM @extschema@.wj_hop_starts($1, $2, $3, $4) AS s
$$;

CREATE OR REPLACE FUNCTION cumulate(ts timestamp, step interval, size interval, "offset" interval DEFAULT '0')
RETURNS TABLE (window_start timestamp, window_end timestamp, window_time timestamp)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT @extschema@.wj_tumble_start($1, $3, $4), e, @extschema@.wj_end_to_time(e)
  FROM @extschema@.wj_cumulate_ends($1, $2, $3, $4) AS e
$$;
CREATE OR REPLACE FUNCTION cumulate(ts timestamptz, step interval, size interval, "offset" interval DEFAULT '0')
RETURNS TABLE (window_start timestamptz, window_end timestamptz, window_time timestamptz)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT @extschema@.wj_tumble_start($1, $3, $4), e, @extschema@.wj_end_to_time(e)
  FROM @extschema@.wj_cumulate_ends($1, $2, $3, $4) AS e
$$;

--------------------------------------------------------------------------
-- windowjoin_status()
--------------------------------------------------------------------------

CREATE FUNCTION windowjoin_status(
  OUT feature text, OUT active boolean, OUT detail text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'windowjoin_status' LANGUAGE C VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION windowjoin_status() IS
  'whether windowjoin is preloaded and which of its accelerations are active in this session';

DO $$
BEGIN
  IF NOT (SELECT s.active FROM windowjoin_status() s
          WHERE s.feature = 'shared_preload_libraries') THEN
    RAISE WARNING 'windowjoin is not loaded through shared_preload_libraries'
      USING DETAIL = 'Its functions work, but a session plans joins without its custom scans until it has loaded the library.',
            HINT = 'Set shared_preload_libraries = ''windowjoin'' in postgresql.conf and restart the server; SELECT * FROM windowjoin_status() shows what is active.';
  END IF;
END
$$;
