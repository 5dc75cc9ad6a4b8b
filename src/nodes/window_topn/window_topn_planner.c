/*-------------------------------------------------------------------------
 *
 * window_topn_planner.c
 *	  Planner side of WindowTopN: the top N rows of each partition of a
 *	  ranking window without sorting every row.
 *
 * Flink's Window Top-N,
 *
 *	 SELECT * FROM (SELECT auction, price, window_start, window_end,
 *						   row_number() OVER (PARTITION BY window_start,
 *								window_end, auction ORDER BY price DESC) AS rn
 *					FROM bid, tumble(bidtime, '10 minutes')) t
 *	 WHERE rn <= 3
 *
 * reaches the planner of the subquery with the outer WHERE turned into the
 * window's run condition ("rn <= 3"; PostgreSQL 15 and later).  PostgreSQL
 * sorts every row by (partition keys, order keys) and stops returning rows
 * of a partition once the condition fails: O(n log n) comparisons for n
 * rows of which it keeps a few per partition.  WindowTopN hashes each row
 * to its partition and keeps there the N best rows seen so far, comparing a
 * row with the partition's worst kept row (window_topn_exec.c): O(n) hash
 * probes and comparisons, and memory for N rows per partition.  Window
 * deduplication (rn = 1, ordered by the time column) is the same shape with
 * N = 1.
 *
 * Recognition, from the create_upper_paths_hook at UPPERREL_WINDOW:
 *	- the query level has one window clause, and its window functions are
 *	  one call of row_number(), rank() or dense_rank() (used any number of
 *	  times), without FILTER;
 *	- the clause's run condition bounds it from above: "<= c", "< c" or
 *	  "= c" (which PostgreSQL turns into "<= c" and keeps as a filter) with
 *	  an integer constant c, giving N between 1 and WTN_MAX_LIMIT;
 *	- every PARTITION BY and ORDER BY expression is a column of the input
 *	  path, every partition key hashable and sortable; rank() and
 *	  dense_rank() have an ORDER BY (without one every row ranks first).
 * We then offer, over the cheapest input path, a WindowTopN that returns
 * the rows the WindowAgg would return (in no particular order), and, when
 * the input has a partial path, a two-phase plan: each participant keeps
 * its own top N per partition (a "partial" WindowTopN that returns them
 * unranked), a Gather collects them, and a WindowTopN above ranks the
 * union.  A row of a partition's global top N is in the top N of the
 * participant that read it (its rank there is no worse), so the union holds
 * every row the answer needs.  Both compete with PostgreSQL's path on cost.
 * Enabled by windowjoin.enable_window_topn.
 *
 * src/nodes/window_topn/window_topn_planner.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/stratnum.h"
#include "catalog/pg_opfamily.h"
#include "catalog/pg_type.h"
#include "executor/nodeHash.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/restrictinfo.h"
#include "optimizer/tlist.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"

#include "src/common/catalog_cache.h"
#include "src/common/gucs.h"
#include "src/common/input_paths.h"
#include "src/common/pg_compat.h"
#include "src/common/stats_common.h"
#include "src/common/window_arith.h"
#include "src/nodes/window_topn/window_topn.h"
#include "src/windowjoin.h"

/* larger N are left to PostgreSQL's sort (a partition's set is an array) */
#define WTN_MAX_LIMIT	10000

/* the bytes a kept row and a partition cost beyond the row itself */
#define WTN_ROW_OVERHEAD	48.0
#define WTN_GROUP_OVERHEAD	96.0

/* What the planner found; the path carries it to PlanCustomPath */
typedef struct WtnPathInfo
{
	WindowTopNPlanInfo info;
	WindowFunc *wfunc;			/* the ranking call (NULL when partial) */
} WtnPathInfo;

static CustomPathMethods window_topn_path_methods;

/*
 * rank_kind
 *		The ranking function wfunc calls, or false if it is none of them.
 */
static bool
rank_kind(WindowFunc *wfunc, WtnRankKind *kind)
{
	if (wfunc->args != NIL || wfunc->aggfilter != NULL)
		return false;
	switch (wfunc->winfnoid)
	{
		case F_ROW_NUMBER:
			*kind = WTN_ROW_NUMBER;
			return true;
		case F_RANK_:
			*kind = WTN_RANK;
			return true;
		case F_DENSE_RANK_:
			*kind = WTN_DENSE_RANK;
			return true;
		default:
			return false;
	}
}

/*
 * the_window_func
 *		The one window function the target computes (any number of times),
 *		or NULL if it computes none or several.
 */
static WindowFunc *
the_window_func(PathTarget *target)
{
	List	   *funcs = pull_var_clause((Node *) target->exprs,
										PVC_INCLUDE_WINDOWFUNCS |
										PVC_RECURSE_AGGREGATES |
										PVC_RECURSE_PLACEHOLDERS);
	WindowFunc *first = NULL;
	ListCell   *lc;

	foreach(lc, funcs)
	{
		Node	   *node = (Node *) lfirst(lc);

		if (!IsA(node, WindowFunc))
			continue;
		if (first == NULL)
			first = (WindowFunc *) node;
		else if (!equal(first, node))
			return NULL;
	}
	return first;
}

/*
 * run_condition_limit
 *		N from the run condition: each clause an integer comparison of wfunc
 *		with a constant bounding it from above ("wfunc <= c", "c > wfunc"
 *		...); the tightest one.  False if there is none or one is something
 *		else.
 */
static bool
run_condition_limit(List *run_condition, WindowFunc *wfunc, int64 *limit)
{
	bool		found = false;
	ListCell   *lc;

	*limit = PG_INT64_MAX;
	foreach(lc, run_condition)
	{
		OpExpr	   *op = (OpExpr *) lfirst(lc);
		Node	   *left;
		Node	   *right;
		Const	   *bound;
		int			strategy;
		bool		wfunc_left;
		int64		c;
		int64		n;

		if (!IsA(op, OpExpr) || list_length(op->args) != 2)
			return false;
		left = linitial(op->args);
		right = lsecond(op->args);
		wfunc_left = equal(left, wfunc);
		if (!wfunc_left && !equal(right, wfunc))
			return false;
		bound = (Const *) (wfunc_left ? right : left);
		if (!wj_const_int64((Node *) bound, &c))
			return false;
		strategy = get_op_opfamily_strategy(op->opno, INTEGER_BTREE_FAM_OID);
		if (!wfunc_left)
			strategy = strategy == BTGreaterStrategyNumber ? BTLessStrategyNumber :
				strategy == BTGreaterEqualStrategyNumber ? BTLessEqualStrategyNumber : 0;
		if (strategy == BTLessStrategyNumber)
		{
			if (c == PG_INT64_MIN)
				return false;
			n = c - 1;
		}
		else if (strategy == BTLessEqualStrategyNumber)
			n = c;
		else
			return false;
		*limit = Min(*limit, n);
		found = true;
	}
	return found && *limit >= 1 && *limit <= WTN_MAX_LIMIT;
}

/*
 * key_column
 *		The column (1-based) of target that is the window clause's key sgc:
 *		by its sort/group reference, else by the expression itself; 0 if
 *		the target does not compute it.
 */
static int
key_column(PlannerInfo *root, PathTarget *target, SortGroupClause *sgc)
{
	Node	   *expr = get_sortgroupclause_expr(sgc, root->processed_tlist);
	ListCell   *lc;
	int			i = 0;

	foreach(lc, target->exprs)
	{
		if (get_pathtarget_sortgroupref(target, i) == sgc->tleSortGroupRef)
			return i + 1;
		i++;
	}
	i = 0;
	foreach(lc, target->exprs)
	{
		if (equal(lfirst(lc), expr))
			return i + 1;
		i++;
	}
	return 0;
}

/*
 * find_keys
 *		The partition and order keys of wc as columns of target, with their
 *		operators, into info; false if one is not a column or a partition
 *		key cannot be hashed and sorted.
 */
static bool
find_keys(PlannerInfo *root, WindowClause *wc, PathTarget *target,
		  WindowTopNPlanInfo *info)
{
	ListCell   *lc;

	info->part_cols = info->part_sortops = info->part_eqops = NIL;
	info->part_colls = info->part_nullsfirst = NIL;
	info->order_cols = info->order_sortops = NIL;
	info->order_colls = info->order_nullsfirst = NIL;
	foreach(lc, wc->partitionClause)
	{
		SortGroupClause *sgc = (SortGroupClause *) lfirst(lc);
		int			col = key_column(root, target, sgc);

		if (col == 0 || !sgc->hashable || !OidIsValid(sgc->sortop) ||
			!OidIsValid(sgc->eqop))
			return false;
		info->part_cols = lappend_int(info->part_cols, col);
		info->part_sortops = lappend_oid(info->part_sortops, sgc->sortop);
		info->part_eqops = lappend_oid(info->part_eqops, sgc->eqop);
		info->part_colls = lappend_oid(info->part_colls,
									   exprCollation((Node *) list_nth(target->exprs, col - 1)));
		info->part_nullsfirst = lappend_int(info->part_nullsfirst, sgc->nulls_first);
	}
	foreach(lc, wc->orderClause)
	{
		SortGroupClause *sgc = (SortGroupClause *) lfirst(lc);
		int			col = key_column(root, target, sgc);

		if (col == 0 || !OidIsValid(sgc->sortop))
			return false;
		info->order_cols = lappend_int(info->order_cols, col);
		info->order_sortops = lappend_oid(info->order_sortops, sgc->sortop);
		info->order_colls = lappend_oid(info->order_colls,
										exprCollation((Node *) list_nth(target->exprs, col - 1)));
		info->order_nullsfirst = lappend_int(info->order_nullsfirst, sgc->nulls_first);
	}
	return true;
}

/*
 * window_bin
 *		Is expr a column of a fixed-length window of a time expression:
 *		tumble()'s window_start, window_end or window_time (as tumble() is
 *		inlined), or date_bin() with a constant stride?  Then *time_expr and
 *		*usecs (the window's length).
 */
static bool
window_bin(Node *expr, Node **time_expr, int64 *usecs)
{
	FuncExpr   *fexpr = (FuncExpr *) expr;

	if (!IsA(expr, FuncExpr) || list_length(fexpr->args) < 2)
		return false;
	switch (wj_func_of(fexpr->funcid))
	{
		case WJF_TUMBLE_START:
		case WJF_TUMBLE_END:
		case WJF_TUMBLE_TIME:
			*time_expr = linitial(fexpr->args);
			return wj_const_duration_usecs(lsecond(fexpr->args), usecs);
		default:
			break;
	}
	if (fexpr->funcid == F_DATE_BIN_INTERVAL_TIMESTAMP_TIMESTAMP ||
		fexpr->funcid == F_DATE_BIN_INTERVAL_TIMESTAMPTZ_TIMESTAMPTZ)
	{
		*time_expr = lsecond(fexpr->args);
		return wj_const_duration_usecs(linitial(fexpr->args), usecs);
	}
	return false;
}

/*
 * estimate_partitions
 *		How many partitions rows rows fall into.  PostgreSQL guesses the
 *		distinct values of a function result (a window column) as a default
 *		fraction of the rows; the windows a time column's histogram
 *		occupies are a far better count (stats_common.c), multiplied by the
 *		other keys' distinct values.
 */
static double
estimate_partitions(PlannerInfo *root, List *part_exprs, double rows)
{
	List	   *others = NIL;
	double		cells = -1.0;
	ListCell   *lc;

	if (part_exprs == NIL)
		return 1.0;
	foreach(lc, part_exprs)
	{
		Node	   *expr = (Node *) lfirst(lc);
		Node	   *time_expr;
		int64		usecs;

		if (window_bin(expr, &time_expr, &usecs) && usecs > 0)
		{
			if (cells < 0)
				cells = wj_stats_time_cells(root, time_expr, (double) usecs, rows);
			if (cells > 0)
				continue;
		}
		others = lappend(others, expr);
	}
	if (cells <= 0)
		return estimate_num_groups(root, part_exprs, rows, NULL, NULL);
	if (others != NIL)
		cells *= estimate_num_groups(root, others, rows, NULL, NULL);
	return cells;
}

/*
 * topn_cost
 *		The cost of keeping the top limit rows of each of groups partitions
 *		over rows input rows of width bytes, and the rows kept.
 *
 * Per input row: a hash probe on the partition keys and a comparison with
 * the partition's worst kept row.  A row that enters the set costs a copy
 * and a binary search; in random order about N (1 + ln(m / N)) of a
 * partition's m rows enter it.  When the sets outgrow the hash memory
 * limit, the node switches to sorting what is left (window_topn_exec.c):
 * then charge a sort of every row, as PostgreSQL's plan pays it.
 */
static Cost
topn_cost(double rows, double groups, double limit, int npart, int norder,
		  double width, double *kept)
{
	double		per_group = Max(rows / groups, 1.0);
	double		enter = groups * Min(per_group,
									 limit * (1.0 + log(Max(per_group / limit, 1.0))));
	double		bytes;
	Cost		cost;

	*kept = clamp_row_est(Min(rows, groups * limit));
	cost = rows * cpu_operator_cost * (1.0 + npart + Max(norder, 1));
	cost += enter * (cpu_tuple_cost +
					 cpu_operator_cost * Max(norder, 1) * log2(limit + 1.0));
	bytes = groups * WTN_GROUP_OVERHEAD + *kept * (width + WTN_ROW_OVERHEAD);
	if (bytes > (double) get_hash_memory_limit())
	{
		double		sort_bytes = rows * (width + WTN_ROW_OVERHEAD);

		cost += 2.0 * cpu_operator_cost * rows * log2(Max(rows, 2.0));
		if (sort_bytes > work_mem * 1024.0)
			cost += 2.0 * seq_page_cost * sort_bytes / BLCKSZ;
	}
	return cost;
}

/*
 * make_topn_path
 *		A WindowTopN over child: complete (ranking, its target the window's
 *		output, target: the WindowAgg path's, as the window relation has
 *		none of its own) or partial (a participant's candidates, its target
 *		the child's).
 */
static CustomPath *
make_topn_path(PlannerInfo *root, RelOptInfo *output_rel, PathTarget *target,
			   WtnPathInfo *pi, Path *child, double groups, bool partial)
{
	CustomPath *cpath = makeNode(CustomPath);
	WtnPathInfo *copy = palloc(sizeof(WtnPathInfo));
	double		kept;
	Cost		cost;

	*copy = *pi;
	copy->info.partial = partial;
	cost = topn_cost(child->rows, groups, (double) pi->info.limit,
					 list_length(pi->info.part_cols),
					 list_length(pi->info.order_cols),
					 child->pathtarget->width, &kept);

	cpath->path.pathtype = T_CustomScan;
	cpath->path.parent = output_rel;
	cpath->path.pathtarget = partial ? child->pathtarget : target;
	cpath->path.param_info = NULL;
	cpath->path.parallel_aware = partial;
	cpath->path.parallel_safe = partial;
	cpath->path.parallel_workers = partial ? child->parallel_workers : 0;
	cpath->path.rows = kept;
	wj_set_path_disabled_nodes(&cpath->path, wj_path_disabled_nodes(child));
	cpath->path.startup_cost = child->total_cost + cost;
	cpath->path.total_cost = cpath->path.startup_cost +
		kept * (cpu_tuple_cost + cpath->path.pathtarget->cost.per_tuple);
	cpath->path.pathkeys = NIL;
	cpath->flags = 0;
	cpath->custom_paths = list_make1(child);
	cpath->custom_private = list_make1(copy);
	cpath->methods = &window_topn_path_methods;
	return cpath;
}

/*
 * wj_window_topn_add_paths
 *		create_upper_paths_hook body for UPPERREL_WINDOW: offer WindowTopN
 *		for a ranking window bounded by its run condition, serial and in
 *		two phases over a Gather.
 */
void
wj_window_topn_add_paths(PlannerInfo *root, RelOptInfo *input_rel,
						 RelOptInfo *output_rel)
{
	WindowAggPath *wpath = NULL;
	WindowClause *wc;
	PathTarget *target;
	WtnPathInfo pi;
	Path	   *input;
	List	   *part_exprs = NIL;
	List	   *new_paths;
	double		groups;
	ListCell   *lc;

	if (!wj_enable_window_topn ||
		list_length(root->parse->windowClause) != 1)
		return;
#if PG_VERSION_NUM >= 180000
	/* 18's EXPLAIN needs the plan finished by wj_planner (planner.c) */
	if (!wj_planner_hook_reached())
		return;
#endif
	foreach(lc, output_rel->pathlist)
	{
		if (IsA(lfirst(lc), WindowAggPath))
		{
			wpath = (WindowAggPath *) lfirst(lc);
			break;
		}
	}
	if (wpath == NULL || wpath->qual != NIL)
		return;

	/*
	 * What the WindowAgg path says, taken now: add_path() frees the paths
	 * a new one beats, this one too.
	 */
	wc = wpath->winclause;
	target = wpath->path.pathtarget;
	memset(&pi, 0, sizeof(pi));
	pi.wfunc = the_window_func(target);
	if (pi.wfunc == NULL || pi.wfunc->winref != wc->winref ||
		!rank_kind(pi.wfunc, &pi.info.kind) ||
		!run_condition_limit(wj_windowagg_run_condition(wpath), pi.wfunc,
							 &pi.info.limit))
		return;

	input = get_cheapest_path_for_pathkeys(input_rel->pathlist, NIL, NULL,
										   TOTAL_COST, false);
	if (input == NULL || !find_keys(root, wc, input->pathtarget, &pi.info))
		return;

	/*
	 * rank() and dense_rank() without ORDER BY rank every row first: all
	 * rows are the answer, and the sets would hold them all.  PostgreSQL's
	 * WindowAgg streams them.
	 */
	if (pi.info.order_cols == NIL && pi.info.kind != WTN_ROW_NUMBER)
		return;
	foreach(lc, pi.info.part_cols)
		part_exprs = lappend(part_exprs,
							 list_nth(input->pathtarget->exprs, lfirst_int(lc) - 1));
	groups = estimate_partitions(root, part_exprs, input->rows);
	groups = clamp_row_est(Min(groups, Max(input->rows, 1.0)));

	new_paths = list_make1(make_topn_path(root, output_rel, target, &pi, input,
										  groups, false));

	/*
	 * In two phases: each participant its share, a Gather of the
	 * candidates, the ranking above it.  The partial node's target is the
	 * input's, without the window function, and it evaluates nothing else:
	 * by the nodes' one rule (wj_path_parallel_safe) it is parallel safe
	 * where the input relation and its partial path are.
	 */
	if (input_rel->consider_parallel && input_rel->partial_pathlist != NIL)
	{
		Path	   *partial = linitial(input_rel->partial_pathlist);
		WtnPathInfo ppi = pi;

		if (partial->param_info == NULL &&
			find_keys(root, wc, partial->pathtarget, &ppi.info) &&
			wj_path_parallel_safe(root, input_rel, list_make1(partial), NIL))
		{
			CustomPath *cpath;
			Path	   *gather;
			double		gathered;

			ppi.wfunc = NULL;
			cpath = make_topn_path(root, output_rel, NULL, &ppi, partial,
								   Min(groups, partial->rows), true);
			gathered = cpath->path.rows * wj_parallel_divisor(partial);
			gather = (Path *) create_gather_path(root, output_rel, &cpath->path,
												 partial->pathtarget, NULL,
												 &gathered);
			new_paths = lappend(new_paths,
								make_topn_path(root, output_rel, target, &pi,
											   gather, groups, false));
		}
	}
	foreach(lc, new_paths)
		add_path(output_rel, (Path *) lfirst(lc));
}

/*
 * plan_window_topn
 *		PlanCustomPath: the scan tuple is the child's columns, followed by
 *		the ranking function unless partial; the output refers to it.
 */
static Plan *
plan_window_topn(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
				 List *tlist, List *clauses, List *custom_plans)
{
	CustomScan *cscan;
	WtnPathInfo *pi = (WtnPathInfo *) linitial(best_path->custom_private);
	Path	   *child = (Path *) linitial(best_path->custom_paths);
	List	   *scan_tlist = NIL;
	ListCell   *lc;
	AttrNumber	resno = 1;

	foreach(lc, child->pathtarget->exprs)
		scan_tlist = lappend(scan_tlist,
							 makeTargetEntry((Expr *) copyObject(lfirst(lc)),
											 resno++, NULL, false));
	if (!pi->info.partial)
	{
		scan_tlist = lappend(scan_tlist,
							 makeTargetEntry((Expr *) copyObject(pi->wfunc),
											 resno++, NULL, false));
		wj_window_func_scans_planned++;
	}

	cscan = wj_custom_scan(best_path->flags, tlist,
						   extract_actual_clauses(clauses, false),
						   custom_plans, scan_tlist,
						   &wj_window_topn_scan_methods);
	cscan->custom_private = window_topn_info_to_private(&pi->info);
	return &cscan->scan.plan;
}

static CustomPathMethods window_topn_path_methods = {
	.CustomName = "WindowTopN",
	.PlanCustomPath = plan_window_topn,
};
