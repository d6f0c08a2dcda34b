"""The Q1-Q7 retrieval mix from Python in-process (run.py)."""
