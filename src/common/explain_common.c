/*-------------------------------------------------------------------------
 *
 * explain_common.c
 *	  EXPLAIN output shared by the windowjoin custom scan nodes: the join
 *	  type line, condition lists deparsed against the plan, and window
 *	  specifications with their intervals, so that every node shows the
 *	  same thing with the same label and the same spelling.
 *
 * Peak state ("Peak State Rows", "Peak State Memory") is shown by
 * wj_explain_state() in state_stats.c, beside the accounting it reports.
 * What a node wrote to temporary files is shown by wj_explain_spill(), with
 * PostgreSQL's labels ("Batches", "Disk Usage") for every node that spills.
 *
 * src/common/explain_common.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nodes/makefuncs.h"
#include "utils/builtins.h"
#include "utils/ruleutils.h"
#include "utils/timestamp.h"

#include "src/common/explain_common.h"

/*
 * wj_explain_context
 *		The deparse context of a custom scan's EXPLAIN; *useprefix says
 *		whether column names need their relation's name, as PostgreSQL's
 *		own nodes decide (more than one relation, or VERBOSE).
 */
List *
wj_explain_context(CustomScanState *node, List *ancestors, ExplainState *es,
				   bool *useprefix)
{
	*useprefix = list_length(es->rtable) > 1 || es->verbose;
	return set_deparse_context_plan(es->deparse_cxt, node->ss.ps.plan,
									ancestors);
}

/*
 * wj_join_type_name
 *		The name EXPLAIN shows for a join type.
 */
const char *
wj_join_type_name(JoinType jointype)
{
	switch (jointype)
	{
		case JOIN_INNER:
			return "Inner";
		case JOIN_LEFT:
			return "Left";
		case JOIN_RIGHT:
			return "Right";
		case JOIN_FULL:
			return "Full";
		case JOIN_SEMI:
			return "Semi";
		case JOIN_ANTI:
			return "Anti";
		default:
			return "???";
	}
}

/*
 * wj_explain_join_type
 *		The "Join Type" line of a join node.
 */
void
wj_explain_join_type(JoinType jointype, ExplainState *es)
{
	ExplainPropertyText("Join Type", wj_join_type_name(jointype), es);
}

/*
 * wj_deparse_exprs
 *		An implicitly ANDed list of plan expressions as text, deparsed in
 *		the given context (a single expression as itself).
 */
char *
wj_deparse_exprs(List *exprs, List *context)
{
	return deparse_expression((Node *) make_ands_explicit(exprs), context,
							  true, false);
}

/*
 * wj_explain_exprs
 *		Show an implicitly ANDed list of plan expressions, deparsed in the
 *		given context, as one EXPLAIN property.  Nothing for an empty list.
 */
void
wj_explain_exprs(const char *label, List *exprs, List *context,
				 ExplainState *es)
{
	if (exprs == NIL)
		return;
	ExplainPropertyText(label, wj_deparse_exprs(exprs, context), es);
}

/*
 * wj_interval_text
 *		An interval as PostgreSQL prints it.
 */
char *
wj_interval_text(const Interval *span)
{
	return DatumGetCString(DirectFunctionCall1(interval_out,
											   IntervalPGetDatum(span)));
}

/*
 * wj_usecs_text
 *		A duration in microseconds as interval text.
 */
char *
wj_usecs_text(int64 usecs)
{
	Interval	span = {0};

	span.time = usecs;
	return wj_interval_text(&span);
}

/*
 * wj_explain_window
 *		The "Window" line: the window function and its parameters.
 */
void
wj_explain_window(const char *func, const char *every_label,
				  const Interval *every, const Interval *size,
				  const Interval *offset, ExplainState *es)
{
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfo(&buf, "%s(", func);
	if (every_label != NULL)
		appendStringInfo(&buf, "%s %s, ", every_label, wj_interval_text(every));
	appendStringInfo(&buf, "size %s", wj_interval_text(size));
	if (offset != NULL &&
		(offset->month != 0 || offset->day != 0 || offset->time != 0))
		appendStringInfo(&buf, ", offset %s", wj_interval_text(offset));
	appendStringInfoChar(&buf, ')');
	ExplainPropertyText("Window", buf.data, es);
}

/*
 * wj_explain_spill
 *		Under ANALYZE, what a node wrote to temporary files, with the labels
 *		and the layout of PostgreSQL's HashAggregate and Hash: the node's
 *		figures ("Batches: N", "Batch Depth: N", ...) and then the peak disk
 *		space, "Disk Usage: NkB".  Text format: one line, and only when the
 *		node spilled; the other formats: each figure as its own property,
 *		always, "Disk Usage" in kB.
 */
void
wj_explain_spill(const WjSpillFigure *figures, int nfigures, int64 disk_kb,
				 bool spilled, ExplainState *es)
{
	int			i;

	if (!es->analyze)
		return;
	if (es->format != EXPLAIN_FORMAT_TEXT)
	{
		for (i = 0; i < nfigures; i++)
			ExplainPropertyInteger(figures[i].label, NULL, figures[i].value, es);
		ExplainPropertyInteger("Disk Usage", "kB", disk_kb, es);
		return;
	}
	if (!spilled)
		return;
	appendStringInfoSpaces(es->str, es->indent * 2);
	for (i = 0; i < nfigures; i++)
		appendStringInfo(es->str, "%s: " INT64_FORMAT "  ",
						 figures[i].label, figures[i].value);
	appendStringInfo(es->str, "Disk Usage: " INT64_FORMAT "kB\n", disk_kb);
}
