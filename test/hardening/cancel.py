"""Cancellation latency of every windowjoin node (run by cancel.sh inside a
cluster that holds the data of cases.sql; libpq's PG* variables say where).

For each case of cases.py:
  timeout  SET statement_timeout = 100ms, run the query, and measure on the
           client the time from sending it to receiving the cancel error;
           latency = elapsed - 100 ms.
  cancel   a second session calls pg_cancel_backend(pid) DELAY ms after the
           query was sent; latency = time from that call to the error.
           Several delays (--delays 300,1000) catch a query in different
           phases (e.g. its sorts, then the node's own merge); a query that
           is already over at a later delay is just noted.
A case fails (except the "baseline" ones: PostgreSQL's own nodes alone) when
a latency exceeds the limit (200 ms), when the query ends without being
cancelled at the timeout or at the first delay (input too small: the node
was not running at the deadline), or when the plan lacks the node under
test.  The client waits for ReadyForQuery, so a latency includes the
transaction abort (temporary files of spilled sorts are deleted there).

JIT is off unless --jit: PostgreSQL compiles the expressions of an expensive
query with LLVM when it starts executing, which takes 100-1000 ms and cannot
be interrupted, whatever the plan (PostgreSQL's own nested loop included).
Usage:
  cancel.py [--repeat N] [--delays MS,MS] [--limit-ms MS] [--only SUBSTR] [--jit]"""

import argparse
import sys
import threading
import time

import psycopg2
import psycopg2.errors

from cases import CASES

TIMEOUT_MS = 100


def connect():
    conn = psycopg2.connect("")
    conn.autocommit = True
    return conn


def plan_of(cur, query):
    cur.execute("EXPLAIN (COSTS OFF) " + query)
    return "\n".join(r[0] for r in cur.fetchall())


def run_timeout(cur, query):
    """Seconds of latency past the deadline, or None if not cancelled."""
    cur.execute(f"SET statement_timeout = '{TIMEOUT_MS}ms'")
    t0 = time.monotonic()
    try:
        cur.execute(query)
        cur.fetchall()
        return None, time.monotonic() - t0
    except psycopg2.errors.QueryCanceled:
        el = time.monotonic() - t0
        return el - TIMEOUT_MS / 1000.0, el
    finally:
        cur.execute("SET statement_timeout = 0")


def run_cancel(conn, cur, query, delay):
    """Seconds from pg_cancel_backend() to the error, or None."""
    cur.execute("SELECT pg_backend_pid()")
    pid = cur.fetchone()[0]
    other = connect()
    sent = {}

    def fire():
        time.sleep(delay)
        sent["t"] = time.monotonic()
        with other.cursor() as c2:
            c2.execute("SELECT pg_cancel_backend(%s)", (pid,))

    th = threading.Thread(target=fire)
    t0 = time.monotonic()
    th.start()
    try:
        cur.execute(query)
        cur.fetchall()
        t_end = time.monotonic()
        th.join()
        other.close()
        # (finished on its own: how long after the cancel was sent, if it was)
        sent_el = (t_end - sent["t"]) if sent.get("t") is not None and sent["t"] <= t_end else None
        return None, (t_end - t0, sent_el)
    except psycopg2.errors.QueryCanceled:
        t_err = time.monotonic()
        th.join()
        other.close()
        return t_err - sent["t"], t_err - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--delays", default="300")
    ap.add_argument("--limit-ms", type=int, default=200)
    ap.add_argument("--only", default=None)
    ap.add_argument("--jit", action="store_true",
                    help="leave jit at its default (LLVM compilation is not interruptible)")
    args = ap.parse_args()
    delays = [int(d) for d in args.delays.split(",")]

    conn = connect()
    cur = conn.cursor()
    cur.execute("SET max_parallel_workers_per_gather = 0")
    failures = 0
    print(f"{'case':<44} {'timeout: worst latency':>23} {'cancel: worst latency':>22}")
    for name, settings, query, marker in CASES:
        if args.only and args.only not in name:
            continue
        cur.execute("RESET ALL; SET max_parallel_workers_per_gather = 0; "
                    + ("" if args.jit else "SET jit = off; ") + settings)
        plan = plan_of(cur, query)
        problems = []
        if marker and marker not in plan:
            problems.append(f"plan lacks {marker}")
        worst = {}
        notes = []
        for mode, delay in [("timeout", None)] + [("cancel", d) for d in delays]:
            lat = []
            for _ in range(args.repeat):
                if mode == "timeout":
                    l, el = run_timeout(cur, query)
                else:
                    l, el = run_cancel(conn, cur, query, delay / 1000.0)
                if l is None and mode == "cancel":
                    # A query that ends on its own within the latency limit of
                    # the cancel (it was sent as the query was ending: a race,
                    # not a missed interrupt) is no failure; one that runs on
                    # past the limit is.
                    el, sent_el = el
                    if sent_el is not None and sent_el * 1000 > args.limit_ms:
                        problems.append(f"{mode}: finished in {el * 1000:.0f} ms, "
                                        f"{sent_el * 1000:.0f} ms after the cancel, not cancelled")
                    else:
                        notes.append(f"over before {delay} ms (in {el * 1000:.0f} ms)")
                    break
                if l is None:
                    problems.append(f"{mode}: finished in {el * 1000:.0f} ms, not cancelled")
                    break
                lat.append(l * 1000)
            if lat:
                worst[mode] = max(lat + ([worst[mode]] if worst.get(mode) is not None else []))
            else:
                worst.setdefault(mode, None)
            if lat and max(lat) > args.limit_ms:
                problems.append(f"{mode}{'' if delay is None else ' at ' + str(delay) + ' ms'}: "
                                f"{max(lat):.0f} ms > {args.limit_ms} ms")

        def fmt(v):
            return "-" if v is None else f"{v:8.1f} ms"
        print(f"{name:<44} {fmt(worst['timeout']):>23} {fmt(worst['cancel']):>22}"
              + ("   FAIL: " + "; ".join(problems) if problems else "")
              + ("   (" + "; ".join(notes) + ")" if notes else ""))
        sys.stdout.flush()
        if problems and not name.startswith("baseline"):
            failures += 1
            print("    plan: " + plan.replace("\n", "\n          "))
    print(f"cancellation: {failures} case(s) failed (jit {'default' if args.jit else 'off'}; "
          f"limit {args.limit_ms} ms past the {TIMEOUT_MS} ms timeout, "
          f"or past pg_cancel_backend() at {args.delays} ms; worst of {args.repeat} runs each)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
