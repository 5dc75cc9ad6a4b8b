/*-------------------------------------------------------------------------
 *
 * session_sort_internal.h
 *	  Executor state of the SessionSort and SessionWindow custom scans and
 *	  the functions their executor files share.
 *
 * The executor is split by what each part does (see session_sort_exec.c for
 * the algorithm); calls go one way, from the first file down:
 *
 *	session_sort_exec.c		the node's callbacks (begin, exec, end, rescan,
 *							EXPLAIN, parallel), reading the input and the
 *							batches, returning the rows in order
 *	session_sort_spill.c	past work_mem: the split of a source into
 *							key-range batches on tapes, and the fallback to
 *							a tuplesort
 *	session_window_exec.c	SessionWindow's session() column: the sessions
 *							of a sorted partition, or of the tuplesort's rows
 *	session_sort_store.c	the rows held in memory: the arena, the hash
 *							table of partitions and their chains of rows
 *
 * src/nodes/session/session_sort_internal.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SESSION_SORT_INTERNAL_H
#define SESSION_SORT_INTERNAL_H

#include "common/pg_prng.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "nodes/execnodes.h"
#include "utils/logtape.h"
#include "utils/sortsupport.h"
#include "utils/tuplesort.h"
#include "utils/tuplestore.h"

#include "src/parallel/keypart.h"
#include "src/common/pg_compat.h"
#include "src/parallel/row_exchange.h"
#include "src/nodes/session/session_sort.h"
#include "src/common/state_stats.h"

/* The input, the node's only child (in custom_ps, like every node's) */
#define SSORT_CHILD(state) ((PlanState *) linitial((state)->css.custom_ps))

/* One stored row as its partition sees it */
typedef struct SSortEntry
{
	int64		ts;				/* the time (unused in the NULL-time chain) */
	MinimalTuple tuple;			/* the columns but the time, or NULL if none */
} SSortEntry;

/* A block of a partition's chain of entries, allocated in the arena */
typedef struct SSortBlock
{
	struct SSortBlock *next;
	int			used;
	int			size;
	SSortEntry	entries[FLEXIBLE_ARRAY_MEMBER];
} SSortBlock;

/* A chain of blocks */
typedef struct SSortChain
{
	SSortBlock *head;
	SSortBlock *tail;
	int64		rows;
} SSortChain;

/* One partition: the hash entry's additional data */
typedef struct SSortPartition
{
	SSortChain	timed;			/* rows with a time */
	SSortChain	untimed;		/* rows with a NULL time */
	MinimalTuple keytuple;		/* the partition's keys (the hash entry's) */
	Datum	   *keys;			/* keytuple deformed, once input is read */
	bool	   *keynulls;
	char	   *data_next;		/* free space for this partition's rows */
	Size		data_free;
	Size		data_chunk;		/* size of the last chunk */
} SSortPartition;

#define SSORT_ARENA_BLOCK	(1024 * 1024)
#define SSORT_FIRST_CHUNK	64
#define SSORT_MAX_CHUNK		8192
#define SSORT_FIRST_BLOCK	8
#define SSORT_MAX_BLOCK		1024

/*
 * A row on a batch's tape: this header, then the row's stored columns (the
 * MinimalTuple it has in memory, none when tuple_len is 0)
 */
typedef struct SSortTapeRow
{
	int64		ts;
	uint32		tuple_len;
	bool		null_time;
} SSortTapeRow;

/*
 * Partition key values, copied (a range boundary, a range's least or
 * greatest key, a sampled row's keys)
 */
typedef struct SSortKey
{
	Datum	   *values;
	bool	   *isnull;
} SSortKey;

/* A key range's rows written to a tape, to be read back as a batch */
typedef struct SSortBatch
{
	LogicalTape *tape;
	int64		rows;			/* rows written */
	struct SSortKey **sample;	/* keys of a uniform sample of its rows */
	int			nsample;
	int			depth;			/* 1 for a range of the input, 2 for a range
								 * of such a range, ... */
} SSortBatch;

/*
 * The split of a source (the input or a batch) into key ranges: range i
 * holds the keys before bounds[i] (keys equal to the bound included when
 * inclusive[i]), and after bounds[i - 1]; the last range holds the keys
 * after every bound.
 */
typedef struct SSortSplit
{
	int			nbounds;
	int			max_ranges;		/* the tapes' write buffers must fit */
	SSortKey  **bounds;			/* [max_ranges - 1] */
	bool	   *inclusive;
	SSortBatch **ranges;		/* [max_ranges] */
	int64		target_rows;	/* rows a batch should hold at most */
	SSortKey   *first_min;		/* least key written to the first range */
	SSortKey   *last_max;		/* greatest key written to the last range */
	int			depth;			/* of the ranges */
} SSortSplit;

/*
 * Rows whose keys each range samples while it is written (reservoir
 * sampling), to draw the bounds from if it must be split again
 */
#define SSORT_SAMPLE		32

/* Past this depth of ranges of ranges a batch goes to a tuplesort */
#define SSORT_MAX_DEPTH		12

typedef enum SSortPhase
{
	SSORT_LOAD,					/* input not read yet */
	SSORT_NEXT_BATCH,			/* read the next batch */
	SSORT_MEMORY,				/* returning rows from memory */
	SSORT_TUPLESORT,			/* returning rows from the tuplesort */
	SSORT_DONE
} SSortPhase;

typedef struct SessionSortState
{
	CustomScanState css;

	/* the keys: partition keys first, the time key last */
	int			nkeys;
	int			npart;
	AttrNumber *attnos;			/* child column numbers */
	Oid		   *sortops;
	Oid		   *eqops;
	Oid		   *colls;
	bool	   *nullsfirst;
	AttrNumber	time_attno;

	/* row layout: which child columns are stored in the MinimalTuple */
	int			natts;			/* child columns */
	int			nrest;			/* of which are not the time */
	AttrNumber *rest_attnos;	/* child column of each stored column */
	TupleDesc	rest_desc;
	TupleTableSlot *rest_slot;	/* to deform a stored row */
	Datum	   *rest_values;	/* to form a stored row: nrest values */
	bool	   *rest_isnull;	/* and their null flags */
	TupleTableSlot *key_slot;	/* the partition keys of a row, for hashing */
	TupleTableSlot *sort_slot;	/* a row from the tuplesort */
	TupleTableSlot *keytup_slot;	/* to deform a partition's keys */
	SortSupport partsort;		/* to order the partitions */

	SSortPhase	phase;
	MemoryContext cxt;			/* everything below; reset on rescan */
	MemoryContext hashcxt;		/* the hash table's entries */
	MemoryContext tmpcxt;		/* per-row work */
	TupleHashTable hashtable;
	SSortPartition single;		/* the partition when there are no keys */
	char	   *arena_next;		/* free space in the current arena block */
	Size		arena_free;
	Size		arena_bytes;	/* arena memory allocated */
	Size		budget;			/* work_mem in bytes */

	/* returning from memory */
	SSortPartition **parts;		/* partitions in key order */
	int64		nparts;
	int64		cur_part;
	SSortEntry *sorted;			/* the current partition's rows */
	Size		sorted_size;	/* allocated entries of sorted[] */
	int64		nsorted;
	int64		cur_row;
	bool		in_untimed;		/* returning the NULL-time chain */
	SSortBlock *untimed_block;
	int			untimed_pos;

	/*
	 * SessionWindow only: the session() column, computed here instead of
	 * by a WindowAgg above (win_attno is 0 in a SessionSort)
	 */
	AttrNumber	win_attno;		/* its scan column, after the child's */
	int			nchild;			/* the child's columns */
	Const	   *gap_const;		/* session()'s gap argument */
	int64		gap;
	bool		gap_checked;
	TupleDesc	win_desc;		/* the composite's descriptor */
	MemoryContext sesscxt;		/* holds the current session's composite */
	Datum		win_datum;		/* the current session's composite */
	int64		sess_last;		/* its last row in sorted[] */
	TupleTableSlot *child_slot; /* a row in the child's layout */
	Tuplestorestate *sessbuf;	/* fallback: the rows of one session */
	TupleTableSlot *look_slot;	/* fallback: the row after them */
	bool		look_valid;
	FmgrInfo   *eqfns;			/* fallback: partition key equality */

	Tuplesortstate *tuplesort;	/* after the fallback */
	bool		spilled;		/* did the whole input go to a tuplesort? */

	/* key-range batches on disk (past work_mem) */
	MemoryContext spillcxt;		/* the tapes and batches; reset on rescan */
	MemoryContext splitcxt;		/* the current split's keys */
	LogicalTapeSet *tapeset;
	SSortBatch **pending;		/* batches to read, the next one last */
	int			npending;
	int			pending_size;
	SSortBatch *source;			/* the batch being read, NULL: the input */
	bool		splitting;		/* the source's rows go to key ranges */
	SSortSplit	split;
	int64		mem_rows;		/* rows held in memory */
	int64		src_rows;		/* rows read from the source */
	char	   *readbuf;		/* the stored columns of a row read from a tape */
	Size		readbuf_size;
	Datum	   *route_values;	/* a row's partition keys, while splitting */
	bool	   *route_nulls;
	int		   *key_rest;		/* each partition key's stored column (0-based) */
	int			key_rest_max;	/* stored columns to deform for the keys */
	char	   *formbuf;		/* a stored row formed to be written */
	Size		formbuf_size;
	Size		hash_bytes;		/* memory of the hash table (when it changes) */
	pg_prng_state prng;			/* for the samples */
	int16	   *keylens;		/* typlen and typbyval of the partition keys */
	bool	   *keybyvals;

	/* for EXPLAIN ANALYZE */
	int64		total_parts;	/* partitions returned from memory */
	int64		nbatches;		/* batches read back from disk */
	int64		nsorted_batches;	/* of which went to a tuplesort */
	int			max_depth;
	long		disk_blocks;	/* the tapes' peak size */
	WjStateStats stats;

	/*
	 * Key partitioning (a partial path under a Gather, docs/parallel.md):
	 * the input rows are kept only when their partition keys hash to the
	 * partition being read; at the end of the input the next unclaimed
	 * partition is claimed and the input read again, until none is left.
	 * kp.parts is 0 when the node reads all of its input.
	 */
	WjKeyPart	kp;
	FmgrInfo   *kp_hashfns;		/* hash function of each partition key */
	AttrNumber	kp_maxattno;	/* child columns to deform for them */

	/*
	 * Exchanged key partitions: the input is a partial path, each
	 * participant writes its rows into their partitions' shared files and
	 * then reads back the partitions it claims (row_exchange.c)
	 */
	bool		kp_exchange;
	WjExchange	ex;
	TupleTableSlot *ex_slot;	/* a row read back */
	WjParallelInstr pinstr;		/* per-worker figures under a Gather */
} SessionSortState;

/* session_sort_store.c: the rows held in memory */
extern Size ssort_memory_used(SessionSortState *state);
extern void ssort_init_memory(SessionSortState *state);
extern void ssort_release_memory(SessionSortState *state);
extern void ssort_slot_rest(SessionSortState *state, TupleTableSlot *in);
extern void ssort_stored_keys(SessionSortState *state, MinimalTuple tuple);
extern MinimalTuple ssort_form_rest(SessionSortState *state,
									SSortPartition *part);
extern void ssort_store_row(SessionSortState *state, TupleTableSlot *in);
extern void ssort_store_tape_row(SessionSortState *state, SSortTapeRow *hdr,
								 MinimalTuple rest);
extern void ssort_collect_partitions(SessionSortState *state);
extern TupleTableSlot *ssort_fill_slot(SessionSortState *state,
									   TupleTableSlot *slot,
									   SSortPartition *part,
									   SSortEntry *entry, bool null_time);

/* session_sort_spill.c: key-range batches and the tuplesort fallback */
extern bool ssort_tape_read(SessionSortState *state, SSortBatch *batch,
							SSortTapeRow *hdr, MinimalTuple *tuple);
extern void ssort_route_row(SessionSortState *state, int64 ts, bool null_time,
							MinimalTuple tuple);
extern bool ssort_can_split(SessionSortState *state);
extern void ssort_memory_full(SessionSortState *state, bool exhausted);
extern void ssort_end_split(SessionSortState *state);
extern void ssort_free_sample(SessionSortState *state, SSortBatch *batch);
extern void ssort_release_spill(SessionSortState *state);

/* session_window_exec.c: SessionWindow's session() column */
extern void session_window_init(SessionSortState *state, EState *estate,
								TupleDesc desc);
extern void session_window_validate_gap(SessionSortState *state);
extern void session_window_memory_session(SessionSortState *state);
extern TupleTableSlot *session_window_fallback_next(SessionSortState *state);

/*
 * session_window_check_gap
 *		Validate session()'s gap before the first row is returned
 *		(session_window_validate_gap does it once).
 */
static inline void
session_window_check_gap(SessionSortState *state)
{
	if (!state->gap_checked)
		session_window_validate_gap(state);
}

/*
 * session_window_set
 *		Put the session() column into a filled scan slot: the current
 *		session's composite, or NULL for a row with a NULL time.
 */
static inline TupleTableSlot *
session_window_set(SessionSortState *state, TupleTableSlot *slot,
				   bool null_time)
{
	slot->tts_values[state->win_attno - 1] = null_time ? (Datum) 0 :
		state->win_datum;
	slot->tts_isnull[state->win_attno - 1] = null_time;
	return slot;
}

#endif							/* SESSION_SORT_INTERNAL_H */
