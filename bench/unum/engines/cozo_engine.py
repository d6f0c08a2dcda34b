"""Cozo (PyPI cozo-embedded) on its RocksDB storage engine: a stored relation
e {src: Int, dst: Int => weight: Float} (keyed (src, dst): the key is the out-edge index) and an
index e:by_dst {dst, src} (the in-edge index, the counterpart of the SQL engines' (dst, src)).

Import (timed): `import_relations` in batches of 100,000 rows (Cozo's bulk path, as
bench/import/adapters/cozo.py), then `::index create`. Queries are CozoScript with parameters
(Cozo has no prepared statements; the script is parsed per call); reads run with immutable=True.
Cozo 0.7 answers `*e{dst: $v, ...}` through the index by itself (the in-edge query takes
microseconds, not a scan). A write is `:put` / `:rm` with the rows as a parameter (one
transaction per call, indices maintained). Durability: Cozo's defaults for RocksDB
(cozo-embedded exposes no write option).
"""

import csv
import importlib.metadata
import os

from .base import Engine, Unavailable

Q = {
    "find_edge": "?[x] := *e{src: $u, dst: $v}, x = 1\n?[x] := *e{src: $v, dst: $u}, x = 1",
    "find_directed": "?[w] := *e{src: $u, dst: $v, weight: w}",
    "edges_of": "?[s, d, w] := *e{src: $v, dst: d, weight: w}, s = $v\n?[s, d, w] := *e{src: s, dst: $v, weight: w}, d = $v",
    "in_edges": "?[s, d, w] := *e{src: s, dst: $v, weight: w}, d = $v",
    "neighbors": "?[n] := *e{src: $v, dst: n}\n?[n] := *e{src: n, dst: $v}",
    "count_out": "?[count(d), sum(w)] := *e{src: $v, dst: d, weight: w}",
    "count_in": "?[count(s), sum(w)] := *e{src: s, dst: $v, weight: w}",
    "put": "?[src, dst, weight] <- $rows :put e {src, dst => weight}",
    "rm": "?[src, dst] <- $rows :rm e {src, dst}",
    "count": "?[count(s)] := *e{src: s}",
}
BATCH = 100_000


class Cozo(Engine):
    durability = "Cozo's RocksDB defaults (no write option in cozo-embedded)"
    notes = "import_relations + ::index create e:by_dst {dst, src}; CozoScript with parameters; :put / :rm"

    def version(self):
        try:
            import cozo_embedded  # noqa: F401
        except ImportError as e:
            raise Unavailable(f"cozo-embedded is not installed: {e}") from None
        return f"Cozo {importlib.metadata.version('cozo-embedded')} (cozo-embedded, RocksDB)"

    def open(self, work):
        import cozo_embedded

        self.path = os.path.join(work, "graph.cozo")
        self.db = cozo_embedded.CozoDbPy("rocksdb", self.path, "{}")

    def _run(self, key, params, read=True):
        r = self.db.run_script(Q[key], params, read)
        if r.get("ok") is False:
            raise RuntimeError(f"cozo: {r.get('message') or r}")
        return r["rows"]

    def load(self, csv_path):
        self.db.run_script(":create e {src: Int, dst: Int => weight: Float}", {}, False)
        with open(csv_path, newline="") as f:
            r = csv.reader(f)
            next(r)
            rows = []
            for s, d, w in r:
                rows.append([int(s), int(d), float(w)])
                if len(rows) == BATCH:
                    self.db.import_relations({"e": {"headers": ["src", "dst", "weight"], "rows": rows}})
                    rows = []
            if rows:
                self.db.import_relations({"e": {"headers": ["src", "dst", "weight"], "rows": rows}})
        r = self.db.run_script("::index create e:by_dst {dst, src}", {}, False)
        if r.get("ok") is False:
            raise RuntimeError(f"cozo: {r}")

    def disk_bytes(self):
        from shared import import_common

        return import_common().dir_bytes(self.path)

    def find_edge(self, u, v):
        return self._run("find_edge", {"u": u, "v": v})

    def find_directed(self, u, v):
        return self._run("find_directed", {"u": u, "v": v})

    def edges_of(self, v):
        return self._run("edges_of", {"v": v})

    def in_edges(self, v):
        return self._run("in_edges", {"v": v})

    def neighbors(self, v):
        return self._run("neighbors", {"v": v})

    def count_out(self, v):
        return self._run("count_out", {"v": v})[0]

    def count_in(self, v):
        return self._run("count_in", {"v": v})[0]

    def upsert(self, u, v, w):
        self._run("put", {"rows": [[u, v, w]]}, False)

    def upsert_batch(self, rows):
        self._run("put", {"rows": [list(r) for r in rows]}, False)

    def remove(self, u, v):
        self._run("rm", {"rows": [[u, v]]}, False)

    def remove_batch(self, pairs):
        self._run("rm", {"rows": [list(p) for p in pairs]}, False)

    def edge_count(self):
        return self._run("count", {})[0][0]

    def close(self):
        self.db.close()
