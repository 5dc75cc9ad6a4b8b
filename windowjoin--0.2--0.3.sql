/* windowjoin--0.2--0.3.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION windowjoin UPDATE TO '0.3'" to load this file. \quit

--------------------------------------------------------------------------
-- 0.3: continuous window views (docs/continuous.md).
--
--   SELECT windowjoin.create_view('bid_tumble',
--     $$SELECT item, window_start, window_end, count(*) AS bids
--         FROM bid, tumble(bidtime, interval '1 minute')
--        GROUP BY item, window_start, window_end$$,
--     delay => interval '10 seconds', late => 'revise',
--     schedule => interval '1 second');
--
-- A view is a table holding the closed windows of its query, kept up to
-- date from the changes to its source:
--   * capture: statement-level AFTER triggers (windowjoin._capture, C)
--     append (sign, event time[, row]) to the view's change log;
--   * refresh (windowjoin.refresh, C: src/continuous/cv_refresh.c): one
--     transaction folds the log.  The watermark is max(event time seen) -
--     delay, never decreasing, or later if advanced explicitly.  Windows
--     that closed since the last refresh, and (late => 'revise') closed
--     windows a late change touched, are computed from an index range scan
--     of the source with the view's own query plus "t >= lo AND t < hi"
--     (the range query, derived in C by windowjoin._analyze_view_query), or
--     from the view's pane or session partial states (cv_panes.c), deleted
--     and inserted.  The state of a view is its change log, emptied by
--     every refresh, and its partial states, bounded by its open windows.
--
-- Event times are kept in the catalog as timestamptz; for a timestamp
-- source, as the wall clock read in UTC (windowjoin._tz), so that the
-- arithmetic never depends on the session's TimeZone.
--------------------------------------------------------------------------

CREATE SCHEMA windowjoin;
GRANT USAGE ON SCHEMA windowjoin TO PUBLIC;
COMMENT ON SCHEMA windowjoin IS 'continuous window views: functions and catalog';

CREATE TABLE windowjoin.view_catalog (
  view_rel           regclass PRIMARY KEY,
  owner              name NOT NULL DEFAULT current_user,
  query              text NOT NULL,
  kind               text NOT NULL,
  source_rel         regclass NOT NULL,
  time_column        name NOT NULL,
  time_type          regtype NOT NULL,
  size               interval,
  stride             interval,
  "offset"           interval,
  gap                interval,
  range_query        text NOT NULL,
  changes_rel        regclass,         -- NULL: a Citus view (its shards have logs)
  late_rel           regclass,
  panes_rel          regclass,
  pane_query         text,
  combine_query      text,
  merge_query        text,
  delay              interval NOT NULL,
  late               text NOT NULL,
  emit               text NOT NULL,
  schedule           interval,
  max_event          timestamptz NOT NULL DEFAULT '-infinity',
  explicit_watermark timestamptz NOT NULL DEFAULT '-infinity',
  watermark          timestamptz NOT NULL DEFAULT '-infinity',
  open_from          timestamptz NOT NULL DEFAULT '-infinity',
  view_rows          bigint NOT NULL DEFAULT 0,
  late_rows          bigint NOT NULL DEFAULT 0,
  revisions          bigint NOT NULL DEFAULT 0,
  refreshes          bigint NOT NULL DEFAULT 0,
  last_refresh       timestamptz,
  last_refresh_ms    float8,
  last_stats         jsonb,
  created            timestamptz NOT NULL DEFAULT now(),
  -- join views (NULL otherwise): the right source, its log and watermark
  join_kind          text,
  join_type          text,
  source2_rel        regclass,
  time_column2       name,
  band_lo            interval,
  band_hi            interval,
  right_query        text,
  changes2_rel       regclass,
  late2_rel          regclass,
  max_event2         timestamptz NOT NULL DEFAULT '-infinity',
  watermark1         timestamptz NOT NULL DEFAULT '-infinity',
  watermark2         timestamptz NOT NULL DEFAULT '-infinity',
  idle               interval,
  seen1              timestamptz,
  seen2              timestamptz,
  -- Citus: the view is a distributed table whose shards are continuous
  -- views of the sources' shards (windowjoin._create_distributed_view)
  distributed        boolean NOT NULL DEFAULT false
);
COMMENT ON TABLE windowjoin.view_catalog IS
  'continuous window views: one row per view (read windowjoin.views)';
-- As pg_cron's job table: every role sees and changes only its own views,
-- and a view is always refreshed as its owner.
ALTER TABLE windowjoin.view_catalog ENABLE ROW LEVEL SECURITY;
CREATE POLICY own_views ON windowjoin.view_catalog
  USING (owner = current_user) WITH CHECK (owner = current_user);
GRANT SELECT, INSERT, UPDATE, DELETE ON windowjoin.view_catalog TO PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('windowjoin.view_catalog', '');

--------------------------------------------------------------------------
-- C parts
--------------------------------------------------------------------------

CREATE FUNCTION windowjoin._analyze_view_query(query text, relmap regclass[],
  OUT kind text, OUT source regclass, OUT time_column name, OUT time_type regtype,
  OUT size interval, OUT stride interval, OUT "offset" interval, OUT gap interval,
  OUT range_query text, OUT normalized_query text, OUT pane_columns text,
  OUT join_kind text, OUT join_type text, OUT source2 regclass, OUT time_column2 name,
  OUT band_lo interval, OUT band_hi interval, OUT right_query text)
AS 'MODULE_PATHNAME', 'wj_analyze_view_query' LANGUAGE C VOLATILE;

CREATE FUNCTION windowjoin._pane_queries(query text, panes regclass, relmap regclass[],
  OUT pane_query text, OUT combine_query text, OUT merge_query text)
AS 'MODULE_PATHNAME', 'wj_view_pane_queries' LANGUAGE C VOLATILE;

CREATE FUNCTION windowjoin._capture() RETURNS trigger
AS 'MODULE_PATHNAME', 'wj_capture' LANGUAGE C;

CREATE FUNCTION windowjoin._register_view(view regclass, source regclass,
  changes regclass, late regclass, triggers oid[], panes regclass) RETURNS void
AS 'MODULE_PATHNAME', 'wj_register_view' LANGUAGE C VOLATILE;

-- the background scheduler looks at this database when the transaction
-- commits (a new scheduled view); does nothing without the scheduler
CREATE FUNCTION windowjoin._scheduler_wake() RETURNS void
AS 'MODULE_PATHNAME', 'wj_scheduler_wake' LANGUAGE C VOLATILE;

--------------------------------------------------------------------------
-- Helpers
--------------------------------------------------------------------------

-- an event time as the catalog keeps it
CREATE FUNCTION windowjoin._tz(t timestamptz) RETURNS timestamptz
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS 'SELECT t';
CREATE FUNCTION windowjoin._tz(t timestamp) RETURNS timestamptz
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$SELECT t AT TIME ZONE 'UTC'$$;

-- an interval in microseconds (no months: the windows' lengths)
CREATE FUNCTION windowjoin._usecs(i interval) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$SELECT (extract(epoch FROM i) * 1000000)::bigint$$;

-- ... and as the source's type, shown as text
CREATE FUNCTION windowjoin._show(t timestamptz, typ regtype) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN typ = 'timestamptz'::regtype THEN t::text
              ELSE (t AT TIME ZONE 'UTC')::text END
$$;

-- the start of the stride-long bin holding t, bins aligned to epoch + offset
-- (the window tumble(t, stride, offset) puts t in; infinite t is its own bin)
CREATE FUNCTION windowjoin._bin(t timestamptz, stride interval, "offset" interval)
RETURNS timestamptz AS 'MODULE_PATHNAME', 'wj_cv_bin'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION windowjoin._count(rel regclass) RETURNS bigint
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  n bigint;
BEGIN
  IF rel IS NULL THEN
    RETURN NULL;
  END IF;
  EXECUTE format('SELECT count(*) FROM %s', rel) INTO n;
  RETURN n;
END
$$;

-- the rows of a source at or after t (a catalog time), or NULL for none
CREATE FUNCTION windowjoin._count_from(rel regclass, col name, typ regtype, t timestamptz)
RETURNS bigint
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  n bigint;
BEGIN
  IF rel IS NULL OR t IS NULL THEN
    RETURN NULL;
  END IF;
  EXECUTE format('SELECT count(*) FROM %s WHERE %I >= $1::%s', rel, col, typ)
    INTO n USING windowjoin._show(t, typ);
  RETURN n;
END
$$;

-- The source rows a view still waits on (docs/continuous.md, "State"): the
-- rows from the start of its first window not closed (of both sources for
-- a window join), from its earliest open session, or, for an interval or
-- as-of view, the left rows from its left frontier and the right rows its
-- band can still reach.  NULL on the coordinator of a Citus view.
CREATE FUNCTION windowjoin._open_rows(c windowjoin.view_catalog) RETURNS bigint
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  lo timestamptz;
  lo2 timestamptz;
BEGIN
  IF c.distributed THEN
    RETURN NULL;
  END IF;
  IF c.kind IN ('interval', 'asof') THEN
    lo := least(c.watermark1, c.watermark2 - c.band_hi);
    lo2 := coalesce(lo + c.band_lo, lo);
    IF c.right_query IS NOT NULL THEN
      lo2 := least(lo2, c.watermark2, c.watermark1 + c.band_lo);
    END IF;
  ELSE
    lo := CASE c.kind
            WHEN 'tumble' THEN windowjoin._bin(c.watermark, c.size, c."offset")
            WHEN 'hop' THEN windowjoin._bin(c.watermark - c.size, c.stride, c."offset") + c.stride
            WHEN 'cumulate' THEN windowjoin._bin(windowjoin._bin(c.watermark, c.stride, c."offset"),
                                                 c.size, c."offset")
            ELSE c.open_from END;
    lo2 := lo;
  END IF;
  RETURN windowjoin._count_from(c.source_rel, c.time_column, c.time_type, lo)
         + CASE WHEN c.join_kind IS NULL OR c.source2_rel = c.source_rel THEN 0
                ELSE windowjoin._count_from(c.source2_rel, c.time_column2, c.time_type, lo2) END;
END
$$;

-- the catalog row of a view, locked; an error if it is none
CREATE FUNCTION windowjoin._lock(view regclass) RETURNS windowjoin.view_catalog
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  c windowjoin.view_catalog;
BEGIN
  SELECT * INTO c FROM windowjoin.view_catalog v WHERE v.view_rel = view FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION '"%" is not a continuous view', view
      USING ERRCODE = 'wrong_object_type',
            HINT = 'SELECT name FROM windowjoin.views lists the continuous views you own.';
  END IF;
  RETURN c;
END
$$;

--------------------------------------------------------------------------
-- create_view
--------------------------------------------------------------------------

-- create_view's body.  shard and relmap are for the shards of a Citus view
-- (windowjoin._create_shard_view): the view's table exists (the shard), and
-- the query's tables are read as the shards relmap pairs them with.
CREATE FUNCTION windowjoin._create_view(name text, query text, delay interval,
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
  trg text;
  with_rows text;
  grain bigint;
  origin bigint;
  max_ev timestamptz;
  max_ev2 timestamptz;
  pn regclass;
  pane_q text;
  combine_q text;
  merge_q text;
  nsrc int := 1;
  src regclass;
  tcol name;
  sfx text;
BEGIN
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
    nsp := current_schema();
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
  IF shard IS NULL AND pg_catalog.to_regclass(format('%I.%I', nsp, rel)) IS NOT NULL THEN
    RAISE EXCEPTION 'relation "%" already exists', rel
      USING ERRCODE = 'duplicate_table';
  END IF;

  a := windowjoin._analyze_view_query(query, relmap);
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

  IF shard IS NOT NULL THEN
    v := shard;                 -- created, with its indexes, by Citus
  ELSE
    v := windowjoin._create_view_table(nsp, rel, query, a.kind, a.time_type,
                                       a.right_query IS NOT NULL, emit);
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
    SELECT p.pane_query, p.combine_query, p.merge_query INTO pane_q, combine_q, merge_q
      FROM windowjoin._pane_queries(query, pn, relmap) p;
  END IF;

  -- the log's grain: the unit in which rows become late (docs/continuous.md);
  -- interval and as-of views log one-second bins
  with_rows := CASE WHEN late = 'log' THEN 'rows' ELSE 'bins' END;
  grain := windowjoin._usecs(CASE a.kind
             WHEN 'tumble' THEN a.size
             WHEN 'hop' THEN CASE WHEN windowjoin._usecs(a.size) % windowjoin._usecs(a.stride) = 0
                                  THEN a.stride ELSE interval '0' END
             WHEN 'cumulate' THEN a.stride
             WHEN 'session' THEN a.gap
             ELSE interval '1 second' END);
  origin := coalesce(windowjoin._usecs(a."offset"), 0);
  FOR i IN 1 .. nsrc LOOP
    src := CASE WHEN i = 1 THEN a.source ELSE a.source2 END;
    tcol := CASE WHEN i = 1 THEN a.time_column ELSE a.time_column2 END;
    sfx := CASE WHEN i = 1 THEN '' ELSE '_right' END;
    trg := format('windowjoin_%s%s', v::oid, sfx);
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %s REFERENCING NEW TABLE AS wj_new '
                   'FOR EACH STATEMENT EXECUTE FUNCTION windowjoin._capture(%L, %L, %L, %L, %L)',
                   trg || '_insert', src, format('%I.%I', nsp, rel || '_changes' || sfx),
                   tcol, with_rows, grain, origin);
    EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %s REFERENCING OLD TABLE AS wj_old '
                   'NEW TABLE AS wj_new FOR EACH STATEMENT '
                   'EXECUTE FUNCTION windowjoin._capture(%L, %L, %L, %L, %L)',
                   trg || '_update', src, format('%I.%I', nsp, rel || '_changes' || sfx),
                   tcol, with_rows, grain, origin);
    EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %s REFERENCING OLD TABLE AS wj_old '
                   'FOR EACH STATEMENT EXECUTE FUNCTION windowjoin._capture(%L, %L, %L, %L, %L)',
                   trg || '_delete', src, format('%I.%I', nsp, rel || '_changes' || sfx),
                   tcol, with_rows, grain, origin);
    EXECUTE format('CREATE TRIGGER %I AFTER TRUNCATE ON %s '
                   'FOR EACH STATEMENT EXECUTE FUNCTION windowjoin._capture(%L, %L, %L, %L, %L)',
                   trg || '_truncate', src, format('%I.%I', nsp, rel || '_changes' || sfx),
                   tcol, with_rows, grain, origin);
  END LOOP;

  EXECUTE format('SELECT windowjoin._tz(max(%I)) FROM %s', a.time_column, a.source)
    INTO max_ev;
  IF a.join_kind IS NOT NULL THEN
    EXECUTE format('SELECT windowjoin._tz(max(%I)) FROM %s', a.time_column2, a.source2)
      INTO max_ev2;
  END IF;

  INSERT INTO windowjoin.view_catalog
    (view_rel, query, kind, source_rel, time_column, time_type, size, stride,
     "offset", gap, range_query, changes_rel, late_rel, panes_rel, pane_query,
     combine_query, merge_query, delay, late, emit, schedule, max_event,
     join_kind, join_type, source2_rel, time_column2, band_lo, band_hi, right_query,
     changes2_rel, late2_rel, max_event2, idle)
  VALUES (v, query, a.kind, a.source, a.time_column, a.time_type, a.size,
          a.stride, a."offset", a.gap, a.range_query, ch, lt, pn, pane_q,
          combine_q, merge_q, delay, late, emit, schedule, coalesce(max_ev, '-infinity'),
          a.join_kind, a.join_type, a.source2, a.time_column2, a.band_lo, a.band_hi,
          a.right_query, ch2, lt2, coalesce(max_ev2, '-infinity'), idle);

  PERFORM windowjoin._register_view(v, a.source, ch, lt,
    ARRAY(SELECT t.oid FROM pg_catalog.pg_trigger t
          WHERE t.tgrelid = a.source
            AND t.tgname LIKE format('windowjoin\_%s\_%%', v::oid)
            AND t.tgname NOT LIKE format('windowjoin\_%s\_right\_%%', v::oid)), pn);
  IF nsrc = 2 THEN
    PERFORM windowjoin._register_view(v, a.source2, ch2, lt2,
      ARRAY(SELECT t.oid FROM pg_catalog.pg_trigger t
            WHERE t.tgrelid = a.source2
              AND t.tgname LIKE format('windowjoin\_%s\_right\_%%', v::oid)), NULL);
  END IF;

  PERFORM windowjoin.refresh(v);
  IF schedule IS NOT NULL THEN
    PERFORM windowjoin._scheduler_wake();
  END IF;
  RETURN v;
END
$fn$;

-- the view's table, with its BRIN index (and a session view's btree);
-- interval and as-of views keep each row's anchor time, and with a right
-- part (RIGHT, FULL) whether the row is a right row's (cv_join_analyze.c)
CREATE FUNCTION windowjoin._create_view_table(nsp text, rel text, query text, kind text,
  time_type regtype, right_part boolean, emit text) RETURNS regclass
LANGUAGE plpgsql AS $fn$
DECLARE
  v regclass;
  anchor text := '';
BEGIN
  IF kind IN ('interval', 'asof') THEN
    anchor := format(', NULL::%s AS anchor_time', time_type);
    IF right_part THEN
      anchor := anchor || ', NULL::boolean AS anchor_right';
    END IF;
  END IF;
  EXECUTE format('CREATE TABLE %I.%I AS SELECT q.*%s%s FROM (%s) q WITH NO DATA',
                 nsp, rel, CASE WHEN emit = 'on_update' THEN ', true AS final' ELSE '' END,
                 anchor, query);
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

CREATE FUNCTION windowjoin.create_view(name text, query text,
  delay interval DEFAULT '0', late text DEFAULT 'revise',
  schedule interval DEFAULT NULL, emit text DEFAULT 'on_close',
  idle interval DEFAULT NULL)
RETURNS regclass LANGUAGE sql AS $fn$
  SELECT windowjoin._create_view(name, query, delay, late, schedule, emit, idle, NULL, NULL)
$fn$;

COMMENT ON FUNCTION windowjoin.create_view(text, text, interval, text, interval, text, interval) IS
  'create a continuous view: a table of the closed windows of a windowed aggregate or join query, or of the final rows of an interval or as-of join, kept up to date from its sources';

--------------------------------------------------------------------------
-- Citus (docs/scale-out.md)
--------------------------------------------------------------------------

-- A view over Citus tables: the sources hash-distributed (a join's right
-- side co-located with the left, or a reference table), the query pushed
-- down whole to the shards, the view's table distributed by the left
-- source's distribution column (which the view selects) and co-located
-- with it.  Each shard of the view is then a continuous view of the
-- sources' shards on the node that holds them, refreshed by that node's
-- scheduler; refresh and advance_watermark on the coordinator run on every
-- shard.  The shards' views are created by the first refresh (Citus runs
-- commands on placements in transactions of their own, which see the
-- view's shards only once they are committed).
CREATE FUNCTION windowjoin._create_distributed_view(nsp text, rel text, query text,
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
BEGIN
  a := windowjoin._analyze_view_query(query, NULL);
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
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
    plan := plan || line || E'\n';
  END LOOP;
  IF plan NOT LIKE 'Custom Scan (Citus Adaptive)%' OR plan LIKE '%Subplan%'
     OR plan LIKE '%epartition%' OR plan NOT LIKE format('%%Task Count: %s%%', shards) THEN
    RAISE EXCEPTION 'continuous views over Citus tables need a query Citus pushes down to the shards whole'
      USING ERRCODE = 'feature_not_supported',
            DETAIL = 'Its plan has a step on the coordinator, a subplan or a repartition.',
            HINT = 'Group by the distribution column, and join co-located tables on it.';
  END IF;

  v := windowjoin._create_view_table(nsp, rel, query, a.kind, a.time_type,
                                     a.right_query IS NOT NULL, emit);
  IF NOT EXISTS (SELECT FROM pg_catalog.pg_attribute
                  WHERE attrelid = v AND attname = p1.col AND NOT attisdropped) THEN
    RAISE EXCEPTION 'a continuous view over Citus tables must select the distribution column %', p1.col
      USING ERRCODE = 'feature_not_supported',
            HINT = format('Select %I (and group by it): the view is distributed by it.', p1.col);
  END IF;
  EXECUTE 'SELECT create_distributed_table($1, $2, colocate_with => $3)'
    USING v, p1.col, a.source::text;

  INSERT INTO windowjoin.view_catalog
    (view_rel, query, kind, source_rel, time_column, time_type, size, stride,
     "offset", gap, range_query, delay, late, emit, schedule, join_kind, join_type,
     source2_rel, time_column2, band_lo, band_hi, right_query, idle, distributed)
  VALUES (v, query, a.kind, a.source, a.time_column, a.time_type, a.size,
          a.stride, a."offset", a.gap, a.range_query, delay, late, emit, schedule,
          a.join_kind, a.join_type, a.source2, a.time_column2, a.band_lo, a.band_hi,
          a.right_query, idle, true);
  PERFORM windowjoin._register_view(v, a.source, NULL, NULL, '{}', NULL);
  IF a.join_kind IS NOT NULL AND a.source2 <> a.source THEN
    PERFORM windowjoin._register_view(v, a.source2, NULL, NULL, '{}', NULL);
  END IF;

  -- its shards become continuous views of the sources' shards at its
  -- first refresh, once this transaction has committed them
  -- (windowjoin._refresh_distributed)
  RETURN v;
END
$fn$;

-- windowjoin.refresh() of a Citus view, on the coordinator: on every
-- shard of the view, where it lives, create the shard's view (the first
-- time) or refresh it.  A query's % are doubled: Citus formats the command
-- with the shard's name.
CREATE FUNCTION windowjoin._refresh_distributed(view regclass, full_refresh boolean)
RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
  c windowjoin.view_catalog;
  cmd text;
  failed text;
BEGIN
  c := windowjoin._lock(view);
  cmd := 'SELECT windowjoin._refresh_shard(''%s''::regclass, '
         || replace(format('%L, %L, %L, %L, %L, %L, %L)', full_refresh, c.query, c.delay, c.late,
                           c.schedule, c.emit, c.idle), '%', '%%');
  EXECUTE 'SELECT string_agg(result, ''; '') FROM run_command_on_placements($1, $2) WHERE NOT success'
    INTO failed USING view, cmd;
  IF failed IS NOT NULL THEN
    RAISE EXCEPTION 'could not refresh every shard of continuous view "%"', view
      USING ERRCODE = 'connection_failure', DETAIL = failed;
  END IF;
  UPDATE windowjoin.view_catalog v SET refreshes = v.refreshes + 1,
         last_refresh = pg_catalog.clock_timestamp()
   WHERE v.view_rel = view;
END
$fn$;

-- On a Citus node: refresh the view of the shard view_shard, or create it.
CREATE FUNCTION windowjoin._refresh_shard(view_shard regclass, full_refresh boolean,
  query text, delay interval, late text, schedule interval, emit text, idle interval)
RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
  IF EXISTS (SELECT FROM windowjoin.view_catalog v WHERE v.view_rel = view_shard) THEN
    PERFORM windowjoin.refresh(view_shard, full_refresh);
  ELSE
    PERFORM windowjoin._create_shard_view(view_shard, query, delay, late, schedule, emit, idle);
  END IF;
END
$fn$;

-- On a Citus node: make the shard view_shard of a view a continuous view of
-- the co-located shards of its sources (a reference table's shard for a
-- join's right side), which this node holds.
CREATE FUNCTION windowjoin._create_shard_view(view_shard regclass,
  query text, delay interval, late text, schedule interval, emit text, idle interval)
RETURNS regclass LANGUAGE plpgsql AS $fn$
DECLARE
  a record;
  sid bigint;
  relmap regclass[] := '{}';
  src regclass;
  shard regclass;
BEGIN
  -- triggers and tables next to shards: what Citus otherwise refuses
  IF current_setting('citus.enable_manual_changes_to_shards', true) IS NOT NULL THEN
    PERFORM set_config('citus.enable_manual_changes_to_shards', 'on', true);
  END IF;
  a := windowjoin._analyze_view_query(query, NULL);
  sid := substring((SELECT relname FROM pg_catalog.pg_class WHERE oid = view_shard)
                   FROM '_([0-9]+)$')::bigint;
  FOREACH src IN ARRAY ARRAY[a.source, a.source2] LOOP
    CONTINUE WHEN src IS NULL OR src = ANY (relmap);
    EXECUTE 'SELECT pg_catalog.shard_name($2, s2.shardid)::regclass '
            'FROM pg_catalog.pg_dist_shard s1 JOIN pg_catalog.pg_dist_shard s2 '
            'ON s2.logicalrelid = $2 AND (s2.shardminvalue IS NULL OR s2.shardminvalue = s1.shardminvalue) '
            'WHERE s1.shardid = $1' INTO shard USING sid, src;
    IF shard IS NULL THEN
      RAISE EXCEPTION 'no shard of % goes with %', src, view_shard;
    END IF;
    relmap := relmap || ARRAY[src, shard];
  END LOOP;
  RETURN windowjoin._create_view(view_shard::text, query, delay, late, schedule, emit, idle,
                                 view_shard, relmap);
END
$fn$;

--------------------------------------------------------------------------
-- refresh
--------------------------------------------------------------------------

-- src/continuous/cv_refresh.c: fold the change log, advance the
-- watermark, write what closed; as the view's owner, in the caller's
-- transaction, the catalog row locked.
CREATE FUNCTION windowjoin.refresh(view regclass, full_refresh boolean DEFAULT false,
  verbose boolean DEFAULT false)
RETURNS void AS 'MODULE_PATHNAME', 'wj_refresh'
LANGUAGE C VOLATILE SET search_path = pg_catalog, pg_temp;

COMMENT ON FUNCTION windowjoin.refresh(regclass, boolean, boolean) IS
  'fold the change log of a continuous view, advance its watermark and write the windows that closed';

--------------------------------------------------------------------------
-- advance_watermark, drop_view
--------------------------------------------------------------------------

CREATE FUNCTION windowjoin.advance_watermark(view regclass, watermark timestamptz)
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
  UPDATE windowjoin.view_catalog v SET explicit_watermark = greatest(v.explicit_watermark, w)
   WHERE v.view_rel = view;
  PERFORM windowjoin.refresh(view);
END
$fn$;

COMMENT ON FUNCTION windowjoin.advance_watermark(regclass, timestamptz) IS
  'move the watermark of a continuous view forward explicitly, then refresh it';

CREATE FUNCTION windowjoin.drop_view(view regclass) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
  c windowjoin.view_catalog;
BEGIN
  c := windowjoin._lock(view);
  -- the change log, the late table and the triggers go with it (pg_depend)
  EXECUTE format('DROP TABLE %s', view);
  DELETE FROM windowjoin.view_catalog v WHERE v.view_rel = c.view_rel;
END
$fn$;

COMMENT ON FUNCTION windowjoin.drop_view(regclass) IS
  'drop a continuous view, its change log, late table and capture triggers';

-- A view dropped by DROP TABLE (or with its source, by CASCADE) leaves the
-- catalog with it.
CREATE FUNCTION windowjoin._on_drop() RETURNS event_trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
BEGIN
  DELETE FROM windowjoin.view_catalog c
   USING pg_event_trigger_dropped_objects() d
   WHERE d.classid = 'pg_class'::regclass AND d.objid = c.view_rel::oid;
END
$fn$;
CREATE EVENT TRIGGER windowjoin_drop_view ON sql_drop
  EXECUTE FUNCTION windowjoin._on_drop();

--------------------------------------------------------------------------
-- windowjoin.views
--------------------------------------------------------------------------

CREATE VIEW windowjoin.views WITH (security_invoker = true) AS
SELECT c.view_rel AS name,
       c.owner,
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
            THEN coalesce(c.last_refresh, c.created) + c.schedule END AS next_refresh,
       c.view_rows AS rows,
       windowjoin._count(c.changes_rel)
         + coalesce(windowjoin._count(c.changes2_rel), 0)
         + coalesce(windowjoin._count(c.panes_rel), 0) AS state_rows,
       pg_catalog.pg_total_relation_size(c.changes_rel)
         + coalesce(pg_catalog.pg_total_relation_size(c.changes2_rel), 0)
         + coalesce(pg_catalog.pg_total_relation_size(c.panes_rel), 0) AS state_bytes,
       windowjoin._open_rows(c) AS open_rows,
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
       c.distributed
  FROM windowjoin.view_catalog c;

GRANT SELECT ON windowjoin.views TO PUBLIC;
COMMENT ON VIEW windowjoin.views IS
  'continuous window views: watermark, lag, rows, state (pending changes), late rows and the last refresh''s steps';
