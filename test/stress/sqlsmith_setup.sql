-- Schema for the random-SQL stress run (scripts/stress): every windowjoin
-- feature appears in a table or view, so sqlsmith composes queries over them.
CREATE EXTENSION windowjoin;
CREATE TABLE bid (bidtime timestamp, price numeric(10,2), item text);
INSERT INTO bid SELECT timestamp '2020-04-15 08:00' + g * interval '37 seconds', (g % 17)::numeric, chr(65 + g % 5) FROM generate_series(1, 300) g;
INSERT INTO bid VALUES (NULL, 1, 'Z');
CREATE TABLE orders (order_id int, currency text, amount numeric, order_time timestamptz);
INSERT INTO orders SELECT g, (ARRAY['USD','EUR','JPY'])[1 + g % 3], g, timestamptz '2024-01-01' + g * interval '5 minutes' FROM generate_series(1, 200) g;
CREATE TABLE rates (currency text, rate numeric, update_time timestamptz);
INSERT INTO rates SELECT (ARRAY['USD','EUR','JPY'])[1 + g % 3], 1000 + g, timestamptz '2024-01-01' + g * interval '17 minutes' FROM generate_series(1, 80) g;
CREATE TABLE sa (dev int, t timestamp, v float8);
CREATE TABLE sb (dev int, t timestamp, v float8);
INSERT INTO sa SELECT g % 5, timestamp '2024-01-01' + g * interval '1 second', g FROM generate_series(1, 300) g;
INSERT INTO sb SELECT g % 5, timestamp '2024-01-01' + g * interval '1.3 second', g FROM generate_series(1, 300) g;
CREATE VIEW bid_tumble AS SELECT * FROM bid, tumble(bidtime, interval '10 minutes');
CREATE VIEW bid_hop AS SELECT * FROM bid, hop(bidtime, interval '5 minutes', interval '10 minutes');
CREATE VIEW bid_cum AS SELECT * FROM bid, cumulate(bidtime, interval '2 minutes', interval '10 minutes');
CREATE VIEW bid_sess AS SELECT *, session(bidtime, interval '5 minutes') OVER (PARTITION BY item ORDER BY bidtime) AS w FROM bid;
CREATE VIEW asof_v AS SELECT o.*, r.rate FROM orders o LEFT JOIN LATERAL (SELECT rate FROM rates r WHERE r.currency = o.currency AND r.update_time <= o.order_time ORDER BY r.update_time DESC LIMIT 1) r ON true;
CREATE VIEW band_v AS SELECT a.dev, a.t AS at, b.t AS bt, a.v * b.v AS vv FROM sa a LEFT JOIN sb b ON a.dev = b.dev AND b.t BETWEEN a.t - interval '2 seconds' AND a.t + interval '2 seconds';
ANALYZE;
