/*-------------------------------------------------------------------------
 *
 * asof_exec.c
 *	  Executor side of the AsOfJoin custom scan: a one-pass merge of the
 *	  outer rows with a version history, both sorted by (keys, time).
 *
 * Each outer row joins the version valid at its time: the latest version
 * of the same key with version_time <= outer_time (or <; "backward"), or
 * the earliest one with version_time >= outer_time (or >; "forward"),
 * optionally limited by a tolerance bound.  At most one version per outer
 * row, so this is a join that never multiplies rows.
 *
 * Two strategies, chosen by the planner:
 *
 * hashed (every key hashable and of the same type on both sides): both
 *	children arrive sorted by time alone (descending when looking forward),
 *	the inner one also by its output columns as tie breakers.  Before each
 *	outer row (time t) every version with time <= t (>= t forward; strict
 *	for < and >) is read and becomes the current version of its key in a
 *	TupleHashTable; then the outer keys are looked up.  The state is one
 *	version per key seen so far.  Sorting by a timestamp is much cheaper
 *	than by (text keys, timestamp).  Among versions tied on (keys, time)
 *	the last one read wins.
 *
 * merge (otherwise, and with zero keys): both children arrive sorted by
 * (keys, time) ascending with NULLs last; the inner child is also sorted
 * by its output columns as tie breakers.  The merge walks both streams
 * once:
 *
 *	backward: for each outer row (keys K, time t), forget the current
 *		version if its keys are not K; then consume inner rows while their
 *		keys sort before K (discard) or equal K with time <= t (each one
 *		becomes the current version).  The current version is the match.
 *		Among versions tied on (keys, time) the last one read wins.
 *
 *	forward: consume inner rows while their keys sort before K or equal K
 *		with time < t; the next inner row, if it has keys K, is the match
 *		and stays unconsumed for the following outer rows.  Among tied
 *		versions the first one read wins.
 *
 * The planner sorts the tie breakers so that both rules pick the version
 * whose output row sorts last (ascending, NULLs last).
 *
 * A tolerance bound (e.g. version_time >= outer_time - 1 hour) is monotone
 * in the version time, so checking it on the match alone is exact: if the
 * closest version is too old, every other candidate is older still.  Then
 * a LEFT join's join filter, if any, decides whether the match is kept.
 *
 * Outer rows with a NULL key or time match nothing; inner rows with one
 * are skipped.  The merge's state is the current version: one row.
 *
 * src/asof_exec.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/nbtree.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "optimizer/optimizer.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"
#include "utils/sortsupport.h"

#include "asof.h"
#include "state_stats.h"
#include "windowjoin.h"

/* A comparison of an outer value with an inner value */
typedef struct AsOfCmp
{
	bool		use_ssup;		/* same type: sort support comparator */
	SortSupportData ssup;
	FmgrInfo	flinfo;			/* cross-type: btree comparison proc */
	Oid			collation;
} AsOfCmp;

typedef struct AsOfJoinState
{
	CustomScanState css;

	PlanState  *outer_ps;
	PlanState  *inner_ps;
	JoinType	jointype;
	bool		forward;
	bool		strict;
	bool		hashed;			/* hashed keys, time-ordered sweep */
	int			nouter;			/* columns of the outer child */
	int			ninner;			/* columns of the inner child */
	int			nkeys;
	int			ntol;

	ExprState **outer_key;		/* per key */
	ExprState  *outer_time;
	ExprState **tol_bound;		/* per tolerance bound */
	bool	   *tol_strict;
	ExprState  *joinqual;		/* LEFT join's match conditions */

	AsOfCmp    *key_cmp;
	AsOfCmp		time_cmp;
	AsOfCmp    *tol_cmp;
	AttrNumber *inner_key_attno;
	AttrNumber	inner_time_attno;

	Datum	   *okeys;			/* current outer row's keys */
	Datum		otime;			/* and time */

	TupleTableSlot *next;		/* inner lookahead, NULL if none */
	bool		inner_done;		/* inner child exhausted */
	TupleTableSlot *best_slot;	/* the current version (a copy) */
	bool		have_best;
	bool		best_is_next;	/* forward: best_slot copies next */
	int64		best_bytes;

	/* hashed strategy: the current version of every key seen so far */
	TupleHashTable hashtable;
	MemoryContext hashcxt;		/* the table and the version copies */
	TupleTableSlot *probe_slot; /* keys only, in the inner layout */
	TupleTableSlot *match_slot; /* a version out of the table */

	WjStateStats stats;
} AsOfJoinState;

static Node *asof_create_state(CustomScan *cscan);
static void asof_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *asof_exec(CustomScanState *node);
static void asof_end(CustomScanState *node);
static void asof_rescan(CustomScanState *node);
static void asof_explain(CustomScanState *node, List *ancestors,
						 ExplainState *es);

CustomScanMethods wj_asof_scan_methods = {
	.CustomName = ASOF_NAME,
	.CreateCustomScanState = asof_create_state,
};

static CustomExecMethods asof_exec_methods = {
	.CustomName = ASOF_NAME,
	.BeginCustomScan = asof_begin,
	.ExecCustomScan = asof_exec,
	.EndCustomScan = asof_end,
	.ReScanCustomScan = asof_rescan,
	.ExplainCustomScan = asof_explain,
};

/*
 * wj_asof_register
 *		Make the plan node known by name (for plan copying and reading).
 */
void
wj_asof_register(void)
{
	RegisterCustomScanMethods(&wj_asof_scan_methods);
}

/*
 * asof_create_state
 *		CreateCustomScanState: allocate our state node.
 */
static Node *
asof_create_state(CustomScan *cscan)
{
	AsOfJoinState *s = (AsOfJoinState *) newNode(sizeof(AsOfJoinState),
												 T_CustomScanState);

	s->css.methods = &asof_exec_methods;
	return (Node *) s;
}

/*
 * asof_init_cmp
 *		Prepare the comparison of an outer value of type outertype with an
 *		inner value of type innertype in a btree opfamily.
 */
static void
asof_init_cmp(AsOfCmp *cmp, Oid opfamily, Oid outertype, Oid innertype,
			  Oid collation)
{
	memset(cmp, 0, sizeof(AsOfCmp));
	cmp->collation = collation;
	if (outertype == innertype)
	{
		Oid			ltop = get_opfamily_member(opfamily, outertype, outertype,
											   BTLessStrategyNumber);

		if (!OidIsValid(ltop))
			elog(ERROR, "missing operator < for type %u in opfamily %u",
				 outertype, opfamily);
		cmp->use_ssup = true;
		cmp->ssup.ssup_cxt = CurrentMemoryContext;
		cmp->ssup.ssup_collation = collation;
		cmp->ssup.ssup_nulls_first = false;
		cmp->ssup.abbreviate = false;
		PrepareSortSupportFromOrderingOp(ltop, &cmp->ssup);
	}
	else
	{
		Oid			proc = get_opfamily_proc(opfamily, outertype, innertype,
											 BTORDER_PROC);

		if (!OidIsValid(proc))
			elog(ERROR, "missing support function %d(%u,%u) in opfamily %u",
				 BTORDER_PROC, outertype, innertype, opfamily);
		fmgr_info(proc, &cmp->flinfo);
	}
}

/* Compare an outer value with an inner one: <0, 0, >0 as outer is less */
static inline int
asof_compare(AsOfCmp *cmp, Datum outer, Datum inner)
{
	if (cmp->use_ssup)
		return cmp->ssup.comparator(outer, inner, &cmp->ssup);
	return DatumGetInt32(FunctionCall2Coll(&cmp->flinfo, cmp->collation,
										   outer, inner));
}

/*
 * asof_begin
 *		BeginCustomScan: start both children and prepare expressions and
 *		comparisons from the plan.
 */
static void
asof_begin(CustomScanState *node, EState *estate, int eflags)
{
	AsOfJoinState *s = (AsOfJoinState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	List	   *meta = (List *) linitial(cscan->custom_private);
	List	   *cmps = (List *) lsecond(cscan->custom_private);
	List	   *attnos = (List *) lthird(cscan->custom_private);
	List	   *outer_keys;
	List	   *tol_bounds;
	List	   *joinquals;
	ListCell   *lc;
	int			child_eflags;
	int			i;
	int			natts;

	/* We scan forward only and never mark; children need neither */
	child_eflags = eflags & ~(EXEC_FLAG_BACKWARD | EXEC_FLAG_MARK);
	s->outer_ps = ExecInitNode((Plan *) linitial(cscan->custom_plans),
							   estate, child_eflags);
	s->inner_ps = ExecInitNode((Plan *) lsecond(cscan->custom_plans),
							   estate, child_eflags);
	node->custom_ps = list_make2(s->outer_ps, s->inner_ps);

	s->jointype = (JoinType) list_nth_int(meta, ASOF_META_JOINTYPE);
	s->forward = list_nth_int(meta, ASOF_META_FORWARD) != 0;
	s->strict = list_nth_int(meta, ASOF_META_STRICT) != 0;
	s->nouter = list_nth_int(meta, ASOF_META_NOUTER);
	s->nkeys = list_nth_int(meta, ASOF_META_NKEYS);
	s->ntol = list_nth_int(meta, ASOF_META_NTOL);
	s->ninner = ExecGetResultType(s->inner_ps)->natts;

	natts = node->ss.ss_ScanTupleSlot->tts_tupleDescriptor->natts;
	if (s->nouter != ExecGetResultType(s->outer_ps)->natts ||
		natts != s->nouter + s->ninner)
		elog(ERROR, "AsOfJoin scan tuple does not match its children");

	outer_keys = (List *) list_nth(cscan->custom_exprs, ASOF_EXPR_OUTER_KEYS);
	tol_bounds = (List *) list_nth(cscan->custom_exprs, ASOF_EXPR_TOL_BOUNDS);
	joinquals = (List *) list_nth(cscan->custom_exprs, ASOF_EXPR_JOINQUALS);

	s->outer_key = palloc0(sizeof(ExprState *) * Max(s->nkeys, 1));
	s->key_cmp = palloc0(sizeof(AsOfCmp) * Max(s->nkeys, 1));
	s->inner_key_attno = palloc0(sizeof(AttrNumber) * Max(s->nkeys, 1));
	s->okeys = palloc0(sizeof(Datum) * Max(s->nkeys, 1));
	s->tol_bound = palloc0(sizeof(ExprState *) * Max(s->ntol, 1));
	s->tol_cmp = palloc0(sizeof(AsOfCmp) * Max(s->ntol, 1));
	s->tol_strict = palloc0(sizeof(bool) * Max(s->ntol, 1));

	i = 0;
	foreach(lc, outer_keys)
	{
		s->outer_key[i] = ExecInitExpr((Expr *) lfirst(lc), &node->ss.ps);
		s->inner_key_attno[i] = list_nth_int(attnos, i);
		asof_init_cmp(&s->key_cmp[i],
					  list_nth_oid(cmps, i * ASOF_CMP_WIDTH),
					  list_nth_oid(cmps, i * ASOF_CMP_WIDTH + 1),
					  list_nth_oid(cmps, i * ASOF_CMP_WIDTH + 2),
					  list_nth_oid(cmps, i * ASOF_CMP_WIDTH + 3));
		i++;
	}
	Assert(i == s->nkeys);

	s->outer_time = ExecInitExpr((Expr *) linitial(list_nth(cscan->custom_exprs,
															ASOF_EXPR_OUTER_TIME)),
								 &node->ss.ps);
	s->inner_time_attno = list_nth_int(attnos, s->nkeys);
	asof_init_cmp(&s->time_cmp,
				  list_nth_oid(cmps, s->nkeys * ASOF_CMP_WIDTH),
				  list_nth_oid(cmps, s->nkeys * ASOF_CMP_WIDTH + 1),
				  list_nth_oid(cmps, s->nkeys * ASOF_CMP_WIDTH + 2),
				  list_nth_oid(cmps, s->nkeys * ASOF_CMP_WIDTH + 3));

	i = 0;
	foreach(lc, tol_bounds)
	{
		int			c = (s->nkeys + 1 + i) * ASOF_CMP_WIDTH;

		s->tol_bound[i] = ExecInitExpr((Expr *) lfirst(lc), &node->ss.ps);
		s->tol_strict[i] = list_nth_int(meta, ASOF_META_TOL_STRICT + i) != 0;
		asof_init_cmp(&s->tol_cmp[i],
					  list_nth_oid(cmps, c), list_nth_oid(cmps, c + 1),
					  list_nth_oid(cmps, c + 2), list_nth_oid(cmps, c + 3));
		i++;
	}
	Assert(i == s->ntol);

	s->joinqual = joinquals ? ExecInitQual(joinquals, &node->ss.ps) : NULL;

	s->best_slot = ExecInitExtraTupleSlot(estate,
										  ExecGetResultType(s->inner_ps),
										  &TTSOpsMinimalTuple);

	s->hashed = list_nth_int(meta, ASOF_META_HASHED) != 0;
	if (s->hashed)
	{
		List	   *hashinfo = (List *) lfourth(cscan->custom_private);
		FmgrInfo   *hashfunctions = palloc0(sizeof(FmgrInfo) * s->nkeys);
		Oid		   *eqfuncs = palloc0(sizeof(Oid) * s->nkeys);
		Oid		   *collations = palloc0(sizeof(Oid) * s->nkeys);

		for (i = 0; i < s->nkeys; i++)
		{
			fmgr_info(list_nth_oid(hashinfo, 2 * i), &hashfunctions[i]);
			eqfuncs[i] = list_nth_oid(hashinfo, 2 * i + 1);
			collations[i] = list_nth_oid(cmps, i * ASOF_CMP_WIDTH + 3);
		}
		s->hashcxt = AllocSetContextCreate(CurrentMemoryContext,
										   "AsOfJoin versions",
										   ALLOCSET_DEFAULT_SIZES);
		s->hashtable = BuildTupleHashTableExt(&node->ss.ps,
											  ExecGetResultType(s->inner_ps),
											  s->nkeys, s->inner_key_attno,
											  eqfuncs, hashfunctions,
											  collations, 256, 0,
											  CurrentMemoryContext,
											  s->hashcxt,
											  node->ss.ps.ps_ExprContext->ecxt_per_tuple_memory,
											  false);
		s->probe_slot = ExecInitExtraTupleSlot(estate,
											   ExecGetResultType(s->inner_ps),
											   &TTSOpsVirtual);
		s->match_slot = ExecInitExtraTupleSlot(estate,
											   ExecGetResultType(s->inner_ps),
											   &TTSOpsMinimalTuple);
	}
	s->next = NULL;
	s->inner_done = false;
	s->have_best = false;
	s->best_is_next = false;
	s->best_bytes = 0;
	wj_state_reset(&s->stats, false);
}

/* Read the next inner row into s->next */
static void
asof_fetch_inner(AsOfJoinState *s)
{
	TupleTableSlot *slot = ExecProcNode(s->inner_ps);

	s->best_is_next = false;
	if (TupIsNull(slot))
	{
		s->next = NULL;
		s->inner_done = true;
	}
	else
		s->next = slot;
}

/* True if the inner row has a NULL key or time: it can never match */
static bool
asof_inner_has_nulls(AsOfJoinState *s, TupleTableSlot *inner)
{
	bool		isnull;
	int			i;

	for (i = 0; i < s->nkeys; i++)
	{
		(void) slot_getattr(inner, s->inner_key_attno[i], &isnull);
		if (isnull)
			return true;
	}
	(void) slot_getattr(inner, s->inner_time_attno, &isnull);
	return isnull;
}

/*
 * asof_peek_inner
 *		The current inner row (s->next), reading on past rows with a NULL key
 *		or time, which never match; NULL when the inner side is exhausted.
 */
static TupleTableSlot *
asof_peek_inner(AsOfJoinState *s)
{
	for (;;)
	{
		CHECK_FOR_INTERRUPTS();
		if (s->next == NULL)
		{
			if (s->inner_done)
				return NULL;
			asof_fetch_inner(s);
		}
		else if (asof_inner_has_nulls(s, s->next))
			asof_fetch_inner(s);
		else
			return s->next;
	}
}

/* Compare the current outer keys with an inner row's (no NULLs there) */
static int
asof_compare_keys(AsOfJoinState *s, TupleTableSlot *inner)
{
	int			i;

	for (i = 0; i < s->nkeys; i++)
	{
		bool		isnull;
		Datum		d = slot_getattr(inner, s->inner_key_attno[i], &isnull);
		int			c = asof_compare(&s->key_cmp[i], s->okeys[i], d);

		if (c != 0)
			return c;
	}
	return 0;
}

/* Compare the current outer time with an inner row's */
static int
asof_compare_time(AsOfJoinState *s, TupleTableSlot *inner)
{
	bool		isnull;
	Datum		d = slot_getattr(inner, s->inner_time_attno, &isnull);

	return asof_compare(&s->time_cmp, s->otime, d);
}

/* Make a copy of an inner row the current version */
static void
asof_keep(AsOfJoinState *s, TupleTableSlot *inner)
{
	int64		bytes;

	ExecCopySlot(s->best_slot, inner);
	bytes = ((MinimalTupleTableSlot *) s->best_slot)->mintuple->t_len;
	if (s->have_best)
		wj_state_remove(&s->stats, s->best_bytes);
	wj_state_add(&s->stats, bytes);
	s->best_bytes = bytes;
	s->have_best = true;
}

/* Forget the current version */
static void
asof_forget(AsOfJoinState *s)
{
	if (s->have_best)
	{
		wj_state_remove(&s->stats, s->best_bytes);
		ExecClearTuple(s->best_slot);
	}
	s->have_best = false;
	s->best_is_next = false;
	s->best_bytes = 0;
}

/*
 * asof_backward
 *		The latest version with the outer keys and time <= (<) outer time.
 */
static TupleTableSlot *
asof_backward(AsOfJoinState *s)
{
	if (s->have_best && asof_compare_keys(s, s->best_slot) != 0)
		asof_forget(s);

	for (;;)
	{
		int			c;

		if (asof_peek_inner(s) == NULL)
			break;
		c = asof_compare_keys(s, s->next);
		if (c < 0)
			break;				/* a later key: wait for the outer side */
		if (c == 0)
		{
			int			tc = asof_compare_time(s, s->next);

			if (s->strict ? tc <= 0 : tc < 0)
				break;			/* a later version: keep it for later */
			asof_keep(s, s->next);
		}
		asof_fetch_inner(s);
	}
	return s->have_best ? s->best_slot : NULL;
}

/*
 * asof_forward
 *		The earliest version with the outer keys and time >= (>) outer time.
 */
static TupleTableSlot *
asof_forward(AsOfJoinState *s)
{
	for (;;)
	{
		int			c;
		int			tc;

		if (asof_peek_inner(s) == NULL)
			return NULL;
		c = asof_compare_keys(s, s->next);
		if (c < 0)
			return NULL;		/* no version of this key at or after */
		if (c == 0)
		{
			tc = asof_compare_time(s, s->next);
			if (s->strict ? tc < 0 : tc <= 0)
			{
				/* the match; it may serve later outer rows too */
				if (!s->best_is_next)
				{
					asof_keep(s, s->next);
					s->best_is_next = true;
				}
				return s->best_slot;
			}
		}
		asof_fetch_inner(s);
		asof_forget(s);
	}
}

/*
 * asof_key_slot
 *		Store key values in the probe slot, at the inner key columns; the
 *		other columns are NULL.  This is what the hash table hashes,
 *		compares and keeps as the representative of a key.
 */
static TupleTableSlot *
asof_key_slot(AsOfJoinState *s, Datum *keys)
{
	TupleTableSlot *slot = s->probe_slot;
	int			i;

	ExecClearTuple(slot);
	memset(slot->tts_isnull, true,
		   slot->tts_tupleDescriptor->natts * sizeof(bool));
	for (i = 0; i < s->nkeys; i++)
	{
		slot->tts_values[s->inner_key_attno[i] - 1] = keys[i];
		slot->tts_isnull[s->inner_key_attno[i] - 1] = false;
	}
	return ExecStoreVirtualTuple(slot);
}

/*
 * asof_hash_put
 *		Make the inner row the current version of its key.
 */
static void
asof_hash_put(AsOfJoinState *s, TupleTableSlot *inner)
{
	Datum	   *keys = palloc(sizeof(Datum) * s->nkeys);
	TupleHashEntry entry;
	MemoryContext oldcxt;
	MinimalTuple old;
	MinimalTuple copy;
	bool		isnew;
	bool		isnull;
	int			i;

	for (i = 0; i < s->nkeys; i++)
		keys[i] = slot_getattr(inner, s->inner_key_attno[i], &isnull);
	entry = LookupTupleHashEntry(s->hashtable, asof_key_slot(s, keys),
								 &isnew, NULL);
	pfree(keys);

	oldcxt = MemoryContextSwitchTo(s->hashcxt);
	copy = ExecCopySlotMinimalTuple(inner);
	MemoryContextSwitchTo(oldcxt);

	old = isnew ? NULL : (MinimalTuple) entry->additional;
	if (old != NULL)
	{
		wj_state_remove(&s->stats, old->t_len);
		pfree(old);
	}
	entry->additional = copy;
	wj_state_add(&s->stats, copy->t_len);
}

/*
 * asof_hashed
 *		Time-ordered sweep: take every version up to the outer time (from
 *		it on, looking forward) into the table, then look up the outer keys.
 */
static TupleTableSlot *
asof_hashed(AsOfJoinState *s)
{
	TupleHashEntry entry;

	ExecClearTuple(s->match_slot);
	for (;;)
	{
		int			tc;

		if (asof_peek_inner(s) == NULL)
			break;
		tc = asof_compare_time(s, s->next);
		/* backward: version <= (<) outer; forward: version >= (>) outer */
		if (s->forward)
			tc = -tc;
		if (s->strict ? tc <= 0 : tc < 0)
			break;
		asof_hash_put(s, s->next);
		asof_fetch_inner(s);
	}

	entry = LookupTupleHashEntry(s->hashtable, asof_key_slot(s, s->okeys),
								 NULL, NULL);
	if (entry == NULL)
		return NULL;
	return ExecStoreMinimalTuple((MinimalTuple) entry->additional,
								 s->match_slot, false);
}

/*
 * asof_within_tolerance
 *		Check the match against the tolerance bounds of the outer row (in
 *		the scan slot).
 */
static bool
asof_within_tolerance(AsOfJoinState *s, TupleTableSlot *match,
					  ExprContext *econtext)
{
	bool		isnull;
	Datum		itime = slot_getattr(match, s->inner_time_attno, &isnull);
	int			i;

	for (i = 0; i < s->ntol; i++)
	{
		Datum		bound = ExecEvalExprSwitchContext(s->tol_bound[i], econtext,
													  &isnull);
		int			c;

		if (isnull)
			return false;
		c = asof_compare(&s->tol_cmp[i], bound, itime);
		/* backward: version >= (>) bound; forward: version <= (<) bound */
		if (s->forward)
			c = -c;
		if (c > 0 || (c == 0 && s->tol_strict[i]))
			return false;
	}
	return true;
}

/*
 * asof_form
 *		Store the outer row's columns in the scan slot, with NULLs for the
 *		inner columns.  The outer expressions are evaluated on this slot.
 */
static TupleTableSlot *
asof_form(AsOfJoinState *s, TupleTableSlot *outer)
{
	TupleTableSlot *scan = s->css.ss.ss_ScanTupleSlot;

	ExecClearTuple(scan);
	slot_getallattrs(outer);
	memcpy(scan->tts_values, outer->tts_values, s->nouter * sizeof(Datum));
	memcpy(scan->tts_isnull, outer->tts_isnull, s->nouter * sizeof(bool));
	memset(scan->tts_isnull + s->nouter, true, s->ninner * sizeof(bool));
	return ExecStoreVirtualTuple(scan);
}

/*
 * asof_set_inner
 *		Put the matching version's columns (or NULLs) in the scan slot.
 */
static void
asof_set_inner(AsOfJoinState *s, TupleTableSlot *scan, TupleTableSlot *inner)
{
	if (inner != NULL)
	{
		slot_getallattrs(inner);
		memcpy(scan->tts_values + s->nouter, inner->tts_values,
			   s->ninner * sizeof(Datum));
		memcpy(scan->tts_isnull + s->nouter, inner->tts_isnull,
			   s->ninner * sizeof(bool));
	}
	else
		memset(scan->tts_isnull + s->nouter, true, s->ninner * sizeof(bool));
}

/*
 * asof_next
 *		The next joined (or null-extended) row, in the scan slot.
 */
static TupleTableSlot *
asof_next(ScanState *ss)
{
	AsOfJoinState *s = (AsOfJoinState *) ss;
	ExprContext *econtext = ss->ps.ps_ExprContext;

	for (;;)
	{
		TupleTableSlot *outer;
		TupleTableSlot *match = NULL;
		TupleTableSlot *scan;
		bool		isnull;
		bool		anynull = false;
		int			i;

		CHECK_FOR_INTERRUPTS();
		ResetExprContext(econtext);

		outer = ExecProcNode(s->outer_ps);
		if (TupIsNull(outer))
			return ExecClearTuple(ss->ss_ScanTupleSlot);

		/* Outer expressions see the scan slot, where our expressions live */
		scan = asof_form(s, outer);
		econtext->ecxt_scantuple = scan;
		for (i = 0; i < s->nkeys; i++)
		{
			s->okeys[i] = ExecEvalExprSwitchContext(s->outer_key[i], econtext,
													&isnull);
			anynull |= isnull;
		}
		s->otime = ExecEvalExprSwitchContext(s->outer_time, econtext, &isnull);
		anynull |= isnull;

		if (anynull)
			match = NULL;
		else if (s->hashed)
			match = asof_hashed(s);
		else
			match = s->forward ? asof_forward(s) : asof_backward(s);
		if (match != NULL && s->ntol > 0 &&
			!asof_within_tolerance(s, match, econtext))
			match = NULL;

		if (match != NULL)
		{
			asof_set_inner(s, scan, match);
			if (s->joinqual != NULL && !ExecQual(s->joinqual, econtext))
			{
				match = NULL;
				asof_set_inner(s, scan, NULL);
			}
		}
		if (match == NULL && s->jointype != JOIN_LEFT)
			continue;			/* inner join: no version, no row */
		return scan;
	}
}

/*
 * asof_exec
 *		ExecCustomScan: the next row, filtered and projected.  This is
 *		ExecScan's loop without its EvalPlanQual branch: our children are
 *		ordinary plans whose scans substitute EvalPlanQual test tuples
 *		themselves, so like a NestLoop the node simply runs during a recheck
 *		(e.g. inside a sub-select of an UPDATE).  The planner adds no
 *		AsOfJoin at the level of an UPDATE, DELETE or FOR UPDATE.
 */
static TupleTableSlot *
asof_exec(CustomScanState *node)
{
	ExprContext *econtext = node->ss.ps.ps_ExprContext;
	ExprState  *qual = node->ss.ps.qual;
	ProjectionInfo *proj = node->ss.ps.ps_ProjInfo;

	for (;;)
	{
		TupleTableSlot *slot = asof_next(&node->ss);

		if (TupIsNull(slot))
		{
			if (proj != NULL)
				return ExecClearTuple(proj->pi_state.resultslot);
			return slot;
		}
		econtext->ecxt_scantuple = slot;
		if (qual == NULL || ExecQual(qual, econtext))
		{
			if (proj != NULL)
				return ExecProject(proj);
			return slot;
		}
		InstrCountFiltered1(node, 1);
	}
}

/*
 * asof_end
 *		EndCustomScan: shut down the children.
 */
static void
asof_end(CustomScanState *node)
{
	AsOfJoinState *s = (AsOfJoinState *) node;

	ExecEndNode(s->outer_ps);
	ExecEndNode(s->inner_ps);
}

/*
 * asof_rescan
 *		ReScanCustomScan: start over; the children restart too, now or (if
 *		parameters they depend on changed) at their next call.
 */
static void
asof_rescan(CustomScanState *node)
{
	AsOfJoinState *s = (AsOfJoinState *) node;
	ListCell   *lc;

	ExecScanReScan(&node->ss);
	asof_forget(s);
	if (s->hashed)
	{
		ResetTupleHashTable(s->hashtable);
		MemoryContextReset(s->hashcxt);
	}
	wj_state_reset(&s->stats, true);
	s->next = NULL;
	s->inner_done = false;

	foreach(lc, node->custom_ps)
	{
		PlanState  *child = (PlanState *) lfirst(lc);

		if (node->ss.ps.chgParam != NULL)
			UpdateChangedParamSet(child, node->ss.ps.chgParam);
		if (child->chgParam == NULL)
			ExecReScan(child);
	}
}

/* Deparse an expression list (implicitly ANDed) of the plan for EXPLAIN */
static char *
asof_deparse(List *exprs, List *context)
{
	Node	   *node = (list_length(exprs) == 1) ? (Node *) linitial(exprs) :
		(Node *) make_ands_explicit(exprs);

	return deparse_expression(node, context, true, false);
}

/*
 * asof_explain
 *		ExplainCustomScan: join type, keys, time condition, tolerance,
 *		direction, join filter, and under ANALYZE the peak state.
 */
static void
asof_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	AsOfJoinState *s = (AsOfJoinState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	List	   *meta = (List *) linitial(cscan->custom_private);
	List	   *context;
	List	   *show_keys;
	List	   *show_tol;
	List	   *joinquals;
	bool		forward = list_nth_int(meta, ASOF_META_FORWARD) != 0;
	JoinType	jointype = (JoinType) list_nth_int(meta, ASOF_META_JOINTYPE);

	context = set_deparse_context_plan(es->deparse_cxt, node->ss.ps.plan,
									   ancestors);
	show_keys = (List *) list_nth(cscan->custom_exprs, ASOF_EXPR_SHOW_KEYS);
	show_tol = (List *) list_nth(cscan->custom_exprs, ASOF_EXPR_SHOW_TOL);
	joinquals = (List *) list_nth(cscan->custom_exprs, ASOF_EXPR_JOINQUALS);

	ExplainPropertyText("Join Type",
						jointype == JOIN_LEFT ? "Left" : "Inner", es);
	if (show_keys != NIL)
	{
		List	   *keys = NIL;
		ListCell   *lc;

		foreach(lc, show_keys)
			keys = lappend(keys, asof_deparse(list_make1(lfirst(lc)), context));
		ExplainPropertyList("Keys", keys, es);
	}
	ExplainPropertyText("Time Cond",
						asof_deparse((List *) list_nth(cscan->custom_exprs,
													   ASOF_EXPR_SHOW_TIME),
									 context), es);
	if (show_tol != NIL)
		ExplainPropertyText("Tolerance", asof_deparse(show_tol, context), es);
	if (list_length(show_keys) > 0)
		ExplainPropertyText("Strategy",
							list_nth_int(meta, ASOF_META_HASHED) ?
							"hashed keys, inputs in time order" :
							"inputs sorted by keys and time", es);
	ExplainPropertyText("Direction",
						forward ? "forward (earliest version at or after)" :
						"backward (latest version at or before)", es);
	if (joinquals != NIL)
		ExplainPropertyText("Join Filter", asof_deparse(joinquals, context), es);
	wj_explain_state(&s->stats, es);
}
