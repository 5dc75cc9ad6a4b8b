/* windowjoin--0.3--0.4.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION windowjoin UPDATE TO '0.4'" to load this file. \quit

--------------------------------------------------------------------------
-- 0.4: continuous views you can trust (docs/continuous.md, "Security
-- model", "DDL on sources", "Failures").
--
--   * The catalog is the extension's: no role but its owner writes it;
--     the C functions of src/continuous/cv_catalog.c are its one write
--     path, and each checks that the caller has the privileges of the
--     view's owner (pg_class.relowner: the owner is no longer stored) and
--     that every relation a new row names is the owner's own table of the
--     expected shape, or a source the caller may read.
--   * A capture trigger is known by its table and name, which the view's
--     catalog row lists; _capture refuses any other trigger, writes only
--     the view's log, finds the time column by number (renames follow),
--     skips infinite times and bins rows as the windows are aligned (the
--     Unix epoch).
--   * windowjoin.views runs no user code as its reader (_view_stats runs
--     the counts as the view's owner, and a broken view shows NULLs).
--   * The scheduler records failures (count, SQLSTATE, message, next
--     attempt with backoff) and skips a view whose row another session
--     holds.
--------------------------------------------------------------------------

DROP VIEW windowjoin.views;
DROP POLICY own_views ON windowjoin.view_catalog;
REVOKE INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER
  ON windowjoin.view_catalog FROM PUBLIC;
ALTER TABLE windowjoin.view_catalog
  DROP COLUMN owner,
  ADD COLUMN range_fn regprocedure,
  ADD COLUMN pane_fn regprocedure,
  ADD COLUMN combine_fn regprocedure,
  ADD COLUMN right_fn regprocedure,
  ADD COLUMN triggers name[],
  ADD COLUMN triggers2 name[],
  ADD COLUMN time_attnum smallint,
  ADD COLUMN time_attnum2 smallint,
  ADD COLUMN failures integer NOT NULL DEFAULT 0,
  ADD COLUMN last_error text,
  ADD COLUMN last_error_sqlstate text,
  ADD COLUMN last_error_at timestamptz,
  ADD COLUMN next_attempt timestamptz,
  ADD CONSTRAINT view_catalog_kind CHECK
    (kind IN ('tumble', 'hop', 'cumulate', 'session', 'interval', 'asof')),
  ADD CONSTRAINT view_catalog_late CHECK (late IN ('revise', 'drop', 'log')),
  ADD CONSTRAINT view_catalog_emit CHECK (emit IN ('on_close', 'on_update')),
  ADD CONSTRAINT view_catalog_time_type CHECK
    (time_type IN ('timestamp'::regtype, 'timestamptz'::regtype)),
  ADD CONSTRAINT view_catalog_delay CHECK (delay >= interval '0'),
  ADD CONSTRAINT view_catalog_schedule CHECK (schedule IS NULL OR schedule > interval '0'),
  ADD CONSTRAINT view_catalog_failures CHECK (failures >= 0);
-- a role reads the rows of the views whose owner's privileges it has
CREATE POLICY own_views ON windowjoin.view_catalog FOR SELECT
  USING (pg_catalog.pg_has_role((SELECT c.relowner FROM pg_catalog.pg_class c
                                  WHERE c.oid = view_rel::pg_catalog.oid), 'USAGE'));

--------------------------------------------------------------------------
-- The catalog's write path (src/continuous/cv_catalog.c)
--------------------------------------------------------------------------

CREATE FUNCTION windowjoin._catalog_insert(definition jsonb) RETURNS void
AS 'MODULE_PATHNAME', 'wj_catalog_insert'
LANGUAGE C VOLATILE SET search_path = pg_catalog, pg_temp;

CREATE FUNCTION windowjoin._catalog_advance(view regclass, watermark timestamptz)
RETURNS void AS 'MODULE_PATHNAME', 'wj_catalog_advance'
LANGUAGE C STRICT VOLATILE SET search_path = pg_catalog, pg_temp;

CREATE FUNCTION windowjoin._catalog_note_refresh(view regclass) RETURNS void
AS 'MODULE_PATHNAME', 'wj_catalog_note_refresh'
LANGUAGE C STRICT VOLATILE SET search_path = pg_catalog, pg_temp;

-- Dependencies that survive pg_dump and pg_restore, which restore the
-- catalog's rows (a configuration table) but not the pg_depend entries of
-- the objects they name: every new catalog row records them, and a capture
-- trigger that a row lists goes with its view when it is made (pg_restore
-- makes triggers after restoring the rows).
CREATE FUNCTION windowjoin._catalog_bind() RETURNS trigger
AS 'MODULE_PATHNAME', 'wj_catalog_bind' LANGUAGE C;
CREATE TRIGGER view_catalog_bind AFTER INSERT ON windowjoin.view_catalog
  FOR EACH ROW EXECUTE FUNCTION windowjoin._catalog_bind();

CREATE FUNCTION windowjoin._bind_trigger(trigger oid) RETURNS void
AS 'MODULE_PATHNAME', 'wj_bind_trigger'
LANGUAGE C STRICT VOLATILE SET search_path = pg_catalog, pg_temp;

CREATE FUNCTION windowjoin._on_create_trigger() RETURNS event_trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
  d record;
BEGIN
  FOR d IN SELECT objid FROM pg_catalog.pg_event_trigger_ddl_commands()
            WHERE classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_trigger'::pg_catalog.regclass::pg_catalog.oid LOOP
    PERFORM windowjoin._bind_trigger(d.objid);
  END LOOP;
END
$fn$;
CREATE EVENT TRIGGER windowjoin_bind_trigger ON ddl_command_end
  WHEN TAG IN ('CREATE TRIGGER')
  EXECUTE FUNCTION windowjoin._on_create_trigger();

-- the view's table, with its BRIN index (and a session view's btree);
-- interval and as-of views keep each row's anchor time, and with a right
-- part (RIGHT, FULL) whether the row is a right row's.  Its own statements
-- run with a pinned search_path; the user's query is read with the
-- caller's (caller_path).
DROP FUNCTION windowjoin._create_view_table(text, text, text, text, regtype, boolean, text);
CREATE FUNCTION windowjoin._create_view_table(nsp text, rel text, query text, kind text,
  time_type regtype, right_part boolean, emit text, caller_path text) RETURNS regclass
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
  v regclass;
  anchor text := '';
  ddl text;
BEGIN
  IF kind IN ('interval', 'asof') THEN
    anchor := format(', NULL::%s AS anchor_time', time_type);
    IF right_part THEN
      anchor := anchor || ', NULL::boolean AS anchor_right';
    END IF;
  END IF;
  ddl := format('CREATE TABLE %I.%I AS SELECT q.*%s%s FROM (%s) q WITH NO DATA',
                nsp, rel, CASE WHEN emit = 'on_update' THEN ', true AS final' ELSE '' END,
                anchor, query);
  PERFORM pg_catalog.set_config('search_path', caller_path, true);
  EXECUTE ddl;
  PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
  v := format('%I.%I', nsp, rel)::regclass;
  -- windows are written in window_end order (rows of band views in anchor
  -- order): a BRIN index costs a refresh almost nothing to keep (a btree
  -- cost a closing refresh of 1,000 windows 0.8 ms), and serves range reads
  EXECUTE format('CREATE INDEX ON %s USING brin (%I) WITH (pages_per_range = 32)', v,
                 CASE WHEN anchor <> '' THEN 'anchor_time' ELSE 'window_end' END);
  IF kind = 'session' THEN
    EXECUTE format('CREATE INDEX ON %s (window_start)', v);
  END IF;
  RETURN v;
END
$fn$;

-- The capture triggers names on table rel and every partition of it
-- (names from _capture_triggers: the event is the name's last word), as
-- the caller; those a table has already are left alone.
CREATE FUNCTION windowjoin._make_capture_triggers(rel regclass, names name[]) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
  r regclass;
  n name;
  ev text;
BEGIN
  -- (pg_partition_tree() lists nothing for a table that has no partitions)
  FOR r IN SELECT rel
           UNION
           SELECT t.relid FROM pg_catalog.pg_partition_tree(rel) t
             JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) t.relid
            WHERE c.relkind OPERATOR(pg_catalog.=) ANY ('{r,p}'::"char"[]) LOOP
    FOREACH n IN ARRAY names LOOP
      CONTINUE WHEN EXISTS (SELECT FROM pg_catalog.pg_trigger g
                             WHERE g.tgrelid OPERATOR(pg_catalog.=) r::pg_catalog.oid
                               AND g.tgname OPERATOR(pg_catalog.=) n);
      ev := pg_catalog.substring(n::text, '_([a-z]+)$');
      EXECUTE pg_catalog.format('CREATE TRIGGER %I AFTER %s ON %s %s FOR EACH STATEMENT '
                                'EXECUTE FUNCTION windowjoin._capture()', n, pg_catalog.upper(ev), r,
                                CASE ev WHEN 'insert' THEN 'REFERENCING NEW TABLE AS wj_new'
                                        WHEN 'update' THEN 'REFERENCING OLD TABLE AS wj_old NEW TABLE AS wj_new'
                                        WHEN 'delete' THEN 'REFERENCING OLD TABLE AS wj_old'
                                        ELSE '' END);
    END LOOP;
  END LOOP;
END
$fn$;

-- partitions of sources made, attached, detached or dropped
CREATE FUNCTION windowjoin._on_partition_ddl() RETURNS event_trigger
AS 'MODULE_PATHNAME', 'wj_on_partition_ddl' LANGUAGE C;
CREATE EVENT TRIGGER windowjoin_partitions ON ddl_command_end
  WHEN TAG IN ('CREATE TABLE', 'ALTER TABLE')
  EXECUTE FUNCTION windowjoin._on_partition_ddl();
CREATE EVENT TRIGGER windowjoin_partitions_drop ON ddl_command_start
  WHEN TAG IN ('DROP TABLE')
  EXECUTE FUNCTION windowjoin._on_partition_ddl();

-- the derived queries as functions PostgreSQL tracks (src/continuous/cv_derived.c)
CREATE FUNCTION windowjoin._derive_functions(view regclass) RETURNS void
AS 'MODULE_PATHNAME', 'wj_derive_functions'
LANGUAGE C STRICT VOLATILE SET search_path = pg_catalog, pg_temp;

CREATE FUNCTION windowjoin._view_stats(view regclass, OUT state_rows bigint,
  OUT state_bytes bigint, OUT open_rows bigint)
AS 'MODULE_PATHNAME', 'wj_view_stats'
LANGUAGE C STRICT VOLATILE SET search_path = pg_catalog, pg_temp;

DROP FUNCTION windowjoin._register_view(regclass, regclass, regclass, regclass, oid[], regclass);

-- the names of the capture triggers create_view makes for a view's source
-- ('') or its right source ('_right')
CREATE FUNCTION windowjoin._capture_triggers(view regclass, side text) RETURNS name[]
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT ARRAY(SELECT pg_catalog.format('windowjoin_%s%s_%s', view::pg_catalog.oid, side, e)::pg_catalog.name
                 FROM pg_catalog.unnest('{insert,update,delete,truncate}'::pg_catalog.text[]) e)
$$;

-- The helpers windowjoin.views and the refresh statements inline: their
-- operators and functions schema-qualified, so that a reader's search_path
-- (public before pg_catalog, say) never brings in a user's = (regtype,
-- regtype) or timezone(); no SET clause, so they stay inlinable.
CREATE OR REPLACE FUNCTION windowjoin._tz(t timestamp) RETURNS timestamptz
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$SELECT pg_catalog.timezone('UTC', t)$$;
CREATE OR REPLACE FUNCTION windowjoin._usecs(i interval) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$SELECT (pg_catalog.extract('epoch', i) OPERATOR(pg_catalog.*) 1000000::pg_catalog.numeric)::pg_catalog.int8$$;
CREATE OR REPLACE FUNCTION windowjoin._show(t timestamptz, typ regtype) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN typ::pg_catalog.oid OPERATOR(pg_catalog.=) 'pg_catalog.timestamptz'::pg_catalog.regtype::pg_catalog.oid
              THEN t::pg_catalog.text
              ELSE pg_catalog.timezone('UTC', t)::pg_catalog.text END
$$;

-- the catalog row of a view, as its owner reads it; an error if none
CREATE OR REPLACE FUNCTION windowjoin._lock(view regclass) RETURNS windowjoin.view_catalog
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  c windowjoin.view_catalog;
BEGIN
  SELECT * INTO c FROM windowjoin.view_catalog v
   WHERE v.view_rel::pg_catalog.oid OPERATOR(pg_catalog.=) view::pg_catalog.oid;
  IF NOT FOUND THEN
    RAISE EXCEPTION '"%" is not a continuous view', view
      USING ERRCODE = 'wrong_object_type',
            HINT = 'SELECT name FROM windowjoin.views lists the continuous views you own.';
  END IF;
  RETURN c;
END
$$;

-- cascade: also the views reading this one's table (pipeline stages,
-- src/continuous/cv_pipeline.c), as DROP TABLE ... CASCADE
DROP FUNCTION windowjoin.drop_view(regclass);
CREATE FUNCTION windowjoin.drop_view(view regclass, "cascade" boolean DEFAULT false) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
  c windowjoin.view_catalog;
BEGIN
  c := windowjoin._lock(view);
  -- the table before the catalog row (windowjoin._on_drop deletes it), in
  -- the order a refresh takes them: a refresh in progress finishes first
  EXECUTE format('LOCK TABLE %s IN ACCESS EXCLUSIVE MODE', view);
  -- the change log, the late table and the triggers go with it
  -- (pg_depend), the catalog row with windowjoin._on_drop
  EXECUTE format('DROP TABLE %s%s', view, CASE WHEN "cascade" THEN ' CASCADE' ELSE '' END);
END
$fn$;

CREATE OR REPLACE FUNCTION windowjoin._create_view(name text, query text, delay interval,
  late text, schedule interval, emit text, idle interval, shard regclass,
  relmap regclass[])
RETURNS regclass LANGUAGE plpgsql AS $fn$
DECLARE
  a record;
  parts text[];
  nsp text;
  rel text;
  v regclass;
  ch regclass;
  lt regclass;
  ch2 regclass;
  lt2 regclass;
  max_ev timestamptz;
  max_ev2 timestamptz;
  pn regclass;
  pane_q text;
  combine_q text;
  merge_q text;
  nsrc int := 1;
  src regclass;
  sfx text;
  caller_path text;
  caller_schema name;
BEGIN
  -- Nothing of the caller's schemas resolves in this function's own
  -- statements (an operator a database owner put in public would run as
  -- the caller): the caller's search_path is back only where the user's
  -- view name and query are read.
  caller_path := pg_catalog.current_setting('search_path');
  caller_schema := pg_catalog.current_schema();
  PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
  IF late IS NULL OR late NOT IN ('revise', 'drop', 'log') THEN
    RAISE EXCEPTION 'invalid late policy "%"', late
      USING ERRCODE = 'invalid_parameter_value',
            HINT = 'Use ''revise'' (the default), ''drop'' or ''log''.';
  END IF;
  IF emit IS NULL OR emit NOT IN ('on_close', 'on_update') THEN
    RAISE EXCEPTION 'invalid emit mode "%"', emit
      USING ERRCODE = 'invalid_parameter_value',
            HINT = 'Use ''on_close'' (the default) or ''on_update''.';
  END IF;
  IF delay IS NULL OR delay < interval '0' OR pg_catalog.date_part('month', delay) <> 0
     OR pg_catalog.date_part('year', delay) <> 0 THEN
    RAISE EXCEPTION 'invalid delay %', coalesce(delay::text, 'NULL')
      USING ERRCODE = 'invalid_parameter_value',
            HINT = 'The delay is a non-negative interval without months or years.';
  END IF;
  IF schedule IS NOT NULL AND schedule <= interval '0' THEN
    RAISE EXCEPTION 'invalid schedule %', schedule
      USING ERRCODE = 'invalid_parameter_value',
            HINT = 'The schedule is a positive interval, or NULL for manual refresh only.';
  END IF;
  IF idle IS NOT NULL AND (idle <= interval '0' OR pg_catalog.date_part('month', idle) <> 0
                           OR pg_catalog.date_part('year', idle) <> 0) THEN
    RAISE EXCEPTION 'invalid idle timeout %', idle
      USING ERRCODE = 'invalid_parameter_value',
            HINT = 'The idle timeout is a positive interval without months or years, or NULL: a source never counts as idle.';
  END IF;

  parts := pg_catalog.parse_ident(name);
  IF shard IS NOT NULL THEN
    SELECT n.nspname, c.relname INTO nsp, rel
      FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
     WHERE c.oid = shard;
  ELSIF array_length(parts, 1) = 1 THEN
    nsp := caller_schema;
    rel := parts[1];
  ELSIF array_length(parts, 1) = 2 THEN
    nsp := parts[1];
    rel := parts[2];
  ELSE
    RAISE EXCEPTION 'invalid continuous view name "%"', name
      USING ERRCODE = 'invalid_name';
  END IF;
  IF nsp IS NULL THEN
    RAISE EXCEPTION 'no schema has been selected to create the continuous view in'
      USING ERRCODE = 'invalid_schema_name';
  END IF;
  -- the derived tables' names (<name>_changes_right, the longest) must fit
  -- NAMEDATALEN untruncated, or two views could share them
  IF shard IS NULL AND pg_catalog.octet_length(rel) > 63 - pg_catalog.length('_changes_right') THEN
    RAISE EXCEPTION 'continuous view name "%" is too long', rel
      USING ERRCODE = 'name_too_long',
            DETAIL = 'The names of its change log and late table add up to 14 bytes to it, within PostgreSQL''s 63.',
            HINT = 'Use a name of at most 49 bytes.';
  END IF;
  IF shard IS NULL AND pg_catalog.to_regclass(format('%I.%I', nsp, rel)) IS NOT NULL THEN
    RAISE EXCEPTION 'relation "%" already exists', rel
      USING ERRCODE = 'duplicate_table';
  END IF;

  PERFORM pg_catalog.set_config('search_path', caller_path, true);
  a := windowjoin._analyze_view_query(query, relmap);
  PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
  IF a.kind = 'session' AND late <> 'revise' THEN
    RAISE EXCEPTION 'continuous session views do not support late => ''%''', late
      USING ERRCODE = 'feature_not_supported',
            DETAIL = 'A late row can merge or split sessions that closed; a session view revises them.',
            HINT = 'Use late => ''revise'' (the default).';
  END IF;
  -- Citus: a view over distributed tables is a distributed table whose
  -- shards are views of the sources' shards (docs/scale-out.md)
  IF shard IS NULL AND pg_catalog.to_regclass('pg_catalog.pg_dist_partition') IS NOT NULL THEN
    EXECUTE 'SELECT count(*) FROM pg_catalog.pg_dist_partition WHERE logicalrelid = ANY ($1)'
      INTO nsrc USING ARRAY[a.source, coalesce(a.source2, a.source)]::regclass[];
    IF nsrc > 0 THEN
      PERFORM pg_catalog.set_config('search_path', caller_path, true);
      RETURN windowjoin._create_distributed_view(nsp, rel, query, delay, late, schedule,
                                                 emit, idle);
    END IF;
    nsrc := 1;
  END IF;
  IF a.join_kind IS NOT NULL AND emit <> 'on_close' THEN
    RAISE EXCEPTION 'continuous join views do not support emit => ''%''', emit
      USING ERRCODE = 'feature_not_supported',
            HINT = 'Use emit => ''on_close'' (the default).';
  END IF;
  IF a.join_kind IS NULL AND idle IS NOT NULL THEN
    RAISE EXCEPTION 'idle applies to continuous join views only'
      USING ERRCODE = 'invalid_parameter_value',
            HINT = 'A view of one source has one watermark; advance it with windowjoin.advance_watermark().';
  END IF;
  IF a.join_kind IS NOT NULL AND a.source2 <> a.source THEN
    nsrc := 2;
  END IF;
  -- every refresh reads time ranges of the sources: without an index led
  -- by the time column each one scans the whole source
  FOR i IN 1 .. nsrc LOOP
    src := CASE WHEN i = 1 THEN a.source ELSE a.source2 END;
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_index x JOIN pg_catalog.pg_attribute t
                     ON t.attrelid = x.indrelid AND t.attnum = x.indkey[0]
                    WHERE x.indrelid = src
                      AND t.attname = CASE WHEN i = 1 THEN a.time_column ELSE a.time_column2 END)
    THEN
      RAISE WARNING 'source % of continuous view "%" has no index led by its time column %',
                    src, rel, CASE WHEN i = 1 THEN a.time_column ELSE a.time_column2 END
        USING HINT = format('Without one every refresh reads the whole source: CREATE INDEX ON %s (%I);',
                            src, CASE WHEN i = 1 THEN a.time_column ELSE a.time_column2 END);
    END IF;
  END LOOP;

  IF shard IS NOT NULL THEN
    v := shard;                 -- created, with its indexes, by Citus
  ELSE
    v := windowjoin._create_view_table(nsp, rel, query, a.kind, a.time_type,
                                       a.right_query IS NOT NULL, emit, caller_path);
  END IF;

  -- one change log (and late table) per source; the right source's names
  -- end in _right
  FOR i IN 1 .. nsrc LOOP
    src := CASE WHEN i = 1 THEN a.source ELSE a.source2 END;
    sfx := CASE WHEN i = 1 THEN '' ELSE '_right' END;
    EXECUTE format('CREATE TABLE %I.%I (sign smallint NOT NULL, t %s, t_max %s, n int NOT NULL%s)',
                   nsp, rel || '_changes' || sfx, a.time_type, a.time_type,
                   CASE WHEN late = 'log' THEN format(', r %s', src) ELSE '' END);
    ch2 := format('%I.%I', nsp, rel || '_changes' || sfx)::regclass;
    EXECUTE format('COMMENT ON TABLE %s IS %L', ch2,
                   format('change log of continuous view %s, emptied by windowjoin.refresh()', v));
    lt2 := NULL;
    IF late = 'log' THEN
      EXECUTE format('CREATE TABLE %I.%I AS SELECT pg_catalog.clock_timestamp() AS logged_at, '
                     '0::smallint AS change, s.* FROM %s s WITH NO DATA',
                     nsp, rel || '_late' || sfx, src);
      lt2 := format('%I.%I', nsp, rel || '_late' || sfx)::regclass;
    END IF;
    IF i = 1 THEN
      ch := ch2;
      lt := lt2;
    END IF;
  END LOOP;
  IF nsrc = 1 THEN
    ch2 := NULL;
    lt2 := NULL;
  END IF;

  -- hop and cumulate views whose aggregates combine exactly keep one row
  -- per group and pane, session views one per open session (on_close);
  -- src/continuous/cv_panes.c
  IF a.pane_columns IS NOT NULL AND (a.kind <> 'session' OR emit = 'on_close') THEN
    EXECUTE format('CREATE TABLE %I.%I (%s)', nsp, rel || '_panes', a.pane_columns);
    pn := format('%I.%I', nsp, rel || '_panes')::regclass;
    -- (a session view's fragments are its open sessions, read whole by
    -- every refresh: an index would only cost)
    IF a.kind <> 'session' THEN
      EXECUTE format('CREATE INDEX ON %s (pane_start)', pn);
    END IF;
    EXECUTE format('COMMENT ON TABLE %s IS %L', pn,
                   format('pane partial states of continuous view %s, kept by windowjoin.refresh()', v));
    PERFORM pg_catalog.set_config('search_path', caller_path, true);
    SELECT p.pane_query, p.combine_query, p.merge_query INTO pane_q, combine_q, merge_q
      FROM windowjoin._pane_queries(query, pn, relmap) p;
    PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
  END IF;

  -- the capture triggers take no arguments: the catalog row lists them by
  -- name, and _capture reads everything from it (src/continuous/cv_capture.c);
  -- a partitioned source's partitions get them too (cv_partitions.c)
  FOR i IN 1 .. nsrc LOOP
    src := CASE WHEN i = 1 THEN a.source ELSE a.source2 END;
    sfx := CASE WHEN i = 1 THEN '' ELSE '_right' END;
    PERFORM windowjoin._make_capture_triggers(src, windowjoin._capture_triggers(v, sfx));
  END LOOP;

  -- infinite times belong to no window and never move a watermark
  EXECUTE format('SELECT windowjoin._tz(max(%I)) FROM %s WHERE %I > ''-infinity'' AND %I < ''infinity''',
                 a.time_column, a.source, a.time_column, a.time_column)
    INTO max_ev;
  IF a.join_kind IS NOT NULL THEN
    EXECUTE format('SELECT windowjoin._tz(max(%I)) FROM %s WHERE %I > ''-infinity'' AND %I < ''infinity''',
                   a.time_column2, a.source2, a.time_column2, a.time_column2)
      INTO max_ev2;
  END IF;

  -- the catalog row, through its one write path (src/continuous/cv_catalog.c),
  -- which checks what it names and records the dependencies
  PERFORM windowjoin._catalog_insert(pg_catalog.jsonb_build_object(
    'view_rel', v::oid, 'query', query, 'kind', a.kind, 'source_rel', a.source::oid,
    'time_column', a.time_column, 'time_type', a.time_type::oid, 'size', a.size,
    'stride', a.stride, 'offset', a."offset", 'gap', a.gap, 'range_query', a.range_query,
    'changes_rel', ch::oid, 'late_rel', lt::oid, 'panes_rel', pn::oid,
    'pane_query', pane_q, 'combine_query', combine_q, 'merge_query', merge_q,
    'delay', delay, 'late', late, 'emit', emit, 'schedule', schedule,
    'max_event', coalesce(max_ev, '-infinity')) || pg_catalog.jsonb_build_object(
    'join_kind', a.join_kind, 'join_type', a.join_type, 'source2_rel', a.source2::oid,
    'time_column2', a.time_column2, 'band_lo', a.band_lo, 'band_hi', a.band_hi,
    'right_query', a.right_query, 'changes2_rel', ch2::oid, 'late2_rel', lt2::oid,
    'max_event2', coalesce(max_ev2, '-infinity'), 'idle', idle,
    'triggers', windowjoin._capture_triggers(v, ''),
    'triggers2', CASE WHEN nsrc = 2 THEN windowjoin._capture_triggers(v, '_right') END));
  -- the derived queries as functions PostgreSQL tracks: renames of the
  -- source follow, DROP COLUMN of what the view reads is refused.  (Not on
  -- a Citus shard: Citus allows no CREATE FUNCTION on a worker, and DDL
  -- reaches shards through Citus; a shard's derived queries stay text.)
  IF shard IS NULL THEN
    PERFORM windowjoin._derive_functions(v);
  END IF;

  PERFORM windowjoin.refresh(v);
  IF schedule IS NOT NULL THEN
    PERFORM windowjoin._scheduler_wake();
  END IF;
  PERFORM pg_catalog.set_config('search_path', caller_path, true);
  RETURN v;
END
$fn$;

CREATE OR REPLACE FUNCTION windowjoin._create_distributed_view(nsp text, rel text, query text,
  delay interval, late text, schedule interval, emit text, idle interval)
RETURNS regclass LANGUAGE plpgsql AS $fn$
DECLARE
  a record;
  p1 record;
  p2 record;
  v regclass;
  plan text := '';
  line text;
  shards int;
  caller_path text;
BEGIN
  -- as in _create_view: the caller's search_path only where the user's
  -- query is read (its analysis and its plan)
  caller_path := pg_catalog.current_setting('search_path');
  a := windowjoin._analyze_view_query(query, NULL);
  PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
  EXECUTE 'SELECT partmethod, colocationid, column_to_column_name(logicalrelid, partkey) AS col '
          'FROM pg_catalog.pg_dist_partition WHERE logicalrelid = $1' INTO p1 USING a.source;
  IF p1.partmethod IS DISTINCT FROM 'h' THEN
    RAISE EXCEPTION 'a continuous view over Citus tables must read a hash-distributed table (on the left of a join)'
      USING ERRCODE = 'feature_not_supported',
            DETAIL = format('Table %s is not hash-distributed.', a.source),
            HINT = 'Distribute it with create_distributed_table(); a reference table can only be the right side of a join.';
  END IF;
  IF a.join_kind IS NOT NULL AND a.source2 <> a.source THEN
    EXECUTE 'SELECT partmethod, colocationid FROM pg_catalog.pg_dist_partition WHERE logicalrelid = $1'
      INTO p2 USING a.source2;
    IF p2.partmethod IS NULL OR NOT (p2.partmethod = 'n' OR
                                     (p2.partmethod = 'h' AND p2.colocationid = p1.colocationid)) THEN
      RAISE EXCEPTION 'a continuous join view over Citus tables joins co-located tables, or a reference table on the right'
        USING ERRCODE = 'feature_not_supported',
              DETAIL = format('Table %s is not co-located with %s.', a.source2, a.source),
              HINT = 'Distribute both on the join key with colocate_with, or make the right side a reference table.';
    END IF;
  END IF;
  -- each shard must compute its rows alone: Citus pushes the query down
  -- whole, one task per shard
  EXECUTE 'SELECT count(*) FROM pg_catalog.pg_dist_shard WHERE logicalrelid = $1' INTO shards USING a.source;
  PERFORM pg_catalog.set_config('search_path', caller_path, true);
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
    plan := plan OPERATOR(pg_catalog.||) line OPERATOR(pg_catalog.||) E'\n';
  END LOOP;
  PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
  IF plan NOT LIKE 'Custom Scan (Citus Adaptive)%' OR plan LIKE '%Subplan%'
     OR plan LIKE '%epartition%' OR plan NOT LIKE format('%%Task Count: %s%%', shards) THEN
    RAISE EXCEPTION 'continuous views over Citus tables need a query Citus pushes down to the shards whole'
      USING ERRCODE = 'feature_not_supported',
            DETAIL = 'Its plan has a step on the coordinator, a subplan or a repartition.',
            HINT = 'Group by the distribution column, and join co-located tables on it.';
  END IF;

  v := windowjoin._create_view_table(nsp, rel, query, a.kind, a.time_type,
                                     a.right_query IS NOT NULL, emit, caller_path);
  IF NOT EXISTS (SELECT FROM pg_catalog.pg_attribute
                  WHERE attrelid = v AND attname = p1.col AND NOT attisdropped) THEN
    RAISE EXCEPTION 'a continuous view over Citus tables must select the distribution column %', p1.col
      USING ERRCODE = 'feature_not_supported',
            HINT = format('Select %I (and group by it): the view is distributed by it.', p1.col);
  END IF;
  EXECUTE 'SELECT create_distributed_table($1, $2, colocate_with => $3)'
    USING v, p1.col, a.source::text;

  PERFORM windowjoin._catalog_insert(pg_catalog.jsonb_build_object(
    'view_rel', v::oid, 'query', query, 'kind', a.kind, 'source_rel', a.source::oid,
    'time_column', a.time_column, 'time_type', a.time_type::oid, 'size', a.size,
    'stride', a.stride, 'offset', a."offset", 'gap', a.gap, 'range_query', a.range_query,
    'delay', delay, 'late', late, 'emit', emit, 'schedule', schedule,
    'join_kind', a.join_kind, 'join_type', a.join_type) || pg_catalog.jsonb_build_object(
    'source2_rel', a.source2::oid, 'time_column2', a.time_column2, 'band_lo', a.band_lo,
    'band_hi', a.band_hi, 'right_query', a.right_query, 'idle', idle, 'distributed', true));

  -- its shards become continuous views of the sources' shards at its
  -- first refresh, once this transaction has committed them
  -- (windowjoin._refresh_distributed)
  PERFORM pg_catalog.set_config('search_path', caller_path, true);
  RETURN v;
END
$fn$;

-- Refresh each shard of a Citus view on the node holding it (creating its
-- continuous view there the first time).  The shards read the query as
-- the connection's search_path resolves it, as create_view read it.
CREATE OR REPLACE FUNCTION windowjoin._refresh_distributed(view regclass, full_refresh boolean)
RETURNS void LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
  c windowjoin.view_catalog;
  cmd text;
  failed text;
BEGIN
  c := windowjoin._lock(view);
  cmd := 'SELECT windowjoin._refresh_shard(''%s''::pg_catalog.regclass, '
         || replace(format('%L, %L, %L, %L, %L, %L, %L)', full_refresh, c.query, c.delay, c.late,
                           c.schedule, c.emit, c.idle), '%', '%%');
  EXECUTE 'SELECT string_agg(result, ''; '') FROM run_command_on_placements($1, $2) WHERE NOT success'
    INTO failed USING view, cmd;
  IF failed IS NOT NULL THEN
    RAISE EXCEPTION 'could not refresh every shard of continuous view "%"', view
      USING ERRCODE = 'connection_failure', DETAIL = failed;
  END IF;
  PERFORM windowjoin._catalog_note_refresh(view);
END
$fn$;

-- On a Citus node: refresh the view of the shard view_shard, or create it.
CREATE OR REPLACE FUNCTION windowjoin._refresh_shard(view_shard regclass, full_refresh boolean,
  query text, delay interval, late text, schedule interval, emit text, idle interval)
RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
  IF EXISTS (SELECT FROM windowjoin.view_catalog v
              WHERE v.view_rel::pg_catalog.oid OPERATOR(pg_catalog.=) view_shard::pg_catalog.oid) THEN
    PERFORM windowjoin.refresh(view_shard, full_refresh);
  ELSE
    PERFORM windowjoin._create_shard_view(view_shard, query, delay, late, schedule, emit, idle);
  END IF;
END
$fn$;

-- On a Citus node: make the shard view_shard of a view a continuous view of
-- the co-located shards of its sources (a reference table's shard for a
-- join's right side), which this node holds.  The caller's search_path
-- reads the query; this function's own statements run with a pinned one.
CREATE OR REPLACE FUNCTION windowjoin._create_shard_view(view_shard regclass,
  query text, delay interval, late text, schedule interval, emit text, idle interval)
RETURNS regclass LANGUAGE plpgsql AS $fn$
DECLARE
  a record;
  sid bigint;
  relmap regclass[] := '{}';
  src regclass;
  shard regclass;
  caller_path text;
BEGIN
  caller_path := pg_catalog.current_setting('search_path');
  -- triggers and tables next to shards: what Citus otherwise refuses
  IF pg_catalog.current_setting('citus.enable_manual_changes_to_shards', true) IS NOT NULL THEN
    PERFORM pg_catalog.set_config('citus.enable_manual_changes_to_shards', 'on', true);
  END IF;
  a := windowjoin._analyze_view_query(query, NULL);
  PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
  sid := substring((SELECT relname FROM pg_catalog.pg_class WHERE oid = view_shard)
                   FROM '_([0-9]+)$')::bigint;
  FOREACH src IN ARRAY ARRAY[a.source, a.source2] LOOP
    CONTINUE WHEN src IS NULL OR src = ANY (relmap);
    EXECUTE 'SELECT pg_catalog.shard_name($2, s2.shardid)::pg_catalog.regclass '
            'FROM pg_catalog.pg_dist_shard s1 JOIN pg_catalog.pg_dist_shard s2 '
            'ON s2.logicalrelid = $2 AND (s2.shardminvalue IS NULL OR s2.shardminvalue = s1.shardminvalue) '
            'WHERE s1.shardid = $1' INTO shard USING sid, src;
    IF shard IS NULL THEN
      RAISE EXCEPTION 'no shard of % goes with %', src, view_shard
        USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
    relmap := relmap || ARRAY[src, shard];
  END LOOP;
  PERFORM pg_catalog.set_config('search_path', caller_path, true);
  RETURN windowjoin._create_view(view_shard::text, query, delay, late, schedule, emit, idle,
                                 view_shard, relmap);
END
$fn$;

CREATE OR REPLACE FUNCTION windowjoin.advance_watermark(view regclass, watermark timestamptz)
RETURNS void LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
  c windowjoin.view_catalog;
  w timestamptz;
  failed text;
BEGIN
  c := windowjoin._lock(view);
  IF watermark IS NULL THEN
    RAISE EXCEPTION 'the watermark must not be null' USING ERRCODE = 'null_value_not_allowed';
  END IF;
  IF c.distributed THEN
    -- a Citus view: every shard (created first if need be)
    PERFORM windowjoin.refresh(view);
    EXECUTE 'SELECT string_agg(result, ''; '') FROM run_command_on_placements($1, $2) WHERE NOT success'
      INTO failed USING view, format('SELECT windowjoin.advance_watermark(''%%s'', %L)', watermark);
    IF failed IS NOT NULL THEN
      RAISE EXCEPTION 'could not advance the watermark of every shard of continuous view "%"', view
        USING DETAIL = failed;
    END IF;
    RETURN;
  END IF;
  -- a timestamp source reads the watermark on the session's clock, as a
  -- timestamp literal would be
  EXECUTE format('SELECT windowjoin._tz(($1)::%s)', c.time_type) INTO w USING watermark;
  IF w < c.watermark THEN
    RAISE EXCEPTION 'the watermark of continuous view "%" cannot move backwards', view
      USING ERRCODE = 'invalid_parameter_value',
            DETAIL = format('The watermark is %s.', windowjoin._show(c.watermark, c.time_type));
  END IF;
  PERFORM windowjoin._catalog_advance(view, w);
  PERFORM windowjoin.refresh(view);
END
$fn$;

--------------------------------------------------------------------------
-- Views of 0.3: capture triggers of the new form, time columns by number
--------------------------------------------------------------------------

-- (their triggers keep the arguments 0.3 gave them, which _capture now
-- ignores; their dependencies stand)
UPDATE windowjoin.view_catalog c
   SET triggers = CASE WHEN NOT c.distributed THEN windowjoin._capture_triggers(c.view_rel, '') END,
       triggers2 = CASE WHEN c.changes2_rel IS NOT NULL
                        THEN windowjoin._capture_triggers(c.view_rel, '_right') END,
       time_attnum = (SELECT a.attnum FROM pg_catalog.pg_attribute a
                       WHERE a.attrelid = c.source_rel AND a.attname = c.time_column
                         AND NOT a.attisdropped),
       time_attnum2 = (SELECT a.attnum FROM pg_catalog.pg_attribute a
                        WHERE a.attrelid = c.source2_rel AND a.attname = c.time_column2
                          AND NOT a.attisdropped);

-- and their derived queries as functions (left as text, with a warning,
-- where the owner may no longer create functions in the view's schema)
DO $do$
DECLARE
  c record;
BEGIN
  FOR c IN SELECT view_rel FROM windowjoin.view_catalog WHERE NOT distributed LOOP
    BEGIN
      PERFORM windowjoin._derive_functions(c.view_rel);
    EXCEPTION WHEN OTHERS THEN
      RAISE WARNING 'the derived queries of continuous view % stay text: %', c.view_rel, SQLERRM;
    END;
  END LOOP;
END
$do$;

--------------------------------------------------------------------------
-- windowjoin.views
--------------------------------------------------------------------------

CREATE VIEW windowjoin.views WITH (security_invoker = true) AS
SELECT c.view_rel AS name,
       (SELECT r.relowner::pg_catalog.regrole FROM pg_catalog.pg_class r
         WHERE r.oid = c.view_rel::pg_catalog.oid) AS owner,
       CASE WHEN c.join_kind = 'window' THEN c.kind || ' join' ELSE c.kind END AS kind,
       c.source_rel AS source,
       c.query,
       c.delay,
       c.late,
       c.emit,
       c.schedule,
       windowjoin._show(c.watermark, c.time_type) AS watermark,
       windowjoin._show(c.max_event, c.time_type) AS max_event_time,
       CASE WHEN isfinite(c.max_event) AND isfinite(c.watermark)
            THEN c.max_event - c.watermark END AS lag,
       c.last_refresh,
       CASE WHEN c.schedule IS NOT NULL
            THEN greatest(coalesce(c.last_refresh, c.created) + c.schedule, c.next_attempt)
       END AS next_refresh,
       c.view_rows AS rows,
       (st.s).state_rows,
       (st.s).state_bytes,
       (st.s).open_rows,
       c.late_rows,
       c.revisions,
       c.refreshes,
       c.last_refresh_ms,
       c.last_stats AS last_refresh_steps,
       c.join_type,
       c.source2_rel AS right_source,
       CASE WHEN c.join_kind IS NOT NULL
            THEN windowjoin._show(c.watermark1, c.time_type) END AS left_watermark,
       CASE WHEN c.join_kind IS NOT NULL
            THEN windowjoin._show(c.watermark2, c.time_type) END AS right_watermark,
       c.band_lo,
       c.band_hi,
       c.idle,
       c.distributed,
       c.failures,
       c.last_error,
       c.last_error_sqlstate,
       c.last_error_at,
       c.next_attempt
  FROM windowjoin.view_catalog c,
       LATERAL (SELECT windowjoin._view_stats(c.view_rel) AS s OFFSET 0) st;

GRANT SELECT ON windowjoin.views TO PUBLIC;
COMMENT ON VIEW windowjoin.views IS
  'continuous window views: watermark, lag, rows, state (pending changes), late rows, the last refresh''s steps and failures';

--------------------------------------------------------------------------
-- Privileges: internal functions that no API path runs as its caller are
-- not callable by PUBLIC.  Those an API function calls as its caller stay
-- callable and check what they touch (cv_catalog.c, cv_capture.c); the
-- rest are pure helpers (_tz, _usecs, _show, _bin) or run only the
-- caller's own statements (_analyze_view_query, _pane_queries, _count,
-- _count_from, _open_rows, _create_view_table, the Citus helpers), every
-- one of them with a pinned search_path but where the user's query is read
-- (sql/continuous_privileges.sql calls each as another role).
--------------------------------------------------------------------------

REVOKE ALL ON FUNCTION windowjoin._on_drop() FROM PUBLIC;
REVOKE ALL ON FUNCTION windowjoin._on_create_trigger() FROM PUBLIC;
REVOKE ALL ON FUNCTION windowjoin._bind_trigger(oid) FROM PUBLIC;
REVOKE ALL ON FUNCTION windowjoin._catalog_bind() FROM PUBLIC;
REVOKE ALL ON FUNCTION windowjoin._on_partition_ddl() FROM PUBLIC;
