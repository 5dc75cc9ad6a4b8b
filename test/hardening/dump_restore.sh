#!/usr/bin/env bash
# Dump and restore: views and materialized views over tumble, hop,
# cumulate, session and the window, interval and as-of join idioms
# (dump_restore_setup.sql) are dumped with pg_dump -Fc and restored with
# pg_restore into a fresh database of a throwaway cluster that preloads
# windowjoin.  Each view's definition, row count, md5 of its sorted rows and
# the windowjoin nodes in its plan must be identical in both databases
# (dump_restore_check.sql), also after REFRESH MATERIALIZED VIEW in the
# restored one.  A plain-text dump restored with psql is checked the same
# way.
# Usage: test/hardening/dump_restore.sh [--installed]
#   --installed: the caller holds the install lock and has installed this
#   tree (scripts/test, scripts/stress); otherwise this script does both.
# WJ_VIRTUALENV (default wj_virtualenv from scripts/common.sh) names the
# command that runs its arguments against a server with windowjoin
# preloaded and PGHOST/PGPORT/PGUSER set; WJ_SERVER_LOG that server's log.
set -euo pipefail
source "$(dirname "$0")/../../scripts/common.sh"
cd "$WJ_ROOT"

installed=0
while [ $# -gt 0 ]; do
	case "$1" in
		--installed) installed=1; shift ;;
		*) echo "usage: $0 [--installed]" >&2; exit 2 ;;
	esac
done
if [ "$installed" -eq 0 ]; then
	wj_ensure_deps
	wj_lock
	wj_build_install
fi

work=$(mktemp -d /tmp/wj-dump-XXXXXX)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
cp test/hardening/dump_restore_setup.sql test/hardening/dump_restore_check.sql \
	test/hardening/dump_restore_cv_setup.sql test/hardening/dump_restore_cv_check.sql "$work/"
chmod 644 "$work"/*.sql

cat > "$work/run.sh" <<'RUN'
#!/bin/bash
set -eu
cd "$(dirname "$0")"
psql() { command psql -X -q -v ON_ERROR_STOP=1 "$@"; }
createdb wj_src
psql -d wj_src -f dump_restore_setup.sql
psql -d wj_src -f dump_restore_check.sql > src.txt
pg_dump -Fc -f wj_src.dump wj_src
createdb wj_dst
pg_restore --exit-on-error -d wj_dst wj_src.dump
# a dump carries no planner statistics: ANALYZE, as after any restore, so
# that the plans (and the windowjoin nodes in them) can be compared
psql -d wj_dst -c 'ANALYZE'
psql -d wj_dst -f dump_restore_check.sql > dst.txt
psql -d wj_dst -c 'REFRESH MATERIALIZED VIEW ts.m_hop; REFRESH MATERIALIZED VIEW ts.m_session; REFRESH MATERIALIZED VIEW ts.m_asof; REFRESH MATERIALIZED VIEW ts.m_window_join;'
psql -d wj_dst -f dump_restore_check.sql > dst_refreshed.txt
# the plain format, restored by psql
pg_dump -Fp -f wj_src.sql wj_src
createdb wj_plain
psql -d wj_plain -f wj_src.sql > /dev/null
psql -d wj_plain -c 'ANALYZE'
psql -d wj_plain -f dump_restore_check.sql > plain.txt
# continuous views (dump_restore_cv_setup.sql): dumped with their change
# logs pending, restored as an ordinary role's; after the same new rows and
# a refresh in both databases their rows and states are identical; in the
# restored one, DROP TABLE of a view takes its log, triggers and functions
# with it, and DROP EXTENSION (no CASCADE) works
createdb wj_cvsrc
psql -d wj_cvsrc -f dump_restore_cv_setup.sql > /dev/null
pg_dump -Fc -f wj_cvsrc.dump wj_cvsrc
createdb wj_cvdst
pg_restore --exit-on-error -d wj_cvdst wj_cvsrc.dump
psql -d wj_cvsrc -f dump_restore_cv_check.sql > cv_src.txt
psql -d wj_cvdst -f dump_restore_cv_check.sql > cv_dst.txt
psql -At -d wj_cvdst -c "DROP TABLE cv.v_hop" \
	-c "SELECT 'left after DROP TABLE: ' || (SELECT count(*) FROM pg_trigger WHERE tgname LIKE 'windowjoin\_%') || ' triggers, ' || (SELECT count(*) FROM pg_class WHERE relname LIKE 'v\_hop\_%') || ' tables, ' || (SELECT count(*) FROM pg_proc WHERE proname LIKE 'v\_hop\_%') || ' functions, ' || (SELECT count(*) FROM windowjoin.view_catalog WHERE view_rel::text LIKE '%v_hop') || ' catalog rows'" \
	-c "INSERT INTO cv.bid VALUES ('2024-01-02', 1, 1)" \
	-c "SELECT windowjoin.drop_view('cv.v_tumble')" \
	-c "DROP EXTENSION windowjoin" \
	-c "INSERT INTO cv.bid VALUES ('2024-01-03', 1, 1)" \
	-c "SELECT 'after DROP EXTENSION: ' || (SELECT count(*) FROM pg_trigger WHERE tgname LIKE 'windowjoin\_%') || ' triggers, ' || (SELECT count(*) FROM pg_class WHERE relname LIKE 'v\_%') || ' view tables'" > cv_drop.txt
version=$(psql -At -d wj_dst -c "SELECT extversion FROM pg_extension WHERE extname = 'windowjoin'")
views=$(grep -c '^v ' src.txt || true)
matviews=$(grep -c '^m ' src.txt || true)
echo "source: $views views, $matviews materialized views; restored extension version $version"
sed 's/^/  /' src.txt
status=0
for f in dst.txt dst_refreshed.txt plain.txt; do
	if diff -u src.txt "$f"; then
		echo "$f: identical to the source database"
	else
		echo "$f: DIFFERS from the source database"
		status=1
	fi
done
echo "continuous views:"
sed 's/^/  /' cv_src.txt
if diff -u cv_src.txt cv_dst.txt; then
	echo "cv_dst.txt: identical to the source database"
else
	echo "cv_dst.txt: DIFFERS from the source database"
	status=1
fi
sed 's/^/  /' cv_drop.txt
# (v_tumble's four feed triggers among them)
grep -qx 'left after DROP TABLE: 24 triggers, 0 tables, 0 functions, 0 catalog rows' cv_drop.txt || status=1
grep -qx 'after DROP EXTENSION: 0 triggers, 0 view tables' cv_drop.txt || status=1
# every revising view equals its batch query, in both databases
[ "$(grep -c ': 0 rows differ from its batch query$' cv_dst.txt)" -eq 4 ] || status=1
exit $status
RUN
chmod 755 "$work/run.sh"
status=0
${WJ_VIRTUALENV:-wj_virtualenv} "$work/run.sh" 2>&1 | grep -v -E '^(Creating new|Dropping) (PostgreSQL )?cluster' || status=1
[ "$status" -eq 0 ] && echo "dump/restore: ok" || echo "dump/restore: FAILED"
exit $status
