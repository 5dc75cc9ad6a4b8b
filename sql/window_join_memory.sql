--
-- The WindowJoin node keeps the rows of its open window(s) within
-- work_mem x hash_mem_multiplier at run time, spilling a window that does
-- not fit (window_join_spill tests that).  The planner's estimate of that
-- state (rows per window from the time column's statistics x bytes per
-- row, both sides) is a cost input: beyond the limit the path is still
-- offered, costed as spilling, and competes with PostgreSQL's own plan.
-- Without statistics nothing is estimated.  Every query gives the same
-- rows with the node on and off.
--
SET TimeZone = 'UTC';
SET datestyle = 'ISO, YMD';
SET IntervalStyle = 'postgres';

\set ECHO none
\i sql/include/helpers.sql
\set ECHO all

-- One day of events per side, 100000 rows each (about 4170 an hour).
-- A statistics target of 1000 samples up to 300000 rows, so ANALYZE reads
-- every row: the statistics, and so the plans below, do not vary by run.
CREATE TABLE mem_l (k int, ts timestamp, v int);
CREATE TABLE mem_r (k int, ts timestamp, v int);
INSERT INTO mem_l SELECT i % 5000, timestamp '2024-01-01' + i * interval '864 ms', i
  FROM generate_series(0, 99999) i;
INSERT INTO mem_r SELECT (i * 7) % 5000, timestamp '2024-01-01' + i * interval '864 ms' + interval '123 ms', i
  FROM generate_series(0, 99999) i;
SET default_statistics_target = 1000;
ANALYZE mem_l, mem_r;
RESET default_statistics_target;

-- The same rows without statistics (autovacuum must not analyze them)
CREATE TABLE mem_l_nostats (k int, ts timestamp, v int) WITH (autovacuum_enabled = false);
CREATE TABLE mem_r_nostats (k int, ts timestamp, v int) WITH (autovacuum_enabled = false);
INSERT INTO mem_l_nostats SELECT * FROM mem_l;
INSERT INTO mem_r_nostats SELECT * FROM mem_r;

-- hash memory limit 128kB; about 120 bytes per buffered row
SET work_mem = '64kB';
SET hash_mem_multiplier = 2.0;

CREATE VIEW tum_1h AS
SELECT L.k, L.window_start, L.v AS lv, R.v AS rv
FROM (SELECT * FROM mem_l, tumble(ts, interval '1 hour')) L
JOIN (SELECT * FROM mem_r, tumble(ts, interval '1 hour')) R
  ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end;
CREATE VIEW tum_2m AS
SELECT L.k, L.window_start, L.v AS lv, R.v AS rv
FROM (SELECT * FROM mem_l, tumble(ts, interval '2 minutes')) L
JOIN (SELECT * FROM mem_r, tumble(ts, interval '2 minutes')) R
  ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end;
CREATE VIEW tum_1h_nostats AS
SELECT L.k, L.window_start, L.v AS lv, R.v AS rv
FROM (SELECT * FROM mem_l_nostats, tumble(ts, interval '1 hour')) L
JOIN (SELECT * FROM mem_r_nostats, tumble(ts, interval '1 hour')) R
  ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end;
CREATE VIEW hop_1h AS
SELECT L.k, L.window_start, L.v AS lv, R.v AS rv
FROM (SELECT * FROM mem_l, hop(ts, interval '10 minutes', interval '1 hour')) L
JOIN (SELECT * FROM mem_r, hop(ts, interval '10 minutes', interval '1 hour')) R
  ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end;
CREATE VIEW hop_2m AS
SELECT L.k, L.window_start, L.v AS lv, R.v AS rv
FROM (SELECT * FROM mem_l, hop(ts, interval '1 minute', interval '2 minutes')) L
JOIN (SELECT * FROM mem_r, hop(ts, interval '1 minute', interval '2 minutes')) R
  ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end;
CREATE VIEW cum_1h AS
SELECT L.k, L.window_end, L.v AS lv, R.v AS rv
FROM (SELECT * FROM mem_l, cumulate(ts, interval '20 minutes', interval '1 hour')) L
JOIN (SELECT * FROM mem_r, cumulate(ts, interval '20 minutes', interval '1 hour')) R
  ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end;
CREATE VIEW cum_2m AS
SELECT L.k, L.window_end, L.v AS lv, R.v AS rv
FROM (SELECT * FROM mem_l, cumulate(ts, interval '1 minute', interval '2 minutes')) L
JOIN (SELECT * FROM mem_r, cumulate(ts, interval '1 minute', interval '2 minutes')) R
  ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end;

-- an hour's rows (about 8300 on the two sides) do not fit: the node would
-- spill, and PostgreSQL's hash join is cheaper (wj_test.on_off looks for the
-- node in EXPLAIN)
SELECT wj_test.on_off('TABLE tum_1h', 'window_join', 'Custom Scan \(WindowJoin\)', off_settings => 'enable_hashjoin=on, enable_mergejoin=on, enable_nestloop=on');
-- two minutes' rows (about 280) do fit, but for a TUMBLE join PostgreSQL's
-- hash join on all three keys is still a little cheaper on these
-- statistics; the node's plan and rows are checked with PostgreSQL's joins
-- disabled below
SELECT wj_test.on_off('TABLE tum_2m', 'window_join', 'Custom Scan \(WindowJoin\)', off_settings => 'enable_hashjoin=on, enable_mergejoin=on, enable_nestloop=on');
-- without statistics nothing is known: the node is offered, and spills at
-- run time if it must
EXPLAIN (COSTS OFF) SELECT * FROM tum_1h_nostats;
SELECT wj_test.on_off('TABLE tum_1h_nostats', 'window_join', 'Custom Scan \(WindowJoin\)', off_settings => 'enable_hashjoin=on, enable_mergejoin=on, enable_nestloop=on');
-- HOP and CUMULATE: the rows of one window (of size "size") are kept; an
-- hour's HOP windows spill, but re-reading them still beats PostgreSQL's
-- join of six times the rows
SELECT wj_test.on_off('TABLE hop_1h', 'window_join', 'Custom Scan \(WindowJoin\)', off_settings => 'enable_hashjoin=on, enable_mergejoin=on, enable_nestloop=on');
SELECT wj_test.on_off('TABLE hop_2m', 'window_join', 'Custom Scan \(WindowJoin\)', off_settings => 'enable_hashjoin=on, enable_mergejoin=on, enable_nestloop=on');
SELECT wj_test.on_off('TABLE cum_1h', 'window_join', 'Custom Scan \(WindowJoin\)', off_settings => 'enable_hashjoin=on, enable_mergejoin=on, enable_nestloop=on');
SELECT wj_test.on_off('TABLE cum_2m', 'window_join', 'Custom Scan \(WindowJoin\)', off_settings => 'enable_hashjoin=on, enable_mergejoin=on, enable_nestloop=on');
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_nestloop = off;
SELECT wj_test.uses('SELECT * FROM cum_1h', 'Custom Scan \(WindowJoin\)') AS cum_1h, wj_test.uses('SELECT * FROM cum_2m', 'Custom Scan \(WindowJoin\)') AS cum_2m,
       wj_test.uses('SELECT * FROM hop_1h', 'Custom Scan \(WindowJoin\)') AS hop_1h, wj_test.uses('SELECT * FROM tum_1h', 'Custom Scan \(WindowJoin\)') AS tum_1h;
-- a HOP whose rows would each be in more windows than
-- windowjoin.max_windows_per_row gets no path (hop_1h: 6 windows a row), so
-- PostgreSQL's plan raises the error at its first row, before any sort.
-- (With PostgreSQL's joins disabled cum_1h still gets a WindowJoin: on its
-- window_start alone, a TUMBLE of the size in GROUP mode, with the
-- cumulate() function scans above it, which raise the error.)
SET windowjoin.max_windows_per_row = 5;
SELECT wj_test.uses('SELECT * FROM hop_1h', 'Custom Scan \(WindowJoin\)') AS hop_1h, wj_test.uses('SELECT * FROM cum_1h', 'Custom Scan \(WindowJoin\)') AS cum_1h;
SELECT count(*) FROM hop_1h;
SET windowjoin.max_windows_per_row = 2;
SELECT wj_test.uses('SELECT * FROM hop_1h', 'Custom Scan \(WindowJoin\)') AS hop_1h, wj_test.uses('SELECT * FROM cum_1h', 'Custom Scan \(WindowJoin\)') AS cum_1h;
SELECT count(*) FROM cum_1h;
SET windowjoin.max_windows_per_row = 6;
SELECT wj_test.uses('SELECT * FROM hop_1h', 'Custom Scan \(WindowJoin\)') AS hop_1h, wj_test.uses('SELECT * FROM cum_1h', 'Custom Scan \(WindowJoin\)') AS cum_1h;
RESET windowjoin.max_windows_per_row;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_nestloop;

-- The memory estimate is a cost input: with PostgreSQL's joins disabled
-- the node is chosen, and its estimated cost is higher where the hour's
-- windows are expected to spill (64kB x 2) than where they fit (4MB x 2).
-- Then the node is run (forced) within and beyond its memory limit, which
-- is work_mem x hash_mem_multiplier, and must give the same rows as
-- PostgreSQL's plan.
CREATE FUNCTION wjm_cost(v text) RETURNS numeric LANGUAGE sql AS $$
  SELECT substring(l FROM 'cost=[0-9.]+\.\.([0-9.]+) ')::numeric
  FROM wj_test.explain(format('SELECT * FROM %s', v), '', 'Custom Scan \(WindowJoin\)') l
  LIMIT 1
$$;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_nestloop = off;
CREATE TEMP TABLE wjm_costs AS SELECT wjm_cost('tum_1h') AS spill_cost;
SET work_mem = '4MB';
SELECT spill_cost > wjm_cost('tum_1h') AS spill_costs_more,
       wjm_cost('tum_1h') IS NOT NULL AS node_offered
  FROM wjm_costs;
DROP TABLE wjm_costs;
-- fits in 4MB x 2
EXPLAIN (COSTS OFF) SELECT * FROM tum_1h;
SELECT wj_test.on_off('TABLE tum_1h', 'window_join', 'Custom Scan \(WindowJoin\)', off_settings => 'enable_hashjoin=on, enable_mergejoin=on, enable_nestloop=on');
-- 512kB x 1 does not hold an hour's rows: spills
SET work_mem = '512kB';
SET hash_mem_multiplier = 1.0;
SELECT wj_test.on_off('TABLE tum_1h', 'window_join', 'Custom Scan \(WindowJoin\)', off_settings => 'enable_hashjoin=on, enable_mergejoin=on, enable_nestloop=on');
-- 512kB x 4 does
SET hash_mem_multiplier = 4.0;
SELECT wj_test.on_off('TABLE tum_1h', 'window_join', 'Custom Scan \(WindowJoin\)', off_settings => 'enable_hashjoin=on, enable_mergejoin=on, enable_nestloop=on');
-- two minutes' windows fit in 64kB x 2
SET work_mem = '64kB';
SET hash_mem_multiplier = 2.0;
EXPLAIN (COSTS OFF) SELECT * FROM tum_2m;
SELECT wj_test.on_off('TABLE tum_2m', 'window_join', 'Custom Scan \(WindowJoin\)', off_settings => 'enable_hashjoin=on, enable_mergejoin=on, enable_nestloop=on');
-- and an hour's spill there
SELECT wj_test.on_off('TABLE tum_1h', 'window_join', 'Custom Scan \(WindowJoin\)', off_settings => 'enable_hashjoin=on, enable_mergejoin=on, enable_nestloop=on');
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_nestloop;

RESET work_mem;
RESET hash_mem_multiplier;

-- TUMBLE inputs grouped by window in the node instead of sorted
-- (window_join_buckets.c), chosen where the planner expects them to fit in
-- work_mem.  Here it expects 0.5% of the rows (an unknowable filter) and
-- all of them come: past work_mem at run time each side goes into a
-- tuplesort, rows so far and the rest.  Rows without a time (no window) on
-- both preserved sides; the same rows with the node off, and in memory.
CREATE TABLE gb_l (k int, t timestamp, v int);
CREATE TABLE gb_r (k int, t timestamp, v int);
INSERT INTO gb_l SELECT i % 50, '2024-01-01'::timestamp + (i * 7919 % 20000) * interval '1 second', i
  FROM generate_series(1, 20000) i;
INSERT INTO gb_r SELECT i % 50, '2024-01-01'::timestamp + (i * 104729 % 20000) * interval '1 second', i
  FROM generate_series(1, 20000) i;
INSERT INTO gb_l VALUES (1, NULL, -1), (NULL, '2024-01-01 01:00', -3);
INSERT INTO gb_r VALUES (2, NULL, -2);
ANALYZE gb_l, gb_r;
CREATE VIEW gb_full AS
  SELECT a.v AS av, b.v AS bv, coalesce(a.window_start, b.window_start) AS ws
  FROM (SELECT * FROM gb_l, tumble(t, interval '5 minutes') WHERE v % 1 = 0) a
  FULL JOIN (SELECT * FROM gb_r, tumble(t, interval '5 minutes') WHERE v % 1 = 0) b
  ON a.k = b.k AND a.window_start = b.window_start AND a.window_end = b.window_end;
SET work_mem = '64kB';
SELECT wj_test.on_off('TABLE gb_full', 'window_join', 'Buckets', force => true, analyze_plan => true);
RESET work_mem;
SELECT wj_test.on_off('TABLE gb_full', 'window_join', 'Buckets', force => true, analyze_plan => true);
-- an empty side (the other one's rows all null-extended)
SELECT wj_test.on_off($q$SELECT a.v AS av, b.v AS bv FROM
  (SELECT * FROM gb_l, tumble(t, interval '5 minutes') WHERE v < 500 AND v % 1 = 0) a
  FULL JOIN (SELECT * FROM gb_r, tumble(t, interval '5 minutes') WHERE v < 0 AND v % 1 = 0) b
  ON a.k = b.k AND a.window_start = b.window_start AND a.window_end = b.window_end$q$,
  'window_join', 'Buckets', force => true, analyze_plan => true);
-- rescanned: under a nested loop, each outer row joins anew (no
-- misestimate here: PostgreSQL's own plan would rescan a Gather per row)
SELECT wj_test.on_off($q$SELECT s.n, x.c FROM generate_series(1, 3) s(n),
  LATERAL (SELECT count(*) AS c FROM
    (SELECT * FROM gb_l, tumble(t, interval '5 minutes') WHERE v % 3 = s.n - 1) a
    JOIN (SELECT * FROM gb_r, tumble(t, interval '5 minutes')) b
    ON a.k = b.k AND a.window_start = b.window_start AND a.window_end = b.window_end) x$q$,
  'window_join', 'WindowJoin|Grouped by Window', force => true);
-- The bounds of the window that groups a side (window_start and
-- window_end of its TUMBLE) are stored as NULL in the buckets and put back
-- from the window: both bounds of both sides shown, the end clause first,
-- an offset; the same time's TUMBLE of another size (w10) and window_time
-- are stored as they are.  In memory, and sorted past work_mem.
CREATE VIEW gb_bounds AS
  SELECT a.v AS av, b.v AS bv, a.t AS at, b.t AS bt,
         a.window_start AS aws, a.window_end AS awe, a.window_time AS awt,
         a.w10 AS aw10, b.window_start AS bws, b.window_end AS bwe
  FROM (SELECT l.*, x.*, y.window_start AS w10 FROM gb_l l,
          tumble(t, interval '5 minutes', interval '2 minutes') x,
          tumble(t, interval '10 minutes') y WHERE v % 1 = 0) a
  FULL JOIN (SELECT * FROM gb_r, tumble(t, interval '5 minutes', interval '2 minutes')
             WHERE v % 1 = 0) b
  ON a.window_end = b.window_end AND a.k = b.k AND a.window_start = b.window_start;
SELECT wj_test.on_off('TABLE gb_bounds', 'window_join', 'Buckets', force => true, analyze_plan => true);
SET work_mem = '64kB';
SELECT wj_test.on_off('TABLE gb_bounds', 'window_join', 'Buckets', force => true, analyze_plan => true);
RESET work_mem;
-- each bound as date_bin gives it, on rows of both sides and of one only
-- (through the node: PostgreSQL's joins off)
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_nestloop = off;
SELECT count(*) FILTER (WHERE av IS NOT NULL) AS a_rows,
       count(*) FILTER (WHERE bv IS NOT NULL) AS b_rows,
       count(*) FILTER (WHERE av IS NOT NULL AND
         (aws, awe, awt, aw10) IS DISTINCT FROM
         (date_bin('5 minutes', at, '2000-01-01 00:02'),
          date_bin('5 minutes', at, '2000-01-01 00:02') + interval '5 minutes',
          date_bin('5 minutes', at, '2000-01-01 00:02') + interval '5 minutes' - interval '1 millisecond',
          date_bin('10 minutes', at, '2000-01-01'))) AS a_wrong,
       count(*) FILTER (WHERE bv IS NOT NULL AND
         (bws, bwe) IS DISTINCT FROM
         (date_bin('5 minutes', bt, '2000-01-01 00:02'),
          date_bin('5 minutes', bt, '2000-01-01 00:02') + interval '5 minutes')) AS b_wrong
  FROM gb_bounds;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_nestloop;
DROP VIEW gb_full, gb_bounds;
DROP TABLE gb_l, gb_r;

DROP VIEW tum_1h, tum_2m, tum_1h_nostats, hop_1h, hop_2m, cum_1h, cum_2m;
DROP TABLE mem_l, mem_r, mem_l_nostats, mem_r_nostats;
DROP FUNCTION wjm_cost(text);
