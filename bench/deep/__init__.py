"""Deep queries Q8 and Q11 against peer databases (run.py)."""
