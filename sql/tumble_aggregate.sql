--
-- TumbleAgg: tumbling-window aggregation over tumble(), date_bin() and
-- date_trunc() computed as integer arithmetic, with the aggregates in
-- fixed-size states.  Every query runs with
-- windowjoin.enable_window_aggregate on and off and must give the same
-- rows, every float digit included; the plans show which node ran.
--
SET TimeZone = 'UTC';
SET extra_float_digits = 3;
CREATE SCHEMA tumble_aggregate;
SET search_path = tumble_aggregate, public;
SET max_parallel_workers_per_gather = 0;
SELECT setseed(0.5);
CREATE TABLE m AS
SELECT timestamp '2024-01-01' + (random() * 86400 * 3)::int * interval '1 second'
         + (random() * 1000)::int * interval '1 ms' AS t,
       (random() * 1000)::float8 / 7 AS f8,
       ((random() * 1000)::float8 / 3)::float4 AS f4,
       (random() * 1000)::int AS i,
       (random() * 1000)::int2 AS i2,
       (random() * 1e12)::int8 AS i8,
       (random() * 1000)::numeric(12, 3) AS num,
       (random() * 5)::int AS k,
       'k' || (random() * 3)::int AS s
FROM generate_series(1, 20000);
-- NULL times, NULL values, a row on a window boundary, one before 1970
INSERT INTO m (t, f8, i, num, k, s) VALUES
  (NULL, 1, 1, 1.5, 1, 'k1'), (NULL, NULL, NULL, NULL, NULL, NULL),
  ('2024-01-02 00:00:00', 2, 2, 2.25, 2, 'k2'),
  ('1969-12-31 23:59:00', 3, 3, 3, 3, 'k3'),
  ('1969-12-31 23:59:30.5', 4, 4, 4, 3, 'k3');
CREATE TABLE mz AS SELECT t AT TIME ZONE 'UTC' AS t, f8, i, num, k FROM m;
ANALYZE m;
ANALYZE mz;

\set ECHO none
\i sql/include/helpers.sql
\set ECHO all

-- the three spellings of a per-minute window
SELECT wj_test.on_off($$SELECT window_start, window_end, count(*) AS c, sum(num) AS s
  FROM m, tumble(t, interval '1 minute') GROUP BY window_start, window_end$$,
  'window_aggregate', 'TumbleAgg') AS tumble_minute;
SELECT wj_test.on_off($$SELECT date_bin('1 minute', t, timestamp '1970-01-01') AS w,
  date_bin('1 minute', t, timestamp '1970-01-01') + interval '1 minute' AS e, sum(num) AS s
  FROM m GROUP BY 1, 2$$, 'window_aggregate', 'TumbleAgg') AS date_bin_minute;
SELECT wj_test.on_off($$SELECT date_trunc('minute', t) AS w, count(*), sum(i) FROM m GROUP BY 1$$,
  'window_aggregate', 'TumbleAgg') AS date_trunc_minute;

-- every aggregate the node computes, per hour and key
SELECT a, wj_test.on_off(format(
  'SELECT window_start, k, (%s)::text AS x FROM m, tumble(t, interval ''1 hour'') GROUP BY 1, 2', a),
  'window_aggregate', 'TumbleAgg')
FROM unnest(ARRAY['count(*)', 'count(f8)', 'count(s)', 'sum(i)', 'sum(i2)', 'sum(i8)',
                  'sum(f8)', 'sum(f4)', 'sum(num)', 'avg(i)', 'avg(i2)', 'avg(i8)',
                  'avg(f8)', 'avg(f4)', 'avg(num)', 'min(i)', 'max(i8)', 'min(f8)',
                  'max(f4)', 'min(num)', 'max(num)', 'min(t)', 'max(t::date)',
                  'sum(num) / count(*)', 'max(i) - min(i)']) a;

-- keys of several types, window columns in any order, HAVING
SELECT wj_test.on_off($$SELECT s, k, window_end, window_start, window_time, count(*), avg(num)
  FROM m, tumble(t, interval '15 minutes', interval '5 minutes')
  GROUP BY s, k, window_start, window_end, window_time HAVING count(*) > 2$$,
  'window_aggregate', 'TumbleAgg') AS keys_having;
SELECT wj_test.on_off($$SELECT window_start, lower(s) AS ls, sum(i) FROM m,
  tumble(t, interval '1 day') WHERE k < 3 GROUP BY 1, 2 HAVING sum(i) > 1000$$,
  'window_aggregate', 'TumbleAgg') AS expr_key;
-- no aggregate at all: the distinct windows
SELECT wj_test.on_off($$SELECT window_start FROM m, tumble(t, interval '1 hour') GROUP BY 1$$,
  'window_aggregate', 'TumbleAgg') AS windows_only;

-- date_bin with an origin, strides of days, timestamptz
SELECT wj_test.on_off($$SELECT date_bin('7 minutes', t, timestamp '2001-02-03 04:05:06') AS w,
  k, sum(f8) FROM m GROUP BY 1, 2$$, 'window_aggregate', 'TumbleAgg') AS date_bin_origin;
SELECT wj_test.on_off($$SELECT date_bin('2 days', t, timestamp '2023-12-31 12:00') AS w,
  count(*) FROM m GROUP BY 1$$, 'window_aggregate', 'TumbleAgg') AS date_bin_days;
SELECT wj_test.on_off($$SELECT date_bin('1 hour', t, timestamptz '2000-01-01 00:30+00') AS w,
  date_bin('1 hour', t, timestamptz '2000-01-01 00:30+00') - interval '1 second' AS before_w,
  sum(num) FROM mz GROUP BY 1, 2$$, 'window_aggregate', 'TumbleAgg') AS date_bin_tz;
SELECT wj_test.on_off($$SELECT window_start, window_end, max(i) FROM mz,
  tumble(t, interval '10 minutes') GROUP BY 1, 2$$, 'window_aggregate', 'TumbleAgg') AS tumble_tz;

-- date_trunc on timestamp, every fixed unit (the finest make a group of
-- nearly every row, a table beyond the cache: costed higher than
-- PostgreSQL's, so its plans are off for them)
SELECT u, wj_test.on_off(format(
  'SELECT date_trunc(%L, t) AS w, count(*), sum(num) FROM m GROUP BY 1', u),
  'window_aggregate', 'TumbleAgg', settings => 'enable_hashagg=off, enable_sort=off')
FROM unnest(ARRAY['microseconds', 'milliseconds', 'second', 'minute', 'hour', 'day',
                  'week', 'Hour', 'hours']) u;
-- variable units and time zones: PostgreSQL's plan
SELECT wj_test.on_off($$SELECT date_trunc('month', t) AS w, count(*) FROM m GROUP BY 1$$,
  'window_aggregate', 'TumbleAgg') AS trunc_month;
SELECT wj_test.on_off($$SELECT date_trunc('hour', t) AS w, count(*) FROM mz GROUP BY 1$$,
  'window_aggregate', 'TumbleAgg') AS trunc_timestamptz;
SELECT wj_test.on_off($$SELECT date_bin('1 hour', t, timestamptz '2000-01-01') + interval '1 day' AS w,
  count(*) FROM mz GROUP BY 1$$, 'window_aggregate', 'TumbleAgg') AS plus_day_timestamptz;
-- aggregates it does not compute: PostgreSQL's plan
SELECT a, wj_test.on_off(format(
  'SELECT window_start, %s AS x FROM m, tumble(t, interval ''1 hour'') GROUP BY 1', a),
  'window_aggregate', 'TumbleAgg')
FROM unnest(ARRAY['count(DISTINCT k)', 'sum(i) FILTER (WHERE k > 1)', 'string_agg(s, '','')',
                  'stddev(f8)', 'bool_and(i > 3)', 'max(s)']) a;

-- numeric: display scales, NaN, infinities, values beyond 128 bits
CREATE TABLE nums (t timestamp, v numeric, k int);
INSERT INTO nums VALUES
  ('2024-01-01 00:00:01', 1.0, 1), ('2024-01-01 00:00:02', 1.00, 1), ('2024-01-01 00:00:03', 2, 1),
  ('2024-01-01 00:01:01', 'NaN', 1), ('2024-01-01 00:01:02', 5.5, 1),
  ('2024-01-01 00:02:01', 'Infinity', 1), ('2024-01-01 00:02:02', 1, 1),
  ('2024-01-01 00:03:01', 'Infinity', 1), ('2024-01-01 00:03:02', '-Infinity', 1),
  ('2024-01-01 00:04:01', 1e30, 1), ('2024-01-01 00:04:02', 1e-20, 1), ('2024-01-01 00:04:03', -7.123456789, 1),
  ('2024-01-01 00:05:01', 99999999999999999999999999.99999999, 1),
  ('2024-01-01 00:05:02', 99999999999999999999999999.99999999, 1),
  ('2024-01-01 00:05:03', 99999999999999999999999999.99999999, 1),
  ('2024-01-01 00:06:01', -0.000, 1), ('2024-01-01 00:06:02', 0.0000000000, 2),
  ('2024-01-01 00:07:01', 1.10, 1), ('2024-01-01 00:07:02', 1.1, 1);
SELECT wj_test.on_off($$SELECT window_start, k, sum(v)::text AS s, avg(v)::text AS a,
  min(v)::text AS mi, max(v)::text AS ma, count(v)
  FROM nums, tumble(t, interval '1 minute') GROUP BY 1, 2$$, 'window_aggregate', 'TumbleAgg') AS numerics;
SET windowjoin.enable_window_aggregate = on;
SELECT window_start, sum(v), avg(v), min(v), max(v) FROM nums, tumble(t, interval '1 minute')
GROUP BY 1 ORDER BY 1;
RESET windowjoin.enable_window_aggregate;

-- floats: NaN, infinities, overflow errors as PostgreSQL raises them
CREATE TABLE fl (t timestamp, f float8, g float4);
INSERT INTO fl VALUES ('2024-01-01 00:00:01', 'NaN', 1), ('2024-01-01 00:00:02', 1, 'NaN'),
  ('2024-01-01 00:01:01', 'Infinity', '-Infinity'), ('2024-01-01 00:01:02', 2, 2),
  ('2024-01-01 00:02:01', 0.0, 0.0), ('2024-01-01 00:02:02', -0.0, -0.0);
SELECT wj_test.on_off($$SELECT window_start, sum(f) AS sf, avg(f) AS af, min(f) AS nf, max(f) AS xf,
  sum(g) AS sg, avg(g) AS ag, min(g) AS ng, max(g) AS xg
  FROM fl, tumble(t, interval '1 minute') GROUP BY 1$$, 'window_aggregate', 'TumbleAgg') AS floats;
INSERT INTO fl VALUES ('2024-01-01 00:03:01', 1e308, 3e38), ('2024-01-01 00:03:02', 1e308, 3e38);
SELECT wj_test.on_off($$SELECT window_start, sum(f) FROM fl, tumble(t, interval '1 minute') GROUP BY 1$$,
  'window_aggregate', 'TumbleAgg') AS float8_overflow;
SELECT wj_test.on_off($$SELECT window_start, sum(g) FROM fl, tumble(t, interval '1 minute') GROUP BY 1$$,
  'window_aggregate', 'TumbleAgg') AS float4_overflow;
SELECT wj_test.on_off($$SELECT window_start, avg(f) FROM fl, tumble(t, interval '1 minute') GROUP BY 1$$,
  'window_aggregate', 'TumbleAgg') AS avg_overflow;

-- infinite times: tumble() rejects them, date_bin and date_trunc keep them
INSERT INTO fl VALUES ('infinity', 1, 1), ('-infinity', 2, 2);
SELECT wj_test.on_off($$SELECT window_start, count(*) FROM fl, tumble(t, interval '1 minute') GROUP BY 1$$,
  'window_aggregate', 'TumbleAgg') AS tumble_infinite;
SELECT wj_test.on_off($$SELECT date_bin('1 minute', t, timestamp '2000-01-01') AS w,
  date_bin('1 minute', t, timestamp '2000-01-01') + interval '1 minute' AS e, count(*)
  FROM fl WHERE f < 1e300 GROUP BY 1, 2$$, 'window_aggregate', 'TumbleAgg') AS date_bin_infinite;
SELECT wj_test.on_off($$SELECT date_trunc('hour', t) AS w, count(*) FROM fl GROUP BY 1$$,
  'window_aggregate', 'TumbleAgg') AS trunc_infinite;

-- memory: groups written out sorted and merged back (exact aggregates).
-- With this little memory the planner rightly prefers PostgreSQL's own
-- plan (the next test shows it), which spills less: its plans are off here.
SET work_mem = '64kB';
SET hash_mem_multiplier = 1;
SELECT wj_test.plan_lines($$SELECT window_start, k, s, count(*) FROM m,
  tumble(t, interval '1 minute') GROUP BY 1, 2, 3$$, 'Aggregate|TumbleAgg') AS spill_costed;
SET enable_hashagg = off;
SET enable_sort = off;
SELECT wj_test.on_off($$SELECT window_start, k, s, count(*), sum(num)::text AS sn, avg(i8)::text AS ai,
  min(num)::text AS mn, max(f8) FROM m, tumble(t, interval '1 minute') GROUP BY 1, 2, 3$$,
  'window_aggregate', 'TumbleAgg',
  settings => 'work_mem=64kB, hash_mem_multiplier=1, enable_hashagg=off, enable_sort=off') AS spilled;
SELECT wj_test.on_off($$SELECT window_start, count(*), sum(num) FROM m, tumble(t, interval '1 second')
  GROUP BY 1$$, 'window_aggregate', 'TumbleAgg',
  settings => 'work_mem=64kB, hash_mem_multiplier=1, enable_hashagg=off, enable_sort=off')
  AS dense_to_hashed;
SELECT l FROM wj_test.explain_analyze($$SELECT window_start, k, s, count(*), sum(num)
  FROM m, tumble(t, interval '1 minute') GROUP BY 1, 2, 3$$, 'spill') l
WHERE l ~ 'TumbleAgg|Strategy|Batches|Window';
RESET work_mem;
RESET hash_mem_multiplier;
RESET enable_hashagg;
RESET enable_sort;

-- the plans
EXPLAIN (COSTS OFF)
SELECT window_start, window_end, sum(num) FROM m, tumble(t, interval '1 minute')
GROUP BY window_start, window_end;
EXPLAIN (COSTS OFF, VERBOSE)
SELECT date_bin('1 hour', t, timestamp '2000-01-01') AS w, k, count(*), max(f8)
FROM m GROUP BY 1, 2 HAVING count(*) > 1;
SELECT l FROM wj_test.explain_analyze($$SELECT window_start, count(*) FROM m,
  tumble(t, interval '1 hour') GROUP BY 1$$) l WHERE l ~ 'TumbleAgg|Strategy|Groups|Peak|Window';
-- (the aggregation node only: below it 15 keeps a Result that 16 removes)
SET windowjoin.enable_window_aggregate = off;
SELECT wj_test.plan_lines($$SELECT window_start, window_end, sum(num) FROM m,
  tumble(t, interval '1 minute') GROUP BY window_start, window_end$$, 'Aggregate|TumbleAgg') AS nodes_off;
RESET windowjoin.enable_window_aggregate;

-- parallel: each participant its share, groups or rows exchanged by window
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT wj_test.on_off($$SELECT window_start, k, count(*), sum(num)::text AS sn, avg(i)::text AS ai,
  min(i8), max(num)::text AS mn FROM m, tumble(t, interval '5 minutes') GROUP BY 1, 2$$,
  'window_aggregate', 'TumbleAgg|Gather') AS parallel_hashed;
SELECT wj_test.on_off($$SELECT date_trunc('minute', t), count(*), sum(i8) FROM m GROUP BY 1$$,
  'window_aggregate', 'TumbleAgg|Gather') AS parallel_dense;
SELECT wj_test.on_off($$SELECT window_start, k, count(*), sum(num) FROM m,
  tumble(t, interval '1 minute') GROUP BY 1, 2$$, 'window_aggregate', 'TumbleAgg|Gather',
  settings => 'work_mem=64kB, hash_mem_multiplier=1, enable_hashagg=off, enable_sort=off')
  AS parallel_spilled;
-- the leader leaving its share to the workers, or always taking one
SELECT wj_test.on_off($$SELECT window_start, k, count(*), sum(num)::text AS sn FROM m,
  tumble(t, interval '5 minutes') GROUP BY 1, 2$$, 'window_aggregate', 'TumbleAgg|Gather',
  settings => 'windowjoin.leader_participation=off') AS parallel_leader_off;
SELECT wj_test.on_off($$SELECT date_trunc('minute', t), count(*), sum(i8) FROM m GROUP BY 1$$,
  'window_aggregate', 'TumbleAgg|Gather',
  settings => 'windowjoin.leader_participation=on') AS parallel_leader_on;
-- EXPLAIN ANALYZE: each worker's peak state and rows, the leader's rows
SELECT wj_test.worker_figures('TumbleAgg', $$SELECT window_start, k, count(*) FROM m,
  tumble(t, interval '5 minutes') GROUP BY 1, 2$$) AS parallel_figures;
EXPLAIN (COSTS OFF)
SELECT window_start, k, count(*) FROM m, tumble(t, interval '5 minutes') GROUP BY 1, 2;
-- 13,663 groups of 20,000 rows with five aggregates (a participant's table
-- beyond the cache): the rows are exchanged, each partition's groups small
EXPLAIN (COSTS OFF)
SELECT window_start, k, count(*), sum(num), avg(i), min(i8), max(num) FROM m,
  tumble(t, interval '1 minute') GROUP BY 1, 2;
SELECT wj_test.on_off($$SELECT window_start, k, count(*), sum(num)::text AS sn, avg(i)::text AS ai,
  min(i8), max(num)::text AS mn FROM m, tumble(t, interval '1 minute') GROUP BY 1, 2$$,
  'window_aggregate', 'TumbleAgg|Gather') AS parallel_rows;
SELECT wj_test.on_off($$SELECT window_start, k, count(*), sum(num)::text AS sn, avg(i)::text AS ai,
  min(i8), max(num)::text AS mn FROM m, tumble(t, interval '1 minute') GROUP BY 1, 2$$,
  'window_aggregate', 'TumbleAgg|Gather',
  settings => 'work_mem=64kB, hash_mem_multiplier=1, enable_hashagg=off, enable_sort=off')
  AS parallel_rows_spilled;
-- the rows exchange with NULL and pre-1970 times (date_bin keeps them), and
-- with a text key (PostgreSQL's TupleHashTable in each partition)
EXPLAIN (COSTS OFF)
SELECT date_bin('1 minute', t, timestamp '2000-01-01') AS w, s, count(*), sum(num), avg(i),
  min(i8), max(num) FROM m GROUP BY 1, 2;
SELECT wj_test.on_off($$SELECT date_bin('1 minute', t, timestamp '2000-01-01') AS w, s, count(*),
  sum(num)::text AS sn, avg(i)::text AS ai, min(i8), max(num)::text AS mn FROM m GROUP BY 1, 2$$,
  'window_aggregate', 'TumbleAgg|Gather') AS parallel_rows_text_key;
SELECT wj_test.on_off($$SELECT date_trunc('second', t) AS w, k, count(*), sum(num)::text AS sn,
  avg(i)::text AS ai, min(i8), max(num)::text AS mn FROM m GROUP BY 1, 2$$,
  'window_aggregate', 'TumbleAgg|Gather') AS parallel_rows_nulls;
-- 74 windows: the groups are exchanged
EXPLAIN (COSTS OFF)
SELECT window_start, count(*) FROM m, tumble(t, interval '1 hour') GROUP BY 1;
SELECT wj_test.on_off($$SELECT window_start, count(*), sum(num)::text AS sn, max(f8) FROM m,
  tumble(t, interval '1 hour') GROUP BY 1$$, 'window_aggregate', 'TumbleAgg|Gather')
  AS parallel_groups;
-- the node is a partial path of the grouped relation: an aggregate over it
-- as a subquery aggregates each participant's groups below the Gather
EXPLAIN (COSTS OFF)
SELECT count(*), sum(c) FROM (SELECT window_start, count(*) AS c FROM m,
  tumble(t, interval '1 minute') GROUP BY 1) x;
SELECT wj_test.on_off($$SELECT count(*), sum(c), sum(s)::text AS s FROM (SELECT window_start, k,
  count(*) AS c, sum(num) AS s FROM m, tumble(t, interval '1 minute') GROUP BY 1, 2) x$$,
  'window_aggregate', 'Partial Aggregate|TumbleAgg') AS parallel_partial_path;
-- ... and under a Parallel Append of two aggregations (UNION ALL), where a
-- participant may run either node, or both
SELECT wj_test.on_off($$SELECT count(*), sum(c), sum(s)::text AS s FROM (
  SELECT window_start, count(*) AS c, sum(num) AS s FROM m, tumble(t, interval '1 minute')
  WHERE k < 5 GROUP BY 1
  UNION ALL
  SELECT window_start, count(*), sum(num) FROM m, tumble(t, interval '1 hour')
  WHERE k >= 5 GROUP BY 1) u$$,
  'window_aggregate', 'Parallel Append|TumbleAgg') AS parallel_append;
-- 200,000 one-second windows, the first row in the middle of them: in
-- parallel the rows are exchanged, and each of the 64 window partitions'
-- dense arrays (every 64th window, ta_partition_stride) grows beyond its
-- first 1,024 windows; serially the dense array grows both ways, onto
-- huge pages from 2 MB on (wj_alloc_huge_array)
CREATE TABLE secs AS SELECT timestamp '2024-01-01' + ((i * 7919) % 200000) * interval '1 second'
    + (i % 3) * interval '100 ms' AS t, (i % 1000)::numeric / 10 AS v
  FROM generate_series(0, 239999) i;
ANALYZE secs;
SELECT wj_test.on_off($$SELECT window_start, count(*), sum(v)::text AS sv FROM secs,
  tumble(t, interval '1 second') GROUP BY 1$$, 'window_aggregate', 'TumbleAgg|Gather',
  settings => 'work_mem=64MB') AS parallel_dense_large;
SELECT wj_test.on_off($$SELECT window_start, count(*), sum(v)::text AS sv FROM secs,
  tumble(t, interval '1 second') GROUP BY 1$$, 'window_aggregate', 'TumbleAgg',
  settings => 'work_mem=64MB, max_parallel_workers_per_gather=0, enable_hashagg=off,
  enable_sort=off') AS dense_large;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;

-- a table of groups beyond 8 MB: its buckets and cells on memory advised
-- for huge pages (huge_pages.c), 300,000 groups of two rows each (two keys,
-- so that it is a hash table)
CREATE TABLE big AS SELECT timestamp '2024-01-01' + (i % 1000) * interval '1 minute'
    + (i % 7) * interval '1 second' AS t, (i / 2000) AS k, (i % 100000)::numeric / 100 AS v
  FROM generate_series(0, 599999) i;
SELECT wj_test.on_off($$SELECT window_start, k, k % 3 AS k3, count(*), sum(v)::text AS sv,
  max(v)::text AS mv FROM big, tumble(t, interval '1 minute') GROUP BY 1, 2, 3$$,
  'window_aggregate', 'TumbleAgg',
  settings => 'work_mem=64MB, enable_hashagg=off, enable_sort=off') AS large_hashed;
SET enable_hashagg = off;
SET enable_sort = off;
SELECT l FROM wj_test.explain_analyze($$SELECT window_start, k, k % 3 AS k3, count(*) FROM big,
  tumble(t, interval '1 minute') GROUP BY 1, 2, 3$$) l WHERE l ~ 'Strategy|Groups:';
-- ... and with one key, the same groups in a dense array of 1,000 x 300
SELECT wj_test.on_off($$SELECT window_start, k, count(*), sum(v)::text AS sv, max(v)::text AS mv
  FROM big, tumble(t, interval '1 minute') GROUP BY 1, 2$$, 'window_aggregate', 'TumbleAgg',
  settings => 'work_mem=64MB, enable_hashagg=off, enable_sort=off') AS large_dense_keyed;
SET work_mem = '64MB';
SELECT l FROM wj_test.explain_analyze($$SELECT window_start, k, count(*) FROM big,
  tumble(t, interval '1 minute') GROUP BY 1, 2$$) l WHERE l ~ 'Strategy|Groups:';
RESET work_mem;
RESET enable_hashagg;
RESET enable_sort;
DROP TABLE big;

-- one integer key: the dense array by window and key (no hashing).  Keys
-- that first come in the middle and grow the array both ways, negative
-- keys, keys of each integer-like type; a NULL key, an infinite window,
-- keys too sparse or beyond int64's span turn it hashed mid-input
CREATE TABLE dk AS SELECT timestamp '2024-01-01' + ((i * 7919) % 5000) * interval '1 minute' AS t,
    ((i::int8 * 104729) % 700)::int - 200 AS k, (i % 1000)::numeric / 10 AS v, i
  FROM generate_series(0, 99999) i;
ANALYZE dk;
SET enable_hashagg = off;
SET enable_sort = off;
SELECT wj_test.on_off(format($$SELECT window_start, %s AS key, count(*), sum(v)::text AS sv,
  avg(i)::text AS ai, min(i), max(v) FROM dk, tumble(t, interval '2 hours') GROUP BY 1, 2$$, e),
  'window_aggregate', 'TumbleAgg') AS dense_keyed, e
FROM unnest(ARRAY['k', 'k::int2', 'k::int8 * 3', '(k > 100)', 'date ''2024-01-01'' + k',
                  'k::oid', '(t + k * interval ''1 second'')::timestamp']) e;
SELECT l FROM wj_test.explain_analyze($$SELECT window_start, k, count(*) FROM dk,
  tumble(t, interval '2 hours') GROUP BY 1, 2$$) l WHERE l ~ 'Strategy|Groups:';
INSERT INTO dk VALUES ('2024-01-02', NULL, 1, 1);
SELECT wj_test.on_off($$SELECT window_start, k, count(*), sum(v)::text AS sv FROM dk,
  tumble(t, interval '2 hours') GROUP BY 1, 2$$, 'window_aggregate', 'TumbleAgg') AS null_key;
SELECT l FROM wj_test.explain_analyze($$SELECT window_start, k, count(*) FROM dk,
  tumble(t, interval '2 hours') GROUP BY 1, 2$$) l WHERE l ~ 'Strategy|Groups:';
DELETE FROM dk WHERE k IS NULL;
INSERT INTO dk VALUES ('infinity', 1, 1, 1), ('-infinity', 2, 2, 2);
SELECT wj_test.on_off($$SELECT date_bin('2 hours', t, timestamp '2024-01-01') AS w, k, count(*),
  sum(v)::text AS sv FROM dk GROUP BY 1, 2$$, 'window_aggregate', 'TumbleAgg') AS infinite_window;
DELETE FROM dk WHERE t IN ('infinity', '-infinity');
SELECT wj_test.on_off($$SELECT window_start, k::int8 * 1000003 AS sparse, count(*) FROM dk,
  tumble(t, interval '2 hours') GROUP BY 1, 2$$, 'window_aggregate', 'TumbleAgg') AS sparse_keys;
SELECT l FROM wj_test.explain_analyze($$SELECT window_start, k::int8 * 1000003 AS sparse, count(*)
  FROM dk, tumble(t, interval '2 hours') GROUP BY 1, 2$$) l WHERE l ~ 'Strategy|Groups:';
SELECT wj_test.on_off($$SELECT window_start, CASE WHEN k < 0 THEN -9223372036854775807
  WHEN k > 400 THEN 9223372036854775807 ELSE k END AS extreme, count(*) FROM dk,
  tumble(t, interval '1 hour') GROUP BY 1, 2$$, 'window_aggregate', 'TumbleAgg') AS extreme_keys;
-- ... written out and merged back when memory is short
SELECT wj_test.on_off($$SELECT window_start, k, count(*), sum(v)::text AS sv, min(v)::text AS mv
  FROM dk, tumble(t, interval '2 hours') GROUP BY 1, 2$$, 'window_aggregate', 'TumbleAgg',
  settings => 'work_mem=64kB, hash_mem_multiplier=1, enable_hashagg=off, enable_sort=off')
  AS dense_keyed_spilled;
SET work_mem = '64kB';
SET hash_mem_multiplier = 1;
SELECT l FROM wj_test.explain_analyze($$SELECT window_start, k, count(*) FROM dk,
  tumble(t, interval '2 hours') GROUP BY 1, 2$$, 'spill') l WHERE l ~ 'Strategy|Batches';
RESET work_mem;
RESET hash_mem_multiplier;
-- ... and in parallel, each participant's array handed over in shared
-- memory (tumble_agg_shared.c); or, from a participant whose array turned
-- hashed (a NULL key) or holds a numeric beyond 128 bits (NaN), its groups
-- through the temporary files, merged with the others' arrays
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT wj_test.plan_lines($$SELECT window_start, k % 7 AS km, count(*), sum(v) FROM dk,
  tumble(t, interval '1 day') GROUP BY 1, 2$$, 'TumbleAgg|Exchanged') AS shared_plan;
SELECT l FROM wj_test.explain_analyze($$SELECT window_start, k % 7 AS km, count(*), sum(v) FROM dk,
  tumble(t, interval '1 day') GROUP BY 1, 2$$) l WHERE l ~ 'Exchanged';
SELECT wj_test.on_off($$SELECT window_start, k % 7 AS km, count(*), sum(v)::text AS sv, avg(i)::text AS ai,
  max(i) FROM dk, tumble(t, interval '1 day') GROUP BY 1, 2$$, 'window_aggregate',
  'TumbleAgg|Gather') AS dense_keyed_parallel;
SELECT wj_test.on_off($$SELECT window_start, count(*), sum(v)::text AS sv FROM dk,
  tumble(t, interval '10 minutes') GROUP BY 1$$, 'window_aggregate', 'TumbleAgg|Gather')
  AS dense_parallel;
INSERT INTO dk SELECT '2024-01-02', NULL, 1, 1 FROM generate_series(1, 3);
INSERT INTO dk SELECT '2024-01-02 10:00', 5, 'NaN', 1 FROM generate_series(1, 3);
SELECT wj_test.on_off($$SELECT window_start, k % 7 AS km, count(*), sum(v)::text AS sv, avg(v)::text AS av
  FROM dk, tumble(t, interval '1 day') GROUP BY 1, 2$$, 'window_aggregate', 'TumbleAgg|Gather')
  AS shared_and_files;
DELETE FROM dk WHERE k IS NULL OR v = 'NaN';
-- ... with less memory than a participant's array: its groups go to the
-- files as they fill it, the rest in shared memory
SELECT wj_test.on_off($$SELECT window_start, k % 7 AS km, count(*), sum(v)::text AS sv FROM dk,
  tumble(t, interval '1 day') GROUP BY 1, 2$$, 'window_aggregate', 'TumbleAgg|Gather',
  settings => 'work_mem=1MB, hash_mem_multiplier=1') AS shared_spilled;
-- ... and rescanned: a Gather under a nested loop starts over each time,
-- the arrays of the last run freed
SELECT wj_test.on_off($$SELECT s.x, q.c FROM generate_series(-6, 6, 3) s(x)
  JOIN (SELECT km, count(*) AS c FROM (SELECT window_start, k % 7 AS km, count(*) FROM dk,
        tumble(t, interval '1 day') GROUP BY 1, 2) g GROUP BY km) q ON q.km = s.x$$,
  'window_aggregate', 'TumbleAgg|Nested Loop',
  settings => 'enable_hashjoin=off, enable_mergejoin=off, enable_material=off') AS shared_rescan;
-- ... and under a node that exchanges what it reads (a session window over
-- the groups, its key partitions exchanged): there the leader runs its
-- share of the aggregation even when it would leave it to the workers, as a
-- leader whose child returned nothing could end the write phase alone,
-- before a worker attached, and every group would be lost
SELECT wj_test.on_off($$SELECT km, (w).window_start, (w).window_end, sum(c) AS c FROM (
  SELECT *, session(window_start, interval '1 day') OVER (PARTITION BY km ORDER BY window_start) AS w
  FROM (SELECT window_start, k % 7 AS km, count(*) AS c FROM dk, tumble(t, interval '1 day')
        GROUP BY 1, 2) g) s GROUP BY 1, 2, 3$$, 'window_aggregate', 'TumbleAgg|SessionWindow',
  settings => 'windowjoin.leader_participation=off') AS under_exchange;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;
RESET enable_hashagg;
RESET enable_sort;
DROP TABLE dk;

-- the groups the planner expects: distinct windows times keys; an hour's
-- window over a day of rows is 24 windows a key (1,200 groups here), not one
-- per histogram bucket it overlaps (124 a key, the estimate before)
CREATE TABLE est AS SELECT timestamp '2024-01-01' + ((i * 7919) % 86400) * interval '1 second' AS t,
  i % 50 AS k FROM generate_series(1, 20000) i;
ANALYZE est;
SET enable_hashagg = off;
SET enable_sort = off;
SELECT j ->> 'Custom Plan Provider' AS node, (j ->> 'Plan Rows')::float8 AS plan_rows
FROM wj_test.explain_json($$SELECT window_start, k, count(*) FROM est, tumble(t, interval '1 hour')
  GROUP BY 1, 2$$) j;
SELECT count(*) AS groups FROM (SELECT window_start, k FROM est, tumble(t, interval '1 hour')
  GROUP BY 1, 2) g;
RESET enable_hashagg;
RESET enable_sort;
DROP TABLE est;

-- rescan: the aggregate under a nested loop, once per outer row
SELECT wj_test.on_off($$SELECT o.x, (SELECT count(*) FROM (SELECT window_start, count(*)
  FROM m, tumble(t, interval '1 hour') WHERE m.k = o.x GROUP BY 1) q) AS windows
  FROM generate_series(0, 5) o(x)$$, 'window_aggregate', 'TumbleAgg') AS rescan;

-- row-level security applies below the node
CREATE ROLE tumble_agg_reader;
GRANT USAGE ON SCHEMA tumble_aggregate TO tumble_agg_reader;
GRANT SELECT ON m TO tumble_agg_reader;
ALTER TABLE m ENABLE ROW LEVEL SECURITY;
CREATE POLICY only_k1 ON m TO tumble_agg_reader USING (k = 1);
SET ROLE tumble_agg_reader;
SELECT count(*) AS windows, sum(c) AS rows_seen FROM (SELECT window_start, count(*) AS c
  FROM m, tumble(t, interval '1 hour') GROUP BY 1) q;
SELECT wj_test.uses($$SELECT window_start, count(*) FROM m, tumble(t, interval '1 hour') GROUP BY 1$$,
  'TumbleAgg') AS uses_node;
RESET ROLE;
SELECT count(*) FILTER (WHERE k = 1) AS k1_rows FROM m WHERE t IS NOT NULL;
ALTER TABLE m DISABLE ROW LEVEL SECURITY;
DROP POLICY only_k1 ON m;
REVOKE ALL ON m FROM tumble_agg_reader;
REVOKE ALL ON SCHEMA tumble_aggregate FROM tumble_agg_reader;
DROP ROLE tumble_agg_reader;

RESET max_parallel_workers_per_gather;
RESET extra_float_digits;
RESET search_path;
DROP SCHEMA tumble_aggregate CASCADE;
