/*-------------------------------------------------------------------------
 *
 * window_join.h
 *	  Private declarations of the WindowJoin custom scan, shared by its
 *	  planner half (window_join_planner.c) and its executor half
 *	  (window_join_exec.c).
 *
 * The planner hands the executor a CustomScan whose scan tuple
 * (custom_scan_tlist) is laid out as
 *
 *		[outer input columns][inner input columns][outer extras][inner extras]
 *
 * where the input columns are exactly the target lists of the two child
 * plans and the extras are the window columns of HOP/CUMULATE inputs that
 * the node supplies itself (the function scan that would have produced
 * them is never run).  Every expression the executor evaluates
 * (custom_exprs) refers to that scan tuple through INDEX_VAR Vars.
 *
 * src/window_join.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WINDOW_JOIN_H
#define WINDOW_JOIN_H

#include "nodes/extensible.h"

#define WJ_WINDOW_JOIN_NAME		"WindowJoin"

/*
 * How the node finds each row's window(s).
 *
 * WJ_MODE_GROUP: each row is in at most one window, identified by the
 * values of the window columns equated by the join clauses (TUMBLE inputs,
 * or windowed subqueries such as window aggregations).  Inputs are sorted
 * by those values and joined one group at a time.
 *
 * WJ_MODE_TIME: HOP and CUMULATE inputs.  The inputs are the un-expanded
 * relations sorted by their time column; the node computes the windows of
 * each row and keeps the rows of the windows still open.
 */
typedef enum WjMode
{
	WJ_MODE_GROUP = 1,
	WJ_MODE_TIME = 2
} WjMode;

/* The windowing function both inputs use */
typedef enum WjWindowKind
{
	WJ_KIND_TUMBLE = 1,
	WJ_KIND_HOP = 2,
	WJ_KIND_CUMULATE = 3,
	WJ_KIND_COLUMNS = 4			/* window columns of windowed subqueries */
} WjWindowKind;

/* Positions in CustomScan.custom_private (a List) */
enum
{
	WJ_PRIV_JOINTYPE = 0,		/* Integer: JoinType */
	WJ_PRIV_MODE,				/* Integer: WjMode */
	WJ_PRIV_KIND,				/* Integer: WjWindowKind */
	WJ_PRIV_OUTER_NCOLS,		/* Integer: width of the outer child's tlist */
	WJ_PRIV_INNER_NCOLS,		/* Integer: width of the inner child's tlist */
	WJ_PRIV_OUTER_EXTRA_EXPR,	/* List of Integer: extra is an expression? */
	WJ_PRIV_INNER_EXTRA_EXPR,	/* List of Integer */
	WJ_PRIV_EVERY,				/* Const interval (slide/step) or NULL */
	WJ_PRIV_SIZE,				/* Const interval or NULL */
	WJ_PRIV_OFFSET,				/* Const interval or NULL */
	WJ_PRIV_OUTER_HASHFN,		/* OID list: hash functions of outer keys */
	WJ_PRIV_INNER_HASHFN,		/* OID list: hash functions of inner keys */
	WJ_PRIV_KEY_COLL,			/* OID list: collations of the keys */
	WJ_PRIV_NITEMS,
	/* only when key-partitioned (a right or full join under a Gather): */
	WJ_PRIV_KP_PARAM = WJ_PRIV_NITEMS,	/* Integer: PARAM_EXEC of the partition */
	WJ_PRIV_KP_PARTS			/* Integer: number of partitions */
};

/* Positions in CustomScan.custom_exprs (a List of Lists) */
enum
{
	WJ_EXPR_JOINQUAL = 0,		/* join quals, evaluated per candidate pair */
	WJ_EXPR_OUTER_KEYS,			/* outer hash key expressions */
	WJ_EXPR_INNER_KEYS,			/* inner hash key expressions */
	WJ_EXPR_OUTER_WINDOW,		/* GROUP: window values; TIME: [time] */
	WJ_EXPR_INNER_WINDOW,
	WJ_EXPR_OUTER_EXTRAS,		/* per extra: the expression computing it */
	WJ_EXPR_INNER_EXTRAS,
	WJ_EXPR_SHOW_WINDOW,		/* window clauses, for EXPLAIN */
	WJ_EXPR_SHOW_KEYS,			/* hash key clauses, for EXPLAIN */
	WJ_EXPR_SHOW_FILTER,		/* other join quals, for EXPLAIN */
	WJ_EXPR_NITEMS
};

/*
 * Bytes the executor spends per buffered row besides the tuple's data, for
 * the planner's memory estimate: the WjRow header of window_join_exec.c
 * (56 bytes), the MinimalTuple header (16), the generation context's chunk
 * header (about 24) and a share of the inner hash chains.  Keep in step
 * with WjRow.
 */
#define WJ_STATE_ROW_OVERHEAD	104

/* window_join_exec.c */
extern CustomScanMethods wj_window_join_scan_methods;

#endif							/* WINDOW_JOIN_H */
