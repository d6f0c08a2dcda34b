"""Ranged reads of the cold tier, BENCHMARKS.md section 11j: the cold-read cases (one-vertex
promotion, the memo's mixed hot/cold 1-hop) of the old binary (whole partitions) against the
new one (row groups of 16,384 and 4,096 rows), latency percentiles on a log scale; also prints
the table as Markdown.

    python3 bench/results/issue24-ranged/chart.py bench/results/issue24-ranged/ranged.png

rmat25-*.json: `cluster_bench STORE --hot --masters 3 ...` output (crates/hopdb-cluster/examples).
"""

import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

D = "bench/results/issue24-ranged"
RUNS = [
    ("whole partitions (before)", "rmat25-old-rg16384.json"),
    ("row groups of 16,384 rows", "rmat25-new-rg16384.json"),
    ("row groups of 4,096 rows", "rmat25-new-rg4096.json"),
]
CASES = ["one-vertex promotion", "1-hop, Zipf 1.2 mixed hot/cold"]
PCTS = [("p50_ms", "p50"), ("p95_ms", "p95"), ("p99_ms", "p99"), ("p999_ms", "p99.9")]


def case(run, name):
    return next(c for c in run if c["case"] == name)


def main(out):
    runs = [(label, json.load(open(f"{D}/{f}"))) for label, f in RUNS]
    print("| case | reads | " + " | ".join(p for _, p in PCTS) + " | bytes per cold read |")
    print("|---|---|" + "---:|" * (len(PCTS) + 1))
    for name in CASES:
        for label, run in runs:
            c = case(run, name)
            per_read = c["extra"].get("cold_bytes_per_read")
            cells = " | ".join(f"{c[k]:.3f}" for k, _ in PCTS)
            print(f"| {name} | {label} | {cells} | {per_read if per_read is not None else 'whole partition'} |")
    fig, axes = plt.subplots(1, len(CASES), figsize=(11, 4.2))
    width = 0.26
    for ax, name in zip(axes, CASES, strict=True):
        for i, (label, run) in enumerate(runs):
            c = case(run, name)
            xs = [j + (i - 1) * width for j in range(len(PCTS))]
            ax.bar(xs, [c[k] for k, _ in PCTS], width, label=label)
        ax.set_xticks(range(len(PCTS)))
        ax.set_xticklabels([p for _, p in PCTS])
        ax.set_yscale("log")
        ax.set_ylabel("ms")
        ax.set_title(name)
        ax.grid(axis="y", alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle("Cold reads on R-MAT (10.6M nodes, 109.5M edges), 3 Redis primaries, 2 cores")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1])
