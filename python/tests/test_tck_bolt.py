"""The openCypher TCK (1.0.0-M23) through the official Python driver over Bolt against
``hopdb serve``: every scenario of crates/hopdb-cypher/tests/tck-pass-list.txt (the embedded
runner's passes) must pass over the wire too, except those that cannot run over a wire by
construction (a procedure registered in-process by a Given step), which are listed and counted.

One server serves the whole run; between scenarios the graph is emptied (``MATCH (n) DETACH
DELETE n``, and after a scenario that named indexes or constraints, every one is dropped). Side
effects are judged as the embedded runner does by default: the difference of graph states read
around the query. What the wire cannot check (the error detail code and phase) is counted in the
report, as are temporal values the driver cannot represent exactly (compared by their Bolt
fields). See tck_bolt/ for the details.

The report goes to ``$CARGO_TARGET_DIR/tck/report-bolt.md`` and ``results-bolt.txt`` (beside the
embedded runner's report.md; ``-filtered`` under a filter), or ``$HOPDB_TCK_BOLT_REPORT_DIR``.

Environment, as tests/tck.rs: ``HOPDB_TCK_DIR``, ``HOPDB_TCK_FILTER=substring`` (run only
matching ids; the pass list is held only for those), ``HOPDB_TCK_TIMEOUT_SECS`` (default 10, per
scenario), ``HOPDB_TCK_SIDE_EFFECTS=stats`` (judge side effects by the summary counters),
``CI=true`` (a missing TCK fails instead of skipping). Skips when the hopdb binary is not built."""

import math
import os
import pathlib
import time

import neo4j
import neo4j.time
import pytest
from tck_bolt import compare, gherkin, report, run, server, values, wire

BINARY = server.binary()
PASS_LIST = run.REPO / "crates" / "hopdb-cypher" / "tests" / "tck-pass-list.txt"

needs_binary = pytest.mark.skipif(
    BINARY is None,
    reason="the hopdb binary is not built: run `cargo build --release -p hopdb-cli` "
    "(looked for $CARGO_TARGET_DIR/release/hopdb)",
)


def _report_dir() -> pathlib.Path:
    d = os.environ.get("HOPDB_TCK_BOLT_REPORT_DIR")
    if d:
        return pathlib.Path(d)
    target = os.environ.get("CARGO_TARGET_DIR") or os.path.expanduser("~/.cache/hopdb/target")
    return pathlib.Path(target) / "tck"


@needs_binary
def test_tck_over_bolt(tmp_path, capsys):
    features, why = run.features_dir()
    if features is None:
        msg = (
            f"the openCypher TCK is not available ({why}). Install Maven and run scripts/fetch-tck.sh, "
            "or set HOPDB_TCK_DIR to a directory holding features/."
        )
        if os.environ.get("CI") == "true":
            pytest.fail(f"tck-bolt: FAILED: {msg} (CI=true, so this is an error)")
        pytest.skip(f"tck-bolt: SKIPPED: {msg}")
    filt = os.environ.get("HOPDB_TCK_FILTER") or None
    timeout = float(os.environ.get("HOPDB_TCK_TIMEOUT_SECS") or 10)
    from_stats = os.environ.get("HOPDB_TCK_SIDE_EFFECTS") == "stats"

    jobs, skipped, n_features = run.load_jobs(features, filt)
    assert jobs, f"no TCK scenarios found in {features}" + (f" matching {filt!r}" if filt else "")
    with wire.keep_raw_temporals():
        results, secs, restarts, bolt = run.run_all(
            jobs, BINARY, tmp_path, features.parent / "graphs", timeout, from_stats
        )

    pass_list = report.read_pass_list(PASS_LIST)
    assert pass_list, f"cannot read {PASS_LIST}"
    cmp = report.compare(pass_list, results, (lambda i: filt in i) if filt else None)
    info = {
        "version": run.TCK_VERSION,
        "features": n_features,
        "skipped": skipped,
        "secs": secs,
        "restarts": restarts,
        "driver": neo4j.__version__,
        "bolt": bolt,
        "binary": f"{BINARY}, built {time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(BINARY.stat().st_mtime))}",
    }
    out = _report_dir()
    out.mkdir(parents=True, exist_ok=True)
    suffix = "-filtered" if filt else ""
    md = out / f"report-bolt{suffix}.md"
    md.write_text(report.markdown(results, cmp, info))
    (out / f"results-bolt{suffix}.txt").write_text(report.results_txt(results))

    ran = [r for r in results if r.status != report.EXCLUDED]
    passed = sum(r.status == report.PASS for r in ran)
    summary = (
        f"tck-bolt: {len(results)} scenarios, {len(results) - len(ran)} excluded by construction, "
        f"{passed}/{len(ran)} passed over Bolt {bolt} in {secs:.1f} s ({restarts} server restarts); "
        f"pass list {len(cmp.pass_list)}: {cmp.passed} pass over Bolt, {len(cmp.excluded)} excluded, "
        f"{len(cmp.bolt_failures)} fail over Bolt only, {len(cmp.missing)} not found; report in {md}"
    )
    print(report.area_table(results))
    print(summary)
    if filt:
        verbose = os.environ.get("HOPDB_TCK_VERBOSE") == "1"
        for r in results:
            if r.status == report.FAIL or (verbose and r.status == report.PASS):
                print("\n" + report.failure_text(r).replace("FAIL", r.status, 1))
    with capsys.disabled():
        print("\n" + summary)

    problems = [report.failure_text(r) for r in cmp.bolt_failures]
    problems += [f"MISSING {i}: not found in this TCK run (renamed, removed or skipped)" for i in cmp.missing]
    assert not problems, (
        f"{len(problems)} scenarios of tests/tck-pass-list.txt do not pass over Bolt "
        f"(report: {md}):\n\n" + "\n\n".join(problems)
    )


# ---- the harness's own tests (no server) ------------------------------------------------------


def test_harness_reads_gherkin_as_the_embedded_runner():
    text = """
Feature: F
  Background:
    Given an empty graph

  @ignore
  Scenario: [1] plain
    When executing query:
      \"\"\"
      MATCH (n)
        RETURN n
      \"\"\"
    Then the result should be, in any order:
      | n |
      | 'a\\|b' |
      | '\\nx\\\\' |

  Scenario Outline: [2] outline <v>
    # a comment
    When executing query:
      \"\"\"
      RETURN <v> AS v
      \"\"\"
    Then the result should be, in order:
      | v   |
      | <r> |

    Examples:
      | v | r |
      | 1 | 1 |
      | 2 | 2 |

    Examples:
      | v   | r   |
      | 'x' | 'x' |
"""
    f = gherkin.parse(text)
    assert f.name == "F" and len(f.scenarios) == 4
    first = f.scenarios[0]
    assert first.tags == ["ignore"] and len(first.steps) == 3
    assert first.steps[0].text == "an empty graph"
    assert first.steps[1].doc == "MATCH (n)\n  RETURN n"
    assert first.steps[2].table[1] == ["'a|b'"]
    assert first.steps[2].table[2] == ["'\nx\\'"]
    third = f.scenarios[3]
    assert third.example == 3 and third.name == "[2] outline 'x'"
    assert third.steps[1].doc == "RETURN 'x' AS v"
    assert gherkin.scenario_id("a/b/F.feature", third) == "a/b/F.feature:[2] outline 'x'#3"
    assert report.area_of("clauses/match/Match1.feature") == "clauses/match"


def test_harness_parses_tck_values():
    p = values.parse_value
    assert p("null") is None and p(" true ") is True
    assert p("-9223372036854775808") == -(2**63)
    assert p("1e-305") == values.EFloat(1e-305, "1e-305")
    assert math.isnan(p("NaN").value) and p("-Infinity").value == -math.inf
    assert p(r"'Jerry O\'Connell'") == "Jerry O'Connell"
    assert p(r"""'a\\bcn5t\'"\\//\\"\''""") == r"""a\bcn5t'"\//\"'"""
    assert p("[1, [2, 'x'], {}]") == [1, [2, "x"], {}]
    assert p("{``: null, `a b`: 1, name: 'x'}") == {"": None, "a b": 1, "name": "x"}
    assert p("(:A:B {name: 'x'})") == values.ENode(["A", "B"], {"name": "x"})
    assert p("[:T {k: 1}]") == values.ERel("T", {"k": 1})
    path = p("<({time: 20})<-[:T]-({time: 10})-[:U {w: 1.5}]->(:B)>")
    assert path.start.props == {"time": 20} and [s[1] for s in path.steps] == [False, True]
    for bad in ("1 2", "'open", "{a: 1, a: 2}"):
        with pytest.raises(ValueError):
            p(bad)
    assert values.to_param(p("{name: 'Alice', tags: [1, 2.5, null]}")) == {"name": "Alice", "tags": [1, 2.5, None]}


def test_harness_compares_as_the_embedded_runner():
    e, strict, loose = values.parse_value, compare.Comparer(), compare.Comparer(ignore_lists=True)
    assert strict.matches(e("1"), 1) and not strict.matches(e("1"), 1.0) and not strict.matches(e("1.0"), 1)
    assert not strict.matches(e("1"), True) and not strict.matches(e("true"), 1)
    assert strict.matches(e("3985764.3405892686"), 3_985_764.340_589_268_7)
    assert strict.matches(e("NaN"), math.nan) and not strict.matches(e("NaN"), 1.0)
    assert strict.matches(e("0.3333333333"), 1 / 3) and not strict.matches(e("0.3333333334"), 1 / 3)
    assert not strict.matches(e("[1, 2]"), [2, 1]) and loose.matches(e("[1, 2]"), [2, 1])
    assert not loose.matches(e("[1, 1]"), [2, 1])
    assert not strict.matches(e("{a: 1, b: null}"), {"a": 1}) and strict.matches(e("{a: 1, b: null}"), {"a": 1, "b": None})
    assert strict.rows_match([[1], [2]], [[2], [1]], ordered=False)
    assert not strict.rows_match([[1], [2]], [[2], [1]], ordered=True)
    assert compare.multiset_match(["x", "y"], [0, 1], lambda a, b: a == "x" or b == 0)
    assert compare.render([1.0, "it's", None]) == r"[1.0, 'it\'s', null]"


def test_harness_reads_temporal_values_from_the_wire():
    def w(tag, *fields, driver=None):
        return wire.WireTemporal(tag.encode(), fields, driver)

    assert wire.raw_string(w("D", 16637)) == "2015-07-21"
    assert wire.date_string(2_932_896) == "9999-12-31" and wire.date_string(2_932_897) == "+10000-01-01"
    assert wire.date_string(-719_528) == "0000-01-01" and wire.date_string(-719_529) == "-0001-12-31"
    assert wire.raw_string(w("t", 45_296_000_000_001)) == "12:34:56.000000001"
    assert wire.raw_string(w("T", 45_296_000_000_000, 7559)) == "12:34:56+02:05:59"
    assert wire.raw_string(w("I", 0, 142_000_000, 3600)) == "1970-01-01T01:00:00.142+01:00"
    zoned = w("i", -4779227576, 142_000_000, "Europe/Stockholm")
    text = "1818-07-21T21:40:32.142+00:53:28[Europe/Stockholm]"
    assert wire.raw_string(zoned, wire.zone_offset_hint(text)) == text
    assert wire.duration_string(14, 3, 14706, 700_000_000) == "P1Y2M3DT4H5M6.7S"
    assert wire.duration_string(0, 0, -1, 500_000_000) == "PT-0.5S"
    assert wire.duration_string(0, 0, 0, 0) == "PT0S"
    # The driver cuts the offset's seconds: the value matches through its Bolt fields, noted.
    cut = w("T", 45_296_000_000_000, 7559, driver=neo4j.time.Time(12, 34, 56))
    cmp = compare.Comparer()
    assert cmp.matches("12:34:56+02:05:59", cut) and cmp.fallbacks
    assert not compare.Comparer().matches("12:34:56+02:05:58", cut)
    exact = w("D", 16637, driver=neo4j.time.Date(2015, 7, 21))
    cmp = compare.Comparer()
    assert cmp.matches("2015-07-21", exact) and not cmp.fallbacks
