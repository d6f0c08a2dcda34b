"""What this benchmark takes from bench/deep and bench/import, in one place.

bench/deep's `engines` package (the engine classes that load and open every database, and their
base helpers) goes on sys.path; bench/deep/run.py is loaded as the module `deep_run` on demand
(its percentile maths, engine names, and through it bench/import/run.py's data generation,
requirements, idle-wait and host information).
"""

import functools
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEEP = os.path.abspath(os.path.join(HERE, "..", "deep"))
if DEEP not in sys.path:
    sys.path.insert(1, DEEP)

from engines import base  # noqa: E402  (bench/deep/engines/base.py)


@functools.lru_cache(maxsize=None)
def deep_run():
    spec = importlib.util.spec_from_file_location("deep_run", os.path.join(DEEP, "run.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@functools.lru_cache(maxsize=None)
def common():
    """bench/import/common.py: the dataset's files and columns."""
    return base.import_common()
