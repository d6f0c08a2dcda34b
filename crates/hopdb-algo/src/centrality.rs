//! Degree and betweenness centrality, normalised as NetworkX normalises them.
//!
//! Betweenness is Brandes' algorithm (BFS, or Dijkstra when weighted) over the *simple* graph
//! underneath the projection, which is what NetworkX computes: parallel edges count once (a
//! weighted pair's length is its smallest weight), self-loops are ignored, and with
//! `directed: false` an edge in either direction joins the pair. Endpoints are excluded
//! (`endpoints=False`). Sources run in parallel (rayon) in fixed chunks summed in a fixed
//! order, so results do not depend on the thread count.

use std::collections::BinaryHeap;

use rand::seq::index;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use crate::control::{AlgoError, Control};
use crate::csr::Csr;
use crate::util::{HeapEntry as Entry, Ticker};

/// Which edges a node's degree counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DegreeDirection {
    /// Outgoing edges (a node's row in the projection).
    Out,
    /// Incoming edges (the node as a target).
    In,
    /// In + out: NetworkX's degree of a directed graph (a self-loop counts twice).
    Both,
}

/// NetworkX's `degree_centrality` (and `in_`/`out_degree_centrality`): degree / (n - 1),
/// every parallel edge counted, 1 for every node of a graph with one node. For an undirected
/// graph stored in both directions use `Out` (a loop stored twice counts twice, as NetworkX).
pub fn degree_centrality(graph: &Csr, direction: DegreeDirection, ctrl: &Control) -> Result<Vec<f64>, AlgoError> {
    let n = graph.node_count() as usize;
    ctrl.check()?;
    if n <= 1 {
        return Ok(vec![1.0; n]);
    }
    let mut degree = vec![0u64; n];
    if direction != DegreeDirection::In {
        for (v, d) in degree.iter_mut().enumerate() {
            *d += graph.degree(v as u32);
        }
    }
    if direction != DegreeDirection::Out {
        let mut tick = Ticker::start(ctrl)?;
        for (_, t) in graph.edges() {
            tick.step(ctrl)?;
            degree[t as usize] += 1;
        }
    }
    let scale = 1.0 / (n as f64 - 1.0);
    Ok(degree.into_iter().map(|d| d as f64 * scale).collect())
}

/// How betweenness reads the graph: direction, weights, normalisation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BetweennessOptions {
    /// Follow edges only forwards; `false` treats every edge as undirected.
    pub directed: bool,
    /// Use the projection's weights as lengths (Dijkstra); they must be finite and >= 0.
    pub weighted: bool,
    /// Divide by (n-1)(n-2) (NetworkX `normalized=True`); otherwise undirected scores are
    /// halved, as NetworkX counts each unordered pair once.
    pub normalized: bool,
}

/// Exact betweenness of every node (NetworkX `betweenness_centrality(G, normalized=...,
/// weight=..., endpoints=False)`); O(n m) time, O(n) memory per worker.
pub fn betweenness_centrality(graph: &Csr, opts: BetweennessOptions, ctrl: &Control) -> Result<Vec<f64>, AlgoError> {
    let g = SimpleGraph::new(graph, opts, ctrl)?;
    let sources: Vec<u32> = (0..graph.node_count()).collect();
    let mut scores = accumulate(&g, &sources, ctrl)?;
    rescale(&mut scores, opts, None);
    Ok(scores)
}

/// Estimated betweenness from `k` distinct pivot sources and the pivots used.
#[derive(Debug, Clone, PartialEq)]
pub struct SampledBetweenness {
    /// Estimated betweenness per node, scaled to estimate the exact score.
    pub scores: Vec<f64>,
    /// The pivots, in the order drawn.
    pub sources: Vec<u32>,
}

/// Betweenness estimated from `k` pivots drawn uniformly without replacement (seeded), scaled
/// exactly as NetworkX's `betweenness_centrality(G, k=k)`: a non-pivot's sum is scaled by
/// (n-1)/k, a pivot's by (n-1)/(k-1) (it cannot be its own source; NaN when k = 1, as
/// NetworkX), then normalised as the exact score. `k == n` is the exact computation.
///
/// Error bound (normalised scores): each score is the mean of k (pivots: k-1) draws without
/// replacement of `delta_s(v) / (n-2)`, which lies in [0, 1], so by Hoeffding's inequality and
/// a union bound over the n nodes, with probability at least 1 - p every node is within
/// `sqrt(ln(2n / p) / (2 (k-1)))` of its exact score ([`sampled_betweenness_error_bound`]).
/// That bound is loose; measured on feather-lastfm-asia with k = n/10 (12 seeds), the 20
/// highest-scoring nodes were within 25% relative error and the top 100 within 11% on
/// average (tests/centrality.rs asserts 35% and 15%).
pub fn betweenness_centrality_sampled(
    graph: &Csr,
    opts: BetweennessOptions,
    k: usize,
    seed: u64,
    ctrl: &Control,
) -> Result<SampledBetweenness, AlgoError> {
    let n = graph.node_count() as usize;
    if k == 0 || k > n {
        return Err(AlgoError::InvalidArgument(format!("k must be in 1..={n}, got {k}")));
    }
    let g = SimpleGraph::new(graph, opts, ctrl)?;
    let sources: Vec<u32> = if k == n {
        (0..n as u32).collect()
    } else {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        index::sample(&mut rng, n, k).into_iter().map(|i| i as u32).collect()
    };
    let mut scores = accumulate(&g, &sources, ctrl)?;
    rescale(&mut scores, opts, if k == n { None } else { Some(&sources) });
    Ok(SampledBetweenness { scores, sources })
}

/// The bound stated on [`betweenness_centrality_sampled`]: with probability at least
/// `1 - failure`, every normalised score is within this of the exact one.
pub fn sampled_betweenness_error_bound(n: usize, k: usize, failure: f64) -> f64 {
    if k >= n {
        return 0.0;
    }
    if k < 2 {
        return f64::INFINITY;
    }
    ((2.0 * n as f64 / failure).ln() / (2.0 * (k as f64 - 1.0))).sqrt()
}

/// NetworkX's `_rescale` with `endpoints=False`; `sampled` holds the pivots when estimating.
fn rescale(scores: &mut [f64], opts: BetweennessOptions, sampled: Option<&[u32]>) {
    let n = scores.len() as f64;
    let pairs = n - 1.0; // N: v cannot be its own target.
    if pairs < 2.0 {
        return;
    }
    let correction = if opts.directed { 1.0 } else { 2.0 };
    let scale = |sources: f64| {
        if opts.normalized {
            1.0 / (sources * (pairs - 1.0))
        } else {
            pairs / (sources * correction)
        }
    };
    match sampled {
        None => {
            let s = scale(pairs);
            scores.iter_mut().for_each(|x| *x *= s);
        }
        Some(pivots) => {
            let k = pivots.len() as f64;
            let (as_pivot, other) = (if k > 1.0 { scale(k - 1.0) } else { f64::NAN }, scale(k));
            let mut is_pivot = vec![false; scores.len()];
            for &s in pivots {
                is_pivot[s as usize] = true;
            }
            for (x, p) in scores.iter_mut().zip(is_pivot) {
                *x *= if p { as_pivot } else { other };
            }
        }
    }
}

/// Out-adjacency of the simple graph: sorted rows, no loops, no repeats (smallest weight kept).
struct SimpleGraph {
    offsets: Vec<usize>,
    targets: Vec<u32>,
    weights: Option<Vec<f64>>,
}

impl SimpleGraph {
    fn new(graph: &Csr, opts: BetweennessOptions, ctrl: &Control) -> Result<SimpleGraph, AlgoError> {
        if opts.weighted && !graph.is_weighted() {
            return Err(AlgoError::InvalidArgument(
                "weighted betweenness needs a weighted projection".into(),
            ));
        }
        let n = graph.node_count();
        // The transpose (undirected) and the simple graph: at most one entry per stored edge
        // and direction, 4 bytes each plus 8 per weight.
        let per_edge = if opts.weighted { 12 } else { 4 };
        let views = if opts.directed { 1 } else { 2 };
        let mut ticker = Ticker::start_with(
            ctrl,
            (views - 1) * graph.memory_bytes() + views * per_edge * graph.edge_count() as usize + 8 * n as usize,
        )?;
        let inc = if opts.directed { None } else { Some(graph.transpose()) };
        let mut offsets = Vec::with_capacity(n as usize + 1);
        offsets.push(0);
        let mut targets = Vec::new();
        let mut weights = opts.weighted.then(Vec::new);
        let mut row: Vec<(u32, f64)> = Vec::new();
        for v in 0..n {
            row.clear();
            let mut add = |csr: &Csr| {
                let ws = csr.weights(v);
                for (i, &t) in csr.neighbors(v).iter().enumerate() {
                    row.push((t, ws.map_or(1.0, |w| w[i])));
                }
            };
            add(graph);
            if let Some(inc) = &inc {
                add(inc);
            }
            ticker.advance(ctrl, row.len() + 1)?;
            row.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
            for (i, &(t, w)) in row.iter().enumerate() {
                if opts.weighted && !(w.is_finite() && w >= 0.0) {
                    return Err(AlgoError::InvalidArgument(format!(
                        "edge weight {w} at node {v}: shortest paths need finite, non-negative weights"
                    )));
                }
                // Rows are sorted by (target, weight): the first copy has the smallest weight.
                if t == v || (i > 0 && row[i - 1].0 == t) {
                    continue;
                }
                targets.push(t);
                if let Some(ws) = weights.as_mut() {
                    ws.push(w);
                }
            }
            offsets.push(targets.len());
        }
        Ok(SimpleGraph {
            offsets,
            targets,
            weights,
        })
    }

    fn node_count(&self) -> usize {
        self.offsets.len() - 1
    }

    #[inline]
    fn row(&self, v: usize) -> &[u32] {
        &self.targets[self.offsets[v]..self.offsets[v + 1]]
    }

    #[inline]
    fn row_weights<'a>(&'a self, v: usize, ws: &'a [f64]) -> &'a [f64] {
        &ws[self.offsets[v]..self.offsets[v + 1]]
    }
}

/// Sources per parallel task, and tasks per batch whose partial sums are held at once:
/// fixed, so the summation order (and the result, bit for bit) is the same on any machine.
const CHUNK: usize = 16;
const BATCH: usize = 16;

/// Sum over `sources` of the dependencies delta_s(v) (unscaled betweenness).
fn accumulate(g: &SimpleGraph, sources: &[u32], ctrl: &Control) -> Result<Vec<f64>, AlgoError> {
    let n = g.node_count();
    let tasks = sources.len().div_ceil(CHUNK).min(BATCH);
    // Partial sums held at once, plus one workspace per task in flight.
    ctrl.check_memory(tasks * n * 8 + rayon::current_num_threads() * n * 40)?;
    ctrl.check()?;
    let mut total = vec![0.0; n];
    for batch in sources.chunks(CHUNK * BATCH) {
        let partials: Vec<Vec<f64>> = batch
            .par_chunks(CHUNK)
            .map(|chunk| {
                let mut work = Work::new(n);
                let mut sum = vec![0.0; n];
                for &s in chunk {
                    ctrl.check()?;
                    work.single_source(g, s as usize, &mut sum);
                }
                Ok(sum)
            })
            .collect::<Result<_, AlgoError>>()?;
        for part in partials {
            for (t, p) in total.iter_mut().zip(part) {
                *t += p;
            }
        }
    }
    Ok(total)
}

/// Per-source scratch of Brandes' algorithm, reset after each source.
struct Work {
    dist: Vec<f64>,
    sigma: Vec<f64>,
    delta: Vec<f64>,
    /// Position in `order` once settled, `u32::MAX` before.
    pos: Vec<u32>,
    order: Vec<u32>,
    heap: BinaryHeap<Entry>,
}

impl Work {
    fn new(n: usize) -> Work {
        Work {
            dist: vec![f64::INFINITY; n],
            sigma: vec![0.0; n],
            delta: vec![0.0; n],
            pos: vec![u32::MAX; n],
            order: Vec::with_capacity(n),
            heap: BinaryHeap::new(),
        }
    }

    /// Adds delta_s(v) to `sum[v]` for every v != s.
    fn single_source(&mut self, g: &SimpleGraph, s: usize, sum: &mut [f64]) {
        match &g.weights {
            None => self.bfs(g, s),
            Some(ws) => self.dijkstra(g, ws, s),
        }
        // Dependencies in reverse settling order over shortest-path successors: w follows v
        // on a shortest path when it settled later and dist[w] == dist[v] + len(v, w), the
        // same test (same float arithmetic) that counted v among w's predecessors.
        for &v in self.order.iter().rev() {
            let v = v as usize;
            let (dv, pv) = (self.dist[v], self.pos[v]);
            let mut d = 0.0;
            let row = g.row(v);
            match &g.weights {
                None => {
                    for &w in row {
                        let w = w as usize;
                        if self.dist[w] == dv + 1.0 {
                            d += (1.0 + self.delta[w]) / self.sigma[w];
                        }
                    }
                }
                Some(ws) => {
                    for (&w, &len) in row.iter().zip(g.row_weights(v, ws)) {
                        let w = w as usize;
                        if self.pos[w] != u32::MAX && self.pos[w] > pv && self.dist[w] == dv + len {
                            d += (1.0 + self.delta[w]) / self.sigma[w];
                        }
                    }
                }
            }
            self.delta[v] = self.sigma[v] * d;
            if v != s {
                sum[v] += self.delta[v];
            }
        }
        for &v in &self.order {
            let v = v as usize;
            self.dist[v] = f64::INFINITY;
            self.sigma[v] = 0.0;
            self.delta[v] = 0.0;
            self.pos[v] = u32::MAX;
        }
        self.order.clear();
    }

    fn bfs(&mut self, g: &SimpleGraph, s: usize) {
        self.dist[s] = 0.0;
        self.sigma[s] = 1.0;
        self.order.push(s as u32);
        let mut head = 0;
        while head < self.order.len() {
            let v = self.order[head] as usize;
            self.pos[v] = head as u32;
            head += 1;
            let (dv, sv) = (self.dist[v], self.sigma[v]);
            for &w in g.row(v) {
                let w = w as usize;
                if self.dist[w] == f64::INFINITY {
                    self.dist[w] = dv + 1.0;
                    self.order.push(w as u32);
                }
                if self.dist[w] == dv + 1.0 {
                    self.sigma[w] += sv;
                }
            }
        }
    }

    fn dijkstra(&mut self, g: &SimpleGraph, ws: &[f64], s: usize) {
        self.dist[s] = 0.0;
        self.sigma[s] = 1.0;
        self.heap.push(Entry {
            dist: 0.0,
            node: s as u32,
        });
        while let Some(Entry { node, .. }) = self.heap.pop() {
            let v = node as usize;
            if self.pos[v] != u32::MAX {
                continue;
            }
            self.pos[v] = self.order.len() as u32;
            self.order.push(node);
            let (dv, sv) = (self.dist[v], self.sigma[v]);
            for (&w, &len) in g.row(v).iter().zip(g.row_weights(v, ws)) {
                let w = w as usize;
                if self.pos[w] != u32::MAX {
                    continue;
                }
                let nd = dv + len;
                if nd < self.dist[w] {
                    self.dist[w] = nd;
                    self.sigma[w] = sv;
                    self.heap.push(Entry {
                        dist: nd,
                        node: w as u32,
                    });
                } else if nd == self.dist[w] {
                    self.sigma[w] += sv;
                }
            }
        }
    }
}
