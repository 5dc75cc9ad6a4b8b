-- windowjoin on Citus (scripts/citus): the tables of setup.sql again in
-- schema dist, distributed the way docs/scale-out.md recommends: both
-- sides of each join co-located on the join's equality key, the bids and
-- sessions on the item (the PARTITION BY of session()), the version
-- tables of the as-of joins once as reference tables (rates, g_rates) and
-- once co-located with the orders on the currency (rates_c, g_rates_c);
-- g_right_x and g_sensor_bx on another column, for joins that Citus
-- cannot push down as written.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
CREATE SCHEMA dist;
SET search_path = dist;
SET citus.shard_count = :shards;

CREATE TABLE bid (LIKE loc.bid INCLUDING ALL);
SELECT create_distributed_table('bid', 'item');
CREATE TABLE bid_s (LIKE loc.bid_s INCLUDING ALL);
SELECT create_distributed_table('bid_s', 'item', colocate_with => 'bid');
CREATE TABLE g_bid (LIKE loc.g_bid INCLUDING ALL);
SELECT create_distributed_table('g_bid', 'item', colocate_with => 'bid');

CREATE TABLE left_table (LIKE loc.left_table INCLUDING ALL);
SELECT create_distributed_table('left_table', 'num');
CREATE TABLE right_table (LIKE loc.right_table INCLUDING ALL);
SELECT create_distributed_table('right_table', 'num', colocate_with => 'left_table');
CREATE TABLE g_left (LIKE loc.g_left INCLUDING ALL);
SELECT create_distributed_table('g_left', 'num', colocate_with => 'left_table');
CREATE TABLE g_right (LIKE loc.g_right INCLUDING ALL);
SELECT create_distributed_table('g_right', 'num', colocate_with => 'left_table');

CREATE TABLE orders (LIKE loc.orders INCLUDING ALL);
SELECT create_distributed_table('orders', 'order_id', colocate_with => 'left_table');
CREATE TABLE shipments (LIKE loc.shipments INCLUDING ALL);
SELECT create_distributed_table('shipments', 'order_id', colocate_with => 'orders');
CREATE TABLE sensor_a (LIKE loc.sensor_a INCLUDING ALL);
SELECT create_distributed_table('sensor_a', 'dev', colocate_with => 'orders');
CREATE TABLE sensor_b (LIKE loc.sensor_b INCLUDING ALL);
SELECT create_distributed_table('sensor_b', 'dev', colocate_with => 'orders');
CREATE TABLE g_sensor_a (LIKE loc.g_sensor_a INCLUDING ALL);
SELECT create_distributed_table('g_sensor_a', 'dev', colocate_with => 'orders');
CREATE TABLE g_sensor_b (LIKE loc.g_sensor_b INCLUDING ALL);
SELECT create_distributed_table('g_sensor_b', 'dev', colocate_with => 'orders');

-- not co-located with g_left / g_sensor_a: the joins below cannot be
-- pushed down as they are
CREATE TABLE g_right_x (LIKE loc.g_right_x INCLUDING ALL);
SELECT create_distributed_table('g_right_x', 'id');
CREATE TABLE g_sensor_bx (LIKE loc.g_sensor_bx INCLUDING ALL);
SELECT create_distributed_table('g_sensor_bx', 'v', colocate_with => 'none');

CREATE TABLE rates (LIKE loc.rates INCLUDING ALL);
SELECT create_reference_table('rates');
CREATE TABLE fx_orders (LIKE loc.fx_orders INCLUDING ALL);
SELECT create_distributed_table('fx_orders', 'order_id', colocate_with => 'orders');
CREATE TABLE g_rates (LIKE loc.g_rates INCLUDING ALL);
SELECT create_reference_table('g_rates');
CREATE TABLE g_fx_orders (LIKE loc.g_fx_orders INCLUDING ALL);
SELECT create_distributed_table('g_fx_orders', 'order_id', colocate_with => 'orders');

CREATE TABLE rates_c (LIKE loc.rates_c INCLUDING ALL);
SELECT create_distributed_table('rates_c', 'currency', colocate_with => 'bid');
CREATE TABLE fx_orders_c (LIKE loc.fx_orders_c INCLUDING ALL);
SELECT create_distributed_table('fx_orders_c', 'currency', colocate_with => 'rates_c');
CREATE TABLE g_rates_c (LIKE loc.g_rates_c INCLUDING ALL);
SELECT create_distributed_table('g_rates_c', 'currency', colocate_with => 'rates_c');
CREATE TABLE g_fx_orders_c (LIKE loc.g_fx_orders_c INCLUDING ALL);
SELECT create_distributed_table('g_fx_orders_c', 'currency', colocate_with => 'rates_c');

-- every table of loc has its distributed copy
SELECT CASE WHEN count(*) > 0
            THEN 'not distributed: ' || string_agg(c.relname, ', ') END AS missing
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = 'loc' AND c.relkind = 'r'
  AND NOT EXISTS (SELECT FROM pg_dist_partition p
                  WHERE p.logicalrelid = format('dist.%I', c.relname)::regclass) \gset
\if :{?missing}
\echo :missing
SELECT 1/0;
\endif

DO $$
DECLARE r record;
BEGIN
  FOR r IN SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
           WHERE n.nspname = 'loc' AND c.relkind = 'r' ORDER BY 1 LOOP
    EXECUTE format('INSERT INTO dist.%I SELECT * FROM loc.%I', r.relname, r.relname);
  END LOOP;
END $$;
ANALYZE;
