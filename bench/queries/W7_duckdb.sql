WITH r AS (SELECT currency, rate,
                  make_timestamp(epoch_us(update_time) - epoch_us(update_time) % 2) AS update_time
           FROM rates),
o AS (SELECT order_id, currency, amount,
             make_timestamp(epoch_us(order_time) + 1 - epoch_us(order_time) % 2) AS order_time
      FROM orders),
b AS (SELECT o.order_id, o.amount, o.order_time, r.rate, r.update_time
      FROM o ASOF JOIN r ON o.currency = r.currency AND o.order_time >= r.update_time),
f AS (SELECT o.order_id, o.amount, o.order_time, r.rate, r.update_time
      FROM o ASOF JOIN r ON o.currency = r.currency AND o.order_time <= r.update_time)
SELECT CAST(count(*) AS VARCHAR) || '|' || CAST(sum(amount * rate) AS VARCHAR)
FROM (SELECT coalesce(b.amount, f.amount) AS amount,
             CASE WHEN b.order_id IS NULL THEN f.rate
                  WHEN f.order_id IS NULL THEN b.rate
                  WHEN epoch_us(f.update_time) - epoch_us(f.order_time)
                       < epoch_us(b.order_time) - epoch_us(b.update_time) THEN f.rate
                  ELSE b.rate END AS rate
      FROM b FULL JOIN f ON b.order_id = f.order_id) x
