/*-------------------------------------------------------------------------
 *
 * catalog_cache.c
 *	  Recognising windowjoin's own C functions in query trees, with one
 *	  catalog lookup per function per backend.
 *
 * The planner hooks look for our functions (wj_hop_starts, wj_session, ...)
 * in every query they see, and the join hook does so for every pair of
 * relations PostgreSQL considers joining.  A function is ours when it is a
 * C-language function whose library (probin) is this module -- the last
 * path component of probin is "windowjoin", with or without a file suffix
 * -- and whose C symbol (prosrc) is one we export.  That does not depend on
 * the schema the extension was installed in, on search_path, or on the
 * SQL names, so the identity survives ALTER EXTENSION ... SET SCHEMA and
 * renamed wrappers.
 *
 * The answer for each OID asked about, ours or not, is kept in a backend-
 * local hash table in CacheMemoryContext, together with the PROCOID
 * syscache hash value of the OID.  A syscache invalidation callback on
 * PROCOID removes the entries it names (all of them on a cache reset), so
 * CREATE OR REPLACE FUNCTION, DROP FUNCTION, and DROP/CREATE/ALTER
 * EXTENSION -- which create, change or delete pg_proc rows -- take effect
 * in the same backend at its next lookup, as they do for other backends
 * when they process the invalidation messages.  The callback is
 * registered on first use, so that every backend registers its own.
 *
 * src/catalog_cache.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#include "catalog_cache.h"

/* The C symbols we export to SQL, and what they are */
static const struct
{
	const char *symbol;
	WjFunc		func;
}			wj_symbols[] =
{
	{"wj_tumble_start", WJF_TUMBLE_START},
	{"wj_tumble_end", WJF_TUMBLE_END},
	{"wj_tumble_time", WJF_TUMBLE_TIME},
	{"wj_window_end", WJF_WINDOW_END},
	{"wj_window_time", WJF_WINDOW_TIME},
	{"wj_end_to_time", WJF_END_TO_TIME},
	{"wj_hop_starts", WJF_HOP_STARTS},
	{"wj_cumulate_ends", WJF_CUMULATE_ENDS},
	{"wj_hop_support", WJF_HOP_SUPPORT},
	{"wj_cumulate_support", WJF_CUMULATE_SUPPORT},
	{"wj_session", WJF_SESSION},
	{"windowjoin_status", WJF_STATUS},
};

/* The library name, as probin ends (MODULE_PATHNAME is $libdir/windowjoin) */
#define WJ_LIBRARY_NAME "windowjoin"

/* One remembered answer */
typedef struct WjFuncEntry
{
	Oid			funcid;			/* hash key */
	uint32		hashvalue;		/* PROCOID syscache hash of funcid */
	WjFunc		func;
} WjFuncEntry;

static HTAB *wj_func_cache = NULL;
static bool wj_func_callback_registered = false;

/*
 * wj_func_cache_invalidate
 *		PROCOID syscache callback: forget the answers for the pg_proc rows
 *		that changed (hashvalue 0: all of them).  No catalog access here.
 */
static void
wj_func_cache_invalidate(Datum arg, int cacheid, uint32 hashvalue)
{
	HASH_SEQ_STATUS status;
	WjFuncEntry *entry;

	if (wj_func_cache == NULL)
		return;
	hash_seq_init(&status, wj_func_cache);
	while ((entry = (WjFuncEntry *) hash_seq_search(&status)) != NULL)
	{
		if (hashvalue == 0 || entry->hashvalue == hashvalue)
			(void) hash_search(wj_func_cache, &entry->funcid, HASH_REMOVE,
							   NULL);
	}
}

/*
 * library_is_ours
 *		Does probin name this module?  Its last path component must be the
 *		library name, optionally followed by a file suffix (".so").
 */
static bool
library_is_ours(const char *probin)
{
	const char *base = strrchr(probin, '/');
	size_t		len = strlen(WJ_LIBRARY_NAME);

	base = (base == NULL) ? probin : base + 1;
	return strncmp(base, WJ_LIBRARY_NAME, len) == 0 &&
		(base[len] == '\0' || base[len] == '.');
}

/*
 * lookup_func
 *		Ask pg_proc which of our functions funcid is.
 */
static WjFunc
lookup_func(Oid funcid)
{
	HeapTuple	tup;
	Datum		d;
	bool		isnull;
	WjFunc		result = WJF_NONE;

	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(funcid));
	if (!HeapTupleIsValid(tup))
		return WJF_NONE;
	if (((Form_pg_proc) GETSTRUCT(tup))->prolang == ClanguageId)
	{
		d = SysCacheGetAttr(PROCOID, tup, Anum_pg_proc_probin, &isnull);
		if (!isnull && library_is_ours(TextDatumGetCString(d)))
		{
			d = SysCacheGetAttr(PROCOID, tup, Anum_pg_proc_prosrc, &isnull);
			if (!isnull)
			{
				char	   *src = TextDatumGetCString(d);

				for (int i = 0; i < lengthof(wj_symbols); i++)
				{
					if (strcmp(src, wj_symbols[i].symbol) == 0)
					{
						result = wj_symbols[i].func;
						break;
					}
				}
			}
		}
	}
	ReleaseSysCache(tup);
	return result;
}

/*
 * wj_func_of
 *		Which of our C functions funcid is, or WJF_NONE; from the backend's
 *		cache when it was asked before.
 */
WjFunc
wj_func_of(Oid funcid)
{
	WjFuncEntry *entry;
	bool		found;
	WjFunc		func;

	if (!OidIsValid(funcid))
		return WJF_NONE;

	if (!wj_func_callback_registered)
	{
		CacheRegisterSyscacheCallback(PROCOID, wj_func_cache_invalidate,
									  (Datum) 0);
		wj_func_callback_registered = true;
	}
	if (wj_func_cache == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(WjFuncEntry);
		ctl.hcxt = CacheMemoryContext;
		wj_func_cache = hash_create("windowjoin functions", 64, &ctl,
									HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}

	entry = (WjFuncEntry *) hash_search(wj_func_cache, &funcid, HASH_FIND,
										NULL);
	if (entry != NULL)
		return entry->func;

	/*
	 * Look it up before making the entry: the lookup may process
	 * invalidation messages, which would remove a half-made entry.
	 */
	func = lookup_func(funcid);
	entry = (WjFuncEntry *) hash_search(wj_func_cache, &funcid, HASH_ENTER,
										&found);
	entry->hashvalue = GetSysCacheHashValue1(PROCOID,
											 ObjectIdGetDatum(funcid));
	entry->func = func;
	return entry->func;
}
