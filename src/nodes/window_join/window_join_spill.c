/*-------------------------------------------------------------------------
 *
 * window_join_spill.c
 *	  What a WindowJoin does past its memory budget: keep the open windows'
 *	  rows in temporary files, and join a window whose rows are in files
 *	  batch by batch, as PostgreSQL's hash join joins its batches.
 *
 * INTERFACE ROUTINES (window_join_internal.h)
 *		wjoin_spill_state			move the open windows' rows to files
 *		wjoin_queue_append_file		a further row of a spilled side
 *		wjoin_spill_read_header		the header of a spilled row (eviction)
 *		wjoin_unspill_state			TIME mode: read the rows back into memory
 *		wjoin_close_queue_files		drop the files
 *		wjoin_spill_join_start		set up the join of a spilled window
 *		wjoin_spill_next_batch		advance to its next batch
 *		wjoin_spill_load_chunk		load the next chunk of a batch's inner rows
 *		wjoin_spill_next_outer		the next outer row of the batch
 *		wjoin_spill_after_chunk		where to go when a chunk is done
 *		wjoin_spill_join_end		release the batches
 *
 * ALGORITHM
 *
 * The buffered rows and the inner hash chains are kept within
 * work_mem x hash_mem_multiplier (get_hash_memory_limit(), the budget of a
 * Hash Join), whatever the planner estimated.  When taking a row into the
 * state would exceed five eighths of it, the window "spills": the rows of
 * both sides move to a temporary file per side (BufFile; each record is the
 * WjRow header followed by its MinimalTuple) and further rows of the open
 * windows are appended there.  TIME mode evicts from the head of the file
 * as from the in-memory FIFO and, once the open windows hold less than a
 * quarter of the budget again, reads the remaining rows back into memory.
 * GROUP mode drops the files when the window closes.
 *
 * A spilled window is joined as PostgreSQL's hash join joins batches: when
 * its inner rows would not fit, both sides' rows are partitioned by their
 * key hash into nbatch batch files (nbatch a power of two, at most what a
 * quarter of the budget in file buffers allows), and each batch is joined
 * on its own: its inner rows are loaded into the hash chains, its outer
 * rows read back one at a time and probed.  A batch whose inner rows still
 * do not fit (one hot key) is joined in chunks of inner rows that fit, the
 * outer batch read once per chunk; a bitmap of one bit per outer row of
 * the batch then remembers which outer rows matched, for the SEMI, ANTI,
 * LEFT and FULL emissions after the last chunk.  Unmatched inner rows are
 * emitted per chunk (each is in exactly one chunk).  Rows whose keys are
 * NULL go to batch 0 and never match.  EXPLAIN ANALYZE shows the number of
 * spilled windows and the bytes written to temporary files.
 *
 * src/nodes/window_join/window_join_spill.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "storage/buffile.h"
#include "utils/memutils.h"

#include "src/nodes/window_join/window_join_internal.h"

/*
 * spill_write
 *		Append a row (header and tuple) to a temporary file at its current
 *		position.
 */
static void
spill_write(WindowJoinState *state, BufFile *file, WjRow *row)
{
	BufFileWrite(file, row, row->size);
	state->spill_bytes += row->size;
}

/*
 * wjoin_spill_read_header
 *		Read the header of the row at the file's current position into
 *		*hdr.
 */
void
wjoin_spill_read_header(BufFile *file, WjRow *hdr)
{
	union
	{
		WjRow		row;
		char		bytes[WJ_ROW_HEADER];
	}			buf;

	if (BufFileRead(file, buf.bytes, WJ_ROW_HEADER) != WJ_ROW_HEADER)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read from window join temporary file: read only part of a row")));
	*hdr = buf.row;
	if (hdr->size < WJ_ROW_HEADER + SizeofMinimalTupleHeader)
		elog(ERROR, "window join temporary file is corrupt");
}

/*
 * spill_read
 *		Read the row at the file's current position into memory of cxt.  Its
 *		links and match mark are reset.
 */
static WjRow *
spill_read(BufFile *file, MemoryContext cxt)
{
	WjRow		hdr;
	WjRow	   *row;
	size_t		rest;

	wjoin_spill_read_header(file, &hdr);
	row = (WjRow *) MemoryContextAlloc(cxt, hdr.size);
	memcpy(row, &hdr, sizeof(WjRow));
	rest = hdr.size - WJ_ROW_HEADER;
	if (BufFileRead(file, WJ_ROW_TUPLE(row), rest) != rest)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read from window join temporary file: read only part of a row")));
	row->next = NULL;
	row->chain_next = NULL;
	row->matched_window = 0;
	return row;
}

/*
 * run_read
 *		Read the next row of a run at the cursor (fileno, off), advancing
 *		it, or return NULL when remaining is zero.
 */
static WjRow *
run_read(BufFile *file, int *fileno, off_t *off, int64 *remaining,
		 MemoryContext cxt)
{
	WjRow	   *row;

	if (*remaining <= 0)
		return NULL;
	if (BufFileSeek(file, *fileno, *off, SEEK_SET) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not seek in window join temporary file")));
	row = spill_read(file, cxt);
	BufFileTell(file, fileno, off);
	(*remaining)--;
	return row;
}

/*
 * wjoin_queue_append_file
 *		Append a row to a spilled side's file.
 */
void
wjoin_queue_append_file(WindowJoinState *state, WjSide *side, WjRow *row)
{
	if (BufFileSeek(side->qfile, side->qend_fileno, side->qend_off, SEEK_SET) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not seek in window join temporary file")));
	spill_write(state, side->qfile, row);
	BufFileTell(side->qfile, &side->qend_fileno, &side->qend_off);
	side->qrows++;
	side->qbytes += row->size;
	side->qlast_end = row->last_end;
}

/*
 * wjoin_spill_state
 *		The open windows' rows do not fit: move both sides' buffered rows,
 *		in order, to a temporary file each and free their memory.  Rows
 *		taken from now on go to the files.
 */
void
wjoin_spill_state(WindowJoinState *state)
{
	WjSide	   *sides[2] = {&state->outer, &state->inner};
	int			s;

	for (s = 0; s < 2; s++)
	{
		WjSide	   *side = sides[s];
		MemoryContext oldcxt = MemoryContextSwitchTo(state->nodecxt);
		WjRow	   *row;

		Assert(side->qfile == NULL);
		side->qfile = BufFileCreateTemp(false);
		MemoryContextSwitchTo(oldcxt);
		BufFileTell(side->qfile, &side->qhead_fileno, &side->qhead_off);
		side->qend_fileno = side->qhead_fileno;
		side->qend_off = side->qhead_off;
		side->qrows = 0;
		side->qbytes = 0;
		side->qlast_end = 0;
		for (row = side->head; row != NULL; row = row->next)
		{
			CHECK_FOR_INTERRUPTS();
			wjoin_queue_append_file(state, side, row);
		}
		side->head = side->tail = NULL;
	}
	MemoryContextReset(state->bufcxt);
	wjchain_reset(state->chains);
	wj_state_clear(&state->stats);
	state->spilled = true;
}

/*
 * wjoin_close_queue_files
 *		Drop both sides' temporary files (the rows in them are gone).
 */
void
wjoin_close_queue_files(WindowJoinState *state)
{
	WjSide	   *sides[2] = {&state->outer, &state->inner};
	int			s;

	for (s = 0; s < 2; s++)
	{
		if (sides[s]->qfile)
			BufFileClose(sides[s]->qfile);
		sides[s]->qfile = NULL;
		sides[s]->qrows = 0;
		sides[s]->qbytes = 0;
	}
	state->spilled = false;
}

/*
 * wjoin_unspill_state
 *		TIME mode: the open windows fit again; read the rows still in the
 *		files back into memory and drop the files.
 */
void
wjoin_unspill_state(WindowJoinState *state)
{
	WjSide	   *sides[2] = {&state->outer, &state->inner};
	int			s;

	for (s = 0; s < 2; s++)
	{
		WjSide	   *side = sides[s];
		int			fileno = side->qhead_fileno;
		off_t		off = side->qhead_off;
		int64		remaining = side->qrows;
		WjRow	   *row;

		while ((row = run_read(side->qfile, &fileno, &off, &remaining,
							   state->bufcxt)) != NULL)
		{
			CHECK_FOR_INTERRUPTS();
			wj_state_add(&state->stats, (int64) row->size);
			wjoin_side_append(state, side, row);
		}
	}
	wjoin_close_queue_files(state);
}

/*
 * spill_close_batch
 *		Close the batch files of batch b (they are not the queue files).
 */
static void
spill_close_batch(WindowJoinState *state, int b)
{
	if (state->nbatch > 1)
	{
		if (state->oruns[b].file)
			BufFileClose(state->oruns[b].file);
		if (state->iruns[b].file)
			BufFileClose(state->iruns[b].file);
	}
	state->oruns[b].file = NULL;
	state->iruns[b].file = NULL;
}

/*
 * spill_partition
 *		Copy a spilled side's rows of the window into per-batch files by the
 *		low bits of their key hash.
 */
static void
spill_partition(WindowJoinState *state, WjSide *side, WjRun *runs)
{
	int			fileno = side->qhead_fileno;
	off_t		off = side->qhead_off;
	int64		remaining = side->qrows;
	WjRow	   *row;

	for (;;)
	{
		WjRun	   *run;

		CHECK_FOR_INTERRUPTS();
		MemoryContextReset(state->rowcxt);
		row = run_read(side->qfile, &fileno, &off, &remaining, state->rowcxt);
		if (row == NULL)
			break;
		run = &runs[row->hash & (uint32) (state->nbatch - 1)];
		if (run->file == NULL)
		{
			MemoryContext oldcxt = MemoryContextSwitchTo(state->nodecxt);

			run->file = BufFileCreateTemp(false);
			MemoryContextSwitchTo(oldcxt);
			BufFileTell(run->file, &run->fileno, &run->off);
		}
		spill_write(state, run->file, row);
		run->nrows++;
	}
	MemoryContextReset(state->rowcxt);
}

/*
 * wjoin_spill_join_start
 *		Set up the join of a spilled window: choose the number of batches
 *		from the size of its inner rows and partition both sides (or, with
 *		one batch, read the queue files directly).
 */
void
wjoin_spill_join_start(WindowJoinState *state)
{
	double		inner_mem;

	state->spill_join = true;
	state->spilled_windows++;
	inner_mem = (double) state->inner.qbytes +
		(double) state->inner.qrows * sizeof(WjChain) * 2;
	state->nbatch = 1;
	while (state->nbatch < state->max_nbatch &&
		   inner_mem > (double) state->budget * state->nbatch)
		state->nbatch *= 2;

	state->max_batches = Max(state->max_batches, state->nbatch);
	state->oruns = MemoryContextAllocZero(state->nodecxt,
										  sizeof(WjRun) * state->nbatch);
	state->iruns = MemoryContextAllocZero(state->nodecxt,
										  sizeof(WjRun) * state->nbatch);
	if (state->nbatch == 1)
	{
		state->oruns[0].file = state->outer.qfile;
		state->oruns[0].fileno = state->outer.qhead_fileno;
		state->oruns[0].off = state->outer.qhead_off;
		state->oruns[0].nrows = state->outer.qrows;
		state->iruns[0].file = state->inner.qfile;
		state->iruns[0].fileno = state->inner.qhead_fileno;
		state->iruns[0].off = state->inner.qhead_off;
		state->iruns[0].nrows = state->inner.qrows;
	}
	else
	{
		spill_partition(state, &state->inner, state->iruns);
		spill_partition(state, &state->outer, state->oruns);
	}
	state->curbatch = -1;
}

/*
 * wjoin_spill_join_end
 *		The spilled window is joined: release the batches.
 */
void
wjoin_spill_join_end(WindowJoinState *state)
{
	int			b;

	if (!state->spill_join)
		return;
	for (b = 0; b < state->nbatch; b++)
		spill_close_batch(state, b);
	pfree(state->oruns);
	pfree(state->iruns);
	state->oruns = state->iruns = NULL;
	if (state->omatched)
		pfree(state->omatched);
	state->omatched = NULL;
	state->multi_chunk = false;
	MemoryContextReset(state->bufcxt);
	wjchain_reset(state->chains);
	wj_state_clear(&state->stats);
	state->chunk_head = state->chunk_tail = NULL;
	state->outer_cur = NULL;
	state->inner_cur = NULL;
	state->chain_cur = NULL;
	state->spill_join = false;
}

/*
 * wjoin_spill_next_batch
 *		Advance to the next batch that can produce rows; false when none is
 *		left.
 */
bool
wjoin_spill_next_batch(WindowJoinState *state)
{
	for (;;)
	{
		WjRun	   *orun;
		WjRun	   *irun;

		if (state->curbatch >= 0)
			spill_close_batch(state, state->curbatch);
		state->curbatch++;
		if (state->curbatch >= state->nbatch)
			return false;
		orun = &state->oruns[state->curbatch];
		irun = &state->iruns[state->curbatch];
		if ((orun->nrows == 0 && !state->inner.preserved) ||
			(irun->nrows == 0 && !state->outer.preserved))
			continue;
		state->ifileno = irun->fileno;
		state->ioff = irun->off;
		state->iremaining = irun->nrows;
		state->chunkno = 0;
		state->multi_chunk = false;
		if (state->omatched)
			pfree(state->omatched);
		state->omatched = NULL;
		return true;
	}
}

/*
 * wjoin_spill_load_chunk
 *		Load the next chunk of the current batch's inner rows (as many as
 *		fit the budget, at least one) into memory and the hash chains, and
 *		rewind the batch's outer rows.
 */
void
wjoin_spill_load_chunk(WindowJoinState *state)
{
	WjRun	   *irun = &state->iruns[state->curbatch];
	WjRun	   *orun = &state->oruns[state->curbatch];

	MemoryContextReset(state->bufcxt);
	wjchain_reset(state->chains);
	wj_state_clear(&state->stats);
	state->chunk_head = state->chunk_tail = NULL;
	while (state->iremaining > 0 &&
		   (state->chunk_head == NULL || wjoin_state_memory(state) < state->budget))
	{
		WjRow	   *row;

		CHECK_FOR_INTERRUPTS();
		row = run_read(irun->file, &state->ifileno, &state->ioff,
					   &state->iremaining, state->bufcxt);
		wj_state_add(&state->stats, (int64) row->size);
		if (state->chunk_tail)
			state->chunk_tail->next = row;
		else
			state->chunk_head = row;
		state->chunk_tail = row;
		wjoin_chain_row(state, row);
	}
	if (state->chunkno == 0 && state->iremaining > 0)
	{
		/* more than one chunk: remember the outer rows' matches */
		state->multi_chunk = true;
		state->omatched = MemoryContextAllocZero(state->nodecxt,
												 (Size) (orun->nrows / 8 + 1));
	}
	if (state->chunkno > 0)
		state->spill_chunks++;
	state->chunkno++;

	state->ofileno = orun->fileno;
	state->ooff = orun->off;
	state->oremaining = orun->nrows;
	state->oord = -1;
	state->outer_cur = NULL;
	state->probe_started = false;
}

/*
 * wjoin_spill_next_outer
 *		The next outer row of the current batch, read into rowcxt, or NULL.
 */
WjRow *
wjoin_spill_next_outer(WindowJoinState *state)
{
	WjRun	   *orun = &state->oruns[state->curbatch];

	MemoryContextReset(state->rowcxt);
	state->oord++;
	return run_read(orun->file, &state->ofileno, &state->ooff,
					&state->oremaining, state->rowcxt);
}

/*
 * wjoin_spill_after_chunk
 *		Where to go when a chunk's outer scan (and unmatched inner rows) are
 *		done.
 */
WjPhase
wjoin_spill_after_chunk(WindowJoinState *state)
{
	WjRun	   *orun = &state->oruns[state->curbatch];

	if (state->iremaining > 0)
		return WJ_PHASE_SPILL_LOAD;
	if (state->multi_chunk && state->outer.preserved)
	{
		state->ofileno = orun->fileno;
		state->ooff = orun->off;
		state->oremaining = orun->nrows;
		state->oord = -1;
		return WJ_PHASE_SPILL_OUTER_REST;
	}
	return WJ_PHASE_SPILL_BATCH;
}
