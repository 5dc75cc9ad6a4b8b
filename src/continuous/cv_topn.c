/*-------------------------------------------------------------------------
 *
 * cv_topn.c
 *	  Recognise a window Top-N or window deduplication as the query of a
 *	  continuous view.
 *
 * Flink's Window Top-N keeps the first N rows of each window (and key)
 * by an order; Window Deduplication is its N = 1 case ordered by the time
 * column (the first row of each window and key, or the last).  As SQL:
 *
 *	  SELECT ... FROM (
 *		  SELECT ..., row_number() | rank() | dense_rank()
 *					  OVER (PARTITION BY window_start, window_end [, keys]
 *							ORDER BY ...) AS rn
 *		  FROM <ranked>) t
 *	  WHERE rn <= N					(or rn < N, rn = 1)
 *
 * where <ranked> is either the rows of a window function's windows,
 *
 *	  src, tumble|hop|cumulate(src.t, ...) [WHERE ...]
 *
 * or the rows of a window aggregate: the TVF shape with GROUP BY at the
 * same level as the ranking function, or in a subquery of its own
 * (Flink's form):
 *
 *	  FROM (SELECT window_start, window_end, k, sum(x) AS s
 *			  FROM src, tumble(...) GROUP BY 1, 2, 3) a
 *
 * The windows may be sessions instead: the rows of each session,
 *
 *	  FROM (SELECT ..., session(t, gap) OVER (PARTITION BY k ORDER BY t)
 *			  FROM src) s
 *
 * selecting s.window_start and s.window_end, or a session aggregate (the
 * session view's shape, cv_analyze_session) at the ranking's level or
 * in a subquery.  A session Top-N view keeps no fragments: refresh
 * recomputes the sessions from the start of the earliest one a change
 * can touch (cv_refresh_sessions), as for a session view whose
 * aggregates do not combine.
 *
 * Because the ranking is partitioned by window_start and window_end, the
 * rows of a window depend on the source rows of that window only, exactly
 * as an aggregate's do: the view's range query is the query with the
 * range quals "t >= $1 AND t < $2" added at the level that reads the
 * source (cv_analyze_tvf), and refresh writes, revises and drops whole
 * windows of it as it does an aggregate view's without panes
 * (cv_refresh.c).  A Top-N view keeps no partial states.
 *
 * src/continuous/cv_topn.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/stratnum.h"
#include "catalog/pg_opfamily.h"
#include "catalog/pg_type.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"

#include "src/common/window_arith.h"
#include "src/continuous/cv_shape.h"

/* the ranking functions a Top-N may use */
static bool
cv_is_ranking(Oid fnoid)
{
	return fnoid == F_ROW_NUMBER || fnoid == F_RANK_ || fnoid == F_DENSE_RANK_;
}

/*
 * cv_is_topn_query
 *		Does q look like a Top-N: no grouping or window function of its own,
 *		over one subquery that computes a window function?  (The session
 *		shape groups at the outer level.)  cv_analyze_topn checks the rest.
 */
bool
cv_is_topn_query(Query *q)
{
	RangeTblEntry *sub;

	if (q->groupClause != NIL || q->hasAggs || q->hasWindowFuncs)
		return false;
	sub = cv_only_subquery_rte(q);
	return sub != NULL && sub->subquery->hasWindowFuncs;
}

/*
 * cv_rank_limit
 *		The qual "rn <= N", "rn < N" or "rn = 1" of the outer query q, on its
 *		subquery's column rnattno: N, the number of rows kept per partition.
 *		Anything else in q's WHERE is refused.
 */
static int64
cv_rank_limit(Query *q, AttrNumber *rnattno)
{
	Node	   *qual = q->jointree->quals;
	OpExpr	   *op;
	Oid			opno;
	Node	   *l;
	Node	   *r;
	int64		n;
	int			strategy;

	if (qual == NULL)
		cv_unsupported("a ranking over windows without a limit",
					   "Keep the first rows of each window: WHERE rn <= N (Window Top-N) or rn = 1 (deduplication).");
	if (!IsA(qual, OpExpr) || list_length(((OpExpr *) qual)->args) != 2)
		cv_unsupported("conditions of a window Top-N other than one on its rank",
					   "Write WHERE rn <= N, rn < N or rn = 1 alone; filter the rows inside the subquery.");
	op = (OpExpr *) qual;
	opno = op->opno;
	l = linitial(op->args);
	r = lsecond(op->args);
	/* N >= rn: the commutator, rn <= N */
	if (!IsA(l, Var) && IsA(r, Var))
	{
		Node	   *t = l;

		l = r;
		r = t;
		opno = get_commutator(opno);
	}
	r = eval_const_expressions(NULL, r);	/* (a constant cast, folded) */
	if (!IsA(l, Var) || ((Var *) l)->varlevelsup != 0 || !IsA(r, Const) ||
		((Const *) r)->constisnull || !OidIsValid(opno))
		cv_unsupported("conditions of a window Top-N other than one on its rank",
					   "Write WHERE rn <= N, rn < N or rn = 1, N a constant.");
	if (!wj_const_int64(r, &n))
		cv_unsupported("a rank limit that is not an integer", NULL);

	/* what the operator is in the integer btree family, not its name */
	strategy = get_op_opfamily_strategy(opno, INTEGER_BTREE_FAM_OID);
	if (strategy == BTLessStrategyNumber)
		n -= 1;
	else if (strategy == BTEqualStrategyNumber)
	{
		if (n != 1)
			cv_unsupported("a rank equal to a number other than 1",
						   "Keep the first rows of each window: rn <= N, or rn = 1.");
	}
	else if (strategy != BTLessEqualStrategyNumber)
		cv_unsupported("conditions of a window Top-N other than one on its rank",
					   "Write WHERE rn <= N, rn < N or rn = 1.");
	if (n < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a window Top-N must keep at least one row per window")));
	*rnattno = ((Var *) l)->varattno;
	return n;
}

/*
 * cv_partition_has
 *		Does the window clause partition by the select-list entry of q
 *		whose expression is expr (after RTE_GROUP, from 18)?
 */
static bool
cv_partition_has(Query *q, WindowClause *wc, Node *expr)
{
	ListCell   *lc;

	foreach(lc, wc->partitionClause)
	{
		SortGroupClause *sgc = lfirst(lc);
		TargetEntry *tle = get_sortgroupclause_tle(sgc, q->targetList);

		if (equal(cv_ungroup(q, (Node *) tle->expr), expr))
			return true;
	}
	return false;
}

/*
 * cv_window_column_expr
 *		The expression q's output column name (window_start, window_end)
 *		stands for, after RTE_GROUP; an error if q has none.
 */
static Node *
cv_window_column_expr(Query *q, const char *name)
{
	TargetEntry *tle = cv_output_column(q, name);

	if (tle == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("the query of a continuous view must return a column named %s", name),
				 errhint("Select window_start and window_end in every level of a window Top-N.")));
	return cv_ungroup(q, (Node *) tle->expr);
}

/*
 * cv_analyze_topn
 *		Check q as a window Top-N (see the header) and fill shape: the
 *		window, the source, and the range query with its range quals at the
 *		level that reads the source.
 */
void
cv_analyze_topn(Query *q, CvShape *shape)
{
	Query	   *ranking = cv_only_subquery_rte(q)->subquery;
	RangeTblEntry *aggregate = cv_only_subquery_rte(ranking);
	Query	   *inner;
	Query	   *ranged;
	RangeTblEntry *rte;
	List	   *wfuncs = NIL;
	WindowFunc *wf;
	WindowClause *wc = NULL;
	TargetEntry *rntle;
	AttrNumber	rnattno;
	ListCell   *lc;
	const char *names[2] = {"window_start", "window_end"};

	cv_check_plain_query(q);
	cv_check_plain_query(ranking);
	if (contain_volatile_functions((Node *) q))
		cv_unsupported("volatile functions", NULL);
	(void) cv_rank_limit(q, &rnattno);

	/* one ranking function, partitioned by the window */
	cv_window_funcs_walker((Node *) ranking->targetList, &wfuncs);
	if (list_length(wfuncs) != 1 || list_length(ranking->windowClause) != 1)
		cv_unsupported("more than one window function in a window Top-N", NULL);
	wf = linitial(wfuncs);
	if (!cv_is_ranking(wf->winfnoid))
		cv_unsupported("window functions other than row_number(), rank() and dense_rank() in a window Top-N",
					   NULL);
	rntle = get_tle_by_resno(ranking->targetList, rnattno);
	if (rntle == NULL || !IsA(rntle->expr, WindowFunc))
		cv_unsupported("a Top-N condition on a column other than the rank", NULL);
	foreach(lc, ranking->windowClause)
		if (((WindowClause *) lfirst(lc))->winref == wf->winref)
			wc = lfirst(lc);
	if (wc == NULL || wc->orderClause == NIL)
		cv_unsupported("a ranking without ORDER BY",
					   "Rank the rows of each window by an order: OVER (PARTITION BY window_start, window_end ORDER BY ...).");

	/*
	 * What it ranks: the rows of the windows (no grouping: that level
	 * reads the source), aggregated rows of the same level, or the rows of
	 * a window aggregate in a subquery.  The windows are a TVF's, or
	 * sessions: then the level that reads the source is the session
	 * shape's outer query, over its subquery calling session().
	 */
	if (ranking->groupClause != NIL || ranking->hasAggs)
	{
		if (ranking->groupClause == NIL)
			cv_unsupported("aggregates without GROUP BY in a window Top-N",
						   "Group by window_start and window_end (and any keys).");
		inner = ranking;
		if (aggregate != NULL)
			cv_analyze_session(inner, shape, true);
		else
			cv_analyze_tvf(inner, shape, true);
	}
	else if (aggregate != NULL && aggregate->subquery->groupClause == NIL &&
			 aggregate->subquery->hasWindowFuncs)
	{
		/* the rows of sessions */
		inner = ranking;
		cv_analyze_session(inner, shape, false);
	}
	else if (aggregate != NULL)
	{
		inner = aggregate->subquery;
		cv_check_plain_query(inner);
		if (inner->groupClause == NIL || inner->hasWindowFuncs)
			cv_unsupported("a window Top-N over a subquery that is not a window aggregate",
						   "Rank the rows of FROM source, tumble(...), or of a window aggregate grouped by window_start and window_end.");
		if (cv_only_subquery_rte(inner) != NULL)
			cv_analyze_session(inner, shape, true);
		else
			cv_analyze_tvf(inner, shape, true);
	}
	else
	{
		inner = ranking;
		cv_analyze_tvf(inner, shape, false);
	}

	/*
	 * The ranking is partitioned by the window, and the window's bounds go
	 * through every level to the view's columns: each window's rows then
	 * come from that window's source rows alone.
	 */
	for (int c = 0; c < 2; c++)
	{
		Node	   *expr = cv_window_column_expr(ranking, names[c]);
		Node	   *outer = cv_window_column_expr(q, names[c]);

		if (inner != ranking)
		{
			/* a Var of the aggregate subquery: its window column */
			TargetEntry *itle = cv_output_column(inner, names[c]);

			if (!IsA(expr, Var) || ((Var *) expr)->varattno != itle->resno)
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("column %s of a window Top-N must be its subquery's %s",
								names[c], names[c])));
		}
		if (!cv_partition_has(ranking, wc, expr))
			cv_unsupported("a ranking not partitioned by window_start and window_end",
						   "Write OVER (PARTITION BY window_start, window_end [, keys] ORDER BY ...).");
		if (!IsA(outer, Var) ||
			((Var *) outer)->varattno != cv_output_column(ranking, names[c])->resno)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("column %s of a window Top-N must be its subquery's %s",
							names[c], names[c])));
	}

	/*
	 * The range query: q with the ranged copy of the level that reads the
	 * source (cv_analyze_tvf made it) in place of that level.
	 */
	ranged = copyObject(q);
	rte = cv_only_subquery_rte(ranged);
	if (inner != ranking)
		rte = cv_only_subquery_rte(rte->subquery);
	rte->subquery = shape->ranged;
	shape->ranged = ranged;
	shape->topn = true;
}
