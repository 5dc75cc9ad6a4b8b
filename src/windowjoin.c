/*-------------------------------------------------------------------------
 *
 * windowjoin.c
 *	  Module entry point: defines the configuration parameters and, when
 *	  the library is loaded through shared_preload_libraries (or LOAD),
 *	  registers the custom scan nodes and chains the planner hook.
 *
 * The SQL-callable window functions (tumble, hop, cumulate, session) work
 * whether or not the library was preloaded: PostgreSQL loads it on their
 * first call, which runs _PG_init too.  Joins are accelerated only in
 * backends where _PG_init has run before planning, so the documented setup
 * is shared_preload_libraries = 'windowjoin'.  windowjoin_status() (version
 * 0.2) tells a user which of the two situations a session is in, and what
 * is active.
 *
 * src/windowjoin.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <limits.h>

#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/tuplestore.h"

#include "continuous.h"
#include "key_exchange.h"
#include "session_sort.h"
#include "tumble_agg.h"
#include "window_expand.h"
#include "window_topn.h"
#include "windowjoin.h"

PG_MODULE_MAGIC;

bool		wj_enable_window_join = true;
bool		wj_enable_interval_join = true;
bool		wj_enable_asof_join = true;
bool		wj_enable_window_aggregate = true;
bool		wj_enable_key_partitioning = true;
int			wj_max_windows_per_row = 100000;
int			wj_leader_participation = WJ_LEADER_AUTO;

static const struct config_enum_entry wj_leader_options[] = {
	{"auto", WJ_LEADER_AUTO, false},
	{"on", WJ_LEADER_ON, false},
	{"off", WJ_LEADER_OFF, false},
	{NULL, 0, false}
};

/* was the library loaded through shared_preload_libraries? */
static bool wj_preloaded = false;

void		_PG_init(void);

PG_FUNCTION_INFO_V1(windowjoin_status);

/*
 * _PG_init
 *		Define GUCs, register custom scan methods and install the hook.
 */
void
_PG_init(void)
{
	wj_preloaded = process_shared_preload_libraries_in_progress;

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
							 "Enables pane-based aggregation of hop() and cumulate() windows.",
							 "GROUP BY over hop/cumulate windows aggregates each pane once instead of each window copy.",
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

	wj_scheduler_init(wj_preloaded);

	MarkGUCPrefixReserved("windowjoin");

	wj_window_expand_register();
	wj_tumble_agg_register();
	wj_asof_register();
	wj_interval_register();
	wj_window_join_register();
	wj_session_sort_register();
	wj_window_topn_register();
	wj_key_exchange_register();
	wj_planner_init();
}

/*
 * wj_status_row
 *		Append one (feature, active, detail) row to the status result.
 */
static void
wj_status_row(ReturnSetInfo *rsinfo, const char *feature, bool active,
			  const char *detail)
{
	Datum		values[3];
	bool		nulls[3] = {false, false, false};

	values[0] = CStringGetTextDatum(feature);
	values[1] = BoolGetDatum(active);
	values[2] = CStringGetTextDatum(detail);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/*
 * wj_status_accel
 *		The row of one accelerated plan shape: active when its GUC is on
 *		and its planner hook is still called (running this function loaded
 *		the library, so the hook was installed in this backend; a library
 *		loaded later may have replaced it); the detail names the GUC and,
 *		when the library is not preloaded, that other sessions plan without
 *		it.
 */
static void
wj_status_accel(ReturnSetInfo *rsinfo, const char *feature, const char *guc,
				bool on, bool hooked)
{
	wj_status_row(rsinfo, feature, on && hooked,
				  psprintf("%s = %s%s%s", guc, on ? "on" : "off",
						   wj_preloaded ? "" :
						   " (this session only)",
						   hooked ? "" :
						   "; but a library loaded after windowjoin replaced its join planner hook, "
						   "and unless that library calls it, joins plan without this node "
						   "(citus does not: list citus first in shared_preload_libraries)"));
}

/*
 * windowjoin_status
 *		SQL-callable (extension version 0.2): one row per feature telling
 *		whether it is active in this session.  The first row says whether
 *		the library was loaded through shared_preload_libraries, the only
 *		setup under which every session plans joins with the custom scans,
 *		and how to get there when it was not.
 */
Datum
windowjoin_status(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, 0);

	wj_status_row(rsinfo, "shared_preload_libraries", wj_preloaded,
				  wj_preloaded ?
				  "preloaded: every session plans joins with the custom scans" :
				  "not preloaded: sessions plan joins without the custom scans until they load the library; "
				  "set shared_preload_libraries = 'windowjoin' and restart the server");
	wj_status_accel(rsinfo, "WindowJoin", "windowjoin.enable_window_join",
					wj_enable_window_join, wj_join_hook_installed());
	wj_status_accel(rsinfo, "IntervalJoin", "windowjoin.enable_interval_join",
					wj_enable_interval_join, wj_join_hook_installed());
	wj_status_accel(rsinfo, "AsOfJoin", "windowjoin.enable_asof_join",
					wj_enable_asof_join, wj_join_hook_installed());
	wj_status_accel(rsinfo, "window aggregation (WindowExpand, session GroupAggregate)",
					"windowjoin.enable_window_aggregate",
					wj_enable_window_aggregate, true);
	wj_status_accel(rsinfo, "WindowTopN", "windowjoin.enable_window_topn",
					wj_enable_window_topn, true);
	wj_status_row(rsinfo, "continuous view scheduler", wj_scheduler_registered(),
				  wj_scheduler_registered() ?
				  "running: views with a schedule are refreshed in the background" :
				  "not running: windowjoin.refresh() is manual; background refresh needs shared_preload_libraries = 'windowjoin'");

	return (Datum) 0;
}
