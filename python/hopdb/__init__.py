"""HopDB: an embedded, durable property-graph database for knowledge-graph retrieval
(GraphRAG, LightRAG) and graph analytics.

>>> import hopdb
>>> with hopdb.Graph() as g:                      # in memory; hopdb.Graph("dir") on disk
...     g.upsert_node("ada", ["Person"], {"born": 1815})
...     g.upsert_edge("ada", "WROTE_TO", "charles")
...     g.node("ada")["props"]
...     g.neighbors("ada", "out")
...     g.k_hop("ada", 2)
{'born': 1815}
['charles']
['charles']

Every call that does real work releases the GIL, so threads run in parallel, and large batch
reads (``nodes``, ``degrees``, ``edges_between``, ``neighbors_of`` of dozens of keys or more)
split themselves over two threads; writes are durable when the call returns (survive a crash of the process). One process may open a store
for writing; other processes open it with ``read_only=True`` (a fixed view as of the open),
and a second writer gets :class:`StoreLocked`.
"""

from __future__ import annotations

import asyncio
import builtins
import functools
import os
from typing import Any, Iterable, Optional

# The extension allocates with mimalloc (decision 0013), which reads its options when the
# library loads. Its arenas are committed lazily, as glibc's heap is: eager commit added about
# 10 MB of resident memory to a LightRAG process for no measured speed. A user's setting wins.
os.environ.setdefault("MIMALLOC_ARENA_EAGER_COMMIT", "0")

from ._hopdb import (  # noqa: F401
    Cancelled,
    ClosedError,
    CorruptionError,
    CypherError,
    Error,
    GraphHandle as _GraphHandle,
    InvalidArgument,
    Node,
    NotFound,
    Point,
    QueryResult,
    ReadOnlyError,
    Relationship,
    Snapshot,
    StorageError,
    StoreLocked,
    __version__,
)

__all__ = [
    "Graph",
    "Batch",
    "Snapshot",
    "QueryResult",
    "Node",
    "Point",
    "Relationship",
    "open",
    "from_networkx",
    "Error",
    "NotFound",
    "InvalidArgument",
    "StoreLocked",
    "ReadOnlyError",
    "StorageError",
    "CorruptionError",
    "Cancelled",
    "ClosedError",
    "CypherError",
]


class Batch:
    """Operations collected in Python and applied in one atomic, durable transaction when the
    ``with`` block ends without an exception (nothing is applied otherwise). Reads inside the
    block do not see the batch's own writes.

    >>> g = Graph()
    >>> with g.batch() as b:
    ...     b.upsert_node("a", ["L"])
    ...     b.upsert_edge("a", "R", "b", weight=2.0)
    >>> g.degree("a", "out")
    (1, 2.0)
    """

    def __init__(self, graph: "Graph"):
        self._graph = graph
        self._ops: list = []

    def upsert_node(self, key, labels: Iterable[str] = (), props: Optional[dict] = None, *, replace: bool = False):
        self._ops.append(("node", key, list(labels), props or {}, replace))

    def upsert_edge(self, src, type: str, dst, weight: Optional[float] = None, props: Optional[dict] = None, *, replace: bool = False):
        self._ops.append(("edge", src, type, dst, weight, props or {}, replace))

    def delete_node(self, key):
        self._ops.append(("del_node", key))

    def delete_edge(self, src, type: str, dst):
        self._ops.append(("del_edge", src, type, dst))

    def __len__(self) -> int:
        return len(self._ops)

    def __enter__(self) -> "Batch":
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        if exc_type is None and self._ops:
            self._graph.apply(self._ops)
        self._ops = []
        return False


class Graph(_GraphHandle):
    """A HopDB store: ``Graph(path)`` opens (or creates) the store in directory ``path``;
    ``Graph()`` is an in-memory store. Use it as a context manager to close it at the end.

    Nodes have a unique key (str or int), labels and properties (dicts of None, bool, int,
    float, str, bytes, lists and dicts); edges are typed, directed (or of an undirected type),
    with properties and an optional weight.

    Options: ``read_only=True`` opens a store another process writes (a view as of the open);
    ``durability`` is ``"process"`` (survives a crash of the process; the default), ``"sync"``
    (survives power loss) or ``"none"`` (bulk work, then :meth:`flush`);
    ``create_missing_endpoints=False`` makes an edge write to a missing node fail;
    ``memory_mb`` sizes the caches and memtables together (default about 152 MiB; the
    in-memory projection that :meth:`project` builds comes on top); ``projection_mb`` bounds
    the projection that reads build on their own, in the background, when none is fresh
    (default 512, or ``memory_mb`` when given; ``0`` never builds one unasked).

    >>> with Graph() as g:
    ...     g.upsert_edge("a", "KNOWS", "b")
    ...     g.neighbors("a", "out")
    ['b']

    ``g.query(text, params)`` runs openCypher and returns a :class:`QueryResult`: columns,
    rows as tuples, update counters (``stats``), and ``to_dicts()``, ``to_arrow()``,
    ``to_polars()``, ``to_pandas()``. Nodes and relationships in rows are :class:`Node` and
    :class:`Relationship` objects, paths alternating lists ``[node, rel, node, ...]``; errors
    raise :class:`CypherError` (``code``, ``line``, ``column``)::

        g.query("CREATE (:Person {name: $name})", {"name": "Ada"})
        for (name,) in g.query("MATCH (p:Person) RETURN p.name"):
            ...
    """

    def __enter__(self) -> "Graph":
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        self.close()
        return False

    def __repr__(self) -> str:
        if self.closed:
            return "<hopdb.Graph closed>"
        where = self.path or "in memory"
        return f"<hopdb.Graph {where}: {self.node_count()} nodes, {self.edge_count()} edges>"

    def batch(self) -> Batch:
        """An atomic write batch (see :class:`Batch`)."""
        return Batch(self)

    async def run(self, method: str, *args, **kwargs) -> Any:
        """Runs ``getattr(self, method)(*args, **kwargs)`` on a worker thread, for asyncio code:
        the event loop keeps running meanwhile. Use it for long work (whole-graph algorithms,
        imports); call point reads and writes directly: they take microseconds, and the thread
        hop costs more than the call (BENCHMARKS.md, section 5)."""
        return await asyncio.to_thread(functools.partial(getattr(self, method), *args, **kwargs))

    def to_arrow(self) -> dict:
        """The whole graph as pyarrow tables (one snapshot): ``{"nodes": Table, "edges":
        {type: Table}}``. Node tables have ``id`` and ``labels`` columns, edge tables ``src``,
        ``dst``, ``weight``, then one column per property (``NAME:json`` for mixed kinds), as
        the Parquet export writes them; ``import_tables`` reads them back. Goes through a
        temporary Parquet export (not zero-copy)."""
        import json
        import tempfile

        import pyarrow.parquet as pq

        with tempfile.TemporaryDirectory(prefix="hopdb-export-") as tmp:
            self.export(tmp, "parquet")
            with builtins.open(f"{tmp}/manifest.json") as f:  # `open` here is hopdb.open
                manifest = json.load(f)
            nodes = pq.read_table(f"{tmp}/{manifest['nodes']['file']}")
            edges = {r["type"]: pq.read_table(f"{tmp}/{r['file']}") for r in manifest["relationships"]}
        return {"nodes": nodes, "edges": edges}

    def to_polars(self) -> dict:
        """Like :meth:`to_arrow`, as Polars DataFrames."""
        import polars as pl

        t = self.to_arrow()
        return {"nodes": pl.from_arrow(t["nodes"]), "edges": {k: pl.from_arrow(v) for k, v in t["edges"].items()}}

    def to_pandas(self) -> dict:
        """Like :meth:`to_arrow`, as pandas DataFrames (needs pandas)."""
        t = self.to_arrow()
        return {"nodes": t["nodes"].to_pandas(), "edges": {k: v.to_pandas() for k, v in t["edges"].items()}}

    def to_networkx(self, *, multigraph: bool = False):
        """The whole graph as a NetworkX DiGraph (MultiDiGraph with ``multigraph=True``): node
        attributes are the properties plus ``labels``; edge attributes the properties plus
        ``type`` and ``weight`` (when set)."""
        import networkx as nx

        G = nx.MultiDiGraph() if multigraph else nx.DiGraph()
        for n in self.all_nodes():
            G.add_node(n["key"], labels=n["labels"], **n["props"])
        keys = [n for n in G.nodes]
        for edges in self.edges_of(keys, "out"):
            for e in edges or ():
                attrs = dict(e["props"], type=e["type"])
                if e["weight"] is not None:
                    attrs["weight"] = e["weight"]
                G.add_edge(e["src"], e["dst"], **attrs)
        return G


def open(path: Optional[str] = None, **options) -> Graph:  # noqa: A001 (mirrors sqlite3.connect)
    """``hopdb.open(path)`` is ``hopdb.Graph(path, **options)``."""
    return Graph(path, **options)


def from_networkx(G, path: Optional[str] = None, *, edge_type: str = "EDGE", type_attr: str = "type") -> Graph:
    """A new store holding a NetworkX graph: node attributes become properties (``labels``,
    if a list, become labels); an edge's ``type_attr`` attribute names its type (else
    ``edge_type``) and ``weight`` its weight. An undirected NetworkX graph gives undirected
    edge types."""
    g = Graph(path)
    undirected = not G.is_directed()
    nodes = []
    for n, attrs in G.nodes(data=True):
        attrs = dict(attrs)
        labels = attrs.pop("labels", [])
        nodes.append((n, list(labels) if isinstance(labels, (list, tuple)) else [str(labels)], attrs))
    g.upsert_nodes(nodes)
    edges = []
    seen_types = set()
    for u, v, attrs in G.edges(data=True):
        attrs = dict(attrs)
        ty = str(attrs.pop(type_attr, edge_type))
        w = attrs.pop("weight", None)
        if undirected and ty not in seen_types:
            g.define_edge_type(ty, undirected=True)
        seen_types.add(ty)
        edges.append((u, ty, v, None if w is None else float(w), attrs))
    g.upsert_edges(edges)
    return g
