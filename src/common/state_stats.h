/*-------------------------------------------------------------------------
 *
 * state_stats.h
 *	  Accounting of the rows and bytes a node holds in its state, so that
 *	  EXPLAIN ANALYZE can show the peak of each ("Peak State Rows", "Peak
 *	  State Memory", in kB as PostgreSQL shows memory) and one can compare what each kind of node has to
 *	  remember.
 *
 * One meaning for every node.  A row is in the state from when the node
 * keeps it for later (in its own buffers or hash table, as the current
 * version, or in a tuplestore of its own) until it lets go of it; rows
 * that only pass through, and sorting an input, are not state.  Its bytes
 * are the bytes of the row as the node keeps it: the tuple's length (t_len
 * of its minimal or heap tuple, or the size of its flattened values) plus
 * the node's per-row header or entry where it keeps one.  Not counted:
 * memory-context block overhead and free space, hash-table buckets, and
 * the node's fixed structures.
 * Row bytes rather than MemoryContextMemAllocated() because they do not
 * depend on the allocator's block sizes, so that the same plan over the
 * same rows shows the same peak on every run; the memory the node holds
 * against work_mem is what its spill decisions look at, not this.
 *
 * src/common/state_stats.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef STATE_STATS_H
#define STATE_STATS_H

#include "access/parallel.h"
#include "commands/explain.h"
#include "nodes/execnodes.h"

#include "src/common/pg_compat.h"		/* ExplainState, ExplainProperty*() */

typedef struct WjStateStats
{
	int64		rows;			/* rows held now */
	int64		bytes;			/* bytes held now */
	int64		peak_rows;		/* maximum of rows so far */
	int64		peak_bytes;		/* maximum of bytes so far */
} WjStateStats;

/* Forget everything (at executor start and on rescan keep the peaks) */
static inline void
wj_state_reset(WjStateStats *stats, bool keep_peaks)
{
	stats->rows = 0;
	stats->bytes = 0;
	if (!keep_peaks)
	{
		stats->peak_rows = 0;
		stats->peak_bytes = 0;
	}
}

/* A row of the given size entered the state */
static inline void
wj_state_add(WjStateStats *stats, int64 bytes)
{
	stats->rows++;
	stats->bytes += bytes;
	if (stats->rows > stats->peak_rows)
		stats->peak_rows = stats->rows;
	if (stats->bytes > stats->peak_bytes)
		stats->peak_bytes = stats->bytes;
}

/* A row of the given size left the state */
static inline void
wj_state_remove(WjStateStats *stats, int64 bytes)
{
	stats->rows--;
	stats->bytes -= bytes;
}

/* The state was emptied at once (a key group or a window closed) */
static inline void
wj_state_clear(WjStateStats *stats)
{
	stats->rows = 0;
	stats->bytes = 0;
}

/* Report "Peak State Rows" and "Peak State Memory" under EXPLAIN ANALYZE */
extern void wj_explain_state(WjStateStats *stats, ExplainState *es);

/*
 * Per-worker figures of a node running under a Gather (a partial path,
 * hence a parallel-aware plan): each worker stores its peak state and the
 * rows it returned in its slot of an array in the parallel query's DSM
 * segment when it shuts down; the leader copies the array out when it shuts
 * down (before the Gather destroys the segment), and EXPLAIN ANALYZE shows
 * one line per worker and the totals, as Sort and Hash do.
 */
typedef struct WjWorkerInstr
{
	bool		ran;			/* the worker ran the node */
	int64		peak_rows;
	int64		peak_bytes;
	double		rows_out;		/* rows returned, over all its loops */
} WjWorkerInstr;

typedef struct WjSharedInstr
{
	int			nworkers;
	WjWorkerInstr w[FLEXIBLE_ARRAY_MEMBER];
} WjSharedInstr;

typedef struct WjParallelInstr
{
	WjSharedInstr *shared;		/* in the DSM segment, or NULL */
	WjSharedInstr *copy;		/* leader: copied out at shutdown */
} WjParallelInstr;

/* The DSM callbacks of a parallel-aware node delegate to these */
extern Size wj_instr_size(int nworkers);
extern Size wj_instr_estimate(ParallelContext *pcxt);
extern void wj_instr_init_dsm(WjParallelInstr *pi, ParallelContext *pcxt,
							  void *coordinate);
extern void wj_instr_init_worker(WjParallelInstr *pi, void *coordinate);
extern void wj_instr_shutdown(WjParallelInstr *pi, PlanState *ps,
							  WjStateStats *stats);

/* Per-worker lines and totals under EXPLAIN ANALYZE (nothing if serial) */
extern void wj_explain_workers(WjParallelInstr *pi, PlanState *ps,
							   WjStateStats *stats, ExplainState *es);

#endif							/* STATE_STATS_H */
