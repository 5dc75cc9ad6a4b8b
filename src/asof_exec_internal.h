/*-------------------------------------------------------------------------
 *
 * asof_exec_internal.h
 *	  Executor state of the AsOfJoin custom scan, shared by the files of its
 *	  executor: asof_exec.c (setup, the merge and lookup strategies, EXPLAIN)
 *	  and asof_sweep.c (the sweep strategy).
 *
 * src/asof_exec_internal.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef ASOF_EXEC_INTERNAL_H
#define ASOF_EXEC_INTERNAL_H

#include "executor/tuptable.h"
#include "nodes/execnodes.h"
#include "utils/sortsupport.h"
#include "utils/tuplesort.h"
#include "utils/tuplestore.h"

#include "state_stats.h"
#include "time_shift.h"

/* A comparison of an outer value with an inner value */
typedef struct AsOfCmp
{
	bool		use_ssup;		/* same type: sort support comparator */
	SortSupportData ssup;
	FmgrInfo	flinfo;			/* cross-type: btree comparison proc */
	Oid			collation;
} AsOfCmp;

typedef struct AsOfJoinState
{
	CustomScanState css;

	PlanState  *outer_ps;
	PlanState  *inner_ps;
	JoinType	jointype;
	bool		forward;
	bool		strict;
	int			strategy;		/* ASOF_STRATEGY_* */
	bool		hashed;			/* keys in a hash table (sweep, lookup) */
	int			nouter;			/* columns of the outer child */
	int			ninner;			/* columns of the inner child */
	int			nkeys;
	int			ntol;

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
	TupleTableSlot *seen_slot;	/* merge: a read row of the outer keys */
	bool		seen_valid;
	Tuplestorestate *deferred;	/* sweep: outer rows set aside */
	TupleTableSlot *deferred_slot;
	bool		drained;		/* sweep: every inner row read */

	TupleTableSlot *next;		/* inner lookahead, NULL if none */
	bool		inner_done;		/* inner child exhausted */
	TupleTableSlot *best_slot;	/* the current version (a copy) */
	bool		have_best;
	bool		best_is_next;	/* forward: best_slot copies next */
	int64		best_bytes;

	/*
	 * sweep strategy: the current version of every key seen so far; lookup
	 * strategy: every version of every key (an AsOfVersions per key)
	 */
	TupleHashTable hashtable;
	MemoryContext metacxt;		/* the table itself, and hashcxt */
	MemoryContext hashcxt;		/* its entries and the version copies */
	TupleTableSlot *probe_slot; /* the keys alone, one column per key */
	TupleTableSlot *match_slot; /* a version out of the table */
	Datum	   *ikeys;			/* keys of the inner row being stored */

	/* lookup strategy */
	bool		loaded;			/* the versions are in the table */
	bool		fallback;		/* they did not fit: sweep instead */
	bool		fell_back;		/* that happened at least once (EXPLAIN) */
	size_t		mem_limit;		/* bytes the table may take */
	Size		rec_header;		/* Datums and nulls before a version's data */
	char	   *dense_ptr;		/* free space for versions in hashcxt */
	Size		dense_free;
	Size		dense_next;		/* size of the next block */
	bool		time_int64;		/* version times compared as int64 */
	Tuplesortstate *outer_sort; /* fallback: outer rows by time */
	TupleDesc	sort_desc;		/* outer columns plus the outer time */
	TupleTableSlot *sort_in_slot;
	TupleTableSlot *sort_out_slot;
	Oid			time_sortop;	/* orders outer times as the sweep needs */
	Oid			time_collation;
	struct AsOfProbe *probes;	/* the batch of outer rows being answered */
	Datum	   *batch_values;	/* copies of their columns, nouter each */
	bool	   *batch_isnull;
	int			batch_n;
	int			batch_pos;		/* next one to return */
	int			batch_size;		/* rows to read into the next batch */
	bool		outer_done;		/* outer child exhausted */
	ExprContext *batch_econtext;	/* their keys and times, per batch */

	WjStateStats stats;

	/* nearest direction (see asof_nearest_merge, asof_nearest_probe) */
	bool		nearest;
	bool		near_keep_nulls;	/* NULL times take part (no tolerance) */
	bool		near_inner_first;	/* distance(inner, outer) */
	bool		near_time_null;	/* the current outer time is NULL */
	Oid			near_type;		/* the time type */
	bool	   *tol_upper;		/* per tolerance bound: an upper bound */
	Datum	   *near_bounds;	/* the current outer row's bounds */
	FmgrInfo	dist_flinfo;	/* btree_gist's distance function */
	SortSupportData dist_ssup;	/* orders its results */
	AsOfCmp    *near_key_icmp;	/* inner key with inner key */
	TupleTableSlot *near_slot[4];	/* ASOF_NEAR_*: copies of versions */
	bool		near_have[4];
	int64		near_bytes[4];
	AttrNumber *near_sortattnos;	/* lookup's fallback: outer keys, time */
	Oid		   *near_sortops;
	Oid		   *near_sortcolls;
	bool	   *near_nullsfirst;
	WjParallelInstr pinstr;	/* per-worker figures under a Gather */

	/* sweep: keys in batches on disk (asof_sweep.c) */
	struct AsOfSpill *spill;
	bool		row_spilled;	/* the outer row went to a batch */
} AsOfJoinState;

/* asof_exec.c: helpers the strategies share */
extern void asof_fetch_inner(AsOfJoinState *s);
extern bool asof_inner_time_null(AsOfJoinState *s, TupleTableSlot *inner);
extern TupleTableSlot *asof_peek_inner(AsOfJoinState *s);
extern int	asof_compare_time(AsOfJoinState *s, TupleTableSlot *inner);
extern TupleTableSlot *asof_key_slot(AsOfJoinState *s, Datum *keys);
extern TupleTableSlot *asof_form_values(AsOfJoinState *s, Datum *values,
										bool *isnull);
extern void asof_raise_time(AsOfJoinState *s, ExprContext *econtext);
extern TupleTableSlot *asof_next_streamed(AsOfJoinState *s, Datum **values,
										  bool **nulls);

/* asof_sweep.c: the sweep strategy */
extern void asof_hash_put(AsOfJoinState *s, TupleTableSlot *inner);
extern TupleTableSlot *asof_hashed(AsOfJoinState *s);
extern TupleTableSlot *asof_next_deferred(AsOfJoinState *s);
extern TupleTableSlot *asof_sweep_next(AsOfJoinState *s, Datum **values,
									   bool **nulls);
extern void asof_sweep_reset(AsOfJoinState *s);
extern void asof_sweep_explain(AsOfJoinState *s, ExplainState *es);

#endif							/* ASOF_EXEC_INTERNAL_H */
