"""NetworkX: a DiGraph in memory (no durability). Import: the csv module into
add_weighted_edges_from. Its answers are the reference the other engines are checked against
(run.py computes them in-process with this class)."""

import csv
import importlib.metadata

from .base import Engine, Unavailable


class NetworkX(Engine):
    durability = "none (in memory)"
    notes = "DiGraph; add_weighted_edges_from; adjacency dicts"

    def version(self):
        try:
            return f"NetworkX {importlib.metadata.version('networkx')}"
        except importlib.metadata.PackageNotFoundError:
            raise Unavailable("networkx is not installed") from None

    def open(self, work):
        import networkx

        self.g = networkx.DiGraph()

    def load(self, csv_path):
        with open(csv_path, newline="") as f:
            r = csv.reader(f)
            next(r)
            self.g.add_weighted_edges_from((int(s), int(d), float(w)) for s, d, w in r)

    def disk_bytes(self):
        return None

    def find_edge(self, u, v):
        return self.g.has_edge(u, v) or self.g.has_edge(v, u)

    def find_directed(self, u, v):
        return self.g.has_edge(u, v)

    def edges_of(self, v):
        return list(self.g.out_edges(v, data="weight")) + list(self.g.in_edges(v, data="weight"))

    def in_edges(self, v):
        return list(self.g.in_edges(v, data="weight"))

    def neighbors(self, v):
        return list(set(self.g.successors(v)) | set(self.g.predecessors(v)))

    def count_out(self, v):
        adj = self.g.succ[v]
        return len(adj), sum(a["weight"] for a in adj.values())

    def count_in(self, v):
        adj = self.g.pred[v]
        return len(adj), sum(a["weight"] for a in adj.values())

    def upsert(self, u, v, w):
        self.g.add_edge(u, v, weight=w)

    def upsert_batch(self, rows):
        self.g.add_weighted_edges_from(rows)

    def remove(self, u, v):
        self.g.remove_edge(u, v)

    def remove_batch(self, pairs):
        self.g.remove_edges_from(pairs)

    def edge_count(self):
        return self.g.number_of_edges()
