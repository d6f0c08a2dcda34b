"""HopDB, for every workload: the CLI's bulk import of the knowledge graph (import_kg), the deep
queries through the Rust API of `hopdb-bench deep` (ensure_store, run_bench_deep), and through
the `hopdb` Python package the retrieval mix (HopDBRetrieval), the UnumDB suite (HopDBUnum), the
Cozo suite (HopDBCozoSuite) and the ingestion loads (ingest_load); the compaction-pressure
example's command line (compaction_cmd).

The binary is $HOPDB_BIN, else ~/.cache/hopdb/target/release/hopdb (benchlib.hopdb_bin; the
harnesses never build it).
"""

import importlib.metadata
import inspect
import json
import os
import re
import shutil
import subprocess
import time

from bench.benchlib import EDGE_FILES, NODE_FILES, Timer, dir_bytes, hopdb_bench_bin, hopdb_bin, log
from bench.cozo_suite.datasets import EDGE_TYPE, NODE_LABEL, arrow_tables
from bench.deep.workload import MAX_HOPS
from bench.retrieval.reference import Q1_PROPS
from bench.retrieval.workload import LIMIT, TOP

from .base import KGEngine, Ready, Retrieval, Unavailable, UnumEngine, load_kg

# ---------------------------------------------------------------------------------------------
# Import of the knowledge graph (bench/bulk_import)


def import_probe():
    b = hopdb_bin()
    if not os.access(b, os.X_OK):
        return {"available": False, "reason": f"no hopdb binary at {b} (set HOPDB_BIN)"}
    version = subprocess.run([b, "--version"], capture_output=True, text=True).stdout.strip()
    h = subprocess.run([b, "import", "--help"], capture_output=True, text=True)
    if h.returncode != 0:
        err = (h.stderr.strip().splitlines() or ["exit %d" % h.returncode])[0]
        return {"available": False, "version": version, "reason": f"`hopdb import` not in this binary ({err})"}
    return {"available": True, "version": version, "binary": b}


def import_kg(data, work, ctl, opts):
    """The CLI's neo4j-admin-style bulk import, `hopdb import STORE --nodes=F ... --relationships=F ... --json`.

    The files go in unchanged; labels and types come from their :LABEL and :TYPE columns. The
    timed region is the whole `hopdb import` process (wall time, process start to exit); peak RSS is
    that process's. Counts are verified afterwards with `hopdb stats STORE --json` (a separate
    process, not timed). If the binary has no `import` subcommand yet, the probe says so and the
    engine is reported as not available."""
    b = hopdb_bin()
    store = os.path.join(work, "store")
    cmd = [b, "import", store]
    cmd += [f"--nodes={os.path.join(data, f)}" for f in NODE_FILES]
    cmd += [f"--relationships={os.path.join(data, f)}" for f in EDGE_FILES]
    cmd += ["--json"]
    ctl.noself()
    ctl.phase("load")
    t = Timer()
    with open(os.path.join(work, "import.stderr"), "w") as err:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True, cwd=work)
        ctl.pid(p.pid)
        out, _ = p.communicate()
    load_s = t.lap()
    if p.returncode != 0:
        tail = open(os.path.join(work, "import.stderr")).read()[-2000:]
        return {"status": "failed", "error": f"hopdb import exited {p.returncode}: {tail}", "load_s": load_s}
    summary = None
    for line in reversed(out.strip().splitlines()):
        try:
            summary = json.loads(line)
            break
        except ValueError:
            continue
    ctl.phase("verify")
    st = subprocess.run([b, "stats", store, "--json"], capture_output=True, text=True, check=True)
    stats = json.loads(st.stdout)
    return {
        "status": "ok",
        "nodes": stats["nodes"],
        "edges": stats["edges"],
        "load_s": load_s,
        "index_s": 0.0,
        "disk_bytes": dir_bytes(store),
        "notes": "hopdb import CLI (wall time of the process); counts from hopdb stats",
        "extra": {"import_summary": summary, "stats": {k: stats.get(k) for k in ("sst_bytes", "wal_bytes", "live_data_bytes", "format_version")}},
    }


# ---------------------------------------------------------------------------------------------
# Deep queries Q8 and Q11 (bench/deep): the Rust API, `hopdb-bench deep`
#
# `hopdb-bench deep --store STORE --queries Q.json --out R.json --mode M`. The store is made once
# by import_kg (`hopdb import STORE --nodes=... --relationships=... --json`, the same files
# unchanged) and kept. The binary reads the same seed lists as the peers (Q.json: q8 seeds, q11
# pairs, timeout_ms, warmup, max_hops), runs the warm-up then every query once, one at a time, and
# writes every answer with its wall time measured inside the process (R.json). Modes (`hopdb-bench
# deep --help`): auto (the CSR projection is built first and used while fresh), store (every
# query reads the RocksDB snapshot), projection.


def deep_probe():
    b = hopdb_bin()
    if not os.access(b, os.X_OK):
        raise Unavailable(f"no hopdb binary at {b} (set HOPDB_BIN)")
    version = subprocess.run([b, "--version"], capture_output=True, text=True).stdout.strip()
    for binary, sub in ((b, "import"), (hopdb_bench_bin(), "deep")):
        if not os.access(binary, os.X_OK):
            raise Unavailable(f"no {os.path.basename(binary)} binary at {binary} (set HOPDB_BIN / HOPDB_BENCH_BIN)")
        h = subprocess.run([binary, sub, "--help"], capture_output=True, text=True)
        if h.returncode != 0:
            err = " ".join(h.stderr.strip().splitlines()[:3]) or f"exit {h.returncode}"
            raise Unavailable(f"`{os.path.basename(binary)} {sub}` not in this binary ({binary}): {err}")
    return version


def deep_modes():
    h = subprocess.run([hopdb_bench_bin(), "deep", "--help"], capture_output=True, text=True).stdout
    m = re.search(r"possible values: ([a-z, ]+)\]", h)
    return [x.strip() for x in m.group(1).split(",")] if m else []


def ensure_store(data, cache, reload):
    """The kept store under `cache` (loaded with import_kg when missing or `reload`); returns
    (store path, ready.json's info, load_s or None when it was already there)."""
    ready = Ready(cache)
    info = ready.get()
    store = os.path.join(cache, "store")
    load_s = None
    if reload or info is None or not os.path.isdir(store):
        ready.clear()
        shutil.rmtree(store, ignore_errors=True)
        log("hopdb: loading with bench/engines/hopdb.py's import_kg (hopdb import)")
        t = time.perf_counter()
        res = load_kg(import_kg, "hopdb", data, cache)
        load_s = time.perf_counter() - t
        info = {"load_s": load_s, "nodes": res["nodes"], "edges": res["edges"], "notes": res.get("notes", ""), "binary_version": deep_probe()}
        ready.set(info)
    return store, info, load_s


def run_bench_deep(mode, data, cache, queries_path, out_path, reload, timeout_s):
    """Load the store if needed, run `hopdb-bench deep`; return (R.json as a dict, info)."""
    b = hopdb_bench_bin()
    store, info, load_s = ensure_store(data, cache, reload)
    if mode not in deep_modes():
        raise Unavailable(f"`hopdb-bench deep` has no mode {mode!r} (has {deep_modes()})")
    q = json.load(open(queries_path))
    q["max_hops"] = MAX_HOPS
    qpath = out_path + ".queries.json"
    json.dump(q, open(qpath, "w"))
    cmd = [b, "deep", "--store", store, "--queries", qpath, "--out", out_path, "--mode", mode]
    t = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s)
    wall = time.perf_counter() - t
    if r.returncode != 0 or not os.path.exists(out_path):
        raise RuntimeError(f"hopdb-bench deep exited {r.returncode}: {r.stderr.strip()[-1500:]}")
    res = json.load(open(out_path))
    return res, {"load_s": load_s, "cached_load": info, "process_wall_s": wall, "stdout": r.stdout.strip()[-2000:], "stderr": r.stderr.strip()[-2000:], "command": " ".join(cmd)}


# ---------------------------------------------------------------------------------------------
# Retrieval mix Q1-Q7 (bench/retrieval)

C2C = [("out", "MENTIONS"), ("in", "MENTIONS")]  # chunk -> entities -> chunks
E2E = [("in", "MENTIONS"), ("out", "MENTIONS")]  # entities -> chunks -> entities


class HopDBRetrieval(Retrieval, KGEngine):
    """The `hopdb` Python package in-process on the store that import_kg makes (`hopdb import`,
    kept by bench/deep under DATA_ROOT/deep/sS/hopdb/store), opened with hopdb.Graph(store,
    read_only=True), then `g.project()`: the in-memory CSR projection of every edge type (S=1:
    about 0.9 s and 120 MB, counted in open_s) from which the traversals (Q2-Q7) are served while
    it is fresh; Q1 reads the store, its keys found in the in-memory key index that
    `g.warm_key_index()` fills at open (decision 0014; about 0.3 s, also in open_s). Threads share
    the Graph (its calls release the GIL)."""

    name = "hopdb"

    def probe(self):
        import hopdb

        missing = [m for m in ("expand", "expand_counts") if not hasattr(hopdb.Graph, m)]
        if missing:
            raise Unavailable(f"the installed hopdb package ({importlib.metadata.version('hopdb')}) has no Graph.{' / Graph.'.join(missing)} (Q4, Q6, Q7)")
        return f"HopDB {importlib.metadata.version('hopdb')} (Python package, in-process, read-only store)"

    def prepare(self, data, cache, reload):
        import hopdb

        store, info, load_s = ensure_store(data, cache, reload)
        t = time.perf_counter()
        self.g = hopdb.Graph(store, read_only=True)
        proj = self.g.project()
        keys = self.g.warm_key_index()
        return {
            "load_s": load_s,
            "cached_load": info,
            "open_s": time.perf_counter() - t,
            "notes": f"hopdb.Graph(store, read_only=True) + g.project() ({proj['bytes'] / 2**20:.0f} MiB CSR in {proj['seconds']:.2f} s) + g.warm_key_index() ({keys:,} keys), one Graph shared by the threads",
        }

    def q1(self, c):
        n = self.g.node(c)
        return None if n is None else tuple(n["props"].get(p) for p in Q1_PROPS)

    def q2(self, c):
        return self.g.neighbors(c, "out", "MENTIONS", LIMIT)

    def q3(self, e):
        return self.g.neighbors(e, "in", "MENTIONS", LIMIT)

    def q4(self, c):
        return self.g.expand(c, C2C, limit=LIMIT, exclude_seeds=True)

    def q5(self, d):
        return self.g.neighbors(d, "out", "HAS_CHUNK")

    def q6(self, c):
        return self.g.expand_counts(c, C2C, top=TOP, exclude_seeds=True)

    def q7(self, es):
        return self.g.expand(list(es), E2E, limit=LIMIT)

    def close(self):
        self.g.close()

    def query_text(self):
        return {k: inspect.getsource(getattr(type(self), k)).strip() for k in ("q1", "q2", "q3", "q4", "q5", "q6", "q7")}


# ---------------------------------------------------------------------------------------------
# UnumDB suite (bench/unum)

T = "EDGE"


class HopDBUnum(UnumEngine):
    """The Python package (native extension), on a durable store on disk.

    Graph(path, durability="process"): a commit survives the process being killed (kill -9) without
    an fsync per commit, the counterpart of SQLite's WAL + synchronous=NORMAL and PostgreSQL's
    synchronous_commit=off. Import: `import_files(edge_lists=[csv], weighted=True)` (HopDB's bulk
    loader: parses the CSV and writes sorted runs into RocksDB; one edge type "EDGE"). Reads use the
    native calls: has_edge(either_direction=), edges(v, "both"/"in"), neighbors(v), degree(v,
    "out"/"in") (count and weight sum kept per vertex, O(1)). Writes: upsert_edge / delete_edge per
    edge (one transaction each), upsert_edges / delete_edges for a batch (one transaction)."""

    durability = 'durability="process" (survives kill -9; no fsync per commit)'
    notes = "import_files(edge_lists=); has_edge / edges / neighbors / degree; upsert_edges / delete_edges per batch"

    def version(self):
        try:
            import hopdb
        except ImportError as e:
            raise Unavailable(f"the hopdb package is not installed: {e}") from None
        return f"HopDB {hopdb.__version__} (Python package)"

    def open(self, work):
        import hopdb

        self.path = os.path.join(work, "store")
        self.g = hopdb.Graph(self.path, durability="process")

    def load(self, csv_path):
        self.g.import_files(edge_lists=[csv_path], weighted=True)

    def settle(self):
        self.g.flush()

    def disk_bytes(self):
        return dir_bytes(self.path)

    def find_edge(self, u, v):
        return self.g.has_edge(u, v, either_direction=True)

    def find_directed(self, u, v):
        return self.g.has_edge(u, v)

    def edges_of(self, v):
        return self.g.edges(v)

    def in_edges(self, v):
        return self.g.edges(v, "in")

    def neighbors(self, v):
        return self.g.neighbors(v)

    def count_out(self, v):
        return self.g.degree(v, "out")

    def count_in(self, v):
        return self.g.degree(v, "in")

    def upsert(self, u, v, w):
        self.g.upsert_edge(u, T, v, w)

    def upsert_batch(self, rows):
        self.g.upsert_edges([(u, T, v, w) for u, v, w in rows])

    def remove(self, u, v):
        self.g.delete_edge(u, T, v)

    def remove_batch(self, pairs):
        self.g.delete_edges([(u, T, v) for u, v in pairs])

    def edge_count(self):
        return self.g.edge_count()

    def close(self):
        self.g.close()


# ---------------------------------------------------------------------------------------------
# Cozo suite (bench/cozo_suite)


class HopDBCozoSuite:
    """The Python package (durability "process"): import_tables from pyarrow tables, point reads
    and writes, k_hop with a timeout, the Rust PageRank, the projection, backup and `hopdb restore`."""

    name = "hopdb"
    # read_only opens in other processes while this one writes (RocksDB secondary open)
    multi_process = "beside the writer"

    def __init__(self, work, data, path=None, read_only=False):
        import hopdb

        self.hopdb, self.data = hopdb, data
        self.path = path or os.path.join(work, "graph.hopdb")
        self.g = hopdb.Graph(self.path, read_only=read_only) if path else None

    @staticmethod
    def version():
        import hopdb

        return f"HopDB {hopdb.__version__} (Python package, durability=process)"

    def load(self):
        nodes, edges = arrow_tables(self.data)
        self.g = self.hopdb.Graph(self.path)
        self.g.define_edge_type(EDGE_TYPE, undirected=not self.data.directed)
        self.g.import_tables(nodes=[(NODE_LABEL, nodes)], edges=[(EDGE_TYPE, edges)])
        return "import_tables (pyarrow tables, one atomic bulk load)"

    def counts(self):
        return self.g.node_count(), self.g.edge_count()

    def read(self, key):
        n = self.g.node(key)
        return n and n["props"]

    def write(self, key, props):
        self.g.upsert_node(key, [NODE_LABEL], props)

    def update(self, key, prop, value):
        self.g.upsert_node(key, props={prop: value})  # merges: the other properties stay

    def khop(self, key, k, timeout):
        try:
            return len(self.g.k_hop(key, k, mode="within", direction="both", timeout=timeout))
        except self.hopdb.Cancelled:
            return None

    def group_by(self, prop):
        # The Cypher engine, as Kuzu's adapter uses Kuzu's: a label scan, grouping, and each
        # node's relationship count (COUNT {} reads degrees, not the relationships).
        q = f"MATCH (u:{NODE_LABEL}) RETURN u.{prop}, count(*), sum(COUNT {{ (u)-[:{EDGE_TYPE}]-() }})"
        return {v: [c, d] for v, c, d in self.g.query(q).values()}

    def pagerank(self):
        return self.g.pagerank(damping=0.85, max_iterations=100, tolerance=1e-6)

    def project(self):
        return self.g.project()

    def backup(self, dest):
        self.g.backup(dest)
        return "Graph.backup (consistent online snapshot into a directory)"

    def restore(self, src, path):
        subprocess.run([hopdb_bin(), "restore", src, path], check=True, capture_output=True)
        return "`hopdb restore` CLI (child process, in the measured process tree)", HopDBCozoSuite(None, self.data, path)

    def close(self):
        if self.g:
            self.g.close()


# ---------------------------------------------------------------------------------------------
# Ingestion (bench/ingest)


def ingest_load(g, mode, path, a, done):
    """bench/ingest's load of the synthetic graph (durability "process": each call is in the WAL
    when it returns): row mode upsert_node / upsert_edge per row (capped at the time limit), batch
    mode upsert_nodes / upsert_edges per batch, arrow and polars import_tables."""
    import hopdb
    from bench.ingest.loading import chunks, clock, rows_capped, tables

    db = hopdb.Graph(path)  # durability "process": each call is in the WAL when it returns
    if mode in ("arrow", "polars"):
        nodes, edges = tables(g, mode)
    clock.start()
    deadline = time.perf_counter() + a.time_limit
    if mode == "row":
        for k, p in rows_capped(g.node_rows(), deadline, done):
            db.upsert_node(k, ["Node"], p)
            done["rows"] += 1
        for s, t, d in rows_capped(g.edge_rows(), deadline, done):
            db.upsert_edge(s, t, d)
            done["rows"] += 1
    elif mode == "batch":
        for b in chunks(((k, ["Node"], p) for k, p in g.node_rows()), a.batch):
            db.upsert_nodes(b)
            done["rows"] += len(b)
        for b in chunks(g.edge_rows(), a.batch):
            db.upsert_edges(b)
            done["rows"] += len(b)
    else:
        db.import_tables(nodes=[("Node", nodes)], edges=list(edges.items()))
        done["rows"] = g.n + g.m
    return db


def ingest_queries(db, ref):
    """bench/ingest's traversals: the hub's out RelA, BFS to the reference's depth, RelA then RelB."""
    return {
        "star": lambda: sorted(db.neighbors(ref["star"]["from"], "out", "RelA")),
        "bfs": lambda: len(db.k_hop(ref["bfs"]["from"], ref["bfs"]["depth"], direction="out")),
        "two_step": lambda: sorted(db.expand(ref["two_step"]["from"], [("out", "RelA"), ("out", "RelB")])),
    }


def ingest_count(db):
    """(nodes, edges) as HopDB counts them after bench/ingest's load."""
    return db.node_count(), db.edge_count()


# ---------------------------------------------------------------------------------------------
# Compaction pressure (bench/ingest): the Rust example on HopDB's own write path

# name -> flags of the example binary (on top of its defaults: write buffer 16 MiB, 2 background
# jobs, bloom 10 bits/key, durability "process" = WAL on, not fsynced).
COMPACTION_CONFIGS = {
    "default": {},
    "jobs-1": {"background-jobs": 1},
    "jobs-4": {"background-jobs": 4},
    "wbuf-4MiB": {"write-buffer-mib": 4},
    "wbuf-64MiB": {"write-buffer-mib": 64},
    "no-bloom": {"bloom-bits": 0},
    "wal-off": {"durability": "none"},
}


def compaction_cmd(binary, name, d, keys, rounds, batch, probes):
    """The command line of crates/hopdb-core/examples/compaction_pressure.rs for configuration `name`."""
    cmd = [binary, "--dir", d, "--keys", str(keys), "--rounds", str(rounds), "--batch", str(batch), "--probes", str(probes)]
    for k, v in COMPACTION_CONFIGS[name].items():
        cmd += [f"--{k}", str(v)]
    return cmd
