"""The suite's engines, by name: bench/engines/ENGINE.py's Unum class (interface:
bench.engines.base.UnumEngine). `make(name)` imports only the one asked for (each engine runs in
its own process, and a missing package must only skip that engine)."""

import importlib

ENGINES = {
    "hopdb": ("bench.engines.hopdb", "HopDBUnum"),
    "sqlite": ("bench.engines.sqlite", "SQLiteUnum"),
    "postgres": ("bench.engines.postgres", "PostgresUnum"),
    "networkx": ("bench.engines.networkx", "NetworkXUnum"),
    "kuzu": ("bench.engines.kuzu", "KuzuUnum"),
    "cozo": ("bench.engines.cozo", "CozoUnum"),
    "neo4j": ("bench.engines.neo4j", "Neo4jUnum"),
}
NAMES = {"hopdb": "HopDB", "sqlite": "SQLite", "postgres": "PostgreSQL", "networkx": "NetworkX", "kuzu": "Kuzu", "cozo": "Cozo", "neo4j": "Neo4j"}


def make(name):
    mod, cls = ENGINES[name]
    return getattr(importlib.import_module(mod), cls)()
