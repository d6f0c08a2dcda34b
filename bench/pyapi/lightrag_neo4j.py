"""LightRAG's own Neo4JStorage on `hopdb serve` against a real Neo4j 5.26 (with APOC), LightRAG's graph call mix:

    python3 -m bench.pyapi.lightrag_neo4j [--nodes 5000] [--edges 10000] [--seconds 20] [--tasks 1,8] [--out DIR]

The storage is ``lightrag.kg.neo4j_impl.Neo4JStorage`` (lightrag-hku, unmodified), configured as
LightRAG configures it (NEO4J_URI / NEO4J_USERNAME / NEO4J_PASSWORD, then ``initialize()``); one
storage per server, the servers one after the other (never both under load: the machine has 2
cores). For each server, on loopback and a fresh database:

1. Build the same seeded graph (build() of bench/pyapi/lightrag_storage.py: entities, half of the
   edges from 5 % hub entities) through the storage's own upsert_nodes_batch /
   upsert_edges_batch, timed; then a fingerprint of the graph (nodes found, sum of degrees) that
   must be the same on both servers.
2. Warm up (--warmup s at the largest task count, discarded).
3. For each task count: that many asyncio tasks in this process, each looping over rounds of
   mix() (bench/pyapi/lightrag_storage.py: an entity and a relation merged, then a query's batch
   reads; 10 calls), each task with its own seeded RNG, for --seconds (a task starts no round after
   the deadline; the mix's upsert_edge adds edges, so the faster server ends with a slightly larger
   graph). Calls/s and rounds/s over the whole window, latency of every call (median,
   p99, max; per method), errors, and the CPU used in the window by this process (the load
   generator: the driver, LightRAG, the event loop), by the server process (hopdb / the JVM) and
   by everything else on the machine (/proc/stat), in % of one core.

Neo4j is python/tests/neo4j_reference.py's (embedded Community DBMS + APOC core, the jars resolved
by Maven once). Its launcher runs the JVM with test settings (C1 only, serial GC: fast start-up);
this benchmark overrides those two with _JAVA_OPTIONS (which the JVM applies after its command
line) to the JVM's own defaults (full tiered JIT, G1), unless --neo4j-jvm reference.

Writes DIR/results.json, DIR/report.md (also printed) and DIR/lightrag_neo4j.png.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import importlib.metadata
import importlib.util
import json
import logging
import os
import pathlib
import random
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from typing import Any, Optional

from bench import benchlib
from bench.pyapi.lightrag_storage import build, mix

NAMESPACE = "chunk_entity_relation"  # LightRAG's graph namespace (Neo4JStorage derives its database name from it)
NEO4J_ENV = ("NEO4J_URI", "NEO4J_USERNAME", "NEO4J_PASSWORD", "NEO4J_DATABASE", "NEO4J_WORKSPACE")
# The JVM's defaults in place of the reference launcher's test settings (-XX:TieredStopAtLevel=1
# -XX:+UseSerialGC); _JAVA_OPTIONS is applied after the command line, so these win.
NEO4J_BENCH_JVM = "-XX:TieredStopAtLevel=4 -XX:-UseSerialGC -XX:+UseG1GC"
SERVERS = ("hopdb", "neo4j")
LABELS = {"hopdb": "hopdb serve", "neo4j": "Neo4j 5.26"}


def neo4j_reference() -> Any:
    """python/tests/neo4j_reference.py (the reference Neo4j and a `hopdb serve`), loaded by file
    path as benchlib.lightrag_support() loads its neighbour: python/tests is not a package."""
    name = "neo4j_reference"
    if name in sys.modules:
        return sys.modules[name]
    path = os.path.join(benchlib.ROOT, "python", "tests", "neo4j_reference.py")
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


@contextlib.contextmanager
def env(**values: str):
    """os.environ with `values` set (and the other NEO4J_* variables unset), restored afterwards."""
    saved = {k: os.environ.get(k) for k in set(NEO4J_ENV) | set(values)}
    try:
        for k in NEO4J_ENV:
            os.environ.pop(k, None)
        os.environ.update(values)
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def quiet() -> None:
    """LightRAG's and the driver's loggers at ERROR (LightRAG's setup resets its own: call again
    after initialize()); the driver's deprecation warnings off."""
    for name in ("lightrag", "neo4j"):
        logging.getLogger(name).setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", category=DeprecationWarning)


class Collect(logging.Handler):
    """Keeps the messages logged to it."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(f"{record.levelname}: {record.getMessage()[:400]}")


async def open_storage(uri: str, working_dir: Any, workspace: str = "bench", init_log: Optional[list] = None) -> Any:
    """LightRAG's Neo4JStorage on the Bolt server at `uri`, built and initialized as LightRAG does
    (its database probe, the entity_id index, the full-text index). What LightRAG logs at WARNING
    and above meanwhile is appended to `init_log` (not printed)."""
    from lightrag.kg.neo4j_impl import Neo4JStorage
    from lightrag.kg.shared_storage import initialize_share_data

    initialize_share_data()  # single-process mode (idempotent); initialize() takes its lock
    logger = logging.getLogger("lightrag")
    collect, propagate = Collect(), logger.propagate
    logger.setLevel(logging.WARNING)
    logger.addHandler(collect)
    logger.propagate = False
    saved = [(h, h.level) for h in logger.handlers if h is not collect]
    for h, _ in saved:
        h.setLevel(logging.CRITICAL + 1)
    try:
        with env(NEO4J_URI=uri, NEO4J_USERNAME="neo4j", NEO4J_PASSWORD="unused: no authentication"):
            storage = Neo4JStorage(namespace=NAMESPACE, workspace=workspace,
                                   global_config={"working_dir": str(working_dir)}, embedding_func=None)
            await storage.initialize()
    finally:
        logger.removeHandler(collect)
        logger.propagate = propagate
        for h, level in saved:
            h.setLevel(level)
    if init_log is not None:
        init_log.extend(collect.messages)
    quiet()
    return storage


async def server_agent(storage: Any) -> str:
    """The server's Bolt agent string (e.g. "Neo4j/5.26.0") and protocol version."""
    info = await storage._driver.get_server_info()
    return f"{info.agent} (Bolt {'.'.join(map(str, info.protocol_version))})"


async def fingerprint(storage: Any, names: list[str]) -> dict:
    """Nodes found and the sum of their degrees, through the storage's own batch reads: the same
    on both servers when both built the same graph."""
    found = degree_sum = 0
    for i in range(0, len(names), 1000):
        chunk = names[i : i + 1000]
        found += len(await storage.get_nodes_batch(chunk))
        degree_sum += sum((await storage.node_degrees_batch(chunk)).values())
    return {"nodes": found, "degree_sum": degree_sum}


def pct(sorted_values: list[float], q: float) -> float:
    """The q-quantile (0..1) of sorted values, nearest rank."""
    if not sorted_values:
        return float("nan")
    return sorted_values[min(len(sorted_values) - 1, max(0, int(round(q * len(sorted_values))) - 1))]


def cpu_s(proc: Any) -> float:
    t = proc.cpu_times()
    return t.user + t.system


async def measure(storage: Any, names: list[str], tasks: int, seconds: float, server_pid: Optional[int] = None,
                  seed: int = 1) -> dict:
    """`tasks` asyncio tasks issuing mix() rounds on `storage` for `seconds` (no round is started
    after the deadline; the window ends when the last one ends). Returns the counts, rates,
    latencies (ms) and CPU use (% of one core) of the window."""
    import psutil

    me = psutil.Process()
    server = psutil.Process(server_pid) if server_pid else None
    lat: dict[str, list[float]] = {}
    errors: dict[str, int] = {}
    first_errors: list[str] = []
    rounds = 0

    async def worker(i: int) -> None:
        nonlocal rounds
        rng = random.Random(seed * 1000 + i)
        while time.perf_counter() < deadline:
            for method, a in mix(rng, names):
                t = time.perf_counter()
                try:
                    await getattr(storage, method)(*a)
                except Exception as e:  # counted, and the round goes on
                    errors[method] = errors.get(method, 0) + 1
                    if len(first_errors) < 5:
                        first_errors.append(f"{method}: {type(e).__name__}: {str(e)[:300]}")
                    continue
                finally:
                    lat.setdefault(method, []).append(time.perf_counter() - t)
            rounds += 1

    load_before = os.getloadavg()[0]
    busy0, me0, srv0 = benchlib.machine_busy_s(), cpu_s(me), cpu_s(server) if server else 0.0
    t0 = time.perf_counter()
    deadline = t0 + seconds
    await asyncio.gather(*(worker(i) for i in range(tasks)))
    wall = time.perf_counter() - t0
    busy, client, srv = benchlib.machine_busy_s() - busy0, cpu_s(me) - me0, (cpu_s(server) - srv0) if server else 0.0
    every = sorted(x for v in lat.values() for x in v)
    n_err = sum(errors.values())
    return {
        "tasks": tasks,
        "seconds": round(wall, 3),
        "calls": len(every) - n_err,
        "rounds": rounds,
        "calls_per_s": (len(every) - n_err) / wall,
        "rounds_per_s": rounds / wall,
        "p50_ms": pct(every, 0.5) * 1e3,
        "p99_ms": pct(every, 0.99) * 1e3,
        "max_ms": (every[-1] if every else float("nan")) * 1e3,
        "over_1s": sum(1 for x in every if x > 1.0),
        "errors": n_err,
        "errors_by_method": errors,
        "first_errors": first_errors,
        "client_cpu_pct": 100 * client / wall,
        "server_cpu_pct": 100 * srv / wall,
        "others_cpu_pct": 100 * max(0.0, busy - client - srv) / wall,
        "client_share_pct": 100 * client / (client + srv) if client + srv > 0 else float("nan"),
        "load_avg_before": load_before,
        "methods": {m: {"calls": len(v), "p50_ms": statistics.median(v) * 1e3, "p99_ms": pct(sorted(v), 0.99) * 1e3,
                        "max_ms": max(v) * 1e3} for m, v in lat.items()},
    }


async def bench_server(kind: str, uri: str, pid: Optional[int], args: argparse.Namespace, work: pathlib.Path,
                       say=benchlib.log) -> dict:
    """Build, fingerprint, warm up and measure one server (already listening at `uri`)."""
    init_log: list[str] = []
    storage = await open_storage(uri, work, init_log=init_log)
    try:
        out: dict[str, Any] = {"server": kind, "agent": await server_agent(storage), "database": storage._DATABASE,
                               "init_log": init_log}
        t = time.perf_counter()
        names = await build(storage, args.nodes, args.edges, random.Random(args.seed))
        out["build_s"] = time.perf_counter() - t
        out["graph"] = await fingerprint(storage, names)
        say(f"{kind}: built {args.nodes} nodes / {args.edges} edges in {out['build_s']:.2f} s; {out['graph']}")
        if args.warmup > 0:
            w = await measure(storage, names, max(args.tasks), args.warmup, pid, seed=args.seed + 7)
            out["warmup"] = {"seconds": w["seconds"], "calls_per_s": w["calls_per_s"], "errors": w["errors"]}
            say(f"{kind}: warm-up {w['calls_per_s']:.0f} calls/s")
        out["points"] = []
        for n in args.tasks:
            if args.quiet_wait > 0:
                await asyncio.to_thread(benchlib.wait_quiet, args.quiet_wait)
            p = await measure(storage, names, n, args.seconds, pid, seed=args.seed)
            out["points"].append(p)
            say(f"{kind}: {n} tasks: {p['calls_per_s']:.0f} calls/s, p50 {p['p50_ms']:.2f} ms, p99 {p['p99_ms']:.2f} ms, "
                f"client CPU {p['client_cpu_pct']:.0f} %, server CPU {p['server_cpu_pct']:.0f} %, errors {p['errors']}")
        return out
    finally:
        await storage.finalize()


def log_findings(text: str, limit: int = 8) -> dict:
    """Warnings, errors and panics in a server's log: their count and the first few lines."""
    hits = [ln for ln in text.splitlines() if re.search(r"\b(WARN|ERROR|panic|Exception|SEVERE)\b", ln)]
    return {"count": len(hits), "first": [h[:300] for h in hits[:limit]]}


def start_server(kind: str, work: pathlib.Path, args: argparse.Namespace) -> Any:
    ref = neo4j_reference()
    if kind == "hopdb":
        return ref.HopDBServer(work / "hopdb", pathlib.Path(args.hopdb_bin) if args.hopdb_bin else None)
    jvm = {} if args.neo4j_jvm == "reference" else {"_JAVA_OPTIONS": NEO4J_BENCH_JVM}
    with env(**jvm):
        return ref.Neo4jReference(work / "neo4j")


async def run(args: argparse.Namespace, work: pathlib.Path, say=benchlib.log) -> dict:
    """Every server of args.servers in turn: started, measured, stopped."""
    quiet()
    results: dict[str, Any] = {}
    for kind in args.servers:
        t = time.perf_counter()
        server = await asyncio.to_thread(start_server, kind, work, args)
        startup = time.perf_counter() - t
        say(f"{kind}: listening at {server.uri} after {startup:.1f} s")
        try:
            r = await bench_server(kind, f"{args.scheme}://127.0.0.1:{server.port}", server.proc.pid, args, work, say)
            r["startup_s"] = startup
        finally:
            server.stop()
            r_log = log_findings(server.output())
        r["log"] = r_log
        r["cmdline"] = " ".join(server.proc.args) if isinstance(server.proc.args, list) else str(server.proc.args)
        results[kind] = r
    return results


# ---- versions, machine ----------------------------------------------------------------------


def _cmd(cmd: list[str], cwd: Optional[str] = None) -> str:
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=30, cwd=cwd)
        return (r.stdout + r.stderr).strip()
    except (OSError, subprocess.SubprocessError) as e:
        return f"? ({e})"


def versions(args: argparse.Namespace) -> dict:
    ref = neo4j_reference()
    rev = _cmd(["git", "rev-parse", "--short", "HEAD"], benchlib.ROOT)
    dirty = _cmd(["git", "status", "--porcelain", "--untracked-files=no"], benchlib.ROOT)
    binary = pathlib.Path(args.hopdb_bin) if args.hopdb_bin else ref.hopdb_binary()
    v = {
        "hopdb_git": rev + (" (working tree modified)" if dirty else ""),
        "hopdb_binary": str(binary),
        "hopdb_binary_built": datetime.datetime.fromtimestamp(binary.stat().st_mtime).isoformat(timespec="seconds")
        if binary and binary.exists() else None,
        "hopdb_version": _cmd([str(binary), "--version"]) if binary else None,
        "lightrag": importlib.metadata.version("lightrag-hku"),
        "neo4j_driver": importlib.metadata.version("neo4j"),
        "python": sys.version.split()[0],
    }
    if "neo4j" in args.servers:
        v["java"] = _cmd(["java", "-version"]).splitlines()[0]
        jars = [os.path.basename(j) for j in ref.classpath().split(os.pathsep)]
        v["neo4j_jars"] = [j for j in jars if re.match(r"(neo4j|apoc-core|apoc-common)-\d", j)]
        v["neo4j_jvm"] = f"-Xmx{ref.HEAP} (reference launcher) " + (
            "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC (reference launcher)" if args.neo4j_jvm == "reference"
            else f"_JAVA_OPTIONS={NEO4J_BENCH_JVM}") + "; page cache 64 MiB (reference launcher)"
    return v


# ---- report ---------------------------------------------------------------------------------


def _f(x: Any, d: int = 0) -> str:
    if x is None or (isinstance(x, float) and x != x):
        return "-"
    return f"{x:,.{d}f}"


def ratios(results: dict) -> list[dict]:
    """hopdb / neo4j calls/s at each task count both servers ran."""
    if not all(k in results for k in SERVERS):
        return []
    by = {k: {p["tasks"]: p for p in results[k]["points"]} for k in SERVERS}
    out = []
    for n in sorted(set(by["hopdb"]) & set(by["neo4j"])):
        h, j = by["hopdb"][n]["calls_per_s"], by["neo4j"][n]["calls_per_s"]
        out.append({"tasks": n, "hopdb": h, "neo4j": j, "ratio": h / j if j else float("nan")})
    return out


def report_md(doc: dict) -> str:
    meta, results = doc["meta"], doc["results"]
    a = meta["args"]
    lines = [
        "# LightRAG's Neo4JStorage: hopdb serve vs Neo4j 5.26",
        "",
        f"Run {meta['started']}: `{meta['command']}`",
        "",
        f"Graph: {a['nodes']:,} nodes, {a['edges']:,} edges (bench/pyapi/lightrag_storage.py build(), seed {a['seed']}), "
        f"built through the storage's upsert_nodes_batch / upsert_edges_batch. Mix: bench/pyapi/lightrag_storage.py mix(), "
        f"10 calls a round. Each point: N asyncio tasks in one Python process, {a['seconds']:g} s, after a "
        f"{a['warmup']:g} s warm-up; URI scheme {a['scheme']}://. CPU in % of one core over the window "
        "(client = this Python process; others = the rest of the machine).",
        "",
        "| server | tasks | calls/s | rounds/s | p50 ms | p99 ms | max ms | errors | client CPU % | server CPU % | "
        "others CPU % | client share % |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for kind, r in results.items():
        for p in r["points"]:
            lines.append(f"| {LABELS[kind]} | {p['tasks']} | {_f(p['calls_per_s'])} | {_f(p['rounds_per_s'], 1)} | "
                         f"{_f(p['p50_ms'], 2)} | {_f(p['p99_ms'], 2)} | {_f(p['max_ms'], 1)} | {p['errors']} | "
                         f"{_f(p['client_cpu_pct'])} | {_f(p['server_cpu_pct'])} | {_f(p['others_cpu_pct'])} | "
                         f"{_f(p['client_share_pct'])} |")
    slow = [f"{LABELS[k]} {p['tasks']} t.: {p['over_1s']}" for k, r in results.items() for p in r["points"] if p["over_1s"]]
    if slow:
        lines += ["", "Calls over 1 s: " + "; ".join(slow) + "."]
    rs = ratios(results)
    if rs:
        lines += ["", "| tasks | hopdb serve calls/s | Neo4j calls/s | hopdb / Neo4j | target 3x |", "|---:|---:|---:|---:|---|"]
        for x in rs:
            lines.append(f"| {x['tasks']} | {_f(x['hopdb'])} | {_f(x['neo4j'])} | {x['ratio']:.2f}x | "
                         f"{'met' if x['ratio'] >= 3 else 'not met'} |")
    methods = list(dict.fromkeys(m for r in results.values() for p in r["points"] for m in p["methods"]))
    cols = [(k, p["tasks"]) for k, r in results.items() for p in r["points"]]
    lines += ["", "Per method, median ms (p99 ms):", "",
              "| method | " + " | ".join(f"{LABELS[k]} {n} t." for k, n in cols) + " |",
              "|---|" + "---:|" * len(cols)]
    for m in methods:
        cells = []
        for k, n in cols:
            p = next(p for p in results[k]["points"] if p["tasks"] == n)
            s = p["methods"].get(m)
            cells.append(f"{_f(s['p50_ms'], 2)} ({_f(s['p99_ms'], 1)})" if s else "-")
        lines.append(f"| {m} | " + " | ".join(cells) + " |")
    lines += ["", "| server | agent | database | start s | build s | nodes found | degree sum | log warnings/errors |",
              "|---|---|---|---:|---:|---:|---:|---:|"]
    for kind, r in results.items():
        lines.append(f"| {LABELS[kind]} | {r['agent']} | {r['database'] or '(default)'} | {_f(r['startup_s'], 1)} | "
                     f"{_f(r['build_s'], 2)} | {r['graph']['nodes']:,} | {r['graph']['degree_sum']:,} | {r['log']['count']} |")
    if len({json.dumps(r["graph"], sort_keys=True) for r in results.values()}) > 1:
        lines += ["", "**The servers' graphs differ** (nodes found / degree sum above): the comparison is not like for like."]
    for kind, r in results.items():
        errs = [e for p in r["points"] for e in p["first_errors"]]
        if errs:
            lines += ["", f"{LABELS[kind]}: first errors:", ""] + [f"- `{e}`" for e in errs[:5]]
        if r["log"]["first"]:
            lines += ["", f"{LABELS[kind]}: its log's first warnings/errors:", ""] + [f"- `{e}`" for e in r["log"]["first"]]
        if r.get("init_log"):
            lines += ["", f"{LABELS[kind]}: LightRAG's initialize() logged:", ""] + [f"- `{e}`" for e in r["init_log"]]
    v, h = meta["versions"], meta["host"]
    lines += ["", "Versions: " + "; ".join(f"{k} {v[k] if not isinstance(v[k], list) else ', '.join(v[k])}" for k in v if v[k]),
              "", f"Machine: {h['cpu']}, {h['cores']} cores (nproc), {h['mem_gib']} GiB RAM, kernel {h['kernel']}; "
              "shared with other work (see others CPU %)."]
    return "\n".join(lines) + "\n"


def chart(doc: dict, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    results = doc["results"]
    tasks = sorted({p["tasks"] for r in results.values() for p in r["points"]})
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    width = 0.8 / max(1, len(results))
    for i, (kind, r) in enumerate(results.items()):
        by = {p["tasks"]: p["calls_per_s"] for p in r["points"]}
        xs = [j + (i - (len(results) - 1) / 2) * width for j in range(len(tasks))]
        ys = [by.get(n, 0) for n in tasks]
        bars = ax.bar(xs, ys, width, label=LABELS[kind])
        ax.bar_label(bars, labels=[f"{y:,.0f}" for y in ys], fontsize=8)
    for x in ratios(results):
        ax.annotate(f"{x['ratio']:.1f}x", (tasks.index(x["tasks"]), max(x["hopdb"], x["neo4j"]) * 1.08), ha="center",
                    fontsize=9, weight="bold")
    ax.set_xticks(range(len(tasks)), [f"{n} task{'s' if n > 1 else ''}" for n in tasks])
    ax.set_ylabel("calls/s")
    ax.set_ylim(0, max([p["calls_per_s"] for r in results.values() for p in r["points"]] + [1]) * 1.25)
    a = doc["meta"]["args"]
    ax.set_title(f"LightRAG Neo4JStorage call mix ({a['nodes']:,} nodes, {a['edges']:,} edges)\n"
                 "bold: hopdb serve / Neo4j", fontsize=10)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def write_outputs(doc: dict, out: str) -> str:
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(doc, f, indent=1, default=str)
    md = report_md(doc)
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write(md)
    chart(doc, os.path.join(out, "lightrag_neo4j.png"))
    return md


def make_meta(args: argparse.Namespace, command: str) -> dict:
    """The run's description for the report: when, the command, the arguments, versions, machine."""
    return {"started": datetime.datetime.now().isoformat(timespec="seconds"), "command": command, "args": dict(vars(args)),
            "versions": versions(args), "host": benchlib.host_info()}


def parse_args(argv: Optional[list[str]] = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python3 -m bench.pyapi.lightrag_neo4j", description=__doc__.splitlines()[0])
    p.add_argument("--nodes", type=int, default=5000)
    p.add_argument("--edges", type=int, default=10000)
    p.add_argument("--seconds", type=float, default=20.0, help="measured seconds per point")
    p.add_argument("--warmup", type=float, default=15.0, help="warm-up seconds per server (at the largest task count)")
    p.add_argument("--tasks", default="1,8", help="asyncio task counts, comma-separated")
    p.add_argument("--servers", default="hopdb,neo4j", help="which servers, in this order")
    p.add_argument("--seed", type=int, default=2)
    p.add_argument("--quiet-wait", type=float, default=0.0,
                   help="before each point, wait up to this many s for other processes to use under 0.3 cores")
    p.add_argument("--scheme", default="bolt", choices=["bolt", "neo4j"], help="NEO4J_URI scheme for both servers")
    p.add_argument("--neo4j-jvm", default="bench", choices=["bench", "reference"],
                   help="bench: the JVM's default JIT and GC; reference: neo4j_reference.py's test settings as they are")
    p.add_argument("--hopdb-bin", default=None, help="default $CARGO_TARGET_DIR/release/hopdb")
    p.add_argument("--out", default=os.path.join(benchlib.BENCH, "results", "lightrag-neo4j"))
    a = p.parse_args(argv)
    a.tasks = [int(x) for x in a.tasks.split(",") if x.strip()]
    a.servers = [x.strip() for x in a.servers.split(",") if x.strip()]
    bad = [s for s in a.servers if s not in SERVERS]
    if bad or not a.servers:
        p.error(f"--servers: choose among {', '.join(SERVERS)}")
    if a.nodes < 40:
        p.error("--nodes: at least 40 (a round reads 40 entities)")
    return a


def main(argv: Optional[list[str]] = None) -> int:
    args = parse_args(argv)
    ref = neo4j_reference()
    if "hopdb" in args.servers and not (args.hopdb_bin or ref.hopdb_binary()):
        raise SystemExit("the hopdb binary is not built (cargo build --release -p hopdb-cli; or --hopdb-bin)")
    if "neo4j" in args.servers and ref.unavailable_reason():
        raise SystemExit(f"Neo4j: {ref.unavailable_reason()}")
    command = "python3 -m bench.pyapi.lightrag_neo4j " + " ".join(map(shlex.quote, sys.argv[1:] if argv is None else argv))
    meta = make_meta(args, command.strip())
    with tempfile.TemporaryDirectory(prefix="lightrag-neo4j-") as tmp:
        results = asyncio.run(run(args, pathlib.Path(tmp)))
    doc = {"meta": meta, "results": results, "ratios": ratios(results)}
    md = write_outputs(doc, args.out)
    print(md)
    benchlib.log(f"wrote {args.out}/results.json, report.md, lightrag_neo4j.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
