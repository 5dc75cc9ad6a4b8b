/*-------------------------------------------------------------------------
 *
 * session_sort_spill.c
 *	  What a SessionSort or SessionWindow does past work_mem: split its
 *	  source into ranges of partition keys written to tapes, to be read
 *	  back as batches one at a time, or, when no split can help, send the
 *	  rows to a tuplesort.
 *
 * INTERFACE ROUTINES (session_sort_internal.h)
 *		ssort_memory_full		the source no longer fits: split or tuplesort
 *		ssort_can_split			can the rows held be split into key ranges?
 *		ssort_route_row			while splitting: a row to its range's tape
 *		ssort_end_split			the source is split: its ranges become batches
 *		ssort_tape_read			the next row of a batch read back
 *		ssort_free_sample		free a batch's sample of keys
 *		ssort_release_spill		close the tapes and forget the batches
 *
 * ALGORITHM
 *
 * The arena, the hash table and the sorting array are counted against
 * work_mem (the node stands in for a Sort, which work_mem bounds).  When
 * they would exceed it, the source (the input) is split into ranges of
 * partition keys: the partitions in memory, in key order, are cut into
 * ranges of about equal rows, their rows are written to one tape per range
 * (a LogicalTapeSet), the memory is freed, and every further row goes to the
 * tape of its range (binary search over the bounds).  A row on tape is the
 * row as stored in memory: its time and the MinimalTuple of the rest.  The
 * ranges are then read back one at a time, in key order, each as a batch
 * that runs the in-memory algorithm (session_sort_exec.c); a range holds
 * whole partitions and the ranges are ordered, so the output keeps
 * (keys..., time) order without any merge.  The bounds come from the rows,
 * not from statistics; the planner's row estimate only sizes the number of
 * ranges (and lets an input expected to outgrow work_mem by far split after
 * an eighth of it, as a sample).  The first and the last range are
 * open-ended and, when one outgrows a batch (input arriving in key order),
 * end at their least (greatest) key so far, a new range taking the keys
 * beyond.  A batch that does not fit when read back is split again, its
 * bounds drawn from a reservoir sample of its rows' keys kept while it was
 * written.  A batch that cannot be split (one partition, no partition keys,
 * ranges of ranges too deep) goes to a tuplesort with the same keys, which
 * spills to disk as usual, and its rows come from there.
 *
 * src/nodes/session/session_sort_spill.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "common/pg_prng.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "utils/datum.h"
#include "utils/logtape.h"
#include "utils/memutils.h"
#include "utils/sortsupport.h"
#include "utils/tuplesort.h"

#include "src/common/exec_common.h"
#include "src/nodes/session/session_sort_internal.h"

/*
 * tape_write
 *		Append a row, its time and stored columns, to a batch's tape.
 */
static void
tape_write(SessionSortState *state, SSortBatch *batch, int64 ts, bool null_time,
		   MinimalTuple tuple)
{
	MemoryContext old = MemoryContextSwitchTo(state->spillcxt);
	SSortTapeRow hdr;

	MemSet(&hdr, 0, sizeof(hdr));
	hdr.ts = ts;
	hdr.null_time = null_time;
	hdr.tuple_len = tuple != NULL ? tuple->t_len : 0;
	LogicalTapeWrite(batch->tape, &hdr, sizeof(hdr));
	if (tuple != NULL)
		LogicalTapeWrite(batch->tape, tuple, tuple->t_len);
	MemoryContextSwitchTo(old);
	batch->rows++;
}

/*
 * ssort_tape_read
 *		The next row of a batch's tape: false at its end; else its header in
 *		*hdr and its stored columns in *tuple (NULL if none), valid until the
 *		next read.
 */
bool
ssort_tape_read(SessionSortState *state, SSortBatch *batch, SSortTapeRow *hdr,
				MinimalTuple *tuple)
{
	MemoryContext old = MemoryContextSwitchTo(state->spillcxt);
	size_t		n;

	/* the tape's read buffer is allocated at the first read */
	n = LogicalTapeRead(batch->tape, hdr, sizeof(SSortTapeRow));
	if (n == 0)
	{
		MemoryContextSwitchTo(old);
		return false;
	}
	if (n != sizeof(SSortTapeRow))
		elog(ERROR, "unexpected end of a SessionSort batch");
	*tuple = NULL;
	if (hdr->tuple_len > 0)
	{
		if (hdr->tuple_len > state->readbuf_size)
		{
			ExecClearTuple(state->rest_slot);
			if (state->readbuf != NULL)
				pfree(state->readbuf);
			state->readbuf_size = Max(hdr->tuple_len, 2 * state->readbuf_size);
			state->readbuf = MemoryContextAllocHuge(state->spillcxt,
													state->readbuf_size);
		}
		if (LogicalTapeRead(batch->tape, state->readbuf, hdr->tuple_len) !=
			hdr->tuple_len)
			elog(ERROR, "unexpected end of a SessionSort batch");
		*tuple = (MinimalTuple) state->readbuf;
	}
	MemoryContextSwitchTo(old);
	return true;
}

/*
 * compare_keys
 *		Order two sets of partition key values as the plan sorts them.
 */
static int
compare_keys(SessionSortState *state, Datum *av, bool *an, Datum *bv, bool *bn)
{
	int			i;

	for (i = 0; i < state->npart; i++)
	{
		int			cmp = ApplySortComparator(av[i], an[i], bv[i], bn[i],
											  &state->partsort[i]);

		if (cmp != 0)
			return cmp;
	}
	return 0;
}

/*
 * copy_key_in
 *		Partition key values copied into a memory context.
 */
static SSortKey *
copy_key_in(SessionSortState *state, MemoryContext cxt, Datum *values,
			bool *isnull)
{
	MemoryContext old = MemoryContextSwitchTo(cxt);
	SSortKey   *key = palloc(sizeof(SSortKey));
	int			i;

	key->values = palloc(sizeof(Datum) * state->npart);
	key->isnull = palloc(sizeof(bool) * state->npart);
	for (i = 0; i < state->npart; i++)
	{
		key->isnull[i] = isnull[i];
		key->values[i] = isnull[i] ? (Datum) 0 :
			datumCopy(values[i], state->keybyvals[i], state->keylens[i]);
	}
	MemoryContextSwitchTo(old);
	return key;
}

/*
 * copy_key
 *		Partition key values copied into the split's context.
 */
static SSortKey *
copy_key(SessionSortState *state, Datum *values, bool *isnull)
{
	return copy_key_in(state, state->splitcxt, values, isnull);
}

/*
 * free_key
 *		Free a copy_key result.
 */
static void
free_key(SessionSortState *state, SSortKey *key)
{
	int			i;

	if (key == NULL)
		return;
	for (i = 0; i < state->npart; i++)
		if (!key->isnull[i] && !state->keybyvals[i])
			pfree(DatumGetPointer(key->values[i]));
	pfree(key->values);
	pfree(key->isnull);
	pfree(key);
}

/*
 * sample_row
 *		A row was written to a batch: keep its keys in the batch's sample
 *		with the probability that keeps the sample uniform (reservoir
 *		sampling).
 */
static void
sample_row(SessionSortState *state, SSortBatch *batch, Datum *values,
		   bool *isnull)
{
	uint64		j;

	if (batch->sample == NULL)
		batch->sample = MemoryContextAlloc(state->spillcxt,
										   sizeof(SSortKey *) * SSORT_SAMPLE);
	if (batch->nsample < SSORT_SAMPLE)
	{
		batch->sample[batch->nsample++] = copy_key_in(state, state->spillcxt,
													  values, isnull);
		return;
	}
	j = pg_prng_uint64_range(&state->prng, 0, batch->rows - 1);
	if (j < SSORT_SAMPLE)
	{
		free_key(state, batch->sample[j]);
		batch->sample[j] = copy_key_in(state, state->spillcxt, values, isnull);
	}
}

/*
 * ssort_free_sample
 *		Free a batch's sample.
 */
void
ssort_free_sample(SessionSortState *state, SSortBatch *batch)
{
	int			i;

	for (i = 0; i < batch->nsample; i++)
		free_key(state, batch->sample[i]);
	if (batch->sample != NULL)
		pfree(batch->sample);
	batch->sample = NULL;
	batch->nsample = 0;
}

/*
 * compare_sampled
 *		qsort_arg comparator: sampled keys in key order.
 */
static int
compare_sampled(const void *a, const void *b, void *arg)
{
	SessionSortState *state = (SessionSortState *) arg;
	SSortKey   *ka = *(SSortKey *const *) a;
	SSortKey   *kb = *(SSortKey *const *) b;

	return compare_keys(state, ka->values, ka->isnull, kb->values, kb->isnull);
}

/*
 * find_range
 *		The range of the current split that holds these key values: the
 *		first whose bound they come before (binary search).
 */
static int
find_range(SessionSortState *state, Datum *values, bool *isnull)
{
	SSortSplit *split = &state->split;
	int			lo = 0;
	int			hi = split->nbounds;

	while (lo < hi)
	{
		int			mid = lo + (hi - lo) / 2;
		SSortKey   *bound = split->bounds[mid];
		int			cmp = compare_keys(state, values, isnull,
									   bound->values, bound->isnull);

		if (cmp < 0 || (cmp == 0 && split->inclusive[mid]))
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/*
 * new_batch
 *		An empty batch with its own tape.
 */
static SSortBatch *
new_batch(SessionSortState *state, int depth)
{
	MemoryContext old = MemoryContextSwitchTo(state->spillcxt);
	SSortBatch *batch = palloc0(sizeof(SSortBatch));

	if (state->tapeset == NULL)
		state->tapeset = LogicalTapeSetCreate(false, NULL, -1);
	batch->tape = LogicalTapeCreate(state->tapeset);
	batch->depth = depth;
	MemoryContextSwitchTo(old);
	return batch;
}

/*
 * add_bound
 *		Insert a bound at position pos of the current split, with a new
 *		empty range before it (pos 0) or after it (pos nbounds).
 */
static void
add_bound(SessionSortState *state, int pos, SSortKey *key, bool inclusive)
{
	SSortSplit *split = &state->split;
	SSortBatch *batch = new_batch(state, split->depth);

	Assert(split->nbounds + 1 < split->max_ranges);
	memmove(&split->bounds[pos + 1], &split->bounds[pos],
			sizeof(SSortKey *) * (split->nbounds - pos));
	memmove(&split->inclusive[pos + 1], &split->inclusive[pos],
			sizeof(bool) * (split->nbounds - pos));
	split->bounds[pos] = key;
	split->inclusive[pos] = inclusive;
	if (pos == 0 && split->nbounds > 0)
	{
		/* the new range comes first */
		memmove(&split->ranges[1], &split->ranges[0],
				sizeof(SSortBatch *) * (split->nbounds + 1));
		split->ranges[0] = batch;
	}
	else
		split->ranges[split->nbounds + 1] = batch;
	split->nbounds++;
}

/*
 * ssort_route_row
 *		While splitting: write a row (its partition keys in route_values) to
 *		the tape of its key range.  The first and the last range are
 *		open-ended: when one of them outgrows a batch (the input came in key
 *		order, say), it ends at its least (greatest) key so far and a new
 *		range takes the keys below (above) it.
 */
void
ssort_route_row(SessionSortState *state, int64 ts, bool null_time,
				MinimalTuple tuple)
{
	SSortSplit *split = &state->split;
	Datum	   *values = state->route_values;
	bool	   *isnull = state->route_nulls;
	int			r;

	r = find_range(state, values, isnull);
	tape_write(state, split->ranges[r], ts, null_time, tuple);
	sample_row(state, split->ranges[r], values, isnull);

	if (r == 0 && (split->first_min == NULL ||
				   compare_keys(state, values, isnull, split->first_min->values,
								split->first_min->isnull) < 0))
	{
		free_key(state, split->first_min);
		split->first_min = copy_key(state, values, isnull);
	}
	else if (r == split->nbounds &&
			 (split->last_max == NULL ||
			  compare_keys(state, values, isnull, split->last_max->values,
						   split->last_max->isnull) > 0))
	{
		free_key(state, split->last_max);
		split->last_max = copy_key(state, values, isnull);
	}

	if (split->nbounds + 1 >= split->max_ranges ||
		split->ranges[r]->rows < split->target_rows)
		return;
	if (r == split->nbounds)
	{
		/* keys up to the greatest stay; greater ones go to a new range */
		add_bound(state, split->nbounds, split->last_max, true);
		split->last_max = NULL;
	}
	else if (r == 0)
	{
		/* keys from the least on stay; less ones go to a new range */
		add_bound(state, 0, split->first_min, false);
		split->first_min = NULL;
	}
}

/* What partition_rows does with one row of a partition */
typedef void (*SSortRowFn) (SessionSortState *state, SSortPartition *part,
							SSortEntry *entry, bool null_time, void *arg);

/*
 * partition_rows
 *		Call fn for every row a partition holds in memory: those with a
 *		time, then those with a NULL time.
 */
static void
partition_rows(SessionSortState *state, SSortPartition *part, SSortRowFn fn,
			   void *arg)
{
	SSortChain *chains[2] = {&part->timed, &part->untimed};

	for (int c = 0; c < 2; c++)
	{
		for (SSortBlock *block = chains[c]->head; block != NULL;
			 block = block->next)
		{
			CHECK_FOR_INTERRUPTS();
			for (int i = 0; i < block->used; i++)
				fn(state, part, &block->entries[i], c == 1, arg);
		}
	}
}

/*
 * write_row
 *		partition_rows' step while starting a split: a row held in memory
 *		onto the tape of its key range, the batch arg, sampled for the
 *		batch's own key ranges.
 */
static void
write_row(SessionSortState *state, SSortPartition *part, SSortEntry *entry,
		  bool null_time, void *arg)
{
	SSortBatch *batch = (SSortBatch *) arg;

	tape_write(state, batch, entry->ts, null_time, entry->tuple);
	sample_row(state, batch, part->keys, part->keynulls);
}

/*
 * start_split
 *		Memory is full (or the sorting array would not fit): split the
 *		source into ranges of partition keys, each to be read back as a
 *		batch that fits in memory, and write the rows held so far to them.
 *		The bounds cut the partitions held in memory, in key order, into
 *		runs of about equal rows; a partition with a run's worth of rows
 *		gets a range of its own.  The number of ranges: the source's rows
 *		(known for a batch; for the input the planner's estimate, at least
 *		twice what was read) over 60% of the rows that fit in work_mem
 *		(going by the rows held now), limited so that the ranges' tape
 *		buffers (one block each) take at most half of work_mem.
 */
static void
start_split(SessionSortState *state, bool exhausted)
{
	SSortSplit *split = &state->split;
	double		rows_est;
	double		rows_fit;
	double		per_range;
	double		next_cut;
	double		acc = 0;
	int			nranges;
	int			last_bound = -1;
	int64		i;

	ssort_collect_partitions(state);
	Assert(state->nparts >= 2);

	/* the rows that fit in work_mem, going by those held now */
	rows_fit = (double) state->mem_rows * state->budget / Max(ssort_memory_used(state), 1);
	if (exhausted)
		rows_est = state->src_rows;
	else if (state->source != NULL)
		rows_est = state->source->rows;
	else
		rows_est = Max(SSORT_CHILD(state)->plan->plan_rows,
					   2.0 * state->src_rows);
	MemSet(split, 0, sizeof(SSortSplit));
	split->depth = (state->source != NULL ? state->source->depth : 0) + 1;
	state->max_depth = Max(state->max_depth, split->depth);
	split->max_ranges = (int) Min(Max(state->budget / (2 * BLCKSZ), 4), 1024);
	nranges = (int) Min(ceil(rows_est / (0.6 * Max(rows_fit, 1.0))),
						(double) Max(split->max_ranges / 2, 2));
	nranges = Max(nranges, 2);
	split->target_rows = Max((int64) (0.8 * rows_fit), 1);

	state->splitcxt = AllocSetContextCreate(state->spillcxt, "SessionSort split",
											ALLOCSET_SMALL_SIZES);
	split->bounds = MemoryContextAlloc(state->splitcxt,
									   sizeof(SSortKey *) * split->max_ranges);
	split->inclusive = MemoryContextAlloc(state->splitcxt,
										  sizeof(bool) * split->max_ranges);
	split->ranges = MemoryContextAlloc(state->splitcxt,
									   sizeof(SSortBatch *) * split->max_ranges);

	/*
	 * A batch read back has a sample of all its rows: the bounds are drawn
	 * from it, at equal steps, if they cut the partitions held in memory
	 * into two ranges at least (so that every range is smaller than the
	 * batch).  Else, and for the input, the bounds are drawn from the
	 * partitions held in memory.
	 */
	if (state->source != NULL && state->source->nsample >= 2)
	{
		SSortBatch *src = state->source;

		qsort_arg(src->sample, src->nsample, sizeof(SSortKey *),
				  compare_sampled, state);
		for (i = 1; i < nranges && split->nbounds + 1 < nranges; i++)
		{
			SSortKey   *key = src->sample[i * src->nsample / nranges];

			if (split->nbounds > 0 &&
				compare_keys(state, key->values, key->isnull,
							 split->bounds[split->nbounds - 1]->values,
							 split->bounds[split->nbounds - 1]->isnull) == 0)
				continue;
			split->bounds[split->nbounds] = copy_key(state, key->values,
													 key->isnull);
			split->inclusive[split->nbounds++] = true;
		}
		if (split->nbounds > 0 &&
			find_range(state, state->parts[0]->keys, state->parts[0]->keynulls) ==
			find_range(state, state->parts[state->nparts - 1]->keys,
					   state->parts[state->nparts - 1]->keynulls))
		{
			while (split->nbounds > 0)
				free_key(state, split->bounds[--split->nbounds]);
		}
	}
	if (split->nbounds == 0)
	{
		/* the bounds, at partitions held in memory (all but the last) */
		per_range = (double) state->mem_rows / nranges;
		next_cut = per_range;
		for (i = 0; i < state->nparts && split->nbounds + 1 < nranges; i++)
		{
			SSortPartition *part = state->parts[i];
			int64		rows = part->timed.rows + part->untimed.rows;

			if (i > 0 && rows >= per_range && last_bound < i - 1)
			{
				/* a big partition: end the range before it */
				SSortPartition *prev = state->parts[i - 1];

				split->bounds[split->nbounds] = copy_key(state, prev->keys,
														 prev->keynulls);
				split->inclusive[split->nbounds++] = true;
				last_bound = i - 1;
			}
			acc += rows;
			if (i < state->nparts - 1 && acc >= next_cut &&
				split->nbounds + 1 < nranges)
			{
				split->bounds[split->nbounds] = copy_key(state, part->keys,
														 part->keynulls);
				split->inclusive[split->nbounds++] = true;
				last_bound = i;
				while (next_cut <= acc)
					next_cut += per_range;
			}
		}
		if (split->nbounds == 0)
		{
			SSortPartition *part = state->parts[state->nparts / 2 - 1];

			split->bounds[0] = copy_key(state, part->keys, part->keynulls);
			split->inclusive[0] = true;
			split->nbounds = 1;
		}
	}
	for (i = 0; i <= split->nbounds; i++)
		split->ranges[i] = new_batch(state, split->depth);

	/*
	 * The rows held in memory go to their ranges, one partition at a time,
	 * in key order: the first partition of the first range and the last of
	 * the last range are where the open ends start.
	 */
	for (i = 0; i < state->nparts; i++)
	{
		SSortPartition *part = state->parts[i];
		int			r = find_range(state, part->keys, part->keynulls);

		partition_rows(state, part, write_row, split->ranges[r]);
		if (r == 0 && split->first_min == NULL)
			split->first_min = copy_key(state, part->keys, part->keynulls);
		if (r == split->nbounds)
		{
			free_key(state, split->last_max);
			split->last_max = copy_key(state, part->keys, part->keynulls);
		}
	}
	ssort_release_memory(state);
	state->splitting = true;
}

/*
 * ssort_end_split
 *		The source is split: its ranges become batches to read, in key
 *		order (empty ranges are dropped).
 */
void
ssort_end_split(SessionSortState *state)
{
	SSortSplit *split = &state->split;
	int			i;

	for (i = split->nbounds; i >= 0; i--)
	{
		SSortBatch *batch = split->ranges[i];

		if (batch->rows == 0)
		{
			LogicalTapeClose(batch->tape);
			ssort_free_sample(state, batch);
			pfree(batch);
			continue;
		}
		/* a batch expected to fit needs no sample */
		if (batch->rows <= split->target_rows)
			ssort_free_sample(state, batch);
		/* frees the write buffer; the read buffer comes with the first read */
		LogicalTapeRewindForRead(batch->tape, BLCKSZ);
		if (state->npending >= state->pending_size)
		{
			state->pending_size = Max(16, 2 * state->pending_size);
			if (state->pending == NULL)
				state->pending = MemoryContextAlloc(state->spillcxt,
													sizeof(SSortBatch *) * state->pending_size);
			else
				state->pending = repalloc(state->pending,
										  sizeof(SSortBatch *) * state->pending_size);
		}
		state->pending[state->npending++] = batch;
	}
	state->disk_blocks = Max(state->disk_blocks, LogicalTapeSetBlocks(state->tapeset));
	MemoryContextDelete(state->splitcxt);
	state->splitcxt = NULL;
	MemSet(split, 0, sizeof(SSortSplit));
	state->splitting = false;
}

/*
 * ssort_can_split
 *		Can the rows held in memory be split into key ranges?  Not when
 *		there are no partition keys, or one partition, or the source is a
 *		range of ranges too deep.
 */
bool
ssort_can_split(SessionSortState *state)
{
	int			depth = state->source != NULL ? state->source->depth : 0;

	return state->npart > 0 && state->nparts >= 2 && depth < SSORT_MAX_DEPTH;
}

/*
 * start_tuplesort
 *		A tuplesort on all the keys, for the fallback.
 */
static void
start_tuplesort(SessionSortState *state)
{
	TupleDesc	desc = ExecGetResultType(SSORT_CHILD(state));

	state->tuplesort = tuplesort_begin_heap(desc, state->nkeys, state->attnos,
											state->sortops, state->colls,
											state->nullsfirst, work_mem, NULL,
											TUPLESORT_NONE);
}

/*
 * sort_row
 *		partition_rows' step for spill_to_tuplesort: a row into the
 *		tuplesort.
 */
static void
sort_row(SessionSortState *state, SSortPartition *part, SSortEntry *entry,
		 bool null_time, void *arg)
{
	tuplesort_puttupleslot(state->tuplesort,
						   ssort_fill_slot(state, state->child_slot, part,
										   entry, null_time));
}

/*
 * spill_to_tuplesort
 *		The rows no longer fit: move every stored row to a tuplesort and
 *		free the memory.
 */
static void
spill_to_tuplesort(SessionSortState *state)
{
	TupleTableSlot *slot = state->child_slot;
	SSortPartition *part;
	TupleHashIterator iter;
	TupleHashEntry entry = NULL;

	start_tuplesort(state);
	if (state->npart > 0)
		InitTupleHashIterator(state->hashtable, &iter);
	for (;;)
	{
		if (state->npart > 0)
		{
			entry = ScanTupleHashTable(state->hashtable, &iter);
			if (entry == NULL)
				break;
			part = (SSortPartition *) wj_tuplehash_get(state->hashtable, entry);
		}
		else
			part = &state->single;
		partition_rows(state, part, sort_row, NULL);
		if (state->npart == 0)
			break;
	}
	if (state->npart > 0)
		TermTupleHashIterator(&iter);
	ExecClearTuple(slot);

	/* the memory held by rows now belongs to the tuplesort */
	ssort_release_memory(state);
	if (state->source == NULL)
		state->spilled = true;
	else
		state->nsorted_batches++;
}

/*
 * ssort_memory_full
 *		The rows of the source no longer fit: split the source into key
 *		ranges, or, when that cannot help (one partition, or no partition
 *		keys, or ranges of ranges too deep), send its rows to a tuplesort.
 */
void
ssort_memory_full(SessionSortState *state, bool exhausted)
{
	if (ssort_can_split(state))
		start_split(state, exhausted);
	else
		spill_to_tuplesort(state);
}

/*
 * ssort_release_spill
 *		Close the tapes and forget the batches.
 */
void
ssort_release_spill(SessionSortState *state)
{
	if (state->tapeset != NULL)
	{
		state->disk_blocks = Max(state->disk_blocks,
								 LogicalTapeSetBlocks(state->tapeset));
		LogicalTapeSetClose(state->tapeset);
		state->tapeset = NULL;
	}
	MemoryContextReset(state->spillcxt);
	state->splitcxt = NULL;
	MemSet(&state->split, 0, sizeof(SSortSplit));
	state->splitting = false;
	state->pending = NULL;
	state->npending = 0;
	state->pending_size = 0;
	state->source = NULL;
	state->readbuf = NULL;
	state->readbuf_size = 0;
	state->formbuf = NULL;
	state->formbuf_size = 0;
}
