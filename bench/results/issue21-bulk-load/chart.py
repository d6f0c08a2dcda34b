"""Bulk loads, BENCHMARKS.md section 10g: seconds per load, HopDB before and after decision 0039
beside Kuzu in the same rounds.

    python3 bench/results/issue21-bulk-load/chart.py bench/results/issue21-bulk-load/bulk_load.png

columnar_ab.jsonl: 1M nodes + 3.98M edges from pyarrow / Polars (bench.ingest worker), 3 rounds.
kg_import_ab.jsonl: the S=1 knowledge graph from CSV (bench.bulk_import, `hopdb import`), 3 rounds.
"""

import json
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

D = "bench/results/issue21-bulk-load"
COLORS = {"before": "#9ecae1", "after": "#08519c", "kuzu": "#fd8d3c"}


def medians():
    out = {}
    for line in open(f"{D}/columnar_ab.jsonl"):
        r = json.loads(line)
        out.setdefault((r["mode"], r["build"]), []).append(r["result"]["secs"])
    for line in open(f"{D}/kg_import_ab.jsonl"):
        r = json.loads(line)
        build = "kuzu" if r["engine"] == "kuzu" else r["build"]
        out.setdefault(("kg-csv", build), []).append(r["load_s"])
    return {k: statistics.median(v) for k, v in out.items()}


def main(path):
    m = medians()
    groups = [("arrow", "1M nodes + 4M edges\npyarrow"), ("polars", "1M nodes + 4M edges\nPolars"),
              ("kg-csv", "S=1 knowledge graph\nCSV (2.0M rows)")]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    width = 0.26
    for i, build in enumerate(["before", "after", "kuzu"]):
        xs = [g + (i - 1) * width for g in range(len(groups))]
        ys = [m[(key, build)] for key, _ in groups]
        label = {"before": "HopDB before", "after": "HopDB after 0039", "kuzu": "Kuzu 0.11.3 COPY (same rounds)"}[build]
        bars = ax.bar(xs, ys, width, label=label, color=COLORS[build])
        ax.bar_label(bars, fmt="%.2f", fontsize=8)
    ax.set_xticks(range(len(groups)), [g for _, g in groups])
    ax.set_ylabel("seconds, median of 3 (lower is better)")
    ax.set_title("Bulk loads on 2 cores: HopDB before / after decision 0039, Kuzu in the same rounds")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    main(sys.argv[1])
