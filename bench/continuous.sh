#!/usr/bin/env bash
# W8: continuous window views (docs/continuous.md), in one run:
#   refresh   a bid history of 1M and 10M rows (100 bids a second, 1,000
#             items); batches of 1k, 10k and 100k rows appended in time order
#             with up to 2 s of disorder; the time of windowjoin.refresh()
#             for tumble 1 min, hop 1 min / 5 min, cumulate 1 min / 5 min and
#             session (gap 30 s) per item, against the full batch query of
#             the same view (the same rows, recomputed from scratch), and
#             the time of the INSERT with the four views' capture triggers
#   writers   8 pgbench clients inserting 1k-row batches for --seconds with
#             0, 1 and 3 views on the table: statements per second
#   state     a simulated day streamed in 10k-row batches, refreshed after
#             each: state rows (change log, panes or session fragments)
#             before and after each refresh and the refresh time, sampled
# Usage: bench/continuous.sh [--quick] [--sizes "1000000 10000000"] [--seconds N]
#                            [--state-only | --peers-only]
# --quick: 100k rows, 5-second writer runs (what scripts/test could afford).
# --state-only, --peers-only: the state run, or the peers' comparison, alone.
set -euo pipefail
source "$(dirname "$0")/../scripts/common.sh"

sizes="1000000 10000000"
seconds=30
only=
while [ $# -gt 0 ]; do
	case "$1" in
		--sizes) sizes=$2; shift 2 ;;
		--seconds) seconds=$2; shift 2 ;;
		--quick) sizes=100000; seconds=5; shift ;;
		--state-only) only=state; shift ;;
		--peers-only) only=peers; shift ;;
		*) echo "usage: $0 [--quick] [--sizes LIST] [--seconds N] [--state-only | --peers-only]" >&2; exit 2 ;;
	esac
done

wj_ensure_deps
wj_lock
wj_build_install

work=$(mktemp -d /tmp/wj-w8-XXXXXX)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT

cat > "$work/lib.sql" <<'SQL'
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS windowjoin;
-- w8_time(sql): milliseconds to run sql once
CREATE OR REPLACE FUNCTION w8_time(q text) RETURNS numeric LANGUAGE plpgsql AS $$
DECLARE
  t0 timestamptz := clock_timestamp();
BEGIN
  EXECUTE q;
  RETURN round((extract(epoch FROM clock_timestamp() - t0) * 1000)::numeric, 1);
END
$$;
-- w8_batch(n, from_row[, table]): n bids continuing the history at 100 a
-- second, each up to 2 s early (the same rows for the same arguments)
CREATE OR REPLACE FUNCTION w8_batch(n int, first bigint, tab text DEFAULT 'bids') RETURNS text LANGUAGE sql AS $$
  SELECT format($f$INSERT INTO %s
    SELECT timestamptz '2024-01-01' + (i * 10 - (hashint8(i) %% 2000)::int) * interval '1 ms',
           (abs(hashint8(i + 1)) %% 10000 / 100.0)::numeric(10,2), (abs(hashint8(i + 2)) %% 1000)::int
      FROM generate_series(%s::bigint, %s::bigint) i$f$, tab, first, first + n - 1)
$$;
SQL

cat > "$work/views.sql" <<'SQL'
SELECT windowjoin.create_view('v_tumble',
  $$SELECT item, window_start, window_end, count(*) AS bids, sum(price) AS total
      FROM bids, tumble(bidtime, interval '1 minute') GROUP BY item, window_start, window_end$$,
  delay => interval '10 seconds') IS NOT NULL AS v_tumble;
SELECT windowjoin.create_view('v_hop',
  $$SELECT item, window_start, window_end, count(*) AS bids, sum(price) AS total
      FROM bids, hop(bidtime, interval '1 minute', interval '5 minutes') GROUP BY item, window_start, window_end$$,
  delay => interval '10 seconds') IS NOT NULL AS v_hop;
SELECT windowjoin.create_view('v_cumulate',
  $$SELECT item, window_start, window_end, count(*) AS bids, sum(price) AS total
      FROM bids, cumulate(bidtime, interval '1 minute', interval '5 minutes') GROUP BY item, window_start, window_end$$,
  delay => interval '10 seconds') IS NOT NULL AS v_cumulate;
SELECT windowjoin.create_view('v_session',
  $$SELECT item, window_start, window_end, count(*) AS bids, sum(price) AS total
      FROM (SELECT item, price, (session(bidtime, interval '30 seconds') OVER (PARTITION BY item ORDER BY bidtime)).* FROM bids) s
     GROUP BY item, window_start, window_end$$,
  delay => interval '10 seconds') IS NOT NULL AS v_session;
SQL
cat > "$work/writer.sql" <<'SQL'
INSERT INTO w SELECT clock_timestamp() - random() * interval '2 s', (random() * 100)::numeric(10,2), (random() * 999)::int
  FROM generate_series(1, 1000);
SQL
cat > "$work/writer_view.sql" <<'SQL'
SELECT windowjoin.create_view('w_v' || :'i',
  $$SELECT item, window_start, window_end, count(*) AS n FROM w, tumble(bidtime, interval '1 minute') GROUP BY 1, 2, 3$$,
  delay => interval '1 second') IS NOT NULL;
SQL

cat > "$work/run.sh" <<'RUN'
#!/bin/bash
set -euo pipefail
cd "$(dirname "$0")"
psql() { command psql -X -q -v ON_ERROR_STOP=1 "$@"; }
fmt='%-10s %-9s %-9s %10s %11s %9s %10s %14s %9s\n'
if [ -z "${W8_ONLY:-}" ]; then
echo "# W8 refresh: history sizes $W8_SIZES (100 bids/s, 1000 items); 1k-row batches: 12 in a row"
echo "#   (2 minutes of events, so windows close in some refreshes and not in others): mean and max"
printf "$fmt" history batch view insert_ms refresh_ms max_ms batch_ms batch/refresh rows
for n in $W8_SIZES; do
	psql -f lib.sql
	psql -c "DROP TABLE IF EXISTS bids CASCADE" \
		-c "CREATE TABLE bids (bidtime timestamptz, price numeric(10,2), item int)" \
		-c "SELECT setseed(0.5)"
	psql -c "SELECT w8_time(w8_batch($n, 1))" >/dev/null
	psql -c "CREATE INDEX ON bids (bidtime)" -c "VACUUM ANALYZE bids"
	psql -f views.sql >/dev/null
	next=$((n + 1))
	for b in 1000 10000 100000; do
		reps=1
		[ "$b" = 1000 ] && reps=12
		declare -A sum=() max=()
		ins_sum=0
		for rep in $(seq 1 $reps); do
			ins=$(psql -At -c "SELECT w8_time(w8_batch($b, $next))")
			ins_sum=$(echo "$ins_sum + $ins" | bc)
			next=$((next + b))
			for v in v_tumble v_hop v_cumulate v_session; do
				r=$(psql -At -c "SELECT w8_time('SELECT windowjoin.refresh(''$v'')')")
				sum[$v]=$(echo "${sum[$v]:-0} + $r" | bc)
				if [ -z "${max[$v]:-}" ] || [ "$(echo "$r > ${max[$v]}" | bc)" = 1 ]; then
					max[$v]=$r
				fi
			done
		done
		ins=$(echo "scale=1; $ins_sum / $reps" | bc)
		for v in v_tumble v_hop v_cumulate v_session; do
			r=$(echo "scale=1; ${sum[$v]} / $reps" | bc)
			rows=$(psql -At -c "SELECT rows FROM windowjoin.views WHERE name = '$v'::regclass")
			full=- ratio=-
			if [ "$b" = 1000 ]; then
				full=$(psql -At -c "SELECT w8_time(format('CREATE TEMP TABLE w8_full AS SELECT * FROM (%s) q', query)) FROM windowjoin.views WHERE name = '$v'::regclass")
				ratio=$(echo "$full / $r" | bc)
			fi
			printf "$fmt" "$n" "$b" "${v#v_}" "$ins" "$r" "${max[$v]}" "$full" "$ratio" "$rows"
		done
	done
	psql -c "SELECT substr(name::text, 3) AS view, last_refresh_steps->>'path' AS path, state_rows FROM windowjoin.views ORDER BY 1"
done
fi

if [ -z "${W8_ONLY:-}" ] || [ "$W8_ONLY" = peers ]; then
psql -f lib.sql
echo
echo "# W8 peers: tumble 1 min per item, 1k new rows appended to a history of n rows"
echo "#   windowjoin: INSERT (capture) + windowjoin.refresh(); TimescaleDB: INSERT into a hypertable +"
echo "#   refresh_continuous_aggregate() of the new rows' range; pg_ivm: INSERT maintaining an IMMV;"
echo "#   plain: the INSERT with no view"
has_ts=$(psql -At -c "SELECT count(*) FROM pg_available_extensions WHERE name = 'timescaledb'")
has_ivm=$(psql -At -c "SELECT count(*) FROM pg_available_extensions WHERE name = 'pg_ivm'")
pfmt='%-10s %-34s %10s\n'
printf "$pfmt" history system ms
for n in $W8_SIZES; do
	psql -c "DROP TABLE IF EXISTS bids CASCADE" \
		-c "CREATE TABLE bids (bidtime timestamptz, price numeric(10,2), item int)"
	psql -c "SELECT w8_time(w8_batch($n, 1))" >/dev/null
	psql -c "CREATE INDEX ON bids (bidtime)" -c "VACUUM ANALYZE bids"
	for tab in p_plain p_wj; do
		psql -c "DROP TABLE IF EXISTS $tab CASCADE" -c "CREATE TABLE $tab AS SELECT * FROM bids" \
			-c "CREATE INDEX ON $tab (bidtime)" -c "VACUUM ANALYZE $tab"
	done
	psql -c "SELECT windowjoin.create_view('p_wj_tumble', \$\$SELECT item, window_start, window_end, count(*) AS bids, sum(price) AS total FROM p_wj, tumble(bidtime, interval '1 minute') GROUP BY 1, 2, 3\$\$, delay => interval '10 seconds')" >/dev/null
	next=$((n + 1))
	for round in 1 2 3; do
		plain=$(psql -At -c "SELECT w8_time(w8_batch(1000, $next, 'p_plain'))")
		ins=$(psql -At -c "SELECT w8_time(w8_batch(1000, $next, 'p_wj'))")
		ref=$(psql -At -c "SELECT w8_time('SELECT windowjoin.refresh(''p_wj_tumble'')')")
		printf "$pfmt" "$n" "plain INSERT (round $round)" "$plain"
		printf "$pfmt" "$n" "windowjoin INSERT + refresh" "$ins + $ref = $(echo "$ins + $ref" | bc)"
		if [ "$has_ts" = 1 ]; then
			if [ "$round" = 1 ]; then
				psql -c "CREATE EXTENSION IF NOT EXISTS timescaledb" >/dev/null 2>&1
				psql -c "DROP TABLE IF EXISTS p_ts CASCADE" \
					-c "CREATE TABLE p_ts (bidtime timestamptz NOT NULL, price numeric(10,2), item int)" \
					-c "SELECT create_hypertable('p_ts', 'bidtime', chunk_time_interval => interval '6 hours')" \
					-c "INSERT INTO p_ts SELECT * FROM bids" -c "VACUUM ANALYZE p_ts" >/dev/null
				psql -c "CREATE MATERIALIZED VIEW p_ts_cagg WITH (timescaledb.continuous, timescaledb.materialized_only = true) AS SELECT time_bucket('1 minute', bidtime) AS window_start, item, count(*) AS bids, sum(price) AS total FROM p_ts GROUP BY 1, 2 WITH NO DATA" >/dev/null
				psql -c "CALL refresh_continuous_aggregate('p_ts_cagg', NULL, NULL)" >/dev/null
			fi
			tins=$(psql -At -c "SELECT w8_time(w8_batch(1000, $next, 'p_ts'))")
			range=$(psql -At -c "SELECT quote_literal(time_bucket('1 minute', min(bidtime))) || ', ' || quote_literal(time_bucket('1 minute', max(bidtime)) + interval '1 minute') FROM p_ts WHERE bidtime >= (SELECT max(bidtime) - interval '12 seconds' FROM p_ts)")
			tref=$(psql -At -c '\timing on' -c "CALL refresh_continuous_aggregate('p_ts_cagg', $range)" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p')
			printf "$pfmt" "$n" "TimescaleDB INSERT + refresh" "$tins + $tref = $(echo "$tins + $tref" | bc)"
		fi
		if [ "$has_ivm" = 1 ]; then
			if [ "$round" = 1 ]; then
				psql -c "CREATE EXTENSION IF NOT EXISTS pg_ivm" >/dev/null 2>&1
				psql -c "DROP TABLE IF EXISTS p_ivm CASCADE" -c "CREATE TABLE p_ivm AS SELECT * FROM bids" \
					-c "CREATE INDEX ON p_ivm (bidtime)" -c "VACUUM ANALYZE p_ivm" >/dev/null
				psql -c "SELECT pgivm.create_immv('p_ivm_tumble', 'SELECT date_bin(''1 minute'', bidtime, ''1970-01-01+00'') AS window_start, item, count(*) AS bids, sum(price) AS total FROM p_ivm GROUP BY 1, 2')" >/dev/null
			fi
			iins=$(psql -At -c "SELECT w8_time(w8_batch(1000, $next, 'p_ivm'))")
			printf "$pfmt" "$n" "pg_ivm INSERT (maintains the view)" "$iins"
		fi
		next=$((next + 1000))
	done
done

fi

if [ -z "${W8_ONLY:-}" ]; then
echo
echo "# W8 writers: 8 clients, 1k-row INSERT batches, $W8_SECONDS s each"
for nv in 0 1 3; do
	psql -c "DROP TABLE IF EXISTS w CASCADE" \
		-c "CREATE TABLE w (bidtime timestamptz, price numeric(10,2), item int)" \
		-c "CREATE INDEX ON w (bidtime)"
	for i in $(seq 1 $nv); do
		psql -v i="$i" -f writer_view.sql >/dev/null
	done
	tps=$(pgbench -n -c 8 -j 2 -T "$W8_SECONDS" -f writer.sql 2>/dev/null | sed -n 's/^tps = \([0-9.]*\).*/\1/p' | head -1)
	echo "views=$nv statements/s=$tps"
done

fi

[ -z "${W8_ONLY:-}" ] || [ "$W8_ONLY" = state ] || exit 0
echo
total=$((8640000 / 10000))
[ -n "${W8_QUICK:-}" ] && total=20
echo "# W8 state: $((total * 10000)) rows streamed in 10k-row batches (a day at 100 bids/s is 864), refresh after each"
psql -f lib.sql
psql -c "DROP TABLE IF EXISTS bids CASCADE" \
	-c "CREATE TABLE bids (bidtime timestamptz, price numeric(10,2), item int)" \
	-c "CREATE INDEX ON bids (bidtime)"
psql -f views.sql >/dev/null
psql -v total="$total" <<'SQL'
CREATE TABLE w8_state (batch int, view text, state_before bigint, state_after bigint,
                       refresh_ms numeric, view_rows bigint, state_bytes bigint);
CREATE PROCEDURE w8_stream(first int, n int) LANGUAGE plpgsql AS $$
DECLARE
  v text;
  before bigint;
  ms numeric;
BEGIN
  FOR i IN first .. first + n - 1 LOOP
    EXECUTE w8_batch(10000, i * 10000 + 1);
    COMMIT;
    FOREACH v IN ARRAY ARRAY['v_tumble', 'v_hop', 'v_cumulate', 'v_session'] LOOP
      SELECT state_rows INTO before FROM windowjoin.views WHERE name = v::regclass;
      ms := w8_time(format('SELECT windowjoin.refresh(%L)', v));
      INSERT INTO w8_state SELECT i, v, before, state_rows, ms, rows, state_bytes
        FROM windowjoin.views WHERE name = v::regclass;
      COMMIT;
    END LOOP;
  END LOOP;
END
$$;
-- a CALL per 12 batches: a backend reports its dead rows to autovacuum
-- when it goes idle, not at a COMMIT inside a procedure (the scheduler's
-- worker exits after its refreshes; a manual refresh is its own statement)
SELECT format('CALL w8_stream(%s, %s)', b, least(12, :total - b))
  FROM generate_series(0, :total - 1, 12) b \gexec
\pset footer off
SELECT batch, substr(view, 3) AS view, state_before, state_after, refresh_ms, view_rows, state_bytes
  FROM w8_state
 WHERE batch % greatest(:total / 8, 1) = 0 OR batch = :total - 1
 ORDER BY batch, view;
SELECT substr(view, 3) AS view,
       round(avg(refresh_ms) FILTER (WHERE batch < :total / 4), 1) AS first_quarter_ms,
       round(avg(refresh_ms) FILTER (WHERE batch >= :total * 3 / 4), 1) AS last_quarter_ms,
       max(state_after) AS max_state_after
  FROM w8_state GROUP BY view ORDER BY view;
SQL
RUN
chmod 755 "$work/run.sh"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg) (1/5/15 min) before the run"
quick=
[ "$sizes" = 100000 ] && quick=1
preload=windowjoin
libdir=$(pg_config --pkglibdir)
[ -f "$libdir/timescaledb.so" ] && preload="timescaledb,$preload"
[ -f "$libdir/pg_ivm.so" ] && preload="$preload,pg_ivm"
wj_virtualenv -o shared_buffers=2GB -o max_wal_size=8GB -o windowjoin.scheduler=off \
	-o shared_preload_libraries="$preload" -o timescaledb.telemetry_level=off \
	env W8_SIZES="$sizes" W8_SECONDS="$seconds" W8_QUICK="$quick" W8_ONLY="$only" "$work/run.sh"
