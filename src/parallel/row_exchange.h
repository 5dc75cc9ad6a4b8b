/*-------------------------------------------------------------------------
 *
 * row_exchange.h
 *	  Rows exchanged between the participants of a parallel query through
 *	  shared temporary files, one SharedTuplestore per partition (see
 *	  row_exchange.c).
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
#include "utils/sharedtuplestore.h"

/*
 * The shared state, in the parallel query's DSM segment, followed by
 * nparts SharedTuplestores of sts_size bytes each.
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
	SharedFileSet fileset;		/* the files of the tuplestores */
	char		name[NAMEDATALEN - 8];	/* files' name prefix */
} WjExchangeShared;

/* One process's side of an exchange */
typedef struct WjExchange
{
	WjExchangeShared *shared;	/* NULL: no exchange (no DSM segment) */
	SharedTuplestoreAccessor **sts; /* one per partition, once attached */
	bool		written;		/* the write phase is over for this process */
	int			reading;		/* partition being read, or -1 */
} WjExchange;

/* 0 for the leader, 1 + ParallelWorkerNumber for a worker */
extern int	wj_participant_number(void);

extern Cost wj_exchange_cost(double rows, int width);
extern Size wj_exchange_estimate(int nparticipants, int nparts);
extern void wj_exchange_init_dsm(WjExchange *ex, void *space,
								 ParallelContext *pcxt, int nparts,
								 const char *name);
extern void wj_exchange_reinit_dsm(WjExchange *ex);
extern void wj_exchange_init_worker(WjExchange *ex, void *space);
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

#endif							/* ROW_EXCHANGE_H */
