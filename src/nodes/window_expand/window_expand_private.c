/*-------------------------------------------------------------------------
 *
 * window_expand_private.c
 *	  The WindowExpand plan's private data: window_expand.h's fields in
 *	  CustomScan.custom_private, written by the planner and read by the
 *	  executor, through the one codec of plan_private.h.
 *
 * src/nodes/window_expand/window_expand_private.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "src/common/plan_private.h"
#include "src/nodes/window_expand/window_expand.h"

/*
 * window_expand_info_to_private
 *		Encode a WindowExpandPlanInfo as CustomScan.custom_private
 *		(plan_private.h).  window_expand_info_from_private reads the fields
 *		in the same order.
 */
List *
window_expand_info_to_private(const WindowExpandPlanInfo *info)
{
	List	   *priv = NIL;

	wj_private_put_int(&priv, (int) info->kind);
	wj_private_put_int64(&priv, info->every);
	wj_private_put_int64(&priv, info->size);
	wj_private_put_int64(&priv, info->offset);
	wj_private_put_int64(&priv, info->pane);
	return priv;
}

/*
 * window_expand_info_from_private
 *		Decode CustomScan.custom_private into *info.
 */
void
window_expand_info_from_private(List *priv, WindowExpandPlanInfo *info)
{
	WjPrivateReader r;

	wj_private_reader_init(&r, priv, "WindowExpand");
	info->kind = (WindowExpandKind) wj_private_get_int(&r);
	info->every = wj_private_get_int64(&r);
	info->size = wj_private_get_int64(&r);
	info->offset = wj_private_get_int64(&r);
	info->pane = wj_private_get_int64(&r);
	wj_private_reader_done(&r);
}
