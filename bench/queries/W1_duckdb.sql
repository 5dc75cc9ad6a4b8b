SELECT CAST(count(*) AS VARCHAR) || '|' || CAST(sum(total) AS VARCHAR) FROM (
  SELECT time_bucket(INTERVAL 1 MINUTE, bidtime) AS window_start,
         time_bucket(INTERVAL 1 MINUTE, bidtime) + INTERVAL 1 MINUTE AS window_end,
         sum(price) AS total
  FROM bids GROUP BY 1, 2) x
