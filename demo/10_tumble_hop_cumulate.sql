-- Windowing TVFs: TUMBLE, HOP, CUMULATE and window offsets
CREATE TABLE bid (bidtime timestamp, price numeric(10,2), item text);
INSERT INTO bid VALUES
  ('2020-04-15 08:05', 4.00, 'C'), ('2020-04-15 08:07', 2.00, 'A'),
  ('2020-04-15 08:09', 5.00, 'D'), ('2020-04-15 08:11', 3.00, 'B'),
  ('2020-04-15 08:13', 1.00, 'E'), ('2020-04-15 08:17', 6.00, 'F');

\echo
\echo '== TUMBLE ==  Flink: SELECT * FROM TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL ''10'' MINUTES);'
\echo '   windowjoin: SELECT * FROM bid, tumble(bidtime, interval ''10 minutes'');'
SELECT * FROM bid, tumble(bidtime, interval '10 minutes') ORDER BY bidtime;

\echo '-- window aggregation is plain GROUP BY'
SELECT window_start, window_end, sum(price) AS total_price
FROM bid, tumble(bidtime, interval '10 minutes')
GROUP BY window_start, window_end ORDER BY window_start;
\echo '-- ... run by TumbleAgg: windows as integer arithmetic, no hashing of timestamps;'
\echo '   the date_bin / date_trunc spelling you may already have gets the same plan'
EXPLAIN (COSTS OFF)
SELECT window_start, window_end, sum(price) AS total_price
FROM bid, tumble(bidtime, interval '10 minutes')
GROUP BY window_start, window_end;
SELECT date_bin('10 minutes', bidtime, timestamp '1970-01-01') AS window_start, item, count(*)
FROM bid GROUP BY 1, 2 HAVING count(*) >= 1 ORDER BY 1, 2;

\echo
\echo '== HOP ==  Flink: SELECT * FROM HOP(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL ''5'' MINUTES, INTERVAL ''10'' MINUTES);'
\echo '   windowjoin: SELECT * FROM bid, hop(bidtime, interval ''5 minutes'', interval ''10 minutes'');'
SELECT * FROM bid, hop(bidtime, interval '5 minutes', interval '10 minutes')
ORDER BY bidtime, window_start;
SELECT window_start, window_end, sum(price) AS total_price
FROM bid, hop(bidtime, interval '5 minutes', interval '10 minutes')
GROUP BY window_start, window_end ORDER BY window_start;

\echo
\echo '== CUMULATE ==  Flink: SELECT * FROM CUMULATE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL ''2'' MINUTES, INTERVAL ''10'' MINUTES);'
\echo '   windowjoin: SELECT * FROM bid, cumulate(bidtime, interval ''2 minutes'', interval ''10 minutes'');'
SELECT * FROM bid, cumulate(bidtime, interval '2 minutes', interval '10 minutes')
ORDER BY bidtime, window_end;
SELECT window_start, window_end, sum(price) AS total_price
FROM bid, cumulate(bidtime, interval '2 minutes', interval '10 minutes')
GROUP BY window_start, window_end ORDER BY window_start, window_end;

\echo
\echo '== Window offset ==  which 10-minute window holds 2021-06-30 00:00:04?'
SELECT o AS "offset", w.window_start, w.window_end
FROM (VALUES (-16), (-6), (-4), (0), (4), (6), (16)) AS v(m),
     LATERAL (SELECT make_interval(mins => m) AS o) AS x,
     LATERAL tumble(timestamp '2021-06-30 00:00:04', interval '10 minutes', o) AS w
ORDER BY m;
\echo '   Flink: TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL ''10'' MINUTES, INTERVAL ''1'' MINUTES)'
SELECT * FROM bid, tumble(ts => bidtime, size => interval '10 minutes', "offset" => interval '1 minute')
ORDER BY bidtime;
SELECT window_start, window_end, sum(price) AS total_price
FROM bid, tumble(bidtime, interval '10 minutes', interval '1 minute')
GROUP BY window_start, window_end ORDER BY window_start;

\echo '-- hop/cumulate aggregation runs pane by pane (EXPLAIN):'
EXPLAIN (COSTS OFF)
SELECT window_start, window_end, sum(price) AS total_price
FROM bid, hop(bidtime, interval '5 minutes', interval '10 minutes')
GROUP BY window_start, window_end;
DROP TABLE bid;
