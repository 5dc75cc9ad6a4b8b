"""Cancellation latency of every windowjoin node (run by cancel.sh inside a
cluster that holds the data of cases.sql; libpq's PG* variables say where).

For each case of cases.py:
  timeout  SET statement_timeout = 100ms, run the query, and measure on the
           client the time from sending it to receiving the cancel error;
           latency = elapsed - 100 ms.
  cancel   a second session calls pg_cancel_backend(pid) DELAY ms after the
           query was sent; latency = time from that call to the error.
A case fails when a latency exceeds the limit (200 ms), when the query ends
without being cancelled (input too small: the node was not running at the
deadline), or when the plan lacks the node under test.  Usage:
  cancel.py [--repeat N] [--delay-ms MS] [--limit-ms MS] [--only SUBSTR]"""

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
        th.join()
        other.close()
        return None, time.monotonic() - t0
    except psycopg2.errors.QueryCanceled:
        t_err = time.monotonic()
        th.join()
        other.close()
        return t_err - sent["t"], t_err - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--delay-ms", type=int, default=300)
    ap.add_argument("--limit-ms", type=int, default=200)
    ap.add_argument("--only", default=None)
    args = ap.parse_args()

    conn = connect()
    cur = conn.cursor()
    cur.execute("SET max_parallel_workers_per_gather = 0")
    failures = 0
    print(f"{'case':<44} {'timeout: worst latency':>23} {'cancel: worst latency':>22}")
    for name, settings, query, marker in CASES:
        if args.only and args.only not in name:
            continue
        cur.execute("RESET ALL; SET max_parallel_workers_per_gather = 0; " + settings)
        plan = plan_of(cur, query)
        problems = []
        if marker and marker not in plan:
            problems.append(f"plan lacks {marker}")
        worst = {}
        for mode in ("timeout", "cancel"):
            lat = []
            for _ in range(args.repeat):
                if mode == "timeout":
                    l, el = run_timeout(cur, query)
                else:
                    l, el = run_cancel(conn, cur, query, args.delay_ms / 1000.0)
                if l is None:
                    problems.append(f"{mode}: finished in {el * 1000:.0f} ms, not cancelled")
                    break
                lat.append(l * 1000)
            worst[mode] = max(lat) if lat else None
            if worst[mode] is not None and worst[mode] > args.limit_ms:
                problems.append(f"{mode}: {worst[mode]:.0f} ms > {args.limit_ms} ms")

        def fmt(v):
            return "-" if v is None else f"{v:8.1f} ms"
        print(f"{name:<44} {fmt(worst['timeout']):>23} {fmt(worst['cancel']):>22}"
              + ("   FAIL: " + "; ".join(problems) if problems else ""))
        sys.stdout.flush()
        if problems:
            failures += 1
            print("    plan: " + plan.replace("\n", "\n          "))
    print(f"cancellation: {failures} case(s) failed "
          f"(limit {args.limit_ms} ms past the {TIMEOUT_MS} ms timeout, "
          f"or past pg_cancel_backend() at {args.delay_ms} ms; worst of {args.repeat})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
