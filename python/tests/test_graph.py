"""The `hopdb` package: the store API from Python, errors, atomic batches, snapshots,
durability across reopen and kill -9, one writer per store, threads and asyncio, NetworkX
round trips, and traversals/algorithms cross-checked against NetworkX on a real graph."""

import asyncio
import gzip
import os
import random
import signal
import string
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import hopdb

DATASETS = Path(os.environ.get("HOPDB_DATASETS", Path(__file__).resolve().parents[3] / "shared" / "datasets"))


def datasets():
    if not DATASETS.is_dir():
        pytest.skip(f"no datasets at {DATASETS} (set HOPDB_DATASETS)")
    return DATASETS


def test_nodes_edges_values_round_trip():
    with hopdb.Graph() as g:
        props = {"n": None, "b": True, "i": -(2**63), "f": 1.5, "s": "ü", "by": b"\x00\xff", "l": [1, [2, "x"]], "m": {"k": {"z": 1}}}
        g.upsert_node("a", ["Person", "Person", "Author"], props)
        assert g.node("a") == {"key": "a", "labels": ["Person", "Author"], "props": props}
        g.upsert_node("a", ["Extra"], {"i": 7})
        n = g.node("a")
        assert n["labels"] == ["Person", "Author", "Extra"] and n["props"]["i"] == 7 and n["props"]["s"] == "ü"
        g.upsert_node("a", ["Only"], {"x": 1}, replace=True)
        assert g.node("a") == {"key": "a", "labels": ["Only"], "props": {"x": 1}}
        g.upsert_node(42, [], None)
        assert g.has_node(42) and not g.has_node("42")
        g.upsert_edge("a", "R", 42, 2.5, {"since": 2020})
        e = g.edge("a", 42, "R")
        assert e == {"src": "a", "type": "R", "dst": 42, "weight": 2.5, "props": {"since": 2020}}
        assert g.edge(42, "a") is None and g.edge(42, "a", either_direction=True)["src"] == "a"
        assert g.degree("a", "out") == (1, 2.5) and g.degree(42, "in") == (1, 2.5)
        assert g.neighbors(42, "in") == ["a"]
        assert g.nodes(["a", "missing", 42]) == [g.node("a"), None, g.node(42)]
        assert g.degrees(["a", "missing"]) == [(1, 2.5), None]
        assert g.edges_of(["a", "missing"], "out")[1] is None
        assert g.edges_between([("a", 42), (42, "a")]) == [e, None]
        assert g.node_count() == 2 and g.edge_count() == 1
        assert dict((n, c) for n, c in g.labels()) == {"Only": 1}
        assert g.delete_edge("a", "R", 42) and not g.delete_edge("a", "R", 42)
        assert g.delete_node(42) and not g.delete_node(42)


def test_errors_are_a_small_hierarchy():
    g = hopdb.Graph()
    with pytest.raises(hopdb.NotFound, match="does not exist"):
        g.edges("nobody")
    with pytest.raises(hopdb.InvalidArgument):
        g.upsert_node(True)
    with pytest.raises(hopdb.InvalidArgument):
        g.upsert_node("x", [], {"bad": object()})
    with pytest.raises(hopdb.InvalidArgument):
        g.upsert_node("x", [], {1: "non-str name"})
    with pytest.raises(hopdb.InvalidArgument):
        g.upsert_edge("a", "R", "b", float("nan"))
    with pytest.raises(hopdb.InvalidArgument, match="direction"):
        g.edges("a", "sideways")
    for cls in (hopdb.NotFound, hopdb.InvalidArgument, hopdb.StoreLocked, hopdb.CorruptionError, hopdb.Cancelled):
        assert issubclass(cls, hopdb.Error)
    g.close()
    with pytest.raises(hopdb.ClosedError):
        g.node_count()


def test_batches_are_atomic():
    g = hopdb.Graph()
    with g.batch() as b:
        b.upsert_node("a", ["L"], {"x": 1})
        b.upsert_edge("a", "R", "b", 2.0)
        b.upsert_edge("b", "R", "c")
    assert g.edge_count() == 2
    with pytest.raises(RuntimeError):
        with g.batch() as b:
            b.upsert_edge("c", "R", "d")
            raise RuntimeError("abandon")
    assert not g.has_node("d"), "a batch left by an exception applies nothing"
    with pytest.raises(hopdb.InvalidArgument):
        with g.batch() as b:
            b.upsert_edge("c", "R", "e")
            b.upsert_edge("c", "R", "f", float("inf"))  # invalid: the whole batch fails
    assert not g.has_node("e"), "a failing batch applies nothing"
    with g.batch() as b:
        b.delete_edge("a", "R", "b")
        b.delete_node("c")
    assert g.edge_count() == 0 and not g.has_node("c")
    g.upsert_edges([("x", "R", "y"), {"src": "y", "type": "R", "dst": "z", "weight": 1.0, "props": {"p": 1}}])
    g.upsert_nodes([("x", ["X"], {"a": 1}), {"key": "y", "labels": ["Y"]}])
    assert g.node("x")["labels"] == ["X"] and g.edge("y", "z")["props"] == {"p": 1}
    with pytest.raises(hopdb.InvalidArgument):
        g.upsert_edges([("p", "R", "q"), ("p", "R")])
    assert not g.has_node("p")


def test_snapshots_do_not_see_later_writes():
    g = hopdb.Graph()
    g.upsert_edge("a", "R", "b")
    snap = g.snapshot()
    g.upsert_edge("a", "R", "c")
    g.delete_node("b")
    assert snap.neighbors("a", "out") == ["b"] and snap.has_node("b")
    assert sorted(g.neighbors("a", "out")) == ["c"]


def test_durable_across_reopen_and_one_writer(tmp_path):
    path = str(tmp_path / "store")
    with hopdb.Graph(path) as g:
        g.upsert_edge("a", "R", "b", 1.0)
        with pytest.raises(hopdb.StoreLocked):
            hopdb.Graph(path)
        ro = hopdb.Graph(path, read_only=True)
        assert ro.has_edge("a", "b")
        with pytest.raises(hopdb.ReadOnlyError):
            ro.upsert_node("x")
        ro.close()
    with hopdb.open(path) as g:
        assert g.edge("a", "b")["weight"] == 1.0
        assert g.path == path


def test_a_damaged_store_raises_corruption_error(tmp_path):
    # A node whose record holds a marker LZ4 (the tables' compression) keeps as it is: 62
    # distinct characters, so no 4-byte sequence in it repeats; a fixed order, so the test
    # does the same every run. The record is flushed into a table file and damaged there.
    # RocksDB's block checksums catch the damage on the read that loads the block; a record
    # that got past them and did not decode would be a CorruptionError too.
    path = tmp_path / "store"
    chars = list(string.ascii_letters + string.digits)
    random.Random(18).shuffle(chars)
    marker = "".join(chars).encode()
    with hopdb.Graph(str(path)) as g:
        g.upsert_nodes([(f"n{i}", ["Person"], {"i": i}) for i in range(50)])
        g.upsert_node("victim", ["Person"], {"blob": marker.decode()})
        g.flush()
    damaged = 0
    for table in path.glob("*.sst"):
        data = table.read_bytes()
        at = data.find(marker)
        if at >= 0:
            # The record's bytes before the marker (its encoding) and the marker itself.
            start = max(0, at - 16)
            data = data[:start] + b"\xff" * (at + len(marker) - start) + data[at + len(marker) :]
            table.write_bytes(data)
            damaged += 1
    assert damaged, "the marker is in a table file"
    with hopdb.Graph(str(path)) as g:  # opening reads no data block
        with pytest.raises(hopdb.CorruptionError, match="corruption"):
            g.node("victim")
        with pytest.raises(hopdb.CorruptionError):
            g.all_nodes()


def test_warm_key_index_only_makes_reads_faster(tmp_path):
    path = str(tmp_path / "store")
    with hopdb.Graph(path, memory_mb=16) as g:
        g.upsert_nodes([(f"k{i}", ["L"], {"i": i}) for i in range(5000)] + [(i, [], {}) for i in range(-50, 50)])
        for i in range(0, 5000, 7):
            g.delete_node(f"k{i}")
    for read_only in (True, False):
        with hopdb.Graph(path, read_only=read_only, memory_mb=16) as g:
            # Every key ever created keeps its id, deleted or not: all 5,100 are indexed.
            assert g.warm_key_index() == 5100
            keys = [f"k{i}" for i in range(5000)] + list(range(-60, 60)) + ["k5000", "missing"]
            got = g.nodes(keys)
            for k, n in zip(keys, got):
                live = (isinstance(k, int) and -50 <= k < 50) or (isinstance(k, str) and k[1:].isdigit()
                                                                   and int(k[1:]) < 5000 and int(k[1:]) % 7 != 0)
                assert (n is not None) == live, k
                assert n is None or n["key"] == k
                assert g.has_node(k) == live
            if not read_only:
                g.upsert_node("k0", ["Again"])  # a deleted key's id is reused: the index stays right
                assert g.node("k0")["labels"] == ["Again"] and g.nodes(["k0"])[0]["key"] == "k0"


def test_memory_usage_reports_each_part_within_the_budget(tmp_path):
    """Graph.memory_usage: the parts a store holds, read without touching data. A 16 MiB budget
    gives the block cache 5/16 and the key index 6/16 of it (Config::with_memory_budget)."""
    mib = 2**20
    with hopdb.Graph(str(tmp_path / "store"), memory_mb=16) as g:
        g.upsert_edges([(f"a{i}", "R", f"b{i}") for i in range(3000)])
        m = g.memory_usage()
        assert set(m) == {"block_cache", "block_cache_pinned", "row_cache", "memtables", "table_readers", "key_index", "key_index_keys", "allocator_committed"}
        assert m["key_index_keys"] == 6000  # every key written, within its 6 MiB share
        assert 0 < m["key_index"] <= 6 * mib
        assert m["memtables"] > 0  # nothing flushed yet
        assert m["block_cache"] <= 5 * mib and m["block_cache_pinned"] <= m["block_cache"]
        assert m["row_cache"] == 0  # a budget turns the row cache off
        assert m["allocator_committed"] > 0
        g.flush()
        assert g.memory_usage()["table_readers"] > 0  # the flush opened SST files
    m = hopdb.Graph().memory_usage()  # in memory: no engine caches
    assert m["block_cache"] == m["memtables"] == m["table_readers"] == 0


def _forked_child(path, conn):
    # Runs in a forked child: the extension (and its allocator) was loaded by the parent.
    with hopdb.Graph(path) as g:
        for i in range(2000):
            g.upsert_node(f"k{i}", ["L"], {"text": "x" * (i % 300)})
        conn.send((g.node_count(), g.node("k1999")["props"]["text"]))


def test_a_forked_child_can_use_the_package(tmp_path):
    """Servers (gunicorn, LightRAG's) import in a parent and fork workers: the child must be
    able to open a store and allocate freely after the parent used the package."""
    import multiprocessing

    with hopdb.Graph() as g:  # the parent allocates through the extension first
        g.upsert_edge("a", "R", "b", None, {"p": "v" * 100})
        assert g.node("a")["key"] == "a"
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe()
    p = ctx.Process(target=_forked_child, args=(str(tmp_path / "store"), child))
    p.start()
    assert parent.poll(60), "the forked child did not answer"
    assert parent.recv() == (2000, "x" * (1999 % 300))
    p.join(10)
    assert p.exitcode == 0


WRITER = """
import hopdb, sys
g = hopdb.Graph(sys.argv[1])
i = 0
while True:
    g.upsert_edge(f"n{i}", "NEXT", f"n{i + 1}", None, {"i": i})
    print(i, flush=True)   # acknowledged: the write returned
    i += 1
"""


def test_acknowledged_writes_survive_kill_9(tmp_path):
    path = str(tmp_path / "store")
    p = subprocess.Popen([sys.executable, "-c", WRITER, path], stdout=subprocess.PIPE, text=True)
    acked = -1
    deadline = time.time() + 2.0
    while time.time() < deadline:
        line = p.stdout.readline()
        if not line:
            break
        acked = int(line)
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    assert acked > 50, f"the writer acknowledged only {acked} writes"
    with hopdb.Graph(path) as g:
        for i in range(acked + 1):
            assert g.edge(f"n{i}", f"n{i + 1}", "NEXT")["props"] == {"i": i}, f"acknowledged write {i} lost"


def test_threads_and_asyncio():
    g = hopdb.Graph()
    g.upsert_edges([(f"n{i}", "R", f"n{i + 1}") for i in range(2000)])
    errors = []

    def work(t):
        try:
            for i in range(300):
                assert g.k_hop(f"n{(i * 7 + t) % 1900}", 3, direction="out") != []
                g.upsert_node(f"t{t}-{i}", ["T"])
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert g.node_count() == 2001 + 8 * 300

    async def main():
        got = await asyncio.gather(*[g.run("neighbors", f"n{i}", "out") for i in range(50)])
        return got

    assert asyncio.run(main()) == [[f"n{i + 1}"] for i in range(50)]


def test_networkx_round_trip():
    nx = pytest.importorskip("networkx")
    G = nx.karate_club_graph()
    g = hopdb.from_networkx(G)
    assert g.node_count() == G.number_of_nodes() and g.edge_count() == G.number_of_edges()
    assert g.edge_types()[0][2] is True, "an undirected NetworkX graph gives an undirected type"
    H = g.to_networkx()
    assert set(H.nodes) == set(G.nodes)
    assert {frozenset(e) for e in H.to_undirected().edges} == {frozenset(e) for e in G.edges}
    assert H.nodes[0]["club"] == G.nodes[0]["club"]
    for u, v, w in G.edges(data="weight"):
        assert g.edge(u, v, either_direction=True)["weight"] == w


def load_edge_list(path):
    pairs = []
    with gzip.open(path, "rt") as f:
        for line in f:
            if line.startswith("#"):
                continue
            a, b = line.split()[:2]
            pairs.append((int(a), int(b)))
    return pairs


def test_traversals_and_algorithms_match_networkx():
    nx = pytest.importorskip("networkx")
    path = datasets() / "snap-wiki-Vote" / "wiki-Vote.txt.gz"
    pairs = load_edge_list(path)
    G = nx.DiGraph(pairs)
    g = hopdb.Graph()
    report = g.import_files(edge_lists=[str(path)])
    assert report["rows"] == len(pairs)
    assert g.node_count() == G.number_of_nodes() and g.edge_count() == G.number_of_edges()
    U = G.to_undirected()
    rng = random.Random(1)
    nodes = list(G.nodes)
    for _ in range(20):
        s, t = rng.choice(nodes), rng.choice(nodes)
        dist = nx.single_source_shortest_path_length(G, s, cutoff=2)
        assert set(g.k_hop(s, 2, direction="out")) == {v for v, d in dist.items() if 1 <= d <= 2}
        assert set(g.k_hop(s, 2, direction="out", mode="exactly")) == {v for v, d in dist.items() if d == 2}
        got = g.shortest_path(s, t)
        want = nx.shortest_path_length(U, s, t) if nx.has_path(U, s, t) else None
        assert (None if got is None else len(got) - 1) == want
        lim = g.k_hop(s, 4, limit=100)
        assert len(lim) == min(100, len(nx.single_source_shortest_path_length(U, s, cutoff=4)) - 1)
    pr = g.pagerank(tolerance=1e-10, max_iterations=1000)
    # NetworkX's pure-Python PageRank (its default one needs SciPy).
    from networkx.algorithms.link_analysis.pagerank_alg import _pagerank_python

    want = _pagerank_python(G, tol=1e-12, max_iter=1000)
    assert sum(abs(pr[k] - want[k]) for k in want) < 1e-6
    keys, scores = g.pagerank(tolerance=1e-10, max_iterations=1000, as_arrays=True)
    assert scores.typecode == "d" and len(keys) == len(scores) == G.number_of_nodes()
    assert all(abs(scores[i] - pr[k]) < 1e-15 for i, k in enumerate(keys))
    np = pytest.importorskip("numpy")
    assert abs(float(np.asarray(scores).sum()) - 1.0) < 1e-9
    wcc = g.weakly_connected_components()
    assert len(set(wcc.values())) == nx.number_weakly_connected_components(G)
    total, _ = g.triangles()
    assert total == sum(nx.triangles(U).values()) // 3
    membership, q = g.communities(method="leiden")
    comms = {}
    for k, c in membership.items():
        comms.setdefault(c, set()).add(k)
    # Each relationship is one undirected edge: a reciprocal pair weighs 2.
    W = nx.Graph()
    W.add_nodes_from(G)
    for a, b in G.edges:
        w = W.get_edge_data(a, b, {"weight": 0})["weight"]
        W.add_edge(a, b, weight=w + 1)
    assert abs(q - nx.community.modularity(W, comms.values(), weight="weight")) < 1e-6
    info = g.project()
    assert info["nodes"] == G.number_of_nodes() and not info["rebuilt"]


def test_path_patterns_match_networkx():
    """expand / expand_counts (the GraphRAG Q4/Q6/Q7 shapes) against walks over a NetworkX
    DiGraph of a real graph, on the store and then on the projection."""
    nx = pytest.importorskip("networkx")
    path = datasets() / "snap-wiki-Vote" / "wiki-Vote.txt.gz"
    G = nx.DiGraph(load_edge_list(path))
    g = hopdb.Graph(projection_mb=0)  # no projection built unasked: the first round reads the store
    g.import_files(edge_lists=[str(path)])
    step = {"out": G.successors, "in": G.predecessors}

    def walks(seeds, dirs):
        level = {s: 1 for s in seeds}
        for d in dirs:
            nxt = {}
            for u, c in level.items():
                for v in step[d](u):
                    nxt[v] = nxt.get(v, 0) + c
            level = nxt
        return level

    rng = random.Random(3)
    nodes = list(G.nodes)
    for _round in range(2):
        for _ in range(25):
            seeds = rng.sample(nodes, rng.choice([1, 5]))
            for dirs in (["out", "in"], ["in", "out"], ["out", "out", "in"]):
                steps = [(d, None) for d in dirs]
                want = walks(seeds, dirs)
                for s in seeds:
                    want.pop(s, None)
                ranked = sorted(want.items(), key=lambda kv: (-kv[1], kv[0]))
                assert g.expand_counts(seeds, steps, exclude_seeds=True) == ranked
                assert g.expand_counts(seeds, steps, top=10, exclude_seeds=True) == ranked[:10]
                ends = g.expand(seeds, steps, limit=50, exclude_seeds=True)
                assert len(ends) == len(set(ends)) == min(50, len(want)) and set(ends) <= set(want)
                assert set(g.expand(seeds, steps, exclude_seeds=True)) == set(want)
        g.project()  # the second round runs on the fresh projection
    # Typed steps, a single key as seeds, and bad input.
    g2 = hopdb.Graph()
    g2.upsert_edges([("c1", "MENTIONS", "e1"), ("c2", "MENTIONS", "e1"), ("d1", "HAS_CHUNK", "c1")])
    assert g2.expand("c1", [("out", "MENTIONS"), ("in", "MENTIONS")], exclude_seeds=True) == ["c2"]
    assert g2.expand("c1", [("in", ["HAS_CHUNK", "MENTIONS"])]) == ["d1"]
    assert g2.expand_counts(["e1"], [("in", "MENTIONS")]) == [("c1", 1), ("c2", 1)]
    with pytest.raises(hopdb.InvalidArgument):
        g2.expand("c1", [])
    with pytest.raises(hopdb.InvalidArgument):
        g2.expand("c1", [("sideways", None)])
    with pytest.raises(hopdb.InvalidArgument):
        g2.expand("c1", ["out"])


def test_memory_budget_option(tmp_path):
    with hopdb.Graph(str(tmp_path / "small"), memory_mb=16) as g:
        g.upsert_edges([(i, "R", i + 1) for i in range(2000)])
        assert g.neighbors_of([0, 1999, 5000], "out") == [[1], [2000], None]
        assert [n["key"] for n in g.nodes([3, 7, -1]) if n is not None] == [3, 7]
    for bad in (0, 4, float("nan")):
        with pytest.raises(hopdb.InvalidArgument):
            hopdb.Graph(memory_mb=bad)


def test_edge_tests_agree_before_and_after_the_projection():
    """has_edge on the latest state is answered by a fresh projection once there is one; a
    snapshot, a typed test and a write in between still read the store; all agree."""
    path = datasets() / "snap-wiki-Vote" / "wiki-Vote.txt.gz"
    g = hopdb.Graph(projection_mb=0)
    g.import_files(edge_lists=[str(path)])
    rng = random.Random(9)
    nodes = [n["key"] for n in g.all_nodes()]
    pairs = [(rng.choice(nodes), rng.choice(nodes)) for _ in range(2000)]
    pairs += [(a, b) for a in nodes[:50] for b in g.neighbors(a)]

    def answers(r):
        return [(r.has_edge(a, b), r.has_edge(a, b, either_direction=True), r.has_edge(a, b, "nope")) for a, b in pairs]

    store = answers(g)
    assert any(x[0] for x in store) and any(x[1] and not x[0] for x in store)
    snap = g.snapshot()
    g.project()
    assert answers(g) == store == answers(snap)
    a, b = next((a, b) for (a, b), x in zip(pairs, store, strict=True) if not x[1])
    g.upsert_edge(b, "R", a)
    assert g.has_edge(b, a) and g.has_edge(a, b, either_direction=True) and not snap.has_edge(b, a)


def test_projection_budget_option():
    """``projection_mb`` bounds the projection reads build on their own; answers are the same
    with it off, on, and after the background build has had time to finish."""
    edges = [(i, "R", (i * 7) % 3000) for i in range(3000)] + [(i, "R", i + 1) for i in range(2999)]
    graphs = [hopdb.Graph(projection_mb=mb) for mb in (0, None, 64)]
    for g in graphs:
        g.upsert_edges(edges)
    for _ in range(3):
        answers = [(sorted(g.k_hop(0, 3)), [sorted(n) for n in g.neighbors_of([5, 2999], "both")], len(g.shortest_path(0, 2500))) for g in graphs]
        assert answers[0] == answers[1] == answers[2]
        time.sleep(0.2)
    for bad in (-1, float("nan"), float("inf")):
        with pytest.raises(hopdb.InvalidArgument, match="projection_mb"):
            hopdb.Graph(projection_mb=bad)


def test_timeouts_cancel_long_work():
    g = hopdb.Graph()
    g.upsert_edges([(i, "R", i + 1) for i in range(50_000)])
    with pytest.raises(hopdb.Cancelled):
        g.k_hop(0, 100_000, direction="out", timeout=0.0)
    assert len(g.k_hop(0, 100_000, direction="out")) == 50_000


def test_readme_python_example_runs(tmp_path, monkeypatch, capsys):
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    # The first Python example that uses the embedded package (the Bolt one needs a server:
    # python/tests/test_server_readme.py runs it).
    blocks = [b.split("```", 1)[0] for b in readme.split("```python\n")[1:]]
    block = next(b for b in blocks if "hopdb.Graph" in b)
    monkeypatch.chdir(tmp_path)
    exec(compile(block, "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "'key': 'charles'" in out and "['ada', 'charles', 'engine']" in out


def test_an_import_leaves_its_files_in_the_page_cache(tmp_path):
    """RocksDB's SST writer drops each file it writes from the OS page cache; the importer reads
    the ingested files back (posix_fadvise WILLNEED), so the first reads after an import do not
    go to the disk. fincore(1) counts the resident pages of the store's files."""
    import shutil

    if shutil.which("fincore") is None:
        pytest.skip("no fincore (util-linux) to count resident pages")
    edges = tmp_path / "edges.csv"
    with open(edges, "w") as f:
        f.write("src,dst\n")
        for i in range(300_000):
            f.write(f"{i % 50_000},{(i * 7919) % 50_000}\n")
    path = tmp_path / "store"
    with hopdb.Graph(str(path)) as g:
        g.import_files(edge_lists=[str(edges)])
        ssts = sorted(str(p) for p in path.glob("*.sst"))
        assert sum(os.path.getsize(p) for p in ssts) > 2_000_000

        def resident() -> tuple[int, int]:
            out = subprocess.run(["fincore", "--bytes", "--noheadings", "--raw", "--output", "RES,SIZE", *ssts],
                                 capture_output=True, text=True, check=True).stdout
            pairs = [tuple(int(x) for x in line.split()) for line in out.splitlines()]
            return sum(r for r, _ in pairs), sum(s for _, s in pairs)

        deadline = time.monotonic() + 10
        while True:
            res, size = resident()
            if res >= 0.95 * size or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert res >= 0.95 * size, f"{res} of {size} bytes of the imported files are in the page cache"
