--
-- Continuous window views (docs/continuous.md): the Flink Bid examples
-- kept as views, the oracle (after every refresh the view equals the batch
-- query over the closed windows) under random out-of-order inserts,
-- updates, deletes and late rows for tumble, hop, cumulate and session,
-- with each late policy and with the nodes on and off, and every error.
--
\set SHOW_CONTEXT never
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
SET IntervalStyle = 'postgres';

\set ECHO none
\i sql/include/helpers.sql
\set ECHO all
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS cv CASCADE;
RESET client_min_messages;
CREATE SCHEMA cv;
SET search_path = cv, public;

-- The Flink Bid table (seeds/003): every window kind as a view.
CREATE TABLE bid (bidtime timestamp, price numeric(10,2), item text);
CREATE INDEX ON bid (bidtime);
INSERT INTO bid VALUES
  ('2020-04-15 08:05', 4.00, 'C'), ('2020-04-15 08:07', 2.00, 'A'),
  ('2020-04-15 08:09', 5.00, 'D'), ('2020-04-15 08:11', 3.00, 'B'),
  ('2020-04-15 08:13', 1.00, 'E'), ('2020-04-15 08:17', 6.00, 'F');

SELECT windowjoin.create_view('bid_tumble',
  $$SELECT window_start, window_end, sum(price) AS total_price
      FROM bid, tumble(bidtime, interval '10 minutes')
     GROUP BY window_start, window_end$$,
  delay => interval '1 second');
SELECT windowjoin.create_view('bid_hop',
  $$SELECT window_start, window_end, sum(price) AS total_price
      FROM bid, hop(bidtime, interval '5 minutes', interval '10 minutes')
     GROUP BY window_start, window_end$$);
SELECT windowjoin.create_view('bid_cumulate',
  $$SELECT window_start, window_end, sum(price) AS total_price
      FROM bid, cumulate(bidtime, interval '2 minutes', interval '10 minutes')
     GROUP BY window_start, window_end$$);
SELECT windowjoin.create_view('bid_session',
  $$SELECT item, window_start, window_end, sum(price) AS total_price
      FROM (SELECT item, price, session(bidtime, interval '5 minutes')
                     OVER (PARTITION BY item ORDER BY bidtime) AS w
              FROM bid) s, LATERAL (SELECT (s.w).window_start, (s.w).window_end) x
     GROUP BY item, window_start, window_end$$);
SELECT windowjoin.create_view('bid_session',
  $$SELECT item, window_start, window_end, sum(price) AS total_price
      FROM (SELECT item, price,
                   (session(bidtime, interval '5 minutes')
                      OVER (PARTITION BY item ORDER BY bidtime)).*
              FROM bid) s
     GROUP BY item, window_start, window_end$$);
-- What is closed at watermark 08:17 (08:17 - 0 for hop, cumulate and
-- session; 08:16:59 for tumble's one-second delay).
SELECT name, kind, watermark, max_event_time, lag, rows, state_rows, late_rows
  FROM windowjoin.views ORDER BY name::text;
SELECT * FROM bid_tumble ORDER BY 1;
SELECT * FROM bid_hop ORDER BY 1;
SELECT * FROM bid_cumulate ORDER BY 1, 2;
SELECT * FROM bid_session ORDER BY 2, 1;
-- Close everything: the seed's tables, row for row.
SELECT windowjoin.advance_watermark(v, '2020-04-15 08:30')
  FROM unnest('{bid_tumble,bid_hop,bid_cumulate,bid_session}'::regclass[]) v;
SELECT * FROM bid_tumble ORDER BY 1;
SELECT * FROM bid_hop ORDER BY 1;
SELECT * FROM bid_cumulate ORDER BY 1, 2;
SELECT * FROM bid_session ORDER BY 2, 1;
-- A late bid revises its closed windows (late => 'revise', the default).
INSERT INTO bid VALUES ('2020-04-15 08:01', 10.00, 'G');
SELECT windowjoin.refresh('bid_tumble', verbose => true);
SELECT * FROM bid_tumble ORDER BY 1;
SELECT name, rows, late_rows, revisions, refreshes,
       last_refresh_steps->'changes_folded' AS folded,
       last_refresh_steps->'windows_revised' AS revised
  FROM windowjoin.views WHERE name = 'bid_tumble'::regclass;
-- TRUNCATE resets the view.
TRUNCATE bid;
SELECT windowjoin.refresh('bid_tumble');
SELECT name, watermark, rows FROM windowjoin.views WHERE name = 'bid_tumble'::regclass;
SELECT count(*) FROM bid_tumble;

-- The source cannot be dropped under a view; DROP TABLE of a view, or of
-- the source with CASCADE, removes its catalog row, log and triggers.
DROP TABLE bid;
SELECT windowjoin.drop_view('bid_hop');
DROP TABLE bid_cumulate;
SELECT name FROM windowjoin.views ORDER BY 1;
DROP TABLE bid CASCADE;
SELECT count(*) AS views, (SELECT count(*) FROM pg_trigger WHERE tgname LIKE 'windowjoin\_%') AS triggers,
       (SELECT count(*) FROM pg_class WHERE relname LIKE 'bid\_%') AS tables
  FROM windowjoin.views;

--
-- The oracle.
--
-- cv.closed(view): the batch query over the closed windows, EXCEPT ALL
-- both ways against the view's final rows; "ok" or the differences.
-- cv.frozen(view, before): under 'drop' and 'log', the rows emitted before
-- a refresh are still there, unchanged, and every other row is the batch
-- query's for a window that closed in this refresh.  (sql/include/helpers.sql)
CREATE FUNCTION cv.closed(view regclass) RETURNS text LANGUAGE sql AS
  'SELECT wj_test.cv_closed(view)';
CREATE FUNCTION cv.frozen(view regclass, before text, old_wm text) RETURNS text LANGUAGE sql AS
  'SELECT wj_test.cv_frozen(view, before, old_wm)';

-- The source: events with a jitter of a few minutes around a clock that
-- advances, a few late ones far behind it, and updates and deletes.
CREATE TABLE ev (id serial PRIMARY KEY, t timestamptz, k int, v int);
CREATE INDEX ON ev (t);
CREATE TABLE evp (id int, t timestamp, k int, v int) PARTITION BY RANGE (t);
CREATE TABLE evp_1 PARTITION OF evp FOR VALUES FROM (MINVALUE) TO ('2024-01-01 02:00');
CREATE TABLE evp_2 PARTITION OF evp FOR VALUES FROM ('2024-01-01 02:00') TO (MAXVALUE);
CREATE INDEX ON evp (t);

-- cv.round(n): one round of changes to ev (and the same to evp).
CREATE FUNCTION cv.round(r int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  clock timestamptz := timestamptz '2024-01-01 00:00+00' + r * interval '3 minutes';
BEGIN
  INSERT INTO ev (t, k, v)
  SELECT clock + (random() * 240 - 200) * interval '1 second',
         (random() * 4)::int, (random() * 100)::int
    FROM generate_series(1, 40);
  IF r % 3 = 0 THEN
    -- late rows, long after their windows closed
    INSERT INTO ev (t, k, v)
    SELECT clock - (random() * 40 + 12) * interval '1 minute', (random() * 4)::int, 1000
      FROM generate_series(1, 3);
  END IF;
  IF r % 4 = 1 THEN
    UPDATE ev SET v = v + 1, t = t + interval '20 seconds'
     WHERE id IN (SELECT id FROM ev ORDER BY random() LIMIT 5);
  END IF;
  IF r % 5 = 2 THEN
    DELETE FROM ev WHERE id IN (SELECT id FROM ev ORDER BY random() LIMIT 4);
  END IF;
  INSERT INTO evp SELECT id, t AT TIME ZONE 'UTC', k, v FROM ev WHERE id NOT IN (SELECT id FROM evp);
  UPDATE evp SET t = ev.t AT TIME ZONE 'UTC', v = ev.v FROM ev
   WHERE ev.id = evp.id AND (evp.t, evp.v) IS DISTINCT FROM (ev.t AT TIME ZONE 'UTC', ev.v);
  DELETE FROM evp WHERE id NOT IN (SELECT id FROM ev);
END
$$;

SELECT setseed(0.25);
SELECT cv.round(r) FROM generate_series(1, 5) r;

-- revise: every kind, timestamptz and partitioned timestamp sources, a
-- WHERE and a HAVING, an offset, and open windows shown (on_update)
SELECT windowjoin.create_view('cv.t_rev',
  $$SELECT k, window_start, window_end, count(*) AS n, sum(v) AS s, min(v), max(v), avg(v)
      FROM ev, tumble(t, interval '2 minutes') WHERE v <> 13
     GROUP BY k, window_start, window_end$$, delay => interval '30 seconds') IS NOT NULL AS created;
SELECT windowjoin.create_view('cv.h_rev',
  $$SELECT window_start, window_end, count(*) AS n, sum(v) AS s, string_agg(v::text, ',' ORDER BY id) AS vs
      FROM ev, hop(t, interval '1 minute', interval '5 minutes', "offset" => interval '10 seconds')
     GROUP BY window_start, window_end HAVING count(*) > 1$$, delay => interval '1 minute') IS NOT NULL AS created;
SELECT windowjoin.create_view('cv.c_rev',
  $$SELECT k, window_start, window_end, count(*) AS n, bool_or(v > 90) AS big
      FROM evp, cumulate(t, interval '1 minute', interval '4 minutes')
     GROUP BY k, window_start, window_end$$, emit => 'on_update') IS NOT NULL AS created;
-- hop and cumulate views whose aggregates combine keep pane partial
-- states (docs/continuous.md): keys computed from columns, a WHERE, a
-- HAVING, FILTER, an offset, expressions over aggregates, exact numeric
-- sums and averages
SELECT windowjoin.create_view('cv.hp_rev',
  $$SELECT k % 3 AS kk, window_start, window_end, count(*) AS n, count(v) AS nv,
           sum(v) * 2 + count(*) AS expr, avg(v) AS a, min(v) AS lo,
           max(v) FILTER (WHERE v < 50) AS hi, bool_and(v > 5) AS all5
      FROM evp, hop(t, interval '30 seconds', interval '2 minutes', "offset" => interval '10 seconds')
     WHERE v <> 7
     GROUP BY k % 3, window_start, window_end HAVING sum(v) > 20$$,
  delay => interval '20 seconds') IS NOT NULL AS created;
SELECT windowjoin.create_view('cv.cp_rev',
  $$SELECT window_start, window_end, sum(v::numeric / 3) AS s3, avg(v::bigint) AS a8,
           sum(v::bigint) AS s8, sum(v::smallint) AS s2, min(t) AS first_t, every(v > 1) AS all1
      FROM ev, cumulate(t, interval '1 minute', interval '3 minutes', interval '20 seconds')
     GROUP BY window_start, window_end$$) IS NOT NULL AS created;
SELECT windowjoin.create_view('cv.s_rev',
  $$SELECT k, window_start, window_end, count(*) AS n, sum(v) AS s
      FROM (SELECT k, v, (session(t, interval '40 seconds') OVER (PARTITION BY k ORDER BY t)).*
              FROM ev) s
     GROUP BY k, window_start, window_end$$, delay => interval '10 seconds') IS NOT NULL AS created;
SELECT windowjoin.create_view('cv.sp_rev',
  $$SELECT k, window_start, window_end, count(*) AS n
      FROM (SELECT k, session(t, interval '30 seconds') OVER (PARTITION BY k ORDER BY t) AS w
              FROM evp) s0, LATERAL (SELECT (s0.w).window_start, (s0.w).window_end) x
     GROUP BY k, window_start, window_end$$, emit => 'on_update') IS NOT NULL AS created;
SELECT windowjoin.create_view('cv.sp_rev',
  $$SELECT k, (w).window_start, (w).window_end, count(*) AS n
      FROM (SELECT k, session(t, interval '30 seconds') OVER (PARTITION BY k ORDER BY t) AS w
              FROM evp) s0
     GROUP BY k, (w).window_start, (w).window_end$$, emit => 'on_update') IS NOT NULL AS created;
-- drop and log
SELECT windowjoin.create_view('cv.t_drop',
  $$SELECT k, window_start, window_end, count(*) AS n, sum(v) AS s
      FROM ev, tumble(t, interval '2 minutes') GROUP BY k, window_start, window_end$$,
  late => 'drop') IS NOT NULL AS created;
SELECT windowjoin.create_view('cv.h_drop',
  $$SELECT window_start, window_end, count(*) AS n, sum(v) AS s
      FROM ev, hop(t, interval '1 minute', interval '3 minutes') GROUP BY window_start, window_end$$,
  late => 'drop') IS NOT NULL AS created;
SELECT windowjoin.create_view('cv.c_log',
  $$SELECT window_start, window_end, count(*) AS n, sum(v) AS s
      FROM ev, cumulate(t, interval '1 minute', interval '3 minutes') GROUP BY window_start, window_end$$,
  late => 'log') IS NOT NULL AS created;
-- a late row can merge or split closed sessions: sessions are revised
SELECT windowjoin.create_view('cv.s_log',
  $$SELECT k, window_start, window_end, count(*) AS n, sum(v) AS s
      FROM (SELECT k, v, (session(t, interval '40 seconds') OVER (PARTITION BY k ORDER BY t)).* FROM ev) s
     GROUP BY k, window_start, window_end$$,
  late => 'log') IS NOT NULL AS created;

-- which views keep panes: not h_rev (string_agg with ORDER BY) nor the
-- tumble and session views
SELECT view_rel, panes_rel IS NOT NULL AS panes FROM windowjoin.view_catalog
 ORDER BY view_rel::text;

-- cv.fuzz(rounds, nodes): rounds of changes, a refresh of every view after
-- each, and the oracle; raises on the first difference.
CREATE FUNCTION cv.fuzz(rounds int, first int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  r int;
  v regclass;
  res text;
  old_wm text;
  policy text;
  checks int := 0;
BEGIN
  FOR r IN first .. first + rounds - 1 LOOP
    PERFORM cv.round(r);
    FOR v IN SELECT name FROM windowjoin.views ORDER BY name::text LOOP
      SELECT watermark, late INTO old_wm, policy FROM windowjoin.views WHERE name = v;
      IF policy <> 'revise' THEN
        EXECUTE format('DROP TABLE IF EXISTS cv_before; CREATE TEMP TABLE cv_before AS SELECT * FROM %s', v);
        PERFORM windowjoin.refresh(v);
        res := cv.frozen(v, 'cv_before', old_wm);
      ELSE
        PERFORM windowjoin.refresh(v);
        res := cv.closed(v);
      END IF;
      IF res <> 'ok' THEN
        RAISE EXCEPTION 'round %: %', r, res;
      END IF;
      checks := checks + 1;
    END LOOP;
  END LOOP;
  RETURN format('%s checks ok', checks);
END
$$;

SET client_min_messages = warning;
SELECT cv.fuzz(12, 6);
SET windowjoin.enable_window_aggregate = off;
SET windowjoin.enable_window_join = off;
SELECT cv.fuzz(12, 18);
RESET windowjoin.enable_window_aggregate;
RESET windowjoin.enable_window_join;
RESET client_min_messages;
-- every view saw late changes, and the revising ones revised
SELECT name, late, rows > 0 AS has_rows, late_rows > 0 AS saw_late, revisions > 0 AS revised,
       state_rows
  FROM windowjoin.views ORDER BY name::text;
-- 'log' kept the late rows (cumulate: rows that fall in a closed window;
-- their open windows count them)
SELECT count(*) > 0 AS logged, bool_and(change IN (-1, 1)) AS signed FROM cv.c_log_late;
CREATE FUNCTION cv.without_late(view regclass, late regclass) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  c record;
  q text;
  n1 bigint;
  n2 bigint;
BEGIN
  SELECT * INTO c FROM windowjoin.view_catalog WHERE view_rel = view;
  EXECUTE 'CREATE TEMP TABLE ev_kept AS
           SELECT id, t, k, v FROM ev
           EXCEPT ALL SELECT id, t, k, v FROM ' || late || ' WHERE change = 1
           UNION ALL SELECT id, t, k, v FROM ' || late || ' WHERE change = -1';
  EXECUTE 'ANALYZE ev_kept';
  q := replace(c.query, 'FROM ev', 'FROM ev_kept');
  EXECUTE format('SELECT count(*) FROM (SELECT q.* FROM (%s) q WHERE q.window_end <= %L EXCEPT ALL SELECT * FROM %s) x',
                 q, windowjoin._show(c.watermark, c.time_type), view) INTO n1;
  EXECUTE format('SELECT count(*) FROM (SELECT * FROM %s EXCEPT ALL SELECT q.* FROM (%s) q WHERE q.window_end <= %L) x',
                 view, q, windowjoin._show(c.watermark, c.time_type)) INTO n2;
  RETURN CASE WHEN n1 = 0 AND n2 = 0 THEN 'ok' ELSE format('%s missing, %s extra', n1, n2) END;
END
$$;
-- tumble: every late row is wholly late, so the view is the batch query
-- over the source without the logged inserts and with the logged deletes
SELECT windowjoin.create_view('cv.t_log',
  $$SELECT k, window_start, window_end, count(*) AS n, sum(v) AS s
      FROM ev, tumble(t, interval '2 minutes') GROUP BY k, window_start, window_end$$,
  late => 'log') IS NOT NULL AS created;
SELECT cv.round(r) FROM generate_series(30, 36) r;
SELECT windowjoin.refresh('cv.t_log');
SELECT count(*) > 0 AS logged FROM cv.t_log_late;
SELECT cv.without_late('cv.t_log', 'cv.t_log_late');
-- a full refresh recomputes every closed window from the source
SELECT windowjoin.refresh('cv.t_rev', full_refresh => true);
SELECT cv.closed('cv.t_rev');

-- Sessions fed in time order (disorder within the delay): each refresh
-- folds the new rows as session fragments into the open sessions it keeps
-- (path 'fragments'), also when rows not yet folded are updated or deleted
CREATE TABLE so (id serial, t timestamptz, k int, v int);
CREATE INDEX ON so (t);
SELECT windowjoin.create_view('cv.so_frag',
  $$SELECT k, window_start, window_end, count(*) AS n, sum(v) AS s, avg(v) AS a, max(v) AS hi
      FROM (SELECT k, v, (session(t, interval '30 seconds') OVER (PARTITION BY k ORDER BY t)).*
              FROM so WHERE v <> 3) s
     GROUP BY k, window_start, window_end HAVING count(*) > 1$$,
  delay => interval '20 seconds') IS NOT NULL AS created;
CREATE FUNCTION cv.so_rounds(first int, rounds int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  clock timestamptz;
  res text;
  fragments int := 0;
BEGIN
  FOR r IN first .. first + rounds - 1 LOOP
    clock := timestamptz '2024-03-01 00:00+00' + r * interval '25 seconds';
    -- each key is silent two rounds in three: its sessions close
    INSERT INTO so (t, k, v)
    SELECT clock - random() * interval '15 seconds', k, (random() * 10)::int
      FROM generate_series(1, 24) i, LATERAL (SELECT i % 4 AS k) x
     WHERE (r / 2 + k) % 3 <> 0;
    IF r % 3 = 0 THEN
      UPDATE so SET v = v + 1 WHERE id IN (SELECT id FROM so ORDER BY t DESC LIMIT 3);
    END IF;
    IF r % 4 = 1 THEN
      DELETE FROM so WHERE id IN (SELECT id FROM so ORDER BY t DESC LIMIT 2);
    END IF;
    PERFORM windowjoin.refresh('cv.so_frag');
    IF (SELECT last_refresh_steps->>'path' FROM windowjoin.views WHERE name = 'cv.so_frag'::regclass) = 'fragments' THEN
      fragments := fragments + 1;
    END IF;
    res := cv.closed('cv.so_frag');
    IF res <> 'ok' THEN
      RAISE EXCEPTION 'round %: %', r, res;
    END IF;
  END LOOP;
  RETURN format('%s rounds ok, %s through fragments', rounds, fragments);
END
$$;
SELECT cv.so_rounds(1, 30);
-- a row behind the watermark: the sessions are recomputed from the source
INSERT INTO so (t, k, v) VALUES (timestamptz '2024-03-01 00:05:00+00', 1, 5);
SELECT windowjoin.refresh('cv.so_frag');
SELECT last_refresh_steps->>'path' AS path, state_rows > 0 AS has_state FROM windowjoin.views
 WHERE name = 'cv.so_frag'::regclass;
SELECT cv.closed('cv.so_frag');
SELECT cv.so_rounds(31, 6);
SELECT count(*) > 10 AS sessions FROM cv.so_frag;

--
-- Errors: each is clear and changes nothing.
--
CREATE TABLE other (k int, t timestamptz);
SELECT windowjoin.create_view('cv.e1', $$SELECT window_start, window_end, count(*) FROM ev, other, tumble(ev.t, interval '1 minute') GROUP BY 1, 2$$);
SELECT windowjoin.create_view('cv.e2', $$SELECT window_start, window_end FROM ev, tumble(t, interval '1 minute')$$);
SELECT windowjoin.create_view('cv.e3', $$SELECT window_end, count(*) FROM ev, tumble(t, interval '1 minute') GROUP BY 1$$);
SELECT windowjoin.create_view('cv.e4', $$SELECT window_start, window_end, count(*) FROM ev, tumble(t, interval '1 minute') GROUP BY 1, 2 ORDER BY 1$$);
SELECT windowjoin.create_view('cv.e5', $$SELECT window_start, window_end, count(*) FROM ev, tumble(t, interval '1 minute') WHERE random() > 0.5 GROUP BY 1, 2$$);
SELECT windowjoin.create_view('cv.e6', $$SELECT window_start, window_end, count(*) FROM ev, tumble(t, make_interval(mins => k)) GROUP BY 1, 2$$);
SELECT windowjoin.create_view('cv.e7', $$WITH x AS (SELECT * FROM ev) SELECT window_start, window_end, count(*) FROM x, tumble(t, interval '1 minute') GROUP BY 1, 2$$);
SELECT windowjoin.create_view('cv.e8', $$SELECT window_start, window_end, count(*) FROM ev, tumble(t, interval '1 minute') GROUP BY 1, 2 UNION ALL SELECT window_start, window_end, 0 FROM ev, tumble(t, interval '1 minute')$$);
SELECT windowjoin.create_view('cv.e9', $$SELECT window_start, window_end, count(*) FROM ev, tumble(t, interval '1 month') GROUP BY 1, 2$$);
SELECT windowjoin.create_view('cv.e10', $$SELECT k, window_start, window_end, count(*) FROM (SELECT k, (session(t, interval '1 minute') OVER (PARTITION BY k ORDER BY v)).* FROM ev) s GROUP BY 1, 2, 3$$);
SELECT windowjoin.create_view('cv.e11', $$SELECT k, window_start, window_end, count(*), row_number() OVER () FROM ev, tumble(t, interval '1 minute') GROUP BY 1, 2, 3$$);
SELECT windowjoin.create_view('cv.e12', $$SELECT t AS window_start, t AS window_end, count(*) FROM ev GROUP BY 1, 2$$);
SELECT windowjoin.create_view('cv.e13', $$SELECT window_start, window_end, count(*) FROM ev, generate_series(1, 2) g, tumble(t, interval '1 minute') GROUP BY 1, 2$$);
SELECT windowjoin.create_view('cv.e14', 'DELETE FROM ev');
SELECT windowjoin.create_view('cv.e19', $$SELECT window_start, window_end, count(*) FROM (SELECT * FROM ev, tumble(t, interval '1 minute')) s GROUP BY 1, 2$$);
SELECT windowjoin.create_view('cv.e20', $$SELECT window_start, window_end, count(*) FROM pg_class, tumble(now(), interval '1 minute') GROUP BY 1, 2$$);
SELECT windowjoin.create_view('cv.t_rev', $$SELECT window_start, window_end, count(*) FROM ev, tumble(t, interval '1 minute') GROUP BY 1, 2$$);
SELECT windowjoin.create_view('cv.e15', $$SELECT window_start, window_end, count(*) FROM ev, tumble(t, interval '1 minute') GROUP BY 1, 2$$, late => 'keep');
SELECT windowjoin.create_view('cv.e16', $$SELECT window_start, window_end, count(*) FROM ev, tumble(t, interval '1 minute') GROUP BY 1, 2$$, delay => interval '-1 second');
SELECT windowjoin.create_view('cv.e17', $$SELECT window_start, window_end, count(*) FROM ev, tumble(t, interval '1 minute') GROUP BY 1, 2$$, schedule => interval '0');
SELECT windowjoin.create_view('cv.e18', $$SELECT window_start, window_end, count(*) FROM ev, tumble(t, interval '1 minute') GROUP BY 1, 2$$, emit => 'always');
SELECT windowjoin.refresh('cv.nope');
SELECT windowjoin.refresh('cv.other');
SELECT windowjoin.advance_watermark('cv.t_rev', '2000-01-01');
SELECT windowjoin.drop_view('cv.other');
SELECT count(*) AS views, (SELECT count(*) FROM pg_class WHERE relname ~ '^e[0-9]+') AS stray_tables
  FROM windowjoin.views;

-- Privileges: another role neither sees nor refreshes these views.
CREATE ROLE cv_other;
GRANT USAGE ON SCHEMA cv TO cv_other;
SET ROLE cv_other;
SELECT count(*) FROM windowjoin.views;
SELECT windowjoin.refresh('cv.t_rev');
RESET ROLE;
REVOKE USAGE ON SCHEMA cv FROM cv_other;
DROP ROLE cv_other;

-- windowjoin_status() tells whether the scheduler runs
SELECT feature, active FROM windowjoin_status() WHERE feature LIKE 'continuous%';

SET client_min_messages = warning;
DROP SCHEMA cv CASCADE;
RESET client_min_messages;
SELECT count(*) FROM windowjoin.views;
