"""A LightRAG knowledge graph (GraphML, optionally gzipped) as an edge list, the way GraphRAG
feeds graspologic: undirected, weight from the edge's `weight` attribute (1 when missing).

usage: comm_graphml.py GRAPH.graphml[.gz]
prints {"nodes": [id...], "edges": [[u, v, w]...]} with u, v indices into nodes
"""
import gzip
import json
import sys

import networkx as nx

path = sys.argv[1]
with (gzip.open(path, "rb") if path.endswith(".gz") else open(path, "rb")) as f:
    G = nx.read_graphml(f)
nodes = list(G.nodes())
index = {v: i for i, v in enumerate(nodes)}
edges = [[index[u], index[v], float(d.get("weight", 1.0))] for u, v, d in G.edges(data=True)]
json.dump({"nodes": nodes, "edges": edges}, sys.stdout)
