"""The LightRAG call mix (issue 6, workload 1): the graph-storage calls LightRAG makes while it
answers and ingests, on the entity pool of the retrieval queries file.

    get_node 35%, get_node_edges 25%, upsert_node 15%, node_degree 15%, has_node 10%

upsert_node is idempotent: it writes the entity's current properties back (LightRAG's
NetworkXStorage.upsert_node is `graph.add_node(id, **data)`), so the data never drift and every
engine and run sees the same graph. The native load generator draws its own sequence with these
weights; the Python client uses `sequence()` (fixed RNG seed: every engine runs the same calls).
"""

import random

KINDS = {
    "get_node": 0.35,
    "get_node_edges": 0.25,
    "upsert_node": 0.15,
    "node_degree": 0.15,
    "has_node": 0.10,
}
KIND_NAMES = list(KINDS)
ENTITY_PROPS = ("canonical_title", "entity_type")


def sequence(n, pool_size, rng_seed):
    """n (kind, entity pool index) pairs: the kind by the weights, the index uniform."""
    rng = random.Random(rng_seed)
    kinds, weights = KIND_NAMES, [KINDS[k] for k in KIND_NAMES]
    return [(rng.choices(kinds, weights)[0], rng.randrange(pool_size)) for _ in range(n)]


class NetworkXLightRAG:
    """The five calls on bench/retrieval's nx.DiGraph the way LightRAG's NetworkXStorage makes them
    (node attribute dicts, degree = in + out). Threads share the graph; the GIL serialises them."""

    def __init__(self, G):
        self.G = G

    def fork(self):
        return self

    def release(self):
        pass

    def get_node(self, e):
        a = self.G.nodes.get(e)
        return None if a is None else dict(a)

    def get_node_edges(self, e):
        if e not in self.G:
            return None
        return [(e, v) for v in self.G.succ[e]] + [(u, e) for u in self.G.pred[e]]

    def upsert_node(self, e):
        self.G.add_node(e, **dict(self.G.nodes[e]))

    def node_degree(self, e):
        return self.G.degree(e)

    def has_node(self, e):
        return self.G.has_node(e)


TYPES = "MENTIONS|HAS_CHUNK"  # the graph's own edge types (FalkorDB's graph also holds reversed copies)
CYPHER = {
    "get_node": "MATCH (n:Entity {id: $id}) RETURN properties(n)",
    "get_node_edges": f"MATCH (n:Entity {{id: $id}})-[:{TYPES}]->(m) RETURN n.id AS src, m.id AS dst "
    f"UNION ALL MATCH (n:Entity {{id: $id}})<-[:{TYPES}]-(m) RETURN m.id AS src, n.id AS dst",
    "upsert_node": "MERGE (n:Entity {id: $id}) SET " + ", ".join(f"n.{p} = ${p}" for p in ENTITY_PROPS),
    "node_degree": f"MATCH (n:Entity {{id: $id}})-[r:{TYPES}]-() RETURN count(r)",
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
        rows = self.run(CYPHER["get_node"], {"id": e}, False)
        return dict(rows[0][0]) if rows else None

    def get_node_edges(self, e):
        return [tuple(r) for r in self.run(CYPHER["get_node_edges"], {"id": e}, False)] or None

    def upsert_node(self, e):
        self.run(CYPHER["upsert_node"], dict(self.props[e], id=e), True)

    def node_degree(self, e):
        return self.run(CYPHER["node_degree"], {"id": e}, False)[0][0]

    def has_node(self, e):
        return bool(self.run(CYPHER["has_node"], {"id": e}, False)[0][0])


def _kuzu_str(s):
    """A Cypher string literal: Kuzu plans `n.id = $x` as a scan, a literal id uses the primary-key
    index (bench/retrieval's finding), so the reads inline the id."""
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"


class KuzuLightRAG:
    """The five calls in Kuzu's Cypher on bench/import's node and rel tables (Entity; only
    MENTIONS, Chunk -> Entity, touches an entity), the database opened read-write, one Connection
    per thread. Kuzu commits each write transaction with a WAL sync."""

    def __init__(self, db, props):
        import kuzu

        self.db, self.props = db, props
        self.con = kuzu.Connection(db)

    def fork(self):
        return KuzuLightRAG(self.db, self.props)

    def release(self):
        self.con.close()

    def _rows(self, q, params=None):
        return (self.con.execute(q, params) if params else self.con.execute(q)).get_all()

    def get_node(self, e):
        rows = self._rows(f"MATCH (n:Entity) WHERE n.id = {_kuzu_str(e)} RETURN " + ", ".join(f"n.{p}" for p in ENTITY_PROPS))
        return dict(zip(ENTITY_PROPS, rows[0])) if rows else None

    def get_node_edges(self, e):
        return [tuple(r) for r in self._rows(f"MATCH (c:Chunk)-[:MENTIONS]->(n:Entity) WHERE n.id = {_kuzu_str(e)} RETURN c.id, n.id")] or None

    def upsert_node(self, e):
        sets = ", ".join(f"n.{p} = ${p}" for p in ENTITY_PROPS)
        self._rows(f"MERGE (n:Entity {{id: {_kuzu_str(e)}}}) SET {sets}", {p: self.props[e][p] for p in ENTITY_PROPS})

    def node_degree(self, e):
        return self._rows(f"MATCH (c:Chunk)-[r:MENTIONS]->(n:Entity) WHERE n.id = {_kuzu_str(e)} RETURN count(r)")[0][0]

    def has_node(self, e):
        return bool(self._rows(f"MATCH (n:Entity) WHERE n.id = {_kuzu_str(e)} RETURN count(n) > 0")[0][0])


COZO = {
    "get_node": "?[" + ", ".join(ENTITY_PROPS) + "] := *entities{id: $id, " + ", ".join(ENTITY_PROPS) + "}",
    "get_node_edges": "?[c, e] := *mentions:by_dst{dst: $id, src: c}, e = $id",
    "upsert_node": "?[id, " + ", ".join(ENTITY_PROPS) + "] <- [[$id, " + ", ".join(f"${p}" for p in ENTITY_PROPS) + "]]\n"
    ":put entities {id => " + ", ".join(ENTITY_PROPS) + "}",
    "node_degree": "?[count(c)] := *mentions:by_dst{dst: $id, src: c}",
    "has_node": "?[id] := id = $id, *entities{id}",
}


class CozoLightRAG:
    """The five calls in CozoScript on bench/import's stored relations (entities keyed by id,
    mentions keyed (src, dst) with its :by_dst index), $parameters; one database object shared by
    the threads (it is thread-safe; Cozo allows one process per database)."""

    def __init__(self, db, props):
        self.db, self.props = db, props

    def fork(self):
        return self

    def release(self):
        pass

    def _rows(self, kind, params, read=True):
        return self.db.run_script(COZO[kind], params, read)["rows"]

    def get_node(self, e):
        rows = self._rows("get_node", {"id": e})
        return dict(zip(ENTITY_PROPS, rows[0])) if rows else None

    def get_node_edges(self, e):
        return [tuple(r) for r in self._rows("get_node_edges", {"id": e})] or None

    def upsert_node(self, e):
        self._rows("upsert_node", dict({p: self.props[e][p] for p in ENTITY_PROPS}, id=e), False)

    def node_degree(self, e):
        rows = self._rows("node_degree", {"id": e})
        return rows[0][0] if rows else 0

    def has_node(self, e):
        return bool(self._rows("has_node", {"id": e}))


def reference(entity_props, kg, e):
    """{call: expected answer} of one entity from the CSV files (JSON-able): entity_props[e] (its
    properties), kg a bench/retrieval reference KG (MENTIONS is the only edge type that touches
    an entity)."""
    edges = sorted([c, e] for c in kg.inc[e, "MENTIONS"])
    return {"get_node": entity_props.get(e), "get_node_edges": edges, "node_degree": len(edges), "has_node": e in entity_props}


READS = ("get_node", "get_node_edges", "node_degree", "has_node")
ABSENT = "ent-absent-0"  # an id no scale generates: has_node must say False


def check_items(expected):
    """[[call, entity, expected answer], ...]: every read call of each [entity, {call: answer}],
    and has_node of an absent id (the form of a queries file's check sample)."""
    return [[k, e, want[k]] for e, want in expected for k in READS] + [["has_node", ABSENT, False]]


def _props(got):
    """The entity's properties in an answer of get_node: a {name: value} dict in it (HopDB:
    [labels, props]; the Python clients: the dict), else the last values of a flat row in
    ENTITY_PROPS order (SQL: label, canonical_title, entity_type)."""
    if isinstance(got, dict):
        return {p: got.get(p) for p in ENTITY_PROPS}
    d = next((x for x in got if isinstance(x, dict)), None)
    if d is not None:
        return {p: d.get(p) for p in ENTITY_PROPS}
    return dict(zip(ENTITY_PROPS, list(got)[-len(ENTITY_PROPS) :]))


def check_answer(kind, got, want):
    """None if `got` (an engine's answer to a LightRAG read) is right, else why not."""
    if kind == "get_node":
        g = None if got is None else _props(got)
    elif kind == "get_node_edges":
        g = sorted(list(x) for x in got or [])
    elif kind == "node_degree":
        g = int(got) if got is not None else None
    else:
        g = bool(got)
    return None if g == want else f"got {str(g)[:200]}, expected {str(want)[:200]}"


def check(client, expected):
    """Ask the Python client every item of check_items(expected); [{"kind", "seed", "why"}] of the
    wrong answers."""
    problems = []
    for kind, e, want in check_items(expected):
        try:
            why = check_answer(kind, getattr(client, kind)(e), want)
        except Exception as x:
            why = f"{type(x).__name__}: {str(x)[:300]}"
        if why:
            problems.append({"kind": kind, "seed": e, "why": why})
    return problems
