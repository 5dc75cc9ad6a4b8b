/*-------------------------------------------------------------------------
 *
 * cv_scheduler.c
 *	  Background refresh of continuous window views: one launcher, and
 *	  short-lived per-database workers.
 *
 * When the library is preloaded, _PG_init registers the launcher, a
 * background worker connected to no database (it starts no worker while
 * windowjoin.scheduler is off).
 * Every windowjoin.scheduler_naptime it lists the databases that accept
 * connections (templates excluded) and starts, for each one that has no
 * worker running, a per-database worker.  The per-database worker connects,
 * and if the extension is installed there, refreshes each continuous view
 * whose schedule is due (last refresh + schedule <= now), one transaction
 * per view at REPEATABLE READ, so that the change log and the source are
 * read in one snapshot; then it exits.
 *
 * Workers exit after each round rather than staying connected so that
 * DROP DATABASE and CREATE DATABASE never wait for them, and a view's
 * refresh error is reported in the server log (and kept in the view's
 * catalog row by the next successful refresh's counters) without stopping
 * the other views.  refresh() itself switches to the view's owner, so the
 * worker's own superuser identity is never what reads the source.
 *
 * src/continuous/cv_scheduler.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_database.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "tcop/tcopprot.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#include "continuous.h"

PGDLLEXPORT void wj_scheduler_launcher_main(Datum arg);
PGDLLEXPORT void wj_scheduler_db_main(Datum arg);

int			wj_scheduler_naptime = 1000;
static bool wj_scheduler_enabled = true;
static bool wj_launcher_registered = false;

/* a database's running worker, as the launcher remembers it */
typedef struct CvDbWorker
{
	Oid			dboid;
	BackgroundWorkerHandle *handle;
} CvDbWorker;

/*
 * wj_scheduler_init
 *		GUCs, and the launcher when the library is preloaded.
 */
void
wj_scheduler_init(bool preloaded)
{
	BackgroundWorker worker;

	DefineCustomBoolVariable("windowjoin.scheduler",
							 "Refreshes continuous window views in the background.",
							 "Needs shared_preload_libraries = 'windowjoin'; when off, the launcher starts no worker.",
							 &wj_scheduler_enabled,
							 true,
							 PGC_SIGHUP,
							 0,
							 NULL, NULL, NULL);
	DefineCustomIntVariable("windowjoin.scheduler_naptime",
							"Time between two rounds of the continuous view scheduler.",
							NULL,
							&wj_scheduler_naptime,
							1000, 10, 3600 * 1000,
							PGC_SIGHUP,
							GUC_UNIT_MS,
							NULL, NULL, NULL);

	if (!preloaded)
		return;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker.bgw_restart_time = 10;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, "windowjoin");
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "wj_scheduler_launcher_main");
	snprintf(worker.bgw_name, BGW_MAXLEN, "windowjoin scheduler launcher");
	snprintf(worker.bgw_type, BGW_MAXLEN, "windowjoin scheduler");
	RegisterBackgroundWorker(&worker);
	wj_launcher_registered = true;
}

/*
 * wj_scheduler_registered
 *		Is the launcher part of this server?
 */
bool
wj_scheduler_registered(void)
{
	return wj_launcher_registered;
}

/*
 * cv_list_databases
 *		The databases a worker may connect to.
 */
static List *
cv_list_databases(void)
{
	List	   *dbs = NIL;
	Relation	rel;
	TableScanDesc scan;
	HeapTuple	tup;
	MemoryContext outer = CurrentMemoryContext;

	StartTransactionCommand();
	rel = table_open(DatabaseRelationId, AccessShareLock);
	scan = table_beginscan_catalog(rel, 0, NULL);
	while (HeapTupleIsValid(tup = heap_getnext(scan, ForwardScanDirection)))
	{
		Form_pg_database db = (Form_pg_database) GETSTRUCT(tup);
		MemoryContext old;

		if (!db->datallowconn || db->datistemplate)
			continue;
		old = MemoryContextSwitchTo(outer);
		dbs = lappend_oid(dbs, db->oid);
		MemoryContextSwitchTo(old);
	}
	table_endscan(scan);
	table_close(rel, AccessShareLock);
	CommitTransactionCommand();
	return dbs;
}

/*
 * cv_start_db_worker
 *		Start a per-database worker; NULL if no slot is free.
 */
static BackgroundWorkerHandle *
cv_start_db_worker(Oid dboid)
{
	BackgroundWorker worker;
	BackgroundWorkerHandle *handle;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker.bgw_restart_time = BGW_NEVER_RESTART;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, "windowjoin");
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "wj_scheduler_db_main");
	snprintf(worker.bgw_name, BGW_MAXLEN, "windowjoin scheduler for database %u", dboid);
	snprintf(worker.bgw_type, BGW_MAXLEN, "windowjoin scheduler");
	worker.bgw_main_arg = ObjectIdGetDatum(dboid);
	worker.bgw_notify_pid = MyProcPid;
	if (!RegisterDynamicBackgroundWorker(&worker, &handle))
		return NULL;
	return handle;
}

/*
 * wj_scheduler_launcher_main
 *		The launcher's loop: every naptime, a worker for each database
 *		that has none running.
 */
void
wj_scheduler_launcher_main(Datum arg)
{
	List	   *running = NIL;	/* of CvDbWorker * */
	MemoryContext cxt;

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnection(NULL, NULL, 0);
	pgstat_report_appname("windowjoin scheduler launcher");

	cxt = AllocSetContextCreate(TopMemoryContext, "windowjoin launcher",
								ALLOCSET_DEFAULT_SIZES);
	for (;;)
	{
		List	   *dbs;
		ListCell   *lc;
		List	   *still = NIL;

		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}

		/* forget workers that have exited */
		foreach(lc, running)
		{
			CvDbWorker *w = lfirst(lc);
			pid_t		pid;

			if (GetBackgroundWorkerPid(w->handle, &pid) == BGWH_STOPPED)
			{
				pfree(w->handle);
				pfree(w);
			}
			else
				still = lappend(still, w);
		}
		list_free(running);
		running = still;

		/* windowjoin.scheduler off: no database, so no worker */
		MemoryContextReset(cxt);
		dbs = NIL;
		if (wj_scheduler_enabled)
		{
			MemoryContext old = MemoryContextSwitchTo(cxt);

			dbs = cv_list_databases();
			MemoryContextSwitchTo(old);
		}
		foreach(lc, dbs)
		{
			Oid			dboid = lfirst_oid(lc);
			ListCell   *lc2;
			bool		busy = false;
			BackgroundWorkerHandle *handle;

			foreach(lc2, running)
				if (((CvDbWorker *) lfirst(lc2))->dboid == dboid)
					busy = true;
			if (busy)
				continue;
			handle = cv_start_db_worker(dboid);
			if (handle != NULL)
			{
				CvDbWorker *w = MemoryContextAlloc(TopMemoryContext, sizeof(CvDbWorker));

				w->dboid = dboid;
				w->handle = handle;
				running = lappend(running, w);
			}
		}

		(void) WaitLatch(MyLatch,
						 WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 wj_scheduler_naptime, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
}

/*
 * cv_due_views
 *		The continuous views of this database whose schedule is due, or
 *		NIL when the extension is not installed here.
 */
static List *
cv_due_views(void)
{
	List	   *views = NIL;
	MemoryContext outer = CurrentMemoryContext;

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	/* the extension, at a version with continuous views (0.3 on) */
	if (OidIsValid(get_extension_oid("windowjoin", true)) &&
		OidIsValid(get_namespace_oid("windowjoin", true)) &&
		OidIsValid(get_relname_relid("view_catalog",
									 get_namespace_oid("windowjoin", true))))
	{
		PushActiveSnapshot(GetTransactionSnapshot());
		SPI_connect();
		if (SPI_execute("SELECT view_rel::oid FROM windowjoin.view_catalog "
						"WHERE schedule IS NOT NULL AND (last_refresh IS NULL "
						"OR last_refresh + schedule <= clock_timestamp()) "
						"ORDER BY last_refresh NULLS FIRST",
						true, 0) != SPI_OK_SELECT)
			elog(ERROR, "could not list continuous views");
		for (uint64 i = 0; i < SPI_processed; i++)
		{
			bool		isnull;
			Datum		d = SPI_getbinval(SPI_tuptable->vals[i],
										  SPI_tuptable->tupdesc, 1, &isnull);
			MemoryContext old = MemoryContextSwitchTo(outer);

			views = lappend_oid(views, DatumGetObjectId(d));
			MemoryContextSwitchTo(old);
		}
		SPI_finish();
		PopActiveSnapshot();
	}
	CommitTransactionCommand();
	return views;
}

/*
 * cv_refresh_one
 *		Refresh one view in its own transaction; an error is logged and
 *		rolled back, and the worker goes on with the next view.
 */
static void
cv_refresh_one(Oid view)
{
	MemoryContext outer = CurrentMemoryContext;

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	/* before the transaction's first snapshot */
	XactIsoLevel = XACT_REPEATABLE_READ;
	PG_TRY();
	{
		Oid			argtypes[1] = {OIDOID};
		Datum		values[1];

		values[0] = ObjectIdGetDatum(view);
		SPI_connect();
		PushActiveSnapshot(GetTransactionSnapshot());
		pgstat_report_activity(STATE_RUNNING, "windowjoin.refresh (scheduled)");
		if (SPI_execute_with_args("SELECT windowjoin.refresh($1::regclass) "
								  "FROM windowjoin.view_catalog WHERE view_rel = $1::regclass",
								  1, argtypes, values, NULL, false, 0) != SPI_OK_SELECT)
			elog(ERROR, "could not refresh continuous view %u", view);
		SPI_finish();
		PopActiveSnapshot();
		CommitTransactionCommand();
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(outer);
		edata = CopyErrorData();
		FlushErrorState();
		AbortCurrentTransaction();
		ereport(LOG,
				(errmsg("windowjoin: scheduled refresh of continuous view %u failed: %s",
						view, edata->message)));
		FreeErrorData(edata);
	}
	PG_END_TRY();
	pgstat_report_activity(STATE_IDLE, NULL);
}

/*
 * wj_scheduler_db_main
 *		A per-database worker: refresh the views that are due, then exit.
 */
void
wj_scheduler_db_main(Datum arg)
{
	Oid			dboid = DatumGetObjectId(arg);
	List	   *views;
	ListCell   *lc;

	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnectionByOid(dboid, InvalidOid, 0);
	pgstat_report_appname("windowjoin scheduler");

	views = cv_due_views();
	foreach(lc, views)
	{
		CHECK_FOR_INTERRUPTS();
		cv_refresh_one(lfirst_oid(lc));
	}
	proc_exit(0);
}
