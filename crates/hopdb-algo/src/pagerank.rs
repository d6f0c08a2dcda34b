//! PageRank by power iteration, pull-based over the in-view and parallel with rayon.
//!
//! Same model as NetworkX's `pagerank` and igraph's PRPACK `personalized_pagerank`: every
//! edge (parallel edges and self-loops included) carries `1 / out_degree` of its source's
//! rank, rank that sits on nodes without out-edges (dangling) is redistributed by the
//! personalisation vector (uniform when there is none), and `1 - damping` teleports by the
//! personalisation vector. Only the stopping rule differs: iterate until the L1 change is below
//! `tolerance` (igraph solves to 1e-10; NetworkX stops at `n * tol`).

use rayon::prelude::*;

use crate::control::{AlgoError, Control};
use crate::csr::Csr;
use crate::util::check_node;

/// Nodes per parallel work item; fixed, so floating-point sums are split (and rounded) the
/// same way whatever the number of threads: results are bit-identical across pools.
const CHUNK: usize = 4096;

/// Where the random walk restarts.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Personalization {
    /// Every node alike (classic PageRank).
    #[default]
    Uniform,
    /// Uniformly over these seed nodes (a node listed twice weighs twice).
    Seeds(Vec<u32>),
    /// One non-negative weight per node, normalised to sum 1.
    Vector(Vec<f64>),
}

/// Damping, stopping rule and teleport distribution of a PageRank run; the defaults are NetworkX's.
#[derive(Debug, Clone, PartialEq)]
pub struct PageRankOptions {
    /// Probability of following an edge (0.85 in NetworkX and igraph).
    pub damping: f64,
    /// Power iterations at most; when they run out the last iterate is returned.
    pub max_iterations: u32,
    /// Stop once the L1 norm of the change between two iterations is below this.
    pub tolerance: f64,
    /// Where a random jump lands (and where dangling nodes' rank goes).
    pub personalization: Personalization,
}

impl Default for PageRankOptions {
    fn default() -> Self {
        PageRankOptions {
            damping: 0.85,
            max_iterations: 100,
            tolerance: 1e-6,
            personalization: Personalization::Uniform,
        }
    }
}

/// PageRank scores (summing to 1; empty for an empty graph). `out` and `inc` are the two
/// directions of one graph (for an undirected graph pass [`Csr::undirected`] twice). When
/// `max_iterations` runs out first, the last iterate is returned, as igraph's ARPACK/PRPACK do.
/// Runs on the current rayon pool (`ThreadPool::install` to choose the thread count).
pub fn pagerank(out: &Csr, inc: &Csr, opts: &PageRankOptions, ctrl: &Control) -> Result<Vec<f64>, AlgoError> {
    let n = out.node_count();
    if inc.node_count() != n || inc.edge_count() != out.edge_count() {
        return Err(AlgoError::InvalidArgument("inc is not the transpose of out".into()));
    }
    if !(0.0..1.0).contains(&opts.damping) {
        return Err(AlgoError::InvalidArgument(format!(
            "damping {} is not in [0, 1)",
            opts.damping
        )));
    }
    if opts.tolerance.is_nan() || opts.tolerance < 0.0 {
        return Err(AlgoError::InvalidArgument(format!(
            "tolerance {} is negative",
            opts.tolerance
        )));
    }
    ctrl.check()?;
    let nu = n as usize;
    ctrl.check_memory(nu * 8 * 5)?;
    // Validated even for an empty graph: a seed outside it is an error, not an empty answer.
    let restart = restart_vector(&opts.personalization, n)?;
    if n == 0 {
        return Ok(Vec::new());
    }
    let inv_out: Vec<f64> = (0..n)
        .into_par_iter()
        .map(|u| match out.degree(u) {
            0 => 0.0,
            d => 1.0 / d as f64,
        })
        .collect();
    let d = opts.damping;
    let mut rank = vec![1.0 / nu as f64; nu];
    let mut next = vec![0.0; nu];
    let mut contrib = vec![0.0; nu];
    for _ in 0..opts.max_iterations {
        ctrl.check()?;
        contrib.par_chunks_mut(CHUNK).enumerate().for_each(|(c, chunk)| {
            for (j, x) in chunk.iter_mut().enumerate() {
                let u = c * CHUNK + j;
                *x = rank[u] * inv_out[u];
            }
        });
        let dangling = chunked_sum(&rank, |u, r| if inv_out[u] == 0.0 { r } else { 0.0 });
        // The rank mass that restarts: teleport plus what dangling nodes hold.
        let restart_mass = (1.0 - d) + d * dangling;
        next.par_chunks_mut(CHUNK).enumerate().for_each(|(c, chunk)| {
            for (j, x) in chunk.iter_mut().enumerate() {
                let v = (c * CHUNK + j) as u32;
                let pulled: f64 = inc.neighbors(v).iter().map(|&u| contrib[u as usize]).sum();
                *x = d * pulled + restart_mass * restart[v as usize];
            }
        });
        // Renormalise against rounding drift so the result sums to 1.
        let total = chunked_sum(&next, |_, x| x);
        if total > 0.0 {
            next.par_iter_mut().for_each(|x| *x /= total);
        }
        let change = chunked_sum(&next, |v, x| (x - rank[v]).abs());
        std::mem::swap(&mut rank, &mut next);
        if change < opts.tolerance {
            break;
        }
    }
    Ok(rank)
}

/// The restart distribution as a dense vector summing to 1.
fn restart_vector(p: &Personalization, n: u32) -> Result<Vec<f64>, AlgoError> {
    let nu = n as usize;
    match p {
        Personalization::Uniform => Ok(vec![1.0 / nu as f64; nu]),
        Personalization::Seeds(seeds) => {
            if seeds.is_empty() {
                return Err(AlgoError::InvalidArgument(
                    "no seed nodes for personalised PageRank".into(),
                ));
            }
            let mut v = vec![0.0; nu];
            for &s in seeds {
                check_node(s, n)?;
                v[s as usize] += 1.0;
            }
            let k = seeds.len() as f64;
            v.iter_mut().for_each(|x| *x /= k);
            Ok(v)
        }
        Personalization::Vector(w) => {
            if w.len() != nu {
                return Err(AlgoError::InvalidArgument(format!(
                    "personalisation vector has {} entries for {n} nodes",
                    w.len()
                )));
            }
            if nu == 0 {
                return Ok(Vec::new());
            }
            if w.iter().any(|x| !x.is_finite() || *x < 0.0) {
                return Err(AlgoError::InvalidArgument(
                    "personalisation weights must be finite and non-negative".into(),
                ));
            }
            let total: f64 = w.iter().sum();
            if total <= 0.0 {
                return Err(AlgoError::InvalidArgument("personalisation weights sum to zero".into()));
            }
            Ok(w.iter().map(|x| x / total).collect())
        }
    }
}

/// Sum of `f(i, xs[i])` in fixed chunks (parallel), then the chunk sums in order: the same
/// rounding on any number of threads.
fn chunked_sum(xs: &[f64], f: impl Fn(usize, f64) -> f64 + Sync) -> f64 {
    let parts: Vec<f64> = xs
        .par_chunks(CHUNK)
        .enumerate()
        .map(|(c, chunk)| chunk.iter().enumerate().map(|(j, &x)| f(c * CHUNK + j, x)).sum())
        .collect();
    parts.iter().sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_graph_matches_closed_form_and_validates() {
        // 0 <-> 1, 2 dangling pointed at by 1.
        let out = Csr::from_edges(3, &[(0, 1), (1, 0), (1, 2)], None).unwrap();
        let inc = out.transpose();
        let c = Control::unbounded();
        let opts = PageRankOptions {
            tolerance: 1e-14,
            max_iterations: 1000,
            ..Default::default()
        };
        let r = pagerank(&out, &inc, &opts, &c).unwrap();
        assert!((r.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        // Fixed point: r = d * M r + (1 - d + d * r2) / 3.
        let d = 0.85;
        let base = (1.0 - d + d * r[2]) / 3.0;
        assert!((r[0] - (d * r[1] / 2.0 + base)).abs() < 1e-12);
        assert!((r[1] - (d * r[0] + base)).abs() < 1e-12);
        assert!((r[2] - (d * r[1] / 2.0 + base)).abs() < 1e-12);
        let seeded = pagerank(
            &out,
            &inc,
            &PageRankOptions {
                personalization: Personalization::Seeds(vec![2]),
                ..opts.clone()
            },
            &c,
        )
        .unwrap();
        assert!(seeded[2] > seeded[0]);
        let bad = |p: Personalization| {
            pagerank(
                &out,
                &inc,
                &PageRankOptions {
                    personalization: p,
                    ..Default::default()
                },
                &c,
            )
        };
        assert!(matches!(
            bad(Personalization::Seeds(vec![])),
            Err(AlgoError::InvalidArgument(_))
        ));
        assert!(matches!(
            bad(Personalization::Seeds(vec![3])),
            Err(AlgoError::NodeOutOfRange { .. })
        ));
        assert!(matches!(
            bad(Personalization::Vector(vec![0.0; 3])),
            Err(AlgoError::InvalidArgument(_))
        ));
        let empty = Csr::from_edges(0, &[], None).unwrap();
        assert_eq!(pagerank(&empty, &empty, &opts, &c).unwrap(), Vec::<f64>::new());
        assert!(matches!(
            pagerank(&out, &empty, &opts, &c),
            Err(AlgoError::InvalidArgument(_))
        ));
    }
}
