//! What the edge benchmarks (`core_ops`, `adjacency_layout`) share: the edge type and weights
//! they load, the out-degree buckets and the nodes timed in each, the pairs an edge test
//! asks about, and SQLite's two edge queries.

use hopdb_core::{EdgeInput, Graph, NodeInput, Value, WriteMode};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rusqlite::{params, Connection};
use std::collections::HashMap;

pub const TY: &str = "LINK";

/// Runs `bench(c, name, file under the datasets, count header line)` on each graph both
/// benchmarks use.
pub fn each_graph(c: &mut criterion::Criterion, bench: fn(&mut criterion::Criterion, &str, &str, bool)) {
    bench(c, "notredame", "snap-web-NotreDame/web-NotreDame.txt.gz", true);
    bench(c, "slashdot", "snap-soc-Slashdot0902/soc-Slashdot0902.txt.gz", false);
}

/// 20 samples of 3 s after 1 s of warm-up.
pub fn config() -> criterion::Criterion {
    criterion::Criterion::default()
        .sample_size(20)
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(3))
}

pub fn weight(a: i64, b: i64) -> f64 {
    ((a * 31 + b).rem_euclid(100)) as f64 / 10.0
}

/// A durable store loaded through the write path in batches of 5,000: every node with a
/// `name` property, then every edge of type `TY` with its weight, then flushed.
pub fn load_hopdb(nodes: &[i64], edges: &[(i64, i64)]) -> (Graph, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("tempdir");
    let g = Graph::open(dir.path()).expect("open");
    for c in nodes.chunks(5000) {
        let batch: Vec<NodeInput> = c
            .iter()
            .map(|&n| NodeInput::new(n).props(hopdb_core::props([("name", Value::from(format!("n{n}")))])))
            .collect();
        g.upsert_nodes(&batch, WriteMode::Replace).expect("nodes");
    }
    for c in edges.chunks(5000) {
        let batch: Vec<EdgeInput> = c
            .iter()
            .map(|&(a, b)| EdgeInput::new(a, TY, b).weight(weight(a, b)))
            .collect();
        g.upsert_edges(&batch, WriteMode::Replace).expect("edges");
    }
    g.flush().expect("flush");
    (g, dir)
}

pub const BUCKETS: [(&str, usize, usize); 4] = [
    ("deg_1-10", 1, 10),
    ("deg_11-100", 11, 100),
    ("deg_101-1000", 101, 1000),
    ("deg_hubs_1001+", 1001, usize::MAX),
];

/// 64 random nodes (with repeats) whose out-degree is in `lo..=hi`, the same on every run.
pub fn bucket_members(outdeg: &HashMap<i64, usize>, lo: usize, hi: usize) -> Vec<i64> {
    let mut v: Vec<i64> = outdeg
        .iter()
        .filter(|(_, d)| (lo..=hi).contains(*d))
        .map(|(n, _)| *n)
        .collect();
    v.sort_unstable();
    let mut r = ChaCha8Rng::seed_from_u64(lo as u64);
    (0..v.len().min(64)).map(|_| v[r.random_range(0..v.len())]).collect()
}

/// 4,096 pairs: half existing edges, half random pairs of nodes (mostly absent).
pub fn edge_test_pairs(rng: &mut ChaCha8Rng, nodes: &[i64], edges: &[(i64, i64)]) -> Vec<(i64, i64)> {
    (0..4096)
        .map(|i| {
            if i % 2 == 0 {
                edges[rng.random_range(0..edges.len())]
            } else {
                (
                    nodes[rng.random_range(0..nodes.len())],
                    nodes[rng.random_range(0..nodes.len())],
                )
            }
        })
        .collect()
}

pub fn sql_has_edge(c: &Connection, a: i64, b: i64) -> bool {
    let mut s = c
        .prepare_cached("SELECT 1 FROM edges WHERE src = ?1 AND dst = ?2")
        .expect("prep");
    s.exists(params![a, b]).expect("query")
}

pub fn sql_edges(c: &Connection, a: i64) -> usize {
    let mut s = c
        .prepare_cached("SELECT dst, weight FROM edges WHERE src = ?1")
        .expect("prep");
    let rows = s
        .query_map(params![a], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, Option<f64>>(1)?)))
        .expect("query");
    rows.map(|r| r.expect("row")).collect::<Vec<_>>().len()
}
