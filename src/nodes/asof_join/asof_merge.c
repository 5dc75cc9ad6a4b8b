/*-------------------------------------------------------------------------
 *
 * asof_merge.c
 *	  The merge strategy of the AsOfJoin custom scan: both children sorted
 *	  by (keys, time), walked once side by side.
 *
 * Backward (asof_backward): for each outer row (keys K, time t), forget
 * the current version if its keys are not K, then consume inner rows while
 * their keys sort before K (discarded) or equal K with time <= t (each one
 * becomes the current version, a copy in best_slot).  Forward
 * (asof_forward): consume inner rows while their keys sort before K or
 * equal K with time < t; the next inner row of keys K is the match and
 * stays unconsumed for the following outer rows.  The state is the current
 * version: one row.
 *
 * Nearest (asof_nearest_merge): the latest version at or before the outer
 * time (PREV) and the group of equal (keys, time) read ahead (AHEAD) are
 * kept, and asof_nearest_choose (asof_nearest.c) picks the closer.  The
 * lookup strategy's fallback for the nearest direction also merges here,
 * its outer rows sorted by (keys, time) by asof_nearest_sort_outer.
 *
 * For a shifted outer time out of range, asof_merge_key_seen and
 * asof_nearest_key_seen tell whether the outer keys have any version,
 * which decides whether PostgreSQL's plan would raise the error.
 *
 * The outer row loop that calls these is asof_next_streamed (asof_join_exec.c);
 * the file header there describes every strategy.
 *
 * src/nodes/asof_join/asof_merge.c
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

#include "asof.h"
#include "asof_exec_internal.h"
#include "state_stats.h"
#include "windowjoin.h"

/* Make a copy of an inner row the current version */
static void
asof_keep(AsOfJoinState *s, TupleTableSlot *inner)
{
	int64		bytes;

	ExecCopySlot(s->best_slot, inner);
	bytes = ((MinimalTupleTableSlot *) s->best_slot)->mintuple->t_len;
	if (s->have_best)
		wj_state_remove(&s->stats, s->best_bytes);
	wj_state_add(&s->stats, bytes);
	s->best_bytes = bytes;
	s->have_best = true;
}

/* Forget the current version */
void
asof_forget(AsOfJoinState *s)
{
	if (s->have_best)
	{
		wj_state_remove(&s->stats, s->best_bytes);
		ExecClearTuple(s->best_slot);
	}
	s->have_best = false;
	s->best_is_next = false;
	s->best_bytes = 0;
}

/*
 * asof_note_seen
 *		Merge with a shifted time: remember that an inner row of the current
 *		outer keys was read (it may be consumed before an outer row whose
 *		shifted time is out of range needs to know that it existed).
 */
static void
asof_note_seen(AsOfJoinState *s, TupleTableSlot *inner)
{
	if (!s->has_shift)
		return;
	if (s->seen_valid && asof_compare_keys(s, s->seen_slot) == 0)
		return;
	ExecCopySlot(s->seen_slot, inner);
	s->seen_valid = true;
}

/*
 * asof_backward
 *		The latest version with the outer keys and time <= (<) outer time.
 */
TupleTableSlot *
asof_backward(AsOfJoinState *s)
{
	if (s->have_best && asof_compare_keys(s, s->best_slot) != 0)
		asof_forget(s);

	for (;;)
	{
		int			c;

		if (asof_peek_inner(s) == NULL)
			break;
		c = asof_compare_keys(s, s->next);
		if (c < 0)
			break;				/* a later key: wait for the outer side */
		if (c == 0 && asof_inner_time_null(s, s->next))
			asof_note_seen(s, s->next); /* never matches */
		else if (c == 0)
		{
			int			tc = asof_compare_time(s, s->next);

			if (s->strict ? tc <= 0 : tc < 0)
				break;			/* a later version: keep it for later */
			asof_keep(s, s->next);
		}
		asof_fetch_inner(s);
	}
	return s->have_best ? s->best_slot : NULL;
}

/*
 * asof_forward
 *		The earliest version with the outer keys and time >= (>) outer time.
 */
TupleTableSlot *
asof_forward(AsOfJoinState *s)
{
	for (;;)
	{
		int			c;
		int			tc;

		if (asof_peek_inner(s) == NULL)
			return NULL;
		c = asof_compare_keys(s, s->next);
		if (c < 0)
			return NULL;		/* no version of this key at or after */
		if (c == 0 && asof_inner_time_null(s, s->next))
			asof_note_seen(s, s->next); /* never matches */
		else if (c == 0)
		{
			tc = asof_compare_time(s, s->next);
			if (s->strict ? tc < 0 : tc <= 0)
			{
				/* the match; it may serve later outer rows too */
				if (!s->best_is_next)
				{
					asof_keep(s, s->next);
					s->best_is_next = true;
				}
				return s->best_slot;
			}
			asof_note_seen(s, s->next);
		}
		asof_fetch_inner(s);
		asof_forget(s);
	}
}

/*
 * asof_merge_key_seen
 *		Merge: does the current outer row's key have some version (also one
 *		with a NULL time)?  Asked for an outer row whose shifted time is out
 *		of range; inner rows of earlier keys are passed, none of its own key
 *		is consumed.
 */
bool
asof_merge_key_seen(AsOfJoinState *s)
{
	TupleTableSlot *next;
	int			c = -1;

	if (!s->forward && s->have_best &&
		asof_compare_keys(s, s->best_slot) != 0)
		asof_forget(s);
	for (;;)
	{
		next = asof_peek_inner(s);
		if (next == NULL)
			break;
		c = asof_compare_keys(s, next);
		if (c <= 0)
			break;
		/* an earlier key: no later outer row has it */
		asof_fetch_inner(s);
		if (s->forward)
			asof_forget(s);
	}
	if (next != NULL && c == 0)
		return true;
	if (!s->forward && s->have_best)
		return true;
	return s->seen_valid && asof_compare_keys(s, s->seen_slot) == 0;
}

/* Forget the version kept in near_slot[i] */
static void
asof_nearest_drop(AsOfJoinState *s, int i)
{
	if (s->near_have[i])
	{
		wj_state_remove(&s->stats, s->near_bytes[i]);
		ExecClearTuple(s->near_slot[i]);
	}
	s->near_have[i] = false;
	s->near_bytes[i] = 0;
}

/* Keep a copy of an inner row in near_slot[i] */
static void
asof_nearest_set(AsOfJoinState *s, int i, TupleTableSlot *inner)
{
	asof_nearest_drop(s, i);
	ExecCopySlot(s->near_slot[i], inner);
	s->near_bytes[i] = ((MinimalTupleTableSlot *) s->near_slot[i])->mintuple->t_len;
	s->near_have[i] = true;
	wj_state_add(&s->stats, s->near_bytes[i]);
}

/* Move the version kept in near_slot[from] to near_slot[to] */
static void
asof_nearest_move(AsOfJoinState *s, int from, int to)
{
	TupleTableSlot *tmp;

	asof_nearest_drop(s, to);
	tmp = s->near_slot[to];
	s->near_slot[to] = s->near_slot[from];
	s->near_slot[from] = tmp;
	s->near_have[to] = s->near_have[from];
	s->near_bytes[to] = s->near_bytes[from];
	s->near_have[from] = false;
	s->near_bytes[from] = 0;
}

/*
 * asof_nearest_forget
 *		Forget every version the nearest merge keeps (rescan).
 */
void
asof_nearest_forget(AsOfJoinState *s)
{
	int			i;

	if (!s->nearest)
		return;
	for (i = 0; i < 4; i++)
		asof_nearest_drop(s, i);
}

/* True if two inner rows have equal keys and time (NULL times equal) */
static bool
asof_nearest_same(AsOfJoinState *s, TupleTableSlot *a, TupleTableSlot *b)
{
	Datum		da;
	Datum		db;
	bool		na;
	bool		nb;
	int			i;

	for (i = 0; i < s->nkeys; i++)
	{
		da = slot_getattr(a, s->inner_key_attno[i], &na);
		db = slot_getattr(b, s->inner_key_attno[i], &nb);
		if (asof_compare(&s->near_key_icmp[i], da, db) != 0)
			return false;
	}
	da = slot_getattr(a, s->inner_time_attno, &na);
	db = slot_getattr(b, s->inner_time_attno, &nb);
	if (na || nb)
		return na && nb;
	return asof_compare(&s->time_cmp, da, db) == 0;
}

/*
 * asof_nearest_read_group
 *		Merge: read the next group of inner rows with equal keys and time
 *		into AHEAD, which keeps the last of them (the one whose output row
 *		sorts last).  False when the inner rows are exhausted.
 */
static bool
asof_nearest_read_group(AsOfJoinState *s)
{
	TupleTableSlot *inner = asof_peek_inner(s);

	if (inner == NULL)
		return false;
	asof_nearest_set(s, ASOF_NEAR_AHEAD, inner);
	asof_fetch_inner(s);
	while ((inner = asof_peek_inner(s)) != NULL &&
		   asof_nearest_same(s, s->near_slot[ASOF_NEAR_AHEAD], inner))
	{
		asof_nearest_set(s, ASOF_NEAR_AHEAD, inner);
		asof_fetch_inner(s);
	}
	return true;
}

/*
 * asof_nearest_advance
 *		Merge: read on for the current outer keys (s->okeys) until a version
 *		lies beyond the outer time (or, with all, until the keys' last
 *		version): PREV becomes the latest version at or before it, FIRST the
 *		keys' earliest one read, NULL the last with a NULL time.  Returns
 *		true if AHEAD holds the keys' next version after the outer time.
 */
static bool
asof_nearest_advance(AsOfJoinState *s, bool all)
{
	/* Forget the versions of other keys */
	if (s->near_have[ASOF_NEAR_PREV] &&
		asof_compare_keys(s, s->near_slot[ASOF_NEAR_PREV]) != 0)
		asof_nearest_drop(s, ASOF_NEAR_PREV);
	if (s->near_have[ASOF_NEAR_NULL] &&
		asof_compare_keys(s, s->near_slot[ASOF_NEAR_NULL]) != 0)
		asof_nearest_drop(s, ASOF_NEAR_NULL);
	if (s->near_have[ASOF_NEAR_FIRST] &&
		asof_compare_keys(s, s->near_slot[ASOF_NEAR_FIRST]) != 0)
		asof_nearest_drop(s, ASOF_NEAR_FIRST);

	for (;;)
	{
		TupleTableSlot *ahead;
		int			c;

		if (!s->near_have[ASOF_NEAR_AHEAD] && !asof_nearest_read_group(s))
			return false;
		ahead = s->near_slot[ASOF_NEAR_AHEAD];
		c = asof_compare_keys(s, ahead);
		if (c > 0)
		{
			asof_nearest_drop(s, ASOF_NEAR_AHEAD);	/* an earlier key */
			continue;
		}
		if (c < 0)
			return false;		/* a later key: wait for the outer side */
		if (slot_attisnull(ahead, s->inner_time_attno))
			asof_nearest_move(s, ASOF_NEAR_AHEAD, ASOF_NEAR_NULL);
		else if (!all && asof_compare_time(s, ahead) < 0)
			return true;		/* after the outer time: keep it ahead */
		else
		{
			if (!s->near_have[ASOF_NEAR_FIRST])
				asof_nearest_set(s, ASOF_NEAR_FIRST, ahead);
			asof_nearest_move(s, ASOF_NEAR_AHEAD, ASOF_NEAR_PREV);
		}
	}
}

/*
 * asof_nearest_key_seen
 *		Merge: do the current outer keys have any version (also one with a
 *		NULL time)?  Asked for an outer row whose shifted time is out of
 *		range; reads every version of the keys.
 */
bool
asof_nearest_key_seen(AsOfJoinState *s)
{
	(void) asof_nearest_advance(s, true);
	return s->near_have[ASOF_NEAR_PREV] || s->near_have[ASOF_NEAR_NULL] ||
		s->near_have[ASOF_NEAR_FIRST];
}

/*
 * asof_nearest_merge
 *		Merge (and the lookup's fallback): the version closest to the
 *		current outer row (s->okeys, none NULL; s->otime, NULL when
 *		s->near_time_null), NULL if none.  The tolerance bounds are computed
 *		only when the keys have a version, as PostgreSQL's plan does.
 */
TupleTableSlot *
asof_nearest_merge(AsOfJoinState *s, ExprContext *econtext)
{
	bool		time_null = s->near_time_null;
	bool		next;
	int			which;
	bool		isnull;

	if (time_null && !s->near_keep_nulls)
		return NULL;
	next = asof_nearest_advance(s, time_null);
	if (!s->near_have[ASOF_NEAR_PREV] && !next)
	{
		/* no version with a time: its version with NULL time, if kept */
		return (s->near_keep_nulls && s->near_have[ASOF_NEAR_NULL]) ?
			s->near_slot[ASOF_NEAR_NULL] : NULL;
	}
	if (!time_null && s->ntol > 0 && !asof_nearest_bounds(s, econtext))
		return NULL;

	/* Every version at the same distance: the earliest */
	if (time_null || asof_nearest_infinite(s))
	{
		TupleTableSlot *first = s->near_have[ASOF_NEAR_FIRST] ?
		s->near_slot[ASOF_NEAR_FIRST] : next ?
		s->near_slot[ASOF_NEAR_AHEAD] : NULL;

		if (first != NULL &&
			(time_null ||
			 asof_nearest_within(s, slot_getattr(first, s->inner_time_attno,
												 &isnull))))
			return first;
		if (s->near_have[ASOF_NEAR_PREV] &&
			asof_nearest_within(s, slot_getattr(s->near_slot[ASOF_NEAR_PREV],
												s->inner_time_attno, &isnull)))
			return s->near_slot[ASOF_NEAR_PREV];
		return NULL;
	}

	which = asof_nearest_choose(s, s->near_have[ASOF_NEAR_PREV],
								s->near_have[ASOF_NEAR_PREV] ?
								slot_getattr(s->near_slot[ASOF_NEAR_PREV],
											 s->inner_time_attno, &isnull) : 0,
								next,
								next ?
								slot_getattr(s->near_slot[ASOF_NEAR_AHEAD],
											 s->inner_time_attno, &isnull) : 0,
								econtext);
	if (which == 0)
		return s->near_slot[ASOF_NEAR_PREV];
	if (which == 1)
		return s->near_slot[ASOF_NEAR_AHEAD];
	return NULL;
}
