/*-------------------------------------------------------------------------
 *
 * state_stats.h
 *	  Accounting of the rows and bytes a node holds in its state, so that
 *	  EXPLAIN ANALYZE can show the peak of each ("Peak State Rows", "Peak
 *	  State Bytes") and one can compare what each kind of node has to
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
 * src/state_stats.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef STATE_STATS_H
#define STATE_STATS_H

#include "commands/explain.h"

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

/* Report "Peak State Rows" and "Peak State Bytes" under EXPLAIN ANALYZE */
extern void wj_explain_state(WjStateStats *stats, ExplainState *es);

#endif							/* STATE_STATS_H */
