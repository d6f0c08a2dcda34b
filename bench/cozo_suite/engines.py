"""One class per engine: the suite's operations, each in the engine's own idiom.

Every engine gets the same parsed data (datasets.Data: int keys, typed property columns, each edge
once) already in memory, so import times cover the engine's bulk path, not CSV parsing. Edges are
stored once; undirected graphs are traversed both ways (k-hop counts and degrees use both
directions on every engine). Per-thread state (SQLite and Kuzu connections) lives in a
threading.local so the 2-thread windows use one connection per thread, as each engine documents.

Methods: load() -> notes, counts() -> (nodes, edges), read(key) -> props | None, write(key, props),
update(key, prop, value), khop(key, k, timeout) -> count | None (timed out), group_by(prop) ->
{value: [count, degree sum]}, pagerank() -> {key: score}, backup(dest) -> notes,
restore(src, path) -> (notes, engine on the restored copy), close(). An operation the engine
lacks raises Skip(reason).
"""

import os
import sqlite3
import subprocess
import threading
import time

NODE_LABEL, EDGE_TYPE = "User", "FOLLOWS"
BATCH = 100_000


class Skip(Exception):
    """The engine has no such operation (the reason is reported)."""


def dir_bytes(path):
    if os.path.isfile(path):
        return os.path.getsize(path)
    return sum(os.path.getsize(os.path.join(r, f)) for r, _d, fs in os.walk(path) for f in fs)


def arrow_tables(data):
    import pyarrow as pa

    nodes = pa.table({"id": data.keys, **data.props})
    edges = pa.table({"src": data.src, "dst": data.dst})
    return nodes, edges


# ---------------------------------------------------------------------------------------------


class HopDB:
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
        # No query language: the fastest documented path is one snapshot scan (all_nodes), one
        # batched degrees() call and counting in Python.
        nodes = self.g.all_nodes()
        degs = self.g.degrees([n["key"] for n in nodes], direction="both")
        out = {}
        for n, (d, _w) in zip(nodes, degs):
            c = out.setdefault(n["props"].get(prop), [0, 0])
            c[0] += 1
            c[1] += d
        return out

    def pagerank(self):
        return self.g.pagerank(damping=0.85, max_iterations=100, tolerance=1e-6)

    def project(self):
        return self.g.project()

    def backup(self, dest):
        self.g.backup(dest)
        return "Graph.backup (consistent online snapshot into a directory)"

    def restore(self, src, path):
        from import_bench import shared

        subprocess.run([shared.hopdb_bin(), "restore", src, path], check=True, capture_output=True)
        return "`hopdb restore` CLI (child process, in the measured process tree)", HopDB(None, self.data, path)

    def close(self):
        if self.g:
            self.g.close()


# ---------------------------------------------------------------------------------------------


class Cozo:
    name = "cozo"
    multi_process = None  # one process only (its RocksDB store is locked by the opener)

    def __init__(self, work, data, path=None):
        import cozo_embedded

        self.cozo, self.data = cozo_embedded, data
        self.path = path or os.path.join(work, "graph.cozo")
        self.db = cozo_embedded.CozoDbPy("rocksdb", self.path, "{}") if path else None
        self.cols = list(data.types)

    @staticmethod
    def version():
        import importlib.metadata

        return f"Cozo {importlib.metadata.version('cozo-embedded')} (cozo-embedded, RocksDB storage)"

    def q(self, script, params=None, immutable=True):
        try:
            res = self.db.run_script(script, params or {}, immutable)
        except Exception as e:  # cozo-embedded raises Exception({code, message, ...})
            info = e.args[0] if e.args and isinstance(e.args[0], dict) else {}
            raise RuntimeError(f"cozo: {info.get('code', '')}: {info.get('message') or e}") from None
        return res["rows"]

    def load(self):
        ty = {"int": "Int", "bool": "Bool", "str": "String"}
        self.db = self.cozo.CozoDbPy("rocksdb", self.path, "{}")
        vals = ", ".join(f"{p}: {ty[t]}" for p, t in self.data.types.items())
        self.q(":create nodes {id: Int" + (f" => {vals}" if vals else "") + "}", immutable=False)
        self.q(":create edges {src: Int, dst: Int}", immutable=False)
        d = self.data
        cols = [d.props[p] for p in self.cols]
        for i in range(0, len(d.keys), BATCH):
            rows = [list(r) for r in zip(d.keys[i : i + BATCH], *(c[i : i + BATCH] for c in cols))]
            self.db.import_relations({"nodes": {"headers": ["id"] + self.cols, "rows": rows}})
        for i in range(0, len(d.src), BATCH):
            rows = [[a, b] for a, b in zip(d.src[i : i + BATCH], d.dst[i : i + BATCH])]
            self.db.import_relations({"edges": {"headers": ["src", "dst"], "rows": rows}})
        self.q("::index create edges:rev {dst, src}", immutable=False)
        return "import_relations in batches of 100K; edges keyed (src,dst) + ::index by dst"

    def counts(self):
        n = self.q("?[count(id)] := *nodes{id}")[0][0]
        e = self.q("?[count(src)] := *edges{src}")[0][0]
        return n, e

    def read(self, key):
        cols = ", ".join(self.cols)
        rows = self.q(f"?[{cols}] := *nodes{{id: $id, {cols}}}", {"id": key}) if cols else self.q("?[id] := *nodes{id}, id = $id", {"id": key})
        return dict(zip(self.cols, rows[0])) if rows else None

    def write(self, key, props):
        cols = ", ".join(self.cols)
        self.q(f"?[id, {cols}] <- [[$id, {', '.join('$' + c for c in self.cols)}]] :put nodes {{id => {cols}}}", dict(props, id=key), False)

    def update(self, key, prop, value):
        self.q(f"?[id, {prop}] <- [[$id, $v]] :update nodes {{id => {prop}}}", {"id": key, "v": value}, False)

    def khop(self, key, k, timeout):
        # BFS as recursion through the min aggregation (each node once, at its shortest depth);
        # out-edges by the (src, dst) key, in-edges by the index, both bound on the frontier node.
        # (One rule per level, without recursion, gave the same counts, 1.5-2x slower at 3-4 hops.)
        script = (
            "r[n, min(d)] := n = $s, d = 0\n"
            "r[m, min(d1)] := r[n, d], d < $k, *edges{src: n, dst: m}, d1 = d + 1\n"
            "r[m, min(d1)] := r[n, d], d < $k, *edges:rev{dst: n, src: m}, d1 = d + 1\n"
            "?[count(n)] := r[n, _], n != $s\n"
            f":timeout {timeout}"
        )
        try:
            return self.q(script, {"s": key, "k": k})[0][0]
        except RuntimeError as e:
            if "eval::killed" in str(e):  # the :timeout fired
                return None
            raise

    def group_by(self, prop):
        script = (
            "deg[n, count(m)] := *edges{src: n, dst: m}\n"
            "deg[n, count(m)] := *edges:rev{dst: n, src: m}\n"
            "dg[n, d] := deg[n, d]\n"
            "dg[n, d] := *nodes{id: n}, not deg[n, _], d = 0\n"
            f"?[v, count(n), sum(d)] := *nodes{{id: n, {prop}: v}}, dg[n, d]"
        )
        return {v: [c, int(s)] for v, c, s in self.q(script)}

    def pagerank(self):
        und = "false" if self.data.directed else "true"
        rows = self.q(f"?[n, r] <~ PageRank(*edges[a, b], undirected: {und}, theta: 0.85, epsilon: 0.000001, iterations: 100)")
        return dict((n, r) for n, r in rows)

    def backup(self, dest):
        self.db.backup(dest)
        return "backup() (the embedded API's ::backup: a SQLite file)"

    def restore(self, src, path):
        eng = Cozo(None, self.data, path)
        eng.db.restore(src)
        return "restore() into a new RocksDB store", eng

    def close(self):
        if self.db:
            self.db.close()


# ---------------------------------------------------------------------------------------------


class Kuzu:
    name = "kuzu"
    # several read-only processes, but none while a read-write Database is open
    multi_process = "writer closed"

    def __init__(self, work, data, path=None, read_only=False):
        import kuzu

        self.kuzu, self.data = kuzu, data
        self.path = path or os.path.join(work, "graph.kuzu")
        self.db = kuzu.Database(self.path, read_only=read_only) if path else None
        self.local = threading.local()
        self.cols = list(data.types)

    @staticmethod
    def version():
        import importlib.metadata

        return f"Kuzu {importlib.metadata.version('kuzu')} (Python package)"

    def con(self):
        c = getattr(self.local, "con", None)
        if c is None:
            c = self.local.con = self.kuzu.Connection(self.db)
        return c

    def q(self, query, params=None):
        return self.con().execute(query, params or {})

    def load(self):
        ty = {"int": "INT64", "bool": "BOOLEAN", "str": "STRING"}
        self.db = self.kuzu.Database(self.path)
        cols = "".join(f", {p} {ty[t]}" for p, t in self.data.types.items())
        self.q(f"CREATE NODE TABLE {NODE_LABEL}(id INT64 PRIMARY KEY{cols})")
        self.q(f"CREATE REL TABLE {EDGE_TYPE}(FROM {NODE_LABEL} TO {NODE_LABEL})")
        nodes, edges = arrow_tables(self.data)  # noqa: F841 (scanned by name by COPY)
        self.q(f"COPY {NODE_LABEL} FROM nodes")
        self.q(f"COPY {EDGE_TYPE} FROM edges")
        return "COPY FROM pyarrow tables (scanned in place); PK hash index + CSR both directions built by COPY"

    def counts(self):
        n = self.q(f"MATCH (u:{NODE_LABEL}) RETURN count(*)").get_next()[0]
        e = self.q(f"MATCH ()-[r:{EDGE_TYPE}]->() RETURN count(*)").get_next()[0]
        return n, e

    def read(self, key):
        # $id parameter: measured as fast as an inlined literal here (both ~350 us per lookup).
        ret = ", ".join(f"u.{c}" for c in self.cols) or "u.id"
        r = self.q(f"MATCH (u:{NODE_LABEL}) WHERE u.id = $id RETURN {ret}", {"id": key})
        return dict(zip(self.cols, r.get_next())) if r.has_next() else None

    def write(self, key, props):
        sets = ", ".join(f"{c}: ${c}" for c in self.cols)
        self.q(f"CREATE (:{NODE_LABEL} {{id: $id, {sets}}})", dict(props, id=key))

    def update(self, key, prop, value):
        self.q(f"MATCH (u:{NODE_LABEL}) WHERE u.id = $id SET u.{prop} = $v", {"id": key, "v": value})

    def khop(self, key, k, timeout):
        # SHORTEST 1..k: one shortest path per reachable node (plain *1..k enumerates all walks).
        c = self.con()
        c.set_query_timeout(int(timeout * 1000))
        try:
            return c.execute(f"MATCH (a:{NODE_LABEL})-[:{EDGE_TYPE}* SHORTEST 1..{k}]-(b:{NODE_LABEL}) WHERE a.id = $id RETURN count(DISTINCT b)", {"id": key}).get_next()[0]
        except RuntimeError as e:
            if "Interrupted" in str(e):
                return None
            raise
        finally:
            c.set_query_timeout(0)

    def group_by(self, prop):
        r = self.q(f"MATCH (u:{NODE_LABEL}) OPTIONAL MATCH (u)-[:{EDGE_TYPE}]-(w:{NODE_LABEL}) WITH u, count(w) AS d RETURN u.{prop}, count(*), sum(d)")
        out = {}
        while r.has_next():
            v, c, s = r.get_next()
            out[v] = [c, s]
        return out

    def pagerank_prepare(self):
        """Untimed: the algo extension (bundled, loaded offline) and, for an undirected graph, the
        reverse edges (Kuzu's page_rank follows a projected graph's edges one way)."""
        try:
            self.q("LOAD algo")
        except RuntimeError as e:
            raise Skip(f"the algo extension does not load: {e}")
        rels = [EDGE_TYPE]
        if not self.data.directed:
            self.q(f"CREATE REL TABLE {EDGE_TYPE}_REV(FROM {NODE_LABEL} TO {NODE_LABEL})")
            self.q(f"COPY {EDGE_TYPE}_REV FROM (MATCH (a:{NODE_LABEL})-[:{EDGE_TYPE}]->(b:{NODE_LABEL}) RETURN b.id, a.id)")
            rels.append(EDGE_TYPE + "_REV")
        self.q(f"CALL project_graph('G', ['{NODE_LABEL}'], {rels!r})")

    def pagerank(self):
        r = self.q("CALL page_rank('G', dampingFactor:=0.85, maxIterations:=100, tolerance:=0.000001) RETURN node.id, rank")
        out = {}
        while r.has_next():
            n, s = r.get_next()
            out[n] = s
        return out

    def backup(self, dest):
        self.q(f"EXPORT DATABASE '{dest}' (format='parquet')")
        return "EXPORT DATABASE (parquet): Kuzu's documented backup/migration path"

    def restore(self, src, path):
        eng = Kuzu(None, self.data, path)
        eng.q(f"IMPORT DATABASE '{src}'")
        return "IMPORT DATABASE into a new database", eng

    def close(self):
        self.local = threading.local()
        if self.db:
            self.db.close()


# ---------------------------------------------------------------------------------------------


class SQLite:
    name = "sqlite"
    multi_process = "beside the writer"  # WAL: readers in other processes while one writes

    def __init__(self, work, data, path=None, read_only=False):
        self.data, self.read_only = data, read_only
        self.path = path or os.path.join(work, "graph.sqlite")
        self.local = threading.local()
        self.cols = list(data.types)
        self.all_cons = []

    @staticmethod
    def version():
        return f"SQLite {sqlite3.sqlite_version} (Python sqlite3, WAL, synchronous=NORMAL)"

    def con(self):
        c = getattr(self.local, "con", None)
        if c is None:
            # autocommit: every point write is its own transaction, as on the other engines
            if self.read_only:
                c = self.local.con = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, check_same_thread=False)
                self.all_cons.append(c)
                return c
            c = self.local.con = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            c.execute("PRAGMA journal_mode=WAL")
            c.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: safe against a process crash, like the others' defaults
            c.execute("PRAGMA cache_size=-262144")
            self.all_cons.append(c)
        return c

    def load(self):
        ty = {"int": "INTEGER", "bool": "INTEGER", "str": "TEXT"}
        c = self.con()
        cols = "".join(f", {p} {ty[t]}" for p, t in self.data.types.items())
        c.execute(f"CREATE TABLE nodes(id INTEGER PRIMARY KEY{cols})")
        c.execute("CREATE TABLE edges(src INTEGER NOT NULL, dst INTEGER NOT NULL, PRIMARY KEY(src, dst)) WITHOUT ROWID")
        d = self.data
        marks = ",".join("?" * (1 + len(self.cols)))
        c.execute("BEGIN")
        c.executemany(f"INSERT INTO nodes VALUES({marks})", zip(d.keys, *(d.props[p] for p in self.cols)))
        c.executemany("INSERT INTO edges VALUES(?, ?)", zip(d.src, d.dst))
        c.execute("CREATE INDEX edges_dst ON edges(dst, src)")
        c.execute("COMMIT")
        return "executemany in one transaction; edges WITHOUT ROWID keyed (src,dst) + index (dst,src)"

    def counts(self):
        c = self.con()
        return c.execute("SELECT count(*) FROM nodes").fetchone()[0], c.execute("SELECT count(*) FROM edges").fetchone()[0]

    def read(self, key):
        cols = ", ".join(self.cols) or "id"
        r = self.con().execute(f"SELECT {cols} FROM nodes WHERE id = ?", (key,)).fetchone()
        return dict(zip(self.cols, r)) if r else None

    def write(self, key, props):
        marks = ",".join("?" * (1 + len(self.cols)))
        self.con().execute(f"INSERT INTO nodes VALUES({marks})", (key, *(props[c] for c in self.cols)))

    def update(self, key, prop, value):
        self.con().execute(f"UPDATE nodes SET {prop} = ? WHERE id = ?", (value, key))

    def khop(self, key, k, timeout):
        c = self.con()
        # two recursive arms (out and in edges, each by its index); UNION drops repeated (node, depth)
        q = (
            "WITH RECURSIVE r(n, d) AS (SELECT ?1, 0"
            " UNION SELECT e.dst, r.d + 1 FROM r JOIN edges e ON e.src = r.n WHERE r.d < ?2"
            " UNION SELECT e.src, r.d + 1 FROM r JOIN edges e ON e.dst = r.n WHERE r.d < ?2)"
            " SELECT count(DISTINCT n) - 1 FROM r"
        )
        timer = threading.Timer(timeout, c.interrupt)
        timer.start()
        try:
            return c.execute(q, (key, k)).fetchone()[0]
        except sqlite3.OperationalError as e:
            if "interrupted" in str(e):
                return None
            raise
        finally:
            timer.cancel()

    def group_by(self, prop):
        q = (
            f"SELECT n.{prop}, count(*), sum(coalesce(g.deg, 0)) FROM nodes n LEFT JOIN"
            " (SELECT x, count(*) AS deg FROM (SELECT src AS x FROM edges UNION ALL SELECT dst FROM edges) GROUP BY x) g"
            f" ON g.x = n.id GROUP BY n.{prop}"
        )
        return {v: [cnt, s] for v, cnt, s in self.con().execute(q)}

    def pagerank(self):
        raise Skip("SQLite has no graph algorithms; PageRank in Python over SQL would measure Python, not SQLite")

    def backup(self, dest):
        out = sqlite3.connect(dest)
        self.con().backup(out)
        out.close()
        return "Connection.backup (the online backup API) into a file"

    def restore(self, src, path):
        inp, out = sqlite3.connect(src), sqlite3.connect(path)
        inp.backup(out)
        inp.close()
        out.close()
        return "the backup API from the backup file into a new database file", SQLite(None, self.data, path)

    def close(self):
        for c in self.all_cons:
            c.close()
        self.all_cons = []
        self.local = threading.local()


# ---------------------------------------------------------------------------------------------


class NetworkX:
    name = "networkx"
    multi_process = None  # a Python object in this process's memory

    def __init__(self, work, data, path=None):
        import networkx as nx

        self.nx, self.data, self.G = nx, data, None

    @staticmethod
    def version():
        import networkx as nx

        return f"NetworkX {nx.__version__} (in memory, pure Python)"

    def load(self):
        d = self.data
        self.G = self.nx.DiGraph() if d.directed else self.nx.Graph()
        self.G.add_nodes_from((k, d.node_props(i)) for i, k in enumerate(d.keys))
        self.G.add_edges_from(zip(d.src, d.dst))
        self.U = self.G.to_undirected(as_view=True) if d.directed else self.G
        return "add_nodes_from + add_edges_from (in memory, nothing durable)"

    def counts(self):
        return self.G.number_of_nodes(), self.G.number_of_edges()

    def read(self, key):
        return dict(self.G.nodes[key]) if key in self.G else None

    def write(self, key, props):
        self.G.add_node(key, **props)

    def update(self, key, prop, value):
        self.G.nodes[key][prop] = value

    def khop(self, key, k, timeout):
        # no way to interrupt: a query that ran past the timeout is counted as timed out afterwards
        t0 = time.perf_counter()
        n = len(self.nx.single_source_shortest_path_length(self.U, key, cutoff=k)) - 1
        return n if time.perf_counter() - t0 <= timeout else None

    def group_by(self, prop):
        out = {}
        deg = self.U.degree
        for n, v in self.G.nodes(data=prop):
            c = out.setdefault(v, [0, 0])
            c[0] += 1
            c[1] += deg[n]
        return out

    def pagerank(self):
        return self.nx.pagerank(self.G, alpha=0.85, max_iter=100, tol=1e-6)

    def backup(self, dest):
        raise Skip("in-memory library: no backup/restore")

    def restore(self, src, path):
        raise Skip("in-memory library: no backup/restore")

    def close(self):
        self.G = None


ENGINES = {e.name: e for e in (HopDB, Cozo, Kuzu, SQLite, NetworkX)}
NAMES = {"hopdb": "HopDB", "cozo": "Cozo", "kuzu": "Kuzu", "sqlite": "SQLite", "networkx": "NetworkX"}

