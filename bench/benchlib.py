"""What every harness of bench/ shares: the knowledge graph's CSV files, the engine process's side
of the memory Sampler (Control), the Sampler itself, the machine's host information and idleness,
the Python requirements, the generated data, and how a harness starts a module of this package
in a child process.

Run the harnesses as modules from the repository root (`python3 -m bench.deep.run ...`); a child
process (a worker) is started as `python3 -m bench.<workload>.worker` by module_cmd(), with
module_env() putting the repository root on its PYTHONPATH.
"""

import datetime
import functools
import json
import os
import re
import sys
import time

# Other modules are imported where they are used: an engine's own process (bench/bulk_import's
# adapter, whose memory is what the import benchmark measures) imports this module.

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)


def log(msg):
    print(f"[{datetime.datetime.now():%H:%M:%S}] {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# Child processes


def module_cmd(module, *args):
    """The command line that runs `module` (e.g. "bench.deep.worker") with this Python."""
    return [sys.executable, "-m", module, *args]


def module_env(env=None):
    """`env` (default: this process's environment) with the repository root first on PYTHONPATH,
    so a child started with module_cmd() finds the `bench` package from any directory."""
    env = dict(os.environ if env is None else env)
    env["PYTHONPATH"] = os.pathsep.join([ROOT] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return env


@functools.lru_cache(maxsize=None)
def lightrag_support():
    """python/tests/lightrag_support.py (LightRAG storage construction for both backends), loaded
    by file path: python/tests is not a package."""
    import importlib.util

    path = os.path.join(ROOT, "python", "tests", "lightrag_support.py")
    spec = importlib.util.spec_from_file_location("lightrag_support", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["lightrag_support"] = mod
    spec.loader.exec_module(mod)
    return mod


# ---------------------------------------------------------------------------------------------
# The knowledge graph's files (hopdb generate), the same for every engine


# The generator's files, in load order.
NODE_FILES = ["documents.csv", "chunks.csv", "entities.csv"]
EDGE_FILES = ["has_chunk.csv", "mentions.csv"]

# Each node file's columns as (neo4j-admin header, plain column name, SQL type).
NODE_COLUMNS = {
    "documents.csv": [(":ID", "id", "text"), ("title", "title", "text"), (":LABEL", "label", "text")],
    "chunks.csv": [
        (":ID", "id", "text"),
        ("doc_id", "doc_id", "text"),
        ("ordinal:int", "ordinal", "integer"),
        ("word_count:int", "word_count", "integer"),
        ("section_title", "section_title", "text"),
        (":LABEL", "label", "text"),
    ],
    "entities.csv": [
        (":ID", "id", "text"),
        ("canonical_title", "canonical_title", "text"),
        ("entity_type", "entity_type", "text"),
        (":LABEL", "label", "text"),
    ],
}
EDGE_COLUMNS = [(":START_ID", "src", "text"), (":END_ID", "dst", "text"), (":TYPE", "type", "text")]
# Graph engines with typed tables: the label of each node file and the endpoints of each edge type.
LABEL_OF = {"documents.csv": "Document", "chunks.csv": "Chunk", "entities.csv": "Entity"}
EDGE_TYPE_OF = {"has_chunk.csv": ("HAS_CHUNK", "Document", "Chunk"), "mentions.csv": ("MENTIONS", "Chunk", "Entity")}


def check_headers(data):
    """Fail early if the generator's files are not the shape the engines' loaders expect."""
    for f in NODE_FILES:
        want = ",".join(h for h, _, _ in NODE_COLUMNS[f])
        got = open(os.path.join(data, f), encoding="utf-8").readline().rstrip("\r\n")
        if got != want:
            raise SystemExit(f"{f}: header {got!r}, expected {want!r}")
    for f in EDGE_FILES:
        want = ",".join(h for h, _, _ in EDGE_COLUMNS)
        got = open(os.path.join(data, f), encoding="utf-8").readline().rstrip("\r\n")
        if got != want:
            raise SystemExit(f"{f}: header {got!r}, expected {want!r}")


def hopdb_bin():
    """The release `hopdb` binary: $HOPDB_BIN, else ~/.cache/hopdb/target/release/hopdb (never built here)."""
    return os.environ.get("HOPDB_BIN") or os.path.expanduser("~/.cache/hopdb/target/release/hopdb")


def hopdb_bench_bin():
    """The release `hopdb-bench` binary (the study's demo and deep queries): $HOPDB_BENCH_BIN, else
    ~/.cache/hopdb/target/release/hopdb-bench (never built here)."""
    return os.environ.get("HOPDB_BENCH_BIN") or os.path.expanduser("~/.cache/hopdb/target/release/hopdb-bench")


def scale_name(s):
    return f"{s:g}"


def ensure_data(scale, data_root):
    """Generate the graph at this scale once; return (dir, {"nodes": N, "edges": M, per-file rows})."""
    import csv
    import shutil
    import subprocess

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


# ---------------------------------------------------------------------------------------------
# Python dependencies


def ensure_requirements(path=None):
    """pip-install a requirements.txt (default bench/bulk_import's) when a pinned package is missing
    or at another version."""
    import importlib.metadata
    import subprocess

    path = path or os.path.join(BENCH, "bulk_import", "requirements.txt")
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
# The machine


def host_info():
    import platform

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


def dir_bytes(path):
    """Apparent size (sum of file sizes) of a file or a directory tree, symlinks not followed."""
    if os.path.isfile(path):
        return os.path.getsize(path)
    total = 0
    for root, _dirs, files in os.walk(path):
        for f in files:
            try:
                st = os.lstat(os.path.join(root, f))
            except FileNotFoundError:
                continue
            total += st.st_size
    return total


# ---------------------------------------------------------------------------------------------
# Peak memory of an engine's processes: the Sampler (the harness's side) and Control (the engine
# process's side of the control file)


class Control:
    """The measured process's side of the control file, which the Sampler reads while it samples
    memory every 50 ms:
        phase load | phase index | phase verify   the phase that starts now
        pid N                                     also measure process N and its descendants
        noself                                    do not measure the process itself (the engine
                                                  is a CLI or a server it started: measure only those)
    A Control of None writes nothing (a load outside the Sampler)."""

    def __init__(self, path):
        self.path = path

    def _write(self, line):
        if self.path:
            with open(self.path, "a") as f:
                f.write(line + "\n")

    def phase(self, name):
        self._write(f"phase {name}")

    def pid(self, pid):
        self._write(f"pid {pid}")

    def noself(self):
        self._write("noself")


class Timer:
    def __init__(self):
        self.t0 = time.perf_counter()

    def lap(self):
        t = time.perf_counter()
        d, self.t0 = t - self.t0, t
        return d


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
