/*-------------------------------------------------------------------------
 *
 * join_nulling.c
 *	  The nulling relations of a join CustomScan's columns (PostgreSQL 16
 *	  and later): its scan tuple and its own expressions take those of its
 *	  output, so that setrefs.c matches them.
 *
 * src/common/join_nulling.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nodes/nodeFuncs.h"

#include "src/common/join_nulling.h"

/*
 * wj_custom_join_nullingrels
 *		Make a join CustomScan's scan tuple agree with its output about
 *		which outer joins null each column.
 *
 * Since PostgreSQL 16 a Var says which outer joins may have nulled it
 * (varnullingrels), and setrefs.c matches the Vars of a CustomScan's
 * targetlist, qual and custom_exprs to its custom_scan_tlist requiring
 * equal sets.  The output of an outer join done by one of our nodes has
 * its nullable side's columns nulled by that join, while the scan tuple
 * holds the children's columns, and the join conditions in custom_exprs
 * see them before the join: not equal.  The sets mean nothing once the
 * Vars refer to the scan tuple by position, so the scan tuple's and the
 * node's own expressions (custom_exprs, qual) take, column by column, the
 * sets of the output: those of the join relation's target (the
 * targetlist is often not there yet: a projection above gives the node its
 * own later), then of the targetlist and the qual.  The targetlist itself
 * is left alone: the plan above matches its own Vars to it.
 *
 * Called last in PlanCustomPath, once nothing copies the node's
 * expressions into the plans below any more.  Nothing to do before 16.
 */
#if PG_VERSION_NUM >= 160000
typedef struct WjNulling
{
	List	   *vars;			/* output Vars, the first of each column */
	List	   *phvs;			/* output PlaceHolderVars, first of each */
} WjNulling;

static bool
nulling_collect_walker(Node *node, WjNulling *out)
{
	ListCell   *lc;

	if (node == NULL)
		return false;
	if (IsA(node, Var))
	{
		Var		   *var = (Var *) node;

		if (var->varlevelsup != 0)
			return false;
		foreach(lc, out->vars)
		{
			Var		   *seen = (Var *) lfirst(lc);

			if (seen->varno == var->varno && seen->varattno == var->varattno)
				return false;
		}
		out->vars = lappend(out->vars, var);
		return false;
	}
	if (IsA(node, PlaceHolderVar))
	{
		PlaceHolderVar *phv = (PlaceHolderVar *) node;
		bool		seen = false;

		foreach(lc, out->phvs)
			seen |= ((PlaceHolderVar *) lfirst(lc))->phid == phv->phid;
		if (phv->phlevelsup == 0 && !seen)
			out->phvs = lappend(out->phvs, phv);
		/* its expression is evaluated below the joins that null the PHV */
		return false;
	}
	return expression_tree_walker(node, nulling_collect_walker, out);
}

static Node *
nulling_apply_mutator(Node *node, WjNulling *out)
{
	ListCell   *lc;

	if (node == NULL)
		return NULL;
	if (IsA(node, Var))
	{
		Var		   *var = copyObject((Var *) node);

		if (var->varlevelsup != 0)
			return (Node *) var;
		foreach(lc, out->vars)
		{
			Var		   *o = (Var *) lfirst(lc);

			if (o->varno == var->varno && o->varattno == var->varattno)
			{
				var->varnullingrels = bms_copy(o->varnullingrels);
				break;
			}
		}
		return (Node *) var;
	}
	if (IsA(node, PlaceHolderVar))
	{
		/* matched as a whole (by phid); its expression is left alone */
		PlaceHolderVar *phv = copyObject((PlaceHolderVar *) node);

		if (phv->phlevelsup != 0)
			return (Node *) phv;
		foreach(lc, out->phvs)
		{
			PlaceHolderVar *o = (PlaceHolderVar *) lfirst(lc);

			if (o->phid == phv->phid)
			{
				phv->phnullingrels = bms_copy(o->phnullingrels);
				break;
			}
		}
		return (Node *) phv;
	}
	return expression_tree_mutator(node, nulling_apply_mutator, out);
}

void
wj_custom_join_nullingrels(CustomScan *cscan, RelOptInfo *rel)
{
	WjNulling	out = {NIL, NIL};

	(void) nulling_collect_walker((Node *) rel->reltarget->exprs, &out);
	(void) nulling_collect_walker((Node *) cscan->scan.plan.targetlist, &out);
	(void) nulling_collect_walker((Node *) cscan->scan.plan.qual, &out);
	cscan->custom_scan_tlist = (List *)
		nulling_apply_mutator((Node *) cscan->custom_scan_tlist, &out);
	cscan->custom_exprs = (List *)
		nulling_apply_mutator((Node *) cscan->custom_exprs, &out);
	cscan->scan.plan.qual = (List *)
		nulling_apply_mutator((Node *) cscan->scan.plan.qual, &out);
}
#endif
