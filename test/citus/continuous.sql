-- Continuous views on Citus (scripts/citus, docs/scale-out.md): the same
-- streams into local tables (schema cvl) and into distributed ones (cvd:
-- hash-distributed on the key, co-located, the rates a reference table),
-- the same views over each, a refresh of every view after each round of
-- out-of-order rows, late rows, updates and deletes, and after it the
-- oracle on every node: each shard's view is the batch query over its
-- sources' shards restricted to what its watermarks made final.  Once
-- every watermark is moved past the end, each distributed view has
-- exactly the rows of its local twin.  A scheduled distributed view fills with no manual refresh
-- (each node's scheduler refreshes its own shards), and what Citus cannot
-- push down is refused.  Prints one "cv: NAME ok" line per check; any
-- other outcome raises.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
SET TimeZone = 'UTC';
SET citus.shard_count = 4;
DROP SCHEMA IF EXISTS cvl, cvd CASCADE;
CREATE SCHEMA cvl;
CREATE SCHEMA cvd;

CREATE FUNCTION cvl.tables(s text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('CREATE TABLE %I.bid (id int, bidtime timestamptz, price numeric(10,2), item int)', s);
  EXECUTE format('CREATE TABLE %I.l (id int, t timestamptz, k int, x int)', s);
  EXECUTE format('CREATE TABLE %I.r (id int, t timestamptz, k int, y int)', s);
  EXECUTE format('CREATE TABLE %I.o (id int, t timestamptz, k int, cur int, amount int)', s);
  EXECUTE format('CREATE TABLE %I.rates (id int, t timestamptz, cur int, rate int)', s);
  EXECUTE format('CREATE INDEX ON %I.bid (bidtime)', s);
  EXECUTE format('CREATE INDEX ON %I.l (t)', s);
  EXECUTE format('CREATE INDEX ON %I.r (t)', s);
  EXECUTE format('CREATE INDEX ON %I.o (t)', s);
  EXECUTE format('CREATE INDEX ON %I.rates (cur, t)', s);
  EXECUTE format('CREATE INDEX ON %I.rates (t)', s);
END
$$;
SELECT cvl.tables('cvl');
SELECT cvl.tables('cvd');
SELECT create_distributed_table('cvd.bid', 'item');
SELECT create_distributed_table('cvd.l', 'k');
SELECT create_distributed_table('cvd.r', 'k', colocate_with => 'cvd.l');
SELECT create_distributed_table('cvd.o', 'k', colocate_with => 'cvd.l');
SELECT create_reference_table('cvd.rates');

-- the same views over each schema
CREATE FUNCTION cvl.views(s text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM windowjoin.create_view(s || '.v_agg', format($q$
    SELECT item, window_start, window_end, count(*) AS n, sum(price) AS total
      FROM %I.bid, hop(bidtime, interval '1 minute', interval '3 minutes')
     GROUP BY item, window_start, window_end$q$, s), delay => interval '20 seconds');
  PERFORM windowjoin.create_view(s || '.v_wj', format($q$
    SELECT L.k, L.id AS l_id, R.id AS r_id, L.window_start, L.window_end
      FROM (SELECT * FROM %1$I.l, tumble(t, interval '1 minute')) L
      LEFT JOIN (SELECT * FROM %1$I.r, tumble(t, interval '1 minute')) R
        ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end$q$, s),
    delay => interval '10 seconds');
  PERFORM windowjoin.create_view(s || '.v_band', format($q$
    SELECT coalesce(l.k, r.k) AS k, l.id AS l_id, r.id AS r_id, l.t AS l_t, r.t AS r_t
      FROM %1$I.l l FULL JOIN %1$I.r r
        ON l.k = r.k AND r.t BETWEEN l.t - interval '5 seconds' AND l.t + interval '15 seconds'$q$, s),
    delay => interval '10 seconds');
  PERFORM windowjoin.create_view(s || '.v_asof', format($q$
    SELECT o.k, o.id, o.t AS l_t, o.amount * x.rate AS value
      FROM %1$I.o o LEFT JOIN LATERAL (
        SELECT rate FROM %1$I.rates r WHERE r.cur = o.cur AND r.t <= o.t
        ORDER BY r.t DESC, r.id LIMIT 1) x ON true$q$, s));
END
$$;
SELECT cvl.views('cvl');
SELECT cvl.views('cvd');
SELECT 'cv: created ' || string_agg(name::text || ':' || distributed, ' ' ORDER BY name::text)
  FROM windowjoin.views WHERE name::text LIKE 'cv_.v\_%';

-- a round: the same rows into both schemas, jittered around a clock, late
-- ones every third round, updates and deletes
CREATE TABLE cvl.stage (tab text, id int, t timestamptz, k int, a int, b int);
CREATE FUNCTION cvl.round(r int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  clock timestamptz := timestamptz '2024-01-01' + r * interval '30 seconds';
  base int := r * 1000;
  s text;
BEGIN
  TRUNCATE cvl.stage;
  INSERT INTO cvl.stage
  SELECT tab, base + g + (CASE tab WHEN 'bid' THEN 0 WHEN 'l' THEN 100 WHEN 'r' THEN 200
                                   WHEN 'o' THEN 300 ELSE 400 END),
         clock + (random() * 40 - 30) * interval '1 second'
               - CASE WHEN r % 3 = 0 AND g <= 2 THEN interval '3 minutes' ELSE interval '0' END,
         (random() * 15)::int, (random() * 4)::int, (random() * 100)::int
    FROM unnest(ARRAY['bid', 'l', 'r', 'o', 'rates']) tab, generate_series(1, 25) g;
  FOREACH s IN ARRAY ARRAY['cvl', 'cvd'] LOOP
    EXECUTE format('INSERT INTO %I.bid SELECT id, t, b, k FROM cvl.stage WHERE tab = ''bid''', s);
    EXECUTE format('INSERT INTO %I.l SELECT id, t, k, b FROM cvl.stage WHERE tab = ''l''', s);
    EXECUTE format('INSERT INTO %I.r SELECT id, t, k, b FROM cvl.stage WHERE tab = ''r''', s);
    EXECUTE format('INSERT INTO %I.o SELECT id, t, k, a, b FROM cvl.stage WHERE tab = ''o''', s);
    EXECUTE format('INSERT INTO %I.rates SELECT id, t, a, b FROM cvl.stage WHERE tab = ''rates''', s);
    IF r % 4 = 1 THEN
      EXECUTE format('UPDATE %I.l SET x = x + 1 WHERE id %% 7 = %s', s, r % 7);
      EXECUTE format('UPDATE %I.bid SET price = price + 1 WHERE id %% 11 = %s', s, r % 11);
    END IF;
    IF r % 5 = 2 THEN
      EXECUTE format('DELETE FROM %I.r WHERE id %% 13 = %s', s, r % 13);
      EXECUTE format('DELETE FROM %I.rates WHERE id %% 17 = %s', s, r % 17);
    END IF;
  END LOOP;
END
$$;

-- The oracle of a shard's view, on each node: its rows are the batch
-- query over its sources' shards restricted to what is final by its own
-- watermarks (window_end, or the frontiers of a band view).
-- (created on each node alone: Citus would propagate it from the
-- coordinator, and refuses it on a node unless DDL propagation is off)
SELECT string_agg(result, '; ') AS oracle_created FROM run_command_on_workers($w$
SET citus.enable_ddl_propagation = off;
CREATE OR REPLACE FUNCTION public.cv_shard_oracle() RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
  c record;
  a record;
  q text;
  fin text;
  cols text;
  n1 bigint;
  n2 bigint;
  checked int := 0;
BEGIN
  FOR c IN SELECT * FROM windowjoin.view_catalog WHERE NOT distributed LOOP
    a := windowjoin._analyze_view_query(c.query, NULL);
    SELECT normalized_query INTO q FROM windowjoin._analyze_view_query(c.query,
      CASE WHEN a.source2 IS NULL OR a.source2 = a.source THEN ARRAY[a.source, c.source_rel]
           ELSE ARRAY[a.source, c.source_rel, a.source2, c.source2_rel] END::regclass[]);
    IF c.join_kind IN ('interval', 'asof') THEN
      fin := format('(q.l_t IS NOT NULL AND q.l_t < %L)', least(c.watermark1, c.watermark2 - c.band_hi));
      IF c.right_query IS NOT NULL THEN
        fin := fin || format(' OR (q.l_t IS NULL AND q.r_t < %L)', least(c.watermark2, c.watermark1 + c.band_lo));
      END IF;
    ELSE
      fin := format('q.window_end <= %L', c.watermark);
    END IF;
    SELECT string_agg(quote_ident(attname), ', ' ORDER BY attnum) INTO cols FROM pg_attribute
     WHERE attrelid = c.view_rel AND attnum > 0 AND NOT attisdropped
       AND attname NOT IN ('anchor_time', 'anchor_right');
    EXECUTE format('SELECT count(*) FROM (SELECT q.* FROM (%s) q WHERE %s EXCEPT ALL SELECT %s FROM %s) x',
                   q, fin, cols, c.view_rel) INTO n1;
    EXECUTE format('SELECT count(*) FROM (SELECT %s FROM %s EXCEPT ALL SELECT q.* FROM (%s) q WHERE %s) x',
                   cols, c.view_rel, q, fin) INTO n2;
    IF n1 <> 0 OR n2 <> 0 THEN
      RETURN format('%s: %s rows missing, %s extra', c.view_rel, n1, n2);
    END IF;
    checked := checked + 1;
  END LOOP;
  RETURN 'ok ' || checked;
END
$f$$w$);
CREATE FUNCTION cvl.check_shards(r int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  bad text;
BEGIN
  SELECT string_agg(nodeport || ': ' || result, '; ') INTO bad
    FROM run_command_on_workers('SELECT public.cv_shard_oracle()')
   WHERE NOT success OR result NOT LIKE 'ok %' OR result = 'ok 0';
  IF bad IS NOT NULL THEN
    RAISE EXCEPTION 'cv: round %: %', r, bad;
  END IF;
END
$$;

-- each round and each refresh its own transaction: Citus runs a refresh on
-- the nodes in transactions of their own, which see committed rows only;
-- after each round's refreshes every shard's view is checked
SELECT setseed(0.3);
SELECT q FROM generate_series(1, 12) r,
       LATERAL (SELECT format('SELECT cvl.round(%s)', r) AS q, 0 AS o
                UNION ALL
                SELECT format('SELECT windowjoin.refresh(%L)', name), 1
                  FROM windowjoin.views WHERE name::text LIKE 'cv_.v\_%'
                UNION ALL
                SELECT format('SELECT cvl.check_shards(%s)', r), 2) x
 ORDER BY r, o, q \gexec
SELECT 'cv: shard_oracle ok';
-- the shards' views saw late rows and revised (the catalog rows on the nodes)
SELECT 'cv: shards_revised ' || CASE WHEN bool_or(result::bigint > 0) THEN 'ok' ELSE 'FAILED' END
  FROM run_command_on_placements('cvd.v_agg',
    $$SELECT revisions FROM windowjoin.views WHERE name = '%s'::regclass$$);

-- every window and row final: the distributed views equal the local ones
SELECT windowjoin.advance_watermark(name, '2030-01-01') FROM windowjoin.views
 WHERE name::text LIKE 'cv_.v\_%';
CREATE FUNCTION cvl.same(v text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  n1 bigint;
  n2 bigint;
  n bigint;
BEGIN
  EXECUTE format('SELECT count(*) FROM (SELECT * FROM cvl.%1$I EXCEPT ALL SELECT * FROM cvd.%1$I) x', v) INTO n1;
  EXECUTE format('SELECT count(*) FROM (SELECT * FROM cvd.%1$I EXCEPT ALL SELECT * FROM cvl.%1$I) x', v) INTO n2;
  EXECUTE format('SELECT count(*) FROM cvl.%I', v) INTO n;
  IF n1 = 0 AND n2 = 0 AND n > 0 THEN
    RETURN format('cv: same_rows_%s ok', v);
  END IF;
  RAISE EXCEPTION 'cv: %: % local rows missing, % extra in the distributed view (% rows)', v, n1, n2, n;
END
$$;
SELECT cvl.same(v) FROM unnest(ARRAY['v_agg', 'v_wj', 'v_band', 'v_asof']) v;

-- each node's scheduler refreshes its own shards
SELECT windowjoin.create_view('cvd.v_sched', $q$
  SELECT item, window_start, window_end, count(*) AS n
    FROM cvd.bid, tumble(bidtime, interval '1 minute') GROUP BY item, window_start, window_end$q$,
  schedule => interval '200 milliseconds') IS NOT NULL AS created \gset
SELECT windowjoin.refresh('cvd.v_sched');
SELECT count(*) AS before FROM cvd.v_sched \gset
INSERT INTO cvd.bid VALUES (0, '2031-01-01', 1, 1), (0, '2031-01-01', 1, 2), (0, '2031-01-01', 1, 3);
-- (waits for the nodes' schedulers to show the new window, up to 20 s)
CREATE FUNCTION pg_temp.wait_rows(n bigint) RETURNS void LANGUAGE plpgsql AS $f$
BEGIN
  FOR i IN 1 .. 200 LOOP
    EXIT WHEN (SELECT count(*) FROM cvd.v_sched) > n;
    PERFORM pg_sleep(0.1);
  END LOOP;
END $f$;
SELECT pg_temp.wait_rows(:before);
SELECT CASE WHEN count(*) > :before THEN 'cv: scheduled_on_nodes ok'
            ELSE 'cv: scheduled_on_nodes FAILED' END FROM cvd.v_sched;

-- what does not push down is refused
CREATE TABLE cvd.rx (id int, t timestamptz, k int, y int);
SELECT create_distributed_table('cvd.rx', 'k', colocate_with => 'none');
CREATE TABLE cvd.ry (id int, t timestamptz, k int, y int);
SELECT create_distributed_table('cvd.ry', 'y', colocate_with => 'cvd.l');
CREATE FUNCTION cvl.refused(q text, msg text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  PERFORM windowjoin.create_view('cvd.v_refused', q);
  RAISE EXCEPTION 'cv: accepted %', q;
EXCEPTION WHEN feature_not_supported THEN
  IF SQLERRM NOT LIKE msg THEN
    RAISE EXCEPTION 'cv: % gave "%"', q, SQLERRM;
  END IF;
  RETURN 'cv: refused ok';
END
$$;
SELECT cvl.refused($q$SELECT window_start, window_end, count(*) FROM cvd.bid,
  tumble(bidtime, interval '1 minute') GROUP BY window_start, window_end$q$, '%pushes down%');
SELECT cvl.refused($q$SELECT L.k, L.window_start, L.window_end
  FROM (SELECT * FROM cvd.l, tumble(t, interval '1 minute')) L
  JOIN (SELECT * FROM cvd.rx, tumble(t, interval '1 minute')) R
    ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end$q$, '%co-located%');
-- (co-located, but distributed on another column than the join's)
SELECT cvl.refused($q$SELECT L.k, L.window_start, L.window_end
  FROM (SELECT * FROM cvd.l, tumble(t, interval '1 minute')) L
  JOIN (SELECT * FROM cvd.ry, tumble(t, interval '1 minute')) R
    ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end$q$, '%pushes down%');
SELECT cvl.refused($q$SELECT rates.cur, window_start, window_end, count(*) FROM cvd.rates,
  tumble(t, interval '1 minute') GROUP BY 1, 2, 3$q$, '%hash-distributed%');

-- dropping the distributed view drops its shards' views on the nodes
SELECT windowjoin.drop_view('cvd.v_sched');
SELECT 'cv: dropped ' || CASE WHEN sum(result::int) = 0 THEN 'ok' ELSE 'FAILED' END
  FROM run_command_on_workers($$SELECT count(*) FROM windowjoin.view_catalog
                                WHERE view_rel::text LIKE '%v\_sched%'$$);
DROP SCHEMA cvl, cvd CASCADE;
