--
-- What Flink builds on windowing TVFs, in plain SQL over tumble/hop/cumulate:
-- window aggregation, GROUPING SETS / ROLLUP / CUBE, Window TopN, window
-- deduplication and cascading windows.
--
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
SET IntervalStyle = 'postgres';
\set ECHO none
\i sql/include/helpers.sql
\set ECHO all

CREATE SCHEMA window_queries;
SET search_path = window_queries, public;
CREATE TABLE bid (bidtime timestamp, price numeric(10,2), item text, supplier_id text);
INSERT INTO bid VALUES
  ('2020-04-15 08:05', 4.00, 'C', 'supplier1'), ('2020-04-15 08:07', 2.00, 'A', 'supplier1'),
  ('2020-04-15 08:09', 5.00, 'D', 'supplier2'), ('2020-04-15 08:11', 3.00, 'B', 'supplier2'),
  ('2020-04-15 08:13', 1.00, 'E', 'supplier1'), ('2020-04-15 08:17', 6.00, 'F', 'supplier2');

-- Window aggregation with GROUPING SETS, ROLLUP and CUBE
SELECT window_start, window_end, supplier_id, sum(price) AS total_price
FROM bid, tumble(bidtime, interval '10 minutes')
GROUP BY window_start, window_end, GROUPING SETS ((supplier_id), ())
ORDER BY window_start, supplier_id NULLS LAST;
SELECT window_start, window_end, supplier_id, sum(price) AS total_price
FROM bid, tumble(bidtime, interval '10 minutes')
GROUP BY window_start, window_end, ROLLUP (supplier_id)
ORDER BY window_start, supplier_id NULLS LAST;
SELECT window_start, window_end, item, supplier_id, sum(price) AS total_price
FROM bid, tumble(bidtime, interval '10 minutes')
WHERE item IN ('A', 'B', 'C')
GROUP BY window_start, window_end, CUBE (supplier_id, item)
ORDER BY window_start, supplier_id NULLS LAST, item NULLS LAST;

-- Window TopN: top 2 suppliers by price in each 10-minute window
SELECT * FROM (
  SELECT *, row_number() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) AS rownum
  FROM (SELECT window_start, window_end, supplier_id, sum(price) AS price, count(*) AS cnt
        FROM bid, tumble(bidtime, interval '10 minutes')
        GROUP BY window_start, window_end, supplier_id) agg
) ranked WHERE rownum <= 2
ORDER BY window_start, rownum;

-- Window TopN directly on the windowed rows: the 2 highest bids per window
SELECT bidtime, price, item, supplier_id, window_start, window_end, rownum FROM (
  SELECT b.*, w.*, row_number() OVER (PARTITION BY w.window_start, w.window_end ORDER BY price DESC) AS rownum
  FROM bid b, hop(bidtime, interval '5 minutes', interval '10 minutes') w
) t WHERE rownum <= 2
ORDER BY window_start, rownum;

-- Window deduplication: the last bid of every 10-minute window
SELECT bidtime, price, item, supplier_id, window_start, window_end FROM (
  SELECT b.*, w.*, row_number() OVER (PARTITION BY w.window_start, w.window_end ORDER BY bidtime DESC) AS rownum
  FROM bid b, tumble(bidtime, interval '10 minutes') w
) t WHERE rownum <= 1
ORDER BY window_start;

-- Cascading windows: 5-minute aggregates, then 10-minute windows over their
-- window_time (a time inside the 5-minute window, so it lands correctly)
WITH window1 AS (
  SELECT window_start, window_end, window_time AS rowtime, sum(price) AS partial_price
  FROM bid, tumble(bidtime, interval '5 minutes')
  GROUP BY supplier_id, window_start, window_end, window_time
)
SELECT w.window_start, w.window_end, sum(partial_price) AS total_price
FROM window1, tumble(rowtime, interval '10 minutes') AS w
GROUP BY w.window_start, w.window_end
ORDER BY w.window_start;

-- Cumulating aggregation: running totals every 2 minutes of a 10-minute day
SELECT window_start, window_end, count(*) AS bids, sum(price) AS total_price
FROM bid, cumulate(bidtime, interval '2 minutes', interval '10 minutes')
GROUP BY window_start, window_end
ORDER BY window_start, window_end;

-- Windowed views keep working (they store the inlinable calls)
CREATE VIEW bid_hop AS
  SELECT b.*, w.* FROM bid b, hop(bidtime, interval '5 minutes', interval '10 minutes') w;
SELECT window_start, count(*) FROM bid_hop GROUP BY 1 ORDER BY 1;
SELECT pg_get_viewdef('bid_hop'::regclass);

RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA window_queries CASCADE;
