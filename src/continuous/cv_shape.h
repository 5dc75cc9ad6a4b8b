/*-------------------------------------------------------------------------
 *
 * cv_shape.h
 *	  What the analysis of a continuous view's query found (cv_analyze.c),
 *	  and the pane decomposition derived from it (cv_panes.c).
 *
 * src/continuous/cv_shape.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CV_SHAPE_H
#define CV_SHAPE_H

#include "postgres.h"

#include "nodes/parsenodes.h"
#include "nodes/primnodes.h"

/* what the analysis found */
typedef struct CvShape
{
	const char *kind;			/* "tumble", "hop", "cumulate", "session" */
	Oid			source;			/* the source table */
	AttrNumber	timeattno;		/* its time column */
	Oid			timetype;		/* TIMESTAMPOID or TIMESTAMPTZOID */
	Datum		size;			/* interval: window size (tumble/hop/cumulate) */
	Datum		stride;			/* interval: hop's slide, cumulate's step */
	Datum		offset;			/* interval: window offset */
	Datum		gap;			/* interval: session gap */
	bool		has_stride;
	bool		has_gap;
	Index		srcidx;			/* the range table index of the source (TVF
								 * shape) or of the session subquery */
	Index		fnidx;			/* TVF shape: the window function's */
	List	   *partattnos;		/* session shape: the subquery's columns
								 * holding the PARTITION BY expressions */
	Query	   *ranged;			/* the query, with its range quals added */
	bool		topn;			/* a window Top-N or deduplication
								 * (cv_topn.c): rows ranked within windows */

	/*
	 * Join views (cv_join_analyze.c).  A window join view keeps kind as its
	 * windows' and has its range quals in both windowed sources.  An
	 * interval or as-of view ("band" views) relates the right source's time
	 * r to the left's l by lo <= r - l <= hi; ranged then holds the left
	 * rows of [$1, $2) with their matches (right rows in [$3, $4)) and
	 * their anchor column, and ranged_right, for RIGHT and FULL interval
	 * joins, the right rows of [$1, $2) without a match in [$3, $4).
	 */
	const char *join;			/* NULL, "window", "interval" or "asof" */
	const char *jointype;		/* "inner", "left", "right", "full", "semi",
								 * "anti" */
	Oid			source2;		/* the right source table */
	AttrNumber	timeattno2;		/* its time column */
	bool		has_band_lo;	/* false: lo is minus infinity (as-of) */
	int64		band_lo;		/* microseconds */
	int64		band_hi;
	Query	   *ranged_right;
} CvShape;

/* the column a band view keeps each row's anchor time in */
#define CV_ANCHOR_COLUMN "anchor_time"
/* ... and, with a right part, whether the row is a right row's */
#define CV_ANCHOR_RIGHT_COLUMN "anchor_right"

/* cv_analyze.c: checks and parts of the single-source analysis */
extern void cv_unsupported(const char *construct, const char *hint);
extern void cv_check_select(Query *q);
extern void cv_check_plain_query(Query *q);
extern Oid	cv_check_source(RangeTblEntry *rte);
extern const char *cv_is_tvf(Oid funcid);
extern Var *cv_tvf_params(Query *q, Index srcidx, Index fnidx, CvShape *shape);
extern TargetEntry *cv_require_window_column(Query *q, const char *name);
extern void cv_analyze_tvf(Query *q, CvShape *shape, bool grouped);
extern void cv_analyze_session(Query *q, CvShape *shape, bool grouped);
extern RangeTblEntry *cv_only_subquery_rte(Query *q);
extern bool cv_window_funcs_walker(Node *node, List **found);

/* cv_topn.c */
extern bool cv_is_topn_query(Query *q);
extern void cv_analyze_topn(Query *q, CvShape *shape);

/* cv_join_analyze.c */
extern bool cv_is_join_query(Query *q);
extern void cv_analyze_join(Query *q, CvShape *shape);

/* cv_query.c */
extern Node *cv_make_range_quals(Var *var, int loparam, int hiparam);
extern void cv_add_quals(Query *q, Node *quals);
extern bool cv_is_group_rte(RangeTblEntry *rte);
extern Node *cv_ungroup(Query *q, Node *expr);
extern TargetEntry *cv_output_column(Query *q, const char *name);
extern char *cv_deparse(Query *q);

/*
 * The pane columns of a hop or cumulate view whose aggregates all combine
 * exactly, as a column list for CREATE TABLE; NULL if the view is
 * maintained without panes (cv_panes.c).
 */
extern char *cv_pane_columns(Query *q, CvShape *shape);

/*
 * The pane query (the partial aggregates of the panes, or of the session
 * fragments, of the source rows with $1 <= t < $2), the combine query (the
 * view's rows of the windows made of the panes in "panes" starting in
 * [$1, $2), or of the sessions in "panes") and, for a session view, the
 * merge query (the fragments in wj_fragments merged into sessions).
 */
extern void cv_pane_queries(Query *q, CvShape *shape, Oid panes,
							Query **pane_query, Query **combine_query,
							char **merge_query);

#endif							/* CV_SHAPE_H */
