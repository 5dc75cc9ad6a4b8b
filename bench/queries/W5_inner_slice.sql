SELECT count(*) || '|' || coalesce(sum(a.v * b.v), 0)
FROM (SELECT * FROM sa WHERE dev < {SLICE}) a JOIN (SELECT * FROM sb WHERE dev < {SLICE}) b
  ON a.dev = b.dev AND b.t BETWEEN a.t - interval '2 seconds' AND a.t + interval '2 seconds'
