/*-------------------------------------------------------------------------
 *
 * window_expand_planner.c
 *	  Pane-based aggregation over hop() and cumulate() windows.
 *
 * "SELECT window_start, window_end, sum(price) FROM bid, hop(bidtime,
 * '1 minute', '10 minutes') GROUP BY window_start, window_end" ordinarily
 * expands every row into its size/slide windows (a lateral Function Scan
 * per row) and aggregates all of those copies.  But hop windows of length
 * `size' starting every `slide' are unions of panes of width
 * g = gcd(slide, size), aligned like the windows, and all rows of one pane
 * fall into exactly the same windows.  So we aggregate each pane once,
 * expand each pane's partial aggregate state into the windows that contain
 * the pane, and combine the states per window -- PostgreSQL's own partial
 * and final aggregation, as in a parallel plan, with a small custom node in
 * between:
 *
 *	 Finalize HashAggregate			 GROUP BY window_start, window_end, keys
 *	   -> Custom Scan (WindowExpand) one row per (pane, window)
 *			-> Partial HashAggregate GROUP BY pane, keys
 *				 -> scan of bid		 (any path PostgreSQL chose for it)
 *
 * The expensive aggregation now sees each input row once instead of
 * size/slide times.  CUMULATE works the same way with panes of one step:
 * its windows [S, S + k*step) are unions of steps.
 *
 * The path is offered (from the create_upper_paths_hook, GROUP_AGG stage)
 * only when it computes exactly what the query asks for:
 *	- the query groups a join of one relation and one hop()/cumulate() call
 *	  over it (after inlining: a lateral scan of wj_hop_starts or
 *	  wj_cumulate_ends) with constant slide/step, size and offset;
 *	- at least one GROUP BY item is a window column, every other one uses
 *	  only the windowed relation, and no condition or aggregate argument
 *	  refers to the window columns (so it can be evaluated per pane);
 *	- no outer join is involved, and HOP windows leave no gaps (size >=
 *	  slide): every aggregated row then belongs to some window;
 *	- unless the time column is NOT NULL, aggregate arguments and keys are
 *	  plain columns or constants, since rows with a NULL time are
 *	  aggregated (into a pane that is then dropped) and must not raise
 *	  errors PostgreSQL's plan would never evaluate;
 *	- all aggregates support partial aggregation, combining their partial
 *	  states gives exactly the result of aggregating the rows one by one
 *	  (src/common/agg_exact.c), and the grouping can hash.
 * It then competes on cost with PostgreSQL's plan.
 *
 * src/nodes/window_expand/window_expand_planner.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "access/transam.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_attribute.h"
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "common/int.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/planner.h"
#include "optimizer/prep.h"
#include "optimizer/tlist.h"
#include "parser/parse_oper.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"
#include "utils/syscache.h"

#include "src/common/agg_exact.h"
#include "src/common/catalog_cache.h"
#include "src/common/grouping.h"
#include "src/common/gucs.h"
#include "src/common/input_paths.h"
#include "src/common/pg_compat.h"
#include "src/common/plan_private.h"
#include "src/common/stats_common.h"
#include "src/common/window_arith.h"
#include "src/nodes/window_expand/window_expand.h"
#include "src/parallel/row_exchange.h"

/* What was recognised in the query */
typedef struct WindowAggSpec
{
	WindowExpandKind kind;
	Index		fn_relid;		/* the hop/cumulate function RTE */
	RelOptInfo *data_rel;		/* the windowed relation */
	Expr	   *time_expr;		/* its time argument */
	Oid			time_type;		/* timestamp or timestamptz */
	Oid			fn_funcid;		/* wj_hop_starts or wj_cumulate_ends */
	int64		every;			/* slide or step */
	int64		size;
	int64		offset;
	int64		pane;			/* pane width */
	double		groups;			/* PostgreSQL's estimate of the groups, or 0 */
	double		pane_groups;	/* our estimate of the (pane, keys) groups */
} WindowAggSpec;

/* The three aggregation steps' targets and groupings, as they are built */
typedef struct PanePlan
{
	PathTarget *grouping_target;	/* the final aggregation's output */
	PathTarget *pane_input;		/* pane, keys, aggregate inputs */
	PathTarget *pane_target;	/* pane, keys, partial states */
	PathTarget *expand_target;	/* window columns, keys, partial states */
	List	   *pane_group;		/* SortGroupClauses of the pane and keys */
	List	   *key_exprs;		/* the keys that are not constant per pane */
	bool		window_identified;	/* a grouped window column identifies
									 * the window */
	AggClauseCosts partial_costs;
	AggClauseCosts final_costs;
} PanePlan;

static CustomPathMethods window_expand_path_methods;

static double final_groups(WindowAggSpec *spec, double rows);

static Path *make_pane_path(PlannerInfo *root, WindowAggSpec *spec,
							Path *data_path, PathTarget *pane_input,
							PathTarget *pane_target, List *pane_group,
							List *key_exprs, AggClauseCosts *partial_costs);
static CustomPath *make_expand_path(PlannerInfo *root, RelOptInfo *output_rel,
									WindowAggSpec *spec, Path *path,
									PathTarget *expand_target);
static Path *make_final_path(PlannerInfo *root, RelOptInfo *output_rel,
							 WindowAggSpec *spec, Path *path,
							 PathTarget *grouping_target,
							 GroupPathExtraData *extra,
							 AggClauseCosts *final_costs);

/*
 * gcd64
 *		Greatest common divisor of two positive integers.
 */
static int64
gcd64(int64 a, int64 b)
{
	while (b != 0)
	{
		int64		t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/*
 * match_window_function
 *		Is input_rel exactly {relation, lateral hop/cumulate over it} with
 *		constant window parameters and no condition on the window columns?
 *		Fills spec if so.
 */
static bool
match_window_function(PlannerInfo *root, RelOptInfo *input_rel,
					  WindowAggSpec *spec)
{
	int			relid = -1;
	Index		fn_relid = 0;
	Index		data_relid = 0;
	RangeTblEntry *rte = NULL;
	RangeTblFunction *rtfunc;
	FuncExpr   *fexpr;
	RelOptInfo *fn_rel;
	Relids		time_varnos;
	Relids		members;

	if (input_rel->reloptkind != RELOPT_JOINREL)
		return false;
	members = wj_base_relids(root, input_rel->relids);
	if (bms_num_members(members) != 2)
		return false;

	while ((relid = bms_next_member(members, relid)) >= 0)
	{
		RangeTblEntry *r = root->simple_rte_array[relid];

		if (r->rtekind == RTE_FUNCTION && fn_relid == 0)
		{
			fn_relid = relid;
			rte = r;
		}
		else
			data_relid = relid;
	}
	if (fn_relid == 0 || data_relid == 0)
		return false;

	if (list_length(rte->functions) != 1 || rte->funcordinality)
		return false;
	rtfunc = (RangeTblFunction *) linitial(rte->functions);
	if (!IsA(rtfunc->funcexpr, FuncExpr))
		return false;
	fexpr = (FuncExpr *) rtfunc->funcexpr;
	if (list_length(fexpr->args) != 4)
		return false;

	if (wj_func_of(fexpr->funcid) == WJF_HOP_STARTS)
		spec->kind = WJ_EXPAND_HOP;
	else if (wj_func_of(fexpr->funcid) == WJF_CUMULATE_ENDS)
		spec->kind = WJ_EXPAND_CUMULATE;
	else
		return false;

	/* constant, valid window parameters (else let the executor complain) */
	if (!wj_const_usecs(lsecond(fexpr->args), &spec->every) ||
		!wj_const_usecs(lthird(fexpr->args), &spec->size) ||
		!wj_const_usecs(lfourth(fexpr->args), &spec->offset) ||
		spec->every < WJ_MIN_WINDOW_USECS || spec->size < WJ_MIN_WINDOW_USECS)
		return false;
	if (spec->kind == WJ_EXPAND_HOP)
	{
		/* rows in the gaps between windows must not be aggregated */
		if (spec->size < spec->every)
			return false;
		spec->pane = gcd64(spec->every, spec->size);
	}
	else
	{
		if (spec->size % spec->every != 0)
			return false;
		spec->pane = spec->every;
	}
	if (spec->pane < WJ_MIN_WINDOW_USECS)
		return false;

	/* the time argument comes from the windowed relation alone */
	spec->time_expr = (Expr *) linitial(fexpr->args);
	time_varnos = pull_varnos(root, (Node *) spec->time_expr);
	if (!bms_equal(time_varnos, bms_make_singleton(data_relid)) ||
		contain_volatile_functions((Node *) spec->time_expr))
		return false;
	spec->time_type = exprType((Node *) spec->time_expr);

	/*
	 * Nothing filters or joins on the window columns (an equality would
	 * only show in an equivalence class), and neither side is under an
	 * outer join: a NULL-extended window row would be a group of its own.
	 */
	fn_rel = find_base_rel(root, fn_relid);
	spec->data_rel = find_base_rel(root, data_relid);
	if (root->join_info_list != NIL || root->placeholder_list != NIL ||
		fn_rel->has_eclass_joins || spec->data_rel->has_eclass_joins ||
		fn_rel->baserestrictinfo != NIL || fn_rel->joininfo != NIL ||
		spec->data_rel->reloptkind != RELOPT_BASEREL ||
		!bms_is_empty(spec->data_rel->lateral_relids) ||
		spec->data_rel->cheapest_total_path == NULL ||
		spec->data_rel->cheapest_total_path->param_info != NULL)
		return false;

	spec->fn_relid = fn_relid;
	spec->fn_funcid = fexpr->funcid;
	return true;
}

/*
 * identifies_window
 *		Is expr, a grouped window column, one value per window: the window
 *		value itself (a HOP window's start, a CUMULATE window's end), or a
 *		window_end or window_time computed from it?  Then every group of
 *		the final aggregation belongs to one window, and a parallel plan may
 *		finish the windows of different partitions in different processes.
 *		(A CUMULATE window_start alone is a key of the windowed relation, and
 *		an expression like date_trunc('day', window_start) spans windows.)
 */
static bool
identifies_window(WindowAggSpec *spec, Expr *expr)
{
	FuncExpr   *fexpr = (FuncExpr *) expr;
	Var		   *var;

	if (IsA(expr, FuncExpr) && fexpr->args != NIL)
	{
		switch (wj_func_of(fexpr->funcid))
		{
			case WJF_WINDOW_END:
			case WJF_WINDOW_TIME:
				if (spec->kind != WJ_EXPAND_HOP)
					return false;
				break;
			case WJF_END_TO_TIME:
				if (spec->kind != WJ_EXPAND_CUMULATE)
					return false;
				break;
			default:
				return false;
		}
		expr = (Expr *) linitial(fexpr->args);
	}
	if (!IsA(expr, Var))
		return false;
	var = (Var *) expr;
	return var->varno == spec->fn_relid && var->varattno == 1 &&
		var->varlevelsup == 0;
}

/*
 * harmless_expr
 *		Can evaluating expr for a row raise no error?  Rows with a NULL time
 *		have no window, so PostgreSQL never evaluates aggregate arguments or
 *		grouping keys for them, while the partial aggregation does: unless
 *		the time column is NOT NULL, those must be plain columns/constants.
 */
static bool
harmless_expr(Node *expr)
{
	while (expr && IsA(expr, RelabelType))
		expr = (Node *) ((RelabelType *) expr)->arg;
	return expr == NULL || IsA(expr, Var) || IsA(expr, Const);
}

/*
 * time_not_null
 *		Is the time argument a column declared NOT NULL?
 */
static bool
time_not_null(PlannerInfo *root, WindowAggSpec *spec)
{
	Var		   *var = (Var *) spec->time_expr;
	RangeTblEntry *rte;
	HeapTuple	tup;
	bool		result = false;

	if (!IsA(var, Var) || var->varattno <= 0)
		return false;
	rte = root->simple_rte_array[var->varno];
	if (rte->rtekind != RTE_RELATION)
		return false;
	tup = SearchSysCache2(ATTNUM, ObjectIdGetDatum(rte->relid),
						  Int16GetDatum(var->varattno));
	if (HeapTupleIsValid(tup))
	{
		result = ((Form_pg_attribute) GETSTRUCT(tup))->attnotnull;
		ReleaseSysCache(tup);
	}
	return result;
}

/*
 * make_pane_expr
 *		wj_tumble_start(time, pane, offset): the pane of a row.  The function
 *		is the extension's own, found by its C symbol among the members of
 *		the extension that provides the hop/cumulate function (whatever its
 *		schema or SQL name); NULL if there is none.
 */
static Expr *
make_pane_expr(WindowAggSpec *spec)
{
	Oid			argtypes[3] = {spec->time_type, INTERVALOID, INTERVALOID};
	Oid			funcid;
	Interval   *pane = palloc0(sizeof(Interval));
	Interval   *offset = palloc0(sizeof(Interval));

	funcid = wj_func_oid(WJF_TUMBLE_START, spec->fn_funcid, 3, argtypes);
	if (!OidIsValid(funcid))
		return NULL;

	pane->time = spec->pane;
	offset->time = spec->offset;
	return (Expr *) makeFuncExpr(funcid, spec->time_type,
								 list_make3(copyObject(spec->time_expr),
											makeConst(INTERVALOID, -1, InvalidOid, 16,
													  IntervalPGetDatum(pane), false, false),
											makeConst(INTERVALOID, -1, InvalidOid, 16,
													  IntervalPGetDatum(offset), false, false)),
								 InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
}

/*
 * constant_per_pane
 *		Is expr a window of the same time column that is a union of panes,
 *		like cumulate()'s window_start, wj_tumble_start(time, size, offset)?
 *		Such a key adds no groups to the partial aggregation.
 */
static bool
constant_per_pane(WindowAggSpec *spec, Expr *expr)
{
	FuncExpr   *fexpr = (FuncExpr *) expr;
	int64		unit;
	int64		offset;

	if (!IsA(expr, FuncExpr) || list_length(fexpr->args) != 3 ||
		wj_func_of(fexpr->funcid) != WJF_TUMBLE_START ||
		!equal(linitial(fexpr->args), spec->time_expr) ||
		!wj_const_usecs(lsecond(fexpr->args), &unit) ||
		!wj_const_usecs(lthird(fexpr->args), &offset) ||
		unit <= 0)
		return false;
	return unit % spec->pane == 0 && (offset - spec->offset) % spec->pane == 0;
}

/*
 * estimate_panes
 *		Number of distinct (pane, keys) groups among rows input rows: the
 *		groups of the partial aggregation.
 *
 * With statistics on the time column, the panes its values occupy
 * according to the histogram (wj_stats_time_cells: a few outliers far
 * apart do not inflate it), times the distinct keys, at most one group per
 * row.  Without (a table never analysed), PostgreSQL's own estimate of
 * the number of groups of "GROUP BY pane, keys" -- its default guesses, the
 * same ones its own plan's aggregation is costed with.  Counting a pane
 * per row instead would cost the partial aggregation as if nothing were
 * grouped (spilling every row at a small work_mem) while PostgreSQL's
 * aggregation of the size/slide copies of every row is costed with a
 * handful of groups, and the path would lose on never-analysed tables
 * whatever the data.
 */
static double
estimate_panes(PlannerInfo *root, WindowAggSpec *spec, Expr *pane_expr,
			   List *key_exprs, double rows)
{
	double		panes;

	panes = wj_stats_time_cells(root, (Node *) spec->time_expr,
								(double) spec->pane, rows);
	if (panes < 0)
		return estimate_num_groups(root, lcons(pane_expr, key_exprs), rows,
								   NULL, NULL);
	if (key_exprs != NIL)
		panes *= estimate_num_groups(root, key_exprs, rows, NULL, NULL);
	return clamp_row_est(Min(panes, rows));
}

/*
 * pane_group_clause
 *		The pane's grouping clause, under a sort/group reference one above
 *		the query's highest (unused by the query); NULL (no path) when the
 *		time type cannot hash.
 */
static SortGroupClause *
pane_group_clause(PlannerInfo *root, WindowAggSpec *spec)
{
	SortGroupClause *pane_sgc;
	Index		pane_ref = 0;
	Oid			sortop;
	Oid			eqop;
	bool		hashable;
	ListCell   *lc;

	foreach(lc, root->parse->targetList)
		pane_ref = Max(pane_ref, ((TargetEntry *) lfirst(lc))->ressortgroupref);
	pane_ref++;
	get_sort_group_operators(spec->time_type, true, true, false,
							 &sortop, &eqop, NULL, &hashable);
	if (!hashable)
		return NULL;
	pane_sgc = makeNode(SortGroupClause);
	pane_sgc->tleSortGroupRef = pane_ref;
	pane_sgc->eqop = eqop;
	pane_sgc->sortop = sortop;
	pane_sgc->nulls_first = false;
	pane_sgc->hashable = true;
	return pane_sgc;
}

/*
 * split_grouping
 *		Decides where each GROUP BY item of the grouping target is computed:
 *		a window column by WindowExpand, from each window's start/end (into
 *		pp->expand_target); a key of the windowed relation per pane already
 *		(into all three targets and pp->pane_group).  Appends the ungrouped
 *		expressions to *non_group.  False (no path) when an item cannot be
 *		split so, or none is a window column.
 */
static bool
split_grouping(PlannerInfo *root, WindowAggSpec *spec, bool not_null,
			   PanePlan *pp, List **non_group)
{
	PathTarget *grouping_target = pp->grouping_target;
	bool		grouped_by_window = false;
	ListCell   *lc;

	foreach(lc, grouping_target->exprs)
	{
		Expr	   *expr = (Expr *) lfirst(lc);
		SortGroupClause *sgc = wj_group_clause(root, grouping_target,
											   foreach_current_index(lc));
		Index		sgref;
		Relids		varnos;

		if (sgc == NULL)
		{
			*non_group = lappend(*non_group, expr);
			continue;
		}
		if (!sgc->hashable || contain_volatile_functions((Node *) expr))
			return false;
		sgref = sgc->tleSortGroupRef;

		varnos = pull_varnos(root, (Node *) expr);
		if (bms_is_member(spec->fn_relid, varnos))
		{
			/* a window column: computed from each window's start/end */
			if (bms_num_members(varnos) != 1)
				return false;
			add_column_to_pathtarget(pp->expand_target, expr, sgref);
			grouped_by_window = true;
			if (identifies_window(spec, expr))
				pp->window_identified = true;
		}
		else
		{
			/* a key of the windowed relation: grouped per pane already */
			if (!not_null && !harmless_expr((Node *) expr) &&
				!constant_per_pane(spec, expr))
				return false;
			add_column_to_pathtarget(pp->pane_input, expr, sgref);
			add_column_to_pathtarget(pp->pane_target, expr, sgref);
			add_column_to_pathtarget(pp->expand_target, expr, sgref);
			pp->pane_group = lappend(pp->pane_group, sgc);
			if (!constant_per_pane(spec, expr))
				pp->key_exprs = lappend(pp->key_exprs, expr);
		}
	}
	return grouped_by_window;
}

/*
 * add_partial_aggregates
 *		Decides whether the aggregates, and whatever else the output and
 *		HAVING need of non_group, can be computed from pane states: each
 *		aggregate's partial state joins pp->pane_target and
 *		pp->expand_target, its arguments pp->pane_input; a window column
 *		used above a grouped one joins pp->expand_target.  False (no path)
 *		for an aggregate that cannot be combined exactly or could raise an
 *		error PostgreSQL's plan would not, or an ungrouped column.
 */
static bool
add_partial_aggregates(PlannerInfo *root, WindowAggSpec *spec, bool not_null,
					   PanePlan *pp, List *non_group, Node *having)
{
	List	   *pulled;
	ListCell   *lc;

	if (having)
		non_group = lappend(non_group, having);
	pulled = pull_var_clause((Node *) non_group,
							 PVC_INCLUDE_AGGREGATES |
							 PVC_RECURSE_WINDOWFUNCS |
							 PVC_INCLUDE_PLACEHOLDERS);
	foreach(lc, pulled)
	{
		Node	   *node = (Node *) lfirst(lc);

		if (IsA(node, Aggref))
		{
			Aggref	   *aggref = (Aggref *) node;
			Aggref	   *partial;

			if (aggref->agglevelsup != 0 ||
				bms_is_member(spec->fn_relid, pull_varnos(root, node)) ||
				!wj_agg_combines_exactly(aggref->aggfnoid))
				return false;
			if (!not_null)
			{
				ListCell   *arg;

				if (aggref->aggfilter != NULL)
					return false;
				foreach(arg, aggref->args)
				{
					if (!harmless_expr((Node *) ((TargetEntry *) lfirst(arg))->expr))
						return false;
				}
			}

			partial = makeNode(Aggref);
			memcpy(partial, aggref, sizeof(Aggref));
			mark_partial_aggref(partial, AGGSPLIT_INITIAL_SERIAL);
			add_new_column_to_pathtarget(pp->pane_target, (Expr *) partial);
			add_new_column_to_pathtarget(pp->expand_target, (Expr *) partial);
			add_new_columns_to_pathtarget(pp->pane_input,
										  pull_var_clause(node,
														  PVC_RECURSE_AGGREGATES |
														  PVC_RECURSE_WINDOWFUNCS |
														  PVC_RECURSE_PLACEHOLDERS));
		}
		else if (IsA(node, Var) && ((Var *) node)->varno == spec->fn_relid &&
				 ((Var *) node)->varlevelsup == 0)
		{
			/* used above a grouped window column: WindowExpand provides it */
			add_new_column_to_pathtarget(pp->expand_target, (Expr *) node);
		}
		else
			return false;		/* an ungrouped column of the relation, or a
								 * PHV */
	}
	return true;
}

/*
 * add_exchange_path
 *		The parallel path that does everything in the participants, over
 *		pane_path (the pane aggregation of a participant's share of the
 *		rows): a parallel-aware WindowExpand exchanges the pane states
 *		through shared files so that each participant expands the panes of
 *		its window partitions, from every participant, and finalizes those
 *		windows; the Gather collects finished groups.  Only when each group
 *		is one window (pp->window_identified) and the node is parallel
 *		safe.
 */
static void
add_exchange_path(PlannerInfo *root, RelOptInfo *output_rel,
				  WindowAggSpec *spec, PanePlan *pp,
				  GroupPathExtraData *extra, Path *pane_path)
{
	double		divisor = wj_parallel_divisor(pane_path);
	double		groups;
	double		exchanged = pane_path->rows;
	double		gathered;
	CustomPath *cpath;
	Path	   *path;

	cpath = make_expand_path(root, output_rel, spec, pane_path,
							 pp->expand_target);
	if (!cpath->path.parallel_safe)
		return;
	cpath->path.parallel_aware = true;
	cpath->path.total_cost += wj_exchange_cost(exchanged,
											   pp->pane_target->width);
	groups = clamp_row_est(final_groups(spec, cpath->path.rows *
										divisor) / divisor);
	path = (Path *) create_agg_path(root, output_rel, &cpath->path,
									pp->grouping_target, AGG_HASHED,
									AGGSPLIT_FINAL_DESERIAL,
									root->parse->groupClause,
									(List *) extra->havingQual,
									&pp->final_costs, groups);
	gathered = clamp_row_est(groups * divisor);
	path = (Path *) create_gather_path(root, output_rel, path,
									   pp->grouping_target, NULL,
									   &gathered);
	add_path(output_rel, path);
}

/*
 * add_parallel_paths
 *		Decides whether the pane aggregation runs in parallel, and adds
 *		those paths: each participant aggregates the panes of its share of
 *		the rows (the relation's cheapest partial path).  Either it also
 *		expands them and the Gather brings the (pane, window) partial
 *		states together, or the Gather brings the pane states together and
 *		one WindowExpand above it expands them (size/slide times fewer rows
 *		through the Gather), or the participants exchange the pane states
 *		(add_exchange_path); either way the final aggregation combines the
 *		states of a window coming from every participant, as it combines
 *		those of the window's panes.  They compete on cost.
 */
static void
add_parallel_paths(PlannerInfo *root, RelOptInfo *output_rel,
				   WindowAggSpec *spec, PanePlan *pp,
				   GroupPathExtraData *extra)
{
	Path	   *partial_data;
	Path	   *pane_path;
	Path	   *path;
	CustomPath *cpath;
	double		gathered;

	if (!output_rel->consider_parallel || !spec->data_rel->consider_parallel ||
		spec->data_rel->partial_pathlist == NIL)
		return;
	partial_data = linitial(spec->data_rel->partial_pathlist);
	pane_path = make_pane_path(root, spec, partial_data, pp->pane_input,
							   pp->pane_target, pp->pane_group, pp->key_exprs,
							   &pp->partial_costs);
	if (!pane_path->parallel_safe)
		return;

	/* expanded in each participant, below the Gather */
	cpath = make_expand_path(root, output_rel, spec, pane_path,
							 pp->expand_target);
	if (cpath->path.parallel_safe)
	{
		gathered = clamp_row_est(cpath->path.rows *
								 wj_parallel_divisor(&cpath->path));
		path = (Path *) create_gather_path(root, output_rel, &cpath->path,
										   pp->expand_target, NULL, &gathered);
		add_path(output_rel,
				 make_final_path(root, output_rel, spec, path,
								 pp->grouping_target, extra,
								 &pp->final_costs));
	}

	/* the pane states gathered, expanded above the Gather */
	gathered = clamp_row_est(pane_path->rows *
							 wj_parallel_divisor(pane_path));
	path = (Path *) create_gather_path(root, spec->data_rel, pane_path,
									   pp->pane_target, NULL, &gathered);
	cpath = make_expand_path(root, output_rel, spec, path, pp->expand_target);
	add_path(output_rel,
			 make_final_path(root, output_rel, spec, &cpath->path,
							 pp->grouping_target, extra, &pp->final_costs));

	/* everything in the participants */
	if (pp->window_identified)
		add_exchange_path(root, output_rel, spec, pp, extra, pane_path);
}

/*
 * wj_window_expand_add_paths
 *		create_upper_paths_hook body for UPPERREL_GROUP_AGG: add the
 *		pane-based aggregation path when the query qualifies.
 */
void
wj_window_expand_add_paths(PlannerInfo *root, RelOptInfo *input_rel,
						   RelOptInfo *output_rel, void *extra_arg)
{
	GroupPathExtraData *extra = (GroupPathExtraData *) extra_arg;
	Query	   *parse = root->parse;
	WindowAggSpec spec = {0};
	PanePlan	pp;
	List	   *non_group = NIL;
	Expr	   *pane_expr;
	Var		   *fn_var;
	bool		not_null;
	SortGroupClause *pane_sgc;
	Index		pane_ref;
	Path	   *data_path;
	Path	   *path;
	CustomPath *cpath;

	if (!wj_enable_window_aggregate || extra == NULL ||
		parse->groupingSets != NIL || parse->groupClause == NIL ||
		!(extra->flags & GROUPING_CAN_PARTIAL_AGG) ||
		!(extra->flags & GROUPING_CAN_USE_HASH) ||
		extra->patype != PARTITIONWISE_AGGREGATE_NONE)
		return;

	memset(&spec, 0, sizeof(spec));
	if (!match_window_function(root, input_rel, &spec))
		return;
	pane_expr = make_pane_expr(&spec);
	if (pane_expr == NULL)
		return;
	not_null = time_not_null(root, &spec);
	pane_sgc = pane_group_clause(root, &spec);
	if (pane_sgc == NULL)
		return;

	/*
	 * Three targets: the rows fed to the partial aggregation (pane, keys,
	 * aggregate inputs), its output (pane, keys, partial states), and
	 * WindowExpand's output (window columns, keys, partial states).
	 */
	memset(&pp, 0, sizeof(pp));
	pp.grouping_target = output_rel->reltarget;
	pp.pane_group = list_make1(pane_sgc);
	pp.pane_input = create_empty_pathtarget();
	pp.pane_target = create_empty_pathtarget();
	pp.expand_target = create_empty_pathtarget();
	pane_ref = pane_sgc->tleSortGroupRef;
	add_column_to_pathtarget(pp.pane_input, pane_expr, pane_ref);
	add_column_to_pathtarget(pp.pane_target, pane_expr, pane_ref);
	if (!split_grouping(root, &spec, not_null, &pp, &non_group) ||
		!add_partial_aggregates(root, &spec, not_null, &pp, non_group,
								extra->havingQual))
		return;

	/* WindowExpand's scan tuple is (window value, pane_target[2..]) */
	fn_var = makeVar(spec.fn_relid, 1, spec.time_type, -1, InvalidOid, 0);
	if (!list_member(pp.expand_target->exprs, fn_var))
		add_new_column_to_pathtarget(pp.expand_target, (Expr *) fn_var);

	set_pathtarget_cost_width(root, pp.pane_input);
	set_pathtarget_cost_width(root, pp.pane_target);
	set_pathtarget_cost_width(root, pp.expand_target);

	MemSet(&pp.partial_costs, 0, sizeof(AggClauseCosts));
	MemSet(&pp.final_costs, 0, sizeof(AggClauseCosts));
	get_agg_clause_costs(root, AGGSPLIT_INITIAL_SERIAL, &pp.partial_costs);
	get_agg_clause_costs(root, AGGSPLIT_FINAL_DESERIAL, &pp.final_costs);

	/* PostgreSQL's estimate of the groups: the rows of its own paths */
	if (output_rel->rows > 0)
		spec.groups = output_rel->rows;
	else if (output_rel->pathlist != NIL)
		spec.groups = ((Path *) linitial(output_rel->pathlist))->rows;

	/* Partial aggregation per pane over the relation's cheapest path */
	data_path = spec.data_rel->cheapest_total_path;
	path = make_pane_path(root, &spec, data_path, pp.pane_input,
						  pp.pane_target, pp.pane_group, pp.key_exprs,
						  &pp.partial_costs);
	spec.pane_groups = path->rows;
	cpath = make_expand_path(root, output_rel, &spec, path, pp.expand_target);

	/* Final aggregation per window */
	add_path(output_rel,
			 make_final_path(root, output_rel, &spec, &cpath->path,
							 pp.grouping_target, extra, &pp.final_costs));

	add_parallel_paths(root, output_rel, &spec, &pp, extra);
}

/*
 * make_final_path
 *		The final aggregation per window over the expanded pane states,
 *		yielding final_groups() groups.
 */
static Path *
make_final_path(PlannerInfo *root, RelOptInfo *output_rel,
				WindowAggSpec *spec, Path *path,
				PathTarget *grouping_target, GroupPathExtraData *extra,
				AggClauseCosts *final_costs)
{
	return (Path *) create_agg_path(root, output_rel, path, grouping_target,
									AGG_HASHED, AGGSPLIT_FINAL_DESERIAL,
									root->parse->groupClause,
									(List *) extra->havingQual,
									final_costs,
									clamp_row_est(final_groups(spec, path->rows)));
}

/*
 * final_groups
 *		The groups of the final aggregation over rows expanded pane states:
 *		a window starts at every pane, so there are about as many (window,
 *		keys) groups as (pane, keys) groups (our estimate, from the time
 *		column's statistics or PostgreSQL's default guesses), or as many as
 *		PostgreSQL's own estimate when it says more (its estimate of a
 *		grouping over hop() columns is a default guess, often a handful);
 *		at most one per expanded row.
 */
static double
final_groups(WindowAggSpec *spec, double rows)
{
	double		groups = Max(spec->groups, spec->pane_groups);

	if (groups <= 0)
		groups = rows;
	return Min(groups, rows);
}

/*
 * make_pane_path
 *		Partial aggregation per pane (and keys) over data_path, a complete
 *		or a partial path of the windowed relation.
 */
static Path *
make_pane_path(PlannerInfo *root, WindowAggSpec *spec, Path *data_path,
			   PathTarget *pane_input, PathTarget *pane_target,
			   List *pane_group, List *key_exprs, AggClauseCosts *partial_costs)
{
	Path	   *path;
	double		pane_groups;

	path = (Path *) create_projection_path(root, spec->data_rel, data_path,
										   pane_input);
	pane_groups = estimate_panes(root, spec,
								 (Expr *) linitial(pane_input->exprs),
								 key_exprs, data_path->rows);
	return (Path *) create_agg_path(root, spec->data_rel, path, pane_target,
									AGG_HASHED, AGGSPLIT_INITIAL_SERIAL,
									pane_group, NIL, partial_costs,
									pane_groups);
}

/*
 * make_expand_path
 *		WindowExpand over the pane aggregation: each pane row once per
 *		window containing the pane.  Partial when its input is (it then
 *		expands each participant's pane states).
 */
static CustomPath *
make_expand_path(PlannerInfo *root, RelOptInfo *output_rel,
				 WindowAggSpec *spec, Path *path, PathTarget *expand_target)
{
	CustomPath *cpath;
	WindowExpandPlanInfo *info;
	double		windows_per_pane;

	if (spec->kind == WJ_EXPAND_HOP)
		windows_per_pane = (double) spec->size / (double) spec->every;
	else
		windows_per_pane = ((double) (spec->size / spec->every) + 1.0) / 2.0;

	cpath = wj_custom_path(root, output_rel, expand_target, list_make1(path),
						   expand_target->exprs, false,
						   &window_expand_path_methods);
	cpath->path.rows = clamp_row_est(path->rows * windows_per_pane);
	cpath->path.startup_cost = path->total_cost;
	cpath->path.total_cost = path->total_cost +
		cpath->path.rows * (cpu_tuple_cost + expand_target->cost.per_tuple);
	cpath->path.pathkeys = NIL;
	cpath->flags = 0;
	info = palloc(sizeof(WindowExpandPlanInfo));
	info->kind = spec->kind;
	info->every = spec->every;
	info->size = spec->size;
	info->offset = spec->offset;
	info->pane = spec->pane;
	cpath->custom_private = list_make1(info);
	return cpath;
}

/*
 * plan_window_expand
 *		PlanCustomPath: a CustomScan over the partial aggregation whose scan
 *		tuple is the child's row with column 1 replaced by the window value.
 */
static Plan *
plan_window_expand(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
				   List *tlist, List *clauses, List *custom_plans)
{
	CustomScan *cscan;
	Plan	   *child = (Plan *) linitial(custom_plans);
	List	   *scan_tlist = NIL;
	ListCell   *lc;
	Var		   *fn_var = NULL;
	AttrNumber	resno = 1;

	/* the window column's Var is the first column of the expand target */
	foreach(lc, best_path->path.pathtarget->exprs)
	{
		Node	   *expr = (Node *) lfirst(lc);

		if (IsA(expr, Var))
		{
			Var		   *var = (Var *) expr;

			if (root->simple_rte_array[var->varno]->rtekind == RTE_FUNCTION)
			{
				fn_var = var;
				break;
			}
		}
	}
	if (fn_var == NULL)
		elog(ERROR, "WindowExpand path without a window column");

	foreach(lc, child->targetlist)
	{
		TargetEntry *tle = (TargetEntry *) lfirst(lc);
		Expr	   *expr = (resno == 1) ? (Expr *) copyObject(fn_var) : tle->expr;

		scan_tlist = lappend(scan_tlist,
							 makeTargetEntry(expr, resno, NULL, false));
		resno++;
	}

	cscan = wj_custom_scan(best_path->flags, tlist, NIL, custom_plans, scan_tlist,
						   &wj_window_expand_scan_methods);
	cscan->custom_private =
		window_expand_info_to_private(linitial(best_path->custom_private));
	return &cscan->scan.plan;
}

static CustomPathMethods window_expand_path_methods = {
	.CustomName = "WindowExpand",
	.PlanCustomPath = plan_window_expand,
};

