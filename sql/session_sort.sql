--
-- SessionSort / SessionWindow: below a session() window, the rows are
-- hashed into their partitions and each partition is sorted by time,
-- instead of one Sort on all keys; when session() is the window's only
-- function, SessionWindow also computes it (no WindowAgg).  The window's rows
-- must be the same, in the same order, with windowjoin.enable_window_aggregate
-- on and off; past work_mem the node sorts in key-range batches on disk
-- (more in session_spill); other windows keep Sort.
--
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
SET IntervalStyle = 'postgres';
CREATE SCHEMA session_sort;
SET search_path = session_sort, public;
SET max_parallel_workers_per_gather = 0;
SELECT setseed(0.7);
-- no autovacuum on ev: its statistics would invalidate the generic plans
-- prepared below, which are planned with the default work_mem and run with
-- less (past work_mem: Sort, not SessionSort)
CREATE TABLE ev WITH (autovacuum_enabled = off) AS
SELECT timestamp '2024-01-01' + (random() * 86400 * 1e6)::bigint * interval '1 microsecond' AS t,
       (random() * 100)::numeric(10,2) AS v,
       (random() * 20)::int AS k,
       md5(i::text) AS note
FROM generate_series(1, 20000) i;
-- NULL keys and NULL times, duplicate times
INSERT INTO ev VALUES (NULL, 1, 1, 'a'), (NULL, 2, NULL, 'b'), ('2024-01-01', 3, NULL, 'c'),
  ('2024-01-01', 4, NULL, 'd'), ('2024-01-01 00:00:01', 5, 2, 'e'), ('2024-01-01 00:00:01', 6, 2, 'f');
ANALYZE ev;

\set ECHO none
\i sql/include/helpers.sql
\set ECHO all

EXPLAIN (COSTS OFF)
SELECT k, t, v, session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM ev;
-- with another window function, a WindowAgg over SessionSort
EXPLAIN (COSTS OFF)
SELECT k, t, v, session(t, interval '5 minutes') OVER w, count(*) OVER w
FROM ev WINDOW w AS (PARTITION BY k ORDER BY t);

-- the session aggregate runs on it too
EXPLAIN (COSTS OFF)
SELECT k, (w).window_start, (w).window_end, sum(v)
FROM (SELECT k, v, session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM ev) s
GROUP BY k, (w).window_start, (w).window_end;

-- with ANALYZE: partitions (21 values of k and NULL), no spill
SELECT wj_test.explain_analyze($$
SELECT count(w) FROM (SELECT session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM ev) s$$, 'sizes');
SELECT count(*) FILTER (WHERE w IS NULL) AS null_windows, count(DISTINCT w) AS sessions, count(*)
FROM (SELECT session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM ev) s;

SELECT wj_test.on_off(q, 'window_aggregate', 'Custom Scan \(Session', ordered => 'p, ts', cols => 'p, ts, w') FROM (VALUES
  ($$SELECT k AS p, t AS ts, v, note, session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM ev$$),
  ($$SELECT k AS p, t AS ts, session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t) AS w, count(*) OVER (PARTITION BY k ORDER BY t) FROM ev$$),
  -- the same session() twice, and its fields
  ($$SELECT k AS p, t AS ts, (session(t, interval '5 minutes') OVER w).window_end AS w, (session(t, interval '5 minutes') OVER w).window_start FROM ev WINDOW w AS (PARTITION BY k ORDER BY t)$$),
  -- two different gaps: SessionSort under the WindowAgg
  ($$SELECT k AS p, t AS ts, session(t, interval '5 minutes') OVER w AS w, session(t, interval '1 minute') OVER w FROM ev WINDOW w AS (PARTITION BY k ORDER BY t)$$),
  -- only the time's columns, no other column to store
  ($$SELECT k AS p, t AS ts, session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM ev$$),
  -- timestamptz
  ($$SELECT k AS p, (t AT TIME ZONE 'UTC') AS ts, session(t AT TIME ZONE 'UTC', interval '5 minutes') OVER (PARTITION BY k ORDER BY t AT TIME ZONE 'UTC') AS w FROM ev$$),
  -- a filter making the partition key constant
  ($$SELECT k AS p, t AS ts, session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM ev WHERE k = 3$$),
  -- Sort stays: NULLS FIRST, descending time, no session()
  ($$SELECT k AS p, t AS ts, session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t NULLS FIRST) AS w FROM ev WHERE t IS NOT NULL$$),
  ($$SELECT k AS p, t AS ts, lag(t) OVER (PARTITION BY k ORDER BY t)::text AS w FROM ev$$)
) x(q);

-- Sort is cheaper by estimate when there are many partitions (here the
-- estimate for the expression) or none; with enable_sort off the node runs
SET enable_sort = off;
SELECT wj_test.on_off(q, 'window_aggregate', 'Custom Scan \(Session', ordered => 'p, ts', cols => 'p, ts, w') FROM (VALUES
  -- two keys, one of them text, an expression
  ($$SELECT k || '/' || substr(note, 1, 1) AS p, t AS ts, v, session(t, interval '1 minute') OVER (PARTITION BY substr(note, 1, 1), k ORDER BY t) AS w FROM ev$$),
  ($$SELECT k || '/' || substr(note, 1, 1) AS p, t AS ts, v, session(t, interval '1 minute') OVER w AS w, count(*) OVER w FROM ev WINDOW w AS (PARTITION BY substr(note, 1, 1), k ORDER BY t)$$),
  -- no partition keys: one partition
  ($$SELECT 0 AS p, t AS ts, v, session(t, interval '30 seconds') OVER (ORDER BY t) AS w FROM ev$$),
  ($$SELECT k AS p, t AS ts, session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM ev WHERE k = 3$$)
) x(q);
RESET enable_sort;

-- the session aggregate gives the same sessions with the node on and off
CREATE TABLE agg_on AS
SELECT k, (w).window_start, (w).window_end, sum(v) AS total, count(*) AS n
FROM (SELECT k, v, session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM ev) s
GROUP BY k, (w).window_start, (w).window_end;
SET windowjoin.enable_window_aggregate = off;
CREATE TABLE agg_off AS
SELECT k, (w).window_start, (w).window_end, sum(v) AS total, count(*) AS n
FROM (SELECT k, v, session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM ev) s
GROUP BY k, (w).window_start, (w).window_end;
RESET windowjoin.enable_window_aggregate;
SELECT (SELECT count(*) FROM agg_on) AS sessions,
       (SELECT count(*) FROM (TABLE agg_on EXCEPT ALL TABLE agg_off) x) AS only_on,
       (SELECT count(*) FROM (TABLE agg_off EXCEPT ALL TABLE agg_on) x) AS only_off;
SELECT * FROM agg_on WHERE k IS NULL OR k = 2 ORDER BY k, window_start LIMIT 5;

-- past work_mem: the rows are split into key-range batches on disk (here
-- each partition is larger than work_mem, so its batch goes to a
-- tuplesort), same answer.  Planned with the default work_mem (the rows
-- fit), run with less -- and with PostgreSQL's Sort off, so that a
-- re-plan (another session's CREATE SCHEMA invalidates every cached plan)
-- keeps the node.
SET plan_cache_mode = force_generic_plan;
PREPARE win AS SELECT k AS p, t AS ts, v, note, session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM ev;
PREPARE winagg AS SELECT k AS p, t AS ts, v, note, session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t) AS w, count(*) OVER (PARTITION BY k ORDER BY t) FROM ev;
CREATE TEMP TABLE win_mem AS EXECUTE win;
CREATE TEMP TABLE winagg_mem AS EXECUTE winagg;
SET work_mem = '64kB';
SET enable_sort = off;
SELECT wj_test.explain_analyze('EXECUTE win', 'spill');
SELECT wj_test.explain_analyze('EXECUTE winagg', 'spill');
CREATE TEMP TABLE win_spill AS EXECUTE win;
CREATE TEMP TABLE winagg_spill AS EXECUTE winagg;
RESET work_mem;
RESET enable_sort;
RESET plan_cache_mode;
SET windowjoin.enable_window_aggregate = off;
CREATE TEMP TABLE win_off AS SELECT row_number() OVER () AS o, x.* FROM (SELECT k AS p, t AS ts, v, note, session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM ev) x;
RESET windowjoin.enable_window_aggregate;
SELECT (SELECT count(*) FROM win_spill) AS n,
       (SELECT count(*) FROM (SELECT p, ts, v, note, w FROM win_spill EXCEPT ALL SELECT p, ts, v, note, w FROM win_off) x) AS spill_only,
       (SELECT count(*) FROM (SELECT p, ts, v, note, w FROM win_off EXCEPT ALL SELECT p, ts, v, note, w FROM win_spill) x) AS off_only,
       (SELECT count(*) FROM (SELECT p, ts, v, note, w FROM winagg_spill EXCEPT ALL SELECT p, ts, v, note, w FROM win_off) x) AS agg_spill_only,
       (SELECT count(*) FROM (SELECT p, ts, v, note, w FROM win_mem EXCEPT ALL SELECT p, ts, v, note, w FROM win_off) x) AS mem_only,
       (SELECT count(*) FROM (SELECT row_number() OVER (ORDER BY ctid) AS o, * FROM win_spill) a JOIN win_off b USING (o)
         WHERE a.p IS DISTINCT FROM b.p OR a.ts IS DISTINCT FROM b.ts) AS out_of_order;

-- rescan: a session window in a correlated subquery
SET enable_hashjoin = off;
SET enable_mergejoin = off;
EXPLAIN (COSTS OFF)
SELECT g, (SELECT count(DISTINCT w) FROM (SELECT session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t) AS w
                                     FROM ev WHERE k <= g) s) FROM generate_series(1, 3) g;
SELECT g, (SELECT count(DISTINCT w) FROM (SELECT session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t) AS w
                                     FROM ev WHERE k <= g) s) FROM generate_series(1, 3) g;
SET windowjoin.enable_window_aggregate = off;
SELECT g, (SELECT count(DISTINCT w) FROM (SELECT session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t) AS w
                                     FROM ev WHERE k <= g) s) FROM generate_series(1, 3) g;
RESET windowjoin.enable_window_aggregate;
RESET enable_hashjoin;
RESET enable_mergejoin;

-- out-of-order detection still works (ORDER BY another column: Sort)
SELECT count(w) FROM (SELECT session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY v) AS w FROM ev) s;
-- session()'s gap errors, also from SessionWindow
SELECT count(w) FROM (SELECT session(t, interval '0 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM ev) s;
SELECT count(w) FROM (SELECT session(t, NULL::interval) OVER (PARTITION BY k ORDER BY t) AS w FROM ev) s;
SELECT count(w) FROM (SELECT session(t, interval '1 month') OVER (PARTITION BY k ORDER BY t) AS w FROM ev) s;
-- no rows: no error, as with session()
SELECT count(w) FROM (SELECT session(t, interval '0 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM ev WHERE false) s;
-- infinite times are an error, as with session()
INSERT INTO ev VALUES ('infinity', 1, 5, 'inf');
SELECT count(w) FROM (SELECT session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM ev) s;
SET windowjoin.enable_window_aggregate = off;
SELECT count(w) FROM (SELECT session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM ev) s;
RESET windowjoin.enable_window_aggregate;

-- Partition keys that are equal but look different (numeric 1.0 and 1.00,
-- interval '1 day' and '24 hours'): one partition, but each row keeps its
-- own spelling, as with Sort + WindowAgg
CREATE TABLE eqk (n numeric, i interval, t timestamp);
INSERT INTO eqk VALUES
  (1.0, '1 day', '2024-01-01 00:00'), (1.00, '24 hours', '2024-01-01 00:01'),
  (1.0, '24 hours', '2024-01-01 00:02'), (1.00, '1 day', '2024-01-01 00:10'),
  (2, '1 mon', '2024-01-01 00:00'), (2.000, '30 days', '2024-01-01 00:03');
ANALYZE eqk;
SET enable_sort = off;
EXPLAIN (COSTS OFF)
SELECT n, i, t, session(t, interval '5 minutes') OVER (PARTITION BY n, i ORDER BY t) AS w FROM eqk;
EXPLAIN (COSTS OFF)
SELECT n, i, t, session(t, interval '5 minutes') OVER w AS w, count(*) OVER w FROM eqk WINDOW w AS (PARTITION BY n, i ORDER BY t);
SELECT n, i, t, session(t, interval '5 minutes') OVER (PARTITION BY n, i ORDER BY t) AS w FROM eqk ORDER BY n, t;
SELECT wj_test.on_off(q, 'window_aggregate', 'Custom Scan \(Session', ordered => 'p, ts', cols => 'p, ts, w') FROM (VALUES
  ($$SELECT n::text || '/' || i::text AS p, t AS ts, session(t, interval '5 minutes') OVER (PARTITION BY n, i ORDER BY t) AS w FROM eqk$$),
  ($$SELECT n::text || '/' || i::text AS p, t AS ts, session(t, interval '5 minutes') OVER w AS w, count(*) OVER w FROM eqk WINDOW w AS (PARTITION BY n, i ORDER BY t)$$)
) x(q);

-- SessionWindow only when the window is PARTITION BY (the sort keys but
-- the last) ORDER BY (the time): otherwise its partitions would not be the
-- window's.  A session crosses midnight here.
CREATE TABLE mid (k int, ts timestamp);
INSERT INTO mid VALUES (1, '2024-01-01 23:58'), (1, '2024-01-02 00:01'), (1, '2024-01-02 00:03'),
  (1, '2024-01-02 00:03'), (2, '2024-01-01 23:59'), (2, '2024-01-02 00:30');
ANALYZE mid;
EXPLAIN (COSTS OFF)
SELECT k, ts, session(ts, interval '5 minutes') OVER (PARTITION BY k ORDER BY ts::date, ts) AS w FROM mid;
SELECT k, ts, session(ts, interval '5 minutes') OVER (PARTITION BY k ORDER BY ts::date, ts) AS w FROM mid ORDER BY k, ts;
EXPLAIN (COSTS OFF)
SELECT k, ts, session(ts, interval '5 minutes') OVER (PARTITION BY ts ORDER BY ts) AS w FROM mid;
SELECT wj_test.on_off(q, 'window_aggregate', 'Custom Scan \(Session', ordered => 'p, ts', cols => 'p, ts, w') FROM (VALUES
  ($$SELECT k AS p, ts, session(ts, interval '5 minutes') OVER (PARTITION BY k ORDER BY ts::date, ts) AS w FROM mid$$),
  ($$SELECT k AS p, ts, session(ts, interval '5 minutes') OVER (PARTITION BY k, ts) AS w FROM mid$$),
  ($$SELECT k AS p, ts, session(ts, interval '5 minutes') OVER (PARTITION BY ts ORDER BY ts) AS w FROM mid$$),
  ($$SELECT k AS p, ts, session(ts, interval '5 minutes') OVER (PARTITION BY k ORDER BY ts) AS w FROM mid$$)
) x(q);
-- out of time order within the window's partition: the same error either
-- way (a WindowAgg over SessionSort, not a SessionWindow, with the node on)
EXPLAIN (COSTS OFF)
SELECT count(w) FROM (SELECT session(ts, interval '5 minutes') OVER (PARTITION BY k ORDER BY ts::date DESC, ts) AS w FROM mid) s;
SELECT count(w) FROM (SELECT session(ts, interval '5 minutes') OVER (PARTITION BY k ORDER BY ts::date DESC, ts) AS w FROM mid) s;
SET windowjoin.enable_window_aggregate = off;
SELECT count(w) FROM (SELECT session(ts, interval '5 minutes') OVER (PARTITION BY k ORDER BY ts::date DESC, ts) AS w FROM mid) s;
RESET windowjoin.enable_window_aggregate;

-- A parallel-restricted target (a subquery over a temp table) keeps the
-- node out of a parallel plan (no Gather on top)
CREATE TEMP TABLE tmpk AS SELECT 1 AS k;
SET :parallel_guc = on;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF)
SELECT k, ts, session(ts, interval '5 minutes') OVER (PARTITION BY k ORDER BY ts) AS w,
       (SELECT count(*) FROM tmpk WHERE tmpk.k = mid.k) AS c FROM mid;
SELECT k, ts, session(ts, interval '5 minutes') OVER (PARTITION BY k ORDER BY ts) AS w,
       (SELECT count(*) FROM tmpk WHERE tmpk.k = mid.k) AS c FROM mid ORDER BY k, ts;
RESET :parallel_guc;
SET max_parallel_workers_per_gather = 0;

-- A composite key is hashable if its own type's fields are (not by the
-- opfamily's type, record): SessionSort for a composite of int, Sort for a
-- composite of bit, which has no hash function
CREATE TYPE intkey AS (k int);
EXPLAIN (COSTS OFF)
SELECT k, ts, session(ts, interval '5 minutes') OVER (PARTITION BY ROW(k)::intkey ORDER BY ts) AS w FROM mid;
SELECT wj_test.on_off($$SELECT k AS p, ts, session(ts, interval '5 minutes') OVER (PARTITION BY ROW(k)::intkey ORDER BY ts) AS w FROM mid$$, 'window_aggregate', 'Custom Scan \(Session', ordered => 'p, ts', cols => 'p, ts, w');
CREATE TYPE bitkey AS (b bit(3));
CREATE TABLE bk (b bit(3), ts timestamp);
INSERT INTO bk VALUES (B'001', '2024-01-01 00:00'), (B'001', '2024-01-01 00:01'), (B'010', '2024-01-01 00:00');
ANALYZE bk;
EXPLAIN (COSTS OFF)
SELECT b, ts, session(ts, interval '5 minutes') OVER (PARTITION BY ROW(b)::bitkey ORDER BY ts) AS w FROM bk;
SELECT b, ts, session(ts, interval '5 minutes') OVER (PARTITION BY ROW(b)::bitkey ORDER BY ts) AS w FROM bk ORDER BY b, ts;
RESET enable_sort;

DROP SCHEMA session_sort CASCADE;
