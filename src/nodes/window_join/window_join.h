/*-------------------------------------------------------------------------
 *
 * window_join.h
 *	  Private declarations of the WindowJoin custom scan, shared by its
 *	  planner half (window_join_planner.c) and its executor half
 *	  (window_join_exec.c, window_join_spill.c).
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
 * src/nodes/window_join/window_join.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WINDOW_JOIN_H
#define WINDOW_JOIN_H

#include "nodes/extensible.h"
#include "nodes/pathnodes.h"
#include "nodes/primnodes.h"

#include "src/parallel/keypart.h"

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

/*
 * What the executor needs from the planner, kept in CustomScan.custom_private
 * through window_join_info_to_private() and read back by
 * window_join_info_from_private() (window_join_private.c; plan_private.h).
 */
typedef struct WindowJoinPlanInfo
{
	JoinType	jointype;
	WjMode		mode;
	WjWindowKind kind;
	int			outer_ncols;	/* width of the outer child's tlist */
	int			inner_ncols;	/* width of the inner child's tlist */
	List	   *outer_extra_is_expr;	/* integer list: per outer extra,
										 * 1 if it is an expression */
	List	   *inner_extra_is_expr;	/* integer list: the same, inner */
	Const	   *every;			/* interval: slide/step (TIME), else NULL */
	Const	   *size;			/* interval, NULL for window columns */
	Const	   *offset;			/* interval, NULL for window columns */
	List	   *outer_hashfn;	/* OID list: hash functions of outer keys */
	List	   *inner_hashfn;	/* OID list: hash functions of inner keys */
	List	   *key_coll;		/* OID list: collations of the keys */
	bool		outer_buckets;	/* group the unsorted outer input by window
								 * (window_join_buckets.c) */
	bool		inner_buckets;	/* the same, inner */
	List	   *outer_derived;	/* integer list: outer columns (0-based)
								 * that are TUMBLE bounds of the window, which
								 * the buckets store as NULL */
	List	   *outer_derived_step; /* per such column: its value is the
									 * window value + step * size */
	List	   *inner_derived;	/* the same, inner */
	List	   *inner_derived_step;
	WjKeyPartPlan keypart;		/* split by key partitions under a Gather
								 * (keypart.h)? */
} WindowJoinPlanInfo;

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
 * the planner's memory estimate: the WjRow header of window_join_internal.h
 * (56 bytes), the MinimalTuple header (16), the generation context's chunk
 * header (about 24) and a share of the inner hash chains.  Keep in step
 * with WjRow.
 */
#define WJ_STATE_ROW_OVERHEAD	104

/*
 * A row in a TUMBLE input's buckets (window_join_buckets.c): the hash of its
 * equality keys, computed as it is read, then its MinimalTuple.  The
 * planner counts the header too (wj_window_bucket_bytes).
 */
typedef struct WjBucketRow
{
	uint32		hash;
	bool		hashnull;		/* some key is NULL: it never matches */
} WjBucketRow;

#define WJ_BUCKET_ROW_HEADER	MAXALIGN(sizeof(WjBucketRow))

/* window_join_planner.c */
extern List *window_join_info_to_private(const WindowJoinPlanInfo *info);
extern void window_join_info_from_private(List *priv, WindowJoinPlanInfo *info);

/* window_join_exec.c */
extern CustomScanMethods wj_window_join_scan_methods;

/* planner.c's join pathlist hook, and _PG_init */
extern void wj_window_join_add_paths(PlannerInfo *root, RelOptInfo *joinrel,
									 RelOptInfo *outerrel, RelOptInfo *innerrel,
									 JoinType jointype, JoinPathExtraData *extra);
extern void wj_window_join_register(void);

#endif							/* WINDOW_JOIN_H */
