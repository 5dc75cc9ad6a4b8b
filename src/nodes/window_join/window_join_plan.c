/*-------------------------------------------------------------------------
 *
 * window_join_plan.c
 *	  A WindowJoin path over two sorted inputs, its cost, and the
 *	  CustomScan its PlanCustomPath makes.
 *
 * INTERFACE ROUTINES (window_join_planner_internal.h)
 *		wj_make_join_path		a WindowJoin path, costed
 *		window_join_make_plan	the CustomScan of a WindowJoin path
 *
 * The recogniser (window_join_planner.c) hands over the join's clauses,
 * sorted into what the windows implement, the hash keys and the rest (a
 * WjPathInfo), and its estimate of the node's state; the plan lays out the
 * scan tuple, custom_exprs and custom_private as window_join.h describes.
 *
 * src/nodes/window_join/window_join_plan.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/restrictinfo.h"
#include "utils/lsyscache.h"

#include "src/common/input_paths.h"
#include "src/common/join_nulling.h"
#include "src/common/pg_compat.h"
#include "src/nodes/window_join/window_join.h"
#include "src/nodes/window_join/window_join_planner_internal.h"

static Plan *window_join_plan_path(PlannerInfo *root, RelOptInfo *rel,
								   CustomPath *best_path, List *tlist,
								   List *clauses, List *custom_plans);

static CustomPathMethods wj_window_join_path_methods = {
	.CustomName = WJ_WINDOW_JOIN_NAME,
	.PlanCustomPath = window_join_plan_path,
};

/*
 * wj_make_join_path
 *		A WindowJoin path over the given sorted inputs; a partial path when
 *		the outer input is one (each participant sees its share of the outer
 *		rows and all inner rows, and produces its share of the result).
 *
 * Cost.  The inputs are read once, sorted (the Sort paths carry that
 * cost) or grouped by window in the node (a copy of each row and its window
 * value, all before the first window); each row is copied into the state and hashed once; each outer
 * row probes once per window it belongs to (wpr: HOP about size/slide,
 * CUMULATE on average half the steps) and each candidate pair is checked
 * against the join quals; FULL/RIGHT scan the inner rows of each window
 * once more for the unmatched ones.
 */
Path *
wj_make_join_path(PlannerInfo *root, RelOptInfo *joinrel, JoinType jointype,
				  Path *outer_path, Path *inner_path, double wpr,
				  WjPathInfo *pinfo, List *node_exprs, double state_bytes)
{
	List	   *kclauses = pinfo->kclauses;
	List	   *jclauses = pinfo->jclauses;
	List	   *gclauses = pinfo->gclauses;
	bool		partial = outer_path->parallel_workers > 0;
	double		outer_rows = outer_path->rows;
	double		inner_rows = inner_path->rows;
	double		rows = joinrel->rows;
	double		pairs;
	QualCost	qcost;
	Cost		startup;
	Cost		run;
	List	   *jquals;
	CustomPath *cpath;

	if (partial)
		rows = clamp_row_est(rows / wj_parallel_divisor(outer_path));
	jquals = extract_actual_clauses(jclauses, false);
	cost_qual_eval(&qcost, jquals, root);

	startup = outer_path->startup_cost + inner_path->startup_cost;
	run = (outer_path->total_cost - outer_path->startup_cost) +
		(inner_path->total_cost - inner_path->startup_cost);
	run += inner_rows *
		(cpu_tuple_cost + cpu_operator_cost * (list_length(kclauses) + list_length(gclauses)));
	run += outer_rows *
		(cpu_operator_cost * (list_length(kclauses) + list_length(gclauses) + 2));
	run += outer_rows * wpr * cpu_operator_cost;
	if (jointype == JOIN_RIGHT || jointype == JOIN_FULL)
		run += inner_rows * wpr * cpu_operator_cost;
	if (jointype == JOIN_SEMI || jointype == JOIN_ANTI)
		pairs = Max(rows, outer_rows * wpr * 0.5);
	else
		pairs = rows;
	if (kclauses == NIL)
		pairs = Max(pairs, outer_rows * wpr * inner_rows /
					Max(1.0, Min(outer_rows, inner_rows)));
	run += pairs * (qcost.per_tuple + cpu_operator_cost);
	startup += qcost.startup;
	run += rows * (cpu_tuple_cost + joinrel->reltarget->cost.per_tuple);
	startup += joinrel->reltarget->cost.startup;

	/*
	 * An input grouped by window in the node (no Sort below it) is read
	 * whole before the first window is joined: its window value computed
	 * and its row copied into a bucket once.
	 */
	if (pinfo->outer_buckets)
	{
		Cost		read = outer_path->total_cost - outer_path->startup_cost;

		startup += read + outer_rows * (cpu_tuple_cost + 2.0 * cpu_operator_cost);
		run -= read;
	}
	if (pinfo->inner_buckets)
	{
		Cost		read = inner_path->total_cost - inner_path->startup_cost;

		startup += read + inner_rows * (cpu_tuple_cost + 2.0 * cpu_operator_cost);
		run -= read;
	}

	/*
	 * Spilling, when the estimated state exceeds the hash memory limit:
	 * every row is written once and read back once per window it belongs
	 * to, and partitioned into batches (one more write and read) for each
	 * such window.
	 */
	if (state_bytes > (double) get_hash_memory_limit())
	{
		double		pages;

		pages = (outer_rows * (MAXALIGN(outer_path->pathtarget->width) + WJ_STATE_ROW_OVERHEAD) +
				 inner_rows * (MAXALIGN(inner_path->pathtarget->width) + WJ_STATE_ROW_OVERHEAD)) /
			(double) BLCKSZ;
		run += seq_page_cost * pages * (1.0 + 3.0 * wpr);
		run += (outer_rows + inner_rows) * wpr * 2.0 * cpu_tuple_cost;
		elog(DEBUG2, "windowjoin: window join expected to spill: estimated state %.0f bytes exceeds the hash memory limit %zu bytes",
			 state_bytes, get_hash_memory_limit());
	}

	cpath = wj_custom_path(root, joinrel, joinrel->reltarget,
						   list_make2(outer_path, inner_path), node_exprs,
						   partial, &wj_window_join_path_methods);
	cpath->path.rows = rows;
	cpath->path.startup_cost = startup;
	cpath->path.total_cost = startup + run;
	cpath->path.pathkeys = NIL;
	cpath->flags = CUSTOMPATH_SUPPORT_PROJECTION;
	cpath->custom_private = list_make1(pinfo);

	elog(DEBUG2, "windowjoin: window join %spath cost %.2f..%.2f rows %.0f (inputs %.2f, %.2f)",
		 partial ? "partial " : "",
		 cpath->path.startup_cost, cpath->path.total_cost, cpath->path.rows,
		 outer_path->total_cost, inner_path->total_cost);
	return &cpath->path;
}

/*
 * append_scan_entries
 *		Append the expressions of a child's target list to the scan tlist.
 */
static List *
append_scan_entries(List *scan_tlist, List *exprs)
{
	ListCell   *lc;

	foreach(lc, exprs)
	{
		Expr	   *expr = (Expr *) lfirst(lc);

		if (IsA(expr, TargetEntry))
			expr = ((TargetEntry *) expr)->expr;
		scan_tlist = lappend(scan_tlist,
							 makeTargetEntry((Expr *) copyObject(expr),
											 list_length(scan_tlist) + 1,
											 NULL, false));
	}
	return scan_tlist;
}

/*
 * extra_exprs
 *		For each extra column: the expression computing it from the scan
 *		tuple (a PlaceHolderVar's contents; the window column itself for the
 *		function's output), and whether it is an expression.
 */
static List *
extra_exprs(List *extras, List **is_expr)
{
	List	   *result = NIL;
	ListCell   *lc;

	*is_expr = NIL;
	foreach(lc, extras)
	{
		Node	   *expr = (Node *) lfirst(lc);

		if (IsA(expr, PlaceHolderVar))
		{
			result = lappend(result, copyObject(((PlaceHolderVar *) expr)->phexpr));
			*is_expr = lappend_int(*is_expr, 1);
		}
		else
		{
			result = lappend(result, copyObject(expr));
			*is_expr = lappend_int(*is_expr, 0);
		}
	}
	return result;
}

/*
 * clause_args
 *		The outer or inner arguments of binary clauses.
 */
static List *
clause_args(List *rinfos, List *outer_left, bool for_outer)
{
	List	   *result = NIL;
	ListCell   *lc1,
			   *lc2;

	forboth(lc1, rinfos, lc2, outer_left)
	{
		OpExpr	   *op = (OpExpr *) lfirst_node(RestrictInfo, lc1)->clause;
		bool		left = (lfirst_int(lc2) != 0) == for_outer;

		result = lappend(result, copyObject(left ? linitial(op->args) : lsecond(op->args)));
	}
	return result;
}

/*
 * derived_columns
 *		The columns of an input grouped by window in the node (TUMBLE) that
 *		the executor can compute from the row's window value: TUMBLE bounds
 *		of the same time, size and offset as the window expression.  The
 *		buckets store them as NULL (window_join_buckets.c), a third of a row
 *		of few narrow columns.  Returns their positions in tlist (0-based);
 *		*steps gets per column the multiple of the size to add to the window
 *		value (the end of a window is its start + size).
 */
static List *
derived_columns(List *tlist, Node *window, List **steps)
{
	List	   *cols = NIL;
	Node	   *wtime;
	bool		wend;
	int64		wsize;
	int64		woffset;
	ListCell   *lc;

	*steps = NIL;
	if (!wj_tumble_bound(window, &wtime, &wend, &wsize, &woffset))
		return NIL;
	foreach(lc, tlist)
	{
		TargetEntry *tle = lfirst_node(TargetEntry, lc);
		Node	   *time;
		bool		end;
		int64		size;
		int64		offset;

		if (wj_tumble_bound((Node *) tle->expr, &time, &end, &size, &offset) &&
			size == wsize && offset == woffset && equal(time, wtime))
		{
			cols = lappend_int(cols, foreach_current_index(lc));
			*steps = lappend_int(*steps, (int) end - (int) wend);
		}
	}
	return cols;
}

/*
 * window_join_plan_path
 *		PlanCustomPath: the CustomScan of window_join_make_plan.
 */
static Plan *
window_join_plan_path(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
					  List *tlist, List *clauses, List *custom_plans)
{
	CustomScan *cscan = window_join_make_plan(root, rel, best_path, tlist,
											  clauses, custom_plans, WJ_KEYPART_NONE);

	wj_custom_join_nullingrels(cscan, rel);
	return &cscan->scan.plan;
}

/*
 * window_join_make_plan
 *		Build the CustomScan.  See window_join.h for the layout of the scan
 *		tuple and of custom_private/custom_exprs.  Split by key partition
 *		as mode says: the partition filters or KeyExchanges go on the child
 *		plans (keypart.h), the sub-record into custom_private.
 */
CustomScan *
window_join_make_plan(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
					  List *tlist, List *clauses, List *custom_plans,
					  WjKeyPartMode mode)
{
	CustomScan *cscan;
	WjPathInfo *pinfo = (WjPathInfo *) linitial(best_path->custom_private);
	List	   *wclauses = pinfo->wclauses;
	List	   *kclauses = pinfo->kclauses;
	List	   *kouter_left = pinfo->kouter_left;
	List	   *jclauses = pinfo->jclauses;
	List	   *oclauses = pinfo->oclauses;
	List	   *outer_extras = pinfo->outer_extras;
	List	   *inner_extras = pinfo->inner_extras;
	Plan	   *outer_plan = linitial(custom_plans);
	Plan	   *inner_plan = lsecond(custom_plans);
	List	   *scan_tlist = NIL;
	List	   *outer_hashfn = NIL;
	List	   *inner_hashfn = NIL;
	List	   *key_coll = NIL;
	WindowJoinPlanInfo info;
	List	   *outer_window;
	List	   *inner_window;
	List	   *outer_extra_is_expr;
	List	   *inner_extra_is_expr;
	List	   *outer_extra_exprs;
	List	   *inner_extra_exprs;
	List	   *filter = NIL;
	ListCell   *lc1,
			   *lc2;

	/* scan tuple: both inputs' columns, then the window columns we supply */
	scan_tlist = append_scan_entries(scan_tlist, outer_plan->targetlist);
	scan_tlist = append_scan_entries(scan_tlist, inner_plan->targetlist);
	scan_tlist = append_scan_entries(scan_tlist, outer_extras);
	scan_tlist = append_scan_entries(scan_tlist, inner_extras);

	/* hash functions of the keys, each side's own */
	forboth(lc1, kclauses, lc2, kouter_left)
	{
		OpExpr	   *op = (OpExpr *) lfirst_node(RestrictInfo, lc1)->clause;
		RegProcedure lproc;
		RegProcedure rproc;

		if (!get_op_hash_functions(op->opno, &lproc, &rproc))
			elog(ERROR, "could not find hash functions for operator %u", op->opno);
		outer_hashfn = lappend_oid(outer_hashfn, lfirst_int(lc2) ? lproc : rproc);
		inner_hashfn = lappend_oid(inner_hashfn, lfirst_int(lc2) ? rproc : lproc);
		key_coll = lappend_oid(key_coll, op->inputcollid);
	}

	/* non-key join quals, for EXPLAIN */
	foreach(lc1, jclauses)
	{
		if (!list_member_ptr(kclauses, lfirst(lc1)))
			filter = lappend(filter, lfirst_node(RestrictInfo, lc1)->clause);
	}

	if (pinfo->mode == WJ_MODE_GROUP)
	{
		outer_window = clause_args(pinfo->gclauses, pinfo->gouter_left, true);
		inner_window = clause_args(pinfo->gclauses, pinfo->gouter_left, false);
	}
	else
	{
		outer_window = list_make1(copyObject(pinfo->outer_time));
		inner_window = list_make1(copyObject(pinfo->inner_time));
	}
	outer_extra_exprs = extra_exprs(outer_extras, &outer_extra_is_expr);
	inner_extra_exprs = extra_exprs(inner_extras, &inner_extra_is_expr);

	cscan = wj_custom_scan(best_path->flags, tlist,
						   extract_actual_clauses(oclauses, false),
						   custom_plans, scan_tlist,
						   &wj_window_join_scan_methods);
	cscan->custom_exprs = lappend(cscan->custom_exprs,
								  extract_actual_clauses(jclauses, false));
	cscan->custom_exprs = lappend(cscan->custom_exprs,
								  clause_args(kclauses, kouter_left, true));
	cscan->custom_exprs = lappend(cscan->custom_exprs,
								  clause_args(kclauses, kouter_left, false));
	cscan->custom_exprs = lappend(cscan->custom_exprs, outer_window);
	cscan->custom_exprs = lappend(cscan->custom_exprs, inner_window);
	cscan->custom_exprs = lappend(cscan->custom_exprs, outer_extra_exprs);
	cscan->custom_exprs = lappend(cscan->custom_exprs, inner_extra_exprs);
	cscan->custom_exprs = lappend(cscan->custom_exprs,
								  extract_actual_clauses(wclauses, false));
	cscan->custom_exprs = lappend(cscan->custom_exprs,
								  extract_actual_clauses(kclauses, false));
	cscan->custom_exprs = lappend(cscan->custom_exprs, filter);
	Assert(list_length(cscan->custom_exprs) == WJ_EXPR_NITEMS);

	memset(&info, 0, sizeof(info));
	info.jointype = pinfo->jointype;
	info.mode = pinfo->mode;
	info.kind = pinfo->kind;
	info.outer_ncols = list_length(outer_plan->targetlist);
	info.inner_ncols = list_length(inner_plan->targetlist);
	info.outer_extra_is_expr = outer_extra_is_expr;
	info.inner_extra_is_expr = inner_extra_is_expr;
	info.every = copyObject(pinfo->c_every);
	info.size = copyObject(pinfo->c_size);
	info.offset = copyObject(pinfo->c_offset);
	info.outer_hashfn = outer_hashfn;
	info.inner_hashfn = inner_hashfn;
	info.key_coll = key_coll;
	info.outer_buckets = pinfo->outer_buckets;
	info.inner_buckets = pinfo->inner_buckets;
	if (pinfo->outer_buckets && pinfo->kind == WJ_KIND_TUMBLE)
		info.outer_derived = derived_columns(outer_plan->targetlist,
											 linitial(outer_window),
											 &info.outer_derived_step);
	if (pinfo->inner_buckets && pinfo->kind == WJ_KIND_TUMBLE)
		info.inner_derived = derived_columns(inner_plan->targetlist,
											 linitial(inner_window),
											 &info.inner_derived_step);
	if (mode == WJ_KEYPART_NONE)
		wj_keypart_plan_none(&info.keypart);
	else
	{
		/* an unsorted input's KeyExchange goes above it */
		wj_keypart_plan_join(root, best_path->path.parallel_workers,
							 mode == WJ_KEYPART_EXCHANGE,
							 &outer_plan,
							 linitial(list_nth(cscan->custom_exprs, WJ_EXPR_OUTER_KEYS)),
							 linitial_oid(outer_hashfn),
							 &inner_plan,
							 linitial(list_nth(cscan->custom_exprs, WJ_EXPR_INNER_KEYS)),
							 linitial_oid(inner_hashfn),
							 &info.keypart);
		cscan->custom_plans = list_make2(outer_plan, inner_plan);
	}
	cscan->custom_private = window_join_info_to_private(&info);

	return cscan;
}
