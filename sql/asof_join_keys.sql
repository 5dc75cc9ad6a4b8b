--
-- AsOfJoin keys that share a column: two (or more) outer expressions
-- compared with the same version column (r.a = o.x AND r.a = o.y) are
-- separate keys; a version matches only when every one of them is equal.
-- Every strategy (lookup, sweep, merge), direction, join type, operand
-- order and expression key runs with the node on and off and must give
-- the same rows.
--
CREATE SCHEMA asof_keys;
SET search_path = asof_keys, public;
-- the node must win on these small tables so that it can be compared
SET enable_nestloop = off;
SET jit = off;
SET hash_mem_multiplier = 1;

-- versions: no two of one (a, b) at the same time (t is unique)
CREATE TABLE v2k (a int, b int, t int, v int);
INSERT INTO v2k SELECT g % 4, (g / 4) % 4, g, g FROM generate_series(1, 2000) g;
INSERT INTO v2k VALUES (NULL, 1, 2001, -1), (1, NULL, 2002, -2), (2, 2, NULL, -3);
-- (PostgreSQL's plan, the nested loop, finds versions by index)
CREATE INDEX ON v2k (a, t);
CREATE INDEX ON v2k (a, b, t);
-- outer rows: x = y for a quarter of them, NULLs, bigint copies of the
-- keys (a cross-type key is never hashed: the merge strategy)
CREATE TABLE o2k (id int, x int, y int, z int, t int, xb bigint, yb bigint);
INSERT INTO o2k
SELECT g, g % 4, (g / 3) % 4, (g / 5) % 4, (g * 0.7)::int, g % 4, (g / 3) % 4
FROM generate_series(1, 3000) g;
INSERT INTO o2k VALUES (3001, NULL, 1, 1, 500, NULL, 1),
                       (3002, 1, NULL, 1, 500, 1, NULL),
                       (3003, 2, 2, 2, NULL, 2, 2);
ANALYZE v2k;
ANALYZE o2k;

\set ECHO none
\i sql/include/helpers.sql
\set ECHO all

-- The matrix: key shapes x direction x join type, against one strategy
CREATE FUNCTION k_matrix() RETURNS TABLE (variant text, result text)
LANGUAGE plpgsql AS $$
DECLARE
  k record;
  d record;
  j text;
BEGIN
  FOR k IN
    SELECT * FROM (VALUES
      ('same column', 'r.a = o.x AND r.a = o.y'),
      ('swapped', 'o.x = r.a AND r.a = o.y'),
      ('both swapped', 'o.y = r.a AND o.x = r.a'),
      ('expression', 'r.a + 1 = o.x + 1 AND (r.a + 1) = o.y + 1'),
      ('three on one', 'r.a = o.x AND r.a = o.y AND r.a = o.z'),
      ('two on one, one other', 'r.a = o.x AND r.b = o.z AND r.a = o.y'),
      ('one outer, two columns', 'r.a = o.x AND r.b = o.x'),
      ('cross-type', 'r.a = o.xb AND r.a = o.yb'),
      ('cross-type, mixed', 'r.a = o.xb AND r.a = o.y')) v(name, keys)
  LOOP
    FOR d IN
      SELECT * FROM (VALUES ('<=', 'DESC'), ('<', 'DESC'), ('>=', 'ASC'),
                            ('>', 'ASC')) v(op, dir)
    LOOP
      FOREACH j IN ARRAY ARRAY['LEFT', 'INNER'] LOOP
        variant := k.name || ': ' || d.op || ' ' || lower(j);
        result := wj_test.on_off(format($q$
SELECT o.id, r.v, r.t
FROM o2k o
%s JOIN LATERAL (
  SELECT v, t FROM v2k r
  WHERE %s AND r.t %s o.t
  ORDER BY r.t %s LIMIT 1) r ON true
$q$, j, k.keys, d.op, d.dir), 'asof_join', 'AsOfJoin|Strategy:');
        RETURN NEXT;
      END LOOP;
    END LOOP;
  END LOOP;
  -- a tolerance bound and a LEFT join's filter with shared-column keys
  variant := 'same column: tolerance';
  result := wj_test.on_off($q$
SELECT o.id, r.v
FROM o2k o
LEFT JOIN LATERAL (
  SELECT v FROM v2k r
  WHERE r.a = o.x AND r.a = o.y AND r.t <= o.t AND r.t > o.t - 30
  ORDER BY r.t DESC LIMIT 1) r ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:');
  RETURN NEXT;
  variant := 'same column: join filter';
  result := wj_test.on_off($q$
SELECT o.id, r.v
FROM o2k o
LEFT JOIN LATERAL (
  SELECT v FROM v2k r
  WHERE r.a = o.x AND r.a = o.y AND r.t >= o.t
  ORDER BY r.t LIMIT 1) r ON r.v % 3 <> 0
$q$, 'asof_join', 'AsOfJoin|Strategy:');
  RETURN NEXT;
END $$;

-- two keys on one version column: 1000 versions found (both keys equal), not 2998
SELECT count(v.v) FROM o2k o LEFT JOIN LATERAL
  (SELECT v FROM v2k v WHERE v.a = o.x AND v.a = o.y AND v.t <= o.t
   ORDER BY v.t DESC LIMIT 1) v ON true;
EXPLAIN (COSTS OFF)
SELECT count(v.v) FROM o2k o LEFT JOIN LATERAL
  (SELECT v FROM v2k v WHERE v.a = o.x AND v.a = o.y AND v.t <= o.t
   ORDER BY v.t DESC LIMIT 1) v ON true;

-- 1. the versions fit in work_mem: lookup (merge for cross-type keys)
SET work_mem = '4MB';
SELECT * FROM k_matrix();
-- 2. they do not: sweep (merge for cross-type keys)
SET work_mem = '64kB';
SELECT * FROM k_matrix();

RESET work_mem;
RESET hash_mem_multiplier;
RESET enable_nestloop;
RESET jit;
RESET search_path;
DROP SCHEMA asof_keys CASCADE;
