"""bench/import/run.py loaded as a module (its folder name, `import`, is a Python keyword)."""

import importlib.util
import os

_spec = importlib.util.spec_from_file_location("bench_import_run", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "import", "run.py"))
shared = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(shared)
