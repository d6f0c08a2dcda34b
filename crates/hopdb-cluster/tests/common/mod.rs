//! What the cluster tests share: private servers, a cluster over a temporary cold tier, and
//! the comparisons of every answer with the embedded store the cluster was loaded from.
#![allow(dead_code)] // each test binary uses its own subset

use std::collections::{BTreeSet, HashSet};
use std::path::Path;

use hopdb_cluster::{Cluster, ClusterConfig, LoadOptions};
use hopdb_core::{props, Direction, Edge, EdgeTypeOptions, Graph, GraphRead, NodeKey, Value, WriteMode};
use hopdb_testdata::postgres::PrivateServer;

pub fn server() -> Option<PrivateServer> {
    match PrivateServer::start() {
        Ok(s) => Some(s),
        Err(why) => {
            eprintln!("SKIPPED: {why}");
            None
        }
    }
}

pub fn config(conn: &str, cold: &Path, partitions: u32) -> ClusterConfig {
    config_with(conn, cold, partitions, "[cache]\nmemory_mb = 64\n")
}

/// A configuration with `sections` (TOML) after the cold tier and metadata.
pub fn config_with(conn: &str, cold: &Path, partitions: u32, sections: &str) -> ClusterConfig {
    ClusterConfig::parse(&format!(
        "partitions = {partitions}\n[cold]\nurl = \"file://{}\"\n[metadata]\npostgres = \"{conn}\"\n{sections}",
        cold.display()
    ))
    .unwrap()
}

pub fn new_cluster(pg: &PrivateServer, db: &str, cold: &Path, partitions: u32) -> Cluster {
    new_cluster_with(pg, db, cold, partitions, "[cache]\nmemory_mb = 64\n")
}

/// A new cluster whose configuration has `sections`.
pub fn new_cluster_with(pg: &PrivateServer, db: &str, cold: &Path, partitions: u32, sections: &str) -> Cluster {
    let cfg = config_with(&pg.create_database(db).unwrap(), cold, partitions, sections);
    assert!(Cluster::init(&cfg).unwrap());
    assert!(
        !Cluster::init(&cfg).unwrap(),
        "a second init with the same settings is a no-op"
    );
    Cluster::open(cfg).unwrap()
}

pub fn load(c: &Cluster, g: &Graph, workers: usize) -> hopdb_cluster::LoadReport {
    c.load_from(
        g,
        &LoadOptions {
            workers,
            ..LoadOptions::default()
        },
    )
    .unwrap()
}

/// An edge as a comparable tuple (properties by their debug form: maps are ordered).
pub fn edge_tuple(e: &Edge) -> (String, String, String, u64, Option<u64>, String) {
    (
        e.src.to_string(),
        e.ty.to_string(),
        e.dst.to_string(),
        e.id,
        e.weight.map(f64::to_bits),
        format!("{:?}", e.props),
    )
}

pub fn edge_set(list: &[Edge]) -> Vec<(String, String, String, u64, Option<u64>, String)> {
    let mut v: Vec<_> = list.iter().map(edge_tuple).collect();
    v.sort();
    v
}

/// Every node of `g`: the node, its edges, degrees and neighbours in every direction, as the
/// cluster answers them (batched, as a hop asks). Returns the number of nodes compared.
pub fn assert_same_graph(g: &Graph, c: &Cluster) -> usize {
    let mut keys = Vec::new();
    g.for_each_node(None, &mut |n| {
        keys.push(n.key);
        true
    })
    .unwrap();
    for chunk in keys.chunks(300) {
        let want = g.nodes_batch(chunk).unwrap();
        let got = c.nodes_batch(chunk).unwrap();
        for (w, h) in want.iter().zip(&got) {
            let (w, h) = (w.as_ref().unwrap(), h.as_ref().unwrap());
            assert_eq!((&w.key, format!("{:?}", w.props)), (&h.key, format!("{:?}", h.props)));
            assert_eq!(
                w.labels.iter().collect::<BTreeSet<_>>(),
                h.labels.iter().collect::<BTreeSet<_>>(),
                "labels of {}",
                w.key
            );
        }
        for dir in [Direction::Out, Direction::In, Direction::Both] {
            let want = g.edges_batch(chunk, dir, None, None).unwrap();
            let got = c.edges_batch(chunk, dir, None).unwrap();
            let nbrs = c.neighbors_batch(chunk, dir, None).unwrap();
            for (i, key) in chunk.iter().enumerate() {
                let (w, h) = (want[i].as_ref().unwrap(), got[i].as_ref().unwrap());
                assert_eq!(edge_set(w), edge_set(h), "{dir:?} edges of {key}");
                let want_nbrs: BTreeSet<String> = g
                    .neighbors(key, dir, None, None)
                    .unwrap()
                    .iter()
                    .map(|k| k.to_string())
                    .collect();
                let got_nbrs: Vec<String> = nbrs[i].as_ref().unwrap().iter().map(|k| k.to_string()).collect();
                assert_eq!(
                    got_nbrs.len(),
                    want_nbrs.len(),
                    "{dir:?} neighbours of {key} are distinct"
                );
                assert_eq!(
                    got_nbrs.into_iter().collect::<BTreeSet<_>>(),
                    want_nbrs,
                    "{dir:?} neighbours of {key}"
                );
                let (wd, hd) = (
                    g.degree(key, dir, None).unwrap(),
                    c.degree(key, dir, None).unwrap().unwrap(),
                );
                assert_eq!(wd.count, hd.count, "{dir:?} degree of {key}");
                assert!(
                    (wd.weight_sum - hd.weight_sum).abs() <= 1e-9 * wd.weight_sum.abs().max(1.0),
                    "{dir:?} weight sum of {key}"
                );
            }
        }
    }
    keys.len()
}

/// k-hop levels from the store by plain BFS over `neighbors`.
pub fn store_levels(g: &Graph, seed: &NodeKey, k: usize, dir: Direction) -> Vec<BTreeSet<String>> {
    let mut seen: HashSet<String> = HashSet::from([seed.to_string()]);
    let mut frontier = vec![seed.clone()];
    let mut levels = Vec::new();
    for _ in 0..k {
        let mut next = Vec::new();
        for u in &frontier {
            for v in g.neighbors(u, dir, None, None).unwrap() {
                if seen.insert(v.to_string()) {
                    next.push(v);
                }
            }
        }
        if next.is_empty() && frontier.is_empty() {
            break;
        }
        levels.push(next.iter().map(|k| k.to_string()).collect());
        frontier = next;
    }
    while levels.last().is_some_and(BTreeSet::is_empty) {
        levels.pop();
    }
    levels
}

pub fn assert_same_k_hop(g: &Graph, c: &Cluster, seeds: &[NodeKey], k: usize, dir: Direction) {
    for s in seeds {
        let mut got: Vec<BTreeSet<String>> = c
            .k_hop(std::slice::from_ref(s), k, dir)
            .unwrap()
            .into_iter()
            .map(|l| l.iter().map(|k| k.to_string()).collect())
            .collect();
        while got.last().is_some_and(BTreeSet::is_empty) {
            got.pop();
        }
        assert_eq!(got, store_levels(g, s, k, dir), "{k}-hop {dir:?} from {s}");
    }
}

pub fn assert_counts(g: &Graph, c: &Cluster) {
    let status = c.status().unwrap();
    assert_eq!(status.len(), c.partitions() as usize);
    assert_eq!(
        status.iter().map(|p| p.vertex_count).sum::<u64>(),
        g.node_count().unwrap()
    );
    assert_eq!(
        status.iter().map(|p| p.edge_count).sum::<u64>(),
        g.edge_count().unwrap()
    );
}

/// Every edge shape: directed, undirected, multi-edges, self-loops of each, weights, isolated
/// nodes, integer and string keys, properties of many kinds.
pub fn shapes() -> Graph {
    let g = Graph::in_memory();
    let mut w = g.write().unwrap();
    w.define_edge_type(
        "KNOWS",
        EdgeTypeOptions {
            undirected: true,
            multi: false,
        },
    )
    .unwrap();
    w.define_edge_type(
        "PAID",
        EdgeTypeOptions {
            undirected: false,
            multi: true,
        },
    )
    .unwrap();
    for i in 0..40i64 {
        let key = if i % 3 == 0 {
            NodeKey::Int(i)
        } else {
            NodeKey::Str(format!("n{i}"))
        };
        let p = props([
            ("i", Value::Int(i)),
            ("name", Value::Str(format!("node {i} ✓"))),
            (
                "tags",
                Value::List(vec![Value::Int(i), Value::Bool(i % 2 == 0), Value::Float(0.5)]),
            ),
        ]);
        w.upsert_node(
            key,
            &[if i % 2 == 0 { "Even" } else { "Odd" }, "Node"],
            p,
            WriteMode::Merge,
        )
        .unwrap();
    }
    let k = |i: i64| {
        if i % 3 == 0 {
            NodeKey::Int(i)
        } else {
            NodeKey::Str(format!("n{i}"))
        }
    };
    for i in 0..38i64 {
        w.upsert_edge(
            k(i),
            "NEXT",
            k(i + 1),
            Some(i as f64 / 4.0),
            props([("step", Value::Int(i))]),
            WriteMode::Merge,
        )
        .unwrap();
        if i % 4 == 0 {
            w.upsert_edge(
                k(i),
                "KNOWS",
                k((i * 7) % 38),
                None,
                props::<String, _>([]),
                WriteMode::Merge,
            )
            .unwrap();
        }
        if i % 5 == 0 {
            w.add_edge(k(i), "PAID", k(i + 2), Some(1.5), props([("n", Value::Int(1))]))
                .unwrap();
            w.add_edge(k(i), "PAID", k(i + 2), Some(2.5), props([("n", Value::Int(2))]))
                .unwrap();
        }
    }
    w.upsert_edge(k(3), "NEXT", k(3), Some(9.0), props::<String, _>([]), WriteMode::Merge)
        .unwrap(); // directed self-loop
    w.upsert_edge(k(5), "KNOWS", k(5), Some(2.0), props::<String, _>([]), WriteMode::Merge)
        .unwrap(); // undirected self-loop
    w.commit().unwrap();
    g
}
