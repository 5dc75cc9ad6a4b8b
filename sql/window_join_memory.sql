--
-- The WindowJoin node keeps the rows of its open window(s) within
-- work_mem x hash_mem_multiplier at run time, spilling a window that does
-- not fit (window_join_spill tests that).  The planner's estimate of that
-- state (rows per window from the time column's statistics x bytes per
-- row, both sides) is a cost input: beyond the limit the path is still
-- offered, costed as spilling, and competes with PostgreSQL's own plan.
-- Without statistics nothing is estimated.  Every query gives the same
-- rows with the node on and off.
--
SET TimeZone = 'UTC';
SET datestyle = 'ISO, YMD';
SET IntervalStyle = 'postgres';

CREATE FUNCTION wjm_check(v text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  used boolean := false;
  line text;
  n bigint;
  only_on bigint;
  only_off bigint;
BEGIN
  PERFORM set_config('windowjoin.enable_window_join', 'on', true);
  FOR line IN EXECUTE format('EXPLAIN (COSTS OFF) SELECT * FROM %s', v) LOOP
    IF line LIKE '%Custom Scan (WindowJoin)%' THEN used := true; END IF;
  END LOOP;
  EXECUTE format('CREATE TEMP TABLE wjm_on AS SELECT * FROM %s', v);
  PERFORM set_config('windowjoin.enable_window_join', 'off', true);
  FOR line IN EXECUTE format('EXPLAIN (COSTS OFF) SELECT * FROM %s', v) LOOP
    IF line LIKE '%WindowJoin%' THEN RAISE EXCEPTION 'WindowJoin used while disabled'; END IF;
  END LOOP;
  EXECUTE format('CREATE TEMP TABLE wjm_off AS SELECT * FROM %s', v);
  PERFORM set_config('windowjoin.enable_window_join', 'on', true);
  SELECT count(*) INTO n FROM wjm_off;
  SELECT count(*) INTO only_on FROM (SELECT * FROM wjm_on EXCEPT ALL SELECT * FROM wjm_off) d;
  SELECT count(*) INTO only_off FROM (SELECT * FROM wjm_off EXCEPT ALL SELECT * FROM wjm_on) d;
  DROP TABLE wjm_on;
  DROP TABLE wjm_off;
  RETURN format('node used: %s, rows: %s, only with node: %s, only without: %s',
                used, n, only_on, only_off);
END $$;

-- One day of events per side, 100000 rows each (about 4170 an hour)
CREATE TABLE mem_l (k int, ts timestamp, v int);
CREATE TABLE mem_r (k int, ts timestamp, v int);
INSERT INTO mem_l SELECT i % 5000, timestamp '2024-01-01' + i * interval '864 ms', i
  FROM generate_series(0, 99999) i;
INSERT INTO mem_r SELECT (i * 7) % 5000, timestamp '2024-01-01' + i * interval '864 ms' + interval '123 ms', i
  FROM generate_series(0, 99999) i;
ANALYZE mem_l, mem_r;

-- The same rows without statistics (autovacuum must not analyze them)
CREATE TABLE mem_l_nostats (k int, ts timestamp, v int) WITH (autovacuum_enabled = false);
CREATE TABLE mem_r_nostats (k int, ts timestamp, v int) WITH (autovacuum_enabled = false);
INSERT INTO mem_l_nostats SELECT * FROM mem_l;
INSERT INTO mem_r_nostats SELECT * FROM mem_r;

-- hash memory limit 128kB; about 120 bytes per buffered row
SET work_mem = '64kB';
SET hash_mem_multiplier = 2.0;

CREATE VIEW tum_1h AS
SELECT L.k, L.window_start, L.v AS lv, R.v AS rv
FROM (SELECT * FROM mem_l, tumble(ts, interval '1 hour')) L
JOIN (SELECT * FROM mem_r, tumble(ts, interval '1 hour')) R
  ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end;
CREATE VIEW tum_2m AS
SELECT L.k, L.window_start, L.v AS lv, R.v AS rv
FROM (SELECT * FROM mem_l, tumble(ts, interval '2 minutes')) L
JOIN (SELECT * FROM mem_r, tumble(ts, interval '2 minutes')) R
  ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end;
CREATE VIEW tum_1h_nostats AS
SELECT L.k, L.window_start, L.v AS lv, R.v AS rv
FROM (SELECT * FROM mem_l_nostats, tumble(ts, interval '1 hour')) L
JOIN (SELECT * FROM mem_r_nostats, tumble(ts, interval '1 hour')) R
  ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end;
CREATE VIEW hop_1h AS
SELECT L.k, L.window_start, L.v AS lv, R.v AS rv
FROM (SELECT * FROM mem_l, hop(ts, interval '10 minutes', interval '1 hour')) L
JOIN (SELECT * FROM mem_r, hop(ts, interval '10 minutes', interval '1 hour')) R
  ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end;
CREATE VIEW hop_2m AS
SELECT L.k, L.window_start, L.v AS lv, R.v AS rv
FROM (SELECT * FROM mem_l, hop(ts, interval '1 minute', interval '2 minutes')) L
JOIN (SELECT * FROM mem_r, hop(ts, interval '1 minute', interval '2 minutes')) R
  ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end;
CREATE VIEW cum_1h AS
SELECT L.k, L.window_end, L.v AS lv, R.v AS rv
FROM (SELECT * FROM mem_l, cumulate(ts, interval '20 minutes', interval '1 hour')) L
JOIN (SELECT * FROM mem_r, cumulate(ts, interval '20 minutes', interval '1 hour')) R
  ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end;
CREATE VIEW cum_2m AS
SELECT L.k, L.window_end, L.v AS lv, R.v AS rv
FROM (SELECT * FROM mem_l, cumulate(ts, interval '1 minute', interval '2 minutes')) L
JOIN (SELECT * FROM mem_r, cumulate(ts, interval '1 minute', interval '2 minutes')) R
  ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end;

-- an hour's rows (about 8300 on the two sides) do not fit: the node would
-- spill, and PostgreSQL's merge join is cheaper (wjm_check looks for the
-- node in EXPLAIN; PostgreSQL's own plan is not shown, its shape depends on
-- the sampled statistics)
SELECT wjm_check('tum_1h');
-- two minutes' rows (about 280) do
EXPLAIN (COSTS OFF) SELECT * FROM tum_2m;
SELECT wjm_check('tum_2m');
-- without statistics nothing is known: the node is offered, and spills at
-- run time if it must
EXPLAIN (COSTS OFF) SELECT * FROM tum_1h_nostats;
SELECT wjm_check('tum_1h_nostats');
-- HOP and CUMULATE: the rows of one window (of size "size") are kept; an
-- hour's HOP windows spill, but re-reading them still beats PostgreSQL's
-- join of six times the rows
SELECT wjm_check('hop_1h');
SELECT wjm_check('hop_2m');
SELECT wjm_check('cum_1h');
SELECT wjm_check('cum_2m');
-- CUMULATE's small windows lose to PostgreSQL's joins on cost; with those
-- disabled the node is chosen, also where it is expected to spill (plans
-- only, not run)
CREATE FUNCTION wjm_uses(v text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  FOR line IN EXECUTE format('EXPLAIN (COSTS OFF) SELECT * FROM %s', v) LOOP
    IF line LIKE '%Custom Scan (WindowJoin)%' THEN RETURN true; END IF;
  END LOOP;
  RETURN false;
END $$;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_nestloop = off;
SELECT wjm_uses('cum_1h') AS cum_1h, wjm_uses('cum_2m') AS cum_2m,
       wjm_uses('hop_1h') AS hop_1h, wjm_uses('tum_1h') AS tum_1h;
-- a HOP whose rows would each be in more windows than
-- windowjoin.max_windows_per_row gets no path (hop_1h: 6 windows a row), so
-- PostgreSQL's plan raises the error at its first row, before any sort.
-- (With PostgreSQL's joins disabled cum_1h still gets a WindowJoin: on its
-- window_start alone, a TUMBLE of the size in GROUP mode, with the
-- cumulate() function scans above it, which raise the error.)
SET windowjoin.max_windows_per_row = 5;
SELECT wjm_uses('hop_1h') AS hop_1h, wjm_uses('cum_1h') AS cum_1h;
SELECT count(*) FROM hop_1h;
SET windowjoin.max_windows_per_row = 2;
SELECT wjm_uses('hop_1h') AS hop_1h, wjm_uses('cum_1h') AS cum_1h;
SELECT count(*) FROM cum_1h;
SET windowjoin.max_windows_per_row = 6;
SELECT wjm_uses('hop_1h') AS hop_1h, wjm_uses('cum_1h') AS cum_1h;
RESET windowjoin.max_windows_per_row;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_nestloop;

-- with more memory the hour's windows fit
SET work_mem = '4MB';
EXPLAIN (COSTS OFF) SELECT * FROM tum_1h;
SELECT wjm_check('tum_1h');
-- ... and the limit is work_mem x hash_mem_multiplier
SET work_mem = '512kB';
SET hash_mem_multiplier = 1.0;
SELECT wjm_check('tum_1h');
SET hash_mem_multiplier = 4.0;
SELECT wjm_check('tum_1h');

RESET work_mem;
RESET hash_mem_multiplier;
DROP VIEW tum_1h, tum_2m, tum_1h_nostats, hop_1h, hop_2m, cum_1h, cum_2m;
DROP TABLE mem_l, mem_r, mem_l_nostats, mem_r_nostats;
DROP FUNCTION wjm_check(text);
DROP FUNCTION wjm_uses(text);
