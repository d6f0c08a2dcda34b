"""The bulk import of the knowledge graph into each engine (run.py)."""
