/*-------------------------------------------------------------------------
 *
 * interval_join.h
 *	  Private declarations shared by the planner (interval_join_planner.c) and
 *	  the executor (interval_join_exec.c) of the IntervalJoin custom scan.
 *
 * The plan node is a CustomScan with scanrelid = 0 and two child plans,
 * custom_plans = (outer, inner), both sorted by (join keys, time).  Its
 * scan tuple, described by custom_scan_tlist, is the outer child's target
 * list followed by the inner child's, so the node's targetlist, qual and
 * custom_exprs refer to columns of that combined tuple (INDEX_VAR).
 *
 * custom_exprs = (key clauses, band clauses, join quals, band and join quals
 * in the order PostgreSQL evaluates them), each a List:
 * the first two only for EXPLAIN, the third evaluated per candidate pair
 * (for outer joins these are the ON-clause conditions that decide whether
 * a pair matches; conditions from WHERE stay in plan.qual), the fourth
 * instead of the third for pairs near an end of the time range.
 *
 * custom_private encodes an IntervalJoinPlanInfo (below; plan_private.h).
 *
 * src/nodes/interval_join/interval_join.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef INTERVAL_JOIN_H
#define INTERVAL_JOIN_H

#include "nodes/extensible.h"
#include "nodes/pathnodes.h"

#include "src/parallel/keypart.h"

#define IJ_NAME "IntervalJoin"

/*
 * What the executor needs from the planner, kept in CustomScan.custom_private
 * through interval_join_info_to_private() and read back by
 * interval_join_info_from_private() (interval_join_private.c; plan_private.h).
 * Columns are numbers in a child's output.
 */
typedef struct IntervalJoinPlanInfo
{
	JoinType	jointype;
	AttrNumber	outer_time;		/* time column of the outer child */
	AttrNumber	inner_time;		/* time column of the inner child */
	Oid			time_type;		/* type of both time columns */
	bool		lo_incl;		/* lower bound inclusive? */
	bool		hi_incl;		/* upper bound inclusive? */
	int			outer_ncols;	/* columns of the outer child's tuple */
	int64		lo;				/* lower offset */
	int64		hi;				/* upper offset */
	List	   *outer_keys;		/* integer list: key columns of the outer child */
	List	   *inner_keys;		/* integer list: key columns of the inner child */
	List	   *opfamilies;		/* OID list: btree opfamily per key */
	List	   *collations;		/* OID list: collation per key */
	List	   *outer_types;	/* OID list: outer input type per key */
	List	   *inner_types;	/* OID list: inner input type per key */
	WjKeyPartPlan keypart;		/* split by key partitions under a Gather
								 * (keypart.h)? */
} IntervalJoinPlanInfo;

/* custom_exprs members */
#define IJ_EXPR_KEYS		0
#define IJ_EXPR_BAND		1
#define IJ_EXPR_JOINQUAL	2
#define IJ_EXPR_PG_FILTER	3	/* band and joinquals in PostgreSQL's order */

/* interval_join_planner.c */
extern List *interval_join_info_to_private(const IntervalJoinPlanInfo *info);
extern void interval_join_info_from_private(List *priv,
										   IntervalJoinPlanInfo *info);

/* interval_join_exec.c */
extern const CustomScanMethods wj_interval_scan_methods;

/* planner.c's join pathlist hook, and _PG_init */
extern void wj_interval_add_paths(PlannerInfo *root, RelOptInfo *joinrel,
								  RelOptInfo *outerrel, RelOptInfo *innerrel,
								  JoinType jointype, JoinPathExtraData *extra);
extern void wj_interval_register(void);

#endif							/* INTERVAL_JOIN_H */
