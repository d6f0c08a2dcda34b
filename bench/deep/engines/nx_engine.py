"""NetworkX: the whole graph as an in-process nx.Graph (undirected), built from the CSV files.

Q8 is a breadth-first search from the seed that stops as soon as it has 100 distinct nodes
(levels 1..4). Q11 is nx.shortest_path_length (bidirectional BFS for an unweighted graph),
None when there is no path or the shortest is longer than MAX_HOPS. There is no database to
keep: the graph is built from the files at every run (open_s). Q8 checks the clock every 1,024
neighbours; nx.shortest_path_length cannot be interrupted, so a Q11 that returns after the timeout
is counted as timed out afterwards.
"""

import csv
import importlib.metadata
import os
import time

from .base import MAX_HOPS, Q8_HOPS, Q8_LIMIT, Engine, QueryTimeout, import_common


def build_graph(data):
    import networkx as nx

    common = import_common()
    csv.field_size_limit(1 << 30)
    G = nx.Graph()
    for f in common.NODE_FILES:
        with open(os.path.join(data, f), newline="", encoding="utf-8") as fh:
            rd = csv.reader(fh)
            next(rd)
            G.add_nodes_from(r[0] for r in rd)
    for f in common.EDGE_FILES:
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


class NetworkX(Engine):
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
