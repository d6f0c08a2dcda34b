"""SQLite (Python's sqlite3), for every workload: the import of the knowledge graph (import_kg),
the deep queries (SQLiteDeep), the retrieval mix (SQLiteRetrieval), the UnumDB suite
(SQLiteUnum), the Cozo suite (SQLiteCozoSuite) and the ingestion loads (ingest_load).
"""

import copy
import csv
import os
import sqlite3
import sys
import threading
import time

from bench.benchlib import EDGE_FILES, NODE_COLUMNS, NODE_FILES, Timer, dir_bytes, log
from bench.deep.workload import MAX_HOPS, Q8_HOPS, Q8_LIMIT

from . import sql
from .base import KGEngine, QueryTimeout, Ready, Retrieval, RowQueries, Skip, UnumEngine, load_kg

CACHE_MIB = 64  # page cache; the repo's SQLite baselines (bench/core_ops) use the same

# ---------------------------------------------------------------------------------------------
# Import of the knowledge graph (bench/bulk_import)


def import_probe():
    return {"available": True, "version": f"SQLite {sqlite3.sqlite_version} (Python sqlite3, Python {sys.version.split()[0]})"}


def import_kg(data, work, ctl, opts):
    """WAL, one transaction, executemany from the csv module, indexes after.

    Flat tables: nodes(id, label, title, doc_id, ordinal, word_count, section_title,
    canonical_title, entity_type) and edges(src, dst, type). Each file's columns are inserted by
    name, so the CSV rows go in as read (INTEGER affinity turns "12" into 12). After the load: a
    UNIQUE index on nodes(id) (SQLite cannot add a primary key to a filled table) and B-tree
    indexes on edges(src), edges(dst). The timed region ends when the connection is closed (WAL
    checkpointed into the database file)."""
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
        stmt = f"INSERT INTO nodes ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})"
        with open(os.path.join(data, f), newline="", encoding="utf-8") as fh:
            rd = csv.reader(fh)
            next(rd)
            con.executemany(stmt, rd)
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


# ---------------------------------------------------------------------------------------------
# Deep queries Q8 and Q11 (bench/deep)

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


class SQLiteDeep(KGEngine):
    """The flat tables of import_kg (nodes(id, label, ...), edges(src, dst, type), B-tree indexes
    on nodes(id), edges(src), edges(dst)), queried with recursive CTEs.

    The database is loaded once by import_kg (WAL, 64 MiB page cache) and kept; ANALYZE is run
    once after the load. Each query has a deadline enforced by a progress handler (called every
    1,000 virtual-machine instructions), which interrupts the statement.

    Q8 walks 1..4 undirected steps from the seed (rows (id, depth), UNION dedups them), and the
    outer SELECT DISTINCT ... LIMIT 100 stops the walk once it has 100 nodes (the CTE runs as a
    co-routine). The walk can come back to the seed (depth 2 and 4): the seed may be among the
    rows. Q11 is the same walk up to MAX_HOPS steps from `a`, ordered by depth (ORDER BY makes the
    queue a priority queue: breadth-first), and returns the depth of the first row that reaches
    `b` (LIMIT 1), so it stops at the shortest distance; when `b` is unreachable the walk runs to
    the bound."""

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
            log("sqlite: loading with bench/engines/sqlite.py's import_kg")
            t = time.perf_counter()
            res = load_kg(import_kg, "sqlite", data, cache)
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

    def _run(self, query, args, timeout_ms):
        self.deadline = time.perf_counter() + timeout_ms / 1000
        try:
            return self.con.execute(query, args).fetchall()
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


# ---------------------------------------------------------------------------------------------
# Retrieval mix Q1-Q7 (bench/retrieval, bench/sweep)

RETRIEVAL_SQL = sql.retrieval_statements(lambda n: ":" + n)


class SQLiteRetrieval(RowQueries, Retrieval, SQLiteDeep):
    """The deep engine's database, queried through Python's sqlite3 with constant SQL strings
    (sql.py) and named parameters (sqlite3's statement cache keeps them prepared), one read-only
    connection per thread (`file:...?mode=ro`, 64 MiB page cache as the load)."""

    def prepare(self, data, cache, reload):
        info = super().prepare(data, cache, reload)
        self.path = os.path.join(cache, "kg.sqlite")
        self.con.close()
        self.con = self._connect()
        idx = {r[0]: r[1] for r in self.con.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index'")}
        missing = [i for i in ("nodes_id", "edges_src", "edges_dst") if i not in idx]
        if missing:
            raise RuntimeError(f"indexes missing: {missing}")
        probe = {"q7": sql.retrieval_args("q7", ("ent-1",) * 5)}
        plans = {k: " | ".join(r[3] for r in self.con.execute("EXPLAIN QUERY PLAN " + q, probe.get(k, {"id": "x"}))) for k, q in RETRIEVAL_SQL.items()}
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
        return self.con.execute(RETRIEVAL_SQL[kind], sql.retrieval_args(kind, seed)).fetchall()

    def query_text(self):
        return dict(RETRIEVAL_SQL)


# ---------------------------------------------------------------------------------------------
# UnumDB suite (bench/unum)

UNUM_SQL = sql.unum_statements("?")


class SQLiteUnum(UnumEngine):
    """A file with WAL journal, synchronous=NORMAL (a commit survives the process being killed,
    not a power loss: the counterpart of HopDB's durability="process"), the default page cache.

    Import: one transaction of executemany(INSERT) fed by the csv module, then the two indexes of
    sql.py, then ANALYZE. Every single operation is one statement in autocommit mode (sqlite3
    caches the prepared statements); a batch is executemany in one BEGIN ... COMMIT."""

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
        for stmt in sql.UNUM_INDEXES:
            c.execute(stmt)
        c.execute("COMMIT")
        c.execute("ANALYZE")

    def settle(self):
        self.con.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def disk_bytes(self):
        return sum(os.path.getsize(self.path + s) for s in ("", "-wal") if os.path.exists(self.path + s))

    def find_edge(self, u, v):
        return self.x(UNUM_SQL["find_edge"], (u, v, v, u)).fetchone()

    def find_directed(self, u, v):
        return self.x(UNUM_SQL["find_directed"], (u, v)).fetchone()

    def edges_of(self, v):
        return self.x(UNUM_SQL["edges_of"], (v, v)).fetchall()

    def in_edges(self, v):
        return self.x(UNUM_SQL["in_edges"], (v,)).fetchall()

    def neighbors(self, v):
        return self.x(UNUM_SQL["neighbors"], (v, v)).fetchall()

    def count_out(self, v):
        return self.x(UNUM_SQL["count_out"], (v,)).fetchone()

    def count_in(self, v):
        return self.x(UNUM_SQL["count_in"], (v,)).fetchone()

    def upsert(self, u, v, w):
        self.x(UNUM_SQL["upsert"], (u, v, w))

    def upsert_batch(self, rows):
        self.x("BEGIN")
        self.con.executemany(UNUM_SQL["upsert"], rows)
        self.x("COMMIT")

    def remove(self, u, v):
        self.x(UNUM_SQL["remove"], (u, v))

    def remove_batch(self, pairs):
        self.x("BEGIN")
        self.con.executemany(UNUM_SQL["remove"], pairs)
        self.x("COMMIT")

    def edge_count(self):
        return self.x(UNUM_SQL["count"]).fetchone()[0]

    def close(self):
        self.con.close()


# ---------------------------------------------------------------------------------------------
# Cozo suite (bench/cozo_suite)


class SQLiteCozoSuite:
    """nodes(id INTEGER PRIMARY KEY, the properties) and edges(src, dst) WITHOUT ROWID keyed
    (src, dst) with an index (dst, src); WAL, synchronous=NORMAL, 256 MiB cache; one connection per
    thread (a threading.local); k-hop as a recursive CTE interrupted by a timer."""

    name = "sqlite"
    multi_process = "beside the writer"  # WAL: readers in other processes while one writes

    def __init__(self, work, data, path=None, read_only=False):
        self.data, self.read_only = data, read_only
        self.path = path or os.path.join(work, "graph.sqlite")
        self.local = threading.local()
        self.cols = list(data.types)
        self.all_cons = []

    @staticmethod
    def version():
        return f"SQLite {sqlite3.sqlite_version} (Python sqlite3, WAL, synchronous=NORMAL)"

    def con(self):
        c = getattr(self.local, "con", None)
        if c is None:
            # autocommit: every point write is its own transaction, as on the other engines
            if self.read_only:
                c = self.local.con = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, check_same_thread=False)
                self.all_cons.append(c)
                return c
            c = self.local.con = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            c.execute("PRAGMA journal_mode=WAL")
            c.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: safe against a process crash, like the others' defaults
            c.execute("PRAGMA cache_size=-262144")
            self.all_cons.append(c)
        return c

    def load(self):
        ty = {"int": "INTEGER", "bool": "INTEGER", "str": "TEXT"}
        c = self.con()
        cols = "".join(f", {p} {ty[t]}" for p, t in self.data.types.items())
        c.execute(f"CREATE TABLE nodes(id INTEGER PRIMARY KEY{cols})")
        c.execute("CREATE TABLE edges(src INTEGER NOT NULL, dst INTEGER NOT NULL, PRIMARY KEY(src, dst)) WITHOUT ROWID")
        d = self.data
        marks = ",".join("?" * (1 + len(self.cols)))
        c.execute("BEGIN")
        c.executemany(f"INSERT INTO nodes VALUES({marks})", zip(d.keys, *(d.props[p] for p in self.cols), strict=False))
        c.executemany("INSERT INTO edges VALUES(?, ?)", zip(d.src, d.dst, strict=False))
        c.execute("CREATE INDEX edges_dst ON edges(dst, src)")
        c.execute("COMMIT")
        return "executemany in one transaction; edges WITHOUT ROWID keyed (src,dst) + index (dst,src)"

    def counts(self):
        c = self.con()
        return c.execute("SELECT count(*) FROM nodes").fetchone()[0], c.execute("SELECT count(*) FROM edges").fetchone()[0]

    def read(self, key):
        cols = ", ".join(self.cols) or "id"
        r = self.con().execute(f"SELECT {cols} FROM nodes WHERE id = ?", (key,)).fetchone()
        return dict(zip(self.cols, r, strict=False)) if r else None

    def write(self, key, props):
        marks = ",".join("?" * (1 + len(self.cols)))
        self.con().execute(f"INSERT INTO nodes VALUES({marks})", (key, *(props[c] for c in self.cols)))

    def update(self, key, prop, value):
        self.con().execute(f"UPDATE nodes SET {prop} = ? WHERE id = ?", (value, key))

    def khop(self, key, k, timeout):
        c = self.con()
        # two recursive arms (out and in edges, each by its index); UNION drops repeated (node, depth)
        q = (
            "WITH RECURSIVE r(n, d) AS (SELECT ?1, 0"
            " UNION SELECT e.dst, r.d + 1 FROM r JOIN edges e ON e.src = r.n WHERE r.d < ?2"
            " UNION SELECT e.src, r.d + 1 FROM r JOIN edges e ON e.dst = r.n WHERE r.d < ?2)"
            " SELECT count(DISTINCT n) - 1 FROM r"
        )
        timer = threading.Timer(timeout, c.interrupt)
        timer.start()
        try:
            return c.execute(q, (key, k)).fetchone()[0]
        except sqlite3.OperationalError as e:
            if "interrupted" in str(e):
                return None
            raise
        finally:
            timer.cancel()

    def group_by(self, prop):
        q = (
            f"SELECT n.{prop}, count(*), sum(coalesce(g.deg, 0)) FROM nodes n LEFT JOIN"
            " (SELECT x, count(*) AS deg FROM (SELECT src AS x FROM edges UNION ALL SELECT dst FROM edges) GROUP BY x) g"
            f" ON g.x = n.id GROUP BY n.{prop}"
        )
        return {v: [cnt, s] for v, cnt, s in self.con().execute(q)}

    def pagerank(self):
        raise Skip("SQLite has no graph algorithms; PageRank in Python over SQL would measure Python, not SQLite")

    def backup(self, dest):
        out = sqlite3.connect(dest)
        self.con().backup(out)
        out.close()
        return "Connection.backup (the online backup API) into a file"

    def restore(self, src, path):
        inp, out = sqlite3.connect(src), sqlite3.connect(path)
        inp.backup(out)
        inp.close()
        out.close()
        return "the backup API from the backup file into a new database file", SQLiteCozoSuite(None, self.data, path)

    def close(self):
        for c in self.all_cons:
            c.close()
        self.all_cons = []
        self.local = threading.local()


# ---------------------------------------------------------------------------------------------
# Ingestion (bench/ingest)


def ingest_load(g, mode, path, a, done):
    """bench/ingest's load of the synthetic graph: nodes(id, label, name, score, grp) and edges(src,
    type, dst) WITHOUT ROWID keyed (src, type, dst) with an index (dst, type), WAL with
    synchronous=NORMAL; row mode one autocommit statement per row (capped at the time limit),
    batch mode executemany per batch in one transaction."""
    from bench.ingest.loading import chunks, clock, rows_capped

    db = sqlite3.connect(os.path.join(path, "g.db"), isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")  # like HopDB's "process" durability
    db.execute("CREATE TABLE nodes(id INTEGER PRIMARY KEY, label TEXT, name TEXT, score REAL, grp INTEGER)")
    db.execute("CREATE TABLE edges(src INTEGER, type TEXT, dst INTEGER, PRIMARY KEY(src, type, dst)) WITHOUT ROWID")
    db.execute("CREATE INDEX edges_in ON edges(dst, type)")
    node_sql = "INSERT OR REPLACE INTO nodes VALUES (?, 'Node', ?, ?, ?)"
    edge_sql = "INSERT OR REPLACE INTO edges VALUES (?, ?, ?)"
    clock.start()
    nodes = ((k, p["name"], p["score"], p["grp"]) for k, p in g.node_rows())
    if mode == "row":  # autocommit: one transaction per row
        deadline = time.perf_counter() + a.time_limit
        for r in rows_capped(nodes, deadline, done):
            db.execute(node_sql, r)
            done["rows"] += 1
        for r in rows_capped(g.edge_rows(), deadline, done):
            db.execute(edge_sql, r)
            done["rows"] += 1
    else:
        for stmt, rows in ((node_sql, nodes), (edge_sql, g.edge_rows())):
            for b in chunks(rows, a.batch):
                db.execute("BEGIN")
                db.executemany(stmt, b)
                db.execute("COMMIT")
                done["rows"] += len(b)
    return db


def ingest_count(db):
    """(nodes, edges) as SQLite counts them after bench/ingest's load."""
    return tuple(db.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("nodes", "edges"))
