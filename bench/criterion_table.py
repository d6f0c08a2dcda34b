#!/usr/bin/env python3
"""Summarise criterion results as a Markdown table: HopDB beside SQLite, medians, ratios.

usage: python3 bench/criterion_table.py [CRITERION_DIR]   (default: $CARGO_TARGET_DIR/criterion)
Reads each benchmark's new/benchmark.json (id, throughput) and new/estimates.json (median ns).
"""
import json
import os
import sys
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


def main():
    default = Path(os.environ.get("CARGO_TARGET_DIR", Path.home() / ".cache/hopdb/target")) / "criterion"
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else default
    rows = load(root)
    print("| benchmark | HopDB | SQLite | HopDB / SQLite |")
    print("|---|---:|---:|---:|")
    for case in sorted(rows):
        r = rows[case]
        hop, sql = r.get("hopdb"), r.get("sqlite")
        ratio = f"{hop / sql:.2f}x" if hop and sql else "-"
        print(f"| {case} | {human(hop) if hop else '-'} | {human(sql) if sql else '-'} | {ratio} |")


if __name__ == "__main__":
    main()
