#!/usr/bin/env bash
# A continuous view's changefeed through PostgreSQL's logical replication
# (docs/changefeed.md), between two throwaway clusters:
#   publisher   preloads windowjoin, wal_level = logical; a tumbling-window
#               view of bid with feed => true and a 1-second schedule,
#               published with its feed (the view's table REPLICA
#               IDENTITY FULL, for the revisions' deletes)
#   subscriber  plain tables of the same columns, subscribed after the
#               first batches (so the initial copy and the stream both count)
# Bids arrive in batches with refreshes between them, late rows among them
# that make refreshes revise windows already emitted.  Once the subscriber
# has caught up:
#   a. its view table equals the publisher's (sorted text dumps);
#      its feed equals the publisher's feed
#   b. on the subscriber, summing the feed's signed rows gives its view
#      (every row's sum 0 or 1)
#   c. the publisher's view is the batch query over the windows closed by
#      the watermark
#   d. the subscriber's feed seqs run 1..feed_seq with no gap
# Prints "test continuous/feed_replication ... ok" when all hold.
# Usage: test/continuous/feed_replication.sh [--installed] [--pg MAJOR]
#   --installed: the caller holds the install lock and has installed this
#   tree (scripts/test); otherwise this script does both.
set -euo pipefail
shopt -s lastpipe	# "... | show" runs show in this shell (status)
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

dir=$(wj_live_dir feedrep)
owner=$(wj_cluster_owner)
pub_port=$((54200 + major))
sub_port=$((54210 + major))
stop_servers() {
	local d
	for d in pub sub; do
		[ -f "$dir/$d/postmaster.pid" ] &&
			wj_as_owner "$bin/pg_ctl" -D "$dir/$d" -m immediate -w stop >/dev/null 2>&1
	done
	return 0
}
trap 'stop_servers; rm -rf "$dir"' EXIT

# make_cluster NAME PORT [conf lines...]: initdb, configure, start, register
make_cluster() {
	local name=$1 port=$2 line
	shift 2
	wj_as_owner "$bin/initdb" -D "$dir/$name" -A trust -U "$owner" >/dev/null
	cat >>"$dir/$name/postgresql.conf" <<CONF
listen_addresses = ''
port = $port
unix_socket_directories = '$dir'
fsync = off
CONF
	for line in "$@"; do
		echo "$line" >>"$dir/$name/postgresql.conf"
	done
	wj_register_server "$bin" "$dir/$name"
	wj_as_owner "$bin/pg_ctl" -D "$dir/$name" -l "$dir/$name.log" -w start >/dev/null 9>&-
}
make_cluster pub "$pub_port" "wal_level = logical" \
	"shared_preload_libraries = 'windowjoin'" "windowjoin.scheduler_naptime = 200"
make_cluster sub "$sub_port" "wal_retrieve_retry_interval = '200ms'"

export PGHOST=$dir PGUSER=$owner PGDATABASE=postgres
unset PGPORT
qp() { psql -X -qAt -v ON_ERROR_STOP=1 -p "$pub_port" "$@"; }
qs() { psql -X -qAt -v ON_ERROR_STOP=1 -p "$sub_port" "$@"; }
status=0
fail() { echo "FAILED: $*"; status=1; }
# show NAME: the rows of a failed comparison (on stdin), at most 20
show() {
	local rows
	rows=$(cat)
	[ -z "$rows" ] && return 0
	echo "FAILED: $1:"
	echo "$rows" | head -20 | sed 's/^/    /'
	status=1
}
cols="window_start, window_end, item, total_price, n"
view_query="SELECT window_start, window_end, item, sum(price) AS total_price, count(*) AS n
  FROM bid, tumble(bidtime, interval '10 minutes') GROUP BY window_start, window_end, item"

# --- publisher: source, view with feed, publication ------------------------
qp >/dev/null <<SQL
CREATE EXTENSION windowjoin;
CREATE TABLE bid (bidtime timestamp, price numeric(10,2), item text);
CREATE INDEX ON bid (bidtime);
SELECT windowjoin.create_view('bid_tumble', \$\$$view_query\$\$,
  schedule => interval '1 second', feed => true);
ALTER TABLE bid_tumble REPLICA IDENTITY FULL;
CREATE PUBLICATION wj_pub FOR TABLE bid_tumble, bid_tumble_feed;
SQL

# batch B: 600 on-time bids in hour B-1 after the base (deterministic
# times, prices, items A..H), and from batch 3 on, 80 late ones in the
# hours before B-2, which the last refresh has already emitted (items A..I:
# I only ever comes late, so some revisions add a row to a window)
batch() {
	local b=$1
	qp -c "INSERT INTO bid
	  SELECT timestamp '2024-03-01' + ($b - 1) * interval '1 hour' + ((i * 37) % 3600) * interval '1 s',
	         1 + ((i * 13 + $b) % 1000) / 100.0, chr(65 + i % 8)
	    FROM generate_series(1, 600) i"
	if [ "$b" -ge 3 ]; then
		qp -c "INSERT INTO bid
		  SELECT timestamp '2024-03-01' + ((i * 53 + $b * 101) % (($b - 2) * 3600)) * interval '1 s',
		         1 + ((i * 7 + $b) % 500) / 100.0, chr(65 + (i + $b) % 9)
		    FROM generate_series(1, 80) i"
	fi
}
refresh() { qp -c "SELECT windowjoin.refresh('bid_tumble')" >/dev/null; }

for b in 1 2 3; do
	batch "$b"
	refresh
done

# --- subscriber: the same columns (and primary key), then the subscription --
ddl=$(qp <<'SQL'
SELECT format('CREATE TABLE %I (%s%s);', c.relname,
              string_agg(format('%I %s', a.attname, format_type(a.atttypid, a.atttypmod)), ', '
                         ORDER BY a.attnum),
              (SELECT string_agg(', ' || pg_get_constraintdef(k.oid), '')
                 FROM pg_constraint k WHERE k.conrelid = c.oid AND k.contype = 'p'))
  FROM pg_class c
  JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
 WHERE c.oid IN ('bid_tumble'::regclass, 'bid_tumble_feed'::regclass)
 GROUP BY c.oid, c.relname;
SQL
)
qs -c "$ddl" >/dev/null
qs -c "SET client_min_messages = warning" \
	-c "CREATE SUBSCRIPTION wj_sub CONNECTION 'host=$dir port=$pub_port dbname=postgres user=$owner' PUBLICATION wj_pub" >/dev/null

# --- stream: more batches, a batch of late rows only, refreshes between ---
for b in 4 5 6 7 8; do
	batch "$b"
	refresh
done
qp -c "INSERT INTO bid
  SELECT timestamp '2024-03-01' + ((i * 29) % (6 * 3600)) * interval '1 s', 2.50, chr(65 + i % 9)
    FROM generate_series(1, 200) i"
refresh
for b in 9 10 11 12; do
	batch "$b"
	refresh
done
# The rows of the last batches go out through the scheduler as well as by
# hand: refresh once more so that every closed window is emitted.
refresh

# --- wait for the subscriber: tables synced, every change replayed ---------
target=$(qp -c "SELECT pg_current_wal_lsn()")
caught=0
for _ in $(seq 1 600); do
	if [ "$(qs -c "SELECT count(*) = 2 AND bool_and(srsubstate = 'r') FROM pg_subscription_rel")" = t ] &&
		[ "$(qp -c "SELECT coalesce(bool_or(replay_lsn >= '$target'), false) FROM pg_stat_replication WHERE application_name = 'wj_sub'")" = t ]; then
		caught=1; break
	fi
	sleep 0.1
done
pub_seq=$(qp -c "SELECT feed_seq FROM windowjoin.views WHERE name = 'bid_tumble'::regclass")
pub_max=$(qp -c "SELECT coalesce(max(seq), 0) FROM bid_tumble_feed")
sub_max=$(qs -c "SELECT coalesce(max(seq), 0) FROM bid_tumble_feed")
if [ "$caught" != 1 ]; then
	fail "the subscriber did not catch up in 60 s (feed seq: publisher $pub_max, subscriber $sub_max)"
	qs -c "SELECT * FROM pg_stat_subscription" | sed 's/^/    /'
	grep -E 'ERROR|FATAL' "$dir/sub.log" | head -10 | sed 's/^/    sub log: /'
	exit 1
fi

revisions=$(qp -c "SELECT revisions FROM windowjoin.views WHERE name = 'bid_tumble'::regclass")
late=$(qp -c "SELECT late_rows FROM windowjoin.views WHERE name = 'bid_tumble'::regclass")
[ "$revisions" -gt 0 ] || fail "no revisions (late rows: $late)"
[ "$pub_seq" = "$pub_max" ] || fail "publisher: windowjoin.views.feed_seq $pub_seq, max(seq) $pub_max"
[ "$sub_max" = "$pub_max" ] || fail "feed seq: publisher $pub_max, subscriber $sub_max"

# (a) the subscriber's tables equal the publisher's
dump() {	# dump q-function table order-by file
	$1 -c "COPY (SELECT * FROM $2 ORDER BY $3) TO STDOUT" >"$4"
}
dump qp bid_tumble "$cols" "$dir/pub_view"
dump qs bid_tumble "$cols" "$dir/sub_view"
dump qp bid_tumble_feed seq "$dir/pub_feed"
dump qs bid_tumble_feed seq "$dir/sub_feed"
diff "$dir/pub_view" "$dir/sub_view" | grep '^[<>]' | show "view: publisher (<) and subscriber (>) differ" || true
diff "$dir/pub_feed" "$dir/sub_feed" | grep '^[<>]' | show "feed: publisher (<) and subscriber (>) differ" || true
view_rows=$(wc -l <"$dir/pub_view")
[ "$view_rows" -gt 0 ] || fail "the view is empty"

# (b) on the subscriber, the feed's signed sum is the view
qs -c "SELECT $cols, sum(change) FROM bid_tumble_feed GROUP BY $cols HAVING sum(change) NOT IN (0, 1)" |
	show "subscriber: feed rows whose signed sum is not 0 or 1"
qs <<SQL | show "subscriber: the feed's sum (<) and the view (>) differ"
WITH summed AS (SELECT $cols FROM bid_tumble_feed GROUP BY $cols HAVING sum(change) = 1)
(SELECT '<', * FROM (SELECT * FROM summed EXCEPT ALL SELECT $cols FROM bid_tumble) x)
UNION ALL
(SELECT '>', * FROM (SELECT $cols FROM bid_tumble EXCEPT ALL SELECT * FROM summed) y);
SQL

# (c) the publisher's view is the batch query over the closed windows
wm=$(qp -c "SELECT watermark FROM windowjoin.views WHERE name = 'bid_tumble'::regclass")
qp <<SQL | show "publisher: the batch query (<) and the view (>) differ (watermark $wm)"
WITH batch AS (SELECT $cols FROM ($view_query) q WHERE q.window_end <= '$wm'::timestamp)
(SELECT '<', * FROM (SELECT * FROM batch EXCEPT ALL SELECT $cols FROM bid_tumble) x)
UNION ALL
(SELECT '>', * FROM (SELECT $cols FROM bid_tumble EXCEPT ALL SELECT * FROM batch) y);
SQL

# (d) the subscriber's feed: seq 1..max, no gap
gaps=$(qs -c "SELECT min(seq) = 1 AND count(*) = max(seq) - min(seq) + 1 FROM bid_tumble_feed")
[ "$gaps" = t ] ||
	fail "subscriber feed seqs: $(qs -c "SELECT format('min %s, max %s, %s rows', min(seq), max(seq), count(*)) FROM bid_tumble_feed")"

if [ "$status" -eq 0 ]; then
	echo "test continuous/feed_replication ... ok"
fi
exit $status
