/*-------------------------------------------------------------------------
 *
 * session_sort_planner.c
 *	  Planner side of SessionSort and SessionWindow: a cheaper sort under a
 *	  session() window, and session() computed without a WindowAgg.
 *
 * session(ts, gap) OVER (PARTITION BY keys ORDER BY ts) needs its input
 * sorted by (keys..., ts).  PostgreSQL plans a Sort of all rows on all keys,
 * whose comparisons mostly tie on the partition keys and then compare the
 * time: O(N log N) comparisons of two or more columns each, and an external
 * merge once the rows outgrow work_mem.  SessionSort delivers the same order
 * by hashing each row into its partition (O(1) per row) and sorting each
 * partition by its time alone, an int64 comparison, which costs
 * O(N log(N / partitions)); the partitions themselves are sorted once by
 * their keys.  See session_sort_exec.c for the executor and how it splits
 * the rows into key-range batches on disk when they do not fit in work_mem.
 *
 * Recognition, from the create_upper_paths_hook at UPPERREL_WINDOW: the
 * query has one window clause, it computes session() (SessionSort is part of
 * executing session windows, not a general replacement for Sort), and a
 * WindowAgg path of that clause sorts its input with a full Sort whose
 * pathkeys are
 *	 - any number of partition keys whose equality operators are hashable,
 *	 - followed by one timestamp or timestamptz key, ascending, NULLS LAST,
 * each found as a column of the Sort's input.  We then offer the same
 * WindowAgg over a SessionSort of the same input with the same pathkeys.
 * When the window's only function is session(time key, constant gap) (used
 * any number of times), there is no run condition, and the window is
 * exactly PARTITION BY (the partition keys) ORDER BY (the time key), we also
 * offer a SessionWindow, which sorts the same way and computes session()
 * itself, in place of the WindowAgg.  They compete with PostgreSQL's path on cost.
 * Enabled by the GUC windowjoin.enable_window_aggregate.
 *
 * src/session_sort_planner.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/stratnum.h"
#include "catalog/pg_type_d.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/tlist.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"
#include "utils/typcache.h"

#include "catalog_cache.h"
#include "join_common.h"
#include "plan_private.h"
#include "session_sort.h"
#include "window_expand.h"

/*
 * Bytes a stored row takes besides its columns other than the time: its
 * (time, tuple)
 * entry and the MinimalTuple header (see the executor)
 */
#define SSORT_ENTRY_BYTES	16
#define SSORT_TUPLE_HEADER	16

/* The ranges one level of splitting makes at most, for costing */
#define SSORT_COST_FANOUT	512

/*
 * key_member
 *		The equivalence member of a pathkey that is one of the given
 *		expressions (a path's target or a plan's tlist), or NULL; *pos gets
 *		its 1-based position.
 */
static EquivalenceMember *
key_member(PathKey *pk, List *exprs, bool is_tlist, AttrNumber *pos)
{
	ListCell   *lc;
	AttrNumber	i = 1;

	foreach(lc, exprs)
	{
		Expr	   *expr = is_tlist ? ((TargetEntry *) lfirst(lc))->expr :
		(Expr *) lfirst(lc);
		EquivalenceMember *em;

		em = find_ec_member_matching_expr(pk->pk_eclass, expr, NULL);
		if (em != NULL && !em->em_is_const)
		{
			*pos = i;
			return em;
		}
		i++;
	}
	return NULL;
}

/*
 * key_operators
 *		The sort and hashable equality operators of a pathkey's member, or
 *		false if it has none.
 */
static bool
key_operators(PathKey *pk, EquivalenceMember *em, Oid *sortop, Oid *eqop)
{
	Oid			type = em->em_datatype;

	*sortop = get_opfamily_member(pk->pk_opfamily, type, type, pk->pk_strategy);
	*eqop = get_opfamily_member(pk->pk_opfamily, type, type,
								BTEqualStrategyNumber);

	/*
	 * Hashability of the expression's own type: em_datatype is the
	 * opfamily's input type (RECORD for any composite), but hash_record
	 * needs every field of the actual composite type to be hashable.
	 */
	return OidIsValid(*sortop) && OidIsValid(*eqop) &&
		op_hashjoinable(*eqop, exprType((Node *) em->em_expr));
}

/*
 * time_key_ok
 *		Is the pathkey a timestamp or timestamptz key sorted by the type's
 *		own "<", NULLS LAST, so that sorting it as int64 gives its order?
 */
static bool
time_key_ok(PathKey *pk, EquivalenceMember *em)
{
	Oid			type = em->em_datatype;
	TypeCacheEntry *tce;

	if ((type != TIMESTAMPOID && type != TIMESTAMPTZOID) ||
		pk->pk_strategy != BTLessStrategyNumber || pk->pk_nulls_first)
		return false;
	tce = lookup_type_cache(type, TYPECACHE_LT_OPR);
	return OidIsValid(tce->lt_opr) &&
		get_opfamily_member(pk->pk_opfamily, type, type,
							BTLessStrategyNumber) == tce->lt_opr;
}

/*
 * keys_supported
 *		Can SessionSort produce these pathkeys from rows with these target
 *		expressions?  Also returns the partition key and time expressions.
 */
static bool
keys_supported(List *pathkeys, List *exprs, List **part_exprs, Expr **time_expr)
{
	ListCell   *lc;

	*part_exprs = NIL;
	*time_expr = NULL;
	if (pathkeys == NIL)
		return false;
	foreach(lc, pathkeys)
	{
		PathKey    *pk = (PathKey *) lfirst(lc);
		AttrNumber	pos;
		EquivalenceMember *em = key_member(pk, exprs, false, &pos);
		Oid			sortop;
		Oid			eqop;

		if (em == NULL)
			return false;
		if (lnext(pathkeys, lc) == NULL)
		{
			*time_expr = em->em_expr;
			return time_key_ok(pk, em);
		}
		if (!key_operators(pk, em, &sortop, &eqop))
			return false;
		*part_exprs = lappend(*part_exprs, em->em_expr);
	}
	return false;				/* not reached */
}

/*
 * What a SessionSort or SessionWindow path hands its PlanCustomPath: the
 * path's custom_private is list_make1() of a pointer to this struct (a
 * planner-only C struct, not a node; plan_private.h).
 */
typedef struct SessionSortPathInfo
{
	WindowFunc *session;		/* SessionWindow: the session() call, else
								 * NULL */
	Const	   *gap;			/* SessionWindow: its constant gap */
} SessionSortPathInfo;

/*
 * plan_session_sort
 *		PlanCustomPath: a CustomScan over the input plan that returns the
 *		input's columns, with the sort keys as column numbers.
 */
static Plan *
plan_session_sort(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
				  List *tlist, List *clauses, List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);
	SessionSortPathInfo *pinfo = linitial(best_path->custom_private);
	Plan	   *child = (Plan *) linitial(custom_plans);
	List	   *scan_tlist = NIL;
	SessionSortPlanInfo info;
	ListCell   *lc;

	foreach(lc, child->targetlist)
	{
		TargetEntry *tle = (TargetEntry *) lfirst(lc);

		scan_tlist = lappend(scan_tlist,
							 makeTargetEntry(copyObject(tle->expr), tle->resno,
											 NULL, false));
	}
	/* SessionWindow: the session() call is the scan tuple's last column */
	if (pinfo->session != NULL)
		scan_tlist = lappend(scan_tlist,
							 makeTargetEntry((Expr *) copyObject(pinfo->session),
											 list_length(scan_tlist) + 1,
											 NULL, false));

	memset(&info, 0, sizeof(info));
	foreach(lc, best_path->path.pathkeys)
	{
		PathKey    *pk = (PathKey *) lfirst(lc);
		AttrNumber	pos;
		EquivalenceMember *em = key_member(pk, child->targetlist, true, &pos);
		Oid			sortop;
		Oid			eqop;

		if (em == NULL || !key_operators(pk, em, &sortop, &eqop))
			elog(ERROR, "SessionSort key not found in its input");
		info.attnos = lappend_int(info.attnos, pos);
		info.sortops = lappend_oid(info.sortops, sortop);
		info.eqops = lappend_oid(info.eqops, eqop);
		info.colls = lappend_oid(info.colls, pk->pk_eclass->ec_collation);
		info.nullsfirst = lappend_int(info.nullsfirst, pk->pk_nulls_first);
	}

	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = NIL;
	cscan->scan.scanrelid = 0;
	cscan->flags = best_path->flags;
	cscan->custom_plans = custom_plans;
	cscan->custom_exprs = NIL;
	cscan->custom_scan_tlist = scan_tlist;
	cscan->custom_relids = NULL;
	cscan->methods = &wj_session_sort_scan_methods;
	if (pinfo->session != NULL)
	{
		info.has_gap = true;
		info.gap = copyObject(pinfo->gap);
		cscan->methods = &wj_session_window_scan_methods;
	}
	cscan->custom_private = session_sort_info_to_private(&info);
	return &cscan->scan.plan;
}

static CustomPathMethods session_sort_path_methods = {
	.CustomName = "SessionSort",
	.PlanCustomPath = plan_session_sort,
};

static CustomPathMethods session_window_path_methods = {
	.CustomName = "SessionWindow",
	.PlanCustomPath = plan_session_sort,
};

/*
 * create_session_sort_path
 *		A SessionSort of subpath giving pathkeys, costed as: hash each row
 *		into its partition and store it, sort each partition by time, sort
 *		the partitions, return each row.  When the rows are expected not to
 *		fit in work_mem the executor writes them to key-range batches on
 *		disk and reads them back: the I/O is added.
 */
static Path *
create_session_sort_path(PlannerInfo *root, RelOptInfo *rel, Path *subpath,
						 List *pathkeys, List *part_exprs, Expr *time_expr)
{
	CustomPath *cpath = makeNode(CustomPath);
	double		rows = Max(subpath->rows, 1.0);
	double		groups = 1.0;
	double		per_group;
	double		bytes;
	int			rest_width = subpath->pathtarget->width;
	Cost		run;
	if (part_exprs != NIL)
		groups = estimate_num_groups(root, part_exprs, rows, NULL, NULL);
	groups = Max(Min(groups, rows), 1.0);
	per_group = Max(rows / groups, 2.0);

	/*
	 * A partition's rows are compared by their int64 time inline, not
	 * through a comparison function: cpu_operator_cost each, against the
	 * 2 * cpu_operator_cost cost_sort charges per comparison.
	 */
	run = cpu_operator_cost * rows * (list_length(part_exprs) + 1) +
		cpu_tuple_cost * rows +
		cpu_operator_cost * rows * log2(per_group) +
		2.0 * cpu_operator_cost * list_length(part_exprs) * groups * log2(Max(groups, 2.0));

	/* the time is not stored with each row (the partition keys are) */
	rest_width -= get_typavgwidth(exprType((Node *) time_expr),
								  exprTypmod((Node *) time_expr));
	bytes = rows * (SSORT_ENTRY_BYTES +
					MAXALIGN(SSORT_TUPLE_HEADER + Max(rest_width, 0)));
	if (bytes > work_mem * 1024.0)
	{
		/*
		 * Past work_mem the executor splits the rows into key ranges on disk
		 * and reads them back one batch at a time, each sorted in memory as
		 * above.  Each level of splitting writes and reads every row once
		 * (a page write and read, and a copy of the row as stored) and
		 * finds its range by a binary search over the bounds; a level makes
		 * up to SSORT_COST_FANOUT ranges of about 60% of work_mem.
		 */
		double		pages = ceil(rows * MAXALIGN(subpath->pathtarget->width +
												 SSORT_TUPLE_HEADER) / BLCKSZ);
		double		batches = ceil(bytes / (0.6 * work_mem * 1024.0));
		double		fanout = Max(Min(work_mem * 1024.0 / (4.0 * BLCKSZ),
									 SSORT_COST_FANOUT), 2.0);
		double		depth = Max(ceil(log(batches) / log(fanout)), 1.0);

		run += depth * (pages * 2.0 * seq_page_cost +
						rows * cpu_tuple_cost +
						rows * cpu_operator_cost * list_length(part_exprs) *
						log2(Min(batches, fanout) + 1.0));
	}

	cpath->path.pathtype = T_CustomScan;
	cpath->path.parent = rel;
	cpath->path.pathtarget = subpath->pathtarget;
	cpath->path.param_info = NULL;
	cpath->path.parallel_aware = false;
	/* the rule of every windowjoin node (join_common.h) */
	cpath->path.parallel_safe =
		wj_path_parallel_safe(root, rel, list_make1(subpath),
							  lappend(list_copy(part_exprs), time_expr));
	cpath->path.parallel_workers = 0;
	cpath->path.rows = subpath->rows;
	cpath->path.startup_cost = subpath->total_cost + run;
	cpath->path.total_cost = cpath->path.startup_cost + cpu_operator_cost * rows;
	cpath->path.pathkeys = pathkeys;
	cpath->flags = 0;
	cpath->custom_paths = list_make1(subpath);
	cpath->custom_private = list_make1(palloc0(sizeof(SessionSortPathInfo)));
	cpath->methods = &session_sort_path_methods;
	return &cpath->path;
}

/*
 * session_only_window
 *		Is session(time key, constant gap) the only window function of the
 *		WindowAgg (however often it is used), with no run condition, and is
 *		the window exactly PARTITION BY (the sort keys but the last) ORDER BY
 *		(the time key, the last sort key)?  Then a SessionWindow, which
 *		partitions by all sort keys but the last, can compute it; returns the
 *		call and sets *gap.
 *
 * The sort keys alone do not say where the window's partitions are: with
 * OVER (PARTITION BY k ORDER BY d, ts) or (PARTITION BY k, ts) they are
 * (k, d, ts) or (k, ts) too, and OVER (PARTITION BY ts ORDER BY ts) sorts
 * by ts alone.  So the window clause's own partition and order pathkeys
 * must match.
 */
static WindowFunc *
session_only_window(PlannerInfo *root, WindowAggPath *wpath, List *wfuncs,
					List *sort_pathkeys, Const **gap)
{
	WindowClause *wc = wpath->winclause;
	PathKey    *time_pk = (PathKey *) llast(sort_pathkeys);
	WindowFunc *first = NULL;
	List	   *part_pks;
	List	   *order_pks;
	ListCell   *lc;

	if (wpath->qual != NIL || list_length(wc->orderClause) != 1)
		return NULL;
	order_pks = make_pathkeys_for_sortclauses(root, wc->orderClause,
											  root->processed_tlist);
	if (list_length(order_pks) != 1 || linitial(order_pks) != time_pk)
		return NULL;
	part_pks = make_pathkeys_for_sortclauses(root, wc->partitionClause,
											 root->processed_tlist);
	if (compare_pathkeys(part_pks,
						 list_truncate(list_copy(sort_pathkeys),
									   list_length(sort_pathkeys) - 1)) !=
		PATHKEYS_EQUAL)
		return NULL;
	foreach(lc, part_pks)
	{
		if (((PathKey *) lfirst(lc))->pk_eclass == time_pk->pk_eclass)
			return NULL;
	}

	foreach(lc, wfuncs)
	{
		WindowFunc *wfunc = (WindowFunc *) lfirst(lc);

		if (wj_func_of(wfunc->winfnoid) != WJF_SESSION ||
			wfunc->aggfilter != NULL || list_length(wfunc->args) != 2)
			return NULL;
		if (first == NULL)
			first = wfunc;
		else if (!equal(first, wfunc))
			return NULL;
	}
	if (first == NULL || !IsA(lsecond(first->args), Const) ||
		find_ec_member_matching_expr(time_pk->pk_eclass,
									 (Expr *) linitial(first->args),
									 NULL) == NULL)
		return NULL;
	*gap = (Const *) lsecond(first->args);
	return first;
}

/*
 * window_computes_session
 *		Does the WindowAgg path compute session() over its own clause?  Also
 *		returns the clause's window functions.
 */
static bool
window_computes_session(WindowAggPath *wpath, List **wfuncs)
{
	WindowFuncLists *lists;
	ListCell   *lc;

	lists = find_window_functions((Node *) wpath->path.pathtarget->exprs,
								  wpath->winclause->winref);
	*wfuncs = lists->windowFuncs[wpath->winclause->winref];
	foreach(lc, *wfuncs)
	{
		WindowFunc *wfunc = (WindowFunc *) lfirst(lc);

		if (wj_func_of(wfunc->winfnoid) == WJF_SESSION)
			return true;
	}
	return false;
}

/*
 * wj_session_sort_add_paths
 *		create_upper_paths_hook body for UPPERREL_WINDOW: offer each sorted
 *		session() WindowAgg again over a SessionSort.
 */
void
wj_session_sort_add_paths(PlannerInfo *root, RelOptInfo *input_rel,
						  RelOptInfo *output_rel)
{
	List	   *new_paths = NIL;
	ListCell   *lc;

	if (!wj_enable_window_aggregate ||
		list_length(root->parse->windowClause) != 1)
		return;

	foreach(lc, output_rel->pathlist)
	{
		Path	   *path = (Path *) lfirst(lc);
		WindowAggPath *wpath;
		SortPath   *sort;
		List	   *wfuncs;
		List	   *part_exprs;
		Expr	   *time_expr;
		Path	   *ssort;
		WindowFunc *wfunc;
		Const	   *gap;

		if (!IsA(path, WindowAggPath))
			continue;
		wpath = (WindowAggPath *) path;
		if (!IsA(wpath->subpath, SortPath))
			continue;
		sort = (SortPath *) wpath->subpath;
		if (sort->subpath->param_info != NULL ||
			!window_computes_session(wpath, &wfuncs) ||
			!keys_supported(sort->path.pathkeys, sort->subpath->pathtarget->exprs,
							&part_exprs, &time_expr))
			continue;

		ssort = create_session_sort_path(root, output_rel, sort->subpath,
										 sort->path.pathkeys, part_exprs,
										 time_expr);
		new_paths = lappend(new_paths,
							create_windowagg_path(root, output_rel, ssort,
												  wpath->path.pathtarget,
												  wfuncs, wpath->winclause,
												  wpath->qual, wpath->topwindow));

		/* session() alone: compute it in the node, without the WindowAgg */
		wfunc = session_only_window(root, wpath, wfuncs, sort->path.pathkeys,
									&gap);
		if (wfunc != NULL)
		{
			CustomPath *swin = (CustomPath *)
			create_session_sort_path(root, output_rel, sort->subpath,
									 sort->path.pathkeys, part_exprs, time_expr);
			SessionSortPathInfo *pinfo = linitial(swin->custom_private);

			swin->methods = &session_window_path_methods;
			pinfo->session = wfunc;
			pinfo->gap = gap;
			swin->path.pathtarget = wpath->path.pathtarget;
			/* its target is the window's output: that must be safe too */
			swin->path.parallel_safe =
				wj_path_parallel_safe(root, output_rel,
									  list_make1(sort->subpath),
									  lappend(list_copy(part_exprs),
											  time_expr));
			/* the session scan: one comparison and a little work per row */
			swin->path.total_cost += 2.0 * cpu_operator_cost * swin->path.rows;
			new_paths = lappend(new_paths, swin);
		}
	}

	foreach(lc, new_paths)
		add_path(output_rel, (Path *) lfirst(lc));
}

/*
 * session_sort_info_to_private
 *		Encode a SessionSortPlanInfo as CustomScan.custom_private
 *		(plan_private.h).  session_sort_info_from_private reads the fields in
 *		the same order.
 */
List *
session_sort_info_to_private(const SessionSortPlanInfo *info)
{
	List	   *priv = NIL;

	wj_private_put_int_list(&priv, info->attnos);
	wj_private_put_oid_list(&priv, info->sortops);
	wj_private_put_oid_list(&priv, info->eqops);
	wj_private_put_oid_list(&priv, info->colls);
	wj_private_put_int_list(&priv, info->nullsfirst);
	wj_private_put_bool(&priv, info->has_gap);
	wj_private_put_node(&priv, info->gap);
	return priv;
}

/*
 * session_sort_info_from_private
 *		Decode CustomScan.custom_private into *info.
 */
void
session_sort_info_from_private(List *priv, SessionSortPlanInfo *info)
{
	WjPrivateReader r;

	wj_private_reader_init(&r, priv, "SessionSort");
	info->attnos = wj_private_get_int_list(&r);
	info->sortops = wj_private_get_oid_list(&r);
	info->eqops = wj_private_get_oid_list(&r);
	info->colls = wj_private_get_oid_list(&r);
	info->nullsfirst = wj_private_get_int_list(&r);
	info->has_gap = wj_private_get_bool(&r);
	info->gap = castNode(Const, wj_private_get_node(&r));
	wj_private_reader_done(&r);
}
