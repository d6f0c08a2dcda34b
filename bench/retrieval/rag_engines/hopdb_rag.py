"""HopDB: the `hopdb` Python package in-process on the store that bench/import's adapter makes
(`hopdb import`, kept by bench/deep under DATA_ROOT/deep/sS/hopdb/store), opened with
hopdb.Graph(store, read_only=True), then `g.project()`: the in-memory CSR projection of every
edge type (S=1: about 0.9 s and 120 MB, counted in open_s) from which the traversals (Q2-Q7)
are served while it is fresh; Q1 reads the store, its keys found in the in-memory key index
that `g.warm_key_index()` fills at open (decision 0014; about 0.3 s, also in open_s). Threads share the Graph (its calls release
the GIL)."""

import importlib.metadata
import inspect
import time

from engines import hopdb_engine
from engines.base import Engine, Unavailable
from reference import Q1_PROPS
from workload import LIMIT, TOP

from .base import Retrieval

C2C = [("out", "MENTIONS"), ("in", "MENTIONS")]  # chunk -> entities -> chunks
E2E = [("in", "MENTIONS"), ("out", "MENTIONS")]  # entities -> chunks -> entities


class HopDBRetrieval(Retrieval, Engine):
    name = "hopdb"

    def probe(self):
        import hopdb

        missing = [m for m in ("expand", "expand_counts") if not hasattr(hopdb.Graph, m)]
        if missing:
            raise Unavailable(f"the installed hopdb package ({importlib.metadata.version('hopdb')}) has no Graph.{' / Graph.'.join(missing)} (Q4, Q6, Q7)")
        return f"HopDB {importlib.metadata.version('hopdb')} (Python package, in-process, read-only store)"

    def prepare(self, data, cache, reload):
        import hopdb

        store, info, load_s = hopdb_engine.ensure_store(data, cache, reload)
        t = time.perf_counter()
        self.g = hopdb.Graph(store, read_only=True)
        proj = self.g.project()
        keys = self.g.warm_key_index()
        return {
            "load_s": load_s,
            "cached_load": info,
            "open_s": time.perf_counter() - t,
            "notes": f"hopdb.Graph(store, read_only=True) + g.project() ({proj['bytes'] / 2**20:.0f} MiB CSR in {proj['seconds']:.2f} s) + g.warm_key_index() ({keys:,} keys), one Graph shared by the threads",
        }

    def q1(self, c):
        n = self.g.node(c)
        return None if n is None else tuple(n["props"].get(p) for p in Q1_PROPS)

    def q2(self, c):
        return self.g.neighbors(c, "out", "MENTIONS", LIMIT)

    def q3(self, e):
        return self.g.neighbors(e, "in", "MENTIONS", LIMIT)

    def q4(self, c):
        return self.g.expand(c, C2C, limit=LIMIT, exclude_seeds=True)

    def q5(self, d):
        return self.g.neighbors(d, "out", "HAS_CHUNK")

    def q6(self, c):
        return self.g.expand_counts(c, C2C, top=TOP, exclude_seeds=True)

    def q7(self, es):
        return self.g.expand(list(es), E2E, limit=LIMIT)

    def close(self):
        self.g.close()

    def query_text(self):
        return {k: inspect.getsource(getattr(type(self), k)).strip() for k in ("q1", "q2", "q3", "q4", "q5", "q6", "q7")}
