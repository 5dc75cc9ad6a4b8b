/*-------------------------------------------------------------------------
 *
 * state_stats.c
 *	  EXPLAIN output of the state accounting in state_stats.h, shared by
 *	  every windowjoin executor node.
 *
 * src/state_stats.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "state_stats.h"

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
	ExplainPropertyInteger("Peak State Bytes", NULL, stats->peak_bytes, es);
}
