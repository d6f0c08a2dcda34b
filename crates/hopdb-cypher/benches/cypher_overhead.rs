//! The Cypher engine's per-call overhead over the native API (issue 19), one thread.
//!
//! `cargo bench -p hopdb-cypher --bench cypher_overhead`. A durable store (RocksDB, default
//! `Config`) in a temporary directory with 100,000 `:Item` nodes, keys `item-0` ..
//! `item-99999`, each with four properties (`a` int, `b` string, `c` float, `code` a unique
//! string) and an index on `:Item(code)`, flushed and compacted before timing. Every
//! benchmark reads 4,096 random nodes in turn (the same sequence for each):
//!
//! - `q1/native`: `db.graph().node(&key)` then the three properties `a`, `b`, `c` cloned out;
//! - `q1/native_snapshot`: the same through a read transaction taken per call
//!   (`db.graph().read().node(&key)`), the consistent snapshot every Cypher query reads;
//! - `q1/cypher_key`: `MATCH (n {_key: $k}) RETURN n.a, n.b, n.c` through
//!   `QueryEngine::query` with its plan cached, rows collected;
//! - `q1/cypher_index`: `MATCH (n:Item {code: $c}) RETURN n.a, n.b, n.c`, the label + property
//!   index the planner uses;
//! - `q1/cypher_key_uncached`: the key query with the key written in the text, 10,000 distinct
//!   texts in turn: more than the plan cache keeps (4,096), so every call parses and plans;
//! - `plan/compile_*`: `Plan::compile` of a query text cold (parse, semantic checks).
//!
//! The target: `q1/cypher_key` at most 2 us above `q1/native`.
//!
//! The process allocates with mimalloc, the allocator the `hopdb` binary (and `hopdb serve`)
//! and the Python extension ship with (BENCHMARKS 8a-8e timed glibc's malloc; remove the
//! `#[global_allocator]` lines below to time it again).

// Benchmarks: a panic is the failure report.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use hopdb_cypher::plan::Plan;
use hopdb_cypher::{Params, QueryEngine, Value};
use hopdb_database::{props, Database, GraphRead, NodeInput, NodeKey, Value as StoreValue, WriteMode};
use std::hint::black_box;
use std::time::Duration;

const NODES: usize = 100_000;
/// Distinct query texts of `q1/cypher_key_uncached`: more than the plan cache holds.
const TEXTS: usize = 10_000;
const SAMPLE: usize = 4096;

const Q1_KEY: &str = "MATCH (n {_key: $k}) RETURN n.a, n.b, n.c";
const Q1_INDEX: &str = "MATCH (n:Item {code: $c}) RETURN n.a, n.b, n.c";
const Q4_LIKE: &str = "MATCH (c:Chunk {_key: $id})-[:MENTIONS]->(:Entity)<-[:MENTIONS]-(o:Chunk) \
                       WHERE o._key <> $id RETURN o._key AS id, count(*) AS n ORDER BY n DESC, id LIMIT 10";

struct Fixture {
    db: Database,
    engine: QueryEngine,
    keys: Vec<NodeKey>,
    codes: Vec<String>,
    _dir: tempfile::TempDir,
}

/// `HOPDB_BENCH_NODES` overrides the node count (smaller graphs for profiling under valgrind).
fn nodes() -> usize {
    std::env::var("HOPDB_BENCH_NODES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(NODES)
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = Database::open(dir.path().join("store")).expect("open store");
    let g = db.graph();
    let mut batch = Vec::with_capacity(1000);
    let n = nodes();
    for i in 0..n {
        batch.push(NodeInput::new(format!("item-{i}")).label("Item").props(props([
            ("a", StoreValue::Int(i as i64)),
            ("b", StoreValue::Str(format!("name of item {i}"))),
            ("c", StoreValue::Float(i as f64 / 7.0)),
            ("code", StoreValue::Str(format!("code-{i}"))),
        ])));
        if batch.len() == 1000 {
            g.upsert_nodes(&batch, WriteMode::Merge).expect("load");
            batch.clear();
        }
    }
    g.upsert_nodes(&batch, WriteMode::Merge).expect("load");
    let engine = QueryEngine::new(db.clone());
    engine
        .query("CREATE INDEX FOR (n:Item) ON (n.code)", &Params::new())
        .expect("create index");
    g.flush().expect("flush");
    g.compact().expect("compact");
    // A fixed pseudo-random sample (an LCG: no extra dependency).
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut keys = Vec::with_capacity(SAMPLE);
    let mut codes = Vec::with_capacity(SAMPLE);
    for _ in 0..SAMPLE {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let i = (x >> 33) as usize % n;
        keys.push(NodeKey::from(format!("item-{i}")));
        codes.push(format!("code-{i}"));
    }
    Fixture {
        db,
        engine,
        keys,
        codes,
        _dir: dir,
    }
}

/// The native Q1: the node, then its three properties.
fn native_q1(db: &Database, key: &NodeKey) -> [StoreValue; 3] {
    three_props(db.graph().node(key))
}

/// The native Q1 on a snapshot taken for the call, as a Cypher query reads.
fn native_q1_snapshot(db: &Database, key: &NodeKey) -> [StoreValue; 3] {
    three_props(db.graph().read().node(key))
}

fn three_props(n: hopdb_database::Result<Option<hopdb_database::Node>>) -> [StoreValue; 3] {
    let n = n.expect("read").expect("node exists");
    let get = |p: &str| n.props.get(p).cloned().unwrap_or(StoreValue::Null);
    [get("a"), get("b"), get("c")]
}

fn cypher_rows(engine: &QueryEngine, text: &str, params: &Params) -> Vec<Vec<Value>> {
    engine.query(text, params).expect("query").collect_rows().expect("rows")
}

fn check(f: &Fixture) {
    // Every form answers the same before anything is timed.
    for (k, c) in f.keys.iter().zip(&f.codes).take(64) {
        let want: Vec<Value> = native_q1(&f.db, k)
            .into_iter()
            .map(|v| match v {
                StoreValue::Int(i) => Value::Int(i),
                StoreValue::Str(s) => Value::String(s),
                StoreValue::Float(x) => Value::Float(x),
                o => panic!("unexpected value {o:?}"),
            })
            .collect();
        let NodeKey::Str(ks) = k else { panic!("string keys") };
        let by_key = cypher_rows(
            &f.engine,
            Q1_KEY,
            &Params::from([("k".into(), Value::from(ks.as_str()))]),
        );
        let by_index = cypher_rows(
            &f.engine,
            Q1_INDEX,
            &Params::from([("c".into(), Value::from(c.as_str()))]),
        );
        assert_eq!(by_key, vec![want.clone()], "key lookup of {ks}");
        assert_eq!(by_index, vec![want], "index lookup of {c}");
    }
    let plan = f
        .engine
        .query(&format!("EXPLAIN {Q1_INDEX}"), &Params::new())
        .expect("explain");
    eprintln!(
        "cypher_overhead: {} nodes; EXPLAIN of the index query:\n{}",
        nodes(),
        plan.plan().map(|p| p.render()).unwrap_or_default()
    );
}

fn benches(c: &mut Criterion) {
    let f = fixture();
    check(&f);
    let str_keys: Vec<Value> = f
        .keys
        .iter()
        .map(|k| match k {
            NodeKey::Str(s) => Value::from(s.as_str()),
            NodeKey::Int(i) => Value::Int(*i),
        })
        .collect();
    let key_params: Vec<Params> = str_keys
        .iter()
        .map(|k| Params::from([("k".into(), k.clone())]))
        .collect();
    let code_params: Vec<Params> = f
        .codes
        .iter()
        .map(|c| Params::from([("c".into(), Value::from(c.as_str()))]))
        .collect();
    let n = nodes();
    let literal_texts: Vec<String> = (0..TEXTS)
        .map(|i| format!("MATCH (n {{_key: 'item-{}'}}) RETURN n.a, n.b, n.c", i * 7919 % n))
        .collect();

    let mut g = c.benchmark_group("q1");
    g.throughput(Throughput::Elements(1));
    let mut i = 0usize;
    g.bench_function("native", |b| {
        b.iter(|| {
            i = (i + 1) % SAMPLE;
            black_box(native_q1(&f.db, &f.keys[i]))
        })
    });
    let mut i = 0usize;
    g.bench_function("native_snapshot", |b| {
        b.iter(|| {
            i = (i + 1) % SAMPLE;
            black_box(native_q1_snapshot(&f.db, &f.keys[i]))
        })
    });
    let mut i = 0usize;
    g.bench_function("cypher_key", |b| {
        b.iter(|| {
            i = (i + 1) % SAMPLE;
            black_box(cypher_rows(&f.engine, Q1_KEY, &key_params[i]))
        })
    });
    let mut i = 0usize;
    g.bench_function("cypher_index", |b| {
        b.iter(|| {
            i = (i + 1) % SAMPLE;
            black_box(cypher_rows(&f.engine, Q1_INDEX, &code_params[i]))
        })
    });
    let empty = Params::new();
    let mut i = 0usize;
    g.bench_function("cypher_key_uncached", |b| {
        b.iter(|| {
            i = (i + 1) % TEXTS;
            // A text not seen for 10,000 calls: the cache (cleared when it fills) misses.
            black_box(cypher_rows(&f.engine, &literal_texts[i], &empty))
        })
    });
    g.finish();

    let mut g = c.benchmark_group("plan");
    g.throughput(Throughput::Elements(1));
    for (name, text) in [
        ("compile_q1_key", Q1_KEY),
        ("compile_q1_index", Q1_INDEX),
        ("compile_q6", Q4_LIKE),
    ] {
        g.bench_function(name, |b| {
            b.iter(|| black_box(Plan::compile(black_box(text)).expect("compiles")))
        });
    }
    g.finish();
}

criterion_group! {
    name = cypher;
    config = Criterion::default().sample_size(30).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    targets = benches
}
criterion_main!(cypher);
