/*-------------------------------------------------------------------------
 *
 * interval_join.h
 *	  Private declarations shared by the planner (interval_planner.c) and
 *	  the executor (interval_exec.c) of the IntervalJoin custom scan.
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
 * custom_private is the list indexed by the IJ_PRIV_* constants below.
 *
 * src/interval_join.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef INTERVAL_JOIN_H
#define INTERVAL_JOIN_H

#include "nodes/extensible.h"

#define IJ_NAME "IntervalJoin"

/* custom_private members */
#define IJ_PRIV_SCALARS		0	/* IntList, see IJ_S_* */
#define IJ_PRIV_OUTER_KEYS	1	/* IntList: key columns of the outer child */
#define IJ_PRIV_INNER_KEYS	2	/* IntList: key columns of the inner child */
#define IJ_PRIV_OPFAMILIES	3	/* OidList: btree opfamily per key */
#define IJ_PRIV_COLLATIONS	4	/* OidList: collation per key */
#define IJ_PRIV_OUTER_TYPES 5	/* OidList: outer input type per key */
#define IJ_PRIV_INNER_TYPES 6	/* OidList: inner input type per key */
#define IJ_PRIV_LO			7	/* Const int8: lower offset */
#define IJ_PRIV_HI			8	/* Const int8: upper offset */
#define IJ_PRIV_COUNT		9
/* only when key-partitioned (a partial path under a Gather): */
#define IJ_PRIV_KP_PARAM	IJ_PRIV_COUNT	/* Integer: PARAM_EXEC of the partition */
#define IJ_PRIV_KP_PARTS	(IJ_PRIV_COUNT + 1)	/* Integer: number of partitions */

/* members of the IJ_PRIV_SCALARS IntList */
#define IJ_S_JOINTYPE		0
#define IJ_S_OUTER_TIME		1	/* time column of the outer child */
#define IJ_S_INNER_TIME		2	/* time column of the inner child */
#define IJ_S_TIME_TYPE		3	/* type of both time columns */
#define IJ_S_LO_INCL		4	/* lower bound inclusive? */
#define IJ_S_HI_INCL		5	/* upper bound inclusive? */
#define IJ_S_OUTER_NCOLS	6	/* columns of the outer child's tuple */
#define IJ_S_COUNT			7

/* custom_exprs members */
#define IJ_EXPR_KEYS		0
#define IJ_EXPR_BAND		1
#define IJ_EXPR_JOINQUAL	2
#define IJ_EXPR_PG_FILTER	3	/* band and joinquals in PostgreSQL's order */

/* interval_exec.c */
extern const CustomScanMethods wj_interval_scan_methods;

#endif							/* INTERVAL_JOIN_H */
