//! `hopdb cluster init | load | status`, run as the built binary against a private PostgreSQL
//! server the test starts: a generated knowledge graph is imported, loaded into the cluster,
//! and the cluster's counts must be the store's; configuration mistakes exit 2 saying what is
//! wrong.
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

#[test]
fn init_load_status_against_the_store() {
    let pg = match PrivateServer::start() {
        Ok(pg) => pg,
        Err(why) => return eprintln!("SKIPPED: {why}"),
    };
    let tmp = tempfile::tempdir().unwrap();
    let (kg, store, cold) = (tmp.path().join("kg"), tmp.path().join("store"), tmp.path().join("cold"));
    assert!(hopdb(&["generate", "--out", s(&kg), "--scale", "0.02"]).0);
    let file = |n: &str| kg.join(n).to_str().unwrap().to_string();
    let (ok, _, err) = hopdb(&[
        "import",
        s(&store),
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
    let stats: serde_json::Value = serde_json::from_str(&hopdb(&["stats", s(&store), "--json"]).1).unwrap();

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
