/*-------------------------------------------------------------------------
 *
 * planner.c
 *	  The planner hooks: the single place where windowjoin enters the
 *	  planner.  The join pathlist hook offers each join kind's recogniser
 *	  the chance to add a CustomPath to a join relation; the upper paths
 *	  hook offers pane-based aggregation of hop()/cumulate() windows,
 *	  streaming aggregation of session windows and, below session()
 *	  windows, a hash-partitioned sort (SessionSort).  Both
 *	  chain any previously installed hook first.  Each recogniser checks its
 *	  own GUC and adds nothing when it is off or when the query is not one it
 *	  can execute exactly; the paths it adds compete with PostgreSQL's own on
 *	  cost.  On PostgreSQL 18 and later a planner hook also finishes the plans
 *	  with a SessionWindow for EXPLAIN (wj_session_window_finish_plan()).
 *
 * src/planner.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "optimizer/paths.h"
#include "optimizer/planner.h"

#include "session_sort.h"
#include "tumble_agg.h"
#include "window_expand.h"
#include "windowjoin.h"

static set_join_pathlist_hook_type prev_set_join_pathlist_hook = NULL;
static create_upper_paths_hook_type prev_create_upper_paths_hook = NULL;
#if PG_VERSION_NUM >= 180000
static planner_hook_type prev_planner_hook = NULL;
static bool planner_hook_reached = false;
#endif

/*
 * wj_set_join_pathlist
 *		set_join_pathlist_hook: chain, then let each recogniser add paths.
 */
static void
wj_set_join_pathlist(PlannerInfo *root, RelOptInfo *joinrel,
					 RelOptInfo *outerrel, RelOptInfo *innerrel,
					 JoinType jointype, JoinPathExtraData *extra)
{
	if (prev_set_join_pathlist_hook)
		prev_set_join_pathlist_hook(root, joinrel, outerrel, innerrel,
									jointype, extra);

	wj_asof_add_paths(root, joinrel, outerrel, innerrel, jointype, extra);
	wj_interval_add_paths(root, joinrel, outerrel, innerrel, jointype, extra);
	wj_window_join_add_paths(root, joinrel, outerrel, innerrel, jointype, extra);
}

/*
 * wj_create_upper_paths
 *		create_upper_paths_hook: chain, then offer window aggregation.
 */
static void
wj_create_upper_paths(PlannerInfo *root, UpperRelationKind stage,
					  RelOptInfo *input_rel, RelOptInfo *output_rel,
					  void *extra)
{
	if (prev_create_upper_paths_hook)
		prev_create_upper_paths_hook(root, stage, input_rel, output_rel, extra);

	if (stage == UPPERREL_WINDOW)
		wj_session_sort_add_paths(root, input_rel, output_rel);
	else if (stage == UPPERREL_GROUP_AGG)
	{
		wj_window_expand_add_paths(root, input_rel, output_rel, extra);
		wj_tumble_agg_add_paths(root, input_rel, output_rel, extra);
		wj_session_groupagg_add_paths(root, input_rel, output_rel, extra);
	}
}

#if PG_VERSION_NUM >= 180000
/*
 * wj_planner
 *		planner_hook (PostgreSQL 18 and later): chain, then, if the plan got
 *		a SessionWindow, make it one that EXPLAIN can print
 *		(wj_session_window_finish_plan()).  Plans without one are returned
 *		untouched and not walked.
 */
static PlannedStmt *
wj_planner(Query *parse, const char *query_string, int cursorOptions,
		   ParamListInfo boundParams)
{
	uint64		session_windows = wj_session_windows_planned;
	PlannedStmt *stmt;

	planner_hook_reached = true;
	if (prev_planner_hook)
		stmt = prev_planner_hook(parse, query_string, cursorOptions,
								 boundParams);
	else
		stmt = standard_planner(parse, query_string, cursorOptions,
								boundParams);
	if (wj_session_windows_planned != session_windows)
		wj_session_window_finish_plan(stmt);
	return stmt;
}

/*
 * wj_planner_hook_reached
 *		Has the planner called wj_planner in this backend?  If not, the
 *		library was loaded while the current plan is being made (it was not
 *		preloaded), or a planner hook installed after windowjoin's does not
 *		call it: plans are then not finished by wj_planner.
 */
bool
wj_planner_hook_reached(void)
{
	return planner_hook_reached;
}
#endif

/*
 * wj_join_hook_installed
 *		Is windowjoin's join pathlist hook still the one the planner calls?
 *		A library loaded after windowjoin may replace it; one that does not
 *		call the hook it replaced (Citus does not, so it must be listed
 *		first in shared_preload_libraries) leaves joins without the custom
 *		scans, silently.  windowjoin_status() reports it.
 */
bool
wj_join_hook_installed(void)
{
	return set_join_pathlist_hook == wj_set_join_pathlist;
}

/*
 * wj_planner_init
 *		Install the hooks, remembering the previous ones.
 */
void
wj_planner_init(void)
{
	prev_set_join_pathlist_hook = set_join_pathlist_hook;
	set_join_pathlist_hook = wj_set_join_pathlist;
	prev_create_upper_paths_hook = create_upper_paths_hook;
	create_upper_paths_hook = wj_create_upper_paths;
#if PG_VERSION_NUM >= 180000
	prev_planner_hook = planner_hook;
	planner_hook = wj_planner;
#endif
}
