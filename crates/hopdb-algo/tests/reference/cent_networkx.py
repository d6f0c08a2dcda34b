"""NetworkX betweenness and degree centrality, optionally the k-pivot estimate for given pivots.

usage: cent_networkx.py EDGES.tsv N directed|undirected weighted|unweighted [PIVOTS.txt]
The graph is NetworkX's simple graph of the edge list: DiGraph or Graph, a pair joined by
several edges keeps the smallest weight. Without PIVOTS prints {"normalized": [...],
"raw": [...], "degree": [...], "in_degree": [...], "out_degree": [...]} (betweenness_centrality
with normalized=True/False, endpoints=False); with PIVOTS (one node per line) prints
{"normalized": [...], "raw": [...]}: what betweenness_centrality(G, k=len(pivots)) returns when
its random sample is exactly these pivots (NetworkX's own accumulation and _rescale).
"""
import json
import sys

import networkx as nx
from networkx.algorithms.centrality import betweenness as nxb

from refgraph import read_tsv

path, n, mode, weighting = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
directed, weighted = mode == "directed", weighting == "weighted"
edges, weights = read_tsv(path)
G = nx.DiGraph() if directed else nx.Graph()
G.add_nodes_from(range(n))
for i, (u, v) in enumerate(edges):
    w = weights[i] if weighted else 1.0
    if G.has_edge(u, v):
        G[u][v]["weight"] = min(G[u][v]["weight"], w)
    else:
        G.add_edge(u, v, weight=w)
weight = "weight" if weighted else None


def as_list(d):
    return [d[v] for v in range(n)]


out = {}
if len(sys.argv) > 5:
    with open(sys.argv[5]) as f:
        pivots = [int(x) for x in f.read().split()]
    raw = dict.fromkeys(G, 0.0)
    for s in pivots:
        if weight is None:
            S, P, sigma, _ = nxb._single_source_shortest_path_basic(G, s)
        else:
            S, P, sigma, _ = nxb._single_source_dijkstra_path_basic(G, s, weight)
        raw, _ = nxb._accumulate_basic(raw, S, P, sigma, s)
    for norm in (True, False):
        scaled = nxb._rescale(dict(raw), n, normalized=norm, directed=directed, endpoints=False,
                              sampled_nodes=pivots)
        out["normalized" if norm else "raw"] = as_list(scaled)
else:
    out["normalized"] = as_list(nx.betweenness_centrality(G, normalized=True, weight=weight))
    out["raw"] = as_list(nx.betweenness_centrality(G, normalized=False, weight=weight))
    # Degree centrality counts every edge of the list (a MultiGraph), loops twice.
    M = nx.MultiDiGraph() if directed else nx.MultiGraph()
    M.add_nodes_from(range(n))
    M.add_edges_from(edges)
    out["degree"] = as_list(nx.degree_centrality(M))
    if directed:
        out["in_degree"] = as_list(nx.in_degree_centrality(M))
        out["out_degree"] = as_list(nx.out_degree_centrality(M))
json.dump(out, sys.stdout)
