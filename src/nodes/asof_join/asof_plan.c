/*-------------------------------------------------------------------------
 *
 * asof_plan.c
 *	  PlanCustomPath of the AsOfJoin custom scan: the CustomScan node of the
 *	  chosen path, with the rewritten subquery's plan as its inner child.
 *
 * The outer child was planned by PostgreSQL (custom_plans); the inner child
 * is a SubqueryScan of the rewritten subquery, planned here with the
 * subroot the path was costed with, only now that the path won.  The node
 * keeps its expressions in custom_exprs (so that setrefs.c fixes them) and
 * the rest in an AsOfPlanInfo (asof.h) encoded into custom_private by
 * asof_info_to_private() at the end of this file, and decoded by the
 * executor with asof_info_from_private().
 *
 * The private data's fields are written and read in the same order with the
 * writer and reader of plan_private.h, which check the kind of every field
 * and that none is left over.  Counts come before the arrays they size;
 * every field is always written (the nearest direction's fields and the
 * keys' hash functions hold InvalidOid or false where they do not apply),
 * so the list has one layout for every plan.  Order:
 *
 *	jointype, forward, strict, strategy, share_versions, nouter, nkeys,
 *	ntol;
 *	per key: its comparison (opfamily, outer type, inner type, collation),
 *		inner column, hash function, equality function;
 *	the time's comparison and inner column;
 *	per tolerance bound: its comparison, strict, upper;
 *	nearest, distance function, its "<", time type, inner first, keep nulls.
 *
 * src/nodes/asof_join/asof_plan.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "access/nbtree.h"
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
#include "utils/typcache.h"

#include "src/common/gucs.h"
#include "src/common/input_paths.h"
#include "src/common/join_nulling.h"
#include "src/common/pg_compat.h"
#include "src/common/plan_private.h"
#include "src/common/time_shift.h"
#include "src/nodes/asof_join/asof.h"
#include "src/nodes/asof_join/asof_planner_internal.h"
#include "src/parallel/keypart.h"

static void asof_plan_split(PlannerInfo *root, AsOfPath *apath,
							Plan *subplan, Plan *inner_plan,
							AsOfPlanInfo *info);
static Expr *asof_nearest_show(AsOfSpec *spec, Var *var);
static void asof_nearest_info(AsOfSpec *spec, AsOfPlanInfo *info);
static void asof_adopt_rewritten_subquery(PlannerInfo *root, AsOfPath *apath);

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
 * asof_set_cmp
 *		Describe cond's comparison for the executor.
 */
static void
asof_set_cmp(AsOfCmpInfo *cmp, AsOfCond *cond)
{
	cmp->opfamily = cond->opfamily;
	cmp->outertype = cond->outertype;
	cmp->innertype = cond->innertype;
	cmp->collation = cond->collation;
}

/*
 * asof_adopt_rewritten_subquery
 *		Make the rewritten subquery, planned as apath->subroot, the subquery
 *		of the inner relation for the rest of planning.  This is the only
 *		place where AsOfJoin changes planner state that PostgreSQL built:
 *		the inner relation's RelOptInfo.subroot and its range table entry's
 *		eref.  Called from PlanCustomPath, i.e. only for the path that won.
 *
 * Why: the inner child is a SubqueryScan whose scanrelid is the subquery
 * relation's index in the parent query, and PostgreSQL 15 reaches the
 * planner state of a SubqueryScan's subplan only through that relation,
 * find_base_rel(root, scanrelid)->subroot:
 *
 *	setrefs.c, set_subqueryscan_references: set_plan_references(rel->subroot,
 *		plan->subplan) fixes the subplan's Vars against the subquery's range
 *		table and appends that range table (where the executor checks
 *		permissions) to the final flat one.
 *	setrefs.c, add_rtes_to_flat_rtable: decides from rel->subroot whether
 *		the relation's subquery is planned into the tree.
 *	subselect.c, finalize_plan (T_SubqueryScan): finalize_plan(rel->subroot,
 *		...) with rel->subroot->outer_params computes the subplan's params.
 *
 * There is no other way to give a SubqueryScan its subroot: a CustomScan's
 * custom_plans are fixed with the parent's root (set_customscan_references),
 * and the relation cannot be given a second RelOptInfo or range table entry
 * during the join search.  Replacing the subroot is safe because a base
 * relation is scanned once in a plan and this path is the one chosen for
 * it: PostgreSQL's own paths of the relation, which belong to the original
 * subroot, are never turned into plans.
 *
 * EXPLAIN names a SubqueryScan's columns from its range table entry's
 * eref->colnames (ruleutils.c, set_relation_column_names, for a non-table
 * entry), so the columns added to the rewritten subquery (keys and time not
 * already output, spec->new_colnames) are appended there -- before setrefs.c
 * copies the entry into the final range table.  Only a copy of eref is
 * changed, in the query being planned, which is the planner's to change:
 * plan caching (plancache.c, BuildCachedPlan) hands the planner a fresh
 * copy of the cached query for every planning, so a re-plan starts from the
 * original subquery.
 *
 * sql/asof_subquery.sql covers what depends on this: EXPLAIN VERBOSE of the
 * added columns (without the eref change it fails with "invalid attnum"),
 * generic and re-planned prepared statements, the idiom twice in a query
 * and through a view used twice, rescans, and plans shipped to a parallel
 * worker.  The subroot replacement has no visible effect while the
 * rewritten subquery's range table equals the original's, as planning the
 * two copies gives today; it keeps the plan with the PlannerInfo it was
 * made from for everything setrefs.c and subselect.c take from the latter
 * (range table, params, the subroots of subqueries nested in it).
 */
static void
asof_adopt_rewritten_subquery(PlannerInfo *root, AsOfPath *apath)
{
	RelOptInfo *innerrel = find_base_rel(root, apath->inner_relid);
	RangeTblEntry *rte = planner_rt_fetch(apath->inner_relid, root);
	List	   *new_colnames = apath->spec->new_colnames;

	if (innerrel->rtekind != RTE_SUBQUERY || rte->rtekind != RTE_SUBQUERY ||
		innerrel->subroot == NULL)
		elog(ERROR, "AsOfJoin inner relation %u is not a planned subquery",
			 apath->inner_relid);

	innerrel->subroot = apath->subroot;
	if (new_colnames != NIL)
	{
		Alias	   *eref = copyObject(rte->eref);

		eref->colnames = list_concat(eref->colnames,
									 copyObject(new_colnames));
		rte->eref = eref;
	}
}

/*
 * asof_plan_info_alloc
 *		An empty AsOfPlanInfo in *info, with its per-key arrays sized for
 *		nkeys keys and its per-bound arrays for ntol tolerance bounds (one
 *		entry at least).
 */
static void
asof_plan_info_alloc(AsOfPlanInfo *info, int nkeys, int ntol)
{
	memset(info, 0, sizeof(AsOfPlanInfo));
	info->key_cmps = palloc0(sizeof(AsOfCmpInfo) * Max(nkeys, 1));
	info->key_attnos = palloc0(sizeof(AttrNumber) * Max(nkeys, 1));
	info->key_hashfuncs = palloc0(sizeof(Oid) * Max(nkeys, 1));
	info->key_eqfuncs = palloc0(sizeof(Oid) * Max(nkeys, 1));
	info->tol_cmps = palloc0(sizeof(AsOfCmpInfo) * Max(ntol, 1));
	info->tol_strict = palloc0(sizeof(bool) * Max(ntol, 1));
	info->tol_upper = palloc0(sizeof(bool) * Max(ntol, 1));
}

/*
 * asof_split_quals
 *		Which of the join's conditions decide whether an outer row has a
 *		match (a LEFT join's conditions on the inner relation alone or from
 *		its ON clause: *joinquals) and which filter the joined rows
 *		(*otherquals: every condition of an inner join).
 */
static void
asof_split_quals(AsOfPath *apath, RelOptInfo *rel, RelOptInfo *innerrel,
				 List **joinquals, List **otherquals)
{
	ListCell   *lc;

	foreach(lc, apath->restrictlist)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);

		if (apath->jointype == JOIN_LEFT &&
			(bms_is_subset(rinfo->required_relids, innerrel->relids) ||
			 !RINFO_IS_PUSHED_DOWN(rinfo, rel->relids)))
			*joinquals = lappend(*joinquals, rinfo->clause);
		else
			*otherquals = lappend(*otherquals, rinfo->clause);
	}
}

/*
 * asof_inner_used_columns
 *		The start of the inner child's target list: every column of the
 *		subquery (relation relid) used above the join, in its target or its
 *		conditions.  (The plan's tlist may be empty when a projection will
 *		replace it, so the join's target is what tells what is used.)
 */
static List *
asof_inner_used_columns(CustomPath *best_path, Index relid,
						List *joinquals, List *otherquals)
{
	List	   *inner_tlist = NIL;
	List	   *vars;
	ListCell   *lc;

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
	return inner_tlist;
}

/*
 * asof_plan_keys
 *		Where the executor finds each key: its inner column (appended to
 *		*inner_tlist when missing), its comparison and, when the keys are
 *		hashed (spec->hashed, or a nearest join's lookup may hash them), its
 *		hash and equality functions, in info.  Returns the outer key
 *		expressions in *outer_keys and EXPLAIN's key conditions in
 *		*show_keys.
 */
static void
asof_plan_keys(AsOfSpec *spec, Index relid, List **inner_tlist,
			   AsOfPlanInfo *info, List **outer_keys, List **show_keys)
{
	ListCell   *lc;
	int			i = 0;

	foreach(lc, spec->keys)
	{
		AsOfCond   *c = (AsOfCond *) lfirst(lc);
		Var		   *var = asof_inner_var(relid, c);

		info->key_attnos[i] = asof_add_inner_var(inner_tlist, relid,
												 var->varattno, var->vartype,
												 var->vartypmod,
												 var->varcollid);
		*outer_keys = lappend(*outer_keys, c->outer);
		*show_keys = lappend(*show_keys,
							 make_opclause(c->opno, BOOLOID, false,
										   (Expr *) var, c->outer,
										   InvalidOid, c->collation));
		asof_set_cmp(&info->key_cmps[i], c);
		if (spec->hashed || spec->near_hashable)
		{
			Oid			hashproc;
			Oid			dummy;

			if (!get_op_hash_functions(c->opno, &hashproc, &dummy))
				elog(ERROR, "could not find hash function for operator %u",
					 c->opno);
			info->key_hashfuncs[i] = hashproc;
			info->key_eqfuncs[i] = get_opcode(c->opno);
		}
		i++;
	}
}

/*
 * asof_plan_time
 *		Where the executor finds the time: its inner column (appended to
 *		*inner_tlist when missing) and comparison, and each tolerance
 *		bound's comparison and strictness, in info.  Returns the node's
 *		custom_exprs, which setrefs.c fixes: the outer keys, the outer time,
 *		the tolerance bounds' outer expressions, the LEFT join's match
 *		conditions, then what EXPLAIN shows: the key conditions, the time
 *		condition (the distance ordering for a nearest join) and the
 *		tolerance conditions.
 */
static List *
asof_plan_time(AsOfSpec *spec, Index relid, List **inner_tlist,
			   AsOfPlanInfo *info, List *outer_keys, List *show_keys,
			   List *joinquals)
{
	Var		   *var = asof_inner_var(relid, spec->time);
	List	   *tol_bounds = NIL;
	List	   *show_tol = NIL;
	List	   *exprs;
	ListCell   *lc;
	int			i = 0;

	info->time_attno = asof_add_inner_var(inner_tlist, relid, var->varattno,
										  var->vartype, var->vartypmod,
										  var->varcollid);
	asof_set_cmp(&info->time_cmp, spec->time);
	foreach(lc, spec->tolerances)
	{
		AsOfCond   *c = (AsOfCond *) lfirst(lc);

		tol_bounds = lappend(tol_bounds, c->outer);
		show_tol = lappend(show_tol,
						   make_opclause(c->opno, BOOLOID, false,
										 (Expr *) copyObject(var),
										 c->outer, InvalidOid,
										 c->collation));
		info->tol_strict[i] = (c->strategy == BTLessStrategyNumber ||
							   c->strategy == BTGreaterStrategyNumber);
		asof_set_cmp(&info->tol_cmps[i], c);
		i++;
	}
	exprs = list_make1(outer_keys);
	exprs = lappend(exprs, list_make1(spec->time->outer));
	exprs = lappend(exprs, tol_bounds);
	exprs = lappend(exprs, joinquals);
	exprs = lappend(exprs, show_keys);
	if (spec->nearest)
		exprs = lappend(exprs, list_make1(asof_nearest_show(spec, var)));
	else
		exprs = lappend(exprs,
						list_make1(make_opclause(spec->time->opno,
												 BOOLOID, false,
												 (Expr *) var,
												 spec->time->outer,
												 InvalidOid,
												 spec->time->collation)));
	exprs = lappend(exprs, show_tol);
	return exprs;
}

/*
 * asof_inner_scan
 *		The inner child: a SubqueryScan of the rewritten subquery's plan
 *		subplan, outputting inner_tlist, costed from the path it was planned
 *		from.
 */
static SubqueryScan *
asof_inner_scan(AsOfPath *apath, Plan *subplan, List *inner_tlist)
{
	SubqueryScan *inner_plan = makeNode(SubqueryScan);

	inner_plan->scan.plan.targetlist = inner_tlist;
	inner_plan->scan.plan.qual = NIL;
	inner_plan->scan.plan.lefttree = NULL;
	inner_plan->scan.plan.righttree = NULL;
	inner_plan->scan.scanrelid = apath->inner_relid;
	inner_plan->subplan = subplan;
	inner_plan->scanstatus = SUBQUERY_SCAN_UNKNOWN;
	wj_set_plan_disabled_nodes(&inner_plan->scan.plan,
							   wj_plan_disabled_nodes(subplan));
	inner_plan->scan.plan.startup_cost = apath->inner_path->startup_cost;
	inner_plan->scan.plan.total_cost = apath->inner_path->total_cost +
		cpu_tuple_cost * apath->inner_path->rows;
	inner_plan->scan.plan.plan_rows = apath->inner_path->rows;
	inner_plan->scan.plan.plan_width = apath->inner_path->pathtarget->width;
	inner_plan->scan.plan.parallel_aware = false;
	inner_plan->scan.plan.parallel_safe = apath->inner_path->parallel_safe;
	return inner_plan;
}

/*
 * asof_scan_tlist
 *		The node's scan tuple: the outer child's columns, then the inner
 *		child's.
 */
static List *
asof_scan_tlist(Plan *outer_plan, List *inner_tlist)
{
	List	   *scan_tlist = NIL;
	ListCell   *lc;
	int			resno = 1;

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
	return scan_tlist;
}

/*
 * asof_plan_path
 *		PlanCustomPath: build the CustomScan from the chosen AsOfPath.  The
 *		outer child was planned by PostgreSQL (custom_plans); the inner child
 *		is planned here, only now that this path won.  The steps: the join's
 *		conditions (asof_split_quals), the inner child's plan, its target
 *		list (asof_inner_used_columns, then the keys and the time:
 *		asof_plan_keys, asof_plan_time), the inner SubqueryScan
 *		(asof_inner_scan), the scan tuple (asof_scan_tlist), and the
 *		private data, with the parallel lookup's split (asof_plan_split).
 */
Plan *
asof_plan_path(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
			   List *tlist, List *clauses, List *custom_plans)
{
	AsOfPath   *apath = (AsOfPath *) best_path;
	AsOfSpec   *spec = apath->spec;
	Index		relid = apath->inner_relid;
	RelOptInfo *innerrel = find_base_rel(root, relid);
	CustomScan *cscan;
	List	   *time_exprs;
	Plan	   *outer_plan = (Plan *) linitial(custom_plans);
	Plan	   *subplan;
	SubqueryScan *inner_plan;
	List	   *inner_tlist;
	List	   *scan_tlist;
	List	   *joinquals = NIL;
	List	   *otherquals = NIL;
	List	   *outer_keys = NIL;
	List	   *show_keys = NIL;
	AsOfPlanInfo info;
	int			nkeys = list_length(spec->keys);
	int			ntol = list_length(spec->tolerances);

	asof_plan_info_alloc(&info, nkeys, ntol);

	/* Split the conditions: a LEFT join's match conditions, then filters */
	asof_split_quals(apath, rel, innerrel, &joinquals, &otherquals);

	/* The inner child's plan, under the subroot that setrefs.c will use */
	asof_adopt_rewritten_subquery(root, apath);
	subplan = create_plan(apath->subroot, apath->inner_path);

	/*
	 * The inner child outputs every column of the subquery used above it,
	 * then the keys and the time.
	 */
	inner_tlist = asof_inner_used_columns(best_path, relid, joinquals,
										  otherquals);
	asof_plan_keys(spec, relid, &inner_tlist, &info, &outer_keys, &show_keys);
	time_exprs = asof_plan_time(spec, relid, &inner_tlist, &info, outer_keys,
								show_keys, joinquals);

	/* The inner child: a SubqueryScan of the rewritten subquery */
	inner_plan = asof_inner_scan(apath, subplan, inner_tlist);

	/* The scan tuple: outer child's columns, then inner child's */
	scan_tlist = asof_scan_tlist(outer_plan, inner_tlist);

	info.jointype = apath->jointype;
	info.forward = spec->forward;
	info.strict = spec->strict;
	info.strategy = apath->strategy;
	info.share_versions = apath->share_versions;
	wj_keypart_plan_none(&info.split);
	if (best_path->path.parallel_aware &&
		apath->strategy == ASOF_STRATEGY_LOOKUP)
		asof_plan_split(root, apath, subplan, &inner_plan->scan.plan, &info);
	info.nouter = list_length(outer_plan->targetlist);
	info.nkeys = nkeys;
	info.ntol = ntol;
	if (spec->nearest)
		asof_nearest_info(spec, &info);

	cscan = wj_custom_scan(best_path->flags, tlist, otherquals,
						   list_make2(outer_plan, inner_plan), scan_tlist,
						   &wj_asof_scan_methods);
	cscan->custom_exprs = time_exprs;
	cscan->custom_private = asof_info_to_private(&info);

	wj_custom_join_nullingrels(cscan, rel);
	return &cscan->scan.plan;
}

/*
 * asof_plan_split
 *		A parallel lookup whose versions are loaded split by key partition
 *		and shared (asof_shared.c): give the versions' scan, under the
 *		rewritten subquery's Sort, the filter of a key partition on a new
 *		parameter, and set info's split (keypart.h) and
 *		share_versions.  The split needs keys, a first key whose type can be
 *		hashed, a time the shared image can hold (an integer-like type on
 *		both sides: AsOfLookupState.time_int64), not the nearest direction,
 *		a scan under the inner plan that can take the filter, key
 *		partitioning on (windowjoin.enable_key_partitioning), and the top
 *		query level, whose parameters are final when its plan is made (see
 *		wj_keypart_plan); without them the plan is left as it is.
 *
 * One partition per participant (the workers planned and the leader, at
 * most ASOF_MAX_SPLIT).  The partitions are of the first key's hash (its
 * seed balanced on the key's statistics by wj_split_seed): the versions of
 * one key are all in one partition, so the participants' images never
 * need merging.
 */
static void
asof_plan_split(PlannerInfo *root, AsOfPath *apath, Plan *subplan,
				Plan *inner_plan, AsOfPlanInfo *info)
{
	AsOfSpec   *spec = apath->spec;
	Index		relid = apath->inner_relid;
	Var		   *tv = asof_inner_var(relid, spec->time);
	Oid			ttype = tv->vartype;
	Var		   *kv;
	TargetEntry *tle;
	TypeCacheEntry *tc;

	if (!wj_enable_key_partitioning || root->parent_root != NULL ||
		spec->nearest || spec->keys == NIL ||
		exprType((Node *) spec->time->outer) != ttype ||
		(ttype != TIMESTAMPOID && ttype != TIMESTAMPTZOID &&
		 ttype != INT8OID && ttype != INT4OID && ttype != DATEOID) ||
		wj_split_scan(subplan) == NULL)
		return;
	kv = asof_inner_var(relid, (AsOfCond *) linitial(spec->keys));
	tle = (TargetEntry *) list_nth(subplan->targetlist, kv->varattno - 1);
	tc = lookup_type_cache(exprType((Node *) tle->expr),
						   TYPECACHE_HASH_PROC | TYPECACHE_HASH_EXTENDED_PROC);
	if (!OidIsValid(tc->hash_proc))
		return;

	info->split.units = Min(apath->cpath.path.parallel_workers + 1,
							ASOF_MAX_SPLIT);
	info->split.param = wj_split_filter(apath->subroot, subplan, tle->expr,
										tc->hash_proc, tc->hash_extended_proc,
										info->split.units);
	info->share_versions = true;
	inner_plan->extParam = bms_add_member(inner_plan->extParam,
										  info->split.param);
	inner_plan->allParam = bms_add_member(inner_plan->allParam,
										  info->split.param);
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
 * asof_nearest_info
 *		The plan info fields of a nearest join: the distance function, "<"
 *		on its results, the time type, the distance's argument order,
 *		whether NULL times take part, and per tolerance bound whether it is
 *		an upper bound.
 */
static void
asof_nearest_info(AsOfSpec *spec, AsOfPlanInfo *info)
{
	ListCell   *lc;

	info->nearest = true;
	info->near_distfunc = spec->near_func;
	info->near_ltop = spec->near_ltop;
	info->near_type = spec->near_type;
	info->near_inner_first = spec->near_inner_first;
	info->near_keep_nulls = spec->near_keep_nulls;
	foreach(lc, spec->tolerances)
	{
		AsOfCond   *c = (AsOfCond *) lfirst(lc);

		info->tol_upper[foreach_current_index(lc)] =
			(c->strategy == BTLessStrategyNumber ||
			 c->strategy == BTLessEqualStrategyNumber);
	}
}

