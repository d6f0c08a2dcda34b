"""LightRAG's own ``Neo4JStorage`` (``lightrag.kg.neo4j_impl``, unmodified) on ``hopdb serve``
against the same class on a real Neo4j 5.26 with APOC core: the same calls, the same answers.

Both servers are started by this module on loopback: Neo4j by neo4j_reference.py (embedded
Community DBMS with the APOC jars as plugins, about 10 s to start), ``hopdb serve`` on a fresh
store. Each test opens one storage per server (LightRAG's own initialize(): database probing,
the entity_id index, the full-text index) with the same workspace, and runs the same calls on
both:

1. initialize(): the database it settles on, and what it logs at WARNING and above.
2. Random call sequences (fixed seeds, 1,200 calls each): every BaseGraphStorage method
   with random arguments on a small graph of awkward names (quotes, backslashes, unicode,
   Lucene operators, stop words), answers compared after normalising only what neither
   LightRAG nor Neo4j orders or identifies (see _compare).
3. get_knowledge_graph, get_popular_labels and search_labels on larger random graphs (hubs,
   isolated nodes, self-loops): BFS subgraphs cut by max_nodes.

Differences are collected rather than stopping at the first one (a write that diverges the two
graphs is followed by copying Neo4j's graph into HopDB's, so later calls compare again), and the
test fails listing them. HOPDB_NEO4J_DIFF_LOG=FILE appends them to FILE as JSON lines.
HOPDB_DIFF_SUBJECT=neo4j puts a second Neo4j where hopdb serve would be: the test must pass
then, which shows its comparisons are deterministic against Neo4j itself.

Skipped, saying why, without lightrag-hku, without the hopdb binary, or without java / mvn."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import sys
import time
from typing import Any

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import lightrag_support as support  # noqa: E402
import neo4j_reference  # noqa: E402

SUBJECT = neo4j_reference.subject()

pytestmark = [
    pytest.mark.skipif(not support.have_lightrag(), reason="lightrag-hku is not installed (pip install -r scripts/requirements-test.txt)"),
    *neo4j_reference.skip_marks(),
    # The driver warns on Node.id / Relationship.id, which Neo4JStorage reads.
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
]

MAX_DIFFS = 60  # differences kept in detail per test (more are counted)


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    """(reference, subject): Neo4j, and hopdb serve (or a second Neo4j, see the module doc)."""
    tmp = tmp_path_factory.mktemp("lightrag-neo4j")
    neo, sub = neo4j_reference.start_pair(tmp, SUBJECT)
    yield neo, sub
    sub.stop()
    neo.stop()


@pytest.fixture(autouse=True)
def quiet_and_fast():
    """LightRAG logs every failed call at ERROR (the differences are collected instead), and
    its write methods sleep 4-10 s between retries (not here; the attempts are unchanged)."""
    logger = logging.getLogger("lightrag")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    with support.neo4j_fast_retries():
        yield
    logger.setLevel(level)


class Diffs:
    """The differences of one test: kept in detail up to MAX_DIFFS, grouped by signature."""

    def __init__(self, test: str):
        self.test = test
        self.items: list[dict] = []
        self.counts: dict[str, int] = {}
        self.compared: dict[str, int] = {}  # calls compared, by method and how (printed: -s shows it)

    def saw(self, what: str) -> None:
        self.compared[what] = self.compared.get(what, 0) + 1

    def add(self, step: Any, call: str, signature: str, reference: Any, subject: Any) -> None:
        self.counts[signature] = self.counts.get(signature, 0) + 1
        item = {"test": self.test, "step": step, "call": call, "signature": signature,
                "neo4j": _short(reference), "subject": _short(subject)}
        if len(self.items) < MAX_DIFFS and self.counts[signature] <= 3:
            self.items.append(item)
        path = os.environ.get("HOPDB_NEO4J_DIFF_LOG")
        if path:
            with open(path, "a") as f:
                f.write(json.dumps(item, ensure_ascii=False, default=repr) + "\n")

    def check(self) -> None:
        if self.counts:
            lines = [f"{n} x {sig}" for sig, n in sorted(self.counts.items(), key=lambda kv: -kv[1])]
            details = [f"step {d['step']}: {d['call']}\n   neo4j:   {d['neo4j']}\n   {SUBJECT}: {d['subject']}" for d in self.items]
            pytest.fail(f"{sum(self.counts.values())} differences from Neo4j ({len(self.counts)} kinds):\n  "
                        + "\n  ".join(lines) + "\n\n" + "\n".join(details), pytrace=False)


def _short(x: Any, n: int = 700) -> str:
    s = repr(x)
    return s if len(s) <= n else s[:n] + f"... ({len(s)} chars)"


async def _answer(storage: Any, method: str, args: tuple) -> tuple:
    """("ok", raw answer) or ("error", exception class, Neo4j status code, message)."""
    try:
        return "ok", await getattr(storage, method)(*args)
    except Exception as e:  # both must fail alike
        return "error", type(e).__name__, getattr(e, "code", None), str(e)[:300]


def _comparable(answer: tuple) -> tuple:
    return answer[:3] if answer[0] == "error" else answer


async def _fulltext_settled(storages: list) -> None:
    """Neo4JStorage's full-text index is eventually consistent (its updates are applied in the
    background): before a search_labels the reference waits for it, so its answer is the one
    of the current graph. (Only on Neo4j: the subject's index is its own business.)"""
    for s, is_neo4j in storages:
        if is_neo4j:
            await support.neo4j_run(s, "CALL db.index.fulltext.awaitEventuallyConsistentIndexRefresh()")


async def _open_pair(servers: tuple, tmp_path: Any, workspace: str, **config: Any) -> tuple:
    neo, sub = servers
    a = await support.open_neo4j_storage(neo.uri, tmp_path, workspace, **config)
    b = await support.open_neo4j_storage(sub.uri, tmp_path, workspace, **config)
    for s in (a, b):
        await s.drop()  # the servers are shared by this module's tests
    return a, b


def _effective_max_nodes(storage: Any, max_nodes: Any) -> int:
    """get_knowledge_graph's own clamp of max_nodes by max_graph_nodes (default 1000)."""
    cap = storage.global_config.get("max_graph_nodes", 1000)
    return cap if max_nodes is None else min(max_nodes, cap)


async def _compare_call(ref: Any, sub: Any, method: str, args: tuple, norm: Any, diffs: Diffs, step: Any) -> bool:
    """Runs one call on both storages and records a difference; True when they agree. A
    get_knowledge_graph of one entity that Neo4j truncates is compared by kg_invariants (which
    nodes a cut BFS keeps depends on each server's adjacency order)."""
    if method == "search_labels":
        await _fulltext_settled([(ref, True), (sub, SUBJECT == "neo4j")])
    a = await _answer(ref, method, args)
    b = await _answer(sub, method, args)
    call = f"{method}{args!r}"
    if method == "get_knowledge_graph" and a[0] == "ok" and b[0] == "ok" and args[0] != "*" and a[1].is_truncated:
        graph = await support.neo4j_graph(ref)
        max_nodes = _effective_max_nodes(ref, args[2])
        fa = support.kg_invariants(a[1], args[0], max_nodes, args[1], graph)
        fb = support.kg_invariants(b[1], args[0], max_nodes, args[1], graph)
        diffs.saw(f"{method} truncated BFS ({', '.join(f'{k}={v}' for k, v in sorted(fa.items()) if v is not True)})")
        if fa != fb:
            diffs.add(step, call, f"{method} (truncated BFS): invariants differ", (fa, support.kg_shape(a[1])),
                      (fb, support.kg_shape(b[1])))
            return False
        return True
    ca = ("ok", norm(a[1])) if a[0] == "ok" else _comparable(a)
    cb = ("ok", norm(b[1])) if b[0] == "ok" else _comparable(b)
    diffs.saw(f"{method} {'error' if a[0] == 'error' else 'answer'}"
              + (" (truncated)" if method == "get_knowledge_graph" and a[0] == "ok" and a[1].is_truncated else ""))
    if ca != cb:
        if b[0] == "error" and a[0] == "ok":
            sig = f"{method}: subject raises {b[1]} {b[2]}"
        elif a[0] == "error" and b[0] == "ok":
            sig = f"{method}: Neo4j raises {a[1]} {a[2]}, subject answers"
        elif a[0] == "error":
            sig = f"{method}: different errors ({a[1]} {a[2]} vs {b[1]} {b[2]})"
        else:
            sig = f"{method}: different answers"
        diffs.add(step, call, sig, a if a[0] == "error" else ca[1], b if b[0] == "error" else cb[1])
        return False
    return True


async def _resync(ref: Any, sub: Any) -> None:
    """Makes the subject's graph Neo4j's again (after a difference in a write): drop, then the
    reference's nodes and edges (in their stored orientation) through the storage's batches."""
    nodes, edges = await support.neo4j_graph(ref)
    await sub.drop()
    await sub.upsert_nodes_batch([(dict(p)["entity_id"], dict(p)) for p in nodes])
    await sub.upsert_edges_batch([(a, b, dict(p)) for a, b, _, p in edges])


# ---- 1. initialize() ---------------------------------------------------------------------------


def test_initialize_like_neo4j(servers, tmp_path):
    """Neo4JStorage.initialize() on each server, twice (the second finds the indexes made by
    the first): the database it ends up using (the namespace's database cannot be created on
    Community, so the default one: None), everything it logs at INFO and above (database
    creation refused, the entity_id index, SHOW FULLTEXT INDEXES, the full-text index created
    with the CJK analyzer, then found ONLINE and kept), and SHOW FULLTEXT INDEXES' row of it."""

    class Capture(logging.Handler):
        def __init__(self) -> None:
            super().__init__(logging.INFO)
            self.records: list[str] = []

        def emit(self, record: logging.LogRecord) -> None:
            self.records.append(f"{record.levelname}: {record.getMessage()}")

    async def index_row(s: Any) -> Any:
        try:
            rows = await support.neo4j_run(s, "SHOW FULLTEXT INDEXES")
        except Exception as e:
            return "error", type(e).__name__, getattr(e, "code", None), str(e)[:300]
        keep = ("name", "state", "type", "entityType", "labelsOrTypes", "properties", "indexProvider", "owningConstraint")
        return [(sorted(r), {k: r.get(k) for k in keep}) for r in rows if r.get("name") == "entity_id_fulltext_idx_init_ws"]

    async def main() -> None:
        logger = logging.getLogger("lightrag")
        logger.setLevel(logging.INFO)
        said = []
        for server in servers:
            cap = Capture()
            logger.addHandler(cap)
            try:
                first = await support.open_neo4j_storage(server.uri, tmp_path, "init_ws")
                if isinstance(server, neo4j_reference.Neo4jReference):
                    # Neo4j populates a new index in the background: wait for it to be ONLINE,
                    # as it is long before a real application opens its storage again.
                    await support.neo4j_run(first, "CALL db.awaitIndexes(60)")
                second = await support.open_neo4j_storage(server.uri, tmp_path, "init_ws")
            finally:
                logger.removeHandler(cap)
            said.append({"database": (first._DATABASE, second._DATABASE),
                         "log": [r.replace(server.uri, "URI") for r in cap.records],
                         "SHOW FULLTEXT INDEXES": await index_row(first)})
            await first.finalize()
            await second.finalize()
        assert said[0]["database"] == (None, None), said[0]  # Neo4j Community: the default database
        diff = {k: (said[0][k], said[1][k]) for k in said[0] if said[0][k] != said[1][k]}
        if diff:
            pytest.fail("\n".join(f"{k}:\n  neo4j:   {a}\n  {SUBJECT}: {b}" for k, (a, b) in diff.items()), pytrace=False)

    asyncio.run(main())


# ---- 2. random call sequences --------------------------------------------------------------------


@pytest.mark.parametrize("seed,max_graph_nodes,steps", [(1, 6, 1200), (2, None, 1200)])
def test_random_calls_like_neo4j(servers, tmp_path, seed, max_graph_nodes, steps):
    """`steps` random calls (fixed seed) on both servers; every answer equal to Neo4j's after
    normalising only the unordered: a node's edge list (get_node_edges, get_nodes_edges_batch),
    get_all_nodes and get_all_edges (a multiset: Neo4JStorage lists each edge both ways), a
    KnowledgeGraph's node and edge lists, whose node ids and edge ids are the server's internal
    ids (edge endpoints are compared as entity_ids). Everything else as returned: values and
    their types, None vs [], dict contents, label orders, is_truncated, edge orientation and
    properties. Errors must match too (exception class and Neo4j status code). A truncated BFS
    (get_knowledge_graph of one entity) is compared by its invariants (kg_invariants). The
    graphs are compared whole every 50 calls and at the end."""
    rng = random.Random(seed)
    config = {} if max_graph_nodes is None else {"max_graph_nodes": max_graph_nodes}
    diffs = Diffs(f"random_calls[{seed}]")

    async def main() -> None:
        ref, sub = await _open_pair(servers, tmp_path, f"rand{seed}", **config)
        live: list[str] = []
        t = time.perf_counter()
        try:
            for step in range(steps):
                method, args, norm = support.neo4j_call(rng, live)
                same = await _compare_call(ref, sub, method, args, norm, diffs, step)
                state_check = step % 50 == 49 or step == steps - 1
                if (not same and method in WRITES) or state_check:
                    ga, gb = await support.neo4j_graph(ref), await support.neo4j_graph(sub)
                    if ga != gb:
                        diffs.add(step, f"graph after {method}{args!r}", "graphs differ", ga, gb)
                        await _resync(ref, sub)
                if step % 50 == 0 or method in ("drop", "delete_node", "remove_nodes"):
                    live = await ref.get_all_labels()
                elif method.startswith("upsert"):
                    live = sorted(set(live) | set(await ref.get_all_labels()))
        finally:
            await ref.drop()
            await sub.drop()
            await ref.finalize()
            await sub.finalize()
            print(f"seed {seed}: {steps} calls in {time.perf_counter() - t:.1f} s; compared: {sorted(diffs.compared.items())}")

    asyncio.run(main())
    diffs.check()


WRITES = {"upsert_node", "upsert_nodes_batch", "upsert_edge", "upsert_edges_batch", "delete_node", "remove_nodes",
          "remove_edges", "drop"}


# ---- 3. knowledge graphs on larger graphs --------------------------------------------------------


@pytest.mark.parametrize("seed", [11])
def test_knowledge_graph_like_neo4j(servers, tmp_path, seed):
    """get_knowledge_graph (depths 0-4, max_nodes cutting inside BFS levels), get_popular_labels
    and search_labels on a random graph of about 250 nodes with skewed degrees (hubs, many ties,
    isolated nodes, self-loops), built with the batch upserts and thinned by remove_nodes."""
    rng = random.Random(seed)
    names = [f"n{i}" for i in range(220)] + support.NEO4J_NAMES
    rng.shuffle(names)
    diffs = Diffs(f"knowledge_graph[{seed}]")

    async def main() -> None:
        ref, sub = await _open_pair(servers, tmp_path, f"kg{seed}", max_graph_nodes=120)
        try:
            nodes = [(n, {"entity_id": n, "entity_type": rng.choice("ABC")}) for n in names]
            ends = names[:30] * 4 + names  # hubs: the first 30 names are picked five times as often
            edges = [(rng.choice(ends), rng.choice(ends), {"weight": 1.0, "description": str(i)}) for i in range(500)]
            for s in (ref, sub):
                await s.upsert_nodes_batch(nodes)
                await s.upsert_edges_batch(edges)
                await s.remove_nodes(names[::17])
            ga, gb = await support.neo4j_graph(ref), await support.neo4j_graph(sub)
            if ga != gb:
                diffs.add("build", "the graph built", "graphs differ", ga, gb)
                await _resync(ref, sub)
            for step in range(250):
                method, args, norm = rng.choice([
                    ("get_knowledge_graph", (rng.choice(names + ["*"] * 10), rng.randint(0, 4),
                                             rng.choice([None, 1, 3, 10, 30, 80, 500])), support.kg_shape),
                    ("get_knowledge_graph", (rng.choice(names), rng.randint(1, 3), rng.choice([2, 5, 20])), support.kg_shape),
                    ("get_popular_labels", (rng.choice([1, 7, 50, 400]),), lambda x: x),
                    ("search_labels", (rng.choice(support.NEO4J_QUERIES + ["n1", "N2", "n"]), rng.choice([5, 50])), lambda x: x),
                ])
                await _compare_call(ref, sub, method, args, norm, diffs, step)
        finally:
            await ref.drop()
            await sub.drop()
            await ref.finalize()
            await sub.finalize()
            print(f"compared: {sorted(diffs.compared.items())}")

    asyncio.run(main())
    diffs.check()
