"""Retrieval mix: the eight-engine GraphRAG study's Q1-Q7 query mix, from Python in-process, on one
thread and two (and two processes for HopDB and SQLite), HopDB against peers, answers cross-checked.

usage: python3 -m bench.retrieval.run --scale S [--engines hopdb,sqlite,...] [--out DIR]

Draws the seed pools and the (kind, seed) sequence once (fixed RNG seeds), computes the reference
answers of a sample from the CSV files, then runs every engine (its Retrieval class in
bench/engines, peers.py) in its own process (worker.py), one at a time, on the same sequence;
writes DIR/results.jsonl, DIR/report.md and DIR/retrieval.png. Exits 1 if an engine answered a
sample query wrongly. See README.md beside this file.
"""

import argparse
import datetime
import json
import os
import subprocess
import sys
import time

from bench import benchlib
from bench.benchlib import module_cmd, module_env
from bench.deep import run as deep_run
from bench.deep.worker import cache_name
from bench.retrieval import measure, report, workload
from bench.retrieval.peers import ENGINES, MULTI_PROCESS
from bench.retrieval.reference import KG

HERE = os.path.dirname(os.path.abspath(__file__))
log = report.log


def worker(*args):
    return module_cmd("bench.retrieval.worker", *args)


def probe(engine, env):
    return deep_run.probe(engine, env, worker("probe", engine))  # bench/deep's: parses the JSON line


def cleanup(engine, cache, env):
    """bench/deep's worker stops a server a killed run left behind."""
    subprocess.run(module_cmd("bench.deep.worker", "cleanup", engine, "--cache", cache), capture_output=True, timeout=300, env=env)


def run_engine(engine, common_args, rpath, a, env):
    """worker.py run: version, check, 1- and 2-thread parts (or a skipped/failed status)."""
    cmd = worker("run", engine, *common_args, "--out", rpath) + (["--reload"] if engine in a.reload.split(",") or a.reload == "all" else [])
    if a.variant.get(engine):
        cmd += ["--variant", a.variant[engine]]
    with open(rpath + ".stderr", "w") as err:
        try:
            subprocess.run(cmd, stdout=err, stderr=subprocess.STDOUT, timeout=a.engine_timeout, env=env)
        except subprocess.TimeoutExpired:
            return {"status": "failed", "reason": f"killed after {a.engine_timeout:.0f} s (--engine-timeout)"}
    if not os.path.exists(rpath):
        return {"status": "failed", "reason": "worker wrote no result: " + open(rpath + ".stderr", errors="replace").read()[-1500:]}
    res = json.load(open(rpath))
    res.setdefault("status", "ok")
    return res


def run_processes(engine, n, common_args, rpath, variant, a, env):
    """n worker processes (`part`), each opening the database read-only, started together."""
    procs, outs = [], []
    try:
        for i in range(n):
            out = f"{rpath}.part{i}"
            if os.path.exists(out):
                os.remove(out)
            cmd = worker("part", engine, *common_args, "--out", out, "--part", str(i), "--of", str(n)) + (["--variant", variant] if variant else [])
            procs.append(subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=open(out + ".stderr", "w"), text=True, env=env))
            outs.append(out)
        for p in procs:
            if not p.stdout.readline().startswith("READY"):
                raise RuntimeError(f"a process did not get ready (exit {p.wait()})")
        for p in procs:
            p.stdin.write("GO\n")
            p.stdin.flush()
        for p in procs:
            p.wait(timeout=a.engine_timeout)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    res = [json.load(open(o)) for o in outs]
    bad = [r for r in res if "parts" not in r]
    if bad:
        raise RuntimeError(bad[0].get("reason", "no parts"))
    return {"parts": [p for r in res for p in r["parts"]], "loadavg_before": res[0]["loadavg_before"], "loadavg_after": res[-1]["loadavg_after"]}


def build_queries(data, a, qpath):
    pools = workload.draw_pools(data, a.pool, a.rng_seed)
    sizes = {k: len(v) for k, v in pools.items()}
    seq = workload.sequence(a.warmup + a.queries, sizes, a.rng_seed + 1)
    t = time.perf_counter()
    kg = KG.from_csv(data)
    check = [[k, s, kg.full(k, s)] for k, s in workload.check_sample(pools, a.check)]
    log(f"reference answers of {len(check)} sample queries from the CSV files in {time.perf_counter() - t:.1f} s")
    q = {"pools": pools, "sequence": seq, "warmup": a.warmup, "max_seconds": a.max_seconds, "threads": 2, "thread_warmup": min(a.warmup, 200), "variant_trial": a.variant_trial, "check": check}
    json.dump(q, open(qpath, "w"))
    return q


def main():
    ap = argparse.ArgumentParser(prog=f"python3 -m {__spec__.name}", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--engines", default=",".join(ENGINES), help="comma-separated, from " + ",".join(ENGINES))
    ap.add_argument("--queries", type=int, default=20000, help="timed mix queries per mode")
    ap.add_argument("--warmup", type=int, default=1000, help="untimed mix queries before timing")
    ap.add_argument("--max-seconds", type=float, default=60, help="cap of each timed mode (slow engines run fewer queries)")
    ap.add_argument("--pool", type=int, default=500, help="seeds per pool")
    ap.add_argument("--check", type=int, default=50, help="sample seeds per kind answered and checked before timing")
    ap.add_argument("--variant-trial", type=int, default=300, help="queries each query form of an engine with several (Kuzu) is measured on")
    ap.add_argument("--variant", action="append", default=[], help="ENGINE=FORM: force a query form (kuzu=literal|params|prepared)")
    ap.add_argument("--rng-seed", type=int, default=20240611)
    ap.add_argument("--out", default=os.path.join(HERE, "..", "results", "retrieval"))
    ap.add_argument("--data-root", default=os.environ.get("HOPDB_BENCH_DATA") or os.path.expanduser("~/.cache/hopdb/bench-data"))
    ap.add_argument("--reload", default="", help="comma-separated engines whose kept database is loaded again, or 'all'")
    ap.add_argument("--engine-timeout", type=float, default=3600)
    ap.add_argument("--quiet-wait", type=float, default=60, help="before each engine, wait up to this long for the CPUs to be idle")
    ap.add_argument("--report-only", action="store_true", help="rebuild report.md and the chart from results.jsonl")
    a = ap.parse_args()
    a.variant = dict(v.split("=", 1) for v in a.variant)
    os.makedirs(a.out, exist_ok=True)
    jsonl = os.path.join(a.out, "results.jsonl")
    if a.report_only:
        return report.write(jsonl, a.out)
    engines = [e.strip() for e in a.engines.split(",") if e.strip()]
    bad = [e for e in engines if e not in ENGINES]
    if bad:
        raise SystemExit(f"unknown engines: {bad} (known: {list(ENGINES)})")
    benchlib.ensure_requirements()
    benchlib.ensure_requirements(os.path.join(benchlib.BENCH, "deep", "requirements.txt"))
    data, counts = benchlib.ensure_data(a.scale, a.data_root)
    sc = benchlib.scale_name(a.scale)
    root = os.path.join(a.data_root, "retrieval", f"s{sc}")
    os.makedirs(root, exist_ok=True)
    qpath = os.path.join(root, "queries.json")
    build_queries(data, a, qpath)
    env = module_env(dict(os.environ, HOPDB_BENCH_DATA=a.data_root))
    head = {"run_id": datetime.datetime.now().strftime("%Y%m%dT%H%M%S"), "scale": a.scale, "nodes": counts["nodes"], "edges": counts["edges"], "host": benchlib.host_info(),
            "queries_planned": a.queries, "warmup": a.warmup, "max_seconds": a.max_seconds, "pool": a.pool, "rng_seed": a.rng_seed, "check_per_kind": a.check}
    log(f"S={sc}: {counts['nodes']:,} nodes, {counts['edges']:,} edges; {a.warmup} + {a.queries} mix queries per mode, cap {a.max_seconds:g} s")
    lines, wrong = [], []
    for e in engines:
        p = probe(e, env)
        if not p.get("available"):
            log(f"{e}: skipped: {p.get('reason')}")
            lines.append(dict(head, engine=e, mode=None, status="skipped", reason=p.get("reason", "")))
            continue
        cache = os.path.join(a.data_root, "deep", f"s{sc}", cache_name(e))  # bench/deep's kept databases
        os.makedirs(cache, exist_ok=True)
        others = benchlib.wait_quiet(a.quiet_wait) if a.quiet_wait > 0 else None
        log(f"{e}: {p['version']}; running (other processes: {others if others is None else round(others, 2)} cores)")
        common_args = ["--data", data, "--cache", cache, "--queries", qpath]
        rpath = os.path.join(root, f"{e}.json")
        if os.path.exists(rpath):
            os.remove(rpath)
        res = run_engine(e, common_args, rpath, a, env)
        if res["status"] == "ok" and e in MULTI_PROCESS:
            try:
                res["modes"]["2-process"] = run_processes(e, 2, common_args, rpath, (res.get("variant") or {}).get("chosen"), a, env)
            except Exception as x:
                res["modes"]["2-process"] = {"error": f"{type(x).__name__}: {x}"}
        cleanup(e, cache, env)
        if res["status"] != "ok":
            log(f"{e}: {res['status']}: {res.get('reason', '')[:600]}")
            lines.append(dict(head, engine=e, mode=None, status=res["status"], reason=res.get("reason", ""), version=p.get("version")))
            continue
        if res["check"]["problems"]:
            wrong.append((e, res["check"]["problems"]))
        keep = {k: res.get(k) for k in ("version", "python", "prepare", "check", "variant")}
        keep["query_text"] = res.get("queries")
        keep["others_before_cores"] = others
        for mode, m in res["modes"].items():
            if "error" in m:
                lines.append(dict(head, engine=e, mode=mode, status="failed", reason=m["error"], **keep))
                log(f"{e} {mode}: failed: {m['error']}")
                continue
            s = measure.summarize(m["parts"], a.queries)
            lines.append(dict(head, engine=e, mode=mode, status="ok", loadavg_before=m["loadavg_before"], loadavg_after=m["loadavg_after"], **s, **keep))
            log(f"{e} {mode}: {s['qps']:,.0f} q/s ({s['queries']} queries in {s['seconds']:.1f} s)")
    with open(jsonl, "w") as f:
        for rec in lines:
            f.write(json.dumps(rec) + "\n")
    report.write(jsonl, a.out)
    for e, probs in wrong:
        log(f"WRONG ANSWERS from {e} ({len(probs)}), e.g.:\n" + "\n".join(f"  {x['kind']} {x['seed']}: {x['why']}" for x in probs[:10]))
    if wrong:
        log("FAILED: some engine answered wrongly (listed above and in report.md)")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
