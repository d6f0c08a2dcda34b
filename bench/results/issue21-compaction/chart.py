"""Compaction pressure, BENCHMARKS.md section 10f: HopDB/LevelDB per paired run, and writes/s per round.

    python3 bench/results/issue21-compaction/chart.py bench/results/issue21-compaction/compaction.png

compaction_ab.jsonl: LevelDB, HopDB before and after decision 0037 in turn (6 runs each).
sse_ab.jsonl: LevelDB, HopDB after 0037 (portable CRC32C) and after 0038 (SSE4.2) in turn (10 runs).
"""

import json
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

D = "bench/results/issue21-compaction"
SERIES = [
    ("compaction_ab.jsonl", "before", "before 0037", "#9ecae1"),
    ("compaction_ab.jsonl", "after", "0037", "#6baed6"),
    ("sse_ab.jsonl", "after", "0037 (2nd runs)", "#6baed6"),
    ("sse_ab.jsonl", "sse", "0037 + 0038 (SSE4.2)", "#08519c"),
]


def runs(name):
    return [json.loads(line) for line in open(f"{D}/{name}")]


def ratios(name, engine):
    rows = runs(name)
    level = [r["result"]["writes_per_s"] for r in rows if r["engine"] == "leveldb"]
    mine = [r["result"]["writes_per_s"] for r in rows if r["engine"] == engine]
    return [m / v for m, v in zip(mine, level, strict=True)]


fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.4))
for i, (name, engine, _label, colour) in enumerate(SERIES):
    r = ratios(name, engine)
    left.scatter([i] * len(r), r, color=colour, alpha=0.7)
    left.plot([i - 0.25, i + 0.25], [statistics.median(r)] * 2, color="black")
left.axhline(1.0, color="#ff7f0e", linestyle="--", label="LevelDB")
left.axhline(1.5, color="grey", linestyle=":", label="target 1.5x")
left.set_xticks(range(len(SERIES)), [s[2] for s in SERIES], rotation=15)
left.set_ylabel("HopDB / LevelDB writes/s, per paired run")
left.set_title("ratio to LevelDB in the same run (bar: median)")
left.legend()
for engine, label, colour in [("leveldb", "LevelDB", "#ff7f0e"), ("after", "HopDB 0037", "#6baed6"), ("sse", "HopDB 0037 + 0038", "#08519c")]:
    for j, row in enumerate(r for r in runs("sse_ab.jsonl") if r["engine"] == engine):
        rates = [p["writes_per_s"] / 1000 for p in row["result"]["per_round"]]
        right.plot(range(1, 6), rates, color=colour, alpha=0.5, marker="o", label=label if j == 0 else None)
right.set_xlabel("round (1: fresh keys; 2-5: overwrites)")
right.set_ylabel("thousand writes/s")
right.set_title("sse_ab.jsonl: each run, per round")
right.legend()
fig.suptitle("200,000 keys x 5 rounds of 1 KiB replaces, batches of 1,000 (2 cores, 24 GiB)")
fig.tight_layout()
fig.savefig(sys.argv[1], dpi=110)
