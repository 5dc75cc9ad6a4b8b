--
-- WindowTopN (docs/window-topn.md): Window Top-N and Window Deduplication
-- in batch.  Flink's examples row for row; then a matrix of shapes
-- (row_number, rank, dense_rank; <=, <, =; ties, NULLs, no PARTITION BY,
-- no ORDER BY, text keys, over an aggregate, over sessions) each compared with the
-- nodes-off rows, serial, in two phases under a Gather, and after the
-- switch to sorting when the sets exceed work_mem × hash_mem_multiplier;
-- the plans; the shapes left to PostgreSQL.
--
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
SET IntervalStyle = 'postgres';
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS wtn CASCADE;
RESET client_min_messages;
CREATE SCHEMA wtn;
SET search_path = wtn, public;

-- Flink's Bid table of the Window Top-N and Window Deduplication pages
CREATE TABLE bid (bidtime timestamp, price numeric(10, 2), item text, supplier_id text);
INSERT INTO bid VALUES
  ('2020-04-15 08:05', 4.00, 'A', 'supplier1'),
  ('2020-04-15 08:06', 4.00, 'C', 'supplier2'),
  ('2020-04-15 08:07', 2.00, 'G', 'supplier1'),
  ('2020-04-15 08:08', 2.00, 'B', 'supplier3'),
  ('2020-04-15 08:09', 5.00, 'D', 'supplier4'),
  ('2020-04-15 08:11', 2.00, 'B', 'supplier3'),
  ('2020-04-15 08:13', 1.00, 'E', 'supplier1'),
  ('2020-04-15 08:15', 3.00, 'H', 'supplier2'),
  ('2020-04-15 08:17', 6.00, 'F', 'supplier5');
ANALYZE bid;

-- Flink's Window Top-N: the top 3 suppliers of each 10-minute window by
-- the sum of their prices (Flink's result: 6 rows)
EXPLAIN (COSTS OFF)
SELECT * FROM (
  SELECT *, row_number() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) AS rownum
    FROM (SELECT window_start, window_end, supplier_id, sum(price) AS price, count(*) AS cnt
            FROM bid, tumble(bidtime, interval '10 minutes')
           GROUP BY window_start, window_end, supplier_id) a) r
WHERE rownum <= 3;
SELECT * FROM (
  SELECT *, row_number() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) AS rownum
    FROM (SELECT window_start, window_end, supplier_id, sum(price) AS price, count(*) AS cnt
            FROM bid, tumble(bidtime, interval '10 minutes')
           GROUP BY window_start, window_end, supplier_id) a) r
WHERE rownum <= 3
ORDER BY window_start, rownum;

-- Flink's Window Top-N on the TVF directly: the 3 highest prices per window
SELECT * FROM (
  SELECT bidtime, price, item, supplier_id, window_start, window_end,
         row_number() OVER (PARTITION BY window_start, window_end ORDER BY price DESC, bidtime) AS rownum
    FROM bid, tumble(bidtime, interval '10 minutes')) r
WHERE rownum <= 3
ORDER BY window_start, rownum;

-- Flink's Window Deduplication: the last row of each window
EXPLAIN (COSTS OFF)
SELECT * FROM (
  SELECT bidtime, price, item, supplier_id, window_start, window_end,
         row_number() OVER (PARTITION BY window_start, window_end ORDER BY bidtime DESC) AS rownum
    FROM bid, tumble(bidtime, interval '10 minutes')) r
WHERE rownum <= 1;
SELECT * FROM (
  SELECT bidtime, price, item, supplier_id, window_start, window_end,
         row_number() OVER (PARTITION BY window_start, window_end ORDER BY bidtime DESC) AS rownum
    FROM bid, tumble(bidtime, interval '10 minutes')) r
WHERE rownum <= 1
ORDER BY window_start;
-- the first bid of each supplier in each window (rn = 1, ascending)
SELECT * FROM (
  SELECT bidtime, price, item, supplier_id, window_start, window_end,
         row_number() OVER (PARTITION BY window_start, window_end, supplier_id ORDER BY bidtime) AS rn
    FROM bid, tumble(bidtime, interval '10 minutes')) r
WHERE rn = 1
ORDER BY window_start, supplier_id;

-- Session Window Top-N: the two highest bids of each supplier's session
-- (gap 5 minutes); the sessions come from SessionWindow below
EXPLAIN (COSTS OFF)
SELECT * FROM (
  SELECT bidtime, price, item, supplier_id, window_start, window_end,
         row_number() OVER (PARTITION BY supplier_id, window_start, window_end ORDER BY price DESC, bidtime) AS rn
    FROM (SELECT *, (session(bidtime, interval '5 minutes')
                       OVER (PARTITION BY supplier_id ORDER BY bidtime)).* FROM bid) s) r
WHERE rn <= 2;
SELECT * FROM (
  SELECT bidtime, price, item, supplier_id, window_start, window_end,
         row_number() OVER (PARTITION BY supplier_id, window_start, window_end ORDER BY price DESC, bidtime) AS rn
    FROM (SELECT *, (session(bidtime, interval '5 minutes')
                       OVER (PARTITION BY supplier_id ORDER BY bidtime)).* FROM bid) s) r
WHERE rn <= 2
ORDER BY window_start, supplier_id, rn;

-- A table with ties, NULLs in the partition and order keys, text keys
CREATE TABLE t (ts timestamp, k int, s text, v int, w numeric, id int);
SELECT setseed(0.25);
INSERT INTO t
SELECT timestamp '2024-01-01' + (random() * 86400)::int * interval '1 second',
       CASE WHEN random() < 0.05 THEN NULL ELSE (random() * 40)::int END,
       CASE WHEN random() < 0.05 THEN NULL ELSE 'k' || (random() * 30)::int END,
       CASE WHEN random() < 0.05 THEN NULL ELSE (random() * 20)::int END,
       round((random() * 50)::numeric, 1),
       i
FROM generate_series(1, 20000) i;
ANALYZE t;

-- Every shape against the nodes-off rows: the rows of a query whose
-- window keeps only what the run condition keeps, with each setting in
-- settings (a list of "name=value"); the difference both ways must be
-- empty.  The ordering ties are broken by id in the shapes that use
-- row_number, which picks one row of equal peers in either plan.
CREATE FUNCTION topn_check(q text, settings text[]) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  s text;
  node text;
  plan text;
  rows bigint;
  missing bigint;
  extra bigint;
BEGIN
  SET LOCAL windowjoin.enable_window_topn = off;
  EXECUTE 'CREATE TEMP TABLE topn_off ON COMMIT DROP AS ' || q;
  SET LOCAL windowjoin.enable_window_topn = on;
  FOREACH s IN ARRAY settings LOOP
    PERFORM set_config(split_part(s, '=', 1), split_part(s, '=', 2), true);
  END LOOP;
  EXECUTE 'CREATE TEMP TABLE topn_on ON COMMIT DROP AS ' || q;
  node := '';
  FOR plan IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF plan ~ 'WindowTopN' THEN node := node || CASE WHEN plan ~ 'Parallel' THEN 'partial+' ELSE 'topn' END; END IF;
  END LOOP;
  plan := CASE WHEN node = '' THEN 'postgres' ELSE node END;
  SELECT count(*) INTO rows FROM topn_on;
  SELECT count(*) INTO missing FROM (SELECT * FROM topn_off EXCEPT ALL SELECT * FROM topn_on) x;
  SELECT count(*) INTO extra FROM (SELECT * FROM topn_on EXCEPT ALL SELECT * FROM topn_off) x;
  DROP TABLE topn_off;
  DROP TABLE topn_on;
  RETURN format('%s rows, %s missing, %s extra | plan: %s', rows, missing, extra, plan);
END $$;

-- EXPLAIN's lines, to mask the figures of ANALYZE
CREATE FUNCTION explain_lines(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  FOR line IN EXECUTE q LOOP
    RETURN NEXT line;
  END LOOP;
END $$;

CREATE TABLE shapes (name text, q text);
INSERT INTO shapes VALUES
 ('row_number <= 3, window and key',
  $q$SELECT * FROM (SELECT k, v, id, window_start, row_number() OVER (PARTITION BY window_start, window_end, k ORDER BY v DESC, id) AS rn
      FROM t, tumble(ts, interval '1 hour')) x WHERE rn <= 3$q$),
 ('row_number < 4, NULLS FIRST',
  $q$SELECT * FROM (SELECT k, v, id, row_number() OVER (PARTITION BY k ORDER BY v NULLS FIRST, id DESC) AS rn
      FROM t) x WHERE rn < 4$q$),
 ('row_number = 1, dedup first',
  $q$SELECT * FROM (SELECT k, ts, id, window_start, row_number() OVER (PARTITION BY window_start, window_end, k ORDER BY ts, id) AS rn
      FROM t, tumble(ts, interval '30 minutes')) x WHERE rn = 1$q$),
 ('row_number = 1, dedup last',
  $q$SELECT * FROM (SELECT s, ts, id, date_bin('1 hour', ts, timestamp '2024-01-01') AS w,
      row_number() OVER (PARTITION BY date_bin('1 hour', ts, timestamp '2024-01-01'), s ORDER BY ts DESC, id DESC) AS rn
      FROM t) x WHERE rn = 1$q$),
 ('3 >= row_number, text key',
  $q$SELECT * FROM (SELECT s, w, id, row_number() OVER (PARTITION BY s ORDER BY w DESC, id) AS rn
      FROM t) x WHERE 3 >= rn$q$),
 ('rank <= 2 (ties kept)',
  $q$SELECT * FROM (SELECT k, v, id, rank() OVER (PARTITION BY k ORDER BY v) AS r
      FROM t) x WHERE r <= 2$q$),
 ('rank <= 5 over a window, numeric',
  $q$SELECT * FROM (SELECT k, w, id, rank() OVER (PARTITION BY window_start, k ORDER BY w DESC) AS r
      FROM t, tumble(ts, interval '2 hours')) x WHERE r <= 5$q$),
 ('dense_rank <= 3 (ties kept)',
  $q$SELECT * FROM (SELECT k, v, id, dense_rank() OVER (PARTITION BY k ORDER BY v DESC NULLS LAST) AS r
      FROM t) x WHERE r <= 3$q$),
 ('dense_rank < 3, two order keys',
  $q$SELECT * FROM (SELECT s, v, w, id, dense_rank() OVER (PARTITION BY s ORDER BY v, w) AS r
      FROM t) x WHERE r < 3$q$),
 ('no PARTITION BY',
  $q$SELECT * FROM (SELECT k, v, id, row_number() OVER (ORDER BY v DESC NULLS LAST, id) AS rn
      FROM t) x WHERE rn <= 10$q$),
 ('row_number without ORDER BY, one row per partition',
  $q$SELECT * FROM (SELECT id, k, v, row_number() OVER (PARTITION BY id) AS rn FROM t) x WHERE rn < 3$q$),
 ('no ORDER BY, rank (every row first: PostgreSQL)',
  $q$SELECT * FROM (SELECT k, rank() OVER (PARTITION BY k) AS r
      FROM t) x WHERE r <= 1$q$),
 ('over an aggregate',
  $q$SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY window_start ORDER BY total DESC, k) AS rn
      FROM (SELECT window_start, k, sum(v) AS total FROM t, tumble(ts, interval '1 hour') GROUP BY 1, 2) a) x
      WHERE rn <= 3$q$),
 ('over session windows, rows of each session',
  $q$SELECT * FROM (SELECT k, v, id, window_start, row_number() OVER (PARTITION BY k, window_start, window_end ORDER BY v DESC, id) AS rn
      FROM (SELECT *, (session(ts, interval '20 minutes') OVER (PARTITION BY k ORDER BY ts)).* FROM t) s) x WHERE rn <= 2$q$),
 ('over a session aggregate',
  $q$SELECT * FROM (SELECT *, rank() OVER (PARTITION BY window_start, window_end ORDER BY n DESC) AS r
      FROM (SELECT window_start, window_end, k, count(*) AS n
              FROM (SELECT *, (session(ts, interval '20 minutes') OVER (PARTITION BY k ORDER BY ts)).* FROM t) s
             GROUP BY 1, 2, 3) a) x WHERE r = 1$q$),
 ('rn used twice, expression of it',
  $q$SELECT k, v, rn, rn * 10 AS rn10 FROM (SELECT k, v, id, row_number() OVER (PARTITION BY k ORDER BY v, id) AS rn
      FROM t) x WHERE rn <= 2$q$);

-- serial, in memory
SELECT name, topn_check(q, '{}') FROM shapes ORDER BY name;
-- serial, the sets over the memory limit: the node switches to sorting
SELECT name, topn_check(q, '{work_mem=64kB,hash_mem_multiplier=1}') FROM shapes ORDER BY name;
-- in two phases under a Gather (every participant its candidates)
SELECT name,
  topn_check(q, '{parallel_setup_cost=0,parallel_tuple_cost=0,min_parallel_table_scan_size=0,max_parallel_workers_per_gather=2}')
FROM shapes ORDER BY name;

-- The plans: EXPLAIN shows the keys, the bound, and under ANALYZE the
-- strategy, partitions and peak state
EXPLAIN (COSTS OFF)
SELECT * FROM (SELECT k, v, id, rank() OVER (PARTITION BY k ORDER BY v DESC NULLS LAST) AS r
  FROM t) x WHERE r <= 2;
SELECT regexp_replace(p, '[0-9][0-9.]*', 'N', 'g') AS plan
FROM explain_lines($$EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF)
  SELECT * FROM (SELECT k, v, id, row_number() OVER (PARTITION BY k ORDER BY v, id) AS rn FROM t) x WHERE rn <= 3$$) e(p);
SET work_mem = '64kB';
SET hash_mem_multiplier = 1;
SELECT regexp_replace(p, '[0-9][0-9.]*', 'N', 'g') AS plan
FROM explain_lines($$EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF)
  SELECT * FROM (SELECT k, v, id, row_number() OVER (PARTITION BY k, id ORDER BY v) AS rn FROM t) x WHERE rn <= 3$$) e(p)
WHERE p ~ 'Strategy|WindowTopN';
RESET work_mem;
RESET hash_mem_multiplier;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF)
SELECT * FROM (SELECT k, v, id, row_number() OVER (PARTITION BY k ORDER BY v, id) AS rn FROM t) x WHERE rn <= 3;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- A rescan (the node under a nested loop's inner side) returns the same rows
EXPLAIN (COSTS OFF)
SELECT g, count(*) FROM generate_series(1, 3) g,
  LATERAL (SELECT * FROM (SELECT k, v, row_number() OVER (PARTITION BY k ORDER BY v DESC, id) AS rn
                           FROM t WHERE k % 3 = g % 3) x WHERE rn <= 2) y
GROUP BY g ORDER BY g;
SELECT g, count(*) FROM generate_series(1, 3) g,
  LATERAL (SELECT * FROM (SELECT k, v, row_number() OVER (PARTITION BY k ORDER BY v DESC, id) AS rn
                           FROM t WHERE k % 3 = g % 3) x WHERE rn <= 2) y
GROUP BY g ORDER BY g;

-- Left to PostgreSQL's WindowAgg: no run condition, a bound that is not
-- an integer constant, a function other than the three, two windows,
-- a bound beyond 10000, the node switched off
CREATE FUNCTION top_node(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF line ~ 'WindowTopN|WindowAgg' THEN
      RETURN substring(line from 'WindowTopN|WindowAgg');
    END IF;
  END LOOP;
  RETURN 'none';
END $$;
SELECT top_node($$SELECT * FROM (SELECT k, row_number() OVER (PARTITION BY k ORDER BY v) AS rn FROM t) x$$);
SELECT top_node($$SELECT * FROM (SELECT k, row_number() OVER (PARTITION BY k ORDER BY v) AS rn FROM t) x WHERE rn <= 2.5$$);
SELECT top_node($$SELECT * FROM (SELECT k, count(*) OVER (PARTITION BY k ORDER BY v) AS c FROM t) x WHERE c <= 3$$);
SELECT top_node($$SELECT * FROM (SELECT k, row_number() OVER (PARTITION BY k ORDER BY v) AS rn,
                                        row_number() OVER (PARTITION BY s ORDER BY v) AS rn2 FROM t) x WHERE rn <= 3$$);
SELECT top_node($$SELECT * FROM (SELECT k, row_number() OVER (PARTITION BY k ORDER BY v) AS rn FROM t) x WHERE rn <= 100000$$);
SELECT top_node($$SELECT * FROM (SELECT k, row_number() OVER (PARTITION BY k ORDER BY v) AS rn FROM t) x WHERE rn <= 3$$);
SET windowjoin.enable_window_topn = off;
SELECT top_node($$SELECT * FROM (SELECT k, row_number() OVER (PARTITION BY k ORDER BY v) AS rn FROM t) x WHERE rn <= 3$$);
RESET windowjoin.enable_window_topn;

DROP SCHEMA wtn CASCADE;
