/*-------------------------------------------------------------------------
 *
 * asof_key_index.c
 *	  The lookup strategy's index of the versions' keys by their images:
 *	  an outer row's key found without calling its type's hash and
 *	  equality functions.
 *
 * The lookup strategy keeps its versions in a TupleHashTable keyed by the
 * join keys, which hashes and compares them through their types' support
 * functions, one function call (and for text, a detoast and a collation
 * lookup) per key and row.  For most keys that is more than equality asks:
 * when the key's btree operator class says its equality is image equality
 * (its BTEQUALIMAGE_PROC, the test B-tree deduplication relies on: true
 * for integers, timestamps, and text in a deterministic collation), two
 * keys are equal exactly when their bytes are, so a hash of the bytes
 * (datum_image_hash) and a comparison of the bytes (datum_image_eq) find
 * the same entry.
 *
 * When every key of the join is like that, with the same type on both
 * sides, asof_key_index_init says so at executor start-up, and once the
 * versions are in the table -- loaded by this participant or attached from
 * a shared image -- asof_key_index_build enters every key of the table into
 * a simplehash table by the hash of its images, pointing at its versions;
 * asof_key_index_find then answers the outer rows' lookups.  The table
 * stays the one that owns the keys and versions; the index is dropped with
 * its contents (asof_lookup_discard), and built again after the next load.
 *
 * src/nodes/asof_join/asof_key_index.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/nbtree.h"
#include "common/hashfn.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"

#include "src/nodes/asof_join/asof.h"
#include "src/nodes/asof_join/asof_lookup.h"
#include "src/common/pg_compat.h"

/* How the keys' images are read: per key, its type's length and passing */
typedef struct AsOfKeyImage
{
	int			nkeys;
	int16	   *typlen;
	bool	   *typbyval;
} AsOfKeyImage;

/* One key of the table: its values (in the table's entry) and versions */
typedef struct AsOfKeyEntry
{
	Datum	   *keys;
	AsOfVersions *vl;
	uint32		hash;
	char		status;			/* simplehash's */
} AsOfKeyEntry;

static uint32 asof_key_image_hash(AsOfKeyImage *img, Datum *keys);
static bool asof_key_image_eq(AsOfKeyImage *img, Datum *a, Datum *b);

#define SH_PREFIX asof_keyidx
#define SH_ELEMENT_TYPE AsOfKeyEntry
#define SH_KEY_TYPE Datum *
#define SH_KEY keys
#define SH_HASH_KEY(tb, key) \
	asof_key_image_hash((AsOfKeyImage *) (tb)->private_data, key)
#define SH_EQUAL(tb, a, b) \
	asof_key_image_eq((AsOfKeyImage *) (tb)->private_data, a, b)
#define SH_STORE_HASH
#define SH_GET_HASH(tb, a) ((a)->hash)
#define SH_SCOPE static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

/*
 * Is a varlena value's image right there: neither compressed nor stored
 * out of line (a short header is fine)?  Such values are hashed and
 * compared in place; others go through datum_image_hash/_eq, which
 * detoast them and read the same bytes.
 */
#define ASOF_PLAIN_VARLENA(d) \
	(!VARATT_IS_EXTERNAL(DatumGetPointer(d)) && \
	 !VARATT_IS_COMPRESSED(DatumGetPointer(d)))

/*
 * asof_key_image_hash
 *		Hash of the images of nkeys key values (none NULL), combined as
 *		TupleHashTableHash combines its columns' hashes.  By-value keys
 *		hash their Datum, varlena keys their data bytes (as
 *		datum_image_hash does, so that a compressed value and its plain copy
 *		hash alike).
 */
static uint32
asof_key_image_hash(AsOfKeyImage *img, Datum *keys)
{
	uint32		hash = 0;
	int			i;

	for (i = 0; i < img->nkeys; i++)
	{
		Datum		d = keys[i];
		uint32		h;

		if (img->typbyval[i])
			h = murmurhash32((uint32) (d ^ (d >> 32)));
		else if (img->typlen[i] == -1 && ASOF_PLAIN_VARLENA(d))
			h = hash_bytes((unsigned char *) VARDATA_ANY(DatumGetPointer(d)),
						   VARSIZE_ANY_EXHDR(DatumGetPointer(d)));
		else
			h = datum_image_hash(d, false, img->typlen[i]);
		hash = pg_rotate_left32(hash, 1) ^ h;
	}
	return murmurhash32(hash);
}

/*
 * asof_key_image_eq
 *		Are two lists of key values (none NULL) the same images?  In place
 *		for by-value keys and plain varlena ones, by datum_image_eq for the
 *		others.
 */
static bool
asof_key_image_eq(AsOfKeyImage *img, Datum *a, Datum *b)
{
	int			i;

	for (i = 0; i < img->nkeys; i++)
	{
		if (img->typbyval[i])
		{
			if (a[i] != b[i])
				return false;
		}
		else if (img->typlen[i] == -1 &&
				 ASOF_PLAIN_VARLENA(a[i]) && ASOF_PLAIN_VARLENA(b[i]))
		{
			struct varlena *va = (struct varlena *) DatumGetPointer(a[i]);
			struct varlena *vb = (struct varlena *) DatumGetPointer(b[i]);
			Size		len = VARSIZE_ANY_EXHDR(va);

			if (len != VARSIZE_ANY_EXHDR(vb) ||
				memcmp(VARDATA_ANY(va), VARDATA_ANY(vb), len) != 0)
				return false;
		}
		else if (!datum_image_eq(a[i], b[i], false, img->typlen[i]))
			return false;
	}
	return true;
}

/*
 * asof_key_index_init
 *		At executor start-up of a lookup: can the keys be found by their
 *		images?  Yes when every key has the same type on both sides and its
 *		btree operator class declares equality to be image equality in the
 *		key's collation (as _bt_allequalimage asks).  Sets ls->key_image,
 *		left NULL otherwise.
 */
void
asof_key_index_init(AsOfJoinState *s, const AsOfPlanInfo *info)
{
	AsOfLookupState *ls = asof_lookup_state(s);
	AsOfKeyImage *img;
	int			i;

	ls->key_image = NULL;
	ls->keyidx = NULL;
	if (info->nkeys == 0)
		return;
	for (i = 0; i < info->nkeys; i++)
	{
		const AsOfCmpInfo *cmp = &info->key_cmps[i];
		Oid			proc;

		if (cmp->outertype != cmp->innertype || !OidIsValid(cmp->opfamily))
			return;
		proc = get_opfamily_proc(cmp->opfamily, cmp->innertype,
								 cmp->innertype, BTEQUALIMAGE_PROC);
		if (!OidIsValid(proc) ||
			!DatumGetBool(OidFunctionCall1Coll(proc, cmp->collation,
											   ObjectIdGetDatum(cmp->innertype))))
			return;
	}
	img = palloc(sizeof(AsOfKeyImage));
	img->nkeys = info->nkeys;
	img->typlen = palloc(sizeof(int16) * info->nkeys);
	img->typbyval = palloc(sizeof(bool) * info->nkeys);
	for (i = 0; i < info->nkeys; i++)
		get_typlenbyval(info->key_cmps[i].innertype, &img->typlen[i],
						&img->typbyval[i]);
	ls->key_image = img;
}

/*
 * asof_key_index_build
 *		Enter every key of the table, with its versions, into the index (in
 *		hashcxt, so that asof_lookup_discard drops it with the versions).
 *		The values point into the table's own copy of each key.
 */
void
asof_key_index_build(AsOfJoinState *s)
{
	AsOfLookupState *ls = asof_lookup_state(s);
	TupleDesc	keydesc = ls->table->probe_slot->tts_tupleDescriptor;
	TupleHashIterator iter;
	TupleHashEntry entry;
	asof_keyidx_hash *idx;
	int			nkeys = ls->key_image->nkeys;
	bool	   *isnull = palloc(sizeof(bool) * nkeys);	/* keys never NULL */

	idx = asof_keyidx_create(ls->table->hashcxt,
							 Max(ls->table->hashtable->hashtab->members, 16),
							 ls->key_image);
	InitTupleHashIterator(ls->table->hashtable, &iter);
	while ((entry = ScanTupleHashTable(ls->table->hashtable, &iter)) != NULL)
	{
		HeapTupleData htup;
		Datum	   *keys;
		AsOfKeyEntry *ke;
		bool		found;

		CHECK_FOR_INTERRUPTS();
		keys = MemoryContextAlloc(ls->table->hashcxt, sizeof(Datum) * nkeys);
		htup.t_len = entry->firstTuple->t_len + MINIMAL_TUPLE_OFFSET;
		htup.t_data = (HeapTupleHeader) ((char *) entry->firstTuple -
										 MINIMAL_TUPLE_OFFSET);
		heap_deform_tuple(&htup, keydesc, keys, isnull);
		ke = asof_keyidx_insert(idx, keys, &found);
		if (found)
			elog(ERROR, "AsOfJoin key index has a key twice");
		ke->vl = (AsOfVersions *) wj_tuplehash_get(ls->table->hashtable, entry);
	}
	TermTupleHashIterator(&iter);
	pfree(isnull);
	ls->keyidx = idx;
}

/*
 * asof_key_index_find
 *		The versions of an outer row's keys (none NULL), NULL if the table
 *		has none.
 */
AsOfVersions *
asof_key_index_find(AsOfJoinState *s, Datum *keys)
{
	AsOfLookupState *ls = asof_lookup_state(s);
	AsOfKeyEntry *ke = asof_keyidx_lookup(ls->keyidx, keys);

	return ke != NULL ? ke->vl : NULL;
}
