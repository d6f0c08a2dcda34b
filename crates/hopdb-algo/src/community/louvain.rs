//! Louvain (Blondel et al. 2008), multi-level, as NetworkX's `louvain_communities` runs it:
//! nodes visited in one seeded random order per level, swept until no node moves, then the
//! communities are aggregated; stops when a level gains no more than `threshold` modularity.

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::check_resolution;
use super::graph::{modularity_of, LocalMove, UGraph};
use crate::control::{AlgoError, Control};
use crate::csr::Csr;
use crate::util::{renumber, Ticker};

/// Safety stop for one level's sweeps (floating-point ties could otherwise bounce a node).
const MAX_SWEEPS: usize = 1000;

/// Parameters of one Louvain run; the defaults are NetworkX's.
#[derive(Debug, Clone, PartialEq)]
pub struct LouvainOptions {
    /// Modularity resolution (gamma > 0): larger gives more, smaller communities.
    pub resolution: f64,
    /// Stop when a level raises modularity by no more than this (NetworkX's default 1e-7).
    pub threshold: f64,
    /// Seed of the node visiting order: same seed, same partition.
    pub seed: u64,
}

impl Default for LouvainOptions {
    fn default() -> Self {
        LouvainOptions {
            resolution: 1.0,
            threshold: 1e-7,
            seed: 0,
        }
    }
}

/// The partition Louvain found, its modularity and the partition after every level.
#[derive(Debug, Clone, PartialEq)]
pub struct LouvainResult {
    /// Dense community label per node (the last level; singletons when nothing merged).
    pub partition: Vec<u32>,
    /// Number of distinct labels in `partition`.
    pub community_count: usize,
    /// Modularity of `partition` at the requested resolution.
    pub modularity: f64,
    /// The partition of the original nodes after each level, finest first.
    pub levels: Vec<Vec<u32>>,
}

/// Multi-level Louvain on the symmetrised graph (see the module docs for the conventions).
pub fn louvain(graph: &Csr, opts: &LouvainOptions, ctrl: &Control) -> Result<LouvainResult, AlgoError> {
    check_resolution(opts.resolution)?;
    if opts.threshold.is_nan() || opts.threshold < 0.0 {
        return Err(AlgoError::InvalidArgument("threshold must be >= 0".into()));
    }
    let g = UGraph::from_csr(graph, ctrl)?;
    let n = g.node_count();
    let mut partition: Vec<u32> = (0..n as u32).collect();
    let mut levels = Vec::new();
    if g.total <= 0.0 {
        return Ok(LouvainResult {
            partition,
            community_count: n,
            modularity: f64::NAN,
            levels,
        });
    }
    let mut rng = ChaCha8Rng::seed_from_u64(opts.seed);
    let rf = opts.resolution / g.total;
    let mut q = modularity_of(&g, &partition, n, opts.resolution);
    let mut count = n;
    let mut aggregated: Option<UGraph> = None;
    let mut scratch = vec![u32::MAX; n];
    loop {
        let cur = aggregated.as_ref().unwrap_or(&g);
        let mut memb: Vec<u32> = (0..cur.node_count() as u32).collect();
        if !one_level(cur, rf, &mut memb, &mut rng, ctrl)? {
            break;
        }
        let level_count = renumber(&mut memb, &mut scratch);
        for c in partition.iter_mut() {
            *c = memb[*c as usize];
        }
        count = level_count;
        levels.push(partition.clone());
        // The aggregate keeps inner weight as loops, so its modularity is the original's.
        let new_q = modularity_of(cur, &memb, level_count, opts.resolution);
        let gain = new_q - q;
        q = new_q;
        if gain <= opts.threshold {
            break;
        }
        let next = cur.aggregate(&memb, level_count, ctrl)?;
        aggregated = Some(next);
    }
    let modularity = modularity_of(&g, &partition, count, opts.resolution);
    Ok(LouvainResult {
        partition,
        community_count: count,
        modularity,
        levels,
    })
}

/// One Louvain level from singletons: sweeps the nodes in a shuffled order, moving each to the
/// neighbouring community of largest strictly positive gain, until a sweep moves nothing.
/// Returns whether any node moved. `rf` is resolution / 2m.
fn one_level(g: &UGraph, rf: f64, memb: &mut [u32], rng: &mut ChaCha8Rng, ctrl: &Control) -> Result<bool, AlgoError> {
    let n = g.node_count();
    let mut tick = Ticker::start(ctrl)?;
    let mut cw: Vec<f64> = g.strength.clone();
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.shuffle(rng);
    let mut mover = LocalMove::new(n, rf);
    let mut any = false;
    for _ in 0..MAX_SWEEPS {
        let mut moves = 0usize;
        for &v in &order {
            tick.step(ctrl)?;
            let v = v as usize;
            let cur = memb[v] as usize;
            let k = g.strength[v];
            cw[cur] -= k;
            let best = mover.best(g, v, memb, &cw, k, None);
            cw[best] += k;
            if best != cur {
                memb[v] = best as u32;
                moves += 1;
            }
        }
        if moves == 0 {
            break;
        }
        any = true;
    }
    Ok(any)
}
