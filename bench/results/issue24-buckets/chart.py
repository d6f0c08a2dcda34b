"""Partition promotion with hot-tier buckets, BENCHMARKS.md section 11l: promotion rate
(nodes/s) and hot 1-hop throughput of the binary before buckets against the one with them,
each run of the paired A/B on R-MAT scale 23 and 25; also prints the table as Markdown.

    python3 bench/results/issue24-buckets/chart.py bench/results/issue24-buckets/buckets.png

*.json: `cluster_bench STORE --hot --masters 3 --queries 400 --load-mb 8192 --no-snapshot`
output (crates/hopdb-cluster/examples). Runs named base* are the binary before buckets,
bkt* buckets read together with each node's own key, bktb* and new* buckets read first
(the code committed). rmat25 new3 and new4 ran while the test suite ran beside them: their
promotion is drawn, their query throughput is not (it measured the tests' load).
"""

import json
import os
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

D = "bench/results/issue24-buckets"
BESIDE_TESTS = {("rmat25", "new3"), ("rmat25", "new4")}
GRAPHS = [
    (
        "R-MAT scale 23 (2.9M nodes, 27.3M edges)",
        "rmat23",
        ["base1", "base2", "base3"],
        ["bkt1", "bkt2", "bktb1", "bktb2"],
    ),
    ("R-MAT scale 25 (10.6M nodes, 109.5M edges)", "rmat25", ["base1"], ["new1", "new3", "new4"]),
]


def case(run, name, **match):
    return next(c for c in run if c["case"] == name and all(c.get(k) == v for k, v in match.items()))


def load(prefix, name):
    path = f"{D}/{prefix}-{name}.json"
    return json.load(open(path)) if os.path.exists(path) else None


def row(name, run):
    p = case(run, "promote all partitions")
    t1 = case(run, "hot 1-hop throughput", query_nodes=1)["queries_per_s"]
    t2 = case(run, "hot 1-hop throughput", query_nodes=2)["queries_per_s"]
    hop = case(run, "1-hop, hot tier")
    return {
        "run": name,
        "nodes_per_s": p["nodes_per_s"],
        "read": p["read_seconds"],
        "encode": p["encode_seconds"],
        "wait": p["write_wait_seconds"],
        "redis_mb": p["redis_used_bytes"] / 1e6,
        "t1": t1,
        "t2": t2,
        "p99": hop["p99_ms"],
    }


def main(out):
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for title, prefix, before, after in GRAPHS:
        rows = {
            k: [row(n, r) for n in names if (r := load(prefix, n))]
            for k, names in (("before", before), ("buckets", after))
        }
        if not rows["before"] or not rows["buckets"]:
            continue
        print(f"\n{title}\n")
        print(
            "| binary | run | nodes/s | reading s | encoding s | waiting s | Redis MB | hot 1-hop q/s (1 / 2 query nodes) | hot 1-hop p99 ms |"
        )
        print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
        for label, rs in rows.items():
            for r in rs:
                print(
                    f"| {label} | {r['run']} | {r['nodes_per_s']:,.0f} | {r['read']:.2f} | {r['encode']:.2f} | {r['wait']:.2f} "
                    f"| {r['redis_mb']:,.0f} | {r['t1']:,.0f} / {r['t2']:,.0f} | {r['p99']:.3f} |"
                )
        med = {k: statistics.median(r["nodes_per_s"] for r in rs) for k, rs in rows.items()}
        print(
            f"\nmedian nodes/s: before {med['before']:,.0f}, buckets {med['buckets']:,.0f} ({med['buckets'] / med['before']:.2f}x)"
        )
        short = title.split(" (")[0]
        axes[0].scatter(
            [short] * len(rows["before"]),
            [r["nodes_per_s"] / 1e3 for r in rows["before"]],
            color="tab:gray",
            label="before" if prefix == "rmat23" else None,
        )
        axes[0].scatter(
            [short] * len(rows["buckets"]),
            [r["nodes_per_s"] / 1e3 for r in rows["buckets"]],
            color="tab:blue",
            label="buckets" if prefix == "rmat23" else None,
        )
        for k, rs in rows.items():
            rs = [r for r in rs if (prefix, r["run"]) not in BESIDE_TESTS]
            axes[1].scatter(
                [f"{short}\n{k}"] * len(rs),
                [r["t1"] / 1e3 for r in rs],
                color="tab:orange",
                label="1 query node" if prefix == "rmat23" and k == "before" else None,
            )
            axes[1].scatter(
                [f"{short}\n{k}"] * len(rs),
                [r["t2"] / 1e3 for r in rs],
                color="tab:green",
                label="2 query nodes" if prefix == "rmat23" and k == "before" else None,
            )
    axes[0].axhline(500, color="tab:red", linestyle="--", label="target 500K")
    axes[0].set_ylabel("thousand nodes/s")
    axes[0].set_title("promoting every partition (each dot a run)")
    axes[0].set_ylim(bottom=0)
    axes[0].legend(fontsize=8)
    axes[1].set_ylabel("thousand queries/s")
    axes[1].set_title("hot 1-hop throughput, 4 threads per query node")
    axes[1].set_ylim(bottom=0)
    axes[1].legend(fontsize=8)
    for ax in axes:
        ax.grid(axis="y", alpha=0.3)
    fig.suptitle("Hot-tier buckets: 3 Redis primaries, 2 cores")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else f"{D}/buckets.png")
