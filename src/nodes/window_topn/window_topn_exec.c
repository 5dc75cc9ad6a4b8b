/*-------------------------------------------------------------------------
 *
 * window_topn_exec.c
 *	  Executor of WindowTopN: the rows ranked N or better in each partition
 *	  of a ranking window, from a bounded set per partition.
 *
 * ALGORITHM
 *
 * Hashed (the normal strategy).  Each input row is hashed to its partition
 * (a simplehash table of the partitions by their PARTITION BY values, kept
 * in the partition itself) whose set holds the rows that rank N or better
 * among the partition's rows seen so far, sorted best first by the ORDER
 * BY columns.  The set is an array in the partition's own allocation, each
 * slot holding its row's first ORDER BY value (abbreviated, where the type
 * has SortSupport abbreviation, as tuplesort's datum1) beside the pointer
 * to the row: a row is compared with the set's boundary and dropped at
 * once when it cannot rank (the common case once the set is full).  The
 * bucket itself keeps the boundary's first value once the set is full,
 * and, when there are at most three PARTITION BY values of integer-like
 * types, the values too, so that most rows are dropped after reading the
 * bucket alone, without the partition or its rows: this memory traffic,
 * not the comparisons, is what the node costs per row when the partitions
 * outgrow the CPU's caches.
 * Otherwise the row is copied in at its place, found by binary search
 * after its peers (so the first-come peer wins, as a stable sort would),
 * and the set is trimmed:
 *	 row_number	 at most N rows: the N-th is dropped when a better one enters;
 *	 rank		 every row whose better rows number fewer than N: the rows
 *				 after the N-th that are not its peers are dropped (ties at
 *				 the boundary stay, so the set may hold more than N);
 *	 dense_rank	 the rows of the N best distinct values: when an N+1-th
 *				 value enters, the rows of the worst value are dropped.
 * A row dropped from a set can never rank later (rows only push it down),
 * so once the input is read each set is exactly the answer for its
 * partition; the sets are returned one after another, ranks counted as
 * WindowAgg counts them.  No order is promised between partitions.
 *
 * Memory.  The sets, the partitions' keys and the hash table live in one
 * memory context whose size is checked as rows enter.  When it exceeds
 * work_mem × hash_mem_multiplier (get_hash_memory_limit()), the node
 * switches strategy: the rows held so far (only they can still rank) and
 * the rest of the input go to a tuplesort on (partition keys, order keys),
 * which spills within work_mem, and the sorted rows are streamed out
 * partition by partition, each cut after its last row ranked N or better.
 *
 * Partial.  Under a Gather (window_topn_planner.c), each participant runs a
 * partial WindowTopN over its share of the input and returns its sets
 * unranked; the WindowTopN above the Gather ranks their union the same way.
 *
 * src/nodes/window_topn/window_topn_exec.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/parallel.h"
#include "common/hashfn.h"
#include "port/pg_bitutils.h"
#include "access/stratnum.h"
#include "executor/executor.h"
#include "executor/nodeHash.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "utils/datum.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/ruleutils.h"
#include "utils/sortsupport.h"
#include "utils/tuplesort.h"

#include "src/common/exec_common.h"
#include "src/common/explain_common.h"
#include "src/common/pg_compat.h"
#include "src/common/state_stats.h"
#include "src/nodes/window_topn/window_topn.h"

/* how often (rows entering a set) the memory in use is measured */
#define WTN_MEMORY_CHECK_EVERY	256

/* a kept row: its tuple and its ORDER BY values (pointing into it) */
typedef struct WtnRow
{
	MinimalTuple tuple;
	Datum	   *keys;
	bool	   *nulls;
} WtnRow;

/* a place in a set: the row and its first ORDER BY value (see key1()) */
typedef struct WtnSlot
{
	Datum		key1;
	bool		null1;
	WtnRow	   *row;
} WtnSlot;

/*
 * A partition: its PARTITION BY values, and its set of rows, best first.
 * One allocation holds the struct, the values and null flags (pkeys) and,
 * until the set outgrows it, the slots.
 */
typedef struct WtnGroup
{
	uint32		hash;
	int			nrows;
	int			capacity;
	int			ndistinct;		/* dense_rank: distinct values held */
	WtnSlot    *slots;
	bool	   *pnulls;
	Datum		pkeys[FLEXIBLE_ARRAY_MEMBER];
} WtnGroup;

/*
 * The key of a bucket: the partition (or, looking up, the probe: the
 * incoming row's values), and, when every PARTITION BY value is of a
 * bitwise type (bitwise_equality) and there are at most WTN_INLINE_KEYS of
 * them, the values themselves, so that finding the partition reads the
 * bucket alone.
 */
#define WTN_INLINE_KEYS 3

typedef struct WtnKey
{
	WtnGroup   *group;
	Datum		k[WTN_INLINE_KEYS];
	uint8		nulls;			/* a bit per value */
} WtnKey;

/*
 * A bucket of the table of partitions.  Once the partition's set is full,
 * bound is the first ORDER BY value of its boundary row (as the slots hold
 * it): a row whose first value is worse cannot rank, and is dropped
 * without reading the partition.
 */
typedef struct WtnEntry
{
	WtnKey		key;
	Datum		bound;
	bool		bound_null;
	bool		bounded;
	char		status;
	uint32		hash;
} WtnEntry;

struct WindowTopNState;
static inline bool same_key(struct WindowTopNState *state, WtnKey *a, WtnKey *b);

#define SH_PREFIX		wtnh
#define SH_ELEMENT_TYPE	WtnEntry
#define SH_KEY_TYPE		WtnKey
#define SH_KEY			key
#define SH_HASH_KEY(tb, key)	((key).group->hash)
#define SH_EQUAL(tb, a, b)	\
	same_key((struct WindowTopNState *) (tb)->private_data, &(a), &(b))
#define SH_STORE_HASH
#define SH_GET_HASH(tb, a)		((a)->hash)
#define SH_SCOPE		static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

typedef enum WtnPhase
{
	WTN_LOAD,					/* reading the input */
	WTN_EMIT_HASHED,			/* returning the sets */
	WTN_EMIT_SORTED,			/* returning from the tuplesort */
	WTN_DONE
} WtnPhase;

typedef struct WindowTopNState
{
	CustomScanState css;
	WindowTopNPlanInfo info;
	int			npart;
	int			norder;
	AttrNumber *part_cols;
	AttrNumber *order_cols;
	AttrNumber	maxattno;		/* the last key column */
	int			nchild;			/* the child's columns */
	SortSupport partsort;		/* per partition key (sorted strategy) */
	SortSupport ordersort;		/* per order key */

	WtnPhase	phase;
	MemoryContext setcxt;		/* the hash table, the sets, their rows */
	wtnh_hash  *hashtable;		/* the partitions (none without PARTITION BY) */
	WtnGroup   *single;			/* the partition without PARTITION BY */
	WtnEntry	single_entry;	/* and its (unhashed) bucket */
	int64		ngroups;
	FmgrInfo   *part_eqfns;		/* PARTITION BY equality */
	FmgrInfo   *part_hashfns;	/* and hash functions */
	bool	   *part_byval;
	int16	   *part_len;
	bool	   *part_bitwise;	/* equal exactly when the Datums are */
	bool		inline_keys;	/* all of them, and few: kept in the buckets */
	bool		abbrev;			/* the first ORDER BY value is abbreviated */
	WtnGroup   *probe;			/* the row being added: its partition */
	WtnKey		probe_key;		/* and its key */
	TupleTableSlot *row_slot;	/* a kept row, deformed */
	Datum	   *in_keys;		/* the row being added: its order values */
	bool	   *in_nulls;
	Datum		in_key1;		/* and its first, as slots hold it */
	bool		in_null1;
	int			since_check;	/* rows entered since memory was measured */
	Size		mem_limit;

	/* returning the sets */
	wtnh_iterator iter;
	WtnGroup   *cur;
	int			cur_row;
	int64		cur_rank;
	int64		cur_dense;

	/* the sorted strategy */
	bool		switched;
	Tuplesortstate *sort;
	TupleTableSlot *sort_slots[2];	/* the current row and the previous */
	int			sort_cur;
	bool		have_prev;
	int64		row_number;

	WjStateStats stats;
	WjParallelInstr pinstr;
} WindowTopNState;

#define WTN_CHILD(state) ((PlanState *) linitial((state)->css.custom_ps))

/* a partition's allocation: the struct and its keys, then its first slots */
#define GROUP_HEAD(state) \
	MAXALIGN(offsetof(WtnGroup, pkeys) + \
			 (state)->npart * (sizeof(Datum) + sizeof(bool)))
#define GROUP_SLOTS(state, g) ((WtnSlot *) ((char *) (g) + GROUP_HEAD(state)))

static Node *window_topn_create_state(CustomScan *cscan);
static void window_topn_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *window_topn_exec(CustomScanState *node);
static void window_topn_end(CustomScanState *node);
static void window_topn_rescan(CustomScanState *node);
static void window_topn_explain(CustomScanState *node, List *ancestors,
								ExplainState *es);
static Size window_topn_estimate_dsm(CustomScanState *node, ParallelContext *pcxt);
static void window_topn_initialize_dsm(CustomScanState *node, ParallelContext *pcxt,
									   void *coordinate);
static void window_topn_reinitialize_dsm(CustomScanState *node, ParallelContext *pcxt,
										 void *coordinate);
static void window_topn_initialize_worker(CustomScanState *node, shm_toc *toc,
										  void *coordinate);
static void window_topn_shutdown(CustomScanState *node);

CustomScanMethods wj_window_topn_scan_methods = {
	.CustomName = "WindowTopN",
	.CreateCustomScanState = window_topn_create_state,
};

static CustomExecMethods window_topn_exec_methods = {
	.CustomName = "WindowTopN",
	.BeginCustomScan = window_topn_begin,
	.ExecCustomScan = window_topn_exec,
	.EndCustomScan = window_topn_end,
	.ReScanCustomScan = window_topn_rescan,
	.EstimateDSMCustomScan = window_topn_estimate_dsm,
	.InitializeDSMCustomScan = window_topn_initialize_dsm,
	.ReInitializeDSMCustomScan = window_topn_reinitialize_dsm,
	.InitializeWorkerCustomScan = window_topn_initialize_worker,
	.ShutdownCustomScan = window_topn_shutdown,
	.ExplainCustomScan = window_topn_explain,
};

/*
 * window_topn_create_state
 *		CreateCustomScanState: read the plan's keys.
 */
static Node *
window_topn_create_state(CustomScan *cscan)
{
	WindowTopNState *state = palloc0(sizeof(WindowTopNState));
	int			i;

	NodeSetTag(state, T_CustomScanState);
	state->css.methods = &window_topn_exec_methods;
	window_topn_info_from_private(cscan->custom_private, &state->info);
	state->npart = list_length(state->info.part_cols);
	state->norder = list_length(state->info.order_cols);
	state->part_cols = palloc(sizeof(AttrNumber) * Max(state->npart, 1));
	state->order_cols = palloc(sizeof(AttrNumber) * Max(state->norder, 1));
	for (i = 0; i < state->npart; i++)
	{
		state->part_cols[i] = list_nth_int(state->info.part_cols, i);
		state->maxattno = Max(state->maxattno, state->part_cols[i]);
	}
	for (i = 0; i < state->norder; i++)
	{
		state->order_cols[i] = list_nth_int(state->info.order_cols, i);
		state->maxattno = Max(state->maxattno, state->order_cols[i]);
	}
	return (Node *) state;
}

/*
 * prepare_sortsupport
 *		SortSupport for n keys with the given operators, collations and
 *		NULLS FIRST flags; the first abbreviated if abbreviate and its type
 *		can.
 */
static SortSupport
prepare_sortsupport(int n, List *sortops, List *colls, List *nullsfirst,
					AttrNumber *cols, bool abbreviate)
{
	SortSupport ssup = palloc0(sizeof(SortSupportData) * Max(n, 1));
	int			i;

	for (i = 0; i < n; i++)
	{
		ssup[i].ssup_cxt = CurrentMemoryContext;
		ssup[i].ssup_collation = list_nth_oid(colls, i);
		ssup[i].ssup_nulls_first = list_nth_int(nullsfirst, i) != 0;
		ssup[i].ssup_attno = cols[i];
		ssup[i].abbreviate = abbreviate && i == 0;
		PrepareSortSupportFromOrderingOp(list_nth_oid(sortops, i), &ssup[i]);
	}
	return ssup;
}

/*
 * new_group
 *		An empty partition with room for its keys and a first set of slots,
 *		in setcxt.
 */
static WtnGroup *
new_group(WindowTopNState *state)
{
	int			cap = (int) Min(state->info.limit + 1, 8);
	WtnGroup   *g = MemoryContextAlloc(state->setcxt,
									   GROUP_HEAD(state) + cap * sizeof(WtnSlot));

	g->hash = 0;
	g->nrows = 0;
	g->capacity = cap;
	g->ndistinct = 0;
	g->pnulls = (bool *) &g->pkeys[state->npart];
	g->slots = GROUP_SLOTS(state, g);
	return g;
}

/*
 * same_partition
 *		Do two partitions have equal PARTITION BY values (by the partition
 *		keys' equality operators; NULLs equal, as PARTITION BY groups them)?
 */
static inline bool
same_partition(WindowTopNState *state, WtnGroup *a, WtnGroup *b)
{
	int			i;

	for (i = 0; i < state->npart; i++)
	{
		if (a->pnulls[i] || b->pnulls[i])
		{
			if (a->pnulls[i] != b->pnulls[i])
				return false;
			continue;
		}
		if (state->part_bitwise[i])
		{
			if (a->pkeys[i] != b->pkeys[i])
				return false;
			continue;
		}
		if (!DatumGetBool(FunctionCall2Coll(&state->part_eqfns[i],
											list_nth_oid(state->info.part_colls, i),
											a->pkeys[i], b->pkeys[i])))
			return false;
	}
	return true;
}

/*
 * same_key
 *		Do two bucket keys name the same partition?  The values in the keys
 *		when they are kept there, else the partitions' own.
 */
static inline bool
same_key(WindowTopNState *state, WtnKey *a, WtnKey *b)
{
	if (state->inline_keys)
	{
		if (a->nulls != b->nulls)
			return false;
		for (int i = 0; i < state->npart; i++)
		{
			if (!(a->nulls & (1 << i)) && a->k[i] != b->k[i])
				return false;
		}
		return true;
	}
	return same_partition(state, a->group, b->group);
}

/*
 * bitwise_equality
 *		Is the equality function that of a by-value integer-like type, true
 *		exactly when the two Datums are the same?  Such PARTITION BY values
 *		(integers, timestamps, dates: the window bounds and the usual keys)
 *		are hashed and compared in line, without a function call.
 */
static bool
bitwise_equality(Oid eqfunc)
{
	switch (eqfunc)
	{
		case F_BOOLEQ:
		case F_INT2EQ:
		case F_INT4EQ:
		case F_OIDEQ:
		case F_INT8EQ:
		case F_DATE_EQ:
		case F_TIMESTAMP_EQ:
		case F_TIMESTAMPTZ_EQ:
			return true;
		default:
			return false;
	}
}

/*
 * window_topn_begin
 *		BeginCustomScan: start the child, prepare keys, slots and memory.
 */
static void
window_topn_begin(CustomScanState *node, EState *estate, int eflags)
{
	WindowTopNState *state = (WindowTopNState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	TupleDesc	desc;
	int			i;

	node->custom_ps =
		list_make1(ExecInitNode(linitial(cscan->custom_plans), estate,
								eflags & ~(EXEC_FLAG_REWIND |
										   EXEC_FLAG_BACKWARD |
										   EXEC_FLAG_MARK)));
	desc = ExecGetResultType(WTN_CHILD(state));
	state->nchild = desc->natts;
	if (state->maxattno > desc->natts ||
		node->ss.ss_ScanTupleSlot->tts_tupleDescriptor->natts !=
		desc->natts + (state->info.partial ? 0 : 1))
		elog(ERROR, "WindowTopN scan tuple does not match its input");

	state->row_slot = ExecAllocTableSlot(&estate->es_tupleTable, desc,
										 &TTSOpsMinimalTuple);
	for (i = 0; i < 2; i++)
		state->sort_slots[i] = ExecAllocTableSlot(&estate->es_tupleTable, desc,
												  &TTSOpsMinimalTuple);
	state->partsort = prepare_sortsupport(state->npart, state->info.part_sortops,
										  state->info.part_colls,
										  state->info.part_nullsfirst,
										  state->part_cols, false);
	state->ordersort = prepare_sortsupport(state->norder, state->info.order_sortops,
										   state->info.order_colls,
										   state->info.order_nullsfirst,
										   state->order_cols, true);
	state->abbrev = state->norder > 0 &&
		state->ordersort[0].abbrev_converter != NULL;

	state->part_eqfns = palloc0(sizeof(FmgrInfo) * Max(state->npart, 1));
	state->part_hashfns = palloc0(sizeof(FmgrInfo) * Max(state->npart, 1));
	state->part_byval = palloc(sizeof(bool) * Max(state->npart, 1));
	state->part_len = palloc(sizeof(int16) * Max(state->npart, 1));
	state->part_bitwise = palloc(sizeof(bool) * Max(state->npart, 1));
	for (i = 0; i < state->npart; i++)
	{
		Oid			eqop = list_nth_oid(state->info.part_eqops, i);
		Oid			lhash;
		Oid			rhash;
		Form_pg_attribute att = TupleDescAttr(desc, state->part_cols[i] - 1);

		if (!get_op_hash_functions(eqop, &lhash, &rhash))
			elog(ERROR, "could not find hash function for operator %u", eqop);
		fmgr_info(get_opcode(eqop), &state->part_eqfns[i]);
		fmgr_info(lhash, &state->part_hashfns[i]);
		state->part_byval[i] = att->attbyval;
		state->part_len[i] = att->attlen;
		state->part_bitwise[i] = bitwise_equality(get_opcode(eqop));
	}
	state->inline_keys = state->npart <= WTN_INLINE_KEYS;
	for (i = 0; i < state->npart; i++)
		state->inline_keys &= state->part_bitwise[i];

	state->in_keys = palloc(sizeof(Datum) * Max(state->norder, 1));
	state->in_nulls = palloc(sizeof(bool) * Max(state->norder, 1));
	state->setcxt = AllocSetContextCreate(CurrentMemoryContext,
										  "WindowTopN sets",
										  ALLOCSET_DEFAULT_SIZES);
	state->mem_limit = get_hash_memory_limit();
	state->phase = WTN_LOAD;
	wj_state_reset(&state->stats, false);
}

/*
 * compare_rest
 *		Order of the incoming row (in_keys) or of a kept row a against the
 *		kept row b, their slots' first values being equal: the first values
 *		in full if abbreviated, then the other ORDER BY values.
 */
static int
compare_rest(WindowTopNState *state, Datum *ak, bool *an, WtnRow *b)
{
	int			i;

	if (state->abbrev)
	{
		int			c = ApplySortAbbrevFullComparator(ak[0], an[0],
													  b->keys[0], b->nulls[0],
													  &state->ordersort[0]);

		if (c != 0)
			return c;
	}
	for (i = 1; i < state->norder; i++)
	{
		int			c = ApplySortComparator(ak[i], an[i], b->keys[i], b->nulls[i],
											&state->ordersort[i]);

		if (c != 0)
			return c;
	}
	return 0;
}

/*
 * compare_in
 *		Order of the incoming row against the row of slot: < 0 if it ranks
 *		better, 0 for a peer.  The slot's first value usually decides,
 *		without reading the row.
 */
static inline int
compare_in(WindowTopNState *state, WtnSlot *slot)
{
	int			c;

	if (state->norder == 0)
		return 0;
	c = ApplySortComparator(state->in_key1, state->in_null1,
							slot->key1, slot->null1, &state->ordersort[0]);
	if (c != 0 || (state->norder == 1 && !state->abbrev))
		return c;
	return compare_rest(state, state->in_keys, state->in_nulls, slot->row);
}

/*
 * compare_held
 *		Order of two kept rows' slots.
 */
static inline int
compare_held(WindowTopNState *state, WtnSlot *a, WtnSlot *b)
{
	int			c;

	if (state->norder == 0)
		return 0;
	c = ApplySortComparator(a->key1, a->null1, b->key1, b->null1,
							&state->ordersort[0]);
	if (c != 0 || (state->norder == 1 && !state->abbrev))
		return c;
	return compare_rest(state, a->row->keys, a->row->nulls, b->row);
}

/*
 * cannot_rank
 *		Is the incoming row outside the set's ranks, with the set as it is?
 */
static inline bool
cannot_rank(WindowTopNState *state, WtnGroup *g)
{
	int64		n = state->info.limit;

	switch (state->info.kind)
	{
		case WTN_ROW_NUMBER:
			return g->nrows >= n && compare_in(state, &g->slots[n - 1]) >= 0;
		case WTN_RANK:
			return g->nrows >= n && compare_in(state, &g->slots[n - 1]) > 0;
		case WTN_DENSE_RANK:
			return g->ndistinct >= n &&
				compare_in(state, &g->slots[g->nrows - 1]) > 0;
	}
	return false;
}

/*
 * drop_last
 *		Free the set's last row.
 */
static void
drop_last(WindowTopNState *state, WtnGroup *g)
{
	WtnRow	   *row = g->slots[--g->nrows].row;

	pfree(row->tuple);
	pfree(row);
	state->stats.rows--;
}

/*
 * copy_row
 *		A kept copy of the slot's row, its ORDER BY values deformed from the
 *		copy, in setcxt.
 */
static WtnRow *
copy_row(WindowTopNState *state, TupleTableSlot *slot)
{
	MemoryContext old = MemoryContextSwitchTo(state->setcxt);
	WtnRow	   *row = palloc(sizeof(WtnRow) +
							 state->norder * (sizeof(Datum) + sizeof(bool)));
	int			i;

	row->keys = (Datum *) (row + 1);
	row->nulls = (bool *) (row->keys + state->norder);
	row->tuple = ExecCopySlotMinimalTuple(slot);
	MemoryContextSwitchTo(old);
	ExecStoreMinimalTuple(row->tuple, state->row_slot, false);
	slot_getsomeattrs(state->row_slot, state->maxattno);
	for (i = 0; i < state->norder; i++)
	{
		row->keys[i] = state->row_slot->tts_values[state->order_cols[i] - 1];
		row->nulls[i] = state->row_slot->tts_isnull[state->order_cols[i] - 1];
	}
	ExecClearTuple(state->row_slot);
	return row;
}

/*
 * add_to_set
 *		Put the incoming row (in slot, its ORDER BY values in in_keys) into
 *		its partition's set if it ranks there, and trim the set.
 */
static void
add_to_set(WindowTopNState *state, WtnGroup *g, TupleTableSlot *slot)
{
	int64		n = state->info.limit;
	int			lo = 0;
	int			hi = g->nrows;
	bool		new_value;
	WtnSlot    *place;

	if (cannot_rank(state, g))
		return;

	/* its place: after its peers */
	while (lo < hi)
	{
		int			mid = lo + (hi - lo) / 2;

		if (compare_in(state, &g->slots[mid]) >= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	new_value = lo == 0 || compare_in(state, &g->slots[lo - 1]) != 0;

	if (g->nrows == g->capacity)
	{
		/* outgrown the slots in the partition's allocation: an array */
		int			cap = g->capacity * 2;
		WtnSlot    *slots = MemoryContextAlloc(state->setcxt,
											   sizeof(WtnSlot) * cap);

		memcpy(slots, g->slots, sizeof(WtnSlot) * g->nrows);
		if (g->slots != GROUP_SLOTS(state, g))
			pfree(g->slots);
		g->slots = slots;
		g->capacity = cap;
	}
	memmove(&g->slots[lo + 1], &g->slots[lo], sizeof(WtnSlot) * (g->nrows - lo));
	place = &g->slots[lo];
	place->row = copy_row(state, slot);
	place->null1 = state->norder > 0 ? state->in_null1 : true;
	place->key1 = state->in_key1;
	if (state->norder > 0 && !state->abbrev)
		place->key1 = place->row->keys[0];	/* by reference: into the copy */
	g->nrows++;
	state->stats.rows++;
	if (state->stats.rows > state->stats.peak_rows)
		state->stats.peak_rows = state->stats.rows;

	switch (state->info.kind)
	{
		case WTN_ROW_NUMBER:
			if (g->nrows > n)
				drop_last(state, g);
			break;
		case WTN_RANK:
			while (g->nrows > n && compare_held(state, &g->slots[g->nrows - 1],
												&g->slots[n - 1]) > 0)
				drop_last(state, g);
			break;
		case WTN_DENSE_RANK:
			if (new_value)
				g->ndistinct++;
			if (g->ndistinct > n)
			{
				/* drop the rows of the worst value */
				int			first = g->nrows - 1;

				while (first > 0 &&
					   compare_held(state, &g->slots[first - 1],
									&g->slots[g->nrows - 1]) == 0)
					first--;
				while (g->nrows > first)
					drop_last(state, g);
				g->ndistinct--;
			}
			break;
	}
	state->since_check++;
}

/*
 * find_entry
 *		The bucket of the slot's partition, the partition made if new.  The
 *		probe carries the row's PARTITION BY values and their hash (combined
 *		as execGrouping.c combines them) into the table; a new partition
 *		copies them.
 */
static WtnEntry *
find_entry(WindowTopNState *state, TupleTableSlot *slot)
{
	WtnGroup   *probe = state->probe;
	WtnKey	   *key = &state->probe_key;
	WtnEntry   *entry;
	WtnGroup   *g;
	uint32		hash = 0;
	bool		found;
	int			i;

	if (state->npart == 0)
		return &state->single_entry;
	key->nulls = 0;
	for (i = 0; i < state->npart; i++)
	{
		AttrNumber	col = state->part_cols[i] - 1;

		hash = pg_rotate_left32(hash, 1);
		probe->pkeys[i] = slot->tts_values[col];
		probe->pnulls[i] = slot->tts_isnull[col];
		if (state->inline_keys)
			key->k[i] = probe->pnulls[i] ? (Datum) 0 : probe->pkeys[i];
		if (probe->pnulls[i])
		{
			key->nulls |= 1 << i;
			continue;
		}
		if (state->part_bitwise[i])
		{
			uint64		h = (uint64) probe->pkeys[i] * UINT64CONST(0x9E3779B97F4A7C15);

			hash ^= (uint32) (h ^ (h >> 32));
		}
		else
			hash ^= DatumGetUInt32(FunctionCall1Coll(&state->part_hashfns[i],
													 list_nth_oid(state->info.part_colls, i),
													 probe->pkeys[i]));
	}
	probe->hash = murmurhash32(hash);
	key->group = probe;
	entry = wtnh_insert(state->hashtable, *key, &found);
	if (found)
		return entry;

	g = new_group(state);
	g->hash = probe->hash;
	for (i = 0; i < state->npart; i++)
	{
		g->pnulls[i] = probe->pnulls[i];
		g->pkeys[i] = probe->pnulls[i] ? (Datum) 0 :
			datumCopy(probe->pkeys[i], state->part_byval[i], state->part_len[i]);
	}
	entry->key.group = g;
	entry->bounded = false;
	state->ngroups++;
	state->since_check++;
	return entry;
}

/*
 * cannot_rank_by_bound
 *		Is the incoming row's first ORDER BY value worse than the full set's
 *		boundary's (kept in its bucket)?  Then it cannot rank, whatever its
 *		other values: an abbreviated value that compares worse is worse.
 */
static inline bool
cannot_rank_by_bound(WindowTopNState *state, WtnEntry *entry)
{
	return entry->bounded &&
		ApplySortComparator(state->in_key1, state->in_null1,
							entry->bound, entry->bound_null,
							&state->ordersort[0]) > 0;
}

/*
 * set_bound
 *		After a row entered the partition's set: the boundary in its bucket,
 *		once the set is full (cannot_rank's boundary row).
 */
static inline void
set_bound(WindowTopNState *state, WtnEntry *entry)
{
	WtnGroup   *g = entry->key.group;
	int64		n = state->info.limit;
	WtnSlot    *boundary = NULL;

	if (state->norder == 0)
		return;
	if (state->info.kind == WTN_DENSE_RANK)
	{
		if (g->ndistinct >= n)
			boundary = &g->slots[g->nrows - 1];
	}
	else if (g->nrows >= n)
		boundary = &g->slots[n - 1];
	entry->bounded = boundary != NULL;
	if (boundary != NULL)
	{
		entry->bound = boundary->key1;
		entry->bound_null = boundary->null1;
	}
}

/*
 * create_sets
 *		The empty table of partitions (or the one partition), in setcxt.
 */
static void
create_sets(WindowTopNState *state)
{
	MemoryContext old = MemoryContextSwitchTo(state->setcxt);

	if (state->npart == 0)
	{
		state->single = new_group(state);
		memset(&state->single_entry, 0, sizeof(WtnEntry));
		state->single_entry.key.group = state->single;
	}
	else
	{
		state->hashtable = wtnh_create(state->setcxt, 1024, state);
		state->probe = new_group(state);
	}
	MemoryContextSwitchTo(old);
}

/*
 * put_set
 *		Put a partition's kept rows into the tuplesort.
 */
static void
put_set(WindowTopNState *state, WtnGroup *g)
{
	int			i;

	for (i = 0; i < g->nrows; i++)
	{
		ExecStoreMinimalTuple(g->slots[i].row->tuple, state->row_slot, false);
		tuplesort_puttupleslot(state->sort, state->row_slot);
	}
}

/*
 * switch_to_sort
 *		The sets outgrew the memory limit: put the rows they hold into a
 *		tuplesort, which takes the rest of the input too, and free them.
 */
static void
switch_to_sort(WindowTopNState *state)
{
	TupleDesc	desc = state->row_slot->tts_tupleDescriptor;
	int			nkeys = state->npart + state->norder;
	AttrNumber *cols = palloc(sizeof(AttrNumber) * nkeys);
	Oid		   *ops = palloc(sizeof(Oid) * nkeys);
	Oid		   *colls = palloc(sizeof(Oid) * nkeys);
	bool	   *nullsfirst = palloc(sizeof(bool) * nkeys);
	int			i;

	for (i = 0; i < nkeys; i++)
	{
		bool		part = i < state->npart;
		int			k = part ? i : i - state->npart;

		cols[i] = part ? state->part_cols[k] : state->order_cols[k];
		ops[i] = list_nth_oid(part ? state->info.part_sortops :
							  state->info.order_sortops, k);
		colls[i] = list_nth_oid(part ? state->info.part_colls :
								state->info.order_colls, k);
		nullsfirst[i] = list_nth_int(part ? state->info.part_nullsfirst :
									 state->info.order_nullsfirst, k) != 0;
	}
	state->sort = tuplesort_begin_heap(desc, nkeys, cols, ops, colls, nullsfirst,
									   work_mem, NULL, TUPLESORT_NONE);

	if (state->npart == 0)
		put_set(state, state->single);
	else
	{
		wtnh_iterator iter;
		WtnEntry   *entry;

		wtnh_start_iterate(state->hashtable, &iter);
		while ((entry = wtnh_iterate(state->hashtable, &iter)) != NULL)
		{
			CHECK_FOR_INTERRUPTS();
			put_set(state, entry->key.group);
		}
	}
	ExecClearTuple(state->row_slot);
	MemoryContextReset(state->setcxt);
	state->hashtable = NULL;
	state->single = NULL;
	state->probe = NULL;
	state->stats.rows = 0;
	state->stats.bytes = 0;
	state->switched = true;
}

/*
 * check_memory
 *		Measure the sets' memory now and then; switch to sorting when it
 *		exceeds the limit.
 */
static void
check_memory(WindowTopNState *state, bool force)
{
	Size		used;

	if (!force && state->since_check < WTN_MEMORY_CHECK_EVERY)
		return;
	state->since_check = 0;
	used = MemoryContextMemAllocated(state->setcxt, true);
	state->stats.bytes = used;
	if ((int64) used > state->stats.peak_bytes)
		state->stats.peak_bytes = used;
	/* without keys the one set holds at most N rows: nothing to sort by */
	if (used > state->mem_limit && state->npart + state->norder > 0)
		switch_to_sort(state);
}

/*
 * set_incoming
 *		The incoming row's ORDER BY values, and the first as slots hold it.
 */
static inline void
set_incoming(WindowTopNState *state, TupleTableSlot *slot)
{
	int			i;

	for (i = 0; i < state->norder; i++)
	{
		state->in_keys[i] = slot->tts_values[state->order_cols[i] - 1];
		state->in_nulls[i] = slot->tts_isnull[state->order_cols[i] - 1];
	}
	if (state->norder == 0)
	{
		state->in_key1 = (Datum) 0;
		state->in_null1 = true;
		return;
	}
	state->in_null1 = state->in_nulls[0];
	state->in_key1 = state->in_keys[0];
	if (state->abbrev && !state->in_null1)
		state->in_key1 = state->ordersort[0].abbrev_converter(state->in_keys[0],
															  &state->ordersort[0]);
}

/*
 * end_load
 *		The input is read: sort after a switch, else return the sets.
 */
static void
end_load(WindowTopNState *state)
{
	if (!state->switched)
		check_memory(state, true);
	if (state->switched)
	{
		tuplesort_performsort(state->sort);
		state->phase = WTN_EMIT_SORTED;
		state->have_prev = false;
		return;
	}
	state->phase = WTN_EMIT_HASHED;
	state->cur = NULL;
	if (state->npart > 0)
		wtnh_start_iterate(state->hashtable, &state->iter);
}

/*
 * load_input
 *		Read the whole input into the sets (or, after a switch, into the
 *		tuplesort).
 */
static void
load_input(WindowTopNState *state)
{
	PlanState  *child = WTN_CHILD(state);
	ExprContext *econtext = state->css.ss.ps.ps_ExprContext;
	WtnEntry   *entry;

	create_sets(state);
	for (;;)
	{
		TupleTableSlot *slot;

		CHECK_FOR_INTERRUPTS();
		slot = ExecProcNode(child);
		if (TupIsNull(slot))
			break;
		if (state->switched)
		{
			tuplesort_puttupleslot(state->sort, slot);
			continue;
		}
		slot_getsomeattrs(slot, state->maxattno);
		set_incoming(state, slot);
		entry = find_entry(state, slot);
		if (!cannot_rank_by_bound(state, entry))
		{
			add_to_set(state, entry->key.group, slot);
			set_bound(state, entry);
			check_memory(state, false);
		}
		ResetExprContext(econtext);
	}
	end_load(state);
}

/*
 * emit
 *		The scan tuple: the row's columns, and its rank unless partial.
 */
static TupleTableSlot *
emit(WindowTopNState *state, TupleTableSlot *src, int64 rank)
{
	TupleTableSlot *out = state->css.ss.ss_ScanTupleSlot;

	slot_getallattrs(src);
	ExecClearTuple(out);
	memcpy(out->tts_values, src->tts_values, sizeof(Datum) * state->nchild);
	memcpy(out->tts_isnull, src->tts_isnull, sizeof(bool) * state->nchild);
	if (!state->info.partial)
	{
		out->tts_values[state->nchild] = Int64GetDatum(rank);
		out->tts_isnull[state->nchild] = false;
	}
	return ExecStoreVirtualTuple(out);
}

/*
 * next_hashed
 *		The next row of the sets, with its rank.
 */
static TupleTableSlot *
next_hashed(WindowTopNState *state)
{
	for (;;)
	{
		WtnGroup   *g = state->cur;
		WtnSlot    *slot;

		CHECK_FOR_INTERRUPTS();
		if (g == NULL || state->cur_row >= g->nrows)
		{
			if (state->npart == 0)
			{
				if (g != NULL)
					return NULL;
				state->cur = state->single;
			}
			else
			{
				WtnEntry   *entry = wtnh_iterate(state->hashtable, &state->iter);

				if (entry == NULL)
					return NULL;
				state->cur = entry->key.group;
			}
			state->cur_row = 0;
			continue;
		}
		slot = &g->slots[state->cur_row];
		if (state->cur_row == 0)
		{
			state->cur_rank = 1;
			state->cur_dense = 1;
		}
		else if (compare_held(state, &g->slots[state->cur_row - 1], slot) != 0)
		{
			state->cur_rank = state->cur_row + 1;
			state->cur_dense++;
		}
		state->cur_row++;
		ExecStoreMinimalTuple(slot->row->tuple, state->row_slot, false);
		return emit(state, state->row_slot,
					state->info.kind == WTN_ROW_NUMBER ? state->cur_row :
					state->info.kind == WTN_RANK ? state->cur_rank :
					state->cur_dense);
	}
}

/*
 * compare_slots
 *		Compare two sorted rows on n keys of ssup: 0 if they are peers.  The
 *		first key in full when abbreviated (ssup's comparator then compares
 *		abbreviations only).
 */
static int
compare_slots(SortSupport ssup, int n, bool abbrev_first,
			  TupleTableSlot *a, TupleTableSlot *b)
{
	int			i;

	for (i = 0; i < n; i++)
	{
		bool		an;
		bool		bn;
		Datum		av = slot_getattr(a, ssup[i].ssup_attno, &an);
		Datum		bv = slot_getattr(b, ssup[i].ssup_attno, &bn);
		int			c = i == 0 && abbrev_first ?
			ApplySortAbbrevFullComparator(av, an, bv, bn, &ssup[i]) :
			ApplySortComparator(av, an, bv, bn, &ssup[i]);

		if (c != 0)
			return c;
	}
	return 0;
}

/*
 * next_sorted
 *		After the switch: the next sorted row ranked N or better, counting
 *		ranks along each partition.
 */
static TupleTableSlot *
next_sorted(WindowTopNState *state)
{
	for (;;)
	{
		TupleTableSlot *cur = state->sort_slots[state->sort_cur];
		TupleTableSlot *prev = state->sort_slots[1 - state->sort_cur];
		int64		value;

		CHECK_FOR_INTERRUPTS();
		if (!tuplesort_gettupleslot(state->sort, true, true, cur, NULL))
			return NULL;
		if (!state->have_prev ||
			compare_slots(state->partsort, state->npart, false, cur, prev) != 0)
		{
			state->row_number = 1;
			state->cur_rank = 1;
			state->cur_dense = 1;
		}
		else
		{
			state->row_number++;
			if (compare_slots(state->ordersort, state->norder, state->abbrev,
							  cur, prev) != 0)
			{
				state->cur_rank = state->row_number;
				state->cur_dense++;
			}
		}
		state->have_prev = true;
		state->sort_cur = 1 - state->sort_cur;
		value = state->info.kind == WTN_ROW_NUMBER ? state->row_number :
			state->info.kind == WTN_RANK ? state->cur_rank : state->cur_dense;
		if (value <= state->info.limit)
			return emit(state, cur, value);
	}
}

/*
 * wtn_next
 *		ExecScan's access method: the next row the window keeps.
 */
static TupleTableSlot *
wtn_next(ScanState *ss)
{
	WindowTopNState *state = (WindowTopNState *) ss;
	TupleTableSlot *slot = NULL;

	if (state->phase == WTN_LOAD)
		load_input(state);
	if (state->phase == WTN_EMIT_HASHED)
		slot = next_hashed(state);
	else if (state->phase == WTN_EMIT_SORTED)
		slot = next_sorted(state);
	if (slot == NULL)
	{
		state->phase = WTN_DONE;
		return ExecClearTuple(ss->ss_ScanTupleSlot);
	}
	return slot;
}

/*
 * wtn_recheck
 *		ExecScan's recheck: nothing to recheck.
 */
static bool
wtn_recheck(ScanState *ss, TupleTableSlot *slot)
{
	return true;
}

/*
 * window_topn_exec
 *		ExecCustomScan.
 */
static TupleTableSlot *
window_topn_exec(CustomScanState *node)
{
	return ExecScan(&node->ss, (ExecScanAccessMtd) wtn_next,
					(ExecScanRecheckMtd) wtn_recheck);
}

/*
 * forget
 *		Drop the sets and the tuplesort.
 */
static void
forget(WindowTopNState *state)
{
	int			i;

	ExecClearTuple(state->css.ss.ss_ScanTupleSlot);
	ExecClearTuple(state->row_slot);
	for (i = 0; i < 2; i++)
		ExecClearTuple(state->sort_slots[i]);
	if (state->sort != NULL)
	{
		tuplesort_end(state->sort);
		state->sort = NULL;
	}
	MemoryContextReset(state->setcxt);
	state->hashtable = NULL;
	state->single = NULL;
	state->probe = NULL;
	state->cur = NULL;
	state->ngroups = 0;
	state->switched = false;
	state->since_check = 0;
	state->stats.rows = 0;
	state->stats.bytes = 0;
}

/*
 * window_topn_end
 *		EndCustomScan.
 */
static void
window_topn_end(CustomScanState *node)
{
	WindowTopNState *state = (WindowTopNState *) node;

	forget(state);
	MemoryContextDelete(state->setcxt);
	ExecEndNode(WTN_CHILD(state));
}

/*
 * window_topn_rescan
 *		ReScanCustomScan: read the input again on the next fetch.
 */
static void
window_topn_rescan(CustomScanState *node)
{
	WindowTopNState *state = (WindowTopNState *) node;

	forget(state);
	state->phase = WTN_LOAD;
	wj_rescan_child(node, WTN_CHILD(state));
}

/*
 * key_text
 *		A key column as EXPLAIN shows it, with its direction for ORDER BY.
 */
static char *
key_text(WindowTopNState *state, AttrNumber attno, Oid sortop, bool nullsfirst,
		 bool order, List *context, bool useprefix)
{
	TupleDesc	desc = state->css.ss.ss_ScanTupleSlot->tts_tupleDescriptor;
	Form_pg_attribute att = TupleDescAttr(desc, attno - 1);
	Var		   *var = makeVar(INDEX_VAR, attno, att->atttypid, att->atttypmod,
							  att->attcollation, 0);
	StringInfoData buf;
	Oid			opfamily;
	Oid			opcintype;
	int16		strategy = BTLessStrategyNumber;
	bool		desc_order;

	initStringInfo(&buf);
	appendStringInfoString(&buf, deparse_expression((Node *) var, context,
													useprefix, false));
	if (!order)
		return buf.data;
	if (!wj_ordering_op_strategy(sortop, &opfamily, &opcintype, &strategy))
		strategy = BTLessStrategyNumber;
	desc_order = strategy == BTGreaterStrategyNumber;
	if (desc_order)
		appendStringInfoString(&buf, " DESC");
	if (nullsfirst != desc_order)
		appendStringInfoString(&buf, nullsfirst ? " NULLS FIRST" : " NULLS LAST");
	return buf.data;
}

/*
 * window_topn_explain
 *		ExplainCustomScan: the keys and the bound; under ANALYZE the
 *		strategy, the partitions and the peak state.
 */
static void
window_topn_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	WindowTopNState *state = (WindowTopNState *) node;
	static const char *const names[] = {"row_number()", "rank()", "dense_rank()"};
	bool		useprefix;
	List	   *context = wj_explain_context(node, ancestors, es, &useprefix);
	List	   *keys = NIL;
	int			i;

	for (i = 0; i < state->npart; i++)
		keys = lappend(keys, key_text(state, state->part_cols[i], InvalidOid,
									  false, false, context, useprefix));
	if (keys != NIL)
		ExplainPropertyList("Partition Key", keys, es);
	keys = NIL;
	for (i = 0; i < state->norder; i++)
		keys = lappend(keys, key_text(state, state->order_cols[i],
									  list_nth_oid(state->info.order_sortops, i),
									  list_nth_int(state->info.order_nullsfirst, i) != 0,
									  true, context, useprefix));
	if (keys != NIL)
		ExplainPropertyList("Order Key", keys, es);
	ExplainPropertyText(state->info.partial ? "Top N per Participant" : "Top N",
						psprintf("%s <= " INT64_FORMAT, names[state->info.kind],
								 state->info.limit), es);
	if (es->analyze)
	{
		ExplainPropertyText("Strategy",
							state->switched ?
							"sorted (the sets exceeded work_mem x hash_mem_multiplier)" :
							"hashed", es);
		if (!state->switched)
			ExplainPropertyInteger("Partitions", NULL,
								   state->npart == 0 ? 1 : state->ngroups, es);
		wj_explain_state(&state->stats, es);
		wj_explain_workers(&state->pinstr, &node->ss.ps, &state->stats, es);
	}
}

/*
 * window_topn_estimate_dsm, window_topn_initialize_dsm,
 * window_topn_reinitialize_dsm, window_topn_initialize_worker,
 * window_topn_shutdown
 *		A partial WindowTopN under a Gather shares nothing but each
 *		worker's peak state for EXPLAIN ANALYZE (state_stats.h).
 */
static Size
window_topn_estimate_dsm(CustomScanState *node, ParallelContext *pcxt)
{
	return MAXALIGN(wj_instr_estimate(pcxt));
}

static void
window_topn_initialize_dsm(CustomScanState *node, ParallelContext *pcxt,
						   void *coordinate)
{
	WindowTopNState *state = (WindowTopNState *) node;

	wj_instr_init_dsm(&state->pinstr, pcxt, coordinate);
}

static void
window_topn_reinitialize_dsm(CustomScanState *node, ParallelContext *pcxt,
							 void *coordinate)
{
}

static void
window_topn_initialize_worker(CustomScanState *node, shm_toc *toc,
							  void *coordinate)
{
	WindowTopNState *state = (WindowTopNState *) node;

	wj_instr_init_worker(&state->pinstr, coordinate);
}

static void
window_topn_shutdown(CustomScanState *node)
{
	WindowTopNState *state = (WindowTopNState *) node;

	wj_instr_shutdown(&state->pinstr, &node->ss.ps, &state->stats);
}

/*
 * wj_window_topn_register
 *		Register the CustomScan methods (from _PG_init).
 */
void
wj_window_topn_register(void)
{
	RegisterCustomScanMethods(&wj_window_topn_scan_methods);
}
