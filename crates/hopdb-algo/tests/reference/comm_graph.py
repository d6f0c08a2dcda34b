"""Shared by the comm_*.py reference scripts: the symmetrised weighted graph HopDB's community
code works on, built the same way for NetworkX and igraph.

Each line `u v [w]` of the TSV adds w (default 1) to the undirected edge {u, v}; a line
`u u [w]` adds w to the loop at u. NetworkX gets a simple Graph with summed weights; igraph
keeps every line as an edge (multi-edges), which gives the same modularity.
"""
import networkx as nx
import igraph as ig

from refgraph import read_tsv


def load(path, n=None):
    edges, weights = read_tsv(path)
    if weights is None:
        weights = [1.0] * len(edges)
    if n is None:
        n = 1 + max((max(s, d) for s, d in edges), default=-1)
    return n, edges, weights


def nx_graph(n, edges, weights):
    G = nx.Graph()
    G.add_nodes_from(range(n))
    for (u, v), w in zip(edges, weights):
        if G.has_edge(u, v):
            G[u][v]["weight"] += w
        else:
            G.add_edge(u, v, weight=w)
    return G


def ig_graph(n, edges, weights, simplify=False):
    g = ig.Graph(n=n, edges=edges, directed=False)
    g.es["weight"] = weights
    if simplify:
        # Merge parallel edges (summing weights) but keep loops: same modularity, faster runs.
        g.simplify(multiple=True, loops=False, combine_edges="sum")
    return g


def communities(membership):
    groups = {}
    for v, c in enumerate(membership):
        groups.setdefault(c, []).append(v)
    return list(groups.values())


def read_labels(path):
    with open(path) as f:
        return [int(x) for x in f.read().split()]
