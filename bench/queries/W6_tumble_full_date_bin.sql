SELECT count(*) || '|' || count(l_id) || '|' || count(r_id) || '|'
       || coalesce(sum((substr(l_id, 2)::bigint * substr(r_id, 2)::bigint) % 1000003), 0) || '|'
       || sum(extract(epoch FROM window_start)::bigint / 60) FROM (
  SELECT L.num AS l_num, L.id AS l_id, R.num AS r_num, R.id AS r_id,
         COALESCE(L.ws, R.ws) AS window_start,
         COALESCE(L.ws, R.ws) + interval '5 minutes' AS window_end
  FROM (SELECT *, date_bin('5 minutes', row_time, timestamp '1970-01-01') AS ws FROM bl) L
  FULL JOIN (SELECT *, date_bin('5 minutes', row_time, timestamp '1970-01-01') AS ws FROM br) R
  ON L.num = R.num AND L.ws = R.ws) q
