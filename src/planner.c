/*-------------------------------------------------------------------------
 *
 * planner.c
 *	  The join pathlist hook: the single place where windowjoin enters the
 *	  planner.  It chains any previously installed hook, then offers each
 *	  join kind's recogniser the chance to add a CustomPath to the join
 *	  relation.  Each recogniser checks its own GUC and adds nothing when it
 *	  is off or when the join is not one it can execute exactly; the paths it
 *	  adds compete with PostgreSQL's own on cost.
 *
 * src/planner.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "optimizer/paths.h"

#include "windowjoin.h"

static set_join_pathlist_hook_type prev_set_join_pathlist_hook = NULL;

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
 * wj_planner_init
 *		Install the hook, remembering the previous one.
 */
void
wj_planner_init(void)
{
	prev_set_join_pathlist_hook = set_join_pathlist_hook;
	set_join_pathlist_hook = wj_set_join_pathlist;
}
