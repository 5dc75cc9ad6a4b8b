/*-------------------------------------------------------------------------
 *
 * asof_exec_internal.h
 *	  Executor state of the AsOfJoin custom scan and the functions its
 *	  executor files share.
 *
 * The executor is split by strategy (see asof_join_exec.c for the algorithms):
 *
 *	asof_join_exec.c		the node's callbacks (begin, exec, end, rescan, EXPLAIN,
 *					parallel), the inner stream and the scan tuple shared by
 *					every strategy, and the sweep strategy
 *	asof_merge.c	the merge strategy, backward, forward and nearest
 *	asof_lookup.c	the lookup strategy (versions hashed by key, binary
 *					search per outer row) and its run-time fallback, also
 *					for the nearest direction
 *	asof_shared.c	the lookup strategy under a Gather: the versions loaded
 *					by one participant into shared memory, read there by all
 *	asof_nearest.c	what the nearest direction's merge and lookup share:
 *					its setup, tolerance window and the choice between the
 *					two neighbours of the outer time
 *
 * src/nodes/asof_join/asof_exec_internal.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef ASOF_EXEC_INTERNAL_H
#define ASOF_EXEC_INTERNAL_H

#include "nodes/execnodes.h"
#include "fmgr.h"
#include "nodes/extensible.h"
#include "storage/condition_variable.h"
#include "storage/spin.h"
#include "utils/dsa.h"
#include "utils/sortsupport.h"
#include "utils/tuplesort.h"
#include "utils/tuplestore.h"

#include "asof.h"
#include "exec_common.h"
#include "state_stats.h"
#include "time_shift.h"

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
	/* a load split by key partition (AsOfPlanInfo.split_param) */
	pg_atomic_uint32 next_part;	/* the next partition to claim */
	int			parts_done;		/* partitions whose image is written */
	Size		split_bytes;	/* the bytes of their images, in all */
	dsa_pointer part_images[ASOF_MAX_SPLIT];
} AsOfShared;

/* A comparison of an outer value with an inner value */
typedef struct AsOfCmp
{
	bool		use_ssup;		/* same type: sort support comparator */
	SortSupportData ssup;
	FmgrInfo	flinfo;			/* cross-type: btree comparison proc */
	Oid			collation;
} AsOfCmp;

typedef struct AsOfJoinState
{
	CustomScanState css;

	AsOfPlanInfo info;			/* the plan's custom_private, decoded */
	PlanState  *outer_ps;
	PlanState  *inner_ps;
	JoinType	jointype;
	bool		forward;
	bool		strict;
	int			strategy;		/* ASOF_STRATEGY_* */
	bool		hashed;			/* keys in a hash table (sweep, lookup) */
	int			nouter;			/* columns of the outer child */
	int			ninner;			/* columns of the inner child */
	int			nkeys;
	int			ntol;

	ExprState **outer_key;		/* per key */
	ExprState  *outer_time;
	ExprState **tol_bound;		/* per tolerance bound */
	bool	   *tol_strict;
	ExprState  *joinqual;		/* LEFT join's match conditions */

	AsOfCmp    *key_cmp;
	AsOfCmp		time_cmp;
	AsOfCmp    *tol_cmp;
	AttrNumber *inner_key_attno;
	AttrNumber	inner_time_attno;

	Datum	   *okeys;			/* current outer row's keys */
	Datum		otime;			/* and time */

	/*
	 * A shifted outer time (o.t + interval '1 hour', see time_shift.c) is
	 * computed from its base without an error; where it is out of range,
	 * the real expression is evaluated only if the outer keys have some
	 * version, as PostgreSQL's plan evaluates it only then.  The merge
	 * remembers an inner row of the current outer keys already read; the
	 * sweep sets such outer rows aside and answers them at the end.
	 */
	bool		has_shift;
	WjShift		shift;
	ExprState  *time_base;
	TupleTableSlot *seen_slot;	/* merge: a read row of the outer keys */
	bool		seen_valid;
	Tuplestorestate *deferred;	/* sweep: outer rows set aside */
	TupleTableSlot *deferred_slot;
	bool		drained;		/* sweep: every inner row read */

	TupleTableSlot *next;		/* inner lookahead, NULL if none */
	bool		inner_done;		/* inner child exhausted */
	TupleTableSlot *best_slot;	/* the current version (a copy) */
	bool		have_best;
	bool		best_is_next;	/* forward: best_slot copies next */
	int64		best_bytes;

	/*
	 * sweep strategy: the current version of every key seen so far; lookup
	 * strategy: every version of every key (an AsOfVersions per key)
	 */
	TupleHashTable hashtable;
	MemoryContext metacxt;		/* the table itself, and hashcxt */
	MemoryContext hashcxt;		/* its entries and the version copies */
	TupleTableSlot *probe_slot; /* the keys alone, one column per key */
	struct AsOfKeyImage *key_image; /* the keys compare by image: how to
									 * read them (asof_key_index.c) */
	struct asof_keyidx_hash *keyidx;	/* then: the table's keys by image,
										 * once the versions are in it */
	TupleTableSlot *match_slot; /* a version out of the table */
	Datum	   *ikeys;			/* keys of the inner row being stored */

	/* lookup strategy */
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
	Tuplesortstate *outer_sort; /* fallback: outer rows by time */
	TupleDesc	sort_desc;		/* outer columns plus the outer time */
	TupleTableSlot *sort_in_slot;
	TupleTableSlot *sort_out_slot;
	Oid			time_sortop;	/* orders outer times as the sweep needs */
	Oid			time_collation;
	struct AsOfProbe *probes;	/* the batch of outer rows being answered */
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

	WjStateStats stats;

	/* nearest direction (see asof_nearest_merge, asof_nearest_probe) */
	bool		nearest;
	bool		near_keep_nulls;	/* NULL times take part (no tolerance) */
	bool		near_inner_first;	/* distance(inner, outer) */
	bool		near_time_null;	/* the current outer time is NULL */
	Oid			near_type;		/* the time type */
	bool	   *tol_upper;		/* per tolerance bound: an upper bound */
	Datum	   *near_bounds;	/* the current outer row's bounds */
	FmgrInfo	dist_flinfo;	/* btree_gist's distance function */
	SortSupportData dist_ssup;	/* orders its results */
	AsOfCmp    *near_key_icmp;	/* inner key with inner key */
	TupleTableSlot *near_slot[4];	/* ASOF_NEAR_*: copies of versions */
	bool		near_have[4];
	int64		near_bytes[4];
	AttrNumber *near_sortattnos;	/* lookup's fallback: outer keys, time */
	Oid		   *near_sortops;
	Oid		   *near_sortcolls;
	bool	   *near_nullsfirst;
	WjParallelInstr pinstr;	/* per-worker figures under a Gather */
	WjLeaderShare leader;		/* the leader's share under a Gather */
	AsOfShared *shared;			/* lookup under a Gather: the versions
								 * loaded once, or NULL */
	bool		in_images;		/* the table's records lie in shared images
								 * (asof_shared.c): their by-reference
								 * Datums are offsets from the record */
	int			split_part;		/* split load: the partition read, or -1 */
	SortSupport vsort;			/* split load: the inner Sort's keys, to
								 * order each key's versions in its place */
	bool	   *vsort_byref;	/* per Sort key: passed by reference */
	int			nvsort;
	int		   *inner_byref;	/* lookup: the inner columns passed by
								 * reference */
	int			ninner_byref;
	Datum	   *image_values;	/* a match's Datums made pointers */

	/* sweep: keys in batches on disk (asof_sweep.c) */
	struct AsOfSpill *spill;
	bool		row_spilled;	/* the outer row went to a batch */
} AsOfJoinState;

/* The versions the nearest merge keeps (near_slot[]) */
#define ASOF_NEAR_PREV	0		/* latest of the key at or before the time */
#define ASOF_NEAR_AHEAD 1		/* the next one read, not yet passed */
#define ASOF_NEAR_NULL	2		/* the key's last version with a NULL time */
#define ASOF_NEAR_FIRST 3		/* the key's earliest version read */

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

/* Compare an outer value with an inner one: <0, 0, >0 as outer is less */
static inline int
asof_compare(AsOfCmp *cmp, Datum outer, Datum inner)
{
	if (cmp->use_ssup)
		return cmp->ssup.comparator(outer, inner, &cmp->ssup);
	return DatumGetInt32(FunctionCall2Coll(&cmp->flinfo, cmp->collation,
										   outer, inner));
}

/* asof_join_exec.c: the inner stream, comparisons, the scan tuple */
extern void asof_init_cmp(AsOfCmp *cmp, Oid opfamily, Oid outertype,
						  Oid innertype, Oid collation);
extern void asof_fetch_inner(AsOfJoinState *s);
extern bool asof_inner_time_null(AsOfJoinState *s, TupleTableSlot *inner);
extern bool asof_inner_key_null(AsOfJoinState *s, TupleTableSlot *inner);
extern TupleTableSlot *asof_peek_inner(AsOfJoinState *s);
extern int	asof_compare_keys(AsOfJoinState *s, TupleTableSlot *inner);
extern int	asof_compare_time(AsOfJoinState *s, TupleTableSlot *inner);
extern TupleTableSlot *asof_key_slot(AsOfJoinState *s, Datum *keys);
extern TupleTableSlot *asof_form_values(AsOfJoinState *s, Datum *values,
										bool *isnull);
extern TupleTableSlot *asof_form(AsOfJoinState *s, TupleTableSlot *outer);
extern void asof_lookup_discard(AsOfJoinState *s);
extern TupleTableSlot *asof_fetch_outer(AsOfJoinState *s);
extern void asof_ahead_take(AsOfJoinState *s, Datum *values, bool *isnull);
extern void asof_ahead_end(AsOfJoinState *s);

/* asof_key_index.c */
extern void asof_key_index_init(AsOfJoinState *s, const AsOfPlanInfo *info);
extern void asof_key_index_build(AsOfJoinState *s);
extern AsOfVersions *asof_key_index_find(AsOfJoinState *s, Datum *keys);

/* asof_merge.c */
extern void asof_forget(AsOfJoinState *s);
extern TupleTableSlot *asof_backward(AsOfJoinState *s);
extern TupleTableSlot *asof_forward(AsOfJoinState *s);
extern bool asof_merge_key_seen(AsOfJoinState *s);
extern void asof_nearest_forget(AsOfJoinState *s);
extern bool asof_nearest_key_seen(AsOfJoinState *s);
extern TupleTableSlot *asof_nearest_merge(AsOfJoinState *s,
										  ExprContext *econtext);

/* asof_shared.c */
extern Size asof_shared_estimate(void);
extern void asof_shared_init(AsOfShared *sh);
extern void asof_shared_reinit(AsOfShared *sh, dsa_area *area);
extern int64 asof_shared_ahead_rows(AsOfShared *sh);
extern void asof_shared_load(AsOfJoinState *s);
extern void asof_shared_load_for_workers(AsOfJoinState *s);
extern Datum *asof_image_values(AsOfJoinState *s, Datum *rec);

/* asof_lookup.c */
extern void asof_lookup_load(AsOfJoinState *s);
extern void asof_lookup_load_unsorted(AsOfJoinState *s);
extern void asof_set_split_param(AsOfJoinState *s);
extern void asof_restart_inner(AsOfJoinState *s);
extern void asof_copy_values(TupleTableSlot *slot, int natts, Datum *values,
							 bool *isnull);
extern void asof_lookup_fall_back(AsOfJoinState *s);
extern TupleTableSlot *asof_next_looked_up(AsOfJoinState *s, Datum **values,
										   bool **nulls);

/* asof_nearest.c */
extern void asof_nearest_begin(AsOfJoinState *s, EState *estate);
extern bool asof_nearest_bounds(AsOfJoinState *s, ExprContext *econtext);
extern bool asof_nearest_within(AsOfJoinState *s, Datum itime);
extern int	asof_nearest_choose(AsOfJoinState *s, bool have_prev, Datum tprev,
								bool have_next, Datum tnext,
								ExprContext *econtext);
extern bool asof_nearest_infinite(AsOfJoinState *s);

/* asof_join_exec.c: used by the sweep (asof_sweep.c) */
extern void asof_raise_time(AsOfJoinState *s, ExprContext *econtext);
extern TupleTableSlot *asof_next_streamed(AsOfJoinState *s, Datum **values,
										  bool **nulls);

/* asof_sweep.c: the sweep strategy */
extern void asof_hash_put(AsOfJoinState *s, TupleTableSlot *inner);
extern TupleTableSlot *asof_hashed(AsOfJoinState *s);
extern TupleTableSlot *asof_next_deferred(AsOfJoinState *s);
extern TupleTableSlot *asof_sweep_next(AsOfJoinState *s, Datum **values,
									   bool **nulls);
extern void asof_sweep_reset(AsOfJoinState *s);
extern void asof_sweep_explain(AsOfJoinState *s, ExplainState *es);

#endif							/* ASOF_EXEC_INTERNAL_H */
