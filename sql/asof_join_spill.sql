--
-- AsOfJoin's sweep keeps the current version of every key it has seen; at
-- run time that state stays within work_mem x hash_mem_multiplier: when it
-- outgrows the limit, keys are moved by hash to batches on disk (their
-- current versions and every later version and outer row of theirs), and
-- the batches are replayed after the inputs end, split again if they still
-- do not fit.  work_mem = 64kB on tables never analysed forces that; every
-- join form must give PostgreSQL's rows.
--
\set ECHO none
\i sql/include/helpers.sql
\set ECHO all
SET TimeZone = 'UTC';
SET datestyle = 'ISO, YMD';
SET IntervalStyle = 'postgres';
SET max_parallel_workers_per_gather = 0;
SET work_mem = '64kB';
SET hash_mem_multiplier = 2;

-- 6000 versions of 3000 keys (int and text), ties on (key, time), some NULL
-- keys and times; 1500 outer rows, some keys without versions, NULLs too.
CREATE TABLE spv (k int, k2 text, t timestamp, val int, note text)
  WITH (autovacuum_enabled = false);
CREATE TABLE spo (id int, k int, k2 text, t timestamp, lim int)
  WITH (autovacuum_enabled = false);
INSERT INTO spv
SELECT CASE WHEN i % 101 = 0 THEN NULL ELSE (i * 7919) % 3000 END,
       'k' || ((i * 7919) % 3000) % 7,
       CASE WHEN i % 97 = 0 THEN NULL
            ELSE timestamp '2024-01-01' + (i / 2) * interval '1 minute' END,
       i % 50,
       repeat('x', i % 20)
FROM generate_series(1, 6000) i;
INSERT INTO spo
SELECT i,
       CASE WHEN i % 89 = 0 THEN NULL ELSE (i * 31) % 3100 END,
       'k' || ((i * 31) % 3100) % 7,
       CASE WHEN i % 83 = 0 THEN NULL
            ELSE timestamp '2024-01-01' + i * interval '2 minutes' END,
       i % 40
FROM generate_series(1, 1500) i;

-- wj_test.on_off(q, 'asof_join', ..., analyze_plan => true): the rows with the
-- node and without it (as multisets), and the strategy the node ran, whether
-- it fell back and whether it spilled to batches, from EXPLAIN ANALYZE in this
-- backend (the node's figures are kept by the process that runs it)
-- The plan: both inputs sorted by time, no order promised above the node
-- (a parent that needs the outer time order sorts again).
EXPLAIN (COSTS OFF)
SELECT o.id, r.val FROM spo o
JOIN LATERAL (SELECT val FROM spv r WHERE r.k = o.k AND r.t <= o.t
              ORDER BY r.t DESC LIMIT 1) r ON true
ORDER BY o.t;

SELECT * FROM wj_test.explain_analyze($q$
SELECT o.id, r.val FROM spo o
JOIN LATERAL (SELECT val FROM spv r WHERE r.k = o.k AND r.t <= o.t
              ORDER BY r.t DESC LIMIT 1) r ON true$q$, 'spill');

-- the same in JSON: the figures are always there
SELECT p ->> 'Custom Plan Provider' AS node,
       (p ->> 'Batches')::int > 1 AS several_batches,
       (p ->> 'Batch Depth')::int >= 1 AS depth,
       (p ->> 'Disk Usage')::int > 0 AS disk
FROM wj_test.explain_json($q$SELECT o.id, r.val FROM spo o
JOIN LATERAL (SELECT val FROM spv r WHERE r.k = o.k AND r.t <= o.t
              ORDER BY r.t DESC LIMIT 1) r ON true$q$, 'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF') p;

-- Every join form, spilled, against PostgreSQL's plan
SELECT wj_test.on_off($q$SELECT o.id, r.val, r.note FROM spo o
  JOIN LATERAL (SELECT val, note FROM spv r WHERE r.k = o.k AND r.t <= o.t
                ORDER BY r.t DESC LIMIT 1) r ON true$q$, 'asof_join', 'Strategy|Fallback: versions|Batch Depth', analyze_plan => true) AS inner_backward;
SELECT wj_test.on_off($q$SELECT o.id, r.val, r.note FROM spo o
  LEFT JOIN LATERAL (SELECT val, note FROM spv r WHERE r.k = o.k AND r.t <= o.t
                     ORDER BY r.t DESC LIMIT 1) r ON true$q$, 'asof_join', 'Strategy|Fallback: versions|Batch Depth', analyze_plan => true) AS left_backward;
SELECT wj_test.on_off($q$SELECT o.id, r.val FROM spo o
  LEFT JOIN LATERAL (SELECT val FROM spv r WHERE r.k = o.k AND r.t < o.t
                     ORDER BY r.t DESC LIMIT 1) r ON true$q$, 'asof_join', 'Strategy|Fallback: versions|Batch Depth', analyze_plan => true) AS left_strict;
SELECT wj_test.on_off($q$SELECT o.id, r.val FROM spo o
  LEFT JOIN LATERAL (SELECT val FROM spv r WHERE r.k = o.k AND r.t >= o.t
                     ORDER BY r.t LIMIT 1) r ON true$q$, 'asof_join', 'Strategy|Fallback: versions|Batch Depth', analyze_plan => true) AS left_forward;
SELECT wj_test.on_off($q$SELECT o.id, r.val FROM spo o
  JOIN LATERAL (SELECT val FROM spv r WHERE r.k = o.k AND r.t > o.t
                ORDER BY r.t LIMIT 1) r ON true$q$, 'asof_join', 'Strategy|Fallback: versions|Batch Depth', analyze_plan => true) AS inner_forward_strict;
SELECT wj_test.on_off($q$SELECT o.id, r.val FROM spo o
  LEFT JOIN LATERAL (SELECT val FROM spv r WHERE r.k = o.k AND r.t <= o.t
                       AND r.t >= o.t - interval '90 minutes'
                     ORDER BY r.t DESC LIMIT 1) r ON true$q$, 'asof_join', 'Strategy|Fallback: versions|Batch Depth', analyze_plan => true) AS left_tolerance;
SELECT wj_test.on_off($q$SELECT o.id, r.val FROM spo o
  JOIN LATERAL (SELECT val FROM spv r WHERE r.k = o.k AND r.t >= o.t
                  AND r.t <= o.t + interval '3 hours'
                ORDER BY r.t LIMIT 1) r ON true$q$, 'asof_join', 'Strategy|Fallback: versions|Batch Depth', analyze_plan => true) AS inner_forward_tolerance;
SELECT wj_test.on_off($q$SELECT o.id, r.val FROM spo o
  LEFT JOIN LATERAL (SELECT val FROM spv r WHERE r.k = o.k AND r.t <= o.t
                       AND r.val % 3 = 0
                     ORDER BY r.t DESC LIMIT 1) r ON true$q$, 'asof_join', 'Strategy|Fallback: versions|Batch Depth', analyze_plan => true) AS left_inner_filter;
SELECT wj_test.on_off($q$SELECT o.id, r.val FROM spo o
  LEFT JOIN LATERAL (SELECT val FROM spv r WHERE r.k = o.k AND r.t <= o.t
                     ORDER BY r.t DESC LIMIT 1) r ON r.val > o.lim$q$, 'asof_join', 'Strategy|Fallback: versions|Batch Depth', analyze_plan => true) AS left_join_filter;
SELECT wj_test.on_off($q$SELECT o.id, r.val FROM spo o
  JOIN LATERAL (SELECT val FROM spv r WHERE r.k = o.k AND r.t <= o.t
                ORDER BY r.t DESC LIMIT 1) r ON true
  WHERE r.val > o.lim$q$, 'asof_join', 'Strategy|Fallback: versions|Batch Depth', analyze_plan => true) AS inner_where_filter;
SELECT wj_test.on_off($q$SELECT o.id, r.val FROM spo o
  LEFT JOIN LATERAL (SELECT val FROM spv r WHERE r.k = o.k AND r.k2 = o.k2
                       AND r.t <= o.t
                     ORDER BY r.t DESC LIMIT 1) r ON true$q$, 'asof_join', 'Strategy|Fallback: versions|Batch Depth', analyze_plan => true) AS left_two_keys;
SELECT wj_test.on_off($q$SELECT o.id, r.val FROM spo o
  LEFT JOIN LATERAL (SELECT val FROM spv r WHERE r.k2 = o.k2 AND r.t <= o.t
                     ORDER BY r.t DESC LIMIT 1) r ON true$q$, 'asof_join', 'Strategy|Fallback: versions|Batch Depth', analyze_plan => true) AS left_few_keys;
SELECT wj_test.on_off($q$SELECT o.id, r.val FROM spo o
  LEFT JOIN LATERAL (SELECT val FROM spv r WHERE r.k = o.k
                       AND r.t <= o.t + interval '1 hour'
                     ORDER BY r.t DESC LIMIT 1) r ON true$q$, 'asof_join', 'Strategy|Fallback: versions|Batch Depth', analyze_plan => true) AS left_shifted_time;

-- A shifted outer time out of range is an error only if its key has a
-- version (PostgreSQL evaluates it only then); such rows are checked in
-- the batch that holds their key.
INSERT INTO spo
SELECT 9000 + i, 3000 + i, 'k1', timestamp '294276-12-31 23:00:00', 0
FROM generate_series(1, 40) i;		-- keys without versions
SELECT wj_test.on_off($q$SELECT o.id, r.val FROM spo o
  LEFT JOIN LATERAL (SELECT val FROM spv r WHERE r.k = o.k
                       AND r.t <= o.t + interval '2 hours'
                     ORDER BY r.t DESC LIMIT 1) r ON true$q$, 'asof_join', 'Strategy|Fallback: versions|Batch Depth', analyze_plan => true) AS shifted_out_of_range_no_version;
SELECT wj_test.on_off($q$SELECT o.id, r.val FROM spo o
  JOIN LATERAL (SELECT val FROM spv r WHERE r.k = o.k
                  AND r.t <= o.t + interval '2 hours'
                ORDER BY r.t DESC LIMIT 1) r ON true$q$, 'asof_join', 'Strategy|Fallback: versions|Batch Depth', analyze_plan => true) AS shifted_out_of_range_inner;
-- keys with versions: an error, as in PostgreSQL's plan
INSERT INTO spo
SELECT 9100 + i, i * 61, 'k1', timestamp '294276-12-31 23:00:00', 0
FROM generate_series(1, 40) i;
SET windowjoin.enable_asof_join = on;
SELECT count(*) FROM spo o
  LEFT JOIN LATERAL (SELECT val FROM spv r WHERE r.k = o.k
                       AND r.t <= o.t + interval '2 hours'
                     ORDER BY r.t DESC LIMIT 1) r ON true;
SET windowjoin.enable_asof_join = off;
SELECT count(*) FROM spo o
  LEFT JOIN LATERAL (SELECT val FROM spv r WHERE r.k = o.k
                       AND r.t <= o.t + interval '2 hours'
                     ORDER BY r.t DESC LIMIT 1) r ON true;
RESET windowjoin.enable_asof_join;
DELETE FROM spo WHERE id > 9000;

-- Rescans: a correlated subquery (parameters change) and a nested loop
-- that rescans the node unchanged.
SELECT wj_test.on_off($q$SELECT g, (SELECT sum(r.val) FROM spo o
  JOIN LATERAL (SELECT val FROM spv r WHERE r.k = o.k AND r.t <= o.t
                ORDER BY r.t DESC LIMIT 1) r ON true
  WHERE o.id % 3 = g) FROM generate_series(0, 2) g$q$, 'asof_join', 'Strategy|Fallback: versions|Batch Depth', analyze_plan => true) AS rescan_param;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
SELECT wj_test.on_off($q$SELECT g, a.id, a.val FROM (VALUES (1), (2)) v(g),
  (SELECT o.id, r.val FROM spo o
   LEFT JOIN LATERAL (SELECT val FROM spv r WHERE r.k = o.k AND r.t <= o.t
                      ORDER BY r.t DESC LIMIT 1) r ON true OFFSET 0) a$q$, 'asof_join', 'Strategy|Fallback: versions|Batch Depth', analyze_plan => true) AS rescan_plain;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;

-- A LIMIT above the node stops it in the middle of the inputs or batches
SET windowjoin.enable_asof_join = on;
SELECT count(*) FROM (SELECT o.id, r.val FROM spo o
  JOIN LATERAL (SELECT val FROM spv r WHERE r.k = o.k AND r.t <= o.t
                ORDER BY r.t DESC LIMIT 1) r ON true LIMIT 1400) x;
RESET windowjoin.enable_asof_join;

-- The lookup strategy whose versions do not fit falls back to the sweep,
-- which spills too: the planner thinks few versions (statistics of a
-- smaller table), the table then grows.
CREATE TABLE spv2 (k int, t timestamp, val int) WITH (autovacuum_enabled = false);
INSERT INTO spv2 SELECT i % 10, timestamp '2024-01-01' + i * interval '1 minute', i
  FROM generate_series(1, 20) i;
ANALYZE spv2;
INSERT INTO spv2 SELECT k, t, val FROM spv;
SELECT wj_test.on_off($q$SELECT o.id, r.val FROM spo o
  LEFT JOIN LATERAL (SELECT val FROM spv2 r WHERE r.k = o.k AND r.t <= o.t
                     ORDER BY r.t DESC LIMIT 1) r ON true$q$, 'asof_join', 'Strategy|Fallback: versions|Batch Depth', analyze_plan => true) AS lookup_fallback;

-- A parallel partial outer side: every participant sweeps (and spills) on
-- its own share of the outer rows.  The node's figures under EXPLAIN
-- ANALYZE are the leader's (so the leader takes a share here, whatever the
-- server's CPUs); the workers' rows are compared here.
CREATE TABLE spo_p (id int, k int, t timestamp) WITH (autovacuum_enabled = false);
INSERT INTO spo_p
SELECT i, CASE WHEN i % 101 = 0 THEN NULL ELSE (i * 37) % 3100 END,
       timestamp '2024-01-01' + (i % 3000) * interval '1 minute'
FROM generate_series(1, 40000) i;
CREATE INDEX ON spv (k, t);		-- for PostgreSQL's plan
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET windowjoin.leader_participation = on;
EXPLAIN (COSTS OFF)
SELECT o.id, r.val FROM spo_p o
  LEFT JOIN LATERAL (SELECT val FROM spv r WHERE r.k = o.k AND r.t <= o.t
                     ORDER BY r.t DESC LIMIT 1) r ON true;
SELECT regexp_replace(wj_test.on_off($q$SELECT o.id, r.val FROM spo_p o
  LEFT JOIN LATERAL (SELECT val FROM spv r WHERE r.k = o.k AND r.t <= o.t
                     ORDER BY r.t DESC LIMIT 1) r ON true$q$, 'asof_join', 'Strategy|Fallback: versions|Batch Depth', analyze_plan => true),
  ', (spilled|in memory)', '') AS parallel_left;
SELECT regexp_replace(wj_test.on_off($q$SELECT o.id, r.val FROM spo_p o
  JOIN LATERAL (SELECT val FROM spv r WHERE r.k = o.k AND r.t >= o.t
                ORDER BY r.t LIMIT 1) r ON true$q$, 'asof_join', 'Strategy|Fallback: versions|Batch Depth', analyze_plan => true),
  ', (spilled|in memory)', '') AS parallel_inner_forward;
-- The lookup strategy falling back under a Gather: the versions are loaded
-- split by key partition, and the partitions together do not fit; the
-- participant that finds it out falls back, the others at once
\set q 'SELECT o.id, r.val FROM spo_p o LEFT JOIN LATERAL (SELECT val FROM spv2 r WHERE r.k = o.k AND r.t <= o.t ORDER BY r.t DESC LIMIT 1) r ON true'
EXPLAIN (COSTS OFF) :q;
SELECT regexp_replace(wj_test.on_off(:'q', 'asof_join', 'Strategy|Fallback: versions|Batch Depth', analyze_plan => true),
  ', (spilled|in memory)', '') AS parallel_lookup_fallback;
SET windowjoin.leader_participation = off;
SELECT regexp_replace(wj_test.on_off(:'q', 'asof_join', 'Strategy', analyze_plan => true),
  ', (spilled|in memory)', '') AS parallel_lookup_fallback_workers;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET windowjoin.leader_participation;
SET max_parallel_workers_per_gather = 0;
DROP INDEX spv_k_t_idx;

-- With enough memory the same queries do not spill
SET work_mem = '4MB';
SELECT wj_test.on_off($q$SELECT o.id, r.val, r.note FROM spo o
  LEFT JOIN LATERAL (SELECT val, note FROM spv r WHERE r.k = o.k AND r.t <= o.t
                     ORDER BY r.t DESC LIMIT 1) r ON true$q$, 'asof_join', 'Strategy|Fallback: versions|Batch Depth', analyze_plan => true) AS left_4mb;
