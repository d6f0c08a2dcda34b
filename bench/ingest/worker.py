#!/usr/bin/env python3
"""One ingestion run in its own process (run.py starts it under `taskset`): generate the graph
(untimed), load it into one engine in one mode, optionally run the traversal queries, and print
one line `RESULT {json}` on stdout.

    python3 worker.py --engine hopdb --mode batch --n 100000 --work DIR [--time-limit 60]
                      [--batch 10000] [--queries --reps 10]

Engines and modes: hopdb row|batch|arrow|polars, sqlite row|batch, kuzu arrow|polars,
arcadedb batch (its GraphBatch bulk API). Peak RSS is this process's (getrusage), which holds
the engine (ArcadeDB's JVM too) and the generated graph; base_rss_mib is the RSS before the load.
"""

import argparse
import json
import os
import resource
import sys
import time

import psutil

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "import"))
import synth  # noqa: E402
from common import dir_bytes  # noqa: E402


class Clock:
    """Started by a loader once the store is open and its schema made (ArcadeDB's JVM start
    and the like are not ingestion); the generated graph is in memory before."""

    def start(self):
        u = resource.getrusage(resource.RUSAGE_SELF)
        self.cpu0 = u.ru_utime + u.ru_stime
        self.t0 = time.perf_counter()


clock = Clock()


def rows_capped(rows, deadline, done):
    """Yields rows until the deadline (checked every 256 rows), then marks the run capped."""
    for i, r in enumerate(rows):
        if i % 256 == 0 and time.perf_counter() > deadline:
            done["capped"] = True
            return
        yield r


def chunks(it, size):
    buf = []
    for x in it:
        buf.append(x)
        if len(buf) == size:
            yield buf
            buf = []
    if buf:
        yield buf


def tables(g, mode):
    """The columnar modes' input, built before the clock starts: pyarrow tables or Polars frames."""
    nodes, edges = g.arrow()
    if mode == "polars":
        import polars as pl

        nodes, edges = pl.from_arrow(nodes), {t: pl.from_arrow(e) for t, e in edges.items()}
    return nodes, edges


# ---- HopDB ----

def hopdb_load(g, mode, path, a, done):
    import hopdb

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


def hopdb_queries(db, ref):
    return {
        "star": lambda: sorted(db.neighbors(ref["star"]["from"], "out", "RelA")),
        "bfs": lambda: len(db.k_hop(ref["bfs"]["from"], ref["bfs"]["depth"], direction="out")),
        "two_step": lambda: sorted(db.expand(ref["two_step"]["from"], [("out", "RelA"), ("out", "RelB")])),
    }


# ---- SQLite ----

def sqlite_load(g, mode, path, a, done):
    import sqlite3

    db = sqlite3.connect(os.path.join(path, "g.db"), isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")  # like HopDB's "process" durability
    db.execute("CREATE TABLE nodes(id INTEGER PRIMARY KEY, label TEXT, name TEXT, score REAL, grp INTEGER)")
    db.execute("CREATE TABLE edges(src INTEGER, type TEXT, dst INTEGER, PRIMARY KEY(src, type, dst)) WITHOUT ROWID")
    db.execute("CREATE INDEX edges_in ON edges(dst, type)")
    node_sql = "INSERT OR REPLACE INTO nodes VALUES (?, 'Node', ?, ?, ?)"
    edge_sql = "INSERT OR REPLACE INTO edges VALUES (?, ?, ?)"
    clock.start()
    nodes = ((k, p["name"], p["score"], p["grp"]) for k, p in g.node_rows())
    if mode == "row":  # autocommit: one transaction per row
        deadline = time.perf_counter() + a.time_limit
        for r in rows_capped(nodes, deadline, done):
            db.execute(node_sql, r)
            done["rows"] += 1
        for r in rows_capped(g.edge_rows(), deadline, done):
            db.execute(edge_sql, r)
            done["rows"] += 1
    else:
        for sql, rows in ((node_sql, nodes), (edge_sql, g.edge_rows())):
            for b in chunks(rows, a.batch):
                db.execute("BEGIN")
                db.executemany(sql, b)
                db.execute("COMMIT")
                done["rows"] += len(b)
    return db


# ---- Kuzu ----

def kuzu_load(g, mode, path, a, done):
    import kuzu

    db = kuzu.Database(os.path.join(path, "g.kuzu"))
    c = kuzu.Connection(db)
    c.execute("CREATE NODE TABLE Node(id INT64 PRIMARY KEY, name STRING, score DOUBLE, grp INT64)")
    for t in synth.TYPES:
        c.execute(f"CREATE REL TABLE {t}(FROM Node TO Node)")
    nodes, edges = tables(g, mode)
    clock.start()
    # COPY FROM a Python variable: Kuzu scans the Arrow table / Polars frame in place.
    tbl = nodes  # noqa: F841 (read by name by COPY)
    c.execute("COPY Node FROM tbl")
    for t, tbl in edges.items():  # noqa: B007
        c.execute(f"COPY {t} FROM tbl")
    done["rows"] = g.n + g.m
    return (db, c)


# ---- ArcadeDB ----

def arcadedb_load(g, mode, path, a, done):
    import arcadedb_embedded as arcadedb

    db = arcadedb.create_database(os.path.join(path, "g.arcadedb"))
    db.command("sql", "CREATE VERTEX TYPE Node")
    db.command("sql", "CREATE PROPERTY Node.id LONG")
    db.command("sql", "CREATE INDEX ON Node (id) UNIQUE")
    for t in synth.TYPES:
        db.command("sql", f"CREATE EDGE TYPE {t}")
    nodes = [{"id": k, **p} for k, p in g.node_rows()]  # create_vertices' input, like the Arrow tables
    clock.start()
    with db.graph_batch(expected_edge_count=g.m) as b:
        rids = b.create_vertices("Node", nodes)
        for code, t in enumerate(synth.TYPES):
            sel = g.typ == code
            b.new_edges([rids[i] for i in g.src[sel].tolist()], t, [rids[i] for i in g.dst[sel].tolist()])
    done["rows"] = g.n + g.m
    return db


def arcadedb_queries(db, ref):
    def one(sql, arg):
        return list(db.query("sql", sql, arg))

    return {
        "star": lambda: sorted(one("SELECT out('RelA').id AS ids FROM Node WHERE id = ?", ref["star"]["from"])[0].get("ids")),
        # Breadth-first: a depth-first TRAVERSE with MAXDEPTH can miss nodes it first reaches
        # by a longer path. The count includes the start node.
        "bfs": lambda: one(
            f"SELECT count(*) AS c FROM (TRAVERSE out() FROM (SELECT FROM Node WHERE id = ?) "
            f"MAXDEPTH {ref['bfs']['depth']} STRATEGY BREADTH_FIRST)",
            ref["bfs"]["from"],
        )[0].get("c") - 1,
        "two_step": lambda: sorted(
            r.get("id")
            for r in one("SELECT DISTINCT id FROM (SELECT expand(out('RelA').out('RelB')) FROM Node WHERE id = ?)", ref["two_step"]["from"])
        ),
    }


def counted(engine, db):
    """(nodes, edges) as the engine itself counts them after the load."""
    if engine == "hopdb":
        return db.node_count(), db.edge_count()
    if engine == "sqlite":
        return tuple(db.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("nodes", "edges"))
    if engine == "kuzu":
        c = db[1]
        n = c.execute("MATCH (n:Node) RETURN count(*)").get_next()[0]
        return n, sum(c.execute(f"MATCH ()-[r:{t}]->() RETURN count(*)").get_next()[0] for t in synth.TYPES)
    return db.count_type("Node"), sum(db.count_type(t) for t in synth.TYPES)


LOADERS = {"hopdb": hopdb_load, "sqlite": sqlite_load, "kuzu": kuzu_load, "arcadedb": arcadedb_load}
MODES = {"hopdb": ["row", "batch", "arrow", "polars"], "sqlite": ["row", "batch"], "kuzu": ["arrow", "polars"], "arcadedb": ["batch"]}
QUERIES = {"hopdb": hopdb_queries, "arcadedb": arcadedb_queries}


def version(engine):
    import importlib.metadata

    dist = {"hopdb": "hopdb", "kuzu": "kuzu", "arcadedb": "arcadedb-embedded"}.get(engine)
    if dist is None:
        import sqlite3

        return sqlite3.sqlite_version
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "?"


def timed_queries(queries, reps):
    """Each query: first answer (checked by run.py), then `reps` timed runs (ms)."""
    out = {}
    for name, q in queries.items():
        answer = q()
        ms = []
        for _ in range(reps):
            t = time.perf_counter()
            q()
            ms.append((time.perf_counter() - t) * 1000)
        out[name] = {"answer": answer, "ms": ms}
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", required=True, choices=sorted(LOADERS))
    ap.add_argument("--mode", required=True)
    ap.add_argument("--n", type=int, required=True, help="nodes")
    ap.add_argument("--work", required=True, help="empty directory for the store")
    ap.add_argument("--time-limit", type=float, default=60, help="cap of a row-by-row load, s")
    ap.add_argument("--batch", type=int, default=10_000, help="rows per batch in batch mode")
    ap.add_argument("--queries", action="store_true", help="then run the traversal queries")
    ap.add_argument("--reps", type=int, default=10, help="timed runs per query")
    a = ap.parse_args()
    if a.mode not in MODES[a.engine]:
        raise SystemExit(f"{a.engine} has no mode {a.mode}")
    # ArcadeDB writes its logs under ./log: beside the store, out of the caller's directory.
    os.chdir(os.path.dirname(os.path.abspath(a.work)))
    g = synth.generate(a.n)
    ref = synth.reference(g) if a.queries else None
    base = psutil.Process().memory_info().rss
    done = {"rows": 0, "capped": False}
    db = LOADERS[a.engine](g, a.mode, a.work, a, done)
    secs = time.perf_counter() - clock.t0
    usage = resource.getrusage(resource.RUSAGE_SELF)
    res = {
        "version": version(a.engine), "nodes": g.n, "edges": g.m, "rows": done["rows"], "secs": round(secs, 4),
        "rows_per_s": round(done["rows"] / secs, 1), "capped": done["capped"],
        "base_rss_mib": round(base / 2**20, 1),
        "peak_rss_mib": round(usage.ru_maxrss / 1024, 1), "cpu_s": round(usage.ru_utime + usage.ru_stime - clock.cpu0, 2),
        "disk_bytes": dir_bytes(a.work),
    }
    res["counted"] = counted(a.engine, db)
    if a.queries:
        res["queries"] = timed_queries(QUERIES[a.engine](db, ref), a.reps)
        res["reference"] = ref
    print("RESULT " + json.dumps(res), flush=True)
    os._exit(0)  # skip slow teardown (ArcadeDB's JVM): everything is measured and printed


if __name__ == "__main__":
    main()
