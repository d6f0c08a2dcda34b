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

#[test]
fn init_load_status_against_the_store() {
    let pg = match PrivateServer::start() {
        Ok(pg) => pg,
        Err(why) => return eprintln!("SKIPPED: {why}"),
    };
    let tmp = tempfile::tempdir().unwrap();
    let (store, cold) = (tmp.path().join("store"), tmp.path().join("cold"));
    let stats = generated_store(tmp.path(), &store, "0.02");

    let config = tmp.path().join("cluster.toml");
    let conn = pg.create_database("cli").unwrap();
    std::fs::write(
        &config,
        format!(
            "partitions = 32\n[cold]\nurl = \"file://{}\"\n[metadata]\npostgres = \"{conn}\"\n",
            s(&cold)
        ),
    )
    .unwrap();
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
    assert_eq!(r.keys(), nodes);
    let (ok, out, _) = hopdb(&["cluster", "status", "--config", c]);
    assert!(
        ok && out.contains(&format!("hot tier       128 partitions, {nodes} nodes")),
        "{out}"
    );
    let (ok, out, err) = hopdb(&["cluster", "evict", "--config", c, "--all", "--json"]);
    assert!(ok, "{err}");
    let evicted: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(evicted["entries"].as_u64(), Some(nodes));
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
        assert_eq!(Some(held), row["hot_nodes"].as_u64(), "partition {p}: {row}");
        assert_eq!(row["hot_nodes"], row["nodes"], "partition {p}");
    }
    assert!(
        hot < 128,
        "the promotion was killed before it finished ({hot} partitions hot)"
    );
    eprintln!("{hot} of 128 partitions recorded hot when the promotion was killed");
}
