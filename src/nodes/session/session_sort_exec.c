/*-------------------------------------------------------------------------
 *
 * session_sort_exec.c
 *	  Executor side of SessionSort and SessionWindow.  SessionSort returns
 *	  its input sorted by (partition keys..., time), as the Sort under a
 *	  session() window would; SessionWindow returns the same rows with the
 *	  session() column added, replacing the Sort and the WindowAgg.
 *
 * Algorithm.  The first fetch reads the whole input.  Each row is hashed by
 * its partition keys into a TupleHashTable (PostgreSQL's grouping hash
 * table, so NULL keys form their own partition and the keys' own equality
 * and hash functions apply).  The row is stored once, in an arena of large
 * blocks (no per-row allocation header), as a MinimalTuple of its columns
 * other than the time, and its partition records (time, tuple pointer)
 * in a chain of blocks; rows with a NULL time go to a separate chain, since
 * they sort last.  When the input is exhausted, the partitions are sorted
 * by their keys with SortSupport, and each partition in turn is copied into
 * one array and sorted by time as int64 (timestamp and timestamptz order as
 * their int64 values), by a sort_template.h quicksort.  Rows are returned
 * by putting the time and the stored columns back together in the scan
 * slot.  The partition keys are stored with each row, not taken from the
 * partition: "=" may equate visibly different values (numeric 1.0 and
 * 1.00, interval '1 day' and '24 hours', nondeterministic collations), and
 * each row must keep its own; the partition's first-seen keys only order
 * the partitions.
 *
 * So each row costs one hash probe and O(log rows-per-partition) int64
 * comparisons, instead of O(log rows) comparisons of all the keys in a
 * Sort; and the stored rows are smaller than a tuplesort's, so more fit in
 * work_mem.
 *
 * SessionWindow: while returning a partition's sorted rows, a row past the
 * current session starts the next one: scan forward in the sorted array
 * while consecutive times are at most gap apart (the checks and errors of
 * session(): finite times, overflow-checked bounds, the gap validated before
 * the first row), put its (window_start, window_end, window_time) into the
 * composite datum (formed once, overwritten for each session), and return
 * that same datum with every row of the session.  Rows with a NULL time get a NULL window.
 *
 * Memory: the arena, the hash table and the sorting array are counted
 * against work_mem (the node stands in for a Sort, which work_mem bounds).
 * When they would exceed it, the source (the input) is split into ranges of
 * partition keys: the partitions in memory, in key order, are cut into
 * ranges of about equal rows, their rows are written to one tape per range
 * (a LogicalTapeSet), the memory is freed, and every further row goes to the
 * tape of its range (binary search over the bounds).  A row on tape is the
 * row as stored in memory: its time and the MinimalTuple of the rest.  The
 * ranges are then read back one at a time, in key order, each as a batch
 * that runs the algorithm above; a range holds whole partitions and the
 * ranges are ordered, so the output keeps (keys..., time) order without any
 * merge.  The bounds come from the rows, not from statistics; the planner's
 * row estimate only sizes the number of ranges (and lets an input expected
 * to outgrow work_mem by far split after an eighth of it, as a sample).
 * The first and the last range are open-ended and, when one outgrows a
 * batch (input arriving in key order), end at their least (greatest) key so
 * far, a new range taking the keys beyond.  A batch that does not fit when
 * read back is split again, its bounds drawn from a reservoir sample of its
 * rows' keys kept while it was written.  A batch that cannot be split (one partition,
 * no partition keys, ranges of ranges too deep) goes to a tuplesort with the
 * same keys, which spills to disk as usual, and its rows come from there.  A
 * SessionWindow then reads one session at a time from the tuplesort into a
 * tuplestore (which spills too), looking one row ahead for the session's
 * end, and returns the buffered rows with its bounds.
 *
 * Key partitioning (a partial path under a Gather, docs/parallel.md): the
 * node reads its whole input in every participant but keeps only the rows
 * whose partition keys hash to the partition it claimed from a counter in
 * the parallel query's shared memory; at the end of the input it claims the
 * next unclaimed partition, if any, and reads the input again.  With
 * exchanged partitions the input is a partial path instead: each
 * participant writes its share of the rows into their partitions' shared
 * files, waits for the others to do the same, then reads back the rows of
 * the partitions it claims (row_exchange.c).  All of this happens while
 * loading, before any row is returned, so each participant's output is in
 * (keys..., time) order over all of its partitions, and every partition is
 * sessionized in exactly one process.
 *
 * src/nodes/session/session_sort_exec.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "common/hashfn.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "common/int.h"
#include "common/pg_prng.h"
#include "port/pg_bitutils.h"
#include "utils/datum.h"
#include "utils/logtape.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"
#include "utils/sortsupport.h"
#include "utils/tuplesort.h"
#include "utils/tuplestore.h"
#include "utils/typcache.h"

#include "exec_common.h"
#include "keypart.h"
#include "pg_compat.h"
#include "row_exchange.h"
#include "session_sort.h"
#include "state_stats.h"
#include "window_arith.h"

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

/* The int64 quicksort of a partition's rows by time */
#define ST_SORT ssort_by_time
#define ST_ELEMENT_TYPE SSortEntry
#define ST_COMPARE(a, b) (((a)->ts > (b)->ts) - ((a)->ts < (b)->ts))
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

static Size memory_used(SessionSortState *state);
static Node *session_sort_create_state(CustomScan *cscan);
static void session_sort_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *session_sort_exec(CustomScanState *node);
static void session_sort_end(CustomScanState *node);
static void session_sort_rescan(CustomScanState *node);
static void session_sort_explain(CustomScanState *node, List *ancestors,
						  ExplainState *es);
static Size session_sort_estimate_dsm(CustomScanState *node, ParallelContext *pcxt);
static void session_sort_initialize_dsm(CustomScanState *node, ParallelContext *pcxt,
						   void *coordinate);
static void session_sort_reinitialize_dsm(CustomScanState *node, ParallelContext *pcxt,
							 void *coordinate);
static void session_sort_initialize_worker(CustomScanState *node, shm_toc *toc,
							  void *coordinate);
static void session_sort_shutdown(CustomScanState *node);

CustomScanMethods wj_session_sort_scan_methods = {
	.CustomName = "SessionSort",
	.CreateCustomScanState = session_sort_create_state,
};

CustomScanMethods wj_session_window_scan_methods = {
	.CustomName = "SessionWindow",
	.CreateCustomScanState = session_sort_create_state,
};

static CustomExecMethods session_sort_exec_methods = {
	.CustomName = "SessionSort",
	.BeginCustomScan = session_sort_begin,
	.ExecCustomScan = session_sort_exec,
	.EndCustomScan = session_sort_end,
	.ReScanCustomScan = session_sort_rescan,
	.EstimateDSMCustomScan = session_sort_estimate_dsm,
	.InitializeDSMCustomScan = session_sort_initialize_dsm,
	.ReInitializeDSMCustomScan = session_sort_reinitialize_dsm,
	.InitializeWorkerCustomScan = session_sort_initialize_worker,
	.ShutdownCustomScan = session_sort_shutdown,
	.ExplainCustomScan = session_sort_explain,
};

/*
 * session_sort_create_state
 *		CreateCustomScanState: read the keys from custom_private.
 */
static Node *
session_sort_create_state(CustomScan *cscan)
{
	SessionSortState *state = palloc0(sizeof(SessionSortState));
	SessionSortPlanInfo info;
	int			i;

	NodeSetTag(state, T_CustomScanState);
	state->css.methods = &session_sort_exec_methods;
	session_sort_info_from_private(cscan->custom_private, &info);
	state->nkeys = list_length(info.attnos);
	state->npart = state->nkeys - 1;
	state->attnos = palloc(sizeof(AttrNumber) * state->nkeys);
	state->sortops = palloc(sizeof(Oid) * state->nkeys);
	state->eqops = palloc(sizeof(Oid) * state->nkeys);
	state->colls = palloc(sizeof(Oid) * state->nkeys);
	state->nullsfirst = palloc(sizeof(bool) * state->nkeys);
	for (i = 0; i < state->nkeys; i++)
	{
		state->attnos[i] = list_nth_int(info.attnos, i);
		state->sortops[i] = list_nth_oid(info.sortops, i);
		state->eqops[i] = list_nth_oid(info.eqops, i);
		state->colls[i] = list_nth_oid(info.colls, i);
		state->nullsfirst[i] = list_nth_int(info.nullsfirst, i);
	}
	state->time_attno = state->attnos[state->npart];
	if (info.key_partitions > 0)
		wj_keypart_setup(&state->kp, info.key_partitions,
						  wj_keypart_grain(info.key_exchange), -1);
	state->kp.bucket = -1;
	state->kp_exchange = info.key_exchange;
	state->ex.reading = -1;
	if (info.has_gap)
		state->gap_const = info.gap;
	return (Node *) state;
}

/*
 * session_sort_begin
 *		BeginCustomScan: start the child and lay out the stored rows.
 */
static void
session_sort_begin(CustomScanState *node, EState *estate, int eflags)
{
	SessionSortState *state = (SessionSortState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	TupleDesc	desc;
	bool	   *is_key;
	TupleDesc	key_desc;
	int			i;
	int			j;

	node->custom_ps =
		list_make1(ExecInitNode(linitial(cscan->custom_plans), estate,
								eflags & ~(EXEC_FLAG_REWIND |
										   EXEC_FLAG_BACKWARD |
										   EXEC_FLAG_MARK)));
	desc = ExecGetResultType(SSORT_CHILD(state));
	state->natts = desc->natts;
	state->nchild = desc->natts;
	state->child_slot = ExecAllocTableSlot(&estate->es_tupleTable, desc,
										   &TTSOpsVirtual);
	if (state->gap_const != NULL)
	{
		TupleDesc	scandesc = node->ss.ss_ScanTupleSlot->tts_tupleDescriptor;
		Form_pg_attribute att;

		state->win_attno = state->nchild + 1;
		if (scandesc->natts != state->win_attno)
			elog(ERROR, "SessionWindow scan tuple has %d columns, expected %d",
				 scandesc->natts, state->win_attno);
		att = TupleDescAttr(scandesc, state->win_attno - 1);
		state->win_desc = lookup_rowtype_tupdesc_copy(att->atttypid,
													  att->atttypmod);
		state->look_slot = ExecAllocTableSlot(&estate->es_tupleTable, desc,
											  &TTSOpsMinimalTuple);
	}

	/*
	 * Every column but the time is stored, the partition keys too: equal
	 * keys need not look the same, and each row returns its own.
	 */
	is_key = palloc0(sizeof(bool) * (desc->natts + 1));
	is_key[state->time_attno] = true;
	state->rest_attnos = palloc(sizeof(AttrNumber) * desc->natts);
	state->nrest = 0;
	for (i = 1; i <= desc->natts; i++)
		if (!is_key[i])
			state->rest_attnos[state->nrest++] = i;
	state->rest_desc = CreateTemplateTupleDesc(state->nrest);
	for (j = 0; j < state->nrest; j++)
		TupleDescCopyEntry(state->rest_desc, j + 1, desc, state->rest_attnos[j]);
	state->rest_slot = ExecAllocTableSlot(&estate->es_tupleTable,
										  state->rest_desc,
										  &TTSOpsMinimalTuple);
	state->rest_values = palloc(sizeof(Datum) * Max(state->nrest, 1));
	state->rest_isnull = palloc(sizeof(bool) * Max(state->nrest, 1));

	key_desc = CreateTemplateTupleDesc(state->npart);
	for (j = 0; j < state->npart; j++)
		TupleDescCopyEntry(key_desc, j + 1, desc, state->attnos[j]);
	state->key_slot = ExecAllocTableSlot(&estate->es_tupleTable, key_desc,
										 &TTSOpsVirtual);
	state->sort_slot = ExecAllocTableSlot(&estate->es_tupleTable, desc,
										  &TTSOpsMinimalTuple);
	state->keytup_slot = ExecAllocTableSlot(&estate->es_tupleTable, key_desc,
											&TTSOpsMinimalTuple);

	state->partsort = palloc0(sizeof(SortSupportData) * Max(state->npart, 1));
	for (j = 0; j < state->npart; j++)
	{
		SortSupport ssup = &state->partsort[j];

		ssup->ssup_cxt = CurrentMemoryContext;
		ssup->ssup_collation = state->colls[j];
		ssup->ssup_nulls_first = state->nullsfirst[j];
		ssup->ssup_attno = j + 1;
		ssup->abbreviate = false;
		PrepareSortSupportFromOrderingOp(state->sortops[j], ssup);
	}

	state->cxt = AllocSetContextCreate(CurrentMemoryContext, "SessionSort",
									   ALLOCSET_DEFAULT_SIZES);
	state->sesscxt = AllocSetContextCreate(CurrentMemoryContext,
										   "SessionSort session",
										   ALLOCSET_SMALL_SIZES);
	state->spillcxt = AllocSetContextCreate(CurrentMemoryContext,
											"SessionSort batches",
											ALLOCSET_DEFAULT_SIZES);
	state->key_rest = palloc(sizeof(int) * Max(state->npart, 1));
	state->key_rest_max = 0;
	for (j = 0; j < state->npart; j++)
	{
		state->key_rest[j] = -1;
		for (i = 0; i < state->nrest; i++)
			if (state->rest_attnos[i] == state->attnos[j])
				state->key_rest[j] = i;
		if (state->key_rest[j] < 0)
			elog(ERROR, "SessionSort partition key %d is not a stored column", j + 1);
		state->key_rest_max = Max(state->key_rest_max, state->key_rest[j] + 1);
	}
	state->route_values = palloc(sizeof(Datum) * Max(state->npart, 1));
	state->route_nulls = palloc(sizeof(bool) * Max(state->npart, 1));
	state->keylens = palloc(sizeof(int16) * Max(state->npart, 1));
	state->keybyvals = palloc(sizeof(bool) * Max(state->npart, 1));
	for (j = 0; j < state->npart; j++)
	{
		Form_pg_attribute att = TupleDescAttr(key_desc, j);

		state->keylens[j] = att->attlen;
		state->keybyvals[j] = att->attbyval;
	}
	pg_prng_seed(&state->prng, 0x5e5510);
	state->budget = (Size) work_mem * 1024;
	state->eqfns = palloc0(sizeof(FmgrInfo) * Max(state->npart, 1));
	for (j = 0; j < state->npart; j++)
		fmgr_info(get_opcode(state->eqops[j]), &state->eqfns[j]);
	if (state->kp.parts > 0)
	{
		if (state->npart == 0)
			elog(ERROR, "key-partitioned SessionSort without partition keys");
		state->kp_hashfns = palloc0(sizeof(FmgrInfo) * state->npart);
		for (j = 0; j < state->npart; j++)
		{
			Oid			lhash;
			Oid			rhash;

			if (!get_op_hash_functions(state->eqops[j], &lhash, &rhash))
				elog(ERROR, "could not find hash function for operator %u",
					 state->eqops[j]);
			fmgr_info(lhash, &state->kp_hashfns[j]);
			state->kp_maxattno = Max(state->kp_maxattno, state->attnos[j]);
		}
		if (state->kp_exchange)
			state->ex_slot = ExecInitExtraTupleSlot(estate,
													ExecGetResultType(SSORT_CHILD(state)),
													&TTSOpsMinimalTuple);
	}
	state->phase = SSORT_LOAD;
	wj_state_reset(&state->stats, false);
}

/*
 * arena_alloc
 *		Space for size bytes in the arena: blocks of up to SSORT_ARENA_BLOCK,
 *		and an own allocation for anything larger than a quarter of that.
 */
static void *
arena_alloc(SessionSortState *state, Size size)
{
	char	   *p;

	size = MAXALIGN(size);
	if (size > SSORT_ARENA_BLOCK / 4)
	{
		state->arena_bytes += size;
		return MemoryContextAlloc(state->cxt, size);
	}
	if (size > state->arena_free)
	{
		/*
		 * Blocks double from 8kB, so a small input holds little memory, but
		 * stay within what is left of work_mem (from 8kB up)
		 */
		Size		block = Min(Max(state->arena_bytes, 8192), SSORT_ARENA_BLOCK);
		Size		used = memory_used(state);

		if (used < state->budget)
			block = Min(block, Max(state->budget - used, 8192));
		else
			block = 8192;

		block = Max(block, size);
		state->arena_next = MemoryContextAlloc(state->cxt, block);
		state->arena_free = block;
		state->arena_bytes += block;
	}
	p = state->arena_next;
	state->arena_next += size;
	state->arena_free -= size;
	return p;
}

/*
 * partition_alloc
 *		Space for a row of a partition: each partition stores its rows in its
 *		own chunks (from 64 bytes up to 8kB), so that returning a partition's
 *		rows in time order reads memory close together rather than all over
 *		the arena.
 */
static inline void *
partition_alloc(SessionSortState *state, SSortPartition *part, Size size)
{
	char	   *p;

	size = MAXALIGN(size);
	if (size > part->data_free)
	{
		Size		chunk = part->data_chunk == 0 ? SSORT_FIRST_CHUNK :
		Min(part->data_chunk * 2, SSORT_MAX_CHUNK);

		part->data_chunk = chunk;
		chunk = Max(chunk, size);
		part->data_next = arena_alloc(state, chunk);
		part->data_free = chunk;
	}
	p = part->data_next;
	part->data_next += size;
	part->data_free -= size;
	return p;
}

/*
 * chain_append
 *		Append an entry to a partition's chain; blocks grow from
 *		SSORT_FIRST_BLOCK to SSORT_MAX_BLOCK entries.
 */
static inline void
chain_append(SessionSortState *state, SSortChain *chain, int64 ts,
			 MinimalTuple tuple)
{
	SSortBlock *block = chain->tail;

	if (block == NULL || block->used == block->size)
	{
		int			size = block == NULL ? SSORT_FIRST_BLOCK :
		Min(block->size * 2, SSORT_MAX_BLOCK);
		SSortBlock *nb = arena_alloc(state, offsetof(SSortBlock, entries) +
									 sizeof(SSortEntry) * size);

		nb->next = NULL;
		nb->used = 0;
		nb->size = size;
		if (block == NULL)
			chain->head = nb;
		else
			block->next = nb;
		chain->tail = nb;
		block = nb;
	}
	block->entries[block->used].ts = ts;
	block->entries[block->used].tuple = tuple;
	block->used++;
	chain->rows++;
}

/*
 * memory_used
 *		Bytes held in memory: the arena and the hash table (its memory is
 *		read again whenever it can have grown: a new partition).
 */
static Size
memory_used(SessionSortState *state)
{
	return state->arena_bytes + state->hash_bytes;
}

/*
 * start_tuplesort
 *		A tuplesort on all the keys, for the fallback.
 */
static void
start_tuplesort(SessionSortState *state)
{
	TupleDesc	desc = ExecGetResultType(SSORT_CHILD(state));

	state->tuplesort = tuplesort_begin_heap(desc, state->nkeys, state->attnos,
											state->sortops, state->colls,
											state->nullsfirst, work_mem, NULL,
											TUPLESORT_NONE);
}

/*
 * deform_keys
 *		Extract a partition's key values from its hash entry's tuple; they
 *		point into that tuple, which lives as long as the hash table.
 */
static void
deform_keys(SessionSortState *state, SSortPartition *part)
{
	int			i;

	part->keys = MemoryContextAlloc(state->hashcxt, sizeof(Datum) * state->npart);
	part->keynulls = MemoryContextAlloc(state->hashcxt, sizeof(bool) * state->npart);
	ExecStoreMinimalTuple(part->keytuple, state->keytup_slot, false);
	slot_getallattrs(state->keytup_slot);
	for (i = 0; i < state->npart; i++)
	{
		part->keys[i] = state->keytup_slot->tts_values[i];
		part->keynulls[i] = state->keytup_slot->tts_isnull[i];
	}
	ExecClearTuple(state->keytup_slot);
}

/*
 * fill_slot
 *		Put a stored row back together in slot (the scan slot, or the
 *		child's layout).
 */
static TupleTableSlot *
fill_slot(SessionSortState *state, TupleTableSlot *slot, SSortPartition *part,
		  SSortEntry *entry, bool null_time)
{
	int			i;

	/* the partition keys come from the row itself, not from part */
	ExecClearTuple(slot);
	slot->tts_values[state->time_attno - 1] = Int64GetDatum(entry->ts);
	slot->tts_isnull[state->time_attno - 1] = null_time;
	if (state->nrest > 0)
	{
		ExecStoreMinimalTuple(entry->tuple, state->rest_slot, false);
		slot_getallattrs(state->rest_slot);
		for (i = 0; i < state->nrest; i++)
		{
			slot->tts_values[state->rest_attnos[i] - 1] = state->rest_slot->tts_values[i];
			slot->tts_isnull[state->rest_attnos[i] - 1] = state->rest_slot->tts_isnull[i];
		}
	}
	return ExecStoreVirtualTuple(slot);
}

/*
 * release_memory
 *		Forget the rows held in memory (they were returned, or written
 *		elsewhere) and free their memory.
 */
static void
release_memory(SessionSortState *state)
{
	ExecClearTuple(state->key_slot);
	ExecClearTuple(state->keytup_slot);
	ExecClearTuple(state->rest_slot);
	if (state->sessbuf != NULL)
	{
		tuplestore_end(state->sessbuf);
		state->sessbuf = NULL;
	}
	MemoryContextReset(state->cxt);
	state->hashtable = NULL;
	state->hashcxt = NULL;
	state->tmpcxt = NULL;
	MemSet(&state->single, 0, sizeof(SSortPartition));
	state->arena_next = NULL;
	state->arena_free = 0;
	state->arena_bytes = 0;
	state->hash_bytes = 0;
	state->parts = NULL;
	state->nparts = 0;
	state->sorted = NULL;
	state->mem_rows = 0;
	wj_state_clear(&state->stats);
}

/*
 * spill_to_tuplesort
 *		The rows no longer fit: move every stored row to a tuplesort and
 *		free the memory.
 */
static void
spill_to_tuplesort(SessionSortState *state)
{
	TupleTableSlot *slot = state->child_slot;
	SSortPartition *part;
	TupleHashIterator iter;
	TupleHashEntry entry = NULL;

	start_tuplesort(state);
	if (state->npart > 0)
		InitTupleHashIterator(state->hashtable, &iter);
	for (;;)
	{
		SSortChain *chains[2];
		int			c;

		if (state->npart > 0)
		{
			entry = ScanTupleHashTable(state->hashtable, &iter);
			if (entry == NULL)
				break;
			part = (SSortPartition *) wj_tuplehash_get(state->hashtable, entry);
		}
		else
			part = &state->single;
		chains[0] = &part->timed;
		chains[1] = &part->untimed;
		for (c = 0; c < 2; c++)
		{
			SSortBlock *block;

			for (block = chains[c]->head; block != NULL; block = block->next)
			{
				int			i;

				CHECK_FOR_INTERRUPTS();
				for (i = 0; i < block->used; i++)
					tuplesort_puttupleslot(state->tuplesort,
										   fill_slot(state, state->child_slot,
													 part, &block->entries[i],
													 c == 1));
			}
		}
		if (state->npart == 0)
			break;
	}
	if (state->npart > 0)
		TermTupleHashIterator(&iter);
	ExecClearTuple(slot);

	/* the memory held by rows now belongs to the tuplesort */
	release_memory(state);
	if (state->source == NULL)
		state->spilled = true;
	else
		state->nsorted_batches++;
}

/*
 * lookup_partition
 *		The partition of these partition key values, created when new.
 */
static SSortPartition *
lookup_partition(SessionSortState *state, Datum *values, bool *isnull)
{
	TupleHashEntry entry;
	bool		isnew;
	int			i;

	if (state->npart == 0)
		return &state->single;
	ExecClearTuple(state->key_slot);
	for (i = 0; i < state->npart; i++)
	{
		state->key_slot->tts_values[i] = values[i];
		state->key_slot->tts_isnull[i] = isnull[i];
	}
	ExecStoreVirtualTuple(state->key_slot);
	entry = LookupTupleHashEntry(state->hashtable, state->key_slot, &isnew, NULL);
	if (isnew)
	{
		SSortPartition *part = MemoryContextAllocZero(state->hashcxt,
													  sizeof(SSortPartition));

		part->keytuple = entry->firstTuple;
		wj_tuplehash_set(state->hashtable, entry, part);
		state->nparts++;
		state->hash_bytes = MemoryContextMemAllocated(state->hashcxt, true);
		return part;
	}
	return (SSortPartition *) wj_tuplehash_get(state->hashtable, entry);
}

/*
 * form_rest
 *		Form the stored columns of a row (rest_values, rest_isnull) as a
 *		MinimalTuple, as heap_form_minimal_tuple does, directly in the space
 *		of its partition, or in formbuf when part is NULL.
 */
static MinimalTuple
form_rest(SessionSortState *state, SSortPartition *part)
{
	bool		hasnull = false;
	Size		len;
	Size		hoff;
	Size		data_len;
	MinimalTuple tuple;
	int			i;

	for (i = 0; i < state->nrest; i++)
		if (state->rest_isnull[i])
		{
			hasnull = true;
			break;
		}
	len = SizeofMinimalTupleHeader;
	if (hasnull)
		len += BITMAPLEN(state->nrest);
	hoff = len = MAXALIGN(len);
	data_len = heap_compute_data_size(state->rest_desc, state->rest_values,
									  state->rest_isnull);
	len += data_len;
	if (part != NULL)
		tuple = partition_alloc(state, part, len);
	else
	{
		if (len > state->formbuf_size)
		{
			if (state->formbuf != NULL)
				pfree(state->formbuf);
			state->formbuf_size = Max(len, 2 * state->formbuf_size);
			state->formbuf = MemoryContextAllocHuge(state->spillcxt,
													state->formbuf_size);
		}
		tuple = (MinimalTuple) state->formbuf;
	}
	memset(tuple, 0, len);
	tuple->t_len = len;
	HeapTupleHeaderSetNatts(tuple, state->nrest);
	tuple->t_hoff = hoff + MINIMAL_TUPLE_OFFSET;
	heap_fill_tuple(state->rest_desc, state->rest_values, state->rest_isnull,
					(char *) tuple + hoff, data_len, &tuple->t_infomask,
					hasnull ? tuple->t_bits : NULL);
	return tuple;
}

/*
 * slot_rest
 *		The stored columns and the partition keys of a child's row (in
 *		rest_values and route_values).
 */
static void
slot_rest(SessionSortState *state, TupleTableSlot *in)
{
	int			i;

	slot_getallattrs(in);
	for (i = 0; i < state->nrest; i++)
	{
		state->rest_values[i] = in->tts_values[state->rest_attnos[i] - 1];
		state->rest_isnull[i] = in->tts_isnull[state->rest_attnos[i] - 1];
	}
	for (i = 0; i < state->npart; i++)
	{
		state->route_values[i] = in->tts_values[state->attnos[i] - 1];
		state->route_nulls[i] = in->tts_isnull[state->attnos[i] - 1];
	}
}

/*
 * stored_keys
 *		The partition keys of a stored row (in route_values), pointing into
 *		the row.
 */
static void
stored_keys(SessionSortState *state, MinimalTuple tuple)
{
	int			i;

	if (state->npart == 0)
		return;
	ExecStoreMinimalTuple(tuple, state->rest_slot, false);
	slot_getsomeattrs(state->rest_slot, state->key_rest_max);
	for (i = 0; i < state->npart; i++)
	{
		state->route_values[i] = state->rest_slot->tts_values[state->key_rest[i]];
		state->route_nulls[i] = state->rest_slot->tts_isnull[state->key_rest[i]];
	}
}

/*
 * add_row
 *		Append a stored row to its partition's chain.
 */
static inline void
add_row(SessionSortState *state, SSortPartition *part, int64 ts, bool null_time,
		MinimalTuple tuple)
{
	chain_append(state, null_time ? &part->untimed : &part->timed, ts, tuple);
	state->mem_rows++;
	/* state accounting counts row bytes (state_stats.h): tuple and entry */
	wj_state_add(&state->stats, (int64) sizeof(SSortEntry) +
				 (tuple != NULL ? (int64) tuple->t_len : 0));
}

/*
 * store_row
 *		Hash the child's row into its partition and store it.
 */
static void
store_row(SessionSortState *state, TupleTableSlot *in)
{
	SSortPartition *part;
	MinimalTuple tuple = NULL;
	bool		null_time;

	slot_rest(state, in);
	part = lookup_partition(state, state->route_values, state->route_nulls);
	if (state->nrest > 0)
		tuple = form_rest(state, part);
	null_time = in->tts_isnull[state->time_attno - 1];
	add_row(state, part, null_time ? 0 :
			DatumGetInt64(in->tts_values[state->time_attno - 1]),
			null_time, tuple);
}

/*
 * store_tape_row
 *		Hash a row read from a tape into its partition and store it.
 */
static void
store_tape_row(SessionSortState *state, SSortTapeRow *hdr, MinimalTuple rest)
{
	SSortPartition *part;
	MinimalTuple tuple = NULL;

	if (rest != NULL)
		stored_keys(state, rest);
	part = lookup_partition(state, state->route_values, state->route_nulls);
	if (rest != NULL)
	{
		tuple = partition_alloc(state, part, rest->t_len);
		memcpy(tuple, rest, rest->t_len);
	}
	add_row(state, part, hdr->ts, hdr->null_time, tuple);
}

/*
 * compare_partitions
 *		qsort_arg comparator: partitions in the order of their keys.
 */
static int
compare_partitions(const void *a, const void *b, void *arg)
{
	SessionSortState *state = (SessionSortState *) arg;
	SSortPartition *pa = *(SSortPartition *const *) a;
	SSortPartition *pb = *(SSortPartition *const *) b;
	int			i;

	for (i = 0; i < state->npart; i++)
	{
		int			cmp = ApplySortComparator(pa->keys[i], pa->keynulls[i],
											  pb->keys[i], pb->keynulls[i],
											  &state->partsort[i]);

		if (cmp != 0)
			return cmp;
	}
	return 0;
}

/*
 * check_gap
 *		Validate session()'s gap, with session()'s errors, before the first
 *		row is returned (session() checks it for every row).
 */
static inline void
check_gap(SessionSortState *state)
{
	if (state->gap_checked)
		return;
	if (state->gap_const->constisnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("gap must not be null"),
				 errhint("Pass a fixed interval, for example interval '5 minutes'.")));
	state->gap = wj_interval_duration(DatumGetIntervalP(state->gap_const->constvalue),
									  "gap");
	state->gap_checked = true;
}

/*
 * make_session
 *		The composite (window_start, window_end, window_time) of the session
 *		from start to the row at last, kept until the next session starts:
 *		every row of the session returns the same datum.  The datum is
 *		formed once and then overwritten with each session's bounds (the
 *		previous session's is no longer used, as when it was freed).
 */
static void
make_session(SessionSortState *state, int64 start, int64 last)
{
	Datum		values[3];
	bool		nulls[3] = {false, false, false};
	int64		end = wj_timestamp_add(last, state->gap);

	/* window_time must be representable too */
	(void) wj_timestamp_add(end, -WJ_WINDOW_TIME_USECS);
	values[0] = Int64GetDatum(start);
	values[1] = Int64GetDatum(end);
	values[2] = Int64GetDatum(end - WJ_WINDOW_TIME_USECS);
	if (state->win_datum == (Datum) 0)
	{
		MemoryContext old = MemoryContextSwitchTo(state->sesscxt);

		state->win_datum = HeapTupleGetDatum(heap_form_tuple(state->win_desc,
															 values, nulls));
		MemoryContextSwitchTo(old);
	}
	else
	{
		HeapTupleHeader td = wj_datum_get_heap_tuple_header(state->win_datum);

		heap_fill_tuple(state->win_desc, values, nulls,
						(char *) td + td->t_hoff,
						HeapTupleHeaderGetDatumLength(td) - td->t_hoff,
						&td->t_infomask, NULL);
	}
}

/*
 * memory_session
 *		The session starting at the current row of the sorted partition:
 *		scan forward while consecutive times are at most gap apart.
 */
static void
memory_session(SessionSortState *state)
{
	int64		first = state->cur_row;
	int64		prev = state->sorted[first].ts;
	int64		i;

	wj_check_finite(prev);
	for (i = first + 1; i < state->nsorted; i++)
	{
		int64		t = state->sorted[i].ts;
		int64		diff;

		CHECK_FOR_INTERRUPTS();
		wj_check_finite(t);
		if (pg_sub_s64_overflow(t, prev, &diff) || diff > state->gap)
			break;
		prev = t;
	}
	state->sess_last = i - 1;
	make_session(state, state->sorted[first].ts, prev);
}

/*
 * set_window
 *		Put the session() column into a filled scan slot.
 */
static inline TupleTableSlot *
set_window(SessionSortState *state, TupleTableSlot *slot, bool null_time)
{
	slot->tts_values[state->win_attno - 1] = null_time ? (Datum) 0 :
		state->win_datum;
	slot->tts_isnull[state->win_attno - 1] = null_time;
	return slot;
}

/*
 * same_partition
 *		Do two rows in the child's layout have equal partition keys?
 */
static bool
same_partition(SessionSortState *state, TupleTableSlot *a, TupleTableSlot *b)
{
	int			i;

	for (i = 0; i < state->npart; i++)
	{
		bool		na;
		bool		nb;
		Datum		va = slot_getattr(a, state->attnos[i], &na);
		Datum		vb = slot_getattr(b, state->attnos[i], &nb);

		if (na || nb)
		{
			if (na != nb)
				return false;
			continue;
		}
		if (!DatumGetBool(FunctionCall2Coll(&state->eqfns[i], state->colls[i],
											va, vb)))
			return false;
	}
	return true;
}

/*
 * copy_out
 *		The scan slot: a child row plus its session() column.
 */
static TupleTableSlot *
copy_out(SessionSortState *state, TupleTableSlot *src, bool null_time)
{
	TupleTableSlot *out = state->css.ss.ss_ScanTupleSlot;

	slot_getallattrs(src);
	ExecClearTuple(out);
	memcpy(out->tts_values, src->tts_values, sizeof(Datum) * state->nchild);
	memcpy(out->tts_isnull, src->tts_isnull, sizeof(bool) * state->nchild);
	ExecStoreVirtualTuple(out);
	return set_window(state, out, null_time);
}

/*
 * fallback_next
 *		SessionWindow after the fallback to tuplesort: buffer one session's
 *		rows in a tuplestore (spilling as needed) until the next row belongs
 *		to another partition, has a NULL time or comes more than gap later;
 *		then return the buffered rows with the session's bounds.
 */
static TupleTableSlot *
fallback_next(SessionSortState *state)
{
	for (;;)
	{
		int64		start;
		int64		prev;
		bool		isnull;

		if (state->sessbuf != NULL &&
			tuplestore_gettupleslot(state->sessbuf, true, false, state->sort_slot))
			return copy_out(state, state->sort_slot, false);

		if (!state->look_valid)
		{
			if (!tuplesort_gettupleslot(state->tuplesort, true, true,
										state->look_slot, NULL))
				return NULL;	/* the tuplesort is done */
			state->look_valid = true;
		}
		check_gap(state);
		if (slot_attisnull(state->look_slot, state->time_attno))
		{
			state->look_valid = false;
			return copy_out(state, state->look_slot, true);
		}

		/* a session starts at the row looked ahead */
		if (state->sessbuf == NULL)
		{
			MemoryContext old = MemoryContextSwitchTo(state->cxt);

			state->sessbuf = tuplestore_begin_heap(false, false, work_mem);
			MemoryContextSwitchTo(old);
		}
		else
			tuplestore_clear(state->sessbuf);
		ExecCopySlot(state->child_slot, state->look_slot);
		start = prev = DatumGetInt64(slot_getattr(state->look_slot,
												  state->time_attno, &isnull));
		wj_check_finite(start);
		tuplestore_puttupleslot(state->sessbuf, state->look_slot);
		state->look_valid = false;
		for (;;)
		{
			int64		t;
			int64		diff;

			CHECK_FOR_INTERRUPTS();
			if (!tuplesort_gettupleslot(state->tuplesort, true, true,
										state->look_slot, NULL))
				break;
			state->look_valid = true;
			t = DatumGetInt64(slot_getattr(state->look_slot, state->time_attno,
										   &isnull));
			if (isnull || !same_partition(state, state->child_slot, state->look_slot))
				break;
			wj_check_finite(t);
			if (pg_sub_s64_overflow(t, prev, &diff) || diff > state->gap)
				break;
			tuplestore_puttupleslot(state->sessbuf, state->look_slot);
			state->look_valid = false;
			prev = t;
		}
		make_session(state, start, prev);
	}
}

/*
 * init_memory
 *		An empty hash table (and arena) for the rows of the next source.
 */
static void
init_memory(SessionSortState *state)
{
	Size		maxblock;
	int			i;

	/* its blocks grow up to a sixteenth of work_mem (as hash aggregation's) */
	maxblock = Min(Max(pg_prevpower2_size_t(state->budget / 16),
					   ALLOCSET_DEFAULT_INITSIZE), ALLOCSET_DEFAULT_MAXSIZE);
	state->hashcxt = AllocSetContextCreate(state->cxt, "SessionSort partitions",
										   0, ALLOCSET_DEFAULT_INITSIZE, maxblock);
	state->tmpcxt = AllocSetContextCreate(state->cxt, "SessionSort row",
										  ALLOCSET_SMALL_SIZES);
	state->nparts = 0;
	state->mem_rows = 0;
	if (state->npart > 0)
	{
		Oid		   *eqfuncoids;
		FmgrInfo   *hashfuncs;
		AttrNumber *keycols;
		MemoryContext old = MemoryContextSwitchTo(state->hashcxt);

		keycols = palloc(sizeof(AttrNumber) * state->npart);
		for (i = 0; i < state->npart; i++)
			keycols[i] = i + 1;
		execTuplesHashPrepare(state->npart, state->eqops, &eqfuncoids, &hashfuncs);
		state->hashtable =
			wj_build_tuple_hash_table(&state->css.ss.ps,
									  state->key_slot->tts_tupleDescriptor,
									  state->npart, keycols, eqfuncoids,
									  hashfuncs, state->colls, 256,
									  state->hashcxt, state->hashcxt,
									  state->tmpcxt, false);
		MemoryContextSwitchTo(old);
		state->hash_bytes = MemoryContextMemAllocated(state->hashcxt, true);
	}
}

/*
 * collect_partitions
 *		The partitions held in memory, in key order, into parts[] (counted
 *		in the hash table's memory).
 */
static void
collect_partitions(SessionSortState *state)
{
	int64		i = 0;

	if (state->parts != NULL)
		return;
	state->parts = MemoryContextAllocHuge(state->hashcxt, sizeof(SSortPartition *) *
										  Max(state->nparts, 1));
	if (state->npart > 0)
	{
		TupleHashIterator iter;
		TupleHashEntry entry;

		InitTupleHashIterator(state->hashtable, &iter);
		while ((entry = ScanTupleHashTable(state->hashtable, &iter)) != NULL)
		{
			SSortPartition *part = (SSortPartition *)
				wj_tuplehash_get(state->hashtable, entry);

			deform_keys(state, part);
			state->parts[i++] = part;
		}
		TermTupleHashIterator(&iter);
		Assert(i == state->nparts);
		qsort_arg(state->parts, state->nparts, sizeof(SSortPartition *),
				  compare_partitions, state);
	}
	else
	{
		state->parts[0] = &state->single;
		state->nparts = 1;
	}
	state->hash_bytes = MemoryContextMemAllocated(state->hashcxt, true);
}

/*
 * tape_write
 *		Append a row, its time and stored columns, to a batch's tape.
 */
static void
tape_write(SessionSortState *state, SSortBatch *batch, int64 ts, bool null_time,
		   MinimalTuple tuple)
{
	MemoryContext old = MemoryContextSwitchTo(state->spillcxt);
	SSortTapeRow hdr;

	MemSet(&hdr, 0, sizeof(hdr));
	hdr.ts = ts;
	hdr.null_time = null_time;
	hdr.tuple_len = tuple != NULL ? tuple->t_len : 0;
	LogicalTapeWrite(batch->tape, &hdr, sizeof(hdr));
	if (tuple != NULL)
		LogicalTapeWrite(batch->tape, tuple, tuple->t_len);
	MemoryContextSwitchTo(old);
	batch->rows++;
}

/*
 * tape_read
 *		The next row of a batch's tape: false at its end; else its header in
 *		*hdr and its stored columns in *tuple (NULL if none), valid until the
 *		next read.
 */
static bool
tape_read(SessionSortState *state, SSortBatch *batch, SSortTapeRow *hdr,
		  MinimalTuple *tuple)
{
	MemoryContext old = MemoryContextSwitchTo(state->spillcxt);
	size_t		n;

	/* the tape's read buffer is allocated at the first read */
	n = LogicalTapeRead(batch->tape, hdr, sizeof(SSortTapeRow));
	if (n == 0)
	{
		MemoryContextSwitchTo(old);
		return false;
	}
	if (n != sizeof(SSortTapeRow))
		elog(ERROR, "unexpected end of a SessionSort batch");
	*tuple = NULL;
	if (hdr->tuple_len > 0)
	{
		if (hdr->tuple_len > state->readbuf_size)
		{
			ExecClearTuple(state->rest_slot);
			if (state->readbuf != NULL)
				pfree(state->readbuf);
			state->readbuf_size = Max(hdr->tuple_len, 2 * state->readbuf_size);
			state->readbuf = MemoryContextAllocHuge(state->spillcxt,
													state->readbuf_size);
		}
		if (LogicalTapeRead(batch->tape, state->readbuf, hdr->tuple_len) !=
			hdr->tuple_len)
			elog(ERROR, "unexpected end of a SessionSort batch");
		*tuple = (MinimalTuple) state->readbuf;
	}
	MemoryContextSwitchTo(old);
	return true;
}

/*
 * compare_keys
 *		Order two sets of partition key values as the plan sorts them.
 */
static int
compare_keys(SessionSortState *state, Datum *av, bool *an, Datum *bv, bool *bn)
{
	int			i;

	for (i = 0; i < state->npart; i++)
	{
		int			cmp = ApplySortComparator(av[i], an[i], bv[i], bn[i],
											  &state->partsort[i]);

		if (cmp != 0)
			return cmp;
	}
	return 0;
}

/*
 * copy_key_in
 *		Partition key values copied into a memory context.
 */
static SSortKey *
copy_key_in(SessionSortState *state, MemoryContext cxt, Datum *values,
			bool *isnull)
{
	MemoryContext old = MemoryContextSwitchTo(cxt);
	SSortKey   *key = palloc(sizeof(SSortKey));
	int			i;

	key->values = palloc(sizeof(Datum) * state->npart);
	key->isnull = palloc(sizeof(bool) * state->npart);
	for (i = 0; i < state->npart; i++)
	{
		key->isnull[i] = isnull[i];
		key->values[i] = isnull[i] ? (Datum) 0 :
			datumCopy(values[i], state->keybyvals[i], state->keylens[i]);
	}
	MemoryContextSwitchTo(old);
	return key;
}

/*
 * copy_key
 *		Partition key values copied into the split's context.
 */
static SSortKey *
copy_key(SessionSortState *state, Datum *values, bool *isnull)
{
	return copy_key_in(state, state->splitcxt, values, isnull);
}

/*
 * free_key
 *		Free a copy_key result.
 */
static void
free_key(SessionSortState *state, SSortKey *key)
{
	int			i;

	if (key == NULL)
		return;
	for (i = 0; i < state->npart; i++)
		if (!key->isnull[i] && !state->keybyvals[i])
			pfree(DatumGetPointer(key->values[i]));
	pfree(key->values);
	pfree(key->isnull);
	pfree(key);
}

/*
 * sample_row
 *		A row was written to a batch: keep its keys in the batch's sample
 *		with the probability that keeps the sample uniform (reservoir
 *		sampling).
 */
static void
sample_row(SessionSortState *state, SSortBatch *batch, Datum *values,
		   bool *isnull)
{
	uint64		j;

	if (batch->sample == NULL)
		batch->sample = MemoryContextAlloc(state->spillcxt,
										   sizeof(SSortKey *) * SSORT_SAMPLE);
	if (batch->nsample < SSORT_SAMPLE)
	{
		batch->sample[batch->nsample++] = copy_key_in(state, state->spillcxt,
													  values, isnull);
		return;
	}
	j = pg_prng_uint64_range(&state->prng, 0, batch->rows - 1);
	if (j < SSORT_SAMPLE)
	{
		free_key(state, batch->sample[j]);
		batch->sample[j] = copy_key_in(state, state->spillcxt, values, isnull);
	}
}

/*
 * free_sample
 *		Free a batch's sample.
 */
static void
free_sample(SessionSortState *state, SSortBatch *batch)
{
	int			i;

	for (i = 0; i < batch->nsample; i++)
		free_key(state, batch->sample[i]);
	if (batch->sample != NULL)
		pfree(batch->sample);
	batch->sample = NULL;
	batch->nsample = 0;
}

/*
 * compare_sampled
 *		qsort_arg comparator: sampled keys in key order.
 */
static int
compare_sampled(const void *a, const void *b, void *arg)
{
	SessionSortState *state = (SessionSortState *) arg;
	SSortKey   *ka = *(SSortKey *const *) a;
	SSortKey   *kb = *(SSortKey *const *) b;

	return compare_keys(state, ka->values, ka->isnull, kb->values, kb->isnull);
}

/*
 * find_range
 *		The range of the current split that holds these key values: the
 *		first whose bound they come before (binary search).
 */
static int
find_range(SessionSortState *state, Datum *values, bool *isnull)
{
	SSortSplit *split = &state->split;
	int			lo = 0;
	int			hi = split->nbounds;

	while (lo < hi)
	{
		int			mid = lo + (hi - lo) / 2;
		SSortKey   *bound = split->bounds[mid];
		int			cmp = compare_keys(state, values, isnull,
									   bound->values, bound->isnull);

		if (cmp < 0 || (cmp == 0 && split->inclusive[mid]))
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/*
 * new_batch
 *		An empty batch with its own tape.
 */
static SSortBatch *
new_batch(SessionSortState *state, int depth)
{
	MemoryContext old = MemoryContextSwitchTo(state->spillcxt);
	SSortBatch *batch = palloc0(sizeof(SSortBatch));

	if (state->tapeset == NULL)
		state->tapeset = LogicalTapeSetCreate(false, NULL, -1);
	batch->tape = LogicalTapeCreate(state->tapeset);
	batch->depth = depth;
	MemoryContextSwitchTo(old);
	return batch;
}

/*
 * add_bound
 *		Insert a bound at position pos of the current split, with a new
 *		empty range before it (pos 0) or after it (pos nbounds).
 */
static void
add_bound(SessionSortState *state, int pos, SSortKey *key, bool inclusive)
{
	SSortSplit *split = &state->split;
	SSortBatch *batch = new_batch(state, split->depth);

	Assert(split->nbounds + 1 < split->max_ranges);
	memmove(&split->bounds[pos + 1], &split->bounds[pos],
			sizeof(SSortKey *) * (split->nbounds - pos));
	memmove(&split->inclusive[pos + 1], &split->inclusive[pos],
			sizeof(bool) * (split->nbounds - pos));
	split->bounds[pos] = key;
	split->inclusive[pos] = inclusive;
	if (pos == 0 && split->nbounds > 0)
	{
		/* the new range comes first */
		memmove(&split->ranges[1], &split->ranges[0],
				sizeof(SSortBatch *) * (split->nbounds + 1));
		split->ranges[0] = batch;
	}
	else
		split->ranges[split->nbounds + 1] = batch;
	split->nbounds++;
}

/*
 * route_row
 *		While splitting: write a row (its partition keys in route_values) to
 *		the tape of its key range.  The first and the last range are
 *		open-ended: when one of them outgrows a batch (the input came in key
 *		order, say), it ends at its least (greatest) key so far and a new
 *		range takes the keys below (above) it.
 */
static void
route_row(SessionSortState *state, int64 ts, bool null_time, MinimalTuple tuple)
{
	SSortSplit *split = &state->split;
	Datum	   *values = state->route_values;
	bool	   *isnull = state->route_nulls;
	int			r;

	r = find_range(state, values, isnull);
	tape_write(state, split->ranges[r], ts, null_time, tuple);
	sample_row(state, split->ranges[r], values, isnull);

	if (r == 0 && (split->first_min == NULL ||
				   compare_keys(state, values, isnull, split->first_min->values,
								split->first_min->isnull) < 0))
	{
		free_key(state, split->first_min);
		split->first_min = copy_key(state, values, isnull);
	}
	else if (r == split->nbounds &&
			 (split->last_max == NULL ||
			  compare_keys(state, values, isnull, split->last_max->values,
						   split->last_max->isnull) > 0))
	{
		free_key(state, split->last_max);
		split->last_max = copy_key(state, values, isnull);
	}

	if (split->nbounds + 1 >= split->max_ranges ||
		split->ranges[r]->rows < split->target_rows)
		return;
	if (r == split->nbounds)
	{
		/* keys up to the greatest stay; greater ones go to a new range */
		add_bound(state, split->nbounds, split->last_max, true);
		split->last_max = NULL;
	}
	else if (r == 0)
	{
		/* keys from the least on stay; less ones go to a new range */
		add_bound(state, 0, split->first_min, false);
		split->first_min = NULL;
	}
}

/*
 * write_partition
 *		While starting a split: write a partition held in memory to the tape
 *		of its key range.
 */
static void
write_partition(SessionSortState *state, SSortPartition *part, SSortBatch *batch)
{
	SSortChain *chains[2];
	int			c;

	chains[0] = &part->timed;
	chains[1] = &part->untimed;
	for (c = 0; c < 2; c++)
	{
		SSortBlock *block;

		for (block = chains[c]->head; block != NULL; block = block->next)
		{
			int			i;

			CHECK_FOR_INTERRUPTS();
			for (i = 0; i < block->used; i++)
			{
				tape_write(state, batch, block->entries[i].ts, c == 1,
						   block->entries[i].tuple);
				sample_row(state, batch, part->keys, part->keynulls);
			}
		}
	}
}

/*
 * start_split
 *		Memory is full (or the sorting array would not fit): split the
 *		source into ranges of partition keys, each to be read back as a
 *		batch that fits in memory, and write the rows held so far to them.
 *		The bounds cut the partitions held in memory, in key order, into
 *		runs of about equal rows; a partition with a run's worth of rows
 *		gets a range of its own.  The number of ranges: the source's rows
 *		(known for a batch; for the input the planner's estimate, at least
 *		twice what was read) over 60% of the rows that fit in work_mem
 *		(going by the rows held now), limited so that the ranges' tape
 *		buffers (one block each) take at most half of work_mem.
 */
static void
start_split(SessionSortState *state, bool exhausted)
{
	SSortSplit *split = &state->split;
	double		rows_est;
	double		rows_fit;
	double		per_range;
	double		next_cut;
	double		acc = 0;
	int			nranges;
	int			last_bound = -1;
	int64		i;

	collect_partitions(state);
	Assert(state->nparts >= 2);

	/* the rows that fit in work_mem, going by those held now */
	rows_fit = (double) state->mem_rows * state->budget / Max(memory_used(state), 1);
	if (exhausted)
		rows_est = state->src_rows;
	else if (state->source != NULL)
		rows_est = state->source->rows;
	else
		rows_est = Max(SSORT_CHILD(state)->plan->plan_rows,
					   2.0 * state->src_rows);
	MemSet(split, 0, sizeof(SSortSplit));
	split->depth = (state->source != NULL ? state->source->depth : 0) + 1;
	state->max_depth = Max(state->max_depth, split->depth);
	split->max_ranges = (int) Min(Max(state->budget / (2 * BLCKSZ), 4), 1024);
	nranges = (int) Min(ceil(rows_est / (0.6 * Max(rows_fit, 1.0))),
						(double) Max(split->max_ranges / 2, 2));
	nranges = Max(nranges, 2);
	split->target_rows = Max((int64) (0.8 * rows_fit), 1);

	state->splitcxt = AllocSetContextCreate(state->spillcxt, "SessionSort split",
											ALLOCSET_SMALL_SIZES);
	split->bounds = MemoryContextAlloc(state->splitcxt,
									   sizeof(SSortKey *) * split->max_ranges);
	split->inclusive = MemoryContextAlloc(state->splitcxt,
										  sizeof(bool) * split->max_ranges);
	split->ranges = MemoryContextAlloc(state->splitcxt,
									   sizeof(SSortBatch *) * split->max_ranges);

	/*
	 * A batch read back has a sample of all its rows: the bounds are drawn
	 * from it, at equal steps, if they cut the partitions held in memory
	 * into two ranges at least (so that every range is smaller than the
	 * batch).  Else, and for the input, the bounds are drawn from the
	 * partitions held in memory.
	 */
	if (state->source != NULL && state->source->nsample >= 2)
	{
		SSortBatch *src = state->source;

		qsort_arg(src->sample, src->nsample, sizeof(SSortKey *),
				  compare_sampled, state);
		for (i = 1; i < nranges && split->nbounds + 1 < nranges; i++)
		{
			SSortKey   *key = src->sample[i * src->nsample / nranges];

			if (split->nbounds > 0 &&
				compare_keys(state, key->values, key->isnull,
							 split->bounds[split->nbounds - 1]->values,
							 split->bounds[split->nbounds - 1]->isnull) == 0)
				continue;
			split->bounds[split->nbounds] = copy_key(state, key->values,
													 key->isnull);
			split->inclusive[split->nbounds++] = true;
		}
		if (split->nbounds > 0 &&
			find_range(state, state->parts[0]->keys, state->parts[0]->keynulls) ==
			find_range(state, state->parts[state->nparts - 1]->keys,
					   state->parts[state->nparts - 1]->keynulls))
		{
			while (split->nbounds > 0)
				free_key(state, split->bounds[--split->nbounds]);
		}
	}
	if (split->nbounds == 0)
	{
		/* the bounds, at partitions held in memory (all but the last) */
		per_range = (double) state->mem_rows / nranges;
		next_cut = per_range;
		for (i = 0; i < state->nparts && split->nbounds + 1 < nranges; i++)
		{
			SSortPartition *part = state->parts[i];
			int64		rows = part->timed.rows + part->untimed.rows;

			if (i > 0 && rows >= per_range && last_bound < i - 1)
			{
				/* a big partition: end the range before it */
				SSortPartition *prev = state->parts[i - 1];

				split->bounds[split->nbounds] = copy_key(state, prev->keys,
														 prev->keynulls);
				split->inclusive[split->nbounds++] = true;
				last_bound = i - 1;
			}
			acc += rows;
			if (i < state->nparts - 1 && acc >= next_cut &&
				split->nbounds + 1 < nranges)
			{
				split->bounds[split->nbounds] = copy_key(state, part->keys,
														 part->keynulls);
				split->inclusive[split->nbounds++] = true;
				last_bound = i;
				while (next_cut <= acc)
					next_cut += per_range;
			}
		}
		if (split->nbounds == 0)
		{
			SSortPartition *part = state->parts[state->nparts / 2 - 1];

			split->bounds[0] = copy_key(state, part->keys, part->keynulls);
			split->inclusive[0] = true;
			split->nbounds = 1;
		}
	}
	for (i = 0; i <= split->nbounds; i++)
		split->ranges[i] = new_batch(state, split->depth);

	/*
	 * The rows held in memory go to their ranges, one partition at a time,
	 * in key order: the first partition of the first range and the last of
	 * the last range are where the open ends start.
	 */
	for (i = 0; i < state->nparts; i++)
	{
		SSortPartition *part = state->parts[i];
		int			r = find_range(state, part->keys, part->keynulls);

		write_partition(state, part, split->ranges[r]);
		if (r == 0 && split->first_min == NULL)
			split->first_min = copy_key(state, part->keys, part->keynulls);
		if (r == split->nbounds)
		{
			free_key(state, split->last_max);
			split->last_max = copy_key(state, part->keys, part->keynulls);
		}
	}
	release_memory(state);
	state->splitting = true;
}

/*
 * end_split
 *		The source is split: its ranges become batches to read, in key
 *		order (empty ranges are dropped).
 */
static void
end_split(SessionSortState *state)
{
	SSortSplit *split = &state->split;
	int			i;

	for (i = split->nbounds; i >= 0; i--)
	{
		SSortBatch *batch = split->ranges[i];

		if (batch->rows == 0)
		{
			LogicalTapeClose(batch->tape);
			free_sample(state, batch);
			pfree(batch);
			continue;
		}
		/* a batch expected to fit needs no sample */
		if (batch->rows <= split->target_rows)
			free_sample(state, batch);
		/* frees the write buffer; the read buffer comes with the first read */
		LogicalTapeRewindForRead(batch->tape, BLCKSZ);
		if (state->npending >= state->pending_size)
		{
			state->pending_size = Max(16, 2 * state->pending_size);
			if (state->pending == NULL)
				state->pending = MemoryContextAlloc(state->spillcxt,
													sizeof(SSortBatch *) * state->pending_size);
			else
				state->pending = repalloc(state->pending,
										  sizeof(SSortBatch *) * state->pending_size);
		}
		state->pending[state->npending++] = batch;
	}
	state->disk_blocks = Max(state->disk_blocks, LogicalTapeSetBlocks(state->tapeset));
	MemoryContextDelete(state->splitcxt);
	state->splitcxt = NULL;
	MemSet(split, 0, sizeof(SSortSplit));
	state->splitting = false;
}

/*
 * can_split
 *		Can the rows held in memory be split into key ranges?  Not when
 *		there are no partition keys, or one partition, or the source is a
 *		range of ranges too deep.
 */
static bool
can_split(SessionSortState *state)
{
	int			depth = state->source != NULL ? state->source->depth : 0;

	return state->npart > 0 && state->nparts >= 2 && depth < SSORT_MAX_DEPTH;
}

/*
 * memory_full
 *		The rows of the source no longer fit: split the source into key
 *		ranges, or, when that cannot help (one partition, or no partition
 *		keys, or ranges of ranges too deep), send its rows to a tuplesort.
 */
static void
memory_full(SessionSortState *state, bool exhausted)
{
	if (can_split(state))
		start_split(state, exhausted);
	else
		spill_to_tuplesort(state);
}

/*
 * row_partition
 *		The key partition of an input row: its non-NULL partition keys'
 *		hashes combined (0 when every key is NULL), put in a partition by
 *		wj_keypart_of_hash.
 *		The keys' own hash functions, so rows that are equal by the
 *		partition's "=" fall in the same partition in every process.
 */
static int
row_partition(SessionSortState *state, TupleTableSlot *slot)
{
	uint32		h = 0;
	int			j;

	slot_getsomeattrs(slot, state->kp_maxattno);
	for (j = 0; j < state->npart; j++)
	{
		AttrNumber	attno = state->attnos[j];

		if (!slot->tts_isnull[attno - 1])
			h = hash_combine(h,
							 DatumGetUInt32(FunctionCall1Coll(&state->kp_hashfns[j],
															  state->colls[j],
															  slot->tts_values[attno - 1])));
	}
	return wj_keypart_of_hash(&state->kp, h);
}

/*
 * write_row
 *		wj_exchange_write's write_row: an input row into its key partition.
 */
static void
write_row(void *arg, WjExchange *ex, TupleTableSlot *slot)
{
	wj_exchange_put(ex, row_partition((SessionSortState *) arg, slot), slot);
}

/*
 * exchanged_input
 *		next_input with exchanged key partitions: first write every row of
 *		this participant's share of the input into its partition's shared
 *		files and wait for the other participants to do the same; then the
 *		rows of each partition this process claims, written by every
 *		participant.
 */
static TupleTableSlot *
exchanged_input(SessionSortState *state)
{
	if (!state->ex.written)
		wj_exchange_write(&state->ex, SSORT_CHILD(state),
						  state->css.ss.ps.state->es_query_cxt,
						  write_row, state);
	for (;;)
	{
		TupleTableSlot *slot;

		if (state->ex.reading < 0)
		{
			if (!wj_keypart_claim(&state->kp))
				return NULL;
			wj_exchange_open(&state->ex, state->kp.bucket);
		}
		slot = wj_exchange_read(&state->ex, state->ex_slot);
		if (slot != NULL)
			return slot;
	}
}

/*
 * next_input
 *		The next input row to store.  Key-partitioned: the next row of the
 *		partition being read; at the end of the input claim the next
 *		partition and read the input again, so that every partition this
 *		process claims is stored before any row is returned and its output
 *		stays in (keys..., time) order over all of them.  Without a DSM
 *		segment (the Gather above could not start parallel mode) this
 *		process is the only participant and keeps every row.
 */
static TupleTableSlot *
next_input(SessionSortState *state)
{
	PlanState  *child = SSORT_CHILD(state);

	if (state->kp.parts == 0 || state->kp.counter == NULL)
		return ExecProcNode(child);
	if (state->kp.finished)
		return NULL;
	if (state->kp_exchange)
		return exchanged_input(state);
	if (state->kp.bucket < 0)
	{
		if (!wj_keypart_claim(&state->kp))
			return NULL;
	}
	for (;;)
	{
		TupleTableSlot *slot = ExecProcNode(child);

		if (TupIsNull(slot))
		{
			if (!wj_keypart_claim(&state->kp))
				return NULL;
			ExecReScan(child);
			continue;
		}
		if (row_partition(state, slot) == state->kp.bucket)
			return slot;
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * load_source
 *		Read a source, the input (batch NULL) or a batch, into the
 *		partitions; past work_mem, split it into batches or send it to a
 *		tuplesort.  Sets the phase: SSORT_MEMORY or SSORT_TUPLESORT to
 *		return its rows, SSORT_NEXT_BATCH when it was split.
 */
static void
load_source(SessionSortState *state, SSortBatch *batch)
{
	PlanState  *child = SSORT_CHILD(state);
	int64		max_rows = 0;
	double		rows_est;
	bool		early_check = (batch == NULL);
	int64		i;

	state->source = batch;
	state->src_rows = 0;
	rows_est = batch != NULL ? batch->rows : child->plan->plan_rows;
	/* key-partitioned: about one worker partition's share is kept */
	if (batch == NULL && state->kp.parts > 0 && state->kp.counter != NULL)
		rows_est = rows_est * WJ_KEYPART_SHARE / state->kp.units;
	init_memory(state);
	for (;;)
	{
		TupleTableSlot *slot = NULL;
		SSortTapeRow hdr;
		MinimalTuple tuple = NULL;
		Size		used;

		CHECK_FOR_INTERRUPTS();
		if (batch != NULL)
		{
			if (!tape_read(state, batch, &hdr, &tuple))
				break;
		}
		else
		{
			slot = next_input(state);
			if (TupIsNull(slot))
				break;
		}
		state->src_rows++;

		if (state->splitting)
		{
			if (slot == NULL)
			{
				/* a row of a batch goes on as it is */
				if (tuple != NULL)
					stored_keys(state, tuple);
				route_row(state, hdr.ts, hdr.null_time, tuple);
			}
			else
			{
				bool		null_time;

				slot_rest(state, slot);
				null_time = slot->tts_isnull[state->time_attno - 1];
				route_row(state, null_time ? 0 :
						  DatumGetInt64(slot->tts_values[state->time_attno - 1]),
						  null_time, state->nrest > 0 ? form_rest(state, NULL) : NULL);
			}
			continue;
		}
		if (state->tuplesort != NULL)
		{
			if (slot == NULL)
			{
				SSortEntry	entry;

				entry.ts = hdr.ts;
				entry.tuple = tuple;
				slot = fill_slot(state, state->child_slot, NULL, &entry,
								 hdr.null_time);
			}
			tuplesort_puttupleslot(state->tuplesort, slot);
			continue;
		}

		if (slot == NULL)
			store_tape_row(state, &hdr, tuple);
		else
			store_row(state, slot);
		used = memory_used(state);
		if (used > state->budget)
			memory_full(state, false);
		else if (early_check && used > state->budget / 8)
		{
			/*
			 * An eighth of work_mem is a fair sample of the keys: when the
			 * input is expected to outgrow work_mem by far, split it now
			 * rather than fill memory only to write it all out.  Not for a
			 * batch: its rows are known, but what they take is not (with
			 * many small partitions the first rows cost more each than the
			 * later ones), and a batch that fits must not be split.
			 */
			early_check = false;
			if (rows_est > 1.25 * state->mem_rows * ((double) state->budget / used) &&
				can_split(state))
				memory_full(state, false);
		}
	}

	if (!state->splitting && state->tuplesort == NULL)
	{
		/* the array to sort one partition in must fit too */
		collect_partitions(state);
		for (i = 0; i < state->nparts; i++)
			max_rows = Max(max_rows, state->parts[i]->timed.rows);
		if (memory_used(state) + sizeof(SSortEntry) * max_rows > state->budget)
			memory_full(state, true);
	}

	if (batch != NULL)
	{
		ExecClearTuple(state->rest_slot);
		LogicalTapeClose(batch->tape);
		free_sample(state, batch);
		pfree(batch);
		state->source = NULL;
	}

	if (state->splitting)
	{
		end_split(state);
		state->phase = SSORT_NEXT_BATCH;
	}
	else if (state->tuplesort != NULL)
	{
		tuplesort_performsort(state->tuplesort);
		state->phase = SSORT_TUPLESORT;
	}
	else
	{
		state->sorted = MemoryContextAllocHuge(state->cxt,
											   sizeof(SSortEntry) * Max(max_rows, 1));
		state->total_parts += state->nparts;
		state->cur_part = -1;
		state->nsorted = 0;
		state->cur_row = 0;
		state->untimed_block = NULL;
		state->phase = SSORT_MEMORY;
	}
}

/*
 * release_spill
 *		Close the tapes and forget the batches.
 */
static void
release_spill(SessionSortState *state)
{
	if (state->tapeset != NULL)
	{
		state->disk_blocks = Max(state->disk_blocks,
								 LogicalTapeSetBlocks(state->tapeset));
		LogicalTapeSetClose(state->tapeset);
		state->tapeset = NULL;
	}
	MemoryContextReset(state->spillcxt);
	state->splitcxt = NULL;
	MemSet(&state->split, 0, sizeof(SSortSplit));
	state->splitting = false;
	state->pending = NULL;
	state->npending = 0;
	state->pending_size = 0;
	state->source = NULL;
	state->readbuf = NULL;
	state->readbuf_size = 0;
	state->formbuf = NULL;
	state->formbuf_size = 0;
}

/*
 * next_source
 *		Done with the rows of a source (or it was split): free them and
 *		read the next batch, if any.
 */
static void
next_source(SessionSortState *state)
{
	if (state->tuplesort != NULL)
	{
		tuplesort_end(state->tuplesort);
		state->tuplesort = NULL;
	}
	state->look_valid = false;
	release_memory(state);
	for (;;)
	{
		SSortBatch *batch;

		if (state->npending == 0)
		{
			state->phase = SSORT_DONE;
			release_spill(state);
			return;
		}
		batch = state->pending[--state->npending];
		state->nbatches++;
		load_source(state, batch);
		if (state->phase != SSORT_NEXT_BATCH)
			return;
	}
}

/*
 * next_partition
 *		Sort the next partition's rows by time; false when none is left.
 */
static bool
next_partition(SessionSortState *state)
{
	SSortPartition *part;
	SSortBlock *block;
	int64		n = 0;

	if (++state->cur_part >= state->nparts)
		return false;
	part = state->parts[state->cur_part];
	for (block = part->timed.head; block != NULL; block = block->next)
	{
		memcpy(&state->sorted[n], block->entries, sizeof(SSortEntry) * block->used);
		n += block->used;
	}
	ssort_by_time(state->sorted, n);
	state->nsorted = n;
	state->cur_row = 0;
	state->sess_last = -1;
	state->untimed_block = part->untimed.head;
	state->untimed_pos = 0;
	return true;
}

/*
 * ssort_next
 *		ExecScan access method: the next row in (keys..., time) order.
 */
static TupleTableSlot *
ssort_next(ScanState *ss)
{
	SessionSortState *state = (SessionSortState *) ss;

	for (;;)
	{
		SSortPartition *part;

		switch (state->phase)
		{
			case SSORT_LOAD:
				load_source(state, NULL);
				if (state->phase == SSORT_NEXT_BATCH)
					next_source(state);
				continue;

			case SSORT_NEXT_BATCH:
				next_source(state);
				continue;

			case SSORT_TUPLESORT:
				if (state->win_attno != 0)
				{
					TupleTableSlot *slot = fallback_next(state);

					if (slot != NULL)
						return slot;
				}
				else if (tuplesort_gettupleslot(state->tuplesort, true, false,
												state->sort_slot, NULL))
				{
					/* the node's result is the scan slot (virtual) */
					return ExecCopySlot(ss->ss_ScanTupleSlot, state->sort_slot);
				}
				/* the source's rows are all returned */
				state->phase = SSORT_NEXT_BATCH;
				continue;

			case SSORT_MEMORY:
				break;

			case SSORT_DONE:
				return ExecClearTuple(ss->ss_ScanTupleSlot);
		}

		part = state->cur_part >= 0 ? state->parts[state->cur_part] : NULL;
		if (part != NULL)
		{
			if (state->cur_row < state->nsorted)
			{
				TupleTableSlot *slot;

				if (state->win_attno == 0)
				{
#ifdef __GNUC__
					if (state->cur_row + 8 < state->nsorted)
						__builtin_prefetch(state->sorted[state->cur_row + 8].tuple);
#endif
					return fill_slot(state, ss->ss_ScanTupleSlot, part,
									 &state->sorted[state->cur_row++], false);
				}
				check_gap(state);
				if (state->cur_row > state->sess_last)
					memory_session(state);
#ifdef __GNUC__
				/* the rows come in time order, not in the order stored */
				if (state->cur_row + 8 < state->nsorted)
					__builtin_prefetch(state->sorted[state->cur_row + 8].tuple);
#endif
				slot = fill_slot(state, ss->ss_ScanTupleSlot, part,
								 &state->sorted[state->cur_row++], false);
				return set_window(state, slot, false);
			}
			/* rows with a NULL time come last in their partition */
			while (state->untimed_block != NULL &&
				   state->untimed_pos >= state->untimed_block->used)
			{
				state->untimed_block = state->untimed_block->next;
				state->untimed_pos = 0;
			}
			if (state->untimed_block != NULL)
			{
				TupleTableSlot *slot;

				slot = fill_slot(state, ss->ss_ScanTupleSlot, part,
								 &state->untimed_block->entries[state->untimed_pos++],
								 true);
				if (state->win_attno == 0)
					return slot;
				check_gap(state);
				return set_window(state, slot, true);
			}
		}
		CHECK_FOR_INTERRUPTS();
		if (!next_partition(state))
		{
			/* the source's rows are all returned */
			ExecClearTuple(ss->ss_ScanTupleSlot);
			state->phase = SSORT_NEXT_BATCH;
		}
	}
}

/*
 * ssort_recheck
 *		ExecScan recheck method: nothing to recheck.
 */
static bool
ssort_recheck(ScanState *ss, TupleTableSlot *slot)
{
	return true;
}

/*
 * session_sort_exec
 *		ExecCustomScan.  Without a qual, a projection or an EvalPlanQual
 *		recheck, ExecScan would only reset the per-row expression context,
 *		which the node does not use: return the row directly.
 */
static TupleTableSlot *
session_sort_exec(CustomScanState *node)
{
	if (node->ss.ps.qual == NULL && node->ss.ps.ps_ProjInfo == NULL &&
		node->ss.ps.state->es_epq_active == NULL)
	{
		CHECK_FOR_INTERRUPTS();
		return ssort_next(&node->ss);
	}
	return ExecScan(&node->ss, (ExecScanAccessMtd) ssort_next,
					(ExecScanRecheckMtd) ssort_recheck);
}

/*
 * ssort_forget
 *		Drop the stored rows, the tuplesort and the batches.
 */
static void
ssort_forget(SessionSortState *state)
{
	ExecClearTuple(state->css.ss.ss_ScanTupleSlot);
	ExecClearTuple(state->rest_slot);
	ExecClearTuple(state->key_slot);
	ExecClearTuple(state->keytup_slot);
	ExecClearTuple(state->sort_slot);
	ExecClearTuple(state->child_slot);
	if (state->look_slot != NULL)
		ExecClearTuple(state->look_slot);
	state->look_valid = false;
	if (state->sessbuf != NULL)
	{
		tuplestore_end(state->sessbuf);
		state->sessbuf = NULL;
	}
	MemoryContextReset(state->sesscxt);
	state->win_datum = (Datum) 0;
	state->sess_last = -1;
	if (state->tuplesort != NULL)
	{
		tuplesort_end(state->tuplesort);
		state->tuplesort = NULL;
	}
	release_memory(state);
	release_spill(state);
}

/*
 * session_sort_end
 *		EndCustomScan.
 */
static void
session_sort_end(CustomScanState *node)
{
	SessionSortState *state = (SessionSortState *) node;

	ssort_forget(state);
	MemoryContextDelete(state->cxt);
	MemoryContextDelete(state->sesscxt);
	ExecEndNode(SSORT_CHILD(state));
}

/*
 * session_sort_rescan
 *		ReScanCustomScan: read the input again on the next fetch.
 */
static void
session_sort_rescan(CustomScanState *node)
{
	SessionSortState *state = (SessionSortState *) node;
	PlanState  *child = SSORT_CHILD(state);

	ssort_forget(state);
	state->phase = SSORT_LOAD;
	state->total_parts = 0;
	wj_keypart_restart(&state->kp);
	wj_exchange_restart(&state->ex);
	wj_state_reset(&state->stats, true);
	wj_rescan_child(node, child);
}

/*
 * key_text
 *		A sort key as EXPLAIN shows it.
 */
static char *
key_text(SessionSortState *state, AttrNumber attno, List *context, bool useprefix)
{
	TupleDesc	desc = state->css.ss.ss_ScanTupleSlot->tts_tupleDescriptor;
	Form_pg_attribute att = TupleDescAttr(desc, attno - 1);
	Var		   *var = makeVar(INDEX_VAR, attno, att->atttypid, att->atttypmod,
							  att->attcollation, 0);

	return deparse_expression((Node *) var, context, useprefix, false);
}

/*
 * session_sort_explain
 *		ExplainCustomScan: the partition and time keys; under ANALYZE how the
 *		rows were sorted, the number of partitions and the peak state.
 */
static void
session_sort_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	SessionSortState *state = (SessionSortState *) node;
	List	   *context;
	bool		useprefix = list_length(es->rtable) > 1 || es->verbose;
	List	   *keys = NIL;
	int			i;

	context = set_deparse_context_plan(es->deparse_cxt, node->ss.ps.plan,
									   ancestors);
	for (i = 0; i < state->npart; i++)
		keys = lappend(keys, key_text(state, state->attnos[i], context, useprefix));
	if (keys != NIL)
		ExplainPropertyList("Partition Key", keys, es);
	ExplainPropertyText("Time Key",
						key_text(state, state->time_attno, context, useprefix),
						es);
	if (state->gap_const != NULL)
		ExplainPropertyText("Gap", deparse_expression((Node *) state->gap_const,
													  context, false, false),
							es);
	if (state->kp.parts > 0)
	{
		ExplainPropertyInteger("Key Partitions", NULL, state->kp.parts, es);
		if (state->kp_exchange)
			ExplainPropertyText("Key Partition Input", "exchanged", es);
	}
	if (es->analyze)
	{
		ExplainPropertyText("Sort Method",
							state->nbatches > 0 ?
							"hash partitions, quicksort by time, in key-range batches" :
							state->spilled ? "tuplesort (rows exceeded work_mem)" :
							"hash partitions, quicksort by time", es);
		if (!state->spilled && state->nsorted_batches == 0)
			ExplainPropertyInteger("Partitions", NULL, state->total_parts, es);
		if (state->nbatches > 0)
		{
			ExplainPropertyInteger("Batches", NULL, state->nbatches, es);
			if (state->nsorted_batches > 0)
				ExplainPropertyInteger("Batches Sorted by Tuplesort", NULL,
									   state->nsorted_batches, es);
			ExplainPropertyInteger("Batch Depth", NULL, state->max_depth, es);
			ExplainPropertyInteger("Disk Usage", "kB",
								   (int64) state->disk_blocks * (BLCKSZ / 1024), es);
		}
		wj_explain_state(&state->stats, es);
		wj_explain_workers(&state->pinstr, &node->ss.ps, &state->stats, es);
	}
}

/*
 * session_sort_estimate_dsm, session_sort_initialize_dsm, session_sort_reinitialize_dsm, session_sort_initialize_worker,
 * session_sort_shutdown
 *		The parallel-aware plan of a key-partitioned path, under a Gather:
 *		the counter from which the participants claim partitions, each
 *		worker's peak state and rows for EXPLAIN ANALYZE (state_stats.h),
 *		and with exchanged partitions the exchange (row_exchange.c), whose
 *		offset a worker cannot compute (the figures' size depends on the
 *		planned workers) and so finds in the shared header.
 */
typedef struct SSortShared
{
	pg_atomic_uint32 counter;	/* the key partitions' claim counter */
	Size		exchange_offset;	/* where the exchange's shared state is */
} SSortShared;

#define SSORT_SHARED_SIZE	MAXALIGN(sizeof(SSortShared))

static Size
session_sort_estimate_dsm(CustomScanState *node, ParallelContext *pcxt)
{
	SessionSortState *state = (SessionSortState *) node;
	Size		size = add_size(SSORT_SHARED_SIZE,
								MAXALIGN(wj_instr_estimate(pcxt)));

	if (state->kp_exchange)
		size = add_size(size, wj_exchange_estimate(pcxt->nworkers + 1,
												   state->kp.parts));
	return size;
}

static void
session_sort_initialize_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	SessionSortState *state = (SessionSortState *) node;
	SSortShared *sh = (SSortShared *) coordinate;

	sh->exchange_offset = add_size(SSORT_SHARED_SIZE,
								   MAXALIGN(wj_instr_estimate(pcxt)));
	wj_keypart_init_dsm(&state->kp, &sh->counter, &node->ss.ps, pcxt);
	wj_instr_init_dsm(&state->pinstr, pcxt,
					  (char *) coordinate + SSORT_SHARED_SIZE);
	if (state->kp_exchange)
		wj_exchange_init_dsm(&state->ex,
							 (char *) coordinate + sh->exchange_offset,
							 pcxt, state->kp.parts, "wjsession");
}

static void
session_sort_reinitialize_dsm(CustomScanState *node, ParallelContext *pcxt,
				 void *coordinate)
{
	SessionSortState *state = (SessionSortState *) node;

	pg_atomic_write_u32(state->kp.counter, 0);
	if (state->kp_exchange)
		wj_exchange_reinit_dsm(&state->ex);
}

static void
session_sort_initialize_worker(CustomScanState *node, shm_toc *toc, void *coordinate)
{
	SessionSortState *state = (SessionSortState *) node;
	SSortShared *sh = (SSortShared *) coordinate;

	state->kp.counter = &sh->counter;
	wj_instr_init_worker(&state->pinstr,
						 (char *) coordinate + SSORT_SHARED_SIZE);
	if (state->kp_exchange)
		wj_exchange_init_worker(&state->ex,
								(char *) coordinate + sh->exchange_offset);
}

static void
session_sort_shutdown(CustomScanState *node)
{
	SessionSortState *state = (SessionSortState *) node;

	wj_instr_shutdown(&state->pinstr, &node->ss.ps, &state->stats);
	wj_exchange_close(&state->ex);
	state->ex.shared = NULL;
}

/*
 * wj_session_sort_register
 *		Register the CustomScan methods (from _PG_init).
 */
void
wj_session_sort_register(void)
{
	RegisterCustomScanMethods(&wj_session_sort_scan_methods);
	RegisterCustomScanMethods(&wj_session_window_scan_methods);
}
