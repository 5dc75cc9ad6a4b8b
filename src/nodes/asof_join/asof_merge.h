/*-------------------------------------------------------------------------
 *
 * asof_merge.h
 *	  The AsOfJoin merge strategy (asof_merge.c) as the lookup strategy
 *	  falls back to it in the nearest direction: a merge over the outer
 *	  rows the lookup sorted by keys and time.  Run through
 *	  asof_merge_strategy.
 *
 * src/nodes/asof_join/asof_merge.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef ASOF_MERGE_H
#define ASOF_MERGE_H

#include "src/nodes/asof_join/asof_exec_internal.h"

extern void *asof_merge_begin_sorted(AsOfJoinState *s, EState *estate,
									 AsOfOuterSort *sorted);

#endif							/* ASOF_MERGE_H */
