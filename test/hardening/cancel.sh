#!/usr/bin/env bash
# Cancellation: statement_timeout = '100ms' and pg_cancel_backend() must stop
# every windowjoin node within 200 ms (docs/hardening.md, "Cancellation").
# Builds and installs the extension under the install lock, creates the
# tables of cases.sql in a throwaway cluster and runs cancel.py over the
# cases of cases.py (AsOfJoin, IntervalJoin, WindowJoin TUMBLE/HOP, TumbleAgg,
# WindowExpand, session(), the session aggregate, the window SRFs).
# Exits non-zero if any case is late, is not cancelled, or lacks its node.
#
# Usage: test/hardening/cancel.sh [--rows N] [--repeat N] [--quick] [--only SUBSTR]
#                                 [--jit] [--no-build]
#   --rows      rows per big table (default 2,000,000); pg_cancel_backend()
#               after 300, 1000 and 3000 ms
#   --quick     1,000,000 rows, one repetition, cancel after 150 ms only
#               (about 20 s with --no-build)
#   --jit       leave jit on (default off: LLVM compilation is not
#               interruptible, whatever the plan)
#   --no-build  the caller holds the install lock and has installed this
#               build (as scripts/test does): neither lock nor build here
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../../scripts/common.sh"
cd "$WJ_ROOT"

rows=2000000
repeat=3
delays=300,1000,3000
only=
jit=
build=1
while [ $# -gt 0 ]; do
	case "$1" in
		--rows) rows=$2; shift 2 ;;
		--repeat) repeat=$2; shift 2 ;;
		--quick) rows=1000000; repeat=1; delays=150; shift ;;
		--only) only=$2; shift 2 ;;
		--jit) jit=--jit; shift ;;
		--no-build) build=0; shift ;;
		*) echo "usage: $0 [--rows N] [--repeat N] [--quick] [--only SUBSTR] [--jit] [--no-build]" >&2; exit 2 ;;
	esac
done

wj_ensure_deps
wj_need_packages python3-psycopg2

if [ "$build" -eq 1 ]; then
	wj_lock
	wj_build_install
fi

work=$(mktemp -d /tmp/wj-cancel-XXXXXX)
chmod 755 "$work"
cp "$here/cases.sql" "$here/cases.py" "$here/cancel.py" "$work/"
chmod 644 "$work"/*
trap 'rm -rf "$work"' EXIT
cat > "$work/run.sh" <<RUN
#!/bin/bash
set -eu
cd "$work"
t0=\$(date +%s)
psql -X -q -v ON_ERROR_STOP=1 -v rows=$rows -v keys=1000 -v with_b=true -f cases.sql > /dev/null
echo "data: $rows rows per table, created in \$(( \$(date +%s) - t0 ))s;" \\
	"\$(psql -X -A -t -c "SELECT 'shared_buffers=' || current_setting('shared_buffers') || ', work_mem=' || current_setting('work_mem')")"
/usr/bin/python3 cancel.py --repeat $repeat --delays $delays $jit ${only:+--only \"$only\"}
RUN
chmod 755 "$work/run.sh"
status=0
wj_virtualenv -o shared_buffers=32MB "$work/run.sh" 2>&1 |
	grep -v -E '^(Creating new|Dropping) (PostgreSQL )?cluster' || status=$?
exit $status
