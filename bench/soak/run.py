"""Soak (issue 23): the LightRAG call mix, the Q1-Q7 mix and a writer at 1,000 durable writes/s,
in one process under a 256 MiB memory cgroup, for an hour on the S=10 knowledge graph, sampled
every 10 s; a summary (RSS trend, p99 drift, errors, writer rate, cap hits, OOM kills) and a
chart (PNG). Exits 1 when a check fails (see README.md), 0 when all pass or the cap cannot be
made here (it says so: "soak skipped: ...").

    python3 -m bench.soak.run                               # S=10, 1 h, 256 MiB (the issue's soak)
    python3 -m bench.soak.run --scale 0.1 --duration 120    # what bench/tests/test_soak.py runs
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time

from bench.benchlib import log, scale_name
from bench.soak import cgroup, report, store

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RESULTS = os.path.join(REPO, "bench", "results", "soak")


def parse(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m bench.soak.run", description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter, epilog="\n".join(__doc__.splitlines()[1:]))
    ap.add_argument("--scale", type=float, default=10, help="knowledge-graph scale (default 10: 7.4M nodes, 12.5M edges); generated and imported on first use")
    ap.add_argument("--store", help="an existing store to copy instead of the generated one at --scale (never written: the soak works on a copy)")
    ap.add_argument("--data-root", default=store.DATA_ROOT, help="where the generated data and stores are kept (default %(default)s)")
    ap.add_argument("--work", help="directory for the per-run working copy of the store (default DATA_ROOT/soak)")
    ap.add_argument("--keep-store", action="store_true", help="keep the working copy after the run")
    ap.add_argument("--out", help="output directory (default bench/results/soak/sS-DURATIONs)")
    ap.add_argument("--duration", type=float, default=3600, help="seconds (default %(default)s)")
    ap.add_argument("--interval", type=float, default=10, help="sampling interval, seconds (default %(default)s)")
    ap.add_argument("--warmup", type=float, help="seconds of samples left out of the trend and drift (default: min(300, duration / 4))")
    ap.add_argument("--write-rate", type=float, default=1000, help="durable writes per second (default %(default)s)")
    ap.add_argument("--max-batch", type=int, default=200, help="most writes one durable transaction carries (default %(default)s)")
    ap.add_argument("--cap-mb", type=float, default=256, help="the cgroup's memory limit, MiB (default %(default)s)")
    ap.add_argument("--memory-mb", type=float, default=64, help="hopdb.Graph(memory_mb=): caches, memtables and key index (default %(default)s; 128 was OOM-killed at S=10, see README.md)")
    ap.add_argument("--kg-interval", type=float, default=0.0, help="seconds between the LightRAG reader's get_knowledge_graph calls (default 0: none; see README.md: at S=10 under 256 MiB it is OOM-killed)")
    ap.add_argument("--max-rss-slope", type=float, default=report.RSS_SLOPE_MIB_PER_H, help="MiB/h (default %(default)s)")
    ap.add_argument("--max-p99-drift", type=float, default=report.P99_DRIFT, help="last-quarter / first-quarter median p99 (default %(default)s)")
    ap.add_argument("--min-trend-span", type=float, default=report.MIN_TREND_SPAN_S, help="seconds after the warm-up below which slope and drift are reported but not judged (default %(default)s)")
    return ap.parse_args(argv)


def main(argv=None):
    a = parse(argv)
    warmup = a.warmup if a.warmup is not None else min(300.0, a.duration / 4)
    sc = scale_name(a.scale)
    label = f"s{sc}-{a.duration:g}s" if not a.store else f"custom-{a.duration:g}s"
    out = os.path.abspath(a.out or os.path.join(RESULTS, label))
    os.makedirs(out, exist_ok=True)
    samples = os.path.join(out, "samples.jsonl")
    summary_path = os.path.join(out, "summary.json")

    # A SIGTERM unwinds like Ctrl-C, so the worker, its cgroup and the store copy are removed.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    copy = None
    try:
        group = cgroup.create(int(a.cap_mb * 2**20))
    except cgroup.Unavailable as x:
        msg = f"soak skipped: {x}"
        print(msg, flush=True)
        json.dump({"status": "skipped", "reason": str(x)}, open(summary_path, "w"), indent=1)
        return 0
    try:
        if a.store:
            pristine, counts = a.store, {}
        else:
            pristine, counts = store.ensure(a.scale, a.data_root)
        work = a.work or os.path.join(a.data_root, "soak")
        os.makedirs(work, exist_ok=True)
        copy = os.path.join(work, f"store-{os.getpid()}")
        copy_s = store.working_copy(pristine, copy)
        log(f"soak: working copy {copy} of {pristine} in {copy_s:.1f} s (cp -a --reflink=auto)")
        if os.path.exists(samples):
            os.remove(samples)
        cmd = [sys.executable, "-m", "bench.soak.worker", "--store", copy, "--out", samples, "--duration", str(a.duration), "--interval", str(a.interval),
               "--write-rate", str(a.write_rate), "--max-batch", str(a.max_batch), "--memory-mb", str(a.memory_mb), "--kg-interval", str(a.kg_interval),
               "--usage-file", group.usage_file]  # fmt: skip
        env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
        log(f"soak: {a.duration:g} s, sampling every {a.interval:g} s, warm-up {warmup:g} s; {group.mechanism}; samples -> {samples}")
        t0 = time.time()
        p = subprocess.Popen(group.wrap(cmd), cwd=REPO, env=env)
        try:
            code = p.wait(timeout=a.duration + 600)
        except subprocess.TimeoutExpired:
            log(f"soak: worker {p.pid} still running {a.duration + 600:g} s after the start: killing it")
            os.kill(p.pid, signal.SIGKILL)
            code = p.wait()
        except BaseException:  # SIGTERM (see main) or Ctrl-C: stop the worker so its group can go
            p.kill()
            p.wait()
            raise
        wall = time.time() - t0
        stats = group.stats()
        stats["mechanism"] = group.mechanism
        for _ in range(50):  # the group can be removed once its processes are gone
            if not group.procs():
                break
            time.sleep(0.1)
    finally:
        group.remove()
        if copy and not a.keep_store and os.path.exists(copy):
            shutil.rmtree(copy)
    th = {"rss_slope_mib_per_h": a.max_rss_slope, "p99_drift": a.max_p99_drift, "min_trend_span_s": a.min_trend_span}
    s = report.summarize(samples, warmup, a.write_rate, stats, code, th)
    s = {"status": "ok" if s["ok"] else "failed", "scale": None if a.store else a.scale, "counts": {k: counts.get(k) for k in ("nodes", "edges")},
         "pristine_store": pristine, "working_copy": copy, "copy_s": round(copy_s, 2), "copy_kept": a.keep_store, "wall_s": round(wall, 1),
         "duration_s": a.duration, "interval_s": a.interval, "cap_mib": a.cap_mb, "memory_mb": a.memory_mb, "kg_interval_s": a.kg_interval,
         "max_batch": a.max_batch, **s}  # fmt: skip
    json.dump(s, open(summary_path, "w"), indent=1)
    png = os.path.join(out, "soak.png")
    title = f"HopDB soak, {'S=' + sc if not a.store else os.path.basename(pristine)}, {a.duration / 60:.4g} min, cap {a.cap_mb:g} MiB ({'v2' if group.version == 2 else 'v1'} cgroup), writer {a.write_rate:g}/s durable"
    report.chart(samples, png, title, warmup, a.cap_mb)
    print(text(s, png), flush=True)
    return 0 if s["ok"] else 1


def text(s, png):
    k = s["kinds"]
    cg = s.get("cgroup") or {}
    lines = [f"soak {s['status']}: {s['samples']} samples, {s['samples_after_warmup']} after the {s['warmup_s']:g} s warm-up; {cg.get('mechanism')}"]
    if s.get("rss_mib"):
        lines.append(
        f"RSS MiB: first {s['rss_mib']['first']}, after warm-up {s['rss_mib']['start_after_warmup']}, end {s['rss_mib']['end']}, max {s['rss_mib']['max']}; slope {s['rss_slope_mib_per_h']} MiB/h"
        + (f"; cgroup usage end {s['cgroup_mib']['end']} max {s['cgroup_mib']['max']} MiB, slope {s.get('cgroup_slope_mib_per_h')} MiB/h" if s.get("cgroup_mib") else "")
        )
    for name, d in k.items():
        lines.append(f"{name}: {d['calls']:,} calls, {d['per_s_after_warmup']}/s, p50 {d['p50_us_median']} us, p99 first quarter {d['p99_us_first_quarter']} us, last quarter {d['p99_us_last_quarter']} us (x{d['p99_drift']}), errors {d['errors']}")
    lines.append(f"writer held {s['writer_target_per_s']:g}/s: {s['writer_held']}; cgroup failcnt {cg.get('failcnt')}, OOM kills {cg.get('oom_kill')}, peak {None if cg.get('max_usage_bytes') is None else cg['max_usage_bytes'] >> 20} MiB")
    lines.append(f"trend judged: {s['trend_judged']} (span {s['analysed_span_s']} s)")
    for p in s["problems"]:
        lines.append("PROBLEM: " + p)
    lines.append(f"chart: {png}")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
