/*-------------------------------------------------------------------------
 *
 * window_topn.h
 *	  WindowTopN: the top rows of each partition of a ranking window
 *	  ("row_number() | rank() | dense_rank() OVER (PARTITION BY ... ORDER
 *	  BY ...) <= N"), kept in a bounded set per partition instead of a sort
 *	  of every row (planner in window_topn_planner.c, executor in
 *	  window_topn_exec.c, plan data in window_topn_private.c).
 *
 * src/nodes/window_topn/window_topn.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WINDOW_TOPN_H
#define WINDOW_TOPN_H

#include "nodes/extensible.h"
#include "nodes/pathnodes.h"
#include "nodes/pg_list.h"

/* the ranking function the node computes */
typedef enum WtnRankKind
{
	WTN_ROW_NUMBER,
	WTN_RANK,
	WTN_DENSE_RANK
} WtnRankKind;

/*
 * What the executor needs from the planner, kept in CustomScan.custom_private
 * through window_topn_info_to_private() and read back by
 * window_topn_info_from_private() (window_topn_private.c; plan_private.h).
 * The keys are columns of the child's output; the scan tuple is the child's
 * columns followed, unless partial, by the ranking function's value.
 */
typedef struct WindowTopNPlanInfo
{
	WtnRankKind kind;
	int64		limit;			/* N: rows ranked N or better are kept */
	bool		partial;		/* a participant's candidates, under a Gather:
								 * no rank column */
	List	   *part_cols;		/* integer list: partition key columns */
	List	   *part_sortops;	/* OID list: their ordering operators */
	List	   *part_eqops;		/* OID list: their hashable equality */
	List	   *part_colls;		/* OID list */
	List	   *part_nullsfirst;	/* integer list */
	List	   *order_cols;		/* integer list: ORDER BY columns */
	List	   *order_sortops;	/* OID list: "<" or ">" operators */
	List	   *order_colls;	/* OID list */
	List	   *order_nullsfirst;	/* integer list */
} WindowTopNPlanInfo;

extern PGDLLIMPORT CustomScanMethods wj_window_topn_scan_methods;

extern void wj_window_topn_add_paths(PlannerInfo *root, RelOptInfo *input_rel,
									 RelOptInfo *output_rel);
extern void wj_window_topn_register(void);
extern List *window_topn_info_to_private(const WindowTopNPlanInfo *info);
extern void window_topn_info_from_private(List *priv, WindowTopNPlanInfo *info);

#endif							/* WINDOW_TOPN_H */
