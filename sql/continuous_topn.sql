--
-- Window Top-N and Window Deduplication as continuous views
-- (docs/continuous.md, "Window Top-N and deduplication"): Flink's examples
-- row for row, every accepted shape, then an oracle over a random stream
-- (out-of-order and late rows, updates, deletes): after every refresh each
-- revising view equals its batch query over the closed windows, and a
-- 'drop' view kept what it had emitted.  Then the shapes refused, with
-- their messages.
--
\set SHOW_CONTEXT never
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
SET IntervalStyle = 'postgres';

\set ECHO none
\i sql/include/helpers.sql
\set ECHO all
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS tn CASCADE;
RESET client_min_messages;
CREATE SCHEMA tn;
SET search_path = tn, public;

-- Flink's Bid table of the Window Top-N and Window Deduplication pages
CREATE TABLE bid (bidtime timestamp NOT NULL, price numeric(10, 2), item text, supplier_id text);
CREATE INDEX ON bid (bidtime);
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

-- Window Top-N over a window aggregate (Flink's form): the top 3
-- suppliers of each 10-minute window by the sum of their prices
SELECT windowjoin.create_view('top_suppliers', $$
  SELECT * FROM (
    SELECT *, row_number() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) AS rownum
      FROM (SELECT window_start, window_end, supplier_id, sum(price) AS price, count(*) AS cnt
              FROM bid, tumble(bidtime, interval '10 minutes')
             GROUP BY window_start, window_end, supplier_id) a) r
  WHERE rownum <= 3$$);
-- Window Deduplication: the last row of each window
SELECT windowjoin.create_view('last_bid', $$
  SELECT * FROM (
    SELECT bidtime, price, item, supplier_id, window_start, window_end,
           row_number() OVER (PARTITION BY window_start, window_end ORDER BY bidtime DESC) AS rownum
      FROM bid, tumble(bidtime, interval '10 minutes')) r
  WHERE rownum <= 1$$);
-- the first bid of each supplier in each window (rn = 1, ascending)
SELECT windowjoin.create_view('first_bid', $$
  SELECT * FROM (
    SELECT bidtime, price, item, supplier_id, window_start, window_end,
           row_number() OVER (PARTITION BY window_start, window_end, supplier_id ORDER BY bidtime) AS rn
      FROM bid, tumble(bidtime, interval '10 minutes')) r
  WHERE rn = 1$$);
-- ranking and aggregation in one level, rank() over hopping windows
SELECT windowjoin.create_view('top_items_hop', $$
  SELECT * FROM (
    SELECT window_start, window_end, item, max(price) AS price,
           rank() OVER (PARTITION BY window_start, window_end ORDER BY max(price) DESC) AS rk
      FROM bid, hop(bidtime, interval '5 minutes', interval '10 minutes')
     GROUP BY window_start, window_end, item) r
  WHERE rk < 3$$);
-- the watermark is the latest bid (08:17): [08:00, 08:10) closed at creation
SELECT count(*) AS rows_at_creation FROM top_suppliers;
-- a bid at 08:21 closes [08:10, 08:20)
INSERT INTO bid VALUES ('2020-04-15 08:21', 1.00, 'Z', 'supplier9');
SELECT windowjoin.refresh(v) FROM unnest('{top_suppliers,last_bid,first_bid,top_items_hop}'::regclass[]) v;
SELECT * FROM top_suppliers ORDER BY window_start, rownum;
SELECT * FROM last_bid ORDER BY window_start;
SELECT * FROM first_bid ORDER BY window_start, supplier_id;
SELECT * FROM top_items_hop ORDER BY window_start, rk, item;
-- a late bid revises its window's top rows (late => 'revise')
INSERT INTO bid VALUES ('2020-04-15 08:12', 9.00, 'Q', 'supplier4');
SELECT windowjoin.refresh(v) FROM unnest('{top_suppliers,last_bid,first_bid,top_items_hop}'::regclass[]) v;
SELECT * FROM top_suppliers WHERE window_start = '2020-04-15 08:10' ORDER BY rownum;
SELECT name, kind, rows, late_rows, revisions FROM windowjoin.views v
  JOIN pg_class c ON c.oid = v.name AND c.relnamespace = 'tn'::regnamespace ORDER BY 1;
SELECT * FROM first_bid WHERE supplier_id = 'supplier4' ORDER BY window_start;
SELECT wj_test.cv_closed(v) FROM unnest('{top_suppliers,last_bid,first_bid,top_items_hop}'::regclass[]) v;

-- Over session windows (Flink's Session Window Top-N): the two highest
-- bids of each supplier's session (gap 5 minutes), and the busiest
-- supplier session among those with the same bounds, over the session
-- aggregate in a subquery.  Sessions keep no fragments here: a refresh
-- recomputes from the earliest session a change can touch.
SELECT windowjoin.create_view('top_session_bids', $$
  SELECT * FROM (
    SELECT bidtime, price, item, supplier_id, window_start, window_end,
           row_number() OVER (PARTITION BY supplier_id, window_start, window_end
                              ORDER BY price DESC, bidtime) AS rn
      FROM (SELECT *, (session(bidtime, interval '5 minutes')
                         OVER (PARTITION BY supplier_id ORDER BY bidtime)).* FROM bid) s) r
  WHERE rn <= 2$$);
SELECT windowjoin.create_view('busiest_session', $$
  SELECT * FROM (
    SELECT *, rank() OVER (PARTITION BY window_start, window_end ORDER BY n DESC) AS rk
      FROM (SELECT window_start, window_end, supplier_id, count(*) AS n
              FROM (SELECT *, (session(bidtime, interval '5 minutes')
                                 OVER (PARTITION BY supplier_id ORDER BY bidtime)).* FROM bid) s
             GROUP BY 1, 2, 3) a) r
  WHERE rk = 1$$);
SELECT * FROM top_session_bids ORDER BY window_start, supplier_id, rn;
SELECT * FROM busiest_session ORDER BY window_start, supplier_id;
-- a late bid joins supplier3's session and outbids it; a bid at 08:40
-- closes the sessions up to 08:35
INSERT INTO bid VALUES ('2020-04-15 08:14', 7.00, 'R', 'supplier3'),
                       ('2020-04-15 08:40', 1.00, 'Y', 'supplier9');
SELECT windowjoin.refresh('top_session_bids'), windowjoin.refresh('busiest_session');
SELECT * FROM top_session_bids ORDER BY window_start, supplier_id, rn;
SELECT * FROM busiest_session ORDER BY window_start, supplier_id;
SELECT wj_test.cv_closed(v) FROM unnest('{top_session_bids,busiest_session}'::regclass[]) v;
-- sessions are revised, never dropped: late => 'drop' is refused
SELECT windowjoin.create_view('bad', $$
  SELECT * FROM (
    SELECT bidtime, price, supplier_id, window_start, window_end,
           row_number() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) AS rn
      FROM (SELECT *, (session(bidtime, interval '5 minutes')
                         OVER (PARTITION BY supplier_id ORDER BY bidtime)).* FROM bid) s) r
  WHERE rn = 1$$, late => 'drop');

--
-- The oracle: 20 rounds of a random stream
--
SELECT setseed(0.53);
CREATE TABLE ev (id int NOT NULL, t timestamptz NOT NULL, k int NOT NULL, x int NOT NULL);
CREATE INDEX ON ev (t);
CREATE SEQUENCE ev_id;
-- the top 3 rows of each minute (ties broken by id)
SELECT windowjoin.create_view('o_top_rows', $$SELECT * FROM (
    SELECT id, t, k, x, window_start, window_end,
           row_number() OVER (PARTITION BY window_start, window_end ORDER BY x DESC, id) AS rn
      FROM ev, tumble(t, interval '1 minute')) s WHERE rn <= 3$$) IS NOT NULL AS created;
-- the top 2 keys of each 2-minute window sliding by 30 s, by a sum
-- (rank: ties kept; the bound written first), over the aggregate in a
-- subquery, with a delay
SELECT windowjoin.create_view('o_top_keys', $$SELECT * FROM (
    SELECT *, rank() OVER (PARTITION BY window_start, window_end ORDER BY s DESC) AS rk
      FROM (SELECT window_start, window_end, k, sum(x) AS s
              FROM ev, hop(t, interval '30 seconds', interval '2 minutes') GROUP BY 1, 2, 3) a) r
  WHERE 2 >= rk$$, delay => interval '10 seconds') IS NOT NULL AS created;
-- the first row per key of each cumulating window
SELECT windowjoin.create_view('o_first', $$SELECT * FROM (
    SELECT id, t, k, x, window_start, window_end,
           row_number() OVER (PARTITION BY window_start, window_end, k ORDER BY t, id) AS rn
      FROM ev, cumulate(t, interval '30 seconds', interval '2 minutes')) s WHERE rn = 1$$) IS NOT NULL AS created;
-- the last row per key of 90-second windows offset by 30 s, of rows with
-- x > 10 (WHERE inside)
SELECT windowjoin.create_view('o_last', $$SELECT * FROM (
    SELECT id, t, k, x, window_start, window_end,
           row_number() OVER (PARTITION BY window_start, window_end, k ORDER BY t DESC, id DESC) AS rn
      FROM ev, tumble(t, interval '90 seconds', interval '30 seconds') WHERE x > 10) s
  WHERE rn < 2$$) IS NOT NULL AS created;
-- dense_rank over counts, ranking and grouping in one level
SELECT windowjoin.create_view('o_dense', $$SELECT * FROM (
    SELECT window_start, window_end, k, count(*) AS n,
           dense_rank() OVER (PARTITION BY window_start, window_end ORDER BY count(*) DESC) AS dr
      FROM ev, tumble(t, interval '1 minute') GROUP BY 1, 2, 3) s WHERE dr <= 2$$) IS NOT NULL AS created;
-- late rows dropped: what was emitted stays
SELECT windowjoin.create_view('o_drop', $$SELECT * FROM (
    SELECT id, t, k, x, window_start, window_end,
           row_number() OVER (PARTITION BY window_start, window_end ORDER BY x DESC, id) AS rn
      FROM ev, tumble(t, interval '1 minute')) s WHERE rn <= 2$$, late => 'drop') IS NOT NULL AS created;
-- and as it changes (emit => 'on_update'): open windows marked not final
SELECT windowjoin.create_view('o_update', $$SELECT * FROM (
    SELECT id, t, k, x, window_start, window_end,
           row_number() OVER (PARTITION BY window_start, window_end ORDER BY x DESC, id) AS rn
      FROM ev, tumble(t, interval '1 minute')) s WHERE rn <= 2$$, emit => 'on_update') IS NOT NULL AS created;

-- the top 2 rows of each key's session (gap 5 s), by x; and the key
-- whose session has the largest sum among sessions of the same bounds,
-- ranked and grouped in one level, shown as it changes
SELECT windowjoin.create_view('o_sess_top', $$SELECT * FROM (
    SELECT id, t, k, x, window_start, window_end,
           row_number() OVER (PARTITION BY k, window_start, window_end ORDER BY x DESC, id) AS rn
      FROM (SELECT *, (session(t, interval '5 seconds') OVER (PARTITION BY k ORDER BY t)).*
              FROM ev) s) r WHERE rn <= 2$$) IS NOT NULL AS created;
SELECT windowjoin.create_view('o_sess_sum', $$SELECT * FROM (
    SELECT window_start, window_end, k, sum(x) AS s,
           dense_rank() OVER (PARTITION BY window_start, window_end ORDER BY sum(x) DESC) AS dr
      FROM (SELECT *, (session(t, interval '5 seconds') OVER (PARTITION BY k ORDER BY t)).*
              FROM ev) s GROUP BY 1, 2, 3) r WHERE dr = 1$$, emit => 'on_update') IS NOT NULL AS created;

-- tn.round(r): the clock advances 30 s; 30 rows up to 40 s behind it,
-- every third round 4 rows 1 to 5 minutes behind it (late), updates of
-- values and times, deletes
CREATE FUNCTION tn.round(r int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  clock timestamptz := timestamptz '2024-01-01' + r * interval '30 seconds';
BEGIN
  INSERT INTO tn.ev SELECT nextval('tn.ev_id'), clock - random() * interval '40 seconds',
                           (random() * 4)::int, (random() * 50)::int
                      FROM generate_series(1, 30);
  IF r % 3 = 0 THEN
    INSERT INTO tn.ev SELECT nextval('tn.ev_id'), clock - (1 + random() * 4) * interval '1 minute',
                             (random() * 4)::int, 40 + (random() * 20)::int
                        FROM generate_series(1, 4);
  END IF;
  UPDATE tn.ev SET x = (random() * 60)::int WHERE id IN (SELECT id FROM tn.ev ORDER BY random() LIMIT 3);
  UPDATE tn.ev SET t = t - interval '20 seconds' WHERE id IN (SELECT id FROM tn.ev ORDER BY random() LIMIT 2);
  DELETE FROM tn.ev WHERE id IN (SELECT id FROM tn.ev ORDER BY random() LIMIT 2);
END
$$;
CREATE TABLE results (round int, view regclass, result text);
DO $$
DECLARE
  v regclass;
  old_wm text;
BEGIN
  FOR r IN 1 .. 20 LOOP
    PERFORM tn.round(r);
    -- with the nodes off half the rounds
    PERFORM set_config('windowjoin.enable_window_aggregate', (r % 2 = 0)::text, false);
    FOR v IN SELECT unnest('{o_top_rows,o_top_keys,o_first,o_last,o_dense,o_update,o_sess_top,o_sess_sum}'::regclass[]) LOOP
      PERFORM windowjoin.refresh(v);
      INSERT INTO tn.results VALUES (r, v, wj_test.cv_closed(v));
    END LOOP;
    DROP TABLE IF EXISTS tn.before;
    CREATE TABLE tn.before AS SELECT * FROM tn.o_drop;
    SELECT windowjoin._show(watermark, time_type) INTO old_wm FROM windowjoin.view_catalog
     WHERE view_rel = 'tn.o_drop'::regclass;
    PERFORM windowjoin.refresh('tn.o_drop');
    INSERT INTO tn.results VALUES (r, 'tn.o_drop', wj_test.cv_frozen('tn.o_drop', 'tn.before', old_wm));
  END LOOP;
  RESET windowjoin.enable_window_aggregate;
END
$$;
SELECT view, count(*) AS checks, count(*) FILTER (WHERE result = 'ok') AS ok,
       string_agg(DISTINCT result, '; ') FILTER (WHERE result <> 'ok') AS failures
  FROM results GROUP BY view ORDER BY view::text;
-- the stream did what it should: rows, late rows, windows closed
SELECT count(*) > 500 AS many_rows FROM ev;
SELECT name, rows > 0 AS has_rows, late_rows > 0 AS saw_late, revisions > 0 AS revised
  FROM windowjoin.views v JOIN pg_class c ON c.oid = v.name AND c.relnamespace = 'tn'::regnamespace
 WHERE c.relname LIKE 'o\_%' ORDER BY 1;

--
-- Refused shapes, with their messages; nothing is created
--
SELECT windowjoin.create_view('bad', $$SELECT * FROM (
    SELECT id, t, window_start, window_end,
           row_number() OVER (PARTITION BY window_start, window_end ORDER BY x DESC) AS rn
      FROM ev, tumble(t, interval '1 minute')) s$$);
SELECT windowjoin.create_view('bad', $$SELECT * FROM (
    SELECT id, t, window_start, window_end,
           row_number() OVER (PARTITION BY window_start, window_end ORDER BY x DESC) AS rn
      FROM ev, tumble(t, interval '1 minute')) s WHERE rn > 3$$);
SELECT windowjoin.create_view('bad', $$SELECT * FROM (
    SELECT id, t, window_start, window_end,
           row_number() OVER (PARTITION BY window_start, window_end ORDER BY x DESC) AS rn
      FROM ev, tumble(t, interval '1 minute')) s WHERE rn = 2$$);
SELECT windowjoin.create_view('bad', $$SELECT * FROM (
    SELECT id, t, window_start, window_end,
           row_number() OVER (PARTITION BY window_start, window_end ORDER BY x DESC) AS rn
      FROM ev, tumble(t, interval '1 minute')) s WHERE rn <= 0$$);
SELECT windowjoin.create_view('bad', $$SELECT * FROM (
    SELECT id, t, window_start, window_end,
           row_number() OVER (PARTITION BY window_start, window_end ORDER BY x DESC) AS rn
      FROM ev, tumble(t, interval '1 minute')) s WHERE rn <= 3 AND id > 5$$);
SELECT windowjoin.create_view('bad', $$SELECT * FROM (
    SELECT id, t, window_start, window_end,
           row_number() OVER (PARTITION BY window_start ORDER BY x DESC) AS rn
      FROM ev, tumble(t, interval '1 minute')) s WHERE rn <= 3$$);
SELECT windowjoin.create_view('bad', $$SELECT * FROM (
    SELECT id, t, window_start, window_end,
           row_number() OVER (PARTITION BY k ORDER BY x DESC) AS rn
      FROM ev, tumble(t, interval '1 minute')) s WHERE rn <= 3$$);
SELECT windowjoin.create_view('bad', $$SELECT * FROM (
    SELECT id, t, window_start, window_end,
           ntile(4) OVER (PARTITION BY window_start, window_end ORDER BY x DESC) AS rn
      FROM ev, tumble(t, interval '1 minute')) s WHERE rn <= 3$$);
SELECT windowjoin.create_view('bad', $$SELECT * FROM (
    SELECT id, t, window_start, window_end,
           row_number() OVER (PARTITION BY window_start, window_end) AS rn
      FROM ev, tumble(t, interval '1 minute')) s WHERE rn <= 3$$);
SELECT windowjoin.create_view('bad', $$SELECT id, t, rn FROM (
    SELECT id, t, window_start, window_end,
           row_number() OVER (PARTITION BY window_start, window_end ORDER BY x) AS rn
      FROM ev, tumble(t, interval '1 minute')) s WHERE rn <= 3$$);
SELECT windowjoin.create_view('bad', $$SELECT * FROM (
    SELECT id, t, window_start, window_end, random() AS z,
           row_number() OVER (PARTITION BY window_start, window_end ORDER BY x) AS rn
      FROM ev, tumble(t, interval '1 minute')) s WHERE rn <= 3$$);
SELECT windowjoin.create_view('bad', $$SELECT * FROM (
    SELECT *, row_number() OVER (PARTITION BY k ORDER BY t) AS rn FROM ev) s WHERE rn = 1$$);
SELECT to_regclass('tn.bad') AS nothing_created;

SELECT count(windowjoin.drop_view(name)) AS dropped FROM windowjoin.views v
  JOIN pg_class c ON c.oid = v.name AND c.relnamespace = 'tn'::regnamespace;
SET client_min_messages = warning;
DROP SCHEMA tn CASCADE;
RESET client_min_messages;
