"""Compare two result directories of the benchmark suite (`bench/run --profile quick`).

    python3 -m bench.compare_runs BEFORE_DIR AFTER_DIR [--md OUT.md]

Each directory is what the suite writes, e.g. bench/results/quick: <dir>/{import,retrieval,sweep,deep,unum,
cozo_suite,ingest}/ with their jsonl files. For every workload this prints (Markdown) HopDB's headline figures
before and after with after/before, then HopDB/peer before and after, computed as the workload's own report does
(above 1: HopDB ahead; for latencies the peer's time over HopDB's): over each peer when there are at most two,
else over the best peer of that side (named in the cell). It ends with the median and range of the change over
all HopDB figures (as speed: time figures inverted, above 1 = better) and how many moved by more than 20%.

Headline figures: import rows/s (median over the repeats of the latest run, as bulk_import/run.py); retrieval
q/s per mode; sweep q/s per mix and client count (uncapped; the memory-capped points apart); deep Q8/Q11 median
ms of hopdb and hopdb-store; unum ops/s (edges/s for import) per dataset and operation; cozo_suite's report
metrics per dataset and measurement (projection left out: a 20 us figure); ingest rows/s per mode, N and cores
(peers in the matching mode, as ingest/run.py), HopDB's traversal medians and the default compaction writes/s.
A figure missing on one side shows "-"; a workload missing on either side is skipped with a note.
"""

import argparse
import json
import os
import statistics

WORKLOADS = {"import": "import/import.jsonl", "retrieval": "retrieval/results.jsonl", "sweep": "sweep/results.jsonl",
             "deep": "deep/deep.jsonl", "unum": "unum/results.jsonl", "cozo_suite": "cozo_suite/results.jsonl",
             "ingest": "ingest/results.jsonl"}  # fmt: skip
# cozo_suite op -> (field, unit, higher is better), as bench/cozo_suite/run.py's METRIC
COZO_METRIC = {"import": ("rows_per_s", "rows/s", True), "backup": ("rows_per_s", "rows/s", True),
               "restore": ("rows_per_s", "rows/s", True), "point_read": ("qps", "ops/s", True),
               "point_write": ("qps", "ops/s", True), "point_update": ("qps", "ops/s", True),
               "mixed_90_10": ("qps", "ops/s", True), "hop_2": ("median_ms", "median ms", False),
               "hop_3": ("median_ms", "median ms", False), "hop_4": ("median_ms", "median ms", False),
               "group_by": ("median_ms", "median ms", False), "pagerank": ("seconds", "s", False)}  # fmt: skip
# ingest: the HopDB mode each peer's (engine, mode) is compared with, as bench/ingest/run.py's HOPDB_PEER_MODE
INGEST_PEER_MODE = {("sqlite", "row"): "row", ("sqlite", "batch"): "batch", ("kuzu", "arrow"): "arrow",
                    ("kuzu", "polars"): "polars", ("arcadedb", "batch"): "arrow"}  # fmt: skip
HOPDB = ("hopdb", "hopdb-store")


def load(path):
    """The jsonl's records; a line cut short (a run still writing) is left out."""
    out = []
    with open(path) as f:
        for x in f:
            try:
                out.append(json.loads(x))
            except json.JSONDecodeError:
                pass
    return out


def ok(r):
    return r.get("status") == "ok"


def add(figs, label, hib, hop, peers):
    """One figure: label -> (higher is better, HopDB's value, {peer: value}); later lines win, as in the reports."""
    figs[label] = (hib, hop, {p: v for p, v in peers.items() if v})


def fig_import(recs):
    latest, groups = {}, {}
    for r in recs:
        latest[(r["scale"], r["engine"])] = max(latest.get((r["scale"], r["engine"]), ""), r["run_id"])
    for r in recs:
        if ok(r) and r["run_id"] == latest[(r["scale"], r["engine"])]:
            groups.setdefault(r["scale"], {}).setdefault(r["engine"], []).append(r)
    figs = {}
    for scale, by in groups.items():
        rate = {e: rs[0]["rows"] / statistics.median(r["total_s"] for r in rs) for e, rs in by.items()}
        add(figs, f"rows/s S={scale:g}", True, rate.pop("hopdb", None), rate)
    return figs


def fig_retrieval(recs):
    by = {}
    for r in recs:
        if ok(r):
            by.setdefault(r["mode"], {})[r["engine"]] = r["qps"]
    return {f"{m} q/s": (True, v.pop("hopdb", None), v) for m, v in by.items()}


def fig_sweep(recs):
    by = {}
    for r in recs:
        if ok(r):
            cap = ", 256 MiB cap" if r.get("capped") else ""
            by.setdefault(f"{r['mix']} {r['clients']} cl.{cap} q/s", {})[r["engine"]] = r["qps"]
    return {k: (True, v.pop("hopdb", None), v) for k, v in by.items()}


def fig_deep(recs):
    figs = {}
    for q in ("q8", "q11"):
        med = {r["engine"]: r[q].get("median_ms") for r in recs if ok(r) and r.get(q) and not r[q].get("median_over_timeout")}
        peers = {e: v for e, v in med.items() if e not in HOPDB}
        for e in HOPDB:
            add(figs, f"{q.upper()} median ms ({e})", False, med.get(e), peers)
    return figs


def fig_unum(recs):
    by = {}
    for r in recs:
        if ok(r) and r["measurement"] != "all":
            imp = r["measurement"] == "import"
            lab = f"{r['dataset']} {r['measurement']} {'edges/s' if imp else 'ops/s'}"
            by.setdefault(lab, {})[r["engine"]] = r.get("edges_per_s" if imp else "ops_per_s")
    return {k: (True, v.pop("hopdb", None), v) for k, v in by.items()}


def fig_cozo(recs):
    by = {}
    for r in recs:
        if ok(r) and r["op"] in COZO_METRIC:
            col, unit, hib = COZO_METRIC[r["op"]]
            lab = r["op"] + (f" ({r['variant']})" if r.get("variant") else "") + (f" x{r['threads']}t" if r.get("threads") else "")
            lab += f" x{r['processes']}p" if r.get("processes") else ""
            by.setdefault((f"{r['dataset']} {lab} {unit}", hib), {})[r["engine"]] = r.get(col)
    return {k: (hib, v.pop("hopdb", None), v) for (k, hib), v in by.items()}


def fig_ingest(recs):
    figs, good = {}, [r for r in recs if ok(r)]
    ing = {(r["engine"], r["mode"], r["n"], r["cores"]): r["rows_per_s"] for r in good if r["part"] == "ingest"}
    for (e, mode, n, cores), v in ing.items():
        if e == "hopdb":
            peers = {f"{pe} {pm}": ing.get((pe, pm, n, cores)) for (pe, pm), hm in INGEST_PEER_MODE.items() if hm == mode}
            add(figs, f"{mode} N={n:,} {cores} core{'s' * (cores > 1)} rows/s", True, v, peers)
    trav = {(r["engine"], r["n"], r["query"]): r["median_ms"] for r in good if r["part"] == "traversal"}
    for (e, n, q), v in trav.items():
        if e == "hopdb":
            add(figs, f"traversal {q} N={n:,} median ms", False, v, {"arcadedb": trav.get(("arcadedb", n, q))})
    comp = {r["engine"]: r["writes_per_s"] for r in good if r["part"] == "compaction" and r.get("config") in ("default", "baseline")}
    if "hopdb" in comp:
        add(figs, "compaction default writes/s", True, comp.pop("hopdb"), comp)
    return figs


EXTRACT = {"import": fig_import, "retrieval": fig_retrieval, "sweep": fig_sweep, "deep": fig_deep,
           "unum": fig_unum, "cozo_suite": fig_cozo, "ingest": fig_ingest}  # fmt: skip


def num(x):
    if x is None:
        return "-"
    for lim, div, suf in ((1e6, 1e6, "M"), (1e4, 1e3, "K")):
        if x >= lim:
            return f"{x / div:.2f}{suf}" if x < 100 * lim else f"{x / div:.0f}{suf}"
    return f"{x:,.0f}" if x >= 100 else f"{x:.3g}"


def rat(x):
    return "-" if x is None else f"{x:.2f}x" if x < 100 else f"{x:,.0f}x"


def advantage(hib, hop, peer):
    if not hop or not peer:
        return None
    return hop / peer if hib else peer / hop


def vs_peers(fig, peers_shown):
    """{peer column: HopDB/peer} for one side; 'best' = the peer HopDB leads least."""
    if fig is None:
        return {}
    hib, hop, peers = fig
    if peers_shown != ["best"]:
        return {p: (advantage(hib, hop, peers.get(p)), "") for p in peers_shown}
    adv = {p: advantage(hib, hop, v) for p, v in peers.items()}
    adv = {p: a for p, a in adv.items() if a is not None}
    return {"best": (min(adv.values()), min(adv, key=adv.get))} if adv else {}


def compare(name, before, after, changes):
    md = [f"## {name}", "", "| figure | before | after | after/before |", "|---|---:|---:|---:|"]
    labels = list(dict.fromkeys([*before, *after]))
    for lab in labels:
        b, a = before.get(lab), after.get(lab)
        hb, ha = b and b[1], a and a[1]
        r = ha / hb if hb and ha else None
        if r is not None:
            hib = (a or b)[0]
            changes.append((f"{name}: {lab}", r if hib else 1 / r, r))
        md.append(f"| {lab} | {num(hb)} | {num(ha)} | {'-' if r is None else f'{r:.2f}'} |")
    md += ["", "HopDB/peer (above 1: HopDB ahead; `best` = the peer closest to HopDB on that side):", "",
           "| figure | peer | before | after |", "|---|---|---:|---:|"]  # fmt: skip
    for lab in labels:
        peers = sorted({p for f in (before.get(lab), after.get(lab)) if f for p in f[2]})
        shown = peers if 0 < len(peers) <= 2 else ["best"] if peers else []
        vb, va = vs_peers(before.get(lab), shown), vs_peers(after.get(lab), shown)
        for p in shown:
            cells = [f"{rat(v[p][0])}{f' ({v[p][1]})' if v[p][1] else ''}" if p in v else "-" for v in (vb, va)]
            md.append(f"| {lab} | {p} | {cells[0]} | {cells[1]} |")
    return md + [""]


def run_line(d):
    p = os.path.join(d, "summary.md")
    lines = open(p).read().splitlines() if os.path.exists(p) else []
    return next((x for x in lines if x.startswith("Run ")), "(no summary.md)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--md", help="also write the Markdown to this file")
    a = ap.parse_args()
    md = ["# HopDB benchmark runs compared", "", f"- before: `{a.before}`: {run_line(a.before)}",
          f"- after: `{a.after}`: {run_line(a.after)}", ""]  # fmt: skip
    changes = []
    for name, rel in WORKLOADS.items():
        sides = [os.path.join(d, rel) for d in (a.before, a.after)]
        missing = [w for w, p in zip(("before", "after"), sides, strict=True) if not os.path.exists(p)]
        if missing:
            md += [f"## {name}", "", f"Skipped: no `{rel}` in {' and '.join(missing)}.", ""]
            continue
        md += compare(name, *(EXTRACT[name](load(p)) for p in sides), changes)
    md += ["## Overall", ""]
    if changes:
        speed = [c[1] for c in changes]
        moved = [c for c in changes if abs(c[2] - 1) > 0.2]
        better = sum(1 for c in moved if c[1] > 1)
        md.append(f"{len(changes)} HopDB figures on both sides; after/before as speed (time figures inverted, above 1 = better): "
                  f"median {statistics.median(speed):.2f}, range {min(speed):.2f} to {max(speed):.2f}; "
                  f"{len(moved)} moved by more than 20% ({better} better, {len(moved) - better} worse).")
        if moved:
            md += ["", "Moved by more than 20% (speed after/before):", ""]
            md += [f"- {lab}: {s:.2f}" for lab, s, _ in sorted(moved, key=lambda c: c[1])]
    else:
        md.append("No HopDB figure on both sides.")
    text = "\n".join(md).rstrip() + "\n"
    print(text, end="")
    if a.md:
        with open(a.md, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
