/*-------------------------------------------------------------------------
 *
 * cv_derived.c
 *	  A continuous view's derived queries kept as SQL functions whose
 *	  dependencies PostgreSQL records, so that DDL on the sources follows
 *	  them or is refused.
 *
 * create_view derives, in C (cv_analyze.c, cv_panes.c, cv_join_analyze.c),
 * the statements a refresh runs: the range query (the view's query over
 * source rows in [$1, $2), and for band views the right rows of [$3, $4)),
 * the pane and combine queries of views with partial states, and the right
 * query of RIGHT and FULL interval views.  Kept as text, they named the
 * source, its schema and its columns as they were: any rename broke every
 * later refresh, and DROP COLUMN of an aggregated column went through.
 *
 * windowjoin._derive_functions(view) makes each of them a function with an
 * SQL-standard body,
 *
 *	  CREATE FUNCTION <schema>.<view>_range(timestamptz, timestamptz)
 *	  RETURNS TABLE (window_start timestamptz, ...) LANGUAGE sql STABLE
 *	  BEGIN ATOMIC <query>; END
 *
 * owned by the view's owner, in the view's schema, going with the view
 * and the extension (AUTO dependencies), and records it in the catalog
 * (range_fn, pane_fn, combine_fn, right_fn).  PostgreSQL parses such a
 * body once and keeps it as a tree of OIDs and column numbers, and records
 * what it uses in pg_depend: renaming the source, its schema or a column
 * changes nothing, and DROP COLUMN or ALTER COLUMN TYPE of a column the
 * view reads is refused without CASCADE.  Refresh calls the function
 * (cv_lock_view puts "SELECT * FROM f($1, ...)" where the text was); the
 * planner inlines it (a stable set-returning SQL function with no SET
 * clause), so a refresh plans the same query as before.
 *
 * A view of 0.3 keeps its text until the update script gives it functions
 * too.  The session merge query reads only the view's own fragment table
 * and stays text.
 *
 * src/continuous/cv_derived.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <ctype.h>

#include "access/htup_details.h"
#include "catalog/dependency.h"
#include "catalog/pg_class.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/plancache.h"
#include "utils/regproc.h"
#include "utils/syscache.h"

#include "src/continuous/cv_catalog.h"

PG_FUNCTION_INFO_V1(wj_derive_functions);

/* the derived queries that become functions, and their names' suffixes */
static const struct
{
	const char *query;			/* the catalog's text column */
	const char *fn;				/* the catalog's function column */
	const char *suffix;			/* <view><suffix> */
}			cv_derived[] =
{
	{"range_query", "range_fn", "_range"},
	{"pane_query", "pane_fn", "_pane"},
	{"combine_query", "combine_fn", "_combine"},
	{"right_query", "right_fn", "_right"},
};

/*
 * cv_count_params
 *		The highest $n a derived query uses (they use $1 to $4).
 */
static int
cv_count_params(const char *sql)
{
	int			n = 0;

	for (const char *p = sql; *p; p++)
		if (p[0] == '$' && isdigit((unsigned char) p[1]))
			n = Max(n, atoi(p + 1));
	return n;
}

/*
 * cv_create_function
 *		CREATE FUNCTION nsp.name(n times timetype) RETURNS TABLE (...) with
 *		the body sql; returns its OID.  The result columns are those of the
 *		prepared query.
 */
static Oid
cv_create_function(const char *nsp, const char *name, const char *sql,
				   Oid timetype)
{
	int			nargs = cv_count_params(sql);
	Oid		   *argtypes = palloc(sizeof(Oid) * Max(nargs, 1));
	SPIPlanPtr	plan;
	List	   *sources;
	TupleDesc	desc;
	StringInfoData buf;
	StringInfoData sig;
	StringInfoData named;

	for (int i = 0; i < nargs; i++)
		argtypes[i] = timetype;
	plan = SPI_prepare(sql, nargs, argtypes);
	if (plan == NULL)
		elog(ERROR, "windowjoin: could not prepare a derived query (%d)", SPI_result);
	sources = SPI_plan_get_plan_sources(plan);
	if (list_length(sources) != 1 ||
		((CachedPlanSource *) linitial(sources))->resultDesc == NULL)
		elog(ERROR, "windowjoin: a derived query is not one SELECT");
	desc = ((CachedPlanSource *) linitial(sources))->resultDesc;

	/*
	 * The parameters are named (wj_bound1 ...): pg_dump prints the body with
	 * the names, where unnamed ones come out as unusable "" identifiers.
	 */
	initStringInfo(&sig);
	initStringInfo(&named);
	for (int i = 0; i < nargs; i++)
	{
		appendStringInfo(&sig, "%s%s", i > 0 ? ", " : "", format_type_be_qualified(timetype));
		appendStringInfo(&named, "%swj_bound%d %s", i > 0 ? ", " : "", i + 1,
						 format_type_be_qualified(timetype));
	}
	initStringInfo(&buf);
	appendStringInfo(&buf, "CREATE FUNCTION %s(%s) RETURNS TABLE (",
					 quote_qualified_identifier(nsp, name), named.data);
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		appendStringInfo(&buf, "%s%s %s", i > 0 ? ", " : "",
						 quote_identifier(NameStr(att->attname)),
						 format_type_with_typemod(att->atttypid, att->atttypmod));
	}
	appendStringInfo(&buf, ") LANGUAGE sql STABLE BEGIN ATOMIC %s; END", sql);
	SPI_freeplan(plan);
	if (SPI_execute(buf.data, false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "windowjoin: could not create a derived query's function");

	resetStringInfo(&buf);
	appendStringInfo(&buf, "%s(%s)", quote_qualified_identifier(nsp, name), sig.data);
	return DatumGetObjectId(DirectFunctionCall1(regprocedurein,
												CStringGetDatum(buf.data)));
}

/*
 * wj_derive_functions
 *		windowjoin._derive_functions(view): the file header.  The caller
 *		must have the privileges of the view's owner; the functions are
 *		created as the owner.
 */
Datum
wj_derive_functions(PG_FUNCTION_ARGS)
{
	Oid			view = PG_GETARG_OID(0);
	Oid			owner;
	Oid			types[1] = {OIDOID};
	Datum		values[1];
	HeapTuple	tup;
	TupleDesc	desc;
	Oid			timetype;
	const char *nsp;
	const char *rel;
	Oid			fns[lengthof(cv_derived)];
	ObjectAddress viewaddr;
	ObjectAddress extaddr;
	Oid			save_userid;
	int			save_sec_context;
	bool		isnull;

	cv_check_view_owner(view);
	owner = cv_rel_owner(view);
	values[0] = ObjectIdGetDatum(view);
	SPI_connect();
	if (cv_catalog_exec("SELECT * FROM windowjoin.view_catalog c "
						"WHERE c.view_rel::pg_catalog.oid OPERATOR(pg_catalog.=) $1",
						1, types, values, NULL) != SPI_OK_SELECT || SPI_processed != 1)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("%s is not a continuous view", cv_relation_text(view))));
	tup = SPI_copytuple(SPI_tuptable->vals[0]);
	desc = CreateTupleDescCopy(SPI_tuptable->tupdesc);
	timetype = DatumGetObjectId(SPI_getbinval(tup, desc, SPI_fnumber(desc, "time_type"),
											  &isnull));
	nsp = get_namespace_name(get_rel_namespace(view));
	rel = get_rel_name(view);
	ObjectAddressSet(viewaddr, RelationRelationId, view);
	ObjectAddressSet(extaddr, ExtensionRelationId, get_extension_oid("windowjoin", false));

	GetUserIdAndSecContext(&save_userid, &save_sec_context);
	SetUserIdAndSecContext(owner, save_sec_context | SECURITY_LOCAL_USERID_CHANGE);
	for (int i = 0; i < lengthof(cv_derived); i++)
	{
		int			col = SPI_fnumber(desc, cv_derived[i].query);
		char	   *sql = SPI_getvalue(tup, desc, col);
		ObjectAddress fnaddr;

		fns[i] = InvalidOid;
		if (sql == NULL)
			continue;
		fns[i] = cv_create_function(nsp, psprintf("%s%s", rel, cv_derived[i].suffix),
									sql, timetype);
		ObjectAddressSet(fnaddr, ProcedureRelationId, fns[i]);
		recordDependencyOn(&fnaddr, &viewaddr, DEPENDENCY_AUTO);
		recordDependencyOn(&fnaddr, &extaddr, DEPENDENCY_AUTO);
	}
	SetUserIdAndSecContext(save_userid, save_sec_context);

	{
		Oid			utypes[5] = {OIDOID, OIDOID, OIDOID, OIDOID, OIDOID};
		Datum		uvals[5];
		char		unulls[5];

		uvals[0] = ObjectIdGetDatum(view);
		unulls[0] = ' ';
		for (int i = 0; i < lengthof(cv_derived); i++)
		{
			uvals[i + 1] = ObjectIdGetDatum(fns[i]);
			unulls[i + 1] = OidIsValid(fns[i]) ? ' ' : 'n';
		}
		if (cv_catalog_exec("UPDATE windowjoin.view_catalog c "
							"SET range_fn = $2, pane_fn = $3, combine_fn = $4, right_fn = $5 "
							"WHERE c.view_rel::pg_catalog.oid OPERATOR(pg_catalog.=) $1",
							5, utypes, uvals, unulls) != SPI_OK_UPDATE)
			elog(ERROR, "could not update windowjoin.view_catalog");
	}
	SPI_finish();
	PG_RETURN_VOID();
}

/*
 * cv_derived_call
 *		The statement text a refresh runs for a derived query kept as the
 *		function fn: SELECT * FROM fn($1, ..., $n), by its current name.
 */
char *
cv_derived_call(Oid fn)
{
	HeapTuple	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(fn));
	Form_pg_proc form;
	StringInfoData buf;

	if (!HeapTupleIsValid(tup))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("a derived query's function of a continuous view (OID %u) is gone", fn),
				 errhint("It was dropped, perhaps by DROP ... CASCADE of a source column; drop the view and create it again.")));
	form = (Form_pg_proc) GETSTRUCT(tup);
	initStringInfo(&buf);
	appendStringInfo(&buf, "SELECT * FROM %s(",
					 quote_qualified_identifier(get_namespace_name(form->pronamespace),
												NameStr(form->proname)));
	for (int i = 0; i < form->pronargs; i++)
		appendStringInfo(&buf, "%s$%d", i > 0 ? ", " : "", i + 1);
	appendStringInfoChar(&buf, ')');
	ReleaseSysCache(tup);
	return buf.data;
}
