"""``hopdb.lightrag.HopDBGraphStorage``, LightRAG's graph storage on HopDB.

1. LightRAG's own graph-storage scenarios (upstream ``tests/kg/test_graph_storage.py``:
   basic, advanced, batch operations, batch upsert, query helpers, special characters, string
   escaping, undirected property), restated and run against HopDB *and* NetworkXStorage (the
   reference passing them checks the restatement).
2. A differential test: thousands of random LightRAG storage calls (fixed seeds) against
   NetworkXStorage and HopDBGraphStorage side by side, answers required identical.
3. A whole LightRAG run with a fake LLM and fake embeddings, HopDB as the graph storage:
   insert, query, edit, rename, merge, delete a document; the graph must hold exactly what
   the fake model extracted, and equal NetworkX's after every stage.
4. HopDB specifics: registration, lazy import, workspaces, persistence, the one-writer rule,
   drop's status, migration from LightRAG's GraphML.

Needs lightrag-hku (scripts/requirements-test.txt); skipped without it.
"""

from __future__ import annotations

import asyncio
import os
import random
import subprocess
import sys
import textwrap
from typing import Any, Awaitable, Callable

import pytest

import hopdb
import hopdb.lightrag

sys.path.insert(0, os.path.dirname(__file__))
import lightrag_support as support  # noqa: E402

requires_lightrag = pytest.mark.skipif(
    not support.have_lightrag(),
    reason="lightrag-hku is not installed (pip install -r scripts/requirements-test.txt)",
)

BACKENDS = ["HopDBGraphStorage", "NetworkXStorage"]
SEP = "<SEP>"  # lightrag.constants.GRAPH_FIELD_SEP


def run_with(backend: str, working_dir: Any, scenario: Callable[[Any], Awaitable[None]], **config: Any) -> None:
    """Runs `scenario(storage)` on a fresh, initialized storage (dropped before and after, as
    the upstream fixture does), in one event loop."""

    async def main() -> None:
        s = support.make_storage(backend, working_dir, **config)
        await s.initialize()
        try:
            assert await s.drop() == {"status": "success", "message": "data dropped"}
            await scenario(s)
        finally:
            await s.drop()
            await s.finalize()

    asyncio.run(main())


def node(name: str, **extra: Any) -> dict[str, Any]:
    return {"entity_id": name, "description": f"{name} description", "keywords": "k1,k2", "entity_type": "T", **extra}


def edge(rel: str, weight: float = 1.0, **extra: Any) -> dict[str, Any]:
    return {"relationship": rel, "weight": weight, "description": f"{rel} description", **extra}


def connects(edges: list[tuple[str, str]], a: str, b: str) -> bool:
    return any({s, t} == {a, b} for s, t in edges)


# ---- 1. LightRAG's graph-storage scenarios ---------------------------------------------------


@requires_lightrag
@pytest.mark.parametrize("backend", BACKENDS)
def test_graph_basic(backend, tmp_path):
    async def scenario(s):
        a, b = "Artificial Intelligence", "Machine Learning"
        await s.upsert_node(a, node(a))
        await s.upsert_node(b, node(b))
        e = edge("includes")
        await s.upsert_edge(a, b, e)
        props = await s.get_node(a)
        assert props["entity_id"] == a and props["description"] == node(a)["description"]
        assert props["entity_type"] == "T"
        fwd = await s.get_edge(a, b)
        assert fwd["relationship"] == "includes" and fwd["description"] == e["description"]
        assert fwd["weight"] == 1.0
        assert await s.get_edge(b, a) == fwd  # undirected

    run_with(backend, tmp_path, scenario)


@requires_lightrag
@pytest.mark.parametrize("backend", BACKENDS)
def test_graph_advanced(backend, tmp_path):
    async def scenario(s):
        n1, n2, n3 = "Artificial Intelligence", "Machine Learning", "Deep Learning"
        for n in (n1, n2, n3):
            await s.upsert_node(n, node(n))
        await s.upsert_edge(n1, n2, edge("includes"))
        await s.upsert_edge(n2, n3, edge("includes"))
        assert [await s.node_degree(n) for n in (n1, n2, n3)] == [1, 2, 1]
        assert await s.edge_degree(n1, n2) == 3 == await s.edge_degree(n2, n1)
        e2 = await s.get_node_edges(n2)
        assert len(e2) == 2 and connects(e2, n1, n2) and connects(e2, n2, n3)
        labels = await s.get_all_labels()
        assert len(labels) == 3 and {n1, n2, n3} <= set(labels)
        kg = await s.get_knowledge_graph("*", max_depth=2, max_nodes=10)
        from lightrag.types import KnowledgeGraph

        assert isinstance(kg, KnowledgeGraph) and len(kg.nodes) == 3 and len(kg.edges) == 2
        assert all(n.properties.get("entity_id") in {n1, n2, n3} for n in kg.nodes)
        await s.delete_node(n3)
        assert await s.get_node(n3) is None
        await s.upsert_node(n3, node(n3))
        await s.upsert_edge(n2, n3, edge("includes"))
        await s.remove_edges([(n2, n3)])
        assert await s.get_edge(n2, n3) is None and await s.get_edge(n3, n2) is None
        await s.remove_nodes([n2, n3])
        assert await s.get_node(n2) is None and await s.get_node(n3) is None

    run_with(backend, tmp_path, scenario)


@requires_lightrag
@pytest.mark.parametrize("backend", BACKENDS)
def test_graph_batch_operations(backend, tmp_path):
    async def scenario(s):
        n1, n2, n3, n4, n5 = "AI", "ML", "DL", "NLP", "CV"
        chunks = {n1: ["1", "2"], n2: ["2", "3"], n3: ["3"]}
        for n in (n1, n2, n3, n4, n5):
            extra = {"source_id": SEP.join(chunks[n])} if n in chunks else {}
            await s.upsert_node(n, node(n, **extra))
        rels = {
            (n1, n2): edge("includes", source_id="1<SEP>2"),
            (n2, n3): edge("includes", source_id="2<SEP>3"),
            (n1, n4): edge("includes", source_id="3"),
            (n1, n5): edge("includes"),
            (n3, n4): edge("applied to", 0.8),
            (n3, n5): edge("applied to", 0.8),
        }
        for (a, b), e in rels.items():
            await s.upsert_edge(a, b, e)
        got = await s.get_nodes_batch([n1, n2, n3])
        assert set(got) == {n1, n2, n3} and all(got[n]["description"] == node(n)["description"] for n in got)
        assert await s.node_degrees_batch([n1, n2, n3]) == {n1: 3, n2: 2, n3: 3}
        pairs = [(n1, n2), (n2, n3), (n3, n4)]
        assert await s.edge_degrees_batch(pairs) == {(n1, n2): 5, (n2, n3): 5, (n3, n4): 5}
        fwd = await s.get_edges_batch([{"src": a, "tgt": b} for a, b in pairs])
        assert set(fwd) == set(pairs) and all(fwd[p]["relationship"] == rels[p]["relationship"] for p in pairs)
        rev = await s.get_edges_batch([{"src": b, "tgt": a} for a, b in pairs])
        assert len(rev) == 3 and all(rev[(b, a)] == props for (a, b), props in fwd.items())
        ne = await s.get_nodes_edges_batch([n1, n3])
        assert set(ne) == {n1, n3} and len(ne[n1]) == 3 and len(ne[n3]) == 3
        out1 = {t for src, t in ne[n1] if src == n1}  # listed from the queried node
        assert {n2, n4, n5} <= out1
        assert all(connects(ne[n3], n3, x) for x in (n2, n4, n5))

    run_with(backend, tmp_path, scenario)


@requires_lightrag
@pytest.mark.parametrize("backend", BACKENDS)
def test_graph_batch_upsert(backend, tmp_path):
    async def scenario(s):
        nodes = [(f"E{i}", {"entity_id": f"E{i}", "description": d, "entity_type": "T"}) for i, d in
                 [(1, "first"), (2, "second"), (3, "third"), (4, "fourth"), (5, "fifth"), (1, "first-updated")]]
        await s.upsert_nodes_batch(nodes)
        for i in range(1, 6):
            assert await s.has_node(f"E{i}")
        assert await s.has_nodes_batch(["E1", "E3", "E5", "DOES_NOT_EXIST"]) == {"E1", "E3", "E5"}
        assert (await s.get_node("E1"))["description"] == "first-updated"  # last write wins
        got = await s.get_nodes_batch(["E2", "E3", "E4", "E5"])
        assert set(got) == {"E2", "E3", "E4", "E5"} and got["E3"]["description"] == "third"
        edges = [
            ("E1", "E2", {"relationship": "r12", "weight": 1.0, "description": "d12"}),
            ("E2", "E3", {"relationship": "r23", "weight": 1.0, "description": "d23"}),
            ("E3", "E4", {"relationship": "r34", "weight": 1.0, "description": "d34"}),
            ("E4", "E5", {"relationship": "r45", "weight": 1.0, "description": "d45"}),
            ("E2", "E1", {"relationship": "r12-updated", "weight": 2.0, "description": "d12-updated"}),
        ]
        await s.upsert_edges_batch(edges)
        for a, b in [("E1", "E2"), ("E2", "E3"), ("E3", "E4"), ("E4", "E5")]:
            fwd, rev = await s.get_edge(a, b), await s.get_edge(b, a)
            assert fwd is not None and fwd == rev
        e12 = await s.get_edge("E1", "E2")
        assert e12["relationship"] == "r12-updated" and e12["weight"] == 2.0
        assert [await s.node_degree(n) for n in ("E1", "E2", "E3", "E5")] == [1, 2, 2, 1]

    run_with(backend, tmp_path, scenario)


@requires_lightrag
@pytest.mark.parametrize("backend", BACKENDS)
def test_graph_query_helpers(backend, tmp_path):
    async def scenario(s):
        names = ["Alpha", "Beta", "Gamma", "Alphabet", "Orphan", "Aardvark"]  # Aardvark last on purpose
        for n in names:
            await s.upsert_node(n, {"entity_id": n, "description": f"desc of {n}", "entity_type": "T"})
        star = [("Alpha", "Beta"), ("Alpha", "Gamma"), ("Alpha", "Alphabet")]
        for a, b in star:
            await s.upsert_edge(a, b, {"relationship": "rel", "weight": 1.0, "description": "d"})
        assert {n.get("id") for n in await s.get_all_nodes()} == set(names)
        all_edges = await s.get_all_edges()
        assert len(all_edges) == 3
        assert {frozenset((e["source"], e["target"])) for e in all_edges} == {frozenset(p) for p in star}
        top = await s.get_popular_labels(limit=2)
        assert len(top) <= 2 and top[0] == "Alpha"
        ranked = await s.get_popular_labels(limit=len(names) + 5)
        assert set(ranked) == set(names) and ranked[0] == "Alpha"
        assert ranked[-2:] == ["Aardvark", "Orphan"]  # isolated, ordered by label, not insertion
        assert "Gamma" in await s.search_labels("Gam")
        assert "Alpha" in await s.search_labels("Alpha")
        misses = await s.search_labels("NoSuchEntityXYZ")
        assert "Alpha" not in misses and "Gamma" not in misses
        assert await s.get_node_edges("NoSuchEntityXYZ") is None
        assert await s.get_node_edges("Orphan") == []

    run_with(backend, tmp_path, scenario)


@requires_lightrag
@pytest.mark.parametrize("backend", BACKENDS)
def test_graph_special_characters(backend, tmp_path):
    async def scenario(s):
        ids = ["Node with 'single quotes'", 'Node with "double quotes"', "Node with \\backslashes\\"]
        descs = [
            "This description contains 'single quotes', \"double quotes\", and \\backslashes",
            "This description contains both 'single quotes' and \"double quotes\" and \\a\\path",
            "This description contains a Windows path C:\\Program Files\\ and escape characters \\n\\t",
        ]
        for i, d in zip(ids, descs):
            await s.upsert_node(i, {"entity_id": i, "description": d, "keywords": "special", "entity_type": "Test"})
        e1 = {"relationship": "special 'relationship'", "weight": 1.0, "description": "'single', \"double\", \\back"}
        e2 = {"relationship": 'complex "relationship"\\type', "weight": 0.8,
              "description": "Contains SQL injection attempt: SELECT * FROM users WHERE name='admin'--"}
        await s.upsert_edge(ids[0], ids[1], e1)
        await s.upsert_edge(ids[1], ids[2], e2)
        for i, d in zip(ids, descs):
            props = await s.get_node(i)
            assert props["entity_id"] == i and props["description"] == d
        for (a, b), e in [((ids[0], ids[1]), e1), ((ids[1], ids[2]), e2)]:
            got = await s.get_edge(a, b)
            assert got["relationship"] == e["relationship"] and got["description"] == e["description"]

    run_with(backend, tmp_path, scenario)


@requires_lightrag
@pytest.mark.parametrize("backend", BACKENDS)
def test_graph_string_escaping_regressions(backend, tmp_path):
    async def scenario(s):
        center, backslash = 'Danh mục "bài toán lớn"', r"C:\Program Files\LightRAG"
        mixed, single = 'Path "C:\\RAG\\docs"', "Node with 'single quotes'"
        payloads = {
            center: {"entity_id": center, "description": 'Quoted {"path": "C:\\\\temp"}', "entity_type": "R"},
            backslash: {"entity_id": backslash, "description": r"C:\Program Files\LightRAG\bin", "entity_type": "R"},
            mixed: {"entity_id": mixed, "description": 'Mixed quotes "and" slashes \\ in one id', "entity_type": "R"},
            single: {"entity_id": single, "description": "Single quotes stay literal", "entity_type": "R"},
        }
        for k, p in payloads.items():
            await s.upsert_node(k, p)
        rels = {
            (center, backslash): {"relationship": r'contains "path"\edge', "weight": 1.0, "description": r'"q" C:\P'},
            (center, mixed): {"relationship": 'references "docs"', "weight": 0.8, "description": r'"q" \\b\\'},
            (center, single): {"relationship": "mentions 'alias'", "weight": 0.6, "description": 'S "q"'},
        }
        for (a, b), p in rels.items():
            await s.upsert_edge(a, b, p)
        for k, p in payloads.items():
            got = await s.get_node(k)
            assert got["entity_id"] == k and got["description"] == p["description"]
        batch = await s.get_nodes_batch(list(payloads))
        assert set(batch) == set(payloads)
        assert all(batch[k]["description"] == p["description"] for k, p in payloads.items())
        assert await s.node_degrees_batch(list(payloads)) == {center: 3, backslash: 1, mixed: 1, single: 1}
        ce = await s.get_node_edges(center)
        assert all(connects(ce, center, x) for x in (backslash, mixed, single))
        be = await s.get_nodes_edges_batch([center, mixed, backslash, single])
        assert set(be) == set(payloads)
        assert all(connects(be[center], center, x) and connects(be[x], center, x) for x in (backslash, mixed, single))
        for (a, b), p in rels.items():
            fwd, rev = await s.get_edge(a, b), await s.get_edge(b, a)
            assert fwd["relationship"] == p["relationship"] == rev["relationship"]
            assert fwd["description"] == p["description"] == rev["description"]
            assert await s.has_edge(a, b) and await s.has_edge(b, a)
        fwd = await s.get_edges_batch([{"src": a, "tgt": b} for a, b in rels])
        rev = await s.get_edges_batch([{"src": b, "tgt": a} for a, b in rels])
        assert set(fwd) == set(rels)
        for (a, b), p in rels.items():
            assert fwd[(a, b)]["relationship"] == rev[(b, a)]["relationship"] == p["relationship"]
        await s.remove_edges([(center, mixed)])
        assert await s.get_edge(center, mixed) is None and await s.get_edge(mixed, center) is None
        assert not connects(await s.get_node_edges(center), center, mixed)
        await s.delete_node(single)
        assert await s.get_node(single) is None
        await s.remove_nodes([center, backslash])
        assert await s.get_node(center) is None and await s.get_node(backslash) is None
        assert await s.get_node(mixed) is not None

    run_with(backend, tmp_path, scenario)


@requires_lightrag
@pytest.mark.parametrize("backend", BACKENDS)
def test_graph_undirected_property(backend, tmp_path):
    async def scenario(s):
        cs, ds, al = "Computer Science", "Data Structures", "Algorithms"
        for n in (cs, ds, al):
            await s.upsert_node(n, node(n))
        await s.upsert_edge(cs, ds, edge("includes"))
        fwd, rev = await s.get_edge(cs, ds), await s.get_edge(ds, cs)
        assert fwd is not None and fwd == rev
        await s.upsert_edge(cs, al, edge("includes"))
        assert await s.edge_degree(cs, ds) == await s.edge_degree(ds, cs)
        await s.remove_edges([(cs, ds)])
        assert await s.get_edge(cs, ds) is None and await s.get_edge(ds, cs) is None
        await s.upsert_edge(cs, ds, edge("includes"))
        fwd = await s.get_edges_batch([{"src": cs, "tgt": ds}, {"src": cs, "tgt": al}])
        rev = await s.get_edges_batch([{"src": ds, "tgt": cs}, {"src": al, "tgt": cs}])
        assert all(rev[(b, a)] == p for (a, b), p in fwd.items())
        ne = await s.get_nodes_edges_batch([cs, ds])
        assert (cs, ds) in ne[cs] and (cs, al) in ne[cs] and connects(ne[ds], cs, ds)

    run_with(backend, tmp_path, scenario)


# ---- 2. differential: random call sequences against NetworkXStorage -------------------------

# Entity names: quotes, backslashes, unicode (code-point order differs from locale order),
# spaces and underscores (search bonus), case variants and prefixes of each other (search
# scoring, label ties), '*'. No '-': NetworkX makes edge ids "a-b", so ("x-y", "z") and
# ("x", "y-z") would collide and NetworkX keeps one of them by its iteration order.
NAMES = [
    "Alpha", "alpha", "Alphabet", "ALPHA beta", "beta_alpha", "Beta", "Gamma", "gamma ray", "Δelta",
    "Ωmega", "émile", "Zeta", "zeta", "Aardvark", "Orphan", "a", "b", "ab", "x'y", 'q"t', "C:\\dir",
    "人工智能", "机器学习", "深度 学习", "Node 1", "Node 10", "Node 2", "node_2", "*", "The Alpha", "omega",
]
QUERIES = ["a", "A", " alpha ", "beta", "ALPHA", "x", "学习", "node", "", "  ", "ω", "e"]
ATTRS = ["entity_id", "description", "entity_type", "source_id", "weight", "keywords", "file_path", "rank", "flag"]


def _value(rng: random.Random) -> Any:
    return rng.choice([
        lambda: rng.choice(["", "x", "alpha", "Beta gamma", "ü ñ 漢字", "a<SEP>b", "'\"\\"]),
        lambda: rng.randint(-5, 10**12),
        lambda: round(rng.uniform(-3, 3), 3),
        lambda: rng.choice([True, False]),
    ])()


def _attrs(rng: random.Random, name: str | None = None) -> dict[str, Any]:
    d = {k: _value(rng) for k in rng.sample(ATTRS, rng.randint(0, 4))}
    if name is not None and rng.random() < 0.8:
        d["entity_id"] = name
    if "weight" in d and rng.random() < 0.7:
        d["weight"] = float(rng.randint(0, 5))
    return d


def _kg(kg: Any) -> tuple:
    """A KnowledgeGraph with its node and edge lists sorted by id (their order is unspecified)."""
    nodes = sorted((n.id, n.labels, n.properties) for n in kg.nodes)
    edges = sorted((e.id, e.type, e.source, e.target, e.properties) for e in kg.edges)
    return nodes, edges, kg.is_truncated


def _sorted(x: Any) -> Any:
    return None if x is None else sorted(x)


def _nodes_of(x: list[dict]) -> list:
    return sorted(x, key=lambda n: n["id"])


def _edges_of(x: list[dict]) -> list:
    """get_all_edges' edges as (sorted endpoints, other attributes), sorted: the graph is
    undirected, so neither the list's order nor an edge's source/target orientation means
    anything (NetworkX orients from the endpoint inserted first; HopDB from the lower node id,
    and a re-created node keeps its id)."""
    out = []
    for e in x:
        props = {k: v for k, v in e.items() if k not in ("source", "target")}
        out.append((sorted((e["source"], e["target"])), sorted(props.items())))
    return sorted(out, key=repr)


def _call(rng: random.Random, live: list[str]) -> tuple[str, tuple, Callable[[Any], Any]]:
    """A random storage call: (method, args, normaliser of its answer)."""
    def pick() -> str:
        return rng.choice(live) if live and rng.random() < 0.75 else rng.choice(NAMES)

    def picks(k: int) -> list[str]:
        return [pick() for _ in range(rng.randint(0, k))]

    same = lambda x: x  # noqa: E731
    ops = [
        (10, lambda: (lambda n: ("upsert_node", (n, _attrs(rng, n)), same))(pick())),
        (4, lambda: ("upsert_nodes_batch", ([(n, _attrs(rng, n)) for n in picks(6)],), same)),
        (12, lambda: ("upsert_edge", (pick(), pick(), _attrs(rng)), same)),
        (4, lambda: ("upsert_edges_batch", ([(pick(), pick(), _attrs(rng)) for _ in range(rng.randint(0, 6))],), same)),
        (2, lambda: ("delete_node", (pick(),), same)),
        (1, lambda: ("remove_nodes", (picks(3),), same)),
        (3, lambda: ("remove_edges", ([(pick(), pick()) for _ in range(rng.randint(0, 3))],), same)),
        (3, lambda: ("has_node", (pick(),), same)),
        (4, lambda: ("has_edge", (pick(), pick()), same)),
        (4, lambda: ("get_node", (pick(),), same)),
        (4, lambda: ("get_edge", (pick(), pick()), same)),
        (3, lambda: ("node_degree", (pick(),), same)),
        (2, lambda: ("edge_degree", (pick(), pick()), same)),
        (4, lambda: ("get_node_edges", (pick(),), _sorted)),  # a node's edges: no order
        (2, lambda: ("get_nodes_batch", (picks(6),), same)),
        (2, lambda: ("has_nodes_batch", (picks(6),), same)),
        (2, lambda: ("node_degrees_batch", (picks(6),), same)),
        (2, lambda: ("edge_degrees_batch", ([(pick(), pick()) for _ in range(rng.randint(0, 5))],), same)),
        (2, lambda: ("get_edges_batch", ([{"src": pick(), "tgt": pick()} for _ in range(rng.randint(0, 5))],), same)),
        (2, lambda: ("get_nodes_edges_batch", (picks(5),), lambda d: {k: sorted(v) for k, v in d.items()})),
        (1, lambda: ("get_all_labels", (), same)),
        (2, lambda: ("get_popular_labels", (rng.choice([0, 1, 2, 3, 5, 8, 300, -2]),), same)),
        (3, lambda: ("search_labels", (rng.choice(QUERIES), rng.choice([1, 3, 50])), same)),
        (1, lambda: ("get_all_nodes", (), _nodes_of)),  # whole-graph lists: no order
        (1, lambda: ("get_all_edges", (), _edges_of)),
        (3, lambda: ("get_knowledge_graph", (rng.choice(["*", "*", pick()]), rng.randint(-1, 4),
                                             rng.choice([None, 0, 1, 2, 3, 5, 8, 100])), _kg)),
        (0.05, lambda: ("drop", (), same)),
    ]
    weights = [w for w, _ in ops]
    return rng.choices([f for _, f in ops], weights)[0]()


@requires_lightrag
@pytest.mark.parametrize("seed,max_graph_nodes", [(1, 6), (2, 40), (3, None)])
def test_differential_against_networkx(seed, max_graph_nodes, tmp_path):
    """3000 random calls per seed; every answer equal to NetworkXStorage's. Normalised, as
    legitimately unordered: the order of a node's edge list (get_node_edges,
    get_nodes_edges_batch), of get_all_nodes and get_all_edges and the orientation of the
    latter's edges, and the order of a KnowledgeGraph's node and edge lists. Everything else is
    compared as returned: values and their types, None vs [], dict contents, label orders,
    is_truncated, KnowledgeGraph ids, labels, edge ids, orientation and properties. Failures
    must match too (exception class)."""
    import logging

    logging.getLogger("lightrag").setLevel(logging.ERROR)
    rng = random.Random(seed)
    # LightRAG's cap on get_knowledge_graph's max_nodes: small (clamps), large, absent (1000).
    config = {} if max_graph_nodes is None else {"max_graph_nodes": max_graph_nodes}

    async def main() -> None:
        nx = support.make_storage("NetworkXStorage", tmp_path / "nx", **config)
        hop = support.make_storage("HopDBGraphStorage", tmp_path / "hop", **config)
        await nx.initialize()
        await hop.initialize()
        hop.batch_thread_min_items = [0, 3, 8][seed % 3]  # batches on the loop and on threads
        live: list[str] = []
        try:
            for step in range(3000):
                method, args, norm = _call(rng, live)
                answers = []
                for s in (nx, hop):
                    try:
                        answers.append(("ok", norm(await getattr(s, method)(*args))))
                    except Exception as e:  # both must fail alike
                        answers.append(("error", type(e).__name__))
                assert answers[0] == answers[1], (
                    f"step {step}: {method}{args!r}\n networkx: {answers[0]}\n hopdb:    {answers[1]}"
                )
                if step % 50 == 0 or method in ("drop", "delete_node", "remove_nodes"):
                    live = await nx.get_all_labels()
                elif method.startswith("upsert"):
                    live = sorted(set(live) | set(await nx.get_all_labels()))
            # The final graphs are equal too.
            assert _nodes_of(await nx.get_all_nodes()) == _nodes_of(await hop.get_all_nodes())
            assert _edges_of(await nx.get_all_edges()) == _edges_of(await hop.get_all_edges())
        finally:
            await nx.finalize()
            await hop.finalize()

    asyncio.run(main())


@requires_lightrag
@pytest.mark.parametrize("seed", [11, 12])
def test_differential_knowledge_graph_on_larger_graphs(seed, tmp_path):
    """get_knowledge_graph, get_popular_labels and search_labels on random graphs of a few
    hundred nodes with skewed degrees (many ties, hubs, isolated nodes, self-loops), against
    NetworkXStorage: BFS from many labels at depths 0-4 with max_nodes cutting inside levels."""
    import logging

    logging.getLogger("lightrag").setLevel(logging.ERROR)
    rng = random.Random(seed)
    names = [f"n{i}" for i in range(250)] + NAMES
    rng.shuffle(names)

    async def main() -> None:
        nx = support.make_storage("NetworkXStorage", tmp_path / "nx", max_graph_nodes=120)
        hop = support.make_storage("HopDBGraphStorage", tmp_path / "hop", max_graph_nodes=120)
        await nx.initialize()
        await hop.initialize()
        try:
            nodes = [(n, {"entity_id": n, "entity_type": rng.choice("ABC")}) for n in names]
            ends = names[:40] * 4 + names  # hubs: the first 40 names are picked five times as often
            edges = [(rng.choice(ends), rng.choice(ends), {"weight": 1.0, "description": str(i)}) for i in range(600)]
            for s in (nx, hop):
                await s.upsert_nodes_batch(nodes[:200])
                await s.upsert_edges_batch(edges)  # creates the endpoints not upserted yet
                await s.remove_nodes(names[::17])
            for _ in range(300):
                call = rng.choice([
                    ("get_knowledge_graph",
                     (rng.choice(names + ["*"] * 20), rng.randint(0, 4), rng.choice([None, 1, 3, 10, 30, 80, 500]))),
                    ("get_popular_labels", (rng.choice([1, 7, 50, 400]),)),
                    ("search_labels", (rng.choice(["n1", "N2", "n", "1", "α", "a"]), rng.choice([5, 50]))),
                ])
                method, args = call
                a = await getattr(nx, method)(*args)
                b = await getattr(hop, method)(*args)
                if method == "get_knowledge_graph":
                    a, b = _kg(a), _kg(b)
                assert a == b, f"{method}{args!r}"
        finally:
            await nx.finalize()
            await hop.finalize()

    asyncio.run(main())


# ---- 3. a whole LightRAG run ----------------------------------------------------------------


def _expected_graph() -> tuple[set[str], set[frozenset]]:
    """The entities and relations the fake model extracts from the corpus."""
    names: set[str] = set()
    rels: set[frozenset] = set()
    for doc in support.CORPUS:
        for line in support.extraction_answer(doc).splitlines():
            parts = line.split(support.TUPLE)
            if parts[0] == "entity":
                names.add(parts[1])
            elif parts[0] == "relation":
                rels.add(frozenset(parts[1:3]))
    return names, rels


async def _lightrag_run(working_dir: Any, graph_storage: str, workspace: str) -> dict[str, Any]:
    """Inserts the corpus, queries, then edits the graph through LightRAG's own flows (edit,
    rename, merge, relation creation, document deletion); returns the graph after each stage."""
    from lightrag import QueryParam

    # Distinct workspaces: LightRAG shares its KV and doc-status data per workspace in-process.
    rag = support.fake_rag(working_dir, graph_storage, workspace=workspace)
    await rag.initialize_storages()
    g = rag.chunk_entity_relation_graph
    out: dict[str, Any] = {}
    try:
        await rag.ainsert(support.CORPUS, ids=["doc-a", "doc-b"], file_paths=["a.txt", "b.txt"])
        out["inserted"] = (await g.get_all_nodes(), await g.get_all_edges())
        out["data"] = await rag.aquery_data("What did Alice Martin do with Acme Corp?", param=QueryParam(mode="local"))
        out["answer"] = await rag.aquery("How is Carol Diaz related to Orbital Labs?", param=QueryParam(mode="hybrid"))
        await rag.aedit_entity("Carol Diaz", {"description": "Carol Diaz runs Orbital Labs."})
        await rag.aedit_entity("Lyon", {"entity_name": "Lyon City"})  # a rename
        await rag.amerge_entities(["Bob Stone", "Quantum Sensor"], "Bob Stone")
        await rag.acreate_relation("Paris", "Lyon City", {"description": "Both are French cities.", "keywords": "city"})
        out["edited"] = (await g.get_all_nodes(), await g.get_all_edges())
        await rag.adelete_by_doc_id("doc-a")
        out["deleted"] = (await g.get_all_nodes(), await g.get_all_edges())
        return out
    finally:
        await rag.finalize_storages()


def _graph_snapshot(graph: tuple[list, list]) -> tuple[list, list]:
    """A graph from get_all_nodes/get_all_edges, comparable across runs: timestamps dropped,
    lists sorted, edge endpoints unordered."""
    def clean(d: dict) -> dict:
        return {k: v for k, v in d.items() if k != "created_at"}

    nodes = sorted((clean(n) for n in graph[0]), key=lambda n: n["id"])
    return nodes, _edges_of([clean(e) for e in graph[1]])


@requires_lightrag
def test_lightrag_insert_query_edit_delete(tmp_path):
    """LightRAG end to end with HopDB as the graph storage (fake LLM, fake embeddings): the
    graph holds exactly the extracted entities and relations, queries retrieve them through
    HopDB, LightRAG's edit / rename / merge / relation / document-deletion flows work on it,
    and after every stage the graph equals the one NetworkXStorage holds after the same run
    (up to timestamps)."""
    import logging

    logging.getLogger("lightrag").setLevel(logging.WARNING)
    names, rels = _expected_graph()
    hop = asyncio.run(_lightrag_run(tmp_path, "HopDBGraphStorage", "hop"))
    nodes, edges = hop["inserted"]
    assert {n["id"] for n in nodes} == names
    assert all(n["entity_id"] == n["id"] and n["entity_type"] == support.ENTITIES[n["id"]] for n in nodes)
    assert {frozenset((e["source"], e["target"])) for e in edges} == rels
    assert os.path.isdir(tmp_path / "hop" / "graph_chunk_entity_relation.hopdb")
    assert not os.path.exists(tmp_path / "hop" / "graph_chunk_entity_relation.graphml")
    data = hop["data"]
    assert data["status"] == "success"
    assert {"Alice Martin", "Acme Corp"} <= {e["entity_name"] for e in data["data"]["entities"]}
    assert any({r["src_id"], r["tgt_id"]} == {"Alice Martin", "Acme Corp"} for r in data["data"]["relationships"])
    assert hop["answer"] == "A fake answer from the fake model."
    edited = {n["id"]: n for n in hop["edited"][0]}
    assert "Lyon" not in edited and "Quantum Sensor" not in edited and "Lyon City" in edited
    assert edited["Carol Diaz"]["description"] == "Carol Diaz runs Orbital Labs."
    assert {"Paris", "Lyon City"} in [{e["source"], e["target"]} for e in hop["edited"][1]]
    remaining = {n["id"] for n in hop["deleted"][0]}
    assert "Carol Diaz" in remaining and "Orbital Labs" in remaining  # only in doc-b
    pairs = [{e["source"], e["target"]} for e in hop["deleted"][1]]
    assert {"Alice Martin", "Acme Corp"} not in pairs and {"Acme Corp", "Paris"} not in pairs  # doc-a's alone
    assert {"Alice Martin", "Carol Diaz"} in pairs  # doc-b's

    nx = asyncio.run(_lightrag_run(tmp_path, "NetworkXStorage", "nx"))
    for stage in ("inserted", "edited", "deleted"):
        assert _graph_snapshot(hop[stage]) == _graph_snapshot(nx[stage]), stage

    # Reopened by a new LightRAG, the graph is there (no index file to reload).
    async def reopen() -> list[str]:
        rag = support.fake_rag(tmp_path, "HopDBGraphStorage", workspace="hop")
        await rag.initialize_storages()
        try:
            return await rag.chunk_entity_relation_graph.get_all_labels()
        finally:
            await rag.finalize_storages()

    assert asyncio.run(reopen()) == sorted(remaining)


# ---- 4. HopDB specifics ---------------------------------------------------------------------


def test_import_does_not_need_lightrag():
    """``import hopdb.lightrag`` neither imports LightRAG nor needs it; the class does."""
    code = textwrap.dedent("""
        import sys
        sys.modules["lightrag"] = None  # as if not installed
        import hopdb, hopdb.lightrag
        assert hopdb.lightrag.STORAGE_NAME == "HopDBGraphStorage"
        try:
            hopdb.lightrag.HopDBGraphStorage
        except ImportError as e:
            assert "lightrag-hku" in str(e), e
        else:
            raise AssertionError("expected ImportError")
        try:
            hopdb.lightrag.register()
        except ImportError:
            pass
        else:
            raise AssertionError("expected ImportError")
        print("ok")
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
    code = "import sys, hopdb.lightrag; print(any(m.split('.')[0] == 'lightrag' for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "False", out.stderr


@requires_lightrag
def test_registration():
    from lightrag.base import BaseGraphStorage
    from lightrag.kg import STORAGE_ENV_REQUIREMENTS, STORAGE_IMPLEMENTATIONS, STORAGES, verify_storage_implementation
    from lightrag.kg.factory import get_storage_class

    cls = hopdb.lightrag.register()
    assert hopdb.lightrag.register() is cls  # idempotent
    assert STORAGE_IMPLEMENTATIONS["GRAPH_STORAGE"]["implementations"].count("HopDBGraphStorage") == 1
    assert STORAGES["HopDBGraphStorage"] == "hopdb.lightrag" and STORAGE_ENV_REQUIREMENTS["HopDBGraphStorage"] == []
    verify_storage_implementation("GRAPH_STORAGE", "HopDBGraphStorage")
    assert get_storage_class("HopDBGraphStorage") is cls is hopdb.lightrag.HopDBGraphStorage
    assert issubclass(cls, BaseGraphStorage) and not cls.__abstractmethods__
    assert cls.__module__ == "hopdb.lightrag" and cls.__name__ == "HopDBGraphStorage"
    # Every batch method of the base class is HopDB's own (one native batch call each).
    batch = [m for m in vars(BaseGraphStorage) if "batch" in m]
    assert batch and all(getattr(cls, m) is not getattr(BaseGraphStorage, m) for m in batch)


@requires_lightrag
def test_workspaces_and_names(tmp_path):
    async def main() -> None:
        a = support.make_storage("HopDBGraphStorage", tmp_path, workspace="a")
        b = support.make_storage("HopDBGraphStorage", tmp_path, workspace="b")
        root = support.make_storage("HopDBGraphStorage", tmp_path, workspace="")
        for s in (a, b, root):
            await s.initialize()
        await a.upsert_node("X", {"entity_id": "X"})
        assert await a.has_node("X") and not await b.has_node("X") and not await root.has_node("X")
        assert a.store_path == os.path.realpath(tmp_path / "a" / "graph_chunk_entity_relation.hopdb")
        assert root.store_path == os.path.realpath(tmp_path / "graph_chunk_entity_relation.hopdb")
        for s in (a, b, root):
            await s.finalize()

    asyncio.run(main())
    for bad in ["../x", "a/b", "a\\b", ".", ".."]:
        with pytest.raises(ValueError):
            support.make_storage("HopDBGraphStorage", tmp_path, workspace=bad)
    support.make_storage("HopDBGraphStorage", tmp_path, workspace="v1.0")  # dots are fine


@requires_lightrag
def test_lifecycle_durability_and_sharing(tmp_path):
    async def main() -> None:
        s = support.make_storage("HopDBGraphStorage", tmp_path)
        with pytest.raises(hopdb.ClosedError):
            await s.has_node("X")  # not initialized
        await s.initialize()
        await s.initialize()  # idempotent
        await s.upsert_edge("X", "Y", {"weight": 3.0, "description": "xy"})
        assert await s.index_done_callback() is None
        # A second instance on the same store in this process shares the open handle.
        t = support.make_storage("HopDBGraphStorage", tmp_path)
        await t.initialize()
        assert await t.get_edge("Y", "X") == {"weight": 3.0, "description": "xy"}
        await s.finalize()
        assert await t.has_edge("X", "Y")
        await t.finalize()
        with pytest.raises(hopdb.ClosedError):
            await t.has_node("X")
        # Reopened: the data is there; the weight property is also the HopDB edge weight.
        u = support.make_storage("HopDBGraphStorage", tmp_path)
        await u.initialize()
        assert await u.get_node_edges("X") == [("X", "Y")]
        assert u.graph.edge("X", "Y", hopdb.lightrag.EDGE_TYPE)["weight"] == 3.0
        assert u.graph.edge_types() == [("RELATED", 1, True, False)]
        await u.finalize()

    asyncio.run(main())


@requires_lightrag
def test_one_writer_process(tmp_path):
    """A second process cannot open a store this one writes: StoreLocked, and drop() reports
    the error instead of raising."""
    s = support.make_storage("HopDBGraphStorage", tmp_path)
    holder = textwrap.dedent(f"""
        import sys, hopdb
        g = hopdb.Graph({s.store_path!r})
        print("open", flush=True)
        sys.stdin.readline()
    """)
    p = subprocess.Popen([sys.executable, "-c", holder], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "open"

        async def main() -> None:
            with pytest.raises(hopdb.StoreLocked):
                await s.initialize()
            status = await s.drop()
            assert status["status"] == "error" and status["message"]

        asyncio.run(main())
    finally:
        p.communicate("\n", timeout=30)


@requires_lightrag
def test_migration_from_lightrag_graphml(tmp_path):
    """A NetworkXStorage GraphML file imported with HopDB's GraphML importer gives a store
    HopDBGraphStorage answers exactly as NetworkXStorage does."""
    rng = random.Random(7)

    async def main() -> None:
        nx = support.make_storage("NetworkXStorage", tmp_path)
        await nx.initialize()
        for n in NAMES:
            kind = rng.choice(["person", "org"])
            await nx.upsert_node(n, {"entity_id": n, "entity_type": kind, "description": f"d {n}"})
        for _ in range(60):
            a, b = rng.sample(NAMES, 2)
            await nx.upsert_edge(a, b, {"weight": float(rng.randint(1, 4)), "description": "rel", "keywords": "k"})
        await nx.index_done_callback()  # writes graph_chunk_entity_relation.graphml
        graphml = tmp_path / "test_workspace" / "graph_chunk_entity_relation.graphml"
        hop = support.make_storage("HopDBGraphStorage", tmp_path)
        with hopdb.Graph(hop.store_path) as g:
            g.import_files(graphml=[graphml])
        await hop.initialize()
        try:
            assert await hop.get_all_labels() == await nx.get_all_labels()
            assert _nodes_of(await hop.get_all_nodes()) == _nodes_of(await nx.get_all_nodes())
            assert {frozenset((e["source"], e["target"])) for e in await hop.get_all_edges()} == \
                {frozenset((e["source"], e["target"])) for e in await nx.get_all_edges()}
            assert await hop.get_popular_labels(10) == await nx.get_popular_labels(10)
            for label in ["*", "Alpha", "人工智能"]:
                assert _kg(await hop.get_knowledge_graph(label, 2, 5)) == _kg(await nx.get_knowledge_graph(label, 2, 5))
            assert await hop.node_degrees_batch(NAMES) == await nx.node_degrees_batch(NAMES)
        finally:
            await hop.finalize()
            await nx.finalize()

    asyncio.run(main())
