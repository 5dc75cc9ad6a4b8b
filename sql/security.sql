--
-- Security quals first: no expression of the user's (nor any filter the
-- extension adds) that is not leakproof may see a row before that row's
-- row-level-security policy or security-barrier view has passed it, in any
-- node and any parallel strategy: outer share, split load, key
-- partitioning (a filter on both scans), KeyExchange, partitionwise.
--
-- A non-superuser queries tables whose secret rows (every fifth) a policy
-- hides, through leaky functions that RAISE NOTICE when they see a secret
-- row, in the join key, the time expression and the tolerance.  Every
-- query must print no notice and give the rows of the nodes-off plan,
-- serial and parallel (wj_test.split_check); the plans show where the
-- extension's filters stand in the scans' quals: after the policy's.
--
SET TimeZone = 'UTC';
SET datestyle = 'ISO, YMD';
SET IntervalStyle = 'postgres';
CREATE SCHEMA leak;
SET search_path = leak, public;

\set ECHO none
\i sql/include/helpers.sql
\set ECHO all
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS btree_gist;	-- <-> for the nearest direction
RESET client_min_messages;

-- the leaky functions: cheap, so that PostgreSQL would run them first if
-- the security levels let it
CREATE FUNCTION leak_k(k int, tag text) RETURNS int LANGUAGE plpgsql
  IMMUTABLE PARALLEL SAFE COST 0.0000001 AS
$$BEGIN IF tag LIKE 'SECRET%' THEN RAISE NOTICE 'leaked %', tag; END IF; RETURN k; END$$;
CREATE FUNCTION leak_s(tag text) RETURNS text LANGUAGE plpgsql
  IMMUTABLE PARALLEL SAFE COST 0.0000001 AS
$$BEGIN IF tag LIKE 'SECRET%' THEN RAISE NOTICE 'leaked %', tag; END IF;
  RETURN substr(tag, 1, 3); END$$;
CREATE FUNCTION leak_t(t timestamp, tag text) RETURNS timestamp LANGUAGE plpgsql
  IMMUTABLE PARALLEL SAFE COST 0.0000001 AS
$$BEGIN IF tag LIKE 'SECRET%' THEN RAISE NOTICE 'leaked %', tag; END IF; RETURN t; END$$;

-- la, lb: two sides of the joins; lv: versions; every fifth row secret
CREATE TABLE la (k int, t timestamp, v int, tag text);
CREATE TABLE lb (k int, t timestamp, v int, tag text);
CREATE TABLE lv (k int, t timestamp, v int, tag text);
INSERT INTO la SELECT i % 10, '2024-01-01'::timestamp + i * interval '7 seconds', i,
  CASE WHEN i % 5 = 3 THEN 'SECRET' || i ELSE 'pub' || i END FROM generate_series(1, 12000) i;
INSERT INTO lb SELECT i % 10, '2024-01-01'::timestamp + i * interval '11 seconds', i,
  CASE WHEN i % 5 = 3 THEN 'SECRET' || i ELSE 'pub' || i END FROM generate_series(1, 6000) i;
INSERT INTO lv SELECT i % 10, '2024-01-01'::timestamp + i * interval '97 seconds', i,
  CASE WHEN i % 5 = 3 THEN 'SECRET' || i ELSE 'pub' || i END FROM generate_series(1, 600) i;
-- a partitioned pair for partitionwise joins
CREATE TABLE pla (k int, t timestamp, v int, tag text) PARTITION BY HASH (k);
CREATE TABLE pla_0 PARTITION OF pla FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE pla_1 PARTITION OF pla FOR VALUES WITH (MODULUS 2, REMAINDER 1);
CREATE TABLE plb (k int, t timestamp, v int, tag text) PARTITION BY HASH (k);
CREATE TABLE plb_0 PARTITION OF plb FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE plb_1 PARTITION OF plb FOR VALUES WITH (MODULUS 2, REMAINDER 1);
INSERT INTO pla SELECT * FROM la;
INSERT INTO plb SELECT * FROM lb;
ANALYZE la;
ANALYZE lb;
ANALYZE lv;
ANALYZE pla;
ANALYZE plb;
ALTER TABLE la ENABLE ROW LEVEL SECURITY;
ALTER TABLE lb ENABLE ROW LEVEL SECURITY;
ALTER TABLE lv ENABLE ROW LEVEL SECURITY;
ALTER TABLE pla ENABLE ROW LEVEL SECURITY;
ALTER TABLE plb ENABLE ROW LEVEL SECURITY;
CREATE POLICY la_pub ON la USING (tag NOT LIKE 'SECRET%');
CREATE POLICY lb_pub ON lb USING (tag NOT LIKE 'SECRET%');
CREATE POLICY lv_pub ON lv USING (tag NOT LIKE 'SECRET%');
CREATE POLICY pla_pub ON pla USING (tag NOT LIKE 'SECRET%');
CREATE POLICY plb_pub ON plb USING (tag NOT LIKE 'SECRET%');
-- the same hiding as security-barrier views over tables without a policy
CREATE TABLE lv_all AS SELECT * FROM lv;
CREATE TABLE lb_all AS SELECT * FROM lb;
ANALYZE lv_all;
ANALYZE lb_all;
CREATE VIEW lv_sb WITH (security_barrier) AS
  SELECT * FROM lv_all WHERE tag NOT LIKE 'SECRET%';
CREATE VIEW lb_sb WITH (security_barrier) AS
  SELECT * FROM lb_all WHERE tag NOT LIKE 'SECRET%';
CREATE ROLE regress_wj_leaky;
GRANT USAGE ON SCHEMA leak TO regress_wj_leaky;
GRANT SELECT ON la, lb, lv, pla, plb, lv_sb, lb_sb TO regress_wj_leaky;

SET ROLE regress_wj_leaky;
SET client_min_messages = notice;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET :parallel_guc = off;
-- what the user sees: no secret row
SELECT count(*) AS visible, count(*) FILTER (WHERE tag LIKE 'SECRET%') AS secret FROM lv;

-- scan_quals(q): the plan's nodes and its scans' filters, whose first qual
-- must be the policy's (or the view's)
CREATE FUNCTION pg_temp.scan_quals(q text) RETURNS SETOF text LANGUAGE sql AS $$
  SELECT regexp_replace(l, '\(\((\$\d+) = ''-1''::integer\) OR .*\)\)', '(\1 = -1 OR partition(key) = \1))')
  FROM wj_test.plan_lines(q, 'Custom Scan|Filter|Versions|Gather|Append') l $$;

--
-- AsOfJoin
--
-- a leaky key: a parallel lookup loads the versions split by the key's
-- partitions (the filter on the versions' scan hashes leak_k), after the
-- policy
SELECT * FROM pg_temp.scan_quals($q$SELECT a.v, x.v FROM la a LEFT JOIN LATERAL (
  SELECT * FROM lv WHERE leak_k(lv.k, lv.tag) = a.k AND lv.t <= a.t
  ORDER BY lv.t DESC LIMIT 1) x ON true$q$);
SELECT wj_test.split_check('AsOfJoin', $q$SELECT a.v AS av, x.v AS xv FROM la a LEFT JOIN LATERAL (
  SELECT * FROM lv WHERE leak_k(lv.k, lv.tag) = a.k AND lv.t <= a.t
  ORDER BY lv.t DESC LIMIT 1) x ON true$q$);
-- the same through a security-barrier view
SELECT * FROM pg_temp.scan_quals($q$SELECT a.v, x.v FROM la a LEFT JOIN LATERAL (
  SELECT * FROM lv_sb lv WHERE leak_k(lv.k, lv.tag) = a.k AND lv.t <= a.t
  ORDER BY lv.t DESC LIMIT 1) x ON true$q$);
SELECT wj_test.split_check('AsOfJoin', $q$SELECT a.v AS av, x.v AS xv FROM la a LEFT JOIN LATERAL (
  SELECT * FROM lv_sb lv WHERE leak_k(lv.k, lv.tag) = a.k AND lv.t <= a.t
  ORDER BY lv.t DESC LIMIT 1) x ON true$q$);
-- a leaky time and a leaky tolerance, backward and forward
SELECT wj_test.split_check('AsOfJoin', $q$SELECT a.v AS av, x.v AS xv FROM la a LEFT JOIN LATERAL (
  SELECT * FROM lv WHERE lv.k = a.k AND leak_t(lv.t, lv.tag) <= a.t
    AND leak_t(lv.t, lv.tag) > a.t - interval '1 hour'
  ORDER BY leak_t(lv.t, lv.tag) DESC LIMIT 1) x ON true$q$);
SELECT wj_test.split_check('AsOfJoin', $q$SELECT a.v AS av, x.v AS xv FROM la a JOIN LATERAL (
  SELECT * FROM lv_sb lv WHERE leak_k(lv.k, lv.tag) = a.k AND leak_t(lv.t, lv.tag) >= a.t
  ORDER BY leak_t(lv.t, lv.tag) LIMIT 1) x ON true$q$);
-- nearest with a tolerance
SELECT * FROM pg_temp.scan_quals($q$SELECT a.v AS av, x.v AS xv FROM la a LEFT JOIN LATERAL (
  SELECT * FROM lv WHERE leak_k(lv.k, lv.tag) = a.k
    AND leak_t(lv.t, lv.tag) BETWEEN a.t - interval '10 minutes' AND a.t + interval '10 minutes'
  ORDER BY leak_t(lv.t, lv.tag) <-> a.t LIMIT 1) x ON true$q$);
SELECT wj_test.split_check('AsOfJoin', $q$SELECT a.v AS av, x.v AS xv FROM la a LEFT JOIN LATERAL (
  SELECT * FROM lv WHERE leak_k(lv.k, lv.tag) = a.k
    AND leak_t(lv.t, lv.tag) BETWEEN a.t - interval '10 minutes' AND a.t + interval '10 minutes'
  ORDER BY leak_t(lv.t, lv.tag) <-> a.t LIMIT 1) x ON true$q$);
-- the outer split (each participant its share of the outer rows, all the
-- versions)
SET windowjoin.enable_key_partitioning = off;
SELECT wj_test.split_check('AsOfJoin', $q$SELECT a.v AS av, x.v AS xv FROM la a LEFT JOIN LATERAL (
  SELECT * FROM lv WHERE leak_k(lv.k, lv.tag) = a.k AND lv.t <= a.t
  ORDER BY lv.t DESC LIMIT 1) x ON true$q$);
RESET windowjoin.enable_key_partitioning;

--
-- IntervalJoin
--
-- key partitioning, every participant reading both inputs in full (one
-- has no partial path): the partition filter on both scans, after the
-- policy
RESET ROLE;
ALTER TABLE lb SET (parallel_workers = 0);
SET ROLE regress_wj_leaky;
SELECT * FROM pg_temp.scan_quals($q$SELECT a.v, b.v FROM la a FULL JOIN lb b
  ON a.k = b.k AND leak_t(b.t, b.tag) BETWEEN a.t - interval '5 seconds' AND a.t + interval '5 seconds'$q$);
SELECT wj_test.split_check('IntervalJoin', $q$SELECT a.v AS av, b.v AS bv FROM la a FULL JOIN lb b
  ON a.k = b.k AND leak_t(b.t, b.tag) BETWEEN a.t - interval '5 seconds' AND a.t + interval '5 seconds'$q$,
  key_partitioned => true);
RESET ROLE;
ALTER TABLE lb RESET (parallel_workers);
SET ROLE regress_wj_leaky;
-- key partitioning through KeyExchanges
SELECT * FROM pg_temp.scan_quals($q$SELECT a.v, b.v FROM la a FULL JOIN lb b
  ON a.k = b.k AND leak_t(b.t, b.tag) BETWEEN a.t - interval '5 seconds' AND a.t + interval '5 seconds'$q$);
SELECT wj_test.split_check('IntervalJoin', $q$SELECT a.v AS av, b.v AS bv FROM la a FULL JOIN lb b
  ON a.k = b.k AND leak_t(b.t, b.tag) BETWEEN a.t - interval '5 seconds' AND a.t + interval '5 seconds'$q$,
  key_partitioned => true);
-- a leaky key: the outer split
SELECT wj_test.split_check('IntervalJoin', $q$SELECT a.v AS av, b.v AS bv FROM la a JOIN lb_sb b
  ON leak_k(a.k, a.tag) = leak_k(b.k, b.tag)
  AND leak_t(b.t, b.tag) BETWEEN a.t - interval '5 seconds' AND a.t + interval '5 seconds'$q$);
-- partitionwise, serial and parallel
SET enable_partitionwise_join = on;
SELECT wj_test.split_check('IntervalJoin', $q$SELECT a.v AS av, b.v AS bv FROM pla a LEFT JOIN plb b
  ON a.k = b.k AND leak_t(b.t, b.tag) BETWEEN a.t - interval '5 seconds' AND a.t + interval '5 seconds'$q$,
  split => 'partitionwise');
RESET enable_partitionwise_join;

--
-- WindowJoin (a window of an expression is PostgreSQL's to join: the
-- leaky functions are in the key and a join filter)
--
SELECT * FROM pg_temp.scan_quals($q$SELECT a.v AS av, b.v AS bv, a.window_start
  FROM (SELECT * FROM la, tumble(la.t, interval '1 minute')) a
  FULL JOIN (SELECT * FROM lb, tumble(lb.t, interval '1 minute')) b
    ON a.window_start = b.window_start AND a.window_end = b.window_end AND a.k = b.k
    AND leak_k(a.v, a.tag) <> leak_k(b.v, b.tag)$q$);
-- (key-partitioned: with inputs too large for work_mem to be grouped by
-- window in the node, the serial node over them is not the cheaper plan)
SET work_mem = '64kB';
SELECT wj_test.split_check('WindowJoin', $q$SELECT a.v AS av, b.v AS bv, a.window_start
  FROM (SELECT * FROM la, tumble(la.t, interval '1 minute')) a
  FULL JOIN (SELECT * FROM lb, tumble(lb.t, interval '1 minute')) b
    ON a.window_start = b.window_start AND a.window_end = b.window_end AND a.k = b.k
    AND leak_k(a.v, a.tag) <> leak_k(b.v, b.tag)$q$,
  key_partitioned => true);
RESET work_mem;
SELECT * FROM pg_temp.scan_quals($q$SELECT a.v AS av, b.v AS bv, a.window_start
  FROM (SELECT * FROM la, hop(la.t, interval '1 minute', interval '3 minutes')) a
  LEFT JOIN (SELECT * FROM lb_sb, hop(lb_sb.t, interval '1 minute', interval '3 minutes')) b
    ON a.window_start = b.window_start AND a.window_end = b.window_end
    AND leak_k(a.k, a.tag) = leak_k(b.k, b.tag)$q$);
SELECT wj_test.split_check('WindowJoin', $q$SELECT a.v AS av, b.v AS bv, a.window_start
  FROM (SELECT * FROM la, hop(la.t, interval '1 minute', interval '3 minutes')) a
  LEFT JOIN (SELECT * FROM lb_sb, hop(lb_sb.t, interval '1 minute', interval '3 minutes')) b
    ON a.window_start = b.window_start AND a.window_end = b.window_end
    AND leak_k(a.k, a.tag) = leak_k(b.k, b.tag)$q$);
SET enable_partitionwise_join = on;
SELECT wj_test.split_check('WindowJoin', $q$SELECT a.v AS av, b.v AS bv, a.window_start
  FROM (SELECT * FROM pla, tumble(pla.t, interval '1 minute')) a
  JOIN (SELECT * FROM plb, tumble(plb.t, interval '1 minute')) b
    ON a.window_start = b.window_start AND a.window_end = b.window_end AND a.k = b.k
    AND leak_k(a.v, a.tag) <> leak_k(b.v, b.tag)$q$,
  split => 'partitionwise');
RESET enable_partitionwise_join;

--
-- WindowExpand and SessionSort: leaky window times and group or partition
-- keys
--
SELECT wj_test.split_check('WindowExpand', $q$SELECT k, window_start, window_end, count(*), sum(v)
  FROM lb, hop(leak_t(t, tag), interval '1 minute', interval '3 minutes') GROUP BY 1, 2, 3$q$);
SELECT wj_test.split_check('WindowExpand', $q$SELECT window_start, window_end, count(*), sum(v)
  FROM lb_sb, hop(leak_t(t, tag), interval '1 minute', interval '3 minutes') GROUP BY 1, 2$q$);
-- SessionWindow partitions its input rows itself (a leaky key: every
-- participant reads all of them; a column: exchanged), on rows the scan
-- returns
SELECT * FROM pg_temp.scan_quals($q$SELECT s, window_start, window_end, count(*) FROM (
  SELECT leak_k(k, tag) AS s, (session(leak_t(t, tag), interval '30 seconds')
    OVER (PARTITION BY leak_k(k, tag) ORDER BY leak_t(t, tag))).* FROM lb) x
  GROUP BY 1, 2, 3$q$);
SELECT wj_test.split_check('SessionWindow', $q$SELECT s, window_start, window_end, count(*) FROM (
  SELECT leak_k(k, tag) AS s, (session(leak_t(t, tag), interval '30 seconds')
    OVER (PARTITION BY leak_k(k, tag) ORDER BY leak_t(t, tag))).* FROM lb) x
  GROUP BY 1, 2, 3$q$);
SELECT wj_test.split_check('SessionWindow', $q$SELECT k, window_start, window_end, count(*) FROM (
  SELECT k, (session(leak_t(t, tag), interval '30 seconds')
    OVER (PARTITION BY k ORDER BY leak_t(t, tag))).* FROM lb_sb) x
  GROUP BY 1, 2, 3$q$);

RESET ROLE;
RESET client_min_messages;
SET client_min_messages = warning;
DROP SCHEMA leak CASCADE;
DROP OWNED BY regress_wj_leaky;
DROP ROLE regress_wj_leaky;
