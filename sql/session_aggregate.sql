--
-- Streaming aggregation over session windows: GROUP BY partition keys and
-- session fields runs as a sorted GroupAggregate over the window's output
-- (no hash table of sessions).  Same rows with
-- windowjoin.enable_window_aggregate on and off; shapes where the order is
-- not certain keep PostgreSQL's plan.
--
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
SET IntervalStyle = 'postgres';
CREATE SCHEMA session_aggregate;
SET search_path = session_aggregate, public;
SET max_parallel_workers_per_gather = 0;
SELECT setseed(0.3);
CREATE TABLE ev AS
SELECT timestamp '2024-01-01' + (random() * 86400 * 1e6)::bigint * interval '1 microsecond' AS t,
       (random() * 100)::numeric(10,2) AS v,
       (random() * 20)::int AS k,
       (random() * 3)::int AS k2
FROM generate_series(1, 20000);
INSERT INTO ev VALUES (NULL, 1, 1, 1), (NULL, 2, NULL, 0), ('2024-01-01', 3, NULL, 0);
ANALYZE ev;

CREATE FUNCTION on_off(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  n bigint; d1 bigint; d2 bigint; sorted boolean; plan text;
BEGIN
  SET LOCAL windowjoin.enable_window_aggregate = on;
  sorted := false;
  FOR plan IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    sorted := sorted OR plan ~ '^ *GroupAggregate';
    IF plan ~ 'Sort Key: s\.' THEN
      sorted := false;		-- PostgreSQL sorting the sessions itself
      EXIT;
    END IF;
  END LOOP;
  EXECUTE 'CREATE TEMP TABLE r_on AS ' || q;
  SET LOCAL windowjoin.enable_window_aggregate = off;
  EXECUTE 'CREATE TEMP TABLE r_off AS ' || q;
  SELECT count(*) INTO n FROM r_on;
  SELECT count(*) INTO d1 FROM (SELECT * FROM r_on EXCEPT ALL SELECT * FROM r_off) x;
  SELECT count(*) INTO d2 FROM (SELECT * FROM r_off EXCEPT ALL SELECT * FROM r_on) x;
  DROP TABLE r_on; DROP TABLE r_off;
  RETURN format('%s rows, %s/%s differ, %s', n, d1, d2,
                CASE WHEN sorted THEN 'streaming' ELSE 'PostgreSQL plan' END);
END $$;

EXPLAIN (COSTS OFF)
SELECT k, (w).window_start, (w).window_end, sum(v)
FROM (SELECT *, session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM ev) s
GROUP BY k, (w).window_start, (w).window_end;

SELECT on_off(q) FROM (VALUES
  -- streaming
  ($$SELECT k, (w).window_start, (w).window_end, sum(v), count(*), min(t), max(t) FROM (SELECT *, session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM ev) s GROUP BY k, (w).window_start, (w).window_end$$),
  ($$SELECT (w).window_start, (w).window_end, count(*) FROM (SELECT *, session(t, interval '1 minute') OVER (ORDER BY t) AS w FROM ev) s GROUP BY (w).window_start, (w).window_end$$),
  ($$SELECT k, k2, (w).window_start, count(*) FROM (SELECT *, session(t, interval '10 minutes') OVER (PARTITION BY k, k2 ORDER BY t) AS w FROM ev) s GROUP BY k, k2, (w).window_start HAVING count(*) > 1$$),
  ($$SELECT k, (w).window_time, avg(v) FROM (SELECT *, session(t, interval '2 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM ev) s GROUP BY k, (w).window_time$$),
  -- PostgreSQL's plan: the order would not be certain
  ($$SELECT k, (w).window_start, count(*) FROM (SELECT *, session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t NULLS FIRST) AS w FROM ev) s GROUP BY k, (w).window_start$$),
  ($$SELECT (w).window_start, count(*) FROM (SELECT *, session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM ev) s GROUP BY (w).window_start$$),
  ($$SELECT k2, k, (w).window_start, count(*) FROM (SELECT *, session(t, interval '5 minutes') OVER (PARTITION BY k, k2 ORDER BY t) AS w FROM ev) s GROUP BY k2, k, (w).window_start$$),
  ($$SELECT k, (w).window_start, count(*) FROM (SELECT *, session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM ev ORDER BY v LIMIT 100) s GROUP BY k, (w).window_start$$),
  ($$SELECT k, (w).window_start, k2, count(*) FROM (SELECT *, session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM ev) s GROUP BY k, (w).window_start, k2$$)
) AS v(q);

RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA session_aggregate CASCADE;
