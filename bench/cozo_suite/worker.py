"""One engine on one dataset, every operation of the suite, in this (fresh) process.

Started by run.py, which samples this process tree's memory while it runs; the worker writes the
phase it is in to the control file (`phase NAME` lines, benchlib's Sampler protocol) so each
measurement gets its own peak RSS. Prints one JSON line: {"version", "measurements": [...],
"wrong": [...]} ("wrong": answers that differ from the reference; run.py then exits 1).

Order: import -> answer check (point reads, k-hop sample, group-by) -> k-hop latency -> group-by
-> PageRank -> point read / write / update / mixed QPS at 1 and 2 threads -> backup -> restore.
The graph-shaped reads come before the point writes, which add nodes the references do not have.
"""

import argparse
import itertools
import json
import os
import random
import statistics
import threading
import time

from bench.benchlib import dir_bytes
from bench.cozo_suite.datasets import (
    Data,
    check_counts,
    check_group_by,
    check_node,
    check_pagerank,
    new_props,
    parse,
    percentile,
    top_k,
)
from bench.cozo_suite.peers import ENGINES, engine_class
from bench.engines.base import Skip

OPS = ["point_read", "point_write", "point_update", "mixed_90_10"]


class Worker:
    def __init__(self, a):
        self.a = a
        self.ctl = open(a.control, "a")
        self.out = []
        self.wrong = []

    def phase(self, name):
        self.ctl.write(f"phase {name}\n")
        self.ctl.flush()

    def record(self, op, phase, status="ok", reason="", **m):
        self.out.append(dict(op=op, phase=phase, status=status, reason=reason, **m))

    def check(self, what, problems):
        if problems:
            self.wrong += [f"{what}: {p}" for p in problems[:5]]


def qps_window(make_op, threads, window):
    """Run `threads` Python threads, each calling its op in a tight loop for `window` seconds.

    Returns (ops/s, errors, process CPU cores used over the window (engine + client, one process),
    the first error's message)."""
    counts, errors, first = [0] * threads, [0] * threads, [None]
    ops = [make_op(i) for i in range(threads)]
    start = threading.Barrier(threads + 1)
    stop_at = [0.0]

    def body(i):
        op, n, err = ops[i], 0, 0
        start.wait()
        end = stop_at[0]
        while time.perf_counter() < end:
            try:
                op()
                n += 1
            except Exception as e:  # a conflicting concurrent write: counted, the window goes on
                err += 1
                first[0] = first[0] or f"{type(e).__name__}: {e}"[:200]
        counts[i], errors[i] = n, err

    ts = [threading.Thread(target=body, args=(i,)) for i in range(threads)]
    for t in ts:
        t.start()
    c0, w0 = os.times(), time.perf_counter()
    stop_at[0] = w0 + window
    start.wait()
    for t in ts:
        t.join()
    wall, c1 = time.perf_counter() - w0, os.times()
    cpu = (c1.user - c0.user) + (c1.system - c0.system)
    return sum(counts) / wall, sum(errors), cpu / wall, first[0]


def run(a):
    w = Worker(a)
    data = parse(a.dataset, a.data_root)
    ref = json.load(open(a.reference))
    Eng = engine_class(a.engine)
    store = os.path.join(a.work, "store")
    os.makedirs(store)
    eng = Eng(store, data)
    version = Eng.version()

    # --- import
    w.phase("import")
    t0 = time.perf_counter()
    notes = eng.load()
    secs = time.perf_counter() - t0
    got = eng.counts()
    w.check("import", [] if tuple(got) == (len(data.keys), len(data.src)) else [f"counts {got} != {(len(data.keys), len(data.src))}"])
    w.record("import", "import", rows=data.rows, seconds=secs, rows_per_s=data.rows / secs, disk_mib=dir_bytes(store) / 2**20, notes=notes)

    # --- answer check before timing
    w.phase("check")
    if data.types:
        for k, props in ref["reads"].items():
            w.check("point read", check_node(int(k), props, eng.read(int(k))))
    for k, starts in ref["hops"].items():
        sample = dict(list(starts.items())[: a.check_starts])
        got = {s: eng.khop(int(s), int(k), a.timeout * 3) for s in sample}
        w.check(f"{k}-hop", check_counts(f"{k}-hop", sample, {s: c for s, c in got.items() if c is not None}) if None not in got.values() else [])
    prop = data.spec.get("group_by")
    if prop:
        w.check("group-by", check_group_by({v: [c, d] for v, c, d in ref["group_by"]}, eng.group_by(prop)))
    if w.wrong:
        return version, w

    # --- k-hop latency (within k hops, both directions, distinct nodes, start excluded)
    hops(w, eng, ref, a, "")
    # --- group-by
    if prop:
        w.phase("group_by")
        lat = []
        for _ in range(a.repeats):
            t0 = time.perf_counter()
            eng.group_by(prop)
            lat.append(time.perf_counter() - t0)
        w.record("group_by", "group_by", prop=prop, repeats=a.repeats, median_ms=_ms(percentile(lat, 50)), groups=len(ref["group_by"]))
    else:
        w.record("group_by", "group_by", "skipped", f"{a.dataset} has no node properties")

    # --- PageRank
    try:
        if hasattr(eng, "pagerank_prepare"):
            eng.pagerank_prepare()
        w.phase("pagerank")
        t0 = time.perf_counter()
        pr = eng.pagerank()
        secs = time.perf_counter() - t0
        ref_pr = {int(k): v for k, v in ref["pagerank"].items()}
        w.check("pagerank", check_pagerank(ref_pr, {int(k): v for k, v in pr.items()}))
        w.record("pagerank", "pagerank", seconds=secs, top10=top_k(pr))
    except Skip as e:
        w.record("pagerank", "pagerank", "skipped", str(e))

    if hasattr(eng, "project"):
        # HopDB answers traversals from its store until a fresh in-memory projection exists (built
        # by project() or by a graph algorithm); the default path was timed first, this one after.
        w.phase("projection")
        t0 = time.perf_counter()
        info = eng.project()
        w.record("projection", "projection", seconds=time.perf_counter() - t0, notes=f"Graph.project() after PageRank: {info}")
        hops(w, eng, ref, a, "projected")

    # --- point operations
    if data.spec.get("update"):
        eng = point_ops(w, eng, data, ref, a)
    else:
        for op in OPS:
            for t in (1, 2):
                w.record(op, f"{op}_{t}t", "skipped", f"{a.dataset} has no node properties to read or update", threads=t)
        w.record("point_read", "point_read_2p", "skipped", f"{a.dataset} has no node properties to read", processes=2)

    # --- backup and restore
    try:
        n_rows = sum(eng.counts())
        bdir = os.path.join(a.work, "backup")
        w.phase("backup")
        t0 = time.perf_counter()
        notes = eng.backup(bdir)
        secs = time.perf_counter() - t0
        w.record("backup", "backup", rows=n_rows, seconds=secs, rows_per_s=n_rows / secs, size_mib=dir_bytes(bdir) / 2**20, notes=notes)
        w.phase("restore")
        t0 = time.perf_counter()
        notes, restored = eng.restore(bdir, os.path.join(a.work, "restored"))
        secs = time.perf_counter() - t0
        got = sum(restored.counts())
        restored.close()
        w.check("restore", [] if got == n_rows else [f"restored {got} rows, backed up {n_rows}"])
        w.record("restore", "restore", rows=n_rows, seconds=secs, rows_per_s=n_rows / secs, notes=notes)
    except Skip as e:
        w.record("backup", "backup", "skipped", str(e))
        w.record("restore", "restore", "skipped", str(e))
    eng.close()
    return version, w


def hops(w, eng, ref, a, variant):
    for k, starts in ref["hops"].items():
        phase = f"hop{k}" + (f"_{variant}" if variant else "")
        w.phase(phase)
        lat, timeouts, mism, skipped = [], 0, {}, 0
        for s, want in starts.items():
            if timeouts >= a.give_up:  # bounds a slow engine's time on a large graph
                skipped += 1
                continue
            t0 = time.perf_counter()
            c = eng.khop(int(s), int(k), a.timeout)
            dt = time.perf_counter() - t0
            if c is None:
                timeouts += 1
                continue
            lat.append(dt)
            if c != want:
                mism[s] = c
        w.check(f"{k}-hop", check_counts(f"{k}-hop", {s: starts[s] for s in mism}, mism))
        w.record(f"hop_{k}", phase, variant=variant, queries=len(starts) - skipped, not_run=skipped, timeouts=timeouts, timeout_s=a.timeout, median_ms=_ms(percentile(lat, 50)), p95_ms=_ms(percentile(lat, 95)), mean_count=statistics.mean(starts.values()))


def point_ops(w, eng, data, ref, a):
    pool = ref["pool"]
    prop = data.spec["update"]
    fresh = itertools.count(max(data.keys) + 1)  # new keys for point writes, shared by the threads

    def make(op, i):
        rng = random.Random(a.seed * 1000 + i)
        if op == "point_read":
            return lambda: eng.read(rng.choice(pool))
        if op == "point_write":
            return lambda: eng.write(next(fresh), new_props(data, rng))
        if op == "point_update":
            return lambda: eng.update(rng.choice(pool), prop, new_props(data, rng)[prop])

        def mixed():
            if rng.random() < 0.9:
                eng.read(rng.choice(pool))
            else:
                eng.update(rng.choice(pool), prop, new_props(data, rng)[prop])

        return mixed

    for op in OPS:
        for t in (1, 2):
            w.phase(f"{op}_{t}t")
            qps, errors, cores, first = qps_window(lambda i, op=op: make(op, i), t, a.window)
            w.record(op, f"{op}_{t}t", threads=t, qps=qps, errors=errors, first_error=first, window_s=a.window, process_cores=cores)
        if op == "point_read":
            eng = reads_in_processes(w, eng, data, pool, a)
    return eng


def reads_in_processes(w, eng, data, pool, a):
    """Point reads from 2 processes, each opening the store read-only, where the engine allows it."""
    mode = type(eng).multi_process
    if mode is None:
        w.record("point_read", "point_read_2p", "skipped", f"{a.engine}: no access from a second process", processes=2)
        return eng
    if mode == "writer closed":
        eng.close()
    import multiprocessing as mp

    ctx = mp.get_context("spawn")
    w.phase("point_read_2p_open")  # the readers' start-up is not charged to the 2-thread window
    go, q = ctx.Event(), ctx.Queue()
    procs = [ctx.Process(target=reader_process, args=(a.engine, eng.path, data.types, pool, a.seed * 1000 + 10 + i, a.window, go, q)) for i in range(2)]
    for p in procs:
        p.start()
    for _p in procs:
        q.get()  # opened and warmed
    w.phase("point_read_2p")
    go.set()
    rates = [q.get() for _ in procs]
    for p in procs:
        p.join()
    w.record("point_read", "point_read_2p", processes=2, qps=sum(rates), window_s=a.window, notes=f"2 processes, store opened read-only ({mode})")
    return type(eng)(None, data, eng.path) if mode == "writer closed" else eng


def reader_process(engine, path, types, pool, seed, window, go, q):
    eng = engine_class(engine)(None, Data("", [], {}, types, [], [], False, 0), path, read_only=True)
    rng = random.Random(seed)
    eng.read(pool[0])
    q.put(None)
    go.wait()
    n, t0 = 0, time.perf_counter()
    end = t0 + window
    while time.perf_counter() < end:
        eng.read(rng.choice(pool))
        n += 1
    q.put(n / (time.perf_counter() - t0))
    eng.close()


def _ms(x):
    return None if x is None else x * 1000


def main():
    ap = argparse.ArgumentParser(prog=f"python3 -m {__spec__.name}", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", required=True, choices=sorted(ENGINES))
    ap.add_argument("--dataset", required=True)
    ap.add_argument("--data-root", required=True)
    ap.add_argument("--work", required=True, help="an empty directory for the stores")
    ap.add_argument("--control", required=True, help="file to append `phase NAME` lines to")
    ap.add_argument("--reference", required=True, help="JSON reference answers written by run.py")
    ap.add_argument("--window", type=float, default=2.0, help="seconds per QPS window")
    ap.add_argument("--timeout", type=float, default=5.0, help="seconds per k-hop query")
    ap.add_argument("--give-up", type=int, default=3, help="after this many k-hop timeouts at one k, skip that k's other starts")
    ap.add_argument("--repeats", type=int, default=3, help="group-by repetitions")
    ap.add_argument("--check-starts", type=int, default=3, help="k-hop starts checked before timing")
    ap.add_argument("--seed", type=int, default=42)
    a = ap.parse_args()
    version, w = run(a)
    print(json.dumps({"version": version, "measurements": w.out, "wrong": w.wrong}))


if __name__ == "__main__":
    main()
