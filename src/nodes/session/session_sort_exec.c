/*-------------------------------------------------------------------------
 *
 * session_sort_exec.c
 *	  Executor side of SessionSort and SessionWindow.  SessionSort returns
 *	  its input sorted by (partition keys..., time), as the Sort under a
 *	  session() window would; SessionWindow returns the same rows with the
 *	  session() column added, replacing the Sort and the WindowAgg.
 *
 * INTERFACE ROUTINES
 *		wj_session_sort_scan_methods	CustomScan methods of SessionSort
 *										(session_sort.h)
 *		wj_session_window_scan_methods	CustomScan methods of SessionWindow
 *		wj_session_sort_register		register them (from _PG_init)
 *
 * This file holds the node's callbacks and the order of the work: reading
 * the input (or a batch) into memory, sorting, returning the rows.  The
 * other parts are in session_sort_store.c (the rows held in memory),
 * session_sort_spill.c (past work_mem) and session_window_exec.c (the
 * session() column); session_sort_internal.h lists them.
 *
 * ALGORITHM
 *
 * The first fetch reads the whole input.  Each row is hashed by its
 * partition keys into its partition and stored once, compactly
 * (session_sort_store.c); rows with a NULL time are kept apart, since they
 * sort last.  When the input is exhausted, the partitions are sorted by
 * their keys with SortSupport, and each partition in turn is copied into
 * one array and sorted by time as int64 (timestamp and timestamptz order as
 * their int64 values), by a sort_template.h quicksort.  Rows are returned
 * by putting the time and the stored columns back together in the scan
 * slot; a SessionWindow adds the session() column (session_window_exec.c).
 *
 * So each row costs one hash probe and O(log rows-per-partition) int64
 * comparisons, instead of O(log rows) comparisons of all the keys in a
 * Sort; and the stored rows are smaller than a tuplesort's, so more fit in
 * work_mem.
 *
 * Memory: what is held is counted against work_mem.  Past it, the source
 * is split into ranges of partition keys written to tapes, read back one
 * at a time as batches that run the algorithm above, in key order, so the
 * output needs no merge; a batch that cannot be split goes to a tuplesort
 * (session_sort_spill.c).
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

#include "common/hashfn.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "utils/logtape.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/ruleutils.h"
#include "utils/sortsupport.h"
#include "utils/tuplesort.h"
#include "utils/tuplestore.h"

#include "src/common/exec_common.h"
#include "src/common/explain_common.h"
#include "src/nodes/session/session_sort_internal.h"

/* The int64 quicksort of a partition's rows by time */
#define ST_SORT ssort_by_time
#define ST_ELEMENT_TYPE SSortEntry
#define ST_COMPARE(a, b) (((a)->ts > (b)->ts) - ((a)->ts < (b)->ts))
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

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
	wj_keypart_setup(&state->kp, &info.keypart);
	state->kp.bucket = -1;
	state->kp_exchange = info.keypart.exchange;
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
		session_window_init(state, estate, desc);

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
	ssort_init_memory(state);
	for (;;)
	{
		TupleTableSlot *slot = NULL;
		SSortTapeRow hdr;
		MinimalTuple tuple = NULL;
		Size		used;

		CHECK_FOR_INTERRUPTS();
		if (batch != NULL)
		{
			if (!ssort_tape_read(state, batch, &hdr, &tuple))
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
					ssort_stored_keys(state, tuple);
				ssort_route_row(state, hdr.ts, hdr.null_time, tuple);
			}
			else
			{
				bool		null_time;

				ssort_slot_rest(state, slot);
				null_time = slot->tts_isnull[state->time_attno - 1];
				ssort_route_row(state, null_time ? 0 :
						  DatumGetInt64(slot->tts_values[state->time_attno - 1]),
						  null_time, state->nrest > 0 ? ssort_form_rest(state, NULL) : NULL);
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
				slot = ssort_fill_slot(state, state->child_slot, NULL, &entry,
								 hdr.null_time);
			}
			tuplesort_puttupleslot(state->tuplesort, slot);
			continue;
		}

		if (slot == NULL)
			ssort_store_tape_row(state, &hdr, tuple);
		else
			ssort_store_row(state, slot);
		used = ssort_memory_used(state);
		if (used > state->budget)
			ssort_memory_full(state, false);
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
				ssort_can_split(state))
				ssort_memory_full(state, false);
		}
	}

	if (!state->splitting && state->tuplesort == NULL)
	{
		/* the array to sort one partition in must fit too */
		ssort_collect_partitions(state);
		for (i = 0; i < state->nparts; i++)
			max_rows = Max(max_rows, state->parts[i]->timed.rows);
		if (ssort_memory_used(state) + sizeof(SSortEntry) * max_rows > state->budget)
			ssort_memory_full(state, true);
	}

	if (batch != NULL)
	{
		ExecClearTuple(state->rest_slot);
		LogicalTapeClose(batch->tape);
		ssort_free_sample(state, batch);
		pfree(batch);
		state->source = NULL;
	}

	if (state->splitting)
	{
		ssort_end_split(state);
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
	ssort_release_memory(state);
	for (;;)
	{
		SSortBatch *batch;

		if (state->npending == 0)
		{
			state->phase = SSORT_DONE;
			ssort_release_spill(state);
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
					TupleTableSlot *slot = session_window_fallback_next(state);

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
					return ssort_fill_slot(state, ss->ss_ScanTupleSlot, part,
									 &state->sorted[state->cur_row++], false);
				}
				session_window_check_gap(state);
				if (state->cur_row > state->sess_last)
					session_window_memory_session(state);
#ifdef __GNUC__
				/* the rows come in time order, not in the order stored */
				if (state->cur_row + 8 < state->nsorted)
					__builtin_prefetch(state->sorted[state->cur_row + 8].tuple);
#endif
				slot = ssort_fill_slot(state, ss->ss_ScanTupleSlot, part,
								 &state->sorted[state->cur_row++], false);
				return session_window_set(state, slot, false);
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

				slot = ssort_fill_slot(state, ss->ss_ScanTupleSlot, part,
								 &state->untimed_block->entries[state->untimed_pos++],
								 true);
				if (state->win_attno == 0)
					return slot;
				session_window_check_gap(state);
				return session_window_set(state, slot, true);
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
	ssort_release_memory(state);
	ssort_release_spill(state);
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
	bool		useprefix;
	List	   *context = wj_explain_context(node, ancestors, es, &useprefix);
	List	   *keys = NIL;
	int			i;

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
		{
			WjSpillFigure figures[3];
			int			n = 0;

			figures[n].label = "Batches";
			figures[n++].value = state->nbatches;
			/* text: only when some batch went to a tuplesort */
			if (state->nsorted_batches > 0 || es->format != EXPLAIN_FORMAT_TEXT)
			{
				figures[n].label = "Batches Sorted by Tuplesort";
				figures[n++].value = state->nsorted_batches;
			}
			figures[n].label = "Batch Depth";
			figures[n++].value = state->max_depth;
			wj_explain_spill(figures, n,
							 (int64) state->disk_blocks * (BLCKSZ / 1024),
							 state->nbatches > 0, es);
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
							 pcxt, node->ss.ps.state->es_query_dsa,
							 state->kp.parts, "wjsession");
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
								(char *) coordinate + sh->exchange_offset,
								node->ss.ps.state->es_query_dsa);
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
