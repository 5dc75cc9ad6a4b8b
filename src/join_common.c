/*-------------------------------------------------------------------------
 *
 * join_common.c
 *	  Small pieces shared by the join nodes' planners: choosing a sorted
 *	  input path.  Their EXPLAIN helpers are in explain_common.c.
 *
 * src/join_common.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"

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
