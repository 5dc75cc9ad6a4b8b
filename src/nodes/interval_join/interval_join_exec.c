/*-------------------------------------------------------------------------
 *
 * interval_join_exec.c
 *	  Executor of the IntervalJoin custom scan: a sort-merge band join.
 *
 * Both inputs arrive sorted by (keys, time), NULLs last (the planner put
 * Sort nodes or presorted paths below us).  The join condition has been
 * normalised to
 *
 *		outer.keys = inner.keys  AND  inner.t IN [outer.t + lo, outer.t + hi]
 *
 * with each end inclusive or exclusive, plus optional join quals.  We read
 * the outer input one row at a time.  For the outer rows of one key, the
 * band slides forward monotonically, so the inner rows that can still
 * match form a window of the inner input:
 *
 *	1. when the outer key changes, the window of the previous key is
 *	   dropped, and inner rows with a smaller key are skipped (they can
 *	   match no later outer row);
 *	2. inner rows of the current key are appended to the window while their
 *	   time is not above the band's upper end (outer.t + hi);
 *	3. rows at the front of the window whose time is below the band's lower
 *	   end (outer.t + lo) are dropped - no later outer row can reach them
 *	   (as a streaming interval join clears its state once the watermark
 *	   passes the range);
 *	4. every row left in the window is inside the band: evaluate the join
 *	   quals on the pair and emit it on success.
 *
 * The window is a tuplestore (it spills to disk beyond work_mem) with two
 * read pointers: pointer 0 marks its front, pointer 1 scans it for each
 * outer row; tuplestore_trim releases what pointer 0 has passed.  The
 * front row itself is held in a slot (its time decides whether it leaves
 * the band), pointer 0 just past it.  Beside the tuplestore the node keeps
 * only one "matched" bit per window row (a circular bitmap, used by RIGHT
 * and FULL joins), so a band holding millions of rows of one hot key stays
 * within work_mem plus an eighth of a byte per row.
 *
 * Outer joins: an outer row that matched nothing is emitted with NULLs
 * once, after its candidates (LEFT, FULL); an inner row that never matched
 * is emitted with NULLs once, when it leaves the window or is skipped
 * (RIGHT, FULL).  Semi and anti joins (EXISTS, NOT EXISTS) stop at an
 * outer row's first match, emitting it (SEMI) or not (ANTI, which emits
 * the outer rows that found no match).  Rows with a NULL key or time never match.  The output
 * of inner and left joins follows the outer input's order.
 *
 * A row that breaks the expected order (which would silently lose matches)
 * raises an error instead.
 *
 * src/nodes/interval_join/interval_join_exec.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/nbtree.h"
#include "catalog/pg_type.h"
#include "common/int.h"
#include "datatype/timestamp.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "nodes/execnodes.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/ruleutils.h"
#include "utils/sortsupport.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"

#include "src/common/exec_common.h"
#include "src/common/explain_common.h"
#include "src/common/pg_compat.h"
#include "src/common/state_stats.h"
#include "src/nodes/interval_join/interval_join.h"
#include "src/parallel/keypart.h"

/* Where the state machine of ij_next is */
typedef enum IJPhase
{
	IJ_NEXT_OUTER,				/* fetch the next outer row */
	IJ_FINISH_GROUP,			/* key changed: the old key's unread rows */
	IJ_FLUSH_WINDOW,			/* key changed: empty the window */
	IJ_SKIP_INNER,				/* skip inner rows with a smaller key */
	IJ_DROP_FRONT,				/* drop window rows below the band */
	IJ_FILL,					/* append inner rows up to the band's end */
	IJ_SCAN,					/* pair the outer row with the window */
	IJ_END_WINDOW,				/* outer input done: empty the window */
	IJ_END_INNER,				/* outer input done: rest of the inner input */
	IJ_DONE
} IJPhase;


typedef struct IntervalJoinState
{
	CustomScanState css;

	/* from the plan */
	JoinType	jointype;
	bool		emit_outer;		/* LEFT/FULL/ANTI: unmatched outer rows */
	bool		first_match_only;	/* SEMI/ANTI: one match decides */
	bool		emit_inner;		/* RIGHT/FULL: unmatched inner rows */
	int			nkeys;
	AttrNumber *outer_keycol;
	AttrNumber *inner_keycol;
	AttrNumber	outer_timecol;
	AttrNumber	inner_timecol;
	Oid			time_type;
	int64		lo;
	int64		hi;
	bool		lo_incl;
	bool		hi_incl;
	int			outer_ncols;
	int			inner_ncols;
	SortSupport cmp_oi;			/* outer key vs inner key */
	SortSupport cmp_oo;			/* outer vs outer (order check, groups) */
	SortSupport cmp_ii;			/* inner vs inner (order check) */
	Oid		   *outer_keytype;
	ExprState  *joinqual;
	PlanState  *outer_ps;
	PlanState  *inner_ps;

	/* run state */
	IJPhase		phase;
	TupleTableSlot *outer_slot; /* current outer row */
	Datum	   *okey;
	bool	   *okey_null;
	int64		outer_t;
	int64		band_lo;		/* outer_t + lo */
	int64		band_hi;		/* outer_t + hi */
	int			lo_beyond;		/* band_lo beyond the range: -1 below, +1 above */
	int			hi_beyond;		/* band_hi likewise */
	bool		outer_near_end; /* outer_t near an end of the range */
	bool		outer_matched;

	/*
	 * Near the ends of the time range the band's expressions as written
	 * (b.t + interval '1 hour', maybe on the other side) may be out of
	 * range.  PostgreSQL's join evaluates its filter (band and join quals,
	 * pg_filter, in its order) for every pair of equal keys, up to the
	 * first qual that fails.  So for a candidate pair with a time near an
	 * end we evaluate pg_filter (which raises PostgreSQL's error, or says
	 * whether the pair matches).  And a row near an end whose key has rows
	 * on the other side evaluates the quals in that order with the other
	 * side NULL: the quals of its own side alone decide for every pair
	 * (false: PostgreSQL stops there), the first one that refers to the
	 * other side raises this row's part of its errors, if any, and ends
	 * the check.  Times in [safe_lo, safe_hi] cannot make any of it fail.
	 */
	ExprState  *pg_filter;
	int			nquals;
	ExprState **quals;			/* pg_filter's quals, one by one */
	bool	   *qual_outer;		/* refers to the outer side's columns */
	bool	   *qual_inner;		/* refers to the inner side's columns */
	int64		safe_lo;
	int64		safe_hi;
	bool		group_has_inner;	/* an inner row of the group was read */
	bool		outer_checked;	/* the outer row's first-qual check done */

	bool		have_group;		/* group_key valid? */
	Datum	   *group_key;		/* key of the current outer group */
	int64		group_last_t;	/* last outer time in the group */
	MemoryContext group_cxt;

	TupleTableSlot *inner_slot; /* look-ahead inner row, or NULL */
	bool		inner_done;
	Datum	   *ikey;
	bool	   *ikey_null;
	bool		inner_null;		/* NULL in key or time */
	int64		inner_t;
	bool		have_prev_inner;	/* prev_ikey valid? (order check) */
	Datum	   *prev_ikey;
	bool	   *prev_ikey_null;
	bool		prev_inner_tnull;
	int64		prev_inner_t;
	MemoryContext prev_cxt;
	MemoryContext cmp_cxt;		/* short-lived: key comparisons */

	Tuplestorestate *window;
	TupleTableSlot *window_slot;
	TupleTableSlot *front_slot; /* the window's first row, when loaded */
	bool		front_valid;
	int64		front_t;
	bits8	   *matched;		/* circular bitmap: row joined some outer row */
	int64		ring_size;		/* bits in matched (a power of two) */
	int64		ring_head;		/* bit of the window's first row */
	int64		ring_count;		/* rows in the window */
	int64		scan_pos;

	WjStateStats stats;
	WjParallelInstr pinstr;	/* per-worker figures under a Gather */
	WjKeyPart	kp;				/* key-partitioned execution (keypart.h) */
	WjLeaderShare leader;		/* otherwise, the leader's share under a
								 * Gather (exec_common.h) */
} IntervalJoinState;

static void ij_init_band_check(IntervalJoinState *st, List *band);
static void ij_start_group(IntervalJoinState *st);
static void ij_check_first_qual(IntervalJoinState *st, TupleTableSlot *outer,
								TupleTableSlot *inner);
static TupleTableSlot *ij_form(IntervalJoinState *st, TupleTableSlot *outer,
							   TupleTableSlot *inner);

static Node *interval_join_create_state(CustomScan *cscan);
static void interval_join_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *interval_join_exec(CustomScanState *node);
static void interval_join_end(CustomScanState *node);
static void interval_join_rescan(CustomScanState *node);
static void interval_join_explain(CustomScanState *node, List *ancestors,
					   ExplainState *es);
static Size interval_join_estimate_dsm(CustomScanState *node, ParallelContext *pcxt);
static void interval_join_initialize_dsm(CustomScanState *node, ParallelContext *pcxt,
						   void *coordinate);
static void interval_join_initialize_worker(CustomScanState *node, shm_toc *toc,
							  void *coordinate);
static void interval_join_shutdown(CustomScanState *node);
static void interval_join_reinitialize_dsm(CustomScanState *node, ParallelContext *pcxt,
						  void *coordinate);
static bool ij_next_partition(IntervalJoinState *st);

const CustomScanMethods wj_interval_scan_methods = {
	.CustomName = IJ_NAME,
	.CreateCustomScanState = interval_join_create_state,
};

static const CustomExecMethods ij_exec_methods = {
	.CustomName = IJ_NAME,
	.BeginCustomScan = interval_join_begin,
	.ExecCustomScan = interval_join_exec,
	.EndCustomScan = interval_join_end,
	.ReScanCustomScan = interval_join_rescan,
	.ExplainCustomScan = interval_join_explain,
	.EstimateDSMCustomScan = interval_join_estimate_dsm,
	.InitializeDSMCustomScan = interval_join_initialize_dsm,
	.ReInitializeDSMCustomScan = interval_join_reinitialize_dsm,
	.InitializeWorkerCustomScan = interval_join_initialize_worker,
	.ShutdownCustomScan = interval_join_shutdown,
};

/*
 * interval_join_create_state
 *		CreateCustomScanState: allocate the node.
 */
static Node *
interval_join_create_state(CustomScan *cscan)
{
	IntervalJoinState *st = palloc0(sizeof(IntervalJoinState));

	NodeSetTag(st, T_CustomScanState);
	st->css.methods = &ij_exec_methods;
	return (Node *) st;
}

/*
 * ij_prepare_cmp
 *		Set up a comparator of ltype and rtype values in a btree opfamily, as
 *		the merge join does (MJExamineQuals): sort support when the family
 *		has it, the comparison function otherwise.
 */
static void
ij_prepare_cmp(SortSupport ssup, Oid opfamily, Oid collation,
			   Oid ltype, Oid rtype)
{
	Oid			proc;

	ssup->ssup_cxt = CurrentMemoryContext;
	ssup->ssup_collation = collation;
	ssup->ssup_reverse = false;
	ssup->ssup_nulls_first = false;
	ssup->abbreviate = false;
	proc = get_opfamily_proc(opfamily, ltype, rtype, BTSORTSUPPORT_PROC);
	if (OidIsValid(proc))
		OidFunctionCall1(proc, PointerGetDatum(ssup));
	if (ssup->comparator == NULL)
	{
		proc = get_opfamily_proc(opfamily, ltype, rtype, BTORDER_PROC);
		if (!OidIsValid(proc))
			elog(ERROR, "missing support function %d(%u,%u) in opfamily %u",
				 BTORDER_PROC, ltype, rtype, opfamily);
		PrepareSortSupportComparisonShim(proc, ssup);
	}
}

/*
 * interval_join_begin
 *		BeginCustomScan: read the plan's private data, start the children,
 *		set up comparators, the join quals and the band window.
 */
static void
interval_join_begin(CustomScanState *node, EState *estate, int eflags)
{
	IntervalJoinState *st = (IntervalJoinState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	IntervalJoinPlanInfo info;
	int			child_eflags;
	int			i;

	interval_join_info_from_private(cscan->custom_private, &info);
	/* key-partitioned (a partial path for a Gather): the partition Param */
	st->kp.bucket = -1;
	wj_keypart_setup(&st->kp, &info.keypart);

	st->jointype = info.jointype;
	st->emit_outer = (st->jointype == JOIN_LEFT || st->jointype == JOIN_FULL ||
					  st->jointype == JOIN_ANTI);
	st->first_match_only = (st->jointype == JOIN_SEMI ||
							st->jointype == JOIN_ANTI);
	st->emit_inner = (st->jointype == JOIN_RIGHT || st->jointype == JOIN_FULL);
	st->outer_timecol = info.outer_time;
	st->inner_timecol = info.inner_time;
	st->time_type = info.time_type;
	st->lo_incl = info.lo_incl;
	st->hi_incl = info.hi_incl;
	st->outer_ncols = info.outer_ncols;
	st->inner_ncols = list_length(cscan->custom_scan_tlist) - st->outer_ncols;
	st->lo = info.lo;
	st->hi = info.hi;

	/* keys and their comparators */
	st->nkeys = list_length(info.outer_keys);
	st->outer_keycol = palloc(sizeof(AttrNumber) * (st->nkeys + 1));
	st->inner_keycol = palloc(sizeof(AttrNumber) * (st->nkeys + 1));
	st->outer_keytype = palloc(sizeof(Oid) * (st->nkeys + 1));
	st->cmp_oi = palloc0(sizeof(SortSupportData) * (st->nkeys + 1));
	st->cmp_oo = palloc0(sizeof(SortSupportData) * (st->nkeys + 1));
	st->cmp_ii = palloc0(sizeof(SortSupportData) * (st->nkeys + 1));
	st->okey = palloc0(sizeof(Datum) * (st->nkeys + 1));
	st->okey_null = palloc0(sizeof(bool) * (st->nkeys + 1));
	st->ikey = palloc0(sizeof(Datum) * (st->nkeys + 1));
	st->ikey_null = palloc0(sizeof(bool) * (st->nkeys + 1));
	st->group_key = palloc0(sizeof(Datum) * (st->nkeys + 1));
	st->prev_ikey = palloc0(sizeof(Datum) * (st->nkeys + 1));
	st->prev_ikey_null = palloc0(sizeof(bool) * (st->nkeys + 1));
	for (i = 0; i < st->nkeys; i++)
	{
		Oid			opf = list_nth_oid(info.opfamilies, i);
		Oid			coll = list_nth_oid(info.collations, i);
		Oid			ot = list_nth_oid(info.outer_types, i);
		Oid			it = list_nth_oid(info.inner_types, i);

		st->outer_keycol[i] = list_nth_int(info.outer_keys, i);
		st->inner_keycol[i] = list_nth_int(info.inner_keys, i);
		st->outer_keytype[i] = ot;
		ij_prepare_cmp(&st->cmp_oi[i], opf, coll, ot, it);
		ij_prepare_cmp(&st->cmp_oo[i], opf, coll, ot, ot);
		ij_prepare_cmp(&st->cmp_ii[i], opf, coll, it, it);
	}

	/* the join quals refer to the combined scan tuple */
	st->joinqual = ExecInitQual((List *) list_nth(cscan->custom_exprs,
												  IJ_EXPR_JOINQUAL),
								(PlanState *) st);
	ij_init_band_check(st, (List *) list_nth(cscan->custom_exprs,
											 IJ_EXPR_PG_FILTER));

	/* children: no backward scan or mark/restore needed */
	child_eflags = eflags & ~(EXEC_FLAG_BACKWARD | EXEC_FLAG_MARK);
	st->outer_ps = ExecInitNode(linitial(cscan->custom_plans), estate,
								child_eflags);
	st->inner_ps = ExecInitNode(lsecond(cscan->custom_plans), estate,
								child_eflags);
	node->custom_ps = list_make2(st->outer_ps, st->inner_ps);

	st->group_cxt = AllocSetContextCreate(CurrentMemoryContext,
										  "IntervalJoin group key",
										  ALLOCSET_SMALL_SIZES);
	st->prev_cxt = AllocSetContextCreate(CurrentMemoryContext,
										 "IntervalJoin inner key",
										 ALLOCSET_SMALL_SIZES);
	st->cmp_cxt = AllocSetContextCreate(CurrentMemoryContext,
										"IntervalJoin comparisons",
										ALLOCSET_SMALL_SIZES);

	/* the band window: both read pointers may forget what they passed */
	st->window = tuplestore_begin_heap(false, false, work_mem);
	tuplestore_set_eflags(st->window, 0);
	if (tuplestore_alloc_read_pointer(st->window, 0) != 1)
		elog(ERROR, "unexpected tuplestore read pointer");
	st->window_slot = ExecAllocTableSlot(&estate->es_tupleTable,
										 ExecGetResultType(st->inner_ps),
										 &TTSOpsMinimalTuple);
	st->front_slot = ExecAllocTableSlot(&estate->es_tupleTable,
										ExecGetResultType(st->inner_ps),
										&TTSOpsMinimalTuple);
	st->ring_size = 1024;
	st->matched = palloc0(st->ring_size / 8);

	wj_state_reset(&st->stats, false);
	st->phase = IJ_NEXT_OUTER;
}

/*
 * ij_reset_run
 *		Forget the run state (at rescan).
 */
static void
ij_reset_run(IntervalJoinState *st)
{
	st->phase = IJ_NEXT_OUTER;
	st->outer_slot = NULL;
	st->inner_slot = NULL;
	st->inner_done = false;
	st->have_group = false;
	st->have_prev_inner = false;
	MemoryContextReset(st->group_cxt);
	MemoryContextReset(st->prev_cxt);
	MemoryContextReset(st->cmp_cxt);
	tuplestore_clear(st->window);
	ExecClearTuple(st->window_slot);
	ExecClearTuple(st->front_slot);
	st->front_valid = false;
	st->ring_head = 0;
	st->ring_count = 0;
	wj_state_reset(&st->stats, true);
}

/*
 * ij_time
 *		A time column's value as int64 (timestamps are microseconds).
 */
static inline int64
ij_time(IntervalJoinState *st, Datum d)
{
	if (st->time_type == INT4OID)
		return DatumGetInt32(d);
	return DatumGetInt64(d);
}

/*
 * ij_margin_walker
 *		Add the magnitude of every constant offset in a band expression to
 *		*margin (saturating): no value of the expression can leave the
 *		range unless a time is within that distance of an end.
 */
static bool
ij_margin_walker(Node *node, int64 *margin)
{
	if (node == NULL)
		return false;
	if (IsA(node, Const) && !((Const *) node)->constisnull)
	{
		Const	   *c = (Const *) node;
		int64		m = 0;

		if (c->consttype == INTERVALOID)
		{
			Interval   *iv = DatumGetIntervalP(c->constvalue);
			int64		part;

			/* a month is at most 31 days */
			if (pg_mul_s64_overflow(wj_abs_int64((int64) iv->month),
									31 * USECS_PER_DAY, &m) ||
				pg_mul_s64_overflow(wj_abs_int64((int64) iv->day),
									USECS_PER_DAY, &part) ||
				pg_add_s64_overflow(m, part, &m) ||
				iv->time == PG_INT64_MIN ||
				pg_add_s64_overflow(m, wj_abs_int64(iv->time), &m))
				m = PG_INT64_MAX;
		}
		else if (c->consttype == INT8OID)
			m = DatumGetInt64(c->constvalue) == PG_INT64_MIN ? PG_INT64_MAX :
				wj_abs_int64(DatumGetInt64(c->constvalue));
		else if (c->consttype == INT4OID || c->consttype == INT2OID)
			m = wj_abs_int64((int64) (c->consttype == INT4OID ?
									  DatumGetInt32(c->constvalue) :
									  DatumGetInt16(c->constvalue)));
		if (pg_add_s64_overflow(*margin, m, margin))
			*margin = PG_INT64_MAX;
		return false;
	}
	return expression_tree_walker(node, ij_margin_walker, (void *) margin);
}

/*
 * ij_init_band_check
 *		Prepare the check of candidate pairs near the ends of the range.
 */
static void
ij_init_band_check(IntervalJoinState *st, List *band)
{
	int64		margin = 1;
	int64		lo;
	int64		hi;
	ListCell   *lc;

	st->pg_filter = ExecInitQual(band, (PlanState *) st);
	st->nquals = list_length(band);
	st->quals = palloc(sizeof(ExprState *) * st->nquals);
	st->qual_outer = palloc0(sizeof(bool) * st->nquals);
	st->qual_inner = palloc0(sizeof(bool) * st->nquals);
	foreach(lc, band)
	{
		int			i = foreach_current_index(lc);
		List	   *vars = pull_var_clause((Node *) lfirst(lc),
										   PVC_RECURSE_AGGREGATES |
										   PVC_RECURSE_WINDOWFUNCS |
										   PVC_RECURSE_PLACEHOLDERS);
		ListCell   *lv;

		st->quals[i] = ExecInitExpr((Expr *) lfirst(lc), (PlanState *) st);
		foreach(lv, vars)
		{
			Var		   *var = (Var *) lfirst(lv);

			if (var->varattno <= st->outer_ncols)
				st->qual_outer[i] = true;
			else
				st->qual_inner[i] = true;
		}
	}
	(void) ij_margin_walker((Node *) band, &margin);
	if (st->time_type == INT4OID)
	{
		lo = PG_INT32_MIN;
		hi = PG_INT32_MAX;
	}
	else if (st->time_type == INT8OID)
	{
		lo = PG_INT64_MIN;
		hi = PG_INT64_MAX;
	}
	else
	{
		lo = MIN_TIMESTAMP;
		hi = END_TIMESTAMP - 1;
	}
	if (pg_add_s64_overflow(lo, margin, &st->safe_lo))
		st->safe_lo = PG_INT64_MAX;
	if (pg_sub_s64_overflow(hi, margin, &st->safe_hi))
		st->safe_hi = PG_INT64_MIN;
}

/* Is time t near an end of the range (see pg_filter)? */
static inline bool
ij_near_end(IntervalJoinState *st, int64 t)
{
	return t < st->safe_lo || t > st->safe_hi;
}

/*
 * ij_band_edge
 *		outer_t + offset, computed like timestamp + interval (infinities stay
 *		infinite) or like integer addition.  A result outside the range is
 *		the open end it denotes: *beyond is set to -1 (below everything) or
 *		+1 (above everything), else 0.  That expression is ours, not the
 *		query's (which may shift the other side): whether the query's own
 *		expressions fail is for pg_filter to tell.
 */
static int64
ij_band_edge(IntervalJoinState *st, int64 t, int64 offset, int *beyond)
{
	int64		r;
	bool		overflow;

	*beyond = 0;
	if (st->time_type != INT4OID && st->time_type != INT8OID &&
		TIMESTAMP_NOT_FINITE(t))
		return t;
	overflow = pg_add_s64_overflow(t, offset, &r);
	if (st->time_type == INT8OID)
	{
		if (overflow)
			*beyond = offset > 0 ? 1 : -1;
	}
	else if (st->time_type == INT4OID)
	{
		if (r < PG_INT32_MIN || r > PG_INT32_MAX)
			*beyond = offset > 0 ? 1 : -1;
	}
	else if (overflow || !IS_VALID_TIMESTAMP(r))
		*beyond = offset > 0 ? 1 : -1;
	return r;
}

/*
 * ij_start_group
 *		The current outer row starts a new key group.
 */
static void
ij_start_group(IntervalJoinState *st)
{
	int			i;

	MemoryContextReset(st->group_cxt);
	for (i = 0; i < st->nkeys; i++)
	{
		int16		typlen;
		bool		typbyval;
		MemoryContext old;

		get_typlenbyval(st->outer_keytype[i], &typlen, &typbyval);
		old = MemoryContextSwitchTo(st->group_cxt);
		st->group_key[i] = datumCopy(st->okey[i], typbyval, typlen);
		MemoryContextSwitchTo(old);
	}
	st->have_group = true;
	st->group_has_inner = false;
	st->group_last_t = st->outer_t;
	st->phase = IJ_FLUSH_WINDOW;
}

/*
 * ij_check_first_qual
 *		Evaluate pg_filter's quals on one row, the other side NULL, as far
 *		as they decide alike for every pair (see pg_filter): this raises
 *		the error PostgreSQL's join raises computing that row's part of
 *		them, if any.
 */
static void
ij_check_first_qual(IntervalJoinState *st, TupleTableSlot *outer,
					TupleTableSlot *inner)
{
	ExprContext *econtext = st->css.ss.ps.ps_ExprContext;
	int			i;

	ResetExprContext(econtext);
	econtext->ecxt_scantuple = ij_form(st, outer, inner);
	for (i = 0; i < st->nquals; i++)
	{
		bool		isnull;
		Datum		d;
		bool		other = (outer == NULL) ? st->qual_outer[i] :
			st->qual_inner[i];

		d = ExecEvalExprSwitchContext(st->quals[i], econtext, &isnull);
		if (other || isnull || !DatumGetBool(d))
			break;
	}
}

/* Is inner time t below the current band (never to match again)? */
static inline bool
ij_below_band(IntervalJoinState *st, int64 t)
{
	if (st->lo_beyond != 0)
		return st->lo_beyond > 0;
	return st->lo_incl ? t < st->band_lo : t <= st->band_lo;
}

/* Is inner time t above the current band (not yet reached)? */
static inline bool
ij_above_band(IntervalJoinState *st, int64 t)
{
	if (st->hi_beyond != 0)
		return st->hi_beyond < 0;
	return st->hi_incl ? t > st->band_hi : t >= st->band_hi;
}

/*
 * ij_cmp_keys
 *		Compare two key vectors in sort order (NULLs last).
 */
static int
ij_cmp_keys(SortSupport ssup, int nkeys, Datum *a, bool *anull,
			Datum *b, bool *bnull)
{
	int			i;

	for (i = 0; i < nkeys; i++)
	{
		int			c;

		if (anull[i] || bnull[i])
		{
			if (anull[i] && bnull[i])
				continue;
			return anull[i] ? 1 : -1;
		}
		c = ssup[i].comparator(a[i], b[i], &ssup[i]);
		if (c != 0)
			return c;
	}
	return 0;
}

/*
 * ij_cmp_group_inner
 *		Compare the current outer group's key with the look-ahead inner
 *		row's key (sort order, inner NULLs last).
 */
static int
ij_cmp_group_inner(IntervalJoinState *st)
{
	MemoryContext old;
	int			c = 0;
	int			i;

	/* comparison functions may leak (detoasting): use a short-lived context */
	old = MemoryContextSwitchTo(st->cmp_cxt);
	for (i = 0; i < st->nkeys; i++)
	{
		if (st->ikey_null[i])
		{
			c = -1;
			break;
		}
		c = st->cmp_oi[i].comparator(st->group_key[i], st->ikey[i],
									 &st->cmp_oi[i]);
		if (c != 0)
			break;
	}
	MemoryContextSwitchTo(old);
	return c;
}

/*
 * ij_not_sorted
 *		An input arrived out of (key, time) order.
 */
static void
ij_not_sorted(const char *which)
{
	elog(ERROR, "IntervalJoin %s input is not sorted by its keys and time",
		 which);
}

/*
 * ij_fetch_inner
 *		Make sure a look-ahead inner row is loaded, unless the inner input
 *		is exhausted; checks the input's order.  Returns false at its end.
 */
static bool
ij_fetch_inner(IntervalJoinState *st)
{
	TupleTableSlot *slot;
	bool		tnull;
	int			i;
	int			c;
	MemoryContext oldcxt;

	if (st->inner_slot != NULL)
		return true;
	if (st->inner_done)
		return false;
	slot = ExecProcNode(st->inner_ps);
	if (TupIsNull(slot))
	{
		st->inner_done = true;
		return false;
	}
	MemoryContextReset(st->cmp_cxt);
	st->inner_slot = slot;
	st->inner_null = false;
	for (i = 0; i < st->nkeys; i++)
	{
		st->ikey[i] = slot_getattr(slot, st->inner_keycol[i], &st->ikey_null[i]);
		if (st->ikey_null[i])
			st->inner_null = true;
	}
	st->inner_t = ij_time(st, slot_getattr(slot, st->inner_timecol, &tnull));
	if (tnull)
		st->inner_null = true;

	/* order check against the previous inner row */
	if (st->have_prev_inner)
	{
		oldcxt = MemoryContextSwitchTo(st->cmp_cxt);
		c = ij_cmp_keys(st->cmp_ii, st->nkeys, st->prev_ikey,
						st->prev_ikey_null, st->ikey, st->ikey_null);
		MemoryContextSwitchTo(oldcxt);
		if (c > 0)
			ij_not_sorted("inner");
		if (c == 0)
		{
			if (st->prev_inner_tnull && !tnull)
				ij_not_sorted("inner");
			if (!st->prev_inner_tnull && !tnull &&
				st->inner_t < st->prev_inner_t)
				ij_not_sorted("inner");
			st->prev_inner_tnull = tnull;
			st->prev_inner_t = st->inner_t;
			return true;
		}
	}
	/* a new inner key: remember it */
	MemoryContextReset(st->prev_cxt);
	oldcxt = MemoryContextSwitchTo(st->prev_cxt);
	for (i = 0; i < st->nkeys; i++)
	{
		Form_pg_attribute att = TupleDescAttr(slot->tts_tupleDescriptor,
											  st->inner_keycol[i] - 1);

		st->prev_ikey_null[i] = st->ikey_null[i];
		st->prev_ikey[i] = st->ikey_null[i] ? (Datum) 0 :
			datumCopy(st->ikey[i], att->attbyval, att->attlen);
	}
	MemoryContextSwitchTo(oldcxt);
	st->have_prev_inner = true;
	st->prev_inner_tnull = tnull;
	st->prev_inner_t = st->inner_t;
	return true;
}

/*
 * ij_form
 *		Fill the combined scan tuple from an outer and an inner row; either
 *		may be NULL, giving NULLs for that side.
 */
static TupleTableSlot *
ij_form(IntervalJoinState *st, TupleTableSlot *outer, TupleTableSlot *inner)
{
	TupleTableSlot *scan = st->css.ss.ss_ScanTupleSlot;
	int			no = st->outer_ncols;
	int			ni = st->inner_ncols;

	ExecClearTuple(scan);
	if (outer != NULL)
	{
		slot_getallattrs(outer);
		memcpy(scan->tts_values, outer->tts_values, no * sizeof(Datum));
		memcpy(scan->tts_isnull, outer->tts_isnull, no * sizeof(bool));
	}
	else
		memset(scan->tts_isnull, true, no * sizeof(bool));
	if (inner != NULL)
	{
		slot_getallattrs(inner);
		memcpy(scan->tts_values + no, inner->tts_values, ni * sizeof(Datum));
		memcpy(scan->tts_isnull + no, inner->tts_isnull, ni * sizeof(bool));
	}
	else
		memset(scan->tts_isnull + no, true, ni * sizeof(bool));
	return ExecStoreVirtualTuple(scan);
}

/*
 * ij_tuple_bytes
 *		Approximate size of a row kept in the window (as a minimal tuple).
 */
static int32
ij_tuple_bytes(TupleTableSlot *slot)
{
	TupleDesc	desc = slot->tts_tupleDescriptor;
	bool		hasnull = false;
	int			i;
	Size		hoff;

	slot_getallattrs(slot);
	for (i = 0; i < desc->natts; i++)
		hasnull |= slot->tts_isnull[i];
	hoff = SizeofMinimalTupleHeader;
	if (hasnull)
		hoff += BITMAPLEN(desc->natts);
	return (int32) (MAXALIGN(hoff) +
					heap_compute_data_size(desc, slot->tts_values,
										   slot->tts_isnull));
}

/* The matched bit of the window's row at position pos (0 = front) */
static inline bool
ij_get_matched(IntervalJoinState *st, int64 pos)
{
	int64		bit = (st->ring_head + pos) & (st->ring_size - 1);

	return (st->matched[bit / 8] & (1 << (bit % 8))) != 0;
}

static inline void
ij_set_matched(IntervalJoinState *st, int64 pos, bool value)
{
	int64		bit = (st->ring_head + pos) & (st->ring_size - 1);

	if (value)
		st->matched[bit / 8] |= (1 << (bit % 8));
	else
		st->matched[bit / 8] &= ~(1 << (bit % 8));
}

/*
 * ij_window_append
 *		Move the look-ahead inner row into the window.
 */
static void
ij_window_append(IntervalJoinState *st)
{
	if (st->ring_count == st->ring_size)
	{
		/* double the bitmap, the window's bits first */
		bits8	   *bigger = palloc0(st->ring_size * 2 / 8);
		int64		i;

		for (i = 0; i < st->ring_count; i++)
		{
			if (ij_get_matched(st, i))
				bigger[i / 8] |= (1 << (i % 8));
		}
		pfree(st->matched);
		st->matched = bigger;
		st->ring_head = 0;
		st->ring_size *= 2;
	}
	ij_set_matched(st, st->ring_count, false);
	tuplestore_puttupleslot(st->window, st->inner_slot);
	st->ring_count++;
	wj_state_add(&st->stats, ij_tuple_bytes(st->inner_slot));
	st->inner_slot = NULL;
}

/*
 * ij_slot_time
 *		The time of a window row (never NULL: such rows do not enter it).
 */
static inline int64
ij_slot_time(IntervalJoinState *st, TupleTableSlot *slot)
{
	bool		isnull;

	return ij_time(st, slot_getattr(slot, st->inner_timecol, &isnull));
}

/*
 * ij_load_front
 *		Make sure the window's first row is in front_slot (read through
 *		pointer 0, which then stands just past it) with its time.
 */
static void
ij_load_front(IntervalJoinState *st)
{
	if (st->front_valid || st->ring_count == 0)
		return;
	tuplestore_select_read_pointer(st->window, 0);
	if (!tuplestore_gettupleslot(st->window, true, true, st->front_slot))
		elog(ERROR, "IntervalJoin window is shorter than expected");
	st->front_t = ij_slot_time(st, st->front_slot);
	st->front_valid = true;
}

/*
 * ij_window_pop
 *		Drop the window's front row.  Returns the row (in front_slot) when
 *		it must be emitted as unmatched, else NULL.
 */
static TupleTableSlot *
ij_window_pop(IntervalJoinState *st)
{
	bool		emit;

	ij_load_front(st);
	emit = st->emit_inner && !ij_get_matched(st, 0);
	wj_state_remove(&st->stats, ij_tuple_bytes(st->front_slot));
	st->front_valid = false;
	st->ring_head = (st->ring_head + 1) & (st->ring_size - 1);
	st->ring_count--;
	if (st->ring_count == 0)
	{
		/* empty: start over, which also releases any temporary file */
		tuplestore_clear(st->window);
		st->ring_head = 0;
	}
	return emit ? st->front_slot : NULL;
}

/*
 * ij_next
 *		Produce the next combined scan tuple (a joined pair, or one side
 *		with NULLs), or NULL when the join is done.
 */
static TupleTableSlot *
ij_next(IntervalJoinState *st)
{
	ExprContext *econtext = st->css.ss.ps.ps_ExprContext;

	for (;;)
	{
		CHECK_FOR_INTERRUPTS();

		switch (st->phase)
		{
			case IJ_NEXT_OUTER:
				{
					TupleTableSlot *slot;
					bool		tnull;
					bool		anynull = false;
					int			i;
					int			c;

					/*
					 * Nothing left to match: inner joins can stop early --
					 * unless the key group has inner rows, which PostgreSQL
					 * compares with its remaining outer rows (see pg_filter)
					 */
					if (!st->emit_outer && !st->emit_inner &&
						st->inner_done && st->ring_count == 0 &&
						!st->group_has_inner)
					{
						st->phase = IJ_DONE;
						break;
					}
					slot = ExecProcNode(st->outer_ps);
					if (TupIsNull(slot))
					{
						st->outer_slot = NULL;
						st->phase = st->have_group ? IJ_FINISH_GROUP :
							IJ_END_WINDOW;
						break;
					}
					st->outer_slot = slot;
					st->outer_matched = false;
					for (i = 0; i < st->nkeys; i++)
					{
						st->okey[i] = slot_getattr(slot, st->outer_keycol[i],
												   &st->okey_null[i]);
						anynull |= st->okey_null[i];
					}
					st->outer_t = ij_time(st, slot_getattr(slot, st->outer_timecol,
													   &tnull));
					if (anynull || tnull)
					{
						/* matches nothing */
						if (st->emit_outer)
							return ij_form(st, slot, NULL);
						break;
					}
					st->band_lo = ij_band_edge(st, st->outer_t, st->lo,
											   &st->lo_beyond);
					st->band_hi = ij_band_edge(st, st->outer_t, st->hi,
											   &st->hi_beyond);
					st->outer_near_end = ij_near_end(st, st->outer_t);

					if (!st->have_group)
						c = 1;
					else
					{
						bool	   *nonull = st->okey_null; /* all false here */
						MemoryContext old;

						MemoryContextReset(st->cmp_cxt);
						old = MemoryContextSwitchTo(st->cmp_cxt);
						c = ij_cmp_keys(st->cmp_oo, st->nkeys, st->okey,
										st->okey_null, st->group_key, nonull);
						MemoryContextSwitchTo(old);
					}
					if (c < 0)
						ij_not_sorted("outer");
					if (c == 0)
					{
						if (st->outer_t < st->group_last_t)
							ij_not_sorted("outer");
						st->group_last_t = st->outer_t;
						st->phase = IJ_DROP_FRONT;
						break;
					}

					/* a new key group, after the old one's unread rows */
					if (st->have_group)
						st->phase = IJ_FINISH_GROUP;
					else
						ij_start_group(st);
					break;
				}

			case IJ_FINISH_GROUP:

				/*
				 * The old key's inner rows above the band of its last outer
				 * row never match; PostgreSQL's join still evaluates its
				 * filter's first qual for them (see pg_filter).
				 */
				while (ij_fetch_inner(st))
				{
					TupleTableSlot *slot = st->inner_slot;

					CHECK_FOR_INTERRUPTS();
					if (ij_cmp_group_inner(st) != 0)
						break;
					if (!st->inner_null && ij_near_end(st, st->inner_t))
						ij_check_first_qual(st, NULL, slot);
					st->inner_slot = NULL;
					if (st->emit_inner)
						return ij_form(st, NULL, slot);
				}
				if (st->outer_slot == NULL)
					st->phase = IJ_END_WINDOW;
				else
					ij_start_group(st);
				break;

			case IJ_FLUSH_WINDOW:
				while (st->ring_count > 0)
				{
					TupleTableSlot *slot = ij_window_pop(st);

					if (slot != NULL)
						return ij_form(st, NULL, slot);
				}
				st->phase = IJ_SKIP_INNER;
				break;

			case IJ_SKIP_INNER:
				while (ij_fetch_inner(st))
				{
					TupleTableSlot *slot = st->inner_slot;

					CHECK_FOR_INTERRUPTS();
					if (ij_cmp_group_inner(st) <= 0)
						break;
					/* the inner key is below the outer key: never matches */
					st->inner_slot = NULL;
					if (st->emit_inner)
						return ij_form(st, NULL, slot);
				}
				st->phase = IJ_DROP_FRONT;
				break;

			case IJ_DROP_FRONT:
				for (;;)
				{
					TupleTableSlot *slot;

					CHECK_FOR_INTERRUPTS();
					ij_load_front(st);
					if (st->ring_count == 0 || !ij_below_band(st, st->front_t))
						break;
					slot = ij_window_pop(st);
					if (slot != NULL)
						return ij_form(st, NULL, slot);
				}
				if (st->ring_count > 0)
				{
					tuplestore_select_read_pointer(st->window, 0);
					tuplestore_trim(st->window);
				}
				st->phase = IJ_FILL;
				break;

			case IJ_FILL:
				while (ij_fetch_inner(st))
				{
					TupleTableSlot *slot = st->inner_slot;

					CHECK_FOR_INTERRUPTS();
					if (ij_cmp_group_inner(st) != 0)
						break;	/* a later key (or a NULL key) */
					st->group_has_inner = true;
					if (!st->inner_null && ij_near_end(st, st->inner_t))
						ij_check_first_qual(st, NULL, slot);
					if (!st->inner_null && ij_above_band(st, st->inner_t))
						break;
					if (st->inner_null || ij_below_band(st, st->inner_t))
					{
						/* NULL time, or already passed: never matches */
						st->inner_slot = NULL;
						if (st->emit_inner)
							return ij_form(st, NULL, slot);
						continue;
					}
					ij_window_append(st);
				}
				/* an outer row near an end, whose key has inner rows */
				if (st->outer_near_end &&
					(st->group_has_inner ||
					 (ij_fetch_inner(st) && ij_cmp_group_inner(st) == 0)))
					ij_check_first_qual(st, st->outer_slot, NULL);
				/* scan the window from its front: front_slot, then pointer 1 */
				ij_load_front(st);
				tuplestore_copy_read_pointer(st->window, 0, 1);
				tuplestore_select_read_pointer(st->window, 1);
				st->scan_pos = 0;
				st->phase = IJ_SCAN;
				break;

			case IJ_SCAN:
				while (st->scan_pos < st->ring_count)
				{
					int64		pos = st->scan_pos;
					TupleTableSlot *row;
					TupleTableSlot *scan;

					CHECK_FOR_INTERRUPTS();
					if (pos == 0)
						row = st->front_slot;
					else
					{
						if (!tuplestore_gettupleslot(st->window, true, false,
													 st->window_slot))
							elog(ERROR, "IntervalJoin window is shorter than expected");
						row = st->window_slot;
					}
					st->scan_pos++;
					scan = ij_form(st, st->outer_slot, row);
					/* near an end: the filter as written (see pg_filter) */
					if (st->outer_near_end ||
						ij_near_end(st, pos == 0 ? st->front_t :
									ij_slot_time(st, row)))
					{
						ResetExprContext(econtext);
						econtext->ecxt_scantuple = scan;
						if (!ExecQual(st->pg_filter, econtext))
						{
							InstrCountFiltered2(st, 1);
							continue;
						}
					}
					else if (st->joinqual != NULL)
					{
						ResetExprContext(econtext);
						econtext->ecxt_scantuple = scan;
						if (!ExecQual(st->joinqual, econtext))
						{
							InstrCountFiltered2(st, 1);
							continue;
						}
					}
					ij_set_matched(st, pos, true);
					st->outer_matched = true;
					if (st->first_match_only)
					{
						/* SEMI: emit the outer row once; ANTI: drop it */
						st->phase = IJ_NEXT_OUTER;
						if (st->jointype == JOIN_ANTI)
							break;
					}
					return scan;
				}
				if (st->phase != IJ_SCAN)
					break;		/* ANTI join row matched */
				st->phase = IJ_NEXT_OUTER;
				if (!st->outer_matched && st->emit_outer)
					return ij_form(st, st->outer_slot, NULL);
				break;

			case IJ_END_WINDOW:
				while (st->ring_count > 0)
				{
					TupleTableSlot *slot = ij_window_pop(st);

					if (slot != NULL)
						return ij_form(st, NULL, slot);
				}
				st->phase = IJ_END_INNER;
				break;

			case IJ_END_INNER:
				if (!st->emit_inner)
				{
					st->phase = IJ_DONE;
					break;
				}
				if (ij_fetch_inner(st))
				{
					TupleTableSlot *slot = st->inner_slot;

					st->inner_slot = NULL;
					return ij_form(st, NULL, slot);
				}
				st->phase = IJ_DONE;
				break;

			case IJ_DONE:
				return NULL;
		}
	}
}

/*
 * interval_join_exec
 *		ExecCustomScan: next joined row, after the WHERE filter (for outer
 *		joins) and projection.
 */
static TupleTableSlot *
interval_join_exec(CustomScanState *node)
{
	IntervalJoinState *st = (IntervalJoinState *) node;
	ExprContext *econtext = node->ss.ps.ps_ExprContext;
	ExprState  *qual = node->ss.ps.qual;
	ProjectionInfo *proj = node->ss.ps.ps_ProjInfo;

	/* key-partitioned: claim a partition before reading */
	if (st->kp.parts > 0 && st->kp.bucket < 0 && !st->kp.finished)
		(void) ij_next_partition(st);
	/* a partial outer input: the leader may leave its share to workers */
	else if (st->kp.parts == 0 &&
			 wj_leader_leaves_share(&st->leader, &node->ss.ps))
		return ExecClearTuple(proj != NULL ? proj->pi_state.resultslot :
							  node->ss.ss_ScanTupleSlot);

	for (;;)
	{
		TupleTableSlot *slot;

		ResetExprContext(econtext);
		slot = (st->kp.parts > 0 && st->kp.bucket < 0) ? NULL : ij_next(st);
		/* key-partitioned: on to the next unclaimed partition */
		if (slot == NULL && st->kp.parts > 0 && !st->kp.finished &&
			ij_next_partition(st))
			continue;
		if (slot == NULL)
		{
			if (proj != NULL)
				return ExecClearTuple(proj->pi_state.resultslot);
			return ExecClearTuple(node->ss.ss_ScanTupleSlot);
		}
		econtext->ecxt_scantuple = slot;
		if (qual != NULL && !ExecQual(qual, econtext))
		{
			InstrCountFiltered1(node, 1);
			continue;
		}
		if (proj != NULL)
			return ExecProject(proj);
		return slot;
	}
}

/*
 * interval_join_end
 *		EndCustomScan: shut down the children and release the window.
 */
static void
interval_join_end(CustomScanState *node)
{
	IntervalJoinState *st = (IntervalJoinState *) node;

	ExecEndNode(st->outer_ps);
	ExecEndNode(st->inner_ps);
	if (st->window != NULL)
	{
		tuplestore_end(st->window);
		st->window = NULL;
	}
	MemoryContextDelete(st->group_cxt);
	MemoryContextDelete(st->prev_cxt);
	MemoryContextDelete(st->cmp_cxt);
}

/*
 * interval_join_rescan
 *		ReScanCustomScan: start over, rescanning the children (they are
 *		told about changed parameters, as Append does for its children).
 */
static void
interval_join_rescan(CustomScanState *node)
{
	IntervalJoinState *st = (IntervalJoinState *) node;

	wj_rescan_child(node, st->outer_ps);
	wj_rescan_child(node, st->inner_ps);
	ij_reset_run(st);
	wj_keypart_restart(&st->kp);
	st->leader.asked = false;
}

/*
 * ij_show_exprs
 *		EXPLAIN one of the expression lists of custom_exprs.
 */
static void
ij_show_exprs(CustomScanState *node, List *ancestors, ExplainState *es,
			  int which, const char *label)
{
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	List	   *exprs = (List *) list_nth(cscan->custom_exprs, which);

	if (exprs == NIL)
		return;
	wj_explain_exprs(label, exprs,
					 set_deparse_context_plan(es->deparse_cxt, (Plan *) cscan,
											  ancestors),
					 es);
}

/*
 * interval_join_explain
 *		ExplainCustomScan: join type, keys, band, join filter, and under
 *		ANALYZE the peak state of the band window.
 */
static void
interval_join_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	IntervalJoinState *st = (IntervalJoinState *) node;

	wj_explain_join_type(st->jointype, es);
	ij_show_exprs(node, ancestors, es, IJ_EXPR_KEYS, "Join Keys");
	ij_show_exprs(node, ancestors, es, IJ_EXPR_BAND, "Band");
	ij_show_exprs(node, ancestors, es, IJ_EXPR_JOINQUAL, "Join Filter");
	if (es->analyze && st->joinqual != NULL && node->ss.ps.instrument &&
		(node->ss.ps.instrument->nfiltered2 > 0 ||
		 es->format != EXPLAIN_FORMAT_TEXT))
	{
		double		nloops = node->ss.ps.instrument->nloops;
		double		nfiltered = node->ss.ps.instrument->nfiltered2;

		ExplainPropertyFloat("Rows Removed by Join Filter", NULL,
							 nloops > 0 ? nfiltered / nloops : 0, 0, es);
	}
	wj_explain_state(&st->stats, es);
	if (st->kp.parts > 0)		/* key-partitioned (keypart.h) */
		ExplainPropertyInteger("Key Partitions", NULL, st->kp.parts, es);
	wj_explain_workers(&st->pinstr, &node->ss.ps, &st->stats, es);
}

/*
 * interval_join_estimate_dsm, interval_join_initialize_dsm, interval_join_reinitialize_dsm, interval_join_initialize_worker, interval_join_shutdown
 *		The parallel-aware plan of a partial path, under a Gather: the
 *		counter from which key-partitioned execution claims partitions, and
 *		each worker's peak state and rows for EXPLAIN ANALYZE (state_stats.h).
 *		Nothing else is shared: every participant joins its share of the
 *		outer rows, or its partitions, on its own.
 */
#define IJ_DSM_COUNTER_SIZE		MAXALIGN(sizeof(pg_atomic_uint32))

static Size
interval_join_estimate_dsm(CustomScanState *node, ParallelContext *pcxt)
{
	return add_size(IJ_DSM_COUNTER_SIZE, wj_instr_estimate(pcxt));
}

static void
interval_join_initialize_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	IntervalJoinState *st = (IntervalJoinState *) node;

	wj_keypart_init_dsm(&st->kp, coordinate, &node->ss.ps, pcxt);
	st->leader.pcxt = pcxt;
	wj_instr_init_dsm(&st->pinstr, pcxt,
					  (char *) coordinate + IJ_DSM_COUNTER_SIZE);
}

static void
interval_join_reinitialize_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	IntervalJoinState *st = (IntervalJoinState *) node;

	pg_atomic_write_u32(st->kp.counter, 0);
}

static void
interval_join_initialize_worker(CustomScanState *node, shm_toc *toc, void *coordinate)
{
	IntervalJoinState *st = (IntervalJoinState *) node;

	st->kp.counter = (pg_atomic_uint32 *) coordinate;
	wj_instr_init_worker(&st->pinstr,
						 (char *) coordinate + IJ_DSM_COUNTER_SIZE);
}

static void
interval_join_shutdown(CustomScanState *node)
{
	IntervalJoinState *st = (IntervalJoinState *) node;

	wj_instr_shutdown(&st->pinstr, &node->ss.ps, &st->stats);
	st->leader.pcxt = NULL;
}

/*
 * ij_next_partition
 *		Key-partitioned execution: claim the next partition and restart the
 *		sweep on it; false when every partition has been claimed.
 */
static bool
ij_next_partition(IntervalJoinState *st)
{
	if (!wj_keypart_next(&st->kp, st->css.ss.ps.state, st->outer_ps,
						 st->inner_ps))
		return false;
	ij_reset_run(st);
	return true;
}

/*
 * wj_interval_register
 *		Make the IntervalJoin scan methods known (for plan copying and
 *		parallel workers).
 */
void
wj_interval_register(void)
{
	RegisterCustomScanMethods(&wj_interval_scan_methods);
}
