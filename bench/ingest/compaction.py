#!/usr/bin/env python3
"""Compaction pressure: HopDB configurations (the Rust example binary, HopDB's own write path)
and the LevelDB baseline (plyvel), the same key/value overwrites in write batches of the same size.

    python3 compaction.py leveldb --dir D --keys K --rounds R [--batch 1000] [--value-bytes 1024]
                                  [--probes 20000] [--write-buffer-mib 16] [--bloom-bits 10]

prints one JSON line shaped like the Rust example's (see
crates/hopdb-core/examples/compaction_pressure.rs). run.py imports CONFIGS and hopdb_cmd.
"""

import argparse
import json
import os
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import synth  # noqa: E402

# name -> flags of the example binary (on top of its defaults: write buffer 16 MiB, 2 background
# jobs, bloom 10 bits/key, durability "process" = WAL on, not fsynced).
CONFIGS = {
    "default": {},
    "jobs-1": {"background-jobs": 1},
    "jobs-4": {"background-jobs": 4},
    "wbuf-4MiB": {"write-buffer-mib": 4},
    "wbuf-64MiB": {"write-buffer-mib": 64},
    "no-bloom": {"bloom-bits": 0},
    "wal-off": {"durability": "none"},
}


def hopdb_cmd(binary, name, d, keys, rounds, batch, probes):
    cmd = [binary, "--dir", d, "--keys", str(keys), "--rounds", str(rounds), "--batch", str(batch), "--probes", str(probes)]
    for k, v in CONFIGS[name].items():
        cmd += [f"--{k}", str(v)]
    return cmd


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


def leveldb(a):
    import plyvel

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


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["leveldb"])
    ap.add_argument("--dir", required=True)
    ap.add_argument("--keys", type=int, default=200_000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--batch", type=int, default=1000)
    ap.add_argument("--value-bytes", type=int, default=1024)
    ap.add_argument("--probes", type=int, default=20_000)
    ap.add_argument("--write-buffer-mib", type=int, default=16, help="as HopDB's default memtable")
    ap.add_argument("--bloom-bits", type=int, default=10, help="as HopDB's default filter")
    ap.add_argument("--seed", type=int, default=42)
    leveldb(ap.parse_args())


if __name__ == "__main__":
    main()
