/*-------------------------------------------------------------------------
 *
 * exec_common.c
 *	  Executor pieces shared by the windowjoin custom scan nodes.
 *
 * Every node keeps its children in custom_ps.  ExecReScan() passes changed
 * parameters on to a node's lefttree and righttree only, so a custom scan
 * must tell its custom_ps children itself, as Append does for its
 * subplans: a child whose parameters changed rescans itself at its next
 * call, any other one is rescanned now.
 *
 * src/exec_common.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/executor.h"

#include "exec_common.h"

/*
 * wj_rescan_child
 *		Rescan child, one of node's custom_ps, from ReScanCustomScan.
 */
void
wj_rescan_child(CustomScanState *node, PlanState *child)
{
	if (node->ss.ps.chgParam != NULL)
		UpdateChangedParamSet(child, node->ss.ps.chgParam);
	if (child->chgParam == NULL)
		ExecReScan(child);
}
