"""Cozo (PyPI cozo-embedded) on its RocksDB storage engine: `import_relations` in batches.

A stored relation per label (documents {id => title}, chunks {id => doc_id, ordinal, word_count,
section_title}, entities {id => canonical_title, entity_type}) and per edge type (has_chunk
{src, dst}, mentions {src, dst}: keyed on (src, dst), so the key itself is the by-source index).
Rows are parsed with the csv module and handed to `import_relations` in batches (default 100,000
rows; `--option batch=N`), the bulk path of Cozo's embedded API (no Datalog parsing, no
triggers). After the load, `::index create` adds the by-destination index of each edge relation
(the counterpart of the edge indexes the SQL engines build). The timed region ends when the
database is closed.
"""

import csv
import importlib.metadata
import os
import sys

# Replace this script's own directory on the path (adapters/kuzu.py would shadow the kuzu package).
sys.path[0] = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
from common import EDGE_FILES, NODE_COLUMNS, NODE_FILES, Timer, adapter_main, dir_bytes  # noqa: E402

REL_OF = {"documents.csv": "documents", "chunks.csv": "chunks", "entities.csv": "entities", "has_chunk.csv": "has_chunk", "mentions.csv": "mentions"}


def probe():
    import cozo_embedded  # noqa: F401

    return {"available": True, "version": f"Cozo {importlib.metadata.version('cozo-embedded')} (cozo-embedded, RocksDB engine)"}


def _check(res):
    if not isinstance(res, dict) or res.get("ok") is False:
        raise RuntimeError(f"cozo: {res}")
    return res


def run(data, work, ctl, opts):
    import cozo_embedded

    batch = int(opts.get("batch", 100_000))
    path = os.path.join(work, "kg.cozo")
    ctl.phase("load")
    t = Timer()
    db = cozo_embedded.CozoDbPy("rocksdb", path, "{}")

    def script(s):
        return _check(db.run_script(s, {}, False))

    for f in NODE_FILES:
        cols = [(n, ty) for _h, n, ty in NODE_COLUMNS[f] if n != "label"]
        vals = ", ".join(f"{n}: {'Int' if ty == 'integer' else 'String'}" for n, ty in cols[1:])
        script(f":create {REL_OF[f]} {{id: String => {vals}}}")
    for f in EDGE_FILES:
        script(f":create {REL_OF[f]} {{src: String, dst: String}}")
    csv.field_size_limit(1 << 30)

    def load(f, headers, conv):
        rel = REL_OF[f]
        with open(os.path.join(data, f), newline="", encoding="utf-8") as fh:
            rd = csv.reader(fh)
            next(rd)
            rows = []
            for r in rd:
                rows.append(conv(r))
                if len(rows) >= batch:
                    db.import_relations({rel: {"headers": headers, "rows": rows}})
                    rows = []
            if rows:
                db.import_relations({rel: {"headers": headers, "rows": rows}})

    for f in NODE_FILES:
        spec = [(i, n, ty) for i, (_h, n, ty) in enumerate(NODE_COLUMNS[f]) if n != "label"]
        headers = [n for _i, n, _t in spec]
        if any(ty == "integer" for _i, _n, ty in spec):
            conv = (lambda s: lambda r: [int(r[i]) if ty == "integer" else r[i] for i, _n, ty in s])(spec)
        else:
            idx = [i for i, _n, _t in spec]
            conv = (lambda ix: lambda r: [r[i] for i in ix])(idx)
        load(f, headers, conv)
    for f in EDGE_FILES:
        load(f, ["src", "dst"], lambda r: [r[0], r[1]])
    load_s = t.lap()
    ctl.phase("index")
    for f in EDGE_FILES:
        script(f"::index create {REL_OF[f]}:by_dst {{dst, src}}")
    db.close()
    index_s = t.lap()
    ctl.phase("verify")
    db = cozo_embedded.CozoDbPy("rocksdb", path, "{}")
    counts = {}
    for f in NODE_FILES:
        counts[f] = _check(db.run_script(f"?[count(id)] := *{REL_OF[f]}{{id}}", {}, True))["rows"][0][0]
    for f in EDGE_FILES:
        counts[f] = _check(db.run_script(f"?[count(src)] := *{REL_OF[f]}{{src}}", {}, True))["rows"][0][0]
        by_dst = _check(db.run_script(f"?[count(src)] := *{REL_OF[f]}:by_dst{{src}}", {}, True))["rows"][0][0]
        if by_dst != counts[f]:
            raise RuntimeError(f"{REL_OF[f]}:by_dst holds {by_dst} rows, the relation {counts[f]}")
    db.close()
    return {
        "status": "ok",
        "nodes": sum(counts[f] for f in NODE_FILES),
        "edges": sum(counts[f] for f in EDGE_FILES),
        "load_s": load_s,
        "index_s": index_s,
        "disk_bytes": dir_bytes(work),
        "notes": f"import_relations, batches of {batch:,}; edges keyed (src,dst) + ::index by dst after",
        "extra": {"per_relation": counts},
    }


if __name__ == "__main__":
    adapter_main(probe, run)
