"""Tests of the Cozo-suite harness: parsing, samples, reference answers, checks, maths. No database."""

import gzip
import os

import pytest

from bench.benchlib import module_cmd, module_env
from bench.cozo_suite.datasets import (
    Data,
    adjacency,
    check_counts,
    check_group_by,
    check_node,
    check_pagerank,
    group_by,
    new_keys,
    new_props,
    parse,
    percentile,
    ratio,
    sample_keys,
    within_k,
)
from bench.cozo_suite.worker import qps_window

SHARED = "/work/shared/datasets"


def write_gz(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with gzip.open(path, "wt") as f:
        f.write(text)


@pytest.fixture
def tiny_twitch(tmp_path):
    """A 5-node graph in the musae-twitch-DE file layout (ids out of order, one duplicate edge)."""
    d = tmp_path / "musae-twitch-DE"
    write_gz(str(d / "DE_target.csv.gz"), "id,days,mature,views,partner,new_id\n11,100,True,5,False,2\n10,200,False,7,True,0\n12,1,True,0,False,1\n13,3,False,9,False,3\n14,4,True,1,True,4\n")
    write_gz(str(d / "DE_edges.csv.gz"), "from,to\n0,1\n1,2\n2,3\n3,4\n1,0\n")
    return parse("twitch-de", str(tmp_path))


def test_parse_types_order_and_dedup(tiny_twitch):
    d = tiny_twitch
    assert d.keys == [0, 1, 2, 3, 4]
    assert d.types == {"days": "int", "mature": "bool", "views": "int", "partner": "bool"}
    assert d.node_props(0) == {"days": 200, "mature": False, "views": 7, "partner": True}
    assert d.node_props(2) == {"days": 100, "mature": True, "views": 5, "partner": False}
    assert isinstance(d.props["mature"][0], bool) and isinstance(d.props["views"][0], int)
    assert d.raw_edges == 5 and list(zip(d.src, d.dst, strict=False)) == [(0, 1), (1, 2), (2, 3), (3, 4)]  # 1,0 = 0,1 undirected
    assert d.rows == 9


def test_parse_rejects_bad_bool(tmp_path):
    d = tmp_path / "musae-twitch-DE"
    write_gz(str(d / "DE_target.csv.gz"), "id,days,mature,views,partner,new_id\n1,2,yes,3,False,0\n")
    write_gz(str(d / "DE_edges.csv.gz"), "from,to\n")
    with pytest.raises(ValueError):
        parse("twitch-de", str(tmp_path))


def test_absent_dataset_is_none(tmp_path):
    assert parse("github", str(tmp_path)) is None


@pytest.mark.skipif(not os.path.isdir(os.path.join(SHARED, "musae-twitch-DE")), reason="real datasets absent")
def test_real_twitch_matches_sources_md():
    d = parse("twitch-de", SHARED)
    assert (len(d.keys), len(d.src)) == (9498, 153138)
    assert sum(d.props["mature"]) == 5742 and sum(d.props["partner"]) == 597
    assert max(d.props["views"]) == 100394785
    i = d.keys.index(5079)
    assert d.node_props(i) == {"days": 2149, "mature": True, "views": 162078, "partner": False}


@pytest.mark.skipif(not os.path.isdir(os.path.join(SHARED, "musae-github")), reason="real datasets absent")
def test_real_github_matches_sources_md():
    d = parse("github", SHARED)
    assert (len(d.keys), len(d.src)) == (37700, 289003)
    gb = group_by(d, "ml_target")
    assert gb[0][0] == 27961 and gb[1][0] == 9739
    assert gb[0][1] + gb[1][1] == 2 * 289003  # degrees sum to twice the edges
    assert d.node_props(0) == {"name": "Eiryyy", "ml_target": 0}


def test_samples_are_deterministic(tiny_twitch):
    d = Data("x", list(range(1000)), {}, {}, [], [], False, 0)
    assert sample_keys(d, 20, 7) == sample_keys(d, 20, 7)
    assert sample_keys(d, 20, 7) != sample_keys(d, 20, 8)
    assert len(set(sample_keys(d, 20, 7))) == 20
    assert new_keys(d, 3) == [1000, 1001, 1002] and new_keys(d, 2, offset=10) == [1010, 1011]
    import random

    p1, p2 = new_props(tiny_twitch, random.Random(3)), new_props(tiny_twitch, random.Random(3))
    assert p1 == p2 and isinstance(p1["mature"], bool) and isinstance(p1["views"], int)


def test_reference_k_hop_and_group_by(tiny_twitch):
    adj = adjacency(tiny_twitch)  # path 0-1-2-3-4
    assert [within_k(adj, 0, k) for k in (1, 2, 3, 4, 5)] == [1, 2, 3, 4, 4]
    assert within_k(adj, 2, 2) == 4
    # mature: True for keys 1, 2, 4 (degrees 2, 2, 1); False for 0, 3 (degrees 1, 2)
    assert group_by(tiny_twitch, "mature") == {True: [3, 5], False: [2, 3]}


def test_checks_detect_wrong_answers():
    assert check_node(1, {"a": True, "b": 3}, {"a": 1, "b": 3}) == []  # SQLite's 0/1 bools are equal
    assert check_node(1, {"a": True, "b": 3}, {"a": True, "b": 4})
    assert check_node(1, {"a": True}, None)
    assert check_counts("2-hop", {5: 10, 6: 11}, {5: 10, 6: 11}) == []
    assert check_counts("2-hop", {5: 10, 6: 11}, {5: 10, 6: 12})
    assert check_counts("2-hop", {5: 10}, {})
    assert check_group_by({True: [3, 5], False: [2, 3]}, {1: [3, 5], 0: [2, 3]}) == []
    assert check_group_by({True: [3, 5], False: [2, 3]}, {True: [3, 6], False: [2, 3]})
    assert check_group_by({True: [3, 5], False: [2, 3]}, {True: [3, 5]})


def test_pagerank_check_tolerates_near_ties_only():
    ref = {i: 1.0 / (i + 1) for i in range(30)}
    assert check_pagerank(ref, dict(ref)) == []
    swapped = dict(ref)
    swapped[9], swapped[10] = ref[10], ref[9]  # the 10th and 11th differ by 9%: not a tie
    assert check_pagerank(ref, swapped)
    near = {i: 1.0 for i in range(12)} | {i: 0.1 for i in range(12, 30)}
    other = dict(near)
    other[11] = 1.0 + 1e-9  # 11 enters the top-10 but its reference score equals the 10th's
    assert check_pagerank(near, other) == []
    assert check_pagerank(ref, {i: -v for i, v in ref.items()})  # reversed order


def test_percentile_and_ratio_maths():
    xs = list(range(1, 11))
    assert percentile(xs, 50) == 5.5
    assert percentile(xs, 95) == pytest.approx(9.55)
    assert percentile(xs, 0) == 1 and percentile(xs, 100) == 10
    assert percentile([3.0], 95) == 3.0 and percentile([], 50) is None
    assert percentile([10, 1, 5], 50) == 5  # unsorted input
    assert ratio(200, 100) == 2.0  # rates: HopDB twice as fast
    assert ratio(10, 30, higher_is_better=False) == 3.0  # latencies: HopDB 3x lower
    assert ratio(None, 5) is None and ratio(5, 0) is None


def test_qps_window_counts_ops_and_errors():
    calls = {"n": 0}

    def make(i):
        def op():
            calls["n"] += 1
            if calls["n"] % 4 == 0:
                raise RuntimeError("conflict")

        return op

    qps, errors, cores, first = qps_window(make, 2, 0.2)
    done = calls["n"] - errors
    assert errors > 0 and first == "RuntimeError: conflict"
    assert qps == pytest.approx(done / 0.2, rel=0.3)
    assert 0 <= cores <= os.cpu_count() + 0.5


def run_worker_nx(tmp_path, ref, run):
    """The worker (python3 -m bench.cozo_suite.worker) end to end on the tiny graph with NetworkX (in memory, no server), 50 ms windows."""
    import json
    import subprocess

    (tmp_path / f"ref{run}.json").write_text(json.dumps(ref))
    cmd = [*module_cmd("bench.cozo_suite.worker"), "--engine", "networkx", "--dataset", "twitch-de", "--data-root", str(tmp_path),
           "--work", str(tmp_path / f"w{run}"), "--control", str(tmp_path / f"ctl{run}"), "--reference", str(tmp_path / f"ref{run}.json"), "--window", "0.05"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, timeout=120, env=module_env()).stdout
    return json.loads(out.strip().splitlines()[-1])


def tiny_reference(d):
    import networkx as nx

    adj = adjacency(d)
    G = nx.Graph()
    G.add_nodes_from(d.keys)
    G.add_edges_from(zip(d.src, d.dst, strict=False))
    return {
        "pool": d.keys,
        "reads": {str(k): d.node_props(i) for i, k in enumerate(d.keys)},
        "hops": {str(k): {str(s): within_k(adj, s, k) for s in d.keys} for k in (2, 3)},
        "group_by": [[v, c, s] for v, (c, s) in group_by(d, "mature").items()],
        "pagerank": {str(k): v for k, v in nx.pagerank(G).items()},
    }


def test_worker_passes_right_answers_and_flags_a_wrong_one(tiny_twitch, tmp_path):
    ref = tiny_reference(tiny_twitch)
    res = run_worker_nx(tmp_path, ref, 1)
    assert res["wrong"] == []
    ops = {(m["op"], m.get("threads"), m.get("variant")) for m in res["measurements"] if m["status"] == "ok"}
    assert {("import", None, None), ("hop_2", None, ""), ("group_by", None, None), ("point_read", 2, None), ("mixed_90_10", 1, None)} <= ops
    ref["hops"]["3"]["0"] += 1  # one wrong 3-hop count in the reference
    res = run_worker_nx(tmp_path, ref, 2)
    assert any("3-hop" in w for w in res["wrong"])
