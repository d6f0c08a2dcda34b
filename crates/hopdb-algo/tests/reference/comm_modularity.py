"""Modularity of given partitions on the symmetrised graph, from NetworkX and igraph.

usage: comm_modularity.py EDGES.tsv N PARTITION.txt[,PARTITION.txt...] RES[,RES...]
(a partition file holds one label per node, whitespace separated)
prints {"networkx": [[q per res] per partition], "igraph": [[q per res] per partition]}
"""
import json
import sys

import networkx as nx

from comm_graph import communities, ig_graph, load, nx_graph, read_labels

path, n, label_paths, res = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(","), sys.argv[4]
resolutions = [float(r) for r in res.split(",")]
n, edges, weights = load(path, n)
G = nx_graph(n, edges, weights)
g = ig_graph(n, edges, weights)
out = {"networkx": [], "igraph": []}
for lp in label_paths:
    labels = read_labels(lp)
    comms = communities(labels)
    out["networkx"].append([nx.community.modularity(G, comms, weight="weight", resolution=r) for r in resolutions])
    out["igraph"].append([g.modularity(labels, weights="weight", resolution=r) for r in resolutions])
json.dump(out, sys.stdout)
