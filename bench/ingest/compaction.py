"""Compaction pressure, the LevelDB baseline's process (run.py starts it; HopDB's side is the Rust
example crates/hopdb-core/examples/compaction_pressure.rs, bench/engines/hopdb.py's
compaction_cmd): the same key/value overwrites in write batches of the same size.

    python3 -m bench.ingest.compaction leveldb --dir D --keys K --rounds R [--batch 1000] [--value-bytes 1024]
                                               [--probes 20000] [--write-buffer-mib 16] [--bloom-bits 10]

prints one JSON line shaped like the Rust example's (bench/engines/leveldb.py's compaction_pressure).
"""

import argparse

from bench.engines import leveldb


def main():
    ap = argparse.ArgumentParser(prog=f"python3 -m {__spec__.name}", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
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
    leveldb.compaction_pressure(ap.parse_args())


if __name__ == "__main__":
    main()
