"""Kuzu: bench/deep's engine (bench/import's node and rel tables, the database opened read-only),
Cypher through the Python API, one Connection per thread on the one Database. Three forms
(variants), measured on the same queries by the worker, the fastest kept: `literal` (ids inlined
in the text), `params` (con.execute(text, {"id": ...})) and `prepared` (con.prepare(text) once per
connection, then con.execute(stmt, params); Kuzu 0.11.3 warns that this
separate prepare + execute is deprecated, but it is the fastest form)."""

import copy

from engines.kuzu_engine import Kuzu

from . import cypher
from .base import Retrieval, RowQueries


class KuzuRetrieval(RowQueries, Retrieval, Kuzu):
    variants = ("literal", "params", "prepared")
    variant = "prepared"

    def prepare(self, data, cache, reload):
        info = super().prepare(data, cache, reload)
        info["notes"] = "Cypher, one Connection per thread on the read-only Database"
        self.stmts = {}
        return info

    def fork(self):
        import kuzu

        c = copy.copy(self)
        c.con = kuzu.Connection(self.db)
        c.stmts = {}
        return c

    def release(self):
        self.con.close()

    def _rows(self, kind, seed):
        if self.variant == "literal":
            return self.con.execute(cypher.literal(kind, seed)).get_all()
        if self.variant == "params":
            return self.con.execute(cypher.PARAMETERISED[kind], cypher.params(kind, seed)).get_all()
        st = self.stmts.get(kind)
        if st is None:
            st = self.stmts[kind] = self.con.prepare(cypher.PARAMETERISED[kind])
        return self.con.execute(st, cypher.params(kind, seed)).get_all()

    def query_text(self):
        return dict(cypher.PARAMETERISED)
