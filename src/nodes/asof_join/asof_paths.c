/*-------------------------------------------------------------------------
 *
 * asof_paths.c
 *	  AsOfJoin paths: the join pathlist hook's entry (wj_asof_add_paths),
 *	  the planning of the rewritten subquery, and the paths of the three
 *	  strategies with their costs, serial and partial.
 *
 * When the hook offers the join of an outer relation with a LATERAL
 * subquery relation that asof_recognise (asof_recognise.c) accepts, the
 * rewritten subquery is planned with subquery_planner, so that a pre-sorted
 * index path is used when it is cheaper than a sort.  The outer side is the
 * outer relation's own cheapest path, sorted by (keys, outer time) through
 * pathkeys, so an already sorted path or PostgreSQL's Sort node provides
 * the order; the executor (asof_merge.c) merges the two sorted streams.
 * With hashable keys the order is by time alone (the sweep strategy), and a
 * second path, the lookup strategy, takes the outer relation's cheapest
 * path unsorted and looks each row up among the versions held in memory
 * (asof_lookup.c); it is offered only when the versions are expected to fit
 * in the memory a Hash Join may use (the executor falls back to the sweep
 * if they do not), and its output has no useful order.
 *
 * The paths compete on cost: both inputs in full plus one merge pass or one
 * lookup per outer row, against PostgreSQL's per-row index lookups.
 * Partial paths split the outer rows among the participants of a parallel
 * plan, each reading every version.
 *
 * The hook is called for every way of joining the two relations (and each
 * of their joins with others), so the recognition and the planning of the
 * subquery are done once per subquery relation and planner run
 * (asof_planned_for): the results are kept in the planner's memory context
 * and forgotten when that context is reset or deleted.  Under GEQO, whose
 * candidates are planned in short-lived contexts, nothing is kept.
 *
 * src/nodes/asof_join/asof_paths.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/nbtree.h"
#include "access/htup_details.h"
#include "access/stratnum.h"
#include "catalog/dependency.h"
#include "catalog/pg_language.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "commands/extension.h"
#include "executor/nodeHash.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/planmain.h"
#include "optimizer/planner.h"
#include "optimizer/restrictinfo.h"
#include "optimizer/tlist.h"
#include "parser/parse_oper.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"
#include "utils/syscache.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "src/nodes/asof_join/asof.h"
#include "src/nodes/asof_join/asof_planner_internal.h"

/*
 * What the hook found for one LATERAL subquery relation in one planner run:
 * its recognition, and (once asked for) its planned rewritten subquery
 */
typedef struct AsOfPlanned
{
	PlannerInfo *root;			/* the key: the query level ... */
	Index		relid;			/* ... and the subquery relation */
	AsOfSpec   *spec;			/* asof_recognise's answer, NULL: none */
	Query	   *serial_query;	/* a copy of spec->rewritten, unplanned */
	bool		planned;		/* the fields below are set */
	const char *no_path;		/* planning gave no usable path: why */
	PlannerInfo *subroot;
	RelOptInfo *final_rel;
	Path	   *inner_path;		/* its cheapest path, in ORDER BY order */
	bool		serial_planned; /* serial_query planned (for partial paths) */
	PlannerInfo *serial_subroot;
	Path	   *serial_path;	/* its parallel-safe path, or NULL */
} AsOfPlanned;

/* the entries of the current planner context, and that context */
static List *asof_planned = NIL;
static MemoryContext asof_planned_cxt = NULL;
#include "src/common/gucs.h"
#include "src/common/input_paths.h"
#include "src/common/pg_compat.h"
#include "src/common/time_shift.h"

static double asof_lookup_bytes(Path *inner_path);
static void asof_add_partial_paths(PlannerInfo *root, RelOptInfo *joinrel,
								   RelOptInfo *outerrel, RelOptInfo *innerrel,
								   JoinType jointype, JoinPathExtraData *extra,
								   AsOfSpec *spec, PlannerInfo *subroot,
								   RelOptInfo *final_rel, List *outer_pathkeys,
								   List *quals, AsOfPlanned *entry);
static List *asof_outer_exprs(AsOfSpec *spec);
static bool asof_share_versions(Path *outer_path, Path *inner_path,
								int strategy);
static void asof_consider_parallel(PlannerInfo *root, RelOptInfo *joinrel,
								   RelOptInfo *outerrel, RelOptInfo *innerrel,
								   JoinPathExtraData *extra);
static Path *asof_make_path(PlannerInfo *root, RelOptInfo *joinrel,
							RelOptInfo *innerrel, JoinType jointype,
							JoinPathExtraData *extra, AsOfSpec *spec,
							PlannerInfo *subroot, Path *inner_path,
							Path *outer_path, List *quals, int strategy);

static CustomPathMethods asof_path_methods = {
	.CustomName = ASOF_NAME,
	.PlanCustomPath = asof_plan_path,
};

/*
 * asof_outer_pathkeys
 *		Pathkeys ordering the outer relation by (keys, time), ascending with
 *		NULLs last, using each comparison's opfamily; redundant ones are
 *		left out.  The hashed strategy orders by time alone (descending for
 *		a forward lookup).
 */
static List *
asof_outer_pathkeys(PlannerInfo *root, RelOptInfo *outerrel, AsOfSpec *spec)
{
	List	   *pathkeys = NIL;
	List	   *conds;
	ListCell   *lc;

	if (spec->hashed)
		conds = list_make1(spec->time);
	else
		conds = lappend(list_copy(spec->keys), spec->time);
	foreach(lc, conds)
	{
		AsOfCond   *c = (AsOfCond *) lfirst(lc);
		Oid			ltop = get_opfamily_member(c->opfamily, c->outertype,
											   c->outertype,
											   (spec->hashed && spec->forward) ?
											   BTGreaterStrategyNumber :
											   BTLessStrategyNumber);
		Expr	   *expr = c->outer;
		Expr	   *base;
		WjShift		shift;
		List	   *pk;
		PathKey    *pathkey;

		/*
		 * A shifted outer time (o.t + interval '1 hour') orders like its
		 * base: sort by the base, so that no row's shifted time is computed
		 * before the node knows PostgreSQL's plan would compute it (near
		 * the end of the range, that raises an error).
		 */
		if (c == spec->time && wj_shift_match(expr, &base, &shift))
			expr = base;
		pk = wj_build_expression_pathkey(root, expr, wj_nullable_baserels(root),
										 ltop, outerrel->relids, true);
		if (pk == NIL)
			continue;
		pathkey = linitial_node(PathKey, pk);
		if (EC_MUST_BE_REDUNDANT(pathkey->pk_eclass) ||
			list_member_ptr(pathkeys, pathkey))
			continue;
		pathkeys = lappend(pathkeys, pathkey);
	}
	return pathkeys;
}

/*
 * asof_planned_forget
 *		Reset callback of the planner context the entries live in.
 */
static void
asof_planned_forget(void *arg)
{
	if (asof_planned_cxt == (MemoryContext) arg)
	{
		asof_planned = NIL;
		asof_planned_cxt = NULL;
	}
}

/*
 * asof_planned_for
 *		The entry of the subquery relation innerrel (its range table entry
 *		rte) in this planner run, made and recognised on first use.  NULL
 *		when nothing can be kept (GEQO's temporary contexts): the caller
 *		then works on an entry of its own.
 */
static AsOfPlanned *
asof_planned_for(PlannerInfo *root, RelOptInfo *innerrel, RangeTblEntry *rte)
{
	AsOfPlanned *entry;
	ListCell   *lc;
	MemoryContext old;
	bool		keep = (CurrentMemoryContext == root->planner_cxt);

	if (keep && asof_planned_cxt == root->planner_cxt)
	{
		foreach(lc, asof_planned)
		{
			entry = (AsOfPlanned *) lfirst(lc);
			if (entry->root == root && entry->relid == innerrel->relid)
				return entry;
		}
	}

	entry = palloc0(sizeof(AsOfPlanned));
	entry->root = root;
	entry->relid = innerrel->relid;
	entry->spec = asof_recognise(root, rte->subquery);
	if (entry->spec != NULL)
		entry->serial_query = copyObject(entry->spec->rewritten);
	if (keep)
	{
		if (asof_planned_cxt != root->planner_cxt)
		{
			MemoryContextCallback *cb = palloc0(sizeof(MemoryContextCallback));

			cb->func = asof_planned_forget;
			cb->arg = root->planner_cxt;
			MemoryContextRegisterResetCallback(root->planner_cxt, cb);
			asof_planned = NIL;
			asof_planned_cxt = root->planner_cxt;
		}
		old = MemoryContextSwitchTo(root->planner_cxt);
		asof_planned = lappend(asof_planned, entry);
		MemoryContextSwitchTo(old);
	}
	return entry;
}

/*
 * asof_plan_subquery
 *		Plan the entry's rewritten subquery (once): its final relation and
 *		cheapest path in ORDER BY order, or the reason there is none.
 */
static void
asof_plan_subquery(PlannerInfo *root, AsOfPlanned *entry)
{
	List	   *save_plan_params;

	if (entry->planned)
		return;
	entry->planned = true;
	/* planning scribbles on the query */
	save_plan_params = root->plan_params;
	root->plan_params = NIL;
	entry->subroot = wj_subquery_planner(root->glob, entry->spec->rewritten,
										 root, false, 0.0);
	if (root->plan_params != NIL)
	{
		/* it still refers to us: give up (cannot happen, we checked) */
		root->plan_params = save_plan_params;
		entry->no_path = "the planned subquery still refers to the outer query";
		return;
	}
	root->plan_params = save_plan_params;
	entry->final_rel = fetch_upper_rel(entry->subroot, UPPERREL_FINAL, NULL);
	entry->inner_path = entry->final_rel->cheapest_total_path;
	if (entry->inner_path == NULL || IS_DUMMY_REL(entry->final_rel) ||
		!pathkeys_contained_in(entry->subroot->sort_pathkeys,
							   entry->inner_path->pathkeys))
		entry->no_path = "the planned subquery is empty or not in ORDER BY order";
}

/*
 * wj_asof_add_paths
 *		Join pathlist hook entry: add an AsOfJoin path when innerrel is a
 *		LATERAL subquery recognised by asof_recognise and outerrel provides
 *		everything it refers to.
 */
void
wj_asof_add_paths(PlannerInfo *root, RelOptInfo *joinrel,
				  RelOptInfo *outerrel, RelOptInfo *innerrel,
				  JoinType jointype, JoinPathExtraData *extra)
{
	RangeTblEntry *rte;
	AsOfSpec   *spec;
	List	   *outer_pathkeys;
	Path	   *outer_path;
	Path	   *cheapest;
	PlannerInfo *subroot;
	RelOptInfo *final_rel;
	Path	   *inner_path;
	AsOfPlanned *entry;
	ListCell   *lc;
	List	   *quals = NIL;

	if (!wj_enable_asof_join)
		ASOF_NO_PATH("windowjoin.enable_asof_join is off");
	if (jointype != JOIN_INNER && jointype != JOIN_LEFT)
		ASOF_NO_PATH("not an inner or left join");
	if (joinrel->reloptkind != RELOPT_JOINREL ||
		innerrel->reloptkind != RELOPT_BASEREL ||
		innerrel->rtekind != RTE_SUBQUERY)
		ASOF_NO_PATH("the inner side is not a subquery relation");
	if (bms_is_empty(innerrel->lateral_relids) ||
		!bms_is_subset(innerrel->lateral_relids, outerrel->relids) ||
		!bms_is_empty(joinrel->lateral_relids))
		ASOF_NO_PATH("the inner subquery is not LATERAL to the outer side alone");
	if (IS_DUMMY_REL(innerrel) || IS_DUMMY_REL(outerrel))
		ASOF_NO_PATH("a side is empty (dummy)");

	/*
	 * EvalPlanQual rechecks would need the joined rows rebuilt from the
	 * test tuples; keep to queries that never recheck.
	 */
	if (root->parse->rowMarks != NIL ||
		(root->parse->commandType != CMD_SELECT &&
		 root->parse->commandType != CMD_INSERT))
		ASOF_NO_PATH("row marks, or not a SELECT or INSERT");
	if (root->plan_params != NIL)
		ASOF_NO_PATH("the query has parameters from an outer query level");

	rte = planner_rt_fetch(innerrel->relid, root);
	if (rte->rtekind != RTE_SUBQUERY || rte->subquery == NULL ||
		rte->tablesample != NULL)
		ASOF_NO_PATH("the inner side is not a plain subquery");

	/*
	 * Only plain Vars of the subquery's own columns are needed above it: a
	 * whole-row reference would see the columns we add to the subquery.
	 */
	foreach(lc, innerrel->reltarget->exprs)
	{
		if (!IsA(lfirst(lc), Var))
			ASOF_NO_PATH("the subquery's output is used as more than plain columns");
	}
	{
		List	   *clauses = NIL;
		List	   *vars;

		foreach(lc, extra->restrictlist)
			clauses = lappend(clauses, ((RestrictInfo *) lfirst(lc))->clause);
		foreach(lc, innerrel->baserestrictinfo)
			clauses = lappend(clauses, ((RestrictInfo *) lfirst(lc))->clause);
		vars = pull_var_clause((Node *) list_make2(innerrel->reltarget->exprs,
												   clauses),
							   PVC_RECURSE_AGGREGATES |
							   PVC_RECURSE_WINDOWFUNCS |
							   PVC_RECURSE_PLACEHOLDERS);
		foreach(lc, vars)
		{
			Var		   *var = (Var *) lfirst(lc);

			if (var->varno == innerrel->relid && var->varattno <= 0)
				ASOF_NO_PATH("a whole-row or system column of the subquery is used");
		}
	}

	entry = asof_planned_for(root, innerrel, rte);
	spec = entry->spec;
	if (spec == NULL)
		ASOF_NO_PATH("the subquery is not a latest-version lookup");

	/* The outer expressions must be computable from the outer relation */
	foreach(lc, spec->keys)
	{
		AsOfCond   *c = (AsOfCond *) lfirst(lc);

		if (!bms_is_subset(pull_varnos(root, (Node *) c->outer),
						   outerrel->relids))
			ASOF_NO_PATH("a key refers to relations other than the outer side");
	}
	if (!bms_is_subset(pull_varnos(root, (Node *) spec->time->outer),
					   outerrel->relids))
		ASOF_NO_PATH("the time condition refers to relations other than the outer side");
	foreach(lc, spec->tolerances)
	{
		AsOfCond   *c = (AsOfCond *) lfirst(lc);

		if (!bms_is_subset(pull_varnos(root, (Node *) c->outer),
						   outerrel->relids))
			ASOF_NO_PATH("a tolerance refers to relations other than the outer side");
	}

	/* The outer side: its cheapest path, sorted by (keys, time) */
	cheapest = outerrel->cheapest_total_path;
	if (cheapest == NULL || PATH_REQ_OUTER(cheapest) != NULL)
		ASOF_NO_PATH("the outer side has no unparameterized path");
	outer_pathkeys = asof_outer_pathkeys(root, outerrel, spec);
	outer_path = wj_sorted_input(root, outerrel, outer_pathkeys);

	/* The inner side: the rewritten subquery, planned once */
	asof_plan_subquery(root, entry);
	if (entry->no_path != NULL)
		ASOF_NO_PATH(entry->no_path);
	subroot = entry->subroot;
	final_rel = entry->final_rel;
	inner_path = entry->inner_path;

	/* The join's conditions, and the subquery relation's own filters */
	foreach(lc, extra->restrictlist)
		quals = lappend(quals, ((RestrictInfo *) lfirst(lc))->clause);
	foreach(lc, innerrel->baserestrictinfo)
		quals = lappend(quals, ((RestrictInfo *) lfirst(lc))->clause);

	asof_consider_parallel(root, joinrel, outerrel, innerrel, extra);
	add_path(joinrel,
			 asof_make_path(root, joinrel, innerrel, jointype, extra, spec,
							subroot, inner_path, outer_path, quals,
							spec->hashed ? ASOF_STRATEGY_SWEEP :
							ASOF_STRATEGY_MERGE));

	/*
	 * With hashable keys, also the lookup strategy: the outer relation's
	 * cheapest path as it is, no sort.  It holds every version, so offer it
	 * only when they are expected to fit in the memory a Hash Join may use
	 * (the executor falls back to the sweep at run time if they do not).
	 */
	if ((spec->hashed || spec->near_hashable) &&
		asof_lookup_bytes(inner_path) <=
		(double) get_hash_memory_limit())
		add_path(joinrel,
				 asof_make_path(root, joinrel, innerrel, jointype, extra,
								spec, subroot, inner_path, cheapest, quals,
								ASOF_STRATEGY_LOOKUP));

	asof_add_partial_paths(root, joinrel, outerrel, innerrel, jointype, extra,
						   spec, subroot, final_rel, outer_pathkeys, quals,
						   entry);
}

/*
 * asof_add_partial_paths
 *		Partial AsOfJoin paths: each participant of a parallel plan joins its
 *		share of the outer rows (the outer relation's partial path, sorted in
 *		each worker for the merge and sweep strategies, as it is for the
 *		lookup) with every version, read complete in each participant from a
 *		parallel-safe path of the rewritten subquery.  Inner and left joins
 *		both decide per outer row, so the Gather's union is the join.
 */
static void
asof_add_partial_paths(PlannerInfo *root, RelOptInfo *joinrel,
					   RelOptInfo *outerrel, RelOptInfo *innerrel,
					   JoinType jointype, JoinPathExtraData *extra,
					   AsOfSpec *spec, PlannerInfo *subroot,
					   RelOptInfo *final_rel, List *outer_pathkeys,
					   List *quals, AsOfPlanned *entry)
{
	Path	   *inner_path = NULL;
	Path	   *outer_path;
	Path	   *path;
	ListCell   *lc;

	if (!joinrel->consider_parallel || outerrel->partial_pathlist == NIL)
	{
		elog(DEBUG2, "AsOfJoin: no partial path (join not parallel safe, or no partial outer path)");
		return;
	}
	foreach(lc, final_rel->pathlist)
	{
		path = (Path *) lfirst(lc);
		if (path->parallel_safe && path->param_info == NULL &&
			pathkeys_contained_in(subroot->sort_pathkeys, path->pathkeys) &&
			(inner_path == NULL || wj_path_total_cheaper(path, inner_path)))
			inner_path = path;
	}
	if (inner_path == NULL && !entry->serial_planned)
	{
		/*
		 * Every sorted path of the versions has a Gather in it (the serial
		 * node may read them through a Gather Merge, a worker cannot):
		 * plan the subquery once more without parallel workers (once per
		 * planner run, as the first planning).
		 */
		List	   *save_plan_params = root->plan_params;
		int			save_workers = max_parallel_workers_per_gather;
		PlannerInfo *serial_root;

		entry->serial_planned = true;
		root->plan_params = NIL;
		max_parallel_workers_per_gather = 0;
		PG_TRY();
		{
			serial_root = wj_subquery_planner(root->glob, entry->serial_query,
											  root, false, 0.0);
		}
		PG_FINALLY();
		{
			max_parallel_workers_per_gather = save_workers;
		}
		PG_END_TRY();
		if (root->plan_params == NIL)
		{
			final_rel = fetch_upper_rel(serial_root, UPPERREL_FINAL, NULL);
			path = final_rel->cheapest_total_path;
			if (path != NULL && !IS_DUMMY_REL(final_rel) && path->parallel_safe &&
				path->param_info == NULL &&
				pathkeys_contained_in(serial_root->sort_pathkeys, path->pathkeys))
			{
				entry->serial_subroot = serial_root;
				entry->serial_path = path;
			}
		}
		root->plan_params = save_plan_params;
	}
	if (inner_path == NULL && entry->serial_path != NULL)
	{
		subroot = entry->serial_subroot;
		inner_path = entry->serial_path;
	}
	if (inner_path == NULL)
	{
		elog(DEBUG2, "AsOfJoin: no partial path (no parallel-safe path of the versions)");
		return;
	}

	outer_path = wj_partial_outer_input(root, outerrel, outer_pathkeys);
	if (outer_path != NULL)
		add_partial_path(joinrel,
						 asof_make_path(root, joinrel, innerrel, jointype,
										extra, spec, subroot, inner_path,
										outer_path, quals,
										spec->hashed ? ASOF_STRATEGY_SWEEP :
										ASOF_STRATEGY_MERGE));
	outer_path = (Path *) linitial(outerrel->partial_pathlist);
	if (spec->hashed && outer_path->param_info == NULL &&
		asof_lookup_bytes(inner_path) <= (double) get_hash_memory_limit())
		add_partial_path(joinrel,
						 asof_make_path(root, joinrel, innerrel, jointype,
										extra, spec, subroot, inner_path,
										outer_path, quals,
										ASOF_STRATEGY_LOOKUP));
}

/*
 * asof_share_versions
 *		Whether the participants of a parallel lookup share one copy of the
 *		versions, loaded by one of them into the query's shared memory
 *		(asof_shared.c), or each loads its own, as a hash join that is not
 *		parallel-aware builds its own table under a Gather.
 *
 *		Each its own unless the copies of all participants (the workers and
 *		the leader) would together exceed the node's memory limit, work_mem
 *		times hash_mem_multiplier, by the planner's estimate of the
 *		versions.  A private copy repeats the load (the inner scan, its sort
 *		and the table) in every participant, but none waits for another:
 *		measured (docs/parallel.md), sharing was slower both for W4's
 *		200,000 versions and for ten times as many, as the loader's work
 *		(and the image it writes) stands before every participant's join,
 *		and what the others read ahead meanwhile costs more than it saves.
 *		Sharing stays for versions too large to be copied per participant.
 */
static bool
asof_share_versions(Path *outer_path, Path *inner_path, int strategy)
{
	if (strategy != ASOF_STRATEGY_LOOKUP || outer_path->parallel_workers == 0)
		return false;
	return asof_lookup_bytes(inner_path) * (outer_path->parallel_workers + 1) >
		(double) get_hash_memory_limit();
}

/*
 * asof_consider_parallel
 *		Decide joinrel->consider_parallel as build_join_rel does, except for
 *		the inner relation's own flag: PostgreSQL never lets a subquery with
 *		a LIMIT into a worker (its rows could differ there), which keeps the
 *		flag off for every join with the LATERAL idiom.  Our node never runs
 *		that subquery but the rewritten one, without LIMIT, whose paths carry
 *		their own parallel_safe flags; the subquery relation's filters, the
 *		join's clauses and its target must still be parallel safe.  PostgreSQL's
 *		own paths of the join stay parallel-unsafe (their inner paths are),
 *		so only our paths can go under a Gather.
 */
static void
asof_consider_parallel(PlannerInfo *root, RelOptInfo *joinrel,
					   RelOptInfo *outerrel, RelOptInfo *innerrel,
					   JoinPathExtraData *extra)
{
	if (joinrel->consider_parallel || !outerrel->consider_parallel)
		return;
	if (!is_parallel_safe(root, (Node *) extract_actual_clauses(extra->restrictlist, false)) ||
		!is_parallel_safe(root, (Node *) extract_actual_clauses(extra->restrictlist, true)) ||
		!is_parallel_safe(root, (Node *) extract_actual_clauses(innerrel->baserestrictinfo, false)) ||
		!is_parallel_safe(root, (Node *) innerrel->reltarget->exprs) ||
		!is_parallel_safe(root, (Node *) joinrel->reltarget->exprs))
		return;
	joinrel->consider_parallel = true;
}

/*
 * asof_outer_exprs
 *		The expressions of the outer relation the node evaluates per outer
 *		row (keys, time, tolerance bounds), for the parallel-safety rule.
 */
static List *
asof_outer_exprs(AsOfSpec *spec)
{
	List	   *exprs = NIL;
	ListCell   *lc;

	foreach(lc, spec->keys)
		exprs = lappend(exprs, ((AsOfCond *) lfirst(lc))->outer);
	exprs = lappend(exprs, spec->time->outer);
	foreach(lc, spec->tolerances)
		exprs = lappend(exprs, ((AsOfCond *) lfirst(lc))->outer);
	return exprs;
}

/*
 * asof_lookup_bytes
 *		Estimated memory of the lookup strategy's table (asof_lookup.c): per
 *		version its Datums and nulls, its by-reference data, its time and
 *		address in the per-key array (grown by doubling, so half empty at
 *		worst), and a little for the search fences and the allocator.
 */
static double
asof_lookup_bytes(Path *inner_path)
{
	int			ncols = list_length(inner_path->pathtarget->exprs);
	double		per_version;

	per_version = MAXALIGN(ncols * (sizeof(Datum) + sizeof(bool))) +
		MAXALIGN(inner_path->pathtarget->width) +
		2 * 2 * sizeof(Datum) +	/* time and address, doubling arrays */
		sizeof(Datum);			/* fences, allocator slack */
	return inner_path->rows * per_version;
}

/*
 * asof_make_path
 *		An AsOfJoin path of the given strategy over the given inputs.
 *
 * Cost: both inputs in full, plus per outer row the outer expressions,
 * finding the version (key and time comparisons for the merge; a hash, a
 * probe and the same for the sweep; a hash, a probe and a binary search
 * over the key's versions for the lookup), the quals and forming the
 * result; per inner row the comparisons (or hash), the SubqueryScan and
 * keeping a copy of the version.  The lookup strategy returns no row
 * before it has read every version, so that is part of its startup cost.
 */
static Path *
asof_make_path(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *innerrel,
			   JoinType jointype, JoinPathExtraData *extra, AsOfSpec *spec,
			   PlannerInfo *subroot, Path *inner_path, Path *outer_path,
			   List *quals, int strategy)
{
	AsOfPath   *apath;
	QualCost	qual_cost;
	QualCost	outer_expr_cost;
	List	   *outer_exprs = NIL;
	ListCell   *lc;
	double		outer_rows = outer_path->rows;
	double		inner_rows = inner_path->rows;
	int			nkeys = list_length(spec->keys);
	Cost		outer_cmp;
	Cost		inner_cmp;
	Cost		inner_run;
	Cost		outer_run;
	Cost		startup;

	apath = palloc0(sizeof(AsOfPath));
	apath->cpath.path.type = T_CustomPath;
	apath->cpath.path.pathtype = T_CustomScan;
	apath->cpath.path.parent = joinrel;
	apath->cpath.path.pathtarget = joinrel->reltarget;
	apath->cpath.path.param_info = NULL;
	apath->cpath.path.parallel_aware = outer_path->parallel_workers > 0;
	apath->cpath.path.parallel_safe =
		wj_path_parallel_safe(root, joinrel,
							  list_make2(outer_path, inner_path),
							  asof_outer_exprs(spec));
	apath->cpath.path.parallel_workers = outer_path->parallel_workers;
	apath->cpath.path.rows = joinrel->rows;
	if (outer_path->parallel_workers > 0)
		apath->cpath.path.rows =
			clamp_row_est(joinrel->rows / wj_parallel_divisor(outer_path));
	/*
	 * The lookup's run-time fallback sorts the outer rows: no order.  The
	 * sweep returns the outer rows of keys it moved to batches on disk
	 * after the others, whenever its state outgrows the memory limit at run
	 * time (asof_sweep.c): no order either.
	 */
	if (strategy == ASOF_STRATEGY_LOOKUP || strategy == ASOF_STRATEGY_SWEEP)
		apath->cpath.path.pathkeys = NIL;
	else
		apath->cpath.path.pathkeys =
			build_join_pathkeys(root, joinrel, jointype,
								outer_path->pathkeys);
	apath->cpath.flags = CUSTOMPATH_SUPPORT_PROJECTION;
	apath->cpath.custom_paths = list_make1(outer_path);
	apath->cpath.custom_private = NIL;
	apath->cpath.methods = &asof_path_methods;
	apath->jointype = jointype;
	apath->strategy = strategy;
	apath->share_versions = asof_share_versions(outer_path, inner_path,
												strategy);
	apath->inner_relid = innerrel->relid;
	apath->spec = spec;
	apath->subroot = subroot;
	apath->inner_path = inner_path;
	apath->restrictlist = list_concat(list_copy(extra->restrictlist),
									  innerrel->baserestrictinfo);

	cost_qual_eval(&qual_cost, quals, root);
	foreach(lc, spec->keys)
		outer_exprs = lappend(outer_exprs, ((AsOfCond *) lfirst(lc))->outer);
	outer_exprs = lappend(outer_exprs, spec->time->outer);
	cost_qual_eval(&outer_expr_cost, outer_exprs, root);

	/* comparisons, or a hash, a probe and comparisons */
	inner_cmp = cpu_operator_cost * (nkeys + 1);
	outer_cmp = inner_cmp;
	if (strategy != ASOF_STRATEGY_MERGE)
	{
		inner_cmp += cpu_operator_cost * nkeys;
		outer_cmp += cpu_operator_cost * nkeys;
	}
	if (strategy == ASOF_STRATEGY_LOOKUP)
	{
		/* the binary search runs over one key's versions */
		double		per_key = inner_rows;

		if (nkeys > 0)
		{
			List	   *inner_keys = NIL;

			foreach(lc, spec->keys)
				inner_keys = lappend(inner_keys,
									 ((AsOfCond *) lfirst(lc))->inner);
			per_key = inner_rows /
				estimate_num_groups(subroot, inner_keys, Max(inner_rows, 1.0),
									NULL, NULL);
		}
		outer_cmp += cpu_operator_cost * ceil(log2(Max(per_key, 2.0)));
	}

	inner_run = inner_rows * (inner_cmp + 2 * cpu_tuple_cost);
	outer_run = outer_rows * (outer_cmp + outer_expr_cost.per_tuple +
							  qual_cost.per_tuple + cpu_tuple_cost) +
		apath->cpath.path.rows * joinrel->reltarget->cost.per_tuple;
	startup = outer_path->startup_cost + inner_path->startup_cost +
		qual_cost.startup + outer_expr_cost.startup +
		joinrel->reltarget->cost.startup;
	if (strategy == ASOF_STRATEGY_LOOKUP)
		startup += inner_path->total_cost - inner_path->startup_cost +
			inner_run;
	wj_set_path_disabled_nodes(&apath->cpath.path,
							   wj_path_disabled_nodes(outer_path) +
							   wj_path_disabled_nodes(inner_path));
	apath->cpath.path.startup_cost = startup;
	apath->cpath.path.total_cost = outer_path->total_cost +
		inner_path->total_cost + qual_cost.startup +
		outer_expr_cost.startup + joinrel->reltarget->cost.startup +
		inner_run + outer_run;
	return (Path *) apath;
}
