/*-------------------------------------------------------------------------
 *
 * row_exchange.h
 *	  Rows exchanged between the participants of a parallel query through
 *	  shared memory, and past its budget through shared temporary files
 *	  (one SharedTuplestore per partition); see row_exchange.c.
 *
 * src/parallel/row_exchange.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef ROW_EXCHANGE_H
#define ROW_EXCHANGE_H

#include "access/parallel.h"
#include "executor/tuptable.h"
#include "nodes/execnodes.h"
#include "nodes/nodes.h"
#include "port/atomics.h"
#include "storage/barrier.h"
#include "storage/sharedfileset.h"
#include "utils/dsa.h"
#include "utils/sharedtuplestore.h"

/*
 * The shared state, in the parallel query's DSM segment, followed by
 * nparts SharedTuplestores of sts_size bytes each, then nparts heads of the
 * partitions' lists of chunks in shared memory (dsa_pointer, as
 * pg_atomic_uint64).
 */
typedef struct WjExchangeShared
{
	dsm_handle	seg;			/* the segment, for workers to attach */
	int			nparts;			/* partitions */
	int			nparticipants;	/* planned workers + the leader */
	Size		sts_size;		/* bytes per SharedTuplestore */
	pg_atomic_uint32 next_part; /* next partition to claim, if the user
								 * claims through wj_exchange_claim */
	Barrier		barrier;		/* phase 0: write; 1: read */
	uint64		mem_limit;		/* bytes of chunks allowed in memory */
	pg_atomic_uint64 mem_used;	/* bytes of chunks allocated */
	pg_atomic_uint64 rows_memory;	/* rows written to chunks */
	pg_atomic_uint64 rows_files;	/* rows written to the files */
	pg_atomic_uint64 bytes_memory;	/* largest mem_used */
	SharedFileSet fileset;		/* the files of the tuplestores */
	char		name[NAMEDATALEN - 8];	/* files' name prefix */
} WjExchangeShared;

/* A chunk of a partition's rows in shared memory: MinimalTuples, MAXALIGNed */
typedef struct WjExchangeChunk
{
	dsa_pointer next;			/* the partition's next chunk */
	Size		size;			/* bytes allocated, header included */
	Size		used;			/* bytes of data in use */
	char		data[FLEXIBLE_ARRAY_MEMBER];
} WjExchangeChunk;

/* What EXPLAIN ANALYZE shows of an exchange (wj_exchange_explain) */
typedef struct WjExchangeInstr
{
	uint64		rows_memory;
	uint64		rows_files;
	uint64		bytes_memory;
} WjExchangeInstr;

/* One process's side of an exchange */
typedef struct WjExchange
{
	WjExchangeShared *shared;	/* NULL: no exchange (no DSM segment) */
	dsa_area   *area;			/* the query's, for the chunks; NULL: files
								 * only */
	SharedTuplestoreAccessor **sts; /* one per partition, once attached */
	bool		written;		/* the write phase is over for this process */
	int			reading;		/* partition being read, or -1 */
	/* writing: per partition, the chunk being filled (and its address) */
	WjExchangeChunk **wchunk;
	dsa_pointer *wchunk_dp;
	Size	   *wnext;			/* size of its next chunk */
	bool		mem_full;		/* no more chunks for this process */
	uint64		nrows_memory;	/* rows this process wrote to chunks */
	uint64		nrows_files;	/* ... and to the files */
	/* reading: the chunk being read, then the partition's files */
	dsa_pointer rchunk_dp;
	WjExchangeChunk *rchunk;
	Size		roff;
	WjExchangeInstr instr;		/* the shared counts, kept past the segment */
} WjExchange;

/* 0 for the leader, 1 + ParallelWorkerNumber for a worker */
extern int	wj_participant_number(void);

extern Cost wj_exchange_cost(double rows, int width);
extern Size wj_exchange_estimate(int nparticipants, int nparts);
extern void wj_exchange_init_dsm(WjExchange *ex, void *space,
								 ParallelContext *pcxt, dsa_area *area,
								 int nparts, const char *name);
extern void wj_exchange_reinit_dsm(WjExchange *ex);
extern void wj_exchange_init_worker(WjExchange *ex, void *space,
									dsa_area *area);
extern void wj_exchange_restart(WjExchange *ex);

/* write phase: write_row puts each row of the child into its partitions */
typedef void (*WjExchangeWriteRow) (void *arg, WjExchange *ex,
									TupleTableSlot *slot);
extern void wj_exchange_write(WjExchange *ex, PlanState *child,
							  MemoryContext cxt, WjExchangeWriteRow write_row,
							  void *arg);
extern void wj_exchange_put(WjExchange *ex, int part, TupleTableSlot *slot);

/* ... or produce puts whatever rows it has (wj_exchange_put) */
typedef void (*WjExchangeProduce) (void *arg, WjExchange *ex);
extern void wj_exchange_write_all(WjExchange *ex, MemoryContext cxt,
								  WjExchangeProduce produce, void *arg);

/* read phase */
extern int	wj_exchange_claim(WjExchange *ex);
extern void wj_exchange_open(WjExchange *ex, int part);
extern TupleTableSlot *wj_exchange_read(WjExchange *ex, TupleTableSlot *slot);
extern void wj_exchange_close(WjExchange *ex);

/* EXPLAIN ANALYZE: where the rows went */
struct ExplainState;
extern void wj_exchange_explain(WjExchange *ex, struct ExplainState *es);

#endif							/* ROW_EXCHANGE_H */
