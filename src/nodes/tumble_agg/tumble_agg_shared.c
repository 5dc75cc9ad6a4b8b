/*-------------------------------------------------------------------------
 *
 * tumble_agg_shared.c
 *	  TumbleAgg's groups handed between parallel participants in shared
 *	  memory: each participant's dense array, published in the query's DSA.
 *
 * In the groups exchange (tumble_agg_exec.c) each participant aggregates
 * its share of a parallel scan, then hands its groups to the participant
 * that claims their window partition.  When its groups are in a dense array
 * (no key, or one integer key: tumble_agg_groups.c) whose cells hold no
 * pointer (no numeric beyond 128 bits, no numeric min or max), the
 * participant copies the array -- the box of its used slots -- into the
 * query's dynamic shared memory area and writes where it is into its slot
 * of the node's shared state; otherwise it writes its groups as partial
 * rows into the exchange's temporary files, as before.  Once every
 * participant has written (the exchange's barrier), whoever claims a window
 * partition merges, besides the partial rows read back, each published
 * array's windows of that partition, slot by slot, into its own groups.
 *
 * Nothing crosses a temporary file and nothing is formed into a tuple: a
 * group costs a copy and a merge of its cells.  The arrays stay in the area
 * until the query ends or the node is rescanned (ta_shared_reset).
 *
 * src/nodes/tumble_agg/tumble_agg_shared.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/dsa.h"

#include "src/nodes/tumble_agg/tumble_agg_internal.h"
#include "src/nodes/tumble_agg/tumble_agg_shared.h"

/*
 * ta_shared_size
 *		Bytes of the shared state for nparticipants participants.
 */
Size
ta_shared_size(int nparticipants)
{
	return MAXALIGN(add_size(offsetof(TaSharedArrays, arrays),
							 mul_size(nparticipants, sizeof(TaSharedArray))));
}

/*
 * ta_shared_init
 *		The shared state with no array published (leader, at DSM setup).
 */
void
ta_shared_init(TaSharedArrays *sh, int nparticipants)
{
	sh->nparticipants = nparticipants;
	for (int i = 0; i < nparticipants; i++)
		sh->arrays[i].cells = InvalidDsaPointer;
}

/*
 * ta_shared_reset
 *		Free the arrays published (a rescan): none is being read, as every
 *		participant has finished.
 */
void
ta_shared_reset(TaSharedArrays *sh, dsa_area *area)
{
	for (int i = 0; i < sh->nparticipants; i++)
	{
		if (DsaPointerIsValid(sh->arrays[i].cells) && area != NULL)
			dsa_free(area, sh->arrays[i].cells);
		sh->arrays[i].cells = InvalidDsaPointer;
	}
}

/*
 * ta_shared_publish
 *		Copy this participant's dense array into area and publish it in
 *		its slot of sh; then forget the groups.  False (nothing done) when
 *		the groups are not in a dense array or a cell holds a pointer: the
 *		caller writes them as partial rows.
 */
bool
ta_shared_publish(TumbleAggState *state, TaSharedArrays *sh, dsa_area *area)
{
	int			me = wj_participant_number();
	int			naggs = state->naggs;
	int64		wlo = PG_INT64_MAX;
	int64		whi = -1;
	int64		klo = PG_INT64_MAX;
	int64		khi = -1;
	int64		nw;
	int64		nk;
	Size		cellbytes;
	char	   *to;
	TaSharedArray *out;

	if (area == NULL || me >= sh->nparticipants || !state->dense ||
		state->special[TA_SPECIAL_NULL] != NULL ||
		state->special[TA_SPECIAL_NEG_INF] != NULL ||
		state->special[TA_SPECIAL_POS_INF] != NULL)
		return false;

	/* the box of the used slots, and no cell holding a pointer */
	for (int64 w = 0; w < state->dnwin; w++)
	{
		CHECK_FOR_INTERRUPTS();
		for (int64 k = 0; k < state->dnkey; k++)
		{
			int64		i = w * state->dnkey + k;

			if (!state->dused[i])
				continue;
			for (int a = 0; a < naggs; a++)
				if (state->dcells[i * naggs + a].has_d)
					return false;
			wlo = Min(wlo, w);
			whi = Max(whi, w);
			klo = Min(klo, k);
			khi = Max(khi, k);
		}
	}

	out = &sh->arrays[me];
	if (whi < 0)
	{
		/* no group: nothing to publish, nothing to write either */
		ta_reset_groups(state);
		return true;
	}
	nw = whi - wlo + 1;
	nk = khi - klo + 1;
	cellbytes = sizeof(TaCell) * naggs;
	out->cells = dsa_allocate_extended(area, (Size) (nw * nk) * (cellbytes + 1),
									   DSA_ALLOC_HUGE);
	to = dsa_get_address(area, out->cells);
	for (int64 w = 0; w < nw; w++)
	{
		int64		from = (w + wlo) * state->dnkey + klo;

		CHECK_FOR_INTERRUPTS();
		memcpy(to + w * nk * cellbytes, &state->dcells[from * naggs], nk * cellbytes);
		memcpy(to + nw * nk * cellbytes + w * nk, &state->dused[from], nk);
	}
	out->dbase = state->dbase + wlo * state->dstride;
	out->dstride = state->dstride;
	out->dnwin = nw;
	out->dkbase = state->dkbase + klo;
	out->dnkey = nk;
	out->naggs = naggs;
	ta_reset_groups(state);
	return true;
}

/*
 * ta_shared_merge
 *		Merge every published array's windows of partition part (as
 *		ta_part_of assigns them) into the state's groups.
 */
void
ta_shared_merge(TumbleAggState *state, TaSharedArrays *sh, dsa_area *area,
				int part)
{
	for (int i = 0; i < sh->nparticipants; i++)
	{
		TaSharedArray *arr = &sh->arrays[i];
		Size		cellbytes = sizeof(TaCell) * arr->naggs;
		char	   *cells;
		bool	   *used;

		if (!DsaPointerIsValid(arr->cells))
			continue;
		Assert(arr->naggs == state->naggs && arr->dstride == state->info.unit);
		cells = dsa_get_address(area, arr->cells);
		used = (bool *) (cells + arr->dnwin * arr->dnkey * cellbytes);

		/* the array's windows of the partition (ta_part_of's rule) */
		for (int64 w = 0; w < arr->dnwin; w++)
		{
			int64		start = arr->dbase + w * arr->dstride;

			if (ta_part_of(state, start, false) != part)
				continue;
			CHECK_FOR_INTERRUPTS();
			for (int64 k = 0; k < arr->dnkey; k++)
			{
				int64		slot = w * arr->dnkey + k;
				int64		before = state->groups;
				TaCell	   *from;
				TaCell	   *into;

				if (!used[slot])
					continue;
				from = (TaCell *) (cells + slot * cellbytes);
				into = ta_group_cells_int(state, start, false, arr->dkbase + k, false);
				for (int a = 0; a < state->naggs; a++)
					ta_cell_merge(&into[a], &from[a], &state->info.aggs[a],
								  state->groupcxt);
				if (state->groups != before)
					ta_check_memory(state, false);
			}
		}
	}
}
