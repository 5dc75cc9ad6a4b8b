--
-- AsOfJoin, nearest direction: ORDER BY v.t <-> o.t LIMIT 1 with
-- btree_gist's distance operator.  Every query runs with the node on and
-- off and must give the same rows; the data has no ties (no outer time
-- halfway between two versions of its key, one version per key and time)
-- except in the tie tests, which check the node's documented rule against
-- an explicit ORDER BY.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS btree_gist;
RESET client_min_messages;
SET TimeZone = 'UTC';

SET DateStyle = 'ISO, YMD';
CREATE SCHEMA asof_nearest;
SET search_path = asof_nearest, public;
SET enable_nestloop = off;
SET hash_mem_multiplier = 1;
SET work_mem = '4MB';

-- Versions at multiples of 4 minutes (per key no two at the same time),
-- with NULL keys, a NULL time in a key that has other versions, and keys
-- with a single version ('solo') or a single NULL-time version ('nulltime')
CREATE TABLE vers (k text, k2 int, t timestamp, tz timestamptz, d date,
                   i4 int4, i8 int8, i2 int2, v int, note text);
INSERT INTO vers
SELECT 'k' || (g % 30), g % 2,
       timestamp '2024-01-01' + g * interval '4 minutes',
       timestamptz '2024-01-01 00:00+00' + g * interval '4 minutes',
       date '2000-01-01' + 4 * g,
       4 * g, 4 * g::int8 - 40000, (4 * (g % 8000))::int2,
       g, CASE WHEN g % 7 = 0 THEN NULL ELSE 'n' || (g % 5) END
FROM generate_series(1, 1500) g;
INSERT INTO vers VALUES
  (NULL, 0, '2024-01-01 20:00', '2024-01-01 20:00+00', '2010-01-01', 100, 100, 100, -1, 'null key'),
  ('k1', 1, NULL, NULL, NULL, NULL, NULL, NULL, -2, 'null time'),
  ('solo', 0, '2024-01-02 00:00', '2024-01-02 00:00+00', '2001-01-01', 2000, 2000, 2000, -3, 'solo'),
  ('nulltime', 0, NULL, NULL, NULL, NULL, NULL, NULL, -4, 'only null');
-- Outer rows at odd minutes: never halfway between two versions; NULL
-- times only in keys with at most one version
CREATE TABLE obs (id int, k text, k2 int, t timestamp, tz timestamptz, d date,
                  i4 int4, i8 int8, i2 int2, amount int);
INSERT INTO obs
SELECT g, CASE WHEN g % 50 = 0 THEN NULL ELSE 'k' || (g * 7 % 33) END,
       g % 2,
       timestamp '2023-12-31 23:01' + ((g * 7919) % 6200) * interval '1 minute',
       timestamptz '2023-12-31 23:01+00' + ((g * 7919) % 6200) * interval '1 minute',
       date '1999-12-21' + (g * 7919) % 6200,
       (g * 7919) % 6200 - 19, (g * 7919) % 6200 - 40019, ((g * 7919) % 6200 - 19)::int2,
       g % 13
FROM generate_series(1, 400) g;
UPDATE obs SET d = d + 1 WHERE (d - date '2000-01-01') % 2 = 0;
INSERT INTO obs VALUES
  (1001, 'k1', 1, '2024-01-01 02:00', '2024-01-01 02:00+00', '2000-01-31', 120, -39880, 120, 1),
  (1002, 'solo', 0, NULL, NULL, NULL, NULL, NULL, NULL, 2),
  (1003, 'nulltime', 0, '2024-01-01 05:01', '2024-01-01 05:01+00', '2000-02-01', 7, 7, 7, 3),
  (1004, 'nulltime', 0, NULL, NULL, NULL, NULL, NULL, NULL, 4),
  (1005, 'solo', 0, '2030-01-01', '2030-01-01+00', '2030-01-01', 30001, 30001, 30001, 5);
ANALYZE vers;
ANALYZE obs;

\set ECHO none
\i sql/include/helpers.sql
\set ECHO all

-- The matrix: join forms, argument order, tolerance forms, keys 0/1/2,
-- a right-only filter, a LEFT join's filter, every time type
CREATE FUNCTION nn_matrix() RETURNS TABLE (variant text, result text)
LANGUAGE plpgsql AS $$
DECLARE
  d record;
  f record;
  sub text;
BEGIN
  FOR d IN
    SELECT * FROM (VALUES
      ('t', 'r.t <-> o.t', ''),
      ('t', 'o.t <-> r.t', ''),
      ('t', 'r.t <-> o.t', $x$AND r.t BETWEEN o.t - interval '30 minutes' AND o.t + interval '1 hour'$x$),
      ('t', 'r.t <-> o.t', $x$AND r.t >= o.t - interval '30 minutes' AND r.t < o.t + interval '1 hour'$x$),
      ('t', 'r.t <-> o.t', $x$AND o.t - interval '10 minutes' < r.t$x$),
      ('t', 'r.t <-> o.t', $x$AND r.t <= o.t + interval '10 minutes'$x$),
      ('t', 'r.t <-> o.t', $x$AND r.t BETWEEN o.t AND o.t + interval '1 day'$x$),
      ('t', 'r.t <-> o.t', $x$AND r.t BETWEEN o.t + interval '-1 hour' AND o.t - interval '-2 minutes'$x$),
      ('t', 'r.t <-> o.t', 'AND r.v % 5 <> 0'),
      ('tz', 'r.tz <-> o.tz', ''),
      ('tz', 'r.tz <-> o.tz', $x$AND r.tz BETWEEN o.tz - interval '1 day' AND o.tz + interval '5 minutes'$x$),
      ('d', 'r.d <-> o.d', ''),
      ('d', 'r.d <-> o.d', 'AND r.d BETWEEN o.d - 3 AND o.d + 30'),
      ('d', 'r.d <-> o.d', $x$AND r.d >= o.d - interval '2 days'$x$),
      ('i4', 'r.i4 <-> o.i4', ''),
      ('i4', 'r.i4 <-> o.i4', 'AND r.i4 BETWEEN o.i4 - 10 AND o.i4 + 2'),
      ('i8', 'o.i8 <-> r.i8', ''),
      ('i8', 'r.i8 <-> o.i8', 'AND r.i8 > o.i8 - 7'),
      ('i2', 'r.i2 <-> o.i2', '')) v(col, ord, extra)
  LOOP
    FOR f IN
      SELECT * FROM (VALUES
        ('left', 'LEFT JOIN LATERAL', 'ON true', 'r.k = o.k'),
        ('inner', 'JOIN LATERAL', 'ON true', 'r.k = o.k'),
        ('cross', 'CROSS JOIN LATERAL', '', 'r.k = o.k'),
        ('2 keys', 'LEFT JOIN LATERAL', 'ON true', 'r.k = o.k AND o.k2 = r.k2'),
        ('no key', 'LEFT JOIN LATERAL', 'ON true', 'true'),
        ('left filter', 'LEFT JOIN LATERAL', 'ON r.v > o.amount * 100', 'r.k = o.k')) j(name, jt, onc, keys)
    LOOP
      variant := d.ord || CASE WHEN d.extra <> '' THEN ' ' || d.extra ELSE '' END || ' / ' || f.name;
      result := wj_test.on_off(format($q$
SELECT o.id, r.v, r.note, r.%s AS rt
FROM obs o
%s (
  SELECT v, note, %s FROM vers r
  WHERE %s %s
  ORDER BY %s LIMIT 1) r %s
$q$, d.col, f.jt, d.col, f.keys, d.extra, d.ord, f.onc), 'asof_join', 'AsOfJoin|Strategy:');
      RETURN NEXT;
    END LOOP;
  END LOOP;
END $$;

--
-- 1. Plan shapes.  Hashable keys and versions that fit in work_mem: the
-- lookup strategy, no index needed
--
EXPLAIN (COSTS OFF)
SELECT o.id, r.v
FROM obs o
LEFT JOIN LATERAL (
  SELECT v FROM vers r
  WHERE r.k = o.k
  ORDER BY r.t <-> o.t LIMIT 1) r ON true;
EXPLAIN (COSTS OFF)
SELECT o.id, r.v
FROM obs o
JOIN LATERAL (
  SELECT v FROM vers r
  WHERE r.k = o.k AND r.t BETWEEN o.t - interval '1 hour' AND o.t + interval '2 hours'
    AND r.note IS NOT NULL
  ORDER BY o.t <-> r.t LIMIT 1) r ON true;
-- no key: the merge of both inputs sorted by time
EXPLAIN (COSTS OFF)
SELECT o.id, r.v
FROM obs o
CROSS JOIN LATERAL (
  SELECT v FROM vers r
  ORDER BY r.d <-> o.d LIMIT 1) r;
-- keys of different types (not hashable together): the merge
EXPLAIN (COSTS OFF)
SELECT o.id, r.v
FROM obs o
LEFT JOIN LATERAL (
  SELECT v FROM vers r
  WHERE r.k2 = o.i8
  ORDER BY r.i4 <-> o.i4 LIMIT 1) r ON true;
SELECT * FROM nn_matrix();

--
-- 2. Versions expected not to fit in work_mem: the lookup is not offered,
-- the merge sorts both inputs by (keys, time)
--
SET work_mem = '64kB';
EXPLAIN (COSTS OFF)
SELECT o.id, r.v
FROM obs o
LEFT JOIN LATERAL (
  SELECT v FROM vers r
  WHERE r.k = o.k AND r.k2 = o.k2
  ORDER BY r.t <-> o.t LIMIT 1) r ON true;
SELECT * FROM nn_matrix();
SET work_mem = '4MB';

--
-- 3. The lookup's run-time fallback: the planner expects 1% of the
-- versions to pass "f1 = 0 AND f2 = 0", 10% do; the versions exceed 64kB
-- and the node sorts the outer rows by (keys, time) and merges instead
--
CREATE TABLE vers_f AS
SELECT 'k' || (g % 30) AS k, g % 2 AS k2,
       timestamp '2024-01-01' + g * interval '4 minutes' AS t,
       g AS v, repeat('x', 20) || (g % 5) AS note,
       (g / 40) % 10 AS f1, (g / 40) % 10 AS f2
FROM generate_series(1, 30000) g;
ANALYZE vers_f;
SET work_mem = '64kB';
SELECT * FROM wj_test.explain_analyze($q$
SELECT o.id, r.v
FROM obs o
JOIN LATERAL (
  SELECT v FROM vers_f r
  WHERE r.k = o.k AND r.f1 = 0 AND r.f2 = 0
  ORDER BY r.t <-> o.t LIMIT 1) r ON true
$q$) l
WHERE l !~ 'actual rows=\d+ loops=2|Rows Removed';
SELECT wj_test.on_off($q$
SELECT o.id, r.v, r.note
FROM obs o
LEFT JOIN LATERAL (
  SELECT v, note FROM vers_f r
  WHERE r.k = o.k AND r.f1 = 0 AND r.f2 = 0
  ORDER BY r.t <-> o.t LIMIT 1) r ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:') AS fallback_left;
SELECT wj_test.on_off($q$
SELECT o.id, r.v, r.note
FROM obs o
JOIN LATERAL (
  SELECT v, note FROM vers_f r
  WHERE r.k = o.k AND r.k2 = o.k2 AND r.f1 = 0 AND r.f2 = 0
    AND r.t BETWEEN o.t - interval '1 hour' AND o.t + interval '15 minutes'
  ORDER BY r.t <-> o.t LIMIT 1) r ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:') AS fallback_inner_tolerance;
SET work_mem = '4MB';
SELECT * FROM wj_test.explain_analyze($q$
SELECT o.id, r.v
FROM obs o
JOIN LATERAL (
  SELECT v FROM vers_f r
  WHERE r.k = o.k AND r.f1 = 0 AND r.f2 = 0
  ORDER BY r.t <-> o.t LIMIT 1) r ON true
$q$) l
WHERE l !~ 'actual rows=\d+ loops=2|Rows Removed';

--
-- 4. A few rows, to read: NULL key, NULL times, a key with one version,
-- a key with only a NULL-time version, a key without versions
--
SELECT o.id, o.k, o.t, r.v, r.t AS version_time, r.note
FROM obs o
LEFT JOIN LATERAL (
  SELECT v, t, note FROM vers r
  WHERE r.k = o.k
  ORDER BY r.t <-> o.t LIMIT 1) r ON true
WHERE o.id IN (1, 2, 3, 50, 1001, 1002, 1003, 1004, 1005) OR o.k = 'k31'
ORDER BY o.id;
SELECT wj_test.on_off($q$
SELECT o.id, r.v, r.note
FROM obs o
LEFT JOIN LATERAL (
  SELECT v, note FROM vers r
  WHERE r.k = o.k
  ORDER BY r.t <-> o.t LIMIT 1) r ON true
WHERE o.id > 1000
$q$, 'asof_join', 'AsOfJoin|Strategy:') AS nulls_merge_few_rows;
SELECT wj_test.on_off($q$
SELECT o.id, r.v, r.note
FROM obs o
LEFT JOIN LATERAL (
  SELECT v, note FROM vers r
  WHERE r.k = o.k
  ORDER BY r.t <-> o.t LIMIT 1) r ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:') AS nulls_lookup;
SET work_mem = '64kB';
SELECT wj_test.on_off($q$
SELECT o.id, r.v, r.note
FROM obs o
LEFT JOIN LATERAL (
  SELECT v, note FROM vers r
  WHERE r.k = o.k
  ORDER BY r.t <-> o.t LIMIT 1) r ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:') AS nulls_merge;
SET work_mem = '4MB';
-- with a tolerance NULL times match nothing
SELECT wj_test.on_off($q$
SELECT o.id, r.v, r.note
FROM obs o
LEFT JOIN LATERAL (
  SELECT v, note FROM vers r
  WHERE r.k = o.k AND r.t <= o.t + interval '1 year'
  ORDER BY r.t <-> o.t LIMIT 1) r ON true
WHERE o.id > 1000
$q$, 'asof_join', 'AsOfJoin|Strategy:') AS nulls_tolerance;
-- empty inner side
SELECT wj_test.on_off($q$
SELECT o.id, r.v
FROM obs o
LEFT JOIN LATERAL (
  SELECT v FROM vers r
  WHERE r.k = o.k AND r.v < -100
  ORDER BY r.t <-> o.t LIMIT 1) r ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:') AS empty_inner;

--
-- 5. Ties: versions at the same time, and versions at the same distance
-- before and after.  The node takes the earlier version at equal
-- distance and, among versions at the same time, the one whose output row
-- sorts last; the explicit ORDER BY below says the same (PostgreSQL's
-- plan of the plain query may return any of the tied versions).
--
CREATE TABLE vers_tied (k text, ki int4, t timestamp, v int, note text);
INSERT INTO vers_tied VALUES
  ('a', 1, '2024-01-01 10:00', 1, 'before'),
  ('a', 1, '2024-01-01 10:20', 2, 'after'),
  ('a', 1, '2024-01-01 10:30', 3, 'x'),
  ('a', 1, '2024-01-01 10:30', 3, NULL),
  ('a', 1, '2024-01-01 10:30', 4, 'y'),
  ('a', 1, '2024-01-01 10:50', 5, 'p'),
  ('a', 1, '2024-01-01 10:50', 6, NULL),
  ('b', 2, '2024-01-01 09:00', 7, 'b1'),
  ('b', 2, '2024-01-01 09:00', 7, 'b2');
-- ki: a key of another type than the versions' (not hashable together)
CREATE TABLE obs_tied (id int, k text, ki int8, t timestamp);
INSERT INTO obs_tied VALUES
  (1, 'a', 1, '2024-01-01 10:10'),	-- halfway between 10:00 and 10:20
  (2, 'a', 1, '2024-01-01 10:25'),	-- halfway between 10:20 and the three at 10:30
  (3, 'a', 1, '2024-01-01 10:30'),	-- exactly at three versions
  (4, 'a', 1, '2024-01-01 10:40'),	-- halfway between 10:30 and 10:50
  (5, 'a', 1, '2024-01-01 10:45'),	-- closer to 10:50
  (6, 'a', 1, '2024-01-01 09:00'),	-- before everything
  (7, 'b', 2, '2024-01-01 12:00'),
  (8, 'a', 1, NULL);				-- every version at a NULL distance
ANALYZE vers_tied;
ANALYZE obs_tied;
CREATE FUNCTION nn_ties() RETURNS TABLE (strategy text, id int, v int, note text, rule_v int,
                                         rule_note text)
LANGUAGE plpgsql AS $$
DECLARE
  s record;
BEGIN
  FOR s IN SELECT * FROM (VALUES ('lookup', '4MB', 'r.k = o.k'), ('merge', '4MB', 'r.ki = o.ki')) x(name, wm, keys) LOOP
    PERFORM set_config('work_mem', s.wm, true);
    strategy := s.name;
    FOR id, v, note, rule_v, rule_note IN EXECUTE format($q$
      SELECT o.id, r.v, r.note, e.v, e.note
      FROM obs_tied o
      LEFT JOIN LATERAL (
        SELECT v, note FROM vers_tied r WHERE %s
        ORDER BY r.t <-> o.t LIMIT 1) r ON true
      LEFT JOIN LATERAL (
        SELECT v, note FROM vers_tied e WHERE e.k = o.k
        ORDER BY e.t <-> o.t, e.t, e.v DESC, e.note DESC NULLS FIRST LIMIT 1) e ON true
      ORDER BY o.id$q$, s.keys)
    LOOP
      RETURN NEXT;
    END LOOP;
  END LOOP;
  PERFORM set_config('work_mem', '4MB', true);
END $$;
SELECT * FROM nn_ties();
EXPLAIN (COSTS OFF)
SELECT o.id, r.v FROM obs_tied o
LEFT JOIN LATERAL (SELECT v FROM vers_tied r WHERE r.k = o.k
                   ORDER BY r.t <-> o.t LIMIT 1) r ON true;
EXPLAIN (COSTS OFF)
SELECT o.id, r.v FROM obs_tied o
LEFT JOIN LATERAL (SELECT v FROM vers_tied r WHERE r.ki = o.ki
                   ORDER BY r.t <-> o.t LIMIT 1) r ON true;

--
-- 6. Infinite timestamps: btree_gist puts them at the largest interval
-- from everything, so an infinite outer time is at the same distance from
-- every version (the node takes the earliest), and an infinite version is
-- farther than any finite one
--
CREATE TABLE vers_inf (k int, t timestamp, v int);
INSERT INTO vers_inf VALUES
  (1, '-infinity', 1), (1, '2024-01-01', 2), (1, '2024-02-01', 3), (1, 'infinity', 4),
  (2, 'infinity', 5),
  (3, '-infinity', 6);
CREATE TABLE obs_inf (id int, k int, t timestamp);
INSERT INTO obs_inf VALUES
  (1, 1, '2023-01-01'), (2, 1, '2024-01-10'), (3, 1, '2025-01-01'),
  (4, 1, 'infinity'), (5, 1, '-infinity'),
  (6, 2, '2024-01-01'), (7, 2, 'infinity'), (8, 3, 'infinity'), (9, 3, '2024-01-01');
ANALYZE vers_inf;
ANALYZE obs_inf;
SELECT o.id, o.t, r.v, r.t AS version_time, e.v AS rule_v
FROM obs_inf o
LEFT JOIN LATERAL (
  SELECT v, t FROM vers_inf r WHERE r.k = o.k
  ORDER BY r.t <-> o.t LIMIT 1) r ON true
LEFT JOIN LATERAL (
  SELECT v FROM vers_inf e WHERE e.k = o.k
  ORDER BY e.t <-> o.t, e.t LIMIT 1) e ON true
ORDER BY o.id;
-- finite outer times only, or keys with one version: the same as PostgreSQL
SELECT wj_test.on_off($q$
SELECT o.id, r.v
FROM obs_inf o
LEFT JOIN LATERAL (
  SELECT v FROM vers_inf r WHERE r.k = o.k
  ORDER BY r.t <-> o.t LIMIT 1) r ON true
WHERE o.id IN (1, 2, 3, 6, 7, 8, 9)
$q$, 'asof_join', 'AsOfJoin|Strategy:') AS infinite_versions;
-- with a tolerance an infinite outer time reaches only versions at that
-- same infinity
SELECT wj_test.on_off($q$
SELECT o.id, r.v
FROM obs_inf o
LEFT JOIN LATERAL (
  SELECT v FROM vers_inf r WHERE r.k = o.k
    AND r.t BETWEEN o.t - interval '1 year' AND o.t + interval '1 year'
  ORDER BY r.t <-> o.t LIMIT 1) r ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:') AS infinite_tolerance;
-- dates: btree_gist's distance to an infinite date is an error, raised
-- when a neighbour is infinite
INSERT INTO vers (k, d, v) VALUES ('infdate', 'infinity', -5);
SELECT o.id, r.v
FROM (VALUES (1, 'infdate', date '2024-01-01')) o(id, k, d)
LEFT JOIN LATERAL (
  SELECT v FROM vers r WHERE r.k = o.k
  ORDER BY r.d <-> o.d LIMIT 1) r ON true;
DELETE FROM vers WHERE k = 'infdate';
-- an integer distance out of range is an error too
SELECT o.id, r.v
FROM (VALUES (1, 'k1', -2147483000)) o(id, k, i4)
LEFT JOIN LATERAL (
  SELECT v FROM vers r WHERE r.k = o.k
  ORDER BY r.i4 <-> o.i4 LIMIT 1) r ON true;

--
-- 7. Rescans: inside a correlated subquery the node runs once per row of
-- the outer query (the lookup keeps its versions; the merge reads again;
-- sorts are disabled where the lookup is to be used, which needs none of
-- the outer rows)
--
SET enable_sort = off;
SELECT wj_test.on_off($q$
SELECT c.k,
       (SELECT sum(r.v) || '/' || count(r.v)
        FROM obs o
        LEFT JOIN LATERAL (
          SELECT v FROM vers r
          WHERE r.k = o.k
          ORDER BY r.t <-> o.t LIMIT 1) r ON true
        WHERE o.k >= c.k AND o.amount >= c.a) AS total
FROM (VALUES ('k1', 0), ('k2', 5), ('k31', 0), ('k3', 12), ('none', 0)) c(k, a)
$q$, 'asof_join', 'AsOfJoin|Strategy:') AS rescan_lookup;
RESET enable_sort;
SELECT wj_test.on_off($q$
SELECT c.k,
       (SELECT sum(r.v) || '/' || count(r.v)
        FROM obs o
        JOIN LATERAL (
          SELECT v FROM vers r
          WHERE r.d BETWEEN o.d - 20 AND o.d + 20
          ORDER BY o.d <-> r.d LIMIT 1) r ON true
        WHERE o.k = c.k AND o.amount >= c.a) AS total
FROM (VALUES ('k1', 0), ('k2', 5), ('k31', 0), ('k3', 12), ('none', 0)) c(k, a)
$q$, 'asof_join', 'AsOfJoin|Strategy:') AS rescan_merge;
SET work_mem = '64kB';
SET enable_sort = off;
SELECT wj_test.on_off($q$
SELECT c.k,
       (SELECT sum(r.v) || '/' || count(r.v)
        FROM obs o
        LEFT JOIN LATERAL (
          SELECT v FROM vers_f r
          WHERE r.k = o.k AND r.f1 = 0 AND r.f2 = 0
          ORDER BY r.t <-> o.t LIMIT 1) r ON true
        WHERE o.k >= c.k AND o.amount >= c.a) AS total

FROM (VALUES ('k1', 0), ('k2', 5), ('k3', 12)) c(k, a)
$q$, 'asof_join', 'AsOfJoin|Strategy:') AS rescan_fallback;
RESET enable_sort;

SET work_mem = '4MB';

CREATE FUNCTION fake_dist(int4, int4) RETURNS int4 LANGUAGE sql IMMUTABLE
  AS 'SELECT abs($1 - $2)';
CREATE OPERATOR asof_nearest.<-> (LEFTARG = int4, RIGHTARG = int4, FUNCTION = fake_dist);
SELECT variant, wj_test.on_off(format($q$
SELECT o.id, r.v
FROM obs o
LEFT JOIN LATERAL (
  SELECT v FROM vers r
  WHERE r.k = o.k %s
  ORDER BY %s LIMIT %s) r ON true
$q$, extra, ord, lim), 'asof_join', 'AsOfJoin|Strategy:') AS result
FROM (VALUES
  ('float8', '', 'r.i4::float8 <-> o.i4::float8', '1'),
  ('desc', '', 'r.t <-> o.t DESC', '1'),
  ('nulls first', '', 'r.t <-> o.t NULLS FIRST', '1'),
  ('window after', $x$AND r.t BETWEEN o.t + interval '1 hour' AND o.t + interval '2 hours'$x$,
   'r.t <-> o.t', '1'),
  ('window before', $x$AND r.t <= o.t - interval '1 hour'$x$, 'r.t <-> o.t', '1'),
  ('two sort keys', '', 'r.t <-> o.t, r.v', '1'),
  ('limit 2', '', 'r.t <-> o.t', '2'),
  ('other <->', '', 'r.i4 OPERATOR(asof_nearest.<->) o.i4', '1'),
  ('btree_gist <->', '', 'r.i4 OPERATOR(public.<->) o.i4', '1')) x(variant, extra, ord, lim);

RESET work_mem;
RESET hash_mem_multiplier;
RESET enable_nestloop;
RESET search_path;
DROP SCHEMA asof_nearest CASCADE;
