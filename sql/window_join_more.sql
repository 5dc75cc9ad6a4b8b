--
-- Window joins beyond Flink's examples: generated data with NULL keys, every join
-- type over TUMBLE (with offset), HOP (size a multiple of the slide, not a
-- multiple, and smaller than it), CUMULATE, joins of window aggregations,
-- extra join conditions, WHERE clauses, timestamptz, rescans.  Every query
-- must give the same rows with the WindowJoin node on and off.
--
SET TimeZone = 'UTC';
SET datestyle = 'ISO, YMD';
SET IntervalStyle = 'postgres';

\set ECHO none
\i sql/include/helpers.sql
\set ECHO all

-- Two hours of events, 40 keys, some NULL keys and NULL times
CREATE TABLE ev_l (ts timestamp, k int, v int);
CREATE TABLE ev_r (ts timestamp, k int, v int);
INSERT INTO ev_l
SELECT timestamp '2024-01-01 00:00' + (i * 37 % 7200) * interval '1 second',
       CASE WHEN i % 53 = 0 THEN NULL ELSE i % 40 END, i
FROM generate_series(1, 1000) i;
INSERT INTO ev_r
SELECT timestamp '2024-01-01 00:00' + (i * 53 % 7200) * interval '1 second' + interval '0.5 s',
       CASE WHEN i % 61 = 0 THEN NULL ELSE i % 40 END, i
FROM generate_series(1, 1000) i;
INSERT INTO ev_l VALUES (NULL, 1, -1), (NULL, NULL, -2);
INSERT INTO ev_r VALUES (NULL, 1, -1), (NULL, NULL, -2);
ANALYZE ev_l;
ANALYZE ev_r;

-- Plan shapes with default planner settings: the node wins on cost
EXPLAIN (COSTS OFF)
SELECT L.v, R.v, L.window_start
FROM (SELECT * FROM ev_l, hop(ts, interval '5 minutes', interval '15 minutes')) L
JOIN (SELECT * FROM ev_r, hop(ts, interval '5 minutes', interval '15 minutes')) R
ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end;
EXPLAIN (COSTS OFF)
SELECT L.v, R.v, L.window_start
FROM (SELECT * FROM ev_l, tumble(ts, interval '10 minutes')) L
FULL JOIN (SELECT * FROM ev_r, tumble(ts, interval '10 minutes')) R
ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end;

-- For the row comparisons below, prefer the node whenever it is possible
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_nestloop = off;

-- A view per (window, join type); wj_test.on_off compares node on and off
CREATE FUNCTION make_views(name text, win_l text, win_r text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  jt text;
BEGIN
  FOREACH jt IN ARRAY ARRAY['JOIN', 'LEFT JOIN', 'RIGHT JOIN', 'FULL JOIN'] LOOP
    EXECUTE format(
      'CREATE VIEW %I AS SELECT L.k AS lk, L.v AS lv, R.k AS rk, R.v AS rv,
              L.window_start AS lws, L.window_end AS lwe, L.window_time AS lwt,
              R.window_start AS rws, R.window_end AS rwe
       FROM (SELECT * FROM ev_l, %s) L %s (SELECT * FROM ev_r, %s) R
       ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end',
      name || '_' || lower(split_part(jt, ' ', 1)), win_l, jt, win_r);
  END LOOP;
  EXECUTE format(
    'CREATE VIEW %I AS SELECT * FROM (SELECT * FROM ev_l, %s) L
     WHERE EXISTS (SELECT 1 FROM (SELECT * FROM ev_r, %s) R
                   WHERE L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end)',
    name || '_semi', win_l, win_r);
  EXECUTE format(
    'CREATE VIEW %I AS SELECT * FROM (SELECT * FROM ev_l, %s) L
     WHERE NOT EXISTS (SELECT 1 FROM (SELECT * FROM ev_r, %s) R
                       WHERE L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end)',
    name || '_anti', win_l, win_r);
END $$;

CREATE FUNCTION check_views(name text) RETURNS TABLE (view text, result text)
LANGUAGE plpgsql AS $$
DECLARE
  suffix text;
BEGIN
  FOREACH suffix IN ARRAY ARRAY['join', 'left', 'right', 'full', 'semi', 'anti'] LOOP
    view := name || '_' || suffix;
    result := wj_test.on_off('TABLE ' || view, 'window_join', 'Custom Scan \(WindowJoin\)');
    RETURN NEXT;
  END LOOP;
END $$;

-- TUMBLE, with an offset
SELECT make_views('tum', 'tumble(ts, interval ''10 minutes'', interval ''3 minutes'')',
                  'tumble(ts, interval ''10 minutes'', interval ''-7 minutes'')');
SELECT * FROM check_views('tum');
-- HOP, size a multiple of the slide
SELECT make_views('hop', 'hop(ts, interval ''5 minutes'', interval ''15 minutes'')',
                  'hop(ts, interval ''5 minutes'', interval ''15 minutes'')');
SELECT * FROM check_views('hop');
-- HOP, size not a multiple of the slide
SELECT make_views('hop_nm', 'hop(ts, interval ''4 minutes'', interval ''10 minutes'', interval ''1 minute'')',
                  'hop(ts, interval ''4 minutes'', interval ''10 minutes'', interval ''1 minute'')');
SELECT * FROM check_views('hop_nm');
-- HOP, size smaller than the slide (rows in the gaps have no window)
SELECT make_views('hop_gap', 'hop(ts, interval ''10 minutes'', interval ''3 minutes'')',
                  'hop(ts, interval ''10 minutes'', interval ''3 minutes'')');
SELECT * FROM check_views('hop_gap');
-- CUMULATE
SELECT make_views('cum', 'cumulate(ts, interval ''5 minutes'', interval ''30 minutes'')',
                  'cumulate(ts, interval ''5 minutes'', interval ''30 minutes'')');
SELECT * FROM check_views('cum');

-- The plans show the spec and do not expand HOP/CUMULATE inputs
EXPLAIN (COSTS OFF) SELECT * FROM hop_nm_full;
EXPLAIN (COSTS OFF) SELECT * FROM cum_anti;

-- Peak state: a 15-minute HOP window of this data holds about 1000*15/120
-- rows per side; the node never holds more than one window's rows
SET windowjoin.enable_window_join = on;
CREATE TEMP TABLE peak AS
SELECT max(n) AS largest_window_rows FROM (
  SELECT count(*) AS n FROM (
    SELECT window_start FROM ev_l, hop(ts, interval '5 minutes', interval '15 minutes')
    UNION ALL
    SELECT window_start FROM ev_r, hop(ts, interval '5 minutes', interval '15 minutes')) w
  GROUP BY window_start) c;
-- (the largest figure of any process: under a Gather the leader's own line
-- may be 0, when it leaves the key partitions to the workers)
SELECT peak_rows <= largest_window_rows + 2 AS bounded, peak_rows > 0 AS measured
FROM peak, (SELECT max((regexp_match(l, 'Peak State Rows: (\d+)'))[1]::bigint) AS peak_rows
            FROM wj_test.explain_analyze('SELECT * FROM hop_full', 'none') l
            WHERE l ~ 'Peak State Rows:' AND l !~ 'Total Peak') p;

-- Extra join conditions and WHERE clauses
CREATE VIEW extra_cond AS
SELECT L.v AS lv, R.v AS rv, L.window_start
FROM (SELECT * FROM ev_l, tumble(ts, interval '10 minutes')) L
LEFT JOIN (SELECT * FROM ev_r, tumble(ts, interval '10 minutes')) R
ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end
   AND L.v < R.v
WHERE R.v IS NULL OR R.v % 3 = 0;
EXPLAIN (COSTS OFF) SELECT * FROM extra_cond;
SELECT wj_test.on_off('TABLE extra_cond', 'window_join', 'Custom Scan \(WindowJoin\)');
-- no equality key besides the window: a cross product per window
CREATE VIEW no_key AS
SELECT L.v AS lv, R.v AS rv, L.window_start
FROM (SELECT * FROM ev_l, hop(ts, interval '10 minutes', interval '20 minutes')) L
FULL JOIN (SELECT * FROM ev_r, hop(ts, interval '10 minutes', interval '20 minutes')) R
ON L.window_start = R.window_start AND L.window_end = R.window_end AND L.v = R.v + 1;
SELECT wj_test.on_off('TABLE no_key', 'window_join', 'Custom Scan \(WindowJoin\)');
-- cross-type equality key (int = bigint)
CREATE VIEW cross_type AS
SELECT L.v AS lv, R.v AS rv, L.window_start
FROM (SELECT * FROM ev_l, tumble(ts, interval '10 minutes')) L
JOIN (SELECT ts, k::bigint AS k, v FROM ev_r) R0 ON true
CROSS JOIN LATERAL (SELECT 1) dummy
JOIN LATERAL (SELECT R0.*, t.* FROM tumble(R0.ts, interval '10 minutes') t) R
ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end
WHERE R0.v = R.v;
SELECT wj_test.on_off('TABLE cross_type', 'window_join', 'Custom Scan \(WindowJoin\)');

-- Window joins after window aggregations
CREATE VIEW agg_full AS
SELECT a.window_start, a.window_end, a.k, a.cnt AS l_cnt, b.cnt AS r_cnt
FROM (SELECT window_start, window_end, k, count(*) AS cnt
      FROM ev_l, tumble(ts, interval '10 minutes') GROUP BY window_start, window_end, k) a
FULL JOIN
     (SELECT window_start, window_end, k, count(*) AS cnt
      FROM ev_r, tumble(ts, interval '10 minutes') GROUP BY window_start, window_end, k) b
ON a.window_start = b.window_start AND a.window_end = b.window_end AND a.k = b.k;
EXPLAIN (COSTS OFF) SELECT * FROM agg_full;
SELECT wj_test.on_off('TABLE agg_full', 'window_join', 'Custom Scan \(WindowJoin\)');
SELECT * FROM agg_full WHERE k IN (1, 2) AND window_start < '2024-01-01 00:30' ORDER BY 1, 3;
CREATE VIEW agg_hop_semi AS
SELECT * FROM (SELECT window_start, window_end, k, sum(v) AS total
               FROM ev_l, hop(ts, interval '5 minutes', interval '10 minutes')
               GROUP BY window_start, window_end, k) a
WHERE EXISTS (SELECT 1 FROM (SELECT window_start, window_end, k
                             FROM ev_r, hop(ts, interval '5 minutes', interval '10 minutes')
                             GROUP BY window_start, window_end, k) b
              WHERE a.window_start = b.window_start AND a.window_end = b.window_end AND a.k = b.k);
EXPLAIN (COSTS OFF) SELECT * FROM agg_hop_semi;
SELECT wj_test.on_off('TABLE agg_hop_semi', 'window_join', 'Custom Scan \(WindowJoin\)');
CREATE VIEW agg_cum_left AS
SELECT a.window_start, a.window_end, a.k, a.cnt, b.cnt AS r_cnt
FROM (SELECT window_start, window_end, k, count(*) AS cnt
      FROM ev_l, cumulate(ts, interval '10 minutes', interval '30 minutes') GROUP BY 1, 2, 3) a
LEFT JOIN
     (SELECT window_start, window_end, k, count(*) AS cnt
      FROM ev_r, cumulate(ts, interval '10 minutes', interval '30 minutes') GROUP BY 1, 2, 3) b
ON a.window_start = b.window_start AND a.window_end = b.window_end AND a.k = b.k;
SELECT wj_test.on_off('TABLE agg_cum_left', 'window_join', 'Custom Scan \(WindowJoin\)');

-- timestamptz
CREATE TABLE tz_l AS SELECT ts AT TIME ZONE 'Asia/Seoul' AS ts, k, v FROM ev_l;
CREATE TABLE tz_r AS SELECT ts AT TIME ZONE 'Asia/Seoul' AS ts, k, v FROM ev_r;
ANALYZE tz_l;
ANALYZE tz_r;
CREATE VIEW tz_hop AS
SELECT L.v AS lv, R.v AS rv, L.window_start, R.window_end
FROM (SELECT * FROM tz_l, hop(ts, interval '5 minutes', interval '15 minutes')) L
FULL JOIN (SELECT * FROM tz_r, hop(ts, interval '5 minutes', interval '15 minutes')) R
ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end;
SELECT wj_test.on_off('TABLE tz_hop', 'window_join', 'Custom Scan \(WindowJoin\)');

-- Rescans: the join re-runs for each outer value with a changed parameter
CREATE TABLE rescan_on AS
SELECT g, (SELECT count(*) FROM hop_left j WHERE j.lv % 4 = g) AS n
FROM generate_series(0, 3) g;
SET windowjoin.enable_window_join = off;
CREATE TABLE rescan_off AS
SELECT g, (SELECT count(*) FROM hop_left j WHERE j.lv % 4 = g) AS n
FROM generate_series(0, 3) g;
SET windowjoin.enable_window_join = on;
EXPLAIN (COSTS OFF)
SELECT g, (SELECT count(*) FROM hop_left j WHERE j.lv % 4 = g) AS n
FROM generate_series(0, 3) g;
SELECT a.g, a.n, a.n = b.n AS same FROM rescan_on a JOIN rescan_off b USING (g) ORDER BY g;

-- Different specs on the two sides are not window joins
EXPLAIN (COSTS OFF)
SELECT * FROM (SELECT * FROM ev_l, hop(ts, interval '5 minutes', interval '15 minutes')) L
JOIN (SELECT * FROM ev_r, hop(ts, interval '5 minutes', interval '20 minutes')) R
ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end;
-- A CUMULATE join on window starts only (one start, several ends) is no
-- CUMULATE window join: the start equality alone runs as a join on the
-- 15-minute tumbling start, the cumulate windows are expanded above it
EXPLAIN (COSTS OFF)
SELECT * FROM (SELECT * FROM ev_l, cumulate(ts, interval '5 minutes', interval '15 minutes')) L
JOIN (SELECT * FROM ev_r, cumulate(ts, interval '5 minutes', interval '15 minutes')) R
ON L.k = R.k AND L.window_start = R.window_start;

-- An empty outer input: the node does not read the inner input at all
-- unless its rows are preserved (found by the differential fuzzer,
-- sql/fuzz_joins.sql).  The inner row with an infinite time would raise an
-- error that PostgreSQL's plan never raises: its merge and hash joins skip
-- the inner input when the outer one is empty.  (Serial plans: a partial
-- path would make the other input the outer one.)
SET max_parallel_workers_per_gather = 0;
CREATE TABLE empty_l (ts timestamp, k int, v int);
CREATE TABLE inf_r (ts timestamp, k int, v int);
INSERT INTO inf_r VALUES ('infinity', NULL, 1), ('2024-01-01 00:01', 1, 2);
ANALYZE empty_l;
ANALYZE inf_r;
CREATE VIEW empty_semi AS
SELECT L.v FROM (SELECT * FROM empty_l, tumble(ts, interval '5 minutes')) L
WHERE EXISTS (SELECT 1 FROM (SELECT * FROM inf_r, tumble(ts, interval '5 minutes')) R
              WHERE R.k = L.k AND R.window_start = L.window_start AND R.window_end = L.window_end);
EXPLAIN (COSTS OFF) SELECT * FROM empty_semi;
SELECT wj_test.on_off('TABLE empty_semi', 'window_join', 'Custom Scan \(WindowJoin\)');
CREATE VIEW empty_hop AS
SELECT L.v AS lv, R.v AS rv
FROM (SELECT * FROM empty_l, hop(ts, interval '5 minutes', interval '10 minutes')) L
JOIN (SELECT * FROM inf_r, hop(ts, interval '5 minutes', interval '10 minutes')) R
ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end;
EXPLAIN (COSTS OFF) SELECT * FROM empty_hop;
SELECT wj_test.on_off('TABLE empty_hop', 'window_join', 'Custom Scan \(WindowJoin\)');
RESET max_parallel_workers_per_gather;
