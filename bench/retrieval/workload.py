"""The query mix: kinds, weights, seed pools and the (kind, seed) sequence every engine runs.

Pure Python (no database): run.py draws the pools from the CSV files and writes the sequence into
the queries file that every worker reads, so every engine answers the same queries in the same order.
"""

import csv
import os
import random

LIMIT = 50  # Q2, Q3, Q4, Q7
TOP = 10  # Q6
SET_SIZE = 5  # Q7's seeds

# kind -> (weight in the mix, the pool its seed comes from, what it asks)
KINDS = {
    "q1": (0.30, "chunk", "point lookup of a chunk: doc_id, ordinal, word_count, section_title"),
    "q2": (0.30, "chunk", "the entities a chunk MENTIONS, LIMIT 50"),
    "q3": (0.20, "entity", "the chunks that MENTION an entity, LIMIT 50"),
    "q4": (0.10, "chunk", "chunk -> entities -> other chunks, DISTINCT, LIMIT 50"),
    "q5": (0.03, "document", "the chunks of a document (HAS_CHUNK)"),
    "q6": (0.04, "chunk", "co-entity count: chunks sharing entities with a chunk, top 10 by shared paths"),
    "q7": (0.03, "entity_set", "5 entities -> their chunks -> the entities those chunks mention, DISTINCT, LIMIT 50"),
}
KIND_NAMES = list(KINDS)


def read_ids(path):
    """The :ID column of a node file."""
    csv.field_size_limit(1 << 30)
    with open(path, newline="", encoding="utf-8") as fh:
        rd = csv.reader(fh)
        next(rd)
        return [r[0] for r in rd]


def draw_pools(data, n, rng_seed):
    """n chunks, n entities, n documents (distinct, uniform) and n sets of SET_SIZE distinct entities."""
    rng = random.Random(rng_seed)
    chunks = read_ids(os.path.join(data, "chunks.csv"))
    ents = read_ids(os.path.join(data, "entities.csv"))
    docs = read_ids(os.path.join(data, "documents.csv"))
    return {
        "chunk": rng.sample(chunks, min(n, len(chunks))),
        "entity": rng.sample(ents, min(n, len(ents))),
        "document": rng.sample(docs, min(n, len(docs))),
        "entity_set": [rng.sample(ents, SET_SIZE) for _ in range(n)],
    }


def sequence(n, pool_sizes, rng_seed):
    """n (kind, pool index) pairs: the kind drawn by the weights, the index uniform in its pool."""
    rng = random.Random(rng_seed)
    kinds = KIND_NAMES
    weights = [KINDS[k][0] for k in kinds]
    out = []
    for _ in range(n):
        k = rng.choices(kinds, weights)[0]
        out.append((k, rng.randrange(pool_sizes[KINDS[k][1]])))
    return out


def resolve(pools, seq):
    """(kind, pool index) -> (kind, seed): a key, or a tuple of keys for q7."""
    out = []
    for k, i in seq:
        s = pools[KINDS[k][1]][i]
        out.append((k, tuple(s) if isinstance(s, list) else s))
    return out


def check_sample(pools, per_kind):
    """The seeds every engine answers before timing: the first `per_kind` of each kind's pool."""
    out = []
    for k in KIND_NAMES:
        for s in pools[KINDS[k][1]][:per_kind]:
            out.append((k, tuple(s) if isinstance(s, list) else s))
    return out
