--
-- AsOfJoin: event-time temporal joins written as the LATERAL "latest
-- version at that time" idiom, on the example data:
-- orders and a history of exchange rates.
--
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
SET extra_float_digits = 0;
-- Small tables: PostgreSQL would rightly keep its nested loop; make the
-- node win so that its results can be compared with the nested loop's.
SET enable_nestloop = off;

CREATE TABLE rates (currency text, rate numeric, update_time timestamp);
CREATE TABLE orders (order_id int, currency text, amount numeric,
                     order_time timestamp);
INSERT INTO rates VALUES
  ('USD', 1300, '2024-01-01 09:00:00'),
  ('USD', 1310, '2024-01-01 10:00:00'),
  ('USD', 1320, '2024-01-01 11:00:00'),
  ('EUR', 1400, '2024-01-01 09:30:00'),
  ('EUR', 1410, '2024-01-01 10:30:00'),
  ('JPY', 9.0,  '2024-01-01 09:00:00'),
  ('JPY', 9.1,  '2024-01-01 12:00:00');
INSERT INTO orders VALUES
  (1, 'USD',   10, '2024-01-01 08:59:59'),  -- before the first USD rate
  (2, 'USD',   20, '2024-01-01 10:00:00'),  -- same second as a rate change
  (3, 'EUR',    5, '2024-01-01 10:29:59'),
  (4, 'JPY', 1000, '2024-01-01 11:00:00'),
  (5, 'EUR',    7, '2024-01-01 11:00:00'),
  (6, 'USD',    3, '2024-01-01 12:00:00'),
  (7, 'GBP',    1, '2024-01-01 12:00:00'),  -- no GBP rate at all
  (8, 'JPY',  500, '2024-01-01 08:00:00');  -- before the first JPY rate
ANALYZE rates;
ANALYZE orders;

\set ECHO none
\i sql/include/helpers.sql
\set ECHO all

--
-- The example.  Each order gets the latest rate with update_time <=
-- order_time: order 2 (10:00:00) uses the rate changed at 10:00:00; orders 1
-- and 8 come before the first rate of their currency and order 7 has no
-- rate: they drop out of the inner join.
--
EXPLAIN (COSTS OFF)
SELECT o.order_id, o.amount * r.rate AS amount_krw
FROM orders o
JOIN LATERAL (
  SELECT rate FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC
  LIMIT 1) r ON true;

SELECT o.order_id, o.currency, o.order_time, r.rate, r.update_time,
       o.amount * r.rate AS amount_krw
FROM orders o
JOIN LATERAL (
  SELECT rate, update_time FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC
  LIMIT 1) r ON true
ORDER BY o.order_id;

SELECT wj_test.on_off($q$
SELECT o.order_id, o.amount * r.rate AS amount_krw
FROM orders o
JOIN LATERAL (
  SELECT rate FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC
  LIMIT 1) r ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:');

-- LEFT JOIN LATERAL keeps the orders without a version, with NULLs
EXPLAIN (COSTS OFF)
SELECT o.order_id, r.rate
FROM orders o
LEFT JOIN LATERAL (
  SELECT rate FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC
  LIMIT 1) r ON true;

SELECT o.order_id, o.currency, o.order_time, r.rate, r.update_time
FROM orders o
LEFT JOIN LATERAL (
  SELECT rate, update_time FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC
  LIMIT 1) r ON true
ORDER BY o.order_id;

SELECT wj_test.on_off($q$
SELECT o.*, r.*
FROM orders o
LEFT JOIN LATERAL (
  SELECT rate, update_time FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC
  LIMIT 1) r ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:');

-- The point of a temporal join: the deduplicated "latest rate" view joined without the
-- time condition is a regular join, and its total differs.
CREATE VIEW rates_v AS
SELECT currency, rate, update_time
FROM (SELECT *, row_number() OVER (PARTITION BY currency
                                   ORDER BY update_time DESC) AS rn
      FROM rates) t
WHERE rn = 1;

SELECT 'temporal' AS join_kind, sum(o.amount * r.rate) AS total_krw
FROM orders o
JOIN LATERAL (
  SELECT rate FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC
  LIMIT 1) r ON true
UNION ALL
SELECT 'regular (latest rate view)', sum(o.amount * v.rate)
FROM orders o JOIN rates_v v ON v.currency = o.currency;

-- USD alone
SELECT 'temporal' AS join_kind, sum(o.amount * r.rate) AS usd_total_krw
FROM orders o
JOIN LATERAL (
  SELECT rate FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC
  LIMIT 1) r ON true
WHERE o.currency = 'USD'
UNION ALL
SELECT 'regular (latest rate view)', sum(o.amount * v.rate)
FROM orders o JOIN rates_v v ON v.currency = o.currency
WHERE o.currency = 'USD';

-- EXPLAIN ANALYZE shows the state: the lookup strategy holds the 7 versions
-- (the sweep, see asof_join_lookup, would hold one per currency)
SELECT * FROM wj_test.explain_analyze($q$
SELECT o.order_id, r.rate
FROM orders o
JOIN LATERAL (
  SELECT rate FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC
  LIMIT 1) r ON true
$q$);

--
-- The four directions
--
-- strictly before: the rate changed at 10:00:00 is not used by order 2
SELECT o.order_id, r.rate, r.update_time
FROM orders o
JOIN LATERAL (
  SELECT rate, update_time FROM rates r
  WHERE r.currency = o.currency AND r.update_time < o.order_time
  ORDER BY r.update_time DESC
  LIMIT 1) r ON true
ORDER BY o.order_id;
SELECT wj_test.on_off($q$
SELECT o.order_id, r.rate, r.update_time
FROM orders o
JOIN LATERAL (
  SELECT rate, update_time FROM rates r
  WHERE r.currency = o.currency AND r.update_time < o.order_time
  ORDER BY r.update_time DESC
  LIMIT 1) r ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:');

-- forward: the earliest version at or after the order
EXPLAIN (COSTS OFF)
SELECT o.order_id, r.rate
FROM orders o
JOIN LATERAL (
  SELECT rate FROM rates r
  WHERE r.currency = o.currency AND r.update_time >= o.order_time
  ORDER BY r.update_time
  LIMIT 1) r ON true;
SELECT o.order_id, r.rate, r.update_time
FROM orders o
LEFT JOIN LATERAL (
  SELECT rate, update_time FROM rates r
  WHERE r.currency = o.currency AND r.update_time >= o.order_time
  ORDER BY r.update_time
  LIMIT 1) r ON true
ORDER BY o.order_id;
SELECT wj_test.on_off($q$
SELECT o.order_id, r.rate, r.update_time
FROM orders o
LEFT JOIN LATERAL (
  SELECT rate, update_time FROM rates r
  WHERE r.currency = o.currency AND r.update_time >= o.order_time
  ORDER BY r.update_time
  LIMIT 1) r ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:');

-- strictly after, written with the outer side on the left
SELECT o.order_id, r.rate, r.update_time
FROM orders o
JOIN LATERAL (
  SELECT rate, update_time FROM rates r
  WHERE o.currency = r.currency AND o.order_time < r.update_time
  ORDER BY r.update_time ASC
  LIMIT 1) r ON true
ORDER BY o.order_id;
SELECT wj_test.on_off($q$
SELECT o.order_id, r.rate, r.update_time
FROM orders o
JOIN LATERAL (
  SELECT rate, update_time FROM rates r
  WHERE o.currency = r.currency AND o.order_time < r.update_time
  ORDER BY r.update_time ASC
  LIMIT 1) r ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:');

--
-- Tolerance: a version older than one hour is too old
--
EXPLAIN (COSTS OFF)
SELECT o.order_id, r.rate
FROM orders o
LEFT JOIN LATERAL (
  SELECT rate FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
    AND r.update_time >= o.order_time - interval '1 hour'
  ORDER BY r.update_time DESC
  LIMIT 1) r ON true;
SELECT o.order_id, o.order_time, r.rate, r.update_time
FROM orders o
LEFT JOIN LATERAL (
  SELECT rate, update_time FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
    AND r.update_time >= o.order_time - interval '1 hour'
  ORDER BY r.update_time DESC
  LIMIT 1) r ON true
ORDER BY o.order_id;
SELECT wj_test.on_off($q$
SELECT o.order_id, r.rate
FROM orders o
LEFT JOIN LATERAL (
  SELECT rate FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
    AND r.update_time >= o.order_time - interval '1 hour'
  ORDER BY r.update_time DESC
  LIMIT 1) r ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:');
-- the same with BETWEEN, strict bound, and forward with a tolerance
SELECT wj_test.on_off($q$
SELECT o.order_id, r.rate
FROM orders o
JOIN LATERAL (
  SELECT rate FROM rates r
  WHERE r.currency = o.currency
    AND r.update_time BETWEEN o.order_time - interval '30 minutes' AND o.order_time
  ORDER BY r.update_time DESC
  LIMIT 1) r ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:');
SELECT wj_test.on_off($q$
SELECT o.order_id, r.rate
FROM orders o
JOIN LATERAL (
  SELECT rate FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
    AND r.update_time > o.order_time - interval '1 hour'
  ORDER BY r.update_time DESC
  LIMIT 1) r ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:');
SELECT wj_test.on_off($q$
SELECT o.order_id, r.rate
FROM orders o
LEFT JOIN LATERAL (
  SELECT rate FROM rates r
  WHERE r.currency = o.currency AND r.update_time >= o.order_time
    AND r.update_time <= o.order_time + interval '1 hour'
  ORDER BY r.update_time
  LIMIT 1) r ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:');

--
-- Extra filters: on the versions inside the subquery (before LIMIT 1),
-- and on the result outside it (after LIMIT 1) -- not the same thing.
--
SELECT wj_test.on_off($q$
SELECT o.order_id, r.rate
FROM orders o
LEFT JOIN LATERAL (
  SELECT rate FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
    AND r.rate < 1315 AND r.currency <> 'JPY'
  ORDER BY r.update_time DESC
  LIMIT 1) r ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:');
SELECT wj_test.on_off($q$
SELECT o.order_id, r.rate
FROM orders o
JOIN LATERAL (
  SELECT rate FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC
  LIMIT 1) r ON true
WHERE r.rate < 1315 AND o.amount * r.rate > 1000
$q$, 'asof_join', 'AsOfJoin|Strategy:');
-- a LEFT join's ON condition decides the match, the WHERE filters rows
SELECT o.order_id, r.rate
FROM orders o
LEFT JOIN LATERAL (
  SELECT rate FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC
  LIMIT 1) r ON r.rate > 1305 AND o.amount > 4
ORDER BY o.order_id;
SELECT wj_test.on_off($q$
SELECT o.order_id, r.rate
FROM orders o
LEFT JOIN LATERAL (
  SELECT rate FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC
  LIMIT 1) r ON r.rate > 1305 AND o.amount > 4
$q$, 'asof_join', 'AsOfJoin|Strategy:');
SELECT wj_test.on_off($q$
SELECT o.order_id, r.rate
FROM orders o
LEFT JOIN LATERAL (
  SELECT rate FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC
  LIMIT 1) r ON true
WHERE r.rate IS NULL OR r.rate > 1305
$q$, 'asof_join', 'AsOfJoin|Strategy:');

--
-- NULLs never match: orders with a NULL key or time, versions with a NULL
-- key or time.  LEFT keeps such orders with NULLs.  (A version whose rate
-- is NULL is still a version: order 5 now gets the EUR version of 10:45.)
--
INSERT INTO orders VALUES (9, NULL, 1, '2024-01-01 12:00:00'),
                          (10, 'USD', 1, NULL);
INSERT INTO rates VALUES (NULL, 1, '2024-01-01 09:00:00'),
                         ('USD', 2, NULL),
                         ('EUR', NULL, '2024-01-01 10:45:00');
SELECT o.order_id, o.currency, o.order_time, r.rate, r.update_time
FROM orders o
LEFT JOIN LATERAL (
  SELECT rate, update_time FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC
  LIMIT 1) r ON true
ORDER BY o.order_id;
SELECT wj_test.on_off($q$
SELECT o.order_id, r.rate, r.update_time
FROM orders o
LEFT JOIN LATERAL (
  SELECT rate, update_time FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC
  LIMIT 1) r ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:');
SELECT wj_test.on_off($q$
SELECT o.order_id, r.rate, r.update_time
FROM orders o
JOIN LATERAL (
  SELECT rate, update_time FROM rates r
  WHERE r.currency = o.currency AND r.update_time >= o.order_time
  ORDER BY r.update_time
  LIMIT 1) r ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:');

--
-- Zero keys, and an integer "time" (a version number)
--
CREATE TABLE releases (version int, name text);
CREATE TABLE builds (build_id int, built_against int);
INSERT INTO releases VALUES (1, 'one'), (3, 'three'), (7, 'seven'), (10, 'ten');
INSERT INTO builds SELECT g, g FROM generate_series(0, 12) g;
SELECT b.build_id, r.version, r.name
FROM builds b
LEFT JOIN LATERAL (
  SELECT version, name FROM releases r
  WHERE r.version <= b.built_against
  ORDER BY r.version DESC LIMIT 1) r ON true
ORDER BY b.build_id;
SELECT wj_test.on_off($q$
SELECT b.build_id, r.version, r.name
FROM builds b
LEFT JOIN LATERAL (
  SELECT version, name FROM releases r
  WHERE r.version <= b.built_against
  ORDER BY r.version DESC LIMIT 1) r ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:');
SELECT wj_test.on_off($q$
SELECT b.build_id, r.name
FROM builds b, LATERAL (
  SELECT name FROM releases r
  WHERE r.version > b.built_against
  ORDER BY r.version LIMIT 1) r
$q$, 'asof_join', 'AsOfJoin|Strategy:');

--
-- Several keys of different types (int8 against int4, text), a
-- timestamptz time, and a timestamptz key
--
CREATE TABLE prices (store_id bigint, sku text, batch timestamptz,
                     valid_from timestamptz, price numeric);
CREATE TABLE sales (sale_id int, store_id int, sku text, batch timestamptz,
                    sold_at timestamptz);
INSERT INTO prices
SELECT s, 'sku' || k, '2024-01-01'::timestamptz + (k % 2) * interval '1 day',
       '2024-01-01 00:00+00'::timestamptz + v * interval '37 minutes' + s * interval '1 minute',
       s * 100 + k * 10 + v
FROM generate_series(1, 3) s, generate_series(1, 4) k, generate_series(0, 9) v;
INSERT INTO sales
SELECT g, 1 + g % 4, 'sku' || (1 + g % 5),
       '2024-01-01'::timestamptz + (g % 3) * interval '1 day',
       '2024-01-01 00:00+00'::timestamptz + g * interval '7 minutes'
FROM generate_series(1, 60) g;
SELECT wj_test.on_off($q$
SELECT s.sale_id, p.price, p.valid_from
FROM sales s
LEFT JOIN LATERAL (
  SELECT price, valid_from FROM prices p
  WHERE p.store_id = s.store_id AND p.sku = s.sku
    AND p.valid_from <= s.sold_at
  ORDER BY p.valid_from DESC LIMIT 1) p ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:');
SELECT wj_test.on_off($q$
SELECT s.sale_id, p.price
FROM sales s
JOIN LATERAL (
  SELECT price FROM prices p
  WHERE p.sku = s.sku AND p.batch = s.batch AND p.store_id = s.store_id
    AND p.valid_from < s.sold_at
  ORDER BY p.valid_from DESC LIMIT 1) p ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:');
EXPLAIN (COSTS OFF)
SELECT s.sale_id, p.price
FROM sales s
JOIN LATERAL (
  SELECT price FROM prices p
  WHERE p.sku = s.sku AND p.batch = s.batch AND p.store_id = s.store_id
    AND p.valid_from < s.sold_at
  ORDER BY p.valid_from DESC LIMIT 1) p ON true;
-- timestamp on one side, timestamptz on the other (cross-type comparison)
SELECT wj_test.on_off($q$
SELECT o.order_id, r.rate
FROM orders o
LEFT JOIN LATERAL (
  SELECT rate FROM rates r
  WHERE r.currency = o.currency
    AND r.update_time::timestamptz <= o.order_time
  ORDER BY r.update_time::timestamptz DESC LIMIT 1) r ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:');

--
-- Ties: several versions with the same key and time.  PostgreSQL's LIMIT 1
-- picks any of them; the node documents its rule: the version whose output
-- row sorts last (ascending, NULLs last), in both directions.
--
CREATE TABLE tied (k text, t int, v int, note text);
INSERT INTO tied VALUES ('a', 1, 10, 'x'), ('a', 1, 30, 'y'), ('a', 1, 20, 'z'),
                        ('a', 5, 1, 'p'), ('a', 5, 1, NULL);
CREATE TABLE probes (k text, t int);
INSERT INTO probes VALUES ('a', 0), ('a', 1), ('a', 3), ('a', 5), ('a', 6);
SELECT p.t, x.v, x.note
FROM probes p
LEFT JOIN LATERAL (
  SELECT v, note FROM tied x WHERE x.k = p.k AND x.t <= p.t
  ORDER BY x.t DESC LIMIT 1) x ON true
ORDER BY p.t;
SELECT p.t, x.v, x.note
FROM probes p
LEFT JOIN LATERAL (
  SELECT v, note FROM tied x WHERE x.k = p.k AND x.t >= p.t
  ORDER BY x.t LIMIT 1) x ON true
ORDER BY p.t;

--
-- Shapes that are not the idiom (or not exactly): no node, PostgreSQL's plan
--
SELECT wj_test.uses($q$
SELECT * FROM orders o JOIN LATERAL (
  SELECT rate FROM rates r WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC LIMIT 2) r ON true$q$, 'AsOfJoin') AS limit_2,
       wj_test.uses($q$
SELECT * FROM orders o JOIN LATERAL (
  SELECT rate FROM rates r WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC) r ON true$q$, 'AsOfJoin') AS no_limit,
       wj_test.uses($q$
SELECT * FROM orders o JOIN LATERAL (
  SELECT rate FROM rates r WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time ASC LIMIT 1) r ON true$q$, 'AsOfJoin') AS wrong_direction,
       wj_test.uses($q$
SELECT * FROM orders o JOIN LATERAL (
  SELECT rate FROM rates r WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.rate DESC LIMIT 1) r ON true$q$, 'AsOfJoin') AS order_by_other,
       wj_test.uses($q$
SELECT * FROM orders o JOIN LATERAL (
  SELECT rate FROM rates r WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC, r.rate LIMIT 1) r ON true$q$, 'AsOfJoin') AS two_sort_keys,
       wj_test.uses($q$
SELECT * FROM orders o JOIN LATERAL (
  SELECT rate FROM rates r WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC LIMIT 1 OFFSET 1) r ON true$q$, 'AsOfJoin') AS with_offset;
SELECT wj_test.uses($q$
SELECT * FROM orders o JOIN LATERAL (
  SELECT rate * o.amount FROM rates r WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC LIMIT 1) r ON true$q$, 'AsOfJoin') AS outer_ref_in_select,
       wj_test.uses($q$
SELECT * FROM orders o JOIN LATERAL (
  SELECT rate FROM rates r WHERE (r.currency = o.currency OR r.currency = 'USD') AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC LIMIT 1) r ON true$q$, 'AsOfJoin') AS or_condition,
       wj_test.uses($q$
SELECT * FROM orders o JOIN LATERAL (
  SELECT rate FROM rates r WHERE r.currency <> o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC LIMIT 1) r ON true$q$, 'AsOfJoin') AS not_equal_key,
       wj_test.uses($q$
SELECT * FROM orders o JOIN LATERAL (
  SELECT rate FROM rates r WHERE r.currency = o.currency AND r.update_time <= o.order_time
    AND random() < 2
  ORDER BY r.update_time DESC LIMIT 1) r ON true$q$, 'AsOfJoin') AS volatile,
       wj_test.uses($q$
SELECT * FROM orders o JOIN LATERAL (
  SELECT r.rate FROM rates r JOIN orders o2 ON o2.order_id = 1
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC LIMIT 1) r ON true$q$, 'AsOfJoin') AS two_relations,
       wj_test.uses($q$
SELECT * FROM orders o JOIN LATERAL (
  SELECT rate FROM rates r WHERE r.currency = o.currency AND r.update_time <= o.order_time
    AND o.amount > 1
  ORDER BY r.update_time DESC LIMIT 1) r ON true$q$, 'AsOfJoin') AS outer_only_filter,
       wj_test.uses($q$
SELECT * FROM orders o JOIN LATERAL (
  SELECT rate FROM rates r WHERE r.currency = o.currency
  ORDER BY r.update_time DESC LIMIT 1) r ON true$q$, 'AsOfJoin') AS no_time_condition;
SELECT wj_test.uses($q$
SELECT * FROM orders o JOIN LATERAL (
  SELECT rate FROM rates r WHERE r.currency = o.currency AND r.update_time <= o.order_time
    AND r.update_time <= o.order_time + interval '1 day'
  ORDER BY r.update_time DESC LIMIT 1) r ON true$q$, 'AsOfJoin') AS two_upper_bounds,
       wj_test.uses($q$
SELECT * FROM orders o JOIN LATERAL (
  SELECT DISTINCT rate, update_time FROM rates r WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC LIMIT 1) r ON true$q$, 'AsOfJoin') AS with_distinct,
       wj_test.uses($q$
SELECT * FROM orders o JOIN LATERAL (
  SELECT rate FROM rates r WHERE r.currency = o.currency COLLATE "C" AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC LIMIT 1) r ON true$q$, 'AsOfJoin') AS other_collation,
       wj_test.uses($q$
SELECT * FROM orders o RIGHT JOIN LATERAL (
  SELECT rate FROM rates r WHERE r.update_time <= now()
  ORDER BY r.update_time DESC LIMIT 1) r ON r.rate > o.amount$q$, 'AsOfJoin') AS uncorrelated;
-- a whole-row reference to the subquery is left to PostgreSQL
SELECT wj_test.uses($q$
SELECT o.order_id, r FROM orders o JOIN LATERAL (
  SELECT rate FROM rates r WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC LIMIT 1) r ON true$q$, 'AsOfJoin') AS whole_row,
       wj_test.uses($q$
SELECT o.order_id FROM orders o LEFT JOIN LATERAL (
  SELECT rate FROM rates r WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC LIMIT 1) r ON r IS NOT NULL$q$, 'AsOfJoin') AS whole_row_in_on;
SET windowjoin.enable_asof_join = off;
SELECT wj_test.uses($q$
SELECT * FROM orders o JOIN LATERAL (
  SELECT rate FROM rates r WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC LIMIT 1) r ON true$q$, 'AsOfJoin') AS guc_off;
RESET windowjoin.enable_asof_join;

--
-- Cursors (a scroll cursor gets a Material node: the node scans forward)
--
BEGIN;
DECLARE c CURSOR FOR
SELECT o.order_id, r.rate
FROM orders o
JOIN LATERAL (
  SELECT rate FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC LIMIT 1) r ON true
ORDER BY o.currency, o.order_time;
FETCH 2 FROM c;
FETCH 2 FROM c;
FETCH ALL FROM c;
CLOSE c;
DECLARE s SCROLL CURSOR FOR
SELECT o.order_id, r.rate
FROM orders o
JOIN LATERAL (
  SELECT rate FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC LIMIT 1) r ON true;
FETCH 3 FROM s;
FETCH BACKWARD 2 FROM s;
FETCH ALL FROM s;
CLOSE s;
COMMIT;

--
-- Inside a correlated subquery: the node is rescanned per outer row
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
SELECT c.currency,
       (SELECT sum(o.amount * r.rate)
        FROM orders o
        JOIN LATERAL (
          SELECT rate FROM rates r
          WHERE r.currency = o.currency AND r.update_time <= o.order_time
          ORDER BY r.update_time DESC LIMIT 1) r ON true
        WHERE o.currency = c.currency) AS total
FROM (VALUES ('USD'), ('EUR'), ('JPY'), ('GBP')) c(currency)
ORDER BY 1;
SELECT wj_test.on_off($q$
SELECT c.currency,
       (SELECT sum(o.amount * r.rate)
        FROM orders o
        LEFT JOIN LATERAL (
          SELECT rate FROM rates r
          WHERE r.currency = o.currency AND r.update_time <= o.order_time
          ORDER BY r.update_time DESC LIMIT 1) r ON true
        WHERE o.amount > c.min_amount AND o.order_time >= c.since) AS total
FROM (VALUES ('USD', 1, timestamp '2024-01-01 00:00'),
             ('EUR', 5, timestamp '2024-01-01 10:00')) c(currency, min_amount, since)
$q$, 'asof_join', 'AsOfJoin|Strategy:');
-- a reference to the query two levels up inside the version subquery is
-- not handled: PostgreSQL's plan
SELECT wj_test.uses($q$
SELECT c.currency,
       (SELECT sum(o.amount * r.rate)
        FROM orders o
        JOIN LATERAL (
          SELECT rate FROM rates r
          WHERE r.currency = o.currency AND r.update_time <= o.order_time
            AND r.update_time >= c.since
          ORDER BY r.update_time DESC LIMIT 1) r ON true) AS total
FROM (VALUES ('USD', timestamp '2024-01-01 00:00'),
             ('EUR', timestamp '2024-01-01 10:00')) c(currency, since)
$q$, 'AsOfJoin') AS upper_level_reference;

-- in a sub-select of an UPDATE, and as the source of an INSERT
CREATE TABLE totals (currency text, total numeric);
INSERT INTO totals VALUES ('USD', 0), ('EUR', 0), ('JPY', 0), ('GBP', 0);
EXPLAIN (COSTS OFF)
UPDATE totals t SET total = (
  SELECT sum(o.amount * r.rate)
  FROM orders o
  JOIN LATERAL (
    SELECT rate FROM rates r
    WHERE r.currency = o.currency AND r.update_time <= o.order_time
    ORDER BY r.update_time DESC LIMIT 1) r ON true
  WHERE o.currency = t.currency);
UPDATE totals t SET total = (
  SELECT sum(o.amount * r.rate)
  FROM orders o
  JOIN LATERAL (
    SELECT rate FROM rates r
    WHERE r.currency = o.currency AND r.update_time <= o.order_time
    ORDER BY r.update_time DESC LIMIT 1) r ON true
  WHERE o.currency = t.currency);
INSERT INTO totals
SELECT 'all', sum(o.amount * r.rate)
FROM orders o
JOIN LATERAL (
  SELECT rate FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC LIMIT 1) r ON true;
SELECT * FROM totals ORDER BY currency;

-- parameters of a prepared statement inside the subquery
PREPARE p(numeric) AS
SELECT o.order_id, r.rate
FROM orders o
JOIN LATERAL (
  SELECT rate FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
    AND r.rate > $1
  ORDER BY r.update_time DESC LIMIT 1) r ON true
ORDER BY o.order_id;
EXECUTE p(1305);
SET plan_cache_mode = force_generic_plan;
EXECUTE p(1305);
RESET plan_cache_mode;
DEALLOCATE p;

-- a security-barrier view as the version table
CREATE VIEW rates_sb WITH (security_barrier) AS
  SELECT * FROM rates WHERE currency <> 'JPY';
SELECT wj_test.on_off($q$
SELECT o.order_id, r.rate
FROM orders o
LEFT JOIN LATERAL (
  SELECT rate FROM rates_sb r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC LIMIT 1) r ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:');

-- a partitioned version table
CREATE TABLE rates_p (currency text, rate numeric, update_time timestamp)
  PARTITION BY LIST (currency);
CREATE TABLE rates_p_usd PARTITION OF rates_p FOR VALUES IN ('USD');
CREATE TABLE rates_p_other PARTITION OF rates_p DEFAULT;
INSERT INTO rates_p SELECT * FROM rates;
ANALYZE rates_p;
SELECT wj_test.on_off($q$
SELECT o.order_id, r.rate, r.update_time
FROM orders o
LEFT JOIN LATERAL (
  SELECT rate, update_time FROM rates_p r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC LIMIT 1) r ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:');

--
-- Row-level security and column privileges on the version table
--
CREATE ROLE asof_reader;
CREATE ROLE asof_nocol;
GRANT SELECT ON orders TO asof_reader, asof_nocol;
GRANT SELECT ON rates TO asof_reader;
GRANT SELECT (currency, update_time) ON rates TO asof_nocol;
ALTER TABLE rates ENABLE ROW LEVEL SECURITY;
-- the reader does not see the 10:00 USD version
CREATE POLICY hide_ten ON rates FOR SELECT TO asof_reader
  USING (update_time IS DISTINCT FROM '2024-01-01 10:00:00');
CREATE POLICY all_rows ON rates FOR SELECT TO asof_nocol USING (true);
SET ROLE asof_reader;
EXPLAIN (COSTS OFF)
SELECT o.order_id, r.rate
FROM orders o
JOIN LATERAL (
  SELECT rate FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC LIMIT 1) r ON true;
SELECT o.order_id, r.rate, r.update_time
FROM orders o
JOIN LATERAL (
  SELECT rate, update_time FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC LIMIT 1) r ON true
ORDER BY o.order_id;
SELECT wj_test.on_off($q$
SELECT o.order_id, r.rate, r.update_time
FROM orders o
JOIN LATERAL (
  SELECT rate, update_time FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC LIMIT 1) r ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:');
RESET ROLE;
SET ROLE asof_nocol;
-- no SELECT on rates.rate: an error, node or not
SELECT o.order_id, r.rate
FROM orders o
JOIN LATERAL (
  SELECT rate FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC LIMIT 1) r ON true;
SET windowjoin.enable_asof_join = off;
SELECT o.order_id, r.rate
FROM orders o
JOIN LATERAL (
  SELECT rate FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC LIMIT 1) r ON true;
RESET windowjoin.enable_asof_join;
-- the granted columns are fine
SELECT wj_test.on_off($q$
SELECT o.order_id, r.update_time
FROM orders o
JOIN LATERAL (
  SELECT update_time FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC LIMIT 1) r ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:');
RESET ROLE;
ALTER TABLE rates DISABLE ROW LEVEL SECURITY;
DROP POLICY hide_ten ON rates;
DROP POLICY all_rows ON rates;
REVOKE ALL ON orders, rates FROM asof_reader, asof_nocol;
DROP ROLE asof_reader;
DROP ROLE asof_nocol;

--
-- Cost: PostgreSQL keeps its indexed nested loop for a few orders, the
-- node wins for many
--
RESET enable_nestloop;
CREATE TABLE big_rates (currency text, rate float8, update_time timestamp);
INSERT INTO big_rates
SELECT 'C' || (g % 50), 1 + (g % 997) / 1000.0,
       '2024-01-01'::timestamp + g * interval '1 second'
FROM generate_series(1, 20000) g;
CREATE INDEX ON big_rates (currency, update_time);
CREATE TABLE few_orders AS
SELECT g AS order_id, 'C' || (g % 50) AS currency, g::float8 AS amount,
       '2024-01-01'::timestamp + g * interval '7 seconds' AS order_time
FROM generate_series(1, 50) g;
CREATE TABLE many_orders AS
SELECT g AS order_id, 'C' || (g % 50) AS currency, g::float8 AS amount,
       '2024-01-01'::timestamp + (g % 25000) * interval '1 second' AS order_time
FROM generate_series(1, 30000) g;
ANALYZE big_rates;
ANALYZE few_orders;
ANALYZE many_orders;
SELECT wj_test.on_off($q$
SELECT o.order_id, r.rate
FROM few_orders o
JOIN LATERAL (
  SELECT rate FROM big_rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC LIMIT 1) r ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:') AS few_orders;
SELECT wj_test.on_off($q$
SELECT o.order_id, r.rate
FROM many_orders o
JOIN LATERAL (
  SELECT rate FROM big_rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC LIMIT 1) r ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:') AS many_orders;
SELECT wj_test.on_off($q$
SELECT sum(o.amount::numeric * r.rate::numeric)
FROM many_orders o
LEFT JOIN LATERAL (
  SELECT rate FROM big_rates r
  WHERE r.currency = o.currency AND r.update_time >= o.order_time
  ORDER BY r.update_time LIMIT 1) r ON true
$q$, 'asof_join', 'AsOfJoin|Strategy:') AS many_orders_forward;

--
-- The merge strategy: keys of different types (int4 against int8) are not
-- hashed; both inputs are then sorted by (keys, time) and merged.  The same
-- directions, tolerances, NULLs and join filters again.
--
SET enable_nestloop = off;
CREATE TABLE rates_m AS
SELECT (ascii(currency) * 1000 + ascii(substr(currency, 2)))::int8 AS cur,
       rate, update_time
FROM rates;
CREATE TABLE orders_m AS
SELECT order_id, (ascii(currency) * 1000 + ascii(substr(currency, 2)))::int4 AS cur,
       amount, order_time
FROM orders;
ANALYZE rates_m;
ANALYZE orders_m;
EXPLAIN (COSTS OFF)
SELECT o.order_id, r.rate
FROM orders_m o
JOIN LATERAL (
  SELECT rate FROM rates_m r
  WHERE r.cur = o.cur AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC LIMIT 1) r ON true;
SELECT x.direction, wj_test.on_off(format($q$
SELECT o.order_id, r.rate, r.update_time
FROM orders_m o
LEFT JOIN LATERAL (
  SELECT rate, update_time FROM rates_m r
  WHERE r.cur = o.cur AND r.update_time %s o.order_time %s
  ORDER BY r.update_time %s LIMIT 1) r ON %s
$q$, d.op, d.extra, d.dir, d.joinqual), 'asof_join', 'AsOfJoin|Strategy:')
FROM (VALUES ('<=', '', 'DESC', 'true'),
             ('<', '', 'DESC', 'true'),
             ('>=', '', 'ASC', 'true'),
             ('>', '', 'ASC', 'true'),
             ('<=', $$AND r.update_time >= o.order_time - interval '1 hour'$$, 'DESC', 'true'),
             ('>=', $$AND r.update_time < o.order_time + interval '2 hours'$$, 'ASC', 'true'),
             ('<=', '', 'DESC', 'r.rate > 1305'),
             ('>=', '', 'ASC', 'o.amount > 5')) d(op, extra, dir, joinqual),
     LATERAL (SELECT d.op || ' ' || d.dir || CASE WHEN d.extra <> '' THEN ' tolerance' ELSE '' END
                     || CASE WHEN d.joinqual <> 'true' THEN ' ON ' || d.joinqual ELSE '' END AS direction) x
ORDER BY 1;
-- and the same with inner joins
SELECT d.op, wj_test.on_off(format($q$
SELECT o.order_id, r.rate, r.update_time
FROM orders_m o
JOIN LATERAL (
  SELECT rate, update_time FROM rates_m r
  WHERE r.cur = o.cur AND r.update_time %s o.order_time
  ORDER BY r.update_time %s LIMIT 1) r ON true
$q$, d.op, d.dir), 'asof_join', 'AsOfJoin|Strategy:')
FROM (VALUES ('<=', 'DESC'), ('<', 'DESC'), ('>=', 'ASC'), ('>', 'ASC')) d(op, dir)
ORDER BY 1;
-- ties with the merge strategy follow the same rule
CREATE TABLE tied_m AS SELECT 1::int8 AS k, t, v, note FROM tied;
CREATE TABLE probes_m AS SELECT 1::int4 AS k, t FROM probes;
SELECT p.t, x.v, x.note
FROM probes_m p
LEFT JOIN LATERAL (
  SELECT v, note FROM tied_m x WHERE x.k = p.k AND x.t <= p.t
  ORDER BY x.t DESC LIMIT 1) x ON true
ORDER BY p.t;
SELECT p.t, x.v, x.note
FROM probes_m p
LEFT JOIN LATERAL (
  SELECT v, note FROM tied_m x WHERE x.k = p.k AND x.t >= p.t
  ORDER BY x.t LIMIT 1) x ON true
ORDER BY p.t;
