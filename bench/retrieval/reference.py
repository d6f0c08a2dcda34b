"""The reference answers, computed from the CSV files in plain Python, and the answer check.

`KG.from_csv(data)` reads the generator's files (bench/benchlib.py describes them) into
dicts; `KG.full(kind, seed)` is the whole answer of a query before any LIMIT; `check(kind, got,
full)` says what is wrong with an engine's answer (None when it is right):

- q1 (properties), q5 (all chunks of a document, no LIMIT) and q6 (top 10 under a total order)
  are fully determined: they must equal the reference (q5 as a set, without duplicates);
- q2, q3, q4, q7 are cut by LIMIT 50: no duplicate, every row in the full answer, and
  min(50, full size) rows, which means equality whenever the full answer has at most 50 rows.
"""

import collections
import csv
import os

from bench.benchlib import EDGE_FILES, LABEL_OF, NODE_COLUMNS, NODE_FILES
from bench.retrieval.workload import LIMIT, TOP

Q1_PROPS = ("doc_id", "ordinal", "word_count", "section_title")


def typed(header, value):
    """A CSV cell as neo4j-admin reads it: `name:int` columns are integers; an empty cell is no value."""
    if value == "":
        return None
    return int(value) if header.endswith(":int") else value


def iter_nodes(data):
    """(id, label, {property: value}) of every node, the columns named as in benchlib.NODE_COLUMNS."""
    csv.field_size_limit(1 << 30)
    for f in NODE_FILES:
        cols = NODE_COLUMNS[f]
        with open(os.path.join(data, f), newline="", encoding="utf-8") as fh:
            rd = csv.reader(fh)
            next(rd)
            for r in rd:
                props = {name: typed(h, v) for (h, name, _t), v in zip(cols, r, strict=False) if not h.startswith(":")}
                yield r[0], LABEL_OF[f], props


def iter_edges(data):
    """(src, dst, type) of every edge."""
    for f in EDGE_FILES:
        with open(os.path.join(data, f), newline="", encoding="utf-8") as fh:
            rd = csv.reader(fh)
            next(rd)
            for r in rd:
                yield r[0], r[1], r[2]


class KG:
    def __init__(self, chunk_props, edges):
        self.chunk = chunk_props  # chunk id -> the Q1 tuple
        self.out = collections.defaultdict(list)  # (id, type) -> [dst, ...]
        self.inc = collections.defaultdict(list)  # (id, type) -> [src, ...]
        for s, d, t in edges:
            self.out[s, t].append(d)
            self.inc[d, t].append(s)

    @classmethod
    def from_csv(cls, data):
        chunks = {k: tuple(p.get(n) for n in Q1_PROPS) for k, label, p in iter_nodes(data) if label == "Chunk"}
        return cls(chunks, iter_edges(data))

    def co_chunks(self, c):
        """(other chunk, entity) for every path c -MENTIONS-> e <-MENTIONS- other, other != c."""
        return [(o, e) for e in self.out[c, "MENTIONS"] for o in self.inc[e, "MENTIONS"] if o != c]

    def full(self, kind, seed):
        if kind == "q1":
            return self.chunk.get(seed)
        if kind == "q2":
            return self.out[seed, "MENTIONS"]
        if kind == "q3":
            return self.inc[seed, "MENTIONS"]
        if kind == "q4":
            return list(dict.fromkeys(o for o, _e in self.co_chunks(seed)))
        if kind == "q5":
            return self.out[seed, "HAS_CHUNK"]
        if kind == "q6":
            n = collections.Counter(o for o, _e in self.co_chunks(seed))
            return sorted(n.items(), key=lambda x: (-x[1], x[0]))[:TOP]
        if kind == "q7":
            chunks = dict.fromkeys(c for e in seed for c in self.inc[e, "MENTIONS"])
            return list(dict.fromkeys(f for c in chunks for f in self.out[c, "MENTIONS"]))
        raise ValueError(kind)


def check_rows(rows, full, limit):
    """What is wrong with a LIMIT-cut answer (None if valid): duplicates, rows outside the full
    answer, a row count other than min(limit, full size) (all of it when limit is None)."""
    rows = list(rows)
    bad = []
    if len(set(rows)) != len(rows):
        bad.append("duplicate rows")
    allowed = set(full)
    outside = [r for r in rows if r not in allowed]
    if outside:
        bad.append(f"{len(outside)} rows not in the answer (e.g. {outside[0]!r})")
    want = len(allowed) if limit is None else min(limit, len(allowed))
    if len(rows) != want:
        bad.append(f"{len(rows)} rows, expected {want}")
    return "; ".join(bad) or None


def check(kind, got, full):
    """None if `got` (an engine's answer) is right for a query whose whole answer is `full`."""
    if kind == "q1":  # "" = no value, as in the CSV; `full` may come back from JSON as a list
        g = None if got is None else tuple(None if v == "" else v for v in got)
        want = None if full is None else tuple(full)
        return None if g == want else f"got {g!r}, expected {want!r}"
    if kind == "q6":
        g, want = [(k, int(n)) for k, n in got], [tuple(x) for x in full]
        return None if g == want else f"got {g!r}, expected {want!r}"
    return check_rows(got, full, None if kind == "q5" else LIMIT)


def check_engine(eng, sample):
    """Every [kind, seed, full answer] of the sample asked of the engine and checked."""
    problems = []
    for kind, seed, full in sample:
        seed = tuple(seed) if isinstance(seed, list) else seed
        try:
            why = check(kind, getattr(eng, kind)(seed), full)
        except Exception as e:
            why = f"{type(e).__name__}: {str(e)[:300]}"
        if why:
            problems.append({"kind": kind, "seed": seed, "why": why[:500]})
    return {"checked": len(sample), "problems": problems}
