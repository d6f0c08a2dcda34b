//! Neighbour sampling: real edges, reproducibility, fanouts and frontiers (NotreDame), and
//! uniformity by a chi-square bound over many draws (email-Eu-core).
// Integration tests: a failed unwrap/expect is the test failure, reported with its location.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod algo_support;
mod common;

use std::collections::HashSet;

use algo_support::*;
use common::datasets;
use hopdb_algo::{sample_neighbors, AlgoError, Control, Csr};

/// Every pair is an edge of `g` from the hop's frontier, within the fanout per node.
fn check_sample(g: &Csr, seeds: &[u32], fanouts: &[usize], replace: bool, hops: &[Vec<(u32, u32)>]) {
    assert_eq!(hops.len(), fanouts.len());
    let mut seen: HashSet<u32> = seeds.iter().copied().collect();
    let mut frontier: Vec<u32> = seeds.to_vec();
    frontier.dedup();
    for (h, pairs) in hops.iter().enumerate() {
        let members: HashSet<u32> = frontier.iter().copied().collect();
        let mut per_node = std::collections::HashMap::new();
        let mut next = Vec::new();
        for &(u, v) in pairs {
            assert!(members.contains(&u), "hop {h}: {u} is not in the frontier");
            assert!(has_edge(g, u, v), "hop {h}: {u} -> {v} is not an edge");
            *per_node.entry(u).or_insert(0usize) += 1;
            if seen.insert(v) {
                next.push(v);
            }
        }
        for &u in &frontier {
            let want = if replace && g.degree(u) > 0 {
                fanouts[h]
            } else {
                (g.degree(u) as usize).min(fanouts[h])
            };
            assert_eq!(
                per_node.get(&u).copied().unwrap_or(0),
                want,
                "hop {h}: node {u} sampled count"
            );
        }
        frontier = next;
    }
}

#[test]
fn samples_are_real_edges_reproducible_and_sized() {
    let Some(dir) = datasets() else { return };
    let g = notredame(&dir);
    let inc = g.csr().transpose();
    let seeds = pick(g.n, 512, 61, |v| inc.degree(v) > 0);
    let c = Control::unbounded();
    for replace in [false, true] {
        let a = sample_neighbors(&inc, &seeds, &[10, 5], replace, 42, &c).unwrap();
        let b = sample_neighbors(&inc, &seeds, &[10, 5], replace, 42, &c).unwrap();
        let other = sample_neighbors(&inc, &seeds, &[10, 5], replace, 43, &c).unwrap();
        assert_eq!(a, b, "same seed, different sample");
        assert_ne!(a, other, "different seeds, same sample");
        check_sample(&inc, &seeds, &[10, 5], replace, &a);
        assert!(a[1].len() > a[0].len() / 2, "second hop is too small to mean anything");
    }
    // Without replacement no position repeats: rows with few parallel edges give no duplicates.
    let once = sample_neighbors(&inc, &seeds, &[10], false, 7, &c).unwrap();
    let distinct: HashSet<(u32, u32)> = once[0].iter().copied().collect();
    assert_eq!(distinct.len(), once[0].len());
    assert!(matches!(
        sample_neighbors(&inc, &[g.n], &[1], false, 1, &c),
        Err(AlgoError::NodeOutOfRange { .. })
    ));
    let expired = Control::unbounded().with_timeout(std::time::Duration::ZERO);
    assert!(matches!(
        sample_neighbors(&inc, &seeds, &[10], false, 1, &expired),
        Err(AlgoError::DeadlineExceeded(_))
    ));
}

/// Chi-square statistic of observed counts against a uniform expectation.
fn chi_square(counts: &[u64]) -> f64 {
    let total: u64 = counts.iter().sum();
    let expected = total as f64 / counts.len() as f64;
    counts.iter().map(|&o| (o as f64 - expected).powi(2) / expected).sum()
}

#[test]
fn draws_are_uniform_over_row_positions() {
    let Some(dir) = datasets() else { return };
    let g = eu_core(&dir).csr();
    // A node with a mid-sized row of distinct neighbours.
    let u = (0..g.node_count())
        .find(|&v| (20..=40).contains(&g.degree(v)) && g.neighbors(v).windows(2).all(|w| w[0] != w[1]))
        .unwrap();
    let d = g.degree(u) as usize;
    let c = Control::unbounded();
    for (replace, k) in [(false, 5), (true, 5), (false, d - 1)] {
        let mut counts = vec![0u64; d];
        for seed in 0..4000u64 {
            let hops = sample_neighbors(&g, &[u], &[k], replace, seed, &c).unwrap();
            for &(_, v) in &hops[0] {
                counts[g.neighbors(u).binary_search(&v).unwrap()] += 1;
            }
        }
        assert_eq!(counts.iter().sum::<u64>(), 4000 * k as u64);
        // d - 1 degrees of freedom; mean d - 1, sd sqrt(2(d - 1)). Six sd is far out for a fair
        // sampler (fixed seeds: not flaky), and a biased one (e.g. always the first k) fails.
        let dof = (d - 1) as f64;
        let x2 = chi_square(&counts);
        assert!(
            x2 < dof + 6.0 * (2.0 * dof).sqrt(),
            "replace={replace} k={k}: chi-square {x2} for {dof} dof"
        );
    }
}
