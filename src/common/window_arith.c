/*-------------------------------------------------------------------------
 *
 * window_arith.c
 *	  Epoch-aligned window arithmetic with overflow checks.
 *
 * A window of length L shifted by offset O covers [S, S + L) where
 * S = U + O + k*L for some integer k and U is the Unix epoch.  The start of
 * the window containing t is therefore
 *
 *		S = t - floormod(t - U - O, L)
 *
 * floormod (the remainder with the sign of the divisor) makes timestamps
 * before the epoch land in the right window: a plain C '%' would round
 * toward zero.  We never form t - U - O, which can overflow near the ends
 * of the timestamp range; instead the remainder is assembled from the
 * remainders of t and of U + O, each in [0, L).  Only O mod L matters, so
 * an offset that is negative or longer than the window is fine.
 *
 * HOP windows start every `slide' and last `size'; the ones containing t
 * are the starts S_j = S_last - j*slide with S_j > t - size, where S_last is
 * the slide-aligned floor of t.  CUMULATE windows share the size-aligned
 * start S and end at S + k*step; the ones containing t are those with
 * S + k*step > t.  Both are computed in O(1) per row, and the per-row count
 * is guarded by windowjoin.max_windows_per_row.
 *
 * Sizes are fixed durations: an interval's days count as 24 hours (so
 * nothing depends on the TimeZone setting) and months, which have no fixed
 * length, are rejected.
 *
 * src/common/window_arith.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "common/int.h"
#include "utils/timestamp.h"

#include "src/common/gucs.h"
#include "src/common/window_arith.h"

/*
 * wj_interval_usecs
 *		Total microseconds of an interval, counting a day as 24 hours; false
 *		if it has months (which have no fixed length) or the sum overflows
 *		int64.
 */
bool
wj_interval_usecs(const Interval *span, int64 *result)
{
	int64		days;

	if (span->month != 0)
		return false;
	if (pg_mul_s64_overflow((int64) span->day, USECS_PER_DAY, &days))
		return false;
	return !pg_add_s64_overflow(days, span->time, result);
}

/*
 * wj_interval_duration
 *		Validate a window length (size, slide, step or gap) and return it in
 *		microseconds: no months, positive, at least 1 millisecond.
 */
int64
wj_interval_duration(const Interval *span, const char *param_name)
{
	int64		usecs;

	if (span->month != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must not contain months or years", param_name),
				 errdetail("Window lengths are fixed durations, and a month has no fixed length."),
				 errhint("Express the length in days or smaller units, for example interval '30 days'.")));

	if (!wj_interval_usecs(span, &usecs))
		ereport(ERROR,
				(errcode(ERRCODE_INTERVAL_FIELD_OVERFLOW),
				 errmsg("%s is out of range", param_name),
				 errhint("Use a window length shorter than about 292,000 years.")));

	if (usecs <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be positive", param_name),
				 errhint("Pass a positive interval of at least 1 millisecond, for example interval '5 minutes'.")));

	if (usecs < WJ_MIN_WINDOW_USECS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be at least 1 millisecond", param_name),
				 errdetail("The window_time column is window_end minus 1 millisecond, which must stay inside the window."),
				 errhint("Pass an interval of at least 1 millisecond.")));

	return usecs;
}

/*
 * wj_interval_offset
 *		Validate a window offset (any sign and length, no months) and return
 *		it in microseconds.
 */
int64
wj_interval_offset(const Interval *span)
{
	int64		usecs;

	if (span->month != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("offset must not contain months or years"),
				 errdetail("Window offsets are fixed durations, and a month has no fixed length."),
				 errhint("Express the offset in days or smaller units.")));

	if (!wj_interval_usecs(span, &usecs))
		ereport(ERROR,
				(errcode(ERRCODE_INTERVAL_FIELD_OVERFLOW),
				 errmsg("offset is out of range"),
				 errhint("Only the offset modulo the window length matters; pass a shorter one.")));

	return usecs;
}

/*
 * wj_const_usecs
 *		The microseconds of a non-NULL interval constant without months.
 */
bool
wj_const_usecs(Node *arg, int64 *usecs)
{
	if (arg == NULL || !IsA(arg, Const) || ((Const *) arg)->constisnull ||
		((Const *) arg)->consttype != INTERVALOID)
		return false;
	return wj_interval_usecs(DatumGetIntervalP(((Const *) arg)->constvalue),
							 usecs);
}

/*
 * wj_integer_value
 *		The value of an int2, int4 or int8 datum of type type; false for any
 *		other type.
 */
bool
wj_integer_value(Oid type, Datum d, int64 *value)
{
	switch (type)
	{
		case INT2OID:
			*value = DatumGetInt16(d);
			return true;
		case INT4OID:
			*value = DatumGetInt32(d);
			return true;
		case INT8OID:
			*value = DatumGetInt64(d);
			return true;
		default:
			return false;
	}
}

/*
 * wj_const_int64
 *		The value of a non-NULL int2, int4 or int8 constant.
 */
bool
wj_const_int64(Node *arg, int64 *value)
{
	Const	   *c = (Const *) arg;

	if (arg == NULL || !IsA(arg, Const) || c->constisnull)
		return false;
	return wj_integer_value(c->consttype, c->constvalue, value);
}

/*
 * wj_const_duration_usecs
 *		Like wj_const_usecs, but also require a valid window length: the
 *		planner must not fail on (nor plan around) an argument the executor
 *		will reject, so it leaves such a constant to the executor.
 */
bool
wj_const_duration_usecs(Node *arg, int64 *usecs)
{
	return wj_const_usecs(arg, usecs) && *usecs >= WJ_MIN_WINDOW_USECS;
}

/*
 * wj_duration_arg
 *		Fetch and validate a window-length argument; NULL is an error.
 */
int64
wj_duration_arg(FunctionCallInfo fcinfo, int argno, const char *param_name)
{
	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s must not be null", param_name),
				 errhint("Pass a fixed interval, for example interval '10 minutes'.")));

	return wj_interval_duration(PG_GETARG_INTERVAL_P(argno), param_name);
}

/*
 * wj_offset_arg
 *		Fetch and validate the offset argument; NULL is an error.
 */
int64
wj_offset_arg(FunctionCallInfo fcinfo, int argno)
{
	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("offset must not be null"),
				 errhint("Omit the offset, or pass interval '0' for windows aligned to the Unix epoch.")));

	return wj_interval_offset(PG_GETARG_INTERVAL_P(argno));
}

/*
 * wj_check_finite
 *		Infinite timestamps belong to no window.
 */
void
wj_check_finite(int64 ts)
{
	if (TIMESTAMP_NOT_FINITE(ts))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("cannot assign an infinite timestamp to a window"),
				 errhint("Filter such rows out first, for example WHERE isfinite(ts).")));
}

/*
 * wj_timestamp_add
 *		ts + delta, raising an error outside the valid timestamp range.
 */
int64
wj_timestamp_add(int64 ts, int64 delta)
{
	int64		result;

	if (pg_add_s64_overflow(ts, delta, &result) || !IS_VALID_TIMESTAMP(result))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("window bound out of range for type timestamp"),
				 errhint("Filter out rows this close to the ends of the timestamp range, whose windows cannot be represented.")));
	return result;
}

/*
 * wj_window_base
 *		Where windows of length unit, shifted by offset, start: (U + O) mod
 *		unit, U being the Unix epoch in timestamp microseconds.  Built
 *		without forming U + O, which may overflow.
 */
int64
wj_window_base(int64 unit, int64 offset)
{
	Assert(unit > 0);
	return wj_floormod(wj_floormod(WJ_UNIX_EPOCH_USECS, unit) + wj_floormod(offset, unit),
					   unit);
}

/*
 * wj_window_floor_base
 *		Start of the window containing ts, of windows of length unit that
 *		start at base modulo unit (wj_window_base).
 */
int64
wj_window_floor_base(int64 ts, int64 unit, int64 base)
{
	return wj_timestamp_add(ts, -wj_window_rem(ts, unit, base));
}

/*
 * wj_window_floor
 *		Start of the window of length unit, shifted by offset, containing ts.
 */
int64
wj_window_floor(int64 ts, int64 unit, int64 offset)
{
	return wj_window_floor_base(ts, unit, wj_window_base(unit, offset));
}

/*
 * wj_hop_windows
 *		Count the HOP windows containing ts and find the earliest start.
 */
int64
wj_hop_windows(int64 ts, int64 slide, int64 size, int64 offset,
			   int64 *first_start)
{
	int64		last_start = wj_window_floor(ts, slide, offset);
	int64		into = ts - last_start; /* in [0, slide) */
	int64		count;

	/* starts last_start - j*slide with j*slide < size - into */
	if (size <= into)
		count = 0;
	else
		count = (size - into - 1) / slide + 1;

	wj_check_window_count(count, "hop");

	if (count > 0)
	{
		*first_start = wj_timestamp_add(last_start, -(count - 1) * slide);
		/* the latest window's end must be representable too */
		(void) wj_timestamp_add(last_start, size);
	}
	return count;
}

/*
 * wj_cumulate_windows
 *		Count the CUMULATE windows containing ts; return the common start and
 *		the smallest end.  size is a whole multiple of step (checked by the
 *		caller).
 */
int64
wj_cumulate_windows(int64 ts, int64 step, int64 size, int64 offset,
					int64 *start, int64 *first_end)
{
	int64		nsteps = size / step;
	int64		done;
	int64		count;

	*start = wj_window_floor(ts, size, offset);
	done = (ts - *start) / step;	/* steps wholly before ts */
	count = nsteps - done;

	wj_check_window_count(count, "cumulate");

	*first_end = wj_timestamp_add(*start, (done + 1) * step);
	/* the largest window's end must be representable too */
	(void) wj_timestamp_add(*start, size);
	return count;
}

/*
 * wj_check_window_count
 *		Guard against row explosion: windowjoin.max_windows_per_row.
 */
void
wj_check_window_count(int64 nwindows, const char *func_name)
{
	if (nwindows > wj_max_windows_per_row)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s() would assign a row to %lld windows, more than windowjoin.max_windows_per_row (%d)",
						func_name, (long long) nwindows, wj_max_windows_per_row),
				 errhint("Use a larger slide or step, a smaller size, or raise windowjoin.max_windows_per_row.")));
}
