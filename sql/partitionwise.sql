--
-- Partitionwise joins: with enable_partitionwise_join on, two tables
-- partitioned the same way on the join key are joined partition pair by
-- partition pair (child joins) under an Append.  IntervalJoin and
-- WindowJoin are offered for each pair; the rows must equal those of the
-- nodes off and of partitionwise joins off, serial and in parallel
-- (Parallel Append).
--
SET TimeZone = 'UTC';
SET datestyle = 'ISO, YMD';
SET IntervalStyle = 'postgres';
CREATE SCHEMA partitionwise;
SET search_path = partitionwise, public;

\set ECHO none
\i sql/include/helpers.sql
\set ECHO all

-- hash partitions of the device key, and list partitions of it with a
-- default partition; NULL keys and NULL times included
CREATE TABLE ha (k int, t timestamp, v int) PARTITION BY HASH (k);
CREATE TABLE ha_0 PARTITION OF ha FOR VALUES WITH (MODULUS 3, REMAINDER 0);
CREATE TABLE ha_1 PARTITION OF ha FOR VALUES WITH (MODULUS 3, REMAINDER 1);
CREATE TABLE ha_2 PARTITION OF ha FOR VALUES WITH (MODULUS 3, REMAINDER 2);
CREATE TABLE hb (k int, t timestamp, v int) PARTITION BY HASH (k);
CREATE TABLE hb_0 PARTITION OF hb FOR VALUES WITH (MODULUS 3, REMAINDER 0);
CREATE TABLE hb_1 PARTITION OF hb FOR VALUES WITH (MODULUS 3, REMAINDER 1);
CREATE TABLE hb_2 PARTITION OF hb FOR VALUES WITH (MODULUS 3, REMAINDER 2);
INSERT INTO ha SELECT i % 12, '2024-01-01'::timestamp + i * interval '7 seconds', i
  FROM generate_series(1, 6000) i;
INSERT INTO ha VALUES (NULL, '2024-01-01 01:00', -1), (3, NULL, -2);
INSERT INTO hb SELECT i % 12, '2024-01-01'::timestamp + i * interval '11 seconds', i
  FROM generate_series(1, 4000) i;
INSERT INTO hb VALUES (NULL, '2024-01-01 01:00', -3), (4, NULL, -4);

CREATE TABLE la (k int, t timestamp, v int) PARTITION BY LIST (k);
CREATE TABLE la_low PARTITION OF la FOR VALUES IN (0, 1, 2, 3);
CREATE TABLE la_high PARTITION OF la FOR VALUES IN (4, 5, 6, 7);
CREATE TABLE la_rest PARTITION OF la DEFAULT;
CREATE TABLE lb (k int, t timestamp, v int) PARTITION BY LIST (k);
CREATE TABLE lb_low PARTITION OF lb FOR VALUES IN (0, 1, 2, 3);
CREATE TABLE lb_high PARTITION OF lb FOR VALUES IN (4, 5, 6, 7);
CREATE TABLE lb_rest PARTITION OF lb DEFAULT;
INSERT INTO la SELECT * FROM ha;
INSERT INTO lb SELECT * FROM hb;
-- versions for the as-of join
CREATE TABLE hv (k int, t timestamp, v int) PARTITION BY HASH (k);
CREATE TABLE hv_0 PARTITION OF hv FOR VALUES WITH (MODULUS 3, REMAINDER 0);
CREATE TABLE hv_1 PARTITION OF hv FOR VALUES WITH (MODULUS 3, REMAINDER 1);
CREATE TABLE hv_2 PARTITION OF hv FOR VALUES WITH (MODULUS 3, REMAINDER 2);
INSERT INTO hv SELECT i % 12, '2024-01-01'::timestamp + i * interval '97 seconds', i
  FROM generate_series(1, 600) i;
ANALYZE ha, hb, la, lb, hv;

SET enable_partitionwise_join = on;
SET max_parallel_workers_per_gather = 0;

-- wj_test.split_check(node, q, 'partitionwise') (sql/include/helpers.sql):
-- the row count and how many rows differ (in either direction) from the
-- runs with partitionwise joins off, with the nodes off, and with both off
-- (the runs with the nodes off may use every join method); then, as a plan
-- choice, whether the plan has the node under an Append, once per
-- partition pair (how many times it appears; "Parallel Append" when that
-- is the Append).

-- IntervalJoin: one per partition pair
EXPLAIN (COSTS OFF)
SELECT a.v, b.v FROM ha a JOIN hb b
  ON a.k = b.k AND b.t BETWEEN a.t - interval '5 seconds' AND a.t + interval '5 seconds';
SELECT wj_test.split_check('IntervalJoin', $q$SELECT a.v AS av, b.v AS bv FROM ha a JOIN hb b
  ON a.k = b.k AND b.t BETWEEN a.t - interval '5 seconds' AND a.t + interval '5 seconds'$q$, 'partitionwise');
SELECT wj_test.split_check('IntervalJoin', $q$SELECT a.v AS av, b.v AS bv FROM ha a LEFT JOIN hb b
  ON a.k = b.k AND b.t BETWEEN a.t - interval '5 seconds' AND a.t + interval '5 seconds'$q$, 'partitionwise');
SELECT wj_test.split_check('IntervalJoin', $q$SELECT a.v AS av, b.v AS bv FROM la a FULL JOIN lb b
  ON a.k = b.k AND b.t BETWEEN a.t - interval '30 seconds' AND a.t$q$, 'partitionwise');
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_nestloop = off;
SELECT wj_test.split_check('IntervalJoin', $q$SELECT a.v FROM la a WHERE EXISTS (SELECT FROM lb b
  WHERE a.k = b.k AND b.t BETWEEN a.t - interval '5 seconds' AND a.t + interval '5 seconds')$q$, 'partitionwise');
SELECT wj_test.split_check('IntervalJoin', $q$SELECT a.v FROM ha a WHERE NOT EXISTS (SELECT FROM hb b
  WHERE a.k = b.k AND b.t BETWEEN a.t - interval '5 seconds' AND a.t + interval '5 seconds')$q$, 'partitionwise');
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_nestloop;

-- WindowJoin (TUMBLE): one per partition pair.  The tumble() calls leave a
-- one-row Result per side, joined above the Append by nested loops, so the
-- join methods stay on here.
EXPLAIN (COSTS OFF)
SELECT a.v, b.v FROM (SELECT * FROM ha, tumble(t, interval '1 minute')) a
  JOIN (SELECT * FROM hb, tumble(t, interval '1 minute')) b
  ON a.k = b.k AND a.window_start = b.window_start AND a.window_end = b.window_end;
SELECT wj_test.split_check('WindowJoin', $q$SELECT a.v AS av, b.v AS bv, a.window_start
  FROM (SELECT * FROM ha, tumble(t, interval '1 minute')) a
  JOIN (SELECT * FROM hb, tumble(t, interval '1 minute')) b
  ON a.k = b.k AND a.window_start = b.window_start AND a.window_end = b.window_end$q$, 'partitionwise');
-- outer joins: the nullable side's one-row Result must be joined to its
-- table below the outer join, and that join is not partitioned, so there
-- are no partition pairs (PostgreSQL's own joins of this shape neither):
-- one WindowJoin over the Appends, the same rows
SELECT wj_test.split_check('WindowJoin', $q$SELECT a.v AS av, b.v AS bv, a.window_start
  FROM (SELECT * FROM la, tumble(t, interval '1 minute')) a
  LEFT JOIN (SELECT * FROM lb, tumble(t, interval '1 minute')) b
  ON a.k = b.k AND a.window_start = b.window_start AND a.window_end = b.window_end$q$, 'partitionwise');
SELECT wj_test.split_check('WindowJoin', $q$SELECT a.v AS av, b.v AS bv, a.window_start, b.window_start AS bws
  FROM (SELECT * FROM ha, tumble(t, interval '1 minute')) a
  FULL JOIN (SELECT * FROM hb, tumble(t, interval '1 minute')) b
  ON a.k = b.k AND a.window_start = b.window_start AND a.window_end = b.window_end$q$, 'partitionwise');
-- HOP: each side joins a partitioned table with its window function scan,
-- which is not partitioned, so there are no partition pairs: one
-- WindowJoin over the Appends
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_nestloop = off;
SELECT wj_test.split_check('WindowJoin', $q$SELECT a.v AS av, b.v AS bv, a.window_start
  FROM (SELECT * FROM ha, hop(t, interval '1 minute', interval '2 minutes')) a
  JOIN (SELECT * FROM hb, hop(t, interval '1 minute', interval '2 minutes')) b
  ON a.k = b.k AND a.window_start = b.window_start AND a.window_end = b.window_end$q$, 'partitionwise');
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_nestloop;

-- AsOfJoin: the versions are a LATERAL subquery, not a partitioned
-- relation, so there are no partition pairs either
SELECT wj_test.split_check('AsOfJoin', $q$SELECT a.v AS av, r.v AS rv FROM ha a JOIN LATERAL
  (SELECT v FROM hv r WHERE r.k = a.k AND r.t <= a.t ORDER BY r.t DESC LIMIT 1) r ON true$q$, 'partitionwise');

-- In parallel: the pairs' partial paths (or parallel-safe ones) under a
-- Parallel Append below the Gather, first splitting the outer side, then
-- by key partitioning
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_nestloop = off;
SET windowjoin.enable_key_partitioning = off;
EXPLAIN (COSTS OFF)
SELECT a.v, b.v FROM ha a JOIN hb b
  ON a.k = b.k AND b.t BETWEEN a.t - interval '5 seconds' AND a.t + interval '5 seconds';
SELECT wj_test.split_check('IntervalJoin', $q$SELECT a.v AS av, b.v AS bv FROM ha a JOIN hb b
  ON a.k = b.k AND b.t BETWEEN a.t - interval '5 seconds' AND a.t + interval '5 seconds'$q$, 'partitionwise');
SELECT wj_test.split_check('IntervalJoin', $q$SELECT a.v AS av, b.v AS bv FROM la a LEFT JOIN lb b
  ON a.k = b.k AND b.t BETWEEN a.t - interval '5 seconds' AND a.t + interval '5 seconds'$q$, 'partitionwise');
SET windowjoin.enable_key_partitioning = on;
EXPLAIN (COSTS OFF)
SELECT a.v, b.v FROM la a FULL JOIN lb b
  ON a.k = b.k AND b.t BETWEEN a.t - interval '30 seconds' AND a.t;
SELECT wj_test.split_check('IntervalJoin', $q$SELECT a.v AS av, b.v AS bv FROM la a FULL JOIN lb b
  ON a.k = b.k AND b.t BETWEEN a.t - interval '30 seconds' AND a.t$q$, 'partitionwise');
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_nestloop;
SET windowjoin.enable_key_partitioning = off;
SELECT wj_test.split_check('WindowJoin', $q$SELECT a.v AS av, b.v AS bv, a.window_start
  FROM (SELECT * FROM ha, tumble(t, interval '1 minute')) a
  JOIN (SELECT * FROM hb, tumble(t, interval '1 minute')) b
  ON a.k = b.k AND a.window_start = b.window_start AND a.window_end = b.window_end$q$, 'partitionwise');
SET windowjoin.enable_key_partitioning = on;
SELECT wj_test.split_check('WindowJoin', $q$SELECT a.v AS av, b.v AS bv, a.window_start, b.window_start AS bws
  FROM (SELECT * FROM ha, tumble(t, interval '1 minute')) a
  FULL JOIN (SELECT * FROM hb, tumble(t, interval '1 minute')) b
  ON a.k = b.k AND a.window_start = b.window_start AND a.window_end = b.window_end$q$, 'partitionwise');
RESET windowjoin.enable_key_partitioning;

RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA partitionwise CASCADE;
