//! The undirected weighted graph every community algorithm works on, and its aggregation.

use crate::control::{AlgoError, Control};
use crate::csr::Csr;
use crate::util::Ticker;

/// Symmetric adjacency without self-loops (those live in `loops`), parallel edges merged by
/// summing their weights. Node `v`'s strength is `sum of its row + 2 * loops[v]`, so that
/// `total = sum of strengths = 2m`, the convention of igraph and NetworkX modularity.
#[derive(Debug, Clone)]
pub(crate) struct UGraph {
    pub(crate) offsets: Vec<usize>,
    pub(crate) targets: Vec<u32>,
    pub(crate) weights: Vec<f64>,
    /// Undirected self-loop weight per node (a loop of weight w counts once here).
    pub(crate) loops: Vec<f64>,
    pub(crate) strength: Vec<f64>,
    /// 2m: twice the total edge weight.
    pub(crate) total: f64,
}

impl UGraph {
    /// Symmetrises `graph`: each stored edge `u -> v` of weight `w` (1 when unweighted) adds
    /// `w` to the undirected edge `{u, v}`. So a reciprocal pair `u -> v`, `v -> u` becomes
    /// one edge of weight `2w`, parallel edges add up, and a self-loop `u -> u` adds `w` to the
    /// loop at `u`. Weights must be finite and non-negative (modularity is undefined otherwise).
    pub(crate) fn from_csr(graph: &Csr, ctrl: &Control) -> Result<UGraph, AlgoError> {
        let n = graph.node_count();
        let cap = 2 * graph.edge_count() as usize;
        // The transpose, then the symmetric rows (target + weight per entry) and the loops.
        let mut tick = Ticker::start_with(ctrl, graph.memory_bytes() + cap * 12 + 16 * n as usize)?;
        let inc = graph.transpose();
        let mut offsets = Vec::with_capacity(n as usize + 1);
        offsets.push(0usize);
        let mut targets = Vec::with_capacity(cap);
        let mut weights = Vec::with_capacity(cap);
        let mut loops = vec![0.0; n as usize];
        for v in 0..n {
            tick.step(ctrl)?;
            let (out, inn) = (graph.neighbors(v), inc.neighbors(v));
            let (ow, iw) = (graph.weights(v), inc.weights(v));
            let weight_at = |ws: Option<&[f64]>, k: usize| ws.map_or(1.0, |w| w[k]);
            // Merge the two sorted rows, summing equal targets.
            let (mut i, mut j) = (0, 0);
            while i < out.len() || j < inn.len() {
                let take_out = j >= inn.len() || (i < out.len() && out[i] <= inn[j]);
                let (t, w) = if take_out {
                    i += 1;
                    (out[i - 1], weight_at(ow, i - 1))
                } else {
                    j += 1;
                    (inn[j - 1], weight_at(iw, j - 1))
                };
                if !w.is_finite() || w < 0.0 {
                    return Err(AlgoError::InvalidArgument(format!(
                        "edge weight {w} at node {v}: community detection needs finite, non-negative weights"
                    )));
                }
                if t == v {
                    // The loop appears once in the out-row and once in the in-row.
                    if take_out {
                        loops[v as usize] += w;
                    }
                    continue;
                }
                if targets.len() > offsets[v as usize] && targets.last() == Some(&t) {
                    if let Some(last) = weights.last_mut() {
                        *last += w;
                    }
                } else {
                    targets.push(t);
                    weights.push(w);
                }
            }
            offsets.push(targets.len());
        }
        Ok(UGraph::with_strength(offsets, targets, weights, loops))
    }

    fn with_strength(offsets: Vec<usize>, targets: Vec<u32>, weights: Vec<f64>, loops: Vec<f64>) -> UGraph {
        let n = loops.len();
        let mut strength = vec![0.0; n];
        for v in 0..n {
            strength[v] = weights[offsets[v]..offsets[v + 1]].iter().sum::<f64>() + 2.0 * loops[v];
        }
        let total = strength.iter().sum();
        UGraph {
            offsets,
            targets,
            weights,
            loops,
            strength,
            total,
        }
    }

    pub(crate) fn node_count(&self) -> usize {
        self.loops.len()
    }

    #[inline]
    pub(crate) fn row(&self, v: usize) -> (&[u32], &[f64]) {
        let (lo, hi) = (self.offsets[v], self.offsets[v + 1]);
        (&self.targets[lo..hi], &self.weights[lo..hi])
    }

    /// True when `v` has no incident edge at all (not even a self-loop).
    pub(crate) fn is_isolated(&self, v: usize) -> bool {
        self.offsets[v] == self.offsets[v + 1] && self.loops[v] == 0.0
    }

    /// One node per group of `membership` (groups dense `0..count`): edges between groups add
    /// up, edges inside a group become its self-loop, so strengths and `total` are preserved.
    pub(crate) fn aggregate(&self, membership: &[u32], count: usize, ctrl: &Control) -> Result<UGraph, AlgoError> {
        let mut tick = Ticker::start(ctrl)?;
        let members = group_members(membership, count);
        let mut offsets = Vec::with_capacity(count + 1);
        offsets.push(0usize);
        let mut targets = Vec::new();
        let mut weights = Vec::new();
        let mut loops = vec![0.0; count];
        // `slot[c2]` is where group c2 sits in the row being built, valid when `owner[c2] == c`.
        let mut slot = vec![0usize; count];
        let mut owner = vec![u32::MAX; count];
        for (c, inner) in loops.iter_mut().enumerate() {
            for &v in members.group(c) {
                tick.step(ctrl)?;
                let v = v as usize;
                *inner += self.loops[v];
                let (ts, ws) = self.row(v);
                for (&u, &w) in ts.iter().zip(ws) {
                    let c2 = membership[u as usize] as usize;
                    if c2 == c {
                        // Seen from both ends: half each time.
                        *inner += w / 2.0;
                    } else if owner[c2] == c as u32 {
                        weights[slot[c2]] += w;
                    } else {
                        owner[c2] = c as u32;
                        slot[c2] = targets.len();
                        targets.push(c2 as u32);
                        weights.push(w);
                    }
                }
            }
            offsets.push(targets.len());
        }
        Ok(UGraph::with_strength(offsets, targets, weights, loops))
    }

    /// The subgraph induced by `nodes` (local ids follow the order of `nodes`), keeping only
    /// edges and loops inside it; `local` is a scratch map of `node_count()` entries, all
    /// `u32::MAX` on entry and on return.
    pub(crate) fn induced(&self, nodes: &[u32], local: &mut [u32]) -> UGraph {
        for (i, &v) in nodes.iter().enumerate() {
            local[v as usize] = i as u32;
        }
        let mut offsets = Vec::with_capacity(nodes.len() + 1);
        offsets.push(0usize);
        let mut targets = Vec::new();
        let mut weights = Vec::new();
        let mut loops = Vec::with_capacity(nodes.len());
        for &v in nodes {
            let (ts, ws) = self.row(v as usize);
            for (&u, &w) in ts.iter().zip(ws) {
                let lu = local[u as usize];
                if lu != u32::MAX {
                    targets.push(lu);
                    weights.push(w);
                }
            }
            offsets.push(targets.len());
            loops.push(self.loops[v as usize]);
        }
        for &v in nodes {
            local[v as usize] = u32::MAX;
        }
        UGraph::with_strength(offsets, targets, weights, loops)
    }
}

/// The local-moving step that Louvain and Leiden share: gathers the weight from a node to each
/// neighbouring community and picks the community of largest quality gain
/// `to_comm[c] - k * cw[c] * rf` (`k` the node's weight, `cw[c]` the community's weight without
/// the node, `rf` the resolution factor). Scratch tables are cleared on the way out.
pub(crate) struct LocalMove {
    rf: f64,
    to_comm: Vec<f64>,
    seen: Vec<bool>,
    candidates: Vec<u32>,
}

impl LocalMove {
    /// For graphs of up to `n` nodes (community labels `< n`).
    pub(crate) fn new(n: usize, rf: f64) -> LocalMove {
        LocalMove {
            rf,
            to_comm: vec![0.0; n],
            seen: vec![false; n],
            candidates: Vec::new(),
        }
    }

    /// The best community for node `v`, already taken out of its community `memb[v]` (so
    /// `cw[memb[v]]` no longer holds `k`). Candidates are `extra` (Leiden's empty community),
    /// then the neighbours' communities in row order; the current community wins ties, then
    /// the first candidate, so only strictly better moves happen.
    pub(crate) fn best(
        &mut self,
        g: &UGraph,
        v: usize,
        memb: &[u32],
        cw: &[f64],
        k: f64,
        extra: Option<usize>,
    ) -> usize {
        self.candidates.clear();
        if let Some(e) = extra {
            self.seen[e] = true;
            self.candidates.push(e as u32);
        }
        let (ts, ws) = g.row(v);
        for (&u, &w) in ts.iter().zip(ws) {
            let c = memb[u as usize] as usize;
            if !self.seen[c] {
                self.seen[c] = true;
                self.candidates.push(c as u32);
            }
            self.to_comm[c] += w;
        }
        let cur = memb[v] as usize;
        let mut best = cur;
        let mut best_gain = self.to_comm[cur] - k * cw[cur] * self.rf;
        for &c in &self.candidates {
            let c = c as usize;
            let gain = self.to_comm[c] - k * cw[c] * self.rf;
            if gain > best_gain {
                best = c;
                best_gain = gain;
            }
            self.to_comm[c] = 0.0;
            self.seen[c] = false;
        }
        best
    }
}

/// Nodes grouped by their (dense) group id, by counting sort: ascending node order in a group.
pub(crate) struct Groups {
    starts: Vec<usize>,
    nodes: Vec<u32>,
}

impl Groups {
    pub(crate) fn group(&self, c: usize) -> &[u32] {
        &self.nodes[self.starts[c]..self.starts[c + 1]]
    }

    pub(crate) fn len(&self) -> usize {
        self.starts.len() - 1
    }
}

pub(crate) fn group_members(membership: &[u32], count: usize) -> Groups {
    let mut starts = vec![0usize; count + 1];
    for &c in membership {
        starts[c as usize + 1] += 1;
    }
    for c in 0..count {
        starts[c + 1] += starts[c];
    }
    let mut cursor = starts.clone();
    let mut nodes = vec![0u32; membership.len()];
    for (v, &c) in membership.iter().enumerate() {
        nodes[cursor[c as usize]] = v as u32;
        cursor[c as usize] += 1;
    }
    Groups { starts, nodes }
}

/// Dense labels for caller-supplied (arbitrary u32) labels, in order of first appearance.
pub(crate) fn dense_labels(partition: &[u32]) -> (Vec<u32>, usize) {
    let mut map = std::collections::HashMap::with_capacity(partition.len().min(1 << 16));
    let mut out = Vec::with_capacity(partition.len());
    for &c in partition {
        let next = map.len() as u32;
        out.push(*map.entry(c).or_insert(next));
    }
    let count = map.len();
    (out, count)
}

/// Modularity of a dense partition of `g`: `sum_c in_c / 2m - resolution (K_c / 2m)^2` with
/// `in_c` twice the weight inside `c` (a loop counts twice) and `K_c` its total strength.
/// NaN when the graph has no edge weight (as igraph; NetworkX divides by zero).
pub(crate) fn modularity_of(g: &UGraph, membership: &[u32], count: usize, resolution: f64) -> f64 {
    if g.total <= 0.0 {
        return f64::NAN;
    }
    let mut inside = vec![0.0; count];
    let mut strength = vec![0.0; count];
    for v in 0..g.node_count() {
        let c = membership[v] as usize;
        strength[c] += g.strength[v];
        inside[c] += 2.0 * g.loops[v];
        let (ts, ws) = g.row(v);
        for (&u, &w) in ts.iter().zip(ws) {
            if membership[u as usize] as usize == c {
                inside[c] += w;
            }
        }
    }
    let m2 = g.total;
    inside
        .iter()
        .zip(&strength)
        .map(|(&i, &k)| i / m2 - resolution * (k / m2) * (k / m2))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A directed multigraph with a loop: symmetrising sums weights, aggregation keeps
    /// strengths and modularity, and the induced subgraph keeps only inner edges.
    #[test]
    fn symmetrise_aggregate_induce() {
        let csr = Csr::from_edges(
            4,
            &[(0, 1), (1, 0), (0, 1), (1, 2), (2, 2), (3, 2)],
            Some(&[1.0, 2.0, 0.5, 1.0, 3.0, 1.0]),
        )
        .unwrap();
        let ctrl = Control::unbounded();
        let g = UGraph::from_csr(&csr, &ctrl).unwrap();
        assert_eq!(g.row(0), (&[1u32][..], &[3.5][..]));
        assert_eq!(g.row(2), (&[1u32, 3][..], &[1.0, 1.0][..]));
        assert_eq!(g.loops, vec![0.0, 0.0, 3.0, 0.0]);
        assert_eq!(g.strength, vec![3.5, 4.5, 8.0, 1.0]);
        assert_eq!(g.total, 17.0);
        let memb = [0, 0, 1, 1];
        let agg = g.aggregate(&memb, 2, &ctrl).unwrap();
        assert_eq!(agg.loops, vec![3.5, 4.0]);
        assert_eq!(agg.row(0), (&[1u32][..], &[1.0][..]));
        assert_eq!(agg.strength, vec![8.0, 9.0]);
        let q = modularity_of(&g, &memb, 2, 1.0);
        assert!((q - modularity_of(&agg, &[0, 1], 2, 1.0)).abs() < 1e-15);
        let mut local = vec![u32::MAX; 4];
        let sub = g.induced(&[1, 2], &mut local);
        assert_eq!(sub.row(0), (&[1u32][..], &[1.0][..]));
        assert_eq!(sub.strength, vec![1.0, 7.0]);
        assert!(local.iter().all(|&l| l == u32::MAX));
    }
}
