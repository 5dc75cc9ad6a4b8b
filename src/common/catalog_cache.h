/*-------------------------------------------------------------------------
 *
 * catalog_cache.h
 *	  Which of windowjoin's own C functions a pg_proc OID is, remembered
 *	  per backend (see catalog_cache.c).
 *
 * src/common/catalog_cache.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CATALOG_CACHE_H
#define CATALOG_CACHE_H

#include "postgres.h"

/*
 * The extension's C functions, named after their C symbol (prosrc).  The
 * SQL-level tumble()/hop()/cumulate() are LANGUAGE sql and are inlined into
 * the query, so plans show these building blocks instead.
 */
typedef enum WjFunc
{
	WJF_NONE = 0,				/* not one of ours (or not a C function) */
	WJF_TUMBLE_START,			/* wj_tumble_start */
	WJF_TUMBLE_END,				/* wj_tumble_end */
	WJF_TUMBLE_TIME,			/* wj_tumble_time */
	WJF_WINDOW_END,				/* wj_window_end */
	WJF_WINDOW_TIME,			/* wj_window_time */
	WJF_END_TO_TIME,			/* wj_end_to_time */
	WJF_HOP_STARTS,				/* wj_hop_starts */
	WJF_CUMULATE_ENDS,			/* wj_cumulate_ends */
	WJF_HOP_SUPPORT,			/* wj_hop_support */
	WJF_CUMULATE_SUPPORT,		/* wj_cumulate_support */
	WJF_SESSION,				/* wj_session, the session() window function */
	WJF_STATUS					/* windowjoin_status */
} WjFunc;

/*
 * Which of our C functions funcid is, or WJF_NONE.  One pg_proc lookup per
 * function per backend; the answer is forgotten when pg_proc changes.
 */
extern WjFunc wj_func_of(Oid funcid);
extern bool wj_func_in_extension(Oid funcid, const char *extname);

/*
 * The OID of our C function func taking exactly argtypes, found by the
 * same identity among the members of the extension owning like_funcid (a
 * function of ours); InvalidOid if there is none.  Remembered per backend.
 */
extern Oid	wj_func_oid(WjFunc func, Oid like_funcid, int nargs,
						const Oid *argtypes);

#endif							/* CATALOG_CACHE_H */
