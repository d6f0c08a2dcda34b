"""Triangles per node from NetworkX on the symmetrised simple graph (nx.triangles ignores loops).

usage: nx_triangles.py EDGES.tsv -> [count]*n
"""
import json
import sys

import networkx as nx

from refgraph import node_count, read_tsv

edges, _ = read_tsv(sys.argv[1])
G = nx.Graph()
G.add_nodes_from(range(node_count(edges)))
G.add_edges_from(edges)
t = nx.triangles(G)
json.dump([t[v] for v in range(G.number_of_nodes())], sys.stdout)
