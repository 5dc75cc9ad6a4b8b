-- SESSION windows
CREATE TABLE bid (bidtime timestamp, price numeric(10,2), item text);
INSERT INTO bid VALUES
  ('2020-04-15 08:07', 4.00, 'A'), ('2020-04-15 08:06', 2.00, 'A'),
  ('2020-04-15 08:09', 5.00, 'B'), ('2020-04-15 08:08', 3.00, 'A'),
  ('2020-04-15 08:17', 1.00, 'B');

\echo
\echo '== SESSION ==  Flink: SELECT * FROM SESSION(TABLE Bid PARTITION BY item, DESCRIPTOR(bidtime), INTERVAL ''5'' MINUTES);'
\echo '   windowjoin: session(bidtime, interval ''5 minutes'') OVER (PARTITION BY item ORDER BY bidtime)'
SELECT bidtime, price, item, (w).window_start, (w).window_end, (w).window_time
FROM (SELECT *, session(bidtime, interval '5 minutes')
                  OVER (PARTITION BY item ORDER BY bidtime) AS w FROM bid) s
ORDER BY item, bidtime;
SELECT (w).window_start, (w).window_end, item, sum(price) AS total_price
FROM (SELECT *, session(bidtime, interval '5 minutes')
                  OVER (PARTITION BY item ORDER BY bidtime) AS w FROM bid) s
GROUP BY item, (w).window_start, (w).window_end ORDER BY 1, 3;

\echo '   without partition keys: Flink SESSION(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL ''5'' MINUTES)'
SELECT bidtime, price, item, (w).window_start, (w).window_end, (w).window_time
FROM (SELECT *, session(bidtime, interval '5 minutes') OVER (ORDER BY bidtime) AS w FROM bid) s
ORDER BY bidtime;
SELECT (w).window_start, (w).window_end, sum(price) AS total_price
FROM (SELECT *, session(bidtime, interval '5 minutes') OVER (ORDER BY bidtime) AS w FROM bid) s
GROUP BY (w).window_start, (w).window_end ORDER BY 1;
DROP TABLE bid;
