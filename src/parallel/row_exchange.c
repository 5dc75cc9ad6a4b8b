/*-------------------------------------------------------------------------
 *
 * row_exchange.c
 *	  Rows exchanged between the participants of a parallel query, by
 *	  partition, through shared temporary files.
 *
 * PostgreSQL 15 has no exchange (shuffle) node: a Parallel Seq Scan gives
 * each participant an arbitrary share of the rows.  A node that needs all
 * the rows of a partition in one process (the pane states of a window, the
 * rows of a session key) exchanges them itself, the way a parallel hash
 * join shares its batches:
 *
 *	1. write: each participant reads its child (a partial path) to the end
 *	   and writes every row into the SharedTuplestore of its partition (one
 *	   per partition, in a SharedFileSet of the parallel query: temporary
 *	   files, so the exchange does not depend on work_mem);
 *	2. a Barrier: the participants that joined the write phase wait for
 *	   each other.  One that arrives once the phase is over has nothing to
 *	   write (the parallel scan below it is exhausted) and goes straight on;
 *	3. read: each participant claims partitions (from the counter here, or
 *	   the caller's own, keypart.c's key partitions) and reads every row
 *	   of each, written by every participant.
 *
 * Nobody waits once it has begun to return rows, so a leader that also runs
 * the plan cannot deadlock with workers waiting for it to read their rows.
 * A rescan of the Gather deletes the files and starts over.  Without a DSM
 * segment (no workers could start) there is nothing to exchange: the
 * caller reads its child as a serial plan would (ex->shared is NULL).
 *
 * The planner charges an exchange as PostgreSQL charges a Material that
 * spills (wj_exchange_cost).
 *
 * src/parallel/row_exchange.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/parallel.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "optimizer/optimizer.h"
#include "pgstat.h"
#include "storage/dsm.h"
#include "storage/ipc.h"
#include "storage/spin.h"
#include "utils/memutils.h"

#include "src/common/pg_compat.h"
#include "src/parallel/row_exchange.h"

#define WJ_EXCHANGE_SHARED_SIZE	MAXALIGN(sizeof(WjExchangeShared))

/*
 * exchange_sts
 *		The shared part of partition p's tuplestore.
 */
static SharedTuplestore *
exchange_sts(WjExchangeShared *sh, int p)
{
	return (SharedTuplestore *) ((char *) sh + WJ_EXCHANGE_SHARED_SIZE +
								 p * sh->sts_size);
}

/*
 * wj_participant_number
 *		This process's number among the participants: 0 for the leader,
 *		1 + ParallelWorkerNumber for a worker.
 */
int
wj_participant_number(void)
{
	return IsParallelWorker() ? ParallelWorkerNumber + 1 : 0;
}

/*
 * reset
 *		No partition attached, written or being read.
 */
static void
reset(WjExchange *ex)
{
	ex->sts = NULL;
	ex->written = false;
	ex->reading = -1;
}

/*
 * wj_exchange_cost
 *		Planner: the cost of exchanging rows rows of width bytes, counted as
 *		cost_material() counts a Material that spills: two operators per
 *		row (written, read back) and every page written and read once.
 */
Cost
wj_exchange_cost(double rows, int width)
{
	double		bytes = rows * (MAXALIGN(width) +
								MAXALIGN(SizeofMinimalTupleHeader));

	return 2.0 * cpu_operator_cost * rows +
		2.0 * seq_page_cost * ceil(bytes / BLCKSZ);
}

/*
 * wj_exchange_estimate
 *		EstimateDSMCustomScan's share of an exchange: the shared state and a
 *		SharedTuplestore per partition.
 */
Size
wj_exchange_estimate(int nparticipants, int nparts)
{
	return add_size(WJ_EXCHANGE_SHARED_SIZE,
					mul_size(nparts, MAXALIGN(sts_estimate(nparticipants))));
}

/*
 * init_stores
 *		(Re)initialize the barrier, the claim counter and the tuplestores.
 */
static void
init_stores(WjExchangeShared *sh)
{
	int			p;

	BarrierInit(&sh->barrier, 0);
	pg_atomic_write_u32(&sh->next_part, 0);
	for (p = 0; p < sh->nparts; p++)
	{
		char		name[NAMEDATALEN];

		snprintf(name, sizeof(name), "%s.%d", sh->name, p);
		(void) sts_initialize(exchange_sts(sh, p), sh->nparticipants, 0, 0,
							  SHARED_TUPLESTORE_SINGLE_PASS,
							  &sh->fileset, name);
	}
}

/*
 * wj_exchange_init_dsm
 *		InitializeDSMCustomScan (leader): set up an exchange of nparts
 *		partitions in space (wj_exchange_estimate bytes).  Without a real
 *		segment (no workers can start) there is no exchange.
 */
void
wj_exchange_init_dsm(WjExchange *ex, void *space, ParallelContext *pcxt,
					 int nparts, const char *name)
{
	WjExchangeShared *sh = (WjExchangeShared *) space;

	reset(ex);
	ex->shared = NULL;
	if (pcxt->seg == NULL)
		return;
	sh->seg = dsm_segment_handle(pcxt->seg);
	sh->nparticipants = pcxt->nworkers + 1;
	sh->nparts = nparts;
	sh->sts_size = MAXALIGN(sts_estimate(sh->nparticipants));
	strlcpy(sh->name, name, sizeof(sh->name));
	pg_atomic_init_u32(&sh->next_part, 0);
	SharedFileSetInit(&sh->fileset, pcxt->seg);
	init_stores(sh);
	ex->shared = sh;
}

/*
 * wj_exchange_reinit_dsm
 *		ReInitializeDSMCustomScan (leader, rescan of the Gather): drop the
 *		files of the previous run and start over.
 */
void
wj_exchange_reinit_dsm(WjExchange *ex)
{
	if (ex->shared == NULL)
		return;
	wj_exchange_restart(ex);
	SharedFileSetDeleteAll(&ex->shared->fileset);
	init_stores(ex->shared);
}

/*
 * fileset_destroyed
 *		Has every backend detached from the shared files (so that they are
 *		gone, and SharedFileSetAttach would fail)?
 */
static bool
fileset_destroyed(SharedFileSet *fileset)
{
	bool		destroyed;

	SpinLockAcquire(&fileset->mutex);
	destroyed = (fileset->refcnt == 0);
	SpinLockRelease(&fileset->mutex);
	return destroyed;
}

/*
 * wj_exchange_init_worker
 *		InitializeWorkerCustomScan: attach to the shared state and files.
 *
 * The leader is attached to the files from InitializeDSMCustomScan until it
 * destroys the parallel context, which at the end of a query waits for
 * every launched worker first.  So a worker that finds them destroyed
 * started after the leader had given up on the query (an error or a cancel
 * in the leader): it has nothing to do and nobody to tell, and exits
 * quietly, as ParallelWorkerMain does when it finds that the leader has
 * exited, rather than log an error for a query that is already over.
 */
void
wj_exchange_init_worker(WjExchange *ex, void *space)
{
	WjExchangeShared *sh = (WjExchangeShared *) space;
	dsm_segment *seg = dsm_find_mapping(sh->seg);

	if (seg == NULL)
		elog(ERROR, "parallel query segment not mapped");
	if (fileset_destroyed(&sh->fileset))
		proc_exit(0);
	SharedFileSetAttach(&sh->fileset, seg);
	reset(ex);
	ex->shared = sh;
}

/*
 * wj_exchange_restart
 *		Forget this process's progress (a rescan): close the partition being
 *		read; the next run attaches and writes again.
 */
void
wj_exchange_restart(WjExchange *ex)
{
	wj_exchange_close(ex);
	reset(ex);
}

/*
 * wj_exchange_write_all
 *		The write phase: attach to every partition and, if the write phase
 *		is still open when this process arrives, let produce() put its
 *		rows (wj_exchange_put), then wait for every writer.  A process that
 *		arrives after the phase is over writes nothing: the others have
 *		already consumed every input row, so it has none to write.
 */
void
wj_exchange_write_all(WjExchange *ex, MemoryContext cxt,
					  WjExchangeProduce produce, void *arg)
{
	WjExchangeShared *sh = ex->shared;
	MemoryContext oldcxt = MemoryContextSwitchTo(cxt);
	int			me = wj_participant_number();
	int			p;

	ex->sts = palloc(sizeof(SharedTuplestoreAccessor *) * sh->nparts);
	for (p = 0; p < sh->nparts; p++)
		ex->sts[p] = sts_attach(exchange_sts(sh, p), me, &sh->fileset);
	MemoryContextSwitchTo(oldcxt);

	if (BarrierAttach(&sh->barrier) == 0)
	{
		produce(arg, ex);
		for (p = 0; p < sh->nparts; p++)
			sts_end_write(ex->sts[p]);
		BarrierArriveAndWait(&sh->barrier, PG_WAIT_EXTENSION);
	}
	BarrierDetach(&sh->barrier);
	ex->written = true;
}

/* wj_exchange_write's producer: every row of the child through write_row */
typedef struct ChildWriter
{
	PlanState  *child;
	WjExchangeWriteRow write_row;
	void	   *arg;
} ChildWriter;

static void
write_child_rows(void *arg, WjExchange *ex)
{
	ChildWriter *w = (ChildWriter *) arg;

	for (;;)
	{
		TupleTableSlot *slot;

		CHECK_FOR_INTERRUPTS();
		slot = ExecProcNode(w->child);
		if (TupIsNull(slot))
			break;
		w->write_row(w->arg, ex, slot);
	}
}

/*
 * wj_exchange_write
 *		The write phase for a node that writes its child's rows as they
 *		come: write_row puts each into its partitions.
 */
void
wj_exchange_write(WjExchange *ex, PlanState *child, MemoryContext cxt,
				  WjExchangeWriteRow write_row, void *arg)
{
	ChildWriter w = {child, write_row, arg};

	wj_exchange_write_all(ex, cxt, write_child_rows, &w);
}

/*
 * wj_exchange_put
 *		Write a row into partition part (from wj_exchange_write's write_row).
 */
void
wj_exchange_put(WjExchange *ex, int part, TupleTableSlot *slot)
{
	bool		should_free;
	MinimalTuple tuple = ExecFetchSlotMinimalTuple(slot, &should_free);

	Assert(ex->sts != NULL && !ex->written &&
		   part >= 0 && part < ex->shared->nparts);
	sts_puttuple(ex->sts[part], NULL, tuple);
	if (should_free)
		pfree(tuple);
}

/*
 * wj_exchange_claim
 *		The next unclaimed partition, or -1 when every one is claimed.  For
 *		a caller that does not claim partitions its own way.
 */
int
wj_exchange_claim(WjExchange *ex)
{
	uint32		p = pg_atomic_fetch_add_u32(&ex->shared->next_part, 1);

	return p < (uint32) ex->shared->nparts ? (int) p : -1;
}

/*
 * wj_exchange_open
 *		Start reading partition part (claimed by this process alone).
 */
void
wj_exchange_open(WjExchange *ex, int part)
{
	Assert(ex->written && ex->reading < 0);
	ex->reading = part;
	sts_begin_parallel_scan(ex->sts[part]);
}

/*
 * wj_exchange_read
 *		The next row of the partition being read, stored in slot (a
 *		MinimalTuple slot, valid until the next read); NULL at its end,
 *		which closes it.
 */
TupleTableSlot *
wj_exchange_read(WjExchange *ex, TupleTableSlot *slot)
{
	MinimalTuple tuple;

	Assert(ex->reading >= 0);
	tuple = sts_parallel_scan_next(ex->sts[ex->reading], NULL);
	if (tuple != NULL)
		return ExecStoreMinimalTuple(tuple, slot, false);
	wj_exchange_close(ex);
	return NULL;
}

/*
 * wj_exchange_close
 *		Stop reading the partition being read, if any (the leader may stop
 *		early, under a LIMIT).
 */
void
wj_exchange_close(WjExchange *ex)
{
	if (ex->sts != NULL && ex->reading >= 0)
	{
		sts_end_parallel_scan(ex->sts[ex->reading]);
		ex->reading = -1;
	}
}
