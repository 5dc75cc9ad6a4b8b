SELECT count(*) || '|' || sum(total) FROM (
  SELECT window_start, window_end, sum(price) AS total
  FROM bids, hop(bidtime, interval '1 minute', interval '10 minutes')
  GROUP BY window_start, window_end) x
