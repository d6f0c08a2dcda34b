"""Summarise criterion results as a Markdown table: HopDB beside SQLite, medians, ratios.

usage: python3 -m bench.criterion_table [--chart OUT.png] [CRITERION_DIR]
(CRITERION_DIR defaults to $CARGO_TARGET_DIR/criterion). Reads each benchmark's
new/benchmark.json (id, throughput) and new/estimates.json (median ns). --chart draws the
HopDB/SQLite ratios as a bar chart (needs matplotlib).
"""
import argparse
import json
import os
from pathlib import Path


def load(root: Path):
    rows = {}
    for bench in root.glob("**/new/benchmark.json"):
        meta = json.loads(bench.read_text())
        est = json.loads((bench.parent / "estimates.json").read_text())
        median_ns = est["median"]["point_estimate"]
        elems = (meta.get("throughput") or {}).get("Elements", 1)
        full = meta["full_id"]
        *case, engine = full.split("/")
        rows.setdefault("/".join(case), {})[engine] = elems / (median_ns / 1e9)
    return rows


def human(rate: float) -> str:
    if rate >= 1e6:
        return f"{rate / 1e6:.2f}M/s"
    return f"{rate / 1e3:.0f}K/s"


def chart(rows, out: Path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cases = [c for c in sorted(rows) if "hopdb" in rows[c] and "sqlite" in rows[c]]
    ratios = [rows[c]["hopdb"] / rows[c]["sqlite"] for c in cases]
    fig, ax = plt.subplots(figsize=(9, 0.32 * len(cases) + 1.2))
    # The goals: 2x SQLite on reads, 3x on writes.
    goals = [3 if "upsert" in c else 2 for c in cases]
    colors = ["#2a9d8f" if r >= g else "#e9c46a" if r >= 1 else "#e76f51" for r, g in zip(ratios, goals, strict=False)]
    ax.barh(range(len(cases)), ratios, color=colors)
    ax.set_yticks(range(len(cases)), cases, fontsize=8)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.axvline(1, color="black", linewidth=0.8)
    ax.axvline(2, color="grey", linewidth=0.8, linestyle="--")
    ax.axvline(3, color="grey", linewidth=0.8, linestyle=":")
    ax.set_xlabel("HopDB / SQLite throughput, log scale\ngoals: 2x on reads (dashed), 3x on writes (dotted); green = goal met")
    ax.set_title("Core operations, one thread, same run (criterion medians)")
    for i, r in enumerate(ratios):
        ax.text(r, i, f" {r:.2f}x", va="center", fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def main():
    default = Path(os.environ.get("CARGO_TARGET_DIR", Path.home() / ".cache/hopdb/target")) / "criterion"
    ap = argparse.ArgumentParser(prog=f"python3 -m {__spec__.name}", description=__doc__.splitlines()[0])
    ap.add_argument("--chart", type=Path)
    ap.add_argument("root", nargs="?", type=Path, default=default)
    args = ap.parse_args()
    rows = load(args.root)
    if args.chart:
        chart(rows, args.chart)
    print("| benchmark | HopDB | SQLite | HopDB / SQLite |")
    print("|---|---:|---:|---:|")
    for case in sorted(rows):
        r = rows[case]
        hop, sql = r.get("hopdb"), r.get("sqlite")
        ratio = f"{hop / sql:.2f}x" if hop and sql else "-"
        print(f"| {case} | {human(hop) if hop else '-'} | {human(sql) if sql else '-'} | {ratio} |")


if __name__ == "__main__":
    main()
