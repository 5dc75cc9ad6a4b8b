/*-------------------------------------------------------------------------
 *
 * window_join_explain.c
 *	  EXPLAIN of the WindowJoin custom scan: what window_join_exec.c runs,
 *	  read back from its plan and, under ANALYZE, from its state.
 *
 * src/nodes/window_join/window_join_explain.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "commands/explain.h"
#include "utils/ruleutils.h"

#include "src/common/explain_common.h"
#include "src/nodes/window_join/window_join_internal.h"

/*
 * wjoin_explain
 *		ExplainCustomScan: the window, join type, keys, conditions and (with
 *		ANALYZE) the peak state.
 */
void
wjoin_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	WindowJoinState *state = (WindowJoinState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	List	   *exprs = cscan->custom_exprs;
	Const	   *c_every = state->info.every;
	Const	   *c_size = state->info.size;
	Const	   *c_offset = state->info.offset;
	Interval   *offset = c_offset ? DatumGetIntervalP(c_offset->constvalue) : NULL;
	List	   *context;

	switch (state->kind)
	{
		case WJ_KIND_TUMBLE:
			wj_explain_window("tumble", NULL, NULL,
							  DatumGetIntervalP(c_size->constvalue), offset, es);
			break;
		case WJ_KIND_HOP:
			wj_explain_window("hop", "slide",
							  DatumGetIntervalP(c_every->constvalue),
							  DatumGetIntervalP(c_size->constvalue), offset, es);
			break;
		case WJ_KIND_CUMULATE:
			wj_explain_window("cumulate", "step",
							  DatumGetIntervalP(c_every->constvalue),
							  DatumGetIntervalP(c_size->constvalue), offset, es);
			break;
		case WJ_KIND_COLUMNS:
			ExplainPropertyText("Window", "window columns", es);
			break;
	}
	wj_explain_join_type(state->jointype, es);

	context = set_deparse_context_plan(es->deparse_cxt, &cscan->scan.plan,
									   ancestors);
	wj_explain_exprs("Window Cond", list_nth(exprs, WJ_EXPR_SHOW_WINDOW), context, es);
	if (state->mode == WJ_MODE_TIME)
	{
		List	   *times = list_make2(linitial(list_nth(exprs, WJ_EXPR_OUTER_WINDOW)),
									   linitial(list_nth(exprs, WJ_EXPR_INNER_WINDOW)));

		ExplainPropertyList("Window Time",
							list_make2(deparse_expression(linitial(times), context, true, false),
									   deparse_expression(lsecond(times), context, true, false)),
							es);
	}
	wj_explain_exprs("Join Keys", list_nth(exprs, WJ_EXPR_SHOW_KEYS), context, es);
	wj_explain_exprs("Join Filter", list_nth(exprs, WJ_EXPR_SHOW_FILTER), context, es);
	wjoin_buckets_explain(state->outer.buckets, state->inner.buckets, es);
	wj_explain_state(&state->stats, es);

	/* under ANALYZE: windows that did not fit in memory (text: only if any) */
	{
		WjSpillFigure figures[3] = {
			{"Spilled Windows", state->spilled_windows},
			{"Batches", state->max_batches},
			{"Extra Chunks", state->spill_chunks}
		};

		wj_explain_spill(figures, 3, (state->spill_bytes + 1023) / 1024,
						 state->spilled_windows > 0 || state->spill_bytes > 0,
						 es);
	}
	if (state->info.keypart.units > 0)
		ExplainPropertyInteger("Key Partitions", NULL,
							   state->kp.parts, es);
	wj_explain_workers(&state->pinstr, &node->ss.ps, &state->stats, es);
}
