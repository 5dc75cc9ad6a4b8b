-- windowjoin on Citus (scripts/citus): the tables of every case, created
-- as plain tables in schema loc.  distribute.sql copies them into schema
-- dist and distributes them there; the cases run unchanged in either
-- schema (search_path), so each distributed result has a local oracle.
--
-- The example tables are those of demo/*.sql and sql/*.sql; the g_*
-- tables are a generated data set of :rows rows per table, reproducible
-- (setseed) and read only through loc.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
CREATE SCHEMA loc;
SET search_path = loc;

-- tumble / hop / cumulate (demo/10)
CREATE TABLE bid (bidtime timestamp, price numeric(10,2), item text);
INSERT INTO bid VALUES
  ('2020-04-15 08:05', 4.00, 'C'), ('2020-04-15 08:07', 2.00, 'A'),
  ('2020-04-15 08:09', 5.00, 'D'), ('2020-04-15 08:11', 3.00, 'B'),
  ('2020-04-15 08:13', 1.00, 'E'), ('2020-04-15 08:17', 6.00, 'F');

-- session (demo/20)
CREATE TABLE bid_s (bidtime timestamp, price numeric(10,2), item text);
INSERT INTO bid_s VALUES
  ('2020-04-15 08:07', 4.00, 'A'), ('2020-04-15 08:06', 2.00, 'A'),
  ('2020-04-15 08:09', 5.00, 'B'), ('2020-04-15 08:08', 3.00, 'A'),
  ('2020-04-15 08:17', 1.00, 'B');

-- window joins (demo/50, sql/window_join.sql)
CREATE TABLE left_table (row_time timestamp, num int, id text);
CREATE TABLE right_table (row_time timestamp, num int, id text);
INSERT INTO left_table VALUES
  ('2020-04-15 12:02', 1, 'L1'), ('2020-04-15 12:06', 2, 'L2'), ('2020-04-15 12:03', 3, 'L3');
INSERT INTO right_table VALUES
  ('2020-04-15 12:01', 2, 'R2'), ('2020-04-15 12:04', 3, 'R3'), ('2020-04-15 12:05', 4, 'R4');

-- interval joins (demo/30, sql/interval_join.sql)
CREATE TABLE orders (order_id int PRIMARY KEY, order_time timestamp, amount numeric);
CREATE TABLE shipments (ship_id int, order_id int, ship_time timestamp,
                        PRIMARY KEY (order_id, ship_id));
INSERT INTO orders VALUES
  (1, '2024-03-01 09:00:00', 100), (2, '2024-03-01 09:30:00', 200),
  (3, '2024-03-01 10:00:00', 300), (4, '2024-03-01 10:30:00', 400),
  (5, '2024-03-01 11:00:00', 500);
INSERT INTO shipments VALUES
  (11, 1, '2024-03-01 09:00:00'), (12, 2, '2024-03-01 11:30:00'),
  (13, 3, '2024-03-01 12:00:01'), (15, 5, '2024-03-02 08:00:00');
CREATE TABLE sensor_a AS SELECT i % 4 AS dev, timestamp '2024-01-01' + i * interval '1 second' AS t, i AS v
  FROM generate_series(1, 20000) i;
CREATE TABLE sensor_b AS SELECT i % 4 AS dev, timestamp '2024-01-01' + i * interval '1 second' + interval '0.5 second' AS t, i AS v
  FROM generate_series(1, 20000) i;

-- as-of joins (demo/40, sql/asof_join.sql): rates is distributed as a
-- reference table, rates_c co-located with orders_c on currency
CREATE TABLE rates (currency text, rate numeric, update_time timestamp);
CREATE TABLE fx_orders (order_id int, currency text, amount numeric, order_time timestamp);
INSERT INTO rates VALUES
  ('USD', 1300, '2024-01-01 09:00:00'), ('USD', 1310, '2024-01-01 10:00:00'),
  ('USD', 1320, '2024-01-01 11:00:00'), ('EUR', 1400, '2024-01-01 09:30:00'),
  ('EUR', 1410, '2024-01-01 10:30:00'), ('JPY', 9.0,  '2024-01-01 09:00:00'),
  ('JPY', 9.1,  '2024-01-01 12:00:00');
INSERT INTO fx_orders VALUES
  (1, 'USD',   10, '2024-01-01 08:59:59'), (2, 'USD',   20, '2024-01-01 10:00:00'),
  (3, 'EUR',    5, '2024-01-01 10:29:59'), (4, 'JPY', 1000, '2024-01-01 11:00:00'),
  (5, 'EUR',    7, '2024-01-01 11:00:00'), (6, 'USD',    3, '2024-01-01 12:00:00'),
  (7, 'GBP',    1, '2024-01-01 12:00:00'), (8, 'JPY',  500, '2024-01-01 08:00:00');
CREATE TABLE rates_c AS SELECT * FROM rates;
CREATE TABLE fx_orders_c AS SELECT * FROM fx_orders;

-- the generated data set: one day of events
SELECT setseed(0.16);
-- bids, about a thousand per item
CREATE TABLE g_bid AS
SELECT timestamp '2024-01-01' + (random() * 86400 * 1e6)::bigint * interval '1 microsecond' AS bidtime,
       (random() * 100)::numeric(10,2) AS price,
       'item' || (random() * greatest(:rows / 1000, 10))::int AS item
FROM generate_series(1, :rows) i;
-- two streams for window joins, about a hundred rows per key and side
CREATE TABLE g_left AS
SELECT timestamp '2024-01-01' + (random() * 86400)::int * interval '1 second' AS row_time,
       (random() * greatest(:rows / 100, 1))::int AS num, 'L' || i AS id
FROM generate_series(1, :rows) i;
CREATE TABLE g_right AS
SELECT timestamp '2024-01-01' + (random() * 86400)::int * interval '1 second' AS row_time,
       (random() * greatest(:rows / 100, 1))::int AS num, 'R' || i AS id
FROM generate_series(1, :rows) i;
-- two sensor streams of 100 devices for interval joins, b half a second
-- after a, both with jitter
CREATE TABLE g_sensor_a AS
SELECT i % 100 AS dev,
       timestamp '2024-01-01' + (i * 86400.0 / :rows + random()) * interval '1 second' AS t, i AS v
FROM generate_series(1, :rows) i;
CREATE TABLE g_sensor_b AS
SELECT i % 100 AS dev,
       timestamp '2024-01-01' + (i * 86400.0 / :rows + 0.5 + random()) * interval '1 second' AS t, i AS v
FROM generate_series(1, :rows) i;
-- rate versions for 100 currencies and orders to convert
CREATE TABLE g_rates AS
SELECT 'C' || (random() * 99)::int AS currency,
       (random() * 1000)::numeric(10,2) AS rate,
       timestamp '2024-01-01' + (random() * 86400 * 1e6)::bigint * interval '1 microsecond' AS update_time
FROM generate_series(1, greatest(:rows / 10, 100)) i;
CREATE TABLE g_fx_orders AS
SELECT i AS order_id, 'C' || (random() * 99)::int AS currency,
       (random() * 100)::numeric(10,2) AS amount,
       timestamp '2024-01-01' + (random() * 86400 * 1e6)::bigint * interval '1 microsecond' AS order_time
FROM generate_series(1, :rows) i;
-- copies distributed on another column: joins that are not co-located
CREATE TABLE g_right_x AS SELECT * FROM g_right;
CREATE TABLE g_sensor_bx AS SELECT * FROM g_sensor_b;
CREATE TABLE g_rates_c AS SELECT * FROM g_rates;
CREATE TABLE g_fx_orders_c AS SELECT * FROM g_fx_orders;
CREATE INDEX ON g_rates (currency, update_time);
CREATE INDEX ON g_rates_c (currency, update_time);
ANALYZE;
