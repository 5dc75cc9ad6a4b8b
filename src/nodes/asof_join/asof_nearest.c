/*-------------------------------------------------------------------------
 *
 * asof_nearest.c
 *	  The parts of the AsOfJoin nearest direction (ORDER BY version_time
 *	  <-> outer_time) that its merge (asof_merge.c) and its lookup
 *	  (asof_lookup_probe.c) share: the setup from the plan (AsOfNearest,
 *	  the node's s->near), the tolerance window, and the choice between
 *	  the two neighbours of the outer time by btree_gist's distance.  What
 *	  each keeps besides is in its own state.
 *
 * src/nodes/asof_join/asof_nearest.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/nbtree.h"
#include "access/tupdesc.h"
#include "catalog/pg_type.h"
#include "common/int.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "utils/date.h"
#include "utils/datum.h"
#include "utils/expandeddatum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/sortsupport.h"
#include "utils/timestamp.h"
#include "utils/tuplesort.h"

#include "src/common/state_stats.h"
#include "src/nodes/asof_join/asof.h"
#include "src/nodes/asof_join/asof_exec_internal.h"

/*
 * Nearest
 *
 * The closest version of the outer row's keys by btree_gist's distance
 * |version time - outer time|, which is monotone in the version time on
 * each side of the outer time (the planner accepts only such types): the
 * answer is one of the two neighbours of the outer time, the latest
 * version at or before it and the earliest one after it.  Each neighbour
 * must pass the tolerance bounds (the planner made sure that the window
 * holds the outer time, so the closest version in it is still a
 * neighbour); of the two left, the strictly closer one wins, the earlier
 * at equal distance.  Among versions of equal keys and time, the one whose
 * output row sorts last stands for them all, as in the other directions.
 *
 * merge: the inner child arrives sorted by (keys, time ascending with NULLs
 *	last, tie breakers), the outer one by (keys, time).  The state is the
 *	latest version behind the outer time (PREV) and the group read ahead
 *	(AHEAD, the next version not yet passed, kept as the last row of its
 *	equal (keys, time) group); for each outer row groups are read until one
 *	lies beyond it.
 *
 * lookup: the key's versions in time order (asof_lookup_put); a binary
 *	search counts the versions at or before the outer time, the next one
 *	(the last of its equal-time run) is the other neighbour.  If the
 *	versions exceed the memory limit, the outer rows are sorted by (keys,
 *	time) and merged instead (asof_sort_outer).
 *
 * Without tolerance, NULL times take part as in PostgreSQL's plan, where
 * the ORDER BY puts NULL distances last: an outer row with a NULL time gets
 * the latest version of its key (PostgreSQL's plan may return any of
 * them), and a version with a NULL time (the last such, NREC) is returned
 * only for a key without any other version.
 *
 * Distances are compared as PostgreSQL compares them: integer differences
 * when they are exactly what btree_gist's function returns, else by calling
 * that function and comparing its results with the ORDER BY's operator
 * (infinite timestamps are at the largest interval from everything, and
 * the function's errors, e.g. an integer out of range, are raised).
 */

/*
 * asof_nearest_begin
 *		BeginCustomScan's part for the nearest direction: the distance
 *		function and its ordering, and the bounds' sides (s->near).  The
 *		merge and the lookup add what they keep themselves.
 */
void
asof_nearest_begin(AsOfJoinState *s)
{
	AsOfPlanInfo *info = &s->info;
	AsOfNearest *near = palloc0(sizeof(AsOfNearest));
	int			i;

	fmgr_info(info->near_distfunc, &near->dist_flinfo);
	near->dist_ssup.ssup_cxt = CurrentMemoryContext;
	near->dist_ssup.ssup_collation = InvalidOid;
	near->dist_ssup.ssup_nulls_first = false;
	PrepareSortSupportFromOrderingOp(info->near_ltop, &near->dist_ssup);
	near->type = info->near_type;
	near->inner_first = info->near_inner_first;
	near->keep_nulls = info->near_keep_nulls;
	near->tol_upper = palloc0(sizeof(bool) * Max(s->ntol, 1));
	for (i = 0; i < s->ntol; i++)
		near->tol_upper[i] = info->tol_upper[i];
	near->bounds = palloc0(sizeof(Datum) * Max(s->ntol, 1));
	s->near = near;
}

/*
 * asof_nearest_bounds
 *		Evaluate the current outer row's tolerance bounds (in the scan slot
 *		of econtext).  False if one is NULL: then no version is in range.
 */
bool
asof_nearest_bounds(AsOfJoinState *s, ExprContext *econtext)
{
	bool		isnull;
	int			i;

	for (i = 0; i < s->ntol; i++)
	{
		s->near->bounds[i] = ExecEvalExprSwitchContext(s->tol_bound[i],
													  econtext, &isnull);
		if (isnull)
			return false;
	}
	return true;
}

/* True if a version time passes every tolerance bound */
bool
asof_nearest_within(AsOfJoinState *s, Datum itime)
{
	int			i;

	for (i = 0; i < s->ntol; i++)
	{
		/* < 0: the bound is below the version time */
		int			c = asof_compare(&s->tol_cmp[i], s->near->bounds[i], itime);

		if (s->near->tol_upper[i] ? (c < 0 || (c == 0 && s->tol_strict[i])) :
			(c > 0 || (c == 0 && s->tol_strict[i])))
			return false;
	}
	return true;
}

/*
 * asof_nearest_fast
 *		|version time - outer time| as an int64, when that is exactly what
 *		btree_gist's distance function returns (finite, no overflow); false
 *		when the function must be asked.
 */
static bool
asof_nearest_fast(AsOfJoinState *s, Datum x, int64 *d)
{
	int64		a;
	int64		b;
	int64		r;

	switch (s->near->type)
	{
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			a = DatumGetInt64(x);
			b = DatumGetInt64(s->otime);
			if (TIMESTAMP_NOT_FINITE(a) || TIMESTAMP_NOT_FINITE(b) ||
				pg_sub_s64_overflow(a, b, &r) || r == PG_INT64_MIN)
				return false;
			break;
		case INT8OID:
			a = DatumGetInt64(x);
			b = DatumGetInt64(s->otime);
			if (pg_sub_s64_overflow(a, b, &r) || r == PG_INT64_MIN)
				return false;
			break;
		case DATEOID:
			if (DATE_NOT_FINITE(DatumGetDateADT(x)) ||
				DATE_NOT_FINITE(DatumGetDateADT(s->otime)))
				return false;
			r = (int64) DatumGetDateADT(x) - (int64) DatumGetDateADT(s->otime);
			break;
		case INT4OID:
			r = (int64) DatumGetInt32(x) - (int64) DatumGetInt32(s->otime);
			if (r > PG_INT32_MAX || r <= PG_INT32_MIN)
				return false;
			break;
		case INT2OID:
			r = (int64) DatumGetInt16(x) - (int64) DatumGetInt16(s->otime);
			if (r > PG_INT16_MAX || r <= PG_INT16_MIN)
				return false;
			break;
		default:
			return false;
	}
	*d = (r < 0) ? -r : r;
	return true;
}

/* btree_gist's distance between a version time and the outer time */
static Datum
asof_nearest_dist(AsOfJoinState *s, Datum t)
{
	if (s->near->inner_first)
		return FunctionCall2Coll(&s->near->dist_flinfo, InvalidOid, t, s->otime);
	return FunctionCall2Coll(&s->near->dist_flinfo, InvalidOid, s->otime, t);
}

/* The same, computed in econtext's per-tuple memory */
static Datum
asof_nearest_dist_in(AsOfJoinState *s, Datum t, ExprContext *econtext)
{
	MemoryContext oldcxt = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
	Datum		d = asof_nearest_dist(s, t);

	MemoryContextSwitchTo(oldcxt);
	return d;
}

/*
 * asof_nearest_choose
 *		Of the neighbours (the one at or before the outer time, the one
 *		after it, each if present), drop those out of the tolerance bounds
 *		(evaluated already) and return which is closer: 0 the earlier one
 *		(also at equal distance), 1 the later one, -1 neither.
 */
int
asof_nearest_choose(AsOfJoinState *s, bool have_prev, Datum tprev,
					bool have_next, Datum tnext, ExprContext *econtext)
{
	MemoryContext oldcxt;
	int64		dp;
	int64		dn;
	int			c;

	if (s->ntol > 0)
	{
		if (have_prev && !asof_nearest_within(s, tprev))
			have_prev = false;
		if (have_next && !asof_nearest_within(s, tnext))
			have_next = false;
	}
	if (!have_prev || !have_next)
	{
		/* the function's errors (date infinity, overflow) as PostgreSQL's */
		if (have_prev && !asof_nearest_fast(s, tprev, &dp))
			(void) asof_nearest_dist_in(s, tprev, econtext);
		if (have_next && !asof_nearest_fast(s, tnext, &dn))
			(void) asof_nearest_dist_in(s, tnext, econtext);
		return have_prev ? 0 : have_next ? 1 : -1;
	}

	if (asof_nearest_fast(s, tprev, &dp) && asof_nearest_fast(s, tnext, &dn))
		return (dn < dp) ? 1 : 0;
	oldcxt = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
	c = ApplySortComparator(asof_nearest_dist(s, tnext), false,
							asof_nearest_dist(s, tprev), false,
							&s->near->dist_ssup);
	MemoryContextSwitchTo(oldcxt);
	return (c < 0) ? 1 : 0;
}

/*
 * asof_nearest_infinite
 *		True if the outer time is an infinite timestamp: btree_gist puts it
 *		at the same (largest) distance from every version.
 */
bool
asof_nearest_infinite(AsOfJoinState *s)
{
	return (s->near->type == TIMESTAMPOID || s->near->type == TIMESTAMPTZOID) &&
		TIMESTAMP_NOT_FINITE(DatumGetTimestamp(s->otime));
}
