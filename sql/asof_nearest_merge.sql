--
-- AsOfJoin, nearest direction, with versions expected not to fit in
-- work_mem: the lookup is not offered, the merge sorts both inputs by
-- (keys, time).  asof_nearest's data and join matrix
-- (sql/include/asof_nearest_data.sql), every query with the node on and
-- off; a suite of its own so that the two matrices run side by side.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS btree_gist;
RESET client_min_messages;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
CREATE SCHEMA asof_nearest_merge;
SET search_path = asof_nearest_merge, public;
SET enable_nestloop = off;
SET hash_mem_multiplier = 1;
\set ECHO none
\i sql/include/asof_nearest_data.sql
\i sql/include/helpers.sql
\set ECHO all

SET work_mem = '64kB';
EXPLAIN (COSTS OFF)
SELECT o.id, r.v
FROM obs o
LEFT JOIN LATERAL (
  SELECT v FROM vers r
  WHERE r.k = o.k AND r.k2 = o.k2
  ORDER BY r.t <-> o.t LIMIT 1) r ON true;
SELECT * FROM nn_matrix();

RESET work_mem;
RESET hash_mem_multiplier;
RESET enable_nestloop;
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA asof_nearest_merge CASCADE;
RESET client_min_messages;
