--
-- Pane-based aggregation of hop() and cumulate() windows (WindowExpand):
-- the plan shape, and the same rows with windowjoin.enable_window_aggregate
-- on and off for every shape it accepts, plus the ones it must leave alone.
--
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
SET IntervalStyle = 'postgres';
CREATE SCHEMA window_aggregate;
SET search_path = window_aggregate, public;
SET max_parallel_workers_per_gather = 0;
SELECT setseed(0.7);
CREATE TABLE bids AS
SELECT timestamp '2024-01-01' + (random() * 2 * 86400 * 1e6)::bigint * interval '1 microsecond' AS bidtime,
       (random() * 100)::numeric(10,2) AS price,
       (random() * 9)::int AS item
FROM generate_series(1, 20000);
INSERT INTO bids VALUES (NULL, 1.00, 1), ('1969-12-31 23:55:30', 2.00, 2), ('1969-12-31 23:59:59.999999', 3.00, NULL);
ALTER TABLE bids ADD COLUMN bidtz timestamptz;
UPDATE bids SET bidtz = bidtime AT TIME ZONE 'Asia/Seoul';
ANALYZE bids;

\set ECHO none
\i sql/include/helpers.sql
\set ECHO all

-- The plan: partial aggregation per pane, WindowExpand, final aggregation
EXPLAIN (COSTS OFF)
SELECT window_start, window_end, sum(price) FROM bids, hop(bidtime, interval '1 minute', interval '10 minutes')
GROUP BY window_start, window_end;
EXPLAIN (COSTS OFF)
SELECT window_start, window_end, item, count(*) FROM bids, cumulate(bidtime, interval '1 hour', interval '1 day')
GROUP BY window_start, window_end, item;
-- a slide that does not divide the size: panes of gcd(slide, size)
EXPLAIN (COSTS OFF)
SELECT window_start, count(*) FROM bids, hop(bidtime, interval '4 minutes', interval '10 minutes')
GROUP BY window_start;

-- Same rows on and off
SELECT q, wj_test.on_off(q, 'window_aggregate', 'WindowExpand') FROM (VALUES
  ($$SELECT window_start, window_end, sum(price) AS s, count(*) AS c FROM bids, hop(bidtime, interval '1 minute', interval '10 minutes') GROUP BY window_start, window_end$$),
  ($$SELECT window_start, window_end, item, sum(price), avg(price), min(bidtime), max(price), count(item) FROM bids, hop(bidtime, interval '5 minutes', interval '15 minutes') GROUP BY 1, 2, 3$$),
  ($$SELECT window_start, window_end, window_time, count(*) FROM bids, hop(bidtime, interval '4 minutes', interval '10 minutes') GROUP BY 1, 2, 3$$),
  ($$SELECT window_start, count(*) FROM bids, hop(bidtime, interval '7 minutes', interval '3 minutes') GROUP BY 1$$),
  ($$SELECT window_start, sum(price) FROM bids, hop(bidtime, interval '2 minutes', interval '10 minutes', interval '-17 minutes') GROUP BY 1$$),
  ($$SELECT window_end, count(*) FROM bids, hop(bidtime, interval '1 hour', interval '1 day') GROUP BY 1 HAVING count(*) > 9000$$),
  ($$SELECT window_start::date AS d, window_start, sum(price) FROM bids, hop(bidtime, interval '30 minutes', interval '2 hours') GROUP BY window_start$$),
  ($$SELECT window_start, window_end, item, count(*), sum(price) FROM bids, cumulate(bidtime, interval '1 hour', interval '1 day') GROUP BY 1, 2, 3$$),
  ($$SELECT window_end, count(*) FROM bids, cumulate(bidtime, interval '10 minutes', interval '1 hour', interval '5 minutes') GROUP BY 1$$),
  ($$SELECT window_start, window_end, string_agg(item::text, ',' ORDER BY item) FROM bids, hop(bidtime, interval '1 hour', interval '2 hours') WHERE item < 3 GROUP BY 1, 2$$),
  ($$SELECT window_start, count(DISTINCT item) FROM bids, hop(bidtime, interval '1 hour', interval '2 hours') GROUP BY 1$$),
  ($$SELECT window_start, count(*) FROM bids, hop(bidtime, interval '1 hour', interval '2 hours') WHERE window_start > '2024-01-02' GROUP BY 1$$),
  ($$SELECT item, count(*) FROM bids, hop(bidtime, interval '1 hour', interval '2 hours') GROUP BY item$$),
  ($$SELECT window_start, count(*) FROM bids, hop(bidtz, interval '1 hour', interval '3 hours') GROUP BY 1$$),
  ($$SELECT window_start, window_end, count(*) FROM bids, cumulate(bidtz, interval '1 hour', interval '1 day') GROUP BY 1, 2$$)
) AS v(q);

-- Shapes left to PostgreSQL (same rows either way): a condition tying the
-- window to the row, an outer join, an aggregate argument that could fail
-- on rows without a window (nullable time), HOP with gaps
CREATE TABLE items AS SELECT DISTINCT item FROM bids WHERE item IS NOT NULL;
SELECT q, wj_test.on_off(q, 'window_aggregate', 'WindowExpand') FROM (VALUES
  ($$SELECT window_start, count(*) FROM bids, hop(bidtime, interval '1 minute', interval '10 minutes') WHERE window_start = date_trunc('minute', bidtime) GROUP BY window_start$$),
  ($$SELECT window_start, count(*) FROM bids LEFT JOIN LATERAL hop(bidtime, interval '5 minutes', interval '10 minutes') ON true GROUP BY window_start$$),
  ($$SELECT window_start, window_end, count(*) FROM bids LEFT JOIN LATERAL cumulate(bidtime, interval '1 hour', interval '1 day') ON true GROUP BY window_start, window_end$$),
  ($$SELECT window_start, sum(1 / (price * 100)::int) FROM bids, hop(bidtime, interval '1 hour', interval '2 hours') WHERE price > 0 GROUP BY 1$$)
) AS v(q);

-- Rescanned with new parameters (a correlated LATERAL): fresh panes each time
SELECT q, wj_test.on_off(q, 'window_aggregate', 'WindowExpand') FROM (VALUES
  ($$SELECT i.item, x.windows, x.total FROM items i, LATERAL (SELECT count(*) AS windows, sum(c) AS total FROM (SELECT window_start, count(*) AS c FROM bids, hop(bidtime, interval '1 hour', interval '3 hours') WHERE bids.item = i.item GROUP BY window_start) w) x$$)
) AS v(q);

-- The per-row guard applies per pane as well
SET windowjoin.max_windows_per_row = 5;
SELECT count(*) FROM (SELECT window_start, count(*) FROM bids, hop(bidtime, interval '1 minute', interval '10 minutes') GROUP BY 1) x;
RESET windowjoin.max_windows_per_row;

-- A table never analysed: without statistics the panes are estimated as
-- PostgreSQL estimates any grouping (its default guesses, the ones its own
-- plan's aggregation is costed with), and the pane aggregation is chosen;
-- 'Partial HashAggregate' over 'Seq Scan on bids_fresh' is its plan
CREATE TABLE bids_fresh WITH (autovacuum_enabled = false) AS SELECT * FROM bids;
SELECT count(*) AS statistics_rows FROM pg_stats WHERE tablename = 'bids_fresh';
EXPLAIN (COSTS OFF)
SELECT window_start, window_end, count(*), sum(price) FROM bids_fresh, hop(bidtime, interval '10 minutes', interval '1 hour') GROUP BY 1, 2;
SELECT q, wj_test.on_off(q, 'window_aggregate', 'WindowExpand') FROM (VALUES
  ($$SELECT window_start, window_end, count(*), sum(price) FROM bids_fresh, hop(bidtime, interval '10 minutes', interval '1 hour') GROUP BY 1, 2$$),
  ($$SELECT window_start, window_end, item, count(*), max(price) FROM bids_fresh, cumulate(bidtime, interval '1 hour', interval '1 day') GROUP BY 1, 2, 3$$)
) AS v(q);

-- Infinite times are errors on both paths
INSERT INTO bids VALUES ('infinity', 1.00, 1);
SELECT count(*) FROM (SELECT window_start, count(*) FROM bids, hop(bidtime, interval '1 minute', interval '10 minutes') GROUP BY 1) x;

RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA window_aggregate CASCADE;
