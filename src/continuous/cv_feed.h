/*-------------------------------------------------------------------------
 *
 * cv_feed.h
 *	  Changefeeds of continuous views (cv_feed.c): what refresh calls.
 *
 * src/continuous/cv_feed.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CV_FEED_H
#define CV_FEED_H

#include "postgres.h"

/* the channel every feed notifies at commit */
#define CV_FEED_CHANNEL "windowjoin_feed"

extern void cv_feed_refresh_begin(Oid view, Oid feed, int64 seq);
extern int64 cv_feed_refresh_seq(void);
extern void cv_feed_refresh_reset(void);
extern int64 cv_feed_purge(Oid view, Oid feed, int64 seq, int64 purged);
extern void cv_feed_mark(Oid view, int64 seq);
extern void cv_feed_notify(Oid view, int64 seq);

#endif							/* CV_FEED_H */
