/*-------------------------------------------------------------------------
 *
 * cv_capture.c
 *	  Change capture for continuous window views: the statement-level
 *	  trigger that appends a source table's changes to a view's change
 *	  log.
 *
 * windowjoin.create_view() puts four AFTER ... FOR EACH STATEMENT
 * triggers on the source (and, under the same names, on each of its
 * partitions: cv_partitions.c), all calling windowjoin._capture(): INSERT
 * (REFERENCING NEW TABLE), UPDATE (OLD and NEW TABLE), DELETE (OLD TABLE)
 * and TRUNCATE.  The trigger takes no arguments: the view's catalog row
 * lists it by its table and name (cv_catalog_capture_target), and says
 * which change log it writes, which column holds the event time (by
 * number: renames follow) and how changes are binned; a trigger no row
 * lists is refused before it writes anything.  The trigger walks the
 * statement's transition tables and appends to the change log rows of
 * (sign, t, t_max, n[, row]): sign +1 for rows that appeared, -1 for rows
 * that went away.  TRUNCATE appends one marker (sign 0).  Rows with a
 * null or infinite event time belong to no window and are not logged.
 *
 *	  bins	the changed rows are counted per sign and per bin of the
 *			view's grain (the tumble size, the hop slide, the cumulate step,
 *			the session gap), bins aligned as the windows are (the Unix
 *			epoch plus the offset, wj_window_floor's arithmetic): one log
 *			row per bin, with the earliest and latest event time and the
 *			count.  Every row of a bin closes with the same window, so
 *			refresh needs no more.
 *	  rows	one log row per changed row (n = 1), with the whole row (a
 *			partition's converted to the source's row type), for late =>
 *			'log', which copies late rows to a table, and for a hop whose
 *			size is not a multiple of its slide.
 *
 * The writer pays this and nothing else: no lookup of windows, no
 * watermark.  A 1,000-row INSERT in time order appends one or two rows.
 * The log is checked to be of the shape capture writes, with no index,
 * rule, trigger, check or row security (cv_log_shape_ok), so tuples go in
 * through table_multi_insert, bypassing nothing.  windowjoin.refresh()
 * folds the log later.  The trigger writes the log directly, so a writer
 * needs no privilege on it, as with any trigger-maintained table.
 *
 * src/continuous/cv_capture.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/tupconvert.h"
#include "catalog/dependency.h"
#include "catalog/pg_trigger.h"
#include "nodes/makefuncs.h"
#include "common/int.h"
#include "utils/hsearch.h"
#include "utils/timestamp.h"
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

#include "common/window_arith.h"
#include "cv_catalog.h"

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
cv_log_append(CvLogWriter *w, int16 sign, Datum t, bool tnull, Datum tmax,
			  int32 n, Datum row, bool rownull)
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
	slot->tts_values[2] = tmax;
	slot->tts_isnull[2] = tnull;
	slot->tts_values[3] = Int32GetDatum(n);
	slot->tts_isnull[3] = false;
	if (natts > 4)
	{
		slot->tts_values[4] = row;
		slot->tts_isnull[4] = rownull;
	}
	ExecStoreVirtualTuple(slot);
	ExecMaterializeSlot(slot);
	if (++w->nslots == CV_CAPTURE_BATCH)
		cv_log_flush(w);
}

/* one bin of changed rows: its key, and the earliest and latest time */
typedef struct CvBin
{
	struct
	{
		int64		bin;
		int16		sign;
	}			key;
	Timestamp	tmin;
	Timestamp	tmax;
	int32		n;
} CvBin;

/*
 * cv_bin_of
 *		The start of the grain-long bin holding t, bins aligned as the
 *		windows are (the Unix epoch plus the offset: base is
 *		wj_window_base(grain, offset), computed once per statement), so that
 *		every row of a bin is in the same windows whatever the grain; a bin
 *		whose start would leave the timestamp range is t itself.
 */
static inline int64
cv_bin_of(Timestamp t, int64 grain, int64 base)
{
	int64		start;

	if (pg_sub_s64_overflow(t, wj_window_rem(t, grain, base), &start) ||
		TIMESTAMP_NOT_FINITE(start))
		return t;
	return start;
}

/*
 * cv_log_rows
 *		Append the rows of a transition table with the given sign: one log
 *		row per row (bins NULL), or their counts per bin.  rowdesc, when
 *		set, is the source's row type for the rows of one of its
 *		partitions, converted by rowmap.
 */
static void
cv_log_rows(CvLogWriter *w, Tuplestorestate *ts, TupleDesc srcdesc,
			AttrNumber timeattno, bool with_rows, int16 sign,
			HTAB *bins, int64 grain, int64 offset,
			TupleConversionMap *rowmap, TupleDesc rowdesc)
{
	TupleTableSlot *in;
	MemoryContext rowcxt;
	MemoryContext oldcxt;
	int64		base = grain > 0 ? wj_window_base(grain, offset) : 0;

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
		/* NULL and infinite times belong to no window: never logged */
		if (tnull || TIMESTAMP_NOT_FINITE(DatumGetTimestamp(t)))
			continue;
		if (bins != NULL)
		{
			CvBin		probe;
			CvBin	   *b;
			bool		found;
			Timestamp	ts_t = DatumGetTimestamp(t);

			memset(&probe.key, 0, sizeof(probe.key));
			probe.key.bin = cv_bin_of(ts_t, grain, base);
			probe.key.sign = sign;
			b = hash_search(bins, &probe.key, HASH_ENTER, &found);
			if (!found)
			{
				b->tmin = b->tmax = ts_t;
				b->n = 0;
			}
			b->tmin = Min(b->tmin, ts_t);
			b->tmax = Max(b->tmax, ts_t);
			b->n++;
			continue;
		}
		oldcxt = MemoryContextSwitchTo(rowcxt);
		if (with_rows)
		{
			HeapTuple	tup = ExecCopySlotHeapTuple(in);

			/* (a partition's row as the source's: rowmap NULL if alike) */
			if (rowdesc != NULL)
			{
				if (rowmap != NULL)
					tup = execute_attr_map_tuple(tup, rowmap);
				row = heap_copy_tuple_as_datum(tup, rowdesc);
			}
			else
				row = heap_copy_tuple_as_datum(tup, srcdesc);
		}
		MemoryContextSwitchTo(oldcxt);
		cv_log_append(w, sign, t, false, t, 1, row, !with_rows);
		MemoryContextReset(rowcxt);
	}
	ExecDropSingleTupleTableSlot(in);
	MemoryContextDelete(rowcxt);
}

/*
 * cv_capture_target_03
 *		A capture trigger of 0.3 while the catalog is still 0.3's: this
 *		library installed, ALTER EXTENSION windowjoin UPDATE not yet run
 *		(the update script gives the views their 0.4 catalog rows).  Its
 *		arguments name its log, time column, mode, grain and offset, which
 *		0.4 never trusts: they are taken only when pg_depend, as 0.3's
 *		create_view recorded it, ties them together -- the trigger goes with
 *		a view (AUTO), that view reads this table (NORMAL), and the named
 *		log goes with that view (AUTO).  So writers go on in that window,
 *		and nothing else is written.
 */
static bool
cv_capture_target_03(TriggerData *trigdata, CvCaptureTarget *t)
{
	Trigger    *trigger = trigdata->tg_trigger;
	Oid			relid = RelationGetRelid(trigdata->tg_relation);
	Oid			view = InvalidOid;
	List	   *names;
	ListCell   *lc;

	if (trigger->tgnargs != 5)
		return false;
	/* (a trigger also goes with its own table) */
	foreach(lc, cv_depended_on(TriggerRelationId, trigger->tgoid, DEPENDENCY_AUTO))
	{
		Oid			ref = lfirst_oid(lc);

		if (ref != relid &&
			cv_depends_on(RelationRelationId, ref, RelationRelationId, relid,
						  DEPENDENCY_NORMAL))
			view = ref;
	}
	if (!OidIsValid(view))
		return false;
	names = stringToQualifiedNameList(trigger->tgargs[0]);
	t->log = RangeVarGetRelid(makeRangeVarFromNameList(names), NoLock, true);
	if (!OidIsValid(t->log) ||
		!cv_depends_on(RelationRelationId, t->log, RelationRelationId, view,
					   DEPENDENCY_AUTO))
		return false;
	t->view = view;
	t->source = relid;
	t->timeattno = get_attnum(relid, trigger->tgargs[1]);
	if (t->timeattno <= 0)
		return false;
	t->timetype = get_atttype(relid, t->timeattno);
	t->with_rows = strcmp(trigger->tgargs[2], "rows") == 0;
	t->grain = pg_strtoint64(trigger->tgargs[3]);
	t->offset = pg_strtoint64(trigger->tgargs[4]);
	return t->grain >= 0;
}

/*
 * wj_capture
 *		windowjoin._capture(): the statement-level AFTER trigger of a
 *		continuous view's source.  It takes no arguments (a 0.3 trigger's
 *		are ignored): everything comes from the catalog, whose row for the
 *		view lists this trigger by its table and name
 *		(cv_catalog_capture_target), and the trigger writes only that
 *		view's change log, after checking the log's shape.
 */
Datum
wj_capture(PG_FUNCTION_ARGS)
{
	TriggerData *trigdata = (TriggerData *) fcinfo->context;
	Trigger    *trigger;
	Relation	src;
	TupleDesc	srcdesc;
	Oid			view;
	CvCaptureTarget target;
	TupleDesc	rowdesc = NULL;
	TupleConversionMap *rowmap = NULL;
	HTAB	   *bins = NULL;
	CvLogWriter w;
	Form_pg_attribute timeatt;

	if (!CALLED_AS_TRIGGER(fcinfo) ||
		!TRIGGER_FIRED_AFTER(trigdata->tg_event) ||
		!TRIGGER_FIRED_FOR_STATEMENT(trigdata->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("windowjoin._capture() must be an AFTER ... FOR EACH STATEMENT trigger")));
	trigger = trigdata->tg_trigger;
	src = trigdata->tg_relation;
	if (!(cv_catalog_is_03() ? cv_capture_target_03(trigdata, &target) :
		  cv_catalog_capture_target(RelationGetRelid(src), trigger->tgname, &target)))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("trigger \"%s\" on \"%s\" is not a capture trigger of a continuous view",
						trigger->tgname, RelationGetRelationName(src)),
				 errhint("Capture triggers are made by windowjoin.create_view(); windowjoin._capture() serves no other trigger.")));
	view = target.view;

	srcdesc = RelationGetDescr(src);

	/*
	 * A partition of the source: its time column by name (its number may
	 * differ), and with late => 'log' its rows converted to the source's
	 * row type, which the log keeps.
	 */
	if (target.source != RelationGetRelid(src))
	{
		char	   *col = get_attname(target.source, target.timeattno, true);

		target.timeattno = col ? get_attnum(RelationGetRelid(src), col) : InvalidAttrNumber;
		if (target.with_rows)
		{
			Relation	parent = table_open(target.source, AccessShareLock);

			rowdesc = CreateTupleDescCopy(RelationGetDescr(parent));
			table_close(parent, AccessShareLock);
			rowmap = convert_tuples_by_name(srcdesc, rowdesc);
		}
	}
	timeatt = target.timeattno > 0 && target.timeattno <= srcdesc->natts ?
		TupleDescAttr(srcdesc, target.timeattno - 1) : NULL;
	if (timeatt == NULL || timeatt->attisdropped || timeatt->atttypid != target.timetype)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the time column of continuous view %s on \"%s\" is gone",
						cv_relation_text(view), RelationGetRelationName(src))));

	if (!target.with_rows && target.grain > 0)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(((CvBin *) NULL)->key);
		ctl.entrysize = sizeof(CvBin);
		ctl.hcxt = CurrentMemoryContext;
		bins = hash_create("windowjoin capture bins", 64, &ctl,
						   HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}

	w.log = table_open(target.log, RowExclusiveLock);
	if (!cv_log_shape_ok(w.log, target.timetype) ||
		(target.with_rows != (RelationGetDescr(w.log)->natts == 5)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TABLE_DEFINITION),
				 errmsg("the change log %s of continuous view %s was altered",
						cv_relation_text(target.log), cv_relation_text(view)),
				 errhint("Drop the view with windowjoin.drop_view() and create it again.")));
	w.cid = GetCurrentCommandId(true);
	w.bistate = GetBulkInsertState();
	w.nslots = 0;
	w.slots = palloc0(sizeof(TupleTableSlot *) * CV_CAPTURE_BATCH);

	if (TRIGGER_FIRED_BY_TRUNCATE(trigdata->tg_event))
		cv_log_append(&w, 0, (Datum) 0, true, (Datum) 0, 0, (Datum) 0, true);
	else
	{
		cv_log_rows(&w, trigdata->tg_oldtable, srcdesc, target.timeattno,
					target.with_rows, -1, bins, target.grain, target.offset,
					rowmap, rowdesc);
		cv_log_rows(&w, trigdata->tg_newtable, srcdesc, target.timeattno,
					target.with_rows, 1, bins, target.grain, target.offset,
					rowmap, rowdesc);
	}
	if (bins != NULL)
	{
		HASH_SEQ_STATUS seq;
		CvBin	   *b;

		hash_seq_init(&seq, bins);
		while ((b = hash_seq_search(&seq)) != NULL)
			cv_log_append(&w, b->key.sign, TimestampGetDatum(b->tmin), false,
						  TimestampGetDatum(b->tmax), b->n, (Datum) 0, true);
		hash_destroy(bins);
	}
	cv_log_flush(&w);

	for (int i = 0; i < CV_CAPTURE_BATCH && w.slots[i] != NULL; i++)
		ExecDropSingleTupleTableSlot(w.slots[i]);
	FreeBulkInsertState(w.bistate);
	table_close(w.log, NoLock);

	return PointerGetDatum(NULL);
}

/*
 * cv_log_reset
 *		Append a TRUNCATE marker to a change log: its view's next refresh
 *		recomputes it from the source (cv_partitions.c: partitions attached,
 *		detached or dropped).
 */
void
cv_log_reset(Oid log)
{
	Relation	rel = table_open(log, RowExclusiveLock);
	TupleDesc	desc = RelationGetDescr(rel);
	Datum		values[5] = {Int16GetDatum(0), 0, 0, Int32GetDatum(0), 0};
	bool		nulls[5] = {false, true, true, false, true};
	HeapTuple	tup;

	if (desc->natts < 2 || !cv_log_shape_ok(rel, TupleDescAttr(desc, 1)->atttypid))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TABLE_DEFINITION),
				 errmsg("the change log %s of a continuous view was altered",
						cv_relation_text(log)),
				 errhint("Drop the view with windowjoin.drop_view() and create it again.")));
	tup = heap_form_tuple(desc, values, nulls);
	simple_heap_insert(rel, tup);
	table_close(rel, NoLock);
}
