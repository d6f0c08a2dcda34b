"""The batch reads under LightRAG's query path, called straight on a `hopdb.Graph`: what each
item of a batch costs the package, without LightRAG's layer. Used to compare builds of the
extension (decisions 0014 and 0015).

usage: python3 -m bench.pyapi.batch_reads [--sizes 40,100,400] [--batches 40] [--store DIR]

The store is a private copy of the LightRAG-shaped S=1 store that bench/pyapi/lightrag_fullscale.py
builds (745,504 entities, 1,252,253 undirected RELATED edges with LightRAG's properties), opened
as `hopdb.lightrag` opens it: `memory_mb=64`, key index warmed. Each batch draws fresh random
keys (uniform, as that benchmark's batch calls do): `Graph.nodes`, `Graph.degrees`,
`Graph.neighbors_of` (both directions) and `Graph.edges_between` (3 of 4 pairs linked, the rest
random). Prints the median microseconds per item of each call and size; the first 5 batches
of each are warm-up.
"""
import argparse
import random
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import hopdb

STORE = Path.home() / ".cache/hopdb/bench-data/lightrag-fullscale/s1/hopdb/bench/graph_chunk_entity_relation.hopdb"
TYPE = "RELATED"


def main() -> None:
    ap = argparse.ArgumentParser(prog=f"python3 -m {__spec__.name}", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="40,100,400", help="batch sizes, comma-separated")
    ap.add_argument("--batches", type=int, default=40, help="timed batches per call and size, after 5 untimed")
    ap.add_argument("--store", default=str(STORE), help="the store to copy (default: lightrag_fullscale.py's S=1 store)")
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    sizes = [int(x) for x in a.sizes.split(",")]
    if not Path(a.store).exists():
        raise SystemExit(f"no store at {a.store}: run python3 -m bench.pyapi.lightrag_fullscale --storages hopdb first, or pass --store")
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "store"
        shutil.copytree(a.store, copy)  # the benchmark's own store stays untouched
        g = hopdb.Graph(str(copy), memory_mb=64)
        g.warm_key_index()
        keys = g.node_keys()
        rng = random.Random(a.seed)

        def pairs(n: int) -> list[tuple[str, str]]:
            src = rng.sample(keys, n)
            out = []
            for j, (k, nbrs) in enumerate(zip(src, g.neighbors_of(src, "both", TYPE), strict=False)):
                out.append((k, rng.choice(nbrs)) if j % 4 and nbrs else (k, rng.choice(keys)))
            return out

        calls = [
            ("nodes", lambda n: rng.sample(keys, n), lambda ks: g.nodes(ks)),
            ("degrees", lambda n: rng.sample(keys, n), lambda ks: g.degrees(ks, "both", TYPE)),
            ("neighbors_of", lambda n: rng.sample(keys, n), lambda ks: g.neighbors_of(ks, "both", TYPE)),
            ("edges_between", pairs, lambda ps: g.edges_between(ps, TYPE)),
        ]
        print("us per item (median of %d batches)" % a.batches)
        print("%-14s" % "call" + "".join("%10s" % f"n={s}" for s in sizes))
        for name, draw, call in calls:
            row = []
            for size in sizes:
                per_item = []
                for i in range(5 + a.batches):
                    batch = draw(size)
                    t = time.perf_counter()
                    call(batch)
                    if i >= 5:
                        per_item.append((time.perf_counter() - t) / size * 1e6)
                row.append(statistics.median(per_item))
            print("%-14s" % name + "".join("%10.2f" % x for x in row), flush=True)
        g.close()


if __name__ == "__main__":
    main()
