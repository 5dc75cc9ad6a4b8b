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
CREATE TABLE orders (order_id int, currency text, amount numeric, order_time timestamp);
INSERT INTO orders VALUES
  (1, 'EUR', 2, '2020-04-15 10:15'), (2, 'USD', 1, '2020-04-15 10:30'),
  (3, 'JPY', 50, '2020-04-15 10:32'), (4, 'EUR', 3, '2020-04-15 10:52'),
  (5, 'USD', 5, '2020-04-15 11:04');
CREATE TABLE rates (currency text, rate numeric, update_time timestamp);
INSERT INTO rates VALUES
  ('USD', 102, '2020-04-15 09:00'), ('EUR', 114, '2020-04-15 09:00'),
  ('YEN', 1, '2020-04-15 09:00'), ('EUR', 116, '2020-04-15 10:45'),
  ('EUR', 119, '2020-04-15 11:15'), ('USD', 105, '2020-04-15 11:49');
ANALYZE bid; ANALYZE orders; ANALYZE rates;
-- CREATE TABLE ran the extension's event triggers (continuous views over
-- partitioned tables follow partitions made, attached and dropped), which
-- loaded the library in this backend: what follows runs in a new one
\c
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
-- Joins before the library is loaded: PostgreSQL's own plans (no custom
-- scan can be offered: the planner hook is not installed), correct rows.
-- Planning these does not call any windowjoin C function.
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_nestloop = off;
CREATE VIEW asof_v AS
SELECT o.order_id, o.amount * r.rate AS amount_rated
FROM orders o JOIN LATERAL (
  SELECT rate FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC LIMIT 1) r ON true;
CREATE VIEW band_v AS
SELECT a.item, a.bidtime AS a_time, b.bidtime AS b_time
FROM bid a JOIN bid b ON a.item <> b.item
 AND b.bidtime BETWEEN a.bidtime AND a.bidtime + interval '2 minutes';
EXPLAIN (COSTS OFF) SELECT * FROM asof_v;
SELECT * FROM asof_v ORDER BY order_id;
EXPLAIN (COSTS OFF) SELECT * FROM band_v;
SELECT * FROM band_v ORDER BY a_time, b_time;
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
-- and from now on this session's joins are accelerated: same rows
EXPLAIN (COSTS OFF) SELECT * FROM asof_v;
SELECT * FROM asof_v ORDER BY order_id;
-- the status function says the library is not preloaded, and how to fix it
SELECT * FROM windowjoin_status();

-- A new session: the first call of windowjoin_status() loads the library
\c
SELECT feature, active FROM windowjoin_status() WHERE feature = 'shared_preload_libraries';

-- CREATE EXTENSION (and ALTER EXTENSION ... UPDATE to 0.2) tells how to
-- enable acceleration with a WARNING and a HINT when not preloaded
DROP EXTENSION windowjoin;
CREATE EXTENSION windowjoin;
DROP EXTENSION windowjoin;
CREATE EXTENSION windowjoin VERSION '0.1';
ALTER EXTENSION windowjoin UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'windowjoin';
DROP VIEW asof_v, band_v;
DROP TABLE bid, orders, rates;
