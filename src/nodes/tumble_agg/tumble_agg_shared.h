/*-------------------------------------------------------------------------
 *
 * tumble_agg_shared.h
 *	  TumbleAgg's dense arrays handed between parallel participants in the
 *	  query's dynamic shared memory area (tumble_agg_shared.c).
 *
 * src/nodes/tumble_agg/tumble_agg_shared.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TUMBLE_AGG_SHARED_H
#define TUMBLE_AGG_SHARED_H

#include "utils/dsa.h"

/*
 * One participant's published array: dnwin x dnkey slots of naggs cells,
 * then as many used flags, at cells in the area.
 */
typedef struct TaSharedArray
{
	dsa_pointer cells;			/* InvalidDsaPointer: none published */
	int64		dbase;			/* window start of the first slot */
	int64		dstride;
	int64		dnwin;
	int64		dkbase;			/* key of a window's first slot */
	int64		dnkey;
	int			naggs;
} TaSharedArray;

/* In the node's DSM chunk: a slot per participant (0: the leader) */
typedef struct TaSharedArrays
{
	int			nparticipants;
	TaSharedArray arrays[FLEXIBLE_ARRAY_MEMBER];
} TaSharedArrays;

struct TumbleAggState;

extern Size ta_shared_size(int nparticipants);
extern void ta_shared_init(TaSharedArrays *sh, int nparticipants);
extern void ta_shared_reset(TaSharedArrays *sh, dsa_area *area);
extern bool ta_shared_publish(struct TumbleAggState *state, TaSharedArrays *sh,
							  dsa_area *area);
extern void ta_shared_merge(struct TumbleAggState *state, TaSharedArrays *sh,
							dsa_area *area, int part);

#endif							/* TUMBLE_AGG_SHARED_H */
