#!/usr/bin/env bash
# Continuous views against a live server (docs/continuous.md), in a
# throwaway cluster of its own that preloads windowjoin, so that it can be
# restarted and crashed:
#   background   a view with a 1-second schedule shows closed windows with
#                no manual refresh; after a restart the scheduler resumes;
#                without scheduled views it costs (almost) no CPU
#   vacuum       the scheduler vacuums a session view's fragments after a
#                refresh that rewrote them
#   crash        the server stopped with -m immediate during a refresh (of a
#                window aggregate view, and of an interval join view): the
#                view is exactly as after the last committed refresh, the
#                change log still holds every change, and the next refresh
#                completes it (equal to the batch query)
#   concurrency  pgbench writers insert into the source while refreshes run
#                (manual, every 0.2 s, and the scheduler's): afterwards the
#                view equals the batch query over the closed windows and
#                counts every inserted row once
# Prints one "test continuous/NAME ... ok" line per part that passes.
# Usage: test/continuous/lifecycle.sh [--installed] [--pg MAJOR]
#   --installed: the caller holds the install lock and has installed this
#   tree (scripts/test); otherwise this script does both (for MAJOR).
set -euo pipefail
source "$(dirname "$0")/../../scripts/common.sh"
cd "$WJ_ROOT"

installed=0
major=15
while [ $# -gt 0 ]; do
	case "$1" in
		--installed) installed=1; shift ;;
		--pg) major=$2; shift 2 ;;
		*) echo "usage: $0 [--installed] [--pg MAJOR]" >&2; exit 2 ;;
	esac
done
wj_live_install "$major" "$installed"
bin=$(wj_bin "$major")

dir=$(wj_live_dir cv)
owner=$(wj_cluster_owner)
port=$((54100 + major))
stop_server() {
	wj_as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
}
trap 'stop_server; rm -rf "$dir"' EXIT
wj_as_owner "$bin/initdb" -D "$dir/data" -A trust -U "$owner" >/dev/null
cat >>"$dir/data/postgresql.conf" <<CONF
listen_addresses = ''
port = $port
unix_socket_directories = '$dir'
shared_preload_libraries = 'windowjoin'
windowjoin.scheduler_naptime = 200
CONF
start_server() {
	wj_as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w start >/dev/null 9>&-
}
start_server
wj_register_server "$bin" "$dir/data"
export PGHOST=$dir PGPORT=$port PGUSER=$owner PGDATABASE=postgres
q() { psql -X -qAt -v ON_ERROR_STOP=1 "$@"; }
status=0
fail() { echo "FAILED: $*"; status=1; }

# crash_during_refresh VIEW: start windowjoin.refresh(VIEW) in the
# background, wait until its backend is seen writing -- active, with a
# transaction id, which it takes at its first write (sets running=1) --
# stop the server with -m immediate at once, and start it again.  Killed at
# any point of its transaction, a refresh must leave its view as it was.
# (Timed with a sleep after the refresh was seen active, the stop once came
# after the hop view's refresh of 1.5M rows had committed.)
crash_during_refresh() {
	local view=$1 refresher
	(q -c "SELECT windowjoin.refresh('$view')" >/dev/null 2>&1 || true) &
	refresher=$!
	running=0
	for _ in $(seq 1 1000); do
		if [ "$(q -c "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'SELECT windowjoin.refresh(''$view'')%' AND state = 'active' AND backend_xid IS NOT NULL")" -gt 0 ]; then
			running=1; break
		fi
		sleep 0.01
	done
	wj_as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
	wait "$refresher" || true
	start_server
}

# the oracle: "ok" when the view is the batch query over its closed windows
q -c "CREATE EXTENSION windowjoin" >/dev/null
q -f test/continuous/oracle.sql >/dev/null

# --- background ----------------------------------------------------------
q >/dev/null <<'SQL'
CREATE TABLE bg (t timestamptz, v int);
CREATE INDEX ON bg (t);
SELECT windowjoin.create_view('bg_tumble',
  $$SELECT window_start, window_end, count(*) AS n FROM bg, tumble(t, interval '1 second')
     GROUP BY window_start, window_end$$, schedule => interval '1 second');
SQL
start=$(date +%s.%N)
q -c "INSERT INTO bg SELECT clock_timestamp() + i * interval '10 ms', 1 FROM generate_series(1, 300) i"
seen=0
for _ in $(seq 1 100); do
	n=$(q -c "SELECT count(*) FROM bg_tumble")
	if [ "$n" -gt 0 ]; then seen=1; break; fi
	sleep 0.1
done
took=$(echo "$(date +%s.%N) - $start" | bc)
if [ "$seen" = 1 ] && [ "$(q -c "SELECT oracle('bg_tumble')")" = ok ]; then
	echo "background: first closed window after ${took} s with no manual refresh"
else
	fail "background: no closed window after ${took} s"
fi
before=$(q -c "SELECT refreshes FROM windowjoin.views WHERE name = 'bg_tumble'::regclass")
wj_as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w restart >/dev/null 9>&-
q -c "INSERT INTO bg SELECT clock_timestamp() + interval '5 s' + i * interval '10 ms', 2 FROM generate_series(1, 300) i"
resumed=0
for _ in $(seq 1 100); do
	n=$(q -c "SELECT count(*) FROM bg_tumble b WHERE b.window_start > (SELECT min(t) FROM bg WHERE v = 2)")
	if [ "$n" -gt 0 ]; then resumed=1; break; fi
	sleep 0.1
done
after=$(q -c "SELECT refreshes FROM windowjoin.views WHERE name = 'bg_tumble'::regclass")
[ "$resumed" = 1 ] && [ "$(q -c "SELECT oracle('bg_tumble')")" != ok ] && resumed=0
q -c "SELECT windowjoin.drop_view('bg_tumble')" >/dev/null
# Idle: with no scheduled view left, the scheduler starts (almost) no
# worker: the CPU of the postmaster and of its exited children (the
# short-lived workers) over 3 s must stay under 10 % of a core.  (A
# launcher that restarted each worker as soon as it exited used 1.7
# cores here.)  Measured once no scheduler worker is left running.
for _ in $(seq 1 100); do
	[ "$(q -c "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'windowjoin scheduler' AND pid <> pg_backend_pid()")" = 0 ] && break
	sleep 0.1
done
pm=$(head -1 "$dir/data/postmaster.pid")
cpu() { awk '{ print $14 + $15 + $16 + $17 }' "/proc/$pm/stat"; }
c0=$(cpu)
sleep 3
idle_ticks=$(( $(cpu) - c0 ))
idle_limit=$(( $(getconf CLK_TCK) * 3 / 10 ))
if [ "$resumed" = 1 ] && [ "$idle_ticks" -le "$idle_limit" ]; then
	echo "background: after a restart the scheduler resumed ($before refreshes before, $after after)"
	echo "background: idle server, no scheduled view: $idle_ticks clock ticks of CPU in 3 s (limit $idle_limit)"
	echo "test continuous/background       ... ok"
elif [ "$resumed" = 1 ]; then
	fail "background: idle server used $idle_ticks clock ticks of CPU in 3 s (limit $idle_limit)"
else
	fail "background: the scheduler did not resume after a restart"
fi

# --- vacuum ----------------------------------------------------------------
# The scheduler vacuums the state tables of the views it refreshed once
# their dead rows reach 10,000 and their live rows (cv_vacuum.c): 20,000
# sessions (one row each), then a second row for each within the gap, so
# that the refresh merges every fragment (40,000 rows deleted, 20,000
# written).  Autovacuum is off for the table, so only the scheduler's
# VACUUM can count; the test waits for it (at most 20 s), then checks the
# view.
q >/dev/null <<'SQL'
CREATE TABLE vs (t timestamptz, k int);
CREATE INDEX ON vs (t);
SELECT windowjoin.create_view('vs_sessions',
  $$SELECT k, window_start, window_end, count(*) AS n
      FROM (SELECT k, (session(t, interval '1 minute') OVER (PARTITION BY k ORDER BY t)).* FROM vs) s
     GROUP BY k, window_start, window_end$$, schedule => interval '200 ms');
ALTER TABLE vs_sessions_panes SET (autovacuum_enabled = false);
INSERT INTO vs SELECT timestamptz '2024-01-01' + i * interval '1 ms', i FROM generate_series(1, 20000) i;
SQL
wait_refreshes() {		# wait_refreshes VIEW N: until VIEW has N refreshes
	for _ in $(seq 1 200); do
		[ "$(q -c "SELECT refreshes >= $2 FROM windowjoin.views WHERE name = '$1'::regclass")" = t ] && return 0
		sleep 0.1
	done
	return 1
}
wait_refreshes vs_sessions 2 || true
r=$(q -c "SELECT refreshes FROM windowjoin.views WHERE name = 'vs_sessions'::regclass")
q -c "INSERT INTO vs SELECT timestamptz '2024-01-01' + interval '30 s' + i * interval '1 ms', i FROM generate_series(1, 20000) i"
vacuumed=0
for _ in $(seq 1 200); do
	if [ "$(q -c "SELECT vacuum_count > 0 FROM pg_stat_user_tables WHERE relid = 'vs_sessions_panes'::regclass")" = t ]; then
		vacuumed=1; break
	fi
	sleep 0.1
done
wait_refreshes vs_sessions $((r + 2)) || true
result=$(q -c "SELECT oracle('vs_sessions')")
dead=$(q -c "SELECT n_dead_tup FROM pg_stat_user_tables WHERE relid = 'vs_sessions_panes'::regclass")
q -c "SELECT windowjoin.drop_view('vs_sessions')" >/dev/null
if [ "$vacuumed" = 1 ] && [ "$result" = ok ]; then
	echo "vacuum: the scheduler vacuumed a session view's fragments after a merge of 20,000 sessions ($dead dead rows left); view: $result"
	echo "test continuous/vacuum           ... ok"
else
	fail "vacuum: vacuumed=$vacuumed oracle=$result dead=$dead"
fi

# --- crash ---------------------------------------------------------------
q >/dev/null <<'SQL'
CREATE TABLE cr (t timestamptz, k int, v int);
CREATE INDEX ON cr (t);
INSERT INTO cr SELECT timestamptz '2024-01-01' + i * interval '100 ms', i % 10, i % 7
  FROM generate_series(1, 200000) i;
SELECT windowjoin.create_view('cr_hop',
  $$SELECT k, window_start, window_end, count(*) AS n, sum(v) AS s
      FROM cr, hop(t, interval '1 minute', interval '5 minutes')
     GROUP BY k, window_start, window_end$$);
SQL
snap=$(q -c "SELECT md5(string_agg(x::text, ',' ORDER BY x::text)) || ' ' || (SELECT watermark FROM windowjoin.views WHERE name = 'cr_hop'::regclass) FROM cr_hop x")
q -c "INSERT INTO cr SELECT timestamptz '2024-01-01' + (200000 + i) * interval '100 ms', i % 10, i % 7 FROM generate_series(1, 1500000) i"
pending=$(q -c "SELECT count(*) FROM cr_hop_changes")
crash_during_refresh cr_hop
after=$(q -c "SELECT md5(string_agg(x::text, ',' ORDER BY x::text)) || ' ' || (SELECT watermark FROM windowjoin.views WHERE name = 'cr_hop'::regclass) FROM cr_hop x")
pending_after=$(q -c "SELECT count(*) FROM cr_hop_changes")
q -c "SELECT windowjoin.refresh('cr_hop')" >/dev/null
result=$(q -c "SELECT oracle('cr_hop')")
left=$(q -c "SELECT count(*) FROM cr_hop_changes")
if [ "$running" = 1 ] && [ "$snap" = "$after" ] && [ "$pending" = "$pending_after" ] &&
	[ "$result" = ok ] && [ "$left" = 0 ]; then
	echo "crash: refresh killed by -m immediate: view and watermark unchanged, $pending_after changes still logged; the next refresh: $result"
	echo "test continuous/crash            ... ok"
else
	fail "crash: running=$running before='$snap' after='$after' pending=$pending/$pending_after oracle=$result left=$left"
fi

# --- crash, join view ----------------------------------------------------
# The same for an interval join view: its two logs and two watermarks.
q >/dev/null <<'SQL'
CREATE TABLE cl (t timestamptz, k int, v int);
CREATE TABLE cw (t timestamptz, k int, v int);
CREATE INDEX ON cl (t);
CREATE INDEX ON cw (t);
INSERT INTO cl SELECT timestamptz '2024-01-01' + i * interval '100 ms', i % 10, i
  FROM generate_series(1, 100000) i;
INSERT INTO cw SELECT timestamptz '2024-01-01' + i * interval '100 ms' + interval '50 ms', i % 10, i
  FROM generate_series(1, 100000) i;
SELECT windowjoin.create_view('cr_band',
  $$SELECT l.k, l.v AS lv, w.v AS wv, l.t AS l_t FROM cl l LEFT JOIN cw w
      ON l.k = w.k AND w.t BETWEEN l.t - interval '1 second' AND l.t + interval '1 second'$$);
-- the band view's oracle: its rows are the batch join's rows of the left
-- rows before min(left watermark, right watermark - 1 s)
CREATE FUNCTION oracle_band(view regclass) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  c record;
  n1 bigint;
  n2 bigint;
BEGIN
  SELECT * INTO c FROM windowjoin.view_catalog WHERE view_rel = view;
  EXECUTE format('SELECT count(*) FROM (SELECT q.* FROM (%s) q WHERE q.l_t < %L '
                 'EXCEPT ALL SELECT k, lv, wv, l_t FROM %s) x',
                 c.query, least(c.watermark1, c.watermark2 - c.band_hi), view) INTO n1;
  EXECUTE format('SELECT count(*) FROM (SELECT k, lv, wv, l_t FROM %s '
                 'EXCEPT ALL SELECT q.* FROM (%s) q WHERE q.l_t < %L) x',
                 view, c.query, least(c.watermark1, c.watermark2 - c.band_hi)) INTO n2;
  RETURN CASE WHEN n1 = 0 AND n2 = 0 THEN 'ok' ELSE format('%s missing, %s extra', n1, n2) END;
END
$$;
SQL
band_snap() {
	q -c "SELECT md5(string_agg(x::text, ',' ORDER BY x::text)) || ' ' || (SELECT left_watermark || ' ' || right_watermark FROM windowjoin.views WHERE name = 'cr_band'::regclass) FROM cr_band x"
}
snap=$(band_snap)
q -c "INSERT INTO cl SELECT timestamptz '2024-01-01' + (100000 + i) * interval '100 ms', i % 10, i FROM generate_series(1, 1000000) i"
q -c "INSERT INTO cw SELECT timestamptz '2024-01-01' + (100000 + i) * interval '100 ms' + interval '50 ms', i % 10, i FROM generate_series(1, 1000000) i"
pending=$(q -c "SELECT (SELECT count(*) FROM cr_band_changes) + (SELECT count(*) FROM cr_band_changes_right)")
crash_during_refresh cr_band
after=$(band_snap)
pending_after=$(q -c "SELECT (SELECT count(*) FROM cr_band_changes) + (SELECT count(*) FROM cr_band_changes_right)")
q -c "SELECT windowjoin.refresh('cr_band')" >/dev/null
result=$(q -c "SELECT oracle_band('cr_band')")
rows=$(q -c "SELECT count(*) FROM cr_band")
if [ "$running" = 1 ] && [ "$snap" = "$after" ] && [ "$pending" = "$pending_after" ] &&
	[ "$result" = ok ] && [ "$rows" -gt 1000000 ]; then
	echo "crash: join view refresh killed by -m immediate: view and both watermarks unchanged, $pending_after changes still logged; the next refresh: $result ($rows rows)"
	echo "test continuous/crash_join       ... ok"
else
	fail "crash_join: running=$running before='$snap' after='$after' pending=$pending/$pending_after oracle=$result rows=$rows"
fi

# --- concurrency ---------------------------------------------------------
q >/dev/null <<'SQL'
CREATE TABLE cc (t timestamptz, k int, v int);
CREATE INDEX ON cc (t);
SELECT windowjoin.create_view('cc_tumble',
  $$SELECT k, window_start, window_end, count(*) AS n, sum(v) AS s
      FROM cc, tumble(t, interval '1 second') GROUP BY k, window_start, window_end$$,
  delay => interval '500 ms', schedule => interval '1 second');
SELECT windowjoin.create_view('cc_session',
  $$SELECT k, window_start, window_end, count(*) AS n
      FROM (SELECT k, (session(t, interval '300 ms') OVER (PARTITION BY k ORDER BY t)).* FROM cc) s
     GROUP BY k, window_start, window_end$$, delay => interval '500 ms');
SQL
cat > "$dir/writer.sql" <<'SQL'
INSERT INTO cc SELECT clock_timestamp() - random() * interval '2 seconds', (random() * 9)::int, 1
  FROM generate_series(1, 100);
SQL
chmod 644 "$dir/writer.sql"
(while :; do
	q -c "SELECT windowjoin.refresh('cc_tumble'), windowjoin.refresh('cc_session')" >/dev/null 2>&1 || true
	sleep 0.2
done) &
refresher=$!
"$bin/pgbench" -n -c 4 -j 2 -T 8 -f "$dir/writer.sql" postgres > "$dir/pgbench.out" 2>&1 ||
	fail "concurrency: pgbench failed: $(tail -3 "$dir/pgbench.out")"
kill "$refresher" 2>/dev/null || true
wait "$refresher" 2>/dev/null || true
q -c "SELECT windowjoin.refresh('cc_tumble'), windowjoin.refresh('cc_session')" >/dev/null
r1=$(q -c "SELECT oracle('cc_tumble')")
r2=$(q -c "SELECT oracle('cc_session')")
# every row before the last closed window's end is counted once
counted=$(q -c "SELECT (SELECT sum(n) FROM cc_tumble) = (SELECT count(*) FROM cc WHERE t < (SELECT max(window_end) FROM cc_tumble))")
rows=$(q -c "SELECT count(*) FROM cc")
tps=$(grep -o 'tps = [0-9.]*' "$dir/pgbench.out" | head -1)
if [ "$r1" = ok ] && [ "$r2" = ok ] && [ "$counted" = t ]; then
	echo "concurrency: 4 writers inserted $rows rows ($tps statements/s) while both views refreshed: tumble $r1, session $r2"
	echo "test continuous/concurrency      ... ok"
else
	fail "concurrency: tumble $r1, session $r2, counted $counted"
fi

exit $status
