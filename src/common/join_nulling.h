/*-------------------------------------------------------------------------
 *
 * join_nulling.h
 *	  The nulling relations of a join CustomScan's columns (join_nulling.c).
 *
 * src/common/join_nulling.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef JOIN_NULLING_H
#define JOIN_NULLING_H

#include "nodes/pathnodes.h"
#include "nodes/plannodes.h"

/*
 * A join CustomScan's scan tuple and own expressions take its output's
 * varnullingrels (PostgreSQL 16 and later; nothing to do before)
 */
#if PG_VERSION_NUM >= 160000
extern void wj_custom_join_nullingrels(CustomScan *cscan, RelOptInfo *rel);
#else
#define wj_custom_join_nullingrels(cscan, rel) ((void) 0)
#endif

#endif							/* JOIN_NULLING_H */
