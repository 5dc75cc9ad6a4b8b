-- Run in the source database and in its restored copy by
-- test/hardening/dump_restore.sh: the same new rows (late and on time)
-- into both sources, every view refreshed (as its owner), then one line
-- per view: its rows' md5, its watermark, row count and late rows.
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
\o
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
