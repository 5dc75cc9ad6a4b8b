/*-------------------------------------------------------------------------
 *
 * asof_exec_internal.h
 *	  Executor state of the AsOfJoin custom scan that every strategy
 *	  shares, the table of a strategy's callbacks, and the functions the
 *	  strategies share.
 *
 * The executor is split by strategy (see asof_exec.c for the algorithms),
 * each with a state of its own that its files alone know:
 *
 *	asof_exec.c		the node's callbacks (begin, exec, end, rescan, EXPLAIN,
 *					parallel), which run the strategy chosen at begin
 *					through its AsOfStrategy, and what the strategies share:
 *					the inner stream, comparisons, the scan tuple, the outer
 *					rows of the streamed strategies, the hash table of keys
 *	asof_merge.c	the merge strategy, backward, forward and nearest
 *					(AsOfMergeState; asof_merge.h for the lookup's fallback)
 *	asof_sweep.c	the sweep strategy and its batches on disk
 *					(AsOfSweepState; asof_sweep.h for the lookup's fallback)
 *	asof_lookup.c	the lookup strategy (versions hashed by key, binary
 *					search per outer row) and its run-time fallback to the
 *					sweep or, in the nearest direction, the merge
 *					(AsOfLookupState, asof_lookup.h)
 *	asof_lookup_probe.c	the lookup's answers: batches of outer rows
 *	asof_shared.c	the lookup strategy under a Gather: the versions loaded
 *					by one participant into shared memory, read there by all
 *	asof_key_index.c	the lookup's keys found by their images
 *	asof_nearest.c	what the nearest direction's merge and lookup share:
 *					its setup, tolerance window and the choice between the
 *					two neighbours of the outer time (AsOfNearest)
 *
 * Calls go one way: from the strategies' files into asof_exec.c and
 * asof_nearest.c; those reach a strategy only through its AsOfStrategy.
 * The lookup includes asof_merge.h and asof_sweep.h to make the state of
 * the strategy it falls back to; neither includes anything of the lookup.
 *
 * src/nodes/asof_join/asof_exec_internal.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef ASOF_EXEC_INTERNAL_H
#define ASOF_EXEC_INTERNAL_H

#include "nodes/execnodes.h"
#include "fmgr.h"
#include "nodes/extensible.h"
#include "utils/sortsupport.h"
#include "utils/tuplesort.h"

#include "src/nodes/asof_join/asof.h"
#include "src/common/exec_common.h"
#include "src/common/state_stats.h"
#include "src/common/time_shift.h"

/* A comparison of an outer value with an inner value */
typedef struct AsOfCmp
{
	bool		use_ssup;		/* same type: sort support comparator */
	SortSupportData ssup;
	FmgrInfo	flinfo;			/* cross-type: btree comparison proc */
	Oid			collation;
} AsOfCmp;

/*
 * The nearest direction (asof_nearest.c), which the merge and the lookup
 * handle: what both need besides their own state
 */
typedef struct AsOfNearest
{
	bool		keep_nulls;		/* NULL times take part (no tolerance) */
	bool		inner_first;	/* distance(inner, outer) */
	bool		time_null;		/* the current outer time is NULL */
	Oid			type;			/* the time type */
	bool	   *tol_upper;		/* per tolerance bound: an upper bound */
	Datum	   *bounds;			/* the current outer row's bounds */
	FmgrInfo	dist_flinfo;	/* btree_gist's distance function */
	SortSupportData dist_ssup;	/* orders its results */
} AsOfNearest;

/*
 * The current version (sweep) or every version (lookup) of each key, in a
 * TupleHashTable keyed by a tuple of the keys alone (asof_key_table_create).
 * The lookup's fallback sweeps in the lookup's table.
 */
typedef struct AsOfKeyTable
{
	TupleHashTable hashtable;
	MemoryContext metacxt;		/* the table itself, and hashcxt */
	MemoryContext hashcxt;		/* its entries and the version copies */
	TupleTableSlot *probe_slot; /* the keys alone, one column per key */
	TupleTableSlot *match_slot; /* a version out of the table */
	Datum	   *ikeys;			/* keys of the inner row being stored */
} AsOfKeyTable;

/*
 * Where a streamed strategy (merge, sweep) reads its outer rows: the outer
 * child, or -- the lookup's fallback -- the lookup's sort of them
 */
typedef struct AsOfOuterSort
{
	Tuplesortstate *sort;		/* NULL: the outer child */
	TupleTableSlot *slot;		/* a sorted row */
} AsOfOuterSort;

typedef struct AsOfJoinState AsOfJoinState;

/*
 * A strategy: its callbacks, chosen once at BeginCustomScan from the plan's
 * strategy.  Each gets the node and the state its begin returned (a
 * strategy the lookup falls back to has a state of its own, given to it by
 * the lookup).  Optional callbacks are NULL.
 *
 *	begin		make the strategy's state
 *	next		the next outer row, in the scan slot, with its version's
 *				columns in *values and *nulls (NULL: none); NULL at the end
 *	rescan		start over; false if the inner child's rows are kept (the
 *				node then neither restarts it nor empties its state figures)
 *	end			release what the state holds besides memory
 *	explain		EXPLAIN lines after "Strategy" (only with keys; optional)
 *	explain_state	after the peak state (optional)
 *	leave_share	a leader leaving its share of the outer rows to the
 *				workers: what it does instead of returning rows (optional)
 *	dsm_size, dsm_init, dsm_reinit, shutdown	under a Gather: the
 *				strategy's part of the DSM segment (before the node's
 *				per-worker figures) and the end of the parallel scan
 *				(optional)
 */
typedef struct AsOfStrategy
{
	const char *label;			/* EXPLAIN's "Strategy" */
	void	   *(*begin) (AsOfJoinState *s, EState *estate);
	TupleTableSlot *(*next) (AsOfJoinState *s, void *state, Datum **values,
							 bool **nulls);
	bool		(*rescan) (AsOfJoinState *s, void *state);
	void		(*end) (AsOfJoinState *s, void *state);
	void		(*explain) (AsOfJoinState *s, void *state, ExplainState *es);
	void		(*explain_state) (AsOfJoinState *s, void *state,
								  ExplainState *es);
	void		(*leave_share) (AsOfJoinState *s, void *state);
	Size		(*dsm_size) (void);
	void		(*dsm_init) (AsOfJoinState *s, void *state, void *coordinate,
							 bool worker);
	void		(*dsm_reinit) (AsOfJoinState *s, void *state);
	void		(*shutdown) (AsOfJoinState *s, void *state);
} AsOfStrategy;

/* The strategies: asof_merge.c, asof_sweep.c, asof_lookup.c */
extern const AsOfStrategy asof_merge_strategy;
extern const AsOfStrategy asof_sweep_strategy;
extern const AsOfStrategy asof_lookup_strategy;

struct AsOfJoinState
{
	CustomScanState css;

	AsOfPlanInfo info;			/* the plan's custom_private, decoded */
	PlanState  *outer_ps;
	PlanState  *inner_ps;
	JoinType	jointype;
	bool		forward;
	bool		strict;
	int			nouter;			/* columns of the outer child */
	int			ninner;			/* columns of the inner child */
	int			nkeys;
	int			ntol;

	const AsOfStrategy *strategy;	/* chosen at begin */
	void	   *sstate;			/* and its state */

	ExprState **outer_key;		/* per key */
	ExprState  *outer_time;
	ExprState **tol_bound;		/* per tolerance bound */
	bool	   *tol_strict;
	ExprState  *joinqual;		/* LEFT join's match conditions */

	AsOfCmp    *key_cmp;
	AsOfCmp		time_cmp;
	AsOfCmp    *tol_cmp;
	AttrNumber *inner_key_attno;
	AttrNumber	inner_time_attno;

	Datum	   *okeys;			/* current outer row's keys */
	Datum		otime;			/* and time */

	/*
	 * A shifted outer time (o.t + interval '1 hour', see time_shift.c) is
	 * computed from its base without an error; where it is out of range,
	 * the real expression is evaluated only if the outer keys have some
	 * version, as PostgreSQL's plan evaluates it only then.  The merge
	 * remembers an inner row of the current outer keys already read; the
	 * sweep sets such outer rows aside and answers them at the end.
	 */
	bool		has_shift;
	WjShift		shift;
	ExprState  *time_base;

	/* the inner stream (asof_peek_inner) */
	TupleTableSlot *next;		/* inner lookahead, NULL if none */
	bool		inner_done;		/* inner child exhausted */
	int64		inner_reads;	/* rows fetched so far */
	bool		keep_null_times;	/* a strategy keeps rows with a NULL
									 * time (the lookup, see
									 * asof_keep_null_time) */

	AsOfNearest *near;			/* the nearest direction, or NULL */

	WjStateStats stats;
	WjParallelInstr pinstr;		/* per-worker figures under a Gather */
	WjLeaderShare leader;		/* the leader's share under a Gather */
};

/* Compare an outer value with an inner one: <0, 0, >0 as outer is less */
static inline int
asof_compare(AsOfCmp *cmp, Datum outer, Datum inner)
{
	if (cmp->use_ssup)
		return cmp->ssup.comparator(outer, inner, &cmp->ssup);
	return DatumGetInt32(FunctionCall2Coll(&cmp->flinfo, cmp->collation,
										   outer, inner));
}

/* What asof_outer_next found in the outer row */
typedef enum AsOfOuterRow
{
	ASOF_OUTER_NULL_KEY,		/* a NULL key: matches nothing */
	ASOF_OUTER_TIME_OUT,		/* a shifted time out of range */
	ASOF_OUTER_NULL_TIME,		/* keys, a NULL time (s->otime unset) */
	ASOF_OUTER_READY			/* keys and time in s->okeys, s->otime */
} AsOfOuterRow;

/* asof_exec.c: comparisons, the inner stream, the scan tuple, outer rows */
extern void asof_init_cmp(AsOfCmp *cmp, Oid opfamily, Oid outertype,
						  Oid innertype, Oid collation);
extern void asof_fetch_inner(AsOfJoinState *s);
extern bool asof_inner_time_null(AsOfJoinState *s, TupleTableSlot *inner);
extern bool asof_inner_key_null(AsOfJoinState *s, TupleTableSlot *inner);
extern TupleTableSlot *asof_peek_inner(AsOfJoinState *s);
extern int	asof_compare_keys(AsOfJoinState *s, TupleTableSlot *inner);
extern int	asof_compare_time(AsOfJoinState *s, TupleTableSlot *inner);
extern TupleTableSlot *asof_form_values(AsOfJoinState *s, Datum *values,
										bool *isnull);
extern TupleTableSlot *asof_form(AsOfJoinState *s, TupleTableSlot *outer);
extern bool asof_outer_keys(AsOfJoinState *s, ExprContext *econtext);
extern TupleTableSlot *asof_outer_next(AsOfJoinState *s,
									   AsOfOuterSort *sorted,
									   AsOfOuterRow *what);
extern void asof_raise_time(AsOfJoinState *s, ExprContext *econtext);
extern AsOfKeyTable *asof_key_table_create(AsOfJoinState *s, EState *estate);
extern TupleTableSlot *asof_key_slot(AsOfJoinState *s, AsOfKeyTable *kt,
									 Datum *keys);
extern void asof_key_table_reset(AsOfJoinState *s, AsOfKeyTable *kt);

/* asof_nearest.c: the nearest direction */
extern void asof_nearest_begin(AsOfJoinState *s);
extern bool asof_nearest_bounds(AsOfJoinState *s, ExprContext *econtext);
extern bool asof_nearest_within(AsOfJoinState *s, Datum itime);
extern int	asof_nearest_choose(AsOfJoinState *s, bool have_prev, Datum tprev,
								bool have_next, Datum tnext,
								ExprContext *econtext);
extern bool asof_nearest_infinite(AsOfJoinState *s);

#endif							/* ASOF_EXEC_INTERNAL_H */
