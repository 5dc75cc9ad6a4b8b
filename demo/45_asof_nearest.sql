-- windowjoin demo 45: the as-of join's nearest direction.  Each order is
-- converted with the rate version closest to its time, before or after
-- (pandas merge_asof(direction='nearest')), written with btree_gist's
-- distance operator; then a tolerance, and PostgreSQL's own plan for
-- comparison.  See docs/asof-nearest.md.
--
-- Runs in a database where CREATE EXTENSION windowjoin was done, with
-- shared_preload_libraries = 'windowjoin'.  Uses temporary tables only;
-- creates the btree_gist extension (contrib) if it is missing.
\set ON_ERROR_STOP on
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
CREATE EXTENSION IF NOT EXISTS btree_gist;

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
  (6, 'USD',    3, '2024-01-01 10:30:00'),
  (7, 'GBP',    1, '2024-01-01 12:00:00'),
  (8, 'JPY',  500, '2024-01-01 08:00:00');
ANALYZE rates;
ANALYZE orders;

\echo
\echo '== nearest rate version, before or after the order =='
\echo '   pandas: merge_asof(orders, rates, left_on=''order_time'', right_on=''update_time'','
\echo '                      by=''currency'', direction=''nearest'')'
\echo '   order 1 (08:59:59) takes the 09:00 rate that came a second later;'
\echo '   order 6 (10:30) is halfway between 10:00 and 11:00: the earlier version wins;'
\echo '   order 7 has no GBP rate: NULLs (LEFT join)'
SELECT o.order_id, o.currency, o.order_time, r.rate, r.update_time,
       r.update_time - o.order_time AS version_minus_order
FROM orders o
LEFT JOIN LATERAL (
  SELECT rate, update_time FROM rates r
  WHERE r.currency = o.currency
  ORDER BY r.update_time <-> o.order_time
  LIMIT 1) r ON true
ORDER BY o.order_id;

\echo '== with a tolerance: at most 45 minutes before or 5 minutes after the order =='
\echo '   pandas has one symmetric tolerance; here each side has its own bound'
SELECT o.order_id, o.currency, o.order_time, r.rate, r.update_time
FROM orders o
LEFT JOIN LATERAL (
  SELECT rate, update_time FROM rates r
  WHERE r.currency = o.currency
    AND r.update_time BETWEEN o.order_time - interval '45 minutes'
                          AND o.order_time + interval '5 minutes'
  ORDER BY r.update_time <-> o.order_time
  LIMIT 1) r ON true
ORDER BY o.order_id;

\echo '== backward, forward and nearest side by side =='
SELECT o.order_id, o.order_time, b.rate AS backward, f.rate AS forward, n.rate AS nearest
FROM orders o
LEFT JOIN LATERAL (SELECT rate FROM rates r WHERE r.currency = o.currency
                     AND r.update_time <= o.order_time
                   ORDER BY r.update_time DESC LIMIT 1) b ON true
LEFT JOIN LATERAL (SELECT rate FROM rates r WHERE r.currency = o.currency
                     AND r.update_time >= o.order_time
                   ORDER BY r.update_time LIMIT 1) f ON true
LEFT JOIN LATERAL (SELECT rate FROM rates r WHERE r.currency = o.currency
                   ORDER BY r.update_time <-> o.order_time LIMIT 1) n ON true
ORDER BY o.order_id;

\echo '== the plan: Custom Scan (AsOfJoin), Direction: nearest, no index on rates =='
\echo '   (for eight orders PostgreSQL rightly prefers its nested loop; nested loops are'
\echo '   switched off here only to show the node on the lab data)'
SET enable_nestloop = off;
EXPLAIN (COSTS OFF)
SELECT o.order_id, r.rate
FROM orders o
LEFT JOIN LATERAL (
  SELECT rate FROM rates r
  WHERE r.currency = o.currency
  ORDER BY r.update_time <-> o.order_time
  LIMIT 1) r ON true;

\echo '== PostgreSQL''s own plan (windowjoin.enable_asof_join = off): a KNN scan per order'
\echo '   over a GiST index on (currency, update_time) =='
CREATE INDEX ON rates USING gist (currency, update_time);
RESET enable_nestloop;
SET windowjoin.enable_asof_join = off;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF)
SELECT o.order_id, r.rate
FROM orders o
LEFT JOIN LATERAL (
  SELECT rate FROM rates r
  WHERE r.currency = o.currency
  ORDER BY r.update_time <-> o.order_time
  LIMIT 1) r ON true;
RESET enable_seqscan;

\echo '== same rows with the node and with PostgreSQL''s plan (no ties in these data but'
\echo '   order 6, where PostgreSQL may return either version; it is left out) =='
CREATE TEMP TABLE without_node AS
SELECT o.order_id, r.rate FROM orders o
LEFT JOIN LATERAL (
  SELECT rate FROM rates r WHERE r.currency = o.currency
  ORDER BY r.update_time <-> o.order_time LIMIT 1) r ON true
WHERE o.order_id <> 6;
RESET windowjoin.enable_asof_join;
SET enable_nestloop = off;
CREATE TEMP TABLE with_node AS
SELECT o.order_id, r.rate FROM orders o
LEFT JOIN LATERAL (
  SELECT rate FROM rates r WHERE r.currency = o.currency
  ORDER BY r.update_time <-> o.order_time LIMIT 1) r ON true
WHERE o.order_id <> 6;
RESET enable_nestloop;
SELECT NOT EXISTS (SELECT * FROM with_node EXCEPT SELECT * FROM without_node)
   AND NOT EXISTS (SELECT * FROM without_node EXCEPT SELECT * FROM with_node)
       AS same_rows;

DROP TABLE with_node, without_node;
DROP TABLE rates, orders;
