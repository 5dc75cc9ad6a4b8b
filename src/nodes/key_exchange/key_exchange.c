/*-------------------------------------------------------------------------
 *
 * key_exchange.c
 *	  KeyExchange: the input of a key-partitioned join read in shares by
 *	  the participants and exchanged between them by key partition.
 *
 * A key-partitioned join (keypart.c, docs/parallel.md) joins one key
 * partition after another, each in one participant: it claims a partition,
 * sets the partition parameter and rescans its inputs, each a Sort of the
 * rows of that partition.  Either every participant reads an input in full
 * and its scan keeps the partition's rows (a filter on the parameter), or
 * the input is a partial path and this node, between the Sort and the
 * partial path, exchanges its rows (row_exchange.c):
 *
 *	1. on the first fetch, each participant reads its share of the input to
 *	   the end and writes every row into its key partition's shared file
 *	   (the partition computed by the same expression as the filter's; a
 *	   file per sub-partition of it, wj_keypart_slot_of_hash in
 *	   keypart.c),
 *	   then waits for the others;
 *	2. each fetch returns the next row of the partition in the parameter,
 *	   from every participant's files; a rescan with the parameter changed
 *	   moves on to the next partition, without reading the input again.
 *
 * The join returns no row before both inputs are sorted, so nobody waits
 * once rows are flowing to the Gather.  Without a DSM segment (the Gather
 * ran the plan alone) the join takes all partitions at once, in one pass
 * (wj_keypart_claim), and the node returns every row of its input.  A
 * rescan of the Gather (ReInitializeDSMCustomScan) starts over.
 *
 * src/nodes/key_exchange/key_exchange.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "optimizer/planmain.h"
#include "utils/ruleutils.h"

#include "src/common/exec_common.h"
#include "src/common/input_paths.h"
#include "src/common/pg_compat.h"
#include "src/nodes/key_exchange/key_exchange.h"
#include "src/parallel/keypart.h"
#include "src/parallel/row_exchange.h"

typedef struct KeyExchangeState
{
	CustomScanState css;
	int			paramid;		/* the partition parameter */
	ExprState  *hash;			/* a child row's key hash (31 bits) */
	int			units;			/* of the key space (wj_keypart_units) */
	int			grain;			/* units per partition */
	int			nparts;			/* the files: partitions x sub-partitions */
	WjExchange	ex;				/* ex.shared NULL: filter instead */
	TupleTableSlot *read_slot;	/* a row read back */
	bool		part_done;		/* the partition's rows are all returned */
} KeyExchangeState;

static Node *key_exchange_create_state(CustomScan *cscan);
static void key_exchange_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *key_exchange_exec(CustomScanState *node);
static void key_exchange_end(CustomScanState *node);
static void key_exchange_rescan(CustomScanState *node);
static void key_exchange_explain(CustomScanState *node, List *ancestors,
					   ExplainState *es);
static Size key_exchange_estimate_dsm(CustomScanState *node, ParallelContext *pcxt);
static void key_exchange_initialize_dsm(CustomScanState *node, ParallelContext *pcxt,
						void *coordinate);
static void key_exchange_reinitialize_dsm(CustomScanState *node, ParallelContext *pcxt,
						  void *coordinate);
static void key_exchange_initialize_worker(CustomScanState *node, shm_toc *toc,
						   void *coordinate);
static void key_exchange_shutdown(CustomScanState *node);

static CustomScanMethods key_exchange_scan_methods = {
	.CustomName = "KeyExchange",
	.CreateCustomScanState = key_exchange_create_state,
};

static CustomExecMethods key_exchange_exec_methods = {
	.CustomName = "KeyExchange",
	.BeginCustomScan = key_exchange_begin,
	.ExecCustomScan = key_exchange_exec,
	.EndCustomScan = key_exchange_end,
	.ReScanCustomScan = key_exchange_rescan,
	.ExplainCustomScan = key_exchange_explain,
	.EstimateDSMCustomScan = key_exchange_estimate_dsm,
	.InitializeDSMCustomScan = key_exchange_initialize_dsm,
	.ReInitializeDSMCustomScan = key_exchange_reinitialize_dsm,
	.InitializeWorkerCustomScan = key_exchange_initialize_worker,
	.ShutdownCustomScan = key_exchange_shutdown,
};

/* custom_exprs: the key (for EXPLAIN), the partition parameter, ... */
#define KX_EXPR_KEY		0
#define KX_EXPR_PARAM	1
#define KX_EXPR_HASH	2	/* and the key's hash, the row's partition's */

/*
 * wj_key_exchange_insert
 *		Planner: put a KeyExchange between the Sort of a key-partitioned
 *		join's input plan (under a projecting Result, if any) and the
 *		partial plan under it, or, for an unsorted input (a WindowJoin's
 *		TUMBLE input, grouped by window in the join), above the input.  The
 *		node returns the plan's rows as they are, computing each one's
 *		sub-partition of its key partition (the key space's units, grain
 *		units a partition) from hash31, the key's hash
 *		(wj_keypart_slot_of_hash).  Returns the plan to use in place of
 *		input: input itself, or the KeyExchange above it.
 */
Plan *
wj_key_exchange_insert(Plan *input, Expr *key, Expr *hash31, Param *param,
					   int units, int grain)
{
	CustomScan *cscan;
	Plan	   *sort = input;
	Plan	   *child;
	List	   *scan_tlist = NIL;
	ListCell   *lc;

	if (IsA(sort, Result) && sort->lefttree != NULL &&
		((Result *) sort)->resconstantqual == NULL)
		sort = sort->lefttree;
	if (IsA(sort, Sort))
		child = sort->lefttree;
	else
	{
		sort = NULL;
		child = input;
	}

	/* the scan tuple and the output are the child's row */
	foreach(lc, child->targetlist)
	{
		TargetEntry *tle = (TargetEntry *) lfirst(lc);

		scan_tlist = lappend(scan_tlist,
							 makeTargetEntry(copyObject(tle->expr), tle->resno,
											 NULL, tle->resjunk));
	}
	cscan = wj_custom_scan(0, copyObject(scan_tlist), NIL, list_make1(child),
						   scan_tlist, &key_exchange_scan_methods);
	/* all of the child is read and exchanged before the first row */
	cscan->scan.plan.startup_cost = child->total_cost +
		child->plan_rows * WJ_KEYPART_PART_OPS * cpu_operator_cost +
		wj_exchange_cost(child->plan_rows, child->plan_width);
	cscan->scan.plan.total_cost = cscan->scan.plan.startup_cost;
	wj_set_plan_disabled_nodes(&cscan->scan.plan, wj_plan_disabled_nodes(child));
	cscan->scan.plan.plan_rows = child->plan_rows;
	cscan->scan.plan.plan_width = child->plan_width;
	cscan->scan.plan.parallel_aware = true;
	cscan->scan.plan.parallel_safe = true;
	cscan->custom_exprs = list_make3(copyObject(key), param, hash31);
	{
		WjKeyPartPlan kp = {units, grain, param->paramid, true};

		wj_keypart_plan_put(&cscan->custom_private, &kp);
	}
	if (sort == NULL)
		return &cscan->scan.plan;
	sort->lefttree = &cscan->scan.plan;
	return input;
}

/*
 * key_exchange_create_state
 *		CreateCustomScanState: the state, from the plan's private list.
 */
static Node *
key_exchange_create_state(CustomScan *cscan)
{
	KeyExchangeState *state = palloc0(sizeof(KeyExchangeState));
	WjPrivateReader reader;
	WjKeyPartPlan kp;

	NodeSetTag(state, T_CustomScanState);
	state->css.methods = &key_exchange_exec_methods;
	wj_private_reader_init(&reader, cscan->custom_private, "KeyExchange");
	wj_keypart_plan_get(&reader, &kp);
	wj_private_reader_done(&reader);
	state->paramid = kp.param;
	state->units = kp.units;
	state->grain = kp.grain;
	state->nparts = wj_keypart_slots(state->units, state->grain);
	state->ex.reading = -1;
	return (Node *) state;
}

/*
 * key_exchange_begin
 *		BeginCustomScan: start the child.
 */
static void
key_exchange_begin(CustomScanState *node, EState *estate, int eflags)
{
	KeyExchangeState *state = (KeyExchangeState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	PlanState  *child;

	child = ExecInitNode((Plan *) linitial(cscan->custom_plans), estate, eflags);
	node->custom_ps = list_make1(child);
	state->read_slot = ExecInitExtraTupleSlot(estate, ExecGetResultType(child),
											  &TTSOpsMinimalTuple);
	/*
	 * The partition is computed over the child's rows, of whatever slot
	 * kind the child returns, not over the node's own (virtual) scan slot:
	 * the expression must deform what it is given.
	 */
	node->ss.ps.scanopsfixed = false;
	state->hash = ExecInitExpr(list_nth(cscan->custom_exprs, KX_EXPR_HASH),
							   &node->ss.ps);
}

/*
 * row_part
 *		A child row's partition.
 */
static inline int
row_part(KeyExchangeState *state, TupleTableSlot *slot)
{
	ExprContext *econtext = state->css.ss.ps.ps_ExprContext;
	bool		isnull;
	Datum		d;

	ResetExprContext(econtext);
	econtext->ecxt_scantuple = slot;
	d = ExecEvalExprSwitchContext(state->hash, econtext, &isnull);
	return wj_keypart_slot_of_hash(state->units, state->grain, isnull,
								   (uint32) DatumGetInt32(d));
}

/*
 * write_row
 *		wj_exchange_write's write_row: a child row into its key partition.
 */
static void
write_row(void *arg, WjExchange *ex, TupleTableSlot *slot)
{
	wj_exchange_put(ex, row_part((KeyExchangeState *) arg, slot), slot);
}

/*
 * kx_next
 *		ExecScan access method: the next row of the partition in the
 *		parameter, or NULL at its end.  The node neither projects nor
 *		filters, so ExecScan returns the slot as it is: the child's, or the
 *		row read back (valid until the next read; the Sort above copies it).
 */
static TupleTableSlot *
kx_next(ScanState *ss)
{
	KeyExchangeState *state = (KeyExchangeState *) ss;
	EState	   *estate = ss->ps.state;
	ParamExecData *prm = &estate->es_param_exec_vals[state->paramid];
	int			part;
	TupleTableSlot *slot;

	if (state->part_done)
		return NULL;
	if (prm->execPlan != NULL || prm->isnull)
		elog(ERROR, "key partition parameter not set");
	part = DatumGetInt32(prm->value);
	if (part < 0 || part > state->nparts ||
		(part == state->nparts && state->ex.shared != NULL))
		elog(ERROR, "key partition %d out of range", part);

	if (state->ex.shared == NULL)
	{
		/*
		 * alone: the input's rows of the partition, or all of them when the
		 * join takes every partition at once (part == nparts,
		 * wj_keypart_claim)
		 */
		PlanState  *child = (PlanState *) linitial(state->css.custom_ps);

		for (;;)
		{
			CHECK_FOR_INTERRUPTS();
			slot = ExecProcNode(child);
			if (TupIsNull(slot))
				break;
			if (part == state->nparts || row_part(state, slot) == part)
				return slot;
		}
		state->part_done = true;
		return NULL;
	}

	if (!state->ex.written)
		wj_exchange_write(&state->ex, (PlanState *) linitial(state->css.custom_ps),
						  estate->es_query_cxt, write_row, state);
	if (state->ex.reading < 0)
		wj_exchange_open(&state->ex, part);
	slot = wj_exchange_read(&state->ex, state->read_slot);
	if (slot == NULL)
		state->part_done = true;
	return slot;
}

/*
 * kx_recheck
 *		ExecScan recheck method: nothing to recheck.
 */
static bool
kx_recheck(ScanState *ss, TupleTableSlot *slot)
{
	return true;
}

/*
 * key_exchange_exec
 *		ExecCustomScan: the next row.
 */
static TupleTableSlot *
key_exchange_exec(CustomScanState *node)
{
	return ExecScan(&node->ss, kx_next, kx_recheck);
}

/*
 * key_exchange_end
 *		EndCustomScan.
 */
static void
key_exchange_end(CustomScanState *node)
{
	wj_exchange_close(&((KeyExchangeState *) node)->ex);
	ExecEndNode((PlanState *) linitial(node->custom_ps));
}

/*
 * key_exchange_rescan
 *		ReScanCustomScan: the join moved on to another partition.  The
 *		exchanged rows stay (a rescan of the Gather drops them, in
 *		key_exchange_reinitialize_dsm); filtering, the input is read again.
 */
static void
key_exchange_rescan(CustomScanState *node)
{
	KeyExchangeState *state = (KeyExchangeState *) node;

	wj_exchange_close(&state->ex);
	state->part_done = false;
	if (state->ex.shared == NULL)
		wj_rescan_child(node, (PlanState *) linitial(node->custom_ps));
}

/*
 * key_exchange_explain
 *		ExplainCustomScan: the key and the number of partitions; under
 *		ANALYZE where the rows went (shared memory, temporary files).
 */
static void
key_exchange_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	KeyExchangeState *state = (KeyExchangeState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	List	   *context;

	context = set_deparse_context_plan(es->deparse_cxt, node->ss.ps.plan,
									   ancestors);
	ExplainPropertyText("Partition Key",
						deparse_expression(list_nth(cscan->custom_exprs,
													KX_EXPR_KEY),
										   context,
										   list_length(es->rtable) > 1 ||
										   es->verbose, false),
						es);
	ExplainPropertyInteger("Key Partitions", NULL,
						   state->nparts / WJ_KEYPART_SUBPARTS, es);
	ExplainPropertyInteger("Sub-partitions Each", NULL, WJ_KEYPART_SUBPARTS,
						   es);
	wj_exchange_explain(&state->ex, es);
}

/*
 * key_exchange_estimate_dsm, key_exchange_initialize_dsm, key_exchange_reinitialize_dsm, key_exchange_initialize_worker,
 * key_exchange_shutdown
 *		The exchange's shared state (row_exchange.c).  A rescan of the Gather
 *		drops the exchanged rows and restarts this participant's share of
 *		the input (the child's own callback resets the shared scan).
 */
static Size
key_exchange_estimate_dsm(CustomScanState *node, ParallelContext *pcxt)
{
	return wj_exchange_estimate(pcxt->nworkers + 1,
								((KeyExchangeState *) node)->nparts);
}

static void
key_exchange_initialize_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	KeyExchangeState *state = (KeyExchangeState *) node;

	wj_exchange_init_dsm(&state->ex, coordinate, pcxt,
						 node->ss.ps.state->es_query_dsa, state->nparts,
						 "wjkeyx");
}

static void
key_exchange_reinitialize_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	KeyExchangeState *state = (KeyExchangeState *) node;

	wj_exchange_reinit_dsm(&state->ex);
	state->part_done = false;
	ExecReScan((PlanState *) linitial(node->custom_ps));
}

static void
key_exchange_initialize_worker(CustomScanState *node, shm_toc *toc, void *coordinate)
{
	wj_exchange_init_worker(&((KeyExchangeState *) node)->ex, coordinate,
							node->ss.ps.state->es_query_dsa);
}

static void
key_exchange_shutdown(CustomScanState *node)
{
	KeyExchangeState *state = (KeyExchangeState *) node;

	wj_exchange_close(&state->ex);
	state->ex.shared = NULL;
}

/*
 * wj_key_exchange_register
 *		Make the node known to parallel workers (from _PG_init).
 */
void
wj_key_exchange_register(void)
{
	RegisterCustomScanMethods(&key_exchange_scan_methods);
}
