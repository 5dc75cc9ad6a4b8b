-- Source database for test/hardening/dump_restore.sh: views and
-- materialized views over every windowjoin feature.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
CREATE EXTENSION windowjoin;
CREATE SCHEMA ts;
CREATE TABLE ts.bid (bidtime timestamp, bidtz timestamptz, price numeric(10,2), item text);
INSERT INTO ts.bid
SELECT timestamp '2020-04-15 08:00' + g * interval '37 seconds',
       timestamptz '2020-04-15 08:00+09' + g * interval '41 seconds',
       (g % 17)::numeric, chr(65 + g % 5)
FROM generate_series(1, 3000) g;
INSERT INTO ts.bid VALUES (NULL, NULL, 1, 'Z');
CREATE TABLE ts.orders (order_id int, currency text, amount numeric, order_time timestamptz);
INSERT INTO ts.orders SELECT g, (ARRAY['USD','EUR','JPY'])[1 + g % 3], g,
  timestamptz '2024-01-01' + g * interval '5 minutes' FROM generate_series(1, 2000) g;
CREATE TABLE ts.rates (currency text, rate numeric, update_time timestamptz);
INSERT INTO ts.rates SELECT (ARRAY['USD','EUR','JPY'])[1 + g % 3], 1000 + g,
  timestamptz '2024-01-01' + g * interval '17 minutes' FROM generate_series(1, 800) g;
CREATE TABLE ts.sa (dev int, t timestamp, v float8);
CREATE TABLE ts.sb (dev int, t timestamp, v float8);
INSERT INTO ts.sa SELECT g % 5, timestamp '2024-01-01' + g * interval '1 second', g FROM generate_series(1, 3000) g;
INSERT INTO ts.sb SELECT g % 5, timestamp '2024-01-01' + g * interval '1.3 second', g FROM generate_series(1, 3000) g;

-- windows, with positional and named arguments (the quoted "offset")
CREATE VIEW ts.v_tumble AS
SELECT * FROM ts.bid, tumble(bidtime, interval '10 minutes');
CREATE VIEW ts.v_tumble_named AS
SELECT item, window_start, window_end, window_time, sum(price) AS total
FROM ts.bid, tumble(ts => bidtz, size => interval '10 minutes', "offset" => interval '-3 minutes')
GROUP BY item, window_start, window_end, window_time;
CREATE VIEW ts.v_hop AS
SELECT window_start, window_end, sum(price) AS total, count(*) AS n
FROM ts.bid, hop(bidtime, interval '5 minutes', interval '10 minutes', interval '1 minute')
GROUP BY window_start, window_end;
CREATE VIEW ts.v_cumulate AS
SELECT window_start, window_end, window_time, max(price) AS top
FROM ts.bid, cumulate(bidtz, interval '2 minutes', interval '10 minutes')
GROUP BY window_start, window_end, window_time;
CREATE VIEW ts.v_session AS
SELECT item, (w).window_start, (w).window_end, (w).window_time, count(*) AS n
FROM (SELECT *, session(bidtime, interval '2 minutes') OVER (PARTITION BY item ORDER BY bidtime) AS w
      FROM ts.bid) s
GROUP BY item, (w).window_start, (w).window_end, (w).window_time;
CREATE VIEW ts.v_session_rows AS
SELECT bidtime, item, session(bidtz, interval '90 seconds') OVER w AS sw
FROM ts.bid WINDOW w AS (PARTITION BY item ORDER BY bidtz);
-- the join idioms
CREATE VIEW ts.v_window_join AS
SELECT L.dev, L.v AS lv, R.v AS rv, COALESCE(L.window_start, R.window_start) AS window_start
FROM (SELECT * FROM ts.sa, hop(t, interval '1 minute', interval '2 minutes')) L
FULL JOIN (SELECT * FROM ts.sb, hop(t, interval '1 minute', interval '2 minutes')) R
  ON L.dev = R.dev AND L.window_start = R.window_start AND L.window_end = R.window_end;
CREATE VIEW ts.v_window_semi AS
SELECT * FROM (SELECT * FROM ts.sa, tumble(t, interval '5 seconds')) L
WHERE NOT EXISTS (
  SELECT 1 FROM (SELECT * FROM ts.sb, tumble(t, interval '5 seconds')) R
  WHERE L.dev = R.dev AND L.window_start = R.window_start AND L.window_end = R.window_end);
CREATE VIEW ts.v_interval_join AS
SELECT a.dev, a.t AS at, b.t AS bt, a.v * b.v AS vv
FROM ts.sa a LEFT JOIN ts.sb b
  ON a.dev = b.dev AND b.t BETWEEN a.t - interval '2 seconds' AND a.t + interval '2 seconds';
CREATE VIEW ts.v_asof_join AS
SELECT o.order_id, o.amount * r.rate AS amount_rated
FROM ts.orders o LEFT JOIN LATERAL (
  SELECT rate FROM ts.rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
    AND r.update_time > o.order_time - interval '1 hour'
  ORDER BY r.update_time DESC LIMIT 1) r ON true;
-- materialized views
CREATE MATERIALIZED VIEW ts.m_hop AS SELECT * FROM ts.v_hop;
CREATE MATERIALIZED VIEW ts.m_session AS
SELECT item, (w).window_start, count(*) AS n
FROM (SELECT *, session(bidtime, interval '5 minutes') OVER (PARTITION BY item ORDER BY bidtime) AS w
      FROM ts.bid) s
GROUP BY item, (w).window_start;
CREATE MATERIALIZED VIEW ts.m_asof AS SELECT * FROM ts.v_asof_join;
CREATE MATERIALIZED VIEW ts.m_window_join AS SELECT * FROM ts.v_window_join;
CREATE MATERIALIZED VIEW ts.m_cumulate_unpopulated AS SELECT * FROM ts.v_cumulate WITH NO DATA;
ANALYZE;
