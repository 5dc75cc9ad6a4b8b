-- Changefeeds: a continuous view made with feed => true also keeps
-- <view>_feed, one row per row that appeared in the view (change +1) or
-- went away (-1), numbered by seq without a gap in commit order.  A
-- consumer applies the feed to a table of its own and acknowledges its
-- position in the same transaction: each change is applied exactly once.
CREATE TABLE feed_bid (bidtime timestamp, price numeric(10,2), item text);
CREATE INDEX ON feed_bid (bidtime);
INSERT INTO feed_bid VALUES
  ('2020-04-15 08:05', 4.00, 'C'), ('2020-04-15 08:07', 2.00, 'A'),
  ('2020-04-15 08:09', 5.00, 'D'), ('2020-04-15 08:11', 3.00, 'B'),
  ('2020-04-15 08:13', 1.00, 'E'), ('2020-04-15 08:17', 6.00, 'F');

\echo
\echo '== CHANGEFEED ==  windowjoin.create_view(..., feed => true): the view and its <view>_feed'
SELECT windowjoin.create_view('feed_totals',
  $$SELECT window_start, window_end, count(*) AS bids, sum(price) AS total_price
      FROM feed_bid, tumble(bidtime, interval '10 minutes')
     GROUP BY window_start, window_end$$,
  delay => interval '1 minute', feed => true) AS created;
\echo '   the first refresh (in create_view) closed [08:00, 08:10): the feed has it as seq 1, +1'
SELECT * FROM feed_totals_feed ORDER BY seq;
\echo '   bids at 08:19 and 08:21 close [08:10, 08:20): seq 2'
INSERT INTO feed_bid VALUES ('2020-04-15 08:19', 2.00, 'G'), ('2020-04-15 08:21', 7.00, 'H');
SELECT windowjoin.refresh('feed_totals');
SELECT * FROM feed_totals_feed ORDER BY seq;
\echo '   a late bid at 08:02 revises [08:00, 08:10): -1 for its old row, +1 for the new one'
INSERT INTO feed_bid VALUES ('2020-04-15 08:02', 10.00, 'Z');
SELECT windowjoin.refresh('feed_totals');
SELECT * FROM feed_totals_feed WHERE seq > 2 ORDER BY seq;

\echo
\echo '== FEED CONSUMER ==  apply the changes after its position, and windowjoin.feed_ack() them, in one transaction'
CREATE TABLE feed_dashboard (LIKE feed_totals);
-- the consumer's position (0 before its first acknowledgement)
SELECT coalesce((feed_consumers->>'dashboard')::bigint, 0) AS last
  FROM windowjoin.views WHERE name = 'feed_totals'::regclass \gset
BEGIN;
-- the last change of this batch: what the apply reads and what is acknowledged
SELECT coalesce(max(seq), :last) AS upto FROM feed_totals_feed WHERE seq > :last \gset
-- a row's net change over the batch: a row both added and removed in it cancels
CREATE TEMP TABLE batch ON COMMIT DROP AS
SELECT window_start, window_end, bids, total_price, sum(change) AS net
  FROM feed_totals_feed WHERE seq > :last AND seq <= :upto GROUP BY 1, 2, 3, 4;
DELETE FROM feed_dashboard d USING batch b WHERE b.net < 0
   AND (d.window_start, d.window_end, d.bids, d.total_price)
     = (b.window_start, b.window_end, b.bids, b.total_price);
INSERT INTO feed_dashboard SELECT window_start, window_end, bids, total_price FROM batch WHERE net > 0;
SELECT windowjoin.feed_ack('feed_totals', 'dashboard', :upto);
COMMIT;
\echo '   the consumer is at seq 4, nothing is left behind, and its table equals the view'
SELECT name, feed, feed_seq, feed_consumers, feed_backlog FROM windowjoin.views
 WHERE name = 'feed_totals'::regclass;
SELECT * FROM feed_dashboard ORDER BY window_start;
SELECT count(*) AS differences FROM
  ((TABLE feed_dashboard EXCEPT TABLE feed_totals) UNION ALL
   (TABLE feed_totals EXCEPT TABLE feed_dashboard)) d;
\echo '   a position only moves forward'
\set ON_ERROR_STOP 0
SELECT windowjoin.feed_ack('feed_totals', 'dashboard', 3);
\set ON_ERROR_STOP 1

\echo
\echo '== NOTIFY ==  each transaction that adds feed rows notifies windowjoin_feed at commit'
\echo '   (psql prints a notification with the PID of the backend that sent it: here, this one)'
LISTEN windowjoin_feed;
INSERT INTO feed_bid VALUES ('2020-04-15 08:31', 1.00, 'I');
SELECT windowjoin.refresh('feed_totals');
UNLISTEN windowjoin_feed;
\echo '   the refresh also purged the changes every consumer has passed (seq 1 to 4)'
SELECT * FROM feed_totals_feed ORDER BY seq;
SELECT feed_seq, feed_backlog, feed_oldest_unacked IS NOT NULL AS unacked
  FROM windowjoin.views WHERE name = 'feed_totals'::regclass;
SELECT windowjoin.drop_view('feed_totals');
DROP TABLE feed_bid, feed_dashboard;
