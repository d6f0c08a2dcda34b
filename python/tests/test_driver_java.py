"""``hopdb serve`` against the official Neo4j Java driver (``org.neo4j.driver:neo4j-java-driver``
5.x, from Maven Central): connectivity, auto-commit, managed and explicit transactions, every
value type as a parameter and back, nodes, relationships and paths, errors as
``ClientException`` and the ``neo4j://`` routing scheme.

The Java side is drivers/java, a small program (``DriverCheck``) built once with
``mvn -q -B package`` (skipped when ``target/`` is newer than its sources), then run against a
served store; it prints one JSON line of what the driver saw, and the tests assert on that. The
tests skip, saying why, when ``java`` (17+) or ``mvn`` is missing, or when Maven Central cannot be
reached and ~/.m2 does not already hold the driver and the build plugins."""

import json
import os
import pathlib
import re
import shutil
import subprocess
import time
import urllib.request

import pytest
from test_server import BINARY, Server

pytestmark = pytest.mark.skipif(
    BINARY is None,
    reason="the hopdb binary is not built: run `cargo build --release -p hopdb-cli` "
    "(looked for $CARGO_TARGET_DIR/release/hopdb)",
)

PROJECT = pathlib.Path(__file__).resolve().parents[2] / "drivers" / "java"
TARGET = PROJECT / "target"
JAR = TARGET / "driver-check.jar"
CLASSPATH = TARGET / "classpath.txt"
STAMP = TARGET / "built-by-pytest"  # written after a successful build; its mtime dates the build
MAIN = "hopdb.drivercheck.DriverCheck"
CENTRAL = "https://repo.maven.apache.org/maven2/"
BUILD_TIMEOUT = 900  # a cold ~/.m2 downloads the driver, Netty, Reactor and five plugins
RUN_TIMEOUT = 120


def _java_major():
    """The major version of the `java` on PATH, or None when it cannot be run."""
    try:
        r = subprocess.run(["java", "-version"], capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r'version "(\d+)(?:\.(\d+))?', r.stderr + r.stdout)
    if not m:
        return None
    major = int(m.group(1))
    return int(m.group(2) or 0) if major == 1 else major  # "1.8.0_x" is Java 8


def _central_unreachable():
    """Why Maven Central cannot be reached (a short sentence), or None when it answers."""
    probe = urllib.request.Request(CENTRAL + "org/neo4j/driver/neo4j-java-driver/maven-metadata.xml", method="HEAD")
    try:
        with urllib.request.urlopen(probe, timeout=10):
            return None
    except Exception as e:  # any failure to get an answer means unreachable
        return f"{type(e).__name__}: {e}"


def _sources():
    return [PROJECT / "pom.xml", *(p for p in (PROJECT / "src").rglob("*") if p.is_file())]


def _fresh() -> bool:
    """Whether the last build is newer than every source and its classpath still resolves."""
    if not (STAMP.is_file() and JAR.is_file() and CLASSPATH.is_file()):
        return False
    built = STAMP.stat().st_mtime
    if any(p.stat().st_mtime > built for p in _sources()):
        return False
    return all(pathlib.Path(e).is_file() for e in CLASSPATH.read_text().strip().split(os.pathsep) if e)


# What Maven prints when an artifact cannot be downloaded (online or in offline mode).
_RESOLUTION = re.compile(
    r"Could not transfer|Could not resolve|could not be resolved|Failed to read artifact descriptor|"
    r"Non-resolvable|offline mode|has not been downloaded|UnknownHost|Unknown host|Connection refused|"
    r"timed out|Network is unreachable|No route to host",
)


def _maven_errors(output: str) -> str:
    lines = [line for line in output.splitlines() if "ERROR" in line]
    return "\n".join(lines[:8]) or output[-2000:]


@pytest.fixture(scope="session")
def driver_check():
    """The command that runs DriverCheck (java -cp ...), built with Maven unless fresh."""
    missing = [tool for tool in ("java", "mvn") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"{' and '.join(missing)} not on PATH: the Java driver test needs a JDK 17+ and Maven")
    major = _java_major()
    if major is None or major < 17:
        pytest.skip(f"the Java driver test needs Java 17+, and `java -version` says {major or 'nothing usable'}")
    if not _fresh():
        # Offline when Central does not answer: a warm ~/.m2 still builds, a cold one fails at once
        # (instead of waiting on connection timeouts for each artifact).
        unreachable = _central_unreachable()
        command = ["mvn", "-q", "-B", "-Dstyle.color=never", *(["-o"] if unreachable else []), "package"]
        start = time.monotonic()
        try:
            r = subprocess.run(command, cwd=PROJECT, capture_output=True, text=True, timeout=BUILD_TIMEOUT, check=False)
        except subprocess.TimeoutExpired:
            pytest.fail(f"`{' '.join(command)}` in {PROJECT} took over {BUILD_TIMEOUT} s")
        output = r.stdout + r.stderr
        if r.returncode != 0:
            if unreachable and _RESOLUTION.search(output):
                pytest.skip(
                    f"Maven Central is unreachable ({unreachable}) and ~/.m2 lacks what drivers/java needs "
                    f"(neo4j-java-driver and the build plugins); Maven said:\n{_maven_errors(output)}"
                )
            pytest.fail(f"`{' '.join(command)}` in {PROJECT} failed ({r.returncode}):\n{output[-6000:]}")
        assert JAR.is_file() and CLASSPATH.is_file(), f"the build left no {JAR.name} / {CLASSPATH.name}:\n{output}"
        STAMP.write_text(f"built in {time.monotonic() - start:.1f} s by {' '.join(command)}\n")
    classpath = os.pathsep.join([str(JAR), CLASSPATH.read_text().strip()])
    return ["java", "-cp", classpath, MAIN]


@pytest.fixture(scope="module")
def seen(driver_check, tmp_path_factory):
    """DriverCheck's JSON report from one run against a fresh server."""
    tmp = tmp_path_factory.mktemp("serve-java")
    server = Server(tmp / "store", tmp)
    try:
        try:
            r = subprocess.run(
                [*driver_check, server.uri], capture_output=True, text=True, timeout=RUN_TIMEOUT, check=False
            )
        except subprocess.TimeoutExpired as e:
            pytest.fail(f"DriverCheck ran over {RUN_TIMEOUT} s; stderr:\n{e.stderr}\nserver log:\n{server.output()}")
    finally:
        code = server.stop()
    assert r.returncode == 0, f"DriverCheck failed ({r.returncode}):\n{r.stderr}\nserver log:\n{server.output()}"
    assert code == 0, server.output()
    lines = r.stdout.strip().splitlines()
    assert len(lines) == 1, f"expected one JSON line, got:\n{r.stdout}\nstderr:\n{r.stderr}"
    return json.loads(lines[0])


def test_connects_with_the_5x_driver(seen):
    pinned = re.search(r"<neo4j-java-driver.version>(.*)</", (PROJECT / "pom.xml").read_text()).group(1)
    assert seen["driver"] == pinned and pinned.startswith("5."), (seen["driver"], pinned)
    assert seen["verified"] is True
    auto = seen["autoCommit"]
    assert auto["agent"].startswith("Neo4j/") and "HopDB" in auto["agent"], auto["agent"]
    assert auto["protocol"].startswith("5."), auto["protocol"]


def test_auto_commit_with_parameters(seen):
    auto = seen["autoCommit"]
    assert (auto["nodesCreated"], auto["labelsAdded"], auto["propertiesSet"]) == (1, 1, 2), auto
    assert auto["containsUpdates"] is True
    assert auto["queryType"] == "WRITE_ONLY" and auto["database"] == "neo4j", auto
    assert (auto["keys"], auto["n"], auto["name"]) == (["n", "name"], 1, "one"), auto
    assert auto["rows"] == 2500 and auto["rowsInOrder"] is True, "more rows than one PULL batch (1000)"


def test_managed_transactions(seen):
    managed = seen["managed"]
    assert managed["written"] == "Ada" and managed["readCount"] == 1, managed
    assert managed["writeInReadRefused"] == "Neo.ClientError.Statement.AccessMode", managed
    assert managed["readOnlyCount"] == 0
    assert managed["eagerKeys"] == ["name"] and managed["eagerNames"] == ["Ada"], managed
    assert managed["eagerQueryType"] == "READ_ONLY"


def test_explicit_transactions_roll_back(seen):
    explicit = seen["explicit"]
    assert explicit["seenInside"] == 1, "a transaction sees its own writes"
    assert explicit["afterRollback"] == 0, "rollback() leaves nothing"
    assert explicit["afterClose"] == 0, "closing an uncommitted transaction rolls it back"
    assert explicit["afterCommit"] == 1


# Each parameter: the driver's type name for what came back, and the value as DriverCheck
# describes it (temporal values as Java's toString(), bytes as unsigned ints).
VALUES = {
    "null": ("NULL", None),
    "true": ("BOOLEAN", True),
    "false": ("BOOLEAN", False),
    "long": ("INTEGER", 42),
    "negative": ("INTEGER", -1),
    "longMax": ("INTEGER", 2**63 - 1),
    "longMin": ("INTEGER", -(2**63)),
    "double": ("FLOAT", 3.141592653589793),
    "doubleNegative": ("FLOAT", -2.5e-7),
    "string": ("STRING", 'héllo wörld — 日本語 🎉 "quoted"\n'),
    "emptyString": ("STRING", ""),
    "bytes": ("BYTES", [0, 1, 127, 128, 255]),
    "list": ("LIST OF ANY?", [1, "two", 3.5, True, None, [4, 5]]),
    "longList": ("LIST OF ANY?", [1, 2, 3]),
    "stringList": ("LIST OF ANY?", ["a", "ß"]),
    "map": ("MAP", {"a": 1, "b": "x", "nested": {"c": [1, 2]}, "none": None}),
    "date": ("DATE", "2024-02-29"),
    "offsetTime": ("TIME", "08:15:30.123456789+01:30"),
    "localTime": ("LOCAL_TIME", "23:59:59.999999999"),
    "localDateTime": ("LOCAL_DATE_TIME", "2024-06-01T12:00:00.000000001"),
    "offsetDateTime": ("DATE_TIME", "2024-06-01T12:00-05:00"),
    "zonedDateTime": ("DATE_TIME", "2024-01-15T08:00:00.123456789+01:00[Europe/Paris]"),
    "zonedDateTimeSummer": ("DATE_TIME", "2024-06-01T12:30:15.250+02:00[Europe/Stockholm]"),
    "duration": ("DURATION", {"months": 14, "days": -3, "seconds": 5, "nanoseconds": 500}),
}
# Types a property cannot hold (in Neo4j): DriverCheck only echoes these.
NOT_STORED = {"null", "list", "map"}
JAVA_TYPES = {
    "date": "LocalDate",
    "offsetTime": "OffsetTime",
    "localTime": "LocalTime",
    "localDateTime": "LocalDateTime",
    # The driver hydrates every DateTime as a ZonedDateTime (a ZoneOffset zone for a fixed offset;
    # DriverCheck compares through asOffsetDateTime()).
    "offsetDateTime": "ZonedDateTime",
    "zonedDateTime": "ZonedDateTime",
    "zonedDateTimeSummer": "ZonedDateTime",
    "bytes": "byte[]",
}


def test_every_value_type_round_trips_as_a_parameter(seen):
    values = seen["values"]
    assert sorted(values) == sorted(VALUES)
    failures = []
    for name, (type_name, expected) in VALUES.items():
        v = values[name]
        problems = []
        if "error" in v:
            problems.append(f"error: {v['error']}")
        else:
            if v["sent"] != expected:
                problems.append(f"DriverCheck sent {v['sent']!r}, the test expects {expected!r}")
            if v["type"] != type_name:
                problems.append(f"type {v['type']}, expected {type_name}")
            if v["received"] != expected or type(v["received"]) is not type(expected):
                problems.append(f"received {v['received']!r}")
            if v["equal"] is not True:
                problems.append("the hydrated value does not equals() the one sent")
            if name in JAVA_TYPES and v["javaType"] != JAVA_TYPES[name]:
                problems.append(f"came back as {v['javaType']}, expected {JAVA_TYPES[name]}")
            if name != "bytes" and v["server"] is not True:
                problems.append(f"the server's own check of $v gave {v['server']!r}")
        if name not in NOT_STORED:
            if "storedError" in v:
                problems.append(f"storing it as a property: {v['storedError']}")
            elif v.get("storedEqual") is not True:
                problems.append(f"stored as a property and read back: {v.get('stored')!r}")
        if problems:
            failures.append(f"{name}: " + "; ".join(problems))
    assert not failures, "\n".join(failures)


def test_values_built_by_the_server(seen):
    built = seen["built"]
    expected = {
        "date": ("DATE", "LocalDate", "2024-02-29"),
        "time": ("TIME", "OffsetTime", "08:15:30.500+01:30"),
        "localtime": ("LOCAL_TIME", "LocalTime", "07:00"),
        "localdatetime": ("LOCAL_DATE_TIME", "LocalDateTime", "2024-06-01T12:00:00.000000001"),
        "offset": ("DATE_TIME", "ZonedDateTime", "2024-06-01T12:00-05:00"),  # a ZoneOffset, no [zone]
        "zoned": ("DATE_TIME", "ZonedDateTime", "2024-06-01T12:30:15.250+02:00[Europe/Stockholm]"),
        "paris": ("DATE_TIME", "ZonedDateTime", "2024-01-15T08:00+01:00[Europe/Paris]"),
        "duration": ("DURATION", None, {"months": 1, "days": 2, "seconds": 3, "nanoseconds": 500_000_000}),
        "list": ("LIST OF ANY?", None, [1, "a", None, 2.5]),
        "map": ("MAP", None, {"k": [True]}),
    }
    for name, (type_name, java_type, value) in expected.items():
        got = built[name]
        assert (got["type"], got["value"]) == (type_name, value), (name, got)
        if java_type:
            assert got["javaType"] == java_type, (name, got)
    assert built["zonedEchoed"] is True, "a named-zone datetime from the server, sent back as a parameter"


def test_nodes_relationships_and_paths(seen):
    g = seen["graph"]
    assert g["types"] == ["NODE", "RELATIONSHIP", "PATH"]
    assert g["a"]["labels"] == ["Person"] and g["a"]["properties"] == {"name": "Ada", "born": 1815}, g["a"]
    assert g["b"]["labels"] == ["Author", "Person"] and g["b"]["properties"] == {"name": "Charles"}, g["b"]
    assert g["c"]["labels"] == ["Person"] and g["c"]["properties"] == {"name": "Mary"}, g["c"]
    assert g["aElementIdMatches"] and g["bElementIdMatches"] and g["distinctElementIds"], g
    assert g["r"]["type"] == "KNOWS" and g["r"]["properties"] == {"since": 1833}, g["r"]
    assert g["rElementIdMatches"] and g["rStartIsA"] and g["rEndIsB"], g
    assert (g["r"]["start"], g["r"]["end"]) == ("Ada", "Charles"), g["r"]
    assert g["m"]["type"] == "ADMIRES" and g["m"]["properties"] == {"how": "much"}, g["m"]
    assert (g["m"]["start"], g["m"]["end"]) == ("Mary", "Charles"), g["m"]
    path = g["path"]
    assert path["length"] == 2 and path["nodes"] == ["Ada", "Charles", "Mary"], path
    assert (path["start"], path["end"]) == ("Ada", "Mary") and path["nodesMatch"], path
    first, second = path["segments"]
    assert (first["start"], first["end"]) == ("Ada", "Charles"), first
    assert first["relationship"] == g["r"], first
    # Traversed against its direction: the segment runs Charles -> Mary, the relationship Mary -> Charles.
    assert (second["start"], second["end"]) == ("Charles", "Mary"), second
    assert second["relationship"] == g["m"], second


def test_errors_are_client_exceptions_with_neo4j_codes(seen):
    errors = seen["errors"]
    for key in ("syntax", "inTransaction"):
        e = errors[key]
        assert e["exception"] == "org.neo4j.driver.exceptions.ClientException", (key, e)
        assert e["code"] == "Neo.ClientError.Statement.SyntaxError", (key, e)
    assert errors["usableAfter"] == 1 and errors["usableAfterTransaction"] == 2, "the session is usable after a failure"
    unknown = errors["unknownDatabase"]
    assert unknown["exception"] is not None, "a session on a database that does not exist must fail"
    assert unknown["code"] == "Neo.ClientError.Database.DatabaseNotFound", unknown


def test_the_routing_scheme(seen):
    routing = seen["routing"]
    assert routing["uri"].startswith("neo4j://127.0.0.1:"), routing
    assert (routing["written"], routing["readCount"], routing["eagerReadCount"]) == (1, 1, 1), routing


def test_verify_connectivity_over_the_routing_scheme(seen):
    """With ``neo4j://`` the Java driver's ``verifyConnectivity()`` asks for the routing table of
    the ``system`` database (the Python driver asks for the default one)."""
    routing = seen["routing"]
    assert routing["verified"] is True, routing.get("verifyError")
