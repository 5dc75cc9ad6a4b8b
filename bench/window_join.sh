#!/usr/bin/env bash
# Benchmark of the WindowJoin custom scan against PostgreSQL's own plan.
#
#   bench/window_join.sh [--quick] [ROWS [KEYS]]
#
# ROWS rows per side (default 1,000,000) with KEYS distinct keys (default
# 100,000), timestamps spread over one day.  Two queries, each run with
# windowjoin.enable_window_join on and off in the same session:
#   (a) 5-minute TUMBLE, FULL OUTER window join
#   (b) 10-minute HOP sliding 1 minute, INNER window join
# For each: the plan the planner picks (node on and off), the time, and a
# checksum of the result, which must agree; a third run ("on, forced")
# disables hash and merge joins so the node runs even where the planner
# prefers PostgreSQL's join on cost.  The peak state from EXPLAIN ANALYZE of
# the node is shown next to the rows of the largest window (both sides).  --quick uses 50,000 rows
# and 5,000 keys.  Needs root on Debian 12 (installs PostgreSQL 15 and the
# build tools if missing); builds and installs the extension under the
# shared install lock and runs in a throwaway cluster.
set -euo pipefail
source "$(dirname "$0")/../scripts/common.sh"

ROWS=1000000
KEYS=100000
REPEAT=2
if [ "${1:-}" = "--quick" ]; then
	ROWS=50000
	KEYS=5000
	REPEAT=3
	shift
fi
ROWS=${1:-$ROWS}
KEYS=${2:-$KEYS}

wj_ensure_deps
wj_lock
wj_build_install

work=$(mktemp -d /tmp/wj-bench.XXXXXX)
chmod 755 "$work"
cat >"$work/bench.sql" <<SQL
\set ON_ERROR_STOP on
\pset footer off
SET TimeZone = 'UTC';
CREATE EXTENSION IF NOT EXISTS windowjoin;
SET max_parallel_workers_per_gather = 0;   -- the node is not parallel-aware; compare like with like

DROP TABLE IF EXISTS bl, br;
CREATE TABLE bl (row_time timestamp, num int, id text);
CREATE TABLE br (row_time timestamp, num int, id text);
SELECT setseed(0.42);
INSERT INTO bl SELECT timestamp '2024-01-01' + random() * interval '1 day',
                      (random() * ($KEYS - 1))::int, 'L' || i
FROM generate_series(1, $ROWS) i;
INSERT INTO br SELECT timestamp '2024-01-01' + random() * interval '1 day',
                      (random() * ($KEYS - 1))::int, 'R' || i
FROM generate_series(1, $ROWS) i;
VACUUM ANALYZE bl;
VACUUM ANALYZE br;

CREATE VIEW q_tumble_full AS
SELECT L.num AS l_num, L.id AS l_id, R.num AS r_num, R.id AS r_id,
       COALESCE(L.window_start, R.window_start) AS window_start,
       COALESCE(L.window_end, R.window_end) AS window_end
FROM (SELECT * FROM bl, tumble(row_time, interval '5 minutes')) L
FULL JOIN (SELECT * FROM br, tumble(row_time, interval '5 minutes')) R
ON L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end;

CREATE VIEW q_hop_inner AS
SELECT L.num AS l_num, L.id AS l_id, R.id AS r_id, L.window_start, L.window_end
FROM (SELECT * FROM bl, hop(row_time, interval '1 minute', interval '10 minutes')) L
JOIN (SELECT * FROM br, hop(row_time, interval '1 minute', interval '10 minutes')) R
ON L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end;

-- run(view, on[, forced]): plan top node, best elapsed ms of $REPEAT runs,
-- checksum.  forced: hash and merge joins disabled, so that the node runs
-- even where the planner prefers PostgreSQL's join on cost.
CREATE FUNCTION run(v text, node_on boolean, forced boolean DEFAULT false,
                    OUT plan text, OUT ms numeric, OUT checksum text)
LANGUAGE plpgsql AS \$\$
DECLARE
  t0 timestamptz;
  el numeric;
  q text := format('SELECT count(*) || '':'' || sum(hashtext(concat_ws(''|'', l_id, r_id, window_start::text))::bigint) FROM %s', v);
  line text;
BEGIN
  PERFORM set_config('windowjoin.enable_window_join', node_on::text, false);
  PERFORM set_config('enable_hashjoin', (NOT forced)::text, false);
  PERFORM set_config('enable_mergejoin', (NOT forced)::text, false);
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) SELECT * FROM ' || v LOOP
    IF line NOT LIKE ' %' OR line LIKE '%->%' THEN
      plan := coalesce(plan || ' / ', '') || trim(replace(line, '->', ''));
      EXIT WHEN plan LIKE '%Join%' OR plan LIKE '%WindowJoin%';
    END IF;
  END LOOP;
  FOR i IN 1..$REPEAT LOOP
    t0 := clock_timestamp();
    EXECUTE q INTO checksum;
    el := extract(epoch FROM clock_timestamp() - t0) * 1000;
    ms := least(coalesce(ms, el), el);
  END LOOP;
  PERFORM set_config('enable_hashjoin', 'on', false);
  PERFORM set_config('enable_mergejoin', 'on', false);
  ms := round(ms);
END \$\$;

CREATE FUNCTION peak_rows(v text) RETURNS text LANGUAGE plpgsql AS \$\$
DECLARE
  line text;
  result text := '';
BEGIN
  PERFORM set_config('windowjoin.enable_window_join', 'on', false);
  PERFORM set_config('enable_hashjoin', 'off', false);
  PERFORM set_config('enable_mergejoin', 'off', false);
  FOR line IN EXECUTE 'EXPLAIN (ANALYZE, TIMING OFF, COSTS OFF) SELECT * FROM ' || v LOOP
    IF line LIKE '%Peak State%' THEN result := result || trim(line) || '  '; END IF;
  END LOOP;
  PERFORM set_config('enable_hashjoin', 'on', false);
  PERFORM set_config('enable_mergejoin', 'on', false);
  RETURN result;
END \$\$;

\echo
\echo === (a) 5-minute TUMBLE, FULL OUTER window join, $ROWS rows per side, $KEYS keys ===
CREATE TEMP TABLE ra AS
SELECT 'on' AS node, * FROM run('q_tumble_full', true)
UNION ALL SELECT 'off', * FROM run('q_tumble_full', false)
UNION ALL SELECT 'on, forced', * FROM run('q_tumble_full', true, true);
SELECT * FROM ra;
SELECT round((SELECT ms FROM ra WHERE node = 'off') / nullif((SELECT ms FROM ra WHERE node = 'on'), 0), 2) AS speedup,
       round((SELECT ms FROM ra WHERE node = 'off') / nullif((SELECT ms FROM ra WHERE node = 'on, forced'), 0), 2) AS speedup_forced,
       (SELECT count(DISTINCT checksum) FROM ra) = 1 AS checksums_agree;
SELECT peak_rows('q_tumble_full') AS node_peak_state;
SELECT max(n) AS largest_window_rows_both_sides FROM (
  SELECT count(*) AS n FROM (SELECT wj_tumble_start(row_time, '5 min', '0') w FROM bl
                             UNION ALL SELECT wj_tumble_start(row_time, '5 min', '0') FROM br) x
  GROUP BY w) c;

\echo
\echo === (b) 10-minute HOP sliding 1 minute, INNER window join, $ROWS rows per side, $KEYS keys ===
CREATE TEMP TABLE rb AS
SELECT 'on' AS node, * FROM run('q_hop_inner', true)
UNION ALL SELECT 'off', * FROM run('q_hop_inner', false)
UNION ALL SELECT 'on, forced', * FROM run('q_hop_inner', true, true);
SELECT * FROM rb;
SELECT round((SELECT ms FROM rb WHERE node = 'off') / nullif((SELECT ms FROM rb WHERE node = 'on'), 0), 2) AS speedup,
       round((SELECT ms FROM rb WHERE node = 'off') / nullif((SELECT ms FROM rb WHERE node = 'on, forced'), 0), 2) AS speedup_forced,
       (SELECT count(DISTINCT checksum) FROM rb) = 1 AS checksums_agree;
SELECT peak_rows('q_hop_inner') AS node_peak_state;
SELECT max(n) AS largest_window_rows_both_sides FROM (
  SELECT count(*) AS n FROM (SELECT window_start FROM bl, hop(row_time, interval '1 minute', interval '10 minutes')
                             UNION ALL
                             SELECT window_start FROM br, hop(row_time, interval '1 minute', interval '10 minutes')) x
  GROUP BY window_start) c;
SQL
chmod 644 "$work/bench.sql"

wj_virtualenv psql -X -q -f "$work/bench.sql"
rm -rf "$work"
