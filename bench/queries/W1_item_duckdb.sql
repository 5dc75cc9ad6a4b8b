SELECT CAST(count(*) AS VARCHAR) || '|' || CAST(sum(total) AS VARCHAR) FROM (
  SELECT time_bucket(INTERVAL 1 HOUR, bidtime) AS window_start,
         time_bucket(INTERVAL 1 HOUR, bidtime) + INTERVAL 1 HOUR AS window_end,
         item, sum(price) AS total
  FROM bids GROUP BY 1, 2, 3) x
