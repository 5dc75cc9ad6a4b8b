--
-- The extension's life cycle: version 0.3 is installed from the 0.1 base
-- script plus the 0.1--0.2 and 0.2--0.3 upgrades (0.3: continuous views,
-- schema windowjoin); CREATE EXTENSION VERSION '0.1' followed
-- by ALTER EXTENSION UPDATE must give exactly the objects of a fresh
-- install; DROP EXTENSION refuses while views depend on it and CASCADE
-- removes them; a new CREATE EXTENSION works again.  Each step runs in its
-- own scratch database (the extension's schema is fixed to public).
--
SET client_min_messages = warning;
SET DateStyle = 'ISO, YMD';
\set orig_db :DBNAME

\set ECHO none
\i sql/include/helpers.sql
\set ECHO all

-- in the suite's database: the default version, preloaded status
SELECT extversion FROM pg_extension WHERE extname = 'windowjoin';
SELECT * FROM windowjoin_status();

-- wj_objects: one line per member object of the extension with a digest of
-- its definition (functions: pg_get_functiondef; types: their columns),
-- in a stable order.  Defined as a psql variable, run in each database.
-- Not the array types of its composite types, members too since
-- PostgreSQL 16, nor the row types of its tables and views, members too on
-- 17.
\set wj_objects 'SELECT pg_describe_object(d.classid, d.objid, 0) AS object, md5(CASE d.classid WHEN ''pg_proc''::regclass THEN pg_get_functiondef(d.objid) || coalesce(obj_description(d.objid, ''pg_proc''), '''') WHEN ''pg_type''::regclass THEN (SELECT coalesce(string_agg(a.attname || '' '' || format_type(a.atttypid, a.atttypmod), '', '' ORDER BY a.attnum), '''') FROM pg_type t LEFT JOIN pg_attribute a ON a.attrelid = t.typrelid AND a.attnum > 0 WHERE t.oid = d.objid) ELSE '''' END) AS digest FROM pg_depend d JOIN pg_extension e ON d.refclassid = ''pg_extension''::regclass AND d.refobjid = e.oid WHERE e.extname = ''windowjoin'' AND d.deptype = ''e'' AND NOT (d.classid = ''pg_type''::regclass AND (SELECT typcategory = ''A'' OR coalesce((SELECT relkind <> ''c'' FROM pg_class WHERE oid = typrelid), false) FROM pg_type WHERE oid = d.objid)) ORDER BY 1'

-- a fresh install of the default version
CREATE DATABASE wj_fresh;
\c wj_fresh
SET DateStyle = 'ISO, YMD';
SET client_min_messages = warning;
CREATE EXTENSION windowjoin;
SELECT extversion FROM pg_extension WHERE extname = 'windowjoin';
SELECT count(*) AS objects, md5(string_agg(object || ' ' || digest, E'\n' ORDER BY object)) AS fresh_digest
FROM (:wj_objects) o \gset
SELECT :objects AS objects;
-- the member objects themselves (the digests are compared below)
SELECT object FROM (:wj_objects) o;

-- 0.1, then ALTER EXTENSION UPDATE
CREATE DATABASE wj_upgraded;
\c wj_upgraded
SET DateStyle = 'ISO, YMD';
SET client_min_messages = warning;
CREATE EXTENSION windowjoin VERSION '0.1';
SELECT extversion FROM pg_extension WHERE extname = 'windowjoin';
SELECT count(*) AS objects_01 FROM (:wj_objects) o;
-- 0.1 has no status function
SELECT count(*) FROM pg_proc WHERE proname = 'windowjoin_status';
-- a view over 0.1's functions survives the update
CREATE TABLE bid (bidtime timestamp, price numeric(10,2), item text);
INSERT INTO bid VALUES
  ('2020-04-15 08:05', 4.00, 'C'), ('2020-04-15 08:07', 2.00, 'A'),
  ('2020-04-15 08:09', 5.00, 'D'), ('2020-04-15 08:11', 3.00, 'B'),
  ('2020-04-15 08:13', 1.00, 'E'), ('2020-04-15 08:17', 6.00, 'F');
CREATE VIEW bid_hop AS
SELECT window_start, window_end, sum(price) AS total_price
FROM bid, hop(bidtime, interval '5 minutes', interval '10 minutes')
GROUP BY window_start, window_end;
SELECT md5(string_agg(b::text, ',' ORDER BY window_start)) AS before_update FROM bid_hop b \gset
-- 0.1's SQL functions name their building blocks without a schema: with a
-- search_path that lacks public (pg_restore's REFRESH MATERIALIZED VIEW
-- runs with an empty one) inlining them fails
SET search_path = '';
\set VERBOSITY terse
SELECT count(*) FROM public.bid_hop;
SELECT count(*) FROM public.tumble(timestamp '2020-01-01', interval '1 minute');
\set VERBOSITY default
RESET search_path;
ALTER EXTENSION windowjoin UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'windowjoin';
SELECT count(*) = :objects AS same_object_count,
       md5(string_agg(object || ' ' || digest, E'\n' ORDER BY object)) = :'fresh_digest' AS same_objects
FROM (:wj_objects) o;
SELECT md5(string_agg(b::text, ',' ORDER BY window_start)) = :'before_update' AS view_unchanged
FROM bid_hop b;
SELECT feature, active FROM windowjoin_status();
-- 0.2 qualifies them: every window function works with an empty
-- search_path and are still inlined (the plan's pane aggregation,
-- WindowExpand, recognises only the inlined wj_hop_starts, and finds the
-- extension's wj_tumble_start for the panes whatever the search_path)
SET search_path = '';
SELECT * FROM public.bid_hop ORDER BY window_start;
SELECT count(*) FROM public.bid, public.tumble(bidtime, interval '10 minutes');
SELECT count(*) FROM public.bid, public.tumble(bidtime::timestamptz, interval '10 minutes');
SELECT count(*) FROM public.bid, public.hop(bidtime::timestamptz, interval '5 minutes', interval '10 minutes');
SELECT count(*) FROM public.bid, public.cumulate(bidtime, interval '2 minutes', interval '10 minutes');
SELECT count(*) FROM public.bid, public.cumulate(bidtime::timestamptz, interval '2 minutes', interval '10 minutes');
EXPLAIN (COSTS OFF) SELECT * FROM public.bid_hop;
RESET search_path;
-- already at the newest version
ALTER EXTENSION windowjoin UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'windowjoin';

-- The planners recognise the extension's C functions by library and C
-- symbol and remember the answer in each backend.  Changes to pg_proc made
-- in this very session are seen at once: a function re-pointed at another
-- symbol here, the functions of a re-created extension below.
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_nestloop = off;
CREATE FUNCTION my_window(timestamp, interval, interval) RETURNS timestamp
  AS '$libdir/windowjoin', 'wj_tumble_start' LANGUAGE C IMMUTABLE;
\set my_join 'EXPLAIN (COSTS OFF) SELECT count(*) FROM bid a JOIN bid b ON my_window(a.bidtime, ''10 minutes'', ''0'') = my_window(b.bidtime, ''10 minutes'', ''0'')'
\set tumble_join 'EXPLAIN (COSTS OFF) SELECT count(*) FROM (SELECT * FROM bid, tumble(bidtime, interval ''10 minutes'')) a JOIN (SELECT * FROM bid, tumble(bidtime, interval ''10 minutes'')) b ON a.window_start = b.window_start'
-- a window start: WindowJoin
:my_join;
-- window_time is no window bound: PostgreSQL's join
CREATE OR REPLACE FUNCTION my_window(timestamp, interval, interval) RETURNS timestamp
  AS '$libdir/windowjoin', 'wj_window_time' LANGUAGE C IMMUTABLE;
:my_join;
-- and back
CREATE OR REPLACE FUNCTION my_window(timestamp, interval, interval) RETURNS timestamp
  AS '$libdir/windowjoin', 'wj_tumble_start' LANGUAGE C IMMUTABLE;
:my_join;
DROP FUNCTION my_window(timestamp, interval, interval);
:tumble_join;

-- DROP EXTENSION with dependent views: refused, then CASCADE
CREATE VIEW bid_sess AS
SELECT bidtime, (w).window_start, (w).window_end
FROM (SELECT *, session(bidtime, interval '3 minutes') OVER (ORDER BY bidtime) AS w FROM bid) s;
CREATE MATERIALIZED VIEW bid_tumble AS
SELECT * FROM bid, tumble(bidtime, interval '10 minutes');
\set VERBOSITY terse
DROP EXTENSION windowjoin;
\set VERBOSITY default
SET client_min_messages = notice;
DROP EXTENSION windowjoin CASCADE;
SET client_min_messages = warning;
SELECT relname FROM pg_class WHERE relname IN ('bid_hop', 'bid_sess', 'bid_tumble');
SELECT count(*) AS left_over_functions FROM pg_proc
WHERE proname IN ('tumble', 'hop', 'cumulate', 'session', 'windowjoin_status')
   OR proname LIKE 'wj\_%';
SELECT count(*) AS left_over_types FROM pg_type WHERE typname LIKE 'session\_window%';
-- and back: the same objects as a fresh install, working again
CREATE EXTENSION windowjoin;
-- its new functions recognised in the session that saw the old ones
:tumble_join;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_nestloop;
SELECT md5(string_agg(object || ' ' || digest, E'\n' ORDER BY object)) = :'fresh_digest' AS same_objects
FROM (:wj_objects) o;
SELECT window_start, window_end, sum(price) AS total_price
FROM bid, cumulate(bidtime, interval '2 minutes', interval '10 minutes')
GROUP BY window_start, window_end ORDER BY window_start, window_end;

-- there is no downgrade path
\set VERBOSITY terse
ALTER EXTENSION windowjoin UPDATE TO '0.1';
\set VERBOSITY default
SELECT version, installed FROM pg_available_extension_versions
WHERE name = 'windowjoin' ORDER BY version;

\c :orig_db
DROP DATABASE wj_fresh;
DROP DATABASE wj_upgraded;
SELECT extversion FROM pg_extension WHERE extname = 'windowjoin';
