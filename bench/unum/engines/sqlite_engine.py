"""SQLite (the Python standard library's sqlite3) on a file: WAL journal, synchronous=NORMAL (a
commit survives the process being killed, not a power loss: the counterpart of HopDB's
durability="process"), the default page cache.

Import: one transaction of executemany(INSERT) fed by the csv module, then the two indexes of
sql.py, then ANALYZE. Every single operation is one statement in autocommit mode (sqlite3 caches
the prepared statements); a batch is executemany in one BEGIN ... COMMIT.
"""

import csv
import os
import sqlite3

from .base import Engine
from .sql import INDEXES, statements

S = statements("?")


class SQLite(Engine):
    durability = "WAL, synchronous=NORMAL (survives kill -9; fsync at checkpoints only)"
    notes = "executemany in one transaction, then unique (src,dst) + (dst,src) indexes, ANALYZE"

    def version(self):
        return f"SQLite {sqlite3.sqlite_version} (Python sqlite3)"

    def open(self, work):
        self.path = os.path.join(work, "graph.sqlite")
        self.con = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self.con.execute("PRAGMA journal_mode=WAL")
        self.con.execute("PRAGMA synchronous=NORMAL")
        self.x = self.con.execute

    def load(self, csv_path):
        c = self.con
        c.execute("CREATE TABLE edges (src INTEGER NOT NULL, dst INTEGER NOT NULL, weight REAL NOT NULL)")
        c.execute("BEGIN")
        with open(csv_path, newline="") as f:
            r = csv.reader(f)
            next(r)
            c.executemany("INSERT INTO edges VALUES (?, ?, ?)", ((int(s), int(d), float(w)) for s, d, w in r))
        for sql in INDEXES:
            c.execute(sql)
        c.execute("COMMIT")
        c.execute("ANALYZE")

    def settle(self):
        self.con.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def disk_bytes(self):
        return sum(os.path.getsize(self.path + s) for s in ("", "-wal") if os.path.exists(self.path + s))

    def find_edge(self, u, v):
        return self.x(S["find_edge"], (u, v, v, u)).fetchone()

    def find_directed(self, u, v):
        return self.x(S["find_directed"], (u, v)).fetchone()

    def edges_of(self, v):
        return self.x(S["edges_of"], (v, v)).fetchall()

    def in_edges(self, v):
        return self.x(S["in_edges"], (v,)).fetchall()

    def neighbors(self, v):
        return self.x(S["neighbors"], (v, v)).fetchall()

    def count_out(self, v):
        return self.x(S["count_out"], (v,)).fetchone()

    def count_in(self, v):
        return self.x(S["count_in"], (v,)).fetchone()

    def upsert(self, u, v, w):
        self.x(S["upsert"], (u, v, w))

    def upsert_batch(self, rows):
        self.x("BEGIN")
        self.con.executemany(S["upsert"], rows)
        self.x("COMMIT")

    def remove(self, u, v):
        self.x(S["remove"], (u, v))

    def remove_batch(self, pairs):
        self.x("BEGIN")
        self.con.executemany(S["remove"], pairs)
        self.x("COMMIT")

    def edge_count(self):
        return self.x(S["count"]).fetchone()[0]

    def close(self):
        self.con.close()
