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
 * exchanged through shared temporary files (row_exchange.c):
 *
 *	1. write: each participant reads its child (the partial pane
 *	   aggregation) to the end and writes each pane row into the window
 *	   partitions that hold one of the pane's windows (windows are cut into
 *	   blocks of consecutive windows, blocks dealt round-robin to the
 *	   partitions, so a pane usually falls into one partition, at most two);
 *	2. everyone who joined the write phase has finished it;
 *	3. read: each participant claims partitions and emits, for every pane
 *	   row of a partition (from every participant), the windows of that
 *	   partition only.
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
 * src/nodes/window_expand/window_expand_exec.c
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

#include "src/common/exec_common.h"
#include "src/common/explain_common.h"
#include "src/common/window_arith.h"
#include "src/nodes/window_expand/window_expand.h"
#include "src/parallel/row_exchange.h"

/* Window partitions per planned participant, and at most */
#define WJ_EXPAND_PARTS_PER_PARTICIPANT	4
#define WJ_EXPAND_MAX_PARTS				64
/* Consecutive windows per block, in windows per pane */
#define WJ_EXPAND_BLOCK_PANES			4

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
	WjExchange	ex;				/* ex.shared NULL: emit every window */
	int64		block;			/* windows per block */
	bool		done;			/* every partition claimed and read */
	WjLeaderShare leader;		/* the leader's share under a Gather */
	int			nparts;			/* partitions of the last run (EXPLAIN) */
	TupleTableSlot *read_slot;	/* a pane row read back */
} WindowExpandState;

static Node *window_expand_create_state(CustomScan *cscan);
static void window_expand_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *window_expand_exec(CustomScanState *node);
static void window_expand_end(CustomScanState *node);
static void window_expand_rescan(CustomScanState *node);
static void window_expand_explain(CustomScanState *node, List *ancestors,
								  ExplainState *es);
static Size window_expand_estimate_dsm(CustomScanState *node,
									   ParallelContext *pcxt);
static void window_expand_initialize_dsm(CustomScanState *node,
								   ParallelContext *pcxt, void *coordinate);
static void window_expand_reinitialize_dsm(CustomScanState *node,
									 ParallelContext *pcxt, void *coordinate);
static void window_expand_initialize_worker(CustomScanState *node, shm_toc *toc,
									  void *coordinate);
static void window_expand_shutdown(CustomScanState *node);

CustomScanMethods wj_window_expand_scan_methods = {
	.CustomName = "WindowExpand",
	.CreateCustomScanState = window_expand_create_state,
};

static CustomExecMethods window_expand_exec_methods = {
	.CustomName = "WindowExpand",
	.BeginCustomScan = window_expand_begin,
	.ExecCustomScan = window_expand_exec,
	.EndCustomScan = window_expand_end,
	.ReScanCustomScan = window_expand_rescan,
	.ExplainCustomScan = window_expand_explain,
	.EstimateDSMCustomScan = window_expand_estimate_dsm,
	.InitializeDSMCustomScan = window_expand_initialize_dsm,
	.ReInitializeDSMCustomScan = window_expand_reinitialize_dsm,
	.InitializeWorkerCustomScan = window_expand_initialize_worker,
	.ShutdownCustomScan = window_expand_shutdown,
};

/*
 * window_expand_create_state
 *		CreateCustomScanState: allocate the node state and read the plan's
 *		private data.
 */
static Node *
window_expand_create_state(CustomScan *cscan)
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
	state->ex.reading = -1;
	return (Node *) state;
}

/*
 * window_expand_begin
 *		BeginCustomScan: start the child (the partial aggregation).
 */
static void
window_expand_begin(CustomScanState *node, EState *estate, int eflags)
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
	p = blk % state->ex.shared->nparts;
	if (p < 0)
		p += state->ex.shared->nparts;
	return (int) p;
}

/*
 * write_pane
 *		wj_exchange_write's write_row: a pane row into the partitions of its
 *		windows.
 */
static void
write_pane(void *arg, WjExchange *ex, TupleTableSlot *slot)
{
	WindowExpandState *state = (WindowExpandState *) arg;
	uint64		mask = 0;
	int			p;

	if (!start_row(state, slot))
		return;
	while (state->remaining > 0)
	{
		mask |= UINT64CONST(1) << window_partition(state, state->next);
		if (--state->remaining > 0)
			state->next += state->every;
	}
	for (p = 0; p < ex->shared->nparts; p++)
	{
		if (mask & (UINT64CONST(1) << p))
			wj_exchange_put(ex, p, slot);
	}
}

/*
 * shared_write
 *		Parallel-aware: unless the write phase is over already, write every
 *		pane row of the child into the partitions of its windows, then wait
 *		until every participant of the write phase is done.
 */
static void
shared_write(WindowExpandState *state)
{
	wj_exchange_write(&state->ex, (PlanState *) linitial(state->css.custom_ps),
					  state->css.ss.ps.state->es_query_cxt, write_pane, state);
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
	if (!state->ex.written)
		shared_write(state);

	while (!state->done)
	{
		TupleTableSlot *slot;

		if (state->ex.reading < 0)
		{
			int			p = wj_exchange_claim(&state->ex);

			if (p < 0)
			{
				state->done = true;
				break;
			}
			wj_exchange_open(&state->ex, p);
		}
		slot = wj_exchange_read(&state->ex, state->read_slot);
		if (slot != NULL)
			return slot;
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

	if (wj_leader_leaves_share(&state->leader, &ss->ps))
		return ExecClearTuple(scan);

	for (;;)
	{
		while (state->input == NULL || state->remaining <= 0)
		{
			TupleTableSlot *slot;

			CHECK_FOR_INTERRUPTS();
			if (state->ex.shared != NULL)
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
		if (state->ex.shared == NULL ||
			window_partition(state, value) == state->ex.reading)
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
 * window_expand_exec
 *		ExecCustomScan: next projected row.
 */
static TupleTableSlot *
window_expand_exec(CustomScanState *node)
{
	return ExecScan(&node->ss, expand_next, expand_recheck);
}

/*
 * window_expand_end
 *		EndCustomScan: shut the child down.
 */
static void
window_expand_end(CustomScanState *node)
{
	wj_exchange_close(&((WindowExpandState *) node)->ex);
	ExecEndNode((PlanState *) linitial(node->custom_ps));
}

/*
 * window_expand_rescan
 *		ReScanCustomScan: forget the current row and rescan the child.
 */
static void
window_expand_rescan(CustomScanState *node)
{
	WindowExpandState *state = (WindowExpandState *) node;
	PlanState  *child = (PlanState *) linitial(node->custom_ps);

	state->input = NULL;
	state->remaining = 0;
	state->leader.asked = false;
	wj_exchange_restart(&state->ex);
	state->done = false;
	wj_rescan_child(node, child);
}

/*
 * window_expand_explain
 *		ExplainCustomScan: the window specification and the pane width.
 */
static void
window_expand_explain(CustomScanState *node, List *ancestors, ExplainState *es)
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
 * window_expand_estimate_dsm
 *		EstimateDSMCustomScan: an exchange of the window partitions.
 */
static Size
window_expand_estimate_dsm(CustomScanState *node, ParallelContext *pcxt)
{
	int			nparticipants = pcxt->nworkers + 1;

	return wj_exchange_estimate(nparticipants, expand_nparts(nparticipants));
}

/*
 * window_expand_initialize_dsm
 *		InitializeDSMCustomScan (leader): set up the exchange.  Without a
 *		real segment (no workers can start) the node runs alone and emits
 *		every window.
 */
static void
window_expand_initialize_dsm(CustomScanState *node, ParallelContext *pcxt,
					   void *coordinate)
{
	WindowExpandState *state = (WindowExpandState *) node;

	state->leader.pcxt = pcxt;
	wj_exchange_init_dsm(&state->ex, coordinate, pcxt,
						 node->ss.ps.state->es_query_dsa,
						 expand_nparts(pcxt->nworkers + 1), "wjexpand");
	if (state->ex.shared != NULL)
		state->nparts = state->ex.shared->nparts;
}

/*
 * window_expand_reinitialize_dsm
 *		ReInitializeDSMCustomScan (leader, rescan of the Gather): drop the
 *		files of the previous run and start over.
 */
static void
window_expand_reinitialize_dsm(CustomScanState *node, ParallelContext *pcxt,
						 void *coordinate)
{
	wj_exchange_reinit_dsm(&((WindowExpandState *) node)->ex);
}

/*
 * window_expand_initialize_worker
 *		InitializeWorkerCustomScan: attach to the exchange.
 */
static void
window_expand_initialize_worker(CustomScanState *node, shm_toc *toc,
						  void *coordinate)
{
	WindowExpandState *state = (WindowExpandState *) node;

	wj_exchange_init_worker(&state->ex, coordinate,
							node->ss.ps.state->es_query_dsa);
	state->nparts = state->ex.shared->nparts;
}

/*
 * window_expand_shutdown
 *		ShutdownCustomScan: the shared memory goes away after this; close
 *		the partition being read and forget the shared state.
 */
static void
window_expand_shutdown(CustomScanState *node)
{
	WindowExpandState *state = (WindowExpandState *) node;

	wj_exchange_close(&state->ex);
	state->ex.shared = NULL;
	state->leader.pcxt = NULL;
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
