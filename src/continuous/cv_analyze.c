/*-------------------------------------------------------------------------
 *
 * cv_analyze.c
 *	  Recognise the query of a continuous window view and derive the
 *	  query a refresh runs.
 *
 * windowjoin.create_view() hands the view's query text to
 * windowjoin._analyze_view_query(), which parses and analyses it as the
 * calling user and accepts exactly two shapes:
 *
 *	  TVF shape:	  SELECT ... FROM src, tumble|hop|cumulate(src.t, ...)
 *					  [WHERE ...] GROUP BY ..., window_start, window_end, ...
 *					  [HAVING ...]
 *	  session shape:  SELECT ... FROM (SELECT ..., session(t, gap)
 *								  OVER (PARTITION BY ... ORDER BY t) ...
 *								FROM src [WHERE ...]) s
 *					  [WHERE ...] GROUP BY ..., window_start, window_end, ...
 *
 * where src is one plain or partitioned table, the window parameters are
 * constants and window_start/window_end are output columns taken from the
 * window function.  Anything else is refused with SQLSTATE 0A000 and a
 * message naming the construct.
 *
 * The answer describes the window (kind, size, slide or step, offset,
 * gap), the source table and its time column, and the "range query": the
 * view's query with "t >= $1 AND t < $2" added to the source's own quals.
 * Every window lies inside [window_start, window_end), and a session with
 * all its rows and the gap before it inside [lo, hi) is computed exactly
 * from the rows in [lo, hi), so a refresh recomputes any set of windows
 * from an index range scan of the source (see windowjoin--0.2--0.3.sql).
 * The range query is deparsed with search_path = pg_catalog so that every
 * name in it is schema-qualified (cv_query.c), and refresh runs it with a
 * fixed search_path.  It also names the pane columns of a view that keeps
 * partial states, and windowjoin._pane_queries() derives that view's pane,
 * combine and merge queries (cv_panes.c).
 *
 * src/continuous/cv_analyze.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/stratnum.h"
#include "catalog/dependency.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "commands/extension.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/analyze.h"
#include "tcop/tcopprot.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "parser/parsetree.h"
#include "parser/parse_relation.h"
#include "utils/datetime.h"
#include "utils/ruleutils.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "src/common/catalog_cache.h"
#include "src/common/window_arith.h"
#include "src/continuous/continuous.h"
#include "src/continuous/cv_shape.h"

PG_FUNCTION_INFO_V1(wj_analyze_view_query);
PG_FUNCTION_INFO_V1(wj_view_pane_queries);

/*
 * cv_unsupported
 *		Refuse the query, naming the construct.
 */
void
cv_unsupported(const char *construct, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("continuous views do not support %s", construct),
			 hint ? errhint("%s", hint) : 0));
}

/*
 * cv_check_select
 *		What no query level of any view, aggregate or join, may use.
 */
void
cv_check_select(Query *q)
{
	if (q->commandType != CMD_SELECT || q->utilityStmt != NULL)
		cv_unsupported("statements other than SELECT", NULL);
	if (q->cteList != NIL)
		cv_unsupported("WITH queries", NULL);
	if (q->setOperations != NULL)
		cv_unsupported("UNION, INTERSECT or EXCEPT", NULL);
	if (q->hasTargetSRFs)
		cv_unsupported("set-returning functions in the select list", NULL);
	if (q->rowMarks != NIL)
		cv_unsupported("FOR UPDATE or FOR SHARE", NULL);
	if (q->groupingSets != NIL)
		cv_unsupported("GROUPING SETS, ROLLUP or CUBE", NULL);
}

/*
 * cv_check_plain_query
 *		The constructs a query of either shape (or the session shape's
 *		inner query, or an interval or as-of join) must not use.
 */
void
cv_check_plain_query(Query *q)
{
	cv_check_select(q);
	if (q->hasSubLinks)
		cv_unsupported("subqueries in expressions", NULL);
	if (q->distinctClause != NIL)
		cv_unsupported("DISTINCT", NULL);
	if (q->sortClause != NIL)
		cv_unsupported("ORDER BY", "Order the rows when reading the view.");
	if (q->limitCount != NULL || q->limitOffset != NULL)
		cv_unsupported("LIMIT or OFFSET", NULL);
}

/*
 * cv_check_source
 *		The source RTE must be a plain or partitioned table the caller may
 *		read: analysis tells nothing of a table its caller could not query.
 */
Oid
cv_check_source(RangeTblEntry *rte)
{
	if (rte->rtekind != RTE_RELATION ||
		(rte->relkind != RELKIND_RELATION &&
		 rte->relkind != RELKIND_PARTITIONED_TABLE))
		cv_unsupported("sources other than a plain or partitioned table",
					   "A continuous view reads one table: FROM source, tumble(...) or FROM (SELECT ..., session(...) OVER (...) FROM source) s.");
	if (rte->tablesample != NULL)
		cv_unsupported("TABLESAMPLE", NULL);
	if (pg_class_aclcheck(rte->relid, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
		aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_TABLE, get_rel_name(rte->relid));
	return rte->relid;
}

/*
 * cv_interval_arg
 *		A window parameter: a non-null interval constant (after folding),
 *		with no month part.
 */
static Datum
cv_interval_arg(Node *arg, const char *what)
{
	Node	   *folded = eval_const_expressions(NULL, arg);
	Interval   *iv;

	if (!IsA(folded, Const) || ((Const *) folded)->consttype != INTERVALOID)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("continuous views need a constant %s", what)));
	if (((Const *) folded)->constisnull)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the %s of a continuous view must not be null", what)));
	iv = DatumGetIntervalP(((Const *) folded)->constvalue);
	if (iv->month != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the %s of a continuous view must not have a month or year part", what)));

	/*
	 * Checked here as the window functions check it when they run, so that
	 * a view no refresh could compute is never created: a length is
	 * positive and at least WJ_MIN_WINDOW_USECS, an offset within range.
	 */
	if (strcmp(what, "window offset") == 0)
		(void) wj_interval_offset(iv);
	else
		(void) wj_interval_duration(iv, what);
	return ((Const *) folded)->constvalue;
}

/*
 * cv_offset_arg
 *		The window offset: the argument if given, else 0.
 */
static Datum
cv_offset_arg(Node *arg)
{
	if (arg != NULL)
		return cv_interval_arg(arg, "window offset");
	return DirectFunctionCall3(interval_in, CStringGetDatum("0"),
							   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
}

/*
 * cv_check_stride
 *		A hop slide or cumulate step against the window size, as the window
 *		functions check them: a cumulate step divides its size.
 */
static void
cv_check_stride(const CvShape *shape)
{
	int64		size;
	int64		stride;

	if (!wj_interval_usecs(DatumGetIntervalP(shape->size), &size) ||
		!wj_interval_usecs(DatumGetIntervalP(shape->stride), &stride))
		return;					/* cv_interval_arg raised already */
	if (strcmp(shape->kind, "cumulate") == 0 && size % stride != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cumulate size must be a whole multiple of step"),
				 errdetail("The size is %lld microseconds and the step is %lld microseconds.",
						   (long long) size, (long long) stride),
				 errhint("Choose a step that divides the size, for example step '1 hour' with size '1 day'.")));
}

/*
 * cv_time_var
 *		The time argument: a column of the source table (range table index
 *		srcidx) of type timestamp or timestamptz.
 */
static Var *
cv_time_var(Node *arg, Index srcidx)
{
	Var		   *var;

	if (!IsA(arg, Var) || ((Var *) arg)->varno != srcidx ||
		((Var *) arg)->varlevelsup != 0 || ((Var *) arg)->varattno <= 0)
		cv_unsupported("a time argument that is not a column of the source table",
					   "Pass the event-time column itself, e.g. tumble(bidtime, interval '1 minute').");
	var = (Var *) arg;
	if (var->vartype != TIMESTAMPOID && var->vartype != TIMESTAMPTZOID)
		cv_unsupported("a time column that is not timestamp or timestamptz", NULL);
	return var;
}

/*
 * cv_is_tvf
 *		Is funcid windowjoin's tumble, hop or cumulate?  Returns the name.
 */
const char *
cv_is_tvf(Oid funcid)
{
	Oid			ext = get_extension_oid("windowjoin", true);
	char	   *name;

	if (!OidIsValid(ext) ||
		getExtensionOfObject(ProcedureRelationId, funcid) != ext)
		return NULL;
	name = get_func_name(funcid);
	if (name == NULL)
		return NULL;
	if (strcmp(name, "tumble") == 0)
		return "tumble";
	if (strcmp(name, "hop") == 0)
		return "hop";
	if (strcmp(name, "cumulate") == 0)
		return "cumulate";
	return NULL;
}

/*
 * cv_positional_args
 *		The function's arguments by position, named ones placed where they
 *		belong; missing (defaulted) ones are NULL.
 */
static void
cv_positional_args(List *args, Node **pos, int npos)
{
	ListCell   *lc;
	int			i = 0;

	memset(pos, 0, sizeof(Node *) * npos);
	foreach(lc, args)
	{
		Node	   *arg = lfirst(lc);

		if (IsA(arg, NamedArgExpr))
		{
			NamedArgExpr *na = (NamedArgExpr *) arg;

			if (na->argnumber >= 0 && na->argnumber < npos)
				pos[na->argnumber] = (Node *) na->arg;
		}
		else if (i < npos)
			pos[i] = arg;
		i++;
	}
}

/*
 * cv_source_rtes
 *		The range table entries of q other than RTE_GROUP.
 */
static int
cv_source_rtes(Query *q)
{
	ListCell   *lc;
	int			n = 0;

	foreach(lc, q->rtable)
		if (!cv_is_group_rte(lfirst(lc)))
			n++;
	return n;
}

/*
 * cv_only_subquery_rte
 *		The range table entry of the subquery q reads FROM, if FROM is that
 *		subquery alone; else NULL.
 */
RangeTblEntry *
cv_only_subquery_rte(Query *q)
{
	RangeTblEntry *rte;

	if (cv_source_rtes(q) != 1 || list_length(q->jointree->fromlist) != 1 ||
		!IsA(linitial(q->jointree->fromlist), RangeTblRef))
		return NULL;
	rte = rt_fetch(linitial_node(RangeTblRef, q->jointree->fromlist)->rtindex, q->rtable);
	return rte->rtekind == RTE_SUBQUERY ? rte : NULL;
}

/*
 * cv_require_window_column
 *		The output column name must exist, be grouped on, and (checked by
 *		is_window_column) come from the window function's column fieldnum.
 */
TargetEntry *
cv_require_window_column(Query *q, const char *name)
{
	TargetEntry *tle = cv_output_column(q, name);

	if (tle == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("the query of a continuous view must return a column named %s", name),
				 errhint("Select window_start and window_end, and group by them.")));
	if (tle->ressortgroupref == 0 ||
		get_sortgroupref_clause_noerr(tle->ressortgroupref, q->groupClause) == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("the query of a continuous view must group by %s", name)));
	return tle;
}

/*
 * cv_window_column
 *		The output column name (window_start, window_end) of a window shape's
 *		query: grouped on (cv_require_window_column) when grouped, else only
 *		selected; an error if q has none.
 */
static TargetEntry *
cv_window_column(Query *q, const char *name, bool grouped)
{
	TargetEntry *tle = grouped ? cv_require_window_column(q, name) :
		cv_output_column(q, name);

	if (tle == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("the query of a continuous view must return a column named %s", name),
				 errhint("Select window_start and window_end.")));
	return tle;
}

/*
 * cv_analyze_tvf
 *		The TVF shape: FROM src, tumble|hop|cumulate(src.t, ...), grouped
 *		by window_start and window_end -- or, for the rows a window Top-N
 *		ranks (cv_topn.c), not grouped, with window_start and window_end
 *		selected as they are.
 */
void
cv_analyze_tvf(Query *q, CvShape *shape, bool grouped)
{
	Index		srcidx = 0;
	Index		fnidx = 0;
	Var		   *timevar;
	ListCell   *lc;
	Index		i = 0;
	const char *names[2] = {"window_start", "window_end"};

	foreach(lc, q->rtable)
	{
		RangeTblEntry *rte = lfirst(lc);

		i++;
		if (cv_is_group_rte(rte))
			continue;
		if (rte->rtekind == RTE_FUNCTION && fnidx == 0)
			fnidx = i;
		else if (rte->rtekind == RTE_RELATION && srcidx == 0)
			srcidx = i;
		else
			cv_unsupported("joins or more than one table",
						   "A continuous view reads one table and one window function.");
	}
	if (srcidx == 0 || fnidx == 0 || list_length(q->jointree->fromlist) != 2)
		cv_unsupported("a FROM clause other than \"source, window function\"",
					   "Write FROM source, tumble(time_column, ...).");
	foreach(lc, q->jointree->fromlist)
		if (!IsA(lfirst(lc), RangeTblRef))
			cv_unsupported("JOIN syntax", "Write FROM source, tumble(time_column, ...).");

	shape->source = cv_check_source(rt_fetch(srcidx, q->rtable));
	shape->srcidx = srcidx;
	shape->fnidx = fnidx;
	timevar = cv_tvf_params(q, srcidx, fnidx, shape);

	/* window_start and window_end: the function's first two columns */
	for (int c = 0; c < 2; c++)
	{
		TargetEntry *tle = cv_window_column(q, names[c], grouped);
		Node	   *expr = cv_ungroup(q, (Node *) tle->expr);

		if (!IsA(expr, Var) || ((Var *) expr)->varno != fnidx ||
			((Var *) expr)->varlevelsup != 0 ||
			((Var *) expr)->varattno != c + 1)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("column %s of a continuous view must be the window function's %s",
							names[c], names[c])));
	}

	shape->ranged = copyObject(q);
	cv_add_quals(shape->ranged, cv_make_range_quals(timevar, 1, 2));
}

/*
 * cv_tvf_params
 *		The window of FROM src, tumble|hop|cumulate(src.t, ...) (range table
 *		entries srcidx and fnidx of q) into shape; returns the time column.
 */
Var *
cv_tvf_params(Query *q, Index srcidx, Index fnidx, CvShape *shape)
{
	RangeTblEntry *fnrte;
	RangeTblFunction *rtfunc;
	FuncExpr   *fexpr;
	Node	   *args[4];
	Var		   *timevar;

	fnrte = rt_fetch(fnidx, q->rtable);
	if (list_length(fnrte->functions) != 1 || fnrte->funcordinality)
		cv_unsupported("ROWS FROM or WITH ORDINALITY", NULL);
	rtfunc = linitial(fnrte->functions);
	if (!IsA(rtfunc->funcexpr, FuncExpr) ||
		(shape->kind = cv_is_tvf(((FuncExpr *) rtfunc->funcexpr)->funcid)) == NULL)
		cv_unsupported("functions in FROM other than tumble, hop and cumulate",
					   NULL);
	fexpr = (FuncExpr *) rtfunc->funcexpr;
	cv_positional_args(fexpr->args, args, 4);

	timevar = cv_time_var(args[0], srcidx);
	shape->timeattno = timevar->varattno;
	shape->timetype = timevar->vartype;
	if (strcmp(shape->kind, "tumble") == 0)
	{
		shape->size = cv_interval_arg(args[1], "window size");
		shape->offset = cv_offset_arg(args[2]);
	}
	else
	{
		shape->stride = cv_interval_arg(args[1], strcmp(shape->kind, "hop") == 0 ?
										"window slide" : "window step");
		shape->has_stride = true;
		shape->size = cv_interval_arg(args[2], "window size");
		shape->offset = cv_offset_arg(args[3]);
		cv_check_stride(shape);
	}
	return timevar;
}

/*
 * cv_session_call
 *		If expr is session(...) OVER ..., or (session(...) OVER ...).field,
 *		return the WindowFunc (and the field number, 0 for the whole
 *		composite).
 */
static WindowFunc *
cv_session_call(Node *expr, int *fieldnum)
{
	*fieldnum = 0;
	if (IsA(expr, FieldSelect))
	{
		*fieldnum = ((FieldSelect *) expr)->fieldnum;
		expr = (Node *) ((FieldSelect *) expr)->arg;
	}
	if (IsA(expr, WindowFunc) &&
		wj_func_of(((WindowFunc *) expr)->winfnoid) == WJF_SESSION)
		return (WindowFunc *) expr;
	return NULL;
}

/*
 * cv_window_funcs_walker
 *		Collect every WindowFunc of an expression tree.
 */
bool
cv_window_funcs_walker(Node *node, List **found)
{
	if (node == NULL)
		return false;
	if (IsA(node, WindowFunc))
	{
		*found = lappend(*found, node);
		return false;
	}
	return expression_tree_walker(node, cv_window_funcs_walker, (void *) found);
}

/*
 * cv_analyze_session
 *		The session shape: FROM (SELECT ..., session(t, gap) OVER (PARTITION
 *		BY ... ORDER BY t) ... FROM src [WHERE ...]) s, grouped by
 *		window_start and window_end -- or, for the rows a window Top-N ranks
 *		(cv_topn.c), not grouped, with window_start and window_end selected
 *		as they are.
 */
void
cv_analyze_session(Query *q, CvShape *shape, bool grouped)
{
	RangeTblEntry *subrte;
	Query	   *sub;
	WindowFunc *session = NULL;
	WindowClause *wc;
	SortGroupClause *sortcl;
	TargetEntry *ordertle;
	List	   *wfuncs = NIL;
	Var		   *timevar;
	ListCell   *lc;
	const char *names[2] = {"window_start", "window_end"};

	if (cv_source_rtes(q) != 1 || list_length(q->jointree->fromlist) != 1 ||
		!IsA(linitial(q->jointree->fromlist), RangeTblRef))
		cv_unsupported("joins or more than one table",
					   "A continuous session view reads one subquery over one table.");
	subrte = rt_fetch(linitial_node(RangeTblRef, q->jointree->fromlist)->rtindex,
					  q->rtable);
	sub = subrte->subquery;
	if (!sub->hasWindowFuncs)
		cv_unsupported("a subquery in FROM without session()",
					   "Write FROM source, tumble(time_column, ...) or FROM (SELECT ..., session(t, gap) OVER (...) FROM source) s.");
	cv_check_plain_query(sub);
	if (sub->hasAggs || sub->groupClause != NIL || sub->havingQual != NULL)
		cv_unsupported("aggregation inside the session subquery", NULL);
	if (list_length(sub->rtable) != 1 || list_length(sub->jointree->fromlist) != 1 ||
		!IsA(linitial(sub->jointree->fromlist), RangeTblRef))
		cv_unsupported("joins or more than one table",
					   "A continuous session view reads one subquery over one table.");
	shape->source = cv_check_source(linitial(sub->rtable));

	cv_window_funcs_walker((Node *) sub->targetList, &wfuncs);
	foreach(lc, wfuncs)
	{
		WindowFunc *wf = lfirst(lc);

		if (wj_func_of(wf->winfnoid) != WJF_SESSION)
			cv_unsupported("window functions other than session()", NULL);
		if (session != NULL && !equal(session, wf))
			cv_unsupported("more than one session() call", NULL);
		session = wf;
	}
	if (session == NULL)
		cv_unsupported("a subquery in FROM without session()",
					   "Write FROM source, tumble(time_column, ...) or FROM (SELECT ..., session(t, gap) OVER (...) FROM source) s.");
	if (list_length(sub->windowClause) != 1)
		cv_unsupported("more than one window", NULL);
	wc = linitial(sub->windowClause);
	if (wc->frameOptions != FRAMEOPTION_DEFAULTS)
		cv_unsupported("window frame clauses", NULL);
	if (list_length(wc->orderClause) != 1)
		cv_unsupported("a session window not ordered by its time column alone",
					   "Write session(t, gap) OVER (PARTITION BY ... ORDER BY t).");

	timevar = cv_time_var(linitial(session->args), 1);
	sortcl = linitial(wc->orderClause);
	ordertle = get_sortgroupclause_tle(sortcl, sub->targetList);
	if (!equal(ordertle->expr, timevar))
		cv_unsupported("a session window not ordered by its time column",
					   "Write session(t, gap) OVER (PARTITION BY ... ORDER BY t).");
	shape->kind = "session";
	shape->timeattno = timevar->varattno;
	shape->timetype = timevar->vartype;
	shape->gap = cv_interval_arg(lsecond(session->args), "session gap");
	shape->has_gap = true;

	/*
	 * window_start and window_end: a field of the session() result, taken
	 * in the subquery or in the outer query.
	 */
	for (int c = 0; c < 2; c++)
	{
		TargetEntry *tle = cv_window_column(q, names[c], grouped);
		Node	   *expr = cv_ungroup(q, (Node *) tle->expr);
		int			outerfield = 0;
		Index		subidx = linitial_node(RangeTblRef, q->jointree->fromlist)->rtindex;
		int			innerfield = 0;
		bool		ok = false;

		if (IsA(expr, FieldSelect))
		{
			outerfield = ((FieldSelect *) expr)->fieldnum;
			expr = (Node *) ((FieldSelect *) expr)->arg;
		}
		if (IsA(expr, Var) && ((Var *) expr)->varno == subidx &&
			((Var *) expr)->varlevelsup == 0 && ((Var *) expr)->varattno > 0)
		{
			TargetEntry *subtle = get_tle_by_resno(sub->targetList,
												   ((Var *) expr)->varattno);

			if (subtle && cv_session_call((Node *) subtle->expr, &innerfield))
				ok = (outerfield == 0 && innerfield == c + 1) ||
					(outerfield == c + 1 && innerfield == 0);
		}
		if (!ok)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("column %s of a continuous view must be the session window's %s",
							names[c], names[c])));
	}

	shape->srcidx = linitial_node(RangeTblRef, q->jointree->fromlist)->rtindex;
	foreach(lc, wc->partitionClause)
	{
		TargetEntry *ptle = get_sortgroupclause_tle(lfirst(lc), sub->targetList);

		shape->partattnos = lappend_int(shape->partattnos,
										ptle->resjunk ? 0 : ptle->resno);
	}
	shape->ranged = copyObject(q);
	cv_add_quals(rt_fetch(linitial_node(RangeTblRef, q->jointree->fromlist)->rtindex,
						  shape->ranged->rtable)->subquery,
				 cv_make_range_quals(timevar, 1, 2));
}

/* a relation map: from[i] is read as to[i] */
typedef struct CvRelMap
{
	int			n;
	Oid		   *from;
	Oid		   *to;
} CvRelMap;

/*
 * cv_relmap_walker
 *		Replace the mapped relations in every range table (and, from 16 on,
 *		permission entry) of a query tree.
 */
static bool
cv_relmap_walker(Node *node, CvRelMap *map)
{
	if (node == NULL)
		return false;
	if (IsA(node, RangeTblEntry))
	{
		RangeTblEntry *rte = (RangeTblEntry *) node;

		if (rte->rtekind == RTE_RELATION)
			for (int i = 0; i < map->n; i++)
				if (rte->relid == map->from[i])
				{
					rte->relid = map->to[i];
					rte->relkind = get_rel_relkind(map->to[i]);
					break;
				}
		return false;
	}
	if (IsA(node, Query))
	{
#if PG_VERSION_NUM >= 160000
		ListCell   *lc;

		foreach(lc, ((Query *) node)->rteperminfos)
		{
			RTEPermissionInfo *perm = lfirst(lc);

			for (int i = 0; i < map->n; i++)
				if (perm->relid == map->from[i])
				{
					perm->relid = map->to[i];
					break;
				}
		}
#endif
		return query_tree_walker((Query *) node, cv_relmap_walker, (void *) map,
								 QTW_EXAMINE_RTES_BEFORE);
	}
	return expression_tree_walker(node, cv_relmap_walker, (void *) map);
}

/*
 * cv_relmap
 *		The relation map of a regclass[] of (from, to) pairs; NULL for none.
 */
static CvRelMap *
cv_relmap(ArrayType *arr)
{
	Datum	   *elems;
	bool	   *nulls;
	int			n;
	CvRelMap   *map;

	if (arr == NULL)
		return NULL;
	deconstruct_array(arr, REGCLASSOID, sizeof(Oid), true, TYPALIGN_INT,
					  &elems, &nulls, &n);
	if (n % 2 != 0)
		elog(ERROR, "a relation map has pairs of relations");
	map = palloc(sizeof(CvRelMap));
	map->n = n / 2;
	map->from = palloc(sizeof(Oid) * (map->n + 1));
	map->to = palloc(sizeof(Oid) * (map->n + 1));
	for (int i = 0; i < map->n; i++)
	{
		if (nulls[2 * i] || nulls[2 * i + 1])
			elog(ERROR, "a relation map has no nulls");
		map->from[i] = DatumGetObjectId(elems[2 * i]);
		map->to[i] = DatumGetObjectId(elems[2 * i + 1]);
	}
	return map;
}

/*
 * cv_analyze_text
 *		Parse and analyse a view's query as the calling user and find its
 *		shape; an error naming what is not supported.
 */
static Query *
cv_analyze_text(const char *sql, CvRelMap *map, CvShape *shape)
{
	List	   *raws;
	RawStmt    *raw;
	Query	   *q;

	memset(shape, 0, sizeof(*shape));
	raws = pg_parse_query(sql);
	if (list_length(raws) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the query of a continuous view must be a single SELECT")));
	raw = linitial_node(RawStmt, raws);
	if (!IsA(raw->stmt, SelectStmt))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the query of a continuous view must be a single SELECT")));
	q = parse_analyze_fixedparams(raw, sql, NULL, 0, NULL);

	/* a Citus shard's view reads the shards of the query's tables */
	if (map != NULL)
		cv_relmap_walker((Node *) q, map);

	/* two tables: a window, interval or as-of join (cv_join_analyze.c) */
	if (cv_is_join_query(q))
	{
		cv_analyze_join(q, shape);
		return q;
	}

	/* a window Top-N or deduplication (cv_topn.c) */
	if (cv_is_topn_query(q))
	{
		cv_analyze_topn(q, shape);
		return q;
	}

	cv_check_plain_query(q);
	if (q->groupClause == NIL)
		cv_unsupported("queries without GROUP BY",
					   "Group by window_start and window_end (and any keys).");
	if (contain_volatile_functions((Node *) q))
		cv_unsupported("volatile functions", NULL);

	if (q->hasWindowFuncs)
		cv_unsupported("window functions over the aggregated rows", NULL);
	if (cv_only_subquery_rte(q) != NULL)
		cv_analyze_session(q, shape, true);
	else
		cv_analyze_tvf(q, shape, true);
	return q;
}

/*
 * wj_analyze_view_query
 *		windowjoin._analyze_view_query(query text): the shape of a
 *		continuous view's query, or an error naming what is not supported.
 *		pane_columns is NULL unless the view keeps pane partial states
 *		(cv_panes.c).
 */
Datum
wj_analyze_view_query(PG_FUNCTION_ARGS)
{
	char	   *sql;
	Query	   *q;
	CvShape		shape;
	TupleDesc	tupdesc;
	Datum		values[18];
	bool		nulls[18];
	bool		band;
	char	   *pane_columns;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the query of a continuous view must not be null")));
	sql = text_to_cstring(PG_GETARG_TEXT_PP(0));
	q = cv_analyze_text(sql, PG_ARGISNULL(1) ? NULL : cv_relmap(PG_GETARG_ARRAYTYPE_P(1)),
						&shape);
	pane_columns = shape.join ? NULL : cv_pane_columns(q, &shape);

	memset(nulls, 0, sizeof(nulls));
	values[0] = CStringGetTextDatum(shape.kind);
	values[1] = ObjectIdGetDatum(shape.source);
	values[2] = CStringGetDatum(get_attname(shape.source, shape.timeattno, false));
	values[2] = DirectFunctionCall1(namein, values[2]);
	values[3] = ObjectIdGetDatum(shape.timetype);
	band = shape.join && strcmp(shape.join, "window") != 0;
	values[4] = shape.size;
	nulls[4] = shape.has_gap || band;
	values[5] = shape.stride;
	nulls[5] = !shape.has_stride;
	values[6] = shape.offset;
	nulls[6] = shape.has_gap || band;
	values[7] = shape.gap;
	nulls[7] = !shape.has_gap;
	values[8] = CStringGetTextDatum(cv_deparse(shape.ranged));
	values[9] = CStringGetTextDatum(cv_deparse(q));
	if (pane_columns)
		values[10] = CStringGetTextDatum(pane_columns);
	nulls[10] = (pane_columns == NULL);

	/* join views */
	nulls[11] = nulls[12] = nulls[13] = nulls[14] = nulls[15] = nulls[16] =
		nulls[17] = true;
	if (shape.join)
	{
		values[11] = CStringGetTextDatum(shape.join);
		values[12] = CStringGetTextDatum(shape.jointype);
		values[13] = ObjectIdGetDatum(shape.source2);
		values[14] = DirectFunctionCall1(namein,
										 CStringGetDatum(get_attname(shape.source2,
																	 shape.timeattno2,
																	 false)));
		nulls[11] = nulls[12] = nulls[13] = nulls[14] = false;
	}
	if (band)
	{
		Interval   *lo = palloc0(sizeof(Interval));
		Interval   *hi = palloc0(sizeof(Interval));

		lo->time = shape.band_lo;
		hi->time = shape.band_hi;
		values[15] = IntervalPGetDatum(lo);
		nulls[15] = !shape.has_band_lo;
		values[16] = IntervalPGetDatum(hi);
		nulls[16] = false;
	}
	if (shape.ranged_right)
	{
		values[17] = CStringGetTextDatum(cv_deparse(shape.ranged_right));
		nulls[17] = false;
	}

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/*
 * wj_view_pane_queries
 *		windowjoin._pane_queries(query text, panes regclass): the pane query,
 *		the combine query and (session) the merge query of a view keeping
 *		pane partial states in the table panes, whose columns
 *		_analyze_view_query gave.
 */
Datum
wj_view_pane_queries(PG_FUNCTION_ARGS)
{
	char	   *sql = text_to_cstring(PG_GETARG_TEXT_PP(0));
	Oid			panes = PG_GETARG_OID(1);
	CvRelMap   *map = PG_ARGISNULL(2) ? NULL : cv_relmap(PG_GETARG_ARRAYTYPE_P(2));
	Query	   *q;
	Query	   *pane_query;
	Query	   *combine_query;
	char	   *merge_query;
	CvShape		shape;
	TupleDesc	tupdesc;
	Datum		values[3];
	bool		nulls[3] = {false, false, false};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	q = cv_analyze_text(sql, map, &shape);
	cv_pane_queries(q, &shape, panes, &pane_query, &combine_query, &merge_query);
	values[0] = CStringGetTextDatum(cv_deparse(pane_query));
	values[1] = CStringGetTextDatum(cv_deparse(combine_query));
	if (merge_query)
		values[2] = CStringGetTextDatum(merge_query);
	nulls[2] = (merge_query == NULL);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
