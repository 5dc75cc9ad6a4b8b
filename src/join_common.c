/*-------------------------------------------------------------------------
 *
 * join_common.c
 *	  Small pieces shared by the join nodes' planners and executors:
 *	  choosing a sorted input path (complete, partial or parallel safe), the
 *	  parallel-safety rule of all windowjoin nodes, and key partitioning.
 *	  Their EXPLAIN helpers are in explain_common.c.
 *
 * src/join_common.c
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

#include "exec_common.h"
#include "join_common.h"
#include "pg_compat.h"
#include "row_exchange.h"

/*
 * wj_sorted_input
 *		The cheapest unparameterized way to read rel sorted by pathkeys: its
 *		cheapest total path if already in that order, else that path under a
 *		Sort or a presorted path (an index scan), whichever is cheaper.
 *		NULL if rel has no unparameterized path.
 */
Path *
wj_sorted_input(PlannerInfo *root, RelOptInfo *rel, List *pathkeys)
{
	Path	   *cheapest = rel->cheapest_total_path;
	Path	   *presorted;
	Path	   *result;

	if (cheapest == NULL || cheapest->param_info != NULL)
		return NULL;
	if (pathkeys_contained_in(pathkeys, cheapest->pathkeys))
		return cheapest;
	result = (Path *) create_sort_path(root, rel, cheapest, pathkeys, -1.0);
	presorted = get_cheapest_path_for_pathkeys(rel->pathlist, pathkeys, NULL,
											   TOTAL_COST, false);
	if (presorted != NULL && wj_path_total_cheaper(presorted, result))
		result = presorted;
	return result;
}

/*
 * wj_custom_join_nullingrels
 *		Make a join CustomScan's scan tuple agree with its output about
 *		which outer joins null each column.
 *
 * Since PostgreSQL 16 a Var says which outer joins may have nulled it
 * (varnullingrels), and setrefs.c matches the Vars of a CustomScan's
 * targetlist, qual and custom_exprs to its custom_scan_tlist requiring
 * equal sets.  The output of an outer join done by one of our nodes has
 * its nullable side's columns nulled by that join, while the scan tuple
 * holds the children's columns, and the join conditions in custom_exprs
 * see them before the join: not equal.  The sets mean nothing once the
 * Vars refer to the scan tuple by position, so the scan tuple's and the
 * node's own expressions (custom_exprs, qual) take, column by column, the
 * sets of the output: those of the join relation's target (the
 * targetlist is often not there yet: a projection above gives the node its
 * own later), then of the targetlist and the qual.  The targetlist itself
 * is left alone: the plan above matches its own Vars to it.
 *
 * Called last in PlanCustomPath, once nothing copies the node's
 * expressions into the plans below any more.  Nothing to do before 16.
 */
#if PG_VERSION_NUM >= 160000
typedef struct WjNulling
{
	List	   *vars;			/* output Vars, the first of each column */
	List	   *phvs;			/* output PlaceHolderVars, first of each */
} WjNulling;

static bool
nulling_collect_walker(Node *node, WjNulling *out)
{
	ListCell   *lc;

	if (node == NULL)
		return false;
	if (IsA(node, Var))
	{
		Var		   *var = (Var *) node;

		if (var->varlevelsup != 0)
			return false;
		foreach(lc, out->vars)
		{
			Var		   *seen = (Var *) lfirst(lc);

			if (seen->varno == var->varno && seen->varattno == var->varattno)
				return false;
		}
		out->vars = lappend(out->vars, var);
		return false;
	}
	if (IsA(node, PlaceHolderVar))
	{
		PlaceHolderVar *phv = (PlaceHolderVar *) node;
		bool		seen = false;

		foreach(lc, out->phvs)
			seen |= ((PlaceHolderVar *) lfirst(lc))->phid == phv->phid;
		if (phv->phlevelsup == 0 && !seen)
			out->phvs = lappend(out->phvs, phv);
		/* its expression is evaluated below the joins that null the PHV */
		return false;
	}
	return expression_tree_walker(node, nulling_collect_walker, out);
}

static Node *
nulling_apply_mutator(Node *node, WjNulling *out)
{
	ListCell   *lc;

	if (node == NULL)
		return NULL;
	if (IsA(node, Var))
	{
		Var		   *var = copyObject((Var *) node);

		if (var->varlevelsup != 0)
			return (Node *) var;
		foreach(lc, out->vars)
		{
			Var		   *o = (Var *) lfirst(lc);

			if (o->varno == var->varno && o->varattno == var->varattno)
			{
				var->varnullingrels = bms_copy(o->varnullingrels);
				break;
			}
		}
		return (Node *) var;
	}
	if (IsA(node, PlaceHolderVar))
	{
		/* matched as a whole (by phid); its expression is left alone */
		PlaceHolderVar *phv = copyObject((PlaceHolderVar *) node);

		if (phv->phlevelsup != 0)
			return (Node *) phv;
		foreach(lc, out->phvs)
		{
			PlaceHolderVar *o = (PlaceHolderVar *) lfirst(lc);

			if (o->phid == phv->phid)
			{
				phv->phnullingrels = bms_copy(o->phnullingrels);
				break;
			}
		}
		return (Node *) phv;
	}
	return expression_tree_mutator(node, nulling_apply_mutator, out);
}

void
wj_custom_join_nullingrels(CustomScan *cscan, RelOptInfo *rel)
{
	WjNulling	out = {NIL, NIL};

	(void) nulling_collect_walker((Node *) rel->reltarget->exprs, &out);
	(void) nulling_collect_walker((Node *) cscan->scan.plan.targetlist, &out);
	(void) nulling_collect_walker((Node *) cscan->scan.plan.qual, &out);
	cscan->custom_scan_tlist = (List *)
		nulling_apply_mutator((Node *) cscan->custom_scan_tlist, &out);
	cscan->custom_exprs = (List *)
		nulling_apply_mutator((Node *) cscan->custom_exprs, &out);
	cscan->scan.plan.qual = (List *)
		nulling_apply_mutator((Node *) cscan->scan.plan.qual, &out);
}
#endif

/*
 * wj_path_parallel_safe
 *		The parallel-safety rule of every windowjoin node (join_common.h):
 *		rel->consider_parallel, every child path parallel safe, and every
 *		expression the node evaluates besides rel's own target and clauses
 *		parallel safe.
 */
bool
wj_path_parallel_safe(PlannerInfo *root, RelOptInfo *rel, List *child_paths,
					  List *exprs)
{
	ListCell   *lc;

	if (!rel->consider_parallel)
		return false;
	foreach(lc, child_paths)
	{
		if (!((Path *) lfirst(lc))->parallel_safe)
			return false;
	}
	return exprs == NIL || is_parallel_safe(root, (Node *) exprs);
}

/*
 * wj_parallel_divisor
 *		The share of a partial path's total rows that one participant
 *		processes, as the planner's own costing assumes: one per worker,
 *		plus what the leader contributes when it participates (it spends
 *		part of its time gathering, the less the more workers there are).
 */
double
wj_parallel_divisor(Path *path)
{
	double		divisor = path->parallel_workers;

	if (parallel_leader_participation)
	{
		double		leader = 1.0 - (0.3 * path->parallel_workers);

		if (leader > 0)
			divisor += leader;
	}
	return Max(divisor, 1.0);
}

/*
 * wj_add_partial_paths_gathered
 *		Add partial paths of an upper relation (which PostgreSQL does not
 *		gather by itself), then a Gather Merge in their order and a Gather of
 *		each one add_partial_path kept.  All are added before any is gathered:
 *		add_partial_path frees the partial paths a new one dominates, which
 *		a Gather made before would still point to.
 */
void
wj_add_partial_paths_gathered(PlannerInfo *root, RelOptInfo *rel,
							  List *partials)
{
	ListCell   *lc;

	foreach(lc, partials)
		add_partial_path(rel, (Path *) lfirst(lc));
	foreach(lc, rel->partial_pathlist)
	{
		Path	   *partial = (Path *) lfirst(lc);
		double		total_rows;

		if (!list_member_ptr(partials, partial))
			continue;
		total_rows = partial->rows * wj_parallel_divisor(partial);
		if (partial->pathkeys != NIL)
			add_path(rel, (Path *)
					 create_gather_merge_path(root, rel, partial,
											  partial->pathtarget,
											  partial->pathkeys, NULL,
											  &total_rows));
		add_path(rel, (Path *)
				 create_gather_path(root, rel, partial, partial->pathtarget,
									NULL, &total_rows));
	}
}

/*
 * cheapest_sorted
 *		The cheapest unparameterized path of paths (parallel safe ones only
 *		if asked), sorted into pathkeys order unless already in it, or a
 *		presorted one, whichever is cheaper; NULL if none qualifies.
 */
static Path *
cheapest_sorted(PlannerInfo *root, RelOptInfo *rel, List *paths,
				List *pathkeys, bool need_parallel_safe)
{
	Path	   *result = NULL;
	ListCell   *lc;

	foreach(lc, paths)
	{
		Path	   *path = (Path *) lfirst(lc);
		Path	   *sorted = path;

		if (path->param_info != NULL ||
			(need_parallel_safe && !path->parallel_safe))
			continue;
		if (!pathkeys_contained_in(pathkeys, path->pathkeys))
			sorted = (Path *) create_sort_path(root, rel, path, pathkeys, -1.0);
		if (result == NULL || wj_path_total_cheaper(sorted, result))
			result = sorted;
	}
	return result;
}

/*
 * wj_partial_outer_input
 *		The cheapest partial path of rel delivering each participant's share
 *		of the rows in pathkeys order: the cheapest partial path, sorted in
 *		each worker unless already in order, or a presorted partial path
 *		(a Parallel Index Scan), whichever is cheaper.  NULL when rel has no
 *		partial path.
 */
Path *
wj_partial_outer_input(PlannerInfo *root, RelOptInfo *rel, List *pathkeys)
{
	if (!rel->consider_parallel)
		return NULL;
	return cheapest_sorted(root, rel, rel->partial_pathlist, pathkeys, false);
}

/*
 * wj_parallel_safe_input
 *		The cheapest parallel-safe unparameterized path of rel in pathkeys
 *		order (sorted unless already in order), to run complete in every
 *		participant of a parallel plan, as the inner side of PostgreSQL's
 *		non-shared parallel hash join does.  NULL if there is none.
 */
Path *
wj_parallel_safe_input(PlannerInfo *root, RelOptInfo *rel, List *pathkeys)
{
	if (!rel->consider_parallel)
		return NULL;
	return cheapest_sorted(root, rel, rel->pathlist, pathkeys, true);
}

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
 * wj_cheapest_partial_path
 *		The cheapest unparameterized parallel-safe partial path of rel (the
 *		list is in cost order), computing target when target is not NULL;
 *		NULL when there is none.
 */
Path *
wj_cheapest_partial_path(RelOptInfo *rel, PathTarget *target)
{
	ListCell   *lc;

	foreach(lc, rel->partial_pathlist)
	{
		Path	   *path = (Path *) lfirst(lc);

		if (path->param_info == NULL && path->parallel_safe &&
			(target == NULL || equal(path->pathtarget->exprs, target->exprs)))
			return path;
	}
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
	Path	   *oinput = ((SortPath *) outer)->subpath;
	Path	   *iinput = ((SortPath *) inner)->subpath;
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
 * keypart_worker_parts
 *		The partitions of the workers' part of wj_keypart_units' key space,
 *		grain units each: WJ_KEYPART_SHARE / grain per worker.
 */
static int
keypart_worker_parts(int units, int grain)
{
	return (units - units % WJ_KEYPART_SHARE) / grain;
}

/*
 * keypart_parts
 *		All partitions of the key space: the workers' and, when the leader
 *		has a share (the units beyond the workers'), its smaller one last.
 *
 * A partition per worker (grain WJ_KEYPART_SHARE) when every partition
 * costs a pass over the inputs (their scans filter on it); finer ones,
 * claimed in turn, when the inputs are exchanged and a partition is only
 * the reading of its files: with few keys, whole-share partitions come out
 * unequal (50 keys: a worker with a third more than the other), and the
 * worker done first then takes the next partition instead of waiting.
 */
static int
keypart_parts(int units, int grain)
{
	return keypart_worker_parts(units, grain) +
		(units % WJ_KEYPART_SHARE != 0 ? 1 : 0);
}

/*
 * wj_keypart_setup
 *		Executor side: set up a node's partition state from its plan (the
 *		units of wj_keypart_units, the units per partition, and the
 *		partition parameter).
 */
void
wj_keypart_setup(WjKeyPart *kp, int units, int grain, int param)
{
	kp->units = units;
	kp->grain = grain;
	kp->parts = keypart_parts(units, grain);
	kp->leader_part = (units % WJ_KEYPART_SHARE) != 0;
	kp->param = param;
	kp->bucket = -1;
	/* an exchanged join (a parameter for its children): sub-partitions */
	kp->subparts = (grain != WJ_KEYPART_SHARE && param >= 0) ?
		WJ_KEYPART_SUBPARTS : 1;
	kp->sub = 0;
}

/*
 * wj_keypart_init_dsm
 *		InitializeDSMCustomScan (leader): the shared claim counter at
 *		coordinate, zeroed, and what wj_leader_takes_share needs: the node
 *		and the Gather's parallel context.
 */
void
wj_keypart_init_dsm(WjKeyPart *kp, void *coordinate, PlanState *node,
					ParallelContext *pcxt)
{
	kp->counter = (pg_atomic_uint32 *) coordinate;
	pg_atomic_init_u32(kp->counter, 0);
	kp->node = node;
	kp->pcxt = pcxt;
}

/*
 * wj_keypart_restart
 *		ReScanCustomScan: no partition claimed yet (the shared counter is
 *		reset by ReInitializeDSMCustomScan, when the Gather is rescanned).
 */
void
wj_keypart_restart(WjKeyPart *kp)
{
	kp->bucket = -1;
	kp->sub = 0;
	kp->finished = false;
	kp->leader_tried = false;
	kp->local = 0;
}

/*
 * part_of_hash
 *		"((hash & 0x7fffffff) % units) / grain", as wj_partition_of computes
 *		it in SQL, before the leader's units are made one partition.
 */
static inline int
part_of_hash(uint32 hash, int units, int grain)
{
	return (int) ((hash & PG_INT32_MAX) % (uint32) units) / grain;
}

/*
 * keypart_of_hash
 *		part_of_hash with the leader's units made one partition, as
 *		wj_partition_of's LEAST does.
 */
static inline int
keypart_of_hash(uint32 hash, int units, int grain)
{
	return Min(part_of_hash(hash, units, grain),
			   keypart_worker_parts(units, grain));
}

/*
 * wj_keypart_of_hash
 *		The partition of a key's hash value (SessionSort and SessionWindow,
 *		which partition their input themselves; the scans' filter of
 *		wj_partition_filter computes the same).
 */
int
wj_keypart_of_hash(WjKeyPart *kp, uint32 hash)
{
	return keypart_of_hash(hash, kp->units, kp->grain);
}

/*
 * wj_keypart_slot_of_hash
 *		An exchanged join's row's sub-partition of its key partition, as
 *		one number (KeyExchange's file): "partition * WJ_KEYPART_SUBPARTS +
 *		hash / units % WJ_KEYPART_SUBPARTS", from the key's non-negative
 *		hash (wj_hash31_expr); NULL keys in sub-partition 0 of partition 0.
 *		The partitions are those of wj_partition_expr, so the participants
 *		share the work as without sub-partitions; the other bits of the
 *		same hash deal a partition's keys to its sub-partitions.
 *
 * A participant joins a partition's sub-partitions one after the other
 * (wj_keypart_next), its Sorts rescanned for each: a Sort returns its rows
 * in time order from wherever they lie in its memory, and a sort that does
 * not fit in the CPU's caches costs a cache and TLB miss for nearly every
 * row it returns (W6's TUMBLE join with 2 workers, 11 partitions of about 9
 * MB a side: 1,035 ms; in eighths, 1.1 MB a side: see docs/parallel.md).
 */
int
wj_keypart_slot_of_hash(int units, int grain, bool isnull, uint32 hash31)
{
	if (isnull)
		return 0;
	return keypart_of_hash(hash31, units, grain) * WJ_KEYPART_SUBPARTS +
		(int) (hash31 / (uint32) units) % WJ_KEYPART_SUBPARTS;
}

/*
 * wj_keypart_slots
 *		The files of an exchanged join's KeyExchange: every partition's
 *		sub-partitions.
 */
int
wj_keypart_slots(int units, int grain)
{
	return keypart_parts(units, grain) * WJ_KEYPART_SUBPARTS;
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
							 int4_const(keypart_worker_parts(units, grain)));
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
 * wj_keypart_add_filter
 *		Put the partition filter first in the quals of the scan under an
 *		input plan (through a projecting Result and a Sort).
 */
static void
wj_keypart_add_filter(Plan *plan, Expr *filter)
{
	Plan	   *scan = wj_split_scan(plan);

	if (scan == NULL)
		elog(ERROR, "unexpected input plan of a key-partitioned join: %d",
			 (int) nodeTag(plan));
	scan->qual = lcons(filter, scan->qual);
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
 *		partial plan under it, which computes the rows' partitions.
 */
int
wj_keypart_plan_exchange(PlannerInfo *root, int units,
						 Plan *outer_plan, Expr *outer_key, Oid outer_hash,
						 Plan *inner_plan, Expr *inner_key, Oid inner_hash)
{
	Param	   *param = keypart_param(root);
	int			grain = wj_keypart_grain(true);

	wj_key_exchange_insert(outer_plan, outer_key,
						   wj_hash31_expr(outer_key, outer_hash, InvalidOid, 0),
						   param, units, grain);
	wj_key_exchange_insert(inner_plan, inner_key,
						   wj_hash31_expr(inner_key, inner_hash, InvalidOid, 0),
						   (Param *) copyObject(param), units, grain);
	return param->paramid;
}

/*
 * wj_keypart_next
 *		Move on to the claimed partition's next sub-partition (an exchanged
 *		join's, wj_keypart_slot_of_hash) or else claim the next unclaimed
 *		partition (from the shared counter, or a local one when the node
 *		runs without a DSM segment, e.g. when the Gather could not launch
 *		workers), and point the children's partition filter or exchange at
 *		it: they rescan (and re-sort) on their next fetch.  The caller
 *		restarts its own state.  False when every partition has been
 *		claimed.
 */
bool
wj_keypart_next(WjKeyPart *kp, EState *estate, PlanState *outer,
				PlanState *inner)
{
	ParamExecData *prm;

	/* the claimed partition's next sub-partition, if any is left */
	if (kp->bucket >= 0 && kp->bucket < kp->parts &&
		kp->sub + 1 < kp->subparts)
		kp->sub++;
	else
	{
		if (!wj_keypart_claim(kp))
			return false;
		kp->sub = 0;
	}
	prm = &estate->es_param_exec_vals[kp->param];
	prm->execPlan = NULL;
	prm->value = Int32GetDatum((int32) (kp->bucket * kp->subparts + kp->sub));
	prm->isnull = false;
	outer->chgParam = bms_add_member(outer->chgParam, kp->param);
	inner->chgParam = bms_add_member(inner->chgParam, kp->param);
	return true;
}

/*
 * claim_leader_part
 *		Take the leader's partition if no one has (WJ_KEYPART_LEADER_BIT of
 *		the shared counter); true if this process got it.
 */
static bool
claim_leader_part(WjKeyPart *kp)
{
	if (!kp->leader_part ||
		(pg_atomic_fetch_or_u32(kp->counter, WJ_KEYPART_LEADER_BIT) &
		 WJ_KEYPART_LEADER_BIT))
		return false;
	kp->bucket = kp->parts - 1;
	return true;
}

/*
 * wj_keypart_claim
 *		Claim the next partition into kp->bucket (from the shared counter,
 *		or a local one without a DSM segment); false, and kp->finished set,
 *		when none is left for this process.  For a node that filters its
 *		input rows itself (SessionSort, SessionWindow) rather than through a
 *		parameter of its children's scans.
 *
 * The workers claim the workers' partitions in turn from the counter's low
 * bits; the leader first claims the leader's partition (the smaller last
 * one, when wj_keypart_units made one; bit WJ_KEYPART_LEADER_BIT of the
 * counter says it is taken), and a worker's partition only when
 * wj_leader_takes_share says so: fewer workers launched than planned
 * (units / WJ_KEYPART_SHARE), or below a Parallel Append.  A worker left
 * without a partition of its kind takes the leader's partition if no one
 * has.  So every partition is joined exactly once, however many processes
 * run.
 *
 * With exchanged inputs the leader may instead leave every partition to the
 * workers, as wj_leader_steps_back decides for the nodes that split a
 * partial outer input (windowjoin.leader_participation: by default when
 * there is a worker for every CPU): the exchange costs no partition a pass
 * over the inputs, so the workers lose nothing by taking the leader's, and
 * a third process on two CPUs only slows the other two (docs/parallel.md).
 * It says so in bit WJ_KEYPART_LEADER_GONE of the counter, and a worker
 * then claims the leader's partition, larger than a worker's, first.
 */
bool
wj_keypart_claim(WjKeyPart *kp)
{
	int			nworker_parts = keypart_worker_parts(kp->units, kp->grain);
	uint32		b;

	if (kp->counter == NULL)
	{
		/*
		 * Alone: every partition in turn, each a pass over the inputs; or,
		 * when the inputs are exchanged (partitions finer than a share),
		 * all of them at once as the pseudo-partition "parts", for which
		 * the KeyExchanges return every row: one pass in all.
		 */
		if (kp->grain != WJ_KEYPART_SHARE)
		{
			if (kp->local > 0)
				goto none;
			kp->local = 1;
			kp->bucket = kp->parts;
			return true;
		}
		if (kp->local >= (uint32) kp->parts)
			goto none;
		kp->bucket = (int) kp->local++;
		return true;
	}
	if (!IsParallelWorker() && !kp->leader_tried)
	{
		kp->leader_tried = true;
		if (kp->grain != WJ_KEYPART_SHARE &&
			wj_leader_steps_back(kp->node, kp->pcxt))
		{
			pg_atomic_fetch_or_u32(kp->counter, WJ_KEYPART_LEADER_GONE);
			goto none;
		}
		if (claim_leader_part(kp))
			return true;
	}
	if (IsParallelWorker() ||
		wj_leader_takes_share(kp->node, kp->pcxt,
							  kp->units / WJ_KEYPART_SHARE))
	{
		/* the leader's partition first, the largest, if the leader left it */
		if (IsParallelWorker() &&
			(pg_atomic_read_u32(kp->counter) & WJ_KEYPART_LEADER_GONE) &&
			claim_leader_part(kp))
			return true;
		b = pg_atomic_fetch_add_u32(kp->counter, 1) &
			~(WJ_KEYPART_LEADER_BIT | WJ_KEYPART_LEADER_GONE);
		if (b < (uint32) nworker_parts)
		{
			kp->bucket = (int) b;
			return true;
		}
		if (claim_leader_part(kp))
			return true;
	}
none:
	kp->finished = true;
	return false;
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
			load[part_of_hash(h, units, WJ_KEYPART_SHARE)] += sslot.numbers[i];
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
 *		"$p = -1 OR partition(key) = $p" on a new PARAM_EXEC of root, and
 *		return the parameter's number: -1 reads every row, a partition
 *		number that partition's rows (wj_partition_of, parts partitions, by
 *		the hash wj_split_seed chooses).
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
	scan->qual = lcons(make_orclause(list_make2(all, eq)), scan->qual);
	return param->paramid;
}
