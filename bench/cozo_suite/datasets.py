"""The suite's real graphs (from /work/shared/datasets), seeded samples, reference answers and the maths.

Everything here is plain Python (no database): run.py uses it to build the reference answers the
engines are checked against, worker.py and the engines (bench/engines/*'s CozoSuite classes) to
feed the engines, tests/ to test it.
"""

import csv
import gzip
import math
import os
import random
from collections import deque

# name -> where the files are and what the suite does with them. `group_by`: the node property of
# the group-by aggregation; `update`: the property the point updates change (None: the graph has
# no node properties, so point ops and the group-by are skipped on it).
DATASETS = {
    "twitch-de": {
        "dir": "musae-twitch-DE",
        "nodes": "DE_target.csv.gz",
        "edges": "DE_edges.csv.gz",
        "directed": False,
        "group_by": "mature",
        "update": "views",
    },
    "github": {
        "dir": "musae-github",
        "nodes": "git_target.csv.gz",
        "edges": "git_edges.csv.gz",
        "directed": False,
        "group_by": "ml_target",
        "update": "name",
    },
    "slashdot": {"dir": "snap-soc-Slashdot0902", "edges": "soc-Slashdot0902.txt.gz", "directed": True, "group_by": None, "update": None},
}
PROFILES = {"quick": ["twitch-de"], "full": ["twitch-de", "github", "slashdot"]}
NODE_LABEL, EDGE_TYPE = "User", "FOLLOWS"  # every engine's one node label and one edge type


def _bool(s):
    if s not in ("True", "False"):
        raise ValueError(f"not a bool: {s!r}")
    return s == "True"


class Data:
    """One graph: int node keys, typed property columns, edge lists (each edge once)."""

    def __init__(self, name, keys, props, types, src, dst, directed, raw_edges):
        self.name, self.keys, self.props, self.types = name, keys, props, types
        self.src, self.dst, self.directed, self.raw_edges = src, dst, directed, raw_edges
        self.spec = DATASETS.get(name, {})

    @property
    def rows(self):
        return len(self.keys) + len(self.src)

    def node_props(self, i):
        return {p: col[i] for p, col in self.props.items()}


def arrow_tables(data):
    """(nodes, edges) as pyarrow tables: id and the property columns; src, dst."""
    import pyarrow as pa

    nodes = pa.table({"id": data.keys, **data.props})
    edges = pa.table({"src": data.src, "dst": data.dst})
    return nodes, edges


def parse(name, root):
    """Read dataset `name` under `root`; None when its folder is absent."""
    spec = DATASETS[name]
    d = os.path.join(root, spec["dir"])
    if not os.path.isdir(d):
        return None
    with gzip.open(os.path.join(d, spec["edges"]), "rt", newline="") as f:
        if spec["edges"].endswith(".csv.gz"):
            rd = csv.reader(f)
            next(rd)
            pairs = [(int(a), int(b)) for a, b in rd]
        else:
            pairs = [tuple(map(int, line.split()[:2])) for line in f if line.strip() and not line.startswith("#")]
    raw = len(pairs)
    # Engines key edges by (src, dst) (undirected: by the unordered pair), so the harness gives
    # every engine each edge once; the report states raw vs kept counts.
    seen, src, dst = set(), [], []
    for a, b in pairs:
        k = (a, b) if spec["directed"] else (min(a, b), max(a, b))
        if k not in seen:
            seen.add(k)
            src.append(a)
            dst.append(b)
    props, types = {}, {}
    if "nodes" in spec:
        with gzip.open(os.path.join(d, spec["nodes"]), "rt", newline="") as f:
            rows = list(csv.DictReader(f))
        if name == "twitch-de":
            keys = [int(r["new_id"]) for r in rows]
            types = {"days": "int", "mature": "bool", "views": "int", "partner": "bool"}
        else:
            keys = [int(r["id"]) for r in rows]
            types = {"name": "str", "ml_target": "int"}
        conv = {"int": int, "bool": _bool, "str": str}
        props = {p: [conv[t](r[p]) for r in rows] for p, t in types.items()}
        order = sorted(range(len(keys)), key=keys.__getitem__)
        keys = [keys[i] for i in order]
        props = {p: [col[i] for i in order] for p, col in props.items()}
    else:
        keys = sorted({x for e in zip(src, dst, strict=False) for x in e})
    if len(set(keys)) != len(keys):
        raise ValueError(f"{name}: duplicate node keys")
    return Data(name, keys, props, types, src, dst, spec["directed"], raw)


# ---------------------------------------------------------------------------------------------
# Samples (seeded: every engine gets the same keys in the same order)


def sample_keys(data, n, seed):
    return random.Random(seed).sample(data.keys, min(n, len(data.keys)))


def new_keys(data, n, offset=0):
    """Keys for point writes: above every existing key, distinct per thread via `offset`."""
    base = max(data.keys) + 1 + offset
    return list(range(base, base + n))


def new_props(data, rng):
    """Properties of a written node, of the dataset's types."""
    gen = {"int": lambda: rng.randrange(1, 10**6), "bool": lambda: rng.random() < 0.5, "str": lambda: f"u{rng.randrange(10**9)}"}
    return {p: gen[t]() for p, t in data.types.items()}


# ---------------------------------------------------------------------------------------------
# Reference answers (plain Python over the parsed files; independent of every engine)


def adjacency(data):
    adj = {k: set() for k in data.keys}
    for a, b in zip(data.src, data.dst, strict=False):
        adj[a].add(b)
        adj[b].add(a)
    return adj


def within_k(adj, start, k):
    """Distinct nodes within k hops of start (edges both ways), start excluded."""
    seen = {start}
    frontier = deque([start])
    for _ in range(k):
        nxt = deque()
        for n in frontier:
            for m in adj[n]:
                if m not in seen:
                    seen.add(m)
                    nxt.append(m)
        frontier = nxt
    return len(seen) - 1


def degrees(data):
    """Degree of every node counting edges both ways (a self-loop counts twice, as in NetworkX)."""
    deg = dict.fromkeys(data.keys, 0)
    for a, b in zip(data.src, data.dst, strict=False):
        deg[a] += 1
        deg[b] += 1
    return deg


def group_by(data, prop):
    """{value: [node count, sum of degrees]}: the group-by every engine must return."""
    deg = degrees(data)
    out = {}
    for k, v in zip(data.keys, data.props[prop], strict=False):
        c = out.setdefault(v, [0, 0])
        c[0] += 1
        c[1] += deg[k]
    return out


# ---------------------------------------------------------------------------------------------
# Checks (return a list of human-readable mismatches; empty = equal)


def _norm(v):
    return int(v) if isinstance(v, bool) else v


def check_node(key, want, got):
    """A point read must return every property with the reference value (bools may come back as 0/1)."""
    if got is None:
        return [f"node {key}: missing"]
    bad = [f"node {key}.{p}: {got.get(p)!r} != {v!r}" for p, v in want.items() if _norm(got.get(p)) != _norm(v)]
    return bad


def check_counts(what, want, got):
    return [f"{what} from {s}: {got.get(s)} != {c}" for s, c in want.items() if got.get(s) != c]


def check_group_by(want, got):
    w = {_norm(k): list(v) for k, v in want.items()}
    g = {_norm(k): list(v) for k, v in got.items()}
    return [] if w == g else [f"group-by: {g} != {w}"]


def top_k(scores, k=10):
    return [n for n, _ in sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:k]]


def check_pagerank(ref_scores, got_scores, k=10, rel_tol=0.01):
    """The engine's top-k must equal the reference's top-k, except where the reference scores of two
    nodes differ by under rel_tol (ties within float noise may swap places): each of the engine's
    top-k nodes must have a reference score at least (1 - rel_tol) times the reference's k-th score."""
    ref_top = top_k(ref_scores, k)
    got_top = top_k(got_scores, k)
    cut = ref_scores[ref_top[-1]] * (1 - rel_tol)
    bad = [n for n in got_top if ref_scores.get(n, -1.0) < cut]
    return [f"pagerank top-{k}: {got_top} vs reference {ref_top} ({bad} are not in the reference top-{k})"] if bad else []


# ---------------------------------------------------------------------------------------------
# Maths


def percentile(xs, q):
    """q-th percentile (0..100) with linear interpolation between closest ranks (numpy's default)."""
    if not xs:
        return None
    s = sorted(xs)
    pos = (len(s) - 1) * q / 100
    lo = math.floor(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def ratio(hop, peer, higher_is_better=True):
    """How many times better HopDB is than the peer (>1: HopDB better); None when either is missing."""
    if not hop or not peer:
        return None
    return hop / peer if higher_is_better else peer / hop
