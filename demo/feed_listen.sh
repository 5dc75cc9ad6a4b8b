#!/usr/bin/env bash
# Follow a continuous view's changefeed from the shell:
#   demo/feed_listen.sh VIEW [SECONDS [UNTIL_SEQ]]    (connection: the PG* variables)
# A psql session LISTENs on windowjoin_feed and runs an empty SELECT twice a
# second (psql prints the notifications that arrived only after a command),
#   Asynchronous notification "windowjoin_feed" with payload "{...}" received ...
# and for each one about VIEW this prints the feed rows after the last seq
# shown (at first, the feed's seq at start).  It stops after SECONDS (60),
# or once it has shown UNTIL_SEQ.  A reader only: it acknowledges nothing.
set -eu
view=$1
seconds=${2:-60}
until_seq=${3:-}

# the view as the notifications name it, its feed table, the feed's last seq
IFS='|' read -r name feed last < <(psql -X -At -v view="$view" <<'SQL'
SELECT format('%I.%I', n.nspname, c.relname), v.feed, v.feed_seq
  FROM windowjoin.views v JOIN pg_class c ON c.oid = v.name JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE v.name = :'view'::regclass AND v.feed IS NOT NULL;
SQL
) || true
[ -n "${feed:-}" ] || { echo "$view is not a continuous view with a changefeed" >&2; exit 1; }
echo "listening on windowjoin_feed for $name after seq $last"

{
	echo 'LISTEN windowjoin_feed;'
	for ((i = 0; i < seconds * 2; i++)); do
		echo 'SELECT;'
		sleep 0.5
	done
} | PGAPPNAME=feed_listen psql -X -At -v ON_ERROR_STOP=1 | while IFS= read -r line; do
	# Asynchronous notification "windowjoin_feed" with payload "P" received from server process with PID N.
	[[ $line == 'Asynchronous notification "windowjoin_feed" with payload "'* ]] || continue
	payload=${line#*with payload \"}
	payload=${payload%\" received from server process*}
	[[ $payload =~ ^\{\"view\":\ \"(.*)\",\ \"seq\":\ ([0-9]+)\}$ ]] || continue
	[ "${BASH_REMATCH[1]}" = "$name" ] && [ "${BASH_REMATCH[2]}" -gt "$last" ] || continue
	seq=${BASH_REMATCH[2]}
	echo "notified: $payload"
	psql -X -q -v feed="$feed" -v last="$last" -v seq="$seq" <<'SQL'
SELECT * FROM :feed WHERE seq > :last AND seq <= :seq ORDER BY seq;
SQL
	last=$seq
	# leaving the loop ends psql (and the SELECTs) at its next write
	[ -z "$until_seq" ] || [ "$seq" -lt "$until_seq" ] || break
done
