/*-------------------------------------------------------------------------
 *
 * input_paths.c
 *	  The input paths of a node's path: the cheapest way to read a relation
 *	  sorted (complete, partial or parallel safe), and the parallel-safety
 *	  rule of every windowjoin node (input_paths.h).
 *
 * src/common/input_paths.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"

#include "src/common/input_paths.h"
#include "src/common/pg_compat.h"

/*
 * wj_sorted_input
 *		The cheapest unparameterized way to read rel sorted by pathkeys: its
 *		cheapest total path if already in that order, else that path under a
 *		Sort or a presorted path (an index scan), whichever is cheaper.
 *		NULL if rel has no unparameterized path.
 */
Path *
wj_sorted_input(PlannerInfo *root, RelOptInfo *rel, List *pathkeys)
{
	Path	   *cheapest = rel->cheapest_total_path;
	Path	   *presorted;
	Path	   *result;

	if (cheapest == NULL || cheapest->param_info != NULL)
		return NULL;
	if (pathkeys_contained_in(pathkeys, cheapest->pathkeys))
		return cheapest;
	result = (Path *) create_sort_path(root, rel, cheapest, pathkeys, -1.0);
	presorted = get_cheapest_path_for_pathkeys(rel->pathlist, pathkeys, NULL,
											   TOTAL_COST, false);
	if (presorted != NULL && wj_path_total_cheaper(presorted, result))
		result = presorted;
	return result;
}

/*
 * wj_path_parallel_safe
 *		The parallel-safety rule of every windowjoin node (input_paths.h):
 *		rel->consider_parallel, every child path parallel safe, and every
 *		expression the node evaluates besides rel's own target and clauses
 *		parallel safe.
 */
bool
wj_path_parallel_safe(PlannerInfo *root, RelOptInfo *rel, List *child_paths,
					  List *exprs)
{
	ListCell   *lc;

	if (!rel->consider_parallel)
		return false;
	foreach(lc, child_paths)
	{
		if (!((Path *) lfirst(lc))->parallel_safe)
			return false;
	}
	return exprs == NIL || is_parallel_safe(root, (Node *) exprs);
}

/*
 * wj_custom_path
 *		A node's new CustomPath producing rel's rows in target over the
 *		child paths (its custom_paths, the outer one first): parallel safe
 *		by the one rule (exprs: the node's own expressions), parallel aware
 *		if partial, with the outer child's workers and the children's
 *		disabled nodes.  The caller sets the rows, costs, pathkeys, flags
 *		and private data.
 */
CustomPath *
wj_custom_path(PlannerInfo *root, RelOptInfo *rel, PathTarget *target,
			   List *child_paths, List *exprs, bool partial,
			   const CustomPathMethods *methods)
{
	CustomPath *cpath = makeNode(CustomPath);
	int			disabled = 0;
	ListCell   *lc;

	foreach(lc, child_paths)
		disabled += wj_path_disabled_nodes((Path *) lfirst(lc));
	cpath->path.pathtype = T_CustomScan;
	cpath->path.parent = rel;
	cpath->path.pathtarget = target;
	cpath->path.param_info = NULL;
	cpath->path.parallel_aware = partial;
	cpath->path.parallel_safe = wj_path_parallel_safe(root, rel, child_paths,
													  exprs);
	cpath->path.parallel_workers =
		((Path *) linitial(child_paths))->parallel_workers;
	wj_set_path_disabled_nodes(&cpath->path, disabled);
	cpath->custom_paths = child_paths;
	cpath->methods = methods;
	return cpath;
}

/*
 * wj_custom_scan
 *		A node's new CustomScan (flags: its path's, CUSTOMPATH_*): tlist and
 *		qual computed over a scan tuple of scan_tlist, reading custom_plans.
 *		The caller sets custom_exprs, custom_private and, for a join,
 *		custom_relids; a node inserted into a finished plan (KeyExchange)
 *		also its costs and parallel flags.
 */
CustomScan *
wj_custom_scan(uint32 flags, List *tlist, List *qual, List *custom_plans,
			   List *scan_tlist, const CustomScanMethods *methods)
{
	CustomScan *cscan = makeNode(CustomScan);

	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = qual;
	cscan->scan.scanrelid = 0;
	cscan->flags = flags;
	cscan->custom_plans = custom_plans;
	cscan->custom_exprs = NIL;
	cscan->custom_private = NIL;
	cscan->custom_scan_tlist = scan_tlist;
	cscan->custom_relids = NULL;
	cscan->methods = methods;
	return cscan;
}

/*
 * wj_parallel_divisor
 *		The share of a partial path's total rows that one participant
 *		processes, as the planner's own costing assumes: one per worker,
 *		plus what the leader contributes when it participates (it spends
 *		part of its time gathering, the less the more workers there are).
 */
double
wj_parallel_divisor(Path *path)
{
	double		divisor = path->parallel_workers;

	if (parallel_leader_participation)
	{
		double		leader = 1.0 - (0.3 * path->parallel_workers);

		if (leader > 0)
			divisor += leader;
	}
	return Max(divisor, 1.0);
}

/*
 * wj_add_partial_paths_gathered
 *		Add partial paths of an upper relation (which PostgreSQL does not
 *		gather by itself), then a Gather Merge in their order and a Gather of
 *		each one add_partial_path kept.  All are added before any is gathered:
 *		add_partial_path frees the partial paths a new one dominates, which
 *		a Gather made before would still point to.
 */
void
wj_add_partial_paths_gathered(PlannerInfo *root, RelOptInfo *rel,
							  List *partials)
{
	ListCell   *lc;

	foreach(lc, partials)
		add_partial_path(rel, (Path *) lfirst(lc));
	foreach(lc, rel->partial_pathlist)
	{
		Path	   *partial = (Path *) lfirst(lc);
		double		total_rows;

		if (!list_member_ptr(partials, partial))
			continue;
		total_rows = partial->rows * wj_parallel_divisor(partial);
		if (partial->pathkeys != NIL)
			add_path(rel, (Path *)
					 create_gather_merge_path(root, rel, partial,
											  partial->pathtarget,
											  partial->pathkeys, NULL,
											  &total_rows));
		add_path(rel, (Path *)
				 create_gather_path(root, rel, partial, partial->pathtarget,
									NULL, &total_rows));
	}
}

/*
 * cheapest_sorted
 *		The cheapest unparameterized path of paths (parallel safe ones only
 *		if asked), sorted into pathkeys order unless already in it, or a
 *		presorted one, whichever is cheaper; NULL if none qualifies.
 */
static Path *
cheapest_sorted(PlannerInfo *root, RelOptInfo *rel, List *paths,
				List *pathkeys, bool need_parallel_safe)
{
	Path	   *result = NULL;
	ListCell   *lc;

	foreach(lc, paths)
	{
		Path	   *path = (Path *) lfirst(lc);
		Path	   *sorted = path;

		if (path->param_info != NULL ||
			(need_parallel_safe && !path->parallel_safe))
			continue;
		if (!pathkeys_contained_in(pathkeys, path->pathkeys))
			sorted = (Path *) create_sort_path(root, rel, path, pathkeys, -1.0);
		if (result == NULL || wj_path_total_cheaper(sorted, result))
			result = sorted;
	}
	return result;
}

/*
 * wj_partial_outer_input
 *		The cheapest partial path of rel delivering each participant's share
 *		of the rows in pathkeys order: the cheapest partial path, sorted in
 *		each worker unless already in order, or a presorted partial path
 *		(a Parallel Index Scan), whichever is cheaper.  NULL when rel has no
 *		partial path.
 */
Path *
wj_partial_outer_input(PlannerInfo *root, RelOptInfo *rel, List *pathkeys)
{
	if (!rel->consider_parallel)
		return NULL;
	return cheapest_sorted(root, rel, rel->partial_pathlist, pathkeys, false);
}

/*
 * wj_parallel_safe_input
 *		The cheapest parallel-safe unparameterized path of rel in pathkeys
 *		order (sorted unless already in order), to run complete in every
 *		participant of a parallel plan, as the inner side of PostgreSQL's
 *		non-shared parallel hash join does.  NULL if there is none.
 */
Path *
wj_parallel_safe_input(PlannerInfo *root, RelOptInfo *rel, List *pathkeys)
{
	if (!rel->consider_parallel)
		return NULL;
	return cheapest_sorted(root, rel, rel->pathlist, pathkeys, true);
}

/*
 * wj_cheapest_partial_path
 *		The cheapest unparameterized parallel-safe partial path of rel (the
 *		list is in cost order), computing target when target is not NULL;
 *		NULL when there is none.
 */
Path *
wj_cheapest_partial_path(RelOptInfo *rel, PathTarget *target)
{
	ListCell   *lc;

	foreach(lc, rel->partial_pathlist)
	{
		Path	   *path = (Path *) lfirst(lc);

		if (path->param_info == NULL && path->parallel_safe &&
			(target == NULL || equal(path->pathtarget->exprs, target->exprs)))
			return path;
	}
	return NULL;
}
