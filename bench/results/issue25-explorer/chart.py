"""The explorer in a browser, BENCHMARKS.md section 12: first paint and the time to expand
and draw a 500-node neighbourhood (LightRAG's get_knowledge_graph from the highest-degree
node, cut at 500 nodes) in headless Chromium, each run of python/tests/test_explorer.py,
against the issue's targets; also prints the table as Markdown.

    python3 bench/results/issue25-explorer/chart.py bench/results/issue25-explorer/explorer.png

lennyhub-run*.json: the page test's RESULT.json (crates/hopdb-explorer/web/test/explorer.test.mjs).
"""

import glob
import json
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

D = "bench/results/issue25-explorer"


def main(out):
    runs = [json.load(open(f)) for f in sorted(glob.glob(f"{D}/lennyhub-run*.json"))]
    paints = [r["perf"]["firstPaintMs"] for r in runs]
    expands = [x for r in runs for x in r["perf"]["expand"]["runs"]]
    print(
        "| test run | first paint ms | 500-node expansion ms (3 each) | of which server round trips ms | drawn nodes / edges |"
    )
    print("|---|---:|---|---|---|")
    for i, r in enumerate(runs, 1):
        e = r["perf"]["expand"]
        ms = ", ".join(f"{x['ms']:.0f}" for x in e["runs"])
        fetch = ", ".join(f"{x['breakdown']['fetchMs']:.0f}" for x in e["runs"])
        print(f"| {i} | {r['perf']['firstPaintMs']:.0f} | {ms} | {fetch} | {e['nodesDrawn']} / {e['edgesDrawn']} |")
    print(
        f"\nmedians: first paint {statistics.median(paints):.0f} ms, expansion {statistics.median(x['ms'] for x in expands):.0f} ms"
    )
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    axes[0].bar(range(1, len(paints) + 1), paints, color="tab:blue")
    axes[0].axhline(1000, color="tab:red", linestyle="--", label="target 1 s")
    axes[0].set_title("first paint")
    axes[0].set_xlabel("test run")
    axes[0].set_xticks(range(1, len(paints) + 1))
    axes[0].set_ylabel("ms")
    axes[0].legend(fontsize=8)
    xs = range(1, len(expands) + 1)
    fetch = [x["breakdown"]["fetchMs"] for x in expands]
    page = [x["ms"] - f for x, f in zip(expands, fetch, strict=True)]
    axes[1].bar(xs, fetch, color="tab:gray", label="query API round trips")
    axes[1].bar(xs, page, bottom=fetch, color="tab:blue", label="page: build, layout start, frame")
    axes[1].axhline(300, color="tab:red", linestyle="--", label="target 300 ms")
    axes[1].set_title("expand and draw 500 nodes (1,098 edges)")
    axes[1].set_xlabel("expansion (3 per test run)")
    axes[1].set_ylabel("ms")
    axes[1].set_ylim(0, 420)
    axes[1].legend(fontsize=8, loc="upper right", ncol=2)
    for ax in axes:
        ax.grid(axis="y", alpha=0.3)
    fig.suptitle("HopDB explorer in headless Chromium (software WebGL), lennyhub-podcasts, 2 cores")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else f"{D}/explorer.png")
