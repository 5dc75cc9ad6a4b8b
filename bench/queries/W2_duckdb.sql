SELECT CAST(count(*) AS VARCHAR) || '|' || CAST(sum(total) AS VARCHAR) FROM (
  SELECT ws AS window_start, ws + INTERVAL 10 MINUTE AS window_end, sum(price) AS total
  FROM (SELECT price,
               unnest(generate_series(time_bucket(INTERVAL 1 MINUTE, bidtime) - INTERVAL 9 MINUTE,
                                      time_bucket(INTERVAL 1 MINUTE, bidtime),
                                      INTERVAL 1 MINUTE)) AS ws
        FROM bids) e
  GROUP BY 1, 2) x
