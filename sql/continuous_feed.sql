--
-- Changefeeds of continuous views (docs/changefeed.md):
-- Flink's Bid example with a feed (emitted windows +1, a revision -1/+1);
-- the oracle -- after every refresh of a random out-of-order stream with
-- late rows, updates and deletes, the feed's signed rows sum to the view
-- and its seq runs without a gap -- for tumble, hop, cumulate, session,
-- emit => 'on_update', window and interval join views; the owner's own
-- DELETE, UPDATE and TRUNCATE of a view; rollbacks; consumers, purge and
-- retention; alter_view; and misuse by two ordinary roles.
--
\set SHOW_CONTEXT never
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
SET IntervalStyle = 'postgres';
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS cf CASCADE;
DROP ROLE IF EXISTS wj_cf_alice;
DROP ROLE IF EXISTS wj_cf_bob;
DROP ROLE IF EXISTS wj_cf_mallory;
RESET client_min_messages;
CREATE SCHEMA cf;
SET search_path = cf, public;

-- feed_diff(view): rows of the view the feed's signed sum does not give
-- (either way; 0 when they are equal as multisets), read before any purge
CREATE FUNCTION cf.feed_diff(v regclass) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  f regclass;
  cols text;
  n bigint;
BEGIN
  SELECT c.feed_rel INTO f FROM windowjoin.view_catalog c WHERE c.view_rel = v;
  SELECT string_agg(quote_ident(attname), ', ' ORDER BY attnum) INTO cols
    FROM pg_attribute WHERE attrelid = v AND attnum > 0 AND NOT attisdropped;
  EXECUTE format('SELECT count(*) FROM (SELECT r FROM (SELECT ROW(%1$s)::text AS r, change::bigint AS c FROM %2$s '
                 'UNION ALL SELECT ROW(%1$s)::text, -1 FROM %3$s) x GROUP BY r HAVING sum(c) <> 0) d',
                 cols, f, v) INTO n;
  RETURN n;
END
$$;
-- feed_gapless(view): the feed's seqs run from the first kept to the
-- catalog's last, one by one
CREATE FUNCTION cf.feed_gapless(v regclass) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  c windowjoin.view_catalog;
  ok boolean;
BEGIN
  SELECT * INTO c FROM windowjoin.view_catalog x WHERE x.view_rel = v;
  EXECUTE format('SELECT coalesce(min(seq) = %2$s + 1 AND max(seq) = %3$s AND count(*) = %3$s - %2$s, %3$s = %2$s) FROM %1$s',
                 c.feed_rel, c.feed_purged, c.feed_seq) INTO ok;
  RETURN ok;
END
$$;

--
-- 1. Flink's Bid table (seeds/003) with a feed.
--
CREATE TABLE bid (bidtime timestamp, price numeric(10,2), item text);
CREATE INDEX ON bid (bidtime);
INSERT INTO bid VALUES
  ('2020-04-15 08:05', 4.00, 'C'), ('2020-04-15 08:07', 2.00, 'A'),
  ('2020-04-15 08:09', 5.00, 'D'), ('2020-04-15 08:11', 3.00, 'B'),
  ('2020-04-15 08:13', 1.00, 'E'), ('2020-04-15 08:17', 6.00, 'F');
SELECT windowjoin.create_view('bid_tumble',
  $$SELECT window_start, window_end, sum(price) AS total_price, count(*) AS bids
      FROM bid, tumble(bidtime, interval '10 minutes')
     GROUP BY window_start, window_end$$, feed => true);
-- the feed starts with the view as it is: the window closed at 08:17
SELECT * FROM bid_tumble_feed ORDER BY seq;
SELECT name, feed, feed_seq, feed_consumers, feed_backlog FROM windowjoin.views
 WHERE name = 'bid_tumble'::regclass;
-- the next window closes: +1
INSERT INTO bid VALUES ('2020-04-15 08:21', 7.00, 'G');
SELECT windowjoin.refresh('bid_tumble');
SELECT * FROM bid_tumble_feed ORDER BY seq;
-- a late bid revises the first window: -1 for its old row, +1 for the new
INSERT INTO bid VALUES ('2020-04-15 08:01', 10.00, 'H');
SELECT windowjoin.refresh('bid_tumble');
SELECT * FROM bid_tumble_feed WHERE seq > 2 ORDER BY seq;
SELECT cf.feed_diff('bid_tumble'), cf.feed_gapless('bid_tumble');
-- a refresh that changes nothing adds nothing
SELECT windowjoin.refresh('bid_tumble');
SELECT feed_seq FROM windowjoin.views WHERE name = 'bid_tumble'::regclass;

-- a rolled-back refresh gives its numbers back: the next one reuses them
INSERT INTO bid VALUES ('2020-04-15 08:33', 1.00, 'I');
BEGIN;
SELECT windowjoin.refresh('bid_tumble');
SELECT max(seq) FROM bid_tumble_feed;
ROLLBACK;
SELECT max(seq) FROM bid_tumble_feed;
SELECT windowjoin.refresh('bid_tumble');
SELECT seq, change, window_start FROM bid_tumble_feed WHERE seq > 4 ORDER BY seq;

-- the owner's own changes of the view's table are changes too
DELETE FROM bid_tumble WHERE window_start < '2020-04-15 08:10';
UPDATE bid_tumble SET bids = bids * 10 WHERE window_start = '2020-04-15 08:10';
SELECT seq, change, window_start, bids FROM bid_tumble_feed WHERE seq > 5 ORDER BY seq;
SELECT cf.feed_diff('bid_tumble'), cf.feed_gapless('bid_tumble');
TRUNCATE bid_tumble;
SELECT seq, change, window_start, bids FROM bid_tumble_feed WHERE seq > 8 ORDER BY seq;
SELECT cf.feed_diff('bid_tumble'), cf.feed_gapless('bid_tumble');
SELECT windowjoin.refresh('bid_tumble', full_refresh => true);
SELECT cf.feed_diff('bid_tumble'), cf.feed_gapless('bid_tumble');

--
-- 2. Consumers, purge, retention.
--
SELECT feed_seq FROM windowjoin.views WHERE name = 'bid_tumble'::regclass;
SELECT windowjoin.feed_ack('bid_tumble', 'app', 4);
SELECT windowjoin.feed_ack('bid_tumble', 'audit', 2);
SELECT windowjoin.feed_ack('bid_tumble', 'app', 4);     -- again: no change
SELECT feed_consumers, feed_backlog, feed_oldest_unacked IS NOT NULL AS has_oldest
  FROM windowjoin.views WHERE name = 'bid_tumble'::regclass;
-- a refresh purges what every consumer has passed (up to 2)
SELECT windowjoin.refresh('bid_tumble');
SELECT min(seq) FROM bid_tumble_feed;
SELECT cf.feed_gapless('bid_tumble');
SELECT windowjoin.feed_drop_consumer('bid_tumble', 'audit');
SELECT windowjoin.refresh('bid_tumble');
SELECT min(seq) FROM bid_tumble_feed;
-- errors
SELECT windowjoin.feed_ack('bid_tumble', 'app', 3);
SELECT windowjoin.feed_ack('bid_tumble', 'app', 1000);
SELECT windowjoin.feed_ack('bid_tumble', 'app', -1);
SELECT windowjoin.feed_ack('bid_tumble', '', 5);
SELECT windowjoin.feed_ack('bid_tumble', repeat('x', 201), 5);
SELECT windowjoin.feed_drop_consumer('bid_tumble', 'nobody');
SELECT windowjoin.feed_ack('bid', 'app', 1);
-- an acknowledgement commits with the consumer's transaction, or not at all
BEGIN;
SELECT windowjoin.feed_ack('bid_tumble', 'app', 6);
ROLLBACK;
SELECT feed_consumers FROM windowjoin.views WHERE name = 'bid_tumble'::regclass;
-- retention: changes older than feed_retention go, acknowledged or not
SELECT windowjoin.alter_view('bid_tumble', feed_retention => '1 microsecond');
SELECT pg_sleep(0.01);
SELECT windowjoin.refresh('bid_tumble');
SELECT count(*) AS kept FROM bid_tumble_feed;
SELECT feed_retention, feed_backlog FROM windowjoin.views WHERE name = 'bid_tumble'::regclass;
SELECT windowjoin.alter_view('bid_tumble', feed_retention => '0');
SELECT feed_retention FROM windowjoin.views WHERE name = 'bid_tumble'::regclass;

--
-- 3. alter_view: schedule, feed off and on again.
--
SELECT windowjoin.alter_view('bid_tumble', schedule => '1 hour');
SELECT schedule FROM windowjoin.views WHERE name = 'bid_tumble'::regclass;
SELECT windowjoin.alter_view('bid_tumble', schedule => '0');
SELECT schedule FROM windowjoin.views WHERE name = 'bid_tumble'::regclass;
SELECT windowjoin.alter_view('bid_tumble', schedule => '-1 second');
SELECT windowjoin.alter_view('bid_tumble', feed_retention => '-1 second');
SELECT windowjoin.alter_view('bid_tumble', feed => false);
SELECT to_regclass('bid_tumble_feed') AS feed_table,
       (SELECT count(*) FROM pg_trigger WHERE tgrelid = 'bid_tumble'::regclass) AS triggers,
       (SELECT count(*) FROM windowjoin.feed_consumers
         WHERE view_rel = 'bid_tumble'::regclass) AS consumers;
SELECT windowjoin.alter_view('bid_tumble', feed => true);
SELECT seq, change, window_start, total_price FROM bid_tumble_feed ORDER BY seq;
SELECT windowjoin.alter_view('bid_tumble', feed => true);   -- already: nothing
SELECT windowjoin.alter_view('bid', feed => true);
-- a view with a column the feed uses
SELECT windowjoin.create_view('bid_seq',
  $$SELECT window_start, window_end, count(*) AS seq
      FROM bid, tumble(bidtime, interval '10 minutes') GROUP BY 1, 2$$, feed => true);
-- the feed goes with its view
SELECT windowjoin.create_view('bid_gone',
  $$SELECT window_start, window_end, count(*) AS n
      FROM bid, tumble(bidtime, interval '10 minutes') GROUP BY 1, 2$$, feed => true);
SELECT windowjoin.feed_ack('bid_gone', 'app', 1);
DROP TABLE bid_gone;
SELECT to_regclass('bid_gone_feed'), (SELECT count(*) FROM windowjoin.feed_consumers
                                       WHERE consumer = 'app') AS consumers;

--
-- 4. The oracle: a random stream (out of order, late rows, updates,
--    deletes) into views of every kind with feeds; after every refresh the
--    feed sums to the view and runs without a gap.
--
SELECT setseed(0.42);
CREATE TABLE ev (id serial, t timestamptz, k int, v int);
CREATE INDEX ON ev (t);
CREATE TABLE ev2 (id serial, t timestamptz, k int, v int);
CREATE INDEX ON ev2 (t);
SELECT windowjoin.create_view('o_tumble', $$SELECT window_start, window_end, k, count(*) AS n, sum(v) AS s
  FROM ev, tumble(t, interval '1 minute') GROUP BY 1, 2, 3$$, delay => '10 seconds', feed => true);
SELECT windowjoin.create_view('o_hop', $$SELECT window_start, window_end, k, count(*) AS n, sum(v) AS s
  FROM ev, hop(t, interval '20 seconds', interval '1 minute') GROUP BY 1, 2, 3$$, feed => true);
SELECT windowjoin.create_view('o_cumulate', $$SELECT window_start, window_end, count(*) AS n, max(v) AS m
  FROM ev, cumulate(t, interval '20 seconds', interval '1 minute') GROUP BY 1, 2$$, feed => true);
SELECT windowjoin.create_view('o_session', $$SELECT k, window_start, window_end, count(*) AS n
  FROM (SELECT k, (session(t, interval '15 seconds') OVER (PARTITION BY k ORDER BY t)).* FROM ev) s
  GROUP BY 1, 2, 3$$, feed => true);
SELECT windowjoin.create_view('o_update', $$SELECT window_start, window_end, k, count(*) AS n
  FROM ev, tumble(t, interval '1 minute') GROUP BY 1, 2, 3$$, emit => 'on_update', feed => true);
SELECT windowjoin.create_view('o_wjoin', $$SELECT L.k, L.v AS lv, R.v AS rv, COALESCE(L.window_start, R.window_start) AS window_start,
         COALESCE(L.window_end, R.window_end) AS window_end
    FROM (SELECT * FROM ev, tumble(t, interval '30 seconds')) L
    FULL JOIN (SELECT * FROM ev2, tumble(t, interval '30 seconds')) R
      ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end$$, feed => true);
SELECT windowjoin.create_view('o_band', $$SELECT A.id AS a_id, B.id AS b_id, A.t AS a_t, B.t AS b_t
    FROM ev A LEFT JOIN ev2 B ON A.k = B.k AND B.t BETWEEN A.t - interval '5 seconds' AND A.t + interval '5 seconds'$$,
  feed => true);
CREATE TABLE oracle (round int, view regclass, diff bigint, gapless boolean);
DO $$
DECLARE
  clock timestamptz := '2024-01-01 00:00';
  vw regclass;
BEGIN
  FOR r IN 1 .. 12 LOOP
    clock := clock + interval '40 seconds';
    INSERT INTO cf.ev (t, k, v)
      SELECT clock - random() * interval '90 seconds', (random() * 3)::int, (random() * 100)::int
        FROM generate_series(1, 25);
    INSERT INTO cf.ev2 (t, k, v)
      SELECT clock - random() * interval '90 seconds', (random() * 3)::int, (random() * 100)::int
        FROM generate_series(1, 15);
    UPDATE cf.ev SET v = v + 1 WHERE id IN (SELECT id FROM cf.ev ORDER BY random() LIMIT 3);
    DELETE FROM cf.ev WHERE id IN (SELECT id FROM cf.ev ORDER BY random() LIMIT 2);
    DELETE FROM cf.ev2 WHERE id IN (SELECT id FROM cf.ev2 ORDER BY random() LIMIT 1);
    FOR vw IN SELECT unnest('{cf.o_tumble,cf.o_hop,cf.o_cumulate,cf.o_session,cf.o_update,cf.o_wjoin,cf.o_band}'::regclass[]) LOOP
      PERFORM windowjoin.refresh(vw);
      INSERT INTO cf.oracle SELECT r, vw, cf.feed_diff(vw), cf.feed_gapless(vw);
    END LOOP;
  END LOOP;
END
$$;
SELECT view, count(*) AS rounds, count(*) FILTER (WHERE diff = 0 AND gapless) AS ok
  FROM oracle GROUP BY view ORDER BY view::text;
-- the views saw late rows and revisions, and their feeds removals
SELECT v.name, v.revisions > 0 AS revised,
       v.late_rows > 0 AS had_late_rows
  FROM windowjoin.views v WHERE v.name::text LIKE 'o\_%' ORDER BY v.name::text;
SELECT 'o_tumble', count(*) FILTER (WHERE change < 0) > 0 AS removals FROM o_tumble_feed
UNION ALL SELECT 'o_session', count(*) FILTER (WHERE change < 0) > 0 FROM o_session_feed
UNION ALL SELECT 'o_update', count(*) FILTER (WHERE change < 0) > 0 FROM o_update_feed;

--
-- 5. Misuse, as two ordinary roles: bob reads alice's feed (she granted
--    it), mallory may not.
--
CREATE ROLE wj_cf_alice;
CREATE ROLE wj_cf_bob;
CREATE ROLE wj_cf_mallory;
CREATE SCHEMA cf_alice AUTHORIZATION wj_cf_alice;
GRANT USAGE ON SCHEMA cf_alice TO wj_cf_bob, wj_cf_mallory;
CREATE SCHEMA cf_mallory AUTHORIZATION wj_cf_mallory;
SET ROLE wj_cf_alice;
CREATE TABLE cf_alice.src (t timestamptz NOT NULL, x int);
CREATE INDEX ON cf_alice.src (t);
INSERT INTO cf_alice.src VALUES ('2024-01-01 00:00:10', 1), ('2024-01-01 00:01:10', 2);
SELECT windowjoin.create_view('cf_alice.v', $$SELECT window_start, window_end, sum(x) AS s
  FROM cf_alice.src, tumble(t, interval '1 minute') GROUP BY 1, 2$$, feed => true);
GRANT SELECT ON cf_alice.v_feed TO wj_cf_bob;
SELECT windowjoin.feed_ack('cf_alice.v', 'alice_app', 0);
-- alice's own trigger calling _feed() on another table: refused
CREATE TABLE cf_alice.other (x int);
CREATE TRIGGER windowjoin_feed_insert AFTER INSERT ON cf_alice.other REFERENCING NEW TABLE AS n
  FOR EACH STATEMENT EXECUTE FUNCTION windowjoin._feed();
INSERT INTO cf_alice.other VALUES (1);
-- or a second trigger on her view under another name
CREATE TRIGGER evil AFTER INSERT ON cf_alice.v REFERENCING NEW TABLE AS n
  FOR EACH STATEMENT EXECUTE FUNCTION windowjoin._feed();
INSERT INTO cf_alice.v VALUES ('2030-01-01', '2030-01-01 00:01', 1);
DROP TRIGGER evil ON cf_alice.v;
RESET ROLE;
SET ROLE wj_cf_bob;
SELECT seq, change, s FROM cf_alice.v_feed ORDER BY seq;
SELECT windowjoin.feed_ack('cf_alice.v', 'bob_app', 1);
SELECT consumer, role, seq FROM windowjoin.feed_consumers ORDER BY 1;
-- bob may not move alice's consumer, nor drop it, nor change the view
SELECT windowjoin.feed_ack('cf_alice.v', 'alice_app', 1);
SELECT windowjoin.feed_drop_consumer('cf_alice.v', 'alice_app');
SELECT windowjoin.alter_view('cf_alice.v', feed => false);
SELECT windowjoin._catalog_set('cf_alice.v', '{"feed_retention": "1 s"}');
INSERT INTO cf_alice.v_feed VALUES (100, 1, now(), now(), 1);
RESET ROLE;
SET ROLE wj_cf_mallory;
SELECT windowjoin.feed_ack('cf_alice.v', 'mallory_app', 0);
SELECT windowjoin.feed_ack('cf_alice.v', 'bob_app', 1);
SELECT count(*) FROM windowjoin.feed_consumers;
SELECT count(*) FROM windowjoin.feed_marks;
-- mallory's own table with a trigger of the feed's name: refused
CREATE TABLE cf_mallory.t (x int);
CREATE TRIGGER windowjoin_feed_insert AFTER INSERT ON cf_mallory.t REFERENCING NEW TABLE AS n
  FOR EACH STATEMENT EXECUTE FUNCTION windowjoin._feed();
INSERT INTO cf_mallory.t VALUES (1);
-- nor can she put one on alice's view
CREATE TRIGGER x AFTER INSERT ON cf_alice.v FOR EACH STATEMENT EXECUTE FUNCTION windowjoin._feed();
RESET ROLE;
-- alice, the owner, may move bob's consumer (forward) and drop it
SET ROLE wj_cf_alice;
SELECT windowjoin.feed_ack('cf_alice.v', 'bob_app', 1);
SELECT windowjoin.feed_drop_consumer('cf_alice.v', 'bob_app');
SELECT consumer, seq FROM windowjoin.feed_consumers ORDER BY 1;
RESET ROLE;
SELECT seq, change, s FROM cf_alice.v_feed ORDER BY seq;
SELECT cf.feed_diff('cf_alice.v'), cf.feed_gapless('cf_alice.v');

SET client_min_messages = warning;
DROP SCHEMA cf_alice, cf_mallory CASCADE;
DROP SCHEMA cf CASCADE;
DROP ROLE wj_cf_alice;
DROP ROLE wj_cf_bob;
DROP ROLE wj_cf_mallory;
RESET client_min_messages;
