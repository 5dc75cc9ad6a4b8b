--
-- The rules of SPEC section 1 for tumble, hop and cumulate: alignment,
-- floors before 1970, microseconds, offsets, NULLs, HOP with any slide,
-- TimeZone independence, planner estimates, and every error.
--
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
SET IntervalStyle = 'postgres';
\set ECHO none
\i sql/include/helpers.sql
\set ECHO all

CREATE SCHEMA window_rules;
SET search_path = window_rules, public;

-- Pre-1970 times floor (never truncate toward zero), microseconds included
SELECT t, w.*
FROM (VALUES (timestamp '1969-12-31 23:59:59.999999'),
             (timestamp '1969-12-31 23:55:00'),
             (timestamp '1969-12-31 23:54:59.999999'),
             (timestamp '1970-01-01 00:00:00'),
             (timestamp '1900-03-01 12:34:56.789012'),
             (timestamp '0044-03-15 12:00:00 BC')) AS v(t),
     LATERAL tumble(t, interval '5 minutes') AS w
ORDER BY t;

-- window_time is window_end minus 1 ms, also for sub-second windows
SELECT w.* FROM tumble(timestamp '2020-01-01 00:00:00.0042', interval '1 millisecond') AS w;
SELECT w.* FROM tumble(timestamp '2020-01-01 00:00:00.123456', interval '250 milliseconds') AS w;

-- Days are 24 hours; windows longer than a day align to the epoch
SELECT w.* FROM tumble(timestamp '2020-04-15 08:05', interval '1 day') AS w;
SELECT w.* FROM tumble(timestamp '2020-04-15 08:05', interval '7 days') AS w;
SELECT w.* FROM tumble(timestamp '2020-04-15 08:05', interval '1 day 2 hours') AS w;

-- Offsets: only offset mod size matters, any sign, any length
SELECT o, w.window_start
FROM (VALUES (interval '3 minutes'), (interval '13 minutes'), (interval '-7 minutes'),
             (interval '1000 days 3 minutes'), (interval '-1000 days -7 minutes'),
             (interval '10 minutes'), (interval '-10 minutes')) AS v(o),
     LATERAL tumble(timestamp '2020-04-15 08:05', interval '10 minutes', o) AS w
ORDER BY o;
SELECT w.* FROM hop(timestamp '2020-04-15 08:05', interval '5 minutes', interval '10 minutes', interval '-2 minutes') AS w;
SELECT w.* FROM cumulate(timestamp '2020-04-15 08:05', interval '5 minutes', interval '10 minutes', interval '12 minutes') AS w;

-- HOP whose size is not a multiple of the slide: 3 or 4 windows per row
SELECT t, count(*), min(window_start), max(window_start)
FROM (VALUES (timestamp '2020-01-01 00:00'), (timestamp '2020-01-01 00:01'),
             (timestamp '2020-01-01 00:02'), (timestamp '2020-01-01 00:03'))
     AS v(t), LATERAL hop(t, interval '3 minutes', interval '10 minutes')
GROUP BY t ORDER BY t;
-- ... and output ordered by window_start within one input row
SELECT * FROM hop(timestamp '2020-01-01 00:01', interval '3 minutes', interval '10 minutes');

-- HOP with size < slide: windows with gaps, some rows fall in none
SELECT t, w.*
FROM (VALUES (timestamp '2020-01-01 00:00'), (timestamp '2020-01-01 00:01:59.999999'),
             (timestamp '2020-01-01 00:02'), (timestamp '2020-01-01 00:04:59')) AS v(t)
     LEFT JOIN LATERAL hop(t, interval '5 minutes', interval '2 minutes') AS w ON true
ORDER BY t;

-- A NULL time yields no window row: the row drops out
CREATE TABLE ev (id int, t timestamp);
INSERT INTO ev VALUES (1, '2020-01-01 00:07'), (2, NULL), (3, '2020-01-01 00:12');
SELECT id, window_start FROM ev, tumble(t, interval '10 minutes') ORDER BY id;
SELECT id, window_start FROM ev, hop(t, interval '5 minutes', interval '10 minutes') ORDER BY id, window_start;
SELECT id, window_end FROM ev, cumulate(t, interval '5 minutes', interval '10 minutes') ORDER BY id, window_end;

-- timestamptz does not depend on TimeZone: the same instants either way
CREATE TABLE evtz (t timestamptz);
INSERT INTO evtz VALUES ('2020-03-08 01:59:59+00'), ('2020-10-25 00:30:00+00'),
  ('2021-06-30 00:00:04+00'), ('1969-07-20 20:17:40+00');
CREATE TEMP TABLE tz_utc AS
  SELECT t, w.* FROM evtz, hop(t, interval '1 hour', interval '1 day 1 hour') AS w;
SET TimeZone = 'Asia/Seoul';
SELECT count(*) AS same_rows FROM (
  SELECT t, w.* FROM evtz, hop(t, interval '1 hour', interval '1 day 1 hour') AS w
  INTERSECT SELECT * FROM tz_utc) s;
SELECT (SELECT count(*) FROM tz_utc) AS utc_rows;
SELECT w.* FROM tumble(timestamptz '2021-06-30 09:00:04+09', interval '1 day') AS w;
SET TimeZone = 'America/New_York';
SELECT w.* FROM tumble(timestamptz '2021-06-30 09:00:04+09', interval '1 day') AS w;
SET TimeZone = 'UTC';
SELECT w.* FROM tumble(timestamptz '2021-06-30 09:00:04+09', interval '1 day') AS w;

-- Near the ends of the timestamp range
SELECT w.* FROM tumble(timestamp '294276-12-31 23:50:00', interval '5 minutes') AS w;
SELECT w.* FROM tumble(timestamp '4713-01-01 00:00:00 BC', interval '1 hour', interval '30 minutes') AS w;

-- Errors: each parameter named, with SQLSTATE and hint
\set VERBOSITY default
SELECT * FROM tumble(timestamp '2020-01-01', NULL);
SELECT * FROM tumble(timestamp '2020-01-01', interval '10 minutes', NULL);
SELECT * FROM tumble(timestamp '2020-01-01', interval '0');
SELECT * FROM tumble(timestamp '2020-01-01', interval '-5 minutes');
SELECT * FROM tumble(timestamp '2020-01-01', interval '1 month');
SELECT * FROM tumble(timestamp '2020-01-01', interval '10 minutes', interval '1 year');
SELECT * FROM tumble(timestamp '2020-01-01', interval '999 microseconds');
SELECT * FROM hop(timestamp '2020-01-01', NULL, interval '10 minutes');
SELECT * FROM hop(timestamp '2020-01-01', interval '1 minute', interval '0');
SELECT * FROM hop(timestamp '2020-01-01', interval '-1 minute', interval '10 minutes');
SELECT * FROM cumulate(timestamp '2020-01-01', interval '3 minutes', interval '10 minutes');
SELECT * FROM cumulate(timestamp '2020-01-01', interval '1 minute', NULL);
SELECT * FROM tumble(timestamp 'infinity', interval '10 minutes');
SELECT * FROM hop(timestamp '-infinity', interval '1 minute', interval '10 minutes');
SELECT * FROM tumble(timestamp '294276-12-31 23:59:00', interval '5 minutes');
SELECT * FROM tumble(timestamp '4714-11-24 00:10:00 BC', interval '1 hour', interval '30 minutes');
SELECT * FROM tumble(timestamp '2020-01-01', interval '106751991 days');
-- a NULL parameter is an error even when the time is NULL
SELECT * FROM ev, hop(t, interval '5 minutes', NULL);
-- row explosion guard
SELECT count(*) FROM hop(timestamp '2020-01-01', interval '1 millisecond', interval '1 day');
SET windowjoin.max_windows_per_row = 10;
SELECT count(*) FROM hop(timestamp '2020-01-01', interval '1 minute', interval '10 minutes');
SELECT count(*) FROM hop(timestamp '2020-01-01', interval '1 minute', interval '11 minutes');
SELECT count(*) FROM cumulate(timestamp '2020-01-01 23:59', interval '1 minute', interval '1 day');
SELECT count(*) FROM cumulate(timestamp '2020-01-01 00:00', interval '1 minute', interval '1 day');
RESET windowjoin.max_windows_per_row;
SHOW windowjoin.max_windows_per_row;
\set VERBOSITY terse

-- The SQLSTATE of every error above
CREATE FUNCTION sqlstate_of(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE q;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ' ' || SQLERRM;
END $$;
SELECT sqlstate_of(q) FROM (VALUES
  ($$SELECT * FROM tumble(timestamp '2020-01-01', NULL)$$),
  ($$SELECT * FROM hop(timestamp '2020-01-01', interval '1 minute', interval '10 minutes', NULL)$$),
  ($$SELECT * FROM tumble(timestamp '2020-01-01', interval '0')$$),
  ($$SELECT * FROM cumulate(timestamp '2020-01-01', interval '-1 minute', interval '10 minutes')$$),
  ($$SELECT * FROM hop(timestamp '2020-01-01', interval '1 mon', interval '10 minutes')$$),
  ($$SELECT * FROM tumble(timestamp '2020-01-01', interval '0.5 ms')$$),
  ($$SELECT * FROM cumulate(timestamp '2020-01-01', interval '3 minutes', interval '10 minutes')$$),
  ($$SELECT * FROM tumble(timestamptz 'infinity', interval '10 minutes')$$),
  ($$SELECT * FROM tumble(timestamp '294276-12-31 23:59:00', interval '5 minutes')$$),
  ($$SELECT * FROM tumble(timestamp '2020-01-01', interval '2147483647 days')$$),
  ($$SELECT * FROM hop(timestamp '2020-01-01', interval '1 ms', interval '1 day')$$)) AS v(q);

-- Function properties: immutable, parallel safe, not strict
SELECT p.proname, pg_get_function_identity_arguments(p.oid) AS args,
       p.provolatile, p.proparallel, p.proisstrict, p.proretset
FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'windowjoin'
WHERE p.proname IN ('tumble', 'hop', 'cumulate', 'session')
ORDER BY 1, 2;

-- The functions are inlined: tumble is a plain scan, hop a lateral function
-- scan whose row estimate comes from the support function (size/slide)
CREATE TABLE bid_like (t timestamp);
EXPLAIN (COSTS OFF) SELECT * FROM bid_like, tumble(t, interval '1 minute') AS w;
EXPLAIN (COSTS OFF) SELECT * FROM bid_like, hop(t, interval '1 minute', interval '10 minutes') AS w;
SELECT (wj_test.explain_json($$SELECT * FROM hop(timestamp '2020-01-01', interval '1 minute', interval '10 minutes')$$) ->> 'Plan Rows')::float8 AS plan_rows;
SELECT (wj_test.explain_json($$SELECT * FROM hop(timestamp '2020-01-01', interval '4 minutes', interval '10 minutes')$$) ->> 'Plan Rows')::float8 AS plan_rows;
SELECT (wj_test.explain_json($$SELECT * FROM cumulate(timestamp '2020-01-01', interval '1 hour', interval '1 day')$$) ->> 'Plan Rows')::float8 AS plan_rows;
SELECT (wj_test.explain_json($$SELECT * FROM tumble(now()::timestamp, interval '1 hour')$$) ->> 'Plan Rows')::float8 AS plan_rows;
-- the same for the inner Function Scan of a join: 1000 rows x 10 windows
INSERT INTO bid_like SELECT timestamp '2020-01-01' + g * interval '1 second' FROM generate_series(1, 1000) g;
ANALYZE bid_like;
SELECT (wj_test.explain_json($$SELECT * FROM bid_like, hop(t, interval '1 minute', interval '10 minutes')$$) ->> 'Plan Rows')::float8 AS plan_rows;

RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA window_rules CASCADE;
