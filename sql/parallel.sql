--
-- Parallel query: every node's partial path under a Gather gives the rows
-- of the same node serial and of PostgreSQL's plan with the nodes off;
-- rescans of a Gather above a node; errors raised inside a worker.
--
SET TimeZone = 'UTC';
SET datestyle = 'ISO, YMD';
SET IntervalStyle = 'postgres';

\set ECHO none
\i sql/include/helpers.sql
\set ECHO all

-- Outer sides large enough that splitting them pays even though each worker
-- reads the inner side complete.
CREATE TABLE pa (k int, t timestamp, v int);
CREATE TABLE pb (k int, t timestamp, v int);
CREATE TABLE pv (k int, t timestamp, v int);	-- versions for as-of
INSERT INTO pa SELECT i % 10, '2024-01-01'::timestamp + i * interval '7 seconds', i
  FROM generate_series(1, 12000) i;
INSERT INTO pa VALUES (NULL, '2024-01-01 01:00', -1), (3, NULL, -2);
INSERT INTO pb SELECT i % 10, '2024-01-01'::timestamp + i * interval '11 seconds', i
  FROM generate_series(1, 6000) i;
INSERT INTO pb VALUES (NULL, '2024-01-01 01:00', -3), (4, NULL, -4);
INSERT INTO pv SELECT i % 10, '2024-01-01'::timestamp + i * interval '97 seconds', i
  FROM generate_series(1, 600) i;
ANALYZE pa;
ANALYZE pb;
ANALYZE pv;

SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
-- real parallel plans only (force_parallel_mode = regress would also hide
-- the "parallel worker" context of errors raised in workers)
SET :parallel_guc = off;

-- wj_test.split_check(node, query) (sql/include/helpers.sql): the rows of
-- query with parallel plans against those serial (no workers) and those
-- serial with windowjoin's nodes off (every join method allowed), and, as
-- a plan choice, whether the parallel plan has a Gather above the node (a
-- partial path of the node; for WindowExpand: above its pane aggregation).

-- First the outer split: each participant joins its share of the outer
-- rows with all inner rows
SET windowjoin.enable_key_partitioning = off;

-- IntervalJoin
EXPLAIN (COSTS OFF)
SELECT a.v, b.v FROM pa a JOIN pb b
  ON a.k = b.k AND b.t BETWEEN a.t - interval '5 seconds' AND a.t + interval '5 seconds';
SELECT wj_test.split_check('IntervalJoin', $q$SELECT a.v AS av, b.v AS bv FROM pa a JOIN pb b
  ON a.k = b.k AND b.t BETWEEN a.t - interval '5 seconds' AND a.t + interval '5 seconds'$q$);
SELECT wj_test.split_check('IntervalJoin', $q$SELECT a.v AS av, b.v AS bv FROM pa a LEFT JOIN pb b
  ON a.k = b.k AND b.t BETWEEN a.t - interval '5 seconds' AND a.t + interval '5 seconds'$q$);
-- semi and anti joins: PostgreSQL's hash joins are cheaper on this data
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_nestloop = off;
SELECT wj_test.split_check('IntervalJoin', $q$SELECT a.v FROM pa a WHERE EXISTS (SELECT FROM pb b
  WHERE a.k = b.k AND b.t BETWEEN a.t - interval '5 seconds' AND a.t + interval '5 seconds')$q$);
SELECT wj_test.split_check('IntervalJoin', $q$SELECT a.v FROM pa a WHERE NOT EXISTS (SELECT FROM pb b
  WHERE a.k = b.k AND b.t BETWEEN a.t - interval '5 seconds' AND a.t + interval '5 seconds')$q$);
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_nestloop;
-- no key, a join filter
SELECT wj_test.split_check('IntervalJoin', $q$SELECT a.v AS av, b.v AS bv FROM pa a JOIN pb b
  ON b.t BETWEEN a.t AND a.t + interval '3 seconds' AND a.v % 3 <> b.v % 3
  WHERE b.v < 2000$q$);
-- right and full joins have no partial path without key partitioning
SELECT wj_test.split_check('IntervalJoin', $q$SELECT a.v AS av, b.v AS bv FROM pa a FULL JOIN pb b
  ON a.k = b.k AND b.t BETWEEN a.t - interval '5 seconds' AND a.t + interval '5 seconds'$q$);

-- WindowJoin: HOP (time mode) and TUMBLE (group mode)
EXPLAIN (COSTS OFF)
SELECT a.v, b.v, a.window_start
  FROM (SELECT * FROM pa, hop(pa.t, interval '1 minute', interval '3 minutes')) a
  JOIN (SELECT * FROM pb, hop(pb.t, interval '1 minute', interval '3 minutes')) b
    ON a.window_start = b.window_start AND a.window_end = b.window_end AND a.k = b.k;
SELECT wj_test.split_check('WindowJoin', $q$SELECT a.v AS av, b.v AS bv, a.window_start
  FROM (SELECT * FROM pa, hop(pa.t, interval '1 minute', interval '3 minutes')) a
  JOIN (SELECT * FROM pb, hop(pb.t, interval '1 minute', interval '3 minutes')) b
    ON a.window_start = b.window_start AND a.window_end = b.window_end AND a.k = b.k$q$);
SELECT wj_test.split_check('WindowJoin', $q$SELECT a.v AS av, b.v AS bv, a.window_start
  FROM (SELECT * FROM pa, hop(pa.t, interval '1 minute', interval '3 minutes')) a
  LEFT JOIN (SELECT * FROM pb, hop(pb.t, interval '1 minute', interval '3 minutes')) b
    ON a.window_start = b.window_start AND a.window_end = b.window_end AND a.k = b.k$q$);
SELECT wj_test.split_check('WindowJoin', $q$SELECT a.v, a.window_start
  FROM (SELECT * FROM pa, hop(pa.t, interval '1 minute', interval '3 minutes')) a
  WHERE EXISTS (SELECT FROM (SELECT * FROM pb, hop(pb.t, interval '1 minute', interval '3 minutes')) b
    WHERE a.window_start = b.window_start AND a.window_end = b.window_end AND a.k = b.k AND b.v % 7 = 0)$q$);
SELECT wj_test.split_check('WindowJoin', $q$SELECT a.v, a.window_start
  FROM (SELECT * FROM pa, hop(pa.t, interval '1 minute', interval '3 minutes')) a
  WHERE NOT EXISTS (SELECT FROM (SELECT * FROM pb, hop(pb.t, interval '1 minute', interval '3 minutes')) b
    WHERE a.window_start = b.window_start AND a.window_end = b.window_end AND a.k = b.k AND b.v % 7 = 0)$q$);
EXPLAIN (COSTS OFF)
SELECT a.v, b.v, a.window_start
  FROM (SELECT * FROM pa, tumble(pa.t, interval '1 minute')) a
  JOIN (SELECT * FROM pb, tumble(pb.t, interval '1 minute')) b
    ON a.window_start = b.window_start AND a.window_end = b.window_end AND a.k = b.k;
SELECT wj_test.split_check('WindowJoin', $q$SELECT a.v AS av, b.v AS bv, a.window_start
  FROM (SELECT * FROM pa, tumble(pa.t, interval '1 minute')) a
  JOIN (SELECT * FROM pb, tumble(pb.t, interval '1 minute')) b
    ON a.window_start = b.window_start AND a.window_end = b.window_end AND a.k = b.k$q$);
SELECT wj_test.split_check('WindowJoin', $q$SELECT a.v AS av, b.v AS bv, a.window_start
  FROM (SELECT * FROM pa, tumble(pa.t, interval '1 minute')) a
  LEFT JOIN (SELECT * FROM pb, tumble(pb.t, interval '1 minute')) b
    ON a.window_start = b.window_start AND a.window_end = b.window_end AND a.k = b.k$q$);

-- AsOfJoin: merge/sweep and lookup strategies, inner and left
EXPLAIN (COSTS OFF)
SELECT a.v, x.v FROM pa a LEFT JOIN LATERAL (
  SELECT * FROM pv WHERE pv.k = a.k AND pv.t <= a.t ORDER BY pv.t DESC LIMIT 1) x ON true;
SELECT wj_test.split_check('AsOfJoin', $q$SELECT a.v AS av, x.v AS xv FROM pa a LEFT JOIN LATERAL (
  SELECT * FROM pv WHERE pv.k = a.k AND pv.t <= a.t ORDER BY pv.t DESC LIMIT 1) x ON true$q$);
SELECT wj_test.split_check('AsOfJoin', $q$SELECT a.v AS av, x.v AS xv FROM pa a JOIN LATERAL (
  SELECT * FROM pv WHERE pv.k = a.k AND pv.t <= a.t ORDER BY pv.t DESC LIMIT 1) x ON true$q$);
SELECT wj_test.split_check('AsOfJoin', $q$SELECT a.v AS av, x.v AS xv FROM pa a LEFT JOIN LATERAL (
  SELECT * FROM pv WHERE pv.t >= a.t AND pv.t < a.t + interval '10 minutes'
  ORDER BY pv.t LIMIT 1) x ON true$q$);
SET work_mem = '64kB';	-- the versions no longer fit: no lookup strategy
SELECT wj_test.split_check('AsOfJoin', $q$SELECT a.v AS av, x.v AS xv FROM pa a LEFT JOIN LATERAL (
  SELECT * FROM pv WHERE pv.k = a.k AND pv.t <= a.t ORDER BY pv.t DESC LIMIT 1) x ON true$q$);
RESET work_mem;

-- WindowExpand: partial pane aggregates per worker, expanded, gathered,
-- finalized.  Many rows per pane, so that aggregating panes in the workers
-- pays.
CREATE TABLE pw AS SELECT i % 5 AS k, '2024-01-01'::timestamp + (i % 600) * interval '1 second' AS t,
  i::numeric AS v FROM generate_series(1, 30000) i;
ANALYZE pw;
EXPLAIN (COSTS OFF)
SELECT window_start, window_end, sum(v), count(*) FROM pw,
  hop(t, interval '1 minute', interval '3 minutes') GROUP BY 1, 2;
SELECT wj_test.split_check('WindowExpand', $q$SELECT window_start, window_end, sum(v), count(*), max(v)
  FROM pw, hop(t, interval '1 minute', interval '3 minutes') GROUP BY 1, 2$q$);
SELECT wj_test.split_check('WindowExpand', $q$SELECT k, window_start, window_end, sum(v), avg(v)
  FROM pw, cumulate(t, interval '1 minute', interval '5 minutes') GROUP BY 1, 2, 3$q$);

-- WindowExpand, parallel-aware: the pane states are exchanged through
-- shared files partitioned by window, each participant finalizes the
-- windows of the partitions it claims, the Gather collects finished groups.
-- Offered only when a grouped window column identifies the window.
-- par_shared(q): wj_test.split_check's line, then whether the parallel
-- plan has the shared WindowExpand (a plan choice too).
CREATE FUNCTION par_shared(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  shared bool := wj_test.uses(q, 'Pane States: shared, partitioned by window');
BEGIN
  RETURN wj_test.split_check('WindowExpand', q) || ', shared: ' || shared;
END $$;
CREATE TABLE pwn AS SELECT * FROM pw;
INSERT INTO pwn VALUES (NULL, '2024-01-01 00:01:30', 7), (2, NULL, 8), (NULL, NULL, 9),
  (3, '2023-12-31 23:58:59', 10), (1, '1999-12-31 23:59:50', 11);
ANALYZE pwn;
EXPLAIN (COSTS OFF)
SELECT count(*), sum(total) FROM (SELECT window_start, window_end, sum(v) AS total
  FROM pw, hop(t, interval '1 minute', interval '3 minutes') GROUP BY 1, 2) w;
EXPLAIN (COSTS OFF)
SELECT k, window_start, window_end, sum(v), count(*) FROM pwn,
  hop(t, interval '20 seconds', interval '1 minute') GROUP BY 1, 2, 3;
SELECT par_shared($q$SELECT k, window_start, window_end, sum(v), count(*), max(v)
  FROM pwn, hop(t, interval '20 seconds', interval '1 minute') GROUP BY 1, 2, 3$q$);
SELECT par_shared($q$SELECT window_end, sum(v), count(*)
  FROM pwn, hop(t, interval '10 seconds', interval '30 seconds') GROUP BY 1$q$);
SELECT par_shared($q$SELECT k, window_time, sum(v) FROM pwn,
  hop(t, interval '30 seconds', interval '2 minutes', interval '5 seconds')
  GROUP BY 1, 2 HAVING count(*) > 40$q$);
SELECT par_shared($q$SELECT k, window_start, window_end, sum(v), avg(v)
  FROM pwn, cumulate(t, interval '20 seconds', interval '2 minutes') GROUP BY 1, 2, 3$q$);
SELECT par_shared($q$SELECT window_end, count(*)
  FROM pwn, cumulate(t, interval '20 seconds', interval '2 minutes') GROUP BY 1$q$);
-- a window column that spans windows: finalized above the Gather
SELECT par_shared($q$SELECT date_trunc('minute', window_start + interval '20 seconds') AS m, sum(v)
  FROM pwn, hop(t, interval '20 seconds', interval '1 minute') GROUP BY 1$q$);
-- no worker can start: the leader reads every partition; the leader not
-- participating: only the workers
SET max_parallel_workers = 0;
SELECT par_shared($q$SELECT k, window_start, window_end, sum(v), count(*)
  FROM pwn, hop(t, interval '20 seconds', interval '1 minute') GROUP BY 1, 2, 3$q$);
RESET max_parallel_workers;
SET parallel_leader_participation = off;
SELECT par_shared($q$SELECT k, window_start, window_end, sum(v), count(*)
  FROM pwn, hop(t, interval '20 seconds', interval '1 minute') GROUP BY 1, 2, 3$q$);
RESET parallel_leader_participation;
-- the leader stops reading early (a LIMIT above the Gather)
SELECT count(*) FROM (SELECT k, window_start, window_end, sum(v)
  FROM pwn, hop(t, interval '20 seconds', interval '1 minute') GROUP BY 1, 2, 3 LIMIT 5) l;
-- EXPLAIN ANALYZE shows the partitions (4 per planned participant)
SELECT regexp_replace(l, ' \(actual.*', '') AS par_expand_lines FROM wj_test.explain($q$SELECT k, window_start, window_end, sum(v)
  FROM pwn, hop(t, interval '20 seconds', interval '1 minute') GROUP BY 1, 2, 3$q$,
  'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF', 'Pane States|Window Partitions|WindowExpand|Gather|Workers Planned') l;
DROP FUNCTION par_shared(text);

-- Key partitioning: every participant scans both inputs in full, keeps
-- only the rows of the key partitions it claims (NULL keys in partition 0)
-- and sorts and joins those; right and full joins can only split this way
SET windowjoin.enable_key_partitioning = on;
EXPLAIN (COSTS OFF)
SELECT a.v AS av, b.v AS bv FROM pa a FULL JOIN pb b
  ON a.k = b.k AND b.t BETWEEN a.t - interval '5 seconds' AND a.t + interval '5 seconds';
SELECT wj_test.split_check('IntervalJoin', $q$SELECT a.v AS av, b.v AS bv FROM pa a FULL JOIN pb b
  ON a.k = b.k AND b.t BETWEEN a.t - interval '5 seconds' AND a.t + interval '5 seconds'$q$);
SELECT wj_test.split_check('IntervalJoin', $q$SELECT a.v AS av, b.v AS bv FROM pa a RIGHT JOIN pb b
  ON a.k = b.k AND b.t BETWEEN a.t - interval '5 seconds' AND a.t + interval '3 seconds'
  AND a.v % 4 <> b.v % 4$q$);
-- no key: no key partitioning, the right join stays serial
SELECT wj_test.split_check('IntervalJoin', $q$SELECT a.v AS av, b.v AS bv FROM pa a RIGHT JOIN pb b
  ON b.t BETWEEN a.t AND a.t + interval '2 seconds' WHERE b.v < 1000$q$);

SELECT wj_test.split_check('IntervalJoin', $q$SELECT a.v AS av, b.v AS bv FROM pa a JOIN pb b
  ON a.k = b.k AND b.t BETWEEN a.t - interval '5 seconds' AND a.t + interval '5 seconds'$q$);
SELECT wj_test.split_check('IntervalJoin', $q$SELECT a.v AS av, b.v AS bv FROM pa a LEFT JOIN pb b
  ON a.k = b.k AND b.t BETWEEN a.t - interval '5 seconds' AND a.t + interval '5 seconds'$q$);
EXPLAIN (COSTS OFF)
SELECT a.v AS av, b.v AS bv, a.window_start, b.window_start
  FROM (SELECT * FROM pa, tumble(pa.t, interval '1 minute')) a
  FULL JOIN (SELECT * FROM pb, tumble(pb.t, interval '1 minute')) b
    ON a.window_start = b.window_start AND a.window_end = b.window_end AND a.k = b.k;
SELECT wj_test.split_check('WindowJoin', $q$SELECT a.v AS av, b.v AS bv, a.window_start AS aws, b.window_start AS bws
  FROM (SELECT * FROM pa, tumble(pa.t, interval '1 minute')) a
  FULL JOIN (SELECT * FROM pb, tumble(pb.t, interval '1 minute')) b
    ON a.window_start = b.window_start AND a.window_end = b.window_end AND a.k = b.k$q$);
SELECT wj_test.split_check('WindowJoin', $q$SELECT a.v AS av, b.v AS bv, b.window_start
  FROM (SELECT * FROM pa, hop(pa.t, interval '1 minute', interval '3 minutes')) a
  RIGHT JOIN (SELECT * FROM pb, hop(pb.t, interval '1 minute', interval '3 minutes')) b
    ON a.window_start = b.window_start AND a.window_end = b.window_end AND a.k = b.k$q$);
SELECT wj_test.split_check('WindowJoin', $q$SELECT a.v AS av, b.v AS bv, a.window_start AS aws, b.window_start AS bws
  FROM (SELECT * FROM pa, hop(pa.t, interval '1 minute', interval '3 minutes')) a
  FULL JOIN (SELECT * FROM pb, hop(pb.t, interval '1 minute', interval '3 minutes')) b
    ON a.window_start = b.window_start AND a.window_end = b.window_end AND a.k = b.k
    AND a.v % 5 <> b.v % 5$q$);

SELECT wj_test.split_check('WindowJoin', $q$SELECT a.v AS av, b.v AS bv, a.window_start
  FROM (SELECT * FROM pa, hop(pa.t, interval '1 minute', interval '3 minutes')) a
  LEFT JOIN (SELECT * FROM pb, hop(pb.t, interval '1 minute', interval '3 minutes')) b
    ON a.window_start = b.window_start AND a.window_end = b.window_end AND a.k = b.k$q$);

-- No worker can start: the leader claims every partition itself
SET max_parallel_workers = 0;
SELECT wj_test.split_check('IntervalJoin', $q$SELECT a.v AS av, b.v AS bv FROM pa a FULL JOIN pb b
  ON a.k = b.k AND b.t BETWEEN a.t - interval '5 seconds' AND a.t + interval '5 seconds'$q$);
RESET max_parallel_workers;

-- Key partitioning and the leader: one partition per worker and a smaller
-- one for the leader, its share as PostgreSQL's costing counts it (24 units
-- for two workers: 10 + 10 + 4); when fewer workers start than planned,
-- the leader also claims the worker partition left over.  With the rows
-- exchanged, the workers' share is cut finer (five partitions of 2 units
-- per worker, the leader's 4 units one more: 11), and the leader joins
-- only its own partition when every worker started and it takes a share
-- (windowjoin.leader_participation = on); with off (auto, when there is a
-- worker for every CPU) it leaves its partition to the workers too, which
-- lose no pass over the inputs by taking it.  kp_leader(q, own): the
-- partitions, the workers launched, and whether the leader returned rows
-- (exactly own, the rows of the leader's partition: "its own"), from
-- EXPLAIN ANALYZE.
-- kp_full_joins(): wj_test.split_check of a key-partitioned full interval
-- join and full TUMBLE window join of pa and pb, one line each
CREATE FUNCTION kp_full_joins() RETURNS SETOF text LANGUAGE sql AS $f$
SELECT wj_test.split_check('IntervalJoin', $q$SELECT a.v AS av, b.v AS bv FROM pa a FULL JOIN pb b
  ON a.k = b.k AND b.t BETWEEN a.t - interval '5 seconds' AND a.t + interval '5 seconds'$q$,
  key_partitioned => true)
UNION ALL
SELECT wj_test.split_check('WindowJoin', $q$SELECT a.v AS av, b.v AS bv FROM
    (SELECT * FROM pa, tumble(pa.t, interval '1 minute')) a
    FULL JOIN (SELECT * FROM pb, tumble(pb.t, interval '1 minute')) b
    ON a.window_start = b.window_start AND a.window_end = b.window_end AND a.k = b.k$q$,
  key_partitioned => true)
$f$;
CREATE FUNCTION kp_leader(q text, own bigint DEFAULT NULL) RETURNS text LANGUAGE sql AS $$
  SELECT format('key partitions: %s, workers launched: %s, leader rows: %s',
                f->>'parts', f->>'launched',
                CASE WHEN (f->>'leader')::numeric = own THEN 'its own'
                     WHEN (f->>'leader')::numeric > 0 THEN 'some' ELSE f->>'leader' END)
  FROM wj_test.parallel_figures(q) f
$$;
SELECT count(*) AS own_rows FROM pa a FULL JOIN pb b
  ON a.k = b.k AND b.t BETWEEN a.t - interval '5 seconds' AND a.t + interval '5 seconds'
  WHERE LEAST(COALESCE((hashint4(COALESCE(a.k, b.k)) & 2147483647) % 24, 0) / 2, 10) = 10 \gset
SELECT :own_rows > 0 AS leader_partition_has_rows;
SET windowjoin.leader_participation = on;
SELECT kp_leader($q$SELECT a.v AS av, b.v AS bv FROM pa a FULL JOIN pb b
  ON a.k = b.k AND b.t BETWEEN a.t - interval '5 seconds' AND a.t + interval '5 seconds'$q$,
  :own_rows);
SET windowjoin.leader_participation = off;
SELECT kp_leader($q$SELECT a.v AS av, b.v AS bv FROM pa a FULL JOIN pb b
  ON a.k = b.k AND b.t BETWEEN a.t - interval '5 seconds' AND a.t + interval '5 seconds'$q$);
SELECT kp_full_joins() AS split_check;
RESET windowjoin.leader_participation;
SET max_parallel_workers = 1;
SELECT kp_leader($q$SELECT a.v AS av, b.v AS bv FROM pa a FULL JOIN pb b
  ON a.k = b.k AND b.t BETWEEN a.t - interval '5 seconds' AND a.t + interval '5 seconds'$q$);
SELECT wj_test.split_check('IntervalJoin', $q$SELECT a.v AS av, b.v AS bv FROM pa a FULL JOIN pb b
  ON a.k = b.k AND b.t BETWEEN a.t - interval '5 seconds' AND a.t + interval '5 seconds'$q$);
RESET max_parallel_workers;
SET max_parallel_workers_per_gather = 1;
SELECT kp_leader($q$SELECT a.v AS av, b.v AS bv FROM pa a FULL JOIN pb b
  ON a.k = b.k AND b.t BETWEEN a.t - interval '5 seconds' AND a.t + interval '5 seconds'$q$);
SET max_parallel_workers_per_gather = 2;
DROP FUNCTION kp_leader(text, bigint);

-- Two ways to key-partition a join, chosen on cost.  In the plans above
-- each participant reads its share of both inputs and a KeyExchange under
-- each Sort writes the rows into their partitions' shared files, then
-- returns the rows of the partition being joined.  An input without a
-- partial path (parallel_workers = 0) is read in full by every participant,
-- its scan keeping the partition's rows (a filter on the parameter).
ALTER TABLE pb SET (parallel_workers = 0);
EXPLAIN (COSTS OFF)
SELECT count(*) FROM pa a FULL JOIN pb b
  ON a.k = b.k AND b.t BETWEEN a.t - interval '5 seconds' AND a.t + interval '5 seconds';
SELECT kp_full_joins() AS split_check;
ALTER TABLE pb RESET (parallel_workers);
DROP FUNCTION kp_full_joins();
-- The KeyExchange computes each row's partition from its child's rows,
-- here a scan's own tuples (the tables have just the join's columns, so
-- nothing is projected below it): the keys spread over the participants.
CREATE TABLE kxa (k int, t timestamp);
CREATE TABLE kxb (k int, t timestamp);
INSERT INTO kxa SELECT i % 100, '2024-01-01'::timestamp + i * interval '1 second'
  FROM generate_series(1, 20000) i;
INSERT INTO kxb SELECT i % 100, '2024-01-01'::timestamp + i * interval '1 second' + interval '500 ms'
  FROM generate_series(1, 20000) i;
ANALYZE kxa;
ANALYZE kxb;
CREATE FUNCTION kx_spread(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  line text;
  launched int;
  busy int;
  spread bool := false;
  exchanges int;
BEGIN
  -- Which participant claims which partition is a race (a worker that
  -- reaches the partitions first may join them all while the other waits
  -- for a CPU), so up to five runs: keys that all land in one partition
  -- never show more than one participant with rows
  FOR attempt IN 1..5 LOOP
    busy := 0;
    exchanges := 0;
    FOR line IN SELECT l FROM wj_test.explain(q, 'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF') l LOOP
      IF line ~ 'Workers Launched: ' THEN
        launched := (regexp_match(line, 'Workers Launched: (\d+)'))[1]::int;
      END IF;
      IF line ~ 'Parallel Custom Scan \(KeyExchange\)' THEN exchanges := exchanges + 1; END IF;
      IF line ~ 'Leader Rows: [1-9]' OR line ~ 'Worker \d+:  Peak State.*Rows: [1-9]' THEN
        busy := busy + 1;
      END IF;
    END LOOP;
    spread := busy > 1;
    EXIT WHEN spread;
  END LOOP;
  RETURN format('exchanges: %s, workers launched: %s, more than one participant with rows: %s',
                exchanges, launched, spread);
END $$;
SELECT kx_spread($q$SELECT count(*) FROM kxa a FULL JOIN kxb b
  ON a.k = b.k AND b.t BETWEEN a.t - interval '2 seconds' AND a.t + interval '2 seconds'$q$);
SELECT wj_test.split_check('IntervalJoin', $q$SELECT a.k AS ak, a.t AS at, b.k AS bk, b.t AS bt FROM kxa a FULL JOIN kxb b
  ON a.k = b.k AND b.t BETWEEN a.t - interval '2 seconds' AND a.t + interval '2 seconds'$q$,
  key_partitioned => true);
DROP FUNCTION kx_spread(text);
-- Where the exchanged rows go: chunks in shared memory, within
-- work_mem x hash_mem_multiplier per planned participant, and past it the
-- temporary files; the rows are the same either way
CREATE FUNCTION kx_where(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  m text[];
BEGIN
  FOR m IN SELECT regexp_match(l, 'Rows Exchanged: (\d+) in shared memory \(peak (\d+)kB\), (\d+) in temporary files')
           FROM wj_test.explain(q, 'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF') l
           WHERE l ~ 'Rows Exchanged' LOOP
    RETURN NEXT format('rows: %s, in shared memory: %s, in files: %s, peak within the budget: %s',
                       m[1]::bigint + m[3]::bigint, m[1]::bigint > 0, m[3]::bigint > 0,
                       m[2]::bigint * 1024 <= pg_size_bytes(current_setting('work_mem')) *
                         current_setting('hash_mem_multiplier')::float8 * 3);
  END LOOP;
END $$;
SELECT kx_where($q$SELECT count(*) FROM kxa a FULL JOIN kxb b
  ON a.k = b.k AND b.t BETWEEN a.t - interval '2 seconds' AND a.t + interval '2 seconds'$q$);
SET work_mem = '64kB';
SET hash_mem_multiplier = 1;
SELECT kx_where($q$SELECT count(*) FROM kxa a FULL JOIN kxb b
  ON a.k = b.k AND b.t BETWEEN a.t - interval '2 seconds' AND a.t + interval '2 seconds'$q$);
SELECT wj_test.split_check('IntervalJoin', $q$SELECT a.k AS ak, a.t AS at, b.k AS bk, b.t AS bt FROM kxa a FULL JOIN kxb b
  ON a.k = b.k AND b.t BETWEEN a.t - interval '2 seconds' AND a.t + interval '2 seconds'$q$,
  key_partitioned => true);
RESET work_mem;
RESET hash_mem_multiplier;
DROP FUNCTION kx_where(text);
DROP TABLE kxa, kxb;
-- A parallel plan run without parallel mode: the lazily evaluated query of
-- a set-returning SQL function may be run again, so its Gather runs the plan
-- in the leader alone, without shared memory; the KeyExchange then reads its
-- input again for each partition and keeps the partition's rows
CREATE FUNCTION kx_alone() RETURNS SETOF text LANGUAGE sql AS $f$
  SELECT count(*) || ' ' || sum(coalesce(a.v, 0) + coalesce(b.v, 0)) FROM pa a FULL JOIN pb b
    ON a.k = b.k AND b.t BETWEEN a.t - interval '5 seconds' AND a.t + interval '5 seconds' $f$;
SELECT kx_alone();
DROP FUNCTION kx_alone();
SET max_parallel_workers_per_gather = 0;
SELECT count(*), sum(coalesce(a.v, 0) + coalesce(b.v, 0)) FROM pa a FULL JOIN pb b
  ON a.k = b.k AND b.t BETWEEN a.t - interval '5 seconds' AND a.t + interval '5 seconds';
SET max_parallel_workers_per_gather = 2;

-- The same with the leader not participating: only the workers run the node
SET parallel_leader_participation = off;
SELECT wj_test.split_check('IntervalJoin', $q$SELECT a.v AS av, b.v AS bv FROM pa a LEFT JOIN pb b
  ON a.k = b.k AND b.t BETWEEN a.t - interval '5 seconds' AND a.t + interval '5 seconds'$q$);
SELECT wj_test.split_check('WindowJoin', $q$SELECT a.v AS av, b.v AS bv, a.window_start
  FROM (SELECT * FROM pa, hop(pa.t, interval '1 minute', interval '3 minutes')) a
  LEFT JOIN (SELECT * FROM pb, hop(pb.t, interval '1 minute', interval '3 minutes')) b
    ON a.window_start = b.window_start AND a.window_end = b.window_end AND a.k = b.k$q$);
SELECT wj_test.split_check('AsOfJoin', $q$SELECT a.v AS av, x.v AS xv FROM pa a LEFT JOIN LATERAL (
  SELECT * FROM pv WHERE pv.k = a.k AND pv.t <= a.t ORDER BY pv.t DESC LIMIT 1) x ON true$q$);
SELECT wj_test.split_check('WindowExpand', $q$SELECT window_start, window_end, sum(v), count(*)
  FROM pw, hop(t, interval '1 minute', interval '3 minutes') GROUP BY 1, 2$q$);
-- (inputs too large for work_mem to be grouped by window in the node, so
-- that the serial node over two Gathers is not the cheaper plan: sorted key
-- partitions, exchanged)
SET work_mem = '64kB';
SELECT wj_test.split_check('WindowJoin', $q$SELECT a.v AS av, b.v AS bv, a.window_start AS aws, b.window_start AS bws
  FROM (SELECT * FROM pa, tumble(pa.t, interval '1 minute')) a
  FULL JOIN (SELECT * FROM pb, tumble(pb.t, interval '1 minute')) b
    ON a.window_start = b.window_start AND a.window_end = b.window_end AND a.k = b.k$q$);
RESET work_mem;
SELECT wj_test.split_check('IntervalJoin', $q$SELECT a.v AS av, b.v AS bv FROM pa a FULL JOIN pb b
  ON a.k = b.k AND b.t BETWEEN a.t - interval '5 seconds' AND a.t + interval '5 seconds'$q$);
RESET parallel_leader_participation;

-- EXPLAIN ANALYZE of a node under a Gather: the leader's rows, a line per
-- worker with its peak state and rows, and totals.
-- wj_test.worker_figures(node, q) checks that the per-worker lines are
-- there (one per launched worker) and that the leader's rows plus the
-- workers' add up to the node's rows (its actual rows per loop times the
-- loops, up to the rounding of the former).
SELECT wj_test.worker_figures('IntervalJoin', $q$SELECT a.v AS av, b.v AS bv FROM pa a JOIN pb b
  ON a.k = b.k AND b.t BETWEEN a.t - interval '5 seconds' AND a.t + interval '5 seconds'$q$);
SELECT wj_test.worker_figures('WindowJoin', $q$SELECT a.v AS av, b.v AS bv, a.window_start
  FROM (SELECT * FROM pa, hop(pa.t, interval '1 minute', interval '3 minutes')) a
  LEFT JOIN (SELECT * FROM pb, hop(pb.t, interval '1 minute', interval '3 minutes')) b
    ON a.window_start = b.window_start AND a.window_end = b.window_end AND a.k = b.k$q$);
SELECT wj_test.worker_figures('AsOfJoin', $q$SELECT a.v AS av, x.v AS xv FROM pa a LEFT JOIN LATERAL (
  SELECT * FROM pv WHERE pv.k = a.k AND pv.t <= a.t ORDER BY pv.t DESC LIMIT 1) x ON true$q$);

-- windowjoin.leader_participation = off: the leader of the Gather leaves its
-- share of the AsOfJoin's outer rows to the workers (no rows of its own).
-- The versions: each worker loads its own copy while the copies fit the
-- node's memory limit together, two copies of every version of pv in all;
-- past it (work_mem 100kB, hash_mem_multiplier 1) they are loaded once: by
-- the first participant to start, the leader as a rule (it loads them for
-- the workers while they start), the others using its image in shared
-- memory (their peak state is none), so that the participants hold one
-- copy in all.  The rows are those of the node off.  shares(q, loaders):
-- the workers launched, the leader's rows and, if loaders, how many
-- participants (leader or worker) hold state and all of it.
CREATE FUNCTION shares(q text, loaders boolean DEFAULT false) RETURNS text LANGUAGE sql AS $$
  SELECT format('workers launched: %s, leader rows: %s', f->>'launched', f->>'leader') ||
    CASE WHEN loaders THEN format(', participants that loaded the versions: %s, versions held in all: %s',
                                  (f->>'holders')::int +
                                  CASE WHEN (f->>'leader_state')::bigint > 0 THEN 1 ELSE 0 END,
                                  f->>'total') ELSE '' END
  FROM wj_test.parallel_figures(q) f
$$;
-- (With key partitioning on, the default, the versions are loaded split by
-- key partition instead: below.)
SET windowjoin.leader_participation = off;
SET windowjoin.enable_key_partitioning = off;
SELECT shares($q$SELECT a.v AS av, x.v AS xv FROM pa a LEFT JOIN LATERAL (
  SELECT * FROM pv WHERE pv.k = a.k AND pv.t <= a.t ORDER BY pv.t DESC LIMIT 1) x ON true$q$, true);
SET work_mem = '100kB';
SET hash_mem_multiplier = 1;
SELECT shares($q$SELECT a.v AS av, x.v AS xv FROM pa a LEFT JOIN LATERAL (
  SELECT * FROM pv WHERE pv.k = a.k AND pv.t <= a.t ORDER BY pv.t DESC LIMIT 1) x ON true$q$, true);
RESET work_mem;
RESET hash_mem_multiplier;
RESET windowjoin.enable_key_partitioning;
-- Split by key partition: one partition per participant, each loaded by the
-- participant that claims it, so every version is held once in all (which
-- participant loads how many partitions depends on timing)
SELECT format('workers launched: %s, leader rows: %s, versions held in all: %s',
              f->>'launched', f->>'leader', f->>'total')
  FROM wj_test.parallel_figures($q$SELECT a.v AS av, x.v AS xv FROM pa a LEFT JOIN LATERAL (
  SELECT * FROM pv WHERE pv.k = a.k AND pv.t <= a.t ORDER BY pv.t DESC LIMIT 1) x ON true$q$) f;
SELECT count(*) AS versions FROM pv WHERE t IS NOT NULL AND k IS NOT NULL;
SELECT wj_test.split_check('AsOfJoin', $q$SELECT a.v AS av, x.v AS xv FROM pa a LEFT JOIN LATERAL (
  SELECT * FROM pv WHERE pv.k = a.k AND pv.t <= a.t ORDER BY pv.t DESC LIMIT 1) x ON true$q$);
-- the same for the pane aggregation: the workers aggregate every pane
SELECT wj_test.split_check('WindowExpand', $q$SELECT window_start, window_end, sum(v), count(*)
  FROM pw, hop(t, interval '1 minute', interval '3 minutes') GROUP BY 1, 2$q$);
-- and for the interval and window joins over a partial outer input (not
-- key-partitioned)
SET windowjoin.enable_key_partitioning = off;
SELECT shares($q$SELECT a.v AS av, b.v AS bv FROM pa a JOIN pb b
  ON a.k = b.k AND b.t BETWEEN a.t - interval '5 seconds' AND a.t + interval '5 seconds'$q$);
SELECT wj_test.split_check('IntervalJoin', $q$SELECT a.v AS av, b.v AS bv FROM pa a JOIN pb b
  ON a.k = b.k AND b.t BETWEEN a.t - interval '5 seconds' AND a.t + interval '5 seconds'$q$);
SELECT shares($q$SELECT a.v AS av, b.v AS bv, a.window_start
  FROM (SELECT * FROM pa, hop(pa.t, interval '1 minute', interval '3 minutes')) a
  LEFT JOIN (SELECT * FROM pb, hop(pb.t, interval '1 minute', interval '3 minutes')) b
    ON a.window_start = b.window_start AND a.window_end = b.window_end AND a.k = b.k$q$);
SELECT wj_test.split_check('WindowJoin', $q$SELECT a.v AS av, b.v AS bv, a.window_start
  FROM (SELECT * FROM pa, hop(pa.t, interval '1 minute', interval '3 minutes')) a
  LEFT JOIN (SELECT * FROM pb, hop(pb.t, interval '1 minute', interval '3 minutes')) b
    ON a.window_start = b.window_start AND a.window_end = b.window_end AND a.k = b.k$q$);
RESET windowjoin.enable_key_partitioning;
-- on: the leader takes its share as PostgreSQL's nodes do (the rows alone
-- are checked: how the blocks of the scan fall to whom is not fixed)
SET windowjoin.leader_participation = on;
SELECT wj_test.split_check('AsOfJoin', $q$SELECT a.v AS av, x.v AS xv FROM pa a LEFT JOIN LATERAL (
  SELECT * FROM pv WHERE pv.k = a.k AND pv.t <= a.t ORDER BY pv.t DESC LIMIT 1) x ON true$q$);
RESET windowjoin.leader_participation;
DROP FUNCTION shares(text, boolean);

-- The versions of a parallel lookup: each participant loads its own copy
-- while the copies of the three participants fit the node's memory limit
-- together (16MB x 2 here), one copy is loaded and shared past it (6MB x
-- 2: 100,000 versions are about 9 MB a copy, by the planner's estimate,
-- asof_share_versions()).  While one participant loads the shared
-- versions, the others read their outer rows ahead instead of sleeping,
-- and join those first once the versions are ready (asof_shared.c).  How
-- many they read depends on timing: EXPLAIN ANALYZE shows the count for all
-- participants, checked here to be there and to be no more than the outer
-- rows; the rows are those of the serial plan and of the node off.  100,000 versions, so that the load takes long
-- enough for the workers to start and read ahead (as a rule, not always),
-- and work_mem for them to be looked up.  No Gather Merge: with the Gather
-- free (parallel_tuple_cost = 0) a serial AsOfJoin over a Gather of the
-- outer rows and a Gather Merge of the versions would cost about as little.
SET work_mem = '16MB';
SET enable_gathermerge = off;
SET windowjoin.enable_key_partitioning = off;
CREATE TABLE pra_v (k int, t timestamp, v int);
CREATE TABLE pra_o (k int, t timestamp, v int);
INSERT INTO pra_v SELECT i % 50, '2024-01-01'::timestamp + i * interval '1 second', i
  FROM generate_series(1, 100000) i;
INSERT INTO pra_o SELECT i % 60, '2024-01-01'::timestamp + (i * 7919 % 110000) * interval '1 second', i
  FROM generate_series(1, 200000) i;
CREATE INDEX ON pra_v (k, t);	-- for the node off: a LATERAL lookup per row
ANALYZE pra_v;
ANALYZE pra_o;
CREATE FUNCTION read_ahead(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  line text;
  ahead bigint;
BEGIN
  FOR line IN SELECT l FROM wj_test.explain(q, 'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF') l LOOP
    IF line ~ 'Outer Rows Read Ahead: ' THEN
      ahead := (regexp_match(line, 'Outer Rows Read Ahead: (\d+)'))[1]::bigint;
    END IF;
  END LOOP;
  RETURN format('read ahead shown: %s, at most the outer rows: %s',
                ahead IS NOT NULL, ahead <= (SELECT count(*) FROM pra_o));
END $$;
EXPLAIN (COSTS OFF) SELECT o.v, x.v FROM pra_o o JOIN LATERAL (
  SELECT * FROM pra_v WHERE pra_v.k = o.k AND pra_v.t <= o.t ORDER BY pra_v.t DESC LIMIT 1) x ON true;
SELECT wj_test.split_check('AsOfJoin', $q$SELECT o.v AS ov, x.v AS xv FROM pra_o o JOIN LATERAL (
  SELECT * FROM pra_v WHERE pra_v.k = o.k AND pra_v.t <= o.t ORDER BY pra_v.t DESC LIMIT 1) x ON true$q$);
SET work_mem = '6MB';
EXPLAIN (COSTS OFF) SELECT o.v, x.v FROM pra_o o JOIN LATERAL (
  SELECT * FROM pra_v WHERE pra_v.k = o.k AND pra_v.t <= o.t ORDER BY pra_v.t DESC LIMIT 1) x ON true;
SELECT read_ahead($q$SELECT o.v, x.v FROM pra_o o JOIN LATERAL (
  SELECT * FROM pra_v WHERE pra_v.k = o.k AND pra_v.t <= o.t ORDER BY pra_v.t DESC LIMIT 1) x ON true$q$);
SELECT wj_test.split_check('AsOfJoin', $q$SELECT o.v AS ov, x.v AS xv FROM pra_o o JOIN LATERAL (
  SELECT * FROM pra_v WHERE pra_v.k = o.k AND pra_v.t <= o.t ORDER BY pra_v.t DESC LIMIT 1) x ON true$q$);
-- LEFT, the leader taking its share too
SET windowjoin.leader_participation = on;
SELECT wj_test.split_check('AsOfJoin', $q$SELECT o.v AS ov, x.v AS xv FROM pra_o o LEFT JOIN LATERAL (
  SELECT * FROM pra_v WHERE pra_v.k = o.k AND pra_v.t <= o.t ORDER BY pra_v.t DESC LIMIT 1) x ON true$q$);
RESET windowjoin.leader_participation;
DROP FUNCTION read_ahead(text);

-- With key partitioning on (the default) the versions of a lookup with keys
-- and an integer-like time are loaded once, split by key partition: the
-- versions' scan keeps the rows of a partition parameter ($p = -1: all of
-- them), one partition per participant; each participant loads the
-- partitions it claims and writes their images to shared memory, then
-- reads all of them (asof_shared.c).  asof_join_spill.sql checks their
-- fallback when the partitions together exceed the memory limit.
RESET windowjoin.enable_key_partitioning;
EXPLAIN (COSTS OFF) SELECT o.v, x.v FROM pra_o o JOIN LATERAL (
  SELECT * FROM pra_v WHERE pra_v.k = o.k AND pra_v.t <= o.t ORDER BY pra_v.t DESC LIMIT 1) x ON true;
SELECT wj_test.split_check('AsOfJoin', $q$SELECT o.v AS ov, x.v AS xv FROM pra_o o JOIN LATERAL (
  SELECT * FROM pra_v WHERE pra_v.k = o.k AND pra_v.t <= o.t ORDER BY pra_v.t DESC LIMIT 1) x ON true$q$);
SELECT format('versions held in all: %s', f->>'total')
  FROM wj_test.parallel_figures($q$SELECT o.v AS ov, x.v AS xv FROM pra_o o JOIN LATERAL (
  SELECT * FROM pra_v WHERE pra_v.k = o.k AND pra_v.t <= o.t ORDER BY pra_v.t DESC LIMIT 1) x ON true$q$) f;
-- The partitions are dealt by the hash that wj_split_seed (keypart_planner.c)
-- picks from the key's most common values: the plain hash puts 38,000 of
-- pra_v's 100,000 versions in the largest of three partitions, the seed in
-- the plan above 34,000 (the plan's filter names the seed).
SELECT (SELECT array_agg(n ORDER BY p) FROM (SELECT ((hashint4(k) & 2147483647) % 30) / 10 AS p,
          count(*) AS n FROM pra_v GROUP BY 1) x) AS plain_hash,
       (SELECT array_agg(n ORDER BY p) FROM (SELECT ((hashint4extended(k, 2) & 2147483647)::int4 % 30) / 10 AS p,
          count(*) AS n FROM pra_v GROUP BY 1) x) AS seed_2;
-- A user who may not read every row of the versions (row-level security)
-- gets the plain hash: the statistics' values are not used for them, as
-- the seed would show something of them in EXPLAIN.
CREATE ROLE regress_wj_split_rls;
GRANT SELECT ON pra_v, pra_o TO regress_wj_split_rls;
ALTER TABLE pra_v ENABLE ROW LEVEL SECURITY;
CREATE POLICY pra_v_all ON pra_v USING (true);
SET ROLE regress_wj_split_rls;
EXPLAIN (COSTS OFF) SELECT o.v, x.v FROM pra_o o JOIN LATERAL (
  SELECT * FROM pra_v WHERE pra_v.k = o.k AND pra_v.t <= o.t ORDER BY pra_v.t DESC LIMIT 1) x ON true;
RESET ROLE;
DROP POLICY pra_v_all ON pra_v;
ALTER TABLE pra_v DISABLE ROW LEVEL SECURITY;
REVOKE SELECT ON pra_v, pra_o FROM regress_wj_split_rls;
DROP ROLE regress_wj_split_rls;
SET windowjoin.leader_participation = on;
SELECT wj_test.split_check('AsOfJoin', $q$SELECT o.v AS ov, x.v AS xv FROM pra_o o LEFT JOIN LATERAL (
  SELECT * FROM pra_v WHERE pra_v.k = o.k AND pra_v.t <= o.t ORDER BY pra_v.t DESC LIMIT 1) x ON true$q$);
RESET windowjoin.leader_participation;
DROP TABLE pra_v, pra_o;
-- A split load reads the Sort's input itself and sorts each key's versions
-- (asof_lookup_load_unsorted): versions stored in random order, three per
-- key and second, plus versions with a NULL key or time; backward and
-- forward.  The node breaks a tie of times by the versions' other columns
-- the subquery returns (the Sort's keys after the time): looking backward
-- the last of the ties in that order, which is PostgreSQL's answer to ORDER
-- BY t DESC, s DESC (a text, passed by reference), and forward to ORDER BY
-- t, v DESC; compared here row for row.
CREATE TABLE prt_v (k int, t timestamp, s text, v int);
CREATE TABLE prt_o (k int, t timestamp, v int);
INSERT INTO prt_v SELECT CASE WHEN i % 997 = 0 THEN NULL ELSE i % 40 END,
    CASE WHEN i % 991 = 0 THEN NULL
         ELSE '2024-01-01'::timestamp + (i / 120) * interval '1 second' END,
    md5(i::text), i
  FROM generate_series(1, 60000) i ORDER BY md5(i::text);
INSERT INTO prt_o SELECT i % 45, '2024-01-01'::timestamp + (i * 7919 % 520000) * interval '1 millisecond', i
  FROM generate_series(1, 50000) i;
CREATE INDEX ON prt_v (k, t);	-- for the node off: a LATERAL lookup per row
ANALYZE prt_v;
ANALYZE prt_o;
EXPLAIN (COSTS OFF) SELECT o.v, x.s FROM prt_o o LEFT JOIN LATERAL (
  SELECT s FROM prt_v WHERE prt_v.k = o.k AND prt_v.t <= o.t ORDER BY prt_v.t DESC LIMIT 1) x ON true;
-- (one table per direction: under a UNION ALL the join is not at the top
-- query level, and its load is not split)
CREATE TEMP TABLE prt_back AS SELECT o.v AS ov, x.s AS x FROM prt_o o LEFT JOIN LATERAL (
  SELECT s FROM prt_v WHERE prt_v.k = o.k AND prt_v.t <= o.t ORDER BY prt_v.t DESC LIMIT 1) x ON true;
CREATE TEMP TABLE prt_fwd AS SELECT o.v AS ov, x.v AS x FROM prt_o o LEFT JOIN LATERAL (
  SELECT v FROM prt_v WHERE prt_v.k = o.k AND prt_v.t >= o.t ORDER BY prt_v.t LIMIT 1) x ON true;
SET windowjoin.enable_asof_join = off;
SELECT 'backward' AS dir, count(*) AS rows, count(x) AS matched,
       (SELECT count(*) FROM (TABLE prt_back EXCEPT ALL
          SELECT o.v, x.s FROM prt_o o LEFT JOIN LATERAL (
            SELECT s FROM prt_v WHERE prt_v.k = o.k AND prt_v.t <= o.t
            ORDER BY prt_v.t DESC, prt_v.s DESC LIMIT 1) x ON true) d) AS differ
  FROM prt_back
UNION ALL
SELECT 'forward', count(*), count(x),
       (SELECT count(*) FROM (TABLE prt_fwd EXCEPT ALL
          SELECT o.v, x.v FROM prt_o o LEFT JOIN LATERAL (
            SELECT v FROM prt_v WHERE prt_v.k = o.k AND prt_v.t >= o.t
            ORDER BY prt_v.t, prt_v.v DESC LIMIT 1) x ON true) d)
  FROM prt_fwd;
RESET windowjoin.enable_asof_join;
DROP TABLE prt_v, prt_o, prt_back, prt_fwd;
RESET work_mem;
RESET enable_gathermerge;

-- Rescans: a Gather above each node, in a subquery run again for every row
-- (the SubPlan is correlated only above the Gather, so the Gather and the
-- node below it are rescanned, not the subquery planned with parameters)
EXPLAIN (COSTS OFF)
SELECT g, (SELECT s.c || ' ' || s.total || ' ' || g FROM (
  SELECT count(*) AS c, sum(a.v + b.v) AS total FROM pa a JOIN pb b
    ON a.k = b.k AND b.t BETWEEN a.t - interval '5 seconds' AND a.t + interval '5 seconds'
  OFFSET 0) s) FROM generate_series(1, 3) g;
SELECT g, (SELECT s.c || ' ' || s.total || ' ' || g FROM (
  SELECT count(*) AS c, sum(a.v + b.v) AS total FROM pa a JOIN pb b
    ON a.k = b.k AND b.t BETWEEN a.t - interval '5 seconds' AND a.t + interval '5 seconds'
  OFFSET 0) s) FROM generate_series(1, 3) g;
SELECT g, (SELECT s.c || ' ' || s.total || ' ' || g FROM (
  SELECT count(*) AS c, sum(a.v + b.v) AS total FROM
    (SELECT * FROM pa, hop(pa.t, interval '1 minute', interval '3 minutes')) a
    JOIN (SELECT * FROM pb, hop(pb.t, interval '1 minute', interval '3 minutes')) b
    ON a.window_start = b.window_start AND a.window_end = b.window_end AND a.k = b.k
  OFFSET 0) s) FROM generate_series(1, 3) g;
SELECT g, (SELECT s.c || ' ' || s.total || ' ' || g FROM (
  SELECT count(*) AS c, sum(x.v) AS total FROM pa a LEFT JOIN LATERAL (
    SELECT * FROM pv WHERE pv.k = a.k AND pv.t <= a.t ORDER BY pv.t DESC LIMIT 1) x ON true
  OFFSET 0) s) FROM generate_series(1, 3) g;
SELECT g, (SELECT s.c || ' ' || s.total || ' ' || g FROM (
  SELECT count(*) AS c, sum(coalesce(a.v, 0) + coalesce(b.v, 0)) AS total FROM
    (SELECT * FROM pa, tumble(pa.t, interval '1 minute')) a
    FULL JOIN (SELECT * FROM pb, tumble(pb.t, interval '1 minute')) b
    ON a.window_start = b.window_start AND a.window_end = b.window_end AND a.k = b.k
  OFFSET 0) s) FROM generate_series(1, 3) g;
EXPLAIN (COSTS OFF)
SELECT g, (SELECT s.c || ' ' || s.total || ' ' || g FROM (
  SELECT count(*) AS c, sum(total) AS total FROM (SELECT window_start, sum(v) AS total
    FROM pw, hop(t, interval '1 minute', interval '3 minutes') GROUP BY 1, window_end) w
  OFFSET 0) s) FROM generate_series(1, 3) g;
SELECT g, (SELECT s.c || ' ' || s.total || ' ' || g FROM (
  SELECT count(*) AS c, sum(total) AS total FROM (SELECT window_start, sum(v) AS total
    FROM pw, hop(t, interval '1 minute', interval '3 minutes') GROUP BY 1, window_end) w
  OFFSET 0) s) FROM generate_series(1, 3) g;
-- the same totals without workers
SET max_parallel_workers_per_gather = 0;
SELECT count(*), sum(a.v + b.v) FROM pa a JOIN pb b
    ON a.k = b.k AND b.t BETWEEN a.t - interval '5 seconds' AND a.t + interval '5 seconds';
SELECT count(*), sum(a.v + b.v) FROM
    (SELECT * FROM pa, hop(pa.t, interval '1 minute', interval '3 minutes')) a
    JOIN (SELECT * FROM pb, hop(pb.t, interval '1 minute', interval '3 minutes')) b
    ON a.window_start = b.window_start AND a.window_end = b.window_end AND a.k = b.k;
SELECT count(*), sum(x.v) FROM pa a LEFT JOIN LATERAL (
    SELECT * FROM pv WHERE pv.k = a.k AND pv.t <= a.t ORDER BY pv.t DESC LIMIT 1) x ON true;
SELECT count(*), sum(coalesce(a.v, 0) + coalesce(b.v, 0)) FROM
    (SELECT * FROM pa, tumble(pa.t, interval '1 minute')) a
    FULL JOIN (SELECT * FROM pb, tumble(pb.t, interval '1 minute')) b
    ON a.window_start = b.window_start AND a.window_end = b.window_end AND a.k = b.k;
SELECT count(*), sum(total) FROM (SELECT window_start, sum(v) AS total
    FROM pw, hop(t, interval '1 minute', interval '3 minutes') GROUP BY 1, window_end) w;
SET max_parallel_workers_per_gather = 2;

-- Below a Parallel Hash Join the leader takes its share even when it would
-- step back: a participant that reaches the join after the others built
-- its table skips the inner side's plan, and one that arrives after they
-- probed it returns at once.  A leader that left its share to the workers
-- could build and probe alone, with none of the rows (found by the
-- parallel fuzzer: a TumbleAgg on both sides of a Parallel Hash Anti Join
-- returned no row of 6).  leader_participation = off: the leader steps back
-- wherever it may; five runs, as the workers' start is a race.
CREATE TABLE phl (k int, t timestamp, v int);
CREATE TABLE phr (k int, t timestamp, v int);
INSERT INTO phl SELECT i % 3, '2024-01-01'::timestamp + i * interval '7 minutes', i
  FROM generate_series(1, 6) i;
INSERT INTO phr VALUES (1, '2024-01-01 00:07', 1);
ANALYZE phl;
ANALYZE phr;
SET windowjoin.leader_participation = off;
SET enable_mergejoin = off;
SET enable_nestloop = off;
\set phq 'SELECT L.c FROM (SELECT k, window_start, window_end, count(*) AS c FROM phl, tumble(t, interval \'10 minutes\') GROUP BY 1, 2, 3) L WHERE NOT EXISTS (SELECT 1 FROM (SELECT k, window_start, window_end, max(v) FROM phr, tumble(t, interval \'10 minutes\') GROUP BY 1, 2, 3) R WHERE R.k = L.k AND R.window_start = L.window_start AND R.window_end = L.window_end)'
-- (16 and later may hash the other side: a Parallel Hash Right Anti Join)
SELECT count(*) FILTER (WHERE l ~ 'Parallel Hash (Right )?Anti Join') AS parallel_hash_anti_joins,
       count(*) FILTER (WHERE l ~ 'Parallel Custom Scan \(TumbleAgg\)') AS parallel_tumble_aggs
  FROM wj_test.plan_lines(:'phq') l;
CREATE FUNCTION ph_runs(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  n bigint;
  counts bigint[] := '{}';
BEGIN
  FOR i IN 1..5 LOOP
    EXECUTE 'SELECT count(*) FROM (' || q || ') x' INTO n;
    counts := counts || n;
  END LOOP;
  RETURN array_to_string(counts, ' ');
END $$;
SELECT ph_runs(:'phq') AS rows_of_five_runs;
SET windowjoin.enable_window_aggregate = off;
SELECT ph_runs(:'phq') AS rows_nodes_off;
RESET windowjoin.enable_window_aggregate;
RESET windowjoin.leader_participation;
RESET enable_mergejoin;
RESET enable_nestloop;
DROP FUNCTION ph_runs(text);
DROP TABLE phl, phr;

-- Errors raised inside a worker reach the client (the leader does not run
-- the node here)
SET parallel_leader_participation = off;
SET windowjoin.max_windows_per_row = 2;
SELECT count(*) FROM
  (SELECT * FROM pa, hop(pa.t, interval '1 minute', interval '3 minutes')) a
  JOIN (SELECT * FROM pb, hop(pb.t, interval '1 minute', interval '3 minutes')) b
  ON a.window_start = b.window_start AND a.window_end = b.window_end AND a.k = b.k;
-- ... and from the write phase of the parallel-aware WindowExpand
SELECT count(*) FROM (SELECT k, window_start, window_end, sum(v)
  FROM pwn, hop(t, interval '20 seconds', interval '1 minute') GROUP BY 1, 2, 3) w;
RESET windowjoin.max_windows_per_row;
INSERT INTO pa VALUES (1, '4714-11-24 00:00:01 BC', 0);
EXPLAIN (COSTS OFF)
SELECT count(*) FROM pa a JOIN pb b
  ON a.k = b.k AND b.t BETWEEN a.t - interval '5 seconds' AND a.t + interval '5 seconds';
SELECT count(*) FROM pa a JOIN pb b
  ON a.k = b.k AND b.t BETWEEN a.t - interval '5 seconds' AND a.t + interval '5 seconds';
DELETE FROM pa WHERE v = 0;
RESET parallel_leader_participation;

DROP TABLE pa, pb, pv, pw;
