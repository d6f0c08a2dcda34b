"""The engines of the retrieval mix: bench/deep's engine classes (load, open, probe, close) with the
seven queries added. Each answers

    q1(chunk) -> (doc_id, ordinal, word_count, section_title) or None
    q2(chunk), q3(entity), q4(chunk), q5(document), q7((e1, ..., e5)) -> list of ids
    q6(chunk) -> list of (chunk id, shared paths)

and fork() -> an object with the same methods for another thread (its own connection where the
engine's client needs one; the same object otherwise); release() closes what fork() opened.
"""

ENGINES = {
    "hopdb": ("rag_engines.hopdb_rag", "HopDBRetrieval"),
    "sqlite": ("rag_engines.sqlite_rag", "SQLiteRetrieval"),
    "networkx": ("rag_engines.nx_rag", "NetworkXRetrieval"),
    "kuzu": ("rag_engines.kuzu_rag", "KuzuRetrieval"),
    "neo4j": ("rag_engines.neo4j_rag", "Neo4jRetrieval"),
    "postgres": ("rag_engines.postgres_rag", "PostgresRetrieval"),
    "cozo": ("rag_engines.cozo_rag", "CozoRetrieval"),
    "falkordb": ("rag_engines.falkordb_rag", "FalkorDBRetrieval"),
}
# Engines also measured as two processes, each opening the database read-only.
MULTI_PROCESS = ("hopdb", "sqlite")


def engine_class(name):
    import importlib

    mod, cls = ENGINES[name]
    return getattr(importlib.import_module(mod), cls)
