--
-- AsOfJoin near the ends of the time range: a shifted outer time
-- (o.t + interval '1 hour') is out of range for some outer rows.
-- PostgreSQL's plan computes it only when comparing it with a version of
-- the outer row's keys, so it raises "timestamp out of range" exactly for
-- rows whose keys have versions (also versions with a NULL time), and
-- returns the other rows.  The node must do the same with every strategy:
-- the same rows, or the same error.  (The versions have no index: an
-- index scan would compute the bound for every outer row.)
--
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
CREATE SCHEMA asof_range;
SET search_path = asof_range, public;
SET enable_nestloop = off;
SET jit = off;
SET hash_mem_multiplier = 1;
SET client_min_messages = warning;

-- versions of keys 1..4 in 2024 and near the end of the range, key 5
-- only with a NULL time, key 6 only near the start of the range
CREATE TABLE ver (k int, kb bigint, t timestamp, tz timestamptz, n int8, m int4, v int);
INSERT INTO ver
SELECT g % 4 + 1, g % 4 + 1, timestamp '2024-01-01' + g * interval '1 minute',
       timestamptz '2024-01-01' + g * interval '1 minute', g, g, g
FROM generate_series(1, 2000) g;
INSERT INTO ver VALUES
  (1, 1, '294276-12-31 20:00', '294276-12-31 20:00+00', 9223372036854775000, 2147483000, 3001),
  (2, 2, '294276-12-01', '294276-12-01+00', 9223372036854770000, 2147480000, 3002),
  (5, 5, NULL, NULL, NULL, NULL, 3005),
  (6, 6, '4714-11-24 00:30 BC', '4714-11-24 00:30+00 BC', -9223372036854775000, -2147483000, 3006);
-- outer rows: ordinary ones, and ones whose shifted time is out of range
-- for keys without versions (7, NULL), with versions (1, 5), and
-- NULL times
CREATE TABLE obs (id int, k int, kb bigint, t timestamp, tz timestamptz, n int8, m int4);
INSERT INTO obs
SELECT g, g % 8, g % 8, timestamp '2024-01-01' + g * interval '7 minutes',
       timestamptz '2024-01-01' + g * interval '7 minutes', g * 7, g * 7
FROM generate_series(1, 60) g;
CREATE TABLE obs_end AS SELECT * FROM obs;
INSERT INTO obs_end VALUES
  (101, 7, 7, '294276-12-31 23:30', '294276-12-31 23:30+00', 9223372036854775800, 2147483640),
  (102, NULL, NULL, '294276-12-31 23:59', '294276-12-31 23:59+00', 9223372036854775807, 2147483647),
  (103, 3, 3, NULL, NULL, NULL, NULL),
  (104, 7, 7, '4714-11-24 00:10 BC', '4714-11-24 00:10+00 BC', -9223372036854775800, -2147483640);
CREATE TABLE obs_hit1 AS SELECT * FROM obs_end;
INSERT INTO obs_hit1 VALUES
  (201, 1, 1, '294276-12-31 23:30', '294276-12-31 23:30+00', 9223372036854775800, 2147483640);
CREATE TABLE obs_hit5 AS SELECT * FROM obs_end;
INSERT INTO obs_hit5 VALUES
  (205, 5, 5, '294276-12-31 23:30', '294276-12-31 23:30+00', 9223372036854775800, 2147483640);
CREATE TABLE obs_low6 AS SELECT * FROM obs_end;
INSERT INTO obs_low6 VALUES
  (206, 6, 6, '4714-11-24 00:10 BC', '4714-11-24 00:10+00 BC', -9223372036854775800, -2147483640);
-- fewer versions, where the lookup strategy wins
CREATE TABLE ver_small AS SELECT * FROM ver WHERE v <= 400 OR v > 2000;
ANALYZE ver;
ANALYZE ver_small;
ANALYZE obs;
ANALYZE obs_end;
ANALYZE obs_hit1;
ANALYZE obs_hit5;
ANALYZE obs_low6;

\set ECHO none
\i sql/include/helpers.sql
\set ECHO all

-- The matrix: outer tables x time shapes x direction x join type
CREATE FUNCTION r_matrix(vtab text, keys text) RETURNS TABLE (variant text, result text)
LANGUAGE plpgsql AS $$
DECLARE
  tab text;
  f record;
  j text;
BEGIN
  FOREACH tab IN ARRAY ARRAY['obs_end', 'obs_hit1', 'obs_hit5', 'obs_low6'] LOOP
    FOR f IN
      SELECT * FROM (VALUES
        ('t <= +1h', $x$r.t <= o.t + interval '1 hour'$x$, 'r.t DESC'),
        ('t < +1d', $x$r.t < o.t + interval '1 day'$x$, 'r.t DESC'),
        ('t >= +1h', $x$r.t >= o.t + interval '1 hour'$x$, 'r.t'),
        ('t <= -1h', $x$r.t <= o.t - interval '1 hour'$x$, 'r.t DESC'),
        ('t > -1h', $x$o.t - interval '1 hour' < r.t$x$, 'r.t'),
        ('tz <= +30min', $x$r.tz <= o.tz + interval '30 minutes'$x$, 'r.tz DESC'),
        ('tz >= -30min', $x$r.tz >= o.tz - interval '30 minutes'$x$, 'r.tz'),
        ('n <= +10', 'r.n <= o.n + 10', 'r.n DESC'),
        ('n >= -10', 'r.n >= o.n - 10', 'r.n'),
        ('m <= +10', 'r.m <= o.m + 10', 'r.m DESC'),
        ('t >= tolerance +1h', $x$r.t >= o.t AND r.t <= o.t + interval '1 hour'$x$, 'r.t'),
        ('t <= tolerance -1h', $x$r.t <= o.t AND r.t >= o.t - interval '1 hour'$x$, 'r.t DESC')) v(name, cond, ord)
    LOOP
      FOREACH j IN ARRAY ARRAY['LEFT', 'INNER'] LOOP
        variant := tab || ' ' || f.name || ' ' || lower(j);
        result := wj_test.on_off(format($q$
SELECT o.id, r.v
FROM %s o
%s JOIN LATERAL (
  SELECT v FROM %s r
  WHERE %s AND %s
  ORDER BY %s LIMIT 1) r ON true
$q$, tab, j, vtab, keys, f.cond, f.ord), 'asof_join', 'AsOfJoin|Strategy:');
        RETURN NEXT;
      END LOOP;
    END LOOP;
  END LOOP;
END $$;

-- the versions fit: lookup
SET work_mem = '4MB';
SELECT * FROM r_matrix('ver_small', 'r.k = o.k');
-- they do not: sweep
SET work_mem = '64kB';
SELECT * FROM r_matrix('ver', 'r.k = o.k');
-- cross-type keys: merge
SELECT * FROM r_matrix('ver', 'r.kb = o.k');
RESET work_mem;

-- no keys (merge): with versions every out-of-range row raises the
-- error, without any (a filter removes them all) none does
SELECT wj_test.on_off($q$
SELECT o.id, r.v FROM obs_end o
LEFT JOIN LATERAL (SELECT v FROM ver r WHERE r.t <= o.t + interval '1 hour'
                   ORDER BY r.t DESC LIMIT 1) r ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:') AS no_keys;
SELECT wj_test.on_off($q$
SELECT o.id, r.v FROM obs_end o
LEFT JOIN LATERAL (SELECT v FROM ver r WHERE r.t <= o.t + interval '1 hour' AND r.v < 0
                   ORDER BY r.t DESC LIMIT 1) r ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:') AS no_keys_no_versions;
-- PostgreSQL compares the shifted time before a key that costs more (a
-- cast) or comes from an equality written after it: the versions it
-- computes the time for are not the node's, so the node leaves such a
-- query to PostgreSQL when the shifted time can fail; a plain time is fine
SELECT wj_test.on_off($q$
SELECT o.id, r.v FROM obs_hit1 o
LEFT JOIN LATERAL (SELECT v FROM ver r WHERE r.k::numeric = o.k::numeric AND r.t <= o.t + interval '1 hour'
                   ORDER BY r.t DESC LIMIT 1) r ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:') AS costly_key;
SELECT wj_test.on_off($q$
SELECT o.id, r.v FROM obs_hit1 o
LEFT JOIN LATERAL (SELECT v FROM ver r WHERE r.k::numeric = o.k::numeric AND r.t <= o.t
                   ORDER BY r.t DESC LIMIT 1) r ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:') AS costly_key_plain_time;
SELECT wj_test.on_off($q$
SELECT o.id, r.v FROM obs_end o
LEFT JOIN LATERAL (SELECT v FROM ver r WHERE r.k = o.k AND r.t >= o.t - interval '1 hour'
                   AND r.t <= o.t ORDER BY r.t DESC LIMIT 1) r ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:') AS tolerance_first;
SELECT wj_test.on_off($q$
SELECT o.id, r.v FROM obs_end o
LEFT JOIN LATERAL (SELECT v FROM ver r WHERE r.k = o.k AND r.t <= o.t + interval '1 hour'
                   AND r.v % 7 <> 0 ORDER BY r.t DESC LIMIT 1) r ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:') AS filter_after_time;
-- a shifted time near the end, rows as they come
SELECT o.id, r.v, r.t FROM obs_end o
LEFT JOIN LATERAL (SELECT v, t FROM ver r WHERE r.k = o.k AND r.t <= o.t + interval '1 hour'
                   ORDER BY r.t DESC LIMIT 1) r ON true
WHERE o.id > 100 ORDER BY o.id;
-- and the error, with the node
SELECT o.id, r.v FROM obs_hit1 o
LEFT JOIN LATERAL (SELECT v FROM ver r WHERE r.k = o.k AND r.t <= o.t + interval '1 hour'
                   ORDER BY r.t DESC LIMIT 1) r ON true;

-- An outer time that can fail and is not a recognised shift (months, a
-- timestamptz plus days): the merge, the sweep and the lookup's fallback
-- would compute it for every outer row, so the node is not offered.
-- Rows without versions near the end are returned, as PostgreSQL does.
SELECT wj_test.on_off($q$
SELECT o.id, r.v FROM obs_end o
LEFT JOIN LATERAL (SELECT v FROM ver r WHERE r.k = o.k AND r.t <= o.t + interval '1 month'
                   ORDER BY r.t DESC LIMIT 1) r ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:') AS month_shift_end;
SELECT wj_test.on_off($q$
SELECT o.id, r.v FROM obs_hit1 o
LEFT JOIN LATERAL (SELECT v FROM ver r WHERE r.k = o.k AND r.t <= o.t + interval '1 month'
                   ORDER BY r.t DESC LIMIT 1) r ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:') AS month_shift_hit;
SELECT wj_test.on_off($q$
SELECT o.id, r.v FROM obs_end o
JOIN LATERAL (SELECT v FROM ver_small r WHERE r.k = o.k AND r.t >= o.t - interval '1 mon'
              ORDER BY r.t LIMIT 1) r ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:') AS month_shift_forward_small;
SELECT wj_test.on_off($q$
SELECT o.id, r.v FROM obs_end o
LEFT JOIN LATERAL (SELECT v FROM ver r WHERE r.k = o.k AND r.tz <= o.tz + interval '1 day'
                   ORDER BY r.tz DESC LIMIT 1) r ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:') AS tz_day_end;
SELECT wj_test.on_off($q$
SELECT o.id, r.v FROM obs_end o
LEFT JOIN LATERAL (SELECT v FROM ver_small r WHERE r.k = o.k
                   AND r.tz <= o.tz + interval '1 day'
                   ORDER BY r.tz DESC LIMIT 1) r ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:') AS tz_day_end_small;
-- a month shift of a plain column, rows as they come (node off and on)
SET windowjoin.enable_asof_join = off;
SELECT o.id, r.v FROM obs_end o
LEFT JOIN LATERAL (SELECT v FROM ver r WHERE r.k = o.k AND r.t <= o.t + interval '1 month'
                   ORDER BY r.t DESC LIMIT 1) r ON true
WHERE o.id > 100 ORDER BY o.id;
RESET windowjoin.enable_asof_join;
SELECT o.id, r.v FROM obs_end o
LEFT JOIN LATERAL (SELECT v FROM ver r WHERE r.k = o.k AND r.t <= o.t + interval '1 month'
                   ORDER BY r.t DESC LIMIT 1) r ON true
WHERE o.id > 100 ORDER BY o.id;
EXPLAIN (COSTS OFF)
SELECT o.id, r.v FROM obs_end o
LEFT JOIN LATERAL (SELECT v FROM ver r WHERE r.k = o.k AND r.t <= o.t + interval '1 month'
                   ORDER BY r.t DESC LIMIT 1) r ON true;
EXPLAIN (COSTS OFF)
SELECT o.id, r.v FROM obs_end o
LEFT JOIN LATERAL (SELECT v FROM ver r WHERE r.k = o.k AND r.tz <= o.tz + interval '1 day'
                   ORDER BY r.tz DESC LIMIT 1) r ON true;
-- a shift of a shift: its base can fail, not offered either
EXPLAIN (COSTS OFF)
SELECT o.id, r.v FROM obs_end o
LEFT JOIN LATERAL (SELECT v FROM ver r WHERE r.k = o.k
                   AND r.t <= (o.t + interval '1 month') + interval '1 hour'
                   ORDER BY r.t DESC LIMIT 1) r ON true;
-- a month tolerance of a plain time: computed only for the match, so the
-- node is used and gives PostgreSQL's rows (and errors)
SELECT wj_test.on_off($q$
SELECT o.id, r.v FROM obs_end o
LEFT JOIN LATERAL (SELECT v FROM ver r WHERE r.k = o.k AND r.t <= o.t
                   AND r.t >= o.t - interval '1 month' ORDER BY r.t DESC LIMIT 1) r ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:') AS month_tolerance_end;
SELECT wj_test.on_off($q$
SELECT o.id, r.v FROM obs_low6 o
LEFT JOIN LATERAL (SELECT v FROM ver r WHERE r.k = o.k AND r.t >= o.t
                   AND r.t <= o.t + interval '1 month' ORDER BY r.t LIMIT 1) r ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:') AS month_tolerance_forward_end;
EXPLAIN (COSTS OFF)
SELECT o.id, r.v FROM obs_end o
LEFT JOIN LATERAL (SELECT v FROM ver r WHERE r.k = o.k AND r.t <= o.t
                   AND r.t >= o.t - interval '1 month' ORDER BY r.t DESC LIMIT 1) r ON true;
-- nearest: a month tolerance around a plain time is used; a month shift
-- of the outer time in the distance is not
CREATE EXTENSION IF NOT EXISTS btree_gist SCHEMA public;
SELECT wj_test.on_off($q$
SELECT o.id, r.v FROM obs_end o
LEFT JOIN LATERAL (SELECT v FROM ver r WHERE r.k = o.k
                   AND r.t >= o.t - interval '1 month' AND r.t <= o.t + interval '1 month'
                   ORDER BY r.t <-> o.t LIMIT 1) r ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:') AS nearest_month_tolerance_end;
SELECT wj_test.on_off($q$
SELECT o.id, r.v FROM obs_hit1 o
LEFT JOIN LATERAL (SELECT v FROM ver r WHERE r.k = o.k
                   AND r.t >= o.t - interval '1 month' AND r.t <= o.t + interval '1 month'
                   ORDER BY r.t <-> o.t LIMIT 1) r ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:') AS nearest_month_tolerance_hit;
SELECT wj_test.on_off($q$
SELECT o.id, r.v FROM obs_end o
LEFT JOIN LATERAL (SELECT v FROM ver r WHERE r.k = o.k
                   ORDER BY r.t <-> (o.t + interval '1 month') LIMIT 1) r ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:') AS nearest_month_shift_end;
EXPLAIN (COSTS OFF)
SELECT o.id, r.v FROM obs_end o
LEFT JOIN LATERAL (SELECT v FROM ver r WHERE r.k = o.k
                   AND r.t >= o.t - interval '1 month' AND r.t <= o.t + interval '1 month'
                   ORDER BY r.t <-> o.t LIMIT 1) r ON true;
EXPLAIN (COSTS OFF)
SELECT o.id, r.v FROM obs_end o
LEFT JOIN LATERAL (SELECT v FROM ver r WHERE r.k = o.k
                   ORDER BY r.t <-> (o.t + interval '1 month') LIMIT 1) r ON true;

RESET hash_mem_multiplier;
RESET enable_nestloop;
RESET jit;
RESET client_min_messages;
RESET search_path;
DROP SCHEMA asof_range CASCADE;
