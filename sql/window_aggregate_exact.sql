--
-- Pane aggregation (WindowExpand) is offered only for aggregates whose
-- partial states combine exactly: combining per-pane float sums adds in a
-- different order than aggregating row by row, so sum/avg/stddev/variance
-- and the regression aggregates over float4/float8 keep PostgreSQL's plan.
-- Every query runs with windowjoin.enable_window_aggregate on and off and
-- must give the same rows, compared with every float digit.
--
SET TimeZone = 'UTC';
SET extra_float_digits = 3;
CREATE SCHEMA window_aggregate_exact;
SET search_path = window_aggregate_exact, public;
SET max_parallel_workers_per_gather = 0;
SELECT setseed(0.25);
CREATE TABLE m AS
SELECT timestamp '2024-01-01' + (random() * 86400)::int * interval '1 second' AS t,
       (random() * 1000)::float8 / 7 AS f8,
       ((random() * 1000)::float8 / 3)::float4 AS f4,
       (random() * 1000)::int AS i,
       (random() * 1000)::numeric(12, 3) AS num,
       (random() * 5)::int AS k
FROM generate_series(1, 20000);
ALTER TABLE m ALTER t SET NOT NULL;
ANALYZE m;

\set ECHO none
\i sql/include/helpers.sql
\set ECHO all

-- float states: PostgreSQL's plan (they differed in the last digits)
SELECT a, wj_test.on_off(format(
  'SELECT window_start, window_end, %s AS x FROM m, hop(t, interval ''1 minute'', interval ''30 minutes'') GROUP BY 1, 2', a), 'window_aggregate', 'WindowExpand')
FROM unnest(ARRAY['sum(f8)', 'sum(f4)', 'avg(f8)', 'avg(f4)', 'stddev(f8)', 'stddev_pop(f4)',
                  'var_samp(f8)', 'variance(f4)', 'corr(f8, f4)', 'regr_slope(f8, i)',
                  'covar_pop(f8, f4)', 'sum(i::float8)', 'avg(i) + sum(f8)']) a;
SELECT a, wj_test.on_off(format(
  'SELECT window_start, window_end, k, %s AS x FROM m, cumulate(t, interval ''10 minutes'', interval ''2 hours'') GROUP BY 1, 2, 3', a), 'window_aggregate', 'WindowExpand')
FROM unnest(ARRAY['sum(f8)', 'avg(f4)', 'stddev_samp(f8)']) a;

-- exact combines: panes are used
SELECT a, wj_test.on_off(format(
  'SELECT window_start, window_end, %s AS x FROM m, hop(t, interval ''1 minute'', interval ''30 minutes'') GROUP BY 1, 2', a), 'window_aggregate', 'WindowExpand')
FROM unnest(ARRAY['count(*)', 'count(f8)', 'sum(i)', 'avg(i)', 'sum(num)', 'avg(num)',
                  'stddev(i)', 'variance(num)', 'min(f8)', 'max(f4)', 'min(i)', 'max(num)',
                  'bool_and(f8 > 10)', 'bool_or(f4 < 1)', 'every(i > 3)', 'bit_or(i)',
                  'bit_and(i)', 'bit_xor(i)', 'sum(i::int8)', 'min(t)',
                  'sum(f8::numeric)']) a;
-- one inexact aggregate among exact ones: PostgreSQL's plan for the query
SELECT wj_test.on_off($$SELECT window_start, window_end, count(*) AS c, sum(i) AS si, sum(f8) AS sf
  FROM m, hop(t, interval '1 minute', interval '30 minutes') GROUP BY 1, 2$$, 'window_aggregate', 'WindowExpand') AS mixed;
-- the plans
EXPLAIN (COSTS OFF)
SELECT window_start, window_end, sum(f8) FROM m, hop(t, interval '1 minute', interval '30 minutes')
GROUP BY window_start, window_end;
EXPLAIN (COSTS OFF)
SELECT window_start, window_end, sum(i), max(f8) FROM m, hop(t, interval '1 minute', interval '30 minutes')
GROUP BY window_start, window_end;

-- a user-defined aggregate with a combine function: its exactness is
-- unknown, so PostgreSQL's plan
CREATE AGGREGATE my_sum(int8) (sfunc = int8pl, stype = int8, combinefunc = int8pl,
                               parallel = safe);
SELECT wj_test.on_off($$SELECT window_start, window_end, my_sum(i) FROM m,
  hop(t, interval '1 minute', interval '30 minutes') GROUP BY 1, 2$$, 'window_aggregate', 'WindowExpand') AS user_defined;

RESET max_parallel_workers_per_gather;
RESET extra_float_digits;
RESET search_path;
DROP SCHEMA window_aggregate_exact CASCADE;
