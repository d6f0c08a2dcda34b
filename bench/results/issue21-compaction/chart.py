"""Compaction pressure, section 10f: writes/s per round of every run, LevelDB and HopDB before/after.

    python3 bench/results/issue21-compaction/chart.py bench/results/issue21-compaction/compaction.png
"""

import json
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

SRC = "bench/results/issue21-compaction/compaction_ab.jsonl"
STYLE = {"leveldb": ("LevelDB", "#ff7f0e"), "before": ("HopDB before", "#9ecae1"), "after": ("HopDB after", "#1f77b4")}

runs = [json.loads(line) for line in open(SRC)]
fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
for engine, (label, colour) in STYLE.items():
    mine = [r["result"] for r in runs if r["engine"] == engine]
    for i, res in enumerate(mine):
        rates = [p["writes_per_s"] / 1000 for p in res["per_round"]]
        left.plot(range(1, len(rates) + 1), rates, color=colour, alpha=0.6, marker="o", label=label if i == 0 else None)
    right.bar(list(STYLE).index(engine), statistics.median(r["writes_per_s"] for r in mine) / 1000, color=colour)
left.set_xlabel("round (1: fresh keys; 2-5: overwrites)")
left.set_ylabel("thousand writes/s")
left.set_title("each run, per round")
left.legend()
right.set_xticks(range(len(STYLE)), [v[0] for v in STYLE.values()])
right.set_ylabel("thousand writes/s, median of the runs")
right.set_title("all five rounds")
fig.suptitle("200,000 keys x 5 rounds of 1 KiB replaces, batches of 1,000 (2 cores)")
fig.tight_layout()
fig.savefig(sys.argv[1], dpi=110)
