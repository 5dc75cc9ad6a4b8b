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
 * is shared_preload_libraries = 'windowjoin'.
 *
 * src/windowjoin.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <limits.h>

#include "fmgr.h"
#include "utils/guc.h"

#include "session_sort.h"
#include "window_agg.h"
#include "windowjoin.h"

PG_MODULE_MAGIC;

bool		wj_enable_window_join = true;
bool		wj_enable_interval_join = true;
bool		wj_enable_asof_join = true;
int			wj_max_windows_per_row = 100000;

void		_PG_init(void);

/*
 * _PG_init
 *		Define GUCs, register custom scan methods and install the hook.
 */
void
_PG_init(void)
{
	DefineCustomBoolVariable("windowjoin.enable_window_join",
							 "Enables the WindowJoin custom scan for joins of windowed relations.",
							 NULL,
							 &wj_enable_window_join,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("windowjoin.enable_interval_join",
							 "Enables the IntervalJoin custom scan for joins with a time band.",
							 NULL,
							 &wj_enable_interval_join,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("windowjoin.enable_asof_join",
							 "Enables the AsOfJoin custom scan for LATERAL latest-version lookups.",
							 NULL,
							 &wj_enable_asof_join,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("windowjoin.enable_window_aggregate",
							 "Enables pane-based aggregation of hop() and cumulate() windows.",
							 "GROUP BY over hop/cumulate windows aggregates each pane once instead of each window copy.",
							 &wj_enable_window_aggregate,
							 true,
							 PGC_USERSET,
							 0,
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

	MarkGUCPrefixReserved("windowjoin");

	wj_window_expand_register();
	wj_asof_register();
	wj_interval_register();
	wj_window_join_register();
	wj_session_sort_register();
	wj_planner_init();
}
