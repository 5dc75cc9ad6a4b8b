/*-------------------------------------------------------------------------
 *
 * session_window_exec.c
 *	  SessionWindow's session() column: the SessionSort executor
 *	  (session_sort_exec.c) returns each row in (keys..., time) order and
 *	  this file adds the (window_start, window_end, window_time) of its
 *	  session, in place of the WindowAgg that would compute session().
 *
 * INTERFACE ROUTINES (session_sort_internal.h)
 *		session_window_init				BeginCustomScan's part of SessionWindow
 *		session_window_check_gap		validate the gap before the first row
 *		session_window_memory_session	the session at the current sorted row
 *		session_window_set				put the column into a scan slot
 *		session_window_fallback_next	the next row after the tuplesort
 *										fallback, with its session
 *
 * ALGORITHM
 *
 * While returning a partition's sorted rows, a row past the current session
 * starts the next one: scan forward in the sorted array while consecutive
 * times are at most gap apart (the checks and errors of session(): finite
 * times, overflow-checked bounds, the gap validated before the first row),
 * put its (window_start, window_end, window_time) into the composite datum
 * (formed once, overwritten for each session), and return that same datum
 * with every row of the session.  Rows with a NULL time get a NULL window.
 *
 * After the fallback to a tuplesort (session_sort_spill.c), the rows come
 * from the tuplesort: read one session at a time into a tuplestore (which
 * spills too), looking one row ahead for the session's end, and return the
 * buffered rows with its bounds.
 *
 * src/nodes/session/session_window_exec.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "common/int.h"
#include "executor/executor.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/tuplesort.h"
#include "utils/tuplestore.h"
#include "utils/typcache.h"

#include "src/common/exec_common.h"
#include "src/nodes/session/session_sort_internal.h"
#include "src/common/window_arith.h"

/*
 * session_window_init
 *		BeginCustomScan of a SessionWindow: the session() column's place
 *		after the child's columns (desc), its composite type, and the slot
 *		that looks one row ahead in the fallback.
 */
void
session_window_init(SessionSortState *state, EState *estate, TupleDesc desc)
{
	TupleDesc	scandesc = state->css.ss.ss_ScanTupleSlot->tts_tupleDescriptor;
	Form_pg_attribute att;

	state->win_attno = state->nchild + 1;
	if (scandesc->natts != state->win_attno)
		elog(ERROR, "SessionWindow scan tuple has %d columns, expected %d",
			 scandesc->natts, state->win_attno);
	att = TupleDescAttr(scandesc, state->win_attno - 1);
	state->win_desc = lookup_rowtype_tupdesc_copy(att->atttypid,
												  att->atttypmod);
	state->look_slot = ExecAllocTableSlot(&estate->es_tupleTable, desc,
										  &TTSOpsMinimalTuple);
}

/*
 * session_window_validate_gap
 *		Validate session()'s gap, with session()'s errors, before the first
 *		row is returned (session() checks it for every row); through
 *		session_window_check_gap, once.
 */
void
session_window_validate_gap(SessionSortState *state)
{
	if (state->gap_const->constisnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("gap must not be null"),
				 errhint("Pass a fixed interval, for example interval '5 minutes'.")));
	state->gap = wj_interval_duration(DatumGetIntervalP(state->gap_const->constvalue),
									  "gap");
	state->gap_checked = true;
}

/*
 * make_session
 *		The composite (window_start, window_end, window_time) of the session
 *		from start to the row at last, kept until the next session starts:
 *		every row of the session returns the same datum.  The datum is
 *		formed once and then overwritten with each session's bounds (the
 *		previous session's is no longer used, as when it was freed).
 */
static void
make_session(SessionSortState *state, int64 start, int64 last)
{
	Datum		values[3];
	bool		nulls[3] = {false, false, false};
	int64		end = wj_timestamp_add(last, state->gap);

	/* window_time must be representable too */
	(void) wj_timestamp_add(end, -WJ_WINDOW_TIME_USECS);
	values[0] = Int64GetDatum(start);
	values[1] = Int64GetDatum(end);
	values[2] = Int64GetDatum(end - WJ_WINDOW_TIME_USECS);
	if (state->win_datum == (Datum) 0)
	{
		MemoryContext old = MemoryContextSwitchTo(state->sesscxt);

		state->win_datum = HeapTupleGetDatum(heap_form_tuple(state->win_desc,
															 values, nulls));
		MemoryContextSwitchTo(old);
	}
	else
	{
		HeapTupleHeader td = wj_datum_get_heap_tuple_header(state->win_datum);

		heap_fill_tuple(state->win_desc, values, nulls,
						(char *) td + td->t_hoff,
						HeapTupleHeaderGetDatumLength(td) - td->t_hoff,
						&td->t_infomask, NULL);
	}
}

/*
 * session_window_memory_session
 *		The session starting at the current row of the sorted partition:
 *		scan forward while consecutive times are at most gap apart.
 */
void
session_window_memory_session(SessionSortState *state)
{
	int64		first = state->cur_row;
	int64		prev = state->sorted[first].ts;
	int64		i;

	wj_check_finite(prev);
	for (i = first + 1; i < state->nsorted; i++)
	{
		int64		t = state->sorted[i].ts;
		int64		diff;

		CHECK_FOR_INTERRUPTS();
		wj_check_finite(t);
		if (pg_sub_s64_overflow(t, prev, &diff) || diff > state->gap)
			break;
		prev = t;
	}
	state->sess_last = i - 1;
	make_session(state, state->sorted[first].ts, prev);
}

/*
 * same_partition
 *		Do two rows in the child's layout have equal partition keys?
 */
static bool
same_partition(SessionSortState *state, TupleTableSlot *a, TupleTableSlot *b)
{
	int			i;

	for (i = 0; i < state->npart; i++)
	{
		bool		na;
		bool		nb;
		Datum		va = slot_getattr(a, state->attnos[i], &na);
		Datum		vb = slot_getattr(b, state->attnos[i], &nb);

		if (na || nb)
		{
			if (na != nb)
				return false;
			continue;
		}
		if (!DatumGetBool(FunctionCall2Coll(&state->eqfns[i], state->colls[i],
											va, vb)))
			return false;
	}
	return true;
}

/*
 * copy_out
 *		The scan slot: a child row plus its session() column.
 */
static TupleTableSlot *
copy_out(SessionSortState *state, TupleTableSlot *src, bool null_time)
{
	TupleTableSlot *out = state->css.ss.ss_ScanTupleSlot;

	slot_getallattrs(src);
	ExecClearTuple(out);
	memcpy(out->tts_values, src->tts_values, sizeof(Datum) * state->nchild);
	memcpy(out->tts_isnull, src->tts_isnull, sizeof(bool) * state->nchild);
	ExecStoreVirtualTuple(out);
	return session_window_set(state, out, null_time);
}

/*
 * session_window_fallback_next
 *		SessionWindow after the fallback to tuplesort: buffer one session's
 *		rows in a tuplestore (spilling as needed) until the next row belongs
 *		to another partition, has a NULL time or comes more than gap later;
 *		then return the buffered rows with the session's bounds.
 */
TupleTableSlot *
session_window_fallback_next(SessionSortState *state)
{
	for (;;)
	{
		int64		start;
		int64		prev;
		bool		isnull;

		if (state->sessbuf != NULL &&
			tuplestore_gettupleslot(state->sessbuf, true, false, state->sort_slot))
			return copy_out(state, state->sort_slot, false);

		if (!state->look_valid)
		{
			if (!tuplesort_gettupleslot(state->tuplesort, true, true,
										state->look_slot, NULL))
				return NULL;	/* the tuplesort is done */
			state->look_valid = true;
		}
		session_window_check_gap(state);
		if (slot_attisnull(state->look_slot, state->time_attno))
		{
			state->look_valid = false;
			return copy_out(state, state->look_slot, true);
		}

		/* a session starts at the row looked ahead */
		if (state->sessbuf == NULL)
		{
			MemoryContext old = MemoryContextSwitchTo(state->cxt);

			state->sessbuf = tuplestore_begin_heap(false, false, work_mem);
			MemoryContextSwitchTo(old);
		}
		else
			tuplestore_clear(state->sessbuf);
		ExecCopySlot(state->child_slot, state->look_slot);
		start = prev = DatumGetInt64(slot_getattr(state->look_slot,
												  state->time_attno, &isnull));
		wj_check_finite(start);
		tuplestore_puttupleslot(state->sessbuf, state->look_slot);
		state->look_valid = false;
		for (;;)
		{
			int64		t;
			int64		diff;

			CHECK_FOR_INTERRUPTS();
			if (!tuplesort_gettupleslot(state->tuplesort, true, true,
										state->look_slot, NULL))
				break;
			state->look_valid = true;
			t = DatumGetInt64(slot_getattr(state->look_slot, state->time_attno,
										   &isnull));
			if (isnull || !same_partition(state, state->child_slot, state->look_slot))
				break;
			wj_check_finite(t);
			if (pg_sub_s64_overflow(t, prev, &diff) || diff > state->gap)
				break;
			tuplestore_puttupleslot(state->sessbuf, state->look_slot);
			state->look_valid = false;
			prev = t;
		}
		make_session(state, start, prev);
	}
}
