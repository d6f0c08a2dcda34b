"""Timing: the tight loop over the mix, the same loop on several threads, and the summary
(throughput, per-kind percentiles) of what one or more loops measured.

A loop's result (a "part") is {"t0", "t1", "lat": {kind: [microseconds, ...]}}, with t0/t1 from
time.perf_counter() (CLOCK_MONOTONIC: comparable between the processes of one machine), so the
parts of two threads or two processes combine into one throughput: all queries / (last end - first start).
"""

import threading
import time

from bench.deep.run import pct  # bench/deep's linear-interpolated percentile
from bench.retrieval.workload import KIND_NAMES


def loop(client, items, t_end):
    """Run (kind, seed) items one after the other until done or t_end; the latencies per kind."""
    fns = {k: getattr(client, k) for k in KIND_NAMES}
    lat = {k: [] for k in KIND_NAMES}
    pc = time.perf_counter
    for kind, seed in items:
        t = pc()
        fns[kind](seed)
        t2 = pc()
        lat[kind].append((t2 - t) * 1e6)
        if t2 > t_end:
            break
    return lat


def run_threads(clients, items, max_seconds):
    """One thread per client, thread i running items[i::n], started together; a part per thread.
    Each stops after max_seconds. An exception in a thread is raised here."""
    n = len(clients)
    parts, errors = [None] * n, []
    barrier = threading.Barrier(n)

    def work(i):
        try:
            barrier.wait()
            t0 = time.perf_counter()
            lat = loop(clients[i], items[i::n], t0 + max_seconds)
            parts[i] = {"t0": t0, "t1": time.perf_counter(), "lat": lat}
        except BaseException as e:  # reported by the caller
            errors.append(e)
            barrier.abort()

    if n == 1:
        work(0)
    else:
        ts = [threading.Thread(target=work, args=(i,)) for i in range(n)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
    if errors:
        raise errors[0]
    return parts


def summarize(parts, planned):
    """Throughput and per-kind latency figures of parts that together were to run `planned` queries."""
    t0 = min(p["t0"] for p in parts)
    t1 = max(p["t1"] for p in parts)
    per_kind = {}
    done = 0
    for k in KIND_NAMES:
        v = sorted(x for p in parts for x in p["lat"].get(k, []))
        done += len(v)
        if v:
            per_kind[k] = {"n": len(v), "p50_us": pct(v, 50), "p95_us": pct(v, 95), "p99_us": pct(v, 99), "mean_us": sum(v) / len(v)}
    secs = t1 - t0
    return {"queries": done, "planned": planned, "capped_by_time": done < planned, "seconds": secs, "qps": done / secs if secs > 0 else None, "per_kind": per_kind, "parts": len(parts)}
