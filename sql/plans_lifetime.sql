--
-- Plans that live long: every windowjoin node and window function in
-- prepared statements whose window sizes, gaps, bands, tolerances and keys
-- are parameters (custom and generic plans), in SCROLL cursors read
-- backward and at absolute positions, and inside correlated subqueries
-- (ReScan with changed parameters).  Every result is compared with the
-- same query planned by PostgreSQL alone (all windowjoin GUCs off).
--
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
SET IntervalStyle = 'postgres';
\set ECHO none
\i sql/include/helpers.sql
\set ECHO all

CREATE SCHEMA plans_lifetime;
SET search_path = plans_lifetime, public;
SET max_parallel_workers_per_gather = 0;

-- events on two sides, 5 keys, one row every 7 s (side a) / 11 s (side b)
CREATE TABLE ea AS
SELECT g % 5 AS k, timestamp '2024-01-01' + g * interval '7 seconds' AS t, g AS v
FROM generate_series(1, 1500) g;
CREATE TABLE eb AS
SELECT g % 5 AS k, timestamp '2024-01-01' + g * interval '11 seconds' AS t, g AS v
FROM generate_series(1, 1000) g;
INSERT INTO ea VALUES (1, NULL, -1), (NULL, '2024-01-01 01:00', -2);
-- orders and a history of rates (as-of joins)
CREATE TABLE orders AS
SELECT g AS order_id, (ARRAY['USD','EUR','JPY'])[1 + g % 3] AS currency, g AS amount,
       timestamp '2024-01-01' + g * interval '5 minutes' AS order_time
FROM generate_series(1, 1000) g;
CREATE TABLE rates AS
SELECT (ARRAY['USD','EUR','JPY'])[1 + g % 3] AS currency, 1000 + g AS rate,
       timestamp '2024-01-01' + g * interval '17 minutes' AS update_time
FROM generate_series(1, 300) g;
ANALYZE ea, eb, orders, rates;

-- same_rows(a, b): row counts and the rows that differ in either direction
CREATE FUNCTION same_rows(a text, b text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE n_a bigint; n_b bigint; d1 bigint; d2 bigint;
BEGIN
  EXECUTE format('SELECT count(*) FROM %s', a) INTO n_a;
  EXECUTE format('SELECT count(*) FROM %s', b) INTO n_b;
  EXECUTE format('SELECT count(*) FROM (TABLE %s EXCEPT ALL TABLE %s) x', a, b) INTO d1;
  EXECUTE format('SELECT count(*) FROM (TABLE %s EXCEPT ALL TABLE %s) x', b, a) INTO d2;
  RETURN CASE WHEN n_a = n_b AND d1 = 0 AND d2 = 0
              THEN format('%s rows, same', n_a)
              ELSE format('DIFFERENT: %s vs %s rows, %s/%s differ', n_a, n_b, d1, d2) END;
END $$;

-- all_off(): PostgreSQL's own planning, for the reference results
CREATE FUNCTION all_off(off boolean) RETURNS void LANGUAGE plpgsql AS $$
DECLARE g text;
BEGIN
  FOREACH g IN ARRAY ARRAY['windowjoin.enable_window_join', 'windowjoin.enable_interval_join',
                           'windowjoin.enable_asof_join', 'windowjoin.enable_window_aggregate'] LOOP
    PERFORM set_config(g, CASE WHEN off THEN 'off' ELSE 'on' END, false);
  END LOOP;
END $$;

-- nodes(stmt): the windowjoin nodes (and the sorted session aggregate)
-- in the plan EXPLAIN shows for a statement
CREATE FUNCTION nodes(stmt text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE line text; found text[] := '{}'; n text;
BEGIN
  FOR line IN SELECT l FROM wj_test.plan_lines(stmt) l LOOP
    FOREACH n IN ARRAY ARRAY['WindowJoin', 'IntervalJoin', 'AsOfJoin', 'WindowExpand', 'TumbleAgg', 'GroupAggregate', 'HashAggregate'] LOOP
      IF line LIKE '%' || n || '%' AND NOT n = ANY (found) THEN found := found || n; END IF;
    END LOOP;
  END LOOP;
  RETURN coalesce(nullif(array_to_string(found, ', '), ''), '-');
END $$;

-- The join nodes win on cost on large inputs; on these small tables make
-- PostgreSQL's own join methods unattractive so that the nodes are used.
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_nestloop = off;

------------------------------------------------------------------------
-- 1. Prepared statements with parameters
------------------------------------------------------------------------
PREPARE p_tumble(interval, int) AS
SELECT k, window_start, window_end, count(*) AS n, sum(v) AS s
FROM ea, tumble(t, $1) WHERE k <> $2 GROUP BY k, window_start, window_end;
PREPARE p_hop(interval, interval) AS
SELECT window_start, window_end, count(*) AS n, sum(v) AS s
FROM ea, hop(t, $1, $2) GROUP BY window_start, window_end;
PREPARE p_cumulate(interval, interval) AS
SELECT window_start, window_end, count(*) AS n, max(v) AS m
FROM ea, cumulate(t, $1, $2) GROUP BY window_start, window_end;
PREPARE p_session(interval) AS
SELECT k, (w).window_start, (w).window_end, count(*) AS n, sum(v) AS s
FROM (SELECT *, session(t, $1) OVER (PARTITION BY k ORDER BY t) AS w FROM ea) x
GROUP BY k, (w).window_start, (w).window_end;
PREPARE p_wjoin(interval, int) AS
SELECT L.k, L.v AS lv, R.v AS rv, L.window_start, L.window_end
FROM (SELECT * FROM ea, tumble(t, $1)) L
JOIN (SELECT * FROM eb, tumble(t, $1)) R
  ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end
WHERE L.k = $2;
PREPARE p_wjoin_hop(interval, interval) AS
SELECT L.k, L.v AS lv, R.v AS rv, COALESCE(L.window_start, R.window_start) AS ws
FROM (SELECT * FROM ea, hop(t, $1, $2)) L
FULL JOIN (SELECT * FROM eb, hop(t, $1, $2)) R
  ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end;
PREPARE p_band(interval, interval, int) AS
SELECT a.k, a.v AS av, b.v AS bv
FROM ea a LEFT JOIN eb b
  ON a.k = b.k AND b.t BETWEEN a.t - $1 AND a.t + $2
WHERE a.k <> $3;
PREPARE p_asof(interval, text) AS
SELECT o.order_id, o.amount * r.rate AS amount_rated
FROM orders o LEFT JOIN LATERAL (
  SELECT rate FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
    AND r.update_time >= o.order_time - $1
  ORDER BY r.update_time DESC LIMIT 1) r ON true
WHERE o.currency <> $2;

-- run(stmt, args): the statement's result with custom plans, with generic
-- plans (executed twice, so that the cached plan is really reused), and
-- the reference from PostgreSQL alone; show the nodes of both plans
CREATE FUNCTION run(stmt text, args text) RETURNS TABLE (mode text, plan_nodes text, result text)
LANGUAGE plpgsql AS $$
DECLARE e text := format('EXECUTE %s(%s)', stmt, args); i int;
BEGIN
  PERFORM all_off(true);
  EXECUTE 'CREATE TEMP TABLE r_ref AS ' || e;
  PERFORM all_off(false);
  PERFORM set_config('plan_cache_mode', 'force_custom_plan', false);
  mode := 'custom'; plan_nodes := nodes(e);
  EXECUTE 'CREATE TEMP TABLE r_run AS ' || e;
  result := same_rows('r_run', 'r_ref');
  RETURN NEXT;
  DROP TABLE r_run;
  PERFORM set_config('plan_cache_mode', 'force_generic_plan', false);
  mode := 'generic'; plan_nodes := nodes(e);
  FOR i IN 1 .. 2 LOOP
    EXECUTE 'CREATE TEMP TABLE r_run AS ' || e;
    result := same_rows('r_run', 'r_ref');
    DROP TABLE r_run;
  END LOOP;
  RETURN NEXT;
  PERFORM set_config('plan_cache_mode', 'auto', false);
  DROP TABLE r_ref;
END $$;

SELECT * FROM run('p_tumble', $$'10 minutes', 3$$);
SELECT * FROM run('p_tumble', $$'1 hour', 0$$);
SELECT * FROM run('p_hop', $$'5 minutes', '15 minutes'$$);
SELECT * FROM run('p_hop', $$'2 minutes', '1 minute'$$);         -- gaps: never the node
SELECT * FROM run('p_cumulate', $$'10 minutes', '1 hour'$$);
SELECT * FROM run('p_session', $$'8 seconds'$$);
SELECT * FROM run('p_session', $$'1 minute'$$);
SELECT * FROM run('p_wjoin', $$'5 minutes', 2$$);
SELECT * FROM run('p_wjoin', $$'1 minute', 4$$);
SELECT * FROM run('p_wjoin_hop', $$'5 minutes', '10 minutes'$$);
SELECT * FROM run('p_band', $$'10 seconds', '20 seconds', 1$$);
SELECT * FROM run('p_band', $$'-5 seconds', '5 seconds', 0$$);
SELECT * FROM run('p_asof', $$'1 hour', 'USD'$$);
SELECT * FROM run('p_asof', $$'10 minutes', 'JPY'$$);

-- the generic plans themselves
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE p_asof('1 hour', 'USD');
EXPLAIN (COSTS OFF) EXECUTE p_wjoin('5 minutes', 2);
EXPLAIN (COSTS OFF) EXECUTE p_hop('5 minutes', '15 minutes');
-- parameters with values the functions reject: the same errors as with
-- custom plans
\set VERBOSITY terse
EXECUTE p_hop('0 minutes', '15 minutes');
EXECUTE p_cumulate('7 minutes', '1 hour');
EXECUTE p_session(NULL);
EXECUTE p_wjoin('1 mon', 1);
SET plan_cache_mode = force_custom_plan;
EXECUTE p_hop('0 minutes', '15 minutes');
EXECUTE p_cumulate('7 minutes', '1 hour');
EXECUTE p_session(NULL);
EXECUTE p_wjoin('1 mon', 1);
\set VERBOSITY default
RESET plan_cache_mode;

------------------------------------------------------------------------
-- 2. SCROLL cursors: forward, backward, absolute and relative fetches must
-- agree with one forward pass.  The custom scans do not scan backward, so
-- PostgreSQL puts a Materialize node above them for SCROLL cursors.
------------------------------------------------------------------------
-- scroll_check(q): fetch everything forward, then backward, then at
-- absolute and relative positions, comparing each row with the forward pass
CREATE FUNCTION scroll_check(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  c refcursor := 'scroll_check_cur';
  rows text[] := '{}';
  r record;
  n int;
  i int;
  bad int := 0;
BEGIN
  OPEN c SCROLL FOR EXECUTE q;
  LOOP
    FETCH NEXT FROM c INTO r;
    EXIT WHEN NOT FOUND;
    rows := rows || r::text;
  END LOOP;
  n := coalesce(array_length(rows, 1), 0);
  -- backward from the end
  FOR i IN REVERSE n .. 1 LOOP
    FETCH PRIOR FROM c INTO r;
    IF NOT FOUND OR r::text IS DISTINCT FROM rows[i] THEN bad := bad + 1; END IF;
  END LOOP;
  FETCH PRIOR FROM c INTO r;
  IF FOUND THEN bad := bad + 1; END IF;
  -- absolute positions, from both ends, in a jumping order
  FOR i IN SELECT (g * 37) % n + 1 FROM generate_series(1, 50) g LOOP
    FETCH ABSOLUTE i FROM c INTO r;
    IF r::text IS DISTINCT FROM rows[i] THEN bad := bad + 1; END IF;
    FETCH ABSOLUTE -i FROM c INTO r;
    IF r::text IS DISTINCT FROM rows[n - i + 1] THEN bad := bad + 1; END IF;
  END LOOP;
  -- relative moves
  FETCH FIRST FROM c INTO r;
  FETCH RELATIVE 3 FROM c INTO r;
  IF n >= 4 AND r::text IS DISTINCT FROM rows[4] THEN bad := bad + 1; END IF;
  MOVE LAST FROM c;
  FETCH RELATIVE -2 FROM c INTO r;
  IF n >= 3 AND r::text IS DISTINCT FROM rows[n - 2] THEN bad := bad + 1; END IF;
  CLOSE c;
  RETURN format('%s rows, %s mismatches', n, bad);
END $$;

CREATE VIEW v_wjoin AS
SELECT L.k, L.v AS lv, R.v AS rv, L.window_start
FROM (SELECT * FROM ea, tumble(t, interval '5 minutes')) L
LEFT JOIN (SELECT * FROM eb, tumble(t, interval '5 minutes')) R
  ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end;
CREATE VIEW v_band AS
SELECT a.k, a.v AS av, b.v AS bv
FROM ea a FULL JOIN eb b ON a.k = b.k AND b.t BETWEEN a.t - interval '10 seconds' AND a.t + interval '10 seconds';
CREATE VIEW v_asof AS
SELECT o.order_id, r.rate
FROM orders o JOIN LATERAL (
  SELECT rate FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC LIMIT 1) r ON true;
CREATE VIEW v_hop AS
SELECT window_start, window_end, count(*) AS n, sum(v) AS s
FROM ea, hop(t, interval '1 minute', interval '10 minutes') GROUP BY window_start, window_end;
CREATE VIEW v_session AS
SELECT k, (w).window_start, count(*) AS n
FROM (SELECT *, session(t, interval '20 seconds') OVER (PARTITION BY k ORDER BY t) AS w FROM ea) x
GROUP BY k, (w).window_start;

EXPLAIN (COSTS OFF) DECLARE c1 SCROLL CURSOR FOR SELECT * FROM v_wjoin;
EXPLAIN (COSTS OFF) DECLARE c1 SCROLL CURSOR FOR SELECT * FROM v_band;
EXPLAIN (COSTS OFF) DECLARE c1 SCROLL CURSOR FOR SELECT * FROM v_asof;
EXPLAIN (COSTS OFF) DECLARE c1 SCROLL CURSOR FOR SELECT * FROM v_hop;
-- a cursor without SCROLL keeps the plan as it is
EXPLAIN (COSTS OFF) DECLARE c1 CURSOR FOR SELECT * FROM v_asof;
SELECT v, nodes('SELECT * FROM ' || v) AS plan_nodes, scroll_check('SELECT * FROM ' || v) AS scroll
FROM unnest(ARRAY['v_wjoin', 'v_band', 'v_asof', 'v_hop', 'v_session']) v;
-- hold cursors (materialized at commit) and psql-level fetches
BEGIN;
DECLARE c2 SCROLL CURSOR WITH HOLD FOR SELECT order_id, rate FROM v_asof;
FETCH 3 FROM c2;
COMMIT;
FETCH BACKWARD 2 FROM c2;
FETCH LAST FROM c2;
FETCH ABSOLUTE 500 FROM c2;
FETCH ABSOLUTE -994 FROM c2;
CLOSE c2;
SELECT order_id, rate FROM v_asof ORDER BY order_id LIMIT 3;
SELECT order_id, rate FROM v_asof ORDER BY order_id DESC LIMIT 1;
SELECT order_id, rate FROM v_asof ORDER BY order_id OFFSET 499 LIMIT 1;

------------------------------------------------------------------------
-- 3. The nodes inside correlated subqueries: rescanned with a new outer
-- value each time (and once per key, for changed parameters)
------------------------------------------------------------------------
CREATE TABLE keys AS SELECT g AS k FROM generate_series(0, 5) g;
CREATE TABLE ccy AS SELECT unnest(ARRAY['USD','EUR','JPY','GBP']) AS currency;
ANALYZE keys, ccy;
CREATE VIEW c_wjoin AS
SELECT k, (SELECT count(*) || '/' || coalesce(sum(L.v * R.v), 0)
           FROM (SELECT * FROM ea, tumble(t, interval '5 minutes')) L
           JOIN (SELECT * FROM eb, tumble(t, interval '5 minutes')) R
             ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end
           WHERE L.k = keys.k) AS x
FROM keys;
CREATE VIEW c_band AS
SELECT k, (SELECT count(*) || '/' || coalesce(sum(a.v - b.v), 0)
           FROM ea a JOIN eb b ON a.k = b.k
            AND b.t BETWEEN a.t - interval '15 seconds' AND a.t + interval '15 seconds'
           WHERE a.k = keys.k) AS x
FROM keys;
CREATE VIEW c_asof AS
SELECT currency, (SELECT count(*) || '/' || coalesce(sum(o.amount * r.rate), 0)
                  FROM orders o JOIN LATERAL (
                    SELECT rate FROM rates r
                    WHERE r.currency = o.currency AND r.update_time <= o.order_time
                    ORDER BY r.update_time DESC LIMIT 1) r ON true
                  WHERE o.currency = ccy.currency) AS x
FROM ccy;
CREATE VIEW c_hop AS
SELECT k, (SELECT count(*) || '/' || coalesce(sum(s), 0) FROM (
             SELECT window_start, sum(v) AS s
             FROM ea, hop(t, interval '1 minute', interval '5 minutes')
             WHERE ea.k = keys.k GROUP BY window_start) w) AS x
FROM keys;
CREATE VIEW c_session AS
SELECT k, (SELECT count(*) || '/' || coalesce(sum(n), 0) FROM (
             SELECT (w).window_start, count(*) AS n
             FROM (SELECT *, session(t, interval '20 seconds') OVER (ORDER BY t) AS w
                   FROM ea WHERE ea.k = keys.k) x
             GROUP BY (w).window_start) s) AS x
FROM keys;
EXPLAIN (COSTS OFF) SELECT * FROM c_wjoin;
EXPLAIN (COSTS OFF) SELECT * FROM c_asof;
-- with the nodes, and the reference without
CREATE TEMP TABLE corr_on AS
SELECT 'c_wjoin' AS v, k::text AS k, x FROM c_wjoin UNION ALL
SELECT 'c_band', k::text, x FROM c_band UNION ALL
SELECT 'c_asof', currency, x FROM c_asof UNION ALL
SELECT 'c_hop', k::text, x FROM c_hop UNION ALL
SELECT 'c_session', k::text, x FROM c_session;
SELECT all_off(true);
CREATE TEMP TABLE corr_off AS
SELECT 'c_wjoin' AS v, k::text AS k, x FROM c_wjoin UNION ALL
SELECT 'c_band', k::text, x FROM c_band UNION ALL
SELECT 'c_asof', currency, x FROM c_asof UNION ALL
SELECT 'c_hop', k::text, x FROM c_hop UNION ALL
SELECT 'c_session', k::text, x FROM c_session;
SELECT all_off(false);
SELECT v, nodes('SELECT * FROM ' || v) AS plan_nodes FROM unnest(ARRAY['c_wjoin', 'c_band', 'c_asof', 'c_hop', 'c_session']) v;
SELECT same_rows('corr_on', 'corr_off');
SELECT * FROM corr_on ORDER BY v, k;
-- LATERAL subqueries around the nodes, rescanned per outer row
CREATE VIEW l_band AS
SELECT kk.k, s.n FROM keys kk, LATERAL (
  SELECT count(*) AS n FROM ea a JOIN eb b ON a.k = b.k
   AND b.t BETWEEN a.t AND a.t + interval '4 seconds'
  WHERE a.k = kk.k) s;
CREATE VIEW l_asof AS
SELECT c.currency, s.n, s.total FROM ccy c, LATERAL (
  SELECT count(*) AS n, sum(r.rate) AS total
  FROM orders o LEFT JOIN LATERAL (
    SELECT rate FROM rates r
    WHERE r.currency = o.currency AND r.update_time <= o.order_time
    ORDER BY r.update_time DESC LIMIT 1) r ON true
  WHERE o.currency = c.currency) s;
SELECT nodes('SELECT * FROM l_band') AS l_band, nodes('SELECT * FROM l_asof') AS l_asof;
SELECT * FROM l_band ORDER BY k;
SELECT * FROM l_asof ORDER BY currency;
CREATE TEMP TABLE lat_on AS SELECT k::text AS k, n, NULL::numeric AS total FROM l_band UNION ALL SELECT currency, n, total FROM l_asof;
SELECT all_off(true);
CREATE TEMP TABLE lat_off AS SELECT k::text AS k, n, NULL::numeric AS total FROM l_band UNION ALL SELECT currency, n, total FROM l_asof;
SELECT all_off(false);
SELECT same_rows('lat_on', 'lat_off');

------------------------------------------------------------------------
-- 4. plan_cache_mode = auto: after five custom plans PostgreSQL compares
-- the generic plan's cost with theirs; a generic plan without the node
-- costs more, so the statements keep custom plans with the node
------------------------------------------------------------------------
SET plan_cache_mode = auto;
DO $$
BEGIN
  FOR i IN 1 .. 8 LOOP
    EXECUTE 'CREATE TEMP TABLE r_auto AS EXECUTE p_band(''10 seconds'', ''20 seconds'', 1)';
    DROP TABLE r_auto;
    EXECUTE 'CREATE TEMP TABLE r_auto AS EXECUTE p_wjoin(''5 minutes'', 2)';
    DROP TABLE r_auto;
    EXECUTE 'CREATE TEMP TABLE r_auto AS EXECUTE p_hop(''5 minutes'', ''15 minutes'')';
    DROP TABLE r_auto;
  END LOOP;
END $$;
SELECT nodes('EXECUTE p_band(''10 seconds'', ''20 seconds'', 1)') AS p_band,
       nodes('EXECUTE p_wjoin(''5 minutes'', 2)') AS p_wjoin,
       nodes('EXECUTE p_hop(''5 minutes'', ''15 minutes'')') AS p_hop;

RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_nestloop;
DEALLOCATE ALL;
SET client_min_messages = warning;
DROP SCHEMA plans_lifetime CASCADE;
