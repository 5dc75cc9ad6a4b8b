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
 *	  cost.  At UPPERREL_WINDOW the upper paths hook also offers WindowTopN
 *	  for ranking windows bounded by a run condition.  On PostgreSQL 18 and
 *	  later a planner hook also finishes the plans whose custom scans
 *	  compute a window function, for EXPLAIN (wj_finish_window_func_scans()).
 *
 * src/planner.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "optimizer/paths.h"
#include "optimizer/planner.h"

#include "src/common/exec_common.h"
#include "src/nodes/asof_join/asof.h"
#include "src/nodes/interval_join/interval_join.h"
#include "src/nodes/session/session_sort.h"
#include "src/nodes/tumble_agg/tumble_agg.h"
#include "src/nodes/window_expand/window_expand.h"
#include "src/nodes/window_join/window_join.h"
#include "src/nodes/window_topn/window_topn.h"
#include "src/windowjoin.h"

/*
 * Plans with a custom scan computing a window function (SessionWindow,
 * WindowTopN) made in this backend so far: on 18, wj_planner finishes a
 * plan for EXPLAIN only when this count moved while it was made.
 */
uint64		wj_window_func_scans_planned = 0;

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
	{
		wj_session_sort_add_paths(root, input_rel, output_rel);
		wj_window_topn_add_paths(root, input_rel, output_rel);
	}
	else if (stage == UPPERREL_GROUP_AGG)
	{
		wj_window_expand_add_paths(root, input_rel, output_rel, extra);
		wj_tumble_agg_add_paths(root, input_rel, output_rel, extra);
		wj_session_groupagg_add_paths(root, input_rel, output_rel, extra);
	}
}

#if PG_VERSION_NUM >= 180000
/*
 * window_func_call
 *		The window function of a scan tuple (session() of a SessionWindow,
 *		the ranking function of a WindowTopN) as a plain function call, for
 *		EXPLAIN to show: "session(t, '00:00:30'::interval)", "row_number()".
 *		Never evaluated.
 */
static Expr *
window_func_call(WindowFunc *wfunc)
{
	FuncExpr   *call = makeFuncExpr(wfunc->winfnoid, wfunc->wintype,
									wfunc->args, wfunc->wincollid,
									wfunc->inputcollid, COERCE_EXPLICIT_CALL);

	call->location = wfunc->location;
	return (Expr *) call;
}

/*
 * finish_window_func_scans
 *		wj_finish_window_func_scans() on the plan tree under plan.
 */
static void
finish_window_func_scans(Plan *plan)
{
	List	   *children;
	ListCell   *lc;

	if (plan == NULL)
		return;
	check_stack_depth();

	if (IsA(plan, CustomScan) &&
		(((CustomScan *) plan)->methods == &wj_session_window_scan_methods ||
		 ((CustomScan *) plan)->methods == &wj_window_topn_scan_methods))
	{
		CustomScan *cscan = (CustomScan *) plan;
		List	   *scan_tlist = NIL;

		foreach(lc, cscan->custom_scan_tlist)
		{
			TargetEntry *tle = (TargetEntry *) lfirst(lc);

			if (IsA(tle->expr, WindowFunc))
			{
				tle = flatCopyTargetEntry(tle);
				tle->expr = window_func_call((WindowFunc *) tle->expr);
			}
			scan_tlist = lappend(scan_tlist, tle);
		}
		cscan->custom_scan_tlist = scan_tlist;
	}

	/* the children: every node type whose children are not its two trees */
	children = wj_plan_children(plan);
	foreach(lc, children)
		finish_window_func_scans((Plan *) lfirst(lc));
	finish_window_func_scans(plan->lefttree);
	finish_window_func_scans(plan->righttree);
}

/*
 * wj_finish_window_func_scans
 *		In every SessionWindow and WindowTopN of a finished plan, replace the
 *		window function in custom_scan_tlist by the same call as a plain
 *		function call (PostgreSQL 18 and later).
 *
 * Since 18, EXPLAIN prints a window function with the name of its window,
 * "OVER w1", which it finds on the WindowAgg plan node that computes it;
 * for any other node it fails with "could not find window clause for
 * winref".  A SessionWindow computes session() in place of the WindowAgg,
 * a WindowTopN its ranking function, and each shows the call as the last
 * column of its scan tuple, which every
 * reference to it from this and the nodes above (a Var of that column)
 * is deparsed into.  (15 and 17 print "OVER (?)", and the plan is left as
 * it is there.)
 *
 * The window function has to stay there until set_plan_references() is
 * done: until then the targetlists of this node and of the nodes above
 * contain it (they are made from their paths' targets, and a projection
 * above may replace this node's targetlist after PlanCustomPath), and
 * setrefs.c matches them to custom_scan_tlist by equal().  Afterwards they
 * are Vars, and custom_scan_tlist is only read for the types of the scan
 * tuple (ExecInitCustomScan) and by EXPLAIN; the executors compute the
 * functions themselves (session_window_exec.c, window_topn_exec.c).
 */
static void
wj_finish_window_func_scans(PlannedStmt *stmt)
{
	ListCell   *lc;

	finish_window_func_scans(stmt->planTree);
	foreach(lc, stmt->subplans)
		finish_window_func_scans((Plan *) lfirst(lc));
}
#endif

#if PG_VERSION_NUM >= 180000
/*
 * wj_planner
 *		planner_hook (PostgreSQL 18 and later): chain, then, if the plan got
 *		a custom scan computing a window function, make it one that EXPLAIN
 *		can print (wj_finish_window_func_scans()).  Plans without one are returned
 *		untouched and not walked.
 */
static PlannedStmt *
wj_planner(Query *parse, const char *query_string, int cursorOptions,
		   ParamListInfo boundParams)
{
	uint64		planned = wj_window_func_scans_planned;
	PlannedStmt *stmt;

	planner_hook_reached = true;
	if (prev_planner_hook)
		stmt = prev_planner_hook(parse, query_string, cursorOptions,
								 boundParams);
	else
		stmt = standard_planner(parse, query_string, cursorOptions,
								boundParams);
	if (wj_window_func_scans_planned != planned)
		wj_finish_window_func_scans(stmt);
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
 * wj_upper_hook_installed
 *		The same for the upper-paths hook (window aggregation, sessions,
 *		WindowTopN).
 */
bool
wj_upper_hook_installed(void)
{
	return create_upper_paths_hook == wj_create_upper_paths;
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
