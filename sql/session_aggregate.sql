--
-- Streaming aggregation over session windows: GROUP BY partition keys and
-- session fields runs as a sorted GroupAggregate over the window's output
-- (no hash table of sessions).  Same rows with
-- windowjoin.enable_window_aggregate on and off; shapes where the order is
-- not certain keep PostgreSQL's plan.
--
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
SET IntervalStyle = 'postgres';
CREATE SCHEMA session_aggregate;
SET search_path = session_aggregate, public;
SET max_parallel_workers_per_gather = 0;
SELECT setseed(0.3);
CREATE TABLE ev AS
SELECT timestamp '2024-01-01' + (random() * 86400 * 1e6)::bigint * interval '1 microsecond' AS t,
       (random() * 100)::numeric(10,2) AS v,
       (random() * 20)::int AS k,
       (random() * 3)::int AS k2
FROM generate_series(1, 20000);
INSERT INTO ev VALUES (NULL, 1, 1, 1), (NULL, 2, NULL, 0), ('2024-01-01', 3, NULL, 0);
ANALYZE ev;

\set ECHO none
\i sql/include/helpers.sql
\set ECHO all

EXPLAIN (COSTS OFF)
SELECT k, (w).window_start, (w).window_end, sum(v)
FROM (SELECT *, session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM ev) s
GROUP BY k, (w).window_start, (w).window_end;

-- EXPLAIN of the nodes that show SessionWindow's session() column: the
-- node itself, and the sort or (its subquery scan gone) the aggregate
-- above it.  Since 18, EXPLAIN names the window of a window function
-- after the WindowAgg that computes it, and SessionWindow shows session()
-- as a plain call instead (wj_session_window_finish_plan); 15 and 17 print
-- it as the window function, "OVER (?)" after the call, cut here.  With
-- ANALYZE, only the lines that show it.
SELECT replace(l, ' OVER (?)', '') AS session_explain FROM wj_test.explain($$
SELECT k, (session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t)).* FROM ev$$,
  'VERBOSE, COSTS OFF') l;
SELECT replace(l, ' OVER (?)', '') AS session_explain FROM wj_test.explain($$
SELECT k, (session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t)).window_end AS e FROM ev
ORDER BY e DESC, k LIMIT 3$$, 'VERBOSE, COSTS OFF') l;
SELECT replace(l, ' OVER (?)', '') AS session_explain FROM wj_test.explain($$
SELECT k, window_start, window_end, count(*)
FROM (SELECT k, (session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t)).* FROM ev) s
GROUP BY 1, 2, 3$$, 'COSTS OFF') l;
SELECT replace(l, ' OVER (?)', '') AS session_explain FROM wj_test.explain($$
SELECT k, window_start, window_end, count(*)
FROM (SELECT k, (session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t)).* FROM ev) s
GROUP BY 1, 2, 3$$, 'ANALYZE, BUFFERS OFF, COSTS OFF, TIMING OFF, SUMMARY OFF, VERBOSE', 'session\(') l;

SELECT wj_test.on_off(q, 'window_aggregate', '^ *GroupAggregate|Sort Key: s\.') FROM (VALUES
  -- streaming
  ($$SELECT k, (w).window_start, (w).window_end, sum(v), count(*), min(t), max(t) FROM (SELECT *, session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM ev) s GROUP BY k, (w).window_start, (w).window_end$$),
  ($$SELECT (w).window_start, (w).window_end, count(*) FROM (SELECT *, session(t, interval '1 minute') OVER (ORDER BY t) AS w FROM ev) s GROUP BY (w).window_start, (w).window_end$$),
  ($$SELECT k, k2, (w).window_start, count(*) FROM (SELECT *, session(t, interval '10 minutes') OVER (PARTITION BY k, k2 ORDER BY t) AS w FROM ev) s GROUP BY k, k2, (w).window_start HAVING count(*) > 1$$),
  ($$SELECT k, (w).window_time, avg(v) FROM (SELECT *, session(t, interval '2 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM ev) s GROUP BY k, (w).window_time$$),
  -- PostgreSQL's plan: the order would not be certain
  ($$SELECT k, (w).window_start, count(*) FROM (SELECT *, session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t NULLS FIRST) AS w FROM ev) s GROUP BY k, (w).window_start$$),
  ($$SELECT (w).window_start, count(*) FROM (SELECT *, session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM ev) s GROUP BY (w).window_start$$),
  ($$SELECT k2, k, (w).window_start, count(*) FROM (SELECT *, session(t, interval '5 minutes') OVER (PARTITION BY k, k2 ORDER BY t) AS w FROM ev) s GROUP BY k2, k, (w).window_start$$),
  ($$SELECT k, (w).window_start, count(*) FROM (SELECT *, session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM ev ORDER BY v LIMIT 100) s GROUP BY k, (w).window_start$$),
  ($$SELECT k, (w).window_start, k2, count(*) FROM (SELECT *, session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM ev) s GROUP BY k, (w).window_start, k2$$)
) AS v(q);

RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA session_aggregate CASCADE;
