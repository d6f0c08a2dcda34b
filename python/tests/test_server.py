"""``hopdb serve`` against the official Neo4j Python driver: connectivity, auto-commit and
managed transactions, explicit rollback, graph and temporal values, errors, the ``neo4j://``
routing scheme, a clean stop on SIGTERM, users from ``hopdb user add`` (wrong passwords raise
``AuthError``), and TLS with a self-signed certificate (``bolt+ssc://``).

The server is the ``hopdb`` binary, started as a subprocess on a temporary store; the tests
skip, saying so, when it has not been built (``cargo build --release -p hopdb-cli``)."""

import asyncio
import contextlib
import datetime
import ipaddress
import os
import pathlib
import signal
import socket
import subprocess
import time
import zoneinfo

import neo4j
import pytest
from neo4j import GraphDatabase
from neo4j.exceptions import AuthError, ClientError, CypherSyntaxError, ServiceUnavailable
from neo4j.graph import Node, Path, Relationship

AUTH = ("neo4j", "any password: authentication is disabled")


def _binary():
    target = os.environ.get("CARGO_TARGET_DIR") or os.path.expanduser("~/.cache/hopdb/target")
    path = pathlib.Path(target) / "release" / "hopdb"
    return path if path.is_file() and os.access(path, os.X_OK) else None


BINARY = _binary()

pytestmark = pytest.mark.skipif(
    BINARY is None,
    reason="the hopdb binary is not built: run `cargo build --release -p hopdb-cli` "
    "(looked for $CARGO_TARGET_DIR/release/hopdb)",
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """``hopdb serve STORE --create`` on a free loopback port, its stderr in a file."""

    def __init__(self, store: pathlib.Path, logs: pathlib.Path, extra_args=()):
        self.port = _free_port()
        self.log_path = logs / f"serve-{self.port}.log"
        self.log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(
            [str(BINARY), "serve", str(store), "--create", "--bolt", f"127.0.0.1:{self.port}", *extra_args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self.log,
        )
        self._wait_listening()

    @property
    def uri(self) -> str:
        return f"bolt://127.0.0.1:{self.port}"

    def output(self) -> str:
        if not self.log.closed:
            self.log.flush()
        return self.log_path.read_text(errors="replace")

    def _wait_listening(self):
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"hopdb serve exited with {self.proc.returncode}:\n{self.output()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.05)
        self.proc.kill()
        raise AssertionError(f"hopdb serve did not listen within 30 s:\n{self.output()}")

    def stop(self, sig=signal.SIGTERM) -> int:
        """Sends `sig` and waits for the exit status (killing after 30 s)."""
        try:
            if self.proc.poll() is None:
                self.proc.send_signal(sig)
                try:
                    self.proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
                    raise AssertionError(f"hopdb serve ignored {sig!r} for 30 s:\n{self.output()}") from None
            return self.proc.returncode
        finally:
            self.log.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("serve")
    s = Server(tmp / "store", tmp)
    yield s
    code = s.stop()
    assert code == 0, s.output()


@pytest.fixture(scope="module")
def driver(server):
    with GraphDatabase.driver(server.uri, auth=AUTH) as d:
        yield d


def count(session, label: str) -> int:
    return session.run(f"MATCH (n:{label}) RETURN count(n) AS c").single()["c"]


def test_connects_and_reports_a_neo4j_compatible_agent(driver):
    driver.verify_connectivity()
    info = driver.get_server_info()
    assert info.agent.startswith("Neo4j/") and "HopDB" in info.agent, info.agent


def test_auto_commit_statements(driver):
    with driver.session() as s:
        summary = s.run("CREATE (:Auto {n: $n, name: $name})", n=1, name="one").consume()
        assert summary.counters.nodes_created == 1
        assert summary.counters.labels_added == 1
        assert summary.counters.properties_set == 2
        assert summary.counters.contains_updates
        assert summary.query_type == "w"
        assert summary.database == "neo4j"
        record = s.run("MATCH (a:Auto) RETURN a.n AS n, a.name AS name").single()
        assert (record["n"], record["name"]) == (1, "one")
        values = s.run("UNWIND range(1, 2500) AS x RETURN x").value()
        assert values == list(range(1, 2501)), "more rows than one PULL batch (1000)"


def test_managed_transactions(driver):
    def create(tx, name):
        return tx.run("CREATE (p:Managed {name: $name}) RETURN p.name AS name", name=name).single()["name"]

    with driver.session() as s:
        assert s.execute_write(create, "Ada") == "Ada"
        assert s.execute_read(lambda tx: count(tx, "Managed")) == 1
    records, summary, keys = driver.execute_query("MATCH (p:Managed) RETURN p.name AS name")
    assert keys == ["name"] and [r["name"] for r in records] == ["Ada"]
    assert summary.query_type == "r"


def test_a_write_in_a_read_transaction_is_refused(driver):
    with driver.session() as s:
        with pytest.raises(ClientError) as e:
            s.execute_read(lambda tx: tx.run("CREATE (:ReadOnly)").consume())
        assert e.value.code == "Neo.ClientError.Statement.AccessMode"
        assert count(s, "ReadOnly") == 0


def test_explicit_transactions_roll_back_and_commit(driver):
    with driver.session() as s:
        tx = s.begin_transaction()
        tx.run("CREATE (:Rolled {n: 1})").consume()
        assert count(tx, "Rolled") == 1, "a transaction sees its own writes"
        tx.rollback()
        assert count(s, "Rolled") == 0
        with s.begin_transaction() as tx:
            tx.run("CREATE (:Kept)")
            tx.commit()
        assert count(s, "Kept") == 1


def test_nodes_relationships_and_paths(driver):
    with driver.session() as s:
        s.run("CREATE (:Person {name: 'Ada'})-[:KNOWS {since: 1833}]->(:Person:Author {name: 'Charles'})").consume()
        record = s.run("MATCH p = (a:Person {name: 'Ada'})-[r:KNOWS]->(b) RETURN a, r, b, p, elementId(a) AS ida").single()
    a, r, b, p = record["a"], record["r"], record["b"], record["p"]
    assert isinstance(a, Node) and isinstance(b, Node)
    assert a.labels == {"Person"} and b.labels == {"Person", "Author"}
    assert dict(a) == {"name": "Ada"} and b["name"] == "Charles"
    assert a.element_id == record["ida"]
    assert isinstance(r, Relationship)
    assert r.type == "KNOWS" and r["since"] == 1833
    assert r.start_node.element_id == a.element_id and r.end_node.element_id == b.element_id
    assert isinstance(p, Path) and len(p) == 1
    assert [n["name"] for n in p.nodes] == ["Ada", "Charles"]
    assert p.start_node.element_id == a.element_id and p.end_node.element_id == b.element_id
    assert p.relationships[0].type == "KNOWS" and p.relationships[0]["since"] == 1833


def _zone_name(tz):
    return getattr(tz, "zone", None) or getattr(tz, "key", None)


def test_temporal_values_round_trip(driver):
    d = datetime.date(2024, 2, 29)
    fixed = datetime.datetime(2024, 6, 1, 12, 0, tzinfo=datetime.timezone(datetime.timedelta(hours=-5)))
    local = datetime.datetime(2024, 6, 1, 12, 0)
    t = datetime.time(8, 15, 30)
    dur = datetime.timedelta(days=2, seconds=3, microseconds=500)
    with driver.session() as s:
        # A named zone, built by the server: the driver hydrates it with its own (pytz) zone,
        # and sends that back as a parameter. (neo4j 6.4 cannot be trusted to send a datetime
        # carrying a zoneinfo.ZoneInfo: it hands its own DateTime type to zoneinfo's C code,
        # which then computes wrong offsets, raises, or crashes the interpreter, all before
        # anything reaches the server.)
        zoned = s.run("RETURN datetime('2024-06-01T12:30:15.25[Europe/Stockholm]') AS z").single()["z"]
        record = s.run(
            "RETURN $d AS d, $zoned AS zoned, $fixed AS fixed, $local AS local, $t AS t, $dur AS dur, "
            "$d = date('2024-02-29') AS d_same, "
            "$zoned = datetime('2024-06-01T12:30:15.25[Europe/Stockholm]') AS zoned_same, "
            "$zoned.timezone AS zone, $fixed = datetime('2024-06-01T12:00-05:00') AS fixed_same, "
            "datetime('2024-01-15T08:00:00[Europe/Paris]') AS paris, duration('P1M2DT3.5S') AS built",
            d=d,
            zoned=zoned,
            fixed=fixed,
            local=local,
            t=t,
            dur=dur,
        ).single()
        s.run("CREATE (:When {at: $zoned, on: $d})", zoned=zoned, d=d).consume()
        stored = s.run("MATCH (w:When) RETURN w.at AS at, w.on AS on").single()
    stockholm = zoneinfo.ZoneInfo("Europe/Stockholm")
    assert zoned.to_native() == datetime.datetime(2024, 6, 1, 12, 30, 15, 250000, tzinfo=stockholm)
    assert _zone_name(zoned.tzinfo) == "Europe/Stockholm"
    assert zoned.utcoffset() == datetime.timedelta(hours=2)
    assert record["d"].to_native() == d
    assert record["zoned"] == zoned and _zone_name(record["zoned"].tzinfo) == "Europe/Stockholm"
    assert record["fixed"].to_native() == fixed
    assert record["fixed"].utcoffset() == datetime.timedelta(hours=-5)
    assert record["local"].to_native() == local and record["local"].tzinfo is None
    assert record["t"].to_native() == t
    assert record["dur"] == neo4j.time.Duration(days=2, seconds=3, microseconds=500)
    assert record["d_same"] and record["zoned_same"] and record["fixed_same"]
    assert record["zone"] == "Europe/Stockholm"
    paris = record["paris"]
    assert (paris.hour, paris.minute) == (8, 0) and paris.utcoffset() == datetime.timedelta(hours=1)
    assert _zone_name(paris.tzinfo) == "Europe/Paris"
    assert record["built"] == neo4j.time.Duration(months=1, days=2, seconds=3, nanoseconds=500_000_000)
    assert stored["at"] == zoned and stored["on"].to_native() == d


def test_errors_come_back_as_driver_exceptions(driver):
    with driver.session() as s:
        with pytest.raises(CypherSyntaxError) as e:
            s.run("MATCH (n RETURN n").consume()
        assert e.value.code == "Neo.ClientError.Statement.SyntaxError"
        assert s.run("RETURN 1 AS x").single()["x"] == 1, "the session is usable after a failure"
    with driver.session(database="nope") as s:
        with pytest.raises(ClientError) as e:
            s.run("RETURN 1").consume()
        assert e.value.code == "Neo.ClientError.Database.DatabaseNotFound"


def test_the_routing_scheme(server):
    with GraphDatabase.driver(f"neo4j://127.0.0.1:{server.port}", auth=AUTH) as d:
        d.verify_connectivity()
        with d.session() as s:
            assert s.execute_write(lambda tx: tx.run("CREATE (r:Routed) RETURN count(r) AS c").single()["c"]) == 1
            assert s.execute_read(lambda tx: count(tx, "Routed")) == 1
        records, _, _ = d.execute_query("MATCH (r:Routed) RETURN count(r) AS c", routing_="r")
        assert records[0]["c"] == 1


def test_sigterm_rolls_back_and_closes_the_store(tmp_path):
    store = tmp_path / "store"
    first = Server(store, tmp_path)
    try:
        with GraphDatabase.driver(first.uri, auth=AUTH) as d:
            with d.session() as s:
                s.run("CREATE (:Committed)").consume()
            session = d.session()
            tx = session.begin_transaction()
            tx.run("CREATE (:Uncommitted)").consume()
            code = first.stop()
            with contextlib.suppress(Exception):
                session.close()
    finally:
        first.stop()
    assert code == 0, first.output()
    log = first.output()
    assert "SIGTERM" in log and "store closed" in log, log

    second = Server(store, tmp_path)
    try:
        with GraphDatabase.driver(second.uri, auth=AUTH) as d, d.session() as s:
            assert count(s, "Committed") == 1
            assert count(s, "Uncommitted") == 0
    finally:
        assert second.stop() == 0, second.output()


def test_without_users_the_server_says_authentication_is_off(server, driver):
    driver.verify_connectivity()
    log = server.output()
    assert "authentication off" in log and "authentication is disabled" in log, log


def _hopdb(*args, stdin=None):
    return subprocess.run(
        [str(BINARY), *map(str, args)], input=stdin, capture_output=True, text=True, timeout=120, check=False
    )


def _add_user(store, name, password):
    r = _hopdb("user", "add", store, name, "--password-stdin", stdin=password + "\n")
    assert r.returncode == 0, r.stderr


ADA = ("ada", "correct horse battery")


@pytest.fixture(scope="module")
def auth_server(tmp_path_factory):
    """A server whose store has one user, added with ``hopdb user add`` before the store existed."""
    tmp = tmp_path_factory.mktemp("serve-auth")
    store = tmp / "store"
    _add_user(store, *ADA)
    s = Server(store, tmp)
    s.store = store
    yield s
    code = s.stop()
    assert code == 0, s.output()


def test_the_right_password_logs_on(auth_server):
    with GraphDatabase.driver(auth_server.uri, auth=ADA) as d:
        d.verify_connectivity()
        records, _, _ = d.execute_query("CREATE (n:ByAda) RETURN count(n) AS c")
        assert records[0]["c"] == 1
    log = auth_server.output()
    assert "authentication on: 1 user" in log and "user logged on" in log, log


def test_a_wrong_password_raises_auth_error_and_others_are_served(auth_server):
    with GraphDatabase.driver(auth_server.uri, auth=ADA) as good:
        with good.session() as kept:
            assert kept.run("RETURN 1 AS x").single()["x"] == 1
            for auth in [("ada", "wrong horse"), ("nobody", ADA[1]), ("ADA", ADA[1]), neo4j.bearer_auth("t")]:
                with GraphDatabase.driver(auth_server.uri, auth=auth) as bad:
                    with pytest.raises(AuthError) as e:
                        bad.verify_connectivity()
                    assert e.value.code == "Neo.ClientError.Security.Unauthorized"
            # The session opened before the failures is still served, and new ones are too.
            assert kept.run("RETURN 2 AS x").single()["x"] == 2
        records, _, _ = good.execute_query("RETURN 3 AS x")
        assert records[0]["x"] == 3
    log = auth_server.output()
    assert "authentication failed" in log and "wrong password" in log and "no such user" in log, log
    assert "127.0.0.1" in log, "failed logins name the peer"
    assert "wrong horse" not in log and ADA[1] not in log, "passwords never reach the log"


def test_no_credentials_raise_auth_error(auth_server):
    with GraphDatabase.driver(auth_server.uri, auth=None) as d:
        with pytest.raises(AuthError):
            d.verify_connectivity()


def test_the_async_driver_too(auth_server):
    async def main():
        async with neo4j.AsyncGraphDatabase.driver(auth_server.uri, auth=("ada", "nope")) as bad:
            with pytest.raises(AuthError):
                await bad.verify_connectivity()
        async with neo4j.AsyncGraphDatabase.driver(auth_server.uri, auth=ADA) as good:
            records, _, _ = await good.execute_query("RETURN 'async' AS x")
            return records[0]["x"]

    assert asyncio.run(main()) == "async"


def test_a_user_added_while_serving_logs_on_at_once(auth_server):
    with GraphDatabase.driver(auth_server.uri, auth=("bob", "pw")) as d:
        with pytest.raises(AuthError):
            d.verify_connectivity()
    _add_user(auth_server.store, "bob", "pw")
    listed = _hopdb("user", "list", auth_server.store)
    assert listed.stdout.split() == ["ada", "bob"], listed
    with GraphDatabase.driver(auth_server.uri, auth=("bob", "pw")) as d:
        d.verify_connectivity()
    assert _hopdb("user", "remove", auth_server.store, "bob").returncode == 0
    with GraphDatabase.driver(auth_server.uri, auth=("bob", "pw")) as d:
        with pytest.raises(AuthError):
            d.verify_connectivity()


def _self_signed_certificate(directory: pathlib.Path):
    """A certificate for localhost and 127.0.0.1 and its key, as PEM files."""
    try:
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import NameOID
    except ImportError:
        pytest.skip(
            "the cryptography package is not installed in this environment, and this test needs it "
            "to make a self-signed certificate (crates/hopdb-server/tests/tls.rs covers TLS without it)"
        )
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    cert_path = directory / "cert.pem"
    key_path = directory / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return cert_path, key_path


def test_tls_with_a_self_signed_certificate(tmp_path):
    cert, key = _self_signed_certificate(tmp_path)
    store = tmp_path / "store"
    _add_user(store, *ADA)
    s = Server(store, tmp_path, ["--tls-cert", cert, "--tls-key", key])
    try:
        with GraphDatabase.driver(f"bolt+ssc://127.0.0.1:{s.port}", auth=ADA) as d:
            records, _, _ = d.execute_query("RETURN 'encrypted' AS x")
            assert records[0]["x"] == "encrypted"
            with pytest.raises(AuthError):
                with GraphDatabase.driver(f"bolt+ssc://127.0.0.1:{s.port}", auth=("ada", "wrong")) as bad:
                    bad.verify_connectivity()
        # Trusting exactly this certificate, host name checked.
        with GraphDatabase.driver(
            f"bolt://localhost:{s.port}",
            auth=ADA,
            encrypted=True,
            trusted_certificates=neo4j.TrustCustomCAs(str(cert)),
        ) as d:
            d.verify_connectivity()
        with GraphDatabase.driver(f"neo4j+ssc://127.0.0.1:{s.port}", auth=ADA) as d:
            assert d.execute_query("RETURN 1 AS x", routing_="r").records[0]["x"] == 1
        # Plain Bolt to a TLS-only server fails, and the log says why.
        with GraphDatabase.driver(f"bolt://127.0.0.1:{s.port}", auth=ADA, connection_acquisition_timeout=5) as d:
            with pytest.raises(ServiceUnavailable):
                d.verify_connectivity()
        log = s.output()
        assert "bolt+s://127.0.0.1" in log and "plain Bolt" in log, log
    finally:
        assert s.stop() == 0, s.output()


def test_http_health_metrics_and_the_query_api(tmp_path):
    """``--http``: /health, /metrics (Prometheus text) and Neo4j's query API, with urllib."""
    import json
    import urllib.error
    import urllib.request

    http_port = _free_port()
    s = Server(tmp_path / "store", tmp_path, extra_args=["--http", f"127.0.0.1:{http_port}"])
    base = f"http://127.0.0.1:{http_port}"

    def call(path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(base + path, data=data, headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.status, r.headers.get("Content-Type", ""), r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.headers.get("Content-Type", ""), e.read().decode()

    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                status, _, body = call("/health")
                break
            except urllib.error.URLError:
                assert time.monotonic() < deadline, s.output()
                time.sleep(0.05)
        assert status == 200 and json.loads(body)["status"] == "ok", body
        assert f"http://127.0.0.1:{http_port}" in s.output()

        status, _, body = call(
            "/db/neo4j/query/v2",
            {"statement": "CREATE (p:Web {name: $name}) RETURN p", "parameters": {"name": "curl"}, "includeCounters": True},
        )
        assert status == 202, body
        answer = json.loads(body)
        node = answer["data"]["values"][0][0]
        assert answer["data"]["fields"] == ["p"]
        assert node["labels"] == ["Web"] and node["properties"] == {"name": "curl"}, node
        assert answer["counters"]["nodesCreated"] == 1 and answer["bookmarks"], answer

        with GraphDatabase.driver(s.uri, auth=AUTH) as d, d.session() as session:
            assert count(session, "Web") == 1
            status, _, body = call("/db/neo4j/query/v2", {"statement": "RETURN 1 +"})
            assert status == 400 and json.loads(body)["errors"][0]["code"] == "Neo.ClientError.Statement.SyntaxError"
            status, _, body = call("/db/system/query/v2", {"statement": "RETURN 1"})
            assert status == 404 and json.loads(body)["errors"][0]["code"] == "Neo.ClientError.Database.DatabaseNotFound"

            status, content_type, metrics = call("/metrics")
            assert status == 200 and content_type.startswith("text/plain"), content_type
            assert "hopdb_bolt_connections 1" in metrics, metrics
            for series in [
                'hopdb_query_duration_seconds_count{kind="write",protocol="http"} 1',
                'hopdb_query_duration_seconds_count{kind="read",protocol="bolt"} 1',
                'hopdb_query_errors_total{class="ClientError",code="Neo.ClientError.Database.DatabaseNotFound",protocol="http"} 1',
                "hopdb_plan_cache_misses_total",
                "hopdb_rocksdb_memtable_bytes",
                "hopdb_rocksdb_block_cache_usage_bytes",
                "hopdb_rocksdb_compactions_running",
                "hopdb_rocksdb_compaction_pending_bytes",
                "hopdb_rocksdb_immutable_memtables",
                "hopdb_store_nodes 1",
            ]:
                assert series in metrics, f"{series} not in\n{metrics}"
    finally:
        assert s.stop() == 0, s.output()
    with pytest.raises(urllib.error.URLError):
        call("/health")
