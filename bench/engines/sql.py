"""The SQL that SQLite and PostgreSQL share, per workload.

Retrieval Q1-Q7 (bench/retrieval, bench/sweep): over bench/bulk_import's flat tables
nodes(id, label, doc_id, ordinal, word_count, section_title, ...) and edges(src, dst, type)
(B-tree indexes on nodes(id), edges(src), edges(dst)): the same statements, named parameters in
each driver's style. (crates/hopdb-loadgen runs the same statements.)

UnumDB suite (bench/unum): one table edges(src, dst, weight), a unique index on (src, dst) (the
upsert's conflict target, and the out-edge index) and an index on (dst, src) (the in-edge index).
`P` is the engine's parameter marker.
"""

from bench.retrieval.workload import LIMIT, SET_SIZE, TOP

# ---------------------------------------------------------------------------------------------
# Retrieval mix Q1-Q7

CO_PATHS = "FROM edges m JOIN edges o ON o.dst = m.dst WHERE m.src = {id} AND m.type = 'MENTIONS' AND o.type = 'MENTIONS' AND o.src <> {id}"

RETRIEVAL_TEMPLATES = {
    "q1": "SELECT doc_id, ordinal, word_count, section_title FROM nodes WHERE id = {id}",
    "q2": f"SELECT dst FROM edges WHERE src = {{id}} AND type = 'MENTIONS' LIMIT {LIMIT}",
    "q3": f"SELECT src FROM edges WHERE dst = {{id}} AND type = 'MENTIONS' LIMIT {LIMIT}",
    "q4": f"SELECT DISTINCT o.src {CO_PATHS} LIMIT {LIMIT}",
    "q5": "SELECT dst FROM edges WHERE src = {id} AND type = 'HAS_CHUNK'",
    "q6": f"SELECT o.src, count(*) AS n {CO_PATHS} GROUP BY o.src ORDER BY n DESC, o.src{{collate}} LIMIT {TOP}",
    "q7": "SELECT DISTINCT f.dst FROM edges m JOIN edges f ON f.src = m.src "
    f"WHERE m.dst IN ({{ids}}) AND m.type = 'MENTIONS' AND f.type = 'MENTIONS' LIMIT {LIMIT}",
}


def retrieval_statements(param, collate=""):
    """{kind: SQL}; param(name) is the driver's placeholder (':id' or '%(id)s'); collate is added
    to Q6's id ordering (PostgreSQL: ' COLLATE "C"', byte order as everywhere else)."""
    ids = ", ".join(param(f"e{i}") for i in range(SET_SIZE))
    return {k: t.format(id=param("id"), ids=ids, collate=collate) for k, t in RETRIEVAL_TEMPLATES.items()}


def retrieval_args(kind, seed):
    """The named parameters of one query."""
    if kind == "q7":
        return {f"e{i}": e for i, e in enumerate(seed)}
    return {"id": seed}


# ---------------------------------------------------------------------------------------------
# UnumDB suite


def unum_statements(P):
    return {
        "find_edge": f"SELECT 1 FROM edges WHERE src = {P} AND dst = {P} UNION ALL SELECT 1 FROM edges WHERE src = {P} AND dst = {P} LIMIT 1",
        "find_directed": f"SELECT 1 FROM edges WHERE src = {P} AND dst = {P}",
        "edges_of": f"SELECT src, dst, weight FROM edges WHERE src = {P} UNION ALL SELECT src, dst, weight FROM edges WHERE dst = {P}",
        "in_edges": f"SELECT src, dst, weight FROM edges WHERE dst = {P}",
        "neighbors": f"SELECT dst FROM edges WHERE src = {P} UNION SELECT src FROM edges WHERE dst = {P}",
        "count_out": f"SELECT count(*), coalesce(sum(weight), 0) FROM edges WHERE src = {P}",
        "count_in": f"SELECT count(*), coalesce(sum(weight), 0) FROM edges WHERE dst = {P}",
        "upsert": f"INSERT INTO edges (src, dst, weight) VALUES ({P}, {P}, {P}) ON CONFLICT (src, dst) DO UPDATE SET weight = excluded.weight",
        "remove": f"DELETE FROM edges WHERE src = {P} AND dst = {P}",
        "count": "SELECT count(*) FROM edges",
    }


UNUM_INDEXES = [
    "CREATE UNIQUE INDEX edges_src_dst ON edges (src, dst)",
    "CREATE INDEX edges_dst_src ON edges (dst, src)",
]
