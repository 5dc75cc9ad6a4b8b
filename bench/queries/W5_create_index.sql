CREATE INDEX ON sa (dev, t);
CREATE INDEX ON sb (dev, t);
VACUUM ANALYZE sa, sb;
