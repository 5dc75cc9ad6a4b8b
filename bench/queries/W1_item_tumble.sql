SELECT count(*) || '|' || sum(total) FROM (
  SELECT window_start, window_end, item, sum(price) AS total
  FROM bids, tumble(bidtime, interval '1 hour')
  GROUP BY window_start, window_end, item) x
