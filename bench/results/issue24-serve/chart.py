"""A mix over Bolt through a cluster's query nodes against the store's server, BENCHMARKS.md
sections 11e (Q1-Q7) and 11f (LightRAG): throughput per setup and p50/p99 per kind (medians
over the runs; with two query nodes, the first node's loadgen percentiles); also prints the
tables as Markdown.

    python3 bench/results/issue24-serve/chart.py bench/results/issue24-serve/serve_mix.png
    python3 bench/results/issue24-serve/chart.py bench/results/issue24-serve-lightrag/serve_mix.png

DIR/runN/summary.json (DIR: the chart's directory): `python3 -m bench.cluster.serve_mix` output.
"""

import glob
import json
import os
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

KINDS = {
    "retrieval": ["q1", "q2", "q3", "q4", "q5", "q6", "q7"],
    "lightrag": ["get_node", "get_node_edges", "upsert_node", "node_degree", "has_node"],
}
TITLES = {"retrieval": "Q1-Q7 over Bolt, S=1, 2 cores shared", "lightrag": "LightRAG calls over Bolt, S=1, 2 cores shared"}


def main(out):
    d = os.path.dirname(out)
    summaries = [json.load(open(f)) for f in sorted(glob.glob(f"{d}/run*/summary.json"))]
    mix = summaries[0].get("mix", "retrieval")
    kinds = KINDS[mix]
    runs = [s["setups"] for s in summaries]
    setups = list(runs[0])
    qps = {s: statistics.median(r[s]["qps"] for r in runs) for s in setups}
    pct = {
        s: {k: {p: statistics.median(r[s]["per_kind"][0][k][p] for r in runs) for p in ("p50_us", "p99_us")} for k in kinds}
        for s in setups
    }
    print(f"{len(runs)} runs\n\n| setup | queries/s (median) | vs the store |\n|---|---|---|")
    for s in setups:
        print(f"| {s} | {qps[s]:,.0f} | {qps[s] / qps['store']:.2f}x |")
    print("\n| kind | " + " | ".join(f"{s} p50 / p99 (us)" for s in setups) + " |\n" + "|---" * (len(setups) + 1) + "|")
    for k in kinds:
        print(f"| {k} | " + " | ".join(f"{pct[s][k]['p50_us']:,.0f} / {pct[s][k]['p99_us']:,.0f}" for s in setups) + " |")
    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4.5))
    a.bar(setups, [qps[s] for s in setups], color=["#555", "#3a7", "#2a5"])
    a.set_ylabel("queries/s (4 clients)")
    a.set_title(TITLES[mix])
    a.tick_params(axis="x", labelrotation=10)
    w = 0.8 / len(setups)
    for i, s in enumerate(setups):
        b.bar([x + i * w for x in range(len(kinds))], [pct[s][k]["p99_us"] / 1000 for k in kinds], w, label=s)
    b.set_xticks([x + w for x in range(len(kinds))], kinds)
    b.tick_params(axis="x", labelrotation=15)
    b.set_yscale("log")
    b.set_ylabel("p99, ms (log)")
    b.set_title("p99 per kind")
    b.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1])
