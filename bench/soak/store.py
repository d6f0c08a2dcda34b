"""The soak's store: the knowledge-graph generator's store at a scale, made once and kept, and the
per-run working copy the soak writes to.

- Data: benchlib.ensure_data (`hopdb generate`, kept as ~/.cache/hopdb/bench-data/kg-sS).
- Pristine store: bench/engines/hopdb.ensure_store (`hopdb import`, kept as
  ~/.cache/hopdb/bench-data/deep/sS/hopdb/store, the same store bench/deep and bench/sweep's capped
  run use). Never written by the soak.
- Working copy: `cp -a --reflink=auto PRISTINE RUN_DIR/store` once per run (a reflink clone
  where the file system supports it, a full copy otherwise); the soak writes only there and the
  copy is removed at the end unless --keep-store.
"""
import os
import shutil
import subprocess
import time

from bench import benchlib
from bench.benchlib import log

DATA_ROOT = os.path.expanduser("~/.cache/hopdb/bench-data")


def ensure(scale, data_root=DATA_ROOT):
    """(pristine store path, counts) at `scale`, generating and importing on first use."""
    sc = benchlib.scale_name(scale)
    cache = os.path.join(data_root, "deep", f"s{sc}", "hopdb")
    from bench.engines import hopdb as hopdb_engine

    ready = os.path.join(cache, "store")
    if not os.path.isdir(ready):
        log(f"soak: no S={sc} store yet; generating the data and importing it into {ready} (minutes at S=10; kept for later runs)")
    data, counts = benchlib.ensure_data(scale, data_root)
    os.makedirs(cache, exist_ok=True)
    t = time.perf_counter()
    store, info, load_s = hopdb_engine.ensure_store(data, cache, False)
    if load_s is not None:
        log(f"soak: imported S={sc} in {time.perf_counter() - t:.0f} s: {info['nodes']:,} nodes, {info['edges']:,} edges")
    return store, dict(counts, data_dir=data)


def working_copy(pristine, dest):
    """Copy the pristine store to `dest` (cp -a --reflink=auto); returns seconds taken."""
    if os.path.exists(dest):
        shutil.rmtree(dest)
    t = time.perf_counter()
    subprocess.run(["cp", "-a", "--reflink=auto", pristine, dest], check=True)
    return time.perf_counter() - t
