//! `hopdb serve` from the command line: without authentication it refuses to listen where
//! other machines can reach it unless told to. (The server itself is tested in
//! crates/hopdb-server and, with the official Python driver, in python/tests/test_server.py.)
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

#[test]
fn serve_refuses_a_non_loopback_address_without_auth() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let out = Command::new(env!("CARGO_BIN_EXE_hopdb"))
        .args(["serve", store.to_str().unwrap(), "--create", "--bolt", "0.0.0.0:0"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains("refusing to listen on 0.0.0.0:0") && stderr.contains("--allow-unauthenticated-network"),
        "{stderr}"
    );
    assert!(!store.exists(), "nothing is created when the address is refused");
}

#[test]
fn serve_cluster_refuses_a_store_beside_it_and_names_a_missing_configuration() {
    let hopdb = |args: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_hopdb")).args(args).output().unwrap();
        (o.status.success(), String::from_utf8_lossy(&o.stderr).to_string())
    };
    let (ok, err) = hopdb(&["serve", "--cluster", "cluster.toml", "somestore"]);
    assert!(!ok && err.contains("cannot be used with"), "{err}");
    let (ok, err) = hopdb(&[
        "serve",
        "--cluster",
        "/nonexistent/cluster.toml",
        "--bolt",
        "127.0.0.1:0",
    ]);
    assert!(!ok && err.contains("/nonexistent/cluster.toml"), "{err}");
    let (ok, err) = hopdb(&["serve"]);
    assert!(!ok && err.contains("<DIR>"), "{err}");
}
