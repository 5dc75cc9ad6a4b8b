/* windowjoin--0.1--0.2.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION windowjoin UPDATE TO '0.2'" to load this file. \quit

--------------------------------------------------------------------------
-- 0.2: windowjoin_status() reports whether the library is preloaded (the
-- setup under which every session plans joins with the custom scans) and
-- which accelerations are active in this session, and how to enable them:
--   SELECT * FROM windowjoin_status();
-- CREATE EXTENSION (which runs 0.1 then this script) and ALTER EXTENSION
-- ... UPDATE say the same with a WARNING when the library is not preloaded
-- (PostgreSQL raises client_min_messages to WARNING while an extension
-- script runs, so a NOTICE would never be seen).
--------------------------------------------------------------------------

CREATE FUNCTION windowjoin_status(
  OUT feature text, OUT active boolean, OUT detail text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'windowjoin_status' LANGUAGE C VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION windowjoin_status() IS
  'whether windowjoin is preloaded and which of its accelerations are active in this session';

DO $$
BEGIN
  IF NOT (SELECT s.active FROM windowjoin_status() s
          WHERE s.feature = 'shared_preload_libraries') THEN
    RAISE WARNING 'windowjoin is not loaded through shared_preload_libraries'
      USING DETAIL = 'Its functions work, but a session plans joins without its custom scans until it has loaded the library.',
            HINT = 'Set shared_preload_libraries = ''windowjoin'' in postgresql.conf and restart the server; SELECT * FROM windowjoin_status() shows what is active.';
  END IF;
END
$$;
