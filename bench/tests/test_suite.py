"""bench/run's orchestration: the runners' command lines per profile, engine selection, the summary."""

import json
import os

import pytest

from bench import suite


def test_every_workload_has_a_runner():
    for name, w in suite.WORKLOADS.items():
        assert os.path.isfile(os.path.join(suite.HERE, w.folder, "run.py")), f"{name}: bench/{w.folder}/run.py is missing"


def test_profiles_choose_the_scale():
    q = suite.command("deep", "quick", None, "/o", "/d")
    f = suite.command("deep", "full", None, "/o", "/d")
    assert q[q.index("--scale") + 1] == "0.1" and f[f.index("--scale") + 1] == "1"
    assert q[-4:] == ["--out", "/o/deep", "--data-root", "/d"]
    s = suite.command("sweep", "full", None, "/o", None)
    assert s[s.index("--profile") + 1] == "full" and "--data-root" not in s


def test_engines_are_intersected_with_each_workloads_own():
    cmd = suite.command("retrieval", "quick", ["hopdb", "leveldb", "neo4j"], "/o", "/d")
    assert cmd[cmd.index("--engines") + 1] == "hopdb,neo4j"
    assert suite.command("retrieval", "quick", ["leveldb"], "/o", "/d") is None
    assert "--engines" not in suite.command("retrieval", "quick", None, "/o", "/d")


def test_unknown_names_are_refused():
    with pytest.raises(SystemExit, match="unknown workloads: nope"):
        suite.select("deep,nope", list(suite.WORKLOADS), "workloads")
    assert suite.select("", ["a", "b"], "x") == ["a", "b"]
    assert suite.select(" b, a ", ["a", "b"], "x") == ["b", "a"]


def test_tally_groups_engines_by_status(tmp_path):
    p = tmp_path / "r.jsonl"
    rows = [{"engine": "hopdb", "mode": 1}, {"engine": "hopdb", "mode": 2}, {"engine": "kuzu", "status": "skipped"}, {"engine": "neo4j", "status": "failed"}]
    p.write_text("\n".join(json.dumps(r) for r in rows) + "\n\n")
    assert suite.tally(str(p)) == {"ok": ["hopdb"], "skipped": ["kuzu"], "failed": ["neo4j"]}
    assert suite.tally(str(tmp_path / "absent.jsonl")) == {}


def test_summary_keeps_the_newest_row_of_each_workload(tmp_path):
    p = tmp_path / "summary.jsonl"
    rows = [
        {"workload": "deep", "run_id": "1", "status": "ok"},
        {"workload": "import", "run_id": "1", "status": "failed (exit 2)"},
        {"workload": "deep", "run_id": "2", "status": "wrong answers"},
    ]
    p.write_text("".join(json.dumps(r) + "\n" for r in rows))
    got = suite.latest(str(p))
    assert [(r["workload"], r["run_id"]) for r in got] == [("import", "1"), ("deep", "2")]  # WORKLOADS order
    run = {"profile": "quick", "run_id": "2", "commit": "abc", "seconds": 100, "command": "bench/run",
           "host": {"cores": 2, "mem_gib": 24, "cpu": "x", "kernel": "k", "python": "3.11"}}
    md = suite.summary_md(run, got, str(tmp_path))
    assert "| deep |" in md and "wrong answers" in md and "failed (exit 2)" in md and "1.7 min" in md


def test_dry_run_prints_the_plan(capsys):
    assert suite.main(["--dry-run", "--workloads", "unum", "--engines", "hopdb"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("unum: ") and "--engines hopdb" in out and "--profile quick" in out
