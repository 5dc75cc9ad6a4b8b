/*-------------------------------------------------------------------------
 *
 * stats_common.h
 *	  What the planners read from a time column's statistics (see
 *	  stats_common.c).
 *
 * src/stats_common.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef STATS_COMMON_H
#define STATS_COMMON_H

#include "nodes/pathnodes.h"

/*
 * The span (last - first) of a time expression's values according to its
 * statistics, in its own units (microseconds for timestamps); -1 when
 * there are none.  With with_mcv, the most common values widen the
 * histogram's range.
 */
extern double wj_stats_time_span(PlannerInfo *root, Node *expr, bool with_mcv);

#endif							/* STATS_COMMON_H */
