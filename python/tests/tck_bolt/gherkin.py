"""A small Gherkin reader, enough for the openCypher TCK's feature files, ported from the embedded
runner's (crates/hopdb-cypher/tests/tck/gherkin.rs) so both runs see the same scenarios under the
same ids: ``Feature``, ``Background``, ``Scenario``, ``Scenario Outline`` with ``Examples``
(placeholders substituted), tags, comments, steps with doc strings and data tables."""

from __future__ import annotations

import dataclasses

STEP_KEYWORDS = ("Given", "When", "Then", "And", "But", "*")


@dataclasses.dataclass
class Step:
    keyword: str
    text: str
    doc: str | None = None
    table: list[list[str]] | None = None
    line: int = 0


@dataclasses.dataclass
class Scenario:
    name: str
    tags: list[str]
    steps: list[Step]
    line: int
    example: int | None = None  # 1-based example row index of an outline instance


@dataclasses.dataclass
class Feature:
    name: str
    scenarios: list[Scenario]


@dataclasses.dataclass
class _Raw:
    name: str
    tags: list[str]
    line: int
    outline: bool
    steps: list[Step] = dataclasses.field(default_factory=list)
    examples: list[tuple[list[str], list[str], list[list[str]]]] = dataclasses.field(default_factory=list)


class GherkinError(ValueError):
    pass


def _lines(text: str) -> list[str]:
    # As Rust's str::lines: split at \n, drop one trailing \r, no empty last line.
    parts = text.split("\n")
    if parts and parts[-1] == "":
        parts.pop()
    return [p[:-1] if p.endswith("\r") else p for p in parts]


def parse(text: str) -> Feature:
    lines = _lines(text)
    name = ""
    background: list[Step] = []
    raw: list[_Raw] = []
    pending_tags: list[str] = []
    section = None  # None, "background", "scenario", "examples"
    i = 0
    while i < len(lines):
        line_no = i + 1
        t = lines[i].strip()
        i += 1
        if not t or t.startswith("#"):
            continue
        if t.startswith("@"):
            pending_tags.extend(w[1:] for w in t.split() if w.startswith("@"))
            continue
        if t.startswith("Feature:"):
            name = t[len("Feature:") :].strip()
            pending_tags.clear()
            section = None
            continue
        if t.startswith("Background:"):
            section = "background"
            pending_tags.clear()
            continue
        outline = None
        for kw in ("Scenario Outline:", "Scenario Template:"):
            if t.startswith(kw):
                outline = t[len(kw) :]
                break
        plain = None
        if outline is None:
            for kw in ("Scenario:", "Example:"):
                if t.startswith(kw):
                    plain = t[len(kw) :]
                    break
        if outline is not None or plain is not None:
            rest = outline if outline is not None else plain
            raw.append(_Raw(name=rest.strip(), tags=pending_tags, line=line_no, outline=outline is not None))
            pending_tags = []
            section = "scenario"
            continue
        if t.startswith("Examples:") or t.startswith("Scenarios:"):
            if not raw:
                raise GherkinError(f"line {line_no}: Examples outside a scenario outline")
            header = None
            rows: list[list[str]] = []
            while i < len(lines):
                u = lines[i].strip()
                if not u or u.startswith("#"):
                    i += 1
                    continue
                if not u.startswith("|"):
                    break
                cells = split_row(u)
                if header is None:
                    header = cells
                else:
                    rows.append(cells)
                i += 1
            raw[-1].examples.append((pending_tags, header or [], rows))
            pending_tags = []
            section = "examples"
            continue
        keyword = next((k for k in STEP_KEYWORDS if t.startswith(k) and t[len(k) :].startswith(" ")), None)
        if keyword is None:
            raise GherkinError(f"line {line_no}: cannot parse {t!r}")
        step = Step(keyword=keyword, text=t[len(keyword) :].strip(), line=line_no)
        while i < len(lines) and lines[i].strip().startswith("#"):
            i += 1
        if i < len(lines):
            u = lines[i]
            ut = u.lstrip()
            if ut.startswith('"""') or ut.startswith("```"):
                fence = ut[:3]
                indent = len(u) - len(ut)
                i += 1
                body = []
                while True:
                    if i >= len(lines):
                        raise GherkinError(f"line {line_no}: unterminated doc string")
                    ln = lines[i]
                    i += 1
                    if ln.strip() == fence:
                        break
                    lead = len(ln) - len(ln.lstrip())
                    body.append(ln[min(lead, indent) :])
                step.doc = "\n".join(body)
            elif ut.startswith("|"):
                table = []
                while i < len(lines):
                    ln = lines[i].strip()
                    if ln.startswith("#"):
                        i += 1
                        continue
                    if not ln.startswith("|"):
                        break
                    table.append(split_row(ln))
                    i += 1
                step.table = table
        if section == "background":
            background.append(step)
        elif section == "scenario":
            if raw:
                raw[-1].steps.append(step)
        else:
            raise GherkinError(f"line {line_no}: step outside a scenario: {t!r}")

    scenarios = []
    for sc in raw:
        if not sc.outline:
            scenarios.append(Scenario(sc.name, sc.tags, background + sc.steps, sc.line, None))
            continue
        index = 0
        for tags, header, rows in sc.examples:
            for row in rows:
                index += 1

                def subst(s, header=header, row=row):
                    for h, v in zip(header, row):
                        s = s.replace(f"<{h}>", v)
                    return s

                steps = [
                    Step(
                        keyword=st.keyword,
                        text=subst(st.text),
                        doc=None if st.doc is None else subst(st.doc),
                        table=None if st.table is None else [[subst(c) for c in r] for r in st.table],
                        line=st.line,
                    )
                    for st in sc.steps
                ]
                scenarios.append(Scenario(subst(sc.name), sc.tags + tags, background + steps, sc.line, index))
    return Feature(name, scenarios)


def split_row(line: str) -> list[str]:
    """``| a | b\\|c |`` -> trimmed, unescaped cells (``\\|`` a bar, ``\\\\`` a backslash, ``\\n`` a
    newline; any other backslash kept); text after the last bar is not a cell."""
    line = line.strip()
    body = line[1:] if line.startswith("|") else line
    cells = []
    cur = []
    it = iter(body)
    for c in it:
        if c == "\\":
            cur.append("\\")
            n = next(it, None)
            if n is not None:
                cur.append(n)
        elif c == "|":
            cells.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    return [_unescape_cell(c.strip()) for c in cells]


def _unescape_cell(s: str) -> str:
    out = []
    it = iter(s)
    for c in it:
        if c != "\\":
            out.append(c)
            continue
        n = next(it, None)
        if n == "|":
            out.append("|")
        elif n == "\\":
            out.append("\\")
        elif n == "n":
            out.append("\n")
        elif n is None:
            out.append("\\")
        else:
            out.append("\\" + n)
    return "".join(out)


def scenario_id(feature_rel: str, sc: Scenario) -> str:
    """``<feature path>:<name>`` or ``...#<example>``, as tests/tck.rs names scenarios."""
    if sc.example is not None:
        return f"{feature_rel}:{sc.name}#{sc.example}"
    return f"{feature_rel}:{sc.name}"
