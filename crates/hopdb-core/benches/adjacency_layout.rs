//! Issue 21's design question, measured before the format changes: is a node's listing faster
//! as one value per node (an adjacency segment: one point read, then a sequential decode) than
//! as today's record per edge (an iterator seek, then a step and a key compare per edge)?
//!
//! `cargo bench -p hopdb-core --bench adjacency_layout` (NotreDame and Slashdot from
//! ../shared/datasets or $HOPDB_DATASETS; skipped with a message when absent). One thread, warm
//! caches, the same 64 random nodes per out-degree bucket for every layout:
//! - `hopdb`: `Graph::edges` on a store loaded through the write path (today's layout);
//! - `segment`: a RocksDB store beside it, one value per node holding its out-edges in the
//!   store's segment encoding (neighbour ids, edge ids and record offsets in columns, then the
//!   edge records), built sorted and compacted as a bulk load would leave it, with HopDB's table
//!   options (block cache, hash index in data blocks, partitioned bloom filters, LZ4). The
//!   listing resolves the key, checks an in-memory set of nodes with unmerged writes (empty
//!   here), reads the value pinned and decodes it into the same `Edge` values `Graph::edges`
//!   returns;
//! - `segment+delta`: the same with the write delta probed by a prefix seek of an empty column
//!   family instead of the in-memory set: what a listing would pay without that set;
//! - `sqlite`: the core benchmark's SQLite table (`SELECT dst, weight ... WHERE src = ?`).
//!
//! And the edge test (`edge_exists`, 4,096 pairs, half of them edges): `Graph::has_edge`
//! (one point read of the edge's adjacency key) against a binary search of the source's
//! segment, and SQLite's primary-key lookup.
//!
//! Decision 0055 records the figures and what they decided.

// Benchmarks: a panic is the failure report.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use hopdb_core::fuzzing as f;
use hopdb_core::{Direction, Edge, GraphRead, NodeKey, Props};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rocksdb::{BlockBasedIndexType, BlockBasedOptions, Cache, ColumnFamilyDescriptor, Options, SliceTransform, DB};
use rusqlite::{params, Connection};
use std::collections::HashMap;
use std::sync::Arc;

#[path = "common/datasets.rs"]
mod datasets;
#[path = "common/edge_sample.rs"]
mod edge_sample;

use edge_sample::{bucket_members, edge_test_pairs, load_hopdb, sql_edges, sql_has_edge, weight, BUCKETS, TY};

/// The segment store's id for `TY`.
const TYPE_ID: u32 = 1;

struct Segments {
    db: DB,
    ids: HashMap<i64, u64>,
    /// The nodes with edits in the write delta not yet merged into their segment (none here:
    /// the set a listing checks before it reads the delta).
    dirty: std::collections::HashSet<u64>,
    ty: Arc<str>,
    _dir: tempfile::TempDir,
}

impl Segments {
    fn load(nodes: &[i64], edges: &[(i64, i64)]) -> Segments {
        let dir = tempfile::tempdir().expect("tempdir");
        let mb: usize = std::env::var("SEG_CACHE_MB")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(48);
        let cache = Cache::new_lru_cache(mb << 20);
        let mut t = BlockBasedOptions::default();
        t.set_block_cache(&cache);
        t.set_data_block_index_type(rocksdb::DataBlockIndexType::BinaryAndHash);
        t.set_format_version(6);
        t.set_cache_index_and_filter_blocks(true);
        t.set_pin_l0_filter_and_index_blocks_in_cache(true);
        t.set_index_type(BlockBasedIndexType::TwoLevelIndexSearch);
        t.set_partition_filters(true);
        t.set_metadata_block_size(4096);
        t.set_pin_top_level_index_and_filter(true);
        t.set_bloom_filter(10.0, false);
        let mut seg = Options::default();
        seg.set_block_based_table_factory(&t);
        seg.set_compression_type(rocksdb::DBCompressionType::Lz4);
        let mut delta = seg.clone();
        delta.set_prefix_extractor(SliceTransform::create_fixed_prefix(8));
        delta.set_memtable_prefix_bloom_ratio(0.05);
        let mut db_opts = Options::default();
        db_opts.create_if_missing(true);
        db_opts.create_missing_column_families(true);
        let db = DB::open_cf_descriptors(
            &db_opts,
            dir.path(),
            [
                ColumnFamilyDescriptor::new("seg", seg),
                ColumnFamilyDescriptor::new("delta", delta),
            ],
        )
        .expect("open segments");
        // Ids as HopDB assigns them: dense, in the order the nodes were written.
        let ids: HashMap<i64, u64> = nodes.iter().enumerate().map(|(i, &n)| (n, i as u64 + 1)).collect();
        let mut out: HashMap<u64, Vec<(u64, i64, f64)>> = HashMap::new();
        for &(a, b) in edges {
            out.entry(ids[&a]).or_default().push((ids[&b], b, weight(a, b)));
        }
        let mut keys: Vec<u64> = out.keys().copied().collect();
        keys.sort_unstable();
        let cf = db.cf_handle("seg").unwrap();
        for chunk in keys.chunks(5000) {
            let mut wb = rocksdb::WriteBatch::default();
            for id in chunk {
                let list = out.get_mut(id).unwrap();
                list.sort_by_key(|e| e.0);
                list.dedup_by_key(|e| e.0);
                let recs: Vec<Vec<u8>> = list
                    .iter()
                    .map(|&(_, key, w)| f::encode_edge_record(NodeKey::Int(key), Some(w), Props::new()).unwrap())
                    .collect();
                let entries: Vec<(u32, u64, u64, &[u8])> = list
                    .iter()
                    .zip(&recs)
                    .map(|(e, r)| (TYPE_ID, e.0, 0, r.as_slice()))
                    .collect();
                wb.put_cf(cf, id.to_be_bytes(), f::encode_segment(&entries));
            }
            db.write(wb).expect("write segments");
        }
        db.flush_cf(cf).expect("flush");
        db.compact_range_cf(cf, None::<&[u8]>, None::<&[u8]>);
        Segments {
            db,
            ids,
            dirty: Default::default(),
            ty: Arc::from(TY),
            _dir: dir,
        }
    }

    /// An empty probe of the write delta: a prefix seek (`seek_delta`), or the in-memory
    /// set of nodes with unmerged edits.
    fn delta_is_empty(&self, id: u64, seek_delta: bool) -> bool {
        if !seek_delta {
            return !self.dirty.contains(&id);
        }
        let delta = self.db.cf_handle("delta").unwrap();
        let mut ro = rocksdb::ReadOptions::default();
        ro.set_prefix_same_as_start(true);
        let mut it = self.db.raw_iterator_cf_opt(delta, ro);
        it.seek(id.to_be_bytes());
        !it.valid()
    }

    fn edges(&self, key: &NodeKey, seek_delta: bool) -> Vec<Edge> {
        let NodeKey::Int(k) = key else { unreachable!() };
        let id = self.ids[k];
        assert!(self.delta_is_empty(id, seek_delta));
        let cf = self.db.cf_handle("seg").unwrap();
        match self.db.get_pinned_cf(cf, id.to_be_bytes()).expect("get") {
            Some(v) => f::segment_edges(&v, key, &self.ty).expect("segment"),
            None => Vec::new(),
        }
    }

    fn has_edge(&self, a: i64, b: i64) -> bool {
        let (Some(&ia), Some(&ib)) = (self.ids.get(&a), self.ids.get(&b)) else {
            return false;
        };
        assert!(self.delta_is_empty(ia, false));
        let cf = self.db.cf_handle("seg").unwrap();
        match self.db.get_pinned_cf(cf, ia.to_be_bytes()).expect("get") {
            Some(v) => !f::segment_find(&v, TYPE_ID, ib).expect("segment").is_empty(),
            None => false,
        }
    }
}

fn load_sqlite(edges: &[(i64, i64)]) -> (Connection, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("tempdir");
    let c = Connection::open(dir.path().join("g.db")).expect("open sqlite");
    c.execute_batch(
        "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA cache_size=-65536;
         CREATE TABLE edges(src INTEGER NOT NULL, dst INTEGER NOT NULL, weight REAL, PRIMARY KEY(src, dst)) WITHOUT ROWID;
         BEGIN;",
    )
    .expect("schema");
    {
        let mut s = c
            .prepare("INSERT OR REPLACE INTO edges VALUES (?1, ?2, ?3)")
            .expect("prep");
        for &(a, b) in edges {
            s.execute(params![a, b, weight(a, b)]).expect("insert");
        }
    }
    c.execute_batch("COMMIT; ANALYZE;").expect("commit");
    (c, dir)
}

fn bench_dataset(c: &mut Criterion, name: &str, rel: &str, count_header: bool) {
    let Some(edges) = datasets::read_edges(rel, count_header) else {
        return;
    };
    let mut outdeg: HashMap<i64, usize> = HashMap::new();
    for &(a, b) in &edges {
        *outdeg.entry(a).or_default() += 1;
        outdeg.entry(b).or_default();
    }
    let mut nodes: Vec<i64> = outdeg.keys().copied().collect();
    nodes.sort_unstable();
    eprintln!("{name}: {} nodes, {} edge lines; loading", nodes.len(), edges.len());
    let (hop, _hd) = load_hopdb(&nodes, &edges);
    let seg = Segments::load(&nodes, &edges);
    let (sql, _sd) = load_sqlite(&edges);
    let pairs = edge_test_pairs(&mut ChaCha8Rng::seed_from_u64(7), &nodes, &edges);
    for &(a, b) in &pairs {
        let want = sql_has_edge(&sql, a, b);
        let (ka, kb) = (NodeKey::Int(a), NodeKey::Int(b));
        assert_eq!(hop.has_edge(&ka, &kb, Some(TY), false).expect("has"), want, "{a}->{b}");
        assert_eq!(seg.has_edge(a, b), want, "{a}->{b} in the segment");
    }
    let mut g = c.benchmark_group(format!("{name}/edge_exists"));
    g.throughput(Throughput::Elements(pairs.len() as u64));
    g.bench_function("hopdb", |b| {
        b.iter(|| {
            pairs
                .iter()
                .filter(|&&(a, b)| {
                    hop.has_edge(&NodeKey::Int(a), &NodeKey::Int(b), Some(TY), false)
                        .expect("has")
                })
                .count()
        })
    });
    g.bench_function("segment", |b| {
        b.iter(|| pairs.iter().filter(|&&(a, b)| seg.has_edge(a, b)).count())
    });
    g.bench_function("sqlite", |b| {
        b.iter(|| pairs.iter().filter(|&&(a, b)| sql_has_edge(&sql, a, b)).count())
    });
    g.finish();
    for (bucket, lo, hi) in BUCKETS {
        let members = bucket_members(&outdeg, lo, hi);
        if members.is_empty() {
            continue;
        }
        // Every layout must list the same edges before anything is timed.
        for &n in &members {
            let key = NodeKey::Int(n);
            let mut a = hop.edges(&key, Direction::Out, None, None).expect("edges");
            let mut b = seg.edges(&key, true);
            a.sort_by_key(|e| e.dst.to_string());
            b.sort_by_key(|e| e.dst.to_string());
            assert_eq!(a, b, "edges of {n}");
            assert_eq!(a.len(), sql_edges(&sql, n), "edges of {n} in SQLite");
        }
        let total: usize = members.iter().map(|n| outdeg[n]).sum();
        let mut g = c.benchmark_group(format!("{name}/edges_of_node"));
        g.throughput(Throughput::Elements(total as u64));
        let keys: Vec<NodeKey> = members.iter().map(|&n| NodeKey::Int(n)).collect();
        g.bench_function(BenchmarkId::new(bucket, "hopdb"), |b| {
            b.iter(|| {
                keys.iter()
                    .map(|k| hop.edges(k, Direction::Out, None, None).expect("edges").len())
                    .sum::<usize>()
            })
        });
        g.bench_function(BenchmarkId::new(bucket, "segment"), |b| {
            b.iter(|| keys.iter().map(|k| seg.edges(k, false).len()).sum::<usize>())
        });
        g.bench_function(BenchmarkId::new(bucket, "segment+delta"), |b| {
            b.iter(|| keys.iter().map(|k| seg.edges(k, true).len()).sum::<usize>())
        });
        g.bench_function(BenchmarkId::new(bucket, "sqlite"), |b| {
            b.iter(|| members.iter().map(|&n| sql_edges(&sql, n)).sum::<usize>())
        });
        g.finish();
    }
}

fn layouts(c: &mut Criterion) {
    edge_sample::each_graph(c, bench_dataset);
}

criterion_group! {
    name = benches;
    config = edge_sample::config();
    targets = layouts
}
criterion_main!(benches);
