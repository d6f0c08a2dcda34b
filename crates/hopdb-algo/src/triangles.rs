//! Triangle counts on the symmetrised simple graph (direction, self-loops and parallel edges
//! ignored, as NetworkX's `triangles` on `nx.Graph(edges)`).

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use crate::control::{AlgoError, Control};
use crate::csr::Csr;

/// Total triangles and, per node, the triangles it belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Triangles {
    /// Distinct triangles in the graph, each counted once.
    pub total: u64,
    /// Triangles through each node (NetworkX's `triangles`).
    pub per_node: Vec<u64>,
}

/// Counts triangles: each edge is oriented from the lower to the higher (degree, id) end, so
/// hubs keep short forward lists, and each triangle is found exactly once as `u < v < w` in
/// that order by intersecting the sorted forward lists of `u` and `v`. Parallel over `u`.
pub fn triangles(graph: &Csr, ctrl: &Control) -> Result<Triangles, AlgoError> {
    ctrl.check()?;
    let n = graph.node_count() as usize;
    ctrl.check_memory(graph.edge_count() as usize * 8 + n * 24)?;
    let simple = graph.simple_undirected(false);
    ctrl.check()?;
    let order = |v: u32| (simple.degree(v), v);
    let mut offsets = vec![0usize; n + 1];
    let mut forward = Vec::with_capacity(simple.edge_count() as usize / 2);
    for u in 0..n as u32 {
        forward.extend(simple.neighbors(u).iter().copied().filter(|&v| order(v) > order(u)));
        offsets[u as usize + 1] = forward.len();
    }
    drop(simple);
    let fwd = |u: u32| &forward[offsets[u as usize]..offsets[u as usize + 1]];
    let per_node: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
    let total = (0..n as u32)
        .into_par_iter()
        .with_min_len(256)
        .map(|u| -> Result<u64, AlgoError> {
            if u % 1024 == 0 {
                ctrl.check()?;
            }
            let fu = fwd(u);
            let mut found = 0u64;
            for &v in fu {
                let fv = fwd(v);
                let (mut i, mut j) = (0, 0);
                let mut here = 0u64;
                while i < fu.len() && j < fv.len() {
                    match fu[i].cmp(&fv[j]) {
                        std::cmp::Ordering::Less => i += 1,
                        std::cmp::Ordering::Greater => j += 1,
                        std::cmp::Ordering::Equal => {
                            per_node[fu[i] as usize].fetch_add(1, Ordering::Relaxed);
                            here += 1;
                            i += 1;
                            j += 1;
                        }
                    }
                }
                if here > 0 {
                    per_node[v as usize].fetch_add(here, Ordering::Relaxed);
                    found += here;
                }
            }
            if found > 0 {
                per_node[u as usize].fetch_add(found, Ordering::Relaxed);
            }
            Ok(found)
        })
        .try_reduce(|| 0, |a, b| Ok(a + b))?;
    Ok(Triangles {
        total,
        per_node: per_node.into_iter().map(AtomicU64::into_inner).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_ignore_direction_loops_and_multi_edges() {
        // Two triangles sharing edge 1-2: {0,1,2}, {1,2,3}; duplicates, reversed edges, a loop.
        let g = Csr::from_edges(
            5,
            &[(0, 1), (1, 2), (2, 0), (1, 3), (3, 2), (2, 1), (0, 1), (3, 3)],
            None,
        )
        .unwrap();
        let t = triangles(&g, &Control::unbounded()).unwrap();
        assert_eq!(t.total, 2);
        assert_eq!(t.per_node, vec![1, 2, 2, 1, 0]);
        let empty = Csr::from_edges(0, &[], None).unwrap();
        assert_eq!(triangles(&empty, &Control::unbounded()).unwrap().total, 0);
    }
}
