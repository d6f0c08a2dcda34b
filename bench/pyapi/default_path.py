"""What a newcomer gets with no tuning call: the study's Q1-Q7 mix and Q8/Q11 from Python on the
S=1 knowledge graph, in three set-ups, each in its own fresh process (issue 21's "defaults" row):

- store:   hopdb.Graph(store, read_only=True, projection_mb=0): reads never build a projection
           (the behaviour before decision 0034; the key index still warms itself);
- default: hopdb.Graph(store, read_only=True) and nothing else;
- tuned:   the same, then g.project() and g.warm_key_index() before the first query.

usage: python3 -m bench.pyapi.default_path [--rounds 3] [--seconds 12] [--store DIR] [--json OUT]
       python3 -m bench.pyapi.default_path --chart OUT.png RUNS.jsonl...   (medians per set-up)

Q1-Q7: bench.pyapi.query_mix_threads's plan (the study's proportions over 500 random chunk,
entity and document seeds, fixed RNG seed; Q1 fetches the node's properties with g.node); timed from the first call after the open
in 1 s windows, so the windows show when a background build starts serving. Q8 (k_hop 4 hops,
both directions, LIMIT 100) and Q11 (shortest_path, at most 12 hops) on bench/deep's seeds,
right after the mix. The set-ups alternate within each round. Prints one JSON line per run.
"""

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench.pyapi import s1_store
from bench.pyapi.query_mix_threads import plan

STORES = [s1_store.DEEP, s1_store.DEEP_RUST]
QUERIES = Path(__file__).resolve().parents[1] / "results/deep/queries-s1.json"
SETUPS = ("store", "default", "tuned")


def child(setup, store, seconds):
    """One set-up in this process: open, (tune), time the mix in 1 s windows, then Q8 and Q11."""
    import hopdb

    t0 = time.perf_counter()
    g = hopdb.Graph(store, read_only=True, **({"projection_mb": 0} if setup == "store" else {}))
    if setup == "tuned":
        g.project()
        g.warm_key_index()
    open_s = time.perf_counter() - t0
    calls = plan(g, 20_000, random.Random(5))
    windows, i, end = [], 0, time.perf_counter() + seconds
    while time.perf_counter() < end:
        w_end, done = time.perf_counter() + 1.0, 0
        while time.perf_counter() < w_end:
            for f, c, e, d, es in calls[i : i + 200]:
                f(c, e, d, es)
            i, done = (i + 200) % len(calls), done + 200
        windows.append(done / (time.perf_counter() - w_end + 1.0))
    q = json.loads(QUERIES.read_text())
    q8, q11 = [], []
    for s in q["q8"]:
        t = time.perf_counter()
        g.k_hop(s, 4, limit=100)
        q8.append((time.perf_counter() - t) * 1e3)
    for a, b in q["q11"]:
        t = time.perf_counter()
        g.shortest_path(a, b, max_hops=q["max_hops"])
        q11.append((time.perf_counter() - t) * 1e3)
    g.close()
    return {
        "setup": setup,
        "open_s": round(open_s, 3),
        "mix_windows_qps": [round(w) for w in windows],
        "mix_first_window_qps": round(windows[0]),
        # After the first 3 s: a background build of the S=1 projection takes about 1 s.
        "mix_steady_qps": round(statistics.median(windows[3:])),
        "q8_median_ms": round(statistics.median(q8), 4),
        "q11_median_ms": round(statistics.median(q11), 4),
    }


def chart(out, files):
    """Medians per set-up of the runs in `files` (JSON lines), as three bar panels."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = [json.loads(x) for f in files for x in Path(f).read_text().splitlines() if x.strip()]
    setups = list(dict.fromkeys(r["setup"] for r in runs))
    med = {
        s: {
            k: statistics.median(r[k] for r in runs if r["setup"] == s)
            for k in ("mix_steady_qps", "q8_median_ms", "q11_median_ms")
        }
        for s in setups
    }
    fig, axes = plt.subplots(1, 3, figsize=(13, 4))
    for ax, (k, title) in zip(
        axes,
        [
            ("mix_steady_qps", "Q1-Q7 mix, steady (q/s, higher is better)"),
            ("q8_median_ms", "Q8 median (ms)"),
            ("q11_median_ms", "Q11 median (ms)"),
        ],
        strict=True,
    ):
        ax.bar(
            setups,
            [med[s][k] for s in setups],
            color=["#999999" if "before" in s or s == "store" else "#3b7dd8" for s in setups],
        )
        ax.set_title(title, fontsize=10)
        ax.tick_params(axis="x", labelrotation=20, labelsize=8)
    fig.suptitle("S=1 knowledge graph from Python: no tuning call vs project() + warm_key_index()", fontsize=11)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def main():
    ap = argparse.ArgumentParser(prog=f"python3 -m {__spec__.name}", description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=12.0, help="the Q1-Q7 mix's timed length per run")
    ap.add_argument("--json", help="also write every run's line to this file")
    ap.add_argument("--child", choices=SETUPS, help=argparse.SUPPRESS)
    ap.add_argument("--chart", help="draw the medians of the runs in FILES to this PNG and exit")
    ap.add_argument("files", nargs="*", help="with --chart: JSON-lines files of runs")
    s1_store.add_argument(ap, STORES)
    a = ap.parse_args()
    if a.chart:
        chart(a.chart, a.files)
        return
    store = s1_store.resolve(a.store, STORES)
    if a.child:
        print(json.dumps(child(a.child, store, a.seconds)), flush=True)
        return
    runs = []
    for r in range(a.rounds):
        for setup in SETUPS:
            cmd = [sys.executable, "-m", __spec__.name, "--child", setup, "--store", store, "--seconds", str(a.seconds)]
            out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
            line = json.loads(out.strip().splitlines()[-1])
            line["round"] = r + 1
            runs.append(line)
            print(json.dumps(line), flush=True)
    if a.json:
        Path(a.json).write_text("".join(json.dumps(x) + "\n" for x in runs))
    med = {
        s: {
            k: statistics.median(x[k] for x in runs if x["setup"] == s)
            for k in ("mix_first_window_qps", "mix_steady_qps", "q8_median_ms", "q11_median_ms")
        }
        for s in SETUPS
    }
    for s in SETUPS:
        print(
            f"{s:8s} mix first window {med[s]['mix_first_window_qps']:>9,.0f} q/s, steady {med[s]['mix_steady_qps']:>9,.0f} q/s; Q8 {med[s]['q8_median_ms']:.3f} ms, Q11 {med[s]['q11_median_ms']:.3f} ms"
        )
    d, t = med["default"], med["tuned"]
    print(
        f"default / tuned: mix steady {d['mix_steady_qps'] / t['mix_steady_qps']:.2f}x, Q8 {t['q8_median_ms'] / d['q8_median_ms']:.2f}x, Q11 {t['q11_median_ms'] / d['q11_median_ms']:.2f}x (1.0 = as fast)"
    )


if __name__ == "__main__":
    main()
