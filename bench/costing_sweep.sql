-- The costing sweep of bench/costing_sweep.sh: for each shape of a grid of
-- tumbling aggregations and window joins, the plan the planner chooses and
-- every alternative plan forced by settings (windowjoin's node, PostgreSQL's
-- hashed and sorted plans; serial and, where the shape allows workers, with
-- two), each timed in interleaved rounds; the chosen plan's time against the
-- fastest alternative's.  psql variables: sizes (a SQL int[] literal),
-- runs, families (a SQL text[] literal of aggregate families), workers
-- (the largest number of workers, 0 or 2), parallel_from (rows from which
-- shapes also run with workers).
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
SET jit = off;
SET TimeZone = 'UTC';

CREATE TABLE sweep_result (
  shape text, kind text, size int, workers int, alt text, plan text,
  ms float8, nrows bigint, total float8, chosen boolean);

-- One table of aggregation rows per size: a day of random event times, a
-- key of 10 values (dev), one of 10,000 (item), and one column of each
-- aggregate family's type.
CREATE FUNCTION sweep_tables(p_sizes int[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  n int;
BEGIN
  FOREACH n IN ARRAY p_sizes LOOP
    PERFORM setseed(0.25);
    EXECUTE format($f$CREATE TABLE t_%s AS
      SELECT timestamp '2024-01-01' + (random() * 86400e6)::bigint * interval '1 microsecond' AS ts,
             (random() * 9)::int AS dev, (random() * 9999)::int AS item,
             (random() * 1000)::int AS v, (random() * 100)::numeric(10,2) AS amount,
             random() * 1000 AS f
      FROM generate_series(1, %s)$f$, n, n);
    EXECUTE format($f$CREATE TABLE l_%s AS
      SELECT timestamp '2024-01-01' + (random() * 86400e6)::bigint * interval '1 microsecond' AS ts,
             (random() * 99)::int AS kf, (random() * (%s / 10 - 1))::int AS km, i AS id
      FROM generate_series(1, %s) i$f$, n, n, n);
    EXECUTE format($f$CREATE TABLE r_%s AS
      SELECT timestamp '2024-01-01' + (random() * 86400e6)::bigint * interval '1 microsecond' AS ts,
             (random() * 99)::int AS kf, (random() * (%s / 10 - 1))::int AS km, i AS id
      FROM generate_series(1, %s) i$f$, n, n, n);
    EXECUTE format('ANALYZE t_%s', n);
    EXECUTE format('ANALYZE l_%s', n);
    EXECUTE format('ANALYZE r_%s', n);
  END LOOP;
END $$;

-- the node names of a plan under its top node (the checksum's Aggregate),
-- scans left out: "Custom Scan (TumbleAgg)", "GroupAggregate > Sort", ...
CREATE FUNCTION sweep_label(p_plan text) RETURNS text LANGUAGE sql AS $$
  SELECT coalesce(string_agg(name, ' > ' ORDER BY ord), '?')
  FROM (SELECT ord, regexp_replace(regexp_replace(line, '^\s*->\s*', ''), '  .*$', '') AS name
        FROM regexp_split_to_table(p_plan, E'\n') WITH ORDINALITY AS x(line, ord)
        WHERE line ~ '^\s*->') s
  WHERE name !~ ' Scan on '
$$;

-- the plan of p_query under the settings p_set (name => value)
CREATE FUNCTION sweep_explain(p_query text, p_set jsonb) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  plan text := '';
  line text;
BEGIN
  PERFORM sweep_apply(p_set);
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || p_query LOOP
    plan := plan || line || E'\n';
  END LOOP;
  RETURN plan;
END $$;

-- every setting an alternative may change, back at its default, then p_set's
CREATE FUNCTION sweep_apply(p_set jsonb) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  k text;
  v text;
BEGIN
  FOREACH k IN ARRAY ARRAY['enable_hashagg', 'enable_sort', 'enable_hashjoin', 'enable_mergejoin',
                           'enable_nestloop', 'windowjoin.enable_window_aggregate',
                           'windowjoin.enable_window_join'] LOOP
    PERFORM set_config(k, 'on', false);
  END LOOP;
  PERFORM set_config('max_parallel_workers_per_gather', '0', false);
  FOR k, v IN SELECT * FROM jsonb_each_text(p_set) LOOP
    PERFORM set_config(k, v, false);
  END LOOP;
END $$;

-- Times one shape: its alternatives (name => settings) with at most
-- p_workers workers, each distinct plan once (an alternative whose plan is
-- another's is not timed again; the node's alternative only if its plan has
-- the node), a warm-up each, then p_runs interleaved rounds; the planner's
-- choice (at p_workers) is the alternative with its plan, or timed as one
-- more.  Every plan must return the same rows.
CREATE FUNCTION sweep_shape(p_shape text, p_kind text, p_size int, p_workers int,
                            p_query text, p_node text, p_alts jsonb, p_runs int)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  chosen_plan text;
  names text[] := '{}';
  plans text[] := '{}';
  sets jsonb[] := '{}';
  times float8[][];
  t float8[];
  alt record;
  w int;
  s jsonb;
  p text;
  i int;
  r int;
  t0 timestamptz;
  nrows bigint;
  total float8;
  ref_rows bigint;
  ref_total float8;
BEGIN
  chosen_plan := sweep_explain(p_query, jsonb_build_object('max_parallel_workers_per_gather', p_workers));
  FOR alt IN SELECT key, value FROM jsonb_each(p_alts) ORDER BY key LOOP
    FOR w IN SELECT DISTINCT unnest(ARRAY[0, p_workers]) ORDER BY 1 LOOP
      s := alt.value || jsonb_build_object('max_parallel_workers_per_gather', w);
      p := sweep_explain(p_query, s);
      CONTINUE WHEN alt.key = 'node' AND position(p_node IN p) = 0;
      CONTINUE WHEN p = ANY (plans);
      names := names || (alt.key || CASE WHEN w > 0 THEN ', ' || w || ' workers' ELSE '' END);
      plans := plans || p;
      sets := sets || s;
    END LOOP;
  END LOOP;
  IF NOT chosen_plan = ANY (plans) THEN
    names := names || 'chosen'::text;
    plans := plans || chosen_plan;
    sets := sets || jsonb_build_object('max_parallel_workers_per_gather', p_workers);
  END IF;

  -- warm-ups (and the rows), then the rounds
  FOR i IN 1 .. array_length(plans, 1) LOOP
    PERFORM sweep_apply(sets[i]);
    EXECUTE p_query INTO nrows, total;
    IF i = 1 THEN
      ref_rows := nrows;
      ref_total := total;
    ELSIF nrows IS DISTINCT FROM ref_rows
       OR abs(coalesce(total, 0) - coalesce(ref_total, 0)) > 1e-9 * greatest(abs(coalesce(ref_total, 0)), 1) THEN
      RAISE EXCEPTION 'shape % at % rows: % returned % rows (total %), % returned % rows (total %)',
        p_shape, p_size, names[1], ref_rows, ref_total, names[i], nrows, total;
    END IF;
  END LOOP;
  times := array_fill(0::float8, ARRAY[array_length(plans, 1), p_runs]);
  FOR r IN 1 .. p_runs LOOP
    FOR i IN 1 .. array_length(plans, 1) LOOP
      PERFORM sweep_apply(sets[i]);
      t0 := clock_timestamp();
      EXECUTE p_query INTO nrows, total;
      times[i][r] := extract(epoch FROM clock_timestamp() - t0) * 1000;
    END LOOP;
  END LOOP;
  FOR i IN 1 .. array_length(plans, 1) LOOP
    t := ARRAY(SELECT times[i][j] FROM generate_series(1, p_runs) j);
    INSERT INTO sweep_result
    SELECT p_shape, p_kind, p_size, p_workers, names[i], sweep_label(plans[i]),
           percentile_cont(0.5) WITHIN GROUP (ORDER BY x), ref_rows, ref_total,
           plans[i] = chosen_plan
    FROM unnest(t) x;
  END LOOP;
END $$;

-- the aggregates of a family, as a1 and a2, and their checksum terms
CREATE FUNCTION sweep_family(p_family text, OUT aggs text, OUT terms text)
LANGUAGE sql AS $$
  SELECT CASE p_family
           WHEN 'count' THEN 'count(*) AS a1, count(v) AS a2'
           WHEN 'int' THEN 'sum(v) AS a1, max(v) AS a2'
           WHEN 'numeric' THEN 'sum(amount) AS a1, avg(amount) AS a2'
           WHEN 'float' THEN 'sum(f) AS a1, avg(f) AS a2'
           WHEN 'time' THEN 'min(ts) AS a1, max(ts) AS a2' END,
         CASE p_family
           WHEN 'time' THEN 'sum(extract(epoch FROM a1))::float8 + sum(extract(epoch FROM a2))::float8'
           ELSE 'sum(a1)::float8 + sum(a2)::float8' END
$$;

-- The grid: sizes x bins x keys x aggregate families x workers, and window
-- joins: sizes x join types x keys x workers.
CREATE FUNCTION sweep_run(p_sizes int[], p_families text[], p_runs int,
                          p_workers int, p_parallel_from int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  n int;
  w int;
  bin record;
  key record;
  fam text;
  jt text;
  f record;
  q text;
  agg_alts jsonb := '{"node": {"enable_hashagg": "off", "enable_sort": "off"},
                      "pg hash": {"windowjoin.enable_window_aggregate": "off", "enable_sort": "off"},
                      "pg sort": {"windowjoin.enable_window_aggregate": "off", "enable_hashagg": "off"}}';
  join_alts jsonb := '{"node": {"enable_hashjoin": "off", "enable_mergejoin": "off", "enable_nestloop": "off"},
                       "pg hash": {"windowjoin.enable_window_join": "off", "enable_mergejoin": "off", "enable_nestloop": "off"},
                       "pg merge": {"windowjoin.enable_window_join": "off", "enable_hashjoin": "off", "enable_nestloop": "off"}}';
BEGIN
  FOREACH n IN ARRAY p_sizes LOOP
    FOR w IN SELECT DISTINCT unnest(ARRAY[0, CASE WHEN n >= p_parallel_from THEN p_workers ELSE 0 END]) ORDER BY 1 LOOP
      FOR bin IN SELECT * FROM (VALUES
          ('tumble 1 hour', 'window_start AS w', 't_%s, tumble(ts, interval ''1 hour'')', 'window_start, window_end'),
          ('date_bin 5 min', 'date_bin(''5 minutes'', ts, timestamp ''2024-01-01 00:02'') AS w', 't_%s', '1'),
          ('date_trunc minute', 'date_trunc(''minute'', ts) AS w', 't_%s', '1')) b(name, sel, src, grp) LOOP
        FOR key IN SELECT * FROM (VALUES ('no key', NULL), ('dev (10)', 'dev'), ('item (10000)', 'item'),
                                         ('item % 10', 'item % 10'), ('item / 2 (5000)', 'item / 2')) k(name, expr) LOOP
          FOREACH fam IN ARRAY p_families LOOP
            f := sweep_family(fam);
            q := format('SELECT count(*)::bigint, (%s)::float8 FROM (SELECT %s%s, %s FROM %s GROUP BY %s%s) q',
                        f.terms, bin.sel, CASE WHEN key.expr IS NULL THEN '' ELSE ', ' || key.expr || ' AS k' END,
                        f.aggs, format(bin.src, n), bin.grp,
                        CASE WHEN key.expr IS NULL THEN '' WHEN bin.grp = '1' THEN ', 2' ELSE ', ' || key.expr END);
            PERFORM sweep_shape(format('%s, %s, %s', bin.name, key.name, fam), 'aggregate', n, w, q,
                                'TumbleAgg', agg_alts, p_runs);
          END LOOP;
        END LOOP;
      END LOOP;
      FOREACH jt IN ARRAY ARRAY['INNER', 'FULL'] LOOP
        FOR key IN SELECT * FROM (VALUES ('100 keys', 'kf'), ('rows / 10 keys', 'km')) k(name, expr) LOOP
          q := format('SELECT count(*)::bigint, sum(coalesce(l_id, 0)::float8 * 3 + coalesce(r_id, 0))::float8 FROM (
                         SELECT L.id AS l_id, R.id AS r_id
                         FROM (SELECT * FROM l_%s, tumble(ts, interval ''5 minutes'')) L
                         %s JOIN (SELECT * FROM r_%s, tumble(ts, interval ''5 minutes'')) R
                         ON L.%s = R.%s AND L.window_start = R.window_start AND L.window_end = R.window_end) q',
                      n, jt, n, key.expr, key.expr);
          PERFORM sweep_shape(format('window join TUMBLE 5 min %s, %s', jt, key.name), 'join', n, w, q,
                              'WindowJoin', join_alts, p_runs);
        END LOOP;
      END LOOP;
      RAISE WARNING 'swept % rows, % workers', n, w;
    END LOOP;
  END LOOP;
END $$;
