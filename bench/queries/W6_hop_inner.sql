SELECT count(*) || '|' || count(l_id) || '|' || count(r_id) || '|'
       || coalesce(sum((substr(l_id, 2)::bigint * substr(r_id, 2)::bigint) % 1000003), 0) || '|'
       || sum(extract(epoch FROM window_start)::bigint / 60) FROM (
  SELECT L.num AS l_num, L.id AS l_id, R.id AS r_id, L.window_start, L.window_end
  FROM (SELECT * FROM bl, hop(row_time, interval '1 minute', interval '10 minutes')) L
  JOIN (SELECT * FROM br, hop(row_time, interval '1 minute', interval '10 minutes')) R
  ON L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end) q
