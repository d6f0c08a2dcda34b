//! The hot tier's cases (the tiered-storage memo's tables on loopback): whole-partition
//! promotion, hot 1- and 2-hop latency, hot 1-hop throughput with one and two query nodes,
//! eviction, one-vertex promotion, and Zipf(1.2) access with the hottest nodes promoted until
//! they cover the memo's 89% of reads (the rest read from the cold tier).

use std::time::{Duration, Instant};

use hopdb_cluster::{Cluster, ClusterConfig};
use hopdb_core::{Direction, Graph, GraphRead, NodeKey};
use hopdb_testdata::redis::PrivateRedisCluster;
use hopdb_testdata::sampling::{Rng, Zipf};
use serde_json::{json, Value};

use crate::{store_k_hop, summary};

/// Client threads per query node in the throughput case.
const THREADS_PER_QUERY_NODE: usize = 4;

fn ms_since(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

fn hop_count(c: &Cluster, seed: &NodeKey, k: usize) -> usize {
    c.k_hop(std::slice::from_ref(seed), k, Direction::Both)
        .unwrap()
        .iter()
        .map(Vec::len)
        .sum()
}

pub fn run(
    c: &Cluster,
    cfg: &ClusterConfig,
    redis: &PrivateRedisCluster,
    g: &Graph,
    keys: &[NodeKey],
    queries: usize,
) -> Vec<Value> {
    let mut out = Vec::new();
    let all: Vec<u32> = (0..c.partitions()).collect();
    let p = c.promote_partitions(&all).unwrap();
    let used = redis.used_memory();
    println!(
        "promote {} partitions: {} nodes, {:.1} MB of slices in {:.2} s = {:.0} nodes/s (Redis used {:.1} MB over {} primaries)",
        p.partitions,
        p.nodes,
        p.bytes as f64 / 1e6,
        p.seconds,
        p.nodes as f64 / p.seconds,
        used as f64 / 1e6,
        redis.masters()
    );
    println!(
        "  of which: reading {:.2} s, encoding {:.2} s, waiting for Redis {:.2} s",
        p.read_seconds, p.encode_seconds, p.write_wait_seconds
    );
    out.push(
        json!({"case": "promote all partitions", "partitions": p.partitions, "nodes": p.nodes, "bytes": p.bytes,
                    "seconds": p.seconds, "nodes_per_s": p.nodes as f64 / p.seconds, "redis_used_bytes": used,
                    "masters": redis.masters(), "read_seconds": p.read_seconds, "encode_seconds": p.encode_seconds,
                    "write_wait_seconds": p.write_wait_seconds}),
    );

    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let seeds: Vec<NodeKey> = (0..queries).map(|_| keys[rng.below(keys.len())].clone()).collect();
    for k in [1usize, 2] {
        let n = if k == 1 { seeds.len() } else { seeds.len() / 4 };
        let before = c.hot_stats().unwrap();
        let (mut ms, mut store_ms, mut sizes) = (Vec::new(), Vec::new(), Vec::new());
        for s in &seeds[..n] {
            let t = Instant::now();
            let want = store_k_hop(g, s, k);
            store_ms.push(ms_since(t));
            let t = Instant::now();
            let got = hop_count(c, s, k);
            ms.push(ms_since(t));
            sizes.push(got as f64);
            assert_eq!(got, want, "{k}-hop from {s}");
        }
        out.push(summary(&format!("{k}-hop, embedded store"), store_ms, json!({})));
        let after = c.hot_stats().unwrap();
        assert_eq!(after.misses, before.misses, "every lookup of a promoted graph is a hit");
        let median = hopdb_testdata::sampling::percentile(&mut sizes, 0.5);
        out.push(summary(
            &format!("{k}-hop, hot tier"),
            ms,
            json!({"median_nodes_reached": median, "masters": redis.masters()}),
        ));
    }

    // The memo's 2-hop: from nodes with about 200 neighbours (degree 150 to 250).
    let wide: Vec<NodeKey> = keys
        .iter()
        .filter(|k| (150..=250).contains(&g.degree(k, Direction::Both, None).unwrap().count))
        .take(200)
        .cloned()
        .collect();
    if !wide.is_empty() {
        let (mut ms, mut sizes) = (Vec::new(), Vec::new());
        for s in &wide {
            let t = Instant::now();
            let got = hop_count(c, s, 2);
            ms.push(ms_since(t));
            sizes.push(got as f64);
            assert_eq!(got, store_k_hop(g, s, 2), "2-hop from {s}");
        }
        let median = hopdb_testdata::sampling::percentile(&mut sizes, 0.5);
        out.push(summary(
            "2-hop from degree 150-250, hot tier",
            ms,
            json!({"median_nodes_reached": median, "seeds": wide.len(), "masters": redis.masters()}),
        ));
    }

    // Throughput: one and two query nodes (handles with their own runtimes and connections, in
    // this process), each with a few client threads, hot 1-hops for five seconds.
    for query_nodes in [1usize, 2] {
        let handles: Vec<Cluster> = (0..query_nodes).map(|_| Cluster::open(cfg.clone()).unwrap()).collect();
        let run_for = Duration::from_secs(5);
        let started = Instant::now();
        let done: usize = std::thread::scope(|s| {
            let threads: Vec<_> = handles
                .iter()
                .flat_map(|h| (0..THREADS_PER_QUERY_NODE).map(move |t| (h, t)))
                .map(|(h, t)| {
                    s.spawn(move || {
                        let mut rng = Rng(0x5EED + t as u64 * 7919);
                        let mut n = 0;
                        while started.elapsed() < run_for {
                            hop_count(h, &keys[rng.below(keys.len())], 1);
                            n += 1;
                        }
                        n
                    })
                })
                .collect();
            threads.into_iter().map(|t| t.join().unwrap()).sum()
        });
        let rate = done as f64 / started.elapsed().as_secs_f64();
        println!(
            "hot 1-hop throughput, {query_nodes} query node(s) x {THREADS_PER_QUERY_NODE} threads, {} primaries: {rate:.0} queries/s",
            redis.masters()
        );
        out.push(json!({"case": "hot 1-hop throughput", "query_nodes": query_nodes, "threads_per_query_node": THREADS_PER_QUERY_NODE,
                        "masters": redis.masters(), "queries_per_s": rate}));
    }

    let e = c.evict_partitions(&all).unwrap();
    println!(
        "evict {} partitions: {} entries in {:.2} s = {:.0} entries/s",
        e.partitions,
        e.entries,
        e.seconds,
        e.entries as f64 / e.seconds
    );
    out.push(
        json!({"case": "evict all partitions", "partitions": e.partitions, "entries": e.entries, "seconds": e.seconds,
                    "entries_per_s": e.entries as f64 / e.seconds}),
    );
    assert_eq!(redis.keys(), 0);

    // One-vertex promotion: each reads the row groups holding its node from the cold tier
    // (no partition cache) and writes one slice.
    let mut ms = Vec::new();
    let cold_before = c.cache_stats();
    for s in seeds.iter().take(500) {
        let t = Instant::now();
        assert_eq!(c.promote_nodes(std::slice::from_ref(s)).unwrap(), 1);
        ms.push(ms_since(t));
    }
    let reads = ms.len() as u64;
    out.push(summary("one-vertex promotion", ms, cold_read(c, cold_before, reads)));
    c.evict_partitions(&all).unwrap();

    // The memo's mixed access: Zipf(1.2) over the nodes in a random rank order; the top ranks
    // covering 89% of the draws are promoted, the rest are read from the cold tier.
    let mut order: Vec<usize> = (0..keys.len()).collect();
    rng.shuffle(&mut order);
    let zipf = Zipf::new(keys.len(), 1.2);
    let top = zipf.ranks_covering(0.89);
    let hot_keys: Vec<NodeKey> = order[..top].iter().map(|&i| keys[i].clone()).collect();
    let t = Instant::now();
    for chunk in hot_keys.chunks(5000) {
        c.promote_nodes(chunk).unwrap();
    }
    println!(
        "promoted the {top} hottest nodes ({:.1}% of the graph) in {:.2} s",
        100.0 * top as f64 / keys.len() as f64,
        t.elapsed().as_secs_f64()
    );
    let before = c.hot_stats().unwrap();
    let cold_before = c.cache_stats();
    let mut ms = Vec::new();
    for _ in 0..queries * 5 {
        let s = &keys[order[zipf.sample(&mut rng)]];
        let t = Instant::now();
        hop_count(c, s, 1);
        ms.push(ms_since(t));
    }
    let after = c.hot_stats().unwrap();
    let (hits, misses) = (after.hits - before.hits, after.misses - before.misses);
    let mut extra = cold_read(c, cold_before, misses);
    extra["hit_rate"] = json!(hits as f64 / (hits + misses).max(1) as f64);
    extra["promoted_nodes"] = json!(top);
    out.push(summary("1-hop, Zipf 1.2 mixed hot/cold", ms, extra));
    out
}

/// What `reads` reads of the cold tier since `before` fetched: how many were ranged (row
/// groups only) and the bytes per read.
fn cold_read(c: &Cluster, before: hopdb_cluster::CacheStats, reads: u64) -> Value {
    let after = c.cache_stats();
    json!({"ranged_reads": after.ranged - before.ranged,
           "cold_bytes_per_read": (after.cold_bytes - before.cold_bytes) / reads.max(1),
           "footer_bytes_held": after.footer_bytes})
}
