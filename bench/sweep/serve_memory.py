"""`hopdb serve`'s resident memory on the S=1 knowledge graph at 50 clients (issue 20's "within
256 MB RSS"), for one or more `hopdb` binaries in alternating rounds.

Each round per binary: start `hopdb serve STORE --read-only` (the adjacency projection is built
in the background), wait until its log says the projection is built, read VmRSS / VmHWM, run
`hopdb-loadgen` (the retrieval mix, 50 clients, 0.5 s ramp, 4 s window) and read VmRSS each
second and VmHWM at the end. VmHWM is the peak of the whole life of the process: the
projection build included.

    python3 -m bench.sweep.serve_memory --bin before=/tmp/hopdb-old --bin after=target/release/hopdb \\
        --rounds 3 --out bench/results/serve-memory

The store and queries are bench/deep's S=1 store and bench/sweep's S=1 queries file (run
`python3 -m bench.sweep.run --profile quick --scale 1 --engines hopdb-bolt` once to make both).
"""

import argparse
import json
import os
import statistics
import subprocess
import time
from pathlib import Path

from bench.engines.base import free_port

DATA = Path.home() / ".cache/hopdb/bench-data"
STORE = DATA / "deep/s1/hopdb/store"
QUERIES = DATA / "sweep/s1/queries.json"
TARGET = Path(os.environ.get("CARGO_TARGET_DIR", Path.home() / ".cache/hopdb/target")) / "release"
BUILT = "built the adjacency projection"


def status(pid: int) -> dict:
    """VmRSS and VmHWM of `pid`, in MiB."""
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(("VmRSS:", "VmHWM:")):
                out[line.split(":")[0]] = int(line.split()[1]) / 1024
    return out


def one_round(binary: str, clients: int, window_s: float, log_path: Path) -> dict:
    port = free_port()
    cmd = [binary, "serve", str(STORE), "--read-only", "--no-http", "--no-auth", "--bolt", f"127.0.0.1:{port}"]
    # The projection's log line at info whatever the binary's default filter.
    env = dict(os.environ, RUST_LOG="warn,hopdb_server=info,hopdb=info")
    with open(log_path, "w") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
    try:
        deadline = time.monotonic() + 60
        while BUILT not in log_path.read_text(errors="replace"):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"{binary}: no projection within 60 s: {log_path.read_text()[-800:]}")
            time.sleep(0.1)
        time.sleep(0.5)  # the build thread's last steps (the allocator's release)
        ready = status(proc.pid)
        out = log_path.with_suffix(".loadgen.json")
        lg = subprocess.Popen(
            [str(TARGET / "hopdb-loadgen"), "run", "--engine", "hopdb-bolt", "--target", f"bolt://127.0.0.1:{port}",
             "--queries", str(QUERIES), "--out", str(out), "--mix", "retrieval", "--clients", str(clients),
             "--ramp-s", "0.5", "--window-s", str(window_s)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        during = []
        while lg.poll() is None:
            time.sleep(1)
            during.append(status(proc.pid)["VmRSS"])
        if lg.returncode != 0:
            raise SystemExit(f"hopdb-loadgen exited {lg.returncode}")
        end = status(proc.pid)
        res = json.loads(out.read_text())
        return {"ready_rss_mib": ready["VmRSS"], "rss_under_load_mib": during, "max_rss_under_load_mib": max(during),
                "peak_mib": end["VmHWM"], "qps": res.get("qps"), "errors": res.get("errors")}
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def col(rs: list[dict], k: str, fmt: str = "{:.0f}") -> str:
    """The rounds' values of `k` and their median, as a table cell."""
    xs = [x[k] for x in rs]
    return " / ".join(fmt.format(x) for x in xs) + "; " + fmt.format(statistics.median(xs))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", action="append", required=True, help="LABEL=PATH of a hopdb binary (repeat to compare)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--window-s", type=float, default=4.0)
    ap.add_argument("--out", default="bench/results/serve-memory")
    a = ap.parse_args()
    for need in (STORE, QUERIES, TARGET / "hopdb-loadgen"):
        if not need.exists():
            raise SystemExit(f"missing {need} (see this module's docstring)")
    bins = [b.split("=", 1) for b in a.bin]
    outdir = Path(a.out)
    outdir.mkdir(parents=True, exist_ok=True)
    results = {label: [] for label, _ in bins}
    for r in range(a.rounds):
        for label, path in bins:
            res = one_round(path, a.clients, a.window_s, outdir / f"{label}-{r + 1}.log")
            results[label].append(res)
            print(f"round {r + 1} {label}: ready {res['ready_rss_mib']:.0f} MiB, under load up to "
                  f"{res['max_rss_under_load_mib']:.0f} MiB, peak {res['peak_mib']:.0f} MiB, {res['qps']:,.0f} q/s", flush=True)
    (outdir / "results.json").write_text(json.dumps({"clients": a.clients, "window_s": a.window_s, "store": str(STORE),
                                                     "results": results}, indent=1))
    lines = ["| binary | ready RSS MiB (rounds; median) | max RSS under load | peak (VmHWM) | q/s |", "|---|---|---|---|---|"]
    for label, rs in results.items():
        cells = [col(rs, k) for k in ("ready_rss_mib", "max_rss_under_load_mib", "peak_mib")] + [col(rs, "qps", "{:,.0f}")]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    (outdir / "summary.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
