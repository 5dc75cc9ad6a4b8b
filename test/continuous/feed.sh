#!/usr/bin/env bash
# Changefeeds against a live server (docs/changefeed.md), in
# a throwaway cluster of its own that preloads windowjoin, so that it can
# be crashed:
#   wake        a scheduled view with a feed and a 1-hour schedule: the
#               commit of the rows that close a window wakes its refresh
#               (no round of the schedule comes by), and LISTEN gets one
#               NOTIFY windowjoin_feed per refresh, at its commit, with the
#               view and its last seq
#   crash       a stream with late rows (revisions) into two scheduled feed
#               views while a consumer applies the feed and acknowledges in
#               the same transaction; the refreshing backend is killed
#               (SIGKILL) or the server stopped with -m immediate, N times
#               (50 by default), each time while a refresh is writing.
#               Afterwards the consumer has seen every seq exactly once and
#               in order (no gap, no repeat), its applied sum equals the
#               view, and the view equals the batch query
#   retention   a day of event time streamed in 5-minute steps: with one
#               consumer acknowledging, the feed stays flat; a consumer that
#               vanished holds it back only for feed_retention
# Prints one "test continuous/NAME ... ok" line per part that passes.
# Usage: test/continuous/feed.sh [--installed] [--pg MAJOR] [--kills N]
set -euo pipefail
source "$(dirname "$0")/../../scripts/common.sh"
cd "$WJ_ROOT"

installed=0
major=15
kills=50
while [ $# -gt 0 ]; do
	case "$1" in
		--installed) installed=1; shift ;;
		--pg) major=$2; shift 2 ;;
		--kills) kills=$2; shift 2 ;;
		*) echo "usage: $0 [--installed] [--pg MAJOR] [--kills N]" >&2; exit 2 ;;
	esac
done
wj_live_install "$major" "$installed"
bin=$(wj_bin "$major")

dir=$(wj_live_dir feed)
owner=$(wj_cluster_owner)
port=$((54300 + major))
bgpids=()
stop_all() {
	for p in "${bgpids[@]}"; do kill "$p" 2>/dev/null || true; done
	wj_as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
}
trap 'stop_all; rm -rf "$dir"' EXIT
wj_as_owner "$bin/initdb" -D "$dir/data" -A trust -U "$owner" >/dev/null
cat >>"$dir/data/postgresql.conf" <<CONF
listen_addresses = ''
port = $port
unix_socket_directories = '$dir'
shared_preload_libraries = 'windowjoin'
windowjoin.scheduler_naptime = 100
restart_after_crash = on
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
# wait_up: until the server accepts connections again (crash recovery)
wait_up() {
	for _ in $(seq 1 300); do
		"$bin/pg_isready" -q -h "$dir" -p "$port" && q -c "SELECT 1" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}

q -c "CREATE EXTENSION windowjoin" >/dev/null
q -f test/continuous/oracle.sql >/dev/null		# oracle(view): 'ok' or what differs

# --- wake ------------------------------------------------------------------
q >/dev/null <<'SQL'
CREATE TABLE wk (t timestamptz, v int);
CREATE INDEX ON wk (t);
SELECT windowjoin.create_view('wk_tumble',
  $$SELECT window_start, window_end, count(*) AS n FROM wk, tumble(t, interval '10 seconds')
     GROUP BY window_start, window_end$$, schedule => interval '1 hour', feed => true);
INSERT INTO wk VALUES ('2024-01-01 00:00:01', 1), ('2024-01-01 00:00:05', 1);
SQL
# (create_view refreshed it once; a round of the 1-hour schedule is far)
listen_out="$dir/listen.out"
# a session that listens for 3 s, then prints what it received
( q <<'SQL' >"$listen_out" 2>&1
LISTEN windowjoin_feed;
SELECT pg_sleep(0.1) FROM generate_series(1, 30);
SQL
) &
listener=$!
bgpids+=("$listener")
sleep 0.5
t0=$(date +%s%N)
# the rows of 00:00:12 close the window [00:00:00, 00:00:10)
q -c "INSERT INTO wk VALUES ('2024-01-01 00:00:12', 1)"
woke=0
for _ in $(seq 1 100); do
	[ "$(q -c "SELECT count(*) FROM wk_tumble_feed")" -gt 0 ] && { woke=1; break; }
	sleep 0.01
done
took_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
# and the next one
q -c "INSERT INTO wk VALUES ('2024-01-01 00:00:25', 1)"
for _ in $(seq 1 100); do
	[ "$(q -c "SELECT count(*) FROM wk_tumble_feed")" -gt 1 ] && break
	sleep 0.01
done
wait "$listener" || true
notes=$(grep -c 'Asynchronous notification "windowjoin_feed" with payload "{"view": "public.wk_tumble", "seq": [12]}"' "$listen_out" || true)
rows=$(q -c "SELECT string_agg(seq || ':' || change || ':' || n, ' ' ORDER BY seq) FROM wk_tumble_feed")
if [ "$woke" = 1 ] && [ "$notes" = 2 ] && [ "$rows" = "1:1:2 2:1:1" ]; then
	echo "wake: the window's feed row was readable ${took_ms} ms after the closing commit (schedule 1 hour); 2 notifications, one per refresh"
	echo "test continuous/feed_wake        ... ok"
else
	fail "wake: woke=$woke after ${took_ms} ms, notifications=$notes, feed: $rows"
	cat "$listen_out"
fi

# --- crash -----------------------------------------------------------------
# Two views over one stream (100 keys, 10-second windows, rows up to a
# minute late), refreshed by the scheduler every 200 ms and on every
# window close.  A writer and a consumer run throughout, each retrying
# after the server went away.  The consumer's one statement reads the feed
# after its position, records each seq (a primary key: a repeat fails
# it), notes a gap, applies the changes and acknowledges, atomically.
q >/dev/null <<'SQL'
CREATE TABLE ev (t timestamptz NOT NULL, k int, v int);
CREATE INDEX ON ev (t);
SELECT windowjoin.create_view('cr_tumble',
  $$SELECT window_start, window_end, k, count(*) AS n, sum(v) AS s
      FROM ev, tumble(t, interval '10 seconds') GROUP BY 1, 2, 3$$,
  schedule => interval '200 ms', feed => true);
SELECT windowjoin.create_view('cr_hop',
  $$SELECT window_start, window_end, count(*) AS n, max(v) AS m
      FROM ev, hop(t, interval '5 seconds', interval '20 seconds') GROUP BY 1, 2$$,
  schedule => interval '200 ms', feed => true);
CREATE TABLE seen (view regclass, seq bigint, PRIMARY KEY (view, seq));
CREATE TABLE gaps (view regclass, pos bigint, first bigint);
CREATE TABLE applied_tumble (change smallint, window_start timestamptz, window_end timestamptz,
                             k int, n bigint, s bigint);
CREATE TABLE applied_hop (change smallint, window_start timestamptz, window_end timestamptz,
                          n bigint, m int);
CREATE TABLE clock (t timestamptz);
INSERT INTO clock VALUES ('2024-01-01');
SQL
cat >"$dir/writer.sql" <<'SQL'
WITH c AS (UPDATE clock SET t = t + interval '2 seconds' RETURNING t)
INSERT INTO ev SELECT c.t - random() * interval '3 seconds'
                         - CASE WHEN random() < 0.05 THEN random() * interval '60 seconds' ELSE interval '0' END,
                      (random() * 99)::int, (random() * 100)::int
  FROM c, generate_series(1, 500);
SQL
consumer_sql() {	# consumer_sql VIEW APPLIED COLUMNS
	cat <<SQL
WITH pos AS (SELECT coalesce(max(seq), 0) AS p FROM windowjoin.feed_consumers
              WHERE view_rel = '$1'::regclass AND consumer = 'checker'),
     f AS MATERIALIZED (SELECT x.* FROM ${1}_feed x, pos WHERE x.seq > pos.p ORDER BY x.seq LIMIT 5000),
     s AS (INSERT INTO seen SELECT '$1', seq FROM f),
     g AS (INSERT INTO gaps SELECT '$1', (SELECT p FROM pos), min(seq) FROM f
            HAVING min(seq) <> (SELECT p FROM pos) + 1 OR max(seq) - min(seq) + 1 <> count(*)),
     a AS (INSERT INTO $2 SELECT change, $3 FROM f)
SELECT windowjoin.feed_ack('$1', 'checker', max(seq)) FROM f HAVING count(*) > 0;
SQL
}
{ consumer_sql cr_tumble applied_tumble "window_start, window_end, k, n, s"
  consumer_sql cr_hop applied_hop "window_start, window_end, n, m"; } >"$dir/consumer.sql"
touch "$dir/run"
( while [ -e "$dir/run" ]; do q -f "$dir/writer.sql" >/dev/null 2>&1 || sleep 0.2; sleep 0.05; done ) &
bgpids+=("$!")
( while [ -e "$dir/run" ]; do q -f "$dir/consumer.sql" >/dev/null 2>&1 || sleep 0.2; sleep 0.05; done ) &
bgpids+=("$!")

# kill N times, alternating: SIGKILL to the scheduler worker while it is
# writing a refresh (the postmaster then restarts every backend), and
# pg_ctl stop -m immediate at such a moment followed by a start
hits=0
for i in $(seq 1 "$kills"); do
	pid=""
	for _ in $(seq 1 500); do
		pid=$(q -c "SELECT pid FROM pg_stat_activity WHERE application_name = 'windowjoin scheduler'
		              AND state = 'active' AND backend_xid IS NOT NULL LIMIT 1" 2>/dev/null || true)
		[ -n "$pid" ] && break
		sleep 0.005
	done
	[ -n "$pid" ] && hits=$((hits + 1))
	if [ $((i % 2)) = 1 ] && [ -n "$pid" ]; then
		kill -9 "$pid" 2>/dev/null || true
	else
		wj_as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
		start_server
	fi
	wait_up || { fail "crash: the server did not come back after kill $i"; break; }
done
rm -f "$dir/run"
for p in "${bgpids[@]}"; do wait "$p" 2>/dev/null || true; done
bgpids=()
# everything closed, refreshed, and the consumer caught up
q >/dev/null <<'SQL'
SELECT windowjoin.alter_view(v, schedule => '0') FROM unnest('{cr_tumble,cr_hop}'::regclass[]) v;
SELECT windowjoin.advance_watermark(v, (SELECT max(t) + interval '1 minute' FROM ev))
  FROM unnest('{cr_tumble,cr_hop}'::regclass[]) v;
SELECT windowjoin.refresh(v) FROM unnest('{cr_tumble,cr_hop}'::regclass[]) v;
SQL
for _ in $(seq 1 200); do
	q -f "$dir/consumer.sql" >/dev/null
	[ "$(q -c "SELECT bool_and(c.seq = v.feed_seq) AND count(*) = 2 FROM windowjoin.feed_consumers c
	           JOIN windowjoin.views v ON v.name = c.view_rel WHERE c.consumer = 'checker'")" = t ] && break
done
check=$(q <<'SQL'
SELECT string_agg(format('%s: %s, seqs %s of %s, %s gaps, revisions %s, applied %s', v.name,
                         oracle(v.name), s.n, v.feed_seq, (SELECT count(*) FROM gaps g WHERE g.view = v.name),
                         v.revisions,
                         CASE v.name::text
                           WHEN 'cr_tumble' THEN (SELECT count(*) FROM (
                             SELECT window_start, window_end, k, n, s FROM applied_tumble
                              GROUP BY 1, 2, 3, 4, 5 HAVING sum(change) <> 0
                             EXCEPT ALL SELECT * FROM cr_tumble) d) +
                             (SELECT count(*) FROM (SELECT * FROM cr_tumble EXCEPT ALL
                              SELECT window_start, window_end, k, n, s FROM applied_tumble
                               GROUP BY 1, 2, 3, 4, 5 HAVING sum(change) = 1) d)
                           ELSE (SELECT count(*) FROM (
                             SELECT window_start, window_end, n, m FROM applied_hop
                              GROUP BY 1, 2, 3, 4 HAVING sum(change) <> 0
                             EXCEPT ALL SELECT * FROM cr_hop) d) +
                             (SELECT count(*) FROM (SELECT * FROM cr_hop EXCEPT ALL
                              SELECT window_start, window_end, n, m FROM applied_hop
                               GROUP BY 1, 2, 3, 4 HAVING sum(change) = 1) d)
                         END), '; ' ORDER BY v.name::text)
  FROM windowjoin.views v
  JOIN (SELECT view, count(*) AS n, min(seq) AS lo, max(seq) AS hi FROM seen GROUP BY view) s ON s.view = v.name
 WHERE v.name::text IN ('cr_tumble', 'cr_hop')
SQL
)
rows=$(q -c "SELECT count(*) FROM ev")
if echo "$check" | grep -qE "^cr_hop: ok, seqs ([0-9]+) of \1, 0 gaps, revisions [1-9][0-9]*, applied 0; cr_tumble: ok, seqs ([0-9]+) of \2, 0 gaps, revisions [1-9][0-9]*, applied 0$"; then
	echo "crash: $kills kills ($hits during a refresh's write), $rows rows streamed: $check"
	echo "test continuous/feed_crash       ... ok"
else
	fail "crash: $check"
	grep -E "FATAL|PANIC" "$dir/log" | grep -v "terminating connection\|the database system is" | tail -5 || true
fi

# --- retention -------------------------------------------------------------
# A day of event time in 5-minute steps (288 refreshes, 10 keys, 1-minute
# windows, every tenth step a late row): consumer "app" acknowledges after
# each refresh.  Phase 1, app alone: the feed never holds more than the
# last step's changes.  Phase 2 (the second half of the day): consumer
# "gone" acknowledged once and vanished, feed_retention is 2 seconds: the
# feed holds at most what the last few seconds brought.
q >/dev/null <<'SQL'
CREATE TABLE rt (t timestamptz, k int);
CREATE INDEX ON rt (t);
SELECT windowjoin.create_view('rt_tumble',
  $$SELECT window_start, window_end, k, count(*) AS n FROM rt, tumble(t, interval '1 minute')
     GROUP BY 1, 2, 3$$, feed => true);
CREATE TABLE rt_sizes (step int, feed_rows bigint, feed_seq bigint, feed_bytes bigint, at timestamptz);
CREATE PROCEDURE rt_day(first int, last int) LANGUAGE plpgsql AS $$
DECLARE
  s bigint;
BEGIN
  FOR i IN first .. last LOOP
    INSERT INTO rt SELECT timestamptz '2024-01-01' + i * interval '5 minutes' + j * interval '3 seconds', j % 10
      FROM generate_series(0, 99) j;
    IF i % 10 = 0 THEN
      INSERT INTO rt VALUES (timestamptz '2024-01-01' + i * interval '5 minutes' - interval '7 minutes', 1);
    END IF;
    PERFORM windowjoin.refresh('rt_tumble');
    SELECT feed_seq INTO s FROM windowjoin.views WHERE name = 'rt_tumble'::regclass;
    PERFORM windowjoin.feed_ack('rt_tumble', 'app', s);
    COMMIT;
    INSERT INTO rt_sizes SELECT i, (SELECT count(*) FROM rt_tumble_feed), s,
                                pg_relation_size('rt_tumble_feed'), clock_timestamp();
    COMMIT;
    PERFORM pg_sleep(0.05);
  END LOOP;
END
$$;
CALL rt_day(1, 144);
SELECT windowjoin.feed_ack('rt_tumble', 'gone', (SELECT feed_seq FROM windowjoin.views WHERE name = 'rt_tumble'::regclass));
SELECT windowjoin.alter_view('rt_tumble', feed_retention => '2 seconds');
CALL rt_day(145, 288);
SQL
ret=$(q <<'SQL'
SELECT format('%s %s %s %s %s',
  (SELECT max(feed_rows) FROM rt_sizes WHERE step BETWEEN 1 AND 144),
  (SELECT max(s2.feed_seq - s1.feed_seq) FROM rt_sizes s1 JOIN rt_sizes s2 ON s2.step = s1.step + 1
    WHERE s2.step <= 144),
  (SELECT max(feed_rows) FROM rt_sizes WHERE step > 150),
  (SELECT max(s2.feed_seq - s1.feed_seq) FROM rt_sizes s1 JOIN rt_sizes s2
     ON s2.at BETWEEN s1.at AND s1.at + interval '3 seconds' WHERE s1.step > 144),
  (SELECT max(feed_seq) FROM rt_sizes))
SQL
)
read -r max1 step1 max2 window2 total <<<"$ret"
if [ "$max1" -le "$step1" ] && [ "$max2" -le "$window2" ] && [ "$total" -gt $((max2 * 4)) ]; then
	echo "retention: a streamed day, $total changes: with one consumer at most $max1 kept (a step brings up to $step1); with a vanished one and feed_retention 2 s, at most $max2 (3 s bring up to $window2)"
	echo "test continuous/feed_retention   ... ok"
else
	fail "retention: kept $max1 (step $step1), then $max2 (3 s: $window2), of $total"
fi

exit $status
