/*-------------------------------------------------------------------------
 *
 * keypart.c
 *	  Key partitioning, executor side (docs/parallel.md): the key space
 *	  (units, partitions, a hash value's partition and sub-partition, which
 *	  the planner's expressions in keypart_planner.c compute alike) and a
 *	  node's partition state: partitions claimed one after the other from a
 *	  counter shared by the participants, the children's parameter pointed
 *	  at each.
 *
 * src/parallel/keypart.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/parallel.h"
#include "miscadmin.h"
#include "nodes/execnodes.h"

#include "src/common/exec_common.h"
#include "src/parallel/keypart.h"

/*
 * wj_keypart_worker_parts
 *		The partitions of the workers' part of wj_keypart_units' key space,
 *		grain units each: WJ_KEYPART_SHARE / grain per worker.
 */
int
wj_keypart_worker_parts(int units, int grain)
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
	return wj_keypart_worker_parts(units, grain) +
		(units % WJ_KEYPART_SHARE != 0 ? 1 : 0);
}

/*
 * wj_keypart_setup
 *		Executor side: set up a node's partition state from its plan's
 *		sub-record, if the plan is key-partitioned (else kp->parts stays 0).
 */
void
wj_keypart_setup(WjKeyPart *kp, const WjKeyPartPlan *plan)
{
	if (plan->units <= 0)
		return;
	kp->units = plan->units;
	kp->grain = plan->grain;
	kp->parts = keypart_parts(plan->units, plan->grain);
	kp->leader_part = (plan->units % WJ_KEYPART_SHARE) != 0;
	kp->param = plan->param;
	kp->bucket = -1;
	/* an exchanged join (a parameter for its children): sub-partitions */
	kp->subparts = (plan->grain != WJ_KEYPART_SHARE && plan->param >= 0) ?
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
	kp->whole = false;
	kp->finished = false;
	kp->leader_tried = false;
	kp->local = 0;
}

/*
 * wj_keypart_part_of_hash
 *		"((hash & 0x7fffffff) % units) / grain", as wj_partition_of computes
 *		it in SQL, before the leader's units are made one partition.
 */
int
wj_keypart_part_of_hash(uint32 hash, int units, int grain)
{
	return (int) ((hash & PG_INT32_MAX) % (uint32) units) / grain;
}

/*
 * keypart_of_hash
 *		wj_keypart_part_of_hash with the leader's units made one partition, as
 *		wj_partition_of's LEAST does.
 */
static inline int
keypart_of_hash(uint32 hash, int units, int grain)
{
	return Min(wj_keypart_part_of_hash(hash, units, grain),
			   wj_keypart_worker_parts(units, grain));
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
 * wj_keypart_next
 *		Move on to the next sub-partition (an exchanged join's,
 *		wj_keypart_slot_of_hash) of a partition claimed whole, or else claim
 *		the next unclaimed partition or sub-partition (wj_keypart_claim:
 *		from the shared counter, or a local one when the node
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

	/* the next sub-partition of a partition claimed whole, if any is left */
	if (kp->whole && kp->bucket >= 0 && kp->bucket < kp->parts &&
		kp->sub + 1 < kp->subparts)
		kp->sub++;
	else if (!wj_keypart_claim(kp))
		return false;
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
	kp->sub = 0;
	kp->whole = true;
	return true;
}

/*
 * wj_keypart_claim
 *		Claim the next partition into kp->bucket, or of an exchanged join
 *		the next sub-partition into kp->bucket and kp->sub (from the shared counter,
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
 *
 * The workers' partitions of an exchanged join are claimed a sub-partition
 * at a time (the counter counts sub-partitions): the processes then finish
 * within a sub-partition of each other, where whole partitions (11 for 2
 * workers) left one worker a partition more than the other (W6's TUMBLE
 * join: 1.15M rows against 0.82M).  The leader's partition is claimed
 * whole, as before, and its sub-partitions joined one after the other
 * (wj_keypart_next).
 */
bool
wj_keypart_claim(WjKeyPart *kp)
{
	int			nworker_parts = wj_keypart_worker_parts(kp->units, kp->grain);
	uint32		b;

	if (kp->counter == NULL)
	{
		/*
		 * Alone: every partition in turn, each a pass over the inputs; or,
		 * when the inputs are exchanged (partitions finer than a share),
		 * all of them at once as the pseudo-partition "parts", for which
		 * the KeyExchanges return every row: one pass in all.
		 */
		kp->sub = 0;
		kp->whole = true;
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
		if (b < (uint32) (nworker_parts * kp->subparts))
		{
			kp->bucket = (int) b / kp->subparts;
			kp->sub = (int) b % kp->subparts;
			kp->whole = false;
			return true;
		}
		if (claim_leader_part(kp))
			return true;
	}
none:
	kp->finished = true;
	return false;
}
