"""One engine on one dataset, in its own process (started by run.py).

    python3 -m bench.unum.worker run ENGINE --plan PLAN.json --work DIR --control FILE --out RESULT.json
    python3 -m bench.unum.worker probe ENGINE    (prints {"status": "ok", "version"} or {"status": "skipped", "reason"})
    python3 -m bench.unum.worker cleanup ENGINE --work DIR    (stop a server a killed run left behind)

Steps: open (not timed), import (timed: edges/s), settle + size on disk + edge count (must equal
the dataset's), the answer check (the plan's check items against NetworkX's answers; a difference
stops the run before any timing, status "wrong"), the read operations (each first called untimed on
its first `warmup` items, then timed on all) then the writes (upserts,
upsert batches, removes, remove batches), each item timed on its own with perf_counter_ns, the
edge count after the upserts (not timed), then the edge count after the removes and a sample of the written edges (upserted ones found, removed
ones not). Phases are announced on the control file so run.py's Sampler attributes peak RSS.
"""

import argparse
import json
import sys
import time
import traceback

from bench.benchlib import Control
from bench.engines.base import Unavailable
from bench.unum import workload
from bench.unum.peers import ENGINES, make

SPOT = 50  # written edges checked after the writes, per kind


def timed(fn, items, spread, budget_s=None):
    """Per-call latencies (ns) of fn over items; with budget_s, stops once that much time was spent
    in calls (read operations only: they change nothing, so a prefix of the items is a fair sample)."""
    lat = []
    clock = time.perf_counter_ns
    budget = budget_s * 1e9 if budget_s else None
    spent = 0
    for it in items:
        t0 = clock()
        fn(*it) if spread else fn(it)
        lat.append(clock() - t0)
        spent += lat[-1]
        if budget is not None and spent >= budget:
            break
    return lat


def check_answers(eng, plan):
    """Mismatches [(op, item, message)] of the engine's answers against the reference."""
    bad = []
    for op in workload.READ_OPS:
        fn = getattr(eng, op)
        for it, want in zip(plan["check"][op], plan["ref"][op], strict=False):
            got = workload.canon(op, fn(*it) if isinstance(it, list) else fn(it))
            msg = workload.compare(op, want, got)
            if msg:
                bad.append((op, it, msg))
    return bad


def run(engine, plan, work, ctl, res):
    eng = make(engine)
    res["version"] = eng.version()
    res["durability"], res["notes"] = eng.durability, eng.notes
    eng.open(work)
    try:
        if eng.server_pid():
            ctl.noself()  # the server's process tree is the engine; this process is its client
            ctl.pid(eng.server_pid())
        ctl.phase("load")
        t = time.perf_counter()
        eng.load(plan["csv"])
        res["import_s"] = time.perf_counter() - t
        ctl.phase("settle")
        eng.settle()
        res["disk_bytes"] = eng.disk_bytes()
        n = eng.edge_count()
        if n != plan["edges"]:
            res.update(status="wrong", reason=f"{n} edges after the import, the dataset has {plan['edges']}")
            return
        ctl.phase("check")
        bad = check_answers(eng, plan)
        if bad:
            res.update(status="wrong", reason=f"{len(bad)} wrong answers of {sum(map(len, plan['check'].values()))} checked; first: "
                       + "; ".join(f"{op}{tuple(it) if isinstance(it, list) else (it,)}: {m}" for op, it, m in bad[:3]))
            return
        ops = {}
        for phase, names in (("reads", workload.READ_OPS), ("writes", workload.WRITE_OPS)):
            ctl.phase(phase)
            c0, w0 = time.process_time(), time.perf_counter()
            for op in names:
                items = plan["items"][op]
                per_call = plan["batch"] if op.endswith("_batch") else 1
                spread = per_call == 1 and isinstance(items[0], list)
                if phase == "reads":
                    timed(getattr(eng, op), items[: plan["warmup"]], spread)  # warm caches, untimed
                budget = plan.get("read_budget_s") if phase == "reads" else None
                ops[op] = workload.summarize(timed(getattr(eng, op), items, spread, budget), per_call)
                if op == "upsert_batch" and eng.edge_count() != plan["edges_after_upserts"]:
                    res.update(status="wrong", reason=f"{eng.edge_count()} edges after the upserts, expected {plan['edges_after_upserts']}")
                    return
            res[f"{phase}_wall_s"], res[f"{phase}_client_cpu_s"] = time.perf_counter() - w0, time.process_time() - c0
        res["ops"] = ops
        ctl.phase("verify")
        n = eng.edge_count()
        ups = plan["items"]["upsert"][:SPOT] + [e for b in plan["items"]["upsert_batch"][:1] for e in b[:SPOT]]
        rms = plan["items"]["remove"][:SPOT] + [e for b in plan["items"]["remove_batch"][:1] for e in b[:SPOT]]
        missing = [e[:2] for e in ups if not eng.find_directed(e[0], e[1])]
        left = [e for e in rms if eng.find_directed(e[0], e[1])]
        if n != plan["edges_after"] or missing or left:
            res.update(status="wrong", reason=f"after the writes: {n} edges (expected {plan['edges_after']}); "
                       f"{len(missing)} upserted edges not found (e.g. {missing[:2]}), {len(left)} removed edges still found (e.g. {left[:2]})")
            return
        res["edges_after"] = n
        res["status"] = "ok"
    finally:
        eng.close()


def main():
    ap = argparse.ArgumentParser(prog=f"python3 -m {__spec__.name}", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cmd", choices=["probe", "run", "cleanup"])
    ap.add_argument("engine", choices=sorted(ENGINES))
    ap.add_argument("--plan", help="the plan JSON written by run.py")
    ap.add_argument("--work", help="the engine's working directory (its database)")
    ap.add_argument("--control", help="the Sampler's control file")
    ap.add_argument("--out", help="where to write the result JSON")
    a = ap.parse_args()
    if a.cmd == "probe":
        try:
            print(json.dumps({"status": "ok", "version": make(a.engine).version()}))
        except Unavailable as e:
            print(json.dumps({"status": "skipped", "reason": str(e)}))
        return
    if a.cmd == "cleanup":
        cleanup = getattr(type(make(a.engine)), "cleanup", None)
        if cleanup:
            cleanup(a.work)
        return
    plan = json.load(open(a.plan))
    res = {"engine": a.engine, "dataset": plan["dataset"], "status": "failed", "reason": ""}
    try:
        run(a.engine, plan, a.work, Control(a.control), res)
    except Unavailable as e:
        res.update(status="skipped", reason=str(e))
    except Exception as e:
        traceback.print_exc()
        res.update(status="failed", reason=f"{type(e).__name__}: {str(e)[:1500]}")
    json.dump(res, open(a.out, "w"))
    sys.exit(0 if res["status"] in ("ok", "skipped") else 1)


if __name__ == "__main__":
    main()
