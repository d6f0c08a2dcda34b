"""Kuzu (PyPI kuzu) on a database file: node table V(id INT64 PRIMARY KEY), rel table
E(FROM V TO V, weight DOUBLE).

Import (timed): COPY V from a LOAD FROM subquery (the distinct ids of both CSV columns, so Kuzu
derives the vertices itself), then COPY E FROM the CSV. Vertex ids are inlined into the Cypher
text as integer literals: prepared statements with
`{id: $v}` measured up to 2x slower on dimacs9-road-NY (264K vertices: 1.5-2.0 ms vs 0.95-1.3 ms
per count query) and about 10% faster on a 20K-vertex graph (0.8-0.9 vs 0.85-1.0 ms), so the
literal form is used for every query (the ids are formatted with int(), nothing to inject; a
weight is passed as a parameter). Each execute is its own transaction; a batch runs the single-edge statement per edge inside one
BEGIN TRANSACTION ... COMMIT (like SQLite's executemany in one transaction): the one-statement
form `UNWIND $rows AS r MATCH (a:V {id: r.u}), (b:V {id: r.v}) MERGE ...` costs time in
proportion to the vertex count (the UNWIND'ed ids are not looked up by key): 0.3 s per 500 edges
on wiki-Vote (7K vertices; the loop: 2.8 s) but 52 s on dimacs9-road-NY (264K; the loop: 1 s),
and would take most of the full profile's budget on web-NotreDame, so the loop is used on every
graph. Upserts MERGE the relationship between the two existing vertices and set
its weight. Durability: Kuzu's WAL is fdatasync'ed at every write commit (strace: one per write transaction) — stronger
than the other engines' settings here; the Python API has no setting to relax it.
"""

import importlib.metadata
import os

from .base import Engine, Unavailable

Q = {  # {u} / {v}: integer ids inlined as literals (see above); $w: a parameter
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


class Kuzu(Engine):
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
        from shared import import_common

        return sum(import_common().dir_bytes(self.path + s) for s in ("", ".wal") if os.path.exists(self.path + s))

    def _x(self, key, params=None, **ids):
        return self.con.execute(Q[key].format(**{k: int(x) for k, x in ids.items()}), params)

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
        return self.con.execute(Q["count"]).get_all()[0][0]

    def close(self):
        self.con.close()
        self.db.close()
