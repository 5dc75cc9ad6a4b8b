/*-------------------------------------------------------------------------
 *
 * window_join_keypart_paths.c
 *	  The key-partitioned partial paths of the WindowJoin custom scan, and
 *	  their plans.
 *
 * INTERFACE ROUTINES (window_join_planner_internal.h)
 *		wj_add_keypart_path		offer the key-partitioned paths of a join
 *
 * Under a Gather, a WindowJoin can split its work by key (docs/parallel.md):
 * the rows of both inputs go by key partition (the first hash key, hashed;
 * NULL keys in partition 0), so each key is joined, and each unmatched row
 * emitted, in exactly one process, which lets every join type run in
 * parallel, RIGHT and FULL included.  Two ways to get each participant the
 * rows of its partitions:
 *
 *	every participant reads both inputs in full, their scans keeping the
 *	rows of the partition it is joining (a filter on a PARAM_EXEC that the
 *	executor sets to each partition it claims): the sorts and the join
 *	split, the scans do not;
 *	each reads its share of both inputs and the rows are exchanged by
 *	partition (a KeyExchange below each input's Sort).
 *
 * Both are offered, as partial paths, and the costs decide.  The path
 * itself and its CustomScan are the ordinary ones (window_join_plan.c);
 * only the plan's partition parameter or exchange is added here.
 *
 * src/nodes/window_join/window_join_keypart_paths.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nodes/extensible.h"
#include "optimizer/pathnode.h"

#include "src/common/input_paths.h"
#include "src/common/join_nulling.h"
#include "src/parallel/keypart.h"
#include "src/nodes/window_join/window_join.h"
#include "src/nodes/window_join/window_join_planner_internal.h"

static Plan *window_join_plan_keypart(PlannerInfo *root, RelOptInfo *rel,
									  CustomPath *best_path, List *tlist,
									  List *clauses, List *custom_plans);
static Plan *window_join_plan_exchange(PlannerInfo *root, RelOptInfo *rel,
									   CustomPath *best_path, List *tlist,
									   List *clauses, List *custom_plans);

static CustomPathMethods wj_window_join_keypart_path_methods = {
	.CustomName = WJ_WINDOW_JOIN_NAME,
	.PlanCustomPath = window_join_plan_keypart,
};

static CustomPathMethods wj_window_join_exchange_path_methods = {
	.CustomName = WJ_WINDOW_JOIN_NAME,
	.PlanCustomPath = window_join_plan_exchange,
};

/*
 * wj_add_keypart_path
 *		Partial paths by key partitioning (any join type): the rows of both
 *		inputs go by key partition (the first hash key, hashed; NULL keys in
 *		partition 0), so each key is joined, and each unmatched row emitted,
 *		in exactly one process.  Either every participant reads both inputs
 *		in full, their scans keeping the rows of the partition it is joining
 *		(the sorts and the join split, the scans do not), or each reads its
 *		share of both and the rows are exchanged by partition; the costs
 *		decide.  Partitions are claimed from a shared counter at run time
 *		(window_join_exec.c), so the result does not depend on how many
 *		workers actually start.  Offered only in the top query level (see
 *		below).
 */
void
wj_add_keypart_path(PlannerInfo *root, RelOptInfo *joinrel, JoinType jointype,
					RelOptInfo *outer_base, RelOptInfo *inner_base,
					List *outer_pk, List *inner_pk, double wpr,
					WjPathInfo *pinfo, List *node_exprs, double state_bytes)
{
	OpExpr	   *op = (OpExpr *) linitial_node(RestrictInfo, pinfo->kclauses)->clause;
	bool		outer_left = linitial_int(pinfo->kouter_left) != 0;
	Node	   *okey = outer_left ? linitial(op->args) : lsecond(op->args);
	Node	   *ikey = outer_left ? lsecond(op->args) : linitial(op->args);
	Path	   *outer_path;
	Path	   *inner_path;
	Path	   *path;
	WjPathInfo *kinfo = pinfo;
	int			workers;

	/*
	 * Only in the top query level: the partition parameter has to be
	 * declared valid in every level's outer_params (wj_keypart_plan), and a
	 * level whose plan is made before its parent has identified its own
	 * (a SubPlan, an InitPlan, a CTE) would lose it again.
	 */
	if (root->query_level != 1 || root->parent_root != NULL)
		return;

	/* the filter goes on the base relations' scans: plain columns only */
	if (!IsA(okey, Var) || ((Var *) okey)->varno != outer_base->relid ||
		!IsA(ikey, Var) || ((Var *) ikey)->varno != inner_base->relid ||
		outer_base->rtekind != RTE_RELATION ||
		inner_base->rtekind != RTE_RELATION)
		return;
	workers = wj_keypart_workers(outer_base, inner_base);
	if (workers <= 0)
		return;

	/*
	 * every participant reads both inputs in full; TUMBLE inputs grouped by
	 * window in the node where they fit (wj_window_bucket_input), each
	 * partition's rows anew
	 */
	outer_path = wj_parallel_safe_input(root, outer_base, outer_pk);
	inner_path = wj_parallel_safe_input(root, inner_base, inner_pk);
	if (pinfo->kind == WJ_KIND_TUMBLE && outer_path != NULL && inner_path != NULL)
	{
		Path	   *obucket = wj_window_bucket_input(outer_base->pathlist,
													 outer_pk, true);
		Path	   *ibucket = wj_window_bucket_input(inner_base->pathlist,
													 inner_pk, true);

		kinfo = wj_window_bucket_paths(pinfo, obucket, ibucket,
									   &outer_path, &inner_path);
	}
	if (outer_path != NULL && inner_path != NULL &&
		wj_keypart_scan(outer_path) != NULL &&
		wj_keypart_scan(inner_path) != NULL)
	{
		path = wj_make_join_path(root, joinrel, jointype, outer_path,
								 inner_path, wpr, kinfo, node_exprs,
								 state_bytes);
		if (path->parallel_safe)
		{
			wj_keypart_make_partial(root, path, outer_path, inner_path, okey,
									workers);
			((CustomPath *) path)->methods = &wj_window_join_keypart_path_methods;
			add_partial_path(joinrel, path);
		}
	}

	/*
	 * each reads its share, the rows are exchanged; TUMBLE inputs grouped by
	 * window in the node (each partition's rows anew) where the whole of a
	 * side would fit in memory, else sorted above the exchange
	 */
	kinfo = pinfo;
	if (pinfo->kind == WJ_KIND_TUMBLE &&
		wj_window_bucket_input(outer_base->pathlist, outer_pk, false) != NULL &&
		wj_window_bucket_input(inner_base->pathlist, inner_pk, false) != NULL)
	{
		outer_path = inner_path = NULL;
		kinfo = wj_window_bucket_paths(pinfo,
									   wj_keypart_exchange_input(root, outer_base, NIL),
									   wj_keypart_exchange_input(root, inner_base, NIL),
									   &outer_path, &inner_path);
	}
	else
	{
		outer_path = wj_keypart_exchange_input(root, outer_base, outer_pk);
		inner_path = wj_keypart_exchange_input(root, inner_base, inner_pk);
	}
	if (outer_path != NULL && inner_path != NULL)
	{
		path = wj_make_join_path(root, joinrel, jointype, outer_path,
								 inner_path, wpr, kinfo, node_exprs,
								 state_bytes);
		if (path->parallel_safe)
		{
			wj_keypart_exchanged(root, path, outer_path, inner_path, okey,
								 Max(outer_path->parallel_workers,
									 inner_path->parallel_workers));
			((CustomPath *) path)->methods = &wj_window_join_exchange_path_methods;
			add_partial_path(joinrel, path);
		}
	}
}

/*
 * window_join_plan_keypart_common
 *		PlanCustomPath of a key-partitioned path: the ordinary CustomScan,
 *		whose two input scans get the partition filter on a new PARAM_EXEC
 *		that the executor sets to each partition it claims, or whose
 *		inputs' Sorts get a KeyExchange below them reading the parameter
 *		(exchange).
 */
static Plan *
window_join_plan_keypart_common(PlannerInfo *root, RelOptInfo *rel,
								CustomPath *best_path, List *tlist,
								List *clauses, List *custom_plans,
								bool exchange)
{
	CustomScan *cscan;

	cscan = window_join_make_plan(root, rel, best_path, tlist, clauses,
								  custom_plans,
								  exchange ? WJ_KEYPART_EXCHANGE : WJ_KEYPART_FILTER);
	wj_custom_join_nullingrels(cscan, rel);
	return &cscan->scan.plan;
}

/*
 * window_join_plan_keypart
 *		PlanCustomPath of a key-partitioned path whose participants read
 *		both inputs in full.
 */
static Plan *
window_join_plan_keypart(PlannerInfo *root, RelOptInfo *rel,
						 CustomPath *best_path, List *tlist, List *clauses,
						 List *custom_plans)
{
	return window_join_plan_keypart_common(root, rel, best_path, tlist,
										   clauses, custom_plans, false);
}

/*
 * window_join_plan_exchange
 *		PlanCustomPath of a key-partitioned path whose rows are exchanged.
 */
static Plan *
window_join_plan_exchange(PlannerInfo *root, RelOptInfo *rel,
						  CustomPath *best_path, List *tlist, List *clauses,
						  List *custom_plans)
{
	return window_join_plan_keypart_common(root, rel, best_path, tlist,
										   clauses, custom_plans, true);
}
