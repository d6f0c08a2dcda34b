"""HopDB through its openCypher engine (issue 19), from the `hopdb` Python package:
`g.query(text, params)` on the same kept store as bench/engines/hopdb.py (`hopdb import`, under
DATA_ROOT/deep/sS/hopdb/store), opened read-only, with the projection built and the key index
warmed at open like HopDBRetrieval.

- HopDBCypherRetrieval: bench/retrieval's Q1-Q7 as parameterised Cypher (the peers' text of
  bench/engines/cypher.py with the node key `_key` for `id`), in two forms the worker measures
  and keeps the faster of: `peer` (the peers' labels kept) and `lean` (the labels the schema
  implies dropped: a MENTIONS edge always runs Chunk -> Entity, HAS_CHUNK Document -> Chunk).
- HopDBCypherDeep: bench/deep's Q8 (`-[*1..4]-` then DISTINCT: the engine runs it as one
  breadth-first search in the analytics layer) and Q11 (read-only `shortestPath`: the analytics
  layer's bidirectional search).
- HopDBPythonDeep: Q8 and Q11 through the package's native calls (`g.k_hop`, `g.shortest_path`),
  timed the same way from Python: the baseline the Cypher variant is compared with (bench/deep's
  `hopdb` row times the Rust API inside its own process instead).
"""

import importlib.metadata
import time

from bench.deep.workload import MAX_HOPS, Q8_HOPS, Q8_LIMIT
from bench.retrieval.workload import LIMIT, TOP

from .base import KGEngine, QueryTimeout, Retrieval, RowQueries, Unavailable
from .hopdb import ensure_store

# ---------------------------------------------------------------------------------------------
# The query texts

CO_PEER = "MATCH (c:Chunk {_key: $id})-[:MENTIONS]->(:Entity)<-[:MENTIONS]-(o:Chunk) WHERE o._key <> $id"
CO_LEAN = "MATCH (c {_key: $id})-[:MENTIONS]->()<-[:MENTIONS]-(o) WHERE o <> c"

RETRIEVAL = {
    "peer": {
        "q1": "MATCH (c:Chunk {_key: $id}) RETURN c.doc_id, c.ordinal, c.word_count, c.section_title",
        "q2": f"MATCH (c:Chunk {{_key: $id}})-[:MENTIONS]->(e:Entity) RETURN e._key LIMIT {LIMIT}",
        "q3": f"MATCH (e:Entity {{_key: $id}})<-[:MENTIONS]-(c:Chunk) RETURN c._key LIMIT {LIMIT}",
        "q4": f"{CO_PEER} RETURN DISTINCT o._key LIMIT {LIMIT}",
        "q5": "MATCH (d:Document {_key: $id})-[:HAS_CHUNK]->(c:Chunk) RETURN c._key",
        "q6": f"{CO_PEER} RETURN o._key AS id, count(*) AS n ORDER BY n DESC, id LIMIT {TOP}",
        # The planner starts a pattern at a key given in the pattern's map, not at `WHERE e._key
        # IN $ids`: the seeds are unwound into the map.
        "q7": "UNWIND $ids AS i MATCH (e:Entity {_key: i})<-[:MENTIONS]-(c:Chunk) WITH DISTINCT c "
        f"MATCH (c)-[:MENTIONS]->(f:Entity) RETURN DISTINCT f._key LIMIT {LIMIT}",
    },
    "lean": {
        "q1": "MATCH (c {_key: $id}) RETURN c.doc_id, c.ordinal, c.word_count, c.section_title",
        "q2": f"MATCH ({{_key: $id}})-[:MENTIONS]->(e) RETURN e._key LIMIT {LIMIT}",
        "q3": f"MATCH ({{_key: $id}})<-[:MENTIONS]-(c) RETURN c._key LIMIT {LIMIT}",
        "q4": f"{CO_LEAN} RETURN DISTINCT o._key LIMIT {LIMIT}",
        "q5": "MATCH ({_key: $id})-[:HAS_CHUNK]->(c) RETURN c._key",
        "q6": f"{CO_LEAN} RETURN o._key AS id, count(*) AS n ORDER BY n DESC, id LIMIT {TOP}",
        "q7": "UNWIND $ids AS i MATCH ({_key: i})<-[:MENTIONS]-(c) WITH DISTINCT c "
        f"MATCH (c)-[:MENTIONS]->(f) RETURN DISTINCT f._key LIMIT {LIMIT}",
    },
}

Q8 = f"MATCH ({{_key: $id}})-[*1..{Q8_HOPS}]-(n) RETURN DISTINCT n._key LIMIT {Q8_LIMIT}"
Q11 = f"MATCH p = shortestPath(({{_key: $a}})-[*..{MAX_HOPS}]-({{_key: $b}})) RETURN length(p)"


def _probe():
    try:
        import hopdb
    except ImportError as e:
        raise Unavailable(f"the hopdb package is not installed: {e}") from None
    if not hasattr(hopdb.Graph, "query"):
        raise Unavailable(f"the installed hopdb package ({importlib.metadata.version('hopdb')}) has no Graph.query (the Cypher engine)")
    return hopdb


def _open(data, cache, reload):
    """The kept store, read-only, with the projection built and the key index warmed."""
    import hopdb

    store, info, load_s = ensure_store(data, cache, reload)
    t = time.perf_counter()
    g = hopdb.Graph(store, read_only=True)
    proj = g.project()
    keys = g.warm_key_index()
    prep = {
        "load_s": load_s,
        "cached_load": info,
        "open_s": time.perf_counter() - t,
        "notes": f"hopdb.Graph(store, read_only=True) + g.project() ({proj['bytes'] / 2**20:.0f} MiB CSR in {proj['seconds']:.2f} s) + g.warm_key_index() ({keys:,} keys)",
    }
    return g, prep


def _timed_out(e):
    return "TimedOut" in (getattr(e, "code", "") or "") or getattr(e, "detail", "") == "Cancelled"


# ---------------------------------------------------------------------------------------------
# Retrieval mix Q1-Q7 (bench/retrieval)


class HopDBCypherRetrieval(RowQueries, Retrieval, KGEngine):
    """Q1-Q7 as parameterised Cypher through `g.query` (its plan cached by text after the first
    call); one Graph shared by the threads (a query runs with the GIL released)."""

    name = "hopdb-cypher"
    variants = ("peer", "lean")
    variant = "peer"

    def probe(self):
        _probe()
        return f"HopDB {importlib.metadata.version('hopdb')} Cypher (Python package, g.query, in-process, read-only store)"

    def prepare(self, data, cache, reload):
        self.g, prep = _open(data, cache, reload)
        prep["notes"] += (
            "; Q1-Q7 as parameterised Cypher through g.query, one Graph shared by the threads"
            "; one-column answers read with QueryResult.value() (the Neo4j driver's call)"
        )
        return prep

    def _col(self, kind, seed):
        # A list of ids, as the native calls return: the column itself, no tuple per row.
        return self._rows(kind, seed).value()

    def _rows(self, kind, seed):
        if kind == "q7":
            return self.g.query(RETRIEVAL[self.variant][kind], {"ids": list(seed)})
        return self.g.query(RETRIEVAL[self.variant][kind], {"id": seed})

    def close(self):
        self.g.close()

    def query_text(self):
        return dict(RETRIEVAL[self.variant])


# ---------------------------------------------------------------------------------------------
# Deep queries Q8 and Q11 (bench/deep)


class HopDBCypherDeep(KGEngine):
    """Q8 and Q11 in Cypher through `g.query(text, params, timeout=)` on the projection."""

    name = "hopdb-cypher"

    def probe(self):
        _probe()
        return f"HopDB {importlib.metadata.version('hopdb')} Cypher (Python package, g.query, in-process)"

    def prepare(self, data, cache, reload):
        self.hopdb = _probe()
        self.g, prep = _open(data, cache, reload)
        prep["notes"] += f"; Q8 = `{Q8}` read with QueryResult.value(), Q11 = `{Q11}`"
        return prep

    def _query(self, text, params, timeout_ms):
        try:
            return self.g.query(text, params, timeout=timeout_ms / 1000)
        except self.hopdb.CypherError as e:
            if _timed_out(e):
                raise QueryTimeout() from None
            raise

    def q8(self, seed, timeout_ms):
        return self._query(Q8, {"id": seed}, timeout_ms).value()

    def q11(self, a, b, timeout_ms):
        rows = self._query(Q11, {"a": a, "b": b}, timeout_ms)
        return rows[0][0] if len(rows) else None

    def close(self):
        self.g.close()


class HopDBPythonDeep(KGEngine):
    """Q8 and Q11 through the native calls of the package, `g.k_hop(seed, 4, limit=100)` and
    `g.shortest_path(a, b, max_hops=12)`, on the same open store and projection as
    HopDBCypherDeep: the baseline of the Cypher variant, timed from Python the same way."""

    name = "hopdb-python"

    def probe(self):
        _probe()
        return f"HopDB {importlib.metadata.version('hopdb')} native calls (Python package, k_hop / shortest_path, in-process)"

    def prepare(self, data, cache, reload):
        self.hopdb = _probe()
        self.g, prep = _open(data, cache, reload)
        prep["notes"] += f"; Q8 = g.k_hop(seed, {Q8_HOPS}, limit={Q8_LIMIT}), Q11 = g.shortest_path(a, b, max_hops={MAX_HOPS})"
        return prep

    def q8(self, seed, timeout_ms):
        try:
            return self.g.k_hop(seed, Q8_HOPS, limit=Q8_LIMIT, timeout=timeout_ms / 1000)
        except self.hopdb.Cancelled:
            raise QueryTimeout() from None

    def q11(self, a, b, timeout_ms):
        try:
            p = self.g.shortest_path(a, b, max_hops=MAX_HOPS, timeout=timeout_ms / 1000)
        except self.hopdb.Cancelled:
            raise QueryTimeout() from None
        return None if p is None else len(p) - 1

    def close(self):
        self.g.close()
