"""The engines of the retrieval mix, by name: bench/engines/ENGINE.py's Retrieval class (the deep
engine's class, which loads, opens, probes and closes the kept database, with the seven queries
added; interface: bench.engines.base.Retrieval). engine_class(name) imports only that module."""

ENGINES = {
    "hopdb": ("bench.engines.hopdb", "HopDBRetrieval"),
    "sqlite": ("bench.engines.sqlite", "SQLiteRetrieval"),
    "networkx": ("bench.engines.networkx", "NetworkXRetrieval"),
    "kuzu": ("bench.engines.kuzu", "KuzuRetrieval"),
    "neo4j": ("bench.engines.neo4j", "Neo4jRetrieval"),
    "postgres": ("bench.engines.postgres", "PostgresRetrieval"),
    "cozo": ("bench.engines.cozo", "CozoRetrieval"),
    "falkordb": ("bench.engines.falkordb", "FalkorDBRetrieval"),
    "hopdb-cypher": ("bench.engines.hopdb_cypher", "HopDBCypherRetrieval"),  # the same store through g.query (issue 19)
}
# Engines also measured as two processes, each opening the database read-only.
MULTI_PROCESS = ("hopdb", "sqlite")


def engine_class(name):
    import importlib

    mod, cls = ENGINES[name]
    return getattr(importlib.import_module(mod), cls)
