"""The Cypher that Kuzu, Neo4j and FalkorDB share, per workload.

Retrieval Q1-Q7 (bench/retrieval): node tables/labels Document, Chunk, Entity keyed by id;
HAS_CHUNK, MENTIONS; with $parameters, or (Kuzu's literal form) the ids inlined. Q7 matches its
chunks and then, in a second MATCH, their entities: in one pattern Neo4j's relationship
uniqueness would drop a seed entity reached back over its own MENTIONS edge, which the walk the
other engines do keeps. `WHERE e.id IN $ids` rather than `UNWIND $ids AS i MATCH (e:Entity
{id: i})`: both are index lookups, the first was 3x faster in Kuzu (2.3 vs 7.7 ms at S=0.02).

LightRAG call mix (bench/sweep, Neo4j and FalkorDB): the five calls as LightRAG's Neo4J/FalkorDB
storages make them, on the Entity label (CypherLightRAG).
"""

from bench.retrieval.workload import LIMIT, TOP
from bench.sweep.lightrag_mix import ENTITY_PROPS

from .base import lit

# ---------------------------------------------------------------------------------------------
# Retrieval mix Q1-Q7

CO = "MATCH (c:Chunk {{id: {id}}})-[:MENTIONS]->(:Entity)<-[:MENTIONS]-(o:Chunk) WHERE o.id <> {id}"

RETRIEVAL_TEMPLATES = {
    "q1": "MATCH (c:Chunk {{id: {id}}}) RETURN c.doc_id, c.ordinal, c.word_count, c.section_title",
    "q2": f"MATCH (c:Chunk {{{{id: {{id}}}}}})-[:MENTIONS]->(e:Entity) RETURN e.id LIMIT {LIMIT}",
    "q3": f"MATCH (e:Entity {{{{id: {{id}}}}}})<-[:MENTIONS]-(c:Chunk) RETURN c.id LIMIT {LIMIT}",
    "q4": f"{CO} RETURN DISTINCT o.id LIMIT {LIMIT}",
    "q5": "MATCH (d:Document {{id: {id}}})-[:HAS_CHUNK]->(c:Chunk) RETURN c.id",
    "q6": f"{CO} RETURN o.id AS id, count(*) AS n ORDER BY n DESC, id LIMIT {TOP}",
    "q7": "MATCH (e:Entity)<-[:MENTIONS]-(c:Chunk) WHERE e.id IN {ids} WITH DISTINCT c "
    f"MATCH (c)-[:MENTIONS]->(f:Entity) RETURN DISTINCT f.id LIMIT {LIMIT}",
}

RETRIEVAL = {k: t.format(id="$id", ids="$ids") for k, t in RETRIEVAL_TEMPLATES.items()}  # parameterised


def retrieval_params(kind, seed):
    return {"ids": list(seed)} if kind == "q7" else {"id": seed}


def retrieval_literal(kind, seed):
    """The query with its ids inlined (checked against a strict pattern by base.lit())."""
    if kind == "q7":
        return RETRIEVAL_TEMPLATES[kind].format(ids="[" + ", ".join(lit(e) for e in seed) + "]")
    return RETRIEVAL_TEMPLATES[kind].format(id=lit(seed))


# ---------------------------------------------------------------------------------------------
# LightRAG call mix

LIGHTRAG_TYPES = "MENTIONS|HAS_CHUNK"  # the graph's own edge types (FalkorDB's graph also holds reversed copies)
LIGHTRAG = {
    "get_node": "MATCH (n:Entity {id: $id}) RETURN properties(n)",
    "get_node_edges": f"MATCH (n:Entity {{id: $id}})-[:{LIGHTRAG_TYPES}]->(m) RETURN n.id AS src, m.id AS dst "
    f"UNION ALL MATCH (n:Entity {{id: $id}})<-[:{LIGHTRAG_TYPES}]-(m) RETURN m.id AS src, n.id AS dst",
    "upsert_node": "MERGE (n:Entity {id: $id}) SET " + ", ".join(f"n.{p} = ${p}" for p in ENTITY_PROPS),
    "node_degree": f"MATCH (n:Entity {{id: $id}})-[r:{LIGHTRAG_TYPES}]-() RETURN count(r)",
    "has_node": "MATCH (n:Entity {id: $id}) RETURN count(n) > 0",
}


class CypherLightRAG:
    """The five calls in Cypher (Neo4j, FalkorDB), as LightRAG's Neo4J/FalkorDB storages make
    them, on the Entity label. run(query, params, write) -> rows; make_run() gives a thread its
    own run (a session where the driver needs one); props: {entity: its current properties}, which
    upsert_node writes back."""

    def __init__(self, make_run, props):
        self.make_run, self.props = make_run, props
        self.run = make_run()

    def fork(self):
        return CypherLightRAG(self.make_run, self.props)

    def release(self):
        getattr(self.run, "close", lambda: None)()

    def get_node(self, e):
        rows = self.run(LIGHTRAG["get_node"], {"id": e}, False)
        return dict(rows[0][0]) if rows else None

    def get_node_edges(self, e):
        return [tuple(r) for r in self.run(LIGHTRAG["get_node_edges"], {"id": e}, False)] or None

    def upsert_node(self, e):
        self.run(LIGHTRAG["upsert_node"], dict(self.props[e], id=e), True)

    def node_degree(self, e):
        return self.run(LIGHTRAG["node_degree"], {"id": e}, False)[0][0]

    def has_node(self, e):
        return bool(self.run(LIGHTRAG["has_node"], {"id": e}, False)[0][0])
