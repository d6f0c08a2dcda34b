"""Ingestion of the full-scale knowledge graph from Python: Arrow tables (pyarrow, Polars)
through `Graph.import_tables` against the CSV import of the same files (`hopdb import`), in
one run, each into a new store on disk.

usage: python3 -m bench.pyapi.arrow_ingest [--scale 1] [--repeat 3]
The CSV files come from `hopdb generate` (kept under ~/.cache/hopdb/bench-data/kg-sS); reading
them into Arrow tables is not timed (the point is the load from tables already in memory).
"""
import argparse
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.csv as pacsv

import hopdb

HOPDB = Path(os.environ.get("HOPDB_BIN", Path.home() / ".cache/hopdb/target/release/hopdb"))


def data_dir(scale):
    d = Path.home() / f".cache/hopdb/bench-data/kg-s{scale:g}"
    if not (d / "entities.csv").exists():
        subprocess.run([HOPDB, "generate", "--out", d, "--scale", str(scale)], check=True)
    return d


def read_tables(d):
    """neo4j-admin CSV -> Arrow tables with the columns import_tables expects."""
    opts = pacsv.ConvertOptions(strings_can_be_null=False)
    nodes = []
    for f in ["documents.csv", "chunks.csv", "entities.csv"]:
        t = pacsv.read_csv(d / f, convert_options=opts)
        names = [c.split(":")[0] if not c.startswith(":") else c for c in t.column_names]
        names = ["id" if c == ":ID" else "labels" if c == ":LABEL" else c for c in names]
        t = t.rename_columns(names)
        t = t.set_column(t.column_names.index("labels"), "labels", pc.split_pattern(t["labels"], ";"))
        nodes.append(t)
    edges = []
    for f in ["has_chunk.csv", "mentions.csv"]:
        t = pacsv.read_csv(d / f, convert_options=opts)
        edges.append(t.rename_columns(["src", "dst", "type"]))
    return nodes, edges


def main():
    ap = argparse.ArgumentParser(prog=f"python3 -m {__spec__.name}")
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    d = data_dir(a.scale)
    nodes, edges = read_tables(d)
    rows = sum(t.num_rows for t in nodes + edges)
    results = {"csv (hopdb import)": [], "pyarrow tables": [], "polars frames": []}
    try:
        import polars as pl

        pl_nodes = [pl.from_arrow(t) for t in nodes]
        pl_edges = [pl.from_arrow(t) for t in edges]
    except ImportError:
        pl_nodes = None
    for _ in range(a.repeat):
        with tempfile.TemporaryDirectory(dir=Path.home() / ".cache/hopdb") as tmp:
            store = Path(tmp) / "csv"
            t0 = time.perf_counter()
            subprocess.run(
                [HOPDB, "import", store, "--quiet"]
                + [f"--nodes={d / f}" for f in ["documents.csv", "chunks.csv", "entities.csv"]]
                + [f"--relationships={d / f}" for f in ["has_chunk.csv", "mentions.csv"]],
                check=True,
                stdout=subprocess.DEVNULL,
            )
            results["csv (hopdb import)"].append(time.perf_counter() - t0)
            for name, (ns, es) in [("pyarrow tables", (nodes, edges)), ("polars frames", (pl_nodes, pl_edges) if pl_nodes else (None, None))]:
                if ns is None:
                    continue
                path = Path(tmp) / name.replace(" ", "-")
                t0 = time.perf_counter()
                with hopdb.Graph(str(path)) as g:
                    r = g.import_tables(nodes=ns, edges=es)
                results[name].append(time.perf_counter() - t0)
                assert r["nodes"] + r["edges"] == rows, r
    print(f"# scale {a.scale:g}: {rows:,} rows (nodes + edges), {a.repeat} runs each, interleaved; wall s incl. open+close")
    print("| input | median s | rows/s | vs CSV |")
    print("|---|---:|---:|---:|")
    base = statistics.median(results["csv (hopdb import)"])
    for name, ts in results.items():
        if ts:
            m = statistics.median(ts)
            print(f"| {name} | {m:.2f} | {rows / m:,.0f} | {base / m:.2f}x |")


if __name__ == "__main__":
    main()
