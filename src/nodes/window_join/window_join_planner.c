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
 * that does not fit (window_join_spill.c), so the planner's estimate of its
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
 * The path itself, its cost and its CustomScan are made in
 * window_join_plan.c, the key-partitioned partial paths in
 * window_join_keypart_paths.c (window_join_planner_internal.h).
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

#include "src/common/catalog_cache.h"
#include "src/common/input_paths.h"
#include "src/common/join_nulling.h"
#include "src/parallel/keypart.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/restrictinfo.h"
#include "parser/parsetree.h"
#include "src/common/pg_compat.h"
#include "src/common/plan_private.h"
#include "src/common/stats_common.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
#include "utils/typcache.h"
#include "src/common/gucs.h"
#include "src/common/window_arith.h"
#include "src/nodes/window_join/window_join.h"
#include "src/nodes/window_join/window_join_planner_internal.h"

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

/* The join clauses, as sort_join_clauses and grouping_clauses sort them */
typedef struct WjJoinClauses
{
	WjWindowKind kind;			/* the windows' kind, 0 until one is seen */
	WjBoundInfo first_tumble;	/* TUMBLE: the first window equality's
								 * bound */
	bool		have_start;		/* some window clause equates the starts */
	bool		have_end;		/* some window clause equates the ends */
	List	   *wclauses;		/* implemented by the windows */
	List	   *wouter_left;	/* per window clause: outer side is left */
	List	   *gclauses;		/* GROUP: the window clauses to group by */
	List	   *gouter_left;	/* per group clause: outer side is left */
	List	   *kclauses;		/* hash keys inside a window */
	List	   *kouter_left;	/* per key clause: outer side is left */
	List	   *jclauses;		/* evaluated per candidate pair */
	List	   *oclauses;		/* pushed-down quals, after the join */
} WjJoinClauses;

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
 * wj_strip_phv
 *		Look through PlaceHolderVars of this query level.
 */
Node *
wj_strip_phv(Node *node)
{
	while (node && IsA(node, PlaceHolderVar) &&
		   ((PlaceHolderVar *) node)->phlevelsup == 0)
		node = (Node *) ((PlaceHolderVar *) node)->phexpr;
	return node;
}

/*
 * wj_tumble_bound
 *		Is expr (through PlaceHolderVars) tumble_start or tumble_end
 *		(window_table_functions.c) of a time, with constant size and offset?
 *		Then *time is that time, *is_end which bound, *size and *offset (in
 *		[0, size)) the window's, in microseconds.
 */
bool
wj_tumble_bound(Node *expr, Node **time, bool *is_end, int64 *size,
				int64 *offset)
{
	FuncExpr   *fexpr;
	WjFunc		f;

	expr = wj_strip_phv(expr);
	if (expr == NULL || !IsA(expr, FuncExpr) ||
		list_length(((FuncExpr *) expr)->args) != 3)
		return false;
	fexpr = (FuncExpr *) expr;
	f = wj_func_of(fexpr->funcid);
	if ((f != WJF_TUMBLE_START && f != WJF_TUMBLE_END) ||
		!wj_const_duration_usecs(lsecond(fexpr->args), size) ||
		!wj_const_usecs(lthird(fexpr->args), offset))
		return false;
	*time = wj_strip_phv(linitial(fexpr->args));
	*is_end = f == WJF_TUMBLE_END;
	*offset = wj_floormod(*offset, *size);
	return true;
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
	expr = wj_strip_phv((Node *) tle->expr);

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
	expr = wj_strip_phv(expr);

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
			Node	   *arg0 = wj_strip_phv(linitial(fexpr->args));
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
		Node	   *time;
		bool		is_end;

		if (wj_tumble_bound(expr, &time, &is_end, &info->size, &info->offset) &&
			is_var_of(time, side->base->relid))
		{
			info->bound = is_end ? WJ_BOUND_END : WJ_BOUND_START;
			info->kind = WJ_KIND_TUMBLE;
			info->c_size = (Const *) lsecond(fexpr->args);
			info->c_offset = (Const *) lthird(fexpr->args);
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
	expr = wj_strip_phv(expr);
	if (expr && IsA(expr, FuncExpr) && ((FuncExpr *) expr)->args != NIL)
	{
		Node	   *arg = wj_strip_phv(linitial(((FuncExpr *) expr)->args));

		if (arg && IsA(arg, Var))
			return (Var *) arg;
	}
	return NULL;
}

/*
 * The buckets' memory per byte of tuples: each bucket's chunks double, so
 * its last chunk, about half of it, is partly empty when the input ends,
 * and a window of few rows still takes a whole first chunk
 * (window_join_buckets.c).
 */
#define WJ_BUCKET_SLACK		1.5

/*
 * wj_window_bucket_bytes
 *		The memory the buckets of rows rows of target take: each row its
 *		key hash and a MinimalTuple with a null bitmap (its window columns
 *		are stored as NULL), times WJ_BUCKET_SLACK.  Counting the tuples
 *		alone, 100,000 rows of 16 bytes were planned within 4 MB and held
 *		8 MB at run time, which then sorted them after all.
 */
static double
wj_window_bucket_bytes(double rows, PathTarget *target)
{
	double		tuple = WJ_BUCKET_ROW_HEADER +
		MAXALIGN(SizeofMinimalTupleHeader +
				 BITMAPLEN(list_length(target->exprs))) +
		MAXALIGN(target->width);

	return rows * tuple * WJ_BUCKET_SLACK;
}

/*
 * wj_window_bucket_input
 *		For a TUMBLE side grouped by window in the node
 *		(window_join_buckets.c): the cheapest unparameterized path of paths
 *		(parallel safe ones only if asked), when it is not already in window
 *		order (then no Sort is needed anyway) and its rows are estimated to
 *		fit in work_mem, as a Sort's would; else NULL, and the side is
 *		sorted.  The executor still sorts past work_mem at run time.
 */
Path *
wj_window_bucket_input(List *paths, List *pathkeys, bool need_parallel_safe)
{
	Path	   *best = NULL;
	ListCell   *lc;
	double		bytes;

	foreach(lc, paths)
	{
		Path	   *path = (Path *) lfirst(lc);

		if (path->param_info != NULL ||
			(need_parallel_safe && !path->parallel_safe))
			continue;
		if (best == NULL || wj_path_total_cheaper(path, best))
			best = path;
	}
	if (best == NULL || pathkeys_contained_in(pathkeys, best->pathkeys))
		return NULL;
	bytes = wj_window_bucket_bytes(best->rows, best->pathtarget);
	if (bytes > (double) work_mem * 1024.0)
		return NULL;
	return best;
}

/*
 * wj_window_bucket_paths
 *		Group the inputs by window in the node where obucket or ibucket (of
 *		wj_window_bucket_input) is given: it replaces *outer_path or
 *		*inner_path, and the result is a copy of pinfo saying so; pinfo
 *		itself when neither is.
 */
WjPathInfo *
wj_window_bucket_paths(WjPathInfo *pinfo, Path *obucket, Path *ibucket,
					   Path **outer_path, Path **inner_path)
{
	WjPathInfo *binfo;

	if (obucket == NULL && ibucket == NULL)
		return pinfo;
	binfo = palloc(sizeof(WjPathInfo));
	*binfo = *pinfo;
	binfo->outer_buckets = obucket != NULL;
	binfo->inner_buckets = ibucket != NULL;
	if (obucket)
		*outer_path = obucket;
	if (ibucket)
		*inner_path = ibucket;
	return binfo;
}

/*
 * analyse_sides
 *		Decides whether both inputs are windowed relations windowed the same
 *		way, and in which mode the node joins them: *mode TIME for HOP and
 *		CUMULATE (then *kind is theirs), GROUP otherwise (*kind 0, known
 *		from the window clauses).  False (no path) when the windows differ
 *		or a row would be in too many of them.
 */
static bool
analyse_sides(PlannerInfo *root, RelOptInfo *outerrel, RelOptInfo *innerrel,
			  WjSideInfo *outer, WjSideInfo *inner, WjMode *mode,
			  WjWindowKind *kind)
{
	if (!analyse_side(root, outerrel, outer) ||
		!analyse_side(root, innerrel, inner))
		WJ_REJECT("a side is not a windowed relation");
	if ((outer->fn_relid != 0) != (inner->fn_relid != 0))
		WJ_REJECT("one side is windowed by hop()/cumulate() and the other is not");
	*mode = outer->fn_relid != 0 ? WJ_MODE_TIME : WJ_MODE_GROUP;
	*kind = 0;
	if (*mode == WJ_MODE_TIME)
	{
		if (outer->kind != inner->kind || outer->every != inner->every ||
			outer->size != inner->size ||
			wj_floormod(outer->offset, outer->kind == WJ_KIND_HOP ? outer->every : outer->size) !=
			wj_floormod(inner->offset, inner->kind == WJ_KIND_HOP ? inner->every : inner->size) ||
			outer->time_var->vartype != inner->time_var->vartype)
			WJ_REJECT("the two sides' windows differ");
		*kind = outer->kind;

		/*
		 * Runaway windows: leave them to PostgreSQL's plan, which raises
		 * the max_windows_per_row error at its first row, before sorting.
		 */
		if ((*kind == WJ_KIND_HOP ? (outer->size - 1) / outer->every + 1 :
			 outer->size / outer->every) > wj_max_windows_per_row)
		{
			elog(DEBUG2, "windowjoin: no window join path: a row would be in more than windowjoin.max_windows_per_row windows");
			return false;
		}
	}
	return true;
}

/*
 * sort_join_clauses
 *		Decides what the node does with each join clause: a window equality
 *		(the same bound of the same windows on both sides, which the window
 *		grouping implements), a hash key inside a window, a clause evaluated
 *		per candidate pair, or a pushed-down qual of an outer join, checked
 *		after it.  cl->kind is the kind analyse_sides found (0 in GROUP
 *		mode) and becomes the window clauses' kind.  False (no path) for a
 *		pseudoconstant clause, or when the window clauses do not identify
 *		the window.
 */
static bool
sort_join_clauses(PlannerInfo *root, RelOptInfo *joinrel,
				  RelOptInfo *outerrel, RelOptInfo *innerrel,
				  JoinType jointype, JoinPathExtraData *extra,
				  WjSideInfo *outer, WjSideInfo *inner, WjMode mode,
				  WjJoinClauses *cl)
{
	ListCell   *lc;

	foreach(lc, extra->restrictlist)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);
		Node	   *oarg;
		Node	   *iarg;
		bool		outer_left;
		WjBoundInfo ob;
		WjBoundInfo ib;

		if (rinfo->pseudoconstant)
			WJ_REJECT("a join clause is a pseudoconstant");
		if (IS_OUTER_JOIN(jointype) && RINFO_IS_PUSHED_DOWN(rinfo, joinrel->relids))
		{
			cl->oclauses = lappend(cl->oclauses, rinfo);
			continue;
		}

		/* window equality? */
		if (clause_sides(rinfo, outerrel->relids, innerrel->relids,
						 &oarg, &iarg, &outer_left) &&
			is_time_type(exprType(oarg)) &&
			exprType(oarg) == exprType(iarg) &&
			((OpExpr *) rinfo->clause)->opno ==
			lookup_type_cache(exprType(oarg), TYPECACHE_EQ_OPR)->eq_opr &&
			window_bound_of(root, outer, oarg, &ob) &&
			window_bound_of(root, inner, iarg, &ib) &&
			ob.bound == ib.bound && ob.kind == ib.kind &&
			(cl->kind == 0 || cl->kind == ob.kind) &&
			(mode == WJ_MODE_TIME) == (ob.kind == WJ_KIND_HOP || ob.kind == WJ_KIND_CUMULATE) &&
			rinfo->mergeopfamilies != NIL)
		{
			bool		same_spec = true;

			if (ob.kind == WJ_KIND_TUMBLE)
			{
				if (cl->first_tumble.kind == 0)
					cl->first_tumble = ob;
				same_spec = ob.size == ib.size && ob.offset == ib.offset &&
					ob.size == cl->first_tumble.size &&
					ob.offset == cl->first_tumble.offset;
			}
			if (same_spec)
			{
				cl->kind = ob.kind;
				cl->wclauses = lappend(cl->wclauses, rinfo);
				cl->wouter_left = lappend_int(cl->wouter_left, outer_left);
				if (ob.bound == WJ_BOUND_START)
					cl->have_start = true;
				else
					cl->have_end = true;
				continue;
			}
		}

		/* hash key? */
		cl->jclauses = lappend(cl->jclauses, rinfo);
		if (rinfo->can_join && OidIsValid(rinfo->hashjoinoperator) &&
			op_strict(((OpExpr *) rinfo->clause)->opno) &&
			clause_sides(rinfo, outer->base->relids, inner->base->relids,
						 &oarg, &iarg, &outer_left))
		{
			cl->kclauses = lappend(cl->kclauses, rinfo);
			cl->kouter_left = lappend_int(cl->kouter_left, outer_left);
		}
	}

	/* the window clauses must identify the window */
	if (cl->wclauses == NIL)
		WJ_REJECT("no window equality between the two sides");
	if (cl->kind == WJ_KIND_COLUMNS && !(cl->have_start && cl->have_end))
		WJ_REJECT("window columns are joined without both window_start and window_end");
	if (cl->kind == WJ_KIND_CUMULATE && !cl->have_end)
		WJ_REJECT("cumulate() windows are joined without window_end");
	return true;
}

/*
 * grouping_clauses
 *		Decides which window clauses GROUP mode groups the rows by (the
 *		values of cl->gclauses).  With TUMBLE one of them identifies the
 *		window (the same size and offset on both sides, so equal starts
 *		mean equal ends and vice versa): the first start (else end)
 *		equality alone, a single sort key.  Otherwise all of them.
 */
static void
grouping_clauses(PlannerInfo *root, RelOptInfo *outerrel,
				 RelOptInfo *innerrel, WjSideInfo *outer, WjJoinClauses *cl)
{
	ListCell   *lc;
	ListCell   *lc2;
	int			pick = 0;
	int			i = 0;

	cl->gclauses = cl->wclauses;
	cl->gouter_left = cl->wouter_left;
	if (cl->kind != WJ_KIND_TUMBLE)
		return;
	forboth(lc, cl->wclauses, lc2, cl->wouter_left)
	{
		Node	   *oarg;
		Node	   *iarg;
		bool		outer_left;
		WjBoundInfo ob;

		clause_sides(lfirst_node(RestrictInfo, lc), outerrel->relids,
					 innerrel->relids, &oarg, &iarg, &outer_left);
		if (window_bound_of(root, outer, oarg, &ob) &&
			ob.bound == WJ_BOUND_START)
		{
			pick = i;
			break;
		}
		i++;
	}
	cl->gclauses = list_make1(list_nth(cl->wclauses, pick));
	cl->gouter_left = list_make1_int(list_nth_int(cl->wouter_left, pick));
}

/*
 * sorted_inputs
 *		Decides the sort order of each input (GROUP: by the grouping
 *		clauses' values; TIME: by the time column) and the cheapest path of
 *		each base relation in that order, sorted by a Sort unless presorted.
 *		False (no path) when there is no such order or path.
 */
static bool
sorted_inputs(PlannerInfo *root, WjMode mode, WjJoinClauses *cl,
			  WjSideInfo *outer, WjSideInfo *inner,
			  List **outer_pk, List **inner_pk,
			  Path **outer_path, Path **inner_path)
{
	if (mode == WJ_MODE_GROUP)
	{
		*outer_pk = window_pathkeys(root, cl->gclauses, cl->gouter_left, true);
		*inner_pk = window_pathkeys(root, cl->gclauses, cl->gouter_left, false);
		if (*outer_pk == NIL || *inner_pk == NIL)
			WJ_REJECT("no sort order of the window clauses");
	}
	else
	{
		*outer_pk = time_pathkeys(root, outer);
		*inner_pk = time_pathkeys(root, inner);
	}
	*outer_path = wj_sorted_input(root, outer->base, *outer_pk);
	*inner_path = wj_sorted_input(root, inner->base, *inner_pk);
	if (*outer_path == NULL || *inner_path == NULL)
		WJ_REJECT("a side has no unparameterized sorted path");
	return true;
}

/*
 * join_state_bytes
 *		The estimated peak state of both sides (see the file header), over
 *		the inputs outer_path and inner_path: the sum of the sides with
 *		statistics of their time column (TIME, or GROUP over TUMBLE; the
 *		size of COLUMNS windows is unknown).  Beyond the hash memory limit
 *		the node spills, which wj_make_join_path costs.
 */
static double
join_state_bytes(PlannerInfo *root, RelOptInfo *outerrel,
				 RelOptInfo *innerrel, WjMode mode, WjJoinClauses *cl,
				 WjSideInfo *outer, WjSideInfo *inner,
				 Path *outer_path, Path *inner_path)
{
	Var		   *otime = NULL;
	Var		   *itime = NULL;
	int64		wsize = 0;
	double		obytes;
	double		ibytes;
	double		state_bytes = 0;

	if (mode == WJ_MODE_TIME)
	{
		otime = outer->time_var;
		itime = inner->time_var;
		wsize = outer->size;
	}
	else if (cl->kind == WJ_KIND_TUMBLE)
	{
		Node	   *oarg;
		Node	   *iarg;
		bool		outer_left;

		if (clause_sides(linitial_node(RestrictInfo, cl->gclauses),
						 outerrel->relids, innerrel->relids,
						 &oarg, &iarg, &outer_left))
		{
			otime = tumble_time_var(oarg);
			itime = tumble_time_var(iarg);
		}
		wsize = cl->first_tumble.size;
	}
	obytes = side_state_bytes(root, outer_path, otime, wsize);
	ibytes = side_state_bytes(root, inner_path, itime, wsize);
	if (obytes >= 0)
		state_bytes += obytes;
	if (ibytes >= 0)
		state_bytes += ibytes;
	return state_bytes;
}

/*
 * windows_per_row
 *		The average number of windows an input row is in: one for TUMBLE
 *		and COLUMNS, size/slide (at least one) for HOP, and for CUMULATE
 *		half the windows of a cycle, plus one half.
 */
static double
windows_per_row(WjWindowKind kind, WjSideInfo *outer)
{
	if (kind == WJ_KIND_HOP)
		return Max(1.0, (double) outer->size / (double) outer->every);
	else if (kind == WJ_KIND_CUMULATE)
		return ((double) (outer->size / outer->every) + 1.0) / 2.0;
	return 1.0;
}

/*
 * make_join_path_info
 *		What every WindowJoin path of this join carries to its plan: the
 *		join type, the mode, the sorted-out clauses, each side's time column
 *		and window columns, and the window's constants (TIME: the sides';
 *		GROUP: the first TUMBLE equality's, NULL for COLUMNS).
 */
static WjPathInfo *
make_join_path_info(JoinType jointype, WjMode mode, WjJoinClauses *cl,
					WjSideInfo *outer, WjSideInfo *inner)
{
	WjPathInfo *pinfo = palloc0(sizeof(WjPathInfo));

	pinfo->jointype = jointype;
	pinfo->mode = mode;
	pinfo->kind = cl->kind;
	pinfo->wclauses = cl->wclauses;
	pinfo->kclauses = cl->kclauses;
	pinfo->kouter_left = cl->kouter_left;
	pinfo->jclauses = cl->jclauses;
	pinfo->oclauses = cl->oclauses;
	pinfo->outer_time = outer->time_var;
	pinfo->inner_time = inner->time_var;
	pinfo->outer_extras = outer->extras;
	pinfo->inner_extras = inner->extras;
	if (mode == WJ_MODE_TIME)
	{
		pinfo->c_every = outer->c_every;
		pinfo->c_size = outer->c_size;
		pinfo->c_offset = outer->c_offset;
	}
	else
	{
		pinfo->c_every = NULL;
		pinfo->c_size = cl->first_tumble.c_size;
		pinfo->c_offset = cl->first_tumble.c_offset;
	}
	pinfo->gclauses = cl->gclauses;
	pinfo->gouter_left = cl->gouter_left;
	return pinfo;
}

/*
 * add_partial_join_path
 *		Decides whether the join gets a partial path, and adds it: each
 *		participant joins its share of the outer rows with all inner rows,
 *		window by window.  Inner, left, semi and anti joins decide per
 *		outer row; right and full joins need every outer row of a window to
 *		tell an unmatched inner row, so they get none.  Each participant's
 *		state holds at most what the serial node holds, so the serial
 *		path's state_bytes covers it.
 */
static void
add_partial_join_path(PlannerInfo *root, RelOptInfo *joinrel,
					  JoinType jointype, WjWindowKind kind,
					  WjSideInfo *outer, WjSideInfo *inner,
					  List *outer_pk, List *inner_pk, double wpr,
					  WjPathInfo *pinfo, List *node_exprs, double state_bytes)
{
	WjPathInfo *ppinfo = pinfo;
	Path	   *outer_path;
	Path	   *inner_path;
	Path	   *obucket;
	Path	   *ibucket;

	if (jointype == JOIN_RIGHT || jointype == JOIN_FULL ||
		!joinrel->consider_parallel)
		return;
	outer_path = wj_partial_outer_input(root, outer->base, outer_pk);
	inner_path = wj_parallel_safe_input(root, inner->base, inner_pk);
	if (kind == WJ_KIND_TUMBLE && outer_path != NULL && inner_path != NULL)
	{
		obucket = wj_window_bucket_input(outer->base->partial_pathlist,
										 outer_pk, false);
		ibucket = wj_window_bucket_input(inner->base->pathlist, inner_pk,
										 true);
		ppinfo = wj_window_bucket_paths(pinfo, obucket, ibucket,
										&outer_path, &inner_path);
	}
	if (outer_path != NULL && inner_path != NULL)
		add_partial_path(joinrel,
						 wj_make_join_path(root, joinrel, jointype,
										   outer_path, inner_path, wpr,
										   ppinfo, node_exprs,
										   state_bytes));
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
	WjJoinClauses cl = {0};
	List	   *outer_pk;
	List	   *inner_pk;
	Path	   *outer_path;
	Path	   *inner_path;
	Path	   *obucket = NULL;
	Path	   *ibucket = NULL;
	WjPathInfo *binfo;
	double		wpr;
	WjPathInfo *pinfo;
	List	   *node_exprs;
	double		state_bytes;

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

	if (!analyse_sides(root, outerrel, innerrel, &outer, &inner, &mode,
					   &cl.kind) ||
		!sort_join_clauses(root, joinrel, outerrel, innerrel, jointype, extra,
						   &outer, &inner, mode, &cl))
		return;
	grouping_clauses(root, outerrel, innerrel, &outer, &cl);
	if (!sorted_inputs(root, mode, &cl, &outer, &inner,
					   &outer_pk, &inner_pk, &outer_path, &inner_path))
		return;

	/*
	 * TUMBLE: a side that would be sorted is grouped by window in the node
	 * instead, where it fits in memory (one window value per row, in
	 * window_join_buckets.c a counting sort).
	 */
	if (cl.kind == WJ_KIND_TUMBLE)
	{
		obucket = wj_window_bucket_input(outer.base->pathlist, outer_pk, false);
		ibucket = wj_window_bucket_input(inner.base->pathlist, inner_pk, false);
	}

	state_bytes = join_state_bytes(root, outerrel, innerrel, mode, &cl,
								   &outer, &inner, outer_path, inner_path);
	wpr = windows_per_row(cl.kind, &outer);
	pinfo = make_join_path_info(jointype, mode, &cl, &outer, &inner);

	node_exprs = list_concat(list_copy(outer.extras), inner.extras);
	binfo = wj_window_bucket_paths(pinfo, obucket, ibucket,
								   &outer_path, &inner_path);
	add_path(joinrel, wj_make_join_path(root, joinrel, jointype, outer_path,
										inner_path, wpr, binfo,
										node_exprs, state_bytes));

	add_partial_join_path(root, joinrel, jointype, cl.kind, &outer, &inner,
						  outer_pk, inner_pk, wpr, pinfo, node_exprs,
						  state_bytes);

	/*
	 * Key-partitioned, any join type: right and full joins can only split
	 * this way; for the others it competes with the partial path (it
	 * splits both sorts but repeats both scans).
	 */
	if (wj_enable_key_partitioning && joinrel->consider_parallel &&
		cl.kclauses != NIL)
		wj_add_keypart_path(root, joinrel, jointype, outer.base, inner.base,
							outer_pk, inner_pk, wpr, pinfo,
							node_exprs, state_bytes);
}
