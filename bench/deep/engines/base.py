"""What every engine of the deep-query benchmark shares: the interface, timeouts, and loading
through bench/import's adapters.

An engine is a class with
    probe()                      -> version string (raises Unavailable with the reason)
    prepare(data, cache, reload) -> dict: load_s (None if the database was already there), open_s, notes
    q8(seed, timeout_ms)         -> list of node ids (distinct nodes within 1..4 hops, at most 100)
    q11(a, b, timeout_ms)        -> int length of a shortest undirected path of at most MAX_HOPS, or None
    close()
q8/q11 raise QueryTimeout when the engine stopped the query at its timeout. The databases live
under the cache directory (~/.cache/hopdb/bench-data/deep/sS/ENGINE), kept between runs: a
`ready.json` there says the load finished, and what it took.
"""

import importlib.util
import json
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEEP = os.path.dirname(HERE)
IMPORT_DIR = os.path.join(DEEP, "..", "import")

MAX_HOPS = 12  # Q11's bound, the same for every engine
Q8_HOPS = 4
Q8_LIMIT = 100


class Unavailable(Exception):
    """The engine cannot run here; the message is the reason reported."""


class QueryTimeout(Exception):
    """The engine stopped the query at its per-query timeout."""


_ID = re.compile(r"^[A-Za-z0-9_.:-]+$")


def lit(key):
    """A node id as a quoted literal, for the engines whose planners use an index only for literals.

    The generator's ids are `ent-123`, `chunk-9`, `doc-4`: checked against a strict pattern, so
    inlining them cannot inject anything."""
    if not _ID.match(key):
        raise ValueError(f"unexpected id {key!r}")
    return "'" + key + "'"


def import_adapter(name):
    """bench/import/adapters/NAME.py as a module (under another name: adapters/kuzu.py would shadow
    the kuzu package). The adapter rewrites sys.path[0] when imported; restore it."""
    saved = list(sys.path)
    sys.path.insert(0, os.path.abspath(IMPORT_DIR))
    try:
        spec = importlib.util.spec_from_file_location(f"import_adapter_{name}", os.path.join(IMPORT_DIR, "adapters", f"{name}.py"))
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    finally:
        sys.path[:] = saved
        if os.path.abspath(IMPORT_DIR) not in sys.path:
            sys.path.append(os.path.abspath(IMPORT_DIR))
    return mod


def import_common():
    saved = list(sys.path)
    sys.path.insert(0, os.path.abspath(IMPORT_DIR))
    try:
        import common  # bench/import/common.py
    finally:
        sys.path[:] = saved
    return common


def report_outcome(fn, engine, out):
    """Run fn(); when the engine is unavailable or fails, write {"engine", "status", "reason"} to the
    worker's result file `out` (the traceback to stderr) and exit 1 on a failure."""
    import traceback

    try:
        fn()
    except Unavailable as e:
        json.dump({"engine": engine, "status": "skipped", "reason": str(e)}, open(out, "w"))
    except Exception as e:
        traceback.print_exc()
        json.dump({"engine": engine, "status": "failed", "reason": f"{type(e).__name__}: {str(e)[:1500]}"}, open(out, "w"))
        sys.exit(1)


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


class Ready:
    """The cache directory's `ready.json`: present once the load finished."""

    def __init__(self, cache):
        self.path = os.path.join(cache, "ready.json")

    def get(self):
        if os.path.exists(self.path):
            try:
                return json.load(open(self.path))
            except ValueError:
                return None
        return None

    def set(self, info):
        tmp = self.path + ".tmp"
        json.dump(dict(info, loaded_at=time.strftime("%Y-%m-%dT%H:%M:%S")), open(tmp, "w"), indent=1)
        os.replace(tmp, self.path)

    def clear(self):
        if os.path.exists(self.path):
            os.remove(self.path)


def load_with_adapter(adapter_name, data, work, opts=None):
    """Run bench/import's adapter `run` into `work` (no memory sampling) and return its result."""
    mod = import_adapter(adapter_name)
    common = import_common()
    os.makedirs(work, exist_ok=True)
    res = mod.run(data, work, common.Control(None), opts or {})
    if res.get("status", "ok") != "ok":
        raise RuntimeError(f"{adapter_name} load failed: {res.get('error')}")
    return res


class Engine:
    name = "?"

    def probe(self):
        raise NotImplementedError

    def prepare(self, data, cache, reload):
        raise NotImplementedError

    def q8(self, seed, timeout_ms):
        raise NotImplementedError

    def q11(self, a, b, timeout_ms):
        raise NotImplementedError

    def close(self):
        pass

    @staticmethod
    def cleanup(cache):
        """Stop whatever a killed worker left running (servers)."""
