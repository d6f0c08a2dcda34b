"""The UnumDB graph suite on real graphs (run.py)."""
