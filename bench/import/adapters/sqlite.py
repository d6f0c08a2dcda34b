"""SQLite (Python's sqlite3): WAL, one transaction, executemany from the csv module, indexes after.

Flat tables: nodes(id, label, title, doc_id, ordinal, word_count, section_title, canonical_title,
entity_type) and edges(src, dst, type). Each file's columns are inserted by name, so the CSV rows
go in as read (INTEGER affinity turns "12" into 12). After the load: a UNIQUE index on nodes(id)
(SQLite cannot add a primary key to a filled table) and B-tree indexes on edges(src), edges(dst).
The timed region ends when the connection is closed (WAL checkpointed into the database file).
"""

import csv
import os
import sqlite3
import sys

# Replace this script's own directory on the path (adapters/kuzu.py would shadow the kuzu package).
sys.path[0] = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
from common import EDGE_COLUMNS, EDGE_FILES, NODE_COLUMNS, NODE_FILES, Timer, adapter_main, dir_bytes  # noqa: E402

CACHE_MIB = 64  # page cache; the repo's SQLite baselines (bench/core_ops) use the same


def probe():
    return {"available": True, "version": f"SQLite {sqlite3.sqlite_version} (Python sqlite3, Python {sys.version.split()[0]})"}


def run(data, work, ctl, opts):
    path = os.path.join(work, "kg.sqlite")
    cache_mib = int(opts.get("cache_mib", CACHE_MIB))
    ctl.phase("load")
    t = Timer()
    con = sqlite3.connect(path, isolation_level=None)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=NORMAL")
    con.execute(f"PRAGMA cache_size=-{cache_mib * 1024}")
    cols = []
    for f in NODE_FILES:
        for _h, name, typ in NODE_COLUMNS[f]:
            if name not in [c for c, _ in cols]:
                cols.append((name, typ))
    con.execute("BEGIN")
    con.execute("CREATE TABLE nodes (" + ", ".join(f"{c} {t.upper()}" for c, t in cols) + ")")
    con.execute("CREATE TABLE edges (src TEXT NOT NULL, dst TEXT NOT NULL, type TEXT NOT NULL)")
    csv.field_size_limit(1 << 30)
    for f in NODE_FILES:
        names = [n for _h, n, _t in NODE_COLUMNS[f]]
        sql = f"INSERT INTO nodes ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})"
        with open(os.path.join(data, f), newline="", encoding="utf-8") as fh:
            rd = csv.reader(fh)
            next(rd)
            con.executemany(sql, rd)
    for f in EDGE_FILES:
        with open(os.path.join(data, f), newline="", encoding="utf-8") as fh:
            rd = csv.reader(fh)
            next(rd)
            con.executemany("INSERT INTO edges (src, dst, type) VALUES (?, ?, ?)", rd)
    con.execute("COMMIT")
    load_s = t.lap()
    ctl.phase("index")
    con.execute("CREATE UNIQUE INDEX nodes_id ON nodes (id)")
    con.execute("CREATE INDEX edges_src ON edges (src)")
    con.execute("CREATE INDEX edges_dst ON edges (dst)")
    con.close()  # checkpoints the WAL into kg.sqlite and removes it
    index_s = t.lap()
    ctl.phase("verify")
    con = sqlite3.connect(path)
    nodes = con.execute("SELECT count(*) FROM nodes").fetchone()[0]
    edges = con.execute("SELECT count(*) FROM edges").fetchone()[0]
    distinct = con.execute("SELECT count(*) FROM (SELECT DISTINCT label FROM nodes)").fetchone()[0]
    con.close()
    return {
        "status": "ok",
        "nodes": nodes,
        "edges": edges,
        "load_s": load_s,
        "index_s": index_s,
        "disk_bytes": dir_bytes(work),
        "notes": f"WAL, synchronous=NORMAL, {cache_mib} MiB cache; 1 txn; UNIQUE(id)+2 edge indexes after",
        "extra": {"labels": distinct},
    }


if __name__ == "__main__":
    adapter_main(probe, run)
