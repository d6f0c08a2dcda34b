"""``hopdb import`` against the real ``neo4j-admin database import full`` of Neo4j 5.26 on the same
neo4j-admin CSV files and options: the same graph (or, where HopDB deliberately differs, exactly the
documented difference), and ``hopdb export`` files that neo4j-admin loads into the same graph.

neo4j-admin runs through neo4j_admin.py (its docstring lists what neo4j-admin was seen to do; each
test's docstring repeats the part it relies on). HopDB runs as a script would run it::

    hopdb import STORE --nodes=... --relationships=... <neo4j-admin's options> --json --quiet

and its store is read back with the Python API (``hopdb.Graph(store, read_only=True)``, Cypher for
labels, properties and their types, the native edge calls for weights) into the dump's JSON shape,
so neo4j_admin.canonical() compares the two. Values are normalised on both sides (normalise()):
temporal values to one ISO text (seconds always, the fraction without trailing zeros, "Z" for a
zero offset, the zone in brackets; a duration as months, days and seconds, which is how Neo4j
keeps it), HopDB's points (hopdb.Point) to the dump's points; a long and a double
stay distinct. HopDB's temporal values are read twice, as the Python object (datetime, zoneinfo,
timedelta, or the ISO string HopDB gives where Python cannot hold the value) and as Cypher's
toString(); the two must agree.

neo4j-admin costs about 9 s a run (4 s when it rejects the files), so the cases share runs: every
case has its own labels, relationship types and id spaces (case N's are named CN...), a run
imports the files of every case that takes its options, and a test compares HopDB's import of its
own case's files with the part of neo4j-admin's graph that has its labels and types. Each run is
made once, by the first test that needs it (RUNS lists them): about 2 minutes in all.

Two tests are expected failures that name what they found: test_1b (neo4j-admin reads a short row
ending with a delimiter on into the next line; HopDB does not: not yet a documented difference)
and test_5b (a HopDB bug: ``\\\\`` inside quotes with --legacy-style-quoting=true).

Skipped, saying why, without java / javac / mvn (neo4j_admin.unavailable_reason()), without the
hopdb binary or without the hopdb Python package."""

from __future__ import annotations

import base64
import copy
import json
import math
import os
import pathlib
import re
import subprocess
import sys
import zoneinfo
from datetime import date, datetime, time, timedelta, timezone
from decimal import Decimal
from typing import Any, Optional

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import neo4j_admin  # noqa: E402
import neo4j_reference  # noqa: E402

HOPDB = neo4j_reference.hopdb_binary()


def _unavailable() -> Optional[str]:
    reason = neo4j_admin.unavailable_reason()
    if reason:
        return reason
    if HOPDB is None:
        return "the hopdb binary is not built: run `cargo build --release -p hopdb-cli` (looked for $CARGO_TARGET_DIR/release/hopdb)"
    try:
        import hopdb  # noqa: F401
    except ImportError:
        return "the hopdb Python package is not installed (maturin develop in python/)"
    return None


pytestmark = pytest.mark.skipif(_unavailable() is not None, reason=str(_unavailable()))

# neo4j-admin options a script passes that change nothing in the graph (case 8).
NEO4J_ONLY_OPTIONS = ["--normalize-types=true", "--read-buffer-size=4m", "--threads=2", "--high-parallel-io=off", "--max-off-heap-memory=256m"]
LENIENT_OPTIONS = ["--ignore-extra-columns=true", "--multiline-fields=true", "--legacy-style-quoting=true"]


def _csv(*lines: str) -> str:
    return "\n".join(lines) + "\n"


def _columns(columns: list[tuple[str, list[str]]]) -> str:
    """A CSV file from its columns: (header field, the field of each row)."""
    rows = zip(*(fields for _, fields in columns))
    return _csv(",".join(h for h, _ in columns), *(",".join(r) for r in rows))


_3D = "\"{latitude:37.55, longitude:-122.31, height:100, crs:'WGS-84-3D'}\""
# 7. Temporal values and points: a column and its field in rows t1..t5.
C7_COLUMNS = [
    (":ID(C7)", ["t1", "t2", "t3", "t4", "t5"]),
    ("d:date", ["2020-02-29", "1999-12-31", "0001-01-01", "", ""]),
    ("lt:localtime", ["12:30", "23:59:59.123456789", "00:00", "", ""]),
    ("t:time{timezone:+02:00}", ["12:30", "08:15:30.5-05:00", "00:00:00Z", "", ""]),
    ("tu:time", ["10:00", "10:00+01:00", "", "", ""]),
    ("ldt:localdatetime", ["2020-02-29T12:30", "2020-02-29T12:30:15.000000001", "2020-03-29T02:30", "", ""]),
    (
        "dt:datetime{timezone:Europe/Stockholm}",
        # the header's zone; an own offset; a gap (DST starts); an own zone at an ambiguous time; another zone
        ["2020-02-29T12:30", "2020-07-01T12:30+05:00", "2020-03-29T02:30", "2020-10-25T02:30[Europe/Stockholm]",
         "2021-01-01T00:00:00.123456789[America/New_York]"],
    ),
    ("dur:duration", ["P1Y2M", "PT36H", "PT0.5S", "P2W", "PT1.000000001S"]),
    ("da:date[]", ["2020-01-01;2021-12-31", "", "", "", ""]),
    ("dta:datetime[]{timezone:Europe/Stockholm}", ["2020-06-01T10:00;2020-12-01T10:00[Europe/London]", "2020-06-01T10:00Z", "", "", ""]),
    ("dura:duration[]", ["P1D;PT36H", "P1DT12H", "-PT1S", "P1Y;PT1M", ""]),
    ("lta:localtime[]", ["12:00;13:00:01.5", "", "", "", ""]),
    ("ta:time[]{timezone:+02:00}", ["12:30;13:00+05:00", "", "", "", ""]),
    ("ldta:localdatetime[]", ["2020-01-01T00:00;2020-01-02T12:00:00.5", "", "", "", ""]),
    ("p:point{crs:WGS-84}", ['"{latitude:55.6, longitude:12.9}"', '"{x:-0.1, y:51.5}"', _3D, "", ""]),
    ("p3:point{crs:WGS-84-3D}", ['"{latitude:55.6, longitude:12.9, height:10}"', '"{x:-0.1, y:51.5, z:-3.5}"', "", "", ""]),
    ("pc:point{crs:cartesian}", ['"{x:1, y:2}"', '"{x:-1.5, y:0}"', "", "", ""]),
    ("pc3:point{crs:cartesian-3D}", ['"{x:1, y:2, z:3}"', '"{x:0, y:0, z:0}"', "", "", ""]),
    ("pn:point", ['"{x:1.5, y:-2}"', _3D, "", "", ""]),
    ("pa:point[]{crs:WGS-84}", ['"{latitude:1, longitude:2};{latitude:3, longitude:4}"', "", "", "", ""]),
]


# ---- the cases' files ---------------------------------------------------------------------------
# Trailing blanks are written as \x20 (they matter, and lint strips nothing inside strings, but
# editors do).

FILES = {
    # 1. Rows with fewer fields than the header; rows with more.
    "c1_nodes.csv": _csv(
        ":ID(C1),name,age:int,tags:string[],score:float",
        "a,Ann,30,x;y,1.5",
        "b,Bob,31",
        "c,Cid,,z",
        "d",
        "e,Eve,,,2.5",
    ),
    # A short row ending with a delimiter: neo4j-admin goes on reading its fields on the next line.
    "c1_trailing.csv": _csv(
        "id:ID(C1T),name,age:int,note,more",
        "t1,Tee,",
        "t2",
        "t3,Three,3,last",
    ),
    "c1_rels.csv": _csv(
        ":START_ID(C1),:END_ID(C1),:TYPE,w:int,note",
        "a,b,C1_R,1,n",
        "b,c,C1_R,2",
        "c,d,C1_R",
    ),
    "c1x_nodes.csv": _csv(
        ":ID(C1X),name",
        "x1,X",
        "x2,Y,surplus",
        "x3",
    ),
    "c1x_rels.csv": _csv(
        ":START_ID(C1X),:END_ID(C1X),:TYPE,w:int",
        "x1,x2,C1X_R,1,surplus,more",
        "x2,x3,C1X_R",
    ),
    # 2. Id spaces: "x" and "p1" in three groups; relationships naming groups.
    "c2_people.csv": _csv(
        "pid:ID(C2_People),name",
        "p1,Ann",
        "x,Xavier",
    ),
    "c2_companies.csv": _csv(
        ":ID(C2_Companies),name",
        "x,Acme",
        "p1,Globex",
    ),
    "c2_cities.csv": _csv(
        "cid:ID(C2_Cities),name",
        "x,Xtown",
    ),
    "c2_works.csv": _csv(
        ":START_ID(C2_People),:END_ID(C2_Companies),:TYPE,since:int",
        "p1,x,C2_WORKS_AT,2001",
        "x,p1,C2_WORKS_AT,2002",
    ),
    "c2_located.csv": _csv(
        ":START_ID(C2_Companies),:END_ID(C2_Cities),:TYPE",
        "x,x,C2_LOCATED_IN",
        "p1,x,C2_LOCATED_IN",
    ),
    "c2_knows.csv": _csv(
        ":START_ID(C2_People),:END_ID(C2_People),:TYPE",
        "x,p1,C2_KNOWS",
    ),
    # 3. Node files without an :ID column beside one with ids (the global id space: only case 3
    # uses it).
    "c3_anon.csv": _csv(
        "name,n:int",
        "anon,1",
        "anon,1",
        "other,",
    ),
    "c3_anon_labelled.csv": _csv(
        ":LABEL,name",
        "C3_Extra,z",
        ",z",
    ),
    "c3_known.csv": _csv(
        "id:ID,name",
        "g1,G1",
        "g2,G2",
    ),
    "c3_rels.csv": _csv(
        ":START_ID,:END_ID,:TYPE",
        "g1,g2,C3_R",
        "g2,g1,C3_R",
    ),
    # 4. Quoted fields holding line breaks (the first on line 3).
    "c4_nodes.csv": _csv(
        ":ID(C4),text,n:int",
        "m0,plain,0",
        'm1,"line one',
        'line two",1',
        'm2,"a ""quoted"" line',
        "and, a comma",
        '",2',
        "m3,after,3",
    ),
    "c4_rels.csv": _csv(
        ":START_ID(C4),:END_ID(C4),:TYPE,note",
        'm0,m1,C4_R,"two',
        'lines"',
        "m1,m3,C4_R,one line",
    ),
    # 5. "" and empty fields; blanks around values; quotes inside quotes.
    "c5_nodes.csv": _csv(
        ":ID(C5),s:string,i:int,sl:string[],f:float,d:date,u",
        'e1,"","","","","",""',
        "e2,,,,,,",
        'e3," padded ", 7 ,  x ; y ,1.5 ,2020-01-01, raw\x20',
        "e4,  spaced  ,8,a;;b,2.5,, inner  space\x20",
        'e5,"say ""hi""",9,;,,,"  "',
        'e6,"a,b",10,"p;q",,,"tab\tinside"',
        'e7,x,,"",,,',
    ),
    "c5_legacy.csv": _csv(
        ":ID(C5L),s,n:int",
        'l1,"say \\"hi\\"",1',
        'l2,"doubled ""too""",2',
        "l3,plain \\ backslash,3",
        'l4,"ends with \\"",4',
        'l5,"new\\nline",5',
    ),
    # Backslashes escaped by a backslash inside quotes (--legacy-style-quoting=true).
    "c5_legacy_backslash.csv": _csv(
        ":ID(C5B),s,n:int",
        'b1,"back\\\\slash",1',
        'b2,"three\\\\\\"q",2',
        'b3,"end\\\\",3',
        "b4,unquoted\\\\two,4",
    ),
    # 6. Parallel relationships and repeated self-loops.
    "c6_nodes.csv": _csv(
        ":ID(C6),name",
        "a,A",
        "b,B",
    ),
    "c6_rels.csv": _csv(
        ":START_ID(C6),:END_ID(C6),:TYPE,w:int,note",
        "a,b,C6_R,1,first",
        "a,b,C6_R,2,",
        "a,b,C6_R,,third",
        "a,a,C6_LOOP,,",
        "a,a,C6_LOOP,,",
        "a,a,C6_LOOP,5,",
        "b,a,C6_R,,",
        "a,b,C6_OTHER,,",
    ),
    # 7. Temporal values and points.
    "c7_nodes.csv": _columns(C7_COLUMNS),
    "c7_rels.csv": _csv(
        ":START_ID(C7),:END_ID(C7),:TYPE,since:date,dur:duration,at:datetime,where:point{crs:cartesian}",
        't1,t2,C7_R,2020-01-01,P3M,2020-01-01T00:00[Asia/Tokyo],"{x:1, y:1}"',
        "t2,t3,C7_R,,PT2H,2020-01-01T00:00,",
    ),
    # 9. Two relationships to missing nodes (lines 3 and 5) with --bad-tolerance=1.
    "c9_nodes.csv": _csv(
        ":ID(C9),name",
        "a,A",
        "b,B",
    ),
    "c9_rels.csv": _csv(
        ":START_ID(C9),:END_ID(C9),:TYPE",
        "a,b,C9_R",
        "a,nobody,C9_R",
        "b,a,C9_R",
        "b,ghost,C9_R",
        "a,a,C9_R",
    ),
    # The deliberate differences: float[] kept as doubles, booleans other than true/false and
    # integers beyond 64 bits rejected.
    "cd_arrays.csv": _csv(
        ":ID(CD),fa:float[],da:double[],f:float,ia:int[]",
        "d1,0.1;2.5,0.1;2.5,0.1,1;2;3",
    ),
    "cd_bool.csv": _csv(
        ":ID(CD_Bool),b:boolean",
        "b1,true",
        "b2,TRUE",
        "b3,yes",
    ),
    "cd_big.csv": _csv(
        ":ID(CD_Big),big:int",
        "n1,9223372036854775807",
        "n2,9223372036854775808",
    ),
}

# Each case's files: (nodes, relationships), each a list of (label or type prefix or None, file).
CASES: dict[str, tuple[list, list]] = {
    "C1": ([("C1", "c1_nodes.csv")], [(None, "c1_rels.csv")]),
    "C1T": ([("C1T", "c1_trailing.csv")], []),
    "C1X": ([("C1X", "c1x_nodes.csv")], [(None, "c1x_rels.csv")]),
    "C2": (
        [("C2_Person", "c2_people.csv"), ("C2_Company", "c2_companies.csv"), ("C2_City", "c2_cities.csv")],
        [(None, "c2_works.csv"), (None, "c2_located.csv"), (None, "c2_knows.csv")],
    ),
    "C3": ([("C3_Anon", "c3_anon.csv"), ("C3_Anon", "c3_anon_labelled.csv"), ("C3_Known", "c3_known.csv")], [(None, "c3_rels.csv")]),
    "C4": ([("C4", "c4_nodes.csv")], [(None, "c4_rels.csv")]),
    "C5": ([("C5", "c5_nodes.csv")], []),
    "C5L": ([("C5L", "c5_legacy.csv")], []),
    "C5B": ([("C5B", "c5_legacy_backslash.csv")], []),
    "C6": ([("C6", "c6_nodes.csv")], [(None, "c6_rels.csv")]),
    "C7": ([("C7", "c7_nodes.csv")], [(None, "c7_rels.csv")]),
    "C9": ([("C9", "c9_nodes.csv")], [(None, "c9_rels.csv")]),
    "CD": ([("CD", "cd_arrays.csv"), ("CD_Bool", "cd_bool.csv"), ("CD_Big", "cd_big.csv")], []),
}

# The neo4j-admin runs: the cases whose files each imports, and its options.
RUNS = {
    "main": (["C1", "C1T", "C2", "C3", "C5", "C6", "C7"], NEO4J_ONLY_OPTIONS),
    "extra_rejected": (["C1X"], []),
    "lenient": (["C1X", "C4", "C5L", "C5B"], LENIENT_OPTIONS),
    "multiline_rejected": (["C4"], []),
    "ignore_empty": (["C5", "CD"], ["--ignore-empty-strings=true"]),
    "trim": (["C5"], ["--trim-strings=true"]),
    "bad_tolerance": (["C9"], ["--bad-tolerance=1", "--skip-bad-relationships=true"]),
}


def _args(files: list, directory: pathlib.Path) -> list[str]:
    return [f"{prefix}={directory / name}" if prefix else str(directory / name) for prefix, name in files]


class Work:
    """The cases' files in one directory, and the neo4j-admin runs over them, each made once."""

    def __init__(self, directory: pathlib.Path):
        self.dir = directory
        for name, text in FILES.items():
            (directory / name).write_text(text, encoding="utf-8")
        self._runs: dict[str, dict] = {}

    def files(self, *cases: str) -> tuple[list[str], list[str]]:
        """The --nodes and --relationships arguments of these cases' files."""
        nodes: list[str] = []
        rels: list[str] = []
        for case in cases:
            n, r = CASES[case]
            nodes += _args(n, self.dir)
            rels += _args(r, self.dir)
        return nodes, rels

    def neo4j(self, run: str) -> dict:
        if run not in self._runs:
            cases, options = RUNS[run]
            nodes, rels = self.files(*cases)
            self._runs[run] = neo4j_admin.neo4j_admin_import(self.dir / f"neo4j-{run}", nodes, rels, options)
        return self._runs[run]

    def neo4j_graph(self, run: str, *cases: str) -> dict:
        """The part of a run's graph with these cases' labels and types."""
        r = self.neo4j(run)
        assert r["ok"], f"neo4j-admin rejected the files of run {run!r}:\n{r.get('error')}\n{r['output'][-3000:]}"
        return subgraph(r["graph"], cases)

    def hopdb(self, store: pathlib.Path, cases: tuple[str, ...], options: list[str] = ()) -> dict:
        nodes, rels = self.files(*cases)
        return hopdb_import(store, nodes, rels, options)


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Work:
    return Work(tmp_path_factory.mktemp("neo4j-admin-compat"))


def _mine(name: str, cases: tuple[str, ...]) -> bool:
    return any(name == c or name.startswith(c + "_") for c in cases)


def subgraph(graph: dict, cases: tuple[str, ...]) -> dict:
    """The nodes with a label of these cases (CN or CN_...) and the relationships of their types."""
    nodes = [n for n in graph["nodes"] if any(_mine(label, cases) for label in n["labels"])]
    ids = {n["id"] for n in nodes}
    rels = [r for r in graph["relationships"] if _mine(r["type"], cases)]
    assert all(r["start"] in ids and r["end"] in ids for r in rels), "a case's relationship reaches another case's node"
    return copy.deepcopy({"nodes": nodes, "relationships": rels})


# ---- hopdb import -------------------------------------------------------------------------------


def hopdb_import(store: os.PathLike | str, nodes: list[str], relationships: list[str] = (), options: list[str] = ()) -> dict:
    """``hopdb import STORE --nodes=N ... --relationships=R ... OPTIONS --json --quiet`` (a report
    file beside the store unless OPTIONS name one): {"ok", "exit_code", "summary" (the --json
    line), "stderr", "report" (the report file's text)}."""
    store = pathlib.Path(store)
    options = list(options)
    if not any(o.startswith("--report-file") for o in options):
        options.append(f"--report-file={store}.report")
    report = pathlib.Path(next(o.split("=", 1)[1] for o in options if o.startswith("--report-file=")))
    args = [str(HOPDB), "import", str(store)]
    args += [f"--nodes={n}" for n in nodes] + [f"--relationships={r}" for r in relationships]
    args += options + ["--json", "--quiet"]
    r = subprocess.run(args, capture_output=True, text=True, timeout=300, cwd=str(store.parent))
    summary = None
    if r.returncode == 0:
        summary = json.loads(r.stdout.strip().splitlines()[-1])
    return {
        "ok": r.returncode == 0,
        "exit_code": r.returncode,
        "summary": summary,
        "stdout": r.stdout,
        "stderr": r.stderr,
        "report": report.read_text() if report.exists() else "",
        "command": args,
    }


def hopdb_ok(r: dict) -> dict:
    assert r["ok"], f"hopdb import failed (exit {r['exit_code']}): {' '.join(r['command'])}\n{r['stderr']}"
    return r["summary"]


# ---- temporal values: one text for equal values -------------------------------------------------

_DATE = r"([+-]?\d{4,})-(\d{2})-(\d{2})"
_TIME = r"(\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?"
_OFFSET = r"(Z|[+-]\d{2}(?::?\d{2}(?::?\d{2})?)?)"
_ZONE = r"(?:\[([^\]]+)\])?"
_NUM = r"([+-]?\d+(?:\.\d+)?)"
_DURATION = re.compile(
    rf"([+-])?P(?:{_NUM}Y)?(?:{_NUM}M)?(?:{_NUM}W)?(?:{_NUM}D)?(?:T(?:{_NUM}H)?(?:{_NUM}M)?(?:{_NUM}S)?)?"
)
_PATTERNS = {
    "date": re.compile(_DATE),
    "localtime": re.compile(_TIME),
    "time": re.compile(_TIME + _OFFSET),
    "localdatetime": re.compile(_DATE + "T" + _TIME),
    "datetime": re.compile(_DATE + "T" + _TIME + _OFFSET + _ZONE),
}
TEMPORAL_TYPES = {  # Cypher's valueType() name -> the dump's type
    "DATE": "date",
    "LOCAL TIME": "localtime",
    "ZONED TIME": "time",
    "LOCAL DATETIME": "localdatetime",
    "ZONED DATETIME": "datetime",
    "DURATION": "duration",
}


def _date_text(y, mo, d) -> str:
    y = int(y)
    return (f"{y:04d}" if 0 <= y <= 9999 else f"{y:+05d}") + f"-{int(mo):02d}-{int(d):02d}"


def _time_text(h, mi, s, frac) -> str:
    frac = (frac or "").ljust(9, "0")[:9].rstrip("0")
    return f"{int(h):02d}:{int(mi):02d}:{int(s or 0):02d}" + (f".{frac}" if frac else "")


def _offset_text(seconds: int) -> str:
    if seconds == 0:
        return "Z"
    sign, seconds = ("-", -seconds) if seconds < 0 else ("+", seconds)
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{sign}{h:02d}:{m:02d}" + (f":{s:02d}" if s else "")


def _offset_seconds(text: str) -> int:
    if text == "Z":
        return 0
    digits = text[1:].replace(":", "")
    h, m, s = int(digits[0:2]), int(digits[2:4] or 0), int(digits[4:6] or 0)
    return (-1 if text[0] == "-" else 1) * (h * 3600 + m * 60 + s)


def _duration_text(months: int, days: int, nanos: int) -> str:
    sign, n = ("-", -nanos) if nanos < 0 else ("", nanos)
    whole, frac = divmod(n, 10**9)
    seconds = f"{sign}{whole}" + (f".{frac:09d}".rstrip("0") if frac else "")
    return f"P{months}M{days}DT{seconds}S"


def _duration_parts(text: str) -> tuple[int, int, int]:
    """(months, days, nanoseconds) of an ISO 8601 duration (Neo4j keeps these three apart)."""
    m = _DURATION.fullmatch(text)
    if not m or text in ("P", "PT"):
        raise ValueError(f"not a duration: {text!r}")
    sign = -1 if m.group(1) == "-" else 1
    y, mo, w, d, h, mi, s = (Decimal(x) if x else Decimal(0) for x in m.groups()[1:])
    months, days = y * 12 + mo, w * 7 + d
    nanos = (h * 3600 + mi * 60 + s) * 10**9
    if months != int(months) or days != int(days) or nanos != int(nanos):
        raise ValueError(f"fractional months or days in {text!r}")
    return sign * int(months), sign * int(days), sign * int(nanos)


def temporal_text(kind: str, text: str) -> str:
    """One text for equal values of a temporal type, from Neo4j's or HopDB's ISO text."""
    if kind == "duration":
        return _duration_text(*_duration_parts(text))
    m = _PATTERNS[kind].fullmatch(text)
    if not m:
        raise ValueError(f"not a {kind}: {text!r}")
    g = m.groups()
    if kind == "date":
        return _date_text(*g)
    if kind == "localtime":
        return _time_text(*g)
    if kind == "time":
        return _time_text(*g[:4]) + _offset_text(_offset_seconds(g[4]))
    if kind == "localdatetime":
        return _date_text(*g[:3]) + "T" + _time_text(*g[3:7])
    zone = f"[{g[8]}]" if g[8] else ""
    return _date_text(*g[:3]) + "T" + _time_text(*g[3:7]) + _offset_text(_offset_seconds(g[7])) + zone


def python_temporal_text(kind: str, v: Any) -> str:
    """temporal_text() of the Python value HopDB gives for a temporal property."""
    if isinstance(v, str):  # what Python cannot hold (nanoseconds, months) comes as ISO text
        return temporal_text(kind, v)
    micro = lambda x: f"{x.microsecond:06d}"  # noqa: E731
    if kind == "date" and type(v) is date:
        return _date_text(v.year, v.month, v.day)
    if kind == "localtime" and isinstance(v, time) and v.tzinfo is None:
        return _time_text(v.hour, v.minute, v.second, micro(v))
    if kind == "time" and isinstance(v, time) and v.utcoffset() is not None:
        return _time_text(v.hour, v.minute, v.second, micro(v)) + _offset_text(int(v.utcoffset().total_seconds()))
    if kind == "localdatetime" and isinstance(v, datetime) and v.tzinfo is None:
        return _date_text(v.year, v.month, v.day) + "T" + _time_text(v.hour, v.minute, v.second, micro(v))
    if kind == "datetime" and isinstance(v, datetime) and v.utcoffset() is not None:
        zone = f"[{v.tzinfo.key}]" if isinstance(v.tzinfo, zoneinfo.ZoneInfo) else ""
        offset = _offset_text(int(v.utcoffset().total_seconds()))
        return _date_text(v.year, v.month, v.day) + "T" + _time_text(v.hour, v.minute, v.second, micro(v)) + offset + zone
    if kind == "duration" and isinstance(v, timedelta):
        # timedelta folds seconds into days (PT36H is 1 day 12 h): days are 0, all in seconds.
        return _duration_text(0, 0, ((v.days * 86400 + v.seconds) * 10**6 + v.microseconds) * 1000)
    raise AssertionError(f"HopDB gave {v!r} ({type(v).__name__}) for a {kind} value")


def _same_temporal(kind: str, a: str, b: str) -> bool:
    if kind != "duration":
        return a == b
    (ma, da, na), (mb, db, nb) = _duration_parts(a), _duration_parts(b)
    return ma == mb and da * 86400 * 10**9 + na == db * 86400 * 10**9 + nb


# ---- typed values -------------------------------------------------------------------------------


def _double(x: float) -> Any:
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return x


def jsonable(typed: dict) -> Any:
    """A typed value as the JSON HopDB's export writes for it (maps, bytes as {"$bytes": base64})."""
    t, v = typed["t"], typed["v"]
    if t == "list":
        return [jsonable(e) for e in v]
    if t in ("map", "json"):
        return json.loads(v)
    if t == "bytes":
        return {"$bytes": v}
    if t == "point":
        return dict(v)
    return v


def _json_text(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def typed_value(v: Any, note: Any = None, where: str = "") -> dict:
    """The dump's {"t", "v"} of a Python value from HopDB. `note` is what the dump query says of
    it: [valueType, toString() for a temporal value] or, for a list, a list of those."""
    vtype, text = (note[0], note[1]) if note else ("", None)
    base = vtype.removesuffix(" NOT NULL")
    kind = TEMPORAL_TYPES.get(base)
    if kind:
        got = python_temporal_text(kind, v)
        if text is not None:
            said = temporal_text(kind, text)
            assert _same_temporal(kind, got, said), f"{where}: HopDB's Python value {v!r} is not its Cypher toString() {text!r}"
            got = said  # exact where timedelta folds days
        return {"t": kind, "v": got}
    import hopdb

    if isinstance(v, hopdb.Point):
        coords = dict(zip("xyz", v))
        return {"t": "point", "v": {"crs": v.crs, "srid": v.srid, **coords}}
    if isinstance(v, (list, tuple)):
        notes = text if isinstance(text, list) else [None] * len(v)
        return {"t": "list", "v": [typed_value(e, n, where) for e, n in zip(v, notes)]}
    if v is None:
        return {"t": "null", "v": None}
    if isinstance(v, bool):
        return {"t": "boolean", "v": v}
    if isinstance(v, int):
        return {"t": "long", "v": v}
    if isinstance(v, float):
        return {"t": "double", "v": _double(v)}
    if isinstance(v, str):
        return {"t": "string", "v": v}
    if isinstance(v, bytes):
        return {"t": "bytes", "v": base64.b64encode(v).decode()}
    if isinstance(v, dict):
        return {"t": "map", "v": _json_text({k: jsonable(typed_value(x, None, where)) for k, x in v.items()})}
    if isinstance(v, (date, time, timedelta)):
        for kind in ("datetime", "localdatetime", "date", "time", "localtime", "duration"):
            try:
                return {"t": kind, "v": python_temporal_text(kind, v)}
            except AssertionError:
                pass
    raise AssertionError(f"{where}: unexpected value {v!r} ({type(v).__name__})")


def normalise(graph: dict) -> dict:
    """A dump with every temporal value's text made temporal_text()'s (Neo4j's texts as HopDB's)."""

    def value(typed: dict) -> dict:
        t, v = typed["t"], typed["v"]
        if t == "list":
            return {"t": t, "v": [value(e) for e in v]}
        if t in _PATTERNS or t == "duration":
            return {"t": t, "v": temporal_text(t, v)}
        return typed

    g = copy.deepcopy(graph)
    for item in g["nodes"] + g["relationships"]:
        item["props"] = {k: value(v) for k, v in item.get("props", {}).items()}
    return g


# ---- a HopDB store as the dump's graph ----------------------------------------------------------

_NOTE = (
    "[k IN keys({v}) | [k, valueType({v}[k]), CASE"
    " WHEN valueType({v}[k]) STARTS WITH 'LIST' THEN [e IN {v}[k] | [valueType(e), CASE WHEN valueType(e) IN $temporal THEN toString(e) END]]"
    " WHEN valueType({v}[k]) IN $temporal THEN toString({v}[k]) END]]"
)
_TEMPORAL_PARAM = {"temporal": [f"{t} NOT NULL" for t in TEMPORAL_TYPES]}


def _typed_props(props: dict, notes: list, where: str) -> dict:
    by_key = {k: [vtype, text] for k, vtype, text in notes}
    return {k: typed_value(v, by_key.get(k), f"{where}.{k}") for k, v in props.items()}


def hopdb_graph(store: os.PathLike | str) -> dict:
    """A HopDB store in the dump's shape: node "id" is the key, relationship "start" / "end" keys;
    each relationship also has "weight" (the edge weight, None when it has none; no property in
    the comparison)."""
    import hopdb

    with hopdb.Graph(str(store), read_only=True) as g:
        nodes = []
        for key, labels, props, notes in g.query(
            "MATCH (n) RETURN n._key, labels(n), properties(n), " + _NOTE.format(v="n"), _TEMPORAL_PARAM
        ):
            nodes.append({"id": key, "labels": sorted(labels), "props": _typed_props(props, notes, f"node {key!r}")})
        types = {t[0]: t for t in g.edge_types()}
        assert not any(t[2] for t in types.values()), "undirected types: the dump lists relationships from their start"
        weights: dict[tuple, Any] = {}
        for key in [n["id"] for n in nodes]:
            for e in g.edges(key, "out"):
                weights[(e["src"], e["type"], e["dst"], e.get("id"))] = e["weight"]
        rels = []
        for start, rtype, end, rid, props, notes in g.query(
            "MATCH (a)-[r]->(b) RETURN a._key, type(r), b._key, id(r), properties(r), " + _NOTE.format(v="r"), _TEMPORAL_PARAM
        ):
            weight = weights[(start, rtype, end, rid if types[rtype][3] else None)]
            rels.append(
                {
                    "start": start,
                    "type": rtype,
                    "end": end,
                    "props": _typed_props(props, notes, f"({start!r})-[:{rtype}]->({end!r})"),
                    "weight": weight,
                }
            )
        assert len(rels) == g.edge_count() == len(weights), (len(rels), g.edge_count(), len(weights))
    return {"nodes": nodes, "relationships": rels}


def with_keys(graph: dict, weight: Optional[str] = None, key: Optional[str] = None) -> dict:
    """A HopDB dump with the node key as property `key` and the weight as property `weight`
    (for comparing two HopDB stores, or a HopDB store with Neo4j's graph of its export)."""
    g = copy.deepcopy(graph)
    if key:
        for n in g["nodes"]:
            n["props"][key] = typed_value(n["id"])
    if weight:
        for r in g["relationships"]:
            if r["weight"] is not None:
                r["props"][weight] = typed_value(float(r["weight"]))
    return g


def difference(a: dict, b: dict, names: tuple[str, str] = ("neo4j-admin", "hopdb")) -> str:
    """How two dumps differ after normalise(); "" when they are the same graph."""
    ca, cb = neo4j_admin.canonical(normalise(a)), neo4j_admin.canonical(normalise(b))
    return "" if ca == cb else neo4j_admin.describe_difference(ca, cb, names=names) or "(the same multisets in another order?)"


def assert_same(a: dict, b: dict, names: tuple[str, str] = ("neo4j-admin", "hopdb")) -> None:
    diff = difference(a, b, names)
    assert not diff, "the graphs differ:\n" + diff


def _props_of(graph: dict, prop: str, value: Any) -> dict:
    """The properties of the node whose `prop` is the string `value`."""
    (n,) = [n for n in graph["nodes"] if n["props"].get(prop) == {"t": "string", "v": value}]
    return n["props"]


# ---- the cases ----------------------------------------------------------------------------------


def test_1_fewer_and_extra_fields(work, tmp_path):
    """neo4j-admin: a row with fewer fields than the header sets no property for the missing ones
    (no error, in node and relationship files); a row with more is rejected ("Extra column not
    present in header"), unless --ignore-extra-columns=true, which loads it without the extra
    values (listing them in the report)."""
    neo = work.neo4j_graph("main", "C1")
    r = work.hopdb(tmp_path / "fewer", ("C1",), NEO4J_ONLY_OPTIONS)
    hopdb_ok(r)
    assert_same(neo, hopdb_graph(tmp_path / "fewer"))
    assert _props_of(neo, "name", "Bob") == {"name": {"t": "string", "v": "Bob"}, "age": {"t": "long", "v": 31}}

    rejected = work.neo4j("extra_rejected")
    assert not rejected["ok"] and "Extra column not present in header" in rejected["error"], rejected.get("error")
    r = work.hopdb(tmp_path / "extra", ("C1X",))
    assert not r["ok"], "hopdb loaded a row with more fields than the header"
    assert "c1x_nodes.csv:3" in r["stderr"] and "surplus" in r["stderr"], r["stderr"]

    neo = work.neo4j_graph("lenient", "C1X")
    r = work.hopdb(tmp_path / "lenient", ("C1X",), LENIENT_OPTIONS)
    hopdb_ok(r)
    assert_same(neo, hopdb_graph(tmp_path / "lenient"))
    assert "c1x_nodes.csv:3" in r["report"] and "c1x_rels.csv:2" in r["report"], r["report"]


def test_1b_short_row_ending_with_delimiter(work, tmp_path):
    """neo4j-admin (observed): a row with fewer fields than the header whose last character is the
    delimiter does not end at its line break: its next fields are read from the next line
    (``t1,Tee,`` then ``t2`` is one node t1 with note "t2"). HopDB keeps on purpose (README,
    "kept on purpose"): a line is a row, so ``t2`` is its own node, as the file reads, and the
    missing trailing fields of t1 are absent properties."""
    neo = work.neo4j_graph("main", "C1T")
    t1 = _props_of(neo, "id", "t1")
    assert t1 == {"id": {"t": "string", "v": "t1"}, "name": {"t": "string", "v": "Tee"}, "note": {"t": "string", "v": "t2"}}
    hopdb_ok(work.hopdb(tmp_path / "store", ("C1T",), NEO4J_ONLY_OPTIONS))
    ours = hopdb_graph(tmp_path / "store")
    assert _props_of(ours, "id", "t1") == {"id": {"t": "string", "v": "t1"}, "name": {"t": "string", "v": "Tee"}}
    assert _props_of(ours, "id", "t2") == {"id": {"t": "string", "v": "t2"}}


def test_2_id_spaces(work, tmp_path):
    """neo4j-admin: ``:ID(Group)`` spaces are separate: the same id in two spaces is two nodes, and
    ``:START_ID(Group)`` / ``:END_ID(Group)`` find their ends in the named space. ``name:ID(G)``
    stores the id as property ``name``; an unnamed ``:ID(G)`` stores none."""
    neo = work.neo4j_graph("main", "C2")
    r = work.hopdb(tmp_path / "store", ("C2",), NEO4J_ONLY_OPTIONS)
    hopdb_ok(r)
    hop = hopdb_graph(tmp_path / "store")
    assert_same(neo, hop)
    assert len(neo["nodes"]) == 5 and len(neo["relationships"]) == 5
    # HopDB's keys: the group before the id.
    assert {n["id"] for n in hop["nodes"]} == {"C2_People:p1", "C2_People:x", "C2_Companies:x", "C2_Companies:p1", "C2_Cities:x"}
    # --id-group-keys=plain: one global space (HopDB only), so groups that share ids are rejected.
    r = work.hopdb(tmp_path / "plain", ("C2",), ["--id-group-keys=plain"])
    assert not r["ok"] and 'c2_companies.csv:2: node id "x" is defined twice' in r["stderr"], r["stderr"]
    nodes = [f"C2_Person={work.dir / 'c2_people.csv'}"]
    hopdb_ok(hopdb_import(tmp_path / "plain-people", nodes, [str(work.dir / "c2_knows.csv")], ["--id-group-keys=plain"]))
    assert sorted(n["id"] for n in hopdb_graph(tmp_path / "plain-people")["nodes"]) == ["p1", "x"]


def test_3_nodes_without_id(work, tmp_path):
    """neo4j-admin: a node file without an ``:ID`` column makes a node per row, identical rows too
    (they cannot be referred to); a file with ids beside it loads as usual, with its
    relationships."""
    neo = work.neo4j_graph("main", "C3")
    r = work.hopdb(tmp_path / "store", ("C3",), NEO4J_ONLY_OPTIONS)
    hopdb_ok(r)
    hop = hopdb_graph(tmp_path / "store")
    assert_same(neo, hop)
    assert sum(1 for n in neo["nodes"] if n["props"].get("name") == {"t": "string", "v": "anon"}) == 2
    anonymous = sorted(str(n["id"]) for n in hop["nodes"] if "C3_Known" not in n["labels"])
    assert len(anonymous) == 5 and all(k.startswith("_:") for k in anonymous), anonymous


def test_4_multiline_fields(work, tmp_path):
    """neo4j-admin: with --multiline-fields=true a quoted field may hold line breaks (kept as
    \\n); without it such a field rejects the import ("Multi-line fields are illegal in this
    context")."""
    neo = work.neo4j_graph("lenient", "C4")
    r = work.hopdb(tmp_path / "multi", ("C4",), LENIENT_OPTIONS)
    hopdb_ok(r)
    assert_same(neo, hopdb_graph(tmp_path / "multi"))
    assert _props_of(neo, "text", "line one\nline two")["n"] == {"t": "long", "v": 1}

    rejected = work.neo4j("multiline_rejected")
    assert not rejected["ok"] and "Multi-line fields are illegal" in rejected["error"], rejected.get("error")
    r = work.hopdb(tmp_path / "single", ("C4",))
    assert not r["ok"], "hopdb loaded a quoted line break without --multiline-fields"
    assert "c4_nodes.csv:3" in r["stderr"], r["stderr"]


def test_5_empty_strings_trimming_and_quoting(work, tmp_path):
    """neo4j-admin: an unquoted empty field sets no property; ``""`` sets the empty string on a
    string column and nothing on int, float, date and string[] (--ignore-empty-strings=true: not on
    strings either). Unquoted blanks around a string are kept, around a number ignored;
    --trim-strings=true trims unquoted strings and the elements of an unquoted string[]
    (`` x ; y `` is ["x", "y"]), never inside quotes. ``a;;b`` in string[] is ["a", "", "b"],
    ``;`` is ["", ""], a quoted ``"p;q"`` is split too. --legacy-style-quoting=true reads ``\\"`` inside quotes
    as a quote."""
    for run, options in (("main", NEO4J_ONLY_OPTIONS), ("ignore_empty", ["--ignore-empty-strings=true"]), ("trim", ["--trim-strings=true"])):
        neo = work.neo4j_graph(run, "C5")
        r = work.hopdb(tmp_path / run, ("C5",), options)
        hopdb_ok(r)
        assert_same(neo, hopdb_graph(tmp_path / run), names=(f"neo4j-admin {run}", f"hopdb {run}"))

    neo = work.neo4j_graph("main", "C5")
    e1 = next(n for n in neo["nodes"] if n["props"]["u"] == {"t": "string", "v": ""})
    assert e1["props"]["s"] == {"t": "string", "v": ""} and "i" not in e1["props"] and "sl" not in e1["props"]
    ignored = work.neo4j_graph("ignore_empty", "C5")
    assert not any(v == {"t": "string", "v": ""} for n in ignored["nodes"] for v in n["props"].values())

    neo = work.neo4j_graph("lenient", "C5L")
    r = work.hopdb(tmp_path / "legacy", ("C5L",), LENIENT_OPTIONS)
    hopdb_ok(r)
    assert_same(neo, hopdb_graph(tmp_path / "legacy"))
    assert _props_of(neo, "s", 'say "hi"')["n"] == {"t": "long", "v": 1}


def test_5b_legacy_quoting_escaped_backslash(work, tmp_path):
    """neo4j-admin (observed) with --legacy-style-quoting=true: inside quotes ``\\\\`` is one
    backslash (``"back\\\\slash"`` is back\\slash, ``"end\\\\"`` is end\\ and ends the field, ``"three\\\\\\"q"``
    is three\\"q); other backslashes (``\\n``, unquoted ``\\\\``) are kept as they are."""
    neo = work.neo4j_graph("lenient", "C5B")
    values = sorted(n["props"]["s"]["v"] for n in neo["nodes"])
    assert values == ["back\\slash", "end\\", 'three\\"q', "unquoted\\\\two"], values
    r = work.hopdb(tmp_path / "store", ("C5B",), LENIENT_OPTIONS)
    hopdb_ok(r)
    assert_same(neo, hopdb_graph(tmp_path / "store"))


def test_6_parallel_relationships(work, tmp_path):
    """neo4j-admin: every relationship row is a relationship; identical rows and repeated
    self-loops make as many. HopDB with --multi-edges: the same. By default HopDB keeps one
    relationship per (start, type, end), its properties those of the repeating rows in order (a
    later value replaces an earlier; an empty field leaves it), counts the repeated rows as
    merged_relationships and lists each in the report file."""
    neo = work.neo4j_graph("main", "C6")
    r = work.hopdb(tmp_path / "multi", ("C6",), NEO4J_ONLY_OPTIONS + ["--multi-edges"])
    assert hopdb_ok(r)["merged_relationships"] == 0
    assert_same(neo, hopdb_graph(tmp_path / "multi"))
    assert len(neo["relationships"]) == 8

    report = tmp_path / "merged.report"
    r = work.hopdb(tmp_path / "merged", ("C6",), NEO4J_ONLY_OPTIONS + [f"--report-file={report}"])
    summary = hopdb_ok(r)
    hop = hopdb_graph(tmp_path / "merged")
    triples = {(x["start"], x["type"], x["end"]) for x in hop["relationships"]}
    assert len(triples) == len(hop["relationships"]) == 4
    assert summary["merged_relationships"] == len(neo["relationships"]) - len(hop["relationships"]) == 4
    listed = [re.match(r"(.*):(\d+): a relationship that repeats (.*):(\d+) .* was merged into it", x) for x in r["report"].splitlines() if x.strip()]
    assert all(listed) and [(m[1], int(m[2])) for m in listed] == [(str(work.dir / "c6_rels.csv"), n) for n in (3, 4, 6, 7)], r["report"]
    # Nodes as neo4j-admin's; relationships: one per (start, type, end) with the merged properties.
    a = (("C6",), (("name", ("string", "A")),))
    b = (("C6",), (("name", ("string", "B")),))
    want = neo4j_admin.sort_signatures(
        [
            (a, "C6_R", b, (("note", ("string", "third")), ("w", ("long", 2)))),
            (a, "C6_LOOP", a, (("w", ("long", 5)),)),
            (b, "C6_R", a, ()),
            (a, "C6_OTHER", b, ()),
        ]
    )
    got, theirs = neo4j_admin.canonical(normalise(hop)), neo4j_admin.canonical(normalise(neo))
    assert got[0] == theirs[0]
    assert got[1] == want, neo4j_admin.describe_difference(got, (got[0], want), names=("hopdb", "expected"))


def test_7_temporal_values_and_points(work, tmp_path):
    """neo4j-admin: date, localtime, time, localdatetime, datetime and duration columns (and their
    arrays) hold Cypher's temporal values; the header's timezone applies to a value without its
    own, else UTC; a value's offset or zone wins; a local time in a zone's gap moves forward, an
    ambiguous one takes the earlier offset. A duration keeps months, days and seconds apart
    (PT36H is not P1DT12H; P2W is P14D). A point column takes the header's crs unless the value
    has one; x/y or longitude/latitude(/height); a point[] column holds points."""
    neo = work.neo4j_graph("main", "C7")
    r = work.hopdb(tmp_path / "store", ("C7",), NEO4J_ONLY_OPTIONS)
    hopdb_ok(r)
    assert_same(neo, hopdb_graph(tmp_path / "store"))
    t1 = next(n for n in neo["nodes"] if n["props"].get("d") == {"t": "date", "v": "2020-02-29"})
    assert t1["props"]["dt"] == {"t": "datetime", "v": "2020-02-29T12:30:00+01:00[Europe/Stockholm]"}
    assert t1["props"]["pa"]["v"][0] == {"t": "point", "v": {"crs": "wgs-84", "srid": 4326, "x": 2.0, "y": 1.0}}
    dts = sorted(n["props"]["dt"]["v"] for n in neo["nodes"])
    assert "2020-03-29T03:30:00+02:00[Europe/Stockholm]" in dts and "2020-10-25T02:30:00+02:00[Europe/Stockholm]" in dts, dts
    assert sorted(n["props"]["dur"]["v"] for n in neo["nodes"]) == ["P14D", "P1Y2M", "PT0.5S", "PT1.000000001S", "PT36H"]


def test_8_neo4j_only_options_and_overwrite(work, tmp_path):
    """neo4j-admin: --normalize-types=true (its default), --read-buffer-size, --threads,
    --high-parallel-io and --max-off-heap-memory tune the import and change nothing in the graph.
    HopDB accepts them and they change nothing either; --overwrite-destination=true on a store
    that already holds other data replaces it by the files' graph."""
    cases = [c for c in RUNS["main"][0] if c != "C1T"]  # C1T: see test_1b
    neo = work.neo4j_graph("main", *cases)
    r = work.hopdb(tmp_path / "with", tuple(cases), NEO4J_ONLY_OPTIONS + ["--multi-edges"])
    hopdb_ok(r)
    with_options = hopdb_graph(tmp_path / "with")
    assert_same(neo, with_options)
    r = work.hopdb(tmp_path / "without", tuple(cases), ["--multi-edges"])
    hopdb_ok(r)
    assert_same(with_options, hopdb_graph(tmp_path / "without"), names=("hopdb with them", "hopdb without"))

    import hopdb

    store = tmp_path / "overwritten"
    with hopdb.Graph(str(store)) as g:
        g.upsert_node("C2_People:p1", ["Old"], {"stale": True})  # a key the files use, other data
        g.upsert_node("old", ["Old"], {"n": 1})
        g.upsert_edge("old", "OLD", "C2_People:p1", weight=2.0)
    r = work.hopdb(store, tuple(cases), NEO4J_ONLY_OPTIONS + ["--multi-edges", "--overwrite-destination=true"])
    hopdb_ok(r)
    assert_same(neo, hopdb_graph(store))


def test_9_bad_tolerance(work, tmp_path):
    """neo4j-admin: --skip-bad-relationships=true with --bad-tolerance=1 skips the first
    relationship to a missing node into the report, and the second rejects the import ("Too many
    bad entries 2, where last one was: ... referring to missing node ghost"). HopDB rejects it
    too, naming the file and line of the second bad entry, and imports nothing."""
    rejected = work.neo4j("bad_tolerance")
    assert not rejected["ok"], "neo4j-admin took two bad entries with --bad-tolerance=1"
    assert "Too many bad entries 2" in rejected["error"] and "missing node ghost" in rejected["error"], rejected["error"]
    assert "missing node nobody" in rejected["report"], rejected["report"]
    store = tmp_path / "store"
    r = work.hopdb(store, ("C9",), RUNS["bad_tolerance"][1])
    assert not r["ok"], "hopdb took two bad entries with --bad-tolerance=1"
    assert f"{work.dir / 'c9_rels.csv'}:5:" in r["stderr"] and "ghost" in r["stderr"], r["stderr"]
    assert "c9_rels.csv:3:" in r["report"] and "nobody" in r["report"], r["report"]
    if store.exists():
        assert_same({"nodes": [], "relationships": []}, hopdb_graph(store), names=("nothing", "hopdb"))


def test_deliberate_differences(work, tmp_path):
    """Where neo4j-admin loses data HopDB differs, exactly so: neo4j-admin stores a float[]
    element as a 32-bit float (0.1 -> 0.10000000149011612; a float column and double[] are
    doubles), HopDB as the double; neo4j-admin stores false for a boolean other than exactly
    ``true`` (TRUE, yes) and wraps an integer beyond 64 bits (9223372036854775808 ->
    -9223372036854775808), HopDB rejects both files, naming the file, line and value."""
    neo = work.neo4j_graph("ignore_empty", "CD")
    hopdb_ok(hopdb_import(tmp_path / "arrays", [f"CD={work.dir / 'cd_arrays.csv'}"]))
    hop = hopdb_graph(tmp_path / "arrays")
    (d1,) = [n for n in neo["nodes"] if n["labels"] == ["CD"]]
    f32 = 0.10000000149011612
    assert d1["props"]["fa"] == {"t": "list", "v": [{"t": "double", "v": f32}, {"t": "double", "v": 2.5}]}
    # HopDB: the same but for the float[] element's precision.
    d1["props"]["fa"]["v"][0]["v"] = 0.1
    assert_same({"nodes": [d1], "relationships": []}, hop, names=("neo4j-admin, float[] as doubles", "hopdb"))

    bools = sorted(n["props"]["b"]["v"] for n in neo["nodes"] if n["labels"] == ["CD_Bool"])
    assert bools == [False, False, True], bools
    r = hopdb_import(tmp_path / "bool", [f"CD_Bool={work.dir / 'cd_bool.csv'}"])
    assert not r["ok"] and "cd_bool.csv:3" in r["stderr"] and "'TRUE' is not a boolean" in r["stderr"], r["stderr"]

    big = sorted(n["props"]["big"]["v"] for n in neo["nodes"] if n["labels"] == ["CD_Big"])
    assert big == [-(2**63), 2**63 - 1]
    r = hopdb_import(tmp_path / "big", [f"CD_Big={work.dir / 'cd_big.csv'}"])
    assert not r["ok"] and "cd_big.csv:3" in r["stderr"] and "'9223372036854775808' is not an integer" in r["stderr"], r["stderr"]


# ---- export -------------------------------------------------------------------------------------


def neo4j_admin_export(out: pathlib.Path) -> tuple[dict, dict]:
    """neo4j-admin run in an export directory with the manifest's neo4j_admin arguments:
    (manifest, the run's result)."""
    manifest = json.loads((out / "manifest.json").read_text())
    args = manifest["neo4j_admin"]
    assert args[:5] == ["neo4j-admin", "database", "import", "full", "neo4j"], args
    nodes = [a.split("=", 1)[1] for a in args[5:] if a.startswith("--nodes=")]
    rels = [a.split("=", 1)[1] for a in args[5:] if a.startswith("--relationships=")]
    options = [a for a in args[5:] if not a.startswith(("--nodes=", "--relationships="))]
    return manifest, neo4j_admin.neo4j_admin_import(out, nodes, rels, options)


def expected_in_neo4j(hop: dict, manifest: dict) -> dict:
    """What Neo4j should hold after loading HopDB's export of `hop`: the key as property _key on
    every node, the weight as each type's weight column, JSON columns as JSON text (marked "json"
    here: json_values() turns Neo4j's strings in those columns into the same)."""
    node_json = {c for f in manifest["nodes"] for c in manifest["json_columns"].get(f, [])}
    weight_column = {}
    rel_json: dict[str, set] = {}
    for rel in manifest["relationships"]:
        assert weight_column.setdefault(rel["type"], rel["weight_column"]) == rel["weight_column"]
        rel_json.setdefault(rel["type"], set()).update(manifest["json_columns"].get(rel["file"], []))
    g = with_keys(hop, key="_key")
    for r in g["relationships"]:
        if r["weight"] is not None:
            r["props"][weight_column[r["type"]]] = typed_value(float(r["weight"]))
    for items, columns in ((g["nodes"], lambda _: node_json), (g["relationships"], lambda r: rel_json.get(r["type"], set()))):
        for item in items:
            for k in columns(item) & set(item["props"]):
                item["props"][k] = {"t": "json", "v": _json_text(jsonable(item["props"][k]))}
    return g


def json_values(neo: dict, manifest: dict) -> dict:
    """Neo4j's graph of an export with the values of JSON columns (strings) parsed."""
    node_json = {c for f in manifest["nodes"] for c in manifest["json_columns"].get(f, [])}
    rel_json: dict[str, set] = {}
    for rel in manifest["relationships"]:
        rel_json.setdefault(rel["type"], set()).update(manifest["json_columns"].get(rel["file"], []))
    g = copy.deepcopy(neo)
    for items, columns in ((g["nodes"], lambda _: node_json), (g["relationships"], lambda r: rel_json.get(r["type"], set()))):
        for item in items:
            for k in columns(item) & set(item["props"]):
                v = item["props"][k]
                assert v["t"] == "string", f"Neo4j read JSON column {k} as {v}"
                item["props"][k] = {"t": "json", "v": _json_text(json.loads(v["v"]))}
    return g


def build_store(store: pathlib.Path, integer_keys: bool) -> None:
    """A HopDB store with every kind of value, labels, and several relationship types with weights
    and properties (a multi-edge type with parallel edges, self-loops)."""
    import hopdb

    k = (lambda i: i) if integer_keys else (lambda i: ["alice", 'we"ird,key;|', "bob", "Ö 日本", "empty"][i - 1])
    stockholm = zoneinfo.ZoneInfo("Europe/Stockholm")
    with hopdb.Graph(str(store)) as g:
        g.upsert_node(
            k(1),
            ["Person", "Admin"],
            {
                "i": 42,
                "big": 2**62 + 1,
                "neg": -5,
                "f": 1.5,
                "whole": 2.0,
                "tiny": 1e-300,
                "nan": float("nan"),
                "inf": float("inf"),
                "yes": True,
                "no": False,
                "s": 'he said "hi", then; left\nand came back | twice',
                "empty": "",
                "blank": "  ",
                "sl": ["a", "b;c", "", 'q"uote', "x,y"],
                "il": [1, -2, 2**40],
                "fl": [0.1, 2.5],
                "bl": [True, False],
                "el": [],
                "nested": [[1, 2], [3]],
                "mixed": [1, "a", 2.5],
                "m": {"k": 1, "n": [1, "x"], "inner": {"z": None}},
                "by": b"\x00\x01\xffabc",
                "d": date(2020, 2, 29),
                "dl": [date(2020, 1, 1), date(1999, 12, 31)],
                "lt": time(12, 30, 5, 250000),
                "t": time(8, 15, tzinfo=timezone(timedelta(hours=2))),
                "ldt": datetime(2020, 1, 2, 3, 4, 5),
                "dt": datetime(2020, 7, 1, 12, 30, tzinfo=stockholm),
                "dtw": datetime(2020, 1, 1, 12, 30, tzinfo=stockholm),
                "dto": datetime(2020, 1, 2, 3, 4, 5, 123000, tzinfo=timezone(timedelta(hours=5))),
                "dur": timedelta(days=1, hours=2),
                "loc": {"crs": "wgs-84", "srid": 4326, "x": 12.9950357, "y": 55.6121514},
                "loc3": {"crs": "wgs-84-3d", "srid": 4979, "x": -122.31, "y": 37.55, "z": 100.0},
                "cart": hopdb.Point(1.0, -2.5),
            },
        )
        g.upsert_node(k(2), ["Person"], {"s": "plain", "i": 7, "f": -0.0, "sl": ["only"], "m": 3, "nullable": None})
        g.upsert_node(k(3), [], {"i": 1})
        g.upsert_node(k(4), ["Ünïcode", "Other"], {"s": "Ö 日本 \u2603", "il": []})
        g.upsert_node(k(5), ["Bare"], {})
        g.query(
            "MATCH (n {_key: $k}) SET n.durm = duration('P1Y2M3DT4.000000005S'), n.ltn = localtime('12:00:00.123456789'),"
            " n.dtn = datetime('2021-01-01T00:00:00.123456789[America/New_York]'), n.tz = time('10:00+02:00')",
            {"k": k(2)},
        )
        g.upsert_edge(k(1), "KNOWS", k(2), weight=0.5, props={"since": 2001, "note": "met\nat, \"work\""})
        g.upsert_edge(k(2), "KNOWS", k(1), props={"since": 2002})
        g.upsert_edge(k(1), "KNOWS", k(1), weight=1.0)
        g.upsert_edge(k(3), "LIKES", k(4), weight=-2.25)
        g.upsert_edge(k(4), "LIKES", k(5), props={"m": {"a": [1, 2]}, "when": date(2020, 1, 1)})
        g.upsert_edge(k(1), "RATED", k(3), weight=3.0, props={"weight": "a property named weight", "stars": 4})
        g.define_edge_type("SENT", multi=True)
        g.add_edge(k(1), "SENT", k(2), weight=1.0, props={"n": 1})
        g.add_edge(k(1), "SENT", k(2), weight=1.0, props={"n": 1})
        g.add_edge(k(1), "SENT", k(2))
        g.add_edge(k(5), "SENT", k(5), props={"loop": True})
        g.add_edge(k(5), "SENT", k(5), props={"loop": True})


def _export_round_trip(tmp_path: pathlib.Path, integer_keys: bool) -> None:
    store, out = tmp_path / "store", tmp_path / "export"
    build_store(store, integer_keys)
    original = hopdb_graph(store)
    r = subprocess.run([str(HOPDB), "export", str(store), str(out), "--format", "csv", "--json"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["version"] == 2 and manifest["id_type"] == ("integer" if integer_keys else "string"), manifest

    # hopdb import --from-export: the same graph, weights and types.
    again = tmp_path / "again"
    r = subprocess.run([str(HOPDB), "import", str(again), "--from-export", str(out), "--json", "--quiet"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert_same(with_keys(original, "(weight)"), with_keys(hopdb_graph(again), "(weight)"), names=("original", "from export"))
    import hopdb

    with hopdb.Graph(str(store), read_only=True) as a, hopdb.Graph(str(again), read_only=True) as b:
        assert sorted(a.edge_types()) == sorted(b.edge_types())

    # neo4j-admin with the manifest's arguments, in the export directory.
    manifest, run = neo4j_admin_export(out)
    assert run["ok"], f"neo4j-admin rejected HopDB's export:\n{run.get('error')}\n{run['output'][-3000:]}"
    assert_same(json_values(run["graph"], manifest), expected_in_neo4j(original, manifest), names=("neo4j-admin", "hopdb + export conventions"))


def test_10_export_round_trip_string_keys(tmp_path):
    """HopDB's CSV export of a store with string keys and every kind of value loads into
    neo4j-admin with the manifest's arguments (run in the export directory) as the same graph:
    the key as property _key, the weight as the manifest's weight column (a double), maps, nested,
    mixed or empty lists, bytes ({"$bytes": base64}) and nulls as JSON text in the manifest's
    json_columns; ``hopdb import --from-export`` reads it back exactly."""
    _export_round_trip(tmp_path, integer_keys=False)


def test_10_export_round_trip_integer_keys(tmp_path):
    """As the string-key test, with integer keys (--id-type=integer: Neo4j's _key is a long)."""
    _export_round_trip(tmp_path, integer_keys=True)


def test_10_export_of_imported_cases(work, tmp_path):
    """HopDB's import of the files of cases 2, 3, 6 (--multi-edges) and 7, exported and loaded
    into neo4j-admin with the manifest's arguments: the graph neo4j-admin made of the original
    files, plus the property _key (HopDB's key: Group:id, or _:... for a node without an id)."""
    cases = ("C2", "C3", "C6", "C7")
    store, out = tmp_path / "store", tmp_path / "export"
    hopdb_ok(work.hopdb(store, cases, NEO4J_ONLY_OPTIONS + ["--multi-edges"]))
    hop = hopdb_graph(store)
    neo = work.neo4j_graph("main", *cases)
    assert_same(neo, hop)
    r = subprocess.run([str(HOPDB), "export", str(store), str(out), "--format", "csv", "--json"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    manifest, run = neo4j_admin_export(out)
    assert run["ok"], f"neo4j-admin rejected HopDB's export:\n{run.get('error')}\n{run['output'][-3000:]}"
    assert_same(json_values(run["graph"], manifest), expected_in_neo4j(hop, manifest), names=("neo4j-admin of the export", "hopdb"))
    exported = copy.deepcopy(run["graph"])
    for n in exported["nodes"]:
        del n["props"]["_key"]
    assert_same(neo, exported, names=("neo4j-admin of the files", "neo4j-admin of the export"))
