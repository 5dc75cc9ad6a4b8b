/*-------------------------------------------------------------------------
 *
 * asof_planner.c
 *	  Planner side of the AsOfJoin custom scan: recognition of the LATERAL
 *	  "latest version at that time" idiom and creation of its path and plan.
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
 * When the join pathlist hook offers the join of an outer relation with
 * such a subquery relation, we analyse the subquery's original Query tree
 * (rte->subquery).  If every correlated condition is one we can execute
 * exactly, we build a rewritten copy of the subquery without them and
 * without ORDER BY/LIMIT, which outputs its original columns plus the inner
 * key and time expressions and is ordered by (keys, time, tie breakers).
 * PostgreSQL plans that copy like any subquery (so row-level security
 * quals, security-barrier views, privileges and the remaining filters are
 * handled by PostgreSQL itself, and a pre-sorted index path is used when it
 * is cheaper than a sort).  The outer side is the outer relation's own
 * cheapest path, sorted by (keys, outer time) through pathkeys, so an
 * already sorted path or PostgreSQL's Sort node provides the order.  The
 * executor (asof_exec.c) then merges the two sorted streams.  With
 * hashable keys the order is by time alone (the sweep strategy), and a
 * second path, the lookup strategy, takes the outer relation's cheapest
 * path unsorted and looks each row up among the versions held in memory;
 * it is offered only when the versions are expected to fit in the memory
 * a Hash Join may use (the executor falls back to the sweep if they do
 * not), and its output has no useful order.
 *
 * The nearest idiom, ORDER BY r.update_time <-> o.order_time with the
 * distance operator of btree_gist (the closest version before or after),
 * is recognised by asof_recognise_nearest, at the end of this file.
 *
 * Anything we do not recognise exactly adds no path: PostgreSQL's plan is
 * kept.
  The paths compete on cost: both inputs in full plus one merge
 * pass or one lookup per outer row, against PostgreSQL's per-row index
 * lookups.
 *
 * When the path is chosen, PlanCustomPath makes the rewritten subquery the
 * relation's subroot, so that set_plan_references and SS_finalize_plan
 * process the SubqueryScan we create exactly as they would process one of
 * PostgreSQL's own (flattening its range table into the final one, which
 * is also where the executor checks permissions).
 *
 * src/asof_planner.c
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

#include "asof.h"
#include "join_common.h"
#include "time_shift.h"
#include "windowjoin.h"

/*
 * One recognised comparison between an inner and an outer expression,
 * normalised so that it reads "inner OP outer".
 */
typedef struct AsOfCond
{
	Expr	   *inner;			/* expression of the subquery's level */
	Expr	   *outer;			/* expression of the parent's level */
	Oid			opno;			/* operator, inner on the left */
	Oid			opfamily;		/* btree opfamily it belongs to */
	int			strategy;		/* its btree strategy there */
	Oid			innertype;		/* declared input types of opno */
	Oid			outertype;
	Oid			collation;		/* input collation */
	AttrNumber	resno;			/* inner column in the rewritten subquery */
} AsOfCond;

/* Result of recognising a LATERAL subquery */
typedef struct AsOfSpec
{
	List	   *keys;			/* AsOfCond * for the equality keys */
	AsOfCond   *time;			/* the time condition */
	List	   *tolerances;		/* AsOfCond * for tolerance bounds */
	bool		forward;		/* earliest version at/after instead */
	bool		strict;			/* < or > instead of <= or >= */
	bool		hashed;			/* keys hashed, inputs sorted by time only */
	Query	   *rewritten;		/* the subquery to plan instead */
	List	   *new_colnames;	/* names of the columns added to it */

	/* nearest: ORDER BY inner_time <-> outer_time (see asof_recognise_nearest) */
	bool		nearest;
	bool		near_keep_nulls;	/* no tolerance: NULL times take part */
	bool		near_hashable;	/* keys hashable: the lookup strategy too */
	bool		near_inner_first;	/* the distance's first argument is inner */
	Oid			near_opno;		/* the distance operator */
	Oid			near_func;		/* and its function */
	Oid			near_ltop;		/* "<" ordering its results */
	Oid			near_type;		/* the time type */
} AsOfSpec;

/* Our CustomPath, extended with what PlanCustomPath needs */
typedef struct AsOfPath
{
	CustomPath	cpath;
	JoinType	jointype;
	int			strategy;		/* ASOF_STRATEGY_* */
	Index		inner_relid;	/* range table index of the subquery */
	AsOfSpec   *spec;
	PlannerInfo *subroot;		/* the rewritten subquery, planned */
	Path	   *inner_path;		/* its chosen (sorted) path */
	List	   *restrictlist;	/* the join's RestrictInfos */
} AsOfPath;

static Plan *asof_plan_path(PlannerInfo *root, RelOptInfo *rel,
							CustomPath *best_path, List *tlist,
							List *clauses, List *custom_plans);
static double asof_lookup_bytes(Path *inner_path);
static Expr *asof_nearest_show(AsOfSpec *spec, Var *var);
static List *asof_nearest_private(AsOfSpec *spec);
static AsOfSpec *asof_recognise_nearest(PlannerInfo *root, Query *sq,
										SortGroupClause *order,
										TargetEntry *order_tle);
static void asof_add_partial_paths(PlannerInfo *root, RelOptInfo *joinrel,
								   RelOptInfo *outerrel, RelOptInfo *innerrel,
								   JoinType jointype, JoinPathExtraData *extra,
								   AsOfSpec *spec, PlannerInfo *subroot,
								   RelOptInfo *final_rel, List *outer_pathkeys,
								   List *quals, Query *serial_query);
static List *asof_outer_exprs(AsOfSpec *spec);
static void asof_consider_parallel(PlannerInfo *root, RelOptInfo *joinrel,
								   RelOptInfo *outerrel, RelOptInfo *innerrel,
								   JoinPathExtraData *extra);
static Path *asof_make_path(PlannerInfo *root, RelOptInfo *joinrel,
							RelOptInfo *innerrel, JoinType jointype,
							JoinPathExtraData *extra, AsOfSpec *spec,
							PlannerInfo *subroot, Path *inner_path,
							Path *outer_path, List *quals, int strategy);

/* Say at DEBUG2 why a join was not taken, for whoever wonders */
#define ASOF_NO(reason) \
	do { \
		elog(DEBUG2, "AsOfJoin: subquery not recognised: %s", (reason)); \
		return NULL; \
	} while (0)
#define ASOF_NO_PATH(reason) \
	do { \
		elog(DEBUG2, "AsOfJoin: no path: %s", (reason)); \
		return; \
	} while (0)

static CustomPathMethods asof_path_methods = {
	.CustomName = ASOF_NAME,
	.PlanCustomPath = asof_plan_path,
};

/*
 * Which levels of Vars an expression of the subquery contains.
 */
#define ASOF_LEVEL0		0x01	/* Vars of the subquery itself */
#define ASOF_LEVEL1		0x02	/* Vars of the parent query */
#define ASOF_OTHER		0x04	/* anything we do not handle */

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

static int
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
static bool
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
static void
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
static bool
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
 * asof_cond_in_opfamily
 *		Check that cond's operator is in the btree opfamily and that the
 *		opfamily has what the merge needs: a comparison support function
 *		for (outer type, inner type) and, when need_sort, "<" and "=" on each
 *		side's type.  Fills the opfamily fields of cond.
 */
static bool
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
static bool
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
static bool
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
 * asof_recognise
 *		Analyse the LATERAL subquery sq of the parent query root.  Returns
 *		NULL unless it is exactly the as-of idiom described in the file
 *		header, else the recognised conditions and the rewritten subquery.
 */
static AsOfSpec *
asof_recognise(PlannerInfo *root, Query *sq)
{
	AsOfSpec   *spec;
	Node	   *limit;
	SortGroupClause *order;
	TargetEntry *order_tle;
	Oid			time_opfamily;
	Oid			opcintype;
	int16		order_strategy;
	List	   *quals = NIL;
	List	   *kept = NIL;
	ListCell   *lc;
	Query	   *q;
	List	   *tlist = NIL;
	int			noriginal = 0;
	int			depth;
	Index		next_ref = 1;
	int			n;
	char	   *kinds;
	bool	   *fallible;

	/* A plain SELECT ... FROM one relation ... ORDER BY one item LIMIT 1 */
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

	/* ORDER BY the version time: DESC looks backward, ASC forward */
	order = linitial_node(SortGroupClause, sq->sortClause);
	order_tle = get_sortgroupclause_tle(order, sq->targetList);
	if (IsA(order_tle->expr, OpExpr))
		return asof_recognise_nearest(root, sq, order, order_tle);
	if (!get_ordering_op_properties(order->sortop, &time_opfamily,
									&opcintype, &order_strategy))
		ASOF_NO("the subquery's ORDER BY is not a btree ordering");

	spec = palloc0(sizeof(AsOfSpec));
	spec->forward = (order_strategy == BTLessStrategyNumber);

	/* Sort the WHERE conjuncts into keys, time, tolerances and filters */
	asof_flatten_and(sq->jointree->quals, &quals);
	kinds = palloc0(list_length(quals) + 1);
	fallible = palloc0(sizeof(bool) * (list_length(quals) + 1));
	foreach(lc, quals)
	{
		Node	   *clause = (Node *) lfirst(lc);
		int			qi = foreach_current_index(lc);
		AsOfCond	cond;
		AsOfCond   *c;

		kinds[qi] = 'F';
		if (!(asof_levels(clause) & (ASOF_LEVEL1 | ASOF_OTHER)))
		{
			kept = lappend(kept, clause);	/* filter on the relation alone */
			continue;
		}
		if (!asof_split_comparison(root, clause, &cond))
			ASOF_NO("a condition on the outer row is not a comparison of an inner and an outer expression");

		c = palloc(sizeof(AsOfCond));
		*c = cond;
		if (equal(cond.inner, order_tle->expr) &&
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
		else
		{
			List	   *opfamilies = get_mergejoin_opfamilies(cond.opno);
			ListCell   *olc;
			bool		found = false;

			foreach(olc, opfamilies)
			{
				if (asof_cond_in_opfamily(c, lfirst_oid(olc), true) &&
					c->strategy == BTEqualStrategyNumber)
				{
					found = true;
					break;
				}
			}
			if (!found)
				ASOF_NO("a key condition is not a mergeable equality");
			spec->keys = lappend(spec->keys, c);
			kinds[qi] = 'K';
		}
	}
	if (spec->time == NULL)
		ASOF_NO("no time condition on the ORDER BY column");
	if (!asof_outer_time_safe(spec->time->outer))
		ASOF_NO("the outer time can raise an error for outer rows PostgreSQL's plan never computes it for");
	if (!asof_order_ok(root, quals, kinds, fallible))
		ASOF_NO("PostgreSQL would evaluate a fallible outer expression for other rows than the node");

	/* The ORDER BY must be the matching direction of that same opfamily */
	if (opcintype != spec->time->innertype ||
		order_strategy != (spec->forward ? BTLessStrategyNumber :
						   BTGreaterStrategyNumber))
		ASOF_NO("the ORDER BY does not go the direction of the time condition");

	/*
	 * Build the rewritten subquery: the same query without the correlated
	 * conditions, ORDER BY and LIMIT, with the inner keys and time as output
	 * columns, sorted by (keys, time, output columns).
	 */
	q = copyObject(sq);
	q->jointree->quals = kept ? (Node *) make_ands_explicit(kept) : NULL;
	q->sortClause = NIL;
	q->limitCount = NULL;
	q->limitOption = LIMIT_OPTION_DEFAULT;
	foreach(lc, q->targetList)
	{
		TargetEntry *tle = (TargetEntry *) lfirst(lc);

		if (tle->resjunk)
			continue;
		if (tle->resno != noriginal + 1)
			ASOF_NO("junk columns before the subquery's real columns");
		tle->ressortgroupref = 0;
		tlist = lappend(tlist, tle);
		noriginal++;
	}
	q->targetList = tlist;

	/*
	 * Strategy.  When every key has the same type on both sides and is
	 * hashable, both inputs are sorted by time alone and the executor keeps
	 * the current version of each key in a hash table (sorting by time is
	 * much cheaper than by text keys).  Otherwise both are sorted by (keys,
	 * time) and merged.
	 */
	spec->hashed = (spec->keys != NIL);
	foreach(lc, spec->keys)
	{
		AsOfCond   *c = (AsOfCond *) lfirst(lc);
		Oid			lhs;
		Oid			rhs;

		if (c->innertype != c->outertype ||
			!op_hashjoinable(c->opno, c->innertype) ||
			!get_op_hash_functions(c->opno, &lhs, &rhs) || lhs != rhs)
			spec->hashed = false;
	}

	n = 0;
	foreach(lc, spec->keys)
	{
		AsOfCond   *c = (AsOfCond *) lfirst(lc);

		c->resno = asof_target_resno(q, noriginal, c->inner, "asof_key",
									 ++n, &spec->new_colnames);
		if (!spec->hashed)
			asof_add_sort(q, c->resno,
						  get_opfamily_member(c->opfamily, c->innertype,
											  c->innertype,
											  BTLessStrategyNumber),
						  get_opfamily_member(c->opfamily, c->innertype,
											  c->innertype,
											  BTEqualStrategyNumber),
						  false, &next_ref);
	}
	spec->time->resno = asof_target_resno(q, noriginal, spec->time->inner,
										  "asof_time", 0,
										  &spec->new_colnames);
	/* the hashed forward sweep goes from the latest time down */
	asof_add_sort(q, spec->time->resno,
				  get_opfamily_member(time_opfamily, spec->time->innertype,
									  spec->time->innertype,
									  (spec->hashed && spec->forward) ?
									  BTGreaterStrategyNumber :
									  BTLessStrategyNumber),
				  get_opfamily_member(time_opfamily, spec->time->innertype,
									  spec->time->innertype,
									  BTEqualStrategyNumber),
				  false, &next_ref);
	foreach(lc, spec->tolerances)
		((AsOfCond *) lfirst(lc))->resno = spec->time->resno;

	/*
	 * Tie breakers: among versions with equal keys and time, the executor
	 * takes the one whose output row sorts last in ascending order with
	 * NULLs last.  The hashed sweeps and the backward merge keep the last
	 * candidate of the stream; the forward merge keeps the first one, so it
	 * sorts the tie breakers descending with NULLs first.
	 */
	asof_add_tie_breakers(q, noriginal, spec->forward && !spec->hashed,
						  &next_ref);

	/* Nothing of the parent query may remain in it */
	depth = -1;
	if (asof_outer_refs_walker((Node *) q, &depth))
		ASOF_NO("the rewritten subquery still refers to the outer query");

	spec->rewritten = q;
	return spec;
}

/*
 * asof_outer_pathkeys
 *		Pathkeys ordering the outer relation by (keys, time), ascending with
 *		NULLs last, using each comparison's opfamily; redundant ones are
 *		left out.  The hashed strategy orders by time alone (descending for
 *		a forward lookup).
 */
static List *
asof_outer_pathkeys(PlannerInfo *root, RelOptInfo *outerrel, AsOfSpec *spec)
{
	List	   *pathkeys = NIL;
	List	   *conds;
	ListCell   *lc;

	if (spec->hashed)
		conds = list_make1(spec->time);
	else
		conds = lappend(list_copy(spec->keys), spec->time);
	foreach(lc, conds)
	{
		AsOfCond   *c = (AsOfCond *) lfirst(lc);
		Oid			ltop = get_opfamily_member(c->opfamily, c->outertype,
											   c->outertype,
											   (spec->hashed && spec->forward) ?
											   BTGreaterStrategyNumber :
											   BTLessStrategyNumber);
		Expr	   *expr = c->outer;
		Expr	   *base;
		WjShift		shift;
		List	   *pk;
		PathKey    *pathkey;

		/*
		 * A shifted outer time (o.t + interval '1 hour') orders like its
		 * base: sort by the base, so that no row's shifted time is computed
		 * before the node knows PostgreSQL's plan would compute it (near
		 * the end of the range, that raises an error).
		 */
		if (c == spec->time && wj_shift_match(expr, &base, &shift))
			expr = base;
		pk = build_expression_pathkey(root, expr, root->nullable_baserels,
									  ltop, outerrel->relids, true);
		if (pk == NIL)
			continue;
		pathkey = linitial_node(PathKey, pk);
		if (EC_MUST_BE_REDUNDANT(pathkey->pk_eclass) ||
			list_member_ptr(pathkeys, pathkey))
			continue;
		pathkeys = lappend(pathkeys, pathkey);
	}
	return pathkeys;
}

/*
 * wj_asof_add_paths
 *		Join pathlist hook entry: add an AsOfJoin path when innerrel is a
 *		LATERAL subquery recognised by asof_recognise and outerrel provides
 *		everything it refers to.
 */
void
wj_asof_add_paths(PlannerInfo *root, RelOptInfo *joinrel,
				  RelOptInfo *outerrel, RelOptInfo *innerrel,
				  JoinType jointype, JoinPathExtraData *extra)
{
	RangeTblEntry *rte;
	AsOfSpec   *spec;
	List	   *outer_pathkeys;
	Path	   *outer_path;
	Path	   *cheapest;
	PlannerInfo *subroot;
	RelOptInfo *final_rel;
	Path	   *inner_path;
	List	   *save_plan_params;
	ListCell   *lc;
	List	   *quals = NIL;
	Query	   *serial_query = NULL;

	if (!wj_enable_asof_join)
		ASOF_NO_PATH("windowjoin.enable_asof_join is off");
	if (jointype != JOIN_INNER && jointype != JOIN_LEFT)
		ASOF_NO_PATH("not an inner or left join");
	if (joinrel->reloptkind != RELOPT_JOINREL ||
		innerrel->reloptkind != RELOPT_BASEREL ||
		innerrel->rtekind != RTE_SUBQUERY)
		ASOF_NO_PATH("the inner side is not a subquery relation");
	if (bms_is_empty(innerrel->lateral_relids) ||
		!bms_is_subset(innerrel->lateral_relids, outerrel->relids) ||
		!bms_is_empty(joinrel->lateral_relids))
		ASOF_NO_PATH("the inner subquery is not LATERAL to the outer side alone");
	if (IS_DUMMY_REL(innerrel) || IS_DUMMY_REL(outerrel))
		ASOF_NO_PATH("a side is empty (dummy)");

	/*
	 * EvalPlanQual rechecks would need the joined rows rebuilt from the
	 * test tuples; keep to queries that never recheck.
	 */
	if (root->parse->rowMarks != NIL ||
		(root->parse->commandType != CMD_SELECT &&
		 root->parse->commandType != CMD_INSERT))
		ASOF_NO_PATH("row marks, or not a SELECT or INSERT");
	if (root->plan_params != NIL)
		ASOF_NO_PATH("the query has parameters from an outer query level");

	rte = planner_rt_fetch(innerrel->relid, root);
	if (rte->rtekind != RTE_SUBQUERY || rte->subquery == NULL ||
		rte->tablesample != NULL)
		ASOF_NO_PATH("the inner side is not a plain subquery");

	/*
	 * Only plain Vars of the subquery's own columns are needed above it: a
	 * whole-row reference would see the columns we add to the subquery.
	 */
	foreach(lc, innerrel->reltarget->exprs)
	{
		if (!IsA(lfirst(lc), Var))
			ASOF_NO_PATH("the subquery's output is used as more than plain columns");
	}
	{
		List	   *clauses = NIL;
		List	   *vars;

		foreach(lc, extra->restrictlist)
			clauses = lappend(clauses, ((RestrictInfo *) lfirst(lc))->clause);
		foreach(lc, innerrel->baserestrictinfo)
			clauses = lappend(clauses, ((RestrictInfo *) lfirst(lc))->clause);
		vars = pull_var_clause((Node *) list_make2(innerrel->reltarget->exprs,
												   clauses),
							   PVC_RECURSE_AGGREGATES |
							   PVC_RECURSE_WINDOWFUNCS |
							   PVC_RECURSE_PLACEHOLDERS);
		foreach(lc, vars)
		{
			Var		   *var = (Var *) lfirst(lc);

			if (var->varno == innerrel->relid && var->varattno <= 0)
				ASOF_NO_PATH("a whole-row or system column of the subquery is used");
		}
	}

	spec = asof_recognise(root, rte->subquery);
	if (spec == NULL)
		ASOF_NO_PATH("the subquery is not a latest-version lookup");

	/* The outer expressions must be computable from the outer relation */
	foreach(lc, spec->keys)
	{
		AsOfCond   *c = (AsOfCond *) lfirst(lc);

		if (!bms_is_subset(pull_varnos(root, (Node *) c->outer),
						   outerrel->relids))
			ASOF_NO_PATH("a key refers to relations other than the outer side");
	}
	if (!bms_is_subset(pull_varnos(root, (Node *) spec->time->outer),
					   outerrel->relids))
		ASOF_NO_PATH("the time condition refers to relations other than the outer side");
	foreach(lc, spec->tolerances)
	{
		AsOfCond   *c = (AsOfCond *) lfirst(lc);

		if (!bms_is_subset(pull_varnos(root, (Node *) c->outer),
						   outerrel->relids))
			ASOF_NO_PATH("a tolerance refers to relations other than the outer side");
	}

	/* The outer side: its cheapest path, sorted by (keys, time) */
	cheapest = outerrel->cheapest_total_path;
	if (cheapest == NULL || PATH_REQ_OUTER(cheapest) != NULL)
		ASOF_NO_PATH("the outer side has no unparameterized path");
	outer_pathkeys = asof_outer_pathkeys(root, outerrel, spec);
	outer_path = wj_sorted_input(root, outerrel, outer_pathkeys);

	/* The inner side: plan the rewritten subquery (planning scribbles on it) */
	if (outerrel->partial_pathlist != NIL)
		serial_query = copyObject(spec->rewritten);
	save_plan_params = root->plan_params;
	root->plan_params = NIL;
	subroot = subquery_planner(root->glob, spec->rewritten, root, false, 0.0);
	if (root->plan_params != NIL)
	{
		/* it still refers to us: give up (cannot happen, we checked) */
		root->plan_params = save_plan_params;
		ASOF_NO_PATH("the planned subquery still refers to the outer query");
	}
	root->plan_params = save_plan_params;
	final_rel = fetch_upper_rel(subroot, UPPERREL_FINAL, NULL);
	inner_path = final_rel->cheapest_total_path;
	if (inner_path == NULL || IS_DUMMY_REL(final_rel) ||
		!pathkeys_contained_in(subroot->sort_pathkeys, inner_path->pathkeys))
		ASOF_NO_PATH("the planned subquery is empty or not in ORDER BY order");

	/* The join's conditions, and the subquery relation's own filters */
	foreach(lc, extra->restrictlist)
		quals = lappend(quals, ((RestrictInfo *) lfirst(lc))->clause);
	foreach(lc, innerrel->baserestrictinfo)
		quals = lappend(quals, ((RestrictInfo *) lfirst(lc))->clause);

	asof_consider_parallel(root, joinrel, outerrel, innerrel, extra);
	add_path(joinrel,
			 asof_make_path(root, joinrel, innerrel, jointype, extra, spec,
							subroot, inner_path, outer_path, quals,
							spec->hashed ? ASOF_STRATEGY_SWEEP :
							ASOF_STRATEGY_MERGE));

	/*
	 * With hashable keys, also the lookup strategy: the outer relation's
	 * cheapest path as it is, no sort.  It holds every version, so offer it
	 * only when they are expected to fit in the memory a Hash Join may use
	 * (the executor falls back to the sweep at run time if they do not).
	 */
	if ((spec->hashed || spec->near_hashable) &&
		asof_lookup_bytes(inner_path) <=
		(double) get_hash_memory_limit())
		add_path(joinrel,
				 asof_make_path(root, joinrel, innerrel, jointype, extra,
								spec, subroot, inner_path, cheapest, quals,
								ASOF_STRATEGY_LOOKUP));

	asof_add_partial_paths(root, joinrel, outerrel, innerrel, jointype, extra,
						   spec, subroot, final_rel, outer_pathkeys, quals,
						   serial_query);
}

/*
 * asof_add_partial_paths
 *		Partial AsOfJoin paths: each participant of a parallel plan joins its
 *		share of the outer rows (the outer relation's partial path, sorted in
 *		each worker for the merge and sweep strategies, as it is for the
 *		lookup) with every version, read complete in each participant from a
 *		parallel-safe path of the rewritten subquery.  Inner and left joins
 *		both decide per outer row, so the Gather's union is the join.
 */
static void
asof_add_partial_paths(PlannerInfo *root, RelOptInfo *joinrel,
					   RelOptInfo *outerrel, RelOptInfo *innerrel,
					   JoinType jointype, JoinPathExtraData *extra,
					   AsOfSpec *spec, PlannerInfo *subroot,
					   RelOptInfo *final_rel, List *outer_pathkeys,
					   List *quals, Query *serial_query)
{
	Path	   *inner_path = NULL;
	Path	   *outer_path;
	Path	   *path;
	ListCell   *lc;

	if (!joinrel->consider_parallel || outerrel->partial_pathlist == NIL)
	{
		elog(DEBUG2, "AsOfJoin: no partial path (join not parallel safe, or no partial outer path)");
		return;
	}
	foreach(lc, final_rel->pathlist)
	{
		path = (Path *) lfirst(lc);
		if (path->parallel_safe && path->param_info == NULL &&
			pathkeys_contained_in(subroot->sort_pathkeys, path->pathkeys) &&
			(inner_path == NULL || path->total_cost < inner_path->total_cost))
			inner_path = path;
	}
	if (inner_path == NULL && serial_query != NULL)
	{
		/*
		 * Every sorted path of the versions has a Gather in it (the serial
		 * node may read them through a Gather Merge, a worker cannot):
		 * plan the subquery once more without parallel workers.
		 */
		List	   *save_plan_params = root->plan_params;
		int			save_workers = max_parallel_workers_per_gather;

		root->plan_params = NIL;
		max_parallel_workers_per_gather = 0;
		PG_TRY();
		{
			subroot = subquery_planner(root->glob, serial_query, root, false,
									   0.0);
		}
		PG_FINALLY();
		{
			max_parallel_workers_per_gather = save_workers;
		}
		PG_END_TRY();
		if (root->plan_params != NIL)
		{
			root->plan_params = save_plan_params;
			return;
		}
		root->plan_params = save_plan_params;
		final_rel = fetch_upper_rel(subroot, UPPERREL_FINAL, NULL);
		path = final_rel->cheapest_total_path;
		if (path != NULL && !IS_DUMMY_REL(final_rel) && path->parallel_safe &&
			path->param_info == NULL &&
			pathkeys_contained_in(subroot->sort_pathkeys, path->pathkeys))
			inner_path = path;
	}
	if (inner_path == NULL)
	{
		elog(DEBUG2, "AsOfJoin: no partial path (no parallel-safe path of the versions)");
		return;
	}

	outer_path = wj_partial_outer_input(root, outerrel, outer_pathkeys);
	if (outer_path != NULL)
		add_partial_path(joinrel,
						 asof_make_path(root, joinrel, innerrel, jointype,
										extra, spec, subroot, inner_path,
										outer_path, quals,
										spec->hashed ? ASOF_STRATEGY_SWEEP :
										ASOF_STRATEGY_MERGE));
	outer_path = (Path *) linitial(outerrel->partial_pathlist);
	if (spec->hashed && outer_path->param_info == NULL &&
		asof_lookup_bytes(inner_path) <= (double) get_hash_memory_limit())
		add_partial_path(joinrel,
						 asof_make_path(root, joinrel, innerrel, jointype,
										extra, spec, subroot, inner_path,
										outer_path, quals,
										ASOF_STRATEGY_LOOKUP));
}

/*
 * asof_consider_parallel
 *		Decide joinrel->consider_parallel as build_join_rel does, except for
 *		the inner relation's own flag: PostgreSQL never lets a subquery with
 *		a LIMIT into a worker (its rows could differ there), which keeps the
 *		flag off for every join with the LATERAL idiom.  Our node never runs
 *		that subquery but the rewritten one, without LIMIT, whose paths carry
 *		their own parallel_safe flags; the subquery relation's filters, the
 *		join's clauses and its target must still be parallel safe.  PostgreSQL's
 *		own paths of the join stay parallel-unsafe (their inner paths are),
 *		so only our paths can go under a Gather.
 */
static void
asof_consider_parallel(PlannerInfo *root, RelOptInfo *joinrel,
					   RelOptInfo *outerrel, RelOptInfo *innerrel,
					   JoinPathExtraData *extra)
{
	if (joinrel->consider_parallel || !outerrel->consider_parallel)
		return;
	if (!is_parallel_safe(root, (Node *) extract_actual_clauses(extra->restrictlist, false)) ||
		!is_parallel_safe(root, (Node *) extract_actual_clauses(extra->restrictlist, true)) ||
		!is_parallel_safe(root, (Node *) extract_actual_clauses(innerrel->baserestrictinfo, false)) ||
		!is_parallel_safe(root, (Node *) innerrel->reltarget->exprs) ||
		!is_parallel_safe(root, (Node *) joinrel->reltarget->exprs))
		return;
	joinrel->consider_parallel = true;
}

/*
 * asof_outer_exprs
 *		The expressions of the outer relation the node evaluates per outer
 *		row (keys, time, tolerance bounds), for the parallel-safety rule.
 */
static List *
asof_outer_exprs(AsOfSpec *spec)
{
	List	   *exprs = NIL;
	ListCell   *lc;

	foreach(lc, spec->keys)
		exprs = lappend(exprs, ((AsOfCond *) lfirst(lc))->outer);
	exprs = lappend(exprs, spec->time->outer);
	foreach(lc, spec->tolerances)
		exprs = lappend(exprs, ((AsOfCond *) lfirst(lc))->outer);
	return exprs;
}

/*
 * asof_lookup_bytes
 *		Estimated memory of the lookup strategy's table (asof_exec.c): per
 *		version its Datums and nulls, its by-reference data, its time and
 *		address in the per-key array (grown by doubling, so half empty at
 *		worst), and a little for the search fences and the allocator.
 */
static double
asof_lookup_bytes(Path *inner_path)
{
	int			ncols = list_length(inner_path->pathtarget->exprs);
	double		per_version;

	per_version = MAXALIGN(ncols * (sizeof(Datum) + sizeof(bool))) +
		MAXALIGN(inner_path->pathtarget->width) +
		2 * 2 * sizeof(Datum) +	/* time and address, doubling arrays */
		sizeof(Datum);			/* fences, allocator slack */
	return inner_path->rows * per_version;
}

/*
 * asof_make_path
 *		An AsOfJoin path of the given strategy over the given inputs.
 *
 * Cost: both inputs in full, plus per outer row the outer expressions,
 * finding the version (key and time comparisons for the merge; a hash, a
 * probe and the same for the sweep; a hash, a probe and a binary search
 * for the lookup), the quals and forming the result; per inner row the
 * comparisons (or hash), the SubqueryScan and keeping a copy of the
 * version.  The lookup strategy returns no row before it has read every
 * version, so that is part of its startup cost.
 */
static Path *
asof_make_path(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *innerrel,
			   JoinType jointype, JoinPathExtraData *extra, AsOfSpec *spec,
			   PlannerInfo *subroot, Path *inner_path, Path *outer_path,
			   List *quals, int strategy)
{
	AsOfPath   *apath;
	QualCost	qual_cost;
	QualCost	outer_expr_cost;
	List	   *outer_exprs = NIL;
	ListCell   *lc;
	double		outer_rows = outer_path->rows;
	double		inner_rows = inner_path->rows;
	int			nkeys = list_length(spec->keys);
	Cost		outer_cmp;
	Cost		inner_cmp;
	Cost		inner_run;
	Cost		outer_run;
	Cost		startup;

	apath = palloc0(sizeof(AsOfPath));
	apath->cpath.path.type = T_CustomPath;
	apath->cpath.path.pathtype = T_CustomScan;
	apath->cpath.path.parent = joinrel;
	apath->cpath.path.pathtarget = joinrel->reltarget;
	apath->cpath.path.param_info = NULL;
	apath->cpath.path.parallel_aware = outer_path->parallel_workers > 0;
	apath->cpath.path.parallel_safe =
		wj_path_parallel_safe(root, joinrel,
							  list_make2(outer_path, inner_path),
							  asof_outer_exprs(spec));
	apath->cpath.path.parallel_workers = outer_path->parallel_workers;
	apath->cpath.path.rows = joinrel->rows;
	if (outer_path->parallel_workers > 0)
		apath->cpath.path.rows =
			clamp_row_est(joinrel->rows / wj_parallel_divisor(outer_path));
	/*
	 * The lookup's run-time fallback sorts the outer rows: no order.  The
	 * sweep returns the outer rows of keys it moved to batches on disk
	 * after the others, whenever its state outgrows the memory limit at run
	 * time (asof_sweep.c): no order either.
	 */
	if (strategy == ASOF_STRATEGY_LOOKUP || strategy == ASOF_STRATEGY_SWEEP)
		apath->cpath.path.pathkeys = NIL;
	else
		apath->cpath.path.pathkeys =
			build_join_pathkeys(root, joinrel, jointype,
								outer_path->pathkeys);
	apath->cpath.flags = CUSTOMPATH_SUPPORT_PROJECTION;
	apath->cpath.custom_paths = list_make1(outer_path);
	apath->cpath.custom_private = NIL;
	apath->cpath.methods = &asof_path_methods;
	apath->jointype = jointype;
	apath->strategy = strategy;
	apath->inner_relid = innerrel->relid;
	apath->spec = spec;
	apath->subroot = subroot;
	apath->inner_path = inner_path;
	apath->restrictlist = list_concat(list_copy(extra->restrictlist),
									  innerrel->baserestrictinfo);

	cost_qual_eval(&qual_cost, quals, root);
	foreach(lc, spec->keys)
		outer_exprs = lappend(outer_exprs, ((AsOfCond *) lfirst(lc))->outer);
	outer_exprs = lappend(outer_exprs, spec->time->outer);
	cost_qual_eval(&outer_expr_cost, outer_exprs, root);

	/* comparisons, or a hash, a probe and comparisons */
	inner_cmp = cpu_operator_cost * (nkeys + 1);
	outer_cmp = inner_cmp;
	if (strategy != ASOF_STRATEGY_MERGE)
	{
		inner_cmp += cpu_operator_cost * nkeys;
		outer_cmp += cpu_operator_cost * nkeys;
	}
	if (strategy == ASOF_STRATEGY_LOOKUP)
		outer_cmp += cpu_operator_cost * ceil(log2(Max(inner_rows, 2.0)));

	inner_run = inner_rows * (inner_cmp + 2 * cpu_tuple_cost);
	outer_run = outer_rows * (outer_cmp + outer_expr_cost.per_tuple +
							  qual_cost.per_tuple + cpu_tuple_cost) +
		apath->cpath.path.rows * joinrel->reltarget->cost.per_tuple;
	startup = outer_path->startup_cost + inner_path->startup_cost +
		qual_cost.startup + outer_expr_cost.startup +
		joinrel->reltarget->cost.startup;
	if (strategy == ASOF_STRATEGY_LOOKUP)
		startup += inner_path->total_cost - inner_path->startup_cost +
			inner_run;
	apath->cpath.path.startup_cost = startup;
	apath->cpath.path.total_cost = outer_path->total_cost +
		inner_path->total_cost + qual_cost.startup +
		outer_expr_cost.startup + joinrel->reltarget->cost.startup +
		inner_run + outer_run;
	return (Path *) apath;
}

/*
 * asof_add_inner_var
 *		Position (1-based) of Var (relid, attno) in the inner child's target
 *		list, appending it when missing.
 */
static AttrNumber
asof_add_inner_var(List **tlist, Index relid, AttrNumber attno, Oid type,
				   int32 typmod, Oid collation)
{
	ListCell   *lc;

	foreach(lc, *tlist)
	{
		TargetEntry *tle = (TargetEntry *) lfirst(lc);
		Var		   *var = (Var *) tle->expr;

		if (var->varno == relid && var->varattno == attno)
			return tle->resno;
	}
	*tlist = lappend(*tlist,
					 makeTargetEntry((Expr *) makeVar(relid, attno, type,
													  typmod, collation, 0),
									 list_length(*tlist) + 1, NULL, false));
	return list_length(*tlist);
}

/*
 * asof_inner_var
 *		The parent-level Var naming the rewritten subquery's column that
 *		outputs cond's inner expression.
 */
static Var *
asof_inner_var(Index relid, AsOfCond *cond)
{
	return makeVar(relid, cond->resno, exprType((Node *) cond->inner),
				   exprTypmod((Node *) cond->inner),
				   exprCollation((Node *) cond->inner), 0);
}

/*
 * asof_add_cmp
 *		Append cond's comparison descriptor to the OID list.
 */
static List *
asof_add_cmp(List *cmps, AsOfCond *cond)
{
	cmps = lappend_oid(cmps, cond->opfamily);
	cmps = lappend_oid(cmps, cond->outertype);
	cmps = lappend_oid(cmps, cond->innertype);
	cmps = lappend_oid(cmps, cond->collation);
	return cmps;
}

/*
 * asof_plan_path
 *		PlanCustomPath: build the CustomScan from the chosen AsOfPath.  The
 *		outer child was planned by PostgreSQL (custom_plans); the inner child
 *		is planned here, only now that this path won.
 */
static Plan *
asof_plan_path(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
			   List *tlist, List *clauses, List *custom_plans)
{
	AsOfPath   *apath = (AsOfPath *) best_path;
	AsOfSpec   *spec = apath->spec;
	Index		relid = apath->inner_relid;
	RelOptInfo *innerrel = find_base_rel(root, relid);
	RangeTblEntry *rte = planner_rt_fetch(relid, root);
	CustomScan *cscan = makeNode(CustomScan);
	Plan	   *outer_plan = (Plan *) linitial(custom_plans);
	Plan	   *subplan;
	SubqueryScan *inner_plan;
	List	   *inner_tlist = NIL;
	List	   *scan_tlist = NIL;
	List	   *joinquals = NIL;
	List	   *otherquals = NIL;
	List	   *vars;
	List	   *meta = NIL;
	List	   *cmps = NIL;
	List	   *attnos = NIL;
	List	   *outer_keys = NIL;
	List	   *tol_bounds = NIL;
	List	   *show_keys = NIL;
	List	   *show_tol = NIL;
	List	   *tol_strict = NIL;
	List	   *hashinfo = NIL;
	ListCell   *lc;
	int			resno;

	/* Split the conditions: a LEFT join's match conditions, then filters */
	foreach(lc, apath->restrictlist)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);

		if (apath->jointype == JOIN_LEFT &&
			(bms_is_subset(rinfo->required_relids, innerrel->relids) ||
			 !RINFO_IS_PUSHED_DOWN(rinfo, rel->relids)))
			joinquals = lappend(joinquals, rinfo->clause);
		else
			otherquals = lappend(otherquals, rinfo->clause);
	}

	/*
	 * Make the rewritten subquery the relation's subquery: setrefs.c and
	 * subselect.c find a SubqueryScan's subroot through its RelOptInfo, and
	 * EXPLAIN names the added columns from the range table entry.
	 */
	innerrel->subroot = apath->subroot;
	if (spec->new_colnames != NIL)
	{
		Alias	   *eref = copyObject(rte->eref);

		eref->colnames = list_concat(eref->colnames,
									 copyObject(spec->new_colnames));
		rte->eref = eref;
	}
	subplan = create_plan(apath->subroot, apath->inner_path);

	/*
	 * The inner child outputs every column of the subquery used above it,
	 * then the keys and the time.  (tlist may be empty when a projection
	 * will replace it, so the join's target is what tells what is used.)
	 */
	vars = pull_var_clause((Node *) list_make3(best_path->path.pathtarget->exprs,
											   joinquals, otherquals),
						   PVC_RECURSE_AGGREGATES |
						   PVC_RECURSE_WINDOWFUNCS |
						   PVC_RECURSE_PLACEHOLDERS);
	foreach(lc, vars)
	{
		Var		   *var = (Var *) lfirst(lc);

		if (var->varno == relid && var->varlevelsup == 0)
			(void) asof_add_inner_var(&inner_tlist, relid, var->varattno,
									  var->vartype, var->vartypmod,
									  var->varcollid);
	}
	foreach(lc, spec->keys)
	{
		AsOfCond   *c = (AsOfCond *) lfirst(lc);
		Var		   *var = asof_inner_var(relid, c);

		resno = asof_add_inner_var(&inner_tlist, relid, var->varattno,
								   var->vartype, var->vartypmod,
								   var->varcollid);
		attnos = lappend_int(attnos, resno);
		outer_keys = lappend(outer_keys, c->outer);
		show_keys = lappend(show_keys,
							make_opclause(c->opno, BOOLOID, false,
										  (Expr *) var, c->outer,
										  InvalidOid, c->collation));
		cmps = asof_add_cmp(cmps, c);
		if (spec->hashed || spec->near_hashable)
		{
			Oid			hashproc;
			Oid			dummy;

			if (!get_op_hash_functions(c->opno, &hashproc, &dummy))
				elog(ERROR, "could not find hash function for operator %u",
					 c->opno);
			hashinfo = lappend_oid(hashinfo, hashproc);
			hashinfo = lappend_oid(hashinfo, get_opcode(c->opno));
		}
	}
	{
		Var		   *var = asof_inner_var(relid, spec->time);

		resno = asof_add_inner_var(&inner_tlist, relid, var->varattno,
								   var->vartype, var->vartypmod,
								   var->varcollid);
		attnos = lappend_int(attnos, resno);
		cmps = asof_add_cmp(cmps, spec->time);
		foreach(lc, spec->tolerances)
		{
			AsOfCond   *c = (AsOfCond *) lfirst(lc);

			tol_bounds = lappend(tol_bounds, c->outer);
			show_tol = lappend(show_tol,
							   make_opclause(c->opno, BOOLOID, false,
											 (Expr *) copyObject(var),
											 c->outer, InvalidOid,
											 c->collation));
			tol_strict = lappend_int(tol_strict,
									 c->strategy == BTLessStrategyNumber ||
									 c->strategy == BTGreaterStrategyNumber);
			cmps = asof_add_cmp(cmps, c);
		}
		cscan->custom_exprs = list_make1(outer_keys);
		cscan->custom_exprs = lappend(cscan->custom_exprs,
									  list_make1(spec->time->outer));
		cscan->custom_exprs = lappend(cscan->custom_exprs, tol_bounds);
		cscan->custom_exprs = lappend(cscan->custom_exprs, joinquals);
		cscan->custom_exprs = lappend(cscan->custom_exprs, show_keys);
		if (spec->nearest)
			cscan->custom_exprs = lappend(cscan->custom_exprs,
										  list_make1(asof_nearest_show(spec, var)));
		else
			cscan->custom_exprs = lappend(cscan->custom_exprs,
										  list_make1(make_opclause(spec->time->opno,
																   BOOLOID, false,
																   (Expr *) var,
																   spec->time->outer,
																   InvalidOid,
																   spec->time->collation)));
		cscan->custom_exprs = lappend(cscan->custom_exprs, show_tol);
	}

	/* The inner child: a SubqueryScan of the rewritten subquery */
	inner_plan = makeNode(SubqueryScan);
	inner_plan->scan.plan.targetlist = inner_tlist;
	inner_plan->scan.plan.qual = NIL;
	inner_plan->scan.plan.lefttree = NULL;
	inner_plan->scan.plan.righttree = NULL;
	inner_plan->scan.scanrelid = relid;
	inner_plan->subplan = subplan;
	inner_plan->scanstatus = SUBQUERY_SCAN_UNKNOWN;
	inner_plan->scan.plan.startup_cost = apath->inner_path->startup_cost;
	inner_plan->scan.plan.total_cost = apath->inner_path->total_cost +
		cpu_tuple_cost * apath->inner_path->rows;
	inner_plan->scan.plan.plan_rows = apath->inner_path->rows;
	inner_plan->scan.plan.plan_width = apath->inner_path->pathtarget->width;
	inner_plan->scan.plan.parallel_aware = false;
	inner_plan->scan.plan.parallel_safe = apath->inner_path->parallel_safe;

	/* The scan tuple: outer child's columns, then inner child's */
	resno = 1;
	foreach(lc, outer_plan->targetlist)
	{
		TargetEntry *tle = (TargetEntry *) lfirst(lc);

		scan_tlist = lappend(scan_tlist,
							 makeTargetEntry((Expr *) copyObject(tle->expr),
											 resno++, NULL, false));
	}
	foreach(lc, inner_tlist)
	{
		TargetEntry *tle = (TargetEntry *) lfirst(lc);

		scan_tlist = lappend(scan_tlist,
							 makeTargetEntry((Expr *) copyObject(tle->expr),
											 resno++, NULL, false));
	}

	meta = list_make5_int(apath->jointype, spec->forward ? 1 : 0,
						  spec->strict ? 1 : 0,
						  list_length(outer_plan->targetlist),
						  list_length(spec->keys));
	meta = lappend_int(meta, list_length(spec->tolerances));
	meta = lappend_int(meta, apath->strategy);
	meta = list_concat(meta, tol_strict);

	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = otherquals;
	cscan->scan.scanrelid = 0;
	cscan->flags = best_path->flags;
	cscan->custom_plans = list_make2(outer_plan, inner_plan);
	cscan->custom_scan_tlist = scan_tlist;
	cscan->custom_private = list_make4(meta, cmps, attnos, hashinfo);
	if (spec->nearest)
		cscan->custom_private = lappend(cscan->custom_private,
										asof_nearest_private(spec));
	cscan->methods = &wj_asof_scan_methods;

	return &cscan->scan.plan;
}


/*
 * Nearest
 *
 *		FROM o [LEFT] JOIN LATERAL (
 *			SELECT ... FROM v
 *			WHERE v.k = o.k								-- zero or more keys
 *			  [AND v.t BETWEEN o.t - x AND o.t + y]		-- or either bound
 *			  [AND filters on v alone]
 *			ORDER BY v.t <-> o.t LIMIT 1) v ON true
 *
 * where <-> is the distance operator of the btree_gist extension for
 * int2, int4, int8, date, timestamp or timestamptz.  Its distance is
 * |v.t - o.t| (btree_gist's own function, which the executor calls), so the
 * closest version is one of the two neighbours of the outer time in time
 * order: the latest version at or before it and the earliest one after it.
 * Floating-point times are not recognised: btree_gist's float distance of
 * an infinite or NaN time is not monotone in the time (infinity <->
 * infinity is NaN, farther than anything), so the neighbours need not hold
 * the answer.
 *
 * A tolerance bound must keep the outer time inside the window (o.t - x
 * with x >= 0 below, o.t + y with y >= 0 above, or o.t itself); otherwise
 * the closest version in the window need not be a neighbour of o.t.
 *
 * Without a tolerance bound, NULL times take part as in PostgreSQL's plan:
 * ORDER BY puts NULL distances last, so a version with a NULL time is
 * returned only when its key has no other version, and an outer row with a
 * NULL time (all distances NULL) gets some version of its key.
 */

/* btree_gist's distance functions we know, by the type they measure */
typedef struct AsOfDistance
{
	Oid			type;			/* argument type (both) */
	const char *symbol;			/* the C function */
	Oid			result;			/* its result type */
} AsOfDistance;

static const AsOfDistance asof_distances[] = {
	{INT2OID, "int2_dist", INT2OID},
	{INT4OID, "int4_dist", INT4OID},
	{INT8OID, "int8_dist", INT8OID},
	{DATEOID, "date_dist", INT4OID},
	{TIMESTAMPOID, "ts_dist", INTERVALOID},
	{TIMESTAMPTZOID, "tstz_dist", INTERVALOID},
};

/*
 * asof_btree_gist_distance
 *		If opno is btree_gist's distance operator for one of the types of
 *		asof_distances, return that entry.  The operator is identified by
 *		its function: a C function of the btree_gist extension whose link
 *		symbol, argument and result types are those of the entry (the
 *		operator's name and schema prove nothing).
 */
static const AsOfDistance *
asof_btree_gist_distance(Oid opno)
{
	Oid			ext = get_extension_oid("btree_gist", true);
	HeapTuple	tup;
	Form_pg_operator oper;
	Form_pg_proc proc;
	const AsOfDistance *dist = NULL;
	Oid			funcid;
	Oid			left;
	Oid			right;
	Oid			result;
	Datum		src;
	bool		isnull;
	bool		ok;
	int			i;

	if (!OidIsValid(ext))
		return NULL;
	tup = SearchSysCache1(OPEROID, ObjectIdGetDatum(opno));
	if (!HeapTupleIsValid(tup))
		return NULL;
	oper = (Form_pg_operator) GETSTRUCT(tup);
	funcid = oper->oprcode;
	left = oper->oprleft;
	right = oper->oprright;
	result = oper->oprresult;
	ReleaseSysCache(tup);

	for (i = 0; i < lengthof(asof_distances); i++)
	{
		if (asof_distances[i].type == left)
			dist = &asof_distances[i];
	}
	if (dist == NULL || right != left || result != dist->result)
		return NULL;
	if (getExtensionOfObject(ProcedureRelationId, funcid) != ext)
		return NULL;

	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(funcid));
	if (!HeapTupleIsValid(tup))
		return NULL;
	proc = (Form_pg_proc) GETSTRUCT(tup);
	ok = (proc->prolang == ClanguageId && !proc->proretset &&
		  proc->prorettype == dist->result && proc->pronargs == 2 &&
		  proc->proargtypes.values[0] == left &&
		  proc->proargtypes.values[1] == left);
	if (ok)
	{
		src = SysCacheGetAttr(PROCOID, tup, Anum_pg_proc_prosrc, &isnull);
		ok = !isnull && strcmp(TextDatumGetCString(src), dist->symbol) == 0;
	}
	ReleaseSysCache(tup);
	return ok ? dist : NULL;
}

/*
 * asof_const_sign
 *		Sign of an integer or interval constant: 1, 0 or -1; 2 when unknown
 *		(an interval whose fields have different signs, another type).
 */
static int
asof_const_sign(Const *cst)
{
	int64		v;

	if (cst->constisnull)
		return 2;
	switch (cst->consttype)
	{
		case INT2OID:
			v = DatumGetInt16(cst->constvalue);
			break;
		case INT4OID:
			v = DatumGetInt32(cst->constvalue);
			break;
		case INT8OID:
			v = DatumGetInt64(cst->constvalue);
			break;
		case INTERVALOID:
			{
				Interval   *iv = DatumGetIntervalP(cst->constvalue);

				if (iv->month >= 0 && iv->day >= 0 && iv->time >= 0)
					return (iv->month == 0 && iv->day == 0 && iv->time == 0) ? 0 : 1;
				if (iv->month <= 0 && iv->day <= 0 && iv->time <= 0)
					return -1;
				return 2;
			}
		default:
			return 2;
	}
	return (v > 0) ? 1 : (v < 0) ? -1 : 0;
}

/*
 * asof_nearest_bound_ok
 *		True if the tolerance bound c ("inner >= bound" etc.) keeps the outer
 *		time inside the window: the bound is the outer time itself, or the
 *		outer time plus or minus a constant whose sign puts a lower bound at
 *		or below it and an upper bound at or above it.
 */
static bool
asof_nearest_bound_ok(AsOfCond *c, AsOfCond *time)
{
	bool		upper = (c->strategy == BTLessStrategyNumber ||
						 c->strategy == BTLessEqualStrategyNumber);
	OpExpr	   *op;
	int			sign;
	Oid			func;

	if (equal(c->outer, time->outer))
		return true;
	if (!IsA(c->outer, OpExpr))
		return false;
	op = (OpExpr *) c->outer;
	if (list_length(op->args) != 2 ||
		!equal(linitial(op->args), time->outer) ||
		!IsA(lsecond(op->args), Const))
		return false;
	sign = asof_const_sign((Const *) lsecond(op->args));
	if (sign == 2)
		return false;
	func = op->opfuncid;
	if (!OidIsValid(func))
		func = get_opcode(op->opno);
	switch (func)
	{
		case F_TIMESTAMP_PL_INTERVAL:
		case F_TIMESTAMPTZ_PL_INTERVAL:
		case F_DATE_PL_INTERVAL:
		case F_DATE_PLI:
		case F_INT2PL:
		case F_INT4PL:
		case F_INT8PL:
		case F_INT24PL:
		case F_INT42PL:
		case F_INT28PL:
		case F_INT82PL:
		case F_INT48PL:
		case F_INT84PL:
			break;
		case F_TIMESTAMP_MI_INTERVAL:
		case F_TIMESTAMPTZ_MI_INTERVAL:
		case F_DATE_MI_INTERVAL:
		case F_DATE_MII:
		case F_INT2MI:
		case F_INT4MI:
		case F_INT8MI:
		case F_INT24MI:
		case F_INT42MI:
		case F_INT28MI:
		case F_INT82MI:
		case F_INT48MI:
		case F_INT84MI:
			sign = -sign;
			break;
		default:
			return false;
	}
	/* sign: where the bound lies relative to the outer time */
	return upper ? sign >= 0 : sign <= 0;
}

/*
 * asof_recognise_nearest
 *		asof_recognise for ORDER BY inner_time <-> outer_time: NULL unless
 *		the subquery is exactly the nearest idiom (see above), else the
 *		recognised conditions and the rewritten subquery, ordered by (keys,
 *		time ascending with NULLs last, output columns), which both the
 *		merge and the lookup strategy read.
 */
static AsOfSpec *
asof_recognise_nearest(PlannerInfo *root, Query *sq, SortGroupClause *order,
					   TargetEntry *order_tle)
{
	OpExpr	   *dop = (OpExpr *) order_tle->expr;
	const AsOfDistance *dist;
	AsOfSpec   *spec;
	Node	   *inner_arg;
	Node	   *outer_arg;
	Oid			time_opfamily;
	Oid			opcintype;
	Oid			leop;
	int16		order_strategy;
	AsOfCond	cond;
	List	   *quals = NIL;
	List	   *kept = NIL;
	List	   *tlist = NIL;
	ListCell   *lc;
	Query	   *q;
	int			noriginal = 0;
	int			depth;
	Index		next_ref = 1;
	int			n;
	char	   *kinds;
	bool	   *fallible;

	if (list_length(dop->args) != 2 || dop->opretset)
		ASOF_NO("nearest: not a binary distance operator");
	dist = asof_btree_gist_distance(dop->opno);
	if (dist == NULL)
		ASOF_NO("nearest: not btree_gist's distance operator");

	/* ORDER BY the distance ascending, NULLs last */
	if (order->nulls_first ||
		!get_ordering_op_properties(order->sortop, &time_opfamily,
									&opcintype, &order_strategy) ||
		order_strategy != BTLessStrategyNumber ||
		opcintype != dist->result)
		ASOF_NO("nearest: ORDER BY the distance is not ascending with NULLs last");

	/* One argument of the subquery's relation, the other of the parent's */
	inner_arg = (Node *) linitial(dop->args);
	outer_arg = (Node *) lsecond(dop->args);
	spec = palloc0(sizeof(AsOfSpec));
	spec->nearest = true;
	spec->near_inner_first = true;
	if (asof_levels(inner_arg) == ASOF_LEVEL1 &&
		asof_levels(outer_arg) == ASOF_LEVEL0)
	{
		Node	   *tmp = inner_arg;

		inner_arg = outer_arg;
		outer_arg = tmp;
		spec->near_inner_first = false;
	}
	if (asof_levels(inner_arg) != ASOF_LEVEL0 ||
		asof_levels(outer_arg) != ASOF_LEVEL1)
		ASOF_NO("nearest: the distance is not between a version time and an outer time");
	if (!asof_outer_time_safe((Expr *) outer_arg))
		ASOF_NO("nearest: the outer time can raise an error for outer rows PostgreSQL's plan never computes it for");

	/* The time is compared in the type's default btree opfamily */
	time_opfamily = get_opclass_family(GetDefaultOpClass(dist->type,
														 BTREE_AM_OID));
	leop = get_opfamily_member(time_opfamily, dist->type, dist->type,
							   BTLessEqualStrategyNumber);
	if (!OidIsValid(leop))
		ASOF_NO("nearest: no <= operator for the time type");
	if (!asof_split_comparison(root,
							   (Node *) make_opclause(leop, BOOLOID, false,
													  (Expr *) copyObject(inner_arg),
													  (Expr *) copyObject(outer_arg),
													  InvalidOid, InvalidOid),
							   &cond))
		ASOF_NO("nearest: the time comparison is not supported");
	spec->time = palloc(sizeof(AsOfCond));
	*spec->time = cond;
	if (!asof_cond_in_opfamily(spec->time, time_opfamily, true))
		ASOF_NO("nearest: the time is not in its btree opfamily");
	spec->near_opno = dop->opno;
	spec->near_func = get_opcode(dop->opno);
	spec->near_ltop = order->sortop;
	spec->near_type = dist->type;

	/*
	 * Sort the WHERE conjuncts into keys, tolerances and filters.  kinds[]
	 * and fallible[] describe them for asof_order_ok, after a first entry
	 * for the ORDER BY, which PostgreSQL computes after every filter.
	 */
	asof_flatten_and(sq->jointree->quals, &quals);
	kinds = palloc0(list_length(quals) + 2);
	fallible = palloc0(sizeof(bool) * (list_length(quals) + 2));
	kinds[0] = 'T';
	foreach(lc, quals)
	{
		Node	   *clause = (Node *) lfirst(lc);
		int			qi = foreach_current_index(lc) + 1;
		AsOfCond   *c;

		kinds[qi] = 'F';
		if (!(asof_levels(clause) & (ASOF_LEVEL1 | ASOF_OTHER)))
		{
			kept = lappend(kept, clause);	/* filter on the relation alone */
			continue;
		}
		if (!asof_split_comparison(root, clause, &cond))
			ASOF_NO("nearest: a condition between the version and the outer row is not a comparison");

		c = palloc(sizeof(AsOfCond));
		*c = cond;
		if (equal(cond.inner, spec->time->inner) &&
			asof_cond_in_opfamily(c, time_opfamily, false) &&
			c->strategy != BTEqualStrategyNumber)
		{
			if (!asof_nearest_bound_ok(c, spec->time))
				ASOF_NO("nearest: a tolerance window need not hold the outer time");
			spec->tolerances = lappend(spec->tolerances, c);
			kinds[qi] = 'L';
			fallible[qi] = !IsA(c->outer, Var);
		}
		else
		{
			List	   *opfamilies = get_mergejoin_opfamilies(cond.opno);
			ListCell   *olc;
			bool		found = false;

			foreach(olc, opfamilies)
			{
				if (asof_cond_in_opfamily(c, lfirst_oid(olc), true) &&
					c->strategy == BTEqualStrategyNumber)
				{
					found = true;
					break;
				}
			}
			if (!found)
				ASOF_NO("nearest: a condition is neither a key nor a tolerance bound");
			spec->keys = lappend(spec->keys, c);
			kinds[qi] = 'K';
		}
	}
	if (!asof_order_ok(root,
					   lcons(makeBoolConst(true, false), list_copy(quals)),
					   kinds, fallible))
		ASOF_NO("nearest: conditions that can fail come before filters");
	spec->near_keep_nulls = (spec->tolerances == NIL);

	/* The rewritten subquery, as in asof_recognise */
	q = copyObject(sq);
	q->jointree->quals = kept ? (Node *) make_ands_explicit(kept) : NULL;
	q->sortClause = NIL;
	q->limitCount = NULL;
	q->limitOption = LIMIT_OPTION_DEFAULT;
	foreach(lc, q->targetList)
	{
		TargetEntry *tle = (TargetEntry *) lfirst(lc);

		if (tle->resjunk)
			continue;
		if (tle->resno != noriginal + 1)
			ASOF_NO("nearest: junk output column before a real one");
		tle->ressortgroupref = 0;
		tlist = lappend(tlist, tle);
		noriginal++;
	}
	q->targetList = tlist;

	/* Sorted by (keys, time) for the merge; the lookup may hash the keys */
	spec->hashed = false;
	spec->near_hashable = (spec->keys != NIL);
	foreach(lc, spec->keys)
	{
		AsOfCond   *c = (AsOfCond *) lfirst(lc);
		Oid			lhs;
		Oid			rhs;

		if (c->innertype != c->outertype ||
			!op_hashjoinable(c->opno, c->innertype) ||
			!get_op_hash_functions(c->opno, &lhs, &rhs) || lhs != rhs)
			spec->near_hashable = false;
	}
	n = 0;
	foreach(lc, spec->keys)
	{
		AsOfCond   *c = (AsOfCond *) lfirst(lc);

		c->resno = asof_target_resno(q, noriginal, c->inner, "asof_key",
									 ++n, &spec->new_colnames);
		asof_add_sort(q, c->resno,
					  get_opfamily_member(c->opfamily, c->innertype,
										  c->innertype, BTLessStrategyNumber),
					  get_opfamily_member(c->opfamily, c->innertype,
										  c->innertype, BTEqualStrategyNumber),
					  false, &next_ref);
	}
	spec->time->resno = asof_target_resno(q, noriginal, spec->time->inner,
										  "asof_time", 0,
										  &spec->new_colnames);
	asof_add_sort(q, spec->time->resno,
				  get_opfamily_member(time_opfamily, dist->type, dist->type,
									  BTLessStrategyNumber),
				  get_opfamily_member(time_opfamily, dist->type, dist->type,
									  BTEqualStrategyNumber),
				  false, &next_ref);
	foreach(lc, spec->tolerances)
		((AsOfCond *) lfirst(lc))->resno = spec->time->resno;

	/*
	 * Tie breakers: among versions with equal keys and time the executor
	 * takes the one whose output row sorts last, as for the other
	 * directions.
	 */
	asof_add_tie_breakers(q, noriginal, false, &next_ref);

	depth = -1;
	if (asof_outer_refs_walker((Node *) q, &depth))
		ASOF_NO("nearest: the rewritten subquery still refers to the outer query");

	spec->rewritten = q;
	return spec;
}

/*
 * asof_nearest_show
 *		EXPLAIN's "Time Cond" of a nearest join: the distance ordering, as
 *		written.
 */
static Expr *
asof_nearest_show(AsOfSpec *spec, Var *var)
{
	Expr	   *inner = (Expr *) var;
	Expr	   *outer = spec->time->outer;
	Oid			restype = get_op_rettype(spec->near_opno);

	if (spec->near_inner_first)
		return make_opclause(spec->near_opno, restype, false, inner, outer,
							 InvalidOid, InvalidOid);
	return make_opclause(spec->near_opno, restype, false, outer, inner,
						 InvalidOid, InvalidOid);
}

/*
 * asof_nearest_private
 *		The fifth custom_private list of a nearest join: OIDs (distance
 *		function, "<" on its results, time type), then integers (distance
 *		argument order, NULL times take part, then per tolerance bound
 *		whether it is an upper bound).
 */
static List *
asof_nearest_private(AsOfSpec *spec)
{
	List	   *oids;
	List	   *ints;
	ListCell   *lc;

	oids = list_make3_oid(spec->near_func, spec->near_ltop, spec->near_type);
	ints = list_make2_int(spec->near_inner_first ? 1 : 0,
						  spec->near_keep_nulls ? 1 : 0);
	foreach(lc, spec->tolerances)
	{
		AsOfCond   *c = (AsOfCond *) lfirst(lc);

		ints = lappend_int(ints, c->strategy == BTLessStrategyNumber ||
						   c->strategy == BTLessEqualStrategyNumber);
	}
	return list_make2(oids, ints);
}
