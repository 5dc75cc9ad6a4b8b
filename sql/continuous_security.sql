--
-- Continuous views you can trust (docs/continuous-trust.md, "Security model",
-- "DDL on sources", "Failures"): every path of the hostile review of 0.3,
-- tried as two ordinary roles (wj_sec_alice, wj_sec_mallory) and a
-- database owner (wj_sec_dbowner), each of which must now fail safely with
-- an error and an errcode, write nothing, and escalate nothing.
--
\set SHOW_CONTEXT never
\set VERBOSITY default
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
SET IntervalStyle = 'postgres';

\set ECHO none
\i sql/include/helpers.sql
\set ECHO all
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS sec_alice, sec_mallory CASCADE;
DROP ROLE IF EXISTS wj_sec_alice;
DROP ROLE IF EXISTS wj_sec_mallory;
DROP DATABASE IF EXISTS wj_sec_db;
DROP ROLE IF EXISTS wj_sec_dbowner;
RESET client_min_messages;

CREATE ROLE wj_sec_alice;
CREATE ROLE wj_sec_mallory;
CREATE SCHEMA sec_alice AUTHORIZATION wj_sec_alice;
CREATE SCHEMA sec_mallory AUTHORIZATION wj_sec_mallory;
-- mallory may look at alice's schema (not her tables)
GRANT USAGE ON SCHEMA sec_alice TO wj_sec_mallory;

-- mallory's payload: it makes her a superuser when it runs as one
CREATE FUNCTION sec_mallory.pwn() RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE 'ALTER ROLE wj_sec_mallory SUPERUSER';
  RETURN true;
END
$$;
ALTER FUNCTION sec_mallory.pwn() OWNER TO wj_sec_mallory;

-- alice's ledger and her view over it
SET ROLE wj_sec_alice;
SET search_path = sec_alice, public;
CREATE TABLE ledger (ts timestamptz NOT NULL, amount numeric CHECK (amount > 0));
CREATE INDEX ON ledger (ts);
INSERT INTO ledger VALUES ('2024-01-01 00:00:10', 5), ('2024-01-01 00:01:10', 7);
SELECT windowjoin.create_view('per_minute',
  $$SELECT window_start, window_end, sum(amount) AS total, count(*) AS n
      FROM ledger, tumble(ts, interval '1 minute') GROUP BY 1, 2$$);
SELECT * FROM per_minute;
RESET ROLE;

--
-- 1. windowjoin._capture() on a table it was not made for writes nothing.
--
SET ROLE wj_sec_mallory;
SET search_path = sec_mallory, public;
CREATE TABLE mine (ts timestamptz);
-- the 0.3 exploit: a trigger whose argument names another role's table
CREATE TRIGGER x AFTER INSERT ON mine REFERENCING NEW TABLE AS n FOR EACH STATEMENT
  EXECUTE FUNCTION windowjoin._capture('sec_alice.ledger', 'ts', 'rows', '0', '0');
INSERT INTO mine VALUES (now());
DROP TRIGGER x ON mine;
-- a trigger named as alice's capture trigger, on mallory's own table
SELECT format('CREATE TRIGGER %I AFTER INSERT ON mine REFERENCING NEW TABLE AS n '
              'FOR EACH STATEMENT EXECUTE FUNCTION windowjoin._capture()',
              t) AS ddl
  FROM unnest(windowjoin._capture_triggers('sec_alice.per_minute', '')) t LIMIT 1 \gset
:ddl;
-- (trigger names carry OIDs: the message is shown with its digits masked)
CREATE FUNCTION sec_mallory.masked(stmt text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE stmt;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN format('ERROR %s: %s', SQLSTATE, regexp_replace(SQLERRM, '[0-9]+', 'N', 'g'));
END
$$;
SELECT sec_mallory.masked('INSERT INTO sec_mallory.mine VALUES (now())');
-- and a row-level or BEFORE trigger is refused as before
CREATE TRIGGER y BEFORE INSERT ON mine FOR EACH ROW EXECUTE FUNCTION windowjoin._capture();
INSERT INTO mine VALUES (now());
RESET ROLE;
SET search_path = sec_alice, public;
-- nothing reached alice's ledger or her change log
SELECT count(*) AS ledger_rows FROM ledger;
SELECT count(*) AS log_rows FROM per_minute_changes;

--
-- 2. The catalog is written only through the API, and windowjoin.views
--    runs nothing of mallory's as its reader.
--
SET ROLE wj_sec_mallory;
SET search_path = sec_mallory, public;
INSERT INTO windowjoin.view_catalog (view_rel, query, kind, source_rel, time_column,
  time_type, range_query, delay, late, emit)
VALUES ('sec_mallory.mine', 'x', 'tumble', 'sec_mallory.mine', 'ts', 'timestamptz',
        'x', '0', 'revise', 'on_close');
UPDATE windowjoin.view_catalog SET query = 'x';
DELETE FROM windowjoin.view_catalog;
SELECT count(*) AS alices_rows_mallory_sees FROM windowjoin.view_catalog;
SELECT count(*) AS alices_views_mallory_sees FROM windowjoin.views;
-- the write path checks what a row names: another role's view ...
SELECT windowjoin._catalog_insert(jsonb_build_object('view_rel', 'sec_alice.per_minute'::regclass::oid));
-- ... a "change log" that is a view running mallory's function ...
CREATE VIEW evil AS SELECT 1::smallint AS sign, now() AS t, now() AS t_max, 1 AS n WHERE sec_mallory.pwn();
CREATE TABLE fake (ts timestamptz);
SELECT windowjoin._catalog_insert(jsonb_build_object(
  'view_rel', 'fake'::regclass::oid, 'query', 'x', 'kind', 'tumble',
  'source_rel', 'mine'::regclass::oid, 'time_column', 'ts', 'time_type', 'timestamptz'::regtype::oid,
  'range_query', 'x', 'delay', '0', 'late', 'revise', 'emit', 'on_close',
  'changes_rel', 'evil'::regclass::oid));
-- ... a source mallory may not read ...
CREATE TABLE fake_log (sign smallint, t timestamptz, t_max timestamptz, n int);
SELECT windowjoin._catalog_insert(jsonb_build_object(
  'view_rel', 'fake'::regclass::oid, 'query', 'x', 'kind', 'tumble',
  'source_rel', 'sec_alice.ledger'::regclass::oid, 'time_column', 'ts',
  'time_type', 'timestamptz'::regtype::oid, 'range_query', 'x', 'delay', '0',
  'late', 'revise', 'emit', 'on_close', 'changes_rel', 'fake_log'::regclass::oid));
-- ... counters that are not part of a definition
SELECT windowjoin._catalog_insert(jsonb_build_object('view_rel', 'fake'::regclass::oid,
  'watermark', 'infinity'));
-- mallory's own view, whose log she then arms with a policy calling pwn()
CREATE TABLE ev (t timestamptz, v int);
SELECT windowjoin.create_view('ev_min',
  $$SELECT window_start, window_end, count(*) AS n FROM ev, tumble(t, interval '1 minute') GROUP BY 1, 2$$);
INSERT INTO ev_min_changes VALUES (1, '2024-01-01', '2024-01-01', 1);
ALTER TABLE ev_min_changes ENABLE ROW LEVEL SECURITY;
ALTER TABLE ev_min_changes FORCE ROW LEVEL SECURITY;
CREATE POLICY p ON ev_min_changes USING (sec_mallory.pwn());
RESET ROLE;
-- a superuser reads every view: mallory's counts run as mallory, fail,
-- and show as NULL, while alice's still show
SELECT owner, rows, state_rows IS NULL AS state_unknown
  FROM windowjoin.views WHERE owner::text LIKE 'wj_sec_%' ORDER BY 1;
SELECT rolsuper AS mallory_is_superuser FROM pg_roles WHERE rolname = 'wj_sec_mallory';
-- a log altered under capture stops its writers with an error, not a crash
SET ROLE wj_sec_mallory;
INSERT INTO sec_mallory.ev VALUES (now(), 1);
DROP POLICY p ON sec_mallory.ev_min_changes;
ALTER TABLE sec_mallory.ev_min_changes DISABLE ROW LEVEL SECURITY;
ALTER TABLE sec_mallory.ev_min_changes NO FORCE ROW LEVEL SECURITY;
ALTER TABLE sec_mallory.ev_min_changes ALTER COLUMN n TYPE text;
INSERT INTO sec_mallory.ev VALUES (now(), 1);
ALTER TABLE sec_mallory.ev_min_changes ALTER COLUMN n TYPE int USING n::int;
INSERT INTO sec_mallory.ev VALUES ('2024-01-01 00:00:00', 1);
SELECT windowjoin.refresh('sec_mallory.ev_min');
RESET ROLE;

--
-- 4. Another role's triggers and tables cannot be taken over.
--
SET ROLE wj_sec_mallory;
SET search_path = sec_mallory, public;
-- _register_view (0.3) is gone; _catalog_insert takes no trigger or
-- relation OIDs from its caller, and accepts only triggers named after the
-- view being registered
SELECT count(*) AS register_view_functions FROM pg_proc WHERE proname = '_register_view';
CREATE TABLE fake2 (ts timestamptz);
CREATE TABLE fake2_log (sign smallint, t timestamptz, t_max timestamptz, n int);
SELECT sec_mallory.masked(format('SELECT windowjoin._catalog_insert(%L)', jsonb_build_object(
  'view_rel', 'fake2'::regclass::oid, 'query', 'x', 'kind', 'tumble',
  'source_rel', 'ev'::regclass::oid, 'time_column', 't',
  'time_type', 'timestamptz'::regtype::oid, 'range_query', 'x', 'delay', '0',
  'late', 'revise', 'emit', 'on_close', 'changes_rel', 'fake2_log'::regclass::oid,
  'triggers', windowjoin._capture_triggers('ev_min', ''))));
-- alice's view cannot be refreshed, advanced, dropped or counted by mallory
SELECT windowjoin.refresh('sec_alice.per_minute');
SELECT windowjoin.advance_watermark('sec_alice.per_minute', 'infinity');
SELECT windowjoin.drop_view('sec_alice.per_minute');
SELECT windowjoin._catalog_advance('sec_alice.per_minute', 'infinity');
SELECT windowjoin._catalog_note_refresh('sec_alice.per_minute');
SELECT * FROM windowjoin._view_stats('sec_alice.per_minute');
RESET ROLE;
-- alice's triggers are still hers, and her view still works
SET ROLE wj_sec_alice;
SET search_path = sec_alice, public;
INSERT INTO ledger VALUES ('2024-01-01 00:02:30', 1);
SELECT windowjoin.refresh('per_minute');
SELECT * FROM per_minute ORDER BY 1;
RESET ROLE;
-- the owner is read from pg_class, never stored: a new owner refreshes
ALTER TABLE sec_alice.per_minute OWNER TO wj_sec_mallory;
SELECT owner FROM windowjoin.views WHERE name = 'sec_alice.per_minute'::regclass;
SET ROLE wj_sec_alice;
SELECT windowjoin.refresh('sec_alice.per_minute');
RESET ROLE;
ALTER TABLE sec_alice.per_minute OWNER TO wj_sec_alice;

--
-- Internal functions: which PUBLIC may execute.  Those an API function
-- calls as its caller check what they touch (above); the rest are not.
--
-- Every function of schema windowjoin: whether PUBLIC may call it, whether
-- it runs as its definer, and whether it pins its search_path.  (A new
-- function changes this list: review it as attack surface.)
SELECT p.oid::regprocedure AS function,
       has_function_privilege('public', p.oid, 'EXECUTE') AS public_execute,
       p.prosecdef AS definer,
       coalesce(p.proconfig @> '{"search_path=pg_catalog, pg_temp"}', false) AS pinned
  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
 WHERE n.nspname = 'windowjoin'
 ORDER BY p.oid::regprocedure::text;
-- and the catalog's table privileges
SELECT privilege_type FROM information_schema.role_table_grants
 WHERE table_schema = 'windowjoin' AND table_name = 'view_catalog' AND grantee = 'PUBLIC'
 ORDER BY 1;

--
-- 6. Windows that do not divide the gap between the epochs: the change
--    log's bins are aligned as the windows are.
--
SET search_path = sec_alice, public;
CREATE TABLE wk (t timestamp);
CREATE INDEX ON wk (t);
SELECT windowjoin.create_view('wk7', $$SELECT window_start, window_end, count(*) AS n
  FROM wk, tumble(t, interval '7 days') GROUP BY 1, 2$$);
SELECT windowjoin.create_view('wk3', $$SELECT window_start, window_end, count(*) AS n
  FROM wk, tumble(t, interval '3 days') GROUP BY 1, 2$$);
SELECT windowjoin.create_view('wk90', $$SELECT window_start, window_end, count(*) AS n
  FROM wk, tumble(t, interval '90 minutes', interval '17 minutes') GROUP BY 1, 2$$);
INSERT INTO wk VALUES ('2024-01-31');
SELECT windowjoin.refresh(v) FROM unnest('{wk7,wk3,wk90}'::regclass[]) v;
INSERT INTO wk VALUES ('2024-01-08'), ('2024-01-11 12:00');
SELECT windowjoin.refresh(v) FROM unnest('{wk7,wk3,wk90}'::regclass[]) v;
SELECT * FROM wk7 ORDER BY 1;
-- each equals its batch query over the closed windows
SELECT count(*) AS wk3_missing FROM (
  SELECT window_start, window_end, count(*) AS n FROM wk, tumble(t, interval '3 days')
   GROUP BY 1, 2 HAVING window_end <= '2024-01-31' EXCEPT ALL SELECT * FROM wk3) x;
SELECT count(*) AS wk90_missing FROM (
  SELECT window_start, window_end, count(*) AS n FROM wk, tumble(t, interval '90 minutes', interval '17 minutes')
   GROUP BY 1, 2 HAVING window_end <= '2024-01-31' EXCEPT ALL SELECT * FROM wk90) x;

--
-- 7. DDL on sources: a renamed time column does not stop writers; a
--    dropped one is refused while a view reads it.
--
ALTER TABLE wk RENAME COLUMN t TO ts;
INSERT INTO wk VALUES ('2024-02-20');
SELECT count(*) AS logged FROM wk7_changes;
ALTER TABLE wk DROP COLUMN ts;
ALTER TABLE wk ADD COLUMN note text;
INSERT INTO wk VALUES ('2024-02-21', 'added');
SELECT count(*) AS logged FROM wk7_changes;
ALTER TABLE wk RENAME COLUMN ts TO t;
-- the derived queries are functions PostgreSQL tracks: renames of a
-- column, the table and its schema follow, and a column the view
-- aggregates cannot be dropped or retyped under it
CREATE TABLE rn (t timestamptz, x int, y int);
INSERT INTO rn VALUES ('2024-01-01 00:00', 1, 10), ('2024-01-01 00:01', 2, 20);
SELECT windowjoin.create_view('rn_v', $$SELECT window_start, window_end, sum(x) AS sx, count(*) AS n
  FROM rn, hop(t, interval '1 minute', interval '2 minutes') GROUP BY 1, 2$$);
SELECT regexp_replace(pg_describe_object(classid, objid, objsubid), '[0-9]+', 'N', 'g') AS derived
  FROM pg_depend WHERE refobjid = 'rn_v'::regclass AND classid = 'pg_proc'::regclass ORDER BY 1;
ALTER TABLE rn RENAME COLUMN x TO amount;
ALTER TABLE rn RENAME COLUMN t TO ts;
ALTER TABLE rn RENAME TO readings;
CREATE SCHEMA sec_alice2;
ALTER TABLE readings SET SCHEMA sec_alice2;
INSERT INTO sec_alice2.readings VALUES ('2024-01-01 00:02', 4, 40), ('2024-01-01 00:00:30', 8, 80);
SELECT windowjoin.refresh('rn_v');
SELECT * FROM rn_v ORDER BY 1;
ALTER TABLE sec_alice2.readings DROP COLUMN amount;
ALTER TABLE sec_alice2.readings ALTER COLUMN amount TYPE bigint;
-- a column the view does not read comes and goes freely
ALTER TABLE sec_alice2.readings DROP COLUMN y;
ALTER TABLE sec_alice2.readings ADD COLUMN z text;
INSERT INTO sec_alice2.readings VALUES ('2024-01-01 00:03', 16, 'z');
SELECT windowjoin.refresh('rn_v');
SELECT * FROM rn_v ORDER BY 1;
-- and so does the view's own name
ALTER TABLE rn_v RENAME TO rn_view;
INSERT INTO sec_alice2.readings VALUES ('2024-01-01 00:04', 32, 'z');
SELECT windowjoin.refresh('rn_view');
SELECT count(*) AS windows FROM rn_view;

--
-- 5. Partitioned sources: writes through any partition are captured, and
--    partitions made, attached, detached and dropped are followed.
--
CREATE TABLE pm (t timestamptz NOT NULL, v int) PARTITION BY RANGE (t);
CREATE TABLE pm_1 PARTITION OF pm FOR VALUES FROM ('2024-01-01') TO ('2024-01-02');
-- (a partition whose columns are in another order)
CREATE TABLE pm_2 (v int, t timestamptz NOT NULL);
ALTER TABLE pm ATTACH PARTITION pm_2 FOR VALUES FROM ('2024-01-02') TO ('2024-01-03');
CREATE INDEX ON pm (t);
INSERT INTO pm VALUES ('2024-01-01 00:00', 1), ('2024-01-01 10:00', 2);
SELECT windowjoin.create_view('pmv', $$SELECT window_start, window_end, sum(v) AS s, count(*) AS n
  FROM pm, tumble(t, interval '1 hour') GROUP BY 1, 2$$);
SELECT windowjoin.create_view('pml', $$SELECT window_start, window_end, sum(v) AS s
  FROM pm, tumble(t, interval '1 hour') GROUP BY 1, 2$$, late => 'log');
CREATE FUNCTION pm_check() RETURNS TABLE (view text, missing bigint, extra bigint) LANGUAGE sql AS $$
  WITH b AS (SELECT window_start, window_end, sum(v) AS s, count(*) AS n
               FROM pm, tumble(t, interval '1 hour') GROUP BY 1, 2
             HAVING window_end <= (SELECT watermark::timestamptz FROM windowjoin.views
                                    WHERE name = 'pmv'::regclass))
  SELECT 'pmv', (SELECT count(*) FROM (SELECT * FROM b EXCEPT ALL SELECT * FROM pmv) x),
         (SELECT count(*) FROM (SELECT * FROM pmv EXCEPT ALL SELECT * FROM b) x)
$$;
SELECT c.relname, count(g.*) AS capture_triggers FROM pg_class c
  LEFT JOIN pg_trigger g ON g.tgrelid = c.oid AND g.tgname LIKE 'windowjoin\_%'
 WHERE c.relname ~ '^pm(_[0-9])?$' GROUP BY 1 ORDER BY 1;
-- a late row through one partition, the watermark moved through another
INSERT INTO pm_1 VALUES ('2024-01-01 00:30', 10);
INSERT INTO pm_2 VALUES (5, '2024-01-02 05:00');
SELECT windowjoin.refresh('pmv');
SELECT windowjoin.refresh('pml');
SELECT * FROM pmv ORDER BY 1;
SELECT change, t, v FROM pml_late;
SELECT * FROM pm_check();
-- a new partition, written directly
CREATE TABLE pm_3 PARTITION OF pm FOR VALUES FROM ('2024-01-03') TO ('2024-01-04');
INSERT INTO pm_3 VALUES ('2024-01-03 01:00', 7), ('2024-01-03 02:30', 8);
SELECT windowjoin.refresh('pmv');
SELECT * FROM pm_check();
-- a partition attached with (old) rows
CREATE TABLE pm_0 (t timestamptz NOT NULL, v int);
INSERT INTO pm_0 VALUES ('2023-12-31 05:00', 100);
ALTER TABLE pm ATTACH PARTITION pm_0 FOR VALUES FROM ('2023-12-31') TO ('2024-01-01');
SELECT windowjoin.refresh('pmv');
SELECT windowjoin.refresh('pml');
SELECT * FROM pm_check();
-- (its rows are late: revised into pmv, logged by pml)
SELECT change, t, v FROM pml_late ORDER BY change DESC, t;
-- a partition detached: its rows leave the view, its writers are free
ALTER TABLE pm DETACH PARTITION pm_1;
INSERT INTO pm_1 VALUES ('2024-01-01 03:00', 1000);
SELECT windowjoin.refresh('pmv');
SELECT windowjoin.refresh('pml');
SELECT * FROM pm_check();
SELECT change, t, v FROM pml_late ORDER BY change DESC, t;
-- a partition dropped
DROP TABLE pm_0;
SELECT windowjoin.refresh('pmv');
SELECT * FROM pmv ORDER BY 1;
SELECT * FROM pm_check();
SELECT c.relname, count(g.*) AS capture_triggers FROM pg_class c
  LEFT JOIN pg_trigger g ON g.tgrelid = c.oid AND g.tgname LIKE 'windowjoin\_%'
 WHERE c.relname ~ '^pm(_[0-9])?$' GROUP BY 1 ORDER BY 1;
-- and the view's triggers go with it, from every partition
SELECT windowjoin.drop_view('pmv');
SELECT windowjoin.drop_view('pml');
SELECT count(*) AS capture_triggers_left FROM pg_trigger g
  JOIN pg_class c ON c.oid = g.tgrelid WHERE c.relname ~ '^pm' AND g.tgname LIKE 'windowjoin\_%';

--
-- 10. Window parameters are checked when the view is created (22023), and
--     infinite times belong to no window and never move a watermark.
--
\set VERBOSITY sqlstate
SELECT windowjoin.create_view('bad', $$SELECT window_start, window_end, count(*) FROM wk, tumble(t, interval '-10 seconds') GROUP BY 1, 2$$);
\set VERBOSITY default
SELECT windowjoin.create_view('bad', $$SELECT window_start, window_end, count(*) FROM wk, tumble(t, interval '-10 seconds') GROUP BY 1, 2$$);
SELECT windowjoin.create_view('bad', $$SELECT window_start, window_end, count(*) FROM wk, tumble(t, interval '0') GROUP BY 1, 2$$);
SELECT windowjoin.create_view('bad', $$SELECT window_start, window_end, count(*) FROM wk, tumble(t, interval '1 microsecond') GROUP BY 1, 2$$);
SELECT windowjoin.create_view('bad', $$SELECT window_start, window_end, count(*) FROM wk, cumulate(t, interval '3 seconds', interval '10 seconds') GROUP BY 1, 2$$);
SELECT windowjoin.create_view('bad', $$SELECT window_start, window_end, count(*) FROM wk, hop(t, interval '0', interval '10 seconds') GROUP BY 1, 2$$);
SELECT windowjoin.create_view('bad', $$SELECT window_start, window_end, count(*) FROM (SELECT (session(t, interval '-1 second') OVER (ORDER BY t)).* FROM wk) s GROUP BY 1, 2$$);
SELECT count(*) AS bad_views FROM windowjoin.views WHERE name::text = 'bad';
INSERT INTO wk VALUES ('infinity'), ('-infinity');
SELECT windowjoin.refresh('wk7');
SELECT name, watermark, max_event_time FROM windowjoin.views WHERE name = 'wk7'::regclass;
CREATE TABLE se (t timestamp, k int);
INSERT INTO se VALUES ('-infinity', 1), ('2024-01-01 10:00', 1), ('infinity', 1);
SELECT windowjoin.create_view('se_v', $$SELECT k, window_start, window_end, count(*) AS n
  FROM (SELECT k, (session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t)).* FROM se) s
 GROUP BY 1, 2, 3$$);
INSERT INTO se VALUES ('-infinity', 1), ('2024-01-01 11:00', 1), ('infinity', 2);
SELECT windowjoin.refresh('se_v');
SELECT * FROM se_v ORDER BY 1, 2;
SELECT watermark FROM windowjoin.views WHERE name = 'se_v'::regclass;

--
-- 11. A TRUNCATE folded with late rows: the view resets, so nothing is
--     late -- the late table and late_rows agree (0.3 logged the rows and
--     did not count them).
--
CREATE TABLE tl (t timestamptz NOT NULL, v int);
CREATE INDEX ON tl (t);
INSERT INTO tl VALUES ('2024-01-01 00:00', 1), ('2024-01-01 02:00', 2);
SELECT windowjoin.create_view('tl_v', $$SELECT window_start, window_end, sum(v) AS s
  FROM tl, tumble(t, interval '1 hour') GROUP BY 1, 2$$, late => 'log');
INSERT INTO tl VALUES ('2024-01-01 00:30', 5);
SELECT windowjoin.refresh('tl_v');
SELECT late_rows, (SELECT count(*) FROM tl_v_late) AS logged FROM windowjoin.views WHERE name = 'tl_v'::regclass;
INSERT INTO tl VALUES ('2024-01-01 00:40', 7);
TRUNCATE tl;
INSERT INTO tl VALUES ('2024-01-01 03:00', 3), ('2024-01-01 05:00', 4);
SELECT windowjoin.refresh('tl_v');
SELECT late_rows, (SELECT count(*) FROM tl_v_late) AS logged FROM windowjoin.views WHERE name = 'tl_v'::regclass;
SELECT * FROM tl_v ORDER BY 1;
-- and a full refresh logs nothing either
INSERT INTO tl VALUES ('2024-01-01 03:10', 9);
SELECT windowjoin.refresh('tl_v', full_refresh => true);
SELECT late_rows, (SELECT count(*) FROM tl_v_late) AS logged FROM windowjoin.views WHERE name = 'tl_v'::regclass;
SELECT * FROM tl_v ORDER BY 1;

--
-- 11. Derived names fit NAMEDATALEN.
--
SELECT windowjoin.create_view(repeat('v', 50), $$SELECT window_start, window_end, count(*) AS n FROM wk, tumble(t, interval '1 hour') GROUP BY 1, 2$$);
SELECT windowjoin.create_view(repeat('v', 49), $$SELECT window_start, window_end, count(*) AS n FROM wk, tumble(t, interval '1 hour') GROUP BY 1, 2$$) IS NOT NULL AS created;
SELECT windowjoin.drop_view(repeat('v', 49));

--
-- 9. Failures of scheduled refreshes are counted, kept and backed off;
--    a view whose row another session holds never holds up the others.
--    (A failure: a function of the view's query that raises on x > 1.)
--
SET search_path = sec_alice, public;
CREATE TABLE fl (t timestamptz, x int);
CREATE FUNCTION checked(x int) RETURNS int LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF x > 1 THEN
    RAISE EXCEPTION 'x is %', x USING ERRCODE = 'data_exception';
  END IF;
  RETURN x;
END
$$;
SELECT windowjoin.create_view('fl_v', $$SELECT window_start, window_end, sum(checked(x)) AS s
  FROM fl, tumble(t, interval '1 minute') GROUP BY 1, 2$$, schedule => interval '100 milliseconds');
SELECT windowjoin.create_view('fl_ok', $$SELECT window_start, window_end, count(*) AS n
  FROM wk, tumble(t, interval '1 minute') GROUP BY 1, 2$$, schedule => interval '100 milliseconds');
INSERT INTO fl VALUES ('2024-01-01', 2), ('2024-01-02', 1);
-- wait (at most 30 s) for two failures
DO $$
BEGIN
  FOR i IN 1 .. 300 LOOP
    EXIT WHEN (SELECT failures FROM windowjoin.views WHERE name = 'sec_alice.fl_v'::regclass) >= 2;
    PERFORM pg_sleep(0.1);
  END LOOP;
END
$$;
SELECT failures >= 2 AS failing, last_error_sqlstate, last_error,
       next_attempt > last_error_at AS backed_off
  FROM windowjoin.views WHERE name = 'sec_alice.fl_v'::regclass;
-- a view whose catalog row another session holds is skipped, without
-- waiting: the others go on being refreshed (three more rounds)
SELECT windowjoin.create_view('fl_lk', $$SELECT window_start, window_end, count(*) AS n
  FROM wk, tumble(t, interval '1 hour') GROUP BY 1, 2$$, schedule => interval '100 milliseconds');
BEGIN;
SELECT 1 AS locked FROM windowjoin.view_catalog WHERE view_rel = 'fl_lk'::regclass FOR UPDATE;
SELECT set_config('wj.before', refreshes::text, false) IS NOT NULL AS noted
  FROM windowjoin.view_catalog WHERE view_rel = 'fl_ok'::regclass;
SELECT set_config('wj.locked_before', refreshes::text, false) IS NOT NULL AS noted
  FROM windowjoin.view_catalog WHERE view_rel = 'fl_lk'::regclass;
DO $$
BEGIN
  FOR i IN 1 .. 300 LOOP
    EXIT WHEN (SELECT refreshes FROM windowjoin.view_catalog WHERE view_rel = 'sec_alice.fl_ok'::regclass)
              >= current_setting('wj.before')::int + 3;
    PERFORM pg_sleep(0.1);
  END LOOP;
END
$$;
SELECT refreshes >= current_setting('wj.before')::int + 3 AS kept_refreshing
  FROM windowjoin.view_catalog WHERE view_rel = 'fl_ok'::regclass;
SELECT refreshes = current_setting('wj.locked_before')::int AS locked_one_skipped, failures
  FROM windowjoin.view_catalog WHERE view_rel = 'fl_lk'::regclass;
COMMIT;
-- the fix: the function accepts the row; the next attempt succeeds and
-- clears the count
CREATE OR REPLACE FUNCTION checked(x int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT x';
SELECT windowjoin.refresh('fl_v');
SELECT failures, next_attempt FROM windowjoin.views WHERE name = 'fl_v'::regclass;
SELECT * FROM fl_v ORDER BY 1;
-- windowjoin.refresh_timeout bounds one scheduled refresh: a refresh that
-- runs longer is cancelled (57014) and counts as a failure; a manual
-- refresh is not bounded by it
CREATE FUNCTION slow(x int) RETURNS int LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  PERFORM pg_sleep(0.5);
  RETURN x;
END
$$;
CREATE TABLE sl (t timestamptz, x int);
-- (the postmaster reloads before it signals the backends: once this
-- session shows the new value, every worker it starts has it)
ALTER SYSTEM SET windowjoin.refresh_timeout = '200ms';
SELECT pg_reload_conf();
SELECT pg_sleep(0.2);
SHOW windowjoin.refresh_timeout;
SELECT windowjoin.create_view('fl_slow', $$SELECT window_start, window_end, sum(slow(x)) AS s
  FROM sl, tumble(t, interval '1 minute') GROUP BY 1, 2$$, schedule => interval '100 milliseconds');
INSERT INTO sl VALUES ('2024-01-01', 1), ('2024-01-02', 1);
DO $$
BEGIN
  FOR i IN 1 .. 300 LOOP
    EXIT WHEN (SELECT failures FROM windowjoin.views WHERE name = 'sec_alice.fl_slow'::regclass) >= 1;
    PERFORM pg_sleep(0.1);
  END LOOP;
END
$$;
SELECT failures >= 1 AS timed_out, last_error_sqlstate, last_error
  FROM windowjoin.views WHERE name = 'fl_slow'::regclass;
SELECT count(*) AS rows_before FROM fl_slow;
ALTER SYSTEM RESET windowjoin.refresh_timeout;
SELECT pg_reload_conf();
SELECT windowjoin.refresh('fl_slow');
SELECT * FROM fl_slow ORDER BY 1;
SELECT failures FROM windowjoin.views WHERE name = 'fl_slow'::regclass;
SELECT windowjoin.drop_view('fl_slow');
SELECT windowjoin.drop_view('fl_v');
SELECT windowjoin.drop_view('fl_ok');
SELECT windowjoin.drop_view('fl_lk');

--
-- 3. A database owner's operator in public never runs in the scheduler.
--    In 0.3 the scheduler compared view_rel = $1::regclass with the
--    database's search_path: pg_catalog has no regclass = regclass, so a
--    public.= (regclass, regclass) ran as the bootstrap superuser.
--
SELECT current_database() AS orig_db \gset
CREATE ROLE wj_sec_dbowner;
CREATE DATABASE wj_sec_db OWNER wj_sec_dbowner;
\c wj_sec_db
SET client_min_messages = warning;
CREATE EXTENSION windowjoin;
RESET client_min_messages;
ALTER SCHEMA public OWNER TO wj_sec_dbowner;
SET ROLE wj_sec_dbowner;
CREATE FUNCTION public.eq_pwn(regclass, regclass) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE 'ALTER ROLE wj_sec_dbowner SUPERUSER';
  RETURN $1::oid = $2::oid;
END
$$;
CREATE OPERATOR public.= (LEFTARG = regclass, RIGHTARG = regclass, FUNCTION = public.eq_pwn);
CREATE FUNCTION public.le_pwn(timestamptz, timestamptz) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE 'ALTER ROLE wj_sec_dbowner SUPERUSER';
  RETURN $1 <= $2;
END
$$;
CREATE OPERATOR public.<= (LEFTARG = timestamptz, RIGHTARG = timestamptz, FUNCTION = public.le_pwn);
-- and, where a caller puts public before pg_catalog, text = text itself
CREATE FUNCTION public.teq_pwn(text, text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE 'ALTER ROLE wj_sec_dbowner SUPERUSER';
  RETURN $1 OPERATOR(pg_catalog.=) $2;
END
$$;
CREATE OPERATOR public.= (LEFTARG = text, RIGHTARG = text, FUNCTION = public.teq_pwn);
CREATE FUNCTION public.ne_pwn(regclass, regclass) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE 'ALTER ROLE wj_sec_dbowner SUPERUSER';
  RETURN $1::oid OPERATOR(pg_catalog.<>) $2::oid;
END
$$;
CREATE OPERATOR public.<> (LEFTARG = regclass, RIGHTARG = regclass, FUNCTION = public.ne_pwn);
-- and regtype = regtype, which windowjoin._show() (inlined into
-- windowjoin.views) compares
CREATE FUNCTION public.teq2_pwn(regtype, regtype) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE 'ALTER ROLE wj_sec_dbowner SUPERUSER';
  RETURN $1::oid OPERATOR(pg_catalog.=) $2::oid;
END
$$;
CREATE OPERATOR public.= (LEFTARG = regtype, RIGHTARG = regtype, FUNCTION = public.teq2_pwn);
ALTER DATABASE wj_sec_db SET search_path = public, pg_catalog;
CREATE TABLE public.s (t timestamptz);
INSERT INTO public.s VALUES ('2024-01-01'), ('2024-01-02');
SELECT windowjoin.create_view('public.s_v', $$SELECT window_start, window_end, count(*) AS n
  FROM s, tumble(t, interval '1 hour') GROUP BY 1, 2$$, schedule => interval '100 milliseconds');
RESET ROLE;
-- wait (at most 30 s) for two scheduled refreshes
DO $$
BEGIN
  FOR i IN 1 .. 300 LOOP
    EXIT WHEN (SELECT refreshes FROM windowjoin.view_catalog) >= 3;
    PERFORM pg_sleep(0.1);
  END LOOP;
END
$$;
SELECT refreshes >= 3 AS scheduled, failures FROM windowjoin.view_catalog;
SELECT rolsuper AS dbowner_is_superuser FROM pg_roles WHERE rolname = 'wj_sec_dbowner';
-- and a superuser, with the database's search_path (public first), runs
-- none of it through the extension: creating a join view, reading
-- windowjoin.views, refreshing, advancing and dropping
\c wj_sec_db
SHOW search_path;
CREATE TABLE public.s2 (t timestamptz, k int);
INSERT INTO public.s2 VALUES ('2024-01-01 00:10', 1);
SELECT windowjoin.create_view('s_j', $$SELECT L.k, L.window_start, L.window_end
  FROM (SELECT * FROM s2, tumble(t, interval '1 hour')) L
  JOIN (SELECT * FROM s2, tumble(t, interval '1 hour')) R
    ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end$$,
  late => 'drop');
SELECT windowjoin.advance_watermark('s_j', '2024-01-02');
SELECT windowjoin.refresh('s_v');
SELECT name, rows FROM windowjoin.views ORDER BY name::text;
SELECT windowjoin.drop_view('s_j');
SELECT rolsuper AS dbowner_is_superuser FROM pg_roles WHERE rolname = 'wj_sec_dbowner';
\c :orig_db
SET client_min_messages = warning;
DROP DATABASE wj_sec_db;
DROP ROLE wj_sec_dbowner;

DROP SCHEMA sec_alice, sec_mallory CASCADE;
DROP ROLE wj_sec_alice;
DROP ROLE wj_sec_mallory;
RESET client_min_messages;
SELECT count(*) AS views_left FROM windowjoin.views;
