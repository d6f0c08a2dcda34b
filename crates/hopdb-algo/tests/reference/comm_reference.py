"""Reference community detections on the symmetrised graph, each scored by igraph's modularity.

usage: comm_reference.py EDGES.tsv N RES METHOD[,METHOD...] [SEED]
METHOD: ig_leiden (community_leiden, objective modularity, n_iterations=-1), ig_leiden_cpm,
        ig_multilevel, nx_louvain (louvain_communities, seed fixed), leidenalg
        (RBConfigurationVertexPartition, n_iterations=-1)
prints {METHOD: {"modularity": q, "quality": igraph quality (CPM only), "count": k, "seconds": t}}
"""
import json
import random
import sys
import time

import igraph as ig

from comm_graph import communities, ig_graph, load, nx_graph

path, n, res, methods = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4].split(",")
seed = int(sys.argv[5]) if len(sys.argv) > 5 else 42
n, edges, weights = load(path, n)
g = ig_graph(n, edges, weights, simplify=True)
random.seed(seed)
ig.set_random_number_generator(random)
out = {}
for m in methods:
    t = time.time()
    quality = None
    if m == "ig_leiden":
        labels = g.community_leiden(objective_function="modularity", weights="weight", resolution=res,
                                    n_iterations=-1).membership
    elif m == "ig_leiden_cpm":
        p = g.community_leiden(objective_function="CPM", weights="weight", resolution=res, n_iterations=-1)
        labels, quality = p.membership, p.quality
    elif m == "ig_multilevel":
        labels = g.community_multilevel(weights="weight", resolution=res).membership
    elif m == "leidenalg":
        import leidenalg

        p = leidenalg.find_partition(g, leidenalg.RBConfigurationVertexPartition, weights="weight",
                                     resolution_parameter=res, n_iterations=-1, seed=seed)
        labels = p.membership
    elif m == "nx_louvain":
        import networkx as nx

        G = nx_graph(n, edges, weights)
        t = time.time()
        comms = nx.community.louvain_communities(G, weight="weight", resolution=res, seed=seed)
        labels = [0] * n
        for c, members in enumerate(comms):
            for v in members:
                labels[v] = c
    else:
        raise SystemExit(f"unknown method {m}")
    seconds = time.time() - t
    out[m] = {
        "modularity": g.modularity(labels, weights="weight", resolution=res),
        "count": len(set(labels)),
        "seconds": seconds,
    }
    if quality is not None:
        out[m]["quality"] = quality
json.dump(out, sys.stdout)
