"""Pure-logic tests of the retrieval harness: the mix, the percentile maths, the reference answers
and the answer check on a tiny hand-made graph, and the SQLite and NetworkX engines' queries on it
(no database server, no hopdb wheel). `python3 -m pytest -q bench/retrieval/tests`"""

import collections

import pytest

from bench.retrieval import measure, reference, workload
from bench.retrieval.peers import engine_class
from bench.retrieval.reference import KG, check, check_rows

FILES = {
    "documents.csv": ":ID,title,:LABEL\ndoc-1,First,Document\ndoc-2,Second,Document\n",
    "chunks.csv": ":ID,doc_id,ordinal:int,word_count:int,section_title,:LABEL\n"
    "chunk-1,doc-1,0,150,Intro,Chunk\nchunk-2,doc-1,1,300,\"Methods, part 1\",Chunk\n"
    "chunk-3,doc-2,0,420,Results,Chunk\nchunk-4,doc-2,1,200,,Chunk\n",
    "entities.csv": ":ID,canonical_title,entity_type,:LABEL\n" + "".join(f"ent-{i},E{i},person,Entity\n" for i in range(1, 7)),
    "has_chunk.csv": ":START_ID,:END_ID,:TYPE\ndoc-1,chunk-1,HAS_CHUNK\ndoc-1,chunk-2,HAS_CHUNK\ndoc-2,chunk-3,HAS_CHUNK\ndoc-2,chunk-4,HAS_CHUNK\n",
    "mentions.csv": ":START_ID,:END_ID,:TYPE\n"
    + "".join(f"chunk-{c},ent-{e},MENTIONS\n" for c, es in {1: (1, 2, 3), 2: (1, 2), 3: (1, 4), 4: (2, 5)}.items() for e in es),
}


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    d = tmp_path_factory.mktemp("kg")
    for f, text in FILES.items():
        (d / f).write_text(text)
    return str(d)


@pytest.fixture(scope="module")
def kg(data):
    return KG.from_csv(data)


# --- the mix


def test_sequence_is_deterministic_and_follows_the_weights():
    sizes = {"chunk": 500, "entity": 400, "document": 300, "entity_set": 200}
    a = workload.sequence(100_000, sizes, 7)
    assert a == workload.sequence(100_000, sizes, 7)
    assert a[:100] != workload.sequence(100, sizes, 8)
    n = collections.Counter(k for k, _i in a)
    for k, (w, _pool, _d) in workload.KINDS.items():
        assert abs(n[k] / len(a) - w) < 0.01, k
    assert all(0 <= i < sizes[workload.KINDS[k][1]] for k, i in a)
    assert abs(sum(w for w, _p, _d in workload.KINDS.values()) - 1) < 1e-9


def test_pools_are_deterministic_and_resolve_to_seeds(data):
    p = workload.draw_pools(data, 3, 1)
    assert p == workload.draw_pools(data, 3, 1)
    assert len(p["chunk"]) == 3 and len(set(p["chunk"])) == 3 and len(p["document"]) == 2  # only 2 documents
    assert all(len(set(s)) == workload.SET_SIZE for s in p["entity_set"])
    seq = [("q1", 0), ("q7", 2), ("q5", 1)]
    assert workload.resolve(p, seq) == [("q1", p["chunk"][0]), ("q7", tuple(p["entity_set"][2])), ("q5", p["document"][1])]
    assert len(workload.check_sample(p, 2)) == 2 * len(workload.KINDS)


# --- percentiles and throughput


def test_percentiles():
    v = list(range(1, 101))
    assert measure.pct(v, 50) == 50.5
    assert measure.pct(v, 0) == 1 and measure.pct(v, 100) == 100
    assert measure.pct(v, 99) == pytest.approx(99.01)
    assert measure.pct([5.0], 95) == 5.0


def test_summarize_combines_parts():
    parts = [
        {"t0": 10.0, "t1": 12.0, "lat": {"q1": [3.0, 1.0], "q2": [10.0]}},
        {"t0": 10.5, "t1": 14.0, "lat": {"q1": [2.0], "q6": [100.0]}},
    ]
    s = measure.summarize(parts, 10)
    assert s["queries"] == 5 and s["seconds"] == 4.0 and s["qps"] == 1.25 and s["capped_by_time"]
    assert s["per_kind"]["q1"]["p50_us"] == 2.0 and s["per_kind"]["q1"]["n"] == 3
    assert "q3" not in s["per_kind"]


def test_loop_and_threads_run_every_item_once():
    class Echo:
        def __init__(self):
            self.seen = []
            for k in workload.KIND_NAMES:
                setattr(self, k, lambda seed, k=k: self.seen.append((k, seed)))

    items = [("q1", f"chunk-{i}") for i in range(50)] + [("q7", ("ent-1",) * 5)]
    clients = [Echo(), Echo()]
    parts = measure.run_threads(clients, items, 60)
    assert sorted(clients[0].seen + clients[1].seen) == sorted(items)
    assert measure.summarize(parts, len(items))["queries"] == len(items)
    one = Echo()
    measure.loop(one, items, 0)  # past its deadline: stops after the first query
    assert len(one.seen) == 1


# --- reference answers on the hand-made graph


def test_reference_answers(kg):
    assert kg.full("q1", "chunk-2") == ("doc-1", 1, 300, "Methods, part 1")
    assert kg.full("q1", "chunk-4") == ("doc-2", 1, 200, None)
    assert kg.full("q1", "chunk-99") is None
    assert kg.full("q2", "chunk-1") == ["ent-1", "ent-2", "ent-3"]
    assert sorted(kg.full("q3", "ent-2")) == ["chunk-1", "chunk-2", "chunk-4"]
    assert sorted(kg.full("q4", "chunk-1")) == ["chunk-2", "chunk-3", "chunk-4"]
    assert kg.full("q5", "doc-2") == ["chunk-3", "chunk-4"]
    assert kg.full("q6", "chunk-1") == [("chunk-2", 2), ("chunk-3", 1), ("chunk-4", 1)]
    assert kg.full("q6", "chunk-3") == [("chunk-1", 1), ("chunk-2", 1)]
    assert sorted(kg.full("q7", ("ent-4", "ent-5", "ent-6", "ent-6", "ent-6"))) == ["ent-1", "ent-2", "ent-4", "ent-5"]
    assert kg.full("q7", ("ent-6",) * 5) == []


# --- the answer check


def test_check_rows_accepts_valid_and_rejects_invalid():
    full = ["a", "b", "c", "d"]
    assert check_rows(["d", "b"], full, 2) is None  # cut by the limit: any 2 valid rows
    assert check_rows(["d", "c", "b", "a"], full, 50) is None  # whole answer, any order
    assert "duplicate" in check_rows(["a", "a"], full, 2)
    assert "not in the answer" in check_rows(["a", "z"], full, 2)
    assert "expected 2" in check_rows(["a"], full, 2)
    assert "expected 4" in check_rows(["a", "b", "c"], full, 50)
    assert "expected 4" in check_rows(["a", "b", "c"], full, None)


def test_check_per_kind(kg):
    assert check("q1", ("doc-2", 1, 200, ""), kg.full("q1", "chunk-4")) is None  # empty string = no value
    assert check("q1", ["doc-2", 1, 200, None], list(kg.full("q1", "chunk-4"))) is None  # from JSON
    assert check("q1", ("doc-2", 1, 201, None), kg.full("q1", "chunk-4"))
    assert check("q1", None, kg.full("q1", "chunk-4"))
    q6 = kg.full("q6", "chunk-1")
    assert check("q6", [["chunk-2", 2], ["chunk-3", 1], ["chunk-4", 1]], q6) is None
    assert check("q6", [("chunk-2", 2), ("chunk-4", 1), ("chunk-3", 1)], q6)  # id order within a count
    assert check("q6", [("chunk-2", 1), ("chunk-3", 1), ("chunk-4", 1)], q6)
    assert check("q5", ["chunk-4", "chunk-3"], kg.full("q5", "doc-2")) is None
    assert check("q5", ["chunk-3"], kg.full("q5", "doc-2"))
    assert check("q4", ["chunk-1", "chunk-2", "chunk-3"], kg.full("q4", "chunk-1"))  # the seed is excluded


def all_seeds():
    chunks = [f"chunk-{i}" for i in range(1, 6)]
    ents = [f"ent-{i}" for i in range(1, 7)]
    pools = {"chunk": chunks, "entity": ents, "document": ["doc-1", "doc-2", "doc-3"], "entity_set": [ents[:5], ents[1:], ["ent-6"] * 5]}
    return workload.check_sample(pools, 10)


class Wrong:
    """An engine that answers Q2 with one entity too many."""

    def __init__(self, kg):
        for k in workload.KIND_NAMES:
            setattr(self, k, lambda seed, k=k: kg.full(k, seed))
        self.q2 = lambda c: kg.full("q2", c) + ["ent-6"]


def test_check_engine_flags_a_wrong_engine(kg):
    sample = [[k, s, kg.full(k, s)] for k, s in all_seeds()]
    res = reference.check_engine(Wrong(kg), sample)
    assert {p["kind"] for p in res["problems"]} == {"q2"} and res["checked"] == len(sample)


# --- the SQL and NetworkX engines on the hand-made graph (SQLite is a library, not a server)


@pytest.mark.parametrize("name", ["sqlite", "networkx"])
def test_engines_answer_like_the_reference(name, kg, data, tmp_path):
    eng = engine_class(name)()
    eng.prepare(data, str(tmp_path), False)
    try:
        sample = [[k, s, kg.full(k, s)] for k, s in all_seeds()]
        assert reference.check_engine(eng, sample)["problems"] == []
        fork = eng.fork()
        assert fork.q6("chunk-1") == [("chunk-2", 2), ("chunk-3", 1), ("chunk-4", 1)]
        if fork is not eng:
            fork.release()
    finally:
        eng.close()


# --- HopDB's Cypher engine on the same graph (skipped without the hopdb package)


@pytest.mark.parametrize("variant", ["peer", "lean"])
def test_hopdb_cypher_answers_like_the_reference(variant, kg, data, tmp_path):
    hopdb = pytest.importorskip("hopdb")
    if not hasattr(hopdb.Graph, "query"):
        pytest.skip("this hopdb package has no Cypher engine (Graph.query)")
    import os

    from bench.engines.base import Ready

    g = hopdb.Graph(str(tmp_path / "store"))  # what ensure_store would find: a loaded store and ready.json
    g.import_files(nodes=[os.path.join(data, f) for f in ("documents.csv", "chunks.csv", "entities.csv")],
                   relationships=[os.path.join(data, f) for f in ("has_chunk.csv", "mentions.csv")])
    g.close()
    Ready(str(tmp_path)).set({"load_s": 0.0})
    eng = engine_class("hopdb-cypher")()
    eng.probe()
    eng.prepare(data, str(tmp_path), False)
    try:
        eng.set_variant(variant)
        sample = [[k, s, kg.full(k, s)] for k, s in all_seeds()]
        assert reference.check_engine(eng, sample)["problems"] == []
        assert eng.q6("chunk-1") == [("chunk-2", 2), ("chunk-3", 1), ("chunk-4", 1)]
    finally:
        eng.close()
