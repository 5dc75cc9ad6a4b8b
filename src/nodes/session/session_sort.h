/*-------------------------------------------------------------------------
 *
 * session_sort.h
 *	  SessionSort: the sort under a session() window, done as "hash the rows
 *	  into their partitions, then sort each partition by time"
 *	  (planner in session_sort_planner.c, executor in session_sort_exec.c
 *	  and the files session_sort_internal.h lists).
 *
 * src/nodes/session/session_sort.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SESSION_SORT_H
#define SESSION_SORT_H

#include "nodes/extensible.h"
#include "nodes/pathnodes.h"
#include "nodes/plannodes.h"
#include "nodes/primnodes.h"

#include "src/parallel/keypart.h"

/*
 * What the executor needs from the planner, kept in CustomScan.custom_private
 * through session_sort_info_to_private() and read back by
 * session_sort_info_from_private() (session_sort_private.c;
 * plan_private.h).  The sort keys are the partition keys followed by the
 * time key (timestamp or timestamptz, ascending, NULLS LAST), each a column
 * of the child's output; the lists have one element per key.
 */
typedef struct SessionSortPlanInfo
{
	List	   *attnos;			/* integer list: column numbers */
	List	   *sortops;		/* OID list: "<" or ">" operators */
	List	   *eqops;			/* OID list: hashable "=" operators */
	List	   *colls;			/* OID list: collations */
	List	   *nullsfirst;		/* integer list: NULLS FIRST flags */
	bool		has_gap;		/* a SessionWindow (computes session())? */
	Const	   *gap;			/* if so: session()'s gap, else NULL */
	WjKeyPartPlan keypart;		/* key-partitioned (docs/parallel.md), the
								 * partitions' rows exchanged between the
								 * participants when the input is partial;
								 * no parameter (keypart.h) */
} SessionSortPlanInfo;

extern PGDLLIMPORT CustomScanMethods wj_session_sort_scan_methods;
extern PGDLLIMPORT CustomScanMethods wj_session_window_scan_methods;

extern void wj_session_sort_add_paths(PlannerInfo *root, RelOptInfo *input_rel,
									  RelOptInfo *output_rel);
extern void wj_session_sort_register(void);
extern bool wj_session_keypart_path(Path *path);
extern List *session_sort_info_to_private(const SessionSortPlanInfo *info);
extern void session_sort_info_from_private(List *priv,
										   SessionSortPlanInfo *info);

/*
 * The create_upper_paths_hook's GROUP_AGG stage: sorted aggregation over a
 * session() subquery (session_groupagg_planner.c).
 */
extern void wj_session_groupagg_add_paths(PlannerInfo *root,
										  RelOptInfo *input_rel,
										  RelOptInfo *output_rel, void *extra);

#endif							/* SESSION_SORT_H */
