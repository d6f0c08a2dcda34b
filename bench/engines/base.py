"""What the engine modules share: the interfaces the workloads call, and their helpers.

Every peer engine has one module, bench/engines/ENGINE.py, holding everything the workloads do
with it: its set-up (a private server, a connection), its bulk import of the knowledge graph, and
each workload's queries, as clearly named functions and classes:

    import_probe(), import_kg(data, work, ctl, opts), import_cleanup(work)
        bench/bulk_import's adapter (bench.bulk_import.adapter runs them in a process of their
        own); bench/deep loads its kept databases with import_kg too (load_kg below).
    <Engine>Deep(KGEngine)
        bench/deep's engine on the kept knowledge-graph database: probe() -> version string
        (raises Unavailable with the reason), prepare(data, cache, reload) -> dict: load_s (None
        if the database was already there), open_s, notes; q8(seed, timeout_ms) -> list of node
        ids (distinct nodes within 1..4 hops, at most 100); q11(a, b, timeout_ms) -> int length of
        a shortest undirected path of at most MAX_HOPS, or None; close(); cleanup(cache) stops
        what a killed worker left running. q8/q11 raise QueryTimeout when the engine stopped the
        query at its timeout. The databases live under the cache directory
        (~/.cache/hopdb/bench-data/deep/sS/ENGINE), kept between runs: a `ready.json` there says
        the load finished, and what it took. (HopDB: the functions deep_probe, ensure_store and
        run_bench_deep; its own binary times the queries.)
    <Engine>Retrieval(RowQueries, Retrieval, <Engine>Deep)
        bench/retrieval's and bench/sweep's Q1-Q7 on the same database (interface: Retrieval).
    <Engine>Unum(UnumEngine)
        bench/unum's edge store on a real graph (interface: UnumEngine).
    <Engine>CozoSuite
        bench/cozo_suite's operations on a real attributed graph (interface: the module docstring
        of bench/cozo_suite/peers.py; Skip for an operation the engine lacks).
    ingest_load(...), ingest_queries(...), ingest_count(...)
        bench/ingest's loaders of the synthetic graph (interface: bench/ingest/worker.py); its
        compaction pressure: hopdb.compaction_cmd, leveldb.compaction_pressure.
    <Engine>LightRAG
        bench/sweep's LightRAG call mix (interface: bench/sweep/lightrag_mix.py): NetworkX, Kuzu
        and Cozo; Neo4j and FalkorDB through cypher.CypherLightRAG (neo4j.Neo4jRun,
        falkordb.lightrag_run).

The engines' Python packages are imported inside the functions that need them, so a missing
package only skips that engine and a process imports only what its engine uses.
"""

import json
import os
import re
import sys
import time

from bench.benchlib import Control


class Unavailable(Exception):
    """The engine cannot run here; the message is the reason reported."""


class QueryTimeout(Exception):
    """The engine stopped the query at its per-query timeout."""


class Skip(Exception):
    """The engine has no such operation (the reason is reported)."""


_ID = re.compile(r"^[A-Za-z0-9_.:-]+$")


def lit(key):
    """A node id as a quoted literal, for the engines whose planners use an index only for literals.

    The generator's ids are `ent-123`, `chunk-9`, `doc-4`: checked against a strict pattern, so
    inlining them cannot inject anything."""
    if not _ID.match(key):
        raise ValueError(f"unexpected id {key!r}")
    return "'" + key + "'"


def free_port():
    """A free TCP port on 127.0.0.1 (for a private server)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def report_outcome(fn, engine, out):
    """Run fn(); when the engine is unavailable or fails, write {"engine", "status", "reason"} to the
    worker's result file `out` (the traceback to stderr) and exit 1 on a failure."""
    import traceback

    try:
        fn()
    except Unavailable as e:
        json.dump({"engine": engine, "status": "skipped", "reason": str(e)}, open(out, "w"))
    except Exception as e:
        traceback.print_exc()
        json.dump({"engine": engine, "status": "failed", "reason": f"{type(e).__name__}: {str(e)[:1500]}"}, open(out, "w"))
        sys.exit(1)


class Ready:
    """The cache directory's `ready.json`: present once the load finished."""

    def __init__(self, cache):
        self.path = os.path.join(cache, "ready.json")

    def get(self):
        if os.path.exists(self.path):
            try:
                return json.load(open(self.path))
            except ValueError:
                return None
        return None

    def set(self, info):
        tmp = self.path + ".tmp"
        json.dump(dict(info, loaded_at=time.strftime("%Y-%m-%dT%H:%M:%S")), open(tmp, "w"), indent=1)
        os.replace(tmp, self.path)

    def clear(self):
        if os.path.exists(self.path):
            os.remove(self.path)


def load_kg(import_kg, name, data, work, opts=None):
    """Run an engine module's import_kg (bench/bulk_import's load) into `work`, without memory
    sampling, and return its result."""
    os.makedirs(work, exist_ok=True)
    res = import_kg(data, work, Control(None), opts or {})
    if res.get("status", "ok") != "ok":
        raise RuntimeError(f"{name} load failed: {res.get('error')}")
    return res


class KGEngine:
    """bench/deep's engine on the kept knowledge-graph database (see the module docstring)."""

    name = "?"

    def probe(self):
        raise NotImplementedError

    def prepare(self, data, cache, reload):
        raise NotImplementedError

    def q8(self, seed, timeout_ms):
        raise NotImplementedError

    def q11(self, a, b, timeout_ms):
        raise NotImplementedError

    def close(self):
        pass

    @staticmethod
    def cleanup(cache):
        """Stop whatever a killed worker left running (servers)."""


class Retrieval:
    """bench/retrieval's Q1-Q7 on a KGEngine's database. Each engine answers

        q1(chunk) -> (doc_id, ordinal, word_count, section_title) or None
        q2(chunk), q3(entity), q4(chunk), q5(document), q7((e1, ..., e5)) -> list of ids
        q6(chunk) -> list of (chunk id, shared paths)

    and fork() -> an object with the same methods for another thread (its own connection where the
    engine's client needs one; the same object otherwise); release() closes what fork() opened."""

    # Query forms an engine can run (e.g. Kuzu: literal ids or $parameters); the worker measures
    # each on the same queries and keeps the fastest (set_variant), unless one is forced.
    variants = ()
    variant = None

    def set_variant(self, v):
        self.variant = v

    def fork(self):
        return self

    def release(self):
        pass

    def query_text(self):
        """{kind: the query as sent (SQL, Cypher or Python)}, for the report."""
        return {}


class RowQueries:
    """q1..q7 for an engine that runs one statement per query: self._rows(kind, seed) returns the
    statement's rows (sequences), one column for the id lists."""

    def _col(self, kind, seed):
        return [r[0] for r in self._rows(kind, seed)]

    def q1(self, c):
        rows = self._rows("q1", c)
        return tuple(rows[0]) if rows else None

    def q2(self, c):
        return self._col("q2", c)

    def q3(self, e):
        return self._col("q3", e)

    def q4(self, c):
        return self._col("q4", c)

    def q5(self, d):
        return self._col("q5", d)

    def q6(self, c):
        return [(r[0], r[1]) for r in self._rows("q6", c)]

    def q7(self, es):
        return self._col("q7", es)


class UnumEngine:
    """bench/unum's interface. Vertex ids are integers; the graph is directed, one edge per
    (src, dst) with a float weight.

        version()                  -> str; raises Unavailable(reason) if the engine cannot run here
        open(work)                 -> set-up, not timed (create the database, start a server)
        server_pid()               -> the server's pid when the engine is a separate process tree
        load(csv_path)             -> the timed import: the normalised `src,dst,weight` CSV into the
                                      store, indexes included
        settle()                   -> not timed: checkpoint / flush so that disk_bytes() is the steady size
        disk_bytes()               -> bytes on disk, None for an in-memory engine
        find_edge(u, v)            -> truthy if u->v or v->u exists
        find_directed(u, v)        -> truthy if u->v exists
        edges_of(v)                -> the edges with v at either end (rows with src, dst, weight)
        in_edges(v)                -> the edges ending at v
        neighbors(v)               -> distinct vertices adjacent to v (either direction)
        count_out(v), count_in(v)  -> (count, weight sum)
        upsert(u, v, w), upsert_batch([(u, v, w)]), remove(u, v), remove_batch([(u, v)])
                                      (a batch is one transaction / one call)
        edge_count()               -> int
        close()
    The answers are compared in the canonical form of bench/unum/workload.py's canon (not timed)."""

    durability = ""
    notes = ""

    def open(self, work):
        pass

    def server_pid(self):
        return None

    def settle(self):
        pass

    def close(self):
        pass
