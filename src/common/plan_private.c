/*-------------------------------------------------------------------------
 *
 * plan_private.c
 *	  Writer and reader of the custom_private list every windowjoin node
 *	  builds from its plan-info struct (see plan_private.h).
 *
 * A field is one list cell:
 *	 int		an Integer node
 *	 bool		a Boolean node
 *	 int64		an int8 Const (Integer holds only int)
 *	 Oid		an OID list of one element
 *	 int list	an integer List (NIL allowed)
 *	 OID list	an OID List (NIL allowed)
 *	 node		any node tree copyObject and nodeToString handle, or NULL
 *
 * All of them survive copyObject() and the nodeToString()/stringToNode()
 * round trip that ships a plan to parallel workers.  The reader checks each
 * cell's node tag against the kind asked for (an empty list matches any
 * list kind) and, at the end, that every cell was read.
 *
 * src/common/plan_private.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/value.h"

#include "src/common/plan_private.h"

/*
 * wj_private_put_int
 *		Append an int field.
 */
void
wj_private_put_int(List **priv, int value)
{
	*priv = lappend(*priv, makeInteger(value));
}

/*
 * wj_private_put_bool
 *		Append a bool field.
 */
void
wj_private_put_bool(List **priv, bool value)
{
	*priv = lappend(*priv, makeBoolean(value));
}

/*
 * wj_private_put_int64
 *		Append an int64 field, as an int8 Const.
 */
void
wj_private_put_int64(List **priv, int64 value)
{
	*priv = lappend(*priv,
					   makeConst(INT8OID, -1, InvalidOid, sizeof(int64),
								 Int64GetDatum(value), false, FLOAT8PASSBYVAL));
}

/*
 * wj_private_put_oid
 *		Append an Oid field, as an OID list of one element.
 */
void
wj_private_put_oid(List **priv, Oid value)
{
	*priv = lappend(*priv, list_make1_oid(value));
}

/*
 * wj_private_put_int_list
 *		Append an integer list field (copied).
 */
void
wj_private_put_int_list(List **priv, List *values)
{
	Assert(values == NIL || IsA(values, IntList));
	*priv = lappend(*priv, list_copy(values));
}

/*
 * wj_private_put_oid_list
 *		Append an OID list field (copied).
 */
void
wj_private_put_oid_list(List **priv, List *values)
{
	Assert(values == NIL || IsA(values, OidList));
	*priv = lappend(*priv, list_copy(values));
}

/*
 * wj_private_put_node
 *		Append a node tree field (not copied; NULL allowed).
 */
void
wj_private_put_node(List **priv, void *node)
{
	*priv = lappend(*priv, node);
}

/*
 * wj_private_reader_init
 *		Start reading the fields of a custom_private list.
 */
void
wj_private_reader_init(WjPrivateReader *reader, List *priv,
					   const char *node_name)
{
	reader->priv = priv;
	reader->next = 0;
	reader->node_name = node_name;
}

/*
 * private_next
 *		The next cell's value; complains if the list is exhausted.
 */
static void *
private_next(WjPrivateReader *reader)
{
	if (reader->next >= list_length(reader->priv))
		elog(ERROR, "%s: custom_private has %d fields, field %d requested",
			 reader->node_name, list_length(reader->priv), reader->next + 1);
	return list_nth(reader->priv, reader->next++);
}

/*
 * private_bad_field
 *		Report a field of the wrong kind (can't happen unless the writer and
 *		the reader of a node disagree).
 */
static void
private_bad_field(WjPrivateReader *reader, const char *expected)
{
	elog(ERROR, "%s: custom_private field %d is not %s",
		 reader->node_name, reader->next, expected);
}

/*
 * wj_private_get_int
 *		Read an int field.
 */
int
wj_private_get_int(WjPrivateReader *reader)
{
	Node	   *node = private_next(reader);

	if (node == NULL || !IsA(node, Integer))
		private_bad_field(reader, "an Integer");
	return intVal(node);
}

/*
 * wj_private_get_bool
 *		Read a bool field.
 */
bool
wj_private_get_bool(WjPrivateReader *reader)
{
	Node	   *node = private_next(reader);

	if (node == NULL || !IsA(node, Boolean))
		private_bad_field(reader, "a Boolean");
	return boolVal(node);
}

/*
 * wj_private_get_int64
 *		Read an int64 field.
 */
int64
wj_private_get_int64(WjPrivateReader *reader)
{
	Node	   *node = private_next(reader);

	if (node == NULL || !IsA(node, Const) ||
		((Const *) node)->consttype != INT8OID ||
		((Const *) node)->constisnull)
		private_bad_field(reader, "an int8 Const");
	return DatumGetInt64(((Const *) node)->constvalue);
}

/*
 * wj_private_get_oid
 *		Read an Oid field.
 */
Oid
wj_private_get_oid(WjPrivateReader *reader)
{
	List	   *list = private_next(reader);

	if (list == NIL || !IsA(list, OidList) || list_length(list) != 1)
		private_bad_field(reader, "an OID");
	return linitial_oid(list);
}

/*
 * wj_private_get_int_list
 *		Read an integer list field.
 */
List *
wj_private_get_int_list(WjPrivateReader *reader)
{
	List	   *list = private_next(reader);

	if (list != NIL && !IsA(list, IntList))
		private_bad_field(reader, "an integer list");
	return list;
}

/*
 * wj_private_get_oid_list
 *		Read an OID list field.
 */
List *
wj_private_get_oid_list(WjPrivateReader *reader)
{
	List	   *list = private_next(reader);

	if (list != NIL && !IsA(list, OidList))
		private_bad_field(reader, "an OID list");
	return list;
}

/*
 * wj_private_get_node
 *		Read a node tree field (may be NULL).
 */
void *
wj_private_get_node(WjPrivateReader *reader)
{
	return private_next(reader);
}

/*
 * wj_private_reader_done
 *		Check that every field was read.
 */
void
wj_private_reader_done(WjPrivateReader *reader)
{
	if (reader->next != list_length(reader->priv))
		elog(ERROR, "%s: custom_private has %d fields, %d read",
			 reader->node_name, list_length(reader->priv), reader->next);
}
