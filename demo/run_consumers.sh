#!/usr/bin/env bash
# The changefeed's consumers at work (after demo/80_changefeed.sql), against
# the database of the PG* variables: scripts/demo runs this in its throwaway
# cluster after the SQL files.  A view with a feed over Flink's bids; the
# Python consumer (feed_consumer.py) and the psql listener (feed_listen.sh)
# started in the background; then bids arrive in three steps, each refreshed
# by hand.  Each step waits until both have handled it, so that the output is
# the same every run (the listener prints payloads, not psql's line with a PID).
set -euo pipefail
cd "$(dirname "$0")"
PYTHON=${PYTHON:-/usr/bin/python3}   # the Debian python3-psycopg is for it
export PGTZ=UTC PGDATESTYLE='ISO, YMD'
out=$(mktemp -d /tmp/wj-consumers-XXXXXX)
consumer='' listener=''
# on a failure, stop the two (by their PIDs) before the cluster goes
trap 'kill $consumer $listener 2>/dev/null || true; rm -rf "$out"' EXIT

sql() { psql -X -q -v ON_ERROR_STOP=1 -P footer=off "$@"; }

# wait_for WHAT COMMAND...: until COMMAND succeeds, 30 s at most
wait_for() {
	local what=$1 i
	shift
	for ((i = 0; i < 300; i++)); do
		"$@" && return 0
		sleep 0.1
	done
	echo "gave up waiting for $what" >&2
	cat "$out"/* >&2
	return 1
}
acked() { [ "$(psql -X -At -c "SELECT feed_consumers->>'dashboard' FROM windowjoin.views WHERE name = 'cons_totals'::regclass")" = "$1" ]; }
listening() { [ "$(psql -X -At -c "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'feed_listen' AND query LIKE 'SELECT%'")" = 1 ]; }
shown() { [ "$(grep -c '^notified: ' "$out/listen")" = "$1" ]; }

echo
echo '== FEED CONSUMERS ==  demo/feed_consumer.py (psycopg 3) and demo/feed_listen.sh (psql) follow cons_totals'
sql <<'SQL'
CREATE TABLE cons_bid (bidtime timestamp, price numeric(10,2), item text);
INSERT INTO cons_bid VALUES
  ('2020-04-15 08:05', 4.00, 'C'), ('2020-04-15 08:07', 2.00, 'A'),
  ('2020-04-15 08:09', 5.00, 'D'), ('2020-04-15 08:11', 3.00, 'B'),
  ('2020-04-15 08:13', 1.00, 'E'), ('2020-04-15 08:17', 6.00, 'F');
CREATE INDEX ON cons_bid (bidtime);
SELECT windowjoin.create_view('cons_totals',
  $$SELECT window_start, window_end, count(*) AS bids, sum(price) AS total_price
      FROM cons_bid, tumble(bidtime, interval '10 minutes') GROUP BY window_start, window_end$$,
  delay => interval '1 minute', feed => true) AS created \gset
SQL

"$PYTHON" feed_consumer.py cons_totals dashboard --until-seq 5 --timeout 30 >"$out/consumer" 2>&1 &
consumer=$!
bash feed_listen.sh cons_totals 30 5 >"$out/listen" 2>&1 &
listener=$!
wait_for "the consumer to apply seq 1" acked 1
wait_for "the listener to listen" listening

echo '   bids at 08:19 and 08:21 (seq 2), a late bid at 08:02 (seq 3 and 4), a bid at 08:31 (seq 5)'
step=0
for rows in "('2020-04-15 08:19', 2.00, 'G'), ('2020-04-15 08:21', 7.00, 'H')" \
	"('2020-04-15 08:02', 10.00, 'Z')" "('2020-04-15 08:31', 1.00, 'I')"; do
	sql -o /dev/null -c "INSERT INTO cons_bid VALUES $rows" -c "SELECT windowjoin.refresh('cons_totals')"
	step=$((step + 1))
	seq=$(psql -X -At -c "SELECT feed_seq FROM windowjoin.views WHERE name = 'cons_totals'::regclass")
	wait_for "the consumer to apply seq $seq" acked "$seq"
	wait_for "the listener to show seq $seq" shown "$step"
done
status=0
wait "$consumer" || status=$?
wait "$listener" || status=$?
consumer='' listener=''

echo '-- demo/feed_consumer.py cons_totals dashboard --until-seq 5 --timeout 30'
cat "$out/consumer"
echo '-- demo/feed_listen.sh cons_totals 30 5'
cat "$out/listen"
echo "-- the consumer's table equals the view, and it has acknowledged every change"
sql <<'SQL'
SELECT count(*) AS differences FROM
  ((TABLE cons_totals_applied EXCEPT TABLE cons_totals) UNION ALL
   (TABLE cons_totals EXCEPT TABLE cons_totals_applied)) d;
SELECT feed_seq, feed_consumers, feed_backlog FROM windowjoin.views WHERE name = 'cons_totals'::regclass;
SELECT windowjoin.drop_view('cons_totals') \gset
DROP TABLE cons_bid, cons_totals_applied;
SQL
exit $status
