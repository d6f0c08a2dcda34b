"""Cozo (cozo-embedded, RocksDB engine): bench/deep's engine (bench/import's stored relations
documents / chunks / entities keyed by id, has_chunk / mentions keyed (src, dst), each with the
by-destination index `:by_dst`), Q1-Q7 in CozoScript with $parameters, the whole result
materialised (run_script). One database object shared by the threads (Cozo allows one process
per RocksDB database; the object is thread-safe). Q6 counts (chunk, entity) pairs per chunk: the
paths, since a chunk mentions an entity once (mentions is keyed (src, dst)). Q7 collects its
entities in a rule before `:limit`: with the join in the output rule, Cozo 0.7.6 stopped at 50
rows counted before removing duplicates (46-49 distinct entities where 50 exist)."""

from engines.cozo_engine import Cozo

from .base import Retrieval, RowQueries
from workload import LIMIT, TOP

CO = "*mentions{src: $id, dst: e}, *mentions:by_dst{dst: e, src: o}, o != $id"

SCRIPTS = {
    "q1": "?[doc_id, ordinal, word_count, section_title] := *chunks{id: $id, doc_id, ordinal, word_count, section_title}",
    "q2": f"?[e] := *mentions{{src: $id, dst: e}}\n:limit {LIMIT}",
    "q3": f"?[c] := *mentions:by_dst{{dst: $id, src: c}}\n:limit {LIMIT}",
    "q4": f"?[o] := {CO}\n:limit {LIMIT}",
    "q5": "?[c] := *has_chunk{src: $id, dst: c}",
    "q6": f"p[o, e] := {CO}\n?[o, count(e)] := p[o, e]\n:order -count(e), o\n:limit {TOP}",
    "q7": f"c[c] := e in $ids, *mentions:by_dst{{dst: e, src: c}}\nf[f] := c[c], *mentions{{src: c, dst: f}}\n?[f] := f[f]\n:limit {LIMIT}",
}


class CozoRetrieval(RowQueries, Retrieval, Cozo):
    def prepare(self, data, cache, reload):
        info = super().prepare(data, cache, reload)
        info["notes"] = "CozoScript with $parameters, one database object shared by the threads"
        return info

    def _rows(self, kind, seed):
        params = {"ids": list(seed)} if kind == "q7" else {"id": seed}
        return self.db.run_script(SCRIPTS[kind], params, True)["rows"]

    def query_text(self):
        return dict(SCRIPTS)
