/*-------------------------------------------------------------------------
 *
 * asof_lookup.c
 *	  The lookup strategy of the AsOfJoin custom scan: every version hashed
 *	  by its keys, each outer row answered by a binary search among its
 *	  key's versions, in its scan order.
 *
 * asof_lookup_load reads the inner child (sorted by time, tie breakers)
 * into a TupleHashTable whose entry per key is an array of versions in that
 * order (AsOfVersions, asof_exec_internal.h); each version is a record
 * packed into large blocks (asof_dense_alloc).  With integer-like times the
 * array has two levels of fences, so that the binary search runs mostly in
 * cache.  asof_lookup_fill reads outer rows in batches and answers them in
 * phases that prefetch what the next phase touches (asof_lookup_start,
 * asof_lookup_block, asof_lookup_finish); asof_next_looked_up returns them
 * one by one.  The nearest direction looks at both neighbours of the
 * binary search's answer (asof_nearest_probe).
 *
 * If the versions exceed work_mem * hash_mem_multiplier while loading, the
 * node falls back at run time: the table is emptied, the inner child
 * restarted and the outer rows sorted by the node itself -- by time for the
 * sweep (asof_sort_outer), by (keys, time) for the nearest merge
 * (asof_nearest_sort_outer).
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

#include "asof.h"
#include "asof_exec_internal.h"
#include "pg_compat.h"
#include "state_stats.h"
#include "windowjoin.h"

static void asof_nearest_probe(AsOfJoinState *s, AsOfProbe *probe,
							   AsOfVersions *vl, ExprContext *econtext);
static void asof_nearest_sort_outer(AsOfJoinState *s);

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
	if (s->nblocks == s->maxblocks)
	{
		s->maxblocks = Max(s->maxblocks * 2, 64);
		if (s->blocks == NULL)
		{
			s->blocks = MemoryContextAlloc(s->hashcxt,
										   sizeof(char *) * s->maxblocks);
			s->block_used = MemoryContextAlloc(s->hashcxt,
											   sizeof(Size) * s->maxblocks);
		}
		else
		{
			s->blocks = repalloc_huge(s->blocks,
									  sizeof(char *) * s->maxblocks);
			s->block_used = repalloc_huge(s->block_used,
										  sizeof(Size) * s->maxblocks);
		}
	}
	s->blocks[s->nblocks] = start;
	s->block_used[s->nblocks] = used;
	return s->nblocks++;
}

/*
 * asof_dense_alloc
 *		Space for a version record, carved out of large blocks of hashcxt
 *		(listed when loading versions to share).
 */
static char *
asof_dense_alloc(AsOfJoinState *s, Size size)
{
	char	   *p;

	size = MAXALIGN(size);
	if (size > ASOF_DENSE_MIN / 8)
	{
		p = MemoryContextAlloc(s->hashcxt, size);
		if (s->rec_relative)
			(void) asof_note_block(s, p, size);
		return p;
	}
	if (size > s->dense_free)
	{
		/* blocks grow like an AllocSet's, so small tables stay small */
		if (s->dense_next == 0)
			s->dense_next = ASOF_DENSE_MIN;
		s->dense_ptr = MemoryContextAlloc(s->hashcxt, s->dense_next);
		s->dense_free = s->dense_next;
		s->dense_next = Min(s->dense_next * 2, ASOF_DENSE_MAX);
		if (s->rec_relative)
			s->dense_block = asof_note_block(s, s->dense_ptr, 0);
	}
	p = s->dense_ptr;
	s->dense_ptr += size;
	s->dense_free -= size;
	if (s->rec_relative)
		s->block_used[s->dense_block] += size;
	return p;
}

/*
 * asof_time_int64
 *		A version time (or outer time) as the int64 the fast binary search
 *		compares, when s->time_int64.
 */
static inline int64
asof_time_int64(AsOfJoinState *s, Datum d)
{
	if (s->time_cmp.ssup.comparator == ssup_datum_int32_cmp)
		return (int64) DatumGetInt32(d);
	return DatumGetInt64(d);
}

/*
 * asof_lookup_put
 *		Lookup strategy: append the inner row to the versions of its key.
 */
static void
asof_lookup_put(AsOfJoinState *s, TupleTableSlot *inner)
{
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
		s->ikeys[i] = inner->tts_values[s->inner_key_attno[i] - 1];
	entry = LookupTupleHashEntry(s->hashtable, asof_key_slot(s, s->ikeys),
								 &isnew, NULL);

	oldcxt = MemoryContextSwitchTo(s->hashcxt);
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
		if (s->time_int64)
		{
			vl->fences = palloc(sizeof(int64) * (vl->cap / ASOF_FENCE));
			vl->super = palloc(sizeof(int64) *
							   (vl->cap / ASOF_FENCE / ASOF_FENCE + 1));
		}
		wj_tuplehash_set(s->hashtable, entry, vl);
	}
	else
		vl = (AsOfVersions *) wj_tuplehash_get(s->hashtable, entry);
	MemoryContextSwitchTo(oldcxt);

	/*
	 * a version with a NULL time: its key has versions, none matches
	 * (except in the nearest direction without tolerance: kept below)
	 */
	if (asof_inner_time_null(s, inner) && !s->near_keep_nulls)
		return;


	oldcxt = MemoryContextSwitchTo(s->hashcxt);
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
	size = s->rec_header + asof_byref_size(inner, s->ninner);
	rec = asof_dense_alloc(s, size);
	values = (Datum *) rec;
	memcpy(rec + s->ninner * sizeof(Datum), inner->tts_isnull,
		   s->ninner * sizeof(bool));
	asof_flatten_values(inner, s->ninner, values, rec + s->rec_header);
	if (s->rec_relative)
	{
		for (i = 0; i < s->ninner_byref; i++)
		{
			int			att = s->inner_byref[i];

			if (!inner->tts_isnull[att])
				values[att] = (Datum) (DatumGetPointer(values[att]) - rec);
		}
	}

	/* nearest: a version with a NULL time serves only a key without others */
	if (s->nearest && inner->tts_isnull[s->inner_time_attno - 1])
	{
		vl->nullrec = rec;
		wj_state_add(&s->stats, size);
		return;
	}

	if (s->time_int64)
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
 *		Lookup strategy's fallback: read every outer row into a tuplesort,
 *		with its time as an extra column, ordered as the sweep needs.
 */
static void
asof_sort_outer(AsOfJoinState *s)
{
	ExprContext *econtext = s->css.ss.ps.ps_ExprContext;
	AttrNumber	attno = s->nouter + 1;
	bool		nulls_first = false;
	TupleTableSlot *in = s->sort_in_slot;
	int			i;

	s->outer_sort = tuplesort_begin_heap(s->sort_desc, 1, &attno,
										 &s->time_sortop, &s->time_collation,
										 &nulls_first, work_mem, NULL,
										 TUPLESORT_NONE);
	for (;;)
	{
		TupleTableSlot *outer;
		TupleTableSlot *scan;

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

		/*
		 * Rows with a NULL key match nothing: no time (sorted last).  A
		 * shifted time sorts like its base, which cannot be out of range.
		 */
		in->tts_values[s->nouter] = (Datum) 0;
		in->tts_isnull[s->nouter] = true;
		for (i = 0; i < s->nkeys; i++)
		{
			bool		isnull;

			(void) ExecEvalExprSwitchContext(s->outer_key[i], econtext,
											 &isnull);
			if (isnull)
				break;
		}
		if (i == s->nkeys)
			in->tts_values[s->nouter] =
				ExecEvalExprSwitchContext(s->has_shift ? s->time_base :
										  s->outer_time, econtext,
										  &in->tts_isnull[s->nouter]);
		ExecStoreVirtualTuple(in);
		tuplesort_puttupleslot(s->outer_sort, in);
	}
	ResetExprContext(econtext);
	tuplesort_performsort(s->outer_sort);
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
	ResetExprContext(s->css.ss.ps.ps_ExprContext);
	asof_lookup_put(s, inner);
	if (MemoryContextMemAllocated(s->metacxt, true) > s->mem_limit)
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
	ExprContext *econtext = s->css.ss.ps.ps_ExprContext;
	TupleTableSlot *inner;

	s->loaded = true;
	s->fallback = false;
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
	TupleDesc	desc = s->inner_ps->ps_ResultTupleDesc;
	MemoryContext oldcxt = MemoryContextSwitchTo(s->css.ss.ps.state->es_query_cxt);
	int			i;

	s->nvsort = sort->numCols;
	s->vsort = palloc0(sizeof(SortSupportData) * sort->numCols);
	s->vsort_byref = palloc(sizeof(bool) * sort->numCols);
	for (i = 0; i < sort->numCols; i++)
	{
		SortSupport ssup = &s->vsort[i];

		ssup->ssup_cxt = CurrentMemoryContext;
		ssup->ssup_collation = sort->collations[i];
		ssup->ssup_nulls_first = sort->nullsFirst[i];
		ssup->ssup_attno = sort->sortColIdx[i];
		PrepareSortSupportFromOrderingOp(sort->sortOperators[i], ssup);
		s->vsort_byref[i] = !TupleDescAttr(desc, ssup->ssup_attno - 1)->attbyval;
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
	int			first = 0;
	int			i;

	if (s->vsort[0].ssup_attno == s->inner_time_attno)
	{
		int64		ta = DatumGetInt64(va->time);
		int64		tb = DatumGetInt64(vb->time);

		if (ta != tb)
			return (ta < tb) == !s->vsort[0].ssup_reverse ? -1 : 1;
		first = 1;
	}
	for (i = first; i < s->nvsort; i++)
	{
		SortSupport ssup = &s->vsort[i];
		int			att = ssup->ssup_attno - 1;
		Datum		da = ((Datum *) va->rec)[att];
		Datum		db = ((Datum *) vb->rec)[att];
		bool		na = ((bool *) (va->rec + s->ninner * sizeof(Datum)))[att];
		bool		nb = ((bool *) (vb->rec + s->ninner * sizeof(Datum)))[att];
		int			c;

		if (s->rec_relative && s->vsort_byref[i])
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
	ExprContext *econtext = s->css.ss.ps.ps_ExprContext;
	PlanState  *input = outerPlanState(s->inner_ps);
	TupleHashIterator iter;
	TupleHashEntry entry;

	Assert(IsA(s->inner_ps, SortState) && s->time_int64);
	if (s->vsort == NULL)
		asof_vsort_prepare(s, (Sort *) s->inner_ps->plan);
	s->loaded = true;
	s->fallback = false;
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

	InitTupleHashIterator(s->hashtable, &iter);
	while ((entry = ScanTupleHashTable(s->hashtable, &iter)) != NULL)
	{
		AsOfVersions *vl = (AsOfVersions *) wj_tuplehash_get(s->hashtable, entry);
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
 * asof_set_split_param
 *		A split load (AsOfPlanInfo.split_param): set the parameter of the
 *		versions' scan filter to the partition read, s->split_part (-1:
 *		every version).
 */
void
asof_set_split_param(AsOfJoinState *s)
{
	ParamExecData *prm;

	prm = &s->css.ss.ps.state->es_param_exec_vals[s->info.split_param];
	prm->execPlan = NULL;
	prm->value = Int32GetDatum(s->split_part);
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
	if (s->info.split_param >= 0)
	{
		asof_set_split_param(s);
		s->inner_ps->chgParam = bms_add_member(s->inner_ps->chgParam,
											   s->info.split_param);
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
	asof_lookup_discard(s);
	s->fallback = true;
	s->fell_back = true;
	if (s->load_only)
		return;
	s->split_part = -1;			/* every version, for the sweep */
	asof_restart_inner(s);
	if (s->nearest)
		asof_nearest_sort_outer(s);
	else
		asof_sort_outer(s);
}

/*
 * asof_count_reached
 *		Number of leading elements of a[0..n-1] (int64 times, every stride-th
 *		int64 of the array) that are reached: a[i] <= t (or < t) when they
 *		ascend (backward), a[i] >= t (or > t) when they descend (forward).
 *		Branch-free binary search.
 */
static inline int
asof_count_reached(const int64 *a, int stride, int n, int64 t, bool forward,
				   bool strict)
{
	int			base = 0;
	int			len = n;

#define ASOF_SEARCH(REACHED) \
	do { \
		if (len == 0) \
			return 0; \
		while (len > 1) \
		{ \
			int			half = len / 2; \
			int64		x = a[(base + half - 1) * stride]; \
			base = (REACHED) ? base + half : base; \
			len -= half; \
		} \
		{ \
			int64		x = a[base * stride]; \
			return base + ((REACHED) ? 1 : 0); \
		} \
	} while (0)

	if (!forward)
	{
		if (strict)
			ASOF_SEARCH(x < t);
		else
			ASOF_SEARCH(x <= t);
	}
	else
	{
		if (strict)
			ASOF_SEARCH(x > t);
		else
			ASOF_SEARCH(x >= t);
	}
#undef ASOF_SEARCH
}

/*
 * asof_lookup_generic
 *		Lookup strategy, times that do not compare as int64: the answer for
 *		the current outer time (s->otime) among its key's versions vl, by a
 *		plain binary search, and a prefetch of its record.  The versions
 *		reached by the outer time (time <= (<) outer time backward, >= (>)
 *		forward) are a prefix of the key's list; the last of them is the one
 *		the sweep would keep, ties included.
 */
static void
asof_lookup_generic(AsOfJoinState *s, AsOfProbe *probe, AsOfVersions *vl)
{
	int			lo = 0;
	int			hi = vl->n;

	while (lo < hi)
	{
		int			mid = lo + (hi - lo) / 2;
		int			c = asof_compare(&s->time_cmp, s->otime,
									 vl->v[mid].time);

		if (s->forward)
			c = -c;
		if (s->strict ? c > 0 : c >= 0)
			lo = mid + 1;	/* reached */
		else
			hi = mid;
	}
	if (lo == 0)
		return;
	probe->rec = asof_rec(vl, vl->v[lo - 1].rec);
	ASOF_PREFETCH(probe->rec);
}

/*
 * asof_lookup_start
 *		Lookup strategy, int64 times, first phase for an outer time
 *		(probe->t) among its key's versions (probe->vl): find the line of
 *		fences leading to the answer, and prefetch it.  The versions reached
 *		are a prefix of the key's list (see asof_lookup_generic); none
 *		reached, probe->vl becomes NULL.  Run for the whole batch in a loop
 *		of its own, apart from the key lookups: the searches of successive
 *		rows do not depend on one another, so the CPU overlaps their loads.
 */
static void
asof_lookup_start(AsOfJoinState *s, AsOfProbe *probe)
{
	AsOfVersions *vl = probe->vl;
	int			nf = (vl->n + ASOF_FENCE - 1) / ASOF_FENCE;
	int			ns = (nf + ASOF_FENCE - 1) / ASOF_FENCE;
	int			sf;

	/*
	 * sf entries of super[] reached: the last fence reached is among
	 * fences[(sf-1)*8 .. sf*8-1], and the first of those is reached.
	 */
	sf = asof_count_reached(vl->super, 1, ns, probe->t, s->forward,
							s->strict);
	if (sf == 0)
	{
		probe->vl = NULL;
		return;
	}
	probe->from = (sf - 1) * ASOF_FENCE + 1;
	probe->to = Min(sf * ASOF_FENCE, nf);
	ASOF_PREFETCH(&vl->fences[probe->from - 1]);
	ASOF_PREFETCH(&vl->fences[probe->to - 1]);
}

/*
 * asof_lookup_block
 *		Lookup strategy, second phase (int64 times): the block of versions
 *		holding the answer, from the line of fences found by the first
 *		phase; prefetch it.
 */
static void
asof_lookup_block(AsOfJoinState *s, AsOfProbe *probe)
{
	AsOfVersions *vl = probe->vl;
	int			f;

	f = probe->from +
		asof_count_reached(vl->fences + probe->from, 1,
						   probe->to - probe->from, probe->t,
						   s->forward, s->strict);
	/* f fences reached: the answer is in the block after fence f-1 */
	probe->from = (f - 1) * ASOF_FENCE + 1;
	probe->to = Min(f * ASOF_FENCE, vl->n);
	ASOF_PREFETCH(&vl->v[probe->from - 1]);
	ASOF_PREFETCH(&vl->v[probe->to - 1]);
}

/*
 * asof_lookup_finish
 *		Lookup strategy, last phase: the version in its block (int64
 *		times), and a prefetch of its record.
 */
static void
asof_lookup_finish(AsOfJoinState *s, AsOfProbe *probe)
{
	AsOfVersions *vl = probe->vl;
	int			lo;

	StaticAssertStmt(sizeof(AsOfVersion) == 2 * sizeof(int64),
					 "AsOfVersion is not two int64 wide");
	lo = probe->from +
		asof_count_reached((int64 *) (vl->v + probe->from), 2,
						   probe->to - probe->from, probe->t,
						   s->forward, s->strict);
	probe->rec = asof_rec(vl, vl->v[lo - 1].rec);
	ASOF_PREFETCH(probe->rec);
	ASOF_PREFETCH((char *) probe->rec + 64);
}

/*
 * asof_lookup_fill
 *		Lookup strategy: read the next batch of outer rows (copies, as their
 *		child may reuse its slot) and find their versions.
 */
static void
asof_lookup_fill(AsOfJoinState *s)
{
	ExprContext *econtext = s->batch_econtext;
	MemoryContext oldcxt = CurrentMemoryContext;
	int			n = 0;
	int			i;

	ResetExprContext(econtext);
	if (s->key_image != NULL && s->keyidx == NULL)
		asof_key_index_build(s);
	/* the previous batch is answered: rows read ahead all returned? */
	if (s->ahead_cxt != NULL && s->ahead_pos == s->ahead_n)
		asof_ahead_end(s);
	while (n < s->batch_size && !s->outer_done)
	{
		TupleTableSlot *scan;
		AsOfProbe  *probe = &s->probes[n];
		bool		isnull;
		bool		anynull = false;

		CHECK_FOR_INTERRUPTS();
		if (s->ahead_pos < s->ahead_n)
			asof_ahead_take(s, s->batch_values + n * s->nouter,
							s->batch_isnull + n * s->nouter);
		else
		{
			TupleTableSlot *outer = NULL;

			if (!s->ahead_eof)
				outer = ExecProcNode(s->outer_ps);
			if (TupIsNull(outer))
			{
				s->outer_done = true;
				break;
			}
			MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
			asof_copy_values(outer, s->nouter,
							 s->batch_values + n * s->nouter,
							 s->batch_isnull + n * s->nouter);
			MemoryContextSwitchTo(oldcxt);
		}

		/* Outer expressions see the scan slot, where our expressions live */
		scan = asof_form_values(s, s->batch_values + n * s->nouter,
								s->batch_isnull + n * s->nouter);
		econtext->ecxt_scantuple = scan;
		for (i = 0; i < s->nkeys; i++)
		{
			s->okeys[i] = ExecEvalExprSwitchContext(s->outer_key[i], econtext,
													&isnull);
			anynull |= isnull;
		}
		probe->vl = NULL;
		probe->rec = NULL;

		/*
		 * The outer time only when the keys have versions: PostgreSQL's
		 * plan compares it with versions of the keys alone, so it never
		 * evaluates it otherwise (near the end of the range, o.t +
		 * interval '1 hour' would raise an error).
		 */
		if (!anynull)
		{
			AsOfVersions *vl;

			if (s->keyidx != NULL)
				vl = asof_key_index_find(s, s->okeys);
			else
			{
				TupleHashEntry entry;

				entry = LookupTupleHashEntry(s->hashtable,
											 asof_key_slot(s, s->okeys),
											 NULL, NULL);
				vl = entry == NULL ? NULL :
					(AsOfVersions *) wj_tuplehash_get(s->hashtable, entry);
			}
			if (vl != NULL)
			{
				s->otime = ExecEvalExprSwitchContext(s->outer_time, econtext,
													 &isnull);
				if (s->nearest)
				{
					s->near_time_null = isnull;
					asof_nearest_probe(s, probe, vl, econtext);
				}
				else if (!isnull && s->time_int64)
				{
					/* searched in the phases below */
					probe->vl = vl;
					probe->t = asof_time_int64(s, s->otime);
				}
				else if (!isnull)
					asof_lookup_generic(s, probe, vl);
			}
		}
		n++;
	}
	for (i = 0; i < n; i++)
	{
		if (s->probes[i].vl != NULL)
			asof_lookup_start(s, &s->probes[i]);
	}
	for (i = 0; i < n; i++)
	{
		if (s->probes[i].vl != NULL)
			asof_lookup_block(s, &s->probes[i]);
	}
	for (i = 0; i < n; i++)
	{
		if (s->probes[i].vl != NULL)
			asof_lookup_finish(s, &s->probes[i]);
	}
	s->batch_n = n;
	s->batch_pos = 0;
	s->batch_size = Min(s->batch_size * 2, ASOF_BATCH);
}

/*
 * asof_next_looked_up
 *		Lookup strategy: the next outer row of the batch, in the scan slot,
 *		with its version (Datums then nulls) in *values, NULL if none.
 *		Returns NULL when the outer rows are exhausted.
 */
TupleTableSlot *
asof_next_looked_up(AsOfJoinState *s, Datum **values, bool **nulls)
{
	TupleTableSlot *scan;
	int			i;

	if (s->batch_pos == s->batch_n)
	{
		asof_lookup_fill(s);
		if (s->batch_n == 0)
			return NULL;
	}
	i = s->batch_pos++;
	scan = asof_form_values(s, s->batch_values + i * s->nouter,
							s->batch_isnull + i * s->nouter);
	*values = s->probes[i].rec;
	*nulls = *values ? (bool *) (*values + s->ninner) : NULL;
	if (*values != NULL && s->in_images)
		*values = asof_image_values(s, *values);
	return scan;
}

/* The time of a lookup record, and of a version's record */
#define ASOF_REC_TIME(s, rec) (((Datum *) (rec))[(s)->inner_time_attno - 1])
#define ASOF_VERSION_TIME(s, vl, i) \
	ASOF_REC_TIME(s, asof_rec(vl, (vl)->v[i].rec))

/*
 * asof_nearest_first
 *		Lookup: the earliest of a key's versions (the last of those at the
 *		earliest time).
 */
static int
asof_nearest_first(AsOfJoinState *s, AsOfVersions *vl)
{
	int			first = 0;

	while (first + 1 < vl->n &&
		   asof_compare(&s->time_cmp, vl->v[first + 1].time,
						vl->v[first].time) == 0)
		first++;
	return first;
}

/*
 * asof_nearest_probe
 *		Lookup: the version closest to the current outer row (s->otime, a
 *		NULL time when s->near_time_null) among its keys' versions vl, in
 *		probe->rec, NULL if none.

 */
static void
asof_nearest_probe(AsOfJoinState *s, AsOfProbe *probe, AsOfVersions *vl,
				   ExprContext *econtext)
{
	int			n = vl->n;
	int			lo;
	int			next;
	int			which;

	probe->vl = NULL;
	probe->rec = NULL;
	if (s->near_time_null && !s->near_keep_nulls)
		return;
	if (n == 0)
	{
		probe->rec = (Datum *) vl->nullrec;
		return;
	}
	if (s->near_time_null)
	{
		probe->rec = asof_rec(vl, vl->v[asof_nearest_first(s, vl)].rec);
		return;
	}
	if (s->ntol > 0 && !asof_nearest_bounds(s, econtext))
		return;

	/*
	 * lo: the number of versions at or before the outer time; with int64
	 * times through super[] and fences[] (see AsOfVersions), as the
	 * backward lookup does
	 */
	if (s->time_int64)
	{
		int64		t = asof_time_int64(s, s->otime);
		int			nf = (n + ASOF_FENCE - 1) / ASOF_FENCE;
		int			ns = (nf + ASOF_FENCE - 1) / ASOF_FENCE;
		int			from;
		int			to;
		int			f;

		f = asof_count_reached(vl->super, 1, ns, t, false, false);
		if (f == 0)
			lo = 0;
		else
		{
			from = (f - 1) * ASOF_FENCE + 1;
			to = Min(f * ASOF_FENCE, nf);
			f = from + asof_count_reached(vl->fences + from, 1, to - from, t,
										  false, false);
			from = (f - 1) * ASOF_FENCE + 1;
			to = Min(f * ASOF_FENCE, n);
			lo = from + asof_count_reached((int64 *) (vl->v + from), 2,
										   to - from, t, false, false);
		}
	}
	else

	{
		int			hi = n;

		lo = 0;
		while (lo < hi)
		{
			int			mid = lo + (hi - lo) / 2;

			if (asof_compare(&s->time_cmp, s->otime, vl->v[mid].time) >= 0)
				lo = mid + 1;
			else
				hi = mid;
		}
	}

	/* Every version at the same distance: the earliest, if in range */
	if (asof_nearest_infinite(s))
	{
		int			first = asof_nearest_first(s, vl);

		if (asof_nearest_within(s, ASOF_VERSION_TIME(s, vl, first)))
			probe->rec = asof_rec(vl, vl->v[first].rec);
		else if (lo > 0 &&
				 asof_nearest_within(s, ASOF_VERSION_TIME(s, vl, lo - 1)))
			probe->rec = asof_rec(vl, vl->v[lo - 1].rec);
		return;
	}

	/* the version after: the last of its run of equal times */
	next = lo;
	while (next + 1 < n &&
		   (s->time_int64 ?
			DatumGetInt64(vl->v[next + 1].time) == DatumGetInt64(vl->v[next].time) :
			asof_compare(&s->time_cmp, vl->v[next + 1].time,
						 vl->v[next].time) == 0))
		next++;

	which = asof_nearest_choose(s, lo > 0,
								lo > 0 ? ASOF_VERSION_TIME(s, vl, lo - 1) : 0,
								next < n,
								next < n ? ASOF_VERSION_TIME(s, vl, next) : 0,
								econtext);
	if (which == 0)
		probe->rec = asof_rec(vl, vl->v[lo - 1].rec);
	else if (which == 1)
		probe->rec = asof_rec(vl, vl->v[next].rec);
	if (probe->rec != NULL)
		ASOF_PREFETCH(probe->rec);
}

/*
 * asof_nearest_sort_outer
 *		Lookup's fallback: read every outer row into a tuplesort, with its
 *		keys and time as extra columns, ordered by them (NULLs last) as the
 *		merge needs.
 */
static void
asof_nearest_sort_outer(AsOfJoinState *s)
{
	ExprContext *econtext = s->css.ss.ps.ps_ExprContext;
	TupleTableSlot *in = s->sort_in_slot;
	bool		anynull;
	int			i;

	s->outer_sort = tuplesort_begin_heap(s->sort_desc, s->nkeys + 1,
										 s->near_sortattnos, s->near_sortops,
										 s->near_sortcolls, s->near_nullsfirst,
										 work_mem, NULL, TUPLESORT_NONE);
	for (;;)
	{
		TupleTableSlot *outer;
		TupleTableSlot *scan;

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
		anynull = false;
		for (i = 0; i < s->nkeys; i++)
		{
			in->tts_values[s->nouter + i] =
				ExecEvalExprSwitchContext(s->outer_key[i], econtext,
										  &in->tts_isnull[s->nouter + i]);
			anynull |= in->tts_isnull[s->nouter + i];
		}

		/*
		 * As in asof_sort_outer: no time for rows with a NULL key, and a
		 * shifted time sorts like its base
		 */
		in->tts_values[s->nouter + s->nkeys] = (Datum) 0;
		in->tts_isnull[s->nouter + s->nkeys] = true;
		if (!anynull)
			in->tts_values[s->nouter + s->nkeys] =
				ExecEvalExprSwitchContext(s->has_shift ? s->time_base :
										  s->outer_time, econtext,
										  &in->tts_isnull[s->nouter + s->nkeys]);
		ExecStoreVirtualTuple(in);

		tuplesort_puttupleslot(s->outer_sort, in);
	}
	ResetExprContext(econtext);
	tuplesort_performsort(s->outer_sort);
}
