SELECT count(*) || '|' || count(l_id) || '|' || count(r_id) || '|'
       || coalesce(sum((substr(l_id, 2)::bigint * substr(r_id, 2)::bigint) % 1000003), 0) || '|'
       || sum(extract(epoch FROM window_start)::bigint / 60) FROM (
  SELECT L.num AS l_num, L.id AS l_id, R.num AS r_num, R.id AS r_id,
         COALESCE(L.window_start, R.window_start) AS window_start,
         COALESCE(L.window_end, R.window_end) AS window_end
  FROM (SELECT * FROM bl, tumble(row_time, interval '5 minutes')) L
  FULL JOIN (SELECT * FROM br, tumble(row_time, interval '5 minutes')) R
  ON L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end) q
