#!/usr/bin/env bash
# Concurrency test: pgbench runs N clients for S seconds against a
# throwaway cluster that preloads windowjoin, each transaction one of seven
# queries chosen at random — TUMBLE, HOP and CUMULATE aggregates, SESSION
# aggregation, a HOP window join, an interval join and an as-of join — each
# checked with EXPLAIN to use windowjoin's node (concurrency_setup.sql).
#
# How "results equal to a single-client run" is checked: before pgbench
# starts, one session computes the md5 of each query's rows (as text,
# sorted) into the table wj_ref (and checks that the same digests come out
# with every windowjoin node off).  Every pgbench transaction computes the
# digest again and evaluates 1 / (digest = reference)::int, a division by
# zero when they differ.  pgbench aborts a client on any error, so a run
# with exit status 0, no aborted client and "number of failed transactions:
# 0" means every transaction ran without error and returned exactly the
# single-session rows.  The server log is also checked for crashes.
#
# Usage: test/hardening/concurrency.sh [--clients N] [--seconds S] [--installed]
#   defaults 8 clients x 120 s.  --installed: the caller already holds the
#   install lock and has built and installed this tree (scripts/test,
#   scripts/stress); otherwise this script does both.
# WJ_VIRTUALENV (default wj_virtualenv from scripts/common.sh) names the
# command that runs its arguments against a server with windowjoin
# preloaded and PGHOST/PGPORT/PGUSER set; WJ_SERVER_LOG that server's log.
set -euo pipefail
source "$(dirname "$0")/../../scripts/common.sh"
cd "$WJ_ROOT"

clients=8
seconds=120
installed=0
while [ $# -gt 0 ]; do
	case "$1" in
		--clients) clients=$2; shift 2 ;;
		--seconds) seconds=$2; shift 2 ;;
		--installed) installed=1; shift ;;
		*) echo "usage: $0 [--clients N] [--seconds S] [--installed]" >&2; exit 2 ;;
	esac
done

if [ "$installed" -eq 0 ]; then
	wj_ensure_deps
	wj_lock
	wj_build_install
fi

work=$(mktemp -d /tmp/wj-concurrency-XXXXXX)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
cp test/hardening/concurrency_setup.sql "$work/"
for q in tumble hop cumulate session window_join interval_join asof_join; do
	cat > "$work/$q.sql" <<SQL
SELECT 1 / (md5(string_agg(q::text, E'\\n' ORDER BY q::text)) = (SELECT digest FROM wj_ref WHERE name = '$q'))::int AS same FROM q_$q q;
SQL
done
chmod 644 "$work"/*.sql

cat > "$work/run.sh" <<RUN
#!/bin/bash
set -u
cd "$work"
psql -X -q -v ON_ERROR_STOP=1 -f concurrency_setup.sql || exit 1
pgbench -n -M prepared -c $clients -j 2 -T $seconds \\
	-f tumble.sql -f hop.sql -f cumulate.sql -f session.sql \\
	-f window_join.sql -f interval_join.sql -f asof_join.sql > pgbench.out 2>&1
rc=\$?
grep -E '^(number of clients|number of transactions actually processed|number of failed transactions|latency average|tps)' pgbench.out
echo "transactions per script:"
awk '/^SQL script [0-9]+:/ {s=\$4} /^ - [0-9]+ transactions/ {print "  " s ": " \$2}' pgbench.out
aborted=\$(grep -c 'aborted' pgbench.out || true)
failed=\$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' pgbench.out)
log=\${WJ_SERVER_LOG:-/var/log/postgresql/postgresql-15-regress.log}
crashes=\$(grep -c 'terminated by signal' "\$log" || true)
echo "pgbench exit status \$rc, aborted clients \$aborted, failed transactions \${failed:-?}, backend crashes \$crashes"
if [ "\$rc" -ne 0 ] || [ "\$aborted" -ne 0 ] || [ "\${failed:-1}" != 0 ] || [ "\$crashes" -ne 0 ]; then
	grep -E 'aborted|ERROR' pgbench.out | head -20
	exit 1
fi
RUN
chmod 755 "$work/run.sh"
status=0
echo "concurrency: $clients clients x $seconds s, pgbench -M prepared, 7 scripts"
${WJ_VIRTUALENV:-wj_virtualenv} "$work/run.sh" 2>&1 | grep -v -E '^(Creating new|Dropping) (PostgreSQL )?cluster' || status=1
[ "$status" -eq 0 ] && echo "concurrency: ok" || echo "concurrency: FAILED"
exit $status
