--
-- AsOfJoin strategies with hashable keys: the lookup strategy (versions
-- loaded into a hash table of per-key arrays, each outer row answered by
-- binary search in its scan order), the sweep (both inputs sorted by time),
-- and the lookup's run-time fallback to the sweep when the versions exceed
-- work_mem * hash_mem_multiplier.  Every query runs with the node on and
-- off and must give the same rows.
--
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
CREATE SCHEMA asof_lookup;
SET search_path = asof_lookup, public;
-- the node must win on these small tables so that it can be compared
SET enable_nestloop = off;
SET hash_mem_multiplier = 1;
SET work_mem = '4MB';

-- Versions: 40 keys, 3000 versions (no two of a key at the same time:
-- PostgreSQL's LIMIT 1 would pick any of them), NULL keys and times, and
-- NULL payloads
CREATE TABLE vers (k text, k2 int, t timestamp, v int, note text);
INSERT INTO vers
SELECT 'k' || (g % 40), g % 3,
       timestamp '2024-01-01' + (g / 3) * interval '1 minute',
       g, CASE WHEN g % 7 = 0 THEN NULL ELSE 'n' || (g % 5) END
FROM generate_series(1, 3000) g;
INSERT INTO vers VALUES
  (NULL, 0, '2024-01-01 05:00', -1, 'null key'),
  ('k1', 1, NULL, -2, 'null time');
CREATE INDEX ON vers (k, t);
-- Ties on (key, time), for the node's documented rule
CREATE TABLE vers_tied AS SELECT * FROM vers;
INSERT INTO vers_tied VALUES
  ('k1', 1, '2024-01-01 05:00', -3, 'tie a'),
  ('k1', 1, '2024-01-01 05:00', -4, 'tie b'),
  ('k1', 1, '2024-01-01 05:00', -4, NULL);
-- Outer rows: 600, in no particular order of time, with keys that have
-- no version, times before the first version, NULL keys and times
CREATE TABLE obs (id int, k text, k2 int, t timestamp, amount int);
INSERT INTO obs
SELECT g, CASE WHEN g % 50 = 0 THEN NULL ELSE 'k' || (g * 7 % 45) END,
       g % 3,
       CASE WHEN g % 61 = 0 THEN NULL
            ELSE timestamp '2023-12-31 23:00' + ((g * 7919) % 1100) * interval '1 minute' END,
       g % 13
FROM generate_series(1, 600) g;
INSERT INTO obs VALUES (1001, 'k1', 1, '2024-01-01 05:00', 1),
                       (1002, 'k1', 1, '2024-01-01 04:59:59', 2),
                       (1003, 'k1', 1, '2024-01-01 05:00:01', 3);
ANALYZE vers;
ANALYZE vers_tied;
ANALYZE obs;

\set ECHO none
\i sql/include/helpers.sql
\set ECHO all

-- The matrix: every direction and strictness, tolerances, a LEFT join's
-- filter, LEFT and INNER, two keys, a generic (numeric) and an int32
-- (date) time, against q's template
CREATE FUNCTION lk_matrix() RETURNS TABLE (variant text, result text)
LANGUAGE plpgsql AS $$
DECLARE
  d record;
BEGIN
  FOR d IN
    SELECT * FROM (VALUES
      ('<=', '', 'DESC', 'true'),
      ('<', '', 'DESC', 'true'),
      ('>=', '', 'ASC', 'true'),
      ('>', '', 'ASC', 'true'),
      ('<=', $x$AND r.t >= o.t - interval '20 minutes'$x$, 'DESC', 'true'),
      ('<', $x$AND r.t > o.t - interval '20 minutes'$x$, 'DESC', 'true'),
      ('>=', $x$AND r.t < o.t + interval '20 minutes'$x$, 'ASC', 'true'),
      ('>', $x$AND r.t <= o.t + interval '20 minutes'$x$, 'ASC', 'true'),
      ('<=', '', 'DESC', 'r.v % 2 = 0'),
      ('>=', '', 'ASC', 'o.amount > 5')) v(op, extra, dir, joinqual)
  LOOP
    variant := d.op || ' ' || d.dir
      || CASE WHEN d.extra <> '' THEN ' tolerance' ELSE '' END
      || CASE WHEN d.joinqual <> 'true' THEN ' ON ' || d.joinqual ELSE '' END;
    result := 'left:  ' || wj_test.on_off(format($q$
SELECT o.id, r.v, r.note, r.t
FROM obs o
LEFT JOIN LATERAL (
  SELECT v, note, t FROM vers r
  WHERE r.k = o.k AND r.t %s o.t %s
  ORDER BY r.t %s LIMIT 1) r ON %s
$q$, d.op, d.extra, d.dir, d.joinqual), 'asof_join', 'AsOfJoin|Strategy:');
    RETURN NEXT;
    IF d.joinqual = 'true' THEN
      result := 'inner: ' || wj_test.on_off(format($q$
SELECT o.id, r.v, r.note
FROM obs o
JOIN LATERAL (
  SELECT v, note FROM vers r
  WHERE r.k = o.k AND r.t %s o.t %s
  ORDER BY r.t %s LIMIT 1) r ON true
$q$, d.op, d.extra, d.dir), 'asof_join', 'AsOfJoin|Strategy:');
      RETURN NEXT;
    END IF;
  END LOOP;
  FOR d IN
    SELECT * FROM (VALUES ('<=', 'DESC'), ('<', 'DESC'), ('>=', 'ASC'), ('>', 'ASC')) v(op, dir)
  LOOP
    variant := d.op || ' ' || d.dir || ' two keys';
    result := 'left:  ' || wj_test.on_off(format($q$
SELECT o.id, r.v, r.note
FROM obs o
LEFT JOIN LATERAL (
  SELECT v, note FROM vers r
  WHERE r.k = o.k AND r.k2 = o.k2 AND r.t %s o.t
  ORDER BY r.t %s LIMIT 1) r ON true
$q$, d.op, d.dir), 'asof_join', 'AsOfJoin|Strategy:');
    RETURN NEXT;
    variant := d.op || ' ' || d.dir || ' numeric time';
    result := 'left:  ' || wj_test.on_off(format($q$
SELECT o.id, r.v, r.note
FROM obs o
LEFT JOIN LATERAL (
  SELECT v, note FROM vers r
  WHERE r.k = o.k AND extract(epoch FROM r.t) %s extract(epoch FROM o.t)
  ORDER BY extract(epoch FROM r.t) %s LIMIT 1) r ON true
$q$, d.op, d.dir), 'asof_join', 'AsOfJoin|Strategy:');
    RETURN NEXT;
    variant := d.op || ' ' || d.dir || ' date time';
    result := 'left:  ' || wj_test.on_off(format($q$
SELECT o.id, r.v, r.note
FROM obs o
LEFT JOIN LATERAL (
  SELECT v, note FROM vers r
  WHERE r.k = o.k AND (r.t + r.v * interval '1 day')::date %s o.t::date
  ORDER BY (r.t + r.v * interval '1 day')::date %s LIMIT 1) r ON true
$q$, d.op, d.dir), 'asof_join', 'AsOfJoin|Strategy:');
    RETURN NEXT;
  END LOOP;
END $$;

-- Ties: the version whose output row sorts last wins, whatever the
-- strategy (order 1001 at 05:00 gets v = -3 as -3 > -4; looking forward,
-- the NULL note sorts last)
CREATE FUNCTION lk_ties() RETURNS TABLE (strategy text, o_id int, r_v int, r_note text)
LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  FOR line IN SELECT l FROM wj_test.plan_lines($q$
    SELECT o.id, r.v, r.note FROM obs o
    LEFT JOIN LATERAL (
      SELECT r.v, r.note FROM vers_tied r
      WHERE r.k = o.k AND r.k2 = o.k2 AND r.t <= o.t
      ORDER BY r.t DESC LIMIT 1) r ON true$q$) l
  LOOP
    IF line LIKE '%Strategy:%' THEN
      strategy := btrim(line);
    END IF;
  END LOOP;
  RETURN QUERY
    SELECT 'backward ' || strategy, o.id, r.v, r.note FROM obs o
    LEFT JOIN LATERAL (
      SELECT r.v, r.note FROM vers_tied r
      WHERE r.k = o.k AND r.k2 = o.k2 AND r.t <= o.t
      ORDER BY r.t DESC LIMIT 1) r ON true
    WHERE o.id > 1000
    UNION ALL
    SELECT 'forward ' || strategy, o.id, r.v, r.note FROM obs o
    LEFT JOIN LATERAL (
      SELECT r.v, r.note FROM vers_tied r
      WHERE r.k = o.k AND r.k2 = o.k2 AND r.t >= o.t
      ORDER BY r.t LIMIT 1) r ON true
    WHERE o.id > 1000
    ORDER BY 1, 2;
END $$;

--
-- 1. The lookup strategy: the outer rows are not sorted
--
EXPLAIN (COSTS OFF)
SELECT o.id, r.v
FROM obs o
JOIN LATERAL (
  SELECT v FROM vers r
  WHERE r.k = o.k AND r.t <= o.t
  ORDER BY r.t DESC LIMIT 1) r ON true;
SELECT * FROM wj_test.explain_analyze($q$
SELECT o.id, r.v
FROM obs o
LEFT JOIN LATERAL (
  SELECT v FROM vers r
  WHERE r.k = o.k AND r.t >= o.t
  ORDER BY r.t LIMIT 1) r ON true
$q$);
SELECT * FROM lk_matrix();
SELECT * FROM lk_ties();
-- zero keys are not hashed: the merge strategy (the versions of one key,
-- so that no two have the same time)
SELECT wj_test.on_off($q$
SELECT o.id, r.v
FROM obs o
LEFT JOIN LATERAL (
  SELECT v FROM vers r WHERE r.t <= o.t AND r.k = 'k5'
  ORDER BY r.t DESC LIMIT 1) r ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:') AS zero_keys;

-- A cursor reads the rows in several fetches, across batches
BEGIN;
DECLARE c CURSOR FOR
SELECT o.id, r.v, r.t
FROM obs o
JOIN LATERAL (
  SELECT v, t FROM vers r
  WHERE r.k = o.k AND r.t <= o.t
  ORDER BY r.t DESC LIMIT 1) r ON true;
FETCH 3 FROM c;
MOVE FORWARD 200 FROM c;
FETCH 2 FROM c;
MOVE FORWARD ALL FROM c;
FETCH 1 FROM c;
CLOSE c;
COMMIT;
SELECT count(*), sum(r.v), min(o.id), max(o.id)
FROM obs o
JOIN LATERAL (
  SELECT v, t FROM vers r
  WHERE r.k = o.k AND r.t <= o.t
  ORDER BY r.t DESC LIMIT 1) r ON true;

-- Rescans: inside a correlated subquery the versions are loaded once
EXPLAIN (COSTS OFF)
SELECT c.k,
       (SELECT sum(r.v)
        FROM obs o
        JOIN LATERAL (
          SELECT v FROM vers r
          WHERE r.k = o.k AND r.t <= o.t
          ORDER BY r.t DESC LIMIT 1) r ON true
        WHERE o.k = c.k) AS total
FROM (VALUES ('k1'), ('k2'), ('k44'), ('none')) c(k);
SELECT wj_test.on_off($q$
SELECT c.k,
       (SELECT sum(r.v) || '/' || count(r.v)
        FROM obs o
        LEFT JOIN LATERAL (
          SELECT v FROM vers r
          WHERE r.k = o.k AND r.t >= o.t
          ORDER BY r.t LIMIT 1) r ON true
        WHERE o.k = c.k AND o.amount >= c.a) AS total
FROM (VALUES ('k1', 0), ('k2', 5), ('k44', 0), ('k3', 12), ('none', 0)) c(k, a)
$q$, 'asof_join', 'AsOfJoin|Strategy:') AS correlated;
-- with the lookup strategy the versions are loaded once (their Sort runs
-- once), the outer rows are read again per rescan
SELECT * FROM wj_test.explain_analyze($q$
SELECT c.a,
       (SELECT count(r.v)
        FROM obs o
        JOIN LATERAL (
          SELECT v FROM vers r
          WHERE r.k = o.k AND r.t <= o.t
          ORDER BY r.t DESC LIMIT 1) r ON true
        WHERE o.id <> c.a) AS n
FROM (VALUES (1), (2), (3)) c(a)
$q$);
SELECT wj_test.on_off($q$
SELECT c.a,
       (SELECT sum(r.v) || '/' || count(*)
        FROM obs o
        LEFT JOIN LATERAL (
          SELECT v FROM vers r
          WHERE r.k = o.k AND r.t <= o.t
          ORDER BY r.t DESC LIMIT 1) r ON true
        WHERE o.id % 100 <> c.a) AS n
FROM (VALUES (1), (2), (3), (12), (13)) c(a)
$q$, 'asof_join', 'AsOfJoin|Strategy:') AS correlated_lookup;

-- A few outer rows against an index: PostgreSQL keeps its nested loop
RESET enable_nestloop;
CREATE TABLE few AS SELECT * FROM obs WHERE id <= 5;
ANALYZE few;
SELECT wj_test.on_off($q$
SELECT o.id, r.v
FROM few o
JOIN LATERAL (
  SELECT v FROM vers r
  WHERE r.k = o.k AND r.t <= o.t
  ORDER BY r.t DESC LIMIT 1) r ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:') AS few_outer_rows;
SET enable_nestloop = off;

--
-- 2. When the versions are not expected to fit in work_mem (64kB here),
-- the lookup strategy is not offered: the sweep sorts both inputs by time
--
SET work_mem = '64kB';
EXPLAIN (COSTS OFF)
SELECT o.id, r.v
FROM obs o
JOIN LATERAL (
  SELECT v FROM vers r
  WHERE r.k = o.k AND r.t <= o.t
  ORDER BY r.t DESC LIMIT 1) r ON true;
SELECT * FROM lk_matrix();
SELECT * FROM lk_ties();
SELECT wj_test.on_off($q$
SELECT c.k,
       (SELECT sum(r.v) || '/' || count(r.v)
        FROM obs o
        LEFT JOIN LATERAL (
          SELECT v FROM vers r
          WHERE r.k = o.k AND r.t >= o.t
          ORDER BY r.t LIMIT 1) r ON true
        WHERE o.k = c.k AND o.amount >= c.a) AS total
FROM (VALUES ('k1', 0), ('k2', 5), ('k44', 0), ('k3', 12), ('none', 0)) c(k, a)
$q$, 'asof_join', 'AsOfJoin|Strategy:') AS correlated;

--
-- 3. The run-time fallback: the planner expects 1% of the versions to
-- pass "f1 = 0 AND f2 = 0" (it multiplies the two selectivities), 10% do.
-- The lookup is planned, the versions exceed 64kB, and the node forgets
-- them, sorts the outer rows by time and sweeps instead.
--
CREATE TABLE vers_f AS
SELECT 'k' || (g % 40) AS k, g % 3 AS k2,
       timestamp '2024-01-01' + (g / 30) * interval '1 minute' AS t,
       g AS v, repeat('x', 20) || (g % 5) AS note,
       (g / 40) % 10 AS f1, (g / 40) % 10 AS f2
FROM generate_series(1, 30000) g;
CREATE INDEX ON vers_f (k, t);
ANALYZE vers_f;
CREATE FUNCTION lk_fallback_matrix() RETURNS TABLE (variant text, result text)
LANGUAGE plpgsql AS $$
DECLARE
  d record;
BEGIN
  FOR d IN
    SELECT * FROM (VALUES
      ('<=', '', 'DESC'),
      ('<', '', 'DESC'),
      ('>=', '', 'ASC'),
      ('>', '', 'ASC'),
      ('<=', $x$AND r.t >= o.t - interval '20 minutes'$x$, 'DESC'),
      ('>=', $x$AND r.t < o.t + interval '20 minutes'$x$, 'ASC')) v(op, extra, dir)
  LOOP
    variant := d.op || ' ' || d.dir
      || CASE WHEN d.extra <> '' THEN ' tolerance' ELSE '' END;
    result := 'left:  ' || wj_test.on_off(format($q$
SELECT o.id, r.v, r.note
FROM obs o
LEFT JOIN LATERAL (
  SELECT v, note FROM vers_f r
  WHERE r.k = o.k AND r.t %s o.t %s AND r.f1 = 0 AND r.f2 = 0
  ORDER BY r.t %s LIMIT 1) r ON true
$q$, d.op, d.extra, d.dir), 'asof_join', 'AsOfJoin|Strategy:');
    RETURN NEXT;
    result := 'inner: ' || wj_test.on_off(format($q$
SELECT o.id, r.v, r.note
FROM obs o
JOIN LATERAL (
  SELECT v, note FROM vers_f r
  WHERE r.k = o.k AND r.t %s o.t %s AND r.f1 = 0 AND r.f2 = 0
  ORDER BY r.t %s LIMIT 1) r ON true
$q$, d.op, d.extra, d.dir), 'asof_join', 'AsOfJoin|Strategy:');
    RETURN NEXT;
  END LOOP;
END $$;
-- (how many versions the first load read depends on the memory
-- allocator: only the plan's shape and the fallback are shown)
SELECT * FROM wj_test.explain_analyze($q$
SELECT o.id, r.v
FROM obs o
JOIN LATERAL (
  SELECT v FROM vers_f r
  WHERE r.k = o.k AND r.t <= o.t AND r.f1 = 0 AND r.f2 = 0
  ORDER BY r.t DESC LIMIT 1) r ON true
$q$) AS line WHERE line !~ 'actual rows=\d+ loops=2|Rows Removed|Peak State';
SELECT * FROM lk_fallback_matrix();
-- the same versions fit in 4MB: no fallback
SET work_mem = '4MB';
SELECT * FROM wj_test.explain_analyze($q$
SELECT o.id, r.v
FROM obs o
JOIN LATERAL (
  SELECT v FROM vers_f r
  WHERE r.k = o.k AND r.t <= o.t AND r.f1 = 0 AND r.f2 = 0
  ORDER BY r.t DESC LIMIT 1) r ON true
$q$);
SET work_mem = '64kB';
-- rescans after a fallback load the versions again (and fall back again)
SELECT wj_test.on_off($q$
SELECT c.k,
       (SELECT sum(r.v) || '/' || count(r.v)
        FROM obs o
        LEFT JOIN LATERAL (
          SELECT v FROM vers_f r
          WHERE r.k = o.k AND r.t <= o.t AND r.f1 = 0 AND r.f2 = 0
          ORDER BY r.t DESC LIMIT 1) r ON true
        WHERE o.k = c.k AND o.amount >= c.a) AS total
FROM (VALUES ('k1', 0), ('k2', 5), ('k44', 0), ('k3', 12), ('none', 0)) c(k, a)
$q$, 'asof_join', 'AsOfJoin|Strategy:') AS correlated;
-- a cursor over the fallback
BEGIN;
DECLARE c CURSOR FOR
SELECT o.id, r.v
FROM obs o
JOIN LATERAL (
  SELECT v FROM vers_f r
  WHERE r.k = o.k AND r.t <= o.t AND r.f1 = 0 AND r.f2 = 0
  ORDER BY r.t DESC LIMIT 1) r ON true
ORDER BY o.id;
FETCH 3 FROM c;
MOVE FORWARD 100 FROM c;
FETCH 2 FROM c;
CLOSE c;
COMMIT;

-- Keys found by their images (asof_key_index.c) when every key's equality
-- is image equality, by their hash and equality functions otherwise: a
-- case-insensitive collation ('ABC' = 'abc'), numeric (1.0 = 1.00), an
-- int4 key against an int8 one (not hashed: merged), and a long text key stored compressed
-- that the outer rows compute.  Same rows with the node on and off.
CREATE COLLATION lk_ci (provider = icu, locale = 'und-u-ks-level2',
                        deterministic = false);
CREATE TABLE img_v (k text, kc text COLLATE lk_ci, kn numeric, k4 int4,
                    k8 int8, t int, v int);
INSERT INTO img_v
SELECT CASE g % 3 WHEN 0 THEN 'a' WHEN 1 THEN 'b' ELSE repeat('x', 5000) END,
       CASE g % 2 WHEN 0 THEN 'ABC' ELSE 'Def' END,
       (g % 3)::numeric(4,2), g % 3, g % 3, g, g
FROM generate_series(1, 300) g;
CREATE TABLE img_o (id int, k text, kc text COLLATE lk_ci, kn numeric,
                    k4 int4, t int);
INSERT INTO img_o
SELECT g, CASE g % 4 WHEN 0 THEN 'a' WHEN 1 THEN 'b' WHEN 2 THEN 'c'
                     ELSE repeat('x', 5000) END,
       CASE g % 3 WHEN 0 THEN 'abc' WHEN 1 THEN 'DEF' ELSE 'ghi' END,
       (g % 4)::numeric(4,1), g % 4, g * 7 % 320
FROM generate_series(1, 2000) g;
ANALYZE img_v, img_o;
-- the long key is stored compressed, the outer rows' is not
SELECT pg_column_compression(k) IS NOT NULL AS compressed, count(*)
FROM img_v WHERE length(k) = 5000 GROUP BY 1;
CREATE FUNCTION lk_key_image() RETURNS TABLE (key text, lookup text, result text)
LANGUAGE plpgsql AS $f$
DECLARE
	c record;
	q text;
BEGIN
	FOR c IN SELECT * FROM (VALUES ('text', 'r.k = o.k'),
	                               ('text, int', 'r.k = o.k AND r.k4 = o.k4'),
	                               ('case-insensitive', 'r.kc = o.kc'),
	                               ('numeric', 'r.kn = o.kn'),
	                               ('int8 = int4', 'r.k8 = o.k4')) v(key, cond) LOOP
		q := format($q$
SELECT o.id, r.v
FROM img_o o
LEFT JOIN LATERAL (
  SELECT v FROM img_v r WHERE %s AND r.t <= o.t
  ORDER BY r.t DESC LIMIT 1) r ON true
$q$, c.cond);
		key := c.key;
		SET LOCAL windowjoin.enable_asof_join = on;
		lookup := (SELECT string_agg(btrim(l), '; ')
				   FROM wj_test.explain(q, 'VERBOSE, COSTS OFF', 'Key Lookup|Strategy') l);
		result := wj_test.on_off(q, 'asof_join');
		RETURN NEXT;
	END LOOP;
END $f$;
SELECT * FROM lk_key_image();
-- the matches themselves: the long key, 'abc' = 'ABC', 1.0 = 1.00
SELECT o.id, length(o.k) AS klen, o.kc, o.kn, o.t,
       a.v AS by_k, b.v AS by_kc, b.kc AS r_kc, c.v AS by_kn, c.kn AS r_kn
FROM img_o o
LEFT JOIN LATERAL (
  SELECT v FROM img_v r WHERE r.k = o.k AND r.t <= o.t
  ORDER BY r.t DESC LIMIT 1) a ON true
LEFT JOIN LATERAL (
  SELECT v, kc FROM img_v r WHERE r.kc = o.kc AND r.t <= o.t
  ORDER BY r.t DESC LIMIT 1) b ON true
LEFT JOIN LATERAL (
  SELECT v, kn FROM img_v r WHERE r.kn = o.kn AND r.t <= o.t
  ORDER BY r.t DESC LIMIT 1) c ON true
WHERE o.id <= 8
ORDER BY o.id;

RESET work_mem;
RESET hash_mem_multiplier;
RESET enable_nestloop;
RESET search_path;
DROP SCHEMA asof_lookup CASCADE;
