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

#include "datatype/timestamp.h"
#include "nodes/execnodes.h"
#include "utils/tuplesort.h"

#include "src/common/exec_common.h"
#include "src/parallel/row_exchange.h"
#include "src/common/state_stats.h"
#include "src/nodes/tumble_agg/tumble_agg.h"
#include "src/nodes/tumble_agg/tumble_agg_keys.h"
#include "src/nodes/tumble_agg/tumble_agg_shared.h"
#include "src/nodes/tumble_agg/tumble_agg_state.h"

/*
 * a dense array is given up when it would have more than this many slots
 * per group (counting the groups it holds or the planner expects), once it
 * has TA_DENSE_SPARSE_FROM slots
 */
#define TA_DENSE_SPARSITY		8
#define TA_DENSE_SPARSE_FROM	(1 << 20)
/* ... and windows it may start with: without a key, and with one */
#define TA_DENSE_MIN_WINDOWS	1024
#define TA_DENSE_MIN_KEYED		32
/* ... and key values it may start with */
#define TA_DENSE_MIN_KEYS		32
/*
 * an array with a key dimension beyond TA_DENSE_KEYED_FREE slots is kept
 * only while the input rows expected are at least half its slots: sparser,
 * its slots cost more pages and misses than a hash table of the groups
 */
#define TA_DENSE_KEYED_FREE		65536

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
	double		est_rows;		/* the planner's input rows (ta_dense_cells) */
	int64		floor_base;		/* (Unix epoch + offset) mod unit */

	MemoryContext groupcxt;		/* cells, numeric values, hashed key tuples */
	MemoryContext metacxt;		/* the hash table itself */
	MemoryContext tempcxt;		/* hashing */
	MemoryContext rowcxt;		/* per input row */

	/* dense strategy */
	bool		dense;
	bool		dkeyed;			/* the array has a key dimension (one integer
								 * key): slot w * dnkey + (key - dkbase) */
	int64		layout;			/* bumped when the dense array moves */
	TaCell	   *dcells;			/* dnwin * dnkey slots of naggs cells, on
								 * cache lines; a slot's zeroed when first used */
	void	   *dcells_raw;		/* (their allocation) */
	char	   *bump_next;		/* ta_new_cells' free space */
	char	   *bump_end;
	bool	   *dused;
	int64		dbase;			/* window start of dcells[0] */
	int64		dstride;		/* between the windows of dcells: the unit, or
								 * unit x nparts in a window partition */
	int64		dnwin;
	int64		dkbase;			/* key of a window's first slot */
	int64		dnkey;			/* slots per window: 1 without a key */
	int64		dgroups;		/* slots used */
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
	TaSharedArrays *sharedarrays;	/* groups exchange: the published dense
									 * arrays (tumble_agg_shared.c) */
	dsa_area   *area;			/* the query's, where they are */
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
extern TaCell *ta_group_cells_int(TumbleAggState *state, int64 start, bool start_null,
								  int64 key, bool key_null);

extern void ta_groups_start(TumbleAggState *state);
/* tumble_agg_exec.c: over the memory limit after a new group?  Then spill */
extern void ta_check_memory(TumbleAggState *state, bool exchanging);
/* ... and the exchange partition of a window */
extern int	ta_part_of(TumbleAggState *state, int64 start, bool start_null);

/*
 * ta_dense_key
 *		The one integer key of the dense array from column col of slot, as
 *		int64 (0 when NULL, *isnull set).
 */
static inline int64
ta_dense_key(TumbleAggState *state, TupleTableSlot *slot, AttrNumber col,
			 bool *isnull)
{
	Datum		d = slot_getattr(slot, col, isnull);

	if (*isnull)
		return 0;
	return ta_datum_int64(TupleDescAttr(state->hashdesc, 1)->atttypid, d);
}

/*
 * ta_dense_slot
 *		The dense array's slot of group (start, key) when the array spans it
 *		(used or not), else -1.  The differences are taken unsigned, so that
 *		a value below the base wraps past the array's end; an array spans at
 *		most PG_INT64_MAX / 4 (ta_dense_cells), so no wrapped difference
 *		lands inside it.
 */
static inline int64
ta_dense_slot(TumbleAggState *state, int64 start, bool start_null, int64 key,
			  bool key_null)
{
	uint64		w;
	uint64		k;

	if (!state->dense || start_null || key_null || TIMESTAMP_NOT_FINITE(start) ||
		state->dnwin == 0)
		return -1;
	k = (uint64) key - (uint64) state->dkbase;
	if (k >= (uint64) state->dnkey)
		return -1;
	w = ((uint64) start - (uint64) state->dbase) / (uint64) state->dstride;
	if (w >= (uint64) state->dnwin)
		return -1;
	return (int64) (w * state->dnkey + k);
}

/*
 * ta_dense_hit
 *		The cells of group (start, key) when the dense array holds it
 *		already, else NULL (then ta_group_cells_int): the common case of a
 *		row, without a call.
 */
static inline TaCell *
ta_dense_hit(TumbleAggState *state, int64 start, bool start_null, int64 key,
			 bool key_null)
{
	int64		slot = ta_dense_slot(state, start, start_null, key, key_null);

	if (slot < 0 || !state->dused[slot])
		return NULL;
	return &state->dcells[slot * state->naggs];
}

extern TaCell *ta_groups_next(TumbleAggState *state, int64 *start, bool *start_null,
							  TupleTableSlot **keys);

#endif							/* TUMBLE_AGG_INTERNAL_H */
