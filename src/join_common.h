/*-------------------------------------------------------------------------
 *
 * join_common.h
 *	  Small pieces shared by the join nodes' planners and executors.
 *
 * src/join_common.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef JOIN_COMMON_H
#define JOIN_COMMON_H

#include "commands/explain.h"
#include "nodes/pathnodes.h"

/* The cheapest unparameterized path of rel delivering rows in pathkeys order */
extern Path *wj_sorted_input(PlannerInfo *root, RelOptInfo *rel, List *pathkeys);

/* "Inner", "Left", ... for EXPLAIN's Join Type line */
extern const char *wj_join_type_name(JoinType jointype);

/* EXPLAIN an implicitly ANDed expression list under label; nothing if NIL */
extern void wj_explain_exprs(const char *label, List *exprs, List *context,
							 ExplainState *es);

#endif							/* JOIN_COMMON_H */
