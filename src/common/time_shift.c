/*-------------------------------------------------------------------------
 *
 * time_shift.c
 *	  A time shifted by a constant, computed without raising an error.
 *
 * The as-of join's outer time may be an expression such as
 * "o.t + interval '1 hour'".  PostgreSQL's plan computes it only for outer
 * rows that reach the version rows' filter, so near the end of the
 * timestamp range it raises "timestamp out of range" for some rows and not
 * for others.  The node must raise it exactly for those rows; for the
 * others it needs the shifted value, or the knowledge that it is out of
 * range, without an error.  wj_shift_match recognises the shapes whose
 * result orders like the base (so the base can be sorted instead of the
 * shifted value): timestamp plus or minus an interval without months,
 * timestamptz plus or minus an interval of hours and less (days depend on
 * the time zone there), and int4/int8 plus or minus an integer constant.
 * wj_shift_apply computes it as the operator's function does and reports
 * an out-of-range result instead of raising it; the caller then evaluates
 * the real expression only where PostgreSQL's plan would, which raises the
 * real error.
 *
 * src/common/time_shift.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "common/int.h"
#include "datatype/timestamp.h"
#include "nodes/nodeFuncs.h"
#include "utils/datetime.h"
#include "utils/fmgroids.h"
#include "utils/timestamp.h"

#include "src/common/time_shift.h"

/*
 * wj_shift_match
 *		Is expr "base OP constant" of a shape described in the file header?
 *		Then set *base and *shift.
 */
bool
wj_shift_match(Expr *expr, Expr **base, WjShift *shift)
{
	OpExpr	   *op;
	Const	   *c;

	if (expr == NULL || !IsA(expr, OpExpr))
		return false;
	op = (OpExpr *) expr;
	if (list_length(op->args) != 2 || !IsA(lsecond(op->args), Const))
		return false;
	c = (Const *) lsecond(op->args);
	if (c->constisnull)
		return false;

	switch (op->opfuncid)
	{
		case F_TIMESTAMP_PL_INTERVAL:
		case F_TIMESTAMP_MI_INTERVAL:
		case F_TIMESTAMPTZ_PL_INTERVAL:
		case F_TIMESTAMPTZ_MI_INTERVAL:
			{
				Interval   *span = DatumGetIntervalP(c->constvalue);

				/* months make the shift non-monotone (Jan 31 + 1 mon) */
				if (span->month != 0)
					return false;
				/* with a time zone, days are not 24 hours */
				if (span->day != 0 &&
					(op->opfuncid == F_TIMESTAMPTZ_PL_INTERVAL ||
					 op->opfuncid == F_TIMESTAMPTZ_MI_INTERVAL))
					return false;
				/* the negation the minus operators apply must not overflow */
				if (span->day == PG_INT32_MIN || span->time == PG_INT64_MIN)
					return false;
				break;
			}
		case F_INT4PL:
		case F_INT4MI:
		case F_INT8PL:
		case F_INT8MI:
		case F_INT84PL:
		case F_INT84MI:
			break;
		default:
			return false;
	}
	if (exprType((Node *) linitial(op->args)) != op->opresulttype)
		return false;
	*base = (Expr *) linitial(op->args);
	shift->funcid = op->opfuncid;
	shift->amount = c->constvalue;
	return true;
}

/*
 * wj_shift_timestamp
 *		timestamp + (day, time) as timestamp_pl_interval computes it (no
 *		months), false where it raises "timestamp out of range".
 */
static bool
wj_shift_timestamp(Timestamp t, int32 day, int64 time, Timestamp *result)
{
	if (TIMESTAMP_NOT_FINITE(t))
	{
		*result = t;
		return true;
	}
	if (day != 0)
	{
		struct pg_tm tt,
				   *tm = &tt;
		fsec_t		fsec;
		int			julian;

		if (timestamp2tm(t, NULL, tm, &fsec, NULL, NULL) != 0)
			return false;
		if (pg_add_s32_overflow(date2j(tm->tm_year, tm->tm_mon, tm->tm_mday),
								day, &julian))
			return false;
		j2date(julian, &tm->tm_year, &tm->tm_mon, &tm->tm_mday);
		if (tm2timestamp(tm, fsec, NULL, &t) != 0)
			return false;
	}
	if (pg_add_s64_overflow(t, time, &t) || !IS_VALID_TIMESTAMP(t))
		return false;
	*result = t;
	return true;
}

/*
 * wj_shift_apply
 *		*result = base shifted, as the operator computes it; false (and no
 *		error) when the operator would raise an out-of-range error.
 */
bool
wj_shift_apply(const WjShift *shift, Datum base, Datum *result)
{
	switch (shift->funcid)
	{
		case F_TIMESTAMP_PL_INTERVAL:
		case F_TIMESTAMP_MI_INTERVAL:
		case F_TIMESTAMPTZ_PL_INTERVAL:
		case F_TIMESTAMPTZ_MI_INTERVAL:
			{
				Interval   *span = DatumGetIntervalP(shift->amount);
				bool		minus = (shift->funcid == F_TIMESTAMP_MI_INTERVAL ||
									 shift->funcid == F_TIMESTAMPTZ_MI_INTERVAL);
				Timestamp	r;

				if (!wj_shift_timestamp(DatumGetTimestamp(base),
										minus ? -span->day : span->day,
										minus ? -span->time : span->time, &r))
					return false;
				*result = TimestampGetDatum(r);
				return true;
			}
		case F_INT4PL:
		case F_INT4MI:
			{
				int32		r;
				bool		overflow;

				if (shift->funcid == F_INT4PL)
					overflow = pg_add_s32_overflow(DatumGetInt32(base),
												   DatumGetInt32(shift->amount), &r);
				else
					overflow = pg_sub_s32_overflow(DatumGetInt32(base),
												   DatumGetInt32(shift->amount), &r);
				if (overflow)
					return false;
				*result = Int32GetDatum(r);
				return true;
			}
		case F_INT8PL:
		case F_INT8MI:
		case F_INT84PL:
		case F_INT84MI:
			{
				int64		amount;
				int64		r;
				bool		overflow;

				amount = (shift->funcid == F_INT8PL || shift->funcid == F_INT8MI) ?
					DatumGetInt64(shift->amount) :
					(int64) DatumGetInt32(shift->amount);
				if (shift->funcid == F_INT8PL || shift->funcid == F_INT84PL)
					overflow = pg_add_s64_overflow(DatumGetInt64(base), amount, &r);
				else
					overflow = pg_sub_s64_overflow(DatumGetInt64(base), amount, &r);
				if (overflow)
					return false;
				*result = Int64GetDatum(r);
				return true;
			}
	}
	elog(ERROR, "unrecognized shift function %u", shift->funcid);
	return false;				/* keep compiler quiet */
}
