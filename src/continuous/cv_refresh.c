/*-------------------------------------------------------------------------
 *
 * cv_refresh.c
 *	  windowjoin.refresh(): fold a continuous view's change log, advance
 *	  its watermark and write the windows that closed, in one transaction.
 *
 * The statements a refresh runs were derived in C when the view was
 * created and are kept in its catalog row (cv_analyze.c, cv_panes.c): the
 * range query (the view's query restricted to source rows in [$1, $2)),
 * and for views with partial states the pane, combine and merge queries.
 * This file decides which of them to run, over which time ranges, and
 * computes those ranges itself, in microseconds, with the window
 * arithmetic of the window functions (window_arith.c): the bounds always
 * agree with the windows the queries compute.
 *
 * Algorithm (docs/continuous.md, "How it works"):
 *
 *	1. Fold.  The change log is emptied (DELETE ... RETURNING, read through
 *	   a cursor); each entry (sign, t, t_max, n) adds to the rows folded,
 *	   the newest event time, and, when its rows fall where the view is
 *	   closed, to the late rows and the set of late bins.  A TRUNCATE
 *	   marker (sign 0), or full_refresh, resets the view.  With late =>
 *	   'log' the statement also copies the late rows to the late table.
 *	2. The watermark: max(event time seen) - delay, never decreasing, or
 *	   the explicit one if later.
 *	3. Tumble, hop and cumulate: a late bin recomputes its panes (views
 *	   with panes); with late => 'revise' the closed windows late bins
 *	   touched are recomputed island by island (overlapping ranges merged);
 *	   then the windows ending in (old, new watermark] are written, from
 *	   the source (range query) or from the panes completed since (combine
 *	   query), and panes no later window holds are purged.
 *	4. Sessions: with fragments and every change after the old watermark,
 *	   the rows up to the new watermark become fragments merged with the
 *	   kept ones (merge query), the sessions that ended are written and the
 *	   others kept.  Otherwise every session a change can touch, and every
 *	   open one, is recomputed from the source.
 *	5. The catalog row: watermark, counters and the steps' timings.
 *
 * The view's catalog row is locked first, so two refreshes of one view
 * never run at once, and everything happens in the caller's transaction:
 * a crash loses nothing and duplicates nothing.  The statements run as
 * the view's owner under SECURITY_RESTRICTED_OPERATION, as REFRESH
 * MATERIALIZED VIEW runs its query.
 *
 * Everything a refresh needs from SQL goes through SPI with the bounds as
 * parameters of the source's time type; no PL/pgSQL is involved, so a
 * refresh in a new backend (the scheduler starts one per round) pays for
 * parsing and planning its few statements and nothing else.
 *
 * src/continuous/cv_refresh.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <stdarg.h>

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "common/int.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "src/common/window_arith.h"
#include "src/continuous/cv_catalog.h"
#include "src/continuous/cv_feed.h"
#include "src/continuous/cv_refresh.h"

PG_FUNCTION_INFO_V1(wj_refresh);
PG_FUNCTION_INFO_V1(wj_cv_bin);
PG_FUNCTION_INFO_V1(wj_cv_open_start);

#define CV_MAX_ARGS 4

/* a microsecond, for the sessions' inclusive frontier */
#define CV_USEC INT64CONST(1)

/*
 * cv_add
 *		t + delta with SQL's rules for infinite timestamps (they stay), and
 *		an error when a finite result leaves the timestamp range.
 */
int64
cv_add(int64 t, int64 delta)
{
	if (TIMESTAMP_NOT_FINITE(t))
		return t;
	return wj_timestamp_add(t, delta);
}

/*
 * cv_bin
 *		The start of the stride-long bin holding t, bins aligned to the Unix
 *		epoch plus offset: the start of the window tumble(t, stride, offset)
 *		puts t in.  Infinite times are their own bin.
 */
int64
cv_bin(int64 t, int64 stride, int64 offset)
{
	if (TIMESTAMP_NOT_FINITE(t))
		return t;
	return wj_window_floor(t, stride, offset);
}

/*
 * wj_cv_bin
 *		windowjoin._bin(t, stride, offset): cv_bin for SQL, so that the
 *		statements refresh runs (late => 'log') bin as refresh does.
 */
Datum
wj_cv_bin(PG_FUNCTION_ARGS)
{
	int64		stride = wj_interval_duration(PG_GETARG_INTERVAL_P(1), "stride");
	int64		offset = wj_interval_offset(PG_GETARG_INTERVAL_P(2));

	PG_RETURN_TIMESTAMPTZ(cv_bin(PG_GETARG_TIMESTAMPTZ(0), stride, offset));
}

/*
 * cv_open_start
 *		The start of the first window of a tumble, hop or cumulate view
 *		(kind as the catalog spells it) not closed at watermark wm: the
 *		earliest window_start the view may still write.  A cumulate view's
 *		windows of one cycle all start with it.
 */
int64
cv_open_start(const char *kind, int64 wm, int64 size, int64 stride, int64 offset)
{
	if (TIMESTAMP_NOT_FINITE(wm))
		return wm;
	if (strcmp(kind, "hop") == 0)
		return cv_add(cv_bin(cv_add(wm, -size), stride, offset), stride);
	return cv_bin(wm, size, offset);	/* tumble; cumulate's cycle */
}

/*
 * wj_cv_open_start
 *		windowjoin._open_start(kind, watermark, size, stride, offset):
 *		cv_open_start for windowjoin.views' count of the rows a view still
 *		waits on (the caller passes the size as a tumble view's stride);
 *		NULL for a kind without windows.
 */
Datum
wj_cv_open_start(PG_FUNCTION_ARGS)
{
	char	   *kind = text_to_cstring(PG_GETARG_TEXT_PP(0));
	int64		size = wj_interval_duration(PG_GETARG_INTERVAL_P(2), "size");
	int64		stride = wj_interval_duration(PG_GETARG_INTERVAL_P(3), "stride");
	int64		offset = wj_interval_offset(PG_GETARG_INTERVAL_P(4));

	if (strcmp(kind, "tumble") != 0 && strcmp(kind, "hop") != 0 &&
		strcmp(kind, "cumulate") != 0)
		PG_RETURN_NULL();
	PG_RETURN_TIMESTAMPTZ(cv_open_start(kind, PG_GETARG_TIMESTAMPTZ(1), size,
										stride, offset));
}

/*
 * cv_relname
 *		A relation's schema-qualified, quoted name, for statement text.
 */
char *
cv_relname(Oid rel)
{
	char	   *name = get_rel_name(rel);

	if (name == NULL)
		elog(ERROR, "cache lookup failed for relation %u", rel);
	return quote_qualified_identifier(get_namespace_name(get_rel_namespace(rel)),
									  name);
}

/*
 * cv_max_time_sql
 *		The statement reading the latest finite event time of a source:
 *		infinite times belong to no window and never move a watermark.
 */
char *
cv_max_time_sql(Oid source, const char *time_column)
{
	const char *col = quote_identifier(time_column);

	return psprintf("SELECT max(%s) FROM %s WHERE %s > '-infinity' AND %s < 'infinity'",
					col, cv_relname(source), col, col);
}

/*
 * cv_exec
 *		Run one statement with nargs bounds ($1 .. $nargs, of the source's
 *		time type; the remaining arguments are int64 microseconds) and
 *		return its row count.  A query's rows are left in SPI_tuptable.
 */
uint64
cv_exec(const CvView *v, const char *sql, int nargs,...)
{
	Oid			types[CV_MAX_ARGS];
	Datum		values[CV_MAX_ARGS];
	va_list		ap;
	int			rc;

	Assert(nargs <= CV_MAX_ARGS);
	va_start(ap, nargs);
	for (int i = 0; i < nargs; i++)
	{
		int64		t = va_arg(ap, int64);

		/*
		 * An unbounded end of a range is the first or last finite time:
		 * rows with infinite times belong to no window (as NULL times do),
		 * so no statement of a refresh reads them.
		 */
		if (t == DT_NOBEGIN)
			t = MIN_TIMESTAMP;
		else if (t == DT_NOEND)
			t = END_TIMESTAMP;
		types[i] = v->tz ? TIMESTAMPTZOID : TIMESTAMPOID;
		values[i] = Int64GetDatum(t);
	}
	va_end(ap);

	rc = SPI_execute_with_args(sql, nargs, types, values, NULL, false, 0);
	if (rc < 0)
		elog(ERROR, "windowjoin refresh: SPI_execute_with_args failed (%d): %s",
			 rc, sql);
	return SPI_processed;
}

/*
 * cv_value
 *		Column col of the first row the last query returned, as int64 (a
 *		count or a time); false when it is NULL or there is no row.
 */
bool
cv_value(int col, int64 *value)
{
	bool		isnull;
	Datum		d;

	if (SPI_processed == 0)
		return false;
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, col, &isnull);
	if (isnull)
		return false;
	*value = DatumGetInt64(d);
	return true;
}

/* Column helpers for the catalog row: cv_catalog.c's (cv_datum_col, ...) */

/*
 * cv_col_derived
 *		A derived query as refresh runs it: the call of its function
 *		(cv_derived.c) when it has one, else its text; NULL when it has
 *		neither.
 */
static char *
cv_col_derived(HeapTuple tup, TupleDesc desc, const char *query, const char *fn)
{
	bool		isnull;
	Datum		d = cv_datum_col(tup, desc, fn, &isnull);

	if (!isnull)
		return cv_derived_call(DatumGetObjectId(d));
	return cv_text_col(tup, desc, query);
}

/* a bigint or timestamptz column, 0 when null */
static int64
cv_col_int64(HeapTuple tup, TupleDesc desc, const char *name)
{
	bool		isnull;
	Datum		d = cv_datum_col(tup, desc, name, &isnull);

	return isnull ? 0 : DatumGetInt64(d);
}

/*
 * cv_lock_view
 *		Read and lock the catalog row of a view (an error if there is none).
 *		The caller must have the privileges of the view's owner; the row is
 *		read as the catalog's owner (cv_catalog.c).
 */
static void
cv_lock_view(Oid view, CvView *v)
{
	Oid			argtypes[1] = {OIDOID};
	Datum		args[1];
	HeapTuple	tup;
	TupleDesc	desc;
	char	   *s;
	char	   *name;

	args[0] = ObjectIdGetDatum(view);
	cv_check_view_owner(view);
	/* (its name now: a concurrent drop may leave only its OID later) */
	name = DatumGetCString(DirectFunctionCall1(regclassout, ObjectIdGetDatum(view)));

	/*
	 * The view's table before its catalog row, in the order DROP TABLE and
	 * drop_view take them (the table, then the row in windowjoin._on_drop):
	 * taken the other way round, a refresh holding the row and a drop
	 * holding the table each waited for the other.
	 */
	LockRelationOid(view, RowExclusiveLock);
	if (cv_catalog_exec("SELECT * FROM windowjoin.view_catalog v "
						"WHERE v.view_rel::pg_catalog.oid OPERATOR(pg_catalog.=) $1 "
						"FOR UPDATE",
						1, argtypes, args, NULL) != SPI_OK_SELECT)
		elog(ERROR, "could not read windowjoin.view_catalog");
	if (SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a continuous view", name),
				 get_rel_name(view) == NULL ?
				 errdetail("It was dropped by a concurrent transaction.") : 0,
				 errhint("SELECT name FROM windowjoin.views lists the continuous views you own.")));
	tup = SPI_tuptable->vals[0];
	desc = SPI_tuptable->tupdesc;

	v->view = view;
	s = cv_text_col(tup, desc, "kind");
	v->kind = strcmp(s, "tumble") == 0 ? CV_TUMBLE :
		strcmp(s, "hop") == 0 ? CV_HOP :
		strcmp(s, "cumulate") == 0 ? CV_CUMULATE : CV_SESSION;
	v->source = cv_oid_col(tup, desc, "source_rel");
	v->time_column = SPI_getvalue(tup, desc, SPI_fnumber(desc, "time_column"));
	v->tz = cv_oid_col(tup, desc, "time_type") == TIMESTAMPTZOID;
	v->size = cv_usecs_col(tup, desc, "size");
	v->stride = cv_usecs_col(tup, desc, "stride");
	v->offset = cv_usecs_col(tup, desc, "offset");
	v->gap = cv_usecs_col(tup, desc, "gap");
	v->range_query = cv_col_derived(tup, desc, "range_query", "range_fn");
	v->changes = cv_oid_col(tup, desc, "changes_rel");
	v->late_rel = cv_oid_col(tup, desc, "late_rel");
	v->panes = cv_oid_col(tup, desc, "panes_rel");
	v->pane_query = cv_col_derived(tup, desc, "pane_query", "pane_fn");
	v->combine_query = cv_col_derived(tup, desc, "combine_query", "combine_fn");
	v->merge_query = cv_text_col(tup, desc, "merge_query");
	v->delay = cv_usecs_col(tup, desc, "delay");
	s = cv_text_col(tup, desc, "late");
	v->late = strcmp(s, "revise") == 0 ? CV_LATE_REVISE :
		strcmp(s, "drop") == 0 ? CV_LATE_DROP : CV_LATE_LOG;
	s = cv_text_col(tup, desc, "emit");
	v->on_update = strcmp(s, "on_update") == 0;
	v->max_event = cv_col_int64(tup, desc, "max_event");
	v->explicit_watermark = cv_col_int64(tup, desc, "explicit_watermark");
	v->watermark = cv_col_int64(tup, desc, "watermark");
	v->open_from = cv_col_int64(tup, desc, "open_from");
	v->view_rows = cv_col_int64(tup, desc, "view_rows");
	/* (a 0.4 catalog, before ALTER EXTENSION windowjoin UPDATE, has no feeds) */
	v->feed = InvalidOid;
	if (cv_catalog_has_feeds())
	{
		v->feed = cv_oid_col(tup, desc, "feed_rel");
		v->feed_seq = cv_col_int64(tup, desc, "feed_seq");
		v->feed_purged = cv_col_int64(tup, desc, "feed_purged");
	}

	{
		bool		isnull;
		Datum		d = cv_datum_col(tup, desc, "distributed", &isnull);

		v->distributed = !isnull && DatumGetBool(d);
	}

	/* join views */
	v->join = cv_text_col(tup, desc, "join_kind");
	if (v->join != NULL)
	{
		bool		isnull;

		if (strcmp(v->join, "window") != 0)
			v->kind = CV_BAND;
		v->source2 = cv_oid_col(tup, desc, "source2_rel");
		v->time_column2 = SPI_getvalue(tup, desc, SPI_fnumber(desc, "time_column2"));
		v->changes2 = cv_oid_col(tup, desc, "changes2_rel");
		v->late2_rel = cv_oid_col(tup, desc, "late2_rel");
		v->right_query = cv_col_derived(tup, desc, "right_query", "right_fn");
		(void) cv_datum_col(tup, desc, "band_lo", &isnull);
		v->has_band_lo = !isnull;
		v->band_lo = cv_usecs_col(tup, desc, "band_lo");
		v->band_hi = cv_usecs_col(tup, desc, "band_hi");
		v->max_event2 = cv_col_int64(tup, desc, "max_event2");
		v->watermark1 = cv_col_int64(tup, desc, "watermark1");
		v->watermark2 = cv_col_int64(tup, desc, "watermark2");
		(void) cv_datum_col(tup, desc, "idle", &isnull);
		v->has_idle = !isnull;
		v->idle = cv_usecs_col(tup, desc, "idle");
		(void) cv_datum_col(tup, desc, "seen1", &isnull);
		v->has_seen1 = !isnull;
		v->seen1 = cv_col_int64(tup, desc, "seen1");
		(void) cv_datum_col(tup, desc, "seen2", &isnull);
		v->has_seen2 = !isnull;
		v->seen2 = cv_col_int64(tup, desc, "seen2");
	}
}

/*
 * cv_first_window_closed
 *		Is the first window holding t (of a tumble, hop or cumulate view)
 *		closed at watermark wm, i.e. is a change at t late?
 */
static bool
cv_first_window_closed(const CvView *v, int64 t, int64 wm)
{
	switch (v->kind)
	{
		case CV_TUMBLE:
			return cv_add(cv_bin(t, v->size, v->offset), v->size) <= wm;
		case CV_HOP:
			return cv_add(cv_add(cv_bin(cv_add(t, -v->size), v->stride, v->offset),
								 v->size), v->stride) <= wm;
		case CV_CUMULATE:
			return cv_add(cv_bin(t, v->stride, v->offset), v->stride) <= wm;
		case CV_SESSION:
		case CV_BAND:
			break;
	}
	elog(ERROR, "unexpected continuous view kind %d", (int) v->kind);
	return false;
}

/*
 * cv_late_bin
 *		The bin a late change at t recomputes: the hop slide or the tumble /
 *		cumulate period holding it.
 */
static int64
cv_late_bin(const CvView *v, int64 t)
{
	if (v->kind == CV_HOP)
		return cv_bin(t, v->stride, v->offset);
	return cv_bin(t, v->size, v->offset);
}

/*
 * cv_late_cond_sql
 *		The late test of cv_first_window_closed (and, for sessions, t_max <
 *		$2) as SQL over a log row d, for the statement that copies late rows
 *		to the late table.  $1 is the old watermark, $2 the sessions' late
 *		frontier, $3 .. $5 the size, stride and offset.
 */
static char *
cv_late_cond_sql(const CvView *v)
{
	switch (v->kind)
	{
		case CV_TUMBLE:
			return "windowjoin._bin(d.t, $3, $5) + $3 <= $1";
		case CV_HOP:
			return "windowjoin._bin(d.t - $3, $4, $5) + $3 + $4 <= $1";
		case CV_CUMULATE:
			return "windowjoin._bin(d.t, $4, $5) + $4 <= $1";
		case CV_SESSION:
			return "d.t_max < $2";
		case CV_BAND:
			return "d.t < $1";
	}
	return NULL;
}

/*
 * cv_interval
 *		An interval of usecs microseconds, as a Datum.
 */
static Datum
cv_interval(int64 usecs)
{
	Interval   *i = palloc0(sizeof(Interval));

	i->time = usecs;
	return IntervalPGetDatum(i);
}

/* a late bin, for sorting and deduplication */
int
cv_cmp_int64(const void *a, const void *b)
{
	int64		x = *(const int64 *) a;
	int64		y = *(const int64 *) b;

	return (x > y) - (x < y);
}

/* ranges by start, then end */
int
cv_cmp_range(const void *a, const void *b)
{
	const CvRange *x = a;
	const CvRange *y = b;

	if (x->lo != y->lo)
		return (x->lo > y->lo) - (x->lo < y->lo);
	return (x->hi > y->hi) - (x->hi < y->hi);
}

/*
 * cv_fold
 *		Step 1: empty the change log and summarise it.  l_prev is the
 *		session views' late frontier (a change whose latest time is before
 *		it is late).
 */
void
cv_fold(const CvView *v, int64 l_prev, CvCounts *counts, CvFold *f)
{
	StringInfoData sql;
	Oid			types[6] = {TIMESTAMPTZOID, TIMESTAMPTZOID, INTERVALOID,
	INTERVALOID, INTERVALOID, BOOLOID};
	Datum		args[6];
	SPIPlanPtr	plan;
	Portal		portal;
	int			cap = 16;
	int			spancap = 16;

	memset(f, 0, sizeof(*f));
	f->late_bins = palloc(cap * sizeof(int64));
	f->spans = palloc(spancap * sizeof(CvSpan));

	/*
	 * The log's times as the catalog keeps them (a timestamp read in UTC:
	 * the same int64).  With late => 'log' the statement also copies the
	 * late rows, tested as cv_first_window_closed does, to the late table --
	 * unless the view resets ($6: a full refresh, or a TRUNCATE marker in
	 * the log), when nothing is late and the late rows count stays as is.
	 */
	initStringInfo(&sql);
	if (v->late == CV_LATE_LOG)
		appendStringInfo(&sql,
						 "WITH d AS (DELETE FROM %s RETURNING sign, %s AS t, %s AS t_max, n, r), "
						 "lg AS (INSERT INTO %s SELECT pg_catalog.clock_timestamp(), d.sign, (d.r).* "
						 "FROM d WHERE d.sign <> 0 AND NOT $6 "
						 "AND NOT EXISTS (SELECT FROM d d0 WHERE d0.sign = 0) AND %s) "
						 "SELECT d.sign, d.t, d.t_max, d.n FROM d",
						 cv_relname(v->changes),
						 v->tz ? "t" : "t AT TIME ZONE 'UTC'",
						 v->tz ? "t_max" : "t_max AT TIME ZONE 'UTC'",
						 cv_relname(v->late_rel), cv_late_cond_sql(v));
	else
		appendStringInfo(&sql, "DELETE FROM %s RETURNING sign, t, t_max, n",
						 cv_relname(v->changes));

	args[0] = TimestampTzGetDatum(v->kind == CV_BAND ? v->late_before : v->watermark);
	args[1] = TimestampTzGetDatum(l_prev);
	args[2] = cv_interval(v->size);
	args[3] = cv_interval(v->stride);
	args[4] = cv_interval(v->offset);
	args[5] = BoolGetDatum(v->full);
	plan = SPI_prepare(sql.data, 6, types);
	if (plan == NULL)
		elog(ERROR, "windowjoin refresh: SPI_prepare failed (%d): %s",
			 SPI_result, sql.data);
	portal = SPI_cursor_open(NULL, plan, args, NULL, false);
	for (;;)
	{
		SPI_cursor_fetch(portal, true, 1000);
		if (SPI_processed == 0)
			break;
		for (uint64 i = 0; i < SPI_processed; i++)
		{
			HeapTuple	tup = SPI_tuptable->vals[i];
			TupleDesc	desc = SPI_tuptable->tupdesc;
			bool		isnull;
			int16		sign = DatumGetInt16(SPI_getbinval(tup, desc, 1, &isnull));
			int64		t;
			int64		t_max;
			int32		n;
			bool		late;

			CHECK_FOR_INTERRUPTS();
			if (sign == 0)
			{
				f->truncated = true;
				continue;
			}
			t = DatumGetInt64(SPI_getbinval(tup, desc, 2, &isnull));
			t_max = DatumGetInt64(SPI_getbinval(tup, desc, 3, &isnull));
			n = DatumGetInt32(SPI_getbinval(tup, desc, 4, &isnull));

			counts->folded += n;
			if (sign > 0 && (!f->has_batch_max || t_max > f->batch_max))
			{
				f->batch_max = t_max;
				f->has_batch_max = true;
			}
			if (!f->has_change_min || t < f->change_min)
			{
				f->change_min = t;
				f->has_change_min = true;
			}
			f->any = true;
			if (v->kind == CV_SESSION)
				late = t_max < l_prev;
			else if (v->kind == CV_BAND)
				late = t < v->late_before;
			else
				late = cv_first_window_closed(v, t, v->watermark);
			if (!late)
				continue;
			counts->late += n;
			if (v->kind == CV_SESSION)
				continue;		/* sessions keep no late bins */
			if (v->kind == CV_BAND)
			{
				if (f->nspans == spancap)
				{
					spancap *= 2;
					f->spans = repalloc(f->spans, spancap * sizeof(CvSpan));
				}
				f->spans[f->nspans].t = t;
				f->spans[f->nspans++].t_max = t_max;
				continue;
			}
			if (f->nlate_bins == cap)
			{
				cap *= 2;
				f->late_bins = repalloc(f->late_bins, cap * sizeof(int64));
			}
			f->late_bins[f->nlate_bins++] = cv_late_bin(v, t);
		}
		SPI_freetuptable(SPI_tuptable);
	}
	SPI_cursor_close(portal);
	SPI_freeplan(plan);

	/* sorted and distinct, as array_agg(DISTINCT) gave them */
	if (f->nlate_bins > 1)
	{
		int			k = 1;

		qsort(f->late_bins, f->nlate_bins, sizeof(int64), cv_cmp_int64);
		for (int i = 1; i < f->nlate_bins; i++)
			if (f->late_bins[i] != f->late_bins[k - 1])
				f->late_bins[k++] = f->late_bins[i];
		f->nlate_bins = k;
	}
}

/*
 * cv_panes_from
 *		The first pane a window not yet emitted at watermark-aligned pane
 *		boundary panes_done can hold.
 */
static int64
cv_panes_from(const CvView *v, int64 panes_done)
{
	if (v->kind == CV_HOP)
		return cv_add(cv_add(panes_done, v->stride), -v->size);
	return cv_bin(panes_done, v->size, v->offset);
}

/*
 * cv_recompute_late_panes
 *		Step 2a: whatever the late policy, a late change recomputes the
 *		panes of its bin from the source, as later windows still hold its
 *		rows.
 */
static void
cv_recompute_late_panes(const CvView *v, const CvFold *f, const char *panes,
						int64 old_wm, CvCounts *c)
{
	int64		panes_done = cv_bin(old_wm, v->stride, v->offset);
	int64		panes_from = cv_panes_from(v, panes_done);
	char	   *del = psprintf("DELETE FROM %s WHERE pane_start >= $1 AND pane_start < $2",
							   panes);
	char	   *ins = psprintf("INSERT INTO %s %s", panes, v->pane_query);

	for (int i = 0; i < f->nlate_bins; i++)
	{
		int64		lo = Max(f->late_bins[i], panes_from);
		int64		hi = Min(cv_add(f->late_bins[i],
									v->kind == CV_HOP ? v->stride : v->size),
							 panes_done);

		if (lo >= hi)
			continue;
		cv_exec(v, del, 2, lo, hi);
		c->panes += cv_exec(v, ins, 2, lo, hi);
	}
}

/*
 * cv_revise_windows
 *		Step 2b: recompute the closed windows late changes touched, island
 *		by island (the windows of overlapping late bins merged).
 */
static void
cv_revise_windows(const CvView *v, const CvFold *f, const char *view,
				  int64 old_wm, CvCounts *c)
{
	const char *finalcol = v->on_update ? ", true" : "";
	CvRange    *r = palloc(f->nlate_bins * sizeof(CvRange));
	char	   *del = psprintf("DELETE FROM %s WHERE window_end > $3 AND window_end <= $4 "
							   "AND window_start >= $3%s", view,
							   v->on_update ? " AND final" : "");
	char	   *ins = psprintf("INSERT INTO %s SELECT q.*%s FROM (%s OFFSET 0) q "
							   "WHERE q.window_start >= $3 AND q.window_end <= $4",
							   view, finalcol, v->range_query);
	int			i = 0;

	for (int k = 0; k < f->nlate_bins; k++)
	{
		int64		b = f->late_bins[k];

		r[k].lo = v->kind == CV_HOP ?
			cv_add(cv_bin(cv_add(b, -v->size), v->stride, v->offset), v->stride) : b;
		r[k].hi = cv_add(b, v->size);
	}
	qsort(r, f->nlate_bins, sizeof(CvRange), cv_cmp_range);
	while (i < f->nlate_bins)
	{
		int64		lo = r[i].lo;
		int64		hi = r[i].hi;
		int64		upto;
		uint64		n;

		/* an island: every range starting at or before the end so far */
		for (i++; i < f->nlate_bins && r[i].lo <= hi; i++)
			hi = Max(hi, r[i].hi);
		upto = Min(hi, old_wm);
		c->removed += cv_exec(v, del, 4, lo, hi, lo, upto);
		n = cv_exec(v, ins, 4, lo, hi, lo, upto);
		c->revised += n;
		c->inserted += n;
	}
}

/*
 * cv_emit_from_source
 *		Step 3 without panes (or at the first refresh of a view with them):
 *		the windows ending in (old watermark, e] from the source rows from
 *		the start of the first of them.
 */
static void
cv_emit_from_source(const CvView *v, const char *view, int64 old_wm, int64 e,
					CvCounts *c)
{
	int64		lo;
	uint64		n;

	if (v->kind == CV_HOP)
		lo = cv_add(cv_bin(cv_add(old_wm, -v->size), v->stride, v->offset), v->stride);
	else if (v->kind == CV_CUMULATE)
		lo = cv_bin(cv_bin(old_wm, v->stride, v->offset), v->size, v->offset);
	else
		lo = cv_bin(old_wm, v->size, v->offset);

	/*
	 * A tumbling window of a row in [lo, e) ends in (old watermark, e]: the
	 * range query alone.  Hop and cumulate rows there belong to windows
	 * ending outside too, kept out by a filter above the aggregation (OFFSET
	 * 0: in the scan, the bounds on window_end would make the planner
	 * expect 200 times fewer rows than the range holds, and sort them).
	 */
	if (v->kind == CV_TUMBLE && !v->on_update)
		n = cv_exec(v, psprintf("INSERT INTO %s %s", view, v->range_query), 2, lo, e);
	else
		n = cv_exec(v, psprintf("INSERT INTO %s SELECT q.*%s FROM (%s OFFSET 0) q "
								"WHERE q.window_end > $3 AND q.window_end <= $4",
								view, v->on_update ? ", true" : "", v->range_query),
					4, lo, e, old_wm, e);
	c->emitted = n;
	c->inserted += n;
}

/*
 * cv_emit_from_panes
 *		Step 3 with panes: the panes completed since the old watermark, then
 *		the windows ending in (old watermark, new watermark] from their
 *		panes; panes no window to come holds are purged.
 */
static void
cv_emit_from_panes(const CvView *v, const char *view, const char *panes,
				   int64 old_wm, int64 new_wm, CvCounts *c)
{
	int64		panes_done = cv_bin(new_wm, v->stride, v->offset);
	int64		panes_from = cv_panes_from(v, panes_done);
	int64		lo;

	if (!TIMESTAMP_NOT_FINITE(old_wm))
		lo = cv_bin(old_wm, v->stride, v->offset);
	else
	{
		cv_exec(v, psprintf("DELETE FROM %s", panes), 0);
		lo = panes_from;
	}
	if (panes_done > lo)
		c->panes += cv_exec(v, psprintf("INSERT INTO %s %s", panes, v->pane_query),
							2, lo, panes_done);
	if (!TIMESTAMP_NOT_FINITE(old_wm) && panes_done > old_wm)
	{
		uint64		n;

		n = cv_exec(v, psprintf("INSERT INTO %s SELECT q.*%s FROM (%s) q "
								"WHERE q.window_end > $3 AND q.window_end <= $4",
								view, v->on_update ? ", true" : "", v->combine_query),
					4, cv_add(old_wm, -v->size), panes_done, old_wm, new_wm);
		c->emitted = n;
		c->inserted += n;
	}
	cv_exec(v, psprintf("DELETE FROM %s WHERE pane_start < $1", panes), 1, panes_from);
}

/*
 * cv_refresh_windows
 *		Steps 2 and 3 for tumble, hop and cumulate views: late panes,
 *		revisions, the windows that closed, the panes to purge.
 */
void
cv_refresh_windows(const CvView *v, const CvFold *f, int64 old_wm, int64 new_wm,
				   CvCounts *c, TimestampTz *t2)
{
	const char *view = cv_relname(v->view);
	const char *panes = OidIsValid(v->panes) ? cv_relname(v->panes) : NULL;
	int64		e;

	if (panes != NULL && f->nlate_bins > 0 && !TIMESTAMP_NOT_FINITE(old_wm))
		cv_recompute_late_panes(v, f, panes, old_wm, c);
	if (v->late == CV_LATE_REVISE && f->nlate_bins > 0)
		cv_revise_windows(v, f, view, old_wm, c);
	*t2 = GetCurrentTimestamp();

	/* 3. the windows that closed */
	if (v->on_update)
		c->removed += cv_exec(v, psprintf("DELETE FROM %s WHERE NOT final", view), 0);

	/* e: the last window end at or before the new watermark */
	if (v->kind == CV_HOP)
		e = cv_add(cv_bin(cv_add(new_wm, -v->size), v->stride, v->offset), v->size);
	else if (v->kind == CV_CUMULATE)
		e = cv_bin(new_wm, v->stride, v->offset);
	else
		e = cv_bin(new_wm, v->size, v->offset);

	if (new_wm > old_wm && e > old_wm &&
		(panes == NULL || TIMESTAMP_NOT_FINITE(old_wm)))
		cv_emit_from_source(v, view, old_wm, e, c);
	if (panes != NULL && new_wm > old_wm && !TIMESTAMP_NOT_FINITE(new_wm))
		cv_emit_from_panes(v, view, panes, old_wm, new_wm, c);

	/* emit => 'on_update': the open windows, not final */
	if (v->on_update)
		c->inserted += cv_exec(v, psprintf("INSERT INTO %s SELECT q.*, false FROM (%s) q "
										   "WHERE q.window_end > $3", view, v->range_query),
							   3, cv_add(new_wm, -v->size), DT_NOEND, new_wm);
}

/*
 * cv_active_fragments
 *		The fragments a session view's merge must read: those of the
 *		partitions that have a new one (a fragment of rows after the old
 *		watermark $1, which starts after it); the others' open sessions are
 *		already merged and stay as they are.  Merging every partition at
 *		every refresh rewrote the whole fragment table, one row per open
 *		session (tens of thousands for Nexmark's bidders), several times a
 *		second.  The partition keys are the pane table's columns before
 *		pane_start (cv_pane_column_names); PARTITION BY groups them as the
 *		merge does, NULLs together.
 */
static char *
cv_active_fragments(const CvView *v, const char *panes)
{
	AttrNumber	start = get_attnum(v->panes, "pane_start");
	StringInfoData part;

	if (start == InvalidAttrNumber)
		elog(ERROR, "session fragments of view %u have no pane_start", v->view);
	initStringInfo(&part);
	for (AttrNumber a = 1; a < start; a++)
		appendStringInfo(&part, "%sp.%s", a == 1 ? "PARTITION BY " : ", ",
						 quote_identifier(get_attname(v->panes, a, false)));
	return psprintf("SELECT s.ctid FROM (SELECT p.ctid, pg_catalog.bool_or(p.pane_start > $1) "
					"OVER (%s) AS wj_active FROM %s p) s WHERE s.wj_active",
					part.data, panes);
}

/*
 * cv_refresh_sessions
 *		Steps 2 and 3 for session views; returns the new open_from, the
 *		start of the earliest session still open.  *fast is set when the
 *		fragments served.
 */
static int64
cv_refresh_sessions(const CvView *v, const CvFold *f, int64 old_wm, int64 new_wm,
					int64 l_prev, bool reset, CvCounts *c, TimestampTz *t2,
					bool *fast)
{
	const char *view = cv_relname(v->view);
	const char *panes = OidIsValid(v->panes) ? cv_relname(v->panes) : NULL;
	int64		open_from = v->open_from;
	int64		l;

	/*
	 * With fragments, when every change lies after the old watermark: the
	 * fragment table holds the open sessions of the rows up to the old
	 * watermark, one row each.  The rows in (old, new watermark] become
	 * fragments, merged with those per partition; the sessions ending by
	 * the new watermark are written and the others kept.  The frontier is
	 * inclusive (+1 microsecond): a row at the watermark is folded now.
	 */
	*fast = panes != NULL && !TIMESTAMP_NOT_FINITE(old_wm) && !reset &&
		(!f->has_change_min || f->change_min > old_wm);
	if (*fast)
	{
		*t2 = GetCurrentTimestamp();
		if (new_wm > old_wm)
		{
			int64		v_min;

			c->panes = cv_exec(v, psprintf("INSERT INTO %s %s", panes, v->pane_query),
							   2, cv_add(old_wm, CV_USEC), cv_add(new_wm, CV_USEC));
			if (c->panes > 0)
				cv_exec(v, psprintf("WITH wj_fragments AS (DELETE FROM %s p WHERE p.ctid = ANY "
									"(ARRAY(%s)) RETURNING p.*) INSERT INTO %s %s",
									panes, cv_active_fragments(v, panes), panes,
									v->merge_query), 1, old_wm);
			c->emitted = cv_exec(v, psprintf("INSERT INTO %s SELECT q.* FROM (%s) q "
											 "WHERE q.window_end <= $1",
											 view, v->combine_query), 1, new_wm);
			c->inserted = c->emitted;
			cv_exec(v, psprintf("DELETE FROM %s WHERE pane_end <= $1", panes), 1, new_wm);
			cv_exec(v, psprintf("SELECT min(pane_start) FROM %s", panes), 0);
			open_from = cv_value(1, &v_min) ? v_min : DT_NOEND;
		}
		return open_from;
	}

	/*
	 * Otherwise: recompute everything from l onwards.  A session with its
	 * first row at or after l + gap is computed exactly from the rows at or
	 * after l.  Every session still open or newly closed starts there, and
	 * l is moved back to the start of the earliest session a change can
	 * touch: one ending at or after the change's time.
	 */
	l = l_prev;
	if (f->has_change_min)
	{
		int64		first = f->change_min;
		int64		start;

		cv_exec(v, psprintf("SELECT min(window_start) FROM %s WHERE window_end >= $1%s",
							view, v->on_update ? " AND final" : ""), 1, f->change_min);
		if (cv_value(1, &start) && start < first)
			first = start;
		l = Min(l, cv_add(first, -v->gap));
	}
	*t2 = GetCurrentTimestamp();
	if (c->folded > 0 || new_wm > old_wm || reset)
	{
		int64		n = 0;
		int64		v_min;

		c->removed += cv_exec(v, psprintf("DELETE FROM %s WHERE window_start >= $1", view),
							  1, cv_add(l, v->gap));
		cv_exec(v, psprintf("WITH s AS MATERIALIZED (SELECT q.* FROM (%s) q WHERE q.window_start >= $3), "
							"ins AS (INSERT INTO %s SELECT s.*%s FROM s WHERE s.window_end <= $4 "
							"RETURNING window_start)%s "
							"SELECT (SELECT count(*) FROM ins), "
							"(SELECT min(window_start) FROM s WHERE window_end > $4)",
							v->range_query, view, v->on_update ? ", true" : "",
							v->on_update ?
							psprintf(", op AS (INSERT INTO %s SELECT s.*, false FROM s "
									 "WHERE s.window_end > $4)", view) : ""),
				4, l, DT_NOEND, cv_add(l, v->gap), new_wm);
		(void) cv_value(1, &n);
		open_from = cv_value(2, &v_min) ? v_min : DT_NOEND;
		c->inserted = n;
		if (l < l_prev)
			c->revised = n;
		else
			c->emitted = n;
		if (v->on_update)
		{
			cv_exec(v, psprintf("SELECT count(*) FROM %s WHERE NOT final", view), 0);
			if (cv_value(1, &n))
				c->inserted += n;
		}
		/*
		 * the fragments again: the open sessions of the rows up to the new
		 * watermark, all starting at or after open_from
		 */
		if (panes != NULL)
		{
			cv_exec(v, psprintf("DELETE FROM %s", panes), 0);
			if (!TIMESTAMP_NOT_FINITE(new_wm) && !TIMESTAMP_NOT_FINITE(open_from))
				c->panes = cv_exec(v, psprintf("INSERT INTO %s SELECT f.* FROM (%s) f "
											   "WHERE f.pane_end > $3", panes, v->pane_query),
								   3, cv_add(open_from, -v->gap), cv_add(new_wm, CV_USEC),
								   new_wm);
		}
	}
	return open_from;
}

/* milliseconds between two timestamps */
static double
cv_ms(TimestampTz from, TimestampTz to)
{
	return (double) (to - from) / 1000.0;
}

/*
 * cv_show
 *		A time as the source's type shows it.
 */
static char *
cv_show(const CvView *v, int64 t)
{
	return DatumGetCString(DirectFunctionCall1(v->tz ? timestamptz_out : timestamp_out,
											   Int64GetDatum(t)));
}

/*
 * cv_refresh_shards
 *		A Citus view: refresh each of its shards where it lives (each is a
 *		continuous view of its sources' shards, created by the first
 *		refresh), then count the refresh (windowjoin._refresh_distributed).
 */
static void
cv_refresh_shards(const CvView *v, bool full)
{
	Oid			types[2] = {REGCLASSOID, BOOLOID};
	Datum		args[2];

	args[0] = ObjectIdGetDatum(v->view);
	args[1] = BoolGetDatum(full);
	if (SPI_execute_with_args("SELECT windowjoin._refresh_distributed($1, $2)",
							  2, types, args, NULL, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not refresh the shards of a continuous view");
}

/* what steps 1 to 4 of a refresh found and did */
typedef struct CvOutcome
{
	int64		new_wm;
	int64		max_ev;
	int64		open_from;
	const char *path;			/* "source", "panes" or "fragments" */
	bool		truncated;
	TimestampTz t1;				/* the log folded */
	TimestampTz t2;				/* revisions done */
} CvOutcome;

/*
 * cv_refresh_steps
 *		Steps 1 to 4 of a refresh of the locked view v, as its owner.
 */
static void
cv_refresh_steps(CvView *v, bool full, CvCounts *c, CvOutcome *o)
{
	CvFold		f;
	int64		old_wm;
	int64		l_prev;
	bool		reset;
	bool		fast = false;
	int			gucs;

	/*
	 * The statements below read whole time ranges of the source.  With a
	 * btree on the time column the planner prefers a plain index scan over
	 * a bitmap scan when the table is nearly in time order, as a stream's
	 * table is; but rows that arrived a little out of order then send the
	 * scan back and forth between heap pages, and a closing refresh of the
	 * bench's one-minute windows read its 6,000 rows in 1.4 ms instead of
	 * 0.7 ms through a bitmap (which reads each page once).  So plain index
	 * scans are off until the catalog row is written -- except for an as-of
	 * view, whose version lookups are plain index scans of (key, time), one
	 * per probe row (without them the planner sorts every version).  (A
	 * join view folds its logs and computes its watermarks in
	 * cv_refresh_join.)
	 */
	gucs = NewGUCNestLevel();
	if (v->join == NULL || strcmp(v->join, "asof") != 0)
		(void) set_config_option("enable_indexscan", "off", PGC_USERSET, PGC_S_SESSION,
								 GUC_ACTION_SAVE, true, 0, false);

	/*
	 * And no JIT.  A refresh's statements are planned afresh each time (a
	 * scheduler round is a new process) and most read a few thousand rows,
	 * but a range read through a bitmap scan is costed past
	 * jit_above_cost: Nexmark q11's fragment query spent 35 of its 100 ms
	 * compiling expressions it then ran for 40,000 rows.
	 */
	(void) set_config_option("jit", "off", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);

	if (v->join != NULL)
	{
		cv_refresh_join(v, full, c, &f, &o->new_wm, &o->max_ev, &o->t1, &o->t2);
		o->open_from = v->open_from;
		o->path = "source";
		o->truncated = f.truncated;
		AtEOXact_GUC(true, gucs);
		return;
	}

	/*
	 * A session change is late when it lies before what the next recompute
	 * reads: (least(open_from, watermark - gap) - gap).
	 */
	old_wm = v->watermark;
	l_prev = cv_add(Min(v->open_from, cv_add(old_wm, -v->gap)), -v->gap);

	/* 1. fold the change log */
	cv_fold(v, l_prev, c, &f);
	o->t1 = GetCurrentTimestamp();
	o->truncated = f.truncated;

	reset = f.truncated || full;
	if (reset)
	{
		int64		m;

		c->removed = 0;
		cv_exec(v, psprintf("DELETE FROM %s", cv_relname(v->view)), 0);
		v->view_rows = 0;
		old_wm = DT_NOBEGIN;
		l_prev = DT_NOBEGIN;
		v->open_from = DT_NOBEGIN;
		if (f.truncated)
			v->explicit_watermark = DT_NOBEGIN;
		cv_exec(v, cv_max_time_sql(v->source, v->time_column), 0);
		o->max_ev = cv_value(1, &m) ? m : DT_NOBEGIN;
		c->late = 0;
		f.nlate_bins = 0;
		f.has_change_min = false;
	}
	else
		o->max_ev = f.has_batch_max ? Max(v->max_event, f.batch_max) : v->max_event;

	/*
	 * 2. the watermark; a pipeline stage's is at least its upstream view's
	 * frontier (cv_pipeline.c)
	 */
	o->new_wm = Max(Max(old_wm, cv_add(o->max_ev, -v->delay)), v->explicit_watermark);
	o->new_wm = Max(o->new_wm, cv_add(cv_upstream_frontier(v), -v->delay));

	if (v->kind != CV_SESSION)
	{
		cv_refresh_windows(v, &f, old_wm, o->new_wm, c, &o->t2);
		o->open_from = v->open_from;
		o->path = OidIsValid(v->panes) && !TIMESTAMP_NOT_FINITE(old_wm) ? "panes" : "source";
	}
	else
	{
		o->open_from = cv_refresh_sessions(v, &f, old_wm, o->new_wm, l_prev, reset,
										   c, &o->t2, &fast);
		o->path = fast ? "fragments" : "source";
	}
	AtEOXact_GUC(true, gucs);
}

/*
 * cv_write_catalog_row
 *		Step 5: the view's catalog row -- watermark, counters, the steps'
 *		timings, and its feed's last and purged seq.
 */
static void
cv_write_catalog_row(const CvView *v, const CvCounts *c, const CvOutcome *o,
					 TimestampTz t0, int64 feed_seq, int64 feed_purged)
{
	Oid			types[19] = {OIDOID, TIMESTAMPTZOID, TIMESTAMPTZOID,
		TIMESTAMPTZOID, TIMESTAMPTZOID, INT8OID, INT8OID, INT8OID, INT8OID,
		INT8OID, INT8OID, INT8OID, TEXTOID, INT8OID, FLOAT8OID, FLOAT8OID,
	FLOAT8OID, INT8OID, INT8OID};
	Datum		vals[19];
	TimestampTz now = GetCurrentTimestamp();

	vals[0] = ObjectIdGetDatum(v->view);
	vals[1] = TimestampTzGetDatum(o->new_wm);
	vals[2] = TimestampTzGetDatum(o->max_ev);
	vals[3] = TimestampTzGetDatum(v->explicit_watermark);
	vals[4] = TimestampTzGetDatum(o->open_from);
	vals[5] = Int64GetDatum(v->view_rows + c->inserted - c->removed);
	vals[6] = Int64GetDatum(c->late);
	vals[7] = Int64GetDatum(c->revised);
	vals[8] = Int64GetDatum(c->folded);
	vals[9] = Int64GetDatum(c->emitted);
	vals[10] = Int64GetDatum(c->panes);
	vals[11] = Int64GetDatum(c->removed);
	vals[12] = CStringGetTextDatum(o->path);
	vals[13] = Int64GetDatum(o->truncated ? 1 : 0);
	vals[14] = Float8GetDatum(cv_ms(t0, o->t1));
	vals[15] = Float8GetDatum(cv_ms(o->t1, o->t2));
	vals[16] = Float8GetDatum(cv_ms(o->t2, now));
	vals[17] = Int64GetDatum(feed_seq);
	vals[18] = Int64GetDatum(feed_purged);
	if (cv_catalog_exec(psprintf(
								 "UPDATE windowjoin.view_catalog v "
								 "SET watermark = $2, max_event = $3, explicit_watermark = $4, "
								 "open_from = $5, view_rows = $6, late_rows = v.late_rows + $7, "
								 "revisions = v.revisions + $8, refreshes = v.refreshes + 1, "
								 "last_refresh = pg_catalog.clock_timestamp(), "
								 "last_refresh_ms = pg_catalog.round(($15 OPERATOR(pg_catalog.+) $16 "
								 "OPERATOR(pg_catalog.+) $17)::pg_catalog.numeric, 3)::pg_catalog.float8, "
								 "last_stats = pg_catalog.jsonb_build_object("
								 "'changes_folded', $9, 'late_rows', $7, "
								 "'windows_emitted', $10, 'windows_revised', $8, "
								 "'panes_computed', $11, 'path', $13, 'rows_removed', $12, "
								 "'fold_ms', round($15::numeric, 3), "
								 "'revise_ms', round($16::numeric, 3), "
								 "'emit_ms', round($17::numeric, 3), "
								 "'truncated', $14 = 1), "
								 "failures = 0, next_attempt = NULL%s "
								 "WHERE v.view_rel::pg_catalog.oid OPERATOR(pg_catalog.=) $1",
								 OidIsValid(v->feed) ? ", feed_seq = $18, feed_purged = $19" : ""),
						OidIsValid(v->feed) ? 19 : 17, types, vals, NULL) != SPI_OK_UPDATE)
		elog(ERROR, "could not update windowjoin.view_catalog");
}

/*
 * wj_refresh
 *		windowjoin.refresh(view regclass, full_refresh boolean, verbose
 *		boolean).
 */
Datum
wj_refresh(PG_FUNCTION_ARGS)
{
	Oid			view;
	bool		full = PG_ARGISNULL(1) ? false : PG_GETARG_BOOL(1);
	bool		verbose = PG_ARGISNULL(2) ? false : PG_GETARG_BOOL(2);
	TimestampTz t0 = GetCurrentTimestamp();
	CvView		v;
	CvCounts	c;
	CvOutcome	o;
	Oid			owner;
	Oid			save_userid;
	int			save_sec_context;
	int64		feed_seq = 0;
	int64		feed_purged = 0;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the continuous view to refresh must not be null")));
	view = PG_GETARG_OID(0);
	memset(&c, 0, sizeof(c));
	memset(&o, 0, sizeof(o));

	SPI_connect();
	cv_lock_view(view, &v);
	v.full = full;
	if (v.distributed)
	{
		cv_refresh_shards(&v, full);
		SPI_finish();
		PG_RETURN_VOID();
	}

	/*
	 * refresh runs as the view's owner, as REFRESH MATERIALIZED VIEW does:
	 * the owner of its table now (pg_class), whoever created it
	 */
	owner = cv_rel_owner(view);
	GetUserIdAndSecContext(&save_userid, &save_sec_context);
	SetUserIdAndSecContext(owner, save_sec_context | SECURITY_LOCAL_USERID_CHANGE |
						   SECURITY_RESTRICTED_OPERATION);

	/*
	 * The feed triggers number this refresh's changes from the catalog
	 * row's feed_seq, which the row lock keeps ours until commit
	 * (cv_feed.c); whatever happens, the counter is this refresh's only.
	 */
	if (OidIsValid(v.feed))
		cv_feed_refresh_begin(view, v.feed, v.feed_seq);
	PG_TRY();
	{
		cv_refresh_steps(&v, full, &c, &o);
	}
	PG_FINALLY();
	{
		feed_seq = cv_feed_refresh_seq();
		cv_feed_refresh_reset();
	}
	PG_END_TRY();
	if (OidIsValid(v.feed))
	{
		feed_purged = cv_feed_purge(view, v.feed, feed_seq, v.feed_purged);
		if (feed_seq > v.feed_seq)
			cv_feed_mark(view, feed_seq);
	}

	/* 5. the catalog row */
	cv_write_catalog_row(&v, &c, &o, t0, feed_seq, feed_purged);

	SetUserIdAndSecContext(save_userid, save_sec_context);
	if (OidIsValid(v.feed) && feed_seq > v.feed_seq)
		cv_feed_notify(view, feed_seq);

	if (verbose)
		ereport(NOTICE,
				(errmsg("refreshed %s: " INT64_FORMAT " changes folded, " INT64_FORMAT
						" late, " INT64_FORMAT " windows emitted, " INT64_FORMAT
						" revised, watermark %s",
						DatumGetCString(DirectFunctionCall1(regclassout, ObjectIdGetDatum(view))),
						c.folded, c.late, c.emitted, c.revised, cv_show(&v, o.new_wm))));
	SPI_finish();
	PG_RETURN_VOID();
}
