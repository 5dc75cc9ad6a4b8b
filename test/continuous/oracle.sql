-- The oracle of the live-server tests (test/continuous/*.sh): 'ok' when a
-- view is its batch query over its closed windows (the windows ending at
-- or before its watermark), as multisets; otherwise how many rows are
-- missing and extra.
CREATE FUNCTION oracle(view regclass) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  c record;
  wm text;
  n1 bigint;
  n2 bigint;
BEGIN
  SELECT * INTO c FROM windowjoin.view_catalog WHERE view_rel = view;
  wm := windowjoin._show(c.watermark, c.time_type);
  EXECUTE format('SELECT count(*) FROM (SELECT q.* FROM (%s) q WHERE q.window_end <= %L EXCEPT ALL SELECT * FROM %s) x',
                 c.query, wm, view) INTO n1;
  EXECUTE format('SELECT count(*) FROM (SELECT * FROM %s EXCEPT ALL SELECT q.* FROM (%s) q WHERE q.window_end <= %L) x',
                 view, c.query, wm) INTO n2;
  RETURN CASE WHEN n1 = 0 AND n2 = 0 THEN 'ok' ELSE format('%s missing, %s extra', n1, n2) END;
END
$$;
