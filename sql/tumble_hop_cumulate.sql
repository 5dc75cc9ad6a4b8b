--
-- Flink's windowing table function examples, row for row:
-- TUMBLE, HOP and CUMULATE over the Bid table, their aggregations, the
-- named-argument forms, and the window offset examples.
--
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
SET IntervalStyle = 'postgres';
\set ECHO none
\i sql/include/helpers.sql
\set ECHO all

CREATE SCHEMA tumble_hop_cumulate;
SET search_path = tumble_hop_cumulate, public;
CREATE TABLE bid (bidtime timestamp, price numeric(10,2), item text);
INSERT INTO bid VALUES
  ('2020-04-15 08:05', 4.00, 'C'), ('2020-04-15 08:07', 2.00, 'A'),
  ('2020-04-15 08:09', 5.00, 'D'), ('2020-04-15 08:11', 3.00, 'B'),
  ('2020-04-15 08:13', 1.00, 'E'), ('2020-04-15 08:17', 6.00, 'F');

-- TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)
SELECT * FROM bid, tumble(bidtime, interval '10 minutes') ORDER BY bidtime;
SELECT * FROM bid, tumble(ts => bidtime, size => interval '10 minutes') ORDER BY bidtime;
SELECT window_start, window_end, sum(price) AS total_price
FROM bid, tumble(bidtime, interval '10 minutes')
GROUP BY window_start, window_end ORDER BY window_start;

-- HOP(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES)
SELECT * FROM bid, hop(bidtime, interval '5 minutes', interval '10 minutes')
ORDER BY bidtime, window_start;
SELECT * FROM bid, hop(ts => bidtime, slide => interval '5 minutes', size => interval '10 minutes')
ORDER BY bidtime, window_start;
SELECT window_start, window_end, sum(price) AS total_price
FROM bid, hop(bidtime, interval '5 minutes', interval '10 minutes')
GROUP BY window_start, window_end ORDER BY window_start;

-- CUMULATE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '2' MINUTES, INTERVAL '10' MINUTES)
SELECT * FROM bid, cumulate(bidtime, interval '2 minutes', interval '10 minutes')
ORDER BY bidtime, window_end;
SELECT * FROM bid, cumulate(ts => bidtime, step => interval '2 minutes', size => interval '10 minutes')
ORDER BY bidtime, window_end;
SELECT window_start, window_end, sum(price) AS total_price
FROM bid, cumulate(bidtime, interval '2 minutes', interval '10 minutes')
GROUP BY window_start, window_end ORDER BY window_start, window_end;

-- Window offset: which 10-minute window holds 2021-06-30 00:00:04?
SELECT o AS "offset", w.window_start, w.window_end
FROM (VALUES (-16), (-6), (-4), (0), (4), (6), (16)) AS v(m),
     LATERAL (SELECT make_interval(mins => m) AS o) AS x,
     LATERAL tumble(timestamp '2021-06-30 00:00:04', interval '10 minutes', o) AS w
ORDER BY m;

-- The window length changing from row to row in one expression (the
-- functions keep the checked parameters of the previous row): each row's
-- window is date_bin's, and a NULL length after valid ones is still an error
SELECT s AS size, w.window_start, w.window_end,
       w.window_start = date_bin(s, t, timestamp '1970-01-01') AS same_as_date_bin
FROM (VALUES (1, interval '10 minutes'), (2, interval '7 minutes'),
             (3, interval '7 minutes'), (4, interval '1 hour'),
             (5, interval '10 minutes')) AS v(n, s),
     LATERAL (SELECT timestamp '2021-06-30 00:17:04' AS t) AS x,
     LATERAL tumble(t, s) AS w
ORDER BY n;
SELECT w.window_start
FROM (VALUES (1, interval '10 minutes'), (2, NULL::interval)) AS v(n, s),
     LATERAL tumble(timestamp '2021-06-30 00:17:04', s) AS w
ORDER BY n;

-- TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES, INTERVAL '1' MINUTES)
SELECT * FROM bid, tumble(bidtime, interval '10 minutes', interval '1 minute') ORDER BY bidtime;
SELECT * FROM bid, tumble(ts => bidtime, size => interval '10 minutes', "offset" => interval '1 minute')
ORDER BY bidtime;
SELECT window_start, window_end, sum(price) AS total_price
FROM bid, tumble(bidtime, interval '10 minutes', interval '1 minute')
GROUP BY window_start, window_end ORDER BY window_start;

-- The same with timestamptz input: output type follows the input
SELECT pg_typeof(window_start), pg_typeof(window_end), pg_typeof(window_time), count(*)
FROM bid, tumble(bidtime::timestamptz, interval '10 minutes')
GROUP BY 1, 2, 3;
SELECT pg_typeof(window_start), count(*)
FROM bid, hop(bidtime::timestamptz, interval '5 minutes', interval '10 minutes') GROUP BY 1;
SELECT pg_typeof(window_start), count(*)
FROM bid, cumulate(bidtime::timestamptz, interval '2 minutes', interval '10 minutes') GROUP BY 1;

RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA tumble_hop_cumulate CASCADE;
