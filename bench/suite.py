"""HopDB's benchmark suite: every workload of bench/ against its peers, one after another, in one run.

usage: bench/run [--profile quick|full] [--workloads a,b,...] [--engines a,b,...] [--out DIR]
                 [--data-root DIR] [--no-build] [--dry-run] [--list]
   (or, from the repository root: python3 -m bench.suite ...)

Each workload is its own runner (python3 -m bench.<folder>.run) that loads its engines
(bench/engines), checks their answers and writes results.jsonl-style lines, a Markdown report and
PNG charts into OUT/<workload>/ (the `import` workload's runner is bench.bulk_import.run). This
script builds the binaries they need, runs the selected workloads one at a time with the profile's
settings, records how long each took, its exit status and the machine's load average around it, and
writes OUT/summary.md and OUT/summary.jsonl. A workload that fails does not stop the others; the exit
status is 1 if any failed (a wrong answer from an engine is a failure).

Profiles:
  quick  the knowledge graph at S=0.1 and the small real graphs, short windows: a smoke run of every
         workload and engine (about 10 minutes once the databases are loaded).
  full   S=1 (S=10 for the sweep's memory-capped run), the larger real graphs, full windows.
"""

import argparse
import datetime
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field

from bench import benchlib
from bench.benchlib import module_env

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


@dataclass
class Workload:
    folder: str  # its runner: python3 -m bench.<folder>.run (bench/<folder>/run.py)
    what: str
    engines: list  # the engine names its runner accepts
    quick: list  # runner arguments of each profile (besides --engines and --out)
    full: list
    report: str = "report.md"  # the runner's report and raw lines, under its --out
    jsonl: str = "results.jsonl"
    data_root: bool = True  # the runner takes --data-root
    extra: dict = field(default_factory=dict)


KG_ENGINES = ["hopdb", "postgres", "sqlite", "kuzu", "cozo", "neo4j"]

# In running order: the bulk import loads the databases the query workloads reuse.
WORKLOADS = {
    "import": Workload(
        "bulk_import", "bulk import of the knowledge graph (neo4j-admin CSV) into each engine", KG_ENGINES,
        quick=["--scale", "0.1", "--repeat", "1"], full=["--scale", "1", "--repeat", "3"],
        report="import.md", jsonl="import.jsonl"),
    "retrieval": Workload(
        "retrieval", "the study's Q1-Q7 mix from Python in-process, 1 and 2 threads, 2 processes",
        ["hopdb", "hopdb-cypher", "sqlite", "networkx", "kuzu", "neo4j", "postgres", "cozo", "falkordb"],
        quick=["--scale", "0.1", "--queries", "2000", "--warmup", "200", "--max-seconds", "5", "--check", "20", "--variant-trial", "50"],
        full=["--scale", "1", "--queries", "200000", "--warmup", "10000", "--max-seconds", "20"]),
    "sweep": Workload(
        "sweep", "Q1-Q7 and the LightRAG call mix at 1, 10 and 50 clients; 256 MB memory-capped run",
        ["hopdb", "postgres", "sqlite", "falkordb", "neo4j", "networkx", "kuzu", "cozo"],
        quick=["--profile", "quick"], full=["--profile", "full"]),
    "deep": Workload(
        "deep", "Q8 (1..4 hops, LIMIT 100) and Q11 (shortest path) with a per-query timeout",
        ["hopdb", "hopdb-store", "hopdb-python", "hopdb-cypher", "networkx", "postgres", "sqlite", "kuzu", "falkordb", "cozo", "neo4j"],
        quick=["--scale", "0.1", "--seeds", "20", "--warmup", "5", "--slow-seeds", "3"], full=["--scale", "1", "--seeds", "250", "--warmup", "25"],
        report="deep.md", jsonl="deep.jsonl"),
    "unum": Workload(
        "unum", "the UnumDB suite on real graphs: edge lookups, neighbours, degrees, edge upserts and removals",
        ["hopdb", "sqlite", "postgres", "networkx", "kuzu", "cozo"],
        quick=["--profile", "quick"], full=["--profile", "full"], data_root=False),  # reads ../shared/datasets
    "cozo_suite": Workload(
        "cozo_suite", "Cozo's report: import, backup, restore, point reads/writes by threads, hops, group-by, PageRank",
        ["hopdb", "cozo", "kuzu", "sqlite", "networkx"],
        quick=["--profile", "quick"], full=["--profile", "full"], data_root=False),  # reads ../shared/datasets
    "ingest": Workload(
        "ingest", "the RocksDB graph study: ingestion modes x sizes x cores, compaction pressure vs LevelDB, ArcadeDB",
        ["hopdb", "sqlite", "kuzu", "leveldb", "arcadedb"],
        quick=["--profile", "quick"], full=["--profile", "full"]),
}


def log(msg):
    print(f"[{datetime.datetime.now():%H:%M:%S}] {msg}", file=sys.stderr, flush=True)


def select(names, known, what):
    """The comma-separated names in `names` (all of `known` if empty), checked against `known`."""
    if not names:
        return list(known)
    out = [n.strip() for n in names.split(",") if n.strip()]
    bad = [n for n in out if n not in known]
    if bad:
        raise SystemExit(f"unknown {what}: {', '.join(bad)} (known: {', '.join(known)})")
    return out


def command(name, profile, engines, out, data_root):
    """The runner's command line for one workload, or None when none of `engines` takes part in it."""
    w = WORKLOADS[name]
    cmd = [sys.executable, "-m", f"bench.{w.folder}.run", *(w.quick if profile == "quick" else w.full)]
    if engines is not None:
        mine = [e for e in engines if e in w.engines]
        if not mine:
            return None
        cmd += ["--engines", ",".join(mine)]
    cmd += ["--out", os.path.join(out, name)]
    if w.data_root and data_root:
        cmd += ["--data-root", data_root]
    return cmd


def tally(path):
    """{status: [engine, ...]} over a runner's JSON lines (status defaults to ok), {} if absent."""
    out = {}
    if not os.path.exists(path):
        return out
    for line in open(path):
        line = line.strip()
        if not line:
            continue
        r = json.loads(line)
        eng = r.get("engine")
        if eng in (None, "", "-"):  # run-level lines (machine, settings)
            continue
        lst = out.setdefault(r.get("status", "ok"), [])
        if eng not in lst:
            lst.append(eng)
    return out


def loadavg():
    return list(os.getloadavg())


def git_commit():
    r = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain"], capture_output=True, text=True).stdout.strip()
    return (r.stdout.strip() or "?") + ("+dirty" if dirty else "")


def build():
    """The release binaries the runners use (hopdb, hopdb-bench, hopdb-loadgen) and the Python package, built once."""
    env = dict(os.environ)
    env.setdefault("CARGO_TARGET_DIR", os.path.expanduser("~/.cache/hopdb/target"))
    log("building hopdb, hopdb-bench and hopdb-loadgen (release) and installing the Python package (scripts/setup.sh)")
    subprocess.run(["bash", os.path.join(ROOT, "scripts", "setup.sh")], check=True, env=env)
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "hopdb-cli", "-p", "hopdb-bench", "-p", "hopdb-loadgen"], check=True, cwd=ROOT, env=env)


def latest(jsonl):
    """The newest line of each workload in summary.jsonl, in WORKLOADS order: a run of some
    workloads updates their rows and keeps the others'."""
    last = {}
    for line in open(jsonl):
        if line.strip():
            r = json.loads(line)
            last[r["workload"]] = r
    return [last[n] for n in WORKLOADS if n in last]


def fmt_s(s):
    return f"{s / 60:.1f} min" if s >= 90 else f"{s:.0f} s"


def summary_md(run, rows, out):
    """The run's Markdown summary: one row per workload with its status, time and report."""
    lines = [
        f"# Benchmark suite: {run['profile']} profile",
        "",
        f"Run {run['run_id']} at commit {run['commit']}, {run['host']['cores']} cores, {run['host']['mem_gib']} GiB "
        f"({run['host']['cpu']}), Linux {run['host']['kernel']}, Python {run['host']['python']}; "
        f"{fmt_s(run['seconds'])} for this run's workloads (rows of other runs say theirs).",
        "",
        f"Command: `{run['command']}`",
        "",
        "| workload | what | run | status | time | engines ok | skipped | failed | load avg before -> after | report |",
        "|---|---|---|---|---:|---|---|---|---|---|",
    ]
    for r in rows:
        t = r.get("tally", {})
        rep = os.path.relpath(r["report"], out) if r.get("report") and os.path.exists(r["report"]) else "-"
        la = f"{r['loadavg_before'][0]:.2f} -> {r['loadavg_after'][0]:.2f}" if r.get("loadavg_after") else "-"
        lines.append(
            f"| {r['workload']} | {WORKLOADS[r['workload']].what} | {r.get('run_id', '-')} | {r['status']} | {fmt_s(r['seconds']) if 'seconds' in r else '-'} "
            f"| {', '.join(t.get('ok', [])) or '-'} | {', '.join(t.get('skipped', [])) or '-'} | {', '.join(t.get('failed', [])) or '-'} "
            f"| {la} | {f'[{rep}]({rep})' if rep != '-' else '-'} |")
    lines += ["", "Each report names the exact command, the dataset, the engines' versions and settings, and HopDB/peer ratios.", ""]
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter, prog="bench/run")
    ap.add_argument("--profile", choices=["quick", "full"], default="quick")
    ap.add_argument("--workloads", default="", help="comma-separated, from " + ",".join(WORKLOADS) + " (default: all, in that order)")
    ap.add_argument("--engines", default="", help="comma-separated; each workload runs those of them it knows (default: all of its own)")
    ap.add_argument("--out", help="results directory (default: bench/results for full, bench/results/quick for quick)")
    ap.add_argument("--data-root", default=os.environ.get("HOPDB_BENCH_DATA") or os.path.expanduser("~/.cache/hopdb/bench-data"),
                    help="generated data and kept databases (default ~/.cache/hopdb/bench-data)")
    ap.add_argument("--no-build", action="store_true", help="use the binaries and Python package as they are")
    ap.add_argument("--dry-run", action="store_true", help="print the runners' command lines and stop")
    ap.add_argument("--list", action="store_true", help="list the workloads and their engines")
    a = ap.parse_args(argv)
    if a.list:
        for n, w in WORKLOADS.items():
            print(f"{n:11} {w.what}\n{'':11} engines: {', '.join(w.engines)}")
        return 0
    names = select(a.workloads, list(WORKLOADS), "workloads")
    all_engines = sorted({e for w in WORKLOADS.values() for e in w.engines})
    engines = select(a.engines, all_engines, "engines") if a.engines else None
    out = a.out or os.path.join(HERE, "results", *(["quick"] if a.profile == "quick" else []))
    plan = [(n, command(n, a.profile, engines, out, a.data_root)) for n in names]
    if a.dry_run:
        for n, cmd in plan:
            print(f"{n}: " + (" ".join(cmd) if cmd else "(no selected engine takes part)"))
        return 0
    os.makedirs(out, exist_ok=True)
    if not a.no_build:
        build()
    run = {"run_id": datetime.datetime.now().strftime("%Y%m%dT%H%M%S"), "profile": a.profile, "commit": git_commit(), "host": benchlib.host_info(),
           "command": "bench/run " + " ".join(argv if argv is not None else sys.argv[1:])}
    t0 = time.time()
    rows = []
    for n, cmd in plan:
        w = WORKLOADS[n]
        row = {"workload": n, "report": os.path.join(out, n, w.report)}
        if cmd is None:
            rows.append(dict(row, status="not run (no selected engine)"))
            continue
        log(f"{n}: {w.what}\n    {' '.join(cmd)}")
        row["loadavg_before"] = loadavg()
        t = time.time()
        rc = subprocess.run(cmd, cwd=ROOT, env=module_env()).returncode
        row.update(seconds=time.time() - t, loadavg_after=loadavg(), exit=rc, command=" ".join(cmd),
                   status="ok" if rc == 0 else ("wrong answers" if rc == 1 else f"failed (exit {rc})"),
                   tally=tally(os.path.join(out, n, w.jsonl)))
        log(f"{n}: {row['status']} in {fmt_s(row['seconds'])}")
        rows.append(row)
    run["seconds"] = time.time() - t0
    jsonl = os.path.join(out, "summary.jsonl")
    with open(jsonl, "a") as f:
        for r in rows:
            f.write(json.dumps(dict(r, run_id=run["run_id"], profile=a.profile, commit=run["commit"])) + "\n")
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write(summary_md(run, latest(jsonl), out))
    log(f"summary: {os.path.join(out, 'summary.md')} ({fmt_s(run['seconds'])})")
    return 0 if all(r["status"] in ("ok",) or r["status"].startswith("not run") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
