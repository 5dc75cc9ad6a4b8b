#!/usr/bin/env bash
# The isolation specs of continuous views (test/isolation/specs/*.spec,
# pg_isolation_regress): refresh against writers of the source, against
# DDL on it and drop_view, and two refreshes of one view.  Run it against a
# running server with windowjoin preloaded (PGHOST/PGPORT set, as
# scripts/test's throwaway cluster); PostgreSQL 15's pg_isolation_regress
# (postgresql-server-dev-15).  Prints one "test NAME (isolation) ... ok" line
# per spec that passes; exits non-zero if any fails.
set -uo pipefail
cd "$(dirname "$0")/../.."

pgxs=$(dirname "$(${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config} --pgxs)")/..
runner="$pgxs/test/isolation/pg_isolation_regress"
if [ ! -x "$runner" ]; then
	echo "pg_isolation_regress not found at $runner" >&2
	exit 1
fi
out=$(mktemp -d /tmp/wj-isolation-XXXXXX)
chmod 755 "$out"
specs=$(cd test/isolation/specs && ls *.spec | sed 's/\.spec$//')
status=0
"$runner" --inputdir=test/isolation --outputdir="$out" --load-extension=windowjoin \
	--dbname=wj_isolation $specs >"$out/log" 2>&1 || status=1
sed -nE 's/^(test|ok [0-9]+ -) +([a-z0-9_]+) +\.* *ok.*/test \2 (isolation) ... ok/p; s/^ok [0-9]+ +- +([a-z0-9_]+) .*/test \1 (isolation) ... ok/p' "$out/log"
if [ "$status" -ne 0 ]; then
	cat "$out/log"
	head -100 "$out/regression.diffs" 2>/dev/null
fi
rm -rf "$out"
exit $status
