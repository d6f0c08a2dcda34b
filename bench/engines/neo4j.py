"""Neo4j Community 5.26, for every workload: the offline `neo4j-admin database import full` of the
knowledge graph (import_kg), the database opened embedded with Bolt for the deep queries
(Neo4jDeep), the retrieval mix (Neo4jRetrieval) and the LightRAG call mix (Neo4jRun); not run by
the UnumDB suite (Neo4jUnum says why).

No Neo4j distribution can be downloaded here, but its jars are on Maven Central:
neo4j_java/pom.xml resolves the Community DBMS plus neo4j-import-tool with Maven (once; the
classpath is cached under the data root). neo4j_java/Count.java counts a database's nodes and
edges, neo4j_java/Serve.java opens it embedded with the Bolt connector.
"""

import copy
import importlib.metadata
import os
import re
import shutil
import signal
import subprocess
import time

from bench.benchlib import EDGE_FILES, NODE_FILES, Timer, dir_bytes, log
from bench.deep.workload import MAX_HOPS, Q8_HOPS, Q8_LIMIT

from . import cypher
from .base import KGEngine, QueryTimeout, Ready, Retrieval, RowQueries, Unavailable, UnumEngine, free_port, load_kg

JAVA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "neo4j_java")
POM = os.path.join(JAVA, "pom.xml")
COUNT = os.path.join(JAVA, "Count.java")
SERVE = os.path.join(JAVA, "Serve.java")

# ---------------------------------------------------------------------------------------------
# The jars and the JVM


def neo4j_version():
    return re.search(r"<neo4j.version>([^<]+)</neo4j.version>", open(POM).read()).group(1)


def cache_dir():
    root = os.environ.get("HOPDB_BENCH_DATA") or os.path.expanduser("~/.cache/hopdb/bench-data")
    return os.path.join(root, "neo4j")


def classpath():
    """The jars' classpath, resolved by Maven once and cached."""
    cp_file = os.path.join(cache_dir(), f"classpath-{neo4j_version()}.txt")
    if not os.path.exists(cp_file):
        if not shutil.which("mvn"):
            raise RuntimeError("mvn not found (apt-get install maven)")
        os.makedirs(cache_dir(), exist_ok=True)
        tmp = cp_file + ".tmp"
        r = subprocess.run(
            ["mvn", "-q", "-B", "-f", POM, "dependency:build-classpath", f"-Dmdep.outputFile={tmp}"],
            capture_output=True,
            text=True,
            timeout=1800,
        )
        if r.returncode != 0 or not os.path.exists(tmp):
            raise RuntimeError("maven could not resolve the Neo4j jars: " + (r.stdout + r.stderr)[-1500:])
        os.replace(tmp, cp_file)
    cp = open(cp_file).read().strip()
    missing = [j for j in cp.split(":") if not os.path.exists(j)]
    if missing:
        os.remove(cp_file)
        raise RuntimeError(f"cached classpath lists missing jars (e.g. {missing[0]}); run again to re-resolve")
    return cp


def java_version():
    r = subprocess.run(["java", "-version"], capture_output=True, text=True)
    return (r.stderr.strip().splitlines() or ["?"])[0]


def probe():
    if not shutil.which("java"):
        return {"available": False, "reason": "no java on PATH (Neo4j 5.26 needs Java 17 or 21)"}
    classpath()
    return {"available": True, "version": f"Neo4j Community {neo4j_version()} neo4j-admin database import full ({java_version()})"}


# ---------------------------------------------------------------------------------------------
# Import of the knowledge graph (bench/bulk_import)


def import_probe():
    return probe()


def import_kg(data, work, ctl, opts):
    """The offline `neo4j-admin database import full`, the tool these CSV files are made for.

    Runs exactly the JVM command line that the distribution's `bin/neo4j-admin` launcher
    (org.neo4j.server.startup.Neo4jAdminCommand) execs:

        java -cp CONF_DIR/*:JARS -Dfile.encoding=UTF-8 org.neo4j.cli.AdminTool \\
            database import full neo4j --nodes=F ... --relationships=F ...

    with NEO4J_HOME and NEO4J_CONF pointing at a fresh home (empty neo4j.conf: default heap, default
    thread count, default store format). The files go in unchanged. The timed region is the whole
    JVM process (start to exit, so it includes JVM start-up, about 1 s); the importer's own
    "IMPORT DONE in" figure is kept in the notes. Counts are verified afterwards by opening the
    database embedded (neo4j_java/Count.java, MATCH count queries; not timed)."""
    cp = classpath()
    home = os.path.join(work, "neo4j-home")
    conf = os.path.join(home, "conf")
    os.makedirs(conf)
    os.makedirs(os.path.join(home, "plugins"))
    open(os.path.join(conf, "neo4j.conf"), "w").close()
    env = dict(os.environ, NEO4J_HOME=home, NEO4J_CONF=conf)
    cmd = ["java", "-cp", f"{conf}/*:{cp}", "-Dfile.encoding=UTF-8", "org.neo4j.cli.AdminTool", "database", "import", "full", "neo4j"]
    cmd += [f"--nodes={os.path.join(data, f)}" for f in NODE_FILES]
    cmd += [f"--relationships={os.path.join(data, f)}" for f in EDGE_FILES]
    import_log = os.path.join(work, "import.log")
    ctl.noself()
    ctl.phase("load")
    t = Timer()
    with open(import_log, "w") as out:
        p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=work)
        ctl.pid(p.pid)
        p.wait()
    load_s = t.lap()
    text = open(import_log, errors="replace").read()
    if p.returncode != 0:
        return {"status": "failed", "error": f"neo4j-admin exited {p.returncode}: {text[-2000:]}", "load_s": load_s}
    done = re.search(r"IMPORT DONE in ([^\n]+?)\.\s", text)
    peak = re.search(r"Peak memory usage: ([^\n]+)", text)
    reported = re.search(r"Imported:\s+(\d+) nodes\s+(\d+) relationships", text)
    disk = dir_bytes(os.path.join(home, "data"))
    ctl.phase("verify")
    r = subprocess.run(["java", "-cp", cp, COUNT, home, "neo4j"], capture_output=True, text=True, env=env, timeout=1800)
    m = re.search(r'\{"nodes": (\d+), "edges": (\d+)\}', r.stdout)
    if not m:
        return {"status": "failed", "error": f"count check failed: {(r.stdout + r.stderr)[-1500:]}", "load_s": load_s}
    notes = "offline neo4j-admin import (JVM wall time)"
    if done:
        notes += f"; importer says IMPORT DONE in {done.group(1)}"
    return {
        "status": "ok",
        "nodes": int(m.group(1)),
        "edges": int(m.group(2)),
        "load_s": load_s,
        "index_s": 0.0,
        "disk_bytes": disk,
        "notes": notes,
        "extra": {
            "importer_done": done.group(1) if done else None,
            "importer_peak_memory": peak.group(1).strip() if peak else None,
            "importer_reported": [int(reported.group(1)), int(reported.group(2))] if reported else None,
        },
    }


# ---------------------------------------------------------------------------------------------
# Deep queries Q8 and Q11 (bench/deep)


class Neo4jDeep(KGEngine):
    """The database that import_kg makes from the CSV files, opened embedded by a small Java
    program (neo4j_java/Serve.java: DatabaseManagementServiceBuilder with the Bolt connector on
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
    Cypher's relationship-unique paths can return the seed itself in Q8 (e.g. e-c-e'-c'-e)."""

    name = "neo4j"

    def __init__(self):
        self.proc = None
        self.driver = None

    def probe(self):
        import neo4j  # noqa: F401

        p = probe()
        if not p.get("available"):
            raise Unavailable(p.get("reason"))
        return f"Neo4j Community {neo4j_version()} embedded, Bolt ({java_version()}; Python driver neo4j {importlib.metadata.version('neo4j')})"

    def prepare(self, data, cache, reload):
        import neo4j

        ready = Ready(cache)
        info = ready.get()
        home = os.path.join(cache, "neo4j-home")
        load_s = None
        if reload or info is None or not os.path.isdir(home):
            ready.clear()
            shutil.rmtree(home, ignore_errors=True)
            log("neo4j: loading with bench/engines/neo4j.py's import_kg (neo4j-admin database import full)")
            t = time.perf_counter()
            id_data = _with_id_property(data, os.path.join(cache, "csv-id"))
            try:
                res = load_kg(import_kg, "neo4j", id_data, cache)
            finally:
                shutil.rmtree(id_data, ignore_errors=True)
            load_s = time.perf_counter() - t
            info = {"load_s": load_s, "nodes": res["nodes"], "edges": res["edges"], "notes": res.get("notes", "")}
        t = time.perf_counter()
        cp = classpath()
        port = free_port()
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
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    for f in NODE_FILES:
        with open(os.path.join(data, f), "rb") as src, open(os.path.join(out, f), "wb") as dst:
            header = src.readline()
            if not header.startswith(b":ID,"):
                raise RuntimeError(f"{f}: unexpected header {header!r}")
            dst.write(b"id" + header)
            shutil.copyfileobj(src, dst, 1 << 20)
    for f in EDGE_FILES:
        os.symlink(os.path.join(data, f), os.path.join(out, f))
    return out


# ---------------------------------------------------------------------------------------------
# Retrieval mix Q1-Q7 (bench/retrieval, bench/sweep)


class Neo4jRetrieval(RowQueries, Retrieval, Neo4jDeep):
    """The deep engine's database, plus unique constraints on Chunk.id and Document.id (the index
    the Q1/Q4/Q5/Q6 lookups need; created once, kept in the database). Parameterised Cypher
    (cypher.py) in auto-commit transactions on one session per thread (the driver is shared)."""

    def prepare(self, data, cache, reload):
        info = super().prepare(data, cache, reload)
        t = time.perf_counter()
        for label in ("Chunk", "Document"):
            self.session.run(f"CREATE CONSTRAINT {label.lower()}_id IF NOT EXISTS FOR (n:{label}) REQUIRE n.id IS UNIQUE").consume()
        self.session.run("CALL db.awaitIndexes(3600)").consume()
        info["notes"] = info["notes"].replace("auto-commit transactions with a timeout", "auto-commit transactions (session.run), one session per thread")
        info["notes"] += f"; unique constraints on Chunk.id and Document.id too ({time.perf_counter() - t:.1f} s)"
        return info

    def fork(self):
        c = copy.copy(self)
        c.session = self.driver.session(database="neo4j")
        return c

    def release(self):
        self.session.close()

    def _rows(self, kind, seed):
        return self.session.run(cypher.RETRIEVAL[kind], cypher.retrieval_params(kind, seed)).values()

    def query_text(self):
        return dict(cypher.RETRIEVAL)


# ---------------------------------------------------------------------------------------------
# LightRAG call mix (bench/sweep)


class Neo4jRun:
    """A session of the engine's driver, the `run` of cypher.CypherLightRAG: auto-commit
    transactions, as Neo4jRetrieval runs."""

    def __init__(self, driver):
        self.session = driver.session(database="neo4j")

    def __call__(self, q, params, write):
        return self.session.run(q, params).values()

    def close(self):
        self.session.close()


# ---------------------------------------------------------------------------------------------
# UnumDB suite (bench/unum)


class Neo4jUnum(UnumEngine):
    """Not run by this workload (see bench/unum/README.md: a JVM server per dataset, loaded through
    neo4j-admin, would take most of the quick profile's budget on this 2-core machine)."""

    def version(self):
        raise Unavailable("not implemented for this workload: starting the Neo4j server (bench/engines/neo4j_java) and loading each graph "
                          "would take most of the profile's time budget on this 2-core machine; see bench/deep and bench/retrieval for Neo4j")
