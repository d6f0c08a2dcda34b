"""Reference for lightrag_subgraph / lightrag_top_degree: the node-selection part of LightRAG's
NetworkXStorage.get_knowledge_graph (lightrag-hku 1.5.7, lightrag/kg/networkx_impl.py, MIT
licence), kept statement for statement, run on an nx.Graph whose node keys are the labels.

usage:
  nx_lightrag.py tsv EDGES.tsv LABELS.txt QUERIES.json
      LABELS.txt: line i is node i's label; QUERIES.json: [[start or "*", max_depth, max_nodes], ...]
      prints [{"bfs": [...], "nodes": [...], "edges": [[u, v], ...], "truncated": bool}, ...]
      with dense ids (edges as u <= v, sorted; nodes sorted; bfs in visiting order).
  nx_lightrag.py graphml GRAPH.graphml[.gz] -> {"labels": [...], "edges": [[u, v], ...],
      "queries": [...], "results": [...]}: a real LightRAG graph (read as LightRAG reads it),
      dense ids in file order, and the answers for a fixed set of queries.
"""
import gzip
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


def answer(graph, index, query):
    start, max_depth, max_nodes = query
    label = "*" if start == "*" else graph_labels[start]
    bfs, sub, truncated = get_knowledge_graph(graph, label, max_depth, max_nodes)
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
    json.dump([answer(G, index, q) for q in queries], sys.stdout)
elif sys.argv[1] == "graphml":
    path = sys.argv[2]
    G = nx.read_graphml(gzip.open(path) if path.endswith(".gz") else path)
    graph_labels = list(G.nodes())
    index = {label: i for i, label in enumerate(graph_labels)}
    edges = [[index[u], index[v]] for u, v in G.edges()]
    by_degree = sorted(range(len(graph_labels)), key=lambda i: -G.degree(graph_labels[i]))
    rng = random.Random(7)
    starts = by_degree[:4] + rng.sample(range(len(graph_labels)), 6)
    queries = [[s, d, m] for s in starts for d, m in ((1, 1000), (2, 50), (3, 200), (0, 5))]
    queries += [["*", 0, m] for m in (10, 100, len(graph_labels) + 1)]
    json.dump({
        "labels": graph_labels,
        "edges": edges,
        "queries": queries,
        "results": [answer(G, index, q) for q in queries],
    }, sys.stdout)
else:
    sys.exit(f"unknown mode {sys.argv[1]}")
