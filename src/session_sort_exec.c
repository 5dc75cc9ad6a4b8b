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
 * the first row), build the (window_start, window_end, window_time)
 * composite once in a small context, and return that same datum with every
 * row of the session.  Rows with a NULL time get a NULL window.
 *
 * Memory: the arena, the hash table and the sorting array are counted
 * against work_mem.  When they would exceed it, everything stored so far
 * and the rest of the input are fed to a tuplesort with the same keys,
 * which spills to disk as usual, and the rows come from there.  A
 * SessionWindow then reads one session at a time from the tuplesort into a
 * tuplestore (which spills too), looking one row ahead for the session's
 * end, and returns the buffered rows with its bounds.
 *
 * src/session_sort_exec.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "common/int.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"
#include "utils/sortsupport.h"
#include "utils/tuplesort.h"
#include "utils/tuplestore.h"
#include "utils/typcache.h"

#include "exec_common.h"
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

typedef enum SSortPhase
{
	SSORT_LOAD,					/* input not read yet */
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
	bool		spilled;		/* did any run fall back? */
	WjStateStats stats;
} SessionSortState;

/* The int64 quicksort of a partition's rows by time */
#define ST_SORT ssort_by_time
#define ST_ELEMENT_TYPE SSortEntry
#define ST_COMPARE(a, b) (((a)->ts > (b)->ts) - ((a)->ts < (b)->ts))
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

static Node *ssort_create_state(CustomScan *cscan);
static void ssort_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *ssort_exec(CustomScanState *node);
static void ssort_end(CustomScanState *node);
static void ssort_rescan(CustomScanState *node);
static void ssort_explain(CustomScanState *node, List *ancestors,
						  ExplainState *es);

CustomScanMethods wj_session_sort_scan_methods = {
	.CustomName = "SessionSort",
	.CreateCustomScanState = ssort_create_state,
};

CustomScanMethods wj_session_window_scan_methods = {
	.CustomName = "SessionWindow",
	.CreateCustomScanState = ssort_create_state,
};

static CustomExecMethods session_sort_exec_methods = {
	.CustomName = "SessionSort",
	.BeginCustomScan = ssort_begin,
	.ExecCustomScan = ssort_exec,
	.EndCustomScan = ssort_end,
	.ReScanCustomScan = ssort_rescan,
	.ExplainCustomScan = ssort_explain,
};

/*
 * ssort_create_state
 *		CreateCustomScanState: read the keys from custom_private.
 */
static Node *
ssort_create_state(CustomScan *cscan)
{
	SessionSortState *state = palloc0(sizeof(SessionSortState));
	List	   *attnos = list_nth(cscan->custom_private, WJ_SSORT_PRIVATE_ATTNOS);
	List	   *sortops = list_nth(cscan->custom_private, WJ_SSORT_PRIVATE_SORTOPS);
	List	   *eqops = list_nth(cscan->custom_private, WJ_SSORT_PRIVATE_EQOPS);
	List	   *colls = list_nth(cscan->custom_private, WJ_SSORT_PRIVATE_COLLS);
	List	   *nullsfirst = list_nth(cscan->custom_private, WJ_SSORT_PRIVATE_NULLSFIRST);
	int			i;

	NodeSetTag(state, T_CustomScanState);
	state->css.methods = &session_sort_exec_methods;
	state->nkeys = list_length(attnos);
	state->npart = state->nkeys - 1;
	state->attnos = palloc(sizeof(AttrNumber) * state->nkeys);
	state->sortops = palloc(sizeof(Oid) * state->nkeys);
	state->eqops = palloc(sizeof(Oid) * state->nkeys);
	state->colls = palloc(sizeof(Oid) * state->nkeys);
	state->nullsfirst = palloc(sizeof(bool) * state->nkeys);
	for (i = 0; i < state->nkeys; i++)
	{
		state->attnos[i] = list_nth_int(attnos, i);
		state->sortops[i] = list_nth_oid(sortops, i);
		state->eqops[i] = list_nth_oid(eqops, i);
		state->colls[i] = list_nth_oid(colls, i);
		state->nullsfirst[i] = list_nth_int(nullsfirst, i);
	}
	state->time_attno = state->attnos[state->npart];
	if (list_length(cscan->custom_private) > WJ_SSORT_PRIVATE_GAP)
		state->gap_const = list_nth(cscan->custom_private, WJ_SSORT_PRIVATE_GAP);
	return (Node *) state;
}

/*
 * ssort_begin
 *		BeginCustomScan: start the child and lay out the stored rows.
 */
static void
ssort_begin(CustomScanState *node, EState *estate, int eflags)
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
	state->budget = (Size) work_mem * 1024;
	state->eqfns = palloc0(sizeof(FmgrInfo) * Max(state->npart, 1));
	for (j = 0; j < state->npart; j++)
		fmgr_info(get_opcode(state->eqops[j]), &state->eqfns[j]);
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
		/* blocks double from 8kB, so a small input holds little memory */
		Size		block = Min(Max(state->arena_bytes, 8192), SSORT_ARENA_BLOCK);

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
 *		Bytes held in memory: the arena and the hash table.
 */
static Size
memory_used(SessionSortState *state)
{
	return state->arena_bytes +
		(state->hashcxt ? MemoryContextMemAllocated(state->hashcxt, true) : 0);
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
			part = (SSortPartition *) entry->additional;
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
	state->hashtable = NULL;
	state->hashcxt = NULL;
	MemSet(&state->single, 0, sizeof(SSortPartition));
	ExecClearTuple(state->key_slot);
	MemoryContextReset(state->cxt);
	state->arena_next = NULL;
	state->arena_free = 0;
	state->arena_bytes = 0;
	state->spilled = true;
	wj_state_clear(&state->stats);
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
	int64		ts;
	int			i;

	slot_getallattrs(in);

	if (state->npart > 0)
	{
		TupleHashEntry entry;
		bool		isnew;

		ExecClearTuple(state->key_slot);
		for (i = 0; i < state->npart; i++)
		{
			state->key_slot->tts_values[i] = in->tts_values[state->attnos[i] - 1];
			state->key_slot->tts_isnull[i] = in->tts_isnull[state->attnos[i] - 1];
		}
		ExecStoreVirtualTuple(state->key_slot);
		entry = LookupTupleHashEntry(state->hashtable, state->key_slot,
									 &isnew, NULL);
		if (isnew)
		{
			state->nparts++;
			part = MemoryContextAllocZero(state->hashcxt, sizeof(SSortPartition));
			part->keytuple = entry->firstTuple;
			entry->additional = part;
		}
		else
			part = (SSortPartition *) entry->additional;
	}
	else
		part = &state->single;

	if (state->nrest > 0)
	{
		MemoryContext old = MemoryContextSwitchTo(state->tmpcxt);
		MinimalTuple tmp;

		for (i = 0; i < state->nrest; i++)
		{
			state->rest_values[i] = in->tts_values[state->rest_attnos[i] - 1];
			state->rest_isnull[i] = in->tts_isnull[state->rest_attnos[i] - 1];
		}
		tmp = heap_form_minimal_tuple(state->rest_desc, state->rest_values,
									  state->rest_isnull);
		MemoryContextSwitchTo(old);
		tuple = partition_alloc(state, part, tmp->t_len);
		memcpy(tuple, tmp, tmp->t_len);
	}

	null_time = in->tts_isnull[state->time_attno - 1];
	ts = null_time ? 0 : DatumGetInt64(in->tts_values[state->time_attno - 1]);
	chain_append(state, null_time ? &part->untimed : &part->timed, ts, tuple);
	MemoryContextReset(state->tmpcxt);

	/* state accounting counts row bytes (state_stats.h): tuple and entry */
	wj_state_add(&state->stats, (int64) sizeof(SSortEntry) +
				 (tuple != NULL ? (int64) tuple->t_len : 0));
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
 *		every row of the session returns the same datum.
 */
static void
make_session(SessionSortState *state, int64 start, int64 last)
{
	Datum		values[3];
	bool		nulls[3] = {false, false, false};
	int64		end = wj_timestamp_add(last, state->gap);
	MemoryContext old;

	/* window_time must be representable too */
	(void) wj_timestamp_add(end, -WJ_WINDOW_TIME_USECS);
	MemoryContextReset(state->sesscxt);
	old = MemoryContextSwitchTo(state->sesscxt);
	values[0] = Int64GetDatum(start);
	values[1] = Int64GetDatum(end);
	values[2] = Int64GetDatum(end - WJ_WINDOW_TIME_USECS);
	state->win_datum = HeapTupleGetDatum(heap_form_tuple(state->win_desc,
														 values, nulls));
	MemoryContextSwitchTo(old);
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
			{
				state->phase = SSORT_DONE;
				return ExecClearTuple(state->css.ss.ss_ScanTupleSlot);
			}
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
 * load_input
 *		Read the whole input into the partitions (or, past work_mem, into the
 *		tuplesort), then prepare the first partition.
 */
static void
load_input(SessionSortState *state)
{
	PlanState  *child = SSORT_CHILD(state);
	int64		max_rows = 0;
	int64		i;

	state->hashcxt = AllocSetContextCreate(state->cxt, "SessionSort partitions",
										   ALLOCSET_DEFAULT_SIZES);
	state->tmpcxt = AllocSetContextCreate(state->cxt, "SessionSort row",
										  ALLOCSET_SMALL_SIZES);
	state->nparts = 0;
	if (state->npart > 0)
	{
		Oid		   *eqfuncoids;
		FmgrInfo   *hashfuncs;
		AttrNumber *keycols = palloc(sizeof(AttrNumber) * state->npart);
		MemoryContext old = MemoryContextSwitchTo(state->hashcxt);

		for (i = 0; i < state->npart; i++)
			keycols[i] = i + 1;
		execTuplesHashPrepare(state->npart, state->eqops, &eqfuncoids, &hashfuncs);
		state->hashtable =
			BuildTupleHashTableExt(&state->css.ss.ps,
								   state->key_slot->tts_tupleDescriptor,
								   state->npart, keycols, eqfuncoids, hashfuncs,
								   state->colls, 256, 0, state->hashcxt,
								   state->hashcxt, state->tmpcxt, false);
		MemoryContextSwitchTo(old);
	}

	for (;;)
	{
		TupleTableSlot *slot;

		CHECK_FOR_INTERRUPTS();
		slot = ExecProcNode(child);
		if (TupIsNull(slot))
			break;
		if (state->tuplesort != NULL)
		{
			tuplesort_puttupleslot(state->tuplesort, slot);
			continue;
		}
		store_row(state, slot);
		if (memory_used(state) > state->budget)
			spill_to_tuplesort(state);
	}

	if (state->tuplesort == NULL)
	{
		/* the partitions, in key order */
		state->parts = MemoryContextAlloc(state->cxt, sizeof(SSortPartition *) *
										  Max(state->nparts, 1));
		if (state->npart > 0)
		{
			TupleHashIterator iter;
			TupleHashEntry entry;

			i = 0;
			InitTupleHashIterator(state->hashtable, &iter);
			while ((entry = ScanTupleHashTable(state->hashtable, &iter)) != NULL)
			{
				SSortPartition *part = (SSortPartition *) entry->additional;

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
		for (i = 0; i < state->nparts; i++)
			max_rows = Max(max_rows, state->parts[i]->timed.rows);

		/* the array to sort one partition in must fit too */
		if (memory_used(state) + sizeof(SSortEntry) * max_rows > state->budget)
			spill_to_tuplesort(state);
		else
		{
			state->sorted = MemoryContextAllocHuge(state->cxt,
												   sizeof(SSortEntry) * Max(max_rows, 1));
			state->cur_part = -1;
			state->nsorted = 0;
			state->cur_row = 0;
			state->untimed_block = NULL;
			state->phase = SSORT_MEMORY;
			return;
		}
	}

	tuplesort_performsort(state->tuplesort);
	state->phase = SSORT_TUPLESORT;
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

	if (state->phase == SSORT_LOAD)
		load_input(state);

	if (state->phase == SSORT_TUPLESORT && state->win_attno != 0)
		return fallback_next(state);
	if (state->phase == SSORT_TUPLESORT)
	{
		TupleTableSlot *slot = state->sort_slot;

		/* the node's result is the scan slot (virtual): copy into it */
		if (tuplesort_gettupleslot(state->tuplesort, true, false, slot, NULL))
			return ExecCopySlot(ss->ss_ScanTupleSlot, slot);
		state->phase = SSORT_DONE;
		return ExecClearTuple(ss->ss_ScanTupleSlot);
	}

	while (state->phase == SSORT_MEMORY)
	{
		SSortPartition *part = state->cur_part >= 0 ?
		state->parts[state->cur_part] : NULL;

		if (part != NULL)
		{
			if (state->cur_row < state->nsorted)
			{
				TupleTableSlot *slot;

				if (state->win_attno == 0)
					return fill_slot(state, ss->ss_ScanTupleSlot, part,
									 &state->sorted[state->cur_row++], false);
				check_gap(state);
				if (state->cur_row > state->sess_last)
					memory_session(state);
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
			state->phase = SSORT_DONE;
	}
	return ExecClearTuple(ss->ss_ScanTupleSlot);
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
 * ssort_exec
 *		ExecCustomScan.
 */
static TupleTableSlot *
ssort_exec(CustomScanState *node)
{
	return ExecScan(&node->ss, (ExecScanAccessMtd) ssort_next,
					(ExecScanRecheckMtd) ssort_recheck);
}

/*
 * ssort_forget
 *		Drop the stored rows and the tuplesort.
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
	MemoryContextReset(state->cxt);
	state->hashtable = NULL;
	state->hashcxt = NULL;
	state->tmpcxt = NULL;
	MemSet(&state->single, 0, sizeof(SSortPartition));
	state->arena_next = NULL;
	state->arena_free = 0;
	state->arena_bytes = 0;
	state->parts = NULL;
	state->sorted = NULL;
}

/*
 * ssort_end
 *		EndCustomScan.
 */
static void
ssort_end(CustomScanState *node)
{
	SessionSortState *state = (SessionSortState *) node;

	ssort_forget(state);
	MemoryContextDelete(state->cxt);
	MemoryContextDelete(state->sesscxt);
	ExecEndNode(SSORT_CHILD(state));
}

/*
 * ssort_rescan
 *		ReScanCustomScan: read the input again on the next fetch.
 */
static void
ssort_rescan(CustomScanState *node)
{
	SessionSortState *state = (SessionSortState *) node;
	PlanState  *child = SSORT_CHILD(state);

	ssort_forget(state);
	state->phase = SSORT_LOAD;
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
 * ssort_explain
 *		ExplainCustomScan: the partition and time keys; under ANALYZE how the
 *		rows were sorted, the number of partitions and the peak state.
 */
static void
ssort_explain(CustomScanState *node, List *ancestors, ExplainState *es)
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
	if (es->analyze)
	{
		ExplainPropertyText("Sort Method",
							state->spilled ? "tuplesort (rows exceeded work_mem)" :
							"hash partitions, quicksort by time", es);
		if (!state->spilled)
			ExplainPropertyInteger("Partitions", NULL, state->nparts, es);
		wj_explain_state(&state->stats, es);
	}
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
