//! Writes on a cluster (the delta in PostgreSQL, compaction into new generations) against the
//! embedded store given the same writes: after every batch, every node, edge list, degree and
//! neighbourhood must be what the store answers, before and after compactions, on the query
//! node that wrote and on another one, and while compactions race the writes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;

use hopdb_cluster::{Cluster, ClusterError, Mutation};
use hopdb_core::{props, Direction, Graph, GraphRead, NodeKey, Props, Value, WriteMode};
use hopdb_testdata::sampling::Rng;

mod common;
use common::*;

fn conn_to(pg: &hopdb_testdata::postgres::PrivateServer, db: &str) -> String {
    pg.conn().replace("dbname=postgres", &format!("dbname={db}"))
}

/// The key of node `i` of the test key space (integers and strings, as `shapes` has them).
fn key(i: usize) -> NodeKey {
    if i.is_multiple_of(3) {
        NodeKey::Int(i as i64)
    } else {
        NodeKey::Str(format!("n{i}"))
    }
}

/// A random mutation over keys 0..`keys` (the shapes graph's 40 and new ones) and the edge
/// types NEXT (directed), KNOWS (undirected), NEW (created by the cluster's first write of it)
/// and PAID (multi-edge: parallel edges added, updated and deleted by id; the ids of those
/// `g` has now).
fn random_mutation(r: &mut Rng, keys: usize, g: &Graph) -> Mutation {
    // Half the time from a few keys, so later writes find the nodes and edges of earlier ones
    // (merges, replaces and deletes of what exists); else the whole key space (creates).
    let pool = if r.below(2) == 0 { 8 } else { keys };
    let a = r.below(pool);
    let b = match r.below(3) {
        0 => a + 1, // the shapes graph's NEXT edges
        _ => r.below(pool),
    };
    let (a, b) = (key(a), key(b));
    let mode = if r.below(3) == 0 {
        WriteMode::Replace
    } else {
        WriteMode::Merge
    };
    let some_props = |r: &mut Rng| -> Props {
        let mut p = Props::new();
        for name in ["i", "name", "extra"] {
            if r.below(2) == 0 {
                p.insert(name.into(), Value::Int(r.below(1000) as i64));
            }
        }
        if r.below(4) == 0 {
            p.insert("name".into(), Value::Str(format!("renamed ✓ {}", r.below(9))));
        }
        p
    };
    let ty = ["NEXT", "KNOWS", "NEW", "PAID"][r.below(4)].to_string();
    let weight = |r: &mut Rng| {
        if r.below(3) == 0 {
            None
        } else {
            Some(r.below(100) as f64 / 8.0)
        }
    };
    match r.below(13) {
        10 => Mutation::AddEdge {
            src: a,
            ty: "PAID".into(),
            dst: b,
            id: 0, // the store's, once `apply` added it
            weight: weight(r),
            props: some_props(r),
        },
        11 | 12 => {
            let paid = g
                .read()
                .edges(&a, Direction::Out, Some("PAID"), None)
                .unwrap_or_default();
            match paid.get(r.below(paid.len().max(1))) {
                Some(e) if r.below(2) == 0 => Mutation::UpdateEdgeById {
                    src: e.src.clone(),
                    ty: "PAID".into(),
                    dst: e.dst.clone(),
                    id: e.id,
                    weight: weight(r),
                    props: some_props(r),
                    mode,
                },
                Some(e) => Mutation::DeleteEdgeById {
                    src: e.src.clone(),
                    ty: "PAID".into(),
                    dst: e.dst.clone(),
                    id: e.id,
                },
                None => Mutation::DeleteNode { key: b },
            }
        }
        0..=2 => Mutation::UpsertNode {
            key: a,
            labels: [["Even"], ["Odd"], ["New"]][r.below(3)]
                .iter()
                .chain(if r.below(2) == 0 { &["Node"][..] } else { &[][..] })
                .map(|l| l.to_string())
                .collect(),
            props: some_props(r),
            mode,
        },
        3..=6 => Mutation::UpsertEdge {
            src: a,
            ty: if ty == "PAID" { "NEXT".into() } else { ty },
            dst: b,
            weight: weight(r),
            props: some_props(r),
            mode,
        },
        7 => Mutation::DeleteNode { key: a },
        _ => Mutation::DeleteEdge { src: a, ty, dst: b },
    }
}

/// Applies a mutation to the embedded store, as the cluster documents it; an added edge
/// takes the id the store gave it, so the cluster's is the same.
fn apply(g: &Graph, m: &mut Mutation) {
    let mut w = g.write().unwrap();
    match m {
        Mutation::AddEdge {
            src,
            ty,
            dst,
            id,
            weight,
            props,
        } => {
            hopdb_cluster::declare_multi(&mut w, ty).unwrap();
            *id = w
                .add_edge(src.clone(), ty, dst.clone(), *weight, props.clone())
                .unwrap()
        }
        _ => m.apply_to(&mut w).unwrap(),
    }
    w.commit().unwrap();
}

/// `n` random mutations, each made against the store as the ones before it left it and
/// applied to it: the batch to write to the cluster.
fn stored_batch(r: &mut Rng, keys: usize, g: &Graph, n: usize) -> Vec<Mutation> {
    (0..n)
        .map(|_| {
            let mut m = random_mutation(r, keys, g);
            apply(g, &mut m);
            m
        })
        .collect()
}

/// Every node of the store as the cluster answers it, and no node the store lacks among the
/// keys 0..`keys`.
fn assert_same(g: &Graph, c: &Cluster, keys: usize) {
    assert_same_graph(g, c);
    let all: Vec<NodeKey> = (0..keys).map(key).collect();
    let want: Vec<bool> = all.iter().map(|k| g.has_node(k).unwrap()).collect();
    let got: Vec<bool> = c.nodes_batch(&all).unwrap().iter().map(Option::is_some).collect();
    assert_eq!(got, want, "which keys are nodes");
    let seeds: Vec<NodeKey> = [key(0), key(1), key(5)]
        .into_iter()
        .filter(|k| g.has_node(k).unwrap())
        .collect();
    for dir in [Direction::Out, Direction::Both] {
        assert_same_k_hop(g, c, &seeds, 3, dir);
    }
}

#[test]
fn random_writes_read_as_the_store_answers_them_through_compactions() {
    let Some(pg) = server() else { return };
    let cold = tempfile::tempdir().unwrap();
    let g = shapes();
    // Row groups of 3 rows, so generations have several and point reads of partitions not
    // cached fetch some of them, with the pending writes merged in.
    let mut cfg = config(&pg.create_database("writes").unwrap(), cold.path(), 7);
    cfg.cold.row_group_rows = 3;
    Cluster::init(&cfg).unwrap();
    let c = Cluster::open(cfg.clone()).unwrap();
    load(&c, &g, 2);
    // Another query node, re-reading the metadata before every read.
    cfg.metadata.refresh_ms = 0;
    let other = Cluster::open(cfg.clone()).unwrap();
    // And one without a partition cache: every read it makes is a ranged read.
    cfg.cache.memory_mb = 0;
    let uncached = Cluster::open(cfg).unwrap();

    let keys = 60;
    let mut r = Rng(24);
    let mut by_kind = std::collections::BTreeMap::new();
    for round in 0..12 {
        let n = 1 + r.below(12);
        let batch = stored_batch(&mut r, keys, &g, n);
        for m in &batch {
            let kind = format!("{m:?}");
            *by_kind
                .entry(kind.split([' ', '{']).next().unwrap().to_string())
                .or_insert(0) += 1;
        }
        c.write(&batch).unwrap();
        assert_same(&g, &c, keys);
        // Another query node that re-reads the metadata before every read sees it too.
        assert_same(&g, &other, keys);
        assert_same(&g, &uncached, keys);
        match round {
            3 => {
                let report = c.compact(Some(&[0, 3])).unwrap();
                assert!(report.partitions <= 2, "{report:?}");
            }
            7 => {
                other.compact(None).unwrap();
            }
            _ => {}
        }
        assert_same(&g, &c, keys);
        assert_same(&g, &other, keys);
    }
    // Every kind of mutation was written.
    assert_eq!(by_kind.len(), 7, "{by_kind:?}");
    // The other query node re-read partitions the writer changed from their cached arrays,
    // merging only the pending writes again.
    assert!(other.cache_stats().reused > 0, "{:?}", other.cache_stats());
    let ranged = uncached.cache_stats();
    assert!(ranged.ranged > 0 && ranged.partitions == 0, "{ranged:?}");
    let report = c.compact(None).unwrap();
    assert_eq!(report.conflicts, 0);
    let status = c.status().unwrap();
    assert!(status.iter().all(|s| s.delta_ops == 0), "{status:?}");
    // Compacted, every partition's counts are the store's again.
    assert_counts(&g, &c);
    assert_same(&g, &c, keys);
    c.clear_cache();
    assert_same(&g, &c, keys);
    // Compactions removed every replaced generation: one per partition is left.
    let mut generations = BTreeSet::new();
    for p in std::fs::read_dir(cold.path()).unwrap().flatten() {
        for gdir in std::fs::read_dir(p.path()).unwrap().flatten() {
            generations.insert((p.file_name(), gdir.file_name()));
        }
    }
    assert_eq!(generations.len(), 7, "{generations:?}");
}

#[test]
fn a_refused_batch_changes_nothing() {
    let Some(pg) = server() else { return };
    let cold = tempfile::tempdir().unwrap();
    let g = shapes();
    let c = new_cluster(&pg, "refused", cold.path(), 5);
    load(&c, &g, 2);
    let good = Mutation::node("n1", &["Changed"], props([("i", Value::Int(-1))]));
    let bad: Vec<(Mutation, &str)> = vec![
        (Mutation::node("", &[], Props::new()), "empty"),
        (
            Mutation::edge("n1", "NEXT", "n2", Some(f64::NAN), Props::new()),
            "finite",
        ),
        (Mutation::node("n1", &[""], Props::new()), "label"),
        (Mutation::edge("n1", "PAID", "n2", None, Props::new()), "parallel edges"),
        (
            Mutation::AddEdge {
                src: "n1".into(),
                ty: "NEXT".into(),
                dst: "n2".into(),
                id: 7,
                weight: None,
                props: Props::new(),
            },
            "simple",
        ),
        (
            Mutation::UpdateEdgeById {
                src: "n1".into(),
                ty: "PAID".into(),
                dst: "n2".into(),
                id: 1 << 60,
                weight: None,
                props: Props::new(),
                mode: WriteMode::Merge,
            },
            "not an edge",
        ),
    ];
    for (m, why) in bad {
        let e = c.write(&[good.clone(), m.clone()]).unwrap_err();
        match &e {
            ClusterError::Write { at: 1, why: w } => assert!(w.contains(why), "{e} for {m:?}"),
            other => panic!("{other} for {m:?}"),
        }
        assert_same(&g, &c, 40);
    }
    assert!(c.status().unwrap().iter().all(|s| s.delta_ops == 0));
    // Deleting what is absent writes nothing.
    let r = c
        .write(&[
            Mutation::DeleteNode { key: "absent".into() },
            Mutation::DeleteEdge {
                src: "n1".into(),
                ty: "NO_SUCH_TYPE".into(),
                dst: "n2".into(),
            },
        ])
        .unwrap();
    assert_eq!((r.seq, r.operations), (0, 0));
}

#[test]
fn a_cluster_never_loaded_is_written_from_empty() {
    let Some(pg) = server() else { return };
    let cold = tempfile::tempdir().unwrap();
    let c = new_cluster(&pg, "empty", cold.path(), 4);
    let g = Graph::in_memory();
    let keys = 30;
    let mut r = Rng(7);
    for _ in 0..6 {
        let batch = stored_batch(&mut r, keys, &g, 10);
        c.write(&batch).unwrap();
    }
    assert_same(&g, &c, keys);
    c.compact(None).unwrap();
    c.clear_cache();
    assert_same(&g, &c, keys);
    assert_counts(&g, &c);
}

#[test]
fn compactions_racing_writes_lose_nothing() {
    let Some(pg) = server() else { return };
    let cold = tempfile::tempdir().unwrap();
    let g = shapes();
    let c = new_cluster(&pg, "race", cold.path(), 3);
    load(&c, &g, 2);
    let cfg = config(&conn_to(&pg, "race"), cold.path(), 3);
    let stop = std::sync::atomic::AtomicBool::new(false);
    let keys = 50;
    std::thread::scope(|s| {
        // Another query node compacts all the time.
        let compactor = s.spawn(|| {
            let other = Cluster::open(cfg.clone()).unwrap();
            let mut runs = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                other.compact(None).unwrap();
                runs += 1;
            }
            runs
        });
        let mut r = Rng(99);
        for _ in 0..40 {
            let n = 1 + r.below(6);
            let batch = stored_batch(&mut r, keys, &g, n);
            c.write(&batch).unwrap();
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        assert!(compactor.join().unwrap() > 0);
    });
    assert_same(&g, &c, keys);
    c.clear_cache();
    c.refresh().unwrap();
    assert_same(&g, &c, keys);
    c.compact(None).unwrap();
    assert_counts(&g, &c);
}

#[test]
fn acknowledged_writes_survive_a_postgresql_crash() {
    let Some(pg) = server() else { return };
    let cold = tempfile::tempdir().unwrap();
    let g = shapes();
    let c = new_cluster(&pg, "pg_crash", cold.path(), 5);
    load(&c, &g, 2);
    let keys = 50;
    let mut r = Rng(5);
    for _ in 0..10 {
        let n = 1 + r.below(5);
        c.write(&stored_batch(&mut r, keys, &g, n)).unwrap();
    }
    // An immediate restart is a crash: only the WAL brings the commits back.
    pg.restart().unwrap();
    c.clear_cache();
    for _ in 0..10 {
        let n = 1 + r.below(5);
        let b = stored_batch(&mut r, keys, &g, n);
        // The first write after the crash may find its connection cut: a clean error,
        // nothing applied; the next connects again.
        let mut tries = 0;
        loop {
            match c.write(&b) {
                Ok(_) => break,
                Err(e @ ClusterError::Metadata { .. }) if tries < 3 => {
                    tries += 1;
                    eprintln!("retrying after: {e}");
                    std::thread::sleep(std::time::Duration::from_millis(200));
                }
                Err(e) => panic!("{e}"),
            }
        }
    }
    assert_same(&g, &c, keys);
    c.compact(None).unwrap();
    assert_same(&g, &c, keys);
}

#[test]
fn another_query_node_sees_a_write_within_its_refresh_interval() {
    let Some(pg) = server() else { return };
    let cold = tempfile::tempdir().unwrap();
    let g = shapes();
    let c = new_cluster(&pg, "refresh", cold.path(), 5);
    load(&c, &g, 2);
    // The default refresh_ms (100): a background thread re-reads the view.
    let other = Cluster::open(config(&conn_to(&pg, "refresh"), cold.path(), 5)).unwrap();
    let key = NodeKey::from("written elsewhere");
    assert_eq!(other.node(&key).unwrap(), None);
    c.write(&[Mutation::node(key.clone(), &["New"], Props::new())]).unwrap();
    assert!(c.node(&key).unwrap().is_some(), "the writer reads its write at once");
    let started = std::time::Instant::now();
    while other.node(&key).unwrap().is_none() {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(5),
            "not seen after 5 s"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    // Seen within a few refresh intervals, never taken back.
    assert!(
        started.elapsed() < std::time::Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    for _ in 0..20 {
        assert!(other.node(&key).unwrap().is_some());
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

#[test]
fn a_write_compacts_the_partitions_it_leaves_over_the_threshold() {
    let Some(pg) = server() else { return };
    let cold = tempfile::tempdir().unwrap();
    let g = shapes();
    let c = new_cluster_with(
        &pg,
        "auto_compact",
        cold.path(),
        3,
        "[cache]\nmemory_mb = 64\n[writes]\ncompact_after_ops = 25\n",
    );
    load(&c, &g, 2);
    let keys = 50;
    let mut r = Rng(31);
    let mut compacted = 0;
    for _ in 0..30 {
        let n = 1 + r.below(6);
        let batch = stored_batch(&mut r, keys, &g, n);
        compacted += c.write(&batch).unwrap().compacted;
        // No partition is left at the threshold or over it.
        assert!(c.status().unwrap().iter().all(|s| s.delta_ops < 25));
    }
    assert!(compacted > 0, "30 batches over 3 partitions cross 25 operations");
    assert_same(&g, &c, keys);
    c.clear_cache();
    assert_same(&g, &c, keys);
}
