"""Measures HopDBGraphStorage on LightRAG's call mix (not a test; needs lightrag-hku):

    python3 -m bench.pyapi.lightrag_storage [--nodes 20000] [--edges 50000]

1. Every native call directly on the event loop ("direct") vs every call through
   ``asyncio.to_thread`` ("to_thread") vs what HopDBGraphStorage does ("shipped": point calls
   on the loop, batch calls of ``batch_thread_min_items`` items or more on a worker thread):
   mean latency of each call run one at a time, and throughput with 32 coroutines issuing the
   mix concurrently (LightRAG merges entities and relations, and serves queries,
   concurrently). NetworkXStorage's numbers (in-memory dicts) for reference.
2. The whole-graph calls (labels, search, knowledge graph) against NetworkXStorage.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import random
import statistics
import tempfile
import time
from typing import Any, Callable, Coroutine

from bench.benchlib import lightrag_support

support = lightrag_support()  # python/tests/lightrag_support.py

DESC = "A description of the entity as an LLM writes it, a few sentences long. " * 4


def run_sync(coro: Coroutine[Any, Any, Any]) -> Any:
    """Runs a coroutine that never suspends (HopDBGraphStorage's point and batch calls) to its
    result, synchronously: how the same call runs inside ``asyncio.to_thread``."""
    try:
        coro.send(None)
    except StopIteration as e:
        return e.value
    raise RuntimeError("the coroutine suspended")


def mix(rng: random.Random, names: list[str]) -> list[tuple[str, tuple]]:
    """One round of LightRAG's graph calls: merging an extracted entity and a relation
    (_merge_nodes_then_upsert / _merge_edges_then_upsert), then a local/global query's
    batch reads (_get_node_data / _find_most_related_edges_from_entities and friends)."""
    a, b = rng.choice(names), rng.choice(names)
    ents = rng.sample(names, 40)
    pairs = [(rng.choice(ents), rng.choice(names)) for _ in range(100)]
    return [
        ("get_node", (a,)),
        ("upsert_node", (a, {"entity_id": a, "description": DESC, "entity_type": "person", "source_id": "chunk-1"})),
        ("has_node", (b,)),
        ("get_edge", (a, b)),
        ("upsert_edge", (a, b, {"weight": 2.0, "description": DESC, "keywords": "k", "source_id": "chunk-1"})),
        ("get_nodes_batch", (ents,)),
        ("node_degrees_batch", (ents,)),
        ("get_nodes_edges_batch", (ents,)),
        ("get_edges_batch", ([{"src": s, "tgt": t} for s, t in pairs],)),
        ("edge_degrees_batch", (pairs,)),
    ]


async def build(storage: Any, n: int, m: int, rng: random.Random) -> list[str]:
    names = [f"Entity {i}" for i in range(n)]
    for i in range(0, n, 2000):
        await storage.upsert_nodes_batch(
            [(k, {"entity_id": k, "description": DESC, "entity_type": "person", "source_id": "c1<SEP>c2"})
             for k in names[i : i + 2000]]
        )
    hubs = names[: n // 20]
    for i in range(0, m, 2000):
        edges = []
        for _ in range(min(2000, m - i)):
            s = rng.choice(hubs) if rng.random() < 0.5 else rng.choice(names)
            data = {"weight": 1.0, "description": DESC, "keywords": "k", "source_id": "c1"}
            edges.append((s, rng.choice(names), data))
        await storage.upsert_edges_batch(edges)
    return names


async def timed(label: str, fn: Callable[[], Coroutine[Any, Any, Any]], repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        await fn()
        best = min(best, time.perf_counter() - t)
    print(f"  {label:<44} {best * 1e3:9.2f} ms")
    return best


async def main(args: argparse.Namespace) -> None:
    logging.getLogger("lightrag").setLevel(logging.ERROR)
    tmp = tempfile.mkdtemp()
    hop = support.make_storage("HopDBGraphStorage", tmp, workspace="hop")
    nx = support.make_storage("NetworkXStorage", tmp, workspace="nx")
    await hop.initialize()
    await nx.initialize()
    logging.getLogger("lightrag").setLevel(logging.ERROR)  # set again: LightRAG's setup resets it
    rng = random.Random(1)
    t = time.perf_counter()
    names = await build(hop, args.nodes, args.edges, random.Random(2))
    print(f"HopDB: built {args.nodes} nodes, {args.edges} edges in {time.perf_counter() - t:.2f} s")
    t = time.perf_counter()
    await build(nx, args.nodes, args.edges, random.Random(2))
    print(f"NetworkX: built in {time.perf_counter() - t:.2f} s")
    rounds = [mix(rng, names) for _ in range(args.rounds)]

    shipped = hop.batch_thread_min_items

    def set_mode(mode: str) -> None:
        # "direct" and "to_thread" keep every batch call on the calling thread.
        hop.batch_thread_min_items = shipped if mode == "shipped" else 10**9

    async def call(mode: str, method: str, a: tuple) -> Any:
        if mode == "networkx":
            return await getattr(nx, method)(*a)
        if mode == "to_thread":
            return await asyncio.to_thread(run_sync, getattr(hop, method)(*a))
        return await getattr(hop, method)(*a)

    modes = ("direct", "to_thread", "shipped", "networkx")

    print(f"\n1. LightRAG's call mix, {args.rounds} rounds of {len(rounds[0])} calls: mean latency per call (us)")
    per_call: dict[str, dict[str, float]] = {}
    for mode in modes:
        set_mode(mode)
        totals: dict[str, float] = {}
        for calls in rounds:
            for method, a in calls:
                t = time.perf_counter()
                await call(mode, method, a)
                totals[method] = totals.get(method, 0.0) + time.perf_counter() - t
        per_call[mode] = {k: v / len(rounds) * 1e6 for k, v in totals.items()}
    print(f"  {'call':<24}" + "".join(f"{m:>12}" for m in modes))
    for method in per_call["direct"]:
        print(f"  {method:<24}" + "".join(f"{per_call[m][method]:12.1f}" for m in modes))

    print(f"\n   throughput, 32 coroutines issuing the mix concurrently (calls/s; {args.repeat} runs per mode,")
    print("   the modes interleaved; median [min, max])")
    rates: dict[str, list[float]] = {m: [] for m in modes}

    async def throughput(mode: str) -> float:
        set_mode(mode)
        queue = [c for calls in rounds for c in calls]
        total = len(queue)

        async def worker() -> None:
            while queue:
                method, a = queue.pop()
                await call(mode, method, a)

        t = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(32)))
        return total / (time.perf_counter() - t)

    for _ in range(args.repeat):
        for mode in modes:
            rates[mode].append(await throughput(mode))
    for mode in modes:
        r = sorted(rates[mode])
        print(f"  {mode:<12} {statistics.median(r):10.0f}  [{r[0]:.0f}, {r[-1]:.0f}]")
    set_mode("shipped")
    if args.only_mix:
        return

    print(f"\n2. Whole-graph calls ({args.nodes} nodes), best of 3")
    for label, s in (("HopDB", hop), ("NetworkX", nx)):
        print(f" {label}")
        await timed("get_all_labels", s.get_all_labels)
        await timed("get_popular_labels(300)", lambda s=s: s.get_popular_labels(300))
        await timed("search_labels('entity 12', 50)", lambda s=s: s.search_labels("entity 12", 50))
        await timed("get_knowledge_graph('*', 3, 1000)", lambda s=s: s.get_knowledge_graph("*", 3, 1000))
        await timed("get_knowledge_graph('Entity 7', 3, 1000)", lambda s=s: s.get_knowledge_graph("Entity 7", 3, 1000))
        await s.upsert_node("Entity 1", {"touched": True})
        await timed("after a write: get_popular_labels(300)", lambda s=s: s.get_popular_labels(300), repeat=1)
        await s.upsert_node("Entity 1", {"touched": False})
        await timed("after a write: BFS from 'Entity 7'", lambda s=s: s.get_knowledge_graph("Entity 7", 3, 1000), repeat=1)
        await timed("index_done_callback", s.index_done_callback, repeat=1)
    await hop.finalize()
    await nx.finalize()


if __name__ == "__main__":
    p = argparse.ArgumentParser(prog=f"python3 -m {__spec__.name}", description=__doc__.splitlines()[0])
    p.add_argument("--nodes", type=int, default=20000)
    p.add_argument("--edges", type=int, default=50000)
    p.add_argument("--rounds", type=int, default=500)
    p.add_argument("--repeat", type=int, default=5, help="throughput runs per mode")
    p.add_argument("--only-mix", action="store_true", help="skip part 2")
    asyncio.run(main(p.parse_args()))
