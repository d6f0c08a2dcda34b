"""What this benchmark takes from bench/import and bench/deep, loaded by file path (their module
names, e.g. bench/deep's `engines` package, would clash with this folder's).

- bench/import/run.py as `import_run`: host_info(), wait_quiet(), machine_busy_s(), the Sampler
  (peak RSS of a process tree, per phase) and ensure_requirements();
- bench/import/common.py: Control (the engine process's side of the Sampler's control file),
  dir_bytes();
- bench/import/adapters/postgres.py through bench/deep/engines/base.py's import_adapter():
  bindir(), server_user(), as_user(), free_port(), stop(), the private-server helpers.
"""

import functools
import importlib.util
import os
import sys

BENCH = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def import_run():
    """bench/import/run.py, loaded once by bench/benchlib.py."""
    if BENCH not in sys.path:
        sys.path.insert(1, BENCH)
    from benchlib import import_run as load

    return load()


@functools.lru_cache(maxsize=None)
def deep_base():
    return _load("deep_engines_base", os.path.join(BENCH, "deep", "engines", "base.py"))


@functools.lru_cache(maxsize=None)
def import_common():
    return deep_base().import_common()


@functools.lru_cache(maxsize=None)
def pg_adapter():
    return deep_base().import_adapter("postgres")
