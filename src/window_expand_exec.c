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
 * src/window_expand_exec.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "utils/fmgrprotos.h"
#include "utils/timestamp.h"

#include "exec_common.h"
#include "explain_common.h"
#include "window_expand.h"
#include "window_arith.h"
#include "windowjoin.h"

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
} WindowExpandState;

static Node *create_window_expand_state(CustomScan *cscan);
static void begin_window_expand(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *exec_window_expand(CustomScanState *node);
static void end_window_expand(CustomScanState *node);
static void rescan_window_expand(CustomScanState *node);
static void explain_window_expand(CustomScanState *node, List *ancestors,
								  ExplainState *es);

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

	child = ExecInitNode((Plan *) linitial(cscan->custom_plans), estate, eflags);
	node->custom_ps = list_make1(child);
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
 * expand_next
 *		ExecScan access method: the next (window, row) combination as the
 *		scan tuple, or an empty slot at the end.
 */
static TupleTableSlot *
expand_next(ScanState *ss)
{
	WindowExpandState *state = (WindowExpandState *) ss;
	TupleTableSlot *scan = ss->ss_ScanTupleSlot;
	PlanState  *child = (PlanState *) linitial(state->css.custom_ps);
	int			natts = scan->tts_tupleDescriptor->natts;

	while (state->input == NULL || state->remaining <= 0)
	{
		TupleTableSlot *slot;

		CHECK_FOR_INTERRUPTS();
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

	ExecClearTuple(scan);
	scan->tts_values[0] = Int64GetDatum(state->next);
	scan->tts_isnull[0] = false;
	memcpy(scan->tts_values + 1, state->input->tts_values + 1,
		   (natts - 1) * sizeof(Datum));
	memcpy(scan->tts_isnull + 1, state->input->tts_isnull + 1,
		   (natts - 1) * sizeof(bool));
	ExecStoreVirtualTuple(scan);

	state->remaining--;
	if (state->remaining > 0)
		state->next += state->every;	/* stays below a checked bound */
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
 * end_window_expand
 *		EndCustomScan: shut the child down.
 */
static void
end_window_expand(CustomScanState *node)
{
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
