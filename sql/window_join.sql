--
-- Window joins: the WindowJoin custom scan must give exactly the rows of
-- PostgreSQL's own plan for every join type, and Flink's example tables
-- row for row.
--
SET TimeZone = 'UTC';
SET datestyle = 'ISO, YMD';
SET IntervalStyle = 'postgres';

-- Flink's example tables
CREATE TABLE left_table (row_time timestamp, num int, id text);
CREATE TABLE right_table (row_time timestamp, num int, id text);
INSERT INTO left_table VALUES
  ('2020-04-15 12:02', 1, 'L1'), ('2020-04-15 12:06', 2, 'L2'), ('2020-04-15 12:03', 3, 'L3');
INSERT INTO right_table VALUES
  ('2020-04-15 12:01', 2, 'R2'), ('2020-04-15 12:04', 3, 'R3'), ('2020-04-15 12:05', 4, 'R4');
ANALYZE left_table;
ANALYZE right_table;

\set ECHO none
\i sql/include/helpers.sql
\set ECHO all

-- The shared on/off check can fail: other rows, other multiplicities, an
-- error on one side only, another order (where the order is checked)
SELECT wj_test.on_off($q$SELECT current_setting('windowjoin.enable_window_join') AS s$q$, 'window_join');
SELECT wj_test.on_off($q$SELECT 1 AS x FROM generate_series(1,
  CASE current_setting('windowjoin.enable_window_join') WHEN 'on' THEN 2 ELSE 1 END)$q$, 'window_join');
SELECT wj_test.on_off($q$SELECT 1 / (current_setting('windowjoin.enable_window_join') = 'on')::int AS x$q$,
                      'window_join');
SELECT wj_test.on_off($q$SELECT g AS p FROM generate_series(1, 3) g
  ORDER BY CASE current_setting('windowjoin.enable_window_join') WHEN 'on' THEN g ELSE -g END$q$,
                      'window_join', ordered => 'p', cols => 'p');
-- and the EXPLAIN ANALYZE masks: sizes; the figures of a spill; everything
SELECT m, wj_test.mask('Rows: 4  Peak State Rows: 4  Peak State Memory: 1kB  Batches: 2  Memory Usage: 25kB  Disk: 12kB', m)
FROM unnest(ARRAY['sizes', 'spill', 'all', 'none']) m;

-- The example tables are tiny; make the planner prefer the node over
-- PostgreSQL's own joins here (the benchmark shows it winning on cost).
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_nestloop = off;

-- FULL OUTER (Flink's example)
CREATE VIEW seed_full AS
SELECT L.num AS l_num, L.id AS l_id, R.num AS r_num, R.id AS r_id,
       COALESCE(L.window_start, R.window_start) AS window_start,
       COALESCE(L.window_end, R.window_end) AS window_end
FROM (SELECT * FROM left_table, tumble(row_time, interval '5 minutes')) L
FULL JOIN (SELECT * FROM right_table, tumble(row_time, interval '5 minutes')) R
ON L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end;
EXPLAIN (COSTS OFF) SELECT * FROM seed_full;
SELECT * FROM seed_full ORDER BY window_start, l_num NULLS LAST, r_num;
SELECT wj_test.on_off('TABLE seed_full', 'window_join', 'Custom Scan \(WindowJoin\)');

-- INNER, LEFT, RIGHT on the same tables
CREATE VIEW seed_inner AS
SELECT L.num AS l_num, L.id AS l_id, R.num AS r_num, R.id AS r_id, L.window_start, L.window_end
FROM (SELECT * FROM left_table, tumble(row_time, interval '5 minutes')) L
JOIN (SELECT * FROM right_table, tumble(row_time, interval '5 minutes')) R
ON L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end;
EXPLAIN (COSTS OFF) SELECT * FROM seed_inner;
SELECT * FROM seed_inner ORDER BY window_start, l_num;
SELECT wj_test.on_off('TABLE seed_inner', 'window_join', 'Custom Scan \(WindowJoin\)');

CREATE VIEW seed_left AS
SELECT L.num AS l_num, L.id AS l_id, R.num AS r_num, R.id AS r_id, L.window_start, L.window_end
FROM (SELECT * FROM left_table, tumble(row_time, interval '5 minutes')) L
LEFT JOIN (SELECT * FROM right_table, tumble(row_time, interval '5 minutes')) R
ON L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end;
EXPLAIN (COSTS OFF) SELECT * FROM seed_left;
SELECT * FROM seed_left ORDER BY window_start, l_num;
SELECT wj_test.on_off('TABLE seed_left', 'window_join', 'Custom Scan \(WindowJoin\)');

CREATE VIEW seed_right AS
SELECT L.num AS l_num, L.id AS l_id, R.num AS r_num, R.id AS r_id, R.window_start, R.window_end
FROM (SELECT * FROM left_table, tumble(row_time, interval '5 minutes')) L
RIGHT JOIN (SELECT * FROM right_table, tumble(row_time, interval '5 minutes')) R
ON L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end;
EXPLAIN (COSTS OFF) SELECT * FROM seed_right;
SELECT * FROM seed_right ORDER BY window_start, r_num;
SELECT wj_test.on_off('TABLE seed_right', 'window_join', 'Custom Scan \(WindowJoin\)');

-- SEMI with IN and with EXISTS (Flink: L3 only)
CREATE VIEW seed_semi_in AS
SELECT * FROM (SELECT * FROM left_table, tumble(row_time, interval '5 minutes')) L
WHERE L.num IN (
  SELECT num FROM (SELECT * FROM right_table, tumble(row_time, interval '5 minutes')) R
  WHERE L.window_start = R.window_start AND L.window_end = R.window_end);
-- (a correlated IN stays a SubPlan in PostgreSQL: no join to replace)
SELECT * FROM seed_semi_in ORDER BY row_time;
SELECT wj_test.on_off('TABLE seed_semi_in', 'window_join', 'Custom Scan \(WindowJoin\)');

CREATE VIEW seed_semi_exists AS
SELECT * FROM (SELECT * FROM left_table, tumble(row_time, interval '5 minutes')) L
WHERE EXISTS (
  SELECT * FROM (SELECT * FROM right_table, tumble(row_time, interval '5 minutes')) R
  WHERE L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end);
EXPLAIN (COSTS OFF) SELECT * FROM seed_semi_exists;
SELECT * FROM seed_semi_exists ORDER BY row_time;
SELECT wj_test.on_off('TABLE seed_semi_exists', 'window_join', 'Custom Scan \(WindowJoin\)');

-- ANTI with NOT IN and with NOT EXISTS (Flink: L1 and L2).  PostgreSQL
-- does not turn NOT IN into an anti join (NULL semantics), so that one runs
-- as a subplan either way.
CREATE VIEW seed_anti_not_in AS
SELECT * FROM (SELECT * FROM left_table, tumble(row_time, interval '5 minutes')) L
WHERE L.num NOT IN (
  SELECT num FROM (SELECT * FROM right_table, tumble(row_time, interval '5 minutes')) R
  WHERE L.window_start = R.window_start AND L.window_end = R.window_end);
SELECT * FROM seed_anti_not_in ORDER BY row_time;

CREATE VIEW seed_anti_not_exists AS
SELECT * FROM (SELECT * FROM left_table, tumble(row_time, interval '5 minutes')) L
WHERE NOT EXISTS (
  SELECT * FROM (SELECT * FROM right_table, tumble(row_time, interval '5 minutes')) R
  WHERE L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end);
EXPLAIN (COSTS OFF) SELECT * FROM seed_anti_not_exists;
SELECT * FROM seed_anti_not_exists ORDER BY row_time;
SELECT wj_test.on_off('TABLE seed_anti_not_exists', 'window_join', 'Custom Scan \(WindowJoin\)');

-- EXPLAIN VERBOSE shows the window spec, keys and conditions
EXPLAIN (VERBOSE, COSTS OFF) SELECT * FROM seed_full;

-- ANALYZE: the state holds one window at a time (here at most the 4
-- rows of [12:00, 12:05)), dropped when the window closes; the bytes are
-- masked (they depend on the platform).  wj_test.explain_analyze runs it in
-- this process: a custom scan that is not parallel-aware cannot pass its
-- state figures back from the worker force_parallel_mode puts it in.
SELECT * FROM wj_test.explain_analyze('SELECT * FROM seed_full');

-- The GUC: no path when off
SET windowjoin.enable_window_join = off;
EXPLAIN (COSTS OFF) SELECT * FROM seed_full;
RESET windowjoin.enable_window_join;

-- Not a window join: different window sizes on the two sides
EXPLAIN (COSTS OFF)
SELECT * FROM (SELECT * FROM left_table, tumble(row_time, interval '5 minutes')) L
JOIN (SELECT * FROM right_table, tumble(row_time, interval '10 minutes')) R
ON L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end;
-- nor without window equality
EXPLAIN (COSTS OFF)
SELECT * FROM (SELECT * FROM left_table, tumble(row_time, interval '5 minutes')) L
JOIN (SELECT * FROM right_table, tumble(row_time, interval '5 minutes')) R
ON L.num = R.num AND L.window_start <= R.window_start;
