"""Kuzu (PyPI kuzu): a node table per label, a rel table per edge type, COPY FROM the CSV files.

Kuzu's COPY maps CSV columns to table columns by position, so the neo4j-admin files' :LABEL and
:TYPE columns (one more column than the tables hold) cannot be copied straight in. Instead of
rewriting the files, each table is filled with Kuzu's documented `COPY T FROM (LOAD FROM 'file'
(header=true) RETURN ...)`, which reads the original file with the same parallel CSV reader and
drops the redundant column (Kuzu reads `ordinal:int` headers as column `ordinal`, typed). The node
tables' primary-key hash index and the rel tables' CSR adjacency (both directions) are built by
COPY itself: Kuzu has no separate index step (index_s = 0). The timed region ends when the
database is closed (checkpointed).
"""

import importlib.metadata
import os
import sys

# Replace this script's own directory on the path (adapters/kuzu.py would shadow the kuzu package).
sys.path[0] = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
from common import EDGE_FILES, EDGE_TYPE_OF, LABEL_OF, NODE_COLUMNS, NODE_FILES, Timer, adapter_main, dir_bytes  # noqa: E402


def probe():
    import kuzu  # noqa: F401

    return {"available": True, "version": f"Kuzu {importlib.metadata.version('kuzu')} (Python package)"}


def _kuzu_type(t):
    return {"text": "STRING", "integer": "INT64"}[t]


def run(data, work, ctl, opts):
    import kuzu

    path = os.path.join(work, "kg.kuzu")
    ctl.phase("load")
    t = Timer()
    db = kuzu.Database(path)
    con = kuzu.Connection(db)
    for f in NODE_FILES:
        cols = [(n, ty) for _h, n, ty in NODE_COLUMNS[f] if n != "label"]
        defs = ", ".join(f"{n} {_kuzu_type(ty)}" + (" PRIMARY KEY" if n == "id" else "") for n, ty in cols)
        con.execute(f"CREATE NODE TABLE {LABEL_OF[f]}({defs})")
    for f in EDGE_FILES:
        typ, src, dst = EDGE_TYPE_OF[f]
        con.execute(f"CREATE REL TABLE {typ}(FROM {src} TO {dst})")
    copied = {}
    for f in NODE_FILES:
        # Kuzu names a `name:type` header column `name`; `:ID` keeps its name.
        ret = []
        for h, n, ty in NODE_COLUMNS[f]:
            if n == "label":
                continue
            col = f"`{h}`" if h.startswith(":") else h.split(":")[0]
            ret.append(f"CAST({col} AS INT64)" if ty == "integer" else col)
        q = f"COPY {LABEL_OF[f]} FROM (LOAD FROM '{os.path.join(data, f)}' (header=true) RETURN {', '.join(ret)})"
        copied[f] = con.execute(q).get_next()[0]
    for f in EDGE_FILES:
        typ = EDGE_TYPE_OF[f][0]
        q = f"COPY {typ} FROM (LOAD FROM '{os.path.join(data, f)}' (header=true) RETURN `:START_ID`, `:END_ID`)"
        copied[f] = con.execute(q).get_next()[0]
    con.close()
    db.close()
    load_s = t.lap()
    ctl.phase("verify")
    db = kuzu.Database(path, read_only=True)
    con = kuzu.Connection(db)
    nodes = con.execute("MATCH (n) RETURN count(*)").get_next()[0]
    edges = con.execute("MATCH ()-[r]->() RETURN count(*)").get_next()[0]
    con.close()
    db.close()
    return {
        "status": "ok",
        "nodes": nodes,
        "edges": edges,
        "load_s": load_s,
        "index_s": 0.0,
        "disk_bytes": dir_bytes(work),
        "notes": "COPY FROM (LOAD FROM csv RETURN cols): original files, :LABEL/:TYPE dropped; PK index + CSR built by COPY",
        "extra": {"copy_messages": copied},
    }


if __name__ == "__main__":
    adapter_main(probe, run)
