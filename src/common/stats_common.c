/*-------------------------------------------------------------------------
 *
 * stats_common.c
 *	  Planner estimates from a time column's statistics, shared by the
 *	  join planners.
 *
 * The span of a time column is what turns "rows in a window" or "rows in
 * a time band" into a fraction of the input: rows x width / span.  It is
 * read from pg_statistic through examine_variable(), so it works for a
 * column of a base relation and for an expression with statistics alike:
 * the histogram's first and last bounds, widened by the most common values
 * (which ANALYZE leaves out of the histogram) when the caller asks, with
 * infinite timestamps skipped.  The window join asks; the interval join
 * reads the histogram's two end bounds alone, and an infinite bound makes
 * its span unknown (its costs were written that way, and the wider span
 * changes which side it picks as outer in some symmetric joins).
 * timestamp and timestamptz are int64 microseconds; integer "times"
 * (int2, int4, int8) are taken as they are.
 *
 * The pane aggregation asks another question of the same histogram: into
 * how many cells of a given width do the values fall?  Each of the
 * histogram's buckets holds about rows / nbuckets rows spread over its
 * range, so it contributes at most that many cells and at most its width
 * over the cell width, plus one; a few outliers far apart (which stretch
 * one bucket each) thus do not inflate the count the way the span would.
 *
 * The grouped aggregation also asks how many distinct values its keys take.
 * PostgreSQL's estimate_num_groups() gives an expression of a column the
 * column's distinct count; for the remainder of an integer by a constant c
 * (dev % 10, a user's way of bucketing) that can be far too many: there
 * are at most 2|c| - 1 remainders, which wj_stats_key_groups takes as the
 * bound of such a key.
 *
 * src/common/stats_common.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_statistic.h"
#include "catalog/pg_type.h"
#include "datatype/timestamp.h"
#include "nodes/nodeFuncs.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"
#include "utils/timestamp.h"

#include "src/common/stats_common.h"
#include "src/common/window_arith.h"

/*
 * stat_value_int64
 *		A statistics value of a time type as int64; false for a type we do
 *		not read or an infinite timestamp.
 */
static bool
stat_value_int64(Oid type, Datum d, int64 *result)
{
	if (wj_integer_value(type, d, result))
		return true;
	switch (type)
	{
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			*result = DatumGetTimestamp(d);
			return !TIMESTAMP_NOT_FINITE(*result);
		default:
			return false;
	}
}

/*
 * time_type_read
 *		Is type one whose statistics values stat_value_int64 reads?
 */
static bool
time_type_read(Oid type)
{
	return type == INT2OID || type == INT4OID || type == INT8OID ||
		type == TIMESTAMPOID || type == TIMESTAMPTZOID;
}

/*
 * wj_stats_time_span
 *		The span (last - first) of expr's values according to its
 *		statistics, or -1 when it has none (or not of a time type).
 *
 * With with_mcv, the histogram's range is widened by the most common
 * values and infinite values are skipped.  Without, only the histogram's
 * first and last bounds count, and an infinite one makes the span
 * unknown.
 */
double
wj_stats_time_span(PlannerInfo *root, Node *expr, bool with_mcv)
{
	VariableStatData vardata;
	AttStatsSlot sslot;
	int64		lo = PG_INT64_MAX;
	int64		hi = PG_INT64_MIN;
	bool		found = false;
	int			kinds[2] = {STATISTIC_KIND_HISTOGRAM, STATISTIC_KIND_MCV};

	examine_variable(root, expr, 0, &vardata);
	if (HeapTupleIsValid(vardata.statsTuple))
	{
		for (int k = 0; k < (with_mcv ? 2 : 1); k++)
		{
			if (!get_attstatsslot(&sslot, vardata.statsTuple, kinds[k],
								  InvalidOid, ATTSTATSSLOT_VALUES))
				continue;
			if (with_mcv)
			{
				for (int i = 0; i < sslot.nvalues; i++)
				{
					int64		v;

					if (!stat_value_int64(sslot.valuetype, sslot.values[i], &v))
						continue;
					lo = Min(lo, v);
					hi = Max(hi, v);
					found = true;
				}
			}
			else if (sslot.nvalues >= 2)
			{
				found =
					stat_value_int64(sslot.valuetype, sslot.values[0], &lo) &&
					stat_value_int64(sslot.valuetype,
									 sslot.values[sslot.nvalues - 1], &hi);
			}
			free_attstatsslot(&sslot);
		}
	}
	ReleaseVariableStats(vardata);
	if (!found)
		return -1;
	return (double) hi - (double) lo;
}

/*
 * time_cells
 *		Into how many cells of the given width (in the expression's units)
 *		the values of rows rows of expr fall, according to its histogram;
 *		-1 when it has none (or not of a time type).  Each bucket adds at
 *		most one cell per row it holds (a bucket with an infinite bound:
 *		one per row).  With once, a bucket adds the cells that start within
 *		it (the first bucket also the cell it starts in), so that a cell
 *		wider than a bucket counts once, not once per bucket it spans;
 *		cells are then counted from the origin 0, which moves the count by
 *		at most one.  Without, a bucket adds every cell it overlaps.
 */
static double
time_cells(PlannerInfo *root, Node *expr, double width, double rows, bool once)
{
	VariableStatData vardata;
	AttStatsSlot sslot;
	double		cells = -1;

	examine_variable(root, expr, 0, &vardata);
	if (HeapTupleIsValid(vardata.statsTuple) &&
		get_attstatsslot(&sslot, vardata.statsTuple, STATISTIC_KIND_HISTOGRAM,
						 InvalidOid, ATTSTATSSLOT_VALUES))
	{
		if (sslot.nvalues >= 2 && time_type_read(sslot.valuetype))
		{
			double		per_bucket = rows / (sslot.nvalues - 1);

			cells = 0;
			for (int i = 1; i < sslot.nvalues; i++)
			{
				int64		lo;
				int64		hi;
				double		n = per_bucket;

				if (stat_value_int64(sslot.valuetype, sslot.values[i - 1], &lo) &&
					stat_value_int64(sslot.valuetype, sslot.values[i], &hi))
					n = Min(n, once ?
							floor((double) hi / width) - floor((double) lo / width) +
							(i == 1 ? 1.0 : 0.0) :
							((double) hi - (double) lo) / width + 1.0);
				cells += n;
			}
			if (once)
				cells = Max(cells, 1.0);
		}
		free_attstatsslot(&sslot);
	}
	ReleaseVariableStats(vardata);
	return cells;
}

/*
 * wj_stats_time_cells
 *		The cells of the given width rows rows of expr overlap, bucket by
 *		bucket of its histogram (time_cells); -1 without one.  A cell that
 *		spans several buckets counts in each: the panes and partitions
 *		their callers cost are per bucket of rows.
 */
double
wj_stats_time_cells(PlannerInfo *root, Node *expr, double width, double rows)
{
	return time_cells(root, expr, width, rows, false);
}

/*
 * wj_stats_time_windows
 *		The distinct cells (windows) of the given width that rows rows of
 *		expr fall into, according to its histogram (time_cells); -1 without
 *		one.  A TumbleAgg's groups are windows times keys: an hour's window
 *		over a day of rows is 24 groups a key, where the overlap count of a
 *		100-bucket histogram says 124.
 */
double
wj_stats_time_windows(PlannerInfo *root, Node *expr, double width, double rows)
{
	return time_cells(root, expr, width, rows, true);
}

/*
 * mod_bound
 *		For the remainder of an integer by a constant c (int2, int4 or int8
 *		%), the most distinct values it can take, 2|c| - 1; 0 for any other
 *		expression.
 */
static double
mod_bound(Node *expr)
{
	OpExpr	   *op;
	int64		divisor;

	if (!IsA(expr, OpExpr))
		return 0;
	op = (OpExpr *) expr;
	if ((op->opfuncid != F_INT2MOD && op->opfuncid != F_INT4MOD &&
		 op->opfuncid != F_INT8MOD) || list_length(op->args) != 2 ||
		!wj_const_int64((Node *) lsecond(op->args), &divisor) || divisor == 0)
		return 0;
	return 2.0 * fabs((double) divisor) - 1.0;
}

/*
 * wj_stats_key_groups
 *		PostgreSQL's estimate of the distinct combinations of exprs among
 *		rows rows, at most the product of each key's own estimate with the
 *		remainders of an integer by a constant bounded (file header).
 */
double
wj_stats_key_groups(PlannerInfo *root, List *exprs, double rows)
{
	double		groups = estimate_num_groups(root, exprs, rows, NULL, NULL);
	double		bound = 1.0;
	bool		bounded = false;
	ListCell   *lc;

	foreach(lc, exprs)
	{
		Node	   *expr = (Node *) lfirst(lc);
		double		b = mod_bound(expr);

		if (b > 0)
			bounded = true;
		else
			b = estimate_num_groups(root, list_make1(expr), rows, NULL, NULL);
		bound *= b;
	}
	return bounded ? Min(groups, bound) : groups;
}
