"""One engine of the retrieval mix, in its own process (run.py starts it).

    python3 -m bench.retrieval.worker probe ENGINE
        -> one JSON line: {"available": bool, "version": ..., "reason": ...}
    python3 -m bench.retrieval.worker run ENGINE --data D --cache C --queries Q.json --out R.json [--reload] [--variant V]
        -> R.json: version, prepare, the answer check, the variant trial, and the parts of the
           "1-thread" and "2-thread" modes (measure.py)
    python3 -m bench.retrieval.worker part ENGINE --data D --cache C --queries Q.json --out R.json --part I --of N [--variant V]
        -> opens the database, warms up, prints READY, waits for a line on stdin, then runs every
           N-th timed query from the I-th (one of the processes of the "N-process" mode)

Q.json (run.py): {"pools", "sequence": [[kind, pool index], ...], "warmup": W (the first W items
are the warm-up, the rest are timed), "max_seconds", "threads", "variant_trial", "check":
[[kind, seed, full answer], ...]}.
"""

import argparse
import json
import os
import platform
import sys
import time

from bench.engines import base
from bench.retrieval import measure, reference
from bench.retrieval.peers import engine_class
from bench.retrieval.workload import resolve


def probe(engine):
    try:
        return {"available": True, "version": engine_class(engine)().probe()}
    except base.Unavailable as e:
        return {"available": False, "reason": str(e)}
    except Exception as e:
        return {"available": False, "reason": f"{type(e).__name__}: {e}"}


def timed_mode(clients, items, q):
    """Warm each client (the first items of the warm-up), then the timed loop; parts + load."""
    for c in clients:
        measure.loop(c, items["warmup"][: q["thread_warmup"]], time.perf_counter() + q["max_seconds"])
    la = os.getloadavg()
    parts = measure.run_threads(clients, items["timed"], q["max_seconds"])
    return {"parts": parts, "loadavg_before": la, "loadavg_after": os.getloadavg()}


def choose_variant(eng, items, q, forced):
    """Each query form on the same queries (the last of the warm-up, after its first ones), the
    fastest kept (or the forced one)."""
    if not eng.variants:
        return None
    trial = {}
    trial_items = items["warmup"][-q["variant_trial"]:]  # the end of the warm-up: the timed queries stay new
    if not forced:
        for v in eng.variants:
            eng.set_variant(v)
            measure.loop(eng, items["warmup"][: q["thread_warmup"]], time.perf_counter() + q["max_seconds"])
            s = measure.summarize(measure.run_threads([eng], trial_items, q["max_seconds"]), len(trial_items))
            trial[v] = {"qps": s["qps"], "queries": s["queries"], "p50_us": {k: x["p50_us"] for k, x in s["per_kind"].items()}}
        forced = max(trial, key=lambda v: trial[v]["qps"])
    eng.set_variant(forced)
    return {"chosen": forced, "forced": not trial, "trial": trial}


def load(a):
    q = json.load(open(a.queries))
    seq = resolve(q["pools"], q["sequence"])
    return q, {"warmup": seq[: q["warmup"]], "timed": seq[q["warmup"]:]}


def run(a):
    q, items = load(a)
    eng = engine_class(a.engine)()
    out = {"engine": a.engine, "version": eng.probe(), "python": platform.python_version()}
    t = time.perf_counter()
    out["prepare"] = eng.prepare(a.data, a.cache, a.reload)
    out["prepare"]["prepare_wall_s"] = time.perf_counter() - t
    try:
        out["check"] = reference.check_engine(eng, q["check"])
        out["variant"] = choose_variant(eng, items, q, a.variant)
        out["queries"] = eng.query_text()
        measure.loop(eng, items["warmup"], time.perf_counter() + q["max_seconds"])
        out["modes"] = {"1-thread": timed_mode([eng], items, q)}
        forks = [eng.fork() for _ in range(q["threads"])]
        try:
            out["modes"][f"{q['threads']}-thread"] = timed_mode(forks, items, q)
        finally:
            for f in forks:
                if f is not eng:
                    f.release()
    finally:
        eng.close()
    json.dump(out, open(a.out, "w"))


def part(a):
    q, items = load(a)
    eng = engine_class(a.engine)()
    eng.probe()
    eng.prepare(a.data, a.cache, False)
    try:
        if eng.variants and a.variant:
            eng.set_variant(a.variant)
        measure.loop(eng, items["warmup"], time.perf_counter() + q["max_seconds"])
        print("READY", flush=True)
        sys.stdin.readline()
        la = os.getloadavg()
        parts = measure.run_threads([eng], items["timed"][a.part :: a.of], q["max_seconds"])
        json.dump({"parts": parts, "loadavg_before": la, "loadavg_after": os.getloadavg()}, open(a.out, "w"))
    finally:
        eng.close()


def main():
    ap = argparse.ArgumentParser(prog=f"python3 -m {__spec__.name}")
    ap.add_argument("cmd", choices=["probe", "run", "part"])
    ap.add_argument("engine")
    ap.add_argument("--data")
    ap.add_argument("--cache")
    ap.add_argument("--queries")
    ap.add_argument("--out")
    ap.add_argument("--reload", action="store_true")
    ap.add_argument("--variant")
    ap.add_argument("--part", type=int, default=0)
    ap.add_argument("--of", type=int, default=1)
    a = ap.parse_args()
    if a.cmd == "probe":
        print(json.dumps(probe(a.engine)), flush=True)
        return
    os.makedirs(a.cache, exist_ok=True)
    base.report_outcome(lambda: (run if a.cmd == "run" else part)(a), a.engine, a.out)


if __name__ == "__main__":
    main()
