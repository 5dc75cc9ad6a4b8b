--
-- Continuous views' privileges, function by function
-- (docs/continuous-trust.md, "Security model"):
--
-- 1. Every function of the extension that PUBLIC may execute is called by
--    an ordinary role (wj_prv_mallory) against another role's
--    (wj_prv_alice's) objects: each fails with an errcode or touches
--    nothing of alice's, and nothing of alice's changes.  The list is
--    checked against the catalog, so a new function without an attack here
--    fails this suite.
-- 2. Objects shadowing operators and functions in the view owner's own
--    schema, first on the search_path: the extension's statements never
--    resolve to them -- not as the owner, not as a superuser refreshing
--    the owner's view, not in the scheduler.  (sql/continuous_security.sql
--    does the same with a database owner's objects in public.)
--
\set SHOW_CONTEXT never
\set VERBOSITY default
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
SET IntervalStyle = 'postgres';

SET client_min_messages = warning;
DROP SCHEMA IF EXISTS prv_alice, prv_mallory CASCADE;
DROP ROLE IF EXISTS wj_prv_alice;
DROP ROLE IF EXISTS wj_prv_mallory;
RESET client_min_messages;

CREATE ROLE wj_prv_alice;
CREATE ROLE wj_prv_mallory;
CREATE SCHEMA prv_alice AUTHORIZATION wj_prv_alice;
CREATE SCHEMA prv_mallory AUTHORIZATION wj_prv_mallory;
-- mallory may look at alice's schema (not her tables)
GRANT USAGE ON SCHEMA prv_alice TO wj_prv_mallory;

-- alice's source and her views over it: an aggregate view logging late
-- rows, with a changefeed and a consumer of it, and a window join
SET ROLE wj_prv_alice;
SET search_path = prv_alice, public;
CREATE TABLE src (t timestamptz NOT NULL, k int, x int);
CREATE INDEX ON src (t);
INSERT INTO src VALUES ('2024-01-01 00:00:10', 1, 5), ('2024-01-01 00:01:10', 2, 7),
                       ('2024-01-01 00:03:00', 1, 1);
SELECT windowjoin.create_view('v', $$SELECT window_start, window_end, sum(x) AS s, count(*) AS n
  FROM src, tumble(t, interval '1 minute') GROUP BY 1, 2$$, late => 'log', feed => true);
SELECT windowjoin.feed_ack('v', 'alice_app', 1);
SELECT windowjoin.create_view('j', $$SELECT L.k, L.window_start, L.window_end
  FROM (SELECT * FROM src, tumble(t, interval '1 minute')) L
  JOIN (SELECT * FROM src, tumble(t, interval '1 minute')) R
    ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end$$);
RESET ROLE;

-- what mallory must not change: alice's catalog rows, tables, triggers and
-- functions
CREATE TEMP TABLE before_catalog AS SELECT * FROM windowjoin.view_catalog;
-- (mallory makes a view of her own below)
CREATE FUNCTION pg_temp.mallorys(rel regclass) RETURNS boolean LANGUAGE sql AS $$
  SELECT relnamespace = 'prv_mallory'::regnamespace FROM pg_class WHERE oid = rel
$$;
CREATE FUNCTION pg_temp.alice_state() RETURNS TABLE (what text, n bigint) LANGUAGE sql AS $$
  SELECT 'src', count(*) FROM prv_alice.src
  UNION ALL SELECT 'v', count(*) FROM prv_alice.v
  UNION ALL SELECT 'v_changes', count(*) FROM prv_alice.v_changes
  UNION ALL SELECT 'v_late', count(*) FROM prv_alice.v_late
  UNION ALL SELECT 'v_feed', count(*) FROM prv_alice.v_feed
  UNION ALL SELECT 'feed consumers', count(*) FROM windowjoin.feed_consumers
  UNION ALL SELECT 'view triggers', count(*) FROM pg_trigger WHERE tgrelid = 'prv_alice.v'::regclass
  UNION ALL SELECT 'j', count(*) FROM prv_alice.j
  UNION ALL SELECT 'relations', count(*) FROM pg_class WHERE relnamespace = 'prv_alice'::regnamespace
  UNION ALL SELECT 'triggers', count(*) FROM pg_trigger WHERE tgrelid = 'prv_alice.src'::regclass
  UNION ALL SELECT 'functions', count(*) FROM pg_proc WHERE pronamespace = 'prv_alice'::regnamespace
  UNION ALL SELECT 'catalog rows', count(*) FROM windowjoin.view_catalog
             WHERE NOT pg_temp.mallorys(view_rel)
$$;
CREATE TEMP TABLE before_state AS SELECT * FROM pg_temp.alice_state();

--
-- 1. Every PUBLIC-callable function, called by mallory against alice.
--
SET ROLE wj_prv_mallory;
SET search_path = prv_mallory, public;
CREATE TABLE mine (t timestamptz NOT NULL, k int, x int);
CREATE INDEX ON mine (t);
-- a view of mallory's own, to point at alice's tables
SELECT windowjoin.create_view('mv', $$SELECT window_start, window_end, count(*) AS n
  FROM mine, tumble(t, interval '1 minute') GROUP BY 1, 2$$);
CREATE TEMP TABLE attack (fn regprocedure, stmt text);
INSERT INTO attack VALUES
 -- analysis: of a query over a table mallory may not read
 ('windowjoin._analyze_view_query(text,regclass[])',
  $$SELECT windowjoin._analyze_view_query('SELECT window_start, window_end, count(*) FROM prv_alice.src, tumble(t, interval ''1 minute'') GROUP BY 1, 2', NULL)$$),
 -- (its relmap reads mallory's query as over alice's table)
 ('windowjoin._analyze_view_query(text,regclass[])',
  $$SELECT windowjoin._analyze_view_query('SELECT window_start, window_end, count(*) FROM prv_mallory.mine, tumble(t, interval ''1 minute'') GROUP BY 1, 2', ARRAY['prv_mallory.mine', 'prv_alice.src']::regclass[])$$),
 ('windowjoin._pane_queries(text,regclass,regclass[])',
  $$SELECT windowjoin._pane_queries('SELECT window_start, window_end, count(*) FROM prv_alice.src, hop(t, interval ''1 minute'', interval ''2 minutes'') GROUP BY 1, 2', 'prv_alice.v', NULL)$$),
 -- capture: only as a trigger (mallory's own triggers: continuous_security)
 ('windowjoin._capture()', $$SELECT windowjoin._capture()$$),
 -- wakes the scheduler, touches nothing
 ('windowjoin._scheduler_wake()', $$SELECT windowjoin._scheduler_wake()$$),
 -- pure helpers, at their limits
 ('windowjoin._tz(timestamp with time zone)', $$SELECT windowjoin._tz('infinity'::timestamptz)$$),
 ('windowjoin._tz(timestamp without time zone)', $$SELECT windowjoin._tz('294276-12-31 23:59:59'::timestamp)$$),
 ('windowjoin._usecs(interval)', $$SELECT windowjoin._usecs(interval '178000000 years')$$),
 ('windowjoin._show(timestamp with time zone,regtype)', $$SELECT windowjoin._show('-infinity', 'prv_alice.src'::regclass::oid::regtype)$$),
 ('windowjoin._bin(timestamp with time zone,interval,interval)', $$SELECT windowjoin._bin(now(), interval '0 s', interval '0 s')$$),
 ('windowjoin._bin(timestamp with time zone,interval,interval)', $$SELECT windowjoin._bin('294276-12-31', interval '-1 s', interval '100000 years')$$),
 ('windowjoin._open_start(text,timestamp with time zone,interval,interval,interval)', $$SELECT windowjoin._open_start('hop', '-infinity', interval '1 minute', interval '0 s', interval '0 s')$$),
 ('windowjoin._open_start(text,timestamp with time zone,interval,interval,interval)', $$SELECT windowjoin._open_start('hop', '4714-11-24 00:00:00+00 BC', interval '100000000 hours', interval '1 s', interval '-5 s')$$),
 -- counts run as their caller
 ('windowjoin._count(regclass)', $$SELECT windowjoin._count('prv_alice.src')$$),
 ('windowjoin._count_from(regclass,name,regtype,timestamp with time zone)',
  $$SELECT windowjoin._count_from('prv_alice.src', 't', 'timestamptz', '-infinity')$$),
 -- a forged catalog row naming alice's source
 ('windowjoin._open_rows(windowjoin.view_catalog)',
  $$SELECT windowjoin._open_rows(jsonb_populate_record(NULL::windowjoin.view_catalog,
      jsonb_build_object('kind', 'tumble', 'source_rel', 'prv_alice.src', 'time_column', 't',
                         'time_type', 'timestamptz', 'watermark', '2024-01-01', 'size', '1 minute',
                         'offset', '0', 'distributed', false)))$$),
 -- alice's catalog row, locked or read
 ('windowjoin._lock(regclass)', $$SELECT windowjoin._lock('prv_alice.v')$$),
 -- a view made in alice's schema; mallory's view claiming alice's table as
 -- its (Citus shard) table
 ('windowjoin._create_view(text,text,interval,text,interval,text,interval,regclass,regclass[])',
  $$SELECT windowjoin._create_view('prv_alice.evil', 'SELECT window_start, window_end, count(*) AS n FROM prv_mallory.mine, tumble(t, interval ''1 minute'') GROUP BY 1, 2', '0', 'revise', NULL, 'on_close', NULL, NULL, NULL)$$),
 ('windowjoin._create_view(text,text,interval,text,interval,text,interval,regclass,regclass[])',
  $$SELECT windowjoin._create_view('prv_mallory.evil', 'SELECT window_start, window_end, count(*) AS n FROM prv_mallory.mine, tumble(t, interval ''1 minute'') GROUP BY 1, 2', '0', 'revise', NULL, 'on_close', NULL, 'prv_alice.v', NULL)$$),
 ('windowjoin.create_view(text,text,interval,text,interval,text,interval,boolean,interval)',
  $$SELECT windowjoin.create_view('prv_mallory.peek', 'SELECT window_start, window_end, sum(x) AS s FROM prv_alice.src, tumble(t, interval ''1 minute'') GROUP BY 1, 2', feed => true)$$),
 -- the Citus helpers (Citus is not installed in this database)
 ('windowjoin._create_distributed_view(text,text,text,interval,text,interval,text,interval)',
  $$SELECT windowjoin._create_distributed_view('prv_alice', 'evil', 'SELECT window_start, window_end, count(*) AS n FROM prv_alice.src, tumble(t, interval ''1 minute'') GROUP BY 1, 2', '0', 'revise', NULL, 'on_close', NULL)$$),
 ('windowjoin._refresh_distributed(regclass,boolean)', $$SELECT windowjoin._refresh_distributed('prv_alice.v', true)$$),
 ('windowjoin._refresh_shard(regclass,boolean,text,interval,text,interval,text,interval)',
  $$SELECT windowjoin._refresh_shard('prv_alice.v', true, 'SELECT window_start, window_end, count(*) AS n FROM prv_mallory.mine, tumble(t, interval ''1 minute'') GROUP BY 1, 2', '0', 'revise', NULL, 'on_close', NULL)$$),
 ('windowjoin._create_shard_view(regclass,text,interval,text,interval,text,interval)',
  $$SELECT windowjoin._create_shard_view('prv_alice.v', 'SELECT window_start, window_end, count(*) AS n FROM prv_mallory.mine, tumble(t, interval ''1 minute'') GROUP BY 1, 2', '0', 'revise', NULL, 'on_close', NULL)$$),
 -- the API on alice's view
 ('windowjoin.refresh(regclass,boolean,boolean)', $$SELECT windowjoin.refresh('prv_alice.v', true)$$),
 ('windowjoin.advance_watermark(regclass,timestamp with time zone)', $$SELECT windowjoin.advance_watermark('prv_alice.v', 'infinity')$$),
 ('windowjoin.drop_view(regclass,boolean)', $$SELECT windowjoin.drop_view('prv_alice.v')$$),
 -- alice's changefeed: its settings, her consumer, the feed's trigger
 ('windowjoin.alter_view(regclass,interval,boolean,interval)', $$SELECT windowjoin.alter_view('prv_alice.v', feed => false)$$),
 ('windowjoin.alter_view(regclass,interval,boolean,interval)', $$SELECT windowjoin.alter_view('prv_alice.v', schedule => '1 second')$$),
 ('windowjoin.feed_ack(regclass,text,bigint)', $$SELECT windowjoin.feed_ack('prv_alice.v', 'alice_app', 2)$$),
 ('windowjoin.feed_ack(regclass,text,bigint)', $$SELECT windowjoin.feed_ack('prv_alice.v', 'mallory_app', 0)$$),
 ('windowjoin.feed_drop_consumer(regclass,text)', $$SELECT windowjoin.feed_drop_consumer('prv_alice.v', 'alice_app')$$),
 ('windowjoin._feed()', $$SELECT windowjoin._feed()$$),
 -- the catalog's write path
 ('windowjoin._catalog_set(regclass,jsonb)', $$SELECT windowjoin._catalog_set('prv_alice.v', '{"feed_rel": null}')$$),
 ('windowjoin._catalog_set(regclass,jsonb)', $$SELECT windowjoin._catalog_set('prv_mallory.mv', jsonb_build_object('feed_rel', 'prv_alice.src'::regclass::oid::bigint))$$),
 ('windowjoin._catalog_set(regclass,jsonb)', $$SELECT windowjoin._catalog_set('prv_mallory.mv', jsonb_build_object('feed_rel', 'prv_alice.src'::regclass::oid::text))$$),
 ('windowjoin._catalog_insert(jsonb)', $$SELECT windowjoin._catalog_insert(jsonb_build_object('view_rel', 'prv_alice.v'::regclass::oid))$$),
 ('windowjoin._catalog_advance(regclass,timestamp with time zone)', $$SELECT windowjoin._catalog_advance('prv_alice.v', 'infinity')$$),
 ('windowjoin._catalog_note_refresh(regclass)', $$SELECT windowjoin._catalog_note_refresh('prv_alice.v')$$),
 ('windowjoin._view_stats(regclass)', $$SELECT windowjoin._view_stats('prv_alice.v')$$),
 -- what create_view makes: a table in alice's schema, triggers on her
 -- source, functions for her view
 ('windowjoin._create_view_table(text,text,text,text,regtype,boolean,text,text)',
  $$SELECT windowjoin._create_view_table('prv_alice', 'evil', 'SELECT window_start, window_end, count(*) AS n FROM prv_mallory.mine, tumble(t, interval ''1 minute'') GROUP BY 1, 2', 'tumble', 'timestamptz', false, 'on_close', 'prv_mallory, public')$$),
 ('windowjoin._make_capture_triggers(regclass,name[])',
  $$SELECT windowjoin._make_capture_triggers('prv_alice.src', windowjoin._capture_triggers('prv_alice.v', ''))$$),
 ('windowjoin._make_capture_triggers(regclass,name[])',
  $$SELECT windowjoin._make_capture_triggers('prv_alice.src', '{wj_evil_insert}')$$),
 ('windowjoin._derive_functions(regclass)', $$SELECT windowjoin._derive_functions('prv_alice.v')$$),
 -- names only
 ('windowjoin._capture_triggers(regclass,text)', $$SELECT windowjoin._capture_triggers('prv_alice.v', '') IS NOT NULL$$),
 ('windowjoin_status()', $$SELECT count(*) >= 0 FROM windowjoin_status()$$);

-- each in a subtransaction, with its first column or its error; OIDs
-- masked
DO $$
DECLARE
  a record;
  r text;
  res text;
BEGIN
  FOR a IN SELECT * FROM attack ORDER BY fn::text COLLATE "C", stmt COLLATE "C" LOOP
    BEGIN
      EXECUTE a.stmt INTO res;
      r := format('ran: %s', coalesce(regexp_replace(res, '[0-9]{4,}', 'N', 'g'), 'NULL'));
    EXCEPTION WHEN OTHERS THEN
      r := format('ERROR %s: %s', SQLSTATE, regexp_replace(SQLERRM, '[0-9]{4,}', 'N', 'g'));
    END;
    RAISE NOTICE '% -> %', a.fn, r;
  END LOOP;
END
$$;
RESET ROLE;

-- nothing of alice's changed (and mallory made nothing)
SELECT s.what, b.n AS before, s.n AS after
  FROM pg_temp.alice_state() s JOIN before_state b USING (what)
 WHERE s.n IS DISTINCT FROM b.n;
SELECT count(*) AS catalog_rows_changed
  FROM ((SELECT * FROM windowjoin.view_catalog WHERE NOT pg_temp.mallorys(view_rel)
         EXCEPT SELECT * FROM before_catalog)
        UNION ALL
        (SELECT * FROM before_catalog EXCEPT SELECT * FROM windowjoin.view_catalog)) d;
SELECT relname FROM pg_class WHERE relnamespace = 'prv_mallory'::regnamespace ORDER BY 1;
SELECT rolsuper AS mallory_is_superuser FROM pg_roles WHERE rolname = 'wj_prv_mallory';

-- and the list above is every function of the extension PUBLIC may call
-- but the batch window functions (IMMUTABLE, in public: they read no
-- table); expect none
SELECT p.oid::regprocedure AS not_attacked
  FROM pg_proc p
  JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
  JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'windowjoin'
 WHERE has_function_privilege('public', p.oid, 'EXECUTE')
   AND NOT (p.pronamespace = 'public'::regnamespace AND p.provolatile = 'i')
   AND p.oid NOT IN (SELECT fn FROM attack)
 ORDER BY 1;
SELECT count(DISTINCT fn) AS functions_attacked FROM attack;

--
-- 2. Operators and functions shadowing pg_catalog's in the owner's schema,
--    ahead of it on the search_path.  Each one notes who ran it (and would
--    make alice a superuser if a superuser ran it).  The views' own
--    queries use none of them (their operators are written
--    OPERATOR(pg_catalog.=)), so a call noted is one of the extension's
--    own statements resolving a name in a user's schema.
--
CREATE TABLE prv_alice.calls (who name, what text);
GRANT INSERT ON prv_alice.calls TO PUBLIC;
CREATE FUNCTION prv_alice.note(what text) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog AS $$
BEGIN
  INSERT INTO prv_alice.calls VALUES (current_user, what);
  IF (SELECT rolsuper FROM pg_roles WHERE rolname OPERATOR(pg_catalog.=) current_user) THEN
    EXECUTE 'ALTER ROLE wj_prv_alice SUPERUSER';
  END IF;
END
$$;
-- every binary operator of pg_catalog between the types the extension's
-- statements compare, add or concatenate, and = and <> of regclass and
-- regtype (which pg_catalog compares as oid)
DO $$
DECLARE
  o record;
  i int := 0;
BEGIN
  FOR o IN
    SELECT op.oprname, op.oprleft::regtype AS l, op.oprright::regtype AS r, op.oprresult::regtype AS res
      FROM pg_operator op
     WHERE op.oprnamespace = 'pg_catalog'::regnamespace AND op.oprkind = 'b'
       AND op.oprleft::regtype::text IN ('oid', 'text', 'name', 'timestamp with time zone',
             'timestamp without time zone', 'interval', 'smallint', 'integer', 'bigint',
             'numeric', 'boolean', 'jsonb', '"char"', 'double precision', 'date', 'text[]', 'name[]')
       AND op.oprright::regtype::text IN ('oid', 'text', 'name', 'timestamp with time zone',
             'timestamp without time zone', 'interval', 'smallint', 'integer', 'bigint',
             'numeric', 'boolean', 'jsonb', '"char"', 'double precision', 'date', 'text[]', 'name[]')
       AND op.oprname IN ('=', '<>', '<', '<=', '>', '>=', '+', '-', '*', '/', '||', '~~', '!~~', '@>')
    UNION ALL
    SELECT o2, t, t, 'boolean'::regtype
      FROM unnest(ARRAY['=', '<>']) o2, unnest(ARRAY['regclass', 'regtype']::regtype[]) t
  LOOP
    i := i + 1;
    EXECUTE format('CREATE FUNCTION prv_alice.shadow_%s(%s, %s) RETURNS %s LANGUAGE plpgsql '
                   'SET search_path = pg_catalog AS $b$ BEGIN PERFORM prv_alice.note(%L); '
                   'RETURN $1 OPERATOR(pg_catalog.%s) $2; END $b$',
                   i, o.l, o.r, o.res, format('%s %s %s', o.l, o.oprname, o.r), o.oprname);
    EXECUTE format('CREATE OPERATOR prv_alice.%s (LEFTARG = %s, RIGHTARG = %s, FUNCTION = prv_alice.shadow_%s)',
                   o.oprname, o.l, o.r, i);
  END LOOP;
END
$$;
-- and functions the extension's statements call
DO $$
DECLARE
  f record;
  i int := 0;
BEGIN
  FOR f IN
    SELECT p.oid::regprocedure AS fn, p.proname, pg_get_function_identity_arguments(p.oid) AS args,
           p.prorettype::regtype AS res, p.pronargs AS nargs
      FROM pg_proc p
     WHERE p.pronamespace = 'pg_catalog'::regnamespace AND p.prokind = 'f' AND NOT p.proretset
       AND p.proname IN ('now', 'clock_timestamp', 'current_setting', 'set_config', 'length',
                         'octet_length', 'lower', 'to_regclass', 'date_part', 'timezone',
                         'quote_ident', 'quote_literal', 'format', 'replace', 'abs', 'floor',
                         'mod', 'div', 'jsonb_build_object', 'array_length', 'array_append',
                         'has_table_privilege', 'pg_has_role', 'txid_current', 'random')
       AND p.provariadic = 0
       -- (no pseudo-type in or out)
       AND NOT EXISTS (SELECT FROM pg_type t
                        WHERE t.typtype = 'p'
                          AND (t.oid = p.prorettype OR t.oid = ANY (p.proargtypes::oid[])))
  LOOP
    i := i + 1;
    EXECUTE format('CREATE FUNCTION prv_alice.%I(%s) RETURNS %s LANGUAGE plpgsql '
                   'SET search_path = pg_catalog AS $b$ BEGIN PERFORM prv_alice.note(%L); '
                   'RETURN pg_catalog.%I(%s); END $b$',
                   f.proname, f.args, f.res, f.fn::text, f.proname,
                   (SELECT string_agg('$' || g, ', ') FROM generate_series(1, f.nargs) g));
  END LOOP;
END
$$;
ALTER SCHEMA prv_alice OWNER TO wj_prv_alice;
DO $$
DECLARE
  f regprocedure;
BEGIN
  FOR f IN SELECT oid FROM pg_proc WHERE pronamespace = 'prv_alice'::regnamespace LOOP
    EXECUTE format('ALTER FUNCTION %s OWNER TO wj_prv_alice', f);
  END LOOP;
END
$$;
SELECT count(*) >= 240 AS many_operators FROM pg_operator WHERE oprnamespace = 'prv_alice'::regnamespace;
SELECT count(*) >= 50 AS many_functions FROM pg_proc
 WHERE pronamespace = 'prv_alice'::regnamespace AND proname !~ '^(shadow_[0-9]+|note)$';

-- alice, with her schema first: a source partitioned by time, views of
-- every kind (tumble logging late rows, hop, session, a window join),
-- writes on time and late, DDL on the source, refreshes, the views list,
-- an advance and the drops.  (The test's own statements qualify their
-- operators too.)
SET ROLE wj_prv_alice;
SET search_path = prv_alice, pg_catalog, public;
CREATE TABLE ps (t timestamptz NOT NULL, k int, x int) PARTITION BY RANGE (t);
CREATE TABLE ps_2024 PARTITION OF ps FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
CREATE INDEX ON ps (t);
INSERT INTO ps VALUES ('2024-01-01 00:00:10', 1, 5), ('2024-01-01 00:01:10', 2, 7);
SELECT windowjoin.create_view('sv_tumble', $$SELECT window_start, window_end, sum(x) AS s, count(*) AS n
  FROM ps, tumble(t, interval '1 minute') GROUP BY 1, 2$$, late => 'log');
SELECT windowjoin.create_view('sv_hop', $$SELECT window_start, window_end, sum(x) AS s
  FROM ps, hop(t, interval '1 minute', interval '2 minutes') GROUP BY 1, 2$$);
SELECT windowjoin.create_view('sv_session', $$SELECT k, window_start, window_end, count(*) AS n
  FROM (SELECT k, (session(t, interval '1 minute') OVER (PARTITION BY k ORDER BY t)).* FROM ps) s
  GROUP BY k, window_start, window_end$$);
SELECT windowjoin.create_view('sv_join', $$SELECT L.k, L.window_start, L.window_end, L.x AS lx, R.x AS rx
  FROM (SELECT * FROM ps, tumble(t, interval '1 minute')) L
  LEFT JOIN (SELECT * FROM ps, tumble(t, interval '1 minute')) R
    ON L.k OPERATOR(pg_catalog.=) R.k AND L.window_start OPERATOR(pg_catalog.=) R.window_start
   AND L.window_end OPERATOR(pg_catalog.=) R.window_end$$);
INSERT INTO ps VALUES ('2024-01-01 00:05:00', 1, 1), ('2024-01-01 00:05:30', 2, 2);
SELECT windowjoin.refresh(v) FROM unnest('{sv_tumble,sv_hop,sv_session,sv_join}'::regclass[]) v;
-- late rows, an update and a delete
INSERT INTO ps VALUES ('2024-01-01 00:00:20', 1, 3);
UPDATE ps SET x = 9 WHERE x OPERATOR(pg_catalog.=) 7;
DELETE FROM ps WHERE x OPERATOR(pg_catalog.=) 2;
-- DDL: a partition attached with rows, another created, a column renamed
CREATE TABLE ps_2025 (t timestamptz NOT NULL, k int, x int);
INSERT INTO ps_2025 VALUES ('2025-01-01 00:00:30', 1, 4);
ALTER TABLE ps ATTACH PARTITION ps_2025 FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
CREATE TABLE ps_2026 PARTITION OF ps FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
INSERT INTO ps_2026 VALUES ('2026-01-01', 2, 1);
ALTER TABLE ps RENAME COLUMN x TO amount;
SELECT windowjoin.refresh(v) FROM unnest('{sv_tumble,sv_hop,sv_session,sv_join}'::regclass[]) v;
SELECT name, watermark, rows, late_rows FROM windowjoin.views
 WHERE name::text OPERATOR(pg_catalog.~~) 'sv_%' ORDER BY name::text;
SELECT * FROM sv_tumble ORDER BY 1;
SELECT count(*) AS late_logged FROM sv_tumble_late;
SELECT windowjoin.advance_watermark('sv_join', '2026-06-01');
ALTER TABLE ps DETACH PARTITION ps_2025;
DROP TABLE ps_2026;
SELECT windowjoin.refresh(v) FROM unnest('{sv_tumble,sv_hop,sv_session,sv_join}'::regclass[]) v;
SELECT * FROM sv_tumble ORDER BY 1;
RESET ROLE;
-- a superuser with alice's schema first: refreshes, reads the list,
-- advances and drops alice's views, and a scheduled refresh of one
SET search_path = prv_alice, pg_catalog, public;
INSERT INTO ps VALUES ('2024-01-01 00:09:00', 1, 1);
SELECT windowjoin.refresh(v) FROM unnest('{sv_tumble,sv_hop,sv_session,sv_join}'::regclass[]) v;
SELECT name, rows, state_rows IS NOT NULL AS state_known, open_rows IS NOT NULL AS open_known FROM windowjoin.views
 WHERE name::text OPERATOR(pg_catalog.~~) 'sv_%' ORDER BY name::text;
SELECT windowjoin.advance_watermark('sv_hop', '2026-06-01');
SET ROLE wj_prv_alice;
SELECT windowjoin.create_view('sv_sched', $$SELECT window_start, window_end, count(*) AS n
  FROM ps, tumble(t, interval '1 minute') GROUP BY 1, 2$$, schedule => interval '100 milliseconds');
RESET ROLE;
INSERT INTO ps VALUES ('2024-01-01 00:11:00', 1, 1);
-- wait (at most 30 s) for two scheduled refreshes
DO $$
BEGIN
  FOR i IN 1 .. 300 LOOP
    EXIT WHEN (SELECT refreshes FROM windowjoin.view_catalog
                WHERE view_rel OPERATOR(pg_catalog.=) 'prv_alice.sv_sched'::regclass) OPERATOR(pg_catalog.>=) 3;
    PERFORM pg_sleep(0.1);
  END LOOP;
END
$$;
SELECT refreshes OPERATOR(pg_catalog.>=) 3 AS scheduled, failures FROM windowjoin.view_catalog
 WHERE view_rel OPERATOR(pg_catalog.=) 'prv_alice.sv_sched'::regclass;
SELECT windowjoin.drop_view(v) FROM unnest('{sv_tumble,sv_hop,sv_session,sv_join,sv_sched}'::regclass[]) v;
RESET search_path;
-- none of alice's shadows ran, as anyone; alice is no superuser
SELECT who, what, count(*) FROM prv_alice.calls GROUP BY 1, 2 ORDER BY 1, 2;
SELECT rolsuper AS alice_is_superuser FROM pg_roles WHERE rolname = 'wj_prv_alice';
-- (and the shadows do run where a name resolves through that path)
SET search_path = prv_alice, pg_catalog;
SELECT 'a'::text OPERATOR(prv_alice.=) 'a'::text AS shadow_works;
RESET search_path;
SELECT who, what FROM prv_alice.calls;

SET client_min_messages = warning;
DROP TABLE attack;
DROP SCHEMA prv_alice, prv_mallory CASCADE;
DROP ROLE wj_prv_alice;
DROP ROLE wj_prv_mallory;
RESET client_min_messages;
SELECT count(*) AS views_left FROM windowjoin.views;
