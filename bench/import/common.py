"""Shared by run.py and the adapters: the dataset's files and schema, the adapter protocol.

An adapter is a script in adapters/ run in its own process by run.py:

    python3 adapters/ENGINE.py probe                  -> one JSON line: available, version, reason
    python3 adapters/ENGINE.py run --data D --work W --control C
                                                      -> one JSON line: the run's result
    python3 adapters/ENGINE.py cleanup --work W       -> stop whatever a killed run left running

During `run` the adapter appends lines to the control file C, which run.py reads while it samples
memory every 50 ms:
    phase load | phase index | phase verify   the phase that starts now (peaks count load + index)
    pid N                                     also measure process N and its descendants
    noself                                    do not measure the adapter process itself (the engine
                                              is a CLI or a server it started: measure only those)
"""

import argparse
import json
import os
import sys
import time
import traceback

# The generator's files (hopdb generate), in load order.
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
    """Fail early if the generator's files are not the shape the adapters expect."""
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


class Control:
    """The adapter's side of the control file."""

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


def adapter_main(probe, run, cleanup=None):
    """Entry point of an adapter script: dispatch the subcommand, print one JSON line."""
    ap = argparse.ArgumentParser()
    ap.add_argument("cmd", choices=["probe", "run", "cleanup"])
    ap.add_argument("--data")
    ap.add_argument("--work")
    ap.add_argument("--control")
    ap.add_argument("--option", action="append", default=[], help="engine option KEY=VALUE")
    a = ap.parse_args()
    opts = dict(o.split("=", 1) for o in a.option)
    if a.cmd == "probe":
        try:
            out = probe()
        except Exception as e:  # a probe that crashes means "not available", with the reason
            out = {"available": False, "reason": f"{type(e).__name__}: {e}"}
        print(json.dumps(out), flush=True)
        return
    if a.cmd == "cleanup":
        if cleanup:
            cleanup(a.work)
        return
    os.makedirs(a.work, exist_ok=True)
    try:
        out = run(a.data, a.work, Control(a.control), opts)
    except Exception as e:
        traceback.print_exc()
        out = {"status": "failed", "error": f"{type(e).__name__}: {e}"}
    print(json.dumps(out), flush=True)
    sys.exit(0 if out.get("status", "ok") == "ok" else 1)
