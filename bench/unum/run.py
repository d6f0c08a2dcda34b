"""The UnumDB graph-benchmark suite on the real graphs of ../shared/datasets: HopDB and peers.

usage: python3 -m bench.unum.run --profile quick|full [--engines hopdb,sqlite,...] [--out DIR]
                                [--data-root DIR] [--datasets a,b] [--report-only]

Per dataset: parse the edge list once into a normalised CSV (datasets.py), draw the seeded
samples (workload.py), compute NetworkX's answers for the check items in this process, then run
every engine (its Unum class in bench/engines, peers.py) in its own process (worker.py), one at a
time, each after the machine is quiet (benchlib's wait_quiet), while this process samples the
engine's peak RSS (benchlib's Sampler; PostgreSQL: its server's process tree). Writes DIR/results.jsonl (one line per engine x
dataset x measurement), DIR/report.md and DIR/*.png (report.py). Exits 1 if an engine answered
wrongly or failed. See README.md beside this file.
"""

import argparse
import datetime
import json
import os
import shutil
import signal
import subprocess
import sys
import time

from bench import benchlib
from bench.benchlib import module_cmd, module_env
from bench.engines.networkx import NetworkXUnum
from bench.unum import datasets, report, workload
from bench.unum.peers import ENGINES

HERE = os.path.dirname(os.path.abspath(__file__))

DEFAULT_ENGINES = ["hopdb", "sqlite", "postgres", "networkx", "kuzu", "cozo", "neo4j"]
MIB = 1 << 20
log = report.log


def reference(ds, check):
    """NetworkX's canonical answers to the check items."""
    nx = NetworkXUnum()
    nx.open(None)
    nx.load(ds.csv)
    return {op: [workload.canon(op, getattr(nx, op)(*it) if isinstance(it, tuple) else getattr(nx, op)(it)) for it in check[op]] for op in workload.READ_OPS}


def probe(engine):
    """The worker's probe: {"status": "ok", "version"} or {"status": "skipped", "reason"}."""
    try:
        r = subprocess.run(module_cmd("bench.unum.worker", "probe", engine), capture_output=True, text=True, timeout=300, env=module_env())
    except subprocess.TimeoutExpired:
        return {"status": "skipped", "reason": "probe timed out after 300 s"}
    try:
        return json.loads(r.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {"status": "skipped", "reason": f"probe failed (exit {r.returncode}): {r.stderr[-500:]}"}


def run_engine(engine, plan_path, work, timeout):
    """The worker in its own session, sampled every 50 ms; returns its result plus memory figures."""
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    control, out = work + ".control", work + ".json"
    for p in (control, out):
        if os.path.exists(p):
            os.remove(p)
    cmd = module_cmd("bench.unum.worker", "run", engine, "--plan", plan_path, "--work", work, "--control", control, "--out", out)
    t0 = time.perf_counter()
    with open(work + ".stderr", "w") as err:
        proc = subprocess.Popen(cmd, stdout=err, stderr=subprocess.STDOUT, start_new_session=True, env=module_env())
        sampler = benchlib.Sampler(proc.pid, control)
        timed_out = False
        while proc.poll() is None:
            sampler.tick()
            if time.perf_counter() - t0 > timeout:
                timed_out = True
                os.killpg(proc.pid, signal.SIGKILL)  # the worker's own process group only
                proc.wait()
                break
            time.sleep(0.05)
        sampler.tick()
        sampler.finish()
    subprocess.run(module_cmd("bench.unum.worker", "cleanup", engine, "--work", work), capture_output=True, timeout=300, env=module_env())
    if timed_out:
        res = {"status": "failed", "reason": f"killed after {timeout:.0f} s (--engine-timeout)"}
    elif os.path.exists(out):
        res = json.load(open(out))
    else:
        res = {"status": "failed", "reason": f"worker exited {proc.returncode} without a result: " + open(work + ".stderr", errors="replace").read()[-1500:]}
    peaks = sampler.peak_rss
    res["peak_rss_import_mib"] = round(peaks.get("load", 0) / MIB, 1) if "load" in peaks else None
    res["peak_rss_run_mib"] = round(max(peaks.values(), default=0) / MIB, 1)
    engine_cpu, others = sampler.cpu()  # from the import's start to the end of the writes
    res["engine_cpu_s"], res["others_cores"] = engine_cpu, None if others is None else round(others, 2)
    res["worker_wall_s"] = time.perf_counter() - t0
    shutil.rmtree(work, ignore_errors=True)
    return res


def lines_of(res, common):
    """results.jsonl lines of one engine on one dataset: import + one per operation, or one
    line with measurement "all" when it did not run to the end."""
    base = dict(common, engine=res["engine"], version=res.get("version", ""), durability=res.get("durability", ""), notes=res.get("notes", ""))
    if res["status"] != "ok":
        st = "skipped" if res["status"] == "skipped" else "failed"
        return [dict(base, measurement="all", status=st, reason=res.get("reason", ""), wrong_answer=res["status"] == "wrong",
                     peak_rss_run_mib=res.get("peak_rss_run_mib"))]
    ok = dict(base, status="ok", reason="")
    cpu = {k: res[k] for k in ("reads_wall_s", "reads_client_cpu_s", "writes_wall_s", "writes_client_cpu_s")}
    out = [dict(ok, measurement="import", import_s=res["import_s"], edges_per_s=common["edges"] / res["import_s"], disk_bytes=res["disk_bytes"],
                peak_rss_import_mib=res["peak_rss_import_mib"], peak_rss_run_mib=res["peak_rss_run_mib"], engine_cpu_s=res["engine_cpu_s"],
                others_cores=res["others_cores"], **cpu)]
    for op, s in res["ops"].items():
        out.append(dict(ok, measurement=op, **s))
    return out


def main():
    ap = argparse.ArgumentParser(prog=f"python3 -m {__spec__.name}", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--profile", choices=sorted(workload.PROFILES), default="quick",
                    help="quick: wiki-Vote, 1,000 ops per operation, 3 batches; full: five graphs, 10,000 reads (3 s at most per operation), 2,000 single writes, 10 batches")
    ap.add_argument("--engines", default=",".join(DEFAULT_ENGINES), help=f"comma-separated, of {','.join(ENGINES)} (default all)")
    ap.add_argument("--datasets", help=f"comma-separated, instead of the profile's (of {','.join(datasets.DATASETS)})")
    ap.add_argument("--out", default=os.path.join(HERE, "..", "results", "unum"), help="results directory (default bench/results/unum)")
    ap.add_argument("--data-root", default=datasets.default_root(), help="the real datasets (default ../shared/datasets or $HOPDB_DATASETS)")
    ap.add_argument("--cache", default=os.path.expanduser("~/.cache/hopdb/bench-data/unum"), help="normalised edge files, plans and the engines' working directories")
    ap.add_argument("--seed", type=int, default=42, help="seed of every sample (default 42)")
    ap.add_argument("--reads", type=int, help="override the profile's operations per read operation")
    ap.add_argument("--writes", type=int, help="override the profile's single upserts / removes")
    ap.add_argument("--batches", type=int, help="override the profile's batches per batch operation")
    ap.add_argument("--warmup", type=int, default=2000, help="untimed calls of each read operation (on its first items) before the timed pass (default 2000)")
    ap.add_argument("--engine-timeout", type=float, help="kill an engine's run on one dataset after this many seconds (default 300 quick, 900 full)")
    ap.add_argument("--quiet-wait", type=float, default=30, help="wait at most this long for other processes to go idle before each engine (s)")
    ap.add_argument("--append", action="store_true", help="append to results.jsonl instead of replacing it")
    ap.add_argument("--report-only", action="store_true", help="rebuild report.md and the charts from results.jsonl")
    a = ap.parse_args()
    out = os.path.abspath(a.out)
    os.makedirs(out, exist_ok=True)
    jsonl = os.path.join(out, "results.jsonl")
    if a.report_only:
        report.write(jsonl, out)
        return 0
    engines = [e for e in a.engines.split(",") if e]
    unknown = [e for e in engines if e not in ENGINES]
    if unknown:
        ap.error(f"unknown engines {unknown} (known: {','.join(ENGINES)})")
    benchlib.ensure_requirements(os.path.join(HERE, "requirements.txt"))
    prof = dict(workload.PROFILES[a.profile])
    prof.update({k: v for k, v in (("reads", a.reads), ("writes", a.writes), ("batches", a.batches)) if v})
    timeout = a.engine_timeout or (300 if a.profile == "quick" else 900)
    names = a.datasets.split(",") if a.datasets else datasets.PROFILE_DATASETS[a.profile]
    run_id = datetime.datetime.now().strftime("%Y%m%dT%H%M%S")
    command = "python3 -m bench.unum.run " + " ".join(sys.argv[1:])
    host = benchlib.host_info()
    if not a.append and os.path.exists(jsonl):
        os.remove(jsonl)
    probes = {e: probe(e) for e in engines}
    for e, p in probes.items():
        log(f"{e}: {p.get('version') or 'skipped: ' + p['reason']}")
    bad = []
    t_all = time.perf_counter()
    for name in names:
        if name not in datasets.DATASETS:
            ap.error(f"unknown dataset {name} (known: {','.join(datasets.DATASETS)})")
        common = dict(run_id=run_id, profile=a.profile, command=command, host=host, dataset=name, seed=a.seed, ops_config=dict(prof, warmup=a.warmup),
                      absent_share=workload.ABSENT_SHARE)
        ds = datasets.load(name, a.data_root, a.cache)
        if ds is None:
            reason = f"dataset not found: {os.path.join(a.data_root, datasets.DATASETS[name][0])}"
            log(f"{name}: skipped, {reason}")
            with open(jsonl, "a") as f:
                for e in engines:
                    f.write(json.dumps(dict(common, engine=e, measurement="all", status="skipped", reason=reason)) + "\n")
            continue
        common.update(ds.info)
        log(f"{name}: {ds.info['nodes']:,} vertices, {ds.info['edges']:,} edges; drawing samples, NetworkX reference answers")
        items, check = workload.plan(ds.edges, ds.nodes, prof, a.seed)
        plan = {"dataset": name, "csv": ds.csv, "edges": len(ds.edges), "batch": prof["batch"], "warmup": a.warmup, "read_budget_s": prof.get("read_budget_s"), "items": items, "check": check,
                "ref": reference(ds, check), "edges_after_upserts": len(ds.edges) + len(items["upsert"]) + prof["batches"] * prof["batch"],
                "edges_after": len(ds.edges)}  # as many removed as upserted
        plan_path = os.path.join(a.cache, name, "plan.json")
        json.dump(plan, open(plan_path, "w"))
        for e in engines:
            if probes[e]["status"] != "ok":
                with open(jsonl, "a") as f:
                    f.write(json.dumps(dict(common, engine=e, measurement="all", status="skipped", reason=probes[e]["reason"])) + "\n")
                continue
            others = benchlib.wait_quiet(a.quiet_wait)
            la0 = os.getloadavg()
            log(f"{name}: {e} ...")
            res = run_engine(e, plan_path, os.path.join(a.cache, "work", e), timeout)
            res.setdefault("engine", e)
            meta = dict(common, others_cores_before=round(others, 2), loadavg_before=la0, loadavg_after=os.getloadavg(), worker_wall_s=res["worker_wall_s"])
            log(f"{name}: {e}: {res['status']} {res.get('reason', '')[:300]} ({res['worker_wall_s']:.0f} s)")
            if res["status"] in ("wrong", "failed"):
                bad.append(f"{name} {e}: {res['status']}: {res.get('reason', '')[:300]}")
            with open(jsonl, "a") as f:
                for line in lines_of(res, meta):
                    f.write(json.dumps(line) + "\n")
    report.write(jsonl, out)
    log(f"done in {time.perf_counter() - t_all:.0f} s; report {os.path.join(out, 'report.md')}")
    if bad:
        log("FAILED:\n  " + "\n  ".join(bad))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
