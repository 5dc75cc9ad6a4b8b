/*-------------------------------------------------------------------------
 *
 * tumble_agg_planner.c
 *	  Tumbling-window aggregation without hashing timestamps: the TumbleAgg
 *	  path for GROUP BY over tumble(), date_bin() and date_trunc().
 *
 * "SELECT window_start, window_end, sum(price) FROM bid, tumble(bidtime,
 * '1 minute') GROUP BY window_start, window_end" reaches the planner, after
 * tumble() is inlined, as a scan of bid grouped by two function calls on
 * bidtime; PostgreSQL evaluates both for every row and hashes the two
 * timestamps with the keys.  The same holds for the queries users already
 * have: GROUP BY date_bin('1 minute', ts, origin), date_trunc('hour', ts).
 * All of them group by a function of one window: the start of the
 * fixed-length bin holding the time, plus a constant.  The TumbleAgg node
 * computes the bin as integer arithmetic and aggregates straight into
 * per-window states:
 *
 *	 Custom Scan (TumbleAgg)		 window columns, keys, aggregates
 *	   -> scan of bid				 (time, keys, aggregate arguments)
 *
 * The path is offered (create_upper_paths_hook, GROUP_AGG stage) when:
 *	- the grouped relation is one base relation, without grouping sets,
 *	  set-returning functions in the target or outer references;
 *	- at least one GROUP BY item is a window column, and all of them bin
 *	  the same time expression with the same length and origin:
 *	  wj_tumble_start / _end / _time (tumble()'s columns), date_bin(stride,
 *	  ts, origin) on timestamp or timestamptz (plain microsecond arithmetic,
 *	  no time zone), date_trunc(unit, ts) on timestamp for units from
 *	  microseconds to week, each optionally plus or minus a constant
 *	  interval (no months; no days on timestamptz, which would depend on
 *	  the time zone); date_trunc on timestamptz is left to PostgreSQL;
 *	- every other GROUP BY item is an expression of the relation that can
 *	  be hashed and sorted (the node spills sorted groups);
 *	- every aggregate is count, or sum, avg, min or max of integers, floats
 *	  or numeric (min and max also of date and timestamps), without
 *	  DISTINCT, ORDER BY or FILTER: those the node computes exactly
 *	  (tumble_agg_state.c).  Any other aggregate leaves the query to
 *	  PostgreSQL's plan.
 * It then competes on cost with PostgreSQL's aggregation.  In parallel,
 * the node runs under a Gather over the relation's partial path and
 * exchanges its groups between the participants (tumble_agg_exec.c).
 *
 * src/nodes/tumble_agg/tumble_agg_planner.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/namespace.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_class.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "common/int.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "miscadmin.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/plancat.h"
#include "optimizer/tlist.h"
#include "parser/parse_oper.h"
#include "parser/scansup.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"
#include "utils/syscache.h"

#include "src/common/catalog_cache.h"
#include "src/common/grouping.h"
#include "src/common/gucs.h"
#include "src/common/input_paths.h"
#include "src/common/pg_compat.h"
#include "src/common/stats_common.h"
#include "src/common/window_arith.h"
#include "src/nodes/tumble_agg/tumble_agg.h"
#include "src/nodes/tumble_agg/tumble_agg_keys.h"
#include "src/nodes/tumble_agg/tumble_agg_state.h"
#include "src/parallel/row_exchange.h"

/* What the planner found; the path carries it to PlanCustomPath */
typedef struct TaPathInfo
{
	TumbleAggPlanInfo info;
	Expr	   *time_expr;
	List	   *window_exprs;	/* the grouped window columns, as written */
	List	   *key_exprs;
	List	   *aggrefs;
	List	   *having;			/* implicitly ANDed */
} TaPathInfo;

/* a bin of the time expression */
typedef struct TaBin
{
	TaBucketKind kind;
	Expr	   *time_expr;
	int64		unit;
	int64		offset;
	int64		origin;			/* date_bin's */
	int64		delta;
} TaBin;

static CustomPathMethods tumble_agg_path_methods;

/*
 * const_interval_usecs
 *		A constant interval without months in microseconds (days as 24
 *		hours, or none if no_days); false otherwise.
 */
static bool
const_interval_usecs(Node *node, bool no_days, int64 *usecs)
{
	Interval   *span;

	if (!IsA(node, Const) || ((Const *) node)->constisnull ||
		((Const *) node)->consttype != INTERVALOID)
		return false;
	span = DatumGetIntervalP(((Const *) node)->constvalue);
	if (span->month != 0 || (no_days && span->day != 0))
		return false;
	return wj_interval_usecs(span, usecs);
}

/*
 * date_trunc_bin
 *		date_trunc(unit, ts) on timestamp: a bin for the units of fixed
 *		length, aligned to the PostgreSQL epoch (midnight), weeks to a
 *		Monday.
 */
static bool
date_trunc_bin(FuncExpr *fexpr, TaBin *bin)
{
	Const	   *c = (Const *) linitial(fexpr->args);
	char	   *lowunits;
	int			val;

	if (!IsA(c, Const) || c->constisnull)
		return false;
	lowunits = downcase_truncate_identifier(TextDatumGetCString(c->constvalue),
											strlen(TextDatumGetCString(c->constvalue)),
											false);
	if (DecodeUnits(0, lowunits, &val) != UNITS)
		return false;
	bin->offset = 0;
	switch (val)
	{
		case DTK_MICROSEC:
			bin->unit = 1;
			break;
		case DTK_MILLISEC:
			bin->unit = 1000;
			break;
		case DTK_SECOND:
			bin->unit = USECS_PER_SEC;
			break;
		case DTK_MINUTE:
			bin->unit = USECS_PER_MINUTE;
			break;
		case DTK_HOUR:
			bin->unit = USECS_PER_HOUR;
			break;
		case DTK_DAY:
			bin->unit = USECS_PER_DAY;
			break;
		case DTK_WEEK:
			/* ISO weeks start on Monday; 1970-01-05 was one */
			bin->unit = 7 * USECS_PER_DAY;
			bin->offset = 4 * USECS_PER_DAY;
			break;
		default:
			return false;
	}
	bin->kind = TA_BUCKET_DATE_TRUNC;
	bin->time_expr = (Expr *) lsecond(fexpr->args);
	bin->delta = 0;
	return true;
}

/*
 * match_bin
 *		Is expr a window column: a bin of a time expression, plus a
 *		constant?  Fills *bin if so.
 */
static bool
match_bin(Expr *expr, TaBin *bin)
{
	if (IsA(expr, OpExpr) && list_length(((OpExpr *) expr)->args) == 2)
	{
		OpExpr	   *op = (OpExpr *) expr;
		int64		usecs;
		bool		tz = op->opfuncid == F_TIMESTAMPTZ_PL_INTERVAL ||
			op->opfuncid == F_TIMESTAMPTZ_MI_INTERVAL;

		if (op->opfuncid != F_TIMESTAMP_PL_INTERVAL &&
			op->opfuncid != F_TIMESTAMP_MI_INTERVAL && !tz)
			return false;
		if (!const_interval_usecs(lsecond(op->args), tz, &usecs) ||
			!match_bin((Expr *) linitial(op->args), bin))
			return false;
		if (op->opfuncid == F_TIMESTAMP_MI_INTERVAL ||
			op->opfuncid == F_TIMESTAMPTZ_MI_INTERVAL)
			usecs = -usecs;
		return !pg_add_s64_overflow(bin->delta, usecs, &bin->delta);
	}
	if (IsA(expr, FuncExpr))
	{
		FuncExpr   *fexpr = (FuncExpr *) expr;
		WjFunc		f;

		if (list_length(fexpr->args) == 2 &&
			fexpr->funcid == F_DATE_TRUNC_TEXT_TIMESTAMP)
			return date_trunc_bin(fexpr, bin);
		if (list_length(fexpr->args) != 3)
			return false;
		if (fexpr->funcid == F_DATE_BIN_INTERVAL_TIMESTAMP_TIMESTAMP ||
			fexpr->funcid == F_DATE_BIN_INTERVAL_TIMESTAMPTZ_TIMESTAMPTZ)
		{
			Const	   *origin = (Const *) lthird(fexpr->args);
			Interval   *stride;

			if (!IsA(linitial(fexpr->args), Const) ||
				((Const *) linitial(fexpr->args))->constisnull ||
				!IsA(origin, Const) || origin->constisnull)
				return false;
			stride = DatumGetIntervalP(((Const *) linitial(fexpr->args))->constvalue);
			if (stride->month != 0 ||
				!wj_interval_usecs(stride, &bin->unit) || bin->unit <= 0 ||
				TIMESTAMP_NOT_FINITE(DatumGetInt64(origin->constvalue)))
				return false;
			bin->kind = TA_BUCKET_DATE_BIN;
			bin->origin = DatumGetInt64(origin->constvalue);
			bin->time_expr = (Expr *) lsecond(fexpr->args);
			/* relative to the Unix epoch, as wj_window_floor aligns */
			bin->offset = wj_floormod(DatumGetInt64(origin->constvalue) -
									  wj_floormod(WJ_UNIX_EPOCH_USECS, bin->unit),
									  bin->unit);
			bin->delta = 0;
			return true;
		}
		f = wj_func_of(fexpr->funcid);
		if (f != WJF_TUMBLE_START && f != WJF_TUMBLE_END && f != WJF_TUMBLE_TIME)
			return false;
		if (!wj_const_duration_usecs(lsecond(fexpr->args), &bin->unit) ||
			!wj_const_usecs(lthird(fexpr->args), &bin->offset))
			return false;
		bin->kind = TA_BUCKET_TUMBLE;
		bin->time_expr = (Expr *) linitial(fexpr->args);
		bin->delta = f == WJF_TUMBLE_START ? 0 :
			f == WJF_TUMBLE_END ? bin->unit : bin->unit - WJ_WINDOW_TIME_USECS;
		return true;
	}
	return false;
}

/*
 * match_aggref
 *		Is aggref one the node computes?  Fills *agg if so.
 */
static bool
match_aggref(Aggref *aggref, TaAgg *agg)
{
	if (aggref->agglevelsup != 0 || aggref->aggdistinct != NIL ||
		aggref->aggorder != NIL || aggref->aggfilter != NULL ||
		aggref->aggkind != AGGKIND_NORMAL || aggref->aggvariadic ||
		list_length(aggref->args) > 1 ||
		(aggref->aggstar && aggref->args != NIL) ||
		(!aggref->aggstar && aggref->args == NIL))
		return false;
	return ta_agg_supported(aggref->aggfnoid, aggref->aggstar, agg);
}

/*
 * only_rel
 *		Does expr use only the grouped relation, no volatile function and
 *		nothing that must be evaluated above the scan?
 */
static bool
only_rel(PlannerInfo *root, RelOptInfo *rel, Node *expr)
{
	return bms_is_subset(pull_varnos(root, expr), rel->relids) &&
		!contain_volatile_functions(expr) &&
		!contain_agg_clause(expr) && !contain_window_function(expr) &&
		!expression_returns_set(expr);
}

/*
 * one_relation
 *		The one relation rel reads: rel itself if it is a base relation, or
 *		the base relation it joins only to the empty RESULT relations that
 *		inlining tumble() can leave beside it (which hold no column and no
 *		condition); NULL otherwise.
 */
static RelOptInfo *
one_relation(PlannerInfo *root, RelOptInfo *rel)
{
	Relids		members;
	int			relid = -1;
	RelOptInfo *data = NULL;

	if (rel->reloptkind == RELOPT_BASEREL)
		return rel;
	if (rel->reloptkind != RELOPT_JOINREL || root->join_info_list != NIL ||
		root->placeholder_list != NIL)
		return NULL;
	members = wj_base_relids(root, rel->relids);
	while ((relid = bms_next_member(members, relid)) >= 0)
	{
		RelOptInfo *member = find_base_rel(root, relid);

		if (root->simple_rte_array[relid]->rtekind != RTE_RESULT)
		{
			if (data != NULL)
				return NULL;
			data = member;
		}
		else if (member->baserestrictinfo != NIL || member->joininfo != NIL)
			return NULL;
	}
	if (data == NULL || data->joininfo != NIL || data->reloptkind != RELOPT_BASEREL)
		return NULL;
	return data;
}

/*
 * child_columns
 *		The child's target and where each input is in its rows (the
 *		TumbleAggPlanInfo's input_cols).  When every input is a column of a
 *		plain table, the child returns the table's rows as they are stored
 *		(its physical target list): the scan then projects nothing and the
 *		node reads the columns it needs from the stored row.  Otherwise the
 *		child computes the inputs, in order.
 */
static PathTarget *
child_columns(PlannerInfo *root, RelOptInfo *rel, PathTarget *inputs, List **cols)
{
	RangeTblEntry *rte = root->simple_rte_array[rel->relid];
	List	   *physical = NIL;
	ListCell   *lc;

	*cols = NIL;
	if (rte->rtekind == RTE_RELATION && !rte->inh &&
		(rte->relkind == RELKIND_RELATION || rte->relkind == RELKIND_MATVIEW))
		physical = build_physical_tlist(root, rel);
	foreach(lc, physical)
	{
		if (!IsA(((TargetEntry *) lfirst(lc))->expr, Var))
		{
			physical = NIL;
			break;
		}
	}
	foreach(lc, inputs->exprs)
	{
		Var		   *var = (Var *) lfirst(lc);

		if (physical == NIL || !IsA(var, Var) || var->varno != rel->relid ||
			var->varattno <= 0 || var->varlevelsup != 0)
		{
			physical = NIL;
			break;
		}
		*cols = lappend_int(*cols, var->varattno);
	}
	if (physical != NIL)
	{
		PathTarget *target = create_empty_pathtarget();

		foreach(lc, physical)
			add_column_to_pathtarget(target, ((TargetEntry *) lfirst(lc))->expr, 0);
		return target;
	}
	*cols = NIL;
	for (int i = 1; i <= list_length(inputs->exprs); i++)
		*cols = lappend_int(*cols, i);
	return inputs;
}

/*
 * serial_input
 *		The relation's cheapest unparameterized path that is not a Gather:
 *		the serial node reads the relation itself (its parallel variant is
 *		the other path), and a projection cannot be put on a Gather.
 */
static Path *
serial_input(RelOptInfo *rel)
{
	Path	   *best = NULL;
	ListCell   *lc;

	foreach(lc, rel->pathlist)
	{
		Path	   *path = (Path *) lfirst(lc);

		if (path->param_info != NULL || path->pathtype == T_Gather ||
			path->pathtype == T_GatherMerge)
			continue;
		if (best == NULL || path->total_cost < best->total_cost)
			best = path;
	}
	return best;
}

/* a table of groups larger than this misses the cache on every probe */
#define TA_CACHE_BYTES			(2.0 * 1024 * 1024)
/* ... each cache line it misses worth this many operators */
#define TA_MISS_OPERATORS		3.0

/*
 * ta_aggregate_cost
 *		The cost of aggregating rows into a table of groups (each width
 *		bytes), per_row each.
 *
 * With miss_lines, a table beyond the cache costs a row that many cache
 * misses (two for a hash table: its bucket and its cells; one for a dense
 * array's slot), each worth some twenty operators, as often as its probe
 * falls outside the part of the table the cache holds: TA_MISS_OPERATORS
 * per line times the fraction of the table beyond TA_CACHE_BYTES are
 * charged.  (All of them at once from 2 MB on made a participant
 * exchange its rows, a million through temporary files, for 29,000
 * groups of 4 MB, twice as slow as the serial node.)  That charge only
 * chooses between the node's own ways of running in parallel (one table
 * of every group against small tables of a partition each:
 * make_tumble_agg_path): the cost the planner compares with PostgreSQL's
 * plans leaves it out, as cost_agg() leaves it out of a HashAggregate's,
 * whose table misses as often (the costing sweep, bench/costing_sweep.sh,
 * found the node 1.2 to 4.2 times faster than the HashAggregate chosen
 * over it for the charge).
 * Groups beyond the memory limit are written out as partial rows
 * and read back sorted.  Each time the table fills it is written out and
 * starts empty, so a row whose group is not in memory when it arrives
 * becomes part of a new partial row: with room for M of G groups met in
 * random order, about rows * (1 - M / G) partial rows, sorted in work_mem
 * (an external sort of several passes, as cost_sort counts them: merges of
 * six runs at a time).  Counting only G partial rows made the node look
 * cheaper than PostgreSQL's spilling HashAggregate where it was twice as
 * slow (720,000 groups at work_mem = 4MB).
 */
static Cost
ta_aggregate_cost(double rows, double groups, double width, Cost per_row,
				  double miss_lines)
{
	Cost		cost;

	if (miss_lines > 0 && groups * width > TA_CACHE_BYTES)
		per_row += miss_lines * TA_MISS_OPERATORS * cpu_operator_cost *
			(1.0 - TA_CACHE_BYTES / (groups * width));
	cost = rows * per_row;
	if (groups * width > (double) get_hash_memory_limit())
	{
		double		in_memory = (double) get_hash_memory_limit() / width;
		double		partial = Max(groups, rows * (1.0 - in_memory / groups));
		double		bytes = partial * (width + MAXALIGN(SizeofMinimalTupleHeader));
		double		runs = Max(bytes / (work_mem * 1024.0), 1.0);
		double		passes = Max(1.0, ceil(log(runs) / log(6.0)));

		cost += 2.0 * seq_page_cost * passes * bytes / BLCKSZ +
			2.0 * cpu_operator_cost * partial * log2(Max(partial, 2.0));
	}
	return cost;
}

/*
 * ta_dense_groups
 *		Whether the groups go into a dense array (tumble_agg_groups.c) that
 *		parallel participants can hand over in shared memory: no key or one
 *		integer-like key, aggregates whose states hold no pointer (not a
 *		numeric min or max), and groups of bytes (spread over an array half
 *		as large again in each dimension) within the memory limit.  At run
 *		time a NULL key, a sparse key or a numeric state beyond 128 bits
 *		still takes the temporary files.
 */
static bool
ta_dense_groups(TaPathInfo *pi, double bytes)
{
	if (pi->info.nkeys > 1 ||
		(pi->info.nkeys == 1 &&
		 !ta_int_key_type(exprType((Node *) linitial(pi->key_exprs)))))
		return false;
	for (int a = 0; a < pi->info.naggs; a++)
		if (pi->info.aggs[a].kind == TA_MIN_NUMERIC ||
			pi->info.aggs[a].kind == TA_MAX_NUMERIC)
			return false;
	return bytes * 2.25 <= (double) get_hash_memory_limit();
}

/*
 * make_tumble_agg_path
 *		The TumbleAgg path over child (the relation's path projected to
 *		time, keys, aggregate arguments): complete, or parallel-aware over
 *		a partial child.  groups is what it holds, out_rows what it returns
 *		(after HAVING).
 */
static CustomPath *
make_tumble_agg_path(PlannerInfo *root, RelOptInfo *output_rel, TaPathInfo *pi,
					 Path *child, double groups, double out_rows, bool parallel)
{
	CustomPath *cpath;
	TaPathInfo *copy = palloc(sizeof(TaPathInfo));
	double		rows = child->rows;
	double		width = 16.0 + 8.0 * pi->info.nkeys + sizeof(TaCell) * pi->info.naggs;
	Cost		per_row;
	Cost		cost;

	*copy = *pi;
	copy->info.parallel = parallel;

	/*
	 * Per input row: the bin (a few integer operations), a probe of the
	 * dense array or of the hash table on (window, keys), and each
	 * aggregate's update; per group: the output row.  PostgreSQL's hash
	 * aggregation pays a function call per window column and hashes every
	 * one of them, then runs each aggregate's transition function.
	 */
	per_row = cpu_operator_cost * (1.0 + (pi->info.nkeys > 0 ? 1.0 + pi->info.nkeys : 0.0) +
								   0.5 * pi->info.naggs);
	cost = ta_aggregate_cost(rows, groups, width, per_row, 0);

	/*
	 * In parallel (rows: a participant's share), the groups are exchanged,
	 * or the rows themselves (their window computed once more) into
	 * TA_ROW_PARTS partitions, whichever costs less counting the cache
	 * misses of a large table: where a participant meets nearly every
	 * group, its table is as large as the whole result and saves little
	 * writing, while a partition's table is small.  Groups in a dense array
	 * (ta_dense_groups) miss one cache line a row, not two, and are handed
	 * over in shared memory (tumble_agg_shared.c): a copy and a merge of
	 * each group's cells, instead of a partial row written to a temporary
	 * file and read back.
	 */
	if (parallel)
	{
		bool		dense = ta_dense_groups(pi, groups * width);
		double		lines = dense ? 1.0 : 2.0;
		Cost		rows_exchange = rows * cpu_operator_cost +
			wj_exchange_cost(rows, child->pathtarget->width);
		Cost		groups_exchange = dense ?
			cpu_operator_cost * groups * (1.0 + pi->info.naggs) :
			wj_exchange_cost(groups, (int) width);

		copy->info.exchange_rows =
			rows_exchange + ta_aggregate_cost(rows, groups / TA_ROW_PARTS, width, per_row, lines) <
			groups_exchange + ta_aggregate_cost(rows, groups, width, per_row, lines);
		copy->info.exchange_shared = dense && !copy->info.exchange_rows;
		if (copy->info.exchange_rows)
			cost = rows_exchange +
				ta_aggregate_cost(rows, groups / TA_ROW_PARTS, width, per_row, 0);
		else
			cost += groups_exchange;
	}

	cpath = wj_custom_path(root, output_rel, output_rel->reltarget,
						   list_make1(child), output_rel->reltarget->exprs,
						   parallel, &tumble_agg_path_methods);
	cpath->path.rows = parallel ?
		clamp_row_est(out_rows / wj_parallel_divisor(child)) : out_rows;
	cpath->path.startup_cost = child->total_cost + cost;
	cpath->path.total_cost = cpath->path.startup_cost +
		cpath->path.rows * (cpu_tuple_cost + output_rel->reltarget->cost.per_tuple);
	cpath->path.pathkeys = NIL;
	cpath->flags = 0;
	cpath->custom_private = list_make1(copy);
	return cpath;
}

/*
 * group_by_bin
 *		Decides whether the GROUP BY items of target are window columns of
 *		one bin (the same time expression, kind, length and origin; into
 *		pi->window_exprs and pi->info's deltas and bin) and keys of the
 *		relation that hash and sort (into pi->key_exprs and pi->info's key
 *		operators).  Appends the ungrouped expressions to *non_group.  False
 *		(no path) for any other item, or when no item is a window column.
 */
static bool
group_by_bin(PlannerInfo *root, RelOptInfo *data_rel, PathTarget *target,
			 TaPathInfo *pi, List **non_group)
{
	TaBin		first = {0};
	bool		have_bin = false;
	ListCell   *lc;

	foreach(lc, target->exprs)
	{
		Expr	   *expr = (Expr *) lfirst(lc);
		SortGroupClause *sgc = wj_group_clause(root, target,
											   foreach_current_index(lc));
		TaBin		bin = {0};

		if (sgc == NULL)
		{
			*non_group = lappend(*non_group, expr);
			continue;
		}
		if (!only_rel(root, data_rel, (Node *) expr))
			return false;
		if (match_bin(expr, &bin))
		{
			Oid			t = exprType((Node *) bin.time_expr);

			if (t != TIMESTAMPOID && t != TIMESTAMPTZOID)
				return false;
			if (!have_bin)
				first = bin;
			else if (bin.kind != first.kind || bin.unit != first.unit ||
					 wj_floormod(bin.offset - first.offset, bin.unit) != 0 ||
					 bin.origin != first.origin ||
					 !equal(bin.time_expr, first.time_expr))
				return false;
			have_bin = true;
			pi->window_exprs = lappend(pi->window_exprs, expr);
			pi->info.deltas[pi->info.nwindowcols++] = bin.delta;
			continue;
		}
		/* a key: hashed, and sorted when spilled */
		if (!sgc->hashable || !OidIsValid(sgc->sortop) || !OidIsValid(sgc->eqop))
			return false;
		pi->key_exprs = lappend(pi->key_exprs, expr);
		pi->info.key_eqops = lappend_oid(pi->info.key_eqops, sgc->eqop);
		pi->info.key_sortops = lappend_oid(pi->info.key_sortops,
										   get_equality_op_for_ordering_op(sgc->sortop, NULL) == sgc->eqop ?
										   sgc->sortop : InvalidOid);
		if (!OidIsValid(llast_oid(pi->info.key_sortops)))
			return false;
		pi->info.key_collations = lappend_oid(pi->info.key_collations,
											  exprCollation((Node *) expr));
		pi->info.nkeys++;
	}
	if (!have_bin)
		return false;
	pi->info.bucket = first.kind;
	pi->info.time_type = exprType((Node *) first.time_expr);
	pi->info.unit = first.unit;
	pi->info.offset = first.offset;
	pi->info.origin = first.origin;
	pi->time_expr = first.time_expr;
	return true;
}

/*
 * collect_aggregates
 *		Decides whether everything of non_group and HAVING above the
 *		grouping is an aggregate the node computes over the relation's
 *		columns (nothing else of the relation), and records them once each
 *		in pi->aggrefs and pi->info.aggs, HAVING in pi->having.  False (no
 *		path) otherwise.
 */
static bool
collect_aggregates(PlannerInfo *root, RelOptInfo *data_rel,
				   GroupPathExtraData *extra, TaPathInfo *pi,
				   List *non_group)
{
	List	   *pulled;
	List	   *aggs = NIL;
	ListCell   *lc;
	int			i;

	if (extra->havingQual != NULL)
	{
		/* already an implicitly ANDed list (preprocess_expression) */
		pi->having = (List *) extra->havingQual;
		non_group = lappend(non_group, extra->havingQual);
	}
	pulled = pull_var_clause((Node *) non_group,
							 PVC_INCLUDE_AGGREGATES | PVC_INCLUDE_WINDOWFUNCS |
							 PVC_INCLUDE_PLACEHOLDERS);
	foreach(lc, pulled)
	{
		Node	   *node = (Node *) lfirst(lc);
		TaAgg		agg;

		if (!IsA(node, Aggref) || !match_aggref((Aggref *) node, &agg))
			return false;
		if (list_member(pi->aggrefs, node))
			continue;
		if (((Aggref *) node)->args != NIL &&
			!only_rel(root, data_rel,
					  (Node *) ((TargetEntry *) linitial(((Aggref *) node)->args))->expr))
			return false;
		pi->aggrefs = lappend(pi->aggrefs, node);
		aggs = lappend(aggs, memcpy(palloc(sizeof(TaAgg)), &agg, sizeof(TaAgg)));
	}
	pi->info.naggs = list_length(aggs);
	pi->info.aggs = palloc0(sizeof(TaAgg) * Max(pi->info.naggs, 1));
	i = 0;
	foreach(lc, aggs)
		pi->info.aggs[i++] = *(TaAgg *) lfirst(lc);
	return true;
}

/*
 * make_child_target
 *		The child's columns: time, keys, aggregate arguments, or the
 *		relation's stored row that holds them (child_columns, which sets
 *		pi->info.input_cols).
 */
static PathTarget *
make_child_target(PlannerInfo *root, RelOptInfo *data_rel, TaPathInfo *pi)
{
	PathTarget *child_target = create_empty_pathtarget();
	ListCell   *lc;

	add_column_to_pathtarget(child_target, pi->time_expr, 0);
	foreach(lc, pi->key_exprs)
		add_column_to_pathtarget(child_target, (Expr *) lfirst(lc), 0);
	foreach(lc, pi->aggrefs)
	{
		Aggref	   *aggref = (Aggref *) lfirst(lc);

		if (aggref->args != NIL)
			add_column_to_pathtarget(child_target,
									 ((TargetEntry *) linitial(aggref->args))->expr, 0);
	}
	child_target = child_columns(root, data_rel, child_target,
								 &pi->info.input_cols);
	set_pathtarget_cost_width(root, child_target);
	return child_target;
}

/*
 * estimate_groups
 *		The groups: the windows the time column's histogram occupies times
 *		the distinct keys (PostgreSQL's estimate of a grouping by function
 *		results is a default guess; a remainder by a constant bounded,
 *		wj_stats_key_groups), at most one per row; without statistics,
 *		PostgreSQL's estimate.
 */
static double
estimate_groups(PlannerInfo *root, RelOptInfo *data_rel,
				RelOptInfo *output_rel, TaPathInfo *pi)
{
	double		groups;

	groups = wj_stats_time_windows(root, (Node *) pi->time_expr,
								   (double) pi->info.unit, data_rel->rows);
	if (groups > 0 && pi->key_exprs != NIL)
		groups *= wj_stats_key_groups(root, pi->key_exprs, data_rel->rows);
	if (groups <= 0)
		groups = output_rel->rows > 0 ? output_rel->rows :
			estimate_num_groups(root, list_concat(list_copy(pi->window_exprs),
												   pi->key_exprs),
								data_rel->rows, NULL, NULL);
	return clamp_row_est(Min(groups, Max(data_rel->rows, 1.0)));
}

/*
 * add_parallel_path
 *		Decides whether the node runs in parallel, and adds that path: each
 *		participant its share of the rows (the relation's cheapest partial
 *		path), groups exchanged by window, under a Gather.
 */
static void
add_parallel_path(PlannerInfo *root, RelOptInfo *output_rel,
				  RelOptInfo *data_rel, TaPathInfo *pi,
				  PathTarget *child_target, double groups, double out_rows)
{
	Path	   *partial;
	Path	   *child;
	CustomPath *cpath;
	double		gathered;

	if (!output_rel->consider_parallel || !data_rel->consider_parallel ||
		data_rel->partial_pathlist == NIL)
		return;
	partial = linitial(data_rel->partial_pathlist);
	child = (Path *) create_projection_path(root, data_rel, partial,
											child_target);
	cpath = make_tumble_agg_path(root, output_rel, pi, child, groups,
								 out_rows, true);
	if (!cpath->path.parallel_safe)
		return;
	gathered = out_rows;
	add_path(output_rel,
			 (Path *) create_gather_path(root, output_rel, &cpath->path,
										 output_rel->reltarget, NULL,
										 &gathered));

	/*
	 * Each participant returns finished groups of its own, so the node is
	 * a partial path of the grouped relation too: a query over this one as
	 * a subquery (an aggregate of the groups, a join) can then work on the
	 * groups below its own Gather, which carries its results instead of
	 * every group.
	 */
	add_partial_path(output_rel, &cpath->path);
}

/*
 * wj_tumble_agg_add_paths
 *		create_upper_paths_hook body for UPPERREL_GROUP_AGG: offer TumbleAgg
 *		when the query qualifies.
 */
void
wj_tumble_agg_add_paths(PlannerInfo *root, RelOptInfo *input_rel,
						RelOptInfo *output_rel, void *extra_arg)
{
	GroupPathExtraData *extra = (GroupPathExtraData *) extra_arg;
	Query	   *parse = root->parse;
	PathTarget *target = output_rel->reltarget;
	PathTarget *child_target;
	TaPathInfo	pi;
	List	   *non_group = NIL;
	RelOptInfo *data_rel;
	double		groups;
	double		out_rows;
	Path	   *child;

	if (!wj_enable_window_aggregate || extra == NULL ||
		parse->groupingSets != NIL || parse->groupClause == NIL ||
		parse->hasTargetSRFs ||
		extra->patype != PARTITIONWISE_AGGREGATE_NONE ||
		(data_rel = one_relation(root, input_rel)) == NULL ||
		input_rel->cheapest_total_path == NULL ||
		input_rel->cheapest_total_path->param_info != NULL ||
		!bms_is_empty(input_rel->lateral_relids))
		return;

	memset(&pi, 0, sizeof(pi));
	pi.info.deltas = palloc0(sizeof(int64) * (list_length(target->exprs) + 1));

	/* GROUP BY: window columns of one bin, and keys of the relation */
	if (!group_by_bin(root, data_rel, target, &pi, &non_group))
		return;

	/* the aggregates; nothing else of the relation above the grouping */
	if (!collect_aggregates(root, data_rel, extra, &pi, non_group))
		return;

	child_target = make_child_target(root, data_rel, &pi);
	groups = estimate_groups(root, data_rel, output_rel, &pi);
	out_rows = output_rel->rows > 0 ? output_rel->rows : groups;

	if (serial_input(data_rel) == NULL)
		return;
	child = (Path *) create_projection_path(root, data_rel, serial_input(data_rel),
											child_target);
	add_path(output_rel, (Path *) make_tumble_agg_path(root, output_rel, &pi, child,
													   groups, out_rows, false));

	/* in parallel: each participant its share, groups exchanged by window */
	add_parallel_path(root, output_rel, data_rel, &pi, child_target,
					  groups, out_rows);
}

/*
 * plan_tumble_agg
 *		PlanCustomPath: the scan tuple is (window columns, keys,
 *		aggregates); the output and HAVING refer to it.
 */
static Plan *
plan_tumble_agg(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
				List *tlist, List *clauses, List *custom_plans)
{
	CustomScan *cscan;
	TaPathInfo *pi = (TaPathInfo *) linitial(best_path->custom_private);
	List	   *scan_tlist = NIL;
	List	   *all;
	ListCell   *lc;
	AttrNumber	resno = 1;

	all = list_concat(list_concat(list_copy(pi->window_exprs), pi->key_exprs),
					  pi->aggrefs);
	foreach(lc, all)
		scan_tlist = lappend(scan_tlist,
							 makeTargetEntry((Expr *) copyObject(lfirst(lc)), resno++,
											 NULL, false));

	cscan = wj_custom_scan(best_path->flags, tlist, (List *) copyObject(pi->having),
						   custom_plans, scan_tlist,
						   &wj_tumble_agg_scan_methods);
	cscan->custom_private = tumble_agg_info_to_private(&pi->info);
	return &cscan->scan.plan;
}

static CustomPathMethods tumble_agg_path_methods = {
	.CustomName = "TumbleAgg",
	.PlanCustomPath = plan_tumble_agg,
};
