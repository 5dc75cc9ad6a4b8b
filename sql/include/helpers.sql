--
-- helpers.sql
--	  The regression suites' shared checks, defined once in schema wj_test.
--
-- A suite includes this file near its top, with the echo off so that its
-- text does not appear in the expected output:
--
--	\set ECHO none
--	\i sql/include/helpers.sql
--	\set ECHO all
--
-- (pg_regress runs psql with the suite on standard input from the
-- extension's directory, so the path is relative to that directory; the
-- no-preload pass and test/parallel/run.sh run from there too.)  The
-- first suite to include it in a database creates the schema; the others
-- find it (suites of a parallel group include it at once: an advisory lock
-- orders them).  No suite changes it.  It needs no extension object: it
-- can be included before CREATE EXTENSION or after DROP EXTENSION.
--
-- The functions:
--
--	wj_test.on_off(q, gucs, plan, force, settings, ordered, cols,
--				   analyze_plan, off_settings)
--		Runs query q with windowjoin's nodes on and with them off and
--		compares the rows as multisets (EXCEPT ALL both ways, so duplicates
--		count), or the errors.  Returns one line:
--		  "N rows, same as node off"            (or "error: MSG, same as node off")
--		  "DIFFERENT: on N rows, off M rows, D1 only on, D2 only off"
--		followed, where asked, by ", K out of order" (ordered), by
--		", NODE USED WITH THE GUC OFF" when the plan with the GUCs off still
--		has one of their nodes (always checked), and by " | plan: ..." (plan):
--		the lines of the plan with the nodes on (EXPLAIN (COSTS OFF)) that
--		match the regular expression plan, trimmed (without their "->") and
--		joined with "; ", or "none".  Everything before " | plan:" must hold
--		whatever plan the planner picks; what follows it is a plan choice
--		(test/parallel/run.sh ignores it when it forces parallel plans).
--		  gucs      which windowjoin.enable_* GUCs to switch: 'asof_join',
--		            'interval_join', 'window_join', 'window_aggregate', a
--		            comma-separated list of them, or 'all' (the default)
--		  plan      regular expression of the plan lines to report (NULL: none)
--		  force     with the nodes on, PostgreSQL's hash, merge and nested-loop
--		            joins are off; with the nodes off they are on
--		  settings  'name=value, ...': more settings for the run with the
--		            nodes on only (e.g. 'work_mem=64kB, enable_sort=off')
--		  off_settings  the same for the run with the nodes off only
--		  ordered   a column list: the rows are also numbered in the order
--		            the query returns them, and the positions where these
--		            columns differ between the two runs are counted
--		  cols      the columns compared as multisets (default: all; with
--		            ordered they must be named)
--		  analyze_plan  the plan lines come from EXPLAIN ANALYZE of the run
--		            with the nodes on, masked as explain_analyze(q, 'spill')
--		With wj_test.serial_reference = on (test/parallel/run.sh sets it),
--		the run with the nodes off plans no Gather: the rows it compares
--		with are PostgreSQL's serial plan's.
--		Every setting it changes is restored before it returns; the
--		comparison itself runs at work_mem 16MB.  Not re-entrant (it uses
--		the temporary tables wj_test_on and wj_test_off).
--
--	wj_test.explain(q, opts, pattern)
--		The lines of EXPLAIN (opts) q (opts: EXPLAIN's options, default
--		'COSTS OFF'; '' for none) as PostgreSQL 15 prints them
--		(wj_test.explain_line), only those matching the regular expression
--		pattern when it is given.  It runs in the caller's settings (a
--		parallel plan as planned) and masks nothing: with ANALYZE, the
--		caller picks the lines whose figures it shows (or use
--		explain_analyze).
--
--	wj_test.plan_lines(q, pattern)
--		wj_test.explain(q, 'COSTS OFF', pattern).
--
--	wj_test.explain_json(q, opts, serial)
--		The top plan node (the "Plan" object) of EXPLAIN (opts, FORMAT JSON)
--		q, as json (opts: more options, e.g. 'ANALYZE, COSTS OFF', default
--		none), with :parallel_guc off for the statement as in
--		explain_analyze (the figures of a custom scan come from this
--		process); serial: max_parallel_workers_per_gather 0 as well.
--		Non-text formats show every figure, zero or not: a suite tests
--		them unmasked.
--
--	wj_test.uses(q, node)
--		Whether the plan of q (EXPLAIN (COSTS OFF)) has a line mentioning
--		node (a regular expression, e.g. 'AsOfJoin').
--
--	wj_test.explain_analyze(q, mask, serial)
--		EXPLAIN (ANALYZE, BUFFERS OFF, COSTS OFF, TIMING OFF, SUMMARY OFF) q in this
--		process (:parallel_guc off for the statement: a custom scan
--		that is not parallel-aware cannot pass its state figures back from
--		a worker), with the numbers that depend on the platform (allocator,
--		alignment, page size) replaced by N:
--		  mask 'sizes' (default): byte counts and memory and disk sizes --
--		            Peak State Memory (and Total, and a worker's), "Memory: NkB"
--		            (and Peak, Average), "Memory Usage: NkB", "Disk: NkB",
--		            "Disk Usage: NkB" (every node's spill line, as
--		            HashAggregate's); row counts and settings shown (such
--		            as "versions exceeded 64 kB") stay
--		  mask 'spill': also the figures that follow from where a spill
--		            splits the rows -- Peak State Rows, Batches, Batch Depth,
--		            Batches Sorted by Tuplesort, Extra Chunks, Spilled Windows
--		  mask 'all': every number
--		  mask 'none': nothing (for callers that test the numbers)
--		PostgreSQL's "Sort Method: ... Memory/Disk: NkB" lines are dropped:
--		its choice between an in-memory and an external sort follows from
--		the sizes.  serial: max_parallel_workers_per_gather 0 as well, for
--		the state figures of a node that would otherwise be split among
--		the processes of a parallel plan.
--
--	wj_test.mask(line, mask)
--		The masking of explain_analyze, for one line.
--
--	wj_test.split_check(node, q, split, gucs, key_partitioned)
--		For a plan that splits the work of node (a custom scan name, e.g.
--		'IntervalJoin') among parallel participants or partition pairs:
--		runs query q as planned with the caller's settings, with the split
--		off, with windowjoin's nodes off (in a parallel check: serial as
--		well) and, in a partitionwise check, with both off, and counts the
--		rows that differ (EXCEPT ALL both ways, so duplicates count)
--		between the first run and each of the others.  Returns one line:
--		  "rows: N, differ from serial: D1, from nodes off: D2 | plan: ..."
--		  "rows: N, differ from partitionwise off: D1, nodes off: D2,
--		   both off: D3 | plan: ..."
--		Everything before " | plan:" must hold whatever plan the planner
--		picks; what follows it is the plan check, a plan choice
--		(test/parallel/run.sh ignores it).  An error in any run is raised.
--		  split     'parallel' (the default): the split off is
--		            max_parallel_workers_per_gather 0 ("serial"), and the
--		            plan check, "node under Gather: t/f", is whether the
--		            node's first line comes below the first Gather (for
--		            WindowExpand: its pane aggregation, the first Partial
--		            HashAggregate, WindowExpand itself being above or below
--		            the Gather);
--		            'partitionwise': the split off is enable_partitionwise_join
--		            off, and the plan check, "NODE: K under Append" (or
--		            "Parallel Append", or "no Append"), counts the node's
--		            lines when its first one comes below the first Append
--		            (one per partition pair; 0 when it is above the Append
--		            or there is none)
--		  gucs      which windowjoin.enable_* GUCs are off in the runs with
--		            the nodes off, as for on_off (default 'all'); those
--		            runs also have PostgreSQL's hash, merge and nested-loop
--		            joins on, whatever the caller set
--		  key_partitioned  the node must be key-partitioned: its line must
--		            read "Parallel Custom Scan (node)", and the plan check
--		            says "key-partitioned under Gather"
--		Every setting it changes is restored before it returns; the
--		comparisons run at work_mem 16MB.  Not re-entrant (it uses the
--		temporary tables wj_test_split, wj_test_unsplit, wj_test_nodes_off
--		and wj_test_both_off).
--
--	wj_test.reference_begin() / wj_test.reference_end(saved)
--		Around a suite's own reference query (the batch query a
--		continuous view is checked against): with wj_test.serial_reference
--		= on (test/parallel/run.sh), reference_begin turns Gathers off for
--		the rest of the transaction and returns the setting it replaced,
--		which reference_end puts back; otherwise both change nothing.
--
--	wj_test.worker_figures(node, q, key_partitioned)
--		Runs EXPLAIN ANALYZE of q (in the caller's settings: real workers)
--		and checks the figures of its "Parallel Custom Scan (node)" (the
--		plan is to have one): a "Worker N:" line with its peak state and
--		rows for each launched worker (and at least one launched), its
--		"Leader Rows" plus the workers' rows adding up to the node's rows
--		(its actual rows per loop times its loops, up to the rounding of
--		the former) and both "Total Peak State" figures shown.
--		Returns one line:
--		  "worker lines = workers launched: t, leader + workers = node
--		   rows: t, totals shown: t"
--		  key_partitioned  the line starts with the node's "Key
--		            Partitions" figure: "key partitions: K, ..." (0 when
--		            the node shows none)
--

SELECT current_setting('client_min_messages') AS wj_test_saved_cmm \gset
SET client_min_messages = warning;
-- Created once per database, by the first suite to include it: the suites
-- of a parallel group (test/schedule) include it at the same time, and
-- the lock makes the others wait until it exists, then leave it as it is.
-- (pg_regress creates the database afresh for every run, so the
-- definitions are always this file's.)
SELECT pg_catalog.pg_advisory_lock(20261207) AS wj_test_locked \gset
SELECT pg_catalog.to_regnamespace('wj_test') IS NULL AS wj_test_create \gset
\if :wj_test_create
CREATE SCHEMA wj_test;
-- (suites check as unprivileged roles too)
GRANT USAGE ON SCHEMA wj_test TO PUBLIC;

-- force_parallel_mode is debug_parallel_query since PostgreSQL 16: the
-- name on this server, for set_config() and, as psql's :parallel_guc, for
-- SET :parallel_guc = on
CREATE FUNCTION wj_test.parallel_guc() RETURNS text
LANGUAGE sql STABLE AS $$
	SELECT CASE WHEN current_setting('server_version_num')::int >= 160000
				THEN 'debug_parallel_query' ELSE 'force_parallel_mode' END
$$;

-- the GUC names of a gucs argument of on_off
CREATE FUNCTION wj_test.guc_names(gucs text) RETURNS text[]
LANGUAGE sql IMMUTABLE AS $$
	SELECT array_agg('windowjoin.enable_' || g ORDER BY g)
	FROM unnest(CASE WHEN gucs = 'all'
					 THEN ARRAY['asof_join', 'interval_join', 'window_join', 'window_aggregate']
					 ELSE regexp_split_to_array(btrim(gucs), '\s*,\s*') END) g
$$;

-- the nodes that the GUCs of a gucs argument switch off (a regular
-- expression for the plan lines that must not appear with them off)
CREATE FUNCTION wj_test.guc_nodes(gucs text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
	SELECT 'Custom Scan \((' || string_agg(CASE g
		WHEN 'windowjoin.enable_asof_join' THEN 'AsOfJoin'
		WHEN 'windowjoin.enable_interval_join' THEN 'IntervalJoin'
		WHEN 'windowjoin.enable_window_join' THEN 'WindowJoin'
		WHEN 'windowjoin.enable_window_aggregate' THEN 'WindowExpand|SessionSort|SessionWindow|TumbleAgg'
		END, '|') || ')\)'
	FROM unnest(wj_test.guc_names(gucs)) g
$$;

-- set name = value for the rest of the transaction; returns the old value
CREATE FUNCTION wj_test.set(name text, value text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	old text := current_setting(name);
BEGIN
	PERFORM set_config(name, value, true);
	RETURN old;
END $$;

-- set every "name=value" of a comma-separated list for the rest of the
-- transaction
CREATE FUNCTION wj_test.apply(settings text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	setting text;
BEGIN
	FOREACH setting IN ARRAY coalesce(regexp_split_to_array(btrim(settings), '\s*,\s*'), '{}') LOOP
		PERFORM set_config(btrim(split_part(setting, '=', 1)), btrim(split_part(setting, '=', 2)), true);
	END LOOP;
END $$;

-- the names of such a list
CREATE FUNCTION wj_test.names(settings text) RETURNS text[]
LANGUAGE sql IMMUTABLE AS $$
	SELECT coalesce(array_agg(btrim(split_part(s, '=', 1))), '{}')
	FROM unnest(regexp_split_to_array(btrim(settings), '\s*,\s*')) s
$$;

-- whether reference runs plan no Gather (test/parallel/run.sh sets it)
CREATE FUNCTION wj_test.serial_reference() RETURNS boolean
LANGUAGE sql STABLE AS $$
	SELECT coalesce(current_setting('wj_test.serial_reference', true) = 'on', false)
$$;

-- before and after a suite's own reference query (see the top)
CREATE FUNCTION wj_test.reference_begin() RETURNS text
LANGUAGE plpgsql AS $$
BEGIN
	IF wj_test.serial_reference() THEN
		RETURN wj_test.set('max_parallel_workers_per_gather', '0');
	END IF;
	RETURN NULL;
END $$;
CREATE FUNCTION wj_test.reference_end(saved text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	IF saved IS NOT NULL THEN
		PERFORM set_config('max_parallel_workers_per_gather', saved, true);
	END IF;
END $$;

-- set the settings names[i] back to values[i]
CREATE FUNCTION wj_test.restore(names text[], vals text[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	FOR i IN 1 .. coalesce(array_length(names, 1), 0) LOOP
		PERFORM set_config(names[i], vals[i], true);
	END LOOP;
END $$;

-- an EXPLAIN line as PostgreSQL 15 prints it, or NULL for a line that 15
-- does not print: since 18 EXPLAIN ANALYZE gives the actual rows (per
-- loop) two decimals where 15 rounds them as printf's %.0f does (rint(),
-- like float8 round()), counts an index scan's searches and shows a
-- WindowAgg's storage, and EXPLAIN shows a WindowAgg's window definition
-- and says of a node whose type enable_* turned off that it is disabled.
-- (The callers also turn off the buffer counts, which 18 shows by default.)
CREATE FUNCTION wj_test.explain_line(line text) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
	m text[];
BEGIN
	IF line ~ '^\s*(Index Searches: \d+|Disabled: true|Storage: .*Maximum Storage: .*)$' OR
		line ~ '^\s*Window: \w+ AS \(' THEN
		RETURN NULL;
	END IF;
	m := regexp_match(line, 'rows=(\d+\.\d+) loops=');
	IF m IS NOT NULL THEN
		line := replace(line, 'rows=' || m[1] || ' loops=',
						'rows=' || round(m[1]::float8)::bigint || ' loops=');
	END IF;
	RETURN line;
END $$;

-- EXPLAIN (opts) q, the lines matching pattern (all when NULL)
CREATE FUNCTION wj_test.explain(q text, opts text DEFAULT 'COSTS OFF', pattern text DEFAULT NULL)
RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN ' || coalesce('(' || nullif(btrim(opts), '') || ') ', '') || q LOOP
		line := wj_test.explain_line(line);
		IF line IS NULL THEN
			CONTINUE;
		END IF;
		IF pattern IS NULL OR line ~ pattern THEN
			RETURN NEXT line;
		END IF;
	END LOOP;
END $$;

-- EXPLAIN (COSTS OFF) q, the lines matching pattern (all when NULL)
CREATE FUNCTION wj_test.plan_lines(q text, pattern text DEFAULT NULL) RETURNS SETOF text
LANGUAGE sql AS $$
	SELECT wj_test.explain(q, 'COSTS OFF', pattern)
$$;

-- does the plan of q mention node?
CREATE FUNCTION wj_test.uses(q text, node text) RETURNS boolean
LANGUAGE sql AS $$
	SELECT EXISTS (SELECT FROM wj_test.plan_lines(q, node))
$$;

-- run q into the temporary table tab; the error message if it fails
CREATE FUNCTION wj_test.run_into(q text, tab text, ordered boolean) RETURNS text
LANGUAGE plpgsql AS $$
BEGIN
	IF ordered THEN
		EXECUTE format('CREATE TEMP TABLE %I AS SELECT row_number() OVER () AS wj_test_pos, x.* FROM (%s) x',
					   tab, q);
	ELSE
		EXECUTE format('CREATE TEMP TABLE %I AS %s', tab, q);
	END IF;
	RETURN NULL;
EXCEPTION WHEN OTHERS THEN
	RETURN SQLERRM;
END $$;

CREATE FUNCTION wj_test.on_off(q text, gucs text DEFAULT 'all', plan text DEFAULT NULL,
							   force boolean DEFAULT false, settings text DEFAULT NULL,
							   ordered text DEFAULT NULL, cols text DEFAULT '*',
							   analyze_plan boolean DEFAULT false, off_settings text DEFAULT NULL)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	names text[] := wj_test.guc_names(gucs);
	-- the settings of the run with the nodes on and of the run with them off
	on_list text := array_to_string(array_cat(
		ARRAY(SELECT n || '=on' FROM unnest(names) n),
		CASE WHEN force THEN '{enable_hashjoin=off, enable_mergejoin=off, enable_nestloop=off}'::text[] END),
		', ') || coalesce(', ' || settings, '');
	off_list text := array_to_string(array_cat(
		ARRAY(SELECT n || '=off' FROM unnest(names) n),
		CASE WHEN force THEN '{enable_hashjoin=on, enable_mergejoin=on, enable_nestloop=on}'::text[] END),
		', ') || CASE WHEN wj_test.serial_reference() THEN ', max_parallel_workers_per_gather=0' ELSE '' END
		|| coalesce(', ' || off_settings, '');
	touched text[] := wj_test.names(on_list) || wj_test.names(off_list) || '{work_mem}'::text[];
	saved text[] := ARRAY(SELECT current_setting(t) FROM unnest(touched) WITH ORDINALITY u(t, i) ORDER BY i);
	lines text[];
	shown text;
	used_off boolean;
	err_on text;
	err_off text;
	n_on bigint;
	n_off bigint;
	d1 bigint := 0;
	d2 bigint := 0;
	bad bigint := 0;
	result text;
BEGIN
	-- with "*" the row numbers would be compared too
	IF ordered IS NOT NULL AND cols = '*' THEN
		RAISE EXCEPTION 'wj_test.on_off: name the compared columns (cols) with ordered';
	END IF;

	-- the nodes on
	PERFORM wj_test.apply(on_list);
	IF plan IS NOT NULL THEN
		BEGIN
			IF analyze_plan THEN
				lines := ARRAY(SELECT l FROM wj_test.explain_analyze(q, 'spill') l WHERE l ~ plan);
			ELSE
				lines := ARRAY(SELECT wj_test.plan_lines(q, plan));
			END IF;
			SELECT coalesce(string_agg(regexp_replace(btrim(l), '^->\s+', ''), '; '), 'none') INTO shown
			FROM unnest(lines) l;
		EXCEPTION WHEN OTHERS THEN
			shown := 'error: ' || SQLERRM;
		END;
	END IF;
	err_on := wj_test.run_into(q, 'wj_test_on', ordered IS NOT NULL);

	-- the nodes off: PostgreSQL's plan (with the caller's other settings)
	PERFORM wj_test.restore(touched, saved);
	PERFORM wj_test.apply(off_list);
	BEGIN
		used_off := wj_test.uses(q, wj_test.guc_nodes(gucs));
	EXCEPTION WHEN OTHERS THEN
		used_off := false;		-- not planned: the run below reports the error
	END;
	err_off := wj_test.run_into(q, 'wj_test_off', ordered IS NOT NULL);

	-- the comparison
	PERFORM wj_test.restore(touched, saved);
	PERFORM wj_test.set('work_mem', '16MB');
	IF err_on IS NULL THEN
		SELECT count(*) INTO n_on FROM wj_test_on;
	END IF;
	IF err_off IS NULL THEN
		SELECT count(*) INTO n_off FROM wj_test_off;
	END IF;
	IF err_on IS NULL AND err_off IS NULL THEN
		EXECUTE format('SELECT count(*) FROM (SELECT %1$s FROM wj_test_on EXCEPT ALL SELECT %1$s FROM wj_test_off) x',
					   cols) INTO d1;
		EXECUTE format('SELECT count(*) FROM (SELECT %1$s FROM wj_test_off EXCEPT ALL SELECT %1$s FROM wj_test_on) x',
					   cols) INTO d2;
		IF ordered IS NOT NULL THEN
			EXECUTE format('SELECT count(*) FROM wj_test_on a JOIN wj_test_off b USING (wj_test_pos) '
						   'WHERE (%s) IS DISTINCT FROM (%s)',
						   (SELECT string_agg('a.' || btrim(c), ', ') FROM unnest(string_to_array(ordered, ',')) c),
						   (SELECT string_agg('b.' || btrim(c), ', ') FROM unnest(string_to_array(ordered, ',')) c))
				INTO bad;
		END IF;
	END IF;
	IF err_on IS NULL THEN DROP TABLE wj_test_on; END IF;
	IF err_off IS NULL THEN DROP TABLE wj_test_off; END IF;
	PERFORM wj_test.restore(touched, saved);

	IF err_on IS NOT DISTINCT FROM err_off AND n_on IS NOT DISTINCT FROM n_off AND d1 = 0 AND d2 = 0 THEN
		result := coalesce(n_on || ' rows', 'error: ' || err_on) || ', same as node off';
	ELSE
		result := format('DIFFERENT: on %s, off %s, %s only on, %s only off',
						 coalesce(n_on || ' rows', 'error: ' || err_on),
						 coalesce(n_off || ' rows', 'error: ' || err_off), d1, d2);
	END IF;
	IF ordered IS NOT NULL THEN
		result := result || format(', %s out of order', bad);
	END IF;
	IF used_off THEN
		result := result || ', NODE USED WITH THE GUC OFF';
	END IF;
	IF plan IS NOT NULL THEN
		result := result || ' | plan: ' || shown;
	END IF;
	RETURN result;
END $$;

-- one EXPLAIN ANALYZE line with the platform-dependent numbers masked
CREATE FUNCTION wj_test.mask(line text, mask text DEFAULT 'sizes') RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
	IF mask = 'all' THEN
		RETURN regexp_replace(line, '[0-9]+', 'N', 'g');
	END IF;
	IF mask = 'none' THEN
		RETURN line;
	END IF;
	IF mask NOT IN ('sizes', 'spill') THEN
		RAISE EXCEPTION 'wj_test.mask: unknown mask "%"', mask;
	END IF;
	line := regexp_replace(line, '(Peak State Memory|Memory Usage|Memory|Disk Usage|Disk): [0-9]+', '\1: N', 'g');
	IF mask = 'spill' THEN
		line := regexp_replace(line, '(Peak State Rows|Batches Sorted by Tuplesort|Batches|Batch Depth|Extra Chunks|Spilled Windows): [0-9]+', '\1: N', 'g');
	END IF;
	RETURN line;
END $$;

CREATE FUNCTION wj_test.explain_analyze(q text, mask text DEFAULT 'sizes',
										serial boolean DEFAULT false) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
	line text;
	old text := wj_test.set(wj_test.parallel_guc(), 'off');
	old_workers text := current_setting('max_parallel_workers_per_gather');
BEGIN
	IF serial THEN
		PERFORM wj_test.set('max_parallel_workers_per_gather', '0');
	END IF;
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, BUFFERS OFF, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		line := wj_test.explain_line(line);
		-- PostgreSQL's own sorts (a custom node's "Sort Method" has no size)
		IF line IS NULL OR line ~ 'Sort Method: .*(Memory|Disk): [0-9]' THEN
			CONTINUE;
		END IF;
		RETURN NEXT wj_test.mask(line, mask);
	END LOOP;
	PERFORM wj_test.set(wj_test.parallel_guc(), old);
	PERFORM wj_test.set('max_parallel_workers_per_gather', old_workers);
END $$;

-- the top plan node of EXPLAIN (opts, FORMAT JSON) q, in this process
CREATE FUNCTION wj_test.explain_json(q text, opts text DEFAULT '',
									 serial boolean DEFAULT false) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
	plan json;
	old text := wj_test.set(wj_test.parallel_guc(), 'off');
	old_workers text := current_setting('max_parallel_workers_per_gather');
BEGIN
	IF serial THEN
		PERFORM wj_test.set('max_parallel_workers_per_gather', '0');
	END IF;
	EXECUTE 'EXPLAIN (' || coalesce(nullif(btrim(opts), '') || ', ', '') || 'FORMAT JSON) ' || q
		INTO plan;
	PERFORM wj_test.set(wj_test.parallel_guc(), old);
	PERFORM wj_test.set('max_parallel_workers_per_gather', old_workers);
	RETURN plan -> 0 -> 'Plan';
END $$;

-- the rows of temporary table a not in temporary table b plus those of b
-- not in a, as multisets
CREATE FUNCTION wj_test.differ(a text, b text) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
	n bigint;
BEGIN
	EXECUTE format('SELECT count(*) FROM ((TABLE %1$I EXCEPT ALL TABLE %2$I) '
				   'UNION ALL (TABLE %2$I EXCEPT ALL TABLE %1$I)) d', a, b) INTO n;
	RETURN n;
END $$;

CREATE FUNCTION wj_test.split_check(node text, q text, split text DEFAULT 'parallel',
									gucs text DEFAULT 'all',
									key_partitioned boolean DEFAULT false)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	names text[] := wj_test.guc_names(gucs);
	-- the split off, and the nodes off (every join method allowed)
	unsplit_list text := CASE split
		WHEN 'parallel' THEN 'max_parallel_workers_per_gather=0'
		WHEN 'partitionwise' THEN 'enable_partitionwise_join=off' END;
	off_list text := array_to_string(array_cat(
		ARRAY(SELECT g || '=off' FROM unnest(names) g),
		'{enable_hashjoin=on, enable_mergejoin=on, enable_nestloop=on}'::text[]), ', ');
	touched text[] := wj_test.names(unsplit_list) || wj_test.names(off_list) || '{work_mem}'::text[];
	saved text[] := ARRAY(SELECT current_setting(t) FROM unnest(touched) WITH ORDINALITY u(t, i) ORDER BY i);
	-- the node's plan line (for a parallel WindowExpand: its pane aggregation)
	node_line text := CASE
		WHEN split = 'parallel' AND node = 'WindowExpand' AND NOT key_partitioned
			THEN 'Partial HashAggregate'
		WHEN key_partitioned THEN 'Parallel Custom Scan (' || node || ')'
		ELSE 'Custom Scan (' || node || ')' END;
	line text;
	i int := 0;
	split_at int := 0;
	split_kind text := 'no Append';
	node_at int := 0;
	nodes int := 0;
	shown text;
	n bigint;
	d_unsplit bigint;
	d_off bigint;
	d_both bigint;
BEGIN
	IF unsplit_list IS NULL THEN
		RAISE EXCEPTION 'wj_test.split_check: unknown split "%"', split;
	END IF;

	-- the plan check
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		i := i + 1;
		IF split_at = 0 AND split = 'parallel' AND line ~ 'Gather' THEN
			split_at := i;
		END IF;
		IF split_at = 0 AND split = 'partitionwise' AND line ~ '(^|->  )(Parallel )?Append' THEN
			split_at := i;
			split_kind := CASE WHEN line ~ 'Parallel Append' THEN 'Parallel Append' ELSE 'Append' END;
		END IF;
		IF strpos(line, node_line) > 0 THEN
			nodes := nodes + 1;
			IF node_at = 0 THEN node_at := i; END IF;
		END IF;
	END LOOP;
	IF split = 'parallel' THEN
		shown := format('%s under Gather: %s',
						CASE WHEN key_partitioned THEN 'key-partitioned' ELSE 'node' END,
						node_at > 0 AND split_at > 0 AND split_at < node_at);
	ELSE
		shown := format('%s: %s under %s', node,
						CASE WHEN split_at > 0 AND node_at > split_at THEN nodes ELSE 0 END,
						split_kind);
	END IF;

	-- the runs: as planned, with the split off, with the nodes off (in a
	-- parallel check: serial too), with both off (partitionwise only)
	EXECUTE 'CREATE TEMP TABLE wj_test_split AS ' || q;
	PERFORM wj_test.apply(unsplit_list);
	EXECUTE 'CREATE TEMP TABLE wj_test_unsplit AS ' || q;
	IF split = 'partitionwise' THEN
		PERFORM wj_test.restore(touched, saved);
		PERFORM wj_test.apply(off_list);
		EXECUTE 'CREATE TEMP TABLE wj_test_nodes_off AS ' || q;
		PERFORM wj_test.apply(unsplit_list);
		EXECUTE 'CREATE TEMP TABLE wj_test_both_off AS ' || q;
	ELSE
		PERFORM wj_test.apply(off_list);
		EXECUTE 'CREATE TEMP TABLE wj_test_nodes_off AS ' || q;
	END IF;
	PERFORM wj_test.restore(touched, saved);

	-- the comparisons
	PERFORM wj_test.set('work_mem', '16MB');
	SELECT count(*) INTO n FROM wj_test_split;
	d_unsplit := wj_test.differ('wj_test_split', 'wj_test_unsplit');
	d_off := wj_test.differ('wj_test_split', 'wj_test_nodes_off');
	IF split = 'partitionwise' THEN
		d_both := wj_test.differ('wj_test_split', 'wj_test_both_off');
		DROP TABLE wj_test_both_off;
	END IF;
	DROP TABLE wj_test_split, wj_test_unsplit, wj_test_nodes_off;
	PERFORM wj_test.restore(touched, saved);

	IF split = 'parallel' THEN
		RETURN format('rows: %s, differ from serial: %s, from nodes off: %s | plan: %s',
					  n, d_unsplit, d_off, shown);
	END IF;
	RETURN format('rows: %s, differ from partitionwise off: %s, nodes off: %s, both off: %s | plan: %s',
				  n, d_unsplit, d_off, d_both, shown);
END $$;

-- The parallel figures of EXPLAIN ANALYZE of q, as jsonb: workers
-- launched, key partitions, the leader's rows (Leader Rows) and peak state
-- rows (the node's own "Peak State Rows"), how many workers hold state (a
-- "Worker N:  Peak State Rows" above zero) and the total peak state rows; a
-- figure not shown is absent.
CREATE FUNCTION wj_test.parallel_figures(q text) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
	line text;
	m text[];
	f jsonb := '{}';
	holders int := 0;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, BUFFERS OFF, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		line := coalesce(wj_test.explain_line(line), '');
		m := regexp_match(line, 'Workers Launched: (\d+)');
		IF m IS NOT NULL THEN f := f || jsonb_build_object('launched', m[1]::int); END IF;
		m := regexp_match(line, 'Key Partitions: (\d+)');
		IF m IS NOT NULL THEN f := f || jsonb_build_object('parts', m[1]::int); END IF;
		m := regexp_match(line, 'Leader Rows: (\d+)');
		IF m IS NOT NULL THEN f := f || jsonb_build_object('leader', m[1]::numeric); END IF;
		m := regexp_match(line, '^\s+Peak State Rows: (\d+)');
		IF m IS NOT NULL THEN f := f || jsonb_build_object('leader_state', m[1]::bigint); END IF;
		m := regexp_match(line, 'Worker \d+:  Peak State Rows: (\d+)');
		IF m IS NOT NULL AND m[1]::bigint > 0 THEN holders := holders + 1; END IF;
		m := regexp_match(line, 'Total Peak State Rows: (\d+)');
		IF m IS NOT NULL THEN f := f || jsonb_build_object('total', m[1]::bigint); END IF;
	END LOOP;
	RETURN f || jsonb_build_object('holders', holders);
END $$;

CREATE FUNCTION wj_test.worker_figures(node text, q text, key_partitioned boolean DEFAULT false)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	line text;
	m text[];
	in_node boolean := false;
	launched int := 0;
	node_rows numeric;
	loops numeric;
	leader numeric;
	parts int := 0;
	workers int := 0;
	worker_rows numeric := 0;
	totals int := 0;
	result text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, BUFFERS OFF, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		line := coalesce(wj_test.explain_line(line), '');
		m := regexp_match(line, 'Workers Launched: (\d+)');
		IF m IS NOT NULL THEN launched := m[1]::int; END IF;
		-- the node's line, then its properties up to the next plan node
		m := regexp_match(line, '^( *)(->  )?Parallel Custom Scan \(' || node ||
						  '\) \(actual rows=(\d+) loops=(\d+)\)');
		IF m IS NOT NULL THEN
			in_node := true;
			node_rows := m[3]::numeric * m[4]::numeric;
			loops := m[4]::numeric;
			CONTINUE;
		END IF;
		IF in_node AND line ~ '->' THEN in_node := false; END IF;
		IF NOT in_node THEN CONTINUE; END IF;
		m := regexp_match(line, 'Key Partitions: (\d+)');
		IF m IS NOT NULL THEN parts := m[1]::int; END IF;
		m := regexp_match(line, 'Leader Rows: (\d+)');
		IF m IS NOT NULL THEN leader := m[1]::numeric; END IF;
		m := regexp_match(line, 'Worker \d+:  Peak State Rows: \d+  Peak State Memory: \d+kB  Rows: (\d+)');
		IF m IS NOT NULL THEN
			workers := workers + 1;
			worker_rows := worker_rows + m[1]::numeric;
		END IF;
		IF line ~ 'Total Peak State (Rows|Memory): \d+' THEN totals := totals + 1; END IF;
	END LOOP;
	result := format('worker lines = workers launched: %s, leader + workers = node rows: %s, totals shown: %s',
					 workers = launched AND launched > 0,
					 abs(leader + worker_rows - node_rows) <= loops / 2, totals = 2);
	IF key_partitioned THEN
		result := format('key partitions: %s, ', parts) || result;
	END IF;
	RETURN result;
END $$;

-- The continuous views' oracles (sql/continuous*.sql).
--
--	wj_test.cv_closed(view, batch)
--		The batch query (default: the view's own query text; a suite that
--		renames the source passes the query with today's names) over the
--		windows closed at the view's watermark, EXCEPT ALL both ways
--		against the view's final rows, and the row count against the
--		catalog's; with emit => 'on_update' the open windows too, marked
--		not final.  "ok" or the differences.
--	wj_test.cv_frozen(view, before, old_wm, batch)
--		Under late => 'drop' and 'log': the rows emitted before a refresh
--		(the table before) are still there, unchanged, and every other row
--		is the batch query's for a window that closed in this refresh.
CREATE FUNCTION wj_test.cv_closed(view regclass, batch text DEFAULT NULL) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	c record;
	q text;
	wm text;
	fin text := '';
	sel text := '';
	n1 bigint;
	n2 bigint;
	n3 bigint;
	n4 bigint;
	nrows bigint;
	saved text := wj_test.reference_begin();
BEGIN
	SELECT * INTO c FROM windowjoin.view_catalog WHERE view_rel = view;
	q := coalesce(batch, c.query);
	wm := windowjoin._show(c.watermark, c.time_type);
	IF c.emit = 'on_update' THEN
		fin := ', true';
		sel := ' WHERE final';
	END IF;
	EXECUTE format('SELECT count(*) FROM (SELECT q.*%s FROM (%s) q WHERE q.window_end <= %L EXCEPT ALL SELECT * FROM %s%s) x',
				   fin, q, wm, view, sel) INTO n1;
	EXECUTE format('SELECT count(*) FROM (SELECT * FROM %s%s EXCEPT ALL SELECT q.*%s FROM (%s) q WHERE q.window_end <= %L) x',
				   view, sel, fin, q, wm) INTO n2;
	EXECUTE format('SELECT count(*) FROM %s', view) INTO nrows;
	IF c.emit = 'on_update' THEN
		-- the open windows, marked not final, are the batch's too
		EXECUTE format('SELECT count(*) FROM (SELECT q.*, false FROM (%s) q WHERE q.window_end > %L EXCEPT ALL SELECT * FROM %s WHERE NOT final) x',
					   q, wm, view) INTO n3;
		EXECUTE format('SELECT count(*) FROM (SELECT * FROM %s WHERE NOT final EXCEPT ALL SELECT q.*, false FROM (%s) q WHERE q.window_end > %L) x',
					   view, q, wm) INTO n4;
		n1 := n1 + n3;
		n2 := n2 + n4;
	END IF;
	PERFORM wj_test.reference_end(saved);
	IF n1 = 0 AND n2 = 0 AND nrows = c.view_rows THEN
		RETURN 'ok';
	END IF;
	RETURN format('%s: %s rows missing, %s rows extra, %s rows (catalog says %s)',
				  view, n1, n2, nrows, c.view_rows);
END $$;

CREATE FUNCTION wj_test.cv_frozen(view regclass, before text, old_wm text, batch text DEFAULT NULL)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	c record;
	wm text;
	n1 bigint;
	n2 bigint;
	saved text := wj_test.reference_begin();
BEGIN
	SELECT * INTO c FROM windowjoin.view_catalog WHERE view_rel = view;
	wm := windowjoin._show(c.watermark, c.time_type);
	EXECUTE format('SELECT count(*) FROM (SELECT * FROM %s EXCEPT ALL SELECT * FROM %s) x', before, view) INTO n1;
	EXECUTE format('SELECT count(*) FROM ((SELECT * FROM %1$s EXCEPT ALL SELECT * FROM %2$s) '
				   'EXCEPT ALL SELECT q.* FROM (%3$s) q WHERE q.window_end > %4$L AND q.window_end <= %5$L) x',
				   view, before, coalesce(batch, c.query), old_wm, wm) INTO n2;
	PERFORM wj_test.reference_end(saved);
	IF n1 = 0 AND n2 = 0 THEN
		RETURN 'ok';
	END IF;
	RETURN format('%s: %s emitted rows changed, %s new rows not from newly closed windows', view, n1, n2);
END $$;

\endif
SELECT pg_catalog.pg_advisory_unlock(20261207) AS wj_test_unlocked \gset
SELECT wj_test.parallel_guc() AS parallel_guc \gset
SET client_min_messages = :'wj_test_saved_cmm';
