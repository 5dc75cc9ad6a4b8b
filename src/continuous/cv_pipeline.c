/*-------------------------------------------------------------------------
 *
 * cv_pipeline.c
 *	  Cascaded continuous views: a view whose source is another continuous
 *	  view's table is a stage of a pipeline.
 *
 * A downstream view D reads the rows of an upstream view U's table, which
 * U's refreshes insert (and revise, under late => 'revise') as U's windows
 * close; D's capture triggers on U's table log them as any source's rows.
 * What a pipeline adds is the watermark.  D's own watermark, max(event
 * time seen) - delay, trails U's: U's rows are written only when their
 * window closes, so the newest window_start D has seen is a whole window
 * behind U's watermark, and D would close each window one upstream window
 * late.  Instead, D's watermark is at least U's frontier: the earliest
 * time column value a row U may still write can have.  Every row of U
 * before it has been written, so D may close every window ending there.
 *
 *	D reads U's window_end:   every window ending at or before U's
 *							  watermark is closed, so the frontier is U's
 *							  watermark.
 *	D reads U's window_start: the earliest start of a window U has not
 *							  closed -- tumble: the start of the window
 *							  holding the watermark; hop: the first start
 *							  after watermark - size; cumulate: the start
 *							  of the cycle holding the watermark; session:
 *							  the start of its earliest open session.
 *
 * (D's delay, if any, is subtracted from the frontier as from its own
 * watermark.)  A join view upstream is read as a plain table.  The
 * scheduler refreshes a pipeline's stages upstream first in one round
 * (cv_scheduler.c orders by cv_stage_sql), so a downstream window closes
 * in the round that closed its last upstream window.  D depends on U's
 * table as on any source (pg_depend): dropping U needs CASCADE, which
 * drops D too.
 *
 * src/continuous/cv_pipeline.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "src/continuous/cv_catalog.h"
#include "src/continuous/cv_refresh.h"

/*
 * The query ranking each view by its stage: 0 for a view of plain tables,
 * one more than its deepest upstream view otherwise.  Statement of the
 * scheduler (search_path pinned, operators qualified).
 */
const char *const cv_stage_sql =
"WITH RECURSIVE wj_up(view_rel, stage) AS ("
" SELECT c.view_rel::pg_catalog.oid, 0 FROM windowjoin.view_catalog c"
" UNION ALL"
" SELECT d.view_rel::pg_catalog.oid, u.stage OPERATOR(pg_catalog.+) 1"
" FROM wj_up u JOIN windowjoin.view_catalog d"
" ON d.source_rel::pg_catalog.oid OPERATOR(pg_catalog.=) u.view_rel"
" OR d.source2_rel::pg_catalog.oid OPERATOR(pg_catalog.=) u.view_rel"
" WHERE u.stage OPERATOR(pg_catalog.<) 64)"
" SELECT wj_up.view_rel, pg_catalog.max(wj_up.stage) AS stage FROM wj_up GROUP BY wj_up.view_rel";

/*
 * cv_upstream_frontier
 *		For a view whose source is another (non-join, local) continuous
 *		view's table and whose time column is that view's window_start or
 *		window_end: the earliest value of that column a row the upstream
 *		view may still write can have (the file header).  DT_NOBEGIN for
 *		any other view.  The caller is connected to SPI.
 */
int64
cv_upstream_frontier(const CvView *v)
{
	Oid			types[1] = {OIDOID};
	Datum		values[1];
	HeapTuple	tup;
	TupleDesc	desc;
	char	   *kind;
	int64		wm;
	int64		size;
	int64		stride;
	int64		offset;
	bool		start;
	bool		isnull;

	if (v->join != NULL || v->time_column == NULL)
		return DT_NOBEGIN;
	if (strcmp(v->time_column, "window_start") == 0)
		start = true;
	else if (strcmp(v->time_column, "window_end") == 0)
		start = false;
	else
		return DT_NOBEGIN;

	values[0] = ObjectIdGetDatum(v->source);
	if (cv_catalog_exec("SELECT c.kind, c.watermark, c.size, c.stride, c.\"offset\", c.open_from "
						"FROM windowjoin.view_catalog c "
						"WHERE c.view_rel::pg_catalog.oid OPERATOR(pg_catalog.=) $1 "
						"AND c.join_kind IS NULL AND NOT c.distributed",
						1, types, values, NULL) != SPI_OK_SELECT)
		elog(ERROR, "could not read windowjoin.view_catalog");
	if (SPI_processed != 1)
		return DT_NOBEGIN;
	tup = SPI_tuptable->vals[0];
	desc = SPI_tuptable->tupdesc;
	kind = cv_text_col(tup, desc, "kind");
	wm = DatumGetTimestampTz(cv_datum_col(tup, desc, "watermark", &isnull));
	if (isnull)
		return DT_NOBEGIN;
	if (TIMESTAMP_NOT_FINITE(wm) || !start)
		return wm;
	if (strcmp(kind, "session") == 0)
	{
		Datum		d = cv_datum_col(tup, desc, "open_from", &isnull);

		return isnull ? wm : Min(wm, DatumGetTimestampTz(d));
	}
	size = cv_usecs_col(tup, desc, "size");
	stride = cv_usecs_col(tup, desc, "stride");
	offset = cv_usecs_col(tup, desc, "offset");
	return cv_open_start(kind, wm, size, stride, offset);
}
