"""Workload 3 of issue 6, the Cozo performance-report suite, on real attributed graphs.

usage: python3 -m bench.cozo_suite.run --profile quick|full [--engines hopdb,cozo,kuzu,sqlite,networkx]
                                      [--out DIR] [--data-root DIR] [--report-only] [...]

For each dataset (quick: musae-twitch-DE; full: + musae-github, snap-soc-Slashdot0902) this
process parses the files, computes the reference answers in plain Python (point reads from the
CSV, k-hop counts by BFS, the group-by, PageRank by NetworkX), then runs each engine (its class in
bench/engines, peers.py) in its own worker process (worker.py), one at a time after benchlib's
wait_quiet, sampling the worker's process tree RSS every 50 ms per phase (benchlib's Sampler).
Writes OUT/results.jsonl (one line per engine x dataset x measurement), OUT/report.md and
OUT/*.png. Exit 1 when an engine returned a wrong answer. See README.md beside this file.
"""

import argparse
import datetime
import json
import os
import shlex
import shutil
import subprocess
import sys
import time

from bench import benchlib
from bench.benchlib import module_cmd, module_env
from bench.cozo_suite.datasets import DATASETS, PROFILES, adjacency, group_by, parse, ratio, sample_keys, within_k
from bench.cozo_suite.peers import ENGINES, NAMES

HERE = os.path.dirname(os.path.abspath(__file__))

ORDER = ["hopdb", "cozo", "kuzu", "sqlite", "networkx"]
SETTINGS = {  # per profile: QPS window s, k-hop starts per k, k-hop timeout s, group-by repeats
    "quick": {"window": 0.5, "starts": 5, "timeout": 5.0, "repeats": 3},
    "full": {"window": 3.0, "starts": 20, "timeout": 5.0, "repeats": 3},
}
HOPS = (2, 3, 4)
SEED = 42
MIB = 1 << 20
log = benchlib.log


def reference(data, starts):
    """The answers every engine must give, computed without any engine."""
    import networkx as nx

    adj = adjacency(data)
    ref = {"pool": sample_keys(data, 1000, SEED), "hops": {}}
    ref["reads"] = {k: data.node_props(data.keys.index(k)) for k in sample_keys(data, 50, SEED + 1)} if data.types else {}
    for k in HOPS:
        ref["hops"][k] = {s: within_k(adj, s, k) for s in sample_keys(data, starts, SEED + k)}
    prop = data.spec.get("group_by")
    ref["group_by"] = [[v, c, d] for v, (c, d) in group_by(data, prop).items()] if prop else []
    G = nx.DiGraph() if data.directed else nx.Graph()
    G.add_nodes_from(data.keys)
    G.add_edges_from(zip(data.src, data.dst, strict=False))
    ref["pagerank"] = nx.pagerank(G, alpha=0.85, max_iter=100, tol=1e-6)
    return ref



def run_worker(engine, dataset, ref_path, work, a, s):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    control = os.path.join(work, "control")
    cmd = [*module_cmd("bench.cozo_suite.worker"), "--engine", engine, "--dataset", dataset, "--data-root", a.data_root,
           "--work", os.path.join(work, "w"), "--control", control, "--reference", ref_path,
           "--window", str(s["window"]), "--timeout", str(s["timeout"]), "--repeats", str(s["repeats"]), "--seed", str(SEED)]
    out_p, err_p = os.path.join(work, "stdout"), os.path.join(work, "stderr")
    t0 = time.perf_counter()
    with open(out_p, "w") as out, open(err_p, "w") as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, start_new_session=True, env=module_env())
        sampler = benchlib.Sampler(proc.pid, control)
        killed = False
        while proc.poll() is None:
            sampler.tick()
            if time.perf_counter() - t0 > a.engine_timeout:
                killed = True
                os.killpg(proc.pid, 9)  # the worker's own process group only
                proc.wait()
            time.sleep(0.05)
        sampler.tick()
    lines = open(out_p).read().strip().splitlines()
    res = json.loads(lines[-1]) if lines and lines[-1].startswith("{") else None
    if res is None:
        why = f"killed after {a.engine_timeout:.0f} s" if killed else f"worker exited {proc.returncode}: {open(err_p).read()[-1500:]}"
        return None, why, sampler.peak_rss
    return res, "", sampler.peak_rss


def main():
    ap = argparse.ArgumentParser(prog=f"python3 -m {__spec__.name}", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--profile", choices=sorted(SETTINGS), default="quick", help="quick: twitch-DE, 0.5 s windows; full: 3 graphs, 3 s windows")
    ap.add_argument("--engines", default=",".join(ORDER), help="comma-separated, from " + ",".join(ORDER))
    ap.add_argument("--datasets", help="comma-separated, from " + ",".join(DATASETS) + " (default: the profile's)")
    ap.add_argument("--out", default=os.path.normpath(os.path.join(HERE, "..", "results", "cozo_suite")))
    ap.add_argument("--data-root", default=os.environ.get("HOPDB_DATASETS") or os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "datasets")),
                    help="the real-graph folder with SOURCES.md (default $HOPDB_DATASETS or ../shared/datasets beside the repository)")
    ap.add_argument("--work", default=os.path.expanduser("~/.cache/hopdb/bench-data/cozo_suite"), help="scratch stores (removed after each engine)")
    ap.add_argument("--window", type=float, help="override the profile's QPS window (s)")
    ap.add_argument("--quiet-wait", type=float, default=60, help="before each engine, wait up to this many s for other processes to go idle")
    ap.add_argument("--engine-timeout", type=float, default=900, help="kill an engine's worker after this many s")
    ap.add_argument("--report-only", action="store_true", help="only rebuild report.md and the charts from results.jsonl")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    jsonl = os.path.join(a.out, "results.jsonl")
    if a.report_only:
        write_report(jsonl, a.out)
        return 0
    for req in ("bulk_import", "cozo_suite"):
        benchlib.ensure_requirements(os.path.join(HERE, "..", req, "requirements.txt"))
    engines = [e for e in a.engines.split(",") if e]
    bad = [e for e in engines if e not in ENGINES]
    if bad:
        raise SystemExit(f"unknown engines {bad}; known: {ORDER}")
    s = dict(SETTINGS[a.profile])
    if a.window:
        s["window"] = a.window
    datasets = a.datasets.split(",") if a.datasets else PROFILES[a.profile]
    host = benchlib.host_info()
    run_id = datetime.datetime.now().strftime("%Y%m%dT%H%M%S")
    command = "python3 -m bench.cozo_suite.run " + " ".join(shlex.quote(x) for x in sys.argv[1:])
    open(jsonl, "w").close()
    wrong = False

    def emit(rec):
        with open(jsonl, "a") as f:
            f.write(json.dumps(dict(rec, run_id=run_id, profile=a.profile, command=command, host=host, settings=s)) + "\n")

    for ds in datasets:
        data = parse(ds, a.data_root)
        if data is None:
            log(f"{ds}: dataset absent under {a.data_root}/{DATASETS[ds]['dir']}: skipped")
            for e in engines:
                emit({"engine": e, "dataset": ds, "op": "all", "status": "skipped", "reason": f"dataset folder {DATASETS[ds]['dir']} absent under {a.data_root}"})
            continue
        info = {"nodes": len(data.keys), "edges": len(data.src), "raw_edges": data.raw_edges, "directed": data.directed, "props": data.types}
        log(f"{ds}: {info['nodes']:,} nodes, {info['edges']:,} edges; computing reference answers")
        t0 = time.perf_counter()
        ref = reference(data, s["starts"])
        log(f"  reference in {time.perf_counter() - t0:.1f} s")
        work = os.path.join(a.work, ds)
        os.makedirs(work, exist_ok=True)
        ref_path = os.path.join(work, "reference.json")
        json.dump(ref, open(ref_path, "w"))
        for e in engines:
            before = benchlib.wait_quiet(a.quiet_wait) if a.quiet_wait > 0 else None
            load0 = os.getloadavg()[0]
            log(f"{ds}: {e}" + (f" (other processes used {before:.2f} cores)" if before is not None else ""))
            t0 = time.perf_counter()
            res, why, peaks = run_worker(e, ds, ref_path, os.path.join(work, e), a, s)
            base = {"engine": e, "dataset": ds, "dataset_info": info, "loadavg_before": load0, "loadavg_after": os.getloadavg()[0],
                    "others_cores_before": before, "worker_s": time.perf_counter() - t0}
            if res is None:
                log(f"  failed: {why[:300]}")
                emit(dict(base, op="all", status="failed", reason=why))
                continue
            base["version"] = res["version"]
            for m in res["measurements"]:
                rss = peaks.get(m["phase"])
                emit(dict(base, **m, peak_rss_mib=round(rss / MIB, 1) if rss else None))
            if res["wrong"]:
                wrong = True
                log("  WRONG ANSWERS: " + "; ".join(res["wrong"]))
                emit(dict(base, op="answer_check", status="failed", reason="wrong answer: " + "; ".join(res["wrong"])))
            else:
                log(f"  ok in {time.perf_counter() - t0:.0f} s: " + ", ".join(f"{label(m)}={_headline(m)}" for m in res["measurements"] if m["status"] == "ok"))
            shutil.rmtree(os.path.join(work, e), ignore_errors=True)
    write_report(jsonl, a.out)
    log(f"wrote {jsonl} and {os.path.join(a.out, 'report.md')}")
    return 1 if wrong else 0


# ---------------------------------------------------------------------------------------------
# Report

# op -> (column in the record, unit, higher is better)
METRIC = {
    "import": ("rows_per_s", "rows/s", True),
    "backup": ("rows_per_s", "rows/s", True),
    "restore": ("rows_per_s", "rows/s", True),
    "point_read": ("qps", "ops/s", True),
    "point_write": ("qps", "ops/s", True),
    "point_update": ("qps", "ops/s", True),
    "mixed_90_10": ("qps", "ops/s", True),
    "hop_2": ("median_ms", "ms (median)", False),
    "hop_3": ("median_ms", "ms (median)", False),
    "hop_4": ("median_ms", "ms (median)", False),
    "group_by": ("median_ms", "ms (median)", False),
    "pagerank": ("seconds", "s", False),
    "projection": ("seconds", "s", False),
}


def _headline(m):
    col = METRIC.get(m["op"], ("", "", True))[0]
    v = m.get(col)
    return "?" if v is None else fmt(v)


def fmt(x):
    if x is None:
        return "-"
    if x >= 1e6:
        return f"{x / 1e6:.2f}M"
    if x >= 1e4:
        return f"{x / 1e3:.0f}K"
    if x >= 100:
        return f"{x:.0f}"
    if x >= 1:
        return f"{x:.2f}"
    return f"{x:.3g}"


def label(r):
    v = f" ({r['variant']})" if r.get("variant") else ""
    return r["op"] + v + (f" x{r['threads']}t" if r.get("threads") else "") + (f" x{r['processes']}p" if r.get("processes") else "")


def write_report(jsonl, out):
    recs = [json.loads(x) for x in open(jsonl) if x.strip()]
    if not recs:
        return
    r0 = recs[0]
    h = r0["host"]
    engines = [e for e in ORDER if any(r["engine"] == e for r in recs)]
    datasets = list(dict.fromkeys(r["dataset"] for r in recs))
    md = ["# Workload 3: the Cozo performance-report suite on real attributed graphs", ""]
    md.append(f"Command: `{r0['command']}` (profile {r0['profile']}, run {r0['run_id']}). Settings: {r0['settings']}.")
    md.append(f"Machine: {h['cpu']}, {h['cores']} cores, {h['mem_gib']} GiB, Linux {h['kernel']}, Python {h['python']}.")
    versions = {r["engine"]: r["version"] for r in recs if r.get("version")}
    md.append("Engines: " + "; ".join(versions.get(e, NAMES[e]) for e in engines) + ".")
    md.append("")
    md.append(
        "Each engine ran alone in its own process (after waiting for the machine to go quiet), embedded in Python. "
        "Cells: the measurement, then in brackets HopDB's advantage over that engine (its rate / the engine's rate, or the engine's "
        "latency / HopDB's latency: above 1 means HopDB is better). QPS: Python threads in a tight loop over a fixed window "
        "(same seeded keys for every engine); with 2 threads the GIL serialises the Python side, so a gain needs an engine "
        "that releases it. `x2p`: point reads from 2 processes, each opening the store read-only, for the engines that allow a "
        "second process (SQLite and HopDB beside the open writer; Kuzu only once its read-write database is closed; Cozo and "
        "NetworkX not at all). k-hop: distinct nodes within k hops (edges followed both ways, start excluded) from seeded random "
        "starts; median over the queries that finished, timeouts counted apart (after 3 timeouts at one k, that k's remaining starts are not run). Group-by: count of nodes and sum of degrees "
        "per value of the property. Every engine's point reads, k-hop counts and group-by were checked against the reference "
        "(plain Python over the files) before timing, and the timed k-hop counts too; PageRank's top-10 against NetworkX's."
    )
    busy = [f"{NAMES[r['engine']]} on {r['dataset']} ({r['others_cores_before']:.1f} cores)" for r in recs if r["op"] == "import" and (r.get("others_cores_before") or 0) > 0.5]
    if busy:
        md += ["", f"**Caution:** other processes kept the machine busy when these engines started (after the quiet wait timed out): {', '.join(busy)}. Those engines' figures are lower than on an idle machine, by an amount that changed during the run. Ratios that involve them are unreliable: rerun on a quiet machine."]
    skipped = []
    for ds in datasets:
        rs = [r for r in recs if r["dataset"] == ds]
        info = next((r["dataset_info"] for r in rs if r.get("dataset_info")), None)
        md += ["", f"## {ds}", ""]
        if info:
            md.append(f"{info['nodes']:,} nodes, {info['edges']:,} edges ({info['raw_edges']:,} lines in the file), "
                      f"{'directed' if info['directed'] else 'undirected'}, node properties: {', '.join(f'{k} ({t})' for k, t in info['props'].items()) or 'none'}.")
            md.append("")
        ok = {(r["engine"], label(r)): r for r in rs if r["status"] == "ok" and r["op"] in METRIC}
        labels = list(dict.fromkeys(label(r) for r in rs if r["op"] in METRIC))
        md.append("| measurement | unit | " + " | ".join(NAMES[e] for e in engines) + " |")
        md.append("|---|---|" + "---:|" * len(engines))
        for lb in labels:
            op = lb.split(" ")[0]
            col, unit, hib = METRIC[op]
            hop = ok.get(("hopdb", lb), {}).get(col)
            cells = []
            for e in engines:
                r = ok.get((e, lb))
                if r is None or r.get(col) is None:
                    cells.append("skipped" if any(x["engine"] == e and label(x) == lb and x["status"] == "skipped" for x in rs) else "-")
                    continue
                v = fmt(r[col])
                if op.startswith("hop_"):
                    v += f" (p95 {fmt(r['p95_ms'])})" + (f", {r['timeouts']}/{r['queries']} timed out" if r["timeouts"] else "")
                    v += f", {r['not_run']} not run" if r.get("not_run") else ""
                if r.get("errors"):
                    v += f", {r['errors']} errors*"
                rt = ratio(hop, r[col], hib) if e != "hopdb" else None
                cells.append(v + (f" [{rt:.2f}x]" if rt else ""))
            md.append(f"| {lb} | {unit} | " + " | ".join(cells) + " |")
        md += ["", "Peak RSS of the engine's process tree during each measurement (MiB):", ""]
        md.append("| measurement | " + " | ".join(NAMES[e] for e in engines) + " |")
        md.append("|---|" + "---:|" * len(engines))
        for lb in labels:
            cells = [fmt(ok[(e, lb)].get("peak_rss_mib")) if (e, lb) in ok else "-" for e in engines]
            md.append(f"| {lb} | " + " | ".join(cells) + " |")
        extra = [f"- {NAMES[r['engine']]} {r['op']}: {r['notes']}" for r in rs if r.get("notes") and r["status"] == "ok"]
        extra += [f"- {NAMES[r['engine']]} import: {fmt(r['disk_mib'])} MiB on disk" for r in rs if r["op"] == "import" and r["status"] == "ok"]
        extra += [f"- {NAMES[r['engine']]} PageRank top-10: {r['top10']}" for r in rs if r["op"] == "pagerank" and r["status"] == "ok"]
        for e in engines:
            cores = ", ".join(f"{label(x)} {x['process_cores']:.2f}" for x in rs if x["engine"] == e and "process_cores" in x)
            if cores:
                extra.append(f"- {NAMES[e]}: CPU cores the process used in the QPS windows (engine + client in one process): {cores}")
        extra += [f"- {NAMES[r['engine']]}: load average {r['loadavg_before']:.2f} before, {r['loadavg_after']:.2f} after; other processes used {r['others_cores_before'] or 0:.2f} cores when it started"
                  for r in rs if r["op"] == "import" and r["status"] == "ok"]
        extra += [f"- {NAMES[r['engine']]} {label(r)}: {r['errors']} operations failed and were not counted (first: {r['first_error']})" for r in rs if r.get("errors")]
        md += ["", "Notes:", ""] + extra
        skipped += [f"- {ds}, {NAMES[r['engine']]}, {label(r)}: {r['status']}: {r['reason']}" for r in rs if r["status"] != "ok"]
        charts(ds, rs, engines, out)
        md += ["", f"![QPS]({ds}_qps.png) ![k-hop latency]({ds}_hops.png) ![rows/s]({ds}_rates.png) ![peak RSS]({ds}_memory.png)"]
    if skipped:
        md += ["", "## Skipped and failed", ""] + list(dict.fromkeys(skipped))
    open(os.path.join(out, "report.md"), "w").write("\n".join(md) + "\n")


def charts(ds, rs, engines, out):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ok = [r for r in rs if r["status"] == "ok"]

    def bars(groups, col, fname, title, ylabel, log=True, err=None):
        present = [e for e in engines if any(r["engine"] == e for r in ok)]
        if not present or not groups:
            return
        fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(groups) + 2), 4.5))
        width = 0.8 / len(present)
        for j, e in enumerate(present):
            xs, ys, es = [], [], []
            for i, g in enumerate(groups):
                r = next((r for r in ok if r["engine"] == e and label(r) == g), None)
                if r and r.get(col):
                    xs.append(i - 0.4 + width * (j + 0.5))
                    ys.append(r[col])
                    es.append(max(0, (r.get(err) or r[col]) - r[col]) if err else 0)
            ax.bar(xs, ys, width * 0.95, label=NAMES[e], yerr=[[0] * len(es), es] if err else None, capsize=2)
        ax.set_xticks(range(len(groups)))
        ax.set_xticklabels(groups, rotation=20, ha="right", fontsize=8)
        if log:
            ax.set_yscale("log")
        ax.set_ylabel(ylabel)
        ax.set_title(f"{ds}: {title}")
        ax.legend(fontsize=8)
        ax.grid(axis="y", alpha=0.3)
        fig.tight_layout()
        fig.savefig(os.path.join(out, f"{ds}_{fname}.png"), dpi=110)
        plt.close(fig)

    ordered = lambda ops: [lb for lb in dict.fromkeys(label(r) for r in ok) if lb.split(" ")[0] in ops]  # noqa: E731
    bars(ordered(["point_read", "point_write", "point_update", "mixed_90_10"]), "qps", "qps", "QPS by operation and threads", "ops/s (higher is better)")
    bars(ordered(["hop_2", "hop_3", "hop_4"]), "median_ms", "hops", "k-hop latency (bar median, whisker p95)", "ms (lower is better)", err="p95_ms")
    bars(ordered(["import", "backup", "restore"]), "rows_per_s", "rates", "import / backup / restore", "rows/s (higher is better)")
    bars(list(dict.fromkeys(label(r) for r in ok if r.get("peak_rss_mib"))), "peak_rss_mib", "memory", "peak RSS per measurement", "MiB", log=False)


if __name__ == "__main__":
    sys.exit(main())
