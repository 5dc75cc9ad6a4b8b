/*-------------------------------------------------------------------------
 *
 * agg_exact.h
 *	  Which aggregates combine exactly from partial states (agg_exact.c):
 *	  the one rule of the pane aggregation (WindowExpand) and of the
 *	  continuous views' panes (cv_panes.c).
 *
 * src/common/agg_exact.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef AGG_EXACT_H
#define AGG_EXACT_H

#include "postgres.h"

extern bool wj_agg_combines_exactly(Oid aggfnoid);
extern bool wj_agg_picks_one(Oid aggfnoid);

#endif							/* AGG_EXACT_H */
