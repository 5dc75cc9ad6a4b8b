/*-------------------------------------------------------------------------
 *
 * asof_lookup_probe.c
 *	  The lookup strategy of the AsOfJoin custom scan, its answers: each
 *	  outer row's version found by a binary search among its key's
 *	  versions, the outer rows read and answered in batches.
 *
 * asof_lookup_fill reads outer rows in batches (the rows read ahead
 * while waiting for shared versions first, asof_shared.c) and answers them
 * in phases that prefetch what the next phase touches (asof_lookup_start,
 * asof_lookup_block, asof_lookup_finish) when the times compare as int64,
 * by a plain binary search otherwise (asof_lookup_generic);
 * asof_next_looked_up returns them one by one.  The nearest direction
 * looks at both neighbours of the binary search's answer
 * (asof_nearest_probe).  Loading the versions, the fallback and the
 * strategy's callbacks are in asof_lookup.c.
 *
 * src/nodes/asof_join/asof_lookup_probe.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/executor.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#include "src/nodes/asof_join/asof_lookup.h"
#include "src/common/pg_compat.h"

static void asof_nearest_probe(AsOfJoinState *s, AsOfProbe *probe,
							   AsOfVersions *vl, ExprContext *econtext);

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
	AsOfLookupState *ls = asof_lookup_state(s);
	ExprContext *econtext = ls->batch_econtext;
	MemoryContext oldcxt = CurrentMemoryContext;
	int			n = 0;
	int			i;

	ResetExprContext(econtext);
	if (ls->key_image != NULL && ls->keyidx == NULL)
		asof_key_index_build(s);
	/* the previous batch is answered: rows read ahead all returned? */
	if (ls->ahead_cxt != NULL && ls->ahead_pos == ls->ahead_n)
		asof_ahead_end(s);
	while (n < ls->batch_size && !ls->outer_done)
	{
		TupleTableSlot *scan;
		AsOfProbe  *probe = &ls->probes[n];
		bool		isnull;
		bool		anynull = false;

		CHECK_FOR_INTERRUPTS();
		if (ls->ahead_pos < ls->ahead_n)
			asof_ahead_take(s, ls->batch_values + n * s->nouter,
							ls->batch_isnull + n * s->nouter);
		else
		{
			TupleTableSlot *outer = NULL;

			if (!ls->ahead_eof)
				outer = ExecProcNode(s->outer_ps);
			if (TupIsNull(outer))
			{
				ls->outer_done = true;
				break;
			}
			MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
			asof_copy_values(outer, s->nouter,
							 ls->batch_values + n * s->nouter,
							 ls->batch_isnull + n * s->nouter);
			MemoryContextSwitchTo(oldcxt);
		}

		/* Outer expressions see the scan slot, where our expressions live */
		scan = asof_form_values(s, ls->batch_values + n * s->nouter,
								ls->batch_isnull + n * s->nouter);
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

			if (ls->keyidx != NULL)
				vl = asof_key_index_find(s, s->okeys);
			else
			{
				TupleHashEntry entry;

				entry = LookupTupleHashEntry(ls->table->hashtable,
											 asof_key_slot(s, ls->table, s->okeys),
											 NULL, NULL);
				vl = entry == NULL ? NULL :
					(AsOfVersions *) wj_tuplehash_get(ls->table->hashtable, entry);
			}
			if (vl != NULL)
			{
				s->otime = ExecEvalExprSwitchContext(s->outer_time, econtext,
													 &isnull);
				if (s->near != NULL)
				{
					s->near->time_null = isnull;
					asof_nearest_probe(s, probe, vl, econtext);
				}
				else if (!isnull && ls->time_int64)
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
		if (ls->probes[i].vl != NULL)
			asof_lookup_start(s, &ls->probes[i]);
	}
	for (i = 0; i < n; i++)
	{
		if (ls->probes[i].vl != NULL)
			asof_lookup_block(s, &ls->probes[i]);
	}
	for (i = 0; i < n; i++)
	{
		if (ls->probes[i].vl != NULL)
			asof_lookup_finish(s, &ls->probes[i]);
	}
	ls->batch_n = n;
	ls->batch_pos = 0;
	ls->batch_size = Min(ls->batch_size * 2, ASOF_BATCH);
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
	AsOfLookupState *ls = asof_lookup_state(s);
	TupleTableSlot *scan;
	int			i;

	if (ls->batch_pos == ls->batch_n)
	{
		asof_lookup_fill(s);
		if (ls->batch_n == 0)
			return NULL;
	}
	i = ls->batch_pos++;
	scan = asof_form_values(s, ls->batch_values + i * s->nouter,
							ls->batch_isnull + i * s->nouter);
	*values = ls->probes[i].rec;
	*nulls = *values ? (bool *) (*values + s->ninner) : NULL;
	if (*values != NULL && ls->in_images)
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
 *		NULL time when s->near->time_null) among its keys' versions vl, in
 *		probe->rec, NULL if none.

 */
static void
asof_nearest_probe(AsOfJoinState *s, AsOfProbe *probe, AsOfVersions *vl,
				   ExprContext *econtext)
{
	AsOfLookupState *ls = asof_lookup_state(s);
	int			n = vl->n;
	int			lo;
	int			next;
	int			which;

	probe->vl = NULL;
	probe->rec = NULL;
	if (s->near->time_null && !s->near->keep_nulls)
		return;
	if (n == 0)
	{
		probe->rec = (Datum *) vl->nullrec;
		return;
	}
	if (s->near->time_null)
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
	if (ls->time_int64)
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
		   (ls->time_int64 ?
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
