"""PostgreSQL 15 (Debian): a private server, COPY into flat tables, indexes after the load.

Set-up, not timed: initdb (C locale, UTF8, trust auth on 127.0.0.1 only) into a private data
directory, then start the server on 127.0.0.1 at a free private port (never 5432). PostgreSQL
refuses to run as root, so as root the server runs as the `postgres` system user (a dedicated
`hopdb-bench` user if that does not exist) and its data directory lives under /var/tmp (same
file system) because that user cannot enter $HOME of root. Bulk-load settings from the manual's
"Populating a Database" (14.4): wal_level=minimal with max_wal_senders=0 (COPY into a table created
in the same transaction, and the index builds, skip WAL and are fsynced at commit instead),
max_wal_size=8GB, maintenance_work_mem=1GB; fsync and synchronous_commit stay on.

Timed: (load) one transaction: CREATE TABLE nodes(id, label, title, doc_id, ordinal, word_count,
section_title, canonical_title, entity_type) and edges(src, dst, type), then `COPY ... FROM
STDIN (FORMAT csv, HEADER true)` of each file with its column list (psycopg streams the file in
1 MiB blocks; the client's memory is not counted, the server's processes are); (index) ALTER
TABLE nodes ADD PRIMARY KEY (id), CREATE INDEX on edges(src) and on edges(dst). Not timed:
count(*) of both tables, CHECKPOINT, sizes. The server is stopped at the end, on failure too
(and by run.py's cleanup if the adapter itself is killed). Its data directory is removed then,
unless the option keep=1 is given (bench/deep loads its PostgreSQL database with this adapter
and keeps it; `WORK/pgroot.path` names the directory holding data/).
"""

import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import time

# Replace this script's own directory on the path (adapters/kuzu.py would shadow the kuzu package).
sys.path[0] = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
from common import EDGE_COLUMNS, EDGE_FILES, NODE_COLUMNS, NODE_FILES, Timer, adapter_main, dir_bytes  # noqa: E402

DB_USER = "bench"
SETTINGS = {
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
    d = bindir()
    if d is None and os.geteuid() == 0 and shutil.which("apt-get"):
        subprocess.run(["apt-get", "update"], capture_output=True)
        subprocess.run(["apt-get", "install", "-y", "postgresql"], capture_output=True, env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
        d = bindir()
    if d is None:
        return {"available": False, "reason": "PostgreSQL server binaries not found (apt-get install postgresql, or set PG_BIN)"}
    import psycopg  # noqa: F401

    v = subprocess.run([os.path.join(d, "postgres"), "--version"], capture_output=True, text=True).stdout.strip()
    return {"available": True, "version": v + f" (psycopg {psycopg.__version__})"}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _root_dir(work):
    """The directory holding data/ and server.log: inside work, or under /var/tmp when root."""
    p = os.path.join(work, "pgroot.path")
    return open(p).read().strip() if os.path.exists(p) else None


def stop(work, remove=True):
    root = _root_dir(work)
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
        log = open(os.path.join(root, "server.log")).read()[-1500:] if os.path.exists(os.path.join(root, "server.log")) else ""
        raise RuntimeError(f"pg_ctl start failed: {r.stdout[-500:]} {r.stderr[-500:]} {log}")
    postmaster = int(open(os.path.join(pgdata, "postmaster.pid")).readline())
    for _ in range(100):
        try:
            return psycopg.connect(host="127.0.0.1", port=port, user=DB_USER, dbname="postgres", autocommit=autocommit), port, postmaster, pgdata
        except psycopg.OperationalError:
            time.sleep(0.1)
    raise RuntimeError("server does not accept connections")


def run(data, work, ctl, opts):
    try:
        con, port, postmaster, pgdata = start_server(work, SETTINGS)
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
        for name, sql in [
            ("nodes_pkey", "ALTER TABLE nodes ADD PRIMARY KEY (id)"),
            ("edges_src", "CREATE INDEX edges_src ON edges (src)"),
            ("edges_dst", "CREATE INDEX edges_dst ON edges (dst)"),
        ]:
            t1 = time.perf_counter()
            cur.execute(sql)
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


def cleanup(work):
    stop(work, remove=True)


if __name__ == "__main__":
    adapter_main(probe, run, cleanup)
