/*-------------------------------------------------------------------------
 *
 * session_function.c
 *	  session(ts, gap) OVER (PARTITION BY keys ORDER BY ts): Flink's SESSION
 *	  window as a PostgreSQL window function.
 *
 * Two consecutive rows of a partition belong to the same session when the
 * later is at most `gap' after the earlier (windows that touch merge, as in
 * Flink).  A session spans [first time, last time + gap); window_time is
 * window_end - 1 millisecond.
 *
 * Algorithm: the function is called once per row, in partition order.  When
 * the current row lies past the end of the last session computed, it starts
 * a new session there and scans forward through the partition until the
 * next gap, remembering the session's bounds and the position of its last
 * row in partition-local memory.  Every row of that session is then
 * answered from memory.  So each row is read at most twice and each row's
 * window costs O(1) amortised; nothing but the result outlives a row.
 *
 * The scan also checks the order: a time smaller than its predecessor means
 * the OVER clause lacks ORDER BY <time>, and is reported as an error rather
 * than producing wrong sessions; so is a row that starts a session earlier
 * than the previous session's last row.  A NULL time gets NULL window
 * columns.  NULL times must come first or last in their partition (as ORDER
 * BY puts them); one between two non-NULL times is an ordering error too.
 *
 * src/functions/session_function.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "common/int.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/timestamp.h"
#include "windowapi.h"

#include "src/common/window_arith.h"

PG_FUNCTION_INFO_V1(wj_session);

/* The session containing the rows up to last_pos, in partition memory */
typedef struct SessionState
{
	bool		valid;			/* has a session been computed? */
	bool		null_time;		/* the "session" of a row with NULL time */
	int64		last_pos;		/* position of the session's last row */
	int64		start;			/* window_start */
	int64		end;			/* window_end */
	bool		seen_time;		/* has any row had a non-NULL time? */
	int64		last_time;		/* if so, the latest one */
	bool		null_after_time;	/* a NULL time followed a non-NULL one */
} SessionState;

/*
 * order_error
 *		Report rows that are not in time order within their partition.
 */
static void
order_error(int64 pos)
{
	ereport(ERROR,
			(errcode(ERRCODE_WINDOWING_ERROR),
			 errmsg("session() requires the rows of each partition in time order"),
			 errdetail("The row at position %lld of its partition is out of time order.",
					   (long long) (pos + 1)),
			 errhint("Add ORDER BY <time> to the OVER clause, for example OVER (PARTITION BY item ORDER BY bidtime).")));
}

/*
 * session_gap
 *		The validated gap argument of the current row.
 */
static int64
session_gap(WindowObject winobj)
{
	bool		isnull;
	Datum		gap = WinGetFuncArgCurrent(winobj, 1, &isnull);

	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("gap must not be null"),
				 errhint("Pass a fixed interval, for example interval '5 minutes'.")));
	return wj_interval_duration(DatumGetIntervalP(gap), "gap");
}

/*
 * session_compute
 *		Start a session at the current row (position pos, time ts) and find
 *		where it ends by scanning forward until the gap is exceeded.
 */
static void
session_compute(WindowObject winobj, SessionState *state, int64 pos,
				int64 ts, int64 gap)
{
	int64		prev = ts;
	int64		relpos = 1;

	for (;;)
	{
		bool		isnull;
		bool		isout;
		Datum		next;
		int64		t;
		int64		diff;

		CHECK_FOR_INTERRUPTS();

		next = WinGetFuncArgInPartition(winobj, 0, relpos, WINDOW_SEEK_CURRENT,
										false, &isnull, &isout);
		if (isout || isnull)
			break;

		t = DatumGetInt64(next);
		if (t < prev)
			order_error(pos + relpos);
		wj_check_finite(t);
		if (pg_sub_s64_overflow(t, prev, &diff) || diff > gap)
			break;
		prev = t;
		relpos++;
	}

	state->valid = true;
	state->null_time = false;
	state->last_pos = pos + relpos - 1;
	state->start = ts;
	state->end = wj_timestamp_add(prev, gap);
	state->seen_time = true;
	state->last_time = prev;
	/* window_time must be representable too */
	(void) wj_timestamp_add(state->end, -WJ_WINDOW_TIME_USECS);
}

/*
 * wj_session
 *		Window function: the session window of the current row, as the
 *		composite (window_start, window_end, window_time).
 */
Datum
wj_session(PG_FUNCTION_ARGS)
{
	WindowObject winobj = PG_WINDOW_OBJECT();
	SessionState *state;
	int64		pos = WinGetCurrentPosition(winobj);
	TupleDesc	tupdesc = (TupleDesc) fcinfo->flinfo->fn_extra;
	Datum		values[3];
	bool		nulls[3] = {false, false, false};
	int64		gap;

	state = (SessionState *) WinGetPartitionLocalMemory(winobj,
														sizeof(SessionState));

	/* Rows before the current one are no longer needed */
	WinSetMarkPosition(winobj, pos);

	/* every row's gap is checked, though the session's first one rules */
	gap = session_gap(winobj);

	if (!state->valid || pos > state->last_pos)
	{
		bool		isnull;
		Datum		ts = WinGetFuncArgCurrent(winobj, 0, &isnull);

		if (isnull)
		{
			state->valid = true;
			state->null_time = true;
			state->last_pos = pos;
			state->null_after_time |= state->seen_time;
		}
		else
		{
			/*
			 * A session starts after the previous one's last row; its time
			 * must not be earlier, and NULL times may come first or last in
			 * the partition but not between others.
			 */
			if (state->null_after_time ||
				(state->seen_time && DatumGetInt64(ts) < state->last_time))
				order_error(pos);
			wj_check_finite(DatumGetInt64(ts));
			session_compute(winobj, state, pos, DatumGetInt64(ts), gap);
		}
	}

	if (state->null_time)
		PG_RETURN_NULL();

	/* The blessed result descriptor, looked up once per query */
	if (tupdesc == NULL)
	{
		MemoryContext oldcxt = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);

		if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
			elog(ERROR, "session() must return a composite type");
		tupdesc = BlessTupleDesc(CreateTupleDescCopy(tupdesc));
		fcinfo->flinfo->fn_extra = tupdesc;
		MemoryContextSwitchTo(oldcxt);
	}

	values[0] = Int64GetDatum(state->start);
	values[1] = Int64GetDatum(state->end);
	values[2] = Int64GetDatum(state->end - WJ_WINDOW_TIME_USECS);

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
