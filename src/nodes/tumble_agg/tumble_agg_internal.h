/*-------------------------------------------------------------------------
 *
 * tumble_agg_internal.h
 *	  TumbleAgg's executor state, shared by its executor
 *	  (tumble_agg_exec.c) and its group store (tumble_agg_groups.c).
 *
 * src/nodes/tumble_agg/tumble_agg_internal.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TUMBLE_AGG_INTERNAL_H
#define TUMBLE_AGG_INTERNAL_H

#include "nodes/execnodes.h"
#include "utils/tuplesort.h"

#include "src/common/exec_common.h"
#include "src/parallel/row_exchange.h"
#include "src/common/state_stats.h"
#include "src/nodes/tumble_agg/tumble_agg.h"
#include "src/nodes/tumble_agg/tumble_agg_keys.h"
#include "src/nodes/tumble_agg/tumble_agg_state.h"

/*
 * a dense array is given up when it would have more than this many windows
 * per group, once it has TA_DENSE_SPARSE_FROM windows
 */
#define TA_DENSE_SPARSITY		8
#define TA_DENSE_SPARSE_FROM	(1 << 20)
/* ... and windows it may start with */
#define TA_DENSE_MIN_WINDOWS	1024

/* the blocks group states are cut from */
#define TA_BUMP_BLOCK			(256 * 1024)
/* the cells' blocks once they hold WJ_HUGE_PAGE_MIN */
#define TA_HUGE_BLOCK			((Size) 16 * 1024 * 1024)

/* groups of their own in the dense array */
enum
{
	TA_SPECIAL_NULL,
	TA_SPECIAL_NEG_INF,
	TA_SPECIAL_POS_INF,
	TA_NSPECIAL
};

/* what the node is doing */
typedef enum TaPhase
{
	TA_CONSUME,					/* read the input */
	TA_EMIT,					/* return the groups in memory */
	TA_EMIT_SORTED,				/* return the merged spilled groups */
	TA_NEXT_PART,				/* parallel: claim the next partition */
	TA_DONE
} TaPhase;

typedef struct TumbleAggState
{
	CustomScanState css;
	TumbleAggPlanInfo info;
	int			nkeys;
	int			naggs;
	AttrNumber	timecol;		/* child column of the time */
	AttrNumber *inkeycols;		/* child columns of the keys */
	AttrNumber *partkeycols;	/* keys in partial rows and key slots: 2 .. */
	AttrNumber *argcols;		/* per aggregate: child column, 0 for none */
	TaValue    *batchvals;		/* TA_BATCH rows of prepared values */
	Size		mem_limit;
	double		est_groups;		/* the planner's, for the hash table's size */
	int64		floor_base;		/* (Unix epoch + offset) mod unit */

	MemoryContext groupcxt;		/* cells, numeric values, hashed key tuples */
	MemoryContext metacxt;		/* the hash table itself */
	MemoryContext tempcxt;		/* hashing */
	MemoryContext rowcxt;		/* per input row */

	/* dense strategy */
	bool		dense;
	int64		layout;			/* bumped when the dense array moves */
	TaCell	   *dcells;			/* dnwin * naggs cells, on cache lines */
	void	   *dcells_raw;		/* (their allocation) */
	char	   *bump_next;		/* ta_new_cells' free space */
	char	   *bump_end;
	bool	   *dused;
	int64		dbase;			/* window start of dcells[0] */
	int64		dstride;		/* between the windows of dcells: the unit, or
								 * unit x nparts in a window partition */
	int64		dnwin;
	int64		dgroups;		/* windows used */
	TaCell	   *special[TA_NSPECIAL];

	/* hashed strategy: integer keys, or keys of any type */
	bool		hashed_built;	/* the table below exists */
	bool		intkeys;		/* integer keys: inttable, else hashtable */
	TaIntTable *inttable;
	TupleTableSlot *keyvslot;	/* an integer table's key, as (window, keys) */
	TupleHashTable hashtable;
	TupleDesc	hashdesc;		/* (start int8, keys...) */
	TupleTableSlot *hashslot;
	TupleTableSlot *keyslot;	/* an entry's key tuple, read back */
	AttrNumber *hashcols;
	Oid		   *eqfuncoids;
	FmgrInfo   *hashfuncs;
	Oid		   *collations;
	TupleHashIterator hashiter;

	/* partial rows: spill, exchange */
	TupleDesc	partdesc;		/* (start int8, keys..., seq int8, cells bytea) */
	TupleTableSlot *partslot;
	TupleTableSlot *partslot2;
	Tuplesortstate *sort;
	ExprState  *parteq;			/* same group? over two partial rows */
	int64		seq;
	int64		dumps;
	bool		spilled;		/* groups are in the sort */
	bool		ever_spilled;	/* for EXPLAIN */
	int64		disk_kb;
	StringInfoData buf;

	/* emitting */
	TaPhase		phase;
	int64		dpos;			/* dense: next window, after the specials */
	int			spos;			/* dense: next special */
	bool		pending;		/* sorted: partslot2 has the next group's first row */
	TupleTableSlot *groupslot;	/* sorted: the group's first row */
	TaCell	   *mcells;			/* sorted: the group being merged */
	MemoryContext mergecxt;		/* sorted: its numeric values */

	/* parallel */
	WjExchange	ex;
	WjLeaderShare leader;		/* the leader's share under a Gather */
	int			nparts;
	TupleTableSlot *readslot;	/* a partial row read back */
	TupleTableSlot *rawslot;	/* an exchanged input row read back */
	bool		from_exchange;	/* aggregating a partition of rows */

	/* figures */
	WjStateStats stats;
	WjParallelInstr pinstr;		/* workers' figures for EXPLAIN ANALYZE */
	int64		groups;			/* groups in memory */
	int64		windows_out;
} TumbleAggState;

/* tumble_agg_groups.c: a row's window, and where each group's cells are */
extern int64 ta_window_start(TumbleAggState *state, Datum t, bool isnull,
							 bool *start_null);
extern void ta_timestamp_out_of_range(void);
extern Size ta_group_bytes(TumbleAggState *state);
extern void ta_reset_groups(TumbleAggState *state);
extern void ta_build_hashtable(TumbleAggState *state);
extern TaCell *ta_new_cells(TumbleAggState *state);
extern TaCell *ta_hashed_cells(TumbleAggState *state, int64 start, bool start_null,
							   TupleTableSlot *keys, const AttrNumber *keycols);
extern TaCell *ta_group_cells(TumbleAggState *state, int64 start, bool start_null,
							  TupleTableSlot *keys, const AttrNumber *keycols);

extern void ta_groups_start(TumbleAggState *state);
extern TaCell *ta_groups_next(TumbleAggState *state, int64 *start, bool *start_null,
							  TupleTableSlot **keys);

#endif							/* TUMBLE_AGG_INTERNAL_H */
