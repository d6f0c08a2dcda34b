"""The suite's engines, by name: one class per engine (bench/engines/ENGINE.py's CozoSuite class),
the suite's operations, each in the engine's own idiom.

Every engine gets the same parsed data (datasets.Data: int keys, typed property columns, each edge
once) already in memory, so import times cover the engine's bulk path, not CSV parsing. Edges are
stored once; undirected graphs are traversed both ways (k-hop counts and degrees use both
directions on every engine). Per-thread state (SQLite and Kuzu connections) lives in a
threading.local so the 2-thread windows use one connection per thread, as each engine documents.

Methods: load() -> notes, counts() -> (nodes, edges), read(key) -> props | None, write(key, props),
update(key, prop, value), khop(key, k, timeout) -> count | None (timed out), group_by(prop) ->
{value: [count, degree sum]}, pagerank() -> {key: score}, backup(dest) -> notes,
restore(src, path) -> (notes, engine on the restored copy), close(). An operation the engine
lacks raises bench.engines.base.Skip(reason).

engine_class(name) imports only that engine's module (a worker process, and the reader processes
it spawns, hold one engine).
"""

import importlib

ENGINES = {
    "hopdb": ("bench.engines.hopdb", "HopDBCozoSuite"),
    "cozo": ("bench.engines.cozo", "CozoCozoSuite"),
    "kuzu": ("bench.engines.kuzu", "KuzuCozoSuite"),
    "sqlite": ("bench.engines.sqlite", "SQLiteCozoSuite"),
    "networkx": ("bench.engines.networkx", "NetworkXCozoSuite"),
}
NAMES = {"hopdb": "HopDB", "cozo": "Cozo", "kuzu": "Kuzu", "sqlite": "SQLite", "networkx": "NetworkX"}


def engine_class(name):
    mod, cls = ENGINES[name]
    return getattr(importlib.import_module(mod), cls)
