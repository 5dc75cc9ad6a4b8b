/*-------------------------------------------------------------------------
 *
 * row_exchange.c
 *	  Rows exchanged between the participants of a parallel query, by
 *	  partition, through shared memory and, past its budget, shared
 *	  temporary files.
 *
 * PostgreSQL 15 has no exchange (shuffle) node: a Parallel Seq Scan gives
 * each participant an arbitrary share of the rows.  A node that needs all
 * the rows of a partition in one process (the pane states of a window, the
 * rows of a session key) exchanges them itself, the way a parallel hash
 * join shares its batches:
 *
 *	1. write: each participant reads its child (a partial path) to the end
 *	   and copies every row into a chunk of its partition in the query's
 *	   dynamic shared memory area (es_query_dsa, as a Parallel Hash Join's
 *	   table): one chunk per partition and participant being filled, full
 *	   chunks pushed onto the partition's list (a compare-and-swap on its
 *	   head).  The chunks of all participants together stay within
 *	   work_mem x hash_mem_multiplier per planned participant, a Parallel
 *	   Hash Join's budget; a row that does not fit in it, or when the area
 *	   cannot grow, goes to the SharedTuplestore of its partition instead
 *	   (one per partition, in a SharedFileSet of the parallel query:
 *	   temporary files, which do not depend on work_mem);
 *	2. a Barrier: the participants that joined the write phase wait for
 *	   each other.  One that arrives once the phase is over has nothing to
 *	   write (the parallel scan below it is exhausted) and goes straight on;
 *	3. read: each participant claims partitions (from the counter here, or
 *	   the caller's own, keypart.c's key partitions) and reads every row
 *	   of each, written by every participant: the chunks, each freed once
 *	   read, then the files.  The order of a partition's rows is none in
 *	   particular, as it is of a SharedTuplestore's.
 *
 * The chunks spare the rows the trip through the kernel (write, page
 * cache, read) and the files' buffers; they start at 32 kB and double up
 * to 1 MB per partition and participant, so that many partitions of few
 * rows take little.  EXPLAIN ANALYZE shows where the rows went.
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
#include "commands/explain.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "optimizer/optimizer.h"
#include "pgstat.h"
#include "storage/dsm.h"
#include "storage/ipc.h"
#include "storage/spin.h"
#include "utils/memutils.h"

#include "src/common/minimal_tuple.h"
#include "src/common/pg_compat.h"
#include "src/parallel/row_exchange.h"

#define WJ_EXCHANGE_SHARED_SIZE	MAXALIGN(sizeof(WjExchangeShared))

/* chunk sizes, per partition and participant: doubling from first to last */
#define WJ_EXCHANGE_FIRST_CHUNK	((Size) 32 * 1024)
#define WJ_EXCHANGE_LAST_CHUNK	((Size) 1024 * 1024)
#define WJ_EXCHANGE_CHUNK_HEADER	MAXALIGN(offsetof(WjExchangeChunk, data))

/* rows are written at chunk->data + a MAXALIGNed offset */
StaticAssertDecl(offsetof(WjExchangeChunk, data) == WJ_EXCHANGE_CHUNK_HEADER,
				 "exchange chunk data must be MAXALIGNed");

static void finish_chunk(WjExchange *ex, int p);

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
 * exchange_heads
 *		The heads of the partitions' lists of chunks.
 */
static pg_atomic_uint64 *
exchange_heads(WjExchangeShared *sh)
{
	return (pg_atomic_uint64 *) ((char *) sh + WJ_EXCHANGE_SHARED_SIZE +
								 sh->nparts * sh->sts_size);
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
	ex->wchunk = NULL;
	ex->wchunk_dp = NULL;
	ex->wnext = NULL;
	ex->mem_full = false;
	ex->nrows_memory = 0;
	ex->nrows_files = 0;
	ex->rchunk_dp = InvalidDsaPointer;
	ex->rchunk = NULL;
	ex->roff = 0;
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
	return add_size(add_size(WJ_EXCHANGE_SHARED_SIZE,
							 mul_size(nparts,
									  MAXALIGN(sts_estimate(nparticipants)))),
					mul_size(nparts, sizeof(pg_atomic_uint64)));
}

/*
 * init_stores
 *		(Re)initialize the barrier, the claim counter, the chunk lists (empty)
 *		and the tuplestores.
 */
static void
init_stores(WjExchangeShared *sh)
{
	pg_atomic_uint64 *heads = exchange_heads(sh);
	int			p;

	BarrierInit(&sh->barrier, 0);
	pg_atomic_write_u32(&sh->next_part, 0);
	pg_atomic_write_u64(&sh->mem_used, 0);
	pg_atomic_write_u64(&sh->rows_memory, 0);
	pg_atomic_write_u64(&sh->rows_files, 0);
	pg_atomic_write_u64(&sh->bytes_memory, 0);
	for (p = 0; p < sh->nparts; p++)
	{
		char		name[NAMEDATALEN];

		pg_atomic_write_u64(&heads[p], (uint64) InvalidDsaPointer);
		snprintf(name, sizeof(name), "%s.%d", sh->name, p);
		(void) sts_initialize(exchange_sts(sh, p), sh->nparticipants, 0, 0,
							  SHARED_TUPLESTORE_SINGLE_PASS,
							  &sh->fileset, name);
	}
}

/*
 * wj_exchange_init_dsm
 *		InitializeDSMCustomScan (leader): set up an exchange of nparts
 *		partitions in space (wj_exchange_estimate bytes), its chunks in
 *		area (the query's es_query_dsa; NULL: files only).  Without a real
 *		segment (no workers can start) there is no exchange.
 */
void
wj_exchange_init_dsm(WjExchange *ex, void *space, ParallelContext *pcxt,
					 dsa_area *area, int nparts, const char *name)
{
	WjExchangeShared *sh = (WjExchangeShared *) space;
	pg_atomic_uint64 *heads;
	double		limit;
	int			p;

	reset(ex);
	ex->shared = NULL;
	ex->area = area;
	memset(&ex->instr, 0, sizeof(ex->instr));
	if (pcxt->seg == NULL)
		return;
	sh->seg = dsm_segment_handle(pcxt->seg);
	sh->nparticipants = pcxt->nworkers + 1;
	sh->nparts = nparts;
	sh->sts_size = MAXALIGN(sts_estimate(sh->nparticipants));
	strlcpy(sh->name, name, sizeof(sh->name));
	/* a Parallel Hash Join's budget: hash memory per planned participant */
	limit = (double) get_hash_memory_limit() * sh->nparticipants;
	sh->mem_limit = limit >= (double) PG_INT64_MAX ? (uint64) PG_INT64_MAX :
		(uint64) limit;
	pg_atomic_init_u32(&sh->next_part, 0);
	pg_atomic_init_u64(&sh->mem_used, 0);
	pg_atomic_init_u64(&sh->rows_memory, 0);
	pg_atomic_init_u64(&sh->rows_files, 0);
	pg_atomic_init_u64(&sh->bytes_memory, 0);
	heads = exchange_heads(sh);
	for (p = 0; p < nparts; p++)
		pg_atomic_init_u64(&heads[p], (uint64) InvalidDsaPointer);
	SharedFileSetInit(&sh->fileset, pcxt->seg);
	init_stores(sh);
	ex->shared = sh;
}

/*
 * free_chunks
 *		Leader, no worker running (a rescan of the Gather): free the chunks
 *		left unread (a partition not read to its end, under a LIMIT).
 */
static void
free_chunks(WjExchange *ex)
{
	WjExchangeShared *sh = ex->shared;
	pg_atomic_uint64 *heads = exchange_heads(sh);
	int			p;

	if (ex->area == NULL)
		return;
	for (p = 0; p < sh->nparts; p++)
	{
		dsa_pointer dp = (dsa_pointer) pg_atomic_read_u64(&heads[p]);

		while (DsaPointerIsValid(dp))
		{
			WjExchangeChunk *chunk = dsa_get_address(ex->area, dp);
			dsa_pointer next = chunk->next;

			dsa_free(ex->area, dp);
			dp = next;
		}
	}
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
	free_chunks(ex);
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
wj_exchange_init_worker(WjExchange *ex, void *space, dsa_area *area)
{
	WjExchangeShared *sh = (WjExchangeShared *) space;
	dsm_segment *seg = dsm_find_mapping(sh->seg);

	if (seg == NULL)
		elog(ERROR, "parallel query segment not mapped");
	if (fileset_destroyed(&sh->fileset))
		proc_exit(0);
	SharedFileSetAttach(&sh->fileset, seg);
	reset(ex);
	ex->area = area;
	memset(&ex->instr, 0, sizeof(ex->instr));
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
	ex->wchunk = palloc0(sizeof(WjExchangeChunk *) * sh->nparts);
	ex->wchunk_dp = palloc(sizeof(dsa_pointer) * sh->nparts);
	ex->wnext = palloc(sizeof(Size) * sh->nparts);
	for (p = 0; p < sh->nparts; p++)
	{
		ex->wchunk_dp[p] = InvalidDsaPointer;
		ex->wnext[p] = WJ_EXCHANGE_FIRST_CHUNK;
	}
	MemoryContextSwitchTo(oldcxt);

	if (BarrierAttach(&sh->barrier) == 0)
	{
		produce(arg, ex);
		for (p = 0; p < sh->nparts; p++)
		{
			finish_chunk(ex, p);
			sts_end_write(ex->sts[p]);
		}
		pg_atomic_fetch_add_u64(&sh->rows_memory, ex->nrows_memory);
		pg_atomic_fetch_add_u64(&sh->rows_files, ex->nrows_files);
		BarrierArriveAndWait(&sh->barrier, PG_WAIT_EXTENSION);
	}
	BarrierDetach(&sh->barrier);
	ex->written = true;
}

/*
 * finish_chunk
 *		Put the chunk partition p is filling on the partition's list (a
 *		compare-and-swap on its head: other participants push theirs), or
 *		free it if it holds no row.
 */
static void
finish_chunk(WjExchange *ex, int p)
{
	WjExchangeShared *sh = ex->shared;
	WjExchangeChunk *chunk = ex->wchunk[p];
	pg_atomic_uint64 *head = &exchange_heads(sh)[p];
	uint64		old;

	if (chunk == NULL)
		return;
	ex->wchunk[p] = NULL;
	if (chunk->used == 0)
	{
		pg_atomic_fetch_sub_u64(&sh->mem_used, chunk->size);
		dsa_free(ex->area, ex->wchunk_dp[p]);
		return;
	}
	old = pg_atomic_read_u64(head);
	do
	{
		chunk->next = (dsa_pointer) old;
	} while (!pg_atomic_compare_exchange_u64(head, &old,
											 (uint64) ex->wchunk_dp[p]));
}

/*
 * new_chunk
 *		A new chunk for partition p, of at least need bytes of data, within
 *		the budget of the chunks; false (and no chunk from now on for this
 *		process) when it would exceed it or the area cannot grow.
 */
static bool
new_chunk(WjExchange *ex, int p, Size need)
{
	WjExchangeShared *sh = ex->shared;
	Size		size = Max(ex->wnext[p], WJ_EXCHANGE_CHUNK_HEADER + need);
	uint64		used;
	uint64		peak;
	dsa_pointer dp;
	WjExchangeChunk *chunk;

	used = pg_atomic_add_fetch_u64(&sh->mem_used, size);
	if (used > sh->mem_limit)
	{
		pg_atomic_fetch_sub_u64(&sh->mem_used, size);
		ex->mem_full = true;
		return false;
	}
	dp = dsa_allocate_extended(ex->area, size, DSA_ALLOC_NO_OOM);
	if (!DsaPointerIsValid(dp))
	{
		pg_atomic_fetch_sub_u64(&sh->mem_used, size);
		ex->mem_full = true;
		return false;
	}
	/* the peak, for EXPLAIN ANALYZE */
	peak = pg_atomic_read_u64(&sh->bytes_memory);
	while (used > peak &&
		   !pg_atomic_compare_exchange_u64(&sh->bytes_memory, &peak, used))
		;
	chunk = dsa_get_address(ex->area, dp);
	chunk->next = InvalidDsaPointer;
	chunk->size = size;
	chunk->used = 0;
	ex->wchunk[p] = chunk;
	ex->wchunk_dp[p] = dp;
	ex->wnext[p] = Min(ex->wnext[p] * 2, WJ_EXCHANGE_LAST_CHUNK);
	return true;
}

/*
 * put_memory
 *		Copy or form slot's row (as wj_minimal_prepare prepared it in form)
 *		into partition p's chunk in shared memory; false if it has to go to
 *		the files (past the budget).
 */
static bool
put_memory(WjExchange *ex, int p, TupleTableSlot *slot,
		   const WjMinimalForm *form)
{
	Size		len = MAXALIGN(form->len);
	WjExchangeChunk *chunk = ex->wchunk[p];

	if (chunk == NULL ||
		chunk->size - WJ_EXCHANGE_CHUNK_HEADER - chunk->used < len)
	{
		finish_chunk(ex, p);
		if (!new_chunk(ex, p, len))
			return false;
		chunk = ex->wchunk[p];
	}
	wj_minimal_write(slot, form, (MinimalTuple) (chunk->data + chunk->used));
	chunk->used += len;
	return true;
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
	WjMinimalForm form;
	bool		should_free;
	MinimalTuple tuple;

	Assert(ex->sts != NULL && !ex->written &&
		   part >= 0 && part < ex->shared->nparts);
	if (ex->area != NULL && !ex->mem_full)
	{
		(void) wj_minimal_prepare(slot, NULL, &form);
		if (put_memory(ex, part, slot, &form))
		{
			ex->nrows_memory++;
			return;
		}
	}
	/* no area, or the chunks' budget is spent: to the files */
	tuple = ExecFetchSlotMinimalTuple(slot, &should_free);
	sts_puttuple(ex->sts[part], NULL, tuple);
	ex->nrows_files++;
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
	ex->rchunk = NULL;
	ex->rchunk_dp = (dsa_pointer)
		pg_atomic_read_u64(&exchange_heads(ex->shared)[part]);
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

	/* the chunks first, each freed once read */
	while (DsaPointerIsValid(ex->rchunk_dp))
	{
		WjExchangeChunk *chunk = ex->rchunk;
		dsa_pointer next;

		if (chunk == NULL)
		{
			chunk = ex->rchunk = dsa_get_address(ex->area, ex->rchunk_dp);
			ex->roff = 0;
		}
		if (ex->roff < chunk->used)
		{
			tuple = (MinimalTuple) (chunk->data + ex->roff);
			ex->roff += MAXALIGN(tuple->t_len);
			return ExecStoreMinimalTuple(tuple, slot, false);
		}
		/* the slot's row is in the chunk: let go of it first */
		ExecClearTuple(slot);
		next = chunk->next;
		pg_atomic_write_u64(&exchange_heads(ex->shared)[ex->reading],
							(uint64) next);
		pg_atomic_fetch_sub_u64(&ex->shared->mem_used, chunk->size);
		dsa_free(ex->area, ex->rchunk_dp);
		ex->rchunk_dp = next;
		ex->rchunk = NULL;
	}

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
	ex->rchunk_dp = InvalidDsaPointer;
	ex->rchunk = NULL;
	/* the counts, for EXPLAIN ANALYZE once the segment is gone */
	if (ex->shared != NULL)
	{
		ex->instr.rows_memory = pg_atomic_read_u64(&ex->shared->rows_memory);
		ex->instr.rows_files = pg_atomic_read_u64(&ex->shared->rows_files);
		ex->instr.bytes_memory = pg_atomic_read_u64(&ex->shared->bytes_memory);
	}
}

/*
 * wj_exchange_explain
 *		EXPLAIN ANALYZE: how many rows went through shared memory (and its
 *		peak) and how many through temporary files, if any was exchanged.
 */
void
wj_exchange_explain(WjExchange *ex, ExplainState *es)
{
	WjExchangeInstr *in = &ex->instr;

	if (!es->analyze || in->rows_memory + in->rows_files == 0)
		return;
	if (es->format == EXPLAIN_FORMAT_TEXT)
	{
		appendStringInfoSpaces(es->str, es->indent * 2);
		appendStringInfo(es->str,
						 "Rows Exchanged: " UINT64_FORMAT " in shared memory (peak " UINT64_FORMAT "kB), " UINT64_FORMAT " in temporary files\n",
						 in->rows_memory, (in->bytes_memory + 1023) / 1024,
						 in->rows_files);
	}
	else
	{
		ExplainPropertyUInteger("Rows Exchanged in Shared Memory", NULL,
								in->rows_memory, es);
		ExplainPropertyUInteger("Shared Memory Peak", "kB",
								(in->bytes_memory + 1023) / 1024, es);
		ExplainPropertyUInteger("Rows Exchanged in Temporary Files", NULL,
								in->rows_files, es);
	}
}
