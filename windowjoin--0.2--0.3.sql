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
--   * refresh: one transaction folds the log.  The watermark is
--     max(event time seen) - delay, never decreasing, or later if advanced
--     explicitly.  Windows that closed since the last refresh, and (late =>
--     'revise') closed windows a late change touched, are recomputed from
--     an index range scan of the source with the view's own query plus
--     "t >= lo AND t < hi" (the range query, derived in C by
--     windowjoin._analyze_view_query), deleted and inserted.  Nothing else
--     is kept: the state of a view is its change log, emptied by every
--     refresh, and the source rows of its open windows.
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
  changes_rel        regclass NOT NULL,
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
  created            timestamptz NOT NULL DEFAULT now()
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

CREATE FUNCTION windowjoin._analyze_view_query(query text,
  OUT kind text, OUT source regclass, OUT time_column name, OUT time_type regtype,
  OUT size interval, OUT stride interval, OUT "offset" interval, OUT gap interval,
  OUT range_query text, OUT normalized_query text, OUT pane_columns text)
AS 'MODULE_PATHNAME', 'wj_analyze_view_query' LANGUAGE C STRICT VOLATILE;

CREATE FUNCTION windowjoin._pane_queries(query text, panes regclass,
  OUT pane_query text, OUT combine_query text, OUT merge_query text)
AS 'MODULE_PATHNAME', 'wj_view_pane_queries' LANGUAGE C STRICT VOLATILE;

CREATE FUNCTION windowjoin._capture() RETURNS trigger
AS 'MODULE_PATHNAME', 'wj_capture' LANGUAGE C;

CREATE FUNCTION windowjoin._register_view(view regclass, source regclass,
  changes regclass, late regclass, triggers oid[], panes regclass) RETURNS void
AS 'MODULE_PATHNAME', 'wj_register_view' LANGUAGE C VOLATILE;

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
CREATE FUNCTION windowjoin._bin(t timestamptz, stride interval, "offset" interval)
RETURNS timestamptz LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN isfinite(t)
              THEN date_bin(stride, t, 'epoch'::timestamptz + "offset") ELSE t END
$$;

-- Run one refresh statement: $1..$4 are bounds, passed as the source's
-- time type; returns the statement's row count (DML) or, for a query, its
-- one row (n, v).
CREATE FUNCTION windowjoin._run(tz boolean, stmt text, p1 timestamptz,
  p2 timestamptz, p3 timestamptz, p4 timestamptz) RETURNS bigint
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  n bigint;
BEGIN
  IF tz THEN
    EXECUTE stmt USING p1, p2, p3, p4;
  ELSE
    EXECUTE stmt USING p1 AT TIME ZONE 'UTC', p2 AT TIME ZONE 'UTC',
                       p3 AT TIME ZONE 'UTC', p4 AT TIME ZONE 'UTC';
  END IF;
  GET DIAGNOSTICS n = ROW_COUNT;
  RETURN n;
END
$$;

CREATE FUNCTION windowjoin._get(tz boolean, stmt text, p1 timestamptz,
  p2 timestamptz, p3 timestamptz, p4 timestamptz, OUT n bigint, OUT v timestamptz)
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  IF tz THEN
    EXECUTE stmt INTO n, v USING p1, p2, p3, p4;
  ELSE
    EXECUTE stmt INTO n, v USING p1 AT TIME ZONE 'UTC', p2 AT TIME ZONE 'UTC',
                                 p3 AT TIME ZONE 'UTC', p4 AT TIME ZONE 'UTC';
  END IF;
END
$$;

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

CREATE FUNCTION windowjoin.create_view(name text, query text,
  delay interval DEFAULT '0', late text DEFAULT 'revise',
  schedule interval DEFAULT NULL, emit text DEFAULT 'on_close')
RETURNS regclass LANGUAGE plpgsql AS $fn$
DECLARE
  a record;
  parts text[];
  nsp text;
  rel text;
  v regclass;
  ch regclass;
  lt regclass;
  trg text;
  with_rows text;
  grain bigint;
  origin bigint;
  max_ev timestamptz;
  pn regclass;
  pane_q text;
  combine_q text;
  merge_q text;
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

  parts := pg_catalog.parse_ident(name);
  IF array_length(parts, 1) = 1 THEN
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
  IF pg_catalog.to_regclass(format('%I.%I', nsp, rel)) IS NOT NULL THEN
    RAISE EXCEPTION 'relation "%" already exists', rel
      USING ERRCODE = 'duplicate_table';
  END IF;

  a := windowjoin._analyze_view_query(query);
  IF a.kind = 'session' AND late <> 'revise' THEN
    RAISE EXCEPTION 'continuous session views do not support late => ''%''', late
      USING ERRCODE = 'feature_not_supported',
            DETAIL = 'A late row can merge or split sessions that closed; a session view revises them.',
            HINT = 'Use late => ''revise'' (the default).';
  END IF;

  EXECUTE format('CREATE TABLE %I.%I AS SELECT q.*%s FROM (%s) q WITH NO DATA',
                 nsp, rel, CASE WHEN emit = 'on_update' THEN ', true AS final' ELSE '' END,
                 query);
  v := format('%I.%I', nsp, rel)::regclass;
  EXECUTE format('CREATE INDEX ON %s (window_end)', v);
  IF a.kind = 'session' THEN
    EXECUTE format('CREATE INDEX ON %s (window_start)', v);
  END IF;

  EXECUTE format('CREATE TABLE %I.%I (sign smallint NOT NULL, t %s, t_max %s, n int NOT NULL%s)',
                 nsp, rel || '_changes', a.time_type, a.time_type,
                 CASE WHEN late = 'log' THEN format(', r %s', a.source) ELSE '' END);
  ch := format('%I.%I', nsp, rel || '_changes')::regclass;
  EXECUTE format('COMMENT ON TABLE %s IS %L', ch,
                 format('change log of continuous view %s, emptied by windowjoin.refresh()', v));
  IF late = 'log' THEN
    EXECUTE format('CREATE TABLE %I.%I AS SELECT pg_catalog.clock_timestamp() AS logged_at, '
                   '0::smallint AS change, s.* FROM %s s WITH NO DATA',
                   nsp, rel || '_late', a.source);
    lt := format('%I.%I', nsp, rel || '_late')::regclass;
  END IF;
  -- hop and cumulate views whose aggregates combine exactly keep one row
  -- per group and pane, session views one per open session (on_close);
  -- src/continuous/cv_panes.c
  IF a.pane_columns IS NOT NULL AND (a.kind <> 'session' OR emit = 'on_close') THEN
    EXECUTE format('CREATE TABLE %I.%I (%s)', nsp, rel || '_panes', a.pane_columns);
    pn := format('%I.%I', nsp, rel || '_panes')::regclass;
    EXECUTE format('CREATE INDEX ON %s (pane_start)', pn);
    EXECUTE format('COMMENT ON TABLE %s IS %L', pn,
                   format('pane partial states of continuous view %s, kept by windowjoin.refresh()', v));
    SELECT p.pane_query, p.combine_query, p.merge_query INTO pane_q, combine_q, merge_q
      FROM windowjoin._pane_queries(query, pn) p;
  END IF;

  -- the log's grain: the unit in which rows become late (docs/continuous.md)
  with_rows := CASE WHEN late = 'log' THEN 'rows' ELSE 'bins' END;
  grain := windowjoin._usecs(CASE a.kind
             WHEN 'tumble' THEN a.size
             WHEN 'hop' THEN CASE WHEN windowjoin._usecs(a.size) % windowjoin._usecs(a.stride) = 0
                                  THEN a.stride ELSE interval '0' END
             WHEN 'cumulate' THEN a.stride
             ELSE a.gap END);
  origin := coalesce(windowjoin._usecs(a."offset"), 0);
  trg := format('windowjoin_%s', v::oid);
  EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %s REFERENCING NEW TABLE AS wj_new '
                 'FOR EACH STATEMENT EXECUTE FUNCTION windowjoin._capture(%L, %L, %L, %L, %L)',
                 trg || '_insert', a.source, format('%I.%I', nsp, rel || '_changes'),
                 a.time_column, with_rows, grain, origin);
  EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %s REFERENCING OLD TABLE AS wj_old '
                 'NEW TABLE AS wj_new FOR EACH STATEMENT '
                 'EXECUTE FUNCTION windowjoin._capture(%L, %L, %L, %L, %L)',
                 trg || '_update', a.source, format('%I.%I', nsp, rel || '_changes'),
                 a.time_column, with_rows, grain, origin);
  EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %s REFERENCING OLD TABLE AS wj_old '
                 'FOR EACH STATEMENT EXECUTE FUNCTION windowjoin._capture(%L, %L, %L, %L, %L)',
                 trg || '_delete', a.source, format('%I.%I', nsp, rel || '_changes'),
                 a.time_column, with_rows, grain, origin);
  EXECUTE format('CREATE TRIGGER %I AFTER TRUNCATE ON %s '
                 'FOR EACH STATEMENT EXECUTE FUNCTION windowjoin._capture(%L, %L, %L, %L, %L)',
                 trg || '_truncate', a.source, format('%I.%I', nsp, rel || '_changes'),
                 a.time_column, with_rows, grain, origin);

  EXECUTE format('SELECT windowjoin._tz(max(%I)) FROM %s', a.time_column, a.source)
    INTO max_ev;

  INSERT INTO windowjoin.view_catalog
    (view_rel, query, kind, source_rel, time_column, time_type, size, stride,
     "offset", gap, range_query, changes_rel, late_rel, panes_rel, pane_query,
     combine_query, merge_query, delay, late, emit, schedule, max_event)
  VALUES (v, query, a.kind, a.source, a.time_column, a.time_type, a.size,
          a.stride, a."offset", a.gap, a.range_query, ch, lt, pn, pane_q,
          combine_q, merge_q, delay, late, emit, schedule, coalesce(max_ev, '-infinity'));

  PERFORM windowjoin._register_view(v, a.source, ch, lt,
    ARRAY(SELECT t.oid FROM pg_catalog.pg_trigger t
          WHERE t.tgrelid = a.source AND t.tgname LIKE trg || '\_%'), pn);

  PERFORM windowjoin.refresh(v);
  RETURN v;
END
$fn$;

COMMENT ON FUNCTION windowjoin.create_view(text, text, interval, text, interval, text) IS
  'create a continuous window view: a table of the closed windows of a windowed aggregate query, kept up to date from its source';

--------------------------------------------------------------------------
-- refresh
--------------------------------------------------------------------------

CREATE FUNCTION windowjoin.refresh(view regclass, full_refresh boolean DEFAULT false,
  verbose boolean DEFAULT false)
RETURNS void LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
  c windowjoin.view_catalog;
  prev_role text := current_setting('role');
  tz boolean;
  t0 timestamptz := clock_timestamp();
  t1 timestamptz;
  t2 timestamptz;
  old_wm timestamptz;
  new_wm timestamptz;
  max_ev timestamptz;
  batch_max timestamptz;
  folded bigint;
  truncated boolean;
  late_n bigint;
  late_bins timestamptz[];
  change_min timestamptz;
  latecond text;
  binexpr text;
  finalcol text;
  finalonly text;
  lo timestamptz;
  hi timestamptz;
  l_prev timestamptz;
  l timestamptz;
  e timestamptz;
  n bigint;
  r record;
  emitted bigint := 0;
  revised bigint := 0;
  removed bigint := 0;
  inserted bigint := 0;
  new_open_from timestamptz;
  late_bin timestamptz;
  panes_done timestamptz;
  panes_from timestamptz;
  panes_n bigint := 0;
  fast boolean;
BEGIN
  c := windowjoin._lock(view);
  IF (SELECT relowner FROM pg_class WHERE oid = view) <> (SELECT oid FROM pg_roles WHERE rolname = c.owner) THEN
    RAISE EXCEPTION 'continuous view "%" is not owned by %, the owner recorded in its catalog row', view, c.owner
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  -- refresh runs as the view's owner, as REFRESH MATERIALIZED VIEW does
  IF c.owner <> current_user THEN
    PERFORM set_config('role', c.owner, true);
  END IF;

  tz := c.time_type = 'timestamptz'::regtype;
  old_wm := c.watermark;
  finalcol := CASE WHEN c.emit = 'on_update' THEN ', true' ELSE '' END;
  finalonly := CASE WHEN c.emit = 'on_update' THEN ' AND final' ELSE '' END;

  -- A change is late when it falls where the view is closed.  Tumble, hop
  -- and cumulate: the first window holding t ends at or before the
  -- watermark.  Session: t lies before the range the next recompute reads,
  -- (least(open_from, watermark - gap) - gap): no open session can reach it.
  -- A log row is a bin of rows (t its earliest time, t_max its latest, n
  -- their count) that share their first window, or one row.
  l_prev := least(c.open_from, old_wm - c.gap) - c.gap;
  latecond := CASE c.kind
    WHEN 'tumble' THEN format('windowjoin._bin(t, %L, %L) + %L::interval <= $1',
                              c.size, c."offset", c.size)
    WHEN 'hop' THEN format('windowjoin._bin(t - %3$L::interval, %1$L, %2$L) + %1$L::interval + %3$L::interval <= $1',
                           c.stride, c."offset", c.size)
    WHEN 'cumulate' THEN format('windowjoin._bin(t, %1$L, %2$L) + %1$L::interval <= $1',
                                c.stride, c."offset")
    ELSE 't_max < $2' END;
  binexpr := CASE c.kind
    WHEN 'hop' THEN format('windowjoin._bin(t, %L, %L)', c.stride, c."offset")
    WHEN 'session' THEN 't'
    ELSE format('windowjoin._bin(t, %L, %L)', c.size, c."offset") END;

  -- 1. fold the change log
  EXECUTE format($q$
    WITH d AS (DELETE FROM %1$s RETURNING sign, windowjoin._tz(t) AS t,
                                          windowjoin._tz(t_max) AS t_max, n%2$s)%3$s
    SELECT coalesce(sum(n) FILTER (WHERE sign <> 0), 0),
           coalesce(bool_or(sign = 0), false),
           max(t_max) FILTER (WHERE sign > 0),
           coalesce(sum(n) FILTER (WHERE sign <> 0 AND %4$s), 0),
           array_agg(DISTINCT %5$s) FILTER (WHERE sign <> 0 AND %4$s),
           min(t) FILTER (WHERE sign <> 0)
      FROM d$q$,
    c.changes_rel,
    CASE WHEN c.late = 'log' THEN ', r' ELSE '' END,
    CASE WHEN c.late = 'log' THEN format(
      ', lg AS (INSERT INTO %s SELECT pg_catalog.clock_timestamp(), d.sign, (d.r).* '
      'FROM d WHERE d.sign <> 0 AND %s)', c.late_rel, latecond) ELSE '' END,
    latecond, binexpr)
    INTO folded, truncated, batch_max, late_n, late_bins, change_min
    USING old_wm, l_prev;
  t1 := clock_timestamp();

  IF truncated OR full_refresh THEN
    EXECUTE format('DELETE FROM %s', view);
    c.view_rows := 0;
    old_wm := '-infinity';
    l_prev := '-infinity';
    c.open_from := '-infinity';
    IF truncated THEN
      c.explicit_watermark := '-infinity';
    END IF;
    EXECUTE format('SELECT windowjoin._tz(max(%I)) FROM %s', c.time_column, c.source_rel)
      INTO max_ev;
    max_ev := coalesce(max_ev, '-infinity');
    late_n := 0;
    late_bins := NULL;
    change_min := NULL;
  ELSE
    max_ev := greatest(c.max_event, batch_max);
  END IF;
  new_wm := greatest(old_wm, max_ev - c.delay, c.explicit_watermark);

  IF c.kind <> 'session' THEN
    -- 2a. a view with panes (cv_panes.c) holds the panes that are complete
    -- (end <= watermark) and can still belong to a window not yet emitted
    -- (from panes_from).  Whatever the late policy, a late change
    -- recomputes the panes of its bin from the source, as later windows
    -- still hold its rows.
    IF c.panes_rel IS NOT NULL AND late_bins IS NOT NULL AND isfinite(old_wm) THEN
      panes_done := windowjoin._bin(old_wm, c.stride, c."offset");
      panes_from := CASE c.kind
        WHEN 'hop' THEN panes_done + c.stride - c.size
        ELSE windowjoin._bin(panes_done, c.size, c."offset") END;
      FOREACH late_bin IN ARRAY late_bins LOOP
        lo := greatest(late_bin, panes_from);
        hi := least(late_bin + CASE c.kind WHEN 'hop' THEN c.stride ELSE c.size END, panes_done);
        CONTINUE WHEN lo >= hi;
        PERFORM windowjoin._run(tz, format(
          'DELETE FROM %s WHERE pane_start >= $1 AND pane_start < $2', c.panes_rel),
          lo, hi, NULL, NULL);
        panes_n := panes_n + windowjoin._run(tz, format('INSERT INTO %s %s', c.panes_rel,
          c.pane_query), lo, hi, NULL, NULL);
      END LOOP;
    END IF;

    -- 2b. revise closed windows touched by late changes, island by island
    IF c.late = 'revise' AND late_bins IS NOT NULL THEN
      FOR r IN
        SELECT min(x.lo) AS lo, max(x.hi) AS hi
          FROM (SELECT y.lo, y.hi, sum(y.brk) OVER (ORDER BY y.lo, y.hi) AS grp
                  FROM (SELECT z.lo, z.hi,
                               CASE WHEN z.lo <= max(z.hi) OVER (ORDER BY z.lo, z.hi ROWS
                                      BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
                                    THEN 0 ELSE 1 END AS brk
                          FROM (SELECT CASE WHEN c.kind = 'hop'
                                            THEN windowjoin._bin(b - c.size, c.stride, c."offset") + c.stride
                                            ELSE b END AS lo,
                                       b + c.size AS hi
                                  FROM unnest(late_bins) AS b) z) y) x
         GROUP BY x.grp ORDER BY 1
      LOOP
        hi := least(r.hi, old_wm);
        removed := removed + windowjoin._run(tz, format(
          'DELETE FROM %s WHERE window_end > $3 AND window_end <= $4 AND window_start >= $3%s',
          view, finalonly), r.lo, r.hi, r.lo, hi);
        n := windowjoin._run(tz, format(
          'INSERT INTO %s SELECT q.*%s FROM (%s) q WHERE q.window_start >= $3 AND q.window_end <= $4',
          view, finalcol, c.range_query), r.lo, r.hi, r.lo, hi);
        revised := revised + n;
        inserted := inserted + n;
      END LOOP;
    END IF;
    t2 := clock_timestamp();

    -- 3. emit the windows that closed: from the source, the rows from the
    -- start of the first window ending after the old watermark
    IF c.emit = 'on_update' THEN
      removed := removed + windowjoin._run(tz, format('DELETE FROM %s WHERE NOT final', view),
                                           NULL, NULL, NULL, NULL);
    END IF;
    -- (e: the last window end at or before the new watermark; nothing to
    -- read when it is not after the old one)
    e := CASE c.kind
      WHEN 'hop' THEN windowjoin._bin(new_wm - c.size, c.stride, c."offset") + c.size
      WHEN 'cumulate' THEN windowjoin._bin(new_wm, c.stride, c."offset")
      ELSE windowjoin._bin(new_wm, c.size, c."offset") END;
    IF new_wm > old_wm AND e > old_wm AND (c.panes_rel IS NULL OR NOT isfinite(old_wm)) THEN
      -- lo: the start of the first window ending after the old watermark
      lo := CASE c.kind
        WHEN 'hop' THEN windowjoin._bin(old_wm - c.size, c.stride, c."offset") + c.stride
        WHEN 'cumulate' THEN windowjoin._bin(windowjoin._bin(old_wm, c.stride, c."offset"),
                                             c.size, c."offset")
        ELSE windowjoin._bin(old_wm, c.size, c."offset") END;
      emitted := windowjoin._run(tz, format(
        'INSERT INTO %s SELECT q.*%s FROM (%s) q WHERE q.window_end > $3 AND q.window_end <= $4',
        view, finalcol, c.range_query), lo, e, old_wm, e);
      inserted := inserted + emitted;
    END IF;
    -- ... or, with panes: the panes completed since, then the windows
    -- ending in (old watermark, new watermark] from their panes; panes no
    -- window to come holds are purged.  The first refresh (and a full one)
    -- emits from the source and computes the panes it keeps.
    IF c.panes_rel IS NOT NULL AND new_wm > old_wm AND isfinite(new_wm) THEN
      panes_done := windowjoin._bin(new_wm, c.stride, c."offset");
      panes_from := CASE c.kind
        WHEN 'hop' THEN panes_done + c.stride - c.size
        ELSE windowjoin._bin(panes_done, c.size, c."offset") END;
      IF isfinite(old_wm) THEN
        lo := windowjoin._bin(old_wm, c.stride, c."offset");
      ELSE
        PERFORM windowjoin._run(tz, format('DELETE FROM %s', c.panes_rel), NULL, NULL, NULL, NULL);
        lo := panes_from;
      END IF;
      IF panes_done > lo THEN
        panes_n := panes_n + windowjoin._run(tz, format('INSERT INTO %s %s', c.panes_rel,
          c.pane_query), lo, panes_done, NULL, NULL);
      END IF;
      IF isfinite(old_wm) AND panes_done > old_wm THEN
        emitted := windowjoin._run(tz, format(
          'INSERT INTO %s SELECT q.*%s FROM (%s) q WHERE q.window_end > $3 AND q.window_end <= $4',
          view, finalcol, c.combine_query), old_wm - c.size, panes_done, old_wm, new_wm);
        inserted := inserted + emitted;
      END IF;
      PERFORM windowjoin._run(tz, format('DELETE FROM %s WHERE pane_start < $1', c.panes_rel),
                              panes_from, NULL, NULL, NULL);
    END IF;
    IF c.emit = 'on_update' THEN
      n := windowjoin._run(tz, format(
        'INSERT INTO %s SELECT q.*, false FROM (%s) q WHERE q.window_end > $3',
        view, c.range_query), new_wm - c.size, 'infinity', new_wm, NULL);
      inserted := inserted + n;
    END IF;
    new_open_from := c.open_from;
  ELSE
    -- 2+3. sessions with fragments (cv_panes.c) whose changes all lie after
    -- the old watermark: the fragment table holds the open sessions of the
    -- rows up to the old watermark, one row each.  The rows in (old, new
    -- watermark] become fragments, merged with those per partition; the
    -- sessions ending by the new watermark are emitted (no later row can
    -- reach them) and the others kept.
    fast := c.panes_rel IS NOT NULL AND isfinite(old_wm) AND NOT truncated AND NOT full_refresh
            AND (change_min IS NULL OR change_min > old_wm);
    IF fast THEN
      t2 := clock_timestamp();
      new_open_from := c.open_from;
      IF new_wm > old_wm THEN
        panes_n := windowjoin._run(tz, format('INSERT INTO %s %s', c.panes_rel, c.pane_query),
                                   old_wm + interval '1 microsecond',
                                   new_wm + interval '1 microsecond', NULL, NULL);
        PERFORM windowjoin._run(tz, format(
          'WITH wj_fragments AS (DELETE FROM %s RETURNING *) INSERT INTO %s %s',
          c.panes_rel, c.panes_rel, c.merge_query), NULL, NULL, NULL, NULL);
        emitted := windowjoin._run(tz, format(
          'INSERT INTO %s SELECT q.* FROM (%s) q WHERE q.window_end <= $1',
          view, c.combine_query), new_wm, NULL, NULL, NULL);
        inserted := emitted;
        PERFORM windowjoin._run(tz, format('DELETE FROM %s WHERE pane_end <= $1', c.panes_rel),
                                new_wm, NULL, NULL, NULL);
        SELECT coalesce(g.v, 'infinity') INTO new_open_from FROM windowjoin._get(tz, format(
          'SELECT 0::bigint, windowjoin._tz(min(pane_start)) FROM %s', c.panes_rel),
          NULL, NULL, NULL, NULL) g;
      END IF;
    ELSE
    -- Otherwise: recompute everything from l onwards.  A session with
    -- its first row at or after l + gap is computed exactly from the rows
    -- at or after l.  Every session still open or newly closed starts
    -- there, and l is moved back to the start of the earliest session a
    -- change can touch: one ending at or after the change's time.
    l := l_prev;
    IF change_min IS NOT NULL THEN
      SELECT g.v INTO e FROM windowjoin._get(tz, format(
        'SELECT 0::bigint, windowjoin._tz(min(window_start)) FROM %s WHERE window_end >= $1%s',
        view, finalonly), change_min, NULL, NULL, NULL) g;
      l := least(l, least(change_min, e) - c.gap);
    END IF;
    t2 := clock_timestamp();
    IF folded > 0 OR new_wm > old_wm OR truncated OR full_refresh THEN
      removed := removed + windowjoin._run(tz, format('DELETE FROM %s WHERE window_start >= $1',
                                                      view), l + c.gap, NULL, NULL, NULL);
      SELECT g.n, g.v INTO n, new_open_from FROM windowjoin._get(tz, format($q$
        WITH s AS MATERIALIZED (SELECT q.* FROM (%1$s) q WHERE q.window_start >= $3),
             ins AS (INSERT INTO %2$s SELECT s.*%3$s FROM s WHERE s.window_end <= $4 RETURNING window_start)%4$s
        SELECT (SELECT count(*) FROM ins),
               (SELECT windowjoin._tz(min(window_start)) FROM s WHERE window_end > $4)$q$,
        c.range_query, view, finalcol,
        CASE WHEN c.emit = 'on_update' THEN format(
          ', op AS (INSERT INTO %s SELECT s.*, false FROM s WHERE s.window_end > $4)', view)
        ELSE '' END), l, 'infinity', l + c.gap, new_wm) g;
      inserted := n;
      IF l < l_prev THEN
        revised := n;
      ELSE
        emitted := n;
      END IF;
      new_open_from := coalesce(new_open_from, 'infinity');
      IF c.emit = 'on_update' THEN
        SELECT g.n INTO n FROM windowjoin._get(tz, format(
          'SELECT count(*), NULL::timestamptz FROM %s WHERE NOT final', view),
          NULL, NULL, NULL, NULL) g;
        inserted := inserted + n;
      END IF;
      -- the fragments again: the open sessions of the rows up to the new
      -- watermark, all starting at or after new_open_from
      IF c.panes_rel IS NOT NULL THEN
        PERFORM windowjoin._run(tz, format('DELETE FROM %s', c.panes_rel), NULL, NULL, NULL, NULL);
        IF isfinite(new_wm) AND isfinite(new_open_from) THEN
          panes_n := windowjoin._run(tz, format(
            'INSERT INTO %s SELECT f.* FROM (%s) f WHERE f.pane_end > $3', c.panes_rel, c.pane_query),
            new_open_from - c.gap, new_wm + interval '1 microsecond', new_wm, NULL);
        END IF;
      END IF;
    ELSE
      new_open_from := c.open_from;
    END IF;
    END IF;
  END IF;

  UPDATE windowjoin.view_catalog v
     SET watermark = new_wm,
         max_event = max_ev,
         explicit_watermark = c.explicit_watermark,
         open_from = new_open_from,
         view_rows = c.view_rows + inserted - removed,
         late_rows = v.late_rows + late_n,
         revisions = v.revisions + revised,
         refreshes = v.refreshes + 1,
         last_refresh = clock_timestamp(),
         last_refresh_ms = extract(epoch FROM clock_timestamp() - t0) * 1000,
         last_stats = jsonb_build_object(
           'changes_folded', folded, 'late_rows', late_n,
           'windows_emitted', emitted, 'windows_revised', revised,
           'panes_computed', panes_n,
           'path', CASE WHEN c.kind = 'session' AND fast THEN 'fragments'
                        WHEN c.kind <> 'session' AND c.panes_rel IS NOT NULL AND isfinite(old_wm)
                          THEN 'panes'
                        ELSE 'source' END,
           'rows_removed', removed,
           'fold_ms', round((extract(epoch FROM t1 - t0) * 1000)::numeric, 3),
           'revise_ms', round((extract(epoch FROM t2 - t1) * 1000)::numeric, 3),
           'emit_ms', round((extract(epoch FROM clock_timestamp() - t2) * 1000)::numeric, 3),
           'truncated', truncated)
   WHERE v.view_rel = view;

  IF $3 THEN  -- verbose (a keyword, so by number)
    RAISE NOTICE 'refreshed %: % changes folded, % late, % windows emitted, % revised, watermark %',
      view, folded, late_n, emitted, revised, windowjoin._show(new_wm, c.time_type);
  END IF;
  IF current_setting('role') <> prev_role THEN
    PERFORM set_config('role', prev_role, true);
  END IF;
END
$fn$;

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
BEGIN
  c := windowjoin._lock(view);
  IF watermark IS NULL THEN
    RAISE EXCEPTION 'the watermark must not be null' USING ERRCODE = 'null_value_not_allowed';
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
       c.kind,
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
         + coalesce(windowjoin._count(c.panes_rel), 0) AS state_rows,
       pg_catalog.pg_total_relation_size(c.changes_rel)
         + coalesce(pg_catalog.pg_total_relation_size(c.panes_rel), 0) AS state_bytes,
       c.late_rows,
       c.revisions,
       c.refreshes,
       c.last_refresh_ms,
       c.last_stats AS last_refresh_steps
  FROM windowjoin.view_catalog c;

GRANT SELECT ON windowjoin.views TO PUBLIC;
COMMENT ON VIEW windowjoin.views IS
  'continuous window views: watermark, lag, rows, state (pending changes), late rows and the last refresh''s steps';
