"""PostgreSQL 15 (Debian package), a private server on 127.0.0.1 started for the run and stopped
after it (bench/import/adapters/postgres.py's helpers: bindir, server_user, as_user, free_port,
stop; as root the server runs as the `postgres` user with its data directory under /var/tmp).

Settings: synchronous_commit=off (a commit survives the server process being killed — the WAL
is written, fsynced shortly after by the WAL writer — the counterpart of HopDB's
durability="process"); fsync on; wal_level=minimal with max_wal_senders=0 so the COPY into a
table created in the same transaction skips the WAL (the manual's "Populating a Database");
otherwise the defaults (shared_buffers 128 MB). Client: psycopg 3 over TCP, server-side prepared
statements (prepare=True).

Import (timed): one transaction: CREATE TABLE edges(src integer, dst integer, weight double
precision), COPY FROM STDIN (csv, header) streaming the file, the two indexes of sql.py; then
ANALYZE. Single operations run in autocommit mode; a batch is executemany (pipelined by psycopg)
in one transaction. The peak RSS is the server's process tree (the client is not counted).
"""

from .base import Engine, Unavailable
from .sql import INDEXES, statements

S = statements("%s")
SETTINGS = {
    "listen_addresses": "'127.0.0.1'",
    "unix_socket_directories": "''",
    "synchronous_commit": "off",
    "wal_level": "minimal",
    "max_wal_senders": "0",
    "max_wal_size": "'4GB'",
    "logging_collector": "off",
}


def pg():
    from shared import pg_adapter

    return pg_adapter()


class Postgres(Engine):
    durability = "synchronous_commit=off, fsync on (survives a server kill; WAL fsynced by the WAL writer)"
    notes = "COPY in one transaction, unique (src,dst) + (dst,src) B-tree indexes, ANALYZE; psycopg 3 prepared statements"

    def version(self):
        p = pg().probe()
        if not p.get("available"):
            raise Unavailable(p.get("reason"))
        return p["version"]

    def open(self, work):
        self.work = work
        self.con, _port, self.pid, self.pgdata = pg().start_server(work, SETTINGS, prefix="hopdb-unum-pg-", autocommit=True)
        self.cur = self.con.cursor()

    def server_pid(self):
        return self.pid

    def _q(self, key, args):
        return self.cur.execute(S[key], args, prepare=True)

    def load(self, csv_path):
        with self.con.transaction():
            self.cur.execute("CREATE TABLE edges (src integer NOT NULL, dst integer NOT NULL, weight double precision NOT NULL)")
            with open(csv_path, "rb") as f, self.cur.copy("COPY edges (src, dst, weight) FROM STDIN (FORMAT csv, HEADER true)") as cp:
                while block := f.read(1 << 20):
                    cp.write(block)
            for sql in INDEXES:
                self.cur.execute(sql)
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
            self.cur.executemany(S["upsert"], rows)

    def remove(self, u, v):
        self._q("remove", (u, v))

    def remove_batch(self, pairs):
        with self.con.transaction():
            self.cur.executemany(S["remove"], pairs)

    def edge_count(self):
        return self.cur.execute(S["count"]).fetchone()[0]

    def close(self):
        self.con.close()
        pg().stop(self.work, remove=True)

    @staticmethod
    def cleanup(work):
        pg().stop(work, remove=True)
