//! The write cases (`--writes`, BENCHMARKS.md 11d): one-mutation writes and batches of 100
//! through the delta in PostgreSQL against the same writes on an embedded RocksDB store;
//! 1-hop reads of partitions with pending writes (merged on reading) against the same reads
//! once compacted; compaction throughput. Every cluster answer is checked against the
//! embedded store the cluster was loaded from, with the writes applied.

use std::time::Instant;

use hopdb_cluster::{Cluster, Mutation};
use hopdb_core::{props, Direction, Graph, GraphRead, NodeKey, Value};
use hopdb_testdata::sampling::Rng;

use crate::summary;

/// A write of the bench: a property merged into an existing node, or an edge between two.
fn mutation(r: &mut Rng, keys: &[NodeKey], i: usize) -> Mutation {
    let a = keys[r.below(keys.len())].clone();
    if i.is_multiple_of(2) {
        Mutation::node(a, &[], props([("bench_write", Value::Int(i as i64))]))
    } else {
        let b = keys[r.below(keys.len())].clone();
        Mutation::edge(a, "BENCH", b, Some(1.0), props([("i", Value::Int(i as i64))]))
    }
}

fn apply(g: &Graph, batch: &[Mutation]) {
    let mut w = g.write().unwrap();
    for m in batch {
        m.apply_to(&mut w).unwrap();
    }
    w.commit().unwrap();
}

pub fn run(c: &Cluster, store: &Graph, keys: &[NodeKey], queries: usize) -> Vec<serde_json::Value> {
    let mut results = Vec::new();
    // The peer: a copy of the store (a checkpoint in a temporary directory), written with the
    // same batches; it is also what the cluster's answers are checked against.
    let copy = tempfile::tempdir_in("/var/tmp").unwrap();
    let peer_dir = copy.path().join("store");
    store.checkpoint(&peer_dir).unwrap();
    let peer = Graph::open(&peer_dir).unwrap();
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);

    for (size, n) in [(1usize, queries), (100, (queries / 10).max(20))] {
        let (mut cluster_ms, mut peer_ms) = (Vec::new(), Vec::new());
        let mut written = 0usize;
        let started = Instant::now();
        for b in 0..n {
            let batch: Vec<Mutation> = (0..size).map(|i| mutation(&mut rng, keys, b * size + i)).collect();
            let t = Instant::now();
            c.write(&batch).unwrap();
            cluster_ms.push(t.elapsed().as_secs_f64() * 1e3);
            let t = Instant::now();
            apply(&peer, &batch);
            peer_ms.push(t.elapsed().as_secs_f64() * 1e3);
            written += size;
        }
        let wall = started.elapsed().as_secs_f64();
        let per_s = |ms: &[f64]| written as f64 / (ms.iter().sum::<f64>() / 1e3);
        let (cr, pr) = (per_s(&cluster_ms), per_s(&peer_ms));
        results.push(summary(
            &format!("write, batch {size}, cluster"),
            cluster_ms,
            serde_json::json!({"mutations_per_s": cr, "wall_s": wall}),
        ));
        results.push(summary(
            &format!("write, batch {size}, embedded store"),
            peer_ms,
            serde_json::json!({"mutations_per_s": pr}),
        ));
    }
    let status = c.status().unwrap();
    let pending: Vec<_> = status.iter().filter(|s| s.delta_ops > 0).collect();
    let ops: u64 = pending.iter().map(|s| s.delta_ops).sum();
    println!("pending: {ops} operations in {} partitions", pending.len());

    // 1-hop reads with every partition read from the cold tier (cache cleared): first with
    // the writes pending (merged on reading), then compacted.
    let seeds: Vec<NodeKey> = (0..queries / 2).map(|_| keys[rng.below(keys.len())].clone()).collect();
    let one_hop = |case: &str| {
        let mut ms = Vec::new();
        for s in &seeds {
            c.clear_cache();
            let t = Instant::now();
            let got = c
                .neighbors_batch(std::slice::from_ref(s), Direction::Both, None)
                .unwrap();
            ms.push(t.elapsed().as_secs_f64() * 1e3);
            let want = peer.neighbors(s, Direction::Both, None, None).unwrap();
            let mut got = got.into_iter().next().flatten().unwrap();
            let mut want = want;
            got.sort();
            want.sort();
            assert_eq!(got, want, "1-hop from {s}");
        }
        summary(case, ms, serde_json::json!({"pending_partitions": pending.len()}))
    };
    results.push(one_hop("1-hop, cold tier, writes pending"));
    let r = c.compact(None).unwrap();
    println!(
        "compaction: {} partitions, {} operations folded, {} nodes, {:.1} MB in {:.2} s",
        r.partitions,
        r.operations,
        r.nodes,
        r.bytes as f64 / 1e6,
        r.seconds
    );
    results.push(serde_json::json!({"case": "compaction", "partitions": r.partitions, "operations": r.operations,
        "nodes": r.nodes, "bytes": r.bytes, "seconds": r.seconds,
        "partitions_per_s": r.partitions as f64 / r.seconds.max(1e-9), "nodes_per_s": r.nodes as f64 / r.seconds.max(1e-9)}));
    results.push(one_hop("1-hop, cold tier, compacted"));
    // The whole graph once more after compaction: nodes of a sample, as the peer has them.
    for k in seeds.iter().take(200) {
        let want = peer.node(k).unwrap();
        let got = c.node(k).unwrap();
        assert_eq!(
            want.map(|n| format!("{:?}", n.props)),
            got.map(|n| format!("{:?}", n.props)),
            "{k}"
        );
    }
    results
}
