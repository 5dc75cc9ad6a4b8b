SELECT CAST(count(*) AS VARCHAR) || '|' || CAST(sum(total) AS VARCHAR) || '|' ||
       CAST(sum(date_diff('microsecond', window_start, window_end)) AS VARCHAR) FROM (
  SELECT item, min(bidtime) AS window_start, max(bidtime) + INTERVAL 5 MINUTE AS window_end,
         sum(price) AS total
  FROM (SELECT item, bidtime, price,
               sum(brk) OVER (PARTITION BY item ORDER BY bidtime) AS sid
        FROM (SELECT item, bidtime, price,
                     CASE WHEN bidtime - lag(bidtime) OVER (PARTITION BY item ORDER BY bidtime)
                               <= INTERVAL 5 MINUTE THEN 0 ELSE 1 END AS brk
              FROM bids) a) b
  GROUP BY item, sid) x
