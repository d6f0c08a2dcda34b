"""The import benchmark's adapter process: one engine's bulk import of the knowledge graph, in its
own process, run by run.py while it samples the process's memory.

    python3 -m bench.bulk_import.adapter ENGINE probe        -> one JSON line: available, version, reason
    python3 -m bench.bulk_import.adapter ENGINE run --data D --work W --control C [--option KEY=VALUE]
                                                             -> one JSON line: the run's result
    python3 -m bench.bulk_import.adapter ENGINE cleanup --work W
                                                             -> stop whatever a killed run left running

The engine's code is bench/engines/ENGINE.py: import_probe(), import_kg(data, work, ctl, opts) and,
for a server, import_cleanup(work). During `run` it appends lines to the control file C
(benchlib.Control), which run.py's Sampler reads while it samples memory every 50 ms: the phase
that starts (load, index, verify; peaks count load + index), other processes to measure, and
whether the adapter process itself is the engine.
"""

import argparse
import importlib
import json
import os
import sys
import traceback

from bench.benchlib import Control

ENGINES = ["hopdb", "postgres", "sqlite", "kuzu", "cozo", "neo4j"]


def main():
    """Dispatch the subcommand to bench/engines/ENGINE.py, print one JSON line."""
    ap = argparse.ArgumentParser(prog=f"python3 -m {__spec__.name}")
    ap.add_argument("engine", choices=ENGINES)
    ap.add_argument("cmd", choices=["probe", "run", "cleanup"])
    ap.add_argument("--data")
    ap.add_argument("--work")
    ap.add_argument("--control")
    ap.add_argument("--option", action="append", default=[], help="engine option KEY=VALUE")
    a = ap.parse_args()
    mod = importlib.import_module(f"bench.engines.{a.engine}")
    opts = dict(o.split("=", 1) for o in a.option)
    if a.cmd == "probe":
        try:
            out = mod.import_probe()
        except Exception as e:  # a probe that crashes means "not available", with the reason
            out = {"available": False, "reason": f"{type(e).__name__}: {e}"}
        print(json.dumps(out), flush=True)
        return
    if a.cmd == "cleanup":
        cleanup = getattr(mod, "import_cleanup", None)
        if cleanup:
            cleanup(a.work)
        return
    os.makedirs(a.work, exist_ok=True)
    try:
        out = mod.import_kg(a.data, a.work, Control(a.control), opts)
    except Exception as e:
        traceback.print_exc()
        out = {"status": "failed", "error": f"{type(e).__name__}: {e}"}
    print(json.dumps(out), flush=True)
    sys.exit(0 if out.get("status", "ok") == "ok" else 1)


if __name__ == "__main__":
    main()
