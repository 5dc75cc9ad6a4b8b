/*-------------------------------------------------------------------------
 *
 * exec_common.h
 *	  Executor pieces shared by the windowjoin custom scan nodes (see
 *	  exec_common.c).
 *
 * src/common/exec_common.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef EXEC_COMMON_H
#define EXEC_COMMON_H

#include "access/parallel.h"
#include "nodes/execnodes.h"

/* The children of a plan besides its lefttree and righttree */
extern List *wj_plan_children(Plan *plan);

/* Rescan one child of node (a member of its custom_ps) */
extern void wj_rescan_child(CustomScanState *node, PlanState *child);

/* Whether this process takes a share of work planned for the workers */
extern bool wj_leader_takes_share(PlanState *node, ParallelContext *pcxt,
								  int participants);

/* Whether the leader leaves its share of a partial outer input to workers */
extern bool wj_leader_steps_back(PlanState *node, ParallelContext *pcxt);

/*
 * A node's side of that choice, made once per scan: a node that splits a
 * partial outer input sets pcxt in its InitializeDSMCustomScan (NULL again
 * at shutdown), clears asked on rescan, and returns no rows while
 * wj_leader_leaves_share says so.
 */
typedef struct WjLeaderShare
{
	ParallelContext *pcxt;		/* the leader's under a Gather, or NULL */
	bool		asked;			/* this scan has asked */
	bool		left;			/* its share is left to the workers */
} WjLeaderShare;

static inline bool
wj_leader_leaves_share(WjLeaderShare *ls, PlanState *node)
{
	if (!ls->asked)
	{
		ls->asked = true;
		ls->left = wj_leader_steps_back(node, ls->pcxt);
	}
	return ls->left;
}

#endif							/* EXEC_COMMON_H */
