/*-------------------------------------------------------------------------
 *
 * keypart_planner.c
 *	  Key partitioning, planner side (docs/parallel.md): the paths of a
 *	  key-partitioned join (every participant reading both inputs, their
 *	  scans filtered by partition, or a share of them exchanged by
 *	  KeyExchanges), the partition expressions and filters on a PARAM_EXEC,
 *	  and the split load of AsOfJoin's versions (its filter and the seed of
 *	  its hash).  The executor side, and the key space both share, are in
 *	  keypart.c.
 *
 * src/parallel/keypart_planner.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_statistic.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/paramassign.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"

#include "src/common/exec_common.h"
#include "src/common/input_paths.h"
#include "src/nodes/key_exchange/key_exchange.h"
#include "src/parallel/keypart.h"
#include "src/common/pg_compat.h"
#include "src/parallel/row_exchange.h"

/*
 * wj_keypart_workers
 *		How many workers a key-partitioned join of these relations gets: as
 *		many as PostgreSQL gives the larger input's partial scan (0 when
 *		neither has a partial path).
 */
int
wj_keypart_workers(RelOptInfo *outerrel, RelOptInfo *innerrel)
{
	int			workers = 0;

	if (outerrel->partial_pathlist != NIL)
		workers = ((Path *) linitial(outerrel->partial_pathlist))->parallel_workers;
	if (innerrel->partial_pathlist != NIL)
		workers = Max(workers,
					  ((Path *) linitial(innerrel->partial_pathlist))->parallel_workers);
	return workers;
}

/*
 * wj_keypart_make_partial
 *		Turn a parallel-safe path over the complete inputs outer and inner
 *		into a key-partitioned partial path (its rows shared among the
 *		participants as wj_keypart_units divides them): every participant
 *		scans both inputs in full and computes each row's partition, the
 *		rest of the work (sorts, the join) is split among them, charged at
 *		the busiest participant's share (wj_keypart_skew).  Partitions come
 *		out one after the other, so the path has no order.
 */
void
wj_keypart_make_partial(PlannerInfo *root, Path *path, Path *outer,
						Path *inner, Node *key, int workers)
{
	Path	   *oscan = wj_keypart_scan(outer);
	Path	   *iscan = wj_keypart_scan(inner);
	Cost		scans;
	double		divisor;
	double		skew;

	path->parallel_aware = true;
	path->parallel_workers = workers;
	path->pathkeys = NIL;
	divisor = wj_parallel_divisor(path);
	skew = wj_keypart_skew(root, list_make1(key), oscan->rows, workers);
	scans = oscan->total_cost + iscan->total_cost +
		(oscan->rows + iscan->rows) * (WJ_KEYPART_PART_OPS + 1) *
		cpu_operator_cost;
	path->rows = clamp_row_est(path->rows / divisor);
	if (path->startup_cost > scans)
		path->startup_cost = scans +
			(path->startup_cost - scans) / divisor * skew;
	path->total_cost = scans + Max(path->total_cost - scans, 0) / divisor * skew;
}

/*
 * wj_keypart_skew
 *		How much more than its share the busiest participant of a
 *		key-partitioned path has to do: keys fall into partitions by their
 *		hash, so a partition expected to hold k of the keys holds about
 *		k +- sqrt(k) of them; the split work is charged at one standard
 *		deviation above the share.  Few keys split unevenly (50 keys into
 *		partitions of 2 workers and the leader: 1.22), many evenly (1000:
 *		1.05).
 */
double
wj_keypart_skew(PlannerInfo *root, List *keys, double rows, int workers)
{
	double		ndistinct = estimate_num_groups(root, keys, Max(rows, 1.0),
												NULL, NULL);
	double		per_part = ndistinct * WJ_KEYPART_SHARE /
		wj_keypart_units(workers);

	return 1.0 + 1.0 / sqrt(Max(per_part, 1.0));
}

/*
 * wj_keypart_scan
 *		The scan under a key-partitioned input path (its Sort's input, or
 *		the presorted scan itself), whose plan gets the partition filter;
 *		NULL when the path is of another shape.
 */
Path *
wj_keypart_scan(Path *path)
{
	if (IsA(path, SortPath))
		path = ((SortPath *) path)->subpath;
	if ((path->pathtype == T_SeqScan || path->pathtype == T_IndexScan ||
		 path->pathtype == T_BitmapHeapScan) &&
		path->parent->rtekind == RTE_RELATION)
		return path;
	return NULL;
}

/*
 * wj_keypart_exchange_input
 *		The input of an exchanged key-partitioned join (wj_keypart_exchanged):
 *		the cheapest partial path of rel, sorted into pathkeys order by a
 *		Sort that the plan puts above the exchange (the rows of a partition
 *		come from every participant); NULL when rel has none.
 */
Path *
wj_keypart_exchange_input(PlannerInfo *root, RelOptInfo *rel, List *pathkeys)
{
	Path	   *path;

	if (!rel->consider_parallel)
		return NULL;
	path = wj_cheapest_partial_path(rel, NULL);
	if (path == NULL)
		return NULL;
	if (pathkeys == NIL)
		return path;
	return (Path *) create_sort_path(root, rel, path, pathkeys, -1.0);
}

/*
 * wj_keypart_exchanged
 *		Turn a path over two exchanged inputs (wj_keypart_exchange_input,
 *		costed as one participant's share of each) into a key-partitioned
 *		partial path: each participant reads its share of both inputs,
 *		computes the rows' partitions and writes them into shared files,
 *		then reads back the rows of each partition it joins, about as many
 *		(row_exchange.c).  What follows the exchange is charged at the
 *		busiest participant's share (wj_keypart_skew).  The path has no
 *		order.
 */
void
wj_keypart_exchanged(PlannerInfo *root, Path *path, Path *outer, Path *inner,
					 Node *key, int workers)
{
	Path	   *oinput = IsA(outer, SortPath) ? ((SortPath *) outer)->subpath : outer;
	Path	   *iinput = IsA(inner, SortPath) ? ((SortPath *) inner)->subpath : inner;
	Cost		scans = oinput->total_cost + iinput->total_cost;
	Cost		exchange = 0;
	double		skew = wj_keypart_skew(root, list_make1(key),
									   oinput->rows * wj_parallel_divisor(oinput),
									   workers);
	Path	   *sides[2] = {oinput, iinput};
	int			i;

	for (i = 0; i < 2; i++)
		exchange += sides[i]->rows * WJ_KEYPART_PART_OPS * cpu_operator_cost +
			wj_exchange_cost(sides[i]->rows, sides[i]->pathtarget->width +
							 (int) sizeof(int32));
	path->parallel_aware = true;
	path->parallel_workers = workers;
	path->pathkeys = NIL;
	if (path->startup_cost > scans)
		path->startup_cost = scans + exchange +
			(path->startup_cost - scans) * skew;
	path->total_cost = scans + exchange +
		Max(path->total_cost - scans, 0) * skew;
}

/*
 * wj_keypart_units
 *		The key space of a key-partitioned path with this many workers, in
 *		units of a tenth of a worker's share: WJ_KEYPART_SHARE units per
 *		worker, and the leader's contribution as PostgreSQL's costing counts
 *		it (1 - 0.3 * workers of a worker, when parallel_leader_participation
 *		is on) in units too.  A row's partition is its key's hash modulo the
 *		units, divided by WJ_KEYPART_SHARE: one partition per worker, and a
 *		smaller last one, the leader's (docs/parallel.md).
 *
 * Partitions sized to the participants, rather than one equal partition
 * each: the leader gathers the workers' rows besides, and a leader joining
 * an equal share would finish long after the workers.  The shares then add
 * up to wj_parallel_divisor() (to a tenth), so the path is costed as any
 * partial path.
 */
int
wj_keypart_units(int workers)
{
	int			units = WJ_KEYPART_SHARE * Max(workers, 1);
	double		leader = 1.0 - 0.3 * workers;	/* as get_parallel_divisor() */

	if (parallel_leader_participation && leader > 0)
		units += (int) rint(WJ_KEYPART_SHARE * leader);
	return units;
}

/*
 * wj_keypart_grain
 *		The units per partition of the workers' share (keypart_parts): a
 *		whole share when every partition is a pass over the inputs, finer
 *		when the inputs are exchanged.
 */
int
wj_keypart_grain(bool exchanged)
{
	return exchanged ? WJ_KEYPART_EXCHANGE_GRAIN : WJ_KEYPART_SHARE;
}


/*
 * int4_const, int4_func, int4_or_zero
 *		Pieces of the partition expressions: an int4 constant; "fn(a, c)"
 *		for an int4 function of two arguments, the second a constant;
 *		"COALESCE(a, 0)".
 */
static Expr *
int4_const(int32 value)
{
	return (Expr *) makeConst(INT4OID, -1, InvalidOid, 4,
							  Int32GetDatum(value), false, true);
}

static Expr *
int4_func(Oid fn, Expr *a, int32 c)
{
	return (Expr *) makeFuncExpr(fn, INT4OID, list_make2(a, int4_const(c)),
								 InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
}

static Expr *
int4_or_zero(Expr *a)
{
	CoalesceExpr *ce = makeNode(CoalesceExpr);

	ce->coalescetype = INT4OID;
	ce->coalescecollid = InvalidOid;
	ce->args = list_make2(a, int4_const(0));
	ce->location = -1;
	return (Expr *) ce;
}

/*
 * wj_hash31_expr
 *		"hash(key) & 0x7fffffff": a key's hash as a non-negative int4.  With a
 *		seed (wj_split_seed), "int4(hash_extended(key, seed) & 0x7fffffff)",
 *		the low 31 bits of the type's extended hash function instead.
 */
static Expr *
wj_hash31_expr(Expr *key, Oid hashfn, Oid exthashfn, int64 seed)
{
	Expr	   *h;

	if (seed == 0)
	{
		h = (Expr *) makeFuncExpr(hashfn, INT4OID, list_make1(copyObject(key)),
								  InvalidOid, exprCollation((Node *) key),
								  COERCE_EXPLICIT_CALL);
		return int4_func(F_INT4AND, h, PG_INT32_MAX);
	}
	h = (Expr *) makeFuncExpr(exthashfn, INT8OID,
							  list_make2(copyObject(key),
										 makeConst(INT8OID, -1, InvalidOid, 8,
												   Int64GetDatum(seed), false,
												   FLOAT8PASSBYVAL)),
							  InvalidOid, exprCollation((Node *) key),
							  COERCE_EXPLICIT_CALL);
	h = (Expr *) makeFuncExpr(F_INT8AND, INT8OID,
							  list_make2(h, makeConst(INT8OID, -1, InvalidOid, 8,
													  Int64GetDatum(PG_INT32_MAX),
													  false, FLOAT8PASSBYVAL)),
							  InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
	return (Expr *) makeFuncExpr(F_INT4_INT8, INT4OID, list_make1(h),
								 InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
}

/*
 * wj_partition_of
 *		"COALESCE(hash31 % units, 0) / grain": the key partition of a row
 *		(wj_keypart_units) from its key's non-negative hash (wj_hash31_expr),
 *		NULL keys in partition 0.  With partitions finer than a worker's
 *		share, the leader's units make one partition: "LEAST(..., workers'
 *		partitions)".
 */
static Expr *
wj_partition_of(Expr *hash31, int units, int grain)
{
	Expr	   *part;
	MinMaxExpr *least;

	part = int4_func(F_INT4DIV,
					 int4_or_zero(int4_func(F_INT4MOD, hash31, units)), grain);
	if (grain == WJ_KEYPART_SHARE)
		return part;			/* units / grain is at most the leader's */
	least = makeNode(MinMaxExpr);
	least->minmaxtype = INT4OID;
	least->minmaxcollid = InvalidOid;
	least->inputcollid = InvalidOid;
	least->op = IS_LEAST;
	least->args = list_make2(part,
							 int4_const(wj_keypart_worker_parts(units, grain)));
	least->location = -1;
	return (Expr *) least;
}

/*
 * wj_partition_expr
 *		The key partition of a row (wj_partition_of) by the key type's hash
 *		function.
 */
static Expr *
wj_partition_expr(Expr *key, Oid hashfn, int units, int grain)
{
	return wj_partition_of(wj_hash31_expr(key, hashfn, InvalidOid, 0),
						   units, grain);
}

/*
 * int4_eq
 *		"a = b" on int4.
 */
static Expr *
int4_eq(Expr *a, Expr *b)
{
	OpExpr	   *eq = (OpExpr *) make_opclause(Int4EqualOperator, BOOLOID, false,
											  a, b, InvalidOid, InvalidOid);

	eq->opfuncid = F_INT4EQ;
	return (Expr *) eq;
}

/*
 * wj_partition_filter
 *		"wj_partition_expr = $param": the rows of the key partition in param.
 */
static Expr *
wj_partition_filter(Expr *key, Oid hashfn, int units, Param *param)
{
	return int4_eq(wj_partition_expr(key, hashfn, units,
									 wj_keypart_grain(false)),
				   (Expr *) param);
}

/*
 * wj_scan_add_filter
 *		Add a filter of ours (a key partition's) to the quals of a scan, as
 *		the last one.
 *
 * The scan's quals are in the order order_qual_clauses gave them: by
 * security level, the row-level security policies and security-barrier
 * views' quals first, so that no expression that is not leakproof sees a
 * row its user may not see.  Our filter may hash any expression of the key
 * (a function of the user's, in a split load), and its hash, modulo and
 * division are not leakproof in any case: it goes after every qual of the
 * scan, so that it sees only the rows that passed them all.  This is the
 * one place the extension adds an expression to a scan (the KeyExchange
 * and SessionSort compute their partitions above their inputs' scans, on
 * the rows those return).
 */
static void
wj_scan_add_filter(Plan *scan, Expr *filter)
{
	scan->qual = lappend(scan->qual, filter);
}

/*
 * wj_keypart_add_filter
 *		Give the scan under an input plan (through a projecting Result and a
 *		Sort) the partition filter (wj_scan_add_filter).
 */
static void
wj_keypart_add_filter(Plan *plan, Expr *filter)
{
	Plan	   *scan = wj_split_scan(plan);

	if (scan == NULL)
		elog(ERROR, "unexpected input plan of a key-partitioned join: %d",
			 (int) nodeTag(plan));
	wj_scan_add_filter(scan, filter);
}

/*
 * keypart_param
 *		A new PARAM_EXEC for the partition a key-partitioned join is joining,
 *		declared valid at this query level and every level above (see
 *		wj_keypart_plan).
 */
static Param *
keypart_param(PlannerInfo *root)
{
	Param	   *param = generate_new_exec_param(root, INT4OID, -1, InvalidOid);
	PlannerInfo *proot;

	for (proot = root; proot != NULL; proot = proot->parent_root)
		proot->outer_params = bms_add_member(proot->outer_params,
											 param->paramid);
	return param;
}

/*
 * wj_keypart_plan
 *		Give both input plans' scans the partition filter on a new
 *		PARAM_EXEC, which the node sets to each partition it claims, and
 *		return the parameter's number.
 *
 * The parameter is set by the node for its own children, as a NestLoop sets
 * its nestParams, but SS_finalize_plan only knows about NestLoop's: it is
 * declared valid at this query level and every level above (it shows in the
 * extParam of the nodes above, up to the top), as if it came from outside.
 * Nothing but the node sets it, so no rescan is ever triggered by it from
 * above.  The paths are only offered in the top query level, whose
 * outer_params are final by the time its plan is made.
 */
int
wj_keypart_plan(PlannerInfo *root, int units,
				Plan *outer_plan, Expr *outer_key, Oid outer_hash,
				Plan *inner_plan, Expr *inner_key, Oid inner_hash)
{
	Param	   *param = keypart_param(root);

	wj_keypart_add_filter(outer_plan,
						  wj_partition_filter(outer_key, outer_hash, units, param));
	wj_keypart_add_filter(inner_plan,
						  wj_partition_filter(inner_key, inner_hash, units, param));
	return param->paramid;
}

/*
 * wj_keypart_plan_exchange
 *		The same for a path whose inputs are exchanged (wj_keypart_exchanged):
 *		each input plan's Sort gets a KeyExchange (key_exchange.c) over the
 *		partial plan under it, which computes the rows' partitions; an
 *		unsorted input plan is replaced by a KeyExchange over it.
 */
int
wj_keypart_plan_exchange(PlannerInfo *root, int units,
						 Plan **outer_plan, Expr *outer_key, Oid outer_hash,
						 Plan **inner_plan, Expr *inner_key, Oid inner_hash)
{
	Param	   *param = keypart_param(root);
	int			grain = wj_keypart_grain(true);

	*outer_plan = wj_key_exchange_insert(*outer_plan, outer_key,
										 wj_hash31_expr(outer_key, outer_hash, InvalidOid, 0),
										 param, units, grain);
	*inner_plan = wj_key_exchange_insert(*inner_plan, inner_key,
										 wj_hash31_expr(inner_key, inner_hash, InvalidOid, 0),
										 (Param *) copyObject(param), units, grain);
	return param->paramid;
}

/*
 * wj_keypart_plan_join
 *		PlanCustomPath of a key-partitioned join path with workers workers:
 *		the partition filters on its two inputs (or, exchange, their
 *		KeyExchanges), and the join's sub-record describing them.
 */
void
wj_keypart_plan_join(PlannerInfo *root, int workers, bool exchange,
					 Plan **outer_plan, Expr *outer_key, Oid outer_hash,
					 Plan **inner_plan, Expr *inner_key, Oid inner_hash,
					 WjKeyPartPlan *kp)
{
	kp->units = wj_keypart_units(workers);
	kp->grain = wj_keypart_grain(exchange);
	kp->exchange = exchange;
	if (exchange)
		kp->param = wj_keypart_plan_exchange(root, kp->units,
											 outer_plan, outer_key, outer_hash,
											 inner_plan, inner_key, inner_hash);
	else
		kp->param = wj_keypart_plan(root, kp->units,
									*outer_plan, outer_key, outer_hash,
									*inner_plan, inner_key, inner_hash);
}

/*
 * wj_split_scan
 *		The scan under an input plan (through a projecting Result and a
 *		Sort) that can take a partition filter, or NULL.
 */
Plan *
wj_split_scan(Plan *plan)
{
	if (IsA(plan, Result) && plan->lefttree != NULL &&
		((Result *) plan)->resconstantqual == NULL)
		plan = plan->lefttree;
	if (IsA(plan, Sort))
		plan = plan->lefttree;
	if (!IsA(plan, SeqScan) && !IsA(plan, IndexScan) &&
		!IsA(plan, BitmapHeapScan))
		return NULL;
	return plan;
}

/*
 * wj_split_seed
 *		The seed of the hash that deals a split load's rows to its parts
 *		partitions (wj_split_filter) so that the largest partition holds as
 *		few rows as the key column's statistics can tell: 0 (the type's
 *		plain hash function, as the other key partitionings use) unless one
 *		of the first WJ_SPLIT_SEEDS seeds of its extended hash function
 *		makes the largest partition smaller by at least 1% of all rows.
 *
 * A few keys make most of the rows of a typical versions table (100
 * currencies, a few thousand devices), so a plain hash over few partitions
 * is lumpy: one partition of three held 78,000 of 200,000 versions in
 * W4, and the participant that loads it is the last to start joining.
 * The estimate counts the most common values by their frequencies, NULLs
 * in partition 0 (where the filter puts them) and spreads the rest evenly;
 * without a most-common-values list every seed looks alike.  The values
 * are only used where the user may read the column (vardata.acl_ok, as
 * the selectivity functions require), since the seed shows in EXPLAIN.
 */
#define WJ_SPLIT_SEEDS			64
#define WJ_SPLIT_SEED_WORK		20000	/* hash calls, at most */

static int64
wj_split_seed(PlannerInfo *root, Expr *key, Oid hashfn, Oid exthashfn,
			  int parts)
{
	VariableStatData vardata;
	AttStatsSlot sslot;
	int			units = parts * WJ_KEYPART_SHARE;
	int64		best_seed = 0;
	double		best_max = 0.0;
	double	   *load;
	double		nullfrac;
	int			seeds;
	FmgrInfo	hflinfo;
	FmgrInfo	eflinfo;
	Oid			coll = exprCollation((Node *) key);

	examine_variable(root, (Node *) key, 0, &vardata);
	if (!HeapTupleIsValid(vardata.statsTuple) || !vardata.acl_ok ||
		!get_attstatsslot(&sslot, vardata.statsTuple, STATISTIC_KIND_MCV,
						  InvalidOid,
						  ATTSTATSSLOT_VALUES | ATTSTATSSLOT_NUMBERS))
	{
		ReleaseVariableStats(vardata);
		return 0;
	}
	nullfrac = ((Form_pg_statistic) GETSTRUCT(vardata.statsTuple))->stanullfrac;
	fmgr_info(hashfn, &hflinfo);
	if (OidIsValid(exthashfn))
		fmgr_info(exthashfn, &eflinfo);
	seeds = OidIsValid(exthashfn) ?
		Min(WJ_SPLIT_SEEDS, WJ_SPLIT_SEED_WORK / Max(sslot.nvalues, 1)) : 1;
	load = palloc(sizeof(double) * parts);
	for (int64 seed = 0; seed < Max(seeds, 1); seed++)
	{
		double		max = 0.0;

		memset(load, 0, sizeof(double) * parts);
		load[0] = nullfrac;
		for (int i = 0; i < sslot.nvalues; i++)
		{
			uint32		h;

			if (seed == 0)
				h = DatumGetUInt32(FunctionCall1Coll(&hflinfo, coll,
													 sslot.values[i]));
			else
				h = (uint32) DatumGetUInt64(FunctionCall2Coll(&eflinfo, coll,
															  sslot.values[i],
															  Int64GetDatum(seed)));
			load[wj_keypart_part_of_hash(h, units, WJ_KEYPART_SHARE)] += sslot.numbers[i];
		}
		for (int p = 0; p < parts; p++)
			max = Max(max, load[p]);
		if (seed == 0 || max < best_max - 0.01)
		{
			best_max = max;
			best_seed = seed;
		}
	}
	pfree(load);
	free_attstatsslot(&sslot);
	ReleaseVariableStats(vardata);
	return best_seed;
}

/*
 * wj_split_filter
 *		Give the scan under an input plan (wj_split_scan) the filter
 *		"$p = -1 OR partition(key) = $p" (wj_scan_add_filter) on a new
 *		PARAM_EXEC of root, and return the parameter's number: -1 reads
 *		every row, a partition number that partition's rows
 *		(wj_partition_of, parts partitions, by the hash wj_split_seed
 *		chooses).
 *		The parameter goes into the changed-parameter sets of the plans
 *		down to the scan, as finalize_plan would put it.
 */
int
wj_split_filter(PlannerInfo *root, Plan *input, Expr *key, Oid hashfn,
				Oid exthashfn, int parts)
{
	Param	   *param = keypart_param(root);
	int64		seed = wj_split_seed(root, key, hashfn, exthashfn, parts);
	Expr	   *part = wj_partition_of(wj_hash31_expr(key, hashfn, exthashfn,
													  seed),
									   parts * WJ_KEYPART_SHARE,
									   WJ_KEYPART_SHARE);
	Plan	   *scan = wj_split_scan(input);
	Plan	   *plan;
	Expr	   *eq;
	Expr	   *all;

	if (scan == NULL)
		elog(ERROR, "unexpected input plan of a split load: %d",
			 (int) nodeTag(input));
	eq = int4_eq(part, (Expr *) param);
	all = int4_eq((Expr *) copyObject(param), int4_const(-1));
	for (plan = input;; plan = plan->lefttree)
	{
		plan->extParam = bms_add_member(plan->extParam, param->paramid);
		plan->allParam = bms_add_member(plan->allParam, param->paramid);
		if (plan == scan)
			break;
	}
	wj_scan_add_filter(scan, make_orclause(list_make2(all, eq)));
	return param->paramid;
}
