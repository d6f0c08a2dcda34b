"""Tests of the sweep harness itself (seconds, no database server, no load generator binary):
the LightRAG mix, the Python client's window accounting, the validation of the load generator's
JSON and of its answers, the report's ratio maths and the cgroup command.
`python3 -m pytest -q -p no:cacheprovider bench/sweep/tests`"""

import collections
import copy
import json
import os
import re
import subprocess
import time

import pytest

from bench.engines.cozo import CozoLightRAG
from bench.engines.kuzu import KuzuLightRAG
from bench.engines.networkx import NetworkXLightRAG
from bench.retrieval import reference
from bench.sweep import cgroup, lightrag_mix, loadgen, queries, sweep_report, window

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


# --- the LightRAG mix ---------------------------------------------------------------------


def test_lightrag_sequence_proportions_and_determinism():
    seq = lightrag_mix.sequence(40000, 500, 7)
    n = collections.Counter(k for k, _ in seq)
    for k, w in lightrag_mix.KINDS.items():
        assert abs(n[k] / len(seq) - w) < 0.01, (k, n[k] / len(seq), w)
    assert set(n) == set(lightrag_mix.KINDS)
    assert all(0 <= i < 500 for _, i in seq)
    assert seq == lightrag_mix.sequence(40000, 500, 7)
    assert seq != lightrag_mix.sequence(40000, 500, 8)
    assert abs(sum(lightrag_mix.KINDS.values()) - 1) < 1e-12


def nx_graph(data):
    import networkx as nx

    G = nx.DiGraph()
    G.add_nodes_from((k, dict(p, label=label)) for k, label, p in reference.iter_nodes(data))
    G.add_edges_from((s, d, {"type": t}) for s, d, t in reference.iter_edges(data))
    return G


def test_networkx_lightrag_calls_match_the_reference(data):
    kg, props = queries.sparse_reference(data, ["ent-1", "ent-2", "ent-6"])
    expected = json.loads(json.dumps([[e, lightrag_mix.reference(props, kg, e)] for e in ("ent-1", "ent-2", "ent-6")]))
    assert expected[0][1] == {"get_node": {"canonical_title": "E1", "entity_type": "person"}, "get_node_edges": [["chunk-1", "ent-1"], ["chunk-2", "ent-1"], ["chunk-3", "ent-1"]],
                              "node_degree": 3, "has_node": True}  # fmt: skip
    assert expected[2][1]["node_degree"] == 0
    G = nx_graph(data)
    client = NetworkXLightRAG(G)
    assert lightrag_mix.check(client, expected) == []
    client.upsert_node("ent-1")  # idempotent: the same answers after
    assert G.nodes["ent-1"]["canonical_title"] == "E1"
    assert lightrag_mix.check(client, expected) == []
    G.add_edge("ent-2", "chunk-4", type="MENTIONS")  # a wrong graph: an edge too many
    bad = lightrag_mix.check(client, expected)
    assert {(p["kind"], p["seed"]) for p in bad} == {("get_node_edges", "ent-2"), ("node_degree", "ent-2")}


def test_lightrag_check_of_the_load_generator_answers():
    want = {"get_node": {"canonical_title": "E1", "entity_type": None}, "get_node_edges": [["chunk-1", "ent-1"], ["chunk-2", "ent-1"]], "node_degree": 2, "has_node": True}
    items = lightrag_mix.check_items([["ent-1", want]])
    assert [i[0] for i in items] == ["get_node", "get_node_edges", "node_degree", "has_node", "has_node"] and items[-1] == ["has_node", lightrag_mix.ABSENT, False]
    hopdb = [["get_node", "ent-1", [["Entity"], {"canonical_title": "E1", "entity_type": None}]], ["get_node_edges", "ent-1", [["chunk-2", "ent-1"], ["chunk-1", "ent-1"]]],
             ["node_degree", "ent-1", 2], ["has_node", "ent-1", True], ["has_node", lightrag_mix.ABSENT, False]]  # fmt: skip
    assert loadgen.check_answers(hopdb, items, lightrag_mix.check_answer) == []
    sql = copy.deepcopy(hopdb)
    sql[0][2] = ["Entity", "E1", None]  # a flat row: label, then the properties
    assert loadgen.check_answers(sql, items, lightrag_mix.check_answer) == []
    bad = copy.deepcopy(sql)
    bad[0][2] = ["Entity", "E2", None]
    bad[1][2] = [["chunk-1", "ent-1"]]
    bad[2][2] = 3
    bad[4][2] = True
    assert [p["kind"] for p in loadgen.check_answers(bad, items, lightrag_mix.check_answer)] == ["get_node", "get_node_edges", "node_degree", "has_node"]
    assert lightrag_mix.check_answer("get_node", None, None) is None and lightrag_mix.check_answer("get_node", None, want["get_node"])


LR_ENTITIES = {"ent-1": {"canonical_title": "E1", "entity_type": "person"}, "ent-2": {"canonical_title": "It's E2", "entity_type": "place"}}
LR_EXPECTED = [["ent-1", {"get_node": LR_ENTITIES["ent-1"], "get_node_edges": [["chunk-1", "ent-1"], ["chunk-2", "ent-1"]], "node_degree": 2, "has_node": True}],
               ["ent-2", {"get_node": LR_ENTITIES["ent-2"], "get_node_edges": [], "node_degree": 0, "has_node": True}]]  # fmt: skip


def _lightrag_adapter_round(client):
    """The reads answer right, upserts keep the data, a wrong answer is caught."""
    assert lightrag_mix.check(client, LR_EXPECTED) == []
    for e in LR_ENTITIES:
        client.fork().upsert_node(e)
    assert lightrag_mix.check(client, LR_EXPECTED) == []
    wrong = copy.deepcopy(LR_EXPECTED)
    wrong[0][1]["node_degree"] = 3
    assert [p["kind"] for p in lightrag_mix.check(client, wrong)] == ["node_degree"]


def test_kuzu_lightrag_calls(tmp_path):
    import kuzu

    db = kuzu.Database(str(tmp_path / "kg.kuzu"))
    con = kuzu.Connection(db)
    con.execute("CREATE NODE TABLE Entity(id STRING PRIMARY KEY, canonical_title STRING, entity_type STRING)")
    con.execute("CREATE NODE TABLE Chunk(id STRING PRIMARY KEY)")
    con.execute("CREATE REL TABLE MENTIONS(FROM Chunk TO Entity)")
    for e, p in LR_ENTITIES.items():
        con.execute("CREATE (:Entity {id: $id, canonical_title: $t, entity_type: $ty})", {"id": e, "t": p["canonical_title"], "ty": p["entity_type"]})
    for c in ("chunk-1", "chunk-2", "chunk-3"):
        con.execute("CREATE (:Chunk {id: $id})", {"id": c})
    for c in ("chunk-1", "chunk-2"):
        con.execute("MATCH (c:Chunk), (e:Entity) WHERE c.id = $c AND e.id = 'ent-1' CREATE (c)-[:MENTIONS]->(e)", {"c": c})
    con.close()
    _lightrag_adapter_round(KuzuLightRAG(db, LR_ENTITIES))


def test_cozo_lightrag_calls():
    import cozo_embedded

    db = cozo_embedded.CozoDbPy("mem", "", "{}")
    db.run_script(":create entities {id: String => canonical_title: String?, entity_type: String?}", {}, False)
    db.run_script(":create mentions {src: String, dst: String}", {}, False)
    db.run_script("::index create mentions:by_dst {dst, src}", {}, False)
    rows = [[e, p["canonical_title"], p["entity_type"]] for e, p in LR_ENTITIES.items()]
    db.run_script("?[id, canonical_title, entity_type] <- $rows :put entities {id => canonical_title, entity_type}", {"rows": rows}, False)
    db.run_script("?[src, dst] <- [['chunk-1', 'ent-1'], ['chunk-2', 'ent-1']] :put mentions {src, dst}", {}, False)
    _lightrag_adapter_round(CozoLightRAG(db, LR_ENTITIES))


# --- the queries file's reference ---------------------------------------------------------


def test_sparse_reference_equals_the_full_one(data):
    full = reference.KG.from_csv(data)
    cases = [("q1", "chunk-2"), ("q1", "chunk-4"), ("q2", "chunk-1"), ("q3", "ent-1"), ("q4", "chunk-1"), ("q5", "doc-2"), ("q6", "chunk-2"), ("q7", ("ent-4", "ent-5"))]
    seeds = [x for _k, s in cases for x in (s if isinstance(s, tuple) else (s,))]
    kg, _props = queries.sparse_reference(data, seeds)
    for k, s in cases:
        assert kg.full(k, s) == full.full(k, s), (k, s)


# --- the Python client's window -----------------------------------------------------------


class FakeClock:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


def test_client_loop_stops_after_the_window_and_records_every_call():
    clock = FakeClock()

    def call(kind, seed):
        clock.t += 1.0
        if seed == "bad":
            raise RuntimeError("boom")

    out = []
    window.client_loop(call, [("a", "x"), ("b", "bad")], 0.0, 5.5, out, pc=clock)
    assert [e[0] for e in out] == [1, 2, 3, 4, 5, 6]  # the call ending at 6 > 5.5 ends the loop
    assert [e[1] for e in out] == ["a", "b"] * 3
    assert all(abs(e[2] - 1e6) < 1e-6 for e in out)
    assert out[1][3] == "RuntimeError: boom" and out[0][3] is None


def test_summarize_counts_only_calls_ending_in_the_window():
    ev = [(0.5, "a", 100.0, None), (1.0, "a", 5.0, None), (1.5, "a", 10.0, None), (2.0, "b", 20.0, None), (2.5, "b", 30.0, "E: x"), (3.0, "a", 40.0, None), (3.1, "a", 1e9, None)]
    r = window.summarize(ev, 1.0, 3.0, ["a", "b"])
    assert r["queries"] == 4 and r["errors"] == 1
    assert r["qps"] == pytest.approx(2.0)
    assert r["error_pct"] == pytest.approx(20.0)
    assert r["overall"]["max_us"] == 40.0 and r["overall"]["p50_us"] == pytest.approx(15.0)
    assert r["per_kind"]["a"]["n"] == 3 and r["per_kind"]["b"] == {"n": 1, "errors": 1, "p50_us": 20.0, "p95_us": 20.0, "p99_us": 20.0, "mean_us": 20.0}
    assert r["error_samples"] == ["E: x"]


def test_pct_is_linear_interpolation():
    v = [10.0, 20.0, 30.0, 40.0]
    assert window.pct(v, 50) == 25.0 and window.pct(v, 100) == 40.0 and window.pct(v, 0) == 10.0
    assert window.pct([7.0], 99) == 7.0 and window.pct([], 50) is None


def test_window_run_ramps_clients_and_matches_the_contract():
    starts = {}

    def client(i):
        def call(kind, seed):
            starts.setdefault(i, time.perf_counter())
            time.sleep(0.002)

        return call

    t0 = time.perf_counter()
    r = window.run([client(i) for i in range(4)], lambda i: [("a", i), ("b", i)], 0.4, 0.5, ["a", "b"])
    assert sorted(starts) == [0, 1, 2, 3]
    first = [starts[i] - t0 for i in range(4)]
    assert first == sorted(first) and first[3] - first[0] > 0.2  # client i starts at ramp * i / 4
    assert r["window_wall_s"] == pytest.approx(0.5, abs=0.1)
    r.update(engine="fake", mix="lightrag", durability=None, version="v", notes="")
    r["per_kind"] = {("get_node" if k == "a" else "has_node"): v for k, v in r["per_kind"].items()}
    loadgen.validate(r, "fake", "lightrag", 4)
    assert 100 < r["qps"] < 4 / 0.002 * 1.05


# --- the load generator's JSON --------------------------------------------------------------


def good_result():
    return {
        "engine": "hopdb", "mix": "retrieval", "clients": 10, "ramp_s": 2.0, "window_s": 5.0, "queries": 1000, "errors": 10, "error_pct": 100 * 10 / 1010, "qps": 200.0,
        "overall": {"p50_us": 50.0, "p95_us": 300.0, "p99_us": 900.0, "mean_us": 45000.0, "max_us": 200000.0},
        "per_kind": {"q1": {"n": 600, "errors": 0, "p50_us": 20.0, "p95_us": 40.0, "p99_us": 60.0, "mean_us": 25.0},
                     "q6": {"n": 400, "errors": 10, "p50_us": 200.0, "p95_us": 400.0, "p99_us": 900.0, "mean_us": 230.0}},
        "error_samples": ["timeout"], "client_cpu_s": 9.1, "window_wall_s": 5.001, "peak_rss_kb": 81234, "loadavg_before": [1.0, 1.0, 1.0],
        "loadavg_after": [1.5, 1.1, 1.0], "durability": "sync", "version": "hopdb-loadgen 0.1", "notes": "",
    }  # fmt: skip


def test_validate_accepts_a_consistent_result():
    assert loadgen.validate(good_result(), "hopdb", "retrieval", 10)["qps"] == 200.0


@pytest.mark.parametrize(
    "mutate, msg",
    [
        (lambda r: r.pop("per_kind"), "fields missing"),
        (lambda r: r.update(clients=50), "clients"),
        (lambda r: r.update(mix="lightrag"), "mix"),
        (lambda r: r.update(error_pct=5.0), "error_pct"),
        (lambda r: r.update(qps=900.0), "qps"),
        (lambda r: r.update(queries=0, qps=0.0, errors=0, error_pct=0.0), "no query"),
        (lambda r: r["overall"].update(p95_us=1000.0), "out of order"),
        (lambda r: r["per_kind"]["q1"].update(n=599), "per-kind counts"),
        (lambda r: r["per_kind"].update(get_node=r["per_kind"].pop("q1")), "not in the retrieval mix"),
        (lambda r: r["per_kind"]["q6"].update(p99_us=100.0), "q6: percentiles"),
        (lambda r: r.update(error_pct=-1), "error_pct"),
        (lambda r: (r["overall"].update(mean_us=45.0), r.update(errors=0, error_pct=0.0), r["per_kind"]["q6"].update(errors=0)), "tight loop"),  # ms, not us
        (lambda r: r["overall"].update(mean_us=70000.0), "tight loop"),
    ],
)
def test_validate_rejects(mutate, msg):
    r = copy.deepcopy(good_result())
    mutate(r)
    with pytest.raises(ValueError, match=msg):
        loadgen.validate(r, "hopdb", "retrieval", 10)


def test_check_answers_uses_the_reference_check(data):
    kg = reference.KG.from_csv(data)
    sample = json.loads(json.dumps([[k, s, kg.full(k, s)] for k, s in [("q1", "chunk-4"), ("q2", "chunk-1"), ("q5", "doc-2"), ("q6", "chunk-1"), ("q7", ("ent-4", "ent-5"))]]))
    right = [["q1", "chunk-4", ["doc-2", 1, 200, None]], ["q2", "chunk-1", ["ent-3", "ent-1", "ent-2"]], ["q5", "doc-2", ["chunk-4", "chunk-3"]],
             ["q6", "chunk-1", [["chunk-2", 2], ["chunk-3", 1], ["chunk-4", 1]]], ["q7", ["ent-4", "ent-5"], ["ent-1", "ent-4", "ent-2", "ent-5"]]]  # fmt: skip
    assert loadgen.check_answers(right, sample, reference.check) == []
    wrong = copy.deepcopy(right)
    wrong[3][2] = [["chunk-3", 1], ["chunk-2", 2], ["chunk-4", 1]]  # q6 out of order
    wrong[2][2] = {"error": "timeout"}
    wrong[1][2] = None  # no rows where there are three
    probs = loadgen.check_answers(wrong, sample, reference.check)
    assert [p["kind"] for p in probs] == ["q2", "q5", "q6"]
    assert "query failed: timeout" in probs[1]["why"]
    assert loadgen.check_answers(right[:4], sample, reference.check)[0]["why"] == "4 answers for 5 sample queries"
    swapped = [right[1], right[0]] + right[2:]
    assert {p["kind"] for p in loadgen.check_answers(swapped, sample, reference.check)} == {"q1", "q2"}


def test_run_command_has_the_contract_flags():
    cmd = loadgen.run_command("postgres", "host=127.0.0.1 port=5 user=u dbname=d", "/q.json", "lightrag", 50, 2.0, 7.5, "/o.json", data="/kg", timeout_ms=1000)
    assert cmd[1:] == ["run", "--engine", "postgres", "--target", "host=127.0.0.1 port=5 user=u dbname=d", "--queries", "/q.json", "--mix", "lightrag", "--clients", "50",
                       "--ramp-s", "2", "--window-s", "7.5", "--out", "/o.json", "--data", "/kg", "--timeout-ms", "1000"]  # fmt: skip
    assert "--memory-mb" not in cmd and "--user" not in cmd
    assert loadgen.run_command("hopdb", "/s", "/q", "retrieval", 1, 1, 1, "/o", memory_mb=200)[-2:] == ["--memory-mb", "200"]
    assert loadgen.check_command("sqlite", "/kg.sqlite", "/q", "/c")[1:] == ["check", "--engine", "sqlite", "--target", "/kg.sqlite", "--queries", "/q", "--out", "/c"]
    # The capped run's check must open HopDB as the capped run does (bounded caches, no projection).
    assert loadgen.check_command("hopdb", "/s", "/q", "/c", memory_mb=200)[-2:] == ["--memory-mb", "200"]


# --- the report ---------------------------------------------------------------------------


def test_drives_reads_the_engine_list_of_the_help():
    text = "Options:\n      --engine <ENGINE>          hopdb | postgres | sqlite | falkordb | neo4j\n      --target <TARGET>  ...\n"
    assert loadgen.drives("neo4j", text) and loadgen.drives("hopdb", text)
    assert not loadgen.drives("kuzu", text) and not loadgen.drives("neo", text)
    assert not loadgen.drives("neo4j", "Options:\n  --target <TARGET>\n")
    assert loadgen.drives("hopdb-bolt", text.replace("neo4j", "neo4j | hopdb-bolt")) and not loadgen.drives("hopdb-bolt", text)


def test_hopdb_bolt_runs_the_lean_cypher_of_hopdb_cypher():
    """The load generator's hopdb-bolt texts are bench/engines/hopdb_cypher.py's lean ones, verbatim."""
    from bench.engines.hopdb_cypher import CO_LEAN, RETRIEVAL
    from bench.retrieval.workload import LIMIT, TOP

    root = os.path.join(os.path.dirname(__file__), "..", "..", "..")
    src = open(os.path.join(root, "crates", "hopdb-loadgen", "src", "engines", "hopdb_bolt.rs")).read()
    assert f'const CO: &str = "{CO_LEAN}";' in src
    norm = re.sub(r"\\\n\s*", "", src).replace("{{", "{").replace("}}", "}").replace("{LIMIT}", str(LIMIT)).replace("{TOP}", str(TOP)).replace("{CO}", CO_LEAN)
    for kind, text in RETRIEVAL["lean"].items():
        assert f'"{text}"' in norm, kind


def test_ratio_maths():
    assert sweep_report.ratio(1000.0, 250.0) == 4.0
    assert sweep_report.ratio(None, 250.0) is None and sweep_report.ratio(1000.0, 0) is None
    assert sweep_report.fmt_ratio(4.0) == "4.0x" and sweep_report.fmt_ratio(123.4) == "123x" and sweep_report.fmt_ratio(0.5) == "0.50x" and sweep_report.fmt_ratio(None) == "-"


def test_report_tables_and_charts(tmp_path):
    head = {"run_id": "r", "profile": "quick", "scale": 0.1, "nodes": 10, "edges": 20, "host": {}, "ramp_s": 2, "window_s": 5, "capped": False}
    lines = []
    for e, qps in (("hopdb", 1000.0), ("sqlite", 250.0)):
        for n, f in ((1, 1), (10, 2)):
            r = dict(head, **good_result(), status="ok", client="hopdb-loadgen (Rust)", check={"checked": 140, "problems": [], "by": "x"}, client_cpu_share=0.5)
            r.update(engine=e, clients=n, qps=qps * f)
            lines.append(r)
    lines.append(dict(head, engine="cozo", mix=None, clients=None, status="skipped", reason="no adapter"))
    cap = dict(lines[0], capped=True, memory_cap={"kind": "cgroup v1", "max_usage_bytes": 200 << 20, "failcnt": 3, "oom_kill": 0, "in_group": "loadgen"})
    lines.append(cap)
    p = tmp_path / "results.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in lines))
    sweep_report.write(str(p), str(tmp_path))
    md = (tmp_path / "report.md").read_text()
    assert "| SQLite | native (Rust) | 250 | 500 | 4.0x | 4.0x |" in md
    assert "| HopDB | native (Rust) | 1,000 | 2,000 |  |  |" in md
    assert "Cozo: **skipped**: no adapter" in md
    assert "| 200 MiB | 3 | 0 |" in md and "Cap: cgroup v1." in md
    assert (tmp_path / "sweep_throughput.png").stat().st_size > 1000 and (tmp_path / "sweep_latency.png").stat().st_size > 1000


# --- the memory cap -------------------------------------------------------------------------


def test_own_memory_cgroup_and_group_dir():
    text = "9:name=systemd:/\n4:memory:/process_api/abc\n3:cpuset:/\n0::/\n"
    assert cgroup.own_memory_cgroup(text) == "/process_api/abc"
    assert cgroup.own_memory_cgroup("5:cpu,cpuacct:/x\n4:memory,foo:/y\n") == "/y"
    assert cgroup.own_memory_cgroup("0::/user.slice\n") is None
    assert cgroup.group_dir("/process_api/abc", 42) == "/sys/fs/cgroup/memory/process_api/abc/hopdb-sweep-42"
    assert cgroup.group_dir("/", 42, root="/r") == "/r/hopdb-sweep-42"


def test_wrap_puts_the_process_itself_in_the_group_before_exec(tmp_path):
    cmd = cgroup.wrap(["sh", "-c", "echo $$"], str(tmp_path))
    assert cmd[:2] == ["sh", "-c"] and cmd[3] == str(tmp_path)
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.strip()
    assert (tmp_path / "cgroup.procs").read_text().strip() == out  # exec kept the pid written
    assert subprocess.run(cgroup.wrap(["true"], str(tmp_path / "missing")), capture_output=True).returncode != 0


def test_stats_reads_the_group_files(tmp_path):
    for f, v in {"memory.limit_in_bytes": "268435456\n", "memory.max_usage_in_bytes": "1000\n", "memory.failcnt": "7\n",
                 "memory.oom_control": "oom_kill_disable 0\nunder_oom 0\noom_kill 1\n", "memory.stat": "cache 300\nrss 700\n"}.items():  # fmt: skip
        (tmp_path / f).write_text(v)
    s = cgroup.stats(str(tmp_path))
    assert s == {"limit_bytes": 268435456, "max_usage_bytes": 1000, "failcnt": 7, "memsw_max_usage_bytes": None, "oom_kill": 1, "cache_bytes_after": 300, "rss_bytes_after": 700}
