#!/usr/bin/env bash
# The PostgreSQL half of scripts/bench, run inside a throwaway cluster
# (pg_virtualenv sets PGHOST/PGPORT/PGUSER).  Generates the data
# (bench/generate.sql), then times every PostgreSQL line of bench/suite.tsv,
# each in a fresh backend (a new psql connection) so that the backend's peak
# memory (VmHWM) belongs to that configuration alone.  Appends one
# tab-separated line per configuration to $OUT/results.tsv:
#   workload class group size median_ms runs warmup_ms times checksum vm_hwm_kb rss_shmem_kb
# and writes EXPLAIN ANALYZE of each windowjoin query to $OUT/plans/ (serial
# and, as W.2workers.txt, with 2 workers).
# Environment: BENCH (this folder), DATA (CSV folder), OUT, RUNS, SLOW_MS,
# ONLY (comma-separated workloads to time, empty for all; setup lines
# always run), ALONE_MS (see wj_bench_run in bench_lib.sql; the windowjoin configurations
# always get RUNS runs), SLICE, CSV (1: export CSV for DuckDB), and the sizes BIDS ITEMS VERSIONS
# CURRENCIES ORDERS SENSOR DEVICES WJ WJKEYS.
set -euo pipefail
PSQL=(psql -X -q -v ON_ERROR_STOP=1)

# The settings of each configuration.  work_mem is the same for all, unless
# the line of bench/suite.tsv gives its own (its sixth column).
COMMON="SET TimeZone = 'UTC'; SET work_mem = '256MB';"
NODES_OFF="SET windowjoin.enable_window_join = off; SET windowjoin.enable_interval_join = off;
 SET windowjoin.enable_asof_join = off; SET windowjoin.enable_window_aggregate = off;"
settings() {
	case "$1" in
	wj|wjslice) echo "$COMMON SET max_parallel_workers_per_gather = 0;" ;;
	wj1) echo "$COMMON SET max_parallel_workers_per_gather = 1;" ;;
	wj2) echo "$COMMON SET max_parallel_workers_per_gather = 2;" ;;
	off|pg0) echo "$COMMON $NODES_OFF SET max_parallel_workers_per_gather = 0;" ;;
	pg2) echo "$COMMON $NODES_OFF SET max_parallel_workers_per_gather = 2;" ;;
	esac
}
query() { sed "s/{SLICE}/$SLICE/g" "$BENCH/queries/$1"; }
# selected WORKLOAD: true when ONLY is empty or names it or its base (W5 for W5-inner)
selected() {
	[ -z "${ONLY:-}" ] && return 0
	local w
	for w in ${ONLY//,/ }; do
		case "$1" in "$w"|"$w"-*) return 0 ;; esac
	done
	return 1
}

"${PSQL[@]}" -c 'CREATE EXTENSION windowjoin' -f "$BENCH/bench_lib.sql"
t0=$(date +%s)
"${PSQL[@]}" -A -t -v bids="$BIDS" -v items="$ITEMS" -v versions="$VERSIONS" \
	-v currencies="$CURRENCIES" -v orders="$ORDERS" -v sensor="$SENSOR" -v devices="$DEVICES" \
	-v wj="$WJ" -v wjkeys="$WJKEYS" -v datadir="$DATA" -v csv="$CSV" -f "$BENCH/generate.sql"
echo "data generated in $(( $(date +%s) - t0 )) s"
"${PSQL[@]}" -A -t -c "SELECT version()" >"$OUT/pg_version.txt"
"${PSQL[@]}" -A -t -c "SELECT name || ' = ' || setting || coalesce(' ' || unit, '') FROM pg_settings
	WHERE name IN ('shared_buffers', 'work_mem', 'jit', 'max_parallel_workers', 'max_worker_processes',
	               'effective_cache_size', 'random_page_cost') ORDER BY name" >"$OUT/pg_settings.txt"
mkdir -p "$OUT/plans"

grep -v '^#' "$BENCH/suite.tsv" | while IFS=$'\t' read -r wl class group size file wm; do
	case "$class" in
	setup)
		"${PSQL[@]}" -f "$BENCH/queries/$file"
		echo "setup: $file"
		continue ;;
	duck*) continue ;;
	esac
	selected "$wl" || continue
	q=$(query "$file")
	slow=$SLOW_MS alone=$ALONE_MS
	case "$class" in wj|wj1|wj2|wjslice) slow=1e12 alone=1e12 ;; esac
	set_wm=
	if [ -n "$wm" ]; then set_wm="SET work_mem = '$wm';"; fi
	line=$("${PSQL[@]}" -A -t -F $'\t' -c "$(settings "$class") $set_wm" \
		-c "SELECT median_ms, runs, warmup_ms, times, checksum, vm_hwm_kb, rss_shmem_kb
		    FROM wj_bench_run(\$wjq\$$q\$wjq\$, $RUNS, $slow, $alone)")
	printf '%s\t%s\t%s\t%s\t%s\n' "$wl" "$class" "$group" "$size" "$line" >>"$OUT/results.tsv"
	printf '  %-12s %-8s %10.1f ms  (%s run(s))  %s\n' "$wl" "$class" "$(cut -f1 <<<"$line")" \
		"$(cut -f2 <<<"$line")" "$(cut -f5 <<<"$line")"
	if [ "$class" = wj ] || [ "$class" = wj2 ]; then
		plan=$wl
		[ "$class" = wj2 ] && plan=$wl.2workers
		"${PSQL[@]}" -A -t -c "$(settings "$class") $set_wm" \
			-c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $q" \
			>"$OUT/plans/$plan.txt"
	fi
done
