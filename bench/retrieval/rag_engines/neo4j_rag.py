"""Neo4j 5.26: bench/deep's engine (neo4j-admin import, embedded server with Bolt on 127.0.0.1,
unique constraint on Entity.id), plus unique constraints on Chunk.id and Document.id (the index
the Q1/Q4/Q5/Q6 lookups need; created once, kept in the database). Parameterised Cypher in
auto-commit transactions on one session per thread (the driver is shared)."""

import copy
import time

from engines.neo4j_engine import Neo4j

from . import cypher
from .base import Retrieval, RowQueries


class Neo4jRetrieval(RowQueries, Retrieval, Neo4j):
    def prepare(self, data, cache, reload):
        info = super().prepare(data, cache, reload)
        t = time.perf_counter()
        for label in ("Chunk", "Document"):
            self.session.run(f"CREATE CONSTRAINT {label.lower()}_id IF NOT EXISTS FOR (n:{label}) REQUIRE n.id IS UNIQUE").consume()
        self.session.run("CALL db.awaitIndexes(3600)").consume()
        info["notes"] = info["notes"].replace("auto-commit transactions with a timeout", "auto-commit transactions (session.run), one session per thread")
        info["notes"] += f"; unique constraints on Chunk.id and Document.id too ({time.perf_counter() - t:.1f} s)"
        return info

    def fork(self):
        c = copy.copy(self)
        c.session = self.driver.session(database="neo4j")
        return c

    def release(self):
        self.session.close()

    def _rows(self, kind, seed):
        return self.session.run(cypher.PARAMETERISED[kind], cypher.params(kind, seed)).values()

    def query_text(self):
        return dict(cypher.PARAMETERISED)
