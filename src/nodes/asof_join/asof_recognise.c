/*-------------------------------------------------------------------------
 *
 * asof_recognise.c
 *	  Recognition of the LATERAL "latest version at that time" subquery
 *	  that the AsOfJoin custom scan executes, and the rewritten subquery it
 *	  reads instead.
 *
 * The idiom
 *
 *		FROM orders o [LEFT] JOIN LATERAL (
 *			SELECT ... FROM rates r
 *			WHERE r.currency = o.currency			-- zero or more keys
 *			  AND r.update_time <= o.order_time		-- the time condition
 *			  [AND r.update_time >= o.order_time - interval '1 hour']
 *			  [AND filters on r alone]
 *			ORDER BY r.update_time DESC LIMIT 1) r ON true
 *
 * is planned by PostgreSQL as a nested loop that runs the subquery once per
 * outer row.  The subquery cannot be pulled up (it has a LIMIT), so the join
 * search sees it as a base relation of kind RTE_SUBQUERY whose paths all
 * have the correlated conditions baked in as parameters.
 *
 * asof_recognise analyses the subquery's original Query tree
 * (rte->subquery).  If every correlated condition is one the executor can
 * run exactly (equality keys, one time bound in the direction of the ORDER
 * BY, tolerance bounds in the other), it builds a rewritten copy of the
 * subquery without them and without ORDER BY/LIMIT, which outputs its
 * original columns plus the inner key and time expressions and is ordered
 * by (keys, time, tie breakers) -- by (time, tie breakers) when the keys
 * are hashable (the sweep and lookup strategies).  PostgreSQL plans that
 * copy like any subquery (asof_paths.c), so row-level security quals,
 * security-barrier views, privileges and the remaining filters are handled
 * by PostgreSQL itself.
 *
 * Anything not recognised exactly gives no AsOfJoin path: PostgreSQL's plan
 * is kept.  ASOF_NO says at DEBUG2 why.  The nearest idiom (ORDER BY
 * r.update_time <-> o.order_time) goes to asof_nearest_recognise.c, which
 * uses the helpers here.
 *
 * src/nodes/asof_join/asof_recognise.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/nbtree.h"
#include "access/htup_details.h"
#include "access/stratnum.h"
#include "catalog/dependency.h"
#include "catalog/pg_language.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "commands/extension.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/planmain.h"
#include "optimizer/planner.h"
#include "optimizer/restrictinfo.h"
#include "optimizer/tlist.h"
#include "parser/parse_oper.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "src/common/pg_compat.h"
#include "src/common/time_shift.h"
#include "src/nodes/asof_join/asof.h"
#include "src/nodes/asof_join/asof_planner_internal.h"

/*
 * asof_levels_walker, asof_levels
 *		Which levels of Vars an expression of the subquery contains
 *		(ASOF_LEVEL0, ASOF_LEVEL1, ASOF_OTHER).
 */
static bool
asof_levels_walker(Node *node, int *mask)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
	{
		Var		   *var = (Var *) node;

		if (var->varlevelsup == 0)
			*mask |= ASOF_LEVEL0;
		else if (var->varlevelsup == 1)
			*mask |= ASOF_LEVEL1;
		else
			*mask |= ASOF_OTHER;
		return false;
	}
	if (IsA(node, PlaceHolderVar) || IsA(node, Aggref) ||
		IsA(node, GroupingFunc) || IsA(node, WindowFunc) ||
		IsA(node, SubLink) || IsA(node, Query) ||
		IsA(node, CurrentOfExpr))
	{
		*mask |= ASOF_OTHER;
		return false;
	}
	return expression_tree_walker(node, asof_levels_walker, (void *) mask);
}

int
asof_levels(Node *node)
{
	int			mask = 0;

	(void) asof_levels_walker(node, &mask);
	return mask;
}

/*
 * asof_outer_refs_walker
 *		True if the Query tree refers to any query level above its top.
 */
bool
asof_outer_refs_walker(Node *node, int *depth)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
		return ((Var *) node)->varlevelsup > *depth;
	if (IsA(node, PlaceHolderVar) &&
		((PlaceHolderVar *) node)->phlevelsup > *depth)
		return true;
	if (IsA(node, Aggref) && ((Aggref *) node)->agglevelsup > *depth)
		return true;
	if (IsA(node, GroupingFunc) &&
		((GroupingFunc *) node)->agglevelsup > *depth)
		return true;
	if (IsA(node, Query))
	{
		bool		result;

		(*depth)++;
		result = query_tree_walker((Query *) node, asof_outer_refs_walker,
								   (void *) depth, 0);
		(*depth)--;
		return result;
	}
	return expression_tree_walker(node, asof_outer_refs_walker,
								  (void *) depth);
}

/*
 * asof_flatten_and
 *		Append the conjuncts of a (possibly nested) AND to *result.
 */
void
asof_flatten_and(Node *node, List **result)
{
	if (node == NULL)
		return;
	if (is_andclause(node))
	{
		ListCell   *lc;

		foreach(lc, ((BoolExpr *) node)->args)
			asof_flatten_and((Node *) lfirst(lc), result);
	}
	else if (IsA(node, List))
	{
		ListCell   *lc;

		foreach(lc, (List *) node)
			asof_flatten_and((Node *) lfirst(lc), result);
	}
	else
		*result = lappend(*result, node);
}

/*
 * asof_split_comparison
 *		If clause is "inner OP outer" or "outer OP inner" (a binary operator
 *		between an expression of the subquery's relation alone and one of
 *		the parent's relations alone), fill *cond with it normalised to
 *		"inner OP outer" and return true.
 */
bool
asof_split_comparison(PlannerInfo *root, Node *clause, AsOfCond *cond)
{
	OpExpr	   *op;
	Node	   *left;
	Node	   *right;
	int			lmask;
	int			rmask;

	if (!IsA(clause, OpExpr))
		return false;
	op = (OpExpr *) clause;
	if (list_length(op->args) != 2 || op->opresulttype != BOOLOID ||
		op->opretset)
		return false;
	left = linitial(op->args);
	right = lsecond(op->args);
	lmask = asof_levels(left);
	rmask = asof_levels(right);

	memset(cond, 0, sizeof(AsOfCond));
	if (lmask == ASOF_LEVEL0 && rmask == ASOF_LEVEL1)
	{
		cond->inner = (Expr *) left;
		cond->outer = (Expr *) right;
		cond->opno = op->opno;
	}
	else if (lmask == ASOF_LEVEL1 && rmask == ASOF_LEVEL0)
	{
		cond->inner = (Expr *) right;
		cond->outer = (Expr *) left;
		cond->opno = get_commutator(op->opno);
		if (!OidIsValid(cond->opno))
			return false;
	}
	else
		return false;
	cond->collation = op->inputcollid;

	/* The sorts and comparisons use this collation on both sides */
	if (exprCollation((Node *) cond->inner) != cond->collation ||
		exprCollation((Node *) cond->outer) != cond->collation)
		return false;

	/* Make the outer side an expression of the parent query */
	cond->outer = copyObject(cond->outer);
	IncrementVarSublevelsUp((Node *) cond->outer, -1, 0);
	cond->outer = (Expr *) eval_const_expressions(root, (Node *) cond->outer);
	return true;
}

/*
 * asof_correlated_cond
 *		One WHERE conjunct of the subquery: a filter on its relation alone
 *		is appended to *kept (*cond NULL); else *cond is the comparison of an
 *		inner and an outer expression it is, palloc'd.  False when it is
 *		neither.
 */
bool
asof_correlated_cond(PlannerInfo *root, Node *clause, List **kept,
					 AsOfCond **cond)
{
	AsOfCond	c;

	*cond = NULL;
	if (!(asof_levels(clause) & (ASOF_LEVEL1 | ASOF_OTHER)))
	{
		*kept = lappend(*kept, clause);
		return true;
	}
	if (!asof_split_comparison(root, clause, &c))
		return false;
	*cond = palloc(sizeof(AsOfCond));
	**cond = c;
	return true;
}

/*
 * asof_cond_in_opfamily
 *		Check that cond's operator is in the btree opfamily and that the
 *		opfamily has what the merge needs: a comparison support function
 *		for (outer type, inner type) and, when need_sort, "<" and "=" on each
 *		side's type.  Fills the opfamily fields of cond.
 */
bool
asof_cond_in_opfamily(AsOfCond *cond, Oid opfamily, bool need_sort)
{
	int			strategy;
	Oid			lefttype;
	Oid			righttype;

	if (!op_in_opfamily(cond->opno, opfamily))
		return false;
	get_op_opfamily_properties(cond->opno, opfamily, false,
							   &strategy, &lefttype, &righttype);
	if (!OidIsValid(get_opfamily_proc(opfamily, righttype, lefttype,
									  BTORDER_PROC)))
		return false;
	if (need_sort)
	{
		if (!OidIsValid(get_opfamily_member(opfamily, lefttype, lefttype,
											BTLessStrategyNumber)) ||
			!OidIsValid(get_opfamily_member(opfamily, lefttype, lefttype,
											BTEqualStrategyNumber)) ||
			!OidIsValid(get_opfamily_member(opfamily, righttype, righttype,
											BTLessStrategyNumber)))
			return false;
	}
	cond->opfamily = opfamily;
	cond->strategy = strategy;
	cond->innertype = lefttype;
	cond->outertype = righttype;
	return true;
}

/*
 * asof_target_resno
 *		Column of the rewritten subquery that outputs expr: an existing
 *		output column with the same expression, else a new one.
 */
static AttrNumber
asof_target_resno(Query *q, int noriginal, Expr *expr, const char *prefix,
				  int n, List **new_colnames)
{
	ListCell   *lc;
	TargetEntry *tle;
	char	   *name;

	foreach(lc, q->targetList)
	{
		tle = (TargetEntry *) lfirst(lc);
		if (equal(tle->expr, expr))
			return tle->resno;
	}

	/* Name it after the column when it is one, for EXPLAIN */
	if (IsA(expr, Var))
	{
		Var		   *var = (Var *) expr;
		RangeTblEntry *rte = rt_fetch(var->varno, q->rtable);

		name = get_rte_attribute_name(rte, var->varattno);
	}
	else if (n > 0)
		name = psprintf("%s%d", prefix, n);
	else
		name = pstrdup(prefix);

	tle = makeTargetEntry((Expr *) copyObject(expr),
						  list_length(q->targetList) + 1, name, false);
	q->targetList = lappend(q->targetList, tle);
	*new_colnames = lappend(*new_colnames, makeString(pstrdup(name)));
	return tle->resno;
}

/*
 * asof_add_sort
 *		Append an ORDER BY item on output column resno to q.
 */
static void
asof_add_sort(Query *q, AttrNumber resno, Oid sortop, Oid eqop,
			  bool nulls_first, Index *next_ref)
{
	TargetEntry *tle = list_nth_node(TargetEntry, q->targetList, resno - 1);
	SortGroupClause *sgc = makeNode(SortGroupClause);

	if (tle->ressortgroupref == 0)
		tle->ressortgroupref = (*next_ref)++;
	sgc->tleSortGroupRef = tle->ressortgroupref;
	sgc->eqop = eqop;
	sgc->sortop = sortop;
	sgc->nulls_first = nulls_first;
	sgc->hashable = false;
	wj_set_sort_direction(sgc);
	q->sortClause = lappend(q->sortClause, sgc);
}

/*
 * asof_add_tie_breakers
 *		Append an ORDER BY item on each of q's first noriginal output columns
 *		that has a btree ordering: ascending NULLS LAST, or descending NULLS
 *		FIRST when descending (columns without one are skipped).
 */
static void
asof_add_tie_breakers(Query *q, int noriginal, bool descending,
					  Index *next_ref)
{
	int			n;

	for (n = 1; n <= noriginal; n++)
	{
		TargetEntry *tle = list_nth_node(TargetEntry, q->targetList, n - 1);
		Oid			ltop;
		Oid			eqop;
		Oid			gtop;
		bool		hashable;

		get_sort_group_operators(exprType((Node *) tle->expr),
								 false, false, false,
								 &ltop, &eqop, &gtop, &hashable);
		if (!OidIsValid(ltop) || !OidIsValid(eqop) || !OidIsValid(gtop))
			continue;
		if (descending)
			asof_add_sort(q, n, gtop, eqop, true, next_ref);
		else
			asof_add_sort(q, n, ltop, eqop, false, next_ref);
	}
}

/*
 * asof_order_ok
 *		Does PostgreSQL's plan evaluate the outer time and tolerance bounds
 *		for the rows the node evaluates them for?  PostgreSQL filters the
 *		version rows with the subquery's conditions in order of cost
 *		(createplan.c's order_qual_clauses, a stable sort), starting from
 *		the written order with the equalities moved to the end (they become
 *		equivalence classes, whose clauses are generated after the others),
 *		so it computes "o.t + interval '1 hour'" for the versions that pass
 *		the conditions before it.  The node computes the outer time for
 *		outer rows whose keys have versions (passing every filter), and a
 *		tolerance bound for the match.  The two agree when every key and
 *		filter comes before the time condition and every tolerance bound
 *		after all of them -- which matters only for outer expressions that
 *		can raise an error, anything but a plain column (near the end of
 *		the range, a shift is out of range).  kinds[i] is 'K', 'F', 'T' or
 *		'L' for the i-th of clauses, fallible[i] whether its outer side can
 *		fail.
 */
bool
asof_order_ok(PlannerInfo *root, List *clauses, const char *kinds,
			  const bool *fallible)
{
	int			n = list_length(clauses);
	Cost	   *cost = palloc(sizeof(Cost) * Max(n, 1));
	int		   *order = palloc(sizeof(int) * Max(n, 1));
	bool		seen_t = false;
	bool		seen_l = false;
	bool		t_fallible = false;
	bool		l_fallible_seen = false;
	ListCell   *lc;
	int			i;

	int			nbase = 0;
	int			pass;

	i = 0;
	foreach(lc, clauses)
	{
		QualCost	qc;

		cost_qual_eval_node(&qc, (Node *) lfirst(lc), root);
		cost[i] = qc.per_tuple;
		i++;
	}
	/* the starting order: other clauses, then equalities */
	for (pass = 0; pass < 2; pass++)
	{
		i = 0;
		foreach(lc, clauses)
		{
			Node	   *clause = (Node *) lfirst(lc);
			bool		equality;

			equality = kinds[i] == 'K' ||
				(kinds[i] == 'F' && IsA(clause, OpExpr) &&
				 list_length(((OpExpr *) clause)->args) == 2 &&
				 op_mergejoinable(((OpExpr *) clause)->opno,
								  exprType(linitial(((OpExpr *) clause)->args))) &&
				 !contain_volatile_functions(clause));
			if (equality == (pass == 1))
				order[nbase++] = i;
			i++;
		}
	}
	/* stable insertion sort by cost */
	for (i = 1; i < n; i++)
	{
		int			it = order[i];
		int			j;

		for (j = i; j > 0 && cost[order[j - 1]] > cost[it]; j--)
			order[j] = order[j - 1];
		order[j] = it;
	}
	for (i = 0; i < n; i++)
	{
		int			k = order[i];

		switch (kinds[k])
		{
			case 'T':
				seen_t = true;
				t_fallible = fallible[k];
				break;
			case 'L':
				seen_l = true;
				if (fallible[k] && !seen_t)
					return false;	/* a bound before the time condition */
				l_fallible_seen |= fallible[k];
				break;
			default:
				/* a key or filter after the time condition or a bound */
				if ((seen_t && t_fallible) || l_fallible_seen)
					return false;
				break;
		}
	}
	(void) seen_l;
	return true;
}

/*
 * asof_outer_time_safe
 *		Can the outer time expr be computed for every outer row without an
 *		error PostgreSQL's plan would not raise?  The merge and sweep sort
 *		the outer rows by it, and so does the lookup's run-time fallback, so
 *		they compute it for rows PostgreSQL's plan never computes it for
 *		(rows whose keys have no versions).  A column, a constant or a
 *		parameter cannot fail; a shift time_shift.c recognises is sorted by
 *		its base and computed without error, so its base must be one of
 *		those.  Anything else (o.t + interval '1 month', a timestamptz plus
 *		days, a function call) can fail near the end of its type's range.
 */
bool
asof_outer_time_safe(Expr *expr)
{
	Expr	   *base;
	WjShift		shift;

	if (IsA(expr, Var) || IsA(expr, Const) || IsA(expr, Param))
		return true;
	if (wj_shift_match(expr, &base, &shift))
		return IsA(base, Var) || IsA(base, Const) || IsA(base, Param);
	return false;
}

/*
 * asof_cond_is_key
 *		Is cond an equality of one of the btree opfamilies its operator can
 *		merge in, with what a sort on it needs?  Fills the opfamily fields of
 *		cond from the last opfamily tried: the matching one when it is.
 */
bool
asof_cond_is_key(AsOfCond *cond)
{
	List	   *opfamilies = get_mergejoin_opfamilies(cond->opno);
	ListCell   *olc;

	foreach(olc, opfamilies)
	{
		if (asof_cond_in_opfamily(cond, lfirst_oid(olc), true) &&
			cond->strategy == BTEqualStrategyNumber)
			return true;
	}
	return false;
}

/*
 * asof_keys_hashable
 *		Can the keys be hashed: there is one at least, and each has the same
 *		type on both sides and one hash function for both?
 */
bool
asof_keys_hashable(List *keys)
{
	bool		hashable = (keys != NIL);
	ListCell   *lc;

	foreach(lc, keys)
	{
		AsOfCond   *c = (AsOfCond *) lfirst(lc);
		Oid			lhs;
		Oid			rhs;

		if (c->innertype != c->outertype ||
			!op_hashjoinable(c->opno, c->innertype) ||
			!get_op_hash_functions(c->opno, &lhs, &rhs) || lhs != rhs)
			hashable = false;
	}
	return hashable;
}

/*
 * asof_strip_subquery
 *		The start of a rewritten subquery: a copy of sq whose only WHERE
 *		conditions are kept, without ORDER BY and LIMIT, and without its junk
 *		output columns; *noriginal is set to the number of its real ones.
 *		NULL when a junk column comes before a real one (the caller says
 *		why).
 */
static Query *
asof_strip_subquery(Query *sq, List *kept, int *noriginal)
{
	Query	   *q = copyObject(sq);
	List	   *tlist = NIL;
	ListCell   *lc;

	*noriginal = 0;
	q->jointree->quals = kept ? (Node *) make_ands_explicit(kept) : NULL;
	q->sortClause = NIL;
	q->limitCount = NULL;
	q->limitOption = WJ_LIMIT_OPTION_NONE;
	foreach(lc, q->targetList)
	{
		TargetEntry *tle = (TargetEntry *) lfirst(lc);

		if (tle->resjunk)
			continue;
		if (tle->resno != *noriginal + 1)
			return NULL;
		tle->ressortgroupref = 0;
		tlist = lappend(tlist, tle);
		(*noriginal)++;
	}
	q->targetList = tlist;
	return q;
}

/*
 * asof_add_key_columns
 *		Give every key of spec its output column of the rewritten subquery q
 *		(an existing one with the same expression, else a new "asof_keyN"),
 *		and, when sorted, an ascending ORDER BY item on it, in the keys'
 *		order.
 */
static void
asof_add_key_columns(Query *q, int noriginal, AsOfSpec *spec, bool sorted,
					 Index *next_ref)
{
	ListCell   *lc;
	int			n = 0;

	foreach(lc, spec->keys)
	{
		AsOfCond   *c = (AsOfCond *) lfirst(lc);

		c->resno = asof_target_resno(q, noriginal, c->inner, "asof_key",
									 ++n, &spec->new_colnames);
		if (sorted)
			asof_add_sort(q, c->resno,
						  get_opfamily_member(c->opfamily, c->innertype,
											  c->innertype,
											  BTLessStrategyNumber),
						  get_opfamily_member(c->opfamily, c->innertype,
											  c->innertype,
											  BTEqualStrategyNumber),
						  false, next_ref);
	}
}

/*
 * asof_idiom_order
 *		Is sq a plain SELECT ... FROM one relation ... ORDER BY one item
 *		LIMIT 1, without volatile functions?  Returns its ORDER BY item, else
 *		NULL.
 */
static SortGroupClause *
asof_idiom_order(PlannerInfo *root, Query *sq)
{
	Node	   *limit;

	if (sq->commandType != CMD_SELECT || sq->utilityStmt != NULL ||
		sq->hasAggs || sq->hasWindowFuncs || sq->hasTargetSRFs ||
		sq->hasSubLinks || sq->hasDistinctOn || sq->hasRecursive ||
		sq->hasModifyingCTE || sq->hasForUpdate || sq->cteList != NIL ||
		sq->rowMarks != NIL || sq->groupClause != NIL ||
		sq->groupingSets != NIL || sq->havingQual != NULL ||
		sq->distinctClause != NIL || sq->setOperations != NULL ||
		sq->windowClause != NIL || sq->limitOffset != NULL ||
		sq->limitCount == NULL || sq->limitOption != LIMIT_OPTION_COUNT ||
		list_length(sq->sortClause) != 1 ||
		sq->jointree == NULL || list_length(sq->jointree->fromlist) != 1 ||
		!IsA(linitial(sq->jointree->fromlist), RangeTblRef))
		ASOF_NO("the subquery is not SELECT ... FROM one relation ... ORDER BY one item LIMIT");

	limit = eval_const_expressions(root, copyObject(sq->limitCount));
	if (!IsA(limit, Const) || ((Const *) limit)->constisnull ||
		((Const *) limit)->consttype != INT8OID ||
		DatumGetInt64(((Const *) limit)->constvalue) != 1)
		ASOF_NO("the subquery's LIMIT is not the constant 1");

	/* Per-row volatile functions would be evaluated a different number of times */
	if (contain_volatile_functions((Node *) sq))
		ASOF_NO("the subquery calls volatile functions");

	return linitial_node(SortGroupClause, sq->sortClause);
}

/*
 * asof_sort_quals
 *		Sort the WHERE conjuncts of sq into equality keys, the time condition
 *		(the bound on the ORDER BY expression order_expr in the direction of
 *		the ORDER BY), tolerance bounds (on it, in the other direction) and
 *		filters on the subquery's relation alone (appended to *kept).
 *		Returns a new spec holding the keys, time and tolerances, with
 *		forward and strict set; NULL unless every correlated condition is
 *		one of those, there is a time condition, and the outer expressions
 *		are computed for the rows PostgreSQL's plan computes them for.
 */
static AsOfSpec *
asof_sort_quals(PlannerInfo *root, Query *sq, Expr *order_expr,
				Oid time_opfamily, bool forward, List **kept)
{
	AsOfSpec   *spec;
	List	   *quals = NIL;
	ListCell   *lc;
	char	   *kinds;
	bool	   *fallible;

	spec = palloc0(sizeof(AsOfSpec));
	spec->forward = forward;

	asof_flatten_and(sq->jointree->quals, &quals);
	kinds = palloc0(list_length(quals) + 1);
	fallible = palloc0(sizeof(bool) * (list_length(quals) + 1));
	foreach(lc, quals)
	{
		int			qi = foreach_current_index(lc);
		AsOfCond   *c;

		if (!asof_correlated_cond(root, lfirst(lc), kept, &c))
			ASOF_NO("a condition on the outer row is not a comparison of an inner and an outer expression");
		kinds[qi] = 'F';
		if (c == NULL)
			continue;			/* a filter on the relation alone */
		if (equal(c->inner, order_expr) &&
			asof_cond_in_opfamily(c, time_opfamily, false) &&
			c->strategy != BTEqualStrategyNumber)
		{
			bool		upper = (c->strategy == BTLessStrategyNumber ||
								 c->strategy == BTLessEqualStrategyNumber);

			fallible[qi] = !IsA(c->outer, Var);
			if (upper != spec->forward)
			{
				/* the bound in the direction of the ORDER BY */
				if (spec->time != NULL ||
					!asof_cond_in_opfamily(c, time_opfamily, true))
					ASOF_NO("more than one time bound in the direction of the ORDER BY, or one without a sort order");
				spec->time = c;
				spec->strict = (c->strategy == BTLessStrategyNumber ||
								c->strategy == BTGreaterStrategyNumber);
				kinds[qi] = 'T';
			}
			else
			{
				spec->tolerances = lappend(spec->tolerances, c);
				kinds[qi] = 'L';
			}
			continue;
		}
		if (!asof_cond_is_key(c))
			ASOF_NO("a key condition is not a mergeable equality");
		spec->keys = lappend(spec->keys, c);
		kinds[qi] = 'K';
	}
	if (spec->time == NULL)
		ASOF_NO("no time condition on the ORDER BY column");
	if (!asof_outer_time_safe(spec->time->outer))
		ASOF_NO("the outer time can raise an error for outer rows PostgreSQL's plan never computes it for");
	if (!asof_order_ok(root, quals, kinds, fallible))
		ASOF_NO("PostgreSQL would evaluate a fallible outer expression for other rows than the node");
	return spec;
}

/*
 * asof_rewrite_subquery
 *		The rewritten subquery the node reads instead of sq: sq without the
 *		correlated conditions, ORDER BY and LIMIT, with the inner keys and
 *		time as output columns, sorted by (keys, time, output columns): the
 *		keys left out unless sort_keys, the time descending if time_desc,
 *		the output columns (the tie breakers) descending with NULLs first if
 *		ties_desc.  Sets the columns' resno in spec.  NULL when sq's output
 *		columns or the copy's references to the parent query cannot be
 *		handled.
 */
Query *
asof_rewrite_subquery(Query *sq, AsOfSpec *spec, List *kept, bool sort_keys,
					  bool time_desc, bool ties_desc)
{
	Oid			time_type = spec->time->innertype;
	Query	   *q;
	ListCell   *lc;
	int			noriginal;
	int			depth;
	Index		next_ref = 1;

	q = asof_strip_subquery(sq, kept, &noriginal);
	if (q == NULL)
		ASOF_NO("junk columns before the subquery's real columns");

	asof_add_key_columns(q, noriginal, spec, sort_keys, &next_ref);
	spec->time->resno = asof_target_resno(q, noriginal, spec->time->inner,
										  "asof_time", 0,
										  &spec->new_colnames);
	asof_add_sort(q, spec->time->resno,
				  get_opfamily_member(spec->time->opfamily, time_type,
									  time_type,
									  time_desc ? BTGreaterStrategyNumber :
									  BTLessStrategyNumber),
				  get_opfamily_member(spec->time->opfamily, time_type,
									  time_type, BTEqualStrategyNumber),
				  false, &next_ref);
	foreach(lc, spec->tolerances)
		((AsOfCond *) lfirst(lc))->resno = spec->time->resno;
	asof_add_tie_breakers(q, noriginal, ties_desc, &next_ref);

	/* Nothing of the parent query may remain in it */
	depth = -1;
	if (asof_outer_refs_walker((Node *) q, &depth))
		ASOF_NO("the rewritten subquery still refers to the outer query");
	return q;
}

/*
 * asof_rewrite
 *		asof_rewrite_subquery for the forward and backward idioms: decides
 *		spec->hashed and how the rewritten subquery is sorted.
 */
static Query *
asof_rewrite(Query *sq, AsOfSpec *spec, List *kept)
{
	/*
	 * Strategy.  When every key has the same type on both sides and is
	 * hashable, both inputs are sorted by time alone and the executor keeps
	 * the current version of each key in a hash table (sorting by time is
	 * much cheaper than by text keys).  Otherwise both are sorted by (keys,
	 * time) and merged.
	 */
	spec->hashed = asof_keys_hashable(spec->keys);

	/*
	 * The hashed forward sweep goes from the latest time down.  Tie
	 * breakers: among versions with equal keys and time, the executor takes
	 * the one whose output row sorts last in ascending order with NULLs
	 * last.  The hashed sweeps and the backward merge keep the last
	 * candidate of the stream; the forward merge keeps the first one, so it
	 * sorts the tie breakers descending with NULLs first.
	 */
	return asof_rewrite_subquery(sq, spec, kept, !spec->hashed,
								 spec->hashed && spec->forward,
								 spec->forward && !spec->hashed);
}

/*
 * asof_recognise
 *		Analyse the LATERAL subquery sq of the parent query root.  Returns
 *		NULL unless it is exactly the as-of idiom described in the file
 *		header, else the recognised conditions and the rewritten subquery.
 *		The steps: the query's shape (asof_idiom_order), the ORDER BY (the
 *		nearest idiom goes to asof_recognise_nearest), the WHERE conjuncts
 *		(asof_sort_quals), the ORDER BY's direction against the time
 *		condition, and the rewritten subquery (asof_rewrite).
 */
AsOfSpec *
asof_recognise(PlannerInfo *root, Query *sq)
{
	AsOfSpec   *spec;
	SortGroupClause *order;
	TargetEntry *order_tle;
	Oid			time_opfamily;
	Oid			opcintype;
	int16		order_strategy;
	List	   *kept = NIL;
	Query	   *q;

	/* A plain SELECT ... FROM one relation ... ORDER BY one item LIMIT 1 */
	order = asof_idiom_order(root, sq);
	if (order == NULL)
		return NULL;

	/* ORDER BY the version time: DESC looks backward, ASC forward */
	order_tle = get_sortgroupclause_tle(order, sq->targetList);
	if (IsA(order_tle->expr, OpExpr))
		return asof_recognise_nearest(root, sq, order, order_tle);
	if (!wj_ordering_op_strategy(order->sortop, &time_opfamily,
								 &opcintype, &order_strategy))
		ASOF_NO("the subquery's ORDER BY is not a btree ordering");

	/* Sort the WHERE conjuncts into keys, time, tolerances and filters */
	spec = asof_sort_quals(root, sq, order_tle->expr, time_opfamily,
						   order_strategy == BTLessStrategyNumber, &kept);
	if (spec == NULL)
		return NULL;

	/* The ORDER BY must be the matching direction of that same opfamily */
	if (opcintype != spec->time->innertype ||
		order_strategy != (spec->forward ? BTLessStrategyNumber :
						   BTGreaterStrategyNumber))
		ASOF_NO("the ORDER BY does not go the direction of the time condition");

	q = asof_rewrite(sq, spec, kept);
	if (q == NULL)
		return NULL;
	spec->rewritten = q;
	return spec;
}
