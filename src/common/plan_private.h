/*-------------------------------------------------------------------------
 *
 * plan_private.h
 *	  One encoding of a custom scan's private plan data, shared by every
 *	  windowjoin node.
 *
 * Each node keeps what its executor needs from the planner in one C struct
 * (AsOfPlanInfo, IntervalPlanInfo, ... declared in the node's header) and
 * two functions beside it:
 *
 *		List *xxx_info_to_private(const XxxPlanInfo *info);
 *		void  xxx_info_from_private(List *priv, XxxPlanInfo *info);
 *
 * The planner stores the list in CustomScan.custom_private; the executor
 * reads it back in its CreateCustomScanState callback.  Both functions are
 * written with the writer and reader below, field by field in the same
 * order, so the list is a flat sequence of nodes that copyObject(),
 * nodeToString() (parallel workers receive the plan as text) and the
 * read functions all handle: Integer, Boolean, int8 Const, integer and OID
 * lists, and plain node trees.  The reader checks the kind of every field
 * it takes and that none is left over, so a writer and a reader that drift
 * apart fail loudly instead of misreading.
 *
 * Expressions that reference the node's input columns do not belong here:
 * setrefs.c does not look into custom_private, so they go to custom_exprs
 * (or the scan tlist) and the struct holds their positions.
 *
 * The path side needs no encoding: a node's CustomPath carries what its
 * PlanCustomPath needs as list_make1() of a pointer to a C struct (a
 * planner-only one such as WjPathInfo or IJInfo beside the node's planner,
 * or the XxxPlanInfo itself when the path already knows all of it), which
 * is never copied or written out; PlanCustomPath encodes the XxxPlanInfo.
 *
 * src/common/plan_private.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PLAN_PRIVATE_H
#define PLAN_PRIVATE_H

#include "nodes/pg_list.h"

/* Writing: each call appends one field to *priv */
extern void wj_private_put_int(List **priv, int value);
extern void wj_private_put_bool(List **priv, bool value);
extern void wj_private_put_int64(List **priv, int64 value);
extern void wj_private_put_oid(List **priv, Oid value);
extern void wj_private_put_int_list(List **priv, List *values);
extern void wj_private_put_oid_list(List **priv, List *values);
extern void wj_private_put_node(List **priv, void *node);

/* Reading: fields come back in the order they were put */
typedef struct WjPrivateReader
{
	List	   *priv;			/* the custom_private list */
	int			next;			/* index of the next field */
	const char *node_name;		/* for can't-happen messages */
} WjPrivateReader;

extern void wj_private_reader_init(WjPrivateReader *reader, List *priv,
								   const char *node_name);
extern int	wj_private_get_int(WjPrivateReader *reader);
extern bool wj_private_get_bool(WjPrivateReader *reader);
extern int64 wj_private_get_int64(WjPrivateReader *reader);
extern Oid	wj_private_get_oid(WjPrivateReader *reader);
extern List *wj_private_get_int_list(WjPrivateReader *reader);
extern List *wj_private_get_oid_list(WjPrivateReader *reader);
extern void *wj_private_get_node(WjPrivateReader *reader);
extern void wj_private_reader_done(WjPrivateReader *reader);

#endif							/* PLAN_PRIVATE_H */
