"""Cypher from Python: ``Graph.query`` with parameters, ``QueryResult`` (columns, rows, len,
indexing, stats, plan, dicts, pyarrow / Polars / pandas), ``Node`` / ``Relationship`` / path
values, and ``CypherError`` with its Neo4j code and position."""

import datetime
import importlib.util
import threading

import pytest

import hopdb


def people() -> hopdb.Graph:
    g = hopdb.Graph()
    g.query(
        "CREATE (a:Person {_key: 'ada', name: 'Ada', born: 1815})-[:KNOWS {since: 1833}]->"
        "(b:Person:Author {_key: 'charles', name: 'Charles'})"
    )
    return g


def test_api_is_exported():
    assert issubclass(hopdb.CypherError, hopdb.Error)
    for name in ("QueryResult", "Node", "Relationship", "CypherError"):
        assert name in hopdb.__all__ and hasattr(hopdb, name)
    assert callable(hopdb.Graph().query)


def test_errors_are_cypher_errors_with_a_neo4j_code():
    g = hopdb.Graph()
    with pytest.raises(hopdb.CypherError) as info:
        g.query("MATCH (n)\nRETURN n +")
    e = info.value
    assert isinstance(e, hopdb.Error)
    assert e.code.startswith("Neo.ClientError.Statement.")
    assert e.phase in ("compile", "runtime") and e.classification and e.detail and e.message
    assert e.code in str(e)
    for attr in ("line", "column", "offset"):
        assert getattr(e, attr) is None or isinstance(getattr(e, attr), int)


def test_temporal_values_are_python_datetime_values():
    """Cypher's temporal types come back as datetime.date / time / datetime / timedelta (a named
    zone as zoneinfo.ZoneInfo) and go in as parameters and as stored properties; what Python's
    types cannot hold exactly (months in a duration, nanoseconds) comes back as its ISO text."""
    from zoneinfo import ZoneInfo

    g = hopdb.Graph()
    stockholm = datetime.datetime(2024, 6, 1, 12, 30, 15, 250000, tzinfo=ZoneInfo("Europe/Stockholm"))
    row = g.query(
        "RETURN date('2024-02-29') AS d, localtime('08:15:30') AS lt, time('08:15+02:00') AS t, "
        "localdatetime('2024-06-01T12:00') AS ldt, datetime('2024-06-01T12:30:15.25[Europe/Stockholm]') AS zdt, "
        "datetime('2024-06-01T12:00-05:00') AS fixed, duration('P2DT3.0005S') AS dur, duration('P1M') AS months, "
        "localtime('08:15:30.123456789') AS nanos"
    ).to_dicts()[0]
    assert row["d"] == datetime.date(2024, 2, 29)
    assert row["lt"] == datetime.time(8, 15, 30)
    assert row["t"] == datetime.time(8, 15, tzinfo=datetime.timezone(datetime.timedelta(hours=2)))
    assert row["ldt"] == datetime.datetime(2024, 6, 1, 12, 0)
    assert row["zdt"] == stockholm and row["zdt"].tzinfo == ZoneInfo("Europe/Stockholm")
    assert row["fixed"].utcoffset() == datetime.timedelta(hours=-5)
    assert row["dur"] == datetime.timedelta(days=2, seconds=3, microseconds=500)
    assert (row["months"], row["nanos"]) == ("P1M", "08:15:30.123456789")
    # Parameters, compared inside the query.
    same = g.query(
        "RETURN $d = date('2024-02-29'), $z = datetime('2024-06-01T12:30:15.25[Europe/Stockholm]'), "
        "$z.timezone, $ldt = localdatetime('2024-06-01T12:00'), $dur = duration('P2DT3.0005S'), "
        "$t = localtime('08:15:30')",
        {"d": row["d"], "z": stockholm, "ldt": row["ldt"], "dur": row["dur"], "t": row["lt"]},
    )[0]
    assert same == (True, True, "Europe/Stockholm", True, True, True)
    # Stored properties, through the native calls and through Cypher.
    g.upsert_node("n", props={"born": datetime.date(1815, 12, 10), "at": stockholm, "span": datetime.timedelta(hours=5)})
    props = g.node("n")["props"]
    assert props == {"born": datetime.date(1815, 12, 10), "at": stockholm, "span": datetime.timedelta(hours=5)}
    assert list(g.query("MATCH (n {_key: 'n'}) RETURN n.born.year, n.at.timezone, n.span.hours")) == [
        (1815, "Europe/Stockholm", 5)
    ]


def test_unsupported_parameter_types_raise_type_error():
    g = hopdb.Graph()
    with pytest.raises(TypeError, match=r"\$x: .*not object"):
        g.query("RETURN $x", {"x": [1, {"k": object()}]})
    with pytest.raises(TypeError, match="map keys are str"):
        g.query("RETURN $x", {"x": {1: "a"}})
    with pytest.raises(TypeError, match="parameter names are str"):
        g.query("RETURN 1", {1: "a"})
    with pytest.raises(TypeError, match="dict of name"):
        g.query("RETURN 1", [("a", 1)])
    with pytest.raises(OverflowError, match="64 bits"):
        g.query("RETURN $i", {"i": 2**64})
    with pytest.raises(hopdb.InvalidArgument, match="timeout"):
        g.query("RETURN 1", timeout=-1)


def test_closed_graph():
    g = hopdb.Graph()
    g.close()
    with pytest.raises(hopdb.ClosedError):
        g.query("RETURN 1")


# --- With the engine. ---


def test_rows_columns_len_indexing_and_dicts():
    g = people()
    r = g.query("MATCH (p:Person) RETURN p.name AS name, p.born AS born ORDER BY name")
    assert r.columns == ["name", "born"]
    assert len(r) == 2
    assert list(r) == [("Ada", 1815), ("Charles", None)]
    assert list(r) == list(r), "a result can be iterated again"
    assert r[0] == ("Ada", 1815) and r[-1] == ("Charles", None)
    with pytest.raises(IndexError):
        r[2]
    assert r.to_dicts() == [{"name": "Ada", "born": 1815}, {"name": "Charles", "born": None}]
    assert r.plan is None
    assert not any(r.stats.values())
    assert "rows=2" in repr(r)


def test_neo4j_driver_readers_value_values_data():
    """``value``, ``values`` and ``data`` as the Neo4j Python driver's ``Result`` defines them,
    checked against the rows the same result iterates."""
    g = people()
    r = g.query("MATCH (p:Person) RETURN p.name AS name, p.born AS born, p AS node ORDER BY name")
    rows = list(r)
    assert r.value() == [row[0] for row in rows] == ["Ada", "Charles"]
    assert r.value("born") == r.value(1) == [1815, None]
    assert [n.key for n in r.value("node")] == ["ada", "charles"]
    # A column the result lacks: the default for every row, as the driver's Record.value.
    # Indexes count from 0 only (the driver's Record.index): -1 is out of range too.
    assert r.value("nope") == [None, None] and r.value(7, default=0) == r.value(-1, 0) == [0, 0]
    assert r.values() == [list(row) for row in rows]
    assert r.values("born", "name") == [[1815, "Ada"], [None, "Charles"]]
    assert r.values("nope") == [[None], [None]]
    for bad in (3, -1):
        with pytest.raises(IndexError, match="out of range"):
            r.values(bad)
    assert r.data() == r.to_dicts()
    assert r.data(1, "name") == [{"born": 1815, "name": "Ada"}, {"born": None, "name": "Charles"}]
    assert r.data("nope") == [{"nope": None}, {"nope": None}]
    with pytest.raises(IndexError):
        r.data(-4)
    with pytest.raises(TypeError, match="index .int. or name .str."):
        r.value(1.5)
    empty = g.query("MATCH (p:Nobody) RETURN p.name AS name")
    assert empty.value() == [] and empty.values() == [] and empty.data() == []


def test_one_column_results_read_alike_whatever_made_them():
    """A walk's one-column RETURN comes over as bare values (no row per value): every reader
    gives what it gives for the same column made row by row (``WHERE true`` keeps the walk
    off), and what the result's own rows say."""
    g = hopdb.Graph()
    g.query("UNWIND range(1, 30) AS i CREATE ({_key: 'n' + i, i: i})")
    g.query("MATCH (a), (b) WHERE b.i = a.i + 1 OR b.i = a.i * 3 CREATE (a)-[:NEXT]->(b)")
    g.project()
    walk = "MATCH ({_key: $k})-[*1..3]->(n) RETURN DISTINCT n._key AS k"
    rowwise = "MATCH ({_key: $k})-[*1..3]->(n) WHERE true RETURN DISTINCT n._key AS k"
    assert "Walk" in g.query("PROFILE " + walk, {"k": "n2"}).plan
    assert "Walk" not in g.query("PROFILE " + rowwise, {"k": "n2"}).plan
    fast, slow = g.query(walk, {"k": "n2"}), g.query(rowwise, {"k": "n2"})
    # The ends of 1..3 steps from n2 along i -> i + 1 and i -> 3i, counted here.
    ends, frontier = set(), {2}
    for _ in range(3):
        frontier = {j for i in frontier for j in (i + 1, 3 * i) if j <= 30}
        ends |= frontier
    want = sorted(f"n{i}" for i in ends)
    assert sorted(fast.value()) == sorted(slow.value()) == want
    n = len(want)
    rows = list(fast)
    assert len(fast) == len(rows) == n and all(len(r) == 1 for r in rows)
    assert fast.columns == ["k"] and fast[0] == rows[0] and fast[-1] == rows[-1]
    with pytest.raises(IndexError):
        fast[n]
    assert fast.value() == fast.value("k") == fast.value(0) == [r[0] for r in rows]
    assert fast.value("nope") == [None] * n
    assert fast.values() == [list(r) for r in rows]
    assert fast.data() == fast.to_dicts() == [{"k": r[0]} for r in rows]
    if importlib.util.find_spec("pyarrow"):
        assert fast.to_arrow().column("k").to_pylist() == [r[0] for r in rows]
    assert f"rows={n}" in repr(fast)


def test_write_stats():
    g = hopdb.Graph()
    r = g.query("CREATE (:A {x: 1, y: 2})-[:R]->(:B)")
    assert r.columns == [] and len(r) == 0
    s = r.stats
    assert (s["nodes_created"], s["relationships_created"], s["properties_set"], s["labels_added"]) == (2, 1, 2, 2)
    assert set(s) >= {"nodes_deleted", "relationships_deleted", "properties_removed", "labels_removed"}
    assert g.query("MATCH (n:A) DETACH DELETE n").stats["nodes_deleted"] == 1
    assert g.node_count() == 1


def test_parameters_round_trip():
    g = hopdb.Graph()
    params = {"n": None, "b": True, "i": -(2**63), "f": 1.5, "s": "ü", "l": [1, "x", [None]], "m": {"k": {"z": 1}}, "t": (1, 2)}
    cols = ", ".join(f"${k} AS {k}" for k in params)
    (row,) = g.query(f"RETURN {cols}", params)
    want = dict(params, t=[1, 2])
    assert dict(zip(params, row)) == want
    assert g.query("RETURN $by AS by", {"by": b"\x00\xff"})[0] == (b"\x00\xff",)
    with pytest.raises(hopdb.CypherError) as info:
        g.query("RETURN $missing AS x")
    assert info.value.code == "Neo.ClientError.Statement.ParameterMissing"


def test_nodes_relationships_and_paths():
    g = people()
    (a, r, b, p) = g.query("MATCH p = (a {_key: 'ada'})-[r:KNOWS]->(b) RETURN a, r, b, p")[0]
    assert isinstance(a, hopdb.Node) and isinstance(r, hopdb.Relationship)
    assert a.key == "ada" and a.labels == ["Person"] and a.properties == {"name": "Ada", "born": 1815}
    assert b.key == "charles" and sorted(b.labels) == ["Author", "Person"]
    assert isinstance(a.id, int) and a.element_id == str(a.id) and a.id != b.id
    assert a["name"] == "Ada" and a.get("missing") is None and a.get("missing", 7) == 7
    with pytest.raises(KeyError):
        a["missing"]
    a.properties["name"] = "changed"
    assert a["name"] == "Ada", "properties is a copy"
    assert r.type == "KNOWS" and r.properties == {"since": 1833} and r["since"] == 1833
    assert (r.start, r.end) == (a.id, b.id) and (r.start_key, r.end_key) == ("ada", "charles")
    assert isinstance(r.id, int) and r.element_id == str(r.id)
    assert p == [a, r, b]
    assert a.to_dict() == {"id": a.id, "element_id": a.element_id, "key": "ada", "labels": ["Person"], "properties": {"name": "Ada", "born": 1815}}
    assert r.to_dict() == {
        "id": r.id,
        "element_id": r.element_id,
        "type": "KNOWS",
        "start": a.id,
        "end": b.id,
        "start_key": "ada",
        "end_key": "charles",
        "properties": {"since": 1833},
    }
    (a2,) = g.query("MATCH (a {_key: 'ada'}) RETURN a")[0]
    assert a2 == a and hash(a2) == hash(a) and a != b and a != "ada"
    assert len({a, a2, b}) == 2
    assert repr(a).startswith("Node(") and "'ada'" in repr(a) and repr(r).startswith("Relationship(")


def test_syntax_errors_have_a_position():
    g = hopdb.Graph()
    with pytest.raises(hopdb.CypherError) as info:
        g.query("MATCH (n)\nRETURN n +")
    e = info.value
    assert e.code == "Neo.ClientError.Statement.SyntaxError" and e.classification == "SyntaxError"
    assert e.phase == "compile" and e.line == 2 and isinstance(e.column, int) and e.column > 1
    with pytest.raises(hopdb.CypherError) as info:
        g.query("RETURN 1 / 0")
    assert info.value.code == "Neo.ClientError.Statement.ArgumentError" and info.value.line is None


def test_explain_has_a_plan():
    g = people()
    r = g.query("EXPLAIN MATCH (p:Person) RETURN p")
    assert isinstance(r.plan, str) and r.plan.strip()


def test_tables():
    pa = pytest.importorskip("pyarrow")
    g = people()
    r = g.query(
        "MATCH (p:Person)-[k:KNOWS]->(q) "
        "UNWIND [1, 'two'] AS mixed "
        "RETURN p.name AS name, p.born AS born, p AS node, k AS rel, mixed ORDER BY mixed"
    )
    t = r.to_arrow()
    assert t.column_names == ["name", "born", "node", "rel", "mixed"]
    assert t.column("name").to_pylist() == ["Ada", "Ada"]
    assert t.schema.field("born").type == pa.int64()
    assert t.column("node").to_pylist()[0]["key"] == "ada"
    assert t.column("rel").to_pylist()[0]["type"] == "KNOWS"
    assert sorted(t.column("mixed").to_pylist()) == ['"two"', "1"], "mixed kinds become JSON text"
    pl = pytest.importorskip("polars")
    df = r.to_polars()
    assert isinstance(df, pl.DataFrame) and df.columns == t.column_names and df.height == 2
    pytest.importorskip("pandas")
    pdf = r.to_pandas()
    assert list(pdf.columns) == t.column_names and len(pdf) == 2
    empty = g.query("MATCH (n:Nobody) RETURN n.name AS name").to_arrow()
    assert empty.column_names == ["name"] and empty.num_rows == 0


def test_threads_share_the_engine():
    g = people()
    errors = []

    def work():
        try:
            for _ in range(50):
                assert g.query("MATCH (p:Person {name: $n}) RETURN p.born", {"n": "Ada"})[0] == (1815,)
        except Exception as e:
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_points_are_hopdb_points_both_ways(tmp_path):
    """hopdb.Point in parameters, results and stored properties; a stored map of the point shape
    (as `hopdb import` and earlier versions wrote) reads back as a point; bad points are refused
    with the reason."""
    P = hopdb.Point
    with hopdb.Graph(str(tmp_path / "g")) as g:
        g.upsert_node("a", ["Place"], {"loc": P.wgs84(13.0, 55.6), "grid": P(1, 2, 3)})
        g.upsert_node("b", ["Place"], {"loc": {"crs": "wgs-84", "srid": 4326, "x": 12.57, "y": 55.68}})
        props = g.node("b")["props"]
        assert props["loc"] == P.wgs84(12.57, 55.68) and props["loc"].latitude == 55.68
        row = g.query(
            "MATCH (a {_key: 'a'}), (b {_key: 'b'}) RETURN a.loc AS a, a.grid.z AS z, a.grid.crs AS crs,"
            " point.distance(a.loc, b.loc) AS d, point.distance(a.loc, $p) AS zero",
            params={"p": P.wgs84(13.0, 55.6)},
        ).to_dicts()[0]
        assert row["a"] == P.wgs84(13.0, 55.6) and (row["z"], row["crs"]) == (3.0, "cartesian-3d")
        assert 28_000 < row["d"] < 29_000 and row["zero"] == 0.0
        assert P.wgs84(13.0, 55.6).distance(P.wgs84(12.57, 55.68)) == pytest.approx(row["d"], rel=1e-12)
        # Geographic points wrap their longitude; a cartesian point has no latitude.
        assert g.query("RETURN point({longitude: 200, latitude: 0}) AS p").to_dicts()[0]["p"] == P.wgs84(-160, 0)
        assert (P(1, 2).crs, P(1, 2).srid, P(1, 2, 3).srid, P.wgs84(1, 2, 3).crs) == ("cartesian", 7203, 9157, "wgs-84-3d")
        assert list(P(1, 2, 3)) == [1.0, 2.0, 3.0] and len(P(1, 2)) == 2 and P(1, 2, srid=4326) == P.wgs84(1, 2)
        assert {P(1, 2), P(1.0, 2.0)} == {P(1, 2)}
        with pytest.raises(AttributeError, match="no latitude"):
            _ = P(1, 2).latitude
        with pytest.raises(ValueError, match="latitude"):
            P.wgs84(0, 91)
        with pytest.raises(ValueError, match="crs or srid"):
            P(1, 2, crs="cartesian", srid=4326)
        with pytest.raises(ValueError, match="coordinates"):
            P(1, 2, 3, crs="wgs-84")
        with pytest.raises(hopdb.CypherError, match="different coordinate systems"):
            g.query("MATCH (a {_key: 'a'}) SET a.route = [point({x: 1, y: 2}), point({x: 1, y: 2, z: 3})]")
        assert "route" not in g.node("a")["props"]
