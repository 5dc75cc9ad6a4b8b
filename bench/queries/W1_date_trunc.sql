SELECT count(*) || '|' || sum(total) FROM (
  SELECT date_trunc('minute', bidtime) AS window_start, sum(price) AS total
  FROM bids GROUP BY 1) x
