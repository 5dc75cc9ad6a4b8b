/*-------------------------------------------------------------------------
 *
 * tumble_agg_private.c
 *	  The TumbleAgg plan's private data: tumble_agg.h's fields in
 *	  CustomScan.custom_private, written by the planner and read by the
 *	  executor, through the one codec of plan_private.h.
 *
 * src/nodes/tumble_agg/tumble_agg_private.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "src/common/plan_private.h"
#include "src/nodes/tumble_agg/tumble_agg.h"

/*
 * tumble_agg_info_to_private
 *		Encode a TumbleAggPlanInfo as CustomScan.custom_private;
 *		tumble_agg_info_from_private reads the fields in the same order.
 */
List *
tumble_agg_info_to_private(const TumbleAggPlanInfo *info)
{
	List	   *priv = NIL;

	wj_private_put_int(&priv, (int) info->bucket);
	wj_private_put_oid(&priv, info->time_type);
	wj_private_put_int64(&priv, info->unit);
	wj_private_put_int64(&priv, info->offset);
	wj_private_put_int64(&priv, info->origin);
	wj_private_put_int(&priv, info->nwindowcols);
	for (int i = 0; i < info->nwindowcols; i++)
		wj_private_put_int64(&priv, info->deltas[i]);
	wj_private_put_int(&priv, info->nkeys);
	wj_private_put_oid_list(&priv, info->key_sortops);
	wj_private_put_oid_list(&priv, info->key_eqops);
	wj_private_put_oid_list(&priv, info->key_collations);
	wj_private_put_int(&priv, info->naggs);
	for (int i = 0; i < info->naggs; i++)
	{
		wj_private_put_int(&priv, (int) info->aggs[i].kind);
		wj_private_put_oid(&priv, info->aggs[i].argtype);
	}
	wj_private_put_int_list(&priv, info->input_cols);
	wj_private_put_bool(&priv, info->parallel);
	wj_private_put_bool(&priv, info->exchange_rows);
	wj_private_put_bool(&priv, info->exchange_shared);
	return priv;
}

/*
 * tumble_agg_info_from_private
 *		Decode CustomScan.custom_private into *info.
 */
void
tumble_agg_info_from_private(List *priv, TumbleAggPlanInfo *info)
{
	WjPrivateReader r;

	wj_private_reader_init(&r, priv, "TumbleAgg");
	info->bucket = (TaBucketKind) wj_private_get_int(&r);
	info->time_type = wj_private_get_oid(&r);
	info->unit = wj_private_get_int64(&r);
	info->offset = wj_private_get_int64(&r);
	info->origin = wj_private_get_int64(&r);
	info->nwindowcols = wj_private_get_int(&r);
	info->deltas = palloc0(sizeof(int64) * Max(info->nwindowcols, 1));
	for (int i = 0; i < info->nwindowcols; i++)
		info->deltas[i] = wj_private_get_int64(&r);
	info->nkeys = wj_private_get_int(&r);
	info->key_sortops = wj_private_get_oid_list(&r);
	info->key_eqops = wj_private_get_oid_list(&r);
	info->key_collations = wj_private_get_oid_list(&r);
	info->naggs = wj_private_get_int(&r);
	info->aggs = palloc0(sizeof(TaAgg) * Max(info->naggs, 1));
	for (int i = 0; i < info->naggs; i++)
	{
		info->aggs[i].kind = (TaAggKind) wj_private_get_int(&r);
		info->aggs[i].argtype = wj_private_get_oid(&r);
	}
	info->input_cols = wj_private_get_int_list(&r);
	info->parallel = wj_private_get_bool(&r);
	info->exchange_rows = wj_private_get_bool(&r);
	info->exchange_shared = wj_private_get_bool(&r);
	wj_private_reader_done(&r);
}
