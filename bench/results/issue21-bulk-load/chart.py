"""Bulk loads, BENCHMARKS.md section 10g: seconds per load, HopDB before and after decision 0039
beside Kuzu in the same rounds.

    python3 bench/results/issue21-bulk-load/chart.py bench/results/issue21-bulk-load/bulk_load.png

columnar_ab.jsonl: 1M nodes + 3.98M edges from pyarrow / Polars (bench.ingest worker), 3 rounds.
kg_import_ab.jsonl: the S=1 knowledge graph from CSV (bench.bulk_import, `hopdb import`), 3 rounds.
kg_csv_ahead_ab.jsonl: the same, without and with the CSV reader reading ahead, 6 rounds.
"""

import json
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

D = "bench/results/issue21-bulk-load"
COLORS = {"before": "#9ecae1", "after": "#08519c", "kuzu": "#fd8d3c", "ahead": "#31a354"}


def medians():
    out = {}
    for line in open(f"{D}/columnar_ab.jsonl"):
        r = json.loads(line)
        out.setdefault((r["mode"], r["build"]), []).append(r["result"]["secs"])
    for line in open(f"{D}/kg_import_ab.jsonl"):
        r = json.loads(line)
        build = "kuzu" if r["engine"] == "kuzu" else r["build"]
        out.setdefault(("kg-csv", build), []).append(r["load_s"])
    for line in open(f"{D}/kg_csv_ahead_ab.jsonl"):
        r = json.loads(line)
        if r["engine"] == "hopdb" and r["build"] == "csv-ahead":
            out.setdefault(("kg-csv", "ahead"), []).append(r["load_s"])
    return {k: statistics.median(v) for k, v in out.items()}


def main(path):
    m = medians()
    groups = [("arrow", "1M nodes + 4M edges\npyarrow"), ("polars", "1M nodes + 4M edges\nPolars"),
              ("kg-csv", "S=1 knowledge graph\nCSV (2.0M rows)")]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    width = 0.2
    builds = ["before", "after", "ahead", "kuzu"]
    labels = {"before": "HopDB before", "after": "HopDB after 0039", "ahead": "HopDB after 0039, CSV read ahead",
              "kuzu": "Kuzu 0.11.3 COPY (same rounds)"}
    for i, build in enumerate(builds):
        keys = [(g, key) for g, (key, _) in enumerate(groups) if (key, build) in m]
        xs = [g + (i - 1.5) * width for g, _ in keys]
        ys = [m[(key, build)] for _, key in keys]
        bars = ax.bar(xs, ys, width, label=labels[build], color=COLORS[build])
        ax.bar_label(bars, fmt="%.2f", fontsize=8)
    ax.set_xticks(range(len(groups)), [g for _, g in groups])
    ax.set_ylabel("seconds, median of 3 runs (read ahead: 6); lower is better")
    ax.set_title("Bulk loads on 2 cores: HopDB before / after decision 0039, Kuzu in the same rounds")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    main(sys.argv[1])
