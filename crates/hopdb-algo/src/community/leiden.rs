//! Leiden (Traag, Waltman & van Eck 2019), organised like igraph's `community_leiden`:
//! fast local moving (a queue of unstable nodes, strictly improving moves, an empty community
//! always a candidate), refinement of each community from singletons (only well-connected
//! singletons merge, into a well-connected sub-community chosen at random with probability
//! proportional to `exp(gain / randomness)` among non-negative gains), aggregation on the
//! refined partition with the unrefined one as the aggregate's starting partition.
//!
//! The quality is `sum_ij (A_ij - r * n_i * n_j) [c_i = c_j]` with node weights `n_i` the
//! strength and `r = resolution / 2m` (modularity) or `n_i = 1` and `r = resolution` (CPM).

use std::collections::VecDeque;

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::check_resolution;
use super::graph::{group_members, modularity_of, LocalMove, UGraph};
use crate::control::{AlgoError, Control};
use crate::csr::Csr;
use crate::util::{renumber, Ticker};

/// Safety stop for "iterate until nothing changes" (each changing iteration strictly improves
/// the quality, so this only guards against floating-point ties).
const MAX_ITERATIONS: usize = 1000;

/// What Leiden maximises.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quality {
    /// Modularity with a resolution (igraph `objective_function="modularity"`,
    /// leidenalg `RBConfigurationVertexPartition`).
    Modularity,
    /// Constant Potts Model with unit node weights (igraph `objective_function="CPM"`).
    Cpm,
}

/// Parameters of one Leiden run; the defaults are igraph's.
#[derive(Debug, Clone, PartialEq)]
pub struct LeidenOptions {
    /// The objective maximised.
    pub quality: Quality,
    /// gamma > 0: larger gives more, smaller communities.
    pub resolution: f64,
    /// theta (igraph's `beta`) > 0: randomness of the refinement merges; 0.01 as igraph.
    pub randomness: f64,
    /// `None`: iterate until an iteration moves no node (igraph `n_iterations=-1`);
    /// `Some(k)`: exactly `k >= 1` iterations, each starting from the previous partition.
    pub iterations: Option<usize>,
    /// Seed of the node orders and refinement choices: same seed, same partition.
    pub seed: u64,
}

impl Default for LeidenOptions {
    fn default() -> Self {
        LeidenOptions {
            quality: Quality::Modularity,
            resolution: 1.0,
            randomness: 0.01,
            iterations: None,
            seed: 0,
        }
    }
}

/// The partition Leiden found and what it scored.
#[derive(Debug, Clone, PartialEq)]
pub struct LeidenResult {
    /// Dense community label per node; every community is connected.
    pub partition: Vec<u32>,
    /// Number of distinct labels in `partition`.
    pub community_count: usize,
    /// Modularity at the resolution, or for CPM igraph's quality
    /// `(sum_c in_c - resolution * n_c^2) / 2m` (`in_c` twice the weight inside `c`).
    pub quality: f64,
    /// Iterations run (each one local moving, refinement and aggregation to the end).
    pub iterations: usize,
}

/// Leiden on the symmetrised graph (see the module docs for the conventions).
pub fn leiden(graph: &Csr, opts: &LeidenOptions, ctrl: &Control) -> Result<LeidenResult, AlgoError> {
    check_options(opts)?;
    let g = UGraph::from_csr(graph, ctrl)?;
    let mut rng = ChaCha8Rng::seed_from_u64(opts.seed);
    let (partition, count, iterations) = run(&g, opts, &mut rng, ctrl)?;
    let quality = match opts.quality {
        Quality::Modularity => modularity_of(&g, &partition, count, opts.resolution),
        Quality::Cpm => cpm_quality(&g, &partition, count, opts.resolution),
    };
    Ok(LeidenResult {
        partition,
        community_count: count,
        quality,
        iterations,
    })
}

pub(crate) fn check_options(opts: &LeidenOptions) -> Result<(), AlgoError> {
    check_resolution(opts.resolution)?;
    if !(opts.randomness.is_finite() && opts.randomness > 0.0) {
        return Err(AlgoError::InvalidArgument(format!(
            "randomness must be positive and finite, got {}",
            opts.randomness
        )));
    }
    if opts.iterations == Some(0) {
        return Err(AlgoError::InvalidArgument("iterations must be at least 1".into()));
    }
    Ok(())
}

/// Runs Leiden from singletons on `g`; returns (dense partition, count, iterations run).
/// A graph without edge weight stays as singletons.
pub(crate) fn run(
    g: &UGraph,
    opts: &LeidenOptions,
    rng: &mut ChaCha8Rng,
    ctrl: &Control,
) -> Result<(Vec<u32>, usize, usize), AlgoError> {
    let n = g.node_count();
    let mut membership: Vec<u32> = (0..n as u32).collect();
    if g.total <= 0.0 {
        return Ok((membership, n, 0));
    }
    let (node_weight, rf) = match opts.quality {
        Quality::Modularity => (g.strength.clone(), opts.resolution / g.total),
        Quality::Cpm => (vec![1.0; n], opts.resolution),
    };
    let wanted = opts.iterations.unwrap_or(MAX_ITERATIONS);
    let mut done = 0;
    while done < wanted {
        let changed = iteration(g, &node_weight, rf, opts.randomness, &mut membership, rng, ctrl)?;
        done += 1;
        if opts.iterations.is_none() && !changed {
            break;
        }
    }
    let mut scratch = vec![u32::MAX; n];
    let count = renumber(&mut membership, &mut scratch);
    Ok((membership, count, done))
}

/// One Leiden iteration from `membership` (updated in place); true when any node moved.
fn iteration(
    g: &UGraph,
    node_weight: &[f64],
    rf: f64,
    theta: f64,
    membership: &mut [u32],
    rng: &mut ChaCha8Rng,
    ctrl: &Control,
) -> Result<bool, AlgoError> {
    let n = g.node_count();
    let mut scratch = vec![u32::MAX; n];
    renumber(membership, &mut scratch);
    // `aggregate_of[v]`: the node of the current level that original node v belongs to.
    let mut aggregate_of: Vec<u32> = (0..n as u32).collect();
    let mut level_graph: Option<UGraph> = None;
    let mut level_weight: Option<Vec<f64>> = None;
    let mut level_memb: Vec<u32> = membership.to_vec();
    let mut changed = false;
    loop {
        let cur = level_graph.as_ref().unwrap_or(g);
        let cur_weight: &[f64] = level_weight.as_deref().unwrap_or(node_weight);
        let count = fast_move(cur, cur_weight, rf, &mut level_memb, &mut changed, rng, ctrl)?;
        if count == cur.node_count() {
            break;
        }
        let (mut refined, mut refined_count) = refine(cur, cur_weight, rf, theta, &level_memb, count, rng, ctrl)?;
        if refined_count >= cur.node_count() {
            // Refinement merged nothing: aggregate on the communities themselves.
            refined = level_memb.clone();
            refined_count = count;
        }
        for a in aggregate_of.iter_mut() {
            *a = refined[*a as usize];
        }
        let mut next_weight = vec![0.0; refined_count];
        let mut next_memb = vec![0u32; refined_count];
        for v in 0..cur.node_count() {
            let r = refined[v] as usize;
            next_weight[r] += cur_weight[v];
            next_memb[r] = level_memb[v];
        }
        let next = cur.aggregate(&refined, refined_count, ctrl)?;
        level_graph = Some(next);
        level_weight = Some(next_weight);
        level_memb = next_memb;
    }
    for (v, c) in membership.iter_mut().enumerate() {
        *c = level_memb[aggregate_of[v] as usize];
    }
    Ok(changed)
}

/// Fast local moving: visits a queue of nodes (all, shuffled, at first), moves each to the
/// neighbouring or an empty community of largest strictly better quality, and re-queues its
/// neighbours outside the new community. Labels in `memb` must be `< n`; returns the count
/// after renumbering them densely.
fn fast_move(
    g: &UGraph,
    nw: &[f64],
    rf: f64,
    memb: &mut [u32],
    changed: &mut bool,
    rng: &mut ChaCha8Rng,
    ctrl: &Control,
) -> Result<usize, AlgoError> {
    let n = g.node_count();
    let mut tick = Ticker::start(ctrl)?;
    let mut cw = vec![0.0; n];
    let mut size = vec![0u32; n];
    for v in 0..n {
        cw[memb[v] as usize] += nw[v];
        size[memb[v] as usize] += 1;
    }
    let mut empty: Vec<u32> = (0..n as u32).filter(|&c| size[c as usize] == 0).collect();
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.shuffle(rng);
    let mut queue: VecDeque<u32> = order.into();
    let mut stable = vec![false; n];
    let mut mover = LocalMove::new(n, rf);
    while let Some(v) = queue.pop_front() {
        tick.step(ctrl)?;
        let v = v as usize;
        let cur = memb[v] as usize;
        cw[cur] -= nw[v];
        size[cur] -= 1;
        if size[cur] == 0 {
            empty.push(cur as u32);
        }
        // With v taken out at most n - 1 communities are occupied, so one is empty.
        let spare = empty.last().map_or(cur, |&e| e as usize);
        let best = mover.best(g, v, memb, &cw, nw[v], Some(spare));
        cw[best] += nw[v];
        size[best] += 1;
        if empty.last() == Some(&(best as u32)) {
            empty.pop();
        }
        stable[v] = true;
        if best != cur {
            *changed = true;
            memb[v] = best as u32;
            for &u in g.row(v).0 {
                let u = u as usize;
                if stable[u] && memb[u] as usize != best {
                    stable[u] = false;
                    queue.push_back(u as u32);
                }
            }
        }
    }
    let mut scratch = vec![u32::MAX; n];
    Ok(renumber(memb, &mut scratch))
}

/// Refinement: within each community of `memb`, starts from singletons and visits the nodes
/// in random order once; a still-singleton node that is well connected to the rest of its
/// community joins a well-connected sub-community (or stays alone) at random, with weight
/// `exp((gain - max gain) / theta)` over non-negative gains (igraph's `exp(gain / beta)`,
/// shifted so it cannot overflow). Returns the dense refined labels and their count.
#[allow(clippy::too_many_arguments)]
fn refine(
    g: &UGraph,
    nw: &[f64],
    rf: f64,
    theta: f64,
    memb: &[u32],
    count: usize,
    rng: &mut ChaCha8Rng,
    ctrl: &Control,
) -> Result<(Vec<u32>, usize), AlgoError> {
    let n = g.node_count();
    let mut tick = Ticker::start(ctrl)?;
    let groups = group_members(memb, count);
    // Sub-communities are named after a founding node, so these tables are indexed by node.
    let mut refined: Vec<u32> = (0..n as u32).collect();
    let mut cw: Vec<f64> = nw.to_vec();
    let mut merged = vec![false; n];
    // ext[s]: weight from sub-community s to the rest of its community.
    let mut ext = vec![0.0; n];
    for (v, e) in ext.iter_mut().enumerate() {
        let (ts, ws) = g.row(v);
        *e = ts
            .iter()
            .zip(ws)
            .filter(|(&u, _)| memb[u as usize] == memb[v])
            .map(|(_, &w)| w)
            .sum();
    }
    let mut to_sub = vec![0.0; n];
    let mut seen = vec![false; n];
    let mut cand: Vec<u32> = Vec::new();
    let mut eligible: Vec<(u32, f64)> = Vec::new();
    let mut order: Vec<u32> = Vec::new();
    for c in 0..groups.len() {
        let nodes = groups.group(c);
        let total: f64 = nodes.iter().map(|&v| nw[v as usize]).sum();
        order.clear();
        order.extend_from_slice(nodes);
        order.shuffle(rng);
        for &v in &order {
            tick.step(ctrl)?;
            let v = v as usize;
            let cur = refined[v] as usize;
            let well_connected = |s: usize, cw: &[f64], ext: &[f64]| ext[s] >= cw[s] * (total - cw[s]) * rf;
            if merged[cur] || !well_connected(cur, &cw, &ext) {
                continue;
            }
            // Take v out: its singleton sub-community becomes empty.
            cw[cur] = 0.0;
            ext[cur] = 0.0;
            cand.clear();
            cand.push(cur as u32);
            seen[cur] = true;
            let (ts, ws) = g.row(v);
            for (&u, &w) in ts.iter().zip(ws) {
                if memb[u as usize] as usize == c {
                    let s = refined[u as usize] as usize;
                    if !seen[s] {
                        seen[s] = true;
                        cand.push(s as u32);
                    }
                    to_sub[s] += w;
                }
            }
            eligible.clear();
            let mut max_gain = 0.0f64;
            for &s in &cand {
                let s = s as usize;
                if well_connected(s, &cw, &ext) {
                    let gain = to_sub[s] - nw[v] * cw[s] * rf;
                    if gain >= 0.0 {
                        eligible.push((s as u32, gain));
                        max_gain = max_gain.max(gain);
                    }
                }
                to_sub[s] = 0.0;
                seen[s] = false;
            }
            let chosen = choose(&eligible, max_gain, theta, rng).unwrap_or(cur);
            cw[chosen] += nw[v];
            for (&u, &w) in ts.iter().zip(ws) {
                if memb[u as usize] as usize == c {
                    if refined[u as usize] as usize == chosen {
                        ext[chosen] -= w;
                    } else {
                        ext[chosen] += w;
                    }
                }
            }
            if chosen != cur {
                refined[v] = chosen as u32;
                merged[chosen] = true;
            }
        }
    }
    let mut scratch = vec![u32::MAX; n];
    let refined_count = renumber(&mut refined, &mut scratch);
    Ok((refined, refined_count))
}

/// Draws one candidate with probability proportional to `exp((gain - max_gain) / theta)`.
fn choose(eligible: &[(u32, f64)], max_gain: f64, theta: f64, rng: &mut ChaCha8Rng) -> Option<usize> {
    let total: f64 = eligible.iter().map(|&(_, g)| ((g - max_gain) / theta).exp()).sum();
    let mut r = rng.random::<f64>() * total;
    for &(s, g) in eligible {
        r -= ((g - max_gain) / theta).exp();
        if r < 0.0 {
            return Some(s as usize);
        }
    }
    eligible.last().map(|&(s, _)| s as usize)
}

/// igraph's CPM quality: `(sum_c in_c - resolution * n_c^2) / 2m`, `in_c` counting each inner
/// edge twice (loops too) and `n_c` the community's node count.
fn cpm_quality(g: &UGraph, membership: &[u32], count: usize, resolution: f64) -> f64 {
    if g.total <= 0.0 {
        return f64::NAN;
    }
    let mut inside = 0.0;
    let mut sizes = vec![0.0f64; count];
    for v in 0..g.node_count() {
        let c = membership[v];
        sizes[c as usize] += 1.0;
        inside += 2.0 * g.loops[v];
        let (ts, ws) = g.row(v);
        inside += ts
            .iter()
            .zip(ws)
            .filter(|(&u, _)| membership[u as usize] == c)
            .map(|(_, &w)| w)
            .sum::<f64>();
    }
    (inside - resolution * sizes.iter().map(|s| s * s).sum::<f64>()) / g.total
}
