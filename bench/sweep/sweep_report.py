"""report.md, sweep_throughput.png and sweep_latency.png from results.jsonl."""

import datetime
import json
import os
import sys

NAMES = {"hopdb": "HopDB", "postgres": "PostgreSQL", "sqlite": "SQLite", "falkordb": "FalkorDB", "neo4j": "Neo4j", "networkx": "NetworkX", "kuzu": "Kuzu", "cozo": "Cozo", "hopdb-bolt": "HopDB over Bolt"}
MIX_TITLES = {"retrieval": "Retrieval mix Q1-Q7", "lightrag": "LightRAG call mix"}


def log(msg):
    print(f"[{datetime.datetime.now():%H:%M:%S}] {msg}", file=sys.stderr, flush=True)


def name(e):
    return NAMES.get(e, e)


def ratio(hopdb, peer):
    """HopDB's q/s over the peer's (None when either is missing or zero)."""
    if not hopdb or not peer:
        return None
    return hopdb / peer


def fmt_ratio(x):
    if x is None:
        return "-"
    return f"{x:,.0f}x" if x >= 10 else f"{x:.2f}x" if x < 1 else f"{x:.1f}x"


def fmt_qps(x):
    return "-" if x is None else f"{x:,.0f}" if x >= 10 else f"{x:.1f}"


def fmt_us(v):
    if v is None:
        return "-"
    return f"{v / 1000:,.1f} ms" if v >= 10000 else f"{v:,.0f} us" if v >= 100 else f"{v:.1f} us"


def sweep_table(lines, mix):
    """{engine: {clients: ok line}} of the uncapped runs of one mix, engines in file order."""
    out = {}
    for r in lines:
        if r.get("mix") == mix and not r.get("capped") and r["status"] == "ok":
            out.setdefault(r["engine"], {})[r["clients"]] = r
    return out


def short_client(r):
    return "native (Rust)" if (r.get("client") or "").startswith("hopdb-loadgen") else "Python"


def mid_clients(clients):
    """The concurrency the latency chart and per-kind table show: 10 when swept, else the middle."""
    return 10 if 10 in clients else clients[len(clients) // 2]


def write(jsonl, out):
    lines = [json.loads(x) for x in open(jsonl) if x.strip()]
    if not lines:
        return
    head = lines[0]
    host = head.get("host", {})
    uncapped = [r for r in lines if not r.get("capped")]
    clients = sorted({r["clients"] for r in uncapped if r["status"] == "ok"})
    md = [f"# Workload 1 concurrency sweep: retrieval and LightRAG mixes, S={head['scale']:g}", ""]
    md.append(
        f"{head['nodes']:,} nodes, {head['edges']:,} edges (`hopdb generate --scale {head['scale']:g}`). Profile `{head['profile']}`: each point is a closed loop of N "
        f"clients (no think time), started over a {head['ramp_s']:g} s ramp, measured over a {head['window_s']:g} s steady window (calls that end inside it). "
        f"Machine: {host.get('cpu', '?')}, {host.get('cores', '?')} cores (shared; load averages in results.jsonl), {host.get('mem_gib', '?')} GiB, kernel {host.get('kernel', '?')}. "
        f"Run {head['run_id']}: `{head.get('run_command', 'python3 bench/sweep/run.py')}` (bench/sweep/README.md)."
    )
    md += ["", "Clients: **native** = `hopdb-loadgen` (Rust, one OS thread per client; HopDB embedded in it, the peers over their native protocol); "
           "**Python** = Python threads in one process (pyclient.py, bench/retrieval's adapters; the GIL serialises the Python work, so these figures cap at one core of Python).", ""]  # fmt: skip
    # The load average counts the clients' own threads (50 at the top of the sweep), so it says
    # little about other processes; what they used just before each engine started does.
    others = [r["others_before_cores"] for r in lines if r.get("others_before_cores") is not None]
    if others and max(others) > 0.3:
        md += [f"**Warning: other processes used up to {max(others):.2f} cores just before an engine started** "
               "(the harness waits for idle CPUs, at most --quiet-wait s): the figures are noisy.", ""]  # fmt: skip
    pngs = []
    for mix in ("retrieval", "lightrag"):
        t = sweep_table(lines, mix)
        if not t:
            continue
        md += [f"## {MIX_TITLES[mix]}", ""]
        base = t.get("hopdb", {})
        md.append("| engine | client | " + " | ".join(f"q/s {n} cl." for n in clients) + " | " + " | ".join(f"HopDB/peer {n} cl." for n in clients) + " |")
        md.append("|---|---|" + "---:|" * (2 * len(clients)))
        for e, by_n in t.items():
            any_r = next(iter(by_n.values()))
            q = [fmt_qps(by_n[n]["qps"]) if n in by_n else "-" for n in clients]
            rt = ["" if e == "hopdb" else fmt_ratio(ratio(base.get(n, {}).get("qps"), by_n.get(n, {}).get("qps"))) for n in clients]
            md.append(f"| {name(e)} | {short_client(any_r)} | " + " | ".join(q) + " | " + " | ".join(rt) + " |")
        md += ["", "Latency (all kinds), errors, and the client's own CPU use over the window (cores; for Python-client engines the engine runs in the client process too):", ""]
        md.append("| engine | clients | p50 | p95 | p99 | max | error % | client CPU | load avg before/after |")
        md.append("|---|---:|---:|---:|---:|---:|---:|---:|---|")
        for e, by_n in t.items():
            for n in clients:
                r = by_n.get(n)
                if not r:
                    continue
                o = r["overall"]
                cpu = "-" if r.get("client_cpu_share") is None else f"{r['client_cpu_share']:.2f}"
                la = f"{r['loadavg_before'][0]:.1f} / {r['loadavg_after'][0]:.1f}"
                md.append(f"| {name(e)} | {n} | {fmt_us(o['p50_us'])} | {fmt_us(o['p95_us'])} | {fmt_us(o['p99_us'])} | {fmt_us(o['max_us'])} | {r['error_pct']:.2f} | {cpu} | {la} |")
        m = mid_clients(clients)
        kinds = list(dict.fromkeys(k for by_n in t.values() for k in by_n.get(m, {}).get("per_kind", {})))
        if kinds:
            md += ["", f"Per kind at {m} clients, p50 / p99:", ""]
            md.append("| engine | " + " | ".join(kinds) + " |")
            md.append("|---|" + "---:|" * len(kinds))
            for e, by_n in t.items():
                pk = by_n.get(m, {}).get("per_kind", {})
                md.append(f"| {name(e)} | " + " | ".join(f"{fmt_us(pk[k]['p50_us'])} / {fmt_us(pk[k]['p99_us'])}" if pk.get(k, {}).get("n") else "-" for k in kinds) + " |")
        md.append("")
    capped = [r for r in lines if r.get("capped")]
    if capped:
        c0 = capped[0]
        md += [f"## Memory-capped run, {c0['clients']} clients, S={c0['scale']:g} ({c0['nodes']:,} nodes, {c0['edges']:,} edges)", ""]
        kinds = sorted({r.get("memory_cap", {}).get("kind", "-") for r in capped})
        md += ["Cap: " + "; ".join(kinds) + ".", ""]
        md.append("| engine | mix | status | q/s | p50 | p99 | error % | group peak | cap hits (failcnt) | OOM kills | load generator peak RSS | in the group |")
        md.append("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
        for r in capped:
            mc = r.get("memory_cap", {})
            peak = mc.get("max_usage_bytes")
            ok = r["status"] == "ok"
            figs = [fmt_qps(r["qps"]), fmt_us(r["overall"]["p50_us"]), fmt_us(r["overall"]["p99_us"]), f"{r['error_pct']:.2f}"] if ok else ["-"] * 4
            where = mc.get("in_group", "-") + (f"; shared_buffers {mc['shared_buffers']}" if mc.get("shared_buffers") else "")
            where += f"; loadgen --memory-mb {mc['loadgen_memory_mb']}" if mc.get("loadgen_memory_mb") else ""
            cells = [name(r["engine"]), r.get("mix") or "-", r["status"], *figs, "-" if peak is None else f"{peak / 2**20:,.0f} MiB",
                     mc.get("failcnt", "-"), mc.get("oom_kill", "-"), f"{r['peak_rss_kb'] / 1024:,.0f} MiB" if ok else "-", where]  # fmt: skip
            md.append("| " + " | ".join(str(c) for c in cells) + " |")
        md += ["", "A cgroup v1 memory limit is a hard cap on everything charged to the group, page cache included (RocksDB's and PostgreSQL's file pages): "
               "at the cap the kernel reclaims page cache, then OOM-kills. `failcnt` counts the times usage hit the cap (reclaim).", ""]  # fmt: skip
    other = [r for r in lines if r["status"] != "ok"]
    if other:
        md += ["## Skipped and failed", ""]
        for r in other:
            what = " ".join(str(x) for x in (r.get("mix"), f"{r['clients']} clients" if r.get("clients") else None, "capped" if r.get("capped") else None) if x)
            md.append(f"- {name(r['engine'])}{' ' + what if what else ''}: **{r['status']}**: {r.get('reason', '')[:600]}")
        md.append("")
    wrong = {}
    for r in lines:
        for p in (r.get("check") or {}).get("problems", []):
            wrong.setdefault(r["engine"], {})[(p["kind"], str(p["seed"]))] = p["why"]
    md += ["## Answer check", ""]
    if wrong:
        for e, ps in wrong.items():
            md.append(f"- **WRONG ANSWERS from {name(e)}** ({len(ps)}): " + "; ".join(f"{k} {s}: {w[:200]}" for (k, s), w in list(ps.items())[:5]))
    else:
        checked = sorted({f"{name(r['engine'])} {r['mix']}{' capped' if r.get('capped') else ''} ({r['check']['checked']} by {r['check']['by']})" for r in lines if r["status"] == "ok" and r.get("check")})
        md.append("Every engine answered its sample before timing (Q1-Q7 against bench/retrieval's reference answers from the CSV files; the LightRAG reads against "
                  "the CSV files too): all right. " + ", ".join(checked) + ".")  # fmt: skip
    for f, fn in (("sweep_throughput.png", chart_throughput), ("sweep_latency.png", chart_latency)):
        if fn(lines, clients, os.path.join(out, f)):
            pngs.append(f)
    md += [""] + [f"![{p}]({p})" for p in pngs]
    open(os.path.join(out, "report.md"), "w").write("\n".join(md) + "\n")


def _mixes(lines):
    return [m for m in ("retrieval", "lightrag") if sweep_table(lines, m)]


def chart_throughput(lines, clients, path):
    """Grouped bars, one group per engine, one bar per concurrency, log scale; a panel per mix."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    mixes = _mixes(lines)
    if not mixes:
        return False
    width = max(6.5, 1.1 * max(len(sweep_table(lines, m)) for m in mixes))
    fig, axes = plt.subplots(1, len(mixes), figsize=(width * len(mixes), 4.2), squeeze=False)
    w = 0.8 / len(clients)
    for ax, mix in zip(axes[0], mixes, strict=False):
        t = sweep_table(lines, mix)
        engines = list(t)
        for j, n in enumerate(clients):
            ys = [t[e].get(n, {}).get("qps") or 0 for e in engines]
            ax.bar([i + (j - (len(clients) - 1) / 2) * w for i in range(len(engines))], ys, w, label=f"{n} clients")
        ax.set_xticks(range(len(engines)))
        ax.set_xticklabels([f"{name(e)}\n({short_client(next(iter(t[e].values())))})" for e in engines], fontsize=8)
        ax.set_yscale("log")
        ax.set_ylabel("queries / s (log)")
        ax.set_title(MIX_TITLES[mix])
        ax.legend(fontsize=8)
        ax.grid(axis="y", alpha=0.3, which="both")
    fig.suptitle(f"Throughput by engine and concurrency, S={lines[0]['scale']:g}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def chart_latency(lines, clients, path):
    """p50 / p95 / p99 per engine at 10 clients (log scale), a panel per mix."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    mixes = _mixes(lines)
    m = mid_clients(clients) if clients else None
    if not mixes or m is None:
        return False
    width = max(6.5, 1.1 * max(len(sweep_table(lines, mx)) for mx in mixes))
    fig, axes = plt.subplots(1, len(mixes), figsize=(width * len(mixes), 4.2), squeeze=False)
    for ax, mix in zip(axes[0], mixes, strict=False):
        t = {e: by_n[m] for e, by_n in sweep_table(lines, mix).items() if m in by_n}
        engines = list(t)
        for j, p in enumerate(("p50_us", "p95_us", "p99_us")):
            ys = [t[e]["overall"][p] / 1000 for e in engines]
            ax.bar([i + (j - 1) * 0.27 for i in range(len(engines))], ys, 0.27, label=p[:3])
        ax.set_xticks(range(len(engines)))
        ax.set_xticklabels([f"{name(e)}\n({short_client(t[e])})" for e in engines], fontsize=8)
        ax.set_yscale("log")
        ax.set_ylabel("latency, ms (log)")
        ax.set_title(f"{MIX_TITLES[mix]}, {m} clients")
        ax.legend(fontsize=8)
        ax.grid(axis="y", alpha=0.3, which="both")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True
