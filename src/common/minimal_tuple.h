/*-------------------------------------------------------------------------
 *
 * minimal_tuple.h
 *	  A slot's row written as a MinimalTuple straight into memory the
 *	  caller has reserved (a bucket's chunk, an exchange's chunk in shared
 *	  memory), without the palloc'd copy ExecFetchSlotMinimalTuple makes.
 *
 * src/common/minimal_tuple.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WJ_MINIMAL_TUPLE_H
#define WJ_MINIMAL_TUPLE_H

#include "access/htup_details.h"
#include "executor/tuptable.h"

/* How a slot's row will be written (wj_minimal_prepare) */
typedef struct WjMinimalForm
{
	const char *src;			/* an existing tuple's bytes to copy, or NULL */
	bool	   *nulls;			/* to form: the null flags */
	bool		hasnull;
	Size		hoff;			/* to form: header and null bitmap */
	Size		data_len;		/* to form: the columns' bytes */
	Size		len;			/* the MinimalTuple's t_len */
} WjMinimalForm;

extern Size wj_minimal_prepare(TupleTableSlot *slot, bool *nulls,
							   WjMinimalForm *form);
extern void wj_minimal_write(TupleTableSlot *slot, const WjMinimalForm *form,
							 MinimalTuple dest);

#endif							/* WJ_MINIMAL_TUPLE_H */
