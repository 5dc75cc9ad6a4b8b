/*-------------------------------------------------------------------------
 *
 * tumble_agg_keys.h
 *	  TumbleAgg's table of groups whose keys are small integers
 *	  (tumble_agg_keys.c): (window, up to TA_INT_KEYS keys) as int64s,
 *	  hashed and compared as integers, in a simplehash table.
 *
 * src/nodes/tumble_agg/tumble_agg_keys.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TUMBLE_AGG_KEYS_H
#define TUMBLE_AGG_KEYS_H

#include "executor/tuptable.h"

#include "src/nodes/tumble_agg/tumble_agg_state.h"

/* keys at most */
#define TA_INT_KEYS 3

/* a group's key: the window start and the keys, NULLs as bits */
typedef struct TaIntKey
{
	int64		w;
	int64		k[TA_INT_KEYS];
	uint32		nulls;			/* bit 0: window; bit i + 1: key i */
	uint32		pad;			/* zero: the struct is compared whole */
} TaIntKey;

typedef struct TaIntTable TaIntTable;

/* Can a key of this type be held as an int64 compared bitwise? */
extern bool ta_int_key_type(Oid typid);

extern uint64 ta_initial_buckets(double expected, Size budget, Size entry_size);
extern TaIntTable *ta_int_create(MemoryContext cxt, int nkeys, const Oid *types,
								 double expected, Size budget);
extern void ta_int_reset(TaIntTable *table);
/* The cells of the group of (w, keys of slot columns keycols), *isnew set */
extern TaCell **ta_int_lookup(TaIntTable *table, int64 w, bool wnull,
							  TupleTableSlot *slot, const AttrNumber *keycols,
							  bool *isnew);
/*
 * The same in two steps, for a batch of rows: the key of (w, keys of slot)
 * and its hash (and a prefetch of its bucket), then its cells pointer.
 */
extern uint32 ta_int_key(TaIntTable *table, int64 w, bool wnull,
						 TupleTableSlot *slot, const AttrNumber *keycols,
						 TaIntKey *key);
extern TaCell **ta_int_lookup_key(TaIntTable *table, const TaIntKey *key,
								  uint32 hash, bool *isnew);

/* Iteration: the next group, its key written to slot (window, keys) */
extern void ta_int_start(TaIntTable *table);
extern TaCell *ta_int_next(TaIntTable *table, TupleTableSlot *slot);

#endif							/* TUMBLE_AGG_KEYS_H */
