#!/usr/bin/env bash
# Follow a continuous view's changefeed from the shell:
#   demo/feed_listen.sh VIEW [SECONDS [UNTIL_SEQ]]    (connection: the PG* variables)
# A psql session (a coprocess) LISTENs on windowjoin_feed and is given an
# empty SELECT twice a second, after which it prints the notifications that
# arrived:
#   Asynchronous notification "windowjoin_feed" with payload "{...}" received ...
# For each one about VIEW this prints the feed rows after the last seq
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

# psql as a coprocess: its commands are written to it, its output read here
coproc LISTENER { PGAPPNAME=feed_listen psql -X -At -v ON_ERROR_STOP=1 2>&1; }
to_psql=${LISTENER[1]}
echo 'LISTEN windowjoin_feed;' >&"$to_psql"
end=$((SECONDS + seconds))
while ((SECONDS < end)); do
	# psql prints the notifications that arrived only after a command: when
	# it has said nothing for half a second, give it an empty one
	IFS= read -r -t 0.5 line <&"${LISTENER[0]}" || {
		(($? > 128)) || break	# psql has ended
		echo 'SELECT;' >&"$to_psql"
		continue
	}
	# Asynchronous notification "windowjoin_feed" with payload "P" received from server process with PID N.
	[[ $line == 'Asynchronous notification "windowjoin_feed" with payload "'* ]] || continue
	payload=${line#*with payload \"}
	payload=${payload%\" received from server process*}
	[[ $payload =~ ^\{\"view\":\ \"(.*)\",\ \"seq\":\ ([0-9]+)\}$ ]] || continue
	seq=${BASH_REMATCH[2]}
	[ "${BASH_REMATCH[1]//\\\"/\"}" = "$name" ] && [ "$seq" -gt "$last" ] || continue
	echo "notified: $payload"
	psql -X -q -v feed="$feed" -v last="$last" -v seq="$seq" <<'SQL'
SELECT * FROM :feed WHERE seq > :last AND seq <= :seq ORDER BY seq;
SQL
	last=$seq
	[ -z "$until_seq" ] || [ "$seq" -lt "$until_seq" ] || break
done
exec {to_psql}>&-	# the end of its input ends psql
wait "$LISTENER_PID"
