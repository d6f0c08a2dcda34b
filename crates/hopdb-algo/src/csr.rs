//! The projection: one adjacency direction as offsets + targets (+ optional weights).

use thiserror::Error;

/// Why a projection could not be built.
#[derive(Debug, Error, PartialEq)]
pub enum CsrError {
    /// An input edge has an endpoint `>= n`.
    #[error("edge {index} ({src} -> {dst}) names a node outside 0..{n}")]
    NodeOutOfRange {
        /// Position of the edge in the input.
        index: usize,
        /// Its source.
        src: u32,
        /// Its target.
        dst: u32,
        /// The node count given.
        n: u32,
    },
    /// The weights are not one per edge.
    #[error("{weights} weights for {edges} edges")]
    WeightCount {
        /// Weights given.
        weights: usize,
        /// Edges given.
        edges: usize,
    },
    /// The edge ids are not one per edge.
    #[error("{ids} edge ids for {edges} edges")]
    IdCount {
        /// Edge ids given.
        ids: usize,
        /// Edges given.
        edges: usize,
    },
    /// More edges than 32-bit edge ids can name.
    #[error("{edges} edges: edge ids are 32-bit, so at most 4,294,967,295 edges")]
    TooManyEdges {
        /// Edges given.
        edges: usize,
    },
}

/// One direction of adjacency over nodes `0..n`: the neighbours of `v` are
/// `targets[offsets[v]..offsets[v + 1]]`, sorted ascending, multi-edges and self-loops kept.
/// Weights and edge ids, when present, are parallel to `targets`.
#[derive(Debug, Clone, PartialEq)]
pub struct Csr {
    offsets: Vec<u64>,
    targets: Vec<u32>,
    weights: Option<Vec<f64>>,
    /// Stable identity of each edge, shared by every view of it (out, in, undirected), so a
    /// traversal over several views can tell "same relationship" (openCypher uniqueness).
    /// 32 bits an entry (half of what `u64` ids cost: the three views of a projection hold
    /// four entries per edge).
    edge_ids: Option<Vec<u32>>,
    /// Flat position of the first negative or NaN weight, found once when building, so that
    /// shortest-path searches can refuse such a graph without scanning it per query.
    invalid_weight: Option<usize>,
}

impl Csr {
    /// Builds from an edge list by counting sort (O(n + m), no comparison sort of all edges).
    pub fn from_edges(n: u32, edges: &[(u32, u32)], weights: Option<&[f64]>) -> Result<Csr, CsrError> {
        Csr::build(n, edges, weights, None)
    }

    /// Like [`Csr::from_edges`], also keeping `ids[i]` as the identity of `edges[i]`; the ids
    /// travel with the edge through [`Csr::transpose`] and [`Csr::undirected`].
    pub fn from_edges_with_ids(
        n: u32,
        edges: &[(u32, u32)],
        weights: Option<&[f64]>,
        ids: &[u32],
    ) -> Result<Csr, CsrError> {
        if ids.len() != edges.len() {
            return Err(CsrError::IdCount {
                ids: ids.len(),
                edges: edges.len(),
            });
        }
        Csr::build(n, edges, weights, Some(ids))
    }

    fn build(n: u32, edges: &[(u32, u32)], weights: Option<&[f64]>, ids: Option<&[u32]>) -> Result<Csr, CsrError> {
        if let Some(w) = weights {
            if w.len() != edges.len() {
                return Err(CsrError::WeightCount {
                    weights: w.len(),
                    edges: edges.len(),
                });
            }
        }
        if let Some((index, &(src, dst))) = edges.iter().enumerate().find(|(_, &(s, d))| s >= n || d >= n) {
            return Err(CsrError::NodeOutOfRange { index, src, dst, n });
        }
        Ok(Csr::assemble(n, edges, weights, ids))
    }

    /// The counting sort behind [`Csr::build`], for input already checked: every endpoint
    /// `< n`, weights and ids (when given) parallel to `edges`.
    fn assemble(n: u32, edges: &[(u32, u32)], weights: Option<&[f64]>, ids: Option<&[u32]>) -> Csr {
        let mut offsets = vec![0u64; n as usize + 1];
        for &(src, _) in edges {
            offsets[src as usize + 1] += 1;
        }
        for i in 0..n as usize {
            offsets[i + 1] += offsets[i];
        }
        let mut cursor: Vec<u64> = offsets[..n as usize].to_vec();
        let mut targets = vec![0u32; edges.len()];
        let mut ws = weights.map(|_| vec![0f64; edges.len()]);
        let mut is = ids.map(|_| vec![0u32; edges.len()]);
        for (i, &(src, dst)) in edges.iter().enumerate() {
            let at = cursor[src as usize] as usize;
            cursor[src as usize] += 1;
            targets[at] = dst;
            if let (Some(out), Some(w)) = (ws.as_mut(), weights) {
                out[at] = w[i];
            }
            if let (Some(out), Some(id)) = (is.as_mut(), ids) {
                out[at] = id[i];
            }
        }
        let mut csr = Csr {
            offsets,
            targets,
            weights: ws,
            edge_ids: is,
            invalid_weight: None,
        };
        csr.sort_rows();
        csr.invalid_weight = csr
            .weights
            .as_ref()
            .and_then(|w| w.iter().position(|&x| x.is_nan() || x < 0.0));
        csr
    }

    /// Sorts each row by target (then weight, then id; weights and ids follow), so neighbour
    /// lists are deterministic whatever order the edges came in.
    fn sort_rows(&mut self) {
        if self.weights.is_none() && self.edge_ids.is_none() {
            for v in 0..self.node_count() as usize {
                let (lo, hi) = (self.offsets[v] as usize, self.offsets[v + 1] as usize);
                self.targets[lo..hi].sort_unstable();
            }
            return;
        }
        let mut row: Vec<(u32, f64, u32)> = Vec::new();
        for v in 0..self.node_count() as usize {
            let (lo, hi) = (self.offsets[v] as usize, self.offsets[v + 1] as usize);
            row.clear();
            for k in lo..hi {
                let w = self.weights.as_ref().map_or(0.0, |w| w[k]);
                let id = self.edge_ids.as_ref().map_or(0, |i| i[k]);
                row.push((self.targets[k], w, id));
            }
            row.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)).then(a.2.cmp(&b.2)));
            for (k, &(t, w, id)) in row.iter().enumerate() {
                self.targets[lo + k] = t;
                if let Some(ws) = self.weights.as_mut() {
                    ws[lo + k] = w;
                }
                if let Some(is) = self.edge_ids.as_mut() {
                    is[lo + k] = id;
                }
            }
        }
    }

    /// The reverse direction (in-edges become out-edges), weights and edge ids carried along.
    pub fn transpose(&self) -> Csr {
        let edges: Vec<(u32, u32)> = self.edges().map(|(s, d)| (d, s)).collect();
        let n = self.node_count();
        // In range by construction: every endpoint came from this projection.
        Csr::assemble(n, &edges, self.weights.as_deref(), self.edge_ids.as_deref())
    }

    /// Both directions in one view: edge `u -> v` appears in row `u` (to `v`) and row `v` (to
    /// `u`), so a self-loop appears twice in its row, as in igraph's and NetworkX's undirected
    /// degree. Weights follow; ids are this projection's ids, or else its edge positions, so
    /// both copies of an edge share one id (openCypher `-[]-` must not use it twice).
    pub fn undirected(&self) -> Csr {
        let m = self.targets.len();
        // Positions as ids only while they fit in 32 bits (a view without ids that large has
        // no ids in its undirected view either: `edge_key` then is the position there).
        let ids_from_positions = self.edge_ids.is_none() && u32::try_from(m).is_ok();
        let keep_ids = self.edge_ids.is_some() || ids_from_positions;
        let mut edges = Vec::with_capacity(2 * m);
        let mut ws = self.weights.as_ref().map(|_| Vec::with_capacity(2 * m));
        let mut ids = Vec::with_capacity(if keep_ids { 2 * m } else { 0 });
        for (k, (s, d)) in self.edges().enumerate() {
            edges.push((s, d));
            edges.push((d, s));
            if keep_ids {
                let id = self.edge_ids.as_ref().map_or(k as u32, |i| i[k]);
                ids.push(id);
                ids.push(id);
            }
            if let (Some(out), Some(w)) = (ws.as_mut(), self.weights.as_ref()) {
                out.push(w[k]);
                out.push(w[k]);
            }
        }
        Csr::assemble(
            self.node_count(),
            &edges,
            ws.as_deref(),
            keep_ids.then_some(ids.as_slice()),
        )
    }

    /// The simple undirected graph underneath (NetworkX's `nx.Graph(edges)`): each neighbour
    /// once per row, both directions, self-loops kept once or dropped; no weights or ids.
    pub fn simple_undirected(&self, keep_self_loops: bool) -> Csr {
        let n = self.node_count() as usize;
        let mut offsets = vec![0u64; n + 1];
        for (s, d) in self.edges() {
            if s != d {
                offsets[s as usize + 1] += 1;
                offsets[d as usize + 1] += 1;
            } else if keep_self_loops {
                offsets[s as usize + 1] += 1;
            }
        }
        for i in 0..n {
            offsets[i + 1] += offsets[i];
        }
        let mut cursor: Vec<u64> = offsets[..n].to_vec();
        let mut targets = vec![0u32; offsets[n] as usize];
        for (s, d) in self.edges() {
            if s == d && !keep_self_loops {
                continue;
            }
            targets[cursor[s as usize] as usize] = d;
            cursor[s as usize] += 1;
            if s != d {
                targets[cursor[d as usize] as usize] = s;
                cursor[d as usize] += 1;
            }
        }
        // Sort and deduplicate each row, compacting in place.
        let mut out_offsets = vec![0u64; n + 1];
        let mut write = 0usize;
        for v in 0..n {
            let (lo, hi) = (offsets[v] as usize, offsets[v + 1] as usize);
            targets[lo..hi].sort_unstable();
            let mut last = None;
            for k in lo..hi {
                let t = targets[k];
                if last != Some(t) {
                    targets[write] = t;
                    write += 1;
                    last = Some(t);
                }
            }
            out_offsets[v + 1] = write as u64;
        }
        targets.truncate(write);
        targets.shrink_to_fit();
        Csr {
            offsets: out_offsets,
            targets,
            weights: None,
            edge_ids: None,
            invalid_weight: None,
        }
    }

    /// Number of nodes `n`; nodes are `0..n`.
    pub fn node_count(&self) -> u32 {
        (self.offsets.len() - 1) as u32
    }

    /// Number of edges in this direction (multi-edges and self-loops each counted).
    pub fn edge_count(&self) -> u64 {
        self.targets.len() as u64
    }

    /// Row length of `v`. Like the other per-node accessors below, panics when `v >=
    /// node_count()` (as slice indexing does); the algorithms check their node arguments and
    /// return [`crate::AlgoError::NodeOutOfRange`] instead.
    pub fn degree(&self, v: u32) -> u64 {
        self.offsets[v as usize + 1] - self.offsets[v as usize]
    }

    /// The targets of `v`'s edges, sorted ascending (repeated for multi-edges).
    pub fn neighbors(&self, v: u32) -> &[u32] {
        &self.targets[self.offsets[v as usize] as usize..self.offsets[v as usize + 1] as usize]
    }

    /// Weights parallel to [`Csr::neighbors`], or `None` for an unweighted projection.
    pub fn weights(&self, v: u32) -> Option<&[f64]> {
        let (lo, hi) = (self.offsets[v as usize] as usize, self.offsets[v as usize + 1] as usize);
        self.weights.as_ref().map(|w| &w[lo..hi])
    }

    /// Whether the projection was built with weights.
    pub fn is_weighted(&self) -> bool {
        self.weights.is_some()
    }

    /// The first edge, in row order, whose weight is negative or NaN, as `(source, target,
    /// weight)`; `None` when every weight is usable as a length (or there are no weights).
    pub fn first_invalid_weight(&self) -> Option<(u32, u32, f64)> {
        let at = self.invalid_weight?;
        let w = self.weights.as_ref()?[at];
        // The row holding flat position `at`: the last `v` with offsets[v] <= at.
        let src = self.offsets.partition_point(|&o| o <= at as u64) - 1;
        Some((src as u32, self.targets[at], w))
    }

    /// Edge ids parallel to [`Csr::neighbors`], or `None` when built without ids.
    pub fn edge_ids(&self, v: u32) -> Option<&[u32]> {
        let (lo, hi) = (self.offsets[v as usize] as usize, self.offsets[v as usize + 1] as usize);
        self.edge_ids.as_ref().map(|i| &i[lo..hi])
    }

    /// Whether the projection was built with edge ids ([`Csr::edge_key`] then is global).
    pub fn has_edge_ids(&self) -> bool {
        self.edge_ids.is_some()
    }

    /// The identity of the `i`-th edge of row `v`: its id, or else its position in this view
    /// (unique within one view only).
    pub fn edge_key(&self, v: u32, i: usize) -> u64 {
        let at = self.offsets[v as usize] as usize + i;
        self.edge_ids.as_ref().map_or(at as u64, |ids| u64::from(ids[at]))
    }

    /// Where row `v` starts in the flat edge arrays (for per-edge side tables).
    pub fn row_start(&self, v: u32) -> u64 {
        self.offsets[v as usize]
    }

    /// Every edge as (source, target), in row order.
    pub fn edges(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        (0..self.node_count()).flat_map(move |v| self.neighbors(v).iter().map(move |&t| (v, t)))
    }

    /// Heap bytes held by the projection.
    pub fn memory_bytes(&self) -> usize {
        self.offsets.len() * 8
            + self.targets.len() * 4
            + self.weights.as_ref().map_or(0, |w| w.len() * 8)
            + self.edge_ids.as_ref().map_or(0, |i| i.len() * 4)
    }
}

/// Both adjacency directions of one graph, sharing edge ids (edge `i` of the input has id `i`),
/// which is what traversals with direction "in" or "both" and path uniqueness need.
#[derive(Debug, Clone, PartialEq)]
pub struct Projection {
    /// Outgoing adjacency: row `v` holds the targets of `v`'s edges.
    pub out: Csr,
    /// Incoming adjacency (the transpose of `out`): row `v` holds the sources of edges into `v`.
    pub inc: Csr,
}

impl Projection {
    /// Builds both directions from `(source, target)` pairs over nodes `0..n`, with optional
    /// weights parallel to `edges`; edge `i` gets id `i`.
    pub fn from_edges(n: u32, edges: &[(u32, u32)], weights: Option<&[f64]>) -> Result<Projection, CsrError> {
        let m = u32::try_from(edges.len()).map_err(|_| CsrError::TooManyEdges { edges: edges.len() })?;
        let ids: Vec<u32> = (0..m).collect();
        let out = Csr::from_edges_with_ids(n, edges, weights, &ids)?;
        let inc = out.transpose();
        Ok(Projection { out, inc })
    }

    /// Number of nodes `n`, the same in both directions.
    pub fn node_count(&self) -> u32 {
        self.out.node_count()
    }

    /// Heap bytes held by both directions.
    pub fn memory_bytes(&self) -> usize {
        self.out.memory_bytes() + self.inc.memory_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_sorted_and_weights_follow() {
        let csr = Csr::from_edges(3, &[(0, 2), (0, 1), (2, 0), (0, 1)], Some(&[1.0, 2.0, 3.0, 0.5])).unwrap();
        assert_eq!(csr.neighbors(0), &[1, 1, 2]);
        assert_eq!(csr.weights(0).unwrap(), &[0.5, 2.0, 1.0]);
        assert_eq!(csr.neighbors(1), &[] as &[u32]);
        assert_eq!(csr.degree(2), 1);
        let t = csr.transpose();
        assert_eq!(t.neighbors(1), &[0, 0]);
        assert_eq!(t.neighbors(0), &[2]);
        assert_eq!(t.neighbors(2), &[0]);
    }

    #[test]
    fn ids_follow_edges_through_views() {
        let csr = Csr::from_edges_with_ids(3, &[(0, 2), (0, 1), (2, 2), (1, 0)], None, &[10, 11, 12, 13]).unwrap();
        assert_eq!(csr.edge_ids(0).unwrap(), &[11, 10]);
        let t = csr.transpose();
        assert_eq!(t.neighbors(0), &[1]);
        assert_eq!(t.edge_ids(0).unwrap(), &[13]);
        assert_eq!(t.edge_ids(2).unwrap(), &[10, 12]);
        let u = csr.undirected();
        assert_eq!(u.neighbors(0), &[1, 1, 2]);
        assert_eq!(u.edge_ids(0).unwrap(), &[11, 13, 10]);
        assert_eq!(u.neighbors(2), &[0, 2, 2]);
        assert_eq!(u.edge_ids(2).unwrap(), &[10, 12, 12]);
        let s = csr.simple_undirected(true);
        assert_eq!(s.neighbors(0), &[1, 2]);
        assert_eq!(s.neighbors(2), &[0, 2]);
        assert_eq!(csr.simple_undirected(false).neighbors(2), &[0]);
        assert_eq!(
            Csr::from_edges_with_ids(2, &[(0, 1)], None, &[]),
            Err(CsrError::IdCount { ids: 0, edges: 1 })
        );
        let p = Projection::from_edges(3, &[(0, 1), (0, 1)], None).unwrap();
        assert_eq!(p.inc.edge_ids(1).unwrap(), &[0, 1]);
        assert_eq!(p.out.edge_key(0, 1), 1);
    }

    #[test]
    fn out_of_range_is_an_error() {
        assert_eq!(
            Csr::from_edges(2, &[(0, 2)], None),
            Err(CsrError::NodeOutOfRange {
                index: 0,
                src: 0,
                dst: 2,
                n: 2
            })
        );
    }
}
