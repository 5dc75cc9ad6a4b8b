/*-------------------------------------------------------------------------
 *
 * windowjoin.h
 *	  The planner hooks (planner.c): what _PG_init, windowjoin_status()
 *	  and the nodes' planners call.  The parameters are in
 *	  src/common/gucs.h; each node's entry points in its own header.
 *
 * src/windowjoin.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WINDOWJOIN_H
#define WINDOWJOIN_H

#include "postgres.h"

#include "nodes/pathnodes.h"

/*
 * planner.c: installs the chained set_join_pathlist_hook and
 * create_upper_paths_hook (and, on 18 and later, planner_hook)
 */
extern void wj_planner_init(void);
extern bool wj_join_hook_installed(void);
extern bool wj_upper_hook_installed(void);
#if PG_VERSION_NUM >= 180000
extern bool wj_planner_hook_reached(void);
#endif
extern PGDLLIMPORT uint64 wj_window_func_scans_planned;

#endif							/* WINDOWJOIN_H */
