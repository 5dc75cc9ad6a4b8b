/*-------------------------------------------------------------------------
 *
 * asof_nearest_recognise.c
 *	  Recognition of the AsOfJoin nearest idiom, ORDER BY version_time <->
 *	  outer_time with btree_gist's distance operator (the closest version
 *	  before or after), and its rewritten subquery.
 *
 * The idiom and its rules are in the comment below.  The rewritten
 * subquery is built as in asof_recognise.c (whose helpers are used), always
 * ordered by (keys, time ascending NULLs last, tie breakers), which both the
 * merge and the lookup strategy read.
 *
 * src/nodes/asof_join/asof_nearest_recognise.c
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

#include "src/common/catalog_cache.h"
#include "src/common/pg_compat.h"
#include "src/common/time_shift.h"
#include "src/common/window_arith.h"
#include "src/nodes/asof_join/asof.h"
#include "src/nodes/asof_join/asof_planner_internal.h"

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
	if (!wj_func_in_extension(funcid, "btree_gist"))
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
	if (wj_const_int64((Node *) cst, &v))
		return (v > 0) ? 1 : (v < 0) ? -1 : 0;
	switch (cst->consttype)
	{
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
 * asof_nearest_distance
 *		Is the ORDER BY item dop, sorted by order, btree_gist's distance
 *		between two times of a type we know (asof_distances), sorted
 *		ascending with NULLs last?  Returns that type's entry, else NULL.
 */
static const AsOfDistance *
asof_nearest_distance(SortGroupClause *order, OpExpr *dop)
{
	const AsOfDistance *dist;
	Oid			opfamily;
	Oid			opcintype;
	int16		order_strategy;

	if (list_length(dop->args) != 2 || dop->opretset)
		ASOF_NO("nearest: not a binary distance operator");
	dist = asof_btree_gist_distance(dop->opno);
	if (dist == NULL)
		ASOF_NO("nearest: not btree_gist's distance operator");

	/* ORDER BY the distance ascending, NULLs last */
	if (order->nulls_first ||
		!wj_ordering_op_strategy(order->sortop, &opfamily,
								 &opcintype, &order_strategy) ||
		order_strategy != BTLessStrategyNumber ||
		opcintype != dist->result)
		ASOF_NO("nearest: ORDER BY the distance is not ascending with NULLs last");
	return dist;
}

/*
 * asof_nearest_time
 *		Which argument of the distance dop is the version time and which the
 *		outer time, and the time condition the node sorts and compares them
 *		with: "version time <= outer time" in the default btree opfamily of
 *		the time type.  Returns a new spec holding that condition and the
 *		distance's fields; NULL unless one argument is of the subquery's
 *		relation and the other of the parent's, the outer time can be
 *		computed for every outer row, and the opfamily has what the sorts
 *		need.
 */
static AsOfSpec *
asof_nearest_time(PlannerInfo *root, SortGroupClause *order, OpExpr *dop,
				  const AsOfDistance *dist)
{
	AsOfSpec   *spec;
	Node	   *inner_arg;
	Node	   *outer_arg;
	Oid			time_opfamily;
	Oid			leop;
	AsOfCond	cond;

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
	return spec;
}

/*
 * asof_nearest_quals
 *		Sort the WHERE conjuncts of sq into equality keys, tolerance bounds
 *		on the version time (which must keep the outer time inside the
 *		window: asof_nearest_bound_ok) and filters on the subquery's
 *		relation alone (appended to *kept); add the keys and bounds to spec
 *		and decide whether NULL times take part (no bound).  Returns spec;
 *		NULL unless every correlated condition is a key or a bound and the
 *		outer expressions are computed for the rows PostgreSQL's plan
 *		computes them for.
 */
static AsOfSpec *
asof_nearest_quals(PlannerInfo *root, Query *sq, AsOfSpec *spec, List **kept)
{
	Oid			time_opfamily = spec->time->opfamily;
	List	   *quals = NIL;
	ListCell   *lc;
	char	   *kinds;
	bool	   *fallible;

	/*
	 * kinds[] and fallible[] describe the conjuncts for asof_order_ok, after
	 * a first entry for the ORDER BY, which PostgreSQL computes after every
	 * filter.
	 */
	asof_flatten_and(sq->jointree->quals, &quals);
	kinds = palloc0(list_length(quals) + 2);
	fallible = palloc0(sizeof(bool) * (list_length(quals) + 2));
	kinds[0] = 'T';
	foreach(lc, quals)
	{
		int			qi = foreach_current_index(lc) + 1;
		AsOfCond   *c;

		if (!asof_correlated_cond(root, lfirst(lc), kept, &c))
			ASOF_NO("nearest: a condition between the version and the outer row is not a comparison");
		kinds[qi] = 'F';
		if (c == NULL)
			continue;			/* a filter on the relation alone */
		if (equal(c->inner, spec->time->inner) &&
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
			if (!asof_cond_is_key(c))
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
	return spec;
}

/*
 * asof_nearest_rewrite
 *		The rewritten subquery, as in asof_recognise, always sorted by (keys,
 *		time ascending NULLs last, output columns) for the merge; decides
 *		whether the lookup may hash the keys (spec->near_hashable).  Among
 *		versions with equal keys and time the executor takes the one whose
 *		output row sorts last, as for the other directions.
 */
static Query *
asof_nearest_rewrite(Query *sq, AsOfSpec *spec, List *kept)
{
	spec->hashed = false;
	spec->near_hashable = asof_keys_hashable(spec->keys);
	return asof_rewrite_subquery(sq, spec, kept, true, false, false);
}

/*
 * asof_recognise_nearest
 *		asof_recognise for ORDER BY inner_time <-> outer_time: NULL unless
 *		the subquery is exactly the nearest idiom (see above), else the
 *		recognised conditions and the rewritten subquery, ordered by (keys,
 *		time ascending with NULLs last, output columns), which both the
 *		merge and the lookup strategy read.  The steps: the distance and its
 *		ORDER BY (asof_nearest_distance), its arguments and the time
 *		condition (asof_nearest_time), the WHERE conjuncts
 *		(asof_nearest_quals), the rewritten subquery (asof_nearest_rewrite).
 */
AsOfSpec *
asof_recognise_nearest(PlannerInfo *root, Query *sq, SortGroupClause *order,
					   TargetEntry *order_tle)
{
	OpExpr	   *dop = (OpExpr *) order_tle->expr;
	const AsOfDistance *dist;
	AsOfSpec   *spec;
	List	   *kept = NIL;
	Query	   *q;

	dist = asof_nearest_distance(order, dop);
	if (dist == NULL)
		return NULL;
	spec = asof_nearest_time(root, order, dop, dist);
	if (spec == NULL)
		return NULL;
	if (asof_nearest_quals(root, sq, spec, &kept) == NULL)
		return NULL;
	q = asof_nearest_rewrite(sq, spec, kept);
	if (q == NULL)
		return NULL;
	spec->rewritten = q;
	return spec;
}
