"""Bulk-import benchmark: the same neo4j-admin CSV knowledge graph into HopDB and peer databases.

usage: python3 -m bench.bulk_import.run --scale 1 [--scale 10] [--engines hopdb,postgres,sqlite,kuzu,cozo,neo4j]
                                       [--repeat 3] [--out bench/results/import] [--append] [--report-only]

For each scale, generates the graph once with `hopdb generate` (kept under --data-root, default
~/.cache/hopdb/bench-data), counts its rows, then for each repeat runs every available engine's
import (bench/engines/ENGINE.py's import_kg, in its own process: adapter.py) interleaving engines
within a repeat. While an adapter runs, this process samples the memory of the engine's processes
every 50 ms (psutil; the adapter says which processes those are, see adapter.py). Each run appends
one JSON line to OUT/import.jsonl; at the end OUT/import.md (table) and OUT/import.png (chart) are
rebuilt from the JSON lines. See README.md beside this file.
"""

import argparse
import datetime
import json
import os
import shutil
import signal
import statistics
import subprocess
import time

from bench.benchlib import (
    EDGE_FILES,
    NODE_FILES,
    Sampler,
    ensure_data,
    ensure_requirements,
    host_info,
    log,
    module_cmd,
    module_env,
    scale_name,
    wait_quiet,
)
from bench.bulk_import.adapter import ENGINES

NAMES = {"hopdb": "HopDB", "postgres": "PostgreSQL", "sqlite": "SQLite", "kuzu": "Kuzu", "cozo": "Cozo", "neo4j": "Neo4j"}
MIB = 1 << 20
HERE = os.path.dirname(os.path.abspath(__file__))


# ---------------------------------------------------------------------------------------------
# Data


def warm(data):
    """Read the CSV files so every engine starts with them in the page cache."""
    for f in NODE_FILES + EDGE_FILES:
        with open(os.path.join(data, f), "rb") as fh:
            while fh.read(8 << 20):
                pass


# ---------------------------------------------------------------------------------------------
# Running one adapter


def adapter(engine, *args):
    """The command line of the engine's adapter process (adapter.py)."""
    return module_cmd("bench.bulk_import.adapter", engine, *args)


def probe(engine, env):
    try:
        r = subprocess.run(adapter(engine, "probe"), capture_output=True, text=True, timeout=2400, env=env)
    except subprocess.TimeoutExpired:
        return {"available": False, "reason": "probe timed out"}
    for line in reversed(r.stdout.strip().splitlines()):
        try:
            return json.loads(line)
        except ValueError:
            pass
    return {"available": False, "reason": f"probe printed no result (exit {r.returncode}): {r.stderr[-500:]}"}


def run_one(engine, data, work, timeout, options, env):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.dirname(work), exist_ok=True)
    control, out_path, err_path = work + ".control", work + ".stdout", work + ".stderr"
    for p in (control, out_path, err_path):
        if os.path.exists(p):
            os.remove(p)
    cmd = adapter(engine, "run", "--data", data, "--work", work, "--control", control)
    cmd += [f"--option={o}" for o in options]
    t0 = time.perf_counter()
    with open(out_path, "w") as out, open(err_path, "w") as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, start_new_session=True, env=env)
        sampler = Sampler(proc.pid, control)
        timed_out = False
        while proc.poll() is None:
            sampler.tick()
            if time.perf_counter() - t0 > timeout:
                timed_out = True
                os.killpg(proc.pid, signal.SIGKILL)  # the adapter's own process group only
                proc.wait()
                break
            time.sleep(0.05)
        sampler.tick()  # phases written just before the adapter exited
        sampler.finish()
    # stop anything the adapter started outside its process group (a database server)
    subprocess.run(adapter(engine, "cleanup", "--work", work), capture_output=True, timeout=600, env=env)
    res = None
    for line in reversed(open(out_path).read().strip().splitlines()):
        try:
            res = json.loads(line)
            break
        except ValueError:
            pass
    if timed_out:
        res = {"status": "timeout", "error": f"killed after {timeout} s"}
    elif res is None:
        res = {"status": "failed", "error": f"adapter exited {proc.returncode} without a result: " + open(err_path).read()[-1500:]}
    res["peak_rss_bytes"] = sampler.peak("rss")
    res["peak_pss_bytes"] = sampler.peak("pss")
    res["peak_rss_by_phase_mib"] = {k: round(v / MIB, 1) for k, v in sampler.peak_rss.items()}
    res["engine_cpu_s"], res["others_cores"] = sampler.cpu()
    res["samples"] = sampler.samples
    res["adapter_wall_s"] = time.perf_counter() - t0
    return res


# ---------------------------------------------------------------------------------------------
# Report


def fmt_rate(x):
    if x >= 1e6:
        return f"{x / 1e6:.2f}M"
    if x >= 1e3:
        return f"{x / 1e3:.0f}K"
    return f"{x:.0f}"


def summarize(lines):
    """One entry per (scale, engine): the runs of the latest invocation that ran that pair."""
    latest = {}
    for r in lines:
        key = (r["scale"], r["engine"])
        if key not in latest or r["run_id"] > latest[key]:
            latest[key] = r["run_id"]
    groups = {}
    for r in lines:
        key = (r["scale"], r["engine"])
        if r["run_id"] == latest[key]:
            groups.setdefault(key, []).append(r)
    out = {}
    for key, rs in groups.items():
        ok = [r for r in rs if r["status"] == "ok"]
        s = {"runs": rs, "ok": ok, "version": next((r.get("version") for r in rs if r.get("version")), "")}
        if ok:
            secs = [r["total_s"] for r in ok]
            s.update(
                rows=ok[0]["rows"],
                seconds=statistics.median(secs),
                smin=min(secs),
                smax=max(secs),
                index_s=statistics.median(r["index_s"] for r in ok),
                rss=statistics.median(r["peak_rss_mib"] for r in ok),
                pss=statistics.median(r["peak_pss_mib"] for r in ok),
                disk=statistics.median(r["disk_mib"] for r in ok),
                cpu=statistics.median(r["engine_cpu_s"] for r in ok) if all(r.get("engine_cpu_s") is not None for r in ok) else None,
                others=statistics.median(r["others_cores"] for r in ok) if all(r.get("others_cores") is not None for r in ok) else None,
                notes=ok[-1].get("notes", ""),
            )
            s["rate"] = s["rows"] / s["seconds"]
        out[key] = s
    return out


def write_report(jsonl, md_path, png_path):
    lines = [json.loads(x) for x in open(jsonl) if x.strip()]
    if not lines:
        return
    summ = summarize(lines)
    scales = sorted({k[0] for k in summ})
    engines = [e for e in ENGINES if any((s, e) in summ for s in scales)]
    host = lines[-1].get("host", {})
    md = ["# Bulk import: the knowledge graph's neo4j-admin CSV files into each engine", ""]
    md.append(
        f"Machine: {host.get('cpu', '?')}, {host.get('cores', '?')} cores, {host.get('mem_gib', '?')} GiB, Linux {host.get('kernel', '?')}. "
        f"Generated by `python3 -m bench.bulk_import.run` (bench/bulk_import/README.md); raw runs in `import.jsonl`."
    )
    md.append("")
    md.append(
        "seconds = median over the repeats of the engine's whole load (for PostgreSQL, SQLite and Cozo: load + index build "
        "after it; the range is min-max); rows/s = (nodes + edges) / seconds; vs HopDB = this engine's rows/s / HopDB's at the "
        "same scale; peak RSS = the engine's processes summed (sampled every 50 ms during load and index build); disk = size of "
        "the files after the load; CPU s = user + system seconds of the engine's processes over the same span (less sensitive to "
        "other jobs than wall time); others = cores that other processes on the machine kept busy meanwhile (median; the machine "
        "has 2, so anything well above 0 inflates the seconds). Every run's node and edge counts were read back from the engine "
        "and match the CSV files (else the run is listed as failed)."
    )
    md.append("")
    md.append("| engine | scale | rows | seconds (min-max) | of which index | rows/s | vs HopDB | CPU s | peak RSS MiB | disk MiB | others | runs ok | notes |")
    md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    problems = []
    for sc in scales:
        hop = summ.get((sc, "hopdb"))
        hop_rate = hop.get("rate") if hop else None
        for e in engines:
            s = summ.get((sc, e))
            if not s:
                continue
            if s["ok"]:
                ratio = f"{s['rate'] / hop_rate:.2f}x" if hop_rate else "n/a"
                sec = f"{s['seconds']:.1f} ({s['smin']:.1f}-{s['smax']:.1f})" if len(s["ok"]) > 1 else f"{s['seconds']:.1f}"
                idx = f"{s['index_s']:.1f}" if s["index_s"] else "-"
                cpu = f"{s['cpu']:.1f}" if s["cpu"] is not None else "?"
                oth = f"{s['others']:.2f}" if s["others"] is not None else "?"
                md.append(
                    f"| {NAMES[e]} | {sc:g} | {s['rows']:,} | {sec} | {idx} | {fmt_rate(s['rate'])} | {ratio} | {cpu} | {s['rss']:.0f} | {s['disk']:.0f} | "
                    f"{oth} | {len(s['ok'])}/{len(s['runs'])} | {s['notes']} |"
                )
            else:
                r = s["runs"][-1]
                what = "not available" if r["status"] == "unavailable" else r["status"]
                md.append(f"| {NAMES[e]} | {sc:g} | | | | {what} | | | | | | 0/{len([x for x in s['runs'] if x['status'] != 'unavailable'])} | {r.get('error', '')[:160]} |")
            for r in s["runs"]:
                if r["status"] != "ok":
                    problems.append(f"- {NAMES[e]}, S={sc:g}, repeat {r.get('repeat', '-')}: {r['status']}: {r.get('error', '')[:400]}")
    md.append("")
    md.append("Versions:")
    md.append("")
    for e in engines:
        v = next((summ[(sc, e)]["version"] for sc in scales if (sc, e) in summ and summ[(sc, e)]["version"]), "")
        md.append(f"- {NAMES[e]}: {v or 'unknown'}")
    pss = [(sc, e, summ[(sc, e)]) for sc in scales for e in engines if (sc, e) in summ and summ[(sc, e)]["ok"]]
    if pss:
        md.append("")
        md.append("Peak PSS (shared pages split between processes; differs from RSS for multi-process PostgreSQL): " + ", ".join(f"{NAMES[e]} S={sc:g} {s['pss']:.0f} MiB" for sc, e, s in pss) + ".")
    if problems:
        md.append("")
        md.append("Runs that did not succeed:")
        md.append("")
        md.extend(problems)
    md.append("")
    md.append(f"![rows/s by engine and scale]({os.path.basename(png_path)})")
    open(md_path, "w").write("\n".join(md) + "\n")
    chart(summ, scales, engines, png_path)


def chart(summ, scales, engines, png_path):
    import math

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, NullFormatter

    fig, ax = plt.subplots(figsize=(max(6, 1.6 * len(engines) + 2), 4.5))
    width = 0.8 / max(1, len(scales))
    rates = [summ[(sc, e)]["rate"] for sc in scales for e in engines if (sc, e) in summ and summ[(sc, e)]["ok"]]
    log_scale = bool(rates) and max(rates) / min(rates) > 20
    bottom = 10 ** math.floor(math.log10(min(rates))) if log_scale else 0
    for i, sc in enumerate(scales):
        xs, ys = [], []
        for j, e in enumerate(engines):
            s = summ.get((sc, e))
            x = j - 0.4 + width * (i + 0.5)
            if s and s["ok"]:
                xs.append(x)
                ys.append(s["rate"])
                ax.text(x, s["rate"], fmt_rate(s["rate"]), ha="center", va="bottom", fontsize=8)
            elif s:
                what = "not available" if s["runs"][-1]["status"] == "unavailable" else "failed"
                ax.text(x, bottom * 1.1 if log_scale else 0, f"S={sc:g}: {what}", ha="center", va="bottom", fontsize=8, rotation=90, color="gray")
        ax.bar(xs, ys, width=width * 0.95, label=f"S={sc:g}")
    ax.set_xticks(range(len(engines)))
    ax.set_xticklabels([NAMES[e] for e in engines])
    ax.set_ylabel("rows/s (nodes + edges), higher is better")
    if log_scale:
        ax.set_yscale("log")
        ax.set_ylim(bottom, max(rates) * 2)
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: fmt_rate(v)))
        ax.yaxis.set_minor_formatter(NullFormatter())
    else:
        ax.set_ylim(0, max(rates) * 1.15 if rates else 1)
    ax.set_title("Bulk import of the knowledge graph CSV (median of repeats)")
    ax.legend()
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(png_path, dpi=120)
    plt.close(fig)


# ---------------------------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(prog=f"python3 -m {__spec__.name}", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=float, action="append", help="graph scale (repeatable); default 1")
    ap.add_argument("--engines", default=",".join(ENGINES), help="comma-separated, from " + ",".join(ENGINES))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default=os.path.join(HERE, "..", "results", "import"))
    ap.add_argument("--data-root", default=os.environ.get("HOPDB_BENCH_DATA") or os.path.expanduser("~/.cache/hopdb/bench-data"))
    ap.add_argument("--timeout", type=float, default=7200, help="seconds per run before it is killed")
    ap.add_argument("--quiet-wait", type=float, default=120, help="before each run, wait up to this many seconds for other processes to go idle")
    ap.add_argument("--option", action="append", default=[], help="ENGINE:KEY=VALUE passed to that engine's import")
    ap.add_argument("--append", action="store_true", help="add to OUT/import.jsonl instead of starting it afresh")
    ap.add_argument("--keep", action="store_true", help="keep each run's store (under DATA_ROOT/work)")
    ap.add_argument("--report-only", action="store_true", help="only rebuild import.md and import.png from import.jsonl")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    jsonl = os.path.join(a.out, "import.jsonl")
    md, png = os.path.join(a.out, "import.md"), os.path.join(a.out, "import.png")
    ensure_requirements()
    if a.report_only:
        write_report(jsonl, md, png)
        log(f"wrote {md} and {png}")
        return
    engines = [e.strip() for e in a.engines.split(",") if e.strip()]
    bad = [e for e in engines if e not in ENGINES]
    if bad:
        raise SystemExit(f"unknown engines: {bad} (known: {ENGINES})")
    scales = a.scale or [1.0]
    env = module_env(dict(os.environ, HOPDB_BENCH_DATA=a.data_root))
    opts = {}
    for o in a.option:
        e, kv = o.split(":", 1)
        opts.setdefault(e, []).append(kv)
    if not a.append and os.path.exists(jsonl):
        os.remove(jsonl)
    run_id = datetime.datetime.now().strftime("%Y%m%dT%H%M%S")
    host = host_info()

    def emit(rec):
        with open(jsonl, "a") as f:
            f.write(json.dumps(rec) + "\n")

    probes = {}
    for e in engines:
        log(f"probing {e}")
        probes[e] = probe(e, env)
        p = probes[e]
        log(f"  {e}: " + (f"available, {p.get('version', '')}" if p.get("available") else f"NOT available: {p.get('reason')}"))
    for sc in scales:
        data, counts = ensure_data(sc, a.data_root)
        exp_n, exp_e = counts["nodes"], counts["edges"]
        log(f"S={scale_name(sc)}: {exp_n:,} nodes, {exp_e:,} edges, {counts['csv_bytes'] / MIB:.0f} MiB of CSV in {data}")
        base = {"run_id": run_id, "scale": sc, "nodes_expected": exp_n, "edges_expected": exp_e, "rows": exp_n + exp_e, "host": host}
        for e in engines:
            if not probes[e].get("available"):
                emit(dict(base, engine=e, version=probes[e].get("version", ""), status="unavailable", error=probes[e].get("reason", "")))
        for rep in range(1, a.repeat + 1):
            for e in engines:
                if not probes[e].get("available"):
                    continue
                work = os.path.join(a.data_root, "work", f"{e}-s{scale_name(sc)}")
                warm(data)
                before = wait_quiet(a.quiet_wait) if a.quiet_wait > 0 else None
                log(f"S={scale_name(sc)} repeat {rep}/{a.repeat}: {e}" + (f" (other processes: {before:.2f} cores)" if before is not None else ""))
                res = run_one(e, data, work, a.timeout, opts.get(e, []), env)
                rec = dict(base, engine=e, version=probes[e].get("version", ""), repeat=rep)
                rec["status"] = res.get("status", "failed")
                rec["error"] = res.get("error", "")
                rec["nodes"], rec["edges"] = res.get("nodes"), res.get("edges")
                if rec["status"] == "ok" and (rec["nodes"], rec["edges"]) != (exp_n, exp_e):
                    rec["status"] = "wrong_count"
                    rec["error"] = f"loaded {rec['nodes']} nodes and {rec['edges']} edges, expected {exp_n} and {exp_e}"
                load_s, index_s = res.get("load_s"), res.get("index_s") or 0.0
                if load_s is not None:
                    rec["load_s"], rec["index_s"] = round(load_s, 3), round(index_s, 3)
                    rec["total_s"] = round(load_s + index_s, 3)
                    rec["rows_per_s"] = round(rec["rows"] / (load_s + index_s))
                rec["peak_rss_mib"] = round(res["peak_rss_bytes"] / MIB, 1)
                rec["peak_pss_mib"] = round(res["peak_pss_bytes"] / MIB, 1)
                rec["peak_rss_by_phase_mib"] = res["peak_rss_by_phase_mib"]
                if "disk_bytes" in res:
                    rec["disk_mib"] = round(res["disk_bytes"] / MIB, 1)
                rec["notes"] = res.get("notes", "")
                rec["extra"] = res.get("extra", {})
                rec["samples"] = res["samples"]
                rec["engine_cpu_s"] = round(res["engine_cpu_s"], 2) if res["engine_cpu_s"] is not None else None
                rec["others_cores"] = round(res["others_cores"], 2) if res["others_cores"] is not None else None
                rec["others_cores_before"] = round(before, 2) if before is not None else None
                emit(rec)
                if rec["status"] == "ok":
                    log(
                        f"  ok: {rec['total_s']:.1f} s ({rec['rows_per_s']:,} rows/s), CPU {rec['engine_cpu_s']} s, peak RSS {rec['peak_rss_mib']:.0f} MiB, "
                        f"disk {rec['disk_mib']:.0f} MiB; other processes used {rec['others_cores']} cores meanwhile"
                    )
                else:
                    log(f"  {rec['status']}: {rec['error'][:300]}")
                if not a.keep:
                    shutil.rmtree(work, ignore_errors=True)
        write_report(jsonl, md, png)
    write_report(jsonl, md, png)
    log(f"wrote {jsonl}, {md} and {png}")


if __name__ == "__main__":
    main()
