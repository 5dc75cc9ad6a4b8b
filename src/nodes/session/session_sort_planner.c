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
 * their keys.  See session_sort_exec.c for the executor and
 * session_sort_spill.c for how it splits the rows into key-range batches on
 * disk when they do not fit in work_mem.
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
 * With partition keys and a parallel scan of the input, both are also
 * offered key-partitioned, as partial paths (windowjoin.enable_key_partitioning,
 * docs/parallel.md): every participant reads the input, keeps the rows of
 * the partitions it claims and sessionizes them, so the window relation gets
 * partial paths, Gathers of them, and passes them on to the query level
 * above (where session_groupagg_planner.c aggregates below the Gather).
 *
 * On PostgreSQL 18 a finished plan's SessionWindows show session() to
 * EXPLAIN as a plain function call, not as the window function, which 18
 * can only print on a WindowAgg (wj_finish_window_func_scans(), from the
 * planner hook of planner.c).
 *
 * src/nodes/session/session_sort_planner.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/stratnum.h"
#include "catalog/pg_proc.h"
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

#include "src/common/catalog_cache.h"
#include "src/common/exec_common.h"
#include "src/common/gucs.h"
#include "src/common/input_paths.h"
#include "src/common/pg_compat.h"
#include "src/common/plan_private.h"
#include "src/nodes/session/session_sort.h"
#include "src/parallel/keypart.h"
#include "src/parallel/row_exchange.h"
#include "src/windowjoin.h"

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

	*sortop = get_opfamily_member(pk->pk_opfamily, type, type,
								  wj_pathkey_strategy(pk));
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
		wj_pathkey_strategy(pk) != BTLessStrategyNumber || pk->pk_nulls_first)
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
	bool		exchange;		/* key-partitioned, its partitions' rows
								 * exchanged (make_exchange_path) */
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
	CustomScan *cscan;
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

	cscan = wj_custom_scan(best_path->flags, tlist, NIL, custom_plans, scan_tlist,
						   pinfo->session != NULL ?
						   &wj_session_window_scan_methods :
						   &wj_session_sort_scan_methods);
	if (pinfo->session != NULL)
	{
		info.has_gap = true;
		info.gap = copyObject(pinfo->gap);
	}
	/* a partial path is key-partitioned (wj_keypart_units) */
	wj_keypart_plan_none(&info.keypart);
	if (best_path->path.parallel_aware)
	{
		info.keypart.units = wj_keypart_units(best_path->path.parallel_workers);
		info.keypart.exchange = pinfo->exchange;
		info.keypart.grain = wj_keypart_grain(pinfo->exchange);
	}
	cscan->custom_private = session_sort_info_to_private(&info);
	if (pinfo->session != NULL)
		wj_window_func_scans_planned++;
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
	CustomPath *cpath;
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

	cpath = wj_custom_path(root, rel, subpath->pathtarget, list_make1(subpath),
						   lappend(list_copy(part_exprs), time_expr), false,
						   &session_sort_path_methods);
	cpath->path.parallel_workers = 0;
	cpath->path.rows = subpath->rows;
	cpath->path.startup_cost = subpath->total_cost + run;
	cpath->path.total_cost = cpath->path.startup_cost + cpu_operator_cost * rows;
	cpath->path.pathkeys = pathkeys;
	cpath->flags = 0;
	cpath->custom_private = list_make1(palloc0(sizeof(SessionSortPathInfo)));
	return &cpath->path;
}

/*
 * create_session_window_path
 *		A SessionWindow computing session() in place of the WindowAgg wpath
 *		over a SessionSort of the Sort's input.
 */
static Path *
create_session_window_path(PlannerInfo *root, RelOptInfo *rel,
						   WindowAggPath *wpath, SortPath *sort,
						   List *part_exprs, Expr *time_expr,
						   WindowFunc *wfunc, Const *gap)
{
	CustomPath *swin = (CustomPath *)
	create_session_sort_path(root, rel, sort->subpath, sort->path.pathkeys,
							 part_exprs, time_expr);

	SessionSortPathInfo *pinfo = linitial(swin->custom_private);

	swin->methods = &session_window_path_methods;
	pinfo->session = wfunc;
	pinfo->gap = gap;
	swin->path.pathtarget = wpath->path.pathtarget;
	/* its target is the window's output: that must be safe too */
	swin->path.parallel_safe =
		wj_path_parallel_safe(root, rel, list_make1(sort->subpath),
							  lappend(list_copy(part_exprs), time_expr));
	/* the session scan: one comparison and a little work per row */
	swin->path.total_cost += 2.0 * cpu_operator_cost * swin->path.rows;
	return &swin->path;
}

/*
 * make_keypart_path
 *		Turn a new SessionSort or SessionWindow path over subpath into a
 *		key-partitioned partial path (docs/parallel.md): every participant
 *		reads the input in full and hashes every row's partition keys, but
 *		stores, sorts and returns only the rows of the partitions it claims,
 *		so the input is paid in full by each, the rest is divided by the
 *		parallel divisor and charged at the busiest participant's share
 *		(wj_keypart_skew).  Each participant's rows come in (keys..., time)
 *		order, so the pathkeys stay.
 */
static void
make_keypart_path(PlannerInfo *root, Path *path, Path *subpath, int workers,
				  List *part_exprs)
{
	int			npart = list_length(part_exprs);
	double		skew = wj_keypart_skew(root, part_exprs, subpath->rows, workers);
	Cost		input = subpath->total_cost +
		cpu_operator_cost * Max(subpath->rows, 1.0) * npart;
	Cost		startup_rest = Max(path->startup_cost - subpath->total_cost, 0);
	Cost		run = path->total_cost - path->startup_cost;
	double		divisor;

	path->parallel_aware = true;
	path->parallel_workers = workers;
	divisor = wj_parallel_divisor(path);
	path->rows = clamp_row_est(path->rows / divisor);
	path->startup_cost = input + startup_rest / divisor * skew;
	path->total_cost = path->startup_cost + run / divisor * skew;
}

/*
 * make_exchange_path
 *		Turn a new SessionSort or SessionWindow path over a partial path of
 *		its input into a key-partitioned partial path whose partitions' rows
 *		are exchanged between the participants (docs/parallel.md): each
 *		participant reads its share of the input, hashes every row's
 *		partition keys and writes the row into its partition's shared file,
 *		then reads back and stores, sorts and returns the rows of the
 *		partitions it claims, about as many.  The path was costed over the
 *		partial input, one participant's share; the exchange adds the
 *		hashing and the exchange of that share (wj_exchange_cost), and what
 *		follows it is charged at the busiest participant's share
 *		(wj_keypart_skew).
 */
static void
make_exchange_path(PlannerInfo *root, Path *path, Path *subpath, int workers,
				   List *part_exprs)
{
	double		rows = Max(subpath->rows, 1.0);
	Cost		exchange = rows * cpu_operator_cost * list_length(part_exprs) +
		wj_exchange_cost(rows, subpath->pathtarget->width);
	double		skew = wj_keypart_skew(root, part_exprs,
									   rows * wj_parallel_divisor(subpath),
									   workers);
	Cost		input = subpath->total_cost;
	SessionSortPathInfo *pinfo = linitial(((CustomPath *) path)->custom_private);

	pinfo->exchange = true;
	path->parallel_aware = true;
	path->parallel_workers = workers;
	path->startup_cost = input + exchange +
		Max(path->startup_cost - input, 0) * skew;
	path->total_cost = input + exchange +
		Max(path->total_cost - input, 0) * skew;
}

/*
 * make_partial
 *		Make a new path over input key-partitioned: the rows exchanged
 *		(input is a partial path, make_exchange_path) or the input read in
 *		full by every participant (make_keypart_path).
 */
static void
make_partial(PlannerInfo *root, Path *path, Path *input, bool exchange,
			 int workers, List *part_exprs)
{
	path->parallel_safe = true;
	if (exchange)
		make_exchange_path(root, path, input, input->parallel_workers,
						   part_exprs);
	else
		make_keypart_path(root, path, input, workers, part_exprs);
}

/*
 * wj_session_keypart_path
 *		Is the path (through a projection and a WindowAgg) a key-partitioned
 *		SessionSort or SessionWindow, whose participants each return whole
 *		partitions of the window?
 */
bool
wj_session_keypart_path(Path *path)
{
	if (IsA(path, ProjectionPath))
		path = ((ProjectionPath *) path)->subpath;
	if (IsA(path, WindowAggPath))
		path = ((WindowAggPath *) path)->subpath;
	return IsA(path, CustomPath) && path->parallel_aware &&
		(((CustomPath *) path)->methods == &session_sort_path_methods ||
		 ((CustomPath *) path)->methods == &session_window_path_methods);
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
 * cheapest_safe_input
 *		The cheapest unparameterized parallel-safe path of the window's input
 *		relation with the given target (the scan under a Gather that is the
 *		cheapest path of all, say), or NULL.
 */
static Path *
cheapest_safe_input(RelOptInfo *input_rel, PathTarget *target)
{
	Path	   *result = NULL;
	ListCell   *lc;

	foreach(lc, input_rel->pathlist)
	{
		Path	   *path = (Path *) lfirst(lc);

		if (path->param_info != NULL || !path->parallel_safe ||
			!equal(path->pathtarget->exprs, target->exprs))
			continue;
		if (result == NULL || wj_path_total_cheaper(path, result))
			result = path;
	}
	return result;
}

/*
 * strip_window_funcs
 *		Mutator: the expression with each window function replaced by a NULL
 *		of its type.
 */
static Node *
strip_window_funcs(Node *node, void *context)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, WindowFunc))
	{
		WindowFunc *wfunc = (WindowFunc *) node;

		return (Node *) makeNullConst(wfunc->wintype, -1, wfunc->inputcollid);
	}
	return expression_tree_mutator(node, strip_window_funcs, context);
}

/*
 * window_parallel_safe
 *		May the window run in parallel workers, each participant computing
 *		whole partitions of it?  PostgreSQL holds every window function
 *		parallel restricted, because a window computed again in several
 *		processes over rows in a different order of ties could differ
 *		between them.  A key-partitioned path computes every partition once,
 *		in one process, over the same rows as a serial plan: what remains to
 *		check is that the window functions themselves, their arguments and
 *		filters, the rest of the target and the window clause are parallel
 *		safe.  (Complete paths of the window stay parallel restricted.)
 */
static bool
window_parallel_safe(PlannerInfo *root, RelOptInfo *input_rel,
					 WindowAggPath *wpath, List *wfuncs)
{
	ListCell   *lc;

	if (!input_rel->consider_parallel ||
		!is_parallel_safe(root, (Node *) wpath->winclause) ||
		!is_parallel_safe(root, (Node *) wpath->qual) ||
		!is_parallel_safe(root,
						  strip_window_funcs((Node *) wpath->path.pathtarget->exprs,
											 NULL)))
		return false;
	foreach(lc, wfuncs)
	{
		WindowFunc *wfunc = (WindowFunc *) lfirst(lc);

		if (func_parallel(wfunc->winfnoid) != PROPARALLEL_SAFE ||
			!is_parallel_safe(root, (Node *) wfunc->args) ||
			!is_parallel_safe(root, (Node *) wfunc->aggfilter))
			return false;
	}
	return true;
}

/* one sorted session() WindowAgg the node can take, and what it needs */
typedef struct SessionCandidate
{
	WindowAggPath *wpath;
	SortPath   *sort;			/* its Sort */
	List	   *wfuncs;			/* its window functions */
	List	   *part_exprs;		/* PARTITION BY */
	Expr	   *time_expr;		/* ORDER BY */

	/*
	 * The key-partitioned inputs: [0] read in full by every participant,
	 * [1] a partial path whose rows are exchanged; NULL when not offered.
	 */
	Path	   *kp_inputs[2];
	int			workers;
} SessionCandidate;

/*
 * session_window_agg_paths
 *		The WindowAgg paths over a full Sort.  When a cheaper one (over a
 *		Gather Merge of sorted partial paths, say) has pushed the one over
 *		the Sort of the cheapest input path out of the list, make that Sort
 *		again, as create_window_paths() did.
 */
static List *
session_window_agg_paths(PlannerInfo *root, RelOptInfo *input_rel,
						 RelOptInfo *output_rel)
{
	List	   *candidates = NIL;
	WindowAggPath *any_wpath = NULL;
	ListCell   *lc;

	foreach(lc, output_rel->pathlist)
	{
		Path	   *path = (Path *) lfirst(lc);

		if (!IsA(path, WindowAggPath))
			continue;
		any_wpath = (WindowAggPath *) path;
		if (IsA(any_wpath->subpath, SortPath))
			candidates = lappend(candidates, path);
	}
	if (candidates == NIL && any_wpath != NULL &&
		input_rel->cheapest_total_path != NULL &&
		root->window_pathkeys != NIL &&
		!pathkeys_contained_in(root->window_pathkeys,
							   input_rel->cheapest_total_path->pathkeys))
	{
		WindowAggPath *wpath = makeNode(WindowAggPath);

		memcpy(wpath, any_wpath, sizeof(WindowAggPath));
		wpath->subpath = (Path *)
			create_sort_path(root, output_rel, input_rel->cheapest_total_path,
							 root->window_pathkeys, -1.0);
		candidates = list_make1(wpath);
	}
	return candidates;
}

/*
 * session_candidate
 *		Can the node take this WindowAgg (session() over supported keys)?
 *		If so fill c, with its key-partitioned inputs: either every
 *		participant reads the input in full (which must then run in a
 *		worker), or each reads its share of a partial path and the rows are
 *		exchanged; the costs decide between them.
 */
static bool
session_candidate(PlannerInfo *root, RelOptInfo *input_rel, WindowAggPath *wpath,
				  int workers, SessionCandidate *c)
{
	SortPath   *sort = (SortPath *) wpath->subpath;

	memset(c, 0, sizeof(*c));
	c->wpath = wpath;
	c->sort = sort;
	c->workers = workers;
	if (sort->subpath->param_info != NULL ||
		!window_computes_session(wpath, &c->wfuncs) ||
		!keys_supported(sort->path.pathkeys, sort->subpath->pathtarget->exprs,
						&c->part_exprs, &c->time_expr))
		return false;
	if (workers > 0 && c->part_exprs != NIL &&
		is_parallel_safe(root, (Node *) lappend(list_copy(c->part_exprs),
												c->time_expr)) &&
		window_parallel_safe(root, input_rel, wpath, c->wfuncs))
	{
		c->kp_inputs[0] = sort->subpath;
		if (!c->kp_inputs[0]->parallel_safe)
			c->kp_inputs[0] = cheapest_safe_input(input_rel, c->kp_inputs[0]->pathtarget);
		c->kp_inputs[1] = wj_cheapest_partial_path(input_rel, sort->subpath->pathtarget);
	}
	return true;
}

/*
 * add_session_sort_paths
 *		The WindowAgg again over a SessionSort of the same input (to
 *		*new_paths), and over one of each key-partitioned input (partial, to
 *		*partial_paths).
 */
static void
add_session_sort_paths(PlannerInfo *root, RelOptInfo *output_rel,
					   const SessionCandidate *c, List **new_paths,
					   List **partial_paths)
{
	Path	   *ssort;

	ssort = create_session_sort_path(root, output_rel, c->sort->subpath,
									 c->sort->path.pathkeys, c->part_exprs,
									 c->time_expr);
	*new_paths = lappend(*new_paths,
						 wj_create_windowagg_path_like(root, output_rel, ssort,
													   c->wpath->path.pathtarget,
													   c->wfuncs, c->wpath));
	for (int variant = 0; variant < 2; variant++)
	{
		Path	   *input = c->kp_inputs[variant];
		Path	   *kp;
		Path	   *wagg;

		if (input == NULL)
			continue;
		kp = create_session_sort_path(root, output_rel, input,
									  c->sort->path.pathkeys, c->part_exprs,
									  c->time_expr);
		make_partial(root, kp, input, variant == 1, c->workers, c->part_exprs);
		wagg = (Path *) wj_create_windowagg_path_like(root, output_rel, kp,
													  c->wpath->path.pathtarget,
													  c->wfuncs, c->wpath);
		wagg->parallel_safe = true;
		*partial_paths = lappend(*partial_paths, wagg);
	}
}

/*
 * add_session_window_paths
 *		When the window computes session() alone: a SessionWindow computing
 *		it in the node, without the WindowAgg (to *new_paths), and one over
 *		each key-partitioned input (to *partial_paths).
 */
static void
add_session_window_paths(PlannerInfo *root, RelOptInfo *output_rel,
						 const SessionCandidate *c, List **new_paths,
						 List **partial_paths)
{
	WindowFunc *wfunc;
	Const	   *gap;

	wfunc = session_only_window(root, c->wpath, c->wfuncs, c->sort->path.pathkeys,
								&gap);
	if (wfunc == NULL)
		return;
#if PG_VERSION_NUM >= 180000

	/*
	 * On 18 the plan must go through wj_planner to be finished for EXPLAIN
	 * (wj_finish_window_func_scans).  It does not when this backend loaded
	 * the library in the middle of planning this query (not preloaded: a
	 * function of the library that the planner evaluated), or when a planner
	 * hook installed later does not call the one it replaced: then the
	 * WindowAgg over SessionSort computes session().
	 */
	if (!wj_planner_hook_reached())
		return;
#endif
	*new_paths = lappend(*new_paths,
						 create_session_window_path(root, output_rel, c->wpath,
													c->sort, c->part_exprs,
													c->time_expr, wfunc, gap));
	for (int variant = 0; variant < 2; variant++)
	{
		Path	   *input = c->kp_inputs[variant];
		SortPath	kp_sort;
		Path	   *kp;

		if (input == NULL)
			continue;
		kp_sort = *c->sort;
		kp_sort.subpath = input;
		kp = create_session_window_path(root, output_rel, c->wpath, &kp_sort,
										c->part_exprs, c->time_expr, wfunc, gap);
		make_partial(root, kp, input, variant == 1, c->workers, c->part_exprs);
		*partial_paths = lappend(*partial_paths, kp);
	}
}

/*
 * wj_session_sort_add_paths
 *		create_upper_paths_hook body for UPPERREL_WINDOW: offer each sorted
 *		session() WindowAgg again over a SessionSort, or replaced by a
 *		SessionWindow; and, when the input has a parallel scan and the
 *		window has partition keys, both key-partitioned as partial paths
 *		(docs/parallel.md), gathered here and offered to the level above.
 */
void
wj_session_sort_add_paths(PlannerInfo *root, RelOptInfo *input_rel,
						  RelOptInfo *output_rel)
{
	List	   *new_paths = NIL;
	List	   *partial_paths = NIL;
	int			workers = 0;
	ListCell   *lc;

	if (!wj_enable_window_aggregate ||
		list_length(root->parse->windowClause) != 1)
		return;

	/*
	 * Key partitioning by the partition keys: as many workers as
	 * PostgreSQL would give a parallel scan of the input.
	 */
	if (wj_enable_key_partitioning && input_rel->consider_parallel &&
		input_rel->partial_pathlist != NIL)
		workers = ((Path *) linitial(input_rel->partial_pathlist))->parallel_workers;

	foreach(lc, session_window_agg_paths(root, input_rel, output_rel))
	{
		SessionCandidate c;

		if (!session_candidate(root, input_rel, (WindowAggPath *) lfirst(lc),
							   workers, &c))
			continue;
		add_session_sort_paths(root, output_rel, &c, &new_paths, &partial_paths);
		add_session_window_paths(root, output_rel, &c, &new_paths, &partial_paths);
	}

	foreach(lc, new_paths)
		add_path(output_rel, (Path *) lfirst(lc));
	if (partial_paths == NIL)
		return;

	/*
	 * The window relation now has parallel-safe (partial) paths; its
	 * complete paths keep the flags they were made with.  The final
	 * relation of a subquery takes its consider_parallel from it and so
	 * passes the partial paths on to the query level above.
	 */
	output_rel->consider_parallel = true;
	wj_add_partial_paths_gathered(root, output_rel, partial_paths);
}
