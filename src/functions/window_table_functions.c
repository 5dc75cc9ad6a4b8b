/*-------------------------------------------------------------------------
 *
 * window_table_functions.c
 *	  SQL-callable building blocks of tumble(), hop() and cumulate().
 *
 * The user-facing functions are LANGUAGE sql set-returning functions
 * (windowjoin--*.sql) whose body is a single SELECT over the C functions
 * here.  PostgreSQL inlines such a function into the calling query, so
 * "FROM bid, tumble(bidtime, '10 minutes')" becomes a plain scan of bid
 * computing three scalar expressions, and hop()/cumulate() become a lateral
 * scan of a C set-returning function that yields the window starts (ends)
 * of one row.  The functions accept timestamp and timestamptz alike, as
 * both are int64 microseconds.
 *
 * None of them is STRICT: a NULL time yields NULL (or no rows), but a NULL
 * window parameter is an error, checked before the time is looked at.
 *
 * wj_hop_support() and wj_cumulate_support() are the planner support
 * functions of the set-returning ones: rows per call from constant
 * arguments.
 *
 * src/functions/window_table_functions.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "funcapi.h"
#include "nodes/supportnodes.h"
#include "utils/timestamp.h"

#include "src/common/window_arith.h"

PG_FUNCTION_INFO_V1(wj_tumble_start);
PG_FUNCTION_INFO_V1(wj_tumble_end);
PG_FUNCTION_INFO_V1(wj_tumble_time);
PG_FUNCTION_INFO_V1(wj_hop_starts);
PG_FUNCTION_INFO_V1(wj_cumulate_ends);
PG_FUNCTION_INFO_V1(wj_window_end);
PG_FUNCTION_INFO_V1(wj_window_time);
PG_FUNCTION_INFO_V1(wj_end_to_time);
PG_FUNCTION_INFO_V1(wj_hop_support);
PG_FUNCTION_INFO_V1(wj_cumulate_support);

/* State of a hop/cumulate call across its rows */
typedef struct WindowSeries
{
	int64		next;			/* next value to return */
	int64		step;			/* distance between values */
	int64		remaining;		/* values left */
} WindowSeries;

/*
 * The tumble functions' validated window parameters, kept in fn_extra: an
 * expression calls them row after row with the same (constant) size and
 * offset, which are then checked and reduced once, not per row.
 */
typedef struct TumbleParams
{
	Interval	size_arg;		/* the arguments they were computed from */
	Interval	offset_arg;
	int64		size;			/* window length, microseconds */
	int64		base;			/* wj_window_base(size, offset) */
} TumbleParams;

/*
 * tumble_params
 *		The validated (size, offset) of this call: from fn_extra when the
 *		arguments are those of the previous call.  Errors for NULL or
 *		invalid parameters are raised as wj_duration_arg/wj_offset_arg
 *		raise them.
 */
static const TumbleParams *
tumble_params(FunctionCallInfo fcinfo)
{
	TumbleParams *params = (TumbleParams *) fcinfo->flinfo->fn_extra;
	Interval   *size_arg;
	Interval   *offset_arg;
	int64		size;
	int64		offset;

	if (params != NULL && !PG_ARGISNULL(1) && !PG_ARGISNULL(2))
	{
		size_arg = PG_GETARG_INTERVAL_P(1);
		offset_arg = PG_GETARG_INTERVAL_P(2);
		if (memcmp(size_arg, &params->size_arg, sizeof(Interval)) == 0 &&
			memcmp(offset_arg, &params->offset_arg, sizeof(Interval)) == 0)
			return params;
	}

	/* validates, raising errors for NULL or invalid parameters */
	size = wj_duration_arg(fcinfo, 1, "size");
	offset = wj_offset_arg(fcinfo, 2);
	if (params == NULL)
	{
		params = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, sizeof(TumbleParams));
		fcinfo->flinfo->fn_extra = params;
	}
	params->size = size;
	params->base = wj_window_base(size, offset);
	params->size_arg = *PG_GETARG_INTERVAL_P(1);
	params->offset_arg = *PG_GETARG_INTERVAL_P(2);
	return params;
}

/*
 * tumble_start
 *		Shared body of the tumble functions: validate (size, offset) and
 *		return the window start, or false for a NULL time.
 */
static bool
tumble_start(FunctionCallInfo fcinfo, int64 *start, int64 *size)
{
	const TumbleParams *params = tumble_params(fcinfo);
	int64		ts;

	*size = params->size;
	if (PG_ARGISNULL(0))
		return false;
	ts = PG_GETARG_INT64(0);
	wj_check_finite(ts);

	*start = wj_window_floor_base(ts, params->size, params->base);
	return true;
}

/*
 * wj_tumble_start(ts, size, offset)
 *		window_start of the tumbling window containing ts.
 */
Datum
wj_tumble_start(PG_FUNCTION_ARGS)
{
	int64		start;
	int64		size;

	if (!tumble_start(fcinfo, &start, &size))
		PG_RETURN_NULL();
	PG_RETURN_INT64(start);
}

/*
 * wj_tumble_end(ts, size, offset)
 *		window_end of the tumbling window containing ts.
 */
Datum
wj_tumble_end(PG_FUNCTION_ARGS)
{
	int64		start;
	int64		size;

	if (!tumble_start(fcinfo, &start, &size))
		PG_RETURN_NULL();
	PG_RETURN_INT64(wj_timestamp_add(start, size));
}

/*
 * wj_tumble_time(ts, size, offset)
 *		window_time (window_end - 1 ms) of the tumbling window containing ts.
 */
Datum
wj_tumble_time(PG_FUNCTION_ARGS)
{
	int64		start;
	int64		size;

	if (!tumble_start(fcinfo, &start, &size))
		PG_RETURN_NULL();
	PG_RETURN_INT64(wj_timestamp_add(start, size - WJ_WINDOW_TIME_USECS));
}

/*
 * series_start
 *		First call of the hop and cumulate series: count values from first,
 *		step apart.  No series (no rows) when count is not positive.
 */
static void
series_start(FuncCallContext *funcctx, int64 first, int64 step, int64 count)
{
	WindowSeries *series;

	if (count <= 0)
		return;
	series = MemoryContextAlloc(funcctx->multi_call_memory_ctx,
								sizeof(WindowSeries));
	series->next = first;
	series->step = step;
	series->remaining = count;
	funcctx->user_fctx = series;
}

/*
 * series_next
 *		Common ValuePerCall loop of the hop and cumulate series.
 */
static Datum
series_next(FunctionCallInfo fcinfo, FuncCallContext *funcctx)
{
	WindowSeries *series = (WindowSeries *) funcctx->user_fctx;
	int64		value;

	if (series == NULL || series->remaining <= 0)
		SRF_RETURN_DONE(funcctx);

	value = series->next;
	series->remaining--;
	if (series->remaining > 0)
		series->next += series->step;	/* below the checked last bound */
	SRF_RETURN_NEXT(funcctx, Int64GetDatum(value));
}

/*
 * wj_hop_starts(ts, slide, size, offset)
 *		The starts of all HOP windows containing ts, in ascending order.
 */
Datum
wj_hop_starts(PG_FUNCTION_ARGS)
{
	FuncCallContext *funcctx;

	if (SRF_IS_FIRSTCALL())
	{
		int64		slide;
		int64		size;
		int64		offset;
		int64		first_start = 0;
		int64		count;

		funcctx = SRF_FIRSTCALL_INIT();

		slide = wj_duration_arg(fcinfo, 1, "slide");
		size = wj_duration_arg(fcinfo, 2, "size");
		offset = wj_offset_arg(fcinfo, 3);

		if (!PG_ARGISNULL(0))
		{
			int64		ts = PG_GETARG_INT64(0);

			wj_check_finite(ts);
			count = wj_hop_windows(ts, slide, size, offset, &first_start);
			series_start(funcctx, first_start, slide, count);
		}
	}

	funcctx = SRF_PERCALL_SETUP();
	return series_next(fcinfo, funcctx);
}

/*
 * wj_cumulate_ends(ts, step, size, offset)
 *		The ends of all CUMULATE windows containing ts, in ascending order.
 *		Their common start is wj_tumble_start(ts, size, offset).
 */
Datum
wj_cumulate_ends(PG_FUNCTION_ARGS)
{
	FuncCallContext *funcctx;

	if (SRF_IS_FIRSTCALL())
	{
		int64		step;
		int64		size;
		int64		offset;

		funcctx = SRF_FIRSTCALL_INIT();

		step = wj_duration_arg(fcinfo, 1, "step");
		size = wj_duration_arg(fcinfo, 2, "size");
		offset = wj_offset_arg(fcinfo, 3);

		if (size % step != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("cumulate size must be a whole multiple of step"),
					 errdetail("The size is %lld microseconds and the step is %lld microseconds.",
							   (long long) size, (long long) step),
					 errhint("Choose a step that divides the size, for example step '1 hour' with size '1 day'.")));

		if (!PG_ARGISNULL(0))
		{
			int64		ts = PG_GETARG_INT64(0);
			int64		start;
			int64		first_end;
			int64		count;

			wj_check_finite(ts);
			count = wj_cumulate_windows(ts, step, size, offset,
										&start, &first_end);
			series_start(funcctx, first_end, step, count);
		}
	}

	funcctx = SRF_PERCALL_SETUP();
	return series_next(fcinfo, funcctx);
}

/*
 * wj_window_end(window_start, size)
 *		window_start + size, with size a validated fixed duration.
 */
Datum
wj_window_end(PG_FUNCTION_ARGS)
{
	int64		size = wj_duration_arg(fcinfo, 1, "size");

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	PG_RETURN_INT64(wj_timestamp_add(PG_GETARG_INT64(0), size));
}

/*
 * wj_window_time(window_start, size)
 *		window_start + size - 1 millisecond.
 */
Datum
wj_window_time(PG_FUNCTION_ARGS)
{
	int64		size = wj_duration_arg(fcinfo, 1, "size");

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	PG_RETURN_INT64(wj_timestamp_add(PG_GETARG_INT64(0),
									 size - WJ_WINDOW_TIME_USECS));
}

/*
 * wj_end_to_time(window_end)
 *		window_end - 1 millisecond.
 */
Datum
wj_end_to_time(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64(wj_timestamp_add(PG_GETARG_INT64(0), -WJ_WINDOW_TIME_USECS));
}

/*
 * support_rows
 *		Shared body of the planner support functions: answer
 *		SupportRequestRows from constant (every, size) arguments 2 and 3,
 *		using rows_of() to turn them into an estimate.
 */
static Datum
support_rows(FunctionCallInfo fcinfo, double (*rows_of) (int64 every, int64 size))
{
	Node	   *rawreq = (Node *) PG_GETARG_POINTER(0);
	SupportRequestRows *req;
	FuncExpr   *fexpr;
	int64		every;
	int64		size;

	if (!IsA(rawreq, SupportRequestRows))
		PG_RETURN_POINTER(NULL);

	req = (SupportRequestRows *) rawreq;
	if (!IsA(req->node, FuncExpr))
		PG_RETURN_POINTER(NULL);
	fexpr = (FuncExpr *) req->node;
	if (list_length(fexpr->args) != 4 ||
		!wj_const_duration_usecs(lsecond(fexpr->args), &every) ||
		!wj_const_duration_usecs(lthird(fexpr->args), &size))
		PG_RETURN_POINTER(NULL);

	req->rows = rows_of(every, size);
	PG_RETURN_POINTER(req);
}

/* size/slide windows per row on average (exactly, when slide divides size) */
static double
hop_rows(int64 slide, int64 size)
{
	return (double) size / (double) slide;
}

/* between 1 and size/step windows per row: (size/step + 1)/2 on average */
static double
cumulate_rows(int64 step, int64 size)
{
	return ((double) (size / step) + 1.0) / 2.0;
}

/*
 * wj_hop_support
 *		Planner support function of wj_hop_starts.
 */
Datum
wj_hop_support(PG_FUNCTION_ARGS)
{
	return support_rows(fcinfo, hop_rows);
}

/*
 * wj_cumulate_support
 *		Planner support function of wj_cumulate_ends.
 */
Datum
wj_cumulate_support(PG_FUNCTION_ARGS)
{
	return support_rows(fcinfo, cumulate_rows);
}
