"""HopDBGraphStorage against LightRAG's default NetworkXStorage at full scale, through the
storage classes (needs lightrag-hku and the `hopdb` binary):

    python3 -m bench.pyapi.lightrag_fullscale [--scale 1] [--seconds 10] [--storages hopdb,networkx]

The graph: `hopdb generate --scale S` (S=1: 745,504 documents, chunks and entities, 1,252,253
edges) as LightRAG stores it: every node an entity (entity_id, entity_type, a ~200-character
description, source_id, file_path, created_at; HopDB label = entity_type, as the GraphML importer
gives), every edge undirected (weight, description, keywords, source_id, file_path, created_at).
It is built once and cached under ~/.cache/hopdb/bench-data/lightrag-fullscale/sS: a HopDB store
made with `Graph.import_tables` (edge type RELATED, undirected, the weight also the HopDB weight:
what HopDBGraphStorage and the GraphML importer make) and the GraphML file NetworkXStorage reads
(written with `nx.write_graphml`, as its index_done_callback writes it). Each run copies them
into a fresh working directory.

Each storage runs in its own fresh process, one after the other, with the same seeds and call
sequence; keys are made from integers on the fly, so the process holds no key list:
0. correctness: a few hundred calls of each kind (point reads, upserts then reads, batch
   reads); the answers (edge lists as sets) must be equal across the storages.
1. LightRAG's call mix through the async methods: get_node 35%, get_node_edges 25%,
   upsert_node 15% (a changed description merged into an existing entity), node_degree 15%,
   has_node 10%; keys uniform over the nodes, and degree-weighted (an endpoint of a uniformly
   drawn edge). Untimed warm-up, then --seconds per measurement: calls/s and p50/p99 per call
   for one coroutine awaiting calls back to back, and for 8 asyncio tasks sharing the sequence
   (HopDB's point calls never suspend, so its 8 tasks take turns call by call only in effect;
   NetworkXStorage's calls suspend on its namespace lock, so its per-call times include waiting).
2. index_done_callback after a round of 1,000 upserts (NetworkXStorage rewrites the GraphML;
   HopDB's writes are durable when they return: WAL, survives a crash of the process). Cold start
   in a new process: wall time from spawning it to the first get_node's answer, and inside it
   the time of constructing + initialize() + first get_node (NetworkXStorage parses the GraphML
   when constructed).
3. Resident memory of the whole process (/proc/self/status VmRSS, VmHWM): after LightRAG's
   imports (the baseline, about 135 MB), after opening, after the mix.
4. The query path's batch calls with 40, 100, 400 uniform keys: get_nodes_batch,
   node_degrees_batch, get_nodes_edges_batch, get_edges_batch (3/4 existing edges, 1/4 random
   pairs); median time per call over --batch-reps calls.
Results: --out DIR (default bench/results/lightrag) / fullscale_sS.json and .md. --csv DIR takes
neo4j-admin CSV files in `hopdb generate`'s layout instead of running the binary.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from array import array
from pathlib import Path
from typing import Any

from bench.benchlib import lightrag_support, module_cmd, module_env

HERE = Path(__file__).resolve().parent
support = lightrag_support()  # python/tests/lightrag_support.py

HOPDB = Path(os.environ.get("HOPDB_BIN", Path.home() / ".cache/hopdb/target/release/hopdb"))
CACHE = Path.home() / ".cache/hopdb/bench-data/lightrag-fullscale"
BACKEND = {"hopdb": "HopDBGraphStorage", "networkx": "NetworkXStorage"}
WORKSPACE = "bench"
GRAPHML = f"graph_{support.NAMESPACE}.graphml"
STORE = f"graph_{support.NAMESPACE}.hopdb"
MIX = [("get_node", 35), ("get_node_edges", 25), ("upsert_node", 15), ("node_degree", 15), ("has_node", 10)]
PREFIXES = ("doc", "chunk", "ent")
FILLER = (" It is described in the passages that mention it, together with the entities, events and"
          " places of the same chunks, as the extraction model summarised them.")


# ---- the data (parent process, cached) -----------------------------------------------------

def prepare(scale: float, csv_dir: str | None) -> Path:
    """Generates the CSV (or takes `csv_dir`'s), builds the HopDB store, the GraphML file and the
    sampling plan (once: cached)."""
    d = CACHE / (f"s{scale:g}" if csv_dir is None else f"csv-{Path(csv_dir).resolve().name}")
    if (d / "plan.json").exists():
        return d
    import networkx as nx
    import numpy as np
    import pyarrow as pa
    import pyarrow.csv as pacsv

    import hopdb

    csv = d / "csv" if csv_dir is None else Path(csv_dir)
    if not (csv / "mentions.csv").exists():
        subprocess.run([str(HOPDB), "generate", "--out", str(csv), "--scale", str(scale)], check=True)
    t = time.perf_counter()

    def read(f):
        return pacsv.read_csv(csv / f, convert_options=pacsv.ConvertOptions(strings_can_be_null=False))

    docs, chunks, ents = read("documents.csv"), read("chunks.csv"), read("entities.csv")
    counts = [docs.num_rows, chunks.num_rows, ents.num_rows]
    ids = [k for t_ in (docs, chunks, ents) for k in t_[":ID"].to_pylist()]
    assert ids == [key_of(i, counts) for i in range(len(ids))], "unexpected node ids"
    titles = docs["title"].to_pylist() + chunks["section_title"].to_pylist() + ents["canonical_title"].to_pylist()
    types = ["document"] * counts[0] + ["chunk"] * counts[1] + ents["entity_type"].to_pylist()
    n = len(ids)
    nodes = pa.table({
        "id": ids,
        "labels": [[ty] for ty in types],
        "entity_id": ids,
        "entity_type": types,
        "description": [f"{ti} ({ty}).{FILLER}" for ti, ty in zip(titles, types, strict=False)],
        "source_id": [f"chunk-{i % counts[1] + 1}" for i in range(n)],
        "file_path": [f"corpus/file-{i % 5000}.txt" for i in range(n)],
        "created_at": pa.array([1_700_000_000 + i for i in range(n)], pa.int64()),
    })
    del docs, chunks, ents, titles, types
    e = [read(f) for f in ("has_chunk.csv", "mentions.csv")]
    src = e[0][":START_ID"].to_pylist() + e[1][":START_ID"].to_pylist()
    dst = e[0][":END_ID"].to_pylist() + e[1][":END_ID"].to_pylist()
    kw = ["contains chunk"] * e[0].num_rows + ["mentions, appears in"] * e[1].num_rows
    m = len(src)
    weight = [1.0 + (i % 7) / 2 for i in range(m)]
    edges = pa.table({
        "src": src, "dst": dst, "hop_weight": weight, "weight": weight,
        "description": [f"{s} and {t_} are related: {s} {k.split(',')[0]} {t_}, as the source text says."
                        for s, t_, k in zip(src, dst, kw, strict=False)],
        "keywords": kw,
        "source_id": [s if s.startswith("chunk") else t_ for s, t_ in zip(src, dst, strict=False)],
        "file_path": [f"corpus/file-{i % 5000}.txt" for i in range(m)],
        "created_at": pa.array([1_700_000_000 + i for i in range(m)], pa.int64()),
    })
    print(f"tables: {n} nodes, {m} edges in {time.perf_counter() - t:.1f} s", file=sys.stderr)

    store = d / "hopdb" / WORKSPACE / STORE
    shutil.rmtree(store, ignore_errors=True)
    store.parent.mkdir(parents=True)
    t = time.perf_counter()
    with hopdb.Graph(str(store)) as g:
        g.define_edge_type("RELATED", undirected=True)
        g.import_tables(nodes=[nodes], edges=[("RELATED", edges)], weight="hop_weight")
        assert (g.node_count(), g.edge_count()) == (n, m), (g.node_count(), g.edge_count())
    print(f"HopDB store: {time.perf_counter() - t:.1f} s", file=sys.stderr)

    t = time.perf_counter()
    G = nx.Graph()
    props = [c for c in nodes.column_names if c not in ("id", "labels")]
    G.add_nodes_from(zip(ids, (dict(zip(props, r, strict=False)) for r in zip(*(nodes[c].to_pylist() for c in props), strict=False)), strict=False))
    props = [c for c in edges.column_names if c not in ("src", "dst", "hop_weight")]
    G.add_edges_from(zip(src, dst, (dict(zip(props, r, strict=False)) for r in zip(*(edges[c].to_pylist() for c in props), strict=False)), strict=False))
    (d / "networkx" / WORKSPACE).mkdir(parents=True, exist_ok=True)
    nx.write_graphml(G, d / "networkx" / WORKSPACE / GRAPHML)
    print(f"GraphML: {time.perf_counter() - t:.1f} s", file=sys.stderr)
    del G, nodes, edges

    # Sampling plan: node indices; an endpoint of a uniform edge is a degree-weighted node.
    rng = np.random.default_rng(7)
    index = {k: i for i, k in enumerate(ids)}
    ends = rng.integers(0, m, 200_000)
    array("i", [index[src[j] if j % 2 else dst[j]] for j in ends]).tofile(open(d / "weighted.bin", "wb"))
    pairs = [[index[src[j]], index[dst[j]]] for j in rng.integers(0, m, 20_000)]
    json.dump({"counts": counts, "nodes": n, "edges": m, "edge_sample": pairs}, open(d / "plan.json", "w"))
    return d


def key_of(i: int, counts: list[int]) -> str:
    """Node i of documents, chunks, entities in that order (keys doc-1.., chunk-1.., ent-1..)."""
    for prefix, c in zip(PREFIXES, counts, strict=False):
        if i < c:
            return f"{prefix}-{i + 1}"
        i -= c
    raise IndexError(i)


# ---- the measurements (one child process per storage) ---------------------------------------

def memory() -> dict[str, float]:
    """VmRSS and VmHWM of this process, MB."""
    out = {}
    for line in open("/proc/self/status"):
        if line.startswith(("VmRSS", "VmHWM")):
            out[line.split(":")[0]] = int(line.split()[1]) / 1024
    return out


def canon(x: Any) -> Any:
    """A JSON-comparable form: sets and edge lists sorted, tuple keys joined."""
    if isinstance(x, dict):
        return sorted([("|".join(k) if isinstance(k, tuple) else k, canon(v)) for k, v in x.items()],
                      key=lambda kv: kv[0])
    if isinstance(x, set):
        return sorted(x)
    if isinstance(x, list) and x and isinstance(x[0], tuple):
        return sorted(list(p) for p in x)
    return x


class Bench:
    def __init__(self, storage: Any, plan: dict, weighted: array, seed: int):
        self.s, self.plan, self.weighted, self.seed = storage, plan, weighted, seed
        self.n, self.counts = plan["nodes"], plan["counts"]
        self.updates = 0

    def key(self, rng: random.Random, weighted: bool = False) -> str:
        i = self.weighted[rng.randrange(len(self.weighted))] if weighted else rng.randrange(self.n)
        return key_of(i, self.counts)

    def node_update(self, key: str) -> dict[str, Any]:
        self.updates += 1
        return {"entity_id": key, "description": f"{key}, merged description #{self.updates}.{FILLER}",
                "source_id": f"chunk-{self.updates % self.counts[1] + 1}<SEP>chunk-1",
                "file_path": "corpus/update.txt", "created_at": 1_800_000_000 + self.updates, "truncate": ""}

    def call(self, op: str, key: str):
        s = self.s
        if op == "upsert_node":
            return s.upsert_node(key, self.node_update(key))
        return getattr(s, op)(key)

    def pairs(self, rng: random.Random, k: int) -> list[dict[str, str]]:
        sample, out = self.plan["edge_sample"], []
        for j in range(k):
            a, b = sample[rng.randrange(len(sample))] if j % 4 else (rng.randrange(self.n), rng.randrange(self.n))
            out.append({"src": key_of(a, self.counts), "tgt": key_of(b, self.counts)})
        return out

    async def correctness(self, calls: int) -> list:
        rng, s, out = random.Random(self.seed + 1), self.s, []
        for _ in range(calls):
            k = self.key(rng, weighted=rng.random() < 0.5)
            missing = f"missing-{rng.randrange(10**6)}"
            edge = self.pairs(rng, 2)[1]  # an existing edge (every 4th pair is random)
            a, b = edge["src"], edge["tgt"]
            out += [await s.get_node(k), await s.get_node_edges(k), await s.node_degree(k),
                    await s.has_node(k), await s.has_node(missing), await s.get_node(missing),
                    await s.get_node_edges(missing), await s.node_degree(missing),
                    await s.get_edge(a, b), await s.get_edge(b, a), await s.has_edge(a, b),
                    await s.get_edge(k, missing), await s.edge_degree(a, b)]
            out.append(await s.upsert_node(k, self.node_update(k)))
            out.append(await s.get_node(k))
        for size in (40, 100) * (calls // 40):
            ks = [self.key(rng, weighted=size == 40) for _ in range(size)] + ["missing-x"]
            ps = self.pairs(rng, size)
            out += [await s.get_nodes_batch(ks), await s.node_degrees_batch(ks), await s.has_nodes_batch(ks),
                    await s.get_nodes_edges_batch(ks), await s.get_edges_batch(ps),
                    await s.edge_degrees_batch([(p["src"], p["tgt"]) for p in ps])]
        return [canon(x) for x in out]

    async def mix(self, seconds: float, tasks: int, weighted: bool, seed: int, save: Path | None = None) -> dict:
        """Runs the call mix from a seeded sequence for `seconds` with `tasks` coroutines. The
        latencies go to `save` (one file of doubles per call kind), for the parent to rank:
        sorting them here would leave their float objects' memory in this process's RSS, which
        is the storage's measure (about 12 MB for a run)."""
        rng = random.Random(seed)
        ops = [op for op, w in MIX for _ in range(w)]
        lat: dict[str, array] = {op: array("d") for op, _ in MIX}
        deadline = time.perf_counter() + seconds
        clock = time.perf_counter

        async def worker() -> None:
            while clock() < deadline:
                op = ops[rng.randrange(100)]
                key = self.key(rng, weighted)
                t = clock()
                await self.call(op, key)
                lat[op].append(clock() - t)

        t0 = clock()
        await asyncio.gather(*(worker() for _ in range(tasks)))
        elapsed = clock() - t0
        calls = sum(map(len, lat.values()))
        if save is not None:
            save.mkdir(parents=True, exist_ok=True)
            for op, a in lat.items():
                a.tofile(open(save / f"{op}.bin", "wb"))
        return {"calls_per_s": calls / elapsed, "calls": calls, "latencies": str(save) if save else None}

    async def batches(self, reps: int) -> dict:
        rng, s, out = random.Random(self.seed + 2), self.s, {}
        for size in (40, 100, 400):
            times: dict[str, list[float]] = {}
            for _ in range(reps):
                ks = [self.key(rng) for _ in range(size)]
                ps = self.pairs(rng, size)
                for name, fn in (("get_nodes_batch", lambda ks=ks: s.get_nodes_batch(ks)),
                                 ("node_degrees_batch", lambda ks=ks: s.node_degrees_batch(ks)),
                                 ("get_nodes_edges_batch", lambda ks=ks: s.get_nodes_edges_batch(ks)),
                                 ("get_edges_batch", lambda ps=ps: s.get_edges_batch(ps))):
                    t = time.perf_counter()
                    await fn()
                    times.setdefault(name, []).append(time.perf_counter() - t)
            out[size] = {name: statistics.median(ts) * 1e6 for name, ts in times.items()}
        return out


def quiet() -> None:
    logging.getLogger("lightrag").setLevel(logging.ERROR)


async def child(a: argparse.Namespace) -> dict:
    """Everything measured inside one storage's process; the parent compares and reports."""
    quiet()
    plan = json.load(open(Path(a.data) / "plan.json"))
    weighted = array("i")
    weighted.frombytes((Path(a.data) / "weighted.bin").read_bytes())
    support.storage_class(BACKEND[a.child])  # LightRAG's imports and registry, before the baseline
    r: dict[str, Any] = {"mem_baseline_mb": memory()}
    t = time.perf_counter()
    s = support.make_storage(BACKEND[a.child], a.workdir, workspace=WORKSPACE)
    quiet()  # LightRAG's set-up resets it
    await s.initialize()
    r["open_s"] = time.perf_counter() - t
    r["mem_open_mb"] = memory()
    b = Bench(s, plan, weighted, a.seed)
    t = time.perf_counter()
    json.dump(await b.correctness(a.check_calls), open(Path(a.workdir) / "answers.json", "w"))
    r["check_s"] = time.perf_counter() - t
    await b.mix(min(2.0, a.seconds), 1, False, a.seed + 100)  # warm-up, untimed
    r["mix"] = {f"{draw}, {tasks} task{'s' * (tasks > 1)}":
                await b.mix(a.seconds, tasks, draw == "weighted", a.seed, Path(a.workdir) / f"latencies-{draw}-{tasks}")
                for draw in ("uniform", "weighted") for tasks in (1, 8)}
    r["mem_mix_mb"] = memory()
    r["batch_us"] = await b.batches(a.batch_reps)
    for i in range(1000):
        await b.call("upsert_node", key_of(i * 7919 % b.n, b.counts))
    t = time.perf_counter()
    await s.index_done_callback()
    r["index_done_callback_s"] = time.perf_counter() - t
    await s.finalize()
    r["cold_key"] = key_of(12345 % b.n, b.counts)
    return r


async def cold(a: argparse.Namespace) -> dict:
    support.storage_class(BACKEND[a.cold])  # LightRAG's and HopDB's imports
    quiet()
    t_imported = time.time()
    t = time.perf_counter()
    s = support.make_storage(BACKEND[a.cold], a.workdir, workspace=WORKSPACE)
    await s.initialize()
    node = await s.get_node(a.key)
    return {"t_answer": time.time(), "open_query_s": time.perf_counter() - t,
            "t_imported": t_imported, "found": node is not None}


# ---- the parent: runs the children, compares, reports ---------------------------------------

def rank_latencies(mix: dict) -> None:
    """Replaces a mix result's latency directory by p50/p99 (us), overall and per call kind."""

    def q(xs, p):
        return xs[min(len(xs) - 1, int(p * len(xs)))] * 1e6 if xs else None

    d, by_op, every = Path(mix.pop("latencies")), {}, []
    for op, _ in MIX:
        a = array("d")
        a.frombytes((d / f"{op}.bin").read_bytes())
        xs = sorted(a)
        every += xs
        by_op[op] = {"calls": len(xs), "p50_us": q(xs, 0.5), "p99_us": q(xs, 0.99)}
    every.sort()
    mix.update({"p50_us": q(every, 0.5), "p99_us": q(every, 0.99), "by_op": by_op})


def run_child(args: list[str]) -> dict:
    out = subprocess.run(module_cmd("bench.pyapi.lightrag_fullscale", *args), check=True, stdout=subprocess.PIPE, text=True, env=module_env()).stdout
    return json.loads(out.strip().splitlines()[-1])


def report(res: dict, storages: list[str], a: argparse.Namespace) -> str:
    """The Markdown table; the last column compares HopDB with NetworkXStorage when both ran."""
    per = [res[s] for s in storages]
    both = storages == ["hopdb", "networkx"]
    lines = [f"LightRAG graph storage at scale {a.scale:g} ({res['nodes']:,} nodes, {res['edges']:,} edges), "
             f"{a.seconds:g} s per mix run; load average {res['load_before']:.1f} before, {res['load_after']:.1f} after",
             "", "| measure | " + " | ".join(BACKEND[s] for s in storages) + " |" + (" HopDB vs NetworkX |" if both else ""),
             "|---|" + "---:|" * (len(per) + both)]

    def row(label: str, vals: list, fmt: str = "", better: str = "") -> None:
        cells = [format(v, fmt) for v in vals]
        if both:
            x, y = vals
            faster = "" if better != "low" else f"{y / x:.1f}x faster" if y < 1000 * x else ">1000x faster"
            cells.append(f"{x / y:.2f}x" if better == "high" else faster)
        lines.append(f"| {label} | " + " | ".join(cells) + " |")

    for mode in per[0]["mix"]:
        m = [p["mix"][mode] for p in per]
        row(f"mix, {mode}: calls/s", [x["calls_per_s"] for x in m], ",.0f", "high")
        row(f"mix, {mode}: p50 / p99 per call, us", [f"{x['p50_us']:.0f} / {x['p99_us']:.0f}" for x in m])
    row("open: construct + initialize, s", [p["open_s"] for p in per], ".3f", "low")
    row("index_done_callback after 1,000 upserts, s", [p["index_done_callback_s"] for p in per], ".4f", "low")
    row("cold start: spawn to first get_node answer, s", [p["cold_wall_s"] for p in per], ".2f", "low")
    row("cold start: of which interpreter + imports, s", [p["cold_imports_s"] for p in per], ".2f")
    row("cold start: construct + initialize + get_node, ms", [p["cold_open_query_ms"] for p in per], ",.1f", "low")
    for when in ("baseline", "open", "mix"):
        row(f"memory after {when}: VmRSS / VmHWM, MB",
            [f"{p[f'mem_{when}_mb']['VmRSS']:,.0f} / {p[f'mem_{when}_mb']['VmHWM']:,.0f}" for p in per])
    row("memory after mix minus baseline (the storage's share): VmRSS, MB",
        [p["mem_mix_mb"]["VmRSS"] - p["mem_baseline_mb"]["VmRSS"] for p in per], ",.0f")
    for size in per[0]["batch_us"]:
        for name in per[0]["batch_us"][size]:
            row(f"{name}({size}): median us", [p["batch_us"][size][name] for p in per], ",.0f", "low")
    if "check" in res:
        c = res["check"]
        lines += ["", f"Correctness: {c['answers']:,} answers compared, {c['differences']} differ."]
    return "\n".join(lines) + "\n"


def main() -> None:
    p = argparse.ArgumentParser(prog=f"python3 -m {__spec__.name}", description=__doc__.splitlines()[0])
    p.add_argument("--scale", type=float, default=1.0)
    p.add_argument("--seconds", type=float, default=10.0, help="per mix measurement")
    p.add_argument("--storages", default="hopdb,networkx")
    p.add_argument("--out", default=str(HERE.parent / "results" / "lightrag"))
    p.add_argument("--csv", help="use these neo4j-admin CSV files (hopdb generate's layout) instead of generating")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--check-calls", type=int, default=300, help="correctness: calls of each kind")
    p.add_argument("--batch-reps", type=int, default=30)
    p.add_argument("--cold-runs", type=int, default=3)
    p.add_argument("--child", help=argparse.SUPPRESS)
    p.add_argument("--cold", help=argparse.SUPPRESS)
    p.add_argument("--data", help=argparse.SUPPRESS)
    p.add_argument("--workdir", help=argparse.SUPPRESS)
    p.add_argument("--key", help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.child or a.cold:
        print(json.dumps(asyncio.run(child(a) if a.child else cold(a))))
        return

    storages = a.storages.split(",")
    d = prepare(a.scale, a.csv)
    plan = json.load(open(d / "plan.json"))
    res: dict[str, Any] = {"scale": a.scale, "nodes": plan["nodes"], "edges": plan["edges"],
                           "seconds": a.seconds, "seed": a.seed, "load_before": os.getloadavg()[0]}
    answers = {}
    for s in storages:
        work = d / f"run-{s}"
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(d / s, work)
        print(f"{BACKEND[s]}: measuring ...", file=sys.stderr)
        r = run_child(["--child", s, "--data", str(d), "--workdir", str(work), "--seconds", str(a.seconds),
                       "--seed", str(a.seed), "--check-calls", str(a.check_calls),
                       "--batch-reps", str(a.batch_reps)])
        answers[s] = json.load(open(work / "answers.json"))
        for m in r["mix"].values():
            rank_latencies(m)
        colds = []
        for _ in range(a.cold_runs):
            t0 = time.time()
            c = run_child(["--cold", s, "--workdir", str(work), "--key", r["cold_key"]])
            assert c["found"], "cold start: the node is missing"
            colds.append((c["t_answer"] - t0, c["open_query_s"], c["t_imported"] - t0))
        r["cold_wall_s"], r["cold_open_query_ms"], r["cold_imports_s"] = (
            statistics.median(x[i] for x in colds) * (1000 if i == 1 else 1) for i in range(3))
        res[s] = r
        shutil.rmtree(work)
    if len(answers) == 2:
        x, y = answers.values()
        bad = [i for i, (u, v) in enumerate(zip(x, y, strict=False)) if u != v]
        res["check"] = {"answers": len(x), "differences": len(bad)}
        if bad or len(x) != len(y):
            print(f"MISMATCH at answers {bad[:5]}: {x[bad[0]] if bad else ''!r:.300} vs {y[bad[0]] if bad else ''!r:.300}",
                  file=sys.stderr)
        else:
            print(f"correctness: {len(x)} answers equal", file=sys.stderr)
    res["load_after"] = os.getloadavg()[0]
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    md = report(res, storages, a)
    name = f"fullscale_s{a.scale:g}"
    (out / f"{name}.json").write_text(json.dumps(res, indent=1) + "\n")
    (out / f"{name}.md").write_text(md)
    print(md)


if __name__ == "__main__":
    main()
