#!/usr/bin/env bash
# Benchmark of the window assignment functions against the SQL a user
# writes without windowjoin, on the same data in one run:
#   tumble   vs  GROUP BY date_bin(...)                      (target: <= 1.1x)
#   hop      vs  LATERAL generate_series(date_bin(...) ...)  (target: >= 1.5x faster)
#   session  vs  gaps-and-islands (lag + running sum)        (target: >= 3x faster)
# Usage: bench/windows.sh [--rows N] [--quick] [--runs N]
# Defaults: 5,000,000 bids over 30 days and 1,000 items, median of 3 runs.
set -euo pipefail
source "$(dirname "$0")/../scripts/common.sh"

rows=5000000
runs=3
while [ $# -gt 0 ]; do
	case "$1" in
		--rows) rows=$2; shift 2 ;;
		--runs) runs=$2; shift 2 ;;
		--quick) rows=50000; runs=1; shift ;;
		*) echo "usage: $0 [--rows N] [--runs N] [--quick]" >&2; exit 2 ;;
	esac
done

wj_ensure_deps
wj_lock
wj_build_install

sqlfile=$(mktemp /tmp/wj-bench-XXXXXX.sql)
chmod 644 "$sqlfile"
cat "$WJ_ROOT/bench/bench_lib.sql" > "$sqlfile"
cat >> "$sqlfile" <<SQL
\\set ON_ERROR_STOP 1
SET max_parallel_workers_per_gather = 0;	-- one core each, like for like
SET work_mem = '256MB';
SELECT setseed(0.5);
CREATE TABLE bids AS
SELECT timestamp '2024-01-01' + (random() * 30 * 86400 * 1e6)::bigint * interval '1 microsecond' AS bidtime,
       (random() * 100)::numeric(10,2) AS price,
       (random() * 999)::int AS item
FROM generate_series(1, $rows);
VACUUM ANALYZE bids;
\\echo bids: $rows rows, 30 days, 1000 items; median of $runs runs after a warm-up

SELECT wj_bench('tumble 1 min', \$q\$
  SELECT count(*) || ' windows, total ' || sum(total) FROM (
    SELECT window_start, window_end, sum(price) AS total
    FROM bids, tumble(bidtime, interval '1 minute')
    GROUP BY window_start, window_end) x \$q\$, $runs);
SELECT wj_bench('date_bin 1 min', \$q\$
  SELECT count(*) || ' windows, total ' || sum(total) FROM (
    SELECT date_bin('1 minute', bidtime, timestamp '1970-01-01') AS window_start,
           date_bin('1 minute', bidtime, timestamp '1970-01-01') + interval '1 minute' AS window_end,
           sum(price) AS total
    FROM bids GROUP BY 1, 2) x \$q\$, $runs);

SELECT wj_bench('hop 10 min / 1 min', \$q\$
  SELECT count(*) || ' windows, total ' || sum(total) FROM (
    SELECT window_start, window_end, sum(price) AS total
    FROM bids, hop(bidtime, interval '1 minute', interval '10 minutes')
    GROUP BY window_start, window_end) x \$q\$, $runs);
SELECT wj_bench('generate_series 10 min / 1 min', \$q\$
  SELECT count(*) || ' windows, total ' || sum(total) FROM (
    SELECT ws AS window_start, ws + interval '10 minutes' AS window_end, sum(price) AS total
    FROM bids, LATERAL generate_series(date_bin('1 minute', bidtime, timestamp '1970-01-01') - interval '9 minutes',
                                       date_bin('1 minute', bidtime, timestamp '1970-01-01'),
                                       interval '1 minute') AS ws
    GROUP BY 1, 2) x \$q\$, $runs);

SELECT wj_bench('session 5 min', \$q\$
  SELECT count(*) || ' sessions, total ' || sum(total) FROM (
    SELECT item, (w).window_start, (w).window_end, sum(price) AS total
    FROM (SELECT item, price, session(bidtime, interval '5 minutes')
                                OVER (PARTITION BY item ORDER BY bidtime) AS w
          FROM bids) s
    GROUP BY item, (w).window_start, (w).window_end) x \$q\$, $runs);
SELECT wj_bench('gaps-and-islands 5 min', \$q\$
  SELECT count(*) || ' sessions, total ' || sum(total) FROM (
    SELECT item, min(bidtime) AS window_start, max(bidtime) + interval '5 minutes' AS window_end,
           sum(price) AS total
    FROM (SELECT item, bidtime, price,
                 sum(brk) OVER (PARTITION BY item ORDER BY bidtime) AS sid
          FROM (SELECT item, bidtime, price,
                       CASE WHEN bidtime - lag(bidtime) OVER (PARTITION BY item ORDER BY bidtime)
                                 <= interval '5 minutes' THEN 0 ELSE 1 END AS brk
                FROM bids) a) b
    GROUP BY item, sid) x \$q\$, $runs);

\\echo
\\echo speedup = slower_ms / faster_ms (above 1: windowjoin is faster)
SELECT * FROM wj_ratio('tumble 1 min', 'date_bin 1 min')
UNION ALL SELECT * FROM wj_ratio('hop 10 min / 1 min', 'generate_series 10 min / 1 min')
UNION ALL SELECT * FROM wj_ratio('session 5 min', 'gaps-and-islands 5 min');
SELECT bool_and(same_result) AS all_checksums_agree FROM (
  SELECT * FROM wj_ratio('tumble 1 min', 'date_bin 1 min')
  UNION ALL SELECT * FROM wj_ratio('hop 10 min / 1 min', 'generate_series 10 min / 1 min')
  UNION ALL SELECT * FROM wj_ratio('session 5 min', 'gaps-and-islands 5 min')) r \\gset
\\if :all_checksums_agree
\\else
\\echo checksum mismatch
SELECT 1/0;
\\endif
SQL

status=0
wj_virtualenv -o shared_buffers=1GB sh -c "psql -X -q -v ON_ERROR_STOP=1 -c 'CREATE EXTENSION windowjoin' -f '$sqlfile'" 2>&1 |
	grep -v -E '^(Creating|Dropping) new|^Creating new|^Dropping cluster|LOG:' || status=$?
rm -f "$sqlfile"
exit $status
