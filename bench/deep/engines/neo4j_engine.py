"""Neo4j Community 5.26: the database that `neo4j-admin database import full` makes from the CSV
files (bench/import/adapters/neo4j.py, jars from Maven Central), opened embedded by a small Java
program (../neo4j/Serve.java: DatabaseManagementServiceBuilder with the Bolt connector on
127.0.0.1 at a free port, no TLS, no auth) and driven over Bolt by the official `neo4j` Python
driver, as the study did.

neo4j-admin keeps the import id as a node property only when the `:ID` header column has a name,
and the generator's files say `:ID`: for Neo4j the node files are copied with that one header
cell renamed `id:ID` (the rows unchanged; the copy is made before the timed load and removed
after). After the import (once) and at every start: `CREATE CONSTRAINT entity_id IF NOT EXISTS FOR
(e:Entity) REQUIRE e.id IS UNIQUE` (its unique index is what the id lookups use), then
`CALL db.awaitIndexes()`. The JVM runs with its defaults (heap 1/4 of RAM; Neo4j sizes its page
cache itself). Queries, with parameters, in auto-commit transactions with the driver's
per-transaction timeout (the server terminates the transaction):
Q8:  MATCH (e:Entity {id: $id})-[*1..4]-(n) RETURN DISTINCT n.id LIMIT 100
Q11: MATCH p = shortestPath((a:Entity {id: $a})-[*..12]-(b:Entity {id: $b})) RETURN length(p)
Cypher's relationship-unique paths can return the seed itself in Q8 (e.g. e-c-e'-c'-e).
"""

import importlib.metadata
import os
import shutil
import signal
import subprocess
import time

from .base import DEEP, MAX_HOPS, Q8_HOPS, Q8_LIMIT, Engine, QueryTimeout, Ready, Unavailable, import_adapter, import_common, load_with_adapter, log

SERVE = os.path.join(DEEP, "neo4j", "Serve.java")


class Neo4j(Engine):
    name = "neo4j"

    def __init__(self):
        self.nj = import_adapter("neo4j")
        self.proc = None
        self.driver = None

    def probe(self):
        import neo4j  # noqa: F401

        p = self.nj.probe()
        if not p.get("available"):
            raise Unavailable(p.get("reason"))
        return f"Neo4j Community {self.nj.neo4j_version()} embedded, Bolt ({self.nj.java_version()}; Python driver neo4j {importlib.metadata.version('neo4j')})"

    def prepare(self, data, cache, reload):
        import neo4j

        ready = Ready(cache)
        info = ready.get()
        home = os.path.join(cache, "neo4j-home")
        load_s = None
        if reload or info is None or not os.path.isdir(home):
            ready.clear()
            shutil.rmtree(home, ignore_errors=True)
            log("neo4j: loading with bench/import/adapters/neo4j.py (neo4j-admin database import full)")
            t = time.perf_counter()
            id_data = _with_id_property(data, os.path.join(cache, "csv-id"))
            try:
                res = load_with_adapter("neo4j", id_data, cache)
            finally:
                shutil.rmtree(id_data, ignore_errors=True)
            load_s = time.perf_counter() - t
            info = {"load_s": load_s, "nodes": res["nodes"], "edges": res["edges"], "notes": res.get("notes", "")}
        t = time.perf_counter()
        cp = self.nj.classpath()
        port = _free_port()
        env = dict(os.environ, NEO4J_HOME=home)
        self.log = open(os.path.join(cache, "serve.log"), "a")
        self.proc = subprocess.Popen(["java", "-cp", cp, SERVE, home, str(port)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, env=env, cwd=cache, text=True)
        open(os.path.join(cache, "server.pid"), "w").write(str(self.proc.pid))
        line = self.proc.stdout.readline()
        while line and not line.startswith("READY"):
            line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("Serve.java exited: " + open(os.path.join(cache, "serve.log")).read()[-1500:])
        start_s = time.perf_counter() - t
        self.driver = neo4j.GraphDatabase.driver(f"bolt://127.0.0.1:{port}", auth=None)
        self.driver.verify_connectivity()
        t1 = time.perf_counter()
        with self.driver.session() as s:
            s.run("CREATE CONSTRAINT entity_id IF NOT EXISTS FOR (e:Entity) REQUIRE e.id IS UNIQUE").consume()
            s.run("CALL db.awaitIndexes(3600)").consume()
            self.server_version = s.run("CALL dbms.components() YIELD name, versions, edition RETURN name + ' ' + versions[0] + ' ' + edition").single()[0]
        index_s = time.perf_counter() - t1
        if load_s is not None or "constraint_s" not in info:
            info["constraint_s"] = index_s
            if load_s is not None:
                load_s += index_s
                info["load_s"] = load_s
            ready.set(info)
        self.session = self.driver.session(database="neo4j")
        open_s = time.perf_counter() - t
        return {
            "load_s": load_s,
            "cached_load": info,
            "open_s": open_s,
            "version_detail": self.server_version,
            "notes": f"embedded DBMS (JVM start {start_s:.1f} s) with Bolt on 127.0.0.1:{port}; unique constraint on Entity.id; auto-commit transactions with a timeout",
        }

    def _run(self, q, params, timeout_ms):
        import neo4j

        try:
            res = self.session.run(neo4j.Query(q, timeout=timeout_ms / 1000), params)
            return [r[0] for r in res]
        except neo4j.exceptions.Neo4jError as e:
            code = e.code or ""
            if "TransactionTimedOut" in code or "Terminated" in code:
                raise QueryTimeout() from None
            raise

    def q8(self, seed, timeout_ms):
        return self._run(f"MATCH (e:Entity {{id: $id}})-[*1..{Q8_HOPS}]-(n) RETURN DISTINCT n.id LIMIT {Q8_LIMIT}", {"id": seed}, timeout_ms)

    def q11(self, a, b, timeout_ms):
        rows = self._run(f"MATCH p = shortestPath((a:Entity {{id: $a}})-[*..{MAX_HOPS}]-(b:Entity {{id: $b}})) RETURN length(p)", {"a": a, "b": b}, timeout_ms)
        return rows[0] if rows else None

    def close(self):
        try:
            if self.driver is not None:
                self.session.close()
                self.driver.close()
        finally:
            if self.proc is not None:
                self.proc.stdin.close()
                try:
                    self.proc.wait(timeout=120)
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
                if b"Serve.java" in open(f"/proc/{pid}/cmdline", "rb").read():
                    os.kill(pid, signal.SIGTERM)
            except (OSError, ValueError):
                pass
            os.remove(p)


def _with_id_property(data, out):
    """The node files with their `:ID` header column renamed `id:ID`, edge files linked unchanged.

    neo4j-admin stores the import id as a node property only when the :ID column has a name; the
    generator's files say `:ID` (which HopDB and the other loaders read as the key), so Neo4j
    would have nodes without an `id` to look up. Only the header line differs."""
    common = import_common()
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    for f in common.NODE_FILES:
        with open(os.path.join(data, f), "rb") as src, open(os.path.join(out, f), "wb") as dst:
            header = src.readline()
            if not header.startswith(b":ID,"):
                raise RuntimeError(f"{f}: unexpected header {header!r}")
            dst.write(b"id" + header)
            shutil.copyfileobj(src, dst, 1 << 20)
    for f in common.EDGE_FILES:
        os.symlink(os.path.join(data, f), os.path.join(out, f))
    return out


def _free_port():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
