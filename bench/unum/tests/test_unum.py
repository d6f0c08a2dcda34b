"""Tests of the UnumDB-suite harness itself (no database server, seconds): dataset parsing,
sample drawing, the answer comparison, the statistics and ratio maths, the report.
`python3 -m pytest -q -p no:cacheprovider bench/unum/tests`"""

import gzip
import json

import pytest

from bench.engines.networkx import NetworkXUnum
from bench.engines.sqlite import SQLiteUnum
from bench.unum import datasets, report, worker, workload

# ---------------------------------------------------------------------------------------------
# Parsing


def rows(text, skip=0):
    return list(datasets.parse_lines(text.splitlines(), skip))


def test_snap_comments_and_tabs():
    assert rows("# Directed graph\n# FromNodeId\tToNodeId\n30\t1412\n30\t3352\n") == [(30, 1412, 1.0), (30, 3352, 1.0)]


def test_count_line_skipped_only_when_asked():
    text = "325729 1497134\n0 1\n"
    assert rows(text, skip=1) == [(0, 1, 1.0)]
    assert rows(text) == [(325729, 1497134, 1.0), (0, 1, 1.0)]


def test_dimacs_arcs_and_weights():
    text = "c 9th DIMACS\nc\np sp 3 2\nc graph\na 1 2 803\na 2 1 158\n"
    assert rows(text) == [(1, 2, 803.0), (2, 1, 158.0)]


def test_csv_header_and_percent_comments():
    assert rows("id_1,id_2\n0,23977\n% note\n1,34526\n") == [(0, 23977, 1.0), (1, 34526, 1.0)]


def test_non_integer_id_after_the_header_is_an_error():
    with pytest.raises(ValueError):
        rows("a,b\n1,2\nx,3\n")


def test_merge_keeps_the_last_weight():
    edges, n = datasets.merge([(1, 2, 5.0), (2, 1, 1.0), (1, 2, 7.0)])
    assert n == 3 and edges == {(1, 2): 7.0, (2, 1): 1.0}


def test_load_reads_gz_writes_normalised_csv_and_reuses_it(tmp_path, monkeypatch):
    root = tmp_path / "data"
    (root / "dimacs9-road-NY").mkdir(parents=True)
    with gzip.open(root / "dimacs9-road-NY" / "USA-road-d.NY.gr.gz", "wt") as f:
        f.write("c x\np sp 3 3\na 1 2 10\na 2 3 20\na 1 2 30\na 3 3 1\n")
    ds = datasets.load("dimacs9-road-NY", str(root), str(tmp_path / "cache"))
    assert ds.edges == {(1, 2): 30.0, (2, 3): 20.0, (3, 3): 1.0}
    assert ds.nodes == [1, 2, 3]
    assert ds.info["lines"] == 4 and ds.info["duplicates_merged"] == 1 and ds.info["self_loops"] == 1
    assert open(ds.csv).read() == "src,dst,weight\n1,2,30.0\n2,3,20.0\n3,3,1.0\n"
    monkeypatch.setattr(datasets, "open_text", lambda p: pytest.fail("the cached file should be used"))
    again = datasets.load("dimacs9-road-NY", str(root), str(tmp_path / "cache"))
    assert again.edges == ds.edges and again.info == ds.info
    assert datasets.load("musae-github", str(root), str(tmp_path / "cache")) is None  # absent


# ---------------------------------------------------------------------------------------------
# Samples

EDGES = {(i, (i * 7 + 3) % 50): float(i % 5 + 1) for i in range(50)}
EDGES.update({(3, 2): 1.0, (2, 3): 2.0, (4, 4): 0.5})
NODES = sorted({v for e in EDGES for v in e})
P = {"reads": 400, "writes": 20, "batches": 2, "batch": 10, "check": 40}


def test_samples_are_deterministic_and_seed_dependent():
    a = workload.plan(EDGES, NODES, P, 42)
    b = workload.plan(EDGES, NODES, P, 42)
    c = workload.plan(EDGES, NODES, P, 43)
    assert a == b
    assert a[0]["find_edge"] != c[0]["find_edge"] and a[0]["neighbors"] != c[0]["neighbors"]
    assert a[0]["find_edge"] != a[1]["find_edge"][: len(a[0]["find_edge"])]  # check items are another draw


def test_absent_share_of_find_edge_and_find_directed():
    items, _ = workload.plan(EDGES, NODES, P, 1)
    either = sum(1 for u, v in items["find_edge"] if (u, v) in EDGES or (v, u) in EDGES)
    directed = sum(1 for u, v in items["find_directed"] if (u, v) in EDGES)
    assert either == directed == P["reads"] * (1 - workload.ABSENT_SHARE)
    # half the present find_edge pairs are reversed edges, so a direction-blind lookup is needed
    assert any((u, v) not in EDGES for u, v in items["find_edge"] if (v, u) in EDGES)
    # some absent directed pairs are reversed edges (a direction-blind engine would answer True)
    assert any((v, u) in EDGES for u, v in items["find_directed"] if (u, v) not in EDGES)


def test_write_samples_absent_present_and_distinct():
    items, _ = workload.plan(EDGES, NODES, P, 7)
    ups = items["upsert"] + [e for b in items["upsert_batch"] for e in b]
    rms = items["remove"] + [e for b in items["remove_batch"] for e in b]
    assert len(ups) == len(rms) == P["writes"] + P["batches"] * P["batch"]
    assert len({(u, v) for u, v, _w in ups}) == len(ups) and not any((u, v) in EDGES for u, v, _w in ups)
    assert len(set(map(tuple, rms))) == len(rms) and all(tuple(e) in EDGES for e in rms)
    assert all(len(b) == P["batch"] for b in items["upsert_batch"] + items["remove_batch"])


def test_too_many_removes_is_refused():
    with pytest.raises(ValueError):
        workload.plan(EDGES, NODES, dict(P, writes=100), 1)


# ---------------------------------------------------------------------------------------------
# Answers


def test_canon_forms():
    assert workload.canon("edges_of", [(4, 4, 0.5), (4, 4, 0.5), (1, 4, 1.0)]) == [(1, 4), (4, 4)]
    assert workload.canon("edges_of", [{"src": 2, "dst": 3, "weight": 1.0, "props": {}}]) == [(2, 3)]
    assert workload.canon("neighbors", [(5,), (2,), (5,)]) == [2, 5]
    assert workload.canon("neighbors", [5, 2]) == [2, 5]
    assert workload.canon("count_in", (0, None)) == [0, 0.0]
    assert workload.canon("find_edge", []) is False and workload.canon("find_edge", [[1]]) is True


def test_compare_tolerates_float_order_and_detects_wrong_answers():
    assert workload.compare("count_out", [3, 0.1 + 0.2 + 0.3], [3, 0.3 + 0.2 + 0.1]) is None
    assert workload.compare("count_out", [3, 6.0], [3, 6.001]) is not None
    assert workload.compare("count_out", [3, 6.0], [2, 6.0]) is not None
    assert workload.compare("edges_of", [[1, 4], [4, 4]], [(1, 4), (4, 4)]) is None  # JSON lists vs tuples
    assert workload.compare("edges_of", [[1, 4], [4, 4]], [(1, 4)]) is not None
    assert workload.compare("neighbors", [1, 2], [1, 3]) is not None
    assert workload.compare("find_directed", True, False) is not None


def sqlite_and_reference(tmp_path):
    csv = tmp_path / "e.csv"
    csv.write_text("src,dst,weight\n" + "".join(f"{s},{d},{w!r}\n" for (s, d), w in EDGES.items()))
    ref, eng = NetworkXUnum(), SQLiteUnum()
    ref.open(None)
    ref.load(str(csv))
    eng.open(str(tmp_path))
    eng.load(str(csv))
    return ref, eng


def test_engines_agree_and_a_wrong_engine_is_caught(tmp_path):
    ref, eng = sqlite_and_reference(tmp_path)
    _, check = workload.plan(EDGES, NODES, P, 5)
    for op in workload.READ_OPS:
        for it in check[op]:
            args = it if isinstance(it, tuple) else (it,)
            want = workload.canon(op, getattr(ref, op)(*args))
            assert workload.compare(op, want, workload.canon(op, getattr(eng, op)(*args))) is None, (op, it)
    # an engine that ignores the direction answers some find_directed items wrongly
    wrong = [it for it in check["find_directed"] if workload.compare("find_directed", workload.canon("find_directed", ref.find_directed(*it)),
                                                                        workload.canon("find_directed", eng.find_edge(*it)))]
    assert wrong
    eng.upsert_batch([(100, 101, 2.5), (3, 2, 9.0)])
    eng.remove(4, 4)
    assert eng.edge_count() == len(EDGES) + 1 - 1
    assert workload.canon("count_out", eng.count_out(3)) == [2, 9.0 + EDGES[(3, 3 * 7 + 3)]]
    eng.close()


# ---------------------------------------------------------------------------------------------
# Statistics, ratios, report


def test_summarize_percentiles_and_rates():
    s = workload.summarize([1000 * i for i in range(1, 101)], 1)  # 1..100 µs
    assert s["calls"] == 100 and s["items"] == 100
    assert s["p50_us"] == pytest.approx(50.5)
    assert s["p99_us"] == pytest.approx(99.01)
    assert s["ops_per_s"] == pytest.approx(100 / (5050 * 1e-6))
    b = workload.summarize([2_000_000, 2_000_000], 500)  # two 2 ms batches of 500 edges
    assert b["items"] == 1000 and b["ops_per_s"] == pytest.approx(250_000)


def test_read_budget_stops_early_and_keeps_every_item_without_it():
    import time

    seen = []
    slow = lambda x: (seen.append(x), time.sleep(0.01))  # noqa: E731
    lat = worker.timed(slow, list(range(100)), False, budget_s=0.05)
    assert 4 <= len(lat) < 20 and seen == list(range(len(lat)))  # a prefix, stopped near the budget
    assert len(worker.timed(lambda a, b: None, [[1, 2]] * 50, True)) == 50


def test_ratio_and_format():
    assert workload.ratio(200.0, 100.0) == 2.0
    assert workload.ratio(50.0, 100.0) == 0.5
    assert workload.ratio(None, 100.0) is None and workload.ratio(100.0, 0) is None
    assert workload.fmt_ratio(2.0) == "2.00x" and workload.fmt_ratio(12.34) == "12.3x" and workload.fmt_ratio(1234) == "1,234x"
    assert workload.fmt_ratio(None) == "-"


def test_report_from_lines(tmp_path):
    base = {"run_id": "r", "profile": "quick", "command": "c", "host": {}, "dataset": "d", "ops_config": P, "file": "f", "nodes": 3, "edges": 2,
            "lines": 2, "duplicates_merged": 0, "self_loops": 0, "weight": "none", "version": "v", "durability": "x", "notes": "n",
            "loadavg_before": [0.1], "loadavg_after": [0.2], "others_cores_before": 0.0, "status": "ok", "reason": ""}
    lines = []
    for e, k in (("hopdb", 2.0), ("sqlite", 1.0)):
        lines.append(dict(base, engine=e, measurement="import", import_s=1 / k, edges_per_s=1000 * k, disk_bytes=1 << 20, peak_rss_import_mib=10,
                          peak_rss_run_mib=12, reads_wall_s=1.0, reads_client_cpu_s=0.5, writes_wall_s=1, writes_client_cpu_s=1))
        for op in workload.OPS:
            lines.append(dict(base, engine=e, measurement=op, ops_per_s=100 * k, p50_us=5, p95_us=6, p99_us=7, calls=1, items=1, seconds=1))
    lines.append(dict(base, engine="kuzu", measurement="all", status="failed", reason="boom", wrong_answer=True))
    jl = tmp_path / "results.jsonl"
    jl.write_text("".join(json.dumps(x) + "\n" for x in lines))
    report.write(str(jl), str(tmp_path))
    md = (tmp_path / "report.md").read_text()
    assert "| find edge (either direction) | 200 | 100 (2.00x) |" in md
    assert "| SQLite | 1.00 | 1,000 | 2.00x |" in md
    assert "Kuzu: **failed** (wrong answer): boom" in md
    assert (tmp_path / "unum_ops_d.png").exists() and (tmp_path / "unum_import.png").exists()
