"""What the engines' ingestion loaders (bench/engines/*'s ingest_load) share: the clock a loader
starts once its store is open, the row cap of the row-by-row modes, batching, and the columnar
modes' input tables."""

import resource
import time


class Clock:
    """Started by a loader once the store is open and its schema made (ArcadeDB's JVM start
    and the like are not ingestion); the generated graph is in memory before."""

    def start(self):
        u = resource.getrusage(resource.RUSAGE_SELF)
        self.cpu0 = u.ru_utime + u.ru_stime
        self.t0 = time.perf_counter()


clock = Clock()


def rows_capped(rows, deadline, done):
    """Yields rows until the deadline (checked every 256 rows), then marks the run capped."""
    for i, r in enumerate(rows):
        if i % 256 == 0 and time.perf_counter() > deadline:
            done["capped"] = True
            return
        yield r


def chunks(it, size):
    buf = []
    for x in it:
        buf.append(x)
        if len(buf) == size:
            yield buf
            buf = []
    if buf:
        yield buf


def tables(g, mode):
    """The columnar modes' input, built before the clock starts: pyarrow tables or Polars frames."""
    nodes, edges = g.arrow()
    if mode == "polars":
        import polars as pl

        nodes, edges = pl.from_arrow(nodes), {t: pl.from_arrow(e) for t, e in edges.items()}
    return nodes, edges
