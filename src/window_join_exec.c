/*-------------------------------------------------------------------------
 *
 * window_join_exec.c
 *	  Executor half of the WindowJoin custom scan: join two windowed inputs
 *	  one window at a time, keeping only the rows of windows still open.
 *
 * INTERFACE ROUTINES
 *		wj_window_join_scan_methods		CustomScan methods (window_join.h)
 *
 * ALGORITHM
 *
 * Both inputs arrive sorted (PostgreSQL's Sort or a presorted path, see
 * window_join_planner.c).  Each side has a one-row lookahead ("peek") and a
 * FIFO buffer of the rows of the windows that are still open.  The inner
 * side's buffered rows are also chained by the hash of their equality keys
 * in a simplehash table, so a window's join is a hash join over the rows of
 * that window only.  Rows are copied into the buffer once, whatever the
 * number of windows they belong to.
 *
 * GROUP mode (TUMBLE inputs, windowed subqueries): a row is in exactly one
 * window, identified by the values of the equated window columns; inputs
 * are sorted by them.  For each window: drop the whole state, take the
 * smallest window value of the two lookaheads, read every row of that
 * window from both sides, join.
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
 * (which include the key equalities), and matches are emitted.  Outer rows
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
 * src/window_join_exec.c
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

#include "exec_common.h"
#include "join_common.h"
#include "state_stats.h"
#include "window_arith.h"
#include "window_join.h"
#include "windowjoin.h"

/* A buffered input row; the MinimalTuple follows the header */
typedef struct WjRow
{
	struct WjRow *next;			/* FIFO order of its side */
	struct WjRow *chain_next;	/* inner: next row with the same key hash */
	int64		first_end;		/* TIME: end of its first window */
	int64		last_end;		/* TIME: end of its last window */
	int64		matched_window; /* inner: last window it matched in */
	Size		size;			/* bytes, for the state accounting */
	uint32		hash;			/* hash of the equality keys */
	bool		hashnull;		/* some key is NULL: never matches */
} WjRow;

#define WJ_ROW_HEADER	MAXALIGN(sizeof(WjRow))
#define WJ_ROW_TUPLE(row)	((MinimalTuple) ((char *) (row) + WJ_ROW_HEADER))

/* The inner hash chains: key hash -> rows of the open windows */
typedef struct WjChain
{
	uint32		hash;
	char		status;
	WjRow	   *head;
	WjRow	   *tail;
} WjChain;

#define SH_PREFIX		wjchain
#define SH_ELEMENT_TYPE	WjChain
#define SH_KEY_TYPE		uint32
#define SH_KEY			hash
#define SH_HASH_KEY(tb, key)	murmurhash32(key)
#define SH_EQUAL(tb, a, b)		((a) == (b))
#define SH_SCOPE		static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

#define WJ_MAX_WINDOW_KEYS 4

/* One input */
typedef struct WjSide
{
	PlanState  *ps;				/* child plan */
	TupleDesc	desc;			/* its result type */
	int			first_col;		/* its columns' offset in the scan tuple */
	int			ncols;
	bool		is_inner;
	bool		preserved;		/* emit rows without a match */

	int			nwin;			/* GROUP: window values; TIME: 1 (time) */
	ExprState  *win_state[WJ_MAX_WINDOW_KEYS];
	int			nkeys;
	ExprState **key_state;
	FmgrInfo   *hashfn;

	int			first_extra;	/* TIME: window columns we supply */
	int			nextras;
	bool	   *extra_is_expr;
	ExprState **extra_state;
	Datum	   *extra_values;	/* this window's values */
	bool	   *extra_nulls;

	/* lookahead */
	TupleTableSlot *peek;
	bool		peek_valid;
	bool		exhausted;
	int64		peek_first_end;
	int64		peek_last_end;
	int64		peek_win[WJ_MAX_WINDOW_KEYS];
	uint32		peek_hash;
	bool		peek_hashnull;
	bool		have_prev;		/* sort order check */
	int64		prev_win[WJ_MAX_WINDOW_KEYS];

	/* rows of the open windows, in input order */
	WjRow	   *head;
	WjRow	   *tail;

	/* GROUP: rows of this side without a window value, to emit */
	WjRow	   *orphans;
	WjRow	   *orphans_tail;
} WjSide;

typedef enum WjPhase
{
	WJ_PHASE_START,
	WJ_PHASE_NEXT_WINDOW,
	WJ_PHASE_PROBE,
	WJ_PHASE_INNER_UNMATCHED,
	WJ_PHASE_ORPHANS,
	WJ_PHASE_DONE
} WjPhase;

typedef struct WjScanState
{
	CustomScanState css;

	JoinType	jointype;
	WjMode		mode;
	WjWindowKind kind;
	int64		every;			/* TIME: slide or step */
	int64		size;
	int64		offset;
	Oid		   *key_coll;

	WjSide		outer;
	WjSide		inner;
	ExprState  *joinqual;

	MemoryContext bufcxt;		/* buffered rows */
	MemoryContext wincxt;		/* per-window values */
	wjchain_hash *chains;
	WjStateStats stats;
	WjParallelInstr pinstr;	/* per-worker figures under a Gather */

	WjKeyPart	kp;				/* key-partitioned execution (join_common.h) */

	WjPhase		phase;
	WjPhase		after_orphans;
	int64		window_seq;		/* windows processed so far */
	bool		have_last_end;
	int64		last_end;		/* TIME: end of the last window processed */

	/* PROBE position */
	WjRow	   *outer_cur;
	bool		probe_started;
	bool		probe_matched;
	WjRow	   *chain_cur;
	/* INNER_UNMATCHED position */
	WjRow	   *inner_cur;
} WjScanState;

static Node *window_join_create_state(CustomScan *cscan);
static void window_join_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *window_join_exec(CustomScanState *node);
static void window_join_end(CustomScanState *node);
static void window_join_rescan(CustomScanState *node);
static void window_join_explain(CustomScanState *node, List *ancestors, ExplainState *es);
static Size window_join_estimate_dsm(CustomScanState *node,
									 ParallelContext *pcxt);
static void window_join_init_dsm(CustomScanState *node, ParallelContext *pcxt,
								 void *coordinate);
static void window_join_reinit_dsm(CustomScanState *node,
								   ParallelContext *pcxt, void *coordinate);
static void window_join_init_worker(CustomScanState *node, shm_toc *toc,
									void *coordinate);
static void window_join_shutdown(CustomScanState *node);
static void window_join_restart(CustomScanState *node);
static bool window_join_next_partition(WjScanState *state);

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
	.ExplainCustomScan = window_join_explain,
	.EstimateDSMCustomScan = window_join_estimate_dsm,
	.InitializeDSMCustomScan = window_join_init_dsm,
	.ReInitializeDSMCustomScan = window_join_reinit_dsm,
	.InitializeWorkerCustomScan = window_join_init_worker,
	.ShutdownCustomScan = window_join_shutdown,
};

/*
 * window_join_create_state
 *		Allocate the scan state.
 */
static Node *
window_join_create_state(CustomScan *cscan)
{
	WjScanState *state = (WjScanState *) newNode(sizeof(WjScanState),
												 T_CustomScanState);

	state->css.methods = &wj_exec_methods;
	return (Node *) state;
}

/*
 * init_side
 *		Set up one input from the plan.
 */
static void
init_side(WjScanState *state, WjSide *side, Plan *plan, EState *estate,
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
	WjScanState *state = (WjScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	List	   *priv = cscan->custom_private;
	List	   *exprs = cscan->custom_exprs;
	int			outer_ncols = intVal(list_nth(priv, WJ_PRIV_OUTER_NCOLS));
	int			inner_ncols = intVal(list_nth(priv, WJ_PRIV_INNER_NCOLS));
	List	   *outer_is_expr = list_nth(priv, WJ_PRIV_OUTER_EXTRA_EXPR);
	List	   *inner_is_expr = list_nth(priv, WJ_PRIV_INNER_EXTRA_EXPR);
	Const	   *c_every = list_nth(priv, WJ_PRIV_EVERY);
	Const	   *c_size = list_nth(priv, WJ_PRIV_SIZE);
	Const	   *c_offset = list_nth(priv, WJ_PRIV_OFFSET);
	List	   *coll = list_nth(priv, WJ_PRIV_KEY_COLL);
	ListCell   *lc;
	int			i;

	/* no backward scans or mark/restore */
	Assert(!(eflags & (EXEC_FLAG_BACKWARD | EXEC_FLAG_MARK)));

	state->jointype = (JoinType) intVal(list_nth(priv, WJ_PRIV_JOINTYPE));
	if (list_length(priv) > WJ_PRIV_NITEMS)
	{
		state->kp.param = intVal(list_nth(priv, WJ_PRIV_KP_PARAM));
		state->kp.parts = intVal(list_nth(priv, WJ_PRIV_KP_PARTS));
	}
	state->kp.bucket = -1;
	state->mode = (WjMode) intVal(list_nth(priv, WJ_PRIV_MODE));
	state->kind = (WjWindowKind) intVal(list_nth(priv, WJ_PRIV_KIND));
	if (state->mode == WJ_MODE_TIME)
	{
		state->every = wj_interval_duration(DatumGetIntervalP(c_every->constvalue), "slide");
		state->size = wj_interval_duration(DatumGetIntervalP(c_size->constvalue), "size");
		state->offset = wj_interval_offset(DatumGetIntervalP(c_offset->constvalue));
	}

	state->key_coll = palloc0(sizeof(Oid) * Max(list_length(coll), 1));
	i = 0;
	foreach(lc, coll)
		state->key_coll[i++] = lfirst_oid(lc);

	init_side(state, &state->outer, linitial(cscan->custom_plans), estate,
			  eflags, 0, outer_ncols,
			  list_nth(exprs, WJ_EXPR_OUTER_KEYS),
			  list_nth(exprs, WJ_EXPR_OUTER_WINDOW),
			  list_nth(exprs, WJ_EXPR_OUTER_EXTRAS), outer_is_expr,
			  outer_ncols + inner_ncols,
			  list_nth(priv, WJ_PRIV_OUTER_HASHFN));
	init_side(state, &state->inner, lsecond(cscan->custom_plans), estate,
			  eflags, outer_ncols, inner_ncols,
			  list_nth(exprs, WJ_EXPR_INNER_KEYS),
			  list_nth(exprs, WJ_EXPR_INNER_WINDOW),
			  list_nth(exprs, WJ_EXPR_INNER_EXTRAS), inner_is_expr,
			  outer_ncols + inner_ncols + list_length(outer_is_expr),
			  list_nth(priv, WJ_PRIV_INNER_HASHFN));
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
	state->phase = WJ_PHASE_START;
}

/*
 * scan_open / scan_close
 *		Bracket writes into the scan tuple's arrays, which stay allocated
 *		while the virtual slot is cleared.
 */
static inline TupleTableSlot *
scan_open(WjScanState *state)
{
	TupleTableSlot *scan = state->css.ss.ss_ScanTupleSlot;

	if (!TTS_EMPTY(scan))
		ExecClearTuple(scan);
	return scan;
}

static inline void
scan_close(TupleTableSlot *scan)
{
	ExecStoreVirtualTuple(scan);
}

/*
 * fill_from_slot
 *		Copy a child's current tuple into its side's part of the scan tuple.
 */
static void
fill_from_slot(WjScanState *state, WjSide *side, TupleTableSlot *slot)
{
	TupleTableSlot *scan = scan_open(state);

	slot_getallattrs(slot);
	memcpy(scan->tts_values + side->first_col, slot->tts_values,
		   sizeof(Datum) * side->ncols);
	memcpy(scan->tts_isnull + side->first_col, slot->tts_isnull,
		   sizeof(bool) * side->ncols);
	scan_close(scan);
}

/*
 * fill_from_row
 *		Put a buffered row, and its side's window columns, into the scan
 *		tuple.
 */
static void
fill_from_row(WjScanState *state, WjSide *side, WjRow *row)
{
	TupleTableSlot *scan = scan_open(state);
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
	scan_close(scan);
}

/*
 * fill_nulls
 *		Null-extend one side of the scan tuple.
 */
static void
fill_nulls(WjScanState *state, WjSide *side)
{
	TupleTableSlot *scan = scan_open(state);
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
	scan_close(scan);
}

/*
 * emit
 *		Apply the pushed-down quals to the scan tuple and project it.
 *		Returns NULL when the quals reject it.
 */
static TupleTableSlot *
emit(WjScanState *state)
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
 * store_row
 *		Copy a child's current tuple into the state memory.
 */
static WjRow *
store_row(WjScanState *state, TupleTableSlot *slot)
{
	ExprContext *econtext = state->css.ss.ps.ps_ExprContext;
	MemoryContext oldcxt;
	MinimalTuple mtup;
	bool		should_free;
	WjRow	   *row;
	Size		size;

	oldcxt = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
	mtup = ExecFetchSlotMinimalTuple(slot, &should_free);
	MemoryContextSwitchTo(oldcxt);

	size = WJ_ROW_HEADER + mtup->t_len;
	row = (WjRow *) MemoryContextAlloc(state->bufcxt, size);
	memset(row, 0, sizeof(WjRow));
	memcpy(WJ_ROW_TUPLE(row), mtup, mtup->t_len);
	row->size = size;
	if (should_free)
		pfree(mtup);
	wj_state_add(&state->stats, (int64) size);
	return row;
}

/*
 * fetch_next
 *		Advance a side's lookahead to its next row that belongs to some
 *		window, computing its window(s) and key hash.  Rows that are in no
 *		window are skipped, or (GROUP mode, preserved side) kept aside to be
 *		emitted null-extended.
 */
static void
fetch_next(WjScanState *state, WjSide *side)
{
	ExprContext *econtext = state->css.ss.ps.ps_ExprContext;

	side->peek_valid = false;
	if (side->exhausted)
		return;

	for (;;)
	{
		TupleTableSlot *slot;
		bool		isnull;
		bool		nowindow = false;
		int			i;

		CHECK_FOR_INTERRUPTS();

		slot = ExecProcNode(side->ps);
		if (TupIsNull(slot))
		{
			side->exhausted = true;
			return;
		}

		ResetExprContext(econtext);
		fill_from_slot(state, side, slot);
		econtext->ecxt_scantuple = state->css.ss.ss_ScanTupleSlot;

		if (state->mode == WJ_MODE_TIME)
		{
			Datum		d = ExecEvalExpr(side->win_state[0], econtext, &isnull);
			int64		t;
			int64		count;

			if (isnull)
				continue;		/* a NULL time has no windows */
			t = DatumGetInt64(d);
			wj_check_finite(t);
			if (state->kind == WJ_KIND_HOP)
			{
				int64		first_start = 0;

				count = wj_hop_windows(t, state->every, state->size,
									   state->offset, &first_start);
				if (count == 0)
					continue;	/* in a gap between windows */
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
		}
		else
		{
			for (i = 0; i < side->nwin; i++)
			{
				Datum		d = ExecEvalExpr(side->win_state[i], econtext, &isnull);

				if (isnull)
				{
					nowindow = true;
					break;
				}
				side->peek_win[i] = DatumGetInt64(d);
			}
			if (nowindow)
			{
				if (side->preserved)
				{
					WjRow	   *row = store_row(state, slot);

					if (side->orphans_tail)
						side->orphans_tail->next = row;
					else
						side->orphans = row;
					side->orphans_tail = row;
				}
				continue;
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
		}

		/* hash of the equality keys; a NULL key never matches */
		side->peek_hash = 0;
		side->peek_hashnull = false;
		for (i = 0; i < side->nkeys; i++)
		{
			Datum		d = ExecEvalExpr(side->key_state[i], econtext, &isnull);
			uint32		h;

			if (isnull)
			{
				side->peek_hashnull = true;
				break;
			}
			h = DatumGetUInt32(FunctionCall1Coll(&side->hashfn[i],
												 state->key_coll[i], d));
			side->peek_hash = ((side->peek_hash << 1) | (side->peek_hash >> 31)) ^ h;
		}

		side->peek = slot;
		side->peek_valid = true;
		return;
	}
}

/*
 * take_peek
 *		Move a side's lookahead row into the state and fetch the next one.
 */
static void
take_peek(WjScanState *state, WjSide *side)
{
	WjRow	   *row = store_row(state, side->peek);

	row->first_end = side->peek_first_end;
	row->last_end = side->peek_last_end;
	row->hash = side->peek_hash;
	row->hashnull = side->peek_hashnull;

	if (side->tail)
		side->tail->next = row;
	else
		side->head = row;
	side->tail = row;

	if (side->is_inner && !row->hashnull)
	{
		bool		found;
		WjChain    *chain = wjchain_insert(state->chains, row->hash, &found);

		if (found)
			chain->tail->chain_next = row;
		else
			chain->head = row;
		chain->tail = row;
	}

	fetch_next(state, side);
}

/*
 * evict_head
 *		TIME mode: drop the oldest row of a side, whose windows are all
 *		closed.  It is also the oldest of its hash chain.
 */
static void
evict_head(WjScanState *state, WjSide *side)
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
 * clear_state
 *		Drop every buffered row at once.
 */
static void
clear_state(WjScanState *state)
{
	MemoryContextReset(state->bufcxt);
	wjchain_reset(state->chains);
	state->outer.head = state->outer.tail = NULL;
	state->inner.head = state->inner.tail = NULL;
	state->outer.orphans = state->outer.orphans_tail = NULL;
	state->inner.orphans = state->inner.orphans_tail = NULL;
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
set_extras(WjScanState *state, WjSide *side, int64 start, int64 end)
{
	ExprContext *econtext = state->css.ss.ps.ps_ExprContext;
	TupleTableSlot *scan;
	TupleDesc	scandesc;
	Datum		value;
	int			i;

	if (side->nextras == 0)
		return;
	value = Int64GetDatum(state->kind == WJ_KIND_HOP ? start : end);
	scan = scan_open(state);
	for (i = 0; i < side->nextras; i++)
	{
		side->extra_values[i] = side->extra_is_expr[i] ? (Datum) 0 : value;
		side->extra_nulls[i] = side->extra_is_expr[i];
		scan->tts_values[side->first_extra + i] = side->extra_values[i];
		scan->tts_isnull[side->first_extra + i] = side->extra_nulls[i];
	}
	scan_close(scan);

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
next_window(WjScanState *state)
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
		for (s = 0; s < 2; s++)
		{
			while (sides[s]->peek_valid &&
				   compare_windows(sides[s]->peek_win, win, nwin) == 0)
				take_peek(state, sides[s]);
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
			if (state->have_last_end && sides[s]->tail &&
				sides[s]->tail->last_end > state->last_end)
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
		{
			while (sides[s]->head && sides[s]->head->last_end < end)
				evict_head(state, sides[s]);
		}
		for (s = 0; s < 2; s++)
		{
			while (sides[s]->peek_valid && sides[s]->peek_first_end <= end)
				take_peek(state, sides[s]);
		}
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
	WjScanState *state = (WjScanState *) node;
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
				fetch_next(state, &state->outer);

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
				fetch_next(state, &state->inner);
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
				state->outer_cur = state->outer.head;
				state->probe_started = false;
				state->phase = WJ_PHASE_PROBE;
				break;

			case WJ_PHASE_PROBE:
				while (state->outer_cur != NULL)
				{
					WjRow	   *orow = state->outer_cur;
					bool		emit_outer;

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
						fill_from_row(state, &state->outer, orow);
					}

					while (state->chain_cur != NULL)
					{
						WjRow	   *irow = state->chain_cur;

						CHECK_FOR_INTERRUPTS();
						state->chain_cur = irow->chain_next;
						if (irow->hash != orow->hash)
							continue;
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

					/* done with this outer row in this window */
					state->outer_cur = orow->next;
					state->probe_started = false;
					if (jointype == JOIN_SEMI)
						emit_outer = state->probe_matched;
					else
						emit_outer = !state->probe_matched && state->outer.preserved;
					if (emit_outer)
					{
						fill_nulls(state, &state->inner);
						result = emit(state);
						if (result)
							return result;
					}
				}
				if (jointype == JOIN_RIGHT || jointype == JOIN_FULL)
				{
					state->inner_cur = state->inner.head;
					state->phase = WJ_PHASE_INNER_UNMATCHED;
				}
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
				state->phase = WJ_PHASE_ORPHANS;
				state->after_orphans = WJ_PHASE_NEXT_WINDOW;
				break;

			case WJ_PHASE_ORPHANS:
				{
					WjSide	   *side = state->outer.orphans ? &state->outer :
					state->inner.orphans ? &state->inner : NULL;
					WjSide	   *other;
					WjRow	   *row;

					if (side == NULL)
					{
						state->phase = state->after_orphans;
						break;
					}
					other = side == &state->outer ? &state->inner : &state->outer;
					row = side->orphans;
					side->orphans = row->next;
					if (side->orphans == NULL)
						side->orphans_tail = NULL;
					/* freed with the state when the next window starts */
					fill_nulls(state, other);
					fill_from_row(state, side, row);
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
	WjScanState *state = (WjScanState *) node;

	ExecEndNode(state->outer.ps);
	ExecEndNode(state->inner.ps);
	MemoryContextDelete(state->bufcxt);
	MemoryContextDelete(state->wincxt);
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
	side->exhausted = false;
	side->have_prev = false;
}

/*
 * window_join_rescan
 *		ReScanCustomScan: start over, and with key partitioning claim
 *		partitions anew.
 */
static void
window_join_rescan(CustomScanState *node)
{
	WjScanState *state = (WjScanState *) node;

	state->kp.bucket = -1;
	state->kp.finished = false;
	state->kp.local = 0;
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
	WjScanState *state = (WjScanState *) node;

	wj_rescan_child(node, state->outer.ps);
	wj_rescan_child(node, state->inner.ps);
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
 * window_join_explain
 *		ExplainCustomScan: the window, join type, keys, conditions and (with
 *		ANALYZE) the peak state.
 */
static void
window_join_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	WjScanState *state = (WjScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	List	   *priv = cscan->custom_private;
	List	   *exprs = cscan->custom_exprs;
	Const	   *c_every = list_nth(priv, WJ_PRIV_EVERY);
	Const	   *c_size = list_nth(priv, WJ_PRIV_SIZE);
	Const	   *c_offset = list_nth(priv, WJ_PRIV_OFFSET);
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
	wj_explain_exprs("Hash Cond", list_nth(exprs, WJ_EXPR_SHOW_KEYS), context, es);
	wj_explain_exprs("Join Filter", list_nth(exprs, WJ_EXPR_SHOW_FILTER), context, es);
	wj_explain_state(&state->stats, es);
	if (list_length(priv) > WJ_PRIV_NITEMS)
		ExplainPropertyInteger("Key Partitions", NULL,
							   intVal(list_nth(priv, WJ_PRIV_KP_PARTS)), es);
	wj_explain_workers(&state->pinstr, &node->ss.ps, &state->stats, es);
}

/*
 * window_join_estimate_dsm, window_join_init_dsm, window_join_reinit_dsm,
 * window_join_init_worker, window_join_shutdown
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
window_join_init_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	WjScanState *state = (WjScanState *) node;

	state->kp.counter = (pg_atomic_uint32 *) coordinate;
	pg_atomic_init_u32(state->kp.counter, 0);
	wj_instr_init_dsm(&state->pinstr, pcxt,
					  (char *) coordinate + WJ_DSM_COUNTER_SIZE);
}

static void
window_join_reinit_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	WjScanState *state = (WjScanState *) node;

	pg_atomic_write_u32(state->kp.counter, 0);
}

static void
window_join_init_worker(CustomScanState *node, shm_toc *toc, void *coordinate)
{
	WjScanState *state = (WjScanState *) node;

	state->kp.counter = (pg_atomic_uint32 *) coordinate;
	wj_instr_init_worker(&state->pinstr,
						 (char *) coordinate + WJ_DSM_COUNTER_SIZE);
}

static void
window_join_shutdown(CustomScanState *node)
{
	WjScanState *state = (WjScanState *) node;

	wj_instr_shutdown(&state->pinstr, &node->ss.ps, &state->stats);
}

/*
 * window_join_next_partition
 *		Key-partitioned execution: claim the next partition and restart the
 *		join on it; false when every partition has been claimed.
 */
static bool
window_join_next_partition(WjScanState *state)
{
	if (!wj_keypart_next(&state->kp, state->css.ss.ps.state,
						 state->outer.ps, state->inner.ps))
		return false;
	window_join_restart(&state->css);
	return true;
}
