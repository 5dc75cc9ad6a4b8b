#!/usr/bin/env bash
# The PostgreSQL half of scripts/bench, run inside a throwaway cluster
# (pg_virtualenv sets PGHOST/PGPORT/PGUSER).  Generates the data
# (bench/generate.sql), then times every PostgreSQL line of bench/suite.tsv,
# each in a fresh backend (a new psql connection) so that the backend's peak
# memory (VmHWM) belongs to that configuration alone; windowjoin's serial, 1-
# and 2-worker configurations of a workload and its full-size alternatives
# are timed interleaved, in rounds (time_interleaved).  Appends one
# tab-separated line per configuration to $OUT/results.tsv:
#   workload class group size median_ms runs warmup_ms times checksum vm_hwm_kb rss_shmem_kb
# and writes EXPLAIN ANALYZE of each windowjoin query to $OUT/plans/ (serial
# and, as W.2workers.txt, with 2 workers).
# Environment: BENCH (this folder), DATA (CSV folder), OUT, RUNS, ROUNDS, SLOW_MS,
# ONLY (comma-separated workloads to time, empty for all; setup lines
# always run), ALONE_MS (see wj_bench_run in bench_lib.sql; the windowjoin configurations
# always get ROUNDS runs), SLICE, CSV (1: export CSV for DuckDB), and the sizes BIDS ITEMS VERSIONS
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
# one page for empty_gather's parallel plan (which PostgreSQL gives 2 workers)
"${PSQL[@]}" -c 'CREATE TABLE wj_bench_one AS SELECT g AS a FROM generate_series(1, 100) g' \
	-c 'ALTER TABLE wj_bench_one SET (parallel_workers = 2)' -c 'ANALYZE wj_bench_one'
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

# record WORKLOAD CLASS GROUP SIZE LINE: append a configuration's result
# (LINE: wj_bench_run's columns) to results.tsv and say it on the terminal
record() {
	printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" >>"$OUT/results.tsv"
	printf '  %-12s %-8s %10.1f ms  (%s run(s))  %s\n' "$1" "$2" "$(cut -f1 <<<"$5")" \
		"$(cut -f2 <<<"$5")" "$(cut -f5 <<<"$5")"
}

# bench_run CLASS WORK_MEM QUERY RUNS SLOW ALONE: wj_bench_run in a fresh backend
bench_run() {
	local set_wm=
	if [ -n "$2" ]; then set_wm="SET work_mem = '$2';"; fi
	"${PSQL[@]}" -A -t -F $'\t' -c "$(settings "$1") $set_wm" \
		-c "SELECT median_ms, runs, warmup_ms, times, checksum, vm_hwm_kb, rss_shmem_kb
		    FROM wj_bench_run(\$wjq\$$3\$wjq\$, $4, $5, $6)"
}

# explain WORKLOAD CLASS WORK_MEM QUERY: EXPLAIN ANALYZE of a windowjoin
# configuration into plans/ (serial, and with 2 workers)
explain() {
	local plan=$1 set_wm=
	[ "$2" = wj2 ] && plan=$1.2workers
	if [ -n "$3" ]; then set_wm="SET work_mem = '$3';"; fi
	"${PSQL[@]}" -A -t -c "$(settings "$2") $set_wm" \
		-c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $4" \
		>"$OUT/plans/$plan.txt"
}

# wj_class CLASS: whether CLASS is one of windowjoin's configurations of the
# same query (serial, 1 worker, 2 workers), timed in every round
wj_class() {
	[[ $1 =~ ^wj[12]?$ ]]
}

# median NUMBER...: their median
median() {
	printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END {
		print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'
}

# probe: how much of two CPUs the machine gives two processes right now:
# the same CPU-bound statement (PROBE_SQL, a few tenths of a second) in one
# backend, then in two backends at once; prints 2 x alone / both, 2.00 for
# two CPUs' worth, 1.00 for one.  A virtual machine's vCPUs are not always
# run at the same time by its host (docs/parallel.md, "The machine's two
# CPUs"), and no parallel plan can split its work better than this.
PROBE_SQL='DO $$DECLARE x bigint := 0; BEGIN FOR i IN 1 .. 3000000 LOOP x := x + i % 7; END LOOP; END$$'
probe() {
	local t0 t1 t2 pid
	t0=$(date +%s%N)
	"${PSQL[@]}" -c "$PROBE_SQL"
	t1=$(date +%s%N)
	"${PSQL[@]}" -c "$PROBE_SQL" &
	pid=$!
	"${PSQL[@]}" -c "$PROBE_SQL"
	wait "$pid"
	t2=$(date +%s%N)
	awk -v a=$((t1 - t0)) -v b=$((t2 - t1)) 'BEGIN { printf "%.2f", 2 * a / b }'
}

# empty_gather: what a parallel plan costs before it splits anything: a
# Gather with 2 workers over the one page of wj_bench_one, 5 times in one
# backend; prints the median in ms.  Starting the workers (each a process
# the postmaster forks, which attaches the shared memory and initialises a
# backend) and waiting for them to exit is a fixed time per query, which a
# short query cannot amortise: S ms serial, split at best as the probe
# says (C x one process), can take no less than S / C + this.
EMPTY_GATHER_SQL="SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0;
 SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;"
empty_gather() {
	local args=(-c "$EMPTY_GATHER_SQL" -c '\timing on') k
	for k in 1 2 3 4 5 6; do args+=(-c 'SELECT count(*) FROM wj_bench_one'); done
	# the first is a warm-up of the backend's caches
	median $("${PSQL[@]}" -A -t "${args[@]}" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -n +2)
}

# time_interleaved: the configurations of one workload in G_CLASS (with
# their queries in G_QS and checksum groups in G_GRP), timed in ROUNDS
# rounds: windowjoin serial, with 1 and with 2 workers (wj, wj1, wj2: the
# same query), the workload's full-size alternatives (off, pg0, pg2) and its
# floor, if it has one (W1-scan for W1, see same_workload).
# Each round runs every configuration once, in a fresh backend, after a
# warm-up in that backend, in an order that rotates from round to round, and
# starts with the probe.  The machine's speed drifts over minutes (other
# tenants, the host), and timing one configuration's runs after the other's
# would put that drift into their ratio; interleaved, each configuration
# sees the same minutes.  An alternative whose first warm-up takes longer
# than SLOW_MS leaves the rounds after the first: its time is that round's
# (one run after the warm-up, or the warm-up alone past ALONE_MS), as
# bench_run would have measured it alone.  The median of its rounds is
# reported, its first warm-up, and its backends' largest private peak memory.
time_interleaved() {
	local n=${#G_CLASS[@]} r i k line checksum caps= gathers= slow alone
	local -a times warm ck hwm shm out
	for ((r = 0; r < ROUNDS; r++)); do
		caps="$caps${caps:+ }$(probe)"
		gathers="$gathers${gathers:+ }$(empty_gather)"
		for ((k = 0; k < n; k++)); do
			i=$(( (k + r) % n ))
			[ -z "${out[$i]:-}" ] || continue
			if wj_class "${G_CLASS[$i]}"; then
				slow=1e12 alone=1e12
			else
				slow=$SLOW_MS alone=$ALONE_MS
			fi
			line=$(bench_run "${G_CLASS[$i]}" "$G_WM" "${G_QS[$i]}" 1 "$slow" "$alone")
			IFS=$'\t' read -r _ _ w t checksum vm sh <<<"$line"
			if [ "$r" = 0 ] && ! wj_class "${G_CLASS[$i]}" &&
				awk -v w="$w" -v s="$SLOW_MS" 'BEGIN { exit !(w > s) }'; then
				out[$i]=1
				record "${G_WLS[$i]}" "${G_CLASS[$i]}" "${G_GRP[$i]}" "$G_SIZE" "$line"
				continue
			fi
			times[$i]="${times[$i]:-}${times[$i]:+ }$t"
			[ -n "${warm[$i]:-}" ] || warm[$i]=$w
			if [ -n "${ck[$i]:-}" ] && [ "${ck[$i]}" != "$checksum" ]; then
				echo "run_pg: ${G_WL} ${G_CLASS[$i]}: checksum $checksum differs from ${ck[$i]}" >&2
				exit 1
			fi
			ck[$i]=$checksum
			if [ -z "${hwm[$i]:-}" ] || [ $((vm - sh)) -gt $((hwm[$i] - shm[$i])) ]; then
				hwm[$i]=$vm shm[$i]=$sh
			fi
		done
	done
	for ((i = 0; i < n; i++)); do
		[ -z "${out[$i]:-}" ] || continue
		line=$(printf '%s\t%s\t%s\t%s\t%s\t%s\t%s' \
			"$(median ${times[$i]})" \
			"$ROUNDS" "${warm[$i]}" "${times[$i]}" "${ck[$i]}" "${hwm[$i]}" "${shm[$i]}")
		record "${G_WLS[$i]}" "${G_CLASS[$i]}" "${G_GRP[$i]}" "$G_SIZE" "$line"
		case "${G_CLASS[$i]}" in wj|wj2) explain "$G_WL" "${G_CLASS[$i]}" "$G_WM" "${G_QS[$i]}" ;; esac
	done
	record "$G_WL" cap - - "$(printf '%s\t%s\t-\t%s\t-\t\t' "$(median $caps)" "$ROUNDS" "$caps")"
	record "$G_WL" gather - - "$(printf '%s\t%s\t-\t%s\t-\t\t' "$(median $gathers)" "$ROUNDS" "$gathers")"
	G_CLASS=() G_QS=() G_GRP=() G_WLS=()
}

# in_group CLASS FILE SIZE: whether a line of the pending group's workload
# (and work_mem) joins it: windowjoin's configurations of the same query,
# or a full-size alternative
in_group() {
	if wj_class "$1"; then
		[ "$2" = "$G_FILE" ]
	else
		case "$1" in off|pg0|pg2) [ "$3" = full ] ;; *) false ;; esac
	fi
}

# same_workload WORKLOAD: whether a line of WORKLOAD may join the pending
# group: the group's own, or its floor (W1-scan for W1: the scan alone, timed
# in the same rounds so that the ratio of the two sees the same minutes)
same_workload() {
	[ "$1" = "$G_WL" ] || [ "$1" = "$G_WL-scan" ]
}

G_CLASS=() G_QS=() G_GRP=() G_WLS=()
while IFS=$'\t' read -r wl class group size file wm; do
	# a pending interleaved group ends at any line that does not join it
	if [ ${#G_CLASS[@]} -gt 0 ] &&
		{ ! same_workload "$wl" || [ "$wm" != "$G_WM" ] || ! in_group "$class" "$file" "$size"; }; then
		time_interleaved
	fi
	case "$class" in
	setup)
		"${PSQL[@]}" -f "$BENCH/queries/$file"
		echo "setup: $file"
		continue ;;
	duck*) continue ;;
	esac
	selected "$wl" || continue
	q=$(query "$file")
	# a windowjoin configuration starts a group; the lines that join it follow
	if [ ${#G_CLASS[@]} -gt 0 ] || wj_class "$class"; then
		[ ${#G_CLASS[@]} -gt 0 ] || G_WL=$wl G_SIZE=$size G_FILE=$file G_WM=$wm
		G_CLASS+=("$class") G_QS+=("$q") G_GRP+=("$group") G_WLS+=("$wl")
		continue
	fi
	case "$class" in
	wjslice) slow=1e12 alone=1e12 ;;
	*) slow=$SLOW_MS alone=$ALONE_MS ;;
	esac
	record "$wl" "$class" "$group" "$size" "$(bench_run "$class" "$wm" "$q" "$RUNS" "$slow" "$alone")"
done < <(grep -v '^#' "$BENCH/suite.tsv")
[ ${#G_CLASS[@]} -eq 0 ] || time_interleaved
