SELECT count(*) || '|' || sum(o.amount * r.rate)
FROM orders7 o
JOIN LATERAL (SELECT rate FROM rates7 r
              WHERE r.currency = o.currency
              ORDER BY r.update_time <-> o.order_time LIMIT 1) r ON true
WHERE o.order_id % 50 < {SLICE}
