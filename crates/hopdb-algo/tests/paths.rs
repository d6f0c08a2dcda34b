//! Shortest paths against NetworkX: bidirectional BFS lengths (NotreDame, MIT8), Dijkstra
//! (road-NY), the full set of shortest paths (email-Eu-core, rome99).
// Integration tests: a failed unwrap/expect is the test failure, reported with its location.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod algo_support;
mod common;

use std::collections::BTreeSet;

use algo_support::*;
use common::{datasets, reference, Loaded};
use hopdb_algo::{all_shortest_paths, dijkstra, dijkstra_distances, shortest_path, AlgoError, Control, Csr};
use serde_json::Value;

/// Checks that `path` runs from `s` to `t` along edges of `out`.
fn assert_real_path(out: &Csr, path: &[u32], s: u32, t: u32) {
    assert_eq!((path[0], path[path.len() - 1]), (s, t));
    for w in path.windows(2) {
        assert!(has_edge(out, w[0], w[1]), "{} -> {} is not an edge", w[0], w[1]);
    }
}

fn check_bidirectional(g: &Loaded, out: &Csr, inc: &Csr, mode: &str, pairs: &[(u32, u32)], name: &str) {
    let tsv = TempFile::tsv(g, &format!("paths-{name}.tsv"));
    let reply = reference("nx_paths.py", &["lengths", tsv.arg(), mode, &join_pairs(pairs)]);
    let c = Control::unbounded();
    let mut reachable = 0;
    for (&(s, t), want) in pairs.iter().zip(reply.as_array().unwrap()) {
        let got = shortest_path(out, inc, s, t, &c).unwrap();
        match (&got, want.as_u64()) {
            (Some(p), Some(len)) => {
                assert_eq!(p.len() as u64 - 1, len, "{name} {s}->{t}");
                assert_real_path(out, p, s, t);
                reachable += 1;
            }
            (None, None) => {}
            _ => panic!("{name} {s}->{t}: ours {got:?}, NetworkX {want}"),
        }
    }
    assert!(
        reachable >= pairs.len() / 3,
        "{name}: too few reachable pairs ({reachable}) to test much"
    );
}

#[test]
fn bidirectional_bfs_matches_networkx() {
    let Some(dir) = datasets() else { return };
    let g = notredame(&dir);
    let out = g.csr();
    let inc = out.transpose();
    let sources = pick(g.n, 50, 11, |v| out.degree(v) > 0);
    let targets = pick(g.n, 50, 12, |v| inc.degree(v) > 0);
    let pairs: Vec<(u32, u32)> = sources.into_iter().zip(targets).collect();
    check_bidirectional(&g, &out, &inc, "directed", &pairs, "notredame");

    let g = mit8(&dir);
    let und = g.csr().undirected();
    let ends = pick(g.n, 100, 13, |_| true);
    let pairs: Vec<(u32, u32)> = ends.chunks(2).map(|p| (p[0], p[1])).collect();
    check_bidirectional(&g, &und, &und, "undirected", &pairs, "mit8");
}

#[test]
fn dijkstra_matches_networkx_on_road_ny() {
    let Some(dir) = datasets() else { return };
    let g = road_ny(&dir);
    let out = g.csr();
    let ends = pick(g.n, 17, 21, |_| true);
    let source = ends[0];
    let pairs: Vec<(u32, u32)> = ends[1..].chunks(2).map(|p| (p[0], p[1])).collect();
    let tsv = TempFile::tsv(&g, "paths-ny.tsv");
    let reply = reference(
        "nx_paths.py",
        &["dijkstra", tsv.arg(), &source.to_string(), &join_pairs(&pairs)],
    );
    let c = Control::unbounded();
    let dist = dijkstra_distances(&out, source, &c).unwrap();
    let want = reply["from_source"].as_array().unwrap();
    assert_eq!(dist.len(), want.len());
    for (v, (d, w)) in dist.iter().zip(want).enumerate() {
        match w.as_f64() {
            Some(w) => assert_eq!(*d, w, "NY distance {source} -> {v}"),
            None => assert!(d.is_infinite(), "NY {source} -> {v}: we reach it, NetworkX does not"),
        }
    }
    for (&(s, t), want) in pairs.iter().zip(reply["pairs"].as_array().unwrap()) {
        let got = dijkstra(&out, s, t, &c).unwrap();
        let (len, path) = got.unwrap_or_else(|| panic!("NY {s}->{t} unreachable, NetworkX says {want}"));
        assert_eq!(Some(len), want.as_f64(), "NY {s}->{t}");
        // The path's own weight (cheapest parallel arc per hop) adds up to its length.
        let mut total = 0.0;
        for w in path.windows(2) {
            let row = out.neighbors(w[0]);
            let weights = out.weights(w[0]).unwrap();
            total += row
                .iter()
                .zip(weights)
                .filter(|(&v, _)| v == w[1])
                .map(|(_, &x)| x)
                .fold(f64::INFINITY, f64::min);
        }
        assert_eq!(total, len, "NY {s}->{t}: path weight");
    }
}

fn paths_set(v: &Value) -> BTreeSet<Vec<u32>> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|p| {
            p.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_u64().unwrap() as u32)
                .collect()
        })
        .collect()
}

fn check_all_paths(g: &Loaded, out: &Csr, inc: &Csr, mode: &str, pairs: &[(u32, u32)], name: &str) {
    let tsv = TempFile::tsv(g, &format!("allpaths-{name}.tsv"));
    let reply = reference("nx_paths.py", &["all", tsv.arg(), mode, &join_pairs(pairs)]);
    let c = Control::unbounded();
    let mut multi = 0;
    for (&(s, t), want) in pairs.iter().zip(reply.as_array().unwrap()) {
        let got = all_shortest_paths(out, inc, s, t, None, &c).unwrap();
        let set: BTreeSet<Vec<u32>> = got.iter().cloned().collect();
        assert_eq!(set.len(), got.len(), "{name} {s}->{t}: duplicate paths");
        assert_eq!(set, paths_set(want), "{name} {s}->{t}");
        multi += usize::from(got.len() > 1);
        if let Some(first) = got.first() {
            let one = shortest_path(out, inc, s, t, &c).unwrap().unwrap();
            assert_eq!(one.len(), first.len());
            assert!(
                set.contains(&one),
                "{name} {s}->{t}: bidirectional BFS path is not a shortest path"
            );
            let limited = all_shortest_paths(out, inc, s, t, Some(2), &c).unwrap();
            assert_eq!(limited[..], got[..got.len().min(2)]);
        }
    }
    assert!(
        multi > pairs.len() / 4,
        "{name}: too few pairs with several shortest paths ({multi})"
    );
}

#[test]
fn all_shortest_paths_match_networkx() {
    let Some(dir) = datasets() else { return };
    let g = eu_core(&dir);
    let out = g.csr();
    let inc = out.transpose();
    let ends = pick(g.n, 60, 31, |v| out.degree(v) > 0 && inc.degree(v) > 0);
    let pairs: Vec<(u32, u32)> = ends.chunks(2).map(|p| (p[0], p[1])).collect();
    check_all_paths(&g, &out, &inc, "directed", &pairs, "eu-core");

    let g = rome99(&dir);
    let out = g.csr();
    let inc = out.transpose();
    let ends = pick(g.n, 40, 32, |_| true);
    let pairs: Vec<(u32, u32)> = ends.chunks(2).map(|p| (p[0], p[1])).collect();
    let unweighted = Loaded {
        n: g.n,
        edges: g.edges.clone(),
        weights: None,
        ids: g.ids.clone(),
    };
    check_all_paths(&unweighted, &out, &inc, "directed", &pairs, "rome99");
}

#[test]
fn errors_and_cancellation() {
    let Some(dir) = datasets() else { return };
    let g = road_ny(&dir);
    let out = g.csr();
    let inc = out.transpose();
    let c = Control::unbounded();
    assert_eq!(
        dijkstra(&out, g.n, 0, &c),
        Err(AlgoError::NodeOutOfRange { node: g.n, n: g.n })
    );
    assert!(matches!(
        shortest_path(&out, &inc, 0, g.n + 5, &c),
        Err(AlgoError::NodeOutOfRange { .. })
    ));
    let expired = Control::unbounded().with_timeout(std::time::Duration::ZERO);
    assert!(matches!(
        dijkstra_distances(&out, 0, &expired),
        Err(AlgoError::DeadlineExceeded(_))
    ));
    let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let cancelled = Control::unbounded().with_cancel(flag);
    assert_eq!(
        all_shortest_paths(&out, &inc, 0, 1000, None, &cancelled),
        Err(AlgoError::Cancelled)
    );
    // A negative weight on the way is an error, not a wrong answer.
    let mut w = g.weights.clone().unwrap();
    w[0] = -1.0;
    let neg = Csr::from_edges(g.n, &g.edges, Some(&w)).unwrap();
    let (s, _) = g.edges[0];
    assert!(matches!(
        dijkstra_distances(&neg, s, &c),
        Err(AlgoError::InvalidArgument(_))
    ));
    let tight = Control::unbounded().with_max_memory(1 << 20);
    assert!(matches!(
        dijkstra_distances(&out, 0, &tight),
        Err(AlgoError::MemoryLimit { .. })
    ));
}
