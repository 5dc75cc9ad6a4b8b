/*-------------------------------------------------------------------------
 *
 * window_join_buckets.c
 *	  An unsorted TUMBLE input of a WindowJoin grouped by window inside the
 *	  node: a counting sort in memory, in place of a Sort below it.
 *
 * INTERFACE ROUTINES (window_join_internal.h)
 *		wjoin_buckets_create	the buckets of one side
 *		wjoin_buckets_put		one input row, its window value and key hash
 *		wjoin_buckets_done		all rows are in: order the windows
 *		wjoin_buckets_sorted	did the rows go past work_mem into a sort
 *		wjoin_buckets_next_row	the next row in window order, in memory
 *		wjoin_buckets_row_slot	such a row in a slot
 *		wjoin_buckets_next_sorted	the next row in window order, sorted
 *		wjoin_buckets_restore	put a row's derived columns back
 *		wjoin_buckets_reset		drop every row (rescan)
 *		wjoin_buckets_explain	the EXPLAIN lines of both sides' buckets
 *		wjoin_buckets_end		release the tuplesort
 *
 * ALGORITHM
 *
 * GROUP mode only needs the rows of one window together, windows in
 * ascending order; the order within a window does not matter.  A TUMBLE
 * input has few windows for its rows (a day of five-minute windows is 288),
 * so instead of sorting n rows the node distributes them: a simplehash
 * table maps each window value to its bucket, and the row's MinimalTuple is
 * copied or formed (minimal_tuple.h) at the end of its bucket's chain of
 * chunks, after the hash of its equality keys (computed from the input's
 * slot as it comes in: the join need not deform the row again to find it).
 * When the input ends the buckets (not the rows) are sorted by window, rows
 * whose window is NULL first, and the rows are returned bucket by bucket,
 * chunk by chunk, with their hash (wjoin_buckets_next_row).  A window's
 * rows are thus contiguous in memory when the join reads them, where a sort
 * leaves them scattered.  Chunks are carved from slabs that grow with the
 * input (huge_pages.h: on huge pages from 8 MB of rows on),
 * chunk sizes doubling per bucket, so that small inputs and a thousand
 * small windows stay small.  While a bucket fills, the free space of its
 * last chunk is kept in the bucket, so that a row touches no chunk header.
 *
 * Columns the executor computes from the window value (a TUMBLE input's
 * window_start and window_end: window_join_plan.c's derived columns) are
 * stored as NULL, a bit and no bytes, and put back from the row's window
 * (wjoin_buckets_restore) into the scan tuple the executor reads it in.
 *
 * MEMORY
 *
 * The rows are held until the side has been read, as the Sort it replaces
 * would hold them, within work_mem (the Sort's budget) at run time,
 * whatever the planner estimated.  Past it the rows move into a tuplesort
 * (tuplesort_begin_heap, which spills to temporary files within work_mem):
 * every row so far, then the rest of the input, each row with its window
 * value as one extra column, the sort key.  The rows then come out of the
 * tuplesort in the same order, in a slot (wjoin_buckets_next_sorted), with
 * that extra last column, which the join ignores (it reads the side's own
 * columns only), and the join copies them as it copies a sorted input's.  EXPLAIN ANALYZE shows
 * per side the windows and the memory of the buckets, or that the side was
 * sorted.
 *
 * src/nodes/window_join/window_join_buckets.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/tupdesc.h"
#include "catalog/pg_type.h"
#include "commands/explain.h"
#include "common/hashfn.h"
#include "miscadmin.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/tuplesort.h"
#include "catalog/pg_operator.h"

#include "src/common/huge_pages.h"
#include "src/common/minimal_tuple.h"
#include "src/common/window_arith.h"
#include "src/nodes/window_join/window_join_internal.h"

/* chunk sizes of a bucket: doubling from the first to the last */
#define WJB_FIRST_CHUNK		((Size) 1024)
#define WJB_LAST_CHUNK		((Size) 64 * 1024)
/* slabs the chunks are carved from: growing from the first to WJB_SLAB */
#define WJB_FIRST_SLAB		((Size) 16 * 1024)
#define WJB_SLAB			((Size) 1024 * 1024)
#define WJB_HUGE_SLAB		((Size) 16 * 1024 * 1024)

/*
 * A piece of a bucket's chain: rows, each a WjBucketRow and its MinimalTuple
 * (WJB_ROW_TUPLE), MAXALIGNed
 */
typedef struct WjbChunk
{
	struct WjbChunk *next;
	Size		used;			/* bytes of data in use (of a bucket's tail:
								 * set when it is closed, close_tails) */
	Size		size;			/* bytes of data */
	char		data[FLEXIBLE_ARRAY_MEMBER];
} WjbChunk;

#define WJB_CHUNK_HEADER	MAXALIGN(offsetof(WjbChunk, data))

/* rows are written at chunk->data + a MAXALIGNed offset */
StaticAssertDecl(offsetof(WjbChunk, data) == WJB_CHUNK_HEADER,
				 "bucket chunk data must be MAXALIGNed");

/* A row in a bucket (WjBucketRow, window_join.h): its tuple, its bytes */
#define WJB_ROW_TUPLE(row)	((MinimalTuple) ((char *) (row) + WJ_BUCKET_ROW_HEADER))
#define WJB_ROW_SIZE(row)	MAXALIGN(WJ_BUCKET_ROW_HEADER + WJB_ROW_TUPLE(row)->t_len)

/*
 * One window's rows.  While rows come in, the free space of the tail chunk
 * is kept here (free, end) rather than in the chunk's header: a row is then
 * written touching only this array and the tail itself, not a header line
 * in another part of memory for every row.
 */
typedef struct WjbBucket
{
	int64		window;
	bool		isnull;			/* the rows without a window value */
	Size		next_size;		/* size of its next chunk */
	WjbChunk   *head;
	WjbChunk   *tail;
	char	   *free;			/* free space of the tail */
	char	   *end;
} WjbBucket;

/* window value -> index of its bucket */
typedef struct WjbEntry
{
	int64		window;
	uint32		bucket;
	char		status;
} WjbEntry;

#define SH_PREFIX		wjb
#define SH_ELEMENT_TYPE	WjbEntry
#define SH_KEY_TYPE		int64
#define SH_KEY			window
#define SH_HASH_KEY(tb, key)	murmurhash32((uint32) (key) ^ (uint32) ((uint64) (key) >> 32))
#define SH_EQUAL(tb, a, b)		((a) == (b))
#define SH_SCOPE		static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

/* What EXPLAIN ANALYZE shows of a side's buckets (the largest of any scan) */
typedef struct WjBucketsInstr
{
	int64		rows;			/* rows grouped */
	int			windows;		/* buckets */
	int64		bytes;			/* memory of the buckets */
	bool		sorted;			/* went past work_mem: sorted instead */
} WjBucketsInstr;

struct WjBuckets
{
	MemoryContext cxt;			/* the buckets' own; reset drops every row */
	MemoryContext parent;
	TupleDesc	desc;			/* the side's rows */
	/* derived columns (none: dropped is NULL) */
	bool	   *dropped;		/* per column: stored as NULL */
	bool	   *nulls;			/* a row's isnull with them set */
	int			nderived;
	int		   *derived_col;	/* their positions */
	int64	   *derived_add;	/* each is the window value + this */
	Datum	   *derived_values; /* their values for derived_window */
	int64		derived_window;
	bool		derived_valid;
	TupleDesc	sort_desc;		/* the same plus the window value */
	Size		limit;			/* work_mem, in bytes */
	int			sort_mem;		/* work_mem, in kB, for the tuplesort */
	/* filling */
	wjb_hash   *map;
	WjbBucket  *buckets;
	int			nbuckets;
	int			maxbuckets;
	int			null_bucket;	/* index, or -1 */
	int			last;			/* bucket of the previous row, or -1 */
	char	   *slab_next;		/* free space of the current slab */
	char	   *slab_end;
	Size		allocated;		/* bytes of slabs and arrays */
	int64		rows;
	/* reading */
	bool		done;
	int			cur;			/* position in order[] */
	int		   *order;			/* bucket indexes in window order */
	WjbChunk   *chunk;
	Size		off;
	TupleTableSlot *slot;		/* rows out of the buckets */
	/* past work_mem */
	Tuplesortstate *sort;
	TupleTableSlot *sort_in;	/* virtual, sort_desc */
	TupleTableSlot *sort_out;	/* minimal, sort_desc */
	/* for EXPLAIN ANALYZE: the largest figures of any scan */
	WjBucketsInstr instr;
};

/*
 * wjoin_buckets_create
 *		Buckets for the rows of desc, within work_mem, in a context of their
 *		own under parent.  derived lists the columns (0-based) to store as
 *		NULL, whose value is the window value + steps[i] * size (an interval
 *		Const), for wjoin_buckets_restore to put back.
 */
WjBuckets *
wjoin_buckets_create(TupleDesc desc, List *derived, List *steps, Const *size,
					 MemoryContext parent)
{
	WjBuckets  *b = MemoryContextAllocZero(parent, sizeof(WjBuckets));
	MemoryContext oldcxt = MemoryContextSwitchTo(parent);
	int			natts = desc->natts;

	b->parent = parent;
	b->desc = desc;
	b->sort_desc = CreateTemplateTupleDesc(natts + 1);
	TupleDescCopy(b->sort_desc, desc);
	b->sort_desc->natts = natts + 1;
	TupleDescInitEntry(b->sort_desc, (AttrNumber) (natts + 1), "window",
					   INT8OID, -1, 0);
	b->nderived = list_length(derived);
	if (b->nderived > 0)
	{
		int64		usecs;
		ListCell   *lc1,
				   *lc2;
		int			i = 0;

		if (size == NULL)
			elog(ERROR, "window join derived columns without a window size");
		usecs = wj_interval_duration(DatumGetIntervalP(size->constvalue), "size");
		b->dropped = palloc0(sizeof(bool) * natts);
		b->nulls = palloc(sizeof(bool) * natts);
		b->derived_col = palloc(sizeof(int) * b->nderived);
		b->derived_add = palloc(sizeof(int64) * b->nderived);
		b->derived_values = palloc(sizeof(Datum) * b->nderived);
		forboth(lc1, derived, lc2, steps)
		{
			int			col = lfirst_int(lc1);

			if (col < 0 || col >= natts)
				elog(ERROR, "window join derived column %d out of range", col);
			b->dropped[col] = true;
			b->derived_col[i] = col;
			b->derived_add[i] = (int64) lfirst_int(lc2) * usecs;
			i++;
		}
	}
	b->sort_mem = work_mem;
	b->limit = (Size) work_mem * 1024;
	b->slot = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
	b->sort_in = MakeSingleTupleTableSlot(b->sort_desc, &TTSOpsVirtual);
	b->sort_out = MakeSingleTupleTableSlot(b->sort_desc, &TTSOpsMinimalTuple);
	b->cxt = AllocSetContextCreate(parent, "WindowJoin buckets",
								   ALLOCSET_DEFAULT_SIZES);
	MemoryContextSwitchTo(oldcxt);
	wjoin_buckets_reset(b);
	return b;
}

/*
 * wjoin_buckets_reset
 *		Drop every row, for a new scan of the input.
 */
void
wjoin_buckets_reset(WjBuckets *b)
{
	if (b->sort != NULL)
		tuplesort_end(b->sort);
	b->sort = NULL;
	ExecClearTuple(b->slot);
	ExecClearTuple(b->sort_out);
	MemoryContextReset(b->cxt);
	b->maxbuckets = 64;
	b->buckets = MemoryContextAlloc(b->cxt, sizeof(WjbBucket) * b->maxbuckets);
	b->map = wjb_create(b->cxt, 64, NULL);
	b->nbuckets = 0;
	b->null_bucket = -1;
	b->last = -1;
	b->slab_next = b->slab_end = NULL;
	b->allocated = sizeof(WjbBucket) * b->maxbuckets +
		sizeof(WjbEntry) * b->map->size;
	b->rows = 0;
	b->done = false;
	b->order = NULL;
	b->cur = 0;
	b->chunk = NULL;
	b->off = 0;
}

/*
 * bucket_for
 *		The index of the bucket of a window value (NULL: isnull), made if new.
 */
static int
bucket_for(WjBuckets *b, int64 window, bool isnull)
{
	WjbBucket  *bucket;
	WjbEntry   *entry = NULL;
	bool		found;

	if (b->last >= 0 && b->buckets[b->last].isnull == isnull &&
		(isnull || b->buckets[b->last].window == window))
		return b->last;
	if (isnull)
	{
		if (b->null_bucket >= 0)
			return b->last = b->null_bucket;
	}
	else
	{
		Size		before = b->map->size;

		entry = wjb_insert(b->map, window, &found);
		if (b->map->size != before)
			b->allocated += sizeof(WjbEntry) * (b->map->size - before);
		if (found)
			return b->last = (int) entry->bucket;
	}

	if (b->nbuckets == b->maxbuckets)
	{
		b->allocated += sizeof(WjbBucket) * b->maxbuckets;
		b->maxbuckets *= 2;
		b->buckets = repalloc_huge(b->buckets, sizeof(WjbBucket) * b->maxbuckets);
	}
	bucket = &b->buckets[b->nbuckets];
	memset(bucket, 0, sizeof(WjbBucket));
	bucket->window = window;
	bucket->isnull = isnull;
	bucket->next_size = WJB_FIRST_CHUNK;
	if (isnull)
		b->null_bucket = b->nbuckets;
	else
		entry->bucket = (uint32) b->nbuckets;
	return b->last = b->nbuckets++;
}

/*
 * new_chunk
 *		A chunk of at least need bytes of data at the end of a bucket's
 *		chain, carved from the current slab or a new one.
 */
static WjbChunk *
new_chunk(WjBuckets *b, WjbBucket *bucket, Size need)
{
	Size		size = Max(bucket->next_size, need);
	Size		bytes = WJB_CHUNK_HEADER + MAXALIGN(size);
	WjbChunk   *chunk;

	if (b->slab_next == NULL || (Size) (b->slab_end - b->slab_next) < bytes)
	{
		Size		slab;

		/*
		 * Slabs grow with the rows: from an eighth of what is allocated
		 * (so a small input takes little) up to WJB_SLAB, then huge pages
		 * for large inputs if a slab cannot overshoot the limit much.
		 */
		slab = Min(WJB_SLAB, Max(WJB_FIRST_SLAB, b->allocated / 8));
		if (b->allocated >= WJ_HUGE_PAGE_MIN && b->limit >= 8 * WJB_HUGE_SLAB)
			slab = WJB_HUGE_SLAB;
		slab = Max(slab, bytes);
		b->slab_next = wj_alloc_huge(b->cxt, slab, false);
		b->slab_end = b->slab_next + slab;
		b->allocated += slab;
	}
	chunk = (WjbChunk *) b->slab_next;
	b->slab_next += bytes;
	chunk->next = NULL;
	chunk->used = 0;
	chunk->size = MAXALIGN(size);
	if (bucket->tail)
	{
		bucket->tail->used = bucket->free - bucket->tail->data;
		bucket->tail->next = chunk;
	}
	else
		bucket->head = chunk;
	bucket->tail = chunk;
	bucket->free = chunk->data;
	bucket->end = chunk->data + chunk->size;
	bucket->next_size = Min(bucket->next_size * 2, WJB_LAST_CHUNK);
	return chunk;
}

/*
 * close_tails
 *		Record in each bucket's tail chunk how much of it is in use, for
 *		reading the chunks (new_chunk does it for the chunks before).
 */
static void
close_tails(WjBuckets *b)
{
	int			i;

	for (i = 0; i < b->nbuckets; i++)
	{
		WjbBucket  *bucket = &b->buckets[i];

		if (bucket->tail != NULL)
			bucket->tail->used = bucket->free - bucket->tail->data;
	}
}

/*
 * sort_put
 *		Put one row and its window value into the tuplesort.
 */
static void
sort_put(WjBuckets *b, TupleTableSlot *slot, int64 window, bool isnull)
{
	TupleTableSlot *in = b->sort_in;
	int			natts = b->desc->natts;

	ExecClearTuple(in);
	slot_getallattrs(slot);
	memcpy(in->tts_values, slot->tts_values, sizeof(Datum) * natts);
	memcpy(in->tts_isnull, slot->tts_isnull, sizeof(bool) * natts);
	if (b->dropped != NULL)
	{
		int			i;

		for (i = 0; i < natts; i++)
			in->tts_isnull[i] |= b->dropped[i];
	}
	in->tts_values[natts] = Int64GetDatum(window);
	in->tts_isnull[natts] = isnull;
	ExecStoreVirtualTuple(in);
	tuplesort_puttupleslot(b->sort, in);
}

/*
 * start_sort
 *		Past work_mem: move every row so far into a tuplesort by window
 *		value (NULLs first, as the buckets return them) and free the
 *		buckets.
 */
static void
start_sort(WjBuckets *b)
{
	AttrNumber	attno = (AttrNumber) (b->desc->natts + 1);
	Oid			sortop = Int8LessOperator;
	Oid			coll = InvalidOid;
	bool		nulls_first = true;
	MemoryContext oldcxt = MemoryContextSwitchTo(b->parent);
	int			i;

	b->sort = tuplesort_begin_heap(b->sort_desc, 1, &attno, &sortop, &coll,
								   &nulls_first, b->sort_mem, NULL,
								   TUPLESORT_NONE);
	MemoryContextSwitchTo(oldcxt);
	close_tails(b);
	for (i = 0; i < b->nbuckets; i++)
	{
		WjbBucket  *bucket = &b->buckets[i];
		WjbChunk   *chunk;

		for (chunk = bucket->head; chunk != NULL; chunk = chunk->next)
		{
			Size		off = 0;

			while (off < chunk->used)
			{
				WjBucketRow *row = (WjBucketRow *) (chunk->data + off);

				CHECK_FOR_INTERRUPTS();
				ExecStoreMinimalTuple(WJB_ROW_TUPLE(row), b->slot, false);
				sort_put(b, b->slot, bucket->window, bucket->isnull);
				off += WJB_ROW_SIZE(row);
			}
		}
	}
	ExecClearTuple(b->slot);
	b->instr.sorted = true;
	b->instr.windows = Max(b->instr.windows, b->nbuckets);
	b->instr.bytes = Max(b->instr.bytes, (int64) b->allocated);
	MemoryContextReset(b->cxt);
	b->buckets = NULL;
	b->map = NULL;
	b->nbuckets = 0;
	b->null_bucket = -1;
	b->last = -1;
	b->slab_next = b->slab_end = NULL;
}

/*
 * wjoin_buckets_put
 *		Add one input row (any slot of the side's row type) to the bucket
 *		of its window value; isnull for a row without one.  hash and
 *		hashnull are its equality keys', kept with it in memory (not in
 *		the sort past work_mem: the join computes them again from there).
 */
void
wjoin_buckets_put(WjBuckets *b, TupleTableSlot *slot, int64 window,
				  bool isnull, uint32 hash, bool hashnull)
{
	WjbBucket  *bucket;
	WjMinimalForm form;
	Size		len;
	WjBucketRow *row;
	int			i;

	Assert(!b->done);
	b->rows++;
	if (b->sort != NULL)
	{
		sort_put(b, slot, window, isnull);
		return;
	}

	i = bucket_for(b, window, isnull);	/* may move b->buckets */
	bucket = &b->buckets[i];

	/*
	 * The row is copied (a tuple's slot) or formed (a projection's, or any
	 * row with columns to drop) straight into the chunk.
	 */
	if (b->dropped != NULL)
	{
		int			natts = slot->tts_tupleDescriptor->natts;

		slot_getallattrs(slot);
		for (i = 0; i < natts; i++)
			b->nulls[i] = slot->tts_isnull[i] || b->dropped[i];
	}
	len = MAXALIGN(WJ_BUCKET_ROW_HEADER +
				   wj_minimal_prepare(slot,
									  b->dropped != NULL ? b->nulls : NULL,
									  &form));
	if ((Size) (bucket->end - bucket->free) < len)
		new_chunk(b, bucket, len);
	row = (WjBucketRow *) bucket->free;
	wj_minimal_write(slot, &form, WJB_ROW_TUPLE(row));
	row->hash = hash;
	row->hashnull = hashnull;
	bucket->free += len;

	if (b->allocated > b->limit)
		start_sort(b);
}

/*
 * compare_buckets
 *		qsort comparator of bucket indexes: the NULL bucket first, then by
 *		window value.
 */
static int
compare_buckets(const void *a, const void *b, void *arg)
{
	WjbBucket  *buckets = (WjbBucket *) arg;
	WjbBucket  *x = &buckets[*(const int *) a];
	WjbBucket  *y = &buckets[*(const int *) b];

	if (x->isnull != y->isnull)
		return x->isnull ? -1 : 1;
	if (x->window != y->window)
		return x->window < y->window ? -1 : 1;
	return 0;
}

/*
 * wjoin_buckets_done
 *		The input has ended: put the buckets in window order (or finish the
 *		sort) for wjoin_buckets_next.
 */
void
wjoin_buckets_done(WjBuckets *b)
{
	int			i;

	b->done = true;
	b->instr.rows = Max(b->instr.rows, b->rows);
	if (b->sort != NULL)
	{
		tuplesort_performsort(b->sort);
		return;
	}
	close_tails(b);
	b->order = MemoryContextAlloc(b->cxt, sizeof(int) * Max(b->nbuckets, 1));
	for (i = 0; i < b->nbuckets; i++)
		b->order[i] = i;
	qsort_arg(b->order, b->nbuckets, sizeof(int), compare_buckets, b->buckets);
	b->cur = 0;
	b->chunk = b->nbuckets > 0 ? b->buckets[b->order[0]].head : NULL;
	b->off = 0;
	b->instr.windows = Max(b->instr.windows, b->nbuckets);
	b->instr.bytes = Max(b->instr.bytes, (int64) b->allocated);
}

/*
 * wjoin_buckets_sorted
 *		Did the rows go past work_mem into the tuplesort (read them with
 *		wjoin_buckets_next_sorted), or are they in the buckets
 *		(wjoin_buckets_next_row)?  Valid once wjoin_buckets_done is called.
 */
bool
wjoin_buckets_sorted(WjBuckets *b)
{
	Assert(b->done);
	return b->sort != NULL;
}

/*
 * wjoin_buckets_next_row
 *		The next row in window order, where it lies in its bucket, its
 *		window value (isnull: it has none) and its key hash (as put), or
 *		NULL at the end.  The row stays valid until the buckets are reset.
 */
MinimalTuple
wjoin_buckets_next_row(WjBuckets *b, int64 *window, bool *isnull,
					   uint32 *hash, bool *hashnull)
{
	Assert(b->done && b->sort == NULL);
	for (;;)
	{
		WjbChunk   *chunk = b->chunk;

		if (chunk != NULL && b->off < chunk->used)
		{
			WjBucketRow *row = (WjBucketRow *) (chunk->data + b->off);
			WjbBucket  *bucket = &b->buckets[b->order[b->cur]];

			b->off += WJB_ROW_SIZE(row);
			*window = bucket->window;
			*isnull = bucket->isnull;
			*hash = row->hash;
			*hashnull = row->hashnull;
			return WJB_ROW_TUPLE(row);
		}
		if (chunk != NULL && chunk->next != NULL)
		{
			b->chunk = chunk->next;
			b->off = 0;
			continue;
		}
		/* the next window */
		if (b->cur + 1 >= b->nbuckets)
		{
			b->chunk = NULL;
			return NULL;
		}
		b->cur++;
		b->chunk = b->buckets[b->order[b->cur]].head;
		b->off = 0;
	}
}

/*
 * wjoin_buckets_row_slot
 *		A row of wjoin_buckets_next_row in a slot of the side's row type
 *		(its derived columns NULL), valid until the next call.
 */
TupleTableSlot *
wjoin_buckets_row_slot(WjBuckets *b, MinimalTuple tuple)
{
	return ExecStoreMinimalTuple(tuple, b->slot, false);
}

/*
 * wjoin_buckets_next_sorted
 *		Past work_mem: the next row in window order out of the tuplesort, and
 *		its window value (isnull: it has none), or NULL at the end.  The
 *		slot's tuple stays valid until the next call.
 */
TupleTableSlot *
wjoin_buckets_next_sorted(WjBuckets *b, int64 *window, bool *isnull)
{
	int			natts = b->desc->natts;

	Assert(b->done && b->sort != NULL);
	if (!tuplesort_gettupleslot(b->sort, true, false, b->sort_out, NULL))
		return NULL;
	slot_getallattrs(b->sort_out);
	*window = DatumGetInt64(b->sort_out->tts_values[natts]);
	*isnull = b->sort_out->tts_isnull[natts];
	return b->sort_out;
}

/*
 * wjoin_buckets_restore
 *		Put the derived columns of a row of window value window, stored as
 *		NULL, into values/isnull: the row's columns as the executor holds
 *		them (deformed from the row).
 */
void
wjoin_buckets_restore(WjBuckets *b, int64 window, Datum *values, bool *isnull)
{
	int			i;

	if (b->nderived == 0)
		return;
	/* the rows of a window come together: compute its values once */
	if (!b->derived_valid || b->derived_window != window)
	{
		for (i = 0; i < b->nderived; i++)
			b->derived_values[i] =
				Int64GetDatum(wj_timestamp_add(window, b->derived_add[i]));
		b->derived_window = window;
		b->derived_valid = true;
	}
	for (i = 0; i < b->nderived; i++)
	{
		values[b->derived_col[i]] = b->derived_values[i];
		isnull[b->derived_col[i]] = false;
	}
}

/*
 * explain_side
 *		Under ANALYZE, what one side's buckets held (this process's largest
 *		figures), if it grouped any row.
 */
static void
explain_side(const char *label, WjBuckets *b, ExplainState *es)
{
	if (b == NULL || !es->analyze || b->instr.rows == 0)
		return;
	if (b->instr.sorted)
		ExplainPropertyText(label,
							psprintf("sorted past work_mem (" INT64_FORMAT " rows)",
									 b->instr.rows), es);
	else
		ExplainPropertyText(label,
							psprintf("%d windows, " INT64_FORMAT " rows, " INT64_FORMAT "kB",
									 b->instr.windows, b->instr.rows,
									 (b->instr.bytes + 1023) / 1024), es);
}

/*
 * wjoin_buckets_explain
 *		Which inputs are grouped by window in the node rather than sorted
 *		below it (outer, inner: their buckets or NULL), and (ANALYZE) what
 *		their buckets held.
 */
void
wjoin_buckets_explain(WjBuckets *outer, WjBuckets *inner, ExplainState *es)
{
	if (outer == NULL && inner == NULL)
		return;
	ExplainPropertyText("Grouped by Window",
						outer && inner ? "outer, inner" : outer ? "outer" : "inner",
						es);
	explain_side("Outer Buckets", outer, es);
	explain_side("Inner Buckets", inner, es);
}

/*
 * wjoin_buckets_end
 *		Release the tuplesort, if any (the memory goes with the context).
 */
void
wjoin_buckets_end(WjBuckets *b)
{
	if (b->sort != NULL)
		tuplesort_end(b->sort);
	b->sort = NULL;
}
