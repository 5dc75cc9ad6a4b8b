/*-------------------------------------------------------------------------
 *
 * cv_depend.c
 *	  The pg_depend entries that tie a continuous view's objects together.
 *
 * A continuous view is a table (the view), its change log, its late table
 * (late => 'log'), its pane table (hop and cumulate views whose aggregates
 * combine; cv_panes.c) and four capture triggers on its source.  They are
 * recorded in pg_depend so that PostgreSQL's own DROP does the right
 * thing:
 *
 *	  view -> source		NORMAL:	DROP TABLE source is refused while a
 *									view reads it; CASCADE drops the view
 *	  log, late, panes -> view	AUTO:	dropped with the view
 *	  triggers -> view		AUTO:	dropped with the view
 *	  view, log, late, panes -> extension	AUTO:	DROP EXTENSION removes them
 *
 * The catalog row goes with the view through the extension's sql_drop
 * event trigger (windowjoin._on_drop).
 *
 * src/continuous/cv_depend.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/dependency.h"
#include "catalog/indexing.h"
#include "catalog/pg_class.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_trigger.h"
#include "commands/extension.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "pg_compat.h"

PG_FUNCTION_INFO_V1(wj_register_view);

/*
 * cv_require_owner
 *		The current user must own relid.
 */
static void
cv_require_owner(Oid relid)
{
	if (!wj_rel_ownercheck(relid, GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE, get_rel_name(relid));
}

/*
 * cv_trigger_relation
 *		The table a trigger is on (InvalidOid if the trigger is gone).
 */
static Oid
cv_trigger_relation(Oid trigoid)
{
	Relation	tgrel = table_open(TriggerRelationId, AccessShareLock);
	ScanKeyData skey;
	SysScanDesc scan;
	HeapTuple	tup;
	Oid			relid = InvalidOid;

	ScanKeyInit(&skey, Anum_pg_trigger_oid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(trigoid));
	scan = systable_beginscan(tgrel, TriggerOidIndexId, true, NULL, 1, &skey);
	if (HeapTupleIsValid(tup = systable_getnext(scan)))
		relid = ((Form_pg_trigger) GETSTRUCT(tup))->tgrelid;
	systable_endscan(scan);
	table_close(tgrel, AccessShareLock);
	return relid;
}

/*
 * wj_register_view
 *		windowjoin._register_view(view, source, log, late, triggers,
 *		panes):
 *		record the dependencies described in the file header.  The caller
 *		must own the view, its log and its late table.
 */
Datum
wj_register_view(PG_FUNCTION_ARGS)
{
	Oid			view = PG_GETARG_OID(0);
	Oid			source = PG_GETARG_OID(1);
	Oid			log = PG_ARGISNULL(2) ? InvalidOid : PG_GETARG_OID(2);
	Oid			late = PG_ARGISNULL(3) ? InvalidOid : PG_GETARG_OID(3);
	ArrayType  *triggers = PG_GETARG_ARRAYTYPE_P(4);
	Oid			panes = PG_ARGISNULL(5) ? InvalidOid : PG_GETARG_OID(5);
	Datum	   *trigoids;
	int			ntrig;
	ObjectAddress viewaddr;
	ObjectAddress addr;
	ObjectAddress extaddr;
	Oid			ext = get_extension_oid("windowjoin", false);

	cv_require_owner(view);
	if (OidIsValid(log))
		cv_require_owner(log);
	if (OidIsValid(late))
		cv_require_owner(late);
	if (OidIsValid(panes))
		cv_require_owner(panes);

	ObjectAddressSet(viewaddr, RelationRelationId, view);
	ObjectAddressSet(extaddr, ExtensionRelationId, ext);

	ObjectAddressSet(addr, RelationRelationId, source);
	recordDependencyOn(&viewaddr, &addr, DEPENDENCY_NORMAL);
	recordDependencyOn(&viewaddr, &extaddr, DEPENDENCY_AUTO);

	/* (a Citus view has no log: its shards have) */
	if (OidIsValid(log))
	{
		ObjectAddressSet(addr, RelationRelationId, log);
		recordDependencyOn(&addr, &viewaddr, DEPENDENCY_AUTO);
		recordDependencyOn(&addr, &extaddr, DEPENDENCY_AUTO);
	}
	if (OidIsValid(late))
	{
		ObjectAddressSet(addr, RelationRelationId, late);
		recordDependencyOn(&addr, &viewaddr, DEPENDENCY_AUTO);
		recordDependencyOn(&addr, &extaddr, DEPENDENCY_AUTO);
	}
	if (OidIsValid(panes))
	{
		ObjectAddressSet(addr, RelationRelationId, panes);
		recordDependencyOn(&addr, &viewaddr, DEPENDENCY_AUTO);
		recordDependencyOn(&addr, &extaddr, DEPENDENCY_AUTO);
	}

	deconstruct_array(triggers, OIDOID, sizeof(Oid), true, TYPALIGN_INT,
					  &trigoids, NULL, &ntrig);
	for (int i = 0; i < ntrig; i++)
	{
		Oid			trigoid = DatumGetObjectId(trigoids[i]);

		if (cv_trigger_relation(trigoid) != source)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("trigger %u is not on the source of continuous view \"%s\"",
							trigoid, get_rel_name(view))));
		ObjectAddressSet(addr, TriggerRelationId, trigoid);
		recordDependencyOn(&addr, &viewaddr, DEPENDENCY_AUTO);
	}

	PG_RETURN_VOID();
}
