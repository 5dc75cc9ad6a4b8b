SELECT count(*) || '|' || sum(total) FROM (
  SELECT ws AS window_start, ws + interval '10 minutes' AS window_end, sum(price) AS total
  FROM bids, LATERAL generate_series(date_bin('1 minute', bidtime, timestamp '1970-01-01') - interval '9 minutes',
                                     date_bin('1 minute', bidtime, timestamp '1970-01-01'),
                                     interval '1 minute') AS ws
  GROUP BY 1, 2) x
