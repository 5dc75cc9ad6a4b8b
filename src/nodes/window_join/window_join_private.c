/*-------------------------------------------------------------------------
 *
 * window_join_private.c
 *	  The WindowJoin plan's private data: window_join.h's fields in
 *	  CustomScan.custom_private, written by the planner and read by the
 *	  executor, through the one codec of plan_private.h.
 *
 * src/nodes/window_join/window_join_private.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "src/common/plan_private.h"
#include "src/nodes/window_join/window_join.h"

/*
 * window_join_info_to_private
 *		Encode a WindowJoinPlanInfo as CustomScan.custom_private
 *		(plan_private.h).  window_join_info_from_private reads the fields in
 *		the same order.
 */
List *
window_join_info_to_private(const WindowJoinPlanInfo *info)
{
	List	   *priv = NIL;

	wj_private_put_int(&priv, (int) info->jointype);
	wj_private_put_int(&priv, (int) info->mode);
	wj_private_put_int(&priv, (int) info->kind);
	wj_private_put_int(&priv, info->outer_ncols);
	wj_private_put_int(&priv, info->inner_ncols);
	wj_private_put_int_list(&priv, info->outer_extra_is_expr);
	wj_private_put_int_list(&priv, info->inner_extra_is_expr);
	wj_private_put_node(&priv, info->every);
	wj_private_put_node(&priv, info->size);
	wj_private_put_node(&priv, info->offset);
	wj_private_put_oid_list(&priv, info->outer_hashfn);
	wj_private_put_oid_list(&priv, info->inner_hashfn);
	wj_private_put_oid_list(&priv, info->key_coll);
	wj_private_put_int(&priv, info->outer_buckets ? 1 : 0);
	wj_private_put_int(&priv, info->inner_buckets ? 1 : 0);
	wj_private_put_int_list(&priv, info->outer_derived);
	wj_private_put_int_list(&priv, info->outer_derived_step);
	wj_private_put_int_list(&priv, info->inner_derived);
	wj_private_put_int_list(&priv, info->inner_derived_step);
	wj_keypart_plan_put(&priv, &info->keypart);
	return priv;
}

/*
 * window_join_info_from_private
 *		Decode CustomScan.custom_private into *info.
 */
void
window_join_info_from_private(List *priv, WindowJoinPlanInfo *info)
{
	WjPrivateReader r;

	wj_private_reader_init(&r, priv, WJ_WINDOW_JOIN_NAME);
	info->jointype = (JoinType) wj_private_get_int(&r);
	info->mode = (WjMode) wj_private_get_int(&r);
	info->kind = (WjWindowKind) wj_private_get_int(&r);
	info->outer_ncols = wj_private_get_int(&r);
	info->inner_ncols = wj_private_get_int(&r);
	info->outer_extra_is_expr = wj_private_get_int_list(&r);
	info->inner_extra_is_expr = wj_private_get_int_list(&r);
	info->every = castNode(Const, wj_private_get_node(&r));
	info->size = castNode(Const, wj_private_get_node(&r));
	info->offset = castNode(Const, wj_private_get_node(&r));
	info->outer_hashfn = wj_private_get_oid_list(&r);
	info->inner_hashfn = wj_private_get_oid_list(&r);
	info->key_coll = wj_private_get_oid_list(&r);
	info->outer_buckets = wj_private_get_int(&r) != 0;
	info->inner_buckets = wj_private_get_int(&r) != 0;
	info->outer_derived = wj_private_get_int_list(&r);
	info->outer_derived_step = wj_private_get_int_list(&r);
	info->inner_derived = wj_private_get_int_list(&r);
	info->inner_derived_step = wj_private_get_int_list(&r);
	wj_keypart_plan_get(&r, &info->keypart);
	wj_private_reader_done(&r);
}
