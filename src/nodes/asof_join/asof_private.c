/*-------------------------------------------------------------------------
 *
 * asof_private.c
 *	  The AsOfJoin plan's private data: asof.h's fields in
 *	  CustomScan.custom_private, written by the planner and read by the
 *	  executor, through the one codec of plan_private.h.
 *
 * src/nodes/asof_join/asof_private.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "src/common/plan_private.h"
#include "src/nodes/asof_join/asof.h"

/* Append a comparison's four OIDs */
static void
asof_put_cmp(List **priv, const AsOfCmpInfo *cmp)
{
	wj_private_put_oid(priv, cmp->opfamily);
	wj_private_put_oid(priv, cmp->outertype);
	wj_private_put_oid(priv, cmp->innertype);
	wj_private_put_oid(priv, cmp->collation);
}

/* Read a comparison's four OIDs */
static void
asof_get_cmp(WjPrivateReader *reader, AsOfCmpInfo *cmp)
{
	cmp->opfamily = wj_private_get_oid(reader);
	cmp->outertype = wj_private_get_oid(reader);
	cmp->innertype = wj_private_get_oid(reader);
	cmp->collation = wj_private_get_oid(reader);
}

/*
 * asof_info_to_private
 *		Encode info as a custom_private list.
 */
List *
asof_info_to_private(const AsOfPlanInfo *info)
{
	List	   *priv = NIL;
	int			i;

	wj_private_put_int(&priv, (int) info->jointype);
	wj_private_put_bool(&priv, info->forward);
	wj_private_put_bool(&priv, info->strict);
	wj_private_put_int(&priv, info->strategy);
	wj_private_put_bool(&priv, info->share_versions);
	wj_keypart_plan_put(&priv, &info->split);
	wj_private_put_int(&priv, info->nouter);
	wj_private_put_int(&priv, info->nkeys);
	wj_private_put_int(&priv, info->ntol);

	for (i = 0; i < info->nkeys; i++)
	{
		asof_put_cmp(&priv, &info->key_cmps[i]);
		wj_private_put_int(&priv, info->key_attnos[i]);
		wj_private_put_oid(&priv, info->key_hashfuncs[i]);
		wj_private_put_oid(&priv, info->key_eqfuncs[i]);
	}

	asof_put_cmp(&priv, &info->time_cmp);
	wj_private_put_int(&priv, info->time_attno);

	for (i = 0; i < info->ntol; i++)
	{
		asof_put_cmp(&priv, &info->tol_cmps[i]);
		wj_private_put_bool(&priv, info->tol_strict[i]);
		wj_private_put_bool(&priv, info->tol_upper[i]);
	}

	wj_private_put_bool(&priv, info->nearest);
	wj_private_put_oid(&priv, info->near_distfunc);
	wj_private_put_oid(&priv, info->near_ltop);
	wj_private_put_oid(&priv, info->near_type);
	wj_private_put_bool(&priv, info->near_inner_first);
	wj_private_put_bool(&priv, info->near_keep_nulls);
	return priv;
}

/*
 * asof_info_from_private
 *		Decode a custom_private list written by asof_info_to_private into
 *		*info; the arrays are palloc'd in the current memory context.
 */
void
asof_info_from_private(List *priv, AsOfPlanInfo *info)
{
	WjPrivateReader reader;
	int			i;

	wj_private_reader_init(&reader, priv, ASOF_NAME);
	memset(info, 0, sizeof(AsOfPlanInfo));
	info->jointype = (JoinType) wj_private_get_int(&reader);
	info->forward = wj_private_get_bool(&reader);
	info->strict = wj_private_get_bool(&reader);
	info->strategy = wj_private_get_int(&reader);
	info->share_versions = wj_private_get_bool(&reader);
	wj_keypart_plan_get(&reader, &info->split);
	info->nouter = wj_private_get_int(&reader);
	info->nkeys = wj_private_get_int(&reader);
	info->ntol = wj_private_get_int(&reader);
	if (info->nkeys < 0 || info->ntol < 0)
		elog(ERROR, "%s: custom_private has %d keys and %d tolerance bounds",
			 ASOF_NAME, info->nkeys, info->ntol);

	info->key_cmps = palloc0(sizeof(AsOfCmpInfo) * Max(info->nkeys, 1));
	info->key_attnos = palloc0(sizeof(AttrNumber) * Max(info->nkeys, 1));
	info->key_hashfuncs = palloc0(sizeof(Oid) * Max(info->nkeys, 1));
	info->key_eqfuncs = palloc0(sizeof(Oid) * Max(info->nkeys, 1));
	for (i = 0; i < info->nkeys; i++)
	{
		asof_get_cmp(&reader, &info->key_cmps[i]);
		info->key_attnos[i] = (AttrNumber) wj_private_get_int(&reader);
		info->key_hashfuncs[i] = wj_private_get_oid(&reader);
		info->key_eqfuncs[i] = wj_private_get_oid(&reader);
	}

	asof_get_cmp(&reader, &info->time_cmp);
	info->time_attno = (AttrNumber) wj_private_get_int(&reader);

	info->tol_cmps = palloc0(sizeof(AsOfCmpInfo) * Max(info->ntol, 1));
	info->tol_strict = palloc0(sizeof(bool) * Max(info->ntol, 1));
	info->tol_upper = palloc0(sizeof(bool) * Max(info->ntol, 1));
	for (i = 0; i < info->ntol; i++)
	{
		asof_get_cmp(&reader, &info->tol_cmps[i]);
		info->tol_strict[i] = wj_private_get_bool(&reader);
		info->tol_upper[i] = wj_private_get_bool(&reader);
	}

	info->nearest = wj_private_get_bool(&reader);
	info->near_distfunc = wj_private_get_oid(&reader);
	info->near_ltop = wj_private_get_oid(&reader);
	info->near_type = wj_private_get_oid(&reader);
	info->near_inner_first = wj_private_get_bool(&reader);
	info->near_keep_nulls = wj_private_get_bool(&reader);
	wj_private_reader_done(&reader);
}
