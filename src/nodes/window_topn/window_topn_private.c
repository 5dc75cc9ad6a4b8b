/*-------------------------------------------------------------------------
 *
 * window_topn_private.c
 *	  The WindowTopN plan's private data: window_topn.h's fields in
 *	  CustomScan.custom_private, written by the planner and read by the
 *	  executor, through the one codec of plan_private.h.
 *
 * src/nodes/window_topn/window_topn_private.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "src/common/plan_private.h"
#include "src/nodes/window_topn/window_topn.h"

/*
 * window_topn_info_to_private
 *		Encode a WindowTopNPlanInfo as CustomScan.custom_private;
 *		window_topn_info_from_private reads the fields in the same order.
 */
List *
window_topn_info_to_private(const WindowTopNPlanInfo *info)
{
	List	   *priv = NIL;

	wj_private_put_int(&priv, (int) info->kind);
	wj_private_put_int64(&priv, info->limit);
	wj_private_put_bool(&priv, info->partial);
	wj_private_put_int_list(&priv, info->part_cols);
	wj_private_put_oid_list(&priv, info->part_sortops);
	wj_private_put_oid_list(&priv, info->part_eqops);
	wj_private_put_oid_list(&priv, info->part_colls);
	wj_private_put_int_list(&priv, info->part_nullsfirst);
	wj_private_put_int_list(&priv, info->order_cols);
	wj_private_put_oid_list(&priv, info->order_sortops);
	wj_private_put_oid_list(&priv, info->order_colls);
	wj_private_put_int_list(&priv, info->order_nullsfirst);
	return priv;
}

/*
 * window_topn_info_from_private
 *		Decode CustomScan.custom_private into *info.
 */
void
window_topn_info_from_private(List *priv, WindowTopNPlanInfo *info)
{
	WjPrivateReader r;

	wj_private_reader_init(&r, priv, "WindowTopN");
	info->kind = (WtnRankKind) wj_private_get_int(&r);
	info->limit = wj_private_get_int64(&r);
	info->partial = wj_private_get_bool(&r);
	info->part_cols = wj_private_get_int_list(&r);
	info->part_sortops = wj_private_get_oid_list(&r);
	info->part_eqops = wj_private_get_oid_list(&r);
	info->part_colls = wj_private_get_oid_list(&r);
	info->part_nullsfirst = wj_private_get_int_list(&r);
	info->order_cols = wj_private_get_int_list(&r);
	info->order_sortops = wj_private_get_oid_list(&r);
	info->order_colls = wj_private_get_oid_list(&r);
	info->order_nullsfirst = wj_private_get_int_list(&r);
	wj_private_reader_done(&r);
}
