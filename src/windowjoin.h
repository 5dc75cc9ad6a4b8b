/*-------------------------------------------------------------------------
 *
 * windowjoin.h
 *	  Declarations shared across the windowjoin extension: configuration
 *	  variables (GUCs) and the entry points each module exposes to
 *	  _PG_init and to the planner hook.
 *
 * src/windowjoin.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WINDOWJOIN_H
#define WINDOWJOIN_H

#include "postgres.h"

#include "nodes/pathnodes.h"

/* GUCs, defined in windowjoin.c */
extern bool wj_enable_window_join;
extern bool wj_enable_interval_join;
extern bool wj_enable_asof_join;
extern bool wj_enable_window_aggregate;
extern int	wj_max_windows_per_row;
extern bool wj_enable_key_partitioning;
extern int	wj_leader_participation;

/* windowjoin.leader_participation */
#define WJ_LEADER_AUTO	0
#define WJ_LEADER_ON	1
#define WJ_LEADER_OFF	2

/*
 * planner.c: installs the chained set_join_pathlist_hook and
 * create_upper_paths_hook (and, on 18 and later, planner_hook)
 */
extern void wj_planner_init(void);
extern bool wj_join_hook_installed(void);
#if PG_VERSION_NUM >= 180000
extern bool wj_planner_hook_reached(void);
#endif
extern PGDLLIMPORT uint64 wj_window_func_scans_planned;

/*
 * Per-join-kind path generators, called from the join pathlist hook with
 * the hook's arguments.  Each adds zero or more CustomPaths to joinrel.
 */
extern void wj_asof_add_paths(PlannerInfo *root, RelOptInfo *joinrel,
							  RelOptInfo *outerrel, RelOptInfo *innerrel,
							  JoinType jointype, JoinPathExtraData *extra);
extern void wj_interval_add_paths(PlannerInfo *root, RelOptInfo *joinrel,
								  RelOptInfo *outerrel, RelOptInfo *innerrel,
								  JoinType jointype, JoinPathExtraData *extra);
extern void wj_window_join_add_paths(PlannerInfo *root, RelOptInfo *joinrel,
									 RelOptInfo *outerrel, RelOptInfo *innerrel,
									 JoinType jointype, JoinPathExtraData *extra);

/*
 * The create_upper_paths_hook's GROUP_AGG stage: sorted aggregation over a
 * session() subquery (session_groupagg_planner.c).
 */
extern void wj_session_groupagg_add_paths(PlannerInfo *root,
										  RelOptInfo *input_rel,
										  RelOptInfo *output_rel, void *extra);

/* Custom scan method registration, one per executor node */
extern void wj_asof_register(void);
extern void wj_interval_register(void);
extern void wj_window_join_register(void);

#endif							/* WINDOWJOIN_H */
