#!/usr/bin/env python3
"""Apply a continuous view's changefeed to a table of your own, exactly once.

    demo/feed_consumer.py [--dsn DSN] VIEW CONSUMER [--until-seq N] [--timeout S]

One connection LISTENs on windowjoin_feed (in autocommit mode, as LISTEN
needs: a notification is delivered between transactions).  At start, and on
each notification for VIEW, a second connection reads <VIEW>_feed after the
consumer's position, applies each change to <VIEW>_applied (+1: insert the
row, -1: delete one equal row) and acknowledges the last seq with
windowjoin.feed_ack() in the same transaction: a crash before the commit
loses both, after it keeps both, so no change is applied twice or skipped.
The connection is the DSN's or the PG* environment variables'.  Needs
psycopg 3 (Debian: apt-get install python3-psycopg).
"""
import argparse
import json
import select
import sys
import time

import psycopg
from psycopg import sql

BATCH = 1000
ACK = "SELECT windowjoin.feed_ack(%s::oid::regclass, %s::text, %s::bigint)"


def wait_notifies(conn, timeout):
    """The notifications that arrive on conn within timeout seconds."""
    if hasattr(psycopg, "capabilities"):  # psycopg >= 3.2: notifies() has a timeout
        return list(conn.notifies(timeout=timeout, stop_after=1))
    # psycopg 3.1 (Debian 12): wait for the socket, then read what libpq got
    if not select.select([conn.fileno()], [], [], timeout)[0]:
        return []
    conn.pgconn.consume_input()
    got = []
    while (n := conn.pgconn.notifies()) is not None:
        got.append(psycopg.Notify(n.relname.decode(), n.extra.decode(), n.be_pid))
    return got


def about(notify, consumer):
    """Does a notification announce changes consumer has not applied?"""
    try:
        payload = json.loads(notify.payload)
        return payload["view"] == consumer.view and payload["seq"] > consumer.pos
    except (ValueError, KeyError, TypeError):
        return False  # anyone may NOTIFY windowjoin_feed


class Consumer:
    def __init__(self, conn, view, name):
        self.conn, self.name = conn, name
        row = conn.execute(
            """SELECT v.name::oid, format('%%I.%%I', n.nspname, c.relname), n.nspname, c.relname,
                      f.relname, coalesce((v.feed_consumers ->> %s)::bigint, 0),
                      format('%%I.%%I', n.nspname, c.relname || '_applied')
                 FROM windowjoin.views v
                 JOIN pg_class c ON c.oid = v.name::oid
                 JOIN pg_namespace n ON n.oid = c.relnamespace
                 JOIN pg_class f ON f.oid = v.feed::oid
                WHERE v.name = %s::regclass""", [name, view]).fetchone()
        if row is None:
            raise RuntimeError(f"{view} is not a continuous view with a changefeed")
        self.oid, self.view, schema, rel, feed, self.pos, self.applied_name = row
        self.feed = sql.Identifier(schema, feed)
        self.applied = sql.Identifier(schema, rel + "_applied")
        conn.execute(sql.SQL("CREATE TABLE IF NOT EXISTS {} (LIKE {})").format(
            self.applied, sql.Identifier(schema, rel)))

    def apply_batch(self):
        """Apply the next changes after pos and acknowledge them; how many."""
        with self.conn.transaction():
            # re-acknowledge pos first: it locks this consumer's position, and
            # fails if another process running as this consumer has moved it on
            self.conn.execute(ACK, [self.oid, self.name, self.pos])
            cur = self.conn.execute(sql.SQL("SELECT * FROM {} WHERE seq > %s ORDER BY seq LIMIT %s")
                                    .format(self.feed), [self.pos, BATCH])
            rows = cur.fetchall()
            if not rows:
                return 0
            first, last = rows[0][0], rows[-1][0]
            if first != self.pos + 1 or last != self.pos + len(rows):  # seq is unique: no gap
                raise RuntimeError(f"gap in the feed of {self.view} after seq {self.pos}: purged "
                                   f"before this consumer applied it (rebuild {self.applied_name})")
            cols = sql.SQL(", ").join(sql.Identifier(d.name) for d in cur.description[2:])
            params = sql.SQL(", ").join([sql.Placeholder()] * (len(cur.description) - 2))
            insert = sql.SQL("INSERT INTO {} ({}) VALUES ({})").format(self.applied, cols, params)
            delete = sql.SQL("DELETE FROM {t} WHERE ctid = (SELECT ctid FROM {t} "
                             "WHERE ({c}) IS NOT DISTINCT FROM ({p}) LIMIT 1)").format(
                                 t=self.applied, c=cols, p=params)
            for seq, change, *values in rows:
                if self.conn.execute(insert if change > 0 else delete, values).rowcount != 1:
                    raise RuntimeError(f"seq {seq}: no row {values} in {self.applied_name} to remove")
            self.conn.execute(ACK, [self.oid, self.name, last])
        plus = sum(1 for r in rows if r[1] > 0)
        print(f"{self.name}: applied seq {first}..{last} (+{plus} -{len(rows) - plus}) "
              f"to {self.applied_name}, acknowledged {last}", flush=True)
        self.pos = last
        return len(rows)

    def catch_up(self):
        while self.apply_batch() == BATCH:
            pass


def run(args):
    deadline = time.monotonic() + args.timeout if args.timeout is not None else None
    with psycopg.connect(args.dsn, autocommit=True) as listen, \
            psycopg.connect(args.dsn, autocommit=True) as work:
        listen.execute("LISTEN windowjoin_feed")  # before catching up: nothing is missed
        c = Consumer(work, args.view, args.consumer)
        print(f"{c.name}: {c.view} from seq {c.pos}, listening on windowjoin_feed", flush=True)
        c.catch_up()
        while args.until_seq is None or c.pos < args.until_seq:
            left = 60.0 if deadline is None else deadline - time.monotonic()
            if left <= 0:
                print(f"{c.name}: timed out at seq {c.pos}", flush=True)
                return 1 if args.until_seq is not None else 0
            if any(about(n, c) for n in wait_notifies(listen, left)):
                c.catch_up()
        print(f"{c.name}: reached seq {c.pos}", flush=True)
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dsn", default="", help="connection string (default: the PG* variables)")
    p.add_argument("view")
    p.add_argument("consumer")
    p.add_argument("--until-seq", type=int, help="stop once this seq is applied")
    p.add_argument("--timeout", type=float, help="give up after this many seconds")
    args = p.parse_args()
    try:
        return run(args)
    except (psycopg.Error, RuntimeError) as e:
        print(f"{args.consumer}: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
