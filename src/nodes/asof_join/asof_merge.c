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
 * its outer rows sorted by (keys, time) by asof_sort_outer.
 *
 * For a shifted outer time out of range, asof_merge_key_seen and
 * asof_nearest_key_seen tell whether the outer keys have any version,
 * which decides whether PostgreSQL's plan would raise the error.
 *
 * The state (AsOfMergeState) is the current version, or the nearest
 * direction's versions around the outer time.  asof_merge_next takes the
 * outer rows one by one (asof_outer_next, asof_exec.c) and calls these;
 * the file header of asof_exec.c describes every strategy.  The lookup
 * strategy's fallback in the nearest direction is a merge of its own
 * (asof_merge_begin_sorted, asof_merge.h) over the outer rows the lookup
 * sorted.
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

#include "src/common/state_stats.h"
#include "src/nodes/asof_join/asof.h"
#include "src/nodes/asof_join/asof_exec_internal.h"
#include "src/nodes/asof_join/asof_merge.h"

/* The versions the nearest merge keeps (near_slot[]) */
#define ASOF_NEAR_PREV	0		/* latest of the key at or before the time */
#define ASOF_NEAR_AHEAD 1		/* the next one read, not yet passed */
#define ASOF_NEAR_NULL	2		/* the key's last version with a NULL time */
#define ASOF_NEAR_FIRST 3		/* the key's earliest version read */

/* The merge strategy's state */
typedef struct AsOfMergeState
{
	AsOfOuterSort *sorted;		/* the lookup's sort of the outer rows, or
								 * NULL: the outer child */
	TupleTableSlot *best_slot;	/* the current version (a copy) */
	bool		have_best;
	int64		best_read;		/* forward: best_slot copies the inner row
								 * of this read (inner_reads), or -1 */
	int64		best_bytes;
	TupleTableSlot *seen_slot;	/* shifted time: a read row of the outer
								 * keys */
	bool		seen_valid;

	/* nearest direction (asof_nearest_merge) */
	AsOfCmp    *near_key_icmp;	/* inner key with inner key */
	TupleTableSlot *near_slot[4];	/* ASOF_NEAR_*: copies of versions */
	bool		near_have[4];
	int64		near_bytes[4];
} AsOfMergeState;

/* Make a copy of an inner row the current version */
static void
asof_keep(AsOfJoinState *s, AsOfMergeState *ms, TupleTableSlot *inner)
{
	int64		bytes;

	ExecCopySlot(ms->best_slot, inner);
	bytes = ((MinimalTupleTableSlot *) ms->best_slot)->mintuple->t_len;
	if (ms->have_best)
		wj_state_remove(&s->stats, ms->best_bytes);
	wj_state_add(&s->stats, bytes);
	ms->best_bytes = bytes;
	ms->have_best = true;
}

/* Forget the current version */
static void
asof_forget(AsOfJoinState *s, AsOfMergeState *ms)
{
	if (ms->have_best)
	{
		wj_state_remove(&s->stats, ms->best_bytes);
		ExecClearTuple(ms->best_slot);
	}
	ms->have_best = false;
	ms->best_read = -1;
	ms->best_bytes = 0;
}

/*
 * asof_note_seen
 *		Merge with a shifted time: remember that an inner row of the current
 *		outer keys was read (it may be consumed before an outer row whose
 *		shifted time is out of range needs to know that it existed).
 */
static void
asof_note_seen(AsOfJoinState *s, AsOfMergeState *ms, TupleTableSlot *inner)
{
	if (!s->has_shift)
		return;
	if (ms->seen_valid && asof_compare_keys(s, ms->seen_slot) == 0)
		return;
	ExecCopySlot(ms->seen_slot, inner);
	ms->seen_valid = true;
}

/*
 * asof_backward
 *		The latest version with the outer keys and time <= (<) outer time.
 */
static TupleTableSlot *
asof_backward(AsOfJoinState *s, AsOfMergeState *ms)
{
	if (ms->have_best && asof_compare_keys(s, ms->best_slot) != 0)
		asof_forget(s, ms);

	for (;;)
	{
		int			c;

		if (asof_peek_inner(s) == NULL)
			break;
		c = asof_compare_keys(s, s->next);
		if (c < 0)
			break;				/* a later key: wait for the outer side */
		if (c == 0 && asof_inner_time_null(s, s->next))
			asof_note_seen(s, ms, s->next); /* never matches */
		else if (c == 0)
		{
			int			tc = asof_compare_time(s, s->next);

			if (s->strict ? tc <= 0 : tc < 0)
				break;			/* a later version: keep it for later */
			asof_keep(s, ms, s->next);
		}
		asof_fetch_inner(s);
	}
	return ms->have_best ? ms->best_slot : NULL;
}

/*
 * asof_forward
 *		The earliest version with the outer keys and time >= (>) outer time.
 */
static TupleTableSlot *
asof_forward(AsOfJoinState *s, AsOfMergeState *ms)
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
			asof_note_seen(s, ms, s->next); /* never matches */
		else if (c == 0)
		{
			tc = asof_compare_time(s, s->next);
			if (s->strict ? tc < 0 : tc <= 0)
			{
				/* the match; it may serve later outer rows too */
				if (ms->best_read != s->inner_reads)
				{
					asof_keep(s, ms, s->next);
					ms->best_read = s->inner_reads;
				}
				return ms->best_slot;
			}
			asof_note_seen(s, ms, s->next);
		}
		asof_fetch_inner(s);
		asof_forget(s, ms);
	}
}

/*
 * asof_merge_key_seen
 *		Merge: does the current outer row's key have some version (also one
 *		with a NULL time)?  Asked for an outer row whose shifted time is out
 *		of range; inner rows of earlier keys are passed, none of its own key
 *		is consumed.
 */
static bool
asof_merge_key_seen(AsOfJoinState *s, AsOfMergeState *ms)
{
	TupleTableSlot *next;
	int			c = -1;

	if (!s->forward && ms->have_best &&
		asof_compare_keys(s, ms->best_slot) != 0)
		asof_forget(s, ms);
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
			asof_forget(s, ms);
	}
	if (next != NULL && c == 0)
		return true;
	if (!s->forward && ms->have_best)
		return true;
	return ms->seen_valid && asof_compare_keys(s, ms->seen_slot) == 0;
}

/* Forget the version kept in near_slot[i] */
static void
asof_nearest_drop(AsOfJoinState *s, AsOfMergeState *ms, int i)
{
	if (ms->near_have[i])
	{
		wj_state_remove(&s->stats, ms->near_bytes[i]);
		ExecClearTuple(ms->near_slot[i]);
	}
	ms->near_have[i] = false;
	ms->near_bytes[i] = 0;
}

/* Keep a copy of an inner row in near_slot[i] */
static void
asof_nearest_set(AsOfJoinState *s, AsOfMergeState *ms, int i,
				 TupleTableSlot *inner)
{
	asof_nearest_drop(s, ms, i);
	ExecCopySlot(ms->near_slot[i], inner);
	ms->near_bytes[i] = ((MinimalTupleTableSlot *) ms->near_slot[i])->mintuple->t_len;
	ms->near_have[i] = true;
	wj_state_add(&s->stats, ms->near_bytes[i]);
}

/* Move the version kept in near_slot[from] to near_slot[to] */
static void
asof_nearest_move(AsOfJoinState *s, AsOfMergeState *ms, int from, int to)
{
	TupleTableSlot *tmp;

	asof_nearest_drop(s, ms, to);
	tmp = ms->near_slot[to];
	ms->near_slot[to] = ms->near_slot[from];
	ms->near_slot[from] = tmp;
	ms->near_have[to] = ms->near_have[from];
	ms->near_bytes[to] = ms->near_bytes[from];
	ms->near_have[from] = false;
	ms->near_bytes[from] = 0;
}

/*
 * asof_nearest_forget
 *		Forget every version the nearest merge keeps (rescan).
 */
static void
asof_nearest_forget(AsOfJoinState *s, AsOfMergeState *ms)
{
	int			i;

	if (s->near == NULL)
		return;
	for (i = 0; i < 4; i++)
		asof_nearest_drop(s, ms, i);
}

/* True if two inner rows have equal keys and time (NULL times equal) */
static bool
asof_nearest_same(AsOfJoinState *s, AsOfMergeState *ms, TupleTableSlot *a,
				  TupleTableSlot *b)
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
		if (asof_compare(&ms->near_key_icmp[i], da, db) != 0)
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
asof_nearest_read_group(AsOfJoinState *s, AsOfMergeState *ms)
{
	TupleTableSlot *inner = asof_peek_inner(s);

	if (inner == NULL)
		return false;
	asof_nearest_set(s, ms, ASOF_NEAR_AHEAD, inner);
	asof_fetch_inner(s);
	while ((inner = asof_peek_inner(s)) != NULL &&
		   asof_nearest_same(s, ms, ms->near_slot[ASOF_NEAR_AHEAD], inner))
	{
		asof_nearest_set(s, ms, ASOF_NEAR_AHEAD, inner);
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
asof_nearest_advance(AsOfJoinState *s, AsOfMergeState *ms, bool all)
{
	/* Forget the versions of other keys */
	if (ms->near_have[ASOF_NEAR_PREV] &&
		asof_compare_keys(s, ms->near_slot[ASOF_NEAR_PREV]) != 0)
		asof_nearest_drop(s, ms, ASOF_NEAR_PREV);
	if (ms->near_have[ASOF_NEAR_NULL] &&
		asof_compare_keys(s, ms->near_slot[ASOF_NEAR_NULL]) != 0)
		asof_nearest_drop(s, ms, ASOF_NEAR_NULL);
	if (ms->near_have[ASOF_NEAR_FIRST] &&
		asof_compare_keys(s, ms->near_slot[ASOF_NEAR_FIRST]) != 0)
		asof_nearest_drop(s, ms, ASOF_NEAR_FIRST);

	for (;;)
	{
		TupleTableSlot *ahead;
		int			c;

		if (!ms->near_have[ASOF_NEAR_AHEAD] && !asof_nearest_read_group(s, ms))
			return false;
		ahead = ms->near_slot[ASOF_NEAR_AHEAD];
		c = asof_compare_keys(s, ahead);
		if (c > 0)
		{
			asof_nearest_drop(s, ms, ASOF_NEAR_AHEAD);	/* an earlier key */
			continue;
		}
		if (c < 0)
			return false;		/* a later key: wait for the outer side */
		if (slot_attisnull(ahead, s->inner_time_attno))
			asof_nearest_move(s, ms, ASOF_NEAR_AHEAD, ASOF_NEAR_NULL);
		else if (!all && asof_compare_time(s, ahead) < 0)
			return true;		/* after the outer time: keep it ahead */
		else
		{
			if (!ms->near_have[ASOF_NEAR_FIRST])
				asof_nearest_set(s, ms, ASOF_NEAR_FIRST, ahead);
			asof_nearest_move(s, ms, ASOF_NEAR_AHEAD, ASOF_NEAR_PREV);
		}
	}
}

/*
 * asof_nearest_key_seen
 *		Merge: do the current outer keys have any version (also one with a
 *		NULL time)?  Asked for an outer row whose shifted time is out of
 *		range; reads every version of the keys.
 */
static bool
asof_nearest_key_seen(AsOfJoinState *s, AsOfMergeState *ms)
{
	(void) asof_nearest_advance(s, ms, true);
	return ms->near_have[ASOF_NEAR_PREV] || ms->near_have[ASOF_NEAR_NULL] ||
		ms->near_have[ASOF_NEAR_FIRST];
}

/*
 * asof_nearest_merge
 *		Merge (and the lookup's fallback): the version closest to the
 *		current outer row (s->okeys, none NULL; s->otime, NULL when
 *		s->near->time_null), NULL if none.  The tolerance bounds are computed
 *		only when the keys have a version, as PostgreSQL's plan does.
 */
static TupleTableSlot *
asof_nearest_merge(AsOfJoinState *s, AsOfMergeState *ms, ExprContext *econtext)
{
	bool		time_null = s->near->time_null;
	bool		next;
	int			which;
	bool		isnull;

	if (time_null && !s->near->keep_nulls)
		return NULL;
	next = asof_nearest_advance(s, ms, time_null);
	if (!ms->near_have[ASOF_NEAR_PREV] && !next)
	{
		/* no version with a time: its version with NULL time, if kept */
		return (s->near->keep_nulls && ms->near_have[ASOF_NEAR_NULL]) ?
			ms->near_slot[ASOF_NEAR_NULL] : NULL;
	}
	if (!time_null && s->ntol > 0 && !asof_nearest_bounds(s, econtext))
		return NULL;

	/* Every version at the same distance: the earliest */
	if (time_null || asof_nearest_infinite(s))
	{
		TupleTableSlot *first = ms->near_have[ASOF_NEAR_FIRST] ?
		ms->near_slot[ASOF_NEAR_FIRST] : next ?
		ms->near_slot[ASOF_NEAR_AHEAD] : NULL;

		if (first != NULL &&
			(time_null ||
			 asof_nearest_within(s, slot_getattr(first, s->inner_time_attno,
												 &isnull))))
			return first;
		if (ms->near_have[ASOF_NEAR_PREV] &&
			asof_nearest_within(s, slot_getattr(ms->near_slot[ASOF_NEAR_PREV],
												s->inner_time_attno, &isnull)))
			return ms->near_slot[ASOF_NEAR_PREV];
		return NULL;
	}

	which = asof_nearest_choose(s, ms->near_have[ASOF_NEAR_PREV],
								ms->near_have[ASOF_NEAR_PREV] ?
								slot_getattr(ms->near_slot[ASOF_NEAR_PREV],
											 s->inner_time_attno, &isnull) : 0,
								next,
								next ?
								slot_getattr(ms->near_slot[ASOF_NEAR_AHEAD],
											 s->inner_time_attno, &isnull) : 0,
								econtext);
	if (which == 0)
		return ms->near_slot[ASOF_NEAR_PREV];
	if (which == 1)
		return ms->near_slot[ASOF_NEAR_AHEAD];
	return NULL;
}

/*
 * asof_merge_next
 *		The next outer row (from the outer child, or from the lookup's sort
 *		of them), in the scan slot, with the version the merge finds in
 *		*values and *nulls, NULL if none.  Returns NULL when the outer rows
 *		are exhausted.
 *
 * A row whose shifted time is out of range raises its error only if its
 * keys have some version (which PostgreSQL's plan compares it with), which
 * the merge knows at once.
 */
static TupleTableSlot *
asof_merge_next(AsOfJoinState *s, void *state, Datum **values, bool **nulls)
{
	AsOfMergeState *ms = (AsOfMergeState *) state;
	ExprContext *econtext = s->css.ss.ps.ps_ExprContext;
	TupleTableSlot *scan;
	TupleTableSlot *match;
	AsOfOuterRow what;

	*values = NULL;
	*nulls = NULL;
	scan = asof_outer_next(s, ms->sorted, &what);
	if (scan == NULL || what == ASOF_OUTER_NULL_KEY)
		return scan;			/* the end, or a row that matches nothing */
	if (s->near != NULL)
	{
		if (what == ASOF_OUTER_TIME_OUT)
		{
			if (asof_nearest_key_seen(s, ms))
				asof_raise_time(s, econtext);
			return scan;
		}
		s->near->time_null = (what == ASOF_OUTER_NULL_TIME);
		match = asof_nearest_merge(s, ms, econtext);
	}
	else
	{
		if (what == ASOF_OUTER_TIME_OUT)
		{
			if (asof_merge_key_seen(s, ms))
				asof_raise_time(s, econtext);
			return scan;
		}
		if (what == ASOF_OUTER_NULL_TIME)
			return scan;
		match = s->forward ? asof_forward(s, ms) : asof_backward(s, ms);
	}
	if (match != NULL)
	{
		slot_getallattrs(match);
		*values = match->tts_values;
		*nulls = match->tts_isnull;
	}
	return scan;
}

/*
 * asof_merge_begin_sorted
 *		A merge's state, over the outer child's rows or the lookup's sort of
 *		them (sorted, NULL: the outer child): the copy of the current
 *		version, and in the nearest direction the versions around the outer
 *		time and the comparison of inner keys.
 */
void *
asof_merge_begin_sorted(AsOfJoinState *s, EState *estate,
						AsOfOuterSort *sorted)
{
	AsOfMergeState *ms = palloc0(sizeof(AsOfMergeState));
	TupleDesc	innerdesc = ExecGetResultType(s->inner_ps);
	int			i;

	ms->sorted = sorted;
	ms->best_slot = ExecInitExtraTupleSlot(estate, innerdesc,
										   &TTSOpsMinimalTuple);
	ms->best_read = -1;
	if (s->has_shift)
		ms->seen_slot = ExecInitExtraTupleSlot(estate, innerdesc,
											   &TTSOpsMinimalTuple);
	if (s->near != NULL)
	{
		ms->near_key_icmp = palloc0(sizeof(AsOfCmp) * Max(s->nkeys, 1));
		for (i = 0; i < s->nkeys; i++)
		{
			Oid			innertype = s->info.key_cmps[i].innertype;

			asof_init_cmp(&ms->near_key_icmp[i],
						  s->info.key_cmps[i].opfamily,
						  innertype, innertype,
						  s->info.key_cmps[i].collation);
		}
		for (i = 0; i < 4; i++)
			ms->near_slot[i] = ExecInitExtraTupleSlot(estate, innerdesc,
													  &TTSOpsMinimalTuple);
	}
	return ms;
}

/*
 * asof_merge_begin
 *		The merge strategy's state, over the outer child's rows.
 */
static void *
asof_merge_begin(AsOfJoinState *s, EState *estate)
{
	return asof_merge_begin_sorted(s, estate, NULL);
}

/*
 * asof_merge_rescan
 *		Start over: forget the versions kept.
 */
static bool
asof_merge_rescan(AsOfJoinState *s, void *state)
{
	AsOfMergeState *ms = (AsOfMergeState *) state;

	asof_forget(s, ms);
	asof_nearest_forget(s, ms);
	ms->seen_valid = false;
	if (ms->seen_slot != NULL)
		ExecClearTuple(ms->seen_slot);
	return true;
}

/*
 * asof_merge_end
 *		The end of the scan: the slots go with the executor's tuple table.
 */
static void
asof_merge_end(AsOfJoinState *s, void *state)
{
}

const AsOfStrategy asof_merge_strategy = {
	.label = "inputs sorted by keys and time",
	.begin = asof_merge_begin,
	.next = asof_merge_next,
	.rescan = asof_merge_rescan,
	.end = asof_merge_end,
};
