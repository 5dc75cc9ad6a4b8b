--
-- Randomized cross-check: for thousands of generated timestamps and window
-- specs, tumble/hop/cumulate agree with an independent formulation in plain
-- SQL arithmetic on microseconds since the Unix epoch (numeric, floor()).
-- Every query returns the number of disagreements, which must be 0.
--
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
SET IntervalStyle = 'postgres';
\set ECHO none
\i sql/include/helpers.sql
\set ECHO all

CREATE SCHEMA window_crosscheck;
SET search_path = window_crosscheck, public;
SELECT setseed(0.42);

-- times spread over 1900..2100 with microseconds, a tenth before 1970
CREATE TEMP TABLE ts AS
SELECT g AS id,
       timestamp '1970-01-01' + (((random() - 0.15) * 200 * 365.25 * 86400 * 1e6)::bigint) * interval '1 microsecond' AS t
FROM generate_series(1, 3000) g;

-- window specs in microseconds: size, slide/step, offset (some negative or
-- longer than the size); slides that do and do not divide the size
CREATE TEMP TABLE spec AS
SELECT s AS sid, size_us, slide_us, offset_us
FROM (VALUES
  (1, 600000000::numeric,   60000000::numeric,        0::numeric),
  (2, 600000000,            180000000,        -960000000),
  (3, 86400000000,          3600000000,        3600000000),
  (4, 1000,                 1000,                    -1),
  (5, 7000000,              2000000,            123456789),
  (6, 120000000,            300000000,           17000000),
  (7, 90061001000,          3000000000,      -90061001001)) AS v(s, size_us, slide_us, offset_us);

CREATE FUNCTION us(t timestamp) RETURNS numeric IMMUTABLE LANGUAGE sql
AS $$ SELECT extract(epoch FROM t) * 1000000 $$;
CREATE FUNCTION iv(us numeric) RETURNS interval IMMUTABLE LANGUAGE sql
AS $$ SELECT make_interval(secs => us / 1000000) $$;

-- TUMBLE: start = floor((t - offset) / size) * size + offset
SELECT count(*) AS tumble_mismatches
FROM ts, spec,
     LATERAL tumble(t, iv(size_us), iv(offset_us)) AS w
WHERE us(w.window_start) <> floor((us(t) - offset_us) / size_us) * size_us + offset_us
   OR us(w.window_end) <> us(w.window_start) + size_us
   OR us(w.window_time) <> us(w.window_end) - 1000;
SELECT count(*) AS tumble_rows FROM ts, spec, LATERAL tumble(t, iv(size_us), iv(offset_us));

-- HOP: starts k*slide + offset with start <= t < start + size
CREATE TEMP TABLE hop_expected AS
SELECT id, sid, k * slide_us + offset_us AS start_us
FROM ts, spec,
     LATERAL generate_series(floor((us(t) - offset_us - size_us) / slide_us) + 1,
                             floor((us(t) - offset_us) / slide_us)) AS k
WHERE sid <> 4;		-- spec 4 is checked for tumble only (1 ms windows)
CREATE TEMP TABLE hop_actual AS
SELECT id, sid, us(w.window_start) AS start_us, us(w.window_end) - us(w.window_start) AS len,
       us(w.window_end) - us(w.window_time) AS wt
FROM ts, spec, LATERAL hop(t, iv(slide_us), iv(size_us), iv(offset_us)) AS w
WHERE sid <> 4;
SELECT (SELECT count(*) FROM hop_expected) AS hop_rows,
       (SELECT count(*) FROM (SELECT id, sid, start_us FROM hop_expected
                              EXCEPT ALL SELECT id, sid, start_us FROM hop_actual) a) AS missing,
       (SELECT count(*) FROM (SELECT id, sid, start_us FROM hop_actual
                              EXCEPT ALL SELECT id, sid, start_us FROM hop_expected) b) AS extra,
       (SELECT count(*) FROM hop_actual a JOIN spec USING (sid)
         WHERE a.len <> spec.size_us OR a.wt <> 1000) AS bad_bounds;

-- HOP agrees with the generate_series/date_bin idiom users write today
-- (slide divides size, offset 0, times after the epoch)
SELECT count(*) AS hop_vs_date_bin_mismatches FROM (
  (SELECT id, window_start FROM ts, hop(t, interval '1 minute', interval '10 minutes')
   WHERE t >= '1970-01-01'
   EXCEPT ALL
   SELECT id, ws FROM ts, generate_series(date_bin('1 minute', t, timestamp '1970-01-01') - interval '9 minutes',
                                         date_bin('1 minute', t, timestamp '1970-01-01'), interval '1 minute') AS ws
   WHERE t >= '1970-01-01')
  UNION ALL
  (SELECT id, ws FROM ts, generate_series(date_bin('1 minute', t, timestamp '1970-01-01') - interval '9 minutes',
                                         date_bin('1 minute', t, timestamp '1970-01-01'), interval '1 minute') AS ws
   WHERE t >= '1970-01-01'
   EXCEPT ALL
   SELECT id, window_start FROM ts, hop(t, interval '1 minute', interval '10 minutes')
   WHERE t >= '1970-01-01')) d;

-- CUMULATE: common size-aligned start S, ends S + j*step > t
CREATE TEMP TABLE cum_spec AS
SELECT * FROM (VALUES (1, 600000000::numeric, 120000000::numeric, 0::numeric),
                      (2, 86400000000, 3600000000, -3600000000),
                      (3, 3000, 1000, 1500)) AS v(cid, size_us, step_us, offset_us);
CREATE TEMP TABLE cum_expected AS
SELECT id, cid, s_us, s_us + j * step_us AS end_us
FROM ts, cum_spec,
     LATERAL (SELECT floor((us(t) - offset_us) / size_us) * size_us + offset_us AS s_us) s,
     LATERAL generate_series(floor((us(t) - s_us) / step_us) + 1, size_us / step_us) AS j;
CREATE TEMP TABLE cum_actual AS
SELECT id, cid, us(w.window_start) AS s_us, us(w.window_end) AS end_us
FROM ts, cum_spec, LATERAL cumulate(t, iv(step_us), iv(size_us), iv(offset_us)) AS w;
SELECT (SELECT count(*) FROM cum_expected) AS cumulate_rows,
       (SELECT count(*) FROM (SELECT * FROM cum_expected EXCEPT ALL SELECT * FROM cum_actual) a) AS missing,
       (SELECT count(*) FROM (SELECT * FROM cum_actual EXCEPT ALL SELECT * FROM cum_expected) b) AS extra;

-- TUMBLE agrees with date_bin (which floors only after its origin here)
SELECT count(*) AS tumble_vs_date_bin_mismatches
FROM ts, tumble(t, interval '15 minutes', interval '5 minutes') AS w
WHERE t >= '1970-01-01'
  AND w.window_start <> date_bin('15 minutes', t, timestamp '1970-01-01 00:05');

RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA window_crosscheck CASCADE;
