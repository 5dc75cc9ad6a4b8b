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
 * The other direction -- the OID of one of our functions with given
 * argument types, for a planner that builds a call of it -- goes by the
 * same identity, not by name: among the members of the extension that owns
 * a function of ours the query already calls (pg_depend's extension
 * dependencies, read through its reference index), the one that wj_func_of
 * recognises as the wanted symbol with exactly those argument types.  The
 * answers are kept in a small array that the same callback empties on any
 * change to pg_proc.
 *
 * src/common/catalog_cache.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/dependency.h"
#include "catalog/indexing.h"
#include "catalog/pg_depend.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "commands/extension.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#include "src/common/catalog_cache.h"

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
	bool		ext_known;		/* ext_name looked up (wj_func_in_extension) */
	bool		has_ext;		/* the function belongs to an extension ... */
	NameData	ext_name;		/* ... of this name */
} WjFuncEntry;

static HTAB *wj_func_cache = NULL;
static bool wj_func_callback_registered = false;

/* One remembered answer of wj_func_oid */
#define WJ_MAX_ARGS 3
#define WJ_OID_CACHE_SIZE 16
typedef struct WjFuncOidEntry
{
	WjFunc		func;
	Oid			extension;		/* the extension it was searched in */
	int			nargs;
	Oid			argtypes[WJ_MAX_ARGS];
	Oid			funcid;			/* the answer; InvalidOid: none */
} WjFuncOidEntry;

static WjFuncOidEntry wj_func_oid_cache[WJ_OID_CACHE_SIZE];
static int	wj_func_oid_cached = 0;

static void wj_func_register_callback(void);

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

	/* the reverse answers are few: forget them all */
	wj_func_oid_cached = 0;

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
 * wj_func_entry
 *		The cache entry of funcid, made (with wj_func_of's answer) if there
 *		was none.
 */
static WjFuncEntry *
wj_func_entry(Oid funcid)
{
	WjFuncEntry *entry;
	bool		found;
	WjFunc		func;

	wj_func_register_callback();
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
		return entry;

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
	entry->ext_known = false;
	return entry;
}

/*
 * wj_func_of
 *		Which of our C functions funcid is, or WJF_NONE; from the backend's
 *		cache when it was asked before.
 */
WjFunc
wj_func_of(Oid funcid)
{
	if (!OidIsValid(funcid))
		return WJF_NONE;
	return wj_func_entry(funcid)->func;
}

/*
 * wj_func_in_extension
 *		Does funcid belong to the extension named extname (as btree_gist's
 *		distance functions do, asof_nearest_recognise.c)?  The answer is
 *		kept in the same entry and forgotten with it: DROP and CREATE
 *		EXTENSION delete and make pg_proc rows.  ALTER EXTENSION ADD or
 *		DROP FUNCTION changes pg_depend alone, and is seen at the next
 *		change to the function or cache reset.
 */
bool
wj_func_in_extension(Oid funcid, const char *extname)
{
	WjFuncEntry *entry;

	if (!OidIsValid(funcid))
		return false;
	entry = wj_func_entry(funcid);
	if (!entry->ext_known)
	{
		Oid			ext = getExtensionOfObject(ProcedureRelationId, funcid);
		char	   *name = OidIsValid(ext) ? get_extension_name(ext) : NULL;

		/* the lookups may have processed invalidations: find it again */
		entry = wj_func_entry(funcid);
		entry->ext_known = true;
		entry->has_ext = (name != NULL);
		if (name != NULL)
			namestrcpy(&entry->ext_name, name);
	}
	return entry->has_ext && strcmp(NameStr(entry->ext_name), extname) == 0;
}

/*
 * wj_func_register_callback
 *		Register the PROCOID invalidation callback, once per backend.
 */
static void
wj_func_register_callback(void)
{
	if (!wj_func_callback_registered)
	{
		CacheRegisterSyscacheCallback(PROCOID, wj_func_cache_invalidate,
									  (Datum) 0);
		wj_func_callback_registered = true;
	}
}

/*
 * search_extension
 *		Scan the members of extension extoid for our function func taking
 *		exactly argtypes; InvalidOid if there is none.
 */
static Oid
search_extension(Oid extoid, WjFunc func, int nargs, const Oid *argtypes)
{
	Relation	rel;
	ScanKeyData key[2];
	SysScanDesc scan;
	HeapTuple	tup;
	Oid			result = InvalidOid;

	rel = table_open(DependRelationId, AccessShareLock);
	ScanKeyInit(&key[0], Anum_pg_depend_refclassid, BTEqualStrategyNumber,
				F_OIDEQ, ObjectIdGetDatum(ExtensionRelationId));
	ScanKeyInit(&key[1], Anum_pg_depend_refobjid, BTEqualStrategyNumber,
				F_OIDEQ, ObjectIdGetDatum(extoid));
	scan = systable_beginscan(rel, DependReferenceIndexId, true, NULL, 2, key);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		Form_pg_depend dep = (Form_pg_depend) GETSTRUCT(tup);
		HeapTuple	proctup;
		bool		match = false;

		if (dep->classid != ProcedureRelationId ||
			dep->deptype != DEPENDENCY_EXTENSION ||
			wj_func_of(dep->objid) != func)
			continue;
		proctup = SearchSysCache1(PROCOID, ObjectIdGetDatum(dep->objid));
		if (HeapTupleIsValid(proctup))
		{
			Form_pg_proc proc = (Form_pg_proc) GETSTRUCT(proctup);

			match = proc->pronargs == nargs &&
				memcmp(proc->proargtypes.values, argtypes,
					   nargs * sizeof(Oid)) == 0;
			ReleaseSysCache(proctup);
		}
		if (match)
		{
			result = dep->objid;
			break;
		}
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return result;
}

/*
 * wj_func_oid
 *		The OID of our C function func taking exactly argtypes, from the
 *		extension that owns like_funcid (a function of ours the query
 *		calls); InvalidOid when like_funcid belongs to no extension or the
 *		extension has no such function.
 */
Oid
wj_func_oid(WjFunc func, Oid like_funcid, int nargs, const Oid *argtypes)
{
	Oid			extoid;
	Oid			result;
	WjFuncOidEntry *entry;

	if (nargs > WJ_MAX_ARGS)
		elog(ERROR, "too many arguments for wj_func_oid: %d", nargs);
	extoid = getExtensionOfObject(ProcedureRelationId, like_funcid);
	if (!OidIsValid(extoid))
		return InvalidOid;

	wj_func_register_callback();
	for (int i = 0; i < wj_func_oid_cached; i++)
	{
		entry = &wj_func_oid_cache[i];
		if (entry->func == func && entry->extension == extoid &&
			entry->nargs == nargs &&
			memcmp(entry->argtypes, argtypes, nargs * sizeof(Oid)) == 0)
			return entry->funcid;
	}

	/* as in wj_func_of: the answer first, then the entry */
	result = search_extension(extoid, func, nargs, argtypes);
	if (wj_func_oid_cached < WJ_OID_CACHE_SIZE)
	{
		entry = &wj_func_oid_cache[wj_func_oid_cached++];
		entry->func = func;
		entry->extension = extoid;
		entry->nargs = nargs;
		memcpy(entry->argtypes, argtypes, nargs * sizeof(Oid));
		entry->funcid = result;
	}
	return result;
}
