#!/usr/bin/env bash
# Changefeeds under load (docs/changefeed.md): 8 writers
# (pgbench, one transaction of 100 events each, event time = the clock)
# insert into one table while three scheduled views with feeds keep it:
# TUMBLE 1 s, HOP 1 s / 5 s and CUMULATE 1 s / 10 s, each per key (100
# keys), watermark delay 100 ms, schedule 1 s (the fallback: a window's
# close wakes the refresh at the closing commit).  It reports:
#   close->feed p50/p99  from the commit of the events that close a window
#               (the first commit holding an event at or past its end plus
#               the delay) to the commit of that window's first feed rows
#               (when they became readable), over every window that closed
#               during the paced run, per view and together; commit times
#               from track_commit_timestamp
#   writers     events/s of the 8 writers unpaced for --tput seconds with
#               no views, with the three views without feeds, and with
#               feeds (two rounds, alternating); the ratio with feeds over
#               without
#   idle        the server's CPU (its processes, and those exited: the
#               scheduler's workers) over 60 s with the views scheduled and
#               no writes, in % of one core; and the whole machine's
# Usage: bench/feed.sh [--rate EVENTS_PER_S] [--seconds N] [--tput N]
#   --rate      the paced run's events/s (default 50000)
#   --seconds   the paced run's length (default 60; the first 5 s are not
#               counted)
#   --tput      each unpaced run's length (default 20)
set -euo pipefail
source "$(dirname "$0")/../scripts/common.sh"

RATE=50000
SECONDS_PER=60
TPUT=20
while [ $# -gt 0 ]; do
	case "$1" in
		--rate) RATE=$2; shift 2 ;;
		--seconds) SECONDS_PER=$2; shift 2 ;;
		--tput) TPUT=$2; shift 2 ;;
		-h|--help) sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
		*) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
	esac
done
export RATE SECONDS_PER TPUT

wj_ensure_deps
[ "${WJ_LOCK_HELD:-0}" = 1 ] || { wj_lock; wj_build_install; }

work=$(mktemp -d /tmp/wj-feed-bench-XXXXXX)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT

cat >"$work/writer.sql" <<'SQL'
INSERT INTO ev SELECT clock_timestamp(), (random() * 99)::int, (random() * 100)::int
  FROM generate_series(1, 100);
SQL
cat >"$work/setup.sql" <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS windowjoin;
DROP TABLE IF EXISTS ev CASCADE;
CREATE TABLE ev (t timestamptz NOT NULL, k int, v int);
CREATE INDEX ON ev (t);
SQL
cat >"$work/views.sql" <<'SQL'
SET client_min_messages = warning;
SELECT windowjoin.create_view('f_tumble', $$SELECT window_start, window_end, k, count(*) AS n, sum(v) AS s
  FROM ev, tumble(t, interval '1 second') GROUP BY 1, 2, 3$$,
  delay => '100 ms', schedule => '1 second', feed => :feed);
SELECT windowjoin.create_view('f_hop', $$SELECT window_start, window_end, k, count(*) AS n, sum(v) AS s
  FROM ev, hop(t, interval '1 second', interval '5 seconds') GROUP BY 1, 2, 3$$,
  delay => '100 ms', schedule => '1 second', feed => :feed);
SELECT windowjoin.create_view('f_cumulate', $$SELECT window_start, window_end, k, count(*) AS n, max(v) AS m
  FROM ev, cumulate(t, interval '1 second', interval '10 seconds') GROUP BY 1, 2, 3$$,
  delay => '100 ms', schedule => '1 second', feed => :feed);
SQL
cat >"$work/latency.sql" <<'SQL'
-- the commits of the writers' transactions, and the latest event time
-- committed so far at each
CREATE TEMP TABLE tx AS
  SELECT pg_xact_commit_timestamp(xmin) AS c, max(t) AS mt FROM ev GROUP BY xmin;
CREATE TEMP TABLE hw AS SELECT c, max(mt) OVER (ORDER BY c) AS hw FROM tx;
CREATE INDEX ON hw (hw, c);
CREATE TEMP TABLE lat (view text, window_end timestamptz, ms float8);
DO $$
DECLARE
  v text;
  t0 timestamptz := (SELECT min(t) FROM ev) + interval '5 seconds';
  t1 timestamptz := (SELECT max(t) FROM ev) - interval '1 second';
BEGIN
  FOREACH v IN ARRAY ARRAY['f_tumble', 'f_hop', 'f_cumulate'] LOOP
    EXECUTE format($q$
      INSERT INTO lat
      SELECT %1$L, f.window_end,
             extract(epoch FROM f.readable - (SELECT min(h.c) FROM hw h
                                               WHERE h.hw >= f.window_end + interval '100 ms')) * 1000
        FROM (SELECT window_end, min(pg_xact_commit_timestamp(xmin)) AS readable
                FROM %1$I_feed WHERE change = 1 GROUP BY window_end) f
       WHERE f.window_end BETWEEN %2$L AND %3$L$q$, v, t0, t1);
  END LOOP;
END
$$;
SELECT view, count(*) AS windows,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 1) AS p50_ms,
       round(percentile_cont(0.99) WITHIN GROUP (ORDER BY ms)::numeric, 1) AS p99_ms,
       round(max(ms)::numeric, 1) AS max_ms
  FROM (SELECT view, ms FROM lat UNION ALL SELECT 'all three', ms FROM lat) l
 GROUP BY view ORDER BY view = 'all three', view;
SQL

cat >"$work/run.sh" <<'RUN'
#!/bin/bash
set -euo pipefail
cd "$(dirname "$0")"
psql() { command psql -X -q -v ON_ERROR_STOP=1 "$@"; }
busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat; }
tps() { sed -n 's/^tps = \([0-9.]*\).*/\1/p' | head -1; }
writers() {	# writers SECONDS [RATE]: pgbench's tps
	local rate=()
	[ -n "${2:-}" ] && rate=(--rate="$2")
	pgbench -n -c 8 -j 2 -T "$1" "${rate[@]}" -f writer.sql 2>&1 | tps
}
echo "# changefeeds: 8 writers x 100-event transactions; TUMBLE 1 s, HOP 1 s/5 s, CUMULATE 1 s/10 s"
echo "#   per key (100 keys), delay 100 ms, schedule 1 s; load $(cut -d' ' -f1-3 /proc/loadavg) before"

# 1. paced: close->feed latency
psql -f setup.sql
psql -v feed=true -f views.sql >/dev/null
tp=$(writers "$SECONDS_PER" $((RATE / 100)))
sleep 3
echo "paced run: $RATE events/s asked, $(awk -v t="$tp" 'BEGIN { printf "%.0f", t * 100 }') events/s done for $SECONDS_PER s"
psql -c "SELECT name, refreshes, feed_seq, last_refresh_ms FROM windowjoin.views ORDER BY 1"
psql -f latency.sql

# 2. unpaced: the writers' throughput with no views, with the three views
# without feeds and with feeds, each on a fresh table, in two rounds
# (alternating, so that neither gains from going first); the mean of each
declare -A tput=([none]=0 [views]=0 [feeds]=0)
for round in 1 2; do
	for mode in none views feeds; do
		psql -f setup.sql
		case $mode in
			views) psql -v feed=false -f views.sql >/dev/null ;;
			feeds) psql -v feed=true -f views.sql >/dev/null ;;
		esac
		t=$(writers "$TPUT")
		echo "  round $round, $mode: $(awk -v t="$t" 'BEGIN { printf "%.0f", t * 100 }') events/s"
		tput[$mode]=$(awk -v a="${tput[$mode]}" -v t="$t" 'BEGIN { print a + t / 2 }')
	done
done
awk -v a="${tput[none]}" -v b="${tput[views]}" -v c="${tput[feeds]}" 'BEGIN {
	printf "writers unpaced (events/s): no views %.0f, three views %.0f, three views with feeds %.0f; with feeds / without %.3f\n",
		a * 100, b * 100, c * 100, c / b }'

# 3. idle: the three views with feeds over a fresh table, scheduled, no
# writes (after 10 s, once autovacuum is done with the dropped tables);
# the server's processes (the postmaster, its children, and the children
# that exited: the scheduler's workers) and the whole machine
psql -f setup.sql
psql -v feed=true -f views.sql >/dev/null
psql -c "INSERT INTO ev SELECT clock_timestamp() - interval '1 minute' + i * interval '1 ms', i % 100, i
           FROM generate_series(1, 60000) i"
pm=$(head -1 "$(psql -Atc 'SHOW data_directory')/postmaster.pid")
pgcpu() {
	local total
	total=$(awk '{ print $14 + $15 + $16 + $17 }' "/proc/$pm/stat")
	for c in $(pgrep -P "$pm"); do
		total=$((total + $(awk '{ print $14 + $15 }' "/proc/$c/stat" 2>/dev/null || echo 0)))
	done
	echo "$total"
}
sleep 10
c0=$(busy)
p0=$(pgcpu)
sleep 60
c1=$(busy)
p1=$(pgcpu)
awk -v a="$c0" -v b="$c1" -v p0="$p0" -v p1="$p1" -v hz="$(getconf CLK_TCK)" 'BEGIN {
	split(a, x, " "); split(b, y, " ");
	printf "idle server, three scheduled feed views, 60 s: the server %.2f%% of one core (machine %.2f%%)\n",
		100 * (p1 - p0) / hz / 60, 100 * 2 * (y[1] - x[1]) / (y[2] - x[2]) }'
RUN
chmod +x "$work/run.sh"
(cd "$work" && wj_virtualenv -o track_commit_timestamp=on -o windowjoin.scheduler_naptime=1s \
	-o shared_buffers=1GB -o max_wal_size=8GB -o checkpoint_timeout=30min "$work/run.sh")
