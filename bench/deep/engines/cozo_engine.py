"""Cozo (PyPI cozo-embedded, RocksDB engine): the stored relations of bench/import's adapter
(documents, chunks, entities keyed by id; has_chunk and mentions keyed (src, dst), each with a
by-destination index `:by_dst`), queried in CozoScript.

Q8 is a recursive rule with a semi-lattice aggregation (each node's minimum depth, so every node
is derived once), its steps along both directions of both edge relations (out through the key,
in through :by_dst), bounded at 4, and `:limit 100` on the output. Cozo evaluates the rules to
their fixed point before the limit applies (no early stop). The seed itself is at depth 0 and is
left out.

Q11 uses Cozo's fixed rule ShortestPathBFS over an inline rule of the undirected edges (both
relations, both directions), from [a] to [b]; length = hops of the returned path, None when there
is none or it is longer than MAX_HOPS. The fixed rule needs the whole edge rule materialised at
every query. (A bounded recursive rule with min(depth), like Q8's but to depth 12, was measured
about 2x slower at S=0.1: it also runs to its fixed point.)

Per-query timeout: the `:timeout` query option (seconds), which kills the query (`eval::killed`).
"""

import importlib.metadata
import os
import shutil
import time

from .base import MAX_HOPS, Q8_HOPS, Q8_LIMIT, Engine, QueryTimeout, Ready, load_with_adapter, log

EDGE_RELS = ["has_chunk", "mentions"]


def _steps(head, bound):
    out = []
    for rel in EDGE_RELS:
        out.append(f"{head} := reach[n, d], d < {bound}, *{rel}{{src: n, dst: m}}, d1 = d + 1")
        out.append(f"{head} := reach[n, d], d < {bound}, *{rel}:by_dst{{dst: n, src: m}}, d1 = d + 1")
    return "\n".join(out)


Q8_SCRIPT = f"""reach[n, min(d)] := n = $seed, d = 0
{_steps("reach[m, min(d1)]", Q8_HOPS)}
?[n] := reach[n, d], d > 0
:limit {Q8_LIMIT}
"""

Q11_SCRIPT = "\n".join(
    [f"edges[a, b] := *{rel}{{src: a, dst: b}}" for rel in EDGE_RELS]
    + [f"edges[a, b] := *{rel}{{src: b, dst: a}}" for rel in EDGE_RELS]
    + ["start[] <- [[$a]]", "goal[] <- [[$b]]", "?[s, g, path] <~ ShortestPathBFS(edges[], start[], goal[])"]
)


class Cozo(Engine):
    name = "cozo"

    def probe(self):
        import cozo_embedded  # noqa: F401

        return f"Cozo {importlib.metadata.version('cozo-embedded')} (cozo-embedded, RocksDB engine)"

    def prepare(self, data, cache, reload):
        import cozo_embedded

        ready = Ready(cache)
        info = ready.get()
        path = os.path.join(cache, "kg.cozo")
        load_s = None
        if reload or info is None or not os.path.exists(path):
            ready.clear()
            shutil.rmtree(path, ignore_errors=True)
            log("cozo: loading with bench/import/adapters/cozo.py")
            t = time.perf_counter()
            res = load_with_adapter("cozo", data, cache)
            load_s = time.perf_counter() - t
            info = {"load_s": load_s, "nodes": res["nodes"], "edges": res["edges"], "notes": res.get("notes", "")}
            ready.set(info)
        t = time.perf_counter()
        self.db = cozo_embedded.CozoDbPy("rocksdb", path, "{}")
        open_s = time.perf_counter() - t
        return {"load_s": load_s, "cached_load": info, "open_s": open_s, "notes": "Q8 recursive rule with min(depth), :limit 100; Q11 fixed rule ShortestPathBFS; :timeout"}

    def _run(self, script, params, timeout_ms):
        script += f"\n:timeout {timeout_ms / 1000:.3f}\n"
        try:
            res = self.db.run_script(script, params, True)
        except Exception as e:  # cozo_embedded raises with the error dict as its argument
            msg = str(e)
            if "eval::killed" in msg:
                raise QueryTimeout() from None
            raise RuntimeError(msg[:500]) from None
        if isinstance(res, dict) and res.get("ok") is False:
            if "killed" in str(res.get("code", "")):
                raise QueryTimeout()
            raise RuntimeError(str(res)[:500])
        return res["rows"]

    def q8(self, seed, timeout_ms):
        return [r[0] for r in self._run(Q8_SCRIPT, {"seed": seed}, timeout_ms)]

    def q11(self, a, b, timeout_ms):
        rows = self._run(Q11_SCRIPT, {"a": a, "b": b}, timeout_ms)
        if not rows or rows[0][2] is None:
            return None
        n = len(rows[0][2]) - 1
        return n if n <= MAX_HOPS else None

    def close(self):
        self.db.close()
