/*-------------------------------------------------------------------------
 *
 * cv_partitions.c
 *	  Partitioned sources of continuous views: capture through every
 *	  partition, now and later, and partitions that come and go.
 *
 * A statement-level trigger fires for the table a statement names, not
 * for the partitions its rows are routed to, nor for the partitioned
 * table when a statement names one of its partitions.  So create_view puts
 * the capture triggers on the source and, under the same names, on every
 * partition of it at any depth (windowjoin._make_capture_triggers); the
 * catalog lists the names, and _capture accepts a listed trigger on the
 * source or on any partition of it (cv_catalog_capture_target).  A
 * statement is then logged exactly once, by the trigger of the table it
 * names.
 *
 * The partitions of a source change by DDL, which this file follows from
 * the extension's event triggers:
 *
 *	  CREATE TABLE ... PARTITION OF, ATTACH PARTITION
 *			the new partition (and its own partitions) get the capture
 *			triggers of every view reading an ancestor of it; the rows an
 *			attached partition brings are logged as rows that appeared;
 *	  DETACH PARTITION
 *			its rows are logged as rows that went away, and the detached
 *			table loses the capture triggers (its writers are no concern of
 *			the views any more);
 *	  DROP TABLE of a partition (ddl_command_start, while it still exists)
 *			its rows are logged as rows that went away.
 *
 * The rows are logged by capture's own path (cv_log_relation), so the next
 * refresh folds them as any other change: rows of closed windows are late,
 * and revise, are dropped or are logged as the view's late policy says
 * (docs/continuous-trust.md, "DDL on sources").
 *
 * src/continuous/cv_partitions.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/partition.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_trigger.h"
#include "catalog/pg_type.h"
#include "commands/event_trigger.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "src/continuous/cv_catalog.h"

PG_FUNCTION_INFO_V1(wj_on_partition_ddl);

/*
 * cv_add_triggers
 *		Give table relid and its partitions the capture triggers of sv,
 *		as the current user (who just made or attached it).
 */
static void
cv_add_triggers(Oid relid, const CvSourceTarget *sv)
{
	Oid			types[2] = {REGCLASSOID, NAMEARRAYOID};
	Datum		values[2];

	values[0] = ObjectIdGetDatum(relid);
	values[1] = sv->triggers;
	if (SPI_execute_with_args("SELECT windowjoin._make_capture_triggers($1, $2)",
							  2, types, values, NULL, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not make the capture triggers of a new partition");
}

/*
 * cv_drop_triggers
 *		Take the capture triggers of sv off table relid and its partitions.
 */
static void
cv_drop_triggers(Oid relid, const CvSourceTarget *sv)
{
	ArrayType  *arr = DatumGetArrayTypeP(sv->triggers);
	Datum	   *names;
	bool	   *nulls;
	int			n;
	ListCell   *lc;

	deconstruct_array(arr, NAMEOID, NAMEDATALEN, false, TYPALIGN_CHAR,
					  &names, &nulls, &n);
	foreach(lc, find_all_inheritors(relid, NoLock, NULL))
	{
		for (int i = 0; i < n; i++)
		{
			Oid			trig;
			ObjectAddress addr;

			if (nulls[i])
				continue;
			trig = get_trigger_oid(lfirst_oid(lc), NameStr(*DatumGetName(names[i])), true);
			if (!OidIsValid(trig))
				continue;
			ObjectAddressSet(addr, TriggerRelationId, trig);
			performDeletion(&addr, DROP_RESTRICT, PERFORM_DELETION_INTERNAL);
		}
	}
}

/*
 * cv_partition_added
 *		A partition made or attached under parent: capture triggers for the
 *		views reading parent or an ancestor; a reset if it brought rows.
 */
static void
cv_partition_added(Oid child, bool attached)
{
	List	   *ancestors = get_partition_ancestors(child);
	List	   *views = cv_catalog_targets_reading(ancestors);
	ListCell   *lc;

	foreach(lc, views)
	{
		CvSourceTarget *sv = lfirst(lc);

		cv_add_triggers(child, sv);
		if (attached)
			cv_log_relation(&sv->target, child, 1);
	}
}

/*
 * cv_partition_removed
 *		A partition detached from, or about to be dropped under, the
 *		tables ancestors: reset the views reading one of them, and take
 *		their triggers off a detached table.
 */
static void
cv_partition_removed(Oid child, List *ancestors, bool detached)
{
	List	   *views = cv_catalog_targets_reading(ancestors);
	ListCell   *lc;

	foreach(lc, views)
	{
		CvSourceTarget *sv = lfirst(lc);

		cv_log_relation(&sv->target, child, -1);
		if (detached)
			cv_drop_triggers(child, sv);
	}
}

/*
 * wj_on_partition_ddl
 *		windowjoin._on_partition_ddl(): the event trigger of the file
 *		header, at ddl_command_end of CREATE TABLE and ALTER TABLE, and at
 *		ddl_command_start of DROP TABLE.
 */
Datum
wj_on_partition_ddl(PG_FUNCTION_ARGS)
{
	EventTriggerData *trigdata;
	Node	   *parsetree;

	if (!CALLED_AS_EVENT_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("windowjoin._on_partition_ddl() must be called as an event trigger")));
	trigdata = (EventTriggerData *) fcinfo->context;
	parsetree = trigdata->parsetree;
	if (!OidIsValid(cv_catalog_relid()))
		PG_RETURN_VOID();

	SPI_connect();
	if (IsA(parsetree, CreateStmt) && ((CreateStmt *) parsetree)->partbound != NULL)
	{
		Oid			child = RangeVarGetRelid(((CreateStmt *) parsetree)->relation,
											 NoLock, true);

		if (OidIsValid(child) && get_rel_relispartition(child))
			cv_partition_added(child, false);
	}
	else if (IsA(parsetree, AlterTableStmt))
	{
		AlterTableStmt *stmt = (AlterTableStmt *) parsetree;
		Oid			parent = RangeVarGetRelid(stmt->relation, NoLock, true);
		ListCell   *lc;

		foreach(lc, stmt->cmds)
		{
			AlterTableCmd *cmd = lfirst_node(AlterTableCmd, lc);
			PartitionCmd *pc;
			Oid			child;

			if (cmd->subtype != AT_AttachPartition && cmd->subtype != AT_DetachPartition)
				continue;
			pc = (PartitionCmd *) cmd->def;
			child = RangeVarGetRelid(pc->name, NoLock, true);
			if (!OidIsValid(child) || !OidIsValid(parent))
				continue;
			if (cmd->subtype == AT_AttachPartition)
				cv_partition_added(child, true);
			else
			{
				List	   *ancestors = list_make1_oid(parent);

				if (get_rel_relispartition(parent))
					ancestors = list_concat(ancestors, get_partition_ancestors(parent));
				cv_partition_removed(child, ancestors, true);
			}
		}
	}
	else if (IsA(parsetree, DropStmt) && ((DropStmt *) parsetree)->removeType == OBJECT_TABLE)
	{
		ListCell   *lc;

		foreach(lc, ((DropStmt *) parsetree)->objects)
		{
			Oid			rel = RangeVarGetRelid(makeRangeVarFromNameList(lfirst(lc)),
											   NoLock, true);

			if (OidIsValid(rel) && get_rel_relispartition(rel))
				cv_partition_removed(rel, get_partition_ancestors(rel), false);
		}
	}
	SPI_finish();
	PG_RETURN_VOID();
}
