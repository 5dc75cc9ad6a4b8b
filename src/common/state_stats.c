/*-------------------------------------------------------------------------
 *
 * state_stats.c
 *	  EXPLAIN output of the state accounting in state_stats.h, shared by
 *	  every windowjoin executor node, and its per-worker collection when a
 *	  node runs in parallel workers: a slot per worker in the DSM segment,
 *	  filled by each worker at shutdown and copied out by the leader at its
 *	  own shutdown.
 *
 * src/common/state_stats.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/instrument.h"
#include "miscadmin.h"

#include "src/common/state_stats.h"

/*
 * wj_kb
 *		Bytes in kB, rounded up, as PostgreSQL's EXPLAIN shows memory (a
 *		Hash node's "Memory Usage").
 */
static inline int64
wj_kb(int64 bytes)
{
	return (bytes + 1023) / 1024;
}

/*
 * explain_kb
 *		A property of bytes shown in kB: "label: NkB" in text, as a Hash
 *		node shows its memory, and a number with unit kB in the structured
 *		formats.
 */
static void
explain_kb(const char *label, int64 bytes, ExplainState *es)
{
	if (es->format == EXPLAIN_FORMAT_TEXT)
	{
		appendStringInfoSpaces(es->str, es->indent * 2);
		appendStringInfo(es->str, "%s: " INT64_FORMAT "kB\n", label, wj_kb(bytes));
	}
	else
		ExplainPropertyInteger(label, "kB", wj_kb(bytes), es);
}

/*
 * wj_explain_state
 *		Show peak state rows and bytes; only under ANALYZE, since they are
 *		measured while the node runs.
 */
void
wj_explain_state(WjStateStats *stats, ExplainState *es)
{
	if (!es->analyze)
		return;
	ExplainPropertyInteger("Peak State Rows", NULL, stats->peak_rows, es);
	explain_kb("Peak State Memory", stats->peak_bytes, es);
}

/*
 * wj_instr_size
 *		The bytes of the slots of nworkers workers.
 */
Size
wj_instr_size(int nworkers)
{
	return add_size(offsetof(WjSharedInstr, w),
					mul_size(nworkers, sizeof(WjWorkerInstr)));
}

/*
 * wj_instr_estimate
 *		EstimateDSMCustomScan: room for one slot per planned worker.
 */
Size
wj_instr_estimate(ParallelContext *pcxt)
{
	return wj_instr_size(pcxt->nworkers);
}

/*
 * wj_instr_init_dsm
 *		InitializeDSMCustomScan (leader): empty slots.  A rescan of the Gather
 *		keeps them, so the figures add up over all runs.
 */
void
wj_instr_init_dsm(WjParallelInstr *pi, ParallelContext *pcxt, void *coordinate)
{
	WjSharedInstr *shared = (WjSharedInstr *) coordinate;

	memset(shared, 0, wj_instr_estimate(pcxt));
	shared->nworkers = pcxt->nworkers;
	pi->shared = shared;
	pi->copy = NULL;
}

/*
 * wj_instr_init_worker
 *		InitializeWorkerCustomScan: find the slots.
 */
void
wj_instr_init_worker(WjParallelInstr *pi, void *coordinate)
{
	pi->shared = (WjSharedInstr *) coordinate;
	pi->copy = NULL;
}

/*
 * wj_instr_shutdown
 *		ShutdownCustomScan.  A worker records its peak state and the rows it
 *		returned in its slot; the leader copies the slots into its own
 *		memory, since the segment goes away with the Gather's shutdown,
 *		which comes after this one.
 */
void
wj_instr_shutdown(WjParallelInstr *pi, PlanState *ps, WjStateStats *stats)
{
	if (pi->shared == NULL)
		return;
	if (IsParallelWorker())
	{
		WjWorkerInstr *w;

		if (ParallelWorkerNumber < 0 ||
			ParallelWorkerNumber >= pi->shared->nworkers)
			return;
		w = &pi->shared->w[ParallelWorkerNumber];
		w->ran = true;
		w->peak_rows = Max(w->peak_rows, stats->peak_rows);
		w->peak_bytes = Max(w->peak_bytes, stats->peak_bytes);
		if (ps->instrument != NULL)
			w->rows_out += ps->instrument->ntuples + ps->instrument->tuplecount;
	}
	else
	{
		Size		size = offsetof(WjSharedInstr, w) +
			pi->shared->nworkers * sizeof(WjWorkerInstr);

		if (pi->copy == NULL)
			pi->copy = palloc(size);
		memcpy(pi->copy, pi->shared, size);
	}
}

/*
 * wj_explain_workers
 *		Under EXPLAIN ANALYZE of a node that ran in parallel workers: the
 *		leader's own rows, per worker its peak state and rows, and the
 *		totals over the leader and the workers (the sum of the peaks: what
 *		the processes held at most together; the rows of all of them are
 *		the node's "actual rows" times its loops).
 */
void
wj_explain_workers(WjParallelInstr *pi, PlanState *ps, WjStateStats *stats,
				   ExplainState *es)
{
	int64		total_rows = stats->peak_rows;
	int64		total_bytes = stats->peak_bytes;
	int			i;

	double		worker_rows = 0;

	if (!es->analyze || pi->copy == NULL)
		return;

	/* the leader's instrumentation has the workers' added in by now */
	for (i = 0; i < pi->copy->nworkers; i++)
		worker_rows += pi->copy->w[i].rows_out;
	if (ps->instrument != NULL)
		ExplainPropertyFloat("Leader Rows", NULL,
							 Max(ps->instrument->ntuples - worker_rows, 0),
							 0, es);
	if (es->format != EXPLAIN_FORMAT_TEXT)
		ExplainOpenGroup("Workers State", "Workers State", false, es);
	for (i = 0; i < pi->copy->nworkers; i++)
	{
		WjWorkerInstr *w = &pi->copy->w[i];

		if (!w->ran)
			continue;
		total_rows += w->peak_rows;
		total_bytes += w->peak_bytes;
		if (es->format == EXPLAIN_FORMAT_TEXT)
		{
			appendStringInfoSpaces(es->str, es->indent * 2);
			appendStringInfo(es->str,
							 "Worker %d:  Peak State Rows: " INT64_FORMAT
							 "  Peak State Memory: " INT64_FORMAT "kB"
							 "  Rows: %.0f\n",
							 i, w->peak_rows, wj_kb(w->peak_bytes), w->rows_out);
		}
		else
		{
			ExplainOpenGroup("Worker", NULL, true, es);
			ExplainPropertyInteger("Worker Number", NULL, i, es);
			ExplainPropertyInteger("Peak State Rows", NULL, w->peak_rows, es);
			ExplainPropertyInteger("Peak State Memory", "kB", wj_kb(w->peak_bytes), es);
			ExplainPropertyFloat("Rows", NULL, w->rows_out, 0, es);
			ExplainCloseGroup("Worker", NULL, true, es);
		}
	}
	if (es->format != EXPLAIN_FORMAT_TEXT)
		ExplainCloseGroup("Workers State", "Workers State", false, es);
	ExplainPropertyInteger("Total Peak State Rows", NULL, total_rows, es);
	explain_kb("Total Peak State Memory", total_bytes, es);
}
