"""The hot tier's figures, BENCHMARKS.md section 11b: latency percentiles per case (medians of
the runs' own percentiles, every primary count pooled) and hot 1-hop throughput by primaries and
query nodes; also prints the tables as Markdown.

    python3 bench/results/issue24-hot/chart.py bench/results/issue24-hot/hot_tier.png

kg-s1-mM-runN.json: `cluster_bench --hot --masters M` output (crates/hopdb-cluster/examples).
"""

import glob
import json
import re
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

D = "bench/results/issue24-hot"
PCTS = ["p50_ms", "p95_ms", "p99_ms", "p999_ms"]


def load():
    runs = {}
    for f in sorted(glob.glob(f"{D}/kg-s1-m*-run*.json")):
        m = int(re.search(r"-m(\d+)-", f).group(1))
        runs.setdefault(m, []).append(json.load(open(f)))
    return runs


def median_of(runs, case, key, **match):
    vals = [c[key] for run in runs for c in run if c["case"] == case and all(c.get(k) == v for k, v in match.items())]
    return statistics.median(vals) if vals else float("nan")


def main(out):
    by_m = load()
    pooled = [run for runs in by_m.values() for run in runs]
    cases = [c["case"] for c in pooled[0] if "p50_ms" in c]
    print("| case (ms) | p50 | p95 | p99 | p99.9 |\n|---|---:|---:|---:|---:|")
    for case in cases:
        cells = " | ".join(f"{median_of(pooled, case, p):.3f}" for p in PCTS)
        print(f"| {case} | {cells} |")
    print("\n| primaries | 1 query node | 2 query nodes | promote (nodes/s) | evict (entries/s) |")
    print("|---:|---:|---:|---:|---:|")
    for m in sorted(by_m):
        q1 = median_of(by_m[m], "hot 1-hop throughput", "queries_per_s", query_nodes=1)
        q2 = median_of(by_m[m], "hot 1-hop throughput", "queries_per_s", query_nodes=2)
        pr = median_of(by_m[m], "promote all partitions", "nodes_per_s")
        ev = median_of(by_m[m], "evict all partitions", "entries_per_s")
        print(f"| {m} | {q1:,.0f} | {q2:,.0f} | {pr:,.0f} | {ev:,.0f} |")

    fig, (a, b) = plt.subplots(1, 2, figsize=(14, 5), gridspec_kw={"width_ratios": [3, 2]})
    y = range(len(cases))
    p50 = [median_of(pooled, c, "p50_ms") for c in cases]
    p99 = [median_of(pooled, c, "p99_ms") for c in cases]
    a.barh([i + 0.2 for i in y], p99, height=0.4, color="#fdae6b", label="p99")
    a.barh([i - 0.2 for i in y], p50, height=0.4, color="#d94801", label="p50")
    for i, (lo, hi) in enumerate(zip(p50, p99, strict=True)):
        a.text(hi * 1.05, i + 0.2, f"{hi:.3f}", va="center", fontsize=8)
        a.text(lo * 1.05, i - 0.2, f"{lo:.3f}", va="center", fontsize=8)
    a.set_yticks(list(y), cases)
    a.invert_yaxis()
    a.set_xscale("log")
    a.set_xlabel(f"ms per operation (log scale), median of {len(pooled)} runs")
    a.set_title("Hot tier (Redis Cluster) vs the embedded store, S=1 KG")
    a.legend(loc="lower right")
    ms = sorted(by_m)
    w = 0.38
    for j, q in enumerate([1, 2]):
        vals = [median_of(by_m[m], "hot 1-hop throughput", "queries_per_s", query_nodes=q) for m in ms]
        b.bar([m + (j - 0.5) * w for m in ms], vals, width=w, label=f"{q} query node(s) x 4 threads")
        for m, v in zip(ms, vals, strict=True):
            b.text(m + (j - 0.5) * w, v, f"{v / 1000:.1f}K", ha="center", va="bottom", fontsize=8)
    b.set_xticks(ms, [f"{m} primaries" for m in ms])
    b.set_ylabel("hot 1-hop queries/s")
    b.set_title("Throughput on 2 cores (clients and Redis share them)")
    b.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1])
