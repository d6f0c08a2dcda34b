"""The Cozo performance-report suite on real attributed graphs (run.py)."""
