/*-------------------------------------------------------------------------
 *
 * join_common.h
 *	  Small pieces shared by the join nodes' planners; includes the EXPLAIN
 *	  helpers of explain_common.h for their executors.
 *
 * src/join_common.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef JOIN_COMMON_H
#define JOIN_COMMON_H

#include "nodes/pathnodes.h"

#include "explain_common.h"

/* The cheapest unparameterized path of rel delivering rows in pathkeys order */
extern Path *wj_sorted_input(PlannerInfo *root, RelOptInfo *rel, List *pathkeys);

#endif							/* JOIN_COMMON_H */
