/*-------------------------------------------------------------------------
 *
 * window_join_input.c
 *	  WindowJoin's intake: each side's one-row lookahead, its window(s) and
 *	  key hash, and the move of that row into the state of open windows.
 *
 * INTERFACE ROUTINES (window_join_internal.h)
 *		wjoin_fetch_next		advance a side's lookahead to its next row
 *		wjoin_take_peek			move the lookahead row into the state
 *		wjoin_fill_from_slot	a child's row into its side of the scan tuple
 *
 * A side's rows come from its child, in order (a Sort or a presorted
 * path), or, for an unsorted TUMBLE input, from its buckets
 * (window_join_buckets.c): the child is then read whole at the first
 * fetch (load_buckets), each row put into the bucket of its window with
 * the hash of its join keys, and the rows come back a window at a time.
 *
 * For each row the lookahead computes what the join needs before it takes
 * the row (window_join_exec.c decides which side to take from and when a
 * window closes):
 *
 *	- TIME mode (HOP, CUMULATE): the ends of the row's first and last
 *	  windows from its time; a row with a NULL time or in a gap between
 *	  hop windows is in no window and skipped;
 *	- GROUP mode (TUMBLE, windowed subqueries): the row's window values;
 *	  a row with a NULL one belongs to no window and, on a preserved side,
 *	  waits in a tuplestore to be emitted null-extended;
 *	- the hash of its equality keys (a NULL key never matches), computed
 *	  once per row: a row from the buckets carries the one computed when
 *	  it was put there, and is taken without being deformed (buckets that
 *	  went into a sort past work_mem compute it again as they are read).
 *
 * Both inputs must be in window order; a row out of order is a can't-happen
 * error (the planner put the sort there).  Taking the lookahead copies it
 * once into the state's memory (or, spilled, into the side's file) and
 * spills the state when it would exceed its budget (window_join_spill.c).
 *
 * src/nodes/window_join/window_join_input.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

#include "src/common/state_stats.h"
#include "src/common/window_arith.h"
#include "src/nodes/window_join/window_join.h"
#include "src/nodes/window_join/window_join_internal.h"

/*
 * wjoin_fill_from_slot
 *		Copy a child's current tuple into its side's part of the scan tuple.
 */
void
wjoin_fill_from_slot(WindowJoinState *state, WjSide *side,
					 TupleTableSlot *slot)
{
	TupleTableSlot *scan = wjoin_scan_open(state);

	slot_getallattrs(slot);
	memcpy(scan->tts_values + side->first_col, slot->tts_values,
		   sizeof(Datum) * side->ncols);
	memcpy(scan->tts_isnull + side->first_col, slot->tts_isnull,
		   sizeof(bool) * side->ncols);
	wjoin_scan_close(scan);
}

/*
 * make_row
 *		Copy a side's lookahead row -- a row of its buckets, or else its
 *		child's current tuple -- into a WjRow: in the state's memory, counted
 *		in its figures, or, once the state has spilled, in rowcxt (one row
 *		at a time, on its way to the side's file).
 */
static WjRow *
make_row(WindowJoinState *state, WjSide *side)
{
	MinimalTuple mtup = side->peek_tuple;
	bool		should_free = false;
	MemoryContext cxt = state->spilled ? state->rowcxt : state->bufcxt;
	WjRow	   *row;
	Size		size;

	if (mtup == NULL)
	{
		ExprContext *econtext = state->css.ss.ps.ps_ExprContext;
		MemoryContext oldcxt = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);

		mtup = ExecFetchSlotMinimalTuple(side->peek, &should_free);
		MemoryContextSwitchTo(oldcxt);
	}
	if (state->spilled)
		MemoryContextReset(state->rowcxt);
	size = WJ_ROW_HEADER + mtup->t_len;
	row = (WjRow *) MemoryContextAlloc(cxt, size);
	memset(row, 0, sizeof(WjRow));
	memcpy(WJ_ROW_TUPLE(row), mtup, mtup->t_len);
	row->size = size;
	if (should_free)
		pfree(mtup);
	if (!state->spilled)
		wj_state_add(&state->stats, (int64) size);
	return row;
}

/*
 * key_hash
 *		The hash of the equality keys of the row in the scan tuple (this
 *		side's part of it); *hashnull when a key is NULL: it never matches.
 */
static inline uint32
key_hash(WindowJoinState *state, WjSide *side, ExprContext *econtext,
		 bool *hashnull)
{
	uint32		hash = 0;

	*hashnull = false;
	for (int i = 0; i < side->nkeys; i++)
	{
		bool		isnull;
		Datum		d = ExecEvalExpr(side->key_state[i], econtext, &isnull);
		uint32		h;

		if (isnull)
		{
			*hashnull = true;
			return 0;
		}
		h = DatumGetUInt32(FunctionCall1Coll(&side->hashfn[i],
											 state->key_coll[i], d));
		hash = ((hash << 1) | (hash >> 31)) ^ h;
	}
	return hash;
}

/*
 * load_buckets
 *		Read a side's unsorted input whole into its buckets, by the window
 *		value of each row (window_join_buckets.c), with the hash of its
 *		keys, for wjoin_fetch_next to read in window order.
 */
static void
load_buckets(WindowJoinState *state, WjSide *side)
{
	ExprContext *econtext = state->css.ss.ps.ps_ExprContext;

	for (;;)
	{
		TupleTableSlot *slot;
		MemoryContext oldcxt;
		Datum		d;
		bool		isnull;
		uint32		hash;
		bool		hashnull;

		CHECK_FOR_INTERRUPTS();

		slot = ExecProcNode(side->ps);
		if (TupIsNull(slot))
			break;
		ResetExprContext(econtext);
		wjoin_fill_from_slot(state, side, slot);
		econtext->ecxt_scantuple = state->css.ss.ss_ScanTupleSlot;
		d = ExecEvalExpr(side->win_state[0], econtext, &isnull);
		hash = key_hash(state, side, econtext, &hashnull);
		oldcxt = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
		wjoin_buckets_put(side->buckets, slot,
						  isnull ? 0 : DatumGetInt64(d), isnull,
						  hash, hashnull);
		MemoryContextSwitchTo(oldcxt);
	}
	wjoin_buckets_done(side->buckets);
	side->buckets_loaded = true;
}

/*
 * peek_time_windows
 *		TIME mode (HOP and CUMULATE windows computed from the time): the
 *		first and last window ends of the lookahead row; false when its time
 *		is NULL or falls in no window (in a gap between hop windows).
 */
static inline bool
peek_time_windows(WindowJoinState *state, WjSide *side, ExprContext *econtext)
{
	bool		isnull;
	Datum		d = ExecEvalExpr(side->win_state[0], econtext, &isnull);
	int64		t;
	int64		count;

	if (isnull)
		return false;			/* a NULL time has no windows */
	t = DatumGetInt64(d);
	wj_check_finite(t);
	if (state->kind == WJ_KIND_HOP)
	{
		int64		first_start = 0;

		count = wj_hop_windows(t, state->every, state->size,
							   state->offset, &first_start);
		if (count == 0)
			return false;		/* in a gap between windows */
		(void) wj_timestamp_add(t, state->size);
		side->peek_first_end = wj_timestamp_add(first_start, state->size);
		side->peek_last_end = side->peek_first_end + (count - 1) * state->every;
	}
	else
	{
		int64		start;
		int64		first_end;

		count = wj_cumulate_windows(t, state->every, state->size,
									state->offset, &start, &first_end);
		side->peek_first_end = first_end;
		side->peek_last_end = wj_timestamp_add(start, state->size);
	}
	if (side->have_prev && t < side->prev_win[0])
		elog(ERROR, "window join input is not sorted by time");
	side->prev_win[0] = t;
	side->have_prev = true;
	return true;
}

/*
 * peek_group_windows
 *		GROUP mode (the window columns of the input): the lookahead row's
 *		window values; false when one is NULL, the row then kept aside on a
 *		preserved side to be emitted null-extended.  From the buckets, the
 *		window was computed when the row was put in its bucket.
 */
static inline bool
peek_group_windows(WindowJoinState *state, WjSide *side, ExprContext *econtext,
				   TupleTableSlot *slot, int64 bwin, bool bnull)
{
	bool		nowindow = false;
	int			i;

	if (side->buckets != NULL)
	{
		nowindow = bnull;
		side->peek_win[0] = bwin;
	}
	else
	{
		for (i = 0; i < side->nwin; i++)
		{
			bool		isnull;
			Datum		d = ExecEvalExpr(side->win_state[i], econtext, &isnull);

			if (isnull)
			{
				nowindow = true;
				break;
			}
			side->peek_win[i] = DatumGetInt64(d);
		}
	}
	if (nowindow)
	{
		if (side->preserved)
		{
			MemoryContext oldcxt = MemoryContextSwitchTo(state->nodecxt);

			if (side->orphans == NULL)
				side->orphans =
					tuplestore_begin_heap(false, false,
										  Max(64, (int) (state->mem_limit / 1024 / 32)));
			tuplestore_puttupleslot(side->orphans, slot);
			side->have_orphans = true;
			MemoryContextSwitchTo(oldcxt);
		}
		return false;
	}
	if (side->have_prev)
	{
		for (i = 0; i < side->nwin; i++)
		{
			if (side->peek_win[i] != side->prev_win[i])
				break;
		}
		if (i < side->nwin && side->peek_win[i] < side->prev_win[i])
			elog(ERROR, "window join input is not sorted by window");
	}
	memcpy(side->prev_win, side->peek_win, sizeof(int64) * side->nwin);
	side->have_prev = true;
	return true;
}

/*
 * wjoin_fetch_next
 *		Advance a side's lookahead to its next row that belongs to some
 *		window, computing its window(s) and key hash.  Rows that are in no
 *		window are skipped, or (GROUP mode, preserved side) kept aside to be
 *		emitted null-extended.
 */
void
wjoin_fetch_next(WindowJoinState *state, WjSide *side)
{
	ExprContext *econtext = state->css.ss.ps.ps_ExprContext;

	side->peek_valid = false;
	side->peek_tuple = NULL;
	if (side->exhausted)
		return;
	if (side->buckets != NULL && !side->buckets_loaded)
		load_buckets(state, side);

	/*
	 * A row in the buckets has its window and key hash from when it was
	 * put there: nothing to deform or compute (wjoin_take_peek copies it).
	 */
	if (side->buckets != NULL && !wjoin_buckets_sorted(side->buckets))
	{
		for (;;)
		{
			int64		bwin;
			bool		bnull;
			MinimalTuple tuple;

			CHECK_FOR_INTERRUPTS();

			tuple = wjoin_buckets_next_row(side->buckets, &bwin, &bnull,
										   &side->peek_hash,
										   &side->peek_hashnull);
			if (tuple == NULL)
			{
				side->exhausted = true;
				return;
			}
			if (!peek_group_windows(state, side, econtext,
									bnull ? wjoin_buckets_row_slot(side->buckets, tuple) : NULL,
									bwin, bnull))
				continue;
			side->peek = NULL;
			side->peek_tuple = tuple;
			side->peek_valid = true;
			return;
		}
	}

	for (;;)
	{
		TupleTableSlot *slot;
		int64		bwin = 0;
		bool		bnull = false;

		CHECK_FOR_INTERRUPTS();

		if (side->buckets != NULL)
			slot = wjoin_buckets_next_sorted(side->buckets, &bwin, &bnull);
		else
			slot = ExecProcNode(side->ps);
		if (TupIsNull(slot))
		{
			side->exhausted = true;
			return;
		}

		ResetExprContext(econtext);
		wjoin_fill_from_slot(state, side, slot);
		econtext->ecxt_scantuple = state->css.ss.ss_ScanTupleSlot;
		if (side->buckets != NULL && !bnull)
			wjoin_buckets_restore(side->buckets, bwin,
								  econtext->ecxt_scantuple->tts_values + side->first_col,
								  econtext->ecxt_scantuple->tts_isnull + side->first_col);

		if (state->mode == WJ_MODE_TIME ?
			!peek_time_windows(state, side, econtext) :
			!peek_group_windows(state, side, econtext, slot, bwin, bnull))
			continue;
		side->peek_hash = key_hash(state, side, econtext, &side->peek_hashnull);
		side->peek = slot;
		side->peek_valid = true;
		return;
	}
}

/*
 * wjoin_take_peek
 *		Move a side's lookahead row into the state (memory, or the side's
 *		file once spilled) and fetch the next one.  Spills the state when it
 *		would exceed its budget.
 */
void
wjoin_take_peek(WindowJoinState *state, WjSide *side)
{
	WjRow	   *row = make_row(state, side);

	row->first_end = side->peek_first_end;
	row->last_end = side->peek_last_end;
	row->hash = side->peek_hash;
	row->hashnull = side->peek_hashnull;

	if (state->spilled)
		wjoin_queue_append_file(state, side, row);
	else
	{
		wjoin_side_append(state, side, row);
		if (wjoin_state_memory(state) > state->budget)
			wjoin_spill_state(state);
	}

	wjoin_fetch_next(state, side);
}

