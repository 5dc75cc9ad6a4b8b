#!/usr/bin/env bash
# Benchmark of the IntervalJoin custom scan.
#
# Two sensor streams sa, sb of ROWS rows each, DEVICES devices, times spread
# over one day, joined on dev with a band of +-2 s; count(*) and
# sum(a.v * b.v), inner and LEFT:
#   1. no (dev, t) index: IntervalJoin vs PostgreSQL's plan (a hash join on
#      dev whose join filter sees every pair of rows of a device, so it grows
#      with the square of the rows per device).  PostgreSQL is timed on a
#      slice of SLICE_DEVICES devices (the node too, for a direct ratio) and
#      extrapolated linearly in the number of devices (every device has the
#      same number of rows); it is run at full size only with --full-off;
#   2. with btree indexes on (dev, t): IntervalJoin vs PostgreSQL's plan
#      (a nested loop probing the index per row);
#   3. DuckDB (npm @duckdb/node-api, SET threads = 1) on the same data;
#   4. a unique-key orders/shipments join, where PostgreSQL's hash join must
#      stay (the node must not make it slower).
# Every figure is the best of REPS runs (PostgreSQL without the node and
# without an index: one run); the checksums of all engines are
# printed side by side and must agree.
#
#   bench/interval_join.sh [--quick] [--rows N] [--devices N] [--orders N]
#                          [--slice-devices N] [--reps N] [--full-off]
#                          [--no-duckdb]
#
# Builds and installs the extension (holding the install lock), runs in a
# throwaway cluster (pg_virtualenv) with PostgreSQL's default settings, and
# installs what it needs on a fresh Debian 12 machine (run as root).
set -euo pipefail

ROWS=500000
DEVICES=50
SLICE_DEVICES=5
ORDERS=500000
REPS=3
FULL_OFF=0
DUCKDB=1
ARGS=("$@")

while [ $# -gt 0 ]; do
	case "$1" in
	--quick) ROWS=50000; ORDERS=50000; REPS=1 ;;
	--rows) ROWS=$2; shift ;;
	--devices) DEVICES=$2; shift ;;
	--slice-devices) SLICE_DEVICES=$2; shift ;;
	--orders) ORDERS=$2; shift ;;
	--reps) REPS=$2; shift ;;
	--full-off) FULL_OFF=1 ;;
	--no-duckdb) DUCKDB=0 ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
export ROWS DEVICES SLICE_DEVICES ORDERS REPS FULL_OFF DUCKDB

HERE=$(cd "$(dirname "$0")" && pwd)
BENCH_DIR=${WJ_BENCH_DIR:-/tmp/windowjoin-bench-interval}
DUCK_DIR=${WJ_DUCK_DIR:-/tmp/windowjoin-bench-duck}
export BENCH_DIR DUCK_DIR

# ----------------------------------------------------------------------
# Inside the throwaway cluster (pg_virtualenv set PGHOST/PGPORT/PGUSER).
# ----------------------------------------------------------------------
if [ "${WJ_BENCH_INSIDE:-}" = 1 ]; then
	PSQL=(psql -X -q -v ON_ERROR_STOP=1)

	# pg_time LABEL SETTINGS QUERY: best time (ms) of REPS runs; sets
	# RESULT and MS
	pg_time() {
		local label=$1 settings=$2 query=$3 best="" out t
		for _ in $(seq "${REPS_NOW:-$REPS}"); do
			out=$("${PSQL[@]}" -A -t -c "$settings" -c '\timing on' -c "$query")
			t=$(echo "$out" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -1)
			RESULT=$(echo "$out" | grep -v '^Time:' | grep -v '^$' | tail -1)
			if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; fi
		done
		MS=$best
		printf '  %-44s %12.1f ms   result %s\n' "$label" "$MS" "$RESULT"
	}
	# plan SETTINGS QUERY: the plan's node lines, indented
	plan() {
		"${PSQL[@]}" -A -t -c "$1" -c "EXPLAIN (COSTS OFF) $2" |
			grep -E 'Custom Scan|Join|Loop|Scan on|Index|Sort Key' |
			grep -vE 'Join Type|Join Keys|Join Filter|Hash Cond|Index Cond' |
			sed 's/^/      | /'
	}
	ratio() { awk "BEGIN{printf \"%.1f\", $1 / $2}"; }

	ON="SET windowjoin.enable_interval_join = on"
	OFF="SET windowjoin.enable_interval_join = off"
	BAND="a.dev = b.dev AND b.t BETWEEN a.t - interval '2 seconds' AND a.t + interval '2 seconds'"
	Q_INNER="SELECT count(*), sum(a.v * b.v) FROM sa a JOIN sb b ON $BAND"
	Q_LEFT="SELECT count(*), sum(a.v * b.v) FROM sa a LEFT JOIN sb b ON $BAND"
	SLICE_A="(SELECT * FROM sa WHERE dev < $SLICE_DEVICES) a"
	SLICE_B="(SELECT * FROM sb WHERE dev < $SLICE_DEVICES) b"
	QS_INNER="SELECT count(*), sum(a.v * b.v) FROM $SLICE_A JOIN $SLICE_B ON $BAND"
	QS_LEFT="SELECT count(*), sum(a.v * b.v) FROM $SLICE_A LEFT JOIN $SLICE_B ON $BAND"
	Q_UNIQUE="SELECT count(*), sum(o.amount) FROM orders o JOIN shipments s ON s.order_id = o.order_id AND s.ship_time BETWEEN o.order_time AND o.order_time + interval '2 hours'"
	Q_UNIQUE_LEFT="SELECT count(*), sum(o.amount) FROM orders o LEFT JOIN shipments s ON s.order_id = o.order_id AND s.ship_time BETWEEN o.order_time AND o.order_time + interval '2 hours'"

	echo "== data: $ROWS rows per stream, $DEVICES devices, one day; $ORDERS orders"
	"${PSQL[@]}" <<-SQL
		CREATE EXTENSION windowjoin;
		DO \$\$BEGIN PERFORM setseed(0.25); END\$\$;
		CREATE TABLE sa AS
		  SELECT i % $DEVICES AS dev,
		         timestamp '2024-01-01' + random() * interval '1 day' AS t,
		         (random() * 1000)::int AS v
		  FROM generate_series(1, $ROWS) i;
		CREATE TABLE sb AS
		  SELECT i % $DEVICES AS dev,
		         timestamp '2024-01-01' + random() * interval '1 day' AS t,
		         (random() * 1000)::int AS v
		  FROM generate_series(1, $ROWS) i;
		CREATE TABLE orders AS
		  SELECT i AS order_id,
		         timestamp '2024-01-01' + random() * interval '30 days' AS order_time,
		         (random() * 100)::int AS amount
		  FROM generate_series(1, $ORDERS) i;
		CREATE TABLE shipments AS
		  SELECT order_id, order_time + random() * interval '3 hours' AS ship_time
		  FROM orders WHERE order_id % 10 <> 0;
		VACUUM ANALYZE sa, sb, orders, shipments;
		SET DateStyle = ISO;
		COPY sa TO '$BENCH_DIR/sa.csv' (FORMAT csv, HEADER);
		COPY sb TO '$BENCH_DIR/sb.csv' (FORMAT csv, HEADER);
	SQL
	"${PSQL[@]}" -A -t -c "SELECT 'settings: work_mem=' || current_setting('work_mem') || ', shared_buffers=' || current_setting('shared_buffers') || ', jit=' || current_setting('jit') || ', ' || version()"

	echo
	echo "== 1. no (dev, t) index"
	echo "  plan with the node:"; plan "$ON" "$Q_INNER"
	pg_time "IntervalJoin, inner" "$ON" "$Q_INNER"; on_inner=$MS; r_on_inner=$RESULT
	pg_time "IntervalJoin, left" "$ON" "$Q_LEFT"; on_left=$MS; r_on_left=$RESULT
	echo "  slice of $SLICE_DEVICES of $DEVICES devices ($((100 * SLICE_DEVICES / DEVICES)) % of the rows):"
	echo "  plan without the node:"; plan "$OFF" "$QS_INNER"
	pg_time "slice: IntervalJoin, inner" "$ON" "$QS_INNER"; s_on_inner=$MS; rs_on_inner=$RESULT
	REPS_NOW=1 pg_time "slice: PostgreSQL, inner (1 run)" "$OFF" "$QS_INNER"; s_off_inner=$MS; rs_off_inner=$RESULT
	pg_time "slice: IntervalJoin, left" "$ON" "$QS_LEFT"; s_on_left=$MS; rs_on_left=$RESULT
	REPS_NOW=1 pg_time "slice: PostgreSQL, left (1 run)" "$OFF" "$QS_LEFT"; s_off_left=$MS; rs_off_left=$RESULT
	est_inner=$(awk "BEGIN{printf \"%.1f\", $s_off_inner * $DEVICES / $SLICE_DEVICES}")
	est_left=$(awk "BEGIN{printf \"%.1f\", $s_off_left * $DEVICES / $SLICE_DEVICES}")
	echo "  slice checksums agree: inner $([ "$rs_on_inner" = "$rs_off_inner" ] && echo yes || echo NO)," \
		"left $([ "$rs_on_left" = "$rs_off_left" ] && echo yes || echo NO)"
	if [ "$FULL_OFF" = 1 ]; then
		REPS_NOW=1 pg_time "full: PostgreSQL, inner (1 run)" "$OFF" "$Q_INNER"; full_off_inner=$MS; r_off_inner=$RESULT
		REPS_NOW=1 pg_time "full: PostgreSQL, left (1 run)" "$OFF" "$Q_LEFT"; full_off_left=$MS; r_off_left=$RESULT
		echo "  full checksums agree: inner $([ "$r_on_inner" = "$r_off_inner" ] && echo yes || echo NO)," \
			"left $([ "$r_on_left" = "$r_off_left" ] && echo yes || echo NO)"
	else
		full_off_inner="" full_off_left=""
	fi

	echo
	echo "== 2. with btree indexes on (dev, t)"
	"${PSQL[@]}" -c "CREATE INDEX ON sa (dev, t)" -c "CREATE INDEX ON sb (dev, t)" -c "VACUUM ANALYZE sa, sb"
	echo "  plan with the node:"; plan "$ON" "$Q_INNER"
	echo "  plan without the node:"; plan "$OFF" "$Q_INNER"
	pg_time "IntervalJoin, inner" "$ON" "$Q_INNER"; ix_on_inner=$MS; rx_on_inner=$RESULT
	pg_time "PostgreSQL, inner" "$OFF" "$Q_INNER"; ix_off_inner=$MS; rx_off_inner=$RESULT
	pg_time "IntervalJoin, left" "$ON" "$Q_LEFT"; ix_on_left=$MS; rx_on_left=$RESULT
	pg_time "PostgreSQL, left" "$OFF" "$Q_LEFT"; ix_off_left=$MS; rx_off_left=$RESULT
	echo "  checksums agree: inner $([ "$rx_on_inner" = "$rx_off_inner" ] && [ "$rx_on_inner" = "$r_on_inner" ] && echo yes || echo NO)," \
		"left $([ "$rx_on_left" = "$rx_off_left" ] && [ "$rx_on_left" = "$r_on_left" ] && echo yes || echo NO)"

	echo
	echo "== 3. DuckDB, one thread, same data"
	duck_inner="" duck_left=""
	if [ "$DUCKDB" = 1 ] && [ -d "$DUCK_DIR/node_modules/@duckdb/node-api" ]; then
		cat >"$DUCK_DIR/bench.mjs" <<-'JS'
			import { DuckDBInstance } from '@duckdb/node-api';
			const [dir, reps, qi, ql] = process.argv.slice(2);
			const inst = await DuckDBInstance.create(':memory:');
			const con = await inst.connect();
			await con.run('SET threads = 1');
			for (const t of ['sa', 'sb'])
				await con.run(`CREATE TABLE ${t} AS SELECT * FROM read_csv('${dir}/${t}.csv', header = true,
					columns = {'dev': 'INTEGER', 't': 'TIMESTAMP', 'v': 'INTEGER'})`);
			for (const [label, q] of [['inner', qi], ['left', ql]]) {
				let best = Infinity, res;
				for (let i = 0; i < Number(reps); i++) {
					const t0 = process.hrtime.bigint();
					const r = await con.runAndReadAll(q);
					const ms = Number(process.hrtime.bigint() - t0) / 1e6;
					res = r.getRows()[0].map(String).join('|');
					best = Math.min(best, ms);
				}
				console.log(`${label} ${best.toFixed(1)} ${res}`);
			}
		JS
		dq_inner="SELECT count(*), sum(a.v * b.v) FROM sa a JOIN sb b ON a.dev = b.dev AND b.t BETWEEN a.t - INTERVAL 2 SECOND AND a.t + INTERVAL 2 SECOND"
		dq_left="SELECT count(*), sum(a.v * b.v) FROM sa a LEFT JOIN sb b ON a.dev = b.dev AND b.t BETWEEN a.t - INTERVAL 2 SECOND AND a.t + INTERVAL 2 SECOND"
		out=$(cd "$DUCK_DIR" && node bench.mjs "$BENCH_DIR" "$REPS" "$dq_inner" "$dq_left")
		read -r _ duck_inner rd_inner <<<"$(echo "$out" | grep '^inner')"
		read -r _ duck_left rd_left <<<"$(echo "$out" | grep '^left')"
		printf '  %-44s %12.1f ms   result %s\n' "DuckDB, inner" "$duck_inner" "$rd_inner"
		printf '  %-44s %12.1f ms   result %s\n' "DuckDB, left" "$duck_left" "$rd_left"
		echo "  checksums agree with PostgreSQL: inner $([ "$rd_inner" = "$r_on_inner" ] && echo yes || echo NO)," \
			"left $([ "$rd_left" = "$r_on_left" ] && echo yes || echo NO)"
	else
		echo "  skipped: @duckdb/node-api is not installed (or --no-duckdb)"
	fi

	echo
	echo "== 4. unique key: orders/shipments (PostgreSQL's plan must stay)"
	echo "  plan with the node enabled:"; plan "$ON" "$Q_UNIQUE"
	for q in "$Q_UNIQUE" "$Q_UNIQUE_LEFT"; do
		p_on=$("${PSQL[@]}" -A -t -c "$ON" -c "EXPLAIN (COSTS OFF) $q")
		p_off=$("${PSQL[@]}" -A -t -c "$OFF" -c "EXPLAIN (COSTS OFF) $q")
		echo "  same plan with the node enabled and disabled: $([ "$p_on" = "$p_off" ] && echo yes || echo NO)"
	done
	pg_time "node enabled, inner" "$ON" "$Q_UNIQUE"; u_on=$MS; ru_on=$RESULT
	pg_time "node disabled, inner" "$OFF" "$Q_UNIQUE"; u_off=$MS; ru_off=$RESULT
	pg_time "node enabled, left" "$ON" "$Q_UNIQUE_LEFT"; ul_on=$MS; rul_on=$RESULT
	pg_time "node disabled, left" "$OFF" "$Q_UNIQUE_LEFT"; ul_off=$MS; rul_off=$RESULT
	echo "  checksums agree: inner $([ "$ru_on" = "$ru_off" ] && echo yes || echo NO)," \
		"left $([ "$rul_on" = "$rul_off" ] && echo yes || echo NO)"

	echo
	echo "== summary (best of $REPS; ratios = other / IntervalJoin)"
	printf '  1. no index, inner: node %.1f ms; PostgreSQL %s ms%s => %sx\n' "$on_inner" \
		"${full_off_inner:-$est_inner}" "$([ -z "$full_off_inner" ] && echo " (extrapolated from the slice)")" \
		"$(ratio "${full_off_inner:-$est_inner}" "$on_inner")"
	printf '     no index, left:  node %.1f ms; PostgreSQL %s ms%s => %sx\n' "$on_left" \
		"${full_off_left:-$est_left}" "$([ -z "$full_off_left" ] && echo " (extrapolated from the slice)")" \
		"$(ratio "${full_off_left:-$est_left}" "$on_left")"
	printf '     slice, measured: inner %sx, left %sx\n' "$(ratio "$s_off_inner" "$s_on_inner")" "$(ratio "$s_off_left" "$s_on_left")"
	printf '  2. (dev, t) index, inner: node %.1f ms; PostgreSQL %.1f ms => %sx\n' "$ix_on_inner" "$ix_off_inner" "$(ratio "$ix_off_inner" "$ix_on_inner")"
	printf '     (dev, t) index, left:  node %.1f ms; PostgreSQL %.1f ms => %sx\n' "$ix_on_left" "$ix_off_left" "$(ratio "$ix_off_left" "$ix_on_left")"
	if [ -n "$duck_inner" ]; then
		printf '  3. DuckDB (1 thread), inner: %.1f ms => %sx; left: %.1f ms => %sx (vs node without index)\n' \
			"$duck_inner" "$(ratio "$duck_inner" "$on_inner")" "$duck_left" "$(ratio "$duck_left" "$on_left")"
	fi
	printf '  4. unique key, inner: node on %.1f ms, off %.1f ms; left: on %.1f ms, off %.1f ms\n' "$u_on" "$u_off" "$ul_on" "$ul_off"
	exit 0
fi

# ----------------------------------------------------------------------
# Outside: dependencies, build, install, cluster.
# ----------------------------------------------------------------------
source "$HERE/../scripts/common.sh"
wj_ensure_deps
if [ "$DUCKDB" = 1 ]; then
	{ command -v node >/dev/null && command -v npm >/dev/null; } ||
		wj_need_packages nodejs npm || true
	if [ ! -d "$DUCK_DIR/node_modules/@duckdb/node-api" ]; then
		mkdir -p "$DUCK_DIR"
		(cd "$DUCK_DIR" && { [ -f package.json ] || npm init -y >/dev/null; } &&
			npm install --no-audit --no-fund @duckdb/node-api >/dev/null 2>&1) ||
			echo "could not install @duckdb/node-api; DuckDB is skipped" >&2
	fi
fi
rm -rf "$BENCH_DIR"
mkdir -p "$BENCH_DIR"
chmod 777 "$BENCH_DIR"

wj_lock
wj_build_install
WJ_BENCH_INSIDE=1 wj_virtualenv "$HERE/interval_join.sh" "${ARGS[@]}"
rm -rf "$BENCH_DIR"
