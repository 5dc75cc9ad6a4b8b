/*-------------------------------------------------------------------------
 *
 * asof_sweep.c
 *	  The sweep strategy of the AsOfJoin custom scan (see asof_exec.c for
 *	  the node and its other strategies).
 *
 * Both children arrive sorted by time alone (descending when looking
 * forward), the inner one also by its output columns as tie breakers.
 * Before each outer row (time t) every version with time <= t (>= t
 * forward; strict for < and >) is read and becomes the current version of
 * its key in a TupleHashTable; then the outer keys are looked up.  The
 * state is one version per key seen so far.  Among versions tied on (keys,
 * time) the last one read wins.  Outer rows whose shifted time is out of
 * range are set aside and answered at the end (asof_next_deferred).
 *
 * src/asof_sweep.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/executor.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#include "asof_exec_internal.h"

/*
 * asof_hash_put
 *		Make the inner row the current version of its key.
 */
void
asof_hash_put(AsOfJoinState *s, TupleTableSlot *inner)
{
	Datum	   *keys = s->ikeys;
	TupleHashEntry entry;
	MemoryContext oldcxt;
	MinimalTuple old;
	MinimalTuple copy;
	bool		isnew;
	bool		isnull;
	int			i;

	for (i = 0; i < s->nkeys; i++)
		keys[i] = slot_getattr(inner, s->inner_key_attno[i], &isnull);
	entry = LookupTupleHashEntry(s->hashtable, asof_key_slot(s, keys),
								 &isnew, NULL);

	oldcxt = MemoryContextSwitchTo(s->hashcxt);
	copy = ExecCopySlotMinimalTuple(inner);
	MemoryContextSwitchTo(oldcxt);

	old = isnew ? NULL : (MinimalTuple) entry->additional;
	if (old != NULL)
	{
		wj_state_remove(&s->stats, old->t_len);
		pfree(old);
	}
	entry->additional = copy;
	wj_state_add(&s->stats, copy->t_len);
}

/*
 * asof_hashed
 *		Time-ordered sweep: take every version up to the outer time (from
 *		it on, looking forward) into the table, then look up the outer keys.
 */
TupleTableSlot *
asof_hashed(AsOfJoinState *s)
{
	TupleHashEntry entry;

	ExecClearTuple(s->match_slot);
	for (;;)
	{
		int			tc;

		if (asof_peek_inner(s) == NULL)
			break;
		/* rows with a NULL time come last: they wait for asof_drain */
		if (s->has_shift && asof_inner_time_null(s, s->next))
			break;
		tc = asof_compare_time(s, s->next);
		/* backward: version <= (<) outer; forward: version >= (>) outer */
		if (s->forward)
			tc = -tc;
		if (s->strict ? tc <= 0 : tc < 0)
			break;
		asof_hash_put(s, s->next);
		asof_fetch_inner(s);
	}

	entry = LookupTupleHashEntry(s->hashtable, asof_key_slot(s, s->okeys),
								 NULL, NULL);
	if (entry == NULL)
		return NULL;
	return ExecStoreMinimalTuple((MinimalTuple) entry->additional,
								 s->match_slot, false);
}

/*
 * asof_next_deferred
 *		Sweep: the outer rows set aside because their shifted time is out of
 *		range, once the outer side is exhausted.  First every remaining
 *		inner row is read into the table, which then holds every key that
 *		has a version; a set-aside row whose key is there raises the error
 *		PostgreSQL's plan raises, the others match nothing.
 */
TupleTableSlot *
asof_next_deferred(AsOfJoinState *s)
{
	ExprContext *econtext = s->css.ss.ps.ps_ExprContext;
	TupleTableSlot *slot = s->deferred_slot;
	TupleTableSlot *scan;
	int			i;

	if (!s->drained)
	{
		for (;;)
		{
			CHECK_FOR_INTERRUPTS();
			if (asof_peek_inner(s) == NULL)
				break;
			ResetExprContext(econtext);
			asof_hash_put(s, s->next);
			asof_fetch_inner(s);
		}
		s->drained = true;
	}
	if (!tuplestore_gettupleslot(s->deferred, true, false, slot))
		return NULL;
	slot_getallattrs(slot);
	scan = asof_form_values(s, slot->tts_values, slot->tts_isnull);
	econtext->ecxt_scantuple = scan;
	for (i = 0; i < s->nkeys; i++)
	{
		bool		isnull;

		s->okeys[i] = ExecEvalExprSwitchContext(s->outer_key[i], econtext,
												&isnull);
	}
	if (LookupTupleHashEntry(s->hashtable, asof_key_slot(s, s->okeys),
							 NULL, NULL) != NULL)
		asof_raise_time(s, econtext);
	return scan;
}
