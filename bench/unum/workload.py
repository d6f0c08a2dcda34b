"""The operations, the seeded samples they run on, the canonical form of their answers and the
comparison with the reference, and the statistics of the timings.

Samples (each operation draws from its own random.Random(seed, operation), so they do not depend
on which operations or engines run):
- find_edge: pairs, ABSENT_SHARE of them with no edge in either direction (two distinct random
  vertices, redrawn until unconnected), the rest existing edges, half of those reversed (so the
  reverse direction must be looked at);
- find_directed: pairs, ABSENT_SHARE absent (half of those the reverse of an edge whose reverse
  does not exist, where the graph has such edges, the others random unconnected pairs), the rest
  existing edges in their direction;
- vertex operations: vertices drawn uniformly (with replacement) from the vertices with an edge;
- upsert: distinct pairs of existing vertices with no edge src->dst, weights uniform in [0.5, 10);
- remove: distinct existing edges.
The answer-check samples are drawn the same way from another seed.
"""

import json
import math
import random
import statistics

ABSENT_SHARE = 0.5
READ_OPS = ["find_edge", "find_directed", "edges_of", "in_edges", "neighbors", "count_out", "count_in"]
WRITE_OPS = ["upsert", "upsert_batch", "remove", "remove_batch"]
OPS = READ_OPS + WRITE_OPS
TITLES = {
    "find_edge": "find edge (either direction)",
    "find_directed": "find directed edge",
    "edges_of": "all edges of a vertex",
    "in_edges": "in-edges of a vertex",
    "neighbors": "unique neighbours",
    "count_out": "count + weight sum, out",
    "count_in": "count + weight sum, in",
    "upsert": "upsert edge",
    "upsert_batch": "upsert batch",
    "remove": "remove edge",
    "remove_batch": "remove batch",
}
PROFILES = {
    # read_budget_s: a read operation stops once its calls took this long (slow engines time a prefix)
    "quick": {"reads": 1000, "writes": 1000, "batches": 3, "batch": 500, "check": 200, "read_budget_s": 2.0},
    "full": {"reads": 10000, "writes": 2000, "batches": 10, "batch": 500, "check": 200, "read_budget_s": 3.0},
}


def _rng(seed, op):
    return random.Random(f"{seed}:{op}")


def _absent_pair(rng, nodes, edges, either):
    while True:
        u, v = rng.choice(nodes), rng.choice(nodes)
        if u != v and (u, v) not in edges and not (either and (v, u) in edges):
            return u, v


def pairs(op, n, edges, nodes, seed):
    """n (src, dst) pairs for find_edge / find_directed; exactly round(n * ABSENT_SHARE) absent."""
    rng = _rng(seed, op)
    elist = list(edges)
    n_absent = round(n * ABSENT_SHARE)
    out = []
    for i in range(n - n_absent):
        s, d = rng.choice(elist)
        out.append((d, s) if op == "find_edge" and i % 2 else (s, d))
    one_way = [(d, s) for s, d in elist if (d, s) not in edges] if op == "find_directed" else []
    for i in range(n_absent):
        out.append(rng.choice(one_way) if one_way and i % 2 else _absent_pair(rng, nodes, edges, op == "find_edge"))
    rng.shuffle(out)
    return out


def vertices(op, n, nodes, seed):
    rng = _rng(seed, op)
    return [rng.choice(nodes) for _ in range(n)]


def new_edges(n, edges, nodes, seed):
    """n distinct absent (src, dst, weight) triples between existing vertices."""
    rng = _rng(seed, "upsert")
    seen = set()
    out = []
    while len(out) < n:
        s, d = _absent_pair(rng, nodes, edges, False)
        if (s, d) not in seen:
            seen.add((s, d))
            out.append((s, d, round(rng.uniform(0.5, 10), 3)))
    return out


def old_edges(n, edges, seed):
    """n distinct existing (src, dst) pairs."""
    rng = _rng(seed, "remove")
    return rng.sample(sorted(edges), n)


def plan(edges, nodes, p, seed):
    """The timed items per operation ({op: list}; batch ops: lists of batches) and the check items."""
    n, w, nb, b = p["reads"], p["writes"], p["batches"], p["batch"]
    if w + nb * b > len(edges):
        raise ValueError(f"the graph has {len(edges)} edges, fewer than the {w + nb * b} to remove")
    ups, rms = new_edges(w + nb * b, edges, nodes, seed), old_edges(w + nb * b, edges, seed)
    items = {op: pairs(op, n, edges, nodes, seed) for op in READ_OPS[:2]}
    items.update({op: vertices(op, n, nodes, seed) for op in READ_OPS[2:]})
    items["upsert"], items["remove"] = ups[:w], rms[:w]
    items["upsert_batch"] = [ups[w + i * b : w + (i + 1) * b] for i in range(nb)]
    items["remove_batch"] = [rms[w + i * b : w + (i + 1) * b] for i in range(nb)]
    c, cseed = p["check"], f"check-{seed}"
    check = {op: pairs(op, c, edges, nodes, cseed) for op in READ_OPS[:2]}
    check.update({op: vertices(op, c, nodes, cseed) for op in READ_OPS[2:]})
    return items, check


# ---------------------------------------------------------------------------------------------
# Answers


def _pair(r):
    return (int(r["src"]), int(r["dst"])) if isinstance(r, dict) else (int(r[0]), int(r[1]))


def _id(x):
    return int(x[0] if isinstance(x, (tuple, list)) else x)


def canon(op, raw):
    """An engine's native answer in a comparable, JSON-friendly form."""
    if op in ("find_edge", "find_directed"):
        return bool(raw)
    if op in ("edges_of", "in_edges"):
        return sorted({_pair(r) for r in raw})  # a self-loop may come back once or twice: a set
    if op == "neighbors":
        return sorted({_id(x) for x in raw})
    if op in ("count_out", "count_in"):
        return [int(raw[0]), float(raw[1] or 0.0)]
    raise ValueError(op)


def _plain(x):
    """Tuples as lists (answers read back from JSON have lists)."""
    return json.loads(json.dumps(x))


def compare(op, want, got, rel=1e-9, abs_tol=1e-6):
    """None if `got` (canonical) equals `want`, else a short description of the difference.
    Weight sums are compared with a float tolerance (engines add in different orders)."""
    if op in ("count_out", "count_in"):
        ok = want[0] == got[0] and math.isclose(want[1], got[1], rel_tol=rel, abs_tol=abs_tol)
    else:
        ok = _plain(want) == _plain(got)
    if ok:
        return None
    show = lambda x: str(x) if len(str(x)) < 200 else str(x)[:200] + f"... ({len(x)} items)"  # noqa: E731
    return f"expected {show(want)}, got {show(got)}"


# ---------------------------------------------------------------------------------------------
# Statistics


def summarize(lat_ns, per_call):
    """Throughput and latency of one operation from its per-call latencies (ns); per_call = items
    per call (1, or the batch size): ops_per_s counts items (edges for the batches)."""
    s = sorted(lat_ns)
    total = sum(s) / 1e9
    q = statistics.quantiles(s, n=100, method="inclusive") if len(s) > 1 else [s[0]] * 99
    return {
        "calls": len(s),
        "items": len(s) * per_call,
        "seconds": total,
        "ops_per_s": len(s) * per_call / total if total > 0 else None,
        "p50_us": statistics.median(s) / 1e3,
        "p95_us": q[94] / 1e3,
        "p99_us": q[98] / 1e3,
    }


def ratio(hop, peer):
    """HopDB/peer throughput ratio (above 1: HopDB faster); None when either is missing."""
    if not hop or not peer:
        return None
    return hop / peer


def fmt_ratio(x):
    if x is None:
        return "-"
    return f"{x:,.0f}x" if x >= 100 else (f"{x:.1f}x" if x >= 10 else f"{x:.2f}x")
