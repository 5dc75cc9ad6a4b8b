/*-------------------------------------------------------------------------
 *
 * asof_shared.c
 *	  The lookup strategy of a parallel AsOfJoin: the versions are loaded
 *	  by one participant into shared memory, and read there by all.
 *
 * Under a Gather, every participant joins its share of the outer rows with
 * every version.  With keys and an integer-like time the load is split by
 * key partition (AsOfPlanInfo.split, asof_plan_split in
 * asof_plan.c): the versions' scan keeps the rows of the partition in a
 * parameter (-1: every row); each participant claims partitions from a
 * counter in AsOfShared, loads each into a table of its own and writes its
 * image (below) into the DSA area; once all images are written, each
 * participant enters the keys of all of them into its own hash table, each
 * key's versions pointing into their image (AsOfVersions.base).  The images
 * together are held to the memory limit (AsOfShared.split_bytes).
 *
 * Otherwise each participant loads its own copy of them,
 * as a hash join that is not parallel-aware builds its own table: the load
 * repeats, but no participant waits for another.  When the copies would
 * together exceed the node's memory limit (asof_share_versions in
 * asof_paths.c, AsOfPlanInfo.share_versions), the versions are loaded once
 * and shared, as this file does: the first participant to start the scan
 * claims the load (AsOfShared, in the parallel query's DSM segment): it
 * loads the versions into its own table as a serial scan does
 * (asof_lookup_load), then writes a position-independent image of
 * the table into the query's DSA area -- every pointer an offset -- wakes
 * the others, which have waited on a condition
 * variable meanwhile, and drops its own table.  Every participant then
 * enters the image's keys into its own hash table, each with versions and
 * fences that point into the image (asof_image_attach), and the lookup
 * runs on the image in place: AsOfVersion.rec is an offset there
 * (asof_rec), and a match's by-reference Datums are turned into pointers
 * when it is returned (asof_image_values).
 *
 * A leader that leaves its share of the outer rows to the workers
 * (windowjoin.leader_participation) still claims the load if it starts
 * first, as it does while the workers are starting up, and then drops its
 * table and returns no rows (asof_shared_load_for_workers).
 *
 * Only when the times compare as int64 (AsOfLookupState.time_int64): the
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
 * Image layout: an AsOfImage header, nkeys AsOfImageKey entries, the blobs
 * they point to (the key as a MinimalTuple; the version array with record
 * offsets; the fences and super fences), then the loader's blocks of
 * records, copied whole.  The loader writes its records position-
 * independent in the first place (AsOfLookupState.rec_relative: every
 * by-reference Datum an offset from its record), so that writing the image
 * never touches a record: a version's offset comes from the block it lies
 * in (AsOfBlockMap).
 *
 * src/nodes/asof_join/asof_shared.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "utils/dsa.h"
#include "utils/memutils.h"
#include "utils/wait_event.h"

#include "src/nodes/asof_join/asof_lookup.h"
#include "src/common/pg_compat.h"

/* AsOfShared.state */
#define ASOF_SHARED_UNCLAIMED	0	/* no participant has started */
#define ASOF_SHARED_BUILDING	1	/* one is loading the versions */
#define ASOF_SHARED_READY		2	/* the image(s) in the DSA area */
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

static int	asof_shared_state(AsOfShared *sh);
static void asof_shared_set_state(AsOfShared *sh, int state);
static int	asof_shared_wait(AsOfShared *sh);

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
	sh->ahead_rows = 0;
	pg_atomic_init_u32(&sh->next_part, 0);
	sh->parts_done = 0;
	sh->split_bytes = 0;
	for (int i = 0; i < ASOF_MAX_SPLIT; i++)
		sh->part_images[i] = InvalidDsaPointer;
}

/*
 * asof_shared_reinit
 *		ReInitializeDSMCustomScan (leader, rescan of the Gather, the workers
 *		gone): free the image and let the next scan build again.  The rows
 *		read ahead add up over the scans, as EXPLAIN's rows do.
 */
void
asof_shared_reinit(AsOfShared *sh, dsa_area *area)
{
	if (DsaPointerIsValid(sh->image) && area != NULL)
		dsa_free(area, sh->image);
	sh->image = InvalidDsaPointer;
	sh->state = ASOF_SHARED_UNCLAIMED;
	for (int i = 0; i < ASOF_MAX_SPLIT; i++)
	{
		if (DsaPointerIsValid(sh->part_images[i]) && area != NULL)
			dsa_free(area, sh->part_images[i]);
		sh->part_images[i] = InvalidDsaPointer;
	}
	pg_atomic_write_u32(&sh->next_part, 0);
	sh->parts_done = 0;
	sh->split_bytes = 0;
}

/*
 * asof_shared_ahead_rows
 *		The outer rows read ahead by all participants so far, for EXPLAIN
 *		ANALYZE (asof_read_ahead).
 */
int64
asof_shared_ahead_rows(AsOfShared *sh)
{
	int64		n;

	SpinLockAcquire(&sh->mutex);
	n = sh->ahead_rows;
	SpinLockRelease(&sh->mutex);
	return n;
}

/*
 * AsOfBlockMap: the loader's blocks of records sorted by address, each with
 * its offset in the image, to find a record's offset from its address
 */
typedef struct AsOfBlockMap
{
	char	   *start;
	Size		used;
	Size		off;			/* in the image */
} AsOfBlockMap;

/* qsort comparator of AsOfBlockMap by start */
static int
asof_block_cmp(const void *a, const void *b)
{
	char	   *x = ((const AsOfBlockMap *) a)->start;
	char	   *y = ((const AsOfBlockMap *) b)->start;

	return x < y ? -1 : x > y ? 1 : 0;
}

/*
 * asof_rec_offset
 *		The image offset of a record at rec, one of the blocks of map.
 */
static Size
asof_rec_offset(AsOfBlockMap *map, int nblocks, char *rec)
{
	int			lo = 0;
	int			hi = nblocks;

	/* the last block starting at or before rec */
	while (hi - lo > 1)
	{
		int			mid = (lo + hi) / 2;

		if (map[mid].start <= rec)
			lo = mid;
		else
			hi = mid;
	}
	Assert(rec >= map[lo].start && rec < map[lo].start + map[lo].used);
	return map[lo].off + (rec - map[lo].start);
}

/*
 * asof_image_size
 *		Bytes of the image of the loader's table.
 */
static Size
asof_image_size(AsOfJoinState *s)
{
	AsOfLookupState *ls = asof_lookup_state(s);
	TupleHashIterator iter;
	TupleHashEntry entry;
	Size		size = MAXALIGN(sizeof(AsOfImage));
	int			i;

	InitTupleHashIterator(ls->table->hashtable, &iter);
	while ((entry = ScanTupleHashTable(ls->table->hashtable, &iter)) != NULL)
	{
		AsOfVersions *vl = (AsOfVersions *) wj_tuplehash_get(ls->table->hashtable, entry);

		size = add_size(size, MAXALIGN(sizeof(AsOfImageKey)));
		size = add_size(size, MAXALIGN(entry->firstTuple->t_len));
		size = add_size(size, MAXALIGN(sizeof(AsOfVersion) * (Size) vl->n));
		if (vl->fences != NULL)
			size = add_size(size, MAXALIGN(sizeof(int64) *
										   (Size) (ASOF_NFENCES(vl->n) +
												   ASOF_NSUPER(vl->n))));
	}
	TermTupleHashIterator(&iter);
	for (i = 0; i < ls->nblocks; i++)
		size = add_size(size, MAXALIGN(ls->block_used[i]));
	return size;
}

/*
 * asof_image_write
 *		Write the image of the loader's table (size bytes) to image: the
 *		keys and their version arrays, then the blocks of records as they
 *		are (their by-reference Datums are offsets from the record already,
 *		see AsOfLookupState.rec_relative).
 */
static void
asof_image_write(AsOfJoinState *s, char *image, Size size)
{
	AsOfLookupState *ls = asof_lookup_state(s);
	AsOfImage  *hdr = (AsOfImage *) image;
	AsOfImageKey *keys;
	AsOfBlockMap *map;
	TupleHashIterator iter;
	TupleHashEntry entry;
	Size		off;
	int64		k = 0;
	int			i;

	hdr->size = size;
	hdr->nkeys = ls->table->hashtable->hashtab->members;
	keys = (AsOfImageKey *) (image + MAXALIGN(sizeof(AsOfImage)));
	off = MAXALIGN(sizeof(AsOfImage)) +
		MAXALIGN(sizeof(AsOfImageKey)) * hdr->nkeys;

	/* the blocks go last: their offsets first */
	{
		Size		boff = size;

		map = palloc(sizeof(AsOfBlockMap) * Max(ls->nblocks, 1));
		for (i = ls->nblocks - 1; i >= 0; i--)
		{
			boff -= MAXALIGN(ls->block_used[i]);
			map[i].start = ls->blocks[i];
			map[i].used = ls->block_used[i];
			map[i].off = boff;
		}
		qsort(map, ls->nblocks, sizeof(AsOfBlockMap), asof_block_cmp);
	}

	InitTupleHashIterator(ls->table->hashtable, &iter);
	while ((entry = ScanTupleHashTable(ls->table->hashtable, &iter)) != NULL)
	{
		AsOfVersions *vl = (AsOfVersions *) wj_tuplehash_get(ls->table->hashtable, entry);
		AsOfImageKey *ik = &keys[k++];
		AsOfVersion *v;

		CHECK_FOR_INTERRUPTS();
		ik->n = vl->n;
		ik->key = off;
		memcpy(image + off, entry->firstTuple, entry->firstTuple->t_len);
		off += MAXALIGN(entry->firstTuple->t_len);

		ik->versions = off;
		v = (AsOfVersion *) (image + off);
		for (i = 0; i < vl->n; i++)
		{
			v[i].time = vl->v[i].time;
			v[i].rec = (char *) asof_rec_offset(map, ls->nblocks, vl->v[i].rec);
		}
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

		ik->nullrec = vl->nullrec != NULL ?
			asof_rec_offset(map, ls->nblocks, vl->nullrec) : 0;
	}
	TermTupleHashIterator(&iter);

	for (i = 0; i < ls->nblocks; i++)
	{
		CHECK_FOR_INTERRUPTS();
		memcpy(image + off, ls->blocks[i], ls->block_used[i]);
		off += MAXALIGN(ls->block_used[i]);
	}
	pfree(map);
	if (k != hdr->nkeys || off != size)
		elog(ERROR, "AsOfJoin image of the versions is inconsistent");
}

/*
 * asof_image_attach
 *		Use the image of the versions (in the DSA area, mapped at image) in
 *		place of a table of one's own: enter its keys into the (empty) hash
 *		table, each with versions and fences that point into the image
 *		(AsOfVersions.base: their recs are offsets in it).  Their records
 *		stay there, offsets and all; asof_next_looked_up turns a match's
 *		offsets into pointers.
 */
static void
asof_image_attach(AsOfJoinState *s, char *image)
{
	AsOfLookupState *ls = asof_lookup_state(s);
	AsOfImage  *hdr = (AsOfImage *) image;
	AsOfImageKey *keys;
	TupleTableSlot *kslot;
	int64		k;

	keys = (AsOfImageKey *) (image + MAXALIGN(sizeof(AsOfImage)));
	kslot = MakeSingleTupleTableSlot(ls->table->probe_slot->tts_tupleDescriptor,
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
		entry = LookupTupleHashEntry(ls->table->hashtable,
									 asof_key_slot(s, ls->table, kslot->tts_values),
									 &isnew, NULL);
		if (!isnew)
			elog(ERROR, "AsOfJoin image of the versions has a key twice");

		vl = MemoryContextAlloc(ls->table->hashcxt, sizeof(AsOfVersions));
		vl->n = ik->n;
		vl->cap = ik->n;
		vl->v = (AsOfVersion *) (image + ik->versions);
		vl->base = image;
		vl->fences = NULL;
		vl->super = NULL;
		if (ik->fences != 0)
		{
			vl->fences = (int64 *) (image + ik->fences);
			vl->super = vl->fences + ASOF_NFENCES(ik->n);
		}
		vl->nullrec = ik->nullrec != 0 ? image + ik->nullrec : NULL;
		wj_tuplehash_set(ls->table->hashtable, entry, vl);
	}
	ExecDropSingleTupleTableSlot(kslot);
	ls->in_images = true;
	ls->loaded = true;
	ls->fallback = false;
	s->keep_null_times = true;
}

/*
 * asof_image_values
 *		A match's record in the image: its Datums, the by-reference ones
 *		turned from offsets into pointers, in ls->image_values.
 */
Datum *
asof_image_values(AsOfJoinState *s, Datum *rec)
{
	AsOfLookupState *ls = asof_lookup_state(s);
	bool	   *nulls = (bool *) (rec + s->ninner);
	int			i;

	memcpy(ls->image_values, rec, s->ninner * sizeof(Datum));
	for (i = 0; i < ls->ninner_byref; i++)
	{
		int			att = ls->inner_byref[i];

		if (!nulls[att])
			ls->image_values[att] =
				PointerGetDatum((char *) rec + (Size) rec[att]);
	}
	return ls->image_values;
}

/*
 * asof_shareable
 *		Whether the plan shares the versions and they can be shared here:
 *		not without a DSA area (the Gather above could not start parallel
 *		mode), nor with a time that does not compare as int64.
 */
static bool
asof_shareable(AsOfJoinState *s)
{
	AsOfLookupState *ls = asof_lookup_state(s);

	return ls->shared != NULL && s->info.share_versions &&
		s->css.ss.ps.state->es_query_dsa != NULL && ls->time_int64;
}

/*
 * asof_shared_claim
 *		Whether this participant is the first to start the scan, and so
 *		loads the versions for all; false too when they cannot be shared
 *		(asof_shareable), *shareable then false.
 */
static bool
asof_shared_claim(AsOfJoinState *s, bool *shareable)
{
	AsOfLookupState *ls = asof_lookup_state(s);
	AsOfShared *sh = ls->shared;
	bool		build = false;

	*shareable = asof_shareable(s);
	if (!*shareable)
		return false;
	SpinLockAcquire(&sh->mutex);
	if (sh->state == ASOF_SHARED_UNCLAIMED)
	{
		sh->state = ASOF_SHARED_BUILDING;
		build = true;
	}
	SpinLockRelease(&sh->mutex);
	return build;
}

/*
 * asof_shared_build
 *		The claimed load: read the versions with position-independent
 *		records, write their image into the DSA area and wake the others.
 *		Returns the state set: READY, OVERFLOW (past the memory limit, this
 *		participant has fallen back), or UNSHARED (no room in the DSA area;
 *		the inner child is then restarted).  On READY and UNSHARED the
 *		loader's own table is gone (ls->loaded false), its state figures
 *		kept on READY: they are the versions loaded, for EXPLAIN ANALYZE.
 */
static int
asof_shared_build(AsOfJoinState *s)
{
	AsOfLookupState *ls = asof_lookup_state(s);
	AsOfShared *sh = ls->shared;
	dsa_area   *area = s->css.ss.ps.state->es_query_dsa;
	int			state = ASOF_SHARED_OVERFLOW;

	ls->rec_relative = true;
	asof_lookup_load(s);
	if (!ls->fallback)
	{
		Size		size = asof_image_size(s);
		dsa_pointer dp;

		dp = dsa_allocate_extended(area, size,
								   DSA_ALLOC_HUGE | DSA_ALLOC_NO_OOM);
		if (DsaPointerIsValid(dp))
		{
			WjStateStats stats = s->stats;

			asof_image_write(s, dsa_get_address(area, dp), size);
			sh->image = dp;
			state = ASOF_SHARED_READY;
			asof_lookup_discard(s);
			s->stats = stats;
		}
		else
		{
			state = ASOF_SHARED_UNSHARED;
			asof_lookup_discard(s);
			asof_restart_inner(s);
		}
		ls->loaded = false;
	}
	asof_shared_set_state(sh, state);
	return state;
}

/*
 * asof_split_build
 *		A participant's share of a split load: claim key partitions one
 *		after another while any is left (and the load has not failed), read
 *		each partition's versions through the scan's filter into a table of
 *		its own, with position-independent records, and write its image
 *		into the DSA area.  Returns false when the load failed: the versions
 *		of all partitions together exceed the memory limit (this participant
 *		has then fallen back), or the DSA area cannot hold an image.
 */
static bool
asof_split_build(AsOfJoinState *s)
{
	AsOfLookupState *ls = asof_lookup_state(s);
	AsOfShared *sh = ls->shared;
	dsa_area   *area = s->css.ss.ps.state->es_query_dsa;
	WjStateStats stats;

	memset(&stats, 0, sizeof(stats));
	for (;;)
	{
		uint32		p = pg_atomic_fetch_add_u32(&sh->next_part, 1);
		Size		size;
		dsa_pointer dp;
		bool		over;

		if (p >= (uint32) s->info.split.units ||
			asof_shared_state(sh) != ASOF_SHARED_BUILDING)
			break;
		ls->split_part = (int) p;
		asof_restart_inner(s);
		ls->rec_relative = true;
		/* on overflow these fall back, with partition -1 */
		if (IsA(s->inner_ps, SortState))
			asof_lookup_load_unsorted(s);
		else
			asof_lookup_load(s);
		ls->split_part = -1;
		if (ls->fallback)
		{
			asof_shared_set_state(sh, ASOF_SHARED_OVERFLOW);
			return false;
		}

		/* the partitions' images together must fit, as one table must */
		size = asof_image_size(s);
		SpinLockAcquire(&sh->mutex);
		sh->split_bytes += size;
		over = sh->split_bytes > ls->mem_limit;
		SpinLockRelease(&sh->mutex);
		if (over)
		{
			asof_shared_set_state(sh, ASOF_SHARED_OVERFLOW);
			asof_lookup_fall_back(s);
			return false;
		}

		dp = dsa_allocate_extended(area, size,
								   DSA_ALLOC_HUGE | DSA_ALLOC_NO_OOM);
		if (!DsaPointerIsValid(dp))
		{
			asof_shared_set_state(sh, ASOF_SHARED_UNSHARED);
			asof_lookup_discard(s);
			ls->loaded = false;
			return false;
		}
		asof_image_write(s, dsa_get_address(area, dp), size);
		stats.rows += s->stats.rows;
		stats.bytes += s->stats.bytes;
		stats.peak_rows = Max(stats.peak_rows, stats.rows);
		stats.peak_bytes = Max(stats.peak_bytes, stats.bytes);
		asof_lookup_discard(s);
		ls->loaded = false;
		SpinLockAcquire(&sh->mutex);
		sh->part_images[p] = dp;
		if (++sh->parts_done == s->info.split.units &&
			sh->state == ASOF_SHARED_BUILDING)
			sh->state = ASOF_SHARED_READY;	/* the last image is written */
		SpinLockRelease(&sh->mutex);
		ConditionVariableBroadcast(&sh->cv);
	}
	s->stats = stats;
	return true;
}

/*
 * asof_split_load
 *		A load split by key partition (AsOfPlanInfo.split): load
 *		partitions while any is left (asof_split_build), then, unless only
 *		loading for the workers, wait until every partition's image is
 *		written and enter all of them into this participant's table (their
 *		keys are disjoint).  If the load failed, fall back to the sweep
 *		(overflow) or load a table of one's own (no room in the DSA area),
 *		reading every version (partition -1).
 */
static void
asof_split_load(AsOfJoinState *s, bool for_workers)
{
	AsOfLookupState *ls = asof_lookup_state(s);
	AsOfShared *sh = ls->shared;
	dsa_area   *area = s->css.ss.ps.state->es_query_dsa;
	int			state;

	/* the first participant to start moves the state to BUILDING */
	SpinLockAcquire(&sh->mutex);
	if (sh->state == ASOF_SHARED_UNCLAIMED)
		sh->state = ASOF_SHARED_BUILDING;
	SpinLockRelease(&sh->mutex);

	if (!asof_split_build(s) && ls->fallback)
		return;
	if (for_workers)
		return;
	state = asof_shared_wait(sh);
	if (state == ASOF_SHARED_OVERFLOW)
	{
		ls->loaded = true;
		asof_lookup_fall_back(s);
		return;
	}
	if (state == ASOF_SHARED_UNSHARED)
	{
		asof_restart_inner(s);
		asof_lookup_load(s);
		return;
	}
	for (int p = 0; p < s->info.split.units; p++)
		asof_image_attach(s, dsa_get_address(area, sh->part_images[p]));
}

/*
 * asof_shared_load_for_workers
 *		A leader that leaves its share of the outer rows to the workers
 *		(wj_leader_leaves_share) still loads the versions for them if none
 *		has started to: it reaches the scan first, while the workers are
 *		starting, so that their wait for the versions overlaps their own
 *		start-up instead of following it.  It keeps no table (a rescan
 *		loads again); past the memory limit it has read no outer row, and
 *		the workers fall back.
 */
void
asof_shared_load_for_workers(AsOfJoinState *s)
{
	AsOfLookupState *ls = asof_lookup_state(s);
	bool		shareable;

	if (s->info.split.param >= 0 && asof_shareable(s))
	{
		ls->load_only = true;
		asof_split_load(s, true);
		ls->load_only = false;
		return;
	}
	if (!asof_shared_claim(s, &shareable))
		return;
	ls->load_only = true;
	(void) asof_shared_build(s);
	ls->load_only = false;
}

/*
 * asof_shared_state
 *		The state of the shared versions (AsOfShared.state).
 */
static int
asof_shared_state(AsOfShared *sh)
{
	int			state;

	SpinLockAcquire(&sh->mutex);
	state = sh->state;
	SpinLockRelease(&sh->mutex);
	return state;
}

/*
 * asof_shared_set_state
 *		Set the state of the shared versions and wake the participants
 *		waiting for it.
 */
static void
asof_shared_set_state(AsOfShared *sh, int state)
{
	SpinLockAcquire(&sh->mutex);
	sh->state = state;
	SpinLockRelease(&sh->mutex);
	ConditionVariableBroadcast(&sh->cv);
}

/*
 * asof_shared_wait
 *		Wait while the versions are being loaded (state BUILDING) and
 *		return the state they came to.
 */
static int
asof_shared_wait(AsOfShared *sh)
{
	int			state;

	ConditionVariablePrepareToSleep(&sh->cv);
	while ((state = asof_shared_state(sh)) == ASOF_SHARED_BUILDING)
		ConditionVariableSleep(&sh->cv, PG_WAIT_EXTENSION);
	ConditionVariableCancelSleep();
	return state;
}

/*
 * asof_ahead_grow
 *		Room for twice as many rows read ahead (in ahead_cxt, current);
 *		false if that would take the memory past the node's limit.
 */
static bool
asof_ahead_grow(AsOfJoinState *s)
{
	AsOfLookupState *ls = asof_lookup_state(s);
	int64		cap = Max(ls->ahead_cap * 2, ASOF_BATCH * 8);
	Size		n = (Size) s->nouter * cap;

	if (MemoryContextMemAllocated(ls->ahead_cxt, true) +
		(sizeof(Datum) + sizeof(bool)) * (n - (Size) s->nouter * ls->ahead_cap) >
		ls->mem_limit)
		return false;
	ls->ahead_cap = cap;
	if (ls->ahead_values == NULL)
	{
		ls->ahead_values = palloc_extended(sizeof(Datum) * n, MCXT_ALLOC_HUGE);
		ls->ahead_isnull = palloc_extended(sizeof(bool) * n, MCXT_ALLOC_HUGE);
	}
	else
	{
		ls->ahead_values = repalloc_huge(ls->ahead_values, sizeof(Datum) * n);
		ls->ahead_isnull = repalloc_huge(ls->ahead_isnull, sizeof(bool) * n);
	}
	return true;
}

/*
 * asof_read_ahead
 *		While another participant loads the versions, read outer rows
 *		ahead, copied as the lookup's batches copy them (asof_lookup_fill
 *		then takes them first), so that the wait uses the CPU the loader
 *		leaves free: the scan below and the copies are done by then.  The
 *		first row's keys are evaluated too and thrown away, so that the
 *		plan's expressions are compiled (jit) now rather than after the
 *		wait.  Stops when the load has ended, at the end of the outer rows,
 *		once the rows take the node's memory limit (work_mem times
 *		hash_mem_multiplier, the limit of the versions, of which a waiting
 *		participant holds none), or once they are as many as the planner
 *		expects one participant to join (the partial outer path's rows): the
 *		rows read ahead are this participant's alone, and one that started
 *		first must not take far more than its share of the scan, to be
 *		joined alone while the others are done.  The rest of the wait is
 *		spent asleep.
 */
static void
asof_read_ahead(AsOfJoinState *s)
{
	AsOfLookupState *ls = asof_lookup_state(s);
	ExprContext *econtext = s->css.ss.ps.ps_ExprContext;
	double		share = Max(s->outer_ps->plan->plan_rows, ASOF_BATCH);
	MemoryContext oldcxt;

	Assert(ls->ahead_cxt == NULL && !ls->ahead_eof);
	ls->ahead_cxt = AllocSetContextCreate(s->css.ss.ps.state->es_query_cxt,
										 "AsOfJoin outer rows read ahead",
										 ALLOCSET_DEFAULT_SIZES);
	/* the state and the limits are looked at once per ASOF_BATCH rows */
	while (ls->ahead_n % ASOF_BATCH != 0 ||
		   (asof_shared_state(ls->shared) == ASOF_SHARED_BUILDING &&
			ls->ahead_n < share &&
			MemoryContextMemAllocated(ls->ahead_cxt, true) < ls->mem_limit))
	{
		TupleTableSlot *outer;

		CHECK_FOR_INTERRUPTS();
		/* the child runs in the caller's context, the copies go here */
		oldcxt = MemoryContextSwitchTo(ls->ahead_cxt);
		if (ls->ahead_n == ls->ahead_cap && !asof_ahead_grow(s))
		{
			MemoryContextSwitchTo(oldcxt);
			break;
		}
		MemoryContextSwitchTo(oldcxt);
		outer = ExecProcNode(s->outer_ps);
		if (TupIsNull(outer))
		{
			ls->ahead_eof = true;
			break;
		}
		oldcxt = MemoryContextSwitchTo(ls->ahead_cxt);
		asof_copy_values(outer, s->nouter,
						 ls->ahead_values + ls->ahead_n * s->nouter,
						 ls->ahead_isnull + ls->ahead_n * s->nouter);
		MemoryContextSwitchTo(oldcxt);
		if (ls->ahead_n == 0 && s->nkeys > 0)
		{
			bool		isnull;
			int			i;

			econtext->ecxt_scantuple =
				asof_form_values(s, ls->ahead_values, ls->ahead_isnull);
			for (i = 0; i < s->nkeys; i++)
				(void) ExecEvalExprSwitchContext(s->outer_key[i], econtext,
												 &isnull);
			ResetExprContext(econtext);
		}
		ls->ahead_n++;
	}
	SpinLockAcquire(&ls->shared->mutex);
	ls->shared->ahead_rows += ls->ahead_n;
	SpinLockRelease(&ls->shared->mutex);
}

/*
 * asof_shared_load
 *		Lookup strategy under a Gather: load the versions if no other
 *		participant has started to, and share them; or wait for the one
 *		that did and read its image.  Without a DSA area (no parallel
 *		query's shared memory) every participant loads its own.
 */
void
asof_shared_load(AsOfJoinState *s)
{
	AsOfLookupState *ls = asof_lookup_state(s);
	AsOfShared *sh = ls->shared;
	dsa_area   *area = s->css.ss.ps.state->es_query_dsa;
	bool		shareable;
	int			state;

	if (s->info.split.param >= 0 && asof_shareable(s))
	{
		asof_split_load(s, false);
		return;
	}
	if (asof_shared_claim(s, &shareable))
	{
		state = asof_shared_build(s);

		/*
		 * The loader too reads the image, so that one copy of the versions
		 * shares the caches.  With no room for an image it loads a table of
		 * its own, with plain records.
		 */
		if (state == ASOF_SHARED_READY)
			asof_image_attach(s, dsa_get_address(area, sh->image));
		else if (state == ASOF_SHARED_UNSHARED)
			asof_lookup_load(s);
		return;
	}
	if (!shareable)
	{
		asof_lookup_load(s);
		return;
	}

	asof_read_ahead(s);
	state = asof_shared_wait(sh);

	if (state == ASOF_SHARED_READY)
		asof_image_attach(s, dsa_get_address(area, sh->image));
	else if (state == ASOF_SHARED_OVERFLOW)
	{
		ls->loaded = true;
		asof_lookup_fall_back(s);
	}
	else
		asof_lookup_load(s);
}
