"""``hopdb serve`` against the official Neo4j Go driver (github.com/neo4j/neo4j-go-driver/v5).

``drivers/go`` is a small program that connects, runs auto-commit, managed and explicit
transactions, round-trips every value type as a parameter, returns a node, a relationship and
paths, provokes a syntax error and uses the ``neo4j://`` scheme, then prints one JSON line of
what it got back; :func:`check_report` (shared with ``test_driver_js.py``) checks that line.

Skips, saying why, when ``go`` is not installed or the module proxy cannot be reached to
download the driver (the first run downloads and builds it: about 0.5 MB, some 20 s); any
other failure is a failure."""

import json
import os
import pathlib
import re
import shutil
import subprocess
import time

import pytest
from test_server import BINARY, Server

ROOT = pathlib.Path(__file__).resolve().parents[2]
GO_DIR = ROOT / "drivers" / "go"

pytestmark = pytest.mark.skipif(
    BINARY is None,
    reason="the hopdb binary is not built: run `cargo build --release -p hopdb-cli` "
    "(looked for $CARGO_TARGET_DIR/release/hopdb)",
)

# Transport-level failures of a package registry: the download could not happen at all.
GO_NETWORK_ERROR = re.compile(
    r"dial tcp|no such host|connection refused|connection reset|i/o timeout|TLS handshake timeout|"
    r"network is unreachable|proxyconnect|Temporary failure in name resolution|"
    r"unexpected EOF|(502|503|504) (Bad Gateway|Service Unavailable|Gateway Timeout)",
)


def brief(output: str, limit: int = 600) -> str:
    """The first lines of a tool's error output, for a skip reason."""
    lines = [line.strip() for line in output.splitlines()]
    text = " | ".join(line for line in lines if line and not line.startswith("npm warn"))
    return text if len(text) <= limit else text[:limit] + " ..."


def _int(n: int) -> dict:
    return {"int": str(n)}


def _str(s: str) -> dict:
    return {"string": s}


# What every value sent as `$v` must come back as, in the programs' typed JSON (drivers/go/main.go
# describes it): a round trip through the server's Bolt values and the engine's.
EXPECTED_VALUES = {
    "null": None,
    "bool": True,
    "int": _int(42),
    "int_negative": _int(-7),
    "int_2_53_plus_1": _int(2**53 + 1),
    "int_max": _int(2**63 - 1),
    "int_min": _int(-(2**63)),
    "float": {"float": 3.141592653589793},
    "float_big": {"float": 1.7976931348623157e308},
    "float_tiny": {"float": 5e-324},
    "string": _str("héllo wörld ✓ 日本語 🚀"),
    "string_empty": _str(""),
    "bytes": {"bytes": "0001ff7f80"},
    "list": [_int(1), _str("two"), {"float": 3.5}, None, [True]],
    "map": {"map": {"a": _int(1), "b": [_str("x")], "nested": {"map": {"k": None}}}},
    "date": {"date": "2024-02-29"},
    "date_old": {"date": "1815-12-10"},
    "localtime": {"localtime": [8, 15, 30, 123456789]},
    "time": {"time": [8, 15, 30, 500000000, 19800]},
    "localdatetime": {"localdatetime": [2024, 6, 1, 12, 0, 0, 1]},
    "datetime": {"datetime": [2024, 6, 1, 12, 0, 0, 987654321, -18000]},
    "datetime_zone": {"datetimezone": [2024, 6, 1, 12, 30, 15, 250000000, "Europe/Stockholm", 7200]},
    "duration": {"duration": [14, 3, 3723, 500]},
}

# Values the server built itself, as the driver hydrates them.
EXPECTED_BUILT = {
    "paris": {"datetimezone": [2024, 1, 15, 8, 0, 0, 0, "Europe/Paris", 3600]},
    "fixed": {"datetime": [2024, 6, 1, 12, 0, 0, 0, -18000]},
    "duration": {"duration": [1, 2, 3, 500000000]},
}


def _typed_equal(got, want) -> bool:
    """Equality that does not take `True == 1` or `1 == 1.0` for the same value."""
    if isinstance(want, dict):
        return isinstance(got, dict) and got.keys() == want.keys() and all(_typed_equal(got[k], want[k]) for k in want)
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(map(_typed_equal, got, want))
    if isinstance(want, float):
        return isinstance(got, (int, float)) and not isinstance(got, bool) and float(got) == want
    return type(got) is type(want) and got == want


def check_report(report: dict):
    """Checks one program's JSON line: what the driver saw is what was sent or stored."""
    assert report["agent"].startswith("Neo4j/") and "HopDB" in report["agent"], report["agent"]
    assert report["protocol"].split(".")[0] == "5", report["protocol"]

    auto = report["auto"]
    assert (auto["nodes_created"], auto["labels_added"], auto["properties_set"]) == (1, 1, 2), auto
    assert auto["query_type"] == "w", auto
    assert (auto["n"], auto["name"]) == (_int(1), _str("one")), auto
    assert (auto["rows"], auto["sum"]) == (2500, 2500 * 2501 // 2), "more rows than one PULL batch (1000)"
    assert auto["execute_query"] == {"keys": ["name"], "names": [_str("one")]}, auto

    assert report["managed"] == {"written": _str("Ada"), "attempts": 2, "count": _int(1)}, report["managed"]
    assert report["rollback"] == {"inside": 1, "after": 0, "committed": 1}, report["rollback"]

    values = report["values"]
    wrong = {k: {"sent": want, "returned": values.get(k)} for k, want in EXPECTED_VALUES.items()}
    wrong = {k: v for k, v in wrong.items() if not _typed_equal(v["returned"], v["sent"])}
    assert not wrong, f"values that did not round-trip: {json.dumps(wrong, ensure_ascii=False, indent=1)}"
    assert values.keys() == EXPECTED_VALUES.keys()
    same = report["same"]
    unequal = [k for k in EXPECTED_VALUES if k != "bytes" and same.get(k) is not True]
    assert not unequal, f"the server read these parameters as other values: {unequal} ({same})"
    assert same["bytes"] is None
    built = report["built"]
    assert all(_typed_equal(built[k], v) for k, v in EXPECTED_BUILT.items()), built

    g = report["graph"]
    a, b, r = g["a"]["node"], g["b"]["node"], g["r"]["relationship"]
    assert a == {"elementId": g["ida"]["string"], "labels": ["Person"], "props": {"map": {"name": _str("Ada")}}}, g
    assert b == {
        "elementId": g["idb"]["string"],
        "labels": ["Author", "Person"],
        "props": {"map": {"name": _str("Charles")}},
    }, g
    assert a["elementId"] != b["elementId"]
    assert r == {
        "elementId": g["idr"]["string"],
        "type": "KNOWS",
        "start": a["elementId"],
        "end": b["elementId"],
        "props": {"map": {"since": _int(1833)}},
    }, g
    assert g["p"]["path"] == {"nodes": [g["a"], g["b"]], "relationships": [g["r"]]}, g["p"]
    # Walked against its direction, the relationship still starts at Ada.
    assert g["q"]["path"] == {"nodes": [g["b"], g["a"]], "relationships": [g["r"]]}, g["q"]

    err = report["syntax_error"]
    assert err["raised"] and err["type"] == "Neo4jError", err
    assert err["code"] == "Neo.ClientError.Statement.SyntaxError", err
    assert err["after"] == _int(1), "the session is usable after a failure"

    assert report["routing"] == {"scheme": "neo4j", "written": _int(1), "read": _int(1), "query": _int(1)}


def run_client(cmd, cwd, env, server: Server, timeout: float) -> dict:
    """Runs a client program against `server` and returns its JSON line (failing with its
    output and the server's log when it does not print one)."""
    started = time.monotonic()
    try:
        proc = subprocess.run(
            [*cmd, server.uri], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"{' '.join(cmd)} ran over {timeout} s:\n{e.stdout}\n{e.stderr}\nserver log:\n{server.output()}")
    lines = proc.stdout.strip().splitlines()
    assert proc.returncode == 0 and lines, (
        f"{' '.join(cmd)} exited with {proc.returncode} after {time.monotonic() - started:.1f} s\n"
        f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}\nserver log:\n{server.output()}"
    )
    return json.loads(lines[-1])


def _go_env() -> dict:
    env = dict(os.environ)
    # The program's go.mod/go.sum pin the driver; -mod=mod lets the go command complete them
    # instead of refusing. The module cache is the default one (GOPATH's).
    env["GOFLAGS"] = " ".join(filter(None, [env.get("GOFLAGS", ""), "-mod=mod"]))
    env.setdefault("GOTOOLCHAIN", "local")
    return env


@pytest.fixture(scope="module")
def go_program():
    """drivers/go with its module downloaded (skipping when the proxy is unreachable)."""
    go = shutil.which("go")
    if go is None:
        pytest.skip("the go command is not installed (https://go.dev/dl/): the Go driver test needs it")
    env = _go_env()
    try:
        proc = subprocess.run(
            [go, "mod", "download"], cwd=GO_DIR, env=env, capture_output=True, text=True, timeout=300, check=False
        )
    except subprocess.TimeoutExpired:
        pytest.skip("`go mod download` ran over 300 s: the Go module proxy is unreachable or too slow")
    if proc.returncode != 0:
        output = proc.stdout + proc.stderr
        if GO_NETWORK_ERROR.search(output):
            pytest.skip(f"the Go module proxy is unreachable, so the driver cannot be downloaded: {brief(output)}")
        pytest.fail(f"`go mod download` failed in {GO_DIR}:\n{output}")
    return go, env


def test_the_go_driver(go_program, tmp_path):
    go, env = go_program
    server = Server(tmp_path / "store", tmp_path)
    try:
        # The first run compiles the driver (about 20 s on 2 cores), later ones are cached.
        report = run_client([go, "run", "."], GO_DIR, env, server, timeout=600)
    finally:
        code = server.stop()
    assert code == 0, server.output()
    assert report["driver"].startswith("v5."), report["driver"]
    check_report(report)
