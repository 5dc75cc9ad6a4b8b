/*-------------------------------------------------------------------------
 *
 * window_join_planner_internal.h
 *	  What the planner files of the WindowJoin custom scan share.
 *
 * The planner is split in three (see window_join_planner.c for what is
 * recognised and how it is costed); calls go one way, down this list:
 *
 *	window_join_planner.c		recognising the join, the paths it offers
 *	window_join_keypart_paths.c	the key-partitioned partial paths and their
 *								plans
 *	window_join_plan.c			a WindowJoin path over two sorted inputs,
 *								its cost, and the CustomScan made from it
 *
 * src/nodes/window_join/window_join_planner_internal.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WINDOW_JOIN_PLANNER_INTERNAL_H
#define WINDOW_JOIN_PLANNER_INTERNAL_H

#include "nodes/pathnodes.h"
#include "nodes/plannodes.h"

#include "src/nodes/window_join/window_join.h"

/*
 * What a WindowJoin path hands its PlanCustomPath: the path's
 * custom_private is list_make1() of a pointer to this struct.  It is a
 * planner-only C struct, not a node, like every windowjoin node's path-side
 * data (plan_private.h): paths are never copied or written out.
 */
typedef struct WjPathInfo
{
	JoinType	jointype;
	WjMode		mode;
	WjWindowKind kind;
	List	   *wclauses;		/* RestrictInfos implemented by windows */
	List	   *kclauses;		/* RestrictInfos used as hash keys */
	List	   *kouter_left;	/* per key clause: outer side is the left arg */
	List	   *jclauses;		/* RestrictInfos evaluated per pair */
	List	   *oclauses;		/* pushed-down quals, after the join */
	Var		   *outer_time;		/* TIME: the time columns */
	Var		   *inner_time;
	List	   *outer_extras;	/* TIME: Vars/PlaceHolderVars we supply */
	List	   *inner_extras;
	Const	   *c_every;		/* slide/step (TIME only), else NULL */
	Const	   *c_size;			/* NULL for window columns */
	Const	   *c_offset;
	List	   *gclauses;		/* GROUP: the window clauses to group by */
	List	   *gouter_left;	/* per group clause: outer side is left */
	bool		outer_buckets;	/* GROUP: the outer input is unsorted and
								 * grouped by window in the node
								 * (window_join_buckets.c) */
	bool		inner_buckets;	/* the same, inner */
} WjPathInfo;

/* window_join_planner.c */
extern Node *wj_strip_phv(Node *node);
extern bool wj_tumble_bound(Node *expr, Node **time, bool *is_end,
							int64 *size, int64 *offset);
extern Path *wj_window_bucket_input(List *paths, List *pathkeys,
									bool need_parallel_safe);
extern WjPathInfo *wj_window_bucket_paths(WjPathInfo *pinfo, Path *obucket,
										  Path *ibucket, Path **outer_path,
										  Path **inner_path);

/* window_join_plan.c */
extern Path *wj_make_join_path(PlannerInfo *root, RelOptInfo *joinrel,
							   JoinType jointype, Path *outer_path,
							   Path *inner_path, double wpr,
							   WjPathInfo *pinfo, List *node_exprs,
							   double state_bytes);
extern CustomScan *window_join_make_plan(PlannerInfo *root, RelOptInfo *rel,
										 CustomPath *best_path, List *tlist,
										 List *clauses, List *custom_plans,
										 WjKeyPartMode mode);

/* window_join_keypart_paths.c */
extern void wj_add_keypart_path(PlannerInfo *root, RelOptInfo *joinrel,
								JoinType jointype, RelOptInfo *outer_base,
								RelOptInfo *inner_base, List *outer_pk,
								List *inner_pk, double wpr,
								WjPathInfo *pinfo, List *node_exprs,
								double state_bytes);

#endif							/* WINDOW_JOIN_PLANNER_INTERNAL_H */
