/*-------------------------------------------------------------------------
 *
 * join_common.c
 *	  Small pieces shared by the join nodes: choosing a sorted input path,
 *	  and showing a join type or a condition list in EXPLAIN.
 *
 * src/join_common.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nodes/makefuncs.h"
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
