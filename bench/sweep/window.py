"""The Python client's closed-loop run: N threads in a tight loop (no think time), started one by one
over a ramp, then a fixed steady window; the same accounting as the native load generator's
contract, and the same result shape (loadgen.py validates both).

Client i starts at t0 + ramp * i / N; the window is [t0 + ramp, t0 + ramp + window]. A call counts
when it ends inside the window (calls that end during the ramp are warm-up; each thread stops after
its first call that ends past the window, which is not counted). q/s = counted calls / window.
"""

import os
import resource
import threading
import time


def pct(sorted_vals, p):
    """Linear-interpolated percentile (bench/deep's rule) of sorted values, None when empty."""
    if not sorted_vals:
        return None
    k = (len(sorted_vals) - 1) * p / 100
    lo = int(k)
    hi = min(lo + 1, len(sorted_vals) - 1)
    return sorted_vals[lo] + (sorted_vals[hi] - sorted_vals[lo]) * (k - lo)


def client_loop(call, items, start, end, out, pc=time.perf_counter):
    """One thread: wait for `start`, then run items (cycling) until a call ends after `end`.
    Appends (end time, kind, microseconds, error or None) to out."""
    while pc() < start:
        time.sleep(min(0.01, max(0.0, start - pc())))
    i = 0
    while True:
        kind, seed = items[i % len(items)]
        i += 1
        t = pc()
        err = None
        try:
            call(kind, seed)
        except Exception as e:  # counted, a sample kept; the loop goes on as a load generator's would
            err = f"{type(e).__name__}: {str(e)[:200]}"
        t2 = pc()
        out.append((t2, kind, (t2 - t) * 1e6, err))
        if t2 > end:
            return


def summarize(events, w0, w1, kinds):
    """The figures of the calls that ended in [w0, w1]: counts, q/s, overall and per-kind latency (us)."""
    inside = [e for e in events if w0 <= e[0] <= w1]
    ok = sorted(e[2] for e in inside if e[3] is None)
    errors = [e for e in inside if e[3] is not None]
    per_kind = {}
    for k in kinds:
        v = sorted(e[2] for e in inside if e[1] == k and e[3] is None)
        nerr = sum(1 for e in errors if e[1] == k)
        if v or nerr:
            per_kind[k] = {"n": len(v), "errors": nerr, "p50_us": pct(v, 50), "p95_us": pct(v, 95), "p99_us": pct(v, 99), "mean_us": sum(v) / len(v) if v else None}
    window = w1 - w0
    return {
        "queries": len(ok),
        "errors": len(errors),
        "error_pct": 100.0 * len(errors) / len(inside) if inside else 0.0,
        "qps": len(ok) / window,
        "overall": {"p50_us": pct(ok, 50), "p95_us": pct(ok, 95), "p99_us": pct(ok, 99), "mean_us": sum(ok) / len(ok) if ok else None, "max_us": ok[-1] if ok else None},
        "per_kind": per_kind,
        "error_samples": sorted({e[3] for e in errors})[:5],
    }


def run(clients, items_of, ramp_s, window_s, kinds):
    """clients: one callable(kind, seed) per thread; items_of(i): thread i's (kind, seed) list.
    Returns the result fields of the load generator's JSON (besides engine, mix, version, notes)."""
    n = len(clients)
    per_thread = [[] for _ in range(n)]
    t0 = time.perf_counter() + 0.05
    w0, w1 = t0 + ramp_s, t0 + ramp_s + window_s
    threads = [threading.Thread(target=client_loop, args=(clients[i], items_of(i), t0 + ramp_s * i / n, w1, per_thread[i]), daemon=True) for i in range(n)]
    for t in threads:
        t.start()
    time.sleep(max(0.0, w0 - time.perf_counter()))
    la0, cpu0, wall0 = os.getloadavg(), time.process_time(), time.perf_counter()
    time.sleep(max(0.0, w1 - time.perf_counter()))
    cpu1, wall1, la1 = time.process_time(), time.perf_counter(), os.getloadavg()
    for t in threads:
        t.join()
    res = summarize([e for ev in per_thread for e in ev], w0, w1, kinds)
    res.update(
        clients=n,
        ramp_s=ramp_s,
        window_s=window_s,
        client_cpu_s=cpu1 - cpu0,
        window_wall_s=wall1 - wall0,
        peak_rss_kb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        loadavg_before=list(la0),
        loadavg_after=list(la1),
    )
    return res
