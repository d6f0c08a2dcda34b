"""NetworkX: a plain nx.DiGraph built from the CSV files at every run (node attributes as the
CSV's typed columns, each edge's `type` as an attribute), queried with the dict-of-dicts adjacency
(G.succ / G.pred) the way a NetworkX user writes it: filter by the edge's type, stop at the LIMIT,
dedupe with a dict, count with a Counter. Threads share the graph (the GIL serialises them)."""

import collections
import heapq
import importlib.metadata
import inspect
import time
from itertools import islice

from engines.nx_engine import NetworkX
from reference import Q1_PROPS, iter_edges, iter_nodes
from workload import LIMIT, TOP

from .base import Retrieval


class NetworkXRetrieval(Retrieval, NetworkX):
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
