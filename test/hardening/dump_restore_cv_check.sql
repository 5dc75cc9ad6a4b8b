-- Run in the source database and in its restored copy by
-- test/hardening/dump_restore.sh: the stream goes on after the restore --
-- the same new rows (late and on time), then 12 rounds of seeded random
-- rows, late ones, updates and deletes, with a refresh of every view (as
-- its owner) after each -- and then one line per view: its rows' md5,
-- watermark, row count, late rows and revisions, v_tumble's feed and its
-- consumer's position, and for each revising
-- view whether it equals its batch query over its closed windows.
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
SET TimeZone = 'UTC';
SET ROLE wj_cv_owner;
SET search_path = cv, public;
INSERT INTO bid VALUES ('2024-01-01 00:05', 1, 1), ('2024-01-01 06:00', 2, 2), ('2024-01-01 00:40', 3, 3);
INSERT INTO ask VALUES ('2024-01-01 00:05', 1, 1), ('2024-01-01 06:00', 2, 2);
\o /dev/null
SELECT windowjoin.refresh(v) FROM unnest('{v_tumble,v_hop,v_session,v_log,v_join}'::regclass[]) v;
SELECT setseed(0.75);
\o
DO $$
DECLARE
  clock timestamptz;
BEGIN
  FOR r IN 1 .. 12 LOOP
    clock := '2024-01-01 06:00+00'::timestamptz + r * interval '10 minutes';
    INSERT INTO cv.bid SELECT clock - random() * interval '5 minutes', (random() * 4)::int, (random() * 50)::int
      FROM generate_series(1, 30);
    INSERT INTO cv.ask SELECT clock - random() * interval '5 minutes', (random() * 4)::int, (random() * 50)::int
      FROM generate_series(1, 20);
    IF r % 3 = 0 THEN
      INSERT INTO cv.bid SELECT clock - (20 + random() * 200) * interval '1 minute', (random() * 4)::int, 999
        FROM generate_series(1, 3);
      UPDATE cv.bid SET price = price + 1 WHERE ctid IN (SELECT ctid FROM cv.bid ORDER BY random() LIMIT 4);
      DELETE FROM cv.ask WHERE ctid IN (SELECT ctid FROM cv.ask ORDER BY random() LIMIT 2);
    END IF;
    PERFORM windowjoin.refresh(v) FROM unnest('{cv.v_tumble,cv.v_hop,cv.v_session,cv.v_log,cv.v_join}'::regclass[]) v;
  END LOOP;
END
$$;
SELECT format('%s rows=%s watermark=%s late=%s revisions=%s', v.name, v.rows, v.watermark,
              v.late_rows, v.revisions)
  FROM windowjoin.views v ORDER BY v.name::text;
SELECT 'v_tumble ' || md5(string_agg(q::text, E'\n' ORDER BY q::text)) FROM cv.v_tumble q;
SELECT 'v_hop ' || md5(string_agg(q::text, E'\n' ORDER BY q::text)) FROM cv.v_hop q;
SELECT 'v_session ' || md5(string_agg(q::text, E'\n' ORDER BY q::text)) FROM cv.v_session q;
SELECT 'v_log ' || md5(string_agg(q::text, E'\n' ORDER BY q::text)) FROM cv.v_log q;
SELECT 'v_log_late ' || count(*) FROM cv.v_log_late;
SELECT 'v_join ' || md5(string_agg(q::text, E'\n' ORDER BY q::text)) FROM cv.v_join q;
SELECT 'capture triggers ' || count(*) FROM pg_trigger WHERE tgname LIKE 'windowjoin\_%';
-- the feed went on from where it was, with its consumer: the same rows
SELECT 'v_tumble_feed ' || md5(string_agg(q::text, E'\n' ORDER BY q.seq)) FROM cv.v_tumble_feed q;
SELECT format('feed seq=%s consumers=%s backlog=%s', feed_seq, feed_consumers, feed_backlog)
  FROM windowjoin.views WHERE feed IS NOT NULL;
-- each revising view equals its batch query over its closed windows
CREATE TEMP TABLE cv_oracle (line text);
DO $$
DECLARE
  c record;
  n bigint;
BEGIN
  FOR c IN SELECT view_rel, query, windowjoin._show(watermark, time_type) AS wm
             FROM windowjoin.view_catalog WHERE late = 'revise' LOOP
    EXECUTE format('SELECT count(*) FROM ((SELECT q.* FROM (%1$s) q WHERE q.window_end <= %2$L '
                   'EXCEPT ALL SELECT * FROM %3$s) UNION ALL (SELECT * FROM %3$s EXCEPT ALL '
                   'SELECT q.* FROM (%1$s) q WHERE q.window_end <= %2$L)) x', c.query, c.wm, c.view_rel)
      INTO n;
    INSERT INTO cv_oracle VALUES (format('%s: %s rows differ from its batch query', c.view_rel, n));
  END LOOP;
END
$$;
SELECT line FROM cv_oracle ORDER BY 1;
