"""Connected components and triangles from igraph.

usage:
  ig_components.py components EDGES.tsv   -> {"weak": membership, "strong": membership}
  ig_components.py triangles EDGES.tsv    -> per-node triangle counts of the simple undirected graph
igraph's local transitivity times d(d-1)/2 gives the triangles at each node (exact for these sizes).
"""
import json
import sys

import igraph as ig

from refgraph import node_count, read_tsv

mode, path = sys.argv[1], sys.argv[2]
edges, _ = read_tsv(path)
n = node_count(edges)
if mode == "components":
    g = ig.Graph(n=n, edges=edges, directed=True)
    json.dump({
        "weak": g.connected_components(mode="weak").membership,
        "strong": g.connected_components(mode="strong").membership,
    }, sys.stdout)
elif mode == "triangles":
    g = ig.Graph(n=n, edges=edges, directed=False)
    g.simplify(multiple=True, loops=True)
    deg = g.degree()
    local = g.transitivity_local_undirected(mode="zero")
    json.dump([round(c * d * (d - 1) / 2) for c, d in zip(local, deg)], sys.stdout)
else:
    sys.exit(f"unknown mode {mode}")
