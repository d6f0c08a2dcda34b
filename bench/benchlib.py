"""bench/import/run.py as a module, for the other bench folders and bench/run: host_info(),
wait_quiet(), machine_busy_s(), the Sampler, ensure_requirements(), ensure_data(). Loaded by file
path: its folder's name, `import`, is a Python keyword, and every folder has a run.py of its own."""

import functools
import importlib.util
import os

BENCH = os.path.dirname(os.path.abspath(__file__))


@functools.lru_cache(maxsize=None)
def import_run():
    spec = importlib.util.spec_from_file_location("import_run", os.path.join(BENCH, "import", "run.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
