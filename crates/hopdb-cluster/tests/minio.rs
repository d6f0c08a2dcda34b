//! The cold tier on a distributed MinIO (four processes on loopback, one erasure set of 2 data
//! and 2 parity shards): with one node down reads and loads go on; with two down reads go on
//! and a load or compaction fails cleanly, leaving the live graph, while writes (to the delta in
//! PostgreSQL) go on; after a restart loads and compactions work again. Every
//! answer is compared with the embedded store's.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use hopdb_cluster::{Cluster, ClusterConfig, LoadOptions};
use hopdb_testdata::minio::{PrivateMinio, ACCESS_KEY, SECRET_KEY};

mod common;
use common::*;

#[test]
fn reads_survive_two_minio_nodes_down_and_loads_fail_cleanly_then_resume() {
    let Some(pg) = server() else { return };
    let mut minio = match PrivateMinio::start(4, "hopdb-cold") {
        Ok(m) => m,
        Err(why) => return eprintln!("SKIPPED: {why}"),
    };
    // The client talks to node 3; nodes 0 and 1 are the ones killed. MinIO answers 503 for a
    // moment after it loses or regains a node, so the client retries as a deployment's would.
    let cfg = ClusterConfig::parse(&format!(
        "partitions = 16\n[cold]\nurl = \"s3://hopdb-cold/kg\"\nendpoint = \"{}\"\nregion = \"us-east-1\"\n\
         allow_http = true\naccess_key_id = \"{ACCESS_KEY}\"\nsecret_access_key = \"{SECRET_KEY}\"\n\
         timeout_ms = 10000\nretries = 6\n[metadata]\npostgres = \"{}\"\n[cache]\nmemory_mb = 0\n",
        minio.endpoint(3),
        pg.create_database("minio").unwrap()
    ))
    .unwrap();
    assert!(Cluster::init(&cfg).unwrap());
    let c = Cluster::open(cfg).unwrap();
    let g = shapes();
    load(&c, &g, 2);
    assert_eq!(assert_same_graph(&g, &c), 40);

    let smaller = shapes();
    let mut w = smaller.write().unwrap();
    w.delete_node("n2").unwrap();
    w.commit().unwrap();

    minio.kill(0);
    assert_eq!(assert_same_graph(&g, &c), 40, "one node down: reads");
    load(&c, &smaller, 2);
    assert_eq!(assert_same_graph(&smaller, &c), 39, "one node down: a load");

    minio.kill(1);
    assert_eq!(assert_same_graph(&smaller, &c), 39, "two nodes down: reads");
    let e = c.load_from(&g, &LoadOptions::default()).unwrap_err();
    assert!(e.to_string().contains("object storage"), "{e}");
    assert_eq!(assert_same_graph(&smaller, &c), 39, "the failed load changed nothing");
    // Writes go to the delta in PostgreSQL: acknowledged with two nodes down and read back
    // merged; compacting them fails cleanly until the nodes return.
    c.write(&[hopdb_cluster::Mutation::DeleteNode { key: "n4".into() }])
        .unwrap();
    let mut w = smaller.write().unwrap();
    w.delete_node("n4").unwrap();
    w.commit().unwrap();
    assert_eq!(assert_same_graph(&smaller, &c), 38, "two nodes down: a write");
    let e = c.compact(None).unwrap_err();
    assert!(e.to_string().contains("object storage"), "{e}");
    assert_eq!(
        assert_same_graph(&smaller, &c),
        38,
        "the failed compaction changed nothing"
    );

    minio.restart(0).unwrap();
    minio.restart(1).unwrap();
    let r = c.compact(None).unwrap();
    assert!(r.partitions > 0 && r.conflicts == 0, "{r:?}");
    assert_eq!(assert_same_graph(&smaller, &c), 38, "after the restart: the compaction");
    load(&c, &g, 2);
    assert_eq!(assert_same_graph(&g, &c), 40, "after the restart: a load");
}
