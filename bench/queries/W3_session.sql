SELECT count(*) || '|' || sum(total) || '|' || sum((extract(epoch FROM window_end - window_start) * 1000000)::bigint) FROM (
  SELECT item, (w).window_start, (w).window_end, sum(price) AS total
  FROM (SELECT item, price, session(bidtime, interval '5 minutes')
                              OVER (PARTITION BY item ORDER BY bidtime) AS w
        FROM bids) s
  GROUP BY item, (w).window_start, (w).window_end) x
