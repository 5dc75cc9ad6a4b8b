--
-- WindowJoin keeps the rows of its open windows within work_mem x
-- hash_mem_multiplier at run time: a window whose rows do not fit spills to
-- temporary files and is joined batch by batch (and, for one hot key, chunk
-- by chunk).  Tiny work_mem on small tables forces that; every join type
-- and window kind must give the same rows as PostgreSQL's plan.
--
SET TimeZone = 'UTC';
SET datestyle = 'ISO, YMD';
SET IntervalStyle = 'postgres';
SET max_parallel_workers_per_gather = 0;

-- 1800 rows per side; 1200 of them in 2 minutes (one hot window), the rest
-- spread over hours; some NULL keys and times.  Never analysed.
CREATE TABLE sp_l (k int, ts timestamp, v int) WITH (autovacuum_enabled = false);
CREATE TABLE sp_r (k int, ts timestamp, v int) WITH (autovacuum_enabled = false);
INSERT INTO sp_l
SELECT CASE WHEN i % 97 = 0 THEN NULL ELSE i % 200 END,
       CASE WHEN i % 211 = 0 THEN NULL
            WHEN i <= 1200 THEN timestamp '2024-01-01 00:00:10' + i * interval '100 ms'
            ELSE timestamp '2024-01-01' + i * interval '17 s' END,
       i
FROM generate_series(1, 1800) i;
INSERT INTO sp_r
SELECT CASE WHEN i % 89 = 0 THEN NULL ELSE (i * 7) % 200 END,
       CASE WHEN i % 199 = 0 THEN NULL
            WHEN i <= 1200 THEN timestamp '2024-01-01 00:00:20' + i * interval '90 ms'
            ELSE timestamp '2024-01-01 00:00:01.5' + i * interval '16 s' END,
       i
FROM generate_series(1, 1800) i;
-- the same, but the hot window's rows all have one key
CREATE TABLE sp_hl (k int, ts timestamp, v int) WITH (autovacuum_enabled = false);
CREATE TABLE sp_hr (k int, ts timestamp, v int) WITH (autovacuum_enabled = false);
INSERT INTO sp_hl SELECT CASE WHEN v <= 1200 THEN 1 ELSE k END, ts, v FROM sp_l;
INSERT INTO sp_hr SELECT CASE WHEN v <= 1200 THEN 1 ELSE k END, ts, v FROM sp_r;

-- wjs_query(kind, join type, left, right, extra join condition)
CREATE FUNCTION wjs_query(kind text, jt text, lt text, rt text, extra text)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  fn text := CASE kind
    WHEN 'tumble' THEN 'tumble(ts, interval ''5 minutes'')'
    WHEN 'hop' THEN 'hop(ts, interval ''1 minute'', interval ''5 minutes'')'
    WHEN 'cumulate' THEN 'cumulate(ts, interval ''1 minute'', interval ''5 minutes'')' END;
  cond text := 'L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end' || extra;
BEGIN
  IF jt IN ('SEMI', 'ANTI') THEN
    RETURN format('SELECT L.k, L.window_start, L.window_end, L.v FROM (SELECT * FROM %s, %s) L '
                  'WHERE %s EXISTS (SELECT 1 FROM (SELECT * FROM %s, %s) R WHERE %s)',
                  lt, fn, CASE jt WHEN 'ANTI' THEN 'NOT' ELSE '' END, rt, fn, cond);
  END IF;
  RETURN format('SELECT L.k AS lk, R.k AS rk, L.window_start AS lws, R.window_start AS rws, '
                'L.window_end AS lwe, R.window_end AS rwe, L.v AS lv, R.v AS rv '
                'FROM (SELECT * FROM %s, %s) L %s JOIN (SELECT * FROM %s, %s) R ON %s',
                lt, fn, jt, rt, fn, cond);
END $$;

\set ECHO none
\i sql/include/helpers.sql
\set ECHO all
SET :parallel_guc = off;	-- EXPLAIN ANALYZE counters live in the backend

-- wjs_check: whether the node spilled (EXPLAIN ANALYZE with PostgreSQL's
-- joins disabled): into more than one batch, with extra chunks of inner
-- rows; then the query with the node against PostgreSQL's plan
CREATE FUNCTION wjs_check(kind text, jt text, lt text, rt text, extra text DEFAULT '')
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  q text := wjs_query(kind, jt, lt, rt, extra);
  spilled boolean := false;
  batched boolean := false;
  chunked boolean := false;
  line text;
  joins text[] := ARRAY[current_setting('enable_hashjoin'), current_setting('enable_mergejoin'),
                        current_setting('enable_nestloop')];
BEGIN
  PERFORM set_config('enable_hashjoin', 'off', true);
  PERFORM set_config('enable_mergejoin', 'off', true);
  PERFORM set_config('enable_nestloop', 'off', true);
  FOR line IN SELECT * FROM wj_test.explain_analyze(q, 'none') LOOP
    IF line LIKE '%Spilled Windows: %' THEN
      spilled := true;
      batched := substring(line FROM 'Batches: ([0-9]+)')::int > 1;
      chunked := substring(line FROM 'Extra Chunks: ([0-9]+)')::int > 0;
    END IF;
  END LOOP;
  PERFORM set_config('enable_hashjoin', joins[1], true);
  PERFORM set_config('enable_mergejoin', joins[2], true);
  PERFORM set_config('enable_nestloop', joins[3], true);
  RETURN format('%s %s: spilled %s (batches %s, chunks %s), ', kind, jt, spilled, batched, chunked)
    || wj_test.on_off(q, 'window_join', 'Custom Scan \(WindowJoin\)', force => true);
END $$;

-- 64kB: the hot window (1200 rows a side) does not fit; with
-- hash_mem_multiplier 1 there is no room for batch files: one batch, joined
-- in chunks of inner rows
SET work_mem = '64kB';
SET hash_mem_multiplier = 1.0;
SELECT wjs_check(kind, jt, 'sp_l', 'sp_r')
FROM unnest(ARRAY['tumble', 'hop', 'cumulate']) kind,
     unnest(ARRAY['INNER', 'LEFT', 'RIGHT', 'FULL', 'SEMI', 'ANTI']) jt;

-- with hash_mem_multiplier 3 the window is partitioned into two batches by
-- key, each of which fits
SET hash_mem_multiplier = 3.0;
SELECT wjs_check(kind, jt, 'sp_l', 'sp_r')
FROM unnest(ARRAY['tumble', 'hop', 'cumulate']) kind,
     unnest(ARRAY['INNER', 'LEFT', 'RIGHT', 'FULL', 'SEMI', 'ANTI']) jt;

-- one hot key: its batch does not fit and is joined chunk by chunk (a join
-- filter keeps the output small and leaves rows unmatched on both sides)
SET hash_mem_multiplier = 1.0;
SELECT wjs_check(kind, jt, 'sp_hl', 'sp_hr', ' AND L.v > R.v + 1100')
FROM unnest(ARRAY['tumble', 'hop', 'cumulate']) kind,
     unnest(ARRAY['INNER', 'LEFT', 'RIGHT', 'FULL', 'SEMI', 'ANTI']) jt;

-- EXPLAIN ANALYZE says that it spilled, beside the peak state
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_nestloop = off;
SELECT * FROM wj_test.explain_analyze(wjs_query('tumble', 'FULL', 'sp_l', 'sp_r', ''), 'spill');
SELECT * FROM wj_test.explain_analyze(wjs_query('hop', 'INNER', 'sp_l', 'sp_r', ''), 'spill');
-- with enough memory nothing spills and no spill line is shown
SET work_mem = '4MB';
SELECT * FROM wj_test.explain_analyze(wjs_query('tumble', 'FULL', 'sp_l', 'sp_r', ''), 'spill');
-- non-text formats always show the spill counters
SET work_mem = '64kB';
SELECT (plan ->> 'Spilled Windows')::int > 0 AS spilled,
       (plan ->> 'Disk Usage')::int > 0 AS used_disk
FROM wj_test.explain_json(wjs_query('cumulate', 'RIGHT', 'sp_l', 'sp_r', ''),
                          'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF') plan;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_nestloop;

-- a rescan (the inner side of a nested loop) starts over with empty files
-- (g in a filter of one side, not in a condition on g alone: since
-- PostgreSQL 16 that is a pseudoconstant qual of the join itself, and the
-- node leaves such joins to PostgreSQL)
SET work_mem = '64kB';
SET enable_hashjoin = off;
SET enable_mergejoin = off;
CREATE TEMP VIEW wjs_rescan AS
SELECT g, count(*) FROM generate_series(1, 2) g,
  LATERAL (SELECT * FROM (SELECT * FROM sp_l, tumble(ts, interval '5 minutes')) L
           LEFT JOIN (SELECT * FROM sp_r, tumble(ts, interval '5 minutes')) R
           ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end
           WHERE L.v > -g OFFSET 0) x
GROUP BY g;
SELECT bool_or(l ~ 'Custom Scan \(WindowJoin\) \(actual rows=\d+ loops=\d+\)') AS node_used,
       bool_or(l LIKE '%Spilled Windows: %') AS spilled
FROM wj_test.explain_analyze('SELECT * FROM wjs_rescan', 'spill') l;
SELECT * FROM wjs_rescan ORDER BY g;
SET windowjoin.enable_window_join = off;
SELECT * FROM wjs_rescan ORDER BY g;
RESET windowjoin.enable_window_join;
RESET enable_hashjoin;
RESET enable_mergejoin;
DROP VIEW wjs_rescan;

RESET work_mem;
RESET hash_mem_multiplier;
DROP FUNCTION wjs_check(text, text, text, text, text);
DROP FUNCTION wjs_query(text, text, text, text, text);
DROP TABLE sp_l, sp_r, sp_hl, sp_hr;
