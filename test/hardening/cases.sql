-- Data for test/hardening/cancel.sh and memlimit.sh.  psql variables :rows
-- and :keys set the size of the big tables and their number of keys;
-- :with_b (true/false) whether b is made.  The
-- "fan" tables are small, but every row of one matches every row of the
-- other inside one window or band, so a join over them does hundreds of
-- millions of probes inside the node's own loops, where no child node runs
-- (and so no child checks for interrupts on the node's behalf).
CREATE EXTENSION IF NOT EXISTS windowjoin;
SELECT setseed(0.17);
-- two event streams: :keys keys, one day; b also serves as the version
-- history of the as-of join (a's rows look up b's latest row of their key)
CREATE TABLE a AS
SELECT (random() * (:keys - 1))::int AS k,
       timestamp '2024-01-01' + (random() * 86400e6)::bigint * interval '1 microsecond' AS t,
       (random() * 1000)::int AS v
FROM generate_series(1, :rows);
\if :with_b
CREATE TABLE b AS
SELECT (random() * (:keys - 1))::int AS k,
       timestamp '2024-01-01' + (random() * 86400e6)::bigint * interval '1 microsecond' AS t,
       (random() * 1000)::int AS v
FROM generate_series(1, :rows);
VACUUM ANALYZE b;
\endif
-- fan-out: one key, all rows within one minute
CREATE TABLE fan_a AS
SELECT 1 AS k, timestamp '2024-01-01 00:01' + i * interval '1 millisecond' AS t, i AS v
FROM generate_series(1, 20000) i;
CREATE TABLE fan_b AS SELECT * FROM fan_a;
VACUUM ANALYZE a, fan_a, fan_b;
