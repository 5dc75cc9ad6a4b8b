/*-------------------------------------------------------------------------
 *
 * cv_panes.c
 *	  Pane partial states of a continuous hop or cumulate view: the pane
 *	  table's columns, the query that fills it and the query that combines
 *	  its rows into the view's windows.
 *
 * A hop window of size 5 min sliding by 1 min is the union of five 1-min
 * panes, and a cumulate window is the union of the panes of its period up
 * to its end.  When every aggregate of the view combines exactly from
 * per-pane partial results, a refresh keeps one row per group and pane in
 * a table of its own and emits a window by combining its panes, instead
 * of reading every source row of the window again:
 *
 *	  view:	   SELECT item, window_start, window_end, count(*), sum(price),
 *					  avg(qty), max(price)
 *				 FROM bids, hop(bidtime, '1 min', '5 min') ... GROUP BY ...
 *	  pane:	   SELECT item AS k1, window_start AS pane_start, count(*) AS p1,
 *					  sum(price) AS p2, sum(qty) AS p3, count(qty) AS p4,
 *					  max(price) AS p5
 *				 FROM bids, tumble(bidtime, '1 min') WHERE <the view's WHERE>
 *				  AND bidtime >= $1 AND bidtime < $2 GROUP BY k1, pane_start
 *	  combine: SELECT k1 AS item, window_start, window_end, sum(p1)::bigint,
 *					  sum(p2), numeric_div(sum(p3), sum(p4)), max(p5)
 *				 FROM panes p, hop(p.pane_start, '1 min', '5 min')
 *				WHERE pane_start >= $1 AND pane_start < $2 GROUP BY ...
 *				[HAVING <the view's HAVING over the same combined values>]
 *
 * A session view keeps its open sessions the same way, one row each (its
 * partition keys, first row's time, last row's time plus the gap, and the
 * partials): the pane query computes session fragments from the rows in a
 * time range, the merge query (text, below) merges fragments per partition
 * into sessions by gaps and islands, and the combine query reads one row
 * per session.  A session's rows may be split between fragments but not
 * filtered out of one, so a view with a WHERE above the session() call, or
 * grouped by other than its PARTITION BY columns, has no fragments.
 *
 * The queries are the view's query tree transformed (the window function
 * swapped, the aggregates replaced, the grouping keys made pane columns)
 * and deparsed, so every expression of the select list and HAVING is kept
 * as the user wrote it.  The combining rules are exact for the aggregates
 * below; floating-point sums are not (addition order), and DISTINCT,
 * ORDER BY inside an aggregate, ordered-set and any other aggregate make
 * the view one without panes: its refresh reads the source rows of the
 * windows it emits (windowjoin--0.2--0.3.sql).
 *
 *	  count(*), count(x)			 partial count, combined by sum()::bigint
 *	  sum(int2|int4)				 partial sum (bigint), sum()::bigint
 *	  sum(int8|numeric)			 partial sum (numeric), sum()
 *	  avg(int2|int4|int8|numeric)	 partial sum and count, the numeric
 *									 quotient of their sums (as avg's final
 *									 function computes it)
 *	  min, max, bool_and, bool_or,	 the same aggregate over the partials
 *	  every
 *
 * src/continuous/cv_panes.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_class.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "optimizer/tlist.h"
#include "parser/parse_func.h"
#include "parser/parse_oper.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/ruleutils.h"
#include "utils/timestamp.h"

#include "src/common/agg_exact.h"
#include "src/continuous/cv_shape.h"

/* how one aggregate of the view's query is kept in pane columns */
typedef enum CvPartialKind
{
	CVP_COUNT,					/* count: summed, cast back to bigint */
	CVP_SUM_INT,				/* sum(int2|int4): bigint partials, likewise */
	CVP_SUM,					/* sum(int8|numeric): numeric partials, summed */
	CVP_AVG,					/* avg: a sum and a count */
	CVP_SAME					/* min, max, bool_and, bool_or, every */
} CvPartialKind;

/* the pane decomposition of a view's query */
typedef struct CvPanes
{
	bool		session;		/* a session view: fragments of sessions */
	Node	   *wstart;			/* session: the window_start expression */
	Node	   *wend;			/* session: the window_end expression */
	int			nwin;			/* window columns: pane_start[, pane_end] */
	List	   *keys;			/* grouping expressions over the source */
	List	   *aggs;			/* distinct Aggrefs of select list and HAVING */
	List	   *kinds;			/* their CvPartialKind (int list) */
	List	   *firstcol;		/* their first pane column (int list) */
	int			ncols;			/* keys, pane_start and partials */
} CvPanes;

/*
 * cv_interval_usecs
 *		An interval without months, in microseconds.
 */
static int64
cv_interval_usecs(Datum iv)
{
	Interval   *i = DatumGetIntervalP(iv);

	return i->time + (int64) i->day * USECS_PER_DAY;
}

/*
 * cv_partial_kind
 *		How an aggregate is kept in panes, or -1 if it does not combine
 *		exactly.
 */
static int
cv_partial_kind(Aggref *agg)
{
	if (agg->aggdistinct != NIL || agg->aggorder != NIL ||
		agg->aggkind != AGGKIND_NORMAL || agg->agglevelsup != 0 ||
		agg->aggdirectargs != NIL)
		return -1;
	switch (agg->aggfnoid)
	{
		case F_COUNT_:
		case F_COUNT_ANY:
			return CVP_COUNT;
		case F_SUM_INT2:
		case F_SUM_INT4:
			return CVP_SUM_INT;
		case F_SUM_INT8:
		case F_SUM_NUMERIC:
			return CVP_SUM;
		case F_AVG_INT2:
		case F_AVG_INT4:
		case F_AVG_INT8:
		case F_AVG_NUMERIC:
			return CVP_AVG;
		case F_BOOL_AND:
		case F_BOOL_OR:
		case F_EVERY:
			return CVP_SAME;
	}
	/* min and max of any type: a pane's is one of its rows' values */
	if (list_length(agg->args) == 1 && wj_agg_combines_exactly(agg->aggfnoid) &&
		wj_agg_picks_one(agg->aggfnoid))
		return CVP_SAME;
	return -1;
}

/*
 * cv_collect_aggs_walker
 *		Collect the distinct Aggrefs of an expression tree.
 */
static bool
cv_collect_aggs_walker(Node *node, List **aggs)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref))
	{
		if (!list_member(*aggs, node))
			*aggs = lappend(*aggs, node);
		return false;
	}
	return expression_tree_walker(node, cv_collect_aggs_walker, (void *) aggs);
}

/* context of cv_stray_var_walker */
typedef struct CvStrayContext
{
	Query	   *q;
	List	   *covered;		/* the keys (and a session's window columns) */
	Index		srcidx;
} CvStrayContext;

/*
 * cv_stray_var_walker
 *		Does the expression read a source column outside an aggregate and
 *		outside the grouping keys (a column functionally dependent on a
 *		grouped primary key; a session's window_time)?
 */
static bool
cv_stray_var_walker(Node *node, CvStrayContext *cxt)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref))
		return false;
	if (list_member(cxt->covered, cv_ungroup(cxt->q, node)))
		return false;
	if (IsA(node, Var) && ((Var *) node)->varlevelsup == 0)
	{
		Node	   *expr = cv_ungroup(cxt->q, node);

		if (expr != node)
			return cv_stray_var_walker(expr, cxt);
		return ((Var *) node)->varno == cxt->srcidx;
	}
	return expression_tree_walker(node, cv_stray_var_walker, (void *) cxt);
}

/*
 * cv_window_tle_expr
 *		The expression of the output column name (window_start or
 *		window_end), as grouped.
 */
static Node *
cv_window_tle_expr(Query *q, const char *name)
{
	TargetEntry *tle = cv_output_column(q, name);

	if (tle == NULL)
		elog(ERROR, "continuous view without column %s", name);
	return cv_ungroup(q, (Node *) tle->expr);
}

/*
 * cv_plan_session_keys
 *		A session view's grouping keys: its PARTITION BY columns, each
 *		exactly once, besides window_start and window_end.  Fragments of a
 *		session are merged per partition, so other keys (which could split
 *		a session's rows) and a WHERE above the session() call (which could
 *		remove every row of a fragment that bridges two others) leave the
 *		view without panes.
 */
static bool
cv_plan_session_keys(Query *q, CvShape *shape, CvPanes *panes)
{
	ListCell   *lc;
	Bitmapset  *seen = NULL;

	if (q->jointree->quals != NULL || list_member_int(shape->partattnos, 0))
		return false;
	panes->session = true;
	panes->nwin = 2;
	panes->wstart = cv_window_tle_expr(q, "window_start");
	panes->wend = cv_window_tle_expr(q, "window_end");
	foreach(lc, q->groupClause)
	{
		TargetEntry *tle = get_sortgroupclause_tle(lfirst(lc), q->targetList);
		Node	   *expr = cv_ungroup(q, (Node *) tle->expr);
		Var		   *var = (Var *) expr;

		if (equal(expr, panes->wstart) || equal(expr, panes->wend))
			continue;
		if (!IsA(expr, Var) || var->varno != shape->srcidx ||
			var->varlevelsup != 0 ||
			!list_member_int(shape->partattnos, var->varattno) ||
			bms_is_member(var->varattno, seen))
			return false;
		seen = bms_add_member(seen, var->varattno);
		panes->keys = lappend(panes->keys, expr);
	}
	return bms_num_members(seen) == list_length(shape->partattnos);
}

/*
 * cv_plan_panes
 *		The pane decomposition of the view's query, or false if it has none.
 */
static bool
cv_plan_panes(Query *q, CvShape *shape, CvPanes *panes)
{
	ListCell   *lc;
	int			col;
	CvStrayContext stray;

	memset(panes, 0, sizeof(*panes));
	if (strcmp(shape->kind, "session") == 0)
	{
		if (!cv_plan_session_keys(q, shape, panes))
			return false;
	}
	else
	{
		if (strcmp(shape->kind, "hop") != 0 && strcmp(shape->kind, "cumulate") != 0)
			return false;
		if (cv_interval_usecs(shape->stride) <= 0 ||
			cv_interval_usecs(shape->size) % cv_interval_usecs(shape->stride) != 0)
			return false;
		panes->nwin = 1;

		/* grouping keys: over the source alone, or over the window alone */
		foreach(lc, q->groupClause)
		{
			SortGroupClause *sgc = lfirst(lc);
			TargetEntry *tle = get_sortgroupclause_tle(sgc, q->targetList);
			Node	   *expr = cv_ungroup(q, (Node *) tle->expr);
			Relids		rels = pull_varnos(NULL, expr);

			if (bms_is_member(shape->fnidx, rels))
			{
				if (bms_is_member(shape->srcidx, rels))
					return false;
				continue;
			}
			panes->keys = lappend(panes->keys, expr);
		}
	}

	cv_collect_aggs_walker((Node *) q->targetList, &panes->aggs);
	cv_collect_aggs_walker(q->havingQual, &panes->aggs);
	col = list_length(panes->keys) + panes->nwin + 1;
	foreach(lc, panes->aggs)
	{
		int			kind = cv_partial_kind(lfirst(lc));

		if (kind < 0)
			return false;
		panes->kinds = lappend_int(panes->kinds, kind);
		panes->firstcol = lappend_int(panes->firstcol, col);
		col += (kind == CVP_AVG) ? 2 : 1;
	}
	panes->ncols = col - 1;

	stray.q = q;
	stray.covered = list_copy(panes->keys);
	if (panes->session)
		stray.covered = lappend(lappend(stray.covered, panes->wstart), panes->wend);
	stray.srcidx = shape->srcidx;
	if (cv_stray_var_walker((Node *) q->targetList, &stray) ||
		cv_stray_var_walker(q->havingQual, &stray))
		return false;
	return true;
}

/*
 * cv_partial_aggs
 *		The partial aggregates of one aggregate of the view: itself, or for
 *		avg() a sum and a count of its argument.
 */
static List *
cv_partial_aggs(Aggref *agg, int kind)
{
	Aggref	   *sum;
	Aggref	   *count;

	if (kind != CVP_AVG)
		return list_make1(copyObject(agg));
	sum = copyObject(agg);
	count = copyObject(agg);
	switch (agg->aggfnoid)
	{
		case F_AVG_INT2:
			sum->aggfnoid = F_SUM_INT2;
			sum->aggtype = INT8OID;
			break;
		case F_AVG_INT4:
			sum->aggfnoid = F_SUM_INT4;
			sum->aggtype = INT8OID;
			break;
		case F_AVG_INT8:
			sum->aggfnoid = F_SUM_INT8;
			sum->aggtype = NUMERICOID;
			break;
		default:
			sum->aggfnoid = F_SUM_NUMERIC;
			sum->aggtype = NUMERICOID;
			break;
	}
	count->aggfnoid = F_COUNT_ANY;
	count->aggtype = INT8OID;
	return list_make2(sum, count);
}

/*
 * cv_pane_column_names
 *		k1..kn, pane_start[, pane_end], p1..pm.
 */
static List *
cv_pane_column_names(CvPanes *panes)
{
	List	   *names = NIL;
	int			nkeys = list_length(panes->keys);

	for (int i = 1; i <= panes->ncols; i++)
	{
		if (i <= nkeys)
			names = lappend(names, makeString(psprintf("k%d", i)));
		else if (i == nkeys + 1)
			names = lappend(names, makeString(pstrdup("pane_start")));
		else if (i == nkeys + 2 && panes->nwin == 2)
			names = lappend(names, makeString(pstrdup("pane_end")));
		else
			names = lappend(names, makeString(psprintf("p%d", i - nkeys - panes->nwin)));
	}
	return names;
}

/*
 * cv_window_exprs
 *		What the pane query computes as pane_start (and pane_end).
 */
static List *
cv_window_exprs(CvPanes *panes, CvShape *shape)
{
	if (panes->session)
		return list_make2(copyObject(panes->wstart), copyObject(panes->wend));
	return list_make1(makeVar(shape->fnidx, 1, shape->timetype, -1, InvalidOid, 0));
}

/*
 * cv_pane_columns
 *		See cv_shape.h.
 */
char *
cv_pane_columns(Query *q, CvShape *shape)
{
	CvPanes		panes;
	StringInfoData buf;
	List	   *names;
	List	   *exprs = NIL;
	ListCell   *lc;
	ListCell   *lk;
	int			i = 0;

	if (shape->topn || !cv_plan_panes(q, shape, &panes))
		return NULL;
	names = cv_pane_column_names(&panes);
	exprs = list_concat(list_copy(panes.keys), cv_window_exprs(&panes, shape));
	forboth(lc, panes.aggs, lk, panes.kinds)
		exprs = list_concat(exprs, cv_partial_aggs(lfirst(lc), lfirst_int(lk)));

	initStringInfo(&buf);
	foreach(lc, exprs)
	{
		Node	   *expr = lfirst(lc);
		Oid			coll = exprCollation(expr);

		appendStringInfo(&buf, "%s%s %s", i > 0 ? ", " : "",
						 quote_identifier(strVal(list_nth(names, i))),
						 format_type_with_typemod(exprType(expr), exprTypmod(expr)));
		if (OidIsValid(coll) && coll != get_typcollation(exprType(expr)))
			appendStringInfo(&buf, " COLLATE %s", generate_collation_name(coll));
		i++;
	}
	return buf.data;
}

/* context of cv_combine_mutator */
typedef struct CvCombineContext
{
	CvPanes    *panes;
	Index		srcidx;
} CvCombineContext;

/*
 * cv_make_agg
 *		An aggregate of one pane column, for the combine query (deparsed,
 *		never planned: only what the deparser reads is set).
 */
static Aggref *
cv_make_agg(Oid aggfnoid, Oid aggtype, Oid collid, Var *arg)
{
	Aggref	   *agg = makeNode(Aggref);

	agg->aggfnoid = aggfnoid;
	agg->aggtype = aggtype;
	agg->aggcollid = collid;
	agg->inputcollid = arg->varcollid;
	agg->aggargtypes = list_make1_oid(arg->vartype);
	agg->args = list_make1(makeTargetEntry((Expr *) arg, 1, NULL, false));
	agg->aggkind = AGGKIND_NORMAL;
	agg->aggsplit = AGGSPLIT_SIMPLE;
	agg->location = -1;
	return agg;
}

/*
 * cv_pane_var
 *		Pane column attno, of the type its partial has.
 */
static Var *
cv_pane_var(Index srcidx, int attno, Node *partial)
{
	return makeVar(srcidx, attno, exprType(partial), exprTypmod(partial),
				   exprCollation(partial), 0);
}

/*
 * cv_combined_agg
 *		The expression combining the pane columns of one aggregate.
 */
static Node *
cv_combined_agg(Aggref *agg, int kind, int col, Index srcidx)
{
	List	   *partials = cv_partial_aggs(agg, kind);
	Var		   *v1 = cv_pane_var(srcidx, col, linitial(partials));
	Aggref	   *sum;

	switch (kind)
	{
		case CVP_COUNT:
		case CVP_SUM_INT:
			sum = cv_make_agg(F_SUM_INT8, NUMERICOID, InvalidOid, v1);
			return (Node *) makeFuncExpr(F_INT8_NUMERIC, INT8OID,
										 list_make1(sum), InvalidOid,
										 InvalidOid, COERCE_EXPLICIT_CAST);
		case CVP_SUM:
			return (Node *) cv_make_agg(F_SUM_NUMERIC, NUMERICOID, InvalidOid, v1);
		case CVP_AVG:
			{
				Var		   *v2 = cv_pane_var(srcidx, col + 1, lsecond(partials));
				Aggref	   *s = cv_make_agg(v1->vartype == INT8OID ? F_SUM_INT8 : F_SUM_NUMERIC,
											NUMERICOID, InvalidOid, v1);
				Aggref	   *n = cv_make_agg(F_SUM_INT8, NUMERICOID, InvalidOid, v2);

				return (Node *) makeFuncExpr(F_NUMERIC_DIV, NUMERICOID,
											 list_make2(s, n), InvalidOid,
											 InvalidOid, COERCE_EXPLICIT_CALL);
			}
		default:
			return (Node *) cv_make_agg(agg->aggfnoid, agg->aggtype, agg->aggcollid, v1);
	}
}

/*
 * cv_combine_mutator
 *		Replace the view's aggregates by their combined pane columns, its
 *		grouping keys over the source by the pane's key columns and (session)
 *		its window columns by the fragment's bounds.
 */
static Node *
cv_combine_mutator(Node *node, CvCombineContext *cxt)
{
	ListCell   *lc;
	int			i;

	if (node == NULL)
		return NULL;
	if (IsA(node, Aggref))
	{
		i = 0;
		foreach(lc, cxt->panes->aggs)
		{
			if (equal(lfirst(lc), node))
				return cv_combined_agg(lfirst(lc),
									   list_nth_int(cxt->panes->kinds, i),
									   list_nth_int(cxt->panes->firstcol, i),
									   cxt->srcidx);
			i++;
		}
		elog(ERROR, "aggregate not found among the view's aggregates");
	}
	i = 1;
	foreach(lc, cxt->panes->keys)
	{
		if (equal(lfirst(lc), node))
			return (Node *) makeVar(cxt->srcidx, i, exprType(node),
									exprTypmod(node), exprCollation(node), 0);
		i++;
	}
	if (cxt->panes->session && equal(cxt->panes->wstart, node))
		return (Node *) makeVar(cxt->srcidx, list_length(cxt->panes->keys) + 1,
								exprType(node), exprTypmod(node), InvalidOid, 0);
	if (cxt->panes->session && equal(cxt->panes->wend, node))
		return (Node *) makeVar(cxt->srcidx, list_length(cxt->panes->keys) + 2,
								exprType(node), exprTypmod(node), InvalidOid, 0);
	return expression_tree_mutator(node, cv_combine_mutator, (void *) cxt);
}

/*
 * cv_window_func
 *		The view's window function call, in its range table entry.
 */
static FuncExpr *
cv_window_func(Query *q, CvShape *shape)
{
	RangeTblEntry *fnrte = rt_fetch(shape->fnidx, q->rtable);

	return (FuncExpr *) ((RangeTblFunction *) linitial(fnrte->functions))->funcexpr;
}

/*
 * cv_group_tle
 *		A grouped select-list entry of the pane query.
 */
static TargetEntry *
cv_group_tle(Node *expr, int resno, const char *name, Index ref, List **groups)
{
	TargetEntry *tle = makeTargetEntry((Expr *) copyObject(expr), resno,
									   pstrdup(name), false);
	SortGroupClause *sgc = makeNode(SortGroupClause);

	tle->ressortgroupref = ref;
	get_sort_group_operators(exprType(expr), false, true, false,
							 &sgc->sortop, &sgc->eqop, NULL, &sgc->hashable);
	sgc->tleSortGroupRef = ref;
	*groups = lappend(*groups, sgc);
	return tle;
}

/*
 * cv_make_pane_query
 *		The view's query made into the pane query (see the file header).
 */
static Query *
cv_make_pane_query(Query *q, CvShape *shape, CvPanes *panes)
{
	Query	   *pq = copyObject(shape->ranged);
	List	   *names = cv_pane_column_names(panes);
	List	   *tlist = NIL;
	List	   *groups = NIL;
	List	   *grouped;
	ListCell   *lc;
	ListCell   *lk;
	int			resno = 1;
	Index		ref = 0;

	/* hop and cumulate: tumble(t, stride, offset), in the same schema */
	if (!panes->session)
	{
		FuncExpr   *fexpr = cv_window_func(pq, shape);
		Oid			argtypes[3] = {shape->timetype, INTERVALOID, INTERVALOID};
		List	   *tumble_name;

		tumble_name = list_make2(makeString(get_namespace_name(get_func_namespace(fexpr->funcid))),
								 makeString(pstrdup("tumble")));
		fexpr->funcid = LookupFuncName(tumble_name, 3, argtypes, false);
		fexpr->args = list_make3(linitial(fexpr->args),
								 makeConst(INTERVALOID, -1, InvalidOid, sizeof(Interval),
										   shape->stride, false, false),
								 makeConst(INTERVALOID, -1, InvalidOid, sizeof(Interval),
										   shape->offset, false, false));
	}

	/* the keys and the window columns, grouped; then the partials */
	foreach(lc, q->groupClause)
		ref = Max(ref, ((SortGroupClause *) lfirst(lc))->tleSortGroupRef);
	grouped = list_concat(list_copy(panes->keys), cv_window_exprs(panes, shape));
	foreach(lc, grouped)
	{
		tlist = lappend(tlist, cv_group_tle(lfirst(lc), resno,
											strVal(list_nth(names, resno - 1)),
											++ref, &groups));
		resno++;
	}
	forboth(lc, panes->aggs, lk, panes->kinds)
	{
		ListCell   *lp;

		foreach(lp, cv_partial_aggs(lfirst(lc), lfirst_int(lk)))
		{
			tlist = lappend(tlist,
							makeTargetEntry(lfirst(lp), resno,
											pstrdup(strVal(list_nth(names, resno - 1))),
											false));
			resno++;
		}
	}
	pq->targetList = tlist;
	pq->groupClause = groups;
	pq->havingQual = NULL;
	return pq;
}

/*
 * cv_make_combine_query
 *		The view's query made into the combine query (see the file header).
 */
static Query *
cv_make_combine_query(Query *q, CvShape *shape, CvPanes *panes, Oid panesrel)
{
	Query	   *cq = copyObject(q);
	RangeTblEntry *rte = rt_fetch(shape->srcidx, cq->rtable);
	int			nkeys = list_length(panes->keys);
	Var		   *pane_start = makeVar(shape->srcidx, nkeys + 1, shape->timetype, -1,
									 InvalidOid, 0);
	CvCombineContext cxt;
	ListCell   *lc;

	/*
	 * FROM panes p, <window function>(p.pane_start, ...); a session view's
	 * subquery becomes FROM panes p, one row per session
	 */
	rte->rtekind = RTE_RELATION;
	rte->subquery = NULL;
	rte->relid = panesrel;
	rte->relkind = RELKIND_RELATION;
	rte->rellockmode = AccessShareLock;
	rte->alias = makeAlias("p", NIL);
	rte->eref = makeAlias("p", cv_pane_column_names(panes));
	if (!panes->session)
		linitial(cv_window_func(cq, shape)->args) = copyObject(pane_start);

	cxt.panes = panes;
	cxt.srcidx = shape->srcidx;
	foreach(lc, cq->targetList)
	{
		TargetEntry *tle = lfirst(lc);

		tle->expr = (Expr *) cv_combine_mutator((Node *) tle->expr, &cxt);
	}
	cq->havingQual = cv_combine_mutator(cq->havingQual, &cxt);
#if PG_VERSION_NUM >= 180000
	foreach(lc, cq->rtable)
	{
		RangeTblEntry *g = lfirst(lc);

		if (g->rtekind == RTE_GROUP)
			g->groupexprs = (List *) cv_combine_mutator((Node *) g->groupexprs, &cxt);
	}
#endif
	cq->jointree->quals = NULL;
	if (!panes->session)
		cv_add_quals(cq, cv_make_range_quals(pane_start, 1, 2));
	return cq;
}

/*
 * cv_merge_partial
 *		Append the expression merging one partial column of the fragments
 *		of a session (partial in, the same partial type out).
 */
static void
cv_merge_partial(StringInfo buf, Aggref *agg, int kind, Node *partial,
				 const char *col)
{
	const char *c = quote_identifier(col);

	if (kind == CVP_SAME)
		appendStringInfo(buf, "pg_catalog.%s(g.%s)",
						 quote_identifier(get_func_name(agg->aggfnoid)), c);
	else if (exprType(partial) == INT8OID)
		appendStringInfo(buf, "pg_catalog.sum(g.%s)::pg_catalog.int8", c);
	else
		appendStringInfo(buf, "pg_catalog.sum(g.%s)", c);
}

/*
 * cv_make_merge_query
 *		A session view's merge query: the fragments in the relation named
 *		wj_fragments, merged per partition into sessions (gaps and islands:
 *		a fragment starts a new session when it starts after every earlier
 *		one has ended), one row per session in the pane table's columns.
 */
static char *
cv_make_merge_query(CvPanes *panes)
{
	List	   *names = cv_pane_column_names(panes);
	int			nkeys = list_length(panes->keys);
	StringInfoData part;
	StringInfoData buf;
	ListCell   *lc;
	ListCell   *lk;
	int			col;

	initStringInfo(&part);
	for (int i = 0; i < nkeys; i++)
		appendStringInfo(&part, "%s%s", i == 0 ? "PARTITION BY " : ", ",
						 quote_identifier(strVal(list_nth(names, i))));

	initStringInfo(&buf);
	appendStringInfoString(&buf, "SELECT ");
	for (int i = 0; i < nkeys; i++)
		appendStringInfo(&buf, "g.%s, ", quote_identifier(strVal(list_nth(names, i))));
	appendStringInfoString(&buf, "pg_catalog.min(g.pane_start), pg_catalog.max(g.pane_end)");
	col = nkeys + panes->nwin;
	forboth(lc, panes->aggs, lk, panes->kinds)
	{
		ListCell   *lp;

		foreach(lp, cv_partial_aggs(lfirst(lc), lfirst_int(lk)))
		{
			appendStringInfoString(&buf, ", ");
			cv_merge_partial(&buf, lfirst(lc), lfirst_int(lk), lfirst(lp),
							 strVal(list_nth(names, col)));
			col++;
		}
	}
	appendStringInfo(&buf,
					 " FROM (SELECT f.*, pg_catalog.sum(f.wj_new) OVER (%s ORDER BY f.pane_start, f.pane_end"
					 " ROWS UNBOUNDED PRECEDING) AS wj_session"
					 " FROM (SELECT p.*, CASE WHEN p.pane_start <= pg_catalog.max(p.pane_end) OVER (%s"
					 " ORDER BY p.pane_start, p.pane_end ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)"
					 " THEN 0 ELSE 1 END AS wj_new FROM wj_fragments p) f) g GROUP BY ",
					 part.data, part.data);
	for (int i = 0; i < nkeys; i++)
		appendStringInfo(&buf, "g.%s, ", quote_identifier(strVal(list_nth(names, i))));
	appendStringInfoString(&buf, "g.wj_session");
	return buf.data;
}

/*
 * cv_pane_queries
 *		See cv_shape.h.
 */
void
cv_pane_queries(Query *q, CvShape *shape, Oid panesrel,
				Query **pane_query, Query **combine_query, char **merge_query)
{
	CvPanes		panes;

	if (!cv_plan_panes(q, shape, &panes))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("the query of the continuous view has no pane decomposition")));
	*pane_query = cv_make_pane_query(q, shape, &panes);
	*combine_query = cv_make_combine_query(q, shape, &panes, panesrel);
	*merge_query = panes.session ? cv_make_merge_query(&panes) : NULL;
}
