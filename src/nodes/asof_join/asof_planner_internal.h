/*-------------------------------------------------------------------------
 *
 * asof_planner_internal.h
 *	  What the planner files of the AsOfJoin custom scan share.
 *
 * The planner side is split by phase:
 *
 *	asof_recognise.c	the LATERAL "latest version at that time" subquery:
 *						recognition of its shape and the rewritten subquery
 *						the node reads instead (backward and forward)
 *	asof_nearest_recognise.c	the same for ORDER BY version_time <->
 *						outer_time (btree_gist's distance)
 *	asof_paths.c		the join pathlist hook's entry: planning the
 *						rewritten subquery, the strategies' paths, their
 *						costs, the partial (parallel) paths
 *	asof_plan.c			PlanCustomPath: the CustomScan of the chosen path
 *
 * src/nodes/asof_join/asof_planner_internal.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef ASOF_PLANNER_INTERNAL_H
#define ASOF_PLANNER_INTERNAL_H

#include "nodes/extensible.h"
#include "nodes/parsenodes.h"
#include "nodes/pathnodes.h"

/*
 * One recognised comparison between an inner and an outer expression,
 * normalised so that it reads "inner OP outer".
 */
typedef struct AsOfCond
{
	Expr	   *inner;			/* expression of the subquery's level */
	Expr	   *outer;			/* expression of the parent's level */
	Oid			opno;			/* operator, inner on the left */
	Oid			opfamily;		/* btree opfamily it belongs to */
	int			strategy;		/* its btree strategy there */
	Oid			innertype;		/* declared input types of opno */
	Oid			outertype;
	Oid			collation;		/* input collation */
	AttrNumber	resno;			/* inner column in the rewritten subquery */
} AsOfCond;

/* Result of recognising a LATERAL subquery */
typedef struct AsOfSpec
{
	List	   *keys;			/* AsOfCond * for the equality keys */
	AsOfCond   *time;			/* the time condition */
	List	   *tolerances;		/* AsOfCond * for tolerance bounds */
	bool		forward;		/* earliest version at/after instead */
	bool		strict;			/* < or > instead of <= or >= */
	bool		hashed;			/* keys hashed, inputs sorted by time only */
	Query	   *rewritten;		/* the subquery to plan instead */
	List	   *new_colnames;	/* names of the columns added to it */

	/* nearest: ORDER BY inner_time <-> outer_time (see asof_recognise_nearest) */
	bool		nearest;
	bool		near_keep_nulls;	/* no tolerance: NULL times take part */
	bool		near_hashable;	/* keys hashable: the lookup strategy too */
	bool		near_inner_first;	/* the distance's first argument is inner */
	Oid			near_opno;		/* the distance operator */
	Oid			near_func;		/* and its function */
	Oid			near_ltop;		/* "<" ordering its results */
	Oid			near_type;		/* the time type */
} AsOfSpec;

/* Our CustomPath, extended with what PlanCustomPath needs */
typedef struct AsOfPath
{
	CustomPath	cpath;
	JoinType	jointype;
	int			strategy;		/* ASOF_STRATEGY_* */
	bool		share_versions; /* see asof_share_versions() */
	Index		inner_relid;	/* range table index of the subquery */
	AsOfSpec   *spec;
	PlannerInfo *subroot;		/* the rewritten subquery, planned */
	Path	   *inner_path;		/* its chosen (sorted) path */
	List	   *restrictlist;	/* the join's RestrictInfos */
} AsOfPath;

/* Say at DEBUG2 why a join was not taken, for whoever wonders */
#define ASOF_NO(reason) \
	do { \
		elog(DEBUG2, "AsOfJoin: subquery not recognised: %s", (reason)); \
		return NULL; \
	} while (0)
#define ASOF_NO_PATH(reason) \
	do { \
		elog(DEBUG2, "AsOfJoin: no path: %s", (reason)); \
		return; \
	} while (0)

/*
 * Which levels of Vars an expression of the subquery contains.
 */
#define ASOF_LEVEL0		0x01	/* Vars of the subquery itself */
#define ASOF_LEVEL1		0x02	/* Vars of the parent query */
#define ASOF_OTHER		0x04	/* anything we do not handle */

/* asof_recognise.c */
extern int	asof_levels(Node *node);
extern bool asof_outer_refs_walker(Node *node, int *depth);
extern void asof_flatten_and(Node *node, List **result);
extern bool asof_split_comparison(PlannerInfo *root, Node *clause,
								  AsOfCond *cond);
extern bool asof_correlated_cond(PlannerInfo *root, Node *clause, List **kept,
								 AsOfCond **cond);
extern bool asof_cond_in_opfamily(AsOfCond *cond, Oid opfamily,
								  bool need_sort);
extern bool asof_order_ok(PlannerInfo *root, List *clauses, const char *kinds,
						  const bool *fallible);
extern bool asof_outer_time_safe(Expr *expr);
extern bool asof_cond_is_key(AsOfCond *cond);
extern bool asof_keys_hashable(List *keys);
extern Query *asof_rewrite_subquery(Query *sq, AsOfSpec *spec, List *kept,
									bool sort_keys, bool time_desc,
									bool ties_desc);
extern AsOfSpec *asof_recognise(PlannerInfo *root, Query *sq);

/* asof_nearest_recognise.c */
extern AsOfSpec *asof_recognise_nearest(PlannerInfo *root, Query *sq,
										SortGroupClause *order,
										TargetEntry *order_tle);

/* asof_plan.c */
extern Plan *asof_plan_path(PlannerInfo *root, RelOptInfo *rel,
							CustomPath *best_path, List *tlist,
							List *clauses, List *custom_plans);

#endif							/* ASOF_PLANNER_INTERNAL_H */
