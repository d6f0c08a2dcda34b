"""Q1-Q7 in SQL over bench/import's flat tables nodes(id, label, doc_id, ordinal, word_count,
section_title, ...) and edges(src, dst, type) (B-tree indexes on nodes(id), edges(src), edges(dst)),
for SQLite and PostgreSQL: the same statements, named parameters in each driver's style."""

from workload import LIMIT, SET_SIZE, TOP

CO_PATHS = "FROM edges m JOIN edges o ON o.dst = m.dst WHERE m.src = {id} AND m.type = 'MENTIONS' AND o.type = 'MENTIONS' AND o.src <> {id}"

TEMPLATES = {
    "q1": "SELECT doc_id, ordinal, word_count, section_title FROM nodes WHERE id = {id}",
    "q2": f"SELECT dst FROM edges WHERE src = {{id}} AND type = 'MENTIONS' LIMIT {LIMIT}",
    "q3": f"SELECT src FROM edges WHERE dst = {{id}} AND type = 'MENTIONS' LIMIT {LIMIT}",
    "q4": f"SELECT DISTINCT o.src {CO_PATHS} LIMIT {LIMIT}",
    "q5": "SELECT dst FROM edges WHERE src = {id} AND type = 'HAS_CHUNK'",
    "q6": f"SELECT o.src, count(*) AS n {CO_PATHS} GROUP BY o.src ORDER BY n DESC, o.src{{collate}} LIMIT {TOP}",
    "q7": "SELECT DISTINCT f.dst FROM edges m JOIN edges f ON f.src = m.src "
    f"WHERE m.dst IN ({{ids}}) AND m.type = 'MENTIONS' AND f.type = 'MENTIONS' LIMIT {LIMIT}",
}


def statements(param, collate=""):
    """{kind: SQL}; param(name) is the driver's placeholder (':id' or '%(id)s'); collate is added
    to Q6's id ordering (PostgreSQL: ' COLLATE "C"', byte order as everywhere else)."""
    ids = ", ".join(param(f"e{i}") for i in range(SET_SIZE))
    return {k: t.format(id=param("id"), ids=ids, collate=collate) for k, t in TEMPLATES.items()}


def args(kind, seed):
    """The named parameters of one query."""
    if kind == "q7":
        return {f"e{i}": e for i, e in enumerate(seed)}
    return {"id": seed}
