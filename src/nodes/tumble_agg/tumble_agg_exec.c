/*-------------------------------------------------------------------------
 *
 * tumble_agg_exec.c
 *	  TumbleAgg: the executor of a tumbling-window aggregate (see
 *	  tumble_agg_planner.c).
 *
 * The child returns (time, keys..., aggregate arguments...).  For each row
 * the node computes the window's start as integer arithmetic on the time
 * (wj_window_floor: the same as tumble() and date_bin()), finds the row's
 * group and feeds the aggregates' cells (tumble_agg_state.c).  Groups are
 * kept one of two ways:
 *
 *	dense	 without keys, an array of windows indexed by (start - base) /
 *			 unit, grown as windows appear (a NULL or infinite time has a
 *			 group of its own beside it); with one integer key, an array of
 *			 windows by key values (key - kbase): no hashing at all;
 *	hashed	 a TupleHashTable on (start, keys) (execGrouping.c), whose
 *			 entries point to the cells.  A dense array turns hashed when
 *			 its windows would be sparse or exceed the memory limit.
 *
 * (tumble_agg_groups.c keeps the groups; tumble_agg_state.c the cells.)
 *
 * Memory: when the groups exceed work_mem x hash_mem_multiplier, every
 * group is written out as a partial row (start, keys, sequence number,
 * cells) into a tuplesort (which spills to disk within work_mem) and the
 * table starts empty.  At the end, if anything was written out, the
 * remaining groups follow, the sort runs and consecutive rows of one group
 * are merged (in the order they were written, so the states are combined
 * in input order).  Like HashAggregate, the node needs no statistics to
 * stay within its memory.
 *
 * In parallel (a parallel-aware plan under a Gather), the participants
 * exchange window partitions through temporary files (row_exchange.c),
 * one of two ways chosen by the planner:
 *
 *	groups	 each participant aggregates its share of the rows, then writes
 *			 its groups as partial rows into their windows' partitions;
 *	rows	 when the groups are nearly as many as the rows (a participant's
 *			 table would be as large as the whole result and save little),
 *			 each participant writes its rows as they are into their
 *			 windows' partitions, aggregating nothing.
 *
 * When every participant has written, each claims partitions and
 * aggregates each one (merging partial rows, or the rows themselves: the
 * same table and spill, a partition's groups only) and returns finished
 * groups, so the Gather only collects.
 *
 * The scan tuple is (window columns..., keys..., aggregates...): window
 * columns are the window start plus a constant (window_end, date_bin(...)
 * + interval '1 minute'); HAVING and the output expressions are evaluated
 * over it by ExecScan.
 *
 * src/nodes/tumble_agg/tumble_agg_exec.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/parallel.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_type.h"
#include "common/int.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "utils/builtins.h"
#include "utils/ruleutils.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/tuplesort.h"

#include "src/common/exec_common.h"
#include "src/common/explain_common.h"
#include "src/common/pg_compat.h"
#include "src/common/state_stats.h"
#include "src/common/window_arith.h"
#include "src/nodes/tumble_agg/tumble_agg_internal.h"
#include "src/parallel/row_exchange.h"

/* window partitions of groups per planned participant, and at most */
#define TA_PARTS_PER_PARTICIPANT 4
#define TA_MAX_PARTS			64



static Node *tumble_agg_create_state(CustomScan *cscan);
static void tumble_agg_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *tumble_agg_exec(CustomScanState *node);
static void tumble_agg_end(CustomScanState *node);
static void tumble_agg_rescan(CustomScanState *node);
static void tumble_agg_explain(CustomScanState *node, List *ancestors,
							   ExplainState *es);
static Size tumble_agg_estimate_dsm(CustomScanState *node, ParallelContext *pcxt);
static void tumble_agg_initialize_dsm(CustomScanState *node, ParallelContext *pcxt,
									  void *coordinate);
static void tumble_agg_reinitialize_dsm(CustomScanState *node,
										ParallelContext *pcxt, void *coordinate);
static void tumble_agg_initialize_worker(CustomScanState *node, shm_toc *toc,
										 void *coordinate);
static void tumble_agg_shutdown(CustomScanState *node);
static void ta_merge_row_cells(TumbleAggState *state, TaCell *cells,
							   TupleTableSlot *row, MemoryContext cxt);

CustomScanMethods wj_tumble_agg_scan_methods = {
	.CustomName = "TumbleAgg",
	.CreateCustomScanState = tumble_agg_create_state,
};

static CustomExecMethods tumble_agg_exec_methods = {
	.CustomName = "TumbleAgg",
	.BeginCustomScan = tumble_agg_begin,
	.ExecCustomScan = tumble_agg_exec,
	.EndCustomScan = tumble_agg_end,
	.ReScanCustomScan = tumble_agg_rescan,
	.ExplainCustomScan = tumble_agg_explain,
	.EstimateDSMCustomScan = tumble_agg_estimate_dsm,
	.InitializeDSMCustomScan = tumble_agg_initialize_dsm,
	.ReInitializeDSMCustomScan = tumble_agg_reinitialize_dsm,
	.InitializeWorkerCustomScan = tumble_agg_initialize_worker,
	.ShutdownCustomScan = tumble_agg_shutdown,
};

/*
 * tumble_agg_create_state
 *		CreateCustomScanState: the node's state with its plan data.
 */
static Node *
tumble_agg_create_state(CustomScan *cscan)
{
	TumbleAggState *state = palloc0(sizeof(TumbleAggState));

	NodeSetTag(state, T_CustomScanState);
	state->css.methods = &tumble_agg_exec_methods;
	tumble_agg_info_from_private(cscan->custom_private, &state->info);
	state->nkeys = state->info.nkeys;
	state->naggs = state->info.naggs;
	return (Node *) state;
}

/*
 * ta_write_group
 *		A group as a partial row in state->partslot.
 */
static TupleTableSlot *
ta_partial_row(TumbleAggState *state, int64 start, bool start_null,
			   TupleTableSlot *keys, TaCell *cells)
{
	TupleTableSlot *ps = state->partslot;

	ExecClearTuple(ps);
	ps->tts_values[0] = Int64GetDatum(start);
	ps->tts_isnull[0] = start_null;
	for (int k = 0; k < state->nkeys; k++)
	{
		if (keys == NULL)
		{
			ps->tts_values[k + 1] = (Datum) 0;
			ps->tts_isnull[k + 1] = true;
		}
		else
			ps->tts_values[k + 1] = slot_getattr(keys, k + 2,
												 &ps->tts_isnull[k + 1]);
	}
	ps->tts_values[state->nkeys + 1] = Int64GetDatum(state->seq++);
	ps->tts_isnull[state->nkeys + 1] = false;
	resetStringInfo(&state->buf);
	appendStringInfoSpaces(&state->buf, VARHDRSZ);
	ta_cells_write(cells, state->info.aggs, state->naggs, &state->buf);
	SET_VARSIZE(state->buf.data, state->buf.len);
	ps->tts_values[state->nkeys + 2] = PointerGetDatum(state->buf.data);
	ps->tts_isnull[state->nkeys + 2] = false;
	return ExecStoreVirtualTuple(ps);
}

/* where ta_dump_groups sends each partial row */
typedef void (*TaPartialSink) (TumbleAggState *state, int64 start,
							   bool start_null, TupleTableSlot *row);

/*
 * ta_dump_groups
 *		Every group in memory as a partial row to sink, then forget them.
 */
static void
ta_dump_groups(TumbleAggState *state, TaPartialSink sink)
{
	TaCell	   *cells;
	int64		start;
	bool		start_null;
	TupleTableSlot *keys;

	ta_groups_start(state);
	while ((cells = ta_groups_next(state, &start, &start_null, &keys)) != NULL)
	{
		CHECK_FOR_INTERRUPTS();
		sink(state, start, start_null, ta_partial_row(state, start, start_null, keys, cells));
	}
	state->dumps++;
	ta_reset_groups(state);
}

/* ta_dump_groups' sink for a spill: into the sort */
static void
ta_sink_sort(TumbleAggState *state, int64 start, bool start_null,
			 TupleTableSlot *row)
{
	tuplesort_puttupleslot(state->sort, row);
}

/*
 * ta_part_of
 *		The exchange partition of a window: windows in turn; a NULL or
 *		infinite one in the first.
 */
int
ta_part_of(TumbleAggState *state, int64 start, bool start_null)
{
	int64		w;

	if (start_null || TIMESTAMP_NOT_FINITE(start))
		return 0;
	w = (start - state->info.offset) / state->info.unit;
	return (int) (((w % state->nparts) + state->nparts) % state->nparts);
}

/*
 * ta_partition_stride
 *		A window partition holds every nparts-th window (ta_part_of): its
 *		dense array is indexed by those alone, so that it is as small as
 *		the partition's windows and not as the whole time span.
 */
static void
ta_partition_stride(TumbleAggState *state)
{
	if (pg_mul_s64_overflow(state->info.unit, state->nparts, &state->dstride))
		state->dstride = state->info.unit;
}

/* ... and for the parallel exchange: into the window's partition */
static void
ta_sink_exchange(TumbleAggState *state, int64 start, bool start_null,
				 TupleTableSlot *row)
{
	wj_exchange_put(&state->ex, ta_part_of(state, start, start_null), row);
}

/*
 * ta_begin_sort
 *		The tuplesort of partial rows, on (start, keys, seq).
 */
static void
ta_begin_sort(TumbleAggState *state)
{
	int			n = state->nkeys + 2;
	AttrNumber *cols = palloc(sizeof(AttrNumber) * n);
	Oid		   *ops = palloc(sizeof(Oid) * n);
	Oid		   *colls = palloc(sizeof(Oid) * n);
	bool	   *nullsfirst = palloc0(sizeof(bool) * n);
	ListCell   *lc;
	int			k = 1;

	cols[0] = 1;
	ops[0] = Int8LessOperator;
	colls[0] = InvalidOid;
	foreach(lc, state->info.key_sortops)
	{
		cols[k] = k + 1;
		ops[k] = lfirst_oid(lc);
		colls[k] = state->collations[k];
		k++;
	}
	cols[k] = state->nkeys + 2;
	ops[k] = Int8LessOperator;
	colls[k] = InvalidOid;
	state->sort = tuplesort_begin_heap(state->partdesc, n, cols, ops, colls,
									   nullsfirst, work_mem, NULL, 0);
	state->ever_spilled = true;
}

/*
 * ta_spill
 *		Memory is full: the groups go to the sort.
 */
static void
ta_spill(TumbleAggState *state)
{
	if (state->sort == NULL)
		ta_begin_sort(state);
	state->spilled = true;
	ta_dump_groups(state, ta_sink_sort);
}

/*
 * ta_check_memory
 *		After a new group: over the limit?  Then spill (serial) or write the
 *		groups to the exchange (parallel, while consuming).
 */
void
ta_check_memory(TumbleAggState *state, bool exchanging)
{
	if ((state->groups & 255) != 0 || ta_group_bytes(state) <= state->mem_limit)
		return;
	if (exchanging)
		ta_dump_groups(state, ta_sink_exchange);
	else
		ta_spill(state);
}

/* rows per batch of the integer-key table */
#define TA_BATCH 16

/*
 * ta_next_input
 *		The next row to aggregate: the child's (child), or, when aggregating
 *		an exchanged partition of rows (child NULL), the partition's.  NULL
 *		at the end.
 */
static inline TupleTableSlot *
ta_next_input(TumbleAggState *state, PlanState *child)
{
	if (child == NULL)
		return wj_exchange_read(&state->ex, state->rawslot);
	return ExecProcNode(child);
}

/* the input of ta_consume: the child, or NULL for the partition's rows */
static inline PlanState *
ta_input(TumbleAggState *state)
{
	return state->from_exchange ? NULL : (PlanState *) linitial(state->css.custom_ps);
}

/*
 * ta_consume_batched
 *		Aggregate every row of the child into the dense array or the
 *		integer-key table, in batches: for a batch of rows the windows (and
 *		the keys' hashes, their buckets prefetched) are computed and the
 *		values prepared, then the groups' cells are found and prefetched,
 *		then the values added.  The cache misses of a dense array or table
 *		larger than the cache thus overlap instead of following one another.
 *		Returns false (having read nothing) when the groups are in the
 *		generic hash table.
 */
static bool
ta_consume_batched(TumbleAggState *state, bool exchanging)
{
	PlanState  *child = ta_input(state);
	int64		starts[TA_BATCH];
	bool		start_nulls[TA_BATCH];
	TaIntKey	keys[TA_BATCH];
	uint32		hashes[TA_BATCH];
	TaCell	   *cells[TA_BATCH];
	TaValue    *vals = state->batchvals;
	bool		done = false;

	if (!state->dense && !state->intkeys)
		return false;
	if (!state->dense && !state->hashed_built)
		ta_build_hashtable(state);

	while (!done)
	{
		int			n = 0;
		int64		before = state->groups;
		bool		dense = state->dense;

		/* the windows, the keys (hashed, their buckets prefetched), the values */
		while (n < TA_BATCH)
		{
			TupleTableSlot *slot;
			bool		isnull;
			Datum		t;

			CHECK_FOR_INTERRUPTS();
			slot = ta_next_input(state, child);
			if (TupIsNull(slot))
			{
				done = true;
				break;
			}
			t = slot_getattr(slot, state->timecol, &isnull);
			starts[n] = ta_window_start(state, t, isnull, &start_nulls[n]);
			if (!dense)
				hashes[n] = ta_int_key(state->inttable, starts[n], start_nulls[n], slot,
									   state->inkeycols, &keys[n]);
			else
			{
				int64		s;

				/* the dense array's key: keys[n].k[0], NULL as keys[n].nulls */
				keys[n].nulls = 0;
				keys[n].k[0] = 0;
				if (state->dkeyed)
				{
					keys[n].k[0] = ta_dense_key(state, slot, state->inkeycols[0],
												&isnull);
					keys[n].nulls = isnull;
				}
				/* its slot's flag and cells, for the lookup a batch later */
				s = ta_dense_slot(state, starts[n], start_nulls[n], keys[n].k[0],
								  keys[n].nulls != 0);
				if (s >= 0)
				{
					__builtin_prefetch(&state->dused[s]);
					__builtin_prefetch(&state->dcells[s * state->naggs]);
				}
			}
			for (int a = 0; a < state->naggs; a++)
			{
				Datum		v = (Datum) 0;
				bool		vnull = true;

				if (state->argcols[a] > 0)
					v = slot_getattr(slot, state->argcols[a], &vnull);
				ta_value_prepare(&vals[n * state->naggs + a], &state->info.aggs[a],
								 v, vnull, state->rowcxt);
			}
			n++;
		}

		/*
		 * The groups' cells.  A dense array that grows (or turns into a
		 * table) moves the cells found so far: then start over, finding
		 * them again (in the table, if it turned into one).
		 */
		for (int i = 0; i < n; i++)
		{
			int64		layout = state->layout;

			if (!dense)
			{
				bool		isnew;
				TaCell	  **p;

				p = ta_int_lookup_key(state->inttable, &keys[i], hashes[i], &isnew);
				if (isnew)
					*p = ta_new_cells(state);
				cells[i] = *p;
			}
			else if ((cells[i] = ta_dense_hit(state, starts[i], start_nulls[i],
											   keys[i].k[0], keys[i].nulls != 0)) == NULL)
			{
				cells[i] = ta_group_cells_int(state, starts[i], start_nulls[i],
											  keys[i].k[0], keys[i].nulls != 0);
				if (state->layout != layout)
				{
					i = -1;		/* moved: find them all again */
					continue;
				}
			}
			__builtin_prefetch(cells[i]);
		}

		for (int i = 0; i < n; i++)
			for (int a = 0; a < state->naggs; a++)
				ta_cell_add_value(&cells[i][a], &state->info.aggs[a],
								  &vals[i * state->naggs + a], state->groupcxt);
		MemoryContextReset(state->rowcxt);
		if (state->groups != before)
			ta_check_memory(state, exchanging);
	}
	return true;
}

/*
 * ta_consume
 *		Aggregate every row of the input (ta_next_input).
 */
static void
ta_consume(TumbleAggState *state, bool exchanging)
{
	PlanState  *child = ta_input(state);

	if (ta_consume_batched(state, exchanging))
		return;
	for (;;)
	{
		TupleTableSlot *slot;
		bool		isnull;
		bool		start_null;
		Datum		t;
		int64		start;
		TaCell	   *cells;
		int64		before;
		MemoryContext old;

		CHECK_FOR_INTERRUPTS();
		slot = ta_next_input(state, child);
		if (TupIsNull(slot))
			break;
		t = slot_getattr(slot, state->timecol, &isnull);
		start = ta_window_start(state, t, isnull, &start_null);
		before = state->groups;
		cells = ta_group_cells(state, start, start_null, slot, state->inkeycols);
		old = MemoryContextSwitchTo(state->rowcxt);
		for (int a = 0; a < state->naggs; a++)
		{
			Datum		v = (Datum) 0;
			bool		vnull = true;

			if (state->argcols[a] > 0)
				v = slot_getattr(slot, state->argcols[a], &vnull);
			ta_cell_add(&cells[a], &state->info.aggs[a], v, vnull, state->groupcxt);
		}
		MemoryContextSwitchTo(old);
		MemoryContextReset(state->rowcxt);
		if (state->groups != before)
			ta_check_memory(state, exchanging);
	}
}

/*
 * ta_merge_partial
 *		Merge one partial row into its group in memory.
 */
static void
ta_merge_partial(TumbleAggState *state, TupleTableSlot *row)
{
	bool		isnull;
	int64		start = DatumGetInt64(slot_getattr(row, 1, &isnull));
	int64		before = state->groups;
	TaCell	   *cells = ta_group_cells(state, start, isnull, row, state->partkeycols);

	ta_merge_row_cells(state, cells, row, state->groupcxt);
	MemoryContextReset(state->rowcxt);
	if (state->groups != before)
		ta_check_memory(state, false);
}

/*
 * ta_produce
 *		produce() of the exchange's write phase: aggregate and write the
 *		groups, or write the rows into their windows' partitions.
 */
static void
ta_produce(void *arg, WjExchange *ex)
{
	TumbleAggState *state = (TumbleAggState *) arg;
	PlanState  *child = (PlanState *) linitial(state->css.custom_ps);

	if (!state->info.exchange_rows)
	{
		ta_consume(state, true);
		/* a dense array into shared memory, else partial rows into files */
		if (!state->info.exchange_shared ||
			!ta_shared_publish(state, state->sharedarrays, state->area))
			ta_dump_groups(state, ta_sink_exchange);
		return;
	}
	for (;;)
	{
		TupleTableSlot *slot;
		bool		isnull;
		bool		start_null;
		int64		start;
		Datum		t;

		CHECK_FOR_INTERRUPTS();
		slot = ExecProcNode(child);
		if (TupIsNull(slot))
			break;
		t = slot_getattr(slot, state->timecol, &isnull);
		start = ta_window_start(state, t, isnull, &start_null);
		wj_exchange_put(ex, ta_part_of(state, start, start_null), slot);
	}
}

/*
 * ta_finish_input
 *		After the input (or a partition) is merged: emit from memory, or,
 *		if groups were spilled, sort them with the rest and emit merged.
 */
static void
ta_finish_input(TumbleAggState *state)
{
	if (!state->spilled)
	{
		state->phase = TA_EMIT;
		ta_groups_start(state);
		return;
	}
	ta_dump_groups(state, ta_sink_sort);
	tuplesort_performsort(state->sort);
	state->phase = TA_EMIT_SORTED;
	state->pending = tuplesort_gettupleslot(state->sort, true, true,
											state->partslot2, NULL);
}

/*
 * ta_fill_scan
 *		The scan tuple of a finished group: window columns from start, keys
 *		from keyslot (columns 2 ..), the aggregates' results.
 */
static TupleTableSlot *
ta_fill_scan(TumbleAggState *state, int64 start, bool start_null,
			 TupleTableSlot *keyslot, TaCell *cells)
{
	TupleTableSlot *slot = state->css.ss.ss_ScanTupleSlot;
	int			col = 0;
	MemoryContext old;

	ExecClearTuple(slot);
	old = MemoryContextSwitchTo(state->css.ss.ps.ps_ExprContext->ecxt_per_tuple_memory);
	for (int w = 0; w < state->info.nwindowcols; w++, col++)
	{
		slot->tts_isnull[col] = start_null;
		if (start_null)
			slot->tts_values[col] = (Datum) 0;
		else if (TIMESTAMP_NOT_FINITE(start))
			slot->tts_values[col] = Int64GetDatum(start);
		else if (state->info.bucket == TA_BUCKET_TUMBLE)
			slot->tts_values[col] = Int64GetDatum(wj_timestamp_add(start, state->info.deltas[w]));
		else
		{
			/* timestamp_pl_interval's result and error */
			int64		v;

			if (pg_add_s64_overflow(start, state->info.deltas[w], &v) ||
				!IS_VALID_TIMESTAMP(v))
				ta_timestamp_out_of_range();
			slot->tts_values[col] = Int64GetDatum(v);
		}
	}
	for (int k = 0; k < state->nkeys; k++, col++)
	{
		if (keyslot == NULL)
		{
			slot->tts_values[col] = (Datum) 0;
			slot->tts_isnull[col] = true;
		}
		else
			slot->tts_values[col] = slot_getattr(keyslot, k + 2,
												 &slot->tts_isnull[col]);
	}
	for (int a = 0; a < state->naggs; a++, col++)
		slot->tts_values[col] = ta_cell_final(&cells[a], &state->info.aggs[a],
											  &slot->tts_isnull[col]);
	MemoryContextSwitchTo(old);
	state->windows_out++;
	return ExecStoreVirtualTuple(slot);
}

/*
 * ta_next_in_memory
 *		The next group in memory as a scan tuple, or NULL.
 */
static TupleTableSlot *
ta_next_in_memory(TumbleAggState *state)
{
	int64		start;
	bool		start_null;
	TupleTableSlot *keys;
	TaCell	   *cells = ta_groups_next(state, &start, &start_null, &keys);

	if (cells == NULL)
		return NULL;
	return ta_fill_scan(state, start, start_null, keys, cells);
}

/*
 * ta_merge_row_cells
 *		Merge the cells of a partial row into cells, in cxt.
 */
static void
ta_merge_row_cells(TumbleAggState *state, TaCell *cells, TupleTableSlot *row,
				   MemoryContext cxt)
{
	MemoryContext old = MemoryContextSwitchTo(state->rowcxt);
	TaCell	   *other = palloc(sizeof(TaCell) * Max(state->naggs, 1));
	bool		isnull;
	bytea	   *blob = DatumGetByteaPP(slot_getattr(row, state->nkeys + 3, &isnull));

	ta_cells_read(other, state->info.aggs, state->naggs, VARDATA_ANY(blob),
				  VARSIZE_ANY_EXHDR(blob), state->rowcxt);
	for (int a = 0; a < state->naggs; a++)
		ta_cell_merge(&cells[a], &other[a], &state->info.aggs[a], cxt);
	MemoryContextSwitchTo(old);
}

/*
 * ta_next_sorted
 *		The next group of the sorted partial rows, merged, or NULL.  The
 *		group's first row is kept in groupslot while the next ones are read
 *		into partslot2; the first row of the next group stays there.
 */
static TupleTableSlot *
ta_next_sorted(TumbleAggState *state)
{
	ExprContext *econtext = state->css.ss.ps.ps_ExprContext;
	bool		isnull;
	int64		start;

	if (!state->pending)
		return NULL;
	MemoryContextReset(state->mergecxt);
	ExecCopySlot(state->groupslot, state->partslot2);
	memset(state->mcells, 0, sizeof(TaCell) * Max(state->naggs, 1));
	ta_merge_row_cells(state, state->mcells, state->partslot2, state->mergecxt);
	MemoryContextReset(state->rowcxt);
	for (;;)
	{
		CHECK_FOR_INTERRUPTS();
		if (!tuplesort_gettupleslot(state->sort, true, true, state->partslot2, NULL))
		{
			state->pending = false;
			break;
		}
		econtext->ecxt_outertuple = state->groupslot;
		econtext->ecxt_innertuple = state->partslot2;
		if (!ExecQualAndReset(state->parteq, econtext))
			break;				/* the next group's first row */
		ta_merge_row_cells(state, state->mcells, state->partslot2, state->mergecxt);
		MemoryContextReset(state->rowcxt);
	}
	start = DatumGetInt64(slot_getattr(state->groupslot, 1, &isnull));
	return ta_fill_scan(state, start, isnull, state->groupslot, state->mcells);
}

/*
 * ta_next_group
 *		ExecScan's access method: the next finished group.
 */
static TupleTableSlot *
ta_next_group(ScanState *ss)
{
	TumbleAggState *state = (TumbleAggState *) ss;

	/* the leader may leave its share to the workers (docs/parallel.md) */
	if (wj_leader_leaves_share(&state->leader, &ss->ps))
		return NULL;

	for (;;)
	{
		TupleTableSlot *slot;

		switch (state->phase)
		{
			case TA_CONSUME:
				if (state->ex.shared != NULL)
				{
					wj_exchange_write_all(&state->ex, state->css.ss.ps.state->es_query_cxt,
										  ta_produce, state);
					state->phase = TA_NEXT_PART;
					continue;
				}
				ta_consume(state, false);
				ta_finish_input(state);
				continue;
			case TA_EMIT:
				slot = ta_next_in_memory(state);
				if (slot != NULL)
					return slot;
				state->phase = state->ex.shared != NULL ? TA_NEXT_PART : TA_DONE;
				continue;
			case TA_EMIT_SORTED:
				slot = ta_next_sorted(state);
				if (slot != NULL)
					return slot;
				{
					TuplesortInstrumentation st;

					tuplesort_get_stats(state->sort, &st);
					if (st.spaceType == SORT_SPACE_TYPE_DISK)
						state->disk_kb = Max(state->disk_kb, st.spaceUsed);
				}
				tuplesort_end(state->sort);
				state->sort = NULL;
				state->spilled = false;
				state->phase = state->ex.shared != NULL ? TA_NEXT_PART : TA_DONE;
				continue;
			case TA_NEXT_PART:
				{
					int			p = wj_exchange_claim(&state->ex);

					if (p < 0)
					{
						state->phase = TA_DONE;
						continue;
					}
					ta_reset_groups(state);
					ta_partition_stride(state);
					wj_exchange_open(&state->ex, p);
					if (state->info.exchange_rows)
					{
						/* the partition's rows, as the child's would be */
						state->from_exchange = true;
						ta_consume(state, false);
						state->from_exchange = false;
					}
					else
					{
						while ((slot = wj_exchange_read(&state->ex, state->readslot)) != NULL)
						{
							CHECK_FOR_INTERRUPTS();
							ta_merge_partial(state, slot);
						}
						if (state->info.exchange_shared)
							ta_shared_merge(state, state->sharedarrays, state->area, p);
					}
					ta_finish_input(state);
					continue;
				}
			case TA_DONE:
				return NULL;
		}
	}
}

/* ExecScan's recheck: nothing to recheck */
static bool
ta_recheck(ScanState *ss, TupleTableSlot *slot)
{
	return true;
}

/*
 * tumble_agg_exec
 *		ExecCustomScan: the next group passing HAVING, projected.
 */
static TupleTableSlot *
tumble_agg_exec(CustomScanState *node)
{
	return ExecScan(&node->ss, ta_next_group, ta_recheck);
}

/*
 * tumble_agg_begin
 *		BeginCustomScan: the child, the key and partial-row layouts, the
 *		memory contexts.
 */
static void
tumble_agg_begin(CustomScanState *node, EState *estate, int eflags)
{
	TumbleAggState *state = (TumbleAggState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	Plan	   *child_plan = (Plan *) linitial(cscan->custom_plans);
	TupleDesc	childdesc;
	Oid		   *eqops;
	ListCell   *lc;
	int			k;

	node->custom_ps = list_make1(ExecInitNode(child_plan, estate, eflags));
	childdesc = ExecGetResultType((PlanState *) linitial(node->custom_ps));

	state->mem_limit = (Size) get_hash_memory_limit();
	state->est_groups = cscan->scan.plan.plan_rows;
	state->est_rows = child_plan->plan_rows;
	state->groupcxt = AllocSetContextCreate(CurrentMemoryContext, "TumbleAgg groups",
											ALLOCSET_DEFAULT_SIZES);
	state->metacxt = AllocSetContextCreate(CurrentMemoryContext, "TumbleAgg hash table",
										   ALLOCSET_DEFAULT_SIZES);
	state->tempcxt = AllocSetContextCreate(CurrentMemoryContext, "TumbleAgg hashing",
										   ALLOCSET_SMALL_SIZES);
	state->rowcxt = AllocSetContextCreate(CurrentMemoryContext, "TumbleAgg row",
										  ALLOCSET_SMALL_SIZES);
	state->mergecxt = AllocSetContextCreate(CurrentMemoryContext, "TumbleAgg merge",
											ALLOCSET_SMALL_SIZES);

	/* where the time, the keys and the arguments are in the child's rows */
	lc = list_head(state->info.input_cols);
	state->timecol = lfirst_int(lc);
	state->inkeycols = palloc(sizeof(AttrNumber) * Max(state->nkeys, 1));
	state->partkeycols = palloc(sizeof(AttrNumber) * Max(state->nkeys, 1));
	for (k = 0; k < state->nkeys; k++)
	{
		lc = lnext(state->info.input_cols, lc);
		state->inkeycols[k] = lfirst_int(lc);
		state->partkeycols[k] = k + 2;
	}
	state->argcols = palloc0(sizeof(AttrNumber) * Max(state->naggs, 1));
	for (int a = 0; a < state->naggs; a++)
		if (state->info.aggs[a].kind != TA_COUNT_STAR)
		{
			lc = lnext(state->info.input_cols, lc);
			state->argcols[a] = lfirst_int(lc);
		}

	/* (start, keys...) for the hash table; + (seq, cells) for partial rows */
	state->hashdesc = CreateTemplateTupleDesc(state->nkeys + 1);
	state->partdesc = CreateTemplateTupleDesc(state->nkeys + 3);
	TupleDescInitEntry(state->hashdesc, 1, "window", INT8OID, -1, 0);
	TupleDescInitEntry(state->partdesc, 1, "window", INT8OID, -1, 0);
	for (k = 0; k < state->nkeys; k++)
	{
		Form_pg_attribute att = TupleDescAttr(childdesc, state->inkeycols[k] - 1);

		TupleDescInitEntry(state->hashdesc, k + 2, NULL, att->atttypid, att->atttypmod, 0);
		TupleDescInitEntry(state->partdesc, k + 2, NULL, att->atttypid, att->atttypmod, 0);
	}
	TupleDescInitEntry(state->partdesc, state->nkeys + 2, "seq", INT8OID, -1, 0);
	TupleDescInitEntry(state->partdesc, state->nkeys + 3, "cells", BYTEAOID, -1, 0);
	state->hashslot = ExecInitExtraTupleSlot(estate, state->hashdesc, &TTSOpsVirtual);
	state->keyvslot = ExecInitExtraTupleSlot(estate, state->hashdesc, &TTSOpsVirtual);
	state->intkeys = state->nkeys <= TA_INT_KEYS;
	for (k = 0; k < state->nkeys; k++)
		if (!ta_int_key_type(TupleDescAttr(state->hashdesc, k + 1)->atttypid))
			state->intkeys = false;
	state->dkeyed = state->nkeys == 1 && state->intkeys;
	state->floor_base = wj_window_base(state->info.unit, state->info.offset);
	state->keyslot = ExecInitExtraTupleSlot(estate, state->hashdesc, &TTSOpsMinimalTuple);
	state->partslot = ExecInitExtraTupleSlot(estate, state->partdesc, &TTSOpsVirtual);
	state->partslot2 = ExecInitExtraTupleSlot(estate, state->partdesc, &TTSOpsMinimalTuple);
	state->groupslot = ExecInitExtraTupleSlot(estate, state->partdesc, &TTSOpsMinimalTuple);
	state->readslot = ExecInitExtraTupleSlot(estate, state->partdesc, &TTSOpsMinimalTuple);
	state->rawslot = ExecInitExtraTupleSlot(estate, childdesc, &TTSOpsMinimalTuple);

	/* equality and hashing of (start, keys) */
	state->hashcols = palloc(sizeof(AttrNumber) * (state->nkeys + 1));
	eqops = palloc(sizeof(Oid) * (state->nkeys + 1));
	state->collations = palloc0(sizeof(Oid) * (state->nkeys + 1));
	state->hashcols[0] = 1;
	eqops[0] = get_equality_op_for_ordering_op(Int8LessOperator, NULL);
	k = 1;
	foreach(lc, state->info.key_eqops)
	{
		state->hashcols[k] = k + 1;
		eqops[k] = lfirst_oid(lc);
		state->collations[k] = list_nth_oid(state->info.key_collations, k - 1);
		k++;
	}
	execTuplesHashPrepare(state->nkeys + 1, eqops, &state->eqfuncoids, &state->hashfuncs);
	state->parteq = execTuplesMatchPrepare(state->partdesc, state->nkeys + 1,
										   state->hashcols, eqops, state->collations,
										   &state->css.ss.ps);
	state->mcells = palloc0(sizeof(TaCell) * Max(state->naggs, 1));
	state->batchvals = palloc0(sizeof(TaValue) * TA_BATCH * Max(state->naggs, 1));
	initStringInfo(&state->buf);

	state->phase = TA_CONSUME;
	state->dstride = state->info.unit;
	wj_state_reset(&state->stats, false);
	ta_reset_groups(state);
}

/*
 * tumble_agg_end
 *		EndCustomScan.
 */
static void
tumble_agg_end(CustomScanState *node)
{
	TumbleAggState *state = (TumbleAggState *) node;

	if (state->sort != NULL)
		tuplesort_end(state->sort);
	state->sort = NULL;
	ExecEndNode((PlanState *) linitial(node->custom_ps));
	MemoryContextDelete(state->groupcxt);
	MemoryContextDelete(state->metacxt);
	MemoryContextDelete(state->tempcxt);
	MemoryContextDelete(state->rowcxt);
	MemoryContextDelete(state->mergecxt);
}

/*
 * tumble_agg_rescan
 *		ReScanCustomScan: aggregate again from the start.
 */
static void
tumble_agg_rescan(CustomScanState *node)
{
	TumbleAggState *state = (TumbleAggState *) node;
	PlanState  *child = (PlanState *) linitial(node->custom_ps);

	if (state->sort != NULL)
		tuplesort_end(state->sort);
	state->sort = NULL;
	state->spilled = false;
	if (state->hashed_built)
	{
		state->hashtable = NULL;
		state->inttable = NULL;
		state->hashed_built = false;
		MemoryContextReset(state->metacxt);
	}
	ta_reset_groups(state);
	wj_state_reset(&state->stats, true);
	state->phase = TA_CONSUME;
	state->dstride = state->info.unit;
	state->from_exchange = false;
	state->leader.asked = false;
	wj_exchange_restart(&state->ex);
	if (child->chgParam == NULL)
		ExecReScan(child);
}

/*
 * tumble_agg_explain
 *		ExplainCustomScan: the window, the strategy and, under ANALYZE, the
 *		groups, the peak state and any spill.
 */
static void
tumble_agg_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	TumbleAggState *state = (TumbleAggState *) node;
	Interval	unit = {0};
	Interval	offset = {0};

	unit.time = state->info.unit;
	offset.time = state->info.offset;
	wj_explain_window(state->info.bucket == TA_BUCKET_TUMBLE ? "tumble" : "bin",
					  NULL, NULL, &unit, &offset, es);
	if (state->nkeys > 0)
	{
		/* the keys, as PostgreSQL's aggregation shows its Group Key */
		CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
		List	   *context = set_deparse_context_plan(es->deparse_cxt,
													   node->ss.ps.plan, ancestors);
		StringInfoData buf;

		initStringInfo(&buf);
		for (int k = 0; k < state->nkeys; k++)
		{
			TargetEntry *tle = list_nth(cscan->custom_scan_tlist,
										state->info.nwindowcols + k);

			appendStringInfo(&buf, "%s%s", k > 0 ? ", " : "",
							 deparse_expression((Node *) tle->expr, context, true, false));
		}
		ExplainPropertyText("Group Keys", buf.data, es);
	}
	ExplainPropertyText("Strategy", state->nkeys > 0 && !state->dkeyed ? "hashed" :
						state->hashed_built ? "dense, then hashed" : "dense", es);
	if (node->ss.ps.plan->parallel_aware)
		ExplainPropertyText(state->info.exchange_rows ? "Rows Exchanged" : "Groups Exchanged",
							state->info.exchange_shared ?
							"partitioned by window, dense arrays in shared memory" :
							"partitioned by window", es);
	if (es->analyze)
	{
		WjSpillFigure fig[1] = {{"Batches", 0}};

		fig[0].value = state->dumps;
		ExplainPropertyInteger("Groups", NULL, state->windows_out, es);
		wj_explain_state(&state->stats, es);
		wj_explain_workers(&state->pinstr, &node->ss.ps, &state->stats, es);
		wj_explain_spill(fig, 1, state->disk_kb, state->ever_spilled, es);
	}
}

/*
 * ta_nparts
 *		Window partitions for a number of planned participants: a few each
 *		for groups; TA_ROW_PARTS for rows, so that a partition's table is
 *		small (each participant's is the whole result).
 */
static int
ta_nparts(TumbleAggState *state, int nparticipants)
{
	if (state->info.exchange_rows)
		return TA_ROW_PARTS;
	return Min(nparticipants * TA_PARTS_PER_PARTICIPANT, TA_MAX_PARTS);
}

/*
 * The node's part of the DSM segment: each worker's figures for EXPLAIN
 * ANALYZE (state_stats.h), the participants' published dense arrays
 * (tumble_agg_shared.c), then the exchange of window partitions.  A worker
 * finds each after the figures of the planned workers.
 */
static Size
ta_instr_size(int nworkers)
{
	return add_size(MAXALIGN(wj_instr_size(nworkers)), ta_shared_size(nworkers + 1));
}

/* where the published arrays are in the node's part */
static TaSharedArrays *
ta_shared_space(void *coordinate, int nworkers)
{
	return (TaSharedArrays *) ((char *) coordinate + MAXALIGN(wj_instr_size(nworkers)));
}

/* EstimateDSMCustomScan: the workers' figures and the exchange */
static Size
tumble_agg_estimate_dsm(CustomScanState *node, ParallelContext *pcxt)
{
	int			nparts = ta_nparts((TumbleAggState *) node, pcxt->nworkers + 1);

	return add_size(ta_instr_size(pcxt->nworkers),
					wj_exchange_estimate(pcxt->nworkers + 1, nparts));
}

/*
 * tumble_agg_initialize_dsm
 *		InitializeDSMCustomScan (leader): set up the exchange.  Without a
 *		real segment the node runs alone, as a serial one.
 */
static void
tumble_agg_initialize_dsm(CustomScanState *node, ParallelContext *pcxt,
						  void *coordinate)
{
	TumbleAggState *state = (TumbleAggState *) node;

	wj_instr_init_dsm(&state->pinstr, pcxt, coordinate);
	state->sharedarrays = ta_shared_space(coordinate, pcxt->nworkers);
	ta_shared_init(state->sharedarrays, pcxt->nworkers + 1);
	state->area = node->ss.ps.state->es_query_dsa;
	wj_exchange_init_dsm(&state->ex,
						 (char *) coordinate + ta_instr_size(pcxt->nworkers), pcxt,
						 node->ss.ps.state->es_query_dsa,
						 ta_nparts(state, pcxt->nworkers + 1), "wjtumble");
	if (state->ex.shared != NULL)
	{
		state->nparts = state->ex.shared->nparts;
		state->leader.pcxt = pcxt;
	}
}

/* ReInitializeDSMCustomScan: start the exchange over */
static void
tumble_agg_reinitialize_dsm(CustomScanState *node, ParallelContext *pcxt,
							void *coordinate)
{
	TumbleAggState *state = (TumbleAggState *) node;

	ta_shared_reset(state->sharedarrays, state->area);
	wj_exchange_reinit_dsm(&state->ex);
}

/* InitializeWorkerCustomScan: attach to the exchange */
static void
tumble_agg_initialize_worker(CustomScanState *node, shm_toc *toc, void *coordinate)
{
	TumbleAggState *state = (TumbleAggState *) node;

	wj_instr_init_worker(&state->pinstr, coordinate);
	state->sharedarrays = ta_shared_space(coordinate, state->pinstr.shared->nworkers);
	state->area = node->ss.ps.state->es_query_dsa;
	wj_exchange_init_worker(&state->ex, (char *) coordinate +
							ta_instr_size(state->pinstr.shared->nworkers),
							node->ss.ps.state->es_query_dsa);
	state->nparts = state->ex.shared->nparts;
}

/* ShutdownCustomScan: the shared memory goes away after this */
static void
tumble_agg_shutdown(CustomScanState *node)
{
	TumbleAggState *state = (TumbleAggState *) node;

	wj_instr_shutdown(&state->pinstr, &node->ss.ps, &state->stats);
	wj_exchange_close(&state->ex);
	state->ex.shared = NULL;
	state->sharedarrays = NULL;
	state->area = NULL;
	state->leader.pcxt = NULL;
}

/*
 * wj_tumble_agg_register
 *		Make the node known to the planner and to parallel workers.
 */
void
wj_tumble_agg_register(void)
{
	RegisterCustomScanMethods(&wj_tumble_agg_scan_methods);
}
