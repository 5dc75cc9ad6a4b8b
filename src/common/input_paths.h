/*-------------------------------------------------------------------------
 *
 * input_paths.h
 *	  The input paths of a node's path, and the parallel-safety rule of
 *	  every windowjoin node (input_paths.c).
 *
 * src/common/input_paths.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef INPUT_PATHS_H
#define INPUT_PATHS_H

#include "nodes/extensible.h"
#include "nodes/pathnodes.h"

/* The cheapest unparameterized path of rel delivering rows in pathkeys order */
extern Path *wj_sorted_input(PlannerInfo *root, RelOptInfo *rel, List *pathkeys);

/*
 * Parallel query (docs/parallel.md).
 *
 * The one parallel-safety rule of every windowjoin node: a node's path is
 * parallel_safe iff
 *	 - the relation it produces has consider_parallel set (the planner has
 *	   checked that its target list and restriction clauses are parallel
 *	   safe, and that the query may use parallel mode at all),
 *	 - every child path is parallel_safe, and
 *	 - every other expression the node evaluates (keys, time expressions,
 *	   bounds it carries outside the relation's clauses) is parallel safe.
 * wj_path_parallel_safe() applies it; every planner file calls it.
 *
 * A parallel-safe path may run inside a worker under a Gather (also as the
 * whole plan under force_parallel_mode); a partial path, built by
 * wj_partial_outer_input() below, additionally reads only a share of its
 * outer input, so the same node runs in every participant and the Gather
 * above unions the results.
 */
extern bool wj_path_parallel_safe(PlannerInfo *root, RelOptInfo *rel,
								  List *child_paths, List *exprs);

/*
 * A node's new CustomPath over child_paths (the outer one first), safe by
 * that rule, with the outer child's workers; the caller sets the rest
 */
extern CustomPath *wj_custom_path(PlannerInfo *root, RelOptInfo *rel,
								  PathTarget *target, List *child_paths,
								  List *exprs, bool partial,
								  const CustomPathMethods *methods);

/*
 * A node's new CustomScan over custom_plans, with its path's flags; the
 * caller sets custom_exprs, custom_private and custom_relids
 */
extern CustomScan *wj_custom_scan(uint32 flags, List *tlist, List *qual,
								  List *custom_plans, List *scan_tlist,
								  const CustomScanMethods *methods);

/* The cheapest partial path of rel in pathkeys order (a Sort per worker) */
extern Path *wj_partial_outer_input(PlannerInfo *root, RelOptInfo *rel,
									List *pathkeys);

/* The cheapest parallel-safe unparameterized path of rel in pathkeys order */
extern Path *wj_parallel_safe_input(PlannerInfo *root, RelOptInfo *rel,
									List *pathkeys);

/* How many shares of a partial path's rows one participant sees */
extern double wj_parallel_divisor(Path *path);

/* Add partial paths to an upper relation, and Gathers of those it keeps */
extern void wj_add_partial_paths_gathered(PlannerInfo *root, RelOptInfo *rel,
										  List *partials);

/* The cheapest partial path of rel computing target (or any, if NULL) */
extern Path *wj_cheapest_partial_path(RelOptInfo *rel, PathTarget *target);

#endif							/* INPUT_PATHS_H */
