/*-------------------------------------------------------------------------
 *
 * window_join_exec.c
 *	  Executor half of the WindowJoin custom scan: join two windowed inputs
 *	  one window at a time, keeping only the rows of windows still open.
 *
 * INTERFACE ROUTINES
 *		wj_window_join_scan_methods		CustomScan methods (window_join.h)
 *		wj_window_join_register			register them (from _PG_init)
 *
 * ALGORITHM
 *
 * Both inputs arrive sorted (PostgreSQL's Sort or a presorted path, see
 * window_join_planner.c).  Each side has a one-row lookahead ("peek", read
 * with its window(s) and key hash by window_join_input.c) and a FIFO buffer
 * of the rows of the windows that are still open.  The inner
 * side's buffered rows are also chained by the hash of their equality keys
 * in a simplehash table, so a window's join is a hash join over the rows of
 * that window only.  Rows are copied into the buffer once, whatever the
 * number of windows they belong to.
 *
 * GROUP mode (TUMBLE inputs, windowed subqueries): a row is in exactly one
 * window, identified by the values of the equated window columns; inputs
 * are sorted by them.  For each window: drop the whole state, take the
 * smallest window value of the two lookaheads, read every row of that
 * window from both sides, join.  An unsorted TUMBLE input is instead
 * grouped by window inside the node (window_join_buckets.c), its window's
 * own bounds stored as NULL and put back from the window value as its rows
 * are read (wjoin_buckets_restore).
 *
 * TIME mode (HOP, CUMULATE): inputs are the un-expanded relations sorted by
 * their time column.  For each row we compute the end of its first and of
 * its last window (window ends are distinct and ordered, so a window is
 * identified by its end E; a row's windows are consecutive in that order).
 * The next window is the one after the previous window if some buffered
 * row reaches further, else the first window of the next unread row.  For
 * window E: evict buffered rows whose last window ends before E (they are
 * at the head of each FIFO: both FIFOs are ordered by time), read the rows
 * whose first window ends at or before E (those with time < E), and join.
 * The buffer then holds exactly the rows of window E.  The window columns
 * of each side (the function scan's output, PlaceHolderVars over it) are
 * computed once per window.
 *
 * Joining one window: every outer row of the window probes the inner hash
 * chain of its key hash; each candidate is checked with the join quals
 * (which include the key equalities), and matches are emitted.  The outer
 * row is deformed into the scan tuple only at its first candidate (or when
 * it is emitted alone): in a HOP window most rows have none, and a row is
 * in size/slide windows.  Outer rows
 * without a match are emitted null-extended for LEFT/FULL/ANTI, outer rows
 * with one are emitted once for SEMI; for RIGHT/FULL the inner rows of the
 * window not matched in this window (each inner row remembers the last
 * window it matched in) follow.  A window's results are emitted when its
 * last row has been read, i.e. when it closes, and never again.  Rows whose
 * equality keys are NULL never match; rows of a GROUP-mode input whose
 * window value is NULL belong to no window and are emitted null-extended
 * if their side is preserved (TIME-mode rows with a NULL time have no
 * windows at all, as with the window functions).
 *
 * The state (the buffered rows) is accounted with state_stats.h and shown
 * by EXPLAIN ANALYZE as the peak rows/bytes: the largest set of open
 * windows, not the table.
 *
 * MEMORY
 *
 * The buffered rows and the inner hash chains are kept within
 * work_mem x hash_mem_multiplier (get_hash_memory_limit(), the budget of a
 * Hash Join), whatever the planner estimated.  Past five eighths of it the
 * open windows "spill" to temporary files, and a window whose rows are in
 * files is joined batch by batch, as PostgreSQL's hash join joins batches
 * (window_join_spill.c).  EXPLAIN ANALYZE shows the number of spilled
 * windows and the bytes written to temporary files.
 *
 * Rows of a preserved side that belong to no window (GROUP mode) wait in a
 * tuplestore, which spills too, until they are emitted.
 *
 * src/nodes/window_join/window_join_exec.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "common/hashfn.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "port/atomics.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/memutils.h"
#include "utils/ruleutils.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"
#include "storage/buffile.h"

#include "src/common/exec_common.h"
#include "src/common/explain_common.h"
#include "src/common/state_stats.h"
#include "src/common/window_arith.h"
#include "src/nodes/window_join/window_join.h"
#include "src/nodes/window_join/window_join_internal.h"
#include "src/parallel/keypart.h"

static Node *window_join_create_state(CustomScan *cscan);
static void window_join_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *window_join_exec(CustomScanState *node);
static void window_join_end(CustomScanState *node);
static void window_join_rescan(CustomScanState *node);
static Size window_join_estimate_dsm(CustomScanState *node,
									 ParallelContext *pcxt);
static void window_join_initialize_dsm(CustomScanState *node, ParallelContext *pcxt,
								 void *coordinate);
static void window_join_reinitialize_dsm(CustomScanState *node,
								   ParallelContext *pcxt, void *coordinate);
static void window_join_initialize_worker(CustomScanState *node, shm_toc *toc,
									void *coordinate);
static void window_join_shutdown(CustomScanState *node);
static void window_join_restart(CustomScanState *node);
static bool window_join_next_partition(WindowJoinState *state);

CustomScanMethods wj_window_join_scan_methods = {
	.CustomName = WJ_WINDOW_JOIN_NAME,
	.CreateCustomScanState = window_join_create_state,
};

static CustomExecMethods wj_exec_methods = {
	.CustomName = WJ_WINDOW_JOIN_NAME,
	.BeginCustomScan = window_join_begin,
	.ExecCustomScan = window_join_exec,
	.EndCustomScan = window_join_end,
	.ReScanCustomScan = window_join_rescan,
	.ExplainCustomScan = wjoin_explain,
	.EstimateDSMCustomScan = window_join_estimate_dsm,
	.InitializeDSMCustomScan = window_join_initialize_dsm,
	.ReInitializeDSMCustomScan = window_join_reinitialize_dsm,
	.InitializeWorkerCustomScan = window_join_initialize_worker,
	.ShutdownCustomScan = window_join_shutdown,
};

/*
 * window_join_create_state
 *		Allocate the scan state.
 */
static Node *
window_join_create_state(CustomScan *cscan)
{
	WindowJoinState *state = (WindowJoinState *) newNode(sizeof(WindowJoinState),
												 T_CustomScanState);

	state->css.methods = &wj_exec_methods;
	window_join_info_from_private(cscan->custom_private, &state->info);
	return (Node *) state;
}

/*
 * init_side
 *		Set up one input from the plan.
 */
static void
init_side(WindowJoinState *state, WjSide *side, Plan *plan, EState *estate,
		  int eflags, int first_col, int ncols, List *key_exprs,
		  List *win_exprs, List *extra_exprs, List *extra_is_expr,
		  int first_extra, List *hash_oids)
{
	PlanState  *parent = &state->css.ss.ps;
	ListCell   *lc;
	int			i;

	side->ps = ExecInitNode(plan, estate, eflags);
	side->desc = ExecGetResultType(side->ps);
	side->first_col = first_col;
	side->ncols = ncols;
	if (side->desc->natts != ncols)
		elog(ERROR, "window join input has %d columns, expected %d",
			 side->desc->natts, ncols);

	side->nwin = list_length(win_exprs);
	if (side->nwin < 1 || side->nwin > WJ_MAX_WINDOW_KEYS)
		elog(ERROR, "unexpected number of window expressions: %d", side->nwin);
	i = 0;
	foreach(lc, win_exprs)
		side->win_state[i++] = ExecInitExpr((Expr *) lfirst(lc), parent);

	side->nkeys = list_length(key_exprs);
	side->key_state = palloc0(sizeof(ExprState *) * Max(side->nkeys, 1));
	side->hashfn = palloc0(sizeof(FmgrInfo) * Max(side->nkeys, 1));
	i = 0;
	foreach(lc, key_exprs)
	{
		side->key_state[i] = ExecInitExpr((Expr *) lfirst(lc), parent);
		fmgr_info(list_nth_oid(hash_oids, i), &side->hashfn[i]);
		i++;
	}

	side->first_extra = first_extra;
	side->nextras = list_length(extra_exprs);
	side->extra_is_expr = palloc0(sizeof(bool) * Max(side->nextras, 1));
	side->extra_state = palloc0(sizeof(ExprState *) * Max(side->nextras, 1));
	side->extra_values = palloc0(sizeof(Datum) * Max(side->nextras, 1));
	side->extra_nulls = palloc0(sizeof(bool) * Max(side->nextras, 1));
	i = 0;
	foreach(lc, extra_exprs)
	{
		side->extra_is_expr[i] = list_nth_int(extra_is_expr, i) != 0;
		if (side->extra_is_expr[i])
			side->extra_state[i] = ExecInitExpr((Expr *) lfirst(lc), parent);
		side->extra_nulls[i] = true;
		i++;
	}
}

/*
 * window_join_begin
 *		BeginCustomScan: initialise children, expressions and state.
 */
static void
window_join_begin(CustomScanState *node, EState *estate, int eflags)
{
	WindowJoinState *state = (WindowJoinState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	WindowJoinPlanInfo *info = &state->info;
	List	   *exprs = cscan->custom_exprs;
	int			outer_ncols = info->outer_ncols;
	int			inner_ncols = info->inner_ncols;
	List	   *coll = info->key_coll;
	ListCell   *lc;
	int			i;

	/* no backward scans or mark/restore */
	Assert(!(eflags & (EXEC_FLAG_BACKWARD | EXEC_FLAG_MARK)));

	state->jointype = info->jointype;
	wj_keypart_setup(&state->kp, &info->keypart);
	state->kp.bucket = -1;
	state->mode = info->mode;
	state->kind = info->kind;
	if (state->mode == WJ_MODE_TIME)
	{
		state->every = wj_interval_duration(DatumGetIntervalP(info->every->constvalue), "slide");
		state->size = wj_interval_duration(DatumGetIntervalP(info->size->constvalue), "size");
		state->offset = wj_interval_offset(DatumGetIntervalP(info->offset->constvalue));
	}

	state->key_coll = palloc0(sizeof(Oid) * Max(list_length(coll), 1));
	i = 0;
	foreach(lc, coll)
		state->key_coll[i++] = lfirst_oid(lc);

	init_side(state, &state->outer, linitial(cscan->custom_plans), estate,
			  eflags, 0, outer_ncols,
			  list_nth(exprs, WJ_EXPR_OUTER_KEYS),
			  list_nth(exprs, WJ_EXPR_OUTER_WINDOW),
			  list_nth(exprs, WJ_EXPR_OUTER_EXTRAS), info->outer_extra_is_expr,
			  outer_ncols + inner_ncols,
			  info->outer_hashfn);
	init_side(state, &state->inner, lsecond(cscan->custom_plans), estate,
			  eflags, outer_ncols, inner_ncols,
			  list_nth(exprs, WJ_EXPR_INNER_KEYS),
			  list_nth(exprs, WJ_EXPR_INNER_WINDOW),
			  list_nth(exprs, WJ_EXPR_INNER_EXTRAS), info->inner_extra_is_expr,
			  outer_ncols + inner_ncols + list_length(info->outer_extra_is_expr),
			  info->inner_hashfn);
	state->inner.is_inner = true;
	state->outer.preserved = (state->jointype == JOIN_LEFT ||
							  state->jointype == JOIN_FULL ||
							  state->jointype == JOIN_ANTI);
	state->inner.preserved = (state->jointype == JOIN_RIGHT ||
							  state->jointype == JOIN_FULL);
	node->custom_ps = list_make2(state->outer.ps, state->inner.ps);

	if (node->ss.ss_ScanTupleSlot->tts_tupleDescriptor->natts !=
		outer_ncols + inner_ncols + state->outer.nextras + state->inner.nextras)
		elog(ERROR, "window join scan tuple has an unexpected width");

	state->joinqual = ExecInitQual(list_nth(exprs, WJ_EXPR_JOINQUAL),
								   &node->ss.ps);

	state->bufcxt = GenerationContextCreate(CurrentMemoryContext,
											"WindowJoin state",
											ALLOCSET_DEFAULT_SIZES);
	state->wincxt = AllocSetContextCreate(CurrentMemoryContext,
										  "WindowJoin window",
										  ALLOCSET_SMALL_SIZES);
	state->chains = wjchain_create(CurrentMemoryContext, 256, NULL);
	wj_state_reset(&state->stats, false);

	/*
	 * The memory bound: of work_mem x hash_mem_multiplier, buffered rows and
	 * their hash chains get five eighths, the file buffers of the batches
	 * at most a quarter (two BufFiles per batch), and the two tuplestores
	 * of rows without a window a thirty-second each.
	 */
	state->nodecxt = CurrentMemoryContext;
	state->rowcxt = AllocSetContextCreate(CurrentMemoryContext,
										  "WindowJoin spilled row",
										  ALLOCSET_DEFAULT_SIZES);
	state->mem_limit = get_hash_memory_limit();
	state->budget = state->mem_limit / 8 * 5;
	state->max_nbatch = 1;
	while (state->max_nbatch < 1024 &&
		   (Size) state->max_nbatch * 2 * 2 * (BLCKSZ + 256) <= state->mem_limit / 4)
		state->max_nbatch *= 2;
	state->outer.orphan_slot = ExecAllocTableSlot(&estate->es_tupleTable,
												  state->outer.desc,
												  &TTSOpsMinimalTuple);
	state->inner.orphan_slot = ExecAllocTableSlot(&estate->es_tupleTable,
												  state->inner.desc,
												  &TTSOpsMinimalTuple);
	if ((info->outer_buckets && state->outer.nwin != 1) ||
		(info->inner_buckets && state->inner.nwin != 1))
		elog(ERROR, "window join input grouped by more than one window value");
	if (info->outer_buckets)
		state->outer.buckets = wjoin_buckets_create(state->outer.desc,
													info->outer_derived,
													info->outer_derived_step,
													info->size, state->nodecxt);
	if (info->inner_buckets)
		state->inner.buckets = wjoin_buckets_create(state->inner.desc,
													info->inner_derived,
													info->inner_derived_step,
													info->size, state->nodecxt);
	state->phase = WJ_PHASE_START;
}

/*
 * fill_from_row
 *		Put a buffered row, and its side's window columns, into the scan
 *		tuple.
 */
static void
fill_from_row(WindowJoinState *state, WjSide *side, WjRow *row)
{
	TupleTableSlot *scan = wjoin_scan_open(state);
	MinimalTuple mtup = WJ_ROW_TUPLE(row);
	HeapTupleData htup;

	htup.t_len = mtup->t_len + MINIMAL_TUPLE_OFFSET;
	htup.t_data = (HeapTupleHeader) ((char *) mtup - MINIMAL_TUPLE_OFFSET);
	heap_deform_tuple(&htup, side->desc,
					  scan->tts_values + side->first_col,
					  scan->tts_isnull + side->first_col);
	if (side->nextras > 0)
	{
		memcpy(scan->tts_values + side->first_extra, side->extra_values,
			   sizeof(Datum) * side->nextras);
		memcpy(scan->tts_isnull + side->first_extra, side->extra_nulls,
			   sizeof(bool) * side->nextras);
	}
	/* GROUP: every buffered row is of the window being joined */
	if (side->buckets != NULL)
		wjoin_buckets_restore(side->buckets, state->group_window,
							  scan->tts_values + side->first_col,
							  scan->tts_isnull + side->first_col);
	wjoin_scan_close(scan);
}

/*
 * fill_nulls
 *		Null-extend one side of the scan tuple.
 */
static void
fill_nulls(WindowJoinState *state, WjSide *side)
{
	TupleTableSlot *scan = wjoin_scan_open(state);
	int			i;

	for (i = 0; i < side->ncols; i++)
	{
		scan->tts_values[side->first_col + i] = (Datum) 0;
		scan->tts_isnull[side->first_col + i] = true;
	}
	for (i = 0; i < side->nextras; i++)
	{
		scan->tts_values[side->first_extra + i] = (Datum) 0;
		scan->tts_isnull[side->first_extra + i] = true;
	}
	wjoin_scan_close(scan);
}

/*
 * emit
 *		Apply the pushed-down quals to the scan tuple and project it.
 *		Returns NULL when the quals reject it.
 */
static TupleTableSlot *
emit(WindowJoinState *state)
{
	ExprContext *econtext = state->css.ss.ps.ps_ExprContext;
	ExprState  *qual = state->css.ss.ps.qual;

	ResetExprContext(econtext);
	econtext->ecxt_scantuple = state->css.ss.ss_ScanTupleSlot;
	if (qual != NULL && !ExecQual(qual, econtext))
	{
		InstrCountFiltered1(state, 1);
		return NULL;
	}
	if (state->css.ss.ps.ps_ProjInfo)
		return ExecProject(state->css.ss.ps.ps_ProjInfo);
	return state->css.ss.ss_ScanTupleSlot;
}

/*
 * side_has_rows / side_last_end
 *		Does a side hold rows of open windows; the last window end of its
 *		newest row (TIME mode; rows arrive in time order, so it is the
 *		largest).
 */
static bool
side_has_rows(WindowJoinState *state, WjSide *side)
{
	return state->spilled ? side->qrows > 0 : side->head != NULL;
}

static int64
side_last_end(WindowJoinState *state, WjSide *side)
{
	return state->spilled ? side->qlast_end : side->tail->last_end;
}

/*
 * evict_head
 *		TIME mode: drop the oldest row of a side, whose windows are all
 *		closed.  It is also the oldest of its hash chain.
 */
static void
evict_head(WindowJoinState *state, WjSide *side)
{
	WjRow	   *row = side->head;

	side->head = row->next;
	if (side->head == NULL)
		side->tail = NULL;

	if (side->is_inner && !row->hashnull)
	{
		WjChain    *chain = wjchain_lookup(state->chains, row->hash);

		if (chain == NULL || chain->head != row)
			elog(ERROR, "window join hash chain is corrupt");
		chain->head = row->chain_next;
		if (chain->head == NULL)
			wjchain_delete_item(state->chains, chain);
	}
	wj_state_remove(&state->stats, (int64) row->size);
	pfree(row);
}

/*
 * evict_closed
 *		TIME mode: drop a side's rows whose last window ends before end,
 *		from memory or from the head of its file.
 */
static void
evict_closed(WindowJoinState *state, WjSide *side, int64 end)
{
	if (!state->spilled)
	{
		while (side->head && side->head->last_end < end)
			evict_head(state, side);
		return;
	}
	while (side->qrows > 0)
	{
		WjRow		hdr;

		CHECK_FOR_INTERRUPTS();
		if (BufFileSeek(side->qfile, side->qhead_fileno, side->qhead_off,
						SEEK_SET) != 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not seek in window join temporary file")));
		wjoin_spill_read_header(side->qfile, &hdr);
		if (hdr.last_end >= end)
			break;
		if (BufFileSeek(side->qfile, 0, (off_t) (hdr.size - WJ_ROW_HEADER),
						SEEK_CUR) != 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not seek in window join temporary file")));
		BufFileTell(side->qfile, &side->qhead_fileno, &side->qhead_off);
		side->qrows--;
		side->qbytes -= hdr.size;
	}
}

/*
 * clear_state
 *		Drop every buffered row at once.
 */
static void
clear_state(WindowJoinState *state)
{
	MemoryContextReset(state->bufcxt);
	wjchain_reset(state->chains);
	state->outer.head = state->outer.tail = NULL;
	state->inner.head = state->inner.tail = NULL;
	wjoin_close_queue_files(state);
	wj_state_clear(&state->stats);
}

/*
 * compare_windows
 *		GROUP mode: order of two window values.
 */
static int
compare_windows(const int64 *a, const int64 *b, int n)
{
	int			i;

	for (i = 0; i < n; i++)
	{
		if (a[i] < b[i])
			return -1;
		if (a[i] > b[i])
			return 1;
	}
	return 0;
}

/*
 * set_extras
 *		TIME mode: compute a side's window columns for the window ending at
 *		end (the function's output column first, then the expressions over
 *		it, evaluated on the scan tuple).
 */
static void
set_extras(WindowJoinState *state, WjSide *side, int64 start, int64 end)
{
	ExprContext *econtext = state->css.ss.ps.ps_ExprContext;
	TupleTableSlot *scan;
	TupleDesc	scandesc;
	Datum		value;
	int			i;

	if (side->nextras == 0)
		return;
	value = Int64GetDatum(state->kind == WJ_KIND_HOP ? start : end);
	scan = wjoin_scan_open(state);
	for (i = 0; i < side->nextras; i++)
	{
		side->extra_values[i] = side->extra_is_expr[i] ? (Datum) 0 : value;
		side->extra_nulls[i] = side->extra_is_expr[i];
		scan->tts_values[side->first_extra + i] = side->extra_values[i];
		scan->tts_isnull[side->first_extra + i] = side->extra_nulls[i];
	}
	wjoin_scan_close(scan);

	scandesc = scan->tts_tupleDescriptor;
	econtext->ecxt_scantuple = scan;
	for (i = 0; i < side->nextras; i++)
	{
		Form_pg_attribute attr = TupleDescAttr(scandesc, side->first_extra + i);
		bool		isnull;
		Datum		d;

		if (!side->extra_is_expr[i])
			continue;
		ResetExprContext(econtext);
		d = ExecEvalExpr(side->extra_state[i], econtext, &isnull);
		side->extra_nulls[i] = isnull;
		side->extra_values[i] = isnull ? (Datum) 0 :
			datumCopy(d, attr->attbyval, attr->attlen);
	}
}

/*
 * next_window
 *		Advance to the next window that has rows, updating the state so that
 *		the buffers hold exactly its rows.  Returns false when the inputs are
 *		exhausted.
 */
static bool
next_window(WindowJoinState *state)
{
	WjSide	   *sides[2] = {&state->outer, &state->inner};
	int			s;

	if (state->mode == WJ_MODE_GROUP)
	{
		int64		win[WJ_MAX_WINDOW_KEYS];
		bool		found = false;
		int			nwin = state->outer.nwin;

		clear_state(state);
		for (s = 0; s < 2; s++)
		{
			if (sides[s]->peek_valid &&
				(!found || compare_windows(sides[s]->peek_win, win, nwin) < 0))
			{
				memcpy(win, sides[s]->peek_win, sizeof(int64) * nwin);
				found = true;
			}
		}
		if (!found)
			return false;
		state->group_window = win[0];
		for (s = 0; s < 2; s++)
		{
			while (sides[s]->peek_valid &&
				   compare_windows(sides[s]->peek_win, win, nwin) == 0)
				wjoin_take_peek(state, sides[s]);
		}
	}
	else
	{
		int64		end = 0;
		int64		start;
		bool		found = false;

		/* the window after the last one, if a buffered row reaches it */
		for (s = 0; s < 2; s++)
		{
			if (state->have_last_end && side_has_rows(state, sides[s]) &&
				side_last_end(state, sides[s]) > state->last_end)
			{
				end = state->last_end + state->every;
				found = true;
			}
		}
		/* else (or if earlier) the first window of the next row */
		for (s = 0; s < 2; s++)
		{
			if (sides[s]->peek_valid &&
				(!found || sides[s]->peek_first_end < end))
			{
				end = sides[s]->peek_first_end;
				found = true;
			}
		}
		if (!found)
			return false;

		/* evict on both sides first, so that the state never exceeds a window */
		for (s = 0; s < 2; s++)
			evict_closed(state, sides[s], end);
		for (s = 0; s < 2; s++)
		{
			while (sides[s]->peek_valid && sides[s]->peek_first_end <= end)
				wjoin_take_peek(state, sides[s]);
		}
		/* back to memory once the open windows fit well again */
		if (state->spilled &&
			(Size) (state->outer.qbytes + state->inner.qbytes) +
			(Size) state->inner.qrows * sizeof(WjChain) * 2 <= state->budget / 4)
			wjoin_unspill_state(state);
		state->last_end = end;
		state->have_last_end = true;

		if (state->kind == WJ_KIND_HOP)
			start = wj_timestamp_add(end, -state->size);
		else
			start = wj_window_floor(end - 1, state->size, state->offset);
		MemoryContextReset(state->wincxt);
		{
			MemoryContext oldcxt = MemoryContextSwitchTo(state->wincxt);

			set_extras(state, &state->outer, start, end);
			set_extras(state, &state->inner, start, end);
			MemoryContextSwitchTo(oldcxt);
		}
	}

	state->window_seq++;
	return true;
}

/*
 * window_join_exec
 *		ExecCustomScan: return the next joined row.
 */
static TupleTableSlot *
window_join_exec(CustomScanState *node)
{
	WindowJoinState *state = (WindowJoinState *) node;
	ExprContext *econtext = node->ss.ps.ps_ExprContext;
	JoinType	jointype = state->jointype;
	TupleTableSlot *result;

	for (;;)
	{
		CHECK_FOR_INTERRUPTS();

		switch (state->phase)
		{
			case WJ_PHASE_START:
				/* key-partitioned: claim a partition before reading */
				if (state->kp.parts > 0 && state->kp.bucket < 0 &&
					!window_join_next_partition(state))
				{
					state->phase = WJ_PHASE_DONE;
					return NULL;
				}
				/* a partial outer input: the leader may leave its share */
				if (state->kp.parts == 0 &&
					wj_leader_leaves_share(&state->leader, &node->ss.ps))
				{
					state->phase = WJ_PHASE_DONE;
					return NULL;
				}
				wjoin_fetch_next(state, &state->outer);

				/*
				 * With no outer row in any window, an inner row can only be
				 * emitted if the inner side is preserved.  Otherwise do not
				 * read the inner input at all: PostgreSQL's merge and hash
				 * joins skip it too when the outer input is empty, so its
				 * window functions are never evaluated (an infinite time
				 * there must not raise an error PostgreSQL's plan does not).
				 */
				if (!state->outer.peek_valid && !state->inner.preserved)
					state->inner.exhausted = true;
				wjoin_fetch_next(state, &state->inner);
				/* rows without a window seen so far go out first */
				state->phase = WJ_PHASE_ORPHANS;
				state->after_orphans = WJ_PHASE_NEXT_WINDOW;
				break;

			case WJ_PHASE_NEXT_WINDOW:
				if (!next_window(state))
				{
					state->phase = WJ_PHASE_ORPHANS;
					state->after_orphans = WJ_PHASE_DONE;
					break;
				}
				if (state->spilled)
				{
					wjoin_spill_join_start(state);
					state->phase = WJ_PHASE_SPILL_BATCH;
					break;
				}
				state->outer_cur = state->outer.head;
				state->probe_started = false;
				state->phase = WJ_PHASE_PROBE;
				break;

			case WJ_PHASE_SPILL_BATCH:
				if (wjoin_spill_next_batch(state))
					state->phase = WJ_PHASE_SPILL_LOAD;
				else
				{
					wjoin_spill_join_end(state);
					state->phase = WJ_PHASE_ORPHANS;
					state->after_orphans = WJ_PHASE_NEXT_WINDOW;
				}
				break;

			case WJ_PHASE_SPILL_LOAD:
				wjoin_spill_load_chunk(state);
				state->phase = WJ_PHASE_PROBE;
				break;

			case WJ_PHASE_SPILL_OUTER_REST:
				for (;;)
				{
					WjRow	   *orow;

					CHECK_FOR_INTERRUPTS();
					orow = wjoin_spill_next_outer(state);
					if (orow == NULL)
						break;
					if (state->omatched[state->oord / 8] & (1 << (state->oord % 8)))
						continue;
					fill_from_row(state, &state->outer, orow);
					fill_nulls(state, &state->inner);
					result = emit(state);
					if (result)
						return result;
				}
				state->phase = WJ_PHASE_SPILL_BATCH;
				break;

			case WJ_PHASE_PROBE:
				for (;;)
				{
					WjRow	   *orow;
					bool		emit_outer;

					if (state->outer_cur == NULL && state->spill_join &&
						!state->probe_started)
						state->outer_cur = wjoin_spill_next_outer(state);
					orow = state->outer_cur;
					if (orow == NULL)
						break;

					if (!state->probe_started)
					{
						state->probe_started = true;
						state->probe_matched = false;
						state->chain_cur = NULL;
						if (!orow->hashnull)
						{
							WjChain    *chain = wjchain_lookup(state->chains, orow->hash);

							if (chain)
								state->chain_cur = chain->head;
						}

						/*
						 * The outer row goes into the scan tuple only when
						 * it is needed: most rows of a window have no inner
						 * row of their key hash in it.
						 */
						state->outer_filled = false;
					}

					while (state->chain_cur != NULL)
					{
						WjRow	   *irow = state->chain_cur;

						CHECK_FOR_INTERRUPTS();
						state->chain_cur = irow->chain_next;
						if (irow->hash != orow->hash)
							continue;
						if (!state->outer_filled)
						{
							fill_from_row(state, &state->outer, orow);
							state->outer_filled = true;
						}
						fill_from_row(state, &state->inner, irow);
						ResetExprContext(econtext);
						econtext->ecxt_scantuple = node->ss.ss_ScanTupleSlot;
						if (!ExecQual(state->joinqual, econtext))
						{
							InstrCountFiltered2(node, 1);
							continue;
						}
						state->probe_matched = true;
						irow->matched_window = state->window_seq;
						if (jointype == JOIN_SEMI || jointype == JOIN_ANTI)
						{
							state->chain_cur = NULL;
							break;
						}
						result = emit(state);
						if (result)
							return result;
					}

					/* done with this outer row in this window (or chunk) */
					state->outer_cur = state->spill_join ? NULL : orow->next;
					state->probe_started = false;
					if (state->multi_chunk)
					{
						/*
						 * Chunked batch: whether the row matched in any chunk
						 * is known after the last one (SPILL_OUTER_REST); a
						 * semijoin emits it at its first match.
						 */
						bits8		bit = 1 << (state->oord % 8);
						bool		was = (state->omatched[state->oord / 8] & bit) != 0;

						if (state->probe_matched)
							state->omatched[state->oord / 8] |= bit;
						emit_outer = jointype == JOIN_SEMI && state->probe_matched && !was;
					}
					else if (jointype == JOIN_SEMI)
						emit_outer = state->probe_matched;
					else
						emit_outer = !state->probe_matched && state->outer.preserved;
					if (emit_outer)
					{
						if (!state->outer_filled)
							fill_from_row(state, &state->outer, orow);
						fill_nulls(state, &state->inner);
						result = emit(state);
						if (result)
							return result;
					}
				}
				if (jointype == JOIN_RIGHT || jointype == JOIN_FULL)
				{
					state->inner_cur = state->spill_join ? state->chunk_head :
						state->inner.head;
					state->phase = WJ_PHASE_INNER_UNMATCHED;
				}
				else if (state->spill_join)
					state->phase = wjoin_spill_after_chunk(state);
				else
				{
					state->phase = WJ_PHASE_ORPHANS;
					state->after_orphans = WJ_PHASE_NEXT_WINDOW;
				}
				break;

			case WJ_PHASE_INNER_UNMATCHED:
				while (state->inner_cur != NULL)
				{
					WjRow	   *irow = state->inner_cur;

					CHECK_FOR_INTERRUPTS();
					state->inner_cur = irow->next;
					if (irow->matched_window == state->window_seq)
						continue;
					fill_nulls(state, &state->outer);
					fill_from_row(state, &state->inner, irow);
					result = emit(state);
					if (result)
						return result;
				}
				if (state->spill_join)
					state->phase = wjoin_spill_after_chunk(state);
				else
				{
					state->phase = WJ_PHASE_ORPHANS;
					state->after_orphans = WJ_PHASE_NEXT_WINDOW;
				}
				break;

			case WJ_PHASE_ORPHANS:
				{
					WjSide	   *side = state->outer.have_orphans ? &state->outer :
					state->inner.have_orphans ? &state->inner : NULL;
					WjSide	   *other;

					if (side == NULL)
					{
						state->phase = state->after_orphans;
						break;
					}
					other = side == &state->outer ? &state->inner : &state->outer;
					if (!tuplestore_gettupleslot(side->orphans, true, false,
												 side->orphan_slot))
					{
						/* all emitted: start over (drops any file) */
						tuplestore_clear(side->orphans);
						side->have_orphans = false;
						break;
					}
					fill_nulls(state, other);
					wjoin_fill_from_slot(state, side, side->orphan_slot);
					result = emit(state);
					if (result)
						return result;
				}
				break;

			case WJ_PHASE_DONE:
				/* key-partitioned: on to the next unclaimed partition */
				if (state->kp.parts > 0 && !state->kp.finished &&
					window_join_next_partition(state))
					break;
				return NULL;
		}
	}
}

/*
 * window_join_end
 *		EndCustomScan: shut down the children and free the state.
 */
static void
window_join_end(CustomScanState *node)
{
	WindowJoinState *state = (WindowJoinState *) node;

	ExecEndNode(state->outer.ps);
	ExecEndNode(state->inner.ps);
	wjoin_spill_join_end(state);
	wjoin_close_queue_files(state);
	if (state->outer.orphans)
		tuplestore_end(state->outer.orphans);
	if (state->inner.orphans)
		tuplestore_end(state->inner.orphans);
	if (state->outer.buckets)
		wjoin_buckets_end(state->outer.buckets);
	if (state->inner.buckets)
		wjoin_buckets_end(state->inner.buckets);
	MemoryContextDelete(state->bufcxt);
	MemoryContextDelete(state->wincxt);
	MemoryContextDelete(state->rowcxt);
	wjchain_destroy(state->chains);
}

/*
 * reset_side
 *		Forget a side's lookahead and order check.
 */
static void
reset_side(WjSide *side)
{
	side->peek_valid = false;
	side->peek_tuple = NULL;
	side->exhausted = false;
	side->have_prev = false;
	if (side->orphans)
		tuplestore_clear(side->orphans);
	side->have_orphans = false;
	if (side->buckets)
		wjoin_buckets_reset(side->buckets);
	side->buckets_loaded = false;
}

/*
 * window_join_rescan
 *		ReScanCustomScan: start over, and with key partitioning claim
 *		partitions anew.
 */
static void
window_join_rescan(CustomScanState *node)
{
	WindowJoinState *state = (WindowJoinState *) node;

	wj_keypart_restart(&state->kp);
	state->leader.asked = false;
	window_join_restart(node);
}

/*
 * window_join_restart
 *		Restart both inputs and drop the state (the peak figures are kept for
 *		EXPLAIN ANALYZE).  With key partitioning, the children whose filter
 *		changed (chgParam) rescan themselves on their next fetch.
 */
static void
window_join_restart(CustomScanState *node)
{
	WindowJoinState *state = (WindowJoinState *) node;

	wj_rescan_child(node, state->outer.ps);
	wj_rescan_child(node, state->inner.ps);
	wjoin_spill_join_end(state);
	clear_state(state);
	reset_side(&state->outer);
	reset_side(&state->inner);
	wj_state_reset(&state->stats, true);
	state->phase = WJ_PHASE_START;
	state->window_seq = 0;
	state->have_last_end = false;
	state->outer_cur = NULL;
	state->inner_cur = NULL;
	state->chain_cur = NULL;
}

/*
 * window_join_estimate_dsm, window_join_initialize_dsm, window_join_reinitialize_dsm,
 * window_join_initialize_worker, window_join_shutdown
 *		The parallel-aware plan of a partial path, under a Gather: the
 *		counter from which key-partitioned execution claims partitions, and
 *		each worker's peak state and rows for EXPLAIN ANALYZE (state_stats.h).
 *		Nothing else is shared: every participant joins its share of the
 *		outer rows, or its partitions, on its own.
 */
#define WJ_DSM_COUNTER_SIZE		MAXALIGN(sizeof(pg_atomic_uint32))

static Size
window_join_estimate_dsm(CustomScanState *node, ParallelContext *pcxt)
{
	return add_size(WJ_DSM_COUNTER_SIZE, wj_instr_estimate(pcxt));
}

static void
window_join_initialize_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	WindowJoinState *state = (WindowJoinState *) node;

	wj_keypart_init_dsm(&state->kp, coordinate, &node->ss.ps, pcxt);
	state->leader.pcxt = pcxt;
	wj_instr_init_dsm(&state->pinstr, pcxt,
					  (char *) coordinate + WJ_DSM_COUNTER_SIZE);
}

static void
window_join_reinitialize_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	WindowJoinState *state = (WindowJoinState *) node;

	pg_atomic_write_u32(state->kp.counter, 0);
}

static void
window_join_initialize_worker(CustomScanState *node, shm_toc *toc, void *coordinate)
{
	WindowJoinState *state = (WindowJoinState *) node;

	state->kp.counter = (pg_atomic_uint32 *) coordinate;
	wj_instr_init_worker(&state->pinstr,
						 (char *) coordinate + WJ_DSM_COUNTER_SIZE);
}

static void
window_join_shutdown(CustomScanState *node)
{
	WindowJoinState *state = (WindowJoinState *) node;

	wj_instr_shutdown(&state->pinstr, &node->ss.ps, &state->stats);
	state->leader.pcxt = NULL;
}

/*
 * window_join_next_partition
 *		Key-partitioned execution: claim the next partition and restart the
 *		join on it; false when every partition has been claimed.
 */
static bool
window_join_next_partition(WindowJoinState *state)
{
	if (!wj_keypart_next(&state->kp, state->css.ss.ps.state,
						 state->outer.ps, state->inner.ps))
		return false;
	window_join_restart(&state->css);
	return true;
}

/*
 * wj_window_join_register
 *		Make the CustomScan methods known (so plans can be copied/read).
 */
void
wj_window_join_register(void)
{
	RegisterCustomScanMethods(&wj_window_join_scan_methods);
}
