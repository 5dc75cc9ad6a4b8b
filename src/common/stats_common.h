/*-------------------------------------------------------------------------
 *
 * stats_common.h
 *	  What the planners read from a time column's statistics (see
 *	  stats_common.c).
 *
 * src/common/stats_common.h
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

/*
 * Into how many cells of the given width expr's values fall among rows
 * rows, according to its histogram; -1 without one.  _cells counts each
 * bucket's cells (a cell spanning buckets in each), _windows the distinct
 * ones (a cell spanning buckets once).
 */
extern double wj_stats_time_cells(PlannerInfo *root, Node *expr, double width,
								  double rows);
extern double wj_stats_time_windows(PlannerInfo *root, Node *expr, double width,
									double rows);

/*
 * The distinct combinations of exprs among rows rows: estimate_num_groups(),
 * with remainders of an integer by a constant bounded (stats_common.c).
 */
extern double wj_stats_key_groups(PlannerInfo *root, List *exprs, double rows);

#endif							/* STATS_COMMON_H */
