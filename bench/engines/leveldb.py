"""LevelDB (PyPI plyvel), for bench/ingest's compaction pressure: the baseline beside HopDB's
own write path (compaction_pressure), the same key/value overwrites in write batches of the same
size, and its files (ldb_files).
"""

import json
import os
import random
import time


def ldb_files(d):
    """(SST files, their bytes, WAL bytes, directory bytes) of a LevelDB directory."""
    size = {}
    for n in os.listdir(d):
        try:
            size[n] = os.path.getsize(os.path.join(d, n))
        except FileNotFoundError:  # deleted by a background compaction since the listing
            pass
    names = list(size)
    tables = [n for n in names if n.endswith((".ldb", ".sst"))]
    return {
        "sst_files": len(tables),
        "sst_bytes": sum(size[n] for n in tables),
        "wal_bytes": sum(size[n] for n in names if n.endswith(".log")),
        "dir_bytes": sum(size.values()),
    }


def compaction_pressure(a):
    """Repeated permuted overwrites of a.keys keys (a: bench/ingest/compaction.py's arguments),
    then hit and miss reads, the settle and a full compaction; prints one JSON line shaped like the
    Rust example's (crates/hopdb-core/examples/compaction_pressure.rs)."""
    import plyvel

    from bench.ingest import synth

    db = plyvel.DB(a.dir, create_if_missing=True, write_buffer_size=a.write_buffer_mib << 20, bloom_filter_bits=a.bloom_bits)
    key = [b"k%09d" % i for i in range(a.keys)]
    rounds = []
    started = time.perf_counter()
    for order in synth.permutations(a.keys, a.rounds, seed=a.seed):
        t = time.perf_counter()
        for i in range(0, len(order), a.batch):
            with db.write_batch() as wb:  # sync=False: in the log, not fsynced (HopDB "process")
                for k in order[i : i + a.batch]:
                    wb.put(key[k], os.urandom(a.value_bytes))
        secs = time.perf_counter() - t
        rounds.append({"secs": round(secs, 4), "writes_per_s": round(a.keys / secs, 1), "after": ldb_files(a.dir)})
    write_secs = time.perf_counter() - started
    at_end = ldb_files(a.dir)
    rng = random.Random(a.seed)
    t = time.perf_counter()
    for _ in range(a.probes):
        v = db.get(key[rng.randrange(a.keys)])
        assert v is not None and len(v) == a.value_bytes, "a written key read back wrong"
    hit = time.perf_counter() - t
    t = time.perf_counter()
    for _ in range(a.probes):  # absent keys inside the written key range (see the Rust example)
        assert db.get(b"k%09dx" % rng.randrange(a.keys)) is None, "an absent key was found"
    miss = time.perf_counter() - t
    # Settle: LevelDB cannot be asked to flush; wait until its file count stops changing.
    t = time.perf_counter()
    last, calm = None, 0
    while calm < 4 and time.perf_counter() - t < 30:
        time.sleep(0.25)
        n = ldb_files(a.dir)["sst_files"]
        calm, last = (calm + 1 if n == last else 0), n
    settle = time.perf_counter() - t
    settled = ldb_files(a.dir)
    t = time.perf_counter()
    db.compact_range()
    compact = time.perf_counter() - t
    writes = a.keys * a.rounds
    print(json.dumps({
        "keys": a.keys, "rounds": a.rounds, "batch": a.batch, "value_bytes": a.value_bytes,
        "write_buffer_mib": a.write_buffer_mib, "background_jobs": 1, "bloom_bits": a.bloom_bits,
        "durability": "process", "writes": writes, "write_secs": round(write_secs, 4),
        "writes_per_s": round(writes / write_secs, 1), "per_round": rounds, "at_end": at_end,
        "probes": a.probes, "hit_reads_per_s": round(a.probes / hit, 1), "miss_reads_per_s": round(a.probes / miss, 1),
        "settle_secs": round(settle, 3), "settled": settled, "compact_secs": round(compact, 3), "compacted": ldb_files(a.dir),
    }))
    db.close()
