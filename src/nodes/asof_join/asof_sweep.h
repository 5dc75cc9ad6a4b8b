/*-------------------------------------------------------------------------
 *
 * asof_sweep.h
 *	  The AsOfJoin sweep strategy (asof_sweep.c) as the lookup strategy
 *	  falls back to it: a sweep in the lookup's table, over the outer rows
 *	  the lookup sorted by time.  Run through asof_sweep_strategy.
 *
 * src/nodes/asof_join/asof_sweep.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef ASOF_SWEEP_H
#define ASOF_SWEEP_H

#include "src/nodes/asof_join/asof_exec_internal.h"

extern void *asof_sweep_begin_in(AsOfJoinState *s, EState *estate,
								 AsOfKeyTable *table, AsOfOuterSort *sorted);

#endif							/* ASOF_SWEEP_H */
