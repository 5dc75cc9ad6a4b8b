#!/usr/bin/env bash
# The whole regression suite (sql/*.sql) once more with parallel plans
# forced: no parallel setup or tuple cost, no minimum table size, two
# workers per Gather, so that every node with a partial path runs under a
# Gather wherever the planner can put one (docs/parallel.md).
#
# The plans then differ from the expected outputs, and rows of queries
# without ORDER BY may come in another order, so each suite's output is
# compared with its expected output after dropping plan lines (EXPLAIN's
# QUERY PLAN blocks and the lines of the suites' own plan-printing
# functions: anything that looks like a plan node or a plan property) and
# row counts, as multisets of lines.  Every result row, every on/off
# comparison line ("N rows, same as node off", "DIFFERENT: ...") and
# every error message must still be there, as many times.  Ignored: runs of
# blanks (column headers are centred on the widest value, columns padded to
# it), table rules, whether a check found the node in its plan ("node used:
# t/f", or what follows " | plan: " in a line of wj_test.on_off or
# wj_test.split_check) and which
# side it made the outer one (", outer NAME"), all plan choices.  Prints one "test NAME (parallel plans forced) ... ok" line per
# suite; exits non-zero if any differs.
# Run it against a running server with windowjoin preloaded (make
# installcheck's environment: PGHOST/PGPORT, PG_CONFIG); arguments, if any,
# name the suites to run (default: all of sql/*.sql).
set -uo pipefail
cd "$(dirname "$0")/../.."

out=$(mktemp -d /tmp/wj-parallel-XXXXXX)
chmod 755 "$out"
# JIT off: the first pass of scripts/test runs the suite with PostgreSQL's
# default (JIT where the server has it); here every worker would compile
# its plan's expressions again, which made this pass several times slower
# (asof_join: 19 s with JIT, 6 s without, on PostgreSQL 15).
# wj_test.serial_reference: the reference runs (wj_test.on_off with the
# nodes off, the batch queries the continuous views are checked against)
# plan no Gather.  Forced parallel, PostgreSQL's own plans for the suites'
# LATERAL queries rescan a Gather per outer row, starting workers each
# time (continuous_join took 161 s, 12 s with serial references); the
# reference rows are the same, and the expected outputs pin them as well.
export PGOPTIONS="${PGOPTIONS:-} -c wj_test.serial_reference=on -c jit=off -c parallel_setup_cost=0 -c parallel_tuple_cost=0 -c min_parallel_table_scan_size=0 -c min_parallel_index_scan_size=0 -c max_parallel_workers_per_gather=2"
# (all of them in the parallel groups of test/schedule, as scripts/test
# runs the first pass)
if [ $# -gt 0 ]; then
	tests="$*"
	target=installcheck
else
	tests=$(ls sql/*.sql | sed 's|sql/||; s|\.sql$||' | tr '\n' ' ')
	target=installcheck-parallel
fi
make -s $target ${PG_CONFIG:+PG_CONFIG=$PG_CONFIG} REGRESS="$tests" \
	REGRESS_OPTS="--inputdir=. --outputdir=$out --load-extension=windowjoin" \
	> "$out/pg_regress.log" 2>&1

# plan lines: plan nodes and their properties (PostgreSQL 18's "Disabled:
# true" and "Index Searches" too), QUERY PLAN headers, row counts
planre='QUERY PLAN|Run Condition|Disabled: true|Index Searches|Cache Key|Cache Mode|^[-+]+$|->|Scan|Gather|Workers|Worker [0-9]|Sort Key|Sort Method|Presorted Key|Cond:|Filter:|Join Type|Join Keys|Join Filter|Peak State|Total Peak|Leader Rows|Exchanged:|Group Key|Aggregate|Strategy|Direction|Window|Pane:|Band:|Keys:|Time Cond|Order Key|Top N|Tolerance|Hash|Merge|Nested Loop|Materialize|Memoize|Result|Append|Subquery|SubPlan|InitPlan|Output:|One-Time|Rows Removed|Pane States|Versions:|Read Ahead|Key Lookup|Single Copy|Batches|Buckets|Memory|Partition|Sub-partitions|Spill|Disk|Sort|Unique|Limit|^\([0-9]+ rows?\)$'
# (whether a check saw the node in the plan, and which side it made the
# outer one, are plan choices too: a parallel plan may differ; the rows and
# errors it compared must still agree; an error raised inside a worker
# carries one more line, "CONTEXT:  parallel worker"; what wj_test.on_off
# or wj_test.split_check (sql/include/helpers.sql) reports after " | plan: "
# is a plan choice too,
# cut off before the comparison)
filter() {
	sed -e 's/ | plan: .*$//' "$1" | grep -Ev "$planre" | grep -vx 'CONTEXT:  parallel worker' |
		sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' -e 's/[[:space:]][[:space:]]*/ /g' \
			-e 's/node used: [tf],/node used: ?,/' -e 's/, outer [a-z_]*$/, outer ?/' |
		LC_ALL=C sort
}

status=0
for t in $tests; do
	if [ ! -f "$out/results/$t.out" ]; then
		echo "test $t (parallel plans forced) ... FAILED (no output)"
		status=1
		continue
	fi
	# the suite's time, as pg_regress logged it ("test NAME ... ok 123 ms"
	# up to PostgreSQL 15, "ok 1 - NAME 123 ms" since 16)
	ms=$(sed -nE "s/.*[ ]$t[ .]+(ok|FAILED|failed)?[ ]*([0-9]+) ms.*/\2/p" "$out/pg_regress.log" | head -1)
	if diff <(filter "expected/$t.out") <(filter "$out/results/$t.out") > "$out/$t.diff"; then
		echo "test $t (parallel plans forced) ... ok${ms:+ ($ms ms)}"
	else
		echo "test $t (parallel plans forced) ... FAILED"
		head -40 "$out/$t.diff"
		status=1
	fi
done
[ "$status" -eq 0 ] && rm -rf "$out" || echo "outputs kept in $out"
exit $status
