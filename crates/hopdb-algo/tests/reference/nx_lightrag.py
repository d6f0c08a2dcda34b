"""Reference for lightrag_subgraph / lightrag_top_degree: the node-selection part of LightRAG's
NetworkXStorage.get_knowledge_graph (lightrag-hku 1.5.7, lightrag/kg/networkx_impl.py, MIT
licence), kept statement for statement, run on an nx.Graph whose node keys are the labels.

When the `lightrag` package itself is importable (e.g. `pip install --no-deps lightrag-hku`
plus its small import-time dependencies, in a venv named by HOPDB_REFERENCE_PYTHON), every
query also runs through LightRAG's own NetworkXStorage.get_knowledge_graph, and the script
fails unless its nodes, edges and is_truncated equal the copy's. The output names the
LightRAG version checked ("lightrag": null when the package was not importable).

usage:
  nx_lightrag.py tsv EDGES.tsv LABELS.txt QUERIES.json
      LABELS.txt: line i is node i's label; QUERIES.json: [[start or "*", max_depth, max_nodes], ...]
      prints {"lightrag": version or null, "results": [{"bfs": [...], "nodes": [...],
      "edges": [[u, v], ...], "truncated": bool}, ...]} with dense ids (edges as u <= v,
      sorted; nodes sorted; bfs in visiting order).
  nx_lightrag.py graphml GRAPH.graphml[.gz] -> {"labels": [...], "edges": [[u, v], ...],
      "queries": [...], "results": [...]}: a real LightRAG graph (read as LightRAG reads it),
      dense ids in file order, the answers for a fixed set of queries, and "lightrag".
"""
import asyncio
import gzip
import logging
import json
import random
import sys
from collections import deque
from operator import itemgetter

import networkx as nx


def get_knowledge_graph(graph, node_label, max_depth, max_nodes):
    """LightRAG's selection logic; returns (bfs order or None, subgraph, is_truncated)."""
    is_truncated = False
    bfs_nodes = None
    if node_label == "*":
        degrees = dict(graph.degree())
        sorted_nodes = sorted(degrees.items(), key=lambda item: str(item[0]))
        sorted_nodes.sort(key=itemgetter(1), reverse=True)
        if len(sorted_nodes) > max_nodes:
            is_truncated = True
        limited_nodes = [node for node, _ in sorted_nodes[:max_nodes]]
        bfs_nodes = limited_nodes
        subgraph = graph.subgraph(limited_nodes)
    else:
        bfs_nodes = []
        visited = set()
        queue = deque([(node_label, 0, graph.degree(node_label))])
        has_unexplored_neighbors = False
        has_unprocessed_level_nodes = False
        while queue and len(bfs_nodes) < max_nodes:
            current_depth = queue[0][1]
            current_level_nodes = []
            while queue and queue[0][1] == current_depth:
                current_level_nodes.append(queue.popleft())
            current_level_nodes.sort(key=lambda x: (-x[2], str(x[0])))
            for idx, (current_node, depth, degree) in enumerate(current_level_nodes):
                if current_node not in visited:
                    visited.add(current_node)
                    bfs_nodes.append(current_node)
                    if depth < max_depth:
                        neighbors = list(graph.neighbors(current_node))
                        unvisited_neighbors = [n for n in neighbors if n not in visited]
                        for neighbor in unvisited_neighbors:
                            neighbor_degree = graph.degree(neighbor)
                            queue.append((neighbor, depth + 1, neighbor_degree))
                    else:
                        neighbors = list(graph.neighbors(current_node))
                        unvisited_neighbors = [n for n in neighbors if n not in visited]
                        if unvisited_neighbors:
                            has_unexplored_neighbors = True
                if len(bfs_nodes) >= max_nodes:
                    if any(n not in visited for n, _, _ in current_level_nodes[idx + 1:]):
                        has_unprocessed_level_nodes = True
                    break
        has_unvisited_in_queue = any(n not in visited for n, _, _ in queue)
        has_max_nodes_truncation = len(bfs_nodes) >= max_nodes and (
            has_unvisited_in_queue or has_unprocessed_level_nodes or has_unexplored_neighbors
        )
        if has_max_nodes_truncation or has_unexplored_neighbors:
            if has_max_nodes_truncation:
                is_truncated = True
        subgraph = graph.subgraph(bfs_nodes)
    return bfs_nodes, subgraph, is_truncated


def real_lightrag():
    """(version, run) with run(graph, label, max_depth, max_nodes) -> LightRAG's own
    KnowledgeGraph, or None when the lightrag package is not importable."""
    saved, sys.stdout = sys.stdout, sys.stderr  # its import prints warnings on stdout
    try:
        from importlib.metadata import version
        from lightrag.kg.networkx_impl import NetworkXStorage
    except ImportError:
        return None
    finally:
        sys.stdout = saved
    logging.getLogger("lightrag").setLevel(logging.ERROR)
    storage = object.__new__(NetworkXStorage)
    storage.global_config = {"max_graph_nodes": 1 << 62}  # no clamp: the caller's job
    storage.workspace = "hopdb-reference"

    def run(graph, label, max_depth, max_nodes):
        async def get_graph():
            return graph

        storage._get_graph = get_graph
        return asyncio.run(storage.get_knowledge_graph(label, max_depth, max_nodes))

    return version("lightrag-hku"), run


REAL = real_lightrag()


def check_real(graph, label, max_depth, max_nodes, sub, truncated):
    """Fails unless LightRAG's own code returns the same nodes, edges and flag as the copy."""
    kg = REAL[1](graph, label, max_depth, max_nodes)
    want_nodes = {str(v) for v in sub.nodes()}
    want_edges = {frozenset((str(u), str(v))) for u, v in sub.edges()}
    got_nodes = {n.id for n in kg.nodes}
    got_edges = {frozenset((e.source, e.target)) for e in kg.edges}
    if (got_nodes, got_edges, kg.is_truncated) != (want_nodes, want_edges, truncated):
        sys.exit(
            f"LightRAG {REAL[0]} disagrees with the copy on {[label, max_depth, max_nodes]}: "
            f"{len(got_nodes)} vs {len(want_nodes)} nodes, {len(got_edges)} vs {len(want_edges)} "
            f"edges, truncated {kg.is_truncated} vs {truncated}"
        )


def answer(graph, index, query):
    start, max_depth, max_nodes = query
    label = "*" if start == "*" else graph_labels[start]
    bfs, sub, truncated = get_knowledge_graph(graph, label, max_depth, max_nodes)
    if REAL is not None:
        check_real(graph, label, max_depth, max_nodes, sub, truncated)
    edges = sorted(tuple(sorted((index[u], index[v]))) for u, v in sub.edges())
    return {
        "bfs": [index[v] for v in bfs],
        "nodes": sorted(index[v] for v in sub.nodes()),
        "edges": [list(e) for e in edges],
        "truncated": truncated,
    }


if sys.argv[1] == "tsv":
    graph_labels = open(sys.argv[3]).read().split("\n")[:-1]
    G = nx.Graph()
    G.add_nodes_from(graph_labels)
    with open(sys.argv[2]) as f:
        for line in f:
            s, d = line.split()[:2]
            G.add_edge(graph_labels[int(s)], graph_labels[int(d)])
    index = {label: i for i, label in enumerate(graph_labels)}
    queries = json.load(open(sys.argv[4]))
    json.dump({
        "lightrag": REAL and REAL[0],
        "results": [answer(G, index, q) for q in queries],
    }, sys.stdout)
elif sys.argv[1] == "graphml":
    path = sys.argv[2]
    G = nx.read_graphml(gzip.open(path) if path.endswith(".gz") else path)
    graph_labels = list(G.nodes())
    index = {label: i for i, label in enumerate(graph_labels)}
    edges = [[index[u], index[v]] for u, v in G.edges()]
    by_degree = sorted(range(len(graph_labels)), key=lambda i: -G.degree(graph_labels[i]))
    rng = random.Random(7)
    starts = by_degree[:4] + rng.sample(range(len(graph_labels)), 6)
    shapes = ((1, 1000), (2, 50), (3, 200), (0, 5), (1, 1), (2, 0), (3, 12), (6, 300))
    queries = [[s, d, m] for s in starts for d, m in shapes]
    queries += [["*", 0, m] for m in (10, 100, len(graph_labels) + 1)]
    json.dump({
        "labels": graph_labels,
        "edges": edges,
        "queries": queries,
        "results": [answer(G, index, q) for q in queries],
        "lightrag": REAL and REAL[0],
    }, sys.stdout)
else:
    sys.exit(f"unknown mode {sys.argv[1]}")
