/*-------------------------------------------------------------------------
 *
 * window_join_internal.h
 *	  Executor state of the WindowJoin custom scan and the functions its
 *	  executor files share.
 *
 * The executor is split in files (see window_join_exec.c for the
 * algorithm); calls go one way, from the first file to the others:
 *
 *	window_join_exec.c		the node's callbacks (begin, exec, end, rescan,
 *							parallel), the open windows' rows in memory,
 *							the window-by-window join
 *	window_join_input.c		each side's lookahead row, its window(s) and
 *							key hash, and its move into the state
 *	window_join_spill.c		past the memory budget: the open windows' rows
 *							in temporary files, and a spilled window joined
 *							batch by batch
 *	window_join_buckets.c	an unsorted TUMBLE input grouped by window
 *	window_join_explain.c	EXPLAIN, read from the plan and the state
 *
 * src/nodes/window_join/window_join_internal.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WINDOW_JOIN_INTERNAL_H
#define WINDOW_JOIN_INTERNAL_H

#include "common/hashfn.h"
#include "executor/tuptable.h"
#include "nodes/execnodes.h"
#include "storage/buffile.h"
#include "utils/tuplestore.h"

#include "src/common/exec_common.h"
#include "src/parallel/keypart.h"
#include "src/common/state_stats.h"
#include "src/nodes/window_join/window_join.h"

/* A buffered input row; the MinimalTuple follows the header */
typedef struct WjRow
{
	struct WjRow *next;			/* FIFO order of its side */
	struct WjRow *chain_next;	/* inner: next row with the same key hash */
	int64		first_end;		/* TIME: end of its first window */
	int64		last_end;		/* TIME: end of its last window */
	int64		matched_window; /* inner: last window it matched in */
	Size		size;			/* bytes, for the state accounting */
	uint32		hash;			/* hash of the equality keys */
	bool		hashnull;		/* some key is NULL: never matches */
} WjRow;

#define WJ_ROW_HEADER	MAXALIGN(sizeof(WjRow))
#define WJ_ROW_TUPLE(row)	((MinimalTuple) ((char *) (row) + WJ_ROW_HEADER))

/* The inner hash chains: key hash -> rows of the open windows */
typedef struct WjChain
{
	uint32		hash;
	char		status;
	WjRow	   *head;
	WjRow	   *tail;
} WjChain;

#define SH_PREFIX		wjchain
#define SH_ELEMENT_TYPE	WjChain
#define SH_KEY_TYPE		uint32
#define SH_KEY			hash
#define SH_HASH_KEY(tb, key)	murmurhash32(key)
#define SH_EQUAL(tb, a, b)		((a) == (b))
#define SH_SCOPE		static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

#define WJ_MAX_WINDOW_KEYS 4

/* window_join_buckets.c: an unsorted input grouped by window */
typedef struct WjBuckets WjBuckets;
struct ExplainState;

extern WjBuckets *wjoin_buckets_create(TupleDesc desc, List *derived,
									   List *steps, Const *size,
									   MemoryContext parent);
extern void wjoin_buckets_put(WjBuckets *b, TupleTableSlot *slot,
							  int64 window, bool isnull, uint32 hash,
							  bool hashnull);
extern void wjoin_buckets_done(WjBuckets *b);
extern bool wjoin_buckets_sorted(WjBuckets *b);
extern MinimalTuple wjoin_buckets_next_row(WjBuckets *b, int64 *window,
										   bool *isnull, uint32 *hash,
										   bool *hashnull);
extern TupleTableSlot *wjoin_buckets_row_slot(WjBuckets *b,
											  MinimalTuple tuple);
extern TupleTableSlot *wjoin_buckets_next_sorted(WjBuckets *b, int64 *window,
												 bool *isnull);
extern void wjoin_buckets_restore(WjBuckets *b, int64 window, Datum *values,
								  bool *isnull);
extern void wjoin_buckets_reset(WjBuckets *b);
extern void wjoin_buckets_explain(WjBuckets *outer, WjBuckets *inner,
								  struct ExplainState *es);
extern void wjoin_buckets_end(WjBuckets *b);

/* window_join_explain.c */
extern void wjoin_explain(CustomScanState *node, List *ancestors,
						  struct ExplainState *es);

/* One input */
typedef struct WjSide
{
	PlanState  *ps;				/* child plan */
	TupleDesc	desc;			/* its result type */
	int			first_col;		/* its columns' offset in the scan tuple */
	int			ncols;
	bool		is_inner;
	bool		preserved;		/* emit rows without a match */

	int			nwin;			/* GROUP: window values; TIME: 1 (time) */
	ExprState  *win_state[WJ_MAX_WINDOW_KEYS];
	int			nkeys;
	ExprState **key_state;
	FmgrInfo   *hashfn;

	int			first_extra;	/* TIME: window columns we supply */
	int			nextras;
	bool	   *extra_is_expr;
	ExprState **extra_state;
	Datum	   *extra_values;	/* this window's values */
	bool	   *extra_nulls;

	/* GROUP: an unsorted input grouped by window here, or NULL */
	WjBuckets  *buckets;
	bool		buckets_loaded; /* the input has been read into them */
	/* lookahead: a slot, or (GROUP, from the buckets) a row in them */
	TupleTableSlot *peek;
	MinimalTuple peek_tuple;
	bool		peek_valid;
	bool		exhausted;
	int64		peek_first_end;
	int64		peek_last_end;
	int64		peek_win[WJ_MAX_WINDOW_KEYS];
	uint32		peek_hash;
	bool		peek_hashnull;
	bool		have_prev;		/* sort order check */
	int64		prev_win[WJ_MAX_WINDOW_KEYS];

	/* rows of the open windows, in input order, when in memory */
	WjRow	   *head;
	WjRow	   *tail;

	/* ... or, once spilled, in a temporary file from qhead to qend */
	BufFile    *qfile;
	int			qhead_fileno;
	off_t		qhead_off;
	int			qend_fileno;
	off_t		qend_off;
	int64		qrows;			/* rows between qhead and qend */
	int64		qbytes;
	int64		qlast_end;		/* TIME: last_end of the newest row */

	/* GROUP: rows of this side without a window value, to emit */
	Tuplestorestate *orphans;
	TupleTableSlot *orphan_slot;
	bool		have_orphans;
} WjSide;

/* A run of spilled rows: a file position and a row count */
typedef struct WjRun
{
	BufFile    *file;
	int			fileno;
	off_t		off;
	int64		nrows;
} WjRun;

typedef enum WjPhase
{
	WJ_PHASE_START,
	WJ_PHASE_NEXT_WINDOW,
	WJ_PHASE_PROBE,
	WJ_PHASE_INNER_UNMATCHED,
	WJ_PHASE_SPILL_BATCH,		/* spilled window: next batch */
	WJ_PHASE_SPILL_LOAD,		/* load the next chunk of its inner rows */
	WJ_PHASE_SPILL_OUTER_REST,	/* unmatched outer rows after the chunks */
	WJ_PHASE_ORPHANS,
	WJ_PHASE_DONE
} WjPhase;

typedef struct WindowJoinState
{
	CustomScanState css;

	WindowJoinPlanInfo info;	/* the plan's private data */
	JoinType	jointype;
	WjMode		mode;
	WjWindowKind kind;
	int64		every;			/* TIME: slide or step */
	int64		size;
	int64		offset;
	Oid		   *key_coll;

	WjSide		outer;
	WjSide		inner;
	ExprState  *joinqual;

	MemoryContext bufcxt;		/* buffered rows */
	MemoryContext wincxt;		/* per-window values */
	wjchain_hash *chains;
	WjStateStats stats;
	WjParallelInstr pinstr;	/* per-worker figures under a Gather */

	WjKeyPart	kp;				/* key-partitioned execution (keypart.h) */
	WjLeaderShare leader;		/* otherwise, the leader's share under a
								 * Gather (exec_common.h) */

	/* memory bound and spilling */
	MemoryContext nodecxt;		/* the node's own (files, arrays) */
	MemoryContext rowcxt;		/* one spilled row at a time */
	Size		mem_limit;		/* work_mem x hash_mem_multiplier */
	Size		budget;			/* for buffered rows and their chains */
	int			max_nbatch;
	bool		spilled;		/* the open windows' rows are in files */
	int64		spilled_windows;	/* windows joined from files */
	int64		spill_bytes;	/* bytes written to temporary files */
	int			max_batches;	/* most batches a spilled window used */
	int64		spill_chunks;	/* inner chunks beyond a batch's first */

	/* joining a spilled window */
	bool		spill_join;		/* the current window is joined from files */
	int			nbatch;
	int			curbatch;
	WjRun	   *oruns;			/* per batch */
	WjRun	   *iruns;
	int			ifileno;		/* where the next inner chunk starts */
	off_t		ioff;
	int64		iremaining;
	int			chunkno;
	bool		multi_chunk;	/* the batch's inner rows took >1 chunk */
	WjRow	   *chunk_head;		/* inner rows of the chunk */
	WjRow	   *chunk_tail;
	int			ofileno;		/* next outer row of the batch */
	off_t		ooff;
	int64		oremaining;
	int64		oord;			/* its ordinal in the batch */
	bits8	   *omatched;		/* multi-chunk: outer rows that matched */

	WjPhase		phase;
	WjPhase		after_orphans;
	int64		window_seq;		/* windows processed so far */
	bool		have_last_end;
	int64		last_end;		/* TIME: end of the last window processed */
	int64		group_window;	/* GROUP: the window value being joined */

	/* PROBE position */
	WjRow	   *outer_cur;
	bool		probe_started;
	bool		probe_matched;
	bool		outer_filled;	/* outer_cur is in the scan tuple */
	WjRow	   *chain_cur;
	/* INNER_UNMATCHED position */
	WjRow	   *inner_cur;
} WindowJoinState;

/* window_join_spill.c: the open windows' rows in temporary files */
extern void wjoin_spill_state(WindowJoinState *state);
extern void wjoin_unspill_state(WindowJoinState *state);
extern void wjoin_close_queue_files(WindowJoinState *state);
extern void wjoin_queue_append_file(WindowJoinState *state, WjSide *side,
									WjRow *row);
extern void wjoin_spill_read_header(BufFile *file, WjRow *hdr);

/* window_join_spill.c: a spilled window joined batch by batch */
extern void wjoin_spill_join_start(WindowJoinState *state);
extern void wjoin_spill_join_end(WindowJoinState *state);
extern bool wjoin_spill_next_batch(WindowJoinState *state);
extern void wjoin_spill_load_chunk(WindowJoinState *state);
extern WjRow *wjoin_spill_next_outer(WindowJoinState *state);
extern WjPhase wjoin_spill_after_chunk(WindowJoinState *state);

/* window_join_input.c: the inputs' lookahead rows, into the state */
extern void wjoin_fill_from_slot(WindowJoinState *state, WjSide *side,
								 TupleTableSlot *slot);
extern void wjoin_fetch_next(WindowJoinState *state, WjSide *side);
extern void wjoin_take_peek(WindowJoinState *state, WjSide *side);

/*
 * wjoin_scan_open / wjoin_scan_close
 *		Bracket writes into the scan tuple's arrays, which stay allocated
 *		while the virtual slot is cleared.
 */
static inline TupleTableSlot *
wjoin_scan_open(WindowJoinState *state)
{
	TupleTableSlot *scan = state->css.ss.ss_ScanTupleSlot;

	if (!TTS_EMPTY(scan))
		ExecClearTuple(scan);
	return scan;
}

static inline void
wjoin_scan_close(TupleTableSlot *scan)
{
	ExecStoreVirtualTuple(scan);
}

/*
 * wjoin_chain_row
 *		Put an inner row in memory at the end of its hash chain.
 */
static inline void
wjoin_chain_row(WindowJoinState *state, WjRow *row)
{
	bool		found;
	WjChain    *chain;

	if (row->hashnull)
		return;
	chain = wjchain_insert(state->chains, row->hash, &found);
	if (found)
		chain->tail->chain_next = row;
	else
		chain->head = row;
	chain->tail = row;
}

/*
 * wjoin_side_append
 *		Put a row in memory at the end of its side's rows; an inner row also
 *		at the end of its hash chain.
 */
static inline void
wjoin_side_append(WindowJoinState *state, WjSide *side, WjRow *row)
{
	if (side->tail)
		side->tail->next = row;
	else
		side->head = row;
	side->tail = row;
	if (side->is_inner)
		wjoin_chain_row(state, row);
}

/*
 * wjoin_state_memory
 *		Bytes the buffered rows and the hash chains take now.
 */
static inline Size
wjoin_state_memory(WindowJoinState *state)
{
	return (Size) state->stats.bytes +
		(Size) state->chains->size * sizeof(WjChain);
}

#endif							/* WINDOW_JOIN_INTERNAL_H */
