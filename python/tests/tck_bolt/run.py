"""Finding the TCK, loading its scenarios under the embedded runner's ids, and running them over
one ``hopdb serve`` (restarted when a scenario kills or hangs it)."""

from __future__ import annotations

import dataclasses
import os
import pathlib
import subprocess
import time

import neo4j

from . import gherkin, report, runner, server

TCK_VERSION = "1.0.0-M23"
SKIP_TAGS = {"ignore"}
WATCHDOG_GRACE = 5.0  # seconds past the scenario timeout before a silent server is killed
REPO = pathlib.Path(__file__).resolve().parents[3]


def tck_dir() -> pathlib.Path:
    d = os.environ.get("HOPDB_TCK_DIR")
    if d:
        return pathlib.Path(d)
    return pathlib.Path.home() / ".cache" / "hopdb" / f"tck-{TCK_VERSION}"


def features_dir() -> tuple[pathlib.Path | None, str]:
    """The features directory, fetched by scripts/fetch-tck.sh when absent (as tests/tck.rs
    does); (None, why) when it cannot be had."""
    d = tck_dir()
    features = d / "features"
    if (d / ".complete").exists() and features.is_dir():
        return features, ""
    script = REPO / "scripts" / "fetch-tck.sh"
    env = dict(os.environ, HOPDB_TCK_DIR=str(d), HOPDB_TCK_VERSION=TCK_VERSION)
    try:
        done = subprocess.run(["bash", str(script)], env=env, capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, f"cannot run {script}: {e}"
    if done.returncode != 0:
        return None, f"{script} failed ({done.returncode}): {done.stderr.strip()[-500:]}"
    if not features.is_dir():
        return None, f"{script} ran but {features} is missing"
    return features, ""


@dataclasses.dataclass
class Job:
    id: str
    area: str
    scenario: gherkin.Scenario


def load_jobs(features: pathlib.Path, filt: str | None):
    """(jobs, skipped by tag, feature files), ids as tests/tck.rs makes them."""
    files = sorted(p for p in features.rglob("*.feature") if p.is_file())
    jobs, skipped, seen = [], 0, set()
    for f in files:
        rel = f.relative_to(features).as_posix()
        feature = gherkin.parse(f.read_text())
        for sc in feature.scenarios:
            sid = gherkin.scenario_id(rel, sc)
            if sid in seen:
                sid = f"{sid}@line{sc.line}"
            seen.add(sid)
            if filt and filt not in sid:
                continue
            if any(t in SKIP_TAGS for t in sc.tags):
                skipped += 1
                continue
            jobs.append(Job(sid, report.area_of(rel), sc))
    return jobs, skipped, len(files)


class Runner:
    """One server and driver at a time, restarted after a crash or a hang."""

    def __init__(self, exe: pathlib.Path, workdir: pathlib.Path, graphs: pathlib.Path, timeout: float, from_stats: bool):
        self.exe, self.workdir, self.graphs = exe, workdir, graphs
        self.timeout, self.from_stats = timeout, from_stats
        self.n = 0
        self.restarts = 0
        self.server = None
        self.driver = None
        self.session = None
        self.bolt = ""
        self.watchdog = server.Watchdog()
        self._start()

    def _start(self):
        self.server = server.Server(self.exe, self.workdir, self.n)
        self.n += 1
        self.driver = neo4j.GraphDatabase.driver(self.server.uri, auth=server.AUTH, connection_timeout=10)
        self.session = runner.Session(self.driver, self.timeout)
        if not self.bolt:
            with self.driver.session(database="neo4j") as s:
                info = s.run("RETURN 1").consume().server
                self.bolt = ".".join(map(str, info.protocol_version))

    def _stop(self):
        if self.session is not None:
            self.session.close()
        if self.driver is not None:
            try:
                self.driver.close()
            except Exception:  # a driver whose server was killed
                pass
        if self.server is not None:
            self.server.stop()

    def restart(self):
        self._stop()
        self.restarts += 1
        self._start()

    def close(self):
        self.watchdog.close()
        self._stop()

    def run_job(self, job: Job, schema_dirty: bool) -> report.ScenarioResult:
        why = runner.exclusion(job.scenario)
        if why:
            return report.ScenarioResult(job.id, job.area, report.EXCLUDED, why)
        try:
            self.session.clean(schema_dirty)
        except runner.ConnectionLost:
            self.restart()  # the previous scenario left the server unusable; start clean
        # The server's own timeout (each query's tx_timeout) stops a slow query with a Timeout
        # FAILURE; the watchdog only catches a server that does not answer at all.
        self.watchdog.arm(self.server, self.timeout + WATCHDOG_GRACE)
        try:
            out = runner.run_scenario(job.scenario, self.session, self.graphs, self.from_stats)
        except runner.ConnectionLost as e:
            fired = self.watchdog.fired
            self.watchdog.disarm()
            code = self.server.proc.poll()
            if fired:
                reason = (
                    f"no answer {self.timeout + WATCHDOG_GRACE:g} s into the scenario "
                    "(the server was killed and restarted)"
                )
            elif code is not None:
                reason = f"the server exited with {code} during the scenario: {e}; log tail: {self.server.output(600)}"
            else:
                reason = f"connection lost: {e}"
            out = runner.Outcome(reason=runner.one_line(reason, 1000), touched_schema=True)
            self.restart()
            return report.ScenarioResult(job.id, job.area, report.FAIL, out.reason, out)
        self.watchdog.disarm()
        status = report.PASS if out.pass_ else report.FAIL
        return report.ScenarioResult(job.id, job.area, status, out.reason, out)


def run_all(jobs, exe, workdir, graphs, timeout, from_stats, progress=print):
    """Runs every job; (results, seconds, restarts, Bolt version)."""
    started = time.monotonic()
    r = Runner(exe, workdir, graphs, timeout, from_stats)
    results = []
    dirty = False
    try:
        for i, job in enumerate(jobs, 1):
            res = r.run_job(job, dirty)
            dirty = bool(res.outcome and res.outcome.touched_schema)
            results.append(res)
            if i % 500 == 0:
                progress(f"tck-bolt: {i}/{len(jobs)} scenarios run ({time.monotonic() - started:.0f} s)")
    finally:
        r.close()
    return results, time.monotonic() - started, r.restarts, r.bolt
