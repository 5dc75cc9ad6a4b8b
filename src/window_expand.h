/*-------------------------------------------------------------------------
 *
 * window_expand.h
 *	  Pane-based hop()/cumulate() aggregation: its planner
 *	  (window_expand_planner.c) and its WindowExpand executor node
 *	  (window_expand_exec.c).  The GUC windowjoin.enable_window_aggregate,
 *	  defined in the planner, also governs the session aggregation paths.
 *
 * src/window_expand.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WINDOW_EXPAND_H
#define WINDOW_EXPAND_H

#include "nodes/extensible.h"
#include "nodes/pathnodes.h"

typedef enum WindowExpandKind
{
	WJ_EXPAND_HOP,				/* column 1 becomes each window's start */
	WJ_EXPAND_CUMULATE			/* column 1 becomes each window's end */
} WindowExpandKind;

/*
 * custom_private of a WindowExpand CustomScan: a list of five int8 Consts,
 * in this order.
 */
#define WJ_EXPAND_PRIVATE_KIND		0	/* WindowExpandKind */
#define WJ_EXPAND_PRIVATE_EVERY		1	/* slide (hop) or step (cumulate) */
#define WJ_EXPAND_PRIVATE_SIZE		2	/* window size */
#define WJ_EXPAND_PRIVATE_OFFSET	3	/* window offset */
#define WJ_EXPAND_PRIVATE_PANE		4	/* pane width */

extern PGDLLIMPORT CustomScanMethods wj_window_expand_scan_methods;

extern bool wj_enable_window_aggregate;

extern void wj_window_expand_add_paths(PlannerInfo *root,
									   RelOptInfo *input_rel,
									   RelOptInfo *output_rel, void *extra);
extern void wj_window_expand_register(void);

#endif							/* WINDOW_EXPAND_H */
