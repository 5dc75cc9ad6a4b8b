/*-------------------------------------------------------------------------
 *
 * cv_refresh.h
 *	  What refresh of aggregate views (cv_refresh.c) and of join views
 *	  (cv_join_refresh.c) share: a view's catalog row as refresh reads it,
 *	  the change log's summary and the statement helpers.
 *
 * src/continuous/cv_refresh.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CV_REFRESH_H
#define CV_REFRESH_H

#include "postgres.h"

#include "datatype/timestamp.h"

/* the window kinds of a view */
typedef enum CvKind
{
	CV_TUMBLE,
	CV_HOP,
	CV_CUMULATE,
	CV_SESSION,
	CV_BAND						/* interval and as-of join views */
} CvKind;

/* the late policies */
typedef enum CvLate
{
	CV_LATE_REVISE,
	CV_LATE_DROP,
	CV_LATE_LOG
} CvLate;

/*
 * A view's catalog row, as refresh uses it.  Times are microseconds
 * (timestamptz, or for a timestamp source the wall clock read in UTC:
 * the same int64 either way); lengths are microseconds, 0 when absent.
 */
typedef struct CvView
{
	Oid			view;
	CvKind		kind;
	Oid			source;
	char	   *time_column;
	bool		tz;				/* timestamptz source? */
	int64		size;
	int64		stride;
	int64		offset;
	int64		gap;
	char	   *range_query;
	Oid			changes;
	Oid			late_rel;		/* InvalidOid: none */
	Oid			panes;			/* InvalidOid: none */
	char	   *pane_query;
	char	   *combine_query;
	char	   *merge_query;
	int64		delay;
	CvLate		late;
	bool		on_update;		/* emit => 'on_update' */
	int64		max_event;
	int64		explicit_watermark;
	int64		watermark;
	int64		open_from;
	int64		view_rows;
	bool		distributed;	/* a Citus view: its shards are views */
	bool		full;			/* this refresh is a full one */
	Oid			feed;			/* its changefeed; InvalidOid: none */
	int64		feed_seq;		/* the feed's last seq */
	int64		feed_purged;	/* the feed's rows up to here are gone */

	/* join views (cv_join_refresh.c); join is NULL for the others */
	const char *join;			/* "window", "interval" or "asof" */
	Oid			source2;
	char	   *time_column2;
	Oid			changes2;		/* InvalidOid: a self-join, one log */
	Oid			late2_rel;
	char	   *right_query;	/* NULL: no right-padded rows */
	bool		has_band_lo;
	int64		band_lo;
	int64		band_hi;
	int64		max_event2;
	int64		watermark1;
	int64		watermark2;
	bool		has_idle;
	int64		idle;
	bool		has_seen1;
	int64		seen1;
	bool		has_seen2;
	int64		seen2;
	int64		late_before;	/* band views: cv_fold's late test */
} CvView;

/* the counters of one refresh, kept in the catalog row */
typedef struct CvCounts
{
	int64		folded;
	int64		late;
	int64		emitted;
	int64		revised;
	int64		removed;
	int64		inserted;
	int64		panes;
} CvCounts;

/* a closed range of windows to revise */
typedef struct CvRange
{
	int64		lo;
	int64		hi;
} CvRange;

/* the times of one late change log entry of a band view */
typedef struct CvSpan
{
	int64		t;
	int64		t_max;
} CvSpan;

/* what step 1 found in the change log */
typedef struct CvFold
{
	bool		truncated;
	bool		has_batch_max;
	int64		batch_max;
	bool		has_change_min;
	int64		change_min;
	int64	   *late_bins;		/* sorted, distinct */
	int			nlate_bins;
	CvSpan	   *spans;			/* band views: the late changes' times */
	int			nspans;
	bool		any;			/* any change at all */
} CvFold;

/* cv_refresh.c */
extern int64 cv_add(int64 t, int64 delta);
extern int64 cv_bin(int64 t, int64 stride, int64 offset);
extern int64 cv_open_start(const char *kind, int64 wm, int64 size, int64 stride,
						   int64 offset);

/* cv_pipeline.c: cascaded views */
extern const char *const cv_stage_sql;
extern int64 cv_upstream_frontier(const CvView *v);
extern char *cv_relname(Oid rel);
extern char *cv_max_time_sql(Oid source, const char *time_column);
extern uint64 cv_exec(const CvView *v, const char *sql, int nargs,...);
extern bool cv_value(int col, int64 *value);
extern int	cv_cmp_int64(const void *a, const void *b);
extern int	cv_cmp_range(const void *a, const void *b);
extern void cv_fold(const CvView *v, int64 l_prev, CvCounts *counts, CvFold *f);
extern void cv_refresh_windows(const CvView *v, const CvFold *f, int64 old_wm,
							   int64 new_wm, CvCounts *c, TimestampTz *t2);

/* cv_join_refresh.c */
extern void cv_refresh_join(CvView *v, bool full, CvCounts *c, CvFold *f,
							int64 *new_wm, int64 *max_ev, TimestampTz *t1,
							TimestampTz *t2);

#endif							/* CV_REFRESH_H */
