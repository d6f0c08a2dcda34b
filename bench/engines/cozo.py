"""Cozo (PyPI cozo-embedded) on its RocksDB storage engine, for every workload: the import of the
knowledge graph (import_kg), the deep queries (CozoDeep), the retrieval mix (CozoRetrieval), the
UnumDB suite (CozoUnum), the Cozo suite (CozoCozoSuite) and the LightRAG call mix (CozoLightRAG).
"""

import csv
import importlib.metadata
import os
import shutil
import time

from bench.benchlib import EDGE_FILES, NODE_COLUMNS, NODE_FILES, Timer, dir_bytes, log
from bench.deep.workload import MAX_HOPS, Q8_HOPS, Q8_LIMIT
from bench.retrieval.workload import LIMIT, TOP
from bench.sweep.lightrag_mix import ENTITY_PROPS

from .base import KGEngine, QueryTimeout, Ready, Retrieval, RowQueries, Unavailable, UnumEngine, load_kg

BATCH = 100_000  # rows per import_relations call (the bulk import's default, bench/unum's, bench/cozo_suite's)

# ---------------------------------------------------------------------------------------------
# Import of the knowledge graph (bench/bulk_import)

REL_OF = {"documents.csv": "documents", "chunks.csv": "chunks", "entities.csv": "entities", "has_chunk.csv": "has_chunk", "mentions.csv": "mentions"}


def import_probe():
    import cozo_embedded  # noqa: F401

    return {"available": True, "version": f"Cozo {importlib.metadata.version('cozo-embedded')} (cozo-embedded, RocksDB engine)"}


def _check(res):
    if not isinstance(res, dict) or res.get("ok") is False:
        raise RuntimeError(f"cozo: {res}")
    return res


def import_kg(data, work, ctl, opts):
    """`import_relations` in batches.

    A stored relation per label (documents {id => title}, chunks {id => doc_id, ordinal,
    word_count, section_title}, entities {id => canonical_title, entity_type}) and per edge type
    (has_chunk {src, dst}, mentions {src, dst}: keyed on (src, dst), so the key itself is the
    by-source index). Rows are parsed with the csv module and handed to `import_relations` in
    batches (default 100,000 rows; `--option batch=N`), the bulk path of Cozo's embedded API (no
    Datalog parsing, no triggers). After the load, `::index create` adds the by-destination index
    of each edge relation (the counterpart of the edge indexes the SQL engines build). The timed
    region ends when the database is closed."""
    import cozo_embedded

    batch = int(opts.get("batch", BATCH))
    path = os.path.join(work, "kg.cozo")
    ctl.phase("load")
    t = Timer()
    db = cozo_embedded.CozoDbPy("rocksdb", path, "{}")

    def script(s):
        return _check(db.run_script(s, {}, False))

    for f in NODE_FILES:
        cols = [(n, ty) for _h, n, ty in NODE_COLUMNS[f] if n != "label"]
        vals = ", ".join(f"{n}: {'Int' if ty == 'integer' else 'String'}" for n, ty in cols[1:])
        script(f":create {REL_OF[f]} {{id: String => {vals}}}")
    for f in EDGE_FILES:
        script(f":create {REL_OF[f]} {{src: String, dst: String}}")
    csv.field_size_limit(1 << 30)

    def load(f, headers, conv):
        rel = REL_OF[f]
        with open(os.path.join(data, f), newline="", encoding="utf-8") as fh:
            rd = csv.reader(fh)
            next(rd)
            rows = []
            for r in rd:
                rows.append(conv(r))
                if len(rows) >= batch:
                    db.import_relations({rel: {"headers": headers, "rows": rows}})
                    rows = []
            if rows:
                db.import_relations({rel: {"headers": headers, "rows": rows}})

    for f in NODE_FILES:
        spec = [(i, n, ty) for i, (_h, n, ty) in enumerate(NODE_COLUMNS[f]) if n != "label"]
        headers = [n for _i, n, _t in spec]
        if any(ty == "integer" for _i, _n, ty in spec):
            conv = (lambda s: lambda r: [int(r[i]) if ty == "integer" else r[i] for i, _n, ty in s])(spec)
        else:
            idx = [i for i, _n, _t in spec]
            conv = (lambda ix: lambda r: [r[i] for i in ix])(idx)
        load(f, headers, conv)
    for f in EDGE_FILES:
        load(f, ["src", "dst"], lambda r: [r[0], r[1]])
    load_s = t.lap()
    ctl.phase("index")
    for f in EDGE_FILES:
        script(f"::index create {REL_OF[f]}:by_dst {{dst, src}}")
    db.close()
    index_s = t.lap()
    ctl.phase("verify")
    db = cozo_embedded.CozoDbPy("rocksdb", path, "{}")
    counts = {}
    for f in NODE_FILES:
        counts[f] = _check(db.run_script(f"?[count(id)] := *{REL_OF[f]}{{id}}", {}, True))["rows"][0][0]
    for f in EDGE_FILES:
        counts[f] = _check(db.run_script(f"?[count(src)] := *{REL_OF[f]}{{src}}", {}, True))["rows"][0][0]
        by_dst = _check(db.run_script(f"?[count(src)] := *{REL_OF[f]}:by_dst{{src}}", {}, True))["rows"][0][0]
        if by_dst != counts[f]:
            raise RuntimeError(f"{REL_OF[f]}:by_dst holds {by_dst} rows, the relation {counts[f]}")
    db.close()
    return {
        "status": "ok",
        "nodes": sum(counts[f] for f in NODE_FILES),
        "edges": sum(counts[f] for f in EDGE_FILES),
        "load_s": load_s,
        "index_s": index_s,
        "disk_bytes": dir_bytes(work),
        "notes": f"import_relations, batches of {batch:,}; edges keyed (src,dst) + ::index by dst after",
        "extra": {"per_relation": counts},
    }


# ---------------------------------------------------------------------------------------------
# Deep queries Q8 and Q11 (bench/deep)

EDGE_RELS = ["has_chunk", "mentions"]


def _steps(head, bound):
    out = []
    for rel in EDGE_RELS:
        out.append(f"{head} := reach[n, d], d < {bound}, *{rel}{{src: n, dst: m}}, d1 = d + 1")
        out.append(f"{head} := reach[n, d], d < {bound}, *{rel}:by_dst{{dst: n, src: m}}, d1 = d + 1")
    return "\n".join(out)


Q8_SCRIPT = f"""reach[n, min(d)] := n = $seed, d = 0
{_steps("reach[m, min(d1)]", Q8_HOPS)}
?[n] := reach[n, d], d > 0
:limit {Q8_LIMIT}
"""

Q11_SCRIPT = "\n".join(
    [f"edges[a, b] := *{rel}{{src: a, dst: b}}" for rel in EDGE_RELS]
    + [f"edges[a, b] := *{rel}{{src: b, dst: a}}" for rel in EDGE_RELS]
    + ["start[] <- [[$a]]", "goal[] <- [[$b]]", "?[s, g, path] <~ ShortestPathBFS(edges[], start[], goal[])"]
)


class CozoDeep(KGEngine):
    """The stored relations of import_kg (documents, chunks, entities keyed by id; has_chunk and
    mentions keyed (src, dst), each with a by-destination index `:by_dst`), queried in CozoScript.

    Q8 is a recursive rule with a semi-lattice aggregation (each node's minimum depth, so every node
    is derived once), its steps along both directions of both edge relations (out through the key,
    in through :by_dst), bounded at 4, and `:limit 100` on the output. Cozo evaluates the rules to
    their fixed point before the limit applies (no early stop). The seed itself is at depth 0 and is
    left out.

    Q11 uses Cozo's fixed rule ShortestPathBFS over an inline rule of the undirected edges (both
    relations, both directions), from [a] to [b]; length = hops of the returned path, None when
    there is none or it is longer than MAX_HOPS. The fixed rule needs the whole edge rule
    materialised at every query. (A bounded recursive rule with min(depth), like Q8's but to depth
    12, was measured about 2x slower at S=0.1: it also runs to its fixed point.)

    Per-query timeout: the `:timeout` query option (seconds), which kills the query (`eval::killed`)."""

    name = "cozo"

    def probe(self):
        import cozo_embedded  # noqa: F401

        return f"Cozo {importlib.metadata.version('cozo-embedded')} (cozo-embedded, RocksDB engine)"

    def prepare(self, data, cache, reload):
        import cozo_embedded

        ready = Ready(cache)
        info = ready.get()
        path = os.path.join(cache, "kg.cozo")
        load_s = None
        if reload or info is None or not os.path.exists(path):
            ready.clear()
            shutil.rmtree(path, ignore_errors=True)
            log("cozo: loading with bench/engines/cozo.py's import_kg")
            t = time.perf_counter()
            res = load_kg(import_kg, "cozo", data, cache)
            load_s = time.perf_counter() - t
            info = {"load_s": load_s, "nodes": res["nodes"], "edges": res["edges"], "notes": res.get("notes", "")}
            ready.set(info)
        t = time.perf_counter()
        self.db = cozo_embedded.CozoDbPy("rocksdb", path, "{}")
        open_s = time.perf_counter() - t
        return {"load_s": load_s, "cached_load": info, "open_s": open_s, "notes": "Q8 recursive rule with min(depth), :limit 100; Q11 fixed rule ShortestPathBFS; :timeout"}

    def _run(self, script, params, timeout_ms):
        script += f"\n:timeout {timeout_ms / 1000:.3f}\n"
        try:
            res = self.db.run_script(script, params, True)
        except Exception as e:  # cozo_embedded raises with the error dict as its argument
            msg = str(e)
            if "eval::killed" in msg:
                raise QueryTimeout() from None
            raise RuntimeError(msg[:500]) from None
        if isinstance(res, dict) and res.get("ok") is False:
            if "killed" in str(res.get("code", "")):
                raise QueryTimeout()
            raise RuntimeError(str(res)[:500])
        return res["rows"]

    def q8(self, seed, timeout_ms):
        return [r[0] for r in self._run(Q8_SCRIPT, {"seed": seed}, timeout_ms)]

    def q11(self, a, b, timeout_ms):
        rows = self._run(Q11_SCRIPT, {"a": a, "b": b}, timeout_ms)
        if not rows or rows[0][2] is None:
            return None
        n = len(rows[0][2]) - 1
        return n if n <= MAX_HOPS else None

    def close(self):
        self.db.close()


# ---------------------------------------------------------------------------------------------
# Retrieval mix Q1-Q7 (bench/retrieval, bench/sweep)

CO = "*mentions{src: $id, dst: e}, *mentions:by_dst{dst: e, src: o}, o != $id"

RETRIEVAL_SCRIPTS = {
    "q1": "?[doc_id, ordinal, word_count, section_title] := *chunks{id: $id, doc_id, ordinal, word_count, section_title}",
    "q2": f"?[e] := *mentions{{src: $id, dst: e}}\n:limit {LIMIT}",
    "q3": f"?[c] := *mentions:by_dst{{dst: $id, src: c}}\n:limit {LIMIT}",
    "q4": f"?[o] := {CO}\n:limit {LIMIT}",
    "q5": "?[c] := *has_chunk{src: $id, dst: c}",
    "q6": f"p[o, e] := {CO}\n?[o, count(e)] := p[o, e]\n:order -count(e), o\n:limit {TOP}",
    "q7": f"c[c] := e in $ids, *mentions:by_dst{{dst: e, src: c}}\nf[f] := c[c], *mentions{{src: c, dst: f}}\n?[f] := f[f]\n:limit {LIMIT}",
}


class CozoRetrieval(RowQueries, Retrieval, CozoDeep):
    """The deep engine's database, Q1-Q7 in CozoScript with $parameters, the whole result
    materialised (run_script). One database object shared by the threads (Cozo allows one process
    per RocksDB database; the object is thread-safe). Q6 counts (chunk, entity) pairs per chunk:
    the paths, since a chunk mentions an entity once (mentions is keyed (src, dst)). Q7 collects its
    entities in a rule before `:limit`: with the join in the output rule, Cozo 0.7.6 stopped at 50
    rows counted before removing duplicates (46-49 distinct entities where 50 exist)."""

    def prepare(self, data, cache, reload):
        info = super().prepare(data, cache, reload)
        info["notes"] = "CozoScript with $parameters, one database object shared by the threads"
        return info

    def _rows(self, kind, seed):
        params = {"ids": list(seed)} if kind == "q7" else {"id": seed}
        return self.db.run_script(RETRIEVAL_SCRIPTS[kind], params, True)["rows"]

    def query_text(self):
        return dict(RETRIEVAL_SCRIPTS)


# ---------------------------------------------------------------------------------------------
# UnumDB suite (bench/unum)

UNUM_QUERIES = {
    "find_edge": "?[x] := *e{src: $u, dst: $v}, x = 1\n?[x] := *e{src: $v, dst: $u}, x = 1",
    "find_directed": "?[w] := *e{src: $u, dst: $v, weight: w}",
    "edges_of": "?[s, d, w] := *e{src: $v, dst: d, weight: w}, s = $v\n?[s, d, w] := *e{src: s, dst: $v, weight: w}, d = $v",
    "in_edges": "?[s, d, w] := *e{src: s, dst: $v, weight: w}, d = $v",
    "neighbors": "?[n] := *e{src: $v, dst: n}\n?[n] := *e{src: n, dst: $v}",
    "count_out": "?[count(d), sum(w)] := *e{src: $v, dst: d, weight: w}",
    "count_in": "?[count(s), sum(w)] := *e{src: s, dst: $v, weight: w}",
    "put": "?[src, dst, weight] <- $rows :put e {src, dst => weight}",
    "rm": "?[src, dst] <- $rows :rm e {src, dst}",
    "count": "?[count(s)] := *e{src: s}",
}


class CozoUnum(UnumEngine):
    """A stored relation e {src: Int, dst: Int => weight: Float} (keyed (src, dst): the key is the
    out-edge index) and an index e:by_dst {dst, src} (the in-edge index, the counterpart of the SQL
    engines' (dst, src)).

    Import (timed): `import_relations` in batches of 100,000 rows (Cozo's bulk path, as import_kg),
    then `::index create`. Queries are CozoScript with parameters (Cozo has no prepared statements;
    the script is parsed per call); reads run with immutable=True. Cozo 0.7 answers `*e{dst: $v,
    ...}` through the index by itself (the in-edge query takes microseconds, not a scan). A write
    is `:put` / `:rm` with the rows as a parameter (one transaction per call, indices maintained).
    Durability: Cozo's defaults for RocksDB (cozo-embedded exposes no write option)."""

    durability = "Cozo's RocksDB defaults (no write option in cozo-embedded)"
    notes = "import_relations + ::index create e:by_dst {dst, src}; CozoScript with parameters; :put / :rm"

    def version(self):
        try:
            import cozo_embedded  # noqa: F401
        except ImportError as e:
            raise Unavailable(f"cozo-embedded is not installed: {e}") from None
        return f"Cozo {importlib.metadata.version('cozo-embedded')} (cozo-embedded, RocksDB)"

    def open(self, work):
        import cozo_embedded

        self.path = os.path.join(work, "graph.cozo")
        self.db = cozo_embedded.CozoDbPy("rocksdb", self.path, "{}")

    def _run(self, key, params, read=True):
        r = self.db.run_script(UNUM_QUERIES[key], params, read)
        if r.get("ok") is False:
            raise RuntimeError(f"cozo: {r.get('message') or r}")
        return r["rows"]

    def load(self, csv_path):
        self.db.run_script(":create e {src: Int, dst: Int => weight: Float}", {}, False)
        with open(csv_path, newline="") as f:
            r = csv.reader(f)
            next(r)
            rows = []
            for s, d, w in r:
                rows.append([int(s), int(d), float(w)])
                if len(rows) == BATCH:
                    self.db.import_relations({"e": {"headers": ["src", "dst", "weight"], "rows": rows}})
                    rows = []
            if rows:
                self.db.import_relations({"e": {"headers": ["src", "dst", "weight"], "rows": rows}})
        r = self.db.run_script("::index create e:by_dst {dst, src}", {}, False)
        if r.get("ok") is False:
            raise RuntimeError(f"cozo: {r}")

    def disk_bytes(self):
        return dir_bytes(self.path)

    def find_edge(self, u, v):
        return self._run("find_edge", {"u": u, "v": v})

    def find_directed(self, u, v):
        return self._run("find_directed", {"u": u, "v": v})

    def edges_of(self, v):
        return self._run("edges_of", {"v": v})

    def in_edges(self, v):
        return self._run("in_edges", {"v": v})

    def neighbors(self, v):
        return self._run("neighbors", {"v": v})

    def count_out(self, v):
        return self._run("count_out", {"v": v})[0]

    def count_in(self, v):
        return self._run("count_in", {"v": v})[0]

    def upsert(self, u, v, w):
        self._run("put", {"rows": [[u, v, w]]}, False)

    def upsert_batch(self, rows):
        self._run("put", {"rows": [list(r) for r in rows]}, False)

    def remove(self, u, v):
        self._run("rm", {"rows": [[u, v]]}, False)

    def remove_batch(self, pairs):
        self._run("rm", {"rows": [list(p) for p in pairs]}, False)

    def edge_count(self):
        return self._run("count", {})[0][0]

    def close(self):
        self.db.close()


# ---------------------------------------------------------------------------------------------
# Cozo suite (bench/cozo_suite)


class CozoCozoSuite:
    """Stored relations nodes {id => the properties} and edges {src, dst} with the index
    edges:rev {dst, src}, filled with import_relations in batches of 100,000; k-hop as recursion
    through min(depth) with `:timeout`; PageRank by Cozo's fixed rule."""

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
            rows = [list(r) for r in zip(d.keys[i : i + BATCH], *(c[i : i + BATCH] for c in cols), strict=False)]
            self.db.import_relations({"nodes": {"headers": ["id"] + self.cols, "rows": rows}})
        for i in range(0, len(d.src), BATCH):
            rows = [[a, b] for a, b in zip(d.src[i : i + BATCH], d.dst[i : i + BATCH], strict=False)]
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
        return dict(zip(self.cols, rows[0], strict=False)) if rows else None

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
        eng = CozoCozoSuite(None, self.data, path)
        eng.db.restore(src)
        return "restore() into a new RocksDB store", eng

    def close(self):
        if self.db:
            self.db.close()


# ---------------------------------------------------------------------------------------------
# LightRAG call mix (bench/sweep)

LIGHTRAG_SCRIPTS = {
    "get_node": "?[" + ", ".join(ENTITY_PROPS) + "] := *entities{id: $id, " + ", ".join(ENTITY_PROPS) + "}",
    "get_node_edges": "?[c, e] := *mentions:by_dst{dst: $id, src: c}, e = $id",
    "upsert_node": "?[id, " + ", ".join(ENTITY_PROPS) + "] <- [[$id, " + ", ".join(f"${p}" for p in ENTITY_PROPS) + "]]\n"
    ":put entities {id => " + ", ".join(ENTITY_PROPS) + "}",
    "node_degree": "?[count(c)] := *mentions:by_dst{dst: $id, src: c}",
    "has_node": "?[id] := id = $id, *entities{id}",
}


class CozoLightRAG:
    """The five calls in CozoScript on import_kg's stored relations (entities keyed by id, mentions
    keyed (src, dst) with its :by_dst index), $parameters; one database object shared by the
    threads (it is thread-safe; Cozo allows one process per database)."""

    def __init__(self, db, props):
        self.db, self.props = db, props

    def fork(self):
        return self

    def release(self):
        pass

    def _rows(self, kind, params, read=True):
        return self.db.run_script(LIGHTRAG_SCRIPTS[kind], params, read)["rows"]

    def get_node(self, e):
        rows = self._rows("get_node", {"id": e})
        return dict(zip(ENTITY_PROPS, rows[0], strict=False)) if rows else None

    def get_node_edges(self, e):
        return [tuple(r) for r in self._rows("get_node_edges", {"id": e})] or None

    def upsert_node(self, e):
        self._rows("upsert_node", dict({p: self.props[e][p] for p in ENTITY_PROPS}, id=e), False)

    def node_degree(self, e):
        rows = self._rows("node_degree", {"id": e})
        return rows[0][0] if rows else 0

    def has_node(self, e):
        return bool(self._rows("has_node", {"id": e}))
