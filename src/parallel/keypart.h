/*-------------------------------------------------------------------------
 *
 * keypart.h
 *	  Key partitioning: the planner side (keypart_planner.c) and a node's
 *	  partition state in the executor (keypart.c).
 *
 * src/parallel/keypart.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef KEYPART_H
#define KEYPART_H

#include "access/parallel.h"
#include "nodes/execnodes.h"
#include "nodes/pathnodes.h"
#include "port/atomics.h"

#include "src/common/plan_private.h"

/*
 * How a node's plan is key-partitioned: one sub-record of the custom_private
 * of IntervalJoin, WindowJoin, SessionSort, KeyExchange and AsOfJoin's split
 * load, written and read by the same two functions (keypart_private.c).
 */
typedef struct WjKeyPartPlan
{
	int			units;			/* wj_keypart_units (AsOfJoin's split: its
								 * partitions); 0: not key-partitioned */
	int			grain;			/* units per partition */
	int			param;			/* PARAM_EXEC holding the partition, -1: none */
	bool		exchange;		/* rows exchanged by partition (KeyExchange) */
} WjKeyPartPlan;

extern void wj_keypart_plan_none(WjKeyPartPlan *kp);
extern void wj_keypart_plan_put(List **priv, const WjKeyPartPlan *kp);
extern void wj_keypart_plan_get(WjPrivateReader *reader, WjKeyPartPlan *kp);

/*
 * Key partitioning (docs/parallel.md): a partial path whose participants
 * each read both inputs in full but keep only the rows of the key partition
 * they are joining, claimed one after the other from a shared counter.
 * Planner side: the scan under an input path that gets the partition filter
 * (NULL if the path has another shape), the number of partitions, and the
 * filters with their PARAM_EXEC (returned).
 */
extern Path *wj_keypart_scan(Path *path);
extern int	wj_keypart_workers(RelOptInfo *outerrel, RelOptInfo *innerrel);
extern void wj_keypart_make_partial(PlannerInfo *root, Path *path,
									Path *outer, Path *inner, Node *key,
									int workers);
extern double wj_keypart_skew(PlannerInfo *root, List *keys, double rows,
							  int workers);
extern int	wj_keypart_units(int workers);
extern int	wj_keypart_plan(PlannerInfo *root, int units,
							Plan *outer_plan, Expr *outer_key, Oid outer_hash,
							Plan *inner_plan, Expr *inner_key, Oid inner_hash);
/* how a join's PlanCustomPath splits it by key partition */
typedef enum WjKeyPartMode
{
	WJ_KEYPART_NONE,			/* not at all */
	WJ_KEYPART_FILTER,			/* filters on both inputs' scans */
	WJ_KEYPART_EXCHANGE			/* KeyExchanges under both inputs' Sorts */
} WjKeyPartMode;

extern void wj_keypart_plan_join(PlannerInfo *root, int workers, bool exchange,
								 Plan **outer_plan, Expr *outer_key,
								 Oid outer_hash, Plan **inner_plan,
								 Expr *inner_key, Oid inner_hash,
								 WjKeyPartPlan *kp);

/*
 * Or each participant reads a share of both inputs (partial paths) and the
 * rows are exchanged by partition (KeyExchange, key_exchange.c): the inputs,
 * the path, the plan.  WJ_KEYPART_PART_OPS: the operators computing a
 * row's partition (hash, mask, modulo, division), for the costs.
 */
#define WJ_KEYPART_PART_OPS		4
extern int	wj_keypart_grain(bool exchanged);
extern Path *wj_keypart_exchange_input(PlannerInfo *root, RelOptInfo *rel,
									   List *pathkeys);
extern void wj_keypart_exchanged(PlannerInfo *root, Path *path, Path *outer,
								 Path *inner, Node *key, int workers);
extern int	wj_keypart_plan_exchange(PlannerInfo *root, int units,
									 Plan **outer_plan, Expr *outer_key,
									 Oid outer_hash, Plan **inner_plan,
									 Expr *inner_key, Oid inner_hash);

/* Executor side: a node's partition state */
#define WJ_KEYPART_SHARE		10	/* units of one worker's share */
#define WJ_KEYPART_EXCHANGE_GRAIN 2	/* units per partition, exchanged */
#define WJ_KEYPART_SUBPARTS		8	/* an exchanged join's sub-partitions */
#define WJ_KEYPART_LEADER_BIT	0x80000000	/* the leader's partition taken */
#define WJ_KEYPART_LEADER_GONE	0x40000000	/* the leader claims none */

typedef struct WjKeyPart
{
	int			parts;			/* partitions; 0: not key-partitioned */
	int			units;			/* wj_keypart_units */
	int			grain;			/* units per partition of the workers:
								 * finer than a share only when exchanged */
	bool		leader_part;	/* the last partition is the leader's */
	int			param;			/* PARAM_EXEC holding the partition */
	int			bucket;			/* partition being joined, -1: none yet */
	int			subparts;		/* sub-partitions joined one after the
								 * other (exchanged joins), else 1 */
	int			sub;			/* the one being joined */
	bool		whole;			/* the partition was claimed whole (its
								 * sub-partitions joined in turn), not a
								 * sub-partition alone */
	bool		finished;		/* no partition left to claim */
	bool		leader_tried;	/* the leader tried its own partition */
	uint32		local;			/* counter when there is no DSM segment */
	pg_atomic_uint32 *counter;	/* shared counter, or NULL */
	PlanState  *node;			/* the node (wj_leader_takes_share) */
	ParallelContext *pcxt;		/* leader: the Gather's context, or NULL */
} WjKeyPart;

/*
 * Set up from the plan's units and parameter; the shared counter in the
 * leader's DSM segment; forget the partitions claimed (a rescan); a hash
 * value's partition
 */
extern void wj_keypart_setup(WjKeyPart *kp, const WjKeyPartPlan *plan);
extern void wj_keypart_init_dsm(WjKeyPart *kp, void *coordinate,
								PlanState *node, ParallelContext *pcxt);
extern void wj_keypart_restart(WjKeyPart *kp);
extern int	wj_keypart_of_hash(WjKeyPart *kp, uint32 hash);
extern int	wj_keypart_slot_of_hash(int units, int grain, bool isnull,
									uint32 hash31);
extern int	wj_keypart_slots(int units, int grain);
extern int	wj_keypart_worker_parts(int units, int grain);
extern int	wj_keypart_part_of_hash(uint32 hash, int units, int grain);

/* Claim the next partition and point the children at it; false: none left */
extern bool wj_keypart_next(WjKeyPart *kp, EState *estate, PlanState *outer,
							PlanState *inner);

/* Claim the next partition only (a node filtering its input itself) */
extern bool wj_keypart_claim(WjKeyPart *kp);
extern Plan *wj_split_scan(Plan *plan);
extern int	wj_split_filter(PlannerInfo *root, Plan *input, Expr *key,
							Oid hashfn, Oid exthashfn, int parts);

#endif							/* KEYPART_H */
