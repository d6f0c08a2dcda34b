"""HopDB as LightRAG's graph storage: ``HopDBGraphStorage``, a drop-in for ``NetworkXStorage``.

>>> import hopdb.lightrag
>>> hopdb.lightrag.register()                                 # doctest: +SKIP
>>> rag = LightRAG(working_dir="./rag", graph_storage="HopDBGraphStorage", ...)  # doctest: +SKIP

:func:`register` adds the class to LightRAG's storage registry (``lightrag.kg.STORAGES``,
``STORAGE_IMPLEMENTATIONS["GRAPH_STORAGE"]`` and ``STORAGE_ENV_REQUIREMENTS``), so the name
passes ``verify_storage_implementation`` and ``get_storage_class`` imports it from this module.
It works with lightrag-hku 1.5.x (tested with 1.5.7). Importing ``hopdb`` or ``hopdb.lightrag``
does not import LightRAG: the class derives from ``lightrag.base.BaseGraphStorage``, so it is
built on first access (``hopdb.lightrag.HopDBGraphStorage``, or :func:`register`).

Storage layout and processes
    One HopDB store (a directory) per workspace and namespace:
    ``<working_dir>/[<workspace>/]graph_<namespace>.hopdb``, next to where NetworkXStorage
    keeps ``graph_<namespace>.graphml``; workspace and namespace names are validated as LightRAG
    validates workspaces (one path component, not ``.`` or ``..``). ``initialize()`` opens the
    store, ``finalize()`` closes it; instances of the same store in one process share one open
    handle. Every write is durable when its call returns (it survives a crash of the process),
    so ``index_done_callback`` has nothing to flush and returns at once; there is no GraphML file
    rewritten per batch and no reload in other instances. One process may write a store:
    ``initialize()`` in a second process (another LightRAG API worker, say) raises
    :class:`hopdb.StoreLocked` rather than silently diverging, so run the LightRAG server with
    one worker per store when HopDB is the graph storage. ``drop()`` deletes every node and edge
    in one atomic transaction (the store directory stays; RocksDB compaction reclaims the space).

    A NetworkX graph migrates with ``hopdb import --graphml graph_<ns>.graphml`` (or
    ``Graph.import_files(graphml=...)``) into that directory: the importer uses the same
    undirected edge type, ``RELATED``, and keeps every attribute as a property.

Behaviour (NetworkXStorage's, call for call; the differential test in
``python/tests/test_lightrag.py`` checks thousands of random calls against it)
    * The graph is undirected: one edge per unordered pair (HopDB's undirected edge type
      ``RELATED``). ``has_edge``, ``get_edge``, ``remove_edges`` and ``get_edges_batch`` answer
      the same for (a, b) and (b, a); ``get_node_edges`` lists ``(queried, neighbour)`` tuples,
      ``None`` for a missing node and ``[]`` for an isolated one (``get_nodes_edges_batch``: ``[]``
      for both, as the base class documents).
    * ``node_degree`` counts a node's edges, a self-loop twice (NetworkX's degree), 0 for a
      missing node; ``edge_degree`` is the sum of the two endpoints' degrees.
    * Upserts merge: new attributes are added and given ones overwritten, the others kept (what
      ``nx.Graph.add_node`` / ``add_edge`` do to the attribute dict; Neo4j's ``SET n += $props``).
      A numeric, finite ``weight`` attribute of an edge is also its HopDB weight (as the GraphML
      importer does), so HopDB's weighted algorithms see it; the property is what LightRAG reads.
    * Batch reads leave missing items out (``get_nodes_batch``, ``get_edges_batch``);
      ``node_degrees_batch`` and ``edge_degrees_batch`` give 0 for a missing node. Every batch
      method is one native batch call (one snapshot, one transaction for writes), never a loop
      of single calls; a batch write is atomic.
    * ``get_knowledge_graph`` is NetworkXStorage's, rule for rule, computed natively: ``'*'``
      keeps the ``max_nodes`` nodes of highest degree (ties by label ascending) with the edges
      among them, ``is_truncated`` when the graph has more nodes; a label gives the BFS subgraph
      to ``max_depth``, each level ranked by degree then label, ``is_truncated`` only when
      ``max_nodes`` cut something; an unknown label gives an empty graph. ``max_nodes`` defaults
      to and is capped at ``global_config["max_graph_nodes"]`` (1000 if absent); a negative
      ``max_depth`` or ``max_nodes`` counts as 0. Nodes and edges are built as NetworkXStorage
      builds them: node ``id`` and ``labels=[id]``, every attribute in ``properties``; edge
      ``source``/``target`` ordered so that ``source <= target`` as strings, ``id``
      ``"<source>-<target>"`` (the first of two edges with the same id is kept, as there),
      ``type="DIRECTED"``, every attribute in ``properties``. The order of the two lists is not
      NetworkX's (it lists nodes in insertion order); the base class leaves it unspecified.
    * ``get_all_labels`` sorts the node names; ``get_popular_labels`` ranks every node, isolated
      ones included, by degree descending then name ascending; ``search_labels`` scores
      case-insensitive substring matches as NetworkXStorage does (exact 1000, prefix 500, else
      ``100 - len`` plus 50 after a space or underscore) and sorts by score, then name.
    * ``get_all_nodes`` gives every node's attributes plus ``id``; ``get_all_edges`` every edge
      once, its attributes plus ``source`` and ``target`` (the graph being undirected, which
      endpoint is ``source`` is arbitrary, as with NetworkX, which lists from the endpoint
      inserted first; the order of both lists is unspecified).

Where the reference backends disagree
    * An edge upsert naming a missing endpoint: NetworkX creates the endpoint with no
      attributes, Neo4j's ``MATCH ... MERGE`` silently writes nothing. HopDB creates the endpoint
      (NetworkX's behaviour), so no edge is ever dropped without a word.
    * Self-loops: LightRAG itself never writes one (extraction drops them, graph edits refuse
      them), but the storage layer accepts them and the backends differ: NetworkX stores the loop
      (degree 2, listed once by ``get_node_edges``), while how a Cypher backend's undirected
      pattern counts a loop is up to its engine. HopDB stores it and answers as NetworkX does.
    * Attribute values: NetworkXStorage refuses what GraphML cannot encode (``None``, lists,
      dicts, bytes, XML-invalid characters) and Neo4j what its driver cannot pack. HopDB refuses
      only what it cannot store (an int outside 64 bits, a non-string attribute name): ``None``,
      bytes, lists and dicts are stored as given, so no rewrite of a stored object fails on them.
    * A node upsert without ``entity_id`` is stored (NetworkX); Neo4j refuses it.

Asyncio
    The storage methods are coroutines; the native calls release the GIL. Point calls run
    directly on the event loop: they take 5-40 us, and a hop through ``asyncio.to_thread``
    would add 30-60 us to each. So do batch calls up to 1023 items
    (:attr:`~_HopDBGraphStorageImpl.batch_thread_min_items`): the query path's batches of
    40-400 items take 0.1-2 ms natively, and at full scale the thread hop added 100-180 us to
    each (bench/pyapi/lightrag_fullscale.py), more than the overlap with other coroutines won
    back (on 20k nodes, 32 coroutines gained about a sixth from threading batches of 8 and
    more: bench/pyapi/lightrag_storage.py). Larger batches, whole-graph calls
    (``get_knowledge_graph``, ``get_all_*``, label listing and search, ``drop``) and opening
    the store run on a worker thread.

    Opening a store loads every node key into HopDB's in-memory key index on a background
    thread (HopDB does this for every store it opens: 0.25-0.3 s for 745,000 keys, within
    ``memory_mb``), so each item of a batch read costs one storage lookup instead of two.

    Label listing and search read the node keys alone (``Graph.node_keys``): from the cached
    projection when no write has landed since it was built, else from one scan of the nodes.
    ``get_knowledge_graph`` and ``get_popular_labels`` run on that projection, which the first
    such call after a write rebuilds (tens of milliseconds per 20k nodes and 50k edges).
"""

from __future__ import annotations

import asyncio
import logging
import math
import os
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Optional, TypeVar

import hopdb

if TYPE_CHECKING:
    from lightrag.types import KnowledgeGraph

# HopDBGraphStorage is built on first access (module __getattr__); it stays out of __all__ so
# that `from hopdb.lightrag import *` works without LightRAG.
__all__ = ["register", "STORAGE_NAME", "EDGE_TYPE"]

#: The name LightRAG knows the storage by (``LightRAG(graph_storage=STORAGE_NAME)``).
STORAGE_NAME = "HopDBGraphStorage"
#: The undirected HopDB edge type holding LightRAG's relations (the GraphML importer's type).
EDGE_TYPE = "RELATED"

logger = logging.getLogger("lightrag")  # LightRAG's own logger, as its backends use

T = TypeVar("T")


def register() -> type:
    """Registers :data:`STORAGE_NAME` with LightRAG's storage registry (idempotent) and
    returns the storage class; then ``LightRAG(..., graph_storage="HopDBGraphStorage")``
    works. Needs lightrag-hku installed."""
    cls = _storage_class()
    from lightrag import kg

    kg.STORAGES[STORAGE_NAME] = __name__
    impls = kg.STORAGE_IMPLEMENTATIONS["GRAPH_STORAGE"]["implementations"]
    if STORAGE_NAME not in impls:
        impls.append(STORAGE_NAME)
    env = getattr(kg, "STORAGE_ENV_REQUIREMENTS", None)
    if env is not None:
        env.setdefault(STORAGE_NAME, [])
    return cls


def __getattr__(name: str) -> Any:
    # PEP 562: `hopdb.lightrag.HopDBGraphStorage` builds the class on first access (LightRAG's
    # get_storage_class does `getattr(import_module("hopdb.lightrag"), "HopDBGraphStorage")`).
    if name == STORAGE_NAME:
        return _storage_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | {STORAGE_NAME})


# ---- open stores, shared per process -------------------------------------------------------

_stores_lock = threading.Lock()
#: path -> (store, use count).
_stores: dict[str, tuple[hopdb.Graph, int]] = {}


def _acquire(path: str, memory_mb: Optional[float] = None) -> hopdb.Graph:
    """The open store at `path` (opened and prepared on first use with `memory_mb` of caches
    and memtables), its use count raised."""
    with _stores_lock:
        if path in _stores:
            g, n = _stores[path]
            _stores[path] = (g, n + 1)
            return g
        g = hopdb.Graph(path, memory_mb=memory_mb)
        try:
            _ensure_edge_type(g)
        except BaseException:
            g.close()
            raise
        _stores[path] = (g, 1)
        return g


def _release(path: str) -> None:
    """Lowers the use count of the store at `path`; closes it at zero."""
    with _stores_lock:
        if path not in _stores:
            return
        g, n = _stores[path]
        if n > 1:
            _stores[path] = (g, n - 1)
            return
        del _stores[path]
    # Flushing the memtables on a clean close makes the next open replay no write-ahead log:
    # a reopen after 60k upserts measured 92-97 ms without, 44-64 ms with it.
    try:
        g.flush()
    finally:
        g.close()


def _ensure_edge_type(g: hopdb.Graph) -> None:
    """Declares the undirected relation type, or checks a store made elsewhere has it so."""
    for name, _count, undirected, _multi in g.edge_types():
        if name == EDGE_TYPE:
            if not undirected:
                raise hopdb.InvalidArgument(
                    f"{g.path}: edge type {EDGE_TYPE!r} is directed; LightRAG's graph is undirected"
                )
            return
    g.define_edge_type(EDGE_TYPE, undirected=True)


def _validate_name(name: str, what: str) -> str:
    """LightRAG's rule for workspace names, applied to workspace and namespace: one path
    component (``lightrag.utils.validate_workspace`` decides for the workspace when this
    LightRAG has it)."""
    if what == "workspace":
        try:
            from lightrag.utils import validate_workspace
        except ImportError:  # an older LightRAG: the same rule, below
            pass
        else:
            return str(validate_workspace(name))
    if "/" in name or "\\" in name or name in (".", ".."):
        raise ValueError(
            f"Invalid {what} name {name!r}: must not contain path separators ('/', '\\') "
            "or be a relative path reference ('.', '..')"
        )
    return name


def _weight(value: Any) -> Optional[float]:
    """The HopDB weight for a ``weight`` attribute: a finite number, else none."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            w = float(value)
        except OverflowError:  # an int past float's range
            return None
        if math.isfinite(w):
            return w
    return None


def _edge_input(src: str, dst: str, data: dict[str, Any]) -> tuple[str, str, str, Optional[float], dict[str, Any]]:
    return (src, EDGE_TYPE, dst, _weight(data.get("weight")), data)


def _search_score(name: str, query: str) -> Optional[int]:
    """NetworkXStorage.search_labels' relevance of `name` for the lower-cased, stripped
    `query`, or None when it does not match."""
    lower = name.lower()
    if query not in lower:
        return None
    if lower == query:
        return 1000
    if lower.startswith(query):
        return 500
    score = 100 - len(name)
    if f" {query}" in lower or f"_{query}" in lower:
        score += 50
    return score


# ---- the storage ---------------------------------------------------------------------------


class _HopDBGraphStorageImpl:
    """LightRAG graph storage on an embedded HopDB store (see the module documentation).

    The LightRAG-facing class, :class:`HopDBGraphStorage`, is this class mixed into
    ``lightrag.base.BaseGraphStorage`` (a dataclass with ``namespace``, ``workspace``,
    ``global_config`` and ``embedding_func``)."""

    namespace: str
    workspace: str
    global_config: dict[str, Any]

    #: Batch calls with at least this many items run on a worker thread, so their native part
    #: overlaps the event loop and other calls; smaller ones run on the loop, where the thread
    #: hop (100-180 us at full scale) would cost more than it gains. Settable per instance.
    batch_thread_min_items: int = 1024

    #: HopDB's caches and memtables for this store, in MiB (``hopdb.Graph(memory_mb=...)``): a
    #: LightRAG server process holds about 135 MB of its own, and the whole process should stay
    #: near 256 MB. Settable per instance before ``initialize()``; None takes HopDB's default.
    memory_mb: Optional[float] = 64.0

    def __post_init__(self) -> None:
        _validate_name(self.workspace or "", "workspace")
        _validate_name(self.namespace, "namespace")
        working_dir = self.global_config["working_dir"]
        if self.workspace:
            workspace_dir = os.path.join(working_dir, self.workspace)
        else:
            workspace_dir = working_dir
            self.workspace = ""
        os.makedirs(workspace_dir, exist_ok=True)
        self._path = os.path.realpath(os.path.join(workspace_dir, f"graph_{self.namespace}.hopdb"))
        self._graph: Optional[hopdb.Graph] = None

    # -- lifecycle --

    @property
    def store_path(self) -> str:
        """The directory of this storage's HopDB store."""
        return self._path

    @property
    def graph(self) -> hopdb.Graph:
        """The open :class:`hopdb.Graph` (for HopDB's own traversals and algorithms)."""
        if self._graph is None:
            raise hopdb.ClosedError(f"[{self.workspace}] HopDBGraphStorage is not initialized: call initialize() first")
        return self._graph

    async def initialize(self) -> None:
        """Opens the store (creating it if needed); :class:`hopdb.StoreLocked` if another
        process has it open for writing. Idempotent."""
        if self._graph is None:
            self._graph = await asyncio.to_thread(_acquire, self._path, self.memory_mb)
            g = self._graph
            logger.info(f"[{self.workspace}] HopDB graph {self._path}: {g.node_count()} nodes, {g.edge_count()} edges")

    async def finalize(self) -> None:
        """Closes the store (the last instance sharing it in this process closes it)."""
        if self._graph is not None:
            self._graph = None
            await asyncio.to_thread(_release, self._path)

    async def index_done_callback(self) -> None:
        """Nothing to do: every write was durable when it returned."""
        return None

    async def drop(self) -> dict[str, str]:
        """Deletes every node and edge in one atomic, durable transaction. Never raises: the
        result is ``{"status": "success" | "error", "message": ...}``."""
        try:
            acquired = self._graph is None
            g = await asyncio.to_thread(_acquire, self._path, self.memory_mb) if acquired else self._graph
            assert g is not None
            try:
                await asyncio.to_thread(_drop_all, g)
            finally:
                if acquired:
                    await asyncio.to_thread(_release, self._path)
            logger.info(f"[{self.workspace}] Process {os.getpid()} dropped HopDB graph {self._path}")
            return {"status": "success", "message": "data dropped"}
        except Exception as e:  # the contract: report, never raise
            logger.error(f"[{self.workspace}] Error dropping HopDB graph {self._path}: {e}")
            return {"status": "error", "message": str(e)}

    # -- point reads --

    async def has_node(self, node_id: str) -> bool:
        """Whether the node exists."""
        return self.graph.has_node(node_id)

    async def has_edge(self, source_node_id: str, target_node_id: str) -> bool:
        """Whether the two nodes are linked (either order)."""
        return self.graph.has_edge(source_node_id, target_node_id, EDGE_TYPE)

    async def get_node(self, node_id: str) -> Optional[dict[str, Any]]:
        """The node's attributes (a fresh dict), or None."""
        n = self.graph.node(node_id)
        return None if n is None else n["props"]

    async def node_degree(self, node_id: str) -> int:
        """The node's edge count (a self-loop counts twice); 0 if it is missing."""
        d = self.graph.degrees([node_id], "both", EDGE_TYPE)[0]
        return 0 if d is None else d[0]

    async def edge_degree(self, src_id: str, tgt_id: str) -> int:
        """The sum of the two nodes' degrees."""
        return sum(0 if d is None else d[0] for d in self.graph.degrees([src_id, tgt_id], "both", EDGE_TYPE))

    async def get_edge(self, source_node_id: str, target_node_id: str) -> Optional[dict[str, Any]]:
        """The attributes of the edge between the two nodes (either order), or None."""
        e = self.graph.edge(source_node_id, target_node_id, EDGE_TYPE)
        return None if e is None else e["props"]

    async def get_node_edges(self, source_node_id: str) -> Optional[list[tuple[str, str]]]:
        """The node's edges as ``(node, neighbour)``; ``[]`` if isolated, None if missing."""
        # One edge per unordered pair: the distinct neighbours are the edges (a self-loop is
        # listed once, as NetworkX lists it). Keys only: no property is decoded.
        nbrs = self.graph.neighbors_of([source_node_id], "both", EDGE_TYPE)[0]
        return None if nbrs is None else [(source_node_id, n) for n in nbrs]

    # -- batch reads (on a worker thread from batch_thread_min_items items on) --

    async def get_nodes_batch(self, node_ids: list[str]) -> dict[str, dict[str, Any]]:
        """``{id: attributes}`` for the nodes that exist (one native batch read)."""
        ids = list(node_ids)

        def run(g: hopdb.Graph) -> dict[str, dict[str, Any]]:
            return {k: n["props"] for k, n in zip(ids, g.nodes(ids)) if n is not None}

        return await self._batch(len(ids), run)

    async def has_nodes_batch(self, node_ids: list[str]) -> set[str]:
        """The ids that exist (one native batch read)."""
        ids = list(node_ids)

        def run(g: hopdb.Graph) -> set[str]:
            # Degrees come from counters: cheaper than decoding the nodes; None means absent.
            return {k for k, d in zip(ids, g.degrees(ids, "both", EDGE_TYPE)) if d is not None}

        return await self._batch(len(ids), run)

    async def node_degrees_batch(self, node_ids: list[str]) -> dict[str, int]:
        """``{id: degree}``, 0 for a missing node (one native batch read)."""
        ids = list(node_ids)
        return await self._batch(len(ids), lambda g: _degrees(g, ids))

    async def edge_degrees_batch(self, edge_pairs: list[tuple[str, str]]) -> dict[tuple[str, str], int]:
        """``{(src, tgt): degree(src) + degree(tgt)}`` (one native batch read of the distinct ids)."""
        pairs = list(edge_pairs)

        def run(g: hopdb.Graph) -> dict[tuple[str, str], int]:
            deg = _degrees(g, list(dict.fromkeys(k for pair in pairs for k in pair)))
            return {(s, t): deg[s] + deg[t] for s, t in pairs}

        return await self._batch(len(pairs), run)

    async def get_edges_batch(self, pairs: list[dict[str, str]]) -> dict[tuple[str, str], dict[str, Any]]:
        """``{(src, tgt): attributes}`` for the ``{"src", "tgt"}`` pairs linked in either order."""
        keys = [(p["src"], p["tgt"]) for p in pairs]

        def run(g: hopdb.Graph) -> dict[tuple[str, str], dict[str, Any]]:
            return {k: e["props"] for k, e in zip(keys, g.edges_between(keys, EDGE_TYPE)) if e is not None}

        return await self._batch(len(keys), run)

    async def get_nodes_edges_batch(self, node_ids: list[str]) -> dict[str, list[tuple[str, str]]]:
        """``{id: [(id, neighbour), ...]}``, ``[]`` for a missing node (one native batch read)."""
        ids = list(node_ids)

        def run(g: hopdb.Graph) -> dict[str, list[tuple[str, str]]]:
            got = g.neighbors_of(ids, "both", EDGE_TYPE)
            return {k: [(k, n) for n in nbrs or ()] for k, nbrs in zip(ids, got)}

        return await self._batch(len(ids), run)

    # -- writes (each one atomic and durable when it returns) --

    async def upsert_node(self, node_id: str, node_data: dict[str, Any]) -> None:
        """Creates the node or merges `node_data` into its attributes."""
        self.graph.upsert_node(node_id, (), node_data)

    async def upsert_nodes_batch(self, nodes: list[tuple[str, dict[str, Any]]]) -> None:
        """``upsert_node`` for each ``(id, data)``, in order, in one atomic transaction."""
        items = [(k, (), data) for k, data in nodes]
        if items:
            await self._batch(len(items), lambda g: g.upsert_nodes(items))

    async def upsert_edge(self, source_node_id: str, target_node_id: str, edge_data: dict[str, Any]) -> None:
        """Creates the undirected edge (and missing endpoints) or merges `edge_data` into it."""
        self.graph.upsert_edge(*_edge_input(source_node_id, target_node_id, edge_data))

    async def upsert_edges_batch(self, edges: list[tuple[str, str, dict[str, Any]]]) -> None:
        """``upsert_edge`` for each ``(src, tgt, data)``, in order, in one atomic transaction."""
        items = [_edge_input(s, t, data) for s, t, data in edges]
        if items:
            await self._batch(len(items), lambda g: g.upsert_edges(items))

    async def delete_node(self, node_id: str) -> None:
        """Deletes the node and its edges (a warning if it is missing)."""
        if self.graph.delete_node(node_id):
            logger.debug(f"[{self.workspace}] Node {node_id} deleted from the graph")
        else:
            logger.warning(f"[{self.workspace}] Node {node_id} not found in the graph for deletion")

    async def remove_nodes(self, nodes: list[str]) -> None:
        """Deletes the nodes and their edges in one atomic transaction; missing ones are skipped."""
        keys = list(nodes)
        if keys:
            await self._batch(len(keys), lambda g: g.delete_nodes(keys))

    async def remove_edges(self, edges: list[tuple[str, str]]) -> None:
        """Deletes the edges between the pairs (either order) in one atomic transaction."""
        items = [(s, EDGE_TYPE, t) for s, t in edges]
        if items:
            await self._batch(len(items), lambda g: g.delete_edges(items))

    # -- whole-graph reads (on a worker thread) --

    async def get_all_labels(self) -> list[str]:
        """Every node id, sorted."""
        return await self._offload(lambda g: sorted(str(k) for k in _all_keys(g)))

    async def get_popular_labels(self, limit: int = 300) -> list[str]:
        """The `limit` ids of highest degree, ties by id; isolated nodes rank last."""
        def run(g: hopdb.Graph) -> list[str]:
            if limit >= 0:
                return [str(k) for k in g.knowledge_graph(None, 0, limit)["nodes"]]
            ranked = [str(k) for k in g.knowledge_graph(None, 0, g.node_count())["nodes"]]
            return ranked[:limit]

        labels = await self._offload(run)
        logger.debug(f"[{self.workspace}] Retrieved {len(labels)} popular labels (limit: {limit})")
        return labels

    async def search_labels(self, query: str, limit: int = 50) -> list[str]:
        """Ids containing `query` (case-insensitively), best match first, as NetworkXStorage ranks them."""
        q = query.lower().strip()
        if not q:
            return []

        def run(g: hopdb.Graph) -> list[str]:
            matches = []
            for k in _all_keys(g):
                name = str(k)
                score = _search_score(name, q)
                if score is not None:
                    matches.append((name, score))
            matches.sort(key=lambda m: (-m[1], m[0]))
            return [name for name, _ in matches[:limit]]

        found = await self._offload(run)
        logger.debug(f"[{self.workspace}] Search query '{query}' returned {len(found)} results (limit: {limit})")
        return found

    async def get_all_nodes(self) -> list[dict[str, Any]]:
        """Every node's attributes plus ``id``."""
        return await self._offload(lambda g: [dict(n["props"], id=n["key"]) for n in g.all_nodes()])

    async def get_all_edges(self) -> list[dict[str, Any]]:
        """Every edge once: its attributes plus ``source`` and ``target``."""
        return await self._offload(_all_edges)

    async def get_knowledge_graph(
        self, node_label: str, max_depth: int = 3, max_nodes: Optional[int] = None
    ) -> "KnowledgeGraph":
        """The subgraph around `node_label` (``'*'``: the highest-degree nodes), as
        NetworkXStorage.get_knowledge_graph answers (see the module documentation)."""
        cap = self.global_config.get("max_graph_nodes", 1000)
        max_nodes = cap if max_nodes is None else min(max_nodes, cap)
        depth = min(max(0, max_depth), 2**32 - 1)  # the native call takes a u32
        kg = await self._offload(lambda g: _knowledge_graph(g, node_label, depth, max(0, max_nodes)))
        if node_label != "*" and not kg.nodes and not kg.is_truncated:
            logger.warning(f"[{self.workspace}] Node {node_label} not found in the graph")
        elif kg.is_truncated:
            logger.info(f"[{self.workspace}] Graph truncated: max_nodes limit {max_nodes} reached")
        logger.info(
            f"[{self.workspace}] Subgraph query successful | Node count: {len(kg.nodes)} | Edge count: {len(kg.edges)}"
        )
        return kg

    async def _batch(self, items: int, fn: Callable[[hopdb.Graph], T]) -> T:
        """Runs `fn(graph)` for a batch call of `items` items: directly on the event loop when
        small, on a worker thread from :attr:`batch_thread_min_items` on."""
        g = self.graph
        if items < self.batch_thread_min_items:
            return fn(g)
        return await asyncio.to_thread(fn, g)

    async def _offload(self, fn: Callable[[hopdb.Graph], T]) -> T:
        """Runs `fn(graph)` on a worker thread (whole-graph work: keeps the event loop free)."""
        g = self.graph
        return await asyncio.to_thread(fn, g)


def _degrees(g: hopdb.Graph, keys: list[str]) -> dict[str, int]:
    """``{key: degree}`` in one native call; 0 for a missing node."""
    return {k: 0 if d is None else d[0] for k, d in zip(keys, g.degrees(keys, "both", EDGE_TYPE))}


def _all_keys(g: hopdb.Graph) -> list[Any]:
    """Every node key (``Graph.node_keys``, native: the keys alone, from the cached projection
    or one scan; ``all_nodes`` would decode every property too)."""
    return g.node_keys()  # type: ignore[attr-defined,no-any-return]


def _all_edges(g: hopdb.Graph) -> list[dict[str, Any]]:
    """Every edge once (listed from the endpoint that comes first in `node_keys` order)."""
    keys = _all_keys(g)
    pos = {k: i for i, k in enumerate(keys)}
    out = []
    for i, (k, edges) in enumerate(zip(keys, g.edges_of(keys, "both", EDGE_TYPE))):
        for e in edges or ():
            other = e["dst"] if e["src"] == k else e["src"]
            if pos[other] >= i:
                out.append(dict(e["props"], source=k, target=other))
    return out


def _drop_all(g: hopdb.Graph) -> None:
    keys = _all_keys(g)
    if keys:
        g.delete_nodes(keys)


def _knowledge_graph(g: hopdb.Graph, label: str, max_depth: int, max_nodes: int) -> "KnowledgeGraph":
    """NetworkXStorage.get_knowledge_graph's answer, from HopDB's native LightRAG BFS /
    top-degree selection (``Graph.knowledge_graph``)."""
    from lightrag.types import KnowledgeGraph, KnowledgeGraphEdge, KnowledgeGraphNode

    try:
        sub = g.knowledge_graph(None if label == "*" else label, max_depth, max_nodes)
    except hopdb.NotFound:
        return KnowledgeGraph()
    result = KnowledgeGraph(is_truncated=sub["truncated"])
    keys = sub["nodes"]
    for key, node in zip(keys, g.nodes(keys)):
        if node is not None:  # deleted since the selection
            result.nodes.append(KnowledgeGraphNode(id=str(key), labels=[str(key)], properties=node["props"]))
    pairs = []
    for a, b in sub["edges"]:
        pairs.append((b, a) if str(a) > str(b) else (a, b))
    seen: set[str] = set()
    for (a, b), edge in zip(pairs, g.edges_between(pairs, EDGE_TYPE)):
        edge_id = f"{a}-{b}"
        if edge is None or edge_id in seen:
            continue
        seen.add(edge_id)
        result.edges.append(
            KnowledgeGraphEdge(id=edge_id, type="DIRECTED", source=str(a), target=str(b), properties=edge["props"])
        )
    return result


_built: Optional[type] = None
_build_lock = threading.Lock()


def _storage_class() -> type:
    """Builds (once) ``HopDBGraphStorage``: the implementation mixed into LightRAG's
    ``BaseGraphStorage`` dataclass."""
    global _built
    with _build_lock:
        if _built is None:
            try:
                from lightrag.base import BaseGraphStorage
            except ImportError as e:
                raise ImportError(
                    "hopdb.lightrag.HopDBGraphStorage needs LightRAG: pip install lightrag-hku"
                ) from e

            @dataclass
            class HopDBGraphStorage(_HopDBGraphStorageImpl, BaseGraphStorage):  # type: ignore[misc,valid-type]
                pass

            HopDBGraphStorage.__doc__ = _HopDBGraphStorageImpl.__doc__
            HopDBGraphStorage.__module__ = __name__
            HopDBGraphStorage.__qualname__ = STORAGE_NAME
            _built = HopDBGraphStorage
        return _built
