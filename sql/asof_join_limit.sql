--
-- AsOfJoin under a LIMIT: the lookup strategy answers outer rows in
-- batches that start at one row and double up to 128, so a LIMIT above
-- the node reads few more outer rows than it returns.
--
SET TimeZone = 'UTC';
\set ECHO none
\i sql/include/helpers.sql
\set ECHO all

CREATE SCHEMA asof_limit;
SET search_path = asof_limit, public;
SET enable_nestloop = off;
SET jit = off;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE vers (k int, t int, v int);
INSERT INTO vers SELECT g % 40, g, g FROM generate_series(1, 4000) g;
CREATE TABLE obs (id int, k int, t int);
INSERT INTO obs SELECT g, g % 40, 100 + g FROM generate_series(1, 2000) g;
ANALYZE vers;
ANALYZE obs;

-- the outer rows read (actual rows of the outer scan) per LIMIT
CREATE FUNCTION outer_read(lim int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  line text;
  strategy text;
  scanned text;
BEGIN
  FOR line IN SELECT l FROM wj_test.explain(format($q$
    SELECT o.id, r.v FROM obs o
    JOIN LATERAL (SELECT v FROM vers r WHERE r.k = o.k AND r.t <= o.t
                  ORDER BY r.t DESC LIMIT 1) r ON true
    LIMIT %s$q$, lim), 'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF') l LOOP
    IF line LIKE '%Strategy:%' THEN
      strategy := btrim(line);
    ELSIF line LIKE '%Seq Scan on obs%' THEN
      scanned := substring(line from 'actual rows=(\d+)');
    END IF;
  END LOOP;
  RETURN format('LIMIT %s: %s outer rows read, %s', lim, scanned, strategy);
END $$;
SELECT outer_read(1);
SELECT outer_read(2);
SELECT outer_read(5);
SELECT outer_read(100);
SELECT outer_read(1000);

-- the rows are those of the node-off plan
CREATE TABLE r_on AS
SELECT o.id, r.v FROM obs o
JOIN LATERAL (SELECT v FROM vers r WHERE r.k = o.k AND r.t <= o.t
              ORDER BY r.t DESC LIMIT 1) r ON true;
SET windowjoin.enable_asof_join = off;
CREATE TABLE r_off AS
SELECT o.id, r.v FROM obs o
JOIN LATERAL (SELECT v FROM vers r WHERE r.k = o.k AND r.t <= o.t
              ORDER BY r.t DESC LIMIT 1) r ON true;
RESET windowjoin.enable_asof_join;
SELECT (SELECT count(*) FROM r_on) AS rows_on,
       (SELECT count(*) FROM (SELECT * FROM r_on EXCEPT ALL SELECT * FROM r_off) x) AS only_on,
       (SELECT count(*) FROM (SELECT * FROM r_off EXCEPT ALL SELECT * FROM r_on) x) AS only_off;
-- a cursor fetching a few rows at a time reads along
BEGIN;
DECLARE c CURSOR FOR
SELECT o.id, r.v FROM obs o
JOIN LATERAL (SELECT v FROM vers r WHERE r.k = o.k AND r.t <= o.t
              ORDER BY r.t DESC LIMIT 1) r ON true;
FETCH 3 FROM c;
MOVE FORWARD 1000 FROM c;
FETCH 2 FROM c;
COMMIT;

RESET max_parallel_workers_per_gather;
RESET jit;
RESET enable_nestloop;
RESET search_path;
DROP SCHEMA asof_limit CASCADE;
