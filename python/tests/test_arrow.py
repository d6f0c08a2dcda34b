"""Arrow tables from Python (pyarrow, Polars) loaded through the Arrow C stream interface:
the same graph as the equivalent upserts, typed properties, bad input named, atomic."""

import pytest

import hopdb

pa = pytest.importorskip("pyarrow")


def test_pyarrow_tables_load_like_upserts():
    nodes = pa.table(
        {
            "id": ["a", "b", "c"],
            "labels": [["Person"], ["Person", "Author"], []],
            "age": [36, None, 7],
            "score": [0.5, 1.5, None],
            "tags": [["x"], [], ["y", "z"]],
        }
    )
    edges = pa.table({"src": ["a", "b"], "dst": ["b", "c"], "type": ["KNOWS", "WROTE"], "weight": [1.0, None], "since": [2020, 2021]})
    g = hopdb.Graph()
    r = g.import_tables(nodes=[nodes], edges=[edges])
    assert (r["nodes"], r["edges"], r["rows"]) == (3, 2, 5)
    assert g.node("a") == {"key": "a", "labels": ["Person"], "props": {"age": 36, "score": 0.5, "tags": ["x"]}}
    assert g.node("b")["labels"] == ["Person", "Author"] and "age" not in g.node("b")["props"]
    assert g.edge("a", "b", "KNOWS") == {"src": "a", "type": "KNOWS", "dst": "b", "weight": 1.0, "props": {"since": 2020}}
    assert g.edge("b", "c", "WROTE")["weight"] is None

    h = hopdb.Graph()
    for row in nodes.to_pylist():
        h.upsert_node(row["id"], row["labels"], {k: v for k, v in row.items() if k not in ("id", "labels") and v is not None})
    for row in edges.to_pylist():
        h.upsert_edge(row["src"], row["type"], row["dst"], row["weight"], {"since": row["since"]})
    assert g.all_nodes() == h.all_nodes()
    assert g.edges_of(["a", "b", "c"]) == h.edges_of(["a", "b", "c"])


def test_specs_int_keys_record_batch_readers_and_polars():
    g = hopdb.Graph()
    t = pa.table({"src": [1, 2, 3], "dst": [2, 3, 1]})
    reader = pa.RecordBatchReader.from_batches(t.schema, t.to_batches(max_chunksize=1))
    g.import_tables(nodes=[("City", pa.table({"id": [1, 2, 3, 4]}))], edges=[("ROAD", reader)])
    assert g.edge_count() == 3 and g.node(4)["labels"] == ["City"] and g.neighbors(1, "out") == [2]
    pl = pytest.importorskip("polars")
    df = pl.DataFrame({"src": ["x", "y"], "dst": ["y", "z"], "w": [0.5, 2.0]})
    g.import_tables(edges=[("LINK", df)], weight="w")
    assert g.edge("x", "y", "LINK")["weight"] == 0.5 and g.degree("y", "both", "LINK") == (2, 2.5)


def test_bad_tables_are_named_and_change_nothing():
    g = hopdb.Graph()
    g.upsert_node("keep")
    with pytest.raises(hopdb.InvalidArgument, match="edges table 1"):
        g.import_tables(edges=[pa.table({"from": ["a"], "to": ["b"]})])
    with pytest.raises(hopdb.InvalidArgument, match="not an Arrow table"):
        g.import_tables(nodes=[{"id": ["a"]}])
    with pytest.raises(hopdb.Error):
        g.import_tables(edges=[("R", pa.table({"src": ["a", None], "dst": ["b", "c"]}))])
    assert g.node_count() == 1 and g.edge_count() == 0


def test_to_arrow_and_back():
    g = hopdb.Graph()
    g.define_edge_type("U", undirected=True)
    g.upsert_node("a", ["P"], {"n": 1, "mixed": "x"})
    g.upsert_node("b", ["P", "Q"], {"n": 2, "mixed": 3})
    g.upsert_edge("a", "R", "b", 0.5, {"since": 2020})
    g.upsert_edge("b", "U", "c")
    t = g.to_arrow()
    assert t["nodes"].num_rows == 3 and set(t["edges"]) == {"R", "U"}
    assert t["edges"]["R"].to_pylist() == [{"src": "a", "dst": "b", "weight": 0.5, "since": 2020}]
    h = hopdb.Graph()
    h.define_edge_type("U", undirected=True)
    h.import_tables(nodes=[t["nodes"]], edges=[(k, v) for k, v in t["edges"].items()])
    assert h.all_nodes() == g.all_nodes()
    assert h.edges_of(["a", "b", "c"]) == g.edges_of(["a", "b", "c"])
    pl = pytest.importorskip("polars")
    frames = g.to_polars()
    assert isinstance(frames["nodes"], pl.DataFrame) and frames["edges"]["U"].height == 1
