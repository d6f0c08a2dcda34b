"""Shared by the reference scripts: read the dense-id TSV edge lists that the Rust tests write."""


def read_tsv(path):
    """Returns (edges, weights or None) with int node ids, in file order (edge i has id i)."""
    edges, weights = [], []
    with open(path) as f:
        for line in f:
            cols = line.split()
            if not cols:
                continue
            edges.append((int(cols[0]), int(cols[1])))
            if len(cols) > 2:
                weights.append(float(cols[2]))
    return edges, (weights if weights else None)


def node_count(edges):
    return 1 + max((max(s, d) for s, d in edges), default=-1)


def parse_ints(text):
    return [int(x) for x in text.split(",") if x]


def parse_pairs(text):
    return [tuple(int(x) for x in p.split("-")) for p in text.split(",") if p]
