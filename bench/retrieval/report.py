"""report.md and retrieval.png from results.jsonl (one line per engine and mode)."""

import datetime
import json
import math
import os
import sys

from bench.retrieval.workload import KIND_NAMES, KINDS

NAMES = {"hopdb": "HopDB (Python)", "sqlite": "SQLite", "networkx": "NetworkX", "kuzu": "Kuzu", "neo4j": "Neo4j", "postgres": "PostgreSQL", "cozo": "Cozo", "falkordb": "FalkorDB", "hopdb-cypher": "HopDB (Cypher)"}
MODES = ["1-thread", "2-thread", "2-process"]


def log(msg):
    print(f"[{datetime.datetime.now():%H:%M:%S}] {msg}", file=sys.stderr, flush=True)


def by_engine(lines):
    """{engine: {mode: line}} in the order of the file; modeless lines (skipped, failed) under None."""
    out = {}
    for r in lines:
        out.setdefault(r["engine"], {})[r["mode"]] = r
    return out


def fmt_qps(r):
    if not r:
        return "-"
    if r["status"] != "ok":
        return r["status"]
    return f"{r['qps']:,.0f}" + (" (capped)" if r.get("capped_by_time") else "")


def fmt_us(v):
    return "-" if v is None else (f"{v:,.0f}" if v >= 100 else f"{v:.1f}")


def ratio(base, r):
    if not base or not r or r["status"] != "ok" or base["status"] != "ok":
        return "-"
    x = base["qps"] / r["qps"]
    return f"{x:,.0f}x" if x >= 10 else f"{x:.1f}x"


def write(jsonl, out):
    lines = [json.loads(x) for x in open(jsonl) if x.strip()]
    if not lines:
        return 0
    head = lines[0]
    eng = by_engine(lines)
    base = eng.get("hopdb", {}).get("1-thread")
    host = head.get("host", {})
    md = [f"# Retrieval mix Q1-Q7 on the knowledge graph, S={head['scale']:g}", ""]
    md.append(
        f"{head['nodes']:,} nodes, {head['edges']:,} edges (`hopdb generate --scale {head['scale']:g}`). Machine: {host.get('cpu', '?')}, {host.get('cores', '?')} cores "
        f"(shared: load averages in results.jsonl), Python {host.get('python', '?')}. Run {head['run_id']}: `python3 -m bench.retrieval.run` (bench/retrieval/README.md)."
    )
    md.append("")
    mix = ", ".join(f"{k.upper()} {w * 100:g}%" for k, (w, _p, _d) in KINDS.items())
    md.append(
        f"Every engine runs the same sequence of (kind, seed): a warm-up of {head['warmup']} queries, then {head['queries_planned']:,} timed ones ({mix}; "
        f"seeds from pools of {head['pool']} chunks, entities, documents and 5-entity sets, RNG seed {head['rng_seed']}), one query at a time per thread, "
        f"each mode capped at {head['max_seconds']:g} s (`capped`: fewer queries ran). q/s = queries / wall time; 2-thread: the same queries split over two "
        f"threads; 2-process: over two processes each opening the database read-only. HopDB / engine = HopDB's 1-thread q/s over the engine's. "
        f"p50 = median latency (us) of each kind on one thread."
    )
    md.append("")
    md.append("| engine | 1-thread q/s | 2-thread q/s | 2-process q/s | HopDB / engine | " + " | ".join(f"{k.upper()} p50" for k in KIND_NAMES) + " | answers |")
    md.append("|---|" + "---:|" * (4 + len(KIND_NAMES)) + "---|")
    notes, wrong = [], []
    for e, modes in eng.items():
        name = NAMES.get(e, e)
        if None in modes:
            r = modes[None]
            md.append(f"| {name} | {r['status']} |" + " |" * (4 + len(KIND_NAMES)) + " |")
            notes.append(f"- **{name}** {r['status']}: {r.get('reason', '')}")
            continue
        one = modes.get("1-thread")
        any_r = next(iter(modes.values()))
        probs = (any_r.get("check") or {}).get("problems", [])
        answers = f"ok ({any_r['check']['checked']})" if not probs else f"**WRONG** ({len(probs)})"
        wrong += [f"- {name} {p['kind'].upper()} {p['seed']}: {p['why']}" for p in probs[:10]]
        p50 = [fmt_us(one["per_kind"].get(k, {}).get("p50_us")) if one and one["status"] == "ok" else "-" for k in KIND_NAMES]
        md.append(f"| {name} | {fmt_qps(one)} | {fmt_qps(modes.get('2-thread'))} | {fmt_qps(modes.get('2-process'))} | {ratio(base, one)} | " + " | ".join(p50) + f" | {answers} |")
        v = any_r.get("variant")
        trial = ""
        if v and v.get("trial"):
            trial = "; query forms tried on the same queries: " + ", ".join(f"{k} {x['qps']:,.0f} q/s" for k, x in v["trial"].items()) + f", kept `{v['chosen']}`"
        elif v:
            trial = f"; query form `{v['chosen']}` (forced)"
        pr = any_r.get("prepare") or {}
        la = [f"{m} {r['loadavg_before'][0]:.2f}" for m, r in modes.items() if r.get("loadavg_before")]
        notes.append(f"- **{name}**: {any_r.get('version')}, Python {any_r.get('python')}. {pr.get('notes', '')}{trial}. Load average (1 min) before: {', '.join(la)}.")
    md += ["", "Versions, set-up, load average:", ""] + notes
    md.append("")
    if wrong:
        md += ["**Wrong answers** (against the reference computed from the CSV files):", ""] + wrong
    else:
        md.append(
            f"Answers checked before timing: the first {head['check_per_kind']} seeds of each kind's pool, against the reference computed from the CSV files "
            "(Q1, Q5, Q6 equal; Q2, Q3, Q4, Q7: no duplicate, every row in the full answer, min(50, full size) rows)."
        )
    md += ["", "![throughput per engine, log scale](retrieval.png)"]
    open(os.path.join(out, "report.md"), "w").write("\n".join(md) + "\n")
    chart(eng, head, os.path.join(out, "retrieval.png"))
    log(f"wrote {out}/report.md and retrieval.png")
    return 0


def chart(eng, head, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, NullFormatter

    ok = [(e, m) for e, m in eng.items() if m.get("1-thread", {}).get("status") == "ok"]
    if not ok:
        return
    fig, ax = plt.subplots(figsize=(max(7, 1.3 * len(ok) + 2), 5))
    w = 0.27
    labelled = set()
    for j, (mode, color) in enumerate(zip(MODES, ("tab:blue", "tab:orange", "tab:green"), strict=False)):
        for i, (_e, m) in enumerate(ok):
            r = m.get(mode)
            if r and r["status"] == "ok":
                x = i + (j - 1) * w
                ax.bar(x, r["qps"], w * 0.95, color=color, label=None if mode in labelled else mode)
                labelled.add(mode)
                ax.text(x, r["qps"] * 1.08, f"{r['qps']:,.0f}", ha="center", va="bottom", fontsize=7, rotation=90)
    ax.set_yscale("log")
    ax.set_xticks(range(len(ok)))
    ax.set_xticklabels([NAMES.get(e, e).replace(" (", "\n(") for e, _m in ok], fontsize=8)
    ax.set_ylabel("queries per second (log scale), higher is better")
    ax.set_title(f"Q1-Q7 retrieval mix from Python, S={head['scale']:g} ({head['nodes']:,} nodes, {head['edges']:,} edges)")
    vals = [r["qps"] for _e, m in ok for r in m.values() if r.get("status") == "ok"]
    ax.set_ylim(10 ** math.floor(math.log10(min(vals))) / 2, max(vals) * 8)
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:,.0f}" if v >= 1 else f"{v:g}"))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.legend(fontsize=8, loc="upper right")
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
