"""bench/import/run.py as a module (bench/benchlib.py)."""

import os
import sys

sys.path.insert(1, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from benchlib import import_run  # noqa: E402

shared = import_run()
