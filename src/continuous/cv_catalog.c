/*-------------------------------------------------------------------------
 *
 * cv_catalog.c
 *	  The continuous views' catalog, windowjoin.view_catalog: the one path
 *	  by which it is written, and the checks every writer passes.
 *
 * Security model (docs/continuous-trust.md, "Security model").  The catalog is
 * the extension's: no role but the extension's owner holds INSERT,
 * UPDATE or DELETE on it, and a role reads (through row level security)
 * only the rows of views it has the privileges of the owner of.  Every
 * write goes through a C function of this file (or refresh, which calls
 * cv_catalog_exec), which
 *
 *	  1. checks that the caller has the privileges of the owner of the view
 *		 (pg_class.relowner: the owner is never stored, so ALTER ... OWNER,
 *		 REASSIGN OWNED and a renamed role need nothing), and, when the row
 *		 is new, of every relation the row names (the change logs, the late
 *		 and pane tables are the owner's own ordinary tables of the expected
 *		 shape; the caller may read the sources);
 *	  2. runs its one fixed statement as the catalog's owner under
 *		 SECURITY_RESTRICTED_OPERATION, with the search_path the function
 *		 pins (pg_catalog, pg_temp) and every operator schema-qualified, so
 *		 that nothing of a user schema resolves in it.
 *
 * Change capture (cv_capture.c) reads the catalog here too, without SQL
 * (cv_catalog_capture_target): a trigger is a view's capture trigger only
 * when the view's row lists it by its table and name, and the row says
 * which log it writes.
 *
 * windowjoin.views runs no user code as its reader: the counts it shows
 * come from windowjoin._view_stats, which runs them as the view's owner,
 * restricted, in a subtransaction, so a broken view shows NULLs and never
 * hides the others.
 *
 * Dependencies.  A view's objects are tied together in pg_depend, so that
 * PostgreSQL's own DROP does the right thing:
 *
 *	  view -> source, source's time column	NORMAL: DROP TABLE source and
 *							DROP COLUMN of the time column are refused while
 *							a view reads them; CASCADE drops the view
 *	  log, late, panes, derived functions -> view	AUTO: go with the view
 *	  capture triggers (on the source and its partitions) -> view	AUTO
 *	  view, log, late, panes, functions -> extension	AUTO
 *
 * They are recorded for every new catalog row by the catalog's row trigger
 * (wj_catalog_bind), whether the row comes from _catalog_insert or from
 * pg_restore, which restores the rows but not these entries; a capture
 * trigger by _catalog_insert once checked, or, when pg_restore (or a new
 * partition) makes it after its row, by the CREATE TRIGGER event trigger
 * (wj_bind_trigger).  The catalog row goes with the view through the
 * sql_drop event trigger (windowjoin._on_drop).
 *
 * src/continuous/cv_catalog.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/dependency.h"
#include "catalog/indexing.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_depend.h"
#include "catalog/pg_extension.h"
#include "catalog/partition.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_trigger.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "parser/parse_func.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/inval.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "src/common/window_arith.h"
#include "src/continuous/cv_catalog.h"
#include "src/common/pg_compat.h"

PG_FUNCTION_INFO_V1(wj_catalog_insert);
PG_FUNCTION_INFO_V1(wj_catalog_advance);
PG_FUNCTION_INFO_V1(wj_catalog_note_refresh);
PG_FUNCTION_INFO_V1(wj_view_stats);

/* the columns a caller of _catalog_insert may set: the definition */
static const char *const cv_definition_columns[] = {
	"view_rel", "query", "kind", "source_rel", "time_column", "time_type",
	"size", "stride", "offset", "gap", "range_query", "changes_rel",
	"late_rel", "panes_rel", "pane_query", "combine_query", "merge_query",
	"delay", "late", "emit", "schedule", "max_event", "join_kind",
	"join_type", "source2_rel", "time_column2", "band_lo", "band_hi",
	"right_query", "changes2_rel", "late2_rel", "max_event2", "idle",
	"distributed", "triggers", "triggers2", NULL
};

/* the catalog's OID once found, until a relcache invalidation of it */
static Oid	cv_catalog_cached = InvalidOid;
static bool cv_catalog_callback_registered = false;

/*
 * What capture found for a trigger, by its table and name, until a
 * relcache invalidation of that table, of the view's source or log, or of
 * the catalog: a view's capture triggers, its log and the numbers it keeps
 * change only by DDL on one of those (dropping the view drops its
 * triggers, which invalidates the table they are on).
 */
typedef struct CvTargetKey
{
	Oid			relid;
	NameData	tgname;
} CvTargetKey;

typedef struct CvTargetEntry
{
	CvTargetKey key;
	CvCaptureTarget target;
} CvTargetEntry;

static HTAB *cv_targets = NULL;

/*
 * cv_catalog_invalidate
 *		Relcache invalidation callback: forget the catalog's OID when it (or
 *		every relation) is invalidated, as DROP EXTENSION does, and every
 *		capture target when one of the relations it names is.
 */
static void
cv_catalog_invalidate(Datum arg, Oid relid)
{
	bool		flush = !OidIsValid(relid) || relid == cv_catalog_cached;

	if (flush)
		cv_catalog_cached = InvalidOid;
	if (cv_targets != NULL && !flush)
	{
		HASH_SEQ_STATUS seq;
		CvTargetEntry *e;

		hash_seq_init(&seq, cv_targets);
		while ((e = hash_seq_search(&seq)) != NULL)
		{
			if (e->key.relid == relid || e->target.source == relid ||
				e->target.log == relid || e->target.view == relid)
			{
				flush = true;
				hash_seq_term(&seq);
				break;
			}
		}
	}
	if (flush && cv_targets != NULL)
	{
		hash_destroy(cv_targets);
		cv_targets = NULL;
	}
}

/*
 * cv_catalog_relid
 *		windowjoin.view_catalog, checked to be the extension's own table (a
 *		schema of that name made by someone else is not it); InvalidOid
 *		when the extension, or this version of it, is not installed.  Found
 *		once per backend (capture asks at every statement), forgotten when
 *		the table is invalidated.
 */
Oid
cv_catalog_relid(void)
{
	Oid			ext;
	Oid			nsp;
	Oid			rel;

	if (OidIsValid(cv_catalog_cached))
		return cv_catalog_cached;
	ext = get_extension_oid("windowjoin", true);
	if (!OidIsValid(ext))
		return InvalidOid;
	nsp = get_namespace_oid("windowjoin", true);
	if (!OidIsValid(nsp))
		return InvalidOid;
	rel = get_relname_relid("view_catalog", nsp);
	if (!OidIsValid(rel) || getExtensionOfObject(RelationRelationId, rel) != ext)
		return InvalidOid;
	if (!cv_catalog_callback_registered)
	{
		CacheRegisterRelcacheCallback(cv_catalog_invalidate, (Datum) 0);
		cv_catalog_callback_registered = true;
	}
	cv_catalog_cached = rel;
	return rel;
}

/*
 * cv_rel_owner
 *		The owner of a relation; InvalidOid if it is gone.
 */
Oid
cv_rel_owner(Oid rel)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(rel));
	Oid			owner;

	if (!HeapTupleIsValid(tup))
		return InvalidOid;
	owner = ((Form_pg_class) GETSTRUCT(tup))->relowner;
	ReleaseSysCache(tup);
	return owner;
}

/*
 * cv_relation_text
 *		A relation's name for a message, or its OID when it is gone.
 */
char *
cv_relation_text(Oid rel)
{
	char	   *name = get_rel_name(rel);

	if (name == NULL)
		return psprintf("%u", rel);
	return quote_qualified_identifier(get_namespace_name(get_rel_namespace(rel)),
									  name);
}

/*
 * cv_check_view_owner
 *		The current user must have the privileges of the owner of view.
 */
void
cv_check_view_owner(Oid view)
{
	Oid			owner = cv_rel_owner(view);

	if (!OidIsValid(owner))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", view)));
	if (!has_privs_of_role(GetUserId(), owner))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE, get_rel_name(view));
}

/*
 * cv_catalog_begin
 *		Become the catalog's owner for one of this file's fixed statements;
 *		cv_catalog_end switches back.  An error in between is rolled back
 *		with the (sub)transaction, which restores the user.
 */
void
cv_catalog_begin(CvCatalogUser *save)
{
	Oid			cat = cv_catalog_relid();

	if (!OidIsValid(cat))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the windowjoin continuous view catalog is not installed in this database"),
				 errhint("Run ALTER EXTENSION windowjoin UPDATE.")));
	GetUserIdAndSecContext(&save->userid, &save->sec_context);
	SetUserIdAndSecContext(cv_rel_owner(cat),
						   save->sec_context | SECURITY_LOCAL_USERID_CHANGE |
						   SECURITY_RESTRICTED_OPERATION);
}

void
cv_catalog_end(const CvCatalogUser *save)
{
	SetUserIdAndSecContext(save->userid, save->sec_context);
}

/*
 * cv_catalog_exec
 *		Run one fixed catalog statement as the catalog's owner; returns
 *		SPI's code.  The caller is connected to SPI.
 */
int
cv_catalog_exec(const char *sql, int nargs, Oid *types, Datum *values,
				const char *nulls)
{
	CvCatalogUser save;
	int			rc;

	cv_catalog_begin(&save);
	rc = SPI_execute_with_args(sql, nargs, types, values, nulls, false, 0);
	cv_catalog_end(&save);
	return rc;
}

/*
 * cv_log_shape_ok
 *		Is rel a change log capture may write: an ordinary table of (sign
 *		smallint, t, t_max, n integer[, r]) with t and t_max of timetype,
 *		and nothing that a direct insert would bypass (no index, rule,
 *		trigger, check constraint or row security)?
 */
bool
cv_log_shape_ok(Relation rel, Oid timetype)
{
	TupleDesc	desc = RelationGetDescr(rel);
	Form_pg_class form = RelationGetForm(rel);
	Oid			want[4] = {INT2OID, timetype, timetype, INT4OID};
	int			natts = 0;

	if (form->relkind != RELKIND_RELATION || form->relhasindex ||
		form->relhasrules || form->relhastriggers || form->relrowsecurity ||
		(desc->constr != NULL && desc->constr->num_check > 0))
		return false;
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (att->attisdropped)
			return false;
		if (natts < 4 && att->atttypid != want[natts])
			return false;
		if (att->atthasdef || att->attgenerated)
			return false;
		natts++;
	}
	return natts == 4 || natts == 5;
}

/*
 * cv_catalog_attnum
 *		The number of the catalog's column name.
 */
AttrNumber
cv_catalog_attnum(TupleDesc desc, const char *name)
{
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (!att->attisdropped && strcmp(NameStr(att->attname), name) == 0)
			return i + 1;
	}
	elog(ERROR, "windowjoin.view_catalog has no column \"%s\"", name);
	return InvalidAttrNumber;
}

/*
 * cv_datum_col
 *		Column name of the catalog tuple tup (descriptor desc).
 */
Datum
cv_datum_col(HeapTuple tup, TupleDesc desc, const char *name, bool *isnull)
{
	return heap_getattr(tup, cv_catalog_attnum(desc, name), desc, isnull);
}

Oid
cv_oid_col(HeapTuple tup, TupleDesc desc, const char *name)
{
	bool		isnull;
	Datum		d = cv_datum_col(tup, desc, name, &isnull);

	return isnull ? InvalidOid : DatumGetObjectId(d);
}

/*
 * an interval column in microseconds, 0 when null (the catalog's CHECKs
 * and create_view's window checks admit no months)
 */
int64
cv_usecs_col(HeapTuple tup, TupleDesc desc, const char *name)
{
	bool		isnull;
	Datum		d = cv_datum_col(tup, desc, name, &isnull);
	int64		usecs;

	if (isnull)
		return 0;
	if (!wj_interval_usecs(DatumGetIntervalP(d), &usecs))
		elog(ERROR, "continuous view catalog: \"%s\" is not a fixed length", name);
	return usecs;
}

/* a text or name column as a C string, NULL when null */
char *
cv_text_col(HeapTuple tup, TupleDesc desc, const char *name)
{
	AttrNumber	attno = cv_catalog_attnum(desc, name);
	bool		isnull;
	Datum		d = heap_getattr(tup, attno, desc, &isnull);

	if (isnull)
		return NULL;
	if (TupleDescAttr(desc, attno - 1)->atttypid == NAMEOID)
		return pstrdup(NameStr(*DatumGetName(d)));
	return TextDatumGetCString(d);
}

/*
 * cv_capture_grain
 *		The change log's bins: the unit in which rows become late (the
 *		tumble size, the hop slide when it divides the size, the cumulate
 *		step, the session gap; one second for interval and as-of views);
 *		0 for one log row per changed row.
 */
static int64
cv_capture_grain(HeapTuple tup, TupleDesc desc)
{
	char	   *kind = cv_text_col(tup, desc, "kind");
	int64		size = cv_usecs_col(tup, desc, "size");
	int64		stride = cv_usecs_col(tup, desc, "stride");

	if (strcmp(kind, "tumble") == 0)
		return size;
	if (strcmp(kind, "hop") == 0)
		return (stride > 0 && size % stride == 0) ? stride : 0;
	if (strcmp(kind, "cumulate") == 0)
		return stride;
	if (strcmp(kind, "session") == 0)
		return cv_usecs_col(tup, desc, "gap");
	return USECS_PER_SEC;
}

/*
 * cv_close_grain
 *		The grid window ends lie on, for the wake at a window's close
 *		(cv_capture.c): the tumble size, the hop slide, the cumulate step,
 *		the session gap (a session closes a gap after its last row: a wake
 *		at least every gap of event time); 0 for interval and as-of views,
 *		whose rows are final one by one.
 */
static int64
cv_close_grain(HeapTuple tup, TupleDesc desc)
{
	char	   *kind = cv_text_col(tup, desc, "kind");

	if (strcmp(kind, "tumble") == 0)
		return cv_usecs_col(tup, desc, "size");
	if (strcmp(kind, "hop") == 0 || strcmp(kind, "cumulate") == 0)
		return cv_usecs_col(tup, desc, "stride");
	if (strcmp(kind, "session") == 0)
		return cv_usecs_col(tup, desc, "gap");
	return 0;
}

/*
 * cv_name_in_array
 *		Is name an element of the name[] Datum arr?
 */
static bool
cv_name_in_array(Datum arr, const char *name)
{
	ArrayType  *a = DatumGetArrayTypeP(arr);
	Datum	   *elems;
	bool	   *nulls;
	int			n;

	deconstruct_array(a, NAMEOID, NAMEDATALEN, false, TYPALIGN_CHAR,
					  &elems, &nulls, &n);
	for (int i = 0; i < n; i++)
		if (!nulls[i] && strcmp(NameStr(*DatumGetName(elems[i])), name) == 0)
			return true;
	return false;
}

/*
 * cv_fill_target
 *		What capture does for side (1: the source, 2: a join's right source)
 *		of the view of catalog row tup.
 */
static void
cv_fill_target(HeapTuple tup, TupleDesc desc, int side, CvCaptureTarget *t)
{
	bool		isnull;
	Datum		d;
	char	   *late;

	t->view = cv_oid_col(tup, desc, "view_rel");
	t->source = cv_oid_col(tup, desc, side == 1 ? "source_rel" : "source2_rel");
	t->log = cv_oid_col(tup, desc, side == 1 ? "changes_rel" : "changes2_rel");
	d = cv_datum_col(tup, desc, side == 1 ? "time_attnum" : "time_attnum2", &isnull);
	t->timeattno = isnull ? InvalidAttrNumber : DatumGetInt16(d);
	t->timetype = cv_oid_col(tup, desc, "time_type");
	late = cv_text_col(tup, desc, "late");
	t->with_rows = late != NULL && strcmp(late, "log") == 0;
	t->grain = t->with_rows ? 0 : cv_capture_grain(tup, desc);
	t->offset = cv_usecs_col(tup, desc, "offset");
	t->scheduled = !heap_attisnull(tup, cv_catalog_attnum(desc, "schedule"), desc);
	t->close_grain = cv_close_grain(tup, desc);
	t->delay = cv_usecs_col(tup, desc, "delay");
}

/*
 * cv_catalog_targets_reading
 *		The capture targets (and capture trigger names) of every view side
 *		whose source is one of sources and that has a change log: what
 *		cv_partitions.c gives a new partition, and logs its rows for.
 */
List *
cv_catalog_targets_reading(List *sources)
{
	Oid			cat = cv_catalog_relid();
	Relation	rel;
	SysScanDesc scan;
	HeapTuple	tup;
	List	   *out = NIL;

	if (!OidIsValid(cat) || sources == NIL)
		return NIL;
	rel = table_open(cat, AccessShareLock);
	scan = systable_beginscan(rel, InvalidOid, false, NULL, 0, NULL);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		TupleDesc	desc = RelationGetDescr(rel);

		for (int side = 1; side <= 2; side++)
		{
			bool		isnull;
			Datum		trg;
			CvSourceTarget *st;

			if (!list_member_oid(sources, cv_oid_col(tup, desc, side == 1 ? "source_rel" : "source2_rel")) ||
				!OidIsValid(cv_oid_col(tup, desc, side == 1 ? "changes_rel" : "changes2_rel")))
				continue;
			trg = cv_datum_col(tup, desc, side == 1 ? "triggers" : "triggers2", &isnull);
			if (isnull)
				continue;
			st = palloc(sizeof(CvSourceTarget));
			cv_fill_target(tup, desc, side, &st->target);
			st->triggers = PointerGetDatum(PG_DETOAST_DATUM_COPY(trg));
			out = lappend(out, st);
		}
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return out;
}

/*
 * cv_catalog_capture_target
 *		What the capture trigger tgname on table relid may do: the view
 *		whose catalog row lists the trigger among the capture triggers of
 *		its source (triggers, or triggers2 for a join's right source),
 *		relid being that source or one of its partitions, the log it
 *		writes, the time column (the source's number) and the bins.  False
 *		when no view lists it.  The trigger is known by its table and its
 *		name, which PostgreSQL keeps unique per table and which survive a
 *		dump and restore (an OID would not); _catalog_insert lets a view
 *		list only triggers named after it and listed by no other view.
 *		Reads the catalog without SQL.
 */
bool
cv_catalog_capture_target(Oid relid, const char *tgname, CvCaptureTarget *t)
{
	Oid			cat = cv_catalog_relid();
	List	   *ancestors = NIL;
	Relation	rel;
	SysScanDesc scan;
	HeapTuple	tup;
	bool		found = false;
	CvTargetKey key;
	CvTargetEntry *e;

	if (!OidIsValid(cat))
		return false;
	memset(&key, 0, sizeof(key));
	key.relid = relid;
	namestrcpy(&key.tgname, tgname);
	if (cv_targets != NULL &&
		(e = hash_search(cv_targets, &key, HASH_FIND, NULL)) != NULL)
	{
		*t = e->target;
		return true;
	}
	/* (a 0.3 catalog lists no triggers: cv_capture_target_03 reads it) */
	if (cv_catalog_is_03())
		return false;
	if (get_rel_relispartition(relid))
		ancestors = get_partition_ancestors(relid);
	rel = table_open(cat, AccessShareLock);
	scan = systable_beginscan(rel, InvalidOid, false, NULL, 0, NULL);
	while (!found && HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		TupleDesc	desc = RelationGetDescr(rel);

		for (int side = 1; side <= 2 && !found; side++)
		{
			bool		isnull;
			Datum		d;
			Oid			source = cv_oid_col(tup, desc, side == 1 ? "source_rel" : "source2_rel");

			/* its source, or a partition of it at any depth */
			if (source != relid && !list_member_oid(ancestors, source))
				continue;
			d = cv_datum_col(tup, desc, side == 1 ? "triggers" : "triggers2", &isnull);
			if (isnull || !cv_name_in_array(d, tgname))
				continue;
			found = true;
			cv_fill_target(tup, desc, side, t);
		}
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);

	/* (only what is found is kept: a refused trigger is an error anyway) */
	if (found)
	{
		if (cv_targets == NULL)
		{
			HASHCTL		ctl;

			ctl.keysize = sizeof(CvTargetKey);
			ctl.entrysize = sizeof(CvTargetEntry);
			cv_targets = hash_create("windowjoin capture targets", 16, &ctl,
									 HASH_ELEM | HASH_BLOBS);
		}
		e = hash_search(cv_targets, &key, HASH_ENTER, NULL);
		e->target = *t;
	}
	return found;
}

/*
 * cv_catalog_is_03
 *		Is the catalog still version 0.3's (this library installed, ALTER
 *		EXTENSION windowjoin UPDATE not run yet)?
 */
bool
cv_catalog_is_03(void)
{
	Oid			cat = cv_catalog_relid();

	return OidIsValid(cat) && get_attnum(cat, "triggers") == InvalidAttrNumber;
}

/*
 * cv_catalog_has_feeds
 *		Has the catalog the changefeed columns of 0.5 (a 0.4 catalog, before
 *		ALTER EXTENSION windowjoin UPDATE, has none)?
 */
bool
cv_catalog_has_feeds(void)
{
	Oid			cat = cv_catalog_relid();

	return OidIsValid(cat) && get_attnum(cat, "feed_rel") != InvalidAttrNumber;
}

/*
 * cv_depended_on
 *		The relations (classid, objid) depends on with deptype.
 */
List *
cv_depended_on(Oid classid, Oid objid, char deptype)
{
	Relation	dep = table_open(DependRelationId, AccessShareLock);
	ScanKeyData key[2];
	SysScanDesc scan;
	HeapTuple	tup;
	List	   *refs = NIL;

	ScanKeyInit(&key[0], Anum_pg_depend_classid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(classid));
	ScanKeyInit(&key[1], Anum_pg_depend_objid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(objid));
	scan = systable_beginscan(dep, DependDependerIndexId, true, NULL, 2, key);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		Form_pg_depend d = (Form_pg_depend) GETSTRUCT(tup);

		if (d->refclassid == RelationRelationId && d->deptype == deptype)
			refs = lappend_oid(refs, d->refobjid);
	}
	systable_endscan(scan);
	table_close(dep, AccessShareLock);
	return refs;
}

/*
 * cv_require_owned_table
 *		rel (when valid) must be an ordinary table owned by owner; what
 *		names it in a message.
 */
void
cv_require_owned_table(Oid rel, Oid owner, const char *what)
{
	if (!OidIsValid(rel))
		return;
	if (get_rel_relkind(rel) != RELKIND_RELATION || cv_rel_owner(rel) != owner)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("the %s of a continuous view must be a table of the view's owner",
						what),
				 errdetail("Relation %s is not.", cv_relation_text(rel))));
}

/*
 * cv_require_log
 *		A change log: the owner's table, of the shape capture writes.
 */
static void
cv_require_log(Oid rel, Oid owner, Oid timetype)
{
	Relation	r;
	bool		ok;

	if (!OidIsValid(rel))
		return;
	cv_require_owned_table(rel, owner, "change log");
	r = table_open(rel, AccessShareLock);
	ok = cv_log_shape_ok(r, timetype);
	table_close(r, AccessShareLock);
	if (!ok)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TABLE_DEFINITION),
				 errmsg("table %s is not a change log of a continuous view",
						cv_relation_text(rel))));
}

/*
 * cv_require_source
 *		A source: a table (or partitioned table) the caller may read, with
 *		the time column of the given type; returns the column's number.
 */
static AttrNumber
cv_require_source(Oid rel, const char *timecol, Oid timetype)
{
	char		kind = get_rel_relkind(rel);
	AttrNumber	attno;

	if (kind != RELKIND_RELATION && kind != RELKIND_PARTITIONED_TABLE &&
		kind != RELKIND_FOREIGN_TABLE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("the source of a continuous view must be a table"),
				 errdetail("Relation %s is not.", cv_relation_text(rel))));
	if (pg_class_aclcheck(rel, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
		aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_TABLE, get_rel_name(rel));
	attno = timecol ? get_attnum(rel, timecol) : InvalidAttrNumber;
	if (attno <= 0 || get_atttype(rel, attno) != timetype)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of %s is not the time column of a continuous view",
						timecol ? timecol : "", cv_relation_text(rel))));
	return attno;
}

/*
 * cv_capture_function
 *		The OID of windowjoin._capture().
 */
static Oid
cv_capture_function(void)
{
	Oid			noargs[1] = {InvalidOid};
	List	   *name = list_make2(makeString("windowjoin"), makeString("_capture"));

	return LookupFuncName(name, 0, noargs, false);
}

/*
 * cv_trigger_function
 *		The function a trigger calls (InvalidOid if the trigger is gone);
 *		with *relid and *name, when given, its table and name.
 */
static Oid
cv_trigger_function_ext(Oid trigoid, Oid *relid, char **name)
{
	Relation	tgrel = table_open(TriggerRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tg;
	Oid			fn = InvalidOid;

	ScanKeyInit(&key, Anum_pg_trigger_oid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(trigoid));
	scan = systable_beginscan(tgrel, TriggerOidIndexId, true, NULL, 1, &key);
	tg = systable_getnext(scan);
	if (HeapTupleIsValid(tg))
	{
		Form_pg_trigger form = (Form_pg_trigger) GETSTRUCT(tg);

		fn = form->tgfoid;
		if (relid)
			*relid = form->tgrelid;
		if (name)
			*name = pstrdup(NameStr(form->tgname));
	}
	systable_endscan(scan);
	table_close(tgrel, AccessShareLock);
	return fn;
}

static Oid
cv_trigger_function(Oid trigoid)
{
	return cv_trigger_function_ext(trigoid, NULL, NULL);
}

/*
 * cv_trigger_claimed
 *		Does a catalog row other than view's list a capture trigger named
 *		tgname on source?
 */
static bool
cv_trigger_claimed(Oid view, Oid source, const char *tgname)
{
	Relation	rel = table_open(cv_catalog_relid(), AccessShareLock);
	SysScanDesc scan = systable_beginscan(rel, InvalidOid, false, NULL, 0, NULL);
	TupleDesc	desc = RelationGetDescr(rel);
	HeapTuple	tup;
	bool		claimed = false;

	while (!claimed && HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		if (cv_oid_col(tup, desc, "view_rel") == view)
			continue;
		for (int side = 1; side <= 2; side++)
		{
			bool		isnull;
			Datum		d;

			if (cv_oid_col(tup, desc, side == 1 ? "source_rel" : "source2_rel") != source)
				continue;
			d = cv_datum_col(tup, desc, side == 1 ? "triggers" : "triggers2", &isnull);
			if (!isnull && cv_name_in_array(d, tgname))
				claimed = true;
		}
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return claimed;
}

/*
 * cv_record_triggers
 *		Check and record the capture triggers a new view lists for its
 *		source (side 1) or its right source (side 2): each must be a trigger
 *		on that source calling windowjoin._capture, named after this view
 *		(windowjoin_<view OID>_...), and listed by no other view.  Each
 *		then goes with the view (an AUTO dependency).
 */
static int
cv_record_triggers(HeapTuple tup, TupleDesc desc, int side, const ObjectAddress *viewaddr)
{
	Oid			view = viewaddr->objectId;
	Oid			source = cv_oid_col(tup, desc, side == 1 ? "source_rel" : "source2_rel");
	Oid			capture = cv_capture_function();
	char	   *prefix = psprintf("windowjoin_%u_", view);
	bool		isnull;
	Datum		d = cv_datum_col(tup, desc, side == 1 ? "triggers" : "triggers2", &isnull);
	Datum	   *elems;
	bool	   *nulls;
	int			n = 0;

	if (isnull)
		return 0;
	deconstruct_array(DatumGetArrayTypeP(d), NAMEOID, NAMEDATALEN, false,
					  TYPALIGN_CHAR, &elems, &nulls, &n);
	for (int i = 0; i < n; i++)
	{
		const char *name = nulls[i] ? "" : NameStr(*DatumGetName(elems[i]));
		Oid			trigoid = get_trigger_oid(source, name, true);
		bool		ok = false;
		ObjectAddress addr;

		if (OidIsValid(trigoid) && strncmp(name, prefix, strlen(prefix)) == 0)
			ok = cv_trigger_function(trigoid) == capture;
		if (!ok || cv_trigger_claimed(view, source, name))
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("trigger \"%s\" on %s is not a capture trigger of continuous view %s",
							name, cv_relation_text(source), cv_relation_text(view))));
		ObjectAddressSet(addr, TriggerRelationId, trigoid);
		recordDependencyOn(&addr, viewaddr, DEPENDENCY_AUTO);

		/* its namesakes on the source's partitions go with the view too */
		if (get_rel_relkind(source) == RELKIND_PARTITIONED_TABLE)
		{
			ListCell   *lc;

			foreach(lc, find_all_inheritors(source, NoLock, NULL))
			{
				Oid			part = lfirst_oid(lc);
				Oid			ptrig = part == source ? InvalidOid :
					get_trigger_oid(part, name, true);

				if (!OidIsValid(ptrig) || cv_trigger_function(ptrig) != capture)
					continue;
				ObjectAddressSet(addr, TriggerRelationId, ptrig);
				recordDependencyOn(&addr, viewaddr, DEPENDENCY_AUTO);
			}
		}
	}
	return n;
}

/*
 * cv_record_view_table
 *		A table of a view's (its log, late, pane or feed table) goes with
 *		the view and with the extension.
 */
void
cv_record_view_table(Oid rel, Oid view)
{
	ObjectAddress viewaddr;
	ObjectAddress extaddr;
	ObjectAddress addr;

	ObjectAddressSet(viewaddr, RelationRelationId, view);
	ObjectAddressSet(extaddr, ExtensionRelationId, get_extension_oid("windowjoin", false));
	ObjectAddressSet(addr, RelationRelationId, rel);
	recordDependencyOn(&addr, &viewaddr, DEPENDENCY_AUTO);
	recordDependencyOn(&addr, &extaddr, DEPENDENCY_AUTO);
}

/*
 * cv_record_dependencies
 *		The pg_depend entries of a catalog row (the file header): the view
 *		on its sources and their time columns, its own tables and derived
 *		functions on it, and all of them on the extension.  Capture
 *		triggers are recorded apart (cv_record_triggers, cv_bind_trigger).
 */
static void
cv_record_dependencies(HeapTuple tup, TupleDesc desc)
{
	Oid			view = cv_oid_col(tup, desc, "view_rel");
	Oid			ext = get_extension_oid("windowjoin", false);
	ObjectAddress viewaddr;
	ObjectAddress extaddr;
	ObjectAddress addr;
	const char *owned[] = {"changes_rel", "late_rel", "panes_rel", "changes2_rel",
	"late2_rel", "feed_rel", NULL};
	const char *fns[] = {"range_fn", "pane_fn", "combine_fn", "right_fn", NULL};

	ObjectAddressSet(viewaddr, RelationRelationId, view);
	ObjectAddressSet(extaddr, ExtensionRelationId, ext);

	for (int side = 1; side <= 2; side++)
	{
		Oid			src = cv_oid_col(tup, desc, side == 1 ? "source_rel" : "source2_rel");
		char	   *col = cv_text_col(tup, desc, side == 1 ? "time_column" : "time_column2");
		AttrNumber	att = col ? get_attnum(src, col) : InvalidAttrNumber;

		if (!OidIsValid(src) ||
			(side == 2 && src == cv_oid_col(tup, desc, "source_rel")))
			continue;
		ObjectAddressSet(addr, RelationRelationId, src);
		recordDependencyOn(&viewaddr, &addr, DEPENDENCY_NORMAL);
		if (att > 0)
		{
			ObjectAddressSubSet(addr, RelationRelationId, src, att);
			recordDependencyOn(&viewaddr, &addr, DEPENDENCY_NORMAL);
		}
	}
	recordDependencyOn(&viewaddr, &extaddr, DEPENDENCY_AUTO);

	for (int i = 0; owned[i] != NULL; i++)
	{
		Oid			rel;

		if (strcmp(owned[i], "feed_rel") == 0 && !cv_catalog_has_feeds())
			continue;
		rel = cv_oid_col(tup, desc, owned[i]);
		if (OidIsValid(rel))
			cv_record_view_table(rel, view);
	}
	for (int i = 0; fns[i] != NULL; i++)
	{
		Oid			fn = cv_oid_col(tup, desc, fns[i]);

		if (!OidIsValid(fn))
			continue;
		ObjectAddressSet(addr, ProcedureRelationId, fn);
		recordDependencyOn(&addr, &viewaddr, DEPENDENCY_AUTO);
		recordDependencyOn(&addr, &extaddr, DEPENDENCY_AUTO);
	}
}

PG_FUNCTION_INFO_V1(wj_catalog_bind);

/*
 * wj_catalog_bind
 *		windowjoin._catalog_bind(): AFTER INSERT ... FOR EACH ROW trigger of
 *		the catalog.  Records a new row's dependencies, whether the row
 *		comes from _catalog_insert or from pg_restore, which restores the
 *		catalog's rows but not the pg_depend entries of the objects they
 *		name.  Only the catalog's owner inserts rows.
 */
Datum
wj_catalog_bind(PG_FUNCTION_ARGS)
{
	TriggerData *trigdata = (TriggerData *) fcinfo->context;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_AFTER(trigdata->tg_event) ||
		!TRIGGER_FIRED_FOR_ROW(trigdata->tg_event) ||
		!TRIGGER_FIRED_BY_INSERT(trigdata->tg_event) ||
		RelationGetRelid(trigdata->tg_relation) != cv_catalog_relid())
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("windowjoin._catalog_bind() must be an AFTER INSERT ... FOR EACH ROW trigger of windowjoin.view_catalog")));
	cv_record_dependencies(trigdata->tg_trigtuple, RelationGetDescr(trigdata->tg_relation));
	return PointerGetDatum(trigdata->tg_trigtuple);
}

PG_FUNCTION_INFO_V1(wj_bind_trigger);

/*
 * wj_bind_trigger
 *		windowjoin._bind_trigger(trigger oid), from the extension's
 *		ddl_command_end event trigger for CREATE TRIGGER: a trigger that a
 *		catalog row lists as a capture trigger (pg_restore makes them after
 *		restoring the catalog) goes with its view.  Does nothing for any
 *		other trigger, and for one create_view is making (its row comes
 *		after; _catalog_insert records it).
 */
Datum
wj_bind_trigger(PG_FUNCTION_ARGS)
{
	Oid			trigoid = PG_GETARG_OID(0);
	Oid			relid = InvalidOid;
	char	   *name = NULL;

	if (cv_trigger_function_ext(trigoid, &relid, &name) != cv_capture_function())
		name = NULL;

	if (name != NULL)
	{
		CvCaptureTarget target;

		if (cv_catalog_capture_target(relid, name, &target))
		{
			ObjectAddress viewaddr;
			ObjectAddress addr;

			ObjectAddressSet(viewaddr, RelationRelationId, target.view);
			ObjectAddressSet(addr, TriggerRelationId, trigoid);
			recordDependencyOn(&addr, &viewaddr, DEPENDENCY_AUTO);
		}
	}
	PG_RETURN_VOID();
}

/*
 * cv_definition_columns_of
 *		The columns a _catalog_insert definition sets, as a list for SQL:
 *		definition columns only, and the view among them, which must be
 *		the caller's before anything is written.
 */
static char *
cv_definition_columns_of(Jsonb *def)
{
	JsonbIterator *it = JsonbIteratorInit(&def->root);
	JsonbValue	jv;
	JsonbIteratorToken tok;
	StringInfoData cols;
	bool		owner_checked = false;

	initStringInfo(&cols);
	while ((tok = JsonbIteratorNext(&it, &jv, true)) != WJB_DONE)
	{
		char	   *key;
		bool		known = false;

		if (tok != WJB_KEY)
			continue;
		key = pnstrdup(jv.val.string.val, jv.val.string.len);
		for (int i = 0; cv_definition_columns[i] != NULL; i++)
			known |= strcmp(key, cv_definition_columns[i]) == 0;
		if (!known)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("\"%s\" is not a definition column of a continuous view", key)));
		if (strcmp(key, "view_rel") == 0)
		{
			Oid			view_oid = InvalidOid;

			tok = JsonbIteratorNext(&it, &jv, true);
			if (tok == WJB_VALUE && jv.type == jbvNumeric)
				view_oid = (Oid) DatumGetInt64(DirectFunctionCall1(numeric_int8,
																   NumericGetDatum(jv.val.numeric)));
			else if (tok == WJB_VALUE && jv.type == jbvString)
				view_oid = DatumGetObjectId(DirectFunctionCall1(oidin,
																CStringGetDatum(pnstrdup(jv.val.string.val,
																						 jv.val.string.len))));
			if (!OidIsValid(view_oid))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("the view of a continuous view's definition must be given by its OID")));
			cv_check_view_owner(view_oid);
			owner_checked = true;
		}
		appendStringInfo(&cols, "%s%s", cols.len > 0 ? ", " : "", quote_identifier(key));
	}
	if (!owner_checked)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a continuous view's definition must name its view")));
	return cols.data;
}

/*
 * cv_check_new_row
 *		The checks of the file header on a new catalog row: the view is the
 *		caller's table; its logs, late and pane tables are the view owner's
 *		(logs of capture's shape); the caller may read each source, whose
 *		time column it returns by number (*att2 InvalidAttrNumber without a
 *		right source).
 */
static void
cv_check_new_row(HeapTuple tup, TupleDesc desc, AttrNumber *att1, AttrNumber *att2)
{
	Oid			view = cv_oid_col(tup, desc, "view_rel");
	Oid			owner;
	Oid			timetype;
	Oid			src2;
	bool		isnull;

	cv_check_view_owner(view);
	if (get_rel_relkind(view) != RELKIND_RELATION)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("a continuous view must be a table"),
				 errdetail("Relation %s is not.", cv_relation_text(view))));
	owner = cv_rel_owner(view);
	timetype = cv_oid_col(tup, desc, "time_type");
	if (timetype != TIMESTAMPOID && timetype != TIMESTAMPTZOID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("the time column of a continuous view must be timestamp or timestamptz")));
	cv_require_log(cv_oid_col(tup, desc, "changes_rel"), owner, timetype);
	cv_require_log(cv_oid_col(tup, desc, "changes2_rel"), owner, timetype);
	cv_require_owned_table(cv_oid_col(tup, desc, "late_rel"), owner, "late table");
	cv_require_owned_table(cv_oid_col(tup, desc, "late2_rel"), owner, "late table");
	cv_require_owned_table(cv_oid_col(tup, desc, "panes_rel"), owner, "pane table");
	if (!DatumGetBool(cv_datum_col(tup, desc, "distributed", &isnull)) &&
		!OidIsValid(cv_oid_col(tup, desc, "changes_rel")))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a continuous view needs a change log")));
	*att1 = cv_require_source(cv_oid_col(tup, desc, "source_rel"),
							  cv_text_col(tup, desc, "time_column"), timetype);
	*att2 = InvalidAttrNumber;
	src2 = cv_oid_col(tup, desc, "source2_rel");
	if (OidIsValid(src2))
		*att2 = cv_require_source(src2, cv_text_col(tup, desc, "time_column2"),
								  timetype);
}

/*
 * wj_catalog_insert
 *		windowjoin._catalog_insert(definition jsonb): add the catalog row
 *		of a new view.  definition holds only definition columns
 *		(cv_definition_columns); counters and state start at their
 *		defaults.  The row is checked as the file header says
 *		(cv_check_new_row), the time columns' numbers kept, and the capture
 *		triggers checked and recorded; the catalog's row trigger records
 *		the other dependencies (wj_catalog_bind).
 */
Datum
wj_catalog_insert(PG_FUNCTION_ARGS)
{
	Jsonb	   *def = PG_GETARG_JSONB_P(0);
	char	   *cols = cv_definition_columns_of(def);
	Oid			types[1] = {JSONBOID};
	Datum		values[1];
	HeapTuple	tup;
	TupleDesc	desc;
	Oid			view;
	bool		isnull;
	AttrNumber	att1;
	AttrNumber	att2;

	values[0] = JsonbPGetDatum(def);
	SPI_connect();
	if (cv_catalog_exec(psprintf("INSERT INTO windowjoin.view_catalog (%s) SELECT %s "
								 "FROM pg_catalog.jsonb_populate_record(NULL::windowjoin.view_catalog, $1) "
								 "RETURNING *", cols, cols),
						1, types, values, NULL) != SPI_OK_INSERT_RETURNING ||
		SPI_processed != 1)
		elog(ERROR, "could not insert into windowjoin.view_catalog");
	/* (copied: the next statement frees SPI_tuptable) */
	tup = SPI_copytuple(SPI_tuptable->vals[0]);
	desc = CreateTupleDescCopy(SPI_tuptable->tupdesc);
	view = cv_oid_col(tup, desc, "view_rel");
	cv_check_new_row(tup, desc, &att1, &att2);

	/* capture finds the time columns by number: renames follow */
	{
		Oid			utypes[3] = {OIDOID, INT2OID, INT2OID};
		Datum		uvals[3];
		char		unulls[3] = {' ', ' ', att2 > 0 ? ' ' : 'n'};

		uvals[0] = ObjectIdGetDatum(view);
		uvals[1] = Int16GetDatum(att1);
		uvals[2] = Int16GetDatum(att2);
		if (cv_catalog_exec("UPDATE windowjoin.view_catalog c "
							"SET time_attnum = $2, time_attnum2 = $3 "
							"WHERE c.view_rel::pg_catalog.oid OPERATOR(pg_catalog.=) $1",
							3, utypes, uvals, unulls) != SPI_OK_UPDATE)
			elog(ERROR, "could not update windowjoin.view_catalog");
	}

	if (!DatumGetBool(cv_datum_col(tup, desc, "distributed", &isnull)))
	{
		ObjectAddress viewaddr;
		int			n;

		ObjectAddressSet(viewaddr, RelationRelationId, view);
		n = cv_record_triggers(tup, desc, 1, &viewaddr);
		if (OidIsValid(cv_oid_col(tup, desc, "changes2_rel")))
			n += cv_record_triggers(tup, desc, 2, &viewaddr);
		if (n == 0)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("continuous view %s has no capture triggers on its source",
							cv_relation_text(view))));
	}
	SPI_finish();
	PG_RETURN_VOID();
}

/*
 * wj_catalog_advance
 *		windowjoin._catalog_advance(view, watermark): the explicit
 *		watermark of advance_watermark(), never moved back.
 */
Datum
wj_catalog_advance(PG_FUNCTION_ARGS)
{
	Oid			view = PG_GETARG_OID(0);
	Oid			types[2] = {OIDOID, TIMESTAMPTZOID};
	Datum		values[2];

	cv_check_view_owner(view);
	values[0] = ObjectIdGetDatum(view);
	values[1] = PG_GETARG_DATUM(1);
	SPI_connect();
	if (cv_catalog_exec("UPDATE windowjoin.view_catalog c "
						"SET explicit_watermark = GREATEST(c.explicit_watermark, $2) "
						"WHERE c.view_rel::pg_catalog.oid OPERATOR(pg_catalog.=) $1",
						2, types, values, NULL) != SPI_OK_UPDATE)
		elog(ERROR, "could not update windowjoin.view_catalog");
	SPI_finish();
	PG_RETURN_VOID();
}

/*
 * wj_catalog_note_refresh
 *		windowjoin._catalog_note_refresh(view): count a refresh done
 *		elsewhere (the shards of a Citus view).
 */
Datum
wj_catalog_note_refresh(PG_FUNCTION_ARGS)
{
	Oid			view = PG_GETARG_OID(0);
	Oid			types[1] = {OIDOID};
	Datum		values[1];

	cv_check_view_owner(view);
	values[0] = ObjectIdGetDatum(view);
	SPI_connect();
	if (cv_catalog_exec("UPDATE windowjoin.view_catalog c "
						"SET refreshes = c.refreshes OPERATOR(pg_catalog.+) 1, "
						"last_refresh = pg_catalog.clock_timestamp() "
						"WHERE c.view_rel::pg_catalog.oid OPERATOR(pg_catalog.=) $1",
						1, types, values, NULL) != SPI_OK_UPDATE)
		elog(ERROR, "could not update windowjoin.view_catalog");
	SPI_finish();
	PG_RETURN_VOID();
}

/*
 * wj_view_stats
 *		windowjoin._view_stats(view, OUT state_rows, OUT state_bytes, OUT
 *		open_rows): the counts windowjoin.views shows, computed as the
 *		view's owner (never as the reader), restricted, in a subtransaction:
 *		NULLs when they cannot be computed, or when the caller does not
 *		have the privileges of the view's owner.
 */
Datum
wj_view_stats(PG_FUNCTION_ARGS)
{
	Oid			view = PG_GETARG_OID(0);
	TupleDesc	tupdesc;
	Datum		values[3] = {0, 0, 0};
	bool		nulls[3] = {true, true, true};
	Oid			owner = cv_rel_owner(view);
	MemoryContext outer = CurrentMemoryContext;
	ResourceOwner outer_owner = CurrentResourceOwner;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	tupdesc = BlessTupleDesc(tupdesc);

	if (OidIsValid(owner) && has_privs_of_role(GetUserId(), owner))
	{
		BeginInternalSubTransaction(NULL);
		MemoryContextSwitchTo(outer);
		PG_TRY();
		{
			Oid			save_userid;
			int			save_sec_context;
			Oid			types[1] = {OIDOID};
			Datum		args[1];
			int			rc;

			GetUserIdAndSecContext(&save_userid, &save_sec_context);
			SetUserIdAndSecContext(owner, save_sec_context |
								   SECURITY_LOCAL_USERID_CHANGE |
								   SECURITY_RESTRICTED_OPERATION);
			args[0] = ObjectIdGetDatum(view);
			SPI_connect();
			rc = SPI_execute_with_args(
									  "SELECT windowjoin._count(c.changes_rel) "
									  "OPERATOR(pg_catalog.+) COALESCE(windowjoin._count(c.changes2_rel), 0) "
									  "OPERATOR(pg_catalog.+) COALESCE(windowjoin._count(c.panes_rel), 0), "
									  "pg_catalog.pg_total_relation_size(c.changes_rel) "
									  "OPERATOR(pg_catalog.+) COALESCE(pg_catalog.pg_total_relation_size(c.changes2_rel), 0) "
									  "OPERATOR(pg_catalog.+) COALESCE(pg_catalog.pg_total_relation_size(c.panes_rel), 0), "
									  "windowjoin._open_rows(c) "
									  "FROM windowjoin.view_catalog c "
									  "WHERE c.view_rel::pg_catalog.oid OPERATOR(pg_catalog.=) $1",
									  1, types, args, NULL, true, 0);
			if (rc == SPI_OK_SELECT && SPI_processed == 1)
			{
				for (int i = 0; i < 3; i++)
				{
					Datum		d = SPI_getbinval(SPI_tuptable->vals[0],
												  SPI_tuptable->tupdesc, i + 1, &nulls[i]);

					values[i] = d;	/* int8: by value */
				}
			}
			SPI_finish();
			SetUserIdAndSecContext(save_userid, save_sec_context);
			ReleaseCurrentSubTransaction();
			MemoryContextSwitchTo(outer);
			CurrentResourceOwner = outer_owner;
		}
		PG_CATCH();
		{
			ErrorData  *edata;

			MemoryContextSwitchTo(outer);
			edata = CopyErrorData();
			FlushErrorState();
			RollbackAndReleaseCurrentSubTransaction();
			ereport(DEBUG1,
					(errmsg("windowjoin: the state of continuous view %s could not be counted: %s",
							cv_relation_text(view), edata->message)));
			FreeErrorData(edata);
			MemoryContextSwitchTo(outer);
			CurrentResourceOwner = outer_owner;
			for (int i = 0; i < 3; i++)
				nulls[i] = true;
		}
		PG_END_TRY();
	}
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

PG_FUNCTION_INFO_V1(wj_register_view);

/*
 * wj_register_view
 *		windowjoin._register_view() of version 0.3, which took its trigger
 *		and relation OIDs from the caller.  The 0.3 install script still
 *		names it (CREATE EXTENSION runs the scripts in turn); 0.4 drops it,
 *		and _catalog_insert does its work from the catalog alone.
 */
Datum
wj_register_view(PG_FUNCTION_ARGS)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("windowjoin._register_view() is no longer supported"),
			 errhint("Run ALTER EXTENSION windowjoin UPDATE.")));
	PG_RETURN_VOID();
}

