/*-------------------------------------------------------------------------
 *
 * asof_lookup.c
 *	  The lookup strategy of the AsOfJoin custom scan: every version hashed
 *	  by its keys, each outer row answered by a binary search among its
 *	  key's versions, in its scan order.
 *
 * asof_lookup_load reads the inner child (sorted by time, tie breakers)
 * into a TupleHashTable whose entry per key is an array of versions in that
 * order (AsOfVersions, asof_lookup.h); each version is a record packed
 * into large blocks (asof_dense_alloc).  With integer-like times the array
 * has two levels of fences, so that the binary search runs mostly in
 * cache.  The outer rows are answered in batches by asof_lookup_probe.c.
 *
 * If the versions exceed work_mem * hash_mem_multiplier while loading, the
 * node falls back at run time: the table is emptied, the inner child
 * restarted and the outer rows sorted by the node itself (asof_sort_outer)
 * -- by time for the sweep, by (keys, time) for the nearest merge -- and
 * the strategy fallen back to takes them:
 * a sweep in this table, or a merge, each with a state of its own made at
 * begin (asof_sweep_begin_in, asof_merge_begin_sorted) and run through its
 * strategy table (AsOfLookupState.fb).
 *
 * The state (AsOfLookupState, asof_lookup.h) is this file's and that of
 * asof_lookup_probe.c, asof_shared.c and asof_key_index.c; they find it
 * through the node (asof_lookup_state).  The strategy's callbacks are at the end.
 *
 * src/nodes/asof_join/asof_lookup.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/nbtree.h"
#include "access/tupdesc.h"
#include "catalog/pg_type.h"
#include "common/int.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "utils/date.h"
#include "utils/datum.h"
#include "utils/expandeddatum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/sortsupport.h"
#include "utils/timestamp.h"
#include "utils/tuplesort.h"

#include "src/common/pg_compat.h"
#include "src/common/state_stats.h"
#include "src/nodes/asof_join/asof.h"
#include "src/nodes/asof_join/asof_lookup.h"
#include "src/nodes/asof_join/asof_merge.h"
#include "src/nodes/asof_join/asof_sweep.h"

static void asof_nearest_sort_begin(AsOfJoinState *s);
static TupleTableSlot *asof_fetch_outer(AsOfJoinState *s);

/*
 * asof_byref_size
 *		Bytes needed to keep a copy of the by-reference values among the
 *		first natts columns of a slot (attributes already extracted),
 *		each MAXALIGNed; expanded objects count at their flat size, values
 *		with a short varlena header at their size with a 4-byte one (see
 *		asof_flatten_values).
 */
static Size
asof_byref_size(TupleTableSlot *slot, int natts)
{
	TupleDesc	desc = slot->tts_tupleDescriptor;
	Size		size = 0;
	int			i;

	for (i = 0; i < natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		Datum		v = slot->tts_values[i];

		if (slot->tts_isnull[i] || att->attbyval)
			continue;
		if (att->attlen == -1 && VARATT_IS_SHORT(DatumGetPointer(v)))
			size += MAXALIGN(VARSIZE_SHORT(DatumGetPointer(v)) -
							 VARHDRSZ_SHORT + VARHDRSZ);
		else if (att->attlen == -1 &&
				 VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(v)))
			size += MAXALIGN(EOH_get_flat_size(DatumGetEOHP(v)));
		else
			size += MAXALIGN(datumGetSize(v, false, att->attlen));
	}
	return size;
}

/*
 * asof_flatten_values
 *		Set values[] to the first natts columns of a slot (attributes
 *		already extracted), copying each by-reference value into data,
 *		which has room for asof_byref_size() bytes.  NULLs become 0.  A
 *		value with a short (1-byte) varlena header, as tuples store small
 *		values, is copied with a 4-byte header: every function reading it
 *		(numeric_mul, say) would otherwise detoast it into a new copy, on
 *		each use of each row.
 */
static void
asof_flatten_values(TupleTableSlot *slot, int natts, Datum *values,
					char *data)
{
	TupleDesc	desc = slot->tts_tupleDescriptor;
	int			i;

	for (i = 0; i < natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		Datum		v = slot->tts_values[i];
		Size		len;

		if (slot->tts_isnull[i] || att->attbyval)
		{
			values[i] = slot->tts_isnull[i] ? (Datum) 0 : v;
			continue;
		}
		if (att->attlen == -1 && VARATT_IS_SHORT(DatumGetPointer(v)))
		{
			Size		datalen = VARSIZE_SHORT(DatumGetPointer(v)) -
				VARHDRSZ_SHORT;

			len = datalen + VARHDRSZ;
			SET_VARSIZE(data, len);
			memcpy(VARDATA(data), VARDATA_SHORT(DatumGetPointer(v)), datalen);
		}
		else if (att->attlen == -1 &&
				 VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(v)))
		{
			ExpandedObjectHeader *eoh = DatumGetEOHP(v);

			len = EOH_get_flat_size(eoh);
			EOH_flatten_into(eoh, data, len);
		}
		else
		{
			len = datumGetSize(v, false, att->attlen);
			memcpy(data, DatumGetPointer(v), len);
		}
		values[i] = PointerGetDatum(data);
		data += MAXALIGN(len);
	}
}

/*
 * asof_copy_values
 *		Copy a row's columns to values/isnull, its by-reference values into
 *		one allocation in the current memory context.
 */
void
asof_copy_values(TupleTableSlot *slot, int natts, Datum *values,
				 bool *isnull)
{
	Size		size;

	slot_getallattrs(slot);
	size = asof_byref_size(slot, natts);
	memcpy(isnull, slot->tts_isnull, natts * sizeof(bool));
	asof_flatten_values(slot, natts, values,
						size > 0 ? palloc(size) : NULL);
}

/*
 * asof_note_block
 *		Loading versions to share: list a block of records (start, bytes
 *		used so far); returns its index.
 */
static int
asof_note_block(AsOfJoinState *s, char *start, Size used)
{
	AsOfLookupState *ls = asof_lookup_state(s);
	if (ls->nblocks == ls->maxblocks)
	{
		ls->maxblocks = Max(ls->maxblocks * 2, 64);
		if (ls->blocks == NULL)
		{
			ls->blocks = MemoryContextAlloc(ls->table->hashcxt,
										   sizeof(char *) * ls->maxblocks);
			ls->block_used = MemoryContextAlloc(ls->table->hashcxt,
											   sizeof(Size) * ls->maxblocks);
		}
		else
		{
			ls->blocks = repalloc_huge(ls->blocks,
									  sizeof(char *) * ls->maxblocks);
			ls->block_used = repalloc_huge(ls->block_used,
										  sizeof(Size) * ls->maxblocks);
		}
	}
	ls->blocks[ls->nblocks] = start;
	ls->block_used[ls->nblocks] = used;
	return ls->nblocks++;
}

/*
 * asof_dense_alloc
 *		Space for a version record, carved out of large blocks of hashcxt
 *		(listed when loading versions to share).
 */
static char *
asof_dense_alloc(AsOfJoinState *s, Size size)
{
	AsOfLookupState *ls = asof_lookup_state(s);
	char	   *p;

	size = MAXALIGN(size);
	if (size > ASOF_DENSE_MIN / 8)
	{
		p = MemoryContextAlloc(ls->table->hashcxt, size);
		if (ls->rec_relative)
			(void) asof_note_block(s, p, size);
		return p;
	}
	if (size > ls->dense_free)
	{
		/* blocks grow like an AllocSet's, so small tables stay small */
		if (ls->dense_next == 0)
			ls->dense_next = ASOF_DENSE_MIN;
		ls->dense_ptr = MemoryContextAlloc(ls->table->hashcxt, ls->dense_next);
		ls->dense_free = ls->dense_next;
		ls->dense_next = Min(ls->dense_next * 2, ASOF_DENSE_MAX);
		if (ls->rec_relative)
			ls->dense_block = asof_note_block(s, ls->dense_ptr, 0);
	}
	p = ls->dense_ptr;
	ls->dense_ptr += size;
	ls->dense_free -= size;
	if (ls->rec_relative)
		ls->block_used[ls->dense_block] += size;
	return p;
}

/*
 * asof_lookup_put
 *		Lookup strategy: append the inner row to the versions of its key.
 */
static void
asof_lookup_put(AsOfJoinState *s, TupleTableSlot *inner)
{
	AsOfLookupState *ls = asof_lookup_state(s);
	TupleHashEntry entry;
	AsOfVersions *vl;
	MemoryContext oldcxt;
	Datum	   *values;
	bool		isnew;
	Size		size;
	char	   *rec;
	int			i;

	slot_getallattrs(inner);
	for (i = 0; i < s->nkeys; i++)
		ls->table->ikeys[i] = inner->tts_values[s->inner_key_attno[i] - 1];
	entry = LookupTupleHashEntry(ls->table->hashtable,
								 asof_key_slot(s, ls->table, ls->table->ikeys),
								 &isnew, NULL);

	oldcxt = MemoryContextSwitchTo(ls->table->hashcxt);
	if (isnew)
	{
		vl = palloc(sizeof(AsOfVersions));
		vl->n = 0;
		vl->cap = 2 * ASOF_FENCE;
		vl->v = palloc(sizeof(AsOfVersion) * vl->cap);
		vl->fences = NULL;
		vl->super = NULL;
		vl->nullrec = NULL;
		vl->base = NULL;
		if (ls->time_int64)
		{
			vl->fences = palloc(sizeof(int64) * (vl->cap / ASOF_FENCE));
			vl->super = palloc(sizeof(int64) *
							   (vl->cap / ASOF_FENCE / ASOF_FENCE + 1));
		}
		wj_tuplehash_set(ls->table->hashtable, entry, vl);
	}
	else
		vl = (AsOfVersions *) wj_tuplehash_get(ls->table->hashtable, entry);
	MemoryContextSwitchTo(oldcxt);

	/*
	 * a version with a NULL time: its key has versions, none matches
	 * (except in the nearest direction without tolerance: kept below)
	 */
	if (asof_inner_time_null(s, inner) && !s->info.near_keep_nulls)
		return;


	oldcxt = MemoryContextSwitchTo(ls->table->hashcxt);
	if (vl->n == vl->cap)
	{
		if (vl->cap > INT_MAX / 2)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("too many versions of one key for AsOfJoin")));
		vl->cap *= 2;
		vl->v = repalloc_huge(vl->v, sizeof(AsOfVersion) * (Size) vl->cap);
		if (vl->fences)
		{
			vl->fences = repalloc_huge(vl->fences,
									   sizeof(int64) * (Size) (vl->cap / ASOF_FENCE));
			vl->super = repalloc_huge(vl->super,
									  sizeof(int64) *
									  (Size) (vl->cap / ASOF_FENCE / ASOF_FENCE + 1));
		}
	}
	MemoryContextSwitchTo(oldcxt);

	/* The record: Datums, nulls, then the by-reference values */
	size = ls->rec_header + asof_byref_size(inner, s->ninner);
	rec = asof_dense_alloc(s, size);
	values = (Datum *) rec;
	memcpy(rec + s->ninner * sizeof(Datum), inner->tts_isnull,
		   s->ninner * sizeof(bool));
	asof_flatten_values(inner, s->ninner, values, rec + ls->rec_header);
	if (ls->rec_relative)
	{
		for (i = 0; i < ls->ninner_byref; i++)
		{
			int			att = ls->inner_byref[i];

			if (!inner->tts_isnull[att])
				values[att] = (Datum) (DatumGetPointer(values[att]) - rec);
		}
	}

	/* nearest: a version with a NULL time serves only a key without others */
	if (s->near != NULL && inner->tts_isnull[s->inner_time_attno - 1])
	{
		vl->nullrec = rec;
		wj_state_add(&s->stats, size);
		return;
	}

	if (ls->time_int64)
	{
		int64		t = asof_time_int64(s, values[s->inner_time_attno - 1]);

		vl->v[vl->n].time = Int64GetDatum(t);
		if (vl->n % ASOF_FENCE == 0)
			vl->fences[vl->n / ASOF_FENCE] = t;
		if (vl->n % (ASOF_FENCE * ASOF_FENCE) == 0)
			vl->super[vl->n / (ASOF_FENCE * ASOF_FENCE)] = t;
	}
	else
		vl->v[vl->n].time = values[s->inner_time_attno - 1];
	vl->v[vl->n].rec = rec;
	vl->n++;
	wj_state_add(&s->stats, size);
}

/*
 * asof_sort_outer
 *		Lookup strategy's fallback: read every outer row into a tuplesort
 *		with extra columns after the outer ones, ordered as the strategy
 *		fallen back to needs: the row's time for the sweep; its keys and
 *		then its time, NULLs last, for the nearest merge.
 *
 * Rows with a NULL key match nothing: no time (sorted last).  A shifted
 * time sorts like its base, which cannot be out of range.
 */
static void
asof_sort_outer(AsOfJoinState *s)
{
	AsOfLookupState *ls = asof_lookup_state(s);
	ExprContext *econtext = s->css.ss.ps.ps_ExprContext;
	TupleTableSlot *in = ls->sort_in_slot;
	bool		nearest = (s->near != NULL);
	int			tcol = s->nouter + (nearest ? s->nkeys : 0);

	if (nearest)
		ls->sorted.sort = tuplesort_begin_heap(ls->sort_desc, s->nkeys + 1,
											 ls->near_sortattnos,
											 ls->near_sortops,
											 ls->near_sortcolls,
											 ls->near_nullsfirst,
											 work_mem, NULL, TUPLESORT_NONE);
	else
	{
		AttrNumber	attno = tcol + 1;
		bool		nulls_first = false;

		ls->sorted.sort = tuplesort_begin_heap(ls->sort_desc, 1, &attno,
											 &ls->time_sortop,
											 &ls->time_collation,
											 &nulls_first, work_mem, NULL,
											 TUPLESORT_NONE);
	}
	for (;;)
	{
		TupleTableSlot *outer;
		TupleTableSlot *scan;
		bool		anynull = false;

		CHECK_FOR_INTERRUPTS();
		ResetExprContext(econtext);
		outer = asof_fetch_outer(s);
		if (TupIsNull(outer))
			break;
		scan = asof_form(s, outer);
		econtext->ecxt_scantuple = scan;
		ExecClearTuple(in);
		memcpy(in->tts_values, scan->tts_values, s->nouter * sizeof(Datum));
		memcpy(in->tts_isnull, scan->tts_isnull, s->nouter * sizeof(bool));
		for (int i = 0; i < s->nkeys; i++)
		{
			bool		isnull;
			Datum		key;

			key = ExecEvalExprSwitchContext(s->outer_key[i], econtext,
											&isnull);
			if (nearest)
			{
				in->tts_values[s->nouter + i] = key;
				in->tts_isnull[s->nouter + i] = isnull;
			}
			anynull |= isnull;
			if (anynull && !nearest)
				break;			/* the sweep's row needs no other key */
		}
		in->tts_values[tcol] = (Datum) 0;
		in->tts_isnull[tcol] = true;
		if (!anynull)
			in->tts_values[tcol] =
				ExecEvalExprSwitchContext(s->has_shift ? s->time_base :
										  s->outer_time, econtext,
										  &in->tts_isnull[tcol]);
		ExecStoreVirtualTuple(in);
		tuplesort_puttupleslot(ls->sorted.sort, in);
	}
	ResetExprContext(econtext);
	tuplesort_performsort(ls->sorted.sort);
}

/*
 * asof_lookup_add
 *		Loading the versions: append one to the table, then fall back (see
 *		asof_lookup_load) if the table has grown past the memory limit;
 *		false then.
 */
static bool
asof_lookup_add(AsOfJoinState *s, TupleTableSlot *inner)
{
	AsOfLookupState *ls = asof_lookup_state(s);
	ResetExprContext(s->css.ss.ps.ps_ExprContext);
	asof_lookup_put(s, inner);
	if (MemoryContextMemAllocated(ls->table->metacxt, true) > ls->mem_limit)
	{
		asof_lookup_fall_back(s);
		return false;
	}
	return true;
}

/*
 * asof_lookup_load
 *		Lookup strategy: read every version into the table, appended to the
 *		versions of its key in the inner child's order.  If the table grows
 *		beyond the memory limit (work_mem times hash_mem_multiplier, as for
 *		a Hash Join), fall back to the sweep: forget the versions, restart
 *		the inner child (sorted by time, as the sweep needs) and sort the
 *		outer rows by time.
 */
void
asof_lookup_load(AsOfJoinState *s)
{
	AsOfLookupState *ls = asof_lookup_state(s);
	ExprContext *econtext = s->css.ss.ps.ps_ExprContext;
	TupleTableSlot *inner;

	ls->loaded = true;
	ls->fallback = false;
	s->keep_null_times = true;
	while ((inner = asof_peek_inner(s)) != NULL)
	{
		if (!asof_lookup_add(s, inner))
			break;
		asof_fetch_inner(s);
	}
	ResetExprContext(econtext);
}

/*
 * asof_vsort_prepare
 *		The inner child's Sort keys as sort support, to order each key's
 *		versions the way the Sort would (asof_lookup_load_unsorted).
 */
static void
asof_vsort_prepare(AsOfJoinState *s, Sort *sort)
{
	AsOfLookupState *ls = asof_lookup_state(s);
	TupleDesc	desc = s->inner_ps->ps_ResultTupleDesc;
	MemoryContext oldcxt = MemoryContextSwitchTo(s->css.ss.ps.state->es_query_cxt);
	int			i;

	ls->nvsort = sort->numCols;
	ls->vsort = palloc0(sizeof(SortSupportData) * sort->numCols);
	ls->vsort_byref = palloc(sizeof(bool) * sort->numCols);
	for (i = 0; i < sort->numCols; i++)
	{
		SortSupport ssup = &ls->vsort[i];

		ssup->ssup_cxt = CurrentMemoryContext;
		ssup->ssup_collation = sort->collations[i];
		ssup->ssup_nulls_first = sort->nullsFirst[i];
		ssup->ssup_attno = sort->sortColIdx[i];
		PrepareSortSupportFromOrderingOp(sort->sortOperators[i], ssup);
		ls->vsort_byref[i] = !TupleDescAttr(desc, ssup->ssup_attno - 1)->attbyval;
	}
	MemoryContextSwitchTo(oldcxt);
}

/*
 * asof_version_cmp
 *		qsort_arg comparator of two versions of a key in the inner Sort's
 *		order: the int64 times first when the Sort's first key is the time
 *		(it is, see asof_plan.c), then each key's value in the records.
 */
static int
asof_version_cmp(const void *a, const void *b, void *arg)
{
	const AsOfVersion *va = (const AsOfVersion *) a;
	const AsOfVersion *vb = (const AsOfVersion *) b;
	AsOfJoinState *s = (AsOfJoinState *) arg;
	AsOfLookupState *ls = asof_lookup_state(s);
	int			first = 0;
	int			i;

	if (ls->vsort[0].ssup_attno == s->inner_time_attno)
	{
		int64		ta = DatumGetInt64(va->time);
		int64		tb = DatumGetInt64(vb->time);

		if (ta != tb)
			return (ta < tb) == !ls->vsort[0].ssup_reverse ? -1 : 1;
		first = 1;
	}
	for (i = first; i < ls->nvsort; i++)
	{
		SortSupport ssup = &ls->vsort[i];
		int			att = ssup->ssup_attno - 1;
		Datum		da = ((Datum *) va->rec)[att];
		Datum		db = ((Datum *) vb->rec)[att];
		bool		na = ((bool *) (va->rec + s->ninner * sizeof(Datum)))[att];
		bool		nb = ((bool *) (vb->rec + s->ninner * sizeof(Datum)))[att];
		int			c;

		if (ls->rec_relative && ls->vsort_byref[i])
		{
			if (!na)
				da = PointerGetDatum(va->rec + (Size) da);
			if (!nb)
				db = PointerGetDatum(vb->rec + (Size) db);
		}
		c = ApplySortComparator(da, na, db, nb, ssup);
		if (c != 0)
			return c;
	}
	return 0;
}

/*
 * asof_lookup_load_unsorted
 *		A split load (asof_shared.c) whose versions come from a Sort: read
 *		the Sort's input directly, as asof_lookup_load reads the Sort, then
 *		order each key's versions as the Sort would have and set their
 *		fences.  One partition's versions are a fraction of all, and each
 *		key's a small array of (time, record) pairs: sorting those in place
 *		costs a fraction of a tuplesort, which copies every row once more
 *		into memory a new worker has yet to touch (docs/parallel.md).  The
 *		Sort is left unexecuted; a fallback restarts it (asof_restart_inner
 *		propagates the parameter change to its input either way).
 */
void
asof_lookup_load_unsorted(AsOfJoinState *s)
{
	AsOfLookupState *ls = asof_lookup_state(s);
	ExprContext *econtext = s->css.ss.ps.ps_ExprContext;
	PlanState  *input = outerPlanState(s->inner_ps);
	TupleHashIterator iter;
	TupleHashEntry entry;

	Assert(IsA(s->inner_ps, SortState) && ls->time_int64);
	if (ls->vsort == NULL)
		asof_vsort_prepare(s, (Sort *) s->inner_ps->plan);
	ls->loaded = true;
	ls->fallback = false;
	s->keep_null_times = true;
	for (;;)
	{
		TupleTableSlot *inner;

		CHECK_FOR_INTERRUPTS();
		inner = ExecProcNode(input);
		if (TupIsNull(inner))
			break;
		if (asof_inner_key_null(s, inner))
			continue;
		if (!asof_lookup_add(s, inner))
		{
			ResetExprContext(econtext);
			return;
		}
	}
	ResetExprContext(econtext);
	s->next = NULL;
	s->inner_done = true;

	InitTupleHashIterator(ls->table->hashtable, &iter);
	while ((entry = ScanTupleHashTable(ls->table->hashtable, &iter)) != NULL)
	{
		AsOfVersions *vl = (AsOfVersions *) wj_tuplehash_get(ls->table->hashtable, entry);
		int			i;

		CHECK_FOR_INTERRUPTS();
		if (vl->n > 1)
			qsort_arg(vl->v, vl->n, sizeof(AsOfVersion), asof_version_cmp, s);
		for (i = 0; i < vl->n; i += ASOF_FENCE)
		{
			vl->fences[i / ASOF_FENCE] = DatumGetInt64(vl->v[i].time);
			if (i % (ASOF_FENCE * ASOF_FENCE) == 0)
				vl->super[i / (ASOF_FENCE * ASOF_FENCE)] =
					DatumGetInt64(vl->v[i].time);
		}
	}
	TermTupleHashIterator(&iter);
}

/*
 * asof_lookup_discard
 *		Forget the table's contents (the versions, or the current versions
 *		of the sweep fallen back to).
 */
void
asof_lookup_discard(AsOfJoinState *s)
{
	AsOfLookupState *ls = asof_lookup_state(s);
	asof_key_table_reset(s, ls->table);
	ls->keyidx = NULL;
	ls->in_images = false;
	ls->dense_ptr = NULL;
	ls->dense_free = 0;
	ls->dense_next = 0;
	ls->rec_relative = false;
	ls->blocks = NULL;
	ls->block_used = NULL;
	ls->nblocks = 0;
	ls->maxblocks = 0;
}

/*
 * asof_fetch_outer
 *		The next outer row: those read ahead while waiting for the shared
 *		versions (asof_shared.c) first, in the order read, then the outer
 *		child's.  NULL at the end.  (The lookup's batches take the rows
 *		read ahead as they are, asof_lookup_fill.)
 */
static TupleTableSlot *
asof_fetch_outer(AsOfJoinState *s)
{
	AsOfLookupState *ls = asof_lookup_state(s);
	if (ls->ahead_pos < ls->ahead_n)
	{
		TupleTableSlot *slot = ls->ahead_slot;

		ExecClearTuple(slot);
		asof_ahead_take(s, slot->tts_values, slot->tts_isnull);
		return ExecStoreVirtualTuple(slot);
	}
	/* the last of them, returned before, is done with */
	if (ls->ahead_cxt != NULL)
		asof_ahead_end(s);
	if (ls->ahead_eof)
		return NULL;
	return ExecProcNode(s->outer_ps);
}

/*
 * asof_ahead_take
 *		Copy the next row read ahead to values/isnull; its by-reference
 *		values stay where they are, in ahead_cxt.
 */
void
asof_ahead_take(AsOfJoinState *s, Datum *values, bool *isnull)
{
	AsOfLookupState *ls = asof_lookup_state(s);
	Assert(ls->ahead_pos < ls->ahead_n);
	memcpy(values, ls->ahead_values + ls->ahead_pos * s->nouter,
		   s->nouter * sizeof(Datum));
	memcpy(isnull, ls->ahead_isnull + ls->ahead_pos * s->nouter,
		   s->nouter * sizeof(bool));
	ls->ahead_pos++;
}

/*
 * asof_ahead_end
 *		Free the outer rows read ahead (all returned and done with, or a
 *		rescan).
 */
void
asof_ahead_end(AsOfJoinState *s)
{
	AsOfLookupState *ls = asof_lookup_state(s);
	if (ls->ahead_cxt != NULL)
		MemoryContextDelete(ls->ahead_cxt);
	ls->ahead_cxt = NULL;
	ls->ahead_values = NULL;
	ls->ahead_isnull = NULL;
	ls->ahead_n = 0;
	ls->ahead_pos = 0;
	ls->ahead_cap = 0;
}

/*
 * asof_set_split_param
 *		A split load (AsOfPlanInfo.split): set the parameter of the
 *		versions' scan filter to the partition read, ls->split_part (-1:
 *		every version).
 */
void
asof_set_split_param(AsOfJoinState *s)
{
	AsOfLookupState *ls = asof_lookup_state(s);
	ParamExecData *prm;

	prm = &s->css.ss.ps.state->es_param_exec_vals[s->info.split.param];
	prm->execPlan = NULL;
	prm->value = Int32GetDatum(ls->split_part);
	prm->isnull = false;
}

/*
 * asof_restart_inner
 *		Lookup strategy: read the inner child again from its start (the
 *		versions loaded so far discarded by the caller).
 */
void
asof_restart_inner(AsOfJoinState *s)
{
	if (s->info.split.param >= 0)
	{
		asof_set_split_param(s);
		s->inner_ps->chgParam = bms_add_member(s->inner_ps->chgParam,
											   s->info.split.param);
	}
	ExecReScan(s->inner_ps);
	s->next = NULL;
	s->inner_done = false;
}

/*
 * asof_lookup_fall_back
 *		Lookup strategy: the versions do not fit; forget those loaded,
 *		restart the inner child (sorted by time, as the sweep needs) and
 *		sort the outer rows as the sweep (or the nearest merge) needs.  A
 *		leader loading the versions for the workers only (load_only) stops
 *		there: it reads no outer row, they are the workers' to read.
 */
void
asof_lookup_fall_back(AsOfJoinState *s)
{
	AsOfLookupState *ls = asof_lookup_state(s);
	asof_lookup_discard(s);
	ls->fallback = true;
	s->keep_null_times = false;
	ls->fell_back = true;
	if (ls->load_only)
		return;
	ls->split_part = -1;			/* every version, for the sweep */
	asof_restart_inner(s);
	asof_sort_outer(s);
}

/*
 * asof_nearest_sort_begin
 *		The fallback's sort of the outer rows in the nearest direction: by
 *		(keys, time), NULLs last, as the merge needs; the keys and the time
 *		are extra columns after the outer ones.
 */
static void
asof_nearest_sort_begin(AsOfJoinState *s)
{
	AsOfLookupState *ls = asof_lookup_state(s);
	AsOfPlanInfo *info = &s->info;
	TupleDesc	outerdesc = ExecGetResultType(s->outer_ps);
	int			nsort = s->nkeys + 1;
	int			i;

	ls->sort_desc = CreateTemplateTupleDesc(s->nouter + nsort);
	for (i = 0; i < s->nouter; i++)
		TupleDescCopyEntry(ls->sort_desc, i + 1, outerdesc, i + 1);
	ls->near_sortattnos = palloc(sizeof(AttrNumber) * nsort);
	ls->near_sortops = palloc(sizeof(Oid) * nsort);
	ls->near_sortcolls = palloc(sizeof(Oid) * nsort);
	ls->near_nullsfirst = palloc0(sizeof(bool) * nsort);
	for (i = 0; i < nsort; i++)
	{
		/* the keys, then the time */
		AsOfCmpInfo *cmp = (i < s->nkeys) ? &info->key_cmps[i] :
		&info->time_cmp;
		Oid			opfamily = cmp->opfamily;
		Oid			outertype = cmp->outertype;
		Oid			coll = cmp->collation;

		ls->near_sortattnos[i] = s->nouter + 1 + i;
		ls->near_sortops[i] = get_opfamily_member(opfamily, outertype,
												  outertype,
												  BTLessStrategyNumber);
		if (!OidIsValid(ls->near_sortops[i]))
			elog(ERROR, "missing sort operator for type %u in opfamily %u",
				 outertype, opfamily);
		ls->near_sortcolls[i] = coll;
		TupleDescInitEntry(ls->sort_desc, s->nouter + 1 + i, "asof_sort",
						   outertype, -1, 0);
		TupleDescInitEntryCollation(ls->sort_desc, s->nouter + 1 + i, coll);
	}
}

/*
 * asof_lookup_begin
 *		The lookup strategy's state: the table of versions, the batches of
 *		outer rows, and for the fallback the sort of the outer rows and the
 *		strategy fallen back to -- a sweep in this table over the outer rows
 *		sorted by time, or in the nearest direction a merge over them sorted
 *		by keys and time -- with a state of its own.
 */
static void *
asof_lookup_begin(AsOfJoinState *s, EState *estate)
{
	AsOfLookupState *ls = palloc0(sizeof(AsOfLookupState));
	AsOfPlanInfo *info = &s->info;
	TupleDesc	outerdesc = ExecGetResultType(s->outer_ps);
	TupleDesc	innerdesc = ExecGetResultType(s->inner_ps);
	int			i;

	/* what runs below finds the state through the node */
	s->sstate = ls;
	ls->split_part = -1;
	if (info->split.param >= 0)
		asof_set_split_param(s);	/* split_part -1: every version */
	ls->table = asof_key_table_create(s, estate);
	ls->mem_limit = get_hash_memory_limit();
	ls->rec_header = MAXALIGN(s->ninner * (sizeof(Datum) + sizeof(bool)));
	/* the columns a shared record keeps as offsets (asof_shared.c) */
	ls->inner_byref = palloc(sizeof(int) * Max(s->ninner, 1));
	ls->ninner_byref = 0;
	for (i = 0; i < s->ninner; i++)
	{
		if (!TupleDescAttr(innerdesc, i)->attbyval)
			ls->inner_byref[ls->ninner_byref++] = i;
	}
	ls->image_values = palloc(sizeof(Datum) * Max(s->ninner, 1));
	ls->time_int64 = s->time_cmp.use_ssup &&
		(s->time_cmp.ssup.comparator == ssup_datum_signed_cmp ||
		 s->time_cmp.ssup.comparator == ssup_datum_int32_cmp);
	asof_key_index_init(s, info);

	ls->probes = palloc0(sizeof(AsOfProbe) * ASOF_BATCH);
	ls->batch_values = palloc(sizeof(Datum) * ASOF_BATCH * s->nouter);
	ls->batch_isnull = palloc(sizeof(bool) * ASOF_BATCH * s->nouter);
	ls->batch_econtext = CreateExprContext(estate);
	ls->batch_size = 1;
	ls->ahead_slot = ExecInitExtraTupleSlot(estate, outerdesc,
											&TTSOpsVirtual);

	/* The fallback sorts the outer rows as the plan of the other strategy */
	if (s->near != NULL)
		asof_nearest_sort_begin(s);
	else
	{
		Oid			time_opfamily = info->time_cmp.opfamily;
		Oid			time_outertype = info->time_cmp.outertype;

		/* by time, like the sweep's plan */
		ls->time_collation = info->time_cmp.collation;
		ls->time_sortop = get_opfamily_member(time_opfamily, time_outertype,
											  time_outertype,
											  s->forward ?
											  BTGreaterStrategyNumber :
											  BTLessStrategyNumber);
		if (!OidIsValid(ls->time_sortop))
			elog(ERROR, "missing sort operator for type %u in opfamily %u",
				 time_outertype, time_opfamily);
		ls->sort_desc = CreateTemplateTupleDesc(s->nouter + 1);
		for (i = 0; i < s->nouter; i++)
			TupleDescCopyEntry(ls->sort_desc, i + 1, outerdesc, i + 1);
		TupleDescInitEntry(ls->sort_desc, s->nouter + 1, "asof_time",
						   time_outertype, -1, 0);
		TupleDescInitEntryCollation(ls->sort_desc, s->nouter + 1,
									ls->time_collation);
	}
	ls->sort_in_slot = ExecInitExtraTupleSlot(estate, ls->sort_desc,
											  &TTSOpsVirtual);
	ls->sorted.slot = ExecInitExtraTupleSlot(estate, ls->sort_desc,
											 &TTSOpsMinimalTuple);
	if (s->near != NULL)
	{
		ls->fb = &asof_merge_strategy;
		ls->fb_state = asof_merge_begin_sorted(s, estate, &ls->sorted);
	}
	else
	{
		ls->fb = &asof_sweep_strategy;
		ls->fb_state = asof_sweep_begin_in(s, estate, ls->table, &ls->sorted);
	}

	/* the inner stream keeps rows with a NULL time until a fallback */
	s->keep_null_times = true;
	return ls;
}

/*
 * asof_lookup_next
 *		The next outer row with its version: the versions loaded first (or
 *		shared, asof_shared_load), then the outer rows answered in batches,
 *		or by the strategy fallen back to.
 */
static TupleTableSlot *
asof_lookup_next(AsOfJoinState *s, void *state, Datum **values, bool **nulls)
{
	AsOfLookupState *ls = (AsOfLookupState *) state;

	if (!ls->loaded)
		asof_shared_load(s);
	if (ls->fallback)
		return ls->fb->next(s, ls->fb_state, values, nulls);
	return asof_next_looked_up(s, values, nulls);
}

/*
 * asof_lookup_rescan
 *		Start over: the batches, the rows read ahead, the fallback's sort
 *		and the strategy fallen back to.  Like a Hash Join, keep the versions
 *		loaded unless the inner child's parameters changed (or they lie in
 *		shared images, gone with the parallel query); false then: the inner
 *		child does not restart.
 */
static bool
asof_lookup_rescan(AsOfJoinState *s, void *state)
{
	AsOfLookupState *ls = (AsOfLookupState *) state;

	if (ls->sorted.sort != NULL)
	{
		tuplesort_end(ls->sorted.sort);
		ls->sorted.sort = NULL;
	}
	(void) ls->fb->rescan(s, ls->fb_state);
	ls->batch_n = 0;
	ls->batch_pos = 0;
	ls->batch_size = 1;
	ls->outer_done = false;
	asof_ahead_end(s);
	ls->ahead_eof = false;
	if (ls->loaded && !ls->fallback && s->inner_ps->chgParam == NULL &&
		!ls->in_images)
		return false;
	asof_lookup_discard(s);
	ls->loaded = false;
	ls->fallback = false;
	s->keep_null_times = true;
	return true;
}

/*
 * asof_lookup_end
 *		The end of the scan: the fallback's sort, the strategy fallen back
 *		to, the rows read ahead.
 */
static void
asof_lookup_end(AsOfJoinState *s, void *state)
{
	AsOfLookupState *ls = (AsOfLookupState *) state;

	if (ls->sorted.sort != NULL)
	{
		tuplesort_end(ls->sorted.sort);
		ls->sorted.sort = NULL;
	}
	ls->fb->end(s, ls->fb_state);
	asof_ahead_end(s);
}

/*
 * asof_lookup_explain
 *		After "Strategy": how keys are found (VERBOSE), how the versions are
 *		loaded under a Gather, and under ANALYZE whether the lookup fell
 *		back.
 */
static void
asof_lookup_explain(AsOfJoinState *s, void *state, ExplainState *es)
{
	AsOfLookupState *ls = (AsOfLookupState *) state;

	if (es->verbose)
		ExplainPropertyText("Key Lookup",
							ls->key_image != NULL ? "by image" :
							"by hash and equality functions", es);
	if (s->css.ss.ps.plan->parallel_aware)
	{
		bool		shared = s->info.share_versions && ls->time_int64;
		bool		split = shared && s->info.split.param >= 0;

		/* a split load sorts each key's versions itself, on a Sort's input */
		ExplainPropertyText("Versions", split ?
							psprintf("loaded once in %d key partitions%s, shared by the participants",
									 s->info.split.units,
									 IsA(s->inner_ps, SortState) ?
									 ", sorted per key in place of the Sort below" :
									 "") :
							shared ?
							"loaded once, shared by the participants" :
							"loaded by each participant", es);
		if (es->analyze && shared && !split)
			ExplainPropertyInteger("Outer Rows Read Ahead", NULL,
								   ls->ahead_total, es);
	}
	if (es->analyze)
	{
		if (ls->fell_back)
		{
			char	   *msg;

			msg = psprintf("versions exceeded %zu kB: outer rows sorted by %s",
						   ls->mem_limit / 1024,
						   s->near != NULL ? "keys and time" : "time");
			ExplainPropertyText("Fallback", msg, es);
		}
		else
			ExplainPropertyText("Fallback", "none", es);
	}
}

/*
 * asof_lookup_explain_state
 *		After the peak state: the batches of the sweep fallen back to (the
 *		merge of the nearest direction has none).
 */
static void
asof_lookup_explain_state(AsOfJoinState *s, void *state, ExplainState *es)
{
	AsOfLookupState *ls = (AsOfLookupState *) state;

	if (ls->fb->explain_state != NULL)
		ls->fb->explain_state(s, ls->fb_state, es);
}

/*
 * asof_lookup_leave_share
 *		A leader leaving the outer rows to the workers still loads the
 *		versions for them (asof_shared_load_for_workers).
 */
static void
asof_lookup_leave_share(AsOfJoinState *s, void *state)
{
	AsOfLookupState *ls = (AsOfLookupState *) state;

	if (!ls->loaded)
		asof_shared_load_for_workers(s);
}

/*
 * asof_lookup_dsm_size, asof_lookup_dsm_init, asof_lookup_dsm_reinit,
 * asof_lookup_shutdown
 *		Under a Gather: the AsOfShared of the versions loaded once
 *		(asof_shared.c) in the DSM segment, set up by the leader, found by
 *		the workers, made ready for the next scan on a rescan of the Gather.
 *		At shutdown the leader keeps the rows all participants read ahead,
 *		for EXPLAIN, and the versions attached from the images, which go
 *		away with the DSA area, are forgotten.
 */
static Size
asof_lookup_dsm_size(void)
{
	return asof_shared_estimate();
}

static void
asof_lookup_dsm_init(AsOfJoinState *s, void *state, void *coordinate,
					 bool worker)
{
	AsOfLookupState *ls = (AsOfLookupState *) state;

	ls->shared = (AsOfShared *) coordinate;
	if (!worker)
		asof_shared_init(ls->shared);
}

static void
asof_lookup_dsm_reinit(AsOfJoinState *s, void *state)
{
	AsOfLookupState *ls = (AsOfLookupState *) state;

	asof_shared_reinit(ls->shared, s->css.ss.ps.state->es_query_dsa);
}

static void
asof_lookup_shutdown(AsOfJoinState *s, void *state)
{
	AsOfLookupState *ls = (AsOfLookupState *) state;

	if (ls->shared != NULL && !IsParallelWorker())
		ls->ahead_total = asof_shared_ahead_rows(ls->shared);
	ls->shared = NULL;
	if (ls->in_images)
	{
		asof_lookup_discard(s);
		ls->loaded = false;
	}
}

const AsOfStrategy asof_lookup_strategy = {
	.label = "versions hashed by keys, outer rows looked up",
	.begin = asof_lookup_begin,
	.next = asof_lookup_next,
	.rescan = asof_lookup_rescan,
	.end = asof_lookup_end,
	.explain = asof_lookup_explain,
	.explain_state = asof_lookup_explain_state,
	.leave_share = asof_lookup_leave_share,
	.dsm_size = asof_lookup_dsm_size,
	.dsm_init = asof_lookup_dsm_init,
	.dsm_reinit = asof_lookup_dsm_reinit,
	.shutdown = asof_lookup_shutdown,
};
