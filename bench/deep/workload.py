"""The deep queries' bounds, the same for every engine (bench/engines/*'s Deep classes, run.py's check)."""

MAX_HOPS = 12  # Q11's bound
Q8_HOPS = 4
Q8_LIMIT = 100
