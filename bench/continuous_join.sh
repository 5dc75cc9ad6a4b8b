#!/usr/bin/env bash
# W9: continuous join views (docs/continuous-joins.md), in one run:
#   refresh   histories of 1M and 10M rows per side, 100 rows a second per
#             side, then batches of 1k, 10k and 100k new rows per side
#             appended in time order with up to 2 s of disorder; the time of
#             windowjoin.refresh() for three views, against the full batch
#             join of the same view (the same rows, from scratch):
#               q8      Nexmark q8: persons x auctions by seller, per 10 s
#                       tumble window (a window join)
#               asof    orders x currency rate versions (100 currencies, a
#                       version per currency a second), backward as-of
#               band    sensor pairs: readings of the same device on two
#                       lines within 2 s of each other (an interval join)
#   state     a simulated day streamed in 10k-row batches per side, refreshed
#             after each: the view's state (its change logs) before and
#             after each refresh, the rows of each source the view still
#             waits on (at or after its frontier), and the refresh time
# Usage: bench/continuous_join.sh [--quick] [--sizes "1000000 10000000"]
#                                 [--state-only]
# --quick: 100k rows and a short state run (what scripts/test could afford).
set -euo pipefail
source "$(dirname "$0")/../scripts/common.sh"

sizes="1000000 10000000"
only=
while [ $# -gt 0 ]; do
	case "$1" in
		--sizes) sizes=$2; shift 2 ;;
		--quick) sizes=100000; shift ;;
		--state-only) only=state; shift ;;
		*) echo "usage: $0 [--quick] [--sizes LIST] [--state-only]" >&2; exit 2 ;;
	esac
done

wj_ensure_deps
wj_lock
wj_build_install

work=$(mktemp -d /tmp/wj-w9-XXXXXX)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT

cat > "$work/lib.sql" <<'SQL'
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS windowjoin;
-- w9_time(sql): milliseconds to run sql once
CREATE OR REPLACE FUNCTION w9_time(q text) RETURNS numeric LANGUAGE plpgsql AS $$
DECLARE
  t0 timestamptz := clock_timestamp();
BEGIN
  EXECUTE q;
  RETURN round((extract(epoch FROM clock_timestamp() - t0) * 1000)::numeric, 1);
END
$$;
-- w9_batch(n, first): the statements appending rows first .. first + n - 1
-- of every stream, 100 a second, each up to 2 s early (the same rows for
-- the same arguments)
CREATE OR REPLACE FUNCTION w9_batch(n int, first bigint) RETURNS text LANGUAGE sql AS $$
  SELECT format($f$
    INSERT INTO person SELECT i, 'p' || i, %1$s FROM generate_series(%2$s::bigint, %3$s::bigint) i;
    INSERT INTO auction SELECT i, greatest(i - abs(hashint8(i) %% 900), 1), %1$s FROM generate_series(%2$s::bigint, %3$s::bigint) i;
    INSERT INTO orders SELECT i, abs(hashint8(i + 3)) %% 100, (abs(hashint8(i + 4)) %% 10000) / 100.0, %1$s FROM generate_series(%2$s::bigint, %3$s::bigint) i;
    INSERT INTO rates SELECT i %% 100, 1 + (abs(hashint8(i + 5)) %% 1000) / 1000.0, %1$s FROM generate_series(%2$s::bigint, %3$s::bigint) i;
    INSERT INTO line1 SELECT abs(hashint8(i + 6)) %% 1000, (abs(hashint8(i + 7)) %% 1000) / 10.0, %1$s FROM generate_series(%2$s::bigint, %3$s::bigint) i;
    INSERT INTO line2 SELECT abs(hashint8(i + 8)) %% 1000, (abs(hashint8(i + 9)) %% 1000) / 10.0, %1$s FROM generate_series(%2$s::bigint, %3$s::bigint) i$f$,
    $t$timestamptz '2024-01-01' + (i * 10 - (hashint8(i) % 2000)::int) * interval '1 ms'$t$,
    first, first + n - 1)
$$;
SQL

cat > "$work/tables.sql" <<'SQL'
DROP TABLE IF EXISTS person, auction, orders, rates, line1, line2 CASCADE;
CREATE TABLE person (id bigint, name text, t timestamptz);
CREATE TABLE auction (id bigint, seller bigint, t timestamptz);
CREATE TABLE orders (id bigint, cur int, amount numeric(10,2), t timestamptz);
CREATE TABLE rates (cur int, rate numeric(10,3), t timestamptz);
CREATE TABLE line1 (dev int, v numeric(10,1), t timestamptz);
CREATE TABLE line2 (dev int, v numeric(10,1), t timestamptz);
SQL

cat > "$work/indexes.sql" <<'SQL'
CREATE INDEX ON person (t);
CREATE INDEX ON auction (t);
CREATE INDEX ON orders (t);
CREATE INDEX ON rates (t);
CREATE INDEX ON rates (cur, t);
CREATE INDEX ON line1 (t);
CREATE INDEX ON line2 (t);
VACUUM ANALYZE person, auction, orders, rates, line1, line2;
SQL

cat > "$work/views.sql" <<'SQL'
SELECT windowjoin.create_view('q8',
  $$SELECT P.id, P.name, P.window_start, P.window_end
      FROM (SELECT * FROM person, tumble(t, interval '10 seconds')) P
      JOIN (SELECT * FROM auction, tumble(t, interval '10 seconds')) A
        ON P.id = A.seller AND P.window_start = A.window_start AND P.window_end = A.window_end$$,
  delay => interval '5 seconds') IS NOT NULL AS q8;
SELECT windowjoin.create_view('asof',
  $$SELECT o.id, o.t, o.amount * r.rate AS amount_eur
      FROM orders o JOIN LATERAL (SELECT rate FROM rates r WHERE r.cur = o.cur AND r.t <= o.t
                                  ORDER BY r.t DESC LIMIT 1) r ON true$$,
  delay => interval '5 seconds') IS NOT NULL AS asof;
SELECT windowjoin.create_view('band',
  $$SELECT a.dev, a.t AS t1, b.t AS t2, b.v - a.v AS dv
      FROM line1 a JOIN line2 b
        ON a.dev = b.dev AND b.t BETWEEN a.t - interval '2 seconds' AND a.t + interval '2 seconds'$$,
  delay => interval '5 seconds') IS NOT NULL AS band;
SQL

cat > "$work/run.sh" <<'RUN'
#!/bin/bash
set -euo pipefail
cd "$(dirname "$0")"
psql() { command psql -X -q -v ON_ERROR_STOP=1 "$@"; }
views="q8 asof band"
fmt='%-10s %-7s %-6s %10s %11s %9s %10s %14s %10s\n'
if [ -z "${W9_ONLY:-}" ]; then
echo "# W9 refresh: history sizes $W9_SIZES per side (100 rows/s per side); batches of b new rows per"
echo "#   side (1k: 12 in a row, 2 minutes of events; mean and max), then windowjoin.refresh() of each view"
printf "$fmt" history batch view insert_ms refresh_ms max_ms batch_ms batch/refresh rows
for n in $W9_SIZES; do
	psql -f lib.sql -f tables.sql
	psql -c "SELECT w9_time(w9_batch($n, 1))" >/dev/null
	psql -f indexes.sql
	psql -f views.sql >/dev/null
	next=$((n + 1))
	for b in 1000 10000 100000; do
		reps=1
		[ "$b" = 1000 ] && reps=12
		declare -A sum=() max=()
		ins_sum=0
		for rep in $(seq 1 $reps); do
			ins=$(psql -At -c "SELECT w9_time(w9_batch($b, $next))")
			ins_sum=$(echo "$ins_sum + $ins" | bc)
			next=$((next + b))
			for v in $views; do
				r=$(psql -At -c "SELECT w9_time('SELECT windowjoin.refresh(''$v'')')")
				sum[$v]=$(echo "${sum[$v]:-0} + $r" | bc)
				if [ -z "${max[$v]:-}" ] || [ "$(echo "$r > ${max[$v]}" | bc)" = 1 ]; then
					max[$v]=$r
				fi
			done
		done
		ins=$(echo "scale=1; $ins_sum / $reps" | bc)
		for v in $views; do
			r=$(echo "scale=1; ${sum[$v]} / $reps" | bc)
			rows=$(psql -At -c "SELECT rows FROM windowjoin.views WHERE name = '$v'::regclass")
			full=- ratio=-
			if [ "$b" = 1000 ]; then
				full=$(psql -At -c "SELECT w9_time(format('CREATE TEMP TABLE w9_full AS SELECT * FROM (%s) q', query)) FROM windowjoin.views WHERE name = '$v'::regclass")
				ratio=$(echo "$full / $r" | bc)
			fi
			printf "$fmt" "$n" "$b" "$v" "$ins" "$r" "${max[$v]}" "$full" "$ratio" "$rows"
		done
	done
	psql -c "SELECT name, last_refresh_steps->>'changes_folded' AS folded, last_refresh_steps->>'windows_emitted' AS emitted, state_rows FROM windowjoin.views ORDER BY 1"
done
fi

echo
total=864
[ -n "${W9_QUICK:-}" ] && total=24
echo "# W9 state: $((total * 10000)) rows per stream in 10k-row batches (a day at 100 rows/s is 864), refresh after each"
psql -f lib.sql -f tables.sql -f indexes.sql
psql -f views.sql >/dev/null
psql -v total="$total" <<'SQL'
CREATE TABLE w9_state (batch int, view text, state_before bigint, state_after bigint,
                       waiting bigint, refresh_ms numeric, view_rows bigint);
-- the rows of the view's sources it still waits on: at or after its
-- frontier (window joins: the start of the first window still open)
CREATE FUNCTION w9_waiting(v text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  c record;
  fl timestamptz;
  n1 bigint;
  n2 bigint;
BEGIN
  SELECT * INTO c FROM windowjoin.view_catalog WHERE view_rel = v::regclass;
  IF c.join_kind = 'window' THEN
    fl := windowjoin._bin(c.watermark, c.size, c."offset");
    EXECUTE format('SELECT count(*) FROM %s WHERE %I >= $1', c.source_rel, c.time_column) INTO n1 USING fl;
    EXECUTE format('SELECT count(*) FROM %s WHERE %I >= $1', c.source2_rel, c.time_column2) INTO n2 USING fl;
  ELSE
    fl := least(c.watermark1, c.watermark2 - c.band_hi);
    EXECUTE format('SELECT count(*) FROM %s WHERE %I >= $1', c.source_rel, c.time_column) INTO n1 USING fl;
    EXECUTE format('SELECT count(*) FROM %s WHERE %I >= $1', c.source2_rel, c.time_column2)
      INTO n2 USING coalesce(fl + c.band_lo, fl);
  END IF;
  RETURN n1 + n2;
END
$$;
CREATE PROCEDURE w9_stream(first int, n int) LANGUAGE plpgsql AS $$
DECLARE
  v text;
  before bigint;
  ms numeric;
BEGIN
  FOR i IN first .. first + n - 1 LOOP
    EXECUTE w9_batch(10000, i * 10000 + 1);
    COMMIT;
    FOREACH v IN ARRAY ARRAY['q8', 'asof', 'band'] LOOP
      SELECT state_rows INTO before FROM windowjoin.views WHERE name = v::regclass;
      ms := w9_time(format('SELECT windowjoin.refresh(%L)', v));
      INSERT INTO w9_state SELECT i, v, before, state_rows, w9_waiting(v), ms, rows
        FROM windowjoin.views WHERE name = v::regclass;
      COMMIT;
    END LOOP;
  END LOOP;
END
$$;
SELECT format('CALL w9_stream(%s, %s)', b, least(12, :total - b))
  FROM generate_series(0, :total - 1, 12) b \gexec
\pset footer off
SELECT batch, view, state_before, state_after, waiting, refresh_ms, view_rows
  FROM w9_state
 WHERE batch % greatest(:total / 8, 1) = 0 OR batch = :total - 1
 ORDER BY batch, view;
SELECT view,
       round(avg(refresh_ms) FILTER (WHERE batch < :total / 4), 1) AS first_quarter_ms,
       round(avg(refresh_ms) FILTER (WHERE batch >= :total * 3 / 4), 1) AS last_quarter_ms,
       max(state_after) AS max_state_after, min(waiting) AS min_waiting, max(waiting) AS max_waiting
  FROM w9_state GROUP BY view ORDER BY view;
SQL
RUN
chmod 755 "$work/run.sh"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg) (1/5/15 min) before the run"
quick=
[ "$sizes" = 100000 ] && quick=1
wj_virtualenv -o shared_buffers=2GB -o max_wal_size=8GB -o windowjoin.scheduler=off \
	-o shared_preload_libraries=windowjoin \
	env W9_SIZES="$sizes" W9_QUICK="$quick" W9_ONLY="$only" "$work/run.sh"
