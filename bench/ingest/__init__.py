"""The ingestion and write-path matrix (run.py)."""
