#!/usr/bin/env bash
# Benchmark of WindowTopN (docs/window-topn.md) against PostgreSQL's plan of
# the same query (the node off: a Sort of every row and a WindowAgg with its
# row_number() <= N run condition) and against the date_bin() form a
# PostgreSQL user writes, serial and with 2 parallel workers, in one run:
#   Window Top-N:   the 3 highest bids per auction per 10-minute tumble
#   Window dedup:   the first bid per auction per 10-minute tumble
# (target: >= 3x faster than PostgreSQL's best plan).  Two tables of the
# same bids: in arrival order (event time increasing, up to 4 s of
# disorder, as a stream lands in a table and as Nexmark generates them)
# and in random order.
# Usage: bench/window_topn.sh [--rows N] [--quick] [--runs N]
# Defaults: 5,000,000 bids over one day and 1,000 auctions, median of 3 runs.
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
SET work_mem = '256MB';
SET jit = off;
SELECT setseed(0.5);
CREATE TABLE bid_ordered AS
SELECT timestamp '2024-01-01' + ((i * 86400.0 / $rows) * 1e6 + random() * 4e6)::bigint * interval '1 microsecond' AS bidtime,
       (random() * 1000)::numeric(10,2) AS price,
       (random() * 999)::int AS auction,
       (random() * 100000)::int AS bidder
FROM generate_series(1, $rows) i;
CREATE TABLE bid_random AS SELECT * FROM bid_ordered ORDER BY random();
VACUUM ANALYZE bid_ordered;
VACUUM ANALYZE bid_random;
\\echo bids: $rows rows, one day, 1000 auctions; median of $runs runs after a warm-up

CREATE FUNCTION topn_q(tab text, dedup boolean, tumble boolean) RETURNS text LANGUAGE sql AS \$\$
  SELECT format(\$f\$SELECT count(*) || ' rows, ' || sum(price) || ' ' || sum(bidder) FROM (
    SELECT auction, price, bidder, %s,
           row_number() OVER (PARTITION BY %s, auction ORDER BY %s) AS rn
    FROM %s) t WHERE rn %s\$f\$,
    CASE WHEN tumble THEN 'window_start, window_end' ELSE 'date_bin(''10 minutes'', bidtime, timestamp ''2024-01-01'') AS window_start' END,
    CASE WHEN tumble THEN 'window_start, window_end' ELSE 'date_bin(''10 minutes'', bidtime, timestamp ''2024-01-01'')' END,
    CASE WHEN dedup THEN 'bidtime, bidder' ELSE 'price DESC, bidder' END,
    CASE WHEN tumble THEN tab || ', tumble(bidtime, interval ''10 minutes'')' ELSE tab END,
    CASE WHEN dedup THEN '= 1' ELSE '<= 3' END)
\$\$;

CREATE FUNCTION topn_run(tab text, dedup boolean) RETURNS void LANGUAGE plpgsql AS \$\$
DECLARE
  what text := CASE WHEN dedup THEN 'dedup' ELSE 'top 3' END || ' ' || tab;
BEGIN
  PERFORM set_config('max_parallel_workers_per_gather', '0', false);
  PERFORM wj_bench(what || ': WindowTopN', topn_q(tab, dedup, true), $runs);
  PERFORM set_config('max_parallel_workers_per_gather', '2', false);
  PERFORM wj_bench(what || ': WindowTopN, 2 workers', topn_q(tab, dedup, true), $runs);
  PERFORM set_config('windowjoin.enable_window_topn', 'off', false);
  PERFORM set_config('max_parallel_workers_per_gather', '0', false);
  PERFORM wj_bench(what || ': node off', topn_q(tab, dedup, true), $runs);
  PERFORM wj_bench(what || ': date_bin', topn_q(tab, dedup, false), $runs);
  PERFORM set_config('max_parallel_workers_per_gather', '2', false);
  PERFORM wj_bench(what || ': date_bin, 2 workers', topn_q(tab, dedup, false), $runs);
  PERFORM set_config('windowjoin.enable_window_topn', 'on', false);
END \$\$;

SELECT topn_run('bid_ordered', false);
SELECT topn_run('bid_ordered', true);
SELECT topn_run('bid_random', false);
SELECT topn_run('bid_random', true);

\\echo
\\echo speedup = PostgreSQL ms / WindowTopN ms (above 1: WindowTopN is faster); best = the fastest PostgreSQL plan
SELECT w.what,
       round(w.median_ms::numeric) AS wj_ms,
       round(w2.median_ms::numeric) AS wj_2w_ms,
       round(o.median_ms::numeric) AS off_ms,
       round(d.median_ms::numeric) AS date_bin_ms,
       round(d2.median_ms::numeric) AS date_bin_2w_ms,
       round((least(o.median_ms, d.median_ms, d2.median_ms) / least(w.median_ms, w2.median_ms))::numeric, 2) AS vs_best,
       w.checksum = o.checksum AND w.checksum = d.checksum AND w.checksum = w2.checksum AND w.checksum = d2.checksum AS same_rows
FROM (SELECT split_part(label, ': ', 1) AS what, * FROM wj_bench_results WHERE label LIKE '%: WindowTopN') w
JOIN wj_bench_results w2 ON w2.label = w.what || ': WindowTopN, 2 workers'
JOIN wj_bench_results o ON o.label = w.what || ': node off'
JOIN wj_bench_results d ON d.label = w.what || ': date_bin'
JOIN wj_bench_results d2 ON d2.label = w.what || ': date_bin, 2 workers'
ORDER BY 1;
SELECT bool_and(x.checksum = o.checksum) AS all_checksums_agree
FROM wj_bench_results x JOIN wj_bench_results o
  ON o.label = split_part(x.label, ': ', 1) || ': node off' \\gset
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
