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

#include "nodes/execnodes.h"

/* Rescan one child of node (a member of its custom_ps) */
extern void wj_rescan_child(CustomScanState *node, PlanState *child);

#endif							/* EXEC_COMMON_H */
