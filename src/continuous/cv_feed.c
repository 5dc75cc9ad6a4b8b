/*-------------------------------------------------------------------------
 *
 * cv_feed.c
 *	  Changefeeds of continuous views: the trigger that writes a view's
 *	  <view>_feed, the numbering of its changes, their purge, the commit
 *	  notification, and the consumers' positions.
 *
 * A view with a feed (create_view(..., feed => true) or alter_view) has a
 * table <view>_feed (seq bigint PRIMARY KEY, change smallint, the view's
 * columns) and four statement triggers on the view's table, all calling
 * windowjoin._feed(): AFTER INSERT (NEW TABLE), AFTER UPDATE (OLD and NEW
 * TABLE), AFTER DELETE (OLD TABLE) and BEFORE TRUNCATE.  Whatever changes
 * the view's table -- a refresh emitting windows, a revision deleting and
 * re-inserting them, emit => 'on_update' replacing its open rows, the
 * owner's own DELETE of old windows -- adds one feed row per row that went
 * away (change -1) and per row that appeared (+1), in that statement's
 * transaction.  Summing the feed's signed rows gives the view.
 *
 * Numbering.  The last seq given out is kept in the view's catalog row
 * (feed_seq).  A refresh holds that row locked from its start to its
 * commit (cv_refresh.c), so it numbers its statements' rows from a counter
 * of its own (cv_feed_refresh_begin) and writes the counter back with the
 * row.  Any other statement on the view's table locks the row when its
 * trigger fires (UPDATE ... RETURNING).  Either way two transactions that
 * add feed rows to one view never overlap: the second numbers its rows
 * after the first commits.  So seq is gap-free and increases in commit
 * order -- a reader that sees seq n has also seen every seq below it --
 * and a rolled-back transaction gives back its numbers with its rows.
 *
 * The rows are inserted by SQL (INSERT ... SELECT from the statement's
 * transition table, registered with SPI), so the feed's indexes, and any
 * trigger its owner puts on it, are maintained; the statement runs as the
 * view's owner under SECURITY_RESTRICTED_OPERATION, whoever changed the
 * view's table.
 *
 * Each transaction that added feed rows records the time of its last seq
 * in windowjoin.feed_marks and sends NOTIFY windowjoin_feed, payload
 * {"view": "<name>", "seq": <last seq>}, which PostgreSQL delivers at
 * commit.  A refresh does both once, at its end.
 *
 * Consumers and retention.  windowjoin.feed_ack(view, consumer, seq)
 * records a named consumer's position in the consumer's own transaction,
 * so its effects and its position commit together.  A refresh purges the
 * feed rows every consumer has passed, and those older than the view's
 * feed_retention (by their marks), whether acknowledged or not.
 *
 * src/continuous/cv_feed.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "commands/async.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/tuplestore.h"

#include "src/continuous/cv_catalog.h"
#include "src/continuous/cv_feed.h"

PG_FUNCTION_INFO_V1(wj_feed);
PG_FUNCTION_INFO_V1(wj_feed_ack);
PG_FUNCTION_INFO_V1(wj_feed_drop_consumer);
PG_FUNCTION_INFO_V1(wj_catalog_set);

/* the refresh in progress in this backend, when its view has a feed */
static Oid	cv_feed_view = InvalidOid;
static Oid	cv_feed_table = InvalidOid;
static int64 cv_feed_last;		/* the last seq given out */

/*
 * cv_feed_refresh_begin
 *		A refresh of view, whose feed's last seq is seq, starts: its
 *		statements' feed rows are numbered from here (the refresh holds the
 *		catalog row).
 */
void
cv_feed_refresh_begin(Oid view, Oid feed, int64 seq)
{
	cv_feed_view = view;
	cv_feed_table = feed;
	cv_feed_last = seq;
}

/*
 * cv_feed_refresh_seq
 *		The last seq the refresh in progress gave out.
 */
int64
cv_feed_refresh_seq(void)
{
	return cv_feed_last;
}

/*
 * cv_feed_refresh_reset
 *		The refresh is over (committed or not): statements on the view's
 *		table number their rows from the catalog again.
 */
void
cv_feed_refresh_reset(void)
{
	cv_feed_view = InvalidOid;
	cv_feed_table = InvalidOid;
}

/*
 * cv_feed_columns
 *		The view table's columns as a list for SQL, each prefixed (with
 *		"o." or nothing).
 */
static char *
cv_feed_columns(TupleDesc desc, const char *prefix)
{
	StringInfoData s;

	initStringInfo(&s);
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (att->attisdropped)
			continue;
		appendStringInfo(&s, ", %s%s", prefix, quote_identifier(NameStr(att->attname)));
	}
	return s.data;
}

/*
 * cv_feed_insert
 *		Add the rows of from (a transition table, or the view's table) to the
 *		feed with the given change, numbered after base; returns how many.
 *		As the view's owner, restricted.  The caller is connected to SPI.
 */
static uint64
cv_feed_insert(Relation view, Oid feed, const char *from, int16 change, int64 base)
{
	TupleDesc	desc = RelationGetDescr(view);
	Oid			types[2] = {INT8OID, INT2OID};
	Datum		values[2];
	Oid			save_userid;
	int			save_sec;
	int			rc;
	char	   *sql;

	sql = psprintf("INSERT INTO %s (seq, change%s) "
				   "SELECT $1 OPERATOR(pg_catalog.+) pg_catalog.row_number() OVER (), $2%s "
				   "FROM %s o",
				   cv_relation_text(feed), cv_feed_columns(desc, ""),
				   cv_feed_columns(desc, "o."), from);
	values[0] = Int64GetDatum(base);
	values[1] = Int16GetDatum(change);
	GetUserIdAndSecContext(&save_userid, &save_sec);
	SetUserIdAndSecContext(RelationGetForm(view)->relowner,
						   save_sec | SECURITY_LOCAL_USERID_CHANGE |
						   SECURITY_RESTRICTED_OPERATION);
	rc = SPI_execute_with_args(sql, 2, types, values, NULL, false, 0);
	SetUserIdAndSecContext(save_userid, save_sec);
	if (rc != SPI_OK_INSERT)
		elog(ERROR, "could not write the changefeed of continuous view %u: %s",
			 RelationGetRelid(view), SPI_result_code_string(rc));
	return SPI_processed;
}

/*
 * cv_feed_claim
 *		n numbers for a statement on view's table outside a refresh: the
 *		catalog row is locked (until commit) and its feed_seq advanced.
 *		Returns the number before the first, and the feed; false when the
 *		view has no feed.
 */
static bool
cv_feed_claim(Oid view, int64 n, int64 *base, Oid *feed)
{
	Oid			types[2] = {OIDOID, INT8OID};
	Datum		values[2];
	bool		isnull;

	values[0] = ObjectIdGetDatum(view);
	values[1] = Int64GetDatum(n);
	if (cv_catalog_exec("UPDATE windowjoin.view_catalog c "
						"SET feed_seq = c.feed_seq OPERATOR(pg_catalog.+) $2 "
						"WHERE c.view_rel::pg_catalog.oid OPERATOR(pg_catalog.=) $1 "
						"AND c.feed_rel IS NOT NULL "
						"RETURNING c.feed_seq OPERATOR(pg_catalog.-) $2, c.feed_rel::pg_catalog.oid",
						2, types, values, NULL) != SPI_OK_UPDATE_RETURNING)
		elog(ERROR, "could not update windowjoin.view_catalog");
	if (SPI_processed != 1)
		return false;
	*base = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	*feed = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
	return true;
}

/*
 * cv_feed_mark
 *		Record when the transaction that gave out seq (its last) did so.
 *		The caller is connected to SPI.
 */
void
cv_feed_mark(Oid view, int64 seq)
{
	Oid			types[2] = {OIDOID, INT8OID};
	Datum		values[2];

	values[0] = ObjectIdGetDatum(view);
	values[1] = Int64GetDatum(seq);
	if (cv_catalog_exec("INSERT INTO windowjoin.feed_marks (view_rel, seq, at) "
						"VALUES ($1::pg_catalog.regclass, $2, pg_catalog.clock_timestamp())",
						2, types, values, NULL) != SPI_OK_INSERT)
		elog(ERROR, "could not write windowjoin.feed_marks");
}

/*
 * cv_feed_notify
 *		NOTIFY windowjoin_feed, '{"view": ..., "seq": ...}', delivered by
 *		PostgreSQL when the transaction commits (and only then).
 */
void
cv_feed_notify(Oid view, int64 seq)
{
	StringInfoData payload;

	initStringInfo(&payload);
	appendStringInfoString(&payload, "{\"view\": ");
	escape_json(&payload, cv_relation_text(view));
	appendStringInfo(&payload, ", \"seq\": " INT64_FORMAT "}", seq);
	Async_Notify(CV_FEED_CHANNEL, payload.data);
}

/*
 * cv_feed_purge
 *		At a refresh of view, whose feed's last seq is seq and whose rows up
 *		to purged are gone: delete the rows every consumer has passed, and
 *		those older than the view's feed_retention.  Returns the new purged.
 *		The caller runs as the view's owner, connected to SPI.
 */
int64
cv_feed_purge(Oid view, Oid feed, int64 seq, int64 purged)
{
	Oid			types[2] = {OIDOID, INT8OID};
	Datum		values[2];
	bool		isnull;
	Datum		d;
	int64		cut;

	values[0] = ObjectIdGetDatum(view);
	if (cv_catalog_exec("SELECT GREATEST("
						"(SELECT pg_catalog.min(f.seq) FROM windowjoin.feed_consumers f "
						"WHERE f.view_rel::pg_catalog.oid OPERATOR(pg_catalog.=) $1), "
						"(SELECT pg_catalog.max(m.seq) FROM windowjoin.feed_marks m, "
						"windowjoin.view_catalog c "
						"WHERE c.view_rel::pg_catalog.oid OPERATOR(pg_catalog.=) $1 "
						"AND m.view_rel::pg_catalog.oid OPERATOR(pg_catalog.=) $1 "
						"AND m.at OPERATOR(pg_catalog.<) (pg_catalog.clock_timestamp() "
						"OPERATOR(pg_catalog.-) c.feed_retention)))",
						1, types, values, NULL) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not read the changefeed positions of continuous view %u", view);
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	if (isnull)
		return purged;
	cut = Min(DatumGetInt64(d), seq);
	if (cut <= purged)
		return purged;

	values[1] = Int64GetDatum(cut);
	if (SPI_execute_with_args(psprintf("DELETE FROM %s WHERE seq OPERATOR(pg_catalog.<=) $1",
									   cv_relation_text(feed)),
							  1, &types[1], &values[1], NULL, false, 0) != SPI_OK_DELETE)
		elog(ERROR, "could not purge the changefeed of continuous view %u", view);
	if (cv_catalog_exec("DELETE FROM windowjoin.feed_marks m "
						"WHERE m.view_rel::pg_catalog.oid OPERATOR(pg_catalog.=) $1 "
						"AND m.seq OPERATOR(pg_catalog.<=) $2",
						2, types, values, NULL) != SPI_OK_DELETE)
		elog(ERROR, "could not write windowjoin.feed_marks");
	return cut;
}

/*
 * cv_feed_trigger_name
 *		The name the feed trigger of this event has.
 */
static const char *
cv_feed_trigger_name(TriggerData *td)
{
	if (TRIGGER_FIRED_BY_TRUNCATE(td->tg_event))
		return TRIGGER_FIRED_BEFORE(td->tg_event) ? "windowjoin_feed_truncate" : NULL;
	if (!TRIGGER_FIRED_AFTER(td->tg_event))
		return NULL;
	if (TRIGGER_FIRED_BY_INSERT(td->tg_event))
		return "windowjoin_feed_insert";
	if (TRIGGER_FIRED_BY_UPDATE(td->tg_event))
		return "windowjoin_feed_update";
	if (TRIGGER_FIRED_BY_DELETE(td->tg_event))
		return "windowjoin_feed_delete";
	return NULL;
}

/*
 * wj_feed
 *		windowjoin._feed(): the statement triggers of a view's table that
 *		write its feed (the file header).  A trigger is the feed's only
 *		when it has the name of its event and its table is a view whose
 *		catalog row names a feed; anything else is refused before anything
 *		is written.
 */
Datum
wj_feed(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	Relation	rel;
	Oid			view;
	const char *want;
	int64		nold = 0;
	int64		nnew = 0;
	int64		base;
	Oid			feed;
	bool		in_refresh;
	char	   *relname;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_FOR_STATEMENT(td->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("windowjoin._feed() must be a FOR EACH STATEMENT trigger")));
	rel = td->tg_relation;
	view = RelationGetRelid(rel);
	relname = cv_relation_text(view);
	want = cv_feed_trigger_name(td);
	in_refresh = OidIsValid(cv_feed_view) && cv_feed_view == view;

	SPI_connect();
	if (want == NULL || strcmp(td->tg_trigger->tgname, want) != 0)
		goto refused;

	if (TRIGGER_FIRED_BY_TRUNCATE(td->tg_event))
	{
		bool		isnull;

		if (SPI_execute(psprintf("SELECT pg_catalog.count(*) FROM ONLY %s", relname),
						true, 0) != SPI_OK_SELECT)
			elog(ERROR, "could not count the rows of %s", relname);
		nold = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc,
										   1, &isnull));
	}
	else
	{
		if (td->tg_oldtable != NULL)
			nold = tuplestore_tuple_count(td->tg_oldtable);
		if (td->tg_newtable != NULL)
			nnew = tuplestore_tuple_count(td->tg_newtable);
	}

	if (in_refresh)
	{
		feed = cv_feed_table;
		base = cv_feed_last;
		cv_feed_last += nold + nnew;
	}
	else if (!cv_feed_claim(view, nold + nnew, &base, &feed))
		goto refused;

	if (nold + nnew > 0)
	{
		uint64		n = 0;

		SPI_register_trigger_data(td);
		if (TRIGGER_FIRED_BY_TRUNCATE(td->tg_event))
			n = cv_feed_insert(rel, feed, psprintf("ONLY %s", relname), -1, base);
		else
		{
			if (nold > 0)
				n += cv_feed_insert(rel, feed, quote_identifier(td->tg_trigger->tgoldtable),
									-1, base);
			if (nnew > 0)
				n += cv_feed_insert(rel, feed, quote_identifier(td->tg_trigger->tgnewtable),
									1, base + nold);
		}
		if (n != (uint64) (nold + nnew))
			elog(ERROR, "changefeed of %s: " UINT64_FORMAT " rows written for " INT64_FORMAT " changes",
				 relname, n, nold + nnew);
		if (!in_refresh)
		{
			cv_feed_mark(view, base + nold + nnew);
			cv_feed_notify(view, base + nold + nnew);
		}
	}
	SPI_finish();
	return PointerGetDatum(NULL);

refused:
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("trigger \"%s\" on \"%s\" is not the changefeed trigger of a continuous view",
					td->tg_trigger->tgname, RelationGetRelationName(rel)),
			 errhint("Feed triggers are made by windowjoin.alter_view(view, feed => true); windowjoin._feed() serves no other trigger.")));
	return PointerGetDatum(NULL);	/* keep the compiler quiet */
}

/*
 * cv_feed_of
 *		The feed of view and its last seq; an error when it has none.  Read
 *		as the catalog's owner: a consumer need not own the view.  The
 *		caller is connected to SPI.
 */
static Oid
cv_feed_of(Oid view, int64 *seq)
{
	Oid			types[1] = {OIDOID};
	Datum		values[1];
	bool		isnull;
	Datum		d;

	values[0] = ObjectIdGetDatum(view);
	if (cv_catalog_exec("SELECT c.feed_rel::pg_catalog.oid, c.feed_seq FROM windowjoin.view_catalog c "
						"WHERE c.view_rel::pg_catalog.oid OPERATOR(pg_catalog.=) $1",
						1, types, values, NULL) != SPI_OK_SELECT)
		elog(ERROR, "could not read windowjoin.view_catalog");
	if (SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a continuous view", cv_relation_text(view))));
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("continuous view %s has no changefeed", cv_relation_text(view)),
				 errhint("Its owner can start one: SELECT windowjoin.alter_view('%s', feed => true);",
						 cv_relation_text(view))));
	*seq = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
	return DatumGetObjectId(d);
}

/*
 * cv_feed_consumer
 *		Lock and read a consumer's row: false when there is none.  Checks
 *		that the caller may read the feed and, for an existing consumer,
 *		has the privileges of the role that made it or of the view's owner.
 */
static bool
cv_feed_consumer(Oid view, text *consumer, Oid *feed, int64 *feed_seq, int64 *pos)
{
	Oid			types[2] = {OIDOID, TEXTOID};
	Datum		values[2];
	AclResult	acl;
	bool		isnull;
	Oid			role;

	*feed = cv_feed_of(view, feed_seq);
	acl = pg_class_aclcheck(*feed, GetUserId(), ACL_SELECT);
	if (acl != ACLCHECK_OK)
		aclcheck_error(acl, OBJECT_TABLE, get_rel_name(*feed));

	values[0] = ObjectIdGetDatum(view);
	values[1] = PointerGetDatum(consumer);
	if (cv_catalog_exec("SELECT f.role::pg_catalog.oid, f.seq FROM windowjoin.feed_consumers f "
						"WHERE f.view_rel::pg_catalog.oid OPERATOR(pg_catalog.=) $1 "
						"AND f.consumer OPERATOR(pg_catalog.=) $2 FOR UPDATE",
						2, types, values, NULL) != SPI_OK_SELECT)
		elog(ERROR, "could not read windowjoin.feed_consumers");
	if (SPI_processed == 0)
		return false;
	role = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	*pos = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
	if (!has_privs_of_role(GetUserId(), role) &&
		!has_privs_of_role(GetUserId(), cv_rel_owner(view)))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("consumer \"%s\" of the changefeed of %s belongs to role %s",
						text_to_cstring(consumer), cv_relation_text(view),
						GetUserNameFromId(role, true) ? GetUserNameFromId(role, true) : "?"),
				 errhint("Use a consumer name of your own.")));
	return true;
}

/*
 * wj_feed_ack
 *		windowjoin.feed_ack(view, consumer, seq): consumer has applied every
 *		change of view's feed up to seq.  In the caller's transaction, so
 *		that the consumer's effects and its position commit together.  The
 *		caller must be able to read the feed; a consumer is made by its
 *		first acknowledgement, and moved only by its role (or the view's
 *		owner), and only forward.
 */
Datum
wj_feed_ack(PG_FUNCTION_ARGS)
{
	Oid			view = PG_GETARG_OID(0);
	text	   *consumer = PG_GETARG_TEXT_PP(1);
	int64		seq = PG_GETARG_INT64(2);
	Oid			types[4] = {OIDOID, TEXTOID, INT8OID, OIDOID};
	Datum		values[4];
	Oid			feed;
	int64		feed_seq;
	int64		pos;
	bool		exists;
	int			len = VARSIZE_ANY_EXHDR(consumer);

	if (len == 0 || len > 200)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a changefeed consumer's name must have 1 to 200 bytes")));
	SPI_connect();
	exists = cv_feed_consumer(view, consumer, &feed, &feed_seq, &pos);
	if (seq < 0 || seq > feed_seq)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("seq " INT64_FORMAT " is not in the changefeed of %s", seq,
						cv_relation_text(view)),
				 errdetail("Its last change is seq " INT64_FORMAT ".", feed_seq)));
	if (exists && seq < pos)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a changefeed consumer's position only moves forward"),
				 errdetail("Consumer \"%s\" of %s is at seq " INT64_FORMAT ".",
						   text_to_cstring(consumer), cv_relation_text(view), pos)));
	values[0] = ObjectIdGetDatum(view);
	values[1] = PointerGetDatum(consumer);
	values[2] = Int64GetDatum(seq);
	values[3] = ObjectIdGetDatum(GetUserId());
	if (exists)
	{
		if (cv_catalog_exec("UPDATE windowjoin.feed_consumers f "
							"SET seq = $3, acked_at = pg_catalog.clock_timestamp() "
							"WHERE f.view_rel::pg_catalog.oid OPERATOR(pg_catalog.=) $1 "
							"AND f.consumer OPERATOR(pg_catalog.=) $2",
							3, types, values, NULL) != SPI_OK_UPDATE)
			elog(ERROR, "could not write windowjoin.feed_consumers");
	}
	else if (cv_catalog_exec("INSERT INTO windowjoin.feed_consumers "
							 "(view_rel, consumer, role, seq, acked_at) "
							 "VALUES ($1::pg_catalog.regclass, $2, $4::pg_catalog.regrole, $3, "
							 "pg_catalog.clock_timestamp())",
							 4, types, values, NULL) != SPI_OK_INSERT)
		elog(ERROR, "could not write windowjoin.feed_consumers");
	SPI_finish();
	PG_RETURN_VOID();
}

/*
 * wj_feed_drop_consumer
 *		windowjoin.feed_drop_consumer(view, consumer): the feed keeps no
 *		change for it any more.  As feed_ack, only its role or the view's
 *		owner; an error when there is no such consumer.
 */
Datum
wj_feed_drop_consumer(PG_FUNCTION_ARGS)
{
	Oid			view = PG_GETARG_OID(0);
	text	   *consumer = PG_GETARG_TEXT_PP(1);
	Oid			types[2] = {OIDOID, TEXTOID};
	Datum		values[2];
	Oid			feed;
	int64		feed_seq;
	int64		pos;

	SPI_connect();
	if (!cv_feed_consumer(view, consumer, &feed, &feed_seq, &pos))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("changefeed of %s has no consumer \"%s\"",
						cv_relation_text(view), text_to_cstring(consumer))));
	values[0] = ObjectIdGetDatum(view);
	values[1] = PointerGetDatum(consumer);
	if (cv_catalog_exec("DELETE FROM windowjoin.feed_consumers f "
						"WHERE f.view_rel::pg_catalog.oid OPERATOR(pg_catalog.=) $1 "
						"AND f.consumer OPERATOR(pg_catalog.=) $2",
						2, types, values, NULL) != SPI_OK_DELETE)
		elog(ERROR, "could not write windowjoin.feed_consumers");
	SPI_finish();
	PG_RETURN_VOID();
}

/*
 * cv_require_feed_table
 *		A new feed: the view owner's own ordinary table, (seq bigint,
 *		change smallint, ...), going with the view and the extension.
 */
static void
cv_require_feed_table(Oid view, Oid feed)
{
	cv_require_owned_table(feed, cv_rel_owner(view), "changefeed");
	if (get_atttype(feed, 1) != INT8OID || get_atttype(feed, 2) != INT2OID)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("the changefeed of a continuous view must be a table of the view's owner"),
				 errdetail("Relation %s is not.", cv_relation_text(feed))));
	cv_record_view_table(feed, view);
}

/*
 * wj_catalog_set
 *		windowjoin._catalog_set(view, settings): the settings alter_view
 *		changes -- schedule and feed_retention (as text, '0' for none), and
 *		feed_rel (its OID, or null to stop the feed) with the feed's first
 *		seq.  The caller must have the privileges of the view's owner.
 *		Capture reads the schedule from a cache the view's relcache entry
 *		invalidates.
 */
Datum
wj_catalog_set(PG_FUNCTION_ARGS)
{
	Oid			view = PG_GETARG_OID(0);
	Jsonb	   *settings = PG_GETARG_JSONB_P(1);
	Oid			types[2] = {OIDOID, JSONBOID};
	Datum		values[2];
	JsonbValue	key;
	JsonbValue *feedv;
	int64		first = 0;

	cv_check_view_owner(view);
	key.type = jbvString;
	key.val.string.val = "feed_rel";
	key.val.string.len = strlen("feed_rel");
	feedv = findJsonbValueFromContainer(&settings->root, JB_FOBJECT, &key);

	SPI_connect();
	if (feedv != NULL && feedv->type != jbvNull)
	{
		JsonbValue *seqv;

		if (feedv->type != jbvNumeric)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("a continuous view's feed_rel setting must be a table's OID")));

		cv_require_feed_table(view, DatumGetObjectId(DirectFunctionCall1(numeric_int8,
																		 NumericGetDatum(feedv->val.numeric))));
		key.val.string.val = "feed_seq";
		key.val.string.len = strlen("feed_seq");
		seqv = findJsonbValueFromContainer(&settings->root, JB_FOBJECT, &key);
		if (seqv != NULL && seqv->type == jbvNumeric)
			first = DatumGetInt64(DirectFunctionCall1(numeric_int8,
													  NumericGetDatum(seqv->val.numeric)));
	}
	values[0] = ObjectIdGetDatum(view);
	values[1] = JsonbPGetDatum(settings);
	if (feedv != NULL && feedv->type == jbvNull)
	{
		if (cv_catalog_exec("DELETE FROM windowjoin.feed_consumers f "
							"WHERE f.view_rel::pg_catalog.oid OPERATOR(pg_catalog.=) $1",
							1, types, values, NULL) != SPI_OK_DELETE ||
			cv_catalog_exec("DELETE FROM windowjoin.feed_marks m "
							"WHERE m.view_rel::pg_catalog.oid OPERATOR(pg_catalog.=) $1",
							1, types, values, NULL) != SPI_OK_DELETE)
			elog(ERROR, "could not write windowjoin.feed_consumers");
	}
	if (cv_catalog_exec("UPDATE windowjoin.view_catalog c SET "
						"schedule = CASE WHEN $2 OPERATOR(pg_catalog.?) 'schedule' "
						"THEN NULLIF(($2 OPERATOR(pg_catalog.->>) 'schedule')::pg_catalog.interval, "
						"'0'::pg_catalog.interval) ELSE c.schedule END, "
						"feed_retention = CASE WHEN $2 OPERATOR(pg_catalog.?) 'feed_retention' "
						"THEN NULLIF(($2 OPERATOR(pg_catalog.->>) 'feed_retention')::pg_catalog.interval, "
						"'0'::pg_catalog.interval) ELSE c.feed_retention END, "
						"feed_rel = CASE WHEN $2 OPERATOR(pg_catalog.?) 'feed_rel' "
						"THEN ($2 OPERATOR(pg_catalog.->>) 'feed_rel')::pg_catalog.oid::pg_catalog.regclass "
						"ELSE c.feed_rel END, "
						"feed_seq = CASE WHEN $2 OPERATOR(pg_catalog.?) 'feed_rel' "
						"THEN COALESCE(($2 OPERATOR(pg_catalog.->>) 'feed_seq')::pg_catalog.int8, 0) "
						"ELSE c.feed_seq END, "
						"feed_purged = CASE WHEN $2 OPERATOR(pg_catalog.?) 'feed_rel' THEN 0 "
						"ELSE c.feed_purged END "
						"WHERE c.view_rel::pg_catalog.oid OPERATOR(pg_catalog.=) $1",
						2, types, values, NULL) != SPI_OK_UPDATE || SPI_processed != 1)
		elog(ERROR, "could not update windowjoin.view_catalog");
	if (first > 0)
	{
		/* the feed's first rows, the view as it is: as any other change */
		cv_feed_mark(view, first);
		cv_feed_notify(view, first);
	}
	SPI_finish();
	CacheInvalidateRelcacheByRelid(view);
	PG_RETURN_VOID();
}
