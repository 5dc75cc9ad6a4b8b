--
-- session() in parallel workers: SessionSort and SessionWindow
-- key-partitioned by the window's PARTITION BY keys (each participant
-- keeps the rows of the partitions it claims), and the session GROUP BY
-- aggregation below the Gather.  Every query gives the rows of the same
-- nodes serial and of PostgreSQL's plan with the nodes off.
--
SET TimeZone = 'UTC';
SET datestyle = 'ISO, YMD';
SET IntervalStyle = 'postgres';

\set ECHO none
\i sql/include/helpers.sql
\set ECHO all

-- 10 keys, times unique within a key (so that order-sensitive window
-- functions are deterministic), gaps of 7 s with a longer gap every 50
-- rows; NULL keys, a NULL time in some partitions.
CREATE TABLE sp (k int, t timestamp, v int);
INSERT INTO sp SELECT i % 10,
    '2024-01-01'::timestamp + i * interval '7 seconds' + (i / 50) * interval '10 minutes', i
  FROM generate_series(1, 20000) i;
INSERT INTO sp SELECT NULL, '2024-01-01'::timestamp + i * interval '13 seconds', -i
  FROM generate_series(1, 300) i;
INSERT INTO sp VALUES (3, NULL, -1000), (NULL, NULL, -1001);
-- two partition keys, numeric values equal by "=" but written differently
CREATE TABLE sp2 (a text, n numeric, t timestamptz, v int);
INSERT INTO sp2 SELECT 'a' || (i % 4), CASE WHEN i % 3 = 0 THEN 1.0 WHEN i % 3 = 1 THEN 1.00 ELSE i % 5 END,
    '2024-01-01 00:00+00'::timestamptz + i * interval '11 seconds', i
  FROM generate_series(1, 12000) i;
INSERT INTO sp2 VALUES (NULL, NULL, '2024-01-01 01:00+00', -1), ('a1', NULL, '2024-01-01 02:00+00', -2);
ANALYZE sp;
ANALYZE sp2;

SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
-- real parallel plans only (force_parallel_mode = regress would also hide
-- the "parallel worker" context of errors raised in workers)
SET :parallel_guc = off;

-- wj_test.split_check(node, query, gucs => 'window_aggregate',
-- key_partitioned => true) (sql/include/helpers.sql): the rows of query
-- with parallel plans against those serial (no workers) and those serial
-- with the session nodes off, and, as a plan choice, whether the parallel
-- plan has a key-partitioned node ("Parallel Custom Scan (node)") under a
-- Gather.

-- session() alone: SessionWindow in each participant, a Gather Merge keeps
-- the (key, time) order
EXPLAIN (COSTS OFF)
SELECT k, t, v, session(t, interval '2 minutes') OVER (PARTITION BY k ORDER BY t) AS w
  FROM sp ORDER BY k, t;
SELECT wj_test.split_check('SessionWindow', $q$SELECT k, t, v, (w).window_start, (w).window_end, (w).window_time
  FROM (SELECT k, t, v, session(t, interval '2 minutes') OVER (PARTITION BY k ORDER BY t) AS w
  FROM sp) s$q$,
  gucs => 'window_aggregate', key_partitioned => true);
-- the Gather Merge's order is the window's: the first rows of each key
SELECT k, t, v, (w).window_start, (w).window_end FROM (
  SELECT k, t, v, session(t, interval '2 minutes') OVER (PARTITION BY k ORDER BY t) AS w
  FROM sp ORDER BY k, t) s
WHERE v % 2000 IN (1, 2, 3) OR v IN (-1000, -1001, -1, -300);

-- session() with other window functions: WindowAgg over SessionSort
EXPLAIN (COSTS OFF)
SELECT k, t, v, session(t, interval '2 minutes') OVER w, count(*) OVER w, sum(v) OVER w
  FROM sp WINDOW w AS (PARTITION BY k ORDER BY t);
SELECT wj_test.split_check('SessionSort', $q$SELECT k, t, v, (session(t, interval '2 minutes') OVER w).window_start,
    count(*) OVER w AS c, sum(v) OVER w AS s, lag(v) OVER w AS l
  FROM sp WINDOW w AS (PARTITION BY k ORDER BY t)$q$,
  gucs => 'window_aggregate', key_partitioned => true);

-- session aggregation: the GROUP BY below the Gather, the groups being
-- complete in each participant
EXPLAIN (COSTS OFF)
SELECT k, (w).window_start, (w).window_end, sum(v), count(*)
  FROM (SELECT k, v, session(t, interval '2 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM sp) s
  GROUP BY k, (w).window_start, (w).window_end;
SELECT wj_test.split_check('SessionWindow', $q$SELECT k, (w).window_start, (w).window_end, sum(v) AS total, count(*) AS c
  FROM (SELECT k, v, session(t, interval '2 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM sp) s
  GROUP BY k, (w).window_start, (w).window_end$q$,
  gucs => 'window_aggregate', key_partitioned => true);
-- with ORDER BY the group keys: a Gather Merge above the aggregation
EXPLAIN (COSTS OFF)
SELECT k, (w).window_start, (w).window_end, sum(v)
  FROM (SELECT k, v, session(t, interval '2 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM sp) s
  GROUP BY k, (w).window_start, (w).window_end ORDER BY k, 2, 3;
SELECT k, (w).window_start, (w).window_end, sum(v), count(*)
  FROM (SELECT k, v, session(t, interval '2 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM sp) s
  GROUP BY k, (w).window_start, (w).window_end ORDER BY k NULLS FIRST, 2, 3 LIMIT 6;
-- the benchmark's shape: an aggregate over the session aggregate, whose
-- partial aggregation runs in the workers too
EXPLAIN (COSTS OFF)
SELECT count(*) AS c, sum(total) AS total, sum(window_end - window_start) AS span FROM (
  SELECT k, (w).window_start, (w).window_end, sum(v) AS total
  FROM (SELECT k, v, session(t, interval '2 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM sp) s
  GROUP BY k, (w).window_start, (w).window_end) x;
SELECT wj_test.split_check('SessionWindow', $q$SELECT count(*) AS c, sum(total) AS total, sum(window_end - window_start) AS span FROM (
  SELECT k, (w).window_start, (w).window_end, sum(v) AS total
  FROM (SELECT k, v, session(t, interval '2 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM sp) s
  GROUP BY k, (w).window_start, (w).window_end) x$q$,
  gucs => 'window_aggregate', key_partitioned => true);
-- HAVING, and the time key NULL for some rows (their own group)
SELECT wj_test.split_check('SessionWindow', $q$SELECT k, (w).window_start, sum(v) AS total
  FROM (SELECT k, v, session(t, interval '2 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM sp) s
  GROUP BY k, (w).window_start HAVING count(*) > 4$q$,
  gucs => 'window_aggregate', key_partitioned => true);

-- two partition keys, timestamptz, numeric keys equal but written apart
-- (each row keeps its own, both land in one partition)
SELECT wj_test.split_check('SessionWindow', $q$SELECT a, n::text AS n_text, t, v, (w).window_start, (w).window_end
  FROM (SELECT *, session(t, interval '10 minutes') OVER (PARTITION BY a, n ORDER BY t) AS w FROM sp2) s$q$,
  gucs => 'window_aggregate', key_partitioned => true);
SELECT wj_test.split_check('SessionWindow', $q$SELECT a, n, (w).window_start, (w).window_end, count(*) AS c, sum(v) AS total
  FROM (SELECT *, session(t, interval '10 minutes') OVER (PARTITION BY a, n ORDER BY t) AS w FROM sp2) s
  GROUP BY a, n, (w).window_start, (w).window_end$q$,
  gucs => 'window_aggregate', key_partitioned => true);

-- no PARTITION BY: one partition, not split (serial under the Gather-less plan)
EXPLAIN (COSTS OFF)
SELECT t, v, session(t, interval '2 minutes') OVER (ORDER BY t) FROM sp;
SELECT wj_test.split_check('SessionWindow', $q$SELECT t, v, (session(t, interval '2 minutes') OVER (ORDER BY t)).window_start FROM sp$q$,
  gucs => 'window_aggregate', key_partitioned => true);
-- partitioned by the time itself: not a SessionWindow, not split
SELECT wj_test.split_check('SessionWindow', $q$SELECT k, t, (session(t, interval '2 minutes') OVER (PARTITION BY t ORDER BY t)).window_end FROM sp$q$,
  gucs => 'window_aggregate', key_partitioned => true);

-- No worker can start: the leader claims every partition itself, reading
-- the input once for each
SET max_parallel_workers = 0;
SELECT wj_test.split_check('SessionWindow', $q$SELECT k, (w).window_start, (w).window_end, sum(v) AS total
  FROM (SELECT k, v, session(t, interval '2 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM sp) s
  GROUP BY k, (w).window_start, (w).window_end$q$,
  gucs => 'window_aggregate', key_partitioned => true);
SELECT wj_test.split_check('SessionSort', $q$SELECT k, t, count(*) OVER w AS c, (session(t, interval '2 minutes') OVER w).window_start
  FROM sp WINDOW w AS (PARTITION BY k ORDER BY t)$q$,
  gucs => 'window_aggregate', key_partitioned => true);
RESET max_parallel_workers;

-- The leader not participating: only the workers run the node
SET parallel_leader_participation = off;
SELECT wj_test.split_check('SessionWindow', $q$SELECT k, t, v, (w).window_start, (w).window_end
  FROM (SELECT k, t, v, session(t, interval '2 minutes') OVER (PARTITION BY k ORDER BY t) AS w
  FROM sp) s$q$,
  gucs => 'window_aggregate', key_partitioned => true);
SELECT wj_test.split_check('SessionWindow', $q$SELECT k, (w).window_start, (w).window_end, sum(v) AS total
  FROM (SELECT k, v, session(t, interval '2 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM sp) s
  GROUP BY k, (w).window_start, (w).window_end$q$,
  gucs => 'window_aggregate', key_partitioned => true);
RESET parallel_leader_participation;
-- The leader running the plan but leaving every key partition to the
-- workers (windowjoin.leader_participation = off): with exchanged input it
-- still writes its share of the rows, then claims none, and a worker takes
-- the leader's partition.  On takes a share whatever the CPUs.
SET windowjoin.leader_participation = off;
SELECT wj_test.split_check('SessionWindow', $q$SELECT k, (w).window_start, (w).window_end, sum(v) AS total
  FROM (SELECT k, v, session(t, interval '2 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM sp) s
  GROUP BY k, (w).window_start, (w).window_end$q$,
  gucs => 'window_aggregate', key_partitioned => true);
SELECT (f->>'leader')::bigint AS leader_rows, (f->>'launched')::int AS workers_launched
  FROM wj_test.parallel_figures($q$SELECT k, t, v, (w).window_start
  FROM (SELECT k, t, v, session(t, interval '2 minutes') OVER (PARTITION BY k ORDER BY t) AS w
  FROM sp) s$q$) f;
SET windowjoin.leader_participation = on;
SELECT wj_test.split_check('SessionWindow', $q$SELECT k, (w).window_start, (w).window_end, sum(v) AS total
  FROM (SELECT k, v, session(t, interval '2 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM sp) s
  GROUP BY k, (w).window_start, (w).window_end$q$,
  gucs => 'window_aggregate', key_partitioned => true);
RESET windowjoin.leader_participation;

-- A small work_mem: each participant splits its partitions into key-range
-- batches on disk, its output still in order.  (Sorts off: at 64kB on
-- these 20,000 rows PostgreSQL's parallel sort under a WindowAgg costs
-- about as much as the node, which is what is under test here.)
SET work_mem = '64kB';
SET enable_sort = off;
SELECT wj_test.split_check('SessionWindow', $q$SELECT k, (w).window_start, (w).window_end, sum(v) AS total
  FROM (SELECT k, v, session(t, interval '2 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM sp) s
  GROUP BY k, (w).window_start, (w).window_end$q$,
  gucs => 'window_aggregate', key_partitioned => true);
RESET enable_sort;
RESET work_mem;

-- Two ways to key-partition, chosen on cost: each participant reads a
-- share of the input (a Parallel Seq Scan) and the rows are exchanged by
-- partition through shared files ("Key Partition Input: exchanged", the
-- plans above), or each participant reads the whole input and keeps the
-- rows of its partitions.  Rows of about a hundred bytes cost more to
-- write and read back than to read again from the table: the latter.
CREATE TABLE spw AS SELECT k, t, v, repeat('x', 100) || v AS pad FROM sp;
ANALYZE spw;
EXPLAIN (COSTS OFF)
SELECT k, (w).window_start, max(pad) FROM (
  SELECT k, t, pad, session(t, interval '2 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM spw) s
  GROUP BY k, (w).window_start;
SELECT wj_test.split_check('SessionWindow', $q$SELECT k, (w).window_start, max(pad) AS m, count(*) AS c FROM (
  SELECT k, t, pad, session(t, interval '2 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM spw) s
  GROUP BY k, (w).window_start$q$,
  gucs => 'window_aggregate', key_partitioned => true);
-- the exchange, with the leader alone (no worker could start) and with one
-- of two workers
SET max_parallel_workers = 0;
SELECT wj_test.split_check('SessionWindow', $q$SELECT k, (w).window_start, sum(v) AS total, count(*) AS c FROM (
  SELECT k, t, v, session(t, interval '2 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM sp) s
  GROUP BY k, (w).window_start$q$,
  gucs => 'window_aggregate', key_partitioned => true);
SET max_parallel_workers = 1;
SELECT wj_test.split_check('SessionWindow', $q$SELECT k, (w).window_start, sum(v) AS total, count(*) AS c FROM (
  SELECT k, t, v, session(t, interval '2 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM sp) s
  GROUP BY k, (w).window_start$q$,
  gucs => 'window_aggregate', key_partitioned => true);
RESET max_parallel_workers;

-- windowjoin.enable_key_partitioning = off: no partial path, serial nodes
SET windowjoin.enable_key_partitioning = off;
EXPLAIN (COSTS OFF)
SELECT k, (w).window_start, (w).window_end, sum(v)
  FROM (SELECT k, v, session(t, interval '2 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM sp) s
  GROUP BY k, (w).window_start, (w).window_end;
RESET windowjoin.enable_key_partitioning;

-- EXPLAIN ANALYZE: Key Partitions, the leader's rows, a line per worker
-- with its peak state and rows, and totals.  wj_test.worker_figures(node,
-- q, key_partitioned => true) shows the Key Partitions and checks that
-- there is a line per launched worker and that the leader's rows plus the
-- workers' add up to the node's rows.
SELECT wj_test.worker_figures('SessionWindow', $q$SELECT k, (w).window_start, (w).window_end, sum(v)
  FROM (SELECT k, v, session(t, interval '2 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM sp) s
  GROUP BY k, (w).window_start, (w).window_end$q$,
  key_partitioned => true);
SELECT wj_test.worker_figures('SessionSort', $q$SELECT k, t, count(*) OVER w, (session(t, interval '2 minutes') OVER w).window_start
  FROM sp WINDOW w AS (PARTITION BY k ORDER BY t)$q$,
  key_partitioned => true);

-- Rescans: a Gather above the nodes in a subquery run again for every row
EXPLAIN (COSTS OFF)
SELECT g, (SELECT x.c || ' ' || x.total || ' ' || g FROM (
  SELECT count(*) AS c, sum(total) AS total FROM (
    SELECT k, (w).window_start, sum(v) AS total
    FROM (SELECT k, v, session(t, interval '2 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM sp) s
    GROUP BY k, (w).window_start) y
  OFFSET 0) x) FROM generate_series(1, 3) g;
SELECT g, (SELECT x.c || ' ' || x.total || ' ' || g FROM (
  SELECT count(*) AS c, sum(total) AS total FROM (
    SELECT k, (w).window_start, sum(v) AS total
    FROM (SELECT k, v, session(t, interval '2 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM sp) s
    GROUP BY k, (w).window_start) y
  OFFSET 0) x) FROM generate_series(1, 3) g;
SELECT g, (SELECT x.c || ' ' || x.total || ' ' || g FROM (
  SELECT count(*) AS c, sum(c2) AS total FROM (
    SELECT k, count(*) OVER w AS c2, (session(t, interval '2 minutes') OVER w).window_start
    FROM sp WINDOW w AS (PARTITION BY k ORDER BY t)) y
  OFFSET 0) x) FROM generate_series(1, 3) g;
-- the same totals without workers
SET max_parallel_workers_per_gather = 0;
SELECT count(*), sum(total) FROM (
  SELECT k, (w).window_start, sum(v) AS total
  FROM (SELECT k, v, session(t, interval '2 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM sp) s
  GROUP BY k, (w).window_start) y;
SELECT count(*), sum(c2) FROM (
  SELECT k, count(*) OVER w AS c2, (session(t, interval '2 minutes') OVER w).window_start
  FROM sp WINDOW w AS (PARTITION BY k ORDER BY t)) y;
SET max_parallel_workers_per_gather = 2;

-- Errors raised inside a worker reach the client (the leader does not run
-- the node here): an infinite time cannot be put in a session
SET parallel_leader_participation = off;
INSERT INTO sp VALUES (4, 'infinity', 0);
EXPLAIN (COSTS OFF)
SELECT count(*), sum(total) FROM (
  SELECT k, (w).window_start, sum(v) AS total
  FROM (SELECT k, v, session(t, interval '2 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM sp) s
  GROUP BY k, (w).window_start) y;
SELECT count(*), sum(total) FROM (
  SELECT k, (w).window_start, sum(v) AS total
  FROM (SELECT k, v, session(t, interval '2 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM sp) s
  GROUP BY k, (w).window_start) y;
DELETE FROM sp WHERE v = 0;
RESET parallel_leader_participation;

DROP TABLE sp, sp2, spw;
