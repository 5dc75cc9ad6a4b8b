/*-------------------------------------------------------------------------
 *
 * cv_capture.c
 *	  Change capture for continuous window views: the statement-level
 *	  trigger that appends a source table's changes to a view's change
 *	  log.
 *
 * windowjoin.create_view() puts four AFTER ... FOR EACH STATEMENT
 * triggers on the source, all calling windowjoin._capture(changes,
 * time_column, with_rows): INSERT (REFERENCING NEW TABLE), UPDATE (OLD and
 * NEW TABLE), DELETE (OLD TABLE) and TRUNCATE.  The trigger walks the
 * statement's transition tables and appends one row per changed source row
 * to the change log, (sign, t) or (sign, t, row): +1 for a row that
 * appeared, -1 for one that went away, the row's event time, and the whole
 * row when the view's late policy is 'log'.  TRUNCATE appends one marker
 * (sign 0).  Rows with a null event time belong to no window and are not
 * logged.
 *
 * The writer pays this append and nothing else: no lookup of windows, no
 * watermark, no aggregation.  The log has no index, and tuples go in with
 * heap_multi_insert-style bulk inserts (table_multi_insert), so a 1,000-row
 * INSERT costs one short loop.  windowjoin.refresh() folds the log later.
 * The trigger writes the log directly, so a writer needs no privilege on
 * it, as with any trigger-maintained table.
 *
 * src/continuous/cv_capture.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "commands/trigger.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/regproc.h"
#include "utils/tuplestore.h"

PG_FUNCTION_INFO_V1(wj_capture);

/* rows gathered before one table_multi_insert() call */
#define CV_CAPTURE_BATCH 1000

/* the change log being written, and its pending batch */
typedef struct CvLogWriter
{
	Relation	log;
	TupleTableSlot **slots;
	int			nslots;
	CommandId	cid;
	BulkInsertState bistate;
} CvLogWriter;

/*
 * cv_log_flush
 *		Insert the pending batch into the change log.
 */
static void
cv_log_flush(CvLogWriter *w)
{
	if (w->nslots == 0)
		return;
	table_multi_insert(w->log, w->slots, w->nslots, w->cid, 0, w->bistate);
	for (int i = 0; i < w->nslots; i++)
		ExecClearTuple(w->slots[i]);
	w->nslots = 0;
}

/*
 * cv_log_append
 *		Add one (sign, t[, row]) entry to the batch.
 */
static void
cv_log_append(CvLogWriter *w, int16 sign, Datum t, bool tnull,
			  Datum row, bool rownull)
{
	TupleTableSlot *slot;
	int			natts;

	if (w->slots[w->nslots] == NULL)
		w->slots[w->nslots] = MakeSingleTupleTableSlot(RelationGetDescr(w->log),
													   &TTSOpsVirtual);
	slot = w->slots[w->nslots];
	natts = slot->tts_tupleDescriptor->natts;

	ExecClearTuple(slot);
	slot->tts_values[0] = Int16GetDatum(sign);
	slot->tts_isnull[0] = false;
	slot->tts_values[1] = t;
	slot->tts_isnull[1] = tnull;
	if (natts > 2)
	{
		slot->tts_values[2] = row;
		slot->tts_isnull[2] = rownull;
	}
	ExecStoreVirtualTuple(slot);
	ExecMaterializeSlot(slot);
	if (++w->nslots == CV_CAPTURE_BATCH)
		cv_log_flush(w);
}

/*
 * cv_log_rows
 *		Append every row of a transition table with the given sign.
 */
static void
cv_log_rows(CvLogWriter *w, Tuplestorestate *ts, TupleDesc srcdesc,
			AttrNumber timeattno, bool with_rows, int16 sign)
{
	TupleTableSlot *in;
	MemoryContext rowcxt;
	MemoryContext oldcxt;

	if (ts == NULL)
		return;
	in = MakeSingleTupleTableSlot(srcdesc, &TTSOpsMinimalTuple);
	rowcxt = AllocSetContextCreate(CurrentMemoryContext, "windowjoin capture row",
								   ALLOCSET_SMALL_SIZES);
	tuplestore_rescan(ts);
	while (tuplestore_gettupleslot(ts, true, false, in))
	{
		bool		tnull;
		Datum		t;
		Datum		row = (Datum) 0;

		CHECK_FOR_INTERRUPTS();
		t = slot_getattr(in, timeattno, &tnull);
		if (tnull)
			continue;
		oldcxt = MemoryContextSwitchTo(rowcxt);
		if (with_rows)
		{
			HeapTuple	tup = ExecCopySlotHeapTuple(in);

			row = heap_copy_tuple_as_datum(tup, srcdesc);
		}
		MemoryContextSwitchTo(oldcxt);
		cv_log_append(w, sign, t, false, row, !with_rows);
		MemoryContextReset(rowcxt);
	}
	ExecDropSingleTupleTableSlot(in);
	MemoryContextDelete(rowcxt);
}

/*
 * wj_capture
 *		windowjoin._capture(): the statement-level AFTER trigger of a
 *		continuous view's source.  Arguments: the change log (a relation
 *		name), the time column, and 'rows' to log whole rows.
 */
Datum
wj_capture(PG_FUNCTION_ARGS)
{
	TriggerData *trigdata = (TriggerData *) fcinfo->context;
	Trigger    *trigger;
	Relation	src;
	TupleDesc	srcdesc;
	AttrNumber	timeattno;
	bool		with_rows;
	Oid			logoid;
	CvLogWriter w;

	if (!CALLED_AS_TRIGGER(fcinfo) ||
		!TRIGGER_FIRED_AFTER(trigdata->tg_event) ||
		!TRIGGER_FIRED_FOR_STATEMENT(trigdata->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("windowjoin._capture() must be an AFTER ... FOR EACH STATEMENT trigger")));
	trigger = trigdata->tg_trigger;
	if (trigger->tgnargs != 3)
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("windowjoin._capture() takes a change log, a time column and a row flag")));

	src = trigdata->tg_relation;
	srcdesc = RelationGetDescr(src);
	timeattno = get_attnum(RelationGetRelid(src), trigger->tgargs[1]);
	if (timeattno == InvalidAttrNumber)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("time column \"%s\" of a continuous view's source \"%s\" does not exist",
						trigger->tgargs[1], RelationGetRelationName(src))));
	with_rows = strcmp(trigger->tgargs[2], "rows") == 0;
	logoid = DatumGetObjectId(DirectFunctionCall1(regclassin,
												  CStringGetDatum(trigger->tgargs[0])));

	w.log = table_open(logoid, RowExclusiveLock);
	w.cid = GetCurrentCommandId(true);
	w.bistate = GetBulkInsertState();
	w.nslots = 0;
	w.slots = palloc0(sizeof(TupleTableSlot *) * CV_CAPTURE_BATCH);

	if (TRIGGER_FIRED_BY_TRUNCATE(trigdata->tg_event))
		cv_log_append(&w, 0, (Datum) 0, true, (Datum) 0, true);
	else
	{
		cv_log_rows(&w, trigdata->tg_oldtable, srcdesc, timeattno, with_rows, -1);
		cv_log_rows(&w, trigdata->tg_newtable, srcdesc, timeattno, with_rows, 1);
	}
	cv_log_flush(&w);

	for (int i = 0; i < CV_CAPTURE_BATCH && w.slots[i] != NULL; i++)
		ExecDropSingleTupleTableSlot(w.slots[i]);
	FreeBulkInsertState(w.bistate);
	table_close(w.log, NoLock);

	return PointerGetDatum(NULL);
}
