/*-------------------------------------------------------------------------
 *
 * asof_lookup.h
 *	  State of the AsOfJoin lookup strategy, shared by its files:
 *	  asof_lookup.c (loading the versions, the batched binary search, the
 *	  run-time fallback), asof_shared.c (the versions loaded once under a
 *	  Gather) and asof_key_index.c (the keys found by their images).
 *
 * src/nodes/asof_join/asof_lookup.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef ASOF_LOOKUP_H
#define ASOF_LOOKUP_H

#include "port/atomics.h"
#include "storage/condition_variable.h"
#include "storage/spin.h"
#include "utils/dsa.h"

#include "src/nodes/asof_join/asof_exec_internal.h"

/*
 * Lookup strategy under a Gather: the versions loaded by one participant
 * and shared with the others (asof_shared.c), in the DSM segment
 */
typedef struct AsOfShared
{
	slock_t		mutex;			/* protects state and ahead_rows */
	int			state;			/* ASOF_SHARED_* (asof_shared.c) */
	dsa_pointer image;			/* the versions' image, once ready */
	ConditionVariable cv;		/* the loader wakes the others */
	int64		ahead_rows;		/* outer rows read ahead, all participants */
	/* a load split by key partition (AsOfPlanInfo.split) */
	pg_atomic_uint32 next_part;	/* the next partition to claim */
	int			parts_done;		/* partitions whose image is written */
	Size		split_bytes;	/* the bytes of their images, in all */
	dsa_pointer part_images[ASOF_MAX_SPLIT];
} AsOfShared;

/*
 * Lookup strategy: the versions of one key, in the inner child's order
 * (time ascending looking backward, descending looking forward; tied
 * versions in tie-breaker order).  Each version is a record: its ninner
 * Datums, its ninner null flags, then copies of its by-reference values,
 * which the Datums point into.  Probes touch them at random, so they are
 * laid out to touch few cache lines: records packed densely into large
 * blocks, each time next to its record's address.  When the times compare
 * as integers (timestamp, timestamptz, date, integers) they are kept as
 * int64, fences[] holds every ASOF_FENCE-th of them and super[] every
 * ASOF_FENCE-th fence: the binary search runs over super[] (small enough
 * to stay in cache), then over one cache line of fences[], then over one
 * block of ASOF_FENCE versions.
 */
#define ASOF_FENCE		8
#define ASOF_DENSE_MIN		(8 * 1024)	/* first block; then doubling */
#define ASOF_DENSE_MAX		(1024 * 1024)

typedef struct AsOfVersion
{
	Datum		time;			/* version time (int64 if time_int64) */
	char	   *rec;			/* the record */
} AsOfVersion;

typedef struct AsOfVersions
{
	int			n;
	int			cap;
	AsOfVersion *v;				/* time and record side by side */
	int64	   *fences;			/* int64 times: v[0], v[8], ... */
	int64	   *super;			/* and v[0], v[64], ... */
	char	   *nullrec;		/* nearest: last version with a NULL time */
	char	   *base;			/* the image the recs are offsets in, or
								 * NULL: they are pointers */
} AsOfVersions;

/*
 * The lookup strategy answers outer rows in batches of up to ASOF_BATCH
 * (the first batch of a scan is one row, each next one twice as large, so
 * that a LIMIT above the node reads few more outer rows than it needs), in
 * phases: find each row's key; then (with int64 times) its line of fences
 * among the super fences, asking the CPU to prefetch that line; then the
 * block of ASOF_FENCE versions holding its answer, prefetched likewise;
 * then each row's version in its block, prefetching the record; then
 * return the rows one by one.  The versions are touched at
 * random and mostly miss the caches; this way the misses of a batch
 * overlap instead of stalling one after the other.
 */
#define ASOF_BATCH		128

typedef struct AsOfProbe
{
	AsOfVersions *vl;			/* the key's versions, NULL: no match */
	int64		t;				/* the outer time as int64 */
	int			from;			/* the fences or versions to search next: */
	int			to;				/* [from .. to-1] */
	Datum	   *rec;			/* the match, or NULL */
} AsOfProbe;

#if defined(__GNUC__) || defined(__clang__)
#define ASOF_PREFETCH(p)	__builtin_prefetch(p)
#else
#define ASOF_PREFETCH(p)	((void) (p))
#endif

/* The record of a version of vl: its rec, a pointer or an offset in an image */
static inline Datum *
asof_rec(AsOfVersions *vl, char *rec)
{
	return (Datum *) (vl->base != NULL ? vl->base + (Size) rec : rec);
}

/* The lookup strategy's state */
typedef struct AsOfLookupState
{
	AsOfKeyTable *table;		/* every version of every key (an
								 * AsOfVersions per key) */
	struct AsOfKeyImage *key_image; /* the keys compare by image: how to
									 * read them (asof_key_index.c) */
	struct asof_keyidx_hash *keyidx;	/* then: the table's keys by image,
										 * once the versions are in it */

	bool		loaded;			/* the versions are in the table */
	bool		fallback;		/* they did not fit: sweep instead */
	bool		fell_back;		/* that happened at least once (EXPLAIN) */
	bool		load_only;		/* loading for the workers: on overflow
								 * read no outer row (asof_shared.c) */
	size_t		mem_limit;		/* bytes the table may take */
	Size		rec_header;		/* Datums and nulls before a version's data */
	char	   *dense_ptr;		/* free space for versions in hashcxt */
	Size		dense_free;
	Size		dense_next;		/* size of the next block */

	/*
	 * Loading versions to share (asof_shared.c): the records' by-reference
	 * Datums are offsets from the record itself, and every block holding
	 * records is listed, so that the image copies the blocks whole and
	 * finds a record's offset from its block alone
	 */
	bool		rec_relative;
	char	  **blocks;			/* their starts, in hashcxt */
	Size	   *block_used;		/* bytes of records in each */
	int			nblocks;
	int			maxblocks;
	int			dense_block;	/* the block dense_ptr is in */
	bool		time_int64;		/* version times compared as int64 */

	/*
	 * The fallback: the outer rows sorted by the node, read by the strategy
	 * fallen back to (the sweep; the merge in the nearest direction), which
	 * has a state of its own, made at begin
	 */
	AsOfOuterSort sorted;
	TupleDesc	sort_desc;		/* outer columns plus the time (or keys
								 * and time) */
	TupleTableSlot *sort_in_slot;
	Oid			time_sortop;	/* orders outer times as the sweep needs */
	Oid			time_collation;
	AttrNumber *near_sortattnos;	/* nearest: outer keys, time */
	Oid		   *near_sortops;
	Oid		   *near_sortcolls;
	bool	   *near_nullsfirst;
	const AsOfStrategy *fb;		/* the strategy fallen back to */
	void	   *fb_state;		/* and its state */

	AsOfProbe  *probes;			/* the batch of outer rows being answered */
	Datum	   *batch_values;	/* copies of their columns, nouter each */
	bool	   *batch_isnull;
	int			batch_n;
	int			batch_pos;		/* next one to return */
	int			batch_size;		/* rows to read into the next batch */
	bool		outer_done;		/* outer child exhausted */
	ExprContext *batch_econtext;	/* their keys and times, per batch */

	/*
	 * Outer rows read ahead while waiting for another participant to load
	 * the shared versions (asof_shared.c), copied as a batch copies them,
	 * and returned first (asof_lookup_fill, asof_fetch_outer); ahead_eof:
	 * the outer child was exhausted then
	 */
	MemoryContext ahead_cxt;	/* holds them all, NULL if none */
	Datum	   *ahead_values;	/* their columns, nouter each */
	bool	   *ahead_isnull;
	int64		ahead_n;
	int64		ahead_pos;		/* the next one to return */
	int64		ahead_cap;
	TupleTableSlot *ahead_slot; /* one of them as a slot (virtual) */
	bool		ahead_eof;
	int64		ahead_total;	/* leader: all participants', copied at
								 * shutdown for EXPLAIN */

	AsOfShared *shared;			/* under a Gather: the versions loaded
								 * once, or NULL */
	bool		in_images;		/* the table's records lie in shared images
								 * (asof_shared.c): their by-reference
								 * Datums are offsets from the record */
	int			split_part;		/* split load: the partition read, or -1 */
	SortSupport vsort;			/* split load: the inner Sort's keys, to
								 * order each key's versions in its place */
	bool	   *vsort_byref;	/* per Sort key: passed by reference */
	int			nvsort;
	int		   *inner_byref;	/* the inner columns passed by reference */
	int			ninner_byref;
	Datum	   *image_values;	/* a match's Datums made pointers */
} AsOfLookupState;

/* The lookup's state of a node running the lookup strategy */
static inline AsOfLookupState *
asof_lookup_state(AsOfJoinState *s)
{
	Assert(s->strategy == &asof_lookup_strategy);
	return (AsOfLookupState *) s->sstate;
}

/*
 * asof_time_int64
 *		A version time (or outer time) as the int64 the fast binary search
 *		compares, when AsOfLookupState.time_int64.
 */
static inline int64
asof_time_int64(AsOfJoinState *s, Datum d)
{
	if (s->time_cmp.ssup.comparator == ssup_datum_int32_cmp)
		return (int64) DatumGetInt32(d);
	return DatumGetInt64(d);
}

/* asof_lookup.c */
extern void asof_lookup_load(AsOfJoinState *s);
extern void asof_lookup_load_unsorted(AsOfJoinState *s);
extern void asof_lookup_discard(AsOfJoinState *s);
extern void asof_set_split_param(AsOfJoinState *s);
extern void asof_restart_inner(AsOfJoinState *s);
extern void asof_copy_values(TupleTableSlot *slot, int natts, Datum *values,
							 bool *isnull);
extern void asof_lookup_fall_back(AsOfJoinState *s);
extern void asof_ahead_take(AsOfJoinState *s, Datum *values, bool *isnull);
extern void asof_ahead_end(AsOfJoinState *s);

/* asof_lookup_probe.c */
extern TupleTableSlot *asof_next_looked_up(AsOfJoinState *s, Datum **values,
										   bool **nulls);

/* asof_key_index.c */
extern void asof_key_index_init(AsOfJoinState *s, const AsOfPlanInfo *info);
extern void asof_key_index_build(AsOfJoinState *s);
extern AsOfVersions *asof_key_index_find(AsOfJoinState *s, Datum *keys);

/* asof_shared.c */
extern Size asof_shared_estimate(void);
extern void asof_shared_init(AsOfShared *sh);
extern void asof_shared_reinit(AsOfShared *sh, dsa_area *area);
extern int64 asof_shared_ahead_rows(AsOfShared *sh);
extern void asof_shared_load(AsOfJoinState *s);
extern void asof_shared_load_for_workers(AsOfJoinState *s);
extern Datum *asof_image_values(AsOfJoinState *s, Datum *rec);

#endif							/* ASOF_LOOKUP_H */
