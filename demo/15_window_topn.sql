-- Window Top-N and Window Deduplication (WindowTopN)
CREATE TABLE bid (bidtime timestamp, price numeric(10,2), item text, supplier_id text);
INSERT INTO bid VALUES
  ('2020-04-15 08:05', 4.00, 'A', 'supplier1'), ('2020-04-15 08:06', 4.00, 'C', 'supplier2'),
  ('2020-04-15 08:07', 2.00, 'G', 'supplier1'), ('2020-04-15 08:08', 2.00, 'B', 'supplier3'),
  ('2020-04-15 08:09', 5.00, 'D', 'supplier4'), ('2020-04-15 08:11', 2.00, 'B', 'supplier3'),
  ('2020-04-15 08:13', 1.00, 'E', 'supplier1'), ('2020-04-15 08:15', 3.00, 'H', 'supplier2'),
  ('2020-04-15 08:17', 6.00, 'F', 'supplier5');

\echo
\echo '== Window Top-N ==  Flink: ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) ... WHERE rownum <= 3'
\echo '   the top 3 suppliers of each 10-minute window by the sum of their prices'
SELECT * FROM (
  SELECT *, row_number() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) AS rownum
    FROM (SELECT window_start, window_end, supplier_id, sum(price) AS price, count(*) AS cnt
            FROM bid, tumble(bidtime, interval '10 minutes')
           GROUP BY window_start, window_end, supplier_id) a) r
WHERE rownum <= 3 ORDER BY window_start, rownum;
\echo '-- ... run by WindowTopN: 3 rows kept per window, no sort of every row'
EXPLAIN (COSTS OFF)
SELECT * FROM (
  SELECT *, row_number() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) AS rownum
    FROM (SELECT window_start, window_end, supplier_id, sum(price) AS price, count(*) AS cnt
            FROM bid, tumble(bidtime, interval '10 minutes')
           GROUP BY window_start, window_end, supplier_id) a) r
WHERE rownum <= 3;

\echo
\echo '== Window Deduplication ==  the last bid of each window (ORDER BY bidtime DESC, rn = 1)'
SELECT * FROM (
  SELECT bidtime, price, item, supplier_id, window_start, window_end,
         row_number() OVER (PARTITION BY window_start, window_end ORDER BY bidtime DESC) AS rownum
    FROM bid, tumble(bidtime, interval '10 minutes')) r
WHERE rownum = 1 ORDER BY window_start;
\echo '-- rank() and dense_rank() keep ties at the boundary'
SELECT * FROM (
  SELECT item, price, window_start, rank() OVER (PARTITION BY window_start ORDER BY price DESC) AS r
    FROM bid, tumble(bidtime, interval '10 minutes')) r
WHERE r <= 2 ORDER BY window_start, r, item;
DROP TABLE bid;
