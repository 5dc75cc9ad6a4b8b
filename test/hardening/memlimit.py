"""Peak memory of a backend per node at work_mem = 1MB (run by memlimit.sh as
root on the server's machine, in a cluster holding the data of cases.sql;
libpq's PG* variables say where).

Each case of cases.py's MEMLIMIT_CASES runs in a fresh connection (so the
peak is that query's); afterwards the backend's /proc/<pid>/status gives
VmHWM, its peak resident set.  VmHWM also counts the shared-memory pages the
backend touched (shared_buffers is kept at 32MB for that reason); RssShmem
(shared pages resident now, which after a scan of a big table is close to
all of shared_buffers) is shown so the private part can be judged.  A case
(except the "baseline" ones: PostgreSQL's own nodes alone) fails when VmHWM
exceeds the limit (200 MB), when it errors, or when its plan lacks the node.
JIT is off unless --jit: LLVM's compilation of an expensive query takes
about 75 MB of its own (PostgreSQL's Sort of 10M rows alone: VmHWM 17 MB
with jit off, 94 MB with it on), which would hide what the nodes keep.
Then every RUNAWAY_CASES query must fail at once with its expected error
(windowjoin.max_windows_per_row's, or the 1 ms minimum slide).

--group memory (the memory step of scripts/stress) runs MEMORY_CASES on the
never-analysed tables of memstress.sql instead: each node at its work_mem
(1-4 MB), its peak private memory VmHWM - RssShmem under --limit-mb (64 MB),
and its rows (count and checksum) equal to those of PostgreSQL's plan with
every windowjoin.enable_* off.  Usage:
  memlimit.py --group joins|windows|all|memory [--limit-mb N] [--only SUBSTR] [--jit]"""

import argparse
import sys
import time

import psycopg2

from cases import MEMLIMIT_CASES, MEMORY_CASES, NODES_OFF, RUNAWAY_CASES


def connect():
    conn = psycopg2.connect("")
    conn.autocommit = True
    return conn


def proc_status(pid):
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("VmHWM", "VmRSS", "RssShmem", "RssAnon"):
                out[k] = int(v.split()[0]) / 1024.0     # MB
    return out


JIT = False


def prepare(cur, settings):
    cur.execute("SET max_parallel_workers_per_gather = 0; SET work_mem = '1MB'; "
                + ("" if JIT else "SET jit = off; ") + settings)


def run_checksummed(settings, query):
    """Run query in a fresh backend; return (count, checksum, seconds,
    /proc status, error)."""
    conn = connect()
    cur = conn.cursor()
    cur.execute("SET max_parallel_workers_per_gather = 0; "
                + ("" if JIT else "SET jit = off; ") + settings)
    cur.execute("SELECT pg_backend_pid()")
    pid = cur.fetchone()[0]
    t0 = time.monotonic()
    res, err = None, None
    try:
        cur.execute("SELECT count(*), coalesce(sum(hashtext(q::text)::numeric), 0) "
                    f"FROM ({query}) q")
        res = cur.fetchone()
    except psycopg2.Error as e:
        err = str(e).strip().splitlines()[0]
    el = time.monotonic() - t0
    st = proc_status(pid)
    conn.close()
    return res, el, st, err


def run_memory(args):
    """The memory step: each MEMORY_CASES query with the nodes on (peak
    private memory measured) and off (the reference rows)."""
    limit = args.limit_mb
    failures = 0
    conn = connect()
    cur = conn.cursor()
    cur.execute("SELECT pg_backend_pid()")
    base = proc_status(cur.fetchone()[0])
    conn.close()
    print(f"fresh backend: VmHWM {base['VmHWM']:.1f} MB; limit: peak private memory "
          f"(VmHWM - RssShmem) {limit:.0f} MB; jit {'default' if JIT else 'off'}")
    print(f"{'case':<44} {'input MB':>8} {'rows':>9} {'work_mem':>8} {'seconds':>8} "
          f"{'VmHWM':>7} {'RssShmem':>8} {'private':>8} {'ref s':>6}")
    for name, wm, settings, query, marker, tables in MEMORY_CASES:
        if args.only and args.only not in name:
            continue
        conn = connect()
        cur = conn.cursor()
        cur.execute("SELECT sum(pg_relation_size(c)) / 1048576.0 FROM unnest(%s::regclass[]) c",
                    (tables,))
        input_mb = float(cur.fetchone()[0])
        cur.execute(f"SET work_mem = '{wm}'; SET max_parallel_workers_per_gather = 0; "
                    + ("" if JIT else "SET jit = off; ") + settings)
        cur.execute("EXPLAIN (COSTS OFF) " + query)
        plan = "\n".join(r[0] for r in cur.fetchall())
        conn.close()
        problems = []
        if marker not in plan:
            problems.append(f"plan lacks {marker}")
        res, el, st, err = run_checksummed(f"SET work_mem = '{wm}'; " + settings, query)
        if err:
            problems.append("error: " + err)
        private = st["VmHWM"] - st["RssShmem"]
        if private > limit:
            problems.append(f"private {private:.0f} MB > {limit:.0f} MB")
        ref, ref_el, _, ref_err = run_checksummed(NODES_OFF, query)
        if ref_err:
            problems.append("reference error: " + ref_err)
        elif res is not None and res != ref:
            problems.append(f"rows differ from PostgreSQL's plan: {res} vs {ref}")
        nrows = res[0] if res else 0
        print(f"{name:<44} {input_mb:8.0f} {nrows:9d} {wm:>8} {el:8.1f} {st['VmHWM']:7.1f} "
              f"{st['RssShmem']:8.1f} {private:8.1f} {ref_el:6.1f}"
              + ("   FAIL: " + "; ".join(problems) if problems else "   ok"))
        sys.stdout.flush()
        if problems:
            failures += 1
            print("    plan: " + plan.replace("\n", "\n          "))
    print(f"memory step: {failures} case(s) failed")
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--group", default="all")
    ap.add_argument("--limit-mb", type=float, default=None)
    ap.add_argument("--only", default=None)
    ap.add_argument("--jit", action="store_true", help="leave jit at its default")
    args = ap.parse_args()
    global JIT
    JIT = args.jit
    if args.group == "memory":
        if args.limit_mb is None:
            args.limit_mb = 64
        return run_memory(args)
    if args.limit_mb is None:
        args.limit_mb = 200

    failures = 0
    conn = connect()
    cur = conn.cursor()
    cur.execute("SELECT pg_backend_pid()")
    base = proc_status(cur.fetchone()[0])
    conn.close()
    print(f"fresh backend: VmHWM {base['VmHWM']:.1f} MB")
    print(f"{'case':<50} {'seconds':>8} {'VmHWM MB':>9} {'RssShmem MB':>12} {'RssAnon MB':>11}")
    for group, name, settings, query, marker in MEMLIMIT_CASES:
        if args.group != "all" and group != args.group:
            continue
        if args.only and args.only not in name:
            continue
        conn = connect()
        cur = conn.cursor()
        prepare(cur, settings)
        cur.execute("EXPLAIN (COSTS OFF) " + query)
        plan = "\n".join(r[0] for r in cur.fetchall())
        # the plan alone must not count: measure in a fresh backend
        conn.close()
        conn = connect()
        cur = conn.cursor()
        prepare(cur, settings)
        cur.execute("SELECT pg_backend_pid()")
        pid = cur.fetchone()[0]
        problems = []
        # a marker "!X" means the plan must not contain X
        if marker and marker.startswith("!"):
            if marker[1:] in plan:
                problems.append(f"plan has {marker[1:]}")
        elif marker and marker not in plan:
            problems.append(f"plan lacks {marker}")
        t0 = time.monotonic()
        try:
            cur.execute(query)
            cur.fetchall()
        except psycopg2.Error as e:
            problems.append("error: " + str(e).strip().splitlines()[0])
        el = time.monotonic() - t0
        st = proc_status(pid)
        conn.close()
        if st["VmHWM"] > args.limit_mb:
            problems.append(f"VmHWM {st['VmHWM']:.0f} MB > {args.limit_mb:.0f} MB")
        print(f"{name:<50} {el:8.1f} {st['VmHWM']:9.1f} {st['RssShmem']:12.1f} {st['RssAnon']:11.1f}"
              + ("   FAIL: " + "; ".join(problems) if problems else ""))
        sys.stdout.flush()
        if problems and not name.startswith("baseline"):
            failures += 1
            print("    plan: " + plan.replace("\n", "\n          "))

    if args.group in ("all", "joins"):
        print("runaway windows (windowjoin.max_windows_per_row at its default):")
        conn = connect()
        cur = conn.cursor()
        prepare(cur, "")
        for name, query, expected in RUNAWAY_CASES:
            if args.only and args.only not in name:
                continue
            t0 = time.monotonic()
            msg = None
            try:
                cur.execute(query)
                cur.fetchall()
            except psycopg2.Error as e:
                msg = str(e).strip().splitlines()[0]
            el = time.monotonic() - t0
            ok = msg is not None and expected in msg
            print(f"  {name:<48} {el:6.2f}s  {msg or 'no error'}" + ("" if ok else "   FAIL"))
            if not ok:
                failures += 1
        conn.close()

    print(f"memory limits: {failures} case(s) failed (limit: VmHWM {args.limit_mb:.0f} MB; "
          f"jit {'default' if JIT else 'off'})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
