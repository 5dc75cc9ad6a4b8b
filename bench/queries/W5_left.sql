SELECT count(*) || '|' || coalesce(sum(a.v * b.v), 0)
FROM sa a LEFT JOIN sb b
  ON a.dev = b.dev AND b.t BETWEEN a.t - interval '2 seconds' AND a.t + interval '2 seconds'
