"""Medians and ratios of the Cypher benchmark rounds (BENCHMARKS.md section 8), and a chart.

Each round directory holds what one round of section 8's commands wrote: `cypher_overhead.txt`
(criterion's output of `benches/cypher_overhead.rs`), `results.jsonl` (bench.retrieval.run)
and `deep.jsonl` (bench.deep.run).

    python3 -m bench.cypher_summary --label before bench/results/cypher/after-run{1,2,3} \
        --label after bench/results/cypher/e-run{1,2,3} --chart bench/results/cypher/cypher-e.png
"""

import argparse
import json
import os
import re
import statistics

CRITERION = re.compile(r"^(\S+)\s+time:\s+\[\S+ \S+ (\S+) (\S+) ")
UNIT_NS = {"ns": 1.0, "µs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9}
MIX = ["hopdb", "hopdb-cypher", "sqlite", "kuzu", "neo4j"]
DEEP = ["hopdb", "hopdb-python", "hopdb-cypher", "kuzu", "neo4j"]


def criterion(path):
    """{benchmark: median ns} from criterion's text output."""
    out = {}
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            m = CRITERION.match(line.strip())
            if m:
                out[m.group(1)] = float(m.group(2)) * UNIT_NS[m.group(3)]
    return out


def jsonl(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def mix(path):
    """{engine: (1-thread q/s, p50 per kind)}."""
    out = {}
    for r in jsonl(path):
        if r.get("mode") == "1-thread" and r.get("status") == "ok":
            out[r["engine"]] = (r["qps"], {k: round(v["p50_us"], 1) for k, v in r["per_kind"].items()})
    return out


def deep(path):
    """{engine: (Q8 median ms, Q11 median ms)}."""
    return {r["engine"]: (r["q8"]["median_ms"], r["q11"]["median_ms"]) for r in jsonl(path) if r.get("status") == "ok"}


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def summarize(label, rounds):
    crit = [criterion(os.path.join(d, "cypher_overhead.txt")) for d in rounds]
    mixes = [mix(os.path.join(d, "results.jsonl")) for d in rounds]
    deeps = [deep(os.path.join(d, "deep.jsonl")) for d in rounds]
    s = {"label": label, "rounds": rounds}
    print(f"== {label}: {', '.join(rounds)}")
    names = sorted({k for c in crit for k in c})
    for n in names:
        xs = [c.get(n) for c in crit]
        print(f"  criterion {n}: {' / '.join(f'{x / 1e3:.2f}' if x else '-' for x in xs)} us, median {med(xs) / 1e3:.2f}")
    diffs = [c["q1/cypher_key"] - c["q1/native"] for c in crit if "q1/cypher_key" in c and "q1/native" in c]
    if diffs:
        s["q1_overhead_us"] = med(diffs) / 1e3
        print(f"  Q1 Cypher by key - native: {' / '.join(f'{d / 1e3:+.2f}' for d in diffs)} us, median {s['q1_overhead_us']:+.2f}")
    s["mix"] = {}
    for e in MIX:
        q = [m[e][0] if e in m else None for m in mixes]
        if med(q) is None:
            continue
        s["mix"][e] = med(q)
        runs = [m.get(e) for m in mixes]
        middle = sorted((r for r in runs if r), key=lambda r: r[0])[len([r for r in runs if r]) // 2]
        print(f"  mix {e}: {' / '.join(f'{x:,.0f}' if x else '-' for x in q)} q/s, median {med(q):,.0f}; p50 us (median run) {middle[1]}")
    for e in MIX:
        if e == "hopdb-cypher":
            continue
        ratios = [m["hopdb-cypher"][0] / m[e][0] for m in mixes if "hopdb-cypher" in m and e in m]
        if ratios:
            s["mix"][f"cypher/{e}"] = med(ratios)
            print(f"  mix Cypher / {e}: {' / '.join(f'{r:.3g}' for r in ratios)}, median {med(ratios):.3g}x")
    s["deep"] = {}
    for e in DEEP:
        q8 = [d[e][0] if e in d else None for d in deeps]
        q11 = [d[e][1] if e in d else None for d in deeps]
        if med(q8) is None:
            continue
        s["deep"][e] = (med(q8), med(q11))
        print(f"  deep {e}: Q8 {' / '.join(f'{x:.3f}' if x else '-' for x in q8)} ms (median {med(q8):.3f}), "
              f"Q11 {' / '.join(f'{x:.3f}' if x else '-' for x in q11)} ms (median {med(q11):.3f})")
    for e in DEEP:
        if e == "hopdb-cypher":
            continue
        r8 = [d["hopdb-cypher"][0] / d[e][0] for d in deeps if "hopdb-cypher" in d and e in d]
        r11 = [d["hopdb-cypher"][1] / d[e][1] for d in deeps if "hopdb-cypher" in d and e in d]
        if r8:
            print(f"  deep Cypher / {e}: Q8 {' / '.join(f'{r:.3g}' for r in r8)} (median {med(r8):.3g}x), "
                  f"Q11 {' / '.join(f'{r:.3g}' for r in r11)} (median {med(r11):.3g}x)")
    return s


def chart(sets, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4.5))
    engines = [e for e in MIX if any(e in s["mix"] for s in sets)]
    width = 0.8 / len(sets)
    for i, s in enumerate(sets):
        a.bar([k + i * width for k in range(len(engines))], [s["mix"].get(e, 0) for e in engines], width, label=s["label"])
    a.set_xticks([k + width * (len(sets) - 1) / 2 for k in range(len(engines))], engines)
    a.set_yscale("log")
    a.set_ylabel("Q1-Q7 mix, 1 thread, q/s (median of rounds; log)")
    a.legend()
    kinds = ["hopdb-python", "hopdb-cypher", "kuzu", "neo4j"]
    short = {"hopdb-python": "native", "hopdb-cypher": "Cypher", "kuzu": "Kuzu", "neo4j": "Neo4j"}
    labels = [f"{short[e]}\nQ{q}" for e in kinds for q in (8, 11)]
    for i, s in enumerate(sets):
        vals = [s["deep"].get(e, (0, 0))[j] for e in kinds for j in (0, 1)]
        b.bar([k + i * width for k in range(len(labels))], vals, width, label=s["label"])
    b.set_xticks([k + width * (len(sets) - 1) / 2 for k in range(len(labels))], labels, fontsize=8)
    b.set_yscale("log")
    b.set_ylabel("median ms per query (log)")
    b.legend()
    fig.suptitle("HopDB Cypher against the native API and the peers, S=0.1 (2 cores)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"wrote {path}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--label", action="append", nargs="+", metavar=("LABEL", "ROUND_DIR"), required=True,
                    help="a label followed by its round directories (repeat for before / after)")
    ap.add_argument("--chart", help="write a PNG comparing the labelled sets")
    args = ap.parse_args()
    sets = [summarize(group[0], group[1:]) for group in args.label]
    if args.chart:
        chart(sets, args.chart)


if __name__ == "__main__":
    main()
