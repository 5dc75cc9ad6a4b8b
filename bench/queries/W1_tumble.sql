SELECT count(*) || '|' || sum(total) FROM (
  SELECT window_start, window_end, sum(price) AS total
  FROM bids, tumble(bidtime, interval '1 minute')
  GROUP BY window_start, window_end) x
