/*-------------------------------------------------------------------------
 *
 * window_arith.h
 *	  Overflow-checked arithmetic for epoch-aligned, fixed-length time
 *	  windows, shared by the window functions and the join executors.
 *
 * All quantities are microseconds: a timestamp or timestamptz Datum is an
 * int64 count of microseconds since 2000-01-01 (UTC for timestamptz, wall
 * clock for timestamp), so one implementation serves both types.
 *
 * src/common/window_arith.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WINDOW_ARITH_H
#define WINDOW_ARITH_H

#include "datatype/timestamp.h"
#include "fmgr.h"
#include "nodes/primnodes.h"

/* Window lengths are at least this long, so window_time stays inside */
#define WJ_MIN_WINDOW_USECS		INT64CONST(1000)

/* window_time = window_end - 1 millisecond (Flink's rule) */
#define WJ_WINDOW_TIME_USECS	INT64CONST(1000)

/* Unix epoch, in microseconds relative to the PostgreSQL epoch */
#define WJ_UNIX_EPOCH_USECS \
	((int64) (UNIX_EPOCH_JDATE - POSTGRES_EPOCH_JDATE) * USECS_PER_DAY)

/*
 * wj_floormod
 *		Remainder of a / m with the sign of m (m > 0): always in [0, m).
 */
static inline int64
wj_floormod(int64 a, int64 m)
{
	int64		r = a % m;

	return (r < 0) ? r + m : r;
}

/*
 * Argument access for the SQL-callable functions, which are not STRICT: a
 * NULL window parameter is an error (never a silent drop), a NULL time is
 * not.  param_name names the SQL parameter in the error message.
 */
extern int64 wj_duration_arg(FunctionCallInfo fcinfo, int argno,
							 const char *param_name);
extern int64 wj_offset_arg(FunctionCallInfo fcinfo, int argno);

/* Converters from interval, with the checks above */
extern int64 wj_interval_duration(const Interval *span, const char *param_name);
extern int64 wj_interval_offset(const Interval *span);

/*
 * An interval without months in microseconds (a day is 24 hours); false
 * with months or on overflow.  Never raises.
 */
extern bool wj_interval_usecs(const Interval *span, int64 *usecs);

/*
 * A non-NULL interval constant without months, in microseconds; false
 * otherwise.  Never raises: for the planner.
 */
extern bool wj_const_usecs(Node *arg, int64 *usecs);

/* The same, and a valid window length (at least WJ_MIN_WINDOW_USECS) */
extern bool wj_const_duration_usecs(Node *arg, int64 *usecs);

/* An int2, int4 or int8 datum's value; false for another type */
extern bool wj_integer_value(Oid type, Datum d, int64 *value);

/* A non-NULL int2, int4 or int8 constant's value; false otherwise */
extern bool wj_const_int64(Node *arg, int64 *value);

/* Rejects infinite timestamps */
extern void wj_check_finite(int64 ts);

/* a + b, raising an error if it leaves the timestamp range */
extern int64 wj_timestamp_add(int64 ts, int64 delta);

/* Start of the window of length unit (shifted by offset) containing ts */
extern int64 wj_window_floor(int64 ts, int64 unit, int64 offset);

/* The same in two steps: once per (unit, offset), then per ts */
extern int64 wj_window_base(int64 unit, int64 offset);
extern int64 wj_window_floor_base(int64 ts, int64 unit, int64 base);

/*
 * wj_window_rem
 *		How far ts is past the start of its window: (ts - base) mod unit,
 *		base from wj_window_base.  One division; the window starts at
 *		ts - rem, which the caller checks against the timestamp range.
 */
static inline int64
wj_window_rem(int64 ts, int64 unit, int64 base)
{
	int64		rem = wj_floormod(ts, unit) - base;	/* two values in [0, unit) */

	return (rem < 0) ? rem + unit : rem;
}

/*
 * HOP: number of windows of length size, started every slide (shifted by
 * offset), that contain ts; *first_start is the earliest one's start.
 */
extern int64 wj_hop_windows(int64 ts, int64 slide, int64 size, int64 offset,
							int64 *first_start);

/*
 * CUMULATE: windows [S, S + k*step) containing ts, with S the size-aligned
 * start; returns their count, *start = S and *first_end the smallest end.
 */
extern int64 wj_cumulate_windows(int64 ts, int64 step, int64 size,
								 int64 offset, int64 *start,
								 int64 *first_end);

/* Raises the max_windows_per_row error when nwindows exceeds the GUC */
extern void wj_check_window_count(int64 nwindows, const char *func_name);

#endif							/* WINDOW_ARITH_H */
