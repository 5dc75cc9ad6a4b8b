-- Continuous join views (docs/continuous-joins.md): each source has
-- its own change log and watermark; a join row is written once, when both
-- watermarks have passed what can still change it.
SET TimeZone = 'UTC';
CREATE TABLE orders (order_id int, currency text, amount numeric, order_time timestamptz);
CREATE TABLE rates (currency text, rate numeric, update_time timestamptz);
CREATE TABLE shipments (order_id int, ship_time timestamptz);
CREATE INDEX ON orders (order_time);
CREATE INDEX ON rates (update_time);
CREATE INDEX ON rates (currency, update_time);
CREATE INDEX ON shipments (ship_time);
INSERT INTO rates VALUES ('USD', 1.10, '2024-01-01 09:00+00'), ('JPY', 0.0062, '2024-01-01 09:00+00');
INSERT INTO orders VALUES (1, 'USD', 100, '2024-01-01 10:00+00'), (2, 'JPY', 5000, '2024-01-01 10:05+00');

\echo
\echo '== CONTINUOUS AS-OF JOIN ==  an order is final once the rates have passed its time'
SELECT windowjoin.create_view('orders_eur',
  $$SELECT o.order_id, o.order_time, o.amount * r.rate AS amount_eur
      FROM orders o JOIN LATERAL (
        SELECT rate FROM rates r WHERE r.currency = o.currency AND r.update_time <= o.order_time
        ORDER BY r.update_time DESC LIMIT 1) r ON true$$) AS created;
\echo '   the rates stream is at 09:00: no order is final yet'
SELECT name, kind, watermark, left_watermark, right_watermark, rows FROM windowjoin.views;
\echo '   a USD rate at 10:02 moves the rates watermark past order 1 (10:00), not order 2 (10:05)'
INSERT INTO rates VALUES ('USD', 1.12, '2024-01-01 10:02+00');
SELECT windowjoin.refresh('orders_eur');
SELECT order_id, order_time, amount_eur FROM orders_eur ORDER BY order_id;
\echo '   a JPY rate at 10:03 (order 2 was not final: it gets this rate), a USD rate at 10:10'
\echo '   and order 3 at 10:20: both watermarks pass 10:05, order 2 is final'
INSERT INTO rates VALUES ('JPY', 0.0063, '2024-01-01 10:03+00'), ('USD', 1.13, '2024-01-01 10:10+00');
INSERT INTO orders VALUES (3, 'USD', 10, '2024-01-01 10:20+00');
SELECT windowjoin.refresh('orders_eur');
SELECT order_id, order_time, amount_eur FROM orders_eur ORDER BY order_id;

\echo
\echo '== CONTINUOUS INTERVAL JOIN ==  orders shipped within 2 hours; unshipped ones once 2 hours passed'
SELECT windowjoin.create_view('shipped',
  $$SELECT o.order_id, s.ship_time FROM orders o LEFT JOIN shipments s
      ON s.order_id = o.order_id
     AND s.ship_time BETWEEN o.order_time AND o.order_time + interval '2 hours'$$) AS created;
INSERT INTO shipments VALUES (1, '2024-01-01 11:00+00'), (99, '2024-01-01 12:30+00');
SELECT windowjoin.refresh('shipped');
\echo '   orders are at 10:20, shipments at 12:30: orders before min(10:20, 12:30 - 2 hours) are final'
\echo '   (order 1 shipped, order 2 with NULLs); order 3 waits for a later order'
SELECT order_id, ship_time, anchor_time FROM shipped ORDER BY order_id;
SELECT name, kind, join_type, band_lo, band_hi, left_watermark, right_watermark FROM windowjoin.views
 ORDER BY name::text;
SELECT windowjoin.drop_view('orders_eur');
SELECT windowjoin.drop_view('shipped');
DROP TABLE orders, rates, shipments;
