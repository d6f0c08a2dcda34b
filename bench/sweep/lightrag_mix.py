"""The LightRAG call mix (issue 6, workload 1): the graph-storage calls LightRAG makes while it
answers and ingests, on the entity pool of the retrieval queries file.

    get_node 35%, get_node_edges 25%, upsert_node 15%, node_degree 15%, has_node 10%

upsert_node is idempotent: it writes the entity's current properties back (LightRAG's
NetworkXStorage.upsert_node is `graph.add_node(id, **data)`), so the data never drift and every
engine and run sees the same graph. The native load generator draws its own sequence with these
weights; the Python client uses `sequence()` (fixed RNG seed: every engine runs the same calls).
The engines' Python clients of the five calls are in bench/engines: networkx.NetworkXLightRAG,
kuzu.KuzuLightRAG, cozo.CozoLightRAG and cypher.CypherLightRAG (Neo4j, FalkorDB).
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
    return dict(zip(ENTITY_PROPS, list(got)[-len(ENTITY_PROPS) :], strict=False))


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
