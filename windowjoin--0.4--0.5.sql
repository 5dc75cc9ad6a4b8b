/* windowjoin--0.4--0.5.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION windowjoin UPDATE TO '0.5'" to load this file. \quit

--------------------------------------------------------------------------
-- 0.5: changefeeds (docs/continuous.md, "Changefeed").
--
--   * create_view(..., feed => true) or alter_view(view, feed => true)
--     keeps <view>_feed (seq, change, the view's columns): every row that
--     appears in the view's table adds +1, every row that goes away -1, in
--     the transaction that changes the table, numbered without a gap in
--     commit order (src/continuous/cv_feed.c).
--   * windowjoin.feed_ack() records a named consumer's position in the
--     consumer's own transaction; refresh purges what every consumer has
--     passed, and what is older than feed_retention.
--   * Each transaction that adds feed rows notifies channel
--     windowjoin_feed at commit, with the view and its last seq.
--   * alter_view() changes the settings a view can change: schedule,
--     feed, feed_retention.
--------------------------------------------------------------------------

ALTER TABLE windowjoin.view_catalog
  ADD COLUMN feed_rel regclass,
  ADD COLUMN feed_seq bigint NOT NULL DEFAULT 0,
  ADD COLUMN feed_purged bigint NOT NULL DEFAULT 0,
  ADD COLUMN feed_retention interval,
  ADD CONSTRAINT view_catalog_feed_retention CHECK
    (feed_retention IS NULL OR feed_retention > interval '0'),
  ADD CONSTRAINT view_catalog_feed_seq CHECK (feed_seq >= feed_purged AND feed_purged >= 0);

-- A feed's named consumers and their positions (the last seq each has
-- applied), written only through feed_ack() and feed_drop_consumer().
CREATE TABLE windowjoin.feed_consumers (
  view_rel  regclass NOT NULL REFERENCES windowjoin.view_catalog ON DELETE CASCADE,
  consumer  text NOT NULL CHECK (consumer <> '' AND pg_catalog.length(consumer) <= 200),
  role      regrole NOT NULL,
  seq       bigint NOT NULL CHECK (seq >= 0),
  acked_at  timestamptz NOT NULL,
  PRIMARY KEY (view_rel, consumer)
);
COMMENT ON TABLE windowjoin.feed_consumers IS
  'changefeed consumers: the last seq each has acknowledged (windowjoin.feed_ack)';
ALTER TABLE windowjoin.feed_consumers ENABLE ROW LEVEL SECURITY;
CREATE POLICY own_consumers ON windowjoin.feed_consumers FOR SELECT
  USING (pg_catalog.pg_has_role(role, 'USAGE') OR
         pg_catalog.pg_has_role((SELECT c.relowner FROM pg_catalog.pg_class c
                                  WHERE c.oid = view_rel::pg_catalog.oid), 'USAGE'));
GRANT SELECT ON windowjoin.feed_consumers TO PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('windowjoin.feed_consumers', '');

-- When each transaction that wrote feed rows did (the last seq it wrote):
-- for feed_retention and for windowjoin.views' oldest unacknowledged change.
CREATE TABLE windowjoin.feed_marks (
  view_rel  regclass NOT NULL REFERENCES windowjoin.view_catalog ON DELETE CASCADE,
  seq       bigint NOT NULL,
  at        timestamptz NOT NULL,
  PRIMARY KEY (view_rel, seq)
);
COMMENT ON TABLE windowjoin.feed_marks IS
  'changefeeds: the time of each transaction that added feed rows, by its last seq';
ALTER TABLE windowjoin.feed_marks ENABLE ROW LEVEL SECURITY;
CREATE POLICY own_marks ON windowjoin.feed_marks FOR SELECT
  USING (pg_catalog.pg_has_role((SELECT c.relowner FROM pg_catalog.pg_class c
                                  WHERE c.oid = view_rel::pg_catalog.oid), 'USAGE'));
GRANT SELECT ON windowjoin.feed_marks TO PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('windowjoin.feed_marks', '');

--------------------------------------------------------------------------
-- The feed's writer and the catalog's new write paths (cv_feed.c)
--------------------------------------------------------------------------

-- The view table's statement triggers (and BEFORE TRUNCATE): known by
-- their fixed names, writing only the feed the view's catalog row names.
CREATE FUNCTION windowjoin._feed() RETURNS trigger
AS 'MODULE_PATHNAME', 'wj_feed' LANGUAGE C;

-- a view's changeable settings: schedule, feed_rel (with its first seq),
-- feed_retention; checks the caller has the owner's privileges
CREATE FUNCTION windowjoin._catalog_set(view regclass, settings jsonb) RETURNS void
AS 'MODULE_PATHNAME', 'wj_catalog_set'
LANGUAGE C STRICT VOLATILE SET search_path = pg_catalog, pg_temp;

CREATE FUNCTION windowjoin.feed_ack(view regclass, consumer text, seq bigint) RETURNS void
AS 'MODULE_PATHNAME', 'wj_feed_ack'
LANGUAGE C STRICT VOLATILE SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION windowjoin.feed_ack(regclass, text, bigint) IS
  'record that a named consumer of a continuous view''s changefeed has applied every change up to seq, in the caller''s transaction';

CREATE FUNCTION windowjoin.feed_drop_consumer(view regclass, consumer text) RETURNS void
AS 'MODULE_PATHNAME', 'wj_feed_drop_consumer'
LANGUAGE C STRICT VOLATILE SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION windowjoin.feed_drop_consumer(regclass, text) IS
  'forget a changefeed consumer: the feed no longer keeps changes for it';

-- The view's settings.  A feed starts with the view as it is (+1 for each
-- row); its table and triggers are made as the caller, who has the owner's
-- privileges (_lock shows a role only its own views), and the table is
-- given to the view's owner.
CREATE FUNCTION windowjoin.alter_view(view regclass, schedule interval DEFAULT NULL,
  feed boolean DEFAULT NULL, feed_retention interval DEFAULT NULL) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
  c windowjoin.view_catalog;
  nsp text;
  rel text;
  own regrole;
  f regclass;
  n bigint;
  ev text;
BEGIN
  IF schedule OPERATOR(pg_catalog.<) interval '0' OR feed_retention OPERATOR(pg_catalog.<) interval '0' THEN
    RAISE EXCEPTION 'a continuous view''s schedule and feed_retention must not be negative'
      USING ERRCODE = 'invalid_parameter_value',
            HINT = 'Use ''0'' for no schedule (refresh by hand) or no retention bound.';
  END IF;
  c := windowjoin._lock(view);
  -- the table before the catalog row, in the order a refresh takes them;
  -- no refresh or writer changes the view while its feed starts or stops
  EXECUTE format('LOCK TABLE %s IN EXCLUSIVE MODE', view);
  c := windowjoin._lock(view);       -- as it is now that no one else changes it
  IF feed AND c.feed_rel IS NULL THEN
    IF c.distributed THEN
      RAISE EXCEPTION 'a distributed continuous view cannot have a changefeed'
        USING ERRCODE = 'feature_not_supported',
              HINT = 'A Citus view''s rows live in its shards; read them with the view''s query.';
    END IF;
    IF EXISTS (SELECT FROM pg_catalog.pg_attribute a
                WHERE a.attrelid OPERATOR(pg_catalog.=) view::pg_catalog.oid
                  AND a.attnum OPERATOR(pg_catalog.>) 0 AND NOT a.attisdropped
                  AND a.attname OPERATOR(pg_catalog.=) ANY (ARRAY['seq', 'change']::name[])) THEN
      RAISE EXCEPTION 'continuous view % has a column named "seq" or "change", which its changefeed uses', view
        USING ERRCODE = 'duplicate_column',
              HINT = 'Name the column otherwise in the view''s query and create the view again.';
    END IF;
    SELECT n2.nspname, r.relname, r.relowner::regrole INTO nsp, rel, own
      FROM pg_catalog.pg_class r
      JOIN pg_catalog.pg_namespace n2 ON n2.oid OPERATOR(pg_catalog.=) r.relnamespace
     WHERE r.oid OPERATOR(pg_catalog.=) view::pg_catalog.oid;
    EXECUTE format('CREATE TABLE %I.%I (seq bigint PRIMARY KEY, change smallint NOT NULL '
                   'CHECK (change OPERATOR(pg_catalog.=) ANY (ARRAY[-1, 1]::smallint[])), LIKE %s)',
                   nsp, rel || '_feed', view);
    f := format('%I.%I', nsp, rel || '_feed')::regclass;
    EXECUTE format('ALTER TABLE %s OWNER TO %s', f, own);
    EXECUTE format('COMMENT ON TABLE %s IS %L', f,
                   format('changefeed of continuous view %s: +1 a row appeared, -1 it went away, in seq order', view));
    EXECUTE format('INSERT INTO %s SELECT pg_catalog.row_number() OVER (), 1, v.* FROM %s v', f, view);
    GET DIAGNOSTICS n = ROW_COUNT;
    FOREACH ev IN ARRAY ARRAY['insert', 'update', 'delete'] LOOP
      EXECUTE format('CREATE TRIGGER %I AFTER %s ON %s REFERENCING %s FOR EACH STATEMENT '
                     'EXECUTE FUNCTION windowjoin._feed()', 'windowjoin_feed_' || ev,
                     pg_catalog.upper(ev), view,
                     CASE ev WHEN 'insert' THEN 'NEW TABLE AS wj_new'
                             WHEN 'delete' THEN 'OLD TABLE AS wj_old'
                             ELSE 'OLD TABLE AS wj_old NEW TABLE AS wj_new' END);
    END LOOP;
    EXECUTE format('CREATE TRIGGER windowjoin_feed_truncate BEFORE TRUNCATE ON %s '
                   'FOR EACH STATEMENT EXECUTE FUNCTION windowjoin._feed()', view);
    PERFORM windowjoin._catalog_set(view, pg_catalog.jsonb_build_object('feed_rel', f::oid::bigint,
                                                                        'feed_seq', n));
  ELSIF NOT feed AND c.feed_rel IS NOT NULL THEN
    PERFORM windowjoin._catalog_set(view, '{"feed_rel": null}'::jsonb);
    FOREACH ev IN ARRAY ARRAY['insert', 'update', 'delete', 'truncate'] LOOP
      EXECUTE format('DROP TRIGGER IF EXISTS %I ON %s', 'windowjoin_feed_' || ev, view);
    END LOOP;
    EXECUTE format('DROP TABLE IF EXISTS %s', c.feed_rel);
  END IF;
  IF schedule IS NOT NULL OR feed_retention IS NOT NULL THEN
    PERFORM windowjoin._catalog_set(view, pg_catalog.jsonb_strip_nulls(pg_catalog.jsonb_build_object(
      'schedule', schedule::text, 'feed_retention', feed_retention::text)));
  END IF;
  IF schedule OPERATOR(pg_catalog.>) interval '0' THEN
    PERFORM windowjoin._scheduler_wake();
  END IF;
END
$fn$;
COMMENT ON FUNCTION windowjoin.alter_view(regclass, interval, boolean, interval) IS
  'change a continuous view''s settings: schedule (''0'': refreshed only by hand), feed (its changefeed on or off), feed_retention (''0'': no bound); NULL leaves a setting as it is';

-- create_view with feed and feed_retention
DROP FUNCTION windowjoin.create_view(text, text, interval, text, interval, text, interval);
CREATE FUNCTION windowjoin.create_view(name text, query text,
  delay interval DEFAULT '0', late text DEFAULT 'revise',
  schedule interval DEFAULT NULL, emit text DEFAULT 'on_close',
  idle interval DEFAULT NULL, feed boolean DEFAULT false,
  feed_retention interval DEFAULT NULL)
RETURNS regclass LANGUAGE plpgsql AS $fn$
DECLARE
  v regclass;
BEGIN
  v := windowjoin._create_view(name, query, delay, late, schedule, emit, idle, NULL, NULL);
  IF feed OR feed_retention IS NOT NULL THEN
    PERFORM windowjoin.alter_view(v, feed => feed, feed_retention => feed_retention);
  END IF;
  RETURN v;
END
$fn$;
COMMENT ON FUNCTION windowjoin.create_view(text, text, interval, text, interval, text, interval, boolean, interval) IS
  'create a continuous view: a table of the closed windows of a windowed aggregate or join query, or of the final rows of an interval or as-of join, kept up to date from its sources; feed => true also keeps its changefeed';

--------------------------------------------------------------------------
-- windowjoin.views: the feed's position, consumers, backlog
--------------------------------------------------------------------------

DROP VIEW windowjoin.views;
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
       c.next_attempt,
       c.feed_rel AS feed,
       CASE WHEN c.feed_rel IS NOT NULL THEN c.feed_seq END AS feed_seq,
       c.feed_retention,
       fc.positions AS feed_consumers,
       CASE WHEN c.feed_rel IS NOT NULL
            THEN c.feed_seq - greatest(c.feed_purged, coalesce(fc.slowest, c.feed_purged))
       END AS feed_backlog,
       CASE WHEN c.feed_rel IS NOT NULL
            THEN (SELECT min(m.at) FROM windowjoin.feed_marks m
                   WHERE m.view_rel = c.view_rel
                     AND m.seq > greatest(c.feed_purged, coalesce(fc.slowest, c.feed_purged)))
       END AS feed_oldest_unacked
  FROM windowjoin.view_catalog c
       LEFT JOIN LATERAL (SELECT pg_catalog.jsonb_object_agg(f.consumer, f.seq) AS positions,
                                 min(f.seq) AS slowest
                            FROM windowjoin.feed_consumers f
                           WHERE f.view_rel = c.view_rel) fc ON true,
       LATERAL (SELECT windowjoin._view_stats(c.view_rel) AS s OFFSET 0) st;

GRANT SELECT ON windowjoin.views TO PUBLIC;
COMMENT ON VIEW windowjoin.views IS
  'continuous window views: watermark, lag, rows, state (pending changes), late rows, the last refresh''s steps, failures and changefeed positions';

--------------------------------------------------------------------------
-- The start of a view's first window not closed, computed by the C code
-- the refresh and the pipelines use (cv_open_start in cv_refresh.c), not
-- restated here in SQL.  A pure helper, like _bin.
--------------------------------------------------------------------------

CREATE FUNCTION windowjoin._open_start(kind text, watermark timestamptz, size interval,
                                       stride interval, "offset" interval)
RETURNS timestamptz AS 'MODULE_PATHNAME', 'wj_cv_open_start'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION windowjoin._open_rows(c windowjoin.view_catalog) RETURNS bigint
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
    lo := coalesce(windowjoin._open_start(c.kind, c.watermark, c.size,
                                          coalesce(c.stride, c.size), c."offset"),
                   c.open_from);
    lo2 := lo;
  END IF;
  RETURN windowjoin._count_from(c.source_rel, c.time_column, c.time_type, lo)
         + CASE WHEN c.join_kind IS NULL OR c.source2_rel = c.source_rel THEN 0
                ELSE windowjoin._count_from(c.source2_rel, c.time_column2, c.time_type, lo2) END;
END
$$;
