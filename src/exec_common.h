/*-------------------------------------------------------------------------
 *
 * exec_common.h
 *	  Executor pieces shared by the windowjoin custom scan nodes (see
 *	  exec_common.c).
 *
 * src/exec_common.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef EXEC_COMMON_H
#define EXEC_COMMON_H

#include "access/parallel.h"
#include "nodes/execnodes.h"

/* Rescan one child of node (a member of its custom_ps) */
extern void wj_rescan_child(CustomScanState *node, PlanState *child);

/* Whether this process takes a share of work planned for the workers */
extern bool wj_leader_takes_share(PlanState *node, ParallelContext *pcxt,
								  int participants);

/* Whether the leader leaves its share of a partial outer input to workers */
extern bool wj_leader_steps_back(PlanState *node, ParallelContext *pcxt);

#endif							/* EXEC_COMMON_H */
