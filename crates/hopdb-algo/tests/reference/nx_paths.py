"""Shortest-path references from NetworkX.

usage:
  nx_paths.py lengths EDGES.tsv directed|undirected S-T,S-T,...   -> [len or null, ...]
  nx_paths.py dijkstra EDGES.tsv SOURCE S-T,S-T,...               -> {"from_source": [d or null]*n, "pairs": [...]}
  nx_paths.py all EDGES.tsv directed|undirected S-T,S-T,...       -> [[path, ...] or [], ...]
Weighted graphs keep the smallest weight of parallel edges (what a MultiDiGraph Dijkstra uses).
"""
import json
import sys

import networkx as nx

from refgraph import node_count, parse_pairs, read_tsv

mode, path = sys.argv[1], sys.argv[2]
edges, weights = read_tsv(path)


def build(directed):
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(range(node_count(edges)))
    if weights is None:
        G.add_edges_from(edges)
    else:
        for (s, d), w in zip(edges, weights):
            if not G.has_edge(s, d) or G[s][d]["weight"] > w:
                G.add_edge(s, d, weight=w)
    return G


if mode == "lengths":
    G = build(sys.argv[3] == "directed")
    res = []
    for s, t in parse_pairs(sys.argv[4]):
        try:
            res.append(nx.shortest_path_length(G, s, t))
        except nx.NetworkXNoPath:
            res.append(None)
    json.dump(res, sys.stdout)
elif mode == "dijkstra":
    G = build(True)
    source = int(sys.argv[3])
    dist = nx.single_source_dijkstra_path_length(G, source, weight="weight")
    pairs = []
    for s, t in parse_pairs(sys.argv[4]):
        try:
            pairs.append(nx.dijkstra_path_length(G, s, t, weight="weight"))
        except nx.NetworkXNoPath:
            pairs.append(None)
    json.dump({"from_source": [dist.get(v) for v in range(G.number_of_nodes())], "pairs": pairs}, sys.stdout)
elif mode == "all":
    G = build(sys.argv[3] == "directed")
    res = []
    for s, t in parse_pairs(sys.argv[4]):
        try:
            res.append(sorted(nx.all_shortest_paths(G, s, t)))
        except nx.NetworkXNoPath:
            res.append([])
    json.dump(res, sys.stdout)
else:
    sys.exit(f"unknown mode {mode}")
