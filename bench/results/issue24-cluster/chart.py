"""The cluster's reads, BENCHMARKS.md section 11: p50 and p99 of 1- and 2-hop reads on the S=1
knowledge graph, the embedded store beside the cluster (cold tier, cached, Zipf 1.2), medians of
the runs' own percentiles.

    python3 bench/results/issue24-cluster/chart.py bench/results/issue24-cluster/cluster_reads.png

kg-s1-run*.json: `cluster_bench` output, one file per run (crates/hopdb-cluster/examples).
"""

import glob
import json
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

D = "bench/results/issue24-cluster"


def main(out):
    runs = [json.load(open(f)) for f in sorted(glob.glob(f"{D}/kg-s1-run*.json"))]
    cases = [r["case"] for r in runs[0] if r["case"] != "load"]
    p50 = [statistics.median(next(c["p50_ms"] for c in run if c["case"] == case) for run in runs) for case in cases]
    p99 = [statistics.median(next(c["p99_ms"] for c in run if c["case"] == case) for run in runs) for case in cases]
    fig, ax = plt.subplots(figsize=(10, 4.8))
    y = range(len(cases))
    ax.barh([i + 0.2 for i in y], p99, height=0.4, color="#9ecae1", label="p99")
    ax.barh([i - 0.2 for i in y], p50, height=0.4, color="#08519c", label="p50")
    for i, (a, b) in enumerate(zip(p50, p99, strict=True)):
        ax.text(b * 1.05, i + 0.2, f"{b:.3f}", va="center", fontsize=8)
        ax.text(a * 1.05, i - 0.2, f"{a:.3f}", va="center", fontsize=8)
    ax.set_yticks(list(y), cases)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel(f"ms per query (log scale), median of {len(runs)} runs")
    ax.set_title("S=1 knowledge graph: the embedded store and the cluster (1,024 partitions, 32 MB cache)")
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1])
