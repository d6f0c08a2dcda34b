"""PostgreSQL 15 (Debian), a private server per run, for every workload: the import of the
knowledge graph (import_kg), the deep queries (PostgresDeep), the retrieval mix
(PostgresRetrieval) and the UnumDB suite (PostgresUnum).

The private server (start_server, stop): initdb (C locale, UTF8, trust auth on 127.0.0.1 only)
into a private data directory, then the server on 127.0.0.1 at a free private port (never 5432).
PostgreSQL refuses to run as root, so as root the server runs as the `postgres` system user (a
dedicated `hopdb-bench` user if that does not exist) and its data directory lives under /var/tmp
(same file system) because that user cannot enter $HOME of root; `WORK/pgroot.path` names the
directory holding data/ and server.log.
"""

import copy
import os
import pwd
import shutil
import subprocess
import tempfile
import time

from bench.benchlib import EDGE_COLUMNS, EDGE_FILES, NODE_COLUMNS, NODE_FILES, Timer, dir_bytes, log
from bench.deep.workload import MAX_HOPS, Q8_HOPS, Q8_LIMIT

from . import sql
from .base import KGEngine, QueryTimeout, Ready, Retrieval, RowQueries, Unavailable, UnumEngine, free_port, load_kg

DB_USER = "bench"

# ---------------------------------------------------------------------------------------------
# The private server


def bindir():
    cands = [os.environ.get("PG_BIN"), "/usr/lib/postgresql/15/bin"]
    if shutil.which("pg_config"):
        cands.append(subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True).stdout.strip())
    for d in cands:
        if d and os.access(os.path.join(d, "initdb"), os.X_OK):
            return d
    return None


def server_user():
    """None: run as ourselves. Else the OS user that runs initdb and the server."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "hopdb-bench"):
        try:
            pwd.getpwnam(name)
            return name
        except KeyError:
            pass
    subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", "hopdb-bench"], check=True)
    return "hopdb-bench"


def as_user(user, cmd, **kw):
    if user:
        cmd = ["runuser", "-u", user, "--"] + cmd
    kw.setdefault("cwd", "/")  # the server user may not be allowed into the current directory
    return subprocess.run(cmd, **kw)


def probe():
    """{"available": True, "version"} or {"available": False, "reason"}; installs the server
    binaries with apt-get when they are missing and this runs as root."""
    d = bindir()
    if d is None and os.geteuid() == 0 and shutil.which("apt-get"):
        subprocess.run(["apt-get", "update"], capture_output=True)
        subprocess.run(["apt-get", "install", "-y", "postgresql"], capture_output=True, env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
        d = bindir()
    if d is None:
        return {"available": False, "reason": "PostgreSQL server binaries not found (apt-get install postgresql, or set PG_BIN)"}
    import psycopg

    v = subprocess.run([os.path.join(d, "postgres"), "--version"], capture_output=True, text=True).stdout.strip()
    return {"available": True, "version": v + f" (psycopg {psycopg.__version__})"}


def root_dir(work):
    """The directory holding data/ and server.log: inside work, or under /var/tmp when root."""
    p = os.path.join(work, "pgroot.path")
    return open(p).read().strip() if os.path.exists(p) else None


def stop(work, remove=True):
    root = root_dir(work)
    if not root:
        return
    data = os.path.join(root, "data")
    d = bindir()
    if os.path.exists(os.path.join(data, "postmaster.pid")) and d:
        user = server_user()
        as_user(user, [os.path.join(d, "pg_ctl"), "-D", data, "-m", "fast", "-w", "-t", "120", "stop"], capture_output=True)
    if remove:
        shutil.rmtree(root, ignore_errors=True)


def start_server(work, settings, prefix="hopdb-import-pg-", autocommit=False):
    """initdb and start a private server on 127.0.0.1 and a free port, with `settings` added to
    postgresql.conf; returns (connection to db postgres, port, postmaster pid, data directory).
    stop(work) stops it and removes its files."""
    import psycopg

    d = bindir()
    user = server_user()
    if user:
        root = tempfile.mkdtemp(prefix=prefix, dir="/var/tmp")
        pw = pwd.getpwnam(user)
        os.chown(root, pw.pw_uid, pw.pw_gid)
    else:
        root = os.path.join(work, "pg")
        os.makedirs(root)
    with open(os.path.join(work, "pgroot.path"), "w") as f:
        f.write(root)  # stop(work) finds the server through this file
    pgdata = os.path.join(root, "data")
    r = as_user(user, [os.path.join(d, "initdb"), "-D", pgdata, "-U", DB_USER, "-A", "trust", "-E", "UTF8", "--no-locale", "--no-sync"], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("initdb failed: " + r.stderr[-1500:])
    port = free_port()
    with open(os.path.join(pgdata, "postgresql.conf"), "a") as f:
        f.write("\n# hopdb benchmark\n" + "".join(f"{k} = {v}\n" for k, v in dict(settings, port=str(port)).items()))
    r = as_user(user, [os.path.join(d, "pg_ctl"), "-D", pgdata, "-l", os.path.join(root, "server.log"), "-w", "-t", "120", "start"], capture_output=True, text=True)
    if r.returncode != 0:
        server_log = open(os.path.join(root, "server.log")).read()[-1500:] if os.path.exists(os.path.join(root, "server.log")) else ""
        raise RuntimeError(f"pg_ctl start failed: {r.stdout[-500:]} {r.stderr[-500:]} {server_log}")
    postmaster = int(open(os.path.join(pgdata, "postmaster.pid")).readline())
    for _ in range(100):
        try:
            return psycopg.connect(host="127.0.0.1", port=port, user=DB_USER, dbname="postgres", autocommit=autocommit), port, postmaster, pgdata
        except psycopg.OperationalError:
            time.sleep(0.1)
    raise RuntimeError("server does not accept connections")


# ---------------------------------------------------------------------------------------------
# Import of the knowledge graph (bench/bulk_import)

IMPORT_SETTINGS = {
    "listen_addresses": "'127.0.0.1'",
    "unix_socket_directories": "''",
    "wal_level": "minimal",
    "max_wal_senders": "0",
    "archive_mode": "off",
    "max_wal_size": "'8GB'",
    "checkpoint_timeout": "'30min'",
    "maintenance_work_mem": "'1GB'",
    "logging_collector": "off",
}


def import_probe():
    return probe()


def import_kg(data, work, ctl, opts):
    """A private server, COPY into flat tables, indexes after the load.

    Bulk-load settings from the manual's "Populating a Database" (14.4): wal_level=minimal with
    max_wal_senders=0 (COPY into a table created in the same transaction, and the index builds,
    skip WAL and are fsynced at commit instead), max_wal_size=8GB, maintenance_work_mem=1GB; fsync
    and synchronous_commit stay on. Set-up (initdb, start) is not timed. Timed: (load) one
    transaction: CREATE TABLE nodes(id, label, title, doc_id, ordinal, word_count, section_title,
    canonical_title, entity_type) and edges(src, dst, type), then `COPY ... FROM STDIN (FORMAT
    csv, HEADER true)` of each file with its column list (psycopg streams the file in 1 MiB blocks;
    the client's memory is not counted, the server's processes are); (index) ALTER TABLE nodes ADD
    PRIMARY KEY (id), CREATE INDEX on edges(src) and on edges(dst). Not timed: count(*) of both
    tables, CHECKPOINT, sizes. The server is stopped at the end, on failure too (and by
    import_cleanup if the adapter itself is killed). Its data directory is removed then, unless
    the option keep=1 is given (bench/deep loads its PostgreSQL database this way and keeps it)."""
    try:
        con, port, postmaster, pgdata = start_server(work, IMPORT_SETTINGS)
        ctl.noself()
        ctl.pid(postmaster)
        cols = []
        for f in NODE_FILES:
            for _h, name, typ in NODE_COLUMNS[f]:
                if name not in [c for c, _ in cols]:
                    cols.append((name, typ))
        ctl.phase("load")
        t = Timer()
        with con.transaction():
            cur = con.cursor()
            cur.execute("CREATE TABLE nodes (" + ", ".join(f"{c} {ty}" + (" NOT NULL" if c in ("id", "label") else "") for c, ty in cols) + ")")
            cur.execute("CREATE TABLE edges (src text NOT NULL, dst text NOT NULL, type text NOT NULL)")
            for f in NODE_FILES + EDGE_FILES:
                table, spec = ("nodes", NODE_COLUMNS[f]) if f in NODE_COLUMNS else ("edges", EDGE_COLUMNS)
                names = ", ".join(n for _h, n, _t in spec)
                with open(os.path.join(data, f), "rb") as fh, cur.copy(f"COPY {table} ({names}) FROM STDIN (FORMAT csv, HEADER true)") as cp:
                    while block := fh.read(1 << 20):
                        cp.write(block)
        copy_s = t.lap()
        ctl.phase("index")
        con.autocommit = True
        cur = con.cursor()
        idx = {}
        for name, stmt in [
            ("nodes_pkey", "ALTER TABLE nodes ADD PRIMARY KEY (id)"),
            ("edges_src", "CREATE INDEX edges_src ON edges (src)"),
            ("edges_dst", "CREATE INDEX edges_dst ON edges (dst)"),
        ]:
            t1 = time.perf_counter()
            cur.execute(stmt)
            idx[name] = round(time.perf_counter() - t1, 3)
        index_s = t.lap()
        ctl.phase("verify")
        nodes = cur.execute("SELECT count(*) FROM nodes").fetchone()[0]
        edges = cur.execute("SELECT count(*) FROM edges").fetchone()[0]
        cur.execute("CHECKPOINT")
        rel_bytes = cur.execute("SELECT pg_total_relation_size('nodes') + pg_total_relation_size('edges')").fetchone()[0]
        db_bytes = cur.execute("SELECT pg_database_size(current_database())").fetchone()[0]
        con.close()
        cluster_bytes = dir_bytes(pgdata)
        wal_bytes = dir_bytes(os.path.join(pgdata, "pg_wal"))
        return {
            "status": "ok",
            "nodes": nodes,
            "edges": edges,
            "load_s": copy_s,
            "index_s": index_s,
            "disk_bytes": rel_bytes,
            "notes": (
                f"COPY {copy_s:.1f}s + indexes {index_s:.1f}s; disk = tables+indexes "
                f"(whole cluster dir {cluster_bytes / 2**20:.0f} MiB incl. catalogs and {wal_bytes / 2**20:.0f} MiB WAL); "
                "RSS = sum over server processes"
            ),
            "extra": {"copy_s": copy_s, "index_each_s": idx, "database_bytes": db_bytes, "cluster_dir_bytes": cluster_bytes, "wal_bytes": wal_bytes, "port": port, "server_user": server_user()},
        }
    finally:
        stop(work, remove=opts.get("keep") != "1")


def import_cleanup(work):
    stop(work, remove=True)


# ---------------------------------------------------------------------------------------------
# Deep queries Q8 and Q11 (bench/deep)

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


class PostgresDeep(KGEngine):
    """The flat tables of import_kg (nodes(id PRIMARY KEY, ...), edges(src, dst, type) with B-tree
    indexes on src and on dst), queried with WITH RECURSIVE over psycopg 3.

    The database is loaded once by import_kg with keep=1 (its private cluster survives the load;
    the cache directory's pgroot.path names it), then ANALYZE. Every run starts the server on
    127.0.0.1 at a free port and stops it at the end. The server keeps the import's
    postgresql.conf (default shared_buffers, 128 MiB; work_mem 4 MiB). Each query runs with `SET
    statement_timeout` (server-side cancellation), parameters bound by the server (prepared on
    first use by psycopg).

    Q8: rows (id, depth) from the seed, the recursive term a LATERAL union of the out- and
    in-neighbours (each through its index), UNION dedups (id, depth); the outer SELECT DISTINCT ...
    LIMIT 100 stops pulling from the CTE once it has 100 ids (PostgreSQL evaluates the recursive CTE
    lazily). The seed itself can come back at depth 2 or 4. Q11: the same walk from `a` up to
    MAX_HOPS steps, level by level (PostgreSQL's recursive union is breadth-first), the first row
    reaching `b` (LIMIT 1) gives the distance."""

    name = "postgres"

    def __init__(self):
        self.con = None
        self.pgdata = None

    def probe(self):
        p = probe()
        if not p.get("available"):
            raise Unavailable(p.get("reason"))
        return p["version"]

    def prepare(self, data, cache, reload):
        import psycopg

        ready = Ready(cache)
        info = ready.get()
        root = root_dir(cache)
        load_s = None
        if reload or info is None or not root or not os.path.exists(os.path.join(root, "data")):
            ready.clear()
            stop(cache, remove=True)
            if os.path.exists(os.path.join(cache, "pgroot.path")):
                os.remove(os.path.join(cache, "pgroot.path"))
            log("postgres: loading with bench/engines/postgres.py's import_kg (keep=1)")
            t = time.perf_counter()
            res = load_kg(import_kg, "postgres", data, cache, {"keep": "1"})
            root = root_dir(cache)
            load_s = time.perf_counter() - t
            info = {"load_s": load_s, "nodes": res["nodes"], "edges": res["edges"], "notes": res.get("notes", ""), "pgroot": root}
            analyze = True
        else:
            analyze = not info.get("analyzed")
        t = time.perf_counter()
        self.pgdata = os.path.join(root, "data")
        self.cache = cache
        d = bindir()
        user = server_user()
        port = free_port()
        r = as_user(user, [os.path.join(d, "pg_ctl"), "-D", self.pgdata, "-l", os.path.join(root, "server.log"), "-o", f"-p {port}", "-w", "-t", "120", "start"], capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"pg_ctl start failed: {r.stdout[-500:]} {r.stderr[-500:]}")
        for _ in range(100):
            try:
                self.con = psycopg.connect(host="127.0.0.1", port=port, user=DB_USER, dbname="postgres", autocommit=True)
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

    def _run(self, query, args, timeout_ms):
        import psycopg

        if timeout_ms != self.timeout_ms:
            self.cur.execute(f"SET statement_timeout = {int(timeout_ms)}")
            self.timeout_ms = timeout_ms
        try:
            return self.cur.execute(query, args, prepare=True).fetchall()
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
            d = bindir()
            as_user(server_user(), [os.path.join(d, "pg_ctl"), "-D", self.pgdata, "-m", "fast", "-w", "-t", "120", "stop"], capture_output=True)

    @staticmethod
    def cleanup(cache):
        stop(cache, remove=False)


# ---------------------------------------------------------------------------------------------
# Retrieval mix Q1-Q7 (bench/retrieval, bench/sweep)

RETRIEVAL_SQL = sql.retrieval_statements(lambda n: f"%({n})s", ' COLLATE "C"')


class PostgresRetrieval(RowQueries, Retrieval, PostgresDeep):
    """The deep engine's server, queried over psycopg 3 with server-side prepared statements
    (prepare=True), one connection per thread. Q6 orders ids with COLLATE "C" (byte order, as every
    other engine)."""

    def prepare(self, data, cache, reload):
        info = super().prepare(data, cache, reload)
        server = info["notes"].split(";")[0]  # the deep engine's note: the server's address and shared_buffers
        info["notes"] = f"{server}; psycopg prepare=True (server-side prepared statements), autocommit, one connection per thread"
        return info

    def fork(self):
        import psycopg

        c = copy.copy(self)
        c.con = psycopg.connect(**self.con.info.get_parameters(), autocommit=True)
        c.cur = c.con.cursor()
        return c

    def release(self):
        self.con.close()

    def _rows(self, kind, seed):
        return self.cur.execute(RETRIEVAL_SQL[kind], sql.retrieval_args(kind, seed), prepare=True).fetchall()

    def query_text(self):
        return dict(RETRIEVAL_SQL)


# ---------------------------------------------------------------------------------------------
# UnumDB suite (bench/unum)

UNUM_SQL = sql.unum_statements("%s")
UNUM_SETTINGS = {
    "listen_addresses": "'127.0.0.1'",
    "unix_socket_directories": "''",
    "synchronous_commit": "off",
    "wal_level": "minimal",
    "max_wal_senders": "0",
    "max_wal_size": "'4GB'",
    "logging_collector": "off",
}


class PostgresUnum(UnumEngine):
    """A private server started for the run and stopped after it.

    Settings: synchronous_commit=off (a commit survives the server process being killed — the WAL
    is written, fsynced shortly after by the WAL writer — the counterpart of HopDB's
    durability="process"); fsync on; wal_level=minimal with max_wal_senders=0 so the COPY into a
    table created in the same transaction skips the WAL (the manual's "Populating a Database");
    otherwise the defaults (shared_buffers 128 MB). Client: psycopg 3 over TCP, server-side
    prepared statements (prepare=True).

    Import (timed): one transaction: CREATE TABLE edges(src integer, dst integer, weight double
    precision), COPY FROM STDIN (csv, header) streaming the file, the two indexes of sql.py; then
    ANALYZE. Single operations run in autocommit mode; a batch is executemany (pipelined by
    psycopg) in one transaction. The peak RSS is the server's process tree (the client is not
    counted)."""

    durability = "synchronous_commit=off, fsync on (survives a server kill; WAL fsynced by the WAL writer)"
    notes = "COPY in one transaction, unique (src,dst) + (dst,src) B-tree indexes, ANALYZE; psycopg 3 prepared statements"

    def version(self):
        p = probe()
        if not p.get("available"):
            raise Unavailable(p.get("reason"))
        return p["version"]

    def open(self, work):
        self.work = work
        self.con, _port, self.pid, self.pgdata = start_server(work, UNUM_SETTINGS, prefix="hopdb-unum-pg-", autocommit=True)
        self.cur = self.con.cursor()

    def server_pid(self):
        return self.pid

    def _q(self, key, args):
        return self.cur.execute(UNUM_SQL[key], args, prepare=True)

    def load(self, csv_path):
        with self.con.transaction():
            self.cur.execute("CREATE TABLE edges (src integer NOT NULL, dst integer NOT NULL, weight double precision NOT NULL)")
            with open(csv_path, "rb") as f, self.cur.copy("COPY edges (src, dst, weight) FROM STDIN (FORMAT csv, HEADER true)") as cp:
                while block := f.read(1 << 20):
                    cp.write(block)
            for stmt in sql.UNUM_INDEXES:
                self.cur.execute(stmt)
        self.cur.execute("ANALYZE edges")

    def settle(self):
        self.cur.execute("CHECKPOINT")

    def disk_bytes(self):
        return self.cur.execute("SELECT pg_total_relation_size('edges')").fetchone()[0]

    def find_edge(self, u, v):
        return self._q("find_edge", (u, v, v, u)).fetchone()

    def find_directed(self, u, v):
        return self._q("find_directed", (u, v)).fetchone()

    def edges_of(self, v):
        return self._q("edges_of", (v, v)).fetchall()

    def in_edges(self, v):
        return self._q("in_edges", (v,)).fetchall()

    def neighbors(self, v):
        return self._q("neighbors", (v, v)).fetchall()

    def count_out(self, v):
        return self._q("count_out", (v,)).fetchone()

    def count_in(self, v):
        return self._q("count_in", (v,)).fetchone()

    def upsert(self, u, v, w):
        self._q("upsert", (u, v, w))

    def upsert_batch(self, rows):
        with self.con.transaction():
            self.cur.executemany(UNUM_SQL["upsert"], rows)

    def remove(self, u, v):
        self._q("remove", (u, v))

    def remove_batch(self, pairs):
        with self.con.transaction():
            self.cur.executemany(UNUM_SQL["remove"], pairs)

    def edge_count(self):
        return self.cur.execute(UNUM_SQL["count"]).fetchone()[0]

    def close(self):
        self.con.close()
        stop(self.work, remove=True)

    @staticmethod
    def cleanup(work):
        stop(work, remove=True)
