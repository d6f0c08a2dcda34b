"""The Bolt run's results next to the embedded runner's pass list: per-area table, the markdown
report, ``results-bolt.txt`` and the failures the wire adds."""

from __future__ import annotations

import collections
import dataclasses
import pathlib

from .runner import Outcome

PASS, FAIL, EXCLUDED = "PASS", "FAIL", "EXCLUDED"


@dataclasses.dataclass
class ScenarioResult:
    id: str
    area: str
    status: str
    reason: str = ""
    outcome: Outcome | None = None


def area_of(feature_rel: str) -> str:
    """``clauses/match/Match1.feature`` -> ``clauses/match`` (as tests/tck/report.rs)."""
    dirs = feature_rel.split("/")[:-1]
    return "/".join(dirs[:2]) if dirs else "(top)"


def read_pass_list(path: pathlib.Path) -> set[str]:
    try:
        text = path.read_text()
    except OSError:
        return set()
    return {ln.rstrip() for ln in text.split("\n") if ln.strip() and not ln.startswith("#")}


@dataclasses.dataclass
class Comparison:
    """The pass list against the Bolt run."""

    pass_list: set
    bolt_failures: list  # pass-list ScenarioResults that failed over Bolt
    excluded: list  # pass-list ScenarioResults excluded by construction
    missing: list  # pass-list ids not in this run
    passed: int  # pass-list ids that passed over Bolt
    extra_passes: list  # passed over Bolt, not in the pass list


def compare(pass_list: set, results: list, covered=None) -> Comparison:
    by_id = {r.id: r for r in results}
    ids = sorted(i for i in pass_list if covered is None or covered(i))
    failures, excluded, missing, passed = [], [], [], 0
    for i in ids:
        r = by_id.get(i)
        if r is None:
            missing.append(i)
        elif r.status == PASS:
            passed += 1
        elif r.status == EXCLUDED:
            excluded.append(r)
        else:
            failures.append(r)
    extra = [r for r in results if r.status == PASS and r.id not in pass_list]
    return Comparison(set(ids), failures, excluded, missing, passed, extra)


def _pct(a: int, b: int) -> float:
    return 100.0 * a / b if b else 0.0


def area_table(results: list) -> str:
    by = collections.defaultdict(lambda: [0, 0, 0])
    for r in results:
        row = by[r.area]
        if r.status == EXCLUDED:
            row[2] += 1
            continue
        row[0] += 1
        row[1] += r.status == PASS
    lines = [f"{'area':<40} {'runnable':>9} {'passed':>7} {'%':>7} {'excluded':>9}"]
    tot = [0, 0, 0]
    for area in sorted(by):
        n, ok, ex = by[area]
        tot = [tot[0] + n, tot[1] + ok, tot[2] + ex]
        lines.append(f"{area:<40} {n:>9} {ok:>7} {_pct(ok, n):>6.1f}% {ex:>9}")
    lines.append(f"{'TOTAL':<40} {tot[0]:>9} {tot[1]:>7} {_pct(tot[1], tot[0]):>6.1f}% {tot[2]:>9}")
    return "\n".join(lines)


def failure_text(r: ScenarioResult) -> str:
    """A failure: id, reason, then the query, expected and actual values."""
    out = [f"FAIL {r.id}", f"  reason: {r.reason}"]
    if r.outcome is not None:
        out.extend(r.outcome.details)
    return "\n".join(out)


def results_txt(results: list) -> str:
    lines = []
    for r in sorted(results, key=lambda r: r.id):
        lines.append(f"{r.status} {r.id}" + (f"\t{r.reason}" if r.status != PASS else ""))
    return "\n".join(lines) + "\n"


def markdown(results, cmp: Comparison, info: dict) -> str:
    runnable = [r for r in results if r.status != EXCLUDED]
    passed = sum(r.status == PASS for r in runnable)
    excluded = [r for r in results if r.status == EXCLUDED]
    out = ["# openCypher TCK over Bolt (the official Python driver against `hopdb serve`)\n"]
    out.append(
        f"TCK {info['version']}: {info['features']} feature files, {len(results)} scenarios "
        f"({info['skipped']} more skipped by tag), {len(excluded)} excluded by construction, "
        f"{len(runnable)} run: **{passed} passed ({_pct(passed, len(runnable)):.1f}%)** in {info['secs']:.1f} s "
        f"(neo4j driver {info['driver']}, Bolt {info['bolt']}; server restarts: {info['restarts']}; "
        f"server binary {info['binary']}).\n"
    )
    n = len(cmp.pass_list)
    out.append("## Against the embedded runner's pass list\n")
    out.append(f"- pass list (crates/hopdb-cypher/tests/tck-pass-list.txt): {n} scenarios")
    out.append(f"- passed over Bolt: {cmp.passed}")
    out.append(f"- excluded by construction: {len(cmp.excluded)}")
    out.append(f"- **failed over Bolt only: {len(cmp.bolt_failures)}**")
    out.append(f"- not found in this run: {len(cmp.missing)}")
    out.append(f"- passed over Bolt but not in the pass list: {len(cmp.extra_passes)}\n")
    out.append("```\n" + area_table(results) + "\n```\n")

    out.append("## Failures over Bolt of scenarios that pass embedded\n")
    if not cmp.bolt_failures:
        out.append("None.\n")
    for r in cmp.bolt_failures:
        out.append("```\n" + failure_text(r) + "\n```\n")
    if cmp.missing:
        out.append("## Pass-list scenarios not found in this run\n")
        out.extend(f"- `{i}`" for i in cmp.missing)
        out.append("")

    out.append("## Excluded by construction\n")
    reasons = collections.Counter(r.reason for r in excluded)
    for reason, k in reasons.most_common():
        out.append(f"- {k} scenarios: {reason}")
    out.append("")
    out.extend(f"- `{r.id}`{' (in the pass list)' if r.id in cmp.pass_list else ''}" for r in excluded)
    out.append("")

    checks = [(r, c) for r in results if r.status == PASS and r.outcome for c in r.outcome.error_checks]
    out.append("## Error steps: what the wire can show\n")
    out.append(
        f"{len(checks)} passing scenarios end in an expected error. A Bolt FAILURE carries the Neo4j "
        "status code, from which the TCK class is read and checked, and a message. Neither the TCK "
        "detail code nor the phase travels: `cypher_failure` (crates/hopdb-server/src/backend.rs) "
        "sends `BoltFailure::new(e.neo4j_code(), message)` and drops `e.detail` and `e.phase` (only "
        "syntax errors get a GQL status, 42001). So over Bolt the class is checked, the phase and "
        "the detail are not. (The embedded runner fails a wrong phase; a wrong detail it only records.)\n"
    )
    phases = collections.Counter((c.want_phase, c.arrived) for _, c in checks)
    out.append("| expected phase | FAILURE answered | scenarios |\n|---|---|---:|")
    for (phase, arrived), k in sorted(phases.items()):
        out.append(f"| {phase} | {arrived} | {k} |")
    details = collections.Counter(c.want_detail for _, c in checks)
    out.append("\nExpected detail codes, unverifiable over Bolt: " + ", ".join(f"{d} ({k})" for d, k in details.most_common()) + "\n")

    fb = [(r, f) for r in results if r.outcome for f in sorted(r.outcome.fallbacks)]
    out.append("## Temporal values the driver cannot show exactly\n")
    out.append(
        f"{len(fb)} expected values matched the Bolt structure's fields but not the driver's "
        "`neo4j.time` value (offsets cut to minutes, pytz's minute-rounded local mean time, years "
        "outside 1..9999); they count as passes:\n"
    )
    out.extend(f"- `{r.id}`: expected `{e}`, driver shows `{d}`" for r, (e, d) in fb)
    out.append("")

    dis = [r for r in results if r.outcome and r.outcome.stats_disagree]
    out.append("## Summary counters\n")
    out.append(
        "Side effects are judged by the difference of graph states, as the embedded runner does by "
        f"default. In {len(dis)} side-effect steps the counters the server sends "
        "(`result.consume().counters`) differ from the expected side effects (informational; "
        "`properties-set` is compared with `+properties` plus `-properties`):\n"
    )
    out.extend(f"- `{r.id}`{'' if r.status == PASS else ' (failing)'}" for r in dis)
    out.append("")

    others = [r for r in runnable if r.status == FAIL and r.id not in cmp.pass_list]
    out.append(f"## Other failures (not in the pass list): {len(others)}\n")
    out.extend(f"- `{r.id}`: {r.reason}" for r in others)
    out.append("")
    if cmp.extra_passes:
        out.append("## Passed over Bolt, not in the pass list\n")
        out.extend(f"- `{r.id}`" for r in cmp.extra_passes)
        out.append("")
    return "\n".join(out)
