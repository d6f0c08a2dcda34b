"""Group-by medians: HopDB before (its Python path) and after (Cypher), Kuzu from the same runs."""

import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

R = "bench/results"
runs = {
    "before": [f"{R}/issue21-auto-projection/before/results.jsonl", f"{R}/issue21-auto-projection/after/results.jsonl"],
    "after": [f"{R}/issue21-group-by/run{i}/results.jsonl" for i in (1, 2, 3)],
}


def medians(path):
    out = {}
    for line in open(path):
        d = json.loads(line)
        if d.get("op") == "group_by" and "median_ms" in d:
            out[(d["engine"], d["dataset"])] = d["median_ms"]
    return out


data = {k: [medians(p) for p in v] for k, v in runs.items()}
fig, axes = plt.subplots(1, 2, figsize=(10, 4.2))
for ax, ds in zip(axes, ["twitch-de", "github"], strict=True):
    bars = []
    for label, key, eng in [
        ("HopDB before", "before", "hopdb"),
        ("Kuzu (before runs)", "before", "kuzu"),
        ("HopDB after", "after", "hopdb"),
        ("Kuzu (after runs)", "after", "kuzu"),
    ]:
        vals = [m[(eng, ds)] for m in data[key] if (eng, ds) in m]
        bars.append((label, vals))
    for i, (_label, vals) in enumerate(bars):
        ax.bar(i, sum(vals) / len(vals), color=["#9ecae1", "#fdae6b", "#1f77b4", "#ff7f0e"][i])
        ax.scatter([i] * len(vals), vals, color="black", s=12, zorder=3)
    ax.set_xticks(range(len(bars)))
    ax.set_xticklabels([b[0] for b in bars], rotation=20, ha="right", fontsize=8)
    ax.set_title(f"{ds}: group-by (count, sum of degrees)")
    ax.set_ylabel("ms, median of 3 (lower is better)")
    ax.grid(axis="y", alpha=0.3)
fig.suptitle("Cozo suite group-by, each run a dot (before 2, after 3), 2 cores")
fig.tight_layout()
fig.savefig(sys.argv[1], dpi=110)
