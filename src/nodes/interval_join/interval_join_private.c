/*-------------------------------------------------------------------------
 *
 * interval_join_private.c
 *	  The IntervalJoin plan's private data: interval_join.h's fields in
 *	  CustomScan.custom_private, written by the planner and read by the
 *	  executor, through the one codec of plan_private.h.
 *
 * src/nodes/interval_join/interval_join_private.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "src/common/plan_private.h"
#include "src/nodes/interval_join/interval_join.h"

/*
 * interval_join_info_to_private
 *		Encode an IntervalJoinPlanInfo as CustomScan.custom_private
 *		(plan_private.h).  interval_join_info_from_private reads the fields
 *		in the same order.
 */
List *
interval_join_info_to_private(const IntervalJoinPlanInfo *info)
{
	List	   *priv = NIL;

	wj_private_put_int(&priv, (int) info->jointype);
	wj_private_put_int(&priv, info->outer_time);
	wj_private_put_int(&priv, info->inner_time);
	wj_private_put_oid(&priv, info->time_type);
	wj_private_put_bool(&priv, info->lo_incl);
	wj_private_put_bool(&priv, info->hi_incl);
	wj_private_put_int(&priv, info->outer_ncols);
	wj_private_put_int64(&priv, info->lo);
	wj_private_put_int64(&priv, info->hi);
	wj_private_put_int_list(&priv, info->outer_keys);
	wj_private_put_int_list(&priv, info->inner_keys);
	wj_private_put_oid_list(&priv, info->opfamilies);
	wj_private_put_oid_list(&priv, info->collations);
	wj_private_put_oid_list(&priv, info->outer_types);
	wj_private_put_oid_list(&priv, info->inner_types);
	wj_keypart_plan_put(&priv, &info->keypart);
	return priv;
}

/*
 * interval_join_info_from_private
 *		Decode CustomScan.custom_private into *info.
 */
void
interval_join_info_from_private(List *priv, IntervalJoinPlanInfo *info)
{
	WjPrivateReader r;

	wj_private_reader_init(&r, priv, IJ_NAME);
	info->jointype = (JoinType) wj_private_get_int(&r);
	info->outer_time = (AttrNumber) wj_private_get_int(&r);
	info->inner_time = (AttrNumber) wj_private_get_int(&r);
	info->time_type = wj_private_get_oid(&r);
	info->lo_incl = wj_private_get_bool(&r);
	info->hi_incl = wj_private_get_bool(&r);
	info->outer_ncols = wj_private_get_int(&r);
	info->lo = wj_private_get_int64(&r);
	info->hi = wj_private_get_int64(&r);
	info->outer_keys = wj_private_get_int_list(&r);
	info->inner_keys = wj_private_get_int_list(&r);
	info->opfamilies = wj_private_get_oid_list(&r);
	info->collations = wj_private_get_oid_list(&r);
	info->outer_types = wj_private_get_oid_list(&r);
	info->inner_types = wj_private_get_oid_list(&r);
	wj_keypart_plan_get(&r, &info->keypart);
	wj_private_reader_done(&r);
}
