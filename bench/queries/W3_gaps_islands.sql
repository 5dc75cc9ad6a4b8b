SELECT count(*) || '|' || sum(total) || '|' || sum((extract(epoch FROM window_end - window_start) * 1000000)::bigint) FROM (
  SELECT item, min(bidtime) AS window_start, max(bidtime) + interval '5 minutes' AS window_end,
         sum(price) AS total
  FROM (SELECT item, bidtime, price,
               sum(brk) OVER (PARTITION BY item ORDER BY bidtime) AS sid
        FROM (SELECT item, bidtime, price,
                     CASE WHEN bidtime - lag(bidtime) OVER (PARTITION BY item ORDER BY bidtime)
                               <= interval '5 minutes' THEN 0 ELSE 1 END AS brk
              FROM bids) a) b
  GROUP BY item, sid) x
