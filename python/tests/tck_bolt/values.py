"""The TCK's notation for expected values and parameters, ported from the embedded runner's
(crates/hopdb-cypher/tests/tck/values.rs): ``null``, ``true``, integers, floats (``1.0``,
``1e-305``, ``NaN``, ``Infinity``, ``-Infinity``), strings in single quotes (``\\'`` and ``\\\\``
escapes), lists, maps (```weird key```), nodes ``(:A:B {name: 'x'})``, relationships
``[:T {k: 1}]`` and paths ``<(:A)-[:T]->(:B)<-[:U]-()>``.

Expected values are Python values: ``None``, ``bool``, ``int``, :class:`EFloat` (the value and
the text it was written as), ``str``, ``list``, ``dict`` (insertion-ordered, keys unique),
:class:`ENode`, :class:`ERel` and :class:`EPath`."""

from __future__ import annotations

import dataclasses
import math

I64_MIN, I64_MAX = -(2**63), 2**63 - 1


@dataclasses.dataclass(frozen=True)
class EFloat:
    value: float
    text: str


@dataclasses.dataclass
class ENode:
    labels: list[str]
    props: dict


@dataclasses.dataclass
class ERel:
    type: str
    props: dict


@dataclasses.dataclass
class EPath:
    start: ENode
    steps: list[tuple[ERel, bool, ENode]]  # (relationship, forwards?, next node)


class TckValueError(ValueError):
    pass


def parse_value(text: str):
    """One value; the whole text must be consumed (surrounding whitespace allowed)."""
    p = _Parser(text)
    v = p.value()
    p.ws()
    if p.pos != len(text):
        raise TckValueError(f"trailing text at {p.pos} in {text!r}")
    return v


def to_param(e):
    """An expected value as a query parameter (nodes, relationships and paths cannot be one)."""
    if isinstance(e, EFloat):
        return e.value
    if isinstance(e, list):
        return [to_param(x) for x in e]
    if isinstance(e, dict):
        return {k: to_param(v) for k, v in e.items()}
    if isinstance(e, (ENode, ERel, EPath)):
        raise TckValueError("a node, relationship or path cannot be a parameter")
    return e


def _is_ident_char(c: str) -> bool:
    return c.isalnum() or c in "_$"


class _Parser:
    def __init__(self, text: str):
        self.s = text
        self.pos = 0

    def err(self, what: str):
        raise TckValueError(f"{what} at {self.pos} in {self.s!r}")

    def peek(self):
        return self.s[self.pos] if self.pos < len(self.s) else None

    def ws(self):
        while self.pos < len(self.s) and self.s[self.pos] in " \t\n\r":
            self.pos += 1

    def eat(self, lit: str) -> bool:
        if self.s.startswith(lit, self.pos):
            self.pos += len(lit)
            return True
        return False

    def expect(self, lit: str):
        self.ws()
        if not self.eat(lit):
            self.err(f"expected {lit!r}")

    def keyword(self, word: str) -> bool:
        end = self.pos + len(word)
        if self.s.startswith(word, self.pos) and not (
            end < len(self.s) and (self.s[end].isascii() and (self.s[end].isalnum() or self.s[end] == "_"))
        ):
            self.pos = end
            return True
        return False

    def value(self):
        self.ws()
        c = self.peek()
        if c is None:
            self.err("expected a value")
        if c in "'\"":
            return self.string()
        if c == "{":
            return self.map()
        if c == "(":
            return self.node()
        if c == "<":
            return self.path()
        if c == "[":
            save = self.pos
            self.pos += 1
            self.ws()
            is_rel = self.peek() == ":"
            self.pos = save
            return self.rel() if is_rel else self.list()
        if self.keyword("null"):
            return None
        if self.keyword("true"):
            return True
        if self.keyword("false"):
            return False
        if self.keyword("NaN"):
            return EFloat(math.nan, "NaN")
        if self.keyword("Infinity") or self.keyword("Inf"):
            return EFloat(math.inf, "Infinity")
        if self.keyword("-Infinity") or self.keyword("-Inf"):
            return EFloat(-math.inf, "-Infinity")
        return self.number()

    def number(self):
        start = self.pos
        if self.peek() in ("-", "+"):
            self.pos += 1
        is_float = False
        while self.pos < len(self.s):
            c = self.s[self.pos]
            if "0" <= c <= "9":
                pass
            elif c == ".":
                is_float = True
            elif c in "eE":
                is_float = True
                if self.pos + 1 < len(self.s) and self.s[self.pos + 1] in "-+":
                    self.pos += 1
            else:
                break
            self.pos += 1
        t = self.s[start : self.pos]
        if t in ("", "-", "+"):
            self.pos = start
            self.err("expected a value")
        if is_float:
            try:
                return EFloat(float(t), t)
            except ValueError:
                self.err(f"bad float {t!r}")
        try:
            i = int(t)
        except ValueError:
            self.err(f"bad integer {t!r}")
        if not I64_MIN <= i <= I64_MAX:
            self.err(f"bad integer {t!r}")
        return i

    def string(self) -> str:
        q = self.peek()
        self.pos += 1
        out = []
        while True:
            c = self.peek()
            if c is None:
                self.err("unterminated string")
            if c == q:
                self.pos += 1
                return "".join(out)
            if c == "\\":
                n = self.s[self.pos + 1] if self.pos + 1 < len(self.s) else None
                if n == "\\" or n == q:
                    out.append(n)
                    self.pos += 2
                else:
                    out.append("\\")  # any other escape stays as written
                    self.pos += 1
                continue
            out.append(c)
            self.pos += 1

    def ident(self) -> str:
        self.ws()
        if self.peek() == "`":
            self.pos += 1
            out = []
            while True:
                c = self.peek()
                if c is None:
                    self.err("unterminated `name`")
                if c == "`":
                    if self.s.startswith("``", self.pos):
                        out.append("`")
                        self.pos += 2
                        continue
                    self.pos += 1
                    return "".join(out)
                out.append(c)
                self.pos += 1
        start = self.pos
        while self.pos < len(self.s) and _is_ident_char(self.s[self.pos]):
            self.pos += 1
        if self.pos == start:
            self.err("expected a name")
        return self.s[start : self.pos]

    def list(self):
        self.expect("[")
        items = []
        self.ws()
        if self.eat("]"):
            return items
        while True:
            items.append(self.value())
            self.ws()
            if self.eat(","):
                continue
            self.expect("]")
            return items

    def map(self) -> dict:
        self.expect("{")
        entries: dict = {}
        self.ws()
        if self.eat("}"):
            return entries
        while True:
            self.ws()
            key = self.string() if self.peek() in ("'", '"') else self.ident()
            self.expect(":")
            v = self.value()
            if key in entries:
                self.err(f"duplicate key {key!r}")
            entries[key] = v
            self.ws()
            if self.eat(","):
                continue
            self.expect("}")
            return entries

    def node(self) -> ENode:
        self.expect("(")
        labels = []
        while True:
            self.ws()
            if self.eat(":"):
                labels.append(self.ident())
            else:
                break
        self.ws()
        props = self.map() if self.peek() == "{" else {}
        self.expect(")")
        return ENode(labels, props)

    def rel(self) -> ERel:
        self.expect("[")
        self.expect(":")
        ty = self.ident()
        self.ws()
        props = self.map() if self.peek() == "{" else {}
        self.expect("]")
        return ERel(ty, props)

    def path(self) -> EPath:
        self.expect("<")
        start = self.node()
        steps = []
        while True:
            self.ws()
            if self.eat(">"):
                return EPath(start, steps)
            if self.eat("<-"):
                forwards = False
            elif self.eat("-"):
                forwards = True
            else:
                self.err("expected a relationship or '>' in a path")
            rel = self.rel()
            self.expect("->" if forwards else "-")
            steps.append((rel, forwards, self.node()))
