//! The store-direct and projection paths against each other and against an independent
//! reference (hopdb-algo on a CSR read straight from the dataset file), on real graphs; then
//! staleness, rebuilds, errors, cancellation and bounds on small graphs built for the case.
// Integration tests: a failed unwrap/expect is the test failure, reported with its location.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use hopdb_algo::{AlgoError, Control, Csr, HopMode};
use hopdb_analytics::{Analytics, AnalyticsError, KHop, PathQuery, ProjectionSpec, Used, Via};
use hopdb_core::{Direction, EdgeTypeOptions, ErrorKind, Graph, GraphRead, NodeKey, WriteMode};
use hopdb_import::{import, EdgeList, ImportSpec, NoProgress};
use rand::{Rng, SeedableRng};

use hopdb_testdata::datasets;

/// The file's edges as integer pairs, read independently of hopdb-import.
fn read_pairs(path: &Path) -> Vec<(i64, i64)> {
    let f = std::fs::File::open(path).unwrap();
    let r = BufReader::new(flate2::read::GzDecoder::new(f));
    let mut out = Vec::new();
    for line in r.lines() {
        let line = line.unwrap();
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') || t.starts_with('%') {
            continue;
        }
        let mut it = t
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|s| !s.is_empty());
        let (Some(a), Some(b)) = (it.next(), it.next()) else {
            continue;
        };
        if let (Ok(a), Ok(b)) = (a.parse(), b.parse()) {
            out.push((a, b));
        }
    }
    out
}

/// A reference graph: dense numbering of the keys, the out and in views.
struct Reference {
    keys: Vec<i64>,
    index: HashMap<i64, u32>,
    out: Csr,
    inc: Csr,
    both: Csr,
}

fn reference(pairs: &[(i64, i64)], undirected: bool) -> Reference {
    let mut keys: Vec<i64> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
    keys.sort_unstable();
    keys.dedup();
    let index: HashMap<i64, u32> = keys.iter().enumerate().map(|(i, &k)| (k, i as u32)).collect();
    let mut edges: HashSet<(u32, u32)> = HashSet::new();
    for &(a, b) in pairs {
        let (a, b) = (index[&a], index[&b]);
        edges.insert(if undirected { (a.min(b), a.max(b)) } else { (a, b) });
    }
    let mut list: Vec<(u32, u32)> = edges.into_iter().collect();
    list.sort_unstable();
    let n = keys.len() as u32;
    let base = Csr::from_edges(n, &list, None).unwrap();
    let (out, inc) = if undirected {
        let u = base.undirected();
        (u.clone(), u)
    } else {
        (base.clone(), base.transpose())
    };
    let both = base.undirected();
    Reference {
        keys,
        index,
        out,
        inc,
        both,
    }
}

fn load(path: &Path, undirected: bool, on_disk: Option<&Path>) -> Graph {
    let g = match on_disk {
        Some(dir) => Graph::open(dir).unwrap(),
        None => Graph::in_memory(),
    };
    let spec = ImportSpec {
        edge_lists: vec![EdgeList {
            undirected,
            ..EdgeList::new(path)
        }],
        ..ImportSpec::default()
    };
    import(&g, &spec, &NoProgress).unwrap();
    g
}

fn int_keys(keys: &[NodeKey]) -> Vec<i64> {
    keys.iter()
        .map(|k| match k {
            NodeKey::Int(i) => *i,
            NodeKey::Str(s) => panic!("unexpected string key {s}"),
        })
        .collect()
}

fn views(r: &Reference, dir: Direction) -> Vec<&Csr> {
    match dir {
        Direction::Out => vec![&r.out],
        Direction::In => vec![&r.inc],
        Direction::Both => vec![&r.out, &r.inc],
    }
}

/// k-hop sets (every k, mode and direction), limited k-hop validity and shortest-path lengths:
/// store == projection == reference, for `seeds` random nodes.
fn cross_check(file: &str, undirected: bool, seeds: usize, on_disk: bool) {
    let Some(root) = datasets() else { return };
    let path = root.join(file);
    let pairs = read_pairs(&path);
    let r = reference(&pairs, undirected);
    let tmp = tempfile::tempdir().unwrap();
    let g = load(&path, undirected, on_disk.then_some(tmp.path()));
    let an = Analytics::new(g);
    let ctrl = Control::default();
    let built = an.projection(&ProjectionSpec::all(), &ctrl).unwrap();
    assert!(built.rebuilt);
    assert_eq!(built.projection.node_count() as usize, r.keys.len(), "{file}: nodes");
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
    let dirs = if undirected {
        vec![Direction::Both, Direction::Out]
    } else {
        vec![Direction::Out, Direction::In, Direction::Both]
    };
    for _ in 0..seeds {
        let s = rng.random_range(0..r.keys.len());
        let key = NodeKey::Int(r.keys[s]);
        for &dir in &dirs {
            for k in 1..=3u32 {
                for mode in [HopMode::Within, HopMode::Exactly] {
                    let q = KHop {
                        mode,
                        dir,
                        ..KHop::within(k)
                    };
                    let want: HashSet<i64> = hopdb_algo::k_hop(&views(&r, dir), s as u32, k, mode, None, &ctrl)
                        .unwrap()
                        .into_iter()
                        .map(|v| r.keys[v as usize])
                        .collect();
                    let on_store = an.k_hop(&key, &q.clone().via(Via::Store), &ctrl).unwrap();
                    let on_proj = an.k_hop(&key, &q.clone().via(Via::Auto), &ctrl).unwrap();
                    assert_eq!(on_store.used, Used::Store);
                    assert!(matches!(on_proj.used, Used::Projection { .. }));
                    let a: Vec<i64> = int_keys(&on_store.value);
                    let b: Vec<i64> = int_keys(&on_proj.value);
                    assert_eq!(
                        a.len(),
                        want.len(),
                        "{file} {key} k={k} {mode:?} {dir:?}: duplicates or misses"
                    );
                    assert_eq!(
                        a.iter().copied().collect::<HashSet<_>>(),
                        want,
                        "{file} {key} k={k} {mode:?} {dir:?} store"
                    );
                    assert_eq!(
                        b.iter().copied().collect::<HashSet<_>>(),
                        want,
                        "{file} {key} k={k} {mode:?} {dir:?} projection"
                    );
                }
            }
            // LIMIT: the first nodes found, all within k, as many as exist up to the limit.
            let dist = hopdb_algo::bfs_distances(&views(&r, dir), s as u32, Some(4), &ctrl).unwrap();
            let reachable = dist.iter().filter(|&&d| (1..=4).contains(&d)).count();
            for via in [Via::Store, Via::Auto] {
                let got = an
                    .k_hop(&key, &KHop::within(4).dir(dir).limit(100).via(via), &ctrl)
                    .unwrap();
                let got = int_keys(&got.value);
                assert_eq!(
                    got.len(),
                    reachable.min(100),
                    "{file} {key} {dir:?} {via:?}: limited count"
                );
                assert_eq!(got.iter().collect::<HashSet<_>>().len(), got.len());
                for v in got {
                    let d = dist[r.index[&v] as usize];
                    assert!(
                        (1..=4).contains(&d),
                        "{file} {key}: {v} at distance {d} in a 4-hop answer"
                    );
                }
            }
        }
        // Shortest paths to another random node: the same length everywhere, a real path.
        let t = rng.random_range(0..r.keys.len());
        let target = NodeKey::Int(r.keys[t]);
        for &dir in &dirs {
            let dist = hopdb_algo::bfs_distances(&views(&r, dir), s as u32, None, &ctrl).unwrap();
            let want = (dist[t] != u32::MAX).then_some(dist[t] as usize);
            for via in [Via::Store, Via::Auto] {
                let q = PathQuery {
                    dir,
                    via,
                    ..Default::default()
                };
                let got = an.shortest_path(&key, &target, &q, &ctrl).unwrap().value;
                assert_eq!(
                    got.as_ref().map(|p| p.len() - 1),
                    want,
                    "{file} {key}->{target} {dir:?} {via:?}"
                );
                if let Some(p) = got {
                    let p = int_keys(&p);
                    assert_eq!((p[0], p[p.len() - 1]), (r.keys[s], r.keys[t]));
                    for w in p.windows(2) {
                        let (a, b) = (r.index[&w[0]], r.index[&w[1]]);
                        let nb = |c: &Csr, x: u32, y: u32| c.neighbors(x).binary_search(&y).is_ok();
                        let ok = match dir {
                            Direction::Out => nb(&r.out, a, b),
                            Direction::In => nb(&r.inc, a, b),
                            Direction::Both => nb(&r.both, a, b),
                        };
                        assert!(ok, "{file}: {} -> {} is not an edge along {dir:?}", w[0], w[1]);
                    }
                }
            }
        }
    }
}

#[test]
fn wiki_vote_directed_on_disk() {
    cross_check("snap-wiki-Vote/wiki-Vote.txt.gz", false, 25, true);
}

#[test]
fn email_enron_undirected() {
    cross_check("snap-email-Enron/email-Enron.txt.gz", true, 25, false);
}

/// The projection build obeys `Control::max_memory` (issue 23): below what the finished
/// projection needs it fails with a typed `MemoryLimit` error and caches nothing, whether the
/// bound is met during the scans or before the adjacency views are allocated; with room for
/// its peak it succeeds.
#[test]
fn projection_build_obeys_the_memory_bound() {
    let Some(root) = datasets() else { return };
    let g = load(&root.join("snap-email-Enron/email-Enron.txt.gz"), true, None);
    let an = Analytics::new(g);
    let spec = ProjectionSpec::all();
    let built = an.projection(&spec, &Control::default()).unwrap();
    let needed = built.projection.info().bytes;
    drop(built);
    // Fresh instances, so the cached projection is not reused.
    for bound in [1 << 10, 1 << 20, needed / 2, needed - 1] {
        let an = Analytics::new(an.graph().clone());
        let err = an
            .projection(&spec, &Control::default().with_max_memory(bound))
            .map(drop)
            .expect_err("a projection over its memory bound");
        assert!(
            matches!(err, AnalyticsError::Algo(AlgoError::MemoryLimit { limit, needed: n }) if limit == bound && n > bound),
            "bound {bound}: {err:?}"
        );
        assert_eq!(err.kind(), ErrorKind::Cancelled, "bound {bound}");
        // Nothing half-built was kept: an unbounded call builds afresh.
        assert!(
            an.projection(&spec, &Control::default()).unwrap().rebuilt,
            "bound {bound}"
        );
    }
    // The build's peak (the scans' vectors beside the new views) is above the finished
    // size, but within twice it.
    let an = Analytics::new(an.graph().clone());
    let p = an
        .projection(&spec, &Control::default().with_max_memory(2 * needed))
        .unwrap();
    assert_eq!(p.projection.info().bytes, needed);
}

/// Streamed trails (openCypher `-[*1..3]-`): the same paths on both execution paths, as many
/// as hopdb-algo's enumerator finds on an independent CSR of the file.
#[test]
fn var_length_paths_match_the_reference() {
    let Some(root) = datasets() else { return };
    let path = root.join("snap-email-Enron/email-Enron.txt.gz");
    let r = reference(&read_pairs(&path), true);
    let an = Analytics::new(load(&path, true, None));
    let ctrl = Control::default();
    an.projection(&ProjectionSpec::all(), &ctrl).unwrap();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
    let mut checked = 0;
    while checked < 20 {
        let s = rng.random_range(0..r.keys.len()) as u32;
        if r.both.degree(s) > 6 {
            continue;
        }
        checked += 1;
        let key = NodeKey::Int(r.keys[s as usize]);
        let want =
            hopdb_algo::var_length_paths(
                &[&r.both],
                s,
                1,
                3,
                None,
                &ctrl,
                |_| std::ops::ControlFlow::Continue(()),
            )
            .unwrap();
        let mut per_path = Vec::new();
        for via in [Via::Store, Via::Projection] {
            let q = PathQuery {
                max_hops: 3,
                via,
                ..Default::default()
            };
            let mut paths: Vec<Vec<i64>> = Vec::new();
            let n = an
                .var_length_paths(&key, 1, &q, None, &ctrl, &mut |p| {
                    paths.push(int_keys(p));
                    true
                })
                .unwrap()
                .value;
            assert_eq!(n, want, "{key} {via:?}: path count");
            for p in &paths {
                assert_eq!(p[0], r.keys[s as usize]);
                assert!((2..=4).contains(&p.len()));
            }
            paths.sort();
            per_path.push(paths);
        }
        assert_eq!(per_path[0], per_path[1], "{key}: store and projection paths differ");
        // A limit stops the stream.
        let q = PathQuery {
            max_hops: 3,
            via: Via::Store,
            ..Default::default()
        };
        let n = an
            .var_length_paths(&key, 1, &q, Some(2), &ctrl, &mut |_| true)
            .unwrap()
            .value;
        assert_eq!(n, want.min(2));
    }
}

#[test]
fn facebook_mit_dense_undirected() {
    cross_check("facebook100-MIT8/MIT8.edgelist.gz", true, 10, false);
}

#[test]
fn whole_graph_algorithms_match_the_reference() {
    let Some(root) = datasets() else { return };
    let path = root.join("snap-wiki-Vote/wiki-Vote.txt.gz");
    let r = reference(&read_pairs(&path), false);
    let an = Analytics::new(load(&path, false, None));
    let ctrl = Control::default();
    let opts = hopdb_algo::PageRankOptions {
        tolerance: 1e-12,
        ..Default::default()
    };
    let want = hopdb_algo::pagerank(&r.out, &r.inc, &opts, &ctrl).unwrap();
    let got = an.pagerank(&opts, &ctrl).unwrap();
    let mut l1 = 0.0;
    for (k, v) in got.iter() {
        let NodeKey::Int(i) = k else { panic!() };
        l1 += (v - want[r.index[i] as usize]).abs();
    }
    assert!(l1 < 1e-9, "PageRank differs by {l1} (L1)");
    let w = an.weakly_connected_components(&ctrl).unwrap();
    assert_eq!(
        w.count as u32,
        hopdb_algo::weakly_connected_components(&r.out, &ctrl).unwrap().count
    );
    let s = an.strongly_connected_components(&ctrl).unwrap();
    assert_eq!(
        s.count as u32,
        hopdb_algo::strongly_connected_components(&r.out, &ctrl).unwrap().count
    );
    let (total, _) = an.triangles(&ctrl).unwrap();
    assert_eq!(total, hopdb_algo::triangles(&r.out, &ctrl).unwrap().total);
    // The same cached projection served all of them.
    assert!(!an.projection(&ProjectionSpec::all(), &ctrl).unwrap().rebuilt);
}

/// Weighted paths on a road network (DIMACS arcs with lengths): Dijkstra through `Analytics`
/// against an independent Dijkstra over the file; all shortest paths are real shortest paths.
#[test]
fn weighted_and_all_shortest_paths_on_a_road_network() {
    let Some(root) = datasets() else { return };
    let path = root.join("dimacs9-road-rome99/rome99.gr.gz");
    let text = {
        let mut s = String::new();
        std::io::Read::read_to_string(
            &mut flate2::read::GzDecoder::new(std::fs::File::open(&path).unwrap()),
            &mut s,
        )
        .unwrap();
        s
    };
    // Arcs `a u v w`; parallel arcs keep the last weight, as the importer does.
    let mut arcs: HashMap<(i64, i64), f64> = HashMap::new();
    for l in text.lines().filter(|l| l.starts_with("a ")) {
        let f: Vec<&str> = l.split_whitespace().collect();
        arcs.insert((f[1].parse().unwrap(), f[2].parse().unwrap()), f[3].parse().unwrap());
    }
    let g = Graph::in_memory();
    import(
        &g,
        &ImportSpec {
            edge_lists: vec![EdgeList {
                weighted: true,
                ..EdgeList::new(&path)
            }],
            ..ImportSpec::default()
        },
        &NoProgress,
    )
    .unwrap();
    let an = Analytics::new(g);
    let ctrl = Control::default();
    let mut adj: HashMap<i64, Vec<(i64, f64)>> = HashMap::new();
    for (&(a, b), &w) in &arcs {
        adj.entry(a).or_default().push((b, w));
    }
    let mut nodes: Vec<i64> = arcs.keys().flat_map(|&(a, b)| [a, b]).collect();
    nodes.sort_unstable();
    nodes.dedup();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
    for _ in 0..5 {
        let s = nodes[rng.random_range(0..nodes.len())];
        // Reference Dijkstra (binary heap over ordered floats as integers: weights are integers).
        let mut dist: HashMap<i64, f64> = HashMap::new();
        let mut heap = std::collections::BinaryHeap::new();
        heap.push(std::cmp::Reverse((0u64, s)));
        while let Some(std::cmp::Reverse((d, u))) = heap.pop() {
            if dist.contains_key(&u) {
                continue;
            }
            dist.insert(u, d as f64);
            for &(v, w) in adj.get(&u).map(Vec::as_slice).unwrap_or(&[]) {
                if !dist.contains_key(&v) {
                    heap.push(std::cmp::Reverse((d + w as u64, v)));
                }
            }
        }
        let got = an.dijkstra_distances(&NodeKey::Int(s), Direction::Out, &ctrl).unwrap();
        for (k, d) in got.iter() {
            let NodeKey::Int(i) = k else { panic!() };
            assert_eq!(*d, dist.get(i).copied().unwrap_or(f64::INFINITY), "{s} -> {i}");
        }
        let t = nodes[rng.random_range(0..nodes.len())];
        let (len, p) = an
            .weighted_shortest_path(&NodeKey::Int(s), &NodeKey::Int(t), Direction::Out, &ctrl)
            .unwrap()
            .expect("rome99 is strongly connected");
        assert_eq!(len, dist[&t]);
        let keys = int_keys(&p);
        let total: f64 = keys.windows(2).map(|w| arcs[&(w[0], w[1])]).sum();
        assert_eq!(total, len, "the path's weights add up to its length");
        // All fewest-hop paths: each a real path of the BFS length.
        let hops = an.bfs_distances(&NodeKey::Int(s), Direction::Out, None, &ctrl).unwrap();
        let h = *hops.get(&NodeKey::Int(t)).unwrap() as usize;
        let all = an
            .all_shortest_paths(&NodeKey::Int(s), &NodeKey::Int(t), Direction::Out, Some(50), &ctrl)
            .unwrap();
        assert!(!all.is_empty());
        for p in all {
            let p = int_keys(&p);
            assert_eq!(p.len() - 1, h);
            assert!(p.windows(2).all(|w| arcs.contains_key(&(w[0], w[1]))));
        }
    }
}

fn edge(g: &Graph, a: &str, ty: &str, b: &str) {
    g.upsert_edge(a, ty, b, None, Default::default(), WriteMode::Merge)
        .unwrap();
}

fn keys(v: &[&str]) -> HashSet<NodeKey> {
    v.iter().map(|s| NodeKey::from(*s)).collect()
}

#[test]
fn writes_make_the_projection_stale_never_silently() {
    let g = Graph::in_memory();
    edge(&g, "a", "R", "b");
    edge(&g, "b", "R", "c");
    let an = Analytics::new(g.clone());
    let ctrl = Control::default();
    let p = an.projection(&ProjectionSpec::all(), &ctrl).unwrap();
    assert!(p.rebuilt);
    assert!(an.cached_projection(&ProjectionSpec::all()).is_some());
    let q = KHop::within(5).dir(Direction::Out);
    let before = an.k_hop(&"a".into(), &q, &ctrl).unwrap();
    assert!(matches!(before.used, Used::Projection { .. }));
    assert_eq!(before.value.iter().cloned().collect::<HashSet<_>>(), keys(&["b", "c"]));

    edge(&g, "c", "R", "d");
    assert!(
        an.cached_projection(&ProjectionSpec::all()).is_none(),
        "a write must make it stale"
    );
    let after = an.k_hop(&"a".into(), &q, &ctrl).unwrap();
    // A stale projection never answers alone: the overlay brings it to the query's version.
    let base = p.projection.version();
    assert_eq!(
        after.used,
        Used::Overlay {
            base,
            version: g.version()
        }
    );
    assert_eq!(
        after.value.iter().cloned().collect::<HashSet<_>>(),
        keys(&["b", "c", "d"])
    );
    let path = an
        .shortest_path(&"a".into(), &"d".into(), &PathQuery::default(), &ctrl)
        .unwrap();
    assert!(matches!(path.used, Used::Overlay { .. }));
    assert_eq!(path.value.unwrap().len(), 4);
    // Trails never run on the overlay: the store answers.
    let trail = an
        .var_length_endpoints(
            &"a".into(),
            3,
            &PathQuery {
                max_hops: 3,
                ..Default::default()
            },
            None,
            &ctrl,
        )
        .unwrap();
    assert_eq!((trail.used, trail.value), (Used::Store, vec![NodeKey::from("d")]));

    // Whole-graph algorithms rebuild, visibly, and see the write.
    let p2 = an.projection(&ProjectionSpec::all(), &ctrl).unwrap();
    assert!(p2.rebuilt);
    assert_eq!(p2.projection.info().edges, 3);
    assert!(p2.projection.version() > p.projection.version());
    assert!(!an.projection(&ProjectionSpec::all(), &ctrl).unwrap().rebuilt);
    let wcc = an.weakly_connected_components(&ctrl).unwrap();
    assert_eq!(wcc.count, 1);

    // Deleting counts as a write too.
    g.delete_edge("b", "R", "c").unwrap();
    assert!(an.cached_projection(&ProjectionSpec::all()).is_none());
    let cut = an.k_hop(&"a".into(), &q, &ctrl).unwrap();
    assert_eq!(cut.value, vec![NodeKey::from("b")]);
    assert_eq!(an.weakly_connected_components(&ctrl).unwrap().count, 2);
}

#[test]
fn bulk_loads_make_the_projection_stale() {
    let g = Graph::in_memory();
    edge(&g, "a", "R", "b");
    let an = Analytics::new(g.clone());
    let ctrl = Control::default();
    an.projection(&ProjectionSpec::all(), &ctrl).unwrap();
    let mut bl = g.bulk_load(Default::default()).unwrap();
    bl.add_edge("b".into(), "R", "x".into(), None, Default::default())
        .unwrap();
    bl.finish().unwrap();
    assert!(an.cached_projection(&ProjectionSpec::all()).is_none());
    // A bulk load is not recorded change by change: the overlay gives up, the store answers.
    let r = an.k_hop(&"a".into(), &KHop::within(2), &ctrl).unwrap();
    assert_eq!((r.used, r.value.len()), (Used::Store, 2));
}

#[test]
fn a_stale_projection_is_rebuilt_in_the_background() {
    let g = Graph::in_memory();
    edge(&g, "a", "R", "b");
    let an = Analytics::new(g.clone()).with_auto_projection(u64::MAX);
    let ctrl = Control::default();
    an.projection(&ProjectionSpec::all(), &ctrl).unwrap();
    let mut bl = g.bulk_load(Default::default()).unwrap();
    bl.add_edge("b".into(), "R", "c".into(), None, Default::default())
        .unwrap();
    bl.finish().unwrap();
    assert_eq!(
        an.k_hop(&"a".into(), &KHop::within(2), &ctrl).unwrap().used,
        Used::Store
    );
    let mut waited = 0;
    while an.cached_projection(&ProjectionSpec::all()).is_none() {
        assert!(waited < 500, "no background rebuild after 5 s");
        std::thread::sleep(Duration::from_millis(10));
        waited += 1;
    }
    let r = an.k_hop(&"a".into(), &KHop::within(2), &ctrl).unwrap();
    assert!(matches!(r.used, Used::Projection { .. }));
    assert_eq!(r.value.len(), 2);
}

/// The overlay against the store after every step of a random write sequence (edges added and
/// removed, directed, undirected and parallel, self-loops, nodes deleted and re-created): the
/// same k-hop sets (every direction) and shortest-path lengths.
#[test]
fn overlay_follows_random_writes_exactly() {
    let g = Graph::in_memory();
    g.define_edge_type(
        "M",
        EdgeTypeOptions {
            multi: true,
            ..Default::default()
        },
    )
    .unwrap();
    g.define_edge_type(
        "U",
        EdgeTypeOptions {
            undirected: true,
            ..Default::default()
        },
    )
    .unwrap();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    let node = |i: u32| NodeKey::Int(i64::from(i));
    for i in 0..40 {
        g.upsert_edge(
            node(i % 30),
            "D",
            node((i * 7) % 30),
            None,
            Default::default(),
            WriteMode::Merge,
        )
        .unwrap();
    }
    let an = Analytics::new(g.clone());
    let ctrl = Control::default();
    an.projection(&ProjectionSpec::all(), &ctrl).unwrap();
    let mut multi_ids = Vec::new();
    let mut overlaid = 0;
    for step in 0..300 {
        let (a, b) = (node(rng.random_range(0..30)), node(rng.random_range(0..30)));
        let mut tx = g.write().unwrap();
        match rng.random_range(0..7) {
            0 | 1 => tx
                .upsert_edge(a.clone(), "D", b.clone(), None, Default::default(), WriteMode::Merge)
                .unwrap(),
            2 => tx
                .upsert_edge(a.clone(), "U", b.clone(), None, Default::default(), WriteMode::Merge)
                .unwrap(),
            3 => multi_ids.push(
                tx.add_edge(a.clone(), "M", b.clone(), None, Default::default())
                    .unwrap(),
            ),
            4 => {
                tx.delete_edge_if_exists(a.clone(), "D", b.clone()).unwrap();
                tx.delete_edge_if_exists(a.clone(), "U", b.clone()).unwrap();
            }
            5 if !multi_ids.is_empty() => {
                let id = multi_ids.swap_remove(rng.random_range(0..multi_ids.len()));
                // Deleting an endpoint deleted its parallel edges too.
                if g.edge_by_id(id).unwrap().is_some() {
                    tx.delete_edge_by_id(id).unwrap();
                }
            }
            _ => {
                tx.delete_node_if_exists(a.clone()).unwrap();
            }
        }
        tx.commit().unwrap();
        if step % 10 != 0 {
            continue;
        }
        for s in 0..30 {
            let key = node(s);
            for dir in [Direction::Out, Direction::In, Direction::Both] {
                let q = KHop::within(3).dir(dir);
                let store = an.k_hop(&key, &q.clone().via(Via::Store), &ctrl);
                let auto = an.k_hop(&key, &q.clone().via(Via::Auto), &ctrl);
                match (store, auto) {
                    (Ok(st), Ok(au)) => {
                        overlaid += usize::from(matches!(au.used, Used::Overlay { .. }));
                        let (x, y): (HashSet<_>, HashSet<_>) =
                            (st.value.into_iter().collect(), au.value.into_iter().collect());
                        assert_eq!(x, y, "step {step}, {key} {dir:?}");
                    }
                    (Err(AnalyticsError::NodeNotFound { .. }), Err(AnalyticsError::NodeNotFound { .. })) => {}
                    (x, y) => panic!("step {step}, {key}: store {x:?}, auto {y:?}"),
                }
            }
            let t = node((s * 11 + 5) % 30);
            let pq = |via| PathQuery {
                via,
                ..Default::default()
            };
            let len = |via| {
                an.shortest_path(&key, &t, &pq(via), &ctrl)
                    .map(|a| a.value.map(|p| p.len()))
                    .ok()
            };
            assert_eq!(len(Via::Store), len(Via::Auto), "step {step}, {key} -> {t}");
        }
    }
    assert!(overlaid > 1000, "the overlay answered only {overlaid} queries");
}

/// Self-loops, multi-edges, an undirected type, isolated nodes: the two paths agree, and
/// variable-length endpoints follow openCypher's no-repeated-relationship rule.
#[test]
fn edge_cases_agree_on_both_paths() {
    let g = Graph::in_memory();
    g.define_edge_type(
        "MULTI",
        EdgeTypeOptions {
            multi: true,
            ..Default::default()
        },
    )
    .unwrap();
    g.define_edge_type(
        "UND",
        EdgeTypeOptions {
            undirected: true,
            ..Default::default()
        },
    )
    .unwrap();
    edge(&g, "a", "R", "a"); // self-loop
    let mut tx = g.write().unwrap();
    tx.add_edge("a", "MULTI", "b", None, Default::default()).unwrap();
    tx.add_edge("a", "MULTI", "b", None, Default::default()).unwrap();
    tx.commit().unwrap();
    edge(&g, "c", "UND", "b");
    edge(&g, "c", "R", "d");
    g.upsert_node("lonely", &[], Default::default(), WriteMode::Merge)
        .unwrap();
    let an = Analytics::new(g.clone());
    let ctrl = Control::default();
    let p = an.projection(&ProjectionSpec::all(), &ctrl).unwrap().projection;
    assert_eq!(p.node_count(), 5);
    assert_eq!(
        p.info().edges,
        5,
        "self-loop, two multi-edges, one undirected edge, one more"
    );

    let run = |start: &str, q: KHop| -> [HashSet<NodeKey>; 2] {
        [Via::Store, Via::Projection].map(|via| {
            an.k_hop(&start.into(), &q.clone().via(via), &ctrl)
                .unwrap()
                .value
                .into_iter()
                .collect()
        })
    };
    // The undirected edge is walkable from both ends, along Out and In alike.
    for dir in [Direction::Out, Direction::In, Direction::Both] {
        let [s, p] = run("b", KHop::exactly(1).dir(dir).types(&["UND"]));
        assert_eq!(s, keys(&["c"]), "{dir:?}");
        assert_eq!(p, s, "{dir:?}");
    }
    let [s, p] = run("a", KHop::within(3).dir(Direction::Out));
    assert_eq!(s, keys(&["b", "c", "d"]));
    assert_eq!(p, s);
    let [s, p] = run("lonely", KHop::within(3));
    assert!(s.is_empty() && p.is_empty());

    // Var-length: a -[*2..2]- reaches c (a-b-c) and a again only over two distinct
    // relationships (the two multi-edges, or not through the self-loop twice).
    let q = |via| PathQuery {
        dir: Direction::Both,
        max_hops: 2,
        via,
        ..Default::default()
    };
    for via in [Via::Store, Via::Projection] {
        let ends: HashSet<NodeKey> = an
            .var_length_endpoints(&"a".into(), 2, &q(via), None, &ctrl)
            .unwrap()
            .value
            .into_iter()
            .collect();
        assert_eq!(ends, keys(&["a", "b", "c"]), "{via:?}");
        let one: HashSet<NodeKey> = an
            .var_length_endpoints(&"a".into(), 1, &PathQuery { max_hops: 1, ..q(via) }, None, &ctrl)
            .unwrap()
            .value
            .into_iter()
            .collect();
        assert_eq!(one, keys(&["a", "b"]), "{via:?}");
    }
    // d -[*2..2]- : d-c-b only (c-d cannot be used twice).
    for via in [Via::Store, Via::Projection] {
        let ends = an
            .var_length_endpoints(&"d".into(), 2, &q(via), None, &ctrl)
            .unwrap()
            .value;
        assert_eq!(ends, vec![NodeKey::from("b")], "{via:?}");
    }
    // Unreachable target, and a path to self.
    for via in [Via::Store, Via::Projection] {
        let pq = PathQuery {
            via,
            ..Default::default()
        };
        assert_eq!(
            an.shortest_path(&"a".into(), &"lonely".into(), &pq, &ctrl)
                .unwrap()
                .value,
            None
        );
        assert_eq!(
            an.shortest_path(&"a".into(), &"a".into(), &pq, &ctrl).unwrap().value,
            Some(vec![NodeKey::from("a")])
        );
        let bounded = PathQuery { max_hops: 2, ..pq };
        assert_eq!(
            an.shortest_path(&"a".into(), &"d".into(), &bounded, &ctrl)
                .unwrap()
                .value,
            None
        );
    }
}

#[test]
fn errors_cancellation_deadlines_and_memory_bounds() {
    let empty = Analytics::new(Graph::in_memory());
    let ctrl = Control::default();
    assert!(matches!(
        empty.k_hop(&"nobody".into(), &KHop::within(1), &ctrl),
        Err(AnalyticsError::NodeNotFound { .. })
    ));
    let p = empty.projection(&ProjectionSpec::all(), &ctrl).unwrap().projection;
    assert_eq!(p.node_count(), 0);
    assert_eq!(empty.pagerank(&Default::default(), &ctrl).unwrap().len(), 0);
    assert_eq!(empty.weakly_connected_components(&ctrl).unwrap().count, 0);

    // A chain long enough that every check point is reached.
    let g = Graph::in_memory();
    let mut tx = g.write().unwrap();
    for i in 0..20_000 {
        tx.upsert_edge(
            NodeKey::Int(i),
            "NEXT",
            NodeKey::Int(i + 1),
            None,
            Default::default(),
            WriteMode::Merge,
        )
        .unwrap();
    }
    tx.commit().unwrap();
    let an = Analytics::new(g);
    let far = KHop::within(30_000).via(Via::Store);
    assert!(matches!(
        an.k_hop(&NodeKey::Int(0), &KHop::within(0), &ctrl),
        Err(AnalyticsError::Algo(AlgoError::InvalidArgument(_)))
    ));
    let cancelled = Arc::new(AtomicBool::new(true));
    assert!(matches!(
        an.k_hop(
            &NodeKey::Int(0),
            &far,
            &Control::default().with_cancel(cancelled.clone())
        ),
        Err(AnalyticsError::Algo(AlgoError::Cancelled))
    ));
    cancelled.store(false, Ordering::SeqCst);
    assert_eq!(
        an.k_hop(&NodeKey::Int(0), &far, &Control::default().with_cancel(cancelled))
            .unwrap()
            .value
            .len(),
        20_000
    );
    assert!(matches!(
        an.shortest_path(
            &NodeKey::Int(0),
            &NodeKey::Int(20_000),
            &PathQuery {
                via: Via::Store,
                ..Default::default()
            },
            &Control::default().with_timeout(Duration::ZERO)
        ),
        Err(AnalyticsError::Algo(AlgoError::DeadlineExceeded(_)))
    ));
    assert!(matches!(
        an.k_hop(&NodeKey::Int(0), &far, &Control::default().with_max_memory(10_000)),
        Err(AnalyticsError::Algo(AlgoError::MemoryLimit { .. }))
    ));
    assert!(matches!(
        an.projection(&ProjectionSpec::all(), &Control::default().with_timeout(Duration::ZERO)),
        Err(AnalyticsError::Algo(AlgoError::DeadlineExceeded(_)))
    ));
    // A cancelled build caches nothing.
    assert!(an.cached_projection(&ProjectionSpec::all()).is_none());
}

/// Readers keep answering, from the store, while a writer commits; every answer is one that
/// some committed state gives (the chain only grows, so a reader sees a prefix of it).
#[test]
fn queries_during_a_writer() {
    let g = Graph::in_memory();
    edge(&g, "n0", "NEXT", "n1");
    let an = Arc::new(Analytics::new(g.clone()));
    an.projection(&ProjectionSpec::all(), &Control::default()).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (g, stop) = (g.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut i = 1;
            while !stop.load(Ordering::SeqCst) && i < 3000 {
                edge(&g, &format!("n{i}"), "NEXT", &format!("n{}", i + 1));
                i += 1;
            }
            i
        })
    };
    let (mut last, mut queries, mut grew) = (0, 0, 0);
    while !writer.is_finished() || queries < 10 {
        queries += 1;
        let r = an
            .k_hop(
                &"n0".into(),
                &KHop::within(10_000).dir(Direction::Out),
                &Control::default(),
            )
            .unwrap();
        let got: Vec<NodeKey> = r.value;
        for (i, k) in got.iter().enumerate() {
            assert_eq!(k, &NodeKey::from(format!("n{}", i + 1).as_str()), "a reader saw a gap");
        }
        assert!(got.len() >= last, "a later snapshot saw less");
        grew += usize::from(got.len() > last);
        last = got.len();
    }
    stop.store(true, Ordering::SeqCst);
    assert_eq!(writer.join().unwrap(), 3000);
    assert!(grew >= 2, "the readers never overlapped the writer ({queries} queries)");
}

#[test]
fn neighbor_lists_on_the_store_tell_deleted_from_isolated() {
    // No projection: `neighbors_batch` reads the store, resolving keys without the node
    // records and checking only the nodes that listed nothing.
    let g = Graph::in_memory();
    edge(&g, "a", "R", "b");
    edge(&g, "c", "R", "a");
    edge(&g, "gone", "R", "a");
    for k in ["lonely", "gone-lonely"] {
        g.upsert_node(k, &[], Default::default(), WriteMode::Merge).unwrap();
    }
    g.delete_node("gone").unwrap();
    g.delete_node("gone-lonely").unwrap();
    let an = Analytics::new(g.clone());
    let ctrl = Control::default();
    let ks: Vec<NodeKey> = ["a", "lonely", "gone", "gone-lonely", "ghost", "b"]
        .map(NodeKey::from)
        .to_vec();
    let sets = |limit| -> Vec<Option<HashSet<NodeKey>>> {
        let got = an.neighbors_batch(&ks, Direction::Both, &None, limit, &ctrl).unwrap();
        assert!(matches!(got.used, Used::Store), "{:?}", got.used);
        got.value
            .into_iter()
            .map(|l| l.map(|l| l.into_iter().collect()))
            .collect()
    };
    assert_eq!(
        sets(None),
        vec![
            Some(keys(&["b", "c"])),
            Some(keys(&[])),
            None,
            None,
            None,
            Some(keys(&["a"]))
        ]
    );
    // LIMIT 0 lists nothing for every node, and still tells live from deleted.
    let empty = Some(keys(&[]));
    assert_eq!(
        sets(Some(0)),
        vec![empty.clone(), empty.clone(), None, None, None, empty]
    );
}

#[test]
fn batched_neighbor_lists_equal_one_listing_per_node() {
    // On the store, `neighbors_batch` lists a whole batch with one RocksDB iterator per family
    // and type (forward seeks in id order). Each node's list must equal its own listing
    // (`GraphRead::neighbors`, a bounded scan per node) whatever the batch's order, repeats
    // and misses, the types, direction and limit, with the edges spread over two flushed SST
    // files and the memtable, some deleted in a later one than they were written in.
    let tmp = tempfile::tempdir().unwrap();
    let g = Graph::open(tmp.path()).unwrap();
    let und = EdgeTypeOptions {
        undirected: true,
        multi: false,
    };
    let multi = EdgeTypeOptions {
        undirected: false,
        multi: true,
    };
    g.define_edge_type("U", und).unwrap();
    g.define_edge_type("M", multi).unwrap();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(17);
    let n = 300;
    let key = |i: u32| NodeKey::from(format!("n{i}").as_str());
    for round in 0..3 {
        let mut tx = g.write().unwrap();
        for _ in 0..700 {
            let (a, b) = (key(rng.random_range(0..n)), key(rng.random_range(0..n)));
            match rng.random_range(0..4) {
                0 => tx.add_edge(a, "M", b, None, Default::default()).map(drop),
                1 => tx.upsert_edge(a, "U", b, None, Default::default(), WriteMode::Merge),
                t => tx.upsert_edge(a, ["D", "E"][t - 2], b, None, Default::default(), WriteMode::Merge),
            }
            .unwrap();
        }
        tx.commit().unwrap();
        for _ in 0..60 {
            let (a, b) = (key(rng.random_range(0..n)), key(rng.random_range(0..n)));
            let _ = g.delete_edge(a, ["D", "E", "U", "M"][rng.random_range(0..4)], b);
        }
        let _ = g.delete_node(key(rng.random_range(0..n)));
        if round < 2 {
            g.flush().unwrap();
        }
    }
    let an = Analytics::new(g.clone());
    let ctrl = Control::default();
    let type_sets: [Option<Vec<&str>>; 5] = [
        None,
        Some(vec!["U"]),
        Some(vec!["D"]),
        Some(vec!["E", "M"]),
        Some(vec!["M", "U", "D"]),
    ];
    for trial in 0..60 {
        let ks: Vec<NodeKey> = (0..rng.random_range(1..80))
            .map(|_| key(rng.random_range(0..n + 30)))
            .collect();
        let dir = [Direction::Out, Direction::In, Direction::Both][trial % 3];
        let types = &type_sets[rng.random_range(0..type_sets.len())];
        let limit = [None, Some(0), Some(1), Some(3)][rng.random_range(0..4)];
        let names = types.as_ref().map(|t| t.iter().map(|s| s.to_string()).collect());
        let got = an.neighbors_batch(&ks, dir, &names, limit, &ctrl).unwrap();
        assert!(matches!(got.used, Used::Store), "{:?}", got.used);
        let one = |k: &NodeKey, ty: Option<&str>, limit| match g.neighbors(k, dir, ty, limit) {
            Ok(l) => Some(l),
            Err(hopdb_core::Error::NodeNotFound { .. }) => None,
            Err(e) => panic!("{e}"),
        };
        let want: Vec<Option<Vec<NodeKey>>> = ks
            .iter()
            .map(|k| match types {
                None => one(k, None, limit),
                // Several types: each type's listing in turn, each neighbour once.
                Some(tys) => {
                    let mut seen = HashSet::new();
                    let mut all = Vec::new();
                    for t in tys {
                        all.extend(one(k, Some(t), None)?.into_iter().filter(|x| seen.insert(x.clone())));
                    }
                    all.truncate(limit.unwrap_or(usize::MAX));
                    Some(all)
                }
            })
            .collect();
        assert_eq!(got.value, want, "trial {trial}: {dir:?} {types:?} limit {limit:?}");
    }
}

#[test]
fn a_projection_knows_each_nodes_labels_below_64_label_ids() {
    let g = Graph::in_memory();
    // Labels by node: n0 {A}, n1 {B}, n2 {A, B}, n3 none.
    for (k, labels) in [
        ("n0", vec!["A"]),
        ("n1", vec!["B"]),
        ("n2", vec!["A", "B"]),
        ("n3", vec![]),
    ] {
        g.upsert_node(k, &labels, Default::default(), WriteMode::Merge).unwrap();
    }
    let an = Analytics::new(g.clone());
    let p = an
        .projection(&ProjectionSpec::all(), &Control::default())
        .unwrap()
        .projection;
    let txn = g.read();
    let (a, b) = (txn.label_id_named("A").unwrap(), txn.label_id_named("B").unwrap());
    assert_eq!(txn.label_id_named("C"), None);
    let has = |k: &str, ids: &[u32]| p.has_labels(p.index_of_key(&NodeKey::from(k)).unwrap(), ids);
    assert_eq!(has("n0", &[a]), Some(true));
    assert_eq!(has("n0", &[b]), Some(false));
    assert_eq!(has("n1", &[b]), Some(true));
    assert_eq!(has("n2", &[a, b]), Some(true));
    assert_eq!(has("n3", &[a]), Some(false));
    assert_eq!(has("n3", &[]), Some(true));
    // A 65th label: ids 64 and up fit no mask, so the projection keeps none.
    let many: Vec<String> = (0..65).map(|i| format!("L{i}")).collect();
    let refs: Vec<&str> = many.iter().map(String::as_str).collect();
    g.upsert_node("wide", &refs, Default::default(), WriteMode::Merge)
        .unwrap();
    let p = an
        .projection(&ProjectionSpec::all(), &Control::default())
        .unwrap()
        .projection;
    assert_eq!(p.has_labels(p.index_of_key(&NodeKey::from("n0")).unwrap(), &[a]), None);
}
