/*-------------------------------------------------------------------------
 *
 * minimal_tuple.c
 *	  A slot's row written as a MinimalTuple straight into memory the
 *	  caller has reserved.
 *
 * A node that keeps rows in chunks of its own (WindowJoin's buckets, the
 * parallel exchange's chunks in shared memory) needs each row as a
 * MinimalTuple at an address it chooses.  ExecFetchSlotMinimalTuple
 * forms or copies the row into memory of its own, which the node then
 * copies again and frees.  Here it is done in two steps, so that the
 * caller can reserve exactly the room the row takes in between:
 *
 *	1. wj_minimal_prepare: the row's length.  A slot holding a tuple (a
 *	   scan's buffer or heap tuple, a minimal tuple) is copied as it is,
 *	   as minimal_tuple_from_heap_tuple copies one; a virtual slot (a
 *	   projection) is formed, its size computed as heap_form_minimal_tuple
 *	   computes it.  A caller that sets some columns to null (nulls, not
 *	   the slot's own flags) always forms;
 *	2. wj_minimal_write: the copy, or heap_fill_tuple into the reserved
 *	   memory, as heap_form_minimal_tuple fills its own.
 *
 * src/common/minimal_tuple.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "executor/tuptable.h"

#include "src/common/minimal_tuple.h"

/*
 * wj_minimal_prepare
 *		How slot's row will be written, and its length as a MinimalTuple
 *		(form->len, also returned).  nulls: NULL for the slot's own null
 *		flags, or flags of the caller's (the row formed with them).
 */
Size
wj_minimal_prepare(TupleTableSlot *slot, bool *nulls, WjMinimalForm *form)
{
	TupleDesc	desc = slot->tts_tupleDescriptor;
	int			natts = desc->natts;
	int			i;

	form->src = NULL;
	if (nulls == NULL && TTS_IS_MINIMALTUPLE(slot))
	{
		bool		should_free;
		MinimalTuple tuple = ExecFetchSlotMinimalTuple(slot, &should_free);

		Assert(!should_free);
		form->src = (const char *) tuple;
		form->len = tuple->t_len;
		return form->len;
	}
	if (nulls == NULL && (TTS_IS_BUFFERTUPLE(slot) || TTS_IS_HEAPTUPLE(slot)))
	{
		HeapTuple	tuple = ExecFetchSlotHeapTuple(slot, false, NULL);

		Assert(tuple->t_len > MINIMAL_TUPLE_OFFSET);
		form->src = (const char *) tuple->t_data + MINIMAL_TUPLE_OFFSET;
		form->len = tuple->t_len - MINIMAL_TUPLE_OFFSET;
		return form->len;
	}

	slot_getallattrs(slot);
	form->nulls = nulls != NULL ? nulls : slot->tts_isnull;
	form->hasnull = false;
	for (i = 0; i < natts; i++)
		form->hasnull |= form->nulls[i];
	form->hoff = MAXALIGN(SizeofMinimalTupleHeader +
						  (form->hasnull ? BITMAPLEN(natts) : 0));
	form->data_len = heap_compute_data_size(desc, slot->tts_values,
											form->nulls);
	form->len = form->hoff + form->data_len;
	return form->len;
}

/*
 * wj_minimal_write
 *		Write slot's row, as wj_minimal_prepare prepared it, at dest
 *		(form->len bytes, MAXALIGNed).
 */
void
wj_minimal_write(TupleTableSlot *slot, const WjMinimalForm *form,
				 MinimalTuple dest)
{
	/* heap_fill_tuple aligns by address */
	Assert((char *) dest == (char *) MAXALIGN(dest));
	if (form->src != NULL)
	{
		memcpy(dest, form->src, form->len);
		dest->t_len = (uint32) form->len;
		return;
	}
	memset(dest, 0, form->len);
	dest->t_len = (uint32) form->len;
	/* as HeapTupleHeaderSetNatts */
	dest->t_infomask2 = (uint16) slot->tts_tupleDescriptor->natts;
	dest->t_hoff = (uint8) (form->hoff + MINIMAL_TUPLE_OFFSET);
	heap_fill_tuple(slot->tts_tupleDescriptor, slot->tts_values, form->nulls,
					(char *) dest + form->hoff, form->data_len,
					&dest->t_infomask,
					form->hasnull ? dest->t_bits : NULL);
}
