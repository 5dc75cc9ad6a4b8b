"""The queries of test/hardening/cancel.sh and memlimit.sh, one per node and
phase.  Each case: a name, settings to apply first, the query (wrapped in
count(*) so that the client receives one row), and a string that must appear
in its EXPLAIN (the node under test; None for PostgreSQL-planned shapes whose
own loops are ours, such as the session() window function)."""

FORCE_NODE = ("SET enable_hashjoin = off; SET enable_mergejoin = off; "
              "SET enable_nestloop = off; ")

ASOF = ("SELECT count(*), sum(r.v) FROM a o JOIN LATERAL "
        "(SELECT v FROM b r WHERE r.k = o.k AND r.t <= o.t "
        "ORDER BY r.t DESC LIMIT 1) r ON true")
ASOF_NOKEY = ("SELECT count(*), sum(r.v) FROM a o JOIN LATERAL "
              "(SELECT v FROM b r WHERE r.t <= o.t "
              "ORDER BY r.t DESC LIMIT 1) r ON true")

# the window function's result must be used, or the planner drops it
SESSION_PER_KEY = ("SELECT count(*), max((w).window_end) FROM "
                   "(SELECT session(t, interval '5 minutes') "
                   "OVER (PARTITION BY k ORDER BY t) AS w FROM a) s")
SESSION_ONE = ("SELECT count(*), max((w).window_end) FROM "
               "(SELECT session(t, interval '1 hour') OVER (ORDER BY t) AS w FROM a) s")


def wjoin(tbl_l, tbl_r, fn):
    return ("SELECT count(*) FROM "
            f"(SELECT * FROM {tbl_l}, {fn}) L JOIN "
            f"(SELECT * FROM {tbl_r}, {fn}) R "
            "ON L.k = R.k AND L.window_start = R.window_start "
            "AND L.window_end = R.window_end")


# PostgreSQL's own aggregation plans off, for the TumbleAgg cases whose
# groups far exceed work_mem (where the planner rightly prefers them)
NO_PG_AGG = "SET enable_hashagg = off; SET enable_sort = off; "

# Cases whose name starts with "baseline" measure PostgreSQL's own nodes
# alone (the Sort below most of ours): reported for comparison, never failed.
BASELINE_SORT = "SELECT count(*) FROM (SELECT * FROM b ORDER BY t, v OFFSET 0) x"

CASES = [
    # name, settings, query, plan marker
    ("baseline: PostgreSQL Sort alone", "", BASELINE_SORT, "Sort"),
    ("AsOfJoin hashed (sorts + sweep)", "", ASOF, "AsOfJoin"),
    ("AsOfJoin merge, no key (sorts + merge)", "", ASOF_NOKEY, "AsOfJoin"),
    ("AsOfJoin merge phase (presorted by index)",
     "SET enable_sort = off; ", ASOF_NOKEY, "AsOfJoin"),
    ("IntervalJoin", FORCE_NODE,
     "SELECT count(*) FROM a JOIN b ON a.k = b.k AND "
     "b.t BETWEEN a.t - interval '1 minute' AND a.t + interval '1 minute'",
     "IntervalJoin"),
    ("IntervalJoin fan-out (4e8 pairs)", FORCE_NODE,
     "SELECT count(*) FROM fan_a a JOIN fan_b b ON a.k = b.k AND "
     "b.t BETWEEN a.t - interval '1 hour' AND a.t + interval '1 hour'",
     "IntervalJoin"),
    ("WindowJoin TUMBLE", FORCE_NODE,
     wjoin("a", "b", "tumble(t, interval '5 minutes')"), "WindowJoin"),
    ("WindowJoin HOP", FORCE_NODE,
     wjoin("a", "b", "hop(t, interval '1 minute', interval '10 minutes')"),
     "WindowJoin"),
    ("WindowJoin TUMBLE fan-out (4e8 pairs)", FORCE_NODE,
     wjoin("fan_a", "fan_b", "tumble(t, interval '1 hour')"), "WindowJoin"),
    ("WindowJoin HOP fan-out", FORCE_NODE,
     wjoin("fan_a", "fan_b", "hop(t, interval '30 minutes', interval '1 hour')"),
     "WindowJoin"),
    ("WindowExpand hop panes (1 s / 1 day)", "",
     "SELECT count(*) FROM (SELECT window_start, window_end, count(*) FROM a, "
     "hop(t, interval '1 second', interval '1 day') GROUP BY 1, 2) x",
     "WindowExpand"),
    ("WindowExpand cumulate panes (1 s / 1 day)", "",
     "SELECT count(*) FROM (SELECT window_start, window_end, count(*) FROM a, "
     "cumulate(t, interval '1 second', interval '1 day') GROUP BY 1, 2) x",
     "WindowExpand"),
    # far more groups than work_mem holds: the planner prefers PostgreSQL's
    # plan (the node's spill is costed), so its plans are off here
    ("TumbleAgg per key (1 s windows, hashed)", NO_PG_AGG,
     "SELECT count(*) FROM (SELECT k, window_start, count(*), sum(v) FROM a, "
     "tumble(t, interval '1 second') GROUP BY k, window_start, window_end) x",
     "TumbleAgg"),
    ("TumbleAgg date_bin 10 ms, no key (dense, then spills)", NO_PG_AGG,
     "SELECT count(*) FROM (SELECT date_bin('10 ms', t, timestamp '2024-01-01'), "
     "count(*), avg(v) FROM a GROUP BY 1) x",
     "TumbleAgg"),
    # the window function itself (SessionWindow, chosen on cost, would
    # replace it: its cancellation is the next two cases)
    ("session() window function", "SET windowjoin.enable_window_aggregate = off; ",
     SESSION_PER_KEY, "WindowAgg"),
    ("session() one long session (scan ahead)",
     "SET windowjoin.enable_window_aggregate = off; ", SESSION_ONE, "WindowAgg"),
    ("SessionWindow", "", SESSION_PER_KEY, "SessionWindow"),
    ("SessionWindow, one long session", "", SESSION_ONE, "SessionWindow"),
    ("session streaming aggregate", "",
     "SELECT count(*) FROM (SELECT k, (w).window_start, (w).window_end, count(*) "
     "FROM (SELECT k, session(t, interval '5 minutes') "
     "OVER (PARTITION BY k ORDER BY t) AS w FROM a) s GROUP BY 1, 2, 3) x",
     "GroupAggregate"),
    ("tumble() SRF (10 per row)", "",
     "SELECT count(*) FROM a, generate_series(1, 10) g, "
     "tumble(t + g * interval '1 second', interval '1 minute')", None),
    ("hop() SRF (86400 windows/row)", "",
     "SELECT count(*) FROM a, hop(t, interval '1 second', interval '1 day')",
     None),
    ("cumulate() SRF", "",
     "SELECT count(*) FROM a, cumulate(t, interval '1 second', interval '1 day')",
     None),
]

# Memory limits (memlimit.sh, work_mem = 1MB, 10 million rows per table and
# 100,000 keys): the same nodes on shapes whose output stays countable.
# group "joins" needs a and b, group "windows" only a.
MEMLIMIT_CASES = [
    # group, name, settings, query, plan marker
    ("joins", "baseline: PostgreSQL Sort alone", "", BASELINE_SORT, "Sort"),
    ("joins", "AsOfJoin hashed", "", ASOF, "AsOfJoin"),
    ("joins", "AsOfJoin merge, no key", "", ASOF_NOKEY, "AsOfJoin"),
    ("joins", "IntervalJoin (band +-1 min)", FORCE_NODE,
     "SELECT count(*) FROM a JOIN b ON a.k = b.k AND "
     "b.t BETWEEN a.t - interval '1 minute' AND a.t + interval '1 minute'",
     "IntervalJoin"),
    ("joins", "IntervalJoin, no key (band +-10 ms)", FORCE_NODE,
     "SELECT count(*) FROM a JOIN b ON "
     "b.t BETWEEN a.t - interval '10 milliseconds' AND a.t + interval '10 milliseconds'",
     "IntervalJoin"),
    ("joins", "WindowJoin TUMBLE 5 min", FORCE_NODE,
     wjoin("a", "b", "tumble(t, interval '5 minutes')"), "WindowJoin"),
    ("joins", "WindowJoin HOP 1 min / 2 min", FORCE_NODE,
     wjoin("a", "b", "hop(t, interval '1 minute', interval '2 minutes')"),
     "WindowJoin"),
    # 833k rows per window and side, far beyond work_mem x
    # hash_mem_multiplier: every window spills and is joined in batches.
    ("joins", "WindowJoin TUMBLE 2 hours (windows spill)", FORCE_NODE,
     wjoin("a", "b", "tumble(t, interval '2 hours')"), "WindowJoin"),
    ("windows", "WindowExpand hop 1 min / 1 hour", "",
     "SELECT count(*) FROM (SELECT window_start, window_end, count(*) FROM a, "
     "hop(t, interval '1 minute', interval '1 hour') GROUP BY 1, 2) x",
     "WindowExpand"),
    ("windows", "WindowExpand cumulate 10 min / 1 day", "",
     "SELECT count(*) FROM (SELECT window_start, window_end, count(*) FROM a, "
     "cumulate(t, interval '10 minutes', interval '1 day') GROUP BY 1, 2) x",
     "WindowExpand"),
    ("windows", "session() per key", "",
     SESSION_PER_KEY, "WindowAgg"),
    ("windows", "session() one session over the whole table", "", SESSION_ONE, "WindowAgg"),
    ("windows", "session streaming aggregate", "",
     "SELECT count(*) FROM (SELECT k, (w).window_start, (w).window_end, count(*) "
     "FROM (SELECT k, session(t, interval '5 minutes') "
     "OVER (PARTITION BY k ORDER BY t) AS w FROM a) s GROUP BY 1, 2, 3) x",
     "GroupAggregate"),
    ("windows", "TumbleAgg per key, 1 min (hashed, spills)", NO_PG_AGG,
     "SELECT count(*) FROM (SELECT k, window_start, count(*), sum(v) FROM a, "
     "tumble(t, interval '1 minute') GROUP BY k, window_start, window_end) x",
     "TumbleAgg"),
    ("windows", "tumble() SRF", "",
     "SELECT count(*) FROM a, tumble(t, interval '1 minute')", None),
    ("windows", "hop() SRF (2 windows/row)", "",
     "SELECT count(*) FROM a, hop(t, interval '5 minutes', interval '10 minutes')",
     None),
    ("windows", "cumulate() SRF (2 windows/row)", "",
     "SELECT count(*) FROM a, cumulate(t, interval '30 minutes', interval '1 hour')",
     None),
]

# Runaway windows must stop at once with a clear error: a slide or step
# under 1 ms is refused outright, and 1 ms with a size of 1 day (86,400,000
# windows per row) is stopped by windowjoin.max_windows_per_row.
# name, query, expected error substring
RUNAWAY_CASES = [
    ("hop() SRF, slide 1 us, size 1 day",
     "SELECT count(*) FROM a, hop(t, interval '1 microsecond', interval '1 day')",
     "at least 1 millisecond"),
    ("hop() SRF, slide 1 ms, size 1 day",
     "SELECT count(*) FROM a, hop(t, interval '1 millisecond', interval '1 day')",
     "max_windows_per_row"),
    ("hop() aggregated (WindowExpand path), 1 ms / 1 day",
     "SELECT count(*) FROM (SELECT window_start, count(*) FROM a, "
     "hop(t, interval '1 millisecond', interval '1 day') GROUP BY 1) x",
     "max_windows_per_row"),
    ("cumulate() SRF, step 1 ms, size 1 day",
     "SELECT count(*) FROM a, cumulate(t, interval '1 millisecond', interval '1 day')",
     "max_windows_per_row"),
    ("WindowJoin HOP, slide 1 ms, size 1 day",
     wjoin("a", "b", "hop(t, interval '1 millisecond', interval '1 day')"),
     "max_windows_per_row"),
]

# The memory step of scripts/stress (memlimit.sh --group memory, data of
# memstress.sql, never analysed): every node at a work_mem of 1-4 MB on
# inputs of 10x work_mem or more.  Each case's rows are checksummed and must
# equal those of PostgreSQL's plan (all windowjoin.enable_* off), and the
# backend's peak private memory (VmHWM - RssShmem) must stay under 64 MB.
# name, work_mem, settings, query, plan marker, tables read
NODES_OFF = ("SET windowjoin.enable_window_join = off; "
             "SET windowjoin.enable_interval_join = off; "
             "SET windowjoin.enable_asof_join = off; "
             "SET windowjoin.enable_window_aggregate = off; ")


def wjoin_rows(tbl_l, tbl_r, fn, jt="JOIN"):
    return ("SELECT L.k AS lk, R.k AS rk, L.v AS lv, R.v AS rv, "
            "L.window_start AS lws, R.window_start AS rws FROM "
            f"(SELECT * FROM {tbl_l}, {fn}) L {jt} "
            f"(SELECT * FROM {tbl_r}, {fn}) R "
            "ON L.k = R.k AND L.window_start = R.window_start "
            "AND L.window_end = R.window_end")


MEMORY_CASES = [
    ("WindowJoin TUMBLE, one hot window, FULL", "2MB", FORCE_NODE,
     wjoin_rows("ms_hot_a", "ms_hot_b", "tumble(t, interval '5 minutes')", "FULL JOIN"),
     "WindowJoin", ["ms_hot_a", "ms_hot_b"]),
    ("WindowJoin HOP 10 min / 30 min", "2MB", FORCE_NODE,
     wjoin_rows("ms_a", "ms_b", "hop(t, interval '10 minutes', interval '30 minutes')"),
     "WindowJoin", ["ms_a", "ms_b"]),
    ("IntervalJoin, skewed key, band +-30 min", "2MB", FORCE_NODE,
     "SELECT a.k, a.v AS av, b.v AS bv FROM ms_io a JOIN ms_ii b ON a.k = b.k AND "
     "b.t BETWEEN a.t - interval '30 minutes' AND a.t + interval '30 minutes'",
     "IntervalJoin", ["ms_io", "ms_ii"]),
    ("AsOfJoin, 1M distinct keys", "2MB", "",
     "SELECT o.k, o.t, r.v FROM ms_asof_o o JOIN LATERAL "
     "(SELECT v FROM ms_asof_v r WHERE r.k = o.k AND r.t <= o.t "
     "ORDER BY r.t DESC LIMIT 1) r ON true",
     "AsOfJoin", ["ms_asof_o", "ms_asof_v"]),
    ("session() over 200,000 partitions", "2MB", "",
     "SELECT k, t, session(t, interval '5 minutes') "
     "OVER (PARTITION BY k ORDER BY t) AS w FROM ms_sess",
     "Session", ["ms_sess"]),
    ("SessionSort under WindowAgg, 200,000 partitions", "2MB", "",
     "SELECT k, t, session(t, interval '5 minutes') OVER w AS sw, count(*) OVER w AS n "
     "FROM ms_sess WINDOW w AS (PARTITION BY k ORDER BY t)",
     "SessionSort", ["ms_sess"]),
    ("TumbleAgg per key, 10 min (hashed, spills)", "2MB", NO_PG_AGG,
     "SELECT k, window_start, window_end, count(*) AS n, sum(v) AS s, max(t) AS last "
     "FROM ms_a, tumble(t, interval '10 minutes') GROUP BY 1, 2, 3",
     "TumbleAgg", ["ms_a"]),
    ("WindowExpand hop panes 10 min / 1 hour", "2MB", "",
     "SELECT window_start, window_end, count(*) AS n, sum(v) AS s FROM ms_a, "
     "hop(t, interval '10 minutes', interval '1 hour') GROUP BY 1, 2",
     "WindowExpand", ["ms_a"]),
]
