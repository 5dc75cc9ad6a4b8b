/*-------------------------------------------------------------------------
 *
 * pg_compat.h
 *	  Compatibility with the supported PostgreSQL majors: 15, 17 and 18.
 *
 * One source tree builds against each of them.  Where PostgreSQL changed
 * a function's arguments, a struct's fields or a header's contents, the
 * code calls a named helper from this file instead, and this file is the
 * one place that tests PG_VERSION_NUM for such changes (code whose
 * behaviour truly differs between majors tests it where it is, with a
 * comment).  Each helper compiles, on PostgreSQL 15, to exactly the call
 * or expression the code made before it existed; on the newer majors it
 * passes the new arguments the way PostgreSQL's own callers do.
 *
 * The version boundaries are those of the PostgreSQL release that made
 * the change (16 for several of them); 16 itself is not a supported
 * major and is not tested.
 *
 * src/common/pg_compat.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WJ_PG_COMPAT_H
#define WJ_PG_COMPAT_H

#include "postgres.h"

#include "access/htup_details.h"
#include "access/stratnum.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "fmgr.h"
#include "nodes/pathnodes.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/planner.h"
#include "utils/lsyscache.h"

#if PG_VERSION_NUM >= 180000
#include "access/cmptype.h"
#include "catalog/pg_am_d.h"
#include "commands/explain_format.h"
#include "commands/explain_state.h"
#endif

/*
 * strlcpy
 *		The headers of the assembled 17 and 18 toolchains
 *		(../shared/pg-versions) come from Debian releases whose glibc (2.38
 *		and later) declares strlcpy(), so their pg_config.h says so and
 *		port.h does not declare it; this machine's glibc 2.36 does not
 *		either.  The server itself has PostgreSQL's own strlcpy (src/port),
 *		which the module resolves at load time, so only the declaration is
 *		missing.  Nothing happens with matching headers and C library (as
 *		with Debian 12's PostgreSQL 15).
 */
#if defined(__GLIBC__) && defined(HAVE_DECL_STRLCPY) && HAVE_DECL_STRLCPY
#if !__GLIBC_PREREQ(2, 38)
extern size_t strlcpy(char *dst, const char *src, size_t siz);
#endif
#endif

/*
 * wj_datum_get_heap_tuple_header
 *		The tuple of a composite datum, as DatumGetHeapTupleHeader() was
 *		defined in fmgr.h up to 17.10 (and still is in 15 and 18): detoast,
 *		cast.  17.12's headers declare it as a function of the server, which
 *		17.10's server does not have; the assembled 17 toolchain pairs those
 *		headers with that server (../shared/pg-versions), where a module that
 *		calls it fails to load.  Only for datums the module formed itself,
 *		which are never toasted nor expanded.
 */
#define wj_datum_get_heap_tuple_header(X) ((HeapTupleHeader) PG_DETOAST_DATUM(X))

/*
 * wj_abs_int64
 *		The absolute value of an int64.  PostgreSQL 16 removed the Abs()
 *		macro from c.h in favour of i64abs() and the C library's functions.
 */
#if PG_VERSION_NUM >= 160000
#define wj_abs_int64(x) i64abs(x)
#else
#define wj_abs_int64(x) Abs(x)
#endif

/*
 * WJ_LIMIT_OPTION_NONE
 *		Query.limitOption of a query without LIMIT.  PostgreSQL 16 removed
 *		LIMIT_OPTION_DEFAULT; a query without LIMIT has LIMIT_OPTION_COUNT
 *		(and no limitCount) there.
 */
#if PG_VERSION_NUM >= 160000
#define WJ_LIMIT_OPTION_NONE LIMIT_OPTION_COUNT
#else
#define WJ_LIMIT_OPTION_NONE LIMIT_OPTION_DEFAULT
#endif

/*
 * wj_nullable_baserels
 *		PlannerInfo's nullable_baserels, for wj_build_expression_pathkey();
 *		PostgreSQL 16 replaced it by the nullingrels of outer-join-aware
 *		Vars, and no longer takes such a set anywhere.
 * wj_build_expression_pathkey
 *		build_expression_pathkey(); since PostgreSQL 16 without the
 *		nullable relids argument, which is not evaluated there.
 */
#if PG_VERSION_NUM >= 160000
#define wj_nullable_baserels(root) ((Relids) NULL)
#define wj_build_expression_pathkey(root, expr, nullable_relids, opno, rel, create_it) \
	build_expression_pathkey((root), (expr), (opno), (rel), (create_it))
#else
#define wj_nullable_baserels(root) ((root)->nullable_baserels)
#define wj_build_expression_pathkey(root, expr, nullable_relids, opno, rel, create_it) \
	build_expression_pathkey((root), (expr), (nullable_relids), (opno), (rel), (create_it))
#endif

/*
 * wj_base_relids
 *		The base relations among a join relation's relids.  Since
 *		PostgreSQL 16 those also name the outer joins the relation computes
 *		(range table entries without a RelOptInfo, in outer_join_rels).
 */
#if PG_VERSION_NUM >= 160000
#define wj_base_relids(root, relids) \
	bms_difference((relids), (root)->outer_join_rels)
#else
#define wj_base_relids(root, relids) (relids)
#endif

/*
 * wj_generate_join_implied_equalities
 *		generate_join_implied_equalities() for an inner join; PostgreSQL 16
 *		added the join's SpecialJoinInfo, NULL for an inner join.
 */
#if PG_VERSION_NUM >= 160000
#define wj_generate_join_implied_equalities(root, join_relids, outer_relids, inner_rel) \
	generate_join_implied_equalities((root), (join_relids), (outer_relids), (inner_rel), NULL)
#else
#define wj_generate_join_implied_equalities(root, join_relids, outer_relids, inner_rel) \
	generate_join_implied_equalities((root), (join_relids), (outer_relids), (inner_rel))
#endif

/*
 * wj_create_subqueryscan_path
 *		create_subqueryscan_path() on the subquery relation rel.  PostgreSQL
 *		16 added trivial_pathtarget, which set_subquery_pathlist() computes
 *		for rel (its target list is the subquery's output columns in order,
 *		so that setrefs.c will drop the SubqueryScan; it is then costed as
 *		free): the same test here, so that a path made again over one of
 *		the subquery's paths costs what PostgreSQL's own does.
 */
#if PG_VERSION_NUM >= 160000
static inline bool
wj_subquery_pathtarget_is_trivial(RelOptInfo *rel)
{
	List	   *tlist = rel->subroot->parse->targetList;
	ListCell   *lc;
	int			attno = 0;

	if (list_length(rel->reltarget->exprs) != list_length(tlist))
		return false;
	foreach(lc, rel->reltarget->exprs)
	{
		Var		   *var = (Var *) lfirst(lc);

		attno++;
		if (!IsA(var, Var) || var->varno != rel->relid ||
			var->varattno != attno)
			return false;
	}
	return true;
}

#define wj_create_subqueryscan_path(root, rel, subpath, pathkeys, required_outer) \
	create_subqueryscan_path((root), (rel), (subpath), \
							 wj_subquery_pathtarget_is_trivial(rel), \
							 (pathkeys), (required_outer))
#else
#define wj_create_subqueryscan_path(root, rel, subpath, pathkeys, required_outer) \
	create_subqueryscan_path((root), (rel), (subpath), (pathkeys), (required_outer))
#endif

/*
 * wj_subquery_planner
 *		subquery_planner() for a query that is not a set operation's
 *		branch; PostgreSQL 17 added the set operation (NULL here).
 */
#if PG_VERSION_NUM >= 170000
#define wj_subquery_planner(glob, parse, parent_root, hasRecursion, tuple_fraction) \
	subquery_planner((glob), (parse), (parent_root), (hasRecursion), (tuple_fraction), NULL)
#else
#define wj_subquery_planner(glob, parse, parent_root, hasRecursion, tuple_fraction) \
	subquery_planner((glob), (parse), (parent_root), (hasRecursion), (tuple_fraction))
#endif

/*
 * wj_windowagg_run_condition
 *		The run condition (a list of OpExprs) of a WindowAggPath: in the path
 *		since PostgreSQL 17, in its WindowClause before.
 */
#if PG_VERSION_NUM >= 170000
#define wj_windowagg_run_condition(wpath) ((wpath)->runCondition)
#else
#define wj_windowagg_run_condition(wpath) ((wpath)->winclause->runCondition)
#endif

/*
 * wj_create_windowagg_path_like
 *		A WindowAggPath computing what wpath computes (its window clause,
 *		run condition, quals and place among the windows) over another
 *		input path, with the given target and window functions.  PostgreSQL
 *		17 keeps the run condition in the path rather than in the
 *		WindowClause, and takes it as an argument.
 */
#if PG_VERSION_NUM >= 170000
#define wj_create_windowagg_path_like(root, rel, subpath, target, wfuncs, wpath) \
	create_windowagg_path((root), (rel), (subpath), (target), (wfuncs), \
						  (wpath)->runCondition, (wpath)->winclause, \
						  (wpath)->qual, (wpath)->topwindow)
#else
#define wj_create_windowagg_path_like(root, rel, subpath, target, wfuncs, wpath) \
	create_windowagg_path((root), (rel), (subpath), (target), (wfuncs), \
						  (wpath)->winclause, (wpath)->qual, (wpath)->topwindow)
#endif

/*
 * wj_ordering_op_strategy
 *		get_ordering_op_properties() with the btree strategy of the operator
 *		(BTLessStrategyNumber or BTGreaterStrategyNumber) in *strategy.
 *		PostgreSQL 18 returns a CompareType instead, and may return the
 *		opfamily of any ordering access method: only btree's count here,
 *		as they alone did before.
 */
#if PG_VERSION_NUM >= 180000
static inline bool
wj_ordering_op_strategy(Oid opno, Oid *opfamily, Oid *opcintype,
						int16 *strategy)
{
	CompareType cmptype;

	if (!get_ordering_op_properties(opno, opfamily, opcintype, &cmptype) ||
		get_opfamily_method(*opfamily) != BTREE_AM_OID)
		return false;
	if (cmptype == COMPARE_LT)
		*strategy = BTLessStrategyNumber;
	else if (cmptype == COMPARE_GT)
		*strategy = BTGreaterStrategyNumber;
	else
		return false;
	return true;
}
#else
#define wj_ordering_op_strategy(opno, opfamily, opcintype, strategy) \
	get_ordering_op_properties((opno), (opfamily), (opcintype), (strategy))
#endif

/*
 * wj_set_sort_direction
 *		Complete a SortGroupClause made by hand, once its sortop is set.
 *		PostgreSQL 18 also records in it whether sortop is a "greater than"
 *		operator (reverse_sort), and sorts by that flag rather than by the
 *		operator: without it, a descending ORDER BY item sorts ascending.
 */
#if PG_VERSION_NUM >= 180000
static inline void
wj_set_sort_direction(SortGroupClause *sgc)
{
	Oid			opfamily;
	Oid			opcintype;
	CompareType cmptype;

	sgc->reverse_sort =
		get_ordering_op_properties(sgc->sortop, &opfamily, &opcintype,
								   &cmptype) && cmptype == COMPARE_GT;
}
#else
#define wj_set_sort_direction(sgc) ((void) 0)
#endif

/*
 * wj_pathkey_strategy
 *		The btree strategy of a pathkey's sort direction:
 *		BTLessStrategyNumber for ASC, BTGreaterStrategyNumber for DESC.
 *		PostgreSQL 18 replaced PathKey.pk_strategy by pk_cmptype.
 */
#if PG_VERSION_NUM >= 180000
#define wj_pathkey_strategy(pk) \
	((pk)->pk_cmptype == COMPARE_GT ? \
	 BTGreaterStrategyNumber : BTLessStrategyNumber)
#else
#define wj_pathkey_strategy(pk) ((pk)->pk_strategy)
#endif

/*
 * wj_heap_form_minimal_tuple
 *		heap_form_minimal_tuple() without extra space before the tuple
 *		(PostgreSQL 18 added that argument).
 */
#if PG_VERSION_NUM >= 180000
#define wj_heap_form_minimal_tuple(desc, values, isnull) \
	heap_form_minimal_tuple((desc), (values), (isnull), 0)
#else
#define wj_heap_form_minimal_tuple(desc, values, isnull) \
	heap_form_minimal_tuple((desc), (values), (isnull))
#endif

/*
 * Tuple hash tables whose entries point to the caller's own data.
 *
 * wj_build_tuple_hash_table
 *		BuildTupleHashTableExt() (PostgreSQL 18: BuildTupleHashTable(), which
 *		also takes the input slots' type, NULL for "any", as before) for a
 *		table whose entries each hold one pointer.  Before 18 an entry has
 *		a pointer field of its own ("additional"), and the size passed is
 *		0 as before; 18 instead reserves additionalsize bytes in each entry,
 *		so the pointer's size is asked for there.
 * wj_tuplehash_get / wj_tuplehash_set
 *		Read and write that pointer of entry in hashtable.
 */
#if PG_VERSION_NUM >= 180000
#define wj_build_tuple_hash_table(parent, desc, numCols, keyColIdx, eqfuncoids, \
								  hashfunctions, collations, nbuckets, \
								  metacxt, tablecxt, tempcxt, use_variable_hash_iv) \
	BuildTupleHashTable((parent), (desc), NULL, (numCols), (keyColIdx), \
						(eqfuncoids), (hashfunctions), (collations), \
						(nbuckets), sizeof(void *), (metacxt), (tablecxt), \
						(tempcxt), (use_variable_hash_iv))
#define wj_tuplehash_get(hashtable, entry) \
	(*(void **) TupleHashEntryGetAdditional((hashtable), (entry)))
#define wj_tuplehash_tuple(entry) TupleHashEntryGetTuple(entry)
#define wj_tuplehash_set(hashtable, entry, ptr) \
	(*(void **) TupleHashEntryGetAdditional((hashtable), (entry)) = (void *) (ptr))
#else
#define wj_build_tuple_hash_table(parent, desc, numCols, keyColIdx, eqfuncoids, \
								  hashfunctions, collations, nbuckets, \
								  metacxt, tablecxt, tempcxt, use_variable_hash_iv) \
	BuildTupleHashTableExt((parent), (desc), (numCols), (keyColIdx), \
						   (eqfuncoids), (hashfunctions), (collations), \
						   (nbuckets), 0, (metacxt), (tablecxt), (tempcxt), \
						   (use_variable_hash_iv))
#define wj_tuplehash_get(hashtable, entry) ((entry)->additional)
#define wj_tuplehash_tuple(entry) ((entry)->firstTuple)
#define wj_tuplehash_set(hashtable, entry, ptr) ((entry)->additional = (ptr))
#endif

/*
 * Disabled nodes.  Since PostgreSQL 18 each path and plan counts the nodes
 * in it that an enable_* setting disabled, and the planner prefers a path
 * with fewer of them before it compares costs (before 18 a disabled node
 * was charged disable_cost instead, which a path built on it inherited
 * with its children's costs).  So that enable_*=off keeps working for
 * PostgreSQL's nodes below ours, a windowjoin path, and a plan node built
 * by hand, carries the sum of its children's counts.  A windowjoin node
 * itself is never counted: switched off (windowjoin.enable_*), it makes no
 * path at all, and EXPLAIN never shows it "Disabled".
 *
 * wj_path_disabled_nodes / wj_plan_disabled_nodes
 *		The count of a path or plan (0 before 18).
 * wj_set_path_disabled_nodes / wj_set_plan_disabled_nodes
 *		Set it (nothing before 18).
 */
#if PG_VERSION_NUM >= 180000
#define wj_path_disabled_nodes(path) ((path)->disabled_nodes)
#define wj_plan_disabled_nodes(plan) ((plan)->disabled_nodes)
#define wj_set_path_disabled_nodes(path, n) ((path)->disabled_nodes = (n))
#define wj_set_plan_disabled_nodes(plan, n) ((plan)->disabled_nodes = (n))
#else
#define wj_path_disabled_nodes(path) ((void) (path), 0)
#define wj_plan_disabled_nodes(plan) ((void) (plan), 0)
#define wj_set_path_disabled_nodes(path, n) ((void) (path), (void) (n))
#define wj_set_plan_disabled_nodes(plan, n) ((void) (plan), (void) (n))
#endif

/*
 * wj_path_total_cheaper
 *		Is path a cheaper than path b to run to completion?  Since
 *		PostgreSQL 18 a path with fewer disabled nodes always is, as in
 *		compare_path_costs(); before, disabled paths were just expensive.
 */
#if PG_VERSION_NUM >= 180000
#define wj_path_total_cheaper(a, b) \
	((a)->disabled_nodes < (b)->disabled_nodes || \
	 ((a)->disabled_nodes == (b)->disabled_nodes && \
	  (a)->total_cost < (b)->total_cost))
#else
#define wj_path_total_cheaper(a, b) ((a)->total_cost < (b)->total_cost)
#endif

/*
 * wj_rel_ownercheck
 *		Does role own relation relid?  pg_class_ownercheck() became
 *		object_ownercheck() in 16.
 */
#if PG_VERSION_NUM >= 160000
#define wj_rel_ownercheck(relid, role) \
	object_ownercheck(RelationRelationId, (relid), (role))
#else
#define wj_rel_ownercheck(relid, role) pg_class_ownercheck((relid), (role))
#endif

#endif							/* WJ_PG_COMPAT_H */
