#!/usr/bin/env bash
# The costing sweep: does the planner take the faster plan?  Runs a grid of
# tumbling aggregations and window joins (bench/costing_sweep.sql) in a
# throwaway cluster:
#   aggregations: sizes x {tumble() 1 hour, date_bin 5 minutes, date_trunc
#     minute} x {no key, a plain key of 10 values, of 10,000, a computed key
#     of 10 values (item % 10), of 5,000 (item / 2)} x aggregate families
#     {count, int: sum/max, numeric: sum/avg, float: sum/avg, time: min/max}
#   window joins: sizes x {INNER, FULL} TUMBLE 5 minutes x {100 keys,
#     rows / 10 keys}
# each serial and, from --parallel-from rows on, with 2 workers allowed; at
# each work_mem of --work-mem.  Each shape runs with the planner's choice and
# with every alternative forced (windowjoin's node; PostgreSQL's hashed and
# sorted plans, the node off; serial and with workers), every distinct plan
# timed in --runs interleaved rounds after a warm-up, all plans checked to
# return the same rows.  The report lists every shape with the chosen plan,
# the fastest, and chosen / fastest; a shape where the chosen plan is more
# than 10% slower than the fastest (and by more than 1 ms) is a miss.
# Exits 1 when there is a miss.
#
# Usage: bench/costing_sweep.sh [--quick] [--sizes "N ..."] [--families "F ..."]
#          [--runs N] [--work-mem "4MB ..."] [--parallel-from N] [--out DIR]
# Defaults: sizes 10000 100000 1000000 5000000, all five families, 3 runs,
# work_mem 4MB (PostgreSQL's default) and 256MB (the benchmarks'), 2 workers
# from 1000000 rows; the report goes to /var/tmp/windowjoin-sweep/ (--out).
# --quick: sizes 10000 100000, families count and numeric, 3 runs, 4MB.
# jit is off (its compilation time follows the costs, not the plans).
set -euo pipefail
source "$(dirname "$0")/../scripts/common.sh"

sizes="10000 100000 1000000 5000000"
families="count int numeric float time"
runs=3
work_mems="4MB 256MB"
parallel_from=1000000
out=/var/tmp/windowjoin-sweep
while [ $# -gt 0 ]; do
	case "$1" in
		--quick) sizes="10000 100000"; families="count numeric"; work_mems="4MB"; shift ;;
		--sizes) sizes=$2; shift 2 ;;
		--families) families=$2; shift 2 ;;
		--runs) runs=$2; shift 2 ;;
		--work-mem) work_mems=$2; shift 2 ;;
		--parallel-from) parallel_from=$2; shift 2 ;;
		--out) out=$2; shift 2 ;;
		*) sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done

wj_ensure_deps
wj_lock
wj_build_install
mkdir -p "$out"
chmod 777 "$out"

sql_array() { echo "ARRAY[$(echo "$1" | sed "s/ \+/,/g; s/^,//; s/,$//")]"; }
text_array() { echo "ARRAY[$(for x in $1; do printf "'%s'," "$x"; done | sed 's/,$//')]"; }

sqlfile=$(mktemp /tmp/wj-sweep-XXXXXX.sql)
chmod 644 "$sqlfile"
{
	cat "$WJ_ROOT/bench/costing_sweep.sql"
	echo "SELECT sweep_tables($(sql_array "$sizes"));"
	for wm in $work_mems; do
		echo "SET work_mem = '$wm';"
		echo "SELECT sweep_run($(sql_array "$sizes"), $(text_array "$families"), $runs, 2, $parallel_from);"
		echo "UPDATE sweep_result SET shape = shape || ', work_mem $wm' WHERE shape NOT LIKE '%work_mem%';"
	done
	cat <<'SQL'
CREATE VIEW sweep_report AS
SELECT s.kind, s.size, s.workers, s.shape,
       c.alt AS chosen, c.plan AS chosen_plan, round(c.ms::numeric, 1) AS chosen_ms,
       b.alt AS best, b.plan AS best_plan, round(b.ms::numeric, 1) AS best_ms,
       round((c.ms / b.ms)::numeric, 2) AS ratio,
       c.ms > 1.10 * b.ms AND c.ms - b.ms > 1 AS miss
FROM (SELECT DISTINCT kind, size, workers, shape FROM sweep_result) s
CROSS JOIN LATERAL (SELECT * FROM sweep_result r WHERE (r.shape, r.size, r.workers) = (s.shape, s.size, s.workers)
                    AND r.chosen LIMIT 1) c
CROSS JOIN LATERAL (SELECT * FROM sweep_result r WHERE (r.shape, r.size, r.workers) = (s.shape, s.size, s.workers)
                    ORDER BY r.ms LIMIT 1) b;
\pset format unaligned
\pset fieldsep '|'
\pset tuples_only on
SQL
	echo "\\o $out/sweep.psv"
	echo "SELECT kind, size, workers, shape, chosen, chosen_plan, chosen_ms, best, best_plan, best_ms, ratio, miss FROM sweep_report ORDER BY kind, size, workers, shape;"
	echo "\\o $out/alternatives.psv"
	echo "SELECT kind, size, workers, shape, alt, plan, round(ms::numeric, 1), chosen FROM sweep_result ORDER BY kind, size, workers, shape, ms;"
	echo "\\o"
} >"$sqlfile"

echo "costing sweep: sizes $sizes; families $families; work_mem $work_mems; $runs runs; 2 workers from $parallel_from rows"
t0=$(date +%s)
load0=$(cut -d' ' -f1-3 /proc/loadavg)
status=0
wj_virtualenv -o shared_buffers=1GB -o max_parallel_workers_per_gather=2 \
	sh -c "psql -X -q -v ON_ERROR_STOP=1 -c 'CREATE EXTENSION windowjoin' -f '$sqlfile'" 2>&1 |
	grep -v -E '^(Creating|Dropping) new|^Dropping cluster|LOG:' || status=$?
rm -f "$sqlfile"
wj_unlock
[ "$status" = 0 ] || { echo "the sweep failed" >&2; exit 1; }

# the report: every shape, misses first
report=$out/costing_sweep.md
awk -F'|' -v secs=$(( $(date +%s) - t0 )) -v load="$load0" -v commit="$(git -C "$WJ_ROOT" rev-parse --short HEAD)" '
	{ n++; if ($12 == "t") { miss++; m[miss] = $0 } ; rows[n] = $0 }
	function line(r,   f) {
		split(r, f, "|")
		return sprintf("| %s | %s | %s | %s | %s (%s) | %s | %s (%s) | %s | %s |%s",
			f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9], f[10], f[11], f[12] == "t" ? " **miss** |" : " |")
	}
	END {
		printf "# Costing sweep\n\n%d shapes, %d misses (chosen plan > 1.10 x the fastest and > 1 ms slower); commit %s, %d s, load average at the start %s.\n\n", n, miss, commit, secs, load
		hdr = "| kind | rows | workers | shape | chosen (plan) | ms | fastest (plan) | ms | chosen / fastest | |\n|---|---:|---:|---|---|---:|---|---:|---:|---|"
		if (miss > 0) { print "## Misses\n\n" hdr; for (i = 1; i <= miss; i++) print line(m[i]); print "" }
		print "## Every shape\n\n" hdr
		for (i = 1; i <= n; i++) print line(rows[i])
	}' "$out/sweep.psv" >"$report"
sed -n '3p' "$report"
if grep -q '\*\*miss\*\*' "$report"; then
	sed -n '/^## Misses/,/^## Every/p' "$report" | grep '^| [a-z]' | grep miss
	echo "report: $report"
	exit 1
fi
echo "report: $report"
