--
-- Continuous views on a random stream over weeks (docs/continuous.md):
-- windows that do not divide the gap between the PostgreSQL and Unix
-- epochs (7 and 3 days, 90 minutes with an offset), a source partitioned
-- by key (one partition sub-partitioned by time, one with its columns in
-- another order) written only through its partitions, out-of-order, late
-- rows, updates that move rows between partitions, deletes, and the source's
-- time and value columns renamed back and forth between rounds.  After
-- every refresh each revising view equals the batch query over its closed
-- windows, and each 'drop' or 'log' view kept what it had emitted.
--
\set SHOW_CONTEXT never
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
SET IntervalStyle = 'postgres';

\set ECHO none
\i sql/include/helpers.sql
\set ECHO all
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS cs CASCADE;
RESET client_min_messages;
CREATE SCHEMA cs;
SET search_path = cs, public;

CREATE TABLE st (id int NOT NULL, t timestamp NOT NULL, k int NOT NULL, v int) PARTITION BY LIST (k);
CREATE TABLE st_k0 PARTITION OF st FOR VALUES IN (0);
CREATE TABLE st_k1 PARTITION OF st FOR VALUES IN (1);
CREATE TABLE st_k2 (v int, k int NOT NULL, id int NOT NULL, t timestamp NOT NULL);
ALTER TABLE st ATTACH PARTITION st_k2 FOR VALUES IN (2);
CREATE TABLE st_k3 PARTITION OF st FOR VALUES IN (3) PARTITION BY RANGE (t);
CREATE TABLE st_k3a PARTITION OF st_k3 FOR VALUES FROM (MINVALUE) TO ('2024-01-12');
CREATE TABLE st_k3b PARTITION OF st_k3 FOR VALUES FROM ('2024-01-12') TO (MAXVALUE);
CREATE INDEX ON st (t);
CREATE SEQUENCE st_id;

-- today's names of the time and value columns (renamed between rounds)
CREATE FUNCTION cs.col(n int) RETURNS text LANGUAGE sql AS $$
  SELECT quote_ident(attname) FROM pg_attribute WHERE attrelid = 'cs.st'::regclass AND attnum = n
$$;

-- cs.round(r): one round of changes, every one through a partition: the
-- clock advances 12 hours; 25 rows up to 10 hours behind it, every third
-- round 3 rows 1 to 9 days behind it, updates (moving rows in time, so
-- between st_k3's partitions) and deletes
CREATE FUNCTION cs.round(r int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  clock timestamp := timestamp '2024-01-01' + r * interval '12 hours';
  tc text := cs.col(2);
  vc text := cs.col(4);
  e record;
  part text;
BEGIN
  FOR e IN SELECT nextval('cs.st_id') AS id,
                  clock - random() * interval '10 hours' AS t,
                  (random() * 3)::int AS k, (random() * 100)::int AS v
             FROM generate_series(1, 25)
           UNION ALL
           SELECT nextval('cs.st_id'), clock - (1 + random() * 8) * interval '1 day',
                  (random() * 3)::int, 1000
             FROM generate_series(1, CASE WHEN r % 3 = 0 THEN 3 ELSE 0 END) LOOP
    part := CASE WHEN e.k < 3 THEN 'st_k' || e.k
                 WHEN e.t < '2024-01-12' THEN 'st_k3a' ELSE 'st_k3b' END;
    EXECUTE format('INSERT INTO cs.%I (id, %s, k, %s) VALUES ($1, $2, $3, $4)', part, tc, vc)
      USING e.id, e.t, e.k, e.v;
  END LOOP;
  IF r % 4 = 1 THEN
    EXECUTE format('UPDATE cs.st_k3 SET %1$s = %1$s + 1, %2$s = %2$s + interval ''30 hours'' '
                   'WHERE id IN (SELECT id FROM cs.st_k3 ORDER BY random() LIMIT 3)', vc, tc);
    EXECUTE format('UPDATE cs.st_k1 SET %1$s = %1$s - 1 WHERE id IN (SELECT id FROM cs.st_k1 ORDER BY random() LIMIT 3)', vc);
  END IF;
  IF r % 5 = 2 THEN
    DELETE FROM cs.st_k2 WHERE id IN (SELECT id FROM cs.st_k2 ORDER BY random() LIMIT 2);
    DELETE FROM cs.st_k3b WHERE id IN (SELECT id FROM cs.st_k3b ORDER BY random() LIMIT 2);
  END IF;
END
$$;

SELECT setseed(0.5);
SELECT cs.round(r) FROM generate_series(1, 6) r;

-- the views: {t} and {v} stand for the columns' names of the moment
CREATE TABLE cs.def (view text PRIMARY KEY, q text, opts text);
INSERT INTO cs.def VALUES
  ('w7',  'SELECT k, window_start, window_end, count(*) AS n, sum({v}) AS s FROM cs.st, tumble({t}, interval ''7 days'') GROUP BY 1, 2, 3', 'delay => interval ''6 hours'''),
  ('w3',  'SELECT k, window_start, window_end, count(*) AS n, max({v}) AS m FROM cs.st, tumble({t}, interval ''3 days'') GROUP BY 1, 2, 3', 'late => ''drop'''),
  ('m90', 'SELECT window_start, window_end, count(*) AS n, sum({v}) AS s FROM cs.st, tumble({t}, interval ''90 minutes'', interval ''17 minutes'') GROUP BY 1, 2', 'delay => interval ''1 hour'''),
  ('h3',  'SELECT window_start, window_end, count(*) AS n, sum({v}) AS s, min({v}) AS lo FROM cs.st, hop({t}, interval ''1 day'', interval ''3 days'') GROUP BY 1, 2', 'delay => interval ''2 hours'''),
  ('c7',  'SELECT window_start, window_end, count(*) AS n, sum({v}) AS s FROM cs.st, cumulate({t}, interval ''1 day'', interval ''7 days'') GROUP BY 1, 2', 'late => ''log'''),
  ('s6',  'SELECT k, window_start, window_end, count(*) AS n, sum({v}) AS s FROM (SELECT k, {v}, (session({t}, interval ''6 hours'') OVER (PARTITION BY k ORDER BY {t})).* FROM cs.st) x GROUP BY 1, 2, 3', 'delay => interval ''3 hours''');
CREATE FUNCTION cs.q(view text) RETURNS text LANGUAGE sql AS $$
  SELECT replace(replace(q, '{t}', cs.col(2)), '{v}', cs.col(4)) FROM cs.def WHERE def.view = q.view
$$;
DO $$
DECLARE
  d record;
BEGIN
  FOR d IN SELECT * FROM cs.def ORDER BY view LOOP
    EXECUTE format('SELECT windowjoin.create_view(%L, %L, %s)', 'cs.' || d.view, cs.q(d.view), d.opts);
  END LOOP;
END
$$;
SELECT name, kind, late, delay FROM windowjoin.views ORDER BY name::text;

-- cs.fuzz(first, rounds): rounds of changes, the columns renamed every
-- fourth round, every view refreshed after each round and checked
CREATE FUNCTION cs.fuzz(first int, rounds int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  r int;
  v regclass;
  res text;
  old_wm text;
  policy text;
  checks int := 0;
  renames int := 0;
BEGIN
  FOR r IN first .. first + rounds - 1 LOOP
    IF r % 4 = 0 THEN
      EXECUTE format('ALTER TABLE cs.st RENAME COLUMN %s TO %s', cs.col(2),
                     CASE WHEN cs.col(2) = 't' THEN 'event_time' ELSE 't' END);
      EXECUTE format('ALTER TABLE cs.st RENAME COLUMN %s TO %s', cs.col(4),
                     CASE WHEN cs.col(4) = 'v' THEN 'amount' ELSE 'v' END);
      renames := renames + 1;
    END IF;
    PERFORM cs.round(r);
    FOR v IN SELECT name FROM windowjoin.views ORDER BY name::text LOOP
      SELECT watermark, late INTO old_wm, policy FROM windowjoin.views WHERE name = v;
      IF policy <> 'revise' THEN
        EXECUTE format('DROP TABLE IF EXISTS cs_before; CREATE TEMP TABLE cs_before AS SELECT * FROM %s', v);
        PERFORM windowjoin.refresh(v);
        res := wj_test.cv_frozen(v, 'cs_before', old_wm,
                                 cs.q(replace(v::text, 'cs.', '')));
      ELSE
        PERFORM windowjoin.refresh(v);
        res := wj_test.cv_closed(v, cs.q(replace(v::text, 'cs.', '')));
      END IF;
      IF res <> 'ok' THEN
        RAISE EXCEPTION 'round %: %', r, res;
      END IF;
      checks := checks + 1;
    END LOOP;
  END LOOP;
  RETURN format('%s checks ok, %s renames', checks, renames);
END
$$;

SET client_min_messages = warning;
SELECT cs.fuzz(7, 24);
SET windowjoin.enable_window_aggregate = off;
SELECT cs.fuzz(31, 16);
RESET windowjoin.enable_window_aggregate;
RESET client_min_messages;
-- what the stream did to each view
SELECT name, rows > 0 AS has_rows, late_rows > 0 AS saw_late, revisions > 0 AS revised, failures
  FROM windowjoin.views ORDER BY name::text;
SELECT count(*) > 0 AS logged FROM cs.c7_late;
-- the 7-day windows, by key
SELECT k, count(*) AS windows, min(window_start), max(window_end) FROM cs.w7 GROUP BY k ORDER BY k;

SET client_min_messages = warning;
DROP SCHEMA cs CASCADE;
RESET client_min_messages;
SELECT count(*) AS views_left FROM windowjoin.views;
