-- Continuous window views: kept up to date as rows arrive, a window
-- emitted when the watermark (max event time - delay) closes it
CREATE TABLE bid (bidtime timestamp, price numeric(10,2), item text);
CREATE INDEX ON bid (bidtime);
INSERT INTO bid VALUES
  ('2020-04-15 08:05', 4.00, 'C'), ('2020-04-15 08:07', 2.00, 'A'),
  ('2020-04-15 08:09', 5.00, 'D'), ('2020-04-15 08:11', 3.00, 'B'),
  ('2020-04-15 08:13', 1.00, 'E'), ('2020-04-15 08:17', 6.00, 'F');

\echo
\echo '== CONTINUOUS VIEW ==  windowjoin.create_view(name, query, delay, late, schedule)'
SELECT windowjoin.create_view('bid_tumble',
  $$SELECT window_start, window_end, count(*) AS bids, sum(price) AS total_price
      FROM bid, tumble(bidtime, interval '10 minutes')
     GROUP BY window_start, window_end$$,
  delay => interval '1 minute') AS created;
\echo '   watermark 08:16 (08:17 - 1 minute): only [08:00, 08:10) is closed'
SELECT * FROM bid_tumble ORDER BY window_start;
\echo '   two bids arrive; the one at 08:21 moves the watermark to 08:20 and closes [08:10, 08:20)'
INSERT INTO bid VALUES ('2020-04-15 08:19', 2.00, 'G'), ('2020-04-15 08:21', 7.00, 'H');
SELECT windowjoin.refresh('bid_tumble');
SELECT * FROM bid_tumble ORDER BY window_start;
\echo '   a late bid at 08:02 (its window closed long ago): late => ''revise'' recomputes [08:00, 08:10)'
INSERT INTO bid VALUES ('2020-04-15 08:02', 10.00, 'Z');
SELECT windowjoin.refresh('bid_tumble');
SELECT * FROM bid_tumble ORDER BY window_start;
SELECT name, kind, watermark, lag, rows, state_rows, late_rows, revisions,
       last_refresh_steps->>'windows_revised' AS revised
  FROM windowjoin.views;
SELECT windowjoin.drop_view('bid_tumble');
DROP TABLE bid;
