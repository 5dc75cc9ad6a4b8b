SELECT count(*) || '|' || sum(total) FROM (
  SELECT date_bin('1 hour', bidtime, timestamp '1970-01-01') AS window_start,
         date_bin('1 hour', bidtime, timestamp '1970-01-01') + interval '1 hour' AS window_end,
         item, sum(price) AS total
  FROM bids GROUP BY 1, 2, 3) x
