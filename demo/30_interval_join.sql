-- Interval joins: orders and their shipments within 2 hours
CREATE SCHEMA interval_lab;
SET search_path = interval_lab, public;
CREATE TABLE orders (order_id int PRIMARY KEY, order_time timestamp, amount numeric);
CREATE TABLE shipments (ship_id int PRIMARY KEY, order_id int, ship_time timestamp);
INSERT INTO orders VALUES
  (1, '2024-03-01 09:00:00', 100),   -- shipped at once (0 s)
  (2, '2024-03-01 09:30:00', 200),   -- shipped exactly 2 hours later (7200 s)
  (3, '2024-03-01 10:00:00', 300),   -- shipped 2 hours and 1 second later (7201 s)
  (4, '2024-03-01 10:30:00', 400),   -- never shipped
  (5, '2024-03-01 11:00:00', 500);   -- shipped late (next morning)
INSERT INTO shipments VALUES
  (11, 1, '2024-03-01 09:00:00'),
  (12, 2, '2024-03-01 11:30:00'),
  (13, 3, '2024-03-01 12:00:01'),
  (15, 5, '2024-03-02 08:00:00');
ANALYZE orders, shipments;

\echo
\echo '== Interval join ==  Flink:'
\echo '   SELECT o.order_id, s.ship_time FROM orders o, shipments s'
\echo '   WHERE s.order_id = o.order_id'
\echo '     AND s.ship_time BETWEEN o.order_time AND o.order_time + INTERVAL ''2'' HOUR;'
\echo '   windowjoin: the same SQL (JOIN ... ON or WHERE)'
SELECT o.order_id, o.order_time, s.ship_time, s.ship_time - o.order_time AS delay
FROM orders o JOIN shipments s
  ON s.order_id = o.order_id
 AND s.ship_time BETWEEN o.order_time AND o.order_time + interval '2 hours'
ORDER BY o.order_id;

\echo
\echo '== The boundaries ==  BETWEEN includes both ends: 0 s and 7200 s join, 7201 s does not'
SELECT s.ship_id, extract(epoch FROM s.ship_time - o.order_time)::int AS delay_s,
       EXISTS (SELECT FROM shipments s2 JOIN orders o2
                 ON s2.order_id = o2.order_id
                AND s2.ship_time BETWEEN o2.order_time AND o2.order_time + interval '2 hours'
               WHERE s2.ship_id = s.ship_id) AS joins_with_between,
       EXISTS (SELECT FROM shipments s2 JOIN orders o2
                 ON s2.order_id = o2.order_id
                AND s2.ship_time >= o2.order_time AND s2.ship_time < o2.order_time + interval '2 hours'
               WHERE s2.ship_id = s.ship_id) AS joins_with_strict_lt
FROM shipments s JOIN orders o USING (order_id)
ORDER BY s.ship_id;

\echo
\echo '== Outer interval join ==  orders not shipped within 2 hours appear once, with NULLs'
SELECT o.order_id, o.order_time, s.ship_id, s.ship_time
FROM orders o LEFT JOIN shipments s
  ON s.order_id = o.order_id
 AND s.ship_time BETWEEN o.order_time AND o.order_time + interval '2 hours'
ORDER BY o.order_id;

\echo
\echo '== The plan ==  on five rows PostgreSQL''s hash join is cheaper, so the planner keeps it:'
EXPLAIN (COSTS OFF)
SELECT o.order_id, s.ship_time
FROM orders o LEFT JOIN shipments s
  ON s.order_id = o.order_id
 AND s.ship_time BETWEEN o.order_time AND o.order_time + interval '2 hours';
\echo '-- with PostgreSQL''s join methods disabled, the IntervalJoin node runs the same query;'
\echo '-- it keeps only the shipments inside the current band (Peak State Rows):'
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_nestloop = off;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT o.order_id, s.ship_time
FROM orders o LEFT JOIN shipments s
  ON s.order_id = o.order_id
 AND s.ship_time BETWEEN o.order_time AND o.order_time + interval '2 hours';
SELECT o.order_id, s.ship_id, s.ship_time
FROM orders o LEFT JOIN shipments s
  ON s.order_id = o.order_id
 AND s.ship_time BETWEEN o.order_time AND o.order_time + interval '2 hours'
ORDER BY o.order_id;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_nestloop;

\echo
\echo '== A band join where the node wins on cost ==  two sensor streams, 4 devices, +-2 s'
CREATE TABLE sensor_a AS SELECT i % 4 AS dev, timestamp '2024-01-01' + i * interval '1 second' AS t, i AS v
  FROM generate_series(1, 20000) i;
CREATE TABLE sensor_b AS SELECT i % 4 AS dev, timestamp '2024-01-01' + i * interval '1 second' + interval '0.5 second' AS t, i AS v
  FROM generate_series(1, 20000) i;
ANALYZE sensor_a, sensor_b;
EXPLAIN (COSTS OFF)
SELECT count(*), sum(a.v * b.v) FROM sensor_a a JOIN sensor_b b
  ON a.dev = b.dev AND b.t BETWEEN a.t - interval '2 seconds' AND a.t + interval '2 seconds';
SELECT count(*), sum(a.v * b.v) FROM sensor_a a JOIN sensor_b b
  ON a.dev = b.dev AND b.t BETWEEN a.t - interval '2 seconds' AND a.t + interval '2 seconds';
\echo '-- windowjoin.enable_interval_join = off: PostgreSQL''s own plan, same result'
SET windowjoin.enable_interval_join = off;
SELECT count(*), sum(a.v * b.v) FROM sensor_a a JOIN sensor_b b
  ON a.dev = b.dev AND b.t BETWEEN a.t - interval '2 seconds' AND a.t + interval '2 seconds';
RESET windowjoin.enable_interval_join;

RESET search_path;
DROP SCHEMA interval_lab CASCADE;
