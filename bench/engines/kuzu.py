"""Kuzu (PyPI kuzu), for every workload: the import of the knowledge graph (import_kg), the deep
queries (KuzuDeep), the retrieval mix (KuzuRetrieval), the UnumDB suite (KuzuUnum), the Cozo
suite (KuzuCozoSuite), the ingestion loads (ingest_load) and the LightRAG call mix (KuzuLightRAG).
"""

import copy
import importlib.metadata
import os
import shutil
import threading
import time

from bench.benchlib import EDGE_FILES, EDGE_TYPE_OF, LABEL_OF, NODE_COLUMNS, NODE_FILES, Timer, dir_bytes, log
from bench.cozo_suite.datasets import EDGE_TYPE, NODE_LABEL, arrow_tables
from bench.deep.workload import MAX_HOPS, Q8_HOPS, Q8_LIMIT
from bench.sweep.lightrag_mix import ENTITY_PROPS

from . import cypher
from .base import KGEngine, QueryTimeout, Ready, Retrieval, RowQueries, Skip, Unavailable, UnumEngine, lit, load_kg

# ---------------------------------------------------------------------------------------------
# Import of the knowledge graph (bench/bulk_import)


def import_probe():
    import kuzu  # noqa: F401

    return {"available": True, "version": f"Kuzu {importlib.metadata.version('kuzu')} (Python package)"}


def _kuzu_type(t):
    return {"text": "STRING", "integer": "INT64"}[t]


def import_kg(data, work, ctl, opts):
    """A node table per label, a rel table per edge type, COPY FROM the CSV files.

    Kuzu's COPY maps CSV columns to table columns by position, so the neo4j-admin files' :LABEL and
    :TYPE columns (one more column than the tables hold) cannot be copied straight in. Instead of
    rewriting the files, each table is filled with Kuzu's documented `COPY T FROM (LOAD FROM 'file'
    (header=true) RETURN ...)`, which reads the original file with the same parallel CSV reader and
    drops the redundant column (Kuzu reads `ordinal:int` headers as column `ordinal`, typed). The node
    tables' primary-key hash index and the rel tables' CSR adjacency (both directions) are built by
    COPY itself: Kuzu has no separate index step (index_s = 0). The timed region ends when the
    database is closed (checkpointed)."""
    import kuzu

    path = os.path.join(work, "kg.kuzu")
    ctl.phase("load")
    t = Timer()
    db = kuzu.Database(path)
    con = kuzu.Connection(db)
    for f in NODE_FILES:
        cols = [(n, ty) for _h, n, ty in NODE_COLUMNS[f] if n != "label"]
        defs = ", ".join(f"{n} {_kuzu_type(ty)}" + (" PRIMARY KEY" if n == "id" else "") for n, ty in cols)
        con.execute(f"CREATE NODE TABLE {LABEL_OF[f]}({defs})")
    for f in EDGE_FILES:
        typ, src, dst = EDGE_TYPE_OF[f]
        con.execute(f"CREATE REL TABLE {typ}(FROM {src} TO {dst})")
    copied = {}
    for f in NODE_FILES:
        # Kuzu names a `name:type` header column `name`; `:ID` keeps its name.
        ret = []
        for h, n, ty in NODE_COLUMNS[f]:
            if n == "label":
                continue
            col = f"`{h}`" if h.startswith(":") else h.split(":")[0]
            ret.append(f"CAST({col} AS INT64)" if ty == "integer" else col)
        q = f"COPY {LABEL_OF[f]} FROM (LOAD FROM '{os.path.join(data, f)}' (header=true) RETURN {', '.join(ret)})"
        copied[f] = con.execute(q).get_next()[0]
    for f in EDGE_FILES:
        typ = EDGE_TYPE_OF[f][0]
        q = f"COPY {typ} FROM (LOAD FROM '{os.path.join(data, f)}' (header=true) RETURN `:START_ID`, `:END_ID`)"
        copied[f] = con.execute(q).get_next()[0]
    con.close()
    db.close()
    load_s = t.lap()
    ctl.phase("verify")
    db = kuzu.Database(path, read_only=True)
    con = kuzu.Connection(db)
    nodes = con.execute("MATCH (n) RETURN count(*)").get_next()[0]
    edges = con.execute("MATCH ()-[r]->() RETURN count(*)").get_next()[0]
    con.close()
    db.close()
    return {
        "status": "ok",
        "nodes": nodes,
        "edges": edges,
        "load_s": load_s,
        "index_s": 0.0,
        "disk_bytes": dir_bytes(work),
        "notes": "COPY FROM (LOAD FROM csv RETURN cols): original files, :LABEL/:TYPE dropped; PK index + CSR built by COPY",
        "extra": {"copy_messages": copied},
    }


# ---------------------------------------------------------------------------------------------
# Deep queries Q8 and Q11 (bench/deep)


class KuzuDeep(KGEngine):
    """The node and rel tables of import_kg (Document, Chunk, Entity with primary key id;
    HAS_CHUNK, MENTIONS), queried in Cypher, the database opened read-only.

    Q8:  MATCH (e:Entity {id: 'ID'})-[*1..4]-(n) RETURN DISTINCT n.id LIMIT 100
    Q11: MATCH p = (a:Entity {id: 'A'})-[* SHORTEST 1..12]-(b:Entity {id: 'B'}) RETURN length(p)
    The ids are inlined as literals (checked against a strict pattern), which Kuzu plans as a lookup
    in the primary-key hash index. Older Kuzu releases planned `{id: $param}` as a table scan plus a
    filter; Kuzu 0.11.3 plans both forms as PRIMARY_KEY_SCAN_NODE_TABLE (EXPLAIN), and the engine
    `kuzu-params` (the same queries with $parameters) measured the same: at S=1 on 100 seeds, Q8
    17.5 ms vs 18.1 ms and Q11 88.5 ms vs 91.1 ms median (literals vs parameters). The per-query
    timeout is the connection's set_query_timeout (Kuzu interrupts the query). Kuzu's variable-length
    pattern has walk semantics, so the seed can be among Q8's rows. The source node of Q11 is
    excluded from its end (a = b only for identical ids, which the seed draw avoids)."""

    name = "kuzu"
    read_only = True  # the kept database is shared by the workloads; the sweep's LightRAG mix writes

    def __init__(self, params=False):
        self.params = params

    def probe(self):
        import kuzu  # noqa: F401

        return f"Kuzu {importlib.metadata.version('kuzu')} (Python package)"

    def prepare(self, data, cache, reload):
        import kuzu

        ready = Ready(cache)
        info = ready.get()
        path = os.path.join(cache, "kg.kuzu")
        load_s = None
        if reload or info is None or not os.path.exists(path):
            ready.clear()
            for f in os.listdir(cache) if os.path.isdir(cache) else []:
                if f.startswith("kg.kuzu"):
                    p = os.path.join(cache, f)
                    if os.path.isdir(p):
                        shutil.rmtree(p)
                    else:
                        os.remove(p)
            log("kuzu: loading with bench/engines/kuzu.py's import_kg")
            t = time.perf_counter()
            res = load_kg(import_kg, "kuzu", data, cache)
            load_s = time.perf_counter() - t
            info = {"load_s": load_s, "nodes": res["nodes"], "edges": res["edges"], "notes": res.get("notes", "")}
            ready.set(info)
        t = time.perf_counter()
        self.db = kuzu.Database(path, read_only=self.read_only)
        self.con = kuzu.Connection(self.db)
        self.timeout_ms = None
        open_s = time.perf_counter() - t
        how = "$parameters" if self.params else "literal ids (primary-key index)"
        return {"load_s": load_s, "cached_load": info, "open_s": open_s, "notes": f"Cypher, {how}; {'read-only' if self.read_only else 'read-write'} database; set_query_timeout"}

    def _run(self, q, params, timeout_ms):
        if timeout_ms != self.timeout_ms:
            self.con.set_query_timeout(int(timeout_ms))
            self.timeout_ms = timeout_ms
        try:
            res = self.con.execute(q, params) if params else self.con.execute(q)
        except RuntimeError as e:
            if "interrupt" in str(e).lower() or "timeout" in str(e).lower():
                raise QueryTimeout() from None
            raise
        rows = []
        while res.has_next():
            rows.append(res.get_next())
        return rows

    def q8(self, seed, timeout_ms):
        if self.params:
            q = f"MATCH (e:Entity {{id: $id}})-[*1..{Q8_HOPS}]-(n) RETURN DISTINCT n.id LIMIT {Q8_LIMIT}"
            return [r[0] for r in self._run(q, {"id": seed}, timeout_ms)]
        q = f"MATCH (e:Entity {{id: {lit(seed)}}})-[*1..{Q8_HOPS}]-(n) RETURN DISTINCT n.id LIMIT {Q8_LIMIT}"
        return [r[0] for r in self._run(q, None, timeout_ms)]

    def q11(self, a, b, timeout_ms):
        if self.params:
            q = f"MATCH p = (a:Entity {{id: $a}})-[* SHORTEST 1..{MAX_HOPS}]-(b:Entity {{id: $b}}) RETURN length(p)"
            rows = self._run(q, {"a": a, "b": b}, timeout_ms)
        else:
            q = f"MATCH p = (a:Entity {{id: {lit(a)}}})-[* SHORTEST 1..{MAX_HOPS}]-(b:Entity {{id: {lit(b)}}}) RETURN length(p)"
            rows = self._run(q, None, timeout_ms)
        return rows[0][0] if rows else None

    def close(self):
        self.con.close()
        self.db.close()


# ---------------------------------------------------------------------------------------------
# Retrieval mix Q1-Q7 (bench/retrieval, bench/sweep)


class KuzuRetrieval(RowQueries, Retrieval, KuzuDeep):
    """The deep engine's database (opened read-only), Cypher through the Python API, one
    Connection per thread on the one Database. Three forms (variants), measured on the same queries
    by the worker, the fastest kept: `literal` (ids inlined in the text), `params`
    (con.execute(text, {"id": ...})) and `prepared` (con.prepare(text) once per connection, then
    con.execute(stmt, params); Kuzu 0.11.3 warns that this separate prepare + execute is
    deprecated, but it is the fastest form)."""

    variants = ("literal", "params", "prepared")
    variant = "prepared"

    def prepare(self, data, cache, reload):
        info = super().prepare(data, cache, reload)
        info["notes"] = "Cypher, one Connection per thread on the read-only Database"
        self.stmts = {}
        return info

    def fork(self):
        import kuzu

        c = copy.copy(self)
        c.con = kuzu.Connection(self.db)
        c.stmts = {}
        return c

    def release(self):
        self.con.close()

    def _rows(self, kind, seed):
        if self.variant == "literal":
            return self.con.execute(cypher.retrieval_literal(kind, seed)).get_all()
        if self.variant == "params":
            return self.con.execute(cypher.RETRIEVAL[kind], cypher.retrieval_params(kind, seed)).get_all()
        st = self.stmts.get(kind)
        if st is None:
            st = self.stmts[kind] = self.con.prepare(cypher.RETRIEVAL[kind])
        return self.con.execute(st, cypher.retrieval_params(kind, seed)).get_all()

    def query_text(self):
        return dict(cypher.RETRIEVAL)


# ---------------------------------------------------------------------------------------------
# UnumDB suite (bench/unum)

UNUM_QUERIES = {  # {u} / {v}: integer ids inlined as literals (see KuzuUnum); $w: a parameter
    "find_edge": "MATCH (a:V {{id: {u}}})-[e:E]-(b:V {{id: {v}}}) RETURN count(e)",
    "find_directed": "MATCH (a:V {{id: {u}}})-[e:E]->(b:V {{id: {v}}}) RETURN count(e)",
    "edges_of": "MATCH (a:V {{id: {v}}})-[e:E]->(b:V) RETURN a.id, b.id, e.weight UNION ALL MATCH (a:V)-[e:E]->(b:V {{id: {v}}}) RETURN a.id, b.id, e.weight",
    "in_edges": "MATCH (a:V)-[e:E]->(b:V {{id: {v}}}) RETURN a.id, b.id, e.weight",
    "neighbors": "MATCH (a:V {{id: {v}}})-[:E]-(b:V) RETURN DISTINCT b.id",
    "count_out": "MATCH (a:V {{id: {v}}})-[e:E]->(:V) RETURN count(e), sum(e.weight)",
    "count_in": "MATCH (:V)-[e:E]->(b:V {{id: {v}}}) RETURN count(e), sum(e.weight)",
    "upsert": "MATCH (a:V {{id: {u}}}), (b:V {{id: {v}}}) MERGE (a)-[e:E]->(b) ON CREATE SET e.weight = $w ON MATCH SET e.weight = $w",
    "remove": "MATCH (a:V {{id: {u}}})-[e:E]->(b:V {{id: {v}}}) DELETE e",
    "count": "MATCH ()-[e:E]->() RETURN count(e)",
}


class KuzuUnum(UnumEngine):
    """A database file: node table V(id INT64 PRIMARY KEY), rel table E(FROM V TO V, weight DOUBLE).

    Import (timed): COPY V from a LOAD FROM subquery (the distinct ids of both CSV columns, so Kuzu
    derives the vertices itself), then COPY E FROM the CSV. Vertex ids are inlined into the Cypher
    text as integer literals: prepared statements with `{id: $v}` measured up to 2x slower on
    dimacs9-road-NY (264K vertices: 1.5-2.0 ms vs 0.95-1.3 ms per count query) and about 10% faster
    on a 20K-vertex graph (0.8-0.9 vs 0.85-1.0 ms), so the literal form is used for every query
    (the ids are formatted with int(), nothing to inject; a weight is passed as a parameter). Each
    execute is its own transaction; a batch runs the single-edge statement per edge inside one
    BEGIN TRANSACTION ... COMMIT (like SQLite's executemany in one transaction): the one-statement
    form `UNWIND $rows AS r MATCH (a:V {id: r.u}), (b:V {id: r.v}) MERGE ...` costs time in
    proportion to the vertex count (the UNWIND'ed ids are not looked up by key): 0.3 s per 500
    edges on wiki-Vote (7K vertices; the loop: 2.8 s) but 52 s on dimacs9-road-NY (264K; the loop:
    1 s), and would take most of the full profile's budget on web-NotreDame, so the loop is used on
    every graph. Upserts MERGE the relationship between the two existing vertices and set its
    weight. Durability: Kuzu's WAL is fdatasync'ed at every write commit (strace: one per write
    transaction) — stronger than the other engines' settings here; the Python API has no setting
    to relax it."""

    durability = "WAL fdatasync at every write commit (Kuzu's only mode; stronger than the others)"
    notes = "COPY FROM (nodes from a LOAD FROM subquery, then rels); Cypher with the ids as literals (PK lookups); batch = one explicit transaction"

    def version(self):
        try:
            import kuzu  # noqa: F401
        except ImportError as e:
            raise Unavailable(f"kuzu is not installed: {e}") from None
        return f"Kuzu {importlib.metadata.version('kuzu')} (Python package)"

    def open(self, work):
        import kuzu

        self.path = os.path.join(work, "graph.kuzu")
        self.db = kuzu.Database(self.path)
        self.con = kuzu.Connection(self.db)

    def load(self, csv_path):
        c = self.con
        c.execute("CREATE NODE TABLE V(id INT64 PRIMARY KEY)")
        c.execute("CREATE REL TABLE E(FROM V TO V, weight DOUBLE)")
        src = f"LOAD FROM '{csv_path}' (header=true)"
        c.execute(f"COPY V FROM ({src} RETURN CAST(src, 'INT64') AS id UNION {src} RETURN CAST(dst, 'INT64') AS id)")
        c.execute(f"COPY E FROM '{csv_path}' (header=true)")

    def settle(self):
        self.con.execute("CHECKPOINT")

    def disk_bytes(self):
        return sum(dir_bytes(self.path + s) for s in ("", ".wal") if os.path.exists(self.path + s))

    def _x(self, key, params=None, **ids):
        return self.con.execute(UNUM_QUERIES[key].format(**{k: int(x) for k, x in ids.items()}), params)

    def find_edge(self, u, v):
        return self._x("find_edge", u=u, v=v).get_all()[0][0]

    def find_directed(self, u, v):
        return self._x("find_directed", u=u, v=v).get_all()[0][0]

    def edges_of(self, v):
        return self._x("edges_of", v=v).get_all()

    def in_edges(self, v):
        return self._x("in_edges", v=v).get_all()

    def neighbors(self, v):
        return self._x("neighbors", v=v).get_all()

    def count_out(self, v):
        return self._x("count_out", v=v).get_all()[0]

    def count_in(self, v):
        return self._x("count_in", v=v).get_all()[0]

    def upsert(self, u, v, w):
        self._x("upsert", {"w": w}, u=u, v=v)

    def upsert_batch(self, rows):
        self.con.execute("BEGIN TRANSACTION")
        for u, v, w in rows:
            self._x("upsert", {"w": w}, u=u, v=v)
        self.con.execute("COMMIT")

    def remove(self, u, v):
        self._x("remove", u=u, v=v)

    def remove_batch(self, pairs):
        self.con.execute("BEGIN TRANSACTION")
        for u, v in pairs:
            self._x("remove", u=u, v=v)
        self.con.execute("COMMIT")

    def edge_count(self):
        return self.con.execute(UNUM_QUERIES["count"]).get_all()[0][0]

    def close(self):
        self.con.close()
        self.db.close()


# ---------------------------------------------------------------------------------------------
# Cozo suite (bench/cozo_suite)


class KuzuCozoSuite:
    """A node table and a rel table, COPY FROM the pyarrow tables (scanned in place); one
    Connection per thread (a threading.local); k-hop as `* SHORTEST 1..k` with the connection's
    query timeout; PageRank by the bundled algo extension."""

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
        return dict(zip(self.cols, r.get_next(), strict=False)) if r.has_next() else None

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
            raise Skip(f"the algo extension does not load: {e}") from e
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
        eng = KuzuCozoSuite(None, self.data, path)
        eng.q(f"IMPORT DATABASE '{src}'")
        return "IMPORT DATABASE into a new database", eng

    def close(self):
        self.local = threading.local()
        if self.db:
            self.db.close()


# ---------------------------------------------------------------------------------------------
# Ingestion (bench/ingest)


def ingest_load(g, mode, path, a, done):
    """bench/ingest's load of the synthetic graph: Node(id, name, score, grp) and a rel table per
    edge type, COPY FROM a Python variable (Kuzu scans the Arrow table / Polars frame in place)."""
    import kuzu

    from bench.ingest import synth
    from bench.ingest.loading import clock, tables

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
    for t, tbl in edges.items():  # noqa: B007 (read by name by COPY)
        c.execute(f"COPY {t} FROM tbl")
    done["rows"] = g.n + g.m
    return (db, c)


def ingest_count(db):
    """(nodes, edges) as Kuzu counts them after bench/ingest's load (db: the (Database, Connection) pair)."""
    from bench.ingest import synth

    c = db[1]
    n = c.execute("MATCH (n:Node) RETURN count(*)").get_next()[0]
    return n, sum(c.execute(f"MATCH ()-[r:{t}]->() RETURN count(*)").get_next()[0] for t in synth.TYPES)


# ---------------------------------------------------------------------------------------------
# LightRAG call mix (bench/sweep)


def _kuzu_str(s):
    """A Cypher string literal: Kuzu plans `n.id = $x` as a scan, a literal id uses the primary-key
    index (bench/retrieval's finding), so the reads inline the id."""
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"


class KuzuLightRAG:
    """The five calls in Kuzu's Cypher on import_kg's node and rel tables (Entity; only MENTIONS,
    Chunk -> Entity, touches an entity), the database opened read-write, one Connection per thread.
    Kuzu commits each write transaction with a WAL sync."""

    def __init__(self, db, props):
        import kuzu

        self.db, self.props = db, props
        self.con = kuzu.Connection(db)

    def fork(self):
        return KuzuLightRAG(self.db, self.props)

    def release(self):
        self.con.close()

    def _rows(self, q, params=None):
        return (self.con.execute(q, params) if params else self.con.execute(q)).get_all()

    def get_node(self, e):
        rows = self._rows(f"MATCH (n:Entity) WHERE n.id = {_kuzu_str(e)} RETURN " + ", ".join(f"n.{p}" for p in ENTITY_PROPS))
        return dict(zip(ENTITY_PROPS, rows[0], strict=False)) if rows else None

    def get_node_edges(self, e):
        return [tuple(r) for r in self._rows(f"MATCH (c:Chunk)-[:MENTIONS]->(n:Entity) WHERE n.id = {_kuzu_str(e)} RETURN c.id, n.id")] or None

    def upsert_node(self, e):
        sets = ", ".join(f"n.{p} = ${p}" for p in ENTITY_PROPS)
        self._rows(f"MERGE (n:Entity {{id: {_kuzu_str(e)}}}) SET {sets}", {p: self.props[e][p] for p in ENTITY_PROPS})

    def node_degree(self, e):
        return self._rows(f"MATCH (c:Chunk)-[r:MENTIONS]->(n:Entity) WHERE n.id = {_kuzu_str(e)} RETURN count(r)")[0][0]

    def has_node(self, e):
        return bool(self._rows(f"MATCH (n:Entity) WHERE n.id = {_kuzu_str(e)} RETURN count(n) > 0")[0][0])
