-- Seed examples of the windowing TVF document (003), row for row.
SET TimeZone = 'UTC';
CREATE TABLE bid (bidtime timestamp, price numeric(10,2), item text);
INSERT INTO bid VALUES
  ('2020-04-15 08:05', 4.00, 'C'), ('2020-04-15 08:07', 2.00, 'A'),
  ('2020-04-15 08:09', 5.00, 'D'), ('2020-04-15 08:11', 3.00, 'B'),
  ('2020-04-15 08:13', 1.00, 'E'), ('2020-04-15 08:17', 6.00, 'F');

-- TUMBLE
SELECT * FROM bid, tumble(bidtime, interval '10 minutes') ORDER BY bidtime;
