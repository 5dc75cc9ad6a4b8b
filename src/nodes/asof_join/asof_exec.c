/*-------------------------------------------------------------------------
 *
 * asof_exec.c
 *	  Executor side of the AsOfJoin custom scan: joins each outer row with
 *	  the version of a history valid at its time.
 *
 * Each outer row joins the version valid at its time: the latest version
 * of the same key with version_time <= outer_time (or <; "backward"), or
 * the earliest one with version_time >= outer_time (or >; "forward"),
 * optionally limited by a tolerance bound.  At most one version per outer
 * row, so this is a join that never multiplies rows.
 *
 * Three strategies, chosen by the planner:
 *
 * lookup (every key hashable and of the same type on both sides, and the
 *	versions expected to fit in work_mem * hash_mem_multiplier, like a Hash
 *	Join's table): the inner child arrives sorted as for the sweep below;
 *	every version is appended, in that order, to the array of its key in a
 *	TupleHashTable, so each array is in time order.  The outer child is not
 *	sorted at all: each outer row is answered in its scan order by a binary
 *	search in its key's array for the last version reached by its time,
 *	the very version the sweep would keep (ties included).  Rows are
 *	answered in batches whose cache misses overlap (see AsOfProbe).  The
 *	state is every version, bounded by the memory limit: if the versions
 *	exceed it while loading, the node falls back at run time to the sweep,
 *	restarting the inner child and sorting the outer rows by time itself
 *	(tuplesort, spilling within work_mem).  On rescan the versions are kept
 *	unless the inner child's parameters changed.
 *
 * sweep (the same keys when the versions are expected not to fit): both
 *	children arrive sorted by time alone (descending when looking forward),
 *	the inner one also by its output columns as tie breakers.  Before each
 *	outer row (time t) every version with time <= t (>= t forward; strict
 *	for < and >) is read and becomes the current version of its key in a
 *	TupleHashTable; then the outer keys are looked up.  The state is one
 *	version per key seen so far, kept within work_mem * hash_mem_multiplier
 *	by moving keys to batches on disk (asof_sweep.c), so the output has
 *	no order.  Sorting by a timestamp is much cheaper
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
 * nearest (ORDER BY version_time <-> outer_time with btree_gist's distance,
 * see asof_nearest_merge and the comment above it): the closest version
 * before or after, the earlier at equal distance, with the merge (which
 * also keeps the next version ahead) or the lookup (which looks at both
 * neighbours of the binary search's answer; its fallback sorts the outer
 * rows by keys and time and merges).  Both children are sorted by (keys,
 * time); there is no sweep.
 *
 * EXPLAIN shows the planned strategy and, under ANALYZE, whether the
 * lookup fell back.
 *
 * This file holds the node's callbacks (begin, exec, end, rescan, EXPLAIN
 * and the parallel ones), which run the strategy chosen at begin through
 * its table of callbacks (AsOfStrategy), and what every strategy shares:
 * the inner stream without rows that never match, comparisons, the scan
 * tuple, the outer rows of the streamed strategies (asof_outer_next), the
 * hash table of keys of the sweep and the lookup, and the tolerance and
 * join filter applied to every strategy's match.  The merge is in
 * asof_merge.c, the sweep and its batches on disk in asof_sweep.c, the
 * lookup in asof_lookup.c (under a Gather also asof_shared.c, and
 * asof_key_index.c), the parts of the nearest direction the merge and the
 * lookup share in asof_nearest.c.  Calls go one way: from the strategies'
 * files to this one; this one reaches a strategy only through its table.
 * asof_exec_internal.h declares the state they share.
 *
 * src/nodes/asof_join/asof_exec.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/nbtree.h"
#include "access/parallel.h"
#include "access/tupdesc.h"
#include "catalog/pg_type.h"
#include "common/int.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "optimizer/optimizer.h"
#include "utils/date.h"
#include "utils/datum.h"
#include "utils/expandeddatum.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"
#include "utils/memutils.h"
#include "utils/sortsupport.h"
#include "utils/timestamp.h"
#include "utils/tuplesort.h"
#include "utils/tuplestore.h"

#include "src/common/exec_common.h"
#include "src/common/explain_common.h"
#include "src/common/pg_compat.h"
#include "src/common/state_stats.h"
#include "src/common/time_shift.h"
#include "src/nodes/asof_join/asof.h"
#include "src/nodes/asof_join/asof_exec_internal.h"

static Node *asof_join_create_state(CustomScan *cscan);
static void asof_join_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *asof_join_exec(CustomScanState *node);
static void asof_join_end(CustomScanState *node);
static void asof_join_rescan(CustomScanState *node);
static void asof_join_explain(CustomScanState *node, List *ancestors,
						 ExplainState *es);
static Size asof_join_estimate_dsm(CustomScanState *node, ParallelContext *pcxt);
static void asof_join_initialize_dsm(CustomScanState *node, ParallelContext *pcxt,
						   void *coordinate);
static void asof_join_reinitialize_dsm(CustomScanState *node, ParallelContext *pcxt,
							void *coordinate);
static void asof_join_initialize_worker(CustomScanState *node, shm_toc *toc,
							  void *coordinate);
static void asof_join_shutdown(CustomScanState *node);

CustomScanMethods wj_asof_scan_methods = {
	.CustomName = ASOF_NAME,
	.CreateCustomScanState = asof_join_create_state,
};

static CustomExecMethods asof_exec_methods = {
	.CustomName = ASOF_NAME,
	.BeginCustomScan = asof_join_begin,
	.ExecCustomScan = asof_join_exec,
	.EndCustomScan = asof_join_end,
	.ReScanCustomScan = asof_join_rescan,
	.ExplainCustomScan = asof_join_explain,
	.EstimateDSMCustomScan = asof_join_estimate_dsm,
	.InitializeDSMCustomScan = asof_join_initialize_dsm,
	.ReInitializeDSMCustomScan = asof_join_reinitialize_dsm,
	.InitializeWorkerCustomScan = asof_join_initialize_worker,
	.ShutdownCustomScan = asof_join_shutdown,
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
 * asof_join_create_state
 *		CreateCustomScanState: allocate our state node.
 */
static Node *
asof_join_create_state(CustomScan *cscan)
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
void
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

/*
 * asof_join_begin
 *		BeginCustomScan: start both children and prepare expressions and
 *		comparisons from the plan.
 */
static void
asof_join_begin(CustomScanState *node, EState *estate, int eflags)
{
	AsOfJoinState *s = (AsOfJoinState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	AsOfPlanInfo *info = &s->info;
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

	asof_info_from_private(cscan->custom_private, info);
	s->jointype = info->jointype;
	s->forward = info->forward;
	s->strict = info->strict;
	s->nouter = info->nouter;
	s->nkeys = info->nkeys;
	s->ntol = info->ntol;
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
		s->inner_key_attno[i] = info->key_attnos[i];
		asof_init_cmp(&s->key_cmp[i],
					  info->key_cmps[i].opfamily,
					  info->key_cmps[i].outertype,
					  info->key_cmps[i].innertype,
					  info->key_cmps[i].collation);
		i++;
	}
	Assert(i == s->nkeys);

	{
		Expr	   *texpr = (Expr *) linitial(list_nth(cscan->custom_exprs,
													   ASOF_EXPR_OUTER_TIME));
		Expr	   *base;

		s->outer_time = ExecInitExpr(texpr, &node->ss.ps);
		s->has_shift = wj_shift_match(texpr, &base, &s->shift);
		if (s->has_shift)
			s->time_base = ExecInitExpr(base, &node->ss.ps);
	}
	s->inner_time_attno = info->time_attno;
	asof_init_cmp(&s->time_cmp,
				  info->time_cmp.opfamily,
				  info->time_cmp.outertype,
				  info->time_cmp.innertype,
				  info->time_cmp.collation);

	i = 0;
	foreach(lc, tol_bounds)
	{
		AsOfCmpInfo *c = &info->tol_cmps[i];

		s->tol_bound[i] = ExecInitExpr((Expr *) lfirst(lc), &node->ss.ps);
		s->tol_strict[i] = info->tol_strict[i];
		asof_init_cmp(&s->tol_cmp[i],
					  c->opfamily, c->outertype, c->innertype, c->collation);
		i++;
	}
	Assert(i == s->ntol);

	s->joinqual = joinquals ? ExecInitQual(joinquals, &node->ss.ps) : NULL;

	s->next = NULL;
	s->inner_done = false;
	s->inner_reads = 0;
	wj_state_reset(&s->stats, false);
	if (info->nearest)
		asof_nearest_begin(s);

	/* the strategy, once for all */
	switch (info->strategy)
	{
		case ASOF_STRATEGY_MERGE:
			s->strategy = &asof_merge_strategy;
			break;
		case ASOF_STRATEGY_SWEEP:
			s->strategy = &asof_sweep_strategy;
			break;
		case ASOF_STRATEGY_LOOKUP:
			s->strategy = &asof_lookup_strategy;
			break;
		default:
			elog(ERROR, "unrecognized AsOfJoin strategy: %d", info->strategy);
	}
	s->sstate = s->strategy->begin(s, estate);
}

/* Read the next inner row into s->next */
void
asof_fetch_inner(AsOfJoinState *s)
{
	TupleTableSlot *slot = ExecProcNode(s->inner_ps);

	s->inner_reads++;
	if (TupIsNull(slot))
	{
		s->next = NULL;
		s->inner_done = true;
	}
	else
		s->next = slot;
}

/* True if the inner row has a NULL key: it can never match */
bool
asof_inner_key_null(AsOfJoinState *s, TupleTableSlot *inner)
{
	bool		isnull;
	int			i;

	for (i = 0; i < s->nkeys; i++)
	{
		(void) slot_getattr(inner, s->inner_key_attno[i], &isnull);
		if (isnull)
			return true;
	}
	return false;
}

/* True if the inner row has a NULL time */
bool
asof_inner_time_null(AsOfJoinState *s, TupleTableSlot *inner)
{
	bool		isnull;

	(void) slot_getattr(inner, s->inner_time_attno, &isnull);
	return isnull && !s->info.near_keep_nulls;
}

/*
 * asof_keep_null_time
 *		Do rows with a NULL time (and keys) stay in the inner stream?  They
 *		never match, but they are versions of their keys for which
 *		PostgreSQL's plan evaluates the outer time: the lookup strategy
 *		evaluates it only for keys that have versions, and a shifted time
 *		out of range needs the same knowledge (the lookup sets
 *		s->keep_null_times while it has not fallen back).
 */
static inline bool
asof_keep_null_time(AsOfJoinState *s)
{
	return s->has_shift || s->info.near_keep_nulls || s->keep_null_times;
}

/* True if the inner row is to be skipped: a NULL key or (see above) time */
static bool
asof_inner_has_nulls(AsOfJoinState *s, TupleTableSlot *inner)
{
	if (asof_inner_key_null(s, inner))
		return true;
	return !asof_keep_null_time(s) && asof_inner_time_null(s, inner);
}

/*
 * asof_peek_inner
 *		The current inner row (s->next), reading on past rows with a NULL key
 *		or time, which never match; NULL when the inner side is exhausted.
 *		Rows with a NULL time are kept when asof_keep_null_time says so.
 */
TupleTableSlot *
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
int
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
int
asof_compare_time(AsOfJoinState *s, TupleTableSlot *inner)
{
	bool		isnull;
	Datum		d = slot_getattr(inner, s->inner_time_attno, &isnull);

	return asof_compare(&s->time_cmp, s->otime, d);
}

/*
 * asof_key_slot
 *		Store key values in the table's probe slot, key i in column i + 1 (never
 *		NULL).  This is what the hash table hashes, compares and keeps as
 *		the representative of a key.
 */
TupleTableSlot *
asof_key_slot(AsOfJoinState *s, AsOfKeyTable *kt, Datum *keys)
{
	TupleTableSlot *slot = kt->probe_slot;

	ExecClearTuple(slot);
	memcpy(slot->tts_values, keys, s->nkeys * sizeof(Datum));
	memset(slot->tts_isnull, false, s->nkeys * sizeof(bool));
	return ExecStoreVirtualTuple(slot);
}

/*
 * asof_key_table_create
 *		The hash table of keys of the sweep and the lookup (AsOfKeyTable),
 *		keyed by a tuple of the keys alone, in contexts of its own.
 */
AsOfKeyTable *
asof_key_table_create(AsOfJoinState *s, EState *estate)
{
	AsOfPlanInfo *info = &s->info;
	PlanState  *ps = &s->css.ss.ps;
	AsOfKeyTable *kt = palloc0(sizeof(AsOfKeyTable));
	FmgrInfo   *hashfunctions = palloc0(sizeof(FmgrInfo) * s->nkeys);
	Oid		   *eqfuncs = palloc0(sizeof(Oid) * s->nkeys);
	Oid		   *collations = palloc0(sizeof(Oid) * s->nkeys);
	TupleDesc	keydesc;
	AttrNumber *keycols;
	int			i;

	for (i = 0; i < s->nkeys; i++)
	{
		fmgr_info(info->key_hashfuncs[i], &hashfunctions[i]);
		eqfuncs[i] = info->key_eqfuncs[i];
		collations[i] = info->key_cmps[i].collation;
	}
	kt->metacxt = AllocSetContextCreate(CurrentMemoryContext,
										"AsOfJoin hash table",
										ALLOCSET_DEFAULT_SIZES);
	/* blocks of at most a sixteenth of the limit: the sweep checks it */
	kt->hashcxt = AllocSetContextCreate(kt->metacxt,
										"AsOfJoin versions",
										ALLOCSET_DEFAULT_MINSIZE,
										ALLOCSET_DEFAULT_INITSIZE,
										Max(ALLOCSET_DEFAULT_INITSIZE,
											Min(ALLOCSET_DEFAULT_MAXSIZE,
												pg_prevpower2_size_t(get_hash_memory_limit() / 16))));

	/*
	 * The table is keyed by a tuple of the keys alone, one column per key,
	 * so that two keys on the same inner column (r.a = o.x AND r.a = o.y)
	 * are still two values, each compared with its own.
	 */
	keydesc = CreateTemplateTupleDesc(s->nkeys);
	keycols = palloc(sizeof(AttrNumber) * s->nkeys);
	for (i = 0; i < s->nkeys; i++)
	{
		TupleDescCopyEntry(keydesc, i + 1, ExecGetResultType(s->inner_ps),
						   s->inner_key_attno[i]);
		keycols[i] = i + 1;
	}
	kt->hashtable = wj_build_tuple_hash_table(ps,
											  keydesc,
											  s->nkeys, keycols,
											  eqfuncs, hashfunctions,
											  collations, 256,
											  kt->metacxt,
											  kt->hashcxt,
											  ps->ps_ExprContext->ecxt_per_tuple_memory,
											  false);
	kt->probe_slot = ExecInitExtraTupleSlot(estate, keydesc,
											&TTSOpsVirtual);
	kt->match_slot = ExecInitExtraTupleSlot(estate,
											ExecGetResultType(s->inner_ps),
											&TTSOpsMinimalTuple);
	kt->ikeys = palloc0(sizeof(Datum) * s->nkeys);
	return kt;
}

/*
 * asof_key_table_reset
 *		Empty the table: its entries and their versions leave the state.
 */
void
asof_key_table_reset(AsOfJoinState *s, AsOfKeyTable *kt)
{
	ResetTupleHashTable(kt->hashtable);
	MemoryContextReset(kt->hashcxt);
	wj_state_clear(&s->stats);
}

/*
 * asof_within_tolerance
 *		Check the match's time against the tolerance bounds of the outer
 *		row (in the scan slot).
 */
static bool
asof_within_tolerance(AsOfJoinState *s, Datum itime, ExprContext *econtext)
{
	bool		isnull;
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
TupleTableSlot *
asof_form_values(AsOfJoinState *s, Datum *values, bool *isnull)
{
	TupleTableSlot *scan = s->css.ss.ss_ScanTupleSlot;

	ExecClearTuple(scan);
	memcpy(scan->tts_values, values, s->nouter * sizeof(Datum));
	memcpy(scan->tts_isnull, isnull, s->nouter * sizeof(bool));
	memset(scan->tts_isnull + s->nouter, true, s->ninner * sizeof(bool));
	return ExecStoreVirtualTuple(scan);
}

TupleTableSlot *
asof_form(AsOfJoinState *s, TupleTableSlot *outer)
{
	slot_getallattrs(outer);
	return asof_form_values(s, outer->tts_values, outer->tts_isnull);
}

/*
 * asof_set_inner
 *		Put the matching version's columns (or NULLs) in the scan slot.
 */
static void
asof_set_inner(AsOfJoinState *s, TupleTableSlot *scan, Datum *values,
			   bool *isnull)
{
	if (values != NULL)
	{
		memcpy(scan->tts_values + s->nouter, values,
			   s->ninner * sizeof(Datum));
		memcpy(scan->tts_isnull + s->nouter, isnull,
			   s->ninner * sizeof(bool));
	}
	else
		memset(scan->tts_isnull + s->nouter, true, s->ninner * sizeof(bool));
}

/*
 * asof_outer_time
 *		Set s->otime to the outer time of the row in econtext's scan tuple.
 *		A shifted time is computed from its base: false (and no error) if
 *		it is out of range.
 */
static bool
asof_outer_time(AsOfJoinState *s, ExprContext *econtext, bool *isnull)
{
	Datum		base;

	if (!s->has_shift)
	{
		s->otime = ExecEvalExprSwitchContext(s->outer_time, econtext, isnull);
		return true;
	}
	base = ExecEvalExprSwitchContext(s->time_base, econtext, isnull);
	if (*isnull)
		return true;
	return wj_shift_apply(&s->shift, base, &s->otime);
}

/*
 * asof_raise_time
 *		The outer row's shifted time is out of range and PostgreSQL's plan
 *		would compute it: evaluate the expression, which raises its error.
 */
void
asof_raise_time(AsOfJoinState *s, ExprContext *econtext)
{
	bool		isnull;

	(void) ExecEvalExprSwitchContext(s->outer_time, econtext, &isnull);
	elog(ERROR, "AsOfJoin computed a shifted outer time that is in range");
}

/*
 * asof_outer_keys
 *		Evaluate the outer keys of the row in the scan slot into s->okeys;
 *		false if one is NULL.
 */
bool
asof_outer_keys(AsOfJoinState *s, ExprContext *econtext)
{
	bool		anynull = false;
	int			i;

	for (i = 0; i < s->nkeys; i++)
	{
		bool		isnull;

		s->okeys[i] = ExecEvalExprSwitchContext(s->outer_key[i], econtext,
												&isnull);
		anynull |= isnull;
	}
	return !anynull;
}

/*
 * asof_outer_next
 *		The streamed strategies (merge, sweep): the next outer row, from the
 *		outer child or from the lookup's sort of them (sorted, when it holds
 *		one), in the scan slot, with its keys in s->okeys and, if they are
 *		not NULL, its time in s->otime; *what says which of those it has.
 *		NULL when the outer rows are exhausted.
 *
 * The outer time is evaluated only for rows whose keys are not NULL.  A
 * shifted time out of range (ASOF_OUTER_TIME_OUT) raises its error only if
 * the keys have some version (which PostgreSQL's plan compares it with):
 * the merge knows that at once, the sweep sets the row aside until the end.
 */
TupleTableSlot *
asof_outer_next(AsOfJoinState *s, AsOfOuterSort *sorted, AsOfOuterRow *what)
{
	ExprContext *econtext = s->css.ss.ps.ps_ExprContext;
	TupleTableSlot *outer;
	TupleTableSlot *scan;
	bool		isnull;

	CHECK_FOR_INTERRUPTS();
	if (sorted != NULL && sorted->sort != NULL)
	{
		outer = sorted->slot;
		if (!tuplesort_gettupleslot(sorted->sort, true, false, outer, NULL))
			outer = NULL;
	}
	else
		outer = ExecProcNode(s->outer_ps);
	if (TupIsNull(outer))
		return NULL;

	/* Outer expressions see the scan slot, where our expressions live */
	scan = asof_form(s, outer);
	econtext->ecxt_scantuple = scan;
	if (!asof_outer_keys(s, econtext))
		*what = ASOF_OUTER_NULL_KEY;
	else if (!asof_outer_time(s, econtext, &isnull))
		*what = ASOF_OUTER_TIME_OUT;
	else
		*what = isnull ? ASOF_OUTER_NULL_TIME : ASOF_OUTER_READY;
	return scan;
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

	if (wj_leader_leaves_share(&s->leader, &ss->ps))
	{
		if (s->strategy->leave_share != NULL)
			s->strategy->leave_share(s, s->sstate);
		return ExecClearTuple(ss->ss_ScanTupleSlot);
	}

	for (;;)
	{
		TupleTableSlot *scan;
		Datum	   *values;
		bool	   *nulls;

		CHECK_FOR_INTERRUPTS();
		ResetExprContext(econtext);

		scan = s->strategy->next(s, s->sstate, &values, &nulls);
		if (scan == NULL)
			return ExecClearTuple(ss->ss_ScanTupleSlot);
		econtext->ecxt_scantuple = scan;

		if (values != NULL && s->ntol > 0 && s->near == NULL &&
			!asof_within_tolerance(s, values[s->inner_time_attno - 1],
								   econtext))
			values = NULL;

		if (values != NULL)
		{
			asof_set_inner(s, scan, values, nulls);
			if (s->joinqual != NULL && !ExecQual(s->joinqual, econtext))
			{
				values = NULL;
				asof_set_inner(s, scan, NULL, NULL);
			}
		}
		if (values == NULL && s->jointype != JOIN_LEFT)
			continue;			/* inner join: no version, no row */
		return scan;
	}
}

/*
 * asof_join_exec
 *		ExecCustomScan: the next row, filtered and projected.  This is
 *		ExecScan's loop without its EvalPlanQual branch: our children are
 *		ordinary plans whose scans substitute EvalPlanQual test tuples
 *		themselves, so like a NestLoop the node simply runs during a recheck
 *		(e.g. inside a sub-select of an UPDATE).  The planner adds no
 *		AsOfJoin at the level of an UPDATE, DELETE or FOR UPDATE.
 */
static TupleTableSlot *
asof_join_exec(CustomScanState *node)
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
 * asof_join_end
 *		EndCustomScan: end the strategy, shut down the children.
 */
static void
asof_join_end(CustomScanState *node)
{
	AsOfJoinState *s = (AsOfJoinState *) node;

	s->strategy->end(s, s->sstate);
	ExecEndNode(s->outer_ps);
	ExecEndNode(s->inner_ps);
}

/*
 * asof_join_rescan
 *		ReScanCustomScan: start over; the children restart too, now or (if
 *		parameters they depend on changed) at their next call.  The
 *		strategy starts over its own state; like a Hash Join, the lookup
 *		keeps its loaded versions when the inner child's parameters did
 *		not change (the planner gives it none), and the inner child then
 *		does not restart.
 */
static void
asof_join_rescan(CustomScanState *node)
{
	AsOfJoinState *s = (AsOfJoinState *) node;

	ExecScanReScan(&node->ss);
	if (node->ss.ps.chgParam != NULL)
	{
		UpdateChangedParamSet(s->outer_ps, node->ss.ps.chgParam);
		UpdateChangedParamSet(s->inner_ps, node->ss.ps.chgParam);
	}
	s->leader.asked = false;
	if (s->strategy->rescan(s, s->sstate))
	{
		/* the inner stream starts over */
		wj_state_reset(&s->stats, true);
		s->next = NULL;
		s->inner_done = false;
		if (s->inner_ps->chgParam == NULL)
			ExecReScan(s->inner_ps);
	}
	if (s->outer_ps->chgParam == NULL)
		ExecReScan(s->outer_ps);
}

/*
 * asof_join_explain
 *		ExplainCustomScan: join type, keys, time condition, tolerance,
 *		direction, join filter, and under ANALYZE the peak state.
 */
static void
asof_join_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	AsOfJoinState *s = (AsOfJoinState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	List	   *context;
	List	   *show_keys;
	List	   *show_tol;
	List	   *joinquals;
	bool		forward = s->info.forward;
	JoinType	jointype = s->info.jointype;

	context = set_deparse_context_plan(es->deparse_cxt, node->ss.ps.plan,
									   ancestors);
	show_keys = (List *) list_nth(cscan->custom_exprs, ASOF_EXPR_SHOW_KEYS);
	show_tol = (List *) list_nth(cscan->custom_exprs, ASOF_EXPR_SHOW_TOL);
	joinquals = (List *) list_nth(cscan->custom_exprs, ASOF_EXPR_JOINQUALS);

	wj_explain_join_type(jointype, es);
	if (show_keys != NIL)
	{
		List	   *keys = NIL;
		ListCell   *lc;

		foreach(lc, show_keys)
			keys = lappend(keys, wj_deparse_exprs(list_make1(lfirst(lc)), context));
		ExplainPropertyList("Join Keys", keys, es);
	}
	ExplainPropertyText("Time Cond",
						wj_deparse_exprs((List *) list_nth(cscan->custom_exprs,
														   ASOF_EXPR_SHOW_TIME),
										 context), es);
	if (show_tol != NIL)
		ExplainPropertyText("Tolerance", wj_deparse_exprs(show_tol, context), es);
	if (list_length(show_keys) > 0)
	{
		ExplainPropertyText("Strategy", s->strategy->label, es);
		if (s->strategy->explain != NULL)
			s->strategy->explain(s, s->sstate, es);
	}
	if (s->info.nearest)
		ExplainPropertyText("Direction",
							"nearest (closest version before or after, the earlier at equal distance)",
							es);
	else
		ExplainPropertyText("Direction",
							forward ? "forward (earliest version at or after)" :
							"backward (latest version at or before)", es);
	wj_explain_exprs("Join Filter", joinquals, context, es);
	wj_explain_state(&s->stats, es);
	if (s->strategy->explain_state != NULL)
		s->strategy->explain_state(s, s->sstate, es);
	wj_explain_workers(&s->pinstr, &node->ss.ps, &s->stats, es);
}

/*
 * asof_join_estimate_dsm, asof_join_initialize_dsm, asof_join_reinitialize_dsm, asof_join_initialize_worker,
 * asof_join_shutdown
 *		The parallel-aware plan of a partial path, under a Gather.  Every
 *		participant joins its share of the outer rows on its own; the
 *		lookup strategy loads the versions in each participant, or once for
 *		all when the copies would not fit (AsOfShared, asof_shared.c).
 *		Each worker's peak state and rows are collected for EXPLAIN ANALYZE
 *		(state_stats.h).  The segment holds the strategy's part (the
 *		lookup's AsOfShared), then the figures.
 */
static Size
asof_strategy_dsm_size(AsOfJoinState *s)
{
	return s->strategy->dsm_size != NULL ? s->strategy->dsm_size() : 0;
}

static Size
asof_join_estimate_dsm(CustomScanState *node, ParallelContext *pcxt)
{
	AsOfJoinState *s = (AsOfJoinState *) node;

	return add_size(asof_strategy_dsm_size(s), wj_instr_estimate(pcxt));
}

static void
asof_join_initialize_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	AsOfJoinState *s = (AsOfJoinState *) node;

	s->leader.pcxt = pcxt;
	if (s->strategy->dsm_init != NULL)
		s->strategy->dsm_init(s, s->sstate, coordinate, false);
	wj_instr_init_dsm(&s->pinstr, pcxt,
					  (char *) coordinate + asof_strategy_dsm_size(s));
}

static void
asof_join_reinitialize_dsm(CustomScanState *node, ParallelContext *pcxt,
				void *coordinate)
{
	AsOfJoinState *s = (AsOfJoinState *) node;

	if (s->strategy->dsm_reinit != NULL)
		s->strategy->dsm_reinit(s, s->sstate);
}

static void
asof_join_initialize_worker(CustomScanState *node, shm_toc *toc, void *coordinate)
{
	AsOfJoinState *s = (AsOfJoinState *) node;

	if (s->strategy->dsm_init != NULL)
		s->strategy->dsm_init(s, s->sstate, coordinate, true);
	wj_instr_init_worker(&s->pinstr,
						 (char *) coordinate + asof_strategy_dsm_size(s));
}

static void
asof_join_shutdown(CustomScanState *node)
{
	AsOfJoinState *s = (AsOfJoinState *) node;

	wj_instr_shutdown(&s->pinstr, &node->ss.ps, &s->stats);
	s->leader.pcxt = NULL;

	/* the segment and the DSA area go away */
	if (s->strategy->shutdown != NULL)
		s->strategy->shutdown(s, s->sstate);
}
