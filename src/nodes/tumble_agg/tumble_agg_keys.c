/*-------------------------------------------------------------------------
 *
 * tumble_agg_keys.c
 *	  TumbleAgg's table of groups keyed by integers: the window start and
 *	  up to TA_INT_KEYS keys of integer-like types (int2, int4, int8, oid,
 *	  bool, date, timestamp, timestamptz) as int64s.
 *
 * For such keys equality is equality of the integers, so the table
 * hashes the key struct with hash_combine64 / murmurhash32 and compares
 * it with memcmp: no function calls and no tuple is formed per row, as
 * execGrouping.c's TupleHashTable needs for keys of any type (which
 * TumbleAgg uses for the others).  A simplehash table (lib/simplehash.h)
 * holds (key, cells).
 *
 * src/nodes/tumble_agg/tumble_agg_keys.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "common/hashfn.h"

#include "src/common/huge_pages.h"
#include "src/nodes/tumble_agg/tumble_agg_keys.h"

typedef struct TaIntEntry
{
	TaIntKey	key;
	TaCell	   *cells;
	uint32		hash;
	char		status;
} TaIntEntry;

/* the hash of a key: its integers mixed, then murmurhash32's finaliser */
static inline uint32
ta_int_hash(const TaIntKey *key)
{
	uint64		h = (uint64) key->w;

	for (int i = 0; i < TA_INT_KEYS; i++)
		h = hash_combine64(h, (uint64) key->k[i] * UINT64CONST(0x9E3779B97F4A7C15));
	h ^= key->nulls;
	return murmurhash32((uint32) (h ^ (h >> 32)));
}

#define SH_PREFIX		taint
#define SH_ELEMENT_TYPE	TaIntEntry
#define SH_KEY_TYPE		TaIntKey
#define SH_KEY			key
#define SH_HASH_KEY(tb, key)	ta_int_hash(&(key))
#define SH_EQUAL(tb, a, b)		(memcmp(&(a), &(b), sizeof(TaIntKey)) == 0)
#define SH_STORE_HASH
#define SH_GET_HASH(tb, a)		((a)->hash)
#define SH_SCOPE		static inline
#define SH_USE_NONDEFAULT_ALLOCATOR
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

/* the table's buckets: on huge pages once large (huge_pages.c) */
static inline void *
taint_allocate(taint_hash *type, Size size)
{
	return wj_alloc_huge(type->ctx, size, true);
}

static inline void
taint_free(taint_hash *type, void *pointer)
{
	pfree(pointer);
}

/* buckets between the group returned and the one whose cells are prefetched */
#define TA_ITER_AHEAD 16

struct TaIntTable
{
	taint_hash *hash;
	int			nkeys;
	Oid			types[TA_INT_KEYS];
	taint_iterator iter;
};

/*
 * ta_int_key_type
 *		Types whose default equality is equality of their bits.
 */
bool
ta_int_key_type(Oid typid)
{
	switch (typid)
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
		case OIDOID:
		case BOOLOID:
		case DATEOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			return true;
		default:
			return false;
	}
}

/*
 * ta_initial_buckets
 *		How many entries of entry_size bytes a hash table is first made for:
 *		the groups expected, but no more than budget bytes of buckets (a
 *		simplehash table takes twice its entries at most, rounded to a power
 *		of two), and at least 1024.
 */
uint64
ta_initial_buckets(double expected, Size budget, Size entry_size)
{
	double		fit = (double) budget / (2.0 * entry_size);

	return (uint64) Max(1024.0, Min(expected, fit));
}

/*
 * ta_int_create
 *		An empty table in cxt for nkeys keys of the given types, sized for
 *		expected groups within budget bytes (ta_initial_buckets).
 */
TaIntTable *
ta_int_create(MemoryContext cxt, int nkeys, const Oid *types, double expected,
			  Size budget)
{
	TaIntTable *table = MemoryContextAllocZero(cxt, sizeof(TaIntTable));

	Assert(nkeys <= TA_INT_KEYS);
	table->hash = taint_create(cxt, ta_initial_buckets(expected, budget, sizeof(TaIntEntry)),
							   NULL);
	table->nkeys = nkeys;
	memcpy(table->types, types, sizeof(Oid) * nkeys);
	return table;
}

/* ta_int_reset: forget every group */
void
ta_int_reset(TaIntTable *table)
{
	taint_reset(table->hash);
}

/*
 * ta_int_key
 *		The key of group (w, keys of slot columns keycols) and its hash; the
 *		bucket it hashes to is prefetched, for a lookup a few rows later.
 */
uint32
ta_int_key(TaIntTable *table, int64 w, bool wnull, TupleTableSlot *slot,
		   const AttrNumber *keycols, TaIntKey *key)
{
	uint32		hash;

	memset(key, 0, sizeof(TaIntKey));
	if (wnull)
		key->nulls = 1;
	else
		key->w = w;
	for (int i = 0; i < table->nkeys; i++)
	{
		bool		isnull;
		Datum		d = slot_getattr(slot, keycols[i], &isnull);

		if (isnull)
			key->nulls |= 1U << (i + 1);
		else
			key->k[i] = ta_datum_int64(table->types[i], d);
	}
	hash = ta_int_hash(key);
	__builtin_prefetch(&table->hash->data[hash & table->hash->sizemask]);
	return hash;
}

/*
 * ta_int_lookup_key
 *		The cells pointer of the group of key (hash from ta_int_key),
 *		entered if new (then NULL, for the caller to fill).
 */
TaCell **
ta_int_lookup_key(TaIntTable *table, const TaIntKey *key, uint32 hash, bool *isnew)
{
	TaIntEntry *entry;
	bool		found;

	entry = taint_insert_hash(table->hash, *key, hash, &found);
	if (!found)
		entry->cells = NULL;
	*isnew = !found;
	return &entry->cells;
}

/*
 * ta_int_lookup
 *		The cells pointer of group (w, keys), entered if new (then NULL,
 *		for the caller to fill).
 */
TaCell **
ta_int_lookup(TaIntTable *table, int64 w, bool wnull, TupleTableSlot *slot,
			  const AttrNumber *keycols, bool *isnew)
{
	TaIntKey	key;
	uint32		hash = ta_int_key(table, w, wnull, slot, keycols, &key);

	return ta_int_lookup_key(table, &key, hash, isnew);
}

/* ta_int_start: iterate over the groups */
void
ta_int_start(TaIntTable *table)
{
	taint_start_iterate(table->hash, &table->iter);
}

/*
 * ta_int_next
 *		The next group's cells, its key stored in slot as (window int8,
 *		keys); NULL at the end.
 */
TaCell *
ta_int_next(TaIntTable *table, TupleTableSlot *slot)
{
	TaIntEntry *entry = taint_iterate(table->hash, &table->iter);
	TaIntEntry *ahead;

	if (entry == NULL)
		return NULL;

	/*
	 * The iteration walks the buckets downwards; the cells of the groups
	 * are where their first rows put them.  Prefetch the cells of a bucket
	 * a few ahead, so that their cache misses overlap.
	 */
	ahead = &table->hash->data[(table->iter.cur - TA_ITER_AHEAD) & table->hash->sizemask];
	if (ahead->status == taint_SH_IN_USE)
		__builtin_prefetch(ahead->cells);
	ExecClearTuple(slot);
	slot->tts_isnull[0] = (entry->key.nulls & 1) != 0;
	slot->tts_values[0] = Int64GetDatum(entry->key.w);
	for (int i = 0; i < table->nkeys; i++)
	{
		slot->tts_isnull[i + 1] = (entry->key.nulls & (1U << (i + 1))) != 0;
		slot->tts_values[i + 1] = ta_int64_datum(table->types[i], entry->key.k[i]);
	}
	ExecStoreVirtualTuple(slot);
	return entry->cells;
}
