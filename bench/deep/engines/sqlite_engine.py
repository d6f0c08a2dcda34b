"""SQLite (Python's sqlite3): the flat tables of bench/import's adapter (nodes(id, label, ...),
edges(src, dst, type), B-tree indexes on nodes(id), edges(src), edges(dst)), queried with
recursive CTEs.

The database is loaded once by bench/import/adapters/sqlite.py (WAL, 64 MiB page cache) and kept;
ANALYZE is run once after the load. Each query has a deadline enforced by a progress handler
(called every 1,000 virtual-machine instructions), which interrupts the statement.

Q8 walks 1..4 undirected steps from the seed (rows (id, depth), UNION dedups them), and the outer
SELECT DISTINCT ... LIMIT 100 stops the walk once it has 100 nodes (the CTE runs as a
co-routine). The walk can come back to the seed (depth 2 and 4): the seed may be among the rows.
Q11 is the same walk up to MAX_HOPS steps from `a`, ordered by depth (ORDER BY makes the queue a
priority queue: breadth-first), and returns the depth of the first row that reaches `b`
(LIMIT 1), so it stops at the shortest distance; when `b` is unreachable the walk runs to the
bound.
"""

import os
import sqlite3
import sys
import time

from .base import MAX_HOPS, Q8_HOPS, Q8_LIMIT, Engine, QueryTimeout, Ready, load_with_adapter, log

STEP = "SELECT CASE WHEN e.src = r.id THEN e.dst ELSE e.src END, r.d + 1 FROM r JOIN edges e ON (e.src = r.id OR e.dst = r.id)"

Q8_SQL = f"""WITH RECURSIVE r(id, d) AS (
  SELECT ?1, 0
  UNION
  {STEP} WHERE r.d < {Q8_HOPS})
SELECT DISTINCT id FROM r WHERE d > 0 LIMIT {Q8_LIMIT}"""

Q11_SQL = f"""WITH RECURSIVE r(id, d) AS (
  SELECT ?1, 0
  UNION
  {STEP} WHERE r.d < {MAX_HOPS}
  ORDER BY 2)
SELECT d FROM r WHERE id = ?2 LIMIT 1"""


class SQLite(Engine):
    name = "sqlite"

    def probe(self):
        return f"SQLite {sqlite3.sqlite_version} (Python sqlite3, Python {sys.version.split()[0]})"

    def prepare(self, data, cache, reload):
        ready = Ready(cache)
        path = os.path.join(cache, "kg.sqlite")
        info = ready.get()
        load_s = None
        if reload or info is None or not os.path.exists(path):
            ready.clear()
            for f in ("kg.sqlite", "kg.sqlite-wal", "kg.sqlite-shm"):
                if os.path.exists(os.path.join(cache, f)):
                    os.remove(os.path.join(cache, f))
            log("sqlite: loading with bench/import/adapters/sqlite.py")
            t = time.perf_counter()
            res = load_with_adapter("sqlite", data, cache)
            con = sqlite3.connect(path)
            con.execute("ANALYZE")
            con.close()
            load_s = time.perf_counter() - t
            info = {"load_s": load_s, "nodes": res["nodes"], "edges": res["edges"], "notes": res.get("notes", "") + "; ANALYZE"}
            ready.set(info)
        t = time.perf_counter()
        self.con = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.con.execute("PRAGMA journal_mode=WAL")
        self.con.execute("PRAGMA cache_size=-65536")  # 64 MiB, as the load and the repo's other SQLite baselines
        self.deadline = None
        self.con.set_progress_handler(self._progress, 1000)
        open_s = time.perf_counter() - t
        return {"load_s": load_s, "cached_load": info, "open_s": open_s, "notes": "recursive CTEs over edges(src,dst) with B-tree indexes on both columns; 64 MiB page cache; timeout by progress handler"}

    def _progress(self):
        return 1 if self.deadline is not None and time.perf_counter() > self.deadline else 0

    def _run(self, sql, args, timeout_ms):
        self.deadline = time.perf_counter() + timeout_ms / 1000
        try:
            return self.con.execute(sql, args).fetchall()
        except sqlite3.OperationalError as e:
            if "interrupted" in str(e):
                raise QueryTimeout() from None
            raise
        finally:
            self.deadline = None

    def q8(self, seed, timeout_ms):
        return [r[0] for r in self._run(Q8_SQL, (seed,), timeout_ms)]

    def q11(self, a, b, timeout_ms):
        rows = self._run(Q11_SQL, (a, b), timeout_ms)
        return rows[0][0] if rows else None

    def close(self):
        self.con.close()
