"""HopDB's graph algorithms (crates/hopdb-algo) against NetworkX and igraph on the same graphs
and the same seed nodes.

Runs the Rust example `algo_bench` (which prints the seed nodes it drew), then the same
queries in igraph and NetworkX, checks that all three agree on the k-hop counts, and prints a
Markdown table. Ratios are peer time / HopDB time (how many times slower the peer is).

usage: python3 -m bench.algo_vs_peers [--datasets DIR] [--nx-seeds 100]
NetworkX gets the first --nx-seeds seeds only (its 4-hop BFS takes up to ~0.1 s each); the
HopDB and igraph figures in its ratio are taken over the same prefix.
"""
import argparse
import gzip
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import igraph as ig
import networkx as nx
from networkx.algorithms.link_analysis.pagerank_alg import _pagerank_python

ROOT = Path(__file__).resolve().parent.parent
GRAPHS = [
    ("snap-web-NotreDame", "snap-web-NotreDame/web-NotreDame.txt.gz", ["--skip", "1"]),
    ("dimacs9-road-NY", "dimacs9-road-NY/USA-road-d.NY.gr.gz", ["--weight-col", "2"]),
]


def run_rust(path, extra):
    env = dict(os.environ)
    env.setdefault("CARGO_TARGET_DIR", str(Path.home() / ".cache/hopdb/target-algo"))
    cmd = ["cargo", "run", "-q", "-p", "hopdb-algo", "--release", "--example", "algo_bench", "--", str(path), *extra]
    out = subprocess.run(cmd, cwd=ROOT, env=env, check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def load(path, skip):
    """Same rules as the Rust loader: dense ids in order of first appearance."""
    index, edges = {}, []
    opener = gzip.open if str(path).endswith(".gz") else open
    skipped = 0
    with opener(path, "rt") as f:
        for line in f:
            t = line.strip()
            if not t or t[0] in "#%" or t == "c" or t.startswith("c ") or t.startswith("p "):
                continue
            if skipped < skip:
                skipped += 1
                continue
            cols = t.replace(",", " ").split()
            if cols[0] == "a":
                cols = cols[1:]
            s = index.setdefault(cols[0], len(index))
            d = index.setdefault(cols[1], len(index))
            edges.append((s, d))
    return index, edges


def timed(fn, seeds):
    lat, counts = [], []
    for s in seeds:
        t = time.perf_counter()
        counts.append(fn(s))
        lat.append((time.perf_counter() - t) * 1e6)
    return lat, counts


def p(values, q):
    s = sorted(values)
    return s[round((len(s) - 1) * q)] if s else 0.0


def fmt_us(x):
    return f"{x:,.1f} µs" if x < 10_000 else f"{x / 1000:,.1f} ms"


def fmt_s(x):
    return f"{x * 1000:,.1f} ms" if x < 10 else f"{x:,.1f} s"


def bench(name, path, extra, nx_seeds):
    rust = run_rust(path, extra)
    skip = int(extra[extra.index("--skip") + 1]) if "--skip" in extra else 0
    index, edges = load(path, skip)
    n = len(index)
    assert n == rust["nodes"] and len(edges) == rust["edges"], "loaders disagree"
    seeds = [index[s] for s in rust["seeds"]]
    g = ig.Graph(n=n, edges=edges, directed=True)
    G = nx.DiGraph()
    G.add_nodes_from(range(n))
    G.add_edges_from(edges)
    rows = []
    for s in seeds[:nx_seeds]:  # warm-up, as the Rust side does
        g.neighborhood(s, order=4, mode="out", mindist=1)
        nx.single_source_shortest_path_length(G, s, cutoff=4)
    for k in ("2", "3", "4"):
        r = rust["khop_within"][k]
        ig_lat, ig_counts = timed(lambda s, k=k: len(g.neighborhood(s, order=int(k), mode="out", mindist=1)), seeds)
        assert ig_counts == r["counts"], f"{name} {k}-hop: igraph counts differ"
        few = seeds[:nx_seeds]
        nx_lat, nx_counts = timed(
            lambda s, k=k: len(nx.single_source_shortest_path_length(G, s, cutoff=int(k))) - 1, few)
        assert nx_counts == r["counts"][:nx_seeds], f"{name} {k}-hop: NetworkX counts differ"
        ours, ours_few = r["latencies_us"], r["latencies_us"][: len(few)]
        rows.append((
            f"{k}-hop within, distinct (median / p99; mean {r['mean_count']:,.0f} nodes)",
            f"{fmt_us(p(ours, .5))} / {fmt_us(p(ours, .99))}",
            f"{fmt_us(p(ig_lat, .5))} / {fmt_us(p(ig_lat, .99))}",
            f"{fmt_us(p(nx_lat, .5))} / {fmt_us(p(nx_lat, .99))}",
            f"{p(ig_lat, .5) / p(ours, .5):.1f}x / {p(ig_lat, .99) / p(ours, .99):.1f}x",
            f"{p(nx_lat, .5) / p(ours_few, .5):.1f}x / {p(nx_lat, .99) / p(ours_few, .99):.1f}x",
        ))
    t = time.perf_counter()
    g.pagerank(implementation="prpack")
    ig_pr = time.perf_counter() - t
    t = time.perf_counter()
    try:
        _pagerank_python(G, max_iter=20, tol=0.0)
    except nx.PowerIterationFailedConvergence:
        pass
    nx_pr = time.perf_counter() - t
    pr1, pr2 = rust["pagerank20_s"]["1"], rust["pagerank20_s"]["2"]
    rows.append((
        "PageRank (HopDB and NetworkX: 20 iterations; igraph: PRPACK to convergence)",
        f"{fmt_s(pr1)} (1 thread), {fmt_s(pr2)} (2 threads)",
        fmt_s(ig_pr), fmt_s(nx_pr),
        f"{ig_pr / pr2:.1f}x", f"{nx_pr / pr2:.1f}x",
    ))
    t = time.perf_counter()
    ig_wcc = len(g.connected_components(mode="weak"))
    ig_cc = time.perf_counter() - t
    t = time.perf_counter()
    nx_wcc = nx.number_weakly_connected_components(G)
    nx_cc = time.perf_counter() - t
    assert ig_wcc == nx_wcc == rust["wcc_count"], "WCC counts differ"
    uf = rust["wcc_s"]["union_find"]
    rows.append((
        f"WCC ({ig_wcc:,} components; HopDB union-find, label propagation {fmt_s(rust['wcc_s']['label_propagation_2_threads'])})",
        fmt_s(uf), fmt_s(ig_cc), fmt_s(nx_cc), f"{ig_cc / uf:.1f}x", f"{nx_cc / uf:.1f}x",
    ))
    head = (f"**{name}** ({n:,} nodes, {len(edges):,} edges; HopDB load {fmt_s(rust['load_s'])}, "
            f"CSR build out+in {fmt_s(rust['build_s'])}, {rust['memory_bytes'] / 2**20:,.1f} MiB; "
            f"{len(seeds)} seeds, NetworkX on the first {min(nx_seeds, len(seeds))})")
    return head, rows


def main():
    ap = argparse.ArgumentParser(prog=f"python3 -m {__spec__.name}")
    ap.add_argument("--datasets", default=os.environ.get("HOPDB_DATASETS", str(ROOT.parent / "shared/datasets")))
    ap.add_argument("--nx-seeds", type=int, default=100)
    a = ap.parse_args()
    print("| query | HopDB | igraph | NetworkX | igraph / HopDB | NetworkX / HopDB |")
    print("|---|---|---|---|---|---|")
    heads = []
    for name, rel, extra in GRAPHS:
        path = Path(a.datasets) / rel
        if not path.exists():
            print(f"skipping {name}: {path} not found", file=sys.stderr)
            continue
        head, rows = bench(name, path, extra, a.nx_seeds)
        heads.append(head)
        print(f"| {head} | | | | | |")
        for r in rows:
            print("| " + " | ".join(r) + " |")
    print()
    print(f"igraph {ig.__version__}, NetworkX {nx.__version__}, Python {sys.version.split()[0]}; "
          f"{os.cpu_count()} cores; timings are wall clock, single runs.")


if __name__ == "__main__":
    main()
