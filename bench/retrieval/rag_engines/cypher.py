"""Q1-Q7 in Cypher for Kuzu and Neo4j (node tables/labels Document, Chunk, Entity keyed by id;
HAS_CHUNK, MENTIONS), with $parameters, or (Kuzu's literal form) the ids inlined.

Q7 matches its chunks and then, in a second MATCH, their entities: in one pattern Neo4j's
relationship uniqueness would drop a seed entity reached back over its own MENTIONS edge, which
the walk the other engines do keeps. `WHERE e.id IN $ids` rather than `UNWIND $ids AS i MATCH (e:Entity
{id: i})`: both are index lookups, the first was 3x faster in Kuzu (2.3 vs 7.7 ms at S=0.02)."""

from shared import base
from workload import LIMIT, TOP

CO = "MATCH (c:Chunk {{id: {id}}})-[:MENTIONS]->(:Entity)<-[:MENTIONS]-(o:Chunk) WHERE o.id <> {id}"

TEMPLATES = {
    "q1": "MATCH (c:Chunk {{id: {id}}}) RETURN c.doc_id, c.ordinal, c.word_count, c.section_title",
    "q2": f"MATCH (c:Chunk {{{{id: {{id}}}}}})-[:MENTIONS]->(e:Entity) RETURN e.id LIMIT {LIMIT}",
    "q3": f"MATCH (e:Entity {{{{id: {{id}}}}}})<-[:MENTIONS]-(c:Chunk) RETURN c.id LIMIT {LIMIT}",
    "q4": f"{CO} RETURN DISTINCT o.id LIMIT {LIMIT}",
    "q5": "MATCH (d:Document {{id: {id}}})-[:HAS_CHUNK]->(c:Chunk) RETURN c.id",
    "q6": f"{CO} RETURN o.id AS id, count(*) AS n ORDER BY n DESC, id LIMIT {TOP}",
    "q7": "MATCH (e:Entity)<-[:MENTIONS]-(c:Chunk) WHERE e.id IN {ids} WITH DISTINCT c "
    f"MATCH (c)-[:MENTIONS]->(f:Entity) RETURN DISTINCT f.id LIMIT {LIMIT}",
}

PARAMETERISED = {k: t.format(id="$id", ids="$ids") for k, t in TEMPLATES.items()}


def params(kind, seed):
    return {"ids": list(seed)} if kind == "q7" else {"id": seed}


def literal(kind, seed):
    """The query with its ids inlined (checked against a strict pattern by bench/deep's lit())."""
    if kind == "q7":
        return TEMPLATES[kind].format(ids="[" + ", ".join(base.lit(e) for e in seed) + "]")
    return TEMPLATES[kind].format(id=base.lit(seed))
