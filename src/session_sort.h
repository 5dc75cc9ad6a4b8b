/*-------------------------------------------------------------------------
 *
 * session_sort.h
 *	  SessionSort: the sort under a session() window, done as "hash the rows
 *	  into their partitions, then sort each partition by time"
 *	  (planner in session_sort_planner.c, executor in session_sort_exec.c).
 *
 * src/session_sort.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SESSION_SORT_H
#define SESSION_SORT_H

#include "nodes/extensible.h"
#include "nodes/pathnodes.h"

/*
 * custom_private of a SessionSort CustomScan: a list of these lists, in this
 * order.  The sort keys are the partition keys followed by the time key
 * (timestamp or timestamptz, ascending, NULLS LAST), each a column of the
 * child's output.
 */
#define WJ_SSORT_PRIVATE_ATTNOS		0	/* IntList: column numbers */
#define WJ_SSORT_PRIVATE_SORTOPS	1	/* OidList: "<" or ">" operators */
#define WJ_SSORT_PRIVATE_EQOPS		2	/* OidList: hashable "=" operators */
#define WJ_SSORT_PRIVATE_COLLS		3	/* OidList: collations */
#define WJ_SSORT_PRIVATE_NULLSFIRST 4	/* IntList: NULLS FIRST flags */
#define WJ_SSORT_PRIVATE_KP_PARTS	5	/* Integer: key partitions, 0: none */
#define WJ_SSORT_PRIVATE_GAP		6	/* SessionWindow: session()'s gap Const */

extern PGDLLIMPORT CustomScanMethods wj_session_sort_scan_methods;
extern PGDLLIMPORT CustomScanMethods wj_session_window_scan_methods;

extern void wj_session_sort_add_paths(PlannerInfo *root, RelOptInfo *input_rel,
									  RelOptInfo *output_rel);
extern void wj_session_sort_register(void);
extern bool wj_session_keypart_path(Path *path);

#endif							/* SESSION_SORT_H */
