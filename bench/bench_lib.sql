-- Shared by the benchmark scripts: time a query inside the server and
-- check that two formulations give the same answer.
--
-- wj_bench(label, query, runs): runs the query once to warm up, then `runs`
-- times, and records the median wall time (ms) and the query's first
-- column of its first row (a checksum) in wj_bench_results.
CREATE TABLE IF NOT EXISTS wj_bench_results
  (label text PRIMARY KEY, median_ms float8, checksum text);

CREATE OR REPLACE FUNCTION wj_bench(p_label text, p_query text, p_runs int DEFAULT 3)
RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
  t0 timestamptz;
  times float8[] := '{}';
  chk text;
  m float8;
BEGIN
  EXECUTE p_query INTO chk;				-- warm-up, and the checksum
  FOR i IN 1 .. p_runs LOOP
    t0 := clock_timestamp();
    EXECUTE p_query INTO chk;
    times := times || (extract(epoch FROM clock_timestamp() - t0) * 1000)::float8;
  END LOOP;
  SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) INTO m FROM unnest(times) x;
  INSERT INTO wj_bench_results AS r VALUES (p_label, m, chk)
    ON CONFLICT (label) DO UPDATE SET median_ms = excluded.median_ms, checksum = excluded.checksum;
  RAISE NOTICE '%: % ms (checksum %)', p_label, round(m::numeric, 1), chk;
  RETURN m;
END $$;

-- wj_ratio(a, b): how many times faster a is than b, with both checksums
CREATE OR REPLACE FUNCTION wj_ratio(a text, b text)
RETURNS TABLE (faster text, slower text, faster_ms numeric, slower_ms numeric,
               speedup numeric, same_result boolean)
LANGUAGE sql AS $$
  SELECT a, b, round(x.median_ms::numeric, 1), round(y.median_ms::numeric, 1),
         round((y.median_ms / x.median_ms)::numeric, 2), x.checksum = y.checksum
  FROM wj_bench_results x, wj_bench_results y
  WHERE x.label = a AND y.label = b
$$;

-- wj_bench_run(query, runs, slow_ms, alone_ms): used by scripts/bench.  Runs
-- the query once to warm up (its first column of its first row is the
-- checksum), then `runs` times -- or only once when the warm-up took longer
-- than slow_ms, or not again (runs = 0: the warm-up is the one measurement)
-- when it took longer than alone_ms, so that a very slow alternative does not
-- blow the time budget (the caller reports the number of runs it got).
-- Returns the median of the timed runs (ms, measured in the server with clock_timestamp()), every time, and
-- this backend's peak resident memory so far (VmHWM) and its resident
-- shared memory at the end (RssShmem), both in kB from /proc/self/status.
CREATE OR REPLACE FUNCTION wj_bench_run(p_query text, p_runs int, p_slow_ms float8,
  p_alone_ms float8,
  OUT median_ms float8, OUT runs int, OUT warmup_ms float8, OUT times text,
  OUT checksum text, OUT vm_hwm_kb bigint, OUT rss_shmem_kb bigint)
LANGUAGE plpgsql AS $$
DECLARE
  t0 timestamptz;
  t float8[] := '{}';
  st text;
BEGIN
  t0 := clock_timestamp();
  EXECUTE p_query INTO checksum;
  warmup_ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
  runs := CASE WHEN warmup_ms > p_alone_ms THEN 0
               WHEN warmup_ms > p_slow_ms THEN 1 ELSE p_runs END;
  IF runs = 0 THEN
    t := ARRAY[warmup_ms];
  END IF;
  FOR i IN 1 .. runs LOOP
    t0 := clock_timestamp();
    EXECUTE p_query INTO checksum;
    t := t || (extract(epoch FROM clock_timestamp() - t0) * 1000)::float8;
  END LOOP;
  SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) INTO median_ms FROM unnest(t) x;
  times := array_to_string(ARRAY(SELECT round(x::numeric, 1) FROM unnest(t) x), ' ');
  st := pg_read_file('/proc/self/status');
  vm_hwm_kb := substring(st FROM 'VmHWM:\s*(\d+)')::bigint;
  rss_shmem_kb := substring(st FROM 'RssShmem:\s*(\d+)')::bigint;
END $$;
