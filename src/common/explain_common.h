/*-------------------------------------------------------------------------
 *
 * explain_common.h
 *	  EXPLAIN output shared by the windowjoin custom scan nodes (see
 *	  explain_common.c).
 *
 * src/common/explain_common.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef EXPLAIN_COMMON_H
#define EXPLAIN_COMMON_H

#include "commands/explain.h"
#include "datatype/timestamp.h"
#include "nodes/extensible.h"
#include "nodes/nodes.h"
#include "nodes/pg_list.h"

#include "src/common/pg_compat.h"		/* ExplainState, ExplainProperty*() */

/* The deparse context of a custom scan's EXPLAIN, and its column prefixing */
extern List *wj_explain_context(CustomScanState *node, List *ancestors,
								ExplainState *es, bool *useprefix);

/* "Inner", "Left", ... for EXPLAIN's Join Type line */
extern const char *wj_join_type_name(JoinType jointype);

/* The "Join Type" line */
extern void wj_explain_join_type(JoinType jointype, ExplainState *es);

/* An implicitly ANDed expression list, deparsed in context */
extern char *wj_deparse_exprs(List *exprs, List *context);

/* EXPLAIN an implicitly ANDed expression list under label; nothing if NIL */
extern void wj_explain_exprs(const char *label, List *exprs, List *context,
							 ExplainState *es);

/* An interval, or a duration in microseconds, as interval text */
extern char *wj_interval_text(const Interval *span);
extern char *wj_usecs_text(int64 usecs);

/*
 * The "Window" line: "<func>(<every_label> <every>, size <size>[, offset
 * <offset>])"; every_label NULL for tumble(), offset NULL or zero to leave
 * it out.
 */
extern void wj_explain_window(const char *func, const char *every_label,
							  const Interval *every, const Interval *size,
							  const Interval *offset, ExplainState *es);

/* One figure of a node's spill: its EXPLAIN label and its value */
typedef struct WjSpillFigure
{
	const char *label;
	int64		value;
} WjSpillFigure;

/*
 * Under ANALYZE, a node's spill to temporary files: its figures, then
 * "Disk Usage" in kB, as PostgreSQL's HashAggregate shows its batches (in
 * text format on one line, only when spilled is true)
 */
extern void wj_explain_spill(const WjSpillFigure *figures, int nfigures,
							 int64 disk_kb, bool spilled, ExplainState *es);

#endif							/* EXPLAIN_COMMON_H */
