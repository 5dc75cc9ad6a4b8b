/*-------------------------------------------------------------------------
 *
 * cv_catalog.h
 *	  The continuous views' catalog (cv_catalog.c): its one write path, the
 *	  ownership checks, and what change capture reads from it.
 *
 * src/continuous/cv_catalog.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CV_CATALOG_H
#define CV_CATALOG_H

#include "postgres.h"

#include "access/htup.h"
#include "access/tupdesc.h"
#include "nodes/pg_list.h"
#include "utils/relcache.h"

/* the identity cv_catalog_begin switched from */
typedef struct CvCatalogUser
{
	Oid			userid;
	int			sec_context;
} CvCatalogUser;

/* what one capture trigger may do (cv_catalog_capture_target) */
typedef struct CvCaptureTarget
{
	Oid			view;			/* the view whose trigger it is */
	Oid			source;			/* the table it must be on */
	Oid			log;			/* the change log it writes */
	AttrNumber	timeattno;		/* the source's time column */
	Oid			timetype;		/* TIMESTAMPOID or TIMESTAMPTZOID */
	bool		with_rows;		/* late => 'log': one log row per row */
	int64		grain;			/* bin length in microseconds; 0: none */
	int64		offset;			/* the windows' offset */
	bool		scheduled;		/* the view has a schedule */
	int64		close_grain;	/* windows end on this grid; 0: no wake */
	int64		delay;			/* the watermark's delay */
} CvCaptureTarget;

extern Oid	cv_catalog_relid(void);
extern Oid	cv_rel_owner(Oid rel);
extern char *cv_relation_text(Oid rel);
extern void cv_check_view_owner(Oid view);
extern void cv_catalog_begin(CvCatalogUser *save);
extern void cv_catalog_end(const CvCatalogUser *save);
extern int	cv_catalog_exec(const char *sql, int nargs, Oid *types,
							Datum *values, const char *nulls);
extern bool cv_log_shape_ok(Relation rel, Oid timetype);
extern AttrNumber cv_catalog_attnum(TupleDesc desc, const char *name);

/* a catalog row's columns by name: the Datum, an OID (InvalidOid when
 * null), a text or name as a C string (NULL when null) */
extern Datum cv_datum_col(HeapTuple tup, TupleDesc desc, const char *name,
						  bool *isnull);
extern Oid	cv_oid_col(HeapTuple tup, TupleDesc desc, const char *name);
extern char *cv_text_col(HeapTuple tup, TupleDesc desc, const char *name);
extern int64 cv_usecs_col(HeapTuple tup, TupleDesc desc, const char *name);
extern bool cv_catalog_capture_target(Oid relid, const char *tgname,
									  CvCaptureTarget *t);
extern bool cv_catalog_is_03(void);
extern bool cv_catalog_has_feeds(void);
extern void cv_require_owned_table(Oid rel, Oid owner, const char *what);
extern void cv_record_view_table(Oid rel, Oid view);

/* a view side reading a source: its capture target and trigger names */
typedef struct CvSourceTarget
{
	CvCaptureTarget target;
	Datum		triggers;		/* name[] */
} CvSourceTarget;

extern List *cv_catalog_targets_reading(List *sources);
extern List *cv_depended_on(Oid classid, Oid objid, char deptype);

/* cv_capture.c: the rows of a table (a partition attached, detached or
 * dropped) logged as changes */
extern void cv_log_relation(const CvCaptureTarget *target, Oid relid, int16 sign);

/* cv_derived.c: a derived query kept as a function, as refresh calls it */
extern char *cv_derived_call(Oid fn);

#endif							/* CV_CATALOG_H */
