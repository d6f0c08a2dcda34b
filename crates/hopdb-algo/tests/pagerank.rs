//! PageRank against igraph's PRPACK (directed NotreDame, undirected MIT8, personalised) and
//! NetworkX (email-Eu-core, which has dangling nodes), plus thread-count determinism.
// Integration tests: a failed unwrap/expect is the test failure, reported with its location.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod algo_support;
mod common;

use algo_support::*;
use common::{datasets, reference};
use hopdb_algo::{pagerank, AlgoError, Control, Csr, PageRankOptions, Personalization};

fn opts(personalization: Personalization) -> PageRankOptions {
    PageRankOptions {
        damping: 0.85,
        max_iterations: 1000,
        tolerance: 1e-10,
        personalization,
    }
}

fn l1(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    let (sa, sb): (f64, f64) = (a.iter().sum(), b.iter().sum());
    a.iter().zip(b).map(|(x, y)| (x / sa - y / sb).abs()).sum()
}

fn run(out: &Csr, inc: &Csr, p: Personalization) -> Vec<f64> {
    let r = pagerank(out, inc, &opts(p), &Control::unbounded()).unwrap();
    assert!((r.iter().sum::<f64>() - 1.0).abs() < 1e-9);
    r
}

#[test]
fn matches_igraph_on_notredame_plain_and_personalised() {
    let Some(dir) = datasets() else { return };
    let g = notredame(&dir);
    let out = g.csr();
    let inc = out.transpose();
    assert!(
        (0..g.n).any(|v| out.degree(v) == 0),
        "NotreDame should have dangling nodes"
    );
    let tsv = TempFile::tsv(&g, "pr-notredame.tsv");
    // Seeds with and without out-edges: dangling mass goes back to the seeds, as in PRPACK.
    let seeds = [
        pick(g.n, 3, 41, |v| out.degree(v) > 0),
        pick(g.n, 1, 42, |v| out.degree(v) == 0),
    ]
    .concat();
    let reply = reference(
        "ig_pagerank.py",
        &[tsv.arg(), "directed", "0.85", "uniform", &join(&seeds)],
    );
    let ours = run(&out, &inc, Personalization::Uniform);
    let d = l1(&ours, &f64s(&reply["igraph"][0]));
    eprintln!("L1 distance: {d:e}");
    assert!(d < 1e-6, "NotreDame PageRank L1 distance to igraph {d}");
    let ours = run(&out, &inc, Personalization::Seeds(seeds.clone()));
    let d = l1(&ours, &f64s(&reply["igraph"][1]));
    eprintln!("L1 distance: {d:e}");
    assert!(d < 1e-6, "NotreDame personalised PageRank L1 distance to igraph {d}");

    // Bit-identical on 1 and 2 threads (fixed-chunk reductions).
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let two = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let o = PageRankOptions {
        max_iterations: 20,
        ..opts(Personalization::Uniform)
    };
    let a = one.install(|| pagerank(&out, &inc, &o, &Control::unbounded())).unwrap();
    let b = two.install(|| pagerank(&out, &inc, &o, &Control::unbounded())).unwrap();
    assert!(a == b, "PageRank differs between 1 and 2 threads");
    let expired = Control::unbounded().with_timeout(std::time::Duration::ZERO);
    assert!(matches!(
        pagerank(&out, &inc, &o, &expired),
        Err(AlgoError::DeadlineExceeded(_))
    ));
}

#[test]
fn matches_igraph_on_mit8_undirected() {
    let Some(dir) = datasets() else { return };
    let g = mit8(&dir);
    let und = g.csr().undirected();
    let tsv = TempFile::tsv(&g, "pr-mit8.tsv");
    let seeds = pick(g.n, 2, 43, |_| true);
    let reply = reference(
        "ig_pagerank.py",
        &[tsv.arg(), "undirected", "0.85", "uniform", &join(&seeds)],
    );
    let d = l1(&run(&und, &und, Personalization::Uniform), &f64s(&reply["igraph"][0]));
    eprintln!("L1 distance: {d:e}");
    assert!(d < 1e-6, "MIT8 PageRank L1 distance to igraph {d}");
    let d = l1(
        &run(&und, &und, Personalization::Seeds(seeds)),
        &f64s(&reply["igraph"][1]),
    );
    assert!(d < 1e-6, "MIT8 personalised PageRank L1 distance to igraph {d}");
}

#[test]
fn matches_networkx_and_igraph_on_eu_core() {
    let Some(dir) = datasets() else { return };
    let g = eu_core(&dir);
    let out = g.csr();
    let inc = out.transpose();
    let tsv = TempFile::tsv(&g, "pr-eu.tsv");
    let seeds = pick(g.n, 5, 44, |_| true);
    let reply = reference(
        "ig_pagerank.py",
        &[tsv.arg(), "directed", "0.7", "--nx", "uniform", &join(&seeds)],
    );
    for (run, seeds) in [vec![], seeds].into_iter().enumerate() {
        let p = if seeds.is_empty() {
            Personalization::Uniform
        } else {
            // The same restart distribution given as a vector.
            let mut v = vec![0.0; g.n as usize];
            seeds.iter().for_each(|&s| v[s as usize] = 2.0);
            Personalization::Vector(v)
        };
        let o = PageRankOptions {
            damping: 0.7,
            ..opts(p)
        };
        let ours = pagerank(&out, &inc, &o, &Control::unbounded()).unwrap();
        for lib in ["igraph", "networkx"] {
            let d = l1(&ours, &f64s(&reply[lib][run]));
            eprintln!("L1 distance: {d:e}");
            assert!(d < 1e-6, "Eu-core PageRank (seeds {seeds:?}) L1 distance to {lib} {d}");
        }
    }
}
