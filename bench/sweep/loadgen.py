"""The native load generator `hopdb-loadgen` (crates/hopdb-loadgen): its command lines, the
validation of the JSON it writes, and the check of the sample answers it returns.

    hopdb-loadgen run   --engine E --target T --queries Q.json --mix retrieval|lightrag --clients N
                        --ramp-s R --window-s W --out R.json [--data DIR] [--memory-mb M] [--timeout-ms T]
                        [--user U --password P]
    hopdb-loadgen check --engine E --target T --queries Q.json --out C.json

The Python client (window.py) writes the same result shape, so both are validated here.
"""

import math
import os
import subprocess

from bench.sweep.lightrag_mix import KIND_NAMES as LIGHTRAG_KINDS

RETRIEVAL_KINDS = ["q1", "q2", "q3", "q4", "q5", "q6", "q7"]
MIX_KINDS = {"retrieval": RETRIEVAL_KINDS, "lightrag": LIGHTRAG_KINDS}
ENGINES = ("hopdb", "postgres", "sqlite", "falkordb", "neo4j", "hopdb-bolt")
FIELDS = ("engine", "mix", "clients", "ramp_s", "window_s", "queries", "errors", "error_pct", "qps", "overall", "per_kind",
          "error_samples", "client_cpu_s", "window_wall_s", "peak_rss_kb", "loadavg_before", "loadavg_after", "durability", "version", "notes")  # fmt: skip
PCTS = ("p50_us", "p95_us", "p99_us")


def binary():
    return os.environ.get("HOPDB_LOADGEN") or os.path.expanduser("~/.cache/hopdb/target/release/hopdb-loadgen")


def available():
    """None when the binary runs `run --help`, else why not."""
    b = binary()
    if not os.access(b, os.X_OK):
        return f"no hopdb-loadgen binary at {b} (`source scripts/env.sh && cargo build --release -p hopdb-loadgen`)"
    r = subprocess.run([b, "run", "--help"], capture_output=True, text=True, timeout=30)
    if r.returncode != 0 or "--mix" not in r.stdout:
        return f"{b} has no `run` subcommand with --mix (exit {r.returncode}): {(r.stderr or r.stdout).strip()[:300]}"
    return None


def drives(engine, help_text=None):
    """Whether the binary's `check --help` lists `engine` among --engine's values (asking a server
    address where nothing listens would cost a client's whole connect-retry time)."""
    if help_text is None:
        help_text = subprocess.run([binary(), "check", "--help"], capture_output=True, text=True, timeout=30).stdout
    for line in help_text.splitlines():
        if line.strip().startswith("--engine"):
            return engine in [v.strip() for v in line.split(">", 1)[-1].split("|")]
    return False


def run_command(engine, target, queries, mix, clients, ramp_s, window_s, out, data=None, memory_mb=None, timeout_ms=None, user=None, password=None):
    cmd = [binary(), "run", "--engine", engine, "--target", target, "--queries", queries, "--mix", mix, "--clients", str(clients),
           "--ramp-s", f"{ramp_s:g}", "--window-s", f"{window_s:g}", "--out", out]  # fmt: skip
    for flag, v in (("--data", data), ("--memory-mb", memory_mb), ("--timeout-ms", timeout_ms), ("--user", user), ("--password", password)):
        if v is not None:
            cmd += [flag, str(v)]
    return cmd


def check_command(engine, target, queries, out, user=None, password=None, memory_mb=None):
    cmd = [binary(), "check", "--engine", engine, "--target", target, "--queries", queries, "--out", out]
    if memory_mb is not None:  # checked the way the capped run then runs (bounded caches, no projection)
        cmd += ["--memory-mb", str(memory_mb)]
    if user is not None:
        cmd += ["--user", user, "--password", password or ""]
    return cmd


def _num(v, what, lo=0.0, hi=math.inf):
    if not isinstance(v, (int, float)) or isinstance(v, bool) or not lo <= v <= hi:
        raise ValueError(f"{what} = {v!r}, expected a number in [{lo}, {hi}]")


def validate(res, engine, mix, clients):
    """Raise ValueError when a run's JSON is not what the contract says or does not add up."""
    missing = [f for f in FIELDS if f not in res]
    if missing:
        raise ValueError(f"fields missing: {missing}")
    for k, want in (("engine", engine), ("mix", mix), ("clients", clients)):
        if res[k] != want:
            raise ValueError(f"{k} = {res[k]!r}, expected {want!r}")
    for k in ("queries", "errors", "qps", "ramp_s", "window_s", "client_cpu_s", "window_wall_s"):
        _num(res[k], k)
    _num(res["error_pct"], "error_pct", 0, 100)
    done = res["queries"] + res["errors"]
    if done and abs(res["error_pct"] - 100.0 * res["errors"] / done) > 0.01:
        raise ValueError(f"error_pct {res['error_pct']} is not errors / (queries + errors) = {res['errors']} / {done}")
    if res["queries"] == 0:
        raise ValueError("no query succeeded in the window")
    if abs(res["qps"] * res["window_s"] - res["queries"]) > max(1.0, 0.05 * res["queries"]) and abs(res["qps"] * res["window_wall_s"] - res["queries"]) > max(1.0, 0.05 * res["queries"]):
        raise ValueError(f"qps {res['qps']:.1f} x window {res['window_s']} s is not the {res['queries']} queries")
    o = res["overall"]
    for k in PCTS + ("mean_us", "max_us"):
        _num(o.get(k), f"overall.{k}")
    if not o["p50_us"] <= o["p95_us"] <= o["p99_us"] <= o["max_us"] * (1 + 1e-9) + 1:
        raise ValueError(f"overall percentiles out of order: {o}")
    # Closed-loop accounting: each client spends the window inside its calls (a tight loop), so the
    # summed latencies of the calls that ended in the window lie between half the clients x window
    # (when no call failed: failed calls take time too, untimed) and clients x (window + the
    # longest call); outside, the latencies are in the wrong unit.
    busy, cap = res["queries"] * o["mean_us"] / 1e6, clients * (res["window_wall_s"] + o["max_us"] / 1e6) * 1.05
    if busy > cap or (not res["errors"] and busy < 0.5 * clients * res["window_wall_s"]):
        raise ValueError(f"queries x mean latency = {busy:.2f} s of calls, not what {clients} clients in a tight loop spend in a {res['window_wall_s']:.2f} s window")
    kinds = MIX_KINDS[mix]
    extra = [k for k in res["per_kind"] if k not in kinds]
    if extra:
        raise ValueError(f"kinds {extra} are not in the {mix} mix")
    n = sum(v["n"] for v in res["per_kind"].values())
    e = sum(v.get("errors", 0) for v in res["per_kind"].values())
    if (n, e) != (res["queries"], res["errors"]):
        raise ValueError(f"per-kind counts {n} ok + {e} errors differ from the totals {res['queries']} + {res['errors']}")
    for k, v in res["per_kind"].items():
        if v["n"]:
            for p in PCTS + ("mean_us",):
                _num(v.get(p), f"per_kind.{k}.{p}")
            if not v["p50_us"] <= v["p95_us"] <= v["p99_us"]:
                raise ValueError(f"{k}: percentiles out of order: {v}")
    return res


def check_answers(answers, sample, check):
    """The loadgen's `check` output ([[kind, seed, answer], ...]) against the sample of the queries
    file ([[kind, seed, expected], ...]), item by item with `check(kind, answer, expected)`
    (bench/retrieval's reference.check, or lightrag_mix.check_answer); [{"kind", "seed", "why"}]
    of the wrong or missing answers."""
    problems = []
    if len(answers) != len(sample):
        problems.append({"kind": "-", "seed": "-", "why": f"{len(answers)} answers for {len(sample)} sample queries"})
    for (kind, seed, full), got in zip(sample, answers, strict=False):
        if got[0] != kind or got[1] != seed:
            problems.append({"kind": kind, "seed": seed, "why": f"answer for {got[0]} {got[1]!r} in its place"})
            continue
        if isinstance(got[2], dict) and "error" in got[2]:
            problems.append({"kind": kind, "seed": seed, "why": f"query failed: {str(got[2]['error'])[:300]}"})
            continue
        ans = [] if got[2] is None and kind in RETRIEVAL_KINDS[1:] else got[2]  # null: no rows
        why = check(kind, ans, full)
        if why:
            problems.append({"kind": kind, "seed": seed, "why": why[:500]})
    return problems
