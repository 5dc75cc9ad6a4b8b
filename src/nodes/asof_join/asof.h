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
 * custom_private: an AsOfPlanInfo (below), encoded field by field by
 *		asof_info_to_private and read back by asof_info_from_private
 *		(asof_private.c, with the writer and reader of plan_private.h).
 *
 * src/nodes/asof_join/asof.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef ASOF_H
#define ASOF_H

#include "nodes/extensible.h"
#include "nodes/nodes.h"
#include "nodes/pathnodes.h"

#include "src/parallel/keypart.h"

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

/* Strategies (see asof_exec.c: one AsOfStrategy each) */
#define ASOF_STRATEGY_MERGE		0	/* both sorted by (keys, time), merged */
#define ASOF_STRATEGY_SWEEP		1	/* both sorted by time, keys hashed */
#define ASOF_STRATEGY_LOOKUP	2	/* versions hashed by key, outer unsorted */

/*
 * A comparison of an outer value with an inner value: both types, the
 * btree opfamily that compares them and the collation.
 */
typedef struct AsOfCmpInfo
{
	Oid			opfamily;
	Oid			outertype;
	Oid			innertype;
	Oid			collation;
} AsOfCmpInfo;

/* At most this many key partitions in a split load of the versions */
#define ASOF_MAX_SPLIT	64

/*
 * What the executor needs from the planner besides expressions and child
 * plans (custom_private).  Arrays have nkeys or ntol elements.
 */
typedef struct AsOfPlanInfo
{
	JoinType	jointype;		/* JOIN_INNER or JOIN_LEFT */
	bool		forward;		/* earliest version at/after the outer time */
	bool		strict;			/* < or > instead of <= or >= */
	int			strategy;		/* one of ASOF_STRATEGY_* */
	bool		share_versions;	/* parallel lookup: one copy of the versions
								 * for all participants (asof_paths.c) */
	WjKeyPartPlan split;		/* shared: the versions' load split by key
								 * partition (keypart.h): its partitions
								 * and parameter (param -1: not split) */
	int			nouter;			/* outer columns in the scan tuple */
	int			nkeys;
	int			ntol;			/* tolerance bounds */

	/* per key */
	AsOfCmpInfo *key_cmps;
	AttrNumber *key_attnos;		/* the inner child's key columns */
	Oid		   *key_hashfuncs;	/* hash support function, InvalidOid if the
								 * keys are not hashed */
	Oid		   *key_eqfuncs;	/* equality function, likewise */

	/* the time */
	AsOfCmpInfo time_cmp;
	AttrNumber	time_attno;		/* the inner child's time column */

	/* per tolerance bound */
	AsOfCmpInfo *tol_cmps;
	bool	   *tol_strict;		/* < or > instead of <= or >= */
	bool	   *tol_upper;		/* nearest: an upper bound (false otherwise) */

	/*
	 * The nearest direction (ORDER BY version_time <-> outer_time); when
	 * nearest is false the other fields are InvalidOid and false.
	 */
	bool		nearest;
	Oid			near_distfunc;	/* btree_gist's distance function */
	Oid			near_ltop;		/* "<" ordering its results */
	Oid			near_type;		/* the time type */
	bool		near_inner_first;	/* distance(inner, outer) */
	bool		near_keep_nulls;	/* no tolerance: NULL times take part */
} AsOfPlanInfo;

extern List *asof_info_to_private(const AsOfPlanInfo *info);
extern void asof_info_from_private(List *priv, AsOfPlanInfo *info);

extern CustomScanMethods wj_asof_scan_methods;

/* planner.c's join pathlist hook, and _PG_init */
extern void wj_asof_add_paths(PlannerInfo *root, RelOptInfo *joinrel,
							  RelOptInfo *outerrel, RelOptInfo *innerrel,
							  JoinType jointype, JoinPathExtraData *extra);
extern void wj_asof_register(void);

#endif							/* ASOF_H */
