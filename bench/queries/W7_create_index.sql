-- W7: the GiST index on (currency, update_time) that PostgreSQL's KNN
-- lookup ("ORDER BY update_time <-> order_time LIMIT 1") needs
CREATE INDEX rates7_knn ON rates7 USING gist (currency, update_time);
VACUUM ANALYZE rates7;
