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
 *	by moving keys to batches on disk (src/asof_sweep.c), so the output has
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
 * src/asof_exec.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/nbtree.h"
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
#include "explain_common.h"
#include "state_stats.h"
#include "time_shift.h"
#include "windowjoin.h"

/* The versions the nearest merge keeps (near_slot[]) */
#define ASOF_NEAR_PREV	0		/* latest of the key at or before the time */
#define ASOF_NEAR_AHEAD 1		/* the next one read, not yet passed */
#define ASOF_NEAR_NULL	2		/* the key's last version with a NULL time */
#define ASOF_NEAR_FIRST 3		/* the key's earliest version read */

/*
 * Lookup strategy: the versions of one key, in the inner child's order
 * (time ascending looking backward, descending looking forward; tied
 * versions in tie-breaker order).  Each version is a record: its ninner
 * Datums, its ninner null flags, then copies of its by-reference values,
 * which the Datums point into.  Probes touch them at random, so they are
 * laid out to touch few cache lines: records packed densely into large
 * blocks, each time next to its record's address.  When the times compare
 * as integers (timestamp, timestamptz, date, integers) they are kept as
 * int64, fences[] holds every ASOF_FENCE-th of them and super[] every
 * ASOF_FENCE-th fence: the binary search runs over super[] (small enough
 * to stay in cache), then over one cache line of fences[], then over one
 * block of ASOF_FENCE versions.
 */
#define ASOF_FENCE		8
#define ASOF_DENSE_MIN		(8 * 1024)	/* first block; then doubling */
#define ASOF_DENSE_MAX		(1024 * 1024)

typedef struct AsOfVersion
{
	Datum		time;			/* version time (int64 if time_int64) */
	char	   *rec;			/* the record */
} AsOfVersion;

typedef struct AsOfVersions
{
	int			n;
	int			cap;
	AsOfVersion *v;				/* time and record side by side */
	int64	   *fences;			/* int64 times: v[0], v[8], ... */
	int64	   *super;			/* and v[0], v[64], ... */
	char	   *nullrec;		/* nearest: last version with a NULL time */
} AsOfVersions;

/*
 * The lookup strategy answers outer rows in batches of up to ASOF_BATCH
 * (the first batch of a scan is one row, each next one twice as large, so
 * that a LIMIT above the node reads few more outer rows than it needs), in
 * phases: find each row's key and (with int64 times) the block of
 * ASOF_FENCE versions holding its answer, asking the CPU to prefetch that
 * block; then find each row's version in its block and prefetch the
 * record; then return the rows one by one.  The versions are touched at
 * random and mostly miss the caches; this way the misses of a batch
 * overlap instead of stalling one after the other.
 */
#define ASOF_BATCH		128

typedef struct AsOfProbe
{
	AsOfVersions *vl;			/* the key's versions, NULL: no match */
	int64		t;				/* the outer time as int64 */
	int			from;			/* the fences or versions to search next: */
	int			to;				/* [from .. to-1] */
	Datum	   *rec;			/* the match, or NULL */
} AsOfProbe;

#if defined(__GNUC__) || defined(__clang__)
#define ASOF_PREFETCH(p)	__builtin_prefetch(p)
#else
#define ASOF_PREFETCH(p)	((void) (p))
#endif

static Node *asof_create_state(CustomScan *cscan);
static void asof_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *asof_exec(CustomScanState *node);
static void asof_end(CustomScanState *node);
static void asof_rescan(CustomScanState *node);
static void asof_explain(CustomScanState *node, List *ancestors,
						 ExplainState *es);
static void asof_nearest_begin(AsOfJoinState *s, CustomScan *cscan,
							   EState *estate);
static TupleTableSlot *asof_nearest_merge(AsOfJoinState *s,
										  ExprContext *econtext);
static void asof_nearest_probe(AsOfJoinState *s, struct AsOfProbe *probe,
							   struct AsOfVersions *vl, ExprContext *econtext);
static bool asof_nearest_key_seen(AsOfJoinState *s);
static void asof_nearest_sort_outer(AsOfJoinState *s);
static void asof_nearest_forget(AsOfJoinState *s);
static Size asof_estimate_dsm(CustomScanState *node, ParallelContext *pcxt);
static void asof_init_dsm(CustomScanState *node, ParallelContext *pcxt,
						   void *coordinate);
static void asof_init_worker(CustomScanState *node, shm_toc *toc,
							  void *coordinate);
static void asof_shutdown(CustomScanState *node);

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
	.EstimateDSMCustomScan = asof_estimate_dsm,
	.InitializeDSMCustomScan = asof_init_dsm,
	.InitializeWorkerCustomScan = asof_init_worker,
	.ShutdownCustomScan = asof_shutdown,
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

	s->strategy = list_nth_int(meta, ASOF_META_STRATEGY);
	s->hashed = (s->strategy != ASOF_STRATEGY_MERGE);
	if (s->hashed)
	{
		List	   *hashinfo = (List *) lfourth(cscan->custom_private);
		FmgrInfo   *hashfunctions = palloc0(sizeof(FmgrInfo) * s->nkeys);
		Oid		   *eqfuncs = palloc0(sizeof(Oid) * s->nkeys);
		Oid		   *collations = palloc0(sizeof(Oid) * s->nkeys);
		TupleDesc	keydesc;
		AttrNumber *keycols;

		for (i = 0; i < s->nkeys; i++)
		{
			fmgr_info(list_nth_oid(hashinfo, 2 * i), &hashfunctions[i]);
			eqfuncs[i] = list_nth_oid(hashinfo, 2 * i + 1);
			collations[i] = list_nth_oid(cmps, i * ASOF_CMP_WIDTH + 3);
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
		s->hashtable = BuildTupleHashTableExt(&node->ss.ps,
											  keydesc,
											  s->nkeys, keycols,
											  eqfuncs, hashfunctions,
											  collations, 256, 0,
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
		Oid			time_opfamily = list_nth_oid(cmps, s->nkeys * ASOF_CMP_WIDTH);
		Oid			time_outertype = list_nth_oid(cmps,
												  s->nkeys * ASOF_CMP_WIDTH + 1);

		s->mem_limit = get_hash_memory_limit();
		s->rec_header = MAXALIGN(s->ninner * (sizeof(Datum) + sizeof(bool)));
		s->dense_ptr = NULL;
		s->dense_free = 0;
		s->dense_next = 0;
		s->time_int64 = s->time_cmp.use_ssup &&
			(s->time_cmp.ssup.comparator == ssup_datum_signed_cmp ||
			 s->time_cmp.ssup.comparator == ssup_datum_int32_cmp);

		/* The fallback sorts the outer rows by time, like the sweep's plan */
		s->time_collation = list_nth_oid(cmps, s->nkeys * ASOF_CMP_WIDTH + 3);
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
	}
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
	if (list_length(cscan->custom_private) > 4)
		asof_nearest_begin(s, cscan, estate);
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
static bool
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
int
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
 * asof_note_seen
 *		Merge with a shifted time: remember that an inner row of the current
 *		outer keys was read (it may be consumed before an outer row whose
 *		shifted time is out of range needs to know that it existed).
 */
static void
asof_note_seen(AsOfJoinState *s, TupleTableSlot *inner)
{
	if (!s->has_shift)
		return;
	if (s->seen_valid && asof_compare_keys(s, s->seen_slot) == 0)
		return;
	ExecCopySlot(s->seen_slot, inner);
	s->seen_valid = true;
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
		if (c == 0 && asof_inner_time_null(s, s->next))
			asof_note_seen(s, s->next); /* never matches */
		else if (c == 0)
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
		if (c == 0 && asof_inner_time_null(s, s->next))
			asof_note_seen(s, s->next); /* never matches */
		else if (c == 0)
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
			asof_note_seen(s, s->next);
		}
		asof_fetch_inner(s);
		asof_forget(s);
	}
}

/*
 * asof_merge_key_seen
 *		Merge: does the current outer row's key have some version (also one
 *		with a NULL time)?  Asked for an outer row whose shifted time is out
 *		of range; inner rows of earlier keys are passed, none of its own key
 *		is consumed.
 */
static bool
asof_merge_key_seen(AsOfJoinState *s)
{
	TupleTableSlot *next;
	int			c = -1;

	if (!s->forward && s->have_best &&
		asof_compare_keys(s, s->best_slot) != 0)
		asof_forget(s);
	for (;;)
	{
		next = asof_peek_inner(s);
		if (next == NULL)
			break;
		c = asof_compare_keys(s, next);
		if (c <= 0)
			break;
		/* an earlier key: no later outer row has it */
		asof_fetch_inner(s);
		if (s->forward)
			asof_forget(s);
	}
	if (next != NULL && c == 0)
		return true;
	if (!s->forward && s->have_best)
		return true;
	return s->seen_valid && asof_compare_keys(s, s->seen_slot) == 0;
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

static TupleTableSlot *
asof_form(AsOfJoinState *s, TupleTableSlot *outer)
{
	slot_getallattrs(outer);
	return asof_form_values(s, outer->tts_values, outer->tts_isnull);
}

/*
 * asof_byref_size
 *		Bytes needed to keep a copy of the by-reference values among the
 *		first natts columns of a slot (attributes already extracted),
 *		each MAXALIGNed; expanded objects count at their flat size.
 */
static Size
asof_byref_size(TupleTableSlot *slot, int natts)
{
	TupleDesc	desc = slot->tts_tupleDescriptor;
	Size		size = 0;
	int			i;

	for (i = 0; i < natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		Datum		v = slot->tts_values[i];

		if (slot->tts_isnull[i] || att->attbyval)
			continue;
		if (att->attlen == -1 &&
			VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(v)))
			size += MAXALIGN(EOH_get_flat_size(DatumGetEOHP(v)));
		else
			size += MAXALIGN(datumGetSize(v, false, att->attlen));
	}
	return size;
}

/*
 * asof_flatten_values
 *		Set values[] to the first natts columns of a slot (attributes
 *		already extracted), copying each by-reference value into data,
 *		which has room for asof_byref_size() bytes.  NULLs become 0.
 */
static void
asof_flatten_values(TupleTableSlot *slot, int natts, Datum *values,
					char *data)
{
	TupleDesc	desc = slot->tts_tupleDescriptor;
	int			i;

	for (i = 0; i < natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		Datum		v = slot->tts_values[i];
		Size		len;

		if (slot->tts_isnull[i] || att->attbyval)
		{
			values[i] = slot->tts_isnull[i] ? (Datum) 0 : v;
			continue;
		}
		if (att->attlen == -1 &&
			VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(v)))
		{
			ExpandedObjectHeader *eoh = DatumGetEOHP(v);

			len = EOH_get_flat_size(eoh);
			EOH_flatten_into(eoh, data, len);
		}
		else
		{
			len = datumGetSize(v, false, att->attlen);
			memcpy(data, DatumGetPointer(v), len);
		}
		values[i] = PointerGetDatum(data);
		data += MAXALIGN(len);
	}
}

/*
 * asof_copy_values
 *		Copy a row's columns to values/isnull, its by-reference values into
 *		one allocation in the current memory context.
 */
static void
asof_copy_values(TupleTableSlot *slot, int natts, Datum *values,
				 bool *isnull)
{
	Size		size;

	slot_getallattrs(slot);
	size = asof_byref_size(slot, natts);
	memcpy(isnull, slot->tts_isnull, natts * sizeof(bool));
	asof_flatten_values(slot, natts, values,
						size > 0 ? palloc(size) : NULL);
}

/*
 * asof_dense_alloc
 *		Space for a version record, carved out of large blocks of hashcxt.
 */
static char *
asof_dense_alloc(AsOfJoinState *s, Size size)
{
	char	   *p;

	size = MAXALIGN(size);
	if (size > ASOF_DENSE_MIN / 8)
		return MemoryContextAlloc(s->hashcxt, size);
	if (size > s->dense_free)
	{
		/* blocks grow like an AllocSet's, so small tables stay small */
		if (s->dense_next == 0)
			s->dense_next = ASOF_DENSE_MIN;
		s->dense_ptr = MemoryContextAlloc(s->hashcxt, s->dense_next);
		s->dense_free = s->dense_next;
		s->dense_next = Min(s->dense_next * 2, ASOF_DENSE_MAX);
	}
	p = s->dense_ptr;
	s->dense_ptr += size;
	s->dense_free -= size;
	return p;
}

/*
 * asof_time_int64
 *		A version time (or outer time) as the int64 the fast binary search
 *		compares, when s->time_int64.
 */
static inline int64
asof_time_int64(AsOfJoinState *s, Datum d)
{
	if (s->time_cmp.ssup.comparator == ssup_datum_int32_cmp)
		return (int64) DatumGetInt32(d);
	return DatumGetInt64(d);
}

/*
 * asof_lookup_put
 *		Lookup strategy: append the inner row to the versions of its key.
 */
static void
asof_lookup_put(AsOfJoinState *s, TupleTableSlot *inner)
{
	TupleHashEntry entry;
	AsOfVersions *vl;
	MemoryContext oldcxt;
	Datum	   *values;
	bool		isnew;
	Size		size;
	char	   *rec;
	int			i;

	slot_getallattrs(inner);
	for (i = 0; i < s->nkeys; i++)
		s->ikeys[i] = inner->tts_values[s->inner_key_attno[i] - 1];
	entry = LookupTupleHashEntry(s->hashtable, asof_key_slot(s, s->ikeys),
								 &isnew, NULL);

	oldcxt = MemoryContextSwitchTo(s->hashcxt);
	if (isnew)
	{
		vl = palloc(sizeof(AsOfVersions));
		vl->n = 0;
		vl->cap = 2 * ASOF_FENCE;
		vl->v = palloc(sizeof(AsOfVersion) * vl->cap);
		vl->fences = NULL;
		vl->super = NULL;
		vl->nullrec = NULL;
		if (s->time_int64)
		{
			vl->fences = palloc(sizeof(int64) * (vl->cap / ASOF_FENCE));
			vl->super = palloc(sizeof(int64) *
							   (vl->cap / ASOF_FENCE / ASOF_FENCE + 1));
		}
		entry->additional = vl;
	}
	else
		vl = (AsOfVersions *) entry->additional;
	MemoryContextSwitchTo(oldcxt);

	/*
	 * a version with a NULL time: its key has versions, none matches
	 * (except in the nearest direction without tolerance: kept below)
	 */
	if (asof_inner_time_null(s, inner) && !s->near_keep_nulls)
		return;


	oldcxt = MemoryContextSwitchTo(s->hashcxt);
	if (vl->n == vl->cap)
	{
		if (vl->cap > INT_MAX / 2)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("too many versions of one key for AsOfJoin")));
		vl->cap *= 2;
		vl->v = repalloc_huge(vl->v, sizeof(AsOfVersion) * (Size) vl->cap);
		if (vl->fences)
		{
			vl->fences = repalloc_huge(vl->fences,
									   sizeof(int64) * (Size) (vl->cap / ASOF_FENCE));
			vl->super = repalloc_huge(vl->super,
									  sizeof(int64) *
									  (Size) (vl->cap / ASOF_FENCE / ASOF_FENCE + 1));
		}
	}
	MemoryContextSwitchTo(oldcxt);

	/* The record: Datums, nulls, then the by-reference values */
	size = s->rec_header + asof_byref_size(inner, s->ninner);
	rec = asof_dense_alloc(s, size);
	values = (Datum *) rec;
	memcpy(rec + s->ninner * sizeof(Datum), inner->tts_isnull,
		   s->ninner * sizeof(bool));
	asof_flatten_values(inner, s->ninner, values, rec + s->rec_header);

	/* nearest: a version with a NULL time serves only a key without others */
	if (s->nearest && inner->tts_isnull[s->inner_time_attno - 1])
	{
		vl->nullrec = rec;
		wj_state_add(&s->stats, size);
		return;
	}

	if (s->time_int64)
	{
		int64		t = asof_time_int64(s, values[s->inner_time_attno - 1]);

		vl->v[vl->n].time = Int64GetDatum(t);
		if (vl->n % ASOF_FENCE == 0)
			vl->fences[vl->n / ASOF_FENCE] = t;
		if (vl->n % (ASOF_FENCE * ASOF_FENCE) == 0)
			vl->super[vl->n / (ASOF_FENCE * ASOF_FENCE)] = t;
	}
	else
		vl->v[vl->n].time = values[s->inner_time_attno - 1];
	vl->v[vl->n].rec = rec;
	vl->n++;
	wj_state_add(&s->stats, size);
}

/*
 * asof_sort_outer
 *		Lookup strategy's fallback: read every outer row into a tuplesort,
 *		with its time as an extra column, ordered as the sweep needs.
 */
static void
asof_sort_outer(AsOfJoinState *s)
{
	ExprContext *econtext = s->css.ss.ps.ps_ExprContext;
	AttrNumber	attno = s->nouter + 1;
	bool		nulls_first = false;
	TupleTableSlot *in = s->sort_in_slot;
	int			i;

	s->outer_sort = tuplesort_begin_heap(s->sort_desc, 1, &attno,
										 &s->time_sortop, &s->time_collation,
										 &nulls_first, work_mem, NULL,
										 TUPLESORT_NONE);
	for (;;)
	{
		TupleTableSlot *outer;
		TupleTableSlot *scan;

		CHECK_FOR_INTERRUPTS();
		ResetExprContext(econtext);
		outer = ExecProcNode(s->outer_ps);
		if (TupIsNull(outer))
			break;
		scan = asof_form(s, outer);
		econtext->ecxt_scantuple = scan;
		ExecClearTuple(in);
		memcpy(in->tts_values, scan->tts_values, s->nouter * sizeof(Datum));
		memcpy(in->tts_isnull, scan->tts_isnull, s->nouter * sizeof(bool));

		/*
		 * Rows with a NULL key match nothing: no time (sorted last).  A
		 * shifted time sorts like its base, which cannot be out of range.
		 */
		in->tts_values[s->nouter] = (Datum) 0;
		in->tts_isnull[s->nouter] = true;
		for (i = 0; i < s->nkeys; i++)
		{
			bool		isnull;

			(void) ExecEvalExprSwitchContext(s->outer_key[i], econtext,
											 &isnull);
			if (isnull)
				break;
		}
		if (i == s->nkeys)
			in->tts_values[s->nouter] =
				ExecEvalExprSwitchContext(s->has_shift ? s->time_base :
										  s->outer_time, econtext,
										  &in->tts_isnull[s->nouter]);
		ExecStoreVirtualTuple(in);
		tuplesort_puttupleslot(s->outer_sort, in);
	}
	ResetExprContext(econtext);
	tuplesort_performsort(s->outer_sort);
}

/*
 * asof_lookup_discard
 *		Forget the table's contents (versions or current versions).
 */
static void
asof_lookup_discard(AsOfJoinState *s)
{
	ResetTupleHashTable(s->hashtable);
	MemoryContextReset(s->hashcxt);
	s->dense_ptr = NULL;
	s->dense_free = 0;
	s->dense_next = 0;
	wj_state_clear(&s->stats);
}

/*
 * asof_lookup_load
 *		Lookup strategy: read every version into the table, appended to the
 *		versions of its key in the inner child's order.  If the table grows
 *		beyond the memory limit (work_mem times hash_mem_multiplier, as for
 *		a Hash Join), fall back to the sweep: forget the versions, restart
 *		the inner child (sorted by time, as the sweep needs) and sort the
 *		outer rows by time.
 */
static void
asof_lookup_load(AsOfJoinState *s)
{
	ExprContext *econtext = s->css.ss.ps.ps_ExprContext;
	TupleTableSlot *inner;

	s->loaded = true;
	s->fallback = false;
	while ((inner = asof_peek_inner(s)) != NULL)
	{
		ResetExprContext(econtext);
		asof_lookup_put(s, inner);
		asof_fetch_inner(s);
		if (MemoryContextMemAllocated(s->metacxt, true) > s->mem_limit)
		{
			asof_lookup_discard(s);
			s->fallback = true;
			s->fell_back = true;
			ExecReScan(s->inner_ps);
			s->next = NULL;
			s->inner_done = false;
			if (s->nearest)
				asof_nearest_sort_outer(s);
			else
				asof_sort_outer(s);
			break;
		}
	}
	ResetExprContext(econtext);
}

/*
 * asof_count_reached
 *		Number of leading elements of a[0..n-1] (int64 times, every stride-th
 *		int64 of the array) that are reached: a[i] <= t (or < t) when they
 *		ascend (backward), a[i] >= t (or > t) when they descend (forward).
 *		Branch-free binary search.
 */
static inline int
asof_count_reached(const int64 *a, int stride, int n, int64 t, bool forward,
				   bool strict)
{
	int			base = 0;
	int			len = n;

#define ASOF_SEARCH(REACHED) \
	do { \
		if (len == 0) \
			return 0; \
		while (len > 1) \
		{ \
			int			half = len / 2; \
			int64		x = a[(base + half - 1) * stride]; \
			base = (REACHED) ? base + half : base; \
			len -= half; \
		} \
		{ \
			int64		x = a[base * stride]; \
			return base + ((REACHED) ? 1 : 0); \
		} \
	} while (0)

	if (!forward)
	{
		if (strict)
			ASOF_SEARCH(x < t);
		else
			ASOF_SEARCH(x <= t);
	}
	else
	{
		if (strict)
			ASOF_SEARCH(x > t);
		else
			ASOF_SEARCH(x >= t);
	}
#undef ASOF_SEARCH
}

/*
 * asof_lookup_start
 *		Lookup strategy, first phase for the current outer time (s->otime)
 *		among its key's versions vl (maybe none): with int64 times, find
 *		the line of fences leading to the answer, and prefetch it.  (Other
 *		times: the answer, by a plain binary search.)  The
 *		versions reached by the outer time (time <= (<) outer time backward,
 *		>= (>) forward) are a prefix of the key's list; the last of them is
 *		the one the sweep would keep, ties included.
 */
static void
asof_lookup_start(AsOfJoinState *s, AsOfProbe *probe, AsOfVersions *vl)
{
	probe->vl = NULL;
	probe->rec = NULL;
	if (s->time_int64)
	{
		int64		t = asof_time_int64(s, s->otime);
		int			nf = (vl->n + ASOF_FENCE - 1) / ASOF_FENCE;
		int			ns = (nf + ASOF_FENCE - 1) / ASOF_FENCE;
		int			sf;

		/*
		 * sf entries of super[] reached: the last fence reached is among
		 * fences[(sf-1)*8 .. sf*8-1], and the first of those is reached.
		 */
		sf = asof_count_reached(vl->super, 1, ns, t, s->forward, s->strict);
		if (sf == 0)
			return;
		probe->t = t;
		probe->from = (sf - 1) * ASOF_FENCE + 1;
		probe->to = Min(sf * ASOF_FENCE, nf);
		ASOF_PREFETCH(&vl->fences[probe->from - 1]);
		ASOF_PREFETCH(&vl->fences[probe->to - 1]);
	}
	else
	{
		int			lo = 0;
		int			hi = vl->n;

		while (lo < hi)
		{
			int			mid = lo + (hi - lo) / 2;
			int			c = asof_compare(&s->time_cmp, s->otime,
										 vl->v[mid].time);

			if (s->forward)
				c = -c;
			if (s->strict ? c > 0 : c >= 0)
				lo = mid + 1;	/* reached */
			else
				hi = mid;
		}
		if (lo == 0)
			return;
		probe->rec = (Datum *) vl->v[lo - 1].rec;
		ASOF_PREFETCH(probe->rec);
		return;
	}
	probe->vl = vl;
}

/*
 * asof_lookup_block
 *		Lookup strategy, second phase (int64 times): the block of versions
 *		holding the answer, from the line of fences found by the first
 *		phase; prefetch it.
 */
static void
asof_lookup_block(AsOfJoinState *s, AsOfProbe *probe)
{
	AsOfVersions *vl = probe->vl;
	int			f;

	f = probe->from +
		asof_count_reached(vl->fences + probe->from, 1,
						   probe->to - probe->from, probe->t,
						   s->forward, s->strict);
	/* f fences reached: the answer is in the block after fence f-1 */
	probe->from = (f - 1) * ASOF_FENCE + 1;
	probe->to = Min(f * ASOF_FENCE, vl->n);
	ASOF_PREFETCH(&vl->v[probe->from - 1]);
	ASOF_PREFETCH(&vl->v[probe->to - 1]);
}

/*
 * asof_lookup_finish
 *		Lookup strategy, last phase: the version in its block (int64
 *		times), and a prefetch of its record.
 */
static void
asof_lookup_finish(AsOfJoinState *s, AsOfProbe *probe)
{
	AsOfVersions *vl = probe->vl;
	int			lo;

	StaticAssertStmt(sizeof(AsOfVersion) == 2 * sizeof(int64),
					 "AsOfVersion is not two int64 wide");
	lo = probe->from +
		asof_count_reached((int64 *) (vl->v + probe->from), 2,
						   probe->to - probe->from, probe->t,
						   s->forward, s->strict);
	probe->rec = (Datum *) vl->v[lo - 1].rec;
	ASOF_PREFETCH(probe->rec);
	ASOF_PREFETCH((char *) probe->rec + 64);
}

/*
 * asof_lookup_fill
 *		Lookup strategy: read the next batch of outer rows (copies, as their
 *		child may reuse its slot) and find their versions.
 */
static void
asof_lookup_fill(AsOfJoinState *s)
{
	ExprContext *econtext = s->batch_econtext;
	MemoryContext oldcxt = CurrentMemoryContext;
	int			n = 0;
	int			i;

	ResetExprContext(econtext);
	while (n < s->batch_size && !s->outer_done)
	{
		TupleTableSlot *outer;
		TupleTableSlot *scan;
		AsOfProbe  *probe = &s->probes[n];
		bool		isnull;
		bool		anynull = false;

		CHECK_FOR_INTERRUPTS();
		outer = ExecProcNode(s->outer_ps);
		if (TupIsNull(outer))
		{
			s->outer_done = true;
			break;
		}
		MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
		asof_copy_values(outer, s->nouter,
						 s->batch_values + n * s->nouter,
						 s->batch_isnull + n * s->nouter);
		MemoryContextSwitchTo(oldcxt);

		/* Outer expressions see the scan slot, where our expressions live */
		scan = asof_form_values(s, s->batch_values + n * s->nouter,
								s->batch_isnull + n * s->nouter);
		econtext->ecxt_scantuple = scan;
		for (i = 0; i < s->nkeys; i++)
		{
			s->okeys[i] = ExecEvalExprSwitchContext(s->outer_key[i], econtext,
													&isnull);
			anynull |= isnull;
		}
		probe->vl = NULL;
		probe->rec = NULL;

		/*
		 * The outer time only when the keys have versions: PostgreSQL's
		 * plan compares it with versions of the keys alone, so it never
		 * evaluates it otherwise (near the end of the range, o.t +
		 * interval '1 hour' would raise an error).
		 */
		if (!anynull)
		{
			TupleHashEntry entry;

			entry = LookupTupleHashEntry(s->hashtable,
										 asof_key_slot(s, s->okeys),
										 NULL, NULL);
			if (entry != NULL)
			{
				s->otime = ExecEvalExprSwitchContext(s->outer_time, econtext,
													 &isnull);
				if (s->nearest)
				{
					s->near_time_null = isnull;
					asof_nearest_probe(s, probe,
									   (AsOfVersions *) entry->additional,
									   econtext);
				}
				else if (!isnull)
					asof_lookup_start(s, probe,
									  (AsOfVersions *) entry->additional);
			}
		}
		n++;
	}
	for (i = 0; i < n; i++)
	{
		if (s->probes[i].vl != NULL)
			asof_lookup_block(s, &s->probes[i]);
	}
	for (i = 0; i < n; i++)
	{
		if (s->probes[i].vl != NULL)
			asof_lookup_finish(s, &s->probes[i]);
	}
	s->batch_n = n;
	s->batch_pos = 0;
	s->batch_size = Min(s->batch_size * 2, ASOF_BATCH);
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
 * asof_next_looked_up
 *		Lookup strategy: the next outer row of the batch, in the scan slot,
 *		with its version (Datums then nulls) in *values, NULL if none.
 *		Returns NULL when the outer rows are exhausted.
 */
static TupleTableSlot *
asof_next_looked_up(AsOfJoinState *s, Datum **values, bool **nulls)
{
	TupleTableSlot *scan;
	int			i;

	if (s->batch_pos == s->batch_n)
	{
		asof_lookup_fill(s);
		if (s->batch_n == 0)
			return NULL;
	}
	i = s->batch_pos++;
	scan = asof_form_values(s, s->batch_values + i * s->nouter,
							s->batch_isnull + i * s->nouter);
	*values = s->probes[i].rec;
	*nulls = *values ? (bool *) (*values + s->ninner) : NULL;
	return scan;
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
			outer = ExecProcNode(s->outer_ps);
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

	if (s->strategy == ASOF_STRATEGY_LOOKUP && !s->loaded)
		asof_lookup_load(s);
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
	ExecEndNode(s->outer_ps);
	ExecEndNode(s->inner_ps);
}

/*
 * asof_rescan
 *		ReScanCustomScan: start over; the children restart too, now or (if
 *		parameters they depend on changed) at their next call.  Like a Hash
 *		Join, the lookup strategy keeps its loaded versions when the inner
 *		child's parameters did not change (the planner gives it none).
 */
static void
asof_rescan(CustomScanState *node)
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
	keep = (s->strategy == ASOF_STRATEGY_LOOKUP && s->loaded &&
			!s->fallback && s->inner_ps->chgParam == NULL);
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

	wj_explain_join_type(jointype, es);
	if (show_keys != NIL)
	{
		List	   *keys = NIL;
		ListCell   *lc;

		foreach(lc, show_keys)
			keys = lappend(keys, wj_deparse_exprs(list_make1(lfirst(lc)), context));
		ExplainPropertyList("Keys", keys, es);
	}
	ExplainPropertyText("Time Cond",
						wj_deparse_exprs((List *) list_nth(cscan->custom_exprs,
														   ASOF_EXPR_SHOW_TIME),
										 context), es);
	if (show_tol != NIL)
		ExplainPropertyText("Tolerance", wj_deparse_exprs(show_tol, context), es);
	if (list_length(show_keys) > 0)
	{
		int			strategy = list_nth_int(meta, ASOF_META_STRATEGY);

		ExplainPropertyText("Strategy",
							strategy == ASOF_STRATEGY_LOOKUP ?
							"versions hashed by keys, outer rows looked up" :
							strategy == ASOF_STRATEGY_SWEEP ?
							"hashed keys, inputs in time order" :
							"inputs sorted by keys and time", es);
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
	if (list_length(cscan->custom_private) > 4)
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
 * asof_estimate_dsm, asof_init_dsm, asof_init_worker, asof_shutdown
 *		The parallel-aware plan of a partial path, under a Gather: collect
 *		each worker's peak state and rows for EXPLAIN ANALYZE (state_stats.h).
 *		The node shares nothing else: every participant joins its share of
 *		the outer rows on its own.
 */
static Size
asof_estimate_dsm(CustomScanState *node, ParallelContext *pcxt)
{
	return wj_instr_estimate(pcxt);
}

static void
asof_init_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	wj_instr_init_dsm(&((AsOfJoinState *) node)->pinstr, pcxt, coordinate);
}

static void
asof_init_worker(CustomScanState *node, shm_toc *toc, void *coordinate)
{
	wj_instr_init_worker(&((AsOfJoinState *) node)->pinstr, coordinate);
}

static void
asof_shutdown(CustomScanState *node)
{
	AsOfJoinState *s = (AsOfJoinState *) node;

	wj_instr_shutdown(&s->pinstr, &node->ss.ps, &s->stats);
}


/*
 * Nearest
 *
 * The closest version of the outer row's keys by btree_gist's distance
 * |version time - outer time|, which is monotone in the version time on
 * each side of the outer time (the planner accepts only such types): the
 * answer is one of the two neighbours of the outer time, the latest
 * version at or before it and the earliest one after it.  Each neighbour
 * must pass the tolerance bounds (the planner made sure that the window
 * holds the outer time, so the closest version in it is still a
 * neighbour); of the two left, the strictly closer one wins, the earlier
 * at equal distance.  Among versions of equal keys and time, the one whose
 * output row sorts last stands for them all, as in the other directions.
 *
 * merge: the inner child arrives sorted by (keys, time ascending with NULLs
 *	last, tie breakers), the outer one by (keys, time).  The state is the
 *	latest version behind the outer time (PREV) and the group read ahead
 *	(AHEAD, the next version not yet passed, kept as the last row of its
 *	equal (keys, time) group); for each outer row groups are read until one
 *	lies beyond it.
 *
 * lookup: the key's versions in time order (asof_lookup_put); a binary
 *	search counts the versions at or before the outer time, the next one
 *	(the last of its equal-time run) is the other neighbour.  If the
 *	versions exceed the memory limit, the outer rows are sorted by (keys,
 *	time) and merged instead (asof_nearest_sort_outer).
 *
 * Without tolerance, NULL times take part as in PostgreSQL's plan, where
 * the ORDER BY puts NULL distances last: an outer row with a NULL time gets
 * the latest version of its key (PostgreSQL's plan may return any of
 * them), and a version with a NULL time (the last such, NREC) is returned
 * only for a key without any other version.
 *
 * Distances are compared as PostgreSQL compares them: integer differences
 * when they are exactly what btree_gist's function returns, else by calling
 * that function and comparing its results with the ORDER BY's operator
 * (infinite timestamps are at the largest interval from everything, and
 * the function's errors, e.g. an integer out of range, are raised).
 */

/*
 * asof_nearest_begin
 *		BeginCustomScan's part for the nearest direction: the distance
 *		function and its ordering, the bounds' sides, the version slots and
 *		the lookup fallback's sort of outer rows by (keys, time).
 */
static void
asof_nearest_begin(AsOfJoinState *s, CustomScan *cscan, EState *estate)
{
	List	   *near = (List *) list_nth(cscan->custom_private, 4);
	List	   *oids = (List *) linitial(near);
	List	   *ints = (List *) lsecond(near);
	List	   *cmps = (List *) lsecond(cscan->custom_private);
	TupleDesc	innerdesc = ExecGetResultType(s->inner_ps);
	int			i;

	s->nearest = true;
	fmgr_info(linitial_oid(oids), &s->dist_flinfo);
	memset(&s->dist_ssup, 0, sizeof(SortSupportData));
	s->dist_ssup.ssup_cxt = CurrentMemoryContext;
	s->dist_ssup.ssup_collation = InvalidOid;
	s->dist_ssup.ssup_nulls_first = false;
	PrepareSortSupportFromOrderingOp(lsecond_oid(oids), &s->dist_ssup);
	s->near_type = lthird_oid(oids);
	s->near_inner_first = linitial_int(ints) != 0;
	s->near_keep_nulls = lsecond_int(ints) != 0;
	s->tol_upper = palloc0(sizeof(bool) * Max(s->ntol, 1));
	for (i = 0; i < s->ntol; i++)
		s->tol_upper[i] = list_nth_int(ints, 2 + i) != 0;
	s->near_bounds = palloc0(sizeof(Datum) * Max(s->ntol, 1));

	s->near_key_icmp = palloc0(sizeof(AsOfCmp) * Max(s->nkeys, 1));
	for (i = 0; i < s->nkeys; i++)
	{
		Oid			innertype = list_nth_oid(cmps, i * ASOF_CMP_WIDTH + 2);

		asof_init_cmp(&s->near_key_icmp[i],
					  list_nth_oid(cmps, i * ASOF_CMP_WIDTH),
					  innertype, innertype,
					  list_nth_oid(cmps, i * ASOF_CMP_WIDTH + 3));
	}
	for (i = 0; i < 4; i++)
	{
		s->near_slot[i] = ExecInitExtraTupleSlot(estate, innerdesc,
												 &TTSOpsMinimalTuple);
		s->near_have[i] = false;
		s->near_bytes[i] = 0;
	}

	if (s->strategy == ASOF_STRATEGY_LOOKUP)
	{
		TupleDesc	outerdesc = ExecGetResultType(s->outer_ps);
		int			nsort = s->nkeys + 1;

		s->sort_desc = CreateTemplateTupleDesc(s->nouter + nsort);
		for (i = 0; i < s->nouter; i++)
			TupleDescCopyEntry(s->sort_desc, i + 1, outerdesc, i + 1);
		s->near_sortattnos = palloc(sizeof(AttrNumber) * nsort);
		s->near_sortops = palloc(sizeof(Oid) * nsort);
		s->near_sortcolls = palloc(sizeof(Oid) * nsort);
		s->near_nullsfirst = palloc0(sizeof(bool) * nsort);
		for (i = 0; i < nsort; i++)
		{
			Oid			opfamily = list_nth_oid(cmps, i * ASOF_CMP_WIDTH);
			Oid			outertype = list_nth_oid(cmps, i * ASOF_CMP_WIDTH + 1);
			Oid			coll = list_nth_oid(cmps, i * ASOF_CMP_WIDTH + 3);

			s->near_sortattnos[i] = s->nouter + 1 + i;
			s->near_sortops[i] = get_opfamily_member(opfamily, outertype,
													 outertype,
													 BTLessStrategyNumber);
			if (!OidIsValid(s->near_sortops[i]))
				elog(ERROR, "missing sort operator for type %u in opfamily %u",
					 outertype, opfamily);
			s->near_sortcolls[i] = coll;
			TupleDescInitEntry(s->sort_desc, s->nouter + 1 + i, "asof_sort",
							   outertype, -1, 0);
			TupleDescInitEntryCollation(s->sort_desc, s->nouter + 1 + i, coll);
		}
		s->sort_in_slot = ExecInitExtraTupleSlot(estate, s->sort_desc,
												 &TTSOpsVirtual);
		s->sort_out_slot = ExecInitExtraTupleSlot(estate, s->sort_desc,
												  &TTSOpsMinimalTuple);
	}
}

/* Forget the version kept in near_slot[i] */
static void
asof_nearest_drop(AsOfJoinState *s, int i)
{
	if (s->near_have[i])
	{
		wj_state_remove(&s->stats, s->near_bytes[i]);
		ExecClearTuple(s->near_slot[i]);
	}
	s->near_have[i] = false;
	s->near_bytes[i] = 0;
}

/* Keep a copy of an inner row in near_slot[i] */
static void
asof_nearest_set(AsOfJoinState *s, int i, TupleTableSlot *inner)
{
	asof_nearest_drop(s, i);
	ExecCopySlot(s->near_slot[i], inner);
	s->near_bytes[i] = ((MinimalTupleTableSlot *) s->near_slot[i])->mintuple->t_len;
	s->near_have[i] = true;
	wj_state_add(&s->stats, s->near_bytes[i]);
}

/* Move the version kept in near_slot[from] to near_slot[to] */
static void
asof_nearest_move(AsOfJoinState *s, int from, int to)
{
	TupleTableSlot *tmp;

	asof_nearest_drop(s, to);
	tmp = s->near_slot[to];
	s->near_slot[to] = s->near_slot[from];
	s->near_slot[from] = tmp;
	s->near_have[to] = s->near_have[from];
	s->near_bytes[to] = s->near_bytes[from];
	s->near_have[from] = false;
	s->near_bytes[from] = 0;
}

/*
 * asof_nearest_forget
 *		Forget every version the nearest merge keeps (rescan).
 */
static void
asof_nearest_forget(AsOfJoinState *s)
{
	int			i;

	if (!s->nearest)
		return;
	for (i = 0; i < 4; i++)
		asof_nearest_drop(s, i);
}

/* True if two inner rows have equal keys and time (NULL times equal) */
static bool
asof_nearest_same(AsOfJoinState *s, TupleTableSlot *a, TupleTableSlot *b)
{
	Datum		da;
	Datum		db;
	bool		na;
	bool		nb;
	int			i;

	for (i = 0; i < s->nkeys; i++)
	{
		da = slot_getattr(a, s->inner_key_attno[i], &na);
		db = slot_getattr(b, s->inner_key_attno[i], &nb);
		if (asof_compare(&s->near_key_icmp[i], da, db) != 0)
			return false;
	}
	da = slot_getattr(a, s->inner_time_attno, &na);
	db = slot_getattr(b, s->inner_time_attno, &nb);
	if (na || nb)
		return na && nb;
	return asof_compare(&s->time_cmp, da, db) == 0;
}

/*
 * asof_nearest_read_group
 *		Merge: read the next group of inner rows with equal keys and time
 *		into AHEAD, which keeps the last of them (the one whose output row
 *		sorts last).  False when the inner rows are exhausted.
 */
static bool
asof_nearest_read_group(AsOfJoinState *s)
{
	TupleTableSlot *inner = asof_peek_inner(s);

	if (inner == NULL)
		return false;
	asof_nearest_set(s, ASOF_NEAR_AHEAD, inner);
	asof_fetch_inner(s);
	while ((inner = asof_peek_inner(s)) != NULL &&
		   asof_nearest_same(s, s->near_slot[ASOF_NEAR_AHEAD], inner))
	{
		asof_nearest_set(s, ASOF_NEAR_AHEAD, inner);
		asof_fetch_inner(s);
	}
	return true;
}

/*
 * asof_nearest_bounds
 *		Evaluate the current outer row's tolerance bounds (in the scan slot
 *		of econtext).  False if one is NULL: then no version is in range.
 */
static bool
asof_nearest_bounds(AsOfJoinState *s, ExprContext *econtext)
{
	bool		isnull;
	int			i;

	for (i = 0; i < s->ntol; i++)
	{
		s->near_bounds[i] = ExecEvalExprSwitchContext(s->tol_bound[i],
													  econtext, &isnull);
		if (isnull)
			return false;
	}
	return true;
}

/* True if a version time passes every tolerance bound */
static bool
asof_nearest_within(AsOfJoinState *s, Datum itime)
{
	int			i;

	for (i = 0; i < s->ntol; i++)
	{
		/* < 0: the bound is below the version time */
		int			c = asof_compare(&s->tol_cmp[i], s->near_bounds[i], itime);

		if (s->tol_upper[i] ? (c < 0 || (c == 0 && s->tol_strict[i])) :
			(c > 0 || (c == 0 && s->tol_strict[i])))
			return false;
	}
	return true;
}

/*
 * asof_nearest_fast
 *		|version time - outer time| as an int64, when that is exactly what
 *		btree_gist's distance function returns (finite, no overflow); false
 *		when the function must be asked.
 */
static bool
asof_nearest_fast(AsOfJoinState *s, Datum x, int64 *d)
{
	int64		a;
	int64		b;
	int64		r;

	switch (s->near_type)
	{
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			a = DatumGetInt64(x);
			b = DatumGetInt64(s->otime);
			if (TIMESTAMP_NOT_FINITE(a) || TIMESTAMP_NOT_FINITE(b) ||
				pg_sub_s64_overflow(a, b, &r) || r == PG_INT64_MIN)
				return false;
			break;
		case INT8OID:
			a = DatumGetInt64(x);
			b = DatumGetInt64(s->otime);
			if (pg_sub_s64_overflow(a, b, &r) || r == PG_INT64_MIN)
				return false;
			break;
		case DATEOID:
			if (DATE_NOT_FINITE(DatumGetDateADT(x)) ||
				DATE_NOT_FINITE(DatumGetDateADT(s->otime)))
				return false;
			r = (int64) DatumGetDateADT(x) - (int64) DatumGetDateADT(s->otime);
			break;
		case INT4OID:
			r = (int64) DatumGetInt32(x) - (int64) DatumGetInt32(s->otime);
			if (r > PG_INT32_MAX || r <= PG_INT32_MIN)
				return false;
			break;
		case INT2OID:
			r = (int64) DatumGetInt16(x) - (int64) DatumGetInt16(s->otime);
			if (r > PG_INT16_MAX || r <= PG_INT16_MIN)
				return false;
			break;
		default:
			return false;
	}
	*d = (r < 0) ? -r : r;
	return true;
}

/* btree_gist's distance between a version time and the outer time */
static Datum
asof_nearest_dist(AsOfJoinState *s, Datum t)
{
	if (s->near_inner_first)
		return FunctionCall2Coll(&s->dist_flinfo, InvalidOid, t, s->otime);
	return FunctionCall2Coll(&s->dist_flinfo, InvalidOid, s->otime, t);
}

/* The same, computed in econtext's per-tuple memory */
static Datum
asof_nearest_dist_in(AsOfJoinState *s, Datum t, ExprContext *econtext)
{
	MemoryContext oldcxt = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
	Datum		d = asof_nearest_dist(s, t);

	MemoryContextSwitchTo(oldcxt);
	return d;
}

/*
 * asof_nearest_choose
 *		Of the neighbours (the one at or before the outer time, the one
 *		after it, each if present), drop those out of the tolerance bounds
 *		(evaluated already) and return which is closer: 0 the earlier one
 *		(also at equal distance), 1 the later one, -1 neither.
 */
static int
asof_nearest_choose(AsOfJoinState *s, bool have_prev, Datum tprev,
					bool have_next, Datum tnext, ExprContext *econtext)
{
	MemoryContext oldcxt;
	int64		dp;
	int64		dn;
	int			c;

	if (s->ntol > 0)
	{
		if (have_prev && !asof_nearest_within(s, tprev))
			have_prev = false;
		if (have_next && !asof_nearest_within(s, tnext))
			have_next = false;
	}
	if (!have_prev || !have_next)
	{
		/* the function's errors (date infinity, overflow) as PostgreSQL's */
		if (have_prev && !asof_nearest_fast(s, tprev, &dp))
			(void) asof_nearest_dist_in(s, tprev, econtext);
		if (have_next && !asof_nearest_fast(s, tnext, &dn))
			(void) asof_nearest_dist_in(s, tnext, econtext);
		return have_prev ? 0 : have_next ? 1 : -1;
	}

	if (asof_nearest_fast(s, tprev, &dp) && asof_nearest_fast(s, tnext, &dn))
		return (dn < dp) ? 1 : 0;
	oldcxt = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
	c = ApplySortComparator(asof_nearest_dist(s, tnext), false,
							asof_nearest_dist(s, tprev), false,
							&s->dist_ssup);
	MemoryContextSwitchTo(oldcxt);
	return (c < 0) ? 1 : 0;
}

/*
 * asof_nearest_infinite
 *		True if the outer time is an infinite timestamp: btree_gist puts it
 *		at the same (largest) distance from every version.
 */
static bool
asof_nearest_infinite(AsOfJoinState *s)
{
	return (s->near_type == TIMESTAMPOID || s->near_type == TIMESTAMPTZOID) &&
		TIMESTAMP_NOT_FINITE(DatumGetTimestamp(s->otime));
}

/*
 * asof_nearest_advance
 *		Merge: read on for the current outer keys (s->okeys) until a version
 *		lies beyond the outer time (or, with all, until the keys' last
 *		version): PREV becomes the latest version at or before it, FIRST the
 *		keys' earliest one read, NULL the last with a NULL time.  Returns
 *		true if AHEAD holds the keys' next version after the outer time.
 */
static bool
asof_nearest_advance(AsOfJoinState *s, bool all)
{
	/* Forget the versions of other keys */
	if (s->near_have[ASOF_NEAR_PREV] &&
		asof_compare_keys(s, s->near_slot[ASOF_NEAR_PREV]) != 0)
		asof_nearest_drop(s, ASOF_NEAR_PREV);
	if (s->near_have[ASOF_NEAR_NULL] &&
		asof_compare_keys(s, s->near_slot[ASOF_NEAR_NULL]) != 0)
		asof_nearest_drop(s, ASOF_NEAR_NULL);
	if (s->near_have[ASOF_NEAR_FIRST] &&
		asof_compare_keys(s, s->near_slot[ASOF_NEAR_FIRST]) != 0)
		asof_nearest_drop(s, ASOF_NEAR_FIRST);

	for (;;)
	{
		TupleTableSlot *ahead;
		int			c;

		if (!s->near_have[ASOF_NEAR_AHEAD] && !asof_nearest_read_group(s))
			return false;
		ahead = s->near_slot[ASOF_NEAR_AHEAD];
		c = asof_compare_keys(s, ahead);
		if (c > 0)
		{
			asof_nearest_drop(s, ASOF_NEAR_AHEAD);	/* an earlier key */
			continue;
		}
		if (c < 0)
			return false;		/* a later key: wait for the outer side */
		if (slot_attisnull(ahead, s->inner_time_attno))
			asof_nearest_move(s, ASOF_NEAR_AHEAD, ASOF_NEAR_NULL);
		else if (!all && asof_compare_time(s, ahead) < 0)
			return true;		/* after the outer time: keep it ahead */
		else
		{
			if (!s->near_have[ASOF_NEAR_FIRST])
				asof_nearest_set(s, ASOF_NEAR_FIRST, ahead);
			asof_nearest_move(s, ASOF_NEAR_AHEAD, ASOF_NEAR_PREV);
		}
	}
}

/*
 * asof_nearest_key_seen
 *		Merge: do the current outer keys have any version (also one with a
 *		NULL time)?  Asked for an outer row whose shifted time is out of
 *		range; reads every version of the keys.
 */
static bool
asof_nearest_key_seen(AsOfJoinState *s)
{
	(void) asof_nearest_advance(s, true);
	return s->near_have[ASOF_NEAR_PREV] || s->near_have[ASOF_NEAR_NULL] ||
		s->near_have[ASOF_NEAR_FIRST];
}

/*
 * asof_nearest_merge
 *		Merge (and the lookup's fallback): the version closest to the
 *		current outer row (s->okeys, none NULL; s->otime, NULL when
 *		s->near_time_null), NULL if none.  The tolerance bounds are computed
 *		only when the keys have a version, as PostgreSQL's plan does.
 */
static TupleTableSlot *
asof_nearest_merge(AsOfJoinState *s, ExprContext *econtext)
{
	bool		time_null = s->near_time_null;
	bool		next;
	int			which;
	bool		isnull;

	if (time_null && !s->near_keep_nulls)
		return NULL;
	next = asof_nearest_advance(s, time_null);
	if (!s->near_have[ASOF_NEAR_PREV] && !next)
	{
		/* no version with a time: its version with NULL time, if kept */
		return (s->near_keep_nulls && s->near_have[ASOF_NEAR_NULL]) ?
			s->near_slot[ASOF_NEAR_NULL] : NULL;
	}
	if (!time_null && s->ntol > 0 && !asof_nearest_bounds(s, econtext))
		return NULL;

	/* Every version at the same distance: the earliest */
	if (time_null || asof_nearest_infinite(s))
	{
		TupleTableSlot *first = s->near_have[ASOF_NEAR_FIRST] ?
		s->near_slot[ASOF_NEAR_FIRST] : next ?
		s->near_slot[ASOF_NEAR_AHEAD] : NULL;

		if (first != NULL &&
			(time_null ||
			 asof_nearest_within(s, slot_getattr(first, s->inner_time_attno,
												 &isnull))))
			return first;
		if (s->near_have[ASOF_NEAR_PREV] &&
			asof_nearest_within(s, slot_getattr(s->near_slot[ASOF_NEAR_PREV],
												s->inner_time_attno, &isnull)))
			return s->near_slot[ASOF_NEAR_PREV];
		return NULL;
	}

	which = asof_nearest_choose(s, s->near_have[ASOF_NEAR_PREV],
								s->near_have[ASOF_NEAR_PREV] ?
								slot_getattr(s->near_slot[ASOF_NEAR_PREV],
											 s->inner_time_attno, &isnull) : 0,
								next,
								next ?
								slot_getattr(s->near_slot[ASOF_NEAR_AHEAD],
											 s->inner_time_attno, &isnull) : 0,
								econtext);
	if (which == 0)
		return s->near_slot[ASOF_NEAR_PREV];
	if (which == 1)
		return s->near_slot[ASOF_NEAR_AHEAD];
	return NULL;
}

/* The time of a lookup record */
#define ASOF_REC_TIME(s, rec) (((Datum *) (rec))[(s)->inner_time_attno - 1])

/*
 * asof_nearest_first
 *		Lookup: the earliest of a key's versions (the last of those at the
 *		earliest time).
 */
static int
asof_nearest_first(AsOfJoinState *s, AsOfVersions *vl)
{
	int			first = 0;

	while (first + 1 < vl->n &&
		   asof_compare(&s->time_cmp, vl->v[first + 1].time,
						vl->v[first].time) == 0)
		first++;
	return first;
}

/*
 * asof_nearest_probe
 *		Lookup: the version closest to the current outer row (s->otime, a
 *		NULL time when s->near_time_null) among its keys' versions vl, in
 *		probe->rec, NULL if none.

 */
static void
asof_nearest_probe(AsOfJoinState *s, AsOfProbe *probe, AsOfVersions *vl,
				   ExprContext *econtext)
{
	int			n = vl->n;
	int			lo;
	int			next;
	int			which;

	probe->vl = NULL;
	probe->rec = NULL;
	if (s->near_time_null && !s->near_keep_nulls)
		return;
	if (n == 0)
	{
		probe->rec = (Datum *) vl->nullrec;
		return;
	}
	if (s->near_time_null)
	{
		probe->rec = (Datum *) vl->v[asof_nearest_first(s, vl)].rec;
		return;
	}
	if (s->ntol > 0 && !asof_nearest_bounds(s, econtext))
		return;

	/*
	 * lo: the number of versions at or before the outer time; with int64
	 * times through super[] and fences[] (see AsOfVersions), as the
	 * backward lookup does
	 */
	if (s->time_int64)
	{
		int64		t = asof_time_int64(s, s->otime);
		int			nf = (n + ASOF_FENCE - 1) / ASOF_FENCE;
		int			ns = (nf + ASOF_FENCE - 1) / ASOF_FENCE;
		int			from;
		int			to;
		int			f;

		f = asof_count_reached(vl->super, 1, ns, t, false, false);
		if (f == 0)
			lo = 0;
		else
		{
			from = (f - 1) * ASOF_FENCE + 1;
			to = Min(f * ASOF_FENCE, nf);
			f = from + asof_count_reached(vl->fences + from, 1, to - from, t,
										  false, false);
			from = (f - 1) * ASOF_FENCE + 1;
			to = Min(f * ASOF_FENCE, n);
			lo = from + asof_count_reached((int64 *) (vl->v + from), 2,
										   to - from, t, false, false);
		}
	}
	else

	{
		int			hi = n;

		lo = 0;
		while (lo < hi)
		{
			int			mid = lo + (hi - lo) / 2;

			if (asof_compare(&s->time_cmp, s->otime, vl->v[mid].time) >= 0)
				lo = mid + 1;
			else
				hi = mid;
		}
	}

	/* Every version at the same distance: the earliest, if in range */
	if (asof_nearest_infinite(s))
	{
		int			first = asof_nearest_first(s, vl);

		if (asof_nearest_within(s, ASOF_REC_TIME(s, vl->v[first].rec)))
			probe->rec = (Datum *) vl->v[first].rec;
		else if (lo > 0 &&
				 asof_nearest_within(s, ASOF_REC_TIME(s, vl->v[lo - 1].rec)))
			probe->rec = (Datum *) vl->v[lo - 1].rec;
		return;
	}

	/* the version after: the last of its run of equal times */
	next = lo;
	while (next + 1 < n &&
		   (s->time_int64 ?
			DatumGetInt64(vl->v[next + 1].time) == DatumGetInt64(vl->v[next].time) :
			asof_compare(&s->time_cmp, vl->v[next + 1].time,
						 vl->v[next].time) == 0))
		next++;

	which = asof_nearest_choose(s, lo > 0,
								lo > 0 ? ASOF_REC_TIME(s, vl->v[lo - 1].rec) : 0,
								next < n,
								next < n ? ASOF_REC_TIME(s, vl->v[next].rec) : 0,
								econtext);
	if (which == 0)
		probe->rec = (Datum *) vl->v[lo - 1].rec;
	else if (which == 1)
		probe->rec = (Datum *) vl->v[next].rec;
	if (probe->rec != NULL)
		ASOF_PREFETCH(probe->rec);
}

/*
 * asof_nearest_sort_outer
 *		Lookup's fallback: read every outer row into a tuplesort, with its
 *		keys and time as extra columns, ordered by them (NULLs last) as the
 *		merge needs.
 */
static void
asof_nearest_sort_outer(AsOfJoinState *s)
{
	ExprContext *econtext = s->css.ss.ps.ps_ExprContext;
	TupleTableSlot *in = s->sort_in_slot;
	bool		anynull;
	int			i;

	s->outer_sort = tuplesort_begin_heap(s->sort_desc, s->nkeys + 1,
										 s->near_sortattnos, s->near_sortops,
										 s->near_sortcolls, s->near_nullsfirst,
										 work_mem, NULL, TUPLESORT_NONE);
	for (;;)
	{
		TupleTableSlot *outer;
		TupleTableSlot *scan;

		CHECK_FOR_INTERRUPTS();
		ResetExprContext(econtext);
		outer = ExecProcNode(s->outer_ps);
		if (TupIsNull(outer))
			break;
		scan = asof_form(s, outer);
		econtext->ecxt_scantuple = scan;
		ExecClearTuple(in);
		memcpy(in->tts_values, scan->tts_values, s->nouter * sizeof(Datum));
		memcpy(in->tts_isnull, scan->tts_isnull, s->nouter * sizeof(bool));
		anynull = false;
		for (i = 0; i < s->nkeys; i++)
		{
			in->tts_values[s->nouter + i] =
				ExecEvalExprSwitchContext(s->outer_key[i], econtext,
										  &in->tts_isnull[s->nouter + i]);
			anynull |= in->tts_isnull[s->nouter + i];
		}

		/*
		 * As in asof_sort_outer: no time for rows with a NULL key, and a
		 * shifted time sorts like its base
		 */
		in->tts_values[s->nouter + s->nkeys] = (Datum) 0;
		in->tts_isnull[s->nouter + s->nkeys] = true;
		if (!anynull)
			in->tts_values[s->nouter + s->nkeys] =
				ExecEvalExprSwitchContext(s->has_shift ? s->time_base :
										  s->outer_time, econtext,
										  &in->tts_isnull[s->nouter + s->nkeys]);
		ExecStoreVirtualTuple(in);

		tuplesort_puttupleslot(s->outer_sort, in);
	}
	ResetExprContext(econtext);
	tuplesort_performsort(s->outer_sort);
}
