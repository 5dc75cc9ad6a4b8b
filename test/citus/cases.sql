-- windowjoin on Citus (scripts/citus): every capability, each case run
-- with search_path = dist (distributed tables) and search_path = loc (the
-- same rows in plain tables on the coordinator); the two results must be
-- the same multiset of rows.
--
-- A case starts with a line
--   -- @case NAME NODE [GUC=VALUE ...]
-- NODE is the custom scan that every shard task's plan must contain
-- (EXPLAIN ANALYZE with citus.explain_all_tasks; a task whose shards are
-- empty may plan otherwise), or - when the capability needs no node of its
-- own (tumble() is inlined into plain grouping), or @coordinator for a
-- query that Citus cannot push down as a whole: it must still give the
-- local result, and its plan must be distributed; @repartition:NODE for a
-- repartition join whose merge tasks must all use NODE.  The
-- settings are applied with SET LOCAL, which Citus passes on to the shards
-- (citus.propagate_set_commands = local); on the tiny example tables they
-- switch off PostgreSQL's cheaper join methods, as the demo and regression
-- suites do, so that the nodes run.  Cases on the generated tables (g_*)
-- use the planner's own choice (but for a FULL JOIN, where PostgreSQL's
-- merge join is estimated cheaper) and are the ones timed by --bench.
-- Aggregates are exact (numeric sum, count) so that Citus's partial
-- aggregation gives the digits of a local one.

-- ===== tumble / hop / cumulate aggregation (demo/10) ======================
-- @case tumble_agg -
SELECT window_start, window_end, sum(price) AS total_price, count(*)
FROM bid, tumble(bidtime, interval '10 minutes')
GROUP BY window_start, window_end

-- @case tumble_offset_item -
SELECT item, window_start, window_end, sum(price)
FROM bid, tumble(ts => bidtime, size => interval '10 minutes', "offset" => interval '1 minute')
GROUP BY item, window_start, window_end

-- @case tumble_rows -
SELECT * FROM bid, tumble(bidtime, interval '10 minutes')

-- @case hop_rows -
SELECT * FROM bid, hop(bidtime, interval '5 minutes', interval '10 minutes')

-- @case hop_agg -
SELECT window_start, window_end, sum(price) AS total_price
FROM bid, hop(bidtime, interval '5 minutes', interval '10 minutes')
GROUP BY window_start, window_end

-- @case cumulate_agg -
SELECT window_start, window_end, sum(price) AS total_price
FROM bid, cumulate(bidtime, interval '2 minutes', interval '10 minutes')
GROUP BY window_start, window_end

-- ===== session() (demo/20): partitioned by the distribution column =========
-- @case session_rows SessionWindow enable_sort=off
SELECT bidtime, price, item, (w).window_start, (w).window_end, (w).window_time
FROM (SELECT *, session(bidtime, interval '5 minutes')
                  OVER (PARTITION BY item ORDER BY bidtime) AS w FROM bid_s) s

-- @case session_agg SessionWindow enable_sort=off
SELECT (w).window_start, (w).window_end, item, sum(price) AS total_price
FROM (SELECT *, session(bidtime, interval '5 minutes')
                  OVER (PARTITION BY item ORDER BY bidtime) AS w FROM bid_s) s
GROUP BY item, (w).window_start, (w).window_end

-- ===== window joins (demo/50): co-located on num ==========================
-- @case window_join_inner WindowJoin enable_hashjoin=off enable_mergejoin=off enable_nestloop=off
SELECT L.num, L.id, R.id, L.window_start, L.window_end
FROM (SELECT * FROM left_table, tumble(row_time, interval '5 minutes')) L
JOIN (SELECT * FROM right_table, tumble(row_time, interval '5 minutes')) R
ON L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end

-- @case window_join_left WindowJoin enable_hashjoin=off enable_mergejoin=off enable_nestloop=off
SELECT L.num, L.id, R.num, R.id, L.window_start, L.window_end
FROM (SELECT * FROM left_table, tumble(row_time, interval '5 minutes')) L
LEFT JOIN (SELECT * FROM right_table, tumble(row_time, interval '5 minutes')) R
ON L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end

-- @case window_join_right WindowJoin enable_hashjoin=off enable_mergejoin=off enable_nestloop=off
SELECT L.num, L.id, R.num, R.id, R.window_start, R.window_end
FROM (SELECT * FROM left_table, tumble(row_time, interval '5 minutes')) L
RIGHT JOIN (SELECT * FROM right_table, tumble(row_time, interval '5 minutes')) R
ON L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end

-- @case window_join_full WindowJoin enable_hashjoin=off enable_mergejoin=off enable_nestloop=off
SELECT L.num AS l_num, L.id AS l_id, R.num AS r_num, R.id AS r_id,
       COALESCE(L.window_start, R.window_start) AS window_start,
       COALESCE(L.window_end, R.window_end) AS window_end
FROM (SELECT * FROM left_table, tumble(row_time, interval '5 minutes')) L
FULL JOIN (SELECT * FROM right_table, tumble(row_time, interval '5 minutes')) R
ON L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end

-- @case window_join_semi WindowJoin enable_hashjoin=off enable_mergejoin=off enable_nestloop=off
SELECT * FROM (SELECT * FROM left_table, tumble(row_time, interval '5 minutes')) L
WHERE EXISTS (
  SELECT * FROM (SELECT * FROM right_table, tumble(row_time, interval '5 minutes')) R
  WHERE L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end)

-- @case window_join_anti WindowJoin enable_hashjoin=off enable_mergejoin=off enable_nestloop=off
SELECT * FROM (SELECT * FROM left_table, tumble(row_time, interval '5 minutes')) L
WHERE NOT EXISTS (
  SELECT * FROM (SELECT * FROM right_table, tumble(row_time, interval '5 minutes')) R
  WHERE L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end)

-- @case window_join_hop WindowJoin enable_hashjoin=off enable_mergejoin=off enable_nestloop=off
SELECT L.num, L.id, R.id, L.window_start, L.window_end
FROM (SELECT * FROM left_table, hop(row_time, interval '2 minutes', interval '6 minutes')) L
JOIN (SELECT * FROM right_table, hop(row_time, interval '2 minutes', interval '6 minutes')) R
ON L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end

-- ===== interval joins (demo/30): co-located on order_id / dev =============
-- @case interval_join_inner IntervalJoin enable_hashjoin=off enable_mergejoin=off enable_nestloop=off
SELECT o.order_id, o.order_time, s.ship_time, s.ship_time - o.order_time AS delay
FROM orders o JOIN shipments s
  ON s.order_id = o.order_id
 AND s.ship_time BETWEEN o.order_time AND o.order_time + interval '2 hours'

-- @case interval_join_left IntervalJoin enable_hashjoin=off enable_mergejoin=off enable_nestloop=off
SELECT o.order_id, o.order_time, s.ship_id, s.ship_time
FROM orders o LEFT JOIN shipments s
  ON s.order_id = o.order_id
 AND s.ship_time BETWEEN o.order_time AND o.order_time + interval '2 hours'

-- @case interval_join_sensors IntervalJoin
SELECT count(*), sum(a.v * b.v) FROM sensor_a a JOIN sensor_b b
  ON a.dev = b.dev AND b.t BETWEEN a.t - interval '2 seconds' AND a.t + interval '2 seconds'

-- ===== as-of joins (demo/40) ==============================================
-- rates is a reference table (a copy on every node)
-- @case asof_reference AsOfJoin enable_nestloop=off
SELECT o.order_id, o.currency, o.order_time, r.rate, r.update_time,
       o.amount * r.rate AS amount_krw
FROM fx_orders o
JOIN LATERAL (
  SELECT rate, update_time FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC
  LIMIT 1) r ON true

-- @case asof_reference_left AsOfJoin enable_nestloop=off
SELECT o.order_id, o.currency, o.order_time, r.rate, r.update_time
FROM fx_orders o
LEFT JOIN LATERAL (
  SELECT rate, update_time FROM rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC
  LIMIT 1) r ON true

-- rates_c and fx_orders_c are co-located on the currency
-- @case asof_colocated AsOfJoin enable_nestloop=off
SELECT o.order_id, o.currency, o.order_time, r.rate, r.update_time
FROM fx_orders_c o
JOIN LATERAL (
  SELECT rate, update_time FROM rates_c r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC
  LIMIT 1) r ON true

-- @case asof_colocated_left AsOfJoin enable_nestloop=off
SELECT o.order_id, o.currency, o.order_time, r.rate, r.update_time
FROM fx_orders_c o
LEFT JOIN LATERAL (
  SELECT rate, update_time FROM rates_c r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC
  LIMIT 1) r ON true

-- ===== the generated data set, the planner's own choices ==================
-- @case g_tumble_agg -
SELECT window_start, window_end, sum(price), count(*)
FROM g_bid, tumble(bidtime, interval '1 hour')
GROUP BY window_start, window_end

-- @case g_hop_agg WindowExpand
SELECT window_start, window_end, sum(price), count(*)
FROM g_bid, hop(bidtime, interval '5 minutes', interval '1 hour')
GROUP BY window_start, window_end

-- @case g_hop_agg_item WindowExpand
SELECT item, window_start, window_end, sum(price), count(*)
FROM g_bid, hop(bidtime, interval '1 hour', interval '1 day')
GROUP BY item, window_start, window_end

-- @case g_cumulate_agg WindowExpand
SELECT window_start, window_end, sum(price), count(*)
FROM g_bid, cumulate(bidtime, interval '10 minutes', interval '1 day')
GROUP BY window_start, window_end

-- @case g_session_agg SessionWindow
SELECT item, (w).window_start, (w).window_end, count(*), sum(price)
FROM (SELECT *, session(bidtime, interval '30 minutes')
                  OVER (PARTITION BY item ORDER BY bidtime) AS w FROM g_bid) s
GROUP BY item, (w).window_start, (w).window_end

-- @case g_window_join_inner WindowJoin
SELECT count(*), sum(hashtext(L.id || '/' || R.id || L.window_start))
FROM (SELECT * FROM g_left, tumble(row_time, interval '1 hour')) L
JOIN (SELECT * FROM g_right, tumble(row_time, interval '1 hour')) R
ON L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end

-- @case g_window_join_full WindowJoin enable_mergejoin=off enable_hashjoin=off
SELECT count(*), count(L.id), count(R.id),
       sum(hashtext(coalesce(L.id, '-') || '/' || coalesce(R.id, '-')))
FROM (SELECT * FROM g_left, tumble(row_time, interval '1 hour')) L
FULL JOIN (SELECT * FROM g_right, tumble(row_time, interval '1 hour')) R
ON L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end

-- @case g_window_join_anti WindowJoin
SELECT count(*), sum(hashtext(L.id))
FROM (SELECT * FROM g_left, tumble(row_time, interval '1 hour')) L
WHERE NOT EXISTS (
  SELECT * FROM (SELECT * FROM g_right, tumble(row_time, interval '1 hour')) R
  WHERE L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end)

-- @case g_interval_join IntervalJoin
SELECT count(*), sum(a.v::numeric * b.v)
FROM g_sensor_a a JOIN g_sensor_b b
  ON a.dev = b.dev AND b.t BETWEEN a.t - interval '2 seconds' AND a.t + interval '2 seconds'

-- @case g_interval_join_left IntervalJoin
SELECT count(*), count(b.v), sum(a.v::numeric * b.v)
FROM g_sensor_a a LEFT JOIN g_sensor_b b
  ON a.dev = b.dev AND b.t BETWEEN a.t - interval '1 second' AND a.t + interval '1 second'

-- @case g_asof_reference AsOfJoin
SELECT count(*), count(r.rate), sum(o.amount * r.rate)
FROM g_fx_orders o
LEFT JOIN LATERAL (
  SELECT rate FROM g_rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC
  LIMIT 1) r ON true

-- @case g_asof_colocated AsOfJoin
SELECT count(*), count(r.rate), sum(o.amount * r.rate)
FROM g_fx_orders_c o
LEFT JOIN LATERAL (
  SELECT rate FROM g_rates_c r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC
  LIMIT 1) r ON true

-- ===== parallel query on the shards ======================================
-- force_parallel_mode = regress on the shards: each shard's plan runs in a
-- parallel worker where it can (under a Gather that EXPLAIN hides)
-- @case g_interval_join_parallel IntervalJoin force_parallel_mode=regress
SELECT count(*), sum(a.v::numeric * b.v)
FROM g_sensor_a a JOIN g_sensor_b b
  ON a.dev = b.dev AND b.t BETWEEN a.t - interval '2 seconds' AND a.t + interval '2 seconds'

-- @case g_asof_reference_parallel AsOfJoin force_parallel_mode=regress
SELECT count(*), count(r.rate), sum(o.amount * r.rate)
FROM g_fx_orders o
LEFT JOIN LATERAL (
  SELECT rate FROM g_rates r
  WHERE r.currency = o.currency AND r.update_time <= o.order_time
  ORDER BY r.update_time DESC
  LIMIT 1) r ON true

-- @case g_window_join_parallel WindowJoin force_parallel_mode=regress
SELECT count(*), sum(hashtext(L.id || '/' || R.id || L.window_start))
FROM (SELECT * FROM g_left, tumble(row_time, interval '1 hour')) L
JOIN (SELECT * FROM g_right, tumble(row_time, interval '1 hour')) R
ON L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end

-- @case g_hop_agg_parallel WindowExpand force_parallel_mode=regress
SELECT window_start, window_end, sum(price), count(*)
FROM g_bid, hop(bidtime, interval '5 minutes', interval '1 hour')
GROUP BY window_start, window_end

-- @case g_session_agg_parallel SessionWindow force_parallel_mode=regress
SELECT item, (w).window_start, (w).window_end, count(*), sum(price)
FROM (SELECT *, session(bidtime, interval '30 minutes')
                  OVER (PARTITION BY item ORDER BY bidtime) AS w FROM g_bid) s
GROUP BY item, (w).window_start, (w).window_end

-- ===== what does not push down: the same rows, other plans ================
-- session() without the distribution column in PARTITION BY: Citus pulls
-- the rows to the coordinator, where PostgreSQL's WindowAgg computes it
-- @case session_no_partition @coordinator
SELECT bidtime, price, item, (w).window_start, (w).window_end
FROM (SELECT *, session(bidtime, interval '5 minutes') OVER (ORDER BY bidtime) AS w FROM bid_s) s

-- @case g_session_other_partition @coordinator
SELECT price, (w).window_start, (w).window_end, count(*)
FROM (SELECT *, session(bidtime, interval '5 minutes')
                  OVER (PARTITION BY price ORDER BY bidtime) AS w FROM g_bid) s
GROUP BY price, (w).window_start, (w).window_end

-- window join of tables not co-located on the key: Citus computes one side
-- first and sends it to every shard of the other as an intermediate
-- result, which PostgreSQL's join methods then join
-- @case g_window_join_not_colocated @coordinator
SELECT count(*), sum(hashtext(L.id || '/' || R.id || L.window_start))
FROM (SELECT * FROM g_left, tumble(row_time, interval '1 hour')) L
JOIN (SELECT * FROM g_right_x, tumble(row_time, interval '1 hour')) R
ON L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end

-- interval join of tables not co-located on the key: only with
-- citus.enable_repartition_joins, which repartitions both sides on the key;
-- each merge task joins its two fragments with the node (its plan, which
-- EXPLAIN does not show, is read from the workers' auto_explain log)
-- @case g_interval_join_repartition @repartition:IntervalJoin citus.enable_repartition_joins=on
SELECT count(*), sum(a.v::numeric * b.v)
FROM g_sensor_a a JOIN g_sensor_bx b
  ON a.dev = b.dev AND b.t BETWEEN a.t - interval '2 seconds' AND a.t + interval '2 seconds'
