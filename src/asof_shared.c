/*-------------------------------------------------------------------------
 *
 * asof_shared.c
 *	  The lookup strategy of a parallel AsOfJoin: the versions are loaded
 *	  by one participant into shared memory, and read there by all.
 *
 * Under a Gather, every participant joins its share of the outer rows with
 * every version.  Reading, sorting and hashing the versions in each
 * participant would repeat that work once per process, and keep one copy
 * of them per process in the caches.  Instead the first participant to
 * start the scan claims the load (AsOfShared, in the parallel query's DSM
 * segment): it loads the versions into its own table as a serial scan
 * does (asof_lookup_load), then writes a position-independent image of
 * the table into the query's DSA area -- every pointer an offset from the
 * image's start -- wakes the others, which have waited on a condition
 * variable meanwhile, and drops its own table.  Every participant then
 * enters the image's keys into its own hash table, each with versions and
 * fences that point into the image (asof_image_attach), and the lookup
 * runs on the image in place: AsOfVersion.rec is an offset there
 * (asof_rec), and a match's by-reference Datums are turned into pointers
 * when it is returned (asof_image_values).
 *
 * Only when the times compare as int64 (AsOfJoinState.time_int64): the
 * binary search then reads the int64 times of the version arrays, never a
 * Datum that may point into a record.  Other time types keep a table per
 * participant.
 *
 * If the loader's versions exceed the memory limit it falls back as a
 * serial scan does (the sweep over outer rows sorted by time), and tells
 * the others to fall back at once instead of finding it out themselves.  If
 * the DSA area cannot hold the image, every participant loads its own
 * table, as without this sharing.
 *
 * Image layout: an AsOfImage header, nkeys AsOfImageKey entries, then the
 * blobs they point to (the key as a MinimalTuple; the version array with
 * record offsets; the fences and super fences; the records, each
 * MAXALIGNed).  In a record, every by-reference Datum is an offset from the
 * image's start.
 *
 * src/asof_shared.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/tupdesc.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "utils/datum.h"
#include "utils/dsa.h"
#include "utils/memutils.h"
#include "utils/wait_event.h"

#include "asof_exec_internal.h"

/* AsOfShared.state */
#define ASOF_SHARED_UNCLAIMED	0	/* no participant has started */
#define ASOF_SHARED_BUILDING	1	/* one is loading the versions */
#define ASOF_SHARED_READY		2	/* the image is in the DSA area */
#define ASOF_SHARED_OVERFLOW	3	/* the versions exceeded the limit */
#define ASOF_SHARED_UNSHARED	4	/* no image: each builds its own */

typedef struct AsOfImage
{
	Size		size;			/* bytes of the whole image */
	int64		nkeys;			/* AsOfImageKey entries that follow */
} AsOfImage;

typedef struct AsOfImageKey
{
	Size		key;			/* offset of the key (a MinimalTuple) */
	Size		versions;		/* of n AsOfVersions, rec as an offset */
	Size		fences;			/* of the fences and super fences, or 0 */
	Size		nullrec;		/* of the nearest's NULL-time record, or 0 */
	int			n;
} AsOfImageKey;

/* How many fences and super fences the n versions of a key have */
#define ASOF_NFENCES(n)		(((n) + ASOF_FENCE - 1) / ASOF_FENCE)
#define ASOF_NSUPER(n)		((ASOF_NFENCES(n) + ASOF_FENCE - 1) / ASOF_FENCE)

/*
 * asof_shared_estimate, asof_shared_init
 *		The shared state, in the DSM segment (the leader sets it up).
 */
Size
asof_shared_estimate(void)
{
	return MAXALIGN(sizeof(AsOfShared));
}

void
asof_shared_init(AsOfShared *sh)
{
	SpinLockInit(&sh->mutex);
	ConditionVariableInit(&sh->cv);
	sh->state = ASOF_SHARED_UNCLAIMED;
	sh->image = InvalidDsaPointer;
}

/*
 * asof_shared_reinit
 *		ReInitializeDSMCustomScan (leader, rescan of the Gather, the workers
 *		gone): free the image and let the next scan build again.
 */
void
asof_shared_reinit(AsOfShared *sh, dsa_area *area)
{
	if (DsaPointerIsValid(sh->image) && area != NULL)
		dsa_free(area, sh->image);
	sh->image = InvalidDsaPointer;
	sh->state = ASOF_SHARED_UNCLAIMED;
}

/*
 * asof_record_size
 *		Bytes of a version record: its Datums and nulls, then its
 *		by-reference values, which lie inside it.
 */
static Size
asof_record_size(AsOfJoinState *s, TupleDesc desc, char *rec)
{
	Datum	   *values = (Datum *) rec;
	bool	   *nulls = (bool *) (values + s->ninner);
	Size		size = s->rec_header;
	int			i;

	for (i = 0; i < s->ninner; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		char	   *p;

		if (nulls[i] || att->attbyval)
			continue;
		p = DatumGetPointer(values[i]);
		size = Max(size, (p - rec) +
				   MAXALIGN(datumGetSize(values[i], false, att->attlen)));
	}
	return MAXALIGN(size);
}

/*
 * asof_image_record
 *		Copy a record to the image at offset off, its by-reference Datums
 *		turned into offsets.  Returns its size.
 */
static Size
asof_image_record(AsOfJoinState *s, TupleDesc desc, char *image, Size off,
				  char *rec)
{
	Size		size = asof_record_size(s, desc, rec);
	Datum	   *values = (Datum *) (image + off);
	bool	   *nulls = (bool *) (values + s->ninner);
	int			i;

	memcpy(image + off, rec, size);
	for (i = 0; i < s->ninner; i++)
	{
		if (nulls[i] || TupleDescAttr(desc, i)->attbyval)
			continue;
		values[i] = (Datum) (off + (DatumGetPointer(values[i]) - rec));
	}
	return size;
}

/*
 * asof_image_size
 *		Bytes of the image of the loader's table.
 */
static Size
asof_image_size(AsOfJoinState *s, TupleDesc desc)
{
	TupleHashIterator iter;
	TupleHashEntry entry;
	Size		size = MAXALIGN(sizeof(AsOfImage));

	InitTupleHashIterator(s->hashtable, &iter);
	while ((entry = ScanTupleHashTable(s->hashtable, &iter)) != NULL)
	{
		AsOfVersions *vl = (AsOfVersions *) entry->additional;
		int			i;

		size = add_size(size, MAXALIGN(sizeof(AsOfImageKey)));
		size = add_size(size, MAXALIGN(entry->firstTuple->t_len));
		size = add_size(size, MAXALIGN(sizeof(AsOfVersion) * (Size) vl->n));
		if (vl->fences != NULL)
			size = add_size(size, MAXALIGN(sizeof(int64) *
										   (Size) (ASOF_NFENCES(vl->n) +
												   ASOF_NSUPER(vl->n))));
		if (vl->nullrec != NULL)
			size = add_size(size, asof_record_size(s, desc, vl->nullrec));
		for (i = 0; i < vl->n; i++)
			size = add_size(size, asof_record_size(s, desc, vl->v[i].rec));
	}
	TermTupleHashIterator(&iter);
	return size;
}

/*
 * asof_image_write
 *		Write the image of the loader's table (size bytes) to image.
 */
static void
asof_image_write(AsOfJoinState *s, TupleDesc desc, char *image, Size size)
{
	AsOfImage  *hdr = (AsOfImage *) image;
	AsOfImageKey *keys;
	TupleHashIterator iter;
	TupleHashEntry entry;
	Size		off;
	int64		k = 0;

	hdr->size = size;
	hdr->nkeys = s->hashtable->hashtab->members;
	keys = (AsOfImageKey *) (image + MAXALIGN(sizeof(AsOfImage)));
	off = MAXALIGN(sizeof(AsOfImage)) +
		MAXALIGN(sizeof(AsOfImageKey)) * hdr->nkeys;

	InitTupleHashIterator(s->hashtable, &iter);
	while ((entry = ScanTupleHashTable(s->hashtable, &iter)) != NULL)
	{
		AsOfVersions *vl = (AsOfVersions *) entry->additional;
		AsOfImageKey *ik = &keys[k++];
		AsOfVersion *v;
		int			i;

		CHECK_FOR_INTERRUPTS();
		ik->n = vl->n;
		ik->key = off;
		memcpy(image + off, entry->firstTuple, entry->firstTuple->t_len);
		off += MAXALIGN(entry->firstTuple->t_len);

		ik->versions = off;
		v = (AsOfVersion *) (image + off);
		off += MAXALIGN(sizeof(AsOfVersion) * (Size) vl->n);

		ik->fences = 0;
		if (vl->fences != NULL)
		{
			int			nf = ASOF_NFENCES(vl->n);
			int			ns = ASOF_NSUPER(vl->n);

			ik->fences = off;
			memcpy(image + off, vl->fences, sizeof(int64) * nf);
			memcpy(image + off + sizeof(int64) * nf, vl->super,
				   sizeof(int64) * ns);
			off += MAXALIGN(sizeof(int64) * (Size) (nf + ns));
		}

		ik->nullrec = 0;
		if (vl->nullrec != NULL)
		{
			ik->nullrec = off;
			off += asof_image_record(s, desc, image, off, vl->nullrec);
		}

		for (i = 0; i < vl->n; i++)
		{
			v[i].time = vl->v[i].time;
			v[i].rec = (char *) off;
			off += asof_image_record(s, desc, image, off, vl->v[i].rec);
		}
	}
	TermTupleHashIterator(&iter);
	if (k != hdr->nkeys || off != size)
		elog(ERROR, "AsOfJoin image of the versions is inconsistent");
}

/*
 * asof_image_attach
 *		Use the image of the versions (in the DSA area, mapped at image) in
 *		place of a table of one's own: enter its keys into the (empty) hash
 *		table, each with versions and fences that point into the image.
 *		Their records stay there, offsets and all; asof_next_looked_up
 *		turns a match's offsets into pointers.
 */
static void
asof_image_attach(AsOfJoinState *s, TupleDesc desc, char *image)
{
	AsOfImage  *hdr = (AsOfImage *) image;
	AsOfImageKey *keys;
	TupleTableSlot *kslot;
	MemoryContext oldcxt;
	int64		k;
	int			i;

	keys = (AsOfImageKey *) (image + MAXALIGN(sizeof(AsOfImage)));
	kslot = MakeSingleTupleTableSlot(s->probe_slot->tts_tupleDescriptor,
									 &TTSOpsMinimalTuple);
	for (k = 0; k < hdr->nkeys; k++)
	{
		AsOfImageKey *ik = &keys[k];
		AsOfVersions *vl;
		TupleHashEntry entry;
		bool		isnew;

		CHECK_FOR_INTERRUPTS();
		ExecStoreMinimalTuple((MinimalTuple) (image + ik->key), kslot, false);
		slot_getallattrs(kslot);
		entry = LookupTupleHashEntry(s->hashtable,
									 asof_key_slot(s, kslot->tts_values),
									 &isnew, NULL);
		if (!isnew)
			elog(ERROR, "AsOfJoin image of the versions has a key twice");

		vl = MemoryContextAlloc(s->hashcxt, sizeof(AsOfVersions));
		vl->n = ik->n;
		vl->cap = ik->n;
		vl->v = (AsOfVersion *) (image + ik->versions);
		vl->fences = NULL;
		vl->super = NULL;
		if (ik->fences != 0)
		{
			vl->fences = (int64 *) (image + ik->fences);
			vl->super = vl->fences + ASOF_NFENCES(ik->n);
		}
		vl->nullrec = ik->nullrec != 0 ? image + ik->nullrec : NULL;
		entry->additional = vl;
	}
	ExecDropSingleTupleTableSlot(kslot);

	/* the inner columns whose Datums are offsets in the records */
	oldcxt = MemoryContextSwitchTo(s->hashcxt);
	s->image_byref = palloc(sizeof(int) * s->ninner);
	s->image_values = palloc(sizeof(Datum) * s->ninner);
	s->image_nbyref = 0;
	for (i = 0; i < s->ninner; i++)
	{
		if (!TupleDescAttr(desc, i)->attbyval)
			s->image_byref[s->image_nbyref++] = i;
	}
	MemoryContextSwitchTo(oldcxt);
	s->image_base = image;
	s->loaded = true;
	s->fallback = false;
}

/*
 * asof_image_values
 *		A match's record in the image: its Datums, the by-reference ones
 *		turned from offsets into pointers, in s->image_values.
 */
Datum *
asof_image_values(AsOfJoinState *s, Datum *rec)
{
	bool	   *nulls = (bool *) (rec + s->ninner);
	int			i;

	memcpy(s->image_values, rec, s->ninner * sizeof(Datum));
	for (i = 0; i < s->image_nbyref; i++)
	{
		int			att = s->image_byref[i];

		if (!nulls[att])
			s->image_values[att] =
				PointerGetDatum(s->image_base + (Size) rec[att]);
	}
	return s->image_values;
}

/*
 * asof_shared_load
 *		Lookup strategy under a Gather: load the versions if no other
 *		participant has started to, and share them; or wait for the one
 *		that did and copy its image.  Without a DSA area (no parallel
 *		query's shared memory) every participant loads its own.
 */
void
asof_shared_load(AsOfJoinState *s)
{
	AsOfShared *sh = s->shared;
	dsa_area   *area = s->css.ss.ps.state->es_query_dsa;
	TupleDesc	desc = ExecGetResultType(s->inner_ps);
	bool		build = false;
	int			state;

	if (sh == NULL || area == NULL || !s->time_int64)
	{
		asof_lookup_load(s);
		return;
	}

	SpinLockAcquire(&sh->mutex);
	if (sh->state == ASOF_SHARED_UNCLAIMED)
	{
		sh->state = ASOF_SHARED_BUILDING;
		build = true;
	}
	SpinLockRelease(&sh->mutex);

	if (build)
	{
		asof_lookup_load(s);
		state = ASOF_SHARED_OVERFLOW;
		if (!s->fallback)
		{
			Size		size = asof_image_size(s, desc);
			dsa_pointer dp;

			dp = dsa_allocate_extended(area, size,
									   DSA_ALLOC_HUGE | DSA_ALLOC_NO_OOM);
			state = ASOF_SHARED_UNSHARED;
			if (DsaPointerIsValid(dp))
			{
				asof_image_write(s, desc, dsa_get_address(area, dp), size);
				sh->image = dp;
				state = ASOF_SHARED_READY;
			}
		}
		SpinLockAcquire(&sh->mutex);
		sh->state = state;
		SpinLockRelease(&sh->mutex);
		ConditionVariableBroadcast(&sh->cv);

		/*
		 * The loader too reads the image, so that one copy of the versions
		 * shares the caches; its own table goes, but its state figures are
		 * the versions loaded.
		 */
		if (state == ASOF_SHARED_READY)
		{
			WjStateStats stats = s->stats;

			asof_lookup_discard(s);
			asof_image_attach(s, desc, dsa_get_address(area, sh->image));
			s->stats = stats;
		}
		return;
	}

	ConditionVariablePrepareToSleep(&sh->cv);
	for (;;)
	{
		SpinLockAcquire(&sh->mutex);
		state = sh->state;
		SpinLockRelease(&sh->mutex);
		if (state != ASOF_SHARED_BUILDING)
			break;
		ConditionVariableSleep(&sh->cv, PG_WAIT_EXTENSION);
	}
	ConditionVariableCancelSleep();

	if (state == ASOF_SHARED_READY)
		asof_image_attach(s, desc, dsa_get_address(area, sh->image));
	else if (state == ASOF_SHARED_OVERFLOW)
	{
		s->loaded = true;
		asof_lookup_fall_back(s);
	}
	else
		asof_lookup_load(s);
}
