--
-- SESSION windows: session(ts, gap) OVER (PARTITION BY ... ORDER BY ts).
-- Both Flink session examples row for row, their aggregates, the edge
-- cases and the errors.
--
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
SET IntervalStyle = 'postgres';
\set ECHO none
\i sql/include/helpers.sql
\set ECHO all

CREATE SCHEMA session;
SET search_path = session, public;
CREATE TABLE bid (bidtime timestamp, price numeric(10,2), item text);
INSERT INTO bid VALUES
  ('2020-04-15 08:07', 4.00, 'A'), ('2020-04-15 08:06', 2.00, 'A'),
  ('2020-04-15 08:09', 5.00, 'B'), ('2020-04-15 08:08', 3.00, 'A'),
  ('2020-04-15 08:17', 1.00, 'B');

-- SESSION(TABLE Bid PARTITION BY item, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES)
SELECT bidtime, price, item, (w).window_start, (w).window_end, (w).window_time
FROM (SELECT *, session(bidtime, interval '5 minutes')
                  OVER (PARTITION BY item ORDER BY bidtime) AS w
      FROM bid) s
ORDER BY item, bidtime;
-- named arguments
SELECT bidtime, (w).*
FROM (SELECT *, session(ts => bidtime, gap => interval '5 minutes')
                  OVER (PARTITION BY item ORDER BY bidtime) AS w
      FROM bid) s
ORDER BY item, bidtime;
SELECT (w).window_start, (w).window_end, item, sum(price) AS total_price
FROM (SELECT *, session(bidtime, interval '5 minutes')
                  OVER (PARTITION BY item ORDER BY bidtime) AS w
      FROM bid) s
GROUP BY item, (w).window_start, (w).window_end
ORDER BY 1, 3;

-- SESSION(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES)
SELECT bidtime, price, item, (w).window_start, (w).window_end, (w).window_time
FROM (SELECT *, session(bidtime, interval '5 minutes') OVER (ORDER BY bidtime) AS w
      FROM bid) s
ORDER BY bidtime;
SELECT (w).window_start, (w).window_end, sum(price) AS total_price
FROM (SELECT *, session(bidtime, interval '5 minutes') OVER (ORDER BY bidtime) AS w
      FROM bid) s
GROUP BY (w).window_start, (w).window_end
ORDER BY 1;

-- Edge cases: duplicates, a single-row partition, exactly the gap (merges),
-- gap + 1 microsecond (splits), NULL partition keys (their own partition),
-- NULL times (NULL windows), pre-1970 times
CREATE TABLE ev (k text, t timestamp);
INSERT INTO ev VALUES
  ('dup', '2020-01-01 10:00'), ('dup', '2020-01-01 10:00'), ('dup', '2020-01-01 10:00'),
  ('one', '2020-01-01 10:00'),
  ('gap', '2020-01-01 10:00'), ('gap', '2020-01-01 10:05'), ('gap', '2020-01-01 10:10:00.000001'),
  (NULL, '2020-01-01 10:00'), (NULL, '2020-01-01 10:03'),
  ('nul', '2020-01-01 10:00'), ('nul', NULL),
  ('old', '1969-12-31 23:58'), ('old', '1970-01-01 00:02'), ('old', '1970-01-01 00:08');
SELECT k, t, (w).*
FROM (SELECT *, session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t) AS w FROM ev) s
ORDER BY k NULLS FIRST, t NULLS LAST;
-- NULLS FIRST ordering is fine too
SELECT k, t, (w).*
FROM (SELECT *, session(t, interval '5 minutes') OVER (PARTITION BY k ORDER BY t NULLS FIRST) AS w
      FROM ev WHERE k = 'nul') s
ORDER BY t NULLS FIRST;
-- the two ends of the timestamp range: their distance overflows 64 bits
SELECT t, (w).window_start, (w).window_end
FROM (SELECT *, session(t, interval '1 day') OVER (ORDER BY t) AS w
      FROM (VALUES (timestamp '4713-01-01 00:00 BC'), ('294276-01-01 00:00')) v(t)) s
ORDER BY t;
-- microsecond gaps
SELECT t, (w).*
FROM (SELECT *, session(t, interval '1 millisecond') OVER (ORDER BY t) AS w
      FROM (VALUES (timestamp '2020-01-01 00:00:00.000100'), ('2020-01-01 00:00:00.001100'),
                   ('2020-01-01 00:00:00.002101')) v(t)) s
ORDER BY t;

-- timestamptz: same instants in any TimeZone
SET TimeZone = 'Asia/Seoul';
SELECT (w).window_start, (w).window_end, count(*)
FROM (SELECT session(bidtime AT TIME ZONE 'UTC', interval '5 minutes') OVER (ORDER BY bidtime) AS w
      FROM bid) s
GROUP BY 1, 2 ORDER BY 1;
SET TimeZone = 'UTC';
SELECT (w).window_start, (w).window_end, count(*)
FROM (SELECT session(bidtime AT TIME ZONE 'UTC', interval '5 minutes') OVER (ORDER BY bidtime) AS w
      FROM bid) s
GROUP BY 1, 2 ORDER BY 1;
SELECT pg_typeof(session(bidtime, interval '1 minute') OVER (ORDER BY bidtime)) FROM bid LIMIT 1;
SELECT pg_typeof(session(bidtime::timestamptz, interval '1 minute') OVER (ORDER BY bidtime)) FROM bid LIMIT 1;

-- Window TopN over session windows: the largest bid of each session
SELECT item, window_start, window_end, bidtime, price FROM (
  SELECT item, bidtime, price, (w).window_start, (w).window_end,
         row_number() OVER (PARTITION BY item, (w).window_start ORDER BY price DESC) AS rn
  FROM (SELECT *, session(bidtime, interval '5 minutes')
                    OVER (PARTITION BY item ORDER BY bidtime) AS w FROM bid) s
) t WHERE rn = 1
ORDER BY item, window_start;

-- Errors: gap NULL, zero, negative, months, under 1 ms; rows out of order
\set VERBOSITY default
SELECT session(bidtime, NULL) OVER (ORDER BY bidtime) FROM bid;
SELECT session(bidtime, interval '0') OVER (ORDER BY bidtime) FROM bid;
SELECT session(bidtime, interval '-5 minutes') OVER (ORDER BY bidtime) FROM bid;
SELECT session(bidtime, interval '1 month') OVER (ORDER BY bidtime) FROM bid;
SELECT session(bidtime, interval '500 microseconds') OVER (ORDER BY bidtime) FROM bid;
SELECT session(bidtime, interval '5 minutes') OVER (ORDER BY bidtime DESC) FROM bid;
-- no ORDER BY: the rows arrive in insertion order, which is not time order
SELECT session(bidtime, interval '5 minutes') OVER (PARTITION BY item) FROM bid;
-- ordered by something else: detected even across a session boundary
SELECT session(t, interval '1 minute') OVER (ORDER BY o)
FROM (VALUES (1, timestamp '2020-01-01 10:00'), (2, '2020-01-01 11:00'), (3, '2020-01-01 10:30')) v(o, t);
-- a NULL time between two others
SELECT session(t, interval '1 hour') OVER (ORDER BY o)
FROM (VALUES (1, timestamp '2020-01-01 10:00'), (2, NULL), (3, '2020-01-01 10:30')) v(o, t);
SELECT session(t, interval '1 minute') OVER (ORDER BY t)
FROM (VALUES (timestamp 'infinity')) v(t);
-- a NULL gap is an error on any row, not only where a session starts
SELECT session(t, CASE WHEN o = 2 THEN NULL ELSE interval '1 hour' END) OVER (ORDER BY t)
FROM (VALUES (1, timestamp '2020-01-01 10:00'), (2, '2020-01-01 10:30')) v(o, t);
\set VERBOSITY terse

RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA session CASCADE;
