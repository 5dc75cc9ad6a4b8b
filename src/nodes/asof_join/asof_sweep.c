/*-------------------------------------------------------------------------
 *
 * asof_sweep.c
 *	  The sweep strategy of the AsOfJoin custom scan (see asof_exec.c for
 *	  the node and its other strategies), and its batches on disk.
 *
 * Both children arrive sorted by time alone (descending when looking
 * forward), the inner one also by its output columns as tie breakers.
 * Before each outer row (time t) every version with time <= t (>= t
 * forward; strict for < and >) is read and becomes the current version of
 * its key in a TupleHashTable; then the outer keys are looked up.  The
 * state is one version per key seen so far.  Among versions tied on (keys,
 * time) the last one read wins.  Outer rows whose shifted time is out of
 * range are set aside and answered at the end (asof_next_deferred).
 *
 * The state (AsOfSweepState) is the table of current versions, the rows
 * set aside and the batches.  The lookup strategy falls back to a sweep
 * of its own (asof_sweep_begin_in, asof_sweep.h): in the lookup's table,
 * over the outer rows the lookup sorted by time.
 *
 * Batches.  The state is bounded by work_mem * hash_mem_multiplier, the
 * memory of a Hash Join's table, at run time, whatever the planner
 * estimated; the design is the hybrid hash join's.  When the table grows
 * beyond its share of that limit, the keys are partitioned by bits of
 * their hash: the keys of part 0 stay in memory, each other part becomes
 * a batch, a temporary file (BufFile).  The current versions of the keys
 * that leave are written to their batch's file, and from then on every
 * row of such a key goes to that file instead of being processed: an
 * inner row (a version) as it is read, an outer row when its turn comes
 * (after the versions up to its time were read).  A batch's file is thus
 * the sweep itself, restricted to its keys and with its versions and outer
 * rows already interleaved in time order; no time comparison is needed to
 * replay it.  After the inputs end, each batch is replayed in turn into an
 * empty table: a version becomes the current version of its key, an outer
 * row is looked up and returned.  A batch whose keys still do not fit is
 * split again the same way while it is replayed (its new batches use the
 * next bits of the hash).
 *
 * A batch is the set of keys whose hash (remixed, so that its bits are not
 * the ones the table's buckets use) has given low bits: "bits" of them
 * equal to "residue".  Splitting the keys in memory into F = 2^f parts
 * takes the next f bits; the part whose bits are zero stays in memory, so
 * the memory's residue never changes and only its bit count grows.  A row
 * is routed by looking at each split of the current batch in turn.  The
 * fan-out F is chosen from the part of the input read so far (planner
 * estimate of the inner rows for the inputs, the record count for a
 * batch), at least 2 and at most as many 8 kB file buffers as a quarter of
 * the limit holds; the table may use the limit less the buffers of the
 * open files (at least a quarter of it).  Batches are replayed last made,
 * first replayed, which keeps few files open.  One version is never
 * split (a key's state is one row); a split that moves no key is tried
 * again only once twice as many keys are in memory.
 *
 * Output order: outer rows of batches come after the others, so the sweep
 * promises no order (the planner gives its path no pathkeys).  The outer
 * rows set aside for a shifted time are checked in the batch that holds
 * their key's final state and returned at the very end.
 *
 * src/nodes/asof_join/asof_sweep.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "commands/tablespace.h"
#include "common/hashfn.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "storage/buffile.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

#include "src/nodes/asof_join/asof_exec_internal.h"
#include "src/nodes/asof_join/asof_sweep.h"
#include "src/common/explain_common.h"
#include "src/common/pg_compat.h"

/* Kinds of records in a batch file */
#define ASOF_REC_VERSION	1	/* an inner row: becomes its key's version */
#define ASOF_REC_OUTER		2	/* an outer row: looked up and returned */

/* Hash bits a batch may use at most */
#define ASOF_MAX_BITS		30

/* Fan-out of one split: at least 2, at most this */
#define ASOF_MAX_FANOUT_BITS	8

/* What a record starts with; its MinimalTuple follows */
typedef struct AsOfRecHeader
{
	uint32		hash;			/* the key's hash in the table */
	uint32		kind;			/* ASOF_REC_* */
} AsOfRecHeader;

/* A batch: the keys whose remixed hash has the given low bits */
typedef struct AsOfBatch
{
	BufFile    *file;
	int			bits;
	uint32		residue;
	int			depth;			/* 1: made while reading the inputs */
	int64		nrecords;
} AsOfBatch;

/* A split of the keys in memory: part i of bits [shift, shift + f) */
typedef struct AsOfSplit
{
	int			shift;
	int			f;
	AsOfBatch **parts;			/* 1 << f; parts[0] (memory) unused */
} AsOfSplit;

typedef enum AsOfSpillPhase
{
	ASOF_PHASE_INPUT,			/* reading the children */
	ASOF_PHASE_BATCHES,			/* replaying batches */
	ASOF_PHASE_DEFERRED,		/* returning the rows set aside */
	ASOF_PHASE_DONE
} AsOfSpillPhase;

typedef struct AsOfSpill
{
	MemoryContext cxt;			/* this, the files, the read buffer */
	size_t		limit;			/* work_mem * hash_mem_multiplier */
	bool		active;			/* some keys are in batches */
	bool		can_split;		/* more hash bits are left */
	double		retry_members;	/* keys in memory before splitting again */
	AsOfSpillPhase phase;

	/* the keys in memory: a batch being read, or the inputs' part */
	AsOfBatch  *cur;			/* NULL while reading the inputs */
	int			cur_bits;
	uint32		cur_residue;
	int			cur_depth;
	int64		cur_total;		/* records (or inner rows) expected */
	int64		cur_read;		/* and read so far */
	AsOfSplit	splits[ASOF_MAX_BITS];
	int			nsplits;

	AsOfBatch **pending;		/* a stack of batches to replay */
	int			npending;
	int			maxpending;
	int			nopen;			/* files open (pending and current) */

	TupleTableSlot *inner_slot; /* a version read back */
	TupleTableSlot *outer_slot; /* an outer row read back */
	TupleDesc	outer_desc;
	char	   *buf;			/* the record read last */
	Size		buflen;

	/* EXPLAIN ANALYZE, over all scans */
	int64		nbatches;		/* batches made */
	int			max_depth;
	int64		disk_bytes;		/* written to temporary files */
} AsOfSpill;

/* The sweep strategy's state */
typedef struct AsOfSweepState
{
	AsOfKeyTable *table;		/* the current version of every key seen */
	bool		owns_table;		/* false: the lookup's, which it resets */
	AsOfOuterSort *sorted;		/* the lookup's sort of the outer rows, or
								 * NULL: the outer child */
	Tuplestorestate *deferred;	/* outer rows set aside (shifted time) */
	TupleTableSlot *deferred_slot;
	bool		drained;		/* every inner row read */
	AsOfSpill  *spill;			/* keys in batches on disk */
	bool		row_spilled;	/* the outer row went to a batch */
} AsOfSweepState;

static void asof_spill_split(AsOfJoinState *s, AsOfSweepState *sw);

/*
 * asof_spill_get
 *		The sweep's spill state, made at its first use.
 */
static AsOfSpill *
asof_spill_get(AsOfJoinState *s, AsOfSweepState *sw)
{
	AsOfSpill  *sp = sw->spill;
	MemoryContext cxt;
	MemoryContext oldcxt;

	if (sp != NULL)
		return sp;
	cxt = AllocSetContextCreate(s->css.ss.ps.state->es_query_cxt,
								"AsOfJoin batches", ALLOCSET_DEFAULT_SIZES);
	oldcxt = MemoryContextSwitchTo(cxt);
	sp = palloc0(sizeof(AsOfSpill));
	sp->cxt = cxt;
	sp->limit = get_hash_memory_limit();
	sp->can_split = true;
	sp->phase = ASOF_PHASE_INPUT;
	sp->cur_total = (int64) Min(s->inner_ps->plan->plan_rows,
								(double) PG_INT64_MAX / 2);
	sp->outer_desc = CreateTupleDescCopy(ExecGetResultType(s->outer_ps));
	sp->inner_slot = MakeSingleTupleTableSlot(ExecGetResultType(s->inner_ps),
											  &TTSOpsMinimalTuple);
	sp->outer_slot = MakeSingleTupleTableSlot(sp->outer_desc,
											  &TTSOpsMinimalTuple);
	sp->maxpending = 16;
	sp->pending = palloc(sizeof(AsOfBatch *) * sp->maxpending);
	MemoryContextSwitchTo(oldcxt);
	sw->spill = sp;
	return sp;
}

/* The remixed hash whose low bits choose a batch */
static inline uint32
asof_batch_hash(uint32 hash)
{
	return murmurhash32(hash ^ 0x9e3779b9);
}

/* Mask of the low "bits" bits */
static inline uint32
asof_bits_mask(int bits)
{
	return bits >= 32 ? 0xFFFFFFFF : (((uint32) 1) << bits) - 1;
}

/*
 * asof_spill_route
 *		The batch a key of the current batch (or of the inputs) goes to, or
 *		NULL if it stays in memory.
 */
static inline AsOfBatch *
asof_spill_route(AsOfSpill *sp, uint32 hash)
{
	uint32		hb;
	int			i;

	if (!sp->active)
		return NULL;
	hb = asof_batch_hash(hash);
	for (i = 0; i < sp->nsplits; i++)
	{
		AsOfSplit  *split = &sp->splits[i];
		uint32		part = (hb >> split->shift) & asof_bits_mask(split->f);

		if (part != 0)
			return split->parts[part];
	}
	return NULL;
}

/* Is the key's final state in memory now (not in some other batch)? */
static inline bool
asof_spill_in_memory(AsOfSpill *sp, uint32 hash)
{
	return (asof_batch_hash(hash) & asof_bits_mask(sp->cur_bits)) ==
		sp->cur_residue;
}

/*
 * asof_spill_write
 *		Append a record to a batch's file.
 */
static void
asof_spill_write(AsOfSpill *sp, AsOfBatch *batch, uint32 kind, uint32 hash,
				 MinimalTuple tuple)
{
	AsOfRecHeader hdr;

	hdr.hash = hash;
	hdr.kind = kind;
	BufFileWrite(batch->file, &hdr, sizeof(hdr));
	BufFileWrite(batch->file, tuple, tuple->t_len);
	batch->nrecords++;
	sp->disk_bytes += sizeof(hdr) + tuple->t_len;
}

/*
 * asof_spill_read
 *		Read the next record of a file into sp->buf: false at its end.
 */
static bool
asof_spill_read(AsOfSpill *sp, BufFile *file, AsOfRecHeader *hdr)
{
	size_t		n;
	uint32		len;

	n = BufFileRead(file, hdr, sizeof(AsOfRecHeader));
	if (n == 0)
		return false;
	if (n != sizeof(AsOfRecHeader) ||
		BufFileRead(file, &len, sizeof(uint32)) != sizeof(uint32))
		ereport(ERROR,
				errcode_for_file_access(),
				errmsg("could not read from AsOfJoin temporary file: %m"));
	if (len < sizeof(uint32) + MINIMAL_TUPLE_DATA_OFFSET)
		elog(ERROR, "AsOfJoin temporary file holds a record of %u bytes", len);
	if (len > sp->buflen)
	{
		Size		newlen = Max(len, 2 * sp->buflen);

		newlen = Max(newlen, 1024);
		if (sp->buf != NULL)
			pfree(sp->buf);
		sp->buf = MemoryContextAlloc(sp->cxt, newlen);
		sp->buflen = newlen;
	}
	memcpy(sp->buf, &len, sizeof(uint32));
	if (BufFileRead(file, sp->buf + sizeof(uint32), len - sizeof(uint32)) !=
		len - sizeof(uint32))
		ereport(ERROR,
				errcode_for_file_access(),
				errmsg("could not read from AsOfJoin temporary file: %m"));
	return true;
}

/*
 * asof_spill_table_limit
 *		The bytes the table may take: the limit less the buffers of the
 *		open files, at least a quarter of the limit.
 */
static inline size_t
asof_spill_table_limit(AsOfJoinState *s, AsOfSweepState *sw)
{
	AsOfSpill  *sp = sw->spill;
	size_t		buffers = (size_t) sp->nopen * (BLCKSZ + 64);

	if (buffers > sp->limit - sp->limit / 4)
		return sp->limit / 4;
	return sp->limit - buffers;
}

/*
 * asof_table_put
 *		Make the inner row the current version of its key (its key slot and
 *		hash given) in the table.
 */
static void
asof_table_put(AsOfJoinState *s, AsOfSweepState *sw, TupleTableSlot *inner,
			   TupleTableSlot *keyslot, uint32 hash)
{
	TupleHashEntry entry;
	MemoryContext oldcxt;
	MinimalTuple old;
	MinimalTuple copy;
	bool		isnew;

	entry = LookupTupleHashEntryHash(sw->table->hashtable, keyslot, &isnew, hash);

	oldcxt = MemoryContextSwitchTo(sw->table->hashcxt);
	copy = ExecCopySlotMinimalTuple(inner);
	MemoryContextSwitchTo(oldcxt);

	old = isnew ? NULL : (MinimalTuple) wj_tuplehash_get(sw->table->hashtable, entry);
	if (old != NULL)
	{
		wj_state_remove(&s->stats, old->t_len);
		pfree(old);
	}
	wj_tuplehash_set(sw->table->hashtable, entry, copy);
	wj_state_add(&s->stats, copy->t_len);
}

/*
 * asof_inner_key_slot
 *		The key slot of an inner row (keys never NULL here).
 */
static TupleTableSlot *
asof_inner_key_slot(AsOfJoinState *s, AsOfSweepState *sw, TupleTableSlot *inner)
{
	bool		isnull;
	int			i;

	for (i = 0; i < s->nkeys; i++)
		sw->table->ikeys[i] = slot_getattr(inner, s->inner_key_attno[i], &isnull);
	return asof_key_slot(s, sw->table, sw->table->ikeys);
}

/*
 * asof_put_hashed
 *		A version of a key whose hash is known: into the table, or to its
 *		batch's file if the key is in a batch; split the keys in memory if
 *		the table outgrew its limit.
 */
static void
asof_put_hashed(AsOfJoinState *s, AsOfSweepState *sw, TupleTableSlot *inner,
				TupleTableSlot *keyslot, uint32 hash)
{
	AsOfSpill  *sp = sw->spill;
	AsOfBatch  *batch = asof_spill_route(sp, hash);

	if (batch != NULL)
	{
		bool		shouldFree;
		MinimalTuple tuple = ExecFetchSlotMinimalTuple(inner, &shouldFree);

		asof_spill_write(sp, batch, ASOF_REC_VERSION, hash, tuple);
		if (shouldFree)
			pfree(tuple);
		return;
	}
	asof_table_put(s, sw, inner, keyslot, hash);
	if (sp->can_split &&
		MemoryContextMemAllocated(sw->table->metacxt, true) > asof_spill_table_limit(s, sw))
		asof_spill_split(s, sw);
}

/*
 * asof_hash_put
 *		Make the inner row the current version of its key (in memory, or in
 *		its key's batch).
 */
static void
asof_hash_put(AsOfJoinState *s, AsOfSweepState *sw, TupleTableSlot *inner)
{
	AsOfSpill  *sp = asof_spill_get(s, sw);
	TupleTableSlot *keyslot = asof_inner_key_slot(s, sw, inner);

	if (sp->phase == ASOF_PHASE_INPUT)
		sp->cur_read++;
	asof_put_hashed(s, sw, inner, keyslot,
					TupleHashTableHash(sw->table->hashtable, keyslot));
}

/*
 * asof_spill_fanout
 *		Bits of the next split: enough parts for what is still to come of
 *		the input (judged by the part read so far), within the buffers a
 *		quarter of the limit holds.
 */
static int
asof_spill_fanout(AsOfJoinState *s, AsOfSweepState *sw)
{
	AsOfSpill  *sp = sw->spill;
	int			maxbits;
	int			f;
	double		ratio;

	maxbits = 1;
	while (maxbits < ASOF_MAX_FANOUT_BITS &&
		   ((size_t) 2 << maxbits) * BLCKSZ <= sp->limit / 4)
		maxbits++;
	if (sp->cur_total > sp->cur_read && sp->cur_read > 0)
		ratio = 1.25 * (double) sp->cur_total / (double) sp->cur_read;
	else
		ratio = 4.0;
	f = 1;
	while (f < maxbits && (double) (1 << f) < ratio)
		f++;
	return Min(f, ASOF_MAX_BITS - sp->cur_bits);
}

/*
 * asof_spill_split
 *		The table outgrew its limit: split the keys in memory into parts by
 *		the next bits of their hash, keep part 0 and move the current
 *		versions of the others to new batches, whose keys then go there.
 */
static void
asof_spill_split(AsOfJoinState *s, AsOfSweepState *sw)
{
	AsOfSpill  *sp = sw->spill;
	AsOfSplit  *split;
	MemoryContext oldcxt;
	TupleHashIterator iter;
	TupleHashEntry entry;
	BufFile    *stay;
	AsOfRecHeader hdr;
	int64		moved = 0;
	int			f;
	int			i;

	if (sp->cur_bits >= ASOF_MAX_BITS)
	{
		sp->can_split = false;
		return;
	}
	/* one version alone, or a split that moved nothing not long ago */
	if (sw->table->hashtable->hashtab->members < 2 ||
		sw->table->hashtable->hashtab->members < sp->retry_members)
		return;
	f = asof_spill_fanout(s, sw);
	if (f <= 0)
	{
		sp->can_split = false;
		return;
	}

	oldcxt = MemoryContextSwitchTo(sp->cxt);
	PrepareTempTablespaces();
	split = &sp->splits[sp->nsplits++];
	split->shift = sp->cur_bits;
	split->f = f;
	split->parts = palloc0(sizeof(AsOfBatch *) << f);
	for (i = 1; i < (1 << f); i++)
	{
		AsOfBatch  *batch = palloc0(sizeof(AsOfBatch));

		batch->file = BufFileCreateTemp(false);
		batch->bits = sp->cur_bits + f;
		batch->residue = sp->cur_residue | ((uint32) i << sp->cur_bits);
		batch->depth = sp->cur_depth + 1;
		split->parts[i] = batch;
		if (sp->npending == sp->maxpending)
		{
			sp->maxpending *= 2;
			sp->pending = repalloc(sp->pending,
								   sizeof(AsOfBatch *) * sp->maxpending);
		}
		sp->pending[sp->npending++] = batch;
		sp->nopen++;
		sp->nbatches++;
		sp->max_depth = Max(sp->max_depth, batch->depth);
	}
	/* the keys that stay wait in a file while the table is emptied */
	stay = BufFileCreateTemp(false);
	MemoryContextSwitchTo(oldcxt);
	sp->cur_bits += f;
	sp->active = true;

	InitTupleHashIterator(sw->table->hashtable, &iter);
	while ((entry = ScanTupleHashTable(sw->table->hashtable, &iter)) != NULL)
	{
		MinimalTuple version = (MinimalTuple) wj_tuplehash_get(sw->table->hashtable, entry);
		uint32		part;

		CHECK_FOR_INTERRUPTS();
		part = (asof_batch_hash(entry->hash) >> split->shift) &
			asof_bits_mask(f);
		if (part != 0)
		{
			asof_spill_write(sp, split->parts[part], ASOF_REC_VERSION,
							 entry->hash, version);
			moved++;
		}
		else
		{
			hdr.hash = entry->hash;
			hdr.kind = ASOF_REC_VERSION;
			BufFileWrite(stay, &hdr, sizeof(hdr));
			BufFileWrite(stay, version, version->t_len);
		}
	}
	TermTupleHashIterator(&iter);

	asof_key_table_reset(s, sw->table);

	if (BufFileSeek(stay, 0, 0, SEEK_SET) != 0)
		ereport(ERROR,
				errcode_for_file_access(),
				errmsg("could not rewind AsOfJoin temporary file"));
	while (asof_spill_read(sp, stay, &hdr))
	{
		TupleTableSlot *inner = sp->inner_slot;

		CHECK_FOR_INTERRUPTS();
		ExecStoreMinimalTuple((MinimalTuple) sp->buf, inner, false);
		asof_table_put(s, sw, inner, asof_inner_key_slot(s, sw, inner), hdr.hash);
		ExecClearTuple(inner);
	}
	BufFileClose(stay);

	/*
	 * Nothing moved (few keys, all with the same bits so far): split again
	 * only once twice as many keys are in memory.
	 */
	sp->retry_members = (moved == 0) ?
		2.0 * sw->table->hashtable->hashtab->members : 0;
}

/*
 * asof_hashed
 *		Time-ordered sweep: take every version up to the outer time (from
 *		it on, looking forward) into the table, then look up the outer keys.
 *		If the outer keys are in a batch, the outer row is written there and
 *		sw->row_spilled is set.
 */
static TupleTableSlot *
asof_hashed(AsOfJoinState *s, AsOfSweepState *sw)
{
	AsOfSpill  *sp = asof_spill_get(s, sw);
	TupleHashEntry entry;
	TupleTableSlot *keyslot;
	uint32		hash;
	AsOfBatch  *batch;

	ExecClearTuple(sw->table->match_slot);
	for (;;)
	{
		int			tc;

		if (asof_peek_inner(s) == NULL)
			break;
		/* rows with a NULL time come last: they wait for asof_drain */
		if (s->has_shift && asof_inner_time_null(s, s->next))
			break;
		tc = asof_compare_time(s, s->next);
		/* backward: version <= (<) outer; forward: version >= (>) outer */
		if (s->forward)
			tc = -tc;
		if (s->strict ? tc <= 0 : tc < 0)
			break;
		asof_hash_put(s, sw, s->next);
		asof_fetch_inner(s);
	}

	keyslot = asof_key_slot(s, sw->table, s->okeys);
	hash = TupleHashTableHash(sw->table->hashtable, keyslot);
	batch = asof_spill_route(sp, hash);
	if (batch != NULL)
	{
		TupleTableSlot *scan = s->css.ss.ss_ScanTupleSlot;
		MemoryContext oldcxt;
		MinimalTuple tuple;

		oldcxt = MemoryContextSwitchTo(s->css.ss.ps.ps_ExprContext->ecxt_per_tuple_memory);
		tuple = wj_heap_form_minimal_tuple(sp->outer_desc, scan->tts_values,
										   scan->tts_isnull);
		MemoryContextSwitchTo(oldcxt);
		asof_spill_write(sp, batch, ASOF_REC_OUTER, hash, tuple);
		pfree(tuple);
		sw->row_spilled = true;
		return NULL;
	}
	entry = LookupTupleHashEntryHash(sw->table->hashtable, keyslot, NULL, hash);
	if (entry == NULL)
		return NULL;
	return ExecStoreMinimalTuple((MinimalTuple)
								 wj_tuplehash_get(sw->table->hashtable, entry),
								 sw->table->match_slot, false);
}

/*
 * asof_check_deferred
 *		The outer rows set aside because their shifted time is out of range:
 *		those whose key has its final state in memory now (every one, when
 *		no key is in a batch) raise the error PostgreSQL's plan raises if
 *		their key has some version (all of them were read by now).
 */
static void
asof_check_deferred(AsOfJoinState *s, AsOfSweepState *sw)
{
	ExprContext *econtext = s->css.ss.ps.ps_ExprContext;
	TupleTableSlot *slot = sw->deferred_slot;
	AsOfSpill  *sp = sw->spill;

	if (sw->deferred == NULL)
		return;
	tuplestore_rescan(sw->deferred);
	while (tuplestore_gettupleslot(sw->deferred, true, false, slot))
	{
		TupleTableSlot *keyslot;
		uint32		hash;

		CHECK_FOR_INTERRUPTS();
		ResetExprContext(econtext);
		slot_getallattrs(slot);
		econtext->ecxt_scantuple =
			asof_form_values(s, slot->tts_values, slot->tts_isnull);
		(void) asof_outer_keys(s, econtext);
		keyslot = asof_key_slot(s, sw->table, s->okeys);
		hash = TupleHashTableHash(sw->table->hashtable, keyslot);
		if (sp != NULL && sp->active && !asof_spill_in_memory(sp, hash))
			continue;			/* checked with its batch */
		if (LookupTupleHashEntryHash(sw->table->hashtable, keyslot, NULL,
									 hash) != NULL)
			asof_raise_time(s, econtext);
	}
	ResetExprContext(econtext);
}

/*
 * asof_next_deferred
 *		Sweep: the outer rows set aside because their shifted time is out of
 *		range, once the outer side is exhausted.  First every remaining
 *		inner row is read into the table (or its key's batch), which then
 *		holds every key that has a version; a set-aside row whose key is
 *		there raises the error PostgreSQL's plan raises, the others match
 *		nothing.  With keys in batches the rows are checked batch by batch
 *		and returned at the end (asof_sweep_next): NULL here.
 */
static TupleTableSlot *
asof_next_deferred(AsOfJoinState *s, AsOfSweepState *sw)
{
	ExprContext *econtext = s->css.ss.ps.ps_ExprContext;
	TupleTableSlot *slot = sw->deferred_slot;

	if (!sw->drained)
	{
		for (;;)
		{
			CHECK_FOR_INTERRUPTS();
			if (asof_peek_inner(s) == NULL)
				break;
			ResetExprContext(econtext);
			asof_hash_put(s, sw, s->next);
			asof_fetch_inner(s);
		}
		sw->drained = true;
		if (sw->spill != NULL && sw->spill->active)
			return NULL;
		asof_check_deferred(s, sw);
		tuplestore_rescan(sw->deferred);
	}
	else if (sw->spill != NULL && sw->spill->active)
		return NULL;
	if (!tuplestore_gettupleslot(sw->deferred, true, false, slot))
		return NULL;
	slot_getallattrs(slot);
	return asof_form_values(s, slot->tts_values, slot->tts_isnull);
}

/*
 * asof_spill_next_batch
 *		Start replaying the next batch (the last one made): an empty table
 *		for its keys.  False if there is none.
 */
static bool
asof_spill_next_batch(AsOfJoinState *s, AsOfSweepState *sw)
{
	AsOfSpill  *sp = sw->spill;
	AsOfBatch  *batch;
	int			i;

	if (sp->npending == 0)
		return false;
	batch = sp->pending[--sp->npending];
	asof_key_table_reset(s, sw->table);
	sp->cur = batch;
	sp->cur_bits = batch->bits;
	sp->cur_residue = batch->residue;
	sp->cur_depth = batch->depth;
	sp->cur_total = batch->nrecords;
	sp->cur_read = 0;
	for (i = 0; i < sp->nsplits; i++)
		pfree(sp->splits[i].parts);
	sp->nsplits = 0;
	sp->can_split = true;
	sp->retry_members = 0;
	if (BufFileSeek(batch->file, 0, 0, SEEK_SET) != 0)
		ereport(ERROR,
				errcode_for_file_access(),
				errmsg("could not rewind AsOfJoin temporary file"));
	return true;
}

/*
 * asof_spill_end_batch
 *		The current batch was replayed: check the rows set aside whose keys
 *		it held, and drop its file.
 */
static void
asof_spill_end_batch(AsOfJoinState *s, AsOfSweepState *sw)
{
	AsOfSpill  *sp = sw->spill;

	asof_check_deferred(s, sw);
	if (sp->cur != NULL)
	{
		BufFileClose(sp->cur->file);
		sp->cur->file = NULL;
		sp->nopen--;
		pfree(sp->cur);
		sp->cur = NULL;
	}
}

/*
 * asof_spill_replay
 *		The next outer row of the batches, in the scan slot, with its
 *		version in *values and *nulls (NULL if none); NULL when every batch
 *		was replayed.
 */
static TupleTableSlot *
asof_spill_replay(AsOfJoinState *s, AsOfSweepState *sw, Datum **values,
				  bool **nulls)
{
	AsOfSpill  *sp = sw->spill;
	ExprContext *econtext = s->css.ss.ps.ps_ExprContext;

	for (;;)
	{
		AsOfRecHeader hdr;
		AsOfBatch  *batch;
		TupleTableSlot *scan;
		TupleTableSlot *keyslot;
		TupleHashEntry entry;

		CHECK_FOR_INTERRUPTS();
		if (sp->cur == NULL && !asof_spill_next_batch(s, sw))
			return NULL;
		if (!asof_spill_read(sp, sp->cur->file, &hdr))
		{
			asof_spill_end_batch(s, sw);
			continue;
		}
		sp->cur_read++;
		batch = asof_spill_route(sp, hdr.hash);
		if (batch != NULL)
		{
			/* a key split off this batch while replaying it */
			asof_spill_write(sp, batch, hdr.kind, hdr.hash,
							 (MinimalTuple) sp->buf);
			continue;
		}
		if (hdr.kind == ASOF_REC_VERSION)
		{
			TupleTableSlot *inner = sp->inner_slot;

			ResetExprContext(econtext);
			ExecStoreMinimalTuple((MinimalTuple) sp->buf, inner, false);
			asof_put_hashed(s, sw, inner, asof_inner_key_slot(s, sw, inner),
							hdr.hash);
			ExecClearTuple(inner);
			continue;
		}
		if (hdr.kind != ASOF_REC_OUTER)
			elog(ERROR, "AsOfJoin temporary file holds a record of kind %u",
				 hdr.kind);

		/* an outer row: look up its keys (not NULL, or it was not written) */
		ExecStoreMinimalTuple((MinimalTuple) sp->buf, sp->outer_slot, false);
		slot_getallattrs(sp->outer_slot);
		scan = asof_form_values(s, sp->outer_slot->tts_values,
								sp->outer_slot->tts_isnull);
		econtext->ecxt_scantuple = scan;
		(void) asof_outer_keys(s, econtext);
		keyslot = asof_key_slot(s, sw->table, s->okeys);
		entry = LookupTupleHashEntryHash(sw->table->hashtable, keyslot, NULL,
										 hdr.hash);
		*values = NULL;
		*nulls = NULL;
		if (entry != NULL)
		{
			TupleTableSlot *match;

			match = ExecStoreMinimalTuple((MinimalTuple)
										  wj_tuplehash_get(sw->table->hashtable, entry),
										  sw->table->match_slot, false);
			slot_getallattrs(match);
			*values = match->tts_values;
			*nulls = match->tts_isnull;
		}
		return scan;
	}
}

/*
 * asof_sweep_input
 *		The next outer row of the inputs (the outer child, or the lookup's
 *		sort of its rows), in the scan slot, with the version the sweep
 *		finds in *values and *nulls, NULL if none; when the outer rows are
 *		exhausted, the rows set aside (asof_next_deferred), then NULL.
 *
 * A row whose shifted time is out of range raises its error only if its
 * keys have some version (which PostgreSQL's plan compares it with): the
 * row is set aside until every version was read.
 */
static TupleTableSlot *
asof_sweep_input(AsOfJoinState *s, AsOfSweepState *sw, Datum **values,
				 bool **nulls)
{
	ExprContext *econtext = s->css.ss.ps.ps_ExprContext;
	TupleTableSlot *scan;
	TupleTableSlot *match;
	AsOfOuterRow what;

	*values = NULL;
	*nulls = NULL;
	for (;;)
	{
		scan = asof_outer_next(s, sw->sorted, &what);
		if (scan == NULL)
		{
			if (sw->deferred != NULL)
				return asof_next_deferred(s, sw);
			return NULL;
		}
		if (what != ASOF_OUTER_TIME_OUT)
			break;

		/* a shifted time out of range */
		if (sw->deferred == NULL)
		{
			MemoryContext oldcxt;

			oldcxt = MemoryContextSwitchTo(s->css.ss.ps.state->es_query_cxt);
			sw->deferred = tuplestore_begin_heap(false, false, work_mem);
			MemoryContextSwitchTo(oldcxt);
		}
		tuplestore_puttupleslot(sw->deferred, scan);
		ResetExprContext(econtext);
	}
	if (what != ASOF_OUTER_READY)
		return scan;			/* a NULL key or time: matches nothing */

	match = asof_hashed(s, sw);
	if (match != NULL)
	{
		slot_getallattrs(match);
		*values = match->tts_values;
		*nulls = match->tts_isnull;
	}
	return scan;
}

/*
 * asof_sweep_next
 *		Sweep strategy (also the lookup's fallback): the next outer row, in
 *		the scan slot, with its version in *values and *nulls (NULL if
 *		none); NULL when the outer rows are exhausted.  First the inputs
 *		(asof_sweep_input), passing over outer rows that went to a batch,
 *		then the batches, then the rows set aside for a shifted time.
 */
static TupleTableSlot *
asof_sweep_next(AsOfJoinState *s, void *state, Datum **values, bool **nulls)
{
	AsOfSweepState *sw = (AsOfSweepState *) state;
	AsOfSpill  *sp = asof_spill_get(s, sw);
	TupleTableSlot *scan;

	for (;;)
	{
		CHECK_FOR_INTERRUPTS();
		switch (sp->phase)
		{
			case ASOF_PHASE_INPUT:
				scan = asof_sweep_input(s, sw, values, nulls);
				if (scan != NULL)
				{
					if (!sw->row_spilled)
						return scan;
					sw->row_spilled = false;
					ResetExprContext(s->css.ss.ps.ps_ExprContext);
					continue;
				}
				if (!sp->active)
				{
					sp->phase = ASOF_PHASE_DONE;
					return NULL;
				}
				/* the keys in memory: check their rows set aside */
				asof_spill_end_batch(s, sw);
				sp->phase = ASOF_PHASE_BATCHES;
				break;
			case ASOF_PHASE_BATCHES:
				scan = asof_spill_replay(s, sw, values, nulls);
				if (scan != NULL)
					return scan;
				sp->phase = ASOF_PHASE_DEFERRED;
				if (sw->deferred != NULL)
					tuplestore_rescan(sw->deferred);
				break;
			case ASOF_PHASE_DEFERRED:
				*values = NULL;
				*nulls = NULL;
				if (sw->deferred != NULL &&
					tuplestore_gettupleslot(sw->deferred, true, false,
											sw->deferred_slot))
				{
					slot_getallattrs(sw->deferred_slot);
					return asof_form_values(s, sw->deferred_slot->tts_values,
											sw->deferred_slot->tts_isnull);
				}
				sp->phase = ASOF_PHASE_DONE;
				break;
			case ASOF_PHASE_DONE:
				return NULL;
		}
	}
}

/*
 * asof_sweep_reset
 *		Rescan and end: drop the batches and their files; the figures for
 *		EXPLAIN stay.
 */
static void
asof_sweep_reset(AsOfJoinState *s, AsOfSweepState *sw)
{
	AsOfSpill  *sp = sw->spill;
	int			i;

	sw->row_spilled = false;
	if (sp == NULL)
		return;
	for (i = 0; i < sp->npending; i++)
	{
		if (sp->pending[i]->file != NULL)
			BufFileClose(sp->pending[i]->file);
		pfree(sp->pending[i]);
	}
	sp->npending = 0;
	if (sp->cur != NULL)
	{
		if (sp->cur->file != NULL)
			BufFileClose(sp->cur->file);
		pfree(sp->cur);
		sp->cur = NULL;
	}
	for (i = 0; i < sp->nsplits; i++)
		pfree(sp->splits[i].parts);
	sp->nsplits = 0;
	sp->nopen = 0;
	sp->active = false;
	sp->can_split = true;
	sp->retry_members = 0;
	sp->phase = ASOF_PHASE_INPUT;
	sp->cur_bits = 0;
	sp->cur_residue = 0;
	sp->cur_depth = 0;
	sp->cur_read = 0;
	sp->cur_total = (int64) Min(s->inner_ps->plan->plan_rows,
								(double) PG_INT64_MAX / 2);
}

/*
 * asof_sweep_explain
 *		EXPLAIN ANALYZE of a sweep (or a lookup that may fall back to it),
 *		after the peak state: the batches on disk, with every node's spill
 *		labels (wj_explain_spill; text: only if there were any; other formats:
 *		always).
 */
static void
asof_sweep_explain(AsOfJoinState *s, void *state, ExplainState *es)
{
	AsOfSweepState *sw = (AsOfSweepState *) state;
	AsOfSpill  *sp = sw->spill;
	int64		nbatches = sp ? sp->nbatches : 0;
	WjSpillFigure figures[2] = {
		{"Batches", nbatches},
		{"Batch Depth", sp ? sp->max_depth : 0}
	};

	wj_explain_spill(figures, 2, sp ? (sp->disk_bytes + 1023) / 1024 : 0,
					 nbatches > 0, es);
}

/*
 * asof_sweep_begin_in
 *		A sweep's state, in the given table (the lookup's, for its
 *		fallback, or one of its own), over the outer child's rows or the
 *		lookup's sort of them (sorted, NULL: the outer child).
 */
void *
asof_sweep_begin_in(AsOfJoinState *s, EState *estate, AsOfKeyTable *table,
					AsOfOuterSort *sorted)
{
	AsOfSweepState *sw = palloc0(sizeof(AsOfSweepState));

	sw->table = table;
	sw->sorted = sorted;
	if (s->has_shift)
		sw->deferred_slot = ExecInitExtraTupleSlot(estate,
												   s->css.ss.ss_ScanTupleSlot->tts_tupleDescriptor,
												   &TTSOpsMinimalTuple);
	return sw;
}

/*
 * asof_sweep_begin
 *		The sweep strategy's state, with a table of its own.
 */
static void *
asof_sweep_begin(AsOfJoinState *s, EState *estate)
{
	AsOfSweepState *sw;

	sw = asof_sweep_begin_in(s, estate, asof_key_table_create(s, estate),
							 NULL);
	sw->owns_table = true;
	return sw;
}

/*
 * asof_sweep_rescan
 *		Start over: drop the rows set aside and the batches, and empty the
 *		table if it is the sweep's own (the lookup empties its own).
 */
static bool
asof_sweep_rescan(AsOfJoinState *s, void *state)
{
	AsOfSweepState *sw = (AsOfSweepState *) state;

	if (sw->deferred != NULL)
	{
		tuplestore_end(sw->deferred);
		sw->deferred = NULL;
	}
	sw->drained = false;
	asof_sweep_reset(s, sw);
	if (sw->owns_table)
		asof_key_table_reset(s, sw->table);
	return true;
}

/*
 * asof_sweep_end
 *		The end of the scan: drop the rows set aside and the batches.
 */
static void
asof_sweep_end(AsOfJoinState *s, void *state)
{
	AsOfSweepState *sw = (AsOfSweepState *) state;

	if (sw->deferred != NULL)
	{
		tuplestore_end(sw->deferred);
		sw->deferred = NULL;
	}
	asof_sweep_reset(s, sw);
}

const AsOfStrategy asof_sweep_strategy = {
	.label = "hashed keys, inputs in time order",
	.begin = asof_sweep_begin,
	.next = asof_sweep_next,
	.rescan = asof_sweep_rescan,
	.end = asof_sweep_end,
	.explain_state = asof_sweep_explain,
};
