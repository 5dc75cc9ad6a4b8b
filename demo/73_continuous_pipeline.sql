-- Streaming pipelines: a window Top-N and a window deduplication kept as
-- continuous views, and a cascade (per minute -> per 10 minutes -> top
-- keys) whose stages close in the same pass
CREATE TABLE click (t timestamptz NOT NULL, page text, user_id int);
CREATE INDEX ON click (t);
INSERT INTO click VALUES
  ('2024-01-01 10:00:05+00', 'home', 1), ('2024-01-01 10:00:20+00', 'cart', 2),
  ('2024-01-01 10:01:10+00', 'home', 3), ('2024-01-01 10:02:30+00', 'shop', 1),
  ('2024-01-01 10:03:00+00', 'home', 2), ('2024-01-01 10:04:40+00', 'shop', 3),
  ('2024-01-01 10:06:10+00', 'cart', 1), ('2024-01-01 10:08:00+00', 'cart', 2),
  ('2024-01-01 10:09:30+00', 'cart', 3), ('2024-01-01 10:11:00+00', 'home', 1);

\echo
\echo '== WINDOW TOP-N ==  the 2 pages of most clicks in each 5 minutes'
SELECT windowjoin.create_view('top_pages', $$
  SELECT * FROM (
    SELECT *, row_number() OVER (PARTITION BY window_start, window_end ORDER BY clicks DESC, page) AS rn
      FROM (SELECT window_start, window_end, page, count(*) AS clicks
              FROM click, tumble(t, interval '5 minutes') GROUP BY 1, 2, 3) a) r
  WHERE rn <= 2$$) AS created;
SELECT * FROM top_pages ORDER BY window_start, rn;

\echo
\echo '== WINDOW DEDUPLICATION ==  each user''s first click of each 5 minutes'
SELECT windowjoin.create_view('first_click', $$
  SELECT * FROM (
    SELECT user_id, page, t, window_start, window_end,
           row_number() OVER (PARTITION BY window_start, window_end, user_id ORDER BY t) AS rn
      FROM click, tumble(t, interval '5 minutes')) r
  WHERE rn = 1$$) AS created;
SELECT user_id, page, t, window_start FROM first_click ORDER BY window_start, user_id;

\echo
\echo '== CASCADE ==  clicks per minute -> per 10 minutes, one pass'
SELECT windowjoin.create_view('clicks_minute', $$SELECT window_start, window_end, page, count(*) AS n
  FROM click, tumble(t, interval '1 minute') GROUP BY 1, 2, 3$$) AS created;
CREATE INDEX ON clicks_minute (window_start);
SELECT windowjoin.create_view('clicks_10min', $$SELECT w.window_start, w.window_end, m.page, sum(m.n) AS n
  FROM clicks_minute m, tumble(m.window_start, interval '10 minutes') w GROUP BY 1, 2, 3$$) AS created;
\echo '   a click at 10:11 closed minute 10:09, and so [10:00, 10:10) downstream:'
SELECT * FROM clicks_10min ORDER BY page;
SELECT name, watermark FROM windowjoin.views WHERE name::text LIKE 'clicks_%' ORDER BY 1;
\echo '   a late click revises the minute, and the minute revises the 10 minutes'
INSERT INTO click VALUES ('2024-01-01 10:07:00+00', 'shop', 4);
SELECT windowjoin.refresh('clicks_minute'), windowjoin.refresh('clicks_10min');
SELECT * FROM clicks_10min ORDER BY page;
\echo '   dropping the upstream view takes its stages with it (cascade)'
SELECT windowjoin.drop_view('clicks_minute', "cascade" => true);
SELECT windowjoin.drop_view('top_pages');
SELECT windowjoin.drop_view('first_click');
DROP TABLE click;
