"""The SQL shared by SQLite and PostgreSQL: one table edges(src, dst, weight), a unique index on
(src, dst) (the upsert's conflict target, and the out-edge index) and an index on (dst, src) (the
in-edge index). `P` is the engine's parameter marker."""


def statements(P):
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


INDEXES = [
    "CREATE UNIQUE INDEX edges_src_dst ON edges (src, dst)",
    "CREATE INDEX edges_dst_src ON edges (dst, src)",
]
