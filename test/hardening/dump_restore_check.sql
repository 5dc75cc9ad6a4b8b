-- Run in both databases by test/hardening/dump_restore.sh: one line per
-- view or materialized view of schema ts with its row count and the md5 of
-- its rows (as text, sorted), its definition's md5, and the windowjoin
-- nodes in its plan.
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
SET TimeZone = 'UTC';
CREATE TEMP TABLE wj_out (line text);
DO $$
DECLARE v record; n bigint; d text; line text; nodes text;
BEGIN
  FOR v IN SELECT c.relname, c.relkind, c.relispopulated FROM pg_class c
           JOIN pg_namespace s ON s.oid = c.relnamespace
           WHERE s.nspname = 'ts' AND c.relkind IN ('v', 'm') ORDER BY c.relname LOOP
    IF v.relispopulated THEN
      EXECUTE format('SELECT count(*), md5(string_agg(q::text, E''\n'' ORDER BY q::text)) FROM ts.%I q', v.relname)
        INTO n, d;
    ELSE
      n := NULL; d := 'not populated';
    END IF;
    nodes := '';
    FOR line IN EXECUTE format('EXPLAIN (COSTS OFF) SELECT * FROM ts.%I', v.relname) LOOP
      IF line ~ 'Custom Scan \((WindowJoin|IntervalJoin|AsOfJoin|WindowExpand)\)' THEN
        nodes := nodes || ' ' || substring(line from 'Custom Scan \((\w+)\)');
      END IF;
    END LOOP;
    INSERT INTO wj_out VALUES (format('%s %s rows=%s digest=%s def=%s nodes=%s', v.relkind, v.relname, n, d,
      md5(pg_get_viewdef(format('ts.%I', v.relname)::regclass)), coalesce(nullif(nodes, ''), ' none')));
  END LOOP;
END $$;
SELECT line FROM wj_out ORDER BY line;
