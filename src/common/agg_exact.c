/*-------------------------------------------------------------------------
 *
 * agg_exact.c
 *	  Does an aggregate combine exactly from partial states?
 *
 * Pane aggregation (WindowExpand, src/nodes/window_expand/) and the
 * continuous views' panes (src/continuous/cv_panes.c) aggregate the rows
 * of each pane once and combine the panes' partial states into windows.
 * That changes the order and grouping of the additions, which is harmless
 * for integer and numeric arithmetic, counts, min/max and bool/bit
 * aggregates, but changes the last digits of floating-point sums (sum,
 * avg, stddev, variance, regr_* of float4/float8 keep float states).  So
 * an aggregate combines exactly when it is built in (a user-defined combine
 * function's exactness is unknown), has a combine function, and keeps no
 * floating-point state unless its combine function merely picks one of the
 * two states (min, max).  Both callers ask this file, so the two can never
 * disagree on what is exact.
 *
 * src/common/agg_exact.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/transam.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_type.h"
#include "utils/fmgroids.h"
#include "utils/syscache.h"

#include "src/common/agg_exact.h"

/*
 * builtin_aggregate
 *		The pg_aggregate row of a built-in aggregate (the answers below hold
 *		for PostgreSQL's own only), or NULL; the caller releases it.
 */
static HeapTuple
builtin_aggregate(Oid aggfnoid)
{
	HeapTuple	tup;

	if (aggfnoid >= FirstNormalObjectId)
		return NULL;
	tup = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(aggfnoid));
	return HeapTupleIsValid(tup) ? tup : NULL;
}

/*
 * wj_agg_combines_exactly
 *		Does combining partial states of aggregate aggfnoid give exactly
 *		what aggregating the rows one after the other gives (the file
 *		header)?
 */
bool
wj_agg_combines_exactly(Oid aggfnoid)
{
	HeapTuple	tup = builtin_aggregate(aggfnoid);
	Form_pg_aggregate agg;
	bool		exact;

	if (tup == NULL)
		return false;
	agg = (Form_pg_aggregate) GETSTRUCT(tup);
	switch (agg->aggtranstype)
	{
		case FLOAT4OID:
		case FLOAT8OID:
		case FLOAT4ARRAYOID:
		case FLOAT8ARRAYOID:
			switch (agg->aggcombinefn)
			{
				case F_FLOAT4LARGER:
				case F_FLOAT4SMALLER:
				case F_FLOAT8LARGER:
				case F_FLOAT8SMALLER:
					exact = true;
					break;
				default:
					exact = false;
					break;
			}
			break;
		default:
			exact = OidIsValid(agg->aggcombinefn);
			break;
	}
	ReleaseSysCache(tup);
	return exact;
}

/*
 * wj_agg_picks_one
 *		Is aggfnoid a built-in aggregate whose result is one of its inputs,
 *		chosen by a sort operator (min, max, and bool_and, bool_or, every):
 *		the ones PostgreSQL's planner knows by their aggsortop
 *		(planagg.c), combined by picking one of two states.
 */
bool
wj_agg_picks_one(Oid aggfnoid)
{
	HeapTuple	tup = builtin_aggregate(aggfnoid);
	bool		picks;

	if (tup == NULL)
		return false;
	picks = OidIsValid(((Form_pg_aggregate) GETSTRUCT(tup))->aggsortop);
	ReleaseSysCache(tup);
	return picks;
}
