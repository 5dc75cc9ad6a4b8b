/*-------------------------------------------------------------------------
 *
 * session_sort_store.c
 *	  The rows a SessionSort or SessionWindow holds in memory: hashed by
 *	  their partition keys into a TupleHashTable, stored compactly in an
 *	  arena, collected in key order when the source has been read.
 *
 * INTERFACE ROUTINES (session_sort_internal.h)
 *		ssort_init_memory			an empty hash table for the next source
 *		ssort_store_row				store a row of the input
 *		ssort_store_tape_row		store a row read back from a batch's tape
 *		ssort_slot_rest, ssort_stored_keys, ssort_form_rest
 *									a row's stored columns and partition keys
 *		ssort_collect_partitions	the partitions, sorted by their keys
 *		ssort_fill_slot				put a stored row back together in a slot
 *		ssort_memory_used			the bytes held, against work_mem
 *		ssort_release_memory		forget the rows and free their memory
 *
 * LAYOUT
 *
 * Each row is hashed by its partition keys into a TupleHashTable
 * (PostgreSQL's grouping hash table, so NULL keys form their own partition
 * and the keys' own equality and hash functions apply).  The row is stored
 * once, as a MinimalTuple of its columns other than the time, in the
 * chunks of its partition (64 bytes doubling up to 8kB, so that a
 * partition's rows lie close together), which are cut from an arena of
 * large blocks (no per-row allocation header).  Its partition records
 * (time, tuple pointer) in a chain of blocks of entries; rows with a NULL
 * time go to a separate chain, since they sort last.  The partition keys
 * are stored with each row, not taken from the partition: "=" may equate
 * visibly different values (numeric 1.0 and 1.00, interval '1 day' and '24
 * hours', nondeterministic collations), and each row must keep its own;
 * the partition's first-seen keys only order the partitions (SortSupport,
 * once the source has been read).
 *
 * The arena and the hash table are what counts against work_mem; the
 * arena's blocks double from 8kB and stay within what is left of it.
 *
 * src/nodes/session/session_sort_store.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "port/pg_bitutils.h"
#include "utils/memutils.h"
#include "utils/sortsupport.h"

#include "src/common/exec_common.h"
#include "src/nodes/session/session_sort_internal.h"

/*
 * arena_alloc
 *		Space for size bytes in the arena: blocks of up to SSORT_ARENA_BLOCK,
 *		and an own allocation for anything larger than a quarter of that.
 */
static void *
arena_alloc(SessionSortState *state, Size size)
{
	char	   *p;

	size = MAXALIGN(size);
	if (size > SSORT_ARENA_BLOCK / 4)
	{
		state->arena_bytes += size;
		return MemoryContextAlloc(state->cxt, size);
	}
	if (size > state->arena_free)
	{
		/*
		 * Blocks double from 8kB, so a small input holds little memory, but
		 * stay within what is left of work_mem (from 8kB up)
		 */
		Size		block = Min(Max(state->arena_bytes, 8192), SSORT_ARENA_BLOCK);
		Size		used = ssort_memory_used(state);

		if (used < state->budget)
			block = Min(block, Max(state->budget - used, 8192));
		else
			block = 8192;

		block = Max(block, size);
		state->arena_next = MemoryContextAlloc(state->cxt, block);
		state->arena_free = block;
		state->arena_bytes += block;
	}
	p = state->arena_next;
	state->arena_next += size;
	state->arena_free -= size;
	return p;
}

/*
 * partition_alloc
 *		Space for a row of a partition: each partition stores its rows in its
 *		own chunks (from 64 bytes up to 8kB), so that returning a partition's
 *		rows in time order reads memory close together rather than all over
 *		the arena.
 */
static inline void *
partition_alloc(SessionSortState *state, SSortPartition *part, Size size)
{
	char	   *p;

	size = MAXALIGN(size);
	if (size > part->data_free)
	{
		Size		chunk = part->data_chunk == 0 ? SSORT_FIRST_CHUNK :
		Min(part->data_chunk * 2, SSORT_MAX_CHUNK);

		part->data_chunk = chunk;
		chunk = Max(chunk, size);
		part->data_next = arena_alloc(state, chunk);
		part->data_free = chunk;
	}
	p = part->data_next;
	part->data_next += size;
	part->data_free -= size;
	return p;
}

/*
 * chain_append
 *		Append an entry to a partition's chain; blocks grow from
 *		SSORT_FIRST_BLOCK to SSORT_MAX_BLOCK entries.
 */
static inline void
chain_append(SessionSortState *state, SSortChain *chain, int64 ts,
			 MinimalTuple tuple)
{
	SSortBlock *block = chain->tail;

	if (block == NULL || block->used == block->size)
	{
		int			size = block == NULL ? SSORT_FIRST_BLOCK :
		Min(block->size * 2, SSORT_MAX_BLOCK);
		SSortBlock *nb = arena_alloc(state, offsetof(SSortBlock, entries) +
									 sizeof(SSortEntry) * size);

		nb->next = NULL;
		nb->used = 0;
		nb->size = size;
		if (block == NULL)
			chain->head = nb;
		else
			block->next = nb;
		chain->tail = nb;
		block = nb;
	}
	block->entries[block->used].ts = ts;
	block->entries[block->used].tuple = tuple;
	block->used++;
	chain->rows++;
}

/*
 * ssort_memory_used
 *		Bytes held in memory: the arena and the hash table (its memory is
 *		read again whenever it can have grown: a new partition).
 */
Size
ssort_memory_used(SessionSortState *state)
{
	return state->arena_bytes + state->hash_bytes;
}

/*
 * deform_keys
 *		Extract a partition's key values from its hash entry's tuple; they
 *		point into that tuple, which lives as long as the hash table.
 */
static void
deform_keys(SessionSortState *state, SSortPartition *part)
{
	int			i;

	part->keys = MemoryContextAlloc(state->hashcxt, sizeof(Datum) * state->npart);
	part->keynulls = MemoryContextAlloc(state->hashcxt, sizeof(bool) * state->npart);
	ExecStoreMinimalTuple(part->keytuple, state->keytup_slot, false);
	slot_getallattrs(state->keytup_slot);
	for (i = 0; i < state->npart; i++)
	{
		part->keys[i] = state->keytup_slot->tts_values[i];
		part->keynulls[i] = state->keytup_slot->tts_isnull[i];
	}
	ExecClearTuple(state->keytup_slot);
}

/*
 * ssort_fill_slot
 *		Put a stored row back together in slot (the scan slot, or the
 *		child's layout).
 */
TupleTableSlot *
ssort_fill_slot(SessionSortState *state, TupleTableSlot *slot,
				SSortPartition *part, SSortEntry *entry, bool null_time)
{
	int			i;

	/* the partition keys come from the row itself, not from part */
	ExecClearTuple(slot);
	slot->tts_values[state->time_attno - 1] = Int64GetDatum(entry->ts);
	slot->tts_isnull[state->time_attno - 1] = null_time;
	if (state->nrest > 0)
	{
		ExecStoreMinimalTuple(entry->tuple, state->rest_slot, false);
		slot_getallattrs(state->rest_slot);
		for (i = 0; i < state->nrest; i++)
		{
			slot->tts_values[state->rest_attnos[i] - 1] = state->rest_slot->tts_values[i];
			slot->tts_isnull[state->rest_attnos[i] - 1] = state->rest_slot->tts_isnull[i];
		}
	}
	return ExecStoreVirtualTuple(slot);
}

/*
 * ssort_release_memory
 *		Forget the rows held in memory (they were returned, or written
 *		elsewhere) and free their memory.
 */
void
ssort_release_memory(SessionSortState *state)
{
	ExecClearTuple(state->key_slot);
	ExecClearTuple(state->keytup_slot);
	ExecClearTuple(state->rest_slot);
	if (state->sessbuf != NULL)
	{
		tuplestore_end(state->sessbuf);
		state->sessbuf = NULL;
	}
	MemoryContextReset(state->cxt);
	state->hashtable = NULL;
	state->hashcxt = NULL;
	state->tmpcxt = NULL;
	MemSet(&state->single, 0, sizeof(SSortPartition));
	state->arena_next = NULL;
	state->arena_free = 0;
	state->arena_bytes = 0;
	state->hash_bytes = 0;
	state->parts = NULL;
	state->nparts = 0;
	state->sorted = NULL;
	state->mem_rows = 0;
	wj_state_clear(&state->stats);
}

/*
 * lookup_partition
 *		The partition of these partition key values, created when new.
 */
static SSortPartition *
lookup_partition(SessionSortState *state, Datum *values, bool *isnull)
{
	TupleHashEntry entry;
	bool		isnew;
	int			i;

	if (state->npart == 0)
		return &state->single;
	ExecClearTuple(state->key_slot);
	for (i = 0; i < state->npart; i++)
	{
		state->key_slot->tts_values[i] = values[i];
		state->key_slot->tts_isnull[i] = isnull[i];
	}
	ExecStoreVirtualTuple(state->key_slot);
	entry = LookupTupleHashEntry(state->hashtable, state->key_slot, &isnew, NULL);
	if (isnew)
	{
		SSortPartition *part = MemoryContextAllocZero(state->hashcxt,
													  sizeof(SSortPartition));

		part->keytuple = entry->firstTuple;
		wj_tuplehash_set(state->hashtable, entry, part);
		state->nparts++;
		state->hash_bytes = MemoryContextMemAllocated(state->hashcxt, true);
		return part;
	}
	return (SSortPartition *) wj_tuplehash_get(state->hashtable, entry);
}

/*
 * ssort_form_rest
 *		Form the stored columns of a row (rest_values, rest_isnull) as a
 *		MinimalTuple, as heap_form_minimal_tuple does, directly in the space
 *		of its partition, or in formbuf when part is NULL.
 */
MinimalTuple
ssort_form_rest(SessionSortState *state, SSortPartition *part)
{
	bool		hasnull = false;
	Size		len;
	Size		hoff;
	Size		data_len;
	MinimalTuple tuple;
	int			i;

	for (i = 0; i < state->nrest; i++)
		if (state->rest_isnull[i])
		{
			hasnull = true;
			break;
		}
	len = SizeofMinimalTupleHeader;
	if (hasnull)
		len += BITMAPLEN(state->nrest);
	hoff = len = MAXALIGN(len);
	data_len = heap_compute_data_size(state->rest_desc, state->rest_values,
									  state->rest_isnull);
	len += data_len;
	if (part != NULL)
		tuple = partition_alloc(state, part, len);
	else
	{
		if (len > state->formbuf_size)
		{
			if (state->formbuf != NULL)
				pfree(state->formbuf);
			state->formbuf_size = Max(len, 2 * state->formbuf_size);
			state->formbuf = MemoryContextAllocHuge(state->spillcxt,
													state->formbuf_size);
		}
		tuple = (MinimalTuple) state->formbuf;
	}
	memset(tuple, 0, len);
	tuple->t_len = len;
	HeapTupleHeaderSetNatts(tuple, state->nrest);
	tuple->t_hoff = hoff + MINIMAL_TUPLE_OFFSET;
	heap_fill_tuple(state->rest_desc, state->rest_values, state->rest_isnull,
					(char *) tuple + hoff, data_len, &tuple->t_infomask,
					hasnull ? tuple->t_bits : NULL);
	return tuple;
}

/*
 * ssort_slot_rest
 *		The stored columns and the partition keys of a child's row (in
 *		rest_values and route_values).
 */
void
ssort_slot_rest(SessionSortState *state, TupleTableSlot *in)
{
	int			i;

	slot_getallattrs(in);
	for (i = 0; i < state->nrest; i++)
	{
		state->rest_values[i] = in->tts_values[state->rest_attnos[i] - 1];
		state->rest_isnull[i] = in->tts_isnull[state->rest_attnos[i] - 1];
	}
	for (i = 0; i < state->npart; i++)
	{
		state->route_values[i] = in->tts_values[state->attnos[i] - 1];
		state->route_nulls[i] = in->tts_isnull[state->attnos[i] - 1];
	}
}

/*
 * ssort_stored_keys
 *		The partition keys of a stored row (in route_values), pointing into
 *		the row.
 */
void
ssort_stored_keys(SessionSortState *state, MinimalTuple tuple)
{
	int			i;

	if (state->npart == 0)
		return;
	ExecStoreMinimalTuple(tuple, state->rest_slot, false);
	slot_getsomeattrs(state->rest_slot, state->key_rest_max);
	for (i = 0; i < state->npart; i++)
	{
		state->route_values[i] = state->rest_slot->tts_values[state->key_rest[i]];
		state->route_nulls[i] = state->rest_slot->tts_isnull[state->key_rest[i]];
	}
}

/*
 * add_row
 *		Append a stored row to its partition's chain.
 */
static inline void
add_row(SessionSortState *state, SSortPartition *part, int64 ts, bool null_time,
		MinimalTuple tuple)
{
	chain_append(state, null_time ? &part->untimed : &part->timed, ts, tuple);
	state->mem_rows++;
	/* state accounting counts row bytes (state_stats.h): tuple and entry */
	wj_state_add(&state->stats, (int64) sizeof(SSortEntry) +
				 (tuple != NULL ? (int64) tuple->t_len : 0));
}

/*
 * ssort_store_row
 *		Hash the child's row into its partition and store it.
 */
void
ssort_store_row(SessionSortState *state, TupleTableSlot *in)
{
	SSortPartition *part;
	MinimalTuple tuple = NULL;
	bool		null_time;

	ssort_slot_rest(state, in);
	part = lookup_partition(state, state->route_values, state->route_nulls);
	if (state->nrest > 0)
		tuple = ssort_form_rest(state, part);
	null_time = in->tts_isnull[state->time_attno - 1];
	add_row(state, part, null_time ? 0 :
			DatumGetInt64(in->tts_values[state->time_attno - 1]),
			null_time, tuple);
}

/*
 * ssort_store_tape_row
 *		Hash a row read from a tape into its partition and store it.
 */
void
ssort_store_tape_row(SessionSortState *state, SSortTapeRow *hdr,
					 MinimalTuple rest)
{
	SSortPartition *part;
	MinimalTuple tuple = NULL;

	if (rest != NULL)
		ssort_stored_keys(state, rest);
	part = lookup_partition(state, state->route_values, state->route_nulls);
	if (rest != NULL)
	{
		tuple = partition_alloc(state, part, rest->t_len);
		memcpy(tuple, rest, rest->t_len);
	}
	add_row(state, part, hdr->ts, hdr->null_time, tuple);
}

/*
 * compare_partitions
 *		qsort_arg comparator: partitions in the order of their keys.
 */
static int
compare_partitions(const void *a, const void *b, void *arg)
{
	SessionSortState *state = (SessionSortState *) arg;
	SSortPartition *pa = *(SSortPartition *const *) a;
	SSortPartition *pb = *(SSortPartition *const *) b;
	int			i;

	for (i = 0; i < state->npart; i++)
	{
		int			cmp = ApplySortComparator(pa->keys[i], pa->keynulls[i],
											  pb->keys[i], pb->keynulls[i],
											  &state->partsort[i]);

		if (cmp != 0)
			return cmp;
	}
	return 0;
}

/*
 * ssort_init_memory
 *		An empty hash table (and arena) for the rows of the next source.
 */
void
ssort_init_memory(SessionSortState *state)
{
	Size		maxblock;
	int			i;

	/* its blocks grow up to a sixteenth of work_mem (as hash aggregation's) */
	maxblock = Min(Max(pg_prevpower2_size_t(state->budget / 16),
					   ALLOCSET_DEFAULT_INITSIZE), ALLOCSET_DEFAULT_MAXSIZE);
	state->hashcxt = AllocSetContextCreate(state->cxt, "SessionSort partitions",
										   0, ALLOCSET_DEFAULT_INITSIZE, maxblock);
	state->tmpcxt = AllocSetContextCreate(state->cxt, "SessionSort row",
										  ALLOCSET_SMALL_SIZES);
	state->nparts = 0;
	state->mem_rows = 0;
	if (state->npart > 0)
	{
		Oid		   *eqfuncoids;
		FmgrInfo   *hashfuncs;
		AttrNumber *keycols;
		MemoryContext old = MemoryContextSwitchTo(state->hashcxt);

		keycols = palloc(sizeof(AttrNumber) * state->npart);
		for (i = 0; i < state->npart; i++)
			keycols[i] = i + 1;
		execTuplesHashPrepare(state->npart, state->eqops, &eqfuncoids, &hashfuncs);
		state->hashtable =
			wj_build_tuple_hash_table(&state->css.ss.ps,
									  state->key_slot->tts_tupleDescriptor,
									  state->npart, keycols, eqfuncoids,
									  hashfuncs, state->colls, 256,
									  state->hashcxt, state->hashcxt,
									  state->tmpcxt, false);
		MemoryContextSwitchTo(old);
		state->hash_bytes = MemoryContextMemAllocated(state->hashcxt, true);
	}
}

/*
 * ssort_collect_partitions
 *		The partitions held in memory, in key order, into parts[] (counted
 *		in the hash table's memory).
 */
void
ssort_collect_partitions(SessionSortState *state)
{
	int64		i = 0;

	if (state->parts != NULL)
		return;
	state->parts = MemoryContextAllocHuge(state->hashcxt, sizeof(SSortPartition *) *
										  Max(state->nparts, 1));
	if (state->npart > 0)
	{
		TupleHashIterator iter;
		TupleHashEntry entry;

		InitTupleHashIterator(state->hashtable, &iter);
		while ((entry = ScanTupleHashTable(state->hashtable, &iter)) != NULL)
		{
			SSortPartition *part = (SSortPartition *)
				wj_tuplehash_get(state->hashtable, entry);

			deform_keys(state, part);
			state->parts[i++] = part;
		}
		TermTupleHashIterator(&iter);
		Assert(i == state->nparts);
		qsort_arg(state->parts, state->nparts, sizeof(SSortPartition *),
				  compare_partitions, state);
	}
	else
	{
		state->parts[0] = &state->single;
		state->nparts = 1;
	}
	state->hash_bytes = MemoryContextMemAllocated(state->hashcxt, true);
}
