"""The neo4j-admin harness (neo4j_admin.py) against the real ``neo4j-admin database import full``
of Neo4j 5.26: the typed graph it dumps, a rejected import, identical rows.

The expected values are what neo4j-admin's documentation says the files mean (Operations Manual
5, "Import": header format, property data types, ID spaces), written out as a graph in the dump's
shape and compared through canonical(), so the comparison HopDB's tests make is tested too.
Four imports (two of them rejected early), two dumps: about half a minute once the jars are
resolved (the first run resolves them with Maven and compiles the dump program: minutes).

Skipped, saying why, without java or mvn."""

from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import neo4j_admin  # noqa: E402

pytestmark = pytest.mark.skipif(neo4j_admin.unavailable_reason() is not None, reason=str(neo4j_admin.unavailable_reason()))


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return str(path)


def s(v):
    return {"t": "string", "v": v}


def long(v):
    return {"t": "long", "v": v}


def double(v):
    return {"t": "double", "v": v}


def node(i, labels, **props):
    return {"id": i, "labels": labels, "props": props}


def rel(start, rtype, end, **props):
    return {"start": start, "type": rtype, "end": end, "props": props}


PEOPLE = """\
id:ID,name,:LABEL,age:int,score:float,tags:string[],born:date,at:datetime{timezone:Europe/Stockholm},seen:datetime,t:time{timezone:+02:00},dur:duration,loc:point{crs:WGS-84},active:boolean
p1,Alice,Admin,42,1.5,a;b;c,1984-10-11,2018-05-10T10:30,2018-05-10T12:30,12:30,P1DT2H,"{latitude:55.6121514, longitude:12.9950357}",true
p2,Bob,,7,2,x,2000-01-01,2018-05-10T10:30[Europe/Berlin],2018-05-10T12:30+05:00,12:30:01Z,PT90M,"{y:51.507222, x:-0.1275}",TRUE
p3,"Carl ""C"" Ö",Admin;Staff,,,,,,,,,"{latitude:37.554167, longitude:-122.313056, height: 100, crs:'WGS-84-3D'}",
"""
COMPANIES = """\
:ID(Company),name
p1,Acme
"""
KNOWS = """\
:START_ID,:END_ID,:TYPE,since:int,weight:double
p1,p2,KNOWS,2001,0.5
p2,p3,KNOWS,,
"""
WORKS = """\
:START_ID,:END_ID(Company),:TYPE
p1,p1,WORKS_AT
"""


def test_typed_values(tmp_path):
    r = neo4j_admin.neo4j_admin_import(
        tmp_path / "neo4j",
        [f"Person={write(tmp_path / 'people.csv', PEOPLE)}", f"Company={write(tmp_path / 'companies.csv', COMPANIES)}"],
        [write(tmp_path / "knows.csv", KNOWS), write(tmp_path / "works.csv", WORKS)],
    )
    assert r["ok"], r["output"][-3000:]
    got = r["graph"]
    # Documented meaning of the files:
    # - `id:ID` keeps the id as a string property `id` (--id-type=string, the default); the
    #   unnamed `:ID(Company)` keeps none, and its space is separate: Company "p1" is not Person "p1".
    # - labels: the --nodes=Person= prefix plus the :LABEL column (`;`-separated; empty: none).
    # - int and float are normalized to Cypher's long and double (--normalize-types=true);
    #   string[] is split on `;`; boolean is true only for exactly "true".
    # - temporal values take Cypher's syntax; the header's timezone applies where the value has
    #   none, else db.temporal.timezone (UTC by default); a value's own zone wins.
    # - point: the header's crs applies to x/y as to latitude/longitude (x = longitude); a value's
    #   crs wins (WGS-84-3D with height: z).
    # - an empty field sets no property.
    expected = {
        "nodes": [
            node(
                10, ["Admin", "Person"],
                id=s("p1"), name=s("Alice"), age=long(42), score=double(1.5),
                tags={"t": "list", "v": [s("a"), s("b"), s("c")]},
                born={"t": "date", "v": "1984-10-11"},
                at={"t": "datetime", "v": "2018-05-10T10:30:00+02:00[Europe/Stockholm]"},
                seen={"t": "datetime", "v": "2018-05-10T12:30:00Z"},
                t={"t": "time", "v": "12:30:00+02:00"},
                dur={"t": "duration", "v": "P1DT2H"},
                loc={"t": "point", "v": {"crs": "wgs-84", "srid": 4326, "x": 12.9950357, "y": 55.6121514}},
                active={"t": "boolean", "v": True},
            ),
            node(
                11, ["Person"],
                id=s("p2"), name=s("Bob"), age=long(7), score=double(2.0),
                tags={"t": "list", "v": [s("x")]},
                born={"t": "date", "v": "2000-01-01"},
                at={"t": "datetime", "v": "2018-05-10T10:30:00+02:00[Europe/Berlin]"},
                seen={"t": "datetime", "v": "2018-05-10T12:30:00+05:00"},
                t={"t": "time", "v": "12:30:01Z"},
                dur={"t": "duration", "v": "PT1H30M"},
                loc={"t": "point", "v": {"crs": "wgs-84", "srid": 4326, "x": -0.1275, "y": 51.507222}},
                active={"t": "boolean", "v": False},
            ),
            node(
                12, ["Admin", "Person", "Staff"],
                id=s("p3"), name=s('Carl "C" \u00d6'),
                loc={"t": "point", "v": {"crs": "wgs-84-3d", "srid": 4979, "x": -122.313056, "y": 37.554167, "z": 100.0}},
            ),
            node(20, ["Company"], name=s("Acme")),
        ],
        "relationships": [
            rel(10, "KNOWS", 11, since=long(2001), weight=double(0.5)),
            rel(11, "KNOWS", 12),
            rel(10, "WORKS_AT", 20),
        ],
    }
    a, b = neo4j_admin.canonical(got), neo4j_admin.canonical(expected)
    assert a == b, "neo4j-admin's graph differs from the documented one:\n" + neo4j_admin.describe_difference(a, b, names=("neo4j", "expected"))
    # The dump keeps the type apart from the value: 2.0 from 2, a date from its text.
    p2 = next(n for n in got["nodes"] if n["props"].get("id") == s("p2"))
    assert p2["props"]["score"] == {"t": "double", "v": 2.0} and isinstance(p2["props"]["score"]["v"], float)
    assert p2["props"]["age"] == {"t": "long", "v": 7} and isinstance(p2["props"]["age"]["v"], int)
    assert r["import_s"] > 0 and r["dump_s"] > 0


def test_rejected_imports(tmp_path):
    nodes = write(tmp_path / "nodes.csv", "id:ID,v:int\na,1\nb,2\n")
    rels = write(tmp_path / "rels.csv", ":START_ID,:END_ID,:TYPE\na,b,R\na,zzz,R\n")
    r = neo4j_admin.neo4j_admin_import(tmp_path / "missing", [nodes], [rels])
    assert not r["ok"] and r["exit_code"] != 0 and "graph" not in r
    assert "a (global id space)-[R]->zzz (global id space) referring to missing node zzz" in r["error"], r["error"]
    assert "IMPORT FAILED" in r["output"]

    bad = write(tmp_path / "bad_header.csv", "id:ID,age:integer\na,1\n")
    r = neo4j_admin.neo4j_admin_import(tmp_path / "header", [bad])
    assert not r["ok"]
    assert "unknown property type 'integer'" in r["error"], r["error"]


def test_identical_rows_are_kept(tmp_path):
    # Two identical relationship rows make two relationships; node rows without an :ID column
    # make a node each, identical or not (they cannot be referred to). One bad row, skipped with
    # --skip-bad-relationships=true, goes to the report.
    nodes = write(tmp_path / "nodes.csv", "id:ID,v:int\na,1\nb,2\n")
    anonymous = write(tmp_path / "anonymous.csv", "name\nn\nn\n")
    rels = write(tmp_path / "rels.csv", ":START_ID,:END_ID,:TYPE,w:int\na,b,R,1\na,b,R,1\na,b,R,\na,b,R,\na,nobody,R,3\n")
    r = neo4j_admin.neo4j_admin_import(tmp_path / "neo4j", [nodes, f"Anon={anonymous}"], [rels], ["--skip-bad-relationships=true"])
    assert r["ok"], r["output"][-3000:]
    assert "referring to missing node nobody" in r["report"], r["report"]
    got = neo4j_admin.canonical(r["graph"])
    a = ((), (("id", ("string", "a")), ("v", ("long", 1))))
    b = ((), (("id", ("string", "b")), ("v", ("long", 2))))
    n = (("Anon",), (("name", ("string", "n")),))
    r_w1 = (a, "R", b, (("w", ("long", 1)),))
    r_none = (a, "R", b, ())
    want = (neo4j_admin.sort_signatures([a, b, n, n]), neo4j_admin.sort_signatures([r_w1, r_w1, r_none, r_none]))
    assert got == want, neo4j_admin.describe_difference(got, want, names=("neo4j", "expected"))


def test_canonical_and_difference():
    # No JVM: canonical() ignores internal ids and orders; describe_difference() names what differs.
    g1 = {
        "nodes": [node(1, ["B", "A"], x=long(1)), node(2, [], y={"t": "list", "v": [double("NaN"), double(1.5)]})],
        "relationships": [rel(1, "T", 2, w=long(1)), rel(1, "T", 2, w=long(1))],
    }
    g2 = {
        "nodes": [node(7, [], y={"t": "list", "v": [double("NaN"), double(1.5)]}), node(3, ["A", "B"], x=long(1))],
        "relationships": [rel(3, "T", 7, w=long(1)), rel(3, "T", 7, w=long(1))],
    }
    c1, c2 = neo4j_admin.canonical(g1), neo4j_admin.canonical(g2)
    assert c1 == c2 and hash(c1) == hash(c2)
    assert neo4j_admin.describe_difference(c1, c2) == ""
    g3 = {"nodes": [node(3, ["A", "B"], x=double(1.0)), node(7, [])], "relationships": [rel(3, "T", 7, w=long(1))]}
    diff = neo4j_admin.describe_difference(c1, neo4j_admin.canonical(g3), names=("g1", "g3"))
    assert "nodes only in g1 (2; g1 has 2 in all):" in diff
    assert "(:A:B {x: long 1})" in diff and "(:A:B {x: double 1.0})" in diff
    assert "relationships only in g1 (2; g1 has 2 in all):" in diff and "  x2" in diff
    assert "relationships only in g3 (1; g3 has 1 in all):" in diff
