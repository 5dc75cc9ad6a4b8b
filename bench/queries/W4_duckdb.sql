SELECT CAST(count(*) AS VARCHAR) || '|' || CAST(sum(o.amount * r.rate) AS VARCHAR)
FROM orders o ASOF JOIN rates r
  ON o.currency = r.currency AND o.order_time >= r.update_time
