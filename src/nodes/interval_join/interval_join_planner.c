/*-------------------------------------------------------------------------
 *
 * interval_join_planner.c
 *	  Planner side of the IntervalJoin custom scan: recognises interval
 *	  (band) joins in the join pathlist hook, offers a CustomPath that
 *	  competes on cost with PostgreSQL's own join paths, and turns the
 *	  chosen path into a CustomScan plan.
 *
 * An interval join is a join whose ON/WHERE conditions contain zero or more
 * equalities between an outer and an inner expression (the keys) plus a
 * lower and an upper bound of one side's time expression relative to the
 * other's, e.g.
 *
 *		s.ship_time BETWEEN o.order_time AND o.order_time + interval '2 hours'
 *
 * which the parser has already split into two comparisons.  Each bound may
 * be written with either side on the left, with <, <=, > or >=, and with
 * constant interval offsets added to or subtracted from either side.  We
 * normalise every such comparison to
 *
 *		inner.t  OP  outer.t + d		(OP one of <, <=, >, >=)
 *
 * which is exact for the offsets we accept: fixed durations (no months; no
 * days either for timestamptz, where a day's length depends on TimeZone),
 * or integer constants for integer (int4, int8) time columns.
 * The tightest lower and upper bound on the same pair of time expressions
 * form the band [outer.t + lo, outer.t + hi] with inclusive or exclusive
 * ends; every other clause stays a join filter (or, for an outer join, a
 * filter above the join when it came from WHERE), evaluated exactly as
 * PostgreSQL would.  Inner, left, right and full joins are supported, and
 * the semi and anti joins of EXISTS / NOT EXISTS.
 *
 * The path sorts both inputs by (keys, time) - through PostgreSQL's own
 * Sort paths, or an already sorted path (an index scan) when that is
 * cheaper - and the executor sweeps them once (see interval_join_exec.c).  Its
 * cost is the two sorted inputs plus a pass over both and the candidate
 * pairs inside the band; the band's selectivity is estimated from its width
 * relative to the time column's range (from the histogram), so a narrow
 * band over many rows per key is cheap while a unique-key join, where a
 * hash join needs no sort, stays with PostgreSQL's plan.
 *
 * src/nodes/interval_join/interval_join_planner.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/nbtree.h"
#include "catalog/pg_statistic.h"
#include "catalog/pg_type.h"
#include "common/int.h"
#include "datatype/timestamp.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/planmain.h"
#include "optimizer/restrictinfo.h"
#include "optimizer/tlist.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"
#include "utils/typcache.h"

#include "src/common/gucs.h"
#include "src/common/input_paths.h"
#include "src/common/join_nulling.h"
#include "src/common/pg_compat.h"
#include "src/common/plan_private.h"
#include "src/common/stats_common.h"
#include "src/common/window_arith.h"
#include "src/nodes/interval_join/interval_join.h"
#include "src/parallel/keypart.h"

/* One equality key: outer_expr = inner_expr */
typedef struct IJKey
{
	RestrictInfo *rinfo;
	Expr	   *outer_expr;
	Expr	   *inner_expr;
	Oid			opfamily;
	Oid			collation;
	Oid			outer_type;		/* operator's declared input types */
	Oid			inner_type;
	PathKey    *outer_pk;
	PathKey    *inner_pk;
} IJKey;

/* One bound, normalised to "inner_t OP outer_t + d" */
typedef struct IJBound
{
	RestrictInfo *rinfo;
	Expr	   *outer_t;
	Expr	   *inner_t;
	Oid			ttype;
	int			strategy;		/* BTLess/LessEqual/GreaterEqual/Greater */
	int64		d;
} IJBound;

/*
 * Everything the plan needs, carried from the path: the path's
 * custom_private is list_make1() of a pointer to this struct (a
 * planner-only C struct, not a node; plan_private.h).
 */
typedef struct IJInfo
{
	JoinType	jointype;
	List	   *keys;			/* IJKey * */
	IJBound    *lower;
	IJBound    *upper;
	List	   *joinquals;		/* bare clauses deciding a match */
	List	   *otherquals;		/* bare clauses filtering the result */
	List	   *filter_rinfos;	/* the band and joinquals' RestrictInfos */
	double		rows;			/* the join's rows (ij_estimate_rows) */
	Selectivity bandfrac;		/* ij_band_fraction, for the costs */
} IJInfo;

static Plan *ij_plan_custom_path(PlannerInfo *root, RelOptInfo *rel,
								 CustomPath *best_path, List *tlist,
								 List *clauses, List *custom_plans);
static CustomScan *ij_make_plan(PlannerInfo *root, RelOptInfo *rel,
								CustomPath *best_path, List *tlist,
								List *clauses, List *custom_plans,
								WjKeyPartMode mode);

static Path *ij_make_path(PlannerInfo *root, RelOptInfo *joinrel,
						  IJInfo *info, Path *outer, Path *inner,
						  List *outer_pks);

static const CustomPathMethods ij_path_methods = {
	.CustomName = IJ_NAME,
	.PlanCustomPath = ij_plan_custom_path,
};

static void ij_add_keypart_path(PlannerInfo *root, RelOptInfo *joinrel,
								IJInfo *info, RelOptInfo *outerrel,
								RelOptInfo *innerrel, List *outer_pks,
								List *inner_pks);
static Plan *ij_plan_keypart(PlannerInfo *root, RelOptInfo *rel,
							 CustomPath *best_path, List *tlist,
							 List *clauses, List *custom_plans);

static Plan *ij_plan_exchange(PlannerInfo *root, RelOptInfo *rel,
							  CustomPath *best_path, List *tlist,
							  List *clauses, List *custom_plans);

static const CustomPathMethods ij_keypart_path_methods = {
	.CustomName = IJ_NAME,
	.PlanCustomPath = ij_plan_keypart,
};

static const CustomPathMethods ij_exchange_path_methods = {
	.CustomName = IJ_NAME,
	.PlanCustomPath = ij_plan_exchange,
};

/*
 * ij_interval_usecs
 *		The fixed number of microseconds an interval adds to a value of
 *		ttype, or false when that depends on the calendar or TimeZone.
 */
static bool
ij_interval_usecs(const Interval *iv, Oid ttype, int64 *usecs)
{
	/* a day is 24 hours for timestamp, but not for timestamptz (DST) */
	if (iv->day != 0 && ttype != TIMESTAMPOID)
		return false;
	return wj_interval_usecs(iv, usecs);
}

/*
 * ij_split_time_expr
 *		Split "base + c1 - c2 ..." (constant interval offsets, or integer
 *		ones for integer times) into the base expression and the total
 *		offset (microseconds for timestamps).  Returns false when
 *		an offset cannot be represented exactly as a fixed duration.
 */
static bool
ij_split_time_expr(Node *node, Oid ttype, Expr **base, int64 *offset)
{
	int64		off = 0;

	for (;;)
	{
		OpExpr	   *op;
		Const	   *c;
		int			sign = 0;
		int64		us;

		if (!IsA(node, OpExpr))
			break;
		op = (OpExpr *) node;
		if (list_length(op->args) != 2 || !IsA(lsecond(op->args), Const))
			break;
		set_opfuncid(op);
		if (ttype == TIMESTAMPOID)
		{
			if (op->opfuncid == F_TIMESTAMP_PL_INTERVAL)
				sign = 1;
			else if (op->opfuncid == F_TIMESTAMP_MI_INTERVAL)
				sign = -1;
		}
		else if (ttype == TIMESTAMPTZOID)
		{
			if (op->opfuncid == F_TIMESTAMPTZ_PL_INTERVAL)
				sign = 1;
			else if (op->opfuncid == F_TIMESTAMPTZ_MI_INTERVAL)
				sign = -1;
		}
		else if (ttype == INT8OID)
		{
			if (op->opfuncid == F_INT8PL || op->opfuncid == F_INT84PL)
				sign = 1;
			else if (op->opfuncid == F_INT8MI || op->opfuncid == F_INT84MI)
				sign = -1;
		}
		else if (ttype == INT4OID)
		{
			if (op->opfuncid == F_INT4PL)
				sign = 1;
			else if (op->opfuncid == F_INT4MI)
				sign = -1;
		}
		if (sign == 0)
			break;
		c = (Const *) lsecond(op->args);
		if (c->constisnull)
			return false;
		if (c->consttype == INTERVALOID)
		{
			if (!ij_interval_usecs(DatumGetIntervalP(c->constvalue), ttype, &us))
				return false;
		}
		else if (c->consttype == INT8OID)
			us = DatumGetInt64(c->constvalue);
		else if (c->consttype == INT4OID)
			us = DatumGetInt32(c->constvalue);
		else
			return false;
		if (sign < 0)
		{
			if (us == PG_INT64_MIN)
				return false;
			us = -us;
		}
		if (pg_add_s64_overflow(off, us, &off))
			return false;
		node = (Node *) linitial(op->args);
	}

	if (exprType(node) != ttype)
		return false;
	*base = (Expr *) node;
	*offset = off;
	return true;
}

/*
 * ij_side_of
 *		1 if expr is computable from the outer relation alone, 2 for the
 *		inner one, 0 otherwise (constants, both sides, volatile, subplans).
 */
static int
ij_side_of(PlannerInfo *root, Expr *expr, RelOptInfo *outerrel,
		   RelOptInfo *innerrel)
{
	Relids		relids = pull_varnos(root, (Node *) expr);

	if (bms_is_empty(relids) ||
		contain_volatile_functions((Node *) expr) ||
		contain_subplans((Node *) expr))
		return 0;
	if (bms_is_subset(relids, outerrel->relids))
		return 1;
	if (bms_is_subset(relids, innerrel->relids))
		return 2;
	return 0;
}

/* The strategy of "b OP' a" given "a OP b" */
static int
ij_commute_strategy(int strategy)
{
	switch (strategy)
	{
		case BTLessStrategyNumber:
			return BTGreaterStrategyNumber;
		case BTLessEqualStrategyNumber:
			return BTGreaterEqualStrategyNumber;
		case BTGreaterEqualStrategyNumber:
			return BTLessEqualStrategyNumber;
		case BTGreaterStrategyNumber:
			return BTLessStrategyNumber;
	}
	return strategy;
}

/*
 * ij_match_bound
 *		Recognise "x.t [+- c] OP y.t [+- c]" relating a time expression of
 *		one side to one of the other, and normalise it.
 */
static IJBound *
ij_match_bound(PlannerInfo *root, RestrictInfo *rinfo,
			   RelOptInfo *outerrel, RelOptInfo *innerrel)
{
	OpExpr	   *op = (OpExpr *) rinfo->clause;
	Oid			lt,
				rt;
	TypeCacheEntry *tce;
	int			strategy;
	Expr	   *lbase,
			   *rbase;
	int64		loff,
				roff;
	int			lside,
				rside;
	IJBound    *b;

	if (!IsA(op, OpExpr) || list_length(op->args) != 2)
		return NULL;
	op_input_types(op->opno, &lt, &rt);
	if (lt != rt || (lt != TIMESTAMPOID && lt != TIMESTAMPTZOID &&
					 lt != INT8OID && lt != INT4OID))
		return NULL;
	tce = lookup_type_cache(lt, TYPECACHE_BTREE_OPFAMILY);
	if (!OidIsValid(tce->btree_opf))
		return NULL;
	strategy = get_op_opfamily_strategy(op->opno, tce->btree_opf);
	if (strategy != BTLessStrategyNumber &&
		strategy != BTLessEqualStrategyNumber &&
		strategy != BTGreaterEqualStrategyNumber &&
		strategy != BTGreaterStrategyNumber)
		return NULL;

	if (!ij_split_time_expr(linitial(op->args), lt, &lbase, &loff) ||
		!ij_split_time_expr(lsecond(op->args), lt, &rbase, &roff))
		return NULL;
	lside = ij_side_of(root, lbase, outerrel, innerrel);
	rside = ij_side_of(root, rbase, outerrel, innerrel);
	if (lside == 0 || rside == 0 || lside == rside)
		return NULL;

	b = palloc0(sizeof(IJBound));
	b->rinfo = rinfo;
	b->ttype = lt;
	if (lside == 2)
	{
		/* inner + loff OP outer + roff  <=>  inner OP outer + (roff - loff) */
		b->inner_t = lbase;
		b->outer_t = rbase;
		b->strategy = strategy;
		if (pg_sub_s64_overflow(roff, loff, &b->d))
			return NULL;
	}
	else
	{
		/* outer + loff OP inner + roff  <=>  inner OP' outer + (loff - roff) */
		b->outer_t = lbase;
		b->inner_t = rbase;
		b->strategy = ij_commute_strategy(strategy);
		if (pg_sub_s64_overflow(loff, roff, &b->d))
			return NULL;
	}
	return b;
}

/*
 * ij_match_key
 *		Recognise a mergejoinable equality between an outer and an inner
 *		expression whose sort orders we can build (as select_mergejoin_clauses
 *		does for merge joins).  Keys whose equivalence class is already used
 *		by an earlier key, or is redundant, are left as join filters.
 */
static IJKey *
ij_match_key(PlannerInfo *root, RestrictInfo *rinfo,
			 RelOptInfo *outerrel, RelOptInfo *innerrel, List *keys)
{
	OpExpr	   *op = (OpExpr *) rinfo->clause;
	bool		outer_is_left;
	EquivalenceClass *oec,
			   *iec;
	Oid			lt,
				rt;
	IJKey	   *k;
	ListCell   *lc;

	if (!rinfo->can_join || rinfo->mergeopfamilies == NIL ||
		rinfo->left_ec == NULL || !IsA(op, OpExpr) ||
		list_length(op->args) != 2)
		return NULL;
	if (bms_is_subset(rinfo->left_relids, outerrel->relids) &&
		bms_is_subset(rinfo->right_relids, innerrel->relids))
		outer_is_left = true;
	else if (bms_is_subset(rinfo->left_relids, innerrel->relids) &&
			 bms_is_subset(rinfo->right_relids, outerrel->relids))
		outer_is_left = false;
	else
		return NULL;
	if (contain_volatile_functions((Node *) op))
		return NULL;

	update_mergeclause_eclasses(root, rinfo);
	if (EC_MUST_BE_REDUNDANT(rinfo->left_ec) ||
		EC_MUST_BE_REDUNDANT(rinfo->right_ec))
		return NULL;

	k = palloc0(sizeof(IJKey));
	k->rinfo = rinfo;
	oec = outer_is_left ? rinfo->left_ec : rinfo->right_ec;
	iec = outer_is_left ? rinfo->right_ec : rinfo->left_ec;
	k->outer_expr = (Expr *) (outer_is_left ? linitial(op->args) : lsecond(op->args));
	k->inner_expr = (Expr *) (outer_is_left ? lsecond(op->args) : linitial(op->args));
	op_input_types(op->opno, &lt, &rt);
	k->outer_type = outer_is_left ? lt : rt;
	k->inner_type = outer_is_left ? rt : lt;
	k->opfamily = linitial_oid(oec->ec_opfamilies);
	k->collation = op->inputcollid;
	if (oec->ec_collation != k->collation || iec->ec_collation != k->collation)
		return NULL;

	/* the executor compares outer/inner, outer/outer and inner/inner */
	if (!OidIsValid(get_opfamily_proc(k->opfamily, k->outer_type,
									  k->inner_type, BTORDER_PROC)) ||
		!OidIsValid(get_opfamily_proc(k->opfamily, k->outer_type,
									  k->outer_type, BTORDER_PROC)) ||
		!OidIsValid(get_opfamily_proc(k->opfamily, k->inner_type,
									  k->inner_type, BTORDER_PROC)))
		return NULL;

	k->outer_pk = make_canonical_pathkey(root, oec, k->opfamily,
										 BTLessStrategyNumber, false);
	k->inner_pk = make_canonical_pathkey(root, iec, k->opfamily,
										 BTLessStrategyNumber, false);
	foreach(lc, keys)
	{
		IJKey	   *other = (IJKey *) lfirst(lc);

		if (other->outer_pk == k->outer_pk || other->inner_pk == k->inner_pk)
			return NULL;
	}
	return k;
}

/*
 * ij_tighter
 *		Is bound a tighter than bound b (both lower or both upper)?
 */
static bool
ij_tighter(IJBound *a, IJBound *b, bool lower)
{
	if (a->d != b->d)
		return lower ? a->d > b->d : a->d < b->d;
	/* same offset: the strict one excludes more */
	return a->strategy == BTLessStrategyNumber ||
		a->strategy == BTGreaterStrategyNumber;
}

/*
 * ij_recognise
 *		Examine the join's restriction clauses.  Returns NULL unless they
 *		contain a lower and an upper bound on the same pair of time
 *		expressions that can be used for an interval join of this type.
 */
static IJInfo *
ij_recognise(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *outerrel,
			 RelOptInfo *innerrel, JoinType jointype, List *restrictlist)
{
	bool		is_outer = IS_OUTER_JOIN(jointype);
	List	   *bounds = NIL;
	List	   *keys = NIL;
	List	   *rest = NIL;		/* RestrictInfos not used as key or band */
	IJBound    *lower = NULL;
	IJBound    *upper = NULL;
	IJInfo	   *info;
	ListCell   *lc;

	foreach(lc, restrictlist)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);
		IJKey	   *k;
		IJBound    *b;

		/* WHERE conditions of an outer join filter its result instead */
		if ((is_outer && RINFO_IS_PUSHED_DOWN(rinfo, joinrel->relids)) ||
			rinfo->pseudoconstant)
		{
			rest = lappend(rest, rinfo);
			continue;
		}
		if ((k = ij_match_key(root, rinfo, outerrel, innerrel, keys)) != NULL)
			keys = lappend(keys, k);
		else if ((b = ij_match_bound(root, rinfo, outerrel, innerrel)) != NULL)
			bounds = lappend(bounds, b);
		else
			rest = lappend(rest, rinfo);
	}

	/* pick the first pair of time expressions with both kinds of bound */
	foreach(lc, bounds)
	{
		IJBound    *b = (IJBound *) lfirst(lc);
		ListCell   *lc2;

		lower = upper = NULL;
		foreach(lc2, bounds)
		{
			IJBound    *c = (IJBound *) lfirst(lc2);
			bool		is_lower;

			if (c->ttype != b->ttype || !equal(c->outer_t, b->outer_t) ||
				!equal(c->inner_t, b->inner_t))
				continue;
			is_lower = (c->strategy == BTGreaterStrategyNumber ||
						c->strategy == BTGreaterEqualStrategyNumber);
			if (is_lower && (lower == NULL || ij_tighter(c, lower, true)))
				lower = c;
			else if (!is_lower && (upper == NULL || ij_tighter(c, upper, false)))
				upper = c;
		}
		if (lower && upper)
			break;
	}
	if (lower == NULL || upper == NULL)
		return NULL;

	/* every other bound is just a filter */
	foreach(lc, bounds)
	{
		IJBound    *b = (IJBound *) lfirst(lc);

		if (b != lower && b != upper)
			rest = lappend(rest, b->rinfo);
	}

	info = palloc0(sizeof(IJInfo));
	info->jointype = jointype;
	info->keys = keys;
	info->lower = lower;
	info->upper = upper;
	foreach(lc, rest)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);

		/* as create_join_plan: for inner joins all clauses are alike */
		if (is_outer && RINFO_IS_PUSHED_DOWN(rinfo, joinrel->relids))
			info->otherquals = lappend(info->otherquals, rinfo->clause);
		else
			info->joinquals = lappend(info->joinquals, rinfo->clause);
	}
	/* the band and the join quals in the join's order, for the executor */
	foreach(lc, restrictlist)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);

		if (rinfo == lower->rinfo || rinfo == upper->rinfo ||
			list_member_ptr(info->joinquals, rinfo->clause))
			info->filter_rinfos = lappend(info->filter_rinfos, rinfo);
	}
	return info;
}

/*
 * ij_inner_sjinfo
 *		A SpecialJoinInfo of the join's two sides with JOIN_INNER semantics,
 *		as approx_tuple_count() makes for hash joins.
 */
static void
ij_inner_sjinfo(SpecialJoinInfo *sjinfo, RelOptInfo *outerrel,
				RelOptInfo *innerrel)
{
	memset(sjinfo, 0, sizeof(*sjinfo));
	sjinfo->type = T_SpecialJoinInfo;
	sjinfo->min_lefthand = outerrel->relids;
	sjinfo->min_righthand = innerrel->relids;
	sjinfo->syn_lefthand = outerrel->relids;
	sjinfo->syn_righthand = innerrel->relids;
	sjinfo->jointype = JOIN_INNER;
}

/*
 * ij_band_fraction
 *		The fraction of inner rows inside one outer row's band: its width
 *		over the time column's range when the statistics tell that range
 *		(*from_stats set), PostgreSQL's own selectivity of the two
 *		comparisons otherwise.
 */
static Selectivity
ij_band_fraction(PlannerInfo *root, IJInfo *info, SpecialJoinInfo *sjinfo,
				 bool *from_stats)
{
	double		width = (double) info->upper->d - (double) info->lower->d;
	double		span;
	Selectivity bandfrac;

	span = wj_stats_time_span(root, (Node *) info->lower->inner_t, false);
	if (span <= 0)
		span = wj_stats_time_span(root, (Node *) info->lower->outer_t, false);
	*from_stats = (span > 0);
	if (span > 0)
		bandfrac = Max(width, 1.0) / span;
	else
		bandfrac = clauselist_selectivity(root,
										  list_make2(info->lower->rinfo,
													 info->upper->rinfo),
										  0, JOIN_INNER, sjinfo);
	if (width < 0)
		bandfrac = 0;
	CLAMP_PROBABILITY(bandfrac);
	return bandfrac;
}

/*
 * ij_estimate_rows
 *		The join's rows as the node estimates them: PostgreSQL's estimate
 *		for the join relation, with the two band comparisons' selectivity
 *		(taken as independent inequalities, 1/3 each, so that a band of two
 *		seconds over a month of rows is estimated to keep a ninth of all
 *		pairs) replaced by the band fraction of ij_band_fraction when the
 *		statistics give it.  Outer joins keep at least their preserved
 *		side's rows, as PostgreSQL's estimate does; semi and anti joins,
 *		whose estimate does not grow with the pairs, keep PostgreSQL's.
 *		Also keeps the band fraction in info->bandfrac for ij_cost_path,
 *		which costs every path of the join with it.
 *
 * The node's paths carry this estimate rather than the relation's, so
 * that what is planned above them (an aggregate's cost, and with it the
 * decision to JIT-compile the plan) sees rows of the right magnitude.
 */
static double
ij_estimate_rows(PlannerInfo *root, IJInfo *info, RelOptInfo *joinrel,
				 RelOptInfo *outerrel, RelOptInfo *innerrel)
{
	SpecialJoinInfo sjinfo;
	Selectivity band;
	Selectivity pg_band;
	bool		from_stats;
	double		rows;

	ij_inner_sjinfo(&sjinfo, outerrel, innerrel);
	band = ij_band_fraction(root, info, &sjinfo, &from_stats);
	info->bandfrac = band;
	if (info->jointype == JOIN_SEMI || info->jointype == JOIN_ANTI)
		return joinrel->rows;
	pg_band = clauselist_selectivity(root,
									 list_make2(info->lower->rinfo,
												info->upper->rinfo),
									 0, JOIN_INNER, &sjinfo);
	if (!from_stats || pg_band <= 0 || band >= pg_band)
		return joinrel->rows;
	rows = joinrel->rows * (band / pg_band);
	if (info->jointype == JOIN_LEFT || info->jointype == JOIN_FULL)
		rows = Max(rows, outerrel->rows);
	if (info->jointype == JOIN_RIGHT || info->jointype == JOIN_FULL)
		rows = Max(rows, innerrel->rows);
	return clamp_row_est(Min(rows, joinrel->rows));
}

/*
 * ij_cost_path
 *		Estimate the cost of the interval join over two sorted inputs.
 *
 * Besides the inputs, the sweep compares every row with its neighbours,
 * copies each inner row into the band buffer, and visits every candidate
 * pair: same key and inner time inside the band.  Candidates are
 * outer rows x inner rows x key selectivity x band fraction, where the
 * band fraction is its width over the time column's range when statistics
 * tell that range (PostgreSQL's own estimate for the two comparisons
 * otherwise).  Each candidate costs a band check, the join filter and a
 * tuple; the result rows cost their projection like any join.
 */
static void
ij_cost_path(PlannerInfo *root, CustomPath *cpath, IJInfo *info,
			 RelOptInfo *joinrel, Path *outer, Path *inner)
{
	double		orows = outer->rows;
	double		irows = inner->rows;
	int			nkeys = list_length(info->keys);
	SpecialJoinInfo sjinfo;
	List	   *keyrinfos = NIL;
	Selectivity keysel = 1.0;
	double		candidates;
	QualCost	jq,
				oq;
	Cost		run;
	ListCell   *lc;

	ij_inner_sjinfo(&sjinfo, outer->parent, inner->parent);

	foreach(lc, info->keys)
		keyrinfos = lappend(keyrinfos, ((IJKey *) lfirst(lc))->rinfo);
	if (keyrinfos != NIL)
		keysel = clauselist_selectivity(root, keyrinfos, 0, JOIN_INNER, &sjinfo);

	candidates = clamp_row_est(orows * irows * keysel * info->bandfrac);

	cost_qual_eval(&jq, info->joinquals, root);
	cost_qual_eval(&oq, info->otherquals, root);

	cpath->path.startup_cost = outer->startup_cost + inner->startup_cost +
		jq.startup + oq.startup;
	run = (outer->total_cost - outer->startup_cost) +
		(inner->total_cost - inner->startup_cost);
	/* key and time comparisons of the sweep, for every input row */
	run += (orows + irows) * cpu_operator_cost * (nkeys + 2);
	/* every inner row enters the band buffer and leaves it */
	run += irows * cpu_tuple_cost;
	/* every candidate pair is read back, checked and filtered */
	run += candidates * (cpu_tuple_cost + 2 * cpu_operator_cost + jq.per_tuple);
	/* result rows: filter from WHERE, and projection */
	run += candidates * oq.per_tuple;
	run += cpath->path.rows * cpath->path.pathtarget->cost.per_tuple;
	cpath->path.startup_cost += cpath->path.pathtarget->cost.startup;
	cpath->path.total_cost = cpath->path.startup_cost + run;
}

/*
 * wj_interval_add_paths
 *		Join pathlist hook entry: add an IntervalJoin path for this join if
 *		it is an interval join we can execute exactly.
 */
void
wj_interval_add_paths(PlannerInfo *root, RelOptInfo *joinrel,
					  RelOptInfo *outerrel, RelOptInfo *innerrel,
					  JoinType jointype, JoinPathExtraData *extra)
{
	IJInfo	   *info;
	List	   *outer_pks = NIL;
	List	   *inner_pks = NIL;
	List	   *pk;
	TypeCacheEntry *tce;
	Path	   *outer;
	Path	   *inner;
	ListCell   *lc;

	if (!wj_enable_interval_join)
		return;
	if (jointype != JOIN_INNER && jointype != JOIN_LEFT &&
		jointype != JOIN_RIGHT && jointype != JOIN_FULL &&
		jointype != JOIN_SEMI && jointype != JOIN_ANTI)
		return;
	/* lateral references would need a parameterized path */
	if (!bms_is_empty(joinrel->lateral_relids))
		return;

	info = ij_recognise(root, joinrel, outerrel, innerrel, jointype,
						extra->restrictlist);
	if (info == NULL)
		return;
	info->rows = ij_estimate_rows(root, info, joinrel, outerrel, innerrel);

	/* sort orders: (keys..., time) on each side */
	foreach(lc, info->keys)
	{
		IJKey	   *k = (IJKey *) lfirst(lc);

		outer_pks = lappend(outer_pks, k->outer_pk);
		inner_pks = lappend(inner_pks, k->inner_pk);
	}
	tce = lookup_type_cache(info->lower->ttype, TYPECACHE_LT_OPR);
	if (!OidIsValid(tce->lt_opr))
		return;
	pk = wj_build_expression_pathkey(root, info->lower->outer_t, NULL,
									 tce->lt_opr, outerrel->relids, true);
	if (pk != NIL && !list_member_ptr(outer_pks, linitial(pk)))
		outer_pks = lappend(outer_pks, linitial(pk));
	pk = wj_build_expression_pathkey(root, info->lower->inner_t, NULL,
									 tce->lt_opr, innerrel->relids, true);
	if (pk != NIL && !list_member_ptr(inner_pks, linitial(pk)))
		inner_pks = lappend(inner_pks, linitial(pk));

	outer = wj_sorted_input(root, outerrel, outer_pks);
	inner = wj_sorted_input(root, innerrel, inner_pks);
	if (outer == NULL || inner == NULL)
		return;
	add_path(joinrel, ij_make_path(root, joinrel, info, outer, inner,
								   outer_pks));

	/*
	 * A partial path: each participant joins its share of the outer rows
	 * with all inner rows.  Not for right and full joins, whose unmatched
	 * inner rows no single participant can tell.
	 */
	if (jointype != JOIN_RIGHT && jointype != JOIN_FULL &&
		joinrel->consider_parallel)
	{
		outer = wj_partial_outer_input(root, outerrel, outer_pks);
		inner = wj_parallel_safe_input(root, innerrel, inner_pks);
		if (outer != NULL && inner != NULL)
			add_partial_path(joinrel, ij_make_path(root, joinrel, info, outer,
												   inner, outer_pks));
	}

	/* key-partitioned, any join type: the sorts of both sides split */
	if (wj_enable_key_partitioning && joinrel->consider_parallel &&
		info->keys != NIL)
		ij_add_keypart_path(root, joinrel, info, outerrel, innerrel,
							outer_pks, inner_pks);
}

/*
 * ij_key_hashfns
 *		The hash functions of the first key's outer and inner types (those
 *		of its equality operator's hash opfamily), false if it has none.
 */
static bool
ij_key_hashfns(IJKey *k, Oid *outer_hash, Oid *inner_hash)
{
	OpExpr	   *op = (OpExpr *) k->rinfo->clause;
	Oid			lhash,
				rhash;

	if (!OidIsValid(k->rinfo->hashjoinoperator) ||
		!get_op_hash_functions(op->opno, &lhash, &rhash))
		return false;
	if (linitial(op->args) == (void *) k->outer_expr)
	{
		*outer_hash = lhash;
		*inner_hash = rhash;
	}
	else
	{
		*outer_hash = rhash;
		*inner_hash = lhash;
	}
	return true;
}

/*
 * ij_add_keypart_path
 *		Key-partitioned partial paths (docs/parallel.md): the rows of both
 *		inputs go by key partition (the first key, hashed; NULL keys in
 *		partition 0), claimed one after another at run time, so every key is
 *		joined, and every unmatched row of either side emitted, in exactly
 *		one process.  Either every participant reads both inputs in full,
 *		their scans keeping the rows of the partition it is joining, or each
 *		reads its share of both and the rows are exchanged by partition; the
 *		costs decide.  Right and full joins can only split this way; for the
 *		others it competes with the partial path above.  Offered only in the
 *		top query level (wj_keypart_plan) and for a key between plain columns.
 */
static void
ij_add_keypart_path(PlannerInfo *root, RelOptInfo *joinrel, IJInfo *info,
					RelOptInfo *outerrel, RelOptInfo *innerrel,
					List *outer_pks, List *inner_pks)
{
	IJKey	   *k = (IJKey *) linitial(info->keys);
	Oid			ohash,
				ihash;
	Path	   *outer;
	Path	   *inner;
	Path	   *path;
	int			workers;

	if (root->query_level != 1 || root->parent_root != NULL)
		return;
	if (!IsA(k->outer_expr, Var) || !IsA(k->inner_expr, Var) ||
		!ij_key_hashfns(k, &ohash, &ihash))
		return;
	workers = wj_keypart_workers(outerrel, innerrel);
	if (workers <= 0)
		return;

	/* every participant reads both inputs in full */
	outer = wj_parallel_safe_input(root, outerrel, outer_pks);
	inner = wj_parallel_safe_input(root, innerrel, inner_pks);
	if (outer != NULL && inner != NULL &&
		wj_keypart_scan(outer) != NULL && wj_keypart_scan(inner) != NULL)
	{
		path = ij_make_path(root, joinrel, info, outer, inner, outer_pks);
		if (path->parallel_safe)
		{
			wj_keypart_make_partial(root, path, outer, inner,
									(Node *) k->outer_expr, workers);
			((CustomPath *) path)->methods = &ij_keypart_path_methods;
			add_partial_path(joinrel, path);
		}
	}

	/* each reads its share, the rows are exchanged */
	outer = wj_keypart_exchange_input(root, outerrel, outer_pks);
	inner = wj_keypart_exchange_input(root, innerrel, inner_pks);
	if (outer != NULL && inner != NULL)
	{
		path = ij_make_path(root, joinrel, info, outer, inner, outer_pks);
		if (path->parallel_safe)
		{
			wj_keypart_exchanged(root, path, outer, inner,
								 (Node *) k->outer_expr,
								 Max(outer->parallel_workers,
									 inner->parallel_workers));
			((CustomPath *) path)->methods = &ij_exchange_path_methods;
			add_partial_path(joinrel, path);
		}
	}
}

/*
 * ij_plan_keypart_common
 *		PlanCustomPath of a key-partitioned path: the ordinary CustomScan,
 *		whose two input scans get the partition filter, or whose inputs'
 *		Sorts get a KeyExchange below them (exchange).
 */
static Plan *
ij_plan_keypart_common(PlannerInfo *root, RelOptInfo *rel,
					   CustomPath *best_path, List *tlist, List *clauses,
					   List *custom_plans, bool exchange)
{
	CustomScan *cscan = ij_make_plan(root, rel, best_path, tlist, clauses,
									 custom_plans,
									 exchange ? WJ_KEYPART_EXCHANGE : WJ_KEYPART_FILTER);

	wj_custom_join_nullingrels(cscan, rel);
	return &cscan->scan.plan;
}

static Plan *
ij_plan_keypart(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
				List *tlist, List *clauses, List *custom_plans)
{
	return ij_plan_keypart_common(root, rel, best_path, tlist, clauses,
								  custom_plans, false);
}

static Plan *
ij_plan_exchange(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
				 List *tlist, List *clauses, List *custom_plans)
{
	return ij_plan_keypart_common(root, rel, best_path, tlist, clauses,
								  custom_plans, true);
}

/*
 * ij_make_path
 *		An IntervalJoin path over the given sorted inputs; a partial path
 *		when outer is one (each participant then sees its share of the
 *		outer rows and all inner rows, and produces its share of the rows).
 */
static Path *
ij_make_path(PlannerInfo *root, RelOptInfo *joinrel, IJInfo *info,
			 Path *outer, Path *inner, List *outer_pks)
{
	CustomPath *cpath;
	bool		partial = outer->parallel_workers > 0;

	cpath = wj_custom_path(root, joinrel, joinrel->reltarget,
						   list_make2(outer, inner), NIL, partial,
						   &ij_path_methods);
	cpath->path.rows = info->rows;
	if (partial)
		cpath->path.rows = clamp_row_est(info->rows /
										 wj_parallel_divisor(outer));
	/* all but right and full joins emit rows in the outer input's order */
	if (info->jointype != JOIN_RIGHT && info->jointype != JOIN_FULL)
		cpath->path.pathkeys = build_join_pathkeys(root, joinrel,
												   info->jointype, outer_pks);
	cpath->flags = CUSTOMPATH_SUPPORT_PROJECTION;
	cpath->custom_private = list_make1(info);
	ij_cost_path(root, cpath, info, joinrel, outer, inner);
	return (Path *) cpath;
}

/*
 * ij_child_column
 *		The column of a child plan's output holding expr, adding it as a
 *		junk column (through a Result node if the plan cannot project) when
 *		it is not there yet.
 */
static AttrNumber
ij_child_column(Plan **plan, Expr *expr)
{
	TargetEntry *tle = tlist_member(expr, (*plan)->targetlist);
	List	   *tlist;
	AttrNumber	resno;

	if (tle != NULL)
		return tle->resno;
	tlist = list_copy((*plan)->targetlist);
	resno = list_length(tlist) + 1;
	tlist = lappend(tlist, makeTargetEntry((Expr *) copyObject(expr), resno,
										   NULL, true));
	*plan = change_plan_targetlist(*plan, tlist, (*plan)->parallel_safe);
	return resno;
}

/*
 * ij_filter_in_pg_order
 *		The band and the join quals in the order PostgreSQL's merge or hash
 *		join evaluates its join filter (createplan.c's order_qual_clauses:
 *		by security level, then by cost, keeping the written order among
 *		equals).  The executor evaluates them so for pairs near an end of
 *		the time range, where some of them may raise an error.
 */
static List *
ij_filter_in_pg_order(PlannerInfo *root, List *rinfos)
{
	int			n = list_length(rinfos);
	RestrictInfo **items = palloc(sizeof(RestrictInfo *) * Max(n, 1));
	Cost	   *costs = palloc(sizeof(Cost) * Max(n, 1));
	List	   *result = NIL;
	ListCell   *lc;
	int			i;

	i = 0;
	foreach(lc, rinfos)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);
		QualCost	qc;

		cost_qual_eval_node(&qc, (Node *) rinfo->clause, root);
		items[i] = rinfo;
		costs[i] = qc.per_tuple;
		i++;
	}
	/* stable insertion sort, as order_qual_clauses */
	for (i = 1; i < n; i++)
	{
		RestrictInfo *it = items[i];
		Cost		c = costs[i];
		int			j;

		for (j = i; j > 0; j--)
		{
			if (it->security_level > items[j - 1]->security_level ||
				(it->security_level == items[j - 1]->security_level &&
				 c >= costs[j - 1]))
				break;
			items[j] = items[j - 1];
			costs[j] = costs[j - 1];
		}
		items[j] = it;
		costs[j] = c;
	}
	for (i = 0; i < n; i++)
		result = lappend(result, items[i]->clause);
	return result;
}

/*
 * ij_plan_custom_path
 *		PlanCustomPath: the CustomScan of ij_make_plan.
 */
static Plan *
ij_plan_custom_path(PlannerInfo *root, RelOptInfo *rel,
					CustomPath *best_path, List *tlist,
					List *clauses, List *custom_plans)
{
	CustomScan *cscan = ij_make_plan(root, rel, best_path, tlist, clauses,
									 custom_plans, WJ_KEYPART_NONE);

	wj_custom_join_nullingrels(cscan, rel);
	return &cscan->scan.plan;
}

/*
 * ij_make_plan
 *		Build the CustomScan over the two sorted child plans, split by key
 *		partition as mode says (the partition filters or KeyExchanges go on
 *		the child plans, and the sub-record into the plan's private data).
 */
static CustomScan *
ij_make_plan(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
			 List *tlist, List *clauses, List *custom_plans,
			 WjKeyPartMode mode)
{
	IJInfo	   *info = (IJInfo *) linitial(best_path->custom_private);
	Plan	   *outer_plan = (Plan *) linitial(custom_plans);
	Plan	   *inner_plan = (Plan *) lsecond(custom_plans);
	CustomScan *cscan;
	IntervalJoinPlanInfo plan_info;
	List	   *outer_keys = NIL,
			   *inner_keys = NIL,
			   *opfamilies = NIL,
			   *collations = NIL,
			   *outer_types = NIL,
			   *inner_types = NIL,
			   *key_clauses = NIL,
			   *scan_tlist = NIL;
	AttrNumber	outer_time,
				inner_time;
	AttrNumber	resno = 1;
	ListCell   *lc;

	/* for joins, createplan passes no scan clauses; ours are in info */
	Assert(clauses == NIL);

	foreach(lc, info->keys)
	{
		IJKey	   *k = (IJKey *) lfirst(lc);

		outer_keys = lappend_int(outer_keys,
								 ij_child_column(&outer_plan, k->outer_expr));
		inner_keys = lappend_int(inner_keys,
								 ij_child_column(&inner_plan, k->inner_expr));
		opfamilies = lappend_oid(opfamilies, k->opfamily);
		collations = lappend_oid(collations, k->collation);
		outer_types = lappend_oid(outer_types, k->outer_type);
		inner_types = lappend_oid(inner_types, k->inner_type);
		key_clauses = lappend(key_clauses, k->rinfo->clause);
	}
	outer_time = ij_child_column(&outer_plan, info->lower->outer_t);
	inner_time = ij_child_column(&inner_plan, info->lower->inner_t);

	/* the scan tuple: the outer child's columns, then the inner child's */
	foreach(lc, outer_plan->targetlist)
		scan_tlist = lappend(scan_tlist,
							 makeTargetEntry((Expr *) copyObject(((TargetEntry *) lfirst(lc))->expr),
											 resno++, NULL, false));
	foreach(lc, inner_plan->targetlist)
		scan_tlist = lappend(scan_tlist,
							 makeTargetEntry((Expr *) copyObject(((TargetEntry *) lfirst(lc))->expr),
											 resno++, NULL, false));

	plan_info.jointype = info->jointype;
	plan_info.outer_time = outer_time;
	plan_info.inner_time = inner_time;
	plan_info.time_type = info->lower->ttype;
	plan_info.lo_incl = info->lower->strategy == BTGreaterEqualStrategyNumber;
	plan_info.hi_incl = info->upper->strategy == BTLessEqualStrategyNumber;
	plan_info.outer_ncols = list_length(outer_plan->targetlist);
	plan_info.lo = info->lower->d;
	plan_info.hi = info->upper->d;
	plan_info.outer_keys = outer_keys;
	plan_info.inner_keys = inner_keys;
	plan_info.opfamilies = opfamilies;
	plan_info.collations = collations;
	plan_info.outer_types = outer_types;
	plan_info.inner_types = inner_types;
	if (mode == WJ_KEYPART_NONE)
		wj_keypart_plan_none(&plan_info.keypart);
	else
	{
		IJKey	   *k = (IJKey *) linitial(info->keys);
		Oid			ohash,
					ihash;

		if (!ij_key_hashfns(k, &ohash, &ihash))
			elog(ERROR, "no hash functions for the key of a key-partitioned interval join");
		wj_keypart_plan_join(root, best_path->path.parallel_workers,
							 mode == WJ_KEYPART_EXCHANGE,
							 &outer_plan, k->outer_expr, ohash,
							 &inner_plan, k->inner_expr, ihash,
							 &plan_info.keypart);
	}

	cscan = wj_custom_scan(best_path->flags, tlist, info->otherquals,
						   list_make2(outer_plan, inner_plan), scan_tlist,
						   &wj_interval_scan_methods);
	cscan->custom_exprs = list_make4(key_clauses,
									 list_make2(info->lower->rinfo->clause,
												info->upper->rinfo->clause),
									 info->joinquals,
									 ij_filter_in_pg_order(root,
														   info->filter_rinfos));
	cscan->custom_private = interval_join_info_to_private(&plan_info);
	cscan->custom_relids = bms_copy(rel->relids);

	return cscan;
}

