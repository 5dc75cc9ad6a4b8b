SELECT count(*) || '|' || sum(o.amount * 1.5) FROM orders o
