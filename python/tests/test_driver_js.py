"""``hopdb serve`` against the official Neo4j JavaScript driver (``neo4j-driver`` 5.x from npm).

``drivers/js/test.mjs`` does what ``drivers/go`` does (see ``test_driver_go.py``) and prints the
same JSON line, checked by the same :func:`check_report`. ``npm ci`` installs the driver once
into ``drivers/js/node_modules`` (git-ignored); later runs reuse it.

Skips, saying why, when ``node`` or ``npm`` is not installed or the npm registry cannot be
reached; any other failure is a failure."""

import json
import re
import shutil
import subprocess

import pytest
from test_driver_go import ROOT, brief, check_report, run_client
from test_server import BINARY, Server

JS_DIR = ROOT / "drivers" / "js"

pytestmark = pytest.mark.skipif(
    BINARY is None,
    reason="the hopdb binary is not built: run `cargo build --release -p hopdb-cli` "
    "(looked for $CARGO_TARGET_DIR/release/hopdb)",
)

# npm's codes for a registry it could not reach at all.
NPM_NETWORK_ERROR = re.compile(
    r"\bE(NOTFOUND|CONNREFUSED|CONNRESET|TIMEDOUT|AI_AGAIN|NETUNREACH|HOSTUNREACH|SOCKETTIMEOUT)\b|"
    r"npm (ERR!|error) network|ERR_SOCKET_TIMEOUT|(502|503|504) (Bad Gateway|Service Unavailable|Gateway Timeout)"
)


def _locked_version() -> str:
    lock = json.loads((JS_DIR / "package-lock.json").read_text())
    return lock["packages"]["node_modules/neo4j-driver"]["version"]


def _installed_version():
    try:
        return json.loads((JS_DIR / "node_modules" / "neo4j-driver" / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        return None


@pytest.fixture(scope="module")
def node():
    """`node`, with drivers/js/node_modules installed from the lock file (once)."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("node and npm are not both installed (https://nodejs.org): the JavaScript driver test needs them")
    if _installed_version() != _locked_version():
        try:
            proc = subprocess.run(
                [npm, "ci", "--no-audit", "--no-fund", "--fetch-timeout=60000", "--fetch-retries=1"],
                cwd=JS_DIR,
                capture_output=True,
                text=True,
                timeout=300,
                check=False,
            )
        except subprocess.TimeoutExpired:
            pytest.skip("`npm ci` ran over 300 s: the npm registry is unreachable or too slow")
        if proc.returncode != 0:
            output = proc.stdout + proc.stderr
            if NPM_NETWORK_ERROR.search(output):
                pytest.skip(f"the npm registry is unreachable, so neo4j-driver cannot be installed: {brief(output)}")
            pytest.fail(f"`npm ci` failed in {JS_DIR}:\n{output}")
        assert _installed_version() == _locked_version()
    return node


def test_the_javascript_driver(node, tmp_path):
    server = Server(tmp_path / "store", tmp_path)
    try:
        report = run_client([node, "test.mjs"], JS_DIR, None, server, timeout=120)
    finally:
        code = server.stop()
    assert code == 0, server.output()
    assert report["driver"].startswith("5."), report["driver"]
    check_report(report)
