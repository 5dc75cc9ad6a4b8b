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

\set ECHO none
\i sql/include/asof_nearest_data.sql
\i sql/include/helpers.sql
\set ECHO all

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
-- 2. (Versions expected not to fit in work_mem: asof_nearest_merge.)
--

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
