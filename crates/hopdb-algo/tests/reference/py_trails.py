"""Brute-force trail enumerator (no library): the reference for variable-length paths.

usage: py_trails.py EDGES.tsv out|both MAX SEED,SEED,...
A step from u is an out-edge (and with "both" also an in-edge) of u; edge i of the file has
id i; a self-loop is one step even though it is both an out- and an in-edge; a trail never
uses an edge id twice. For each seed prints the number of trails of each length 1..MAX and,
for each (min, max) with 1 <= min <= max <= MAX, the sorted distinct end nodes.
"""
import json
import sys

from refgraph import node_count, parse_ints, read_tsv

path, mode, max_hops, seeds = sys.argv[1], sys.argv[2], int(sys.argv[3]), parse_ints(sys.argv[4])
edges, _ = read_tsv(path)
steps = [[] for _ in range(node_count(edges))]
for i, (s, d) in enumerate(edges):
    steps[s].append((d, i))
    if mode == "both" and s != d:
        steps[d].append((s, i))

result = {}
for seed in seeds:
    counts = [0] * (max_hops + 1)
    ends = [set() for _ in range(max_hops + 1)]
    used = set()

    def walk(u, depth):
        for v, i in steps[u]:
            if i in used:
                continue
            counts[depth + 1] += 1
            ends[depth + 1].add(v)
            if depth + 1 < max_hops:
                used.add(i)
                walk(v, depth + 1)
                used.discard(i)

    walk(seed, 0)
    ranges = {}
    for lo in range(1, max_hops + 1):
        for hi in range(lo, max_hops + 1):
            ranges[f"{lo}-{hi}"] = sorted(set().union(*ends[lo:hi + 1]))
    result[str(seed)] = {"counts": counts[1:], "ends": ranges}
json.dump(result, sys.stdout)
