-- Schema and reference results for test/hardening/concurrency.sh: one view
-- per windowjoin feature, sized so that the planner picks windowjoin's node
-- on cost, the node checked with EXPLAIN, and the digest of each view's
-- rows computed once in this single session (table wj_ref).
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS windowjoin;
SET TimeZone = 'UTC';
ALTER DATABASE :"DBNAME" SET TimeZone = 'UTC';

CREATE TABLE bids AS
SELECT timestamp '2024-01-01' + (g * 4.321 + (g * 7919) % 97) * interval '1 second' AS bidtime,
       ((g * 7919) % 10000) / 100.0 AS price, g % 13 AS item
FROM generate_series(1, 20000) g;
CREATE TABLE sa AS
SELECT g % 20 AS dev, timestamp '2024-01-01' + g * interval '1.7 seconds' AS t, g AS v
FROM generate_series(1, 20000) g;
CREATE TABLE sb AS
SELECT g % 20 AS dev, timestamp '2024-01-01' + g * interval '2.3 seconds' AS t, g AS v
FROM generate_series(1, 15000) g;
CREATE TABLE orders AS
SELECT g AS order_id, 'C' || (g % 50) AS currency, g % 997 AS amount,
       timestamp '2024-01-01' + g * interval '3.1 seconds' AS order_time
FROM generate_series(1, 20000) g;
-- version times are distinct per currency (no ties: the chosen version
-- never depends on the plan)
CREATE TABLE rates AS
SELECT 'C' || (g % 50) AS currency, 1000 + g % 311 AS rate,
       timestamp '2024-01-01' + g * interval '29 seconds' AS update_time
FROM generate_series(1, 2000) g;
ANALYZE;

CREATE VIEW q_tumble AS
SELECT item, window_start, window_end, count(*) AS n, sum(price) AS total
FROM bids, tumble(bidtime, interval '10 minutes')
GROUP BY item, window_start, window_end;
CREATE VIEW q_hop AS
SELECT window_start, window_end, count(*) AS n, sum(price) AS total
FROM bids, hop(bidtime, interval '1 minute', interval '10 minutes')
GROUP BY window_start, window_end;
CREATE VIEW q_cumulate AS
SELECT window_start, window_end, count(*) AS n, max(price) AS top
FROM bids, cumulate(bidtime, interval '5 minutes', interval '1 hour')
GROUP BY window_start, window_end;
CREATE VIEW q_session AS
SELECT item, (w).window_start, (w).window_end, count(*) AS n, sum(price) AS total
FROM (SELECT *, session(bidtime, interval '60 seconds')
                OVER (PARTITION BY item ORDER BY bidtime) AS w FROM bids) s
GROUP BY item, (w).window_start, (w).window_end;
CREATE VIEW q_window_join AS
SELECT L.dev, L.window_start, L.window_end, L.v AS lv, R.v AS rv
FROM (SELECT * FROM sa, hop(t, interval '1 minute', interval '2 minutes')) L
JOIN (SELECT * FROM sb, hop(t, interval '1 minute', interval '2 minutes')) R
  ON L.dev = R.dev AND L.window_start = R.window_start AND L.window_end = R.window_end;
CREATE VIEW q_interval_join AS
SELECT a.dev, a.v AS av, b.v AS bv
FROM sa a LEFT JOIN sb b
  ON a.dev = b.dev AND b.t BETWEEN a.t - interval '30 seconds' AND a.t + interval '30 seconds';
CREATE VIEW q_asof_join AS
SELECT o.order_id, o.amount * r.rate AS amount_rated
FROM orders o LEFT JOIN LATERAL (
  SELECT rate FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC LIMIT 1) r ON true;

-- The node each view must use (with every setting at its default)
CREATE TABLE wj_expect (name text PRIMARY KEY, node text);
INSERT INTO wj_expect VALUES
  ('tumble', 'Custom Scan (TumbleAgg)'),
  ('hop', 'Custom Scan (WindowExpand)'),
  ('cumulate', 'Custom Scan (WindowExpand)'),
  ('session', 'GroupAggregate'),
  ('window_join', 'Custom Scan (WindowJoin)'),
  ('interval_join', 'Custom Scan (IntervalJoin)'),
  ('asof_join', 'Custom Scan (AsOfJoin)');
SET client_min_messages = notice;
DO $$
DECLARE e record; line text; found boolean;
BEGIN
  FOR e IN SELECT * FROM wj_expect ORDER BY name LOOP
    found := false;
    FOR line IN EXECUTE format('EXPLAIN (COSTS OFF) SELECT * FROM q_%s', e.name) LOOP
      found := found OR line LIKE '%' || e.node || '%';
    END LOOP;
    IF NOT found THEN
      RAISE EXCEPTION 'the plan of q_% does not use %', e.name, e.node;
    END IF;
    RAISE NOTICE 'q_% uses %', e.name, e.node;
  END LOOP;
END $$;
SET client_min_messages = warning;

-- Reference digests, computed here in one session: md5 of the view's rows
-- as text, sorted (a total order, so independent of the plan's row order)
CREATE TABLE wj_ref (name text PRIMARY KEY, nrows bigint, digest text);
DO $$
DECLARE e record;
BEGIN
  FOR e IN SELECT name FROM wj_expect LOOP
    EXECUTE format('INSERT INTO wj_ref SELECT %L, count(*), md5(string_agg(q::text, %L ORDER BY q::text)) FROM q_%s q',
                   e.name, E'\n', e.name);
  END LOOP;
END $$;
-- and the same digests with every windowjoin node off: PostgreSQL's plans
-- give the same rows
SET windowjoin.enable_window_join = off;
SET windowjoin.enable_interval_join = off;
SET windowjoin.enable_asof_join = off;
SET windowjoin.enable_window_aggregate = off;
DO $$
DECLARE e record; d text;
BEGIN
  FOR e IN SELECT * FROM wj_ref LOOP
    EXECUTE format('SELECT md5(string_agg(q::text, %L ORDER BY q::text)) FROM q_%s q', E'\n', e.name) INTO d;
    IF d IS DISTINCT FROM e.digest THEN
      RAISE EXCEPTION 'q_% gives different rows with windowjoin''s nodes off', e.name;
    END IF;
  END LOOP;
END $$;
RESET ALL;
SELECT name, nrows, digest FROM wj_ref ORDER BY name;
