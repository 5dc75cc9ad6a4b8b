/*-------------------------------------------------------------------------
 *
 * asof.h
 *	  Private declarations of the AsOfJoin custom scan, shared by its
 *	  planner files (listed in asof_planner_internal.h) and its executor
 *	  files (listed in asof_exec_internal.h).
 *
 * The planner stores what the executor needs in the CustomScan node:
 *
 * custom_plans: the outer child (a plan of the outer relation, sorted by
 *		the join keys then the outer time) and the inner child (a
 *		SubqueryScan of the rewritten version subquery, sorted by the same
 *		keys then the version time, then the tie breakers).  With the sweep
 *		strategy both are sorted by time alone (descending when looking
 *		forward); with the lookup strategy the inner child is sorted like
 *		the sweep's and the outer child is not sorted at all.
 *
 * custom_scan_tlist: the outer child's columns followed by the inner
 *		child's columns; that is the layout of the node's scan tuple, on
 *		which the target list, the filter and the join filter are evaluated.
 *
 * custom_exprs: a list of ASOF_NEXPRS lists, indexed by the ASOF_EXPR_*
 *		constants below.
 *
 * custom_private: a list of four lists: the integer parameters (indexed by
 *		ASOF_META_*), the comparison descriptors (four OIDs per comparison:
 *		btree opfamily, outer type, inner type, collation; first one per
 *		key, then the time, then one per tolerance bound), the inner
 *		attribute numbers (one per key, then the time) and, for the sweep
 *		and lookup strategies, two OIDs per key: hash function and equality
 *		function.
 *
 * src/asof.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef ASOF_H
#define ASOF_H

#include "nodes/extensible.h"

#define ASOF_NAME "AsOfJoin"

/* custom_exprs sublists */
#define ASOF_EXPR_OUTER_KEYS	0	/* outer key expressions */
#define ASOF_EXPR_OUTER_TIME	1	/* one outer time expression */
#define ASOF_EXPR_TOL_BOUNDS	2	/* outer tolerance bound expressions */
#define ASOF_EXPR_JOINQUALS		3	/* LEFT join: quals deciding a match */
#define ASOF_EXPR_SHOW_KEYS		4	/* EXPLAIN: key conditions */
#define ASOF_EXPR_SHOW_TIME		5	/* EXPLAIN: the time condition */
#define ASOF_EXPR_SHOW_TOL		6	/* EXPLAIN: tolerance conditions */
#define ASOF_NEXPRS				7

/* custom_private integer parameters */
#define ASOF_META_JOINTYPE		0	/* JOIN_INNER or JOIN_LEFT */
#define ASOF_META_FORWARD		1	/* 1: earliest version at/after */
#define ASOF_META_STRICT		2	/* 1: < or > instead of <= or >= */
#define ASOF_META_NOUTER		3	/* outer columns in the scan tuple */
#define ASOF_META_NKEYS			4
#define ASOF_META_NTOL			5
#define ASOF_META_STRATEGY		6	/* one of ASOF_STRATEGY_* */
#define ASOF_META_TOL_STRICT	7	/* then one strictness flag per bound */

/* Strategies (see asof_exec.c) */
#define ASOF_STRATEGY_MERGE		0	/* both sorted by (keys, time), merged */
#define ASOF_STRATEGY_SWEEP		1	/* both sorted by time, keys hashed */
#define ASOF_STRATEGY_LOOKUP	2	/* versions hashed by key, outer unsorted */

/* Each comparison is described by four OIDs in custom_private */
#define ASOF_CMP_WIDTH			4

extern CustomScanMethods wj_asof_scan_methods;

#endif							/* ASOF_H */
