"""The concurrency sweep and the memory-capped run (run.py)."""
