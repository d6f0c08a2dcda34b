//! Core OLTP operations on real skewed graphs, HopDB beside SQLite in the same run.
//!
//! `cargo bench -p hopdb-core --bench core_ops` (datasets from ../shared/datasets or
//! $HOPDB_DATASETS; a missing dataset is skipped with a message). One thread. SQLite runs in
//! WAL mode with synchronous=NORMAL (HopDB's default durability is the same promise), an edge
//! table indexed both ways, and cached prepared statements.

// Benchmarks: a panic is the failure report.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use hopdb_core::{Direction, EdgeInput, Graph, GraphRead, NodeKey, Props, WriteMode};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rusqlite::{params, Connection};
use std::collections::HashMap;

#[path = "common/datasets.rs"]
mod datasets;
#[path = "common/edge_sample.rs"]
mod edge_sample;

use datasets::read_edges;
use edge_sample::{bucket_members, edge_test_pairs, sql_edges, sql_has_edge, weight, BUCKETS, TY};

struct Hop {
    g: Graph,
    _dir: tempfile::TempDir,
}

struct Sql {
    c: Connection,
    _dir: tempfile::TempDir,
}

fn load_hopdb(nodes: &[i64], edges: &[(i64, i64)]) -> Hop {
    let (g, dir) = edge_sample::load_hopdb(nodes, edges);
    Hop { g, _dir: dir }
}

fn load_sqlite(nodes: &[i64], edges: &[(i64, i64)]) -> Sql {
    let dir = tempfile::tempdir().expect("tempdir");
    let c = Connection::open(dir.path().join("g.db")).expect("open sqlite");
    c.execute_batch(
        "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA cache_size=-65536;
         CREATE TABLE nodes(id INTEGER PRIMARY KEY, name TEXT);
         CREATE TABLE edges(src INTEGER NOT NULL, dst INTEGER NOT NULL, weight REAL, PRIMARY KEY(src, dst)) WITHOUT ROWID;",
    )
    .expect("schema");
    c.execute_batch("BEGIN").expect("begin");
    {
        let mut s = c.prepare("INSERT INTO nodes VALUES (?1, ?2)").expect("prep");
        for &n in nodes {
            s.execute(params![n, format!("n{n}")]).expect("node");
        }
        let mut s = c
            .prepare("INSERT OR REPLACE INTO edges VALUES (?1, ?2, ?3)")
            .expect("prep");
        for &(a, b) in edges {
            s.execute(params![a, b, weight(a, b)]).expect("edge");
        }
    }
    c.execute_batch("COMMIT; CREATE INDEX edges_in ON edges(dst, src, weight); ANALYZE;")
        .expect("index");
    Sql { c, _dir: dir }
}

fn sql_degree(c: &Connection, a: i64) -> (i64, f64) {
    let mut s = c
        .prepare_cached("SELECT count(*), total(weight) FROM edges WHERE src = ?1")
        .expect("prep");
    s.query_row(params![a], |r| Ok((r.get(0)?, r.get(1)?))).expect("query")
}

fn sql_upsert(c: &Connection, a: i64, b: i64, w: f64) {
    let mut s = c
        .prepare_cached(
            "INSERT INTO edges VALUES (?1, ?2, ?3) ON CONFLICT(src, dst) DO UPDATE SET weight = excluded.weight",
        )
        .expect("prep");
    s.execute(params![a, b, w]).expect("upsert");
}

fn bench_dataset(c: &mut Criterion, name: &str, rel: &str, count_header: bool) {
    let Some(edges) = read_edges(rel, count_header) else {
        return;
    };
    let mut outdeg: HashMap<i64, usize> = HashMap::new();
    let mut nodes: Vec<i64> = Vec::new();
    for &(a, b) in &edges {
        *outdeg.entry(a).or_default() += 1;
        outdeg.entry(b).or_default();
    }
    nodes.extend(outdeg.keys().copied());
    nodes.sort_unstable();
    eprintln!(
        "{name}: {} nodes, {} edge lines; loading HopDB and SQLite",
        nodes.len(),
        edges.len()
    );
    let hop = load_hopdb(&nodes, &edges);
    let sql = load_sqlite(&nodes, &edges);
    assert_eq!(hop.g.node_count().expect("count") as usize, nodes.len());
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let sample_nodes: Vec<i64> = (0..4096).map(|_| nodes[rng.random_range(0..nodes.len())]).collect();
    let pairs = edge_test_pairs(&mut rng, &nodes, &edges);
    // Both engines must agree before anything is timed.
    for &(a, b) in pairs.iter().take(500) {
        assert_eq!(
            hop.g
                .has_edge(&NodeKey::Int(a), &NodeKey::Int(b), Some(TY), false)
                .expect("has"),
            sql_has_edge(&sql.c, a, b)
        );
    }
    for &n in sample_nodes.iter().take(300) {
        let d = hop.g.degree(&NodeKey::Int(n), Direction::Out, None).expect("deg");
        let (cnt, w) = sql_degree(&sql.c, n);
        assert_eq!(d.count as i64, cnt, "degree of {n}");
        assert!((d.weight_sum - w).abs() < 1e-6 * w.max(1.0), "weight sum of {n}");
    }

    let mut g = c.benchmark_group(format!("{name}/point"));
    g.throughput(Throughput::Elements(1));
    let mut i = 0usize;
    g.bench_function("node_read/hopdb", |b| {
        b.iter(|| {
            i = (i + 1) % sample_nodes.len();
            hop.g.node(&NodeKey::Int(sample_nodes[i])).expect("node").is_some()
        })
    });
    g.bench_function("node_read/sqlite", |b| {
        let mut s = sql
            .c
            .prepare_cached("SELECT name FROM nodes WHERE id = ?1")
            .expect("prep");
        b.iter(|| {
            i = (i + 1) % sample_nodes.len();
            s.query_row(params![sample_nodes[i]], |r| r.get::<_, String>(0))
                .expect("row")
        })
    });
    g.bench_function("edge_exists/hopdb", |b| {
        b.iter(|| {
            i = (i + 1) % pairs.len();
            let (a, d) = pairs[i];
            hop.g
                .has_edge(&NodeKey::Int(a), &NodeKey::Int(d), Some(TY), false)
                .expect("has")
        })
    });
    g.bench_function("edge_exists/sqlite", |b| {
        b.iter(|| {
            i = (i + 1) % pairs.len();
            sql_has_edge(&sql.c, pairs[i].0, pairs[i].1)
        })
    });
    g.finish();

    for (bucket, lo, hi) in BUCKETS {
        let members = bucket_members(&outdeg, lo, hi);
        if members.is_empty() {
            continue;
        }
        let total: usize = members.iter().map(|n| outdeg[n]).sum();
        let mut g = c.benchmark_group(format!("{name}/edges_of_node"));
        g.throughput(Throughput::Elements(total as u64));
        g.bench_function(BenchmarkId::new(bucket, "hopdb"), |b| {
            b.iter(|| {
                members
                    .iter()
                    .map(|&n| {
                        hop.g
                            .edges(&NodeKey::Int(n), Direction::Out, None, None)
                            .expect("edges")
                            .len()
                    })
                    .sum::<usize>()
            })
        });
        g.bench_function(BenchmarkId::new(bucket, "sqlite"), |b| {
            b.iter(|| members.iter().map(|&n| sql_edges(&sql.c, n)).sum::<usize>())
        });
        g.finish();
        let mut g = c.benchmark_group(format!("{name}/degree_weight_sum"));
        g.throughput(Throughput::Elements(members.len() as u64));
        g.bench_function(BenchmarkId::new(bucket, "hopdb"), |b| {
            b.iter(|| {
                members
                    .iter()
                    .map(|&n| {
                        hop.g
                            .degree(&NodeKey::Int(n), Direction::Out, None)
                            .expect("deg")
                            .weight_sum
                    })
                    .sum::<f64>()
            })
        });
        g.bench_function(BenchmarkId::new(bucket, "sqlite"), |b| {
            b.iter(|| members.iter().map(|&n| sql_degree(&sql.c, n).1).sum::<f64>())
        });
        g.finish();
    }

    // Writes on the loaded store: new edges between random existing nodes.
    let mut g = c.benchmark_group(format!("{name}/upsert_edge"));
    let mut wr = ChaCha8Rng::seed_from_u64(11);
    let mut pick = move || {
        (
            nodes[wr.random_range(0..nodes.len())],
            nodes[wr.random_range(0..nodes.len())],
        )
    };
    g.throughput(Throughput::Elements(1));
    g.bench_function("single/hopdb", |b| {
        b.iter(|| {
            let (a, d) = pick();
            hop.g
                .upsert_edge(a, TY, d, Some(1.0), Props::new(), WriteMode::Merge)
                .expect("upsert")
        })
    });
    g.bench_function("single/sqlite", |b| {
        b.iter(|| {
            let (a, d) = pick();
            sql_upsert(&sql.c, a, d, 1.0)
        })
    });
    g.throughput(Throughput::Elements(500));
    g.bench_function("batch500/hopdb", |b| {
        b.iter(|| {
            let batch: Vec<EdgeInput> = (0..500)
                .map(|_| pick())
                .map(|(a, d)| EdgeInput::new(a, TY, d).weight(1.0))
                .collect();
            hop.g.upsert_edges(&batch, WriteMode::Merge).expect("batch")
        })
    });
    g.bench_function("batch500/sqlite", |b| {
        b.iter(|| {
            let batch: Vec<(i64, i64)> = (0..500).map(|_| pick()).collect();
            sql.c.execute_batch("BEGIN").expect("begin");
            for (a, d) in batch {
                sql_upsert(&sql.c, a, d, 1.0);
            }
            sql.c.execute_batch("COMMIT").expect("commit");
        })
    });
    g.finish();
    assert!(
        hop.g.check().expect("check").is_ok(),
        "{name}: store invariants after the benchmark"
    );
}

fn benches(c: &mut Criterion) {
    edge_sample::each_graph(c, bench_dataset);
}

criterion_group! {
    name = core;
    config = edge_sample::config();
    targets = benches
}
criterion_main!(core);
