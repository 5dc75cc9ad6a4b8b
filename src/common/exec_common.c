/*-------------------------------------------------------------------------
 *
 * exec_common.c
 *	  Executor pieces shared by the windowjoin custom scan nodes.
 *
 * Every node keeps its children in custom_ps.  ExecReScan() passes changed
 * parameters on to a node's lefttree and righttree only, so a custom scan
 * must tell its custom_ps children itself, as Append does for its
 * subplans: a child whose parameters changed rescans itself at its next
 * call, any other one is rescanned now.
 *
 * Under a Gather, the leader of a key-partitioned node claims partitions
 * only in the cases wj_leader_takes_share lists, and the leader of a node
 * that splits a partial outer input may leave its share to the workers
 * (wj_leader_steps_back), unless a Parallel Append or another parallel-aware
 * custom scan lies between it and its Gather; finding whether one lies between
 * the node and its Gather takes a walk of the plan tree from the top, as
 * the node has no link to its parents.
 *
 * src/common/exec_common.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <limits.h>
#include <unistd.h>

#include "access/parallel.h"
#include "executor/executor.h"
#include "miscadmin.h"

#include "src/common/exec_common.h"
#include "src/common/gucs.h"

/*
 * wj_rescan_child
 *		Rescan child, one of node's custom_ps, from ReScanCustomScan.
 */
void
wj_rescan_child(CustomScanState *node, PlanState *child)
{
	if (node->ss.ps.chgParam != NULL)
		UpdateChangedParamSet(child, node->ss.ps.chgParam);
	if (child->chgParam == NULL)
		ExecReScan(child);
}

/*
 * wj_plan_children
 *		The children of plan besides its lefttree and righttree: those of
 *		Append, MergeAppend, BitmapAnd/Or, SubqueryScan and CustomScan.
 */
List *
wj_plan_children(Plan *plan)
{
	switch (nodeTag(plan))
	{
		case T_Append:
			return ((Append *) plan)->appendplans;
		case T_MergeAppend:
			return ((MergeAppend *) plan)->mergeplans;
		case T_BitmapAnd:
			return ((BitmapAnd *) plan)->bitmapplans;
		case T_BitmapOr:
			return ((BitmapOr *) plan)->bitmapplans;
		case T_SubqueryScan:
			return list_make1(((SubqueryScan *) plan)->subplan);
		case T_CustomScan:
			return ((CustomScan *) plan)->custom_plans;
		default:
			return NIL;
	}
}

/*
 * find_in_plan
 *		Search the plan tree under plan for target; when found, set
 *		*result to whether a parallel-aware Append, Hash Join or Hash, or a
 *		parallel-aware custom scan, lies between target and the nearest
 *		Gather or Gather Merge above it (shared: whether one lies between
 *		plan and that Gather), and return true.
 */
static bool
find_in_plan(Plan *plan, Plan *target, bool shared, bool *result)
{
	List	   *children;
	ListCell   *lc;

	if (plan == NULL)
		return false;
	check_stack_depth();
	if (plan == target)
	{
		*result = shared;
		return true;
	}
	if (IsA(plan, Gather) || IsA(plan, GatherMerge))
		shared = false;
	else if ((IsA(plan, Append) || IsA(plan, CustomScan) ||
			  IsA(plan, HashJoin) || IsA(plan, Hash)) && plan->parallel_aware)
		shared = true;
	children = wj_plan_children(plan);
	if (find_in_plan(plan->lefttree, target, shared, result) ||
		find_in_plan(plan->righttree, target, shared, result))
		return true;
	foreach(lc, children)
	{
		if (find_in_plan((Plan *) lfirst(lc), target, shared, result))
			return true;
	}
	return false;
}

/*
 * leader_must_share
 *		Whether the leader must run its share of node: when a Parallel
 *		Append lies between node and the Gather (or Gather Merge) above it
 *		(see wj_leader_takes_share); a Parallel Hash Join, on either side
 *		of it -- a participant that reaches the join once the others have
 *		built its table skips the inner side's plan, and one that arrives
 *		once they have probed it returns at once, so a leader that left its
 *		share would lose its rows (a TumbleAgg on both sides of a Parallel
 *		Hash Anti Join: the leader alone built and probed, returning none of
 *		the rows); or a parallel-aware custom scan -- a node that exchanges
 *		rows (row_exchange.c) takes, in each
 *		participant, what its child returns there as that participant's
 *		share to write, and a participant that finds the write phase over
 *		writes nothing: a leader whose child returned no rows at once could
 *		finish it alone, before any worker attached, and the workers' rows
 *		would be lost.  True if the node is not found.
 */
static bool
leader_must_share(PlanState *node)
{
	PlannedStmt *stmt = node->state->es_plannedstmt;
	bool		shared = true;
	ListCell   *lc;

	if (!find_in_plan(stmt->planTree, node->plan, false, &shared))
	{
		foreach(lc, stmt->subplans)
		{
			if (find_in_plan((Plan *) lfirst(lc), node->plan, false,
							 &shared))
				break;
		}
	}
	return shared;
}

/*
 * wj_leader_takes_share
 *		Whether this process takes a share of the work planned for that
 *		many workers (the worker partitions of a key-partitioned node,
 *		wj_keypart_claim in keypart.c).  Workers always do.  The leader
 *		(pcxt: the parallel context of the Gather above, from the node's
 *		InitializeDSMCustomScan; NULL when the node runs alone) does when
 *		fewer workers launched than that -- none, or fewer than planned --
 *		so that no share is left undone; and
 *		always below a Parallel Append, which takes a participant's empty
 *		result for a sign that the subplan's work is all handed out and lets
 *		no one else start it, or below a parallel-aware custom scan
 *		(leader_must_share).  Gather and Gather Merge launch their workers
 *		before they first run the leader's copy of the plan, so the count is
 *		final when this is asked, at the start of a scan.
 */
bool
wj_leader_takes_share(PlanState *node, ParallelContext *pcxt,
					  int participants)
{
	if (IsParallelWorker() || pcxt == NULL ||
		pcxt->nworkers_launched < participants)
		return true;
	return leader_must_share(node);
}

/*
 * wj_online_cpus
 *		The CPUs the server's machine has online, INT_MAX if unknown.
 */
static int
wj_online_cpus(void)
{
	static int	ncpus = 0;

	if (ncpus == 0)
	{
		long		n = sysconf(_SC_NPROCESSORS_ONLN);

		ncpus = (n > 0 && n < INT_MAX) ? (int) n : INT_MAX;
	}
	return ncpus;
}

/*
 * wj_leader_steps_back
 *		Whether the leader of the Gather above a node that splits a partial
 *		outer input among the participants, or key partitions of exchanged
 *		rows (wj_keypart_claim) (pcxt: the Gather's parallel context, from
 *		the node's InitializeDSMCustomScan; NULL when the node runs alone)
 *		leaves its share to the workers, returning no rows, after
 *		windowjoin.leader_participation:
 *
 *		on		never, as PostgreSQL's own nodes;
 *		off		whenever a worker started;
 *		auto	when as many workers started as the machine has CPUs.  Each
 *				participant of such a node repeats some work in full (reading
 *				the inner side, building its table), and a third process on
 *				two CPUs only slows the other two down: measured, two workers
 *				alone on two CPUs are faster than with the leader
 *				(docs/parallel.md).
 *
 *		Never below a Parallel Append or a parallel-aware custom scan
 *		(leader_must_share).  This is
 *		asked at the start of a scan, when the count of workers is final.
 */
bool
wj_leader_steps_back(PlanState *node, ParallelContext *pcxt)
{
	if (IsParallelWorker() || pcxt == NULL || pcxt->nworkers_launched == 0 ||
		wj_leader_participation == WJ_LEADER_ON)
		return false;
	if (wj_leader_participation == WJ_LEADER_AUTO &&
		pcxt->nworkers_launched < wj_online_cpus())
		return false;
	return !leader_must_share(node);
}
