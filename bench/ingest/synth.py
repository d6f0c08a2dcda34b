"""The workload's data and answers, shared by run.py, worker.py and the tests (no database here).

Synthetic property graph (seeded, deterministic): N nodes with integer keys 0..N-1, label Node,
properties name (str), score (float), grp (int); about 4N directed edges, 60% RelA and 40% RelB;
HUBS hub nodes are the source of 10% of the edges and the target of another 10% (so each hub
has a large out- and in-degree), the rest have uniform random endpoints. Self-loops and
duplicate (src, type, dst) triples are dropped, so every engine stores the same simple graph.
"""

import random
import statistics

import numpy as np

EDGES_PER_NODE = 4
HUBS = 5
HUB_SHARE = 0.10  # of the edges leave a hub; as many more enter one
RELA_SHARE = 0.60
TYPES = ("RelA", "RelB")


class Graph:
    """Columns of the generated graph: nodes (numpy arrays) and edges (src, dst, type code)."""

    def __init__(self, n, hubs, name, score, grp, src, dst, typ):
        self.n, self.hubs = n, hubs
        self.name, self.score, self.grp = name, score, grp
        self.src, self.dst, self.typ = src, dst, typ

    @property
    def m(self):
        return len(self.src)

    def node_rows(self):
        """(key, props) per node, for row-by-row and batched writes."""
        for i in range(self.n):
            yield i, {"name": self.name[i], "score": float(self.score[i]), "grp": int(self.grp[i])}

    def edge_rows(self):
        """(src, type, dst) per edge."""
        for s, d, t in zip(self.src.tolist(), self.dst.tolist(), self.typ.tolist(), strict=False):
            yield s, TYPES[t], d

    def arrow(self):
        """(nodes, edges by type) as pyarrow tables."""
        import pyarrow as pa

        nodes = pa.table({"id": np.arange(self.n, dtype=np.int64), "name": self.name, "score": self.score, "grp": self.grp})
        edges = {t: pa.table({"src": self.src[self.typ == c], "dst": self.dst[self.typ == c]}) for c, t in enumerate(TYPES)}
        return nodes, edges


def generate(n, seed=7):
    rng = np.random.default_rng(seed)
    hubs = rng.choice(n, size=min(HUBS, n), replace=False).astype(np.int64)
    m = EDGES_PER_NODE * n
    src = rng.integers(0, n, m, dtype=np.int64)
    dst = rng.integers(0, n, m, dtype=np.int64)
    role = rng.random(m)
    out_hub, in_hub = role < HUB_SHARE, (role >= HUB_SHARE) & (role < 2 * HUB_SHARE)
    src[out_hub] = hubs[rng.integers(0, len(hubs), out_hub.sum())]
    dst[in_hub] = hubs[rng.integers(0, len(hubs), in_hub.sum())]
    typ = (rng.random(m) >= RELA_SHARE).astype(np.int64)
    keep = src != dst
    src, dst, typ = src[keep], dst[keep], typ[keep]
    # One edge per (src, type, dst), in a deterministic (sorted) order.
    _, first = np.unique((src * 2 + typ) * n + dst, return_index=True)
    first.sort()
    src, dst, typ = src[first], dst[first], typ[first]
    name = np.array([f"node-{i}" for i in range(n)], dtype=object)
    score = rng.random(n)
    grp = rng.integers(0, 100, n, dtype=np.int64)
    return Graph(n, hubs, name, score, grp, src, dst, typ)


def out_adjacency(g):
    """{type code or None (any): {src: [dst, ...]}} (pure Python, for the reference answers)."""
    adj = {None: {}, 0: {}, 1: {}}
    for s, d, t in zip(g.src.tolist(), g.dst.tolist(), g.typ.tolist(), strict=False):
        adj[None].setdefault(s, []).append(d)
        adj[t].setdefault(s, []).append(d)
    return adj


def star_hub(g):
    """The hub with the most outgoing RelA edges (ties: the smaller key)."""
    counts = {int(h): int(((g.src == h) & (g.typ == 0)).sum()) for h in g.hubs}
    return min(counts, key=lambda h: (-counts[h], h))


def bfs_start(g):
    """A fixed ordinary (non-hub) node with outgoing edges: the smallest such key."""
    hubs = set(g.hubs.tolist())
    return int(min(s for s in np.unique(g.src).tolist() if s not in hubs))


def star(adj, hub):
    return set(adj[0].get(hub, ()))


def bfs(adj, start, depth):
    """Distinct nodes within `depth` outgoing hops of `start` (any type), start excluded."""
    seen, frontier = {start}, [start]
    for _ in range(depth):
        nxt = []
        for u in frontier:
            for v in adj[None].get(u, ()):
                if v not in seen:
                    seen.add(v)
                    nxt.append(v)
        frontier = nxt
    return seen - {start}


def two_step(adj, start):
    """Distinct ends of start -RelA-> x -RelB-> end."""
    return {e for x in adj[0].get(start, ()) for e in adj[1].get(x, ())}


def reference(g, depth=3):
    """The answers every engine must give, from the generated edges."""
    adj = out_adjacency(g)
    hub, start = star_hub(g), bfs_start(g)
    return {
        "star": {"from": hub, "answer": sorted(star(adj, hub))},
        "bfs": {"from": start, "depth": depth, "count": len(bfs(adj, start, depth))},
        "two_step": {"from": hub, "answer": sorted(two_step(adj, hub))},
    }


def permutations(keys, rounds, seed=42):
    """The compaction workload's write order: each round every key once, newly shuffled."""
    rng = random.Random(seed)
    order = list(range(keys))
    for _ in range(rounds):
        rng.shuffle(order)
        yield list(order)


def ratio(hopdb, peer, higher_is_better=True):
    """HopDB/peer as 'how many times better HopDB is' (>1: HopDB ahead); None if undefined."""
    if not hopdb or not peer:
        return None
    return hopdb / peer if higher_is_better else peer / hopdb


def percentile(xs, p):
    """Nearest-rank percentile (p in 0..100) of a non-empty list."""
    s = sorted(xs)
    return s[max(0, min(len(s) - 1, -(-len(s) * p // 100) - 1))]


def median(xs):
    return statistics.median(xs)
