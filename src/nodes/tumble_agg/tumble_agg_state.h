/*-------------------------------------------------------------------------
 *
 * tumble_agg_state.h
 *	  TumbleAgg's aggregate states (tumble_agg_state.c): one fixed-size
 *	  cell per aggregate and group, fed row by row, merged with another
 *	  cell (spilled or exchanged groups), written out and read back, and
 *	  finished into the aggregate's result.
 *
 * src/nodes/tumble_agg/tumble_agg_state.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TUMBLE_AGG_STATE_H
#define TUMBLE_AGG_STATE_H

#include "catalog/pg_type.h"
#include "lib/stringinfo.h"

#include "src/nodes/tumble_agg/tumble_agg.h"

/*
 * One aggregate's state in one group.  Which fields count depends on the
 * aggregate (tumble_agg_state.c); a zeroed cell is an empty one.
 */
typedef struct TaCell
{
	int64		n;				/* non-null inputs (count, avg's N) */
	int64		i;				/* integer sum, min or max */
	double		f;				/* float sum or Sx, min or max */
	double		fxx;			/* avg(float): Sxx */
	int128		big;			/* int8 sum, numeric sum at TA_NUMERIC_SCALE */
	int32		dscale;			/* numeric sum: largest display scale seen */
	bool		has_d;			/* d holds a value */
	Datum		d;				/* numeric: the part of the sum big cannot
								 * hold (NaN, infinities, many digits), or
								 * the min / max value */
} TaCell;

/*
 * An integer-like value (int2, int4, int8, oid, bool, date, timestamp,
 * timestamptz) as int64, and back: aggregate arguments and integer keys.
 */
static inline int64
ta_datum_int64(Oid typid, Datum d)
{
	switch (typid)
	{
		case INT2OID:
			return DatumGetInt16(d);
		case INT4OID:
		case DATEOID:
			return DatumGetInt32(d);
		case OIDOID:
			return (int64) DatumGetObjectId(d);
		case BOOLOID:
			return DatumGetBool(d) ? 1 : 0;
		default:
			return DatumGetInt64(d);
	}
}

static inline Datum
ta_int64_datum(Oid typid, int64 v)
{
	switch (typid)
	{
		case INT2OID:
			return Int16GetDatum((int16) v);
		case INT4OID:
		case DATEOID:
			return Int32GetDatum((int32) v);
		case OIDOID:
			return ObjectIdGetDatum((Oid) v);
		case BOOLOID:
			return BoolGetDatum(v != 0);
		default:
			return Int64GetDatum(v);
	}
}

/* Decimal digits after the point that a numeric sum keeps in big */
#define TA_NUMERIC_SCALE 8

/*
 * One input value, prepared for a cell: a numeric summand decoded to
 * 128 bits where it fits, a by-reference value copied (when a context is
 * given) so that it outlives the input row.
 */
typedef struct TaValue
{
	Datum		d;
	bool		isnull;
	bool		decoded;		/* v, dscale hold a numeric summand */
	int32		dscale;
	int128		v;
} TaValue;

extern void ta_value_prepare(TaValue *out, const TaAgg *agg, Datum value,
							 bool isnull, MemoryContext copycxt);
extern void ta_cell_add_value(TaCell *cell, const TaAgg *agg, const TaValue *value,
							  MemoryContext groupcxt);
extern void ta_cell_add(TaCell *cell, const TaAgg *agg, Datum value,
						bool isnull, MemoryContext groupcxt);
extern void ta_cell_merge(TaCell *cell, const TaCell *other, const TaAgg *agg,
						  MemoryContext groupcxt);
extern Datum ta_cell_final(const TaCell *cell, const TaAgg *agg, bool *isnull);
extern void ta_cells_write(const TaCell *cells, const TaAgg *aggs, int naggs,
						   StringInfo buf);
extern void ta_cells_read(TaCell *cells, const TaAgg *aggs, int naggs,
						  const char *data, Size len, MemoryContext groupcxt);
extern bool ta_agg_supported(Oid aggfnoid, bool star, TaAgg *agg);

#endif							/* TUMBLE_AGG_STATE_H */
