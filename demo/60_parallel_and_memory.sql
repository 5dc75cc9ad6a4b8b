-- windowjoin demo 60: the nodes in PostgreSQL's parallel workers and within
-- work_mem.  A sensor table joined with itself on a band of +-2 seconds per
-- device, and a session aggregation, each planned with 2 workers; then a
-- window join of one-day windows at a tiny work_mem, whose open window goes
-- to temporary files.
-- See docs/parallel.md and docs/memory.md.
--
-- Runs in a database where CREATE EXTENSION windowjoin was done, with
-- shared_preload_libraries = 'windowjoin'.  Uses temporary tables only
-- (parallel plans need ordinary tables: they are created and dropped here).
\set ON_ERROR_STOP on
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';

DROP TABLE IF EXISTS demo60_readings;
CREATE TABLE demo60_readings AS
SELECT g AS id, g % 20 AS device,
       timestamp '2024-01-01'
         + (hashint4(g) & 2147483647) % 100000 * interval '1 second' AS ts,
       (g % 1000) / 10.0 AS value
FROM generate_series(1, 200000) g;
ANALYZE demo60_readings;

-- make parallel plans cheap enough to be chosen on this small table
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;

\echo
\echo '== interval join, +-2 s per device, with 2 workers =='
\echo '   split by device: each participant joins the devices it claims (their rows exchanged'
\echo '   between the participants, Parallel Custom Scan (KeyExchange), or read by each)'
EXPLAIN (COSTS OFF)
SELECT count(*)
FROM demo60_readings a JOIN demo60_readings b
  ON a.device = b.device
 AND b.ts BETWEEN a.ts - interval '2 seconds' AND a.ts + interval '2 seconds';
SELECT count(*) AS pairs
FROM demo60_readings a JOIN demo60_readings b
  ON a.device = b.device
 AND b.ts BETWEEN a.ts - interval '2 seconds' AND a.ts + interval '2 seconds';

\echo
\echo '== sessions per device (gap 30 s), with 2 workers =='
\echo '   each participant sessionizes the devices it claims; the grouping runs below the Gather'
\echo '   ("Key Partition Input: exchanged": each reads a share of the table, the rows go to'
\echo '   the participant that sessionizes their device through temporary files)'
EXPLAIN (COSTS OFF)
SELECT count(*), max(n)
FROM (SELECT device, (w).window_start, count(*) AS n
      FROM (SELECT device, session(ts, interval '30 seconds')
                     OVER (PARTITION BY device ORDER BY ts) AS w
            FROM demo60_readings) s
      GROUP BY 1, 2) x;
SELECT count(*) AS sessions, max(n) AS longest
FROM (SELECT device, (w).window_start, count(*) AS n
      FROM (SELECT device, session(ts, interval '30 seconds')
                     OVER (PARTITION BY device ORDER BY ts) AS w
            FROM demo60_readings) s
      GROUP BY 1, 2) x;

\echo
\echo '== a tumbling window join, one-day windows, at work_mem = 64kB =='
\echo '   the open window does not fit: it spills, and EXPLAIN ANALYZE says so (sizes vary);'
\echo '   joined on the row id, PostgreSQL would rather hash: its joins are off here to show the node'
SET max_parallel_workers_per_gather = 0;
SET work_mem = '64kB';
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_nestloop = off;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT count(*)
FROM (SELECT * FROM demo60_readings, tumble(ts, interval '1 day')) l
JOIN (SELECT * FROM demo60_readings, tumble(ts, interval '1 day')) r
  ON l.window_start = r.window_start AND l.window_end = r.window_end
 AND l.id = r.id;
RESET work_mem;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_nestloop;

DROP TABLE demo60_readings;
