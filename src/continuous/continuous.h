/*-------------------------------------------------------------------------
 *
 * continuous.h
 *	  Continuous window views: what _PG_init and windowjoin_status() need
 *	  from src/continuous/.
 *
 * The SQL side (catalog windowjoin.view_catalog, create_view,
 * drop_view, advance_watermark, the views view) is in
 * windowjoin--0.2--0.3.sql and windowjoin--0.3--0.4.sql; the C side is
 * the query analysis
 * (cv_analyze.c, with query-tree helpers in cv_query.c; Top-N in
 * cv_topn.c; window, interval and as-of joins in cv_join_analyze.c), the
 * pane and session partial states derived from it (cv_panes.c), change
 * capture and the catalog's write path and dependencies (cv_capture.c,
 * cv_catalog.c), derived queries as functions (cv_derived.c), partitioned
 * sources (cv_partitions.c), refresh (cv_refresh.c, cv_join_refresh.c),
 * pipelines of views (cv_pipeline.c), the background scheduler
 * (cv_scheduler.c) and its vacuum of views' state (cv_vacuum.c).
 *
 * src/continuous/continuous.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CONTINUOUS_H
#define CONTINUOUS_H

#include "postgres.h"

/* When preloaded, register the scheduler's launcher. */
extern void wj_scheduler_init(bool preloaded);

/* Was the launcher registered (the library preloaded, scheduler on)? */
extern bool wj_scheduler_registered(void);

/*
 * A statement moved a scheduled view's watermark to the window grid point
 * closed: wake its refresh when the transaction commits.
 */
extern void wj_scheduler_note_close(Oid view, int64 closed);

#endif							/* CONTINUOUS_H */
