"""PostgreSQL 15: the flat tables of bench/import's adapter (nodes(id PRIMARY KEY, label, ...),
edges(src, dst, type) with B-tree indexes on src and on dst), queried with WITH RECURSIVE over
psycopg 3.

The database is loaded once by bench/import/adapters/postgres.py (with keep=1, so its private
cluster survives the load; run as the `postgres` OS user with the data directory under /var/tmp
when this runs as root, since that user cannot enter root's home; the cache directory's
pgroot.path names it), then ANALYZE. Every run starts the server on 127.0.0.1 at a free port
and stops it at the end. The server keeps the adapter's postgresql.conf (default shared_buffers,
128 MiB; work_mem 4 MiB). Each query runs with `SET statement_timeout` (server-side
cancellation), parameters bound by the server (prepared on first use by psycopg).

Q8: rows (id, depth) from the seed, the recursive term a LATERAL union of the out- and
in-neighbours (each through its index), UNION dedups (id, depth); the outer SELECT DISTINCT ...
LIMIT 100 stops pulling from the CTE once it has 100 ids (PostgreSQL evaluates the recursive CTE
lazily). The seed itself can come back at depth 2 or 4. Q11: the same walk from `a` up to
MAX_HOPS steps, level by level (PostgreSQL's recursive union is breadth-first), the first row
reaching `b` (LIMIT 1) gives the distance.
"""

import os
import time

from .base import MAX_HOPS, Q8_HOPS, Q8_LIMIT, Engine, QueryTimeout, Ready, Unavailable, import_adapter, load_with_adapter, log

NEIGHBOURS = "SELECT dst AS id FROM edges WHERE src = r.id UNION ALL SELECT src FROM edges WHERE dst = r.id"

Q8_SQL = f"""WITH RECURSIVE r(id, d) AS (
  SELECT %(seed)s::text, 0
  UNION
  SELECT n.id, r.d + 1 FROM r CROSS JOIN LATERAL ({NEIGHBOURS}) n WHERE r.d < {Q8_HOPS})
SELECT DISTINCT id FROM r WHERE d > 0 LIMIT {Q8_LIMIT}"""

Q11_SQL = f"""WITH RECURSIVE r(id, d) AS (
  SELECT %(a)s::text, 0
  UNION
  SELECT n.id, r.d + 1 FROM r CROSS JOIN LATERAL ({NEIGHBOURS}) n WHERE r.d < {MAX_HOPS})
SELECT d FROM r WHERE id = %(b)s LIMIT 1"""


class Postgres(Engine):
    name = "postgres"

    def __init__(self):
        self.pg = import_adapter("postgres")
        self.con = None
        self.pgdata = None

    def probe(self):
        p = self.pg.probe()
        if not p.get("available"):
            raise Unavailable(p.get("reason"))
        return p["version"]

    def prepare(self, data, cache, reload):
        import psycopg

        ready = Ready(cache)
        info = ready.get()
        root = self.pg._root_dir(cache)
        load_s = None
        if reload or info is None or not root or not os.path.exists(os.path.join(root, "data")):
            ready.clear()
            self.pg.stop(cache, remove=True)
            if os.path.exists(os.path.join(cache, "pgroot.path")):
                os.remove(os.path.join(cache, "pgroot.path"))
            log("postgres: loading with bench/import/adapters/postgres.py (keep=1)")
            t = time.perf_counter()
            res = load_with_adapter("postgres", data, cache, {"keep": "1"})
            root = self.pg._root_dir(cache)
            load_s = time.perf_counter() - t
            info = {"load_s": load_s, "nodes": res["nodes"], "edges": res["edges"], "notes": res.get("notes", ""), "pgroot": root}
            analyze = True
        else:
            analyze = not info.get("analyzed")
        t = time.perf_counter()
        self.pgdata = os.path.join(root, "data")
        self.cache = cache
        d = self.pg.bindir()
        user = self.pg.server_user()
        port = self.pg.free_port()
        r = self.pg.as_user(user, [os.path.join(d, "pg_ctl"), "-D", self.pgdata, "-l", os.path.join(root, "server.log"), "-o", f"-p {port}", "-w", "-t", "120", "start"], capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"pg_ctl start failed: {r.stdout[-500:]} {r.stderr[-500:]}")
        for _ in range(100):
            try:
                self.con = psycopg.connect(host="127.0.0.1", port=port, user=self.pg.DB_USER, dbname="postgres", autocommit=True)
                break
            except psycopg.OperationalError:
                time.sleep(0.1)
        else:
            raise RuntimeError("server does not accept connections")
        if analyze:
            t1 = time.perf_counter()
            self.con.execute("ANALYZE")
            info["analyzed"] = True
            info["analyze_s"] = time.perf_counter() - t1
            if load_s is not None:
                load_s += info["analyze_s"]
                info["load_s"] = load_s
            ready.set(info)
        self.cur = self.con.cursor()
        self.timeout_ms = None
        open_s = time.perf_counter() - t
        sb = self.con.execute("SHOW shared_buffers").fetchone()[0]
        return {"load_s": load_s, "cached_load": info, "open_s": open_s, "notes": f"server on 127.0.0.1:{port}, shared_buffers {sb}; WITH RECURSIVE, LATERAL out+in neighbours by index; statement_timeout"}

    def _run(self, sql, args, timeout_ms):
        import psycopg

        if timeout_ms != self.timeout_ms:
            self.cur.execute(f"SET statement_timeout = {int(timeout_ms)}")
            self.timeout_ms = timeout_ms
        try:
            return self.cur.execute(sql, args, prepare=True).fetchall()
        except psycopg.errors.QueryCanceled:
            raise QueryTimeout() from None

    def q8(self, seed, timeout_ms):
        return [r[0] for r in self._run(Q8_SQL, {"seed": seed}, timeout_ms)]

    def q11(self, a, b, timeout_ms):
        rows = self._run(Q11_SQL, {"a": a, "b": b}, timeout_ms)
        return rows[0][0] if rows else None

    def close(self):
        if self.con is not None:
            self.con.close()
        self._stop()

    def _stop(self):
        if self.pgdata and os.path.exists(os.path.join(self.pgdata, "postmaster.pid")):
            d = self.pg.bindir()
            self.pg.as_user(self.pg.server_user(), [os.path.join(d, "pg_ctl"), "-D", self.pgdata, "-m", "fast", "-w", "-t", "120", "stop"], capture_output=True)

    @staticmethod
    def cleanup(cache):
        pg = import_adapter("postgres")
        pg.stop(cache, remove=False)
