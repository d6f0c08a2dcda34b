#!/usr/bin/env python3
"""Bulk-import benchmark: the same neo4j-admin CSV knowledge graph into HopDB and peer databases.

usage: python3 bench/import/run.py --scale 1 [--scale 10] [--engines hopdb,postgres,sqlite,kuzu,cozo,neo4j]
                                   [--repeat 3] [--out bench/results/import] [--append] [--report-only]

For each scale, generates the graph once with `hopdb generate` (kept under --data-root, default
~/.cache/hopdb/bench-data), counts its rows, then for each repeat runs every available engine's
adapter (adapters/ENGINE.py) in its own process, interleaving engines within a repeat. While an
adapter runs, this process samples the memory of the engine's processes every 50 ms (psutil; the
adapter says which processes those are, see common.py). Each run appends one JSON line to
OUT/import.jsonl; at the end OUT/import.md (table) and OUT/import.png (chart) are rebuilt from
the JSON lines. See README.md beside this file.
"""

import argparse
import datetime
import importlib.metadata
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from common import EDGE_FILES, NODE_FILES, check_headers  # noqa: E402

ENGINES = ["hopdb", "postgres", "sqlite", "kuzu", "cozo", "neo4j"]
NAMES = {"hopdb": "HopDB", "postgres": "PostgreSQL", "sqlite": "SQLite", "kuzu": "Kuzu", "cozo": "Cozo", "neo4j": "Neo4j"}
MIB = 1 << 20


def log(msg):
    print(f"[{datetime.datetime.now():%H:%M:%S}] {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# Python dependencies


def ensure_requirements(path=os.path.join(HERE, "requirements.txt")):
    """pip-install requirements.txt (this one, or bench/deep's) when a pinned package is missing or at another version."""
    wrong = []
    for line in open(path):
        line = line.split("#")[0].strip()
        if not line:
            continue
        m = re.match(r"([A-Za-z0-9_.-]+)(\[([a-z,]+)\])?==(\S+)", line)
        name, extras, ver = m.group(1), m.group(3), m.group(4)
        names = [name] + ([f"{name}-{e}" for e in extras.split(",")] if extras else [])
        for n in names:
            try:
                have = importlib.metadata.version(n)
            except importlib.metadata.PackageNotFoundError:
                have = None
            if have != ver:
                wrong.append(f"{n} {have or 'missing'} (want {ver})")
    if wrong:
        log("installing Python requirements: " + ", ".join(wrong))
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "-r", path], check=True)


# ---------------------------------------------------------------------------------------------
# Data


def hopdb_bin():
    return os.environ.get("HOPDB_BIN") or os.path.expanduser("~/.cache/hopdb/target/release/hopdb")


def scale_name(s):
    return f"{s:g}"


def ensure_data(scale, data_root):
    """Generate the graph at this scale once; return (dir, {"nodes": N, "edges": M, per-file rows})."""
    import csv

    d = os.path.join(data_root, f"kg-s{scale_name(scale)}")
    counts_path = os.path.join(d, "counts.json")
    if os.path.exists(counts_path):
        return d, json.load(open(counts_path))
    tmp = d + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    b = hopdb_bin()
    if not os.access(b, os.X_OK):
        raise SystemExit(f"no hopdb binary at {b} to generate the data (set HOPDB_BIN)")
    log(f"generating S={scale_name(scale)} into {d} ({b} generate)")
    subprocess.run([b, "generate", "--out", tmp, "--scale", scale_name(scale)], check=True)
    check_headers(tmp)
    csv.field_size_limit(1 << 30)
    per_file = {}
    for f in NODE_FILES + EDGE_FILES:
        with open(os.path.join(tmp, f), newline="", encoding="utf-8") as fh:
            per_file[f] = sum(1 for _ in csv.reader(fh)) - 1  # minus the header; quoted fields handled
    counts = {
        "nodes": sum(per_file[f] for f in NODE_FILES),
        "edges": sum(per_file[f] for f in EDGE_FILES),
        "files": per_file,
        "csv_bytes": sum(os.path.getsize(os.path.join(tmp, f)) for f in per_file),
        "generator": subprocess.run([b, "--version"], capture_output=True, text=True).stdout.strip(),
    }
    json.dump(counts, open(os.path.join(tmp, "counts.json"), "w"), indent=1)
    shutil.rmtree(d, ignore_errors=True)
    os.replace(tmp, d)
    return d, counts


def warm(data):
    """Read the CSV files so every engine starts with them in the page cache."""
    for f in NODE_FILES + EDGE_FILES:
        with open(os.path.join(data, f), "rb") as fh:
            while fh.read(8 << 20):
                pass


# ---------------------------------------------------------------------------------------------
# Running one adapter


def adapter(engine):
    return os.path.join(HERE, "adapters", f"{engine}.py")


def probe(engine, env):
    try:
        r = subprocess.run([sys.executable, adapter(engine), "probe"], capture_output=True, text=True, timeout=2400, env=env)
    except subprocess.TimeoutExpired:
        return {"available": False, "reason": "probe timed out"}
    for line in reversed(r.stdout.strip().splitlines()):
        try:
            return json.loads(line)
        except ValueError:
            pass
    return {"available": False, "reason": f"probe printed no result (exit {r.returncode}): {r.stderr[-500:]}"}


def machine_busy_s():
    """CPU seconds the whole machine has spent busy since boot (all cores; /proc/stat)."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    idle = v[3] + (v[4] if len(v) > 4 else 0)  # idle + iowait
    return (sum(v[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def wait_quiet(max_wait, threshold=0.3, window=3):
    """Wait (at most max_wait s) until other processes use under `threshold` cores for `window` s.

    Returns the cores other processes used in the last second measured."""
    t_end = time.time() + max_wait
    calm = 0
    while True:
        b0 = machine_busy_s()
        time.sleep(1)
        used = machine_busy_s() - b0
        calm = calm + 1 if used < threshold else 0
        if calm >= window or time.time() >= t_end:
            return used


class Sampler:
    """Peak memory and CPU time of the engine's processes, sampled every 50 ms, per phase.

    RSS is summed over the processes every tick. PSS (which splits shared pages, e.g. PostgreSQL's
    shared buffers) is read only when several processes are measured, and once a second: reading
    it walks the page tables under the process's memory lock (about 15 ms per GiB), which would
    slow the engine if done every tick. CPU time (user + system) of every measured process is
    kept from its last sample, so processes that exit still count."""

    PSS_EVERY = 1.0

    def __init__(self, adapter_pid, control):
        import psutil

        self.psutil = psutil
        self.adapter_pid = adapter_pid
        self.control = control
        self.offset = 0
        self.noself = False
        self.roots = []
        self.phase = "setup"
        self.peak_rss = {}
        self.peak_pss = {}
        self.samples = 0
        self.cpu_last = {}
        self.aux_cpu = 0.0  # CPU of the adapter when it is not the engine (a client), and of this process
        self.marks = {}  # phase -> (wall, engine cpu s, machine busy s, aux cpu s) at its first tick
        self.me = psutil.Process()
        self.adapter_cpu = 0.0
        self.last_pss = 0.0
        self.last_tick, self.last_busy = time.perf_counter(), machine_busy_s()

    def _read_control(self):
        if not os.path.exists(self.control):
            return []
        with open(self.control, "rb") as f:
            f.seek(self.offset)
            data = f.read()
        cut = data.rfind(b"\n") + 1  # only whole lines
        self.offset += cut
        phases = []
        for line in data[:cut].decode().splitlines():
            parts = line.split()
            if parts[0] == "phase":
                phases.append(parts[1])
            elif parts[0] == "pid":
                self.roots.append(int(parts[1]))
            elif parts[0] == "noself":
                self.noself = True
        return phases

    def tick(self):
        # Marks of phases that started since the last tick use the previous tick's CPU figures
        # (the phase began after it; a process announced in this tick counts from its start).
        prev = (sum(self.cpu_last.values()), self.last_busy, self.aux_cpu)
        new_phases = self._read_control()
        ps = self.psutil
        roots = list(self.roots) + ([] if self.noself else [self.adapter_pid])
        procs = {}
        for r in roots:
            try:
                p = ps.Process(r)
                procs[p.pid] = p
                for c in p.children(recursive=True):
                    procs[c.pid] = c
            except ps.Error:
                pass
        rss = 0
        for p in procs.values():
            try:
                rss += p.memory_info().rss
                c = p.cpu_times()
                self.cpu_last[p.pid] = c.user + c.system
            except ps.Error:
                pass
        if self.noself:
            try:
                self.adapter_cpu = sum(ps.Process(self.adapter_pid).cpu_times()[:2])
            except ps.Error:
                pass  # exited: keep its last value
        self.aux_cpu = sum(self.me.cpu_times()[:2]) + self.adapter_cpu
        pss = rss
        now = time.perf_counter()
        if len(procs) > 1 and now - self.last_pss >= self.PSS_EVERY:
            self.last_pss = now
            pss = 0
            for p in procs.values():
                try:
                    pss += p.memory_full_info().pss
                except ps.Error:
                    pass
            for ph in [self.phase] + new_phases:
                self.peak_pss[ph] = max(self.peak_pss.get(ph, 0), pss)
        elif len(procs) <= 1:
            for ph in [self.phase] + new_phases:
                self.peak_pss[ph] = max(self.peak_pss.get(ph, 0), pss)
        self.samples += 1
        # a sample taken across a phase change counts for the phases on both sides
        for ph in [self.phase] + new_phases:
            self.peak_rss[ph] = max(self.peak_rss.get(ph, 0), rss)
        for ph in new_phases:
            self.marks.setdefault(ph, (self.last_tick, prev[0], prev[1], prev[2]))
            self.phase = ph
        self.last_tick, self.last_busy = now, machine_busy_s()

    def finish(self):
        """Close the measured region (load + index): the verify phase's start, or the last tick."""
        self.marks.setdefault("verify", (self.last_tick, sum(self.cpu_last.values()), self.last_busy, self.aux_cpu))

    def peak(self, which="rss"):
        d = self.peak_rss if which == "rss" else self.peak_pss
        return max(d.get("load", 0), d.get("index", 0))

    def cpu(self):
        """(engine CPU s, other processes' average cores) over load + index."""
        if "load" not in self.marks:
            return None, None
        w0, c0, m0, a0 = self.marks["load"]
        w1, c1, m1, a1 = self.marks["verify"]
        engine = c1 - c0
        others = max(0.0, (m1 - m0) - engine - (a1 - a0)) / max(w1 - w0, 1e-9)
        return engine, others


def run_one(engine, data, work, timeout, options, env):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.dirname(work), exist_ok=True)
    control, out_path, err_path = work + ".control", work + ".stdout", work + ".stderr"
    for p in (control, out_path, err_path):
        if os.path.exists(p):
            os.remove(p)
    cmd = [sys.executable, adapter(engine), "run", "--data", data, "--work", work, "--control", control]
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
    subprocess.run([sys.executable, adapter(engine), "cleanup", "--work", work], capture_output=True, timeout=600, env=env)
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


def host_info():
    cpu = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return {"cpu": cpu, "cores": os.cpu_count(), "mem_gib": round(mem, 1), "kernel": platform.release(), "python": platform.python_version()}


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
        f"Generated by `python3 bench/import/run.py` (bench/import/README.md); raw runs in `import.jsonl`."
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
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=float, action="append", help="graph scale (repeatable); default 1")
    ap.add_argument("--engines", default=",".join(ENGINES), help="comma-separated, from " + ",".join(ENGINES))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default=os.path.join(HERE, "..", "results", "import"))
    ap.add_argument("--data-root", default=os.environ.get("HOPDB_BENCH_DATA") or os.path.expanduser("~/.cache/hopdb/bench-data"))
    ap.add_argument("--timeout", type=float, default=7200, help="seconds per run before it is killed")
    ap.add_argument("--quiet-wait", type=float, default=120, help="before each run, wait up to this many seconds for other processes to go idle")
    ap.add_argument("--option", action="append", default=[], help="ENGINE:KEY=VALUE passed to that adapter")
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
    env = dict(os.environ, HOPDB_BENCH_DATA=a.data_root)
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
