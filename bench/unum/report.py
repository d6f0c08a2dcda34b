"""report.md and the charts (unum_ops_DATASET.png, unum_import.png) from results.jsonl."""

import datetime
import json
import os
import sys

from bench.unum import workload
from bench.unum.peers import NAMES

ORDER = ["hopdb", "sqlite", "postgres", "networkx", "kuzu", "cozo", "neo4j"]
MIB = 1 << 20


def log(msg):
    print(f"[{datetime.datetime.now():%H:%M:%S}] {msg}", file=sys.stderr, flush=True)


def fmt_num(x):
    if x is None:
        return "-"
    return f"{x:,.0f}" if x >= 100 else f"{x:.1f}"


def load(jsonl):
    """{dataset: {engine: {measurement: line}}}, datasets and engines in a stable order."""
    lines = [json.loads(x) for x in open(jsonl) if x.strip()] if os.path.exists(jsonl) else []
    by = {}
    for r in lines:
        by.setdefault(r["dataset"], {}).setdefault(r["engine"], {})[r["measurement"]] = r
    return lines, by


def engines_of(d):
    return sorted(d, key=lambda e: ORDER.index(e) if e in ORDER else len(ORDER))


def ops_table(d, engines):
    hop = d.get("hopdb", {})
    md = ["| operation | " + " | ".join(f"{NAMES.get(e, e)} ops/s" + (" (HopDB/x)" if e != "hopdb" else "") for e in engines) + " |",
          "|---|" + "---:|" * len(engines)]
    for op in workload.OPS:
        cells = []
        h = hop.get(op, {}).get("ops_per_s")
        for e in engines:
            v = d[e].get(op, {}).get("ops_per_s")
            cell = fmt_num(v)
            if e != "hopdb" and v:
                cell += f" ({workload.fmt_ratio(workload.ratio(h, v))})"
            cells.append(cell)
        md.append(f"| {workload.TITLES[op]} | " + " | ".join(cells) + " |")
    return md


def latency_table(d, engines):
    md = ["| operation | " + " | ".join(f"{NAMES.get(e, e)} p50 / p99 µs" for e in engines) + " |", "|---|" + "---:|" * len(engines)]
    for op in workload.OPS:
        cells = []
        most = max((d[e][op]["calls"] for e in engines if d[e].get(op)), default=0)
        for e in engines:
            r = d[e].get(op)
            cut = f" ({r['calls']:,} calls: read budget)" if r and r["calls"] < most else ""
            cells.append(f"{fmt_num(r['p50_us'])} / {fmt_num(r['p99_us'])}{cut}" if r else "-")
        md.append(f"| {workload.TITLES[op]} | " + " | ".join(cells) + " |")
    return md


def import_table(d, engines):
    h = d.get("hopdb", {}).get("import", {}).get("edges_per_s")
    md = ["| engine | import s | edges/s | HopDB/x | disk MiB | peak RSS import MiB | peak RSS run MiB | client CPU share (reads) | other processes, cores |",
          "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for e in engines:
        r = d[e].get("import")
        if not r:
            continue
        disk = f"{r['disk_bytes'] / MIB:.1f}" if r.get("disk_bytes") is not None else "(memory)"
        share = f"{r['reads_client_cpu_s'] / r['reads_wall_s']:.0%}" if r.get("reads_wall_s") else "-"
        others = f"{r['others_cores']:.2f}" if r.get("others_cores") is not None else "-"
        md.append(f"| {NAMES.get(e, e)} | {r['import_s']:.2f} | {fmt_num(r['edges_per_s'])} | {workload.fmt_ratio(workload.ratio(h, r['edges_per_s'])) if e != 'hopdb' else ''} | "
                  f"{disk} | {fmt_num(r['peak_rss_import_mib'])} | {fmt_num(r['peak_rss_run_mib'])} | {share} | {others} |")
    return md


def write(jsonl, out):
    lines, by = load(jsonl)
    if not lines:
        log(f"no results in {jsonl}")
        return
    head = lines[0]
    host = head.get("host", {})
    cfg = head.get("ops_config", {})
    md = ["# UnumDB graph suite on real graphs: HopDB and peers", ""]
    md.append(f"Run {head['run_id']}, profile `{head['profile']}`: `{head['command']}`. Machine: {host.get('cpu', '?')}, {host.get('cores', '?')} cores, "
              f"{host.get('mem_gib', '?')} GiB, Linux {host.get('kernel', '?')}, Python {host.get('python', '?')}. Raw lines: `results.jsonl`; method: bench/unum/README.md.")
    md.append("")
    budget = f" or until the calls took {cfg['read_budget_s']:g} s, whichever comes first (the latency table gives the calls of an engine that stopped early)" if cfg.get("read_budget_s") else ""
    md.append(f"Per read operation {cfg.get('reads', '?'):,} calls timed one by one{budget} (find edge: {workload.ABSENT_SHARE:.0%} absent pairs); "
              f"{cfg.get('writes', '?'):,} single upserts and removes; {cfg.get('batches', '?')} batches of {cfg.get('batch', '?')} edges per batch operation "
              f"(one transaction / call each). Each read operation is first called untimed on its first {min(cfg.get('warmup', 0), cfg.get('reads', 0)):,} items (caches warm); ops/s = items / the sum of the calls' latencies (for batches: edges/s); HopDB/x = HopDB's ops/s / the "
              f"engine's (above 1: HopDB faster). Every engine answered {cfg.get('check', '?')} check items per read operation exactly like NetworkX "
              "(sets of edges and neighbours, counts, weight sums within 1e-9) before being timed, had the dataset's edge count after the import, "
              "the expected count after the upserts and after the removes, and found a sample of the upserted edges and none of the removed ones.")
    md.append("")
    versions, durab = {}, {}
    for r in lines:
        if r.get("version"):
            versions[r["engine"]] = r["version"]
            durab[r["engine"]] = (r.get("durability", ""), r.get("notes", ""))
    md.append("| engine | version | durability | method |")
    md.append("|---|---|---|---|")
    for e in engines_of(versions):
        md.append(f"| {NAMES.get(e, e)} | {versions[e]} | {durab[e][0]} | {durab[e][1]} |")
    md.append("")
    problems = []
    for ds, d in by.items():
        engines = engines_of(d)
        ok = [e for e in engines if "import" in d[e]]
        info = next(iter(next(iter(d.values())).values()))
        md.append(f"## {ds}")
        md.append("")
        if "nodes" in info:
            md.append(f"`{info['file']}`: {info['nodes']:,} vertices, {info['edges']:,} directed edges ({info['lines']:,} lines, {info['duplicates_merged']:,} "
                      f"repeated pairs merged, {info['self_loops']:,} self-loops); weight: {info['weight']}.")
            md.append("")
        for e in engines:
            r = d[e].get("all")
            if r:
                problems.append(f"- {ds}, {NAMES.get(e, e)}: **{r['status']}**{' (wrong answer)' if r.get('wrong_answer') else ''}: {r['reason']}")
        if not ok:
            md.append("No engine ran on this dataset.")
            md.append("")
            continue
        md += ["### Throughput", ""] + ops_table(d, ok) + [""]
        md += [f"![ops/s on {ds}](unum_ops_{ds}.png)", ""]
        md += ["### Latency", ""] + latency_table(d, ok) + [""]
        md += ["### Import, size, memory", ""] + import_table(d, ok) + [""]
        r0 = d[ok[0]]["import"]
        md.append(f"Load average before/after the first engine: {r0['loadavg_before'][0]:.2f} / {r0['loadavg_after'][0]:.2f}; "
                  f"other processes used {max(d[e]['import']['others_cores_before'] for e in ok):.2f} cores at most just before an engine started. "
                  "Peak RSS: the engine's process (PostgreSQL: its server's processes, the client not counted), sampled every 50 ms; "
                  "client CPU share = CPU time of the benchmark process / wall time over the reads (for PostgreSQL the client only); "
                  "other processes = the average cores the rest of the machine kept busy from the import to the end of the writes (the machine "
                  f"has {r0['host'].get('cores', '?')}: well above 0 means the figures are depressed by contention).")
        md.append("")
    if problems:
        md += ["## Skipped and failed", ""] + problems + [""]
    md += ["![import rate](unum_import.png)", ""]
    open(os.path.join(out, "report.md"), "w").write("\n".join(md))
    charts(by, out)


def charts(by, out):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    for ds, d in by.items():
        engines = [e for e in engines_of(d) if "import" in d[e]]
        if not engines:
            continue
        fig, ax = plt.subplots(figsize=(12, 5))
        w = 0.8 / len(engines)
        for i, e in enumerate(engines):
            vals = [d[e].get(op, {}).get("ops_per_s") or 0 for op in workload.OPS]
            ax.bar([x + i * w for x in range(len(workload.OPS))], vals, w, label=NAMES.get(e, e))
        ax.set_yscale("log")
        ax.set_xticks([x + 0.4 - w / 2 for x in range(len(workload.OPS))])
        ax.set_xticklabels([workload.TITLES[op] for op in workload.OPS], rotation=30, ha="right", fontsize=8)
        ax.set_ylabel("ops/s (batches: edges/s), log scale")
        ax.set_title(f"UnumDB suite on {ds}")
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
        ax.grid(axis="y", which="both", alpha=0.3)
        fig.tight_layout()
        fig.savefig(os.path.join(out, f"unum_ops_{ds}.png"), dpi=110)
        plt.close(fig)
    dss = [ds for ds, d in by.items() if any("import" in m for m in d.values())]
    engines = engines_of({e: 1 for ds in dss for e in by[ds] if "import" in by[ds][e]})
    if not dss:
        return
    fig, ax = plt.subplots(figsize=(10, 4.5))
    w = 0.8 / max(len(engines), 1)
    for i, e in enumerate(engines):
        vals = [by[ds].get(e, {}).get("import", {}).get("edges_per_s") or 0 for ds in dss]
        ax.bar([x + i * w for x in range(len(dss))], vals, w, label=NAMES.get(e, e))
    ax.set_yscale("log")
    ax.set_xticks([x + 0.4 - w / 2 for x in range(len(dss))])
    ax.set_xticklabels(dss, fontsize=8)
    ax.set_ylabel("import edges/s (incl. indexes), log scale")
    ax.set_title("Import rate")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.grid(axis="y", which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "unum_import.png"), dpi=110)
    plt.close(fig)
