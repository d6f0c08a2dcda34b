//! The projection: one adjacency direction as offsets + targets (+ optional weights).

use thiserror::Error;

/// Why a projection could not be built.
#[derive(Debug, Error, PartialEq)]
pub enum CsrError {
    #[error("edge {index} ({src} -> {dst}) names a node outside 0..{n}")]
    NodeOutOfRange { index: usize, src: u32, dst: u32, n: u32 },
    #[error("{weights} weights for {edges} edges")]
    WeightCount { weights: usize, edges: usize },
}

/// One direction of adjacency over nodes `0..n`: the neighbours of `v` are
/// `targets[offsets[v]..offsets[v + 1]]`, sorted ascending, multi-edges and self-loops kept.
/// Weights, when present, are parallel to `targets`.
#[derive(Debug, Clone, PartialEq)]
pub struct Csr {
    offsets: Vec<u64>,
    targets: Vec<u32>,
    weights: Option<Vec<f64>>,
}

impl Csr {
    /// Builds from an edge list by counting sort (O(n + m), no comparison sort of all edges).
    pub fn from_edges(n: u32, edges: &[(u32, u32)], weights: Option<&[f64]>) -> Result<Csr, CsrError> {
        if let Some(w) = weights {
            if w.len() != edges.len() {
                return Err(CsrError::WeightCount {
                    weights: w.len(),
                    edges: edges.len(),
                });
            }
        }
        let mut offsets = vec![0u64; n as usize + 1];
        for (index, &(src, dst)) in edges.iter().enumerate() {
            if src >= n || dst >= n {
                return Err(CsrError::NodeOutOfRange { index, src, dst, n });
            }
            offsets[src as usize + 1] += 1;
        }
        for i in 0..n as usize {
            offsets[i + 1] += offsets[i];
        }
        let mut cursor: Vec<u64> = offsets[..n as usize].to_vec();
        let mut targets = vec![0u32; edges.len()];
        let mut ws = weights.map(|_| vec![0f64; edges.len()]);
        for (i, &(src, dst)) in edges.iter().enumerate() {
            let at = cursor[src as usize] as usize;
            cursor[src as usize] += 1;
            targets[at] = dst;
            if let (Some(out), Some(w)) = (ws.as_mut(), weights) {
                out[at] = w[i];
            }
        }
        let mut csr = Csr {
            offsets,
            targets,
            weights: ws,
        };
        csr.sort_rows();
        Ok(csr)
    }

    /// Sorts each row by target (weights follow), so neighbour lists are deterministic.
    fn sort_rows(&mut self) {
        for v in 0..self.node_count() as usize {
            let (lo, hi) = (self.offsets[v] as usize, self.offsets[v + 1] as usize);
            match self.weights.as_mut() {
                None => self.targets[lo..hi].sort_unstable(),
                Some(w) => {
                    let mut row: Vec<(u32, f64)> = self.targets[lo..hi]
                        .iter()
                        .copied()
                        .zip(w[lo..hi].iter().copied())
                        .collect();
                    row.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
                    for (k, (t, wt)) in row.into_iter().enumerate() {
                        self.targets[lo + k] = t;
                        w[lo + k] = wt;
                    }
                }
            }
        }
    }

    /// The reverse direction (in-edges become out-edges), weights carried along.
    pub fn transpose(&self) -> Csr {
        let edges: Vec<(u32, u32)> = self.edges().map(|(s, d)| (d, s)).collect();
        let n = self.node_count();
        // In range by construction: every endpoint came from this projection.
        Csr::from_edges(n, &edges, self.weights.as_deref()).unwrap_or_else(|_| unreachable!())
    }

    pub fn node_count(&self) -> u32 {
        (self.offsets.len() - 1) as u32
    }

    pub fn edge_count(&self) -> u64 {
        self.targets.len() as u64
    }

    pub fn degree(&self, v: u32) -> u64 {
        self.offsets[v as usize + 1] - self.offsets[v as usize]
    }

    pub fn neighbors(&self, v: u32) -> &[u32] {
        &self.targets[self.offsets[v as usize] as usize..self.offsets[v as usize + 1] as usize]
    }

    /// Weights parallel to [`Csr::neighbors`], or `None` for an unweighted projection.
    pub fn weights(&self, v: u32) -> Option<&[f64]> {
        let (lo, hi) = (self.offsets[v as usize] as usize, self.offsets[v as usize + 1] as usize);
        self.weights.as_ref().map(|w| &w[lo..hi])
    }

    pub fn is_weighted(&self) -> bool {
        self.weights.is_some()
    }

    /// Every edge as (source, target), in row order.
    pub fn edges(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        (0..self.node_count()).flat_map(move |v| self.neighbors(v).iter().map(move |&t| (v, t)))
    }

    /// Heap bytes held by the projection.
    pub fn memory_bytes(&self) -> usize {
        self.offsets.len() * 8 + self.targets.len() * 4 + self.weights.as_ref().map_or(0, |w| w.len() * 8)
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
