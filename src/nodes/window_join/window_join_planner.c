/*-------------------------------------------------------------------------
 *
 * window_join_planner.c
 *	  Planner half of the WindowJoin custom scan: recognise joins of two
 *	  windowed relations on equal windows and offer a CustomPath for them.
 *
 * The window functions are inlinable SQL functions, so by the time the join
 * pathlist hook runs the windows have become expressions:
 *
 *	TUMBLE		FROM t, tumble(t.ts, size, off) is a plain scan of t;
 *				window_start = wj_tumble_start(t.ts, size, off) and
 *				window_end = wj_tumble_end(t.ts, size, off) (wrapped in a
 *				PlaceHolderVar when the input is nullable by an outer join).
 *	HOP			a lateral Function Scan fX of wj_hop_starts(t.ts, slide,
 *				size, off) beside t: window_start = fX.s and window_end =
 *				wj_window_end(fX.s, size).
 *	CUMULATE	a lateral Function Scan fX of wj_cumulate_ends(t.ts, step,
 *				size, off): window_end = fX.e and window_start =
 *				wj_tumble_start(t.ts, size, off).
 *	COLUMNS		a subquery relation (e.g. a window aggregation) whose output
 *				columns are window bounds computed in the subquery.
 *
 * A join qualifies when both sides are windowed the same way (same
 * function and the same constant size/slide/step/offset), the join clauses
 * include an equality of window starts or window ends across the sides
 * that identifies the window (COLUMNS: both; CUMULATE: the ends), and the
 * join type is INNER, LEFT, RIGHT, FULL, SEMI or ANTI.
 *
 * The path's inputs are PostgreSQL's own paths of the underlying relations
 * (so row-level security, privileges and security-barrier views apply as
 * usual), sorted with PostgreSQL's Sort paths unless an input is presorted:
 *
 *	GROUP mode (TUMBLE, COLUMNS): both inputs sorted by the equated window
 *	values, through the merge-join equivalence classes of the window
 *	clauses; the executor joins one group of equal window values at a time.
 *	TIME mode (HOP, CUMULATE): the base relations without their function
 *	scans, sorted by the time column; the executor computes each row's
 *	windows itself, so the input is never multiplied by size/slide.
 *
 * Memory.  The executor keeps the rows of the open window(s) of both sides
 * within work_mem x hash_mem_multiplier at run time and spills a window
 * that does not fit (window_join_exec.c), so the planner's estimate of its
 * state is a cost input, not a gate.  Each side holds at most the rows of
 * one window (GROUP: the current window; TIME: the rows of window E, i.e.
 * of a time span of "size"), estimated as
 *
 *	rows per window = input rows x size / time span of the input
 *					  (all input rows when the span is not longer than size)
 *	bytes = rows per window x (MAXALIGN(input width) + WJ_STATE_ROW_OVERHEAD)
 *
 * with the time span taken from the time column's statistics (the extremes
 * of its histogram bounds and most common values).  When the sum over both
 * sides exceeds get_hash_memory_limit() the path is still offered, but
 * costed as spilling: every row written to a temporary file and read back
 * once per window it belongs to, plus one more write and read for the
 * partitioning into batches.  The estimate is an average (skewed windows
 * can be larger, which the executor handles the same way); a side without
 * statistics, or a windowed subquery (COLUMNS: the window size is
 * unknown), adds nothing to it.
 *
 * Runaway windows.  A HOP or CUMULATE join whose constant slide/step and
 * size give a row more windows than windowjoin.max_windows_per_row gets no
 * path: PostgreSQL's plan then raises that error at the first row it
 * expands, before anything is sorted, where the node would raise it only
 * after its sorted inputs had been read up to that row.
 *
 * The window clauses are implemented by the window grouping; hashable
 * strict equalities between the sides become hash keys inside a window;
 * all other join clauses are evaluated per candidate pair.  Anything we
 * cannot execute exactly (a different spec on each side, parameters, a
 * lateral reference, quals between a relation and its function scan, a
 * window function under an outer join below this one, ...) gets no path.
 *
 * src/nodes/window_join/window_join_planner.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "common/int.h"
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "catalog/pg_statistic.h"

#include "catalog_cache.h"
#include "input_paths.h"
#include "join_nulling.h"
#include "keypart.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/restrictinfo.h"
#include "parser/parsetree.h"
#include "pg_compat.h"
#include "plan_private.h"
#include "stats_common.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
#include "utils/typcache.h"
#include "window_arith.h"
#include "window_join.h"
#include "windowjoin.h"

/* Which bound of the window an expression is */
typedef enum WjBound
{
	WJ_BOUND_START = 1,
	WJ_BOUND_END = 2
} WjBound;

/* One input of the join, as seen by the recogniser */
typedef struct WjSideInfo
{
	RelOptInfo *rel;			/* the join input as the hook gives it */
	RelOptInfo *base;			/* the relation whose rows feed the node */
	Index		fn_relid;		/* TIME mode: the function RTE, else 0 */
	WjWindowKind kind;			/* TIME mode: HOP or CUMULATE */
	Var		   *time_var;		/* TIME mode: time column of base */
	Const	   *c_every;		/* TIME mode: slide or step */
	Const	   *c_size;
	Const	   *c_offset;
	int64		every;			/* microseconds */
	int64		size;
	int64		offset;
	List	   *extras;			/* TIME mode: window columns we supply */
} WjSideInfo;

/* What a window-bound expression turned out to be */
typedef struct WjBoundInfo
{
	WjBound		bound;
	WjWindowKind kind;
	Const	   *c_size;			/* TUMBLE only */
	Const	   *c_offset;
	int64		size;
	int64		offset;			/* TUMBLE: offset mod size */
} WjBoundInfo;

/*
 * What a WindowJoin path hands its PlanCustomPath: the path's
 * custom_private is list_make1() of a pointer to this struct.  It is a
 * planner-only C struct, not a node, like every windowjoin node's path-side
 * data (plan_private.h): paths are never copied or written out.
 */
typedef struct WjPathInfo
{
	JoinType	jointype;
	WjMode		mode;
	WjWindowKind kind;
	List	   *wclauses;		/* RestrictInfos implemented by windows */
	List	   *kclauses;		/* RestrictInfos used as hash keys */
	List	   *kouter_left;	/* per key clause: outer side is the left arg */
	List	   *jclauses;		/* RestrictInfos evaluated per pair */
	List	   *oclauses;		/* pushed-down quals, after the join */
	Var		   *outer_time;		/* TIME: the time columns */
	Var		   *inner_time;
	List	   *outer_extras;	/* TIME: Vars/PlaceHolderVars we supply */
	List	   *inner_extras;
	Const	   *c_every;		/* slide/step (TIME only), else NULL */
	Const	   *c_size;			/* NULL for window columns */
	Const	   *c_offset;
	List	   *gclauses;		/* GROUP: the window clauses to group by */
	List	   *gouter_left;	/* per group clause: outer side is left */
} WjPathInfo;

/*
 * Why a join got no WindowJoin path, at DEBUG2 (SET client_min_messages =
 * debug2 to see it): a plain join of windowed relations that is not
 * accelerated is otherwise hard to explain.
 */
#define WJ_NO_PATH(reason) \
	do { \
		elog(DEBUG2, "windowjoin: no window join path: %s", (reason)); \
		return; \
	} while (0)
#define WJ_REJECT(reason) \
	do { \
		elog(DEBUG2, "windowjoin: no window join path: %s", (reason)); \
		return false; \
	} while (0)

static Path *wj_make_join_path(PlannerInfo *root, RelOptInfo *joinrel,
								JoinType jointype, Path *outer_path,
								Path *inner_path, double wpr,
								WjPathInfo *pinfo, List *node_exprs,
								double state_bytes);
static Plan *window_join_plan_path(PlannerInfo *root, RelOptInfo *rel,
								   CustomPath *best_path, List *tlist,
								   List *clauses, List *custom_plans);
static CustomScan *window_join_make_plan(PlannerInfo *root, RelOptInfo *rel,
										 CustomPath *best_path, List *tlist,
										 List *clauses, List *custom_plans);

static CustomPathMethods wj_window_join_path_methods = {
	.CustomName = WJ_WINDOW_JOIN_NAME,
	.PlanCustomPath = window_join_plan_path,
};

static void wj_add_keypart_path(PlannerInfo *root, RelOptInfo *joinrel,
								JoinType jointype, WjSideInfo *outer,
								WjSideInfo *inner, List *outer_pk,
								List *inner_pk, double wpr,
								WjPathInfo *pinfo, List *node_exprs,
								double state_bytes);
static Plan *window_join_plan_keypart(PlannerInfo *root, RelOptInfo *rel,
									  CustomPath *best_path, List *tlist,
									  List *clauses, List *custom_plans);
static Plan *window_join_plan_exchange(PlannerInfo *root, RelOptInfo *rel,
									   CustomPath *best_path, List *tlist,
									   List *clauses, List *custom_plans);

static CustomPathMethods wj_window_join_keypart_path_methods = {
	.CustomName = WJ_WINDOW_JOIN_NAME,
	.PlanCustomPath = window_join_plan_keypart,
};

static CustomPathMethods wj_window_join_exchange_path_methods = {
	.CustomName = WJ_WINDOW_JOIN_NAME,
	.PlanCustomPath = window_join_plan_exchange,
};

/*
 * is_time_type
 *		The window arithmetic works on timestamp and timestamptz.
 */
static bool
is_time_type(Oid typid)
{
	return typid == TIMESTAMPOID || typid == TIMESTAMPTZOID;
}

/*
 * strip_phv
 *		Look through PlaceHolderVars of this query level.
 */
static Node *
strip_phv(Node *node)
{
	while (node && IsA(node, PlaceHolderVar) &&
		   ((PlaceHolderVar *) node)->phlevelsup == 0)
		node = (Node *) ((PlaceHolderVar *) node)->phexpr;
	return node;
}

/*
 * is_var_of
 *		Is node a plain column (not whole-row) of range table entry relid?
 */
static bool
is_var_of(Node *node, Index relid)
{
	Var		   *var = (Var *) node;

	return node && IsA(node, Var) && var->varno == relid &&
		var->varlevelsup == 0 && var->varattno > 0 &&
		is_time_type(var->vartype);
}

/*
 * member_is_detachable
 *		Can member (a function scan or an empty RTE_RESULT beside base in
 *		side rel) be left out, its contribution supplied by the node?  Only
 *		if nothing is evaluated at it or between it and base: no quals of
 *		its own, no clause joining it to base, and no outer join or
 *		semijoin separating the two.
 */
static bool
member_is_detachable(PlannerInfo *root, RelOptInfo *rel, RelOptInfo *base,
					 RelOptInfo *member)
{
	Relids		others = bms_difference(rel->relids, member->relids);
	ListCell   *lc;

	if (member->baserestrictinfo != NIL)
		WJ_REJECT("the window function scan has quals of its own");
	foreach(lc, member->joininfo)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);

		if (bms_is_subset(rinfo->required_relids, rel->relids))
			WJ_REJECT("a join clause is evaluated at the window function scan");
	}
	if (wj_generate_join_implied_equalities(root, rel->relids, others,
											member) != NIL)
		WJ_REJECT("an implied equality refers to the window function scan");
	foreach(lc, root->join_info_list)
	{
		SpecialJoinInfo *sjinfo = lfirst_node(SpecialJoinInfo, lc);

		if (bms_is_member(member->relid, sjinfo->syn_righthand) !=
			bms_is_member(base->relid, sjinfo->syn_righthand) ||
			bms_is_member(member->relid, sjinfo->syn_lefthand) !=
			bms_is_member(base->relid, sjinfo->syn_lefthand))
			WJ_REJECT("an outer join or semijoin separates the window function scan from its relation");
	}
	return true;
}

/*
 * analyse_side
 *		Work out how rel is windowed.  It must be one base relation (a table
 *		or a subquery, or a partition in a child join), possibly beside empty RTE_RESULTs left over from
 *		inlining tumble(), and at most one lateral wj_hop_starts or
 *		wj_cumulate_ends Function Scan over the relation's time column
 *		(TIME mode; otherwise GROUP mode, the kind being decided by the join
 *		clauses).  Returns false for anything else.
 */
static bool
analyse_side(PlannerInfo *root, RelOptInfo *rel, WjSideInfo *side)
{
	int			relid;
	Relids		members;
	RelOptInfo *fnrel = NULL;
	RelOptInfo *base = NULL;
	List	   *results = NIL;
	RangeTblEntry *rte;
	RangeTblFunction *rtfunc;
	FuncExpr   *fexpr;
	WjFunc		f;
	ListCell   *lc;

	memset(side, 0, sizeof(WjSideInfo));
	side->rel = rel;

	/*
	 * A base relation, or one partition of a partitioned table when the
	 * planner joins partition pairs (enable_partitionwise_join): a child
	 * join's sides are the partitions, its clauses translated to them.
	 */
	if (rel->reloptkind == RELOPT_BASEREL ||
		rel->reloptkind == RELOPT_OTHER_MEMBER_REL)
	{
		if (!bms_is_empty(rel->lateral_relids) || rel->cheapest_total_path == NULL)
			WJ_REJECT("the relation has lateral references or no unparameterized path");
		side->base = rel;
		return true;
	}
	if (rel->reloptkind != RELOPT_JOINREL)
		WJ_REJECT("a side is not one relation with its window function scan");

	/* sort the members out */
	members = wj_base_relids(root, rel->relids);
	relid = -1;
	while ((relid = bms_next_member(members, relid)) >= 0)
	{
		RelOptInfo *member = find_base_rel(root, relid);

		rte = planner_rt_fetch(relid, root);
		if (rte->rtekind == RTE_FUNCTION)
		{
			if (fnrel != NULL)
				WJ_REJECT("a side has more than one function scan");
			fnrel = member;
		}
		else if (rte->rtekind == RTE_RESULT)
			results = lappend(results, member);
		else
		{
			if (base != NULL)
				WJ_REJECT("a side has more than one relation");
			base = member;
		}
	}
	if (base == NULL)
		WJ_REJECT("a side has no relation besides function scans");

	/* the relation must be plain: no lateral references of its own */
	if (!bms_is_empty(base->lateral_relids) || base->cheapest_total_path == NULL)
		WJ_REJECT("the relation has lateral references or no unparameterized path");
	foreach(lc, results)
	{
		if (!member_is_detachable(root, rel, base, (RelOptInfo *) lfirst(lc)))
			WJ_REJECT("a side has an empty result relation that cannot be left out");
	}
	side->base = base;

	if (fnrel != NULL)
	{
		rte = planner_rt_fetch(fnrel->relid, root);
		if (list_length(rte->functions) != 1 || rte->funcordinality)
			WJ_REJECT("the function scan has several functions or WITH ORDINALITY");
		rtfunc = linitial_node(RangeTblFunction, rte->functions);
		if (rtfunc->funccolcount != 1 || !IsA(rtfunc->funcexpr, FuncExpr))
			WJ_REJECT("the function scan is not one call returning one column");
		fexpr = (FuncExpr *) rtfunc->funcexpr;
		if (list_length(fexpr->args) != 4)
			WJ_REJECT("the function scan is not hop() or cumulate() (argument count)");
		f = wj_func_of(fexpr->funcid);
		if (f == WJF_HOP_STARTS)
			side->kind = WJ_KIND_HOP;
		else if (f == WJF_CUMULATE_ENDS)
			side->kind = WJ_KIND_CUMULATE;
		else
			WJ_REJECT("the function scan is not hop() or cumulate()");

		if (!is_var_of(linitial(fexpr->args), base->relid))
			WJ_REJECT("the window's time argument is not a column of the relation");
		side->time_var = (Var *) linitial(fexpr->args);
		if (!wj_const_duration_usecs(lsecond(fexpr->args), &side->every) ||
			!wj_const_duration_usecs(lthird(fexpr->args), &side->size) ||
			!wj_const_usecs(lfourth(fexpr->args), &side->offset))
			WJ_REJECT("the window parameters are not constant valid intervals");
		if (side->kind == WJ_KIND_CUMULATE && side->size % side->every != 0)
			WJ_REJECT("cumulate()'s size is not a multiple of its step");
		side->c_every = (Const *) lsecond(fexpr->args);
		side->c_size = (Const *) lthird(fexpr->args);
		side->c_offset = (Const *) lfourth(fexpr->args);

		if (!bms_is_subset(fnrel->lateral_relids, base->relids) ||
			!member_is_detachable(root, rel, base, fnrel))
			WJ_REJECT("the window function scan refers to other relations or cannot be left out");
		side->fn_relid = fnrel->relid;

		/* the function's output column always comes first among extras */
		side->extras = list_make1(makeVar(fnrel->relid, 1,
										  exprType((Node *) fexpr),
										  -1, InvalidOid, 0));
	}

	/*
	 * The columns the detached members would have supplied: the function's
	 * output column and PlaceHolderVars computed from it alone.  We supply
	 * them per window; anything else means we cannot.
	 */
	foreach(lc, rel->reltarget->exprs)
	{
		Node	   *expr = (Node *) lfirst(lc);

		if (list_member(base->reltarget->exprs, expr))
			continue;
		if (fnrel == NULL)
			WJ_REJECT("a side outputs columns of a relation other than the windowed one");
		if (IsA(expr, Var))
		{
			if (!is_var_of(expr, fnrel->relid) || ((Var *) expr)->varattno != 1)
				WJ_REJECT("a column of the function scan other than its window column is used");
			continue;			/* already first */
		}
		if (IsA(expr, PlaceHolderVar))
		{
			PlaceHolderVar *phv = (PlaceHolderVar *) expr;
			Relids		varnos = pull_varnos(root, (Node *) phv->phexpr);

			if (phv->phlevelsup != 0 ||
				!bms_is_subset(varnos, fnrel->relids) ||
				contain_volatile_functions((Node *) phv->phexpr))
				WJ_REJECT("a placeholder is not computed from the window function scan alone");
			side->extras = lappend(side->extras, expr);
			continue;
		}
		WJ_REJECT("a side outputs an expression the node cannot supply");
	}
	return true;
}

/*
 * subquery_window_bound
 *		Is column attno of subquery relation rel a window bound computed in
 *		the subquery (window_start or window_end of a windowing function)?
 */
static bool
subquery_window_bound(PlannerInfo *root, RelOptInfo *rel, AttrNumber attno,
					  WjBound *bound)
{
	Query	   *subquery;
	TargetEntry *tle;
	Node	   *expr;

	if (rel->rtekind != RTE_SUBQUERY || rel->subroot == NULL)
		return false;
	subquery = rel->subroot->parse;
	tle = get_tle_by_resno(subquery->targetList, attno);
	if (tle == NULL)
		return false;
	expr = strip_phv((Node *) tle->expr);

	if (IsA(expr, FuncExpr))
	{
		switch (wj_func_of(((FuncExpr *) expr)->funcid))
		{
			case WJF_TUMBLE_START:
				*bound = WJ_BOUND_START;
				return true;
			case WJF_TUMBLE_END:
			case WJF_WINDOW_END:
				*bound = WJ_BOUND_END;
				return true;
			default:
				return false;
		}
	}
	if (IsA(expr, Var) && ((Var *) expr)->varlevelsup == 0)
	{
		Var		   *var = (Var *) expr;
		RangeTblEntry *rte = rt_fetch(var->varno, subquery->rtable);
		RangeTblFunction *rtfunc;

		if (rte->rtekind != RTE_FUNCTION || list_length(rte->functions) != 1)
			return false;
		rtfunc = linitial_node(RangeTblFunction, rte->functions);
		if (!IsA(rtfunc->funcexpr, FuncExpr) || var->varattno != 1)
			return false;
		switch (wj_func_of(((FuncExpr *) rtfunc->funcexpr)->funcid))
		{
			case WJF_HOP_STARTS:
				*bound = WJ_BOUND_START;
				return true;
			case WJF_CUMULATE_ENDS:
				*bound = WJ_BOUND_END;
				return true;
			default:
				return false;
		}
	}
	return false;
}

/*
 * window_bound_of
 *		Is expr (one argument of a join clause, evaluated on side) a window
 *		bound of that side's windows?  Fills *info.
 */
static bool
window_bound_of(PlannerInfo *root, WjSideInfo *side, Node *expr,
				WjBoundInfo *info)
{
	memset(info, 0, sizeof(WjBoundInfo));
	expr = strip_phv(expr);

	if (side->fn_relid != 0)
	{
		/* TIME mode: the function's column, or an expression over it */
		if (is_var_of(expr, side->fn_relid) && ((Var *) expr)->varattno == 1)
		{
			info->bound = side->kind == WJ_KIND_HOP ? WJ_BOUND_START : WJ_BOUND_END;
			info->kind = side->kind;
			return true;
		}
		if (IsA(expr, FuncExpr) && list_length(((FuncExpr *) expr)->args) >= 2)
		{
			FuncExpr   *fexpr = (FuncExpr *) expr;
			WjFunc		f = wj_func_of(fexpr->funcid);
			Node	   *arg0 = strip_phv(linitial(fexpr->args));
			int64		size;
			int64		offset;

			if (f == WJF_WINDOW_END && side->kind == WJ_KIND_HOP &&
				is_var_of(arg0, side->fn_relid) &&
				((Var *) arg0)->varattno == 1 &&
				wj_const_duration_usecs(lsecond(fexpr->args), &size) &&
				size == side->size)
			{
				info->bound = WJ_BOUND_END;
				info->kind = side->kind;
				return true;
			}
			if (f == WJF_TUMBLE_START && side->kind == WJ_KIND_CUMULATE &&
				list_length(fexpr->args) == 3 &&
				is_var_of(arg0, side->base->relid) &&
				((Var *) arg0)->varattno == side->time_var->varattno &&
				wj_const_duration_usecs(lsecond(fexpr->args), &size) &&
				wj_const_usecs(lthird(fexpr->args), &offset) &&
				size == side->size &&
				wj_floormod(offset, size) == wj_floormod(side->offset, size))
			{
				info->bound = WJ_BOUND_START;
				info->kind = side->kind;
				return true;
			}
		}
		return false;
	}

	/* GROUP mode: a TUMBLE bound over a time column of the relation */
	if (IsA(expr, FuncExpr) && list_length(((FuncExpr *) expr)->args) == 3)
	{
		FuncExpr   *fexpr = (FuncExpr *) expr;
		WjFunc		f = wj_func_of(fexpr->funcid);

		if ((f == WJF_TUMBLE_START || f == WJF_TUMBLE_END) &&
			is_var_of(strip_phv(linitial(fexpr->args)), side->base->relid) &&
			wj_const_duration_usecs(lsecond(fexpr->args), &info->size) &&
			wj_const_usecs(lthird(fexpr->args), &info->offset))
		{
			info->bound = f == WJF_TUMBLE_START ? WJ_BOUND_START : WJ_BOUND_END;
			info->kind = WJ_KIND_TUMBLE;
			info->c_size = (Const *) lsecond(fexpr->args);
			info->c_offset = (Const *) lthird(fexpr->args);
			info->offset = wj_floormod(info->offset, info->size);
			return true;
		}
		return false;
	}

	/* ... or a window column of a windowed subquery */
	if (is_var_of(expr, side->base->relid))
	{
		WjBound		bound;

		if (subquery_window_bound(root, side->base, ((Var *) expr)->varattno,
								  &bound))
		{
			info->bound = bound;
			info->kind = WJ_KIND_COLUMNS;
			return true;
		}
	}
	return false;
}

/*
 * clause_sides
 *		For a binary operator clause whose arguments each come from one
 *		side, return the outer and inner argument and whether the outer one
 *		is on the left.  outer_relids/inner_relids limit what each argument
 *		may reference.
 */
static bool
clause_sides(RestrictInfo *rinfo, Relids outer_relids, Relids inner_relids,
			 Node **outer_arg, Node **inner_arg, bool *outer_is_left)
{
	OpExpr	   *op = (OpExpr *) rinfo->clause;

	if (!IsA(op, OpExpr) || list_length(op->args) != 2)
		return false;
	if (bms_is_empty(rinfo->left_relids) || bms_is_empty(rinfo->right_relids))
		return false;
	if (bms_is_subset(rinfo->left_relids, outer_relids) &&
		bms_is_subset(rinfo->right_relids, inner_relids))
	{
		*outer_arg = linitial(op->args);
		*inner_arg = lsecond(op->args);
		*outer_is_left = true;
		return true;
	}
	if (bms_is_subset(rinfo->left_relids, inner_relids) &&
		bms_is_subset(rinfo->right_relids, outer_relids))
	{
		*outer_arg = lsecond(op->args);
		*inner_arg = linitial(op->args);
		*outer_is_left = false;
		return true;
	}
	return false;
}

/*
 * window_pathkeys
 *		GROUP mode: the sort order of one side by its window clause
 *		arguments, through the clauses' merge equivalence classes.
 */
static List *
window_pathkeys(PlannerInfo *root, List *wclauses, List *outer_left,
				bool for_outer)
{
	List	   *pathkeys = NIL;
	ListCell   *lc1,
			   *lc2;

	forboth(lc1, wclauses, lc2, outer_left)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc1);
		bool		left = (lfirst_int(lc2) != 0) == for_outer;
		EquivalenceClass *ec;
		PathKey    *pk;

		update_mergeclause_eclasses(root, rinfo);
		ec = left ? rinfo->left_ec : rinfo->right_ec;
		if (ec == NULL || ec->ec_opfamilies == NIL)
			return NIL;
		pk = make_canonical_pathkey(root, ec, linitial_oid(ec->ec_opfamilies),
									BTLessStrategyNumber, false);
		pathkeys = list_append_unique_ptr(pathkeys, pk);
	}
	return pathkeys;
}

/*
 * time_pathkeys
 *		TIME mode: the sort order of a base relation by its time column.
 */
static List *
time_pathkeys(PlannerInfo *root, WjSideInfo *side)
{
	TypeCacheEntry *tce = lookup_type_cache(side->time_var->vartype,
											TYPECACHE_LT_OPR);

	if (!OidIsValid(tce->lt_opr))
		return NIL;
	return wj_build_expression_pathkey(root, (Expr *) side->time_var, NULL,
									   tce->lt_opr, side->base->relids, true);
}

/*
 * side_state_bytes
 *		Estimated bytes one side keeps for the largest open set of windows:
 *		rows per window x bytes per buffered row, where rows per window =
 *		input rows x window size / time span of the input (all rows when
 *		the span is not longer than a window).  Returns -1 when the time
 *		column has no statistics.
 */
static double
side_state_bytes(PlannerInfo *root, Path *path, Var *time_var, int64 size)
{
	double		span;
	double		rows = path->rows;

	if (time_var == NULL)
		return -1;
	span = wj_stats_time_span(root, (Node *) time_var, true);
	if (span < 0)
		return -1;
	if (span > (double) size)
		rows = rows * (double) size / span;
	return ceil(rows) * (MAXALIGN(path->pathtarget->width) + WJ_STATE_ROW_OVERHEAD);
}

/*
 * tumble_time_var
 *		The time column under a GROUP-mode TUMBLE window bound (the first
 *		argument of wj_tumble_start/wj_tumble_end), or NULL.
 */
static Var *
tumble_time_var(Node *expr)
{
	expr = strip_phv(expr);
	if (expr && IsA(expr, FuncExpr) && ((FuncExpr *) expr)->args != NIL)
	{
		Node	   *arg = strip_phv(linitial(((FuncExpr *) expr)->args));

		if (arg && IsA(arg, Var))
			return (Var *) arg;
	}
	return NULL;
}

/*
 * wj_window_join_add_paths
 *		The join pathlist hook's entry: add a WindowJoin path to joinrel
 *		when outerrel and innerrel are joined on equal windows.
 */
void
wj_window_join_add_paths(PlannerInfo *root, RelOptInfo *joinrel,
						 RelOptInfo *outerrel, RelOptInfo *innerrel,
						 JoinType jointype, JoinPathExtraData *extra)
{
	WjSideInfo	outer;
	WjSideInfo	inner;
	WjMode		mode;
	WjWindowKind kind = 0;
	WjBoundInfo first_tumble = {0};
	bool		have_start = false;
	bool		have_end = false;
	List	   *wclauses = NIL;
	List	   *wouter_left = NIL;
	List	   *gclauses;
	List	   *gouter_left;
	List	   *kclauses = NIL;
	List	   *kouter_left = NIL;
	List	   *jclauses = NIL;
	List	   *oclauses = NIL;
	List	   *outer_pk;
	List	   *inner_pk;
	Path	   *outer_path;
	Path	   *inner_path;
	ListCell   *lc;
	double		wpr = 1.0;
	WjPathInfo *pinfo;
	List	   *node_exprs;
	double		state_bytes = 0;

	if (!wj_enable_window_join)
		return;
	switch (jointype)
	{
		case JOIN_INNER:
		case JOIN_LEFT:
		case JOIN_RIGHT:
		case JOIN_FULL:
		case JOIN_SEMI:
		case JOIN_ANTI:
			break;
		default:
			/* JOIN_UNIQUE_*: the plain JOIN_SEMI call covers semijoins */
			return;
	}
	if (!bms_is_empty(joinrel->lateral_relids))
		WJ_NO_PATH("the join has lateral references");

	if (!analyse_side(root, outerrel, &outer) ||
		!analyse_side(root, innerrel, &inner))
		WJ_NO_PATH("a side is not a windowed relation");
	if ((outer.fn_relid != 0) != (inner.fn_relid != 0))
		WJ_NO_PATH("one side is windowed by hop()/cumulate() and the other is not");
	mode = outer.fn_relid != 0 ? WJ_MODE_TIME : WJ_MODE_GROUP;
	if (mode == WJ_MODE_TIME)
	{
		if (outer.kind != inner.kind || outer.every != inner.every ||
			outer.size != inner.size ||
			wj_floormod(outer.offset, outer.kind == WJ_KIND_HOP ? outer.every : outer.size) !=
			wj_floormod(inner.offset, inner.kind == WJ_KIND_HOP ? inner.every : inner.size) ||
			outer.time_var->vartype != inner.time_var->vartype)
			WJ_NO_PATH("the two sides' windows differ");
		kind = outer.kind;

		/*
		 * Runaway windows: leave them to PostgreSQL's plan, which raises
		 * the max_windows_per_row error at its first row, before sorting.
		 */
		if ((kind == WJ_KIND_HOP ? (outer.size - 1) / outer.every + 1 :
			 outer.size / outer.every) > wj_max_windows_per_row)
		{
			elog(DEBUG2, "windowjoin: no window join path: a row would be in more than windowjoin.max_windows_per_row windows");
			return;
		}
	}

	/* sort the clauses out */
	foreach(lc, extra->restrictlist)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);
		Node	   *oarg;
		Node	   *iarg;
		bool		outer_left;
		WjBoundInfo ob;
		WjBoundInfo ib;

		if (rinfo->pseudoconstant)
			WJ_NO_PATH("a join clause is a pseudoconstant");
		if (IS_OUTER_JOIN(jointype) && RINFO_IS_PUSHED_DOWN(rinfo, joinrel->relids))
		{
			oclauses = lappend(oclauses, rinfo);
			continue;
		}

		/* window equality? */
		if (clause_sides(rinfo, outerrel->relids, innerrel->relids,
						 &oarg, &iarg, &outer_left) &&
			is_time_type(exprType(oarg)) &&
			exprType(oarg) == exprType(iarg) &&
			((OpExpr *) rinfo->clause)->opno ==
			lookup_type_cache(exprType(oarg), TYPECACHE_EQ_OPR)->eq_opr &&
			window_bound_of(root, &outer, oarg, &ob) &&
			window_bound_of(root, &inner, iarg, &ib) &&
			ob.bound == ib.bound && ob.kind == ib.kind &&
			(kind == 0 || kind == ob.kind) &&
			(mode == WJ_MODE_TIME) == (ob.kind == WJ_KIND_HOP || ob.kind == WJ_KIND_CUMULATE) &&
			rinfo->mergeopfamilies != NIL)
		{
			bool		same_spec = true;

			if (ob.kind == WJ_KIND_TUMBLE)
			{
				if (first_tumble.kind == 0)
					first_tumble = ob;
				same_spec = ob.size == ib.size && ob.offset == ib.offset &&
					ob.size == first_tumble.size &&
					ob.offset == first_tumble.offset;
			}
			if (same_spec)
			{
				kind = ob.kind;
				wclauses = lappend(wclauses, rinfo);
				wouter_left = lappend_int(wouter_left, outer_left);
				if (ob.bound == WJ_BOUND_START)
					have_start = true;
				else
					have_end = true;
				continue;
			}
		}

		/* hash key? */
		jclauses = lappend(jclauses, rinfo);
		if (rinfo->can_join && OidIsValid(rinfo->hashjoinoperator) &&
			op_strict(((OpExpr *) rinfo->clause)->opno) &&
			clause_sides(rinfo, outer.base->relids, inner.base->relids,
						 &oarg, &iarg, &outer_left))
		{
			kclauses = lappend(kclauses, rinfo);
			kouter_left = lappend_int(kouter_left, outer_left);
		}
	}

	/* the window clauses must identify the window */
	if (wclauses == NIL)
		WJ_NO_PATH("no window equality between the two sides");
	if (kind == WJ_KIND_COLUMNS && !(have_start && have_end))
		WJ_NO_PATH("window columns are joined without both window_start and window_end");
	if (kind == WJ_KIND_CUMULATE && !have_end)
		WJ_NO_PATH("cumulate() windows are joined without window_end");

	/*
	 * GROUP mode groups the rows by the values of the window clauses.  With
	 * TUMBLE one of them identifies the window (the same size and offset on
	 * both sides, so equal starts mean equal ends and vice versa): group by
	 * the first start (else end) equality alone, a single sort key.
	 */
	gclauses = wclauses;
	gouter_left = wouter_left;
	if (kind == WJ_KIND_TUMBLE)
	{
		ListCell   *lc2;
		int			pick = 0;
		int			i = 0;

		forboth(lc, wclauses, lc2, wouter_left)
		{
			Node	   *oarg;
			Node	   *iarg;
			bool		outer_left;
			WjBoundInfo ob;

			clause_sides(lfirst_node(RestrictInfo, lc), outerrel->relids,
						 innerrel->relids, &oarg, &iarg, &outer_left);
			if (window_bound_of(root, &outer, oarg, &ob) &&
				ob.bound == WJ_BOUND_START)
			{
				pick = i;
				break;
			}
			i++;
		}
		gclauses = list_make1(list_nth(wclauses, pick));
		gouter_left = list_make1_int(list_nth_int(wouter_left, pick));
	}

	/* sorted inputs */
	if (mode == WJ_MODE_GROUP)
	{
		outer_pk = window_pathkeys(root, gclauses, gouter_left, true);
		inner_pk = window_pathkeys(root, gclauses, gouter_left, false);
		if (outer_pk == NIL || inner_pk == NIL)
			WJ_NO_PATH("no sort order of the window clauses");
	}
	else
	{
		outer_pk = time_pathkeys(root, &outer);
		inner_pk = time_pathkeys(root, &inner);
	}
	outer_path = wj_sorted_input(root, outer.base, outer_pk);
	inner_path = wj_sorted_input(root, inner.base, inner_pk);
	if (outer_path == NULL || inner_path == NULL)
		WJ_NO_PATH("a side has no unparameterized sorted path");

	/*
	 * Memory: the estimated peak state of both sides (see the file header).
	 * Beyond the hash memory limit the node spills; that is costed below.
	 */
	{
		Var		   *otime = NULL;
		Var		   *itime = NULL;
		int64		wsize = 0;
		double		obytes;
		double		ibytes;

		if (mode == WJ_MODE_TIME)
		{
			otime = outer.time_var;
			itime = inner.time_var;
			wsize = outer.size;
		}
		else if (kind == WJ_KIND_TUMBLE)
		{
			Node	   *oarg;
			Node	   *iarg;
			bool		outer_left;

			if (clause_sides(linitial_node(RestrictInfo, gclauses),
							 outerrel->relids, innerrel->relids,
							 &oarg, &iarg, &outer_left))
			{
				otime = tumble_time_var(oarg);
				itime = tumble_time_var(iarg);
			}
			wsize = first_tumble.size;
		}
		obytes = side_state_bytes(root, outer_path, otime, wsize);
		ibytes = side_state_bytes(root, inner_path, itime, wsize);
		if (obytes >= 0)
			state_bytes += obytes;
		if (ibytes >= 0)
			state_bytes += ibytes;
	}

	if (kind == WJ_KIND_HOP)
		wpr = Max(1.0, (double) outer.size / (double) outer.every);
	else if (kind == WJ_KIND_CUMULATE)
		wpr = ((double) (outer.size / outer.every) + 1.0) / 2.0;

	pinfo = palloc0(sizeof(WjPathInfo));
	pinfo->jointype = jointype;
	pinfo->mode = mode;
	pinfo->kind = kind;
	pinfo->wclauses = wclauses;
	pinfo->kclauses = kclauses;
	pinfo->kouter_left = kouter_left;
	pinfo->jclauses = jclauses;
	pinfo->oclauses = oclauses;
	pinfo->outer_time = outer.time_var;
	pinfo->inner_time = inner.time_var;
	pinfo->outer_extras = outer.extras;
	pinfo->inner_extras = inner.extras;
	if (mode == WJ_MODE_TIME)
	{
		pinfo->c_every = outer.c_every;
		pinfo->c_size = outer.c_size;
		pinfo->c_offset = outer.c_offset;
	}
	else
	{
		pinfo->c_every = NULL;
		pinfo->c_size = first_tumble.c_size;
		pinfo->c_offset = first_tumble.c_offset;
	}
	pinfo->gclauses = gclauses;
	pinfo->gouter_left = gouter_left;

	node_exprs = list_concat(list_copy(outer.extras), inner.extras);
	add_path(joinrel, wj_make_join_path(root, joinrel, jointype, outer_path,
										inner_path, wpr, pinfo,
										node_exprs, state_bytes));

	/*
	 * A partial path: each participant joins its share of the outer rows
	 * with all inner rows, window by window.  Inner, left, semi and anti
	 * joins decide per outer row; right and full joins need every outer row
	 * of a window to tell an unmatched inner row, so they get none.  Each
	 * participant's state holds at most what the serial node holds, so the
	 * memory gate above covers it.
	 */
	if (jointype != JOIN_RIGHT && jointype != JOIN_FULL &&
		joinrel->consider_parallel)
	{
		outer_path = wj_partial_outer_input(root, outer.base, outer_pk);
		inner_path = wj_parallel_safe_input(root, inner.base, inner_pk);
		if (outer_path != NULL && inner_path != NULL)
			add_partial_path(joinrel,
							 wj_make_join_path(root, joinrel, jointype,
											   outer_path, inner_path, wpr,
											   pinfo, node_exprs,
											   state_bytes));
	}

	/*
	 * Key-partitioned, any join type: right and full joins can only split
	 * this way; for the others it competes with the path above (it splits
	 * both sorts but repeats both scans).
	 */
	if (wj_enable_key_partitioning && joinrel->consider_parallel &&
		kclauses != NIL)
		wj_add_keypart_path(root, joinrel, jointype, &outer, &inner,
							outer_pk, inner_pk, wpr, pinfo,
							node_exprs, state_bytes);
}

/*
 * wj_add_keypart_path
 *		Partial paths by key partitioning (any join type): the rows of both
 *		inputs go by key partition (the first hash key, hashed; NULL keys in
 *		partition 0), so each key is joined, and each unmatched row emitted,
 *		in exactly one process.  Either every participant reads both inputs
 *		in full, their scans keeping the rows of the partition it is joining
 *		(the sorts and the join split, the scans do not), or each reads its
 *		share of both and the rows are exchanged by partition; the costs
 *		decide.  Partitions are claimed from a shared counter at run time
 *		(window_join_exec.c), so the result does not depend on how many
 *		workers actually start.  Offered only in the top query level (see
 *		below).
 */
static void
wj_add_keypart_path(PlannerInfo *root, RelOptInfo *joinrel, JoinType jointype,
					WjSideInfo *outer, WjSideInfo *inner, List *outer_pk,
					List *inner_pk, double wpr, WjPathInfo *pinfo,
					List *node_exprs, double state_bytes)
{
	OpExpr	   *op = (OpExpr *) linitial_node(RestrictInfo, pinfo->kclauses)->clause;
	bool		outer_left = linitial_int(pinfo->kouter_left) != 0;
	Node	   *okey = outer_left ? linitial(op->args) : lsecond(op->args);
	Node	   *ikey = outer_left ? lsecond(op->args) : linitial(op->args);
	Path	   *outer_path;
	Path	   *inner_path;
	Path	   *path;
	int			workers;

	/*
	 * Only in the top query level: the partition parameter has to be
	 * declared valid in every level's outer_params (wj_keypart_plan), and a
	 * level whose plan is made before its parent has identified its own
	 * (a SubPlan, an InitPlan, a CTE) would lose it again.
	 */
	if (root->query_level != 1 || root->parent_root != NULL)
		return;

	/* the filter goes on the base relations' scans: plain columns only */
	if (!IsA(okey, Var) || ((Var *) okey)->varno != outer->base->relid ||
		!IsA(ikey, Var) || ((Var *) ikey)->varno != inner->base->relid ||
		outer->base->rtekind != RTE_RELATION ||
		inner->base->rtekind != RTE_RELATION)
		return;
	workers = wj_keypart_workers(outer->base, inner->base);
	if (workers <= 0)
		return;

	/* every participant reads both inputs in full */
	outer_path = wj_parallel_safe_input(root, outer->base, outer_pk);
	inner_path = wj_parallel_safe_input(root, inner->base, inner_pk);
	if (outer_path != NULL && inner_path != NULL &&
		wj_keypart_scan(outer_path) != NULL &&
		wj_keypart_scan(inner_path) != NULL)
	{
		path = wj_make_join_path(root, joinrel, jointype, outer_path,
								 inner_path, wpr, pinfo, node_exprs,
								 state_bytes);
		if (path->parallel_safe)
		{
			wj_keypart_make_partial(root, path, outer_path, inner_path, okey,
									workers);
			((CustomPath *) path)->methods = &wj_window_join_keypart_path_methods;
			add_partial_path(joinrel, path);
		}
	}

	/* each reads its share, the rows are exchanged */
	outer_path = wj_keypart_exchange_input(root, outer->base, outer_pk);
	inner_path = wj_keypart_exchange_input(root, inner->base, inner_pk);
	if (outer_path != NULL && inner_path != NULL)
	{
		path = wj_make_join_path(root, joinrel, jointype, outer_path,
								 inner_path, wpr, pinfo, node_exprs,
								 state_bytes);
		if (path->parallel_safe)
		{
			wj_keypart_exchanged(root, path, outer_path, inner_path, okey,
								 Max(outer_path->parallel_workers,
									 inner_path->parallel_workers));
			((CustomPath *) path)->methods = &wj_window_join_exchange_path_methods;
			add_partial_path(joinrel, path);
		}
	}
}

/*
 * window_join_plan_keypart_common
 *		PlanCustomPath of a key-partitioned path: the ordinary CustomScan,
 *		whose two input scans get the partition filter on a new PARAM_EXEC
 *		that the executor sets to each partition it claims, or whose
 *		inputs' Sorts get a KeyExchange below them reading the parameter
 *		(exchange).
 */
static Plan *
window_join_plan_keypart_common(PlannerInfo *root, RelOptInfo *rel,
								CustomPath *best_path, List *tlist,
								List *clauses, List *custom_plans,
								bool exchange)
{
	CustomScan *cscan;
	List	   *exprs;
	WindowJoinPlanInfo info;
	int			parts = wj_keypart_units(best_path->path.parallel_workers);

	cscan = window_join_make_plan(root, rel, best_path, tlist, clauses,
								  custom_plans);
	exprs = cscan->custom_exprs;
	window_join_info_from_private(cscan->custom_private, &info);
	info.key_partitioned = true;
	info.kp_parts = parts;
	info.kp_grain = wj_keypart_grain(exchange);
	info.kp_param = (exchange ? wj_keypart_plan_exchange : wj_keypart_plan)
		(root, parts,
		 linitial(cscan->custom_plans),
		 linitial(list_nth(exprs, WJ_EXPR_OUTER_KEYS)),
		 linitial_oid(info.outer_hashfn),
		 lsecond(cscan->custom_plans),
		 linitial(list_nth(exprs, WJ_EXPR_INNER_KEYS)),
		 linitial_oid(info.inner_hashfn));
	cscan->custom_private = window_join_info_to_private(&info);
	wj_custom_join_nullingrels(cscan, rel);
	return &cscan->scan.plan;
}

static Plan *
window_join_plan_keypart(PlannerInfo *root, RelOptInfo *rel,
						 CustomPath *best_path, List *tlist, List *clauses,
						 List *custom_plans)
{
	return window_join_plan_keypart_common(root, rel, best_path, tlist,
										   clauses, custom_plans, false);
}

static Plan *
window_join_plan_exchange(PlannerInfo *root, RelOptInfo *rel,
						  CustomPath *best_path, List *tlist, List *clauses,
						  List *custom_plans)
{
	return window_join_plan_keypart_common(root, rel, best_path, tlist,
										   clauses, custom_plans, true);
}

/*
 * wj_make_join_path
 *		A WindowJoin path over the given sorted inputs; a partial path when
 *		the outer input is one (each participant sees its share of the outer
 *		rows and all inner rows, and produces its share of the result).
 *
 * Cost.  The inputs are read once, sorted (the Sort paths carry that
 * cost); each row is copied into the state and hashed once; each outer
 * row probes once per window it belongs to (wpr: HOP about size/slide,
 * CUMULATE on average half the steps) and each candidate pair is checked
 * against the join quals; FULL/RIGHT scan the inner rows of each window
 * once more for the unmatched ones.
 */
static Path *
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

	cpath = makeNode(CustomPath);
	cpath->path.pathtype = T_CustomScan;
	cpath->path.parent = joinrel;
	cpath->path.pathtarget = joinrel->reltarget;
	cpath->path.param_info = NULL;
	cpath->path.parallel_aware = partial;
	cpath->path.parallel_safe =
		wj_path_parallel_safe(root, joinrel,
							  list_make2(outer_path, inner_path), node_exprs);
	cpath->path.parallel_workers = outer_path->parallel_workers;
	cpath->path.rows = rows;
	wj_set_path_disabled_nodes(&cpath->path,
							   wj_path_disabled_nodes(outer_path) +
							   wj_path_disabled_nodes(inner_path));
	cpath->path.startup_cost = startup;
	cpath->path.total_cost = startup + run;
	cpath->path.pathkeys = NIL;
	cpath->flags = CUSTOMPATH_SUPPORT_PROJECTION;
	cpath->custom_paths = list_make2(outer_path, inner_path);
	cpath->methods = &wj_window_join_path_methods;
	cpath->custom_private = list_make1(pinfo);

	elog(DEBUG2, "windowjoin: window join %spath cost %.2f..%.2f rows %.0f (inputs %.2f, %.2f)",
		 partial ? "partial " : "",
		 cpath->path.startup_cost, cpath->path.total_cost, cpath->path.rows,
		 outer_path->total_cost, inner_path->total_cost);
	return &cpath->path;
}

/*
 * tlist_exprs_to_entries
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
 * window_join_plan_path
 *		PlanCustomPath: the CustomScan of window_join_make_plan.
 */
static Plan *
window_join_plan_path(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
					  List *tlist, List *clauses, List *custom_plans)
{
	CustomScan *cscan = window_join_make_plan(root, rel, best_path, tlist,
											  clauses, custom_plans);

	wj_custom_join_nullingrels(cscan, rel);
	return &cscan->scan.plan;
}

/*
 * window_join_make_plan
 *		Build the CustomScan.  See window_join.h for the layout of the scan
 *		tuple and of custom_private/custom_exprs.
 */
static CustomScan *
window_join_make_plan(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
					  List *tlist, List *clauses, List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);
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

	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = extract_actual_clauses(oclauses, false);
	cscan->scan.scanrelid = 0;
	cscan->flags = best_path->flags;
	cscan->custom_plans = custom_plans;
	cscan->custom_scan_tlist = scan_tlist;
	cscan->methods = &wj_window_join_scan_methods;

	cscan->custom_exprs = NIL;
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
	info.key_partitioned = false;	/* see window_join_plan_keypart */
	cscan->custom_private = window_join_info_to_private(&info);

	return cscan;
}

