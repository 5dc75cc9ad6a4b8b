SELECT CAST(count(*) AS VARCHAR) || '|' || CAST(count(l_id) AS VARCHAR) || '|' || CAST(count(r_id) AS VARCHAR) || '|'
       || CAST(coalesce(sum((CAST(substr(l_id, 2) AS BIGINT) * CAST(substr(r_id, 2) AS BIGINT)) % 1000003), 0) AS VARCHAR) || '|'
       || CAST(sum(date_diff('minute', TIMESTAMP '1970-01-01', window_start)) AS VARCHAR) FROM (
  SELECT L.num AS l_num, L.id AS l_id, R.id AS r_id, L.ws AS window_start, L.ws + INTERVAL 10 MINUTE AS window_end
  FROM (SELECT num, id, unnest(generate_series(time_bucket(INTERVAL 1 MINUTE, row_time) - INTERVAL 9 MINUTE,
                                               time_bucket(INTERVAL 1 MINUTE, row_time), INTERVAL 1 MINUTE)) AS ws FROM bl) L
  JOIN (SELECT num, id, unnest(generate_series(time_bucket(INTERVAL 1 MINUTE, row_time) - INTERVAL 9 MINUTE,
                                               time_bucket(INTERVAL 1 MINUTE, row_time), INTERVAL 1 MINUTE)) AS ws FROM br) R
  ON L.num = R.num AND L.ws = R.ws) q
