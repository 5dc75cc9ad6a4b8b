--
-- SessionSort / SessionWindow past work_mem: the rows are split into
-- key-range batches on disk, each batch sorted in memory, the batches read
-- back in key order; a batch of one partition that does not fit goes to a
-- tuplesort.  With work_mem at its minimum (64kB) on small tables, every
-- query must give the rows of PostgreSQL's plan (node off), in the same
-- (partition keys, time) order.  At 64kB the planner prefers Sort, so the
-- runs with the node on set enable_sort off.
--
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
SET IntervalStyle = 'postgres';
CREATE SCHEMA session_spill;
SET search_path = session_spill, public;
SET max_parallel_workers_per_gather = 0;
SELECT setseed(0.3);

-- many partitions (3,000 values of k), times on whole seconds so that many
-- are equal, NULL keys and NULL times
CREATE TABLE many AS
SELECT timestamp '2024-01-01' + (random() * 86400)::int * interval '1 second' AS t,
       (random() * 100)::numeric(10,2) AS v,
       (random() * 2999)::int AS k,
       md5(i::text) AS note
FROM generate_series(1, 30000) i;
INSERT INTO many SELECT NULL, 1, k, 'null time' FROM generate_series(1, 40) k;
INSERT INTO many SELECT timestamp '2024-01-01 12:00' + i * interval '1 minute', 2, NULL, 'null key'
FROM generate_series(1, 300) i;
INSERT INTO many SELECT NULL, 3, NULL, 'null both' FROM generate_series(1, 5);
-- equal times in one partition
INSERT INTO many SELECT '2024-01-01 06:00', i, 7, 'same time' FROM generate_series(1, 50) i;

-- one hot partition with most rows, a few cold ones
CREATE TABLE skew AS
SELECT timestamp '2024-01-01' + (random() * 86400 * 1e6)::bigint * interval '1 microsecond' AS t,
       (random() * 100)::numeric(10,2) AS v,
       CASE WHEN i % 10 < 8 THEN 42 ELSE (random() * 200)::int END AS k,
       md5(i::text) AS note
FROM generate_series(1, 20000) i;

-- two keys, text and numeric; numeric keys equal but written differently
-- (1.0, 1.00) share a partition, and each row keeps its own
CREATE TABLE multi AS
SELECT timestamp '2024-01-01' + (random() * 3600)::int * interval '1 second' AS t,
       (random() * 100)::numeric(10,2) AS v,
       chr(97 + (random() * 25)::int) || chr(97 + (random() * 25)::int) AS a,
       CASE WHEN i % 2 = 0 THEN 1.0 ELSE 1.00 END * (random() * 20)::int AS b,
       md5(i::text) AS note
FROM generate_series(1, 20000) i;
INSERT INTO multi SELECT '2024-01-01 00:30', 1, NULL, 1.0, 'null a' FROM generate_series(1, 20);
INSERT INTO multi SELECT '2024-01-01 00:30', 1, 'zz', NULL, 'null b' FROM generate_series(1, 20);

-- the input in key order, and in reverse key order (the first bounds come
-- from the first rows only)
CREATE TABLE asc_in AS SELECT * FROM many WHERE k IS NOT NULL ORDER BY k, note;
CREATE TABLE desc_in AS SELECT * FROM many WHERE k IS NOT NULL ORDER BY k DESC, note;
-- keys cycling through the whole key space (0, 1, ..., 999, 0, 1, ...)
CREATE TABLE cyc AS
SELECT timestamp '2024-01-01' + (random() * 86400)::int * interval '1 second' AS t,
       (random() * 100)::numeric(10,2) AS v, i % 1000 AS k, md5(i::text) AS note
FROM generate_series(0, 24999) i;
ANALYZE many, skew, multi, asc_in, desc_in, cyc;

\set ECHO none
\i sql/include/helpers.sql
\set ECHO all

SET work_mem = '64kB';
SET enable_sort = off;
SELECT wj_test.explain_analyze($$
SELECT count(w) FROM (SELECT session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM many) s$$, 'spill');
SELECT wj_test.explain_analyze($$
SELECT count(w), count(c) FROM (SELECT session(t, interval '5 minutes') OVER w AS w, count(*) OVER w AS c
FROM many WINDOW w AS (PARTITION BY k ORDER BY t)) s$$, 'spill');
-- the hot partition does not fit alone: its batch goes to a tuplesort
SELECT wj_test.explain_analyze($$
SELECT count(w) FROM (SELECT session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM skew) s$$, 'spill');
RESET work_mem;
RESET enable_sort;

SELECT wm || ': ' || wj_test.on_off(q, 'window_aggregate', 'Custom Scan \(Session|Sort Method: (hash|tuplesort)|Batches Sorted by Tuplesort: ', settings => format('work_mem=%s, enable_sort=off', wm), ordered => 'p, ts', cols => 'p, ts, v, note, w', analyze_plan => true) FROM (VALUES
  -- SessionWindow, every column
  ($$SELECT k AS p, t AS ts, v, note, session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM many$$, '256kB'),
  -- SessionSort under a WindowAgg
  ($$SELECT k AS p, t AS ts, v, note, session(t, interval '5 minutes') OVER w AS w, count(*) OVER w FROM many WINDOW w AS (PARTITION BY k ORDER BY t)$$, '256kB'),
  -- only the keys and the time stored
  ($$SELECT k AS p, t AS ts, 0 AS v, '' AS note, session(t, interval '1 minute') OVER (PARTITION BY k ORDER BY t) AS w FROM many$$, '256kB'),
  -- one hot partition
  ($$SELECT k AS p, t AS ts, v, note, session(t, interval '30 seconds') OVER (PARTITION BY k ORDER BY t) AS w FROM skew$$, '64kB'),
  ($$SELECT k AS p, t AS ts, v, note, session(t, interval '30 seconds') OVER (PARTITION BY k ORDER BY t) AS w FROM skew$$, '256kB'),
  ($$SELECT k AS p, t AS ts, v, note, session(t, interval '30 seconds') OVER w AS w, count(*) OVER w FROM skew WINDOW w AS (PARTITION BY k ORDER BY t)$$, '64kB'),
  -- text and numeric keys; the numeric key's own text is compared
  ($$SELECT a || '/' || round(b) AS p, t AS ts, v, note || '/' || b AS note, session(t, interval '2 minutes') OVER (PARTITION BY a, b ORDER BY t) AS w FROM multi$$, '256kB'),
  ($$SELECT a || '/' || round(b) AS p, t AS ts, v, note || '/' || b AS note, session(t, interval '2 minutes') OVER (PARTITION BY b, a ORDER BY t) AS w FROM multi$$, '256kB'),
  -- descending keys, NULLS FIRST keys
  ($$SELECT k AS p, t AS ts, v, note, session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM (SELECT * FROM many ORDER BY k DESC NULLS FIRST, t) s$$, '256kB'),
  -- input in key order, in reverse key order, in cycles through the keys
  ($$SELECT k AS p, t AS ts, v, note, session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM asc_in$$, '64kB'),
  ($$SELECT k AS p, t AS ts, v, note, session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM desc_in$$, '64kB'),
  ($$SELECT k AS p, t AS ts, v, note, session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM asc_in$$, '256kB'),
  ($$SELECT k AS p, t AS ts, v, note, session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM desc_in$$, '256kB'),
  ($$SELECT k AS p, t AS ts, v, note, session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM cyc$$, '64kB'),
  ($$SELECT k AS p, t AS ts, v, note, session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM cyc$$, '256kB'),
  -- timestamptz
  ($$SELECT k AS p, t AT TIME ZONE 'UTC' AS ts, v, note, session(t AT TIME ZONE 'UTC', interval '5 minutes') OVER (PARTITION BY k ORDER BY t AT TIME ZONE 'UTC') AS w FROM many$$, '256kB'),
  -- no partition keys: one partition, a tuplesort
  ($$SELECT 0 AS p, t AS ts, v, note, session(t, interval '10 seconds') OVER (ORDER BY t) AS w FROM skew$$, '256kB')
) x(q, wm);

-- the sessions of the spilled node, aggregated, equal those of the
-- in-memory node and of the node off
CREATE FUNCTION sessions(wm text, node bool) RETURNS TABLE (k int, ws timestamp, we timestamp, n bigint, total numeric)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
BEGIN
  EXECUTE format('SET LOCAL work_mem = %L', wm);
  EXECUTE format('SET LOCAL windowjoin.enable_window_aggregate = %s', node);
  EXECUTE format('SET LOCAL enable_sort = %s', NOT node);
  RETURN QUERY SELECT s.k, (s.w).window_start, (s.w).window_end, count(*), sum(s.v)
    FROM (SELECT m.k, m.v, session(m.t, interval '3 minutes') OVER (PARTITION BY m.k ORDER BY m.t) AS w FROM many m) s
    GROUP BY 1, 2, 3;
END $$;
SELECT (SELECT count(*) FROM sessions('64kB', true)) AS sessions,
       (SELECT count(*) FROM (SELECT * FROM sessions('64kB', true) EXCEPT ALL SELECT * FROM sessions('4MB', false)) x) AS only_spilled,
       (SELECT count(*) FROM (SELECT * FROM sessions('4MB', false) EXCEPT ALL SELECT * FROM sessions('64kB', true)) x) AS only_off,
       (SELECT count(*) FROM (SELECT * FROM sessions('4MB', true) EXCEPT ALL SELECT * FROM sessions('64kB', true)) x) AS only_in_memory;

-- rescans: a parameterized subquery run once per outer row (the child
-- changes), and a LIMIT that stops each run in the middle of its batches
CREATE FUNCTION rescans(wm text, node bool) RETURNS TABLE (g int, n bigint, sessions bigint, first_rows text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
BEGIN
  EXECUTE format('SET LOCAL work_mem = %L', wm);
  EXECUTE format('SET LOCAL windowjoin.enable_window_aggregate = %s', node);
  EXECUTE format('SET LOCAL enable_sort = %s', NOT node);
  RETURN QUERY
    SELECT gs.i, x.n, x.sessions, y.first_rows
    FROM generate_series(0, 2) gs(i)
    CROSS JOIN LATERAL (
      SELECT count(*) AS n, count(DISTINCT (s.k, s.w)) AS sessions
      FROM (SELECT m.k, session(m.t, interval '5 minutes') OVER (PARTITION BY m.k ORDER BY m.t) AS w
            FROM many m WHERE m.k % 3 = gs.i) s) x
    CROSS JOIN LATERAL (
      SELECT string_agg(s.k || ' ' || s.t || ' ' || (s.w).window_end, ', ') AS first_rows
      FROM (SELECT m.k, m.t, session(m.t, interval '5 minutes') OVER (PARTITION BY m.k ORDER BY m.t) AS w
            FROM many m WHERE m.k % 3 = gs.i LIMIT 50) s) y;
END $$;
SELECT g, n, sessions, md5(first_rows) FROM rescans('64kB', true)
EXCEPT ALL SELECT g, n, sessions, md5(first_rows) FROM rescans('4MB', false);
SELECT g, n, sessions FROM rescans('64kB', true) ORDER BY g;

-- a rescan without a parameter: the node below a fence, read again for
-- each outer row of a nested loop
SET enable_sort = off;
SET enable_material = off;
SET work_mem = '64kB';
CREATE VIEW nl AS
SELECT o.k, x.*
FROM (VALUES (5), (1500), (2999)) o(k)
CROSS JOIN LATERAL (
  SELECT count(*), min((s.w).window_start), max((s.w).window_end)
  FROM (SELECT k, session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM many OFFSET 0) s
  WHERE s.k = o.k) x;
SELECT wj_test.explain_analyze('SELECT * FROM nl', 'spill');
CREATE TEMP TABLE nl_on AS SELECT * FROM nl;
SET windowjoin.enable_window_aggregate = off;
RESET enable_sort;
CREATE TEMP TABLE nl_off AS SELECT * FROM nl;
RESET windowjoin.enable_window_aggregate;
SELECT (SELECT count(*) FROM nl_on) AS n,
       (SELECT count(*) FROM (TABLE nl_on EXCEPT ALL TABLE nl_off) x) AS only_on,
       (SELECT count(*) FROM (TABLE nl_off EXCEPT ALL TABLE nl_on) x) AS only_off;
RESET work_mem;
RESET enable_material;

-- a cursor: part of the rows, then the rest, then closed in the middle
SET work_mem = '64kB';
SET enable_sort = off;
BEGIN;
DECLARE c CURSOR FOR
SELECT k, t, session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM many;
FETCH 3 FROM c;
MOVE 20000 IN c;
FETCH 2 FROM c;
MOVE ALL IN c;
FETCH 1 FROM c;
CLOSE c;
DECLARE c2 CURSOR FOR
SELECT k, t, session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM skew;
FETCH 2 FROM c2;
CLOSE c2;
COMMIT;
RESET work_mem;
RESET enable_sort;

-- errors raised from a batch: an infinite time in a partition read back
-- from disk
CREATE TABLE bad AS SELECT * FROM many;
INSERT INTO bad VALUES ('infinity', 1, 2998, 'inf');
SET work_mem = '64kB';
SET enable_sort = off;
SELECT count(w) FROM (SELECT session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM bad) s;
RESET work_mem;
RESET enable_sort;

DROP SCHEMA session_spill CASCADE;
