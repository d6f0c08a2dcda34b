//! Control (cancel flag, deadline, memory bound) on every long-running function, on synthetic
//! graphs (no datasets needed): a cancel from another thread stops runs that would otherwise
//! go on for hours, an expired deadline or a set flag stops every function before it works,
//! and the memory bound covers the frontiers, visited sets and result buffers as they grow.
// Integration tests: a failed unwrap/expect is the test failure, reported with its location.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use hopdb_algo::components::weakly_connected_components_lp;
use hopdb_algo::varlen::shortest_closed_trail;
use hopdb_algo::{
    all_shortest_paths, betweenness_centrality, betweenness_centrality_sampled, bfs_distances,
    collect_var_length_paths, degree_centrality, dijkstra, dijkstra_distances, for_each_shortest_path,
    hierarchical_leiden, k_hop, leiden, lightrag_subgraph, lightrag_top_degree, louvain, modularity, pagerank,
    sample_neighbors, shortest_path, strongly_connected_components, triangles, var_length_endpoints, var_length_paths,
    weakly_connected_components, AlgoError, BetweennessOptions, Control, Csr, DegreeDirection, HierarchicalOptions,
    HopMode, LeidenOptions, LouvainOptions, PageRankOptions, Projection,
};

type Run<'a> = Box<dyn Fn(&Control) -> Result<(), AlgoError> + 'a>;

/// The complete directed graph on `k` nodes with every edge doubled: trails beyond counting.
fn complete(k: u32) -> Projection {
    let mut edges = Vec::new();
    for a in 0..k {
        for b in 0..k {
            if a != b {
                edges.extend([(a, b), (a, b)]);
            }
        }
    }
    Projection::from_edges(k, &edges, None).unwrap()
}

/// `d` diamonds in a row, `2d + 1` nodes: 2^d shortest paths from node 0 to node 2d.
fn diamonds(d: u32) -> Projection {
    let mut edges = Vec::new();
    for i in 0..d {
        let (a, b, c, z) = (2 * i, 2 * i + 1, 2 * d + 1 + i, 2 * i + 2);
        edges.extend([(a, b), (b, z), (a, c), (c, z)]);
    }
    Projection::from_edges(3 * d + 1, &edges, None).unwrap()
}

/// A `side` x `side` grid, edges right and down.
fn grid(side: u32) -> Projection {
    let mut edges = Vec::new();
    for r in 0..side {
        for c in 0..side {
            let v = r * side + c;
            if c + 1 < side {
                edges.push((v, v + 1));
            }
            if r + 1 < side {
                edges.push((v, v + side));
            }
        }
    }
    Projection::from_edges(side * side, &edges, Some(&vec![1.0; edges.len()])).unwrap()
}

/// A star: node 0 joined to `leaves` others (out-edges from the hub).
fn star(leaves: u32) -> Projection {
    let edges: Vec<(u32, u32)> = (1..=leaves).map(|v| (0, v)).collect();
    Projection::from_edges(leaves + 1, &edges, None).unwrap()
}

/// Drops a successful answer: only the error matters here.
fn done<T>(_: T) {}

/// One run of every public long-running function on `p` (from node 0 where there is a start).
fn every_function(p: &Projection) -> Vec<(&'static str, Run<'_>)> {
    let (out, inc) = (&p.out, &p.inc);
    let und = out.simple_undirected(true);
    let bo = BetweennessOptions {
        directed: true,
        weighted: false,
        normalized: true,
    };
    let n = out.node_count();
    let t = n - 1;
    vec![
        (
            "k_hop",
            Box::new(move |c: &Control| k_hop(&[out], 0, 3, HopMode::Within, None, c).map(done)),
        ),
        (
            "lightrag_subgraph",
            Box::new(move |c: &Control| lightrag_subgraph(&und, 0, 3, 100, None, c).map(done)),
        ),
        (
            "lightrag_top_degree",
            Box::new(move |c: &Control| lightrag_top_degree(out, 10, None, c).map(done)),
        ),
        (
            "var_length_paths",
            Box::new(move |c: &Control| {
                var_length_paths(&[out], 0, 1, 3, None, c, |_| ControlFlow::Continue(())).map(done)
            }),
        ),
        (
            "collect_var_length_paths",
            Box::new(move |c: &Control| collect_var_length_paths(&[out], 0, 1, 3, None, c).map(done)),
        ),
        (
            "var_length_endpoints",
            Box::new(move |c: &Control| var_length_endpoints(&[out], 0, 0, 3, None, c).map(done)),
        ),
        (
            "var_length_endpoints_2",
            Box::new(move |c: &Control| var_length_endpoints(&[out], 0, 2, 3, None, c).map(done)),
        ),
        (
            "shortest_closed_trail",
            Box::new(move |c: &Control| shortest_closed_trail(&[out], 0, 5, c).map(done)),
        ),
        (
            "shortest_path",
            Box::new(move |c: &Control| shortest_path(out, inc, 0, t, c).map(done)),
        ),
        (
            "dijkstra",
            Box::new(move |c: &Control| dijkstra(out, 0, t, c).map(done)),
        ),
        (
            "dijkstra_distances",
            Box::new(move |c: &Control| dijkstra_distances(out, 0, c).map(done)),
        ),
        (
            "bfs_distances",
            Box::new(move |c: &Control| bfs_distances(&[out], 0, None, c).map(done)),
        ),
        (
            "all_shortest_paths",
            Box::new(move |c: &Control| all_shortest_paths(out, inc, 0, t, None, c).map(done)),
        ),
        (
            "for_each_shortest_path",
            Box::new(move |c: &Control| {
                for_each_shortest_path(out, inc, 0, t, None, c, |_| ControlFlow::Continue(())).map(done)
            }),
        ),
        (
            "pagerank",
            Box::new(move |c: &Control| pagerank(out, inc, &PageRankOptions::default(), c).map(done)),
        ),
        (
            "weakly_connected_components",
            Box::new(move |c: &Control| weakly_connected_components(out, c).map(done)),
        ),
        (
            "weakly_connected_components_lp",
            Box::new(move |c: &Control| weakly_connected_components_lp(out, c).map(done)),
        ),
        (
            "strongly_connected_components",
            Box::new(move |c: &Control| strongly_connected_components(out, c).map(done)),
        ),
        ("triangles", Box::new(move |c: &Control| triangles(out, c).map(done))),
        (
            "modularity",
            Box::new(move |c: &Control| modularity(out, &vec![0; n as usize], 1.0, c).map(done)),
        ),
        (
            "louvain",
            Box::new(move |c: &Control| louvain(out, &LouvainOptions::default(), c).map(done)),
        ),
        (
            "leiden",
            Box::new(move |c: &Control| leiden(out, &LeidenOptions::default(), c).map(done)),
        ),
        (
            "hierarchical_leiden",
            Box::new(move |c: &Control| hierarchical_leiden(out, &HierarchicalOptions::graphrag(), c).map(done)),
        ),
        (
            "sample_neighbors",
            Box::new(move |c: &Control| sample_neighbors(out, &[0], &[5, 5], false, 1, c).map(done)),
        ),
        (
            "betweenness_centrality",
            Box::new(move |c: &Control| betweenness_centrality(out, bo, c).map(done)),
        ),
        (
            "betweenness_centrality_sampled",
            Box::new(move |c: &Control| betweenness_centrality_sampled(out, bo, 2, 1, c).map(done)),
        ),
        (
            "degree_centrality",
            Box::new(move |c: &Control| degree_centrality(out, DegreeDirection::Both, c).map(done)),
        ),
    ]
}

#[test]
fn expired_deadline_and_set_flag_stop_every_function() {
    let p = grid(4);
    let late = Control::unbounded().with_timeout(Duration::ZERO);
    let cancelled = Control::unbounded().with_cancel(Arc::new(AtomicBool::new(true)));
    let runs = every_function(&p);
    assert_eq!(runs.len(), 27);
    for (what, run) in &runs {
        assert!(run(&Control::unbounded()).is_ok(), "{what} runs unbounded");
        assert!(
            matches!(run(&late), Err(AlgoError::DeadlineExceeded(_))),
            "{what}: {:?}",
            run(&late)
        );
        assert_eq!(run(&cancelled), Err(AlgoError::Cancelled), "{what}");
    }
}

#[test]
fn tiny_memory_bound_stops_every_traversal() {
    let p = grid(4);
    let tiny = Control::unbounded().with_max_memory(1);
    for (what, run) in every_function(&p) {
        if what == "degree_centrality" {
            continue; // one output vector, no working memory
        }
        assert!(
            matches!(run(&tiny), Err(AlgoError::MemoryLimit { .. })),
            "{what}: {:?}",
            run(&tiny)
        );
    }
}

/// Runs `run` with a flag another thread sets after 100 ms: it must stop with `Cancelled`,
/// after the flag was set (so it really was running) and promptly.
fn cancelled_from_another_thread(what: &str, run: impl FnOnce(&Control) -> Result<(), AlgoError>) {
    let flag = Arc::new(AtomicBool::new(false));
    let ctrl = Control::unbounded().with_cancel(flag.clone());
    let setter = thread::spawn(move || {
        thread::sleep(Duration::from_millis(100));
        // The time is taken before the store: the run may see the flag at once.
        let at = Instant::now();
        flag.store(true, Ordering::Relaxed);
        at
    });
    let r = run(&ctrl);
    let stopped = Instant::now();
    let set_at = setter.join().unwrap();
    assert_eq!(r, Err(AlgoError::Cancelled), "{what}");
    assert!(stopped >= set_at, "{what} stopped before the flag was set");
    assert!(
        stopped - set_at < Duration::from_secs(2),
        "{what} took {:?} to notice the cancel",
        stopped - set_at
    );
}

#[test]
fn cancel_from_another_thread_stops_long_runs() {
    let k = complete(9);
    let views = [&k.out, &k.inc];
    cancelled_from_another_thread("var_length_paths", |c| {
        var_length_paths(&views, 0, 1, u32::MAX, None, c, |_| ControlFlow::Continue(())).map(|_| ())
    });
    cancelled_from_another_thread("var_length_endpoints", |c| {
        var_length_endpoints(&views, 0, 3, u32::MAX, None, c).map(|_| ())
    });
    let d = diamonds(62);
    let target = 2 * 62;
    cancelled_from_another_thread("for_each_shortest_path", |c| {
        for_each_shortest_path(&d.out, &d.inc, 0, target, None, c, |_| ControlFlow::Continue(())).map(|_| ())
    });
    let g = grid(200);
    let opts = PageRankOptions {
        max_iterations: u32::MAX,
        tolerance: 0.0,
        ..Default::default()
    };
    cancelled_from_another_thread("pagerank", |c| pagerank(&g.out, &g.inc, &opts, c).map(|_| ()));
    let bo = BetweennessOptions {
        directed: false,
        weighted: true,
        normalized: true,
    };
    cancelled_from_another_thread("betweenness_centrality", |c| {
        betweenness_centrality(&g.out, bo, c).map(|_| ())
    });
}

#[test]
fn memory_bound_covers_growing_buffers() {
    // k-hop: the visited bitset of a 200k-leaf star is 25 KB; its 1-hop answer is 800 KB.
    let s = star(200_000);
    let bound = Control::unbounded().with_max_memory(64 << 10);
    let full = k_hop(&[&s.out], 0, 1, HopMode::Within, None, &bound);
    assert!(matches!(full, Err(AlgoError::MemoryLimit { .. })), "{full:?}");
    // With a limit it stops expanding at the limit: the buffers never grow past it.
    let limited = k_hop(&[&s.out], 0, 1, HopMode::Within, Some(100), &bound).unwrap();
    assert_eq!(limited, (1..=100).collect::<Vec<u32>>());
    let leaf_first = k_hop(&[&s.out, &s.inc], 5, 2, HopMode::Exactly, Some(10), &bound).unwrap();
    assert_eq!(leaf_first.len(), 10);
    // LightRAG's BFS must queue the whole next level (it sorts it by degree): over the bound.
    let und = s.out.undirected();
    let r = lightrag_subgraph(&und, 0, 2, 10, None, &bound);
    assert!(matches!(r, Err(AlgoError::MemoryLimit { .. })), "{r:?}");
    let r = lightrag_subgraph(&und, 0, 2, usize::MAX, None, &bound);
    assert!(matches!(r, Err(AlgoError::MemoryLimit { .. })), "{r:?}");
    // Variable-length paths: 200k trails of 2 hops. Streamed they fit in a few hundred bytes;
    // collected, or as 200k distinct end nodes, they do not.
    let two = Projection::from_edges(
        200_002,
        &[vec![(200_001, 0)], (1..=200_000).map(|v| (0, v)).collect()].concat(),
        None,
    )
    .unwrap();
    let streamed = var_length_paths(&[&two.out], 200_001, 2, 2, None, &bound, |_| ControlFlow::Continue(()));
    assert_eq!(streamed, Ok(200_000));
    let r = collect_var_length_paths(&[&two.out], 200_001, 2, 2, None, &bound);
    assert!(
        matches!(r, Err(AlgoError::MemoryLimit { .. })),
        "{:?}",
        r.map(|p| p.len())
    );
    let r = var_length_endpoints(&[&two.out], 200_001, 2, 2, None, &bound);
    assert!(
        matches!(r, Err(AlgoError::MemoryLimit { .. })),
        "{:?}",
        r.map(|p| p.len())
    );
    assert_eq!(
        var_length_endpoints(&[&two.out], 200_001, 2, 2, Some(50), &bound).map(|e| e.len()),
        Ok(50)
    );
    // The enumeration's own stack: a 5,000-hop chain needs one frame per hop.
    let chain: Vec<(u32, u32)> = (0..5_000).map(|v| (v, v + 1)).collect();
    let chain = Csr::from_edges(5_001, &chain, None).unwrap();
    let small = Control::unbounded().with_max_memory(16 << 10);
    let deep = var_length_paths(&[&chain], 0, 1, u32::MAX, None, &small, |_| ControlFlow::Continue(()));
    assert!(matches!(deep, Err(AlgoError::MemoryLimit { .. })), "{deep:?}");
    assert_eq!(
        var_length_paths(&[&chain], 0, 1, 100, None, &small, |_| ControlFlow::Continue(())),
        Ok(100)
    );
    // All shortest paths: 2^16 of them through 16 diamonds. Streamed: fine; collected: not.
    let d = diamonds(16);
    let (t, bound) = (32, Control::unbounded().with_max_memory(1 << 20));
    let count = for_each_shortest_path(&d.out, &d.inc, 0, t, None, &bound, |p| {
        assert_eq!(p.len(), 33);
        ControlFlow::Continue(())
    });
    assert_eq!(count, Ok(1 << 16));
    let r = all_shortest_paths(&d.out, &d.inc, 0, t, None, &bound);
    assert!(
        matches!(r, Err(AlgoError::MemoryLimit { .. })),
        "{:?}",
        r.map(|p| p.len())
    );
    assert_eq!(
        all_shortest_paths(&d.out, &d.inc, 0, t, Some(1000), &bound).map(|p| p.len()),
        Ok(1000)
    );
    // Sampling with replacement: the fanout, not the row, sizes the answer.
    let s = star(10);
    let r = sample_neighbors(&s.out, &[0], &[1 << 20], true, 1, &bound);
    assert!(
        matches!(r, Err(AlgoError::MemoryLimit { .. })),
        "{:?}",
        r.map(|h| h[0].len())
    );
}
