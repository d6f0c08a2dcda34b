"""HopDB: the CLI's neo4j-admin-style bulk import, `hopdb import STORE --nodes=F ... --relationships=F ... --json`.

The binary is $HOPDB_BIN, else $HOME/.cache/hopdb/target/release/hopdb (this harness never builds
it). The files go in unchanged; labels and types come from their :LABEL and :TYPE columns. The
timed region is the whole `hopdb import` process (wall time, process start to exit); peak RSS is
that process's. Counts are verified afterwards with `hopdb stats STORE --json` (a separate
process, not timed). If the binary has no `import` subcommand yet, the probe says so and the
engine is reported as not available.
"""

import json
import os
import subprocess
import sys

# Replace this script's own directory on the path (adapters/kuzu.py would shadow the kuzu package).
sys.path[0] = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
from common import EDGE_FILES, NODE_FILES, Timer, adapter_main, dir_bytes  # noqa: E402


def hopdb_bin():
    return os.environ.get("HOPDB_BIN") or os.path.expanduser("~/.cache/hopdb/target/release/hopdb")


def probe():
    b = hopdb_bin()
    if not os.access(b, os.X_OK):
        return {"available": False, "reason": f"no hopdb binary at {b} (set HOPDB_BIN)"}
    version = subprocess.run([b, "--version"], capture_output=True, text=True).stdout.strip()
    h = subprocess.run([b, "import", "--help"], capture_output=True, text=True)
    if h.returncode != 0:
        err = (h.stderr.strip().splitlines() or ["exit %d" % h.returncode])[0]
        return {"available": False, "version": version, "reason": f"`hopdb import` not in this binary ({err})"}
    return {"available": True, "version": version, "binary": b}


def run(data, work, ctl, opts):
    b = hopdb_bin()
    store = os.path.join(work, "store")
    cmd = [b, "import", store]
    cmd += [f"--nodes={os.path.join(data, f)}" for f in NODE_FILES]
    cmd += [f"--relationships={os.path.join(data, f)}" for f in EDGE_FILES]
    cmd += ["--json"]
    ctl.noself()
    ctl.phase("load")
    t = Timer()
    with open(os.path.join(work, "import.stderr"), "w") as err:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True, cwd=work)
        ctl.pid(p.pid)
        out, _ = p.communicate()
    load_s = t.lap()
    if p.returncode != 0:
        tail = open(os.path.join(work, "import.stderr")).read()[-2000:]
        return {"status": "failed", "error": f"hopdb import exited {p.returncode}: {tail}", "load_s": load_s}
    summary = None
    for line in reversed(out.strip().splitlines()):
        try:
            summary = json.loads(line)
            break
        except ValueError:
            continue
    ctl.phase("verify")
    st = subprocess.run([b, "stats", store, "--json"], capture_output=True, text=True, check=True)
    stats = json.loads(st.stdout)
    return {
        "status": "ok",
        "nodes": stats["nodes"],
        "edges": stats["edges"],
        "load_s": load_s,
        "index_s": 0.0,
        "disk_bytes": dir_bytes(store),
        "notes": "hopdb import CLI (wall time of the process); counts from hopdb stats",
        "extra": {"import_summary": summary, "stats": {k: stats.get(k) for k in ("sst_bytes", "wal_bytes", "live_data_bytes", "format_version")}},
    }


if __name__ == "__main__":
    adapter_main(probe, run)
