"""``hopdb serve --cluster``: two query nodes over one cluster answer the official Neo4j Python
driver as ``hopdb serve STORE`` answers for the store the cluster was loaded from.

Everything runs on loopback: a private PostgreSQL for the metadata (initdb and pg_ctl from
Debian's PostgreSQL 15; as root the server runs as the ``postgres`` user), the cold tier in a
temporary directory, a generated knowledge graph imported into a store, ``hopdb cluster
init`` and ``load``, then one ``hopdb serve STORE`` and two ``hopdb serve --cluster`` processes.
The tests skip, saying why, when the binary is not built or PostgreSQL is not installed."""

import pathlib
import socket
import subprocess
import sys
import time

import pytest
from neo4j import GraphDatabase
from neo4j.exceptions import ClientError
from neo4j.graph import Node, Path, Relationship

# The private PostgreSQL helper lives with the cluster's benches, at the repository's root.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))
import neo4j_reference  # noqa: E402

from bench.cluster import pg  # noqa: E402
from bench.cluster.pg import PrivatePostgres  # noqa: E402

AUTH = ("neo4j", "any password: authentication is disabled")


BINARY = neo4j_reference.hopdb_binary()
PG_BIN = pg.bindir()
pytestmark = [
    pytest.mark.skipif(
        BINARY is None, reason="the hopdb binary is not built: run `cargo build --release -p hopdb-cli`"
    ),
    pytest.mark.skipif(
        PG_BIN is None, reason="no PostgreSQL server binaries (apt-get install postgresql, or set PG_BIN)"
    ),
]


def _run(*args):
    r = subprocess.run([str(BINARY), *map(str, args)], capture_output=True, text=True)
    assert r.returncode == 0, f"hopdb {' '.join(map(str, args))}: {r.stderr}"
    return r.stdout


class Served:
    """``hopdb serve ARGS`` on a free loopback port, without HTTP."""

    def __init__(self, logs: pathlib.Path, *args):
        self.port = pg.free_port()
        self.log = open(logs / f"serve-{self.port}.log", "wb")
        self.proc = subprocess.Popen(
            [str(BINARY), "serve", *map(str, args), "--bolt", f"127.0.0.1:{self.port}", "--no-http"],
            stdin=subprocess.DEVNULL,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.time() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                assert self.proc.poll() is None, (logs / f"serve-{self.port}.log").read_text()
                assert time.time() < deadline, "the server did not start listening"
                time.sleep(0.1)
        self.driver = GraphDatabase.driver(f"bolt://127.0.0.1:{self.port}", auth=AUTH)

    def stop(self):
        self.driver.close()
        self.proc.terminate()
        self.proc.wait(timeout=60)
        self.log.close()


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("serve_cluster")
    pg = PrivatePostgres()
    started = []
    try:
        kg, store = tmp / "kg", tmp / "store"
        _run("generate", "--out", kg, "--scale", "0.02")
        _run(
            "import", store,
            "--nodes", kg / "documents.csv", "--nodes", kg / "chunks.csv", "--nodes", kg / "entities.csv",
            "--relationships", kg / "has_chunk.csv", "--relationships", kg / "mentions.csv",
        )  # fmt: skip
        config = tmp / "cluster.toml"
        config.write_text(
            f'partitions = 64\n[cold]\nurl = "file://{tmp / "cold"}"\n[metadata]\npostgres = "{pg.conn()}"\n'
        )
        _run("cluster", "init", "--config", config)
        _run("cluster", "load", "--config", config, store)
        started.append(Served(tmp, store))
        started.append(Served(tmp, "--cluster", config))
        started.append(Served(tmp, "--cluster", config))
        yield started
    finally:
        for s in started:
            s.stop()
        pg.stop()


def canon(v):
    """A driver value as comparable data: nodes by labels and properties, relationships by type
    and properties (element ids differ between a store and a cluster)."""
    if isinstance(v, Node):
        return ("node", tuple(sorted(v.labels)), tuple(sorted((k, canon(x)) for k, x in v.items())))
    if isinstance(v, Relationship):
        return ("rel", v.type, tuple(sorted((k, canon(x)) for k, x in v.items())))
    if isinstance(v, Path):
        return ("path", tuple(canon(n) for n in v.nodes), tuple(canon(r) for r in v.relationships))
    if isinstance(v, list):
        return tuple(canon(x) for x in v)
    if isinstance(v, dict):
        return tuple(sorted((k, canon(x)) for k, x in v.items()))
    return v


def answer(server, query, **params):
    with server.driver.session() as s:
        rows = [tuple(canon(x) for x in r.values()) for r in s.run(query, **params)]
    return rows if "ORDER BY" in query else sorted(rows, key=repr)


QUERIES = [
    "MATCH (n {_key: $k}) RETURN n, n._key",
    "MATCH (n {_key: $k})-[r]->(m) RETURN r, m._key",
    "MATCH (n {_key: $k})<-[r]-(m) RETURN type(r), m",
    "MATCH (n {_key: $k})--()--(o) RETURN DISTINCT o._key",
    "MATCH p = (n {_key: $k})-[*1..2]->(o) RETURN p",
    "MATCH (n {_key: $k})<-[:MENTIONS]-(c:Chunk)<-[:HAS_CHUNK]-(d:Document) "
    "RETURN d.title, count(c) AS chunks ORDER BY chunks DESC, d.title",
]


def test_two_query_nodes_answer_as_the_store(servers):
    store, one, two = servers
    with store.driver.session() as s:
        seeds = [r[0] for r in s.run("MATCH (n) WHERE n:Document OR n:Entity RETURN n._key ORDER BY n._key LIMIT 6")]
        hub = s.run("MATCH (e:Entity)<-[:MENTIONS]-() RETURN e._key, count(*) AS n ORDER BY n DESC LIMIT 1").single()[0]
    assert len(seeds) == 6
    for q in QUERIES:
        for k in [*seeds, hub]:
            want = answer(store, q, k=k)
            assert answer(one, q, k=k) == want, (q, k)
            assert answer(two, q, k=k) == want, (q, k)
    for q in [
        "MATCH (n) RETURN labels(n) AS l, count(*) ORDER BY l",
        "MATCH ()-[r]->() RETURN type(r) AS t, count(*) ORDER BY t",
    ]:
        want = answer(store, q)
        assert answer(one, q) == want and answer(two, q) == want, q


def test_node_ids_are_the_same_on_every_query_node(servers):
    _, one, two = servers
    q = "MATCH (n {_key: 'doc-1'})-[:HAS_CHUNK]->(c) RETURN id(n), elementId(c) ORDER BY elementId(c)"
    first = [r.values() for r in one.driver.session().run(q)]
    assert first and first == [r.values() for r in two.driver.session().run(q)]


def test_managed_reads_work_and_schema_changes_are_refused(servers):
    _, one, _ = servers
    with one.driver.session() as s:
        n = s.execute_read(lambda tx: tx.run("MATCH (d:Document) RETURN count(d)").single()[0])
        assert n > 0
        with pytest.raises(ClientError, match="refuses schema changes"):
            s.run("CREATE INDEX FOR (n:Entity) ON (n.entity_type)").consume()
        with pytest.raises(ClientError, match="does not offer it"):
            s.run("CALL hopdb.algo.pagerank() YIELD node RETURN count(node)").consume()
        # The connection is still good after the refusals.
        assert s.run("RETURN 1").single()[0] == 1


def eventually(server, query, want, **params):
    """The answer of ``query`` on ``server`` once it is ``want`` (another query node reads a
    write within its refresh interval, 100 ms by default); fails after 5 s."""
    deadline = time.time() + 5
    while (got := answer(server, query, **params)) != want and time.time() < deadline:
        time.sleep(0.05)
    return got


WRITES = [
    "MERGE (e:Entity {_key: 'ent-new'}) SET e.canonical_title = 'New entity', e.entity_type = 'CONCEPT'",
    "MATCH (c {_key: 'doc-1'}), (e {_key: 'ent-new'}) MERGE (c)-[r:CITES]->(e) SET r.weight = 2",
    "MATCH (d:Document) WITH d ORDER BY d._key LIMIT 3 SET d.reviewed = true",
    "MATCH (e:Entity) WITH e ORDER BY e._key LIMIT 2 DETACH DELETE e",
]
READS = [
    "MATCH (e {_key: 'ent-new'}) RETURN e",
    "MATCH (a)-[r:CITES]->(b) RETURN a._key, r, b._key",
    "MATCH (d:Document) WHERE d.reviewed RETURN d._key ORDER BY d._key",
    "MATCH (n) RETURN labels(n) AS l, count(*) ORDER BY l",
    "MATCH ()-[r]->() RETURN type(r) AS t, count(*) ORDER BY t",
]


def test_writes_through_one_query_node_are_read_through_the_other(servers):
    """Managed write transactions on one query node leave the cluster as the same statements
    leave the store, and the other query node reads them."""
    store, one, two = servers
    for q in WRITES:
        for server in (store, one):
            with server.driver.session() as s:
                s.execute_write(lambda tx, q=q: tx.run(q).consume())
    for q in READS:
        want = answer(store, q)
        assert answer(one, q) == want, q
        assert eventually(two, q, want) == want, q


def test_concurrent_writes_on_two_query_nodes_lose_nothing(servers):
    """Two query nodes increment one property at once in managed transactions: a transaction
    that read what the other then changed fails with a transient error at commit, the driver
    runs it again, and every increment counts."""
    import threading

    _, one, two = servers
    with one.driver.session() as s:
        s.run("MERGE (c:Counter {_key: 'counter'}) SET c.v = 0").consume()
    per_node, errors = 25, []

    def bump(server):
        try:
            with server.driver.session() as s:
                for _ in range(per_node):
                    s.execute_write(lambda tx: tx.run("MATCH (c {_key: 'counter'}) SET c.v = c.v + 1").consume())
        except Exception as e:  # noqa: BLE001 - reported by the assertion below
            errors.append(e)

    threads = [threading.Thread(target=bump, args=(srv,)) for srv in (one, two)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    # Reads see another query node's writes within the refresh interval.
    q, want = "MATCH (c {_key: 'counter'}) RETURN c.v", [(2 * per_node,)]
    assert eventually(one, q, want) == want
    assert eventually(two, q, want) == want
