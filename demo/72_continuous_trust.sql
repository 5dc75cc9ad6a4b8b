-- Continuous views you can trust: a partitioned source written through
-- its partitions, its columns renamed under the view, a column the view
-- reads that cannot be dropped, and the view's failure state
CREATE TABLE reading (device int NOT NULL, t timestamptz NOT NULL, v numeric)
  PARTITION BY LIST (device);
CREATE TABLE reading_1 PARTITION OF reading FOR VALUES IN (1);
CREATE TABLE reading_2 PARTITION OF reading FOR VALUES IN (2);
CREATE INDEX ON reading (t);

\echo
\echo '== TRUSTED CONTINUOUS VIEW ==  partitions, renames, DDL refused, failures'
SELECT windowjoin.create_view('reading_hourly',
  $$SELECT device, window_start, window_end, count(*) AS n, avg(v) AS mean
      FROM reading, tumble(t, interval '1 hour') GROUP BY 1, 2, 3$$) AS created;
\echo '   rows written straight into the partitions are captured'
INSERT INTO reading_1 VALUES (1, '2024-01-01 00:10+00', 10), (1, '2024-01-01 01:05+00', 12);
INSERT INTO reading_2 VALUES (2, '2024-01-01 00:20+00', 30), (2, '2024-01-01 01:30+00', 31);
SELECT windowjoin.refresh('reading_hourly');
SELECT * FROM reading_hourly ORDER BY device, window_start;
\echo '   the time and value columns renamed: writers and refresh go on'
ALTER TABLE reading RENAME COLUMN t TO measured_at;
ALTER TABLE reading RENAME COLUMN v TO value;
INSERT INTO reading_1 VALUES (1, '2024-01-01 00:40+00', 14), (1, '2024-01-01 02:30+00', 11);
SELECT windowjoin.refresh('reading_hourly');
SELECT * FROM reading_hourly ORDER BY device, window_start;
\echo '   a column the view reads cannot be dropped under it'
\set ON_ERROR_STOP 0
ALTER TABLE reading DROP COLUMN value;
\set ON_ERROR_STOP 1
\echo '   who owns it, and how its scheduled refreshes fare'
SELECT name, owner, watermark, rows, failures, last_error FROM windowjoin.views;
SELECT windowjoin.drop_view('reading_hourly');
DROP TABLE reading;
