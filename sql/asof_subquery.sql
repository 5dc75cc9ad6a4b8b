--
-- AsOfJoin: the node reads a rewritten copy of the LATERAL subquery, and at
-- plan creation that copy's planner state replaces the subquery relation's
-- (asof_plan.c, asof_adopt_rewritten_subquery): PostgreSQL finds the
-- SubqueryScan's subplan through the relation's subroot (setrefs.c,
-- subselect.c) and names its columns from the range table entry (EXPLAIN).
-- These cases fail if that stops holding: the added columns' names in
-- EXPLAIN VERBOSE, generic and re-planned prepared statements, the idiom
-- twice in a query and through a view used twice, rescans, and plans
-- shipped to a parallel worker.
--
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
CREATE SCHEMA asof_subquery;
SET search_path = asof_subquery, public;
-- small tables: make the node win over PostgreSQL's nested loop
SET enable_nestloop = off;

CREATE TABLE rates (currency text, rate numeric, update_time timestamp,
                    src text);
CREATE TABLE orders (order_id int, currency text, amount numeric,
                     order_time timestamp);
INSERT INTO rates VALUES
  ('USD', 1300, '2024-01-01 09:00', 'a'),
  ('USD', 1310, '2024-01-01 10:00', 'b'),
  ('USD', 1320, '2024-01-01 11:00', 'a'),
  ('EUR', 1400, '2024-01-01 09:30', 'a'),
  ('EUR', 1410, '2024-01-01 10:30', 'b'),
  ('JPY', 9.0,  '2024-01-01 09:00', 'b'),
  ('JPY', 9.1,  '2024-01-01 12:00', 'a');
INSERT INTO orders VALUES
  (1, 'USD',   10, '2024-01-01 08:59'),
  (2, 'USD',   20, '2024-01-01 10:00'),
  (3, 'EUR',    5, '2024-01-01 10:29'),
  (4, 'JPY', 1000, '2024-01-01 11:00'),
  (5, 'EUR',    7, '2024-01-01 11:00'),
  (6, 'usd',    3, '2024-01-01 12:00'),
  (7, 'GBP',    1, '2024-01-01 12:00');
ANALYZE rates;
ANALYZE orders;

\set ECHO none
\i sql/include/helpers.sql
\set ECHO all

--
-- EXPLAIN VERBOSE names the columns the rewritten subquery adds: the key
-- and time (not output by the subquery) after their columns, an expression
-- key as asof_key1.  The inner SubqueryScan's output and the node's
-- conditions refer to them.
--
EXPLAIN (VERBOSE, COSTS OFF)
SELECT o.order_id, r.rate
FROM orders o
JOIN LATERAL (
  SELECT rate FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC LIMIT 1) r ON true;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT o.order_id, r.rate, r.src
FROM orders o
LEFT JOIN LATERAL (
  SELECT rate, src FROM rates r
  WHERE upper(r.currency) = upper(o.currency)
    AND r.update_time >= o.order_time AND r.src <> 'x'
  ORDER BY r.update_time LIMIT 1) r ON true;
SELECT o.order_id, r.rate, r.src
FROM orders o
LEFT JOIN LATERAL (
  SELECT rate, src FROM rates r
  WHERE upper(r.currency) = upper(o.currency)
    AND r.update_time >= o.order_time AND r.src <> 'x'
  ORDER BY r.update_time LIMIT 1) r ON true
ORDER BY o.order_id;
SELECT wj_test.on_off($q$
SELECT o.order_id, r.rate, r.src
FROM orders o
LEFT JOIN LATERAL (
  SELECT rate, src FROM rates r
  WHERE upper(r.currency) = upper(o.currency)
    AND r.update_time >= o.order_time AND r.src <> 'x'
  ORDER BY r.update_time LIMIT 1) r ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:');

--
-- The idiom twice in one query: two subquery relations, each replaced by
-- its own rewritten copy (backward and forward, different columns added).
--
EXPLAIN (VERBOSE, COSTS OFF)
SELECT o.order_id, b.rate AS before_rate, a.rate AS after_rate
FROM orders o
LEFT JOIN LATERAL (
  SELECT rate FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC LIMIT 1) b ON true
LEFT JOIN LATERAL (
  SELECT rate, update_time FROM rates r
  WHERE r.currency = o.currency AND r.update_time > o.order_time
  ORDER BY r.update_time LIMIT 1) a ON true;
SELECT o.order_id, b.rate AS before_rate, a.rate AS after_rate
FROM orders o
LEFT JOIN LATERAL (
  SELECT rate FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC LIMIT 1) b ON true
LEFT JOIN LATERAL (
  SELECT rate, update_time FROM rates r
  WHERE r.currency = o.currency AND r.update_time > o.order_time
  ORDER BY r.update_time LIMIT 1) a ON true
ORDER BY o.order_id;
SELECT wj_test.on_off($q$
SELECT o.order_id, b.rate AS before_rate, a.rate AS after_rate
FROM orders o
LEFT JOIN LATERAL (
  SELECT rate FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC LIMIT 1) b ON true
LEFT JOIN LATERAL (
  SELECT rate, update_time FROM rates r
  WHERE r.currency = o.currency AND r.update_time > o.order_time
  ORDER BY r.update_time LIMIT 1) a ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:');

--
-- A view over the idiom, used twice in one query (two expansions of the
-- same subquery, each its own relation)
--
CREATE VIEW order_rates AS
SELECT o.order_id, o.currency, o.amount, r.rate
FROM orders o
LEFT JOIN LATERAL (
  SELECT rate FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC LIMIT 1) r ON true;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT * FROM order_rates;
SELECT * FROM order_rates ORDER BY order_id;
SELECT wj_test.on_off($q$
SELECT x.order_id, x.rate, y.order_id AS other, y.rate AS other_rate
FROM order_rates x JOIN order_rates y ON y.currency = x.currency
  AND y.order_id <> x.order_id
$q$, 'asof_join', 'AsOfJoin|Strategy:');
SELECT wj_test.on_off($q$
SELECT * FROM order_rates UNION ALL SELECT * FROM order_rates
$q$, 'asof_join', 'AsOfJoin|Strategy:');

--
-- Prepared statements: a generic plan executed with different parameters,
-- then re-planned after invalidations (an index on the versions, a column
-- added to them); each planning starts from the original subquery.
--
PREPARE p(numeric, text) AS
SELECT o.order_id, r.rate, r.update_time
FROM orders o
JOIN LATERAL (
  SELECT rate, update_time FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
    AND r.rate > $1
  ORDER BY r.update_time DESC LIMIT 1) r ON true
WHERE o.currency <> $2
ORDER BY o.order_id;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (VERBOSE, COSTS OFF) EXECUTE p(1305, 'JPY');
EXECUTE p(1305, 'JPY');
EXECUTE p(0, 'EUR');
CREATE INDEX rates_cur_time ON rates (currency, update_time);
EXECUTE p(1305, 'JPY');
ALTER TABLE rates ADD COLUMN extra int;
EXPLAIN (VERBOSE, COSTS OFF) EXECUTE p(1305, 'JPY');
EXECUTE p(1305, 'JPY');
EXECUTE p(0, 'EUR');
RESET plan_cache_mode;
DEALLOCATE p;
-- the same through a PL/pgSQL function, whose plan is cached too
CREATE FUNCTION rate_total(min_rate numeric) RETURNS numeric
LANGUAGE plpgsql AS $$
BEGIN
  RETURN (SELECT sum(o.amount * r.rate)
          FROM orders o
          JOIN LATERAL (
            SELECT rate FROM rates r
            WHERE r.currency = o.currency AND r.update_time <= o.order_time
              AND r.rate > min_rate
            ORDER BY r.update_time DESC LIMIT 1) r ON true);
END $$;
SELECT rate_total(0), rate_total(1305), rate_total(0);
ALTER TABLE rates DROP COLUMN extra;
SELECT rate_total(0), rate_total(1305);

--
-- Rescans: the node inside a correlated subquery, run once per outer row
--
EXPLAIN (COSTS OFF)
SELECT c.currency,
       (SELECT sum(o.amount * r.rate)
        FROM orders o
        JOIN LATERAL (
          SELECT rate FROM rates r
          WHERE r.currency = o.currency AND r.update_time <= o.order_time
          ORDER BY r.update_time DESC LIMIT 1) r ON true
        WHERE o.currency = c.currency) AS total
FROM (VALUES ('USD'), ('EUR'), ('JPY'), ('GBP')) c(currency);
SELECT wj_test.on_off($q$
SELECT c.currency,
       (SELECT sum(o.amount * r.rate)
        FROM orders o
        JOIN LATERAL (
          SELECT rate FROM rates r
          WHERE r.currency = o.currency AND r.update_time <= o.order_time
          ORDER BY r.update_time DESC LIMIT 1) r ON true
        WHERE o.currency = c.currency) AS total
FROM (VALUES ('USD'), ('EUR'), ('JPY'), ('GBP')) c(currency)
$q$, 'asof_join', 'AsOfJoin|Strategy:');

--
-- A plan shipped to a parallel worker (as text, read back there): the
-- subquery's range table and the node's private data survive the trip
--
SET :parallel_guc = on;
EXPLAIN (COSTS OFF)
SELECT o.order_id, r.rate
FROM orders o
LEFT JOIN LATERAL (
  SELECT rate FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC LIMIT 1) r ON true;
SELECT o.order_id, r.rate
FROM orders o
LEFT JOIN LATERAL (
  SELECT rate FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC LIMIT 1) r ON true
ORDER BY o.order_id;
SELECT * FROM order_rates ORDER BY order_id;
RESET :parallel_guc;

RESET enable_nestloop;
RESET search_path;
DROP SCHEMA asof_subquery CASCADE;
