"""k-hop reference: NetworkX shortest-path lengths with a cutoff from each seed.

usage: nx_khop.py EDGES.tsv CUTOFF DIRECTION=SEED,SEED,... [DIRECTION=...]
DIRECTION is out, in or both (edges followed either way); the graph is read once.
prints {"DIRECTION": {"seed": [[node, dist], ...]}} for every node at distance 1..CUTOFF.
"""
import json
import sys

import networkx as nx

from refgraph import parse_ints, read_tsv, node_count

path, cutoff = sys.argv[1], int(sys.argv[2])
edges, _ = read_tsv(path)
G = nx.DiGraph()
G.add_nodes_from(range(node_count(edges)))
G.add_edges_from(edges)
views = {"out": G, "in": G.reverse(copy=False), "both": G.to_undirected(as_view=True)}
out = {}
for spec in sys.argv[3:]:
    direction, seeds = spec.split("=")
    out[direction] = {}
    for s in parse_ints(seeds):
        lengths = nx.single_source_shortest_path_length(views[direction], s, cutoff=cutoff)
        out[direction][str(s)] = [[v, d] for v, d in lengths.items() if d > 0]
json.dump(out, sys.stdout)
