/*-------------------------------------------------------------------------
 *
 * keypart_private.c
 *	  The key-partition sub-record of a node's custom_private.
 *
 * Every key-partitioned node (IntervalJoin, WindowJoin, SessionSort,
 * KeyExchange, AsOfJoin's split load) keeps how its plan is partitioned in
 * a WjKeyPartPlan (keypart.h) and writes it into its custom_private with
 * wj_keypart_plan_put(), at the point of its own codec where it belongs,
 * and reads it back with wj_keypart_plan_get(): the fields are spelled
 * and encoded one way for all of them (plan_private.h).
 *
 * src/parallel/keypart_private.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "src/parallel/keypart.h"

/*
 * wj_keypart_plan_none
 *		A plan that is not key-partitioned.
 */
void
wj_keypart_plan_none(WjKeyPartPlan *kp)
{
	kp->units = 0;
	kp->grain = 0;
	kp->param = -1;
	kp->exchange = false;
}

/*
 * wj_keypart_plan_put
 *		Append the sub-record to a custom_private list.
 */
void
wj_keypart_plan_put(List **priv, const WjKeyPartPlan *kp)
{
	wj_private_put_int(priv, kp->units);
	wj_private_put_int(priv, kp->grain);
	wj_private_put_int(priv, kp->param);
	wj_private_put_bool(priv, kp->exchange);
}

/*
 * wj_keypart_plan_get
 *		Read the sub-record back, in the same place of the list.
 */
void
wj_keypart_plan_get(WjPrivateReader *reader, WjKeyPartPlan *kp)
{
	kp->units = wj_private_get_int(reader);
	kp->grain = wj_private_get_int(reader);
	kp->param = wj_private_get_int(reader);
	kp->exchange = wj_private_get_bool(reader);
}
