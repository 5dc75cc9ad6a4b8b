/*-------------------------------------------------------------------------
 *
 * session_sort_private.c
 *	  The SessionSort and SessionWindow plan's private data: session_sort.h's fields in
 *	  CustomScan.custom_private, written by the planner and read by the
 *	  executor, through the one codec of plan_private.h.
 *
 * src/nodes/session/session_sort_private.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "src/common/plan_private.h"
#include "src/nodes/session/session_sort.h"

/*
 * session_sort_info_to_private
 *		Encode a SessionSortPlanInfo as CustomScan.custom_private
 *		(plan_private.h).  session_sort_info_from_private reads the fields in
 *		the same order.
 */
List *
session_sort_info_to_private(const SessionSortPlanInfo *info)
{
	List	   *priv = NIL;

	wj_private_put_int_list(&priv, info->attnos);
	wj_private_put_oid_list(&priv, info->sortops);
	wj_private_put_oid_list(&priv, info->eqops);
	wj_private_put_oid_list(&priv, info->colls);
	wj_private_put_int_list(&priv, info->nullsfirst);
	wj_private_put_bool(&priv, info->has_gap);
	wj_private_put_node(&priv, info->gap);
	wj_keypart_plan_put(&priv, &info->keypart);
	return priv;
}

/*
 * session_sort_info_from_private
 *		Decode CustomScan.custom_private into *info.
 */
void
session_sort_info_from_private(List *priv, SessionSortPlanInfo *info)
{
	WjPrivateReader r;

	wj_private_reader_init(&r, priv, "SessionSort");
	info->attnos = wj_private_get_int_list(&r);
	info->sortops = wj_private_get_oid_list(&r);
	info->eqops = wj_private_get_oid_list(&r);
	info->colls = wj_private_get_oid_list(&r);
	info->nullsfirst = wj_private_get_int_list(&r);
	info->has_gap = wj_private_get_bool(&r);
	info->gap = castNode(Const, wj_private_get_node(&r));
	wj_keypart_plan_get(&r, &info->keypart);
	wj_private_reader_done(&r);
}
