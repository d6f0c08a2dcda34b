"""bench/pyapi/lightrag_neo4j.py: its report's maths on made-up numbers, and its functions on a
tiny graph for about a second against `hopdb serve` (no Neo4j here; skipped without lightrag-hku
or the hopdb binary). `python3 -m pytest -q -p no:cacheprovider bench/tests/test_lightrag_neo4j.py`"""

import asyncio
import importlib.util
import json
import os
import random

import pytest

from bench.pyapi import lightrag_neo4j as lrn
from bench.pyapi.lightrag_storage import mix

MIX_METHODS = {m for m, _ in mix(random.Random(0), [f"e{i}" for i in range(40)])}


def _point(tasks, calls_per_s):
    methods = {m: {"calls": 10, "p50_ms": 1.0, "p99_ms": 2.0, "max_ms": 3.0} for m in MIX_METHODS}
    return {"tasks": tasks, "seconds": 1.0, "calls": int(calls_per_s), "rounds": int(calls_per_s) // 10,
            "calls_per_s": calls_per_s, "rounds_per_s": calls_per_s / 10, "p50_ms": 1.0, "p99_ms": 2.0, "max_ms": 3.0,
            "over_1s": 0, "errors": 0, "errors_by_method": {}, "first_errors": [], "client_cpu_pct": 50.0,
            "server_cpu_pct": 40.0, "others_cpu_pct": 0.0, "client_share_pct": 55.6, "load_avg_before": 0.1,
            "methods": methods}


def _server(kind, rates, graph=None):
    return {"server": kind, "agent": "x", "database": None, "init_log": [], "startup_s": 1.0, "build_s": 0.5,
            "graph": graph or {"nodes": 60, "degree_sum": 240}, "log": {"count": 0, "first": []},
            "points": [_point(t, r) for t, r in rates.items()]}


def _meta(args):
    return {"started": "now", "command": "python3 -m bench.pyapi.lightrag_neo4j", "args": dict(vars(args)),
            "versions": {"lightrag": "1.5.7"}, "host": {"cpu": "c", "cores": 2, "mem_gib": 8, "kernel": "k"}}


def test_ratios_and_report(tmp_path):
    args = lrn.parse_args(["--out", str(tmp_path)])
    results = {"hopdb": _server("hopdb", {1: 900.0, 8: 1500.0}), "neo4j": _server("neo4j", {1: 200.0, 8: 600.0})}
    rs = lrn.ratios(results)
    assert [(x["tasks"], round(x["ratio"], 2)) for x in rs] == [(1, 4.5), (8, 2.5)]
    doc = {"meta": _meta(args), "results": results, "ratios": rs}
    md = lrn.write_outputs(doc, str(tmp_path))
    assert "| 1 | 900 | 200 | 4.50x | met |" in md and "| 8 | 1,500 | 600 | 2.50x | not met |" in md
    assert "graphs differ" not in md
    assert os.path.getsize(tmp_path / "lightrag_neo4j.png") > 0
    assert json.loads((tmp_path / "results.json").read_text())["ratios"][1]["tasks"] == 8
    results["neo4j"]["graph"] = {"nodes": 60, "degree_sum": 238}
    assert "graphs differ" in lrn.report_md(doc)


def test_arguments():
    a = lrn.parse_args(["--tasks", "1, 8,16", "--servers", "neo4j"])
    assert a.tasks == [1, 8, 16] and a.servers == ["neo4j"] and a.nodes == 5000 and a.seconds == 20
    with pytest.raises(SystemExit):
        lrn.parse_args(["--servers", "hopdb,kuzu"])


@pytest.mark.skipif(importlib.util.find_spec("lightrag") is None, reason="lightrag-hku is not installed")
@pytest.mark.skipif(lrn.neo4j_reference().hopdb_binary() is None,
                    reason="the hopdb binary is not built ($CARGO_TARGET_DIR/release/hopdb)")
def test_against_hopdb_serve(tmp_path):
    args = lrn.parse_args(["--servers", "hopdb", "--nodes", "60", "--edges", "120", "--seconds", "0.5", "--warmup", "0.2",
                           "--tasks", "1,3", "--out", str(tmp_path / "out")])
    said = []
    results = asyncio.run(lrn.run(args, tmp_path, say=said.append))
    r = results["hopdb"]
    assert r["graph"]["nodes"] == 60 and r["graph"]["degree_sum"] > 0
    assert [p["tasks"] for p in r["points"]] == [1, 3]
    for p in r["points"]:
        assert p["errors"] == 0, p["first_errors"]
        assert p["rounds"] > 0 and p["calls"] >= 10 * p["rounds"] and p["calls_per_s"] > 0
        assert set(p["methods"]) == MIX_METHODS
        assert p["client_cpu_pct"] > 0 and p["server_cpu_pct"] > 0
    assert not [ln for ln in r["log"]["first"] if "ERROR" in ln or "panic" in ln], r["log"]
    md = lrn.write_outputs({"meta": lrn.make_meta(args, "test"), "results": results, "ratios": lrn.ratios(results)},
                           args.out)
    assert "| hopdb serve | 3 |" in md and os.path.exists(os.path.join(args.out, "lightrag_neo4j.png"))
