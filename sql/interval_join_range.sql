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

\set ECHO none
\i sql/include/helpers.sql
\set ECHO all

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
      result := wj_test.on_off(format(
        'SELECT b.v AS bv, s.v AS sv FROM %s b %s JOIN %s s ON b.k = s.k AND %s',
        btab, j, stab, f.band), 'interval_join', 'IntervalJoin|Scan on');
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
SELECT wj_test.on_off($$SELECT b.v AS bv, s.v AS sv FROM small s JOIN big_end b
  ON b.t BETWEEN s.t - interval '-5 minutes' AND s.t + interval '-1 second'$$, 'interval_join', 'IntervalJoin|Scan on') AS no_keys_inner;
SELECT wj_test.on_off($$SELECT b.v AS bv, s.v AS sv FROM big_end b JOIN small s
  ON s.t BETWEEN b.t - interval '-5 minutes' AND b.t + interval '-1 second'$$, 'interval_join', 'IntervalJoin|Scan on') AS no_keys_inner_other;
-- a cheaper qual of one side first: it decides for every pair
SELECT wj_test.on_off($$SELECT b.v AS bv, s.v AS sv FROM big b RIGHT JOIN small_near s
  ON s.n + 5 > b.n AND s.n <= b.n + 30 AND s.v > 2$$, 'interval_join', 'IntervalJoin|Scan on') AS cheap_qual_false_near_end;
SELECT wj_test.on_off($$SELECT b.v AS bv, s.v AS sv FROM big b RIGHT JOIN small_near s
  ON s.n + 5 > b.n AND s.n <= b.n + 30 AND s.v < -21$$, 'interval_join', 'IntervalJoin|Scan on') AS cheap_qual_true_near_end;
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
