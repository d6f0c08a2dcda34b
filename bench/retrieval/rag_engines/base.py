"""What the retrieval engines share: fork/release defaults and the variant choice."""


class Retrieval:
    # Query forms an engine can run (e.g. Kuzu: literal ids or $parameters); the worker measures
    # each on the same queries and keeps the fastest (set_variant), unless one is forced.
    variants = ()
    variant = None

    def set_variant(self, v):
        self.variant = v

    def fork(self):
        return self

    def release(self):
        pass

    def query_text(self):
        """{kind: the query as sent (SQL, Cypher or Python)}, for the report."""
        return {}


class RowQueries:
    """q1..q7 for an engine that runs one statement per query: self._rows(kind, seed) returns the
    statement's rows (sequences), one column for the id lists."""

    def _col(self, kind, seed):
        return [r[0] for r in self._rows(kind, seed)]

    def q1(self, c):
        rows = self._rows("q1", c)
        return tuple(rows[0]) if rows else None

    def q2(self, c):
        return self._col("q2", c)

    def q3(self, e):
        return self._col("q3", e)

    def q4(self, c):
        return self._col("q4", c)

    def q5(self, d):
        return self._col("q5", d)

    def q6(self, c):
        return [(r[0], r[1]) for r in self._rows("q6", c)]

    def q7(self, es):
        return self._col("q7", es)
