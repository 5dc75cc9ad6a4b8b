--
-- IntervalJoin near the ends of the time range.  The node normalises the
-- band to "inner.t between outer.t + lo and outer.t + hi" whichever side
-- the query shifts; PostgreSQL computes only the expressions the query
-- contains (b.t + interval '1 hour'), and only for the pairs it compares.
-- An out-of-range band end of the node's own is the open end it denotes,
-- and a pair near an end is checked with the band as written, so the rows
-- and the errors are PostgreSQL's, whichever side is outer.
--
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
CREATE SCHEMA ij_range;
SET search_path = ij_range, public;
SET client_min_messages = warning;
SET jit = off;

-- big and small sides, so that either one can be the node's outer side
CREATE TABLE big (k int, t timestamp, n int8, m int4, v int);
INSERT INTO big
SELECT g % 5, timestamp '2024-01-01' + g * interval '1 minute', g, g, g
FROM generate_series(1, 3000) g;
CREATE TABLE small (k int, t timestamp, n int8, m int4, v int);
INSERT INTO small
SELECT g % 5, timestamp '2024-01-01' + g * interval '37 minutes', g * 37, g * 37, g
FROM generate_series(1, 60) g;
-- rows near the end: key 9 has nobody to meet on the other side, key 1
-- has partners far away (2024) and, in *_near, close by
CREATE TABLE big_end AS SELECT * FROM big;
INSERT INTO big_end VALUES
  (9, '294276-12-31 23:30', 9223372036854775800, 2147483640, -1),
  (1, '294276-12-31 23:30', 9223372036854775800, 2147483640, -2),
  (NULL, '294276-12-31 23:59', 9223372036854775807, 2147483647, -3);
CREATE TABLE small_end AS SELECT * FROM small;
INSERT INTO small_end VALUES
  (9, '294276-12-31 23:00', 9223372036854775790, 2147483630, -11),
  (1, '294276-12-31 23:00', 9223372036854775790, 2147483630, -12);
CREATE TABLE small_near AS SELECT * FROM small_end;
INSERT INTO small_near VALUES
  (1, '294276-12-31 22:50', 9223372036854775780, 2147483620, -21),
  (2, '294276-12-31 23:59:59', 9223372036854775807, 2147483647, -22);
ANALYZE big; ANALYZE small; ANALYZE big_end; ANALYZE small_end; ANALYZE small_near;

CREATE FUNCTION j_run(q text, OUT n bigint, OUT err text) LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE 'CREATE TEMP TABLE j_res AS ' || q;
  SELECT count(*) INTO n FROM j_res;
EXCEPTION WHEN OTHERS THEN
  err := SQLERRM;
END $$;
-- q with the node on and off: the same rows or the same error; which
-- side the node has outer
CREATE FUNCTION j_check(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  a record; b record; d1 bigint := 0; d2 bigint := 0;
  line text; outer_side text := 'node not used'; seen bool := false;
BEGIN
  PERFORM set_config('windowjoin.enable_interval_join', 'on', true);
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF line LIKE '%IntervalJoin%' THEN
      seen := true;
    ELSIF seen AND outer_side = 'node not used' AND line ~ 'Scan on' THEN
      outer_side := 'outer ' || substring(line from 'Scan on (\w+)');
    END IF;
  END LOOP;
  SELECT * INTO a FROM j_run(q);
  IF a.err IS NULL THEN ALTER TABLE j_res RENAME TO j_on; END IF;
  PERFORM set_config('windowjoin.enable_interval_join', 'off', true);
  SELECT * INTO b FROM j_run(q);
  IF b.err IS NULL THEN ALTER TABLE j_res RENAME TO j_off; END IF;
  PERFORM set_config('windowjoin.enable_interval_join', 'on', true);
  IF a.err IS NULL AND b.err IS NULL THEN
    SELECT count(*) INTO d1 FROM (SELECT * FROM j_on EXCEPT ALL SELECT * FROM j_off) x;
    SELECT count(*) INTO d2 FROM (SELECT * FROM j_off EXCEPT ALL SELECT * FROM j_on) x;
  END IF;
  DROP TABLE IF EXISTS j_on, j_off;
  IF a.err IS NOT DISTINCT FROM b.err AND a.n IS NOT DISTINCT FROM b.n AND d1 = 0 AND d2 = 0 THEN
    RETURN coalesce(a.n || ' rows', 'error: ' || a.err) || ', same as node off, ' || outer_side;
  END IF;
  RETURN format('DIFFERENT: on %s / off %s (%s/%s rows differ), %s',
                coalesce(a.n || ' rows', a.err), coalesce(b.n || ' rows', b.err), d1, d2, outer_side);
END $$;

-- the band on the small side's time or on the big side's, every join type
CREATE FUNCTION j_matrix(btab text, stab text) RETURNS TABLE (variant text, result text)
LANGUAGE plpgsql AS $$
DECLARE
  f record;
  j text;
BEGIN
  FOR f IN
    SELECT * FROM (VALUES
      ('b.t in s.t +- 1h', $x$b.t BETWEEN s.t - interval '1 hour' AND s.t + interval '1 hour'$x$),
      ('s.t in b.t +- 1h', $x$s.t BETWEEN b.t - interval '1 hour' AND b.t + interval '1 hour'$x$),
      ('s.t in [b.t, b.t + 1d)', $x$s.t >= b.t AND s.t < b.t + interval '1 day'$x$),
      ('b.t + 2h > s.t >= b.t - 1h', $x$b.t + interval '2 hours' > s.t AND b.t - interval '1 hour' <= s.t$x$),
      ('s.n in b.n +- 30', 's.n BETWEEN b.n - 30 AND b.n + 30'),
      ('b.n in s.n + [0, 40]', 'b.n BETWEEN s.n AND s.n + 40'),
      ('s.m in b.m +- 30', 's.m BETWEEN b.m - 30 AND b.m + 30')) v(name, band)
  LOOP
    FOREACH j IN ARRAY ARRAY['INNER', 'LEFT', 'RIGHT', 'FULL'] LOOP
      variant := f.name || ' ' || lower(j);
      result := j_check(format(
        'SELECT b.v AS bv, s.v AS sv FROM %s b %s JOIN %s s ON b.k = s.k AND %s',
        btab, j, stab, f.band));
      RETURN NEXT;
    END LOOP;
  END LOOP;
END $$;

SET enable_nestloop = off;
SET enable_hashjoin = off;
SET enable_mergejoin = on;
SELECT * FROM j_matrix('big', 'small');
SELECT * FROM j_matrix('big_end', 'small');
SELECT * FROM j_matrix('big_end', 'small_end');
SELECT * FROM j_matrix('big_end', 'small_near');
SELECT * FROM j_matrix('big', 'small_near');
-- no keys: every pair is compared, also after the inner side is consumed
SELECT j_check($$SELECT b.v AS bv, s.v AS sv FROM small s JOIN big_end b
  ON b.t BETWEEN s.t - interval '-5 minutes' AND s.t + interval '-1 second'$$) AS no_keys_inner;
SELECT j_check($$SELECT b.v AS bv, s.v AS sv FROM big_end b JOIN small s
  ON s.t BETWEEN b.t - interval '-5 minutes' AND b.t + interval '-1 second'$$) AS no_keys_inner_other;
-- a cheaper qual of one side first: it decides for every pair
SELECT j_check($$SELECT b.v AS bv, s.v AS sv FROM big b RIGHT JOIN small_near s
  ON s.n + 5 > b.n AND s.n <= b.n + 30 AND s.v > 2$$) AS cheap_qual_false_near_end;
SELECT j_check($$SELECT b.v AS bv, s.v AS sv FROM big b RIGHT JOIN small_near s
  ON s.n + 5 > b.n AND s.n <= b.n + 30 AND s.v < -21$$) AS cheap_qual_true_near_end;
-- PostgreSQL's hash join compares the same pairs
SET enable_hashjoin = on;
SET enable_mergejoin = off;
SELECT * FROM j_matrix('big_end', 'small_end');
RESET enable_mergejoin;
RESET enable_hashjoin;
RESET enable_nestloop;

RESET jit;
RESET client_min_messages;
RESET search_path;
DROP SCHEMA ij_range CASCADE;
