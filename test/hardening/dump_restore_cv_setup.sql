-- Continuous views for test/hardening/dump_restore.sh: a tumble view, a
-- hop view with panes, a session view, a late => 'log' view and a window
-- join view, with late rows and a pending (unfolded) change log, the
-- tumble view with a changefeed and a consumer of it, owned by
-- an ordinary role; dumped and restored into a fresh database.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
SET TimeZone = 'UTC';
CREATE EXTENSION windowjoin;
DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'wj_cv_owner') THEN
    CREATE ROLE wj_cv_owner;
  END IF;
END $$;
CREATE SCHEMA cv AUTHORIZATION wj_cv_owner;
SET ROLE wj_cv_owner;
SET search_path = cv, public;
CREATE TABLE bid (t timestamptz NOT NULL, item int, price numeric);
CREATE INDEX ON bid (t);
CREATE TABLE ask (t timestamptz NOT NULL, item int, price numeric);
CREATE INDEX ON ask (t);
INSERT INTO bid SELECT '2024-01-01'::timestamptz + i * interval '7 seconds', i % 5, i % 13
  FROM generate_series(1, 2000) i;
INSERT INTO ask SELECT '2024-01-01'::timestamptz + i * interval '11 seconds', i % 5, i % 7
  FROM generate_series(1, 1200) i;
SELECT windowjoin.create_view('v_tumble', $$SELECT item, window_start, window_end, count(*) AS n, sum(price) AS s
  FROM bid, tumble(t, interval '10 minutes') GROUP BY 1, 2, 3$$, delay => interval '1 minute',
  feed => true);
SELECT windowjoin.create_view('v_hop', $$SELECT window_start, window_end, count(*) AS n, max(price) AS m
  FROM bid, hop(t, interval '5 minutes', interval '15 minutes') GROUP BY 1, 2$$);
SELECT windowjoin.create_view('v_session', $$SELECT item, window_start, window_end, count(*) AS n
  FROM (SELECT item, (session(t, interval '30 seconds') OVER (PARTITION BY item ORDER BY t)).* FROM bid) s
  GROUP BY 1, 2, 3$$);
SELECT windowjoin.create_view('v_log', $$SELECT window_start, window_end, count(*) AS n
  FROM bid, tumble(t, interval '1 hour') GROUP BY 1, 2$$, late => 'log');
SELECT windowjoin.create_view('v_join', $$SELECT L.item, L.price AS bid, R.price AS ask, L.window_start, L.window_end
  FROM (SELECT * FROM bid, tumble(t, interval '10 minutes')) L
  JOIN (SELECT * FROM ask, tumble(t, interval '10 minutes')) R
    ON L.item = R.item AND L.window_start = R.window_start AND L.window_end = R.window_end$$);
-- late rows, folded
INSERT INTO bid VALUES ('2024-01-01 00:03', 1, 100), ('2024-01-01 00:31', 2, 200);
SELECT windowjoin.refresh(v) FROM unnest('{v_tumble,v_hop,v_session,v_log,v_join}'::regclass[]) v;
-- v_tumble's feed has a consumer, part way
SELECT windowjoin.feed_ack('v_tumble', 'app', 5);
-- and pending changes, not yet folded: the dump carries the change logs
INSERT INTO bid VALUES ('2024-01-01 01:00', 3, 300), ('2024-01-01 05:00', 4, 400);
INSERT INTO ask VALUES ('2024-01-01 05:00', 4, 400);
