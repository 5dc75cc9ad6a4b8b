SELECT count(*) || '|' || count(l_id) || '|' || count(r_id) || '|'
       || coalesce(sum((substr(l_id, 2)::bigint * substr(r_id, 2)::bigint) % 1000003), 0) || '|'
       || sum(extract(epoch FROM window_start)::bigint / 60) FROM (
  SELECT L.num AS l_num, L.id AS l_id, R.id AS r_id, L.ws AS window_start, L.ws + interval '10 minutes' AS window_end
  FROM (SELECT bl.*, ws FROM bl, LATERAL generate_series(date_bin('1 minute', row_time, timestamp '1970-01-01') - interval '9 minutes',
                                                         date_bin('1 minute', row_time, timestamp '1970-01-01'),
                                                         interval '1 minute') AS ws) L
  JOIN (SELECT br.*, ws FROM br, LATERAL generate_series(date_bin('1 minute', row_time, timestamp '1970-01-01') - interval '9 minutes',
                                                         date_bin('1 minute', row_time, timestamp '1970-01-01'),
                                                         interval '1 minute') AS ws) R
  ON L.num = R.num AND L.ws = R.ws) q
