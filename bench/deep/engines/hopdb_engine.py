"""HopDB, through its Rust API: `hopdb bench-deep --store STORE --queries Q.json --out R.json --mode M`.

The store is made once by bench/import/adapters/hopdb.py (`hopdb import STORE --nodes=...
--relationships=... --json`, the same files unchanged) and kept. The binary reads the same seed
lists as the peers (Q.json: q8 seeds, q11 pairs, timeout_ms, warmup, max_hops), runs the warm-up
then every query once, one at a time, and writes every answer with its wall time measured inside
the process (R.json). Modes (`hopdb bench-deep --help`): auto (the CSR projection is built first
and used while fresh), store (every query reads the RocksDB snapshot), projection. The binary is
$HOPDB_BIN, else ~/.cache/hopdb/target/release/hopdb; this harness never builds it.
"""

import json
import os
import re
import shutil
import subprocess
import time

from .base import MAX_HOPS, Ready, Unavailable, load_with_adapter, log


def hopdb_bin():
    return os.environ.get("HOPDB_BIN") or os.path.expanduser("~/.cache/hopdb/target/release/hopdb")


def probe():
    b = hopdb_bin()
    if not os.access(b, os.X_OK):
        raise Unavailable(f"no hopdb binary at {b} (set HOPDB_BIN)")
    version = subprocess.run([b, "--version"], capture_output=True, text=True).stdout.strip()
    for sub in ("import", "bench-deep"):
        h = subprocess.run([b, sub, "--help"], capture_output=True, text=True)
        if h.returncode != 0:
            err = " ".join(h.stderr.strip().splitlines()[:3]) or f"exit {h.returncode}"
            raise Unavailable(f"`hopdb {sub}` not in this binary ({b}): {err}")
    return version


def modes():
    h = subprocess.run([hopdb_bin(), "bench-deep", "--help"], capture_output=True, text=True).stdout
    m = re.search(r"possible values: ([a-z, ]+)\]", h)
    return [x.strip() for x in m.group(1).split(",")] if m else []


def ensure_store(data, cache, reload):
    """The kept store under `cache` (loaded with bench/import's adapter when missing or `reload`);
    returns (store path, ready.json's info, load_s or None when it was already there)."""
    ready = Ready(cache)
    info = ready.get()
    store = os.path.join(cache, "store")
    load_s = None
    if reload or info is None or not os.path.isdir(store):
        ready.clear()
        shutil.rmtree(store, ignore_errors=True)
        log("hopdb: loading with bench/import/adapters/hopdb.py (hopdb import)")
        t = time.perf_counter()
        res = load_with_adapter("hopdb", data, cache)
        load_s = time.perf_counter() - t
        info = {"load_s": load_s, "nodes": res["nodes"], "edges": res["edges"], "notes": res.get("notes", ""), "binary_version": probe()}
        ready.set(info)
    return store, info, load_s


def run(mode, data, cache, queries_path, out_path, reload, timeout_s):
    """Load the store if needed, run bench-deep; return (R.json as a dict, info)."""
    b = hopdb_bin()
    store, info, load_s = ensure_store(data, cache, reload)
    if mode not in modes():
        raise Unavailable(f"`hopdb bench-deep` has no mode {mode!r} (has {modes()})")
    q = json.load(open(queries_path))
    q["max_hops"] = MAX_HOPS
    qpath = out_path + ".queries.json"
    json.dump(q, open(qpath, "w"))
    cmd = [b, "bench-deep", "--store", store, "--queries", qpath, "--out", out_path, "--mode", mode]
    t = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s)
    wall = time.perf_counter() - t
    if r.returncode != 0 or not os.path.exists(out_path):
        raise RuntimeError(f"hopdb bench-deep exited {r.returncode}: {r.stderr.strip()[-1500:]}")
    res = json.load(open(out_path))
    return res, {"load_s": load_s, "cached_load": info, "process_wall_s": wall, "stdout": r.stdout.strip()[-2000:], "stderr": r.stderr.strip()[-2000:], "command": " ".join(cmd)}
