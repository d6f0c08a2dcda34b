"""One adapter per engine; `make(name)` imports only the one asked for (each engine runs in its
own process, and a missing package must only skip that engine)."""

import importlib

ENGINES = {
    "hopdb": ("hopdb_engine", "HopDB"),
    "sqlite": ("sqlite_engine", "SQLite"),
    "postgres": ("postgres_engine", "Postgres"),
    "networkx": ("nx_engine", "NetworkX"),
    "kuzu": ("kuzu_engine", "Kuzu"),
    "cozo": ("cozo_engine", "Cozo"),
    "neo4j": ("neo4j_engine", "Neo4j"),
}
NAMES = {"hopdb": "HopDB", "sqlite": "SQLite", "postgres": "PostgreSQL", "networkx": "NetworkX", "kuzu": "Kuzu", "cozo": "Cozo", "neo4j": "Neo4j"}


def make(name):
    mod, cls = ENGINES[name]
    return getattr(importlib.import_module(f"engines.{mod}"), cls)()
