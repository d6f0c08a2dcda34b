//! The cluster against the embedded store it was loaded from: every node, edge list, degree and
//! neighbourhood of real graphs (the LightRAG graphs and email-Enron from ../shared/datasets,
//! plus a graph with every edge shape) must come back as the store answers, through a private
//! PostgreSQL server and a cold tier in a temporary directory that the tests start themselves.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use hopdb_cluster::{partition_of, Cluster, ClusterConfig, ClusterError, LoadOptions};
use hopdb_core::{props, Direction, EdgeTypeOptions, Graph, GraphRead, NodeKey, WriteMode};
use hopdb_import::{import, EdgeList, ImportSpec, NoProgress};
use hopdb_testdata::datasets;

mod common;
use common::*;

#[test]
fn every_edge_shape_comes_back_as_the_store_lists_it() {
    let Some(pg) = server() else { return };
    let cold = tempfile::tempdir().unwrap();
    let g = shapes();
    // Few partitions, so partitions hold many nodes and edges cross them.
    let c = new_cluster(&pg, "shapes", cold.path(), 7);
    let report = load(&c, &g, 3);
    assert_eq!(
        (report.partitions, report.nodes, report.edges),
        (7, 40, g.edge_count().unwrap())
    );
    assert_eq!(assert_same_graph(&g, &c), 40);
    assert_counts(&g, &c);
    let seeds: Vec<NodeKey> = vec![NodeKey::Int(0), "n5".into(), "n37".into()];
    for dir in [Direction::Out, Direction::In, Direction::Both] {
        assert_same_k_hop(&g, &c, &seeds, 4, dir);
    }
    assert_eq!(c.node(&"absent".into()).unwrap(), None);
    assert_eq!(c.edges(&"absent".into(), Direction::Both, None).unwrap(), None);
    assert_eq!(c.degree(&"absent".into(), Direction::Both, None).unwrap(), None);
    // Reads heat their partitions: the counts reach the metadata with the query node's name.
    c.flush_access().unwrap();
    let hot = partition_of(&"n5".into(), 7);
    for _ in 0..50 {
        c.node(&"n5".into()).unwrap();
    }
    let before = c.status().unwrap()[hot as usize].temperature;
    c.flush_access().unwrap();
    let after = &c.status().unwrap()[hot as usize];
    assert!(after.temperature >= before + 49.9, "{before} -> {after:?}");
    assert!(after.last_access.is_some());
    assert!(
        after
            .query_node
            .as_deref()
            .unwrap()
            .ends_with(&format!(":{}", std::process::id())),
        "{after:?}"
    );
    let types = c.edge_types().unwrap();
    assert!(types.contains(&(
        "KNOWS".to_string(),
        EdgeTypeOptions {
            undirected: true,
            multi: false
        }
    )));
    assert!(types.contains(&(
        "PAID".to_string(),
        EdgeTypeOptions {
            undirected: false,
            multi: true
        }
    )));
}

#[test]
fn real_graphs_come_back_whole() {
    let Some(dir) = datasets() else { return };
    let Some(pg) = server() else { return };
    let mut checked = 0;
    let mut entries: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.path()).collect();
    entries.sort();
    for (i, d) in entries.iter().enumerate() {
        if !d.file_name().unwrap().to_string_lossy().starts_with("lightrag-") {
            continue;
        }
        let g = Graph::in_memory();
        let spec = ImportSpec {
            graphml: vec![d.join("graph_chunk_entity_relation.graphml.gz")],
            ..ImportSpec::default()
        };
        import(&g, &spec, &NoProgress).unwrap();
        let cold = tempfile::tempdir().unwrap();
        let c = new_cluster(&pg, &format!("lightrag{i}"), cold.path(), 64);
        c.load_from(&g, &LoadOptions::default()).unwrap();
        let n = assert_same_graph(&g, &c);
        assert_eq!(n as u64, g.node_count().unwrap());
        assert_counts(&g, &c);
        let mut seeds = Vec::new();
        g.for_each_node(None, &mut |node| {
            seeds.push(node.key);
            seeds.len() < 10
        })
        .unwrap();
        assert_same_k_hop(&g, &c, &seeds, 3, Direction::Both);
        checked += 1;
    }
    assert_eq!(checked, 5, "five LightRAG graphs in {}", dir.display());

    // email-Enron: 36,692 nodes, 183,831 undirected edges, hubs of degree 1,383; an on-disk
    // store read in several passes (a 1 MiB row budget).
    let dir_store = tempfile::tempdir().unwrap();
    let g = Graph::open(dir_store.path()).unwrap();
    let mut el = EdgeList::new(dir.join("snap-email-Enron/email-Enron.txt.gz"));
    el.undirected = true;
    import(
        &g,
        &ImportSpec {
            edge_lists: vec![el],
            ..ImportSpec::default()
        },
        &NoProgress,
    )
    .unwrap();
    let cold = tempfile::tempdir().unwrap();
    let c = new_cluster(&pg, "enron", cold.path(), 256);
    let report = c
        .load_from(
            &g,
            &LoadOptions {
                memory_mb: 1,
                ..LoadOptions::default()
            },
        )
        .unwrap();
    assert_eq!(
        (report.nodes, report.edges),
        (g.node_count().unwrap(), g.edge_count().unwrap())
    );
    assert!(report.passes > 1, "{report:?}");
    assert_eq!(assert_same_graph(&g, &c), 36_692);
    assert_counts(&g, &c);
    let seeds: Vec<NodeKey> = [0i64, 1, 5, 100, 2000, 36_000].into_iter().map(NodeKey::Int).collect();
    assert_same_k_hop(&g, &c, &seeds, 2, Direction::Out);
}

#[test]
fn point_reads_fetch_only_the_row_groups_of_their_nodes() {
    let Some(dir) = datasets() else { return };
    let Some(pg) = server() else { return };
    // email-Eu-core (directed, self-loops, 25,571 edges) in 4 partitions of row groups of 500
    // rows: about 26 groups of adjacency rows a partition. No partition cache, so every read
    // fetches row groups.
    let g = Graph::in_memory();
    let spec = ImportSpec {
        edge_lists: vec![EdgeList::new(dir.join("snap-email-Eu-core/email-Eu-core.txt.gz"))],
        ..ImportSpec::default()
    };
    import(&g, &spec, &NoProgress).unwrap();
    let cold = tempfile::tempdir().unwrap();
    let mut cfg = config_with(
        &pg.create_database("ranged").unwrap(),
        cold.path(),
        4,
        "[cache]\nmemory_mb = 0\n",
    );
    cfg.cold.row_group_rows = 500;
    Cluster::init(&cfg).unwrap();
    let c = Cluster::open(cfg.clone()).unwrap();
    c.load_from(&g, &LoadOptions::default()).unwrap();
    assert_eq!(assert_same_graph(&g, &c) as u64, g.node_count().unwrap());
    let seeds: Vec<NodeKey> = [0i64, 5, 900].into_iter().map(NodeKey::Int).collect();
    assert_same_k_hop(&g, &c, &seeds, 2, Direction::Both);

    // One node at a time: the same answers, for a small share of the partition's bytes.
    let object_bytes: u64 = cold_files(cold.path())
        .iter()
        .map(|f| std::fs::metadata(cold.path().join(f)).unwrap().len())
        .sum();
    let before = c.cache_stats();
    let keys: Vec<NodeKey> = (0..200i64).map(|i| NodeKey::Int(i * 5)).collect();
    for k in &keys {
        let want = g.edges(k, Direction::Both, None, None).unwrap();
        let got = c.edges(k, Direction::Both, None).unwrap().unwrap();
        assert_eq!(edge_set(&want), edge_set(&got), "edges of {k}");
    }
    for absent in [NodeKey::Int(-1), NodeKey::Int(1005), NodeKey::Str("x".into())] {
        assert_eq!(c.node(&absent).unwrap(), None);
        assert_eq!(c.edges(&absent, Direction::Both, None).unwrap(), None);
    }
    let after = c.cache_stats();
    let reads = after.ranged - before.ranged;
    assert_eq!(reads, keys.len() as u64 + 6, "{after:?}");
    let per_read = (after.cold_bytes - before.cold_bytes) / reads;
    let per_partition = object_bytes / 4;
    assert!(
        per_read * 8 < per_partition,
        "a point read fetched {per_read} bytes of a {per_partition}-byte partition"
    );
    assert_eq!(after.partitions, 0, "ranged reads are never cached");

    // With a cache, a partition's first miss is a ranged read and its second reads it whole
    // and keeps it; the third is a hit.
    cfg.cache.memory_mb = 64;
    let cached = Cluster::open(cfg).unwrap();
    let p0: Vec<&NodeKey> = keys.iter().filter(|k| partition_of(k, 4) == 0).take(3).collect();
    for (i, k) in p0.iter().enumerate() {
        let want = g.edges(k, Direction::Both, None, None).unwrap();
        let got = cached.edges(k, Direction::Both, None).unwrap().unwrap();
        assert_eq!(edge_set(&want), edge_set(&got), "edges of {k}");
        let s = cached.cache_stats();
        let expect = [(1, 1, 0, 0), (2, 1, 1, 0), (2, 1, 1, 1)][i];
        assert_eq!((s.misses, s.ranged, s.partitions, s.hits), expect, "read {i}: {s:?}");
    }
}

/// Every file under the cold tier, as paths relative to it.
fn cold_files(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else {
                out.push(e.path().strip_prefix(root).unwrap().display().to_string());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn a_reload_swaps_every_partition_at_once_and_removes_the_old_files() {
    let Some(pg) = server() else { return };
    let cold = tempfile::tempdir().unwrap();
    let g = shapes();
    let c = new_cluster(&pg, "reload", cold.path(), 16);
    let first = load(&c, &g, 2);
    // A second query node, opened before the reload.
    let cfg = config(
        &format!("host=127.0.0.1 port={} user=hopdb dbname=reload", pg.port),
        cold.path(),
        16,
    );
    let reader = Cluster::open(cfg).unwrap();
    assert_eq!(reader.node(&"n1".into()).unwrap().unwrap().labels.len(), 2);

    let mut w = g.write().unwrap();
    w.delete_node("n1").unwrap();
    w.upsert_edge(
        "n2",
        "NEW",
        NodeKey::Int(30),
        None,
        props::<String, _>([]),
        WriteMode::Merge,
    )
    .unwrap();
    w.commit().unwrap();
    let second = load(&c, &g, 2);
    assert!(second.generation > first.generation);
    assert!(c.status().unwrap().iter().all(|p| p.generation == second.generation));
    assert_same_graph(&g, &c);
    assert_counts(&g, &c);

    // The reader answers from the old generation it cached until it refreshes.
    reader.refresh().unwrap();
    assert_eq!(reader.node(&"n1".into()).unwrap(), None);
    assert_same_graph(&g, &reader);

    // Only the live generation's files are left, and no empty directory.
    let files = cold_files(cold.path());
    assert_eq!(files.len(), 32);
    let live = format!("/g{:08}/", second.generation);
    assert!(files.iter().all(|f| f.contains(&live)), "{files:?}");
    let dirs: usize = std::fs::read_dir(cold.path())
        .unwrap()
        .flatten()
        .map(|p| std::fs::read_dir(p.path()).unwrap().count())
        .sum();
    assert_eq!(dirs, 16);
}

#[test]
fn a_failed_load_leaves_the_live_graph_untouched() {
    let Some(pg) = server() else { return };
    let cold = tempfile::tempdir().unwrap();
    let g = shapes();
    let c = new_cluster(&pg, "failed", cold.path(), 16);
    let first = c.load_from(&g, &LoadOptions::default()).unwrap();
    let mut w = g.write().unwrap();
    w.delete_node("n2").unwrap();
    w.commit().unwrap();
    // The worker dies after its fifth partition (as a killed process would, mid-load).
    let die = |done: usize, _: usize| assert!(done < 5, "worker dies");
    let err = c
        .load_from(
            &g,
            &LoadOptions {
                workers: 1,
                progress: Some(&die),
                ..LoadOptions::default()
            },
        )
        .unwrap_err();
    assert!(matches!(err, ClusterError::State(_)), "{err}");
    assert!(c.status().unwrap().iter().all(|p| p.generation == first.generation));
    c.clear_cache();
    assert!(
        c.node(&"n2".into()).unwrap().is_some(),
        "the old graph is still the live one"
    );
    // The next load cleans up after the dead one and goes live.
    let third = c.load_from(&g, &LoadOptions::default()).unwrap();
    assert!(third.generation > first.generation);
    assert_same_graph(&g, &c);
    let files = cold_files(cold.path());
    assert_eq!(files.len(), 32, "the dead load's files were removed: {files:?}");
}

#[test]
fn partitions_are_a_fixed_function_of_the_key() {
    // These values are the on-disk contract (XXH3-64 of the key's stored encoding): if they
    // change, every existing cluster's nodes are looked for in the wrong partition.
    let pinned: Vec<u32> = [NodeKey::Int(0), NodeKey::Int(-7), "alice".into(), "chunk-42".into()]
        .iter()
        .map(|k| partition_of(k, 1024))
        .collect();
    assert_eq!(pinned, PINNED);
    // Spread: 200,000 string keys over 1,024 partitions, each within 25% of the mean.
    let mut counts = vec![0u32; 1024];
    for i in 0..200_000 {
        counts[partition_of(&NodeKey::Str(format!("entity-{i}")), 1024) as usize] += 1;
    }
    let mean = 200_000.0 / 1024.0;
    let (lo, hi) = (
        *counts.iter().min().unwrap() as f64,
        *counts.iter().max().unwrap() as f64,
    );
    assert!(
        lo > mean * 0.75 && hi < mean * 1.25,
        "partition sizes {lo}..{hi}, mean {mean}"
    );
}

const PINNED: [u32; 4] = [89, 843, 957, 333];

#[test]
fn bad_configuration_and_an_uninitialised_cluster_say_what_is_wrong() {
    let e = ClusterConfig::parse("[cold]\nurl = \"s4://x\"\n[metadata]\npostgres = \"\"")
        .unwrap_err()
        .to_string();
    assert!(e.contains("cold.url") && e.contains("file:///"), "{e}");
    let e = ClusterConfig::parse("partitions = 0\n[cold]\nurl = \"memory:\"\n[metadata]\npostgres = \"\"")
        .unwrap_err()
        .to_string();
    assert!(e.contains("partitions = 0"), "{e}");
    let e = ClusterConfig::parse("[cold]\nurl = \"file://relative\"\n[metadata]\npostgres = \"\"")
        .unwrap_err()
        .to_string();
    assert!(e.contains("absolute"), "{e}");
    let e = ClusterConfig::parse("[cold]\nurl = \"memory:\"\n[metadata]\npostgres = \"\"\nextra = 1")
        .unwrap_err()
        .to_string();
    assert!(e.contains("extra"), "{e}");
    let e = ClusterConfig::parse("[cold]\nurl = \"s3:///x\"\n[metadata]\npostgres = \"\"")
        .unwrap_err()
        .to_string();
    assert!(e.contains("no bucket"), "{e}");
    let e = ClusterConfig::parse("[cold]\nurl = \"memory:\"")
        .unwrap_err()
        .to_string();
    assert!(e.contains("metadata"), "{e}");

    let Some(pg) = server() else { return };
    let cold = tempfile::tempdir().unwrap();
    let cfg = config(&pg.create_database("uninit").unwrap(), cold.path(), 8);
    let e = Cluster::open(cfg.clone()).err().unwrap().to_string();
    assert!(e.contains("not initialised") && e.contains("hopdb cluster init"), "{e}");
    assert!(Cluster::init(&cfg).unwrap());
    let other = config(
        &format!("host=127.0.0.1 port={} user=hopdb dbname=uninit", pg.port),
        cold.path(),
        9,
    );
    let e = Cluster::init(&other).unwrap_err().to_string();
    assert!(e.contains("already initialised") && e.contains("9 partitions"), "{e}");
    let e = Cluster::open(config("host=127.0.0.1 port=1 user=hopdb dbname=x", cold.path(), 8))
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("PostgreSQL") && e.contains("connecting"), "{e}");
}

#[test]
fn the_cold_tier_on_an_s3_compatible_server() {
    let Some(pg) = server() else { return };
    let s3 = match hopdb_testdata::s3::PrivateS3::start("hopdb-cold") {
        Ok(s) => s,
        Err(why) => return eprintln!("SKIPPED: {why}"),
    };
    let conn = pg.create_database("s3").unwrap();
    let cfg = ClusterConfig::parse(&format!(
        "partitions = 16\n[cold]\nurl = \"s3://hopdb-cold/graphs/kg\"\nendpoint = \"{}\"\nregion = \"us-east-1\"\n\
         allow_http = true\naccess_key_id = \"test\"\nsecret_access_key = \"test\"\n[metadata]\npostgres = \"{conn}\"\n",
        s3.endpoint()
    ))
    .unwrap();
    assert!(Cluster::init(&cfg).unwrap());
    let c = Cluster::open(cfg.clone()).unwrap();
    let g = shapes();
    let first = load(&c, &g, 2);
    assert_same_graph(&g, &c);
    assert_counts(&g, &c);
    // A second query node reads the same objects.
    let other = Cluster::open(cfg).unwrap();
    assert_same_graph(&g, &other);

    let mut w = g.write().unwrap();
    w.delete_node("n7").unwrap();
    w.commit().unwrap();
    let second = load(&c, &g, 2);
    other.refresh().unwrap();
    assert_same_graph(&g, &other);
    // Under the prefix, only the live generation's two files per partition.
    let keys = s3.keys("hopdb-cold").unwrap();
    assert_eq!(keys.len(), 32, "{keys:?}");
    let live = format!("/g{:08}/", second.generation);
    assert!(
        keys.iter().all(|k| k.starts_with("graphs/kg/p") && k.contains(&live)),
        "{keys:?}"
    );
    assert!(second.generation > first.generation);
}

#[test]
fn snapshot_and_restore_bring_back_the_whole_graph() {
    let Some(pg) = server() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let g = shapes();
    let a = new_cluster(&pg, "snap_a", &tmp.path().join("cold_a"), 7);
    load(&a, &g, 2);
    let snap = format!("file://{}", tmp.path().join("snap").display());
    let report = a.snapshot(&snap, 4).unwrap();
    assert_eq!(
        (report.partitions, report.nodes, report.edges),
        (7, 40, g.edge_count().unwrap())
    );
    assert!(report.bytes > 0 && report.bytes_per_second_per_worker() > 0.0);
    assert!(tmp.path().join("snap/manifest.json").is_file());

    // Into a fresh cluster with the same partition count: the same graph, every answer.
    let b = new_cluster(&pg, "snap_b", &tmp.path().join("cold_b"), 7);
    let restored = b.restore(&snap, 4).unwrap();
    assert_eq!((restored.nodes, restored.bytes), (40, report.bytes));
    assert_eq!(assert_same_graph(&g, &b), 40);
    assert_counts(&g, &b);
    assert_eq!(b.edge_types().unwrap(), a.edge_types().unwrap());

    // Over a changed graph: the snapshot's state comes back and the replaced files go.
    let changed = shapes();
    let mut w = changed.write().unwrap();
    w.delete_node("n2").unwrap();
    w.commit().unwrap();
    load(&a, &changed, 2);
    assert_eq!(a.node(&"n2".into()).unwrap(), None);
    a.restore(&snap, 2).unwrap();
    assert_eq!(assert_same_graph(&g, &a), 40);
    assert_eq!(cold_files(&tmp.path().join("cold_a")).len(), 14, "one generation left");

    // Refused: another partition count, a damaged snapshot, no snapshot at all; the live
    // graph stays as it was each time.
    let c = new_cluster(&pg, "snap_c", &tmp.path().join("cold_c"), 8);
    let e = c.restore(&snap, 2).unwrap_err().to_string();
    assert!(e.contains("7 partitions, this cluster 8"), "{e}");
    let victim = tmp.path().join("snap/p0003/edges.parquet");
    let bytes = std::fs::read(&victim).unwrap();
    std::fs::write(&victim, &bytes[..bytes.len() / 2]).unwrap();
    let e = b.restore(&snap, 2).unwrap_err().to_string();
    assert!(e.contains("p0003") && e.contains("the manifest says"), "{e}");
    assert_eq!(assert_same_graph(&g, &b), 40);
    let e = b
        .restore(&format!("file://{}", tmp.path().join("nothing").display()), 2)
        .unwrap_err()
        .to_string();
    assert!(e.contains("manifest.json"), "{e}");
    assert_eq!(assert_same_graph(&g, &b), 40);
}

#[test]
fn a_postgresql_restart_is_survived() {
    let Some(pg) = server() else { return };
    let cold = tempfile::tempdir().unwrap();
    let g = shapes();
    let c = new_cluster(&pg, "pg_restart", cold.path(), 7);
    load(&c, &g, 2);
    c.clear_cache();
    pg.restart().unwrap();
    // Reads need no metadata; the next metadata calls connect again by themselves.
    assert_eq!(assert_same_graph(&g, &c), 40);
    std::thread::sleep(std::time::Duration::from_millis(1100));
    assert_eq!(c.status().unwrap().len(), 7);
    c.refresh().unwrap();
    c.flush_access().unwrap();
    pg.restart().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1100));
    load(&c, &g, 2);
    assert_eq!(assert_same_graph(&g, &c), 40);
}

#[test]
fn object_store_faults_are_clean_errors_and_reads_resume() {
    use hopdb_testdata::proxy::{Fault, FaultProxy};
    let Some(pg) = server() else { return };
    let s3 = match hopdb_testdata::s3::PrivateS3::start("hopdb-faults") {
        Ok(s) => s,
        Err(why) => return eprintln!("SKIPPED: {why}"),
    };
    // The cluster reaches the S3 server through a proxy that drops or stalls its traffic.
    let proxy = FaultProxy::start(s3.port).unwrap();
    let cfg = ClusterConfig::parse(&format!(
        "partitions = 8\n[cold]\nurl = \"s3://hopdb-faults/kg\"\nendpoint = \"http://127.0.0.1:{}\"\n\
         region = \"us-east-1\"\nallow_http = true\naccess_key_id = \"test\"\nsecret_access_key = \"test\"\n\
         timeout_ms = 500\nretries = 1\n[metadata]\npostgres = \"{}\"\n[cache]\nmemory_mb = 0\n",
        proxy.port,
        pg.create_database("faults").unwrap()
    ))
    .unwrap();
    assert!(Cluster::init(&cfg).unwrap());
    let c = Cluster::open(cfg).unwrap();
    let g = shapes();
    load(&c, &g, 2);
    assert_same_graph(&g, &c);

    for fault in [Fault::Reset, Fault::Stall] {
        proxy.set(fault);
        let started = std::time::Instant::now();
        let e = c.node(&"n5".into()).unwrap_err();
        assert!(
            matches!(e, ClusterError::ObjectStore { .. }) && e.to_string().contains("reading p"),
            "{fault:?}: {e}"
        );
        assert!(
            started.elapsed() < std::time::Duration::from_secs(10),
            "{fault:?}: the error took {:?}",
            started.elapsed()
        );
        // A load that cannot write fails and leaves the live graph as it was.
        let changed = shapes();
        let mut w = changed.write().unwrap();
        w.delete_node("n2").unwrap();
        w.commit().unwrap();
        assert!(c.load_from(&changed, &LoadOptions::default()).is_err(), "{fault:?}");
        proxy.set(Fault::Pass);
        assert_same_graph(&g, &c);
    }
}

#[test]
fn metadata_of_format_2_is_upgraded_on_opening_and_a_newer_one_refused() {
    let Some(pg) = server() else { return };
    let cold = tempfile::tempdir().unwrap();
    let g = shapes();
    let conn = pg.create_database("upgrade").unwrap();
    let cfg = config(&conn, cold.path(), 7);
    assert!(Cluster::init(&cfg).unwrap());
    load(&Cluster::open(cfg.clone()).unwrap(), &g, 2);
    // What a cluster made before hot-tier buckets holds: format 2, without their columns.
    let mut client = postgres::Client::connect(&conn, postgres::NoTls).unwrap();
    let format = |client: &mut postgres::Client| -> String {
        client
            .query_one("SELECT value FROM hopdb_cluster WHERE key = 'format'", &[])
            .unwrap()
            .get(0)
    };
    client
        .batch_execute(
            "ALTER TABLE partition_metadata DROP COLUMN hot_buckets, DROP COLUMN hot_keys; \
             UPDATE hopdb_cluster SET value = '2' WHERE key = 'format'",
        )
        .unwrap();
    let c = Cluster::open(cfg.clone()).unwrap();
    assert_eq!(format(&mut client), "3");
    assert_eq!(assert_same_graph(&g, &c), 40);
    assert!(c
        .status()
        .unwrap()
        .iter()
        .all(|s| s.hot_keys == 0 && s.hot_buckets == 0));
    assert!(
        !Cluster::init(&cfg).unwrap(),
        "init of an upgraded cluster changes nothing"
    );
    // `init` upgrades too.
    client
        .batch_execute(
            "ALTER TABLE partition_metadata DROP COLUMN hot_buckets, DROP COLUMN hot_keys; \
             UPDATE hopdb_cluster SET value = '2' WHERE key = 'format'",
        )
        .unwrap();
    assert!(!Cluster::init(&cfg).unwrap());
    assert_eq!(format(&mut client), "3");
    assert_eq!(assert_same_graph(&g, &Cluster::open(cfg.clone()).unwrap()), 40);
    // A format this version does not know is refused, naming it.
    client
        .batch_execute("UPDATE hopdb_cluster SET value = '9' WHERE key = 'format'")
        .unwrap();
    let e = Cluster::open(cfg).err().unwrap().to_string();
    assert!(e.contains("metadata format 9"), "{e}");
}
