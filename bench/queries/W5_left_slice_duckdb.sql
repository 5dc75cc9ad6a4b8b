SELECT CAST(count(*) AS VARCHAR) || '|' || CAST(coalesce(sum(a.v * b.v), 0) AS VARCHAR)
FROM (SELECT * FROM sa WHERE dev < {SLICE}) a LEFT JOIN (SELECT * FROM sb WHERE dev < {SLICE}) b
  ON a.dev = b.dev AND b.t BETWEEN a.t - INTERVAL 2 SECOND AND a.t + INTERVAL 2 SECOND
