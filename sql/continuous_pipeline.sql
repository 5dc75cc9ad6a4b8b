--
-- Cascaded continuous views (docs/continuous.md, "Pipelines"): a view over
-- another view's table is a pipeline stage whose watermark follows the
-- upstream view's frontier, so a downstream window closes in the refresh
-- pass that closed its last upstream window.  Chains of three stages
-- (minute -> hour -> day, by window_start and by window_end) and an
-- aggregate -> Top-N stage, on a random stream with out-of-order and late
-- rows, updates and deletes: after every pass each stage equals the batch
-- query over the raw source (the stages composed) over its closed windows.
-- Then the scheduler's order, and DROP needing CASCADE.
--
\set SHOW_CONTEXT never
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
SET IntervalStyle = 'postgres';

\set ECHO none
\i sql/include/helpers.sql
\set ECHO all
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS pl CASCADE;
RESET client_min_messages;
CREATE SCHEMA pl;
SET search_path = pl, public;

CREATE TABLE ev (id int NOT NULL, t timestamptz NOT NULL, k int NOT NULL, x int NOT NULL);
CREATE INDEX ON ev (t);
CREATE SEQUENCE ev_id;
INSERT INTO ev VALUES (0, '2024-01-01 00:00:05', 1, 1);

-- stage 1: per minute and key
SELECT windowjoin.create_view('per_minute', $$SELECT window_start, window_end, k, count(*) AS n, sum(x) AS s
  FROM ev, tumble(t, interval '1 minute') GROUP BY 1, 2, 3$$) IS NOT NULL AS created;
CREATE INDEX ON per_minute (window_start);
CREATE INDEX ON per_minute (window_end);
-- stage 2: per 10 minutes, from the minutes (by window_start)
SELECT windowjoin.create_view('per_10min', $$SELECT w.window_start, w.window_end, m.k, sum(m.n) AS n, sum(m.s) AS s
  FROM per_minute m, tumble(m.window_start, interval '10 minutes') w GROUP BY 1, 2, 3$$) IS NOT NULL AS created;
CREATE INDEX ON per_10min (window_end);
-- stage 3: per 30 minutes sliding by 10, from the 10-minute rows (by window_end)
SELECT windowjoin.create_view('per_30min', $$SELECT w.window_start, w.window_end, sum(m.n) AS n
  FROM per_10min m, hop(m.window_end, interval '10 minutes', interval '30 minutes') w GROUP BY 1, 2$$) IS NOT NULL AS created;
-- aggregate -> Top-N: the 2 keys of most rows in each 5 minutes, from the minutes
SELECT windowjoin.create_view('top_keys', $$SELECT * FROM (
    SELECT window_start, window_end, k, n, row_number() OVER (PARTITION BY window_start, window_end ORDER BY n DESC, k) AS rn
      FROM (SELECT w.window_start, w.window_end, m.k, sum(m.n) AS n
              FROM per_minute m, tumble(m.window_start, interval '5 minutes') w GROUP BY 1, 2, 3) a) r
  WHERE rn <= 2$$) IS NOT NULL AS created;

-- the stages composed over the raw source: what each must equal
CREATE VIEW b_minute AS SELECT window_start, window_end, k, count(*) AS n, sum(x) AS s
  FROM ev, tumble(t, interval '1 minute') GROUP BY 1, 2, 3;
CREATE VIEW b_10min AS SELECT w.window_start, w.window_end, m.k, sum(m.n) AS n, sum(m.s) AS s
  FROM b_minute m, tumble(m.window_start, interval '10 minutes') w GROUP BY 1, 2, 3;
CREATE VIEW b_30min AS SELECT w.window_start, w.window_end, sum(m.n) AS n
  FROM b_10min m, hop(m.window_end, interval '10 minutes', interval '30 minutes') w GROUP BY 1, 2;
CREATE VIEW b_top AS SELECT * FROM (
    SELECT window_start, window_end, k, n, row_number() OVER (PARTITION BY window_start, window_end ORDER BY n DESC, k) AS rn
      FROM (SELECT w.window_start, w.window_end, m.k, sum(m.n) AS n
              FROM b_minute m, tumble(m.window_start, interval '5 minutes') w GROUP BY 1, 2, 3) a) r
  WHERE rn <= 2;

-- one pass: every stage refreshed, upstream first
CREATE FUNCTION pl.pass() RETURNS void LANGUAGE sql AS $$
  SELECT windowjoin.refresh(v) FROM unnest('{pl.per_minute,pl.per_10min,pl.per_30min,pl.top_keys}'::regclass[]) v
$$;

-- a row at 00:10:05 closes minute 00:09 and so 10-minute window [00:00, 00:10)
-- in the same pass
INSERT INTO ev SELECT i, '2024-01-01'::timestamptz + i * interval '7 seconds', i % 3, i FROM generate_series(1, 86) i;
SELECT pl.pass();
SELECT name, watermark FROM windowjoin.views v
  JOIN pg_class c ON c.oid = v.name AND c.relnamespace = 'pl'::regnamespace ORDER BY 1;
SELECT * FROM per_10min ORDER BY 1, 3;
SELECT * FROM top_keys ORDER BY 1, rn;

-- pl.round(r): the clock advances 2 minutes; 40 rows up to 90 s behind it,
-- every third round 5 rows 3 to 25 minutes behind (late in every stage),
-- updates and deletes
SELECT setseed(0.54);
CREATE FUNCTION pl.round(r int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  clock timestamptz := timestamptz '2024-01-01 00:10' + r * interval '2 minutes';
BEGIN
  INSERT INTO pl.ev SELECT nextval('pl.ev_id') + 1000, clock - random() * interval '90 seconds',
                           (random() * 4)::int, (random() * 50)::int
                      FROM generate_series(1, 40);
  IF r % 3 = 0 THEN
    INSERT INTO pl.ev SELECT nextval('pl.ev_id') + 1000, clock - (3 + random() * 22) * interval '1 minute',
                             (random() * 4)::int, (random() * 50)::int
                        FROM generate_series(1, 5);
  END IF;
  UPDATE pl.ev SET x = x + 1, k = (k + 1) % 4 WHERE id IN (SELECT id FROM pl.ev ORDER BY random() LIMIT 3);
  DELETE FROM pl.ev WHERE id IN (SELECT id FROM pl.ev ORDER BY random() LIMIT 2);
END
$$;
CREATE TABLE results (round int, view regclass, result text);
DO $$
BEGIN
  FOR r IN 1 .. 30 LOOP
    PERFORM pl.round(r);
    PERFORM pl.pass();
    INSERT INTO pl.results VALUES
      (r, 'pl.per_minute', wj_test.cv_closed('pl.per_minute', 'SELECT * FROM pl.b_minute')),
      (r, 'pl.per_10min', wj_test.cv_closed('pl.per_10min', 'SELECT * FROM pl.b_10min')),
      (r, 'pl.per_30min', wj_test.cv_closed('pl.per_30min', 'SELECT * FROM pl.b_30min')),
      (r, 'pl.top_keys', wj_test.cv_closed('pl.top_keys', 'SELECT * FROM pl.b_top'));
  END LOOP;
END
$$;
SELECT view, count(*) AS checks, count(*) FILTER (WHERE result = 'ok') AS ok,
       string_agg(DISTINCT result, '; ') FILTER (WHERE result <> 'ok') AS failures
  FROM results GROUP BY view ORDER BY view::text;
-- no stage trails its upstream: each watermark is its upstream's frontier
-- (per_minute's window_start frontier is the start of the minute holding
-- its watermark; per_10min's window_end frontier its watermark)
SELECT date_trunc('minute', m.watermark::timestamptz) = t.watermark::timestamptz AS ten_at_frontier,
       t.watermark = h.watermark AS thirty_at_frontier
  FROM windowjoin.views m, windowjoin.views t, windowjoin.views h
 WHERE m.name = 'per_minute'::regclass AND t.name = 'per_10min'::regclass
   AND h.name = 'per_30min'::regclass;
-- upstream revisions reached every stage
SELECT name, late_rows > 0 AS saw_late, revisions > 0 AS revised FROM windowjoin.views v
  JOIN pg_class c ON c.oid = v.name AND c.relnamespace = 'pl'::regnamespace ORDER BY 1;

--
-- The scheduler refreshes the stages upstream first, in one round: three
-- stages due at once, the last stage longest overdue (so that by their
-- last refresh alone it would go first, while its upstream watermarks are
-- still old), each refreshed once -- a stage's refresh wakes the next
-- stage, which the round refreshes next anyway, and no more; the hour
-- closes in s3 in that round
--
SELECT windowjoin.drop_view('pl.per_30min');
SELECT windowjoin.drop_view('pl.top_keys');
CREATE TABLE sch (t timestamptz NOT NULL, x int);
CREATE INDEX ON sch (t);
INSERT INTO sch VALUES ('2024-02-01 00:00:01', 1);
SELECT windowjoin.create_view('s1', $$SELECT window_start, window_end, count(*) AS n
  FROM sch, tumble(t, interval '1 minute') GROUP BY 1, 2$$) IS NOT NULL AS created;
CREATE INDEX ON s1 (window_start);
SELECT windowjoin.create_view('s2', $$SELECT w.window_start, w.window_end, sum(m.n) AS n
  FROM s1 m, tumble(m.window_start, interval '10 minutes') w GROUP BY 1, 2$$) IS NOT NULL AS created;
SELECT windowjoin.create_view('s3', $$SELECT w.window_start, w.window_end, sum(m.n) AS n
  FROM s2 m, tumble(m.window_end, interval '1 hour') w GROUP BY 1, 2$$) IS NOT NULL AS created;
-- (no schedule yet: rows that close a scheduled view's window would wake
-- its refresh at once, changefeed.md)
INSERT INTO sch SELECT '2024-02-01'::timestamptz + i * interval '1 minute', 1 FROM generate_series(1, 70) i;
-- (as the catalog's owner: the extension's write path has no way to
-- pretend a view is overdue)
UPDATE windowjoin.view_catalog
   SET schedule = interval '1 hour',
       last_refresh = now() - CASE view_rel WHEN 'pl.s3'::regclass THEN interval '3 hours'
                                            WHEN 'pl.s2'::regclass THEN interval '2 hours 30 minutes'
                                            ELSE interval '2 hours' END
 WHERE view_rel IN ('pl.s1'::regclass, 'pl.s2'::regclass, 'pl.s3'::regclass);
SELECT windowjoin._scheduler_wake();
DO $$
BEGIN
  FOR i IN 1 .. 300 LOOP
    EXIT WHEN (SELECT min(refreshes) FROM windowjoin.view_catalog
                WHERE view_rel IN ('pl.s1'::regclass, 'pl.s2'::regclass, 'pl.s3'::regclass)) >= 2;
    PERFORM pg_sleep(0.1);
  END LOOP;
END
$$;
SELECT name, refreshes, failures FROM windowjoin.views WHERE name::text IN ('s1', 's2', 's3') ORDER BY 1;
SELECT * FROM s3;

--
-- Dropping an upstream view needs CASCADE, which drops its stages
--
SELECT windowjoin.drop_view('s1');
DROP TABLE s2;
SELECT windowjoin.drop_view('s1', "cascade" => true);
SELECT name FROM windowjoin.views v
  JOIN pg_class c ON c.oid = v.name AND c.relnamespace = 'pl'::regnamespace ORDER BY 1;
SELECT to_regclass('pl.s3') AS s3_gone;

SELECT windowjoin.drop_view('pl.per_minute', "cascade" => true);
SELECT count(*) AS views_left FROM windowjoin.views v
  JOIN pg_class c ON c.oid = v.name AND c.relnamespace = 'pl'::regnamespace;
SET client_min_messages = warning;
DROP SCHEMA pl CASCADE;
RESET client_min_messages;
