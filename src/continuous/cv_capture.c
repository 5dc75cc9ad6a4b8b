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
#include "catalog/pg_inherits.h"
#include "nodes/makefuncs.h"
#include "utils/snapmgr.h"
#include "utils/varlena.h"
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

#include "src/common/window_arith.h"
#include "src/continuous/continuous.h"
#include "src/continuous/cv_catalog.h"

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
 * What one capture writes: the log and its batch, and how a row of the
 * table being read (the source, or one of its partitions) becomes a log
 * row.
 */
typedef struct CvCapture
{
	CvLogWriter w;
	TupleDesc	srcdesc;		/* the rows' table */
	AttrNumber	timeattno;		/* its time column */
	bool		with_rows;		/* one log row per row, with the row */
	HTAB	   *bins;			/* or counts per bin (NULL: none) */
	int64		grain;
	int64		base;			/* wj_window_base(grain, offset) */
	TupleDesc	rowdesc;		/* the source's row type, for a partition */
	TupleConversionMap *rowmap; /* a partition's rows to it (NULL: alike) */
	MemoryContext rowcxt;
	bool		has_max;		/* a row appeared ... */
	int64		max_t;			/* ... and this is the latest time of one */
} CvCapture;

/*
 * cv_capture_begin
 *		Prepare to log rows of table src for target: the time column by
 *		name when src is a partition of the source (its number may differ),
 *		and with late => 'log' its rows converted to the source's row type,
 *		which the log keeps; the log opened after checking its shape.
 */
static void
cv_capture_begin(CvCapture *c, const CvCaptureTarget *target, Relation src)
{
	Form_pg_attribute timeatt;

	memset(c, 0, sizeof(*c));
	c->srcdesc = RelationGetDescr(src);
	c->timeattno = target->timeattno;
	c->with_rows = target->with_rows;
	if (target->source != RelationGetRelid(src))
	{
		char	   *col = get_attname(target->source, target->timeattno, true);

		c->timeattno = col ? get_attnum(RelationGetRelid(src), col) : InvalidAttrNumber;
		if (c->with_rows)
		{
			Relation	parent = table_open(target->source, AccessShareLock);

			c->rowdesc = CreateTupleDescCopy(RelationGetDescr(parent));
			table_close(parent, AccessShareLock);
			c->rowmap = convert_tuples_by_name(c->srcdesc, c->rowdesc);
		}
	}
	timeatt = c->timeattno > 0 && c->timeattno <= c->srcdesc->natts ?
		TupleDescAttr(c->srcdesc, c->timeattno - 1) : NULL;
	if (timeatt == NULL || timeatt->attisdropped || timeatt->atttypid != target->timetype)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the time column of continuous view %s on \"%s\" is gone",
						cv_relation_text(target->view), RelationGetRelationName(src))));

	if (!c->with_rows && target->grain > 0)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(((CvBin *) NULL)->key);
		ctl.entrysize = sizeof(CvBin);
		ctl.hcxt = CurrentMemoryContext;
		c->bins = hash_create("windowjoin capture bins", 64, &ctl,
							  HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
		c->grain = target->grain;
		c->base = wj_window_base(target->grain, target->offset);
	}
	c->rowcxt = AllocSetContextCreate(CurrentMemoryContext, "windowjoin capture row",
									  ALLOCSET_SMALL_SIZES);

	c->w.log = table_open(target->log, RowExclusiveLock);
	if (!cv_log_shape_ok(c->w.log, target->timetype) ||
		(c->with_rows != (RelationGetDescr(c->w.log)->natts == 5)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TABLE_DEFINITION),
				 errmsg("the change log %s of continuous view %s was altered",
						cv_relation_text(target->log), cv_relation_text(target->view)),
				 errhint("Drop the view with windowjoin.drop_view() and create it again.")));
	c->w.cid = GetCurrentCommandId(true);
	c->w.bistate = GetBulkInsertState();
	c->w.slots = palloc0(sizeof(TupleTableSlot *) * CV_CAPTURE_BATCH);
}

/*
 * cv_capture_row
 *		Log one row of the table (in the slot in) with the given sign: into
 *		its bin, or as a log row of its own.
 */
static void
cv_capture_row(CvCapture *c, TupleTableSlot *in, int16 sign)
{
	bool		tnull;
	Datum		t;
	Datum		row = (Datum) 0;
	MemoryContext oldcxt;

	t = slot_getattr(in, c->timeattno, &tnull);
	/* NULL and infinite times belong to no window: never logged */
	if (tnull || TIMESTAMP_NOT_FINITE(DatumGetTimestamp(t)))
		return;
	if (sign > 0 && (!c->has_max || DatumGetTimestamp(t) > c->max_t))
	{
		c->max_t = DatumGetTimestamp(t);
		c->has_max = true;
	}
	if (c->bins != NULL)
	{
		CvBin		probe;
		CvBin	   *b;
		bool		found;
		Timestamp	ts_t = DatumGetTimestamp(t);

		memset(&probe.key, 0, sizeof(probe.key));
		probe.key.bin = cv_bin_of(ts_t, c->grain, c->base);
		probe.key.sign = sign;
		b = hash_search(c->bins, &probe.key, HASH_ENTER, &found);
		if (!found)
		{
			b->tmin = b->tmax = ts_t;
			b->n = 0;
		}
		b->tmin = Min(b->tmin, ts_t);
		b->tmax = Max(b->tmax, ts_t);
		b->n++;
		return;
	}
	oldcxt = MemoryContextSwitchTo(c->rowcxt);
	if (c->with_rows)
	{
		HeapTuple	tup = ExecCopySlotHeapTuple(in);

		/* (a partition's row as the source's: rowmap NULL if alike) */
		if (c->rowdesc != NULL)
		{
			if (c->rowmap != NULL)
				tup = execute_attr_map_tuple(tup, c->rowmap);
			row = heap_copy_tuple_as_datum(tup, c->rowdesc);
		}
		else
			row = heap_copy_tuple_as_datum(tup, c->srcdesc);
	}
	MemoryContextSwitchTo(oldcxt);
	cv_log_append(&c->w, sign, t, false, t, 1, row, !c->with_rows);
	MemoryContextReset(c->rowcxt);
}

/*
 * cv_capture_tuplestore
 *		Log the rows of a transition table with the given sign.
 */
static void
cv_capture_tuplestore(CvCapture *c, Tuplestorestate *ts, int16 sign)
{
	TupleTableSlot *in;

	if (ts == NULL)
		return;
	in = MakeSingleTupleTableSlot(c->srcdesc, &TTSOpsMinimalTuple);
	tuplestore_rescan(ts);
	while (tuplestore_gettupleslot(ts, true, false, in))
	{
		CHECK_FOR_INTERRUPTS();
		cv_capture_row(c, in, sign);
	}
	ExecDropSingleTupleTableSlot(in);
}

/*
 * cv_capture_end
 *		Write the bins, flush the batch and close the log.
 */
static void
cv_capture_end(CvCapture *c)
{
	if (c->bins != NULL)
	{
		HASH_SEQ_STATUS seq;
		CvBin	   *b;

		hash_seq_init(&seq, c->bins);
		while ((b = hash_seq_search(&seq)) != NULL)
			cv_log_append(&c->w, b->key.sign, TimestampGetDatum(b->tmin), false,
						  TimestampGetDatum(b->tmax), b->n, (Datum) 0, true);
		hash_destroy(c->bins);
	}
	cv_log_flush(&c->w);
	for (int i = 0; i < CV_CAPTURE_BATCH && c->w.slots[i] != NULL; i++)
		ExecDropSingleTupleTableSlot(c->w.slots[i]);
	FreeBulkInsertState(c->w.bistate);
	table_close(c->w.log, NoLock);
	MemoryContextDelete(c->rowcxt);
}

/*
 * cv_log_relation
 *		Log every row of table relid (and its partitions) with the given
 *		sign for target: a partition attached to a source (+1), or detached
 *		or dropped from it (-1) (cv_partitions.c).
 */
void
cv_log_relation(const CvCaptureTarget *target, Oid relid, int16 sign)
{
	ListCell   *lc;

	foreach(lc, find_all_inheritors(relid, AccessShareLock, NULL))
	{
		Relation	rel = table_open(lfirst_oid(lc), AccessShareLock);

		if (RELKIND_HAS_STORAGE(rel->rd_rel->relkind))
		{
			CvCapture	c;
			TableScanDesc scan = table_beginscan(rel, GetActiveSnapshot(), 0, NULL);
			TupleTableSlot *slot = table_slot_create(rel, NULL);

			cv_capture_begin(&c, target, rel);
			while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
			{
				CHECK_FOR_INTERRUPTS();
				cv_capture_row(&c, slot, sign);
			}
			cv_capture_end(&c);
			ExecDropSingleTupleTableSlot(slot);
			table_endscan(scan);
		}
		table_close(rel, AccessShareLock);
	}
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
			list_member_oid(cv_depended_on(RelationRelationId, ref, DEPENDENCY_NORMAL),
							relid))
			view = ref;
	}
	if (!OidIsValid(view))
		return false;
	names = textToQualifiedNameList(cstring_to_text(trigger->tgargs[0]));
	t->log = RangeVarGetRelid(makeRangeVarFromNameList(names), NoLock, true);
	if (!OidIsValid(t->log) ||
		!list_member_oid(cv_depended_on(RelationRelationId, t->log, DEPENDENCY_AUTO),
						 view))
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
	CvCaptureTarget target;
	CvCapture	c;

	if (!CALLED_AS_TRIGGER(fcinfo) ||
		!TRIGGER_FIRED_AFTER(trigdata->tg_event) ||
		!TRIGGER_FIRED_FOR_STATEMENT(trigdata->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("windowjoin._capture() must be an AFTER ... FOR EACH STATEMENT trigger")));
	trigger = trigdata->tg_trigger;
	src = trigdata->tg_relation;
	if (!cv_catalog_capture_target(RelationGetRelid(src), trigger->tgname, &target) &&
		!(cv_catalog_is_03() && cv_capture_target_03(trigdata, &target)))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("trigger \"%s\" on \"%s\" is not a capture trigger of a continuous view",
						trigger->tgname, RelationGetRelationName(src)),
				 errhint("Capture triggers are made by windowjoin.create_view(); windowjoin._capture() serves no other trigger.")));
	cv_capture_begin(&c, &target, src);
	if (TRIGGER_FIRED_BY_TRUNCATE(trigdata->tg_event))
		cv_log_append(&c.w, 0, (Datum) 0, true, (Datum) 0, 0, (Datum) 0, true);
	else
	{
		cv_capture_tuplestore(&c, trigdata->tg_oldtable, -1);
		cv_capture_tuplestore(&c, trigdata->tg_newtable, 1);
	}
	cv_capture_end(&c);

	/*
	 * Emit when a window closes: rows past the end of a window (by the
	 * delay) move the view's watermark past it, so a scheduled view is
	 * refreshed when this transaction commits rather than at its next
	 * scheduled round (cv_scheduler.c).
	 */
	if (target.scheduled && target.close_grain > 0 && c.has_max)
	{
		int64		wm;

		if (!pg_sub_s64_overflow(c.max_t, target.delay, &wm) && !TIMESTAMP_NOT_FINITE(wm))
			wj_scheduler_note_close(target.view,
									wj_window_floor(wm, target.close_grain, target.offset));
	}

	return PointerGetDatum(NULL);
}
