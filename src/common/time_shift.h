/*-------------------------------------------------------------------------
 *
 * time_shift.h
 *	  A time shifted by a constant (o.t + interval '1 hour', o.n - 5),
 *	  computed without raising an error when it leaves the type's range.
 *
 * src/common/time_shift.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TIME_SHIFT_H
#define TIME_SHIFT_H

#include "nodes/primnodes.h"

/* "base + constant" or "base - constant", recognised by wj_shift_match */
typedef struct WjShift
{
	Oid			funcid;			/* the operator's function */
	Datum		amount;			/* the constant (an Interval * or integer) */
} WjShift;

extern bool wj_shift_match(Expr *expr, Expr **base, WjShift *shift);
extern bool wj_shift_apply(const WjShift *shift, Datum base, Datum *result);

#endif							/* TIME_SHIFT_H */
