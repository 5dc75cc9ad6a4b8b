-- The benchmark data of scripts/bench: deterministic (one seed, tables
-- generated in a fixed order), sizes given as psql variables by the caller:
--   bids      :bids rows, :items items, 30 days         (W1, W2, W3)
--   rates     :versions versions, :currencies currencies (W4)
--   orders    :orders orders                            (W4)
--   sa, sb    :sensor rows each, :devices devices, 1 day (W5)
--   bl, br    :wj rows each, :wjkeys keys, 1 day         (W6)
-- The formulas are those of bench/windows.sh, asof_join.sh,
-- interval_join.sh and window_join.sh.  Every table is also written as CSV
-- into :'datadir' for DuckDB.
\set ON_ERROR_STOP 1
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
SELECT setseed(0.5);
CREATE TABLE bids AS
SELECT timestamp '2024-01-01' + (random() * 30 * 86400 * 1e6)::bigint * interval '1 microsecond' AS bidtime,
       (random() * 100)::numeric(10,2) AS price,
       (random() * (:items - 1))::int AS item
FROM generate_series(1, :bids);

CREATE TABLE rates (currency text, rate numeric(12,6), update_time timestamp);
INSERT INTO rates
SELECT 'C' || lpad((g % :currencies)::text, 3, '0'),
       round((0.5 + random())::numeric, 6),
       timestamp '2024-01-01' + g * (interval '30 days' / :versions)
FROM generate_series(1, :versions) g;
CREATE TABLE orders (order_id int, currency text, amount numeric(12,2), order_time timestamp);
INSERT INTO orders
SELECT g, 'C' || lpad(((g * 7) % :currencies)::text, 3, '0'),
       round((random() * 1000)::numeric, 2),
       timestamp '2024-01-01' + random() * interval '30 days'
FROM generate_series(1, :orders) g;
CREATE INDEX ON rates (currency, update_time);

CREATE TABLE sa AS
  SELECT i % :devices AS dev, timestamp '2024-01-01' + random() * interval '1 day' AS t,
         (random() * 1000)::int AS v
  FROM generate_series(1, :sensor) i;
CREATE TABLE sb AS
  SELECT i % :devices AS dev, timestamp '2024-01-01' + random() * interval '1 day' AS t,
         (random() * 1000)::int AS v
  FROM generate_series(1, :sensor) i;

CREATE TABLE bl (row_time timestamp, num int, id text);
CREATE TABLE br (row_time timestamp, num int, id text);
INSERT INTO bl SELECT timestamp '2024-01-01' + random() * interval '1 day',
                      (random() * (:wjkeys - 1))::int, 'L' || i
FROM generate_series(1, :wj) i;
INSERT INTO br SELECT timestamp '2024-01-01' + random() * interval '1 day',
                      (random() * (:wjkeys - 1))::int, 'R' || i
FROM generate_series(1, :wj) i;

VACUUM ANALYZE bids, rates, orders, sa, sb, bl, br;

\if :csv
\set f :datadir '/bids.csv'
COPY bids TO :'f' (FORMAT csv);
\set f :datadir '/rates.csv'
COPY rates TO :'f' (FORMAT csv);
\set f :datadir '/orders.csv'
COPY orders TO :'f' (FORMAT csv);
\set f :datadir '/sa.csv'
COPY sa TO :'f' (FORMAT csv);
\set f :datadir '/sb.csv'
COPY sb TO :'f' (FORMAT csv);
\set f :datadir '/bl.csv'
COPY bl TO :'f' (FORMAT csv);
\set f :datadir '/br.csv'
COPY br TO :'f' (FORMAT csv);
\endif
SELECT 'generated: ' || (SELECT count(*) FROM bids) || ' bids, ' || (SELECT count(*) FROM rates) || ' rate versions, '
    || (SELECT count(*) FROM orders) || ' orders, 2 x ' || (SELECT count(*) FROM sa) || ' sensor rows, 2 x '
    || (SELECT count(*) FROM bl) || ' window-join rows' AS data;
