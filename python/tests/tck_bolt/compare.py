"""Comparing the values the driver returns to the TCK's expectations, as the embedded runner's
crates/hopdb-cypher/tests/tck/compare.rs does, and printing actual values in the TCK's notation.

Actual values are what ``neo4j`` 6.x gives: ``None``, ``bool``, ``int``, ``float``, ``str``,
``list``, ``dict``, ``neo4j.graph.Node`` / ``Relationship`` / ``Path``, and temporal values as
:class:`~.wire.WireTemporal` (the driver's ``neo4j.time`` value and the Bolt structure's fields).
Temporal values are written in the TCK as their string form: a value matches when the driver's
value prints as the expected text or, failing that, when the structure's fields do (the driver
cannot show some values exactly; see wire.py). The second case is recorded in
:attr:`Comparer.fallbacks`."""

from __future__ import annotations

import math

from neo4j.graph import Node, Path, Relationship

from . import wire
from .values import EFloat, ENode, EPath, ERel


def float_matches(e: float, text: str, a: float) -> bool:
    """NaN matches NaN; otherwise equal, or equal once the actual value is rounded to the number of
    significant digits the TCK printed (when it printed fewer than 15)."""
    if math.isnan(e) or math.isnan(a):
        return math.isnan(e) and math.isnan(a)
    if e == a:
        return True
    if not (math.isfinite(e) and math.isfinite(a)):
        return False
    digits = _significant_digits(text)
    if digits == 0 or digits >= 15:
        return False
    return f"{a:.{digits - 1}e}" == f"{e:.{digits - 1}e}"


def _significant_digits(text: str) -> int:
    mantissa = text.replace("E", "e").split("e")[0]
    digits = "".join(c for c in mantissa if c.isdigit()).lstrip("0")
    return len(digits)


def multiset_match(e, a, m) -> bool:
    """Whether there is a one-to-one pairing of ``e`` and ``a`` under ``m`` (bipartite matching by
    augmenting paths, so a non-transitive ``m`` is no problem)."""
    if len(e) != len(a):
        return False
    adj = [[j for j in range(len(a)) if m(ev, a[j])] for ev in e]
    if any(not row for row in adj):
        return False
    owner: list[int | None] = [None] * len(a)

    def augment(i, seen):
        for j in adj[i]:
            if seen[j]:
                continue
            seen[j] = True
            if owner[j] is None or augment(owner[j], seen):
                owner[j] = i
                return True
        return False

    for i in range(len(e)):
        free = next((j for j in adj[i] if owner[j] is None), None)
        if free is not None:
            owner[free] = i
            continue
        if not augment(i, [False] * len(a)):
            return False
    return True


class Comparer:
    """Matching with a list order mode (``ignore_lists``: lists are multisets at every depth)."""

    def __init__(self, ignore_lists: bool = False):
        self.ignore_lists = ignore_lists
        #: Temporal values matched by their Bolt fields only: (expected text, driver's text or error).
        self.fallbacks: set[tuple[str, str]] = set()

    def matches(self, e, a) -> bool:
        if e is None:
            return a is None
        if isinstance(e, bool):
            return type(a) is bool and a == e
        if isinstance(e, int):
            return type(a) is int and a == e
        if isinstance(e, EFloat):
            return type(a) is float and float_matches(e.value, e.text, a)
        if isinstance(e, str):
            if type(a) is str:
                return a == e
            if isinstance(a, wire.WireTemporal):
                return self._temporal(e, a)
            if wire.is_temporal_driver_value(a):
                return self._temporal(e, wire.WireTemporal(None, None, a))
            return False
        if isinstance(e, list):
            return type(a) is list and self._list(e, a)
        if isinstance(e, dict):
            return type(a) is dict and self._props(e, a)
        if isinstance(e, ENode):
            return isinstance(a, Node) and self._node(e, a)
        if isinstance(e, ERel):
            return isinstance(a, Relationship) and self._rel(e, a)
        if isinstance(e, EPath):
            return isinstance(a, Path) and self._path(e, a)
        return False

    def _temporal(self, e: str, a: wire.WireTemporal) -> bool:
        d = wire.driver_string(a)
        if d == e:
            return True
        if wire.raw_string(a, wire.zone_offset_hint(e)) == e:
            self.fallbacks.add((e, d if d is not None else f"driver failed: {a.error!r}"))
            return True
        return False

    def _props(self, e: dict, a: dict) -> bool:
        return len(e) == len(a) and all(k in a and self.matches(v, a[k]) for k, v in e.items())

    def _node(self, e: ENode, a: Node) -> bool:
        return set(e.labels) == set(a.labels) and self._props(e.props, dict(a.items()))

    def _rel(self, e: ERel, a: Relationship) -> bool:
        return e.type == a.type and self._props(e.props, dict(a.items()))

    def _path(self, e: EPath, a: Path) -> bool:
        nodes, rels = a.nodes, a.relationships
        if len(nodes) != len(e.steps) + 1 or len(rels) != len(e.steps):
            return False
        if not self._node(e.start, nodes[0]):
            return False
        for i, (er, forwards, en) in enumerate(e.steps):
            frm, to, r = nodes[i], nodes[i + 1], rels[i]
            start, end = r.start_node.element_id, r.end_node.element_id
            if forwards:
                ok = start == frm.element_id and end == to.element_id
            else:
                ok = start == to.element_id and end == frm.element_id
            if not (ok and self._rel(er, r) and self._node(en, to)):
                return False
        return True

    def _list(self, e: list, a: list) -> bool:
        if len(e) != len(a):
            return False
        if self.ignore_lists:
            return multiset_match(e, a, self.matches)
        return all(self.matches(x, y) for x, y in zip(e, a))

    def row_matches(self, e: list, a: list) -> bool:
        return len(e) == len(a) and all(self.matches(x, y) for x, y in zip(e, a))

    def rows_match(self, e: list, a: list, ordered: bool) -> bool:
        if len(e) != len(a):
            return False
        if ordered:
            return all(self.row_matches(x, y) for x, y in zip(e, a))
        return multiset_match(e, a, self.row_matches)

    def first_difference(self, e: list, a: list, ordered: bool) -> str:
        """The first expected row without a partner and the first actual row without one."""
        if ordered:
            for i, (x, y) in enumerate(zip(e, a)):
                if not self.row_matches(x, y):
                    return f"row {i + 1}: expected {render_expected_row(x)}, got {render_row(y)}"
            if len(e) != len(a):
                return f"expected {len(e)} rows, got {len(a)}"
            return ""
        missing = next((x for x in e if not any(self.row_matches(x, y) for y in a)), None)
        extra = next((y for y in a if not any(self.row_matches(x, y) for x in e)), None)
        parts = []
        if missing is not None:
            parts.append(f"expected row not returned: {render_expected_row(missing)}")
        if extra is not None:
            parts.append(f"unexpected row: {render_row(extra)}")
        if not parts:
            parts.append(f"expected {len(e)} rows, got {len(a)} (multiplicities differ)")
        return "; ".join(parts)


# ---- printing --------------------------------------------------------------------------------


def render_float(f: float) -> str:
    if math.isnan(f):
        return "NaN"
    if math.isinf(f):
        return "Infinity" if f > 0 else "-Infinity"
    s = repr(f)
    return s if any(c in s for c in ".eE") else s + ".0"


def _render_string(s: str) -> str:
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n") + "'"


def _render_key(k: str) -> str:
    if k and all(c.isalnum() or c == "_" for c in k) and not ("0" <= k[0] <= "9"):
        return k
    return "`" + k.replace("`", "``") + "`"


def _render_map(m) -> str:
    return "{" + ", ".join(f"{_render_key(k)}: {render(v)}" for k, v in m.items()) + "}"


def _render_node(n: Node) -> str:
    labels = "".join(":" + _render_key(lb) for lb in sorted(n.labels))
    props = dict(n.items())
    sep = " " if labels and props else ""
    return f"({labels}{sep}{_render_map(props) if props else ''})"


def _render_rel(r) -> str:
    props = dict(r.items())
    return f"[:{_render_key(r.type)}{' ' + _render_map(props) if props else ''}]"


def render(v) -> str:
    """An actual value in the TCK's notation."""
    if v is None:
        return "null"
    if type(v) is bool:
        return "true" if v else "false"
    if type(v) is int:
        return str(v)
    if type(v) is float:
        return render_float(v)
    if type(v) is str:
        return _render_string(v)
    if isinstance(v, list):
        return "[" + ", ".join(render(x) for x in v) + "]"
    if isinstance(v, dict):
        return _render_map(v)
    if isinstance(v, Node):
        return _render_node(v)
    if isinstance(v, Relationship):
        return _render_rel(v)
    if isinstance(v, Path):
        out = "<" + (_render_node(v.start_node) if v.nodes else "")
        for i, r in enumerate(v.relationships):
            frm, to = v.nodes[i], v.nodes[i + 1]
            backwards = r.start_node.element_id != frm.element_id and r.start_node.element_id == to.element_id
            out += ("<-" if backwards else "-") + _render_rel(r) + ("-" if backwards else "->") + _render_node(to)
        return out + ">"
    if isinstance(v, wire.WireTemporal):
        return _render_string(wire.canonical(v))
    if wire.is_temporal_driver_value(v):
        return _render_string(wire.canonical(wire.WireTemporal(None, None, v)))
    return f"<{type(v).__name__}: {v!r}>"


def render_row(row) -> str:
    return "| " + " | ".join(render(x) for x in row) + " |"


def render_expected(e) -> str:
    if e is None:
        return "null"
    if isinstance(e, bool):
        return "true" if e else "false"
    if isinstance(e, int):
        return str(e)
    if isinstance(e, EFloat):
        return e.text
    if isinstance(e, str):
        return _render_string(e)
    if isinstance(e, list):
        return "[" + ", ".join(render_expected(x) for x in e) + "]"
    if isinstance(e, dict):
        return "{" + ", ".join(f"{_render_key(k)}: {render_expected(v)}" for k, v in e.items()) + "}"
    if isinstance(e, ENode):
        labels = "".join(":" + _render_key(lb) for lb in e.labels)
        sep = " " if labels and e.props else ""
        return f"({labels}{sep}{render_expected(e.props) if e.props else ''})"
    if isinstance(e, ERel):
        return f"[:{_render_key(e.type)}{' ' + render_expected(e.props) if e.props else ''}]"
    if isinstance(e, EPath):
        out = "<" + render_expected(e.start)
        for r, fwd, n in e.steps:
            out += ("-" if fwd else "<-") + render_expected(r) + ("->" if fwd else "-") + render_expected(n)
        return out + ">"
    return repr(e)


def render_expected_row(row) -> str:
    return "| " + " | ".join(render_expected(x) for x in row) + " |"
