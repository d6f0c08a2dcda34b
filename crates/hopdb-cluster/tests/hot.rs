//! The hot tier against the embedded store: through a private Redis Cluster (primaries with
//! replicas on loopback), every answer must equal the store's, whether it came from Redis or
//! the cold tier, before and after promotion, eviction, a reload and a killed primary.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use hopdb_cluster::Cluster;
use hopdb_core::{Direction, Graph, GraphRead, NodeKey, WriteMode};
use hopdb_import::{import, EdgeList, ImportSpec, NoProgress};
use hopdb_testdata::datasets;
use hopdb_testdata::redis::PrivateRedisCluster;

mod common;
use common::*;

fn redis(masters: usize, replicas: usize) -> Option<PrivateRedisCluster> {
    match PrivateRedisCluster::start(masters, replicas, 256) {
        Ok(r) => Some(r),
        Err(why) => {
            eprintln!("SKIPPED: {why}");
            None
        }
    }
}

/// The `[cache]` and `[hot]` sections: no partition cache, so every read asks Redis first.
fn hot_sections(r: &PrivateRedisCluster, budget_mb: u64, promote_on_miss: bool) -> String {
    let urls: Vec<String> = r.urls().iter().map(|u| format!("{u:?}")).collect();
    format!(
        "[cache]\nmemory_mb = 0\n[hot]\nredis = [{}]\nbudget_mb = {budget_mb}\npromote_on_miss = {promote_on_miss}\ntimeout_ms = 300\n",
        urls.join(", ")
    )
}

fn lightrag(name: &str) -> Option<Graph> {
    let dir = datasets()?.join(name);
    let g = Graph::in_memory();
    let spec = ImportSpec {
        graphml: vec![dir.join("graph_chunk_entity_relation.graphml.gz")],
        ..ImportSpec::default()
    };
    import(&g, &spec, &NoProgress).unwrap();
    Some(g)
}

fn all_keys(g: &Graph) -> Vec<NodeKey> {
    let mut keys = Vec::new();
    g.for_each_node(None, &mut |n| {
        keys.push(n.key);
        true
    })
    .unwrap();
    keys
}

/// The partitions recorded hot.
fn hot_partitions(c: &Cluster) -> BTreeSet<u32> {
    c.status()
        .unwrap()
        .iter()
        .filter(|s| s.is_hot())
        .map(|s| s.partition)
        .collect()
}

/// Reads a node of partition `p` (of 16) `times` times, heating the partition.
fn read_in(c: &Cluster, keys: &[NodeKey], p: u32, times: usize) {
    let key = keys.iter().find(|k| hopdb_cluster::partition_of(k, 16) == p).unwrap();
    for _ in 0..times {
        c.node(key).unwrap();
    }
}

#[test]
fn misses_promote_nodes_and_hot_reads_answer_as_the_store() {
    let Some(pg) = server() else { return };
    let Some(r) = redis(3, 0) else { return };
    let cold = tempfile::tempdir().unwrap();
    let g = shapes();
    let c = new_cluster_with(&pg, "hot_shapes", cold.path(), 7, &hot_sections(&r, 64, true));
    load(&c, &g, 2);
    // First pass: every node misses, is read from the cold tier and promoted behind the read.
    assert_eq!(assert_same_graph(&g, &c), 40);
    assert!(c.wait_promotions(Duration::from_secs(10)));
    let first = c.hot_stats().unwrap();
    assert_eq!(first.errors, 0, "{first:?}");
    assert!(first.promoted_on_miss >= 40, "{first:?}");
    assert_eq!(r.keys(), 40, "one Redis entry per node");
    // Second pass: every lookup is a hit, and the answers are the same.
    assert_eq!(assert_same_graph(&g, &c), 40);
    let seeds: Vec<NodeKey> = vec![NodeKey::Int(0), "n5".into(), "n37".into()];
    for dir in [Direction::Out, Direction::In, Direction::Both] {
        assert_same_k_hop(&g, &c, &seeds, 4, dir);
    }
    let second = c.hot_stats().unwrap();
    assert_eq!(
        second.misses, first.misses,
        "no lookup of an existing node missed: {second:?}"
    );
    assert!(second.hits > first.hits + 40 * 10, "{first:?} -> {second:?}");
    // An absent node is never in Redis: it misses and the cold tier says it is absent.
    assert_eq!(c.node(&"absent".into()).unwrap(), None);
    assert_eq!(c.edges(&"absent".into(), Direction::Both, None).unwrap(), None);
    assert_eq!(c.hot_stats().unwrap().misses, second.misses + 2);
}

#[test]
fn partitions_are_promoted_and_evicted_whole_and_a_reload_is_never_served_stale() {
    let Some(g) = lightrag("lightrag-africa-cdc-2024") else {
        return;
    };
    let Some(pg) = server() else { return };
    let Some(r) = redis(3, 0) else { return };
    let cold = tempfile::tempdir().unwrap();
    let c = new_cluster_with(&pg, "hot_parts", cold.path(), 16, &hot_sections(&r, 64, false));
    load(&c, &g, 2);
    let status = c.status().unwrap();
    let report = c.promote_partitions(&[0, 1, 2]).unwrap();
    let want: u64 = (0..3).map(|p| status[p].vertex_count).sum();
    assert_eq!((report.partitions, report.nodes), (3, want));
    // Small nodes share keys (buckets of about 16); the metadata counts every key written.
    assert_eq!(r.keys(), report.keys);
    assert!(report.keys * 3 < want, "{} keys for {want} nodes", report.keys);
    let status = c.status().unwrap();
    let hot: Vec<u32> = status.iter().filter(|s| s.is_hot()).map(|s| s.partition).collect();
    assert_eq!(hot, vec![0, 1, 2]);
    assert!(status[0].hot_bytes > 0 && status[0].hot_nodes == status[0].vertex_count);
    assert!(status[0].hot_buckets > 0 && status[0].hot_keys > 0);
    assert_eq!(status.iter().map(|s| s.hot_keys).sum::<u64>(), report.keys);
    // Reads of hot partitions are hits; the rest miss and are not promoted (promote_on_miss off).
    assert_same_graph(&g, &c);
    let s = c.hot_stats().unwrap();
    assert_eq!(
        (s.hits, s.misses),
        (want * 10, (g.node_count().unwrap() - want) * 10),
        "{s:?}"
    );
    assert_eq!(r.keys(), report.keys);
    let evicted = c.evict_partitions(&[1]).unwrap();
    assert_eq!(evicted.entries, status[1].hot_keys);
    assert_eq!(r.keys(), report.keys - status[1].hot_keys);
    assert!(!c.status().unwrap()[1].is_hot());

    // A reload makes new generations: the old entries are never read again.
    let (w, extra) = {
        let mut w = g.write().unwrap();
        let extra = NodeKey::from("a node added before the reload");
        w.upsert_node(extra.clone(), &["Extra"], Default::default(), WriteMode::Merge)
            .unwrap();
        (w, extra)
    };
    w.commit().unwrap();
    load(&c, &g, 2);
    c.refresh().unwrap();
    assert!(c.status().unwrap().iter().all(|s| !s.is_hot()));
    assert!(c.node(&extra).unwrap().is_some());
    let before = c.hot_stats().unwrap();
    assert_same_graph(&g, &c);
    assert_eq!(
        c.hot_stats().unwrap().hits,
        before.hits,
        "no entry of the old generation was read"
    );
    // Evicting after the reload removes the entries of the generation that was promoted too.
    let evicted = c.evict_partitions(&[0, 2]).unwrap();
    assert_eq!(evicted.entries, status[0].hot_keys + status[2].hot_keys);
    assert_eq!(r.keys(), 0);
}

#[test]
fn promote_auto_keeps_the_hottest_partitions_that_fit_the_budget() {
    let Some(dir) = datasets() else { return };
    let Some(pg) = server() else { return };
    let Some(r) = redis(3, 0) else { return };
    // email-Enron in 16 partitions: about half a MiB of slices each.
    let g = Graph::in_memory();
    let mut el = EdgeList::new(dir.join("snap-email-Enron/email-Enron.txt.gz"));
    el.undirected = true;
    let spec = ImportSpec {
        edge_lists: vec![el],
        ..ImportSpec::default()
    };
    import(&g, &spec, &NoProgress).unwrap();
    let cold = tempfile::tempdir().unwrap();
    let c = new_cluster_with(&pg, "hot_auto", cold.path(), 16, &hot_sections(&r, 2, false));
    load(&c, &g, 2);
    // Each partition's slice bytes, from promoting them all once.
    let all: Vec<u32> = (0..16).collect();
    c.promote_partitions(&all).unwrap();
    let sizes: Vec<u64> = c.status().unwrap().iter().map(|s| s.hot_bytes).collect();
    c.evict_partitions(&all).unwrap();
    assert_eq!(r.keys(), 0);
    // Heat partition p with p + 1 reads (0 for partitions 8..16, which stay cold).
    let keys = all_keys(&g);
    for p in 0..8u32 {
        let key = keys.iter().find(|k| hopdb_cluster::partition_of(k, 16) == p).unwrap();
        for _ in 0..=p {
            c.node(key).unwrap();
        }
    }
    // The expected set: hottest first while the running total fits 2 MiB.
    let mut want = BTreeSet::new();
    let mut used = 0;
    for p in (0..8u32).rev() {
        if used + sizes[p as usize] > 2 << 20 {
            break;
        }
        used += sizes[p as usize];
        want.insert(p);
    }
    assert!(!want.is_empty() && want.len() < 8, "sizes {sizes:?}");
    let (promoted, _) = c.promote_auto().unwrap();
    let hot = hot_partitions(&c);
    assert_eq!(hot, want);
    assert_eq!(promoted.partitions, want.len());
    // Heat a partition that was left out above all others: it displaces the coldest kept.
    let outside = (0..8u32).rev().find(|p| !want.contains(p)).unwrap();
    read_in(&c, &keys, outside, 1000);
    let (_, evicted) = c.promote_auto().unwrap();
    let hot = hot_partitions(&c);
    assert!(hot.contains(&outside), "{hot:?}");
    assert!(evicted.partitions >= 1, "{evicted:?}");
    let used: u64 = hot.iter().map(|&p| sizes[p as usize]).sum();
    assert!(used <= 2 << 20, "{used} bytes over the budget");
    let entries: u64 = c
        .status()
        .unwrap()
        .iter()
        .filter(|s| s.is_hot())
        .map(|s| s.hot_keys)
        .sum();
    assert_eq!(r.keys(), entries, "Redis holds exactly the hot partitions");
}

#[test]
fn a_killed_primary_fails_over_and_no_read_goes_wrong() {
    let Some(g) = lightrag("lightrag-africa-cdc-2024") else {
        return;
    };
    let Some(pg) = server() else { return };
    let Some(mut r) = redis(3, 1) else { return };
    let cold = tempfile::tempdir().unwrap();
    let c = new_cluster_with(&pg, "hot_failover", cold.path(), 16, &hot_sections(&r, 64, false));
    load(&c, &g, 2);
    let all: Vec<u32> = (0..16).collect();
    let redis_keys = c.promote_partitions(&all).unwrap().keys;
    let keys = all_keys(&g);
    // Let the replicas catch up before a primary dies.
    let want_keys = g.node_count().unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while (0..6)
        .filter_map(|i| r.cli(i, &["dbsize"]).ok())
        .map(|o| o.trim().parse::<u64>().unwrap_or(0))
        .sum::<u64>()
        < 2 * redis_keys
    {
        assert!(Instant::now() < deadline, "replication did not catch up");
        std::thread::sleep(Duration::from_millis(50));
    }
    let check = |c: &Cluster| {
        for chunk in keys.chunks(97) {
            let want = g.edges_batch(chunk, Direction::Both, None, None).unwrap();
            let got = c.edges_batch(chunk, Direction::Both, None).unwrap();
            for (w, h) in want.iter().zip(&got) {
                assert_eq!(edge_set(w.as_ref().unwrap()), edge_set(h.as_ref().unwrap()));
            }
        }
    };
    check(&c);
    let before = c.hot_stats().unwrap();
    assert_eq!(before.misses, 0, "{before:?}");
    r.kill(0);
    // Until the replica takes over, reads of that primary's slots fall back to the cold tier.
    let started = Instant::now();
    let mut rounds = 0;
    while started.elapsed() < Duration::from_secs(3) {
        check(&c);
        rounds += 1;
    }
    r.wait_ok(Duration::from_secs(30)).unwrap();
    let during = c.hot_stats().unwrap();
    assert!(during.errors > 0, "the dead primary was noticed: {during:?}");
    // After the failover every lookup is a hit again, served by the promoted replica.
    std::thread::sleep(Duration::from_millis(1500));
    check(&c);
    let s1 = c.hot_stats().unwrap();
    check(&c);
    let s2 = c.hot_stats().unwrap();
    assert_eq!(s2.misses, s1.misses, "{s1:?} -> {s2:?}");
    assert_eq!(s2.hits - s1.hits, want_keys, "{s1:?} -> {s2:?}");
    assert_eq!(s2.errors, s1.errors);
    assert_eq!(r.current_masters().len(), 3);
    eprintln!("{rounds} rounds of reads while a primary was down; {during:?}");
}

#[test]
fn an_unreachable_or_hanging_redis_leaves_reads_to_the_cold_tier() {
    use hopdb_testdata::proxy::{Fault, FaultProxy};
    let Some(pg) = server() else { return };
    let g = shapes();
    // A port nothing listens on (connections refused), and a proxy that accepts and then
    // never answers (connections hang until the timeout).
    let refused = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let hanging = FaultProxy::start(refused).unwrap();
    hanging.set(Fault::Stall);
    for (name, port) in [("refused", refused), ("hanging", hanging.port)] {
        let cold = tempfile::tempdir().unwrap();
        let sections =
            format!("[cache]\nmemory_mb = 0\n[hot]\nredis = [\"redis://127.0.0.1:{port}\"]\ntimeout_ms = 200\n");
        let c = new_cluster_with(&pg, &format!("hot_{name}"), cold.path(), 7, &sections);
        load(&c, &g, 2);
        let started = Instant::now();
        for _ in 0..3 {
            assert_eq!(assert_same_graph(&g, &c), 40, "{name}");
        }
        let s = c.hot_stats().unwrap();
        assert!(s.errors > 0 && s.hits == 0, "{name}: {s:?}");
        // Connection attempts back off (1 s, doubling): a hanging Redis stalls a few reads,
        // not every one (3 x 40 nodes x 10 reads each here).
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{name}: {:?}",
            started.elapsed()
        );
    }
}

#[test]
fn a_write_is_never_answered_stale_from_the_hot_tier() {
    let Some(pg) = server() else { return };
    let Some(r) = redis(3, 0) else { return };
    let cold = tempfile::tempdir().unwrap();
    let g = shapes();
    let c = new_cluster_with(&pg, "hot_writes", cold.path(), 7, &hot_sections(&r, 64, true));
    load(&c, &g, 2);
    c.promote_partitions(&(0..7).collect::<Vec<_>>()).unwrap();
    assert_eq!(hot_partitions(&c).len(), 7);
    assert_eq!(assert_same_graph(&g, &c), 40);
    let before = c.hot_stats().unwrap();
    assert_eq!(before.misses, 0, "{before:?}");

    let batch = vec![
        hopdb_cluster::Mutation::node(
            "n5",
            &["Changed"],
            hopdb_core::props([("name", hopdb_core::Value::Str("renamed".into()))]),
        ),
        hopdb_cluster::Mutation::edge("n5", "NEXT", "n20", Some(3.0), Default::default()),
        hopdb_cluster::Mutation::DeleteNode { key: "n10".into() },
    ];
    let report = c.write(&batch).unwrap();
    {
        let mut w = g.write().unwrap();
        w.upsert_node(
            "n5",
            &["Changed"],
            hopdb_core::props([("name", hopdb_core::Value::Str("renamed".into()))]),
            WriteMode::Merge,
        )
        .unwrap();
        w.upsert_edge("n5", "NEXT", "n20", Some(3.0), Default::default(), WriteMode::Merge)
            .unwrap();
        w.delete_node_if_exists("n10").unwrap();
        w.commit().unwrap();
    }
    // The written partitions have new versions: their old entries are not read (misses, then
    // promotion on miss under the new version); the others are still hits.
    let written: BTreeSet<u32> = c
        .status()
        .unwrap()
        .iter()
        .filter(|s| s.delta_ops > 0)
        .map(|s| s.partition)
        .collect();
    assert_eq!(written.len(), report.partitions);
    assert_eq!(hot_partitions(&c), (0..7).filter(|p| !written.contains(p)).collect());
    assert_eq!(assert_same_graph(&g, &c), 39);
    let after = c.hot_stats().unwrap();
    assert!(after.misses > 0, "{after:?}");
    assert!(c.wait_promotions(Duration::from_secs(10)));
    assert_eq!(assert_same_graph(&g, &c), 39);
    assert_eq!(c.hot_stats().unwrap().misses, after.misses, "promoted on the miss");
    // A compaction changes the versions again; answers stay the store's.
    c.compact(None).unwrap();
    assert_eq!(assert_same_graph(&g, &c), 39);
    assert!(c.wait_promotions(Duration::from_secs(10)));
    assert_eq!(assert_same_graph(&g, &c), 39);
}

#[test]
fn damaged_buckets_send_reads_to_the_cold_tier() {
    let Some(pg) = server() else { return };
    let Some(r) = redis(3, 0) else { return };
    let cold = tempfile::tempdir().unwrap();
    let g = shapes();
    let c = new_cluster_with(&pg, "hot_damaged", cold.path(), 7, &hot_sections(&r, 64, false));
    load(&c, &g, 2);
    let report = c.promote_partitions(&(0..7).collect::<Vec<_>>()).unwrap();
    assert!(report.keys < report.nodes, "{report:?}");
    assert_eq!(assert_same_graph(&g, &c), 40);
    let before = c.hot_stats().unwrap();
    assert_eq!(
        before.misses, 0,
        "every node is in a bucket or under its own key: {before:?}"
    );
    // Every bucket cut short: each read finds it damaged and asks the cold tier instead.
    let mut damaged = 0;
    for i in r.current_masters() {
        let listed = r.cli(i, &["--scan", "--pattern", "{p*}:b*"]).unwrap();
        for key in listed.lines().filter(|k| !k.is_empty()) {
            r.cli(i, &["set", key, "\u{1}\u{5}ab"]).unwrap();
            damaged += 1;
        }
    }
    assert!(damaged > 0 && damaged <= report.keys, "{damaged} buckets");
    assert_eq!(assert_same_graph(&g, &c), 40);
    let after = c.hot_stats().unwrap();
    assert!(after.misses > before.misses, "{before:?} -> {after:?}");
}
