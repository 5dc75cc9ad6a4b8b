/*-------------------------------------------------------------------------
 *
 * join_common.c
 *	  Small pieces shared by the join nodes: choosing a sorted input path
 *	  (complete, partial or parallel safe), the parallel-safety rule of all
 *	  windowjoin nodes, and showing a join type or a condition list in
 *	  EXPLAIN.
 *
 * src/join_common.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nodes/makefuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "utils/ruleutils.h"

#include "join_common.h"

/*
 * wj_sorted_input
 *		The cheapest unparameterized way to read rel sorted by pathkeys: its
 *		cheapest total path if already in that order, else that path under a
 *		Sort or a presorted path (an index scan), whichever is cheaper.
 *		NULL if rel has no unparameterized path.
 */
Path *
wj_sorted_input(PlannerInfo *root, RelOptInfo *rel, List *pathkeys)
{
	Path	   *cheapest = rel->cheapest_total_path;
	Path	   *presorted;
	Path	   *result;

	if (cheapest == NULL || cheapest->param_info != NULL)
		return NULL;
	if (pathkeys_contained_in(pathkeys, cheapest->pathkeys))
		return cheapest;
	result = (Path *) create_sort_path(root, rel, cheapest, pathkeys, -1.0);
	presorted = get_cheapest_path_for_pathkeys(rel->pathlist, pathkeys, NULL,
											   TOTAL_COST, false);
	if (presorted != NULL && presorted->total_cost < result->total_cost)
		result = presorted;
	return result;
}

/*
 * wj_path_parallel_safe
 *		The parallel-safety rule of every windowjoin node (join_common.h):
 *		rel->consider_parallel, every child path parallel safe, and every
 *		expression the node evaluates besides rel's own target and clauses
 *		parallel safe.
 */
bool
wj_path_parallel_safe(PlannerInfo *root, RelOptInfo *rel, List *child_paths,
					  List *exprs)
{
	ListCell   *lc;

	if (!rel->consider_parallel)
		return false;
	foreach(lc, child_paths)
	{
		if (!((Path *) lfirst(lc))->parallel_safe)
			return false;
	}
	return exprs == NIL || is_parallel_safe(root, (Node *) exprs);
}

/*
 * wj_parallel_divisor
 *		The share of a partial path's total rows that one participant
 *		processes, as the planner's own costing assumes: one per worker,
 *		plus what the leader contributes when it participates (it spends
 *		part of its time gathering, the less the more workers there are).
 */
double
wj_parallel_divisor(Path *path)
{
	double		divisor = path->parallel_workers;

	if (parallel_leader_participation)
	{
		double		leader = 1.0 - (0.3 * path->parallel_workers);

		if (leader > 0)
			divisor += leader;
	}
	return Max(divisor, 1.0);
}

/*
 * wj_partial_outer_input
 *		The cheapest partial path of rel delivering each participant's share
 *		of the rows in pathkeys order: the cheapest partial path, sorted in
 *		each worker unless already in order, or a presorted partial path
 *		(a Parallel Index Scan), whichever is cheaper.  NULL when rel has no
 *		partial path.
 */
Path *
wj_partial_outer_input(PlannerInfo *root, RelOptInfo *rel, List *pathkeys)
{
	Path	   *result = NULL;
	ListCell   *lc;

	if (!rel->consider_parallel || rel->partial_pathlist == NIL)
		return NULL;
	foreach(lc, rel->partial_pathlist)
	{
		Path	   *path = (Path *) lfirst(lc);
		Path	   *sorted = path;

		if (path->param_info != NULL)
			continue;
		if (!pathkeys_contained_in(pathkeys, path->pathkeys))
			sorted = (Path *) create_sort_path(root, rel, path, pathkeys, -1.0);
		if (result == NULL || sorted->total_cost < result->total_cost)
			result = sorted;
	}
	return result;
}

/*
 * wj_parallel_safe_input
 *		The cheapest parallel-safe unparameterized path of rel in pathkeys
 *		order (sorted unless already in order), to run complete in every
 *		participant of a parallel plan, as the inner side of PostgreSQL's
 *		non-shared parallel hash join does.  NULL if there is none.
 */
Path *
wj_parallel_safe_input(PlannerInfo *root, RelOptInfo *rel, List *pathkeys)
{
	Path	   *result = NULL;
	ListCell   *lc;

	if (!rel->consider_parallel)
		return NULL;
	foreach(lc, rel->pathlist)
	{
		Path	   *path = (Path *) lfirst(lc);
		Path	   *sorted = path;

		if (path->param_info != NULL || !path->parallel_safe)
			continue;
		if (!pathkeys_contained_in(pathkeys, path->pathkeys))
			sorted = (Path *) create_sort_path(root, rel, path, pathkeys, -1.0);
		if (result == NULL || sorted->total_cost < result->total_cost)
			result = sorted;
	}
	return result;
}

/*
 * wj_join_type_name
 *		The name EXPLAIN shows for a join type.
 */
const char *
wj_join_type_name(JoinType jointype)
{
	switch (jointype)
	{
		case JOIN_INNER:
			return "Inner";
		case JOIN_LEFT:
			return "Left";
		case JOIN_RIGHT:
			return "Right";
		case JOIN_FULL:
			return "Full";
		case JOIN_SEMI:
			return "Semi";
		case JOIN_ANTI:
			return "Anti";
		default:
			return "???";
	}
}

/*
 * wj_explain_exprs
 *		Show an implicitly ANDed list of plan expressions, deparsed in the
 *		given context, as one EXPLAIN property.  Nothing for an empty list.
 */
void
wj_explain_exprs(const char *label, List *exprs, List *context,
				 ExplainState *es)
{
	char	   *text;

	if (exprs == NIL)
		return;
	text = deparse_expression((Node *) make_ands_explicit(exprs), context,
							  true, false);
	ExplainPropertyText(label, text, es);
}
