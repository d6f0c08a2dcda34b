"""HopDB through its Python package (native extension), on a durable store on disk.

Graph(path, durability="process"): a commit survives the process being killed (kill -9) without
an fsync per commit, the counterpart of SQLite's WAL + synchronous=NORMAL and PostgreSQL's
synchronous_commit=off. Import: `import_files(edge_lists=[csv], weighted=True)` (HopDB's bulk
loader: parses the CSV and writes sorted runs into RocksDB; one edge type "EDGE"). Reads use the
native calls: has_edge(either_direction=), edges(v, "both"/"in"), neighbors(v), degree(v,
"out"/"in") (count and weight sum kept per vertex, O(1)). Writes: upsert_edge / delete_edge per
edge (one transaction each), upsert_edges / delete_edges for a batch (one transaction).
"""

import os

from .base import Engine, Unavailable

T = "EDGE"


class HopDB(Engine):
    durability = 'durability="process" (survives kill -9; no fsync per commit)'
    notes = "import_files(edge_lists=); has_edge / edges / neighbors / degree; upsert_edges / delete_edges per batch"

    def version(self):
        try:
            import hopdb
        except ImportError as e:
            raise Unavailable(f"the hopdb package is not installed: {e}") from None
        return f"HopDB {hopdb.__version__} (Python package)"

    def open(self, work):
        import hopdb

        self.path = os.path.join(work, "store")
        self.g = hopdb.Graph(self.path, durability="process")

    def load(self, csv_path):
        self.g.import_files(edge_lists=[csv_path], weighted=True)

    def settle(self):
        self.g.flush()

    def disk_bytes(self):
        from shared import import_common

        return import_common().dir_bytes(self.path)

    def find_edge(self, u, v):
        return self.g.has_edge(u, v, either_direction=True)

    def find_directed(self, u, v):
        return self.g.has_edge(u, v)

    def edges_of(self, v):
        return self.g.edges(v)

    def in_edges(self, v):
        return self.g.edges(v, "in")

    def neighbors(self, v):
        return self.g.neighbors(v)

    def count_out(self, v):
        return self.g.degree(v, "out")

    def count_in(self, v):
        return self.g.degree(v, "in")

    def upsert(self, u, v, w):
        self.g.upsert_edge(u, T, v, w)

    def upsert_batch(self, rows):
        self.g.upsert_edges([(u, T, v, w) for u, v, w in rows])

    def remove(self, u, v):
        self.g.delete_edge(u, T, v)

    def remove_batch(self, pairs):
        self.g.delete_edges([(u, T, v) for u, v in pairs])

    def edge_count(self):
        return self.g.edge_count()

    def close(self):
        self.g.close()
