"""NetworkX, in memory, for every workload: the deep queries (NetworkXDeep, and build_graph for
bench/deep's answer check), the retrieval mix (NetworkXRetrieval), the UnumDB suite
(NetworkXUnum, also its reference answers), the Cozo suite (NetworkXCozoSuite) and the LightRAG
call mix (NetworkXLightRAG). There is no database: each builds its graph from the files.
"""

import collections
import csv
import heapq
import importlib.metadata
import inspect
import os
import time
from itertools import islice

from bench.benchlib import EDGE_FILES, NODE_FILES
from bench.deep.workload import MAX_HOPS, Q8_HOPS, Q8_LIMIT
from bench.retrieval.reference import Q1_PROPS, iter_edges, iter_nodes
from bench.retrieval.workload import LIMIT, TOP

from .base import KGEngine, QueryTimeout, Retrieval, Skip, Unavailable, UnumEngine

# ---------------------------------------------------------------------------------------------
# Deep queries Q8 and Q11 (bench/deep)


def build_graph(data):
    """The knowledge graph's CSV files as an undirected nx.Graph."""
    import networkx as nx

    csv.field_size_limit(1 << 30)
    G = nx.Graph()
    for f in NODE_FILES:
        with open(os.path.join(data, f), newline="", encoding="utf-8") as fh:
            rd = csv.reader(fh)
            next(rd)
            G.add_nodes_from(r[0] for r in rd)
    for f in EDGE_FILES:
        with open(os.path.join(data, f), newline="", encoding="utf-8") as fh:
            rd = csv.reader(fh)
            next(rd)
            G.add_edges_from((r[0], r[1]) for r in rd)
    return G


def bfs_limit(adj, seed, hops=Q8_HOPS, limit=Q8_LIMIT, deadline=None):
    """Distinct nodes within 1..hops of seed, nearest first, at most `limit`."""
    seen = {seed}
    out = []
    frontier = [seed]
    n = 0
    for _ in range(hops):
        nxt = []
        for u in frontier:
            for v in adj[u]:
                n += 1
                if deadline is not None and not n & 1023 and time.perf_counter() > deadline:
                    raise QueryTimeout()
                if v not in seen:
                    seen.add(v)
                    out.append(v)
                    if len(out) >= limit:
                        return out
                    nxt.append(v)
        frontier = nxt
    return out


class NetworkXDeep(KGEngine):
    """The whole graph as an in-process nx.Graph (undirected), built from the CSV files.

    Q8 is a breadth-first search from the seed that stops as soon as it has 100 distinct nodes
    (levels 1..4). Q11 is nx.shortest_path_length (bidirectional BFS for an unweighted graph),
    None when there is no path or the shortest is longer than MAX_HOPS. There is no database to
    keep: the graph is built from the files at every run (open_s). Q8 checks the clock every 1,024
    neighbours; nx.shortest_path_length cannot be interrupted, so a Q11 that returns after the
    timeout is counted as timed out afterwards."""

    name = "networkx"

    def probe(self):
        import networkx  # noqa: F401

        return f"NetworkX {importlib.metadata.version('networkx')} (nx.Graph in-process)"

    def prepare(self, data, cache, reload):
        t = time.perf_counter()
        self.G = build_graph(data)
        open_s = time.perf_counter() - t
        return {"load_s": None, "open_s": open_s, "notes": f"nx.Graph built from the CSV files in {open_s:.1f} s at every run (nothing kept)"}

    def q8(self, seed, timeout_ms):
        return bfs_limit(self.G.adj, seed, deadline=time.perf_counter() + timeout_ms / 1000)

    def q11(self, a, b, timeout_ms):
        import networkx as nx

        t = time.perf_counter()
        try:
            d = nx.shortest_path_length(self.G, a, b)
        except nx.NetworkXNoPath:
            d = None
        if time.perf_counter() - t > timeout_ms / 1000:
            raise QueryTimeout()
        return d if d is not None and d <= MAX_HOPS else None


# ---------------------------------------------------------------------------------------------
# Retrieval mix Q1-Q7 (bench/retrieval, bench/sweep)


class NetworkXRetrieval(Retrieval, NetworkXDeep):
    """A plain nx.DiGraph built from the CSV files at every run (node attributes as the CSV's typed
    columns, each edge's `type` as an attribute), queried with the dict-of-dicts adjacency
    (G.succ / G.pred) the way a NetworkX user writes it: filter by the edge's type, stop at the
    LIMIT, dedupe with a dict, count with a Counter. Threads share the graph (the GIL serialises
    them)."""

    def probe(self):
        import networkx  # noqa: F401

        return f"NetworkX {importlib.metadata.version('networkx')} (nx.DiGraph in-process)"

    def prepare(self, data, cache, reload):
        import networkx as nx

        t = time.perf_counter()
        G = nx.DiGraph()
        G.add_nodes_from((k, dict(p, label=label)) for k, label, p in iter_nodes(data))
        G.add_edges_from((s, d, {"type": ty}) for s, d, ty in iter_edges(data))
        self.G = G
        open_s = time.perf_counter() - t
        return {"load_s": None, "open_s": open_s, "notes": f"nx.DiGraph with attributes built from the CSV files in {open_s:.1f} s (nothing kept)"}

    def _nbrs(self, adj, k, ty, limit=None):
        return list(islice((v for v, a in adj.get(k, {}).items() if a["type"] == ty), limit))

    def q1(self, c):
        a = self.G.nodes.get(c)
        return None if a is None else tuple(a.get(p) for p in Q1_PROPS)

    def q2(self, c):
        return self._nbrs(self.G.succ, c, "MENTIONS", LIMIT)

    def q3(self, e):
        return self._nbrs(self.G.pred, e, "MENTIONS", LIMIT)

    def q4(self, c):
        out = {}
        for e in self._nbrs(self.G.succ, c, "MENTIONS"):
            for o in self._nbrs(self.G.pred, e, "MENTIONS"):
                if o != c:
                    out[o] = None
                    if len(out) == LIMIT:
                        return list(out)
        return list(out)

    def q5(self, d):
        return self._nbrs(self.G.succ, d, "HAS_CHUNK")

    def q6(self, c):
        n = collections.Counter(o for e in self._nbrs(self.G.succ, c, "MENTIONS") for o in self._nbrs(self.G.pred, e, "MENTIONS") if o != c)
        return heapq.nsmallest(TOP, n.items(), key=lambda x: (-x[1], x[0]))

    def q7(self, es):
        chunks = dict.fromkeys(c for e in es for c in self._nbrs(self.G.pred, e, "MENTIONS"))
        out = {}
        for c in chunks:
            for f in self._nbrs(self.G.succ, c, "MENTIONS"):
                out[f] = None
                if len(out) == LIMIT:
                    return list(out)
        return list(out)

    def query_text(self):
        return {k: inspect.getsource(getattr(type(self), k)) for k in ("_nbrs", "q1", "q2", "q3", "q4", "q5", "q6", "q7")}


# ---------------------------------------------------------------------------------------------
# UnumDB suite (bench/unum)


class NetworkXUnum(UnumEngine):
    """A DiGraph in memory (no durability). Import: the csv module into add_weighted_edges_from. Its
    answers are the reference the other engines are checked against (bench/unum/run.py computes
    them in-process with this class)."""

    durability = "none (in memory)"
    notes = "DiGraph; add_weighted_edges_from; adjacency dicts"

    def version(self):
        try:
            return f"NetworkX {importlib.metadata.version('networkx')}"
        except importlib.metadata.PackageNotFoundError:
            raise Unavailable("networkx is not installed") from None

    def open(self, work):
        import networkx

        self.g = networkx.DiGraph()

    def load(self, csv_path):
        with open(csv_path, newline="") as f:
            r = csv.reader(f)
            next(r)
            self.g.add_weighted_edges_from((int(s), int(d), float(w)) for s, d, w in r)

    def disk_bytes(self):
        return None

    def find_edge(self, u, v):
        return self.g.has_edge(u, v) or self.g.has_edge(v, u)

    def find_directed(self, u, v):
        return self.g.has_edge(u, v)

    def edges_of(self, v):
        return list(self.g.out_edges(v, data="weight")) + list(self.g.in_edges(v, data="weight"))

    def in_edges(self, v):
        return list(self.g.in_edges(v, data="weight"))

    def neighbors(self, v):
        return list(set(self.g.successors(v)) | set(self.g.predecessors(v)))

    def count_out(self, v):
        adj = self.g.succ[v]
        return len(adj), sum(a["weight"] for a in adj.values())

    def count_in(self, v):
        adj = self.g.pred[v]
        return len(adj), sum(a["weight"] for a in adj.values())

    def upsert(self, u, v, w):
        self.g.add_edge(u, v, weight=w)

    def upsert_batch(self, rows):
        self.g.add_weighted_edges_from(rows)

    def remove(self, u, v):
        self.g.remove_edge(u, v)

    def remove_batch(self, pairs):
        self.g.remove_edges_from(pairs)

    def edge_count(self):
        return self.g.number_of_edges()


# ---------------------------------------------------------------------------------------------
# Cozo suite (bench/cozo_suite)


class NetworkXCozoSuite:
    """A DiGraph or Graph in memory: add_nodes_from + add_edges_from, dict access, k-hop by
    single_source_shortest_path_length, nx.pagerank; no backup."""

    name = "networkx"
    multi_process = None  # a Python object in this process's memory

    def __init__(self, work, data, path=None):
        import networkx as nx

        self.nx, self.data, self.G = nx, data, None

    @staticmethod
    def version():
        import networkx as nx

        return f"NetworkX {nx.__version__} (in memory, pure Python)"

    def load(self):
        d = self.data
        self.G = self.nx.DiGraph() if d.directed else self.nx.Graph()
        self.G.add_nodes_from((k, d.node_props(i)) for i, k in enumerate(d.keys))
        self.G.add_edges_from(zip(d.src, d.dst, strict=False))
        self.U = self.G.to_undirected(as_view=True) if d.directed else self.G
        return "add_nodes_from + add_edges_from (in memory, nothing durable)"

    def counts(self):
        return self.G.number_of_nodes(), self.G.number_of_edges()

    def read(self, key):
        return dict(self.G.nodes[key]) if key in self.G else None

    def write(self, key, props):
        self.G.add_node(key, **props)

    def update(self, key, prop, value):
        self.G.nodes[key][prop] = value

    def khop(self, key, k, timeout):
        # no way to interrupt: a query that ran past the timeout is counted as timed out afterwards
        t0 = time.perf_counter()
        n = len(self.nx.single_source_shortest_path_length(self.U, key, cutoff=k)) - 1
        return n if time.perf_counter() - t0 <= timeout else None

    def group_by(self, prop):
        out = {}
        deg = self.U.degree
        for n, v in self.G.nodes(data=prop):
            c = out.setdefault(v, [0, 0])
            c[0] += 1
            c[1] += deg[n]
        return out

    def pagerank(self):
        return self.nx.pagerank(self.G, alpha=0.85, max_iter=100, tol=1e-6)

    def backup(self, dest):
        raise Skip("in-memory library: no backup/restore")

    def restore(self, src, path):
        raise Skip("in-memory library: no backup/restore")

    def close(self):
        self.G = None


# ---------------------------------------------------------------------------------------------
# LightRAG call mix (bench/sweep)


class NetworkXLightRAG:
    """The five calls on NetworkXRetrieval's nx.DiGraph the way LightRAG's NetworkXStorage makes
    them (node attribute dicts, degree = in + out). Threads share the graph; the GIL serialises them."""

    def __init__(self, G):
        self.G = G

    def fork(self):
        return self

    def release(self):
        pass

    def get_node(self, e):
        a = self.G.nodes.get(e)
        return None if a is None else dict(a)

    def get_node_edges(self, e):
        if e not in self.G:
            return None
        return [(e, v) for v in self.G.succ[e]] + [(u, e) for u in self.G.pred[e]]

    def upsert_node(self, e):
        self.G.add_node(e, **dict(self.G.nodes[e]))

    def node_degree(self, e):
        return self.G.degree(e)

    def has_node(self, e):
        return self.G.has_node(e)
