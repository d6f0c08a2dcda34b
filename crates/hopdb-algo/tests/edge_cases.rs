//! Edge cases for every algorithm family, on small hand-checked graphs (no datasets needed):
//! self-loops, multi-edges, unreachable targets, isolated nodes, the empty graph, and start
//! nodes outside the graph (always `AlgoError::NodeOutOfRange`, never a panic).
// Integration tests: a failed unwrap/expect is the test failure, reported with its location.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::ops::ControlFlow;

use hopdb_algo::varlen::shortest_closed_trail;
use hopdb_algo::{
    all_shortest_paths, betweenness_centrality, betweenness_centrality_sampled, bfs_distances,
    collect_var_length_paths, degree_centrality, dijkstra, dijkstra_distances, for_each_shortest_path,
    hierarchical_leiden, k_hop, leiden, lightrag_subgraph, lightrag_top_degree, louvain, modularity, pagerank,
    sample_neighbors, shortest_path, strongly_connected_components, triangles, var_length_endpoints, var_length_paths,
    weakly_connected_components, AlgoError, BetweennessOptions, Control, Csr, DegreeDirection, HierarchicalOptions,
    HopMode, LeidenOptions, LouvainOptions, PageRankOptions, Path, Personalization, Projection,
};

const NONE: u32 = u32::MAX;

/// Edge ids are positions in this list:
/// e0, e1: 0 -> 1 twice (multi-edge); e2: 1 -> 2; e3: 2 -> 2 (self-loop); e4: 2 -> 3;
/// e5: 0 -> 3; e6: 6 -> 4 (4 and 6 unreachable from 0); node 5 isolated.
const EDGES: [(u32, u32); 7] = [(0, 1), (0, 1), (1, 2), (2, 2), (2, 3), (0, 3), (6, 4)];

fn fixture() -> Projection {
    Projection::from_edges(7, &EDGES, None).unwrap()
}

fn empty() -> Csr {
    Csr::from_edges(0, &[], None).unwrap()
}

fn c() -> Control {
    Control::unbounded()
}

fn out_of_range<T: std::fmt::Debug>(r: Result<T, AlgoError>, node: u32, n: u32) {
    assert_eq!(r.unwrap_err(), AlgoError::NodeOutOfRange { node, n });
}

fn sorted(mut v: Vec<u32>) -> Vec<u32> {
    v.sort_unstable();
    v
}

#[test]
fn k_hop_edge_cases() {
    let p = fixture();
    let (out, inc) = (&p.out, &p.inc);
    let within = |views: &[&Csr], s, k| k_hop(views, s, k, HopMode::Within, None, &c()).unwrap();
    let exactly = |views: &[&Csr], s, k| k_hop(views, s, k, HopMode::Exactly, None, &c()).unwrap();
    // The multi-edge 0 -> 1 gives node 1 once; 3 is at distance 1 (e5), not 3.
    assert_eq!(exactly(&[out], 0, 1), vec![1, 3]);
    assert_eq!(exactly(&[out], 0, 2), vec![2]);
    assert_eq!(exactly(&[out], 0, 3), Vec::<u32>::new());
    assert_eq!(within(&[out], 0, 6), vec![1, 3, 2]);
    // A self-loop never returns the start; unreachable 4 and 6 never show up.
    assert_eq!(within(&[out], 2, 6), vec![3]);
    assert!(!within(&[out, inc], 0, 6).contains(&4));
    // Isolated node, both directions, and a node reached through both views once.
    assert_eq!(within(&[out, inc], 5, 6), Vec::<u32>::new());
    assert_eq!(within(&[out, inc], 4, 6), vec![6]);
    assert_eq!(sorted(within(&[out, inc], 3, 1)), vec![0, 2]);
    for k in 1..=6 {
        assert_eq!(within(&[inc], 3, k).len(), [2, 3, 3, 3, 3, 3][k as usize - 1]);
    }
    assert_eq!(
        k_hop(&[out], 0, 6, HopMode::Within, Some(0), &c()).unwrap(),
        Vec::<u32>::new()
    );
    assert_eq!(k_hop(&[out], 0, 6, HopMode::Within, Some(2), &c()).unwrap(), vec![1, 3]);
    out_of_range(k_hop(&[out], 7, 1, HopMode::Within, None, &c()), 7, 7);
    out_of_range(k_hop(&[&empty()], 0, 1, HopMode::Within, None, &c()), 0, 0);
    assert!(matches!(
        k_hop(&[], 0, 1, HopMode::Within, None, &c()),
        Err(AlgoError::InvalidArgument(_))
    ));
    assert!(matches!(
        k_hop(&[out, &empty()], 0, 1, HopMode::Within, None, &c()),
        Err(AlgoError::InvalidArgument(_))
    ));
}

#[test]
fn lightrag_edge_cases() {
    let p = fixture();
    // Both symmetric forms give LightRAG's nx.Graph: the multi-edge collapses, the self-loop
    // counts 2 toward the degree of 2 (NetworkX degrees 0:2 1:2 2:4 3:2 4:1 5:0 6:1).
    for g in [p.out.undirected(), p.out.simple_undirected(true)] {
        let all = lightrag_subgraph(&g, 0, 3, 100, None, &c()).unwrap();
        assert_eq!(all.nodes, vec![0, 1, 3, 2], "level 1 ties (1, 3) by rank, then 2");
        assert_eq!(all.edges, vec![(0, 1), (0, 3), (1, 2), (2, 2), (2, 3)]);
        assert!(!all.truncated);
        // Isolated start: itself only; unreachable nodes are never kept.
        let alone = lightrag_subgraph(&g, 5, 3, 100, None, &c()).unwrap();
        assert_eq!((alone.nodes, alone.edges, alone.truncated), (vec![5], vec![], false));
        // max_nodes = 0 keeps nothing and is truncated, as LightRAG (the start is queued).
        let none = lightrag_subgraph(&g, 0, 3, 0, None, &c()).unwrap();
        assert_eq!((none.nodes.len(), none.truncated), (0, true));
        // Cut at the self-loop node's level: 2 is left out, so truncated.
        let cut = lightrag_subgraph(&g, 0, 3, 3, None, &c()).unwrap();
        assert_eq!((cut.nodes, cut.truncated), (vec![0, 1, 3], true));
        // Exactly max_nodes with nothing left over is not truncated.
        let exact = lightrag_subgraph(&g, 4, 3, 2, None, &c()).unwrap();
        assert_eq!((exact.nodes, exact.truncated), (vec![4, 6], false));
        let top = lightrag_top_degree(&g, 2, None, &c()).unwrap();
        assert_eq!((top.nodes, top.edges, top.truncated), (vec![2, 0], vec![(2, 2)], true));
        let every = lightrag_top_degree(&g, 7, None, &c()).unwrap();
        assert_eq!((every.nodes.last(), every.truncated), (Some(&5), false));
        out_of_range(lightrag_subgraph(&g, 7, 1, 10, None, &c()), 7, 7);
    }
    out_of_range(lightrag_subgraph(&empty(), 0, 1, 10, None, &c()), 0, 0);
    let top = lightrag_top_degree(&empty(), 10, None, &c()).unwrap();
    assert_eq!((top.nodes.len(), top.edges.len(), top.truncated), (0, 0, false));
}

fn paths_of(views: &[&Csr], start: u32, min: u32, max: u32) -> Vec<Path> {
    collect_var_length_paths(views, start, min, max, None, &c()).unwrap()
}

#[test]
fn var_length_edge_cases() {
    let p = fixture();
    let out = [&p.out];
    // Each parallel edge is its own relationship: two paths 0-1, two 0-1-2, four of length 3.
    let ps = paths_of(&out, 0, 1, 3);
    let by_len = |l: usize| ps.iter().filter(|p| p.edges.len() == l).count();
    assert_eq!((by_len(1), by_len(2), by_len(3)), (3, 2, 4));
    assert!(ps.contains(&Path {
        nodes: vec![0, 1, 2, 2],
        edges: vec![1, 2, 3]
    }));
    // The streaming and collecting forms agree, path for path.
    let mut streamed = Vec::new();
    let n = var_length_paths(&out, 0, 1, 3, None, &c(), |p| {
        streamed.push(p.clone());
        ControlFlow::Continue(())
    })
    .unwrap();
    assert_eq!((n, streamed), (9, ps.clone()));
    assert_eq!(
        collect_var_length_paths(&out, 0, 1, 3, Some(2), &c()).unwrap()[..],
        ps[..2]
    );
    // A self-loop is traversed once per trail, and once per step even when it shows up twice
    // (undirected view: both copies share the id; out + in views: both rows).
    let und = p.out.undirected();
    for views in [vec![&und], vec![&p.out, &p.inc]] {
        let from2: Vec<Vec<u32>> = paths_of(&views, 2, 1, 1).into_iter().map(|p| p.nodes).collect();
        assert_eq!(sorted(from2.iter().map(|n| n[1]).collect()), vec![1, 2, 3]);
        // Undirected, both copies of an edge are one relationship: 0-1-0 only over the other
        // parallel edge, never back over the same one.
        let two = paths_of(&views, 0, 2, 2);
        assert_eq!(two.len(), 5, "{two:?}");
        for p in &two {
            assert_ne!(p.edges[0], p.edges[1]);
        }
        assert_eq!(
            sorted(var_length_endpoints(&views, 0, 2, 2, None, &c()).unwrap()),
            vec![0, 2]
        );
    }
    let line = Csr::from_edges(2, &[(0, 1)], None).unwrap().undirected();
    assert_eq!(paths_of(&[&line], 0, 2, 2), Vec::<Path>::new());
    assert_eq!(shortest_closed_trail(&[&line], 0, 10, &c()).unwrap(), None);
    // Closed trails: the self-loop (1), the multi-edge undirected (2).
    assert_eq!(shortest_closed_trail(&out, 2, 5, &c()).unwrap(), Some(1));
    assert_eq!(shortest_closed_trail(&[&und], 0, 5, &c()).unwrap(), Some(2));
    assert_eq!(shortest_closed_trail(&out, 0, 5, &c()).unwrap(), None);
    // End nodes: unreachable ones never, the start only over a closed trail.
    assert_eq!(
        sorted(var_length_endpoints(&out, 0, 1, 3, None, &c()).unwrap()),
        vec![1, 2, 3]
    );
    assert_eq!(
        sorted(var_length_endpoints(&out, 0, 3, 3, None, &c()).unwrap()),
        vec![2, 3]
    );
    assert_eq!(
        sorted(var_length_endpoints(&out, 2, 1, 1, None, &c()).unwrap()),
        vec![2, 3]
    );
    assert_eq!(var_length_endpoints(&out, 0, 0, 0, None, &c()).unwrap(), vec![0]);
    // Isolated node: only the zero-length path.
    assert_eq!(paths_of(&out, 5, 1, 3), Vec::<Path>::new());
    assert_eq!(paths_of(&out, 5, 0, 3).len(), 1);
    assert_eq!(var_length_endpoints(&out, 5, 0, 3, None, &c()).unwrap(), vec![5]);
    assert_eq!(
        var_length_endpoints(&out, 5, 2, 3, None, &c()).unwrap(),
        Vec::<u32>::new()
    );
    out_of_range(collect_var_length_paths(&out, 7, 1, 2, None, &c()), 7, 7);
    out_of_range(var_length_endpoints(&out, 7, 1, 2, None, &c()), 7, 7);
    out_of_range(var_length_endpoints(&[&empty()], 0, 1, 2, None, &c()), 0, 0);
    out_of_range(shortest_closed_trail(&[&empty()], 0, 2, &c()), 0, 0);
}

#[test]
fn shortest_path_edge_cases() {
    let p = fixture();
    let (out, inc) = (&p.out, &p.inc);
    assert_eq!(shortest_path(out, inc, 0, 2, &c()).unwrap(), Some(vec![0, 1, 2]));
    assert_eq!(shortest_path(out, inc, 0, 3, &c()).unwrap(), Some(vec![0, 3]));
    assert_eq!(shortest_path(out, inc, 2, 2, &c()).unwrap(), Some(vec![2]));
    assert_eq!(shortest_path(out, inc, 0, 4, &c()).unwrap(), None);
    assert_eq!(shortest_path(out, inc, 5, 0, &c()).unwrap(), None);
    // Parallel edges give one path; self-loops none.
    assert_eq!(
        all_shortest_paths(out, inc, 0, 2, None, &c()).unwrap(),
        vec![vec![0, 1, 2]]
    );
    assert_eq!(all_shortest_paths(out, inc, 2, 2, None, &c()).unwrap(), vec![vec![2]]);
    assert!(all_shortest_paths(out, inc, 0, 4, None, &c()).unwrap().is_empty());
    assert!(all_shortest_paths(out, inc, 0, 5, None, &c()).unwrap().is_empty());
    assert_eq!(
        for_each_shortest_path(out, inc, 0, 2, None, &c(), |_| ControlFlow::Continue(())).unwrap(),
        1
    );
    assert_eq!(
        bfs_distances(&[out], 0, None, &c()).unwrap(),
        vec![0, 1, 2, 1, NONE, NONE, NONE]
    );
    assert_eq!(bfs_distances(&[out], 5, None, &c()).unwrap()[5], 0);
    assert_eq!(dijkstra(out, 0, 2, &c()).unwrap(), Some((2.0, vec![0, 1, 2])));
    assert_eq!(dijkstra(out, 0, 4, &c()).unwrap(), None);
    assert_eq!(dijkstra(out, 2, 2, &c()).unwrap(), Some((0.0, vec![2])));
    let d = dijkstra_distances(out, 0, &c()).unwrap();
    assert_eq!(&d[..4], &[0.0, 1.0, 2.0, 1.0]);
    assert!(d[4..].iter().all(|x| x.is_infinite()));
    // The cheaper of two parallel edges, and a zero-weight self-loop, are handled.
    let w = Csr::from_edges(3, &[(0, 1), (0, 1), (1, 1), (1, 2)], Some(&[5.0, 2.0, 0.0, 1.0])).unwrap();
    assert_eq!(dijkstra(&w, 0, 2, &c()).unwrap(), Some((3.0, vec![0, 1, 2])));
    for (s, t) in [(7, 0), (0, 7)] {
        out_of_range(shortest_path(out, inc, s, t, &c()), 7, 7);
        out_of_range(dijkstra(out, s, t, &c()), 7, 7);
        out_of_range(all_shortest_paths(out, inc, s, t, None, &c()), 7, 7);
    }
    out_of_range(bfs_distances(&[out], 7, None, &c()), 7, 7);
    out_of_range(dijkstra_distances(out, 7, &c()), 7, 7);
    let e = empty();
    out_of_range(shortest_path(&e, &e, 0, 0, &c()), 0, 0);
    out_of_range(dijkstra_distances(&e, 0, &c()), 0, 0);
    out_of_range(all_shortest_paths(&e, &e, 0, 0, None, &c()), 0, 0);
}

/// A negative or NaN weight is refused even where the search would stop before meeting it:
/// 0 -> 1 (5) settles the target 1 before the edge 2 -> 1 (-100) that makes 0 -> 2 -> 1
/// shorter is ever relaxed.
#[test]
fn dijkstra_refuses_negative_and_nan_weights_anywhere() {
    for bad in [-100.0, f64::NAN, f64::NEG_INFINITY] {
        let g = Csr::from_edges(3, &[(0, 1), (0, 2), (2, 1)], Some(&[5.0, 10.0, bad])).unwrap();
        assert_eq!(g.first_invalid_weight().map(|(u, v, _)| (u, v)), Some((2, 1)));
        let invalid = |r: Result<(), AlgoError>| assert!(matches!(r, Err(AlgoError::InvalidArgument(_))), "{r:?}");
        invalid(dijkstra(&g, 0, 1, &c()).map(|_| ()));
        invalid(dijkstra(&g, 0, 0, &c()).map(|_| ()));
        invalid(dijkstra_distances(&g, 1, &c()).map(|_| ()));
        invalid(dijkstra(&g.transpose(), 1, 0, &c()).map(|_| ()));
        invalid(dijkstra(&g.undirected(), 1, 0, &c()).map(|_| ()));
    }
    let ok = Csr::from_edges(2, &[(0, 1)], Some(&[f64::INFINITY])).unwrap();
    assert_eq!(ok.first_invalid_weight(), None);
    assert_eq!(
        dijkstra(&ok, 0, 1, &c()).unwrap(),
        None,
        "an infinite weight never connects"
    );
}

#[test]
fn pagerank_edge_cases() {
    let p = fixture();
    let opts = PageRankOptions {
        max_iterations: 1000,
        tolerance: 1e-13,
        ..Default::default()
    };
    let r = pagerank(&p.out, &p.inc, &opts, &c()).unwrap();
    assert!((r.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    // Nodes without in-edges (0, 5 isolated and dangling, 6) get only the restart share b.
    let (b, d) = (r[0], 0.85);
    assert!((r[5] - b).abs() < 1e-15 && (r[6] - b).abs() < 1e-15);
    // Each parallel edge carries 1/out-degree: 0 sends 2/3 of its rank to 1, 1/3 to 3; the
    // self-loop is one of 2's two out-edges, so 2 keeps half of what it passes on.
    let close = |x: f64, y: f64| assert!((x - y).abs() < 1e-12, "{x} vs {y}");
    close(r[1], b + d * (2.0 / 3.0) * r[0]);
    close(r[2], b + d * (r[1] + r[2] / 2.0));
    close(r[3], b + d * (r[0] / 3.0 + r[2] / 2.0));
    close(r[4], b + d * r[6]);
    let e = empty();
    assert_eq!(pagerank(&e, &e, &opts, &c()).unwrap(), Vec::<f64>::new());
    let lone = Csr::from_edges(3, &[], None).unwrap();
    let r = pagerank(&lone, &lone, &opts, &c()).unwrap();
    assert!(r.iter().all(|&x| (x - 1.0 / 3.0).abs() < 1e-15));
    let seeded = PageRankOptions {
        personalization: Personalization::Seeds(vec![7]),
        ..opts.clone()
    };
    out_of_range(pagerank(&p.out, &p.inc, &seeded, &c()), 7, 7);
    let seeded = PageRankOptions {
        personalization: Personalization::Seeds(vec![0]),
        ..opts
    };
    out_of_range(pagerank(&e, &e, &seeded, &c()), 0, 0);
}

#[test]
fn components_and_triangles_edge_cases() {
    let p = fixture();
    let w = weakly_connected_components(&p.out, &c()).unwrap();
    assert_eq!((w.component, w.count), (vec![0, 0, 0, 0, 1, 2, 1], 3));
    // No cycle apart from the self-loop: every node is its own strong component.
    let s = strongly_connected_components(&p.out, &c()).unwrap();
    assert_eq!((s.component, s.count), ((0..7).collect::<Vec<u32>>(), 7));
    let back = Csr::from_edges(7, &[EDGES.as_slice(), &[(3, 0)]].concat(), None).unwrap();
    let s = strongly_connected_components(&back, &c()).unwrap();
    assert_eq!((s.component, s.count), (vec![0, 0, 0, 0, 1, 2, 3], 4));
    assert_eq!(weakly_connected_components(&empty(), &c()).unwrap().count, 0);
    assert_eq!(strongly_connected_components(&empty(), &c()).unwrap().count, 0);
    // No triangle: 0-1-2-3-0 is a square, the loop and the multi-edge do not make one.
    let t = triangles(&p.out, &c()).unwrap();
    assert_eq!((t.total, t.per_node), (0, vec![0; 7]));
    let tri = Csr::from_edges(4, &[(0, 1), (1, 0), (1, 2), (2, 0), (2, 2), (0, 1)], None).unwrap();
    let t = triangles(&tri, &c()).unwrap();
    assert_eq!((t.total, t.per_node), (1, vec![1, 1, 1, 0]));
    assert_eq!(triangles(&empty(), &c()).unwrap().per_node, Vec::<u64>::new());
}

#[test]
fn community_edge_cases() {
    let p = fixture();
    let g = &p.out;
    let le = leiden(g, &LeidenOptions::default(), &c()).unwrap();
    let lo = louvain(g, &LouvainOptions::default(), &c()).unwrap();
    for (what, part) in [("leiden", &le.partition), ("louvain", &lo.partition)] {
        assert_eq!(part.len(), 7, "{what}");
        // The isolated node is alone; the unreachable pair is apart from the square.
        assert!(part.iter().enumerate().all(|(v, &x)| v == 5 || x != part[5]), "{what}");
        assert_eq!(part[4], part[6], "{what}");
        assert_ne!(part[4], part[0], "{what}");
    }
    assert!((modularity(g, &le.partition, 1.0, &c()).unwrap() - le.quality).abs() < 1e-12);
    // Hierarchical rows: every node with an edge (the loop counts), never the isolated one.
    let rows = hierarchical_leiden(g, &HierarchicalOptions::graphrag(), &c()).unwrap();
    let mut nodes: Vec<u32> = rows.iter().filter(|r| r.level == 0).map(|r| r.node).collect();
    nodes.sort_unstable();
    assert_eq!(nodes, vec![0, 1, 2, 3, 4, 6]);
    assert!(modularity(&empty(), &[], 1.0, &c()).unwrap().is_nan());
    assert_eq!(
        leiden(&empty(), &LeidenOptions::default(), &c())
            .unwrap()
            .community_count,
        0
    );
    assert_eq!(
        louvain(&empty(), &LouvainOptions::default(), &c())
            .unwrap()
            .community_count,
        0
    );
}

#[test]
fn sampling_edge_cases() {
    let p = fixture();
    let g = &p.out;
    // The multi-edge is two positions, the self-loop one; all taken when the row is small.
    let s = sample_neighbors(g, &[0, 2], &[5], false, 1, &c()).unwrap();
    assert_eq!(s[0], vec![(0, 1), (0, 1), (0, 3), (2, 2), (2, 3)]);
    // An isolated seed contributes nothing, even with replacement; later hops stay empty.
    let s = sample_neighbors(g, &[5], &[3, 3], true, 1, &c()).unwrap();
    assert_eq!(s, vec![vec![], vec![]]);
    // The self-loop's end was already seen, so only 3 joins the next frontier, which has no
    // out-edge.
    let s = sample_neighbors(g, &[1], &[1, 2, 1], false, 1, &c()).unwrap();
    assert_eq!(s, vec![vec![(1, 2)], vec![(2, 2), (2, 3)], vec![]]);
    out_of_range(sample_neighbors(g, &[0, 7], &[1], false, 1, &c()), 7, 7);
    out_of_range(sample_neighbors(&empty(), &[0], &[1], false, 1, &c()), 0, 0);
    assert_eq!(
        sample_neighbors(&empty(), &[], &[2, 2], true, 1, &c()).unwrap(),
        vec![vec![], vec![]]
    );
}

#[test]
fn centrality_edge_cases() {
    let p = fixture();
    let opts = |directed, normalized| BetweennessOptions {
        directed,
        weighted: false,
        normalized,
    };
    // Simple digraph underneath: 0->1->2->3, 0->3, 6->4. Only 0 -> 2 runs through 1 and only
    // 1 -> 3 through 2; the loop and the parallel edge change nothing.
    assert_eq!(
        betweenness_centrality(&p.out, opts(true, false), &c()).unwrap(),
        vec![0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]
    );
    // Undirected square 0-1-2-3-0: each node is on one of the two shortest paths between its
    // two neighbours, so 0.5 each (unordered pairs, as NetworkX).
    assert_eq!(
        betweenness_centrality(&p.out, opts(false, false), &c()).unwrap(),
        vec![0.5, 0.5, 0.5, 0.5, 0.0, 0.0, 0.0]
    );
    // Degree counts every parallel edge, and a self-loop twice (in + out).
    let deg = degree_centrality(&p.out, DegreeDirection::Both, &c()).unwrap();
    assert_eq!(
        deg,
        [3.0, 3.0, 4.0, 2.0, 1.0, 0.0, 1.0].map(|d| d * (1.0 / 6.0)).to_vec()
    );
    assert_eq!(
        betweenness_centrality(&empty(), opts(true, true), &c()).unwrap(),
        Vec::<f64>::new()
    );
    assert_eq!(
        degree_centrality(&empty(), DegreeDirection::In, &c()).unwrap(),
        Vec::<f64>::new()
    );
    assert!(matches!(
        betweenness_centrality_sampled(&empty(), opts(true, true), 1, 1, &c()),
        Err(AlgoError::InvalidArgument(_))
    ));
    assert!(matches!(
        betweenness_centrality(
            &p.out,
            BetweennessOptions {
                weighted: true,
                ..opts(true, true)
            },
            &c()
        ),
        Err(AlgoError::InvalidArgument(_))
    ));
}
