//! The cluster's first figures (BENCHMARKS.md section 11): load a store into a cluster (a
//! private PostgreSQL started here, the cold tier in a local directory), then time 1- and 2-hop
//! reads from random seeds, with every partition read from the cold tier (cache cleared before
//! each query), from the query node's cache, and under the tiered-storage memo's Zipf (alpha
//! 1.2) access with a cache smaller than the graph; the embedded store answers the same
//! queries in the same run.
//!
//! With `--hot`, a private Redis Cluster of `--masters` primaries is started too and the hot
//! tier's cases run instead ([`hot`]): partition promotion, hot 1- and 2-hop, throughput by
//! query nodes, eviction, one-vertex promotion and the memo's mixed hot/cold access.
//!
//! With `--writes`, the write cases run instead ([`writes`]): writes through the delta against
//! the embedded store's, reads with writes pending and compacted, compaction.
//!
//! `cargo run --release -p hopdb-cluster --example cluster_bench -- STORE [--partitions 1024]
//!  [--workers 2] [--queries 2000] [--cache-mb 64] [--load-mb 1024] [--row-group-rows 16384]
//!  [--no-snapshot]
//!  [--hot [--masters 3] | --writes] [--out FILE.json]`
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod hot;
mod writes;

use std::collections::HashSet;
use std::time::Instant;

use hopdb_cluster::{Cluster, ClusterConfig, LoadOptions};
use hopdb_core::{Direction, Graph, GraphRead, NodeKey};
use hopdb_testdata::postgres::PrivateServer;
use hopdb_testdata::redis::PrivateRedisCluster;
use hopdb_testdata::sampling::{percentile, Rng, Zipf};

/// The allocator the `hopdb` binary ships with, so the figures are the CLI's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

struct Args {
    store: String,
    partitions: u32,
    workers: usize,
    queries: usize,
    cache_mb: u64,
    hot: bool,
    writes: bool,
    masters: usize,
    load_mb: u64,
    row_group_rows: usize,
    snapshot: bool,
    out: Option<String>,
}

fn args() -> Args {
    let mut a = Args {
        store: String::new(),
        partitions: 1024,
        workers: 2,
        queries: 2000,
        cache_mb: 64,
        hot: false,
        writes: false,
        masters: 3,
        load_mb: 1024,
        row_group_rows: 16 * 1024,
        snapshot: true,
        out: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(x) = it.next() {
        match x.as_str() {
            "--partitions" => a.partitions = it.next().unwrap().parse().unwrap(),
            "--workers" => a.workers = it.next().unwrap().parse().unwrap(),
            "--queries" => a.queries = it.next().unwrap().parse().unwrap(),
            "--cache-mb" => a.cache_mb = it.next().unwrap().parse().unwrap(),
            "--hot" => a.hot = true,
            "--writes" => a.writes = true,
            "--masters" => a.masters = it.next().unwrap().parse().unwrap(),
            "--load-mb" => a.load_mb = it.next().unwrap().parse().unwrap(),
            "--row-group-rows" => a.row_group_rows = it.next().unwrap().parse().unwrap(),
            "--no-snapshot" => a.snapshot = false,
            "--out" => a.out = it.next(),
            s => a.store = s.to_string(),
        }
    }
    assert!(!a.store.is_empty(), "usage: cluster_bench STORE [options]");
    a
}

fn summary(name: &str, mut ms: Vec<f64>, extra: serde_json::Value) -> serde_json::Value {
    let (p50, p95) = (percentile(&mut ms, 0.5), percentile(&mut ms, 0.95));
    let (p99, p999) = (percentile(&mut ms, 0.99), percentile(&mut ms, 0.999));
    println!(
        "{name:<34} p50 {p50:>9.3} ms   p95 {p95:>9.3}   p99 {p99:>9.3} ms   p99.9 {p999:>9.3}   ({} queries) {extra}",
        ms.len()
    );
    serde_json::json!({"case": name, "p50_ms": p50, "p95_ms": p95, "p99_ms": p99, "p999_ms": p999,
                       "queries": ms.len(), "extra": extra})
}

fn store_k_hop(g: &Graph, seed: &NodeKey, k: usize) -> usize {
    let mut seen: HashSet<NodeKey> = HashSet::from([seed.clone()]);
    let mut frontier = vec![seed.clone()];
    let mut total = 0;
    for _ in 0..k {
        let mut next = Vec::new();
        for u in &frontier {
            for n in g.neighbors(u, Direction::Both, None, None).unwrap() {
                if seen.insert(n.clone()) {
                    next.push(n);
                }
            }
        }
        total += next.len();
        frontier = next;
    }
    total
}

fn main() {
    let a = args();
    let g = Graph::open(&a.store).unwrap();
    let mut keys = Vec::new();
    g.for_each_node_record(None, &mut |r| {
        keys.push(r.key);
        true
    })
    .unwrap();
    println!(
        "store {}: {} nodes, {} edges",
        a.store,
        keys.len(),
        g.edge_count().unwrap()
    );

    let pg = PrivateServer::start().expect("a private PostgreSQL server");
    let cold = tempfile::tempdir_in("/var/tmp").unwrap();
    // The hot tier's cases run with no partition cache: every read asks Redis, then the cold tier.
    let redis = a
        .hot
        .then(|| PrivateRedisCluster::start(a.masters, 0, 8192).expect("a private Redis Cluster"));
    let (cache_mb, hot_section) = match &redis {
        None => (a.cache_mb, String::new()),
        Some(r) => {
            let urls: Vec<String> = r.urls().iter().map(|u| format!("{u:?}")).collect();
            (
                0,
                format!(
                    "[hot]\nredis = [{}]\npromote_on_miss = false\nbudget_mb = 8192\n",
                    urls.join(", ")
                ),
            )
        }
    };
    let cfg = ClusterConfig::parse(&format!(
        "partitions = {}\n[cold]\nurl = \"file://{}\"\nrow_group_rows = {}\n[metadata]\npostgres = \"{}\"\n[cache]\nmemory_mb = {cache_mb}\n{hot_section}",
        a.partitions,
        cold.path().display(),
        a.row_group_rows,
        pg.create_database("bench").unwrap(),
    ))
    .unwrap();
    Cluster::init(&cfg).unwrap();
    let c = Cluster::open(cfg.clone()).unwrap();
    let r = c
        .load_from(
            &g,
            &LoadOptions {
                workers: a.workers,
                memory_mb: a.load_mb,
                ..LoadOptions::default()
            },
        )
        .unwrap();
    println!(
        "load: {} nodes, {} edges, {} partitions, {:.1} MB of Parquet in {:.2} s (store scan {:.2} s; writing {:.1} MB/s per worker, {} workers)",
        r.nodes,
        r.edges,
        r.partitions,
        r.bytes as f64 / 1e6,
        r.seconds,
        r.scan_seconds,
        r.bytes_per_second_per_worker() / 1e6,
        r.workers
    );
    let mut results = vec![
        serde_json::json!({"case": "load", "seconds": r.seconds, "scan_seconds": r.scan_seconds, "passes": r.passes, "bytes": r.bytes, "nodes": r.nodes,
        "edges": r.edges, "workers": r.workers, "mb_per_s_per_worker": r.bytes_per_second_per_worker() / 1e6}),
    ];

    // Snapshot and restore (local directory to local directory, the same disk), 8 copies in
    // flight; they need twice the cold tier's size free (--no-snapshot skips them).
    let snap_dir = tempfile::tempdir_in("/var/tmp").unwrap();
    let snap_url = format!("file://{}", snap_dir.path().display());
    let copies = if a.snapshot {
        vec![
            ("snapshot", c.snapshot(&snap_url, 8).unwrap()),
            ("restore", c.restore(&snap_url, 8).unwrap()),
        ]
    } else {
        Vec::new()
    };
    for (case, r) in copies {
        println!(
            "{case}: {:.1} MB in {:.2} s, {:.3} GB/s per worker ({} workers)",
            r.bytes as f64 / 1e6,
            r.seconds,
            r.bytes_per_second_per_worker() / 1e9,
            r.workers
        );
        results.push(
            serde_json::json!({"case": case, "bytes": r.bytes, "seconds": r.seconds, "workers": r.workers,
            "gb_per_s_per_worker": r.bytes_per_second_per_worker() / 1e9}),
        );
    }
    if a.writes {
        results.extend(writes::run(&c, &g, &keys, a.queries));
        if let Some(out) = a.out {
            std::fs::write(out, serde_json::to_string_pretty(&results).unwrap()).unwrap();
        }
        return;
    }
    if let Some(r) = &redis {
        results.extend(hot::run(&c, &cfg, r, &g, &keys, a.queries));
        if let Some(out) = a.out {
            std::fs::write(out, serde_json::to_string_pretty(&results).unwrap()).unwrap();
        }
        return;
    }
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let seeds: Vec<NodeKey> = (0..a.queries).map(|_| keys[rng.below(keys.len())].clone()).collect();
    for k in [1usize, 2] {
        let n = if k == 1 { seeds.len() } else { seeds.len() / 4 };
        let (mut store, mut cold_ms, mut warm_ms) = (Vec::new(), Vec::new(), Vec::new());
        for s in &seeds[..n] {
            let t = Instant::now();
            let want = store_k_hop(&g, s, k);
            store.push(t.elapsed().as_secs_f64() * 1e3);
            c.clear_cache();
            let t = Instant::now();
            let got: usize = c
                .k_hop(std::slice::from_ref(s), k, Direction::Both)
                .unwrap()
                .iter()
                .map(Vec::len)
                .sum();
            cold_ms.push(t.elapsed().as_secs_f64() * 1e3);
            // A partition's first miss reads its nodes' row groups, the second reads it
            // whole into the cache: this read does that, the next is timed.
            c.k_hop(std::slice::from_ref(s), k, Direction::Both).unwrap();
            let t = Instant::now();
            let again: usize = c
                .k_hop(std::slice::from_ref(s), k, Direction::Both)
                .unwrap()
                .iter()
                .map(Vec::len)
                .sum();
            warm_ms.push(t.elapsed().as_secs_f64() * 1e3);
            assert_eq!((got, again), (want, want), "{k}-hop from {s}");
        }
        results.push(summary(
            &format!("{k}-hop, embedded store"),
            store,
            serde_json::json!({}),
        ));
        results.push(summary(
            &format!("{k}-hop, cluster, cold tier"),
            cold_ms,
            serde_json::json!({}),
        ));
        results.push(summary(
            &format!("{k}-hop, cluster, cached"),
            warm_ms,
            serde_json::json!({}),
        ));
    }

    // The memo's mixed access: Zipf(1.2) over the nodes (a fixed random rank order), cache
    // budget as configured; 1-hop.
    c.clear_cache();
    let mut order: Vec<usize> = (0..keys.len()).collect();
    rng.shuffle(&mut order);
    let zipf = Zipf::new(keys.len(), 1.2);
    let before = c.cache_stats();
    let mut ms = Vec::new();
    for _ in 0..a.queries * 5 {
        let s = &keys[order[zipf.sample(&mut rng)]];
        let t = Instant::now();
        c.k_hop(std::slice::from_ref(s), 1, Direction::Both).unwrap();
        ms.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let after = c.cache_stats();
    let (hits, misses) = (after.hits - before.hits, after.misses - before.misses);
    let hit_rate = hits as f64 / (hits + misses).max(1) as f64;
    results.push(summary(
        "1-hop, cluster, Zipf 1.2 mixed",
        ms,
        serde_json::json!({"hit_rate": hit_rate, "cache_mb": a.cache_mb, "cached_partitions": after.partitions}),
    ));
    if let Some(out) = a.out {
        std::fs::write(out, serde_json::to_string_pretty(&results).unwrap()).unwrap();
    }
}
