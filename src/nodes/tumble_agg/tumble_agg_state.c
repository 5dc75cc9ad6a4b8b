/*-------------------------------------------------------------------------
 *
 * tumble_agg_state.c
 *	  TumbleAgg's aggregate states: count, sum, avg, min and max of
 *	  integers, floats and numeric in fixed-size cells, giving exactly what
 *	  PostgreSQL's own aggregates give.
 *
 * Each cell (tumble_agg_state.h) is updated with the same arithmetic as
 * the aggregate's transition function:
 *
 *	count			n counts the non-null inputs (every row for count(*));
 *	sum, avg int2/4	i += x as int64, without an overflow check (int4_sum,
 *					int4_avg_accum); avg finishes with numeric_div(sum, n);
 *	sum, avg int8	big += x in 128 bits (int8_avg_accum);
 *	sum float4/8	f = float4_pl / float8_pl(f, x): the same additions in the
 *					same order, the same overflow error;
 *	avg float		N, Sx, Sxx as float8_accum keeps them (Youngs-Cramer),
 *					finished as float8_avg does (Sx / N);
 *	sum, avg numeric  a value with at most TA_NUMERIC_SCALE digits after
 *					the point and fewer than 28 before is added to big as an
 *					integer count of 10^-TA_NUMERIC_SCALE; anything else
 *					(NaN, infinities, long values, a sum leaving 128 bits)
 *					is added to d with numeric_add.  Addition of finite
 *					numerics is exact, and NaN and infinities propagate
 *					whatever the order, so the sum is the one
 *					PostgreSQL's accumulator gives, with its display scale
 *					(the largest of the inputs');
 *	min, max		compared as the aggregate's transition function compares
 *					(float8larger's NaN order, numeric_cmp); a tie keeps
 *					the newer value, as float8larger and numeric_larger
 *					do, so numeric 1.0 and 1.00 come out as PostgreSQL's.
 *
 * Merging two cells (groups spilled or exchanged between parallel
 * participants) uses the aggregates' combine arithmetic; like PostgreSQL's
 * own parallel aggregation, that can change the last bits of a float sum.
 *
 * The decoding of numeric's on-disk form follows its documented layout
 * (src/backend/utils/adt/numeric.c): a header word with sign, display
 * scale and, in the short form, weight; then base-10000 digits.
 *
 * src/nodes/tumble_agg/tumble_agg_state.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/float.h"
#include "utils/fmgroids.h"
#include "utils/fmgrprotos.h"
#include "utils/numeric.h"

#include "src/nodes/tumble_agg/tumble_agg_state.h"

/* numeric's on-disk header word */
#define TA_NUM_FLAGBITS		0xC000
#define TA_NUM_NEG			0x4000
#define TA_NUM_SHORT		0x8000
#define TA_NUM_SPECIAL		0xC000
#define TA_NUM_SHORT_SIGN	0x2000
#define TA_NUM_SHORT_DSCALE_MASK 0x1F80
#define TA_NUM_SHORT_DSCALE_SHIFT 7
#define TA_NUM_SHORT_WEIGHT_SIGN 0x0040
#define TA_NUM_SHORT_WEIGHT_MASK 0x003F
#define TA_NUM_DSCALE_MASK	0x3FFF

/* TA_NUMERIC_SCALE in base-10000 digits, and the largest power kept */
#define TA_NUM_FRAC_DIGITS	(TA_NUMERIC_SCALE / 4)
#define TA_NUM_MAX_POWER	8

/*
 * ta_numeric_decode
 *		A finite numeric as an integer count of 10^-TA_NUMERIC_SCALE, and
 *		its display scale; false if it is special or does not fit.
 */
static bool
ta_numeric_decode(Datum value, int128 *result, int *dscale)
{
	struct varlena *v = (struct varlena *) DatumGetPointer(value);
	const char *data;
	Size		len;
	uint16		header;
	int			weight;
	int			hdr;
	bool		neg;
	int128		acc = 0;
	static const int64 pow10000[TA_NUM_MAX_POWER + 1] = {
		1, 10000, INT64CONST(100000000), INT64CONST(1000000000000),
		INT64CONST(10000000000000000), 0, 0, 0, 0
	};

	if (VARATT_IS_EXTENDED(v))
		v = pg_detoast_datum_packed(v);
	data = VARDATA_ANY(v);
	len = VARSIZE_ANY_EXHDR(v);
	if (len < sizeof(uint16))
		return false;
	memcpy(&header, data, sizeof(uint16));
	if ((header & TA_NUM_FLAGBITS) == TA_NUM_SPECIAL)
		return false;
	if ((header & TA_NUM_FLAGBITS) == TA_NUM_SHORT)
	{
		neg = (header & TA_NUM_SHORT_SIGN) != 0;
		*dscale = (header & TA_NUM_SHORT_DSCALE_MASK) >> TA_NUM_SHORT_DSCALE_SHIFT;
		weight = ((header & TA_NUM_SHORT_WEIGHT_SIGN) ? ~TA_NUM_SHORT_WEIGHT_MASK : 0) |
			(header & TA_NUM_SHORT_WEIGHT_MASK);
		hdr = sizeof(uint16);
	}
	else
	{
		int16		w;

		if (len < 2 * sizeof(uint16))
			return false;
		neg = (header & TA_NUM_FLAGBITS) == TA_NUM_NEG;
		*dscale = header & TA_NUM_DSCALE_MASK;
		memcpy(&w, data + sizeof(uint16), sizeof(int16));
		weight = w;
		hdr = 2 * sizeof(uint16);
	}

	for (int i = 0; i < (int) ((len - hdr) / sizeof(int16)); i++)
	{
		int16		digit;
		int			power = weight - i + TA_NUM_FRAC_DIGITS;
		int128		scaled;

		memcpy(&digit, data + hdr + i * sizeof(int16), sizeof(int16));
		if (digit == 0)
			continue;
		if (power < 0 || power > TA_NUM_MAX_POWER)
			return false;
		/* 10000^power as two factors of at most 10000^4 */
		scaled = (int128) digit * pow10000[Min(power, 4)];
		if (power > 4)
			scaled *= pow10000[power - 4];
		acc += scaled;
	}
	*result = neg ? -acc : acc;
	return true;
}

/*
 * ta_int128_numeric
 *		The numeric value / 10^scale, shown with dscale digits after the
 *		point (the digits dropped, if dscale < scale, are zeros).
 */
static Datum
ta_int128_numeric(int128 value, int scale, int dscale)
{
	static const int64 pow10[] = {1, 10, 100, 1000, 10000, 100000, 1000000,
	10000000, 100000000};
	char		digits[64];
	char		str[128];
	uint128		u = value < 0 ? -(uint128) value : (uint128) value;
	int			n = 0;
	int			pos = 0;

	/* most sums fit in 64 bits at their display scale */
	if (dscale <= scale && scale <= 8)
	{
		int128		q;

		/* a 64-bit division where the value allows it (no __divti3) */
		if (value >= PG_INT64_MIN && value <= PG_INT64_MAX)
			q = (int64) value / pow10[scale - dscale];
		else
			q = value / pow10[scale - dscale];

		if (q >= PG_INT64_MIN && q <= PG_INT64_MAX)
			return NumericGetDatum(int64_div_fast_to_numeric((int64) q, dscale));
	}

	do
	{
		digits[n++] = '0' + (int) (u % 10);
		u /= 10;
	} while (u != 0);
	while (n <= scale)
		digits[n++] = '0';

	if (value < 0)
		str[pos++] = '-';
	for (int i = n - 1; i >= scale; i--)
		str[pos++] = digits[i];
	if (dscale > 0)
	{
		str[pos++] = '.';
		for (int i = 0; i < dscale; i++)
			str[pos++] = (i < scale) ? digits[scale - 1 - i] : '0';
	}
	str[pos] = '\0';
	return DirectFunctionCall3(numeric_in, CStringGetDatum(str),
							   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
}

/*
 * ta_numeric_add_extra
 *		d += value (a numeric Datum), in the group's context.
 */
static void
ta_numeric_add_extra(TaCell *cell, Datum value, MemoryContext groupcxt)
{
	MemoryContext old = MemoryContextSwitchTo(groupcxt);
	Datum		sum;

	if (cell->has_d)
	{
		sum = DirectFunctionCall2(numeric_add, cell->d, value);
		pfree(DatumGetPointer(cell->d));
	}
	else
		sum = datumCopy(value, false, -1);
	cell->d = sum;
	cell->has_d = true;
	MemoryContextSwitchTo(old);
}

/*
 * ta_numeric_sum
 *		The numeric sum a cell holds.
 */
static Datum
ta_numeric_sum(const TaCell *cell)
{
	Datum		sum = ta_int128_numeric(cell->big, TA_NUMERIC_SCALE, cell->dscale);

	if (cell->has_d)
		sum = DirectFunctionCall2(numeric_add, sum, cell->d);
	return sum;
}

/*
 * ta_float_cmp
 *		float8_cmp_internal's order: NaN equals NaN and is above the rest.
 */
static int
ta_float_cmp(double a, double b)
{
	if (isnan(a))
		return isnan(b) ? 0 : 1;
	if (isnan(b))
		return -1;
	return (a > b) - (a < b);
}

/* a float argument as double (float4 converts exactly) */
static double
ta_float_value(Oid typid, Datum value)
{
	return typid == FLOAT4OID ? (double) DatumGetFloat4(value) : DatumGetFloat8(value);
}

/*
 * ta_avg_float_accum
 *		float8_accum's update of (N, Sx, Sxx) with one value.
 */
static void
ta_avg_float_accum(TaCell *cell, double x)
{
	double		n0 = (double) cell->n;
	double		sx0 = cell->f;
	double		n = n0 + 1.0;
	double		sx = sx0 + x;
	double		sxx = cell->fxx;

	if (n0 > 0.0)
	{
		double		tmp = x * n - sx;

		sxx += tmp * tmp / (n * n0);
		if (isinf(sx) || isinf(sxx))
		{
			if (!isinf(sx0) && !isinf(x))
				float_overflow_error();
			sxx = get_float8_nan();
		}
	}
	else if (isnan(x) || isinf(x))
		sxx = get_float8_nan();
	cell->n++;
	cell->f = sx;
	cell->fxx = sxx;
}

/*
 * ta_minmax_numeric
 *		min / max of numeric: value replaces the kept one unless the kept
 *		one is smaller (min) or larger (max).
 */
static void
ta_minmax_numeric(TaCell *cell, Datum value, bool is_max, MemoryContext groupcxt)
{
	MemoryContext old;

	if (cell->has_d)
	{
		int			c = DatumGetInt32(DirectFunctionCall2(numeric_cmp, cell->d, value));

		if (is_max ? c > 0 : c < 0)
			return;
		pfree(DatumGetPointer(cell->d));
	}
	old = MemoryContextSwitchTo(groupcxt);
	cell->d = datumCopy(value, false, -1);
	MemoryContextSwitchTo(old);
	cell->has_d = true;
}

/*
 * ta_value_prepare
 *		Prepare one input value for ta_cell_add_value.  With copycxt, a
 *		by-reference value the cell may keep (a numeric that does not
 *		decode, a numeric min or max) is copied there.
 */
void
ta_value_prepare(TaValue *out, const TaAgg *agg, Datum value, bool isnull,
				 MemoryContext copycxt)
{
	out->isnull = isnull || agg->kind == TA_COUNT_STAR;
	out->decoded = false;
	out->d = value;
	if (out->isnull)
		return;
	switch (agg->kind)
	{
		case TA_SUM_NUMERIC:
		case TA_AVG_NUMERIC:
			{
				int			dscale;

				if (ta_numeric_decode(value, &out->v, &dscale))
				{
					out->decoded = true;
					out->dscale = dscale;
					return;
				}
			}
			/* FALLTHROUGH */
		case TA_MIN_NUMERIC:
		case TA_MAX_NUMERIC:
			if (copycxt != NULL)
			{
				MemoryContext old = MemoryContextSwitchTo(copycxt);

				out->d = datumCopy(value, false, -1);
				MemoryContextSwitchTo(old);
			}
			return;
		default:
			return;
	}
}

/*
 * ta_cell_add_value
 *		Feed one prepared input value to a cell.  NULL inputs are skipped,
 *		as by every strict transition function; count(*) counts the row.
 */
void
ta_cell_add_value(TaCell *cell, const TaAgg *agg, const TaValue *val,
				  MemoryContext groupcxt)
{
	Datum		value = val->d;

	if (agg->kind == TA_COUNT_STAR)
	{
		cell->n++;
		return;
	}
	if (val->isnull)
		return;

	switch (agg->kind)
	{
		case TA_COUNT_STAR:
		case TA_COUNT:
			break;
		case TA_SUM_INT:
		case TA_AVG_INT:
			cell->i += ta_datum_int64(agg->argtype, value);
			break;
		case TA_SUM_INT8:
		case TA_AVG_INT8:
			cell->big += DatumGetInt64(value);
			break;
		case TA_SUM_FLOAT4:
			cell->f = (cell->n == 0) ? DatumGetFloat4(value) :
				float4_pl((float4) cell->f, DatumGetFloat4(value));
			break;
		case TA_SUM_FLOAT8:
			cell->f = (cell->n == 0) ? DatumGetFloat8(value) :
				float8_pl(cell->f, DatumGetFloat8(value));
			break;
		case TA_AVG_FLOAT:
			ta_avg_float_accum(cell, ta_float_value(agg->argtype, value));
			return;				/* counted there */
		case TA_SUM_NUMERIC:
		case TA_AVG_NUMERIC:
			if (val->decoded)
			{
				int128		sum;

				cell->dscale = Max(cell->dscale, val->dscale);
				if (!__builtin_add_overflow(cell->big, val->v, &sum))
					cell->big = sum;
				else
					ta_numeric_add_extra(cell, ta_int128_numeric(val->v, TA_NUMERIC_SCALE,
																 val->dscale), groupcxt);
			}
			else
				ta_numeric_add_extra(cell, value, groupcxt);
			break;
		case TA_MIN_INT:
		case TA_MAX_INT:
			{
				int64		x = ta_datum_int64(agg->argtype, value);

				if (cell->n == 0 ||
					(agg->kind == TA_MIN_INT ? x < cell->i : x > cell->i))
					cell->i = x;
				break;
			}
		case TA_MIN_FLOAT:
		case TA_MAX_FLOAT:
			{
				double		x = ta_float_value(agg->argtype, value);

				if (cell->n == 0)
					cell->f = x;
				else
				{
					int			c = ta_float_cmp(cell->f, x);

					if (!(agg->kind == TA_MIN_FLOAT ? c < 0 : c > 0))
						cell->f = x;
				}
				break;
			}
		case TA_MIN_NUMERIC:
		case TA_MAX_NUMERIC:
			ta_minmax_numeric(cell, value, agg->kind == TA_MAX_NUMERIC, groupcxt);
			break;
	}
	cell->n++;
}

/*
 * ta_cell_add
 *		Feed one input value to a cell, straight from the input row.
 */
void
ta_cell_add(TaCell *cell, const TaAgg *agg, Datum value, bool isnull,
			MemoryContext groupcxt)
{
	TaValue		val;

	ta_value_prepare(&val, agg, value, isnull, NULL);
	ta_cell_add_value(cell, agg, &val, groupcxt);
}

/*
 * ta_cell_merge
 *		cell += other: the combine step of the aggregate.
 */
void
ta_cell_merge(TaCell *cell, const TaCell *other, const TaAgg *agg,
			  MemoryContext groupcxt)
{
	if (other->n == 0)
		return;
	if (cell->n == 0 && agg->kind != TA_SUM_NUMERIC &&
		agg->kind != TA_AVG_NUMERIC && agg->kind != TA_MIN_NUMERIC &&
		agg->kind != TA_MAX_NUMERIC)
	{
		*cell = *other;
		return;
	}

	switch (agg->kind)
	{
		case TA_SUM_INT:
		case TA_AVG_INT:
			cell->i += other->i;
			break;
		case TA_SUM_INT8:
		case TA_AVG_INT8:
			cell->big += other->big;
			break;
		case TA_SUM_FLOAT4:
			cell->f = float4_pl((float4) cell->f, (float4) other->f);
			break;
		case TA_SUM_FLOAT8:
			cell->f = float8_pl(cell->f, other->f);
			break;
		case TA_AVG_FLOAT:
			{
				/* float8_combine */
				double		n1 = (double) cell->n;
				double		n2 = (double) other->n;
				double		n = n1 + n2;
				double		tmp = cell->f / n1 - other->f / n2;
				double		sxx = cell->fxx + other->fxx + n1 * n2 * tmp * tmp / n;

				if (unlikely(isinf(sxx)) && !isinf(cell->fxx) && !isinf(other->fxx))
					float_overflow_error();
				cell->f = float8_pl(cell->f, other->f);
				cell->fxx = sxx;
				break;
			}
		case TA_SUM_NUMERIC:
		case TA_AVG_NUMERIC:
			{
				int128		sum;

				cell->dscale = Max(cell->dscale, other->dscale);
				if (!__builtin_add_overflow(cell->big, other->big, &sum))
					cell->big = sum;
				else
					ta_numeric_add_extra(cell, ta_int128_numeric(other->big, TA_NUMERIC_SCALE,
																 other->dscale), groupcxt);
				if (other->has_d)
					ta_numeric_add_extra(cell, other->d, groupcxt);
				break;
			}
		case TA_MIN_INT:
			cell->i = Min(cell->i, other->i);
			break;
		case TA_MAX_INT:
			cell->i = Max(cell->i, other->i);
			break;
		case TA_MIN_FLOAT:
			if (!(ta_float_cmp(cell->f, other->f) < 0))
				cell->f = other->f;
			break;
		case TA_MAX_FLOAT:
			if (!(ta_float_cmp(cell->f, other->f) > 0))
				cell->f = other->f;
			break;
		case TA_MIN_NUMERIC:
		case TA_MAX_NUMERIC:
			if (other->has_d)
				ta_minmax_numeric(cell, other->d, agg->kind == TA_MAX_NUMERIC, groupcxt);
			break;
		case TA_COUNT_STAR:
		case TA_COUNT:
			break;				/* the count alone, added below */
	}
	cell->n += other->n;
}

/*
 * ta_cell_final
 *		The aggregate's result.
 */
Datum
ta_cell_final(const TaCell *cell, const TaAgg *agg, bool *isnull)
{
	*isnull = false;
	if (agg->kind == TA_COUNT_STAR || agg->kind == TA_COUNT)
		return Int64GetDatum(cell->n);
	if (cell->n == 0)
	{
		*isnull = true;
		return (Datum) 0;
	}
	switch (agg->kind)
	{
		case TA_COUNT_STAR:
		case TA_COUNT:
			break;
		case TA_SUM_INT:
			return Int64GetDatum(cell->i);
		case TA_SUM_INT8:
			return ta_int128_numeric(cell->big, 0, 0);
		case TA_SUM_FLOAT4:
			return Float4GetDatum((float4) cell->f);
		case TA_SUM_FLOAT8:
			return Float8GetDatum(cell->f);
		case TA_SUM_NUMERIC:
			return ta_numeric_sum(cell);
		case TA_AVG_INT:
			return DirectFunctionCall2(numeric_div,
									   NumericGetDatum(int64_to_numeric(cell->i)),
									   NumericGetDatum(int64_to_numeric(cell->n)));
		case TA_AVG_INT8:
			return DirectFunctionCall2(numeric_div, ta_int128_numeric(cell->big, 0, 0),
									   NumericGetDatum(int64_to_numeric(cell->n)));
		case TA_AVG_FLOAT:
			return Float8GetDatum(cell->f / (double) cell->n);
		case TA_AVG_NUMERIC:
			return DirectFunctionCall2(numeric_div, ta_numeric_sum(cell),
									   NumericGetDatum(int64_to_numeric(cell->n)));
		case TA_MIN_INT:
		case TA_MAX_INT:
			return ta_int64_datum(agg->argtype, cell->i);
		case TA_MIN_FLOAT:
		case TA_MAX_FLOAT:
			return agg->argtype == FLOAT4OID ? Float4GetDatum((float4) cell->f) :
				Float8GetDatum(cell->f);
		case TA_MIN_NUMERIC:
		case TA_MAX_NUMERIC:
			return cell->d;
	}
	elog(ERROR, "unexpected TumbleAgg aggregate %d", (int) agg->kind);
	return (Datum) 0;
}

/*
 * ta_cells_write
 *		Append a group's cells to buf: each cell's bytes, then its numeric
 *		value if it has one.
 */
void
ta_cells_write(const TaCell *cells, const TaAgg *aggs, int naggs, StringInfo buf)
{
	for (int i = 0; i < naggs; i++)
	{
		appendBinaryStringInfo(buf, (const char *) &cells[i], sizeof(TaCell));
		if (cells[i].has_d)
		{
			struct varlena *v = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(cells[i].d));
			uint32		len = VARSIZE_ANY(v);

			appendBinaryStringInfo(buf, (const char *) &len, sizeof(len));
			appendBinaryStringInfo(buf, (const char *) v, len);
		}
	}
}

/*
 * ta_cells_read
 *		Read back what ta_cells_write wrote, numeric values copied into
 *		groupcxt.
 */
void
ta_cells_read(TaCell *cells, const TaAgg *aggs, int naggs, const char *data,
			  Size len, MemoryContext groupcxt)
{
	Size		pos = 0;

	for (int i = 0; i < naggs; i++)
	{
		if (pos + sizeof(TaCell) > len)
			elog(ERROR, "TumbleAgg: truncated group state");
		memcpy(&cells[i], data + pos, sizeof(TaCell));
		pos += sizeof(TaCell);
		if (cells[i].has_d)
		{
			uint32		vlen;
			char	   *copy;

			memcpy(&vlen, data + pos, sizeof(vlen));
			pos += sizeof(vlen);
			copy = MemoryContextAlloc(groupcxt, vlen);
			memcpy(copy, data + pos, vlen);
			pos += vlen;
			cells[i].d = PointerGetDatum(copy);
		}
	}
}

/*
 * ta_agg_supported
 *		Is the aggregate aggfnoid (star for count(*)) one the node computes?
 *		Fills *agg if so.  Aggregates are known by their OIDs, which are
 *		fixed for PostgreSQL's built-in ones, not by their names: the
 *		argument type the node reads each value as is the aggregate's own.
 */
bool
ta_agg_supported(Oid aggfnoid, bool star, TaAgg *agg)
{
	agg->argtype = InvalidOid;
	switch (aggfnoid)
	{
		case F_COUNT_:
			agg->kind = TA_COUNT_STAR;
			return star;
		case F_COUNT_ANY:
			agg->kind = TA_COUNT;
			agg->argtype = ANYOID;
			return !star;
		default:
			break;
	}
	if (star)
		return false;
	switch (aggfnoid)
	{
#define TA_AGG(fn, k, t) case fn: agg->kind = k; agg->argtype = t; return true
			TA_AGG(F_SUM_INT2, TA_SUM_INT, INT2OID);
			TA_AGG(F_SUM_INT4, TA_SUM_INT, INT4OID);
			TA_AGG(F_SUM_INT8, TA_SUM_INT8, INT8OID);
			TA_AGG(F_SUM_FLOAT4, TA_SUM_FLOAT4, FLOAT4OID);
			TA_AGG(F_SUM_FLOAT8, TA_SUM_FLOAT8, FLOAT8OID);
			TA_AGG(F_SUM_NUMERIC, TA_SUM_NUMERIC, NUMERICOID);
			TA_AGG(F_AVG_INT2, TA_AVG_INT, INT2OID);
			TA_AGG(F_AVG_INT4, TA_AVG_INT, INT4OID);
			TA_AGG(F_AVG_INT8, TA_AVG_INT8, INT8OID);
			TA_AGG(F_AVG_FLOAT4, TA_AVG_FLOAT, FLOAT4OID);
			TA_AGG(F_AVG_FLOAT8, TA_AVG_FLOAT, FLOAT8OID);
			TA_AGG(F_AVG_NUMERIC, TA_AVG_NUMERIC, NUMERICOID);
			TA_AGG(F_MIN_INT2, TA_MIN_INT, INT2OID);
			TA_AGG(F_MIN_INT4, TA_MIN_INT, INT4OID);
			TA_AGG(F_MIN_INT8, TA_MIN_INT, INT8OID);
			TA_AGG(F_MIN_DATE, TA_MIN_INT, DATEOID);
			TA_AGG(F_MIN_TIMESTAMP, TA_MIN_INT, TIMESTAMPOID);
			TA_AGG(F_MIN_TIMESTAMPTZ, TA_MIN_INT, TIMESTAMPTZOID);
			TA_AGG(F_MIN_FLOAT4, TA_MIN_FLOAT, FLOAT4OID);
			TA_AGG(F_MIN_FLOAT8, TA_MIN_FLOAT, FLOAT8OID);
			TA_AGG(F_MIN_NUMERIC, TA_MIN_NUMERIC, NUMERICOID);
			TA_AGG(F_MAX_INT2, TA_MAX_INT, INT2OID);
			TA_AGG(F_MAX_INT4, TA_MAX_INT, INT4OID);
			TA_AGG(F_MAX_INT8, TA_MAX_INT, INT8OID);
			TA_AGG(F_MAX_DATE, TA_MAX_INT, DATEOID);
			TA_AGG(F_MAX_TIMESTAMP, TA_MAX_INT, TIMESTAMPOID);
			TA_AGG(F_MAX_TIMESTAMPTZ, TA_MAX_INT, TIMESTAMPTZOID);
			TA_AGG(F_MAX_FLOAT4, TA_MAX_FLOAT, FLOAT4OID);
			TA_AGG(F_MAX_FLOAT8, TA_MAX_FLOAT, FLOAT8OID);
			TA_AGG(F_MAX_NUMERIC, TA_MAX_NUMERIC, NUMERICOID);
#undef TA_AGG
		default:
			return false;
	}
}
