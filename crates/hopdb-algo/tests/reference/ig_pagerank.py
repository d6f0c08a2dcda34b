"""PageRank reference from igraph (PRPACK), optionally NetworkX too.

usage: ig_pagerank.py EDGES.tsv directed|undirected DAMPING [--nx] RUN [RUN ...]
each RUN is "uniform" or SEED,SEED,...: the reset (personalisation) vector uniform over
the seeds (a seed listed twice weighs twice). The graph is read once.
prints {"igraph": [[score]*n per RUN], "networkx": [[score]*n per RUN] (with --nx)}.
"""
import json
import sys

import igraph as ig

from refgraph import node_count, parse_ints, read_tsv

args = [a for a in sys.argv[1:] if a != "--nx"]
path, mode, damping, runs = args[0], args[1], float(args[2]), args[3:]
edges, _ = read_tsv(path)
n = node_count(edges)
g = ig.Graph(n=n, edges=edges, directed=(mode == "directed"))
resets = []
for run in runs:
    if run == "uniform":
        resets.append(None)
        continue
    reset = [0.0] * n
    for s in parse_ints(run):
        reset[s] += 1.0
    resets.append(reset)
out = {"igraph": [g.personalized_pagerank(damping=damping, reset=r, implementation="prpack") for r in resets]}
if "--nx" in sys.argv:
    import networkx as nx
    # NetworkX's own pure-Python power iteration (nx.pagerank itself needs SciPy, which the
    # pinned test environment does not install); same model, same dangling rule.
    from networkx.algorithms.link_analysis.pagerank_alg import _pagerank_python

    G = nx.DiGraph() if mode == "directed" else nx.Graph()
    G.add_nodes_from(range(n))
    G.add_edges_from(edges)
    out["networkx"] = []
    for r in resets:
        pers = None if r is None else {v: x for v, x in enumerate(r) if x > 0}
        pr = _pagerank_python(G, alpha=damping, personalization=pers, tol=1e-13, max_iter=1000)
        out["networkx"].append([pr[v] for v in range(n)])
json.dump(out, sys.stdout)
