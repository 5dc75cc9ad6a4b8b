SELECT count(*) || '|' || sum(o.amount * r.rate)
FROM orders o
JOIN LATERAL (SELECT rate FROM rates r
              WHERE r.currency = o.currency AND r.update_time <= o.order_time
              ORDER BY r.update_time DESC LIMIT 1) r ON true
