"""The queries file every client reads: bench/retrieval's format and draw (its workload.py: pools,
weighted (kind, pool index) sequence, check sample; its reference.py: answers and check), plus
the LightRAG mix's expected answers in a file beside it.

bench/retrieval's own build computes the reference from the whole graph in Python dicts, fine at
S=1 but many GB at S=10 (the memory-capped run). Here the reference graph holds only the edges
within one hop of the sample seeds' one-hop neighbourhood (two passes over the edge files), which
answers every Q1-Q7 of those seeds exactly (no query goes further than two hops from its seed).
"""

import json

from bench.retrieval import workload
from bench.retrieval.reference import KG, Q1_PROPS, iter_edges, iter_nodes
from bench.sweep import lightrag_mix


def sparse_reference(data, seeds):
    """(KG of the edges touching the seeds or their neighbours, {entity seed: its properties})."""
    seeds = set(seeds)
    near = set(seeds)
    for s, d, _t in iter_edges(data):
        if s in seeds:
            near.add(d)
        if d in seeds:
            near.add(s)
    edges = [(s, d, t) for s, d, t in iter_edges(data) if s in near or d in near]
    chunks, ents = {}, {}
    for k, label, p in iter_nodes(data):
        if k in seeds:
            if label == "Chunk":
                chunks[k] = tuple(p.get(n) for n in Q1_PROPS)
            elif label == "Entity":
                ents[k] = p
    return KG(chunks, edges), ents


def build(data, qpath, pool, check_n, rng_seed, warmup, timed):
    """Write qpath (bench/retrieval's queries file) and qpath's `.lightrag.json` ([[entity, {call:
    expected}], ...] for the first check_n entities of the pool); returns the queries dict."""
    pools = workload.draw_pools(data, pool, rng_seed)
    seq = workload.sequence(warmup + timed, {k: len(v) for k, v in pools.items()}, rng_seed + 1)
    sample = workload.check_sample(pools, check_n)
    ents = pools["entity"][:check_n]
    seeds = [x for _k, s in sample for x in (s if isinstance(s, tuple) else (s,))] + ents
    kg, props = sparse_reference(data, seeds)
    q = {"pools": pools, "sequence": seq, "warmup": warmup, "max_seconds": 60, "threads": 2, "thread_warmup": min(warmup, 200), "variant_trial": 300,
         "check": [[k, s, kg.full(k, s)] for k, s in sample]}  # fmt: skip
    json.dump(q, open(qpath, "w"))
    json.dump([[e, lightrag_mix.reference(props, kg, e)] for e in ents], open(lightrag_path(qpath), "w"))
    return q


def lightrag_path(qpath):
    return qpath[: -len(".json")] + ".lightrag.json"
