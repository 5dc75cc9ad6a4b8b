--
-- Continuous join views (docs/continuous-joins.md): Flink's window
-- join example as views of every join type; the oracle (after every
-- refresh the view equals the batch join over what is final) under random
-- out-of-order streams on both sides with late rows, updates and deletes,
-- for window, interval and as-of joins, each late policy, the nodes on
-- and off; idle sources, truncation, full refresh, and every error.
--
\set SHOW_CONTEXT never
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
SET IntervalStyle = 'postgres';
\set ECHO none
\i sql/include/helpers.sql
\set ECHO all
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS cj CASCADE;
CREATE EXTENSION IF NOT EXISTS btree_gist;
RESET client_min_messages;
CREATE SCHEMA cj;
SET search_path = cj, public;

-- Flink's window join tables (seeds/000)
CREATE TABLE left_table (row_time timestamp, num int, id text);
CREATE TABLE right_table (row_time timestamp, num int, id text);
CREATE INDEX ON left_table (row_time);
CREATE INDEX ON right_table (row_time);
INSERT INTO left_table VALUES
  ('2020-04-15 12:02', 1, 'L1'), ('2020-04-15 12:06', 2, 'L2'), ('2020-04-15 12:03', 3, 'L3');
INSERT INTO right_table VALUES
  ('2020-04-15 12:01', 2, 'R2'), ('2020-04-15 12:04', 3, 'R3'), ('2020-04-15 12:05', 4, 'R4');

SELECT windowjoin.create_view('seed_' || t, format($$
  SELECT L.num AS l_num, L.id AS l_id, R.num AS r_num, R.id AS r_id,
         COALESCE(L.window_start, R.window_start) AS window_start,
         COALESCE(L.window_end, R.window_end) AS window_end
    FROM (SELECT * FROM left_table, tumble(row_time, interval '5 minutes')) L
    %s JOIN (SELECT * FROM right_table, tumble(row_time, interval '5 minutes')) R
      ON L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end$$, t))
  FROM unnest(ARRAY['inner', 'left', 'right', 'full']) t;
SELECT windowjoin.create_view('seed_semi', $$
  SELECT L.num, L.id, L.window_start, L.window_end
    FROM (SELECT * FROM left_table, tumble(row_time, interval '5 minutes')) L
   WHERE EXISTS (SELECT 1 FROM (SELECT * FROM right_table, tumble(row_time, interval '5 minutes')) R
                  WHERE L.num = R.num AND L.window_start = R.window_start
                    AND L.window_end = R.window_end)$$);
SELECT windowjoin.create_view('seed_anti', $$
  SELECT L.num, L.id, L.window_start, L.window_end
    FROM (SELECT * FROM left_table, tumble(row_time, interval '5 minutes')) L
   WHERE NOT EXISTS (SELECT 1 FROM (SELECT * FROM right_table, tumble(row_time, interval '5 minutes')) R
                      WHERE L.num = R.num AND L.window_start = R.window_start
                        AND L.window_end = R.window_end)$$);
SELECT windowjoin.create_view('seed_in', $$
  SELECT L.num, L.id, L.window_start, L.window_end
    FROM (SELECT * FROM left_table, tumble(row_time, interval '5 minutes')) L
   WHERE (L.num, L.window_start, L.window_end) IN
         (SELECT R.num, R.window_start, R.window_end
            FROM (SELECT * FROM right_table, tumble(row_time, interval '5 minutes')) R)$$);
-- the watermark (12:05, the right side's newest row; the left's is 12:06)
-- has closed the first window only
SELECT name, kind, join_type, watermark, left_watermark, right_watermark, rows
  FROM windowjoin.views ORDER BY name::text;
SELECT * FROM seed_full ORDER BY window_start, l_num, r_num;
-- Flink's tables, once both windows are closed
SELECT windowjoin.advance_watermark(v, '2020-04-15 12:10')
  FROM unnest(ARRAY['seed_inner', 'seed_left', 'seed_right', 'seed_full', 'seed_semi',
                    'seed_anti', 'seed_in']::regclass[]) v;
SELECT * FROM seed_inner ORDER BY window_start, l_num;
SELECT * FROM seed_left ORDER BY window_start, l_num;
SELECT * FROM seed_right ORDER BY window_start, r_num;
SELECT * FROM seed_full ORDER BY window_start, l_num, r_num;
SELECT * FROM seed_semi ORDER BY window_start, num;
SELECT * FROM seed_anti ORDER BY window_start, num;
SELECT * FROM seed_in ORDER BY window_start, num;

--
-- The oracle.  cj.spec holds each view's "final" test over the batch
-- query's rows q: window joins, window_end <= the view's watermark;
-- interval and as-of joins, by the frontiers (docs/continuous-joins.md):
-- FL = least(left wm, right wm - hi) for rows of a left row (its time
-- selected as l_t), FR = least(right wm, left wm + lo) for the right rows
-- without a match (l_t null, the right time selected as r_t).
--
CREATE TABLE cj.spec (vw regclass PRIMARY KEY, final text NOT NULL);

CREATE FUNCTION cj.final_rows(view regclass) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  c record;
  fl timestamptz;
  fr timestamptz;
BEGIN
  SELECT v.query, v.watermark, v.left_watermark, v.right_watermark, v.band_lo, v.band_hi, s.final
    INTO c FROM windowjoin.views v JOIN cj.spec s ON s.vw = v.name
   WHERE v.name = view;
  fl := least(c.left_watermark::timestamptz, c.right_watermark::timestamptz - c.band_hi);
  fr := least(c.right_watermark::timestamptz, c.left_watermark::timestamptz + c.band_lo);
  RETURN format('SELECT q.* FROM (%s) q WHERE %s', c.query,
                format(c.final, c.watermark, fl, fr));
END
$$;

-- the view's columns other than the anchor ones
CREATE FUNCTION cj.cols(view regclass) RETURNS text LANGUAGE sql AS $$
  SELECT string_agg(quote_ident(attname), ', ' ORDER BY attnum) FROM pg_attribute
   WHERE attrelid = view AND attnum > 0 AND NOT attisdropped
     AND attname NOT IN ('anchor_time', 'anchor_right')
$$;

-- cj.closed(view): EXCEPT ALL both ways; "ok" or the differences (the
-- batch join is the reference: wj_test.reference_begin)
CREATE FUNCTION cj.closed(view regclass) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  saved text := wj_test.reference_begin();
  q text := cj.final_rows(view);
  n1 bigint;
  n2 bigint;
  nrows bigint;
  catalog_rows bigint;
BEGIN
  EXECUTE format('SELECT count(*) FROM (%s EXCEPT ALL SELECT %s FROM %s) x', q, cj.cols(view), view) INTO n1;
  EXECUTE format('SELECT count(*) FROM (SELECT %s FROM %s EXCEPT ALL %s) x', cj.cols(view), view, q) INTO n2;
  EXECUTE format('SELECT count(*) FROM %s', view) INTO nrows;
  SELECT rows INTO catalog_rows FROM windowjoin.views WHERE name = view;
  PERFORM wj_test.reference_end(saved);
  IF n1 = 0 AND n2 = 0 AND nrows = catalog_rows THEN
    RETURN 'ok';
  END IF;
  RETURN format('%s: %s rows missing, %s rows extra, %s rows (catalog says %s)',
                view, n1, n2, nrows, catalog_rows);
END
$$;

-- cj.frozen(view, before, final before): under 'drop' and 'log' the rows
-- written before are still there, and the new ones are the batch join's
-- rows that became final in this refresh
CREATE FUNCTION cj.frozen(view regclass, before text, was_final text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  n1 bigint;
  n2 bigint;
  saved text := wj_test.reference_begin();
BEGIN
  EXECUTE format('SELECT count(*) FROM (SELECT * FROM %s EXCEPT ALL SELECT * FROM %s) x', before, view) INTO n1;
  EXECUTE format('SELECT count(*) FROM ((SELECT %1$s FROM %2$s EXCEPT ALL SELECT %1$s FROM %3$s) '
                 'EXCEPT ALL (%4$s EXCEPT ALL %5$s)) x',
                 cj.cols(view), view, before, cj.final_rows(view), was_final) INTO n2;
  PERFORM wj_test.reference_end(saved);
  IF n1 = 0 AND n2 = 0 THEN
    RETURN 'ok';
  END IF;
  RETURN format('%s: %s written rows changed, %s new rows not newly final', view, n1, n2);
END
$$;

-- Two streams: rows jittered around a clock that advances, a few late
-- ones far behind it, updates and deletes on both sides; v (the version
-- table of the as-of views) gets a new version per key now and then.
CREATE TABLE a (id serial PRIMARY KEY, t timestamptz, k int, x int);
CREATE TABLE b (id serial PRIMARY KEY, t timestamptz, k int, y int);
CREATE TABLE v (id serial PRIMARY KEY, t timestamptz, k int, rate int);
CREATE INDEX ON a (t);
CREATE INDEX ON b (t);
CREATE INDEX ON v (t);
CREATE INDEX ON v (k, t);

CREATE FUNCTION cj.round(r int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  clock timestamptz := timestamptz '2024-01-01 00:00+00' + r * interval '1 minute';
BEGIN
  INSERT INTO a (t, k, x)
  SELECT clock + (random() * 80 - 60) * interval '1 second', (random() * 3)::int, (random() * 100)::int
    FROM generate_series(1, 12);
  INSERT INTO b (t, k, y)
  SELECT clock + (random() * 80 - 60) * interval '1 second', (random() * 3)::int, (random() * 100)::int
    FROM generate_series(1, 10);
  INSERT INTO v (t, k, rate)
  SELECT clock + (random() * 60 - 50) * interval '1 second', (random() * 3)::int, (random() * 100)::int
    FROM generate_series(1, 3);
  IF r % 3 = 0 THEN
    -- late rows, long after what they touch became final
    INSERT INTO a (t, k, x) SELECT clock - (random() * 8 + 4) * interval '1 minute', (random() * 3)::int, 1000
      FROM generate_series(1, 2);
    INSERT INTO b (t, k, y) SELECT clock - (random() * 8 + 4) * interval '1 minute', (random() * 3)::int, 1000
      FROM generate_series(1, 2);
    INSERT INTO v (t, k, rate) SELECT clock - (random() * 8 + 4) * interval '1 minute', (random() * 3)::int, 1000;
  END IF;
  IF r % 4 = 1 THEN
    UPDATE a SET x = x + 1, t = t + interval '7 seconds' WHERE id IN (SELECT id FROM a ORDER BY random() LIMIT 3);
    UPDATE b SET y = y + 1 WHERE id IN (SELECT id FROM b ORDER BY random() LIMIT 3);
    UPDATE v SET rate = rate + 1 WHERE id IN (SELECT id FROM v ORDER BY random() LIMIT 2);
  END IF;
  IF r % 5 = 2 THEN
    DELETE FROM a WHERE id IN (SELECT id FROM a ORDER BY random() LIMIT 2);
    DELETE FROM b WHERE id IN (SELECT id FROM b ORDER BY random() LIMIT 2);
    DELETE FROM v WHERE id IN (SELECT id FROM v ORDER BY random() LIMIT 1);
  END IF;
END
$$;

SELECT setseed(0.5);
SELECT cj.round(r) FROM generate_series(1, 4) r;

-- window joins: every window kind and join type, aggregated or not
SELECT windowjoin.create_view('cj.w_tumble_agg', $$
  SELECT A.k, A.window_start, A.window_end, count(*) AS n, sum(A.x + B.y) AS s
    FROM (SELECT * FROM a, tumble(t, interval '2 minutes')) A
    JOIN (SELECT * FROM b, tumble(t, interval '2 minutes')) B
      ON A.k = B.k AND A.window_start = B.window_start AND A.window_end = B.window_end
   GROUP BY A.k, A.window_start, A.window_end$$, delay => interval '20 seconds') IS NOT NULL AS created;
SELECT windowjoin.create_view('cj.w_hop_full', $$
  SELECT A.id AS a_id, B.id AS b_id, COALESCE(A.window_start, B.window_start) AS window_start,
         COALESCE(A.window_end, B.window_end) AS window_end
    FROM (SELECT * FROM a, hop(t, interval '1 minute', interval '3 minutes')) A
    FULL JOIN (SELECT * FROM b, hop(t, interval '1 minute', interval '3 minutes')) B
      ON A.k = B.k AND A.x < B.y AND A.window_start = B.window_start AND A.window_end = B.window_end$$,
  delay => interval '10 seconds') IS NOT NULL AS created;
SELECT windowjoin.create_view('cj.w_cumulate_left', $$
  SELECT A.id AS a_id, B.id AS b_id, A.window_start, A.window_end
    FROM (SELECT * FROM a, cumulate(t, interval '1 minute', interval '3 minutes')) A
    LEFT JOIN (SELECT * FROM b, cumulate(t, interval '1 minute', interval '3 minutes')) B
      ON A.k = B.k AND A.window_start = B.window_start AND A.window_end = B.window_end$$) IS NOT NULL AS created;
SELECT windowjoin.create_view('cj.w_anti', $$
  SELECT A.id, A.window_start, A.window_end
    FROM (SELECT * FROM a, tumble(t, interval '1 minute')) A
   WHERE NOT EXISTS (SELECT FROM (SELECT * FROM b, tumble(t, interval '1 minute')) B
                      WHERE B.k = A.k AND B.window_start = A.window_start AND B.window_end = A.window_end)$$,
  delay => interval '5 seconds') IS NOT NULL AS created;
SELECT windowjoin.create_view('cj.w_right_drop', $$
  SELECT A.id AS a_id, B.id AS b_id, B.window_start, B.window_end
    FROM (SELECT * FROM a, tumble(t, interval '2 minutes')) A
   RIGHT JOIN (SELECT * FROM b, tumble(t, interval '2 minutes')) B
      ON A.k = B.k AND A.window_start = B.window_start AND A.window_end = B.window_end$$,
  late => 'drop') IS NOT NULL AS created;
INSERT INTO cj.spec
SELECT name, 'q.window_end <= %1$L' FROM windowjoin.views WHERE join_type IS NOT NULL AND name::text LIKE 'w\_%';

-- interval joins: each join type, a self-join, drop and log
SELECT windowjoin.create_view('cj.i_inner', $$
  SELECT A.id AS a_id, B.id AS b_id, A.t AS l_t, B.t AS r_t
    FROM a A JOIN b B ON A.k = B.k AND B.t BETWEEN A.t - interval '20 seconds' AND A.t + interval '30 seconds'$$,
  delay => interval '10 seconds') IS NOT NULL AS created;
SELECT windowjoin.create_view('cj.i_left', $$
  SELECT A.id AS a_id, B.id AS b_id, A.t AS l_t, B.t AS r_t
    FROM a A LEFT JOIN b B ON A.k = B.k AND B.t >= A.t AND B.t < A.t + interval '40 seconds'$$)
  IS NOT NULL AS created;
SELECT windowjoin.create_view('cj.i_right', $$
  SELECT A.id AS a_id, B.id AS b_id, A.t AS l_t, B.t AS r_t
    FROM a A RIGHT JOIN b B ON A.k = B.k AND A.t - interval '15 seconds' <= B.t AND B.t <= A.t + interval '5 seconds'$$,
  delay => interval '5 seconds') IS NOT NULL AS created;
SELECT windowjoin.create_view('cj.i_full', $$
  SELECT A.id AS a_id, B.id AS b_id, A.t AS l_t, B.t AS r_t, A.x + B.y AS s
    FROM a A FULL JOIN b B ON A.k = B.k AND B.t BETWEEN A.t + interval '5 seconds' AND A.t + interval '50 seconds'$$,
  delay => interval '15 seconds') IS NOT NULL AS created;
SELECT windowjoin.create_view('cj.i_self', $$
  SELECT A.id AS a_id, A2.id AS a2_id, A.t AS l_t, A2.t AS r_t
    FROM a A JOIN a A2 ON A.k <> A2.k AND A2.t BETWEEN A.t - interval '2 seconds' AND A.t + interval '2 seconds'$$)
  IS NOT NULL AS created;
SELECT windowjoin.create_view('cj.i_full_log', $$
  SELECT A.id AS a_id, B.id AS b_id, A.t AS l_t, B.t AS r_t
    FROM a A FULL JOIN b B ON A.k = B.k AND B.t BETWEEN A.t - interval '10 seconds' AND A.t + interval '10 seconds'$$,
  late => 'log') IS NOT NULL AS created;
SELECT windowjoin.create_view('cj.i_left_drop', $$
  SELECT A.id AS a_id, B.id AS b_id, A.t AS l_t, B.t AS r_t
    FROM a A LEFT JOIN b B ON A.k = B.k AND B.t BETWEEN A.t AND A.t + interval '20 seconds'$$,
  late => 'drop') IS NOT NULL AS created;
INSERT INTO cj.spec
SELECT name, '(q.l_t IS NOT NULL AND q.l_t < %2$L) OR (q.l_t IS NULL AND q.r_t < %3$L)'
  FROM windowjoin.views WHERE kind = 'interval';

-- as-of joins: backward (inner and LEFT, with a tolerance), forward and
-- nearest with a tolerance
SELECT windowjoin.create_view('cj.o_back', $$
  SELECT A.id AS a_id, A.t AS l_t, r.rate, A.x * r.rate AS amount
    FROM a A JOIN LATERAL (SELECT rate FROM v WHERE v.k = A.k AND v.t <= A.t
                           ORDER BY v.t DESC LIMIT 1) r ON true$$,
  delay => interval '10 seconds') IS NOT NULL AS created;
SELECT windowjoin.create_view('cj.o_back_left', $$
  SELECT A.id AS a_id, A.t AS l_t, r.id AS v_id
    FROM a A LEFT JOIN LATERAL (SELECT id FROM v WHERE v.k = A.k AND v.t < A.t
                                  AND v.t >= A.t - interval '1 minute'
                                ORDER BY v.t DESC, v.id LIMIT 1) r ON true$$) IS NOT NULL AS created;
SELECT windowjoin.create_view('cj.o_forward', $$
  SELECT A.id AS a_id, A.t AS l_t, r.id AS v_id
    FROM a A LEFT JOIN LATERAL (SELECT id FROM v WHERE v.k = A.k AND v.t >= A.t
                                  AND v.t <= A.t + interval '45 seconds'
                                ORDER BY v.t, v.id LIMIT 1) r ON true$$) IS NOT NULL AS created;
SELECT windowjoin.create_view('cj.o_nearest', $$
  SELECT A.id AS a_id, A.t AS l_t, r.id AS v_id
    FROM a A LEFT JOIN LATERAL (SELECT id FROM v WHERE v.k = A.k
                                  AND v.t BETWEEN A.t - interval '30 seconds' AND A.t + interval '30 seconds'
                                ORDER BY v.t <-> A.t, v.t, v.id LIMIT 1) r ON true$$,
  late => 'log') IS NOT NULL AS created;
INSERT INTO cj.spec SELECT name, 'q.l_t < %2$L' FROM windowjoin.views WHERE kind = 'asof';

SELECT name, kind, join_type, late, band_lo, band_hi, right_source FROM windowjoin.views
 WHERE name::text NOT LIKE 'seed%' ORDER BY name::text;
-- each side has its log; a self-join has one
SELECT view_rel, changes_rel, changes2_rel, late_rel, late2_rel FROM windowjoin.view_catalog
 WHERE view_rel IN ('cj.i_full_log'::regclass, 'cj.i_self'::regclass, 'cj.o_nearest'::regclass)
 ORDER BY view_rel::text;
-- the derived queries of a FULL interval join
SELECT range_query, right_query FROM windowjoin.view_catalog WHERE view_rel = 'cj.i_full'::regclass;

-- cj.fuzz(rounds, first): rounds of changes, a refresh of every view after
-- each, and the oracle; raises on the first difference
CREATE FUNCTION cj.fuzz(rounds int, first int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  r int;
  vw regclass;
  res text;
  policy text;
  was_final text;
  saved text;
  checks int := 0;
BEGIN
  FOR r IN first .. first + rounds - 1 LOOP
    PERFORM cj.round(r);
    FOR vw, policy IN SELECT s.vw, w.late FROM cj.spec s JOIN windowjoin.views w ON w.name = s.vw
                      ORDER BY s.vw::text LOOP
      IF policy <> 'revise' THEN
        EXECUTE format('DROP TABLE IF EXISTS cj_before; CREATE TEMP TABLE cj_before AS SELECT * FROM %s', vw);
        saved := wj_test.reference_begin();
        EXECUTE format('DROP TABLE IF EXISTS cj_was; CREATE TEMP TABLE cj_was AS %s', cj.final_rows(vw));
        PERFORM wj_test.reference_end(saved);
        PERFORM windowjoin.refresh(vw);
        res := cj.frozen(vw, 'cj_before', 'SELECT * FROM cj_was');
      ELSE
        PERFORM windowjoin.refresh(vw);
        res := cj.closed(vw);
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
SELECT cj.fuzz(10, 5);
SET windowjoin.enable_window_join = off;
SET windowjoin.enable_interval_join = off;
SET windowjoin.enable_asof_join = off;
SET windowjoin.enable_window_aggregate = off;
SELECT cj.fuzz(10, 15);
RESET windowjoin.enable_window_join;
RESET windowjoin.enable_interval_join;
RESET windowjoin.enable_asof_join;
RESET windowjoin.enable_window_aggregate;
RESET client_min_messages;
-- every view has rows and saw late changes; the revising ones revised
-- (open_rows: the source rows each still waits on, a few minutes of the
-- streams at most)
SELECT name, late, rows > 0 AS has_rows, late_rows > 0 AS saw_late, revisions > 0 AS revised,
       state_rows, open_rows
  FROM windowjoin.views WHERE name::text NOT LIKE 'seed%' ORDER BY name::text;
-- open_rows of a band view is what its frontiers leave open
SELECT open_rows = (SELECT count(*) FROM a WHERE t >= least(v.left_watermark::timestamptz,
                                                          v.right_watermark::timestamptz - v.band_hi))
                 + (SELECT count(*) FROM b WHERE t >= least(v.left_watermark::timestamptz,
                                                          v.right_watermark::timestamptz - v.band_hi) + v.band_lo)
       AS open_rows_exact
  FROM windowjoin.views v WHERE name = 'cj.i_left'::regclass;
-- 'log' kept the late rows of each side, signed
SELECT count(*) > 0 AS logged, bool_and(change IN (-1, 1)) AS signed FROM cj.i_full_log_late;
SELECT count(*) > 0 AS logged, bool_and(change IN (-1, 1)) AS signed FROM cj.i_full_log_late_right;
SELECT count(*) > 0 AS logged FROM cj.o_nearest_late_right;

-- A full refresh recomputes everything final: same rows
SELECT windowjoin.refresh('cj.i_full', full_refresh => true);
SELECT cj.closed('cj.i_full');
SELECT windowjoin.refresh('cj.w_hop_full', full_refresh => true);
SELECT cj.closed('cj.w_hop_full');

-- TRUNCATE of either side resets the view
TRUNCATE b;
SELECT windowjoin.refresh('cj.i_inner');
SELECT rows, right_watermark FROM windowjoin.views WHERE name = 'cj.i_inner'::regclass;
SELECT cj.closed('cj.i_inner');
INSERT INTO b (t, k, y) VALUES ('2024-01-01 00:30+00', 1, 1);
SELECT cj.round(40);
SELECT windowjoin.refresh('cj.i_inner');
SELECT cj.closed('cj.i_inner');

-- A quiet side holds the view back; with idle it follows the clock (and
-- never lags the other side)
CREATE TABLE qa (t timestamptz, k int);
CREATE TABLE qb (t timestamptz, k int);
INSERT INTO qa VALUES ('2024-01-01 00:00+00', 1);
INSERT INTO qb VALUES ('2024-01-01 00:00+00', 1);
SELECT windowjoin.create_view('cj.q_hold', $$
  SELECT qa.k, qa.t AS l_t, qb.t AS r_t FROM qa LEFT JOIN qb ON qa.k = qb.k AND qb.t BETWEEN qa.t AND qa.t + interval '1 second'$$)
  IS NOT NULL AS created;
SELECT windowjoin.create_view('cj.q_idle', $$
  SELECT qa.k, qa.t AS l_t, qb.t AS r_t FROM qa LEFT JOIN qb ON qa.k = qb.k AND qb.t BETWEEN qa.t AND qa.t + interval '1 second'$$,
  idle => interval '10 milliseconds') IS NOT NULL AS created;
SELECT pg_sleep(0.05);
INSERT INTO qa VALUES ('2024-01-01 01:00+00', 1);
SELECT windowjoin.refresh('cj.q_hold');
SELECT windowjoin.refresh('cj.q_idle');
SELECT name, watermark, left_watermark,
       CASE WHEN right_watermark::timestamptz > now() - interval '1 minute' THEN 'the clock'
            ELSE right_watermark END AS right_watermark, rows, idle
  FROM windowjoin.views WHERE name IN ('cj.q_hold'::regclass, 'cj.q_idle'::regclass) ORDER BY name::text;
-- ... and advance_watermark moves both sides
SELECT windowjoin.advance_watermark('cj.q_hold', '2024-01-01 02:00+00');
SELECT name, watermark, left_watermark, right_watermark, rows FROM windowjoin.views
 WHERE name = 'cj.q_hold'::regclass;

-- Dropping: the view, both logs and both sides' triggers go
SELECT windowjoin.drop_view('cj.i_full_log');
SELECT count(*) AS left_over FROM pg_class WHERE relname LIKE 'i_full_log%';
SELECT count(*) AS triggers_left FROM pg_trigger WHERE tgrelid IN ('cj.a'::regclass, 'cj.b'::regclass)
   AND tgname LIKE 'windowjoin\_%' AND NOT EXISTS (
     SELECT FROM windowjoin.view_catalog c WHERE tgname LIKE 'windowjoin\_' || c.view_rel::oid || '\_%');
-- DROP TABLE of the right source is refused while a view reads it
DROP TABLE v;

-- Errors
SELECT windowjoin.create_view('cj.e1', $$SELECT a.id FROM a JOIN b ON a.k = b.k$$);
SELECT windowjoin.create_view('cj.e2', $$SELECT a.id FROM a JOIN b ON a.k = b.k AND b.t >= a.t$$);
SELECT windowjoin.create_view('cj.e3', $$SELECT a.id FROM a LEFT JOIN LATERAL (
  SELECT id FROM v WHERE v.k = a.k AND v.t >= a.t ORDER BY v.t LIMIT 1) r ON true$$);
SELECT windowjoin.create_view('cj.e4', $$SELECT A.k, A.window_start, A.window_end
    FROM (SELECT * FROM a, tumble(t, interval '2 minutes')) A
    JOIN (SELECT * FROM b, tumble(t, interval '3 minutes')) B
      ON A.k = B.k AND A.window_start = B.window_start AND A.window_end = B.window_end$$);
SELECT windowjoin.create_view('cj.e5', $$SELECT A.k, A.window_start, A.window_end
    FROM (SELECT * FROM a, tumble(t, interval '2 minutes')) A
    JOIN (SELECT * FROM b, tumble(t, interval '2 minutes')) B ON A.k = B.k$$);
SELECT windowjoin.create_view('cj.e6', $$SELECT A.k, A.window_start + interval '0' AS window_start, A.window_end
    FROM (SELECT * FROM a, tumble(t, interval '2 minutes')) A
    JOIN (SELECT * FROM b, tumble(t, interval '2 minutes')) B
      ON A.k = B.k AND A.window_start = B.window_start AND A.window_end = B.window_end$$);
SELECT windowjoin.create_view('cj.e7', $$SELECT A.k, count(*)
    FROM a A JOIN b B ON A.k = B.k AND B.t BETWEEN A.t AND A.t + interval '1 second' GROUP BY A.k$$);
SELECT windowjoin.create_view('cj.e8', $$SELECT A.id, A.t AS anchor_time
    FROM a A JOIN b B ON A.k = B.k AND B.t BETWEEN A.t AND A.t + interval '1 second'$$);
SELECT windowjoin.create_view('cj.e9', $$SELECT A.id
    FROM a A JOIN b B ON A.k = B.k AND B.t BETWEEN A.t + interval '2 seconds' AND A.t + interval '1 second'$$);
SELECT windowjoin.create_view('cj.e10', $$SELECT A.id
    FROM a A JOIN b B ON A.k = B.k AND B.t BETWEEN A.t AND A.t + interval '1 second'$$, emit => 'on_update');
SELECT windowjoin.create_view('cj.e11', $$SELECT A.id
    FROM a A JOIN b B ON A.k = B.k AND B.t BETWEEN A.t AND A.t + interval '1 second'$$, idle => interval '0');
SELECT windowjoin.create_view('cj.e12', $$SELECT window_start, window_end, count(*)
    FROM a, tumble(t, interval '1 minute') GROUP BY 1, 2$$, idle => interval '1 minute');
SELECT windowjoin.create_view('cj.e13', $$SELECT A.id FROM a A JOIN b B ON A.k = B.k
    AND B.t BETWEEN A.t AND A.t + interval '1 second' JOIN v ON v.k = A.k$$);
SELECT windowjoin.create_view('cj.e14', $$SELECT A.id, A.window_start, A.window_end
    FROM (SELECT * FROM a, tumble(t, interval '2 minutes')) A
    JOIN (SELECT * FROM b, tumble(t, interval '2 minutes')) B
      ON A.k = B.k AND A.window_start = B.window_start AND A.window_end = B.window_end
    JOIN v ON v.k = A.k$$);

DROP SCHEMA cj CASCADE;
