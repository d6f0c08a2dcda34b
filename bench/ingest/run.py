"""Workload 4, the ingestion and write-path matrix (the RocksDB graph study).

  python3 -m bench.ingest.run --profile quick|full [--engines hopdb,sqlite,kuzu,arcadedb,leveldb]
                             [--parts ingest,compaction] [--out DIR] [--data-root DIR] [--report-only]

Parts:
  ingest      the synthetic graph (synth.py) loaded row by row, in batches and from Arrow/Polars
              tables, at each N, under `taskset -c 0` (1 core) and `taskset -c 0,1` (2 cores), one
              worker process per run (worker.py, the loaders in bench/engines); after the columnar loads on 2 cores, HopDB and
              ArcadeDB answer the traversals (star, BFS depth 3, RelA-then-RelB), checked against
              the pure-Python reference.
  compaction  repeated permuted overwrites of K keys with 1 KiB values through HopDB's write path
              (crates/hopdb-core/examples/compaction_pressure.rs) per configuration, and LevelDB.
Writes OUT/results.jsonl, OUT/report.md and OUT/*.png. Exit 1 on a wrong answer. See README.md.
"""

import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import time

from bench import benchlib
from bench.benchlib import ROOT, module_cmd, module_env
from bench.engines import hopdb
from bench.ingest import synth

HERE = os.path.dirname(os.path.abspath(__file__))

ENGINES = ["hopdb", "sqlite", "kuzu", "arcadedb", "leveldb"]
NAMES = {"hopdb": "HopDB", "sqlite": "SQLite", "kuzu": "Kuzu", "arcadedb": "ArcadeDB", "leveldb": "LevelDB"}
# (engine, mode) in report order; `ArcadeDB batch` is its GraphBatch bulk loader.
RUNS = [("hopdb", "row"), ("hopdb", "batch"), ("hopdb", "arrow"), ("hopdb", "polars"),
        ("sqlite", "row"), ("sqlite", "batch"), ("kuzu", "arrow"), ("kuzu", "polars"), ("arcadedb", "batch")]
# The HopDB mode each peer run is compared with: like with like, bulk loaders with HopDB's Arrow import.
HOPDB_PEER_MODE = {("sqlite", "row"): "row", ("sqlite", "batch"): "batch", ("kuzu", "arrow"): "arrow",
                   ("kuzu", "polars"): "polars", ("arcadedb", "batch"): "arrow"}
PROFILES = {
    "quick": {"ns": [10_000, 50_000], "row_cap": 5, "reps": 10, "keys": 20_000, "rounds": 3, "probes": 10_000},
    "full": {"ns": [10_000, 100_000, 1_000_000], "row_cap": 20, "reps": 20, "keys": 200_000, "rounds": 5, "probes": 20_000},
}
CORES = {1: "0", 2: "0,1"}
QUERY_NAMES = {"star": "star (hub's out RelA)", "bfs": "BFS depth 3 (out)", "two_step": "RelA then RelB"}


def log(msg):
    print(f"[{datetime.datetime.now():%H:%M:%S}] {msg}", file=sys.stderr, flush=True)


def probe(engine):
    """None if the engine's Python package imports, else the exact error."""
    mod = {"hopdb": "hopdb", "kuzu": "kuzu", "arcadedb": "arcadedb_embedded", "leveldb": "plyvel", "sqlite": "sqlite3"}[engine]
    r = subprocess.run([sys.executable, "-c", f"import {mod}"], capture_output=True, text=True)
    return None if r.returncode == 0 else r.stderr.strip().splitlines()[-1]


def measured(cmd, timeout):
    """Runs a worker; returns (its JSON result or None, error text, load and CPU context)."""
    load0, busy0, t0 = os.getloadavg()[0], benchlib.machine_busy_s(), time.time()
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=module_env())
        out, err = r.stdout, f"exit {r.returncode}: {r.stderr.strip()[-800:]}"
    except subprocess.TimeoutExpired:
        out, err = "", f"timed out after {timeout} s"
    wall = time.time() - t0
    ctx = {"load_before": round(load0, 2), "load_after": round(os.getloadavg()[0], 2),
           "machine_cores_busy": round((benchlib.machine_busy_s() - busy0) / wall, 2)}
    for line in out.splitlines()[::-1]:
        if line.startswith("RESULT "):
            return json.loads(line[7:]), None, ctx
        if line.startswith("{"):
            return json.loads(line), None, ctx
    return None, err, ctx


def check_traversal(res, ref):
    """Wrong answers of a worker's traversal queries against the reference (empty: all right)."""
    q = res["queries"]
    bad = []
    for name in ("star", "two_step"):
        if q[name]["answer"] != ref[name]["answer"]:
            bad.append(f"{name}: {len(q[name]['answer'])} nodes, expected {len(ref[name]['answer'])} (sets differ)")
    if q["bfs"]["answer"] != ref["bfs"]["count"]:
        bad.append(f"bfs: {q['bfs']['answer']} nodes, expected {ref['bfs']['count']}")
    return bad


def run_ingest(a, prof, emit, host):
    wrong = False
    work = os.path.join(a.data_root, "ingest-work")
    for n in prof["ns"]:
        for cores, cpus in CORES.items():
            for engine, mode in RUNS:
                if engine not in a.engines:
                    continue
                base = {"part": "ingest", "engine": engine, "mode": mode, "n": n, "cores": cores, "host": host}
                why = a.unavailable.get(engine)
                if why:
                    emit({**base, "status": "skipped", "reason": why})
                    continue
                queries = cores == 2 and (engine, mode) in (("hopdb", "arrow"), ("arcadedb", "batch"))
                shutil.rmtree(work, ignore_errors=True)
                os.makedirs(work)
                cmd = ["taskset", "-c", cpus, *module_cmd("bench.ingest.worker"), "--engine", engine,
                       "--mode", mode, "--n", str(n), "--work", work, "--time-limit", str(prof["row_cap"])]
                if queries:
                    cmd += ["--queries", "--reps", str(prof["reps"])]
                log(f"ingest {engine} {mode} N={n} cores={cores}")
                res, err, ctx = measured(cmd, timeout=prof["row_cap"] * 4 + 600)
                if res is None:
                    emit({**base, **ctx, "status": "failed", "reason": err})
                    continue
                rec = {**base, **ctx, **{k: v for k, v in res.items() if k not in ("queries", "reference")},
                       "status": "ok", "reason": "capped at the time limit" if res["capped"] else ""}
                if sum(res["counted"]) != res["rows"]:
                    rec.update(status="failed", reason=f"engine counts {res['counted']} nodes/edges, {res['rows']} written")
                    wrong = True
                emit(rec)
                if queries:
                    bad = check_traversal(res, res["reference"])
                    wrong |= bool(bad)
                    for name, q in res["queries"].items():
                        ans = q["answer"]
                        emit({**base, **ctx, "part": "traversal", "query": name, "from": res["reference"][name]["from"],
                              "status": "failed" if any(b.startswith(name) for b in bad) else "ok",
                              "reason": "; ".join(b for b in bad if b.startswith(name)) or "",
                              "answer_size": ans if isinstance(ans, int) else len(ans), "ms": [round(x, 3) for x in q["ms"]],
                              "median_ms": round(synth.median(q["ms"]), 3), "p95_ms": round(synth.percentile(q["ms"], 95), 3)})
    shutil.rmtree(work, ignore_errors=True)
    return wrong


def example_binary():
    """Builds the compaction example (release, the shared target dir); its path, or an error."""
    env_target = subprocess.run(["bash", "-c", f"source {ROOT}/scripts/env.sh && echo $CARGO_TARGET_DIR"],
                                capture_output=True, text=True).stdout.strip()
    r = subprocess.run(["bash", "-c", f"cd {ROOT} && source scripts/env.sh && cargo build -q --release -p hopdb-core --example compaction_pressure"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return None, f"cargo build failed: {r.stderr.strip()[-500:]}"
    return os.path.join(env_target, "release", "examples", "compaction_pressure"), None


def run_compaction(a, prof, emit, host):
    work = os.path.join(a.data_root, "compaction-work")
    keys, rounds, probes, batch = prof["keys"], prof["rounds"], prof["probes"], a.batch
    jobs = []
    if "hopdb" in a.engines:
        binary, err = example_binary()
        for name in hopdb.COMPACTION_CONFIGS:
            jobs.append(("hopdb", name, err or a.unavailable.get("hopdb"),
                         binary and hopdb.compaction_cmd(binary, name, work, keys, rounds, batch, probes)))
    if "leveldb" in a.engines:
        jobs.append(("leveldb", "baseline", a.unavailable.get("leveldb"),
                     [*module_cmd("bench.ingest.compaction"), "leveldb", "--dir", work, "--keys", str(keys),
                      "--rounds", str(rounds), "--batch", str(batch), "--probes", str(probes)]))
    for engine, name, why, cmd in jobs:
        base = {"part": "compaction", "engine": engine, "config": name, "host": host}
        if why:
            emit({**base, "status": "skipped", "reason": why})
            continue
        shutil.rmtree(work, ignore_errors=True)
        log(f"compaction {engine} {name}: {keys} keys x {rounds} rounds")
        res, err, ctx = measured(cmd, timeout=1200)
        emit({**base, **ctx, **(res or {}), "status": "ok" if res else "failed", "reason": err or ""})
    shutil.rmtree(work, ignore_errors=True)


# ---- report ----

def fmt(x, unit=""):
    if x is None:
        return "-"
    for div, s in ((1e6, "M"), (1e3, "K")):
        if abs(x) >= div:
            return f"{x / div:.2f}{s}{unit}"
    return f"{x:.3g}{unit}"


def fmt_ratio(r):
    return "-" if r is None else f"{r:.2f}x"


def ingest_table(recs):
    ok = {(r["engine"], r["mode"], r["n"], r["cores"]): r for r in recs if r["status"] == "ok"}
    lines = ["| N | engine | mode | cores | rows/s | time s | peak RSS MiB | disk MiB | worker CPU cores | machine busy cores | 2-core/1-core | HopDB/peer |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in recs:
        key = (r["engine"], r["mode"], r["n"], r["cores"])
        if r["status"] != "ok":
            lines.append(f"| {r['n']:,} | {NAMES[r['engine']]} | {r['mode']} | {r['cores']} | {r['status']}: {r['reason'][:120]} |||||||")
            continue
        other = ok.get((r["engine"], r["mode"], r["n"], 3 - r["cores"]))
        speedup = synth.ratio(r["rows_per_s"], other["rows_per_s"]) if other and r["cores"] == 2 else None
        hop_mode = HOPDB_PEER_MODE.get((r["engine"], r["mode"]))
        hop = ok.get(("hopdb", hop_mode, r["n"], r["cores"])) if hop_mode else None
        vs = f"{fmt_ratio(synth.ratio(hop['rows_per_s'], r['rows_per_s']))} (vs {hop_mode})" if hop else "-"
        capped = " (capped)" if r["capped"] else ""
        lines.append(f"| {r['n']:,} | {NAMES[key[0]]} | {r['mode']}{capped} | {r['cores']} | {fmt(r['rows_per_s'])} | {r['secs']:.2f} | "
                     f"{r['peak_rss_mib']:.0f} | {r['disk_bytes'] / 2**20:.1f} | {r['cpu_s'] / r['secs']:.2f} | {r['machine_cores_busy']:.2f} | "
                     f"{fmt_ratio(speedup)} | {vs} |")
    return lines


def traversal_table(recs):
    by = {(r["engine"], r["n"], r["query"]): r for r in recs}
    lines = ["| N | query | from | answer | HopDB median ms | HopDB p95 ms | ArcadeDB median ms | ArcadeDB p95 ms | ArcadeDB/HopDB time |",
             "|---|---|---|---|---|---|---|---|---|"]
    for n in sorted({r["n"] for r in recs}):
        for q in QUERY_NAMES:
            h, p = by.get(("hopdb", n, q)), by.get(("arcadedb", n, q))
            if not h and not p:
                continue
            any_ = h or p
            cells = []
            for e in (h, p):
                cells += [f"{e['median_ms']:.3f}", f"{e['p95_ms']:.3f}"] if e and e["status"] == "ok" else [e["status"] if e else "-", "-"]
            r = synth.ratio(h["median_ms"], p["median_ms"], higher_is_better=False) if h and p and h["status"] == p["status"] == "ok" else None
            lines.append(f"| {n:,} | {QUERY_NAMES[q]} | {any_['from']} | {any_['answer_size']:,} | {' | '.join(cells)} | {fmt_ratio(r)} |")
    return lines


def compaction_table(recs):
    ldb = next((r for r in recs if r["engine"] == "leveldb" and r["status"] == "ok"), None)
    lines = ["| engine | config | writes/s | round 1 | last round | SST files end / settled / compacted | SST MiB end / settled | "
             "hit reads/s | miss reads/s | machine busy cores | vs LevelDB writes/s |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in recs:
        if r["status"] != "ok":
            lines.append(f"| {NAMES[r['engine']]} | {r['config']} | {r['status']}: {r['reason'][:160]} |||||||||")
            continue
        pr = r["per_round"]
        vs = fmt_ratio(synth.ratio(r["writes_per_s"], ldb["writes_per_s"])) if ldb and r["engine"] != "leveldb" else "-"
        lines.append(f"| {NAMES[r['engine']]} | {r['config']} | {fmt(r['writes_per_s'])} | {fmt(pr[0]['writes_per_s'])} | "
                     f"{fmt(pr[-1]['writes_per_s'])} | {r['at_end']['sst_files']} / {r['settled']['sst_files']} / {r['compacted']['sst_files']} | "
                     f"{r['at_end']['sst_bytes'] / 2**20:.0f} / {r['settled']['sst_bytes'] / 2**20:.0f} | "
                     f"{fmt(r['hit_reads_per_s'])} | {fmt(r['miss_reads_per_s'])} | {r['machine_cores_busy']:.2f} | {vs} |")
    return lines


def charts(recs, out):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    made = []
    ing = [r for r in recs if r["part"] == "ingest" and r["status"] == "ok"]
    if ing:
        ns = sorted({r["n"] for r in ing})
        fig, axes = plt.subplots(1, len(ns), figsize=(6 * len(ns), 4.5), squeeze=False)
        labels = [f"{NAMES[e]} {m}" for e, m in RUNS]
        for ax, n in zip(axes[0], ns, strict=False):
            for i, cores in enumerate(CORES):
                vals = [next((r["rows_per_s"] for r in ing if (r["engine"], r["mode"], r["n"], r["cores"]) == (e, m, n, cores)), 0) for e, m in RUNS]
                ax.bar([x + 0.4 * i for x in range(len(RUNS))], vals, width=0.4, label=f"{cores} core{'s' * (cores > 1)}")
            ax.set_xticks([x + 0.2 for x in range(len(RUNS))], labels, rotation=60, ha="right", fontsize=8)
            ax.set_yscale("log")
            ax.set_title(f"ingestion rows/s, N={n:,}")
            ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(os.path.join(out, "ingest.png"), dpi=110)
        made.append("ingest.png")
    comp = [r for r in recs if r["part"] == "compaction" and r["status"] == "ok"]
    if comp:
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(12, 4.5))
        for r in comp:
            a1.plot(range(1, len(r["per_round"]) + 1), [p["writes_per_s"] for p in r["per_round"]], marker="o",
                    label=f"{NAMES[r['engine']]} {r['config']}", linestyle="--" if r["engine"] == "leveldb" else "-")
        a1.set_xlabel("round")
        a1.set_xticks(range(1, max(len(r["per_round"]) for r in comp) + 1))
        a1.set_ylabel("writes/s")
        a1.set_title("compaction pressure: writes/s per round")
        a1.legend(fontsize=7)
        names = [f"{NAMES[r['engine']]}\n{r['config'][:12]}" for r in comp]
        for i, (k, lab) in enumerate((("at_end", "end"), ("settled", "settled"), ("compacted", "compacted"))):
            a2.bar([x + 0.27 * i for x in range(len(comp))], [r[k]["sst_files"] for r in comp], width=0.27, label=lab)
        a2.set_xticks([x + 0.27 for x in range(len(comp))], names, fontsize=7, rotation=45, ha="right")
        a2.set_title("SST files")
        a2.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(os.path.join(out, "compaction.png"), dpi=110)
        made.append("compaction.png")
    trav = [r for r in recs if r["part"] == "traversal" and r["status"] == "ok"]
    if trav:
        keys = sorted({(r["n"], r["query"]) for r in trav})
        fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(keys)), 4.5))
        for i, e in enumerate(("hopdb", "arcadedb")):
            vals = [next((r["median_ms"] for r in trav if (r["engine"], r["n"], r["query"]) == (e, n, q)), 0) for n, q in keys]
            ax.bar([x + 0.4 * i for x in range(len(keys))], vals, width=0.4, label=NAMES[e])
        ax.set_xticks([x + 0.2 for x in range(len(keys))], [f"{q}\nN={n:,}" for n, q in keys], fontsize=8)
        ax.set_yscale("log")
        ax.set_ylabel("median ms (lower is better)")
        ax.set_title("traversals: HopDB vs ArcadeDB embedded")
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(out, "traversal.png"), dpi=110)
        made.append("traversal.png")
    return made


def report(out):
    recs = [json.loads(x) for x in open(os.path.join(out, "results.jsonl"))]
    meta = next((r for r in recs if r["part"] == "meta"), {})
    parts = {p: [r for r in recs if r["part"] == p] for p in ("ingest", "traversal", "compaction")}
    md = ["# Ingestion and write-path matrix (workload 4)", "",
          f"Command: `{meta.get('command', '?')}`  ", f"Profile: {meta.get('profile', '?')}; started {meta.get('started', '?')}, "
          f"took {meta.get('minutes', '?')} min  ", f"Machine: {json.dumps(meta.get('host', {}))}  ",
          f"Load average before/after: {meta.get('load_before', '?')} / {meta.get('load_after', '?')}", "",
          f"Dataset: synthetic property graph (bench/ingest/synth.py, seed 7): N nodes (label Node; name, score, grp), "
          f"~{synth.EDGES_PER_NODE}N edges ({synth.RELA_SHARE:.0%} RelA, {1 - synth.RELA_SHARE:.0%} RelB), {synth.HUBS} hubs "
          f"each the source of ~{synth.HUB_SHARE / synth.HUBS:.0%} and target of ~{synth.HUB_SHARE / synth.HUBS:.0%} of the edges; "
          "no self-loops or duplicate triples.", ""]
    if parts["ingest"]:
        md += ["## Ingestion (rows = nodes + edges, from Python)", "",
               "One worker process per run, pinned with `taskset`; time from the open store (schema made) to the last "
               "write returned; peak RSS of the worker (engine + the generated graph, the same for all), disk after the load. "
               "HopDB/peer: HopDB's rows/s in the matching mode over the peer's (>1: HopDB faster). Row-by-row runs stop at the "
               "profile's time limit (capped: the rate over what ran, nothing extrapolated). Worker CPU cores: the worker's CPU time "
               "during the load over its wall time (client and in-process engine together); machine busy cores: all busy cores "
               "of the machine during the worker's run (/proc/stat; other processes included, so a figure well above the "
               "pinned cores means a contended measurement).", ""]
        busy = [r["machine_cores_busy"] for r in parts["ingest"] if r["status"] == "ok"]
        if busy:
            md += [f"Median machine busy cores during these runs: {synth.median(busy):.2f} of {meta.get('host', {}).get('cores', '?')}.", ""]
        md += ingest_table(parts["ingest"]) + ["", "![ingestion](ingest.png)", ""]
    if parts["traversal"]:
        md += ["## Traversals after the columnar load (2 cores): HopDB vs ArcadeDB embedded", "",
               "HopDB: `neighbors(hub, 'out', 'RelA')`, `k_hop(node, 3, direction='out')`, `expand(hub, [('out','RelA'),('out','RelB')])`. "
               "ArcadeDB SQL: `SELECT out('RelA').id`, `TRAVERSE out() ... MAXDEPTH 3 STRATEGY BREADTH_FIRST` (count), "
               "`SELECT DISTINCT id FROM (SELECT expand(out('RelA').out('RelB')) ...)`, on a unique index on Node.id. "
               "Every answer equals the pure-Python reference (sets for star and two-step, the count for BFS) before timing.", ""]
        md += traversal_table(parts["traversal"]) + ["", "![traversals](traversal.png)", ""]
    if parts["compaction"]:
        c = next((r for r in parts["compaction"] if r["status"] == "ok"), {})
        md += ["## Compaction pressure", "",
               f"{c.get('keys', '?'):,} keys x {c.get('rounds', '?')} rounds; each round writes every key once in a new random order "
               f"with a fresh random {c.get('value_bytes', 1024)}-byte value, in write batches of {c.get('batch', '?')}. HopDB: "
               "`upsert_nodes` (Replace) from the Rust example binary; LevelDB: plyvel `write_batch` (sync off; 16 MiB write "
               "buffer and 10-bit bloom filter, as HopDB's defaults) from Python. "
               "Then a read probe (present keys; absent keys, where bloom filters matter), the SST count at the end, after a "
               "settle (flush, then until the file count is stable for 1 s) and after a manual full compaction. Absent-key probes "
               "lie inside the written key range, so only a bloom filter (or the data block) rules them out. Not pinned "
               "(background compaction threads are part of what is measured).", ""]
        md += compaction_table(parts["compaction"]) + ["", "![compaction](compaction.png)", ""]
    skipped = [r for r in recs if r.get("status") in ("skipped", "failed")]
    if skipped:
        md += ["## Skipped or failed", ""] + [f"- {r['part']} {NAMES.get(r['engine'], r['engine'])} {r.get('mode', r.get('config', ''))} "
                                              f"{r.get('n', '')}: {r['status']}: {r['reason']}" for r in skipped] + [""]
    charts(recs, out)
    open(os.path.join(out, "report.md"), "w").write("\n".join(md))


def main():
    ap = argparse.ArgumentParser(prog=f"python3 -m {__spec__.name}", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--profile", choices=sorted(PROFILES), default="quick", help="quick: N 10K,50K, 20K keys x 3 rounds; full: N up to 1M, 200K keys x 5 rounds")
    ap.add_argument("--engines", default=",".join(ENGINES), help="comma-separated subset of " + ",".join(ENGINES))
    ap.add_argument("--parts", default="ingest,compaction", help="ingest (with the traversals), compaction")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "ingest"), help="results directory")
    ap.add_argument("--data-root", default=os.path.expanduser("~/.cache/hopdb/bench-data"), help="scratch stores go under it")
    ap.add_argument("--sizes", help="comma-separated node counts N instead of the profile's (e.g. 1000000)")
    ap.add_argument("--batch", type=int, default=1000, help="write batch of the compaction workload (both engines)")
    ap.add_argument("--report-only", action="store_true", help="rebuild report.md and charts from results.jsonl")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    if a.report_only:
        report(a.out)
        return 0
    a.engines = [e.strip() for e in a.engines.split(",") if e.strip()]
    unknown = set(a.engines) - set(ENGINES)
    if unknown:
        ap.error(f"unknown engines: {', '.join(sorted(unknown))}")
    parts = set(a.parts.split(","))
    prof = dict(PROFILES[a.profile])
    if a.sizes:
        prof["ns"] = [int(x) for x in a.sizes.split(",")]
    try:
        benchlib.ensure_requirements(os.path.join(HERE, "requirements.txt"))
    except subprocess.CalledProcessError as e:
        log(f"pip install failed ({e}); engines that cannot import are skipped")
    a.unavailable = {e: probe(e) for e in a.engines}
    a.unavailable = {e: f"cannot import: {why}" for e, why in a.unavailable.items() if why}
    if not shutil.which("taskset") or (os.cpu_count() or 1) < 2:
        raise SystemExit("needs `taskset` and at least 2 CPUs")
    host = benchlib.host_info()
    started, t0 = datetime.datetime.now(datetime.timezone.utc), time.time()
    log("waiting for a quiet machine (at most 30 s)")
    benchlib.wait_quiet(30)
    load0 = os.getloadavg()[0]
    results = os.path.join(a.out, "results.jsonl")
    f = open(results, "w")

    def emit(rec):
        f.write(json.dumps(rec) + "\n")
        f.flush()

    wrong = False
    if "ingest" in parts:
        wrong |= run_ingest(a, prof, emit, host)
    if "compaction" in parts:
        run_compaction(a, prof, emit, host)
    emit({"part": "meta", "engine": "-", "status": "ok", "reason": "", "host": host, "profile": a.profile,
          "command": " ".join(["python3", "-m", "bench.ingest.run"] + sys.argv[1:]),
          "started": started.strftime("%Y-%m-%d %H:%M UTC"), "minutes": round((time.time() - t0) / 60, 1),
          "load_before": round(load0, 2), "load_after": round(os.getloadavg()[0], 2)})
    f.close()
    report(a.out)
    log(f"wrote {results} and {os.path.join(a.out, 'report.md')}")
    if wrong:
        log("WRONG ANSWERS: see the failed records")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
