/*-------------------------------------------------------------------------
 *
 * windowjoin.c
 *	  Module entry point: defines the configuration parameters
 *	  (src/common/gucs.c) and, when the library is loaded through
 *	  shared_preload_libraries (or LOAD), registers the custom scan nodes
 *	  and chains the planner hook.
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

#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"

#include "src/common/gucs.h"
#include "src/continuous/continuous.h"
#include "src/nodes/asof_join/asof.h"
#include "src/nodes/interval_join/interval_join.h"
#include "src/nodes/session/session_sort.h"
#include "src/nodes/tumble_agg/tumble_agg.h"
#include "src/nodes/window_expand/window_expand.h"
#include "src/nodes/window_join/window_join.h"
#include "src/nodes/window_topn/window_topn.h"
#include "src/nodes/key_exchange/key_exchange.h"
#include "src/windowjoin.h"

PG_MODULE_MAGIC;

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

	wj_define_gucs();
	wj_scheduler_init(wj_preloaded);

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
						   "; but a library loaded after windowjoin replaced its planner hook, "
						   "and unless that library calls it, queries plan without this node "
						   "(list windowjoin last in shared_preload_libraries)"));
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
					wj_enable_window_aggregate, wj_upper_hook_installed());
	wj_status_accel(rsinfo, "WindowTopN", "windowjoin.enable_window_topn",
					wj_enable_window_topn, wj_upper_hook_installed());
	wj_status_row(rsinfo, "continuous view scheduler", wj_scheduler_registered(),
				  wj_scheduler_registered() ?
				  "running: views with a schedule are refreshed in the background" :
				  "not running: windowjoin.refresh() is manual; background refresh needs shared_preload_libraries = 'windowjoin'");

	return (Datum) 0;
}
