//! k-hop neighbourhoods and LightRAG's bounded BFS subgraph against NetworkX on real graphs.
// Integration tests: a failed unwrap/expect is the test failure, reported with its location.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod algo_support;
mod common;

use std::collections::{BTreeSet, HashMap};
use std::time::Instant;

use algo_support::*;
use common::{datasets, reference, Loaded};
use hopdb_algo::{bfs_distances, k_hop, lightrag_subgraph, lightrag_top_degree, AlgoError, Control, Csr, HopMode};
use serde_json::{json, Value};

/// Node -> distance (1..=cutoff) per seed, from nx_khop.py.
fn nx_distances(reply: &Value, seed: u32) -> HashMap<u32, u32> {
    reply[seed.to_string()]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_u64().unwrap() as u32, p[1].as_u64().unwrap() as u32))
        .collect()
}

/// NetworkX's distances within 6 hops for each (direction, seeds) pair, one script run.
fn nx_khop(g: &Loaded, runs: &[(&str, &[u32])], name: &str) -> Value {
    let tsv = TempFile::tsv(g, &format!("khop-{name}.tsv"));
    let specs: Vec<String> = runs
        .iter()
        .map(|(mode, seeds)| format!("{mode}={}", join(seeds)))
        .collect();
    let mut args = vec![tsv.arg(), "6"];
    args.extend(specs.iter().map(String::as_str));
    reference("nx_khop.py", &args)
}

/// Compares exactly-k and within-k for k = 1..=6 (and the BFS distances) with NetworkX, and
/// checks that limited queries return a prefix of the full answer.
fn check_khop(reply: &Value, views: &[&Csr], mode: &str, seeds: &[u32], name: &str) {
    let reply = &reply[mode];
    let c = Control::unbounded();
    for &s in seeds {
        let expected = nx_distances(reply, s);
        for k in 1..=6u32 {
            let exact: BTreeSet<u32> = expected.iter().filter(|(_, &d)| d == k).map(|(&v, _)| v).collect();
            let within: BTreeSet<u32> = expected.iter().filter(|(_, &d)| d <= k).map(|(&v, _)| v).collect();
            let got_exact = k_hop(views, s, k, HopMode::Exactly, None, &c).unwrap();
            let got_exact_set: BTreeSet<u32> = got_exact.iter().copied().collect();
            let got_within = k_hop(views, s, k, HopMode::Within, None, &c).unwrap();
            assert_eq!(
                got_exact.len(),
                exact.len(),
                "{name} {mode} seed {s} k={k}: duplicates or wrong count"
            );
            assert_eq!(got_exact_set, exact, "{name} {mode} seed {s} exactly {k}");
            assert_eq!(got_within.len(), within.len(), "{name} {mode} seed {s} k={k}");
            assert_eq!(
                got_within.iter().copied().collect::<BTreeSet<_>>(),
                within,
                "{name} {mode} seed {s} within {k}"
            );
            for (hop, full) in [(HopMode::Within, &got_within), (HopMode::Exactly, &got_exact)] {
                let limited = k_hop(views, s, k, hop, Some(100), &c).unwrap();
                assert_eq!(limited.len(), full.len().min(100));
                assert_eq!(
                    limited[..],
                    full[..limited.len()],
                    "{name} {mode} seed {s} {hop:?} {k}: limit is not a prefix"
                );
            }
        }
        let dist = bfs_distances(views, s, Some(6), &c).unwrap();
        for (v, &d) in dist.iter().enumerate() {
            let want = if v as u32 == s {
                Some(0)
            } else {
                expected.get(&(v as u32)).copied()
            };
            assert_eq!(
                if d == u32::MAX { None } else { Some(d) },
                want,
                "{name} bfs_distances seed {s} node {v}"
            );
        }
    }
}

#[test]
fn k_hop_matches_networkx_on_notredame() {
    let Some(dir) = datasets() else { return };
    let g = notredame(&dir);
    let out = g.csr();
    let inc = out.transpose();
    let seeds = pick(g.n, 20, 1, |v| out.degree(v) > 0);
    let few = pick(g.n, 4, 2, |v| inc.degree(v) > 0);
    let reply = nx_khop(&g, &[("out", &seeds), ("in", &few), ("both", &few[..2])], "notredame");
    check_khop(&reply, &[&out], "out", &seeds, "notredame");
    check_khop(&reply, &[&inc], "in", &few, "notredame");
    check_khop(&reply, &[&out, &inc], "both", &few[..2], "notredame");
}

#[test]
fn k_hop_matches_networkx_on_mit8_undirected() {
    let Some(dir) = datasets() else { return };
    let g = mit8(&dir);
    let und = g.csr().undirected();
    let seeds = pick(g.n, 20, 3, |_| true);
    let reply = nx_khop(&g, &[("both", &seeds)], "mit8");
    check_khop(&reply, &[&und], "both", &seeds, "mit8");
}

/// The benchmark query: within 1..4 hops, LIMIT 100, next to the biggest hubs. Early
/// termination means it touches only the first rows, so it must be fast even in debug.
#[test]
fn k_hop_limit_stops_early_at_hubs() {
    let Some(dir) = datasets() else { return };
    let g = notredame(&dir);
    let out = g.csr();
    let inc = out.transpose();
    let mut hubs: Vec<u32> = (0..g.n).collect();
    hubs.sort_by_key(|&v| std::cmp::Reverse(out.degree(v) + inc.degree(v)));
    let c = Control::unbounded();
    let t = Instant::now();
    for &h in &hubs[..50] {
        let got = k_hop(&[&out, &inc], h, 4, HopMode::Within, Some(100), &c).unwrap();
        assert_eq!(got.len(), 100);
        assert!(!got.contains(&h));
    }
    assert!(
        t.elapsed().as_millis() < 500,
        "50 limited hub queries took {:?}",
        t.elapsed()
    );
    // A memory bound that a full 6-hop ball exceeds is a clear error, not an abort.
    let tight = Control::unbounded().with_max_memory(64 * 1024);
    assert!(matches!(
        k_hop(&[&out, &inc], hubs[0], 6, HopMode::Within, None, &tight),
        Err(AlgoError::MemoryLimit { .. })
    ));
}

/// Ranks of the labels in Python `str` order (code points = UTF-8 byte order).
fn label_ranks(labels: &[String]) -> Vec<u32> {
    let mut order: Vec<usize> = (0..labels.len()).collect();
    order.sort_by(|&a, &b| labels[a].cmp(&labels[b]));
    let mut rank = vec![0u32; labels.len()];
    for (r, &v) in order.iter().enumerate() {
        rank[v] = r as u32;
    }
    rank
}

/// Says whether nx_lightrag.py also ran LightRAG's own get_knowledge_graph (it fails when that
/// disagrees with its statement-for-statement copy) or only the copy.
fn report_lightrag(reply: &Value, what: &str) {
    match reply["lightrag"].as_str() {
        Some(v) => eprintln!("{what}: reference checked against LightRAG {v}'s own NetworkXStorage"),
        None => eprintln!(
            "{what}: lightrag not importable; compared with nx_lightrag.py's copy of LightRAG 1.5.7 \
             (set HOPDB_REFERENCE_PYTHON to a python with lightrag-hku to run the real code too)"
        ),
    }
}

/// Compares one LightRAG query answer: visiting order, node set, edges, truncation flag.
fn check_lightrag(graph: &Csr, rank: &[u32], query: &Value, want: &Value, what: &str) {
    let c = Control::unbounded();
    let max_nodes = query[2].as_u64().unwrap() as usize;
    let got = if query[0] == "*" {
        lightrag_top_degree(graph, max_nodes, Some(rank), &c).unwrap()
    } else {
        let start = query[0].as_u64().unwrap() as u32;
        lightrag_subgraph(
            graph,
            start,
            query[1].as_u64().unwrap() as u32,
            max_nodes,
            Some(rank),
            &c,
        )
        .unwrap()
    };
    let bfs: Vec<u32> = want["bfs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as u32)
        .collect();
    assert_eq!(got.nodes, bfs, "{what} {query}: visiting order");
    let mut nodes = got.nodes.clone();
    nodes.sort_unstable();
    assert_eq!(json!(nodes), want["nodes"], "{what} {query}: nodes");
    let edges: Vec<[u32; 2]> = got.edges.iter().map(|&(u, v)| [u, v]).collect();
    assert_eq!(json!(edges), want["edges"], "{what} {query}: edges");
    assert_eq!(json!(got.truncated), want["truncated"], "{what} {query}: truncated");
}

#[test]
fn lightrag_subgraph_matches_lightrag_on_notredame() {
    let Some(dir) = datasets() else { return };
    let g = notredame(&dir);
    let simple = g.csr().simple_undirected(true);
    let rank = label_ranks(&g.ids);
    let tsv = TempFile::tsv(&g, "lightrag-notredame.tsv");
    let labels = TempFile::new("lightrag-notredame.labels");
    std::fs::write(&labels.0, g.ids.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    // Random starts, plus hubs where the max_nodes cut and the degree/label ties matter.
    let mut starts = pick(g.n, 8, 4, |_| true);
    let mut by_degree: Vec<u32> = (0..g.n).collect();
    by_degree.sort_by_key(|&v| std::cmp::Reverse(simple.degree(v)));
    starts.extend(&by_degree[..3]);
    let mut queries: Vec<Value> = Vec::new();
    for &s in &starts {
        for (depth, max_nodes) in [(3, 1000), (2, 100), (1, 30), (0, 1), (6, 300)] {
            queries.push(json!([s, depth, max_nodes]));
        }
    }
    queries.push(json!(["*", 0, 1000]));
    let qfile = TempFile::new("lightrag-notredame.json");
    std::fs::write(&qfile.0, serde_json::to_string(&queries).unwrap()).unwrap();
    let reply = reference("nx_lightrag.py", &["tsv", tsv.arg(), labels.arg(), qfile.arg()]);
    report_lightrag(&reply, "notredame");
    let answers = reply["results"].as_array().unwrap();
    assert_eq!(answers.len(), queries.len());
    assert!(answers.iter().any(|a| a["truncated"] == true) && answers.iter().any(|a| a["truncated"] == false));
    for (q, a) in queries.iter().zip(answers) {
        check_lightrag(&simple, &rank, q, a, "notredame");
    }
}

#[test]
fn lightrag_subgraph_matches_lightrag_on_its_own_graphs() {
    let Some(dir) = datasets() else { return };
    for name in [
        "lightrag-dickens-v2",
        "lightrag-lennyhub-podcasts",
        "lightrag-zh-incidents-legacy",
        "lightrag-africa-cdc-2024",
        "lightrag-dickens-full-workdir",
    ] {
        let path = dir.join(name).join("graph_chunk_entity_relation.graphml.gz");
        let reply = reference("nx_lightrag.py", &["graphml", path.to_str().unwrap()]);
        report_lightrag(&reply, name);
        let labels: Vec<String> = reply["labels"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l.as_str().unwrap().to_string())
            .collect();
        let edges: Vec<(u32, u32)> = reply["edges"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| (e[0].as_u64().unwrap() as u32, e[1].as_u64().unwrap() as u32))
            .collect();
        let graph = Csr::from_edges(labels.len() as u32, &edges, None)
            .unwrap()
            .simple_undirected(true);
        let rank = label_ranks(&labels);
        let queries = reply["queries"].as_array().unwrap();
        for (q, a) in queries.iter().zip(reply["results"].as_array().unwrap()) {
            check_lightrag(&graph, &rank, q, a, name);
        }
    }
}
