-- Nexmark kept continuously: the generator, the tables, the views, the
-- loader, the monitor and the report of bench/nexmark.sh.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS windowjoin;

-- nx_u(e, salt): a uniform number in [0, 1) for event e (the same for the
-- same arguments: the generator is a pure function of the event number)
CREATE FUNCTION nx_u(e bigint, salt int) RETURNS float8 LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT (hashint8(e * 64 + salt)::bigint & 2147483647) / 2147483648.0
$$;
-- nx_time(e, rate): event e's time, rate events a second of event time,
-- up to 2 s early (bounded disorder)
CREATE FUNCTION nx_time(e bigint, rate int) RETURNS timestamp LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT timestamp '2024-01-01' + ((e * 1000000) / rate - floor(nx_u(e, 9) * 2000000)::bigint) * interval '1 microsecond'
$$;

CREATE UNLOGGED TABLE nx_person_s (seq bigint, id bigint, name text, email_address text, credit_card text,
  city text, state text, date_time timestamp, extra text);
CREATE UNLOGGED TABLE nx_auction_s (seq bigint, id bigint, item_name text, description text, initial_bid bigint,
  reserve bigint, date_time timestamp, expires timestamp, seller bigint, category bigint, extra text);
CREATE UNLOGGED TABLE nx_bid_s (seq bigint, auction bigint, bidder bigint, price bigint, channel text, url text,
  date_time timestamp, extra text);
-- per load batch b: the latest event time of batches 0 .. b
CREATE UNLOGGED TABLE nx_batch (b bigint PRIMARY KEY, max_time timestamp);
CREATE TABLE nx_params (events bigint, rate int, batch int);
-- the loader's batches (b -1: the start), the monitor's samples, the state
CREATE UNLOGGED TABLE nx_log (b bigint, t timestamptz);
CREATE UNLOGGED TABLE nx_mon (t timestamptz, view text, wm timestamptz);
CREATE UNLOGGED TABLE nx_state (bytes bigint);
-- every second of the load, each view's state and its last refresh
CREATE UNLOGGED TABLE nx_trace (t timestamptz, view text, state_bytes bigint, refresh_ms float8,
                                steps jsonb);

-- nx_generate(n, rate, batch): n events by the Nexmark rules: of every 50,
-- 1 person, 3 auctions, 46 bids; a seller is one of the 100 newest persons
-- a quarter of the time, else a hot one (the newest multiple of 100); a
-- bid's auction is a hot one half of the time (the newest multiple of
-- 100), else one of the 100 newest; its bidder a hot person three
-- quarters of the time, else one of the 1000 newest; its price 10^(6u)
-- cents (Nexmark's log-uniform prices)
CREATE FUNCTION nx_generate(n bigint, rate int, batch int) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE nx_person_s, nx_auction_s, nx_bid_s, nx_batch, nx_params;
  INSERT INTO nx_params VALUES (n, rate, batch);
  INSERT INTO nx_person_s
    SELECT e, 1000 + e / 50, 'person ' || (e / 50), 'p' || (e / 50) || '@nexmark.example',
           lpad((abs(hashint8(e)) % 10000)::text, 4, '0') || ' 1234 5678 9012',
           (ARRAY['Phoenix', 'Los Angeles', 'San Francisco', 'Boise', 'Portland', 'Bend', 'Redmond', 'Seattle', 'Kent', 'Cheyenne'])[1 + (abs(hashint8(e + 1)) % 10)],
           (ARRAY['AZ', 'CA', 'ID', 'OR', 'WA', 'WY'])[1 + (abs(hashint8(e + 2)) % 6)],
           nx_time(e, rate), ''
      FROM generate_series(0, n - 1, 50) e;
  INSERT INTO nx_auction_s
    SELECT e, 1000 + 3 * (e / 50) + (e % 50 - 1), 'item ' || e, 'an item', 100 + (nx_u(e, 3) * 10000)::bigint,
           100 + (nx_u(e, 4) * 20000)::bigint, nx_time(e, rate),
           nx_time(e, rate) + (1 + nx_u(e, 5) * 20) * interval '1 second',
           CASE WHEN nx_u(e, 6) < 0.25 THEN 1000 + greatest(e / 50 - floor(nx_u(e, 7) * 100)::bigint, 0)
                ELSE 1000 + ((e / 50) / 100) * 100 END,
           10 + (abs(hashint8(e + 3)) % 5), ''
      FROM generate_series(0, n - 1) e WHERE e % 50 BETWEEN 1 AND 3;
  INSERT INTO nx_bid_s
    SELECT e,
           CASE WHEN nx_u(e, 1) < 0.5 THEN 1000 + ((3 * (e / 50)) / 100) * 100
                ELSE 1000 + greatest(3 * (e / 50) + 2 - floor(nx_u(e, 2) * 100)::bigint, 0) END,
           CASE WHEN nx_u(e, 3) < 0.75 THEN 1000 + ((e / 50) / 100) * 100 + 1
                ELSE 1000 + greatest(e / 50 - floor(nx_u(e, 4) * 1000)::bigint, 0) END,
           round(power(10, nx_u(e, 5) * 6) * 100)::bigint,
           'channel-' || (abs(hashint8(e + 4)) % 10000),
           'https://www.nexmark.example/item/' || (abs(hashint8(e + 5)) % 100000),
           nx_time(e, rate), ''
      FROM generate_series(0, n - 1) e WHERE e % 50 >= 4;
  CREATE INDEX IF NOT EXISTS nx_person_s_seq ON nx_person_s (seq);
  CREATE INDEX IF NOT EXISTS nx_auction_s_seq ON nx_auction_s (seq);
  CREATE INDEX IF NOT EXISTS nx_bid_s_seq ON nx_bid_s (seq);
  INSERT INTO nx_batch
    SELECT b, max(m) OVER (ORDER BY b)
      FROM (SELECT seq / batch AS b, max(date_time) AS m
              FROM (SELECT seq, date_time FROM nx_person_s UNION ALL SELECT seq, date_time FROM nx_auction_s
                    UNION ALL SELECT seq, date_time FROM nx_bid_s) x
             GROUP BY 1) y;
  ANALYZE nx_person_s, nx_auction_s, nx_bid_s, nx_batch;
END
$$;

-- the views of each query (delay 2 s: the generator's disorder bound)
CREATE TABLE nx_query (name text PRIMARY KEY, grid interval, flink_per_core text, query text);
INSERT INTO nx_query VALUES
 ('q5', '2 seconds', '22.1K', $q$SELECT * FROM (
    SELECT window_start, window_end, auction, count(*) AS num,
           rank() OVER (PARTITION BY window_start, window_end ORDER BY count(*) DESC) AS rk
      FROM bid, hop(date_time, interval '2 seconds', interval '10 seconds') GROUP BY 1, 2, 3) s
  WHERE rk = 1$q$),
 ('q7', '10 seconds', '12.3K', $q$SELECT * FROM (
    SELECT auction, price, bidder, date_time, extra, window_start, window_end,
           rank() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) AS rk
      FROM bid, tumble(date_time, interval '10 seconds')) s
  WHERE rk = 1$q$),
 ('q8', '10 seconds', '146.1K', $q$SELECT P.id, P.name, P.window_start, P.window_end
  FROM (SELECT * FROM person, tumble(date_time, interval '10 seconds')) P
 WHERE EXISTS (SELECT FROM (SELECT * FROM auction, tumble(date_time, interval '10 seconds')) A
                WHERE P.id = A.seller AND P.window_start = A.window_start AND P.window_end = A.window_end)$q$),
 ('q11', '1 second', '-', $q$SELECT bidder, window_start, window_end, count(*) AS bid_count
  FROM (SELECT bidder, (session(date_time, interval '10 seconds') OVER (PARTITION BY bidder ORDER BY date_time)).*
          FROM bid) s
 GROUP BY bidder, window_start, window_end$q$);

-- nx_setup(cfg, schedule_ms): empty tables and the views of cfg ('all':
-- the four), refreshed by the scheduler every schedule_ms
CREATE FUNCTION nx_setup(cfg text, schedule_ms int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  q record;
BEGIN
  PERFORM windowjoin.drop_view(name) FROM windowjoin.views;
  DROP TABLE IF EXISTS person, auction, bid CASCADE;
  CREATE TABLE person (id bigint, name text, email_address text, credit_card text, city text, state text,
                       date_time timestamp, extra text);
  CREATE TABLE auction (id bigint, item_name text, description text, initial_bid bigint, reserve bigint,
                        date_time timestamp, expires timestamp, seller bigint, category bigint, extra text);
  CREATE TABLE bid (auction bigint, bidder bigint, price bigint, channel text, url text,
                    date_time timestamp, extra text);
  CREATE INDEX ON person (date_time);
  CREATE INDEX ON auction (date_time);
  CREATE INDEX ON bid (date_time);
  TRUNCATE nx_log, nx_mon, nx_state, nx_trace;
  FOR q IN SELECT * FROM nx_query WHERE cfg IN (name, 'all') LOOP
    PERFORM windowjoin.create_view(q.name, q.query, delay => interval '2 seconds',
                                   schedule => schedule_ms * interval '1 millisecond');
  END LOOP;
END
$$;

-- nx_load(seconds, batch, rate): load the staged events batch by batch,
-- one transaction each, until they run out or the time is up; each
-- batch's time is taken just before its commit.  rate > 0 paces the load
-- at rate events a second (0: as fast as the server takes them).
CREATE PROCEDURE nx_load(seconds float8, batch int, rate float8 DEFAULT 0) LANGUAGE plpgsql AS $$
DECLARE
  t0 timestamptz := clock_timestamp();
  n bigint := (SELECT events FROM nx_params);
  a bigint := 0;
  ahead float8;
BEGIN
  INSERT INTO nx_log VALUES (-1, clock_timestamp());
  COMMIT;
  WHILE a < n AND clock_timestamp() < t0 + seconds * interval '1 second' LOOP
    INSERT INTO person SELECT id, name, email_address, credit_card, city, state, date_time, extra
      FROM nx_person_s WHERE seq >= a AND seq < a + batch;
    INSERT INTO auction SELECT id, item_name, description, initial_bid, reserve, date_time, expires, seller, category, extra
      FROM nx_auction_s WHERE seq >= a AND seq < a + batch;
    INSERT INTO bid SELECT auction, bidder, price, channel, url, date_time, extra
      FROM nx_bid_s WHERE seq >= a AND seq < a + batch;
    INSERT INTO nx_log VALUES (a / batch, clock_timestamp());
    COMMIT;
    a := a + batch;
    IF rate > 0 THEN
      ahead := a / rate - extract(epoch FROM clock_timestamp() - t0);
      IF ahead > 0 THEN
        PERFORM pg_sleep(ahead);
      END IF;
    END IF;
  END LOOP;
  INSERT INTO nx_state SELECT coalesce(sum(state_bytes), 0) FROM windowjoin.views;
  COMMIT;
END
$$;

-- nx_monitor(seconds): every 50 ms, each view's watermark; every second,
-- its state and last refresh (nx_trace)
CREATE PROCEDURE nx_monitor(seconds float8) LANGUAGE plpgsql AS $$
DECLARE
  t0 timestamptz := clock_timestamp();
  i bigint := 0;
BEGIN
  WHILE clock_timestamp() < t0 + seconds * interval '1 second' LOOP
    INSERT INTO nx_mon SELECT clock_timestamp(), c.view_rel::text, c.watermark FROM windowjoin.view_catalog c;
    IF i % 20 = 0 THEN
      -- (from the catalog: windowjoin.views counts the state's rows)
      INSERT INTO nx_trace
      SELECT clock_timestamp(), c.view_rel::text,
             pg_total_relation_size(c.changes_rel) + coalesce(pg_total_relation_size(c.changes2_rel), 0)
               + coalesce(pg_total_relation_size(c.panes_rel), 0),
             c.last_refresh_ms, c.last_stats
        FROM windowjoin.view_catalog c;
    END IF;
    i := i + 1;
    COMMIT;
    PERFORM pg_sleep(0.05);
  END LOOP;
END
$$;

-- nx_catch_up(seconds): wait until every view's watermark has passed the
-- last loaded batch's (at most seconds)
CREATE PROCEDURE nx_catch_up(seconds float8) LANGUAGE plpgsql AS $$
DECLARE
  t0 timestamptz := clock_timestamp();
  target timestamptz := (SELECT windowjoin._tz(max_time) - interval '2 seconds' FROM nx_batch
                          WHERE b = (SELECT max(b) FROM nx_log));
BEGIN
  WHILE clock_timestamp() < t0 + seconds * interval '1 second'
        AND EXISTS (SELECT FROM windowjoin.view_catalog WHERE watermark < target) LOOP
    PERFORM pg_sleep(0.1);
  END LOOP;
  PERFORM pg_sleep(0.2);
END
$$;

-- nx_trend(): per view, over the thirds of the load, the mean duration of
-- its refreshes and its state at the third's end: what grows when the
-- freshness drifts
CREATE FUNCTION nx_trend() RETURNS TABLE (line text) LANGUAGE sql AS $$
  WITH span AS (SELECT min(t) AS t0, max(t) AS t1 FROM nx_log),
  tr AS (SELECT x.view, least(3, 1 + floor(3 * extract(epoch FROM x.t - s.t0)
                                           / nullif(extract(epoch FROM s.t1 - s.t0), 0)))::int AS third,
                x.t, x.refresh_ms, x.state_bytes
           FROM nx_trace x, span s WHERE x.t BETWEEN s.t0 AND s.t1),
  per AS (SELECT view, third, round(avg(refresh_ms)::numeric) AS ms,
                 (array_agg(state_bytes ORDER BY t DESC))[1] AS bytes
            FROM tr GROUP BY view, third)
  SELECT format('#   %-4s refresh ms by third: %s; state: %s', view,
                string_agg(ms::text, ' -> ' ORDER BY third),
                string_agg(pg_size_pretty(bytes), ' -> ' ORDER BY third))
    FROM per GROUP BY view ORDER BY view
$$;

-- nx_report(cfg): one line of the report (bench/nexmark.sh)
CREATE FUNCTION nx_report(cfg text)
RETURNS TABLE (config text, events bigint, events_per_s bigint, fresh_p50 text, fresh_p99 text, lag text,
               drift numeric, state text, batch_ms text, "check" text, flink text) LANGUAGE plpgsql AS $$
DECLARE
  nb bigint := (SELECT count(*) FROM nx_log WHERE b >= 0);
  secs float8 := (SELECT extract(epoch FROM max(t) - min(t)) FROM nx_log);
  qq record;
  v record;
  bad bigint;
  checks text := '';
  bms numeric := 0;
  t0 timestamptz;
  f record;
BEGIN
  config := cfg;
  events := nb * (SELECT batch FROM nx_params);
  events_per_s := round(events / secs);
  -- freshness at each grid point x of each view's windows: from the commit
  -- of the first batch that let the watermark (latest event - 2 s) reach
  -- x to the first sample of the view's watermark at or past x
  WITH pts AS (
    SELECT q.name, x
      FROM nx_query q JOIN windowjoin.view_catalog c ON c.view_rel::text = q.name,
           LATERAL (SELECT windowjoin._tz(min(max_time)) - interval '2 seconds' AS lo,
                           windowjoin._tz(max(max_time)) - interval '2 seconds' AS hi
                      FROM nx_batch WHERE b BETWEEN 0 AND nb - 1) r,
           LATERAL generate_series(date_bin(q.grid, r.lo, timestamptz '2024-01-01') + q.grid, r.hi, q.grid) x
  ), fr AS (
    SELECT p.name, p.x,
           (SELECT min(m.t) FROM nx_mon m WHERE m.view = p.name AND m.wm >= p.x)
           - (SELECT min(l.t) FROM nx_log l JOIN nx_batch bt ON bt.b = l.b
               WHERE windowjoin._tz(bt.max_time) - interval '2 seconds' >= p.x) AS fresh
      FROM pts p
  ), ranked AS (
    SELECT extract(epoch FROM fresh) AS s, extract(epoch FROM x) AS xs,
           ntile(3) OVER (ORDER BY x) AS third FROM fr WHERE fresh IS NOT NULL
  )
  SELECT round(percentile_cont(0.5) WITHIN GROUP (ORDER BY s)::numeric, 2) AS p50,
         round(percentile_cont(0.99) WITHIN GROUP (ORDER BY s)::numeric, 2) AS p99,
         round((percentile_cont(0.5) WITHIN GROUP (ORDER BY s) FILTER (WHERE third = 3)
                / nullif(percentile_cont(0.5) WITHIN GROUP (ORDER BY s) FILTER (WHERE third = 1), 0))::numeric, 2) AS lag,
         round((regr_slope(s, xs) * 60)::numeric, 3) AS drift,
         count(*) AS n
    INTO f FROM ranked;
  fresh_p50 := f.p50 || ' s';
  fresh_p99 := f.p99 || ' s';
  lag := f.lag || 'x';
  drift := f.drift;
  state := pg_size_pretty((SELECT max(bytes) FROM nx_state));
  -- each view against its batch query over its closed windows, and the
  -- batch query's time over every event
  FOR qq IN SELECT n.name, n.query, n.flink_per_core FROM nx_query n WHERE cfg IN (n.name, 'all') ORDER BY n.name LOOP
    SELECT * INTO v FROM windowjoin.view_catalog c WHERE c.view_rel::text = qq.name;
    EXECUTE format('SELECT count(*) FROM ((SELECT * FROM (%s) b WHERE b.window_end <= %L EXCEPT ALL SELECT * FROM %I)
                    UNION ALL (SELECT * FROM %I EXCEPT ALL SELECT * FROM (%s) b WHERE b.window_end <= %L)) d',
                   qq.query, windowjoin._show(v.watermark, v.time_type), qq.name, qq.name, qq.query,
                   windowjoin._show(v.watermark, v.time_type)) INTO bad;
    checks := checks || CASE WHEN checks = '' THEN '' ELSE ' ' END || qq.name || ':'
              || CASE WHEN bad = 0 THEN 'ok' ELSE bad || ' rows differ' END;
    t0 := clock_timestamp();
    EXECUTE format('SELECT count(*) FROM (%s) b', qq.query);
    bms := bms + extract(epoch FROM clock_timestamp() - t0) * 1000;
    flink := CASE WHEN cfg = 'all' THEN '-' ELSE qq.flink_per_core END;
  END LOOP;
  batch_ms := round(bms)::text;
  "check" := checks;
  RETURN NEXT;
END
$$;
