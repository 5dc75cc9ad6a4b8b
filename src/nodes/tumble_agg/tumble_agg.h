/*-------------------------------------------------------------------------
 *
 * tumble_agg.h
 *	  TumbleAgg: tumbling-window aggregation at scan speed.  Its planner
 *	  (tumble_agg_planner.c), plan codec (tumble_agg_private.c), aggregate
 *	  states (tumble_agg_state.c) and executor (tumble_agg_exec.c).
 *
 * The node replaces "HashAggregate over GROUP BY window_start, window_end,
 * keys" for tumble(), date_bin() and date_trunc() on timestamp: each
 * row's window is integer arithmetic on its time, and the aggregates
 * accumulate into fixed-size states per (window, keys) group.
 *
 * src/nodes/tumble_agg/tumble_agg.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TUMBLE_AGG_H
#define TUMBLE_AGG_H

#include "fmgr.h"
#include "nodes/extensible.h"
#include "nodes/pathnodes.h"

/* How a row's time becomes its window */
typedef enum TaBucketKind
{
	TA_BUCKET_TUMBLE,			/* tumble(): an infinite time is an error */
	TA_BUCKET_DATE_BIN,			/* date_bin(): infinite stays; its overflow errors */
	TA_BUCKET_DATE_TRUNC		/* date_trunc(): infinite stays */
} TaBucketKind;

/* The aggregates the node computes itself */
typedef enum TaAggKind
{
	TA_COUNT_STAR,				/* count(*) */
	TA_COUNT,					/* count(x) */
	TA_SUM_INT,					/* sum(int2 | int4) -> int8 */
	TA_SUM_INT8,				/* sum(int8) -> numeric */
	TA_SUM_FLOAT4,				/* sum(float4) -> float4 */
	TA_SUM_FLOAT8,				/* sum(float8) -> float8 */
	TA_SUM_NUMERIC,				/* sum(numeric) -> numeric */
	TA_AVG_INT,					/* avg(int2 | int4) -> numeric */
	TA_AVG_INT8,				/* avg(int8) -> numeric */
	TA_AVG_FLOAT,				/* avg(float4 | float8) -> float8 */
	TA_AVG_NUMERIC,				/* avg(numeric) -> numeric */
	TA_MIN_INT,					/* min / max of int2, int4, int8, date, */
	TA_MAX_INT,					/* timestamp, timestamptz */
	TA_MIN_FLOAT,				/* min / max of float4, float8 */
	TA_MAX_FLOAT,
	TA_MIN_NUMERIC,				/* min / max of numeric */
	TA_MAX_NUMERIC
} TaAggKind;

/* One aggregate of the node */
typedef struct TaAgg
{
	TaAggKind	kind;
	Oid			argtype;		/* the aggregate's argument type (InvalidOid:
								 * count(*); ANYOID: count) */
} TaAgg;

/*
 * What the executor needs from the planner (CustomScan.custom_private,
 * through tumble_agg_info_to_private / _from_private).  input_cols gives
 * the child's columns of the time, of each key and of the argument of each
 * aggregate that has one, in that order: 1, 2, 3 ... when the child
 * computes them, or the table's column numbers when the child returns its
 * rows as they are stored.  The scan tuple (custom_scan_tlist) is: the
 * window columns (bucket + delta each), the keys, the aggregates.
 */
typedef struct TumbleAggPlanInfo
{
	TaBucketKind bucket;
	Oid			time_type;		/* timestamp or timestamptz */
	int64		unit;			/* window length, microseconds */
	int64		offset;			/* windows start at Unix epoch + offset + k * unit */
	int64		origin;			/* date_bin's origin */
	int			nwindowcols;	/* window columns of the scan tuple */
	int64	   *deltas;			/* each: bucket + delta (microseconds) */
	int			nkeys;
	List	   *key_sortops;	/* per key: its ordering operator (spill), OIDs */
	List	   *key_eqops;		/* per key: its equality operator, OIDs */
	List	   *key_collations; /* per key, OIDs */
	int			naggs;
	TaAgg	   *aggs;
	List	   *input_cols;		/* integers, see above */
	bool		parallel;		/* parallel-aware: groups or rows exchanged */
	bool		exchange_rows;	/* parallel: the input rows, not groups */
	bool		exchange_shared;	/* parallel groups: dense arrays in shared
									 * memory where they can be */
} TumbleAggPlanInfo;

/* window partitions when rows are exchanged (the planner costs their tables) */
#define TA_ROW_PARTS 64

extern PGDLLIMPORT CustomScanMethods wj_tumble_agg_scan_methods;

/* tumble_agg_planner.c */
extern void wj_tumble_agg_add_paths(PlannerInfo *root, RelOptInfo *input_rel,
									RelOptInfo *output_rel, void *extra);
/* tumble_agg_exec.c */
extern void wj_tumble_agg_register(void);
/* tumble_agg_private.c */
extern List *tumble_agg_info_to_private(const TumbleAggPlanInfo *info);
extern void tumble_agg_info_from_private(List *priv, TumbleAggPlanInfo *info);

#endif							/* TUMBLE_AGG_H */
