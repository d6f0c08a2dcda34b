"""Python-side concurrency of the `hopdb` package on the S=1 knowledge graph: the LightRAG
read mix (get_node, neighbors, degree, has_node) from 1 and 2 threads (the GIL is released
inside every call), and from asyncio: calling directly inside coroutines (the calls are
microseconds) against offloading each to a worker thread (`await g.run(...)`).

usage: python3 -m bench.pyapi.concurrency [--seconds 3]
Uses an S=1 store made by `hopdb import`: the one bench/deep_rust/run.sh imports
(~/.cache/hopdb/bench-data/deep-rust/store), else the suite's (bench/deep: .../deep/s1/hopdb/store),
or --store DIR.
"""
import argparse
import asyncio
import random
import threading
import time

import hopdb
from bench.pyapi import s1_store

STORES = [s1_store.DEEP_RUST, s1_store.DEEP]


def workload(seed):
    r = random.Random(seed)
    while True:
        yield r.random(), f"ent-{r.randint(1, 587428)}", f"chunk-{r.randint(1, 108076)}"


def one(g, x, ent, chunk):
    if x < 0.4:
        return g.node(ent)
    if x < 0.7:
        return g.neighbors(chunk, "out", None, 50)
    if x < 0.9:
        return g.degree(ent)
    return g.has_node(chunk)


def threads(g, n, seconds):
    counts = [0] * n
    stop = time.perf_counter() + seconds

    def run(i):
        c = 0
        for x, e, ch in workload(i):
            one(g, x, e, ch)
            c += 1
            if c % 256 == 0 and time.perf_counter() > stop:
                break
        counts[i] = c

    ts = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    t0 = time.perf_counter()
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return sum(counts) / (time.perf_counter() - t0)


async def tasks(g, n, seconds, offload):
    stop = time.perf_counter() + seconds
    done = [0]

    async def run(i):
        for x, e, ch in workload(100 + i):
            if offload:
                if x < 0.4:
                    await g.run("node", e)
                elif x < 0.7:
                    await g.run("neighbors", ch, "out", None, 50)
                elif x < 0.9:
                    await g.run("degree", e)
                else:
                    await g.run("has_node", ch)
            else:
                one(g, x, e, ch)
                await asyncio.sleep(0)  # a LightRAG task yields between storage calls
            done[0] += 1
            if time.perf_counter() > stop:
                break

    t0 = time.perf_counter()
    await asyncio.gather(*[run(i) for i in range(n)])
    return done[0] / (time.perf_counter() - t0)


def main():
    ap = argparse.ArgumentParser(prog=f"python3 -m {__spec__.name}")
    ap.add_argument("--seconds", type=float, default=3.0)
    s1_store.add_argument(ap, STORES)
    a = ap.parse_args()
    store = s1_store.resolve(a.store, STORES)
    with hopdb.Graph(store, read_only=True) as g:
        threads(g, 1, 1.0)  # warm the caches
        rows = [
            ("1 thread", threads(g, 1, a.seconds)),
            ("2 threads", threads(g, 2, a.seconds)),
            ("asyncio, 8 tasks, direct calls", asyncio.run(tasks(g, 8, a.seconds, False))),
            ("asyncio, 8 tasks, offloaded (await g.run)", asyncio.run(tasks(g, 8, a.seconds, True))),
        ]
    base = rows[0][1]
    print("| client | calls/s | vs 1 thread |")
    print("|---|---:|---:|")
    for name, rate in rows:
        print(f"| {name} | {rate:,.0f} | {rate / base:.2f}x |")


if __name__ == "__main__":
    main()
