//! `hopdb cluster init | load | status | compact | promote | evict`, run as the built binary against private
//! PostgreSQL and Redis Cluster servers the test starts: a generated knowledge graph is
//! imported, loaded into the cluster, and the cluster's counts must be the store's; partitions
//! are promoted, evicted, and a killed promotion leaves no partition recorded hot that is not
//! whole in Redis; configuration mistakes exit 2 saying what is wrong.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Command;

use hopdb_testdata::postgres::PrivateServer;

fn hopdb(args: &[&str]) -> (bool, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_hopdb")).args(args).output().unwrap();
    (
        o.status.success(),
        String::from_utf8(o.stdout).unwrap(),
        String::from_utf8(o.stderr).unwrap(),
    )
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Generates a knowledge graph at `scale` under `tmp`, imports it into `store`, and returns
/// `hopdb stats --json` of the store.
fn generated_store(tmp: &Path, store: &Path, scale: &str) -> serde_json::Value {
    let kg = tmp.join("kg");
    assert!(hopdb(&["generate", "--out", s(&kg), "--scale", scale]).0);
    let file = |n: &str| kg.join(n).to_str().unwrap().to_string();
    let (ok, _, err) = hopdb(&[
        "import",
        s(store),
        "--nodes",
        &file("documents.csv"),
        "--nodes",
        &file("chunks.csv"),
        "--nodes",
        &file("entities.csv"),
        "--relationships",
        &file("has_chunk.csv"),
        "--relationships",
        &file("mentions.csv"),
    ]);
    assert!(ok, "{err}");
    serde_json::from_str(&hopdb(&["stats", s(store), "--json"]).1).unwrap()
}

/// A private PostgreSQL and a temporary directory holding a generated store (`store`), with
/// the store's `hopdb stats --json`; `None` (after saying why) when PostgreSQL is missing.
fn setup() -> Option<(PrivateServer, tempfile::TempDir, serde_json::Value)> {
    let pg = match PrivateServer::start() {
        Ok(pg) => pg,
        Err(why) => {
            eprintln!("SKIPPED: {why}");
            return None;
        }
    };
    let tmp = tempfile::tempdir().unwrap();
    let stats = generated_store(tmp.path(), &tmp.path().join("store"), "0.02");
    Some((pg, tmp, stats))
}

/// `dir/cluster.toml` for a cluster of `partitions` with its cold tier in `dir/cold` and its
/// metadata in a new database `db`; returns the file and the connection string.
fn config_file(pg: &PrivateServer, dir: &Path, db: &str, partitions: u32) -> (std::path::PathBuf, String) {
    let config = dir.join("cluster.toml");
    let conn = pg.create_database(db).unwrap();
    std::fs::write(
        &config,
        format!(
            "partitions = {partitions}\n[cold]\nurl = \"file://{}\"\n[metadata]\npostgres = \"{conn}\"\n",
            s(&dir.join("cold"))
        ),
    )
    .unwrap();
    (config, conn)
}

#[test]
fn init_load_status_against_the_store() {
    let Some((pg, tmp, stats)) = setup() else { return };
    let (store, cold) = (tmp.path().join("store"), tmp.path().join("cold"));
    let (config, conn) = config_file(&pg, tmp.path(), "cli", 32);
    let (ok, out, err) = hopdb(&["cluster", "init", "--config", s(&config)]);
    assert!(ok && out.contains("created the cluster: 32 partitions"), "{out}{err}");
    let (ok, out, _) = hopdb(&["cluster", "init", "--config", s(&config)]);
    assert!(ok && out.contains("already initialised"), "{out}");

    let (ok, out, err) = hopdb(&[
        "cluster",
        "load",
        "--config",
        s(&config),
        s(&store),
        "--json",
        "--workers",
        "2",
    ]);
    assert!(ok, "{err}");
    let load: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (&load["nodes"], &load["edges"], &load["partitions"]),
        (&stats["nodes"], &stats["edges"], &32.into())
    );
    assert!(load["bytes"].as_u64().unwrap() > 0);

    let (ok, out, err) = hopdb(&["cluster", "status", "--config", s(&config), "--json", "--partitions"]);
    assert!(ok, "{err}");
    let status: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (&status["nodes"], &status["edges"], &status["loaded"]),
        (&stats["nodes"], &stats["edges"], &32.into())
    );
    assert_eq!(status["generations"], serde_json::json!([load["generation"]]));
    let rows = status["partition_rows"].as_array().unwrap();
    assert_eq!(rows.len(), 32);
    // Every partition's files are where its row says.
    for r in rows {
        let prefix = cold.join(r["object_key"].as_str().unwrap());
        assert!(
            prefix.join("nodes.parquet").is_file() && prefix.join("edges.parquet").is_file(),
            "{r}"
        );
    }
    let (ok, out, _) = hopdb(&["cluster", "status", "--config", s(&config)]);
    assert!(
        ok && out.contains(&format!("nodes          {}", stats["nodes"])),
        "{out}"
    );

    // A snapshot and its restore: the same counts, a new generation.
    let snap = format!("file://{}", s(&tmp.path().join("snap")));
    let (ok, out, err) = hopdb(&["cluster", "snapshot", "--config", s(&config), "--to", &snap, "--json"]);
    assert!(ok, "{err}");
    let taken: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!((&taken["nodes"], &taken["partitions"]), (&stats["nodes"], &32.into()));
    let (ok, out, err) = hopdb(&["cluster", "restore", "--config", s(&config), "--from", &snap]);
    assert!(ok && out.contains("GB/s per worker"), "{out}{err}");
    let after: serde_json::Value =
        serde_json::from_str(&hopdb(&["cluster", "status", "--config", s(&config), "--json"]).1).unwrap();
    assert_eq!((&after["nodes"], &after["edges"]), (&stats["nodes"], &stats["edges"]));
    assert_ne!(after["generations"], status["generations"]);

    // Writes wait in the delta: status counts them, `compact` folds them into new
    // generations, and the partitions' counts then include them.
    let cluster = hopdb_cluster::Cluster::open(hopdb_cluster::ClusterConfig::from_file(&config).unwrap()).unwrap();
    let w = cluster
        .write(&[hopdb_cluster::Mutation::edge(
            "a new node",
            "NEW_TYPE",
            "another new node",
            None,
            Default::default(),
        )])
        .unwrap();
    // Two node rows and the edge's two rows.
    assert_eq!(w.operations, 4);
    let pending: serde_json::Value =
        serde_json::from_str(&hopdb(&["cluster", "status", "--config", s(&config), "--json"]).1).unwrap();
    assert_eq!(pending["pending_writes"]["operations"], 4);
    let (ok, out, err) = hopdb(&["cluster", "compact", "--config", s(&config), "--json"]);
    assert!(ok, "{err}");
    let compacted: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (&compacted["partitions"], &compacted["operations"]),
        (&pending["pending_writes"]["partitions"], &4.into())
    );
    let after: serde_json::Value =
        serde_json::from_str(&hopdb(&["cluster", "status", "--config", s(&config), "--json"]).1).unwrap();
    assert_eq!(after["pending_writes"]["operations"], 0);
    assert_eq!(after["nodes"].as_u64(), stats["nodes"].as_u64().map(|n| n + 2));
    assert_eq!(after["edges"].as_u64(), stats["edges"].as_u64().map(|n| n + 1));

    // Mistakes: a bad cold URL, a missing file, an uninitialised database.
    std::fs::write(
        &config,
        format!("[cold]\nurl = \"{}\"\n[metadata]\npostgres = \"{conn}\"\n", s(&cold)),
    )
    .unwrap();
    let (ok, _, err) = hopdb(&["cluster", "status", "--config", s(&config)]);
    assert!(!ok && err.contains("cold.url") && err.contains("cluster.toml"), "{err}");
    let (ok, _, err) = hopdb(&["cluster", "init", "--config", "/nonexistent/cluster.toml"]);
    assert!(!ok && err.contains("cannot read /nonexistent/cluster.toml"), "{err}");
    let other = pg.create_database("empty").unwrap();
    std::fs::write(
        &config,
        format!(
            "[cold]\nurl = \"file://{}\"\n[metadata]\npostgres = \"{other}\"\n",
            s(&cold)
        ),
    )
    .unwrap();
    let (ok, _, err) = hopdb(&["cluster", "load", "--config", s(&config), s(&store)]);
    assert!(!ok && err.contains("not initialised"), "{err}");
}

/// Sums `redis-cli` integer answers over every instance of the cluster.
fn redis_sum(r: &hopdb_testdata::redis::PrivateRedisCluster, args: &[&str], instances: usize) -> u64 {
    (0..instances)
        .filter_map(|i| r.cli(i, args).ok())
        .filter_map(|o| o.trim().parse::<u64>().ok())
        .sum()
}

#[test]
fn promote_evict_and_a_killed_promotion_never_leaves_a_half_hot_partition() {
    let pg = match PrivateServer::start() {
        Ok(pg) => pg,
        Err(why) => return eprintln!("SKIPPED: {why}"),
    };
    let r = match hopdb_testdata::redis::PrivateRedisCluster::start(3, 0, 256) {
        Ok(r) => r,
        Err(why) => return eprintln!("SKIPPED: {why}"),
    };
    let tmp = tempfile::tempdir().unwrap();
    let (store, cold) = (tmp.path().join("store"), tmp.path().join("cold"));
    let stats = generated_store(tmp.path(), &store, "0.05");
    let nodes = stats["nodes"].as_u64().unwrap();
    let config = tmp.path().join("cluster.toml");
    let urls: Vec<String> = r.urls().iter().map(|u| format!("{u:?}")).collect();
    std::fs::write(
        &config,
        format!(
            "partitions = 128\n[cold]\nurl = \"file://{}\"\n[metadata]\npostgres = \"{}\"\n[hot]\nredis = [{}]\n",
            s(&cold),
            pg.create_database("hot").unwrap(),
            urls.join(", ")
        ),
    )
    .unwrap();
    let c = s(&config);
    assert!(hopdb(&["cluster", "init", "--config", c]).0);
    assert!(hopdb(&["cluster", "load", "--config", c, s(&store)]).0);
    let every: Vec<String> = (0..128).map(|p| p.to_string()).collect();
    let mut args = vec!["cluster", "promote", "--config", c, "--json"];
    for p in &every {
        args.extend(["--partition", p.as_str()]);
    }
    let started = std::time::Instant::now();
    let (ok, out, err) = hopdb(&args);
    let took = started.elapsed();
    eprintln!("promoting every partition took {took:?}");
    assert!(ok, "{err}");
    let promoted: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (&promoted["promoted_partitions"], promoted["nodes"].as_u64()),
        (&128.into(), Some(nodes))
    );
    let keys = promoted["keys"].as_u64().unwrap();
    assert!(keys > 0 && keys <= nodes, "{promoted}");
    assert_eq!(r.keys(), keys);
    let (ok, out, _) = hopdb(&["cluster", "status", "--config", c]);
    assert!(
        ok && out.contains(&format!("hot tier       128 partitions, {nodes} nodes in {keys} keys")),
        "{out}"
    );
    let (ok, out, err) = hopdb(&["cluster", "evict", "--config", c, "--all", "--json"]);
    assert!(ok, "{err}");
    let evicted: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(evicted["entries"].as_u64(), Some(keys));
    assert_eq!(r.keys(), 0);
    let (ok, _, err) = hopdb(&["cluster", "promote", "--config", c, "--partition", "128"]);
    assert!(!ok && err.contains("partitions 0 to 127"), "{err}");

    // Kill a promotion part way: every partition it recorded as hot has all its nodes in
    // Redis; the rest are not recorded as hot, whatever they hold.
    let mut child = Command::new(env!("CARGO_BIN_EXE_hopdb"))
        .args(&args)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Kill it as soon as its first values reach Redis (it writes 8 steps of 16 partitions).
    let deadline = std::time::Instant::now() + took * 20;
    while r.keys() == 0 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let status: serde_json::Value =
        serde_json::from_str(&hopdb(&["cluster", "status", "--config", c, "--json", "--partitions"]).1).unwrap();
    let rows = status["partition_rows"].as_array().unwrap();
    let slots: Vec<String> = (0..128)
        .map(|p| {
            r.cli(0, &["cluster", "keyslot", &format!("{{p{p}}}")])
                .unwrap()
                .trim()
                .to_string()
        })
        .collect();
    let mut hot = 0;
    for row in rows {
        let p = row["partition"].as_u64().unwrap() as usize;
        if !row["hot"].as_bool().unwrap() || slots.iter().filter(|s| **s == slots[p]).count() > 1 {
            continue;
        }
        hot += 1;
        let held = redis_sum(&r, &["cluster", "countkeysinslot", &slots[p]], 3);
        assert_eq!(Some(held), row["hot_keys"].as_u64(), "partition {p}: {row}");
        assert_eq!(row["hot_nodes"], row["nodes"], "partition {p}");
    }
    assert!(
        hot < 128,
        "the promotion was killed before it finished ({hot} partitions hot)"
    );
    eprintln!("{hot} of 128 partitions recorded hot when the promotion was killed");
}

/// A result value as comparable text: nodes by key, labels and properties, relationships by
/// their ends' keys, type and properties (internal ids differ between a store and a cluster,
/// whose ids are hashes of the keys).
fn canon(v: &hopdb_cypher::Value) -> String {
    use hopdb_cypher::Value as V;
    match v {
        V::Node(n) => {
            let d = n.data.as_ref().unwrap();
            let mut labels = d.labels.clone();
            labels.sort();
            let props: Vec<String> = d.props.iter().map(|(k, v)| format!("{k}={}", canon(v))).collect();
            format!("({} {labels:?} {props:?})", n.key)
        }
        V::Relationship(r) => {
            let props: Vec<String> = r
                .data
                .as_ref()
                .unwrap()
                .props
                .iter()
                .map(|(k, v)| format!("{k}={}", canon(v)))
                .collect();
            format!("[{}-{}->{} {props:?}]", r.src, r.ty, r.dst)
        }
        V::Path(p) => {
            let nodes = p.nodes.iter().map(|n| canon(&V::Node(n.clone())));
            let rels = p.rels.iter().map(|r| canon(&V::Relationship(r.clone())));
            format!("<{}>", nodes.chain(rels).collect::<Vec<_>>().join(","))
        }
        V::List(l) => format!("[{}]", l.iter().map(canon).collect::<Vec<_>>().join(",")),
        V::Map(m) => format!(
            "{{{}}}",
            m.iter()
                .map(|(k, v)| format!("{k}:{}", canon(v)))
                .collect::<Vec<_>>()
                .join(",")
        ),
        other => format!("{other:?}"),
    }
}

/// The store of `setup` loaded into a new 64-partition cluster with its metadata in database
/// `db`: the store's directory and the cluster's configuration file.
fn loaded_cluster(pg: &PrivateServer, tmp: &Path, db: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let store = tmp.join("store");
    let (config, _) = config_file(pg, tmp, db, 64);
    assert!(hopdb(&["cluster", "init", "--config", s(&config)]).0);
    let (ok, _, err) = hopdb(&["cluster", "load", "--config", s(&config), s(&store)]);
    assert!(ok, "{err}");
    (store, config)
}

/// The rows of a result as text, in order when query `q` orders them, else sorted.
fn texts(r: hopdb_cypher::QueryResult, q: &str) -> Vec<String> {
    let mut out: Vec<String> = r
        .collect_rows()
        .unwrap()
        .iter()
        .map(|row| row.iter().map(canon).collect::<Vec<_>>().join(" | "))
        .collect();
    if !q.contains("ORDER BY") {
        out.sort();
    }
    out
}

/// The rows of a query as text ([`texts`]).
fn rows(e: &hopdb_cypher::QueryEngine, q: &str, params: &hopdb_cypher::Params) -> Vec<String> {
    texts(e.query(q, params).unwrap_or_else(|err| panic!("{q}: {err}")), q)
}

#[test]
fn cypher_over_a_cluster_answers_as_the_store() {
    use hopdb_cluster::{Cluster, ClusterConfig, ClusterGraph, Mutation};
    use hopdb_cypher::{Params, QueryEngine};
    use std::sync::Arc;

    let Some((pg, tmp, _)) = setup() else { return };
    let (store, config) = loaded_cluster(&pg, tmp.path(), "cypher");

    let local = QueryEngine::new(hopdb_database::Database::open(&store).unwrap());
    let cluster = Arc::new(Cluster::open(ClusterConfig::from_file(&config).unwrap()).unwrap());
    let remote = QueryEngine::over(Arc::new(ClusterGraph::new(cluster.clone())));
    assert!(remote.remote().is_some() && local.remote().is_none());

    // Seeds of each kind, and a hub: the entity mentioned most.
    let mut seeds = Vec::new();
    for q in [
        "MATCH (d:Document) RETURN d._key ORDER BY d._key LIMIT 3",
        "MATCH (c:Chunk) RETURN c._key ORDER BY c._key LIMIT 3",
        "MATCH (e:Entity)<-[:MENTIONS]-() RETURN e._key, count(*) AS n ORDER BY n DESC, e._key LIMIT 2",
    ] {
        for row in local.query(q, &Params::new()).unwrap().collect_rows().unwrap() {
            seeds.push(row[0].clone());
        }
    }
    assert_eq!(seeds.len(), 8);
    let per_seed = [
        "MATCH (n {_key: $k}) RETURN n",
        "MATCH (n {_key: $k}) RETURN labels(n), keys(n), n._key",
        "MATCH (n {_key: $k})-[r]->(m) RETURN type(r), m._key",
        "MATCH (n {_key: $k})<-[r]-(m) RETURN r, m",
        "MATCH (n {_key: $k})-[r]-(m) RETURN r",
        "MATCH (n {_key: $k})--()--(o) RETURN DISTINCT o._key",
        "MATCH (n {_key: $k})-[*1..2]-(o) RETURN count(DISTINCT o)",
        "MATCH p = (n {_key: $k})-[:HAS_CHUNK|MENTIONS*1..2]->(o) RETURN p",
        "MATCH (n {_key: $k}) RETURN size([(n)--(m) | m]) AS degree",
        "MATCH (n {_key: $k})-[:MENTIONS]->(e:Entity) RETURN e.canonical_title ORDER BY e.canonical_title",
        "MATCH (n {_key: $k})<-[:MENTIONS]-(c:Chunk)<-[:HAS_CHUNK]-(d:Document) RETURN d.title, count(c) AS chunks ORDER BY chunks DESC, d.title",
        "MATCH (n {_key: $k}) OPTIONAL MATCH (n)-[:HAS_CHUNK]->(c) RETURN n._key, collect(c._key) AS chunks",
    ];
    let mut compared = 0;
    for q in per_seed {
        for k in &seeds {
            let params = Params::from([("k".to_string(), k.clone())]);
            assert_eq!(rows(&remote, q, &params), rows(&local, q, &params), "{q} with {k:?}");
            compared += 1;
        }
    }
    let a = seeds[3].clone();
    let b = seeds[6].clone();
    let whole_graph = [
        "MATCH (n:Entity) RETURN count(n)",
        "MATCH (n) RETURN labels(n) AS l, count(*) ORDER BY l",
        "MATCH ()-[r]->() RETURN type(r) AS t, count(*) ORDER BY t",
        "MATCH (d:Document) WHERE d.title STARTS WITH 'S' RETURN d._key, d.title ORDER BY d._key",
        "MATCH (e:Entity {entity_type: 'CONCEPT'}) RETURN count(e)",
        "CALL db.labels() YIELD label RETURN label ORDER BY label",
        "MATCH p = shortestPath((a {_key: $a})-[*..6]-(b {_key: $b})) RETURN length(p)",
    ];
    let params = Params::from([("a".to_string(), a), ("b".to_string(), b)]);
    for q in whole_graph {
        assert_eq!(rows(&remote, q, &params), rows(&local, q, &params), "{q}");
        compared += 1;
    }
    assert!(compared > 100);
    // Read transactions work the same; writes, schema changes and the algorithms are refused.
    let q = "MATCH (d:Document) RETURN count(d)";
    let tx = remote.begin_read();
    let got: Vec<String> = tx
        .query_with(q, &Params::new(), &Default::default())
        .unwrap()
        .collect_rows()
        .unwrap()
        .iter()
        .map(|r| canon(&r[0]))
        .collect();
    assert_eq!(got, rows(&local, q, &Params::new()));
    // Schema changes and the algorithms are refused (writes: the next test).
    let e = remote
        .query("CREATE INDEX FOR (n:Entity) ON (n.entity_type)", &Params::new())
        .unwrap_err();
    assert!(e.to_string().contains("refuses schema changes"), "{e}");
    let e = remote
        .query(
            "CALL hopdb.algo.pagerank() YIELD node RETURN count(node)",
            &Params::new(),
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("does not offer it"), "{e}");
    // A write through the cluster is read back through Cypher at once on the query node that
    // wrote it.
    cluster
        .write(&[Mutation::edge(
            "doc-1",
            "CITES",
            "a new entity",
            None,
            Default::default(),
        )])
        .unwrap();
    let got = rows(
        &remote,
        "MATCH ({_key: 'doc-1'})-[:CITES]->(e) RETURN e._key",
        &Params::new(),
    );
    assert_eq!(got, vec!["String(\"a new entity\")".to_string()]);
}

/// A statement's rows ([`texts`]) and its update counters, or its error class.
fn outcome(e: &hopdb_cypher::QueryEngine, q: &str) -> Result<(Vec<String>, String), String> {
    match e.query(q, &hopdb_cypher::Params::new()) {
        Ok(r) => {
            let stats = format!("{:?}", r.stats());
            Ok((texts(r, q), stats))
        }
        Err(err) => Err(format!("{:?}/{}", err.class, err.detail)),
    }
}

/// Cypher writes through a cluster's query node (`ClusterTxn`) leave the cluster as the same
/// statements leave the store: after every statement, its rows and counters and a set of
/// reads compare equal; a failing statement leaves nothing; explicit transactions commit and
/// roll back; another query node reads the writes; and two query nodes incrementing one
/// property concurrently lose no update (conflicts are detected and the statements rerun).
#[test]
fn cypher_writes_over_a_cluster_match_the_store() {
    use hopdb_cluster::{Cluster, ClusterConfig, ClusterGraph};
    use hopdb_cypher::{Params, QueryEngine};
    use std::sync::Arc;

    let Some((pg, tmp, _)) = setup() else { return };
    let (store, config) = loaded_cluster(&pg, tmp.path(), "cypher_writes");
    let open = || {
        let c = Arc::new(Cluster::open(ClusterConfig::from_file(&config).unwrap()).unwrap());
        (c.clone(), QueryEngine::over(Arc::new(ClusterGraph::new(c))))
    };
    let local = QueryEngine::new(hopdb_database::Database::open(&store).unwrap());
    let (remote_cluster, remote) = open();

    let reads = [
        "MATCH (n) RETURN labels(n) AS l, count(*) ORDER BY l",
        "MATCH ()-[r]->() RETURN type(r) AS t, count(*) ORDER BY t",
        "MATCH (t:Topic) RETURN t ORDER BY t._key",
        "MATCH (a)-[r:ABOUT|RELATED]->(b) RETURN a._key, type(r), properties(r), b._key",
        "MATCH (d:Document) RETURN d._key, d.title, d.reviewed ORDER BY d._key LIMIT 10",
        "MATCH (e:Reviewed) RETURN e._key, keys(e) ORDER BY e._key",
        "MATCH (n:Anon) RETURN n.x ORDER BY n.x",
        "MATCH (n {_key: 'topic-1'}) RETURN size([(n)--() | 1]) AS degree",
        "MATCH (e:Entity {_key: 'new-entity'}) RETURN e",
    ];
    let compare = |engine: &QueryEngine, after: &str| {
        for q in reads {
            assert_eq!(
                rows(engine, q, &Params::new()),
                rows(&local, q, &Params::new()),
                "{q} after {after}"
            );
        }
    };
    let script = [
        "CREATE (n:Topic {_key: 'topic-1', name: 'graphs', weight: 1}) RETURN n",
        "UNWIND range(1, 50) AS i CREATE (t:Topic {_key: 'topic-x' + toString(i), i: i}) RETURN count(t)",
        "MATCH (c:Chunk) WITH c ORDER BY c._key LIMIT 20 MATCH (t {_key: 'topic-1'}) CREATE (c)-[:ABOUT {score: 0.5}]->(t)",
        "MATCH (d:Document) WITH d ORDER BY d._key LIMIT 5 SET d.reviewed = true, d.title = d.title + '!'",
        "MATCH (e:Entity) WITH e ORDER BY e._key LIMIT 10 REMOVE e.description SET e:Reviewed",
        "MATCH (a {_key: 'topic-1'}), (b {_key: 'topic-x3'}) MERGE (a)-[r:RELATED]->(b) ON CREATE SET r.n = 1 ON MATCH SET r.n = r.n + 1",
        "MATCH (a {_key: 'topic-1'}), (b {_key: 'topic-x3'}) MERGE (a)-[r:RELATED]->(b) ON CREATE SET r.n = 1 ON MATCH SET r.n = r.n + 1 RETURN r.n",
        "MATCH (t:Topic) WHERE t.i > 40 DETACH DELETE t",
        "MATCH (c)-[r:ABOUT]->() WITH c, r ORDER BY c._key LIMIT 5 DELETE r",
        "MATCH (d:Document) WITH d ORDER BY d._key LIMIT 1 DETACH DELETE d",
        "CREATE (n:Anon {x: 1}) RETURN n.x",
        "MERGE (e:Entity {_key: 'new-entity'}) SET e.canonical_title = 'New', e.entity_type = 'CONCEPT'",
        "MERGE (e:Entity {_key: 'new-entity'}) SET e.canonical_title = 'Newer' RETURN e.canonical_title",
        "MATCH (t:Topic {_key: 'topic-x2'}) DELETE t",
        // Fails part-way (the key exists): nothing of it may stay.
        "UNWIND [1, 2] AS i CREATE (:Tmp {_key: 'tmp-' + toString(i)}) WITH i WHERE i = 2 CREATE (:Tmp {_key: 'topic-1'})",
        // Fails: a relationship still holds the node.
        "MATCH (t {_key: 'topic-1'}) DELETE t",
    ];
    for q in script {
        let (want, got) = (outcome(&local, q), outcome(&remote, q));
        assert_eq!(got, want, "{q}");
        compare(&remote, q);
    }
    assert!(outcome(&local, script[14]).is_err() && outcome(&local, script[15]).is_err());

    // Explicit transactions: rolled back leaves nothing, committed keeps every statement.
    for engine in [&local, &remote] {
        let mut tx = engine.begin().unwrap();
        tx.query("CREATE (:Draft {_key: 'draft'})", &Params::new()).unwrap();
        let seen = tx.query("MATCH (d:Draft) RETURN count(d)", &Params::new()).unwrap();
        assert_eq!(
            canon(&seen.collect_rows().unwrap()[0][0]),
            "Int(1)",
            "a transaction reads its writes"
        );
        tx.rollback();
        let mut tx = engine.begin().unwrap();
        tx.query("CREATE (:Final {_key: 'final', n: 1})", &Params::new())
            .unwrap();
        tx.query("MATCH (f:Final) SET f.n = f.n + 1", &Params::new()).unwrap();
        tx.query(
            "MATCH (f:Final), (t {_key: 'topic-1'}) CREATE (f)-[:ABOUT]->(t)",
            &Params::new(),
        )
        .unwrap();
        tx.commit().unwrap();
    }
    compare(&remote, "the explicit transactions");
    for q in [
        "MATCH (d:Draft) RETURN count(d)",
        "MATCH (f:Final)-[:ABOUT]->(t) RETURN f.n, t._key",
    ] {
        assert_eq!(rows(&remote, q, &Params::new()), rows(&local, q, &Params::new()), "{q}");
    }

    // Another query node reads all of it.
    let (other_cluster, other) = open();
    compare(&other, "opening another query node");

    // Parallel relationships (types Cypher creates allow them, as in Neo4j): a second one
    // between the same nodes, then one updated and one deleted by id, through the query
    // node's transactions, against the store; another query node reads them.
    for q in [
        "MATCH (f {_key: 'final'}), (t {_key: 'topic-1'}) CREATE (f)-[r:ABOUT {n: 2}]->(t) RETURN r.n",
        "MATCH (f {_key: 'final'}), (t {_key: 'topic-1'}) CREATE (f)-[r:ABOUT {n: 4}]->(t) RETURN r.n",
        "MATCH (f {_key: 'final'})-[r:ABOUT]->(t) RETURN count(r), collect(r.n)",
        "MATCH (f {_key: 'final'})-[r:ABOUT {n: 2}]->() SET r.n = 3, r.m = 'x' RETURN r.n, r.m",
        "MATCH (f {_key: 'final'})-[r:ABOUT]->() WHERE r.n = 4 DELETE r",
        "MATCH (f {_key: 'final'})-[r:ABOUT]-(t) RETURN t._key, r.n, r.m ORDER BY r.n",
        "MATCH (f {_key: 'final'})-[r:ABOUT]->() WHERE r.n = 3 SET r += {k: 1} RETURN properties(r)",
        "MATCH (c:Chunk)-[:ABOUT]->(t) WITH c, t ORDER BY c._key LIMIT 3 CREATE (c)-[r:ABOUT {again: true}]->(t) RETURN count(r)",
        "MATCH (c:Chunk)-[r:ABOUT]->() RETURN c._key, count(r) AS n ORDER BY n DESC, c._key LIMIT 5",
        "MATCH (f {_key: 'final'}) DETACH DELETE f",
    ] {
        let (want, got) = (outcome(&local, q), outcome(&remote, q));
        assert_eq!(got, want, "{q}");
        compare(&remote, q);
    }
    remote_cluster.refresh().unwrap();
    other_cluster.refresh().unwrap();
    compare(&other, "parallel relationships written by another query node");
    let parallel = "MATCH (c:Chunk)-[r:ABOUT]->(t) RETURN c._key, t._key, count(r) AS n ORDER BY c._key";
    assert_eq!(
        rows(&other, parallel, &Params::new()),
        rows(&local, parallel, &Params::new())
    );
    // A type loaded as simple keeps one relationship per pair.
    let e = remote
        .query(
            "MATCH (d:Document)-[:HAS_CHUNK]->(c) WITH d, c LIMIT 1 CREATE (d)-[:HAS_CHUNK]->(c)",
            &Params::new(),
        )
        .unwrap_err();
    assert!(e.to_string().contains("one relationship per pair"), "{e}");
    compare(&remote, "a refused parallel relationship");

    // Two query nodes increment one property concurrently: every increment counts.
    remote
        .query("CREATE (:Counter {_key: 'counter', v: 0})", &Params::new())
        .unwrap();
    let per_node = 40;
    let conflicts: usize = std::thread::scope(|scope| {
        let workers: Vec<_> = [remote.clone(), other.clone()]
            .into_iter()
            .map(|engine| {
                scope.spawn(move || {
                    let mut surfaced = 0;
                    let mut done = 0;
                    while done < per_node {
                        match engine.query("MATCH (c {_key: 'counter'}) SET c.v = c.v + 1", &Params::new()) {
                            Ok(_) => done += 1,
                            Err(e) if e.class == hopdb_cypher::ErrorClass::Conflict => surfaced += 1,
                            Err(e) => panic!("{e}"),
                        }
                    }
                    surfaced
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).sum()
    });
    // Plain reads see another query node's writes within refresh_ms; re-read at once.
    remote_cluster.refresh().unwrap();
    other_cluster.refresh().unwrap();
    for engine in [&remote, &other] {
        let v = rows(engine, "MATCH (c {_key: 'counter'}) RETURN c.v", &Params::new());
        assert_eq!(
            v,
            vec![format!("Int({})", 2 * per_node)],
            "{conflicts} conflicts surfaced"
        );
    }
}

/// The whole graph as text, for comparing two graphs: every node with its labels and
/// properties (through Cypher), every relationship from each end with its type, id, weight
/// and properties (through the graph read interface), in order.
fn dump(e: &hopdb_cypher::QueryEngine, g: &dyn hopdb_database::GraphRead) -> Vec<String> {
    let p = hopdb_cypher::Params::new();
    let mut out = rows(e, "MATCH (n) RETURN n", &p);
    let keys = e.query("MATCH (n) RETURN n._key", &p).unwrap().collect_rows().unwrap();
    let mut keys: Vec<hopdb_database::NodeKey> = keys
        .iter()
        .map(|r| match &r[0] {
            hopdb_cypher::Value::Int(i) => hopdb_database::NodeKey::Int(*i),
            hopdb_cypher::Value::String(s) => hopdb_database::NodeKey::Str(s.to_string()),
            other => panic!("a key {other:?}"),
        })
        .collect();
    keys.sort();
    for k in keys {
        let mut edges: Vec<String> = g
            .edges(&k, hopdb_database::Direction::Both, None, None)
            .unwrap()
            .iter()
            .map(|e| format!("{k}: {e:?}"))
            .collect();
        edges.sort();
        out.extend(edges);
    }
    out
}

/// The [`dump`]s of the store in `store` and of the cluster of `config`.
fn dumps(store: &Path, config: &Path) -> (Vec<String>, Vec<String>) {
    use std::sync::Arc;
    let db = hopdb_database::Database::open(store).unwrap();
    let snap = db.graph().read();
    let local = hopdb_cypher::QueryEngine::new(db);
    let cluster = Arc::new(hopdb_cluster::ClusterGraph::new(Arc::new(
        hopdb_cluster::Cluster::open(hopdb_cluster::ClusterConfig::from_file(config).unwrap()).unwrap(),
    )));
    let remote = hopdb_cypher::QueryEngine::over(cluster.clone());
    (dump(&local, &snap), dump(&remote, &*cluster))
}

/// `hopdb cluster load --config CONFIG OPTIONS ARGS`.
fn cluster_load(config: &Path, options: &[&str], args: &[&str]) -> (bool, String, String) {
    hopdb(&[&["cluster", "load", "--config", s(config)], options, args].concat())
}

/// `hopdb cluster load` straight from import files builds the graph `hopdb import` builds
/// from the same files, with the same options: a generated knowledge graph (CSV), a LightRAG
/// GraphML file and a SNAP edge list that lists each undirected edge from both ends (so rows
/// repeat edges and merge). Bad rows stop the load, naming file, line and key, with the live
/// graph untouched, or are skipped and counted as the import skips them.
#[test]
fn loading_import_files_straight_builds_the_stores_graph() {
    let Some((pg, tmp, stats)) = setup() else { return };
    let kg = tmp.path().join("kg");
    let file = |n: &str| kg.join(n).to_str().unwrap().to_string();
    let mut cases: Vec<(&str, Vec<String>)> = vec![(
        "kg",
        ["documents.csv", "chunks.csv", "entities.csv"]
            .iter()
            .map(|f| format!("--nodes={}", file(f)))
            .chain(
                ["has_chunk.csv", "mentions.csv"]
                    .iter()
                    .map(|f| format!("--relationships={}", file(f))),
            )
            .collect(),
    )];
    // Small hand-written files: a relationship repeated with other properties (merged, later
    // values win) and one to a node no file defines.
    let small = tmp.path().join("small");
    std::fs::create_dir_all(&small).unwrap();
    std::fs::write(small.join("n.csv"), "id:ID,:LABEL,x:int\na,A;B,1\nb,B,2\nc,,3\n").unwrap();
    std::fs::write(
        small.join("r.csv"),
        ":START_ID,:END_ID,:TYPE,w:int,v\na,b,T,1,first\nb,c,T,2,\na,b,T,3,\nc,ghost,T,4,\nc,c,U,5,\n",
    )
    .unwrap();
    let report = small.join("bad.report");
    let small_args = [
        format!("--nodes={}", s(&small.join("n.csv"))),
        format!("--relationships={}", s(&small.join("r.csv"))),
        format!("--report-file={}", s(&report)),
    ];
    match hopdb_testdata::datasets() {
        Some(d) => {
            cases.push((
                "lightrag",
                vec![format!(
                    "--graphml={}",
                    s(&d.join("lightrag-dickens-v2/graph_chunk_entity_relation.graphml.gz"))
                )],
            ));
            cases.push((
                "hepph",
                vec![
                    format!("--edge-list={}", s(&d.join("snap-ca-HepPh/CA-HepPh.txt.gz"))),
                    "--undirected".into(),
                    "--type=COAUTHOR".into(),
                ],
            ));
        }
        None => eprintln!("SKIPPED the GraphML and SNAP cases: no datasets directory (set HOPDB_DATASETS)"),
    }

    for (i, (name, args)) in cases.iter().enumerate() {
        let dir = tmp.path().join(format!("case-{name}"));
        let store = dir.join("store");
        std::fs::create_dir_all(&dir).unwrap();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (ok, _, err) = hopdb(&[&["import", s(&store), "--quiet"], &args[..]].concat());
        assert!(ok, "{name}: {err}");
        let (config, _) = config_file(&pg, &dir, &format!("files{i}"), 16);
        assert!(hopdb(&["cluster", "init", "--config", s(&config)]).0);
        let (ok, out, err) = cluster_load(&config, &["--json", "--scratch", s(&dir)], &args);
        assert!(ok, "{name}: {err}");
        let load: serde_json::Value = serde_json::from_str(&out).unwrap();
        let st: serde_json::Value = serde_json::from_str(&hopdb(&["stats", s(&store), "--json"]).1).unwrap();
        assert_eq!((&load["nodes"], &load["edges"]), (&st["nodes"], &st["edges"]), "{name}");
        if *name == "kg" {
            assert_eq!(load["nodes"], stats["nodes"]);
        }
        assert!(load["spill_bytes"].as_u64().unwrap() > 0, "{name}: {load}");
        // The spill directory is gone.
        let left: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with("hopdb-cluster-load"))
            .collect();
        assert!(left.is_empty(), "{name}: spill files left behind");
        let (want, got) = dumps(&store, &config);
        assert!(want.len() > 2, "{name}");
        assert_eq!(got.len(), want.len(), "{name}");
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(g, w, "{name}");
        }
    }

    // The small files: the edge to `ghost` stops the load, which names it, and the live graph
    // (the kg case's cluster) is untouched.
    let dir = tmp.path().join("case-kg");
    let config = dir.join("cluster.toml");
    let before = hopdb(&["cluster", "status", "--config", s(&config), "--json"]).1;
    let args: Vec<&str> = small_args.iter().map(String::as_str).collect();
    let (ok, _, err) = cluster_load(&config, &[], &args);
    assert!(
        !ok && err.contains("ghost") && err.contains("r.csv") && err.contains('5'),
        "{err}"
    );
    assert_eq!(
        hopdb(&["cluster", "status", "--config", s(&config), "--json"]).1,
        before
    );
    // Skipped, it is counted and listed as the import lists it; the rest matches the store.
    let (ok, out, err) = cluster_load(&config, &["--json", "--skip-bad-relationships"], &args);
    assert!(ok, "{err}");
    let load: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (&load["bad"], &load["merged_relationships"]),
        (&1.into(), &1.into()),
        "{load}"
    );
    let listed = std::fs::read_to_string(&report).unwrap();
    assert!(listed.contains("ghost"), "{listed}");
    let store = tmp.path().join("small-store");
    let (ok, _, err) = hopdb(&[&["import", s(&store), "--quiet", "--skip-bad-relationships"], &args[..]].concat());
    assert!(ok, "{err}");
    let (want, got) = dumps(&store, &config);
    assert_eq!(got, want);
    // a -> b merged: w from the later row, v from the earlier (the later row leaves it empty).
    assert!(
        got.iter()
            .any(|r| r.contains(r#"props: {"v": Str("first"), "w": Int(3)}"#)),
        "{got:?}"
    );
    // A store and files together, or neither, is refused.
    let (ok, _, err) = hopdb(&[&["cluster", "load", "--config", s(&config), s(&store)], &args[..]].concat());
    assert!(!ok && err.contains("not both"), "{err}");
    let (ok, _, err) = hopdb(&["cluster", "load", "--config", s(&config)]);
    assert!(!ok && err.contains("STORE"), "{err}");
}
