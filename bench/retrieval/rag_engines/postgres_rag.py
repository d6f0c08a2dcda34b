"""PostgreSQL 15: bench/deep's engine (bench/import's flat tables on a private server, ANALYZE),
queried over psycopg 3 with server-side prepared statements (prepare=True), one connection per
thread. Q6 orders ids with COLLATE "C" (byte order, as every other engine)."""

import copy

from engines.postgres_engine import Postgres

from . import sql
from .base import Retrieval, RowQueries

SQL = sql.statements(lambda n: f"%({n})s", ' COLLATE "C"')


class PostgresRetrieval(RowQueries, Retrieval, Postgres):
    def prepare(self, data, cache, reload):
        info = super().prepare(data, cache, reload)
        server = info["notes"].split(";")[0]  # bench/deep's note: the server's address and shared_buffers
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
        return self.cur.execute(SQL[kind], sql.args(kind, seed), prepare=True).fetchall()

    def query_text(self):
        return dict(SQL)
