/*-------------------------------------------------------------------------
 *
 * tumble_agg_groups.c
 *	  TumbleAgg's group store: the window of a row's time, and where the
 *	  cells of each (window, keys) group live (see tumble_agg_exec.c).
 *
 * Without keys the groups are a dense array of windows indexed by
 * (start - base) / stride (the window length; in a parallel window
 * partition, which holds every n-th window, n times that), grown as
 * windows appear, with the NULL and infinite windows beside it.  With one
 * integer-like key (an item, a device) the array has a second dimension,
 * the key's value less a base: slot (window, key - kbase), grown as keys
 * appear; a NULL key or an infinite window turns it hashed.  Either array
 * turns into a hash table when it would grow sparse or beyond the memory
 * limit.  With more keys, or after that, a simplehash table on integers
 * (tumble_agg_keys.c) when every key is integer-like, else execGrouping.c's
 * TupleHashTable.  Cells are cut from blocks of the group context, each
 * group's on cache lines of its own.
 *
 * src/nodes/tumble_agg/tumble_agg_groups.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/int.h"
#include "executor/executor.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "src/common/huge_pages.h"
#include "src/common/pg_compat.h"
#include "src/nodes/tumble_agg/tumble_agg_internal.h"
#include "src/common/window_arith.h"

/*
 * ta_group_bytes
 *		Memory held by the groups now.
 */
Size
ta_group_bytes(TumbleAggState *state)
{
	return MemoryContextMemAllocated(state->groupcxt, true) +
		MemoryContextMemAllocated(state->metacxt, true);
}

/*
 * ta_reset_groups
 *		Forget every group: an empty dense array (without keys) or an empty
 *		hash table.
 */
void
ta_reset_groups(TumbleAggState *state)
{
	MemoryContextReset(state->groupcxt);
	state->bump_next = state->bump_end = NULL;
	state->dcells = NULL;
	state->dcells_raw = NULL;
	state->dused = NULL;
	state->dnwin = 0;
	state->dkbase = 0;
	state->dnkey = 1;
	state->dgroups = 0;
	memset(state->special, 0, sizeof(state->special));
	if (state->inttable != NULL)
		ta_int_reset(state->inttable);
	if (state->hashtable != NULL)
		ResetTupleHashTable(state->hashtable);
	state->dense = (state->nkeys == 0 || state->dkeyed) && !state->hashed_built;
	state->groups = 0;
	wj_state_clear(&state->stats);
}

/*
 * ta_build_hashtable
 *		The hash table on (start, keys), created on first need, sized for
 *		the planner's estimate of the groups as PostgreSQL's hash
 *		aggregation sizes its table: a table that starts small and doubles
 *		moves every group it holds at each doubling, and with many groups
 *		each move is a cache miss.  The buckets made at once take at most a
 *		quarter of the memory limit, so that a wrong estimate cannot make
 *		the node spill before its first row (the table still grows past
 *		that, as the groups come).
 */
void
ta_build_hashtable(TumbleAggState *state)
{
	MemoryContext old = MemoryContextSwitchTo(state->metacxt);
	Size		budget = state->mem_limit / 4;

	state->hashed_built = true;
	if (state->intkeys)
	{
		Oid			types[TA_INT_KEYS];

		for (int k = 0; k < state->nkeys; k++)
			types[k] = TupleDescAttr(state->hashdesc, k + 1)->atttypid;
		state->inttable = ta_int_create(state->metacxt, state->nkeys, types,
										state->est_groups, budget);
		MemoryContextSwitchTo(old);
		return;
	}
	state->hashtable = wj_build_tuple_hash_table(&state->css.ss.ps, state->hashdesc,
												 state->nkeys + 1, state->hashcols,
												 state->eqfuncoids, state->hashfuncs,
												 state->collations,
												 ta_initial_buckets(state->est_groups, budget,
																	sizeof(TupleHashEntryData)),
												 state->metacxt, state->groupcxt,
												 state->tempcxt, false);
	MemoryContextSwitchTo(old);
}

/*
 * ta_new_cells
 *		Zeroed cells for a new group.
 */
TaCell *
ta_new_cells(TumbleAggState *state)
{
	Size		size = sizeof(TaCell) * Max(state->naggs, 1);
	TaCell	   *cells;

	state->groups++;
	wj_state_add(&state->stats, sizeof(TaCell) * state->naggs);

	/*
	 * From blocks of the group context, each group's cells on cache lines
	 * of their own (a cell is one line) and next to the previous group's.
	 */
	if (state->bump_next == NULL || state->bump_next + size > state->bump_end)
	{
		Size		block = Max(TA_BUMP_BLOCK, size + PG_CACHE_LINE_SIZE);
		char	   *raw;

		/*
		 * Once the cells are large, in blocks on huge pages (huge_pages.c);
		 * only under a memory limit that such a block overshoots by an
		 * eighth at most.
		 */
		if ((Size) state->groups * size >= WJ_HUGE_PAGE_MIN &&
			state->mem_limit >= 8 * TA_HUGE_BLOCK)
			block = Max(block, TA_HUGE_BLOCK);
		raw = wj_alloc_huge(state->groupcxt, block, false);

		state->bump_next = (char *) TYPEALIGN(PG_CACHE_LINE_SIZE, raw);
		state->bump_end = raw + block;
	}
	cells = (TaCell *) state->bump_next;
	state->bump_next += size;
	memset(cells, 0, size);
	return cells;
}

/*
 * ta_hashed_cells
 *		The cells of group (start, keys), created if new.  keys are the
 *		values of columns 2 .. nkeys + 1 of slot (a child or a partial row),
 *		or none.
 */
TaCell *
ta_hashed_cells(TumbleAggState *state, int64 start, bool start_null,
				TupleTableSlot *keys, const AttrNumber *keycols)
{
	TupleTableSlot *hs = state->hashslot;
	TupleHashEntry entry;
	bool		isnew;
	TaCell	   *cells;

	if (!state->hashed_built)
		ta_build_hashtable(state);
	if (state->intkeys)
	{
		TaCell	  **p = ta_int_lookup(state->inttable, start, start_null, keys, keycols,
										  &isnew);

		if (isnew)
			*p = ta_new_cells(state);
		return *p;
	}
	ExecClearTuple(hs);
	hs->tts_values[0] = Int64GetDatum(start);
	hs->tts_isnull[0] = start_null;
	for (int k = 0; k < state->nkeys; k++)
		hs->tts_values[k + 1] = slot_getattr(keys, keycols[k], &hs->tts_isnull[k + 1]);
	ExecStoreVirtualTuple(hs);
	entry = LookupTupleHashEntry(state->hashtable, hs, &isnew, NULL);
	if (!isnew)
		return (TaCell *) wj_tuplehash_get(state->hashtable, entry);
	cells = ta_new_cells(state);
	wj_tuplehash_set(state->hashtable, entry, cells);
	return cells;
}

/*
 * ta_int_key_slot
 *		Group (start, key) of an array with a key dimension in keyvslot, as
 *		the integer table reads and returns keys: (window, key).
 */
static TupleTableSlot *
ta_int_key_slot(TumbleAggState *state, int64 start, bool start_null, int64 key,
				bool key_null)
{
	TupleTableSlot *keys = state->keyvslot;

	ExecClearTuple(keys);
	keys->tts_values[0] = Int64GetDatum(start);
	keys->tts_isnull[0] = start_null;
	keys->tts_values[1] = key_null ? (Datum) 0 :
		ta_int64_datum(TupleDescAttr(state->hashdesc, 1)->atttypid, key);
	keys->tts_isnull[1] = key_null;
	return ExecStoreVirtualTuple(keys);
}

/*
 * ta_dense_to_hashed
 *		Move the dense array's groups into the hash table.
 */
static void
ta_dense_to_hashed(TumbleAggState *state)
{
	TaCell	   *dcells = state->dcells;
	bool	   *dused = state->dused;
	TaCell	   *special[TA_NSPECIAL];
	int64		nslots = state->dnwin * state->dnkey;
	int64		groups = state->groups;

	memcpy(special, state->special, sizeof(special));
	state->dense = false;
	state->layout++;
	ta_build_hashtable(state);
	state->groups = 0;
	wj_state_clear(&state->stats);
	for (int64 i = 0; i < nslots; i++)
	{
		int64		start = state->dbase + (i / state->dnkey) * state->dstride;
		TupleTableSlot *keys = NULL;
		TaCell	   *cells;

		if (!dused[i])
			continue;
		if (state->dkeyed)
			keys = ta_int_key_slot(state, start, false, state->dkbase + i % state->dnkey,
								   false);
		cells = ta_hashed_cells(state, start, false, keys, state->partkeycols);
		memcpy(cells, &dcells[i * state->naggs], sizeof(TaCell) * state->naggs);
	}
	for (int s = 0; s < TA_NSPECIAL; s++)
	{
		TaCell	   *cells;

		if (special[s] == NULL)
			continue;
		Assert(!state->dkeyed);
		cells = ta_hashed_cells(state, s == TA_SPECIAL_NEG_INF ? DT_NOBEGIN : DT_NOEND,
								s == TA_SPECIAL_NULL, NULL, NULL);
		memcpy(cells, special[s], sizeof(TaCell) * state->naggs);
	}
	Assert(state->groups == groups);
	(void) groups;
	/* the arrays stay in groupcxt until the next reset: small beside it */
}

/*
 * ta_huge_ok
 *		Whether a dense array of size bytes may take the slack of huge pages
 *		(wj_alloc_huge_array: its size rounded up to 2 MB, and 2 MB more):
 *		when the array and its slack fit the memory limit and the slack is
 *		at most an eighth of it, so that it does not bring a spill forward.
 */
static bool
ta_huge_ok(TumbleAggState *state, Size size)
{
	double		slack = 2.0 * WJ_HUGE_ALIGN_MIN;

	return (double) size + slack <= (double) state->mem_limit &&
		8.0 * slack <= (double) state->mem_limit;
}

/*
 * ta_dense_alloc
 *		A dense array of nwin x nkey slots in state's fields, none used (the
 *		cells are zeroed as their slot is first used); the old one is left
 *		to the caller.
 */
static void
ta_dense_alloc(TumbleAggState *state, int64 nwin, int64 nkey)
{
	Size		cellbytes = sizeof(TaCell) * state->naggs + 1;
	Size		size = (Size) (nwin * nkey) * cellbytes;

	state->dcells = wj_alloc_huge_array(state->groupcxt, size, ta_huge_ok(state, size),
										&state->dcells_raw);
	state->dused = (bool *) (state->dcells + nwin * nkey * state->naggs);
	memset(state->dused, 0, nwin * nkey);
	state->dnwin = nwin;
	state->dnkey = nkey;
	state->layout++;
}

/*
 * ta_dense_range
 *		The new span of one dimension of the dense array (windows or keys),
 *		in units of its step, so that it holds v: *lo its first value and
 *		the result its length, what it needs and half as much again on the
 *		side it grows, the old values keeping their places relative to each
 *		other.  -1 on overflow.  (Half, not twice: the rows of a random
 *		order reach the ends of a span early, and a doubled span per
 *		dimension could leave three quarters of the array unused; rows in
 *		time order grow it window after window, and half keeps the copies
 *		to about three times the final array.)
 */
static int64
ta_dense_range(int64 v, int64 base, int64 n, int64 step, int64 *lo)
{
	int64		span;
	int64		need;
	int64		grown;

	if (v < base)
	{
		/* steps from v to the old last value */
		if (pg_sub_s64_overflow(base, v, &span))
			return -1;
		need = (span + step - 1) / step + n;
	}
	else
	{
		if (pg_sub_s64_overflow(v, base, &span))
			return -1;
		need = span / step + 1;
	}
	grown = need + Max(need / 2, 1);
	if (v < base)
	{
		if (pg_mul_s64_overflow(grown - n, step, &span) ||
			pg_sub_s64_overflow(base, span, lo))
			return -1;
	}
	else
		*lo = base;
	return grown;
}

/*
 * ta_dense_cells
 *		The dense array's cells of window start (finite) and key (0 without
 *		a key), growing the array; NULL when the array should turn hashed:
 *		it would grow sparse or beyond the memory limit.
 *
 * The array is window-major: dnkey slots per window.  When a window or a
 * key falls outside it, a larger array is made (the dimension that grew to
 * what it needs and half as much again) and the used slots are copied
 * over; the slots of the new array are not touched until used, so that a
 * span the data never fill costs address space, not pages.
 */
static TaCell *
ta_dense_cells(TumbleAggState *state, int64 start, int64 key)
{
	int64		stride = state->dstride;
	int64		slot;
	int64		w;
	int64		k;
	TaCell	   *cells;

	if (state->dnwin == 0)
	{
		int64		nwin = state->dkeyed ? TA_DENSE_MIN_KEYED : TA_DENSE_MIN_WINDOWS;
		int64		nkey = state->dkeyed ? TA_DENSE_MIN_KEYS : 1;

		if (pg_sub_s64_overflow(start, (nwin / 2) * stride, &state->dbase) ||
			pg_sub_s64_overflow(key, nkey / 2, &state->dkbase))
			return NULL;
		ta_dense_alloc(state, nwin, nkey);
	}
	if (pg_sub_s64_overflow(start, state->dbase, &w) ||
		pg_sub_s64_overflow(key, state->dkbase, &k))
		return NULL;
	if (start < state->dbase || w / stride >= state->dnwin ||
		key < state->dkbase || k >= state->dnkey)
	{
		int64		wlo = state->dbase;
		int64		klo = state->dkbase;
		int64		nwin = state->dnwin;
		int64		nkey = state->dnkey;
		double		slots;
		double		groups = Max((double) state->dgroups, state->est_groups);
		TaCell	   *oldcells = state->dcells;
		bool	   *oldused = state->dused;
		void	   *oldraw = state->dcells_raw;
		int64		oldnwin = state->dnwin;
		int64		oldnkey = state->dnkey;
		int64		wshift;
		int64		kshift;

		if (start < state->dbase || w / stride >= state->dnwin)
			nwin = ta_dense_range(start, state->dbase, state->dnwin, stride, &wlo);
		if (key < state->dkbase || k >= state->dnkey)
			nkey = ta_dense_range(key, state->dkbase, state->dnkey, 1, &klo);
		if (nwin < 0 || nkey < 0)
			return NULL;
		slots = (double) nwin * (double) nkey;
		if (slots * (sizeof(TaCell) * state->naggs + 1) > (double) state->mem_limit ||
			(slots > TA_DENSE_SPARSE_FROM && slots > TA_DENSE_SPARSITY * groups) ||
			(state->dkeyed && slots > TA_DENSE_KEYED_FREE &&
			 state->est_rows < slots / 2) ||
			(double) nwin * (double) stride > (double) PG_INT64_MAX / 4)
			return NULL;

		/* the used slots move to their places in the new array */
		wshift = (state->dbase - wlo) / stride;
		kshift = state->dkbase - klo;
		ta_dense_alloc(state, nwin, nkey);
		for (int64 i = 0; i < oldnwin * oldnkey; i++)
		{
			int64		to;

			if (!oldused[i])
				continue;
			to = (i / oldnkey + wshift) * nkey + i % oldnkey + kshift;
			memcpy(&state->dcells[to * state->naggs], &oldcells[i * state->naggs],
				   sizeof(TaCell) * state->naggs);
			state->dused[to] = true;
		}
		pfree(oldraw);
		state->dbase = wlo;
		state->dkbase = klo;
		w = start - wlo;
		k = key - klo;
	}
	slot = (w / stride) * state->dnkey + k;
	cells = &state->dcells[slot * state->naggs];
	if (!state->dused[slot])
	{
		state->dused[slot] = true;
		memset(cells, 0, sizeof(TaCell) * state->naggs);
		state->dgroups++;
		state->groups++;
		wj_state_add(&state->stats, sizeof(TaCell) * state->naggs);
	}
	return cells;
}

/*
 * ta_group_cells_int
 *		The cells of group (start, key) where the one key is integer-like
 *		(as int64; or no key, then key is 0): dense or hashed.  The dense
 *		array keys the NULL and infinite windows beside it when it has no
 *		key, and turns hashed at one when it has a key (or at a NULL key).
 */
TaCell *
ta_group_cells_int(TumbleAggState *state, int64 start, bool start_null,
				   int64 key, bool key_null)
{
	TupleTableSlot *keys = NULL;

	if (state->dense)
	{
		int			s = -1;

		if (start_null)
			s = TA_SPECIAL_NULL;
		else if (start == DT_NOBEGIN)
			s = TA_SPECIAL_NEG_INF;
		else if (start == DT_NOEND)
			s = TA_SPECIAL_POS_INF;
		if (s >= 0 && !state->dkeyed)
		{
			if (state->special[s] == NULL)
				state->special[s] = ta_new_cells(state);
			return state->special[s];
		}
		if (s < 0 && !key_null)
		{
			TaCell	   *cells = ta_dense_cells(state, start, key);

			if (cells != NULL)
				return cells;
		}
		ta_dense_to_hashed(state);
	}
	if (state->dkeyed)
		keys = ta_int_key_slot(state, start, start_null, key, key_null);
	return ta_hashed_cells(state, start, start_null, keys, state->partkeycols);
}

/*
 * ta_group_cells
 *		The cells of group (start, keys): dense or hashed.  keys are the
 *		values of columns keycols of slot keys (a child or a partial row).
 */
TaCell *
ta_group_cells(TumbleAggState *state, int64 start, bool start_null,
			   TupleTableSlot *keys, const AttrNumber *keycols)
{
	if (state->dense)
	{
		int64		key = 0;
		bool		key_null = false;

		if (state->dkeyed)
			key = ta_dense_key(state, keys, keycols[0], &key_null);
		return ta_group_cells_int(state, start, start_null, key, key_null);
	}
	return ta_hashed_cells(state, start, start_null, keys, keycols);
}

/* the error of PostgreSQL's timestamp arithmetic */
void
ta_timestamp_out_of_range(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
			 errmsg("timestamp out of range")));
}

/*
 * ta_date_bin
 *		date_bin(unit, ts, origin) for a finite ts, with the steps and the
 *		errors of PostgreSQL's timestamp_bin.
 */
static int64
ta_date_bin(TumbleAggState *state, int64 ts)
{
	int64		unit = state->info.unit;
	int64		diff;
	int64		delta;
	int64		result;

	if (unlikely(pg_sub_s64_overflow(ts, state->info.origin, &diff)))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("interval out of range")));
	delta = diff - diff % unit;
	/* towards -infinity for a time before the origin */
	if (diff < 0 && diff % unit != 0)
		delta -= unit;
	if (unlikely(pg_add_s64_overflow(state->info.origin, delta, &result)))
		ta_timestamp_out_of_range();
	return result;
}

/*
 * ta_window_start
 *		The window of time t (the child's time column); start_null for a NULL
 *		time.  tumble() rejects an infinite time as it always does; date_bin
 *		and date_trunc keep it.
 */
int64
ta_window_start(TumbleAggState *state, Datum t, bool isnull, bool *start_null)
{
	int64		ts;
	int64		rem;

	*start_null = isnull;
	if (isnull)
		return 0;
	ts = DatumGetInt64(t);
	if (TIMESTAMP_NOT_FINITE(ts))
	{
		if (state->info.bucket == TA_BUCKET_TUMBLE)
			wj_check_finite(ts);
		return ts;
	}
	if (state->info.bucket == TA_BUCKET_DATE_BIN)
		return ta_date_bin(state, ts);
	/* wj_window_floor's arithmetic, its base computed once */
	rem = wj_window_rem(ts, state->info.unit, state->floor_base);
	if (unlikely(!IS_VALID_TIMESTAMP(ts - rem)))
	{
		if (state->info.bucket == TA_BUCKET_DATE_TRUNC)
			ta_timestamp_out_of_range();
		return wj_window_floor(ts, state->info.unit, state->info.offset);	/* raises */
	}
	return ts - rem;
}


/*
 * ta_groups_start
 *		Start a walk over the groups in memory (ta_groups_next).
 */
void
ta_groups_start(TumbleAggState *state)
{
	state->dpos = 0;
	state->spos = 0;
	if (state->dense)
		return;
	if (state->inttable != NULL)
		ta_int_start(state->inttable);
	else if (state->hashtable != NULL)
		InitTupleHashIterator(state->hashtable, &state->hashiter);
}

/*
 * ta_groups_next
 *		The next group's cells, its window start, and its keys in *keys
 *		(columns 2 .., the window in column 1; NULL without keys); NULL at
 *		the end.  Dense groups come the NULL and infinite windows first,
 *		then in window order (and key order within a window).
 */
TaCell *
ta_groups_next(TumbleAggState *state, int64 *start, bool *start_null,
			   TupleTableSlot **keys)
{
	*keys = NULL;
	if (state->dense)
	{
		while (state->spos < TA_NSPECIAL)
		{
			int			s = state->spos++;

			if (state->special[s] != NULL)
			{
				*start = s == TA_SPECIAL_NEG_INF ? DT_NOBEGIN : DT_NOEND;
				*start_null = s == TA_SPECIAL_NULL;
				return state->special[s];
			}
		}
		while (state->dpos < state->dnwin * state->dnkey)
		{
			int64		i = state->dpos++;

			if (state->dused[i])
			{
				*start = state->dbase + (i / state->dnkey) * state->dstride;
				*start_null = false;
				if (state->dkeyed)
					*keys = ta_int_key_slot(state, *start, false,
											state->dkbase + i % state->dnkey, false);
				return &state->dcells[i * state->naggs];
			}
		}
		return NULL;
	}
	if (state->inttable != NULL)
	{
		TaCell	   *cells = ta_int_next(state->inttable, state->keyvslot);

		if (cells == NULL)
			return NULL;
		*keys = state->keyvslot;
		*start = DatumGetInt64(slot_getattr(*keys, 1, start_null));
		return cells;
	}
	if (state->hashtable != NULL)
	{
		TupleHashEntry entry = ScanTupleHashTable(state->hashtable, &state->hashiter);

		if (entry == NULL)
		{
			TermTupleHashIterator(&state->hashiter);
			return NULL;
		}
		ExecStoreMinimalTuple(wj_tuplehash_tuple(entry), state->keyslot, false);
		*keys = state->keyslot;
		*start = DatumGetInt64(slot_getattr(*keys, 1, start_null));
		return (TaCell *) wj_tuplehash_get(state->hashtable, entry);
	}
	return NULL;
}
