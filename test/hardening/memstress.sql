-- Data of the memory step of scripts/stress (memlimit.sh --group memory):
-- inputs of 10x work_mem or more, in tables that are never analysed
-- (autovacuum off, no ANALYZE), so that no node can rely on statistics.
-- psql variable :rows scales them (default run: 1,000,000).
CREATE EXTENSION IF NOT EXISTS windowjoin;
SELECT setseed(0.23);
-- one hot TUMBLE window: 1.2 x :rows rows per side inside one 5-minute
-- window, 1M keys
CREATE TABLE ms_hot_a WITH (autovacuum_enabled = false) AS
SELECT (random() * 999999)::int AS k,
       timestamp '2024-01-01' + (random() * 299e6)::bigint * interval '1 microsecond' AS t,
       i AS v
FROM generate_series(1, (:rows * 1.2)::bigint) i;
CREATE TABLE ms_hot_b WITH (autovacuum_enabled = false) AS
SELECT (random() * 999999)::int AS k,
       timestamp '2024-01-01' + (random() * 299e6)::bigint * interval '1 microsecond' AS t,
       i AS v
FROM generate_series(1, (:rows * 1.2)::bigint) i;
-- a day of events per side, 100,000 keys (HOP join, hop panes)
CREATE TABLE ms_a WITH (autovacuum_enabled = false) AS
SELECT (random() * 99999)::int AS k,
       timestamp '2024-01-01' + (random() * 86400e6)::bigint * interval '1 microsecond' AS t,
       i AS v
FROM generate_series(1, :rows) i;
CREATE TABLE ms_b WITH (autovacuum_enabled = false) AS
SELECT (random() * 99999)::int AS k,
       timestamp '2024-01-01' + (random() * 86400e6)::bigint * interval '1 microsecond' AS t,
       i AS v
FROM generate_series(1, :rows) i;
-- interval join with a skewed key: the inner side has :rows rows of key 0
-- in one hour besides :rows / 5 rows of 100,000 keys over the day; the
-- outer side five rows of key 0 in that hour besides 2 x :rows ordinary
-- rows (the node keeps the band of the smaller input: the hot one)
CREATE TABLE ms_io WITH (autovacuum_enabled = false) AS
SELECT (random() * 99998)::int + 1 AS k,
       timestamp '2024-01-01' + (random() * 86400e6)::bigint * interval '1 microsecond' AS t,
       i AS v
FROM generate_series(1, 2 * :rows) i
UNION ALL
SELECT 0, timestamp '2024-01-01 12:00' + i * interval '10 minutes', -i
FROM generate_series(1, 5) i;
CREATE TABLE ms_ii WITH (autovacuum_enabled = false) AS
SELECT (random() * 99998)::int + 1 AS k,
       timestamp '2024-01-01' + (random() * 86400e6)::bigint * interval '1 microsecond' AS t,
       i AS v
FROM generate_series(1, :rows / 5) i
UNION ALL
SELECT 0, timestamp '2024-01-01 12:00' + (random() * 3600e6)::bigint * interval '1 microsecond', -i
FROM generate_series(1, :rows) i;
-- as-of join: :rows outer rows, one per key; two versions per key, all at
-- distinct times (so that "the latest version" has no ties); the index
-- serves PostgreSQL's own plan of the reference run
CREATE TABLE ms_asof_o WITH (autovacuum_enabled = false) AS
SELECT i AS k,
       timestamp '2024-01-01' + (random() * 86400e6)::bigint * interval '1 microsecond' AS t
FROM generate_series(1, :rows) i;
CREATE TABLE ms_asof_v WITH (autovacuum_enabled = false) AS
SELECT i % :rows + 1 AS k,
       timestamp '2024-01-01' + i * (interval '1 day' / (2 * :rows)) AS t,
       i AS v
FROM generate_series(1, 2 * :rows) i;
CREATE INDEX ON ms_asof_v (k, t);
-- session(): 2 x :rows rows in 200,000 partitions over a day
CREATE TABLE ms_sess WITH (autovacuum_enabled = false) AS
SELECT i % 200000 AS k,
       timestamp '2024-01-01' + (random() * 86400e6)::bigint * interval '1 microsecond' AS t
FROM generate_series(1, 2 * :rows) i;
