"""SQLite: bench/deep's SQLite engine (bench/import's flat tables, loaded once, ANALYZE), queried
through Python's sqlite3 with constant SQL strings and named parameters (sqlite3's statement
cache keeps them prepared), one read-only connection per thread (`file:...?mode=ro`, 64 MiB page
cache as the load)."""

import copy
import os
import sqlite3

from engines.sqlite_engine import SQLite

from . import sql
from .base import Retrieval, RowQueries

SQL = sql.statements(lambda n: ":" + n)


class SQLiteRetrieval(RowQueries, Retrieval, SQLite):
    def prepare(self, data, cache, reload):
        info = super().prepare(data, cache, reload)
        self.path = os.path.join(cache, "kg.sqlite")
        self.con.close()
        self.con = self._connect()
        idx = {r[0]: r[1] for r in self.con.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index'")}
        missing = [i for i in ("nodes_id", "edges_src", "edges_dst") if i not in idx]
        if missing:
            raise RuntimeError(f"indexes missing: {missing}")
        probe = {"q7": sql.args("q7", ("ent-1",) * 5)}
        plans = {k: " | ".join(r[3] for r in self.con.execute("EXPLAIN QUERY PLAN " + q, probe.get(k, {"id": "x"}))) for k, q in SQL.items()}
        info["notes"] = "read-only connections, 64 MiB page cache, cached statements; indexes " + ", ".join(idx[i] for i in sorted(idx))
        info["plans"] = plans
        return info

    def _connect(self):
        con = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, check_same_thread=False)
        con.execute("PRAGMA cache_size=-65536")
        return con

    def fork(self):
        c = copy.copy(self)
        c.con = self._connect()
        return c

    def release(self):
        self.con.close()

    def _rows(self, kind, seed):
        return self.con.execute(SQL[kind], sql.args(kind, seed)).fetchall()

    def query_text(self):
        return dict(SQL)
