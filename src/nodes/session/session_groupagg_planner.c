/*-------------------------------------------------------------------------
 *
 * session_groupagg_planner.c
 *	  Streaming aggregation over session windows.
 *
 * A session aggregate is written as
 *
 *	 SELECT item, (w).window_start, (w).window_end, sum(price)
 *	 FROM (SELECT *, session(bidtime, '5 minutes')
 *					   OVER (PARTITION BY item ORDER BY bidtime) AS w
 *		   FROM bid) s
 *	 GROUP BY item, (w).window_start, (w).window_end;
 *
 * The window function's output arrives sorted by (item, bidtime), and
 * within a partition session() only ever moves forward in time: sessions
 * do not overlap, so window_start, window_end and window_time never
 * decrease (session() raises an error instead of returning anything else,
 * and NULL times -- NULL windows -- come last with ORDER BY ts).  The rows
 * are therefore already sorted by the GROUP BY keys, but PostgreSQL cannot
 * know that and hashes millions of sessions.  Here we tell it: we offer the
 * subquery scan again with the GROUP BY pathkeys and a sorted (streaming)
 * aggregate on top, which holds one group at a time.
 *
 * Offered from the create_upper_paths_hook (GROUP_AGG stage) only when the
 * claim is certain: the FROM is one subquery with a single window clause
 * and no ORDER BY/DISTINCT/LIMIT/grouping of its own; session() over that
 * window, ordered by its own time argument ascending with NULLS LAST; and
 * the GROUP BY lists exactly the PARTITION BY keys, in order and with the
 * same sort operators, followed by fields of the session() result.  It then
 * competes on cost with PostgreSQL's paths.
 *
 * When the subquery's window runs key-partitioned in parallel workers
 * (session_sort_planner.c, docs/parallel.md), each participant holds whole
 * partitions, and the GROUP BY starts with the partition keys: every group
 * is complete in one participant.  The same sorted aggregate is then also
 * offered as a partial path of the grouped relation, below a Gather (or a
 * Gather Merge in the GROUP BY order), and as such to the query level
 * above, so that the aggregation is divided among the participants too.
 *
 * src/nodes/session/session_groupagg_planner.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/prep.h"
#include "optimizer/tlist.h"
#include "parser/parse_oper.h"
#include "parser/parsetree.h"
#include "utils/selfuncs.h"

#include "src/common/catalog_cache.h"
#include "src/common/gucs.h"
#include "src/common/input_paths.h"
#include "src/common/pg_compat.h"
#include "src/nodes/session/session_sort.h"

/*
 * find_session_column
 *		The resno of the subquery's session() output column over its only
 *		window clause, or 0.
 */
static AttrNumber
find_session_column(Query *subparse, WindowClause *wc, WindowFunc **wfunc)
{
	ListCell   *lc;

	foreach(lc, subparse->targetList)
	{
		TargetEntry *tle = (TargetEntry *) lfirst(lc);

		if (IsA(tle->expr, WindowFunc) &&
			((WindowFunc *) tle->expr)->winref == wc->winref &&
			wj_func_of(((WindowFunc *) tle->expr)->winfnoid) == WJF_SESSION)
		{
			*wfunc = (WindowFunc *) tle->expr;
			return tle->resno;
		}
	}
	return 0;
}

/*
 * same_sort
 *		Do two sort/group clauses sort the same way?
 */
static bool
same_sort(SortGroupClause *a, SortGroupClause *b)
{
	return a->sortop == b->sortop && a->eqop == b->eqop &&
		a->nulls_first == b->nulls_first && OidIsValid(a->sortop);
}

/*
 * group_matches_session
 *		Is the outer GROUP BY exactly (partition keys..., session fields...)
 *		of the subquery's session window, sorted as the window sorts them?
 */
static bool
group_matches_session(PlannerInfo *root, RelOptInfo *input_rel,
					  Query *subparse, WindowClause *wc, AttrNumber session_col)
{
	Query	   *parse = root->parse;
	ListCell   *lc;
	ListCell   *part = list_head(wc->partitionClause);
	bool		in_fields = false;

	foreach(lc, parse->groupClause)
	{
		SortGroupClause *sgc = (SortGroupClause *) lfirst(lc);
		Node	   *expr = get_sortgroupclause_expr(sgc, parse->targetList);

		if (IsA(expr, FieldSelect) &&
			IsA(((FieldSelect *) expr)->arg, Var))
		{
			Var		   *var = (Var *) ((FieldSelect *) expr)->arg;
			Oid			sortop;
			Oid			eqop;

			/* all partition keys first */
			if (part != NULL || var->varno != input_rel->relid ||
				var->varlevelsup != 0 || var->varattno != session_col)
				return false;
			get_sort_group_operators(exprType(expr), true, true, false,
									 &sortop, &eqop, NULL, NULL);
			if (sgc->sortop != sortop || sgc->eqop != eqop || sgc->nulls_first)
				return false;
			in_fields = true;
		}
		else if (IsA(expr, Var) && !in_fields && part != NULL)
		{
			Var		   *var = (Var *) expr;
			SortGroupClause *psgc = (SortGroupClause *) lfirst(part);
			TargetEntry *stle;

			if (var->varno != input_rel->relid || var->varlevelsup != 0 ||
				var->varattno <= 0)
				return false;
			stle = get_tle_by_resno(subparse->targetList, var->varattno);
			if (stle == NULL || stle->ressortgroupref != psgc->tleSortGroupRef ||
				!same_sort(sgc, psgc))
				return false;
			part = lnext(wc->partitionClause, part);
		}
		else
			return false;
	}
	return part == NULL && in_fields;
}

/*
 * session_window_order
 *		The window's order (PARTITION BY, time), as pathkeys of the subquery,
 *		when the grouped relation is a subquery computing session() -- one
 *		window, ordered exactly by session()'s own time argument ASC NULLS
 *		LAST, and nothing after it that would change its rows' order -- and
 *		the GROUP BY takes its session column and keys
 *		(group_matches_session); NIL otherwise.
 */
static List *
session_window_order(PlannerInfo *root, RelOptInfo *input_rel)
{
	Query	   *subparse = input_rel->subroot->parse;
	WindowClause *wc;
	WindowFunc *wfunc = NULL;
	SortGroupClause *order;
	TargetEntry *order_tle;
	AttrNumber	session_col;
	Oid			sortop;
	Oid			eqop;

	if (list_length(subparse->windowClause) != 1 ||
		subparse->sortClause != NIL || subparse->distinctClause != NIL ||
		subparse->groupClause != NIL || subparse->groupingSets != NIL ||
		subparse->hasAggs || subparse->hasTargetSRFs ||
		subparse->limitCount != NULL || subparse->limitOffset != NULL ||
		subparse->setOperations != NULL || subparse->rowMarks != NIL)
		return NIL;
	wc = (WindowClause *) linitial(subparse->windowClause);

	session_col = find_session_column(subparse, wc, &wfunc);
	if (session_col == 0)
		return NIL;

	/* ORDER BY exactly session()'s own time argument, ASC NULLS LAST */
	if (list_length(wc->orderClause) != 1)
		return NIL;
	order = (SortGroupClause *) linitial(wc->orderClause);
	order_tle = get_sortgroupref_tle(order->tleSortGroupRef, subparse->targetList);
	get_sort_group_operators(exprType((Node *) order_tle->expr), true, true,
							 false, &sortop, &eqop, NULL, NULL);
	if (order->sortop != sortop || order->nulls_first ||
		!equal(order_tle->expr, linitial(wfunc->args)))
		return NIL;

	if (!group_matches_session(root, input_rel, subparse, wc, session_col))
		return NIL;

	return make_pathkeys_for_sortclauses(input_rel->subroot,
										 list_concat_copy(wc->partitionClause,
														  wc->orderClause),
										 subparse->targetList);
}

/*
 * session_scan
 *		The subquery scan of a path of the session subquery (under a
 *		projection or not) whose output is in the window's order; NULL if
 *		it is none.
 */
static SubqueryScanPath *
session_scan(Path *path, List *window_pathkeys)
{
	Path	   *scan = path;

	if (path->param_info != NULL)
		return NULL;
	if (IsA(path, ProjectionPath))
		scan = ((ProjectionPath *) path)->subpath;
	if (!IsA(scan, SubqueryScanPath) ||
		!pathkeys_contained_in(window_pathkeys,
							   ((SubqueryScanPath *) scan)->subpath->pathkeys))
		return NULL;
	return (SubqueryScanPath *) scan;
}

/*
 * session_sorted_scan
 *		The same scan, now known to be sorted by the GROUP BY keys, under
 *		path's projection if it had one.  A partial path's is one
 *		participant's share of the rows (*divisor), not the relation's.
 */
static Path *
session_sorted_scan(PlannerInfo *root, RelOptInfo *input_rel, Path *path,
					SubqueryScanPath *sub, bool partial, double *divisor)
{
	Path	   *sorted;

	sorted = (Path *) wj_create_subqueryscan_path(root, input_rel, sub->subpath,
												  root->group_pathkeys, NULL);
	sorted->pathtarget = sub->path.pathtarget;
	*divisor = 1.0;
	if (partial)
	{
		Cost		own = sorted->total_cost - sub->subpath->total_cost;

		*divisor = wj_parallel_divisor(sub->subpath);
		sorted->rows = sub->subpath->rows;
		sorted->total_cost = sub->subpath->total_cost + Max(own, 0) / *divisor;
	}
	if (path != (Path *) sub)
		sorted = (Path *) create_projection_path(root, input_rel, sorted,
												 path->pathtarget);
	return sorted;
}

/*
 * wj_session_groupagg_add_paths
 *		create_upper_paths_hook body for UPPERREL_GROUP_AGG: offer a sorted
 *		aggregate over the session subquery when its order is certain, and
 *		over its key-partitioned partial paths (whole window partitions in
 *		each participant).
 */
void
wj_session_groupagg_add_paths(PlannerInfo *root, RelOptInfo *input_rel,
							  RelOptInfo *output_rel, void *extra_arg)
{
	GroupPathExtraData *extra = (GroupPathExtraData *) extra_arg;
	Query	   *parse = root->parse;
	AggClauseCosts agg_costs;
	List	   *group_exprs;
	List	   *window_pathkeys;
	List	   *partials = NIL;
	ListCell   *lc;

	if (!wj_enable_window_aggregate || extra == NULL ||
		parse->groupingSets != NIL || parse->groupClause == NIL ||
		!(extra->flags & GROUPING_CAN_USE_SORT) ||
		extra->patype != PARTITIONWISE_AGGREGATE_NONE ||
		root->group_pathkeys == NIL ||
		input_rel->reloptkind != RELOPT_BASEREL ||
		input_rel->rtekind != RTE_SUBQUERY || input_rel->subroot == NULL)
		return;
	window_pathkeys = session_window_order(root, input_rel);
	if (window_pathkeys == NIL)
		return;

	MemSet(&agg_costs, 0, sizeof(AggClauseCosts));
	get_agg_clause_costs(root, AGGSPLIT_SIMPLE, &agg_costs);
	group_exprs = get_sortgrouplist_exprs(parse->groupClause, parse->targetList);

	foreach(lc, input_rel->pathlist)
	{
		Path	   *path = (Path *) lfirst(lc);
		SubqueryScanPath *sub = session_scan(path, window_pathkeys);
		Path	   *sorted;
		double		divisor;

		if (sub == NULL)
			continue;
		sorted = session_sorted_scan(root, input_rel, path, sub, false, &divisor);
		add_path(output_rel,
				 (Path *) create_agg_path(root, output_rel, sorted,
										  output_rel->reltarget, AGG_SORTED,
										  AGGSPLIT_SIMPLE, parse->groupClause,
										  (List *) extra->havingQual, &agg_costs,
										  estimate_num_groups(root, group_exprs,
															  sorted->rows, NULL, NULL)));
	}

	if (!output_rel->consider_parallel)
		return;
	foreach(lc, input_rel->partial_pathlist)
	{
		Path	   *path = (Path *) lfirst(lc);
		SubqueryScanPath *sub = session_scan(path, window_pathkeys);
		Path	   *sorted;
		Path	   *agg;
		double		divisor;
		double		num_groups;

		/* whole window partitions in each participant, in window order */
		if (sub == NULL || !wj_session_keypart_path(sub->subpath))
			continue;
		sorted = session_sorted_scan(root, input_rel, path, sub, true, &divisor);
		num_groups = estimate_num_groups(root, group_exprs,
										 sorted->rows * divisor, NULL, NULL);
		agg = (Path *) create_agg_path(root, output_rel, sorted,
									   output_rel->reltarget, AGG_SORTED,
									   AGGSPLIT_SIMPLE, parse->groupClause,
									   (List *) extra->havingQual,
									   &agg_costs,
									   clamp_row_est(num_groups / divisor));
		if (!agg->parallel_safe)
			continue;
		partials = lappend(partials, agg);
	}
	wj_add_partial_paths_gathered(root, output_rel, partials);
}
