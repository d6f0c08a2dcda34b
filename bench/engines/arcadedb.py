"""ArcadeDB (PyPI arcadedb-embedded, the JVM in-process), for bench/ingest: the synthetic graph
through its GraphBatch bulk API (ingest_load), the traversals in its SQL (ingest_queries).
"""

import os


def ingest_load(g, mode, path, a, done):
    """bench/ingest's batch load: vertex type Node with a unique index on id, an edge type per
    relation type, then one graph_batch: create_vertices, new_edges per type."""
    import arcadedb_embedded as arcadedb

    from bench.ingest import synth
    from bench.ingest.loading import clock

    db = arcadedb.create_database(os.path.join(path, "g.arcadedb"))
    db.command("sql", "CREATE VERTEX TYPE Node")
    db.command("sql", "CREATE PROPERTY Node.id LONG")
    db.command("sql", "CREATE INDEX ON Node (id) UNIQUE")
    for t in synth.TYPES:
        db.command("sql", f"CREATE EDGE TYPE {t}")
    nodes = [{"id": k, **p} for k, p in g.node_rows()]  # create_vertices' input, like the Arrow tables
    clock.start()
    with db.graph_batch(expected_edge_count=g.m) as b:
        rids = b.create_vertices("Node", nodes)
        for code, t in enumerate(synth.TYPES):
            sel = g.typ == code
            b.new_edges([rids[i] for i in g.src[sel].tolist()], t, [rids[i] for i in g.dst[sel].tolist()])
    done["rows"] = g.n + g.m
    return db


def ingest_queries(db, ref):
    """bench/ingest's traversals in ArcadeDB's SQL: the hub's out RelA, a breadth-first TRAVERSE,
    RelA then RelB."""

    def one(sql, arg):
        return list(db.query("sql", sql, arg))

    return {
        "star": lambda: sorted(one("SELECT out('RelA').id AS ids FROM Node WHERE id = ?", ref["star"]["from"])[0].get("ids")),
        # Breadth-first: a depth-first TRAVERSE with MAXDEPTH can miss nodes it first reaches
        # by a longer path. The count includes the start node.
        "bfs": lambda: one(
            f"SELECT count(*) AS c FROM (TRAVERSE out() FROM (SELECT FROM Node WHERE id = ?) "
            f"MAXDEPTH {ref['bfs']['depth']} STRATEGY BREADTH_FIRST)",
            ref["bfs"]["from"],
        )[0].get("c") - 1,
        "two_step": lambda: sorted(
            r.get("id")
            for r in one("SELECT DISTINCT id FROM (SELECT expand(out('RelA').out('RelB')) FROM Node WHERE id = ?)", ref["two_step"]["from"])
        ),
    }


def ingest_count(db):
    """(nodes, edges) as ArcadeDB counts them after bench/ingest's load."""
    from bench.ingest import synth

    return db.count_type("Node"), sum(db.count_type(t) for t in synth.TYPES)
