/*-------------------------------------------------------------------------
 *
 * cv_query.c
 *	  Query-tree helpers of the continuous-view analysis: range quals on
 *	  the time column, PostgreSQL 18's grouping entry, and deparsing.
 *
 * The queries a refresh runs are derived from the view's own query as
 * trees (cv_analyze.c, cv_panes.c) and kept as text, deparsed with
 * search_path = pg_catalog so that every name in them is schema-qualified.
 *
 * src/continuous/cv_query.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/stratnum.h"
#include "catalog/pg_am.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "nodes/makefuncs.h"
#include "parser/parsetree.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/ruleutils.h"

#include "src/continuous/cv_shape.h"

/*
 * cv_make_range_quals
 *		"var >= $lo AND var < $hi", parameters of the time column's type.
 */
Node *
cv_make_range_quals(Var *var, int loparam, int hiparam)
{
	Oid			opclass = GetDefaultOpClass(var->vartype, BTREE_AM_OID);
	Oid			opfamily = get_opclass_family(opclass);
	Oid			ge = get_opfamily_member(opfamily, var->vartype, var->vartype,
										 BTGreaterEqualStrategyNumber);
	Oid			lt = get_opfamily_member(opfamily, var->vartype, var->vartype,
										 BTLessStrategyNumber);
	Param	   *lo = makeNode(Param);
	Param	   *hi;
	Expr	   *q1;
	Expr	   *q2;

	if (!OidIsValid(ge) || !OidIsValid(lt))
		elog(ERROR, "no btree comparison operators for type %u", var->vartype);

	lo->paramkind = PARAM_EXTERN;
	lo->paramid = loparam;
	lo->paramtype = var->vartype;
	lo->paramtypmod = -1;
	lo->paramcollid = InvalidOid;
	lo->location = -1;
	hi = copyObject(lo);
	hi->paramid = hiparam;

	q1 = make_opclause(ge, BOOLOID, false, (Expr *) copyObject(var),
					   (Expr *) lo, InvalidOid, InvalidOid);
	q2 = make_opclause(lt, BOOLOID, false, (Expr *) copyObject(var),
					   (Expr *) hi, InvalidOid, InvalidOid);
	((OpExpr *) q1)->opfuncid = get_opcode(ge);
	((OpExpr *) q2)->opfuncid = get_opcode(lt);
	return (Node *) make_andclause(list_make2(q1, q2));
}

/*
 * cv_add_quals
 *		AND quals into the query's WHERE clause.
 */
void
cv_add_quals(Query *q, Node *quals)
{
	if (q->jointree->quals == NULL)
		q->jointree->quals = quals;
	else
		q->jointree->quals = (Node *) make_andclause(list_make2(quals,
																q->jointree->quals));
}

/*
 * cv_is_group_rte
 *		PostgreSQL 18 adds an RTE_GROUP entry for the grouping expressions of
 *		an aggregate query; it is not a source.
 */
bool
cv_is_group_rte(RangeTblEntry *rte)
{
#if PG_VERSION_NUM >= 180000
	return rte->rtekind == RTE_GROUP;
#else
	return false;
#endif
}

/*
 * cv_ungroup
 *		From 18 on, grouped expressions of the select list are Vars of the
 *		RTE_GROUP entry: the expression they stand for.
 */
Node *
cv_ungroup(Query *q, Node *expr)
{
#if PG_VERSION_NUM >= 180000
	if (IsA(expr, Var) && ((Var *) expr)->varlevelsup == 0)
	{
		RangeTblEntry *rte = rt_fetch(((Var *) expr)->varno, q->rtable);

		if (rte->rtekind == RTE_GROUP)
			return (Node *) list_nth(rte->groupexprs, ((Var *) expr)->varattno - 1);
	}
#endif
	return expr;
}

/*
 * cv_deparse
 *		The query as text, every name schema-qualified.
 */
char *
cv_deparse(Query *q)
{
	int			nestlevel = NewGUCNestLevel();
	char	   *sql;

	(void) set_config_option("search_path", "pg_catalog",
							 PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
	sql = pg_get_querydef(q, false);
	AtEOXact_GUC(true, nestlevel);
	return sql;
}

/*
 * cv_output_column
 *		The select-list entry named name, or NULL.
 */
TargetEntry *
cv_output_column(Query *q, const char *name)
{
	ListCell   *lc;

	foreach(lc, q->targetList)
	{
		TargetEntry *tle = lfirst(lc);

		if (!tle->resjunk && tle->resname && strcmp(tle->resname, name) == 0)
			return tle;
	}
	return NULL;
}
