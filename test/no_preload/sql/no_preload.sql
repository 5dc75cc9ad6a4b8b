--
-- Without shared_preload_libraries the extension still works: the functions
-- load the library on first use; joins are planned by PostgreSQL alone until
-- then.  Run by scripts/test in a cluster that does not preload windowjoin.
--
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
SHOW shared_preload_libraries;
CREATE TABLE bid (bidtime timestamp, price numeric(10,2), item text);
INSERT INTO bid VALUES
  ('2020-04-15 08:05', 4.00, 'C'), ('2020-04-15 08:07', 2.00, 'A'),
  ('2020-04-15 08:09', 5.00, 'D'), ('2020-04-15 08:11', 3.00, 'B'),
  ('2020-04-15 08:13', 1.00, 'E'), ('2020-04-15 08:17', 6.00, 'F');
-- no windowjoin GUCs yet in this backend: the library is not loaded
SELECT count(*) AS windowjoin_gucs FROM pg_settings WHERE name LIKE 'windowjoin.%';
SELECT window_start, window_end, sum(price) AS total_price
FROM bid, hop(bidtime, interval '5 minutes', interval '10 minutes')
GROUP BY window_start, window_end ORDER BY window_start;
SELECT bidtime, (w).window_start, (w).window_end
FROM (SELECT *, session(bidtime, interval '3 minutes') OVER (ORDER BY bidtime) AS w FROM bid) s
ORDER BY bidtime;
-- now loaded by the first call: its settings exist
SELECT name, setting FROM pg_settings WHERE name LIKE 'windowjoin.%' ORDER BY name;
DROP TABLE bid;
