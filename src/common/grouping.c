/*-------------------------------------------------------------------------
 *
 * grouping.c
 *	  The GROUP BY items of a grouping target, for the nodes that replace an
 *	  aggregation (TumbleAgg, WindowExpand's panes).
 *
 * The planner hands UPPERREL_GROUP_AGG paths a grouping target whose items
 * are the GROUP BY expressions (marked with their sortgroupref) and the
 * ungrouped expressions the aggregates and HAVING need.  A node that splits
 * the target into window columns, keys and the rest asks of each item
 * whether it is grouped by, and by which clause (its hash and sort
 * operators).
 *
 * src/common/grouping.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "optimizer/optimizer.h"

#include "src/common/grouping.h"

/*
 * wj_group_clause
 *		The GROUP BY clause of the i-th item (from 0) of target, or NULL
 *		when the item is not grouped by.
 */
SortGroupClause *
wj_group_clause(PlannerInfo *root, PathTarget *target, int i)
{
	Index		sgref = get_pathtarget_sortgroupref(target, i);

	if (sgref == 0)
		return NULL;
	return get_sortgroupref_clause_noerr(sgref, root->parse->groupClause);
}
