"""HopDB's benchmarks against peer databases: one package, run as modules from the repository root (see README.md)."""
