-- Window joins: INNER / LEFT / RIGHT / FULL OUTER / SEMI / ANTI
-- on equal windows, executed by the WindowJoin custom scan.
SET TimeZone = 'UTC';
CREATE TEMP TABLE left_table (row_time timestamp, num int, id text);
CREATE TEMP TABLE right_table (row_time timestamp, num int, id text);
INSERT INTO left_table VALUES
  ('2020-04-15 12:02', 1, 'L1'), ('2020-04-15 12:06', 2, 'L2'), ('2020-04-15 12:03', 3, 'L3');
INSERT INTO right_table VALUES
  ('2020-04-15 12:01', 2, 'R2'), ('2020-04-15 12:04', 3, 'R3'), ('2020-04-15 12:05', 4, 'R4');

\echo
\echo '== LeftTable / RightTable =='
SELECT * FROM left_table ORDER BY id;
SELECT * FROM right_table ORDER BY id;

\echo
\echo '== FULL OUTER window join ==  Flink: ... FROM (SELECT * FROM TABLE(TUMBLE(TABLE LeftTable, DESCRIPTOR(row_time), INTERVAL ''5'' MINUTES))) L'
\echo '   FULL JOIN (... RightTable ...) R ON L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end'
\echo '   windowjoin: FROM (SELECT * FROM left_table, tumble(row_time, interval ''5 minutes'')) L FULL JOIN (...) R ON (same)'
SELECT L.num AS l_num, L.id AS l_id, R.num AS r_num, R.id AS r_id,
       COALESCE(L.window_start, R.window_start) AS window_start,
       COALESCE(L.window_end, R.window_end) AS window_end
FROM (SELECT * FROM left_table, tumble(row_time, interval '5 minutes')) L
FULL JOIN (SELECT * FROM right_table, tumble(row_time, interval '5 minutes')) R
ON L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end
ORDER BY window_start, l_num NULLS LAST, r_num;

\echo
\echo '== SEMI window join with IN ==  Flink: WHERE L.num IN (SELECT num FROM (... R) WHERE L.window_start = R.window_start AND L.window_end = R.window_end)'
SELECT * FROM (SELECT * FROM left_table, tumble(row_time, interval '5 minutes')) L
WHERE L.num IN (
  SELECT num FROM (SELECT * FROM right_table, tumble(row_time, interval '5 minutes')) R
  WHERE L.window_start = R.window_start AND L.window_end = R.window_end)
ORDER BY row_time;

\echo
\echo '== SEMI window join with EXISTS ==  Flink: WHERE EXISTS (SELECT * FROM (... R) WHERE L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end)'
SELECT * FROM (SELECT * FROM left_table, tumble(row_time, interval '5 minutes')) L
WHERE EXISTS (
  SELECT * FROM (SELECT * FROM right_table, tumble(row_time, interval '5 minutes')) R
  WHERE L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end)
ORDER BY row_time;

\echo
\echo '== ANTI window join with NOT IN ==  Flink: WHERE L.num NOT IN (SELECT num FROM (... R) WHERE L.window_start = R.window_start AND L.window_end = R.window_end)'
SELECT * FROM (SELECT * FROM left_table, tumble(row_time, interval '5 minutes')) L
WHERE L.num NOT IN (
  SELECT num FROM (SELECT * FROM right_table, tumble(row_time, interval '5 minutes')) R
  WHERE L.window_start = R.window_start AND L.window_end = R.window_end)
ORDER BY row_time;

\echo
\echo '== ANTI window join with NOT EXISTS ==  Flink: WHERE NOT EXISTS (SELECT * FROM (... R) WHERE L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end)'
SELECT * FROM (SELECT * FROM left_table, tumble(row_time, interval '5 minutes')) L
WHERE NOT EXISTS (
  SELECT * FROM (SELECT * FROM right_table, tumble(row_time, interval '5 minutes')) R
  WHERE L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end)
ORDER BY row_time;

\echo
\echo '== The plan: Custom Scan (WindowJoin), one window at a time (state dropped when a window closes) =='
SET enable_hashjoin = off;
SET enable_mergejoin = off;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT L.num, L.id, R.num, R.id, COALESCE(L.window_start, R.window_start)
FROM (SELECT * FROM left_table, tumble(row_time, interval '5 minutes')) L
FULL JOIN (SELECT * FROM right_table, tumble(row_time, interval '5 minutes')) R
ON L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end;
RESET enable_hashjoin;
RESET enable_mergejoin;
