/*-------------------------------------------------------------------------
 *
 * gucs.c
 *	  Every configuration parameter of windowjoin: the variables and their
 *	  definitions, in one place.
 *
 * _PG_init calls wj_define_gucs() before anything reads a parameter.  The
 * variables are read where they apply: the planners read the enable_*
 * switches, the nodes the limits, the scheduler its own settings; all of
 * them include src/common/gucs.h, which includes nothing of the project.
 *
 * src/common/gucs.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <limits.h>

#include "utils/guc.h"

#include "src/common/gucs.h"

/* planner switches and limits */
bool		wj_enable_window_join = true;
bool		wj_enable_interval_join = true;
bool		wj_enable_asof_join = true;
bool		wj_enable_window_aggregate = true;
bool		wj_enable_window_topn = true;
bool		wj_enable_key_partitioning = true;
int			wj_max_windows_per_row = 100000;
int			wj_leader_participation = WJ_LEADER_AUTO;

/* the continuous view scheduler */
bool		wj_scheduler_enabled = true;
int			wj_scheduler_naptime = 1000;
int			wj_scheduler_max_backoff = 300;
int			wj_refresh_timeout = 0;

static const struct config_enum_entry wj_leader_options[] = {
	{"auto", WJ_LEADER_AUTO, false},
	{"on", WJ_LEADER_ON, false},
	{"off", WJ_LEADER_OFF, false},
	{NULL, 0, false}
};

/*
 * wj_define_gucs
 *		Define every windowjoin.* parameter (_PG_init).
 */
void
wj_define_gucs(void)
{
	DefineCustomBoolVariable("windowjoin.enable_window_join",
							 "Enables the WindowJoin custom scan for joins of windowed relations.",
							 NULL,
							 &wj_enable_window_join,
							 true,
							 PGC_USERSET,
							 GUC_EXPLAIN,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("windowjoin.enable_interval_join",
							 "Enables the IntervalJoin custom scan for joins with a time band.",
							 NULL,
							 &wj_enable_interval_join,
							 true,
							 PGC_USERSET,
							 GUC_EXPLAIN,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("windowjoin.enable_asof_join",
							 "Enables the AsOfJoin custom scan for LATERAL latest-version lookups.",
							 NULL,
							 &wj_enable_asof_join,
							 true,
							 PGC_USERSET,
							 GUC_EXPLAIN,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("windowjoin.enable_window_aggregate",
							 "Enables the window aggregation paths: TumbleAgg, WindowExpand, SessionWindow and SessionSort, and the session aggregate.",
							 "GROUP BY over tumble/date_bin/date_trunc windows, over hop/cumulate windows (each pane aggregated once), and session() windows and their aggregates.",
							 &wj_enable_window_aggregate,
							 true,
							 PGC_USERSET,
							 GUC_EXPLAIN,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("windowjoin.enable_window_topn",
							 "Enables the WindowTopN custom scan for ranking windows bounded by a run condition (Window Top-N and deduplication).",
							 "row_number(), rank() or dense_rank() OVER (PARTITION BY ... ORDER BY ...) <= N keeps the N best rows of each partition instead of sorting every row.",
							 &wj_enable_window_topn,
							 true,
							 PGC_USERSET,
							 GUC_EXPLAIN,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("windowjoin.enable_key_partitioning",
							 "Enables key-partitioned parallel plans of the interval and window joins and of session() windows.",
							 "Each parallel participant then scans the inputs and joins (or sessionizes) the keys of the partitions it claims (docs/parallel.md).",
							 &wj_enable_key_partitioning,
							 true,
							 PGC_USERSET,
							 GUC_EXPLAIN,
							 NULL, NULL, NULL);

	DefineCustomEnumVariable("windowjoin.leader_participation",
							 "Whether the leader of a Gather takes a share of the work of a node split among the parallel participants: its outer rows, or its key partitions of exchanged rows.",
							 "auto: only when fewer workers started than the server has CPUs; on: always, as PostgreSQL's own nodes do; off: never when a worker started (docs/parallel.md).",
							 &wj_leader_participation,
							 WJ_LEADER_AUTO,
							 wj_leader_options,
							 PGC_USERSET,
							 GUC_EXPLAIN,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("windowjoin.max_windows_per_row",
							"Maximum number of windows hop() or cumulate() may assign to one row.",
							"A row that would fall in more windows raises an error instead.",
							&wj_max_windows_per_row,
							100000,
							1, INT_MAX,
							PGC_USERSET,
							0,
							NULL, NULL, NULL);

	DefineCustomBoolVariable("windowjoin.scheduler",
							 "Refreshes continuous window views in the background.",
							 "Needs shared_preload_libraries = 'windowjoin'; when off, the launcher starts no worker.",
							 &wj_scheduler_enabled,
							 true,
							 PGC_SIGHUP,
							 0,
							 NULL, NULL, NULL);
	DefineCustomIntVariable("windowjoin.scheduler_naptime",
							"Time between two rounds of the continuous view scheduler.",
							NULL,
							&wj_scheduler_naptime,
							1000, 10, 3600 * 1000,
							PGC_SIGHUP,
							GUC_UNIT_MS,
							NULL, NULL, NULL);

	DefineCustomIntVariable("windowjoin.scheduler_max_backoff",
							"Longest wait before the scheduler retries a continuous view whose refresh failed.",
							"After each consecutive failure the wait doubles, from the view's schedule up to this.",
							&wj_scheduler_max_backoff,
							300, 1, 86400,
							PGC_SIGHUP,
							GUC_UNIT_S,
							NULL, NULL, NULL);
	DefineCustomIntVariable("windowjoin.refresh_timeout",
							"Longest a scheduled refresh of a continuous view may run (0: no limit).",
							"A refresh that runs longer is cancelled and counts as a failure.",
							&wj_refresh_timeout,
							0, 0, INT_MAX,
							PGC_SIGHUP,
							GUC_UNIT_MS,
							NULL, NULL, NULL);

	MarkGUCPrefixReserved("windowjoin");
}
