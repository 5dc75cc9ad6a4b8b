/*-------------------------------------------------------------------------
 *
 * cv_join_refresh.c
 *	  Refresh of continuous join views: two change logs, two watermarks,
 *	  and for interval and as-of views the rows closed by anchor time.
 *
 * A join view has a source on each side, each with its own change log
 * (one, for a self-join) and its own watermark, max(event time seen) -
 * delay, or the explicit one if later.  With idle set, a side whose log
 * has been empty for that long (wall clock) follows the clock (now -
 * delay: a row arriving now would be that recent) and never lags the
 * other side (as Flink leaves an idle input out of the minimum), so a
 * quiet source does not stall the view.  The view's watermark is the
 * lesser of the two.
 *
 * Window join views are then refreshed as window aggregates are
 * (cv_refresh_windows): a window is closed when the view's watermark is
 * past its end, and computed from the rows of both sources inside it;
 * the late bins of both logs are revised together.
 *
 * Interval and as-of ("band") views relate the right time r to the left
 * time l by lo <= r - l <= hi (cv_join_analyze.c).  Each row is anchored:
 * a matched or left-padded row at l, a right-padded row (RIGHT and FULL
 * interval joins) at r.  With W1 and W2 the two watermarks (rows before
 * a watermark are all seen), a left-anchored row is final once its left
 * row is before W1 and every right row of its band is before W2:
 *
 *	  left frontier	 FL = min(W1, W2 - hi)	 rows with l < FL are final
 *	  right frontier FR = min(W2, W1 + lo)	 rows with r < FR are final
 *
 * Each refresh writes the left query's rows for l in [FL old, FL new) and
 * the right query's for r in [FR old, FR new), reading the right rows of
 * [l + lo, l + hi] (the left rows of [r - hi, r - lo]) by range.
 *
 * A change is late when it can touch a final row: a left change at t when
 * t < FL, or t + lo < FR; a right change when t - hi < FL (an as-of
 * version reaches every later probe up to hi before it: lo is unbounded),
 * or t < FR.  With late => 'revise' the final rows a late change can touch
 * -- anchors [t, t] and [t + lo, t + hi] for a left change, [t - hi, t - lo]
 * and [t, t] for a right one, each clipped to what is final -- are
 * deleted and recomputed, merged into disjoint ranges first.  'drop' and
 * 'log' count them (and 'log' copies the rows) and leave final rows as
 * they are; rows not yet final still see the late row in the source.
 *
 * src/continuous/cv_join_refresh.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "src/continuous/cv_catalog.h"
#include "src/continuous/cv_refresh.h"

/* a microsecond: inclusive bounds made exclusive */
#define CV_USEC INT64CONST(1)

/*
 * cv_min
 *		The lesser of two times.
 */
static int64
cv_min(int64 a, int64 b)
{
	return a < b ? a : b;
}

/*
 * cv_frontiers
 *		The band view's left and right frontiers at watermarks w1, w2.
 */
static void
cv_frontiers(const CvView *v, int64 w1, int64 w2, int64 *fl, int64 *fr)
{
	*fl = cv_min(w1, cv_add(w2, -v->band_hi));
	*fr = v->right_query ? cv_min(w2, cv_add(w1, v->band_lo)) : DT_NOBEGIN;
}

/* the anchor ranges a refresh revises, per part */
typedef struct CvRanges
{
	CvRange    *r;
	int			n;
	int			cap;
} CvRanges;

/*
 * cv_ranges_add
 *		Add [lo, hi) clipped to before upto, if not empty.
 */
static void
cv_ranges_add(CvRanges *rs, int64 lo, int64 hi, int64 upto)
{
	hi = cv_min(hi, upto);
	if (lo >= hi)
		return;
	if (rs->n == rs->cap)
	{
		rs->cap = rs->cap ? rs->cap * 2 : 16;
		rs->r = rs->r ? repalloc(rs->r, rs->cap * sizeof(CvRange)) :
			palloc(rs->cap * sizeof(CvRange));
	}
	rs->r[rs->n].lo = lo;
	rs->r[rs->n++].hi = hi;
}

/*
 * cv_band_spans
 *		The anchor ranges late changes of one side touch (file header).
 */
static void
cv_band_spans(const CvView *v, const CvFold *f, bool left, bool right,
			  int64 fl, int64 fr, CvRanges *lr, CvRanges *rr)
{
	for (int i = 0; i < f->nspans; i++)
	{
		int64		a = f->spans[i].t;
		int64		b = cv_add(f->spans[i].t_max, CV_USEC);

		CHECK_FOR_INTERRUPTS();
		if (left)
		{
			cv_ranges_add(lr, a, b, fl);
			if (v->right_query)
				cv_ranges_add(rr, cv_add(a, v->band_lo), cv_add(b, v->band_hi), fr);
		}
		if (right)
		{
			cv_ranges_add(lr, cv_add(a, -v->band_hi),
						  v->has_band_lo ? cv_add(b, -v->band_lo) : DT_NOEND, fl);
			if (v->right_query)
				cv_ranges_add(rr, a, b, fr);
		}
	}
}

/*
 * cv_band_write
 *		Write the rows of one part with anchors in [lo, hi): the left query
 *		(right rows of [lo + band lo, hi + band hi)), or the right query
 *		(left rows of [lo - band hi, hi - band lo)).
 */
static uint64
cv_band_write(const CvView *v, bool right_part, int64 lo, int64 hi)
{
	const char *view = cv_relname(v->view);

	if (right_part)
		return cv_exec(v, psprintf("INSERT INTO %s %s", view, v->right_query), 4,
					   lo, hi, cv_add(lo, -v->band_hi),
					   cv_add(hi, -v->band_lo));
	if (strcmp(v->join, "asof") == 0)
		return cv_exec(v, psprintf("INSERT INTO %s %s", view, v->range_query), 2, lo, hi);
	return cv_exec(v, psprintf("INSERT INTO %s %s", view, v->range_query), 4,
				   lo, hi, cv_add(lo, v->band_lo), cv_add(hi, v->band_hi));
}

/*
 * cv_band_revise
 *		Delete and recompute the final rows of one part with anchors in the
 *		ranges, merged into disjoint islands first.
 */
static void
cv_band_revise(const CvView *v, bool right_part, CvRanges *rs, CvCounts *c)
{
	const char *side = v->right_query == NULL ? "" :
	right_part ? " AND anchor_right" : " AND NOT anchor_right";
	char	   *del = psprintf("DELETE FROM %s WHERE anchor_time >= $1 AND anchor_time < $2%s",
							   cv_relname(v->view), side);
	int			i = 0;

	qsort(rs->r, rs->n, sizeof(CvRange), cv_cmp_range);
	while (i < rs->n)
	{
		int64		lo = rs->r[i].lo;
		int64		hi = rs->r[i].hi;
		uint64		n;

		for (i++; i < rs->n && rs->r[i].lo <= hi; i++)
			hi = Max(hi, rs->r[i].hi);
		c->removed += cv_exec(v, del, 2, lo, hi);
		n = cv_band_write(v, right_part, lo, hi);
		c->revised += n;
		c->inserted += n;
	}
}

/*
 * cv_fold_side
 *		Fold one side's change log (the right one when right).
 */
static void
cv_fold_side(CvView *v, bool right, int64 late_before, CvCounts *c, CvFold *f)
{
	Oid			changes = v->changes;
	Oid			late_rel = v->late_rel;

	if (right)
	{
		v->changes = v->changes2;
		v->late_rel = v->late2_rel;
	}
	v->late_before = late_before;
	cv_fold(v, DT_NOBEGIN, c, f);
	v->changes = changes;
	v->late_rel = late_rel;
}

/*
 * cv_source_max
 *		The newest finite event time of a source, DT_NOBEGIN when it has
 *		none.
 */
static int64
cv_source_max(const CvView *v, const char *column, Oid source)
{
	int64		m;

	cv_exec(v, cv_max_time_sql(source, column), 0);
	return cv_value(1, &m) ? m : DT_NOBEGIN;
}

/*
 * cv_merge_bins
 *		The late bins of both logs of a window join, sorted and distinct.
 */
static void
cv_merge_bins(CvFold *f, const CvFold *f2)
{
	int			k = 0;

	if (f2->nlate_bins == 0)
		return;
	f->late_bins = repalloc(f->late_bins,
							(f->nlate_bins + f2->nlate_bins) * sizeof(int64));
	memcpy(f->late_bins + f->nlate_bins, f2->late_bins, f2->nlate_bins * sizeof(int64));
	f->nlate_bins += f2->nlate_bins;
	qsort(f->late_bins, f->nlate_bins, sizeof(int64), cv_cmp_int64);
	for (int i = 0; i < f->nlate_bins; i++)
		if (k == 0 || f->late_bins[i] != f->late_bins[k - 1])
			f->late_bins[k++] = f->late_bins[i];
	f->nlate_bins = k;
}

/*
 * cv_refresh_join
 *		Steps 1 to 4 for a join view: fold both logs, the watermarks, then
 *		the windows (window joins) or the anchors (band views) that closed
 *		and the revisions.  Returns the view's new watermark and the left
 *		source's newest event time; writes the join columns of the catalog
 *		row.
 */
void
cv_refresh_join(CvView *v, bool full, CvCounts *c, CvFold *f, int64 *new_wm,
				int64 *max_ev, TimestampTz *t1, TimestampTz *t2)
{
	bool		self = !OidIsValid(v->changes2);
	bool		band = v->kind == CV_BAND;
	int64		old1 = v->watermark1;
	int64		old2 = v->watermark2;
	int64		old_wm = v->watermark;
	int64		fl_old = DT_NOBEGIN;
	int64		fr_old = DT_NOBEGIN;
	int64		max1;
	int64		max2;
	int64		w1;
	int64		w2;
	int64		now = GetCurrentTimestamp();
	CvFold		f2;
	bool		reset;

	/* 1. fold both logs; a band view's late tests come from its frontiers */
	if (band)
		cv_frontiers(v, old1, old2, &fl_old, &fr_old);
	{
		int64		left_late = fl_old;
		int64		right_late = cv_add(fl_old, v->band_hi);

		if (v->right_query)
		{
			left_late = Max(left_late, cv_add(fr_old, -v->band_lo));
			right_late = Max(right_late, fr_old);
		}
		cv_fold_side(v, false, self ? Max(left_late, right_late) : left_late, c, f);
		if (self)
			f2 = *f;
		else
			cv_fold_side(v, true, right_late, c, &f2);
	}
	*t1 = GetCurrentTimestamp();

	reset = f->truncated || f2.truncated || full;
	if (reset)
	{
		cv_exec(v, psprintf("DELETE FROM %s", cv_relname(v->view)), 0);
		v->view_rows = 0;
		c->removed = 0;
		c->late = 0;
		old1 = old2 = old_wm = fl_old = fr_old = DT_NOBEGIN;
		if (f->truncated || f2.truncated)
			v->explicit_watermark = DT_NOBEGIN;
		max1 = cv_source_max(v, v->time_column, v->source);
		max2 = self ? max1 : cv_source_max(v, v->time_column2, v->source2);
		f->nlate_bins = f2.nlate_bins = 0;
		f->nspans = f2.nspans = 0;
	}
	else
	{
		max1 = f->has_batch_max ? Max(v->max_event, f->batch_max) : v->max_event;
		max2 = self ? max1 :
			f2.has_batch_max ? Max(v->max_event2, f2.batch_max) : v->max_event2;
	}

	/* 2. the watermarks; an idle side follows the clock and the other side */
	w1 = Max(Max(old1, cv_add(max1, -v->delay)), v->explicit_watermark);
	w2 = Max(Max(old2, cv_add(max2, -v->delay)), v->explicit_watermark);
	if (f->any || !v->has_seen1)
	{
		v->seen1 = now;
		v->has_seen1 = true;
	}
	if (f2.any || !v->has_seen2)
	{
		v->seen2 = now;
		v->has_seen2 = true;
	}
	if (v->has_idle)
	{
		int64		clock = cv_add(now, -v->delay);
		bool		idle1 = now - v->seen1 >= v->idle;
		bool		idle2 = now - v->seen2 >= v->idle;
		int64		w1_was = w1;

		if (idle1)
			w1 = Max(Max(w1, w2), clock);
		if (idle2)
			w2 = Max(Max(w2, w1_was), clock);
	}
	*new_wm = Max(old_wm, cv_min(w1, w2));
	*max_ev = max1;

	if (!band)
	{
		/* 3. window joins: as window aggregates, over both logs' late bins */
		if (!self)
			cv_merge_bins(f, &f2);
		cv_refresh_windows(v, f, old_wm, *new_wm, c, t2);
	}
	else
	{
		int64		fl_new;
		int64		fr_new;
		uint64		n;

		/* 3. band views: revisions, then the anchors that closed */
		if (v->late == CV_LATE_REVISE)
		{
			CvRanges	lr = {0};
			CvRanges	rr = {0};

			cv_band_spans(v, f, true, self, fl_old, fr_old, &lr, &rr);
			if (!self)
				cv_band_spans(v, &f2, false, true, fl_old, fr_old, &lr, &rr);
			if (lr.n > 0)
				cv_band_revise(v, false, &lr, c);
			if (rr.n > 0)
				cv_band_revise(v, true, &rr, c);
		}
		*t2 = GetCurrentTimestamp();

		cv_frontiers(v, w1, w2, &fl_new, &fr_new);
		if (fl_new > fl_old)
		{
			n = cv_band_write(v, false, fl_old, fl_new);
			c->emitted += n;
			c->inserted += n;
		}
		if (v->right_query && fr_new > fr_old)
		{
			n = cv_band_write(v, true, fr_old, fr_new);
			c->emitted += n;
			c->inserted += n;
		}
	}

	/* the join columns of the catalog row */
	{
		Oid			types[6] = {OIDOID, TIMESTAMPTZOID, TIMESTAMPTZOID,
		TIMESTAMPTZOID, TIMESTAMPTZOID, TIMESTAMPTZOID};
		Datum		vals[6];

		vals[0] = ObjectIdGetDatum(v->view);
		vals[1] = TimestampTzGetDatum(max2);
		vals[2] = TimestampTzGetDatum(w1);
		vals[3] = TimestampTzGetDatum(w2);
		vals[4] = TimestampTzGetDatum(v->seen1);
		vals[5] = TimestampTzGetDatum(v->seen2);
		if (cv_catalog_exec("UPDATE windowjoin.view_catalog v "
							"SET max_event2 = $2, watermark1 = $3, watermark2 = $4, "
							"seen1 = $5, seen2 = $6 "
							"WHERE v.view_rel::pg_catalog.oid OPERATOR(pg_catalog.=) $1",
							6, types, vals, NULL) != SPI_OK_UPDATE)
			elog(ERROR, "could not update windowjoin.view_catalog");
	}
}
