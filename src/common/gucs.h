/*-------------------------------------------------------------------------
 *
 * gucs.h
 *	  windowjoin's configuration parameters (gucs.c): the variables every
 *	  part of the extension reads, and their definition.
 *
 * src/common/gucs.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WJ_GUCS_H
#define WJ_GUCS_H

#include "postgres.h"

/* windowjoin.enable_*: the planner paths of each node */
extern bool wj_enable_window_join;
extern bool wj_enable_interval_join;
extern bool wj_enable_asof_join;
extern bool wj_enable_window_aggregate;
extern bool wj_enable_window_topn;
extern bool wj_enable_key_partitioning;

/* windowjoin.max_windows_per_row */
extern int	wj_max_windows_per_row;

/* windowjoin.leader_participation */
extern int	wj_leader_participation;
#define WJ_LEADER_AUTO	0
#define WJ_LEADER_ON	1
#define WJ_LEADER_OFF	2

/*
 * the continuous view scheduler: windowjoin.scheduler,
 * windowjoin.scheduler_naptime (ms), windowjoin.scheduler_max_backoff (s)
 * and windowjoin.refresh_timeout (ms)
 */
extern bool wj_scheduler_enabled;
extern int	wj_scheduler_naptime;
extern int	wj_scheduler_max_backoff;
extern int	wj_refresh_timeout;

/* Define every windowjoin.* parameter (_PG_init). */
extern void wj_define_gucs(void);

#endif							/* WJ_GUCS_H */
