/*-------------------------------------------------------------------------
 *
 * grouping.h
 *	  The GROUP BY items of a grouping target, for the nodes that replace an
 *	  aggregation (see grouping.c).
 *
 * src/common/grouping.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WJ_GROUPING_H
#define WJ_GROUPING_H

#include "nodes/parsenodes.h"
#include "nodes/pathnodes.h"

/* The GROUP BY clause of the i-th item of target; NULL if it is not grouped by */
extern SortGroupClause *wj_group_clause(PlannerInfo *root, PathTarget *target,
										int i);

#endif							/* WJ_GROUPING_H */
