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
 * worker running and is due, a per-database worker.  The per-database
 * worker connects, and if the extension is installed there, refreshes each
 * continuous view whose schedule is due (last refresh + schedule <= now),
 * one transaction per view at REPEATABLE READ, so that the change log and
 * the source are read in one snapshot; vacuums those views' state tables
 * that bloated (cv_vacuum.c); then it exits.
 *
 * When a database is due: the launcher cannot read another database's
 * catalog, so each worker leaves, before it exits, the time its database's
 * next view falls due in a small table in shared memory (CvSchedShared);
 * a database without scheduled views (or without the extension) is looked
 * at again after CV_IDLE_RECHECK_MS.  A database the table does not know yet
 * (after a start, or when the table is full) is due at once.  A transaction
 * that creates a scheduled view makes its database due when it commits and
 * wakes the launcher (wj_scheduler_wake), so a new view is refreshed within
 * a naptime.  Whatever the table says, the launcher starts at most one
 * worker per database per naptime: worker exits set its latch, and without
 * that bound it would start the next worker at once, in a loop.
 *
 * Workers exit after each round rather than staying connected so that
 * DROP DATABASE and CREATE DATABASE never wait for them.
 *
 * Failures (docs/continuous-trust.md, "Failures"): a view whose catalog row
 * another session holds (a manual refresh, perhaps left open in a
 * transaction) is skipped for this round without waiting (SKIP LOCKED),
 * so it never holds up the others.  A refresh that fails is rolled back,
 * logged with its SQLSTATE, and recorded in the view's catalog row:
 * consecutive failures, the last error and the next attempt, put off by
 * the schedule doubled for each consecutive failure up to
 * windowjoin.scheduler_max_backoff; a success clears the count.
 * windowjoin.refresh_timeout bounds one scheduled refresh.
 *
 * The worker runs as the bootstrap superuser, with search_path pinned to
 * pg_catalog and every operator of its statements qualified;
 * refresh() itself switches to the view's owner, so the worker's own
 * identity is never what reads the source.
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
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lmgr.h"
#include "storage/lwlock.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "tcop/tcopprot.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/timeout.h"
#include "utils/timestamp.h"

#include "src/common/gucs.h"
#include "src/continuous/continuous.h"
#include "src/continuous/cv_catalog.h"
#include "src/continuous/cv_refresh.h"
#include "src/continuous/cv_vacuum.h"

PGDLLEXPORT void wj_scheduler_launcher_main(Datum arg);
PGDLLEXPORT void wj_scheduler_db_main(Datum arg);

static bool wj_launcher_registered = false;

/* a database without scheduled views is looked at again after this long */
#define CV_IDLE_RECHECK_MS	(60 * 1000)
/* databases the shared table remembers; others are simply always due */
#define CV_SCHED_SLOTS		256
/* views whose window closes it remembers; past that, a database is due */
#define CV_WAKE_SLOTS		1024
/* rounds one worker runs while commits keep waking views */
#define CV_MAX_ROUNDS		100

/* a database's running worker, as the launcher remembers it */
typedef struct CvDbWorker
{
	Oid			dboid;
	BackgroundWorkerHandle *handle;
} CvDbWorker;

/* what the scheduler knows of one database */
typedef struct CvDbDue
{
	Oid			dboid;
	TimestampTz next_due;		/* start a worker from then on (0: now) */
	TimestampTz last_start;		/* the launcher's last start of a worker */
	uint64		wakes;			/* commits that made it due so far */
	bool		views_woken;	/* a view's window closed: start a worker */
} CvDbDue;

/* a view's window closes, as commits report them (wj_scheduler_note_close) */
typedef struct CvViewWake
{
	Oid			dboid;
	Oid			view;
	int64		closed;			/* the latest window grid point passed */
	bool		woken;			/* refresh it at the next round */
} CvViewWake;

/* the table in shared memory (cv_sched_shmem_startup) */
typedef struct CvSchedShared
{
	LWLock	   *lock;			/* protects everything below */
	Latch	   *launcher_latch; /* NULL while no launcher runs */
	int			ndbs;
	CvDbDue		dbs[CV_SCHED_SLOTS];
	int			nviews;
	CvViewWake	views[CV_WAKE_SLOTS];
} CvSchedShared;

static CvSchedShared *cv_sched = NULL;
static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;
/* this transaction created a scheduled view: wake the launcher at commit */
static bool cv_wake_at_commit = false;

/* the window closes this transaction's statements passed, by view */
typedef struct CvPendingClose
{
	Oid			view;
	int64		closed;
} CvPendingClose;
static CvPendingClose *cv_pending = NULL;
static int	cv_npending = 0;
static int	cv_pending_cap = 0;

/*
 * the latest close this backend knows the scheduler has for each view, so
 * that a statement within a window costs no shared-memory lookup
 */
typedef struct CvCloseSeen
{
	Oid			view;
	int64		closed;
} CvCloseSeen;
static HTAB *cv_close_seen = NULL;

PG_FUNCTION_INFO_V1(wj_scheduler_wake);

/*
 * cv_sched_shmem_request
 *		shmem_request_hook: room for the table.
 */
static void
cv_sched_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(MAXALIGN(sizeof(CvSchedShared)));
	RequestNamedLWLockTranche("windowjoin scheduler", 1);
}

/*
 * cv_sched_shmem_startup
 *		shmem_startup_hook: create (or attach to) the table.
 */
static void
cv_sched_shmem_startup(void)
{
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	cv_sched = ShmemInitStruct("windowjoin scheduler", sizeof(CvSchedShared), &found);
	if (!found)
	{
		memset(cv_sched, 0, sizeof(CvSchedShared));
		cv_sched->lock = &(GetNamedLWLockTranche("windowjoin scheduler"))->lock;
	}
	LWLockRelease(AddinShmemInitLock);
}

/*
 * cv_sched_slot
 *		The table's entry of a database, added when add is true and there is
 *		room; NULL otherwise.  The caller holds the lock.
 */
static CvDbDue *
cv_sched_slot(Oid dboid, bool add)
{
	for (int i = 0; i < cv_sched->ndbs; i++)
		if (cv_sched->dbs[i].dboid == dboid)
			return &cv_sched->dbs[i];
	if (!add || cv_sched->ndbs >= CV_SCHED_SLOTS)
		return NULL;
	memset(&cv_sched->dbs[cv_sched->ndbs], 0, sizeof(CvDbDue));
	cv_sched->dbs[cv_sched->ndbs].dboid = dboid;
	return &cv_sched->dbs[cv_sched->ndbs++];
}

/*
 * cv_wake_slot
 *		The table's entry of a view, added when add is true -- in a free
 *		entry, or in place of one not woken (whose view then only wakes
 *		once more than it needs); NULL when every entry is woken.  The
 *		caller holds the lock (exclusive when adding).
 */
static CvViewWake *
cv_wake_slot(Oid dboid, Oid view, bool add)
{
	CvViewWake *spare = NULL;

	for (int i = 0; i < cv_sched->nviews; i++)
	{
		CvViewWake *w = &cv_sched->views[i];

		if (w->dboid == dboid && w->view == view)
			return w;
		if (!w->woken && spare == NULL)
			spare = w;
	}
	if (!add)
		return NULL;
	if (cv_sched->nviews < CV_WAKE_SLOTS)
		spare = &cv_sched->views[cv_sched->nviews++];
	if (spare != NULL)
	{
		spare->dboid = dboid;
		spare->view = view;
		spare->closed = PG_INT64_MIN;
		spare->woken = false;
	}
	return spare;
}

/*
 * wj_scheduler_note_close
 *		A capture statement's rows move view's watermark to the window grid
 *		point closed (cv_capture.c): if the scheduler has not heard of it,
 *		the view is refreshed when this transaction commits.  Within a
 *		window, a statement costs a lookup in a local table.
 */
void
wj_scheduler_note_close(Oid view, int64 closed)
{
	CvCloseSeen *seen;
	CvViewWake *w;
	bool		found;
	int64		known = PG_INT64_MIN;

	if (cv_sched == NULL)
		return;					/* not preloaded: no scheduler */
	if (cv_close_seen == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(CvCloseSeen);
		cv_close_seen = hash_create("windowjoin window closes", 16, &ctl,
									HASH_ELEM | HASH_BLOBS);
	}
	seen = hash_search(cv_close_seen, &view, HASH_ENTER, &found);
	if (found && closed <= seen->closed)
		return;
	LWLockAcquire(cv_sched->lock, LW_SHARED);
	w = cv_wake_slot(MyDatabaseId, view, false);
	if (w != NULL)
		known = w->closed;
	LWLockRelease(cv_sched->lock);
	seen->closed = Max(closed, known);
	if (closed <= known)
		return;

	for (int i = 0; i < cv_npending; i++)
		if (cv_pending[i].view == view)
		{
			cv_pending[i].closed = Max(cv_pending[i].closed, closed);
			return;
		}
	if (cv_npending == cv_pending_cap)
	{
		cv_pending_cap = Max(8, cv_pending_cap * 2);
		cv_pending = cv_pending == NULL ?
			MemoryContextAlloc(TopMemoryContext, cv_pending_cap * sizeof(CvPendingClose)) :
			repalloc(cv_pending, cv_pending_cap * sizeof(CvPendingClose));
	}
	cv_pending[cv_npending].view = view;
	cv_pending[cv_npending++].closed = closed;
}

/*
 * cv_sched_publish_closes
 *		At commit: the window closes this transaction passed, for the
 *		scheduler; true when one is news (the view is woken).  The caller
 *		holds the lock, exclusive.
 */
static bool
cv_sched_publish_closes(void)
{
	CvDbDue    *db = cv_sched_slot(MyDatabaseId, true);
	bool		woke = false;

	for (int i = 0; i < cv_npending; i++)
	{
		CvViewWake *w = cv_wake_slot(MyDatabaseId, cv_pending[i].view, true);

		if (w == NULL)
		{
			/* no room: the whole database is due */
			if (db != NULL)
			{
				db->next_due = 0;
				db->wakes++;
			}
			woke = true;
		}
		else if (cv_pending[i].closed > w->closed)
		{
			w->closed = cv_pending[i].closed;
			w->woken = true;
			woke = true;
		}
	}
	if (woke && db != NULL)
		db->views_woken = true;
	return woke;
}

/*
 * cv_sched_xact_callback
 *		At the commit of a transaction that created a scheduled view, make
 *		the database due; of one that closed a scheduled view's window, wake
 *		the view; then wake the launcher.  After the commit, so that the
 *		worker it starts sees the view and the rows.  An abort forgets what
 *		this backend noted.
 */
static void
cv_sched_xact_callback(XactEvent event, void *arg)
{
	Latch	   *latch = NULL;
	bool		wake = false;

	if (!cv_wake_at_commit && cv_npending == 0)
		return;
	if (event != XACT_EVENT_COMMIT && event != XACT_EVENT_ABORT &&
		event != XACT_EVENT_PARALLEL_COMMIT && event != XACT_EVENT_PARALLEL_ABORT)
		return;
	if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT ||
		cv_sched == NULL)
	{
		cv_wake_at_commit = false;
		if (cv_npending > 0 && cv_close_seen != NULL)
		{
			hash_destroy(cv_close_seen);
			cv_close_seen = NULL;
		}
		cv_npending = 0;
		return;
	}
	LWLockAcquire(cv_sched->lock, LW_EXCLUSIVE);
	if (cv_wake_at_commit)
	{
		CvDbDue    *slot = cv_sched_slot(MyDatabaseId, false);

		/* a database without an entry is due anyway */
		if (slot != NULL)
		{
			slot->next_due = 0;
			slot->wakes++;
		}
		wake = true;
	}
	if (cv_npending > 0 && cv_sched_publish_closes())
		wake = true;
	latch = cv_sched->launcher_latch;
	LWLockRelease(cv_sched->lock);
	cv_wake_at_commit = false;
	cv_npending = 0;
	if (wake && latch != NULL)
		SetLatch(latch);
}

/*
 * wj_scheduler_wake
 *		windowjoin._scheduler_wake(): called by create_view() for a view
 *		with a schedule; the launcher looks at this database when the
 *		transaction commits.  Does nothing without the launcher.
 */
Datum
wj_scheduler_wake(PG_FUNCTION_ARGS)
{
	if (cv_sched != NULL)
		cv_wake_at_commit = true;
	PG_RETURN_VOID();
}

/*
 * wj_scheduler_init
 *		The launcher, when the library is preloaded (its GUCs are in
 *		src/common/gucs.c).
 */
void
wj_scheduler_init(bool preloaded)
{
	BackgroundWorker worker;

	RegisterXactCallback(cv_sched_xact_callback, NULL);
	if (!preloaded)
		return;

	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = cv_sched_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = cv_sched_shmem_startup;

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
 * cv_db_is_due
 *		Should the launcher start a worker for this database now?  Records
 *		the start when it should.  A database the table cannot hold is due
 *		every naptime.
 */
static bool
cv_db_is_due(Oid dboid, TimestampTz now)
{
	CvDbDue    *slot;
	bool		due = true;

	LWLockAcquire(cv_sched->lock, LW_EXCLUSIVE);
	slot = cv_sched_slot(dboid, true);
	if (slot != NULL)
	{
		due = slot->last_start == 0 || slot->views_woken ||
			(now >= TimestampTzPlusMilliseconds(slot->last_start, wj_scheduler_naptime) &&
			 now >= slot->next_due);
		if (due)
			slot->last_start = now;
	}
	LWLockRelease(cv_sched->lock);
	return due;
}

/*
 * cv_sched_forget_dropped
 *		Drop the entries of databases that are no longer listed.
 */
static void
cv_sched_forget_dropped(List *dbs)
{
	LWLockAcquire(cv_sched->lock, LW_EXCLUSIVE);
	for (int i = 0; i < cv_sched->ndbs;)
	{
		if (list_member_oid(dbs, cv_sched->dbs[i].dboid))
			i++;
		else
			cv_sched->dbs[i] = cv_sched->dbs[--cv_sched->ndbs];
	}
	for (int i = 0; i < cv_sched->nviews;)
	{
		if (list_member_oid(dbs, cv_sched->views[i].dboid))
			i++;
		else
			cv_sched->views[i] = cv_sched->views[--cv_sched->nviews];
	}
	LWLockRelease(cv_sched->lock);
}

/*
 * cv_launcher_detach
 *		before_shmem_exit: no launcher to wake any more.
 */
static void
cv_launcher_detach(int code, Datum arg)
{
	LWLockAcquire(cv_sched->lock, LW_EXCLUSIVE);
	cv_sched->launcher_latch = NULL;
	LWLockRelease(cv_sched->lock);
}

/*
 * wj_scheduler_launcher_main
 *		The launcher's loop: every naptime, a worker for each database
 *		that is due and has none running.
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
	LWLockAcquire(cv_sched->lock, LW_EXCLUSIVE);
	cv_sched->launcher_latch = MyLatch;
	LWLockRelease(cv_sched->lock);
	before_shmem_exit(cv_launcher_detach, (Datum) 0);
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
			cv_sched_forget_dropped(dbs);
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
			if (busy || !cv_db_is_due(dboid, GetCurrentTimestamp()))
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
 * cv_has_catalog
 *		Is the extension installed in this database, at a version with
 *		continuous views (0.3 on)?  In a transaction.
 */
static bool
cv_has_catalog(void)
{
	Oid			nsp;

	if (!OidIsValid(get_extension_oid("windowjoin", true)))
		return false;
	nsp = get_namespace_oid("windowjoin", true);
	return OidIsValid(nsp) && OidIsValid(get_relname_relid("view_catalog", nsp));
}

/*
 * cv_take_woken
 *		The views of this database whose window closed since the last
 *		round (cv_sched_publish_closes); they are no longer woken.
 */
static List *
cv_take_woken(Oid dboid)
{
	List	   *views = NIL;
	CvDbDue    *db;

	LWLockAcquire(cv_sched->lock, LW_EXCLUSIVE);
	for (int i = 0; i < cv_sched->nviews; i++)
	{
		CvViewWake *w = &cv_sched->views[i];

		if (w->dboid == dboid && w->woken)
		{
			w->woken = false;
			views = lappend_oid(views, w->view);
		}
	}
	db = cv_sched_slot(dboid, false);
	if (db != NULL)
		db->views_woken = false;
	LWLockRelease(cv_sched->lock);
	return views;
}

/*
 * cv_unwake
 *		A refresh of view is about to start, with a snapshot taken after
 *		this: every window close published so far is in it.  (In a
 *		pipeline, a stage's refresh wakes the next stage, which this round
 *		refreshes next anyway: without this, the next round would refresh
 *		it again for nothing.)
 */
static void
cv_unwake(Oid dboid, Oid view)
{
	CvViewWake *w;

	LWLockAcquire(cv_sched->lock, LW_EXCLUSIVE);
	w = cv_wake_slot(dboid, view, false);
	if (w != NULL)
		w->woken = false;
	LWLockRelease(cv_sched->lock);
}

/*
 * cv_views_woken
 *		Has a view of this database been woken since cv_take_woken?
 */
static bool
cv_views_woken(Oid dboid)
{
	CvDbDue    *db;
	bool		woken;

	LWLockAcquire(cv_sched->lock, LW_SHARED);
	db = cv_sched_slot(dboid, false);
	woken = db != NULL && db->views_woken;
	LWLockRelease(cv_sched->lock);
	return woken;
}

/*
 * cv_due_views
 *		The continuous views of this database whose schedule is due or
 *		whose window closed (woken, scheduled views), or NIL when the
 *		extension is not installed here.  A view whose failures put its
 *		next attempt off waits for it either way.
 */
static List *
cv_due_views(List *woken)
{
	List	   *views = NIL;
	MemoryContext outer = CurrentMemoryContext;
	Datum	   *elems = palloc(sizeof(Datum) * (list_length(woken) + 1));
	Oid			argtypes[1] = {OIDARRAYOID};
	Datum		args[1];
	int			n = 0;
	ListCell   *lc;

	foreach(lc, woken)
		elems[n++] = ObjectIdGetDatum(lfirst_oid(lc));
	args[0] = PointerGetDatum(construct_array(elems, n, OIDOID, sizeof(Oid), true,
											  TYPALIGN_INT));

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	if (cv_has_catalog())
	{
		PushActiveSnapshot(GetTransactionSnapshot());
		SPI_connect();
		/* a pipeline's stages upstream first (cv_pipeline.c) */
		if (SPI_execute_with_args(psprintf("SELECT c.view_rel::pg_catalog.oid FROM windowjoin.view_catalog c "
										   "JOIN (%s) st ON st.view_rel OPERATOR(pg_catalog.=) c.view_rel::pg_catalog.oid "
										   "WHERE c.schedule IS NOT NULL "
										   "AND (NOT c.distributed OR c.refreshes OPERATOR(pg_catalog.=) 0) "
										   "AND (c.last_refresh IS NULL OR c.last_refresh OPERATOR(pg_catalog.+) c.schedule "
										   "OPERATOR(pg_catalog.<=) pg_catalog.clock_timestamp() "
										   "OR c.view_rel::pg_catalog.oid OPERATOR(pg_catalog.=) ANY ($1)) "
										   "AND (c.next_attempt IS NULL "
										   "OR c.next_attempt OPERATOR(pg_catalog.<=) pg_catalog.clock_timestamp()) "
										   "ORDER BY st.stage, c.last_refresh NULLS FIRST", cv_stage_sql),
								  1, argtypes, args, NULL, true, 0) != SPI_OK_SELECT)
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
 * cv_try_lock
 *		Lock the view's table and its catalog row for this transaction if
 *		no one else holds them (a manual refresh, or one left open in a
 *		transaction; a drop): false, and nothing waited for, when someone
 *		does or the view is gone.
 */
static bool
cv_try_lock(Oid view)
{
	Oid			argtypes[1] = {OIDOID};
	Datum		values[1];

	/*
	 * The view's table first, as refresh() and DROP take it (cv_lock_view):
	 * a drop holding or awaiting it makes the view wait for the next round.
	 */
	if (!ConditionalLockRelationOid(view, RowExclusiveLock))
		return false;
	values[0] = ObjectIdGetDatum(view);
	if (SPI_execute_with_args("SELECT 1 FROM windowjoin.view_catalog c "
							  "WHERE c.view_rel::pg_catalog.oid OPERATOR(pg_catalog.=) $1 "
							  "FOR UPDATE SKIP LOCKED",
							  1, argtypes, values, NULL, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not lock a continuous view's catalog row");
	return SPI_processed == 1;
}

/*
 * cv_record_failure
 *		After a failed refresh of view: count the failure, keep its error,
 *		and put the next attempt off by the view's schedule doubled for each
 *		consecutive failure, at most windowjoin.scheduler_max_backoff.  In a
 *		transaction of its own.
 */
static void
cv_record_failure(Oid view, ErrorData *edata)
{
	Oid			argtypes[4] = {OIDOID, TEXTOID, TEXTOID, FLOAT8OID};
	Datum		values[4];

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	SPI_connect();
	values[0] = ObjectIdGetDatum(view);
	values[1] = CStringGetTextDatum(edata->message ? edata->message : "");
	values[2] = CStringGetTextDatum(unpack_sql_state(edata->sqlerrcode));
	values[3] = Float8GetDatum((double) wj_scheduler_max_backoff);
	if (SPI_execute_with_args(
							  "UPDATE windowjoin.view_catalog c "
							  "SET failures = c.failures OPERATOR(pg_catalog.+) 1, "
							  "last_error = $2, last_error_sqlstate = $3, "
							  "last_error_at = pg_catalog.clock_timestamp(), "
							  "next_attempt = pg_catalog.clock_timestamp() OPERATOR(pg_catalog.+) "
							  "pg_catalog.make_interval(secs => LEAST($4, "
							  "pg_catalog.date_part('epoch', c.schedule) "
							  "OPERATOR(pg_catalog.*) pg_catalog.power(2::pg_catalog.float8, "
							  "LEAST(c.failures, 30)::pg_catalog.float8))) "
							  "WHERE c.view_rel::pg_catalog.oid OPERATOR(pg_catalog.=) $1",
							  4, argtypes, values, NULL, false, 0) != SPI_OK_UPDATE)
		elog(ERROR, "could not update windowjoin.view_catalog");
	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
}

/*
 * cv_record_failure_safely
 *		cv_record_failure, whose own error (the view went away meanwhile)
 *		is dropped: the refresh's error is what the log has already said.
 */
static void
cv_record_failure_safely(Oid view, ErrorData *edata, MemoryContext outer)
{
	PG_TRY();
	{
		cv_record_failure(view, edata);
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(outer);
		FlushErrorState();
		AbortCurrentTransaction();
	}
	PG_END_TRY();
}

/*
 * cv_refresh_one
 *		Refresh one view in its own transaction, unless another session
 *		holds its catalog row; an error is logged with its SQLSTATE, rolled
 *		back and recorded in the view's catalog row (cv_record_failure),
 *		and the worker goes on with the next view.
 */
static void
cv_refresh_one(Oid view)
{
	MemoryContext outer = CurrentMemoryContext;
	char	   *name = NULL;

	cv_unwake(MyDatabaseId, view);
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	/* before the transaction's first snapshot */
	XactIsoLevel = XACT_REPEATABLE_READ;
	PG_TRY();
	{
		Oid			argtypes[1] = {OIDOID};
		Datum		values[1];

		name = MemoryContextStrdup(outer, cv_relation_text(view));

		/*
		 * A worker's statements do not pass through postgres.c, which arms
		 * statement_timeout for a client's: the limit is armed here, and
		 * its interrupt reports "canceling statement due to statement
		 * timeout" (57014) as a client's would.
		 */
		if (wj_refresh_timeout > 0)
			enable_timeout_after(STATEMENT_TIMEOUT, wj_refresh_timeout);
		values[0] = ObjectIdGetDatum(view);
		SPI_connect();
		PushActiveSnapshot(GetTransactionSnapshot());
		if (cv_try_lock(view))
		{
			pgstat_report_activity(STATE_RUNNING, "windowjoin.refresh (scheduled)");
			if (SPI_execute_with_args("SELECT windowjoin.refresh($1::pg_catalog.oid::pg_catalog.regclass)",
									  1, argtypes, values, NULL, false, 0) != SPI_OK_SELECT)
				elog(ERROR, "could not refresh continuous view %u", view);
		}
		SPI_finish();
		PopActiveSnapshot();
		if (wj_refresh_timeout > 0)
		{
			/* a limit reached just as the refresh ended cancels nothing */
			if (get_timeout_indicator(STATEMENT_TIMEOUT, false))
				QueryCancelPending = false;
			disable_timeout(STATEMENT_TIMEOUT, false);
		}
		CommitTransactionCommand();
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		if (wj_refresh_timeout > 0)
			disable_timeout(STATEMENT_TIMEOUT, false);
		MemoryContextSwitchTo(outer);
		edata = CopyErrorData();
		FlushErrorState();
		AbortCurrentTransaction();
		ereport(LOG,
				(errmsg("windowjoin: scheduled refresh of continuous view %s failed: %s (SQLSTATE %s)",
						name ? name : psprintf("%u", view), edata->message,
						unpack_sql_state(edata->sqlerrcode))));
		cv_record_failure_safely(view, edata, outer);
		FreeErrorData(edata);
	}
	PG_END_TRY();
	pgstat_report_activity(STATE_IDLE, NULL);
}

/*
 * cv_next_due
 *		When the next view of this database falls due; now plus
 *		CV_IDLE_RECHECK_MS without scheduled views or without the extension.
 */
static TimestampTz
cv_next_due(void)
{
	TimestampTz due = TimestampTzPlusMilliseconds(GetCurrentTimestamp(),
												  CV_IDLE_RECHECK_MS);

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	if (cv_has_catalog())
	{
		bool		isnull;
		Datum		d;

		PushActiveSnapshot(GetTransactionSnapshot());
		SPI_connect();
		if (SPI_execute("SELECT pg_catalog.min(GREATEST("
						"COALESCE(c.last_refresh, '-infinity') OPERATOR(pg_catalog.+) c.schedule, "
						"c.next_attempt)) "
						"FROM windowjoin.view_catalog c WHERE c.schedule IS NOT NULL "
						"AND (NOT c.distributed OR c.refreshes OPERATOR(pg_catalog.=) 0)",
						true, 0) != SPI_OK_SELECT || SPI_processed != 1)
			elog(ERROR, "could not list continuous views");
		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
		if (!isnull)
			due = Min(due, DatumGetTimestampTz(d));
		SPI_finish();
		PopActiveSnapshot();
	}
	CommitTransactionCommand();
	return due;
}

/*
 * wj_scheduler_db_main
 *		A per-database worker: refresh the views that are due, then leave
 *		the time of the next one in the launcher's table and exit.
 */
void
wj_scheduler_db_main(Datum arg)
{
	Oid			dboid = DatumGetObjectId(arg);
	List	   *views;
	List	   *refreshed = NIL;
	ListCell   *lc;
	CvDbDue    *slot;
	uint64		wakes;
	TimestampTz next_due;

	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnectionByOid(dboid, InvalidOid, 0);
	pgstat_report_appname("windowjoin scheduler");

	/*
	 * The worker is a superuser: nothing of a user schema may resolve in
	 * its statements (which also qualify their operators), nor in the
	 * database's or its owner's default search_path.
	 */
	SetConfigOption("search_path", "pg_catalog, pg_temp", PGC_SUSET, PGC_S_OVERRIDE);

	/* a wake after this point, seen or not by what follows, wins */
	LWLockAcquire(cv_sched->lock, LW_EXCLUSIVE);
	slot = cv_sched_slot(dboid, false);
	wakes = slot != NULL ? slot->wakes : 0;
	LWLockRelease(cv_sched->lock);

	/*
	 * Rounds: the views due and those woken by a window's close; again
	 * while commits wake views during a round (a stream closing windows
	 * faster than a process starts keeps one worker), up to a bound, after
	 * which the launcher starts the next worker.
	 */
	for (int round = 0; round < CV_MAX_ROUNDS; round++)
	{
		views = cv_due_views(cv_take_woken(dboid));
		foreach(lc, views)
		{
			CHECK_FOR_INTERRUPTS();
			cv_refresh_one(lfirst_oid(lc));
		}
		refreshed = list_concat_unique_oid(refreshed, views);
		if (!cv_views_woken(dboid))
			break;
	}
	cv_vacuum_state(refreshed);
	next_due = cv_next_due();

	LWLockAcquire(cv_sched->lock, LW_EXCLUSIVE);
	slot = cv_sched_slot(dboid, false);
	if (slot != NULL && slot->wakes == wakes)
		slot->next_due = next_due;
	LWLockRelease(cv_sched->lock);
	proc_exit(0);
}
