"""Runs one TCK scenario over Bolt, step by step as the embedded runner
(crates/hopdb-cypher/tests/tck/runner.rs) does, stopping at the first step that fails.

Differences forced by the wire, each reported rather than hidden:

* Errors: a Bolt FAILURE carries a Neo4j status code and a message. The code gives the TCK class
  (:data:`CODE_CLASS`, the inverse of ``CypherError::neo4j_code``), which is checked as the
  embedded runner checks it. The TCK detail code (``UnknownFunction``, ...) and the phase
  (compile time / runtime) are not sent, so they cannot be checked: the embedded runner only
  records a different detail (it does not fail the scenario), but it does fail a wrong phase;
  over Bolt every error step's phase is unverified, and counted as such.
* ``there exists a procedure ...`` registers a procedure inside the test process; a Bolt client
  cannot, so such scenarios are excluded by construction (:func:`exclusion`).
* Side effects are, as in the embedded runner by default, the difference of the graph states read
  with ``MATCH (n) RETURN n`` and ``MATCH ()-[r]->() RETURN r`` around the query (over the same
  connection). The summary counters the server sends are compared too, for information (the
  server sends Neo4j's ``properties-set``, which counts removed properties as set, so
  ``+properties`` and ``-properties`` are compared as their sum); with
  ``HOPDB_TCK_SIDE_EFFECTS=stats`` they decide instead."""

from __future__ import annotations

import dataclasses
import pathlib
import re

import neo4j
from neo4j.exceptions import Neo4jError
from neo4j.graph import Node, Relationship

from . import compare, values
from .gherkin import Scenario, Step

#: Neo4j status code -> TCK error class (crates/hopdb-cypher/src/error.rs, ``neo4j_code``).
CODE_CLASS = {
    "Neo.ClientError.Statement.SyntaxError": "SyntaxError",
    "Neo.ClientError.Statement.SemanticError": "SemanticError",
    "Neo.ClientError.Statement.TypeError": "TypeError",
    "Neo.ClientError.Statement.ArgumentError": "ArgumentError",
    "Neo.ClientError.Statement.ParameterMissing": "ParameterMissing",
    "Neo.ClientError.Schema.ConstraintValidationFailed": "ConstraintVerificationFailed",
    "Neo.ClientError.Statement.EntityNotFound": "EntityNotFound",
    "Neo.ClientError.Procedure.ProcedureNotFound": "ProcedureError",
    "Neo.ClientError.Procedure.ProcedureCallFailed": "ProcedureError",
    "Neo.ClientError.Statement.FeatureNotSupported": "FeatureNotSupported",
    "Neo.ClientError.Statement.UnsupportedAdministrationCommand": "FeatureNotSupported",
    "Neo.ClientError.Transaction.TransactionTimedOut": "Timeout",
    "Neo.TransientError.Transaction.LockAcquisitionTimeout": "Timeout",
    "Neo.TransientError.Transaction.Terminated": "Timeout",
    "Neo.TransientError.General.MemoryPoolOutOfMemoryError": "MemoryLimit",
    "Neo.DatabaseError.General.UnknownError": "Storage",
}

SIDE_EFFECTS = ("+nodes", "-nodes", "+relationships", "-relationships", "+labels", "-labels", "+properties", "-properties")

SCHEMA_WORDS = re.compile(r"\b(INDEX|INDEXES|CONSTRAINT|CONSTRAINTS)\b", re.IGNORECASE)


class ConnectionLost(Exception):
    """The server or the connection failed (not a query error): the run restarts the server."""


def exclusion(sc: Scenario) -> str | None:
    """Why the scenario cannot run over a wire by construction, or None."""
    for st in sc.steps:
        if st.text.startswith("there exists a procedure "):
            return (
                "needs a procedure registered in-process by its Given step "
                "('there exists a procedure ...'); a Bolt client cannot register one"
            )
    return None


@dataclasses.dataclass
class Exec:
    """One query's outcome: columns, rows and counters, or the FAILURE (and whether it answered
    the RUN or came while pulling records)."""

    columns: list = dataclasses.field(default_factory=list)
    rows: list = dataclasses.field(default_factory=list)
    counters: object = None
    error: Neo4jError | None = None
    arrived: str = ""


@dataclasses.dataclass
class ErrorCheck:
    """An error step that passed on the class: what the TCK wanted and what the wire said."""

    want_class: str
    want_phase: str
    want_detail: str
    code: str
    arrived: str
    message: str


@dataclasses.dataclass
class Outcome:
    pass_: bool = False
    reason: str = ""
    details: list = dataclasses.field(default_factory=list)
    query: str = ""
    error_checks: list = dataclasses.field(default_factory=list)
    fallbacks: set = dataclasses.field(default_factory=set)
    stats_disagree: bool = False
    touched_schema: bool = False


def one_line(s: str, limit: int = 400) -> str:
    s = s.replace("\r", " ").replace("\n", " ")
    return s if len(s) <= limit else s[:limit] + "…"


def indent(s: str) -> str:
    return "\n".join("    " + ln for ln in s.split("\n"))


def error_class(e: Neo4jError) -> str:
    return CODE_CLASS.get(e.code or "", f"<unmapped code {e.code}>")


def describe_error(e: Neo4jError, arrived: str) -> str:
    return f"{error_class(e)} ({e.code}) answering {arrived}: {e.message}"


class Session:
    """Queries over one driver session (auto-commit), each with a transaction timeout."""

    def __init__(self, driver: neo4j.Driver, timeout: float):
        self.driver = driver
        self.timeout = timeout
        self.session = driver.session(database="neo4j")

    def close(self):
        try:
            self.session.close()
        except Exception:  # closing a broken session
            pass

    def run(self, text: str, params: dict | None = None) -> Exec:
        q = neo4j.Query(text, timeout=self.timeout)
        arrived = "RUN"
        columns: list = []
        try:
            result = self.session.run(q, params or {})
            arrived = "PULL"
            columns = list(result.keys())
            # tuple's own accessors: a Record's raise on values the driver could not hydrate.
            rows = [[tuple.__getitem__(r, i) for i in range(len(r))] for r in result]
            summary = result.consume()
        except Neo4jError as e:
            return Exec(columns=columns, error=e, arrived=arrived)
        except Exception as e:  # the connection, not the query
            raise ConnectionLost(f"{type(e).__name__}: {e}") from e
        return Exec(columns=columns, rows=rows, counters=summary.counters)

    def rows(self, text: str) -> list:
        ex = self.run(text)
        if ex.error is not None:
            raise ConnectionLost(f"harness query {text!r} failed: {describe_error(ex.error, ex.arrived)}")
        return ex.rows

    def clean(self, schema: bool):
        """Empties the graph; with ``schema``, drops every constraint and index too."""
        self.rows("MATCH (n) DETACH DELETE n")
        if schema:
            # Constraints first: dropping one drops the index it owns.
            for kind, show in (("CONSTRAINT", "SHOW CONSTRAINTS"), ("INDEX", "SHOW INDEXES")):
                ex = self.run(show)
                if ex.error is not None:
                    raise ConnectionLost(f"{show} failed: {describe_error(ex.error, ex.arrived)}")
                at = ex.columns.index("name")
                for row in ex.rows:
                    name = row[at].replace("`", "``")
                    self.rows(f"DROP {kind} `{name}`")


@dataclasses.dataclass
class GraphState:
    nodes: set = dataclasses.field(default_factory=set)
    rels: set = dataclasses.field(default_factory=set)
    labels: set = dataclasses.field(default_factory=set)
    props: set = dataclasses.field(default_factory=set)


def diff(before: GraphState, after: GraphState) -> list[int]:
    return [
        len(after.nodes - before.nodes),
        len(before.nodes - after.nodes),
        len(after.rels - before.rels),
        len(before.rels - after.rels),
        len(after.labels - before.labels),
        len(before.labels - after.labels),
        len(after.props - before.props),
        len(before.props - after.props),
    ]


class _State:
    def __init__(self, session: Session, graphs_dir: pathlib.Path, from_stats: bool, wants_side_effects: bool):
        self.s = session
        self.graphs_dir = graphs_dir
        self.from_stats = from_stats
        self.wants_side_effects = wants_side_effects
        self.params: dict = {}
        self.last: Exec | None = None
        self.effects = None
        self.out = Outcome()

    def note(self, text: str):
        self.out.details.append(text)

    def run(self, text: str) -> Exec:
        if SCHEMA_WORDS.search(text):
            self.out.touched_schema = True
        return self.s.run(text, self.params)

    def snapshot(self) -> GraphState:
        g = GraphState()
        for (n,) in self.s.rows("MATCH (n) RETURN n"):
            if not isinstance(n, Node):
                raise ConnectionLost(f"harness: MATCH (n) RETURN n returned {compare.render(n)}")
            g.nodes.add(n.element_id)
            g.labels.update(n.labels)
            g.props.update((True, n.element_id, k, compare.render(v)) for k, v in n.items())
        for (r,) in self.s.rows("MATCH ()-[r]->() RETURN r"):
            if not isinstance(r, Relationship):
                raise ConnectionLost(f"harness: MATCH ()-[r]->() RETURN r returned {compare.render(r)}")
            g.rels.add(r.element_id)
            g.props.update((False, r.element_id, k, compare.render(v)) for k, v in r.items())
        return g


class StepFailed(Exception):
    pass


def run_scenario(sc: Scenario, session: Session, graphs_dir: pathlib.Path, from_stats: bool = False) -> Outcome:
    """Runs the scenario's steps; :class:`ConnectionLost` propagates (the caller restarts)."""
    wants = any(s.text in ("no side effects", "the side effects should be:") for s in sc.steps)
    st = _State(session, graphs_dir, from_stats, wants)
    for step in sc.steps:
        try:
            _step(st, step)
        except StepFailed as f:
            st.out.reason = one_line(str(f))
            st.note(f"  failed step (line {step.line}): {step.keyword} {step.text}")
            return st.out
    st.out.pass_ = True
    return st.out


def _doc(step: Step) -> str:
    if step.doc is None:
        raise StepFailed("step without its query (doc string)")
    return step.doc


def _step(st: _State, step: Step):
    text = step.text
    if text in ("an empty graph", "any graph"):
        return
    if text == "having executed:":
        q = _doc(step)
        ex = st.run(q)
        if ex.error is not None:
            st.note(f"  setup query:\n{indent(q)}")
            raise StepFailed(f"setup query failed: {describe_error(ex.error, ex.arrived)}")
        return
    if text == "parameters are:":
        if step.table is None:
            raise StepFailed("parameters without a table")
        for row in step.table:
            if len(row) != 2:
                raise StepFailed(f"harness: bad parameter row {row!r}")
            name, value = row
            try:
                st.params[name] = values.to_param(values.parse_value(value))
            except ValueError as e:
                raise StepFailed(f"harness: parameter {name}: {e}") from None
        return
    if text in ("executing query:", "executing control query:"):
        q = _doc(step)
        st.out.query = q
        st.note(f"  query:\n{indent(q)}")
        for k in sorted(st.params):
            st.note(f"  param ${k} = {compare.render(st.params[k])}")
        control = text == "executing control query:"
        before = st.snapshot() if st.wants_side_effects and not control else None
        ex = st.run(q)
        if before is not None:
            st.effects = diff(before, st.snapshot())
        if ex.error is not None:
            st.note(f"  error: {describe_error(ex.error, ex.arrived)}")
        st.last = ex
        return
    if text == "the result should be empty":
        ex = _last_ok(st)
        if ex.rows:
            st.note("  expected no rows\n  actual:\n" + _render_rows(ex.rows))
            raise StepFailed(f"expected no rows, got {len(ex.rows)}")
        return
    if text == "no side effects":
        return _check_side_effects(st, [])
    if text == "the side effects should be:":
        if step.table is None:
            raise StepFailed("side effects without a table")
        return _check_side_effects(st, step.table)
    if text.startswith("the result should be"):
        rest = text[len("the result should be") :]
        modes = {
            ", in any order:": (False, False),
            ", in order:": (True, False),
            " (ignoring element order for lists):": (False, True),
            ", in any order (ignoring element order for lists):": (False, True),
            ", in order (ignoring element order for lists):": (True, True),
        }
        if rest not in modes:
            raise StepFailed(f"unsupported step: {text}")
        if step.table is None:
            raise StepFailed("result without a table")
        ordered, ignore_lists = modes[rest]
        return _check_result(st, step.table, ordered, ignore_lists)
    for article in ("a ", "an "):
        if text.startswith(article) and " should be raised at " in text:
            cls, rest = text[len(article) :].split(" should be raised at ", 1)
            phase, colon, detail = rest.partition(":")
            return _check_error(st, cls.strip(), phase.strip(), detail.strip() if colon else "*")
    if text.startswith("there exists a procedure "):
        raise StepFailed("unsupported over Bolt: a procedure cannot be registered from a client")
    if text.startswith("the ") and text.endswith(" graph"):
        return _load_graph(st, text[len("the ") : -len(" graph")])
    raise StepFailed(f"unsupported step: {step.keyword} {text.splitlines()[0] if text else ''}")


def _last_ok(st: _State) -> Exec:
    if st.last is None:
        raise StepFailed("harness: no query was executed before this step")
    if st.last.error is not None:
        raise StepFailed(f"query failed: {describe_error(st.last.error, st.last.arrived)}")
    return st.last


def _render_rows(rows) -> str:
    return "\n".join("    " + compare.render_row(r) for r in rows)


def _check_result(st: _State, table, ordered: bool, ignore_lists: bool):
    if not table:
        raise StepFailed("harness: result table without a header")
    header, body = table[0], table[1:]
    try:
        expected = [[values.parse_value(c) for c in row] for row in body]
    except ValueError as e:
        raise StepFailed(f"harness: cannot parse expected value: {e}") from None
    ex = _last_ok(st)
    expected_text = "\n".join("    | " + " | ".join(r) + " |" for r in table)
    actual_text = "    | " + " | ".join(ex.columns) + " |\n" + _render_rows(ex.rows)
    cmp = compare.Comparer(ignore_lists)

    def fail(reason: str, first: str = ""):
        st.note(f"  expected:\n{expected_text}\n  actual:\n{actual_text}")
        if first:
            st.note(f"  first difference: {first}")
        raise StepFailed(reason + (f" ({first})" if first else ""))

    if ex.columns != header:
        fail(f"columns differ: expected {header!r}, got {ex.columns!r}")
    if any(len(r) != len(ex.columns) for r in ex.rows):
        fail("a row's length differs from the number of columns")
    if not cmp.rows_match(expected, ex.rows, ordered):
        first = cmp.first_difference(expected, ex.rows, ordered)
        if len(expected) != len(ex.rows):
            fail(f"wrong result: expected {len(expected)} rows, got {len(ex.rows)}", first)
        if ordered and cmp.rows_match(expected, ex.rows, False):
            fail("wrong result: right rows in the wrong order", first)
        fail("wrong result: rows differ", first)
    st.out.fallbacks |= cmp.fallbacks


def _stats_effects(c) -> list[int]:
    return [
        c.nodes_created,
        c.nodes_deleted,
        c.relationships_created,
        c.relationships_deleted,
        c.labels_added,
        c.labels_removed,
        c.properties_set,
    ]


def _check_side_effects(st: _State, table):
    want = [0] * len(SIDE_EFFECTS)
    for row in table:
        if len(row) != 2:
            raise StepFailed(f"harness: bad side-effects row {row!r}")
        key, n = row
        if key not in SIDE_EFFECTS:
            raise StepFailed(f"unsupported step: side effect {key}")
        try:
            want[SIDE_EFFECTS.index(key)] = int(n)
        except ValueError:
            raise StepFailed(f"harness: bad side-effect count {n!r}") from None
    ex = _last_ok(st)
    # The wire's counters: properties-set counts removed properties too (Neo4j's convention).
    wire_want = want[:6] + [want[6] + want[7]]
    wire_got = _stats_effects(ex.counters)
    if wire_got != wire_want:
        st.out.stats_disagree = True
    if st.from_stats:
        names = list(SIDE_EFFECTS[:6]) + ["+properties plus -properties (properties-set)"]
        pairs = zip(names, wire_want, wire_got)
    else:
        if st.effects is None:
            raise StepFailed("harness: no graph snapshot around the query")
        pairs = zip(SIDE_EFFECTS, want, st.effects)
    diffs = [f"{k} expected {w} got {g}" for k, w, g in pairs if w != g]
    if diffs:
        st.note(f"  summary counters: {ex.counters}")
        raise StepFailed("side effects differ: " + ", ".join(diffs))


def _check_error(st: _State, cls: str, phase: str, detail: str):
    if phase not in ("compile time", "runtime", "any time"):
        raise StepFailed(f"unsupported step: error phase {phase!r}")
    expected = f"{cls} at {phase}: {detail}"
    if st.last is None:
        raise StepFailed("harness: no query was executed before this step")
    ex = st.last
    if ex.error is None:
        st.note(f"  expected error: {expected}\n  actual rows:\n{_render_rows(ex.rows)}")
        raise StepFailed(f"expected {expected}, but the query succeeded")
    got = describe_error(ex.error, ex.arrived)
    if error_class(ex.error) != cls:
        st.note(f"  expected error: {expected}")
        raise StepFailed(f"expected {expected}, got {got}")
    st.out.error_checks.append(ErrorCheck(cls, phase, detail, ex.error.code or "", ex.arrived, ex.error.message or ""))


def _load_graph(st: _State, name: str):
    """A named graph's create script (``graphs/<name>/<name>.cypher``; statements split at a
    ``;`` that ends a line)."""
    path = st.graphs_dir / name / f"{name}.cypher"
    try:
        script = path.read_text()
    except OSError as e:
        raise StepFailed(f"unsupported step: graph {name} ({path}: {e})") from None
    statements, cur = [], []
    for line in script.split("\n"):
        t = line.rstrip()
        if t.endswith(";"):
            cur.append(t[:-1])
            statements.append("".join(cur))
            cur = []
        else:
            cur.append(t + "\n")
    statements.append("".join(cur))
    for s in statements:
        if s.strip():
            ex = st.run(s)
            if ex.error is not None:
                raise StepFailed(f"setup: graph {name} failed to load: {describe_error(ex.error, ex.arrived)}")
