"""Exact betweenness from igraph (fast C), on the simple graph of the edge list.

usage: cent_igraph.py EDGES.tsv N directed|undirected
prints {"raw": [...]}: igraph's betweenness (each unordered pair once when undirected), which
equals NetworkX's betweenness_centrality(normalized=False).
"""
import json
import sys

import igraph as ig

from refgraph import read_tsv

path, n, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
edges, _ = read_tsv(path)
g = ig.Graph(n=n, edges=edges, directed=(mode == "directed"))
g.simplify(multiple=True, loops=True)
json.dump({"raw": g.betweenness(directed=(mode == "directed"))}, sys.stdout)
