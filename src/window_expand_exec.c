/*-------------------------------------------------------------------------
 *
 * window_expand_exec.c
 *	  WindowExpand: the executor node between the partial and the final
 *	  aggregation of a pane-based hop()/cumulate() aggregate (see
 *	  window_expand_planner.c).
 *
 * Each input row is (pane, keys..., partial aggregate states...).  The
 * node emits it once per window containing the pane, with the pane column
 * replaced by the window's start (HOP) or end (CUMULATE); the final
 * aggregation then combines the states per window.  Windows are computed
 * with the same arithmetic (and the same errors, such as
 * windowjoin.max_windows_per_row) as hop() and cumulate() themselves.  The
 * node keeps one input row at a time: it holds no other state.
 *
 * Under a Gather (a parallel-aware plan) the node also finishes the
 * aggregation in parallel.  Every participant aggregates the panes of its
 * share of the rows, so the states of one window come from every
 * participant; to let each participant's Finalize Aggregate (above this
 * node, below the Gather) see complete windows, the pane states are
 * exchanged through shared temporary files:
 *
 *	1. write: each participant reads its child (the partial pane
 *	   aggregation) to the end and writes each pane row into the window
 *	   partitions that hold one of the pane's windows (a SharedTuplestore
 *	   per partition; windows are cut into blocks of consecutive windows,
 *	   blocks dealt round-robin to the partitions, so a pane usually falls
 *	   into one partition, at most two);
 *	2. a Barrier: everyone who joined the write phase has finished it (a
 *	   participant arriving later has nothing to write: the parallel scan
 *	   below is exhausted);
 *	3. read: each participant claims partitions from a shared counter and
 *	   emits, for every pane row of a partition (from every participant),
 *	   the windows of that partition only.
 *
 * Each window is thus emitted by exactly one participant, with the states
 * of all its panes: the planner offers this only when the grouping has a
 * window column that identifies the window (window_start, window_end or
 * window_time), so each group of the final aggregation is complete in one
 * participant and the Gather just collects the finished groups.  No
 * participant waits after it has begun to emit rows, so a leader that also
 * runs the plan cannot deadlock with workers waiting for it to read their
 * rows.  Without a parallel context (no dynamic shared memory) the node
 * runs as above, alone, and emits every window.
 *
 * src/window_expand_exec.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/parallel.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "pgstat.h"
#include "port/atomics.h"
#include "storage/barrier.h"
#include "storage/dsm.h"
#include "storage/sharedfileset.h"
#include "utils/sharedtuplestore.h"
#include "utils/fmgrprotos.h"
#include "utils/timestamp.h"

#include "exec_common.h"
#include "explain_common.h"
#include "window_expand.h"
#include "window_arith.h"
#include "windowjoin.h"

/* Window partitions per planned participant, and at most */
#define WJ_EXPAND_PARTS_PER_PARTICIPANT	4
#define WJ_EXPAND_MAX_PARTS				64
/* Consecutive windows per block, in windows per pane */
#define WJ_EXPAND_BLOCK_PANES			4

/*
 * The shared state of a parallel-aware WindowExpand, in the parallel
 * query's DSM segment, followed by nparts SharedTuplestores of
 * sts_size bytes each.
 */
typedef struct WindowExpandShared
{
	dsm_handle	seg;			/* the segment, for workers to attach */
	int			nparts;			/* window partitions */
	int			nparticipants;	/* planned workers + the leader */
	Size		sts_size;		/* bytes per SharedTuplestore */
	pg_atomic_uint32 next_part; /* next partition to claim */
	Barrier		barrier;		/* phase 0: write; 1: read */
	SharedFileSet fileset;		/* the files of the tuplestores */
} WindowExpandShared;

#define WJ_EXPAND_SHARED_SIZE	MAXALIGN(sizeof(WindowExpandShared))

typedef struct WindowExpandState
{
	CustomScanState css;
	WindowExpandKind kind;
	int64		every;			/* slide or step */
	int64		size;
	int64		offset;
	int64		pane;
	TupleTableSlot *input;		/* current child row, or NULL */
	int64		next;			/* next window value to emit */
	int64		remaining;		/* windows left for the current row */

	/* parallel-aware: window partitions exchanged through shared files */
	WindowExpandShared *shared; /* NULL: emit every window */
	SharedTuplestoreAccessor **sts;	/* one per partition */
	int64		block;			/* windows per block */
	int			cur_part;		/* partition being read, or -1 */
	bool		written;		/* write phase done (or skipped) */
	bool		done;			/* every partition claimed and read */
	int			nparts;			/* partitions of the last run (EXPLAIN) */
	TupleTableSlot *read_slot;	/* a pane row read back */
} WindowExpandState;

static Node *create_window_expand_state(CustomScan *cscan);
static void begin_window_expand(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *exec_window_expand(CustomScanState *node);
static void end_window_expand(CustomScanState *node);
static void rescan_window_expand(CustomScanState *node);
static void explain_window_expand(CustomScanState *node, List *ancestors,
								  ExplainState *es);
static Size estimate_dsm_window_expand(CustomScanState *node,
									   ParallelContext *pcxt);
static void init_dsm_window_expand(CustomScanState *node,
								   ParallelContext *pcxt, void *coordinate);
static void reinit_dsm_window_expand(CustomScanState *node,
									 ParallelContext *pcxt, void *coordinate);
static void init_worker_window_expand(CustomScanState *node, shm_toc *toc,
									  void *coordinate);
static void shutdown_window_expand(CustomScanState *node);

CustomScanMethods wj_window_expand_scan_methods = {
	.CustomName = "WindowExpand",
	.CreateCustomScanState = create_window_expand_state,
};

static CustomExecMethods window_expand_exec_methods = {
	.CustomName = "WindowExpand",
	.BeginCustomScan = begin_window_expand,
	.ExecCustomScan = exec_window_expand,
	.EndCustomScan = end_window_expand,
	.ReScanCustomScan = rescan_window_expand,
	.ExplainCustomScan = explain_window_expand,
	.EstimateDSMCustomScan = estimate_dsm_window_expand,
	.InitializeDSMCustomScan = init_dsm_window_expand,
	.ReInitializeDSMCustomScan = reinit_dsm_window_expand,
	.InitializeWorkerCustomScan = init_worker_window_expand,
	.ShutdownCustomScan = shutdown_window_expand,
};

/*
 * create_window_expand_state
 *		CreateCustomScanState: allocate the node state and read the plan's
 *		private data.
 */
static Node *
create_window_expand_state(CustomScan *cscan)
{
	WindowExpandState *state = palloc0(sizeof(WindowExpandState));
	WindowExpandPlanInfo info;

	NodeSetTag(state, T_CustomScanState);
	state->css.methods = &window_expand_exec_methods;
	window_expand_info_from_private(cscan->custom_private, &info);
	state->kind = info.kind;
	state->every = info.every;
	state->size = info.size;
	state->offset = info.offset;
	state->pane = info.pane;
	state->cur_part = -1;
	return (Node *) state;
}

/*
 * begin_window_expand
 *		BeginCustomScan: start the child (the partial aggregation).
 */
static void
begin_window_expand(CustomScanState *node, EState *estate, int eflags)
{
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	PlanState  *child;

	WindowExpandState *state = (WindowExpandState *) node;
	int64		windows_per_pane;

	child = ExecInitNode((Plan *) linitial(cscan->custom_plans), estate, eflags);
	node->custom_ps = list_make1(child);

	if (cscan->scan.plan.parallel_aware)
	{
		state->read_slot = ExecInitExtraTupleSlot(estate,
												  ExecGetResultType(child),
												  &TTSOpsMinimalTuple);
		windows_per_pane = state->size / state->every +
			(state->size % state->every != 0);
		state->block = Max(windows_per_pane, 1) * WJ_EXPAND_BLOCK_PANES;
	}
}

/*
 * start_row
 *		Compute the windows of a new child row's pane; false if it has none
 *		(a NULL time, or a HOP gap between windows).
 */
static bool
start_row(WindowExpandState *state, TupleTableSlot *slot)
{
	bool		isnull;
	int64		pane = DatumGetInt64(slot_getattr(slot, 1, &isnull));

	if (isnull)
		return false;

	if (state->kind == WJ_EXPAND_HOP)
	{
		int64		first_start = 0;

		state->remaining = wj_hop_windows(pane, state->every, state->size,
										  state->offset, &first_start);
		state->next = first_start;
	}
	else
	{
		int64		start;
		int64		first_end;

		state->remaining = wj_cumulate_windows(pane, state->every, state->size,
											   state->offset, &start, &first_end);
		state->next = first_end;
	}
	return state->remaining > 0;
}

/*
 * window_partition
 *		The window partition of a window value (a HOP window's start or a
 *		CUMULATE window's end): its block of consecutive windows, blocks
 *		dealt round-robin.
 */
static int
window_partition(WindowExpandState *state, int64 value)
{
	int64		k = value / state->every;
	int64		blk;
	int64		p;

	/* floor division: window values below the epoch are negative */
	if (value % state->every != 0 && value < 0)
		k--;
	blk = k / state->block;
	if (k % state->block != 0 && k < 0)
		blk--;
	p = blk % state->shared->nparts;
	if (p < 0)
		p += state->shared->nparts;
	return (int) p;
}

/*
 * participant_number
 *		This process's number among the participants: 0 for the leader,
 *		1 + ParallelWorkerNumber for a worker.
 */
static int
participant_number(void)
{
	return IsParallelWorker() ? ParallelWorkerNumber + 1 : 0;
}

/*
 * shared_write
 *		Parallel-aware: attach to the partitions' tuplestores and, unless
 *		the write phase is over already, write every pane row of the child
 *		into the partitions of its windows, then wait until every
 *		participant of the write phase is done.
 */
static void
shared_write(WindowExpandState *state)
{
	WindowExpandShared *sh = state->shared;
	PlanState  *child = (PlanState *) linitial(state->css.custom_ps);
	MemoryContext oldcxt;
	int			me = participant_number();
	int			p;

	oldcxt = MemoryContextSwitchTo(state->css.ss.ps.state->es_query_cxt);
	state->sts = palloc(sizeof(SharedTuplestoreAccessor *) * sh->nparts);
	for (p = 0; p < sh->nparts; p++)
		state->sts[p] = sts_attach((SharedTuplestore *)
								   ((char *) sh + WJ_EXPAND_SHARED_SIZE +
									p * sh->sts_size),
								   me, &sh->fileset);
	MemoryContextSwitchTo(oldcxt);

	if (BarrierAttach(&sh->barrier) == 0)
	{
		for (;;)
		{
			TupleTableSlot *slot;
			uint64		mask = 0;
			MinimalTuple tuple;
			bool		should_free;

			CHECK_FOR_INTERRUPTS();
			slot = ExecProcNode(child);
			if (TupIsNull(slot))
				break;
			if (!start_row(state, slot))
				continue;
			while (state->remaining > 0)
			{
				mask |= UINT64CONST(1) << window_partition(state, state->next);
				if (--state->remaining > 0)
					state->next += state->every;
			}
			tuple = ExecFetchSlotMinimalTuple(slot, &should_free);
			for (p = 0; p < sh->nparts; p++)
			{
				if (mask & (UINT64CONST(1) << p))
					sts_puttuple(state->sts[p], NULL, tuple);
			}
			if (should_free)
				pfree(tuple);
		}
		for (p = 0; p < sh->nparts; p++)
			sts_end_write(state->sts[p]);
		BarrierArriveAndWait(&sh->barrier, PG_WAIT_EXTENSION);
	}
	BarrierDetach(&sh->barrier);
	state->written = true;
	state->remaining = 0;
}

/*
 * shared_next_input
 *		Parallel-aware: the next pane row of the partition being read,
 *		claiming the next partition when it is done; NULL when none is left.
 */
static TupleTableSlot *
shared_next_input(WindowExpandState *state)
{
	WindowExpandShared *sh = state->shared;

	if (!state->written)
		shared_write(state);

	while (!state->done)
	{
		MinimalTuple tuple;

		if (state->cur_part < 0)
		{
			uint32		p = pg_atomic_fetch_add_u32(&sh->next_part, 1);

			if (p >= (uint32) sh->nparts)
			{
				state->done = true;
				break;
			}
			state->cur_part = (int) p;
			sts_begin_parallel_scan(state->sts[p]);
		}
		tuple = sts_parallel_scan_next(state->sts[state->cur_part], NULL);
		if (tuple != NULL)
			return ExecStoreMinimalTuple(tuple, state->read_slot, false);
		sts_end_parallel_scan(state->sts[state->cur_part]);
		state->cur_part = -1;
	}
	return NULL;
}

/*
 * expand_next
 *		ExecScan access method: the next (window, row) combination as the
 *		scan tuple, or an empty slot at the end.  Parallel-aware, only the
 *		windows of the partition being read.
 */
static TupleTableSlot *
expand_next(ScanState *ss)
{
	WindowExpandState *state = (WindowExpandState *) ss;
	TupleTableSlot *scan = ss->ss_ScanTupleSlot;
	PlanState  *child = (PlanState *) linitial(state->css.custom_ps);
	int			natts = scan->tts_tupleDescriptor->natts;
	int64		value;

	for (;;)
	{
		while (state->input == NULL || state->remaining <= 0)
		{
			TupleTableSlot *slot;

			CHECK_FOR_INTERRUPTS();
			if (state->shared != NULL)
				slot = shared_next_input(state);
			else
				slot = ExecProcNode(child);
			if (TupIsNull(slot))
			{
				state->input = NULL;
				return ExecClearTuple(scan);
			}
			slot_getallattrs(slot);
			state->input = slot;
			if (!start_row(state, slot))
				state->remaining = 0;
		}

		value = state->next;
		state->remaining--;
		if (state->remaining > 0)
			state->next += state->every;	/* stays below a checked bound */
		if (state->shared == NULL ||
			window_partition(state, value) == state->cur_part)
			break;
	}

	ExecClearTuple(scan);
	scan->tts_values[0] = Int64GetDatum(value);
	scan->tts_isnull[0] = false;
	memcpy(scan->tts_values + 1, state->input->tts_values + 1,
		   (natts - 1) * sizeof(Datum));
	memcpy(scan->tts_isnull + 1, state->input->tts_isnull + 1,
		   (natts - 1) * sizeof(bool));
	ExecStoreVirtualTuple(scan);
	return scan;
}

/*
 * expand_recheck
 *		ExecScan recheck method: nothing to recheck.
 */
static bool
expand_recheck(ScanState *ss, TupleTableSlot *slot)
{
	return true;
}

/*
 * exec_window_expand
 *		ExecCustomScan: next projected row.
 */
static TupleTableSlot *
exec_window_expand(CustomScanState *node)
{
	return ExecScan(&node->ss, expand_next, expand_recheck);
}

/*
 * close_partition
 *		Parallel-aware: stop reading the current partition, if any (the
 *		leader may stop early, under a LIMIT).
 */
static void
close_partition(WindowExpandState *state)
{
	if (state->cur_part >= 0)
	{
		sts_end_parallel_scan(state->sts[state->cur_part]);
		state->cur_part = -1;
	}
}

/*
 * end_window_expand
 *		EndCustomScan: shut the child down.
 */
static void
end_window_expand(CustomScanState *node)
{
	close_partition((WindowExpandState *) node);
	ExecEndNode((PlanState *) linitial(node->custom_ps));
}

/*
 * rescan_window_expand
 *		ReScanCustomScan: forget the current row and rescan the child.
 */
static void
rescan_window_expand(CustomScanState *node)
{
	WindowExpandState *state = (WindowExpandState *) node;
	PlanState  *child = (PlanState *) linitial(node->custom_ps);

	state->input = NULL;
	state->remaining = 0;
	close_partition(state);
	state->written = false;
	state->done = false;
	state->sts = NULL;
	wj_rescan_child(node, child);
}

/*
 * explain_window_expand
 *		ExplainCustomScan: the window specification and the pane width.
 */
static void
explain_window_expand(CustomScanState *node, List *ancestors, ExplainState *es)
{
	WindowExpandState *state = (WindowExpandState *) node;
	Interval	every = {.time = state->every};
	Interval	size = {.time = state->size};
	Interval	offset = {.time = state->offset};

	if (state->kind == WJ_EXPAND_HOP)
		wj_explain_window("hop", "slide", &every, &size, &offset, es);
	else
		wj_explain_window("cumulate", "step", &every, &size, &offset, es);
	ExplainPropertyText("Pane", wj_usecs_text(state->pane), es);
	if (node->ss.ps.plan->parallel_aware)
	{
		ExplainPropertyText("Pane States", "shared, partitioned by window", es);
		if (es->analyze && state->nparts > 0)
			ExplainPropertyInteger("Window Partitions", NULL,
								   state->nparts, es);
	}
}

/*
 * expand_nparts
 *		Window partitions for a number of planned participants.
 */
static int
expand_nparts(int nparticipants)
{
	return Min(nparticipants * WJ_EXPAND_PARTS_PER_PARTICIPANT,
			   WJ_EXPAND_MAX_PARTS);
}

/*
 * estimate_dsm_window_expand
 *		EstimateDSMCustomScan: the shared state and a SharedTuplestore per
 *		window partition.
 */
static Size
estimate_dsm_window_expand(CustomScanState *node, ParallelContext *pcxt)
{
	int			nparticipants = pcxt->nworkers + 1;

	return add_size(WJ_EXPAND_SHARED_SIZE,
					mul_size(expand_nparts(nparticipants),
							 MAXALIGN(sts_estimate(nparticipants))));
}

/*
 * init_shared_stores
 *		(Re)initialize the barrier, the claim counter and the tuplestores.
 */
static void
init_shared_stores(WindowExpandShared *sh)
{
	int			p;

	BarrierInit(&sh->barrier, 0);
	pg_atomic_write_u32(&sh->next_part, 0);
	for (p = 0; p < sh->nparts; p++)
	{
		char		name[NAMEDATALEN];

		snprintf(name, sizeof(name), "wjexpand.%d", p);
		(void) sts_initialize((SharedTuplestore *)
							  ((char *) sh + WJ_EXPAND_SHARED_SIZE +
							   p * sh->sts_size),
							  sh->nparticipants, 0, 0,
							  SHARED_TUPLESTORE_SINGLE_PASS,
							  &sh->fileset, name);
	}
}

/*
 * init_dsm_window_expand
 *		InitializeDSMCustomScan (leader): set up the shared state.  Without
 *		a real segment (no workers can start) the node runs alone and emits
 *		every window.
 */
static void
init_dsm_window_expand(CustomScanState *node, ParallelContext *pcxt,
					   void *coordinate)
{
	WindowExpandState *state = (WindowExpandState *) node;
	WindowExpandShared *sh = (WindowExpandShared *) coordinate;

	if (pcxt->seg == NULL)
		return;
	sh->seg = dsm_segment_handle(pcxt->seg);
	sh->nparticipants = pcxt->nworkers + 1;
	sh->nparts = expand_nparts(sh->nparticipants);
	sh->sts_size = MAXALIGN(sts_estimate(sh->nparticipants));
	pg_atomic_init_u32(&sh->next_part, 0);
	SharedFileSetInit(&sh->fileset, pcxt->seg);
	init_shared_stores(sh);
	state->shared = sh;
	state->nparts = sh->nparts;
}

/*
 * reinit_dsm_window_expand
 *		ReInitializeDSMCustomScan (leader, rescan of the Gather): drop the
 *		files of the previous run and start over.
 */
static void
reinit_dsm_window_expand(CustomScanState *node, ParallelContext *pcxt,
						 void *coordinate)
{
	WindowExpandState *state = (WindowExpandState *) node;

	if (state->shared == NULL)
		return;
	close_partition(state);
	SharedFileSetDeleteAll(&state->shared->fileset);
	init_shared_stores(state->shared);
}

/*
 * init_worker_window_expand
 *		InitializeWorkerCustomScan: attach to the shared state and files.
 */
static void
init_worker_window_expand(CustomScanState *node, shm_toc *toc,
						  void *coordinate)
{
	WindowExpandState *state = (WindowExpandState *) node;
	WindowExpandShared *sh = (WindowExpandShared *) coordinate;
	dsm_segment *seg = dsm_find_mapping(sh->seg);

	if (seg == NULL)
		elog(ERROR, "WindowExpand: parallel query segment not mapped");
	SharedFileSetAttach(&sh->fileset, seg);
	state->shared = sh;
	state->nparts = sh->nparts;
}

/*
 * shutdown_window_expand
 *		ShutdownCustomScan: the shared memory goes away after this; close
 *		the partition being read and forget the shared state.
 */
static void
shutdown_window_expand(CustomScanState *node)
{
	WindowExpandState *state = (WindowExpandState *) node;

	close_partition(state);
	state->shared = NULL;
}

/*
 * wj_window_expand_register
 *		Make the node known to the planner and to parallel workers.
 */
void
wj_window_expand_register(void)
{
	RegisterCustomScanMethods(&wj_window_expand_scan_methods);
}
