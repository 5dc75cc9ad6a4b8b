#!/usr/bin/env bash
# Memory limits: with work_mem = '1MB' and 10 million rows per input, every
# node's backend must stay under 200 MB peak RSS (VmHWM), and
# windowjoin.max_windows_per_row must stop runaway HOP/CUMULATE windows with
# its error (docs/hardening.md, "Memory limits").  Runs memlimit.py over the
# cases of cases.py in a throwaway cluster with shared_buffers = 32MB.
#
# The join cases and the window cases run in two separate clusters, each
# under its own hold of the install lock (each hold creates its data, so no
# hold lasts much more than ten minutes at 10M rows on a quiet machine).
#
# --group memory is the memory step of scripts/stress: every node at a
# work_mem of 1-4 MB on never-analysed inputs of 10x work_mem or more
# (memstress.sql; --rows scales them, default 1,000,000: a hot TUMBLE
# window of 1.2M rows per side, an as-of join over 1M keys, session() over
# 200,000 partitions, ...); each backend's peak private memory (VmHWM -
# RssShmem) must stay under 64 MB and every result must equal PostgreSQL's
# plan.  It is not part of "all".
#
# Usage: test/hardening/memlimit.sh [--rows N] [--group joins|windows|all|memory]
#                                   [--quick] [--only SUBSTR] [--jit]
#   --rows    rows per table (default 10,000,000; memory: 1,000,000)
#   --quick   1,000,000 rows
#   --jit     leave jit on (default off: LLVM's memory hides the nodes')
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../../scripts/common.sh"
cd "$WJ_ROOT"

rows=
groups="joins windows"
only=
jit=
while [ $# -gt 0 ]; do
	case "$1" in
		--rows) rows=$2; shift 2 ;;
		--group) groups=$2; [ "$groups" = all ] && groups="joins windows"; shift 2 ;;
		--quick) rows=1000000; shift ;;
		--only) only=$2; shift 2 ;;
		--jit) jit=--jit; shift ;;
		*) echo "usage: $0 [--rows N] [--group joins|windows|all] [--quick] [--only SUBSTR] [--jit]" >&2; exit 2 ;;
	esac
done

if [ -z "$rows" ]; then
	rows=10000000
	[ "$groups" = memory ] && rows=1000000
fi

wj_ensure_deps
wj_need_packages python3-psycopg2

work=$(mktemp -d /tmp/wj-memlimit-XXXXXX)
chmod 755 "$work"
cp "$here/cases.sql" "$here/memstress.sql" "$here/cases.py" "$here/memlimit.py" "$work/"
chmod 644 "$work"/*
trap 'rm -rf "$work"' EXIT

status=0
for group in $groups; do
	# the window cases read only table a
	with_b=true
	[ "$group" = windows ] && with_b=false
	data="-v keys=100000 -v with_b=$with_b -f cases.sql"
	[ "$group" = memory ] && data="-f memstress.sql"
	cat > "$work/run-$group.sh" <<RUN
#!/bin/bash
set -eu
cd "$work"
t0=\$(date +%s)
psql -X -q -v ON_ERROR_STOP=1 -v rows=$rows $data > /dev/null
echo "== $group: $rows rows per table, data created in \$(( \$(date +%s) - t0 ))s;" \\
	"\$(psql -X -A -t -c "SELECT 'shared_buffers=' || current_setting('shared_buffers')")"
/usr/bin/python3 memlimit.py --group $group $jit ${only:+--only \"$only\"}
RUN
	chmod 755 "$work/run-$group.sh"
	(
		flock 9
		wj_build_install
		wj_virtualenv -o shared_buffers=32MB "$work/run-$group.sh" 2>&1 |
			grep -v -E '^(Creating new|Dropping) (PostgreSQL )?cluster'
	) 9>"$WJ_LOCK" || status=1
done
exit $status
