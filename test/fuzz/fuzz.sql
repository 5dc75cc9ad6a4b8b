--
-- Differential fuzzer for windowjoin's planner nodes.
--
-- Everything lives in schema "fuzz" and needs nothing but the database:
--
--   fuzz.make_tables(seed, round)  two small random tables fuzz.l, fuzz.r
--   fuzz.gen_*()                   one random query of a recognised shape
--                                  (or a near miss that must fall through)
--   fuzz.compare(...)              runs a query with every windowjoin GUC on
--                                  and with every one off, compares the rows
--                                  as multisets (count + md5 of the sorted
--                                  row texts) and the errors (SQLSTATE and
--                                  message), and reports which custom node
--                                  the "on" plan used
--   fuzz.run_round(seed, round, n) tables + n queries, logged in fuzz.log
--   fuzz.summary()                 per query kind: queries, node coverage,
--                                  agreeing errors, mismatches
--
-- The generator is deterministic: every round reseeds PostgreSQL's PRNG
-- (setseed) from (seed, round), so "fuzz.run_round(S, R, N)" reproduces
-- round R of a run with seed S exactly.
--
-- Data: each table has 0, 1, 2 or up to 60 rows; key columns k1, k2 of
-- int4/int8/numeric/text (the two sides may differ: int4 = int8, int4 =
-- numeric); time columns t timestamp, tz timestamptz, n int8, m int4;
-- payload v, row id and a float8 f; NULL keys and times, duplicated rows,
-- times before 1970, microseconds, occasional infinity, occasional rows
-- near the end of the range (294276-12-31, near the int4/int8 maximum),
-- where shifted times and bounds are out of range; random ANALYZE,
-- indexes, TimeZone and planner switches (shared by the "on" and "off"
-- runs).
--
-- Keys are sometimes shared: one column compared with two expressions of
-- the other side (r.k1 = o.k1 AND r.k1 = o.k2).  Pane aggregations also
-- use float aggregates (sum, avg, stddev, variance of f).
--
-- As-of queries read a copy of fuzz.r with one row per version time (plus
-- exact duplicate rows): "ORDER BY time LIMIT 1" among rows that tie on the
-- time is free to return either, in PostgreSQL as in the node, so ties
-- cannot be compared.
--
-- Nearest as-of queries (ORDER BY r.t <-> o.t, btree_gist) read copies of
-- fuzz.r and fuzz.l whose times are stretched fourfold from a fixed origin
-- (in microseconds or integer units): versions at multiples of 4, outer
-- times at odd offsets from them, so no outer time is ever halfway between
-- two versions and distances never tie.  Without a tolerance bound outer
-- NULL and infinite times (every version at the same distance) are
-- replaced; -infinity versions (as far as +infinity ones) and the rows
-- near the end of the range (fill_end: stretched, they overflow) are
-- removed.

--
-- A FULL join that PostgreSQL cannot plan ("FULL JOIN is only supported
-- with merge-joinable or hash-joinable join conditions") but the node can
-- is compared with its rewrite as inner join UNION ALL both anti joins,
-- run without the extension.
--
DROP SCHEMA IF EXISTS fuzz CASCADE;
CREATE EXTENSION IF NOT EXISTS btree_gist;
CREATE SCHEMA fuzz;

CREATE TABLE fuzz.log (
	seed		int,
	round		int,
	qno			int,
	kind		text,		-- asof, nearest, interval, window_join, window_agg, session_agg, tumble_agg, topn, cascade
	nearmiss	bool,		-- generated as a shape that should fall through
	forced		bool,		-- PostgreSQL's join methods all disabled
	used		text,		-- custom nodes in the plan with the GUCs on
	outcome		text,		-- same | same-error | same-oracle | MISMATCH
	detail		text,
	prep		text,
	query		text,
	oracle		text,
	ms			numeric,	-- time for generating and comparing
	sizes		int[]		-- rows of l, r, w
);

------------------------------------------------------------------------
-- Random helpers (all use random(), seeded per round)
------------------------------------------------------------------------
CREATE FUNCTION fuzz.ri(lo int, hi int) RETURNS int LANGUAGE sql AS
$$ SELECT lo + floor(random() * (hi - lo + 1))::int $$;

CREATE FUNCTION fuzz.chance(p float8) RETURNS bool LANGUAGE sql AS
$$ SELECT random() < p $$;

CREATE FUNCTION fuzz.pick(VARIADIC a text[]) RETURNS text LANGUAGE sql AS
$$ SELECT a[1 + floor(random() * array_length(a, 1))::int] $$;

-- weighted pick: w[i] is the weight of a[i]
CREATE FUNCTION fuzz.wpick(a text[], w int[]) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	total int := 0;
	x int;
	i int;
BEGIN
	FOR i IN 1 .. array_length(w, 1) LOOP
		total := total + w[i];
	END LOOP;
	x := floor(random() * total)::int;
	FOR i IN 1 .. array_length(w, 1) LOOP
		IF x < w[i] THEN
			RETURN a[i];
		END IF;
		x := x - w[i];
	END LOOP;
	RETURN a[array_length(a, 1)];
END $$;

-- a random non-empty subset of items, in their order
CREATE FUNCTION fuzz.subset(items text[], p float8 DEFAULT 0.5) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	res text[] := '{}';
	it text;
BEGIN
	FOREACH it IN ARRAY items LOOP
		IF random() < p THEN
			res := res || it;
		END IF;
	END LOOP;
	IF cardinality(res) = 0 THEN
		res := ARRAY[items[1 + floor(random() * array_length(items, 1))::int]];
	END IF;
	RETURN array_to_string(res, ', ');
END $$;

-- A random offset literal for a time column category ('ts' or 'int');
-- signed allows negative ones.
CREATE FUNCTION fuzz.off(cat text, signed bool DEFAULT true) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	s text;
BEGIN
	IF cat = 'int' THEN
		s := fuzz.pick('0', '1', '1', '2', '3', '5', '10', '30');
		IF signed AND fuzz.chance(0.15) THEN
			s := '(-' || s || ')';
		END IF;
		RETURN s;
	END IF;
	s := fuzz.wpick(ARRAY['0', '1 second', '30 seconds', '1 minute', '90 seconds',
						  '2 minutes', '5 minutes', '10 minutes', '1 hour',
						  '1 day', '1 mon', '0.5 seconds'],
					ARRAY[6, 4, 8, 14, 6, 10, 12, 8, 6, 3, 1, 2]);
	IF signed AND fuzz.chance(0.15) THEN
		s := '-' || s;
	END IF;
	RETURN format('interval %L', s);
END $$;

CREATE FUNCTION fuzz.cat(col text) RETURNS text LANGUAGE sql AS
$$ SELECT CASE WHEN col IN ('n', 'm') THEN 'int' ELSE 'ts' END $$;

------------------------------------------------------------------------
-- Tables
------------------------------------------------------------------------
CREATE FUNCTION fuzz.keytype(fam text) RETURNS text LANGUAGE sql AS $$
	SELECT CASE fam
		WHEN 'int' THEN fuzz.pick('int4', 'int8')
		WHEN 'num' THEN fuzz.pick('numeric', 'int4')
		ELSE 'text' END
$$;

-- SQL expression for a random key of type ty from dk values, NULL with pn
CREATE FUNCTION fuzz.keyexpr(ty text, dk int, pn float8) RETURNS text LANGUAGE sql AS $$
	SELECT format('CASE WHEN random() < %s THEN NULL ELSE %s END', pn,
		CASE ty
			WHEN 'text' THEN format('chr(97 + floor(random() * %s)::int)', dk)
			WHEN 'numeric' THEN format('(1 + floor(random() * %s))::numeric(6,%s)', dk,
									   fuzz.pick('0', '1', '2'))
			ELSE format('(1 + floor(random() * %s))::%s', dk, ty) END)
$$;

CREATE FUNCTION fuzz.fill(tab text, nrows int, k1t text, k2t text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	dk1 int := fuzz.wpick(ARRAY['1', '2', '3', '5'], ARRAY[2, 4, 4, 2])::int;
	dk2 int := fuzz.wpick(ARRAY['1', '2', '3'], ARRAY[3, 4, 2])::int;
	pnk float8 := fuzz.wpick(ARRAY['0', '0.1', '0.3'], ARRAY[5, 3, 2])::float8;
	pnt float8 := fuzz.wpick(ARRAY['0', '0.1', '0.3'], ARRAY[5, 3, 2])::float8;
	span int := fuzz.wpick(ARRAY['10', '30', '120', '1440'], ARRAY[3, 4, 3, 1])::int;	-- minutes
	gran text := fuzz.wpick(ARRAY['min', 'sec', 'usec'], ARRAY[5, 4, 1]);
	base text := fuzz.wpick(ARRAY['2024-01-01 00:00:00', '1969-12-31 23:30:00', '2024-03-10 01:00:00'],
							ARRAY[8, 1, 1]);
	texpr text;
BEGIN
	texpr := CASE gran
		WHEN 'min' THEN format('floor(random() * %s) * 60', span)
		WHEN 'sec' THEN format('floor(random() * %s)', span * 60)
		ELSE format('floor(random() * %s) + floor(random() * 1000000) / 1e6', span * 60) END;
	EXECUTE format($f$
		INSERT INTO fuzz.%1$s (k1, k2, t, tz, n, m, v, id)
		SELECT k1, k2, t,
			   CASE WHEN random() < 0.8 THEN t AT TIME ZONE 'UTC'
					WHEN random() < %6$s THEN NULL
					ELSE timestamptz %7$L + (%8$s) * interval '1 second' END,
			   n, CASE WHEN random() < 0.8 THEN n::int4 ELSE floor(random() * %9$s)::int4 END,
			   CASE WHEN random() < 0.1 THEN NULL ELSE floor(random() * 10)::int END,
			   g
		FROM (SELECT g, %2$s AS k1, %3$s AS k2,
					 CASE WHEN random() < %6$s THEN NULL
						  ELSE timestamp %7$L + (%8$s) * interval '1 second' END AS t,
					 CASE WHEN random() < %6$s THEN NULL
						  ELSE floor(random() * %9$s)::int8 END AS n
			  FROM generate_series(1, %4$s) g OFFSET 0) s
		ORDER BY g$f$,
		tab, fuzz.keyexpr(k1t, dk1, pnk), fuzz.keyexpr(k2t, dk2, pnk), nrows,
		NULL, pnt, base, texpr, span);
	-- integer times mostly follow the timestamp (minutes since the base)
	IF fuzz.chance(0.6) THEN
		EXECUTE format('UPDATE fuzz.%s SET n = floor(extract(epoch FROM t - timestamp %L) / 60), '
					   'm = floor(extract(epoch FROM t - timestamp %L) / 60)', tab, base, base);
	END IF;
	-- exact duplicate rows
	IF nrows > 0 AND fuzz.chance(0.3) THEN
		EXECUTE format('INSERT INTO fuzz.%s SELECT * FROM fuzz.%s WHERE random() < %s ORDER BY id',
					   tab, tab, fuzz.pick('0.2', '0.5', '1'));
	END IF;
	-- an infinite time now and then
	IF fuzz.chance(0.03) THEN
		EXECUTE format($f$INSERT INTO fuzz.%s VALUES (NULL, NULL, %L, %L, NULL, NULL, 1, 0)$f$,
					   tab, fuzz.pick('infinity', '-infinity'), fuzz.pick('infinity', '-infinity'));
	END IF;
	-- floats whose sums depend on the order of the additions
	EXECUTE format('UPDATE fuzz.%s SET f = CASE WHEN v IS NULL THEN NULL ELSE v / 7.0::float8 + id / 3.0::float8 END',
				   tab);
END $$;

-- Now and then 1..3 rows near the end of the time range (and of the
-- integer ranges), with keys like the others': a shifted time or bound is
-- out of range for them, an error exactly where PostgreSQL computes it
CREATE FUNCTION fuzz.fill_end(tab text, k1t text, k2t text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	IF NOT fuzz.chance(0.2) THEN
		RETURN;
	END IF;
	EXECUTE format($f$
		INSERT INTO fuzz.%1$s (k1, k2, t, tz, n, m, v, id, f)
		SELECT k1, k2, t, t AT TIME ZONE 'UTC', n, n - 9223372036854775807 + 2147483647,
			   floor(random() * 10)::int, 900 + g, g / 7.0::float8
		FROM (SELECT g, %2$s AS k1, %3$s AS k2,
					 timestamp %4$L - floor(random() * %5$s) * interval '1 second' AS t,
					 9223372036854775807 - floor(random() * %5$s)::int8 AS n
			  FROM generate_series(1, %6$s) g OFFSET 0) s$f$,
		tab, fuzz.keyexpr(k1t, 8, 0.2), fuzz.keyexpr(k2t, 3, 0.2),
		'294276-12-31 23:59:59', fuzz.pick('5', '60', '600', '7200'), fuzz.ri(1, 3));
END $$;

-- An expression of alias b's row with the type of tab.k1, other than
-- b.k1: b.k2 when it has that type, else one made from the row id
CREATE FUNCTION fuzz.alt_key(b text, tab text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	t1 text;
	t2 text;
BEGIN
	SELECT format_type(a1.atttypid, a1.atttypmod), format_type(a2.atttypid, a2.atttypmod)
	INTO t1, t2
	FROM pg_attribute a1, pg_attribute a2
	WHERE a1.attrelid = ('fuzz.' || tab)::regclass AND a1.attname = 'k1'
	  AND a2.attrelid = a1.attrelid AND a2.attname = 'k2';
	IF t1 = t2 THEN
		RETURN b || '.k2';
	ELSIF t1 = 'text' THEN
		RETURN format('chr(97 + %s.id %% 3)', b);
	END IF;
	RETURN format('(1 + %s.id %% 3)::%s', b, t1);
END $$;

CREATE FUNCTION fuzz.make_tables(seed int, round int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	fam1 text := fuzz.wpick(ARRAY['int', 'text', 'num'], ARRAY[5, 3, 1]);
	fam2 text := fuzz.wpick(ARRAY['int', 'text', 'num'], ARRAY[5, 3, 1]);
	l1 text := fuzz.keytype(fam1);
	r1 text := fuzz.keytype(fam1);
	l2 text := fuzz.keytype(fam2);
	r2 text := fuzz.keytype(fam2);
	sizes text[] := ARRAY['0', '1', '2', 'small', 'medium'];
	sw int[] := ARRAY[6, 8, 6, 50, 30];
	nl int;
	nr int;
	s text;
BEGIN
	DROP TABLE IF EXISTS fuzz.l, fuzz.r, fuzz.rv, fuzz.lv, fuzz.w CASCADE;
	-- numeric on the left only pairs with numeric on the right
	IF fam1 = 'num' THEN r1 := 'numeric'; END IF;
	IF fam2 = 'num' THEN r2 := 'numeric'; END IF;
	EXECUTE format('CREATE TABLE fuzz.l (k1 %s, k2 %s, t timestamp, tz timestamptz, n int8, m int4, v int, id int, f float8) '
				   'WITH (autovacuum_enabled = off)', l1, l2);
	EXECUTE format('CREATE TABLE fuzz.r (k1 %s, k2 %s, t timestamp, tz timestamptz, n int8, m int4, v int, id int, f float8) '
				   'WITH (autovacuum_enabled = off)', r1, r2);
	s := fuzz.wpick(sizes, sw);
	nl := CASE s WHEN 'small' THEN fuzz.ri(3, 12) WHEN 'medium' THEN fuzz.ri(13, 60) ELSE s::int END;
	s := fuzz.wpick(sizes, sw);
	nr := CASE s WHEN 'small' THEN fuzz.ri(3, 12) WHEN 'medium' THEN fuzz.ri(13, 60) ELSE s::int END;
	PERFORM fuzz.fill('l', nl, l1, l2);
	PERFORM fuzz.fill('r', nr, r1, r2);
	PERFORM fuzz.fill_end('l', l1, l2);
	PERFORM fuzz.fill_end('r', r1, r2);
	-- a larger table for the aggregations, where panes can win on cost
	EXECUTE format('CREATE TABLE fuzz.w (k1 %s, k2 %s, t timestamp, tz timestamptz, n int8, m int4, v int, id int, f float8) '
				   'WITH (autovacuum_enabled = off)', l1, l2);
	PERFORM fuzz.fill('w', fuzz.pick('0', '1', '5', '50', '300', '1000', '2000')::int, l1, l2);
	ANALYZE fuzz.w;
	IF fuzz.chance(0.25) THEN CREATE INDEX ON fuzz.l (k1, t); END IF;
	IF fuzz.chance(0.25) THEN CREATE INDEX ON fuzz.r (k1, t); END IF;
	IF fuzz.chance(0.15) THEN CREATE INDEX ON fuzz.r (t); END IF;
	IF fuzz.chance(0.15) THEN CREATE INDEX ON fuzz.l (n); END IF;
	IF fuzz.chance(0.8) THEN ANALYZE fuzz.l; END IF;
	IF fuzz.chance(0.8) THEN ANALYZE fuzz.r; END IF;
	-- window joins read the tables without the rows near the end of the
	-- range: the WindowJoin node computes every row's windows, where
	-- PostgreSQL's plan may join on the keys first and compute the windows
	-- of the joined rows only (a window end out of range raises an error
	-- in the node alone)
	CREATE VIEW fuzz.lw AS SELECT * FROM fuzz.l WHERE id < 900 OR id IS NULL;
	CREATE VIEW fuzz.rw AS SELECT * FROM fuzz.r WHERE id < 900 OR id IS NULL;
END $$;

------------------------------------------------------------------------
-- Query generators.  Each returns the query, an optional statement to run
-- before it (prep) and, for FULL joins, the oracle rewrite.
------------------------------------------------------------------------

-- A time column pair (left:right) for joins on time
CREATE FUNCTION fuzz.time_pair() RETURNS text LANGUAGE sql AS $$
	SELECT fuzz.wpick(ARRAY['t:t', 'tz:tz', 'n:n', 'm:m', 't:tz', 'tz:t', 'n:m', 'm:n'],
					  ARRAY[30, 22, 15, 5, 5, 5, 10, 8])
$$;

-- "A op B" with a random comparison operator of the given direction,
-- written either way round
CREATE FUNCTION fuzz.cmp(a text, op text, b text) RETURNS text LANGUAGE sql AS $$
	SELECT CASE WHEN random() < 0.5 THEN format('%s %s %s', a, op, b)
		ELSE format('%s %s %s', b,
					CASE op WHEN '<' THEN '>' WHEN '<=' THEN '>=' WHEN '>' THEN '<'
							WHEN '>=' THEN '<=' ELSE op END, a) END
$$;

-- Equality keys between aliases a and b: 0..2 of them, and now and then
-- a near miss (<>, IS NOT DISTINCT FROM)
CREATE FUNCTION fuzz.keys(a text, b text, btab text, OUT conds text[], OUT nk int, OUT near bool)
LANGUAGE plpgsql AS $$
DECLARE
	i int;
BEGIN
	conds := '{}';
	near := false;
	nk := fuzz.wpick(ARRAY['0', '1', '2'], ARRAY[2, 5, 3])::int;
	FOR i IN 1 .. nk LOOP
		IF fuzz.chance(0.04) THEN
			conds := conds || format('%s.k%s <> %s.k%s', a, i, b, i);
			near := true;
		ELSIF fuzz.chance(0.03) THEN
			conds := conds || format('%s.k%s IS NOT DISTINCT FROM %s.k%s', a, i, b, i);
			near := true;
		ELSE
			conds := conds || fuzz.cmp(format('%s.k%s', a, i), '=', format('%s.k%s', b, i));
		END IF;
	END LOOP;
	-- a shared column: a.k1 also equal to another expression of b
	IF fuzz.chance(0.15) THEN
		IF nk = 0 THEN
			conds := conds || fuzz.cmp(format('%s.k1', a), '=', format('%s.k1', b));
			nk := 1;
		END IF;
		conds := conds || fuzz.cmp(format('%s.k1', a), '=', fuzz.alt_key(b, btab));
		nk := nk + 1;
	END IF;
END $$;

-- The FULL JOIN oracle: inner join plus the unmatched rows of each side
CREATE FUNCTION fuzz.full_oracle(items text, lsrc text, rsrc text, cond text) RETURNS text
LANGUAGE sql AS $$
	SELECT format('SELECT %1$s FROM %2$s JOIN %3$s ON %4$s '
				  'UNION ALL SELECT %5$s FROM %2$s WHERE NOT EXISTS (SELECT 1 FROM %3$s WHERE %4$s) '
				  'UNION ALL SELECT %6$s FROM %3$s WHERE NOT EXISTS (SELECT 1 FROM %2$s WHERE %4$s)',
				  items, lsrc, rsrc, cond,
				  regexp_replace(items, '\mR\.\w+', 'NULL', 'g'),
				  regexp_replace(items, '\mL\.\w+', 'NULL', 'g'))
$$;

-- Interval (band) joins
CREATE FUNCTION fuzz.gen_interval(OUT q text, OUT prep text, OUT oracle text, OUT near bool)
LANGUAGE plpgsql AS $$
DECLARE
	pair text := fuzz.time_pair();
	lt text := split_part(pair, ':', 1);
	rt text := split_part(pair, ':', 2);
	cat text := fuzz.cat(lt);
	k record;
	conds text[];
	jt text := fuzz.wpick(ARRAY['INNER', 'LEFT', 'RIGHT', 'FULL', 'SEMI', 'ANTI', 'COMMA'],
						  ARRAY[25, 20, 15, 15, 10, 10, 5]);
	a text;			-- the banded side's time
	b text;			-- the reference side's time
	lo text := fuzz.off(cat);
	hi text := fuzz.off(cat);
	form text := fuzz.wpick(ARRAY['between', 'two', 'one', 'symmetric', 'scaled'],
							ARRAY[40, 50, 4, 3, 3]);
	items text;
	cond text;
	wf text := '';
BEGIN
	k := fuzz.keys('L', 'R', 'r');
	conds := k.conds;
	-- the node wants both time columns of one type
	near := k.near OR lt <> rt;
	IF fuzz.chance(0.8) THEN
		a := 'R.' || rt; b := 'L.' || lt;
	ELSE
		a := 'L.' || lt; b := 'R.' || rt;
	END IF;
	-- a band usually contains 0: lower bound b - lo, upper bound b + hi
	IF form = 'between' THEN
		conds := conds || format('%s BETWEEN %s - %s AND %s + %s', a, b, lo, b, hi);
	ELSIF form = 'two' THEN
		conds := conds || CASE fuzz.ri(1, 3)
			WHEN 1 THEN fuzz.cmp(a, fuzz.pick('>=', '>'), format('%s - %s', b, lo))
			WHEN 2 THEN fuzz.cmp(format('%s + %s', a, lo), fuzz.pick('>=', '>'), b)
			ELSE fuzz.cmp(a, fuzz.pick('>=', '>'), b) END;
		conds := conds || CASE fuzz.ri(1, 3)
			WHEN 1 THEN fuzz.cmp(a, fuzz.pick('<=', '<'), format('%s + %s', b, hi))
			WHEN 2 THEN fuzz.cmp(format('%s - %s', a, hi), fuzz.pick('<=', '<'), b)
			ELSE fuzz.cmp(a, fuzz.pick('<=', '<'), format('%s + %s', b, hi)) END;
	ELSIF form = 'one' THEN
		near := true;
		conds := conds || fuzz.cmp(a, fuzz.pick('>=', '>', '<', '<='), format('%s - %s', b, lo));
	ELSIF form = 'symmetric' THEN
		near := true;
		conds := conds || format('%s BETWEEN SYMMETRIC %s - %s AND %s + %s', a, b, lo, b, hi);
	ELSE
		near := true;
		IF cat = 'int' THEN
			conds := conds || format('%s BETWEEN %s * 2 - %s AND %s + %s', a, b, lo, b, hi);
		ELSE
			conds := conds || format('%s BETWEEN %s - %s * 2 AND %s + %s', a, b, lo, b, hi);
		END IF;
	END IF;
	-- several bands on the same pair: the tightest one is the band
	IF fuzz.chance(0.08) THEN
		conds := conds || fuzz.cmp(a, '<=', format('%s + %s', b, fuzz.off(cat)));
	END IF;
	IF fuzz.chance(0.2) THEN
		conds := conds || fuzz.pick('L.v < R.v', 'L.v + R.v <> 5', 'R.v IS NOT NULL',
									'L.id <> R.id', 'L.t IS NOT NULL', 'R.v > 2');
	END IF;
	cond := array_to_string(conds, ' AND ');
	IF jt IN ('SEMI', 'ANTI') THEN
		items := fuzz.subset(ARRAY['L.id AS lid', 'L.v AS lv', format('L.%s AS lt', lt), 'L.k1 AS lk']);
		q := format('SELECT %s FROM fuzz.l L WHERE %s EXISTS (SELECT 1 FROM fuzz.r R WHERE %s)',
					items, CASE jt WHEN 'ANTI' THEN 'NOT' ELSE '' END, cond);
	ELSE
		items := fuzz.subset(ARRAY['L.id AS lid', 'L.v AS lv', 'R.id AS rid', 'R.v AS rv',
								   format('L.%s AS lt', lt), format('R.%s AS rt', rt), 'L.k1 AS lk']);
		IF jt NOT IN ('FULL', 'COMMA') AND fuzz.chance(0.12) THEN
			wf := ' WHERE ' || fuzz.pick('R.v IS NULL OR R.v > 2', 'L.v > 1', 'R.id IS DISTINCT FROM L.id');
		END IF;
		IF jt = 'COMMA' THEN
			q := format('SELECT %s FROM fuzz.l L, fuzz.r R WHERE %s', items, cond);
		ELSE
			q := format('SELECT %s FROM fuzz.l L %s JOIN fuzz.r R ON %s%s', items, jt, cond, wf);
		END IF;
		IF jt = 'FULL' THEN
			oracle := fuzz.full_oracle(items, 'fuzz.l L', 'fuzz.r R', cond);
		END IF;
	END IF;
END $$;

-- A window spec: function call text for time column col, and a spec key
-- (function, slide/step, size, offset in seconds) to compare sides
CREATE FUNCTION fuzz.window_spec(OUT fn text, OUT a int, OUT b int, OUT o int) LANGUAGE plpgsql AS $$
DECLARE
	u int := fuzz.wpick(ARRAY['30', '60', '120', '300', '3600'], ARRAY[2, 5, 3, 3, 1])::int;
BEGIN
	fn := fuzz.wpick(ARRAY['tumble', 'hop', 'cumulate'], ARRAY[4, 4, 3]);
	o := CASE WHEN fuzz.chance(0.3)
		THEN fuzz.pick('-960', '-360', '-240', '30', '60', '240', '360', '960')::int ELSE NULL END;
	IF fn = 'tumble' THEN
		a := NULL;
		b := u * fuzz.pick('1', '2', '3', '5', '10')::int;
	ELSIF fn = 'hop' THEN
		a := u * fuzz.pick('1', '2', '5')::int;
		b := CASE WHEN fuzz.chance(0.8) THEN a * fuzz.pick('1', '2', '3', '4')::int
			 ELSE u * fuzz.ri(1, 10) END;
	ELSE
		a := u * fuzz.pick('1', '2', '5')::int;
		b := CASE WHEN fuzz.chance(0.95) THEN a * fuzz.pick('1', '2', '3', '4', '6')::int
			 ELSE a * 2 + u END;		-- not a multiple: an error both ways
	END IF;
END $$;

CREATE FUNCTION fuzz.window_call(fn text, a int, b int, o int, col text) RETURNS text
LANGUAGE sql AS $$
	SELECT format('%s(%s%s, interval ''%s seconds''%s)', fn, col,
				  CASE WHEN a IS NULL THEN '' ELSE format(', interval ''%s seconds''', a) END,
				  b,
				  CASE WHEN o IS NULL THEN '' ELSE format(', interval ''%s seconds''', o) END)
$$;

-- Window joins
CREATE FUNCTION fuzz.gen_window_join(OUT q text, OUT prep text, OUT oracle text, OUT near bool)
LANGUAGE plpgsql AS $$
DECLARE
	s record;
	col text := fuzz.wpick(ARRAY['t', 'tz'], ARRAY[6, 4]);
	rcol text;
	wl text;
	wr text;
	lsrc text;
	rsrc text;
	columns bool := fuzz.chance(0.12);
	gk bool := fuzz.chance(0.6);
	k record;
	conds text[];
	jt text := fuzz.wpick(ARRAY['INNER', 'LEFT', 'RIGHT', 'FULL', 'SEMI', 'ANTI'],
						  ARRAY[28, 20, 15, 17, 10, 10]);
	items text;
	cond text;
	wf text := '';
	eq text := fuzz.wpick(ARRAY['both', 'start', 'end', 'le'], ARRAY[86, 5, 5, 4]);
BEGIN
	s := fuzz.window_spec();
	near := false;
	rcol := col;
	wl := fuzz.window_call(s.fn, s.a, s.b, s.o, col);
	wr := wl;
	IF fuzz.chance(0.04) THEN
		near := true;
		wr := fuzz.window_call(s.fn, s.a, s.b * 2, s.o, col);
	ELSIF fuzz.chance(0.03) THEN
		near := true;
		rcol := CASE col WHEN 't' THEN 'tz' ELSE 't' END;
		wr := fuzz.window_call(s.fn, s.a, s.b, s.o, rcol);
	END IF;
	IF columns THEN
		-- joins of window aggregations (COLUMNS mode)
		lsrc := format('(SELECT %s window_start, window_end, count(*) AS c, sum(v) AS s FROM fuzz.lw, %s GROUP BY %s window_start, window_end) L',
					   CASE WHEN gk THEN 'k1,' ELSE '' END, wl, CASE WHEN gk THEN 'k1,' ELSE '' END);
		rsrc := format('(SELECT %s window_start, window_end, count(*) AS c, max(v) AS s FROM fuzz.rw, %s GROUP BY %s window_start, window_end) R',
					   CASE WHEN gk THEN 'k1,' ELSE '' END, wr, CASE WHEN gk THEN 'k1,' ELSE '' END);
		conds := '{}';
		IF gk AND fuzz.chance(0.8) THEN
			conds := conds || fuzz.cmp('L.k1', '=', 'R.k1');
		END IF;
	ELSE
		lsrc := format('(SELECT * FROM fuzz.lw, %s%s) L', wl,
					   CASE WHEN fuzz.chance(0.12) THEN ' WHERE v > 2' ELSE '' END);
		rsrc := format('(SELECT * FROM fuzz.rw, %s%s) R', wr,
					   CASE WHEN fuzz.chance(0.12) THEN ' WHERE k1 IS NOT NULL' ELSE '' END);
		k := fuzz.keys('L', 'R', 'r');
		conds := k.conds;
		near := near OR k.near;
	END IF;
	IF eq = 'both' THEN
		conds := conds || fuzz.cmp('L.window_start', '=', 'R.window_start')
					   || fuzz.cmp('L.window_end', '=', 'R.window_end');
	ELSIF eq = 'start' THEN
		conds := conds || fuzz.cmp('L.window_start', '=', 'R.window_start');
	ELSIF eq = 'end' THEN
		conds := conds || fuzz.cmp('L.window_end', '=', 'R.window_end');
	ELSE
		near := true;
		conds := conds || fuzz.cmp('L.window_start', '<=', 'R.window_start')
					   || fuzz.cmp('L.window_end', '=', 'R.window_end');
	END IF;
	IF fuzz.chance(0.2) THEN
		conds := conds || CASE WHEN columns
			THEN fuzz.pick('L.c <= R.c', 'L.s IS NOT NULL', 'L.c + R.c > 2')
			ELSE fuzz.pick('L.v <= R.v', 'L.id <> R.id', format('L.%s < R.%s', col, rcol),
						   'R.v IS NOT NULL', 'L.v + R.v > 4') END;
	END IF;
	-- shuffle the conditions now and then
	IF fuzz.chance(0.3) THEN
		SELECT array_agg(c ORDER BY random()) INTO conds FROM unnest(conds) c;
	END IF;
	cond := array_to_string(conds, ' AND ');
	IF jt IN ('SEMI', 'ANTI') THEN
		items := CASE WHEN columns THEN fuzz.subset(ARRAY['L.window_start AS ws', 'L.c AS lc', 'L.s AS ls'])
					  ELSE fuzz.subset(ARRAY['L.id AS lid', 'L.v AS lv', 'L.window_start AS ws', 'L.window_time AS wt']) END;
		q := format('SELECT %s FROM %s WHERE %s EXISTS (SELECT 1 FROM %s WHERE %s)',
					items, lsrc, CASE jt WHEN 'ANTI' THEN 'NOT' ELSE '' END, rsrc, cond);
	ELSE
		items := CASE WHEN columns
			THEN fuzz.subset(ARRAY['L.c AS lc', 'L.s AS ls', 'R.c AS rc', 'R.s AS rs',
								   'COALESCE(L.window_start, R.window_start) AS ws',
								   'COALESCE(L.window_end, R.window_end) AS we'])
			ELSE fuzz.subset(ARRAY['L.id AS lid', 'L.v AS lv', 'R.id AS rid', 'R.v AS rv',
								   'COALESCE(L.window_start, R.window_start) AS ws',
								   'COALESCE(L.window_end, R.window_end) AS we',
								   'L.window_time AS lwt', 'R.window_start AS rws', 'L.k1 AS lk']) END;
		IF jt <> 'FULL' AND fuzz.chance(0.12) THEN
			wf := ' WHERE ' || CASE WHEN columns THEN 'L.c > 1'
				ELSE fuzz.pick('R.v IS NULL OR R.v > 2', 'L.v > 1', 'L.window_start IS NOT NULL') END;
		END IF;
		q := format('SELECT %s FROM %s %s JOIN %s ON %s%s', items, lsrc, jt, rsrc, cond, wf);
		IF jt = 'FULL' THEN
			oracle := fuzz.full_oracle(items, lsrc, rsrc, cond);
		END IF;
	END IF;
END $$;

-- As-of (LATERAL latest-version) joins
CREATE FUNCTION fuzz.gen_asof(OUT q text, OUT prep text, OUT oracle text, OUT near bool)
LANGUAGE plpgsql AS $$
DECLARE
	pair text := fuzz.time_pair();
	lt text := split_part(pair, ':', 1);
	rt text := split_part(pair, ':', 2);
	cat text := fuzz.cat(lt);
	fwd bool := fuzz.chance(0.4);
	is_strict bool := fuzz.chance(0.35);
	k record;
	conds text[];
	ot text;
	it text;
	tol text;
	ord text;
	sel text;
	items text;
	miss text := NULL;
	lim text := 'LIMIT 1';
	sub text;
	jf text := fuzz.wpick(ARRAY['join', 'left', 'left_on', 'comma', 'cross'], ARRAY[40, 38, 7, 8, 7]);
BEGIN
	near := false;
	ot := 'o.' || lt;
	it := 'r.' || rt;
	-- one version per time (see the file header), some exact duplicates
	prep := format('DROP TABLE IF EXISTS fuzz.rv; '
				   'CREATE TABLE fuzz.rv WITH (autovacuum_enabled = off) AS '
				   'SELECT DISTINCT ON (%1$s) * FROM fuzz.r ORDER BY %1$s, id; ', rt);
	IF fuzz.chance(0.25) THEN
		prep := prep || 'INSERT INTO fuzz.rv SELECT * FROM fuzz.rv WHERE random() < 0.5 ORDER BY id; ';
	END IF;
	IF fuzz.chance(0.2) THEN
		prep := prep || format('CREATE INDEX ON fuzz.rv (k1, %s); ', rt);
	END IF;
	IF fuzz.chance(0.8) THEN
		prep := prep || 'ANALYZE fuzz.rv;';
	END IF;
	IF fuzz.chance(0.14) THEN
		miss := fuzz.pick('limit2', 'offset', 'flip', 'order2', 'outer_sel', 'noneq', 'two_upper',
						  'order_expr', 'limit_expr');
		near := miss NOT IN ('limit_expr');
	END IF;
	k := fuzz.keys('r', 'o', 'l');
	conds := k.conds;
	near := near OR k.near;
	-- the time condition, now and then against a shifted outer time
	IF fuzz.chance(0.2) THEN
		ot := format('%s + %s', ot, fuzz.off(cat));
	END IF;
	IF fwd THEN
		conds := conds || fuzz.cmp(it, CASE WHEN is_strict THEN '>' ELSE '>=' END, ot);
	ELSE
		conds := conds || fuzz.cmp(it, CASE WHEN is_strict THEN '<' ELSE '<=' END, ot);
	END IF;
	ot := 'o.' || lt;
	-- tolerance
	IF fuzz.chance(0.35) THEN
		tol := fuzz.off(cat, false);
		IF NOT is_strict AND fuzz.chance(0.3) THEN
			conds := conds[1:array_length(conds, 1) - 1] ||
				CASE WHEN fwd THEN format('%s BETWEEN %s AND %s + %s', it, ot, ot, tol)
					 ELSE format('%s BETWEEN %s - %s AND %s', it, ot, tol, ot) END;
		ELSIF fwd THEN
			conds := conds || fuzz.cmp(it, fuzz.pick('<=', '<'), format('%s + %s', ot, tol));
		ELSE
			conds := conds || fuzz.cmp(it, fuzz.pick('>=', '>'), format('%s - %s', ot, tol));
		END IF;
	END IF;
	IF fuzz.chance(0.2) THEN
		conds := conds || fuzz.pick('r.v > 2', 'r.v IS NOT NULL', 'r.k1 IS NOT NULL', 'r.id % 3 <> 0');
	END IF;
	IF miss = 'noneq' THEN
		conds := conds || 'r.v <> o.v'::text;
	ELSIF miss = 'two_upper' THEN
		conds := conds || fuzz.cmp(it, CASE WHEN fwd THEN '>=' ELSE '<=' END,
								   format('%s + %s', ot, fuzz.off(cat, false)));
	END IF;
	IF fuzz.chance(0.3) THEN
		SELECT array_agg(c ORDER BY random()) INTO conds FROM unnest(conds) c;
	END IF;
	ord := CASE WHEN fwd <> (miss IS NOT DISTINCT FROM 'flip')
		THEN fuzz.pick('', ' ASC', ' ASC NULLS FIRST') ELSE fuzz.pick(' DESC', ' DESC', ' DESC NULLS LAST') END;
	ord := format('ORDER BY %s%s', CASE WHEN miss = 'order_expr' THEN
							CASE cat WHEN 'int' THEN it || ' + 0' ELSE it || ' + interval ''0''' END
						  ELSE it END, ord);
	IF miss = 'order2' THEN
		ord := ord || ', r.id';
	END IF;
	lim := CASE miss WHEN 'limit2' THEN 'LIMIT 2' WHEN 'offset' THEN 'LIMIT 1 OFFSET 1'
					 WHEN 'limit_expr' THEN 'LIMIT (0 + 1)' ELSE 'LIMIT 1' END;
	sel := fuzz.subset(ARRAY['r.v AS rv', 'r.id AS rid', format('%s AS rt', it), 'r.k1 AS rk']);
	IF jf = 'left_on' AND sel NOT LIKE '%rid%' THEN
		sel := sel || ', r.id AS rid';
	END IF;
	IF miss = 'outer_sel' THEN
		sel := sel || ', o.v AS ov2';
	END IF;
	sub := format('(SELECT %s FROM fuzz.rv r WHERE %s %s %s) x', sel,
				  array_to_string(conds, ' AND '), ord, lim);
	items := fuzz.subset(ARRAY['o.id AS oid', 'o.v AS ov', format('%s AS ot', ot), 'o.k1 AS ok', 'x.*']);
	q := format('SELECT %s FROM fuzz.l o %s', items,
				CASE jf
					WHEN 'join' THEN format('JOIN LATERAL %s ON true', sub)
					WHEN 'left' THEN format('LEFT JOIN LATERAL %s ON true', sub)
					WHEN 'left_on' THEN format('LEFT JOIN LATERAL %s ON x.%s', sub,
											   CASE WHEN sel LIKE '%rv%' THEN 'rv > o.v' ELSE 'rid > 2' END)
					WHEN 'comma' THEN format(', LATERAL %s', sub)
					ELSE format('CROSS JOIN LATERAL %s', sub) END);
	IF fuzz.chance(0.1) THEN
		q := q || ' WHERE ' || fuzz.pick('o.v > 2', 'o.k1 IS NOT NULL', 'o.id % 2 = 0');
	END IF;
END $$;

-- Nearest as-of join: ORDER BY r.t <-> o.t LIMIT 1 (see the file header
-- for the data), with near misses that must fall through
CREATE FUNCTION fuzz.gen_nearest(OUT q text, OUT prep text, OUT oracle text, OUT near bool)
LANGUAGE plpgsql AS $$
DECLARE
	pair text := fuzz.wpick(ARRAY['t:t', 'tz:tz', 'n:n', 'm:m', 't:tz', 'n:m'],
							ARRAY[30, 20, 15, 10, 5, 5]);
	lt text := split_part(pair, ':', 1);
	rt text := split_part(pair, ':', 2);
	cat text := fuzz.cat(lt);
	has_tol bool := fuzz.chance(0.4);
	k record;
	conds text[];
	ot text;
	it text;
	ord text;
	sel text;
	items text;
	miss text := NULL;
	lim text := 'LIMIT 1';
	sub text;
	lo text;
	hi text;
	jf text := fuzz.wpick(ARRAY['join', 'left', 'left_on', 'comma', 'cross'], ARRAY[40, 38, 7, 8, 7]);
	stretch text;
	tolform text;
BEGIN
	near := false;
	ot := 'o.' || lt;

	it := 'r.' || rt;
	stretch := 't = CASE WHEN isfinite(t) THEN timestamp ''2024-01-01'' + (t - timestamp ''2024-01-01'') * 4 %1$s ELSE t END, '
			   'tz = CASE WHEN isfinite(tz) THEN timestamptz ''2024-01-01 00:00+00'' + (tz - timestamptz ''2024-01-01 00:00+00'') * 4 %1$s ELSE tz END, '
			   'n = n * 4 %2$s, m = m * 4 %2$s';

	-- one version per time, no -infinity, times at multiples of 4
	prep := format('DROP TABLE IF EXISTS fuzz.rv, fuzz.lv; '
				   'CREATE TABLE fuzz.rv WITH (autovacuum_enabled = off) AS '
				   'SELECT DISTINCT ON (%1$s) * FROM fuzz.r ORDER BY %1$s, id; '
				   'DELETE FROM fuzz.rv WHERE t = ''-infinity'' OR tz = ''-infinity'' OR id BETWEEN 901 AND 999; '
				   'UPDATE fuzz.rv SET %2$s; ', rt, format(stretch, '', ''));
	IF fuzz.chance(0.25) THEN
		prep := prep || 'INSERT INTO fuzz.rv SELECT * FROM fuzz.rv WHERE random() < 0.5 ORDER BY id; ';
	END IF;
	-- outer times at odd offsets; NULL and infinite ones only with a tolerance
	prep := prep || format('CREATE TABLE fuzz.lv WITH (autovacuum_enabled = off) AS '
						   'SELECT * FROM fuzz.l WHERE id NOT BETWEEN 901 AND 999 ORDER BY id; '
						   'UPDATE fuzz.lv SET %s; ',
						   format(stretch,
								  '+ (CASE WHEN id % 2 = 0 THEN 1 ELSE -1 END) * interval ''1 microsecond''',
								  '+ CASE WHEN id % 2 = 0 THEN 1 ELSE -1 END'));
	IF NOT has_tol THEN
		prep := prep || format('UPDATE fuzz.lv SET %1$s = %2$s WHERE %1$s IS NULL OR %1$s::text LIKE ''%%infinity''; ',
							   lt, CASE lt WHEN 't' THEN 'timestamp ''2024-01-01 00:00:00.000001'''
										   WHEN 'tz' THEN 'timestamptz ''2024-01-01 00:00:00.000001+00'''
										   ELSE '1' END);
	END IF;
	IF fuzz.chance(0.2) THEN
		prep := prep || format('CREATE INDEX ON fuzz.rv (k1, %s); ', rt);
	END IF;
	IF fuzz.chance(0.8) THEN
		prep := prep || 'ANALYZE fuzz.rv; ANALYZE fuzz.lv;';
	END IF;
	IF fuzz.chance(0.12) THEN
		miss := fuzz.pick('limit2', 'desc', 'order2', 'float', 'outside', 'nulls_first', 'outer_sel');
		IF miss = 'outside' AND NOT has_tol THEN
			miss := 'limit2';	-- a window needs a tolerance
		END IF;
		near := true;

	END IF;
	k := fuzz.keys('r', 'o', 'l');
	conds := k.conds;
	near := near OR k.near;
	-- tolerance: BETWEEN, or one or two inequalities
	IF has_tol THEN
		lo := format('%s - %s', ot, fuzz.off(cat, false));
		hi := format('%s + %s', ot, fuzz.off(cat, false));
		IF fuzz.chance(0.1) THEN
			lo := ot;
		END IF;
		IF miss = 'outside' THEN
			lo := format('%s + %s', ot, CASE cat WHEN 'int' THEN '3' ELSE 'interval ''1 minute''' END);
		END IF;
		tolform := CASE WHEN miss = 'outside' THEN 'lower'
						ELSE fuzz.pick('between', 'two', 'lower', 'upper') END;
		CASE tolform

			WHEN 'between' THEN
				conds := conds || format('%s BETWEEN %s AND %s', it, lo, hi);
			WHEN 'two' THEN
				conds := conds || fuzz.cmp(it, fuzz.pick('>=', '>'), lo)
							   || fuzz.cmp(it, fuzz.pick('<=', '<'), hi);
			WHEN 'lower' THEN
				conds := conds || fuzz.cmp(it, fuzz.pick('>=', '>'), lo);
			ELSE
				conds := conds || fuzz.cmp(it, fuzz.pick('<=', '<'), hi);
		END CASE;
	END IF;
	IF fuzz.chance(0.2) THEN
		conds := conds || fuzz.pick('r.v > 2', 'r.v IS NOT NULL', 'r.k1 IS NOT NULL', 'r.id % 3 <> 0');
	END IF;
	IF fuzz.chance(0.3) THEN
		SELECT array_agg(c ORDER BY random()) INTO conds FROM unnest(conds) c;
	END IF;
	ord := CASE WHEN fuzz.chance(0.5) THEN format('%s <-> %s', it, ot) ELSE format('%s <-> %s', ot, it) END;
	IF miss = 'float' THEN
		ord := format('%s::float8 <-> %s::float8', it, ot);
		IF cat = 'ts' THEN
			ord := format('extract(epoch FROM %s)::float8 <-> extract(epoch FROM %s)::float8', it, ot);
		END IF;
	END IF;
	ord := 'ORDER BY ' || ord || CASE miss WHEN 'desc' THEN ' DESC' WHEN 'nulls_first' THEN ' NULLS FIRST'
									   WHEN 'order2' THEN ', r.id' ELSE '' END;
	lim := CASE miss WHEN 'limit2' THEN 'LIMIT 2' ELSE 'LIMIT 1' END;
	sel := fuzz.subset(ARRAY['r.v AS rv', 'r.id AS rid', format('%s AS rt', it), 'r.k1 AS rk']);
	IF jf = 'left_on' AND sel NOT LIKE '%rid%' THEN
		sel := sel || ', r.id AS rid';
	END IF;
	IF miss = 'outer_sel' THEN
		sel := sel || ', o.v AS ov2';
	END IF;
	sub := format('(SELECT %s FROM fuzz.rv r %s %s %s) x', sel,
				  CASE WHEN conds = '{}' THEN '' ELSE 'WHERE ' || array_to_string(conds, ' AND ') END,
				  ord, lim);
	items := fuzz.subset(ARRAY['o.id AS oid', 'o.v AS ov', format('%s AS ot', ot), 'o.k1 AS ok', 'x.*']);
	q := format('SELECT %s FROM fuzz.lv o %s', items,
				CASE jf
					WHEN 'join' THEN format('JOIN LATERAL %s ON true', sub)
					WHEN 'left' THEN format('LEFT JOIN LATERAL %s ON true', sub)
					WHEN 'left_on' THEN format('LEFT JOIN LATERAL %s ON x.%s', sub,
											   CASE WHEN sel LIKE '%rv%' THEN 'rv > o.v' ELSE 'rid > 2' END)
					WHEN 'comma' THEN format(', LATERAL %s', sub)
					ELSE format('CROSS JOIN LATERAL %s', sub) END);
	IF fuzz.chance(0.1) THEN
		q := q || ' WHERE ' || fuzz.pick('o.v > 2', 'o.k1 IS NOT NULL', 'o.id % 2 = 0');
	END IF;
END $$;

-- hop()/cumulate() window aggregation (WindowExpand)
CREATE FUNCTION fuzz.gen_window_agg(OUT q text, OUT prep text, OUT oracle text, OUT near bool)
LANGUAGE plpgsql AS $$
DECLARE
	s record;
	col text := fuzz.wpick(ARRAY['t', 'tz'], ARRAY[6, 4]);
	g text;
	aggs text;
	wf text := '';
	call text;
BEGIN
	near := false;
	LOOP
		s := fuzz.window_spec();
		EXIT WHEN s.fn <> 'tumble';
	END LOOP;
	-- many windows per row now and then, where panes pay off most
	IF fuzz.chance(0.7) THEN
		s.b := s.a * fuzz.pick('10', '20', '30', '60')::int;
	END IF;
	call := fuzz.window_call(s.fn, s.a, s.b, s.o, col);
	IF s.fn = 'hop' AND s.b < s.a THEN
		near := true;
	END IF;
	g := fuzz.wpick(ARRAY['window_start, window_end', 'window_start', 'window_end', 'window_time',
						  'window_end, window_start'], ARRAY[60, 12, 12, 5, 6]);
	IF g = 'window_time' THEN
		near := true;
	END IF;
	IF fuzz.chance(0.35) THEN
		g := g || ', k1';
		IF fuzz.chance(0.3) THEN
			g := g || ', k2';
		END IF;
	END IF;
	IF fuzz.chance(0.1) AND g NOT LIKE '%k1%' THEN
		g := 'k1, ' || g;
	END IF;
	aggs := fuzz.subset(ARRAY['count(*) AS c', 'count(v) AS cv', 'sum(v) AS sv', 'min(v) AS mnv',
							  'max(id) AS mxid', 'avg(v) AS av', 'sum(n) AS sn', 'min(t) AS mnt',
							  'max(tz) AS mxtz', 'bool_and(v > 2) AS ba', 'sum(v) FILTER (WHERE v > 3) AS sf',
							  'max(k1) AS mk'], 0.3);
	-- float aggregates, whose partial sums do not combine exactly
	IF fuzz.chance(0.35) THEN
		aggs := aggs || ', ' || fuzz.subset(ARRAY['sum(f) AS sfl', 'avg(f) AS afl', 'stddev(f) AS sdf',
												  'var_pop(f) AS vpf', 'min(f) AS mnf', 'max(f) AS mxf',
												  'sum(f::float4) AS sf4', 'corr(f, v) AS cr'], 0.4);
	END IF;
	IF fuzz.chance(0.08) THEN
		near := true;
		aggs := aggs || ', ' || fuzz.pick('count(DISTINCT v) AS dv', 'max(window_time) AS mwt',
										  'string_agg(id::text, '','' ORDER BY id) AS ids',
										  'sum(extract(epoch FROM window_end - ' || col || ')) AS ex');
	END IF;
	IF fuzz.chance(0.2) THEN
		wf := ' WHERE ' || fuzz.pick('v > 2', 'k1 IS NOT NULL', 'v IS NULL OR v < 7');
	ELSIF fuzz.chance(0.03) THEN
		near := true;
		wf := format(' WHERE window_start > %L', '2024-01-01 00:10');
	END IF;
	q := format('SELECT %s, %s FROM fuzz.%s, %s%s GROUP BY %s', g, aggs,
				fuzz.wpick(ARRAY['w', 'l'], ARRAY[4, 1]), call, wf, g);
	IF fuzz.chance(0.05) THEN
		q := q || ' HAVING count(*) > 1';
	END IF;
END $$;

-- tumble(), date_bin() and date_trunc() window aggregation (TumbleAgg);
-- exact aggregates only, as under fuzz.parallel PostgreSQL's own parallel
-- aggregation adds floats in another order than a serial plan
CREATE FUNCTION fuzz.gen_tumble_agg(OUT q text, OUT prep text, OUT oracle text, OUT near bool)
LANGUAGE plpgsql AS $$
DECLARE
	col text := fuzz.wpick(ARRAY['t', 'tz'], ARRAY[6, 4]);
	u int := fuzz.wpick(ARRAY['1', '30', '60', '300', '3600', '86400'], ARRAY[1, 2, 5, 3, 2, 1])::int;
	form text := fuzz.wpick(ARRAY['tumble', 'date_bin', 'date_trunc'], ARRAY[5, 3, 2]);
	origin text;
	unit text;
	w text;
	g text;
	src text := 'fuzz.' || fuzz.wpick(ARRAY['w', 'l'], ARRAY[4, 1]);
	aggs text;
	wf text := '';
BEGIN
	near := false;
	IF form = 'tumble' THEN
		w := fuzz.wpick(ARRAY['window_start', 'window_end', 'window_start, window_end', 'window_time',
							  'window_end, window_start'], ARRAY[4, 2, 6, 1, 1]);
		src := src || ', ' || fuzz.window_call('tumble', NULL, u,
			CASE WHEN fuzz.chance(0.3) THEN fuzz.pick('-240', '30', '60', '960')::int END, col);
	ELSIF form = 'date_bin' THEN
		origin := format('%s %L', CASE col WHEN 't' THEN 'timestamp' ELSE 'timestamptz' END,
						 fuzz.pick('1970-01-01', '2001-02-03 04:05:06', '2024-01-01 00:00:07',
								   '2100-01-01 00:00:30') || CASE col WHEN 'tz' THEN '+00' ELSE '' END);
		w := format('date_bin(interval ''%s seconds'', %s, %s)', u, col, origin);
		IF fuzz.chance(0.3) THEN
			unit := fuzz.pick(' + interval ''1 minute''', ' - interval ''1 second''',
							  ' + interval ''1 day''');
			w := w || ', ' || w || unit;
			IF col = 'tz' AND unit LIKE '%day%' THEN
				near := true;		-- days on timestamptz: PostgreSQL's plan
			END IF;
		END IF;
	ELSE
		unit := fuzz.wpick(ARRAY['second', 'minute', 'hour', 'day', 'week', 'month', 'milliseconds'],
						   ARRAY[2, 5, 4, 2, 1, 1, 1]);
		w := format('date_trunc(%L, %s)', unit, col);
		IF unit = 'month' OR col = 'tz' THEN
			near := true;			-- variable buckets: PostgreSQL's plan
		END IF;
	END IF;
	g := w;
	IF fuzz.chance(0.5) THEN
		g := g || ', k1';
		IF fuzz.chance(0.3) THEN
			g := g || ', k2';
		END IF;
	END IF;
	aggs := fuzz.subset(ARRAY['count(*) AS c', 'count(v) AS cv', 'sum(v) AS sv', 'min(v) AS mnv',
							  'max(id) AS mxid', 'avg(v)::text AS av', 'sum(n)::text AS sn',
							  'avg(n)::text AS an', 'min(t) AS mnt', 'max(tz) AS mxtz',
							  'sum(v::numeric / 7)::text AS snum', 'avg(v::numeric(6, 2))::text AS anum',
							  'max((v / 3.0)::numeric)::text AS mxnum', 'min(f) AS mnf', 'max(f) AS mxf',
							  'sum(m) AS sm', 'count(k1) AS ck', 'sum(v) * 2 - count(*) AS ex'], 0.3);
	IF fuzz.chance(0.08) THEN
		near := true;
		aggs := aggs || ', ' || fuzz.pick('count(DISTINCT v) AS dv', 'sum(v) FILTER (WHERE v > 3) AS sf',
										  'string_agg(id::text, '','' ORDER BY id) AS ids',
										  'bool_and(v > 2) AS ba');
	END IF;
	IF fuzz.chance(0.2) THEN
		wf := ' WHERE ' || fuzz.pick('v > 2', 'k1 IS NOT NULL', 'v IS NULL OR v < 7');
	END IF;
	q := format('SELECT %s, %s FROM %s%s GROUP BY %s', g, aggs, src, wf, g);
	IF fuzz.chance(0.1) THEN
		q := q || fuzz.pick(' HAVING count(*) > 1', ' HAVING sum(v) > 5');
	END IF;
END $$;

-- session() aggregation (streaming GroupAggregate)
CREATE FUNCTION fuzz.gen_session_agg(OUT q text, OUT prep text, OUT oracle text, OUT near bool)
LANGUAGE plpgsql AS $$
DECLARE
	col text := fuzz.wpick(ARRAY['t', 'tz'], ARRAY[6, 4]);
	gap text := fuzz.pick('1 second', '30 seconds', '1 minute', '2 minutes', '5 minutes', '1 hour');
	pk text := fuzz.wpick(ARRAY['k1', 'k1, k2', '', 'k2'], ARRAY[50, 20, 20, 10]);
	ord text := col;
	g text;
	fields text := fuzz.wpick(ARRAY['(w).window_start, (w).window_end', '(w).window_start',
								   '(w).window_end, (w).window_time', '(w).window_start, (w).window_end, (w).window_time'],
							  ARRAY[60, 15, 10, 15]);
	aggs text;
	wf text := '';
BEGIN
	near := false;
	IF fuzz.chance(0.05) THEN
		near := true;
		ord := col || fuzz.pick(' DESC', ' NULLS FIRST', ' DESC NULLS LAST');
	END IF;
	g := CASE WHEN pk = '' THEN fields ELSE pk || ', ' || fields END;
	IF fuzz.chance(0.06) AND pk <> '' THEN
		near := true;
		g := fields || ', ' || pk;		-- GROUP BY not led by the partition keys
	END IF;
	aggs := fuzz.subset(ARRAY['count(*) AS c', 'sum(v) AS sv', 'min(id) AS mnid', 'max(v) AS mxv',
							  'avg(v) AS av'], 0.4);
	IF fuzz.chance(0.15) THEN
		wf := ' WHERE ' || fuzz.pick('v > 2', 'k1 IS NOT NULL', 'id % 2 = 0');
	END IF;
	q := format('SELECT %s, %s FROM (SELECT *, session(%s, interval %L) OVER (%sORDER BY %s) AS w FROM fuzz.%s%s) s GROUP BY %s',
				g, aggs, col, gap, CASE WHEN pk = '' THEN '' ELSE 'PARTITION BY ' || pk || ' ' END,
				ord, fuzz.pick('w', 'l'), wf, g);
END $$;

-- Window Top-N and deduplication (WindowTopN): a ranking window bounded
-- by the outer WHERE, over a window TVF, date_bin, plain keys or none,
-- directly or over an aggregate.  row_number orders end with id, so that
-- peers are exact duplicate rows (which rows of equal peers a plan keeps
-- is its own choice); near misses PostgreSQL makes no run condition of,
-- or that the node does not take.
CREATE FUNCTION fuzz.gen_topn(OUT q text, OUT prep text, OUT oracle text, OUT near bool)
LANGUAGE plpgsql AS $$
DECLARE
	col text := fuzz.wpick(ARRAY['t', 'tz'], ARRAY[6, 4]);
	u int := fuzz.wpick(ARRAY['60', '300', '3600'], ARRAY[3, 4, 2])::int;
	form text := fuzz.wpick(ARRAY['tumble', 'date_bin', 'keys', 'none', 'agg'], ARRAY[4, 2, 3, 1, 2]);
	fn text := fuzz.wpick(ARRAY['row_number', 'rank', 'dense_rank'], ARRAY[5, 3, 2]);
	src text := 'fuzz.' || fuzz.wpick(ARRAY['w', 'l'], ARRAY[4, 1]);
	part text;
	ord text;
	cols text := 'id, k1, v, ' || col;
	bound text;
	inner_q text;
BEGIN
	near := false;
	ord := fuzz.wpick(ARRAY['v', 'v DESC', 'v NULLS FIRST', 'v DESC NULLS LAST', 'n', 'f DESC',
							col, col || ' DESC', 'v, ' || col, 'k2 DESC, v'], ARRAY[3, 3, 1, 1, 1, 1, 2, 2, 1, 1]);
	IF form = 'tumble' THEN
		src := src || ', ' || fuzz.window_call('tumble', NULL, u, NULL, col);
		part := 'window_start, window_end' || fuzz.pick('', ', k1', ', k1, k2');
		cols := cols || ', window_start';
	ELSIF form = 'date_bin' THEN
		part := format('date_bin(interval ''%s seconds'', %s, %s ''2024-01-01'')', u, col,
					   CASE col WHEN 't' THEN 'timestamp' ELSE 'timestamptz' END) || fuzz.pick('', ', k1');
	ELSIF form = 'keys' THEN
		part := fuzz.pick('k1', 'k2', 'k1, k2');
	ELSIF form = 'none' THEN
		part := NULL;
	ELSE
		-- over a window aggregate: rank the groups of each window
		src := format('(SELECT window_start, window_end, k1, count(*) AS v, max(id) AS id, max(%s) AS %s, '
					  'max(n) AS n, max(f) AS f, max(k2) AS k2 FROM %s, %s GROUP BY window_start, window_end, k1) a',
					  col, col, src, fuzz.window_call('tumble', NULL, u, NULL, col));
		part := 'window_start, window_end';
		cols := cols || ', window_start';
	END IF;
	IF fn = 'row_number' THEN
		ord := ord || ', id';
	END IF;
	IF fuzz.chance(0.1) THEN
		ord := NULL;		-- no ORDER BY: every row a peer
		IF fn = 'row_number' THEN
			fn := 'rank';
		END IF;
	END IF;
	bound := fuzz.wpick(ARRAY['rn <= 1', 'rn <= 2', 'rn <= 3', 'rn < 3', 'rn = 1', '2 >= rn', 'rn <= 10'],
						ARRAY[2, 3, 3, 2, 3, 1, 1]);
	IF fuzz.chance(0.08) THEN
		near := true;
		bound := fuzz.pick('rn > 1', 'rn <= 2.5', 'rn BETWEEN 2 AND 3', 'rn <= 20000', 'rn <> 2');
	END IF;
	inner_q := format('SELECT %s, %s() OVER (%s%s) AS rn FROM %s', cols, fn,
					  CASE WHEN part IS NULL THEN '' ELSE 'PARTITION BY ' || part END,
					  CASE WHEN ord IS NULL THEN '' ELSE ' ORDER BY ' || ord END, src);
	IF fuzz.chance(0.15) THEN
		inner_q := inner_q || ' WHERE ' || fuzz.pick('v > 2', 'k1 IS NOT NULL', 'id % 2 = 0');
	END IF;
	q := format('SELECT * FROM (%s) x WHERE %s', inner_q, bound);
END $$;

-- Cascades (pipelines of continuous views, docs/continuous.md), in their
-- batch form: a window aggregate per key, then over its rows a roll-up
-- into longer tumbling, hopping or cumulating windows by window_start or
-- window_end, a second roll-up (minute -> hour -> day), a Top-N of the
-- keys of each window, or sessions of the windows; each stage runs
-- through whichever node takes it.
CREATE FUNCTION fuzz.gen_cascade(OUT q text, OUT prep text, OUT oracle text, OUT near bool)
LANGUAGE plpgsql AS $$
DECLARE
	col text := fuzz.wpick(ARRAY['t', 'tz'], ARRAY[6, 4]);
	u int := fuzz.wpick(ARRAY['60', '300'], ARRAY[3, 2])::int;
	form text := fuzz.wpick(ARRAY['rollup', 'three', 'topn', 'session'], ARRAY[4, 2, 3, 1]);
	stage text;
	tcol text := fuzz.wpick(ARRAY['m.window_start', 'm.window_end'], ARRAY[3, 1]);
	keyed bool := fuzz.chance(0.6);
	fn text := fuzz.wpick(ARRAY['row_number', 'rank', 'dense_rank'], ARRAY[5, 3, 2]);
	wf text := '';
BEGIN
	near := false;
	IF fuzz.chance(0.15) THEN
		wf := ' WHERE ' || fuzz.pick('v > 2', 'k1 IS NOT NULL', 'id % 2 = 0');
	END IF;
	stage := format('SELECT window_start, window_end, k1, count(*) AS n, sum(v) AS s, max(v) AS mx '
					'FROM fuzz.%s, tumble(%s, interval ''%s seconds'')%s GROUP BY 1, 2, 3',
					fuzz.wpick(ARRAY['w', 'l'], ARRAY[4, 1]), col, u, wf);
	IF form IN ('rollup', 'three') OR (form = 'topn' AND fuzz.chance(0.5)) THEN
		stage := format('SELECT w.window_start, w.window_end%s, sum(m.n) AS n, sum(m.s) AS s, max(m.mx) AS mx '
						'FROM (%s) m, %s w GROUP BY w.window_start, w.window_end%s',
						CASE WHEN keyed OR form = 'topn' THEN ', m.k1' ELSE ', NULL::int AS k1' END, stage,
						fuzz.pick(fuzz.window_call('tumble', NULL, u * 10, NULL, tcol),
								  fuzz.window_call('hop', u * 5, u * 20, NULL, tcol),
								  fuzz.window_call('cumulate', u * 5, u * 20, NULL, tcol)),
						CASE WHEN keyed OR form = 'topn' THEN ', m.k1' ELSE '' END);
		u := u * 10;
	END IF;
	IF form = 'three' THEN
		stage := format('SELECT w.window_start, w.window_end, m.k1, sum(m.n) AS n, sum(m.s) AS s, max(m.mx) AS mx '
						'FROM (%s) m, tumble(m.window_start, interval ''%s seconds'') w '
						'GROUP BY w.window_start, w.window_end, m.k1', stage, u * 6);
	END IF;
	IF form = 'topn' THEN
		q := format('SELECT * FROM (SELECT window_start, window_end, k1, n, s, %s() OVER (PARTITION BY '
					'window_start, window_end ORDER BY n DESC, s%s) AS rn FROM (%s) a) x WHERE %s',
					fn, CASE WHEN fn = 'row_number' THEN ', k1' ELSE '' END, stage,
					fuzz.pick('rn <= 1', 'rn <= 2', 'rn < 3', 'rn = 1'));
	ELSIF form = 'session' THEN
		q := format('SELECT k1, (w).window_start, (w).window_end, sum(n) AS n, max(mx) AS mx '
					'FROM (SELECT *, session(window_start, interval ''%s seconds'') OVER (PARTITION BY k1 '
					'ORDER BY window_start) AS w FROM (%s) m) s GROUP BY 1, 2, 3', u * fuzz.pick('1', '2', '3')::int,
					stage);
	ELSE
		q := stage;
	END IF;
END $$;

------------------------------------------------------------------------
-- Running and comparing
------------------------------------------------------------------------

-- Set every windowjoin GUC for the rest of the transaction
CREATE FUNCTION fuzz.set_nodes(state text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	PERFORM set_config('windowjoin.enable_window_join', state, true);
	PERFORM set_config('windowjoin.enable_interval_join', state, true);
	PERFORM set_config('windowjoin.enable_asof_join', state, true);
	PERFORM set_config('windowjoin.enable_window_aggregate', state, true);
	PERFORM set_config('windowjoin.enable_window_topn', state, true);
END $$;

-- The custom nodes in a plan (space separated, sorted, unique) and the plan text
CREATE FUNCTION fuzz.explain(q text, OUT nodes text, OUT plan text, OUT err text) LANGUAGE plpgsql AS $$
DECLARE
	line text;
	found text[] := '{}';
	m text[];
BEGIN
	plan := '';
	BEGIN
		FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
			plan := plan || line || E'\n';
			FOR m IN SELECT regexp_matches(line, 'Custom Scan \((\w+)\)', 'g') LOOP
				found := found || m[1];
			END LOOP;
		END LOOP;
	EXCEPTION WHEN OTHERS THEN
		err := SQLSTATE || ': ' || SQLERRM;
	END;
	SELECT coalesce(string_agg(DISTINCT x, ' ' ORDER BY x), '') INTO nodes FROM unnest(found) x;
END $$;

-- The statement that runs q and returns its row count and the md5 of its
-- rows' texts in sorted order (a multiset digest)
CREATE FUNCTION fuzz.digest_sql(q text) RETURNS text LANGUAGE sql AS $$
	SELECT format('SELECT count(*), md5(coalesce(string_agg(x::text, E''\n'' ORDER BY x::text), '''')) FROM (%s) x', q)
$$;

-- Run the digest statement of q: row count and digest, or the error
CREATE FUNCTION fuzz.run_digest(q text, OUT n bigint, OUT digest text, OUT err text)
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE fuzz.digest_sql(q) INTO n, digest;
EXCEPTION WHEN OTHERS THEN
	err := SQLSTATE || ': ' || SQLERRM;
END $$;

-- PostgreSQL plans to try when only one run failed: the written join order
-- (each subquery planned whole) or the planner's, with one join method each
-- (or without index scans: an index scan computes its runtime keys, e.g.
-- a shifted time, for every rescan; a filter only for the rows it reaches)
CREATE TABLE fuzz.alt_plans (collapse text, nestloop text, hashjoin text, mergejoin text,
							 indexscan text);
INSERT INTO fuzz.alt_plans VALUES
	('1', 'off', 'off', 'on', 'on'), ('1', 'off', 'on', 'off', 'on'), ('1', 'on', 'off', 'off', 'on'),
	('8', 'off', 'off', 'on', 'on'), ('8', 'off', 'on', 'off', 'on'), ('8', 'on', 'off', 'off', 'on'),
	('1', 'on', 'on', 'on', 'on'), ('8', 'on', 'on', 'on', 'on'),
	('8', 'on', 'on', 'on', 'off'), ('1', 'on', 'on', 'on', 'off');

-- Compare q_on (run with the nodes on) with q_off (nodes off); normally
-- the same text.  Returns the outcome, the nodes used and a detail.
CREATE FUNCTION fuzz.compare(q_on text, q_off text, oracle text DEFAULT NULL,
							 OUT outcome text, OUT used text, OUT detail text)
LANGUAGE plpgsql AS $$
DECLARE
	e_on record;
	e_off record;
	r_on record;
	r_off record;
BEGIN
	PERFORM fuzz.set_nodes('on');
	SELECT * INTO e_on FROM fuzz.explain(fuzz.digest_sql(q_on));
	SELECT * INTO r_on FROM fuzz.run_digest(q_on);
	PERFORM fuzz.set_nodes('off');
	SELECT * INTO e_off FROM fuzz.explain(fuzz.digest_sql(q_off));
	SELECT * INTO r_off FROM fuzz.run_digest(q_off);
	used := e_on.nodes;
	IF r_off.err LIKE '0A000: FULL JOIN is only supported with merge-joinable or hash-joinable join conditions'
	   AND r_on.err IS NULL AND oracle IS NOT NULL THEN
		SELECT * INTO r_off FROM fuzz.run_digest(oracle);
		outcome := 'same-oracle';
	ELSE
		outcome := 'same';
	END IF;
	-- Whether an error is raised can depend on the plan: a window function
	-- is evaluated, or not, for a row that a join condition eliminates or
	-- an input that is never read because the other one is empty.  When
	-- exactly one of the runs failed, try PostgreSQL's own plans under other
	-- join orders and methods (fuzz.alt_plans); if one of them gives what
	-- the node's run gave, the node behaved as a valid PostgreSQL plan.
	IF (r_on.err IS NULL) <> (r_off.err IS NULL) AND outcome = 'same' THEN
		DECLARE
			alt record;
			r_alt record;
		BEGIN
			FOR alt IN SELECT * FROM fuzz.alt_plans LOOP
				PERFORM set_config('from_collapse_limit', alt.collapse, true);
				PERFORM set_config('join_collapse_limit', alt.collapse, true);
				PERFORM set_config('enable_nestloop', alt.nestloop, true);
				PERFORM set_config('enable_hashjoin', alt.hashjoin, true);
				PERFORM set_config('enable_mergejoin', alt.mergejoin, true);
				PERFORM set_config('enable_sort', 'on', true);
				PERFORM set_config('enable_indexscan', alt.indexscan, true);
				PERFORM set_config('enable_bitmapscan', alt.indexscan, true);
				PERFORM set_config('enable_indexonlyscan', alt.indexscan, true);
				SELECT * INTO r_alt FROM fuzz.run_digest(q_off);
				IF r_alt.err IS NOT DISTINCT FROM r_on.err AND
				   r_alt.digest IS NOT DISTINCT FROM r_on.digest THEN
					r_off := r_alt;
					outcome := CASE WHEN r_on.err IS NULL THEN 'same-reordered'
									ELSE 'same-error-reordered' END;
					EXIT;
				END IF;
			END LOOP;
			PERFORM set_config('from_collapse_limit', '8', true);
			PERFORM set_config('join_collapse_limit', '8', true);
			PERFORM set_config('enable_indexscan', 'on', true);
			PERFORM set_config('enable_bitmapscan', 'on', true);
			PERFORM set_config('enable_indexonlyscan', 'on', true);
		END;
		-- An infinite time that raised an error in the node while
		-- PostgreSQL's plan returned no rows at all: its join read the
		-- empty side first and never computed the windows of the other,
		-- while the node had that other side as its outer input.  Which
		-- input a join reads first is the planner's choice (a merge join
		-- with the sides swapped raises the error too), so this is no
		-- wrong result; it is counted apart.
		IF outcome = 'same' AND r_on.err LIKE '22008: cannot assign an infinite timestamp%'
		   AND r_off.err IS NULL AND r_off.n = 0 THEN
			outcome := 'error-vs-empty';
			r_off.err := r_on.err;
		END IF;
	END IF;
	PERFORM fuzz.set_nodes('on');
	IF e_off.nodes <> '' THEN
		outcome := 'MISMATCH';
		detail := 'custom node used with the GUCs off: ' || e_off.nodes;
	ELSIF r_on.err IS NOT NULL OR r_off.err IS NOT NULL THEN
		IF r_on.err IS NOT DISTINCT FROM r_off.err THEN
			outcome := CASE WHEN outcome IN ('same-error-reordered', 'error-vs-empty') THEN outcome
							ELSE 'same-error' END;
			detail := r_on.err;
		ELSE
			outcome := 'MISMATCH';
			detail := format('error on: %s / error off: %s', coalesce(r_on.err, '(none)'),
							 coalesce(r_off.err, '(none)'));
		END IF;
	ELSIF r_on.n <> r_off.n OR r_on.digest <> r_off.digest THEN
		outcome := 'MISMATCH';
		detail := format('%s rows on, %s rows off, digests %s', r_on.n, r_off.n,
						 CASE WHEN r_on.digest = r_off.digest THEN 'equal' ELSE 'differ' END);
	ELSE
		detail := r_on.n || ' rows';
	END IF;
	-- a plan that differs because of the extension (session aggregates have
	-- no custom node of their own; they may run on SessionSort or
	-- SessionWindow)
	IF (used = '' OR used LIKE 'Session%') AND e_on.err IS NULL AND
		e_on.plan <> e_off.plan THEN
		used := ltrim(used || ' PlanChanged');
	END IF;
END $$;

-- Seed the PRNG for (seed, round), choose the session settings and make
-- the round's tables.  Settings last until the end of the transaction, or
-- of the session when is_local is false (to reproduce a round by hand).
CREATE FUNCTION fuzz.setup_round(seed int, round int, is_local bool DEFAULT true) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM setseed(((seed::bigint * 1000003 + round) % 2000001) / 1000000.0 - 1.0);
	PERFORM set_config('max_parallel_workers_per_gather', '0', is_local);
	-- fuzz.parallel = on (e.g. PGOPTIONS='-c fuzz.parallel=on'): parallel
	-- plans wherever possible, with the nodes on and off alike
	IF coalesce(current_setting('fuzz.parallel', true), 'off') = 'on' THEN
		PERFORM set_config('max_parallel_workers_per_gather', '2', is_local);
		PERFORM set_config('parallel_setup_cost', '0', is_local);
		PERFORM set_config('parallel_tuple_cost', '0', is_local);
		PERFORM set_config('min_parallel_table_scan_size', '0', is_local);
		PERFORM set_config('min_parallel_index_scan_size', '0', is_local);
	END IF;
	PERFORM set_config('client_min_messages', 'warning', is_local);
	-- disabled join methods cost 1e10: no JIT compilation for tiny queries
	PERFORM set_config('jit', 'off', is_local);
	PERFORM set_config('TimeZone', fuzz.wpick(ARRAY['UTC', 'Asia/Seoul', 'America/New_York'],
											  ARRAY[5, 2, 3]), is_local);
	PERFORM fuzz.make_tables(seed, round);
END $$;

-- One round: new tables, then n queries of random kinds (or all of kind
-- only_kind)
CREATE FUNCTION fuzz.run_round(seed int, round int, n int DEFAULT 10, only_kind text DEFAULT NULL) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
	kind text;
	g record;
	c record;
	i int;
	bad int := 0;
	force bool;
	t0 timestamptz;
	sizes int[];
BEGIN
	PERFORM fuzz.setup_round(seed, round);
	SELECT ARRAY[(SELECT count(*) FROM fuzz.l), (SELECT count(*) FROM fuzz.r),
				 (SELECT count(*) FROM fuzz.w)] INTO sizes;
	FOR i IN 1 .. n LOOP
		-- planner switches, the same for both runs
		-- often PostgreSQL's own join methods are all disabled, so that the
		-- node wins wherever it applies (tiny tables favour nested loops)
		force := fuzz.chance(0.6);
		PERFORM set_config('enable_nestloop', CASE WHEN force OR fuzz.chance(0.3) THEN 'off' ELSE 'on' END, true);
		PERFORM set_config('enable_hashjoin', CASE WHEN force OR fuzz.chance(0.3) THEN 'off' ELSE 'on' END, true);
		PERFORM set_config('enable_mergejoin', CASE WHEN force OR fuzz.chance(0.3) THEN 'off' ELSE 'on' END, true);
		PERFORM set_config('enable_hashagg', CASE WHEN fuzz.chance(0.15) THEN 'off' ELSE 'on' END, true);
		PERFORM set_config('enable_sort', CASE WHEN fuzz.chance(0.05) THEN 'off' ELSE 'on' END, true);
		t0 := clock_timestamp();
		kind := fuzz.wpick(ARRAY['window_join', 'interval', 'asof', 'window_agg', 'session_agg', 'topn'],
						   ARRAY[30, 26, 26, 11, 7, 8]);

		IF only_kind IS NOT NULL THEN
			kind := only_kind;
		END IF;
		EXECUTE format('SELECT * FROM fuzz.gen_%s()', kind) INTO g;
		IF g.prep IS NOT NULL THEN
			EXECUTE g.prep;
		END IF;
		c := fuzz.compare(g.q, g.q, g.oracle);
		INSERT INTO fuzz.log VALUES (seed, round, i, kind, g.near, force, c.used, c.outcome, c.detail,
									 g.prep, g.q, g.oracle,
									 round(extract(epoch FROM clock_timestamp() - t0) * 1000, 1), sizes);
		IF c.outcome = 'MISMATCH' THEN
			bad := bad + 1;
			RAISE WARNING 'fuzz mismatch (seed %, round %, query %): %', seed, round, i, c.detail
				USING DETAIL = g.q;
		END IF;
	END LOOP;
	RETURN bad;
END $$;

-- Per query kind: queries, near misses, outcomes, and how many used the
-- kind's node, among all queries and among the recognised shapes
CREATE FUNCTION fuzz.summary()
RETURNS TABLE (kind text, queries bigint, nearmiss bigint, errors bigint, oracle bigint,
			   reordered bigint, mismatches bigint, node text, used bigint, pct numeric, shapes bigint,
			   shapes_used bigint, shapes_pct numeric)
LANGUAGE sql AS $$
	SELECT l.kind, count(*), count(*) FILTER (WHERE l.nearmiss),
		   count(*) FILTER (WHERE l.outcome LIKE 'same-error%' OR l.outcome = 'error-vs-empty'),
		   count(*) FILTER (WHERE l.outcome = 'same-oracle'),
		   count(*) FILTER (WHERE l.outcome LIKE '%reordered' OR l.outcome = 'error-vs-empty'),
		   count(*) FILTER (WHERE l.outcome = 'MISMATCH'),
		   n.node,
		   count(*) FILTER (WHERE l.used LIKE '%' || n.node || '%'),
		   round(100.0 * count(*) FILTER (WHERE l.used LIKE '%' || n.node || '%') / count(*), 1),
		   count(*) FILTER (WHERE NOT l.nearmiss),
		   count(*) FILTER (WHERE NOT l.nearmiss AND l.used LIKE '%' || n.node || '%'),
		   round(100.0 * count(*) FILTER (WHERE NOT l.nearmiss AND l.used LIKE '%' || n.node || '%')
				 / nullif(count(*) FILTER (WHERE NOT l.nearmiss), 0), 1)
	FROM fuzz.log l,
		 LATERAL (SELECT CASE l.kind WHEN 'asof' THEN 'AsOfJoin' WHEN 'nearest' THEN 'AsOfJoin' WHEN 'interval' THEN 'IntervalJoin'
									 WHEN 'window_join' THEN 'WindowJoin' WHEN 'window_agg' THEN 'WindowExpand'
									 WHEN 'tumble_agg' THEN 'TumbleAgg' WHEN 'topn' THEN 'WindowTopN'
									 WHEN 'cascade' THEN 'TumbleAgg'
									 ELSE 'PlanChanged' END AS node) n
	GROUP BY l.kind, n.node ORDER BY l.kind
$$;

-- How many queries ran on an empty or a one-row table
CREATE FUNCTION fuzz.input_sizes()
RETURNS TABLE (l_or_r_empty bigint, l_or_r_one_row bigint, both_over_one bigint, w_empty bigint)
LANGUAGE sql AS $$
	SELECT count(*) FILTER (WHERE 0 IN (sizes[1], sizes[2])),
		   count(*) FILTER (WHERE 1 IN (sizes[1], sizes[2])),
		   count(*) FILTER (WHERE sizes[1] > 1 AND sizes[2] > 1),
		   count(*) FILTER (WHERE sizes[3] = 0)
	FROM fuzz.log
$$;
