/*-------------------------------------------------------------------------
 *
 * interval_planner.c
 *	  Placeholder: recognition of this join kind is not implemented yet, so
 *	  it adds no path and PostgreSQL plans the join as usual.
 *
 * src/interval_planner.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "windowjoin.h"

/*
 * wj_interval_add_paths
 *		Adds no path yet.
 */
void
wj_interval_add_paths(PlannerInfo *root, RelOptInfo *joinrel,
			   RelOptInfo *outerrel, RelOptInfo *innerrel,
			   JoinType jointype, JoinPathExtraData *extra)
{
}

/*
 * wj_interval_register
 *		No custom scan methods to register yet.
 */
void
wj_interval_register(void)
{
}
