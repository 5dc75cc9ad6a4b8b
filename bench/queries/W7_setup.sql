-- W7 (nearest as-of join): btree_gist for the distance operator, and
-- copies of rates and orders without ties: version times at even
-- microseconds, order times at odd ones, so no order is ever halfway
-- between two versions (PostgreSQL's KNN scan, the node and DuckDB would
-- be free to pick either, and the checksums could differ).  No index yet:
-- windowjoin runs first, without one.
CREATE EXTENSION IF NOT EXISTS btree_gist;
CREATE TABLE rates7 AS
SELECT currency, rate,
       update_time - ((extract(epoch FROM update_time) * 1000000)::bigint % 2) * interval '1 microsecond'
         AS update_time
FROM rates;
CREATE TABLE orders7 AS
SELECT order_id, currency, amount,
       order_time + (1 - (extract(epoch FROM order_time) * 1000000)::bigint % 2) * interval '1 microsecond'
         AS order_time
FROM orders;
VACUUM ANALYZE rates7, orders7;
