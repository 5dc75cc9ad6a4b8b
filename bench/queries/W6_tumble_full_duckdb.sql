SELECT CAST(count(*) AS VARCHAR) || '|' || CAST(count(l_id) AS VARCHAR) || '|' || CAST(count(r_id) AS VARCHAR) || '|'
       || CAST(coalesce(sum((CAST(substr(l_id, 2) AS BIGINT) * CAST(substr(r_id, 2) AS BIGINT)) % 1000003), 0) AS VARCHAR) || '|'
       || CAST(sum(date_diff('minute', TIMESTAMP '1970-01-01', window_start)) AS VARCHAR) FROM (
  SELECT L.num AS l_num, L.id AS l_id, R.num AS r_num, R.id AS r_id,
         COALESCE(L.ws, R.ws) AS window_start,
         COALESCE(L.ws, R.ws) + INTERVAL 5 MINUTE AS window_end
  FROM (SELECT *, time_bucket(INTERVAL 5 MINUTE, row_time) AS ws FROM bl) L
  FULL JOIN (SELECT *, time_bucket(INTERVAL 5 MINUTE, row_time) AS ws FROM br) R
  ON L.num = R.num AND L.ws = R.ws) q
