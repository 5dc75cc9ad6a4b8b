/*-------------------------------------------------------------------------
 *
 * window_expand.h
 *	  Pane-based hop()/cumulate() aggregation: its planner
 *	  (window_expand_planner.c) and its WindowExpand executor node
 *	  (window_expand_exec.c).  Its GUC, windowjoin.enable_window_aggregate
 *	  (src/common/gucs.c), also governs TumbleAgg and the session paths.
 *
 * src/nodes/window_expand/window_expand.h
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
 * What the executor needs from the planner, kept in CustomScan.custom_private
 * through window_expand_info_to_private() and read back by
 * window_expand_info_from_private() (window_expand_private.c;
 * plan_private.h).  Durations are in microseconds.  The path carries the
 * same struct: its custom_private is list_make1() of a pointer to one.
 */
typedef struct WindowExpandPlanInfo
{
	WindowExpandKind kind;
	int64		every;			/* slide (hop) or step (cumulate) */
	int64		size;			/* window size */
	int64		offset;			/* window offset */
	int64		pane;			/* pane width */
} WindowExpandPlanInfo;

extern PGDLLIMPORT CustomScanMethods wj_window_expand_scan_methods;

extern void wj_window_expand_add_paths(PlannerInfo *root,
									   RelOptInfo *input_rel,
									   RelOptInfo *output_rel, void *extra);
extern void wj_window_expand_register(void);
extern List *window_expand_info_to_private(const WindowExpandPlanInfo *info);
extern void window_expand_info_from_private(List *priv,
											WindowExpandPlanInfo *info);

#endif							/* WINDOW_EXPAND_H */
