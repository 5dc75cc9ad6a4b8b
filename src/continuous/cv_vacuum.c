/*-------------------------------------------------------------------------
 *
 * cv_vacuum.c
 *	  Vacuum the state tables of the continuous views a scheduler worker
 *	  has just refreshed, at the scheduler's pace rather than autovacuum's.
 *
 * A view's state tables (its change log, its panes or session fragments,
 * its changefeed) are rewritten by every refresh: a session view deletes
 * and re-inserts the fragments of every session that grew, a pane view
 * deletes the panes of the windows it closed, a feed the changes its
 * consumers have passed.  At a few refreshes a second
 * that is tens of thousands of dead rows a second, while autovacuum comes
 * to a database once a minute (autovacuum_naptime): the tables bloat
 * between its visits, every scan of them in the next refreshes reads the
 * dead rows too, and refreshes grow slower for as long as the load lasts
 * (Nexmark q11's freshness drifted by that, docs/nexmark.md).
 *
 * So after its round the per-database worker flushes its statistics and
 * vacuums each state table of the views it refreshed whose dead rows
 * number at least CV_VACUUM_MIN_DEAD and at least its live rows, as
 * autovacuum would with a scale factor of 1 and a threshold of 10,000,
 * but at the next round.  VACUUM runs as PostgreSQL runs a client's
 * top-level VACUUM (ExecVacuum, each table in its own transaction) with
 * SKIP_LOCKED, so a table autovacuum or a user is vacuuming is skipped
 * rather than waited for; the worker is the bootstrap superuser and the
 * tables come from the extension's catalog by OID, never from a name a
 * user supplied.  A failure is logged and the worker goes on.
 *
 * src/continuous/cv_vacuum.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "commands/vacuum.h"
#include "executor/spi.h"
#include "nodes/makefuncs.h"
#include "parser/parse_node.h"
#include "pgstat.h"
#include "utils/array.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "src/continuous/cv_catalog.h"
#include "src/continuous/cv_vacuum.h"

/* vacuum a state table once it has this many dead rows (and as many as live) */
#define CV_VACUUM_MIN_DEAD	10000

/*
 * cv_bloated_state
 *		The state tables of views whose dead rows call for a vacuum, in a
 *		transaction of its own.
 */
static List *
cv_bloated_state(List *views)
{
	MemoryContext outer = CurrentMemoryContext;
	List	   *rels = NIL;
	Datum	   *elems;
	ListCell   *lc;
	int			i = 0;
	Oid			argtypes[2] = {OIDARRAYOID, INT8OID};
	Datum		values[2];

	elems = palloc(sizeof(Datum) * list_length(views));
	foreach(lc, views)
		elems[i++] = ObjectIdGetDatum(lfirst_oid(lc));

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	SPI_connect();
	values[0] = PointerGetDatum(construct_array(elems, i, OIDOID, sizeof(Oid), true,
												TYPALIGN_INT));
	values[1] = Int64GetDatum(CV_VACUUM_MIN_DEAD);
	/* (and the feed, which purges delete from; a 0.4 catalog has none) */
	if (SPI_execute_with_args(psprintf("SELECT t.rel::pg_catalog.oid "
									   "FROM windowjoin.view_catalog c, "
									   "LATERAL (VALUES (c.changes_rel), (c.changes2_rel), (c.panes_rel)%s) t(rel) "
									   "WHERE c.view_rel::pg_catalog.oid OPERATOR(pg_catalog.=) ANY ($1) "
									   "AND t.rel IS NOT NULL "
									   "AND pg_catalog.pg_stat_get_dead_tuples(t.rel) OPERATOR(pg_catalog.>=) "
									   "GREATEST($2, pg_catalog.pg_stat_get_live_tuples(t.rel))",
									   cv_catalog_has_feeds() ?
									   ", (c.feed_rel)" : ""),
							  2, argtypes, values, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read the state of continuous views");
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		bool		isnull;
		Datum		d = SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 1,
									  &isnull);
		MemoryContext old = MemoryContextSwitchTo(outer);

		rels = lappend_oid(rels, DatumGetObjectId(d));
		MemoryContextSwitchTo(old);
	}
	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
	return rels;
}

/*
 * cv_vacuum_rel
 *		VACUUM (SKIP_LOCKED) one table, as a top-level statement; nothing if
 *		it is gone.
 */
static void
cv_vacuum_rel(Oid relid)
{
	char	   *relname;
	char	   *nspname;

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	relname = get_rel_name(relid);
	nspname = relname ? get_namespace_name(get_rel_namespace(relid)) : NULL;
	if (relname != NULL && nspname != NULL)
	{
		VacuumStmt *stmt = makeNode(VacuumStmt);
		ParseState *pstate = make_parsestate(NULL);

		stmt->options = list_make1(makeDefElem("skip_locked", NULL, -1));
		stmt->rels = list_make1(makeVacuumRelation(makeRangeVar(nspname, relname, -1),
												   relid, NIL));
		stmt->is_vacuumcmd = true;
		pgstat_report_activity(STATE_RUNNING, "windowjoin: vacuum of a continuous view's state");
		/* commits this transaction, vacuums, and starts a new one */
		ExecVacuum(pstate, stmt, true);
	}
	CommitTransactionCommand();
	pgstat_report_activity(STATE_IDLE, NULL);
}

/*
 * cv_vacuum_state
 *		After a scheduler round: vacuum the bloated state tables of the
 *		views refreshed (see the header).  Errors are logged, not raised.
 */
void
cv_vacuum_state(List *views)
{
	MemoryContext outer = CurrentMemoryContext;
	List	   *rels = NIL;
	ListCell   *lc;

	if (views == NIL)
		return;

	/* this worker's refreshes, counted in the statistics it reads next */
	pgstat_report_stat(true);
	PG_TRY();
	{
		rels = cv_bloated_state(views);
		foreach(lc, rels)
		{
			CHECK_FOR_INTERRUPTS();
			cv_vacuum_rel(lfirst_oid(lc));
		}
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(outer);
		edata = CopyErrorData();
		FlushErrorState();
		AbortCurrentTransaction();
		ereport(LOG,
				(errmsg("windowjoin: vacuum of continuous views' state failed: %s (SQLSTATE %s)",
						edata->message, unpack_sql_state(edata->sqlerrcode))));
		FreeErrorData(edata);
	}
	PG_END_TRY();
}
