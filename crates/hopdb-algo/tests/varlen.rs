//! Variable-length paths against a brute-force trail enumerator (rome99, email-Eu-core), and
//! cancellation / deadline / memory bound of long traversals (NotreDame).
// Integration tests: a failed unwrap/expect is the test failure, reported with its location.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod algo_support;
mod common;

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use algo_support::*;
use common::{datasets, reference, Loaded};
use hopdb_algo::varlen::shortest_closed_trail;
use hopdb_algo::{var_length_endpoints, var_length_paths, AlgoError, Control, Csr, Projection};

/// Counts per length and end-node sets per (min, max) against py_trails.py.
fn check_trails(g: &Loaded, mode: &str, max: u32, seeds: &[u32], name: &str) {
    let p = Projection::from_edges(g.n, &g.edges, None).unwrap();
    let views: Vec<&Csr> = if mode == "both" {
        vec![&p.out, &p.inc]
    } else {
        vec![&p.out]
    };
    let tsv = TempFile::tsv(g, &format!("trails-{name}-{mode}.tsv"));
    let reply = reference("py_trails.py", &[tsv.arg(), mode, &max.to_string(), &join(seeds)]);
    let c = Control::unbounded();
    let mut total = 0u64;
    for &s in seeds {
        let want = &reply[s.to_string()];
        let mut counts = vec![0u64; max as usize];
        let delivered = var_length_paths(&views, s, 1, max, None, &c, |path| {
            assert_eq!(path.nodes.len(), path.edges.len() + 1);
            assert_eq!(path.nodes[0], s);
            let mut e = path.edges.clone();
            e.sort_unstable();
            e.dedup();
            assert_eq!(e.len(), path.edges.len(), "an edge repeats in {path:?}");
            for (i, &key) in path.edges.iter().enumerate() {
                let (a, b) = g.edges[key as usize];
                let step = (path.nodes[i], path.nodes[i + 1]);
                assert!(
                    step == (a, b) || (mode == "both" && step == (b, a)),
                    "edge {key} does not join {step:?}"
                );
            }
            counts[path.edges.len() - 1] += 1;
            ControlFlow::Continue(())
        })
        .unwrap();
        assert_eq!(
            serde_json::json!(counts),
            want["counts"],
            "{name} {mode} seed {s}: trails per length"
        );
        assert_eq!(delivered, counts.iter().sum::<u64>());
        total += delivered;
        for lo in 1..=max {
            for hi in lo..=max {
                let mut ends = var_length_endpoints(&views, s, lo, hi, None, &c).unwrap();
                ends.sort_unstable();
                assert_eq!(
                    serde_json::json!(ends),
                    want["ends"][format!("{lo}-{hi}")],
                    "{name} {mode} seed {s} ends {lo}..{hi}"
                );
            }
        }
        // The shortest closed trail through the seed is the first length that ends on it.
        let first_return = (1..=max).find(|l| {
            want["ends"][format!("{l}-{l}")]
                .as_array()
                .unwrap()
                .contains(&serde_json::json!(s))
        });
        assert_eq!(
            shortest_closed_trail(&views, s, max, &c).unwrap(),
            first_return,
            "{name} {mode} seed {s}"
        );
        // A limit stops the stream exactly there.
        let mut seen = 0;
        let got = var_length_paths(&views, s, 1, max, Some(3), &c, |_| {
            seen += 1;
            ControlFlow::Continue(())
        })
        .unwrap();
        assert_eq!((got, seen), (delivered.min(3), delivered.min(3)));
    }
    assert!(
        total > 1000,
        "{name} {mode}: only {total} trails; the check is too weak"
    );
}

#[test]
fn trails_match_brute_force_on_rome99() {
    let Some(dir) = datasets() else { return };
    let g = rome99(&dir);
    let seeds = pick(g.n, 15, 51, |_| true);
    check_trails(&g, "out", 5, &seeds, "rome99");
    check_trails(&g, "both", 4, &seeds, "rome99");
}

/// rome99 with each road kept in one direction only (the first arc of each pair in file
/// order): no 2-cycles, so the shortest closed trails through a node are 3+ edges long and the
/// closed-trail BFS of `var_length_endpoints` is what finds them.
#[test]
fn trails_match_brute_force_on_oriented_rome99() {
    let Some(dir) = datasets() else { return };
    let g = rome99(&dir);
    let mut kept = std::collections::HashSet::new();
    let edges: Vec<(u32, u32)> = g
        .edges
        .iter()
        .copied()
        .filter(|&(a, b)| !kept.contains(&(b, a)) && kept.insert((a, b)))
        .collect();
    let oriented = Loaded {
        n: g.n,
        edges,
        weights: None,
        ids: g.ids.clone(),
    };
    let out = oriented.csr();
    let seeds = pick(g.n, 80, 54, |v| out.degree(v) > 0);
    let c = Control::unbounded();
    let closed = seeds
        .iter()
        .filter(|&&s| {
            shortest_closed_trail(&[&out], s, 6, &c)
                .unwrap()
                .is_some_and(|l| l >= 3)
        })
        .count();
    assert!(closed >= 5, "only {closed} seeds on a 3..6 cycle");
    check_trails(&oriented, "out", 6, &seeds, "oriented-rome99");
    check_trails(&oriented, "both", 4, &seeds[..20], "oriented-rome99");
}

#[test]
fn trails_match_brute_force_on_eu_core() {
    let Some(dir) = datasets() else { return };
    let g = eu_core(&dir);
    let out = g.csr();
    // Low-degree seeds keep the brute force cheap; self-loops (642 of them) make it interesting.
    let loops: Vec<u32> = g.edges.iter().filter(|(a, b)| a == b).map(|&(a, _)| a).collect();
    let seeds = pick(g.n, 4, 52, |v| (1..=6).contains(&out.degree(v)) && loops.contains(&v));
    let more = pick(g.n, 3, 53, |v| (1..=4).contains(&out.degree(v)));
    check_trails(&g, "out", 3, &[seeds.clone(), more].concat(), "eu-core");
    check_trails(&g, "both", 2, &seeds, "eu-core");
}

#[test]
fn long_traversals_stop_on_cancel_deadline_and_memory() {
    let Some(dir) = datasets() else { return };
    let g = notredame(&dir);
    let p = Projection::from_edges(g.n, &g.edges, None).unwrap();
    let views = [&p.out, &p.inc];
    let hub = (0..g.n).max_by_key(|&v| p.out.degree(v) + p.inc.degree(v)).unwrap();
    // Cancelled from another thread while enumerating billions of trails.
    let flag = Arc::new(AtomicBool::new(false));
    let setter = {
        let flag = flag.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            flag.store(true, Ordering::Relaxed);
        })
    };
    let ctrl = Control::unbounded().with_cancel(flag);
    let mut seen = 0u64;
    let r = var_length_paths(&views, hub, 1, 8, None, &ctrl, |_| {
        seen += 1;
        ControlFlow::Continue(())
    });
    setter.join().unwrap();
    assert_eq!(r, Err(AlgoError::Cancelled));
    assert!(seen > 0);
    let r = var_length_endpoints(
        &views,
        hub,
        3,
        8,
        None,
        &Control::unbounded().with_timeout(Duration::from_millis(50)),
    );
    assert!(matches!(r, Err(AlgoError::DeadlineExceeded(_))));
    let expired = Control::unbounded().with_timeout(Duration::ZERO);
    assert!(matches!(
        var_length_paths(&views, hub, 1, 8, None, &expired, |_| ControlFlow::Continue(())),
        Err(AlgoError::DeadlineExceeded(_))
    ));
    // The closed-trail BFS and the enumeration respect the memory bound.
    let tight = Control::unbounded().with_max_memory(1 << 10);
    assert!(matches!(
        var_length_endpoints(&views, hub, 1, 8, None, &tight),
        Err(AlgoError::MemoryLimit { .. })
    ));
    assert!(matches!(
        var_length_paths(&views, hub, 1, 100, None, &tight, |_| ControlFlow::Continue(())),
        Err(AlgoError::MemoryLimit { .. })
    ));
    assert!(matches!(
        var_length_paths(&views, g.n, 1, 2, None, &Control::unbounded(), |_| {
            ControlFlow::Continue(())
        }),
        Err(AlgoError::NodeOutOfRange { .. })
    ));
}
