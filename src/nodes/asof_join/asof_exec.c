/*-------------------------------------------------------------------------
 *
 * asof_join_exec.c
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
 * and the parallel ones), what every strategy shares (the inner stream
 * without rows that never match, comparisons, the scan tuple, the outer
 * row loop of the streamed strategies).  The sweep and its batches on
 * disk are in asof_sweep.c, the merge in asof_merge.c, the lookup in
 * asof_lookup.c, the parts of the nearest
 * direction both of those use in asof_nearest.c; asof_exec_internal.h
 * declares the state they share.
 *
 * src/nodes/asof_join/asof_join_exec.c
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

#include "asof.h"
#include "asof_exec_internal.h"
#include "exec_common.h"
#include "explain_common.h"
#include "pg_compat.h"
#include "state_stats.h"
#include "time_shift.h"
#include "windowjoin.h"

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
	s->split_part = -1;
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
	if (s->info.split_param >= 0)
		asof_set_split_param(s);	/* split_part -1: every version */
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
		{
			s->time_base = ExecInitExpr(base, &node->ss.ps);
			s->seen_slot = ExecInitExtraTupleSlot(estate,
												  ExecGetResultType(s->inner_ps),
												  &TTSOpsMinimalTuple);
			s->deferred_slot = ExecInitExtraTupleSlot(estate,
													  node->ss.ss_ScanTupleSlot->tts_tupleDescriptor,
													  &TTSOpsMinimalTuple);
		}
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

	s->best_slot = ExecInitExtraTupleSlot(estate,
										  ExecGetResultType(s->inner_ps),
										  &TTSOpsMinimalTuple);

	s->strategy = info->strategy;
	s->hashed = (s->strategy != ASOF_STRATEGY_MERGE);
	if (s->hashed)
	{
		FmgrInfo   *hashfunctions = palloc0(sizeof(FmgrInfo) * s->nkeys);
		Oid		   *eqfuncs = palloc0(sizeof(Oid) * s->nkeys);
		Oid		   *collations = palloc0(sizeof(Oid) * s->nkeys);
		TupleDesc	keydesc;
		AttrNumber *keycols;

		for (i = 0; i < s->nkeys; i++)
		{
			fmgr_info(info->key_hashfuncs[i], &hashfunctions[i]);
			eqfuncs[i] = info->key_eqfuncs[i];
			collations[i] = info->key_cmps[i].collation;
		}
		s->metacxt = AllocSetContextCreate(CurrentMemoryContext,
										   "AsOfJoin hash table",
										   ALLOCSET_DEFAULT_SIZES);
		/* blocks of at most a sixteenth of the limit: the sweep checks it */
		s->hashcxt = AllocSetContextCreate(s->metacxt,
										   "AsOfJoin versions",
										   ALLOCSET_DEFAULT_MINSIZE,
										   ALLOCSET_DEFAULT_INITSIZE,
										   Max(ALLOCSET_DEFAULT_INITSIZE,
											   Min(ALLOCSET_DEFAULT_MAXSIZE,
												   pg_prevpower2_size_t(get_hash_memory_limit() / 16))));
		/*
		 * The table is keyed by a tuple of the keys alone, one column per
		 * key, so that two keys on the same inner column (r.a = o.x AND
		 * r.a = o.y) are still two values, each compared with its own.
		 */
		keydesc = CreateTemplateTupleDesc(s->nkeys);
		keycols = palloc(sizeof(AttrNumber) * s->nkeys);
		for (i = 0; i < s->nkeys; i++)
		{
			TupleDescCopyEntry(keydesc, i + 1, ExecGetResultType(s->inner_ps),
							   s->inner_key_attno[i]);
			keycols[i] = i + 1;
		}
		s->hashtable = wj_build_tuple_hash_table(&node->ss.ps,
												 keydesc,
												 s->nkeys, keycols,
												 eqfuncs, hashfunctions,
												 collations, 256,
												 s->metacxt,
												 s->hashcxt,
												 node->ss.ps.ps_ExprContext->ecxt_per_tuple_memory,
												 false);
		s->probe_slot = ExecInitExtraTupleSlot(estate, keydesc,
											   &TTSOpsVirtual);
		s->match_slot = ExecInitExtraTupleSlot(estate,
											   ExecGetResultType(s->inner_ps),
											   &TTSOpsMinimalTuple);
		s->ikeys = palloc0(sizeof(Datum) * s->nkeys);
	}
	if (s->strategy == ASOF_STRATEGY_LOOKUP)
	{
		TupleDesc	outerdesc = ExecGetResultType(s->outer_ps);
		Oid			time_opfamily = info->time_cmp.opfamily;
		Oid			time_outertype = info->time_cmp.outertype;

		s->mem_limit = get_hash_memory_limit();
		s->rec_header = MAXALIGN(s->ninner * (sizeof(Datum) + sizeof(bool)));
		/* the columns a shared record keeps as offsets (asof_shared.c) */
		s->inner_byref = palloc(sizeof(int) * Max(s->ninner, 1));
		s->ninner_byref = 0;
		for (i = 0; i < s->ninner; i++)
		{
			if (!TupleDescAttr(ExecGetResultType(s->inner_ps), i)->attbyval)
				s->inner_byref[s->ninner_byref++] = i;
		}
		s->image_values = palloc(sizeof(Datum) * Max(s->ninner, 1));
		s->dense_ptr = NULL;
		s->dense_free = 0;
		s->dense_next = 0;
		s->time_int64 = s->time_cmp.use_ssup &&
			(s->time_cmp.ssup.comparator == ssup_datum_signed_cmp ||
			 s->time_cmp.ssup.comparator == ssup_datum_int32_cmp);
		asof_key_index_init(s, info);

		/* The fallback sorts the outer rows by time, like the sweep's plan */
		s->time_collation = info->time_cmp.collation;
		s->time_sortop = get_opfamily_member(time_opfamily, time_outertype,
											 time_outertype,
											 s->forward ?
											 BTGreaterStrategyNumber :
											 BTLessStrategyNumber);
		if (!OidIsValid(s->time_sortop))
			elog(ERROR, "missing sort operator for type %u in opfamily %u",
				 time_outertype, time_opfamily);
		s->sort_desc = CreateTemplateTupleDesc(s->nouter + 1);
		for (i = 0; i < s->nouter; i++)
			TupleDescCopyEntry(s->sort_desc, i + 1, outerdesc, i + 1);
		TupleDescInitEntry(s->sort_desc, s->nouter + 1, "asof_time",
						   time_outertype, -1, 0);
		TupleDescInitEntryCollation(s->sort_desc, s->nouter + 1,
									s->time_collation);
		s->sort_in_slot = ExecInitExtraTupleSlot(estate, s->sort_desc,
												 &TTSOpsVirtual);
		s->sort_out_slot = ExecInitExtraTupleSlot(estate, s->sort_desc,
												  &TTSOpsMinimalTuple);

		s->probes = palloc0(sizeof(AsOfProbe) * ASOF_BATCH);
		s->batch_values = palloc(sizeof(Datum) * ASOF_BATCH * s->nouter);
		s->batch_isnull = palloc(sizeof(bool) * ASOF_BATCH * s->nouter);
		s->batch_econtext = CreateExprContext(estate);
		s->ahead_slot = ExecInitExtraTupleSlot(estate,
											   ExecGetResultType(s->outer_ps),
											   &TTSOpsVirtual);
	}
	s->ahead_cxt = NULL;
	asof_ahead_end(s);
	s->ahead_eof = false;
	s->ahead_total = 0;
	s->batch_n = 0;
	s->batch_pos = 0;
	s->batch_size = 1;
	s->outer_done = false;
	s->loaded = false;
	s->fallback = false;
	s->fell_back = false;
	s->outer_sort = NULL;
	s->next = NULL;
	s->inner_done = false;
	s->have_best = false;
	s->best_is_next = false;
	s->best_bytes = 0;
	s->seen_valid = false;
	s->deferred = NULL;
	s->drained = false;
	wj_state_reset(&s->stats, false);
	if (info->nearest)
		asof_nearest_begin(s, estate);
}

/* Read the next inner row into s->next */
void
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
	return isnull && !s->near_keep_nulls;
}

/*
 * asof_keep_null_time
 *		Do rows with a NULL time (and keys) stay in the inner stream?  They
 *		never match, but they are versions of their keys for which
 *		PostgreSQL's plan evaluates the outer time: the lookup strategy
 *		evaluates it only for keys that have versions, and a shifted time
 *		out of range needs the same knowledge.
 */
static inline bool
asof_keep_null_time(AsOfJoinState *s)
{
	return s->has_shift || s->near_keep_nulls ||
		(s->strategy == ASOF_STRATEGY_LOOKUP && !s->fallback);
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
 *		Store key values in the probe slot, key i in column i + 1 (never
 *		NULL).  This is what the hash table hashes, compares and keeps as
 *		the representative of a key.
 */
TupleTableSlot *
asof_key_slot(AsOfJoinState *s, Datum *keys)
{
	TupleTableSlot *slot = s->probe_slot;

	ExecClearTuple(slot);
	memcpy(slot->tts_values, keys, s->nkeys * sizeof(Datum));
	memset(slot->tts_isnull, false, s->nkeys * sizeof(bool));
	return ExecStoreVirtualTuple(slot);
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
 * asof_fetch_outer
 *		The next outer row: those read ahead while waiting for the shared
 *		versions (asof_shared.c) first, in the order read, then the outer
 *		child's.  NULL at the end.  (The lookup's batches take the rows
 *		read ahead as they are, asof_lookup_fill.)
 */
TupleTableSlot *
asof_fetch_outer(AsOfJoinState *s)
{
	if (s->ahead_pos < s->ahead_n)
	{
		TupleTableSlot *slot = s->ahead_slot;

		ExecClearTuple(slot);
		asof_ahead_take(s, slot->tts_values, slot->tts_isnull);
		return ExecStoreVirtualTuple(slot);
	}
	/* the last of them, returned before, is done with */
	if (s->ahead_cxt != NULL)
		asof_ahead_end(s);
	if (s->ahead_eof)
		return NULL;
	return ExecProcNode(s->outer_ps);
}

/*
 * asof_ahead_take
 *		Copy the next row read ahead to values/isnull; its by-reference
 *		values stay where they are, in ahead_cxt.
 */
void
asof_ahead_take(AsOfJoinState *s, Datum *values, bool *isnull)
{
	Assert(s->ahead_pos < s->ahead_n);
	memcpy(values, s->ahead_values + s->ahead_pos * s->nouter,
		   s->nouter * sizeof(Datum));
	memcpy(isnull, s->ahead_isnull + s->ahead_pos * s->nouter,
		   s->nouter * sizeof(bool));
	s->ahead_pos++;
}

/*
 * asof_ahead_end
 *		Free the outer rows read ahead (all returned and done with, or a
 *		rescan).
 */
void
asof_ahead_end(AsOfJoinState *s)
{
	if (s->ahead_cxt != NULL)
		MemoryContextDelete(s->ahead_cxt);
	s->ahead_cxt = NULL;
	s->ahead_values = NULL;
	s->ahead_isnull = NULL;
	s->ahead_n = 0;
	s->ahead_pos = 0;
	s->ahead_cap = 0;
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
 * asof_lookup_discard
 *		Forget the table's contents (versions or current versions).
 */
void
asof_lookup_discard(AsOfJoinState *s)
{
	ResetTupleHashTable(s->hashtable);
	MemoryContextReset(s->hashcxt);
	s->keyidx = NULL;
	s->in_images = false;
	s->dense_ptr = NULL;
	s->dense_free = 0;
	s->dense_next = 0;
	s->rec_relative = false;
	s->blocks = NULL;
	s->block_used = NULL;
	s->nblocks = 0;
	s->maxblocks = 0;
	wj_state_clear(&s->stats);
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
 * asof_next_streamed
 *		Merge and sweep strategies: the next outer row (from the outer child,
 *		or from the lookup's fallback sort), in the scan slot, with the
 *		version the merge or the sweep finds in *values and *nulls, NULL if
 *		none.  Returns NULL when the outer rows are exhausted.
 *
 * The outer time is evaluated only for rows whose keys are not NULL.  A
 * row whose shifted time is out of range raises its error only if its
 * keys have some version (which PostgreSQL's plan compares it with): the
 * merge knows that at once, the sweep sets the row aside until the end.
 */
TupleTableSlot *
asof_next_streamed(AsOfJoinState *s, Datum **values, bool **nulls)
{
	ExprContext *econtext = s->css.ss.ps.ps_ExprContext;
	TupleTableSlot *outer;
	TupleTableSlot *match = NULL;
	TupleTableSlot *scan;
	bool		isnull;
	bool		anynull;
	int			i;

	*values = NULL;
	*nulls = NULL;
	for (;;)
	{
		CHECK_FOR_INTERRUPTS();
		if (s->outer_sort != NULL)
		{
			outer = s->sort_out_slot;
			if (!tuplesort_gettupleslot(s->outer_sort, true, false, outer,
										NULL))
				outer = NULL;
		}
		else
			outer = asof_fetch_outer(s);
		if (TupIsNull(outer))
		{
			if (s->deferred != NULL)
				return asof_next_deferred(s);
			return NULL;
		}

		/* Outer expressions see the scan slot, where our expressions live */
		scan = asof_form(s, outer);
		econtext->ecxt_scantuple = scan;
		anynull = false;
		for (i = 0; i < s->nkeys; i++)
		{
			s->okeys[i] = ExecEvalExprSwitchContext(s->outer_key[i], econtext,
													&isnull);
			anynull |= isnull;
		}
		if (anynull)
			return scan;		/* matches nothing */
		if (s->nearest)
		{
			/* a shifted time out of range: an error if the keys have versions */
			if (!asof_outer_time(s, econtext, &isnull))
			{
				if (asof_nearest_key_seen(s))
					asof_raise_time(s, econtext);
				return scan;
			}
			s->near_time_null = isnull;
			match = asof_nearest_merge(s, econtext);
			break;
		}
		if (!asof_outer_time(s, econtext, &isnull))
		{
			/* a shifted time out of range */
			if (s->hashed)
			{
				if (s->deferred == NULL)
				{
					MemoryContext oldcxt;

					oldcxt = MemoryContextSwitchTo(s->css.ss.ps.state->es_query_cxt);
					s->deferred = tuplestore_begin_heap(false, false, work_mem);
					MemoryContextSwitchTo(oldcxt);
				}
				tuplestore_puttupleslot(s->deferred, scan);
				ResetExprContext(econtext);
				continue;
			}
			if (asof_merge_key_seen(s))
				asof_raise_time(s, econtext);
			return scan;
		}
		if (isnull)
			return scan;
		break;
	}

	if (s->nearest)
		;						/* found above */
	else if (s->hashed)
		match = asof_hashed(s);
	else
		match = s->forward ? asof_forward(s) : asof_backward(s);
	if (match != NULL)
	{
		slot_getallattrs(match);
		*values = match->tts_values;
		*nulls = match->tts_isnull;
	}
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
	bool		lookup;

	if (wj_leader_leaves_share(&s->leader, &ss->ps))
	{
		if (s->strategy == ASOF_STRATEGY_LOOKUP && !s->loaded)
			asof_shared_load_for_workers(s);
		return ExecClearTuple(ss->ss_ScanTupleSlot);
	}
	if (s->strategy == ASOF_STRATEGY_LOOKUP && !s->loaded)
		asof_shared_load(s);
	lookup = (s->strategy == ASOF_STRATEGY_LOOKUP && !s->fallback);

	for (;;)
	{
		TupleTableSlot *scan;
		Datum	   *values;
		bool	   *nulls;

		CHECK_FOR_INTERRUPTS();
		ResetExprContext(econtext);

		if (lookup)
			scan = asof_next_looked_up(s, &values, &nulls);
		else if (s->hashed && !s->nearest)
			scan = asof_sweep_next(s, &values, &nulls);
		else
			scan = asof_next_streamed(s, &values, &nulls);
		if (scan == NULL)
			return ExecClearTuple(ss->ss_ScanTupleSlot);
		econtext->ecxt_scantuple = scan;

		if (values != NULL && s->ntol > 0 && !s->nearest &&
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
 *		EndCustomScan: shut down the children.
 */
static void
asof_join_end(CustomScanState *node)
{
	AsOfJoinState *s = (AsOfJoinState *) node;

	if (s->outer_sort != NULL)
	{
		tuplesort_end(s->outer_sort);
		s->outer_sort = NULL;
	}
	if (s->deferred != NULL)
	{
		tuplestore_end(s->deferred);
		s->deferred = NULL;
	}
	asof_sweep_reset(s);
	asof_ahead_end(s);
	ExecEndNode(s->outer_ps);
	ExecEndNode(s->inner_ps);
}

/*
 * asof_join_rescan
 *		ReScanCustomScan: start over; the children restart too, now or (if
 *		parameters they depend on changed) at their next call.  Like a Hash
 *		Join, the lookup strategy keeps its loaded versions when the inner
 *		child's parameters did not change (the planner gives it none).
 */
static void
asof_join_rescan(CustomScanState *node)
{
	AsOfJoinState *s = (AsOfJoinState *) node;
	bool		keep;

	ExecScanReScan(&node->ss);
	asof_forget(s);
	asof_nearest_forget(s);
	if (s->outer_sort != NULL)
	{
		tuplesort_end(s->outer_sort);
		s->outer_sort = NULL;
	}
	if (node->ss.ps.chgParam != NULL)
	{
		UpdateChangedParamSet(s->outer_ps, node->ss.ps.chgParam);
		UpdateChangedParamSet(s->inner_ps, node->ss.ps.chgParam);
	}

	if (s->deferred != NULL)
	{
		tuplestore_end(s->deferred);
		s->deferred = NULL;
	}
	s->drained = false;
	asof_sweep_reset(s);
	s->seen_valid = false;
	if (s->seen_slot != NULL)
		ExecClearTuple(s->seen_slot);
	s->batch_n = 0;
	s->batch_pos = 0;
	s->batch_size = 1;
	s->outer_done = false;
	asof_ahead_end(s);
	s->ahead_eof = false;
	s->leader.asked = false;
	keep = (s->strategy == ASOF_STRATEGY_LOOKUP && s->loaded &&
			!s->fallback && s->inner_ps->chgParam == NULL &&
			!s->in_images);
	if (!keep)
	{
		if (s->hashed)
			asof_lookup_discard(s);
		wj_state_reset(&s->stats, true);
		s->next = NULL;
		s->inner_done = false;
		s->loaded = false;
		s->fallback = false;
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
		int			strategy = s->info.strategy;

		ExplainPropertyText("Strategy",
							strategy == ASOF_STRATEGY_LOOKUP ?
							"versions hashed by keys, outer rows looked up" :
							strategy == ASOF_STRATEGY_SWEEP ?
							"hashed keys, inputs in time order" :
							"inputs sorted by keys and time", es);
		if (strategy == ASOF_STRATEGY_LOOKUP && es->verbose)
			ExplainPropertyText("Key Lookup",
								s->key_image != NULL ? "by image" :
								"by hash and equality functions", es);
		if (strategy == ASOF_STRATEGY_LOOKUP &&
			node->ss.ps.plan->parallel_aware)
		{
			bool		shared = s->info.share_versions && s->time_int64;
			bool		split = shared && s->info.split_param >= 0;

			/* a split load sorts each key's versions itself, on a Sort's input */
			ExplainPropertyText("Versions", split ?
								psprintf("loaded once in %d key partitions%s, shared by the participants",
										 s->info.split_parts,
										 IsA(s->inner_ps, SortState) ?
										 ", sorted per key in place of the Sort below" :
										 "") :
								shared ?
								"loaded once, shared by the participants" :
								"loaded by each participant", es);
			if (es->analyze && shared && !split)
				ExplainPropertyInteger("Outer Rows Read Ahead", NULL,
									   s->ahead_total, es);
		}
		if (es->analyze && strategy == ASOF_STRATEGY_LOOKUP)
		{
			if (s->fell_back)
			{
				char	   *msg;

				msg = psprintf("versions exceeded %zu kB: outer rows sorted by %s",
							   s->mem_limit / 1024,
							   s->nearest ? "keys and time" : "time");
				ExplainPropertyText("Fallback", msg, es);
			}
			else
				ExplainPropertyText("Fallback", "none", es);
		}
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
	if (s->hashed && !s->nearest)
		asof_sweep_explain(s, es);
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
 *		(state_stats.h).  The segment holds the
 *		AsOfShared, then the figures.
 */
static Size
asof_join_estimate_dsm(CustomScanState *node, ParallelContext *pcxt)
{
	return add_size(asof_shared_estimate(), wj_instr_estimate(pcxt));
}

static void
asof_join_initialize_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	AsOfJoinState *s = (AsOfJoinState *) node;

	s->leader.pcxt = pcxt;
	s->shared = (AsOfShared *) coordinate;
	asof_shared_init(s->shared);
	wj_instr_init_dsm(&s->pinstr, pcxt,
					  (char *) coordinate + asof_shared_estimate());
}

static void
asof_join_reinitialize_dsm(CustomScanState *node, ParallelContext *pcxt,
				void *coordinate)
{
	AsOfJoinState *s = (AsOfJoinState *) node;

	asof_shared_reinit(s->shared, node->ss.ps.state->es_query_dsa);
}

static void
asof_join_initialize_worker(CustomScanState *node, shm_toc *toc, void *coordinate)
{
	AsOfJoinState *s = (AsOfJoinState *) node;

	s->shared = (AsOfShared *) coordinate;
	wj_instr_init_worker(&s->pinstr,
						 (char *) coordinate + asof_shared_estimate());
}

static void
asof_join_shutdown(CustomScanState *node)
{
	AsOfJoinState *s = (AsOfJoinState *) node;

	wj_instr_shutdown(&s->pinstr, &node->ss.ps, &s->stats);

	/* the workers are done: the leader keeps their rows read ahead */
	if (s->shared != NULL && !IsParallelWorker())
		s->ahead_total = asof_shared_ahead_rows(s->shared);

	/* the segment and the DSA area go away, and the image with them */
	s->leader.pcxt = NULL;
	s->shared = NULL;
	if (s->in_images)
	{
		asof_lookup_discard(s);
		s->loaded = false;
	}
}
