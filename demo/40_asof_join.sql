-- windowjoin demo 40: event-time temporal ("as-of") join: orders
-- converted with the exchange rate that was valid at the order's time, and
-- what a regular join with the deduplicated "latest rate" view gives instead.
--
-- Runs in a database where CREATE EXTENSION windowjoin was done, with
-- shared_preload_libraries = 'windowjoin'.  Uses temporary tables only.
\set ON_ERROR_STOP on
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';

CREATE TEMP TABLE rates (currency text, rate numeric, update_time timestamp);
CREATE TEMP TABLE orders (order_id int, currency text, amount numeric,
                          order_time timestamp);
INSERT INTO rates VALUES
  ('USD', 1300, '2024-01-01 09:00:00'),
  ('USD', 1310, '2024-01-01 10:00:00'),
  ('USD', 1320, '2024-01-01 11:00:00'),
  ('EUR', 1400, '2024-01-01 09:30:00'),
  ('EUR', 1410, '2024-01-01 10:30:00'),
  ('JPY', 9.0,  '2024-01-01 09:00:00'),
  ('JPY', 9.1,  '2024-01-01 12:00:00');
INSERT INTO orders VALUES
  (1, 'USD',   10, '2024-01-01 08:59:59'),
  (2, 'USD',   20, '2024-01-01 10:00:00'),
  (3, 'EUR',    5, '2024-01-01 10:29:59'),
  (4, 'JPY', 1000, '2024-01-01 11:00:00'),
  (5, 'EUR',    7, '2024-01-01 11:00:00'),
  (6, 'USD',    3, '2024-01-01 12:00:00'),
  (7, 'GBP',    1, '2024-01-01 12:00:00'),
  (8, 'JPY',  500, '2024-01-01 08:00:00');
ANALYZE rates;
ANALYZE orders;

\echo
\echo '== rates (the version history) =='
SELECT currency, rate, update_time FROM rates ORDER BY currency, update_time;
\echo '== orders =='
SELECT * FROM orders ORDER BY order_id;

\echo '== temporal join: each order with the rate valid at order_time =='
\echo '   (Flink: JOIN rates_v FOR SYSTEM_TIME AS OF o.order_time AS r ON o.currency = r.currency)'
\echo '   order 2 was placed in the same second as a rate change: it gets the new rate (<=);'
\echo '   orders 1 and 8 come before their first rate and order 7 has no rate: they drop out.'
SELECT o.order_id, o.currency, o.order_time, r.rate, r.update_time,
       o.amount * r.rate AS amount_krw
FROM orders o
JOIN LATERAL (
  SELECT rate, update_time FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC
  LIMIT 1) r ON true
ORDER BY o.order_id;

\echo '== LEFT variant: orders without a valid rate are kept, with NULLs =='
SELECT o.order_id, o.currency, o.order_time, r.rate, r.update_time
FROM orders o
LEFT JOIN LATERAL (
  SELECT rate, update_time FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC
  LIMIT 1) r ON true
ORDER BY o.order_id;

\echo '== the deduplicated latest-rate view (row_number() ... = 1) =='
CREATE TEMP VIEW rates_v AS
SELECT currency, rate, update_time
FROM (SELECT *, row_number() OVER (PARTITION BY currency
                                   ORDER BY update_time DESC) AS rn
      FROM rates) t
WHERE rn = 1;
SELECT * FROM rates_v ORDER BY currency;

\echo '== totals: temporal join vs regular join with the latest-rate view =='
\echo '   the regular join converts every order with the latest rate, so the totals differ'
SELECT 'temporal join (rate at order time)' AS join_kind,
       sum(o.amount * r.rate) AS total_krw,
       sum(o.amount * r.rate) FILTER (WHERE o.currency = 'USD') AS usd_total_krw
FROM orders o
JOIN LATERAL (
  SELECT rate FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC
  LIMIT 1) r ON true
UNION ALL
SELECT 'regular join (latest rate view)',
       sum(o.amount * v.rate),
       sum(o.amount * v.rate) FILTER (WHERE o.currency = 'USD')
FROM orders o JOIN rates_v v ON v.currency = o.currency;

\echo '== the plan: Custom Scan (AsOfJoin) =='
\echo '   (for eight orders PostgreSQL rightly prefers its nested loop; nested loops are'
\echo '   switched off here only to show the node on the example data)'
SET enable_nestloop = off;
EXPLAIN (COSTS OFF)
SELECT o.order_id, o.amount * r.rate AS amount_krw
FROM orders o
JOIN LATERAL (
  SELECT rate FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC
  LIMIT 1) r ON true;

\echo '== what the node keeps (EXPLAIN ANALYZE): the lookup strategy holds the versions'
\echo '   (bounded by work_mem * hash_mem_multiplier), the sweep one version per currency =='
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT o.order_id, o.amount * r.rate AS amount_krw
FROM orders o
JOIN LATERAL (
  SELECT rate FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC
  LIMIT 1) r ON true;

\echo '== same rows with the node and with PostgreSQL''s plan (windowjoin.enable_asof_join) =='
CREATE TEMP TABLE with_node AS
SELECT o.order_id, r.rate FROM orders o
LEFT JOIN LATERAL (
  SELECT rate FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC LIMIT 1) r ON true;
SET windowjoin.enable_asof_join = off;
RESET enable_nestloop;
CREATE TEMP TABLE without_node AS
SELECT o.order_id, r.rate FROM orders o
LEFT JOIN LATERAL (
  SELECT rate FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC LIMIT 1) r ON true;
RESET windowjoin.enable_asof_join;
SELECT NOT EXISTS (SELECT * FROM with_node EXCEPT SELECT * FROM without_node)
   AND NOT EXISTS (SELECT * FROM without_node EXCEPT SELECT * FROM with_node)
       AS same_rows;

DROP TABLE with_node, without_node;
DROP VIEW rates_v;
DROP TABLE rates, orders;
