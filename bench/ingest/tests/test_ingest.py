"""Tests of the ingestion benchmark's harness: generator, reference traversals, permutations,
ratio and percentile maths, answer checks and report tables. No database is started."""

import os

import numpy as np
import pytest

from bench.engines import leveldb
from bench.ingest import run, synth


@pytest.fixture(scope="module")
def g():
    return synth.generate(20_000, seed=3)


def test_generator_is_deterministic(g):
    h = synth.generate(20_000, seed=3)
    assert np.array_equal(g.src, h.src) and np.array_equal(g.dst, h.dst) and np.array_equal(g.typ, h.typ)
    assert np.array_equal(g.hubs, h.hubs) and np.array_equal(g.score, h.score)
    other = synth.generate(20_000, seed=4)
    assert not np.array_equal(g.src, other.src)


def test_generator_shape(g):
    # About 4 edges per node (a few duplicates and self-loops are dropped), no duplicates left.
    assert 0.97 * 4 * g.n < g.m <= 4 * g.n
    triples = set(zip(g.src.tolist(), g.typ.tolist(), g.dst.tolist(), strict=False))
    assert len(triples) == g.m
    assert not (g.src == g.dst).any()
    assert g.src.min() >= 0 and g.dst.max() < g.n
    # Type shares: 60% RelA, 40% RelB.
    assert abs((g.typ == 0).mean() - synth.RELA_SHARE) < 0.01
    # Hubs: 5 distinct nodes, each with about 2% of the edges out and 2% in, far above the rest.
    assert len(set(g.hubs.tolist())) == synth.HUBS
    out_deg = np.bincount(g.src, minlength=g.n)
    in_deg = np.bincount(g.dst, minlength=g.n)
    for h in g.hubs:
        assert abs(out_deg[h] / g.m - synth.HUB_SHARE / synth.HUBS) < 0.004
        assert abs(in_deg[h] / g.m - synth.HUB_SHARE / synth.HUBS) < 0.004
    non_hub = np.delete(out_deg, g.hubs)
    assert non_hub.max() < min(out_deg[g.hubs]) / 10


def test_rows_and_arrow_match_the_columns(g):
    rows = list(g.edge_rows())
    assert len(rows) == g.m and rows[0] == (int(g.src[0]), synth.TYPES[g.typ[0]], int(g.dst[0]))
    nodes, edges = g.arrow()
    assert nodes.num_rows == g.n and nodes.column_names == ["id", "name", "score", "grp"]
    assert sum(t.num_rows for t in edges.values()) == g.m
    k, p = next(g.node_rows())
    assert k == 0 and p["name"] == "node-0" and isinstance(p["grp"], int)


def tiny():
    """0 -A-> 1, 0 -A-> 2, 1 -B-> 3, 2 -B-> 3, 2 -A-> 4, 3 -A-> 5, 5 -B-> 6, 4 -B-> 0."""
    e = [(0, 0, 1), (0, 0, 2), (1, 1, 3), (2, 1, 3), (2, 0, 4), (3, 0, 5), (5, 1, 6), (4, 1, 0)]
    src, typ, dst = (np.array(c, dtype=np.int64) for c in zip(*e, strict=False))
    return synth.Graph(7, np.array([0], dtype=np.int64), None, None, None, src, dst, typ)


def test_reference_traversals_on_a_tiny_graph():
    adj = synth.out_adjacency(tiny())
    assert synth.star(adj, 0) == {1, 2}
    assert synth.star(adj, 3) == {5}
    assert synth.bfs(adj, 0, 1) == {1, 2}
    assert synth.bfs(adj, 0, 2) == {1, 2, 3, 4}
    assert synth.bfs(adj, 0, 3) == {1, 2, 3, 4, 5}  # 0 itself (reached back via 4) is excluded
    assert synth.bfs(adj, 6, 3) == set()
    assert synth.two_step(adj, 0) == {3}  # 0-A->1-B->3 and 0-A->2-B->3: one distinct end
    assert synth.two_step(adj, 2) == {0}  # 2-A->4-B->0
    assert synth.star_hub(tiny()) == 0


def test_reference_picks_the_top_hub_and_an_ordinary_start(g):
    ref = synth.reference(g)
    hub = ref["star"]["from"]
    assert hub in g.hubs.tolist() and ref["bfs"]["from"] not in g.hubs.tolist()
    rela_out = {int(h): int(((g.src == h) & (g.typ == 0)).sum()) for h in g.hubs}
    assert rela_out[hub] == max(rela_out.values()) == len(ref["star"]["answer"])


def test_permutations_write_every_key_once_per_round():
    rounds = list(synth.permutations(1000, 5, seed=1))
    assert len(rounds) == 5
    for order in rounds:
        assert sorted(order) == list(range(1000))
    assert len({tuple(o) for o in rounds}) == 5  # a new order each round
    assert rounds == list(synth.permutations(1000, 5, seed=1))


def test_ratio_and_percentiles():
    assert synth.ratio(200, 100) == 2.0
    assert synth.ratio(2.0, 8.0, higher_is_better=False) == 4.0  # HopDB 2 ms vs peer 8 ms: 4x faster
    assert synth.ratio(0, 5) is None and synth.ratio(5, None) is None
    xs = list(range(1, 101))
    assert synth.percentile(xs, 50) == 50 and synth.percentile(xs, 95) == 95 and synth.percentile(xs, 100) == 100
    assert synth.percentile([7], 99) == 7
    assert synth.median([3, 1, 2, 10]) == 2.5


def test_answer_check_fails_on_a_wrong_set():
    ref = {"star": {"answer": [1, 2]}, "bfs": {"count": 5}, "two_step": {"answer": [3]}}
    good = {"queries": {"star": {"answer": [1, 2]}, "bfs": {"answer": 5}, "two_step": {"answer": [3]}}}
    assert run.check_traversal(good, ref) == []
    bad = {"queries": {"star": {"answer": [1, 4]}, "bfs": {"answer": 6}, "two_step": {"answer": [3]}}}
    errs = run.check_traversal(bad, ref)
    assert len(errs) == 2 and errs[0].startswith("star") and errs[1].startswith("bfs")


def test_ingest_table_ratios():
    def rec(engine, mode, cores, rps):
        return {"engine": engine, "mode": mode, "n": 10, "cores": cores, "status": "ok", "rows_per_s": rps,
                "secs": 1.0, "peak_rss_mib": 1.0, "disk_bytes": 0, "capped": False, "cpu_s": 0.9, "machine_cores_busy": 1.5}

    recs = [rec("hopdb", "batch", 1, 100.0), rec("hopdb", "batch", 2, 150.0), rec("sqlite", "batch", 2, 50.0)]
    rows = run.ingest_table(recs)[2:]
    assert "1.50x" in rows[1]  # 2 cores over 1 core
    assert "3.00x (vs batch)" in rows[2]  # HopDB 150 over SQLite 50


def test_ldb_files_skips_a_file_deleted_while_listing(tmp_path, monkeypatch):
    for name, size in (("000001.ldb", 10), ("000002.ldb", 20), ("000003.log", 5)):
        (tmp_path / name).write_bytes(b"x" * size)
    real = os.path.getsize

    def vanishing(p):  # a background compaction removes 000001.ldb after the listing
        if p.endswith("000001.ldb"):
            raise FileNotFoundError(p)
        return real(p)

    monkeypatch.setattr(leveldb.os.path, "getsize", vanishing)
    got = leveldb.ldb_files(str(tmp_path))
    assert got == {"sst_files": 1, "sst_bytes": 20, "wal_bytes": 5, "dir_bytes": 25}
