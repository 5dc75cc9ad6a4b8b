/*-------------------------------------------------------------------------
 *
 * cv_join_analyze.c
 *	  Recognise the query of a continuous join view: a window join, an
 *	  interval join or an as-of join of two tables, and derive the queries
 *	  its refresh runs.
 *
 * A refresh recomputes a join view's rows from the sources by time range,
 * as it does an aggregate view's windows (cv_analyze.c), so what this file
 * has to establish is which rows of which source an output row can depend
 * on:
 *
 *	  window join:	 every output row belongs to one window (the two
 *					 sides' windows are equated), and a window is computed
 *					 exactly from the rows of both sources inside it.  The
 *					 range quals "t >= $1 AND t < $2" go into both windowed
 *					 subqueries; refresh then treats the view as it treats a
 *					 window aggregate (same window arithmetic, same late
 *					 bins).  Any join type, SEMI and ANTI through EXISTS /
 *					 IN, and aggregation over the joined rows are accepted.
 *
 *	  interval join: FROM l [type] JOIN r ON ... AND r.t BETWEEN l.t + lo
 *					 AND l.t + hi.  A matched or left-padded row is
 *					 anchored at l.t and depends on the right rows of
 *					 [l.t + lo, l.t + hi]; a right-padded row (RIGHT, FULL)
 *					 at r.t, on the left rows of [r.t - hi, r.t - lo].
 *
 *	  as-of join:	 FROM p [LEFT] JOIN LATERAL (SELECT ... FROM v WHERE
 *					 ... v.t <= p.t ... ORDER BY v.t DESC LIMIT 1) ON true
 *					 (and the forward and nearest variants).  A row is
 *					 anchored at p.t and depends on versions with v.t - p.t
 *					 in [lo, hi]: hi is 0 backward, the tolerance forward
 *					 and nearest; lo is the tolerance below, or none.
 *
 * For the band joins (interval and as-of) the bounds lo and hi are read
 * from the comparisons of the two time columns ("r.t >= l.t - interval
 * '2 seconds'", BETWEEN, either operand order); a join without both (an
 * as-of join without the upper one) is refused, as its rows would never be
 * final.  The "left query" is the view's query restricted to left rows in
 * [$1, $2) and right rows in [$3, $4) (as-of: none; the lookup bounds
 * itself), with FULL turned into LEFT and RIGHT into INNER, plus the
 * anchor column; the "right query" is RIGHT JOIN restricted to right rows
 * in [$1, $2) and left rows in [$3, $4), keeping only the rows without a
 * left match.  Both are deparsed (cv_query.c) and parsed again at refresh.
 *
 * src/continuous/cv_join_analyze.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/stratnum.h"
#include "catalog/pg_am.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"

#include "src/common/window_arith.h"
#include "src/continuous/cv_shape.h"

/* one windowed source of a window join: FROM src, tumble(src.t, ...) */
typedef struct CvLeaf
{
	Query	   *q;				/* the subquery holding both */
	Index		fnidx;			/* the window function's range table index */
	CvShape		w;				/* its window and source */
} CvLeaf;

/*
 * cv_count_relations
 *		The tables a query reads, in its range table, its subqueries in FROM
 *		and its sublinks.
 */
static bool
cv_count_relations_walker(Node *node, int *n)
{
	if (node == NULL)
		return false;
	if (IsA(node, RangeTblEntry))
	{
		if (((RangeTblEntry *) node)->rtekind == RTE_RELATION)
			(*n)++;
		return false;
	}
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, cv_count_relations_walker,
								 (void *) n, QTW_EXAMINE_RTES_BEFORE);
	return expression_tree_walker(node, cv_count_relations_walker, (void *) n);
}

/*
 * cv_is_join_query
 *		Does the query read more than one table (or one table twice)?
 */
bool
cv_is_join_query(Query *q)
{
	int			n = 0;

	cv_count_relations_walker((Node *) q, &n);
	return n > 1;
}

/*
 * cv_check_join_query
 *		What no join view's query level may use.
 */
static void
cv_check_join_query(Query *q)
{
	cv_check_select(q);
	if (q->hasWindowFuncs)
		cv_unsupported("window functions in a join view", NULL);
}

/* ---------------------------------------------------------------------
 * Window joins
 * ---------------------------------------------------------------------
 */

/* what cv_collect_leaves walks with */
typedef struct CvLeafWalk
{
	List	   *leaves;
} CvLeafWalk;

static void cv_collect_leaves(Query *q, CvLeafWalk *walk);

/* SubLinks of a qualification: their subqueries are walked too */
static bool
cv_sublink_walker(Node *node, CvLeafWalk *walk)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		cv_collect_leaves((Query *) node, walk);
		return false;
	}
	return expression_tree_walker(node, cv_sublink_walker, (void *) walk);
}

/*
 * cv_collect_leaves
 *		Find the windowed sources of q and of its subqueries (in FROM and in
 *		WHERE), adding their range quals ($1, $2) as it goes.  Tables
 *		anywhere else are refused.
 */
static void
cv_collect_leaves(Query *q, CvLeafWalk *walk)
{
	ListCell   *lc;
	Index		i = 0;
	Index		srcidx = 0;
	Index		fnidx = 0;
	int			nrels = 0;

	cv_check_join_query(q);
	if (contain_volatile_functions((Node *) q->targetList))
		cv_unsupported("volatile functions", NULL);

	foreach(lc, q->rtable)
	{
		RangeTblEntry *rte = lfirst(lc);

		i++;
		if (rte->rtekind == RTE_FUNCTION)
		{
			RangeTblFunction *f = list_length(rte->functions) == 1 ?
			linitial(rte->functions) : NULL;

			if (f == NULL || !IsA(f->funcexpr, FuncExpr) ||
				cv_is_tvf(((FuncExpr *) f->funcexpr)->funcid) == NULL || fnidx != 0)
				cv_unsupported("functions in FROM other than tumble, hop and cumulate",
							   NULL);
			fnidx = i;
		}
		else if (rte->rtekind == RTE_RELATION)
		{
			nrels++;
			srcidx = i;
		}
	}

	if (fnidx != 0)
	{
		CvLeaf	   *leaf = palloc0(sizeof(CvLeaf));
		Var		   *timevar;

		/* a windowed source: FROM src, tumble(src.t, ...) [WHERE ...] */
		if (nrels != 1 || list_length(q->jointree->fromlist) != 2 ||
			!IsA(linitial(q->jointree->fromlist), RangeTblRef) ||
			!IsA(lsecond(q->jointree->fromlist), RangeTblRef))
			cv_unsupported("a windowed source other than \"FROM source, window function\"",
						   "Window each side in its own subquery: (SELECT * FROM source, tumble(time_column, ...)) s.");
		leaf->w.source = cv_check_source(rt_fetch(srcidx, q->rtable));
		leaf->q = q;
		leaf->fnidx = fnidx;
		timevar = cv_tvf_params(q, srcidx, fnidx, &leaf->w);
		if (q->hasSubLinks || q->hasAggs || q->groupClause != NIL)
			cv_unsupported("subqueries or aggregates inside a windowed source", NULL);
		cv_add_quals(q, cv_make_range_quals(timevar, 1, 2));
		walk->leaves = lappend(walk->leaves, leaf);
		return;
	}

	foreach(lc, q->rtable)
	{
		RangeTblEntry *rte = lfirst(lc);

		switch (rte->rtekind)
		{
			case RTE_SUBQUERY:
				cv_collect_leaves(rte->subquery, walk);
				break;
			case RTE_RELATION:
				cv_unsupported("a table outside the windowed sources of a window join",
							   "Both sides of a continuous window join read FROM source, tumble(time_column, ...).");
				break;
			case RTE_JOIN:
				break;
			default:
				if (!cv_is_group_rte(rte))
					cv_unsupported("this kind of FROM item in a join view", NULL);
		}
	}
	cv_sublink_walker(q->jointree->quals, walk);
	foreach(lc, q->jointree->fromlist)
		cv_sublink_walker(lfirst(lc), walk);
	if (q->havingQual)
		cv_sublink_walker(q->havingQual, walk);
}

/*
 * cv_trace_window
 *		Which leaves' window column c (1: window_start, 2: window_end) the
 *		expression is, as a bit mask (0: none), through subqueries, join
 *		aliases and COALESCE.  stack holds the query levels, innermost
 *		first.
 */
static int
cv_trace_window(List *stack, Node *expr, int c, List *leaves)
{
	Var		   *var;
	Query	   *q;
	RangeTblEntry *rte;
	ListCell   *lc;

	if (expr == NULL)
		return 0;
	if (IsA(expr, CoalesceExpr))
	{
		int			mask = 0;

		foreach(lc, ((CoalesceExpr *) expr)->args)
		{
			int			m = cv_trace_window(stack, lfirst(lc), c, leaves);

			if (m == 0)
				return 0;
			mask |= m;
		}
		return mask;
	}
	if (!IsA(expr, Var) || ((Var *) expr)->varattno <= 0)
		return 0;
	var = (Var *) expr;
	if (var->varlevelsup >= list_length(stack))
		return 0;
	stack = list_copy_tail(stack, var->varlevelsup);
	q = linitial(stack);
	rte = rt_fetch(var->varno, q->rtable);
	if (rte->rtekind == RTE_FUNCTION)
	{
		int			k = 0;

		foreach(lc, leaves)
		{
			CvLeaf	   *leaf = lfirst(lc);

			if (leaf->q == q && leaf->fnidx == var->varno)
				return var->varattno == c ? (1 << k) : 0;
			k++;
		}
		return 0;
	}
	if (rte->rtekind == RTE_SUBQUERY)
	{
		TargetEntry *tle = get_tle_by_resno(rte->subquery->targetList, var->varattno);

		if (tle == NULL)
			return 0;
		return cv_trace_window(lcons(rte->subquery, stack), (Node *) tle->expr, c, leaves);
	}
	if (rte->rtekind == RTE_JOIN && var->varattno <= list_length(rte->joinaliasvars))
		return cv_trace_window(stack, list_nth(rte->joinaliasvars, var->varattno - 1),
							   c, leaves);
#if PG_VERSION_NUM >= 180000
	if (rte->rtekind == RTE_GROUP)
		return cv_trace_window(stack, list_nth(rte->groupexprs, var->varattno - 1),
							   c, leaves);
#endif
	return 0;
}

/* what cv_window_eqs_walker looks for */
typedef struct CvEqWalk
{
	List	   *stack;
	List	   *leaves;
	bool		found[3];		/* [c]: window column c equated across sides */
} CvEqWalk;

static void cv_window_eqs_query(Query *q, CvEqWalk *walk);

/*
 * cv_note_eq
 *		If a = b equates window column c of two different leaves, note it.
 */
static void
cv_note_eq(CvEqWalk *walk, List *stack_a, Node *a, List *stack_b, Node *b)
{
	for (int c = 1; c <= 2; c++)
	{
		int			ma = cv_trace_window(stack_a, a, c, walk->leaves);
		int			mb = cv_trace_window(stack_b, b, c, walk->leaves);

		if (ma != 0 && mb != 0 && (ma & mb) == 0)
			walk->found[c] = true;
	}
}

/*
 * cv_is_equality
 *		Is opno the equality of a btree operator family, as a merge join
 *		asks (get_mergejoin_opfamilies)?  Not its name: "=" may be anything.
 */
static bool
cv_is_equality(Oid opno)
{
	return get_mergejoin_opfamilies(opno) != NIL;
}

/*
 * cv_window_eqs_walker
 *		Look through a qualification for window_start = window_start and
 *		window_end = window_end between the two sides, including inside
 *		EXISTS and IN subqueries (whose IN test compares with the
 *		subquery's output).
 */
static bool
cv_window_eqs_walker(Node *node, CvEqWalk *walk)
{
	if (node == NULL)
		return false;
	if (IsA(node, OpExpr) && list_length(((OpExpr *) node)->args) == 2 &&
		cv_is_equality(((OpExpr *) node)->opno))
	{
		OpExpr	   *op = (OpExpr *) node;

		cv_note_eq(walk, walk->stack, linitial(op->args), walk->stack, lsecond(op->args));
	}
	if (IsA(node, SubLink))
	{
		SubLink    *sl = (SubLink *) node;
		Query	   *sub = (Query *) sl->subselect;
		List	   *inner = lcons(sub, list_copy(walk->stack));
		List	   *tests = NIL;
		ListCell   *lc;

		/* x = ANY (SELECT y ...): the test's Params are the subquery's output */
		if (sl->testexpr && IsA(sl->testexpr, OpExpr))
			tests = list_make1(sl->testexpr);
		else if (sl->testexpr && is_andclause(sl->testexpr))
			tests = ((BoolExpr *) sl->testexpr)->args;
		foreach(lc, tests)
		{
			OpExpr	   *op = lfirst(lc);
			Node	   *a;
			Node	   *b;

			if (!IsA(op, OpExpr) || list_length(op->args) != 2 ||
				!cv_is_equality(op->opno))
				continue;
			a = linitial(op->args);
			b = lsecond(op->args);
			if (IsA(b, Param) && ((Param *) b)->paramkind == PARAM_SUBLINK)
			{
				TargetEntry *tle = get_tle_by_resno(sub->targetList,
													((Param *) b)->paramid);

				if (tle)
					cv_note_eq(walk, walk->stack, a, inner, (Node *) tle->expr);
			}
		}
		cv_window_eqs_query(sub, walk);
		return false;
	}
	return expression_tree_walker(node, cv_window_eqs_walker, (void *) walk);
}

/*
 * cv_window_eqs_query
 *		The window equalities of a query level and of its subqueries.
 */
static void
cv_window_eqs_query(Query *q, CvEqWalk *walk)
{
	List	   *saved = walk->stack;
	ListCell   *lc;

	walk->stack = lcons(q, list_copy(saved));
	cv_window_eqs_walker((Node *) q->jointree, walk);
	foreach(lc, q->rtable)
	{
		RangeTblEntry *rte = lfirst(lc);

		if (rte->rtekind == RTE_SUBQUERY)
			cv_window_eqs_query(rte->subquery, walk);
	}
	walk->stack = saved;
}

/*
 * cv_analyze_window_join
 *		Two windowed sources with the same window, joined window by window.
 */
static void
cv_analyze_window_join(Query *q, CvShape *shape)
{
	CvLeafWalk walk = {NIL};
	CvEqWalk	eqs;
	CvLeaf	   *a;
	CvLeaf	   *b;
	const char *names[2] = {"window_start", "window_end"};
	Query	   *ranged = copyObject(q);

	if (contain_volatile_functions((Node *) q))
		cv_unsupported("volatile functions", NULL);
	if (q->distinctClause != NIL && q->hasDistinctOn)
		cv_unsupported("DISTINCT ON", NULL);
	if (q->sortClause != NIL)
		cv_unsupported("ORDER BY", "Order the rows when reading the view.");
	if (q->limitCount != NULL || q->limitOffset != NULL)
		cv_unsupported("LIMIT or OFFSET", NULL);
	if (q->hasAggs && q->groupClause == NIL)
		cv_unsupported("aggregates without GROUP BY window_start, window_end",
					   "Group by window_start and window_end (and any keys).");

	cv_collect_leaves(ranged, &walk);
	if (list_length(walk.leaves) != 2)
		cv_unsupported("a join view without exactly two windowed sources",
					   "A continuous window join reads two sources, each FROM source, tumble(time_column, ...).");
	a = linitial(walk.leaves);
	b = lsecond(walk.leaves);
	if (strcmp(a->w.kind, b->w.kind) != 0 ||
		!DatumGetBool(DirectFunctionCall2(interval_eq, a->w.size, b->w.size)) ||
		!DatumGetBool(DirectFunctionCall2(interval_eq, a->w.offset, b->w.offset)) ||
		(a->w.has_stride &&
		 !DatumGetBool(DirectFunctionCall2(interval_eq, a->w.stride, b->w.stride))))
		cv_unsupported("a window join of different windows",
					   "Both sides use the same window function with the same size, slide or step and offset.");
	if (a->w.timetype != b->w.timetype)
		cv_unsupported("a window join of a timestamp and a timestamptz time column", NULL);

	/* the select list: window_start and window_end, from the windows */
	for (int c = 0; c < 2; c++)
	{
		TargetEntry *tle = q->groupClause != NIL ?
		cv_require_window_column(ranged, names[c]) :
		cv_output_column(ranged, names[c]);

		if (tle == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("the query of a continuous view must return a column named %s", names[c]),
					 errhint("Select COALESCE(l.%s, r.%s) AS %s.", names[c], names[c], names[c])));
		if (cv_trace_window(list_make1(ranged), (Node *) tle->expr, c + 1, walk.leaves) == 0)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("column %s of a continuous join view must be the windows' %s",
							names[c], names[c])));
	}

	/* ... and the windows equated, so that a row belongs to one window */
	memset(&eqs, 0, sizeof(eqs));
	eqs.leaves = walk.leaves;
	cv_window_eqs_query(ranged, &eqs);
	if (!eqs.found[1] || !eqs.found[2])
		cv_unsupported("a join of two windowed sources that does not equate their windows",
					   "Join on l.window_start = r.window_start AND l.window_end = r.window_end.");

	*shape = a->w;
	shape->join = "window";
	shape->source2 = b->w.source;
	shape->timeattno2 = b->w.timeattno;
	shape->ranged = ranged;
	shape->jointype = "inner";
	if (list_length(q->jointree->fromlist) == 1 &&
		IsA(linitial(q->jointree->fromlist), JoinExpr))
	{
		JoinType	jt = ((JoinExpr *) linitial(q->jointree->fromlist))->jointype;

		shape->jointype = jt == JOIN_LEFT ? "left" : jt == JOIN_RIGHT ? "right" :
			jt == JOIN_FULL ? "full" : "inner";
	}
	else if (q->hasSubLinks)
		shape->jointype = is_notclause(q->jointree->quals) ||
			(is_andclause(q->jointree->quals) &&
			 is_notclause(llast(((BoolExpr *) q->jointree->quals)->args))) ? "anti" : "semi";
}

/* ---------------------------------------------------------------------
 * Interval and as-of joins
 * ---------------------------------------------------------------------
 */

/* a time operand: column + constant */
typedef struct CvTimeOperand
{
	Var		   *var;
	int64		usecs;
	int64		slack;			/* days of a timestamptz: DST may add an hour */
} CvTimeOperand;

/*
 * cv_time_operand
 *		expr as a time column plus a constant interval (col, col + c,
 *		col - c); false if it is not one.
 */
static bool
cv_time_operand(Node *expr, CvTimeOperand *op)
{
	memset(op, 0, sizeof(*op));
	while (IsA(expr, RelabelType))
		expr = (Node *) ((RelabelType *) expr)->arg;
	if (IsA(expr, Var))
	{
		op->var = (Var *) expr;
		return op->var->varattno > 0 &&
			(op->var->vartype == TIMESTAMPOID || op->var->vartype == TIMESTAMPTZOID);
	}
	if (IsA(expr, OpExpr) && list_length(((OpExpr *) expr)->args) == 2)
	{
		OpExpr	   *o = (OpExpr *) expr;
		Oid			fn = get_opcode(o->opno);
		int			sign;
		Node	   *c;
		Interval   *iv;

		if (fn == F_TIMESTAMP_PL_INTERVAL || fn == F_TIMESTAMPTZ_PL_INTERVAL)
			sign = 1;
		else if (fn == F_TIMESTAMP_MI_INTERVAL || fn == F_TIMESTAMPTZ_MI_INTERVAL)
			sign = -1;
		else
			return false;
		if (!IsA(linitial(o->args), Var))
			return false;
		c = eval_const_expressions(NULL, lsecond(o->args));
		if (!IsA(c, Const) || ((Const *) c)->constisnull)
			return false;
		iv = DatumGetIntervalP(((Const *) c)->constvalue);
		if (iv->month != 0)
			cv_unsupported("a time bound with months or years", NULL);
		op->var = linitial(o->args);
		op->usecs = sign * (iv->time + (int64) iv->day * USECS_PER_DAY);
		if (iv->day != 0 && fn != F_TIMESTAMP_PL_INTERVAL && fn != F_TIMESTAMP_MI_INTERVAL)
			op->slack = USECS_PER_HOUR;
		return op->var->varattno > 0;
	}
	return false;
}

/* the bounds found on (right time - left time) */
typedef struct CvBand
{
	Var		   *lvar;			/* the left (anchor) time column */
	Var		   *rvar;			/* the right one */
	bool		has_lo;
	bool		has_hi;
	int64		lo;
	int64		hi;
} CvBand;

/*
 * cv_band_clause
 *		If clause compares a time column of the left side (range table
 *		index lidx at level llevel) with one of the right side (ridx at level
 *		rlevel), tighten band's bounds on r - l.
 */
static void
cv_band_clause(Node *clause, Index lidx, Index llevel, Index ridx, Index rlevel,
			   CvBand *band)
{
	OpExpr	   *op;
	CvTimeOperand x;
	CvTimeOperand y;
	Oid			opfamily;
	int			strategy;
	bool		x_is_left;
	int64		c;
	int64		slack;
	bool		lower;			/* a lower bound on r - l? */

	if (!IsA(clause, OpExpr) || list_length(((OpExpr *) clause)->args) != 2)
		return;
	op = (OpExpr *) clause;
	if (!cv_time_operand(linitial(op->args), &x) || !cv_time_operand(lsecond(op->args), &y))
		return;
	if (x.var->vartype != y.var->vartype)
		return;
	if (x.var->varno == lidx && x.var->varlevelsup == llevel &&
		y.var->varno == ridx && y.var->varlevelsup == rlevel)
		x_is_left = true;
	else if (y.var->varno == lidx && y.var->varlevelsup == llevel &&
			 x.var->varno == ridx && x.var->varlevelsup == rlevel)
		x_is_left = false;
	else
		return;
	opfamily = get_opclass_family(GetDefaultOpClass(x.var->vartype, BTREE_AM_OID));
	strategy = get_op_opfamily_strategy(op->opno, opfamily);
	if (strategy == 0 || strategy == BTEqualStrategyNumber)
		return;

	/*
	 * One time column pair only: the first pair compared.  (Other pairs are
	 * further filters; the band of this one bounds what a row depends on.)
	 */
	{
		Var		   *lv = x_is_left ? x.var : y.var;
		Var		   *rv = x_is_left ? y.var : x.var;

		if (band->lvar == NULL)
		{
			band->lvar = lv;
			band->rvar = rv;
		}
		else if (band->lvar->varattno != lv->varattno || band->rvar->varattno != rv->varattno)
			return;
	}

	/*
	 * x.var + x.c  op  y.var + y.c.  With x the left: r - l op' (x.c - y.c)
	 * where op' is op reversed; with x the right: r - l op (y.c - x.c).
	 */
	slack = x.slack + y.slack;
	if (x_is_left)
	{
		c = x.usecs - y.usecs;
		lower = (strategy == BTLessStrategyNumber || strategy == BTLessEqualStrategyNumber);
	}
	else
	{
		c = y.usecs - x.usecs;
		lower = (strategy == BTGreaterStrategyNumber ||
				 strategy == BTGreaterEqualStrategyNumber);
	}
	if (lower)
	{
		c -= slack;
		if (!band->has_lo || c > band->lo)
			band->lo = c;
		band->has_lo = true;
	}
	else
	{
		c += slack;
		if (!band->has_hi || c < band->hi)
			band->hi = c;
		band->has_hi = true;
	}
}

/*
 * cv_band_quals
 *		cv_band_clause over every ANDed clause of quals, at any depth.
 */
static void
cv_band_quals(Node *quals, Index lidx, Index llevel, Index ridx, Index rlevel,
			  CvBand *band)
{
	ListCell   *lc;

	if (quals == NULL)
		return;
	if (is_andclause(quals))
	{
		/* nested ANDs too: BETWEEN is one */
		foreach(lc, ((BoolExpr *) quals)->args)
			cv_band_quals(lfirst(lc), lidx, llevel, ridx, rlevel, band);
		return;
	}
	cv_band_clause(quals, lidx, llevel, ridx, rlevel, band);
}

/*
 * cv_level0
 *		A time column as a Var of range table entry varno at level 0.
 */
static Var *
cv_level0(Var *var, Index varno)
{
	return makeVar(varno, var->varattno, var->vartype, var->vartypmod,
				   var->varcollid, 0);
}

/*
 * cv_add_anchor
 *		Append the anchor columns: the time var, and with a right part
 *		whether the row is a right row's.
 */
static void
cv_add_anchor(Query *q, Var *var, bool with_side, bool right)
{
	int			resno = list_length(q->targetList) + 1;

	q->targetList = lappend(q->targetList,
							makeTargetEntry((Expr *) var, resno,
											pstrdup(CV_ANCHOR_COLUMN), false));
	if (with_side)
		q->targetList = lappend(q->targetList,
								makeTargetEntry((Expr *) makeBoolConst(right, false),
												resno + 1,
												pstrdup(CV_ANCHOR_RIGHT_COLUMN), false));
}

/*
 * cv_join_quals_add
 *		AND quals into a JoinExpr's ON clause.
 */
static void
cv_join_quals_add(JoinExpr *j, Node *quals)
{
	j->quals = j->quals == NULL ? quals :
		(Node *) make_andclause(list_make2(quals, j->quals));
}

/* the two sides of an interval or as-of join view's query */
typedef struct CvBandSides
{
	JoinExpr   *j;				/* NULL: FROM l, r */
	Index		lidx;
	Index		ridx;
	JoinType	jt;
} CvBandSides;

/*
 * cv_band_join_checks
 *		What no interval or as-of join view may have: aggregates, volatile
 *		functions, a column named as the view's own anchor columns.
 */
static void
cv_band_join_checks(Query *q)
{
	ListCell   *lc;

	cv_check_join_query(q);
	cv_check_plain_query(q);
	if (q->hasAggs || q->groupClause != NIL || q->havingQual != NULL)
		cv_unsupported("aggregates over an interval or as-of join",
					   "Aggregate over a window join, or over the view's table.");
	if (contain_volatile_functions((Node *) q))
		cv_unsupported("volatile functions", NULL);
	foreach(lc, q->targetList)
	{
		TargetEntry *tle = lfirst(lc);

		if (tle->resname && (strcmp(tle->resname, CV_ANCHOR_COLUMN) == 0 ||
							 strcmp(tle->resname, CV_ANCHOR_RIGHT_COLUMN) == 0))
			ereport(ERROR,
					(errcode(ERRCODE_DUPLICATE_COLUMN),
					 errmsg("column name \"%s\" is reserved in a continuous join view",
							tle->resname),
					 errhint("The view adds a column of that name; rename yours.")));
	}
}

/*
 * cv_band_join_sides
 *		FROM l JOIN r ON ..., or FROM l, r: the two sides and the join type.
 */
static void
cv_band_join_sides(Query *q, CvBandSides *sides)
{
	List	   *from = q->jointree->fromlist;

	memset(sides, 0, sizeof(*sides));
	sides->jt = JOIN_INNER;
	if (list_length(from) == 1 && IsA(linitial(from), JoinExpr))
	{
		sides->j = linitial(from);
		if (!IsA(sides->j->larg, RangeTblRef) || !IsA(sides->j->rarg, RangeTblRef))
			cv_unsupported("a join of more than two tables", NULL);
		sides->lidx = ((RangeTblRef *) sides->j->larg)->rtindex;
		sides->ridx = ((RangeTblRef *) sides->j->rarg)->rtindex;
		sides->jt = sides->j->jointype;
	}
	else if (list_length(from) == 2 && IsA(linitial(from), RangeTblRef) &&
			 IsA(lsecond(from), RangeTblRef))
	{
		sides->lidx = linitial_node(RangeTblRef, from)->rtindex;
		sides->ridx = lsecond_node(RangeTblRef, from)->rtindex;
	}
	else
		cv_unsupported("a join view other than \"l JOIN r\" of two tables",
					   "Write FROM l [LEFT|RIGHT|FULL] JOIN r ON ..., or FROM l [LEFT] JOIN LATERAL (...) r ON true.");
	if (sides->jt != JOIN_INNER && sides->jt != JOIN_LEFT &&
		sides->jt != JOIN_RIGHT && sides->jt != JOIN_FULL)
		cv_unsupported("this join type", NULL);
}

/*
 * cv_band_join_right
 *		The right side: an as-of lookup (LATERAL (SELECT ... FROM v WHERE
 *		... ORDER BY ... LIMIT 1)) with an upper bound on the version time,
 *		or a table with a time band bounded both ways.  Sets the right
 *		source, the band and the join's kind.
 */
static void
cv_band_join_right(Query *q, const CvBandSides *sides, CvShape *shape, CvBand *band)
{
	RangeTblEntry *rrte = rt_fetch(sides->ridx, q->rtable);

	if (rrte->rtekind == RTE_SUBQUERY)
	{
		Query	   *sq = rrte->subquery;
		RangeTblRef *vref;

		if (!rrte->lateral || sq->limitCount == NULL || sq->sortClause == NIL)
			cv_unsupported("a subquery in FROM other than an as-of lookup",
						   "Write JOIN LATERAL (SELECT ... FROM versions v WHERE v.key = l.key AND v.t <= l.t ORDER BY v.t DESC LIMIT 1) r ON true.");
		if (sides->jt != JOIN_INNER && sides->jt != JOIN_LEFT)
			cv_unsupported("as-of joins other than inner and LEFT", NULL);
		if (sq->hasAggs || sq->groupClause != NIL || sq->hasSubLinks ||
			sq->cteList != NIL || sq->setOperations != NULL ||
			list_length(sq->jointree->fromlist) != 1 ||
			!IsA(linitial(sq->jointree->fromlist), RangeTblRef))
			cv_unsupported("an as-of lookup other than one table's versions", NULL);
		vref = linitial(sq->jointree->fromlist);
		shape->source2 = cv_check_source(rt_fetch(vref->rtindex, sq->rtable));
		cv_band_quals(sq->jointree->quals, sides->lidx, 1, vref->rtindex, 0, band);
		if (band->lvar == NULL || !band->has_hi)
			cv_unsupported("an as-of join without an upper bound on the version time",
						   "A backward lookup has v.t <= l.t; a forward or nearest one needs a tolerance, e.g. v.t <= l.t + interval '1 minute'.");
		shape->join = "asof";
		return;
	}

	shape->source2 = cv_check_source(rrte);
	if (sides->j != NULL)
		cv_band_quals(sides->j->quals, sides->lidx, 0, sides->ridx, 0, band);
	if (sides->jt == JOIN_INNER)
		cv_band_quals(q->jointree->quals, sides->lidx, 0, sides->ridx, 0, band);
	if (band->lvar == NULL || !band->has_lo || !band->has_hi)
		cv_unsupported("a join of two tables without a time band",
					   "An interval join bounds the time difference both ways, e.g. r.t BETWEEN l.t - interval '2 seconds' AND l.t + interval '2 seconds'.");
	if (band->lo > band->hi)
		cv_unsupported("an interval join whose time band is empty", NULL);
	shape->join = "interval";
}

/*
 * cv_band_ranged_queries
 *		The left query: left rows of [$1, $2) in WHERE, right rows of
 *		[$3, $4) in the ON clause (for LEFT, the nullable side's),
 *		right-padded rows left out.  And for RIGHT and FULL joins the right
 *		query: right rows of [$1, $2) without a left match.
 */
static void
cv_band_ranged_queries(Query *q, const CvBandSides *sides, const CvBand *band,
					   CvShape *shape)
{
	Query	   *lq = copyObject(q);
	JoinExpr   *lj = sides->j ? linitial(lq->jointree->fromlist) : NULL;
	Var		   *lvar = cv_level0(band->lvar, sides->lidx);
	JoinType	jt = sides->jt;

	if (lj && lj->jointype == JOIN_FULL)
		lj->jointype = JOIN_LEFT;
	else if (lj && lj->jointype == JOIN_RIGHT)
		lj->jointype = JOIN_INNER;
	cv_add_quals(lq, cv_make_range_quals(lvar, 1, 2));
	if (strcmp(shape->join, "interval") == 0)
	{
		Node	   *rq = cv_make_range_quals(cv_level0(band->rvar, sides->ridx), 3, 4);

		if (lj)
			cv_join_quals_add(lj, rq);
		else
			cv_add_quals(lq, rq);
	}
	cv_add_anchor(lq, copyObject(lvar), jt == JOIN_RIGHT || jt == JOIN_FULL, false);
	shape->ranged = lq;

	if (jt == JOIN_RIGHT || jt == JOIN_FULL)
	{
		Query	   *rq = copyObject(q);
		JoinExpr   *rj = linitial(rq->jointree->fromlist);
		Var		   *rvar = cv_level0(band->rvar, sides->ridx);
		NullTest   *nt = makeNode(NullTest);

		rj->jointype = JOIN_RIGHT;
		cv_add_quals(rq, cv_make_range_quals(rvar, 1, 2));
		cv_join_quals_add(rj, cv_make_range_quals(cv_level0(band->lvar, sides->lidx), 3, 4));
		nt->arg = (Expr *) cv_level0(band->lvar, sides->lidx);
		nt->nulltesttype = IS_NULL;
		nt->argisrow = false;
		nt->location = -1;
		cv_add_quals(rq, (Node *) nt);
		cv_add_anchor(rq, copyObject(rvar), true, true);
		shape->ranged_right = rq;
	}
}

/*
 * cv_analyze_band_join
 *		An interval join of two tables or an as-of join of a table with a
 *		LATERAL lookup.
 */
static void
cv_analyze_band_join(Query *q, CvShape *shape)
{
	CvBandSides sides;
	CvBand		band;
	JoinType	jt;

	cv_band_join_checks(q);
	cv_band_join_sides(q, &sides);
	jt = sides.jt;
	shape->source = cv_check_source(rt_fetch(sides.lidx, q->rtable));
	memset(&band, 0, sizeof(band));
	cv_band_join_right(q, &sides, shape, &band);

	shape->kind = shape->join;
	shape->timeattno = band.lvar->varattno;
	shape->timetype = band.lvar->vartype;
	shape->timeattno2 = band.rvar->varattno;
	shape->has_band_lo = band.has_lo;
	shape->band_lo = band.lo;
	shape->band_hi = band.hi;
	shape->srcidx = sides.lidx;
	shape->jointype = jt == JOIN_LEFT ? "left" : jt == JOIN_RIGHT ? "right" :
		jt == JOIN_FULL ? "full" : "inner";
	cv_band_ranged_queries(q, &sides, &band, shape);
}

/*
 * cv_analyze_join
 *		See the file header: a window join when windows are in FROM, an
 *		interval or as-of join otherwise.
 */
void
cv_analyze_join(Query *q, CvShape *shape)
{
	bool		windowed = false;
	ListCell   *lc;

	memset(shape, 0, sizeof(*shape));
	foreach(lc, q->rtable)
	{
		RangeTblEntry *rte = lfirst(lc);

		if (rte->rtekind == RTE_FUNCTION)
			cv_unsupported("joins or more than one table",
						   "A continuous view reads one table and one window function; a window join windows each side in its own subquery.");
		if (rte->rtekind == RTE_SUBQUERY && !rte->lateral)
		{
			ListCell   *lc2;

			foreach(lc2, rte->subquery->rtable)
				if (((RangeTblEntry *) lfirst(lc2))->rtekind == RTE_FUNCTION)
					windowed = true;
		}
	}
	if (windowed)
		cv_analyze_window_join(q, shape);
	else
		cv_analyze_band_join(q, shape);
	if (shape->timetype != TIMESTAMPOID && shape->timetype != TIMESTAMPTZOID)
		cv_unsupported("a time column that is not timestamp or timestamptz", NULL);
	if (strcmp(shape->join, "window") != 0 &&
		get_atttype(shape->source2, shape->timeattno2) != shape->timetype)
		cv_unsupported("a join of a timestamp and a timestamptz time column", NULL);
}
